//! Laika as a member of the daemon's Lark hub: each browser conversation is a channel, its
//! summaries and answers are posted there, the Policy Gate's questions become approval requests
//! any person on the hub may answer, and `@laika` in a conversation's channel asks about its page.
//!
//! Laika is an agent member named `laika`, signed in on a connection inside the daemon (no socket:
//! the hub's queue for it is read here), so to the hub and everyone on it Laika is one more agent.
//! Data flows in two directions through one task:
//! - the host's events ([`HostEvent`]) become frames: a finished summary or answer a
//!   `message.send` to the conversation's channel (made on first use, with every person on the hub
//!   in it), a gate's `ask` an `approval.request` there, an answer given in the browser or on the
//!   command line the hub's request resolved;
//! - frames for Laika become host work: `agent.wake` (a mention, a DM, a reply to Laika) a grounded
//!   answer about the conversation's page ([`crate::api::spawn_summary`], the same path the
//!   sidecar's questions take), whose result comes back as an event and is posted.
//!
//! The history stays the one place an approval is answered: a person's `approval.decide` on the
//! hub is first put to the history ([`HistoryArbiter`]), which refuses it if the browser's card or
//! the CLI answered first, and an answer given through the host's API resolves the hub's request.
//! The hub's records and Laika's are tied by links in the hub's store (`conversation:ID` ↔
//! `channel:ID`, `approval:ID` ↔ `hub-approval:ID`), so they survive a restart of the daemon.

use crate::api::{HostApi, spawn_summary};
use crate::host::{Host, HostEvent};
use anyhow::{Context, Result, bail};
use laika_lark::envelope::Envelope;
use laika_lark::errors;
use laika_lark::hub::{ApprovalArbiter, ConnId, Hub, Outbound};
use laika_lark::limits::{MAX_CONTENT_CHARS, SEND_BUFFER};
use laika_lark::store::{Approval, Member, MemberKind};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc};

pub use crate::lark::LAIKA_NAME;

/// Who decided, in the hub's record, when the answer came through the host's API.
const DECIDED_IN_LAIKA: &str = "laika-client";

/// Characters of a channel name taken from a page's title.
const CHANNEL_NAME_CHARS: usize = 48;

/// Laika's connection to the hub.
struct Bus {
    host: Arc<Host>,
    hub: Arc<Hub>,
    conn: ConnId,
    me: Member,
}

/// Signs Laika in to `hub` and starts the task that carries its traffic both ways. Fails only
/// when the hub's store does (or a person has taken the name `laika`).
pub fn start(host: Arc<Host>, hub: Arc<Hub>) -> Result<()> {
    let me = match hub.store().member_by_name(LAIKA_NAME)? {
        Some(member) if member.kind == MemberKind::Agent => member,
        Some(_) => bail!("LARK_NAME_TAKEN: a person on the hub is named {LAIKA_NAME:?}; Laika cannot join it"),
        None => hub.add_member(LAIKA_NAME, MemberKind::Agent)?,
    };
    let conn = hub.next_conn_id();
    let (tx, rx) = mpsc::channel(SEND_BUFFER);
    let token = hub.auth().issue_jwt(&me.id);
    hub.login(conn, &token, tx, &Envelope::new("auth.login", json!({})))
        .context("LARK_AUTH: Laika could not sign in to its own hub")?;
    hub.set_arbiter(Arc::new(HistoryArbiter { host: host.clone(), hub: Arc::downgrade(&hub) }));
    let bus = Bus { host: host.clone(), hub, conn, me };
    let hello = json!({
        "role_card": {
            "name": "Laika",
            "description": "Reads the pages you open in Laika and answers from them, citing the page; asks before it acts.",
            "skills": ["summarise a page", "answer a question about a page"],
        },
        "runtime": { "kind": "laika-host", "version": env!("CARGO_PKG_VERSION") },
    });
    bus.send("agent.hello", hello);
    let events = host.subscribe();
    tokio::spawn(bus.run(events, rx));
    Ok(())
}

