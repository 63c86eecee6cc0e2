//! The bus: who is connected, which channels each connection hears, and what each request does.
//!
//! A connection task ([`crate::server`]) reads frames and calls [`Hub::handle`]; everything the
//! hub sends, replies included, goes into the connection's bounded queue ([`Outbound`]), which the
//! task writes out. A full queue drops the frame with a warning (spec: "Send buffer: 256 messages
//! per connection (drops with warning if full)") so one slow reader never holds up the rest. A
//! broadcast is serialised once and shared by every queue it goes into.
//!
//! The state sits behind one mutex that is never held across an await: every operation is a few
//! map lookups and queue pushes.

use crate::auth::{Auth, Login};
use crate::envelope::{Envelope, new_id, now_ms};
use crate::errors;
use crate::limits::{MAX_CONTENT_CHARS, MAX_SUBSCRIPTIONS, WAKE_CONTEXT_MESSAGES};
use crate::store::{Member, MemberKind, Message, Store, StoreError};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// What a connection's writer is told to do.
#[derive(Clone, Debug)]
pub enum Outbound {
    /// A frame's text, shared between the queues of a broadcast.
    Frame(Arc<str>),
    /// Close the connection, saying why.
    Close(&'static str),
}

pub type ConnId = u64;

struct Conn {
    login: Login,
    tx: mpsc::Sender<Outbound>,
    channels: HashSet<String>,
}

#[derive(Default)]
struct State {
    conns: HashMap<ConnId, Conn>,
    by_member: HashMap<String, ConnId>,
    subscribers: HashMap<String, HashSet<ConnId>>,
    /// Lower-cased name → member: @mentions resolve in one lookup (spec: "Name Resolution").
    names: HashMap<String, Member>,
}

pub struct Hub {
    store: Store,
    auth: Auth,
    state: Mutex<State>,
    next_conn: AtomicU64,
    dropped: AtomicU64,
}

/// Presence values a client may set (spec: online, idle, offline, dnd; sleeping is an agent's
/// `agent.sleep`).
const CLIENT_STATUSES: &[&str] = &["online", "idle", "offline", "dnd"];

impl Hub {
    pub fn new(store: Store) -> Result<Hub, StoreError> {
        let auth = Auth::new(&store)?;
        let names = store.members()?.into_iter().map(|m| (m.name.to_lowercase(), m)).collect();
        Ok(Hub {
            store,
            auth,
            state: Mutex::new(State { names, ..State::default() }),
            next_conn: AtomicU64::new(1),
            dropped: AtomicU64::new(0),
        })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn auth(&self) -> &Auth {
        &self.auth
    }

    /// A new member, known to @mentions at once.
    pub fn add_member(&self, name: &str, kind: MemberKind) -> Result<Member, StoreError> {
        let member = self.store.add_member(name, kind)?;
        self.state().names.insert(name.to_lowercase(), member.clone());
        Ok(member)
    }

    /// Frames dropped because a connection's queue was full, since the hub started.
    pub fn dropped_frames(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Connections signed in now.
    pub fn connections(&self) -> usize {
        self.state().conns.len()
    }

    pub fn next_conn_id(&self) -> ConnId {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, tx: &mpsc::Sender<Outbound>, frame: &Arc<str>) {
        if tx.try_send(Outbound::Frame(frame.clone())).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            tracing::warn!("lark: a connection's send buffer is full; a frame was dropped");
        }
    }

    fn send(&self, state: &State, conn: ConnId, envelope: &Envelope) {
        if let Some(c) = state.conns.get(&conn) {
            self.push(&c.tx, &Arc::from(envelope.to_text()));
        }
    }

    /// One frame to each of `targets`, serialised once.
    fn deliver(&self, state: &State, targets: impl IntoIterator<Item = ConnId>, envelope: &Envelope) {
        let frame: Arc<str> = Arc::from(envelope.to_text());
        for conn in targets {
            if let Some(c) = state.conns.get(&conn) {
                self.push(&c.tx, &frame);
            }
        }
    }

    fn broadcast_channel(&self, state: &State, channel: &str, envelope: &Envelope, except: Option<ConnId>) {
        let targets = state.subscribers.get(channel).into_iter().flatten().copied().filter(|c| Some(*c) != except);
        self.deliver(state, targets, envelope);
    }

    fn broadcast_all(&self, state: &State, envelope: &Envelope) {
        self.deliver(state, state.conns.keys().copied(), envelope);
    }

    /// A member's presence, told to the connections that hear one of `channels` (the member's),
    /// each once: who shares no channel with a member does not learn when they come and go.
    fn presence(&self, state: &State, member_id: &str, channels: &HashSet<String>, status: &str) {
        let targets: HashSet<ConnId> =
            channels.iter().filter_map(|c| state.subscribers.get(c)).flatten().copied().collect();
        let update = Envelope::new("presence.update", json!({ "member_id": member_id, "status": status }));
        self.deliver(state, targets, &update);
    }

    /// The channels a connected member's connection hears.
    fn channels_of(state: &State, member_id: &str) -> HashSet<String> {
        state.by_member.get(member_id).and_then(|c| state.conns.get(c)).map(|c| c.channels.clone()).unwrap_or_default()
    }

    /// `auth.login`: the connection takes the token's identity, replacing any other connection of
    /// the same member (spec: "If a connection with the same ID exists, the server closes the old
    /// one"), and hears all the member's channels.
    pub fn login(&self, conn: ConnId, token: &str, tx: mpsc::Sender<Outbound>, request: &Envelope) -> Option<Login> {
        let login = self.auth.login(&self.store, token)?;
        let channels = self.store.channels_of(&login.member.id).ok()?;
        let mut state = self.state();
        // Detached here, so the old connection's end finds nothing to mark offline.
        if let Some(old) = state.by_member.get(&login.member.id).copied()
            && let Some(replaced) = self.detach_locked(&mut state, old)
        {
            let _ = replaced.tx.try_send(Outbound::Close("replaced by a newer connection of the same member"));
        }
        let mut subscribed = HashSet::new();
        for channel in channels.into_iter().take(MAX_SUBSCRIPTIONS) {
            state.subscribers.entry(channel.clone()).or_default().insert(conn);
            subscribed.insert(channel);
        }
        state.by_member.insert(login.member.id.clone(), conn);
        state.conns.insert(conn, Conn { login: login.clone(), tx, channels: subscribed });
        let member = &login.member;
        let success = Envelope::reply(
            request,
            "auth.success",
            json!({ "member_id": member.id, "workspace_id": member.workspace_id, "name": member.name, "type": member.kind }),
        );
        self.send(&state, conn, &success);
        self.presence(&state, &member.id, &Hub::channels_of(&state, &member.id), "online");
        Some(login)
    }

    fn detach_locked(&self, state: &mut State, conn: ConnId) -> Option<Conn> {
        let c = state.conns.remove(&conn)?;
        for channel in &c.channels {
            if let Some(set) = state.subscribers.get_mut(channel) {
                set.remove(&conn);
                if set.is_empty() {
                    state.subscribers.remove(channel);
                }
            }
        }
        if state.by_member.get(&c.login.member.id) == Some(&conn) {
            state.by_member.remove(&c.login.member.id);
        }
        Some(c)
    }

    /// The connection has ended: its member is offline unless another connection took over.
    pub fn disconnect(&self, conn: ConnId) {
        let mut state = self.state();
        if let Some(ended) = self.detach_locked(&mut state, conn)
            && !state.by_member.contains_key(&ended.login.member.id)
        {
            self.presence(&state, &ended.login.member.id, &ended.channels, "offline");
        }
    }

    /// One request of a signed-in connection; an `Err` is the `error` frame's text.
    pub fn handle(&self, conn: ConnId, request: &Envelope) -> Result<(), &'static str> {
        let member = self.state().conns.get(&conn).map(|c| c.login.clone()).ok_or(errors::NOT_AUTHENTICATED)?;
        let me = &member.member;
        let store_failed = |e: StoreError| {
            tracing::error!("lark: {e}");
            errors::STORE_FAILED
        };
        match request.kind.as_str() {
            "auth.login" => Err(errors::ALREADY_AUTHENTICATED),
            "auth.logout" => {
                if let Some(jti) = &member.jti {
                    self.store.revoke(jti).map_err(store_failed)?;
                }
                let state = self.state();
                if let Some(c) = state.conns.get(&conn) {
                    let _ = c.tx.try_send(Outbound::Close("logged out"));
                }
                Ok(())
            }
            "channel.join" => {
                let channel = request.str("channel_id").ok_or(errors::INVALID_DATA)?;
                if !self.store.is_channel_member(channel, &me.id).map_err(store_failed)? {
                    return Err(errors::NOT_A_CHANNEL_MEMBER);
                }
                let mut state = self.state();
                let c = state.conns.get_mut(&conn).ok_or(errors::NOT_AUTHENTICATED)?;
                if !c.channels.contains(channel) && c.channels.len() >= MAX_SUBSCRIPTIONS {
                    return Err(errors::SUBSCRIPTION_LIMIT);
                }
                c.channels.insert(channel.to_string());
                state.subscribers.entry(channel.to_string()).or_default().insert(conn);
                self.send(&state, conn, &Envelope::reply(request, "channel.join", json!({ "channel_id": channel })));
                Ok(())
            }
            "channel.leave" => {
                let channel = request.str("channel_id").ok_or(errors::INVALID_DATA)?;
                let mut state = self.state();
                if let Some(c) = state.conns.get_mut(&conn) {
                    c.channels.remove(channel);
                }
                if let Some(set) = state.subscribers.get_mut(channel) {
                    set.remove(&conn);
                }
                self.send(&state, conn, &Envelope::reply(request, "channel.leave", json!({ "channel_id": channel })));
                Ok(())
            }
            "message.send" | "thread.reply" => self.post(conn, me, request),
            "message.edit" | "message.delete" => {
                let id = request.str("message_id").ok_or(errors::INVALID_DATA)?;
                let message = self.store.message(id).map_err(store_failed)?.ok_or(errors::NOT_FOUND)?;
                if message.sender_id != me.id {
                    return Err(errors::NOT_AUTHOR);
                }
                let data = if request.kind == "message.edit" {
                    let content = content(request)?;
                    let at = now_ms();
                    self.store.edit_message(id, content, at).map_err(store_failed)?;
                    json!({ "message_id": id, "channel_id": message.channel_id, "content": content, "edited_at": at })
                } else {
                    self.store.delete_message(id).map_err(store_failed)?;
                    json!({ "message_id": id, "channel_id": message.channel_id })
                };
                let state = self.state();
                self.broadcast_channel(
                    &state,
                    &message.channel_id,
                    &Envelope::reply(request, &request.kind, data),
                    None,
                );
                Ok(())
            }
            "typing.start" | "typing.stop" => {
                let channel = self.member_channel(request, me)?;
                let state = self.state();
                let data = json!({ "channel_id": channel, "member_id": me.id, "name": me.name });
                self.broadcast_channel(&state, &channel, &Envelope::new(&request.kind, data), Some(conn));
                Ok(())
            }
            "presence.update" => {
                let status =
                    request.str("status").filter(|s| CLIENT_STATUSES.contains(s)).ok_or(errors::INVALID_STATUS)?;
                let state = self.state();
                self.presence(&state, &me.id, &Hub::channels_of(&state, &me.id), status);
                Ok(())
            }
            "agent.hello" => {
                if me.kind != MemberKind::Agent {
                    return Err(errors::NOT_AN_AGENT);
                }
                let role_card =
                    request.data.get("role_card").filter(|c| c.get("system_prompt").is_some_and(Value::is_string));
                let role_card = role_card.ok_or(errors::INVALID_DATA)?;
                let runtime = request.data.get("runtime").cloned().unwrap_or(Value::Null);
                self.store.set_role_card(&me.id, role_card, &runtime).map_err(store_failed)?;
                let state = self.state();
                self.send(
                    &state,
                    conn,
                    &Envelope::reply(request, "agent.welcome", json!({ "agent_id": me.id, "status": "awake" })),
                );
                self.presence(&state, &me.id, &Hub::channels_of(&state, &me.id), "online");
                Ok(())
            }
            "agent.sleep" => {
                if me.kind != MemberKind::Agent {
                    return Err(errors::NOT_AN_AGENT);
                }
                let state = self.state();
                self.presence(&state, &me.id, &Hub::channels_of(&state, &me.id), "sleeping");
                Ok(())
            }
            "agent.thinking" => {
                if me.kind != MemberKind::Agent {
                    return Err(errors::NOT_AN_AGENT);
                }
                let channel = self.member_channel(request, me)?;
                let state = self.state();
                let data = json!({ "channel_id": channel, "member_id": me.id, "name": me.name });
                self.broadcast_channel(&state, &channel, &Envelope::new("typing.start", data), Some(conn));
                Ok(())
            }
            "approval.request" => {
                let action = request.str("action").filter(|a| !a.is_empty()).ok_or(errors::INVALID_DATA)?;
                let payload = match request.data.get("payload") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                let channel = match request.str("channel_id") {
                    Some(_) => Some(self.member_channel(request, me)?),
                    None => None,
                };
                let (id, created_at) =
                    self.store.add_approval(channel.as_deref(), &me.id, action, &payload).map_err(store_failed)?;
                let data = json!({
                    "id": id, "channel_id": channel, "requester_id": me.id, "action": action,
                    "payload": payload, "status": "pending", "created_at": created_at,
                });
                let state = self.state();
                self.broadcast_all(&state, &Envelope::reply(request, "approval.request", data));
                Ok(())
            }
            // Not in the spec, which has agents ask and leaves the answer open; the issue's: any
            // person who may see the request decides it, the first decision wins, and everyone
            // sees it resolved. Agents never decide: the user does.
            "approval.decide" => {
                if me.kind != MemberKind::Human {
                    return Err(errors::NOT_A_PERSON);
                }
                let id = request.str("approval_id").ok_or(errors::INVALID_DATA)?;
                let status = match request.str("decision") {
                    Some("approve") => "approved",
                    Some("deny") => "denied",
                    _ => return Err(errors::INVALID_DATA),
                };
                let channel =
                    self.store.approval_channel(id).map_err(store_failed)?.ok_or(errors::APPROVAL_NOT_FOUND)?;
                if let Some(channel) = &channel
                    && !self.store.is_channel_member(channel, &me.id).map_err(store_failed)?
                {
                    return Err(errors::NOT_A_CHANNEL_MEMBER);
                }
                let (approval, decided_now) = self
                    .store
                    .decide_approval(id, &me.id, status)
                    .map_err(store_failed)?
                    .ok_or(errors::APPROVAL_NOT_FOUND)?;
                if !decided_now {
                    return Err(errors::ALREADY_DECIDED);
                }
                let state = self.state();
                let data = serde_json::to_value(&approval).unwrap_or_default();
                self.broadcast_all(&state, &Envelope::reply(request, "approval.resolved", data));
                Ok(())
            }
            _ => Err(errors::UNKNOWN_TYPE),
        }
    }

