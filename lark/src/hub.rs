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
//!
//! Agents on the user's hardware reach the hub through a daemon (spec: "Daemon Proxy"): one
//! connection, signed in as its own member, that `daemon.register`s the agents it runs. The hub
//! then treats it as each of those agents' connection while the agent has none of its own: a wake
//! or a notification for the agent goes over it, with the agent's id, and the frames an agent
//! sends (`message.send`, `thread.reply`, `agent.thinking`, `agent.sleep`) it sends with
//! `data.agent_id`, acting as that agent. Only agent members can be registered; the spec gives an
//! agent no owner, so any signed-in member may register one (a local hub's members are all the
//! user's own). The latest registration of an agent wins (a restarted daemon takes its agents back
//! before its old connection is found dead); its connection ending unregisters them.
//!
//! Calls (spec: "WebRTC Call Signaling") are relayed between members connected directly, each
//! step recorded in the store. The spec leaves some cases open; here the caller gets a `call.offer`
//! reply with the call id, a member the caller shares no channel with cannot be rung (presence is
//! not told across channels either), a callee with no connection gets no ringing call: the record
//! is ended at once and the caller gets `callee offline`, and a party whose last connection ends
//! ends its calls, so no record stays ringing.

use crate::auth::{Auth, Login};
use crate::envelope::{Envelope, new_id, now_ms};
use crate::errors;
use crate::limits::{MAX_CONTENT_CHARS, MAX_SUBSCRIPTIONS, WAKE_CONTEXT_MESSAGES};
use crate::store::{Approval, Member, MemberKind, Message, Store, StoreError};
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
    /// Set by `daemon.register`: this connection is a daemon, for these agents.
    daemon: Option<Daemon>,
}

struct Daemon {
    /// `daemon_<member id>_<ms timestamp>` (spec), made at the connection's first registration.
    id: String,
    /// Agent id → the agent, as registered; an agent another daemon registers later leaves.
    agents: HashMap<String, Member>,
}

#[derive(Default)]
struct State {
    conns: HashMap<ConnId, Conn>,
    by_member: HashMap<String, ConnId>,
    subscribers: HashMap<String, HashSet<ConnId>>,
    /// Lower-cased name → member: @mentions resolve in one lookup (spec: "Name Resolution").
    names: HashMap<String, Member>,
    /// Agent id → the daemon connection that registered it (spec: "daemon_agents map").
    daemon_agents: HashMap<String, ConnId>,
}

/// Consulted before a person's `approval.decide` is recorded, when the program hosting the hub
/// keeps the authoritative answer itself (Laika's history, which its browser cards answer too):
/// an `Err` (e.g. answered there first) refuses the decision with that error, so the first
/// answer wins across both.
pub trait ApprovalArbiter: Send + Sync {
    fn decide(&self, approval: &Approval, status: &str, by: &Member) -> Result<(), &'static str>;
}

pub struct Hub {
    arbiter: std::sync::OnceLock<Arc<dyn ApprovalArbiter>>,
    store: Store,
    auth: Auth,
    state: Mutex<State>,
    next_conn: AtomicU64,
    dropped: AtomicU64,
}

/// Presence values a client may set (spec: online, idle, offline, dnd; sleeping is an agent's
/// `agent.sleep`).
const CLIENT_STATUSES: &[&str] = &["online", "idle", "offline", "dnd"];

/// The frames a daemon may send on behalf of one of its agents (`data.agent_id`).
const ON_BEHALF: &[&str] = &["message.send", "thread.reply", "agent.thinking", "agent.sleep"];

