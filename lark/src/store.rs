//! What the hub keeps: members, API keys (hashed), revoked token ids, channels, memberships,
//! messages and threads, notifications, agents' role cards, approval requests and calls (who rang
//! whom, and how far it got: the hub relays a call's signalling, never its media), in SQLite (WAL)
//! in the daemon's data dir.
//!
//! One connection behind a mutex: every statement here is a single-row read or write that takes
//! microseconds, so the hub calls it inline rather than through a thread pool.

use crate::envelope::{new_id, now_ms};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::sync::Mutex;

/// The one workspace of a local hub.
pub const WORKSPACE_ID: &str = "ws_local";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("LARK_NAME_TAKEN: the name {0:?} is already used in this workspace")]
    NameTaken(String),
    #[error("LARK_NO_SUCH_MEMBER: no member {0:?}")]
    NoSuchMember(String),
    // Not `#[from]`, which would make the SQLite error this one's source as well: shown with
    // its causes (`{:#}`), the message would then repeat.
    #[error("LARK_STORE_FAILED: {0}")]
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> StoreError {
        StoreError::Sqlite(error)
    }
}

impl StoreError {
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::NameTaken(_) => "LARK_NAME_TAKEN",
            StoreError::NoSuchMember(_) => "LARK_NO_SUCH_MEMBER",
            StoreError::Sqlite(_) => "LARK_STORE_FAILED",
        }
    }
}

/// Human or agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemberKind {
    Human,
    Agent,
}

impl MemberKind {
    fn as_str(self) -> &'static str {
        match self {
            MemberKind::Human => "human",
            MemberKind::Agent => "agent",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Member {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub kind: MemberKind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    pub id: String,
    pub channel_id: String,
    pub sender_id: String,
    pub content: String,
    pub content_type: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub thread_id: Option<String>,
    pub metadata: Value,
    pub created_at: i64,
    pub edited_at: Option<i64>,
}

/// An approval request as decided.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Approval {
    pub id: String,
    pub channel_id: Option<String>,
    pub requester_id: String,
    pub action: String,
    pub status: String,
    pub decided_by: Option<String>,
    pub decided_at: Option<i64>,
}

/// A call's record (spec: "Server creates a Call record (status: ringing)"): `ringing` until the
/// callee answers, `answered` until either party ends it, then `ended`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Call {
    pub id: String,
    pub caller_id: String,
    pub callee_id: String,
    /// `audio` or `video` (the offer's `type`).
    #[serde(rename = "type")]
    pub kind: String,
    pub status: String,
    pub created_at: i64,
    pub answered_at: Option<i64>,
    pub ended_at: Option<i64>,
}

impl Call {
    /// The party of the call who is not `member_id` (the caller, for anyone but the caller).
    pub fn other_party(&self, member_id: &str) -> &str {
        if self.caller_id == member_id { &self.callee_id } else { &self.caller_id }
    }

    pub fn is_party(&self, member_id: &str) -> bool {
        self.caller_id == member_id || self.callee_id == member_id
    }
}