impl Bus {
    async fn run(self, mut events: broadcast::Receiver<HostEvent>, mut frames: mpsc::Receiver<Outbound>) {
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => self.on_event(event),
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!("lark: Laika missed {missed} host events (too many at once)");
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                frame = frames.recv() => match frame {
                    Some(Outbound::Frame(text)) => {
                        if let Ok(frame) = serde_json::from_str::<Value>(&text) {
                            self.on_frame(&frame);
                        }
                    }
                    Some(Outbound::Close(reason)) => {
                        tracing::warn!("lark: the hub closed Laika's connection: {reason}");
                        return;
                    }
                    None => return,
                },
            }
        }
    }

    /// A request to the hub as Laika; an error is logged (the hub keeps serving, and so do we).
    fn send(&self, kind: &str, data: Value) {
        if let Err(error) = self.hub.handle(self.conn, &Envelope::new(kind, data)) {
            tracing::warn!("lark: Laika's {kind} was refused: {error}");
        }
    }

    fn link(&self, key: &str) -> Option<String> {
        self.hub.store().link(key).ok().flatten()
    }

    fn on_event(&self, event: HostEvent) {
        match event {
            HostEvent::SummaryDone { conversation_id, title, url, question, text } => {
                let Some(channel) = self.channel_for(&conversation_id, &title, &url) else { return };
                let content = match &question {
                    Some(question) => format!("**Q:** {question}\n\n{text}"),
                    None => format!("**{}** ({url})\n\n{text}", if title.is_empty() { "Summary" } else { &title }),
                };
                self.send("message.send", json!({ "channel_id": channel, "content": fit(&content) }));
            }
            HostEvent::ApprovalAsked { approval, title } => {
                let Some(conversation) = approval.conversation_id.as_deref() else { return };
                let Some(channel) = self.channel_for(conversation, &title, approval.origin.as_deref().unwrap_or(""))
                else {
                    return;
                };
                let payload = json!({
                    "approval_id": approval.id,
                    "tool": approval.tool_name,
                    "arguments": approval.arguments,
                    "origin": approval.origin,
                    "reason": approval.code,
                });
                self.send(
                    "approval.request",
                    json!({ "channel_id": channel, "action": approval.tool_name, "payload": payload.to_string() }),
                );
            }
            // Decided on the hub: resolved there already.
            HostEvent::ApprovalDecided { from_hub: true, .. } => {}
            HostEvent::ApprovalDecided { approval, from_hub: false } => {
                let Some(mirror) = self.link(&format!("approval:{}", approval.id)) else { return };
                let status = if approval.decision.as_deref() == Some("deny") { "denied" } else { "approved" };
                match self.hub.resolve_approval(&mirror, status, DECIDED_IN_LAIKA) {
                    Ok(()) | Err(errors::ALREADY_DECIDED) => {}
                    Err(error) => tracing::warn!("lark: approval {mirror} could not be resolved: {error}"),
                }
            }
        }
    }

    fn on_frame(&self, frame: &Value) {
        let data = &frame["data"];
        match frame["type"].as_str().unwrap_or_default() {
            // Our own request, as the hub recorded it: tie its id to the history's.
            "approval.request" if data["requester_id"] == self.me.id.as_str() => self.link_approval(data),
            "agent.wake" => self.on_wake(data),
            _ => {}
        }
    }

    fn link_approval(&self, data: &Value) {
        let (Some(mirror), Some(payload)) = (data["id"].as_str(), data["payload"].as_str()) else { return };
        let Some(id) =
            serde_json::from_str::<Value>(payload).ok().and_then(|p| p["approval_id"].as_str().map(String::from))
        else {
            return;
        };
        let store = self.hub.store();
        if store
            .set_link(&format!("approval:{id}"), mirror)
            .and_then(|_| store.set_link(&format!("hub-approval:{mirror}"), &id))
            .is_err()
        {
            tracing::warn!("lark: approval {id} could not be linked to its request {mirror}");
            return;
        }
        // Answered in the browser before the request reached the hub: resolve it now.
        if let Ok(Some(approval)) = self.host.history.approval(&id)
            && approval.decision.is_some()
        {
            self.on_event(HostEvent::ApprovalDecided { approval, from_hub: false });
        }
    }

    /// A mention, a DM or a reply to Laika: a grounded answer about the channel's page.
    fn on_wake(&self, data: &Value) {
        let Some(channel) = data.pointer("/context/channel/id").and_then(Value::as_str) else { return };
        let recent = data.pointer("/context/recent_messages").and_then(Value::as_array).cloned().unwrap_or_default();
        // What woke us: the latest message that is not our own.
        let Some(asked) = recent.iter().rev().find(|m| m["sender_id"] != self.me.id.as_str()) else { return };
        let question = strip_mention(asked["content"].as_str().unwrap_or_default());
        let reply = |content: &str| self.send("message.send", json!({ "channel_id": channel, "content": content }));
        let Some(conversation) = self.link(&format!("channel:{channel}")) else {
            reply("I answer about the pages you open in Laika: ask me in a page's channel.");
            return;
        };
        let Some(page) = self.host.page(&conversation) else {
            reply(
                "I no longer have this page in memory (Laika was restarted). Open it again in the browser and ask me there or here.",
            );
            return;
        };
        if question.is_empty() {
            reply(&format!("Ask me anything about “{}”.", page.title));
            return;
        }
        let turn = match (HostApi { host: self.host.clone() }).next_turn(Some(&conversation)) {
            Ok(turn) => turn,
            Err(error) => {
                tracing::warn!("lark: no turn for conversation {conversation}: {}", error.message);
                return;
            }
        };
        self.send("agent.thinking", json!({ "channel_id": channel }));
        // The answer is posted when it is done (HostEvent::SummaryDone).
        spawn_summary(&self.host, page, Some(question), turn);
    }

    /// The conversation's channel, made on first use with Laika and every person on the hub in it.
    fn channel_for(&self, conversation_id: &str, title: &str, url: &str) -> Option<String> {
        let key = format!("conversation:{conversation_id}");
        if let Some(channel) = self.link(&key) {
            return Some(channel);
        }
        let store = self.hub.store();
        let mut members: Vec<String> =
            store.members().ok()?.into_iter().filter(|m| m.kind == MemberKind::Human).map(|m| m.id).collect();
        members.push(self.me.id.clone());
        let made = self.hub.add_channel(&channel_name(title, url), &members).and_then(|channel| {
            store.set_link(&key, &channel)?;
            store.set_link(&format!("channel:{channel}"), conversation_id)?;
            Ok(channel)
        });
        match made {
            Ok(channel) => Some(channel),
            Err(error) => {
                tracing::warn!("lark: no channel for conversation {conversation_id}: {error}");
                None
            }
        }
    }
}