impl Hub {
    pub fn new(store: Store) -> Result<Hub, StoreError> {
        let auth = Auth::new(&store)?;
        let names = store.members()?.into_iter().map(|m| (m.name.to_lowercase(), m)).collect();
        Ok(Hub {
            arbiter: std::sync::OnceLock::new(),
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

    /// Sets who is consulted before a person's decision (once; later calls are ignored).
    pub fn set_arbiter(&self, arbiter: Arc<dyn ApprovalArbiter>) {
        let _ = self.arbiter.set(arbiter);
    }

    /// Records a decision made outside the hub (the host's own client answered first) and tells
    /// everyone it is resolved. `Err(ALREADY_DECIDED)` when the hub has a decision already.
    pub fn resolve_approval(&self, id: &str, status: &str, decided_by: &str) -> Result<(), &'static str> {
        if !["approved", "denied"].contains(&status) {
            return Err(errors::INVALID_DATA);
        }
        self.record_decision(id, decided_by, status, None)
    }

    /// Records the first decision of a request and sends everyone `approval.resolved` (a reply
    /// to `request` when a client's frame decided it); `Err(ALREADY_DECIDED)` for any later one.
    fn record_decision(
        &self,
        id: &str,
        decided_by: &str,
        status: &str,
        request: Option<&Envelope>,
    ) -> Result<(), &'static str> {
        let (approval, decided_now) = self
            .store
            .decide_approval(id, decided_by, status)
            .map_err(store_failed)?
            .ok_or(errors::APPROVAL_NOT_FOUND)?;
        if !decided_now {
            return Err(errors::ALREADY_DECIDED);
        }
        let state = self.state();
        let data = serde_json::to_value(&approval).unwrap_or_default();
        let resolved = match request {
            Some(request) => Envelope::reply(request, "approval.resolved", data),
            None => Envelope::new("approval.resolved", data),
        };
        self.broadcast_all(&state, &resolved);
        Ok(())
    }

    /// A channel made while the hub runs: its members connected now hear it at once (each is
    /// sent `channel.join` with its id and name), as they would after signing in again.
    pub fn add_channel(&self, name: &str, members: &[String]) -> Result<String, StoreError> {
        let id = self.store.add_channel(name, members)?;
        let mut state = self.state();
        let mut joined = Vec::new();
        for member in members {
            let Some(&conn) = state.by_member.get(member) else { continue };
            let Some(c) = state.conns.get_mut(&conn) else { continue };
            if c.channels.len() >= MAX_SUBSCRIPTIONS {
                continue;
            }
            c.channels.insert(id.clone());
            state.subscribers.entry(id.clone()).or_default().insert(conn);
            joined.push(conn);
        }
        let frame = Envelope::new("channel.join", json!({ "channel_id": id, "name": name }));
        for conn in joined {
            self.send(&state, conn, &frame);
        }
        Ok(id)
    }

    /// Frames dropped because a connection's queue was full, since the hub started.
    pub fn dropped_frames(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Connections signed in now.
    pub fn connections(&self) -> usize {
        self.state().conns.len()
    }

    /// Agents registered by a daemon connection now.
    pub fn daemon_agents(&self) -> usize {
        self.state().daemon_agents.len()
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

    /// The channels a connected member's connection hears; for an agent a daemon stands for, the
    /// agent's channels.
    fn channels_of(&self, state: &State, member_id: &str) -> HashSet<String> {
        match state.by_member.get(member_id).and_then(|c| state.conns.get(c)) {
            Some(c) => c.channels.clone(),
            None if state.daemon_agents.contains_key(member_id) => self.stored_channels(member_id),
            None => HashSet::new(),
        }
    }

    fn stored_channels(&self, member_id: &str) -> HashSet<String> {
        self.store.channels_of(member_id).unwrap_or_default().into_iter().take(MAX_SUBSCRIPTIONS).collect()
    }

    /// The connection that speaks for a member: its own, else the daemon's that registered it
    /// (true then).
    fn route(state: &State, member_id: &str) -> Option<(ConnId, bool)> {
        match state.by_member.get(member_id) {
            Some(&conn) => Some((conn, false)),
            None => state.daemon_agents.get(member_id).map(|&conn| (conn, true)),
        }
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
        state.conns.insert(conn, Conn { login: login.clone(), tx, channels: subscribed, daemon: None });
        let member = &login.member;
        let success = Envelope::reply(
            request,
            "auth.success",
            json!({ "member_id": member.id, "workspace_id": member.workspace_id, "name": member.name, "type": member.kind }),
        );
        self.send(&state, conn, &success);
        self.presence(&state, &member.id, &self.channels_of(&state, &member.id), "online");
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
        for agent in c.daemon.iter().flat_map(|d| d.agents.keys()) {
            if state.daemon_agents.get(agent) == Some(&conn) {
                state.daemon_agents.remove(agent);
            }
        }
        Some(c)
    }

    /// The connection has ended: its member is offline unless another connection took over, and
    /// so is each agent it was the daemon of; a member gone ends its calls.
    pub fn disconnect(&self, conn: ConnId) {
        let mut state = self.state();
        let Some(ended) = self.detach_locked(&mut state, conn) else { return };
        let member_id = &ended.login.member.id;
        if !state.by_member.contains_key(member_id) {
            self.presence(&state, member_id, &ended.channels, "offline");
            self.end_calls_of(&state, member_id);
        }
        for agent in ended.daemon.iter().flat_map(|d| d.agents.keys()) {
            if Hub::route(&state, agent).is_none() {
                self.presence(&state, agent, &self.stored_channels(agent), "offline");
            }
        }
    }

    /// One request of a signed-in connection; an `Err` is the `error` frame's text.
    pub fn handle(&self, conn: ConnId, request: &Envelope) -> Result<(), &'static str> {
        let (member, on_behalf) = {
            let state = self.state();
            let c = state.conns.get(&conn).ok_or(errors::NOT_AUTHENTICATED)?;
            // A daemon's frame for one of its agents: the agent is who sends it.
            let on_behalf = match request.data.get("agent_id") {
                None => None,
                Some(_) if !ON_BEHALF.contains(&request.kind.as_str()) => return Err(errors::NOT_ON_BEHALF),
                Some(id) => {
                    let id = id.as_str().ok_or(errors::INVALID_DATA)?;
                    let agent = c.daemon.as_ref().and_then(|d| d.agents.get(id));
                    Some(agent.cloned().ok_or(errors::NOT_YOUR_AGENT)?)
                }
            };
            (c.login.clone(), on_behalf)
        };
        let me = on_behalf.as_ref().unwrap_or(&member.member);
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
                self.presence(&state, &me.id, &self.channels_of(&state, &me.id), status);
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
                self.presence(&state, &me.id, &self.channels_of(&state, &me.id), "online");
                Ok(())
            }
            "agent.sleep" => {
                if me.kind != MemberKind::Agent {
                    return Err(errors::NOT_AN_AGENT);
                }
                let state = self.state();
                self.presence(&state, &me.id, &self.channels_of(&state, &me.id), "sleeping");
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
                if let Some(arbiter) = self.arbiter.get() {
                    let pending = self.store.approval(id).map_err(store_failed)?.ok_or(errors::APPROVAL_NOT_FOUND)?;
                    if pending.status != "pending" {
                        return Err(errors::ALREADY_DECIDED);
                    }
                    arbiter.decide(&pending, status, me)?;
                }
                self.record_decision(id, &me.id, status, Some(request))
            }
            "daemon.register" => self.register_daemon(conn, me, request),
            "call.offer" => self.call_offer(conn, me, request),
            "call.answer" | "call.ice" | "call.end" => self.call_step(me, request),
            _ => Err(errors::UNKNOWN_TYPE),
        }
    }