pub struct Store {
    db: Mutex<Connection>,
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA foreign_keys = ON;
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS members (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
  created_at INTEGER NOT NULL, UNIQUE (workspace_id, name COLLATE NOCASE));
CREATE TABLE IF NOT EXISTS api_keys (hash TEXT PRIMARY KEY, member_id TEXT NOT NULL REFERENCES members(id));
CREATE TABLE IF NOT EXISTS revoked_tokens (jti TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS channels (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS memberships (
  channel_id TEXT NOT NULL REFERENCES channels(id), member_id TEXT NOT NULL REFERENCES members(id),
  PRIMARY KEY (channel_id, member_id));
CREATE TABLE IF NOT EXISTS messages (
  id TEXT PRIMARY KEY, channel_id TEXT NOT NULL REFERENCES channels(id), sender_id TEXT NOT NULL,
  content TEXT NOT NULL, content_type TEXT NOT NULL, type TEXT NOT NULL, thread_id TEXT,
  metadata TEXT NOT NULL, created_at INTEGER NOT NULL, edited_at INTEGER, deleted INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS messages_by_channel ON messages (channel_id, created_at);
CREATE TABLE IF NOT EXISTS notifications (
  id TEXT PRIMARY KEY, member_id TEXT NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,
  channel_id TEXT, message_id TEXT, is_read INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS agents (
  member_id TEXT PRIMARY KEY REFERENCES members(id), role_card TEXT NOT NULL, runtime TEXT NOT NULL,
  updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS approvals (
  id TEXT PRIMARY KEY, channel_id TEXT, requester_id TEXT NOT NULL, action TEXT NOT NULL, payload TEXT NOT NULL,
  status TEXT NOT NULL, decided_by TEXT, created_at INTEGER NOT NULL, decided_at INTEGER);
CREATE TABLE IF NOT EXISTS calls (
  id TEXT PRIMARY KEY, caller_id TEXT NOT NULL REFERENCES members(id), callee_id TEXT NOT NULL REFERENCES members(id),
  kind TEXT NOT NULL, status TEXT NOT NULL, created_at INTEGER NOT NULL, answered_at INTEGER, ended_at INTEGER);
CREATE INDEX IF NOT EXISTS calls_by_caller ON calls (caller_id, status);
CREATE INDEX IF NOT EXISTS calls_by_callee ON calls (callee_id, status);
CREATE TABLE IF NOT EXISTS links (key TEXT PRIMARY KEY, value TEXT NOT NULL);
";

fn member_from_row(row: &rusqlite::Row) -> rusqlite::Result<Member> {
    let kind: String = row.get(3)?;
    Ok(Member {
        id: row.get(0)?,
        workspace_id: row.get(1)?,
        name: row.get(2)?,
        kind: if kind == "agent" { MemberKind::Agent } else { MemberKind::Human },
    })
}

fn message_from_row(row: &rusqlite::Row) -> rusqlite::Result<Message> {
    let metadata: String = row.get(7)?;
    Ok(Message {
        id: row.get(0)?,
        channel_id: row.get(1)?,
        sender_id: row.get(2)?,
        content: row.get(3)?,
        content_type: row.get(4)?,
        kind: row.get(5)?,
        thread_id: row.get(6)?,
        metadata: serde_json::from_str(&metadata).unwrap_or(Value::Null),
        created_at: row.get(8)?,
        edited_at: row.get(9)?,
    })
}

fn approval_from_row(row: &rusqlite::Row) -> rusqlite::Result<Approval> {
    Ok(Approval {
        id: row.get(0)?,
        channel_id: row.get(1)?,
        requester_id: row.get(2)?,
        action: row.get(3)?,
        status: row.get(4)?,
        decided_by: row.get(5)?,
        decided_at: row.get(6)?,
    })
}

fn call_from_row(row: &rusqlite::Row) -> rusqlite::Result<Call> {
    Ok(Call {
        id: row.get(0)?,
        caller_id: row.get(1)?,
        callee_id: row.get(2)?,
        kind: row.get(3)?,
        status: row.get(4)?,
        created_at: row.get(5)?,
        answered_at: row.get(6)?,
        ended_at: row.get(7)?,
    })
}

const CALL_COLUMNS: &str = "id, caller_id, callee_id, kind, status, created_at, answered_at, ended_at";

const MESSAGE_COLUMNS: &str =
    "id, channel_id, sender_id, content, content_type, type, thread_id, metadata, created_at, edited_at";

impl Store {
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::init(Connection::open(path)?)
    }

    pub fn open_in_memory() -> Result<Store, StoreError> {
        Store::init(Connection::open_in_memory()?)
    }

    fn init(db: Connection) -> Result<Store, StoreError> {
        db.execute_batch(SCHEMA)?;
        Ok(Store { db: Mutex::new(db) })
    }

    fn db(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.db.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The secret that signs the hub's JWTs: made once, at random, and kept with the store.
    pub fn jwt_secret(&self) -> Result<Vec<u8>, StoreError> {
        let db = self.db();
        let existing: Option<Vec<u8>> =
            db.query_row("SELECT value FROM settings WHERE key = 'jwt_secret'", [], |r| r.get(0)).optional()?;
        if let Some(secret) = existing {
            return Ok(secret);
        }
        let secret: [u8; 32] = rand::random();
        db.execute("INSERT INTO settings (key, value) VALUES ('jwt_secret', ?1)", params![secret.to_vec()])?;
        Ok(secret.to_vec())
    }

    pub fn add_member(&self, name: &str, kind: MemberKind) -> Result<Member, StoreError> {
        let member = Member { id: new_id("mem"), workspace_id: WORKSPACE_ID.into(), name: name.to_string(), kind };
        let inserted = self.db().execute(
            "INSERT INTO members (id, workspace_id, name, kind, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![member.id, member.workspace_id, member.name, kind.as_str(), now_ms()],
        );
        match inserted {
            Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => {
                Err(StoreError::NameTaken(name.into()))
            }
            other => other.map(|_| member).map_err(StoreError::from),
        }
    }

    pub fn member(&self, id: &str) -> Result<Option<Member>, StoreError> {
        Ok(self
            .db()
            .query_row("SELECT id, workspace_id, name, kind FROM members WHERE id = ?1", params![id], member_from_row)
            .optional()?)
    }

    /// A member by name, whatever its case (names are unique per workspace that way).
    pub fn member_by_name(&self, name: &str) -> Result<Option<Member>, StoreError> {
        Ok(self
            .db()
            .query_row(
                "SELECT id, workspace_id, name, kind FROM members WHERE name = ?1 COLLATE NOCASE",
                params![name],
                member_from_row,
            )
            .optional()?)
    }

    /// Every member, for the hub's name map.
    pub fn members(&self) -> Result<Vec<Member>, StoreError> {
        let db = self.db();
        let mut statement = db.prepare("SELECT id, workspace_id, name, kind FROM members")?;
        let rows = statement.query_map([], member_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn add_api_key(&self, member_id: &str, hash: &str) -> Result<(), StoreError> {
        self.db().execute("INSERT INTO api_keys (hash, member_id) VALUES (?1, ?2)", params![hash, member_id])?;
        Ok(())
    }

    pub fn member_by_key_hash(&self, hash: &str) -> Result<Option<Member>, StoreError> {
        Ok(self
            .db()
            .query_row(
                "SELECT m.id, m.workspace_id, m.name, m.kind FROM api_keys k JOIN members m ON m.id = k.member_id \
                 WHERE k.hash = ?1",
                params![hash],
                member_from_row,
            )
            .optional()?)
    }

    pub fn revoke(&self, jti: &str) -> Result<(), StoreError> {
        self.db().execute(
            "INSERT OR IGNORE INTO revoked_tokens (jti, revoked_at) VALUES (?1, ?2)",
            params![jti, now_ms()],
        )?;
        Ok(())
    }

    pub fn is_revoked(&self, jti: &str) -> Result<bool, StoreError> {
        Ok(self
            .db()
            .query_row("SELECT 1 FROM revoked_tokens WHERE jti = ?1", params![jti], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// A channel with these members.
    pub fn add_channel(&self, name: &str, members: &[String]) -> Result<String, StoreError> {
        let id = new_id("ch");
        let mut db = self.db();
        let tx = db.transaction()?;
        tx.execute(
            "INSERT INTO channels (id, workspace_id, name, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, WORKSPACE_ID, name, now_ms()],
        )?;
        for member in members {
            let known: bool =
                tx.query_row("SELECT 1 FROM members WHERE id = ?1", params![member], |_| Ok(())).optional()?.is_some();
            if !known {
                return Err(StoreError::NoSuchMember(member.clone()));
            }
            tx.execute(
                "INSERT OR IGNORE INTO memberships (channel_id, member_id) VALUES (?1, ?2)",
                params![id, member],
            )?;
        }
        tx.commit()?;
        Ok(id)
    }

    pub fn channels_of(&self, member_id: &str) -> Result<Vec<String>, StoreError> {
        let db = self.db();
        let mut statement =
            db.prepare("SELECT channel_id FROM memberships WHERE member_id = ?1 ORDER BY channel_id")?;
        let rows = statement.query_map(params![member_id], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn is_channel_member(&self, channel_id: &str, member_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .db()
            .query_row(
                "SELECT 1 FROM memberships WHERE channel_id = ?1 AND member_id = ?2",
                params![channel_id, member_id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// The other member of a two-member channel `member_id` is in: the peer of a direct message
    /// (the spec's channels have no kind, so a DM is a channel of two). None for any other channel.
    pub fn direct_peer(&self, channel_id: &str, member_id: &str) -> Result<Option<Member>, StoreError> {
        let db = self.db();
        // At most three rows, whatever the channel's size: enough to tell two from more.
        let mut statement = db.prepare(
            "SELECT m.id, m.workspace_id, m.name, m.kind FROM memberships s JOIN members m ON m.id = s.member_id \
             WHERE s.channel_id = ?1 LIMIT 3",
        )?;
        let members: Vec<Member> =
            statement.query_map(params![channel_id], member_from_row)?.collect::<Result<_, _>>()?;
        if members.len() != 2 || !members.iter().any(|m| m.id == member_id) {
            return Ok(None);
        }
        Ok(members.into_iter().find(|m| m.id != member_id))
    }

    /// Whether two members are in at least one channel together.
    pub fn share_a_channel(&self, a: &str, b: &str) -> Result<bool, StoreError> {
        Ok(self
            .db()
            .query_row(
                "SELECT 1 FROM memberships x JOIN memberships y ON x.channel_id = y.channel_id \
                 WHERE x.member_id = ?1 AND y.member_id = ?2 LIMIT 1",
                params![a, b],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    pub fn insert_message(&self, message: &Message) -> Result<(), StoreError> {
        self.db().execute(
            &format!("INSERT INTO messages ({MESSAGE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"),
            params![
                message.id,
                message.channel_id,
                message.sender_id,
                message.content,
                message.content_type,
                message.kind,
                message.thread_id,
                message.metadata.to_string(),
                message.created_at,
                message.edited_at
            ],
        )?;
        Ok(())
    }

    /// A message that has not been deleted.
    pub fn message(&self, id: &str) -> Result<Option<Message>, StoreError> {
        Ok(self
            .db()
            .query_row(
                &format!("SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?1 AND deleted = 0"),
                params![id],
                message_from_row,
            )
            .optional()?)
    }

    pub fn edit_message(&self, id: &str, content: &str, at: i64) -> Result<(), StoreError> {
        self.db()
            .execute("UPDATE messages SET content = ?2, edited_at = ?3 WHERE id = ?1", params![id, content, at])?;
        Ok(())
    }

    pub fn delete_message(&self, id: &str) -> Result<(), StoreError> {
        self.db().execute("UPDATE messages SET deleted = 1 WHERE id = ?1", params![id])?;
        Ok(())
    }

    /// The channel's latest `n` messages, oldest first.
    pub fn recent_messages(&self, channel_id: &str, n: usize) -> Result<Vec<Message>, StoreError> {
        let db = self.db();
        let mut statement = db.prepare(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE channel_id = ?1 AND deleted = 0 \
             ORDER BY created_at DESC, rowid DESC LIMIT ?2"
        ))?;
        let rows = statement.query_map(params![channel_id, n as i64], message_from_row)?;
        let mut messages: Vec<Message> = rows.collect::<Result<_, _>>()?;
        messages.reverse();
        Ok(messages)
    }

    /// An agent's role card and runtime, replaced by each `agent.hello`.
    pub fn set_role_card(&self, member_id: &str, role_card: &Value, runtime: &Value) -> Result<(), StoreError> {
        self.db().execute(
            "INSERT INTO agents (member_id, role_card, runtime, updated_at) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (member_id) DO UPDATE SET role_card = ?2, runtime = ?3, updated_at = ?4",
            params![member_id, role_card.to_string(), runtime.to_string(), now_ms()],
        )?;
        Ok(())
    }

    pub fn role_card(&self, member_id: &str) -> Result<Option<Value>, StoreError> {
        let card: Option<String> = self
            .db()
            .query_row("SELECT role_card FROM agents WHERE member_id = ?1", params![member_id], |r| r.get(0))
            .optional()?;
        Ok(card.and_then(|c| serde_json::from_str(&c).ok()))
    }

    /// Stores a notification; returns it as the `notification.new` data.
    pub fn add_notification(
        &self,
        member_id: &str,
        kind: &str,
        title: &str,
        body: &str,
        channel_id: &str,
        message_id: &str,
    ) -> Result<Value, StoreError> {
        let id = new_id("notif");
        let created_at = now_ms();
        self.db().execute(
            "INSERT INTO notifications (id, member_id, type, title, body, channel_id, message_id, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![id, member_id, kind, title, body, channel_id, message_id, created_at],
        )?;
        Ok(serde_json::json!({
            "id": id, "member_id": member_id, "type": kind, "title": title, "body": body,
            "channel_id": channel_id, "message_id": message_id, "is_read": false, "created_at": created_at,
        }))
    }

    /// Decides a pending approval request: the first decision wins (one conditional update), a
    /// later one finds it decided. None when there is no such request.
    pub fn decide_approval(
        &self,
        id: &str,
        decided_by: &str,
        status: &str,
    ) -> Result<Option<(Approval, bool)>, StoreError> {
        let db = self.db();
        let changed = db.execute(
            "UPDATE approvals SET status = ?2, decided_by = ?3, decided_at = ?4 WHERE id = ?1 AND status = 'pending'",
            params![id, status, decided_by, now_ms()],
        )?;
        let approval = db
            .query_row(
                "SELECT id, channel_id, requester_id, action, status, decided_by, decided_at FROM approvals WHERE id = ?1",
                params![id],
                approval_from_row,
            )
            .optional()?;
        Ok(approval.map(|a| (a, changed == 1)))
    }

    /// Links between the hub's records and those of the program that hosts it, kept with the
    /// hub's (Laika's daemon: a conversation's channel, an approval's mirror): `key` is the
    /// host's, namespaced by the caller (e.g. `conversation:ID`).
    pub fn set_link(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.db().execute("INSERT OR REPLACE INTO links (key, value) VALUES (?1, ?2)", params![key, value])?;
        Ok(())
    }

    pub fn link(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.db().query_row("SELECT value FROM links WHERE key = ?1", params![key], |r| r.get(0)).optional()?)
    }

    /// A request by id.
    pub fn approval(&self, id: &str) -> Result<Option<Approval>, StoreError> {
        Ok(self
            .db()
            .query_row(
                "SELECT id, channel_id, requester_id, action, status, decided_by, decided_at FROM approvals WHERE id = ?1",
                params![id],
                approval_from_row,
            )
            .optional()?)
    }

    /// A pending request's channel, to check who may decide it (None: no such request).
    pub fn approval_channel(&self, id: &str) -> Result<Option<Option<String>>, StoreError> {
        Ok(self
            .db()
            .query_row("SELECT channel_id FROM approvals WHERE id = ?1", params![id], |r| r.get(0))
            .optional()?)
    }

    /// Stores an approval request (pending); returns its id.
    pub fn add_approval(
        &self,
        channel_id: Option<&str>,
        requester_id: &str,
        action: &str,
        payload: &str,
    ) -> Result<(String, i64), StoreError> {
        let id = new_id("appr");
        let created_at = now_ms();
        self.db().execute(
            "INSERT INTO approvals (id, channel_id, requester_id, action, payload, status, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6)",
            params![id, channel_id, requester_id, action, payload, created_at],
        )?;
        Ok((id, created_at))
    }

    /// A new call, ringing.
    pub fn add_call(&self, caller_id: &str, callee_id: &str, kind: &str) -> Result<Call, StoreError> {
        let call = Call {
            id: new_id("call"),
            caller_id: caller_id.into(),
            callee_id: callee_id.into(),
            kind: kind.into(),
            status: "ringing".into(),
            created_at: now_ms(),
            answered_at: None,
            ended_at: None,
        };
        self.db().execute(
            &format!("INSERT INTO calls ({CALL_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, NULL)"),
            params![call.id, call.caller_id, call.callee_id, call.kind, call.status, call.created_at],
        )?;
        Ok(call)
    }

    pub fn call(&self, id: &str) -> Result<Option<Call>, StoreError> {
        Ok(self
            .db()
            .query_row(&format!("SELECT {CALL_COLUMNS} FROM calls WHERE id = ?1"), params![id], call_from_row)
            .optional()?)
    }

    /// Answers a ringing call; false if it was not ringing (answered already, or ended). One
    /// conditional update, so of two answers only one wins.
    pub fn answer_call(&self, id: &str, at: i64) -> Result<bool, StoreError> {
        let changed = self.db().execute(
            "UPDATE calls SET status = 'answered', answered_at = ?2 WHERE id = ?1 AND status = 'ringing'",
            params![id, at],
        )?;
        Ok(changed == 1)
    }

    /// Ends a call that has not ended; false if it had (both parties hanging up at once: one wins).
    pub fn end_call(&self, id: &str, at: i64) -> Result<bool, StoreError> {
        let changed = self.db().execute(
            "UPDATE calls SET status = 'ended', ended_at = ?2 WHERE id = ?1 AND status != 'ended'",
            params![id, at],
        )?;
        Ok(changed == 1)
    }

    /// A member's calls that have not ended, as caller or callee.
    pub fn open_calls_of(&self, member_id: &str) -> Result<Vec<Call>, StoreError> {
        self.calls_where(member_id, "AND status != 'ended'")
    }

    /// A member's calls, as caller or callee, newest first.
    pub fn calls_of(&self, member_id: &str) -> Result<Vec<Call>, StoreError> {
        self.calls_where(member_id, "")
    }

    fn calls_where(&self, member_id: &str, condition: &str) -> Result<Vec<Call>, StoreError> {
        let db = self.db();
        let mut statement = db.prepare(&format!(
            "SELECT {CALL_COLUMNS} FROM calls WHERE (caller_id = ?1 OR callee_id = ?1) {condition} \
             ORDER BY created_at DESC, rowid DESC"
        ))?;
        let rows = statement.query_map(params![member_id], call_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_per_workspace_whatever_their_case() {
        let store = Store::open_in_memory().unwrap();
        store.add_member("alice", MemberKind::Human).unwrap();
        assert!(matches!(store.add_member("Alice", MemberKind::Agent), Err(StoreError::NameTaken(_))));
    }

    #[test]
    fn recent_messages_are_the_latest_oldest_first_without_deleted_ones() {
        let store = Store::open_in_memory().unwrap();
        let alice = store.add_member("alice", MemberKind::Human).unwrap();
        let channel = store.add_channel("general", std::slice::from_ref(&alice.id)).unwrap();
        for i in 0..25 {
            let message = Message {
                id: format!("m{i:02}"),
                channel_id: channel.clone(),
                sender_id: alice.id.clone(),
                content: format!("message {i}"),
                content_type: "text".into(),
                kind: "user".into(),
                thread_id: None,
                metadata: Value::Null,
                created_at: 1000 + i,
                edited_at: None,
            };
            store.insert_message(&message).unwrap();
        }
        store.delete_message("m24").unwrap();
        let recent = store.recent_messages(&channel, 20).unwrap();
        assert_eq!(recent.len(), 20);
        assert_eq!((recent[0].id.as_str(), recent[19].id.as_str()), ("m04", "m23"));
    }

    #[test]
    fn a_channel_of_an_unknown_member_is_refused_whole() {
        let store = Store::open_in_memory().unwrap();
        assert!(matches!(store.add_channel("x", &["mem_nobody".into()]), Err(StoreError::NoSuchMember(_))));
        assert!(store.channels_of("mem_nobody").unwrap().is_empty());
    }

    #[test]
    fn a_call_rings_is_answered_once_and_ends_once() {
        let store = Store::open_in_memory().unwrap();
        let alice = store.add_member("alice", MemberKind::Human).unwrap();
        let bob = store.add_member("bob", MemberKind::Human).unwrap();
        let call = store.add_call(&alice.id, &bob.id, "video").unwrap();
        assert_eq!((call.status.as_str(), call.answered_at, call.ended_at), ("ringing", None, None));
        assert_eq!(store.call(&call.id).unwrap().as_ref(), Some(&call));
        assert_eq!((call.other_party(&alice.id), call.other_party(&bob.id)), (bob.id.as_str(), alice.id.as_str()));
        assert!(call.is_party(&bob.id) && !call.is_party("mem_nobody"));

        assert!(store.answer_call(&call.id, 2000).unwrap());
        assert!(!store.answer_call(&call.id, 2001).unwrap(), "answered twice");
        let answered = store.call(&call.id).unwrap().unwrap();
        assert_eq!((answered.status.as_str(), answered.answered_at), ("answered", Some(2000)));
        assert_eq!(store.open_calls_of(&bob.id).unwrap(), vec![answered]);

        assert!(store.end_call(&call.id, 3000).unwrap());
        assert!(!store.end_call(&call.id, 3001).unwrap(), "ended twice");
        assert!(!store.answer_call(&call.id, 3002).unwrap(), "an ended call was answered");
        let ended = store.call(&call.id).unwrap().unwrap();
        assert_eq!((ended.status.as_str(), ended.answered_at, ended.ended_at), ("ended", Some(2000), Some(3000)));
        assert!(store.open_calls_of(&alice.id).unwrap().is_empty());
        assert_eq!(store.calls_of(&alice.id).unwrap(), vec![ended]);
        assert!(store.call("call_none").unwrap().is_none());
    }

    #[test]
    fn a_direct_peer_is_the_other_member_of_a_channel_of_two() {
        let store = Store::open_in_memory().unwrap();
        let alice = store.add_member("alice", MemberKind::Human).unwrap();
        let bob = store.add_member("bob", MemberKind::Human).unwrap();
        let bot = store.add_member("bot", MemberKind::Agent).unwrap();
        let dm = store.add_channel("dm", &[alice.id.clone(), bot.id.clone()]).unwrap();
        let three = store.add_channel("three", &[alice.id.clone(), bob.id.clone(), bot.id.clone()]).unwrap();
        let alone = store.add_channel("alone", std::slice::from_ref(&alice.id)).unwrap();
        assert_eq!(store.direct_peer(&dm, &alice.id).unwrap(), Some(bot.clone()));
        assert_eq!(store.direct_peer(&dm, &bot.id).unwrap(), Some(alice.clone()));
        assert_eq!(store.direct_peer(&dm, &bob.id).unwrap(), None, "not in the channel");
        assert_eq!(store.direct_peer(&three, &alice.id).unwrap(), None);
        assert_eq!(store.direct_peer(&alone, &alice.id).unwrap(), None);
        assert!(store.share_a_channel(&alice.id, &bot.id).unwrap());
        let loner = store.add_member("loner", MemberKind::Human).unwrap();
        assert!(!store.share_a_channel(&alice.id, &loner.id).unwrap());
    }
}