/// Puts a person's `approval.decide` on the hub to the history first: the history is where the
/// browser's card and the CLI answer too, and it takes only the first answer.
struct HistoryArbiter {
    host: Arc<Host>,
    hub: std::sync::Weak<Hub>,
}

impl ApprovalArbiter for HistoryArbiter {
    fn decide(&self, approval: &Approval, status: &str, _by: &Member) -> Result<(), &'static str> {
        let Some(hub) = self.hub.upgrade() else { return Ok(()) };
        // A request another agent made is the hub's alone.
        let Some(id) = hub.store().link(&format!("hub-approval:{}", approval.id)).ok().flatten() else { return Ok(()) };
        let decision = if status == "approved" { "approve" } else { "deny" };
        match self.host.history.decide_approval(&id, decision) {
            Ok(approval) => {
                // For the host's other listeners (the `laika` service's approvalUpdates).
                self.host.publish(HostEvent::ApprovalDecided { approval, from_hub: true });
                Ok(())
            }
            Err(e) if e.code == crate::history::HistoryError::ALREADY_DECIDED => Err(errors::ALREADY_DECIDED),
            Err(e) => {
                tracing::warn!("lark: approval {id} could not be recorded: {}: {}", e.code, e.message);
                Err(errors::STORE_FAILED)
            }
        }
    }
}

/// The question in a message that mentions Laika: the message without `@laika`.
fn strip_mention(content: &str) -> String {
    content
        .split_whitespace()
        .filter(|word| {
            let name = word.trim_end_matches(|c: char| c.is_ascii_punctuation());
            !name.eq_ignore_ascii_case(&format!("@{LAIKA_NAME}"))
        })
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches([',', ';', ':'])
        .to_string()
}

/// A channel's name for a page: its title (or else its site), lower-case words joined by `-`.
fn channel_name(title: &str, url: &str) -> String {
    let source = if title.trim().is_empty() { url.split("://").nth(1).unwrap_or(url) } else { title };
    let words: Vec<String> =
        source.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| w.to_lowercase()).collect();
    let mut name = String::new();
    for word in words {
        if name.chars().count() + word.chars().count() + 1 > CHANNEL_NAME_CHARS {
            break;
        }
        if !name.is_empty() {
            name.push('-');
        }
        name.push_str(&word);
    }
    if name.is_empty() { "page".into() } else { name }
}

/// A message within the hub's limit, cut at a line with a note when longer.
fn fit(content: &str) -> String {
    if content.chars().count() <= MAX_CONTENT_CHARS {
        return content.to_string();
    }
    const NOTE: &str = "\n\n… (cut here; the whole text is in Laika's sidecar)";
    let keep: String = content.chars().take(MAX_CONTENT_CHARS - NOTE.chars().count()).collect();
    let cut = keep.rfind('\n').unwrap_or(keep.len());
    format!("{}{NOTE}", &keep[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_is_the_message_without_the_mention() {
        assert_eq!(strip_mention("@laika what do otters eat?"), "what do otters eat?");
        assert_eq!(strip_mention("What do otters eat, @Laika?"), "What do otters eat");
        assert_eq!(strip_mention("@laika"), "");
        assert_eq!(strip_mention("ask @laikas friend"), "ask @laikas friend");
    }

    #[test]
    fn channel_names_come_from_the_title_or_the_site() {
        assert_eq!(channel_name("Otters use stones — Nature News", ""), "otters-use-stones-nature-news");
        assert_eq!(channel_name("", "https://news.example.com/otters"), "news-example-com-otters");
        assert_eq!(channel_name("", ""), "page");
        assert!(channel_name(&"word ".repeat(40), "").chars().count() <= CHANNEL_NAME_CHARS);
    }

    #[test]
    fn long_messages_fit_the_hub() {
        let long = "A line of a long summary.\n".repeat(1_000);
        let fitted = fit(&long);
        assert!(fitted.chars().count() <= MAX_CONTENT_CHARS);
        assert!(fitted.ends_with("in Laika's sidecar)"));
        assert_eq!(fit("short"), "short");
    }
}