    /// `daemon.register`: this connection becomes the daemon of the listed agents, all of them
    /// or, if one is not an agent member of that id and name, none. A later registration from the
    /// same connection is its whole list again: agents left out are unregistered.
    fn register_daemon(&self, conn: ConnId, me: &Member, request: &Envelope) -> Result<(), &'static str> {
        let listed = request.data.get("agents").and_then(Value::as_array).filter(|a| !a.is_empty());
        let mut agents: Vec<Member> = Vec::new();
        for entry in listed.ok_or(errors::INVALID_DATA)? {
            let id = entry.get("agent_id").and_then(Value::as_str).ok_or(errors::INVALID_DATA)?;
            let name = entry.get("name").and_then(Value::as_str).ok_or(errors::INVALID_DATA)?;
            let agent = self.store.member(id).map_err(store_failed)?;
            let agent = agent
                .filter(|a| a.kind == MemberKind::Agent && a.name.to_lowercase() == name.to_lowercase())
                .ok_or(errors::UNKNOWN_AGENT)?;
            if !agents.iter().any(|a| a.id == agent.id) {
                agents.push(agent);
            }
        }
        let mut state = self.state();
        let c = state.conns.get_mut(&conn).ok_or(errors::NOT_AUTHENTICATED)?;
        let daemon = c
            .daemon
            .get_or_insert_with(|| Daemon { id: format!("daemon_{}_{}", me.id, now_ms()), agents: HashMap::new() });
        let registered: HashMap<String, Member> = agents.iter().map(|a| (a.id.clone(), a.clone())).collect();
        let left_out: Vec<String> = daemon.agents.keys().filter(|id| !registered.contains_key(*id)).cloned().collect();
        daemon.agents = registered;
        let daemon_id = daemon.id.clone();
        for agent in &left_out {
            if state.daemon_agents.get(agent) == Some(&conn) {
                state.daemon_agents.remove(agent);
            }
        }
        for agent in &agents {
            if let Some(previous) = state.daemon_agents.insert(agent.id.clone(), conn)
                && previous != conn
                && let Some(daemon) = state.conns.get_mut(&previous).and_then(|c| c.daemon.as_mut())
            {
                daemon.agents.remove(&agent.id);
            }
        }
        let listed: Vec<Value> = agents.iter().map(|a| json!({ "name": a.name, "agent_id": a.id })).collect();
        self.send(
            &state,
            conn,
            &Envelope::reply(request, "daemon.registered", json!({ "daemon_id": daemon_id, "agents": listed })),
        );
        for agent in &left_out {
            if Hub::route(&state, agent).is_none() {
                self.presence(&state, agent, &self.stored_channels(agent), "offline");
            }
        }
        for agent in agents.iter().filter(|a| !state.by_member.contains_key(&a.id)) {
            self.presence(&state, &agent.id, &self.channels_of(&state, &agent.id), "online");
        }
        Ok(())
    }

    /// `call.offer`: a call record, ringing, and `call.ring` and the offer to the callee; the
    /// caller's reply is the spec's "responds with the call ID", which the spec gives no type of:
    /// here a `call.offer` reply, `{call_id, status}`.
    fn call_offer(&self, conn: ConnId, me: &Member, request: &Envelope) -> Result<(), &'static str> {
        let callee_id = request.str("callee_id").filter(|c| *c != me.id).ok_or(errors::INVALID_DATA)?;
        let kind = request.str("type").filter(|k| matches!(*k, "audio" | "video")).ok_or(errors::INVALID_DATA)?;
        let sdp = request.str("sdp").filter(|s| !s.is_empty()).ok_or(errors::INVALID_DATA)?;
        let callee = self.store.member(callee_id).map_err(store_failed)?.ok_or(errors::MEMBER_NOT_FOUND)?;
        if !self.store.share_a_channel(&me.id, &callee.id).map_err(store_failed)? {
            return Err(errors::NO_SHARED_CHANNEL);
        }
        // Recorded under the lock, so the callee cannot leave between the check and the record
        // without its leaving ending the call.
        let state = self.state();
        let call = self.store.add_call(&me.id, &callee.id, kind).map_err(store_failed)?;
        let Some(&target) = state.by_member.get(&callee.id) else {
            self.store.end_call(&call.id, call.created_at).map_err(store_failed)?;
            return Err(errors::CALLEE_OFFLINE);
        };
        let ring = json!({ "call_id": call.id, "caller_id": me.id, "caller_name": me.name, "type": kind });
        self.send(&state, target, &Envelope::new("call.ring", ring));
        let offer = json!({ "call_id": call.id, "caller_id": me.id, "type": kind, "sdp": sdp });
        self.send(&state, target, &Envelope::new("call.offer", offer));
        self.send(
            &state,
            conn,
            &Envelope::reply(request, "call.offer", json!({ "call_id": call.id, "status": call.status })),
        );
        Ok(())
    }

    /// `call.answer` (the callee, of a ringing call), `call.ice` (either party, to the other, while
    /// the call has not ended) and `call.end` (either party): recorded, then passed to the other
    /// party.
    fn call_step(&self, me: &Member, request: &Envelope) -> Result<(), &'static str> {
        let id = request.str("call_id").ok_or(errors::INVALID_DATA)?;
        let call = self.store.call(id).map_err(store_failed)?.ok_or(errors::CALL_NOT_FOUND)?;
        if !call.is_party(&me.id) {
            return Err(errors::NOT_IN_CALL);
        }
        let other = call.other_party(&me.id);
        let frame = match request.kind.as_str() {
            "call.answer" => {
                if call.callee_id != me.id {
                    return Err(errors::NOT_THE_CALLEE);
                }
                let sdp = request.str("sdp").filter(|s| !s.is_empty()).ok_or(errors::INVALID_DATA)?;
                if !self.store.answer_call(id, now_ms()).map_err(store_failed)? {
                    return Err(errors::CALL_NOT_RINGING);
                }
                json!({ "call_id": id, "callee_id": me.id, "sdp": sdp })
            }
            "call.ice" => {
                if call.status == "ended" {
                    return Err(errors::CALL_ENDED);
                }
                if request.str("target_id") != Some(other) {
                    return Err(errors::NOT_THE_OTHER_PARTY);
                }
                // A candidate line (the spec's) or a whole RTCIceCandidateInit, passed on as sent.
                let candidate = request
                    .data
                    .get("candidate")
                    .filter(|c| c.is_string() || c.is_object())
                    .ok_or(errors::INVALID_DATA)?;
                json!({ "call_id": id, "from_id": me.id, "target_id": other, "candidate": candidate })
            }
            _ => {
                if !self.store.end_call(id, now_ms()).map_err(store_failed)? {
                    return Err(errors::CALL_ENDED);
                }
                json!({ "call_id": id, "ended_by": me.id })
            }
        };
        let state = self.state();
        if let Some(&target) = state.by_member.get(other) {
            self.send(&state, target, &Envelope::new(&request.kind, frame));
        }
        Ok(())
    }

    /// A member's last connection has ended: its calls end, and the other party is told.
    fn end_calls_of(&self, state: &State, member_id: &str) {
        let at = now_ms();
        for call in self.store.open_calls_of(member_id).unwrap_or_default() {
            if self.store.end_call(&call.id, at).unwrap_or(false)
                && let Some(&target) = state.by_member.get(call.other_party(member_id))
            {
                let data = json!({ "call_id": call.id, "ended_by": member_id, "reason": "disconnected" });
                self.send(state, target, &Envelope::new("call.end", data));
            }
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
                && let Some((target, _)) = Hub::route(&state, &member.id)
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
                woken.insert(parent.sender_id.clone());
                self.wake(&state, &parent.sender_id, "thread_reply", &channel, Some(&parent));
            }
        }
        // A direct message: the channel is the author and one agent. One wake per message: an
        // agent the message names, or whose thread it answers, was woken for that already.
        if let Ok(Some(peer)) = self.store.direct_peer(&channel, &me.id)
            && peer.kind == MemberKind::Agent
            && !woken.contains(&peer.id)
        {
            self.wake(&state, &peer.id, "dm", &channel, None);
        }
        Ok(())
    }

    /// `agent.wake` with the channel's latest messages (spec: "Context bundling"), if the agent
    /// is connected, itself or through a daemon (which is told which agent it is for); a sleeping
    /// agent is awake again.
    fn wake(&self, state: &State, agent_id: &str, reason: &str, channel: &str, thread: Option<&Message>) {
        let Some((target, via_daemon)) = Hub::route(state, agent_id) else { return };
        let recent = self.store.recent_messages(channel, WAKE_CONTEXT_MESSAGES).unwrap_or_default();
        let recent: Vec<Value> = recent
            .iter()
            .map(|m| json!({ "id": m.id, "sender_id": m.sender_id, "content": m.content, "created_at": m.created_at }))
            .collect();
        let thread = thread
            .map(|p| json!({ "id": p.id, "parent": { "id": p.id, "sender_id": p.sender_id, "content": p.content } }));
        let mut data = json!({
            "reason": reason,
            "context": { "channel": { "id": channel }, "recent_messages": recent, "thread": thread },
        });
        if via_daemon {
            data["agent_id"] = json!(agent_id);
        }
        self.send(state, target, &Envelope::new("agent.wake", data));
        self.presence(state, agent_id, &self.channels_of(state, agent_id), "online");
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

/// A store error, logged, is the client's `STORE_FAILED`.
fn store_failed(error: StoreError) -> &'static str {
    tracing::error!("lark: {error}");
    errors::STORE_FAILED
}

/// The request's `content`: present, and within the spec's 10,000 characters.
fn content(request: &Envelope) -> Result<&str, &'static str> {
    let content = request.str("content").ok_or(errors::INVALID_DATA)?;
    if content.chars().count() > MAX_CONTENT_CHARS {
        return Err(errors::CONTENT_TOO_LONG);
    }
    Ok(content)
}