    /// The request's `channel_id`, which the member must belong to.
    fn member_channel(&self, request: &Envelope, me: &Member) -> Result<String, &'static str> {
        let channel = request.str("channel_id").filter(|c| !c.is_empty()).ok_or(errors::INVALID_DATA)?;
        match self.store.is_channel_member(channel, &me.id) {
            Ok(true) => Ok(channel.to_string()),
            Ok(false) => Err(errors::NOT_A_CHANNEL_MEMBER),
            Err(_) => Err(errors::STORE_FAILED),
        }
    }

    /// `message.send` and `thread.reply`: stored, acknowledged with the new id, broadcast as
    /// `message.new`; mentions notify and wake.
    fn post(&self, conn: ConnId, me: &Member, request: &Envelope) -> Result<(), &'static str> {
        let channel = self.member_channel(request, me)?;
        let content = content(request)?;
        let thread_key = if request.kind == "thread.reply" { "parent_id" } else { "thread_id" };
        let thread_id = request.str(thread_key).filter(|t| !t.is_empty()).map(String::from);
        let parent = match &thread_id {
            Some(id) => {
                let parent = self.store.message(id).map_err(|_| errors::STORE_FAILED)?.ok_or(errors::NOT_FOUND)?;
                if parent.channel_id != channel {
                    return Err(errors::NOT_FOUND);
                }
                Some(parent)
            }
            None if request.kind == "thread.reply" => return Err(errors::INVALID_DATA),
            None => None,
        };
        let content_type = match request.str("content_type").unwrap_or("text") {
            kind @ ("text" | "markdown") => kind.to_string(),
            _ => return Err(errors::INVALID_DATA),
        };
        let message = Message {
            id: new_id("msg"),
            channel_id: channel.clone(),
            sender_id: me.id.clone(),
            content: content.to_string(),
            content_type,
            kind: request.str("type").unwrap_or("user").to_string(),
            thread_id,
            metadata: request.data.get("metadata").cloned().unwrap_or_else(|| json!({})),
            created_at: now_ms(),
            edited_at: None,
        };
        self.store.insert_message(&message).map_err(|_| errors::STORE_FAILED)?;
        let mentioned = self.mentions(content);
        let state = self.state();
        let ack = json!({ "message_id": message.id, "channel_id": channel, "created_at": message.created_at });
        self.send(&state, conn, &Envelope::reply(request, "message.ack", ack));
        let mut new = serde_json::to_value(&message).unwrap_or_default();
        new["sender_name"] = json!(me.name);
        self.broadcast_channel(&state, &channel, &Envelope::new("message.new", new), None);
        // Whom this message is for: the members it names, and the author of the thread it answers.
        let mut woken: HashSet<String> = HashSet::new();
        for member in mentioned.iter().filter(|m| m.id != me.id) {
            if !self.store.is_channel_member(&channel, &member.id).unwrap_or(false) {
                continue;
            }
            if let Ok(notification) =
                self.store.add_notification(&member.id, "mention", "You were mentioned", content, &channel, &message.id)
                && let Some(&target) = state.by_member.get(&member.id)
            {
                self.send(&state, target, &Envelope::new("notification.new", notification));
            }
            if member.kind == MemberKind::Agent && woken.insert(member.id.clone()) {
                self.wake(&state, &member.id, "mention", &channel, None);
            }
        }
        if let Some(parent) = parent.filter(|p| p.sender_id != me.id && !woken.contains(&p.sender_id)) {
            let author = self.store.member(&parent.sender_id).ok().flatten();
            if author.is_some_and(|a| a.kind == MemberKind::Agent) {
                self.wake(&state, &parent.sender_id, "thread_reply", &channel, Some(&parent));
            }
        }
        Ok(())
    }

    /// `agent.wake` with the channel's latest messages (spec: "Context bundling"), if the agent
    /// is connected; a sleeping agent is awake again.
    fn wake(&self, state: &State, agent_id: &str, reason: &str, channel: &str, thread: Option<&Message>) {
        let Some(&target) = state.by_member.get(agent_id) else { return };
        let recent = self.store.recent_messages(channel, WAKE_CONTEXT_MESSAGES).unwrap_or_default();
        let recent: Vec<Value> = recent
            .iter()
            .map(|m| json!({ "id": m.id, "sender_id": m.sender_id, "content": m.content, "created_at": m.created_at }))
            .collect();
        let thread = thread
            .map(|p| json!({ "id": p.id, "parent": { "id": p.id, "sender_id": p.sender_id, "content": p.content } }));
        let data = json!({
            "reason": reason,
            "context": { "channel": { "id": channel }, "recent_messages": recent, "thread": thread },
        });
        self.send(state, target, &Envelope::new("agent.wake", data));
        self.presence(state, agent_id, &Hub::channels_of(state, agent_id), "online");
    }

    /// The members a message names (spec: "split on whitespace, match @name, strip trailing
    /// punctuation").
    /// A member added while the hub runs (`laika-host lark member add` writes the store) is
    /// looked up there once and kept in the map.
    fn mentions(&self, content: &str) -> Vec<Member> {
        let mut state = self.state();
        let mut seen = HashSet::new();
        let mut found = Vec::new();
        let names = content
            .split_whitespace()
            .filter_map(|word| word.strip_prefix('@'))
            .map(|name| name.trim_end_matches(|c: char| c.is_ascii_punctuation()).to_lowercase());
        for name in names {
            let member = match state.names.get(&name) {
                Some(member) => Some(member.clone()),
                None => self.store.member_by_name(&name).ok().flatten(),
            };
            if let Some(member) = member.filter(|m| seen.insert(m.id.clone())) {
                state.names.insert(name, member.clone());
                found.push(member);
            }
        }
        found
    }
}

/// The request's `content`: present, and within the spec's 10,000 characters.
fn content(request: &Envelope) -> Result<&str, &'static str> {
    let content = request.str("content").ok_or(errors::INVALID_DATA)?;
    if content.chars().count() > MAX_CONTENT_CHARS {
        return Err(errors::CONTENT_TOO_LONG);
    }
    Ok(content)
}
