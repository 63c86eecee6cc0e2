//! Laika's chat history: laika.llmcp packets, approvals and per-site grants in one SQLite file.
//!
//! Packets are stored as sent and received, after a storage redaction ([`redact_packet`]): by
//! default the history keeps what a user needs to read a conversation again (their messages, the
//! assistant's render and citations, page URL and title) plus a digest and a short preview of
//! every context document, never the full page text and never the values typed into forms.
//! `LAIKA_LOG_FULL_LLM=1` ([`StoragePolicy::Full`]) stores packets unchanged, for debugging.
//!
//! The schema is the one of laika-llmcp.md ("Storing JSON conversation in SQLite") as version 1,
//! extended by numbered migrations tracked in `PRAGMA user_version`; a file written by a newer
//! Laika is refused rather than guessed at. The file runs in WAL mode with `synchronous=FULL`, and
//! [`History::append_turn`] returns only after its transaction has committed, so a turn the host
//! acknowledges survives a crash or a power cut.

// Not wired into the native-messaging API yet; the host issue connects it.
#![allow(dead_code)]

use laika_shared::policy::{Capability, SiteGrant, Verdict, origin_of};
use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// The format tag of [`History::export`] output.
pub const EXPORT_FORMAT: &str = "laika.history.v1";

/// Longest conversation title, in chars.
const TITLE_MAX_CHARS: usize = 120;
/// Longest stored preview of a document's text or of a message, in chars.
const PREVIEW_MAX_CHARS: usize = 280;
/// What replaces a form value in a stored tool call.
const REDACTED: &str = "[redacted]";

/// Schema migrations; applying `MIGRATIONS[v]` takes the file from `user_version` v to v + 1.
///
/// Version 1 is the schema proposed by the spec, verbatim and with `IF NOT EXISTS`, so a file made
/// by an earlier prototype (those tables, `user_version` 0) goes through the same path as a new one.
const MIGRATIONS: &[&str] = &[
    // 1: the spec's proposed schema (v1).
    "CREATE TABLE IF NOT EXISTS conversations (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        title TEXT
    );
    CREATE TABLE IF NOT EXISTS messages (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        turn INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        sender_role TEXT NOT NULL,
        packet_type TEXT NOT NULL,
        in_reply_to_request_id TEXT,
        model_id TEXT,
        packet_json TEXT NOT NULL,
        FOREIGN KEY(conversation_id) REFERENCES conversations(id)
    );
    CREATE INDEX IF NOT EXISTS idx_messages_conversation_turn ON messages(conversation_id, turn);",
    // 2: listing by activity, insertion order, previews, approvals and site grants.
    //
    // `seq` is an explicit insertion counter: rowids of a table without an INTEGER PRIMARY KEY may
    // be renumbered by VACUUM. `activity_seq` is the seq of a conversation's newest message, which
    // orders the list even when two turns land in the same millisecond or the clock steps back.
    "ALTER TABLE conversations ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
    ALTER TABLE conversations ADD COLUMN url TEXT;
    ALTER TABLE conversations ADD COLUMN activity_seq INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE messages ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE messages ADD COLUMN preview TEXT;
    UPDATE messages SET seq = rowid;
    UPDATE conversations SET
        updated_at = COALESCE(
            (SELECT MAX(m.created_at) FROM messages m WHERE m.conversation_id = conversations.id), created_at),
        activity_seq = COALESCE(
            (SELECT MAX(m.seq) FROM messages m WHERE m.conversation_id = conversations.id), 0);
    CREATE INDEX idx_messages_seq ON messages(seq);
    CREATE INDEX idx_conversations_activity ON conversations(activity_seq);
    -- No foreign key to conversations: the card for a proposed call may be recorded before the
    -- turn that proposed it is appended. History::delete removes a conversation's approvals.
    CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        conversation_id TEXT,
        created_at TEXT NOT NULL,
        origin TEXT,
        tool_name TEXT NOT NULL,
        arguments_json TEXT NOT NULL,
        verdict TEXT NOT NULL,
        code TEXT NOT NULL,
        grantable TEXT,
        decision TEXT,
        decided_at TEXT
    );
    CREATE INDEX idx_approvals_conversation ON approvals(conversation_id);
    CREATE TABLE site_grants (
        origin TEXT NOT NULL,
        capability TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (origin, capability)
    ) WITHOUT ROWID;",
    // 3: the results of `integration.invoke` mutations that carried an idempotency key, so a
    // repeated call answers with the first result instead of changing the service's data again.
    // The payload's digest tells a retry from a different call reusing the key.
    "CREATE TABLE integration_results (
        service TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        payload_sha256 TEXT NOT NULL,
        result_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (service, endpoint, idempotency_key)
    ) WITHOUT ROWID;",
    // 4: the gate's reason in words ("click \"Delete account\""), for clients that answer an
    // approval without the page in front of them (the Approvals panel, the Lark bus, the CLI).
    "ALTER TABLE approvals ADD COLUMN reason TEXT;",
];

/// The schema version this build writes: the number of migrations.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// A failed history operation, with a stable code for the API and logs.
#[derive(Debug)]
pub struct HistoryError {
    pub code: &'static str,
    pub message: String,
}

impl HistoryError {
    /// SQLite or file-system failure.
    pub const IO: &'static str = "HISTORY_IO";
    /// Another connection held the database longer than the busy timeout; worth a retry.
    pub const BUSY: &'static str = "HISTORY_BUSY";
    /// No conversation or approval with that id.
    pub const NOT_FOUND: &'static str = "HISTORY_NOT_FOUND";
    /// A packet of a turn lacks the envelope fields the history files it by.
    pub const BAD_PACKET: &'static str = "HISTORY_BAD_PACKET";
    /// The file was written by a newer Laika (its `user_version` is above [`SCHEMA_VERSION`]).
    pub const SCHEMA_TOO_NEW: &'static str = "HISTORY_SCHEMA_TOO_NEW";
    /// The approval has a decision already.
    pub const ALREADY_DECIDED: &'static str = "HISTORY_ALREADY_DECIDED";
    /// Not a decision this approval can take (unknown word, not an "ask", nothing to grant).
    pub const BAD_DECISION: &'static str = "HISTORY_BAD_DECISION";
    /// An approval record that cannot be stored (empty id, unknown verdict or capability).
    pub const BAD_APPROVAL: &'static str = "HISTORY_BAD_APPROVAL";
    /// A grant whose origin is not a canonical http(s) `scheme://host[:port]`: the gate compares
    /// origins as strings, so such a grant could never match and is refused instead.
    pub const BAD_GRANT: &'static str = "HISTORY_BAD_GRANT";
    /// A stored row that does not decode (e.g. packet JSON edited by hand).
    pub const CORRUPT: &'static str = "HISTORY_CORRUPT";

    fn new(code: &'static str, message: impl Into<String>) -> Self {
        HistoryError { code, message: message.into() }
    }
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for HistoryError {}

impl From<rusqlite::Error> for HistoryError {
    fn from(e: rusqlite::Error) -> Self {
        let code = match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => HistoryError::BUSY,
            _ => HistoryError::IO,
        };
        HistoryError::new(code, e.to_string())
    }
}

/// What of a packet reaches the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoragePolicy {
    /// The default: documents reduced to metadata, digest and preview; form values removed.
    Redacted,
    /// Packets unchanged (`LAIKA_LOG_FULL_LLM=1`), for debugging only.
    Full,
}

impl StoragePolicy {
    /// [`StoragePolicy::Full`] iff `LAIKA_LOG_FULL_LLM=1`; anything else keeps the safe default.
    pub fn from_env() -> Self {
        match std::env::var("LAIKA_LOG_FULL_LLM") {
            Ok(v) if v.trim() == "1" => StoragePolicy::Full,
            _ => StoragePolicy::Redacted,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StoragePolicy::Redacted => "redacted",
            StoragePolicy::Full => "full",
        }
    }
}

/// One conversation in the list.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ConversationSummary {
    pub id: String,
    pub created_at: String,
    pub updated_at: String,
    pub title: Option<String>,
    pub url: Option<String>,
    /// Distinct turn numbers stored.
    pub turns: i64,
}

/// A conversation with its stored (redacted) packets, ordered by turn then insertion.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Conversation {
    #[serde(flatten)]
    pub summary: ConversationSummary,
    pub messages: Vec<Value>,
}

/// A Policy Gate verdict on one proposed tool call, and the user's answer when it asked.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ApprovalRecord {
    pub id: String,
    pub conversation_id: Option<String>,
    pub created_at: String,
    /// The origin the call would act on (where an "always on this site" grant would apply).
    pub origin: Option<String>,
    pub tool_name: String,
    /// Stored redacted like packets: form values never reach the disk.
    pub arguments: Value,
    /// "allow", "ask" or "deny" ([`Verdict`]).
    pub verdict: String,
    /// The gate's reason code, e.g. "POLICY_NEEDS_APPROVAL".
    pub code: String,
    /// The [`Capability`] (snake_case) an "always on this site" answer would grant, if offered.
    pub grantable: Option<String>,
    /// "approve", "deny" or "always_on_site"; `None` while pending.
    pub decision: Option<String>,
    pub decided_at: Option<String>,
    /// The gate's reason in words, where it names nothing secret (see `agent::plan`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The history database. One connection behind a mutex: SQLite serialises writers anyway, and
/// a single connection keeps the WAL and its checkpoints in one place.
pub struct History {
    conn: Mutex<Connection>,
    policy: StoragePolicy,
}

impl History {
    /// Opens (creating if needed) the history file at `path` and brings its schema up to date.
    pub fn open(path: &Path, policy: StoragePolicy) -> Result<History, HistoryError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| HistoryError::new(HistoryError::IO, format!("cannot create {}: {e}", parent.display())))?;
        }
        let conn = Connection::open(path)?;
        History::setup(conn, policy)
    }

    /// A history that lives only as long as the value (tests, `--no-history` style runs).
    pub fn open_in_memory(policy: StoragePolicy) -> Result<History, HistoryError> {
        History::setup(Connection::open_in_memory()?, policy)
    }

    fn setup(mut conn: Connection, policy: StoragePolicy) -> Result<History, HistoryError> {
        crate::sqlite::setup(&conn, "history")?;
        crate::sqlite::migrate(&mut conn, MIGRATIONS).map_err(|e| match e {
            crate::sqlite::MigrateError::TooNew { found, known } => HistoryError::new(
                HistoryError::SCHEMA_TOO_NEW,
                format!("the history file has schema version {found}; this Laika knows up to {known}"),
            ),
            crate::sqlite::MigrateError::Sql(e) => e.into(),
        })?;
        Ok(History { conn: Mutex::new(conn), policy })
    }

    pub fn policy(&self) -> StoragePolicy {
        self.policy
    }

    /// Moves the write-ahead log into the database file and empties it (the daemon does this as
    /// it stops). Every committed turn is durable without it; this leaves one file behind
    /// instead of three, for a backup or a copy.
    pub fn checkpoint(&self) -> Result<(), HistoryError> {
        self.lock().query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while the lock was held dropped its open transaction, which rolled back; the
        // connection itself is still sound, so poisoning is not a reason to stop the history.
        self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Stores a turn's packets (each a laika.llmcp packet: request, response, or another with
    /// `sender.role`) in one transaction, creating the conversation on its first turn. Returns after
    /// the commit, so the turn is durable before the caller acknowledges it.
    ///
    /// All packets must belong to one conversation. Every packet is checked before anything is
    /// written; a bad one fails the call with `HISTORY_BAD_PACKET` and stores nothing of the turn.
    /// Appending a packet id that is already stored (a retried turn) is a no-op for that packet;
    /// reusing an id in another conversation is a bad packet.
    pub fn append_turn(&self, packets: &[Value], model_id: Option<&str>) -> Result<(), HistoryError> {
        if packets.is_empty() {
            return Ok(());
        }
        let metas = packets.iter().enumerate().map(|(i, p)| PacketMeta::read(p, i)).collect::<Result<Vec<_>, _>>()?;
        let conversation_id = metas[0].conversation_id.clone();
        if let Some(other) = metas.iter().find(|m| m.conversation_id != conversation_id) {
            return Err(HistoryError::new(
                HistoryError::BAD_PACKET,
                format!(
                    "packet {}: conversation {:?} differs from the turn's {:?}",
                    other.index, other.conversation_id, conversation_id
                ),
            ));
        }
        let title = conversation_title(packets);
        let url = conversation_url(packets);
        let now = now_rfc3339();

        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO conversations (id, created_at, updated_at, title, url) VALUES (?1, ?2, ?2, ?3, ?4)
             ON CONFLICT(id) DO UPDATE SET title = COALESCE(title, excluded.title), url = COALESCE(url, excluded.url)",
            params![conversation_id, now, title, url],
        )?;
        let mut last_seq = None;
        for (packet, meta) in packets.iter().zip(&metas) {
            let stored = redact_packet(packet, self.policy);
            let json = serde_json::to_string(&stored)
                .map_err(|e| HistoryError::new(HistoryError::BAD_PACKET, format!("packet {}: {e}", meta.index)))?;
            let seq: i64 = tx.query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM messages", [], |r| r.get(0))?;
            let inserted = tx.execute(
                "INSERT INTO messages (id, conversation_id, turn, created_at, sender_role, packet_type,
                     in_reply_to_request_id, model_id, packet_json, seq, preview)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 ON CONFLICT(id) DO NOTHING",
                params![
                    meta.id,
                    meta.conversation_id,
                    meta.turn,
                    meta.created_at.as_deref().unwrap_or(&now),
                    meta.sender_role,
                    meta.packet_type,
                    meta.in_reply_to,
                    model_id,
                    json,
                    seq,
                    message_preview(&stored),
                ],
            )?;
            if inserted == 1 {
                last_seq = Some(seq);
                continue;
            }
            // Already stored: fine for a retry of the same turn, wrong if the id belongs elsewhere.
            let owner: String =
                tx.query_row("SELECT conversation_id FROM messages WHERE id = ?1", [&meta.id], |r| r.get(0))?;
            if owner != meta.conversation_id {
                // Dropping `tx` rolls back everything this turn wrote.
                return Err(HistoryError::new(
                    HistoryError::BAD_PACKET,
                    format!("packet {}: id {:?} is already stored in another conversation", meta.index, meta.id),
                ));
            }
        }
        if let Some(seq) = last_seq {
            tx.execute(
                "UPDATE conversations SET updated_at = ?2, activity_seq = ?3 WHERE id = ?1",
                params![conversation_id, now, seq],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Conversations, the most recently active first.
    pub fn list(&self, limit: usize, offset: usize) -> Result<Vec<ConversationSummary>, HistoryError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!("{SUMMARY_SELECT} {SUMMARY_ORDER} LIMIT ?1 OFFSET ?2"))?;
        let rows = stmt.query_map(params![to_i64(limit), to_i64(offset)], summary_from_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// One conversation with its messages, ordered by turn then insertion.
    pub fn get(&self, conversation_id: &str) -> Result<Option<Conversation>, HistoryError> {
        let conn = self.lock();
        load_conversation(&conn, conversation_id)
    }

    /// The highest turn number stored for a conversation (`None` if it has no messages), for
    /// numbering the next turn without loading every packet.
    pub fn last_turn(&self, conversation_id: &str) -> Result<Option<i64>, HistoryError> {
        let conn = self.lock();
        let turn =
            conn.query_row("SELECT MAX(turn) FROM messages WHERE conversation_id = ?1", [conversation_id], |r| {
                r.get::<_, Option<i64>>(0)
            })?;
        Ok(turn)
    }

    /// Deletes a conversation, its messages and its approvals. False if it did not exist.
    pub fn delete(&self, conversation_id: &str) -> Result<bool, HistoryError> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute("DELETE FROM messages WHERE conversation_id = ?1", [conversation_id])?;
        tx.execute("DELETE FROM approvals WHERE conversation_id = ?1", [conversation_id])?;
        let removed = tx.execute("DELETE FROM conversations WHERE id = ?1", [conversation_id])?;
        tx.commit()?;
        Ok(removed > 0)
    }

    /// `{"format": "laika.history.v1", "exported_at", "conversations": [{..summary, "messages"}]}` for
    /// one conversation (`HISTORY_NOT_FOUND` if unknown) or all of them, most recent first.
    pub fn export(&self, conversation_id: Option<&str>) -> Result<Value, HistoryError> {
        let conn = self.lock();
        let conversations = match conversation_id {
            Some(id) => vec![load_conversation(&conn, id)?.ok_or_else(|| not_found("conversation", id))?],
            None => {
                let ids = {
                    let mut stmt = conn.prepare(&format!("SELECT c.id FROM conversations c {SUMMARY_ORDER}"))?;
                    stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?
                };
                // The connection is locked for the whole export, so every id is still there.
                ids.iter().filter_map(|id| load_conversation(&conn, id).transpose()).collect::<Result<Vec<_>, _>>()?
            }
        };
        Ok(json!({
            "format": EXPORT_FORMAT,
            "exported_at": now_rfc3339(),
            "conversations": conversations,
        }))
    }

    /// Records a gate verdict (and, for an "ask", the pending card). Its arguments are redacted
    /// under the history's policy. A second record with the same id is refused.
    pub fn record_approval(&self, a: &ApprovalRecord) -> Result<(), HistoryError> {
        let bad = |message: String| HistoryError::new(HistoryError::BAD_APPROVAL, message);
        if a.id.trim().is_empty() || a.tool_name.trim().is_empty() {
            return Err(bad("an approval needs an id and a tool name".into()));
        }
        parse_verdict(&a.verdict).ok_or_else(|| bad(format!("unknown verdict {:?}", a.verdict)))?;
        if let Some(capability) = &a.grantable {
            parse_capability(capability).ok_or_else(|| bad(format!("unknown capability {:?}", capability)))?;
        }
        if let Some(decision) = &a.decision {
            parse_decision(decision).ok_or_else(|| bad(format!("unknown decision {:?}", decision)))?;
        }
        let arguments = redact_tool_arguments(&a.tool_name, &a.arguments, self.policy);
        let conn = self.lock();
        let inserted = conn.execute(
            "INSERT INTO approvals (id, conversation_id, created_at, origin, tool_name, arguments_json, verdict, code,
                 grantable, decision, decided_at, reason)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
             ON CONFLICT(id) DO NOTHING",
            params![
                a.id,
                a.conversation_id,
                a.created_at,
                a.origin,
                a.tool_name,
                arguments.to_string(),
                a.verdict,
                a.code,
                a.grantable,
                a.decision,
                a.decided_at,
                a.reason,
            ],
        )?;
        if inserted == 0 {
            return Err(bad(format!("approval {:?} is already recorded", a.id)));
        }
        Ok(())
    }

    /// Takes the user's answer to a pending "ask": "approve", "deny" or "always_on_site". The last
    /// also stores the site grant the card offered (`origin` + `grantable`), in the same
    /// transaction, so the answer and the grant cannot come apart.
    ///
    /// Errors: `HISTORY_NOT_FOUND`, `HISTORY_ALREADY_DECIDED`, and `HISTORY_BAD_DECISION` for an
    /// unknown word, a verdict other than "ask" (an allow needs no answer and a deny must stay one)
    /// or "always_on_site" on a card that offered no grant.
    pub fn decide_approval(&self, approval_id: &str, decision: &str) -> Result<ApprovalRecord, HistoryError> {
        let bad = |message: String| HistoryError::new(HistoryError::BAD_DECISION, message);
        let always = parse_decision(decision).ok_or_else(|| bad(format!("unknown decision {decision:?}")))?
            == Decision::AlwaysOnSite;
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut record = load_approval(&tx, approval_id)?.ok_or_else(|| not_found("approval", approval_id))?;
        if record.decision.is_some() {
            return Err(HistoryError::new(
                HistoryError::ALREADY_DECIDED,
                format!("approval {approval_id:?} was already answered {:?}", record.decision.unwrap_or_default()),
            ));
        }
        if parse_verdict(&record.verdict) != Some(Verdict::Ask) {
            return Err(bad(format!("approval {approval_id:?} has verdict {:?}, not ask", record.verdict)));
        }
        if always {
            let (Some(origin), Some(capability)) = (&record.origin, &record.grantable) else {
                return Err(bad(format!("approval {approval_id:?} offered no site grant")));
            };
            let capability = parse_capability(capability)
                .ok_or_else(|| HistoryError::new(HistoryError::CORRUPT, format!("stored capability {capability:?}")))?;
            insert_grant(&tx, &SiteGrant { origin: origin.clone(), capability })?;
        }
        let now = now_rfc3339();
        tx.execute(
            "UPDATE approvals SET decision = ?2, decided_at = ?3 WHERE id = ?1",
            params![approval_id, decision, now],
        )?;
        tx.commit()?;
        record.decision = Some(decision.to_owned());
        record.decided_at = Some(now);
        Ok(record)
    }

    /// The approvals still waiting for an answer (verdict ask, no decision), oldest first.
    pub fn pending_approvals(&self, limit: usize) -> Result<Vec<ApprovalRecord>, HistoryError> {
        let conn = self.lock();
        let ids: Vec<String> = conn
            .prepare(
                "SELECT id FROM approvals WHERE verdict = 'ask' AND decision IS NULL ORDER BY created_at, rowid LIMIT ?1",
            )?
            .query_map([limit as i64], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        ids.iter().filter_map(|id| load_approval(&conn, id).transpose()).collect()
    }

    pub fn approval(&self, approval_id: &str) -> Result<Option<ApprovalRecord>, HistoryError> {
        let conn = self.lock();
        load_approval(&conn, approval_id)
    }

    /// Stores "always allow <capability> on <origin>". Adding an existing grant is a no-op.
    pub fn add_grant(&self, grant: &SiteGrant) -> Result<(), HistoryError> {
        let conn = self.lock();
        insert_grant(&conn, grant)
    }

    /// Every stored grant, by origin then capability.
    pub fn grants(&self) -> Result<Vec<SiteGrant>, HistoryError> {
        let conn = self.lock();
        let mut stmt = conn.prepare("SELECT origin, capability FROM site_grants ORDER BY origin, capability")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut grants = Vec::new();
        for row in rows {
            let (origin, capability) = row?;
            match parse_capability(&capability) {
                Some(capability) => grants.push(SiteGrant { origin, capability }),
                // Dropping a grant we cannot read only means asking again, the safe direction.
                None => tracing::warn!(%origin, %capability, "history: skipping a grant of unknown capability"),
            }
        }
        Ok(grants)
    }

    /// The stored result of a keyed `integration.invoke` mutation: `(payload digest, result)`.
    pub fn integration_result(
        &self,
        service: &str,
        endpoint: &str,
        key: &str,
    ) -> Result<Option<(String, Value)>, HistoryError> {
        let conn = self.lock();
        let row: Option<(String, String)> = conn
            .query_row(
                "SELECT payload_sha256, result_json FROM integration_results
                 WHERE service = ?1 AND endpoint = ?2 AND idempotency_key = ?3",
                params![service, endpoint, key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        row.map(|(digest, json)| {
            serde_json::from_str(&json)
                .map(|result| (digest, result))
                .map_err(|e| HistoryError::new(HistoryError::CORRUPT, format!("stored integration result: {e}")))
        })
        .transpose()
    }

    /// Keeps the result of a keyed mutation; a key already stored keeps its first result.
    pub fn record_integration_result(
        &self,
        service: &str,
        endpoint: &str,
        key: &str,
        payload_sha256: &str,
        result: &Value,
    ) -> Result<(), HistoryError> {
        let conn = self.lock();
        conn.execute(
            "INSERT INTO integration_results (service, endpoint, idempotency_key, payload_sha256, result_json, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT DO NOTHING",
            params![service, endpoint, key, payload_sha256, result.to_string(), now_rfc3339()],
        )?;
        Ok(())
    }

    /// Removes a grant. False if it was not stored.
    pub fn remove_grant(&self, grant: &SiteGrant) -> Result<bool, HistoryError> {
        let conn = self.lock();
        let removed = conn.execute(
            "DELETE FROM site_grants WHERE origin = ?1 AND capability = ?2",
            params![grant.origin, capability_str(grant.capability)],
        )?;
        Ok(removed > 0)
    }

    /// Counts for `host.info` and debugging.
    pub fn stats(&self) -> Result<Value, HistoryError> {
        let conn = self.lock();
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
        let page_count = count("PRAGMA page_count")?;
        let page_size = count("PRAGMA page_size")?;
        Ok(json!({
            "schema_version": count("PRAGMA user_version")?,
            "policy": self.policy.as_str(),
            "conversations": count("SELECT COUNT(*) FROM conversations")?,
            "messages": count("SELECT COUNT(*) FROM messages")?,
            "approvals": count("SELECT COUNT(*) FROM approvals")?,
            "pending_approvals": count("SELECT COUNT(*) FROM approvals WHERE verdict = 'ask' AND decision IS NULL")?,
            "grants": count("SELECT COUNT(*) FROM site_grants")?,
            "bytes": page_count.saturating_mul(page_size),
        }))
    }
}

const SUMMARY_SELECT: &str = "SELECT c.id, c.created_at, c.updated_at, c.title, c.url,
    (SELECT COUNT(DISTINCT m.turn) FROM messages m WHERE m.conversation_id = c.id)
    FROM conversations c";
const SUMMARY_ORDER: &str = "ORDER BY c.activity_seq DESC, c.updated_at DESC, c.id";

fn summary_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ConversationSummary> {
    Ok(ConversationSummary {
        id: r.get(0)?,
        created_at: r.get(1)?,
        updated_at: r.get(2)?,
        title: r.get(3)?,
        url: r.get(4)?,
        turns: r.get(5)?,
    })
}

fn load_conversation(conn: &Connection, id: &str) -> Result<Option<Conversation>, HistoryError> {
    let summary = conn.query_row(&format!("{SUMMARY_SELECT} WHERE c.id = ?1"), [id], summary_from_row).optional()?;
    let Some(summary) = summary else { return Ok(None) };
    let mut stmt =
        conn.prepare("SELECT id, packet_json FROM messages WHERE conversation_id = ?1 ORDER BY turn, seq")?;
    let rows = stmt.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let mut messages = Vec::new();
    for row in rows {
        let (message_id, json) = row?;
        messages.push(serde_json::from_str(&json).map_err(|e| {
            HistoryError::new(HistoryError::CORRUPT, format!("message {message_id:?} does not parse: {e}"))
        })?);
    }
    Ok(Some(Conversation { summary, messages }))
}

fn load_approval(conn: &Connection, id: &str) -> Result<Option<ApprovalRecord>, HistoryError> {
    let row = conn
        .query_row(
            "SELECT id, conversation_id, created_at, origin, tool_name, arguments_json, verdict, code, grantable,
                 decision, decided_at, reason
             FROM approvals WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    ApprovalRecord {
                        id: r.get(0)?,
                        conversation_id: r.get(1)?,
                        created_at: r.get(2)?,
                        origin: r.get(3)?,
                        tool_name: r.get(4)?,
                        arguments: Value::Null,
                        verdict: r.get(6)?,
                        code: r.get(7)?,
                        grantable: r.get(8)?,
                        decision: r.get(9)?,
                        decided_at: r.get(10)?,
                        reason: r.get(11)?,
                    },
                    r.get::<_, String>(5)?,
                ))
            },
        )
        .optional()?;
    let Some((mut record, arguments)) = row else { return Ok(None) };
    record.arguments = serde_json::from_str(&arguments).map_err(|e| {
        HistoryError::new(HistoryError::CORRUPT, format!("approval {id:?} arguments do not parse: {e}"))
    })?;
    Ok(Some(record))
}

fn insert_grant(conn: &Connection, grant: &SiteGrant) -> Result<(), HistoryError> {
    if origin_of(&grant.origin).as_deref() != Some(grant.origin.as_str()) {
        return Err(HistoryError::new(
            HistoryError::BAD_GRANT,
            format!("{:?} is not an http(s) origin of the form scheme://host[:port]", grant.origin),
        ));
    }
    conn.execute(
        "INSERT INTO site_grants (origin, capability, created_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(origin, capability) DO NOTHING",
        params![grant.origin, capability_str(grant.capability), now_rfc3339()],
    )?;
    Ok(())
}

fn not_found(what: &str, id: &str) -> HistoryError {
    HistoryError::new(HistoryError::NOT_FOUND, format!("no {what} {id:?}"))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Decision {
    Approve,
    Deny,
    AlwaysOnSite,
}

fn parse_decision(s: &str) -> Option<Decision> {
    match s {
        "approve" => Some(Decision::Approve),
        "deny" => Some(Decision::Deny),
        "always_on_site" => Some(Decision::AlwaysOnSite),
        _ => None,
    }
}

fn parse_verdict(s: &str) -> Option<Verdict> {
    serde_json::from_value(Value::String(s.to_owned())).ok()
}

/// The serde (snake_case) name of a capability, as the API and the table spell it.
fn capability_str(capability: Capability) -> String {
    match serde_json::to_value(capability) {
        Ok(Value::String(s)) => s,
        // Unit variants always serialise to strings; this arm only satisfies the type.
        _ => format!("{capability:?}"),
    }
}

fn parse_capability(s: &str) -> Option<Capability> {
    serde_json::from_value(Value::String(s.to_owned())).ok()
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The envelope fields a stored message is filed by.
struct PacketMeta {
    index: usize,
    id: String,
    conversation_id: String,
    turn: i64,
    packet_type: String,
    sender_role: String,
    created_at: Option<String>,
    in_reply_to: Option<String>,
}

impl PacketMeta {
    fn read(packet: &Value, index: usize) -> Result<PacketMeta, HistoryError> {
        let bad = |what: &str| HistoryError::new(HistoryError::BAD_PACKET, format!("packet {index}: {what}"));
        if !packet.is_object() {
            return Err(bad("not a JSON object"));
        }
        let text = |pointer: &str| {
            packet.pointer(pointer).and_then(Value::as_str).filter(|s| !s.trim().is_empty()).map(str::to_owned)
        };
        Ok(PacketMeta {
            index,
            id: text("/id").ok_or_else(|| bad("missing id"))?,
            conversation_id: text("/conversation/id").ok_or_else(|| bad("missing conversation.id"))?,
            turn: packet
                .pointer("/conversation/turn")
                .and_then(Value::as_i64)
                .filter(|t| *t >= 0)
                .ok_or_else(|| bad("conversation.turn must be a non-negative integer"))?,
            packet_type: text("/type").ok_or_else(|| bad("missing type"))?,
            sender_role: text("/sender/role").ok_or_else(|| bad("missing sender.role"))?,
            created_at: text("/created_at"),
            in_reply_to: text("/in_reply_to/request_id"),
        })
    }
}

/// The first user message of the turn, else the page title; whitespace collapsed, at most
/// [`TITLE_MAX_CHARS`] chars.
fn conversation_title(packets: &[Value]) -> Option<String> {
    let user_message = packets.iter().find_map(|p| non_blank(p.pointer("/input/user_message/text")));
    let page_title = || packets.iter().flat_map(documents).find_map(|d| non_blank(d.pointer("/content/title")));
    let title = user_message.or_else(page_title)?;
    let collapsed = title.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(clip(&collapsed, TITLE_MAX_CHARS, TITLE_MAX_CHARS - 1))
}

/// The URL of the first observation summary document of the turn.
fn conversation_url(packets: &[Value]) -> Option<String> {
    packets
        .iter()
        .flat_map(documents)
        .filter(|d| {
            d.get("kind").and_then(Value::as_str) == Some("web.observation.summary.v1")
                || d.pointer("/content/doc_type").and_then(Value::as_str) == Some("web.observation.summary.v1")
        })
        .find_map(|d| non_blank(d.pointer("/content/url")))
        .map(str::to_owned)
}

/// A short line for the messages table: the user's message, else the assistant's title.
fn message_preview(stored: &Value) -> Option<String> {
    let text = non_blank(stored.pointer("/input/user_message/text"))
        .or_else(|| non_blank(stored.pointer("/assistant/title")))?;
    Some(clip(text, PREVIEW_MAX_CHARS, PREVIEW_MAX_CHARS))
}

fn documents(packet: &Value) -> impl Iterator<Item = &Value> {
    packet.pointer("/context/documents").and_then(Value::as_array).into_iter().flatten()
}

fn non_blank(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
}

/// `text` if it has at most `max_chars` chars, else its first `keep` chars (`keep` <= `max_chars`)
/// and "…". Cuts fall on char boundaries, never inside a multi-byte character.
fn clip(text: &str, max_chars: usize, keep: usize) -> String {
    if text.char_indices().nth(max_chars).is_none() {
        return text.to_owned();
    }
    let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    format!("{}…", &text[..end])
}

/// The storage redaction of one packet (public so the caller can apply it to debug logs too).
///
/// Under [`StoragePolicy::Redacted`]: the `content` of every `context.documents[]` entry becomes
/// `{doc_type, url, title, digest: "sha256:<hex>", chars, preview}` (the digest is over the
/// canonical JSON of the original content, `chars` and the 280-char `preview` come from its
/// `text`), and form values in `tool_calls` (`browser.type` text, `browser.select` value) become
/// "[redacted]". Everything else is kept. Under [`StoragePolicy::Full`] the packet is unchanged.
pub fn redact_packet(packet: &Value, policy: StoragePolicy) -> Value {
    let mut out = packet.clone();
    if policy == StoragePolicy::Full {
        return out;
    }
    if let Some(docs) = out.pointer_mut("/context/documents").and_then(Value::as_array_mut) {
        for doc in docs {
            if let Some(content) = doc.get_mut("content") {
                *content = content_digest(content);
            }
        }
    }
    if let Some(calls) = out.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for call in calls.iter_mut().filter_map(Value::as_object_mut) {
            let name = call.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
            if let Some(arguments) = call.get_mut("arguments") {
                redact_form_values(&name, arguments);
            }
        }
    }
    out
}

/// The arguments of a tool call as the history stores them (see [`redact_packet`]).
pub fn redact_tool_arguments(tool_name: &str, arguments: &Value, policy: StoragePolicy) -> Value {
    let mut out = arguments.clone();
    if policy == StoragePolicy::Redacted {
        redact_form_values(tool_name, &mut out);
    }
    out
}

fn redact_form_values(tool_name: &str, arguments: &mut Value) {
    let key = match tool_name {
        "browser.type" => "text",
        "browser.select" => "value",
        _ => return,
    };
    if let Some(value) = arguments.get_mut(key) {
        *value = Value::String(REDACTED.into());
    }
}

/// What a stored document keeps of its content: page metadata, a digest and a short preview.
fn content_digest(content: &Value) -> Value {
    let mut out = Map::new();
    for key in ["doc_type", "url", "title"] {
        if let Some(v) = content.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let mut canonical = String::new();
    write_canonical_json(content, &mut canonical);
    out.insert("digest".into(), Value::String(format!("sha256:{}", sha256_hex(canonical.as_bytes()))));
    let text = content.as_str().or_else(|| content.get("text").and_then(Value::as_str));
    if let Some(text) = text {
        out.insert("chars".into(), json!(text.chars().count()));
        out.insert("preview".into(), Value::String(clip(text, PREVIEW_MAX_CHARS, PREVIEW_MAX_CHARS)));
    }
    Value::Object(out)
}

/// JSON with object keys sorted (by their UTF-8 bytes) and no whitespace, so equal content gives
/// an equal digest whatever order its keys arrived in. serde_json's own output is not enough:
/// another crate of the build may turn on its `preserve_order` feature.
fn write_canonical_json(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                // A string's Display is its JSON form, escapes included.
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical_json(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical_json(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The SHA-256 of `value`'s canonical JSON ([`write_canonical_json`]), as hex.
pub fn canonical_sha256(value: &Value) -> String {
    let mut out = String::new();
    write_canonical_json(value, &mut out);
    sha256_hex(out.as_bytes())
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    Sha256::digest(bytes).iter().fold(String::with_capacity(64), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

use crate::sqlite::now_rfc3339;

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

    /// A fresh directory under the system temp dir, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!("laika-history-{name}-{}", uuid::Uuid::new_v4()));
            std::fs::create_dir_all(&dir).expect("create temp dir");
            TempDir(dir)
        }

        /// A database path in a not-yet-existing subdirectory, so `open` must create it.
        fn db(&self) -> PathBuf {
            self.0.join("nested").join("history.sqlite3")
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const PAGE_TAIL: &str = "THE-END-OF-THE-FULL-PAGE-TEXT";

    /// 2,000 chars of page text, multi-byte characters included, with a marker at the very end.
    fn page_text() -> String {
        let mut text = "Ünïcödé page text. ".repeat(104);
        text.push_str(PAGE_TAIL);
        text
    }

    fn request(conversation: &str, turn: i64, id: &str, user_text: &str) -> Value {
        json!({
            "protocol": { "name": "laika.llmcp", "version": 1 },
            "id": id,
            "type": "request",
            "created_at": "2026-01-24T12:34:56.789Z",
            "conversation": { "id": conversation, "turn": turn },
            "sender": { "role": "agent" },
            "input": {
                "user_message": { "id": format!("u-{id}"), "text": user_text },
                "task": { "name": "web.summarize", "args": { "style": "concise" } }
            },
            "context": {
                "documents": [
                    {
                        "doc_id": "doc:web:summary",
                        "kind": "web.observation.summary.v1",
                        "trust": "untrusted",
                        "source": { "browser": "safari", "tab_id": "7" },
                        "content": {
                            "doc_type": "web.observation.summary.v1",
                            "url": "https://example.com/article",
                            "title": "Example article",
                            "text": page_text(),
                            "primary": { "text": "PRIMARY-BODY-TEXT", "tag": "article" },
                            "elements": [{ "handle_id": "laika-9", "role": "textbox", "text": "ELEMENT-TEXT" }]
                        }
                    },
                    {
                        "doc_id": "doc:web:chunk:1",
                        "kind": "web.observation.chunk.v1",
                        "trust": "untrusted",
                        "content": {
                            "doc_type": "web.observation.chunk.v1",
                            "url": "https://example.com/article",
                            "title": "Example article",
                            "chunk_index": 1,
                            "chunk_count": 1,
                            "text": "short chunk"
                        }
                    }
                ]
            },
            "output": { "format": "json" }
        })
    }

    fn response(conversation: &str, turn: i64, id: &str, request_id: &str) -> Value {
        json!({
            "protocol": { "name": "laika.llmcp", "version": 1 },
            "id": id,
            "type": "response",
            "created_at": "2026-01-24T12:34:57.123Z",
            "conversation": { "id": conversation, "turn": turn },
            "sender": { "role": "assistant" },
            "in_reply_to": { "request_id": request_id },
            "assistant": {
                "title": "Summary",
                "render": {
                    "type": "doc",
                    "children": [{ "type": "paragraph", "children": [{ "type": "text", "text": "An example." }] }]
                },
                "citations": [{ "doc_id": "doc:web:summary", "quote": "Example" }]
            },
            "tool_calls": [
                { "name": "browser.type", "arguments": { "handleId": "laika-9", "text": "hunter2-typed-secret" } },
                { "name": "browser.select", "arguments": { "handleId": "laika-10", "value": "card-4111" } },
                { "name": "browser.click", "arguments": { "handleId": "laika-11" } }
            ]
        })
    }

    fn turn(conversation: &str, n: i64, user_text: &str) -> Vec<Value> {
        let req = format!("{conversation}-req-{n}");
        vec![
            request(conversation, n, &req, user_text),
            response(conversation, n, &format!("{conversation}-res-{n}"), &req),
        ]
    }

    fn raw(path: &Path) -> Connection {
        Connection::open(path).expect("open raw connection")
    }

    fn count(conn: &Connection, sql: &str) -> i64 {
        conn.query_row(sql, [], |r| r.get(0)).expect("count query")
    }

    fn approval(id: &str, tool: &str, arguments: Value, verdict: &str, grantable: Option<&str>) -> ApprovalRecord {
        ApprovalRecord {
            id: id.into(),
            conversation_id: Some("c-1".into()),
            created_at: "2026-01-24T12:35:00.000Z".into(),
            origin: Some("https://shop.example".into()),
            tool_name: tool.into(),
            arguments,
            verdict: verdict.into(),
            code: "POLICY_NEEDS_APPROVAL".into(),
            grantable: grantable.map(str::to_owned),
            decision: None,
            decided_at: None,
            reason: None,
        }
    }

    fn is_rfc3339_millis_utc(s: &str) -> bool {
        let parsed = time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339);
        s.len() == 24 && s.ends_with('Z') && s.as_bytes()[19] == b'.' && parsed.is_ok()
    }

    #[test]
    fn history_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<History>();
    }

    #[test]
    fn a_turn_round_trips_and_is_committed_before_append_returns() {
        let dir = TempDir::new("round-trip");
        let history = History::open(&dir.db(), StoragePolicy::Redacted).expect("open");
        let packets = turn("c-1", 1, "  summarize\n this   page ");
        history.append_turn(&packets, Some("qwen3-0.6b")).expect("append");

        // A second connection sees the turn while the first is still open: it was committed.
        let other = raw(&dir.db());
        assert_eq!(count(&other, "SELECT COUNT(*) FROM messages WHERE conversation_id = 'c-1'"), 2);
        let (model, reply_to, role, preview): (Option<String>, Option<String>, String, Option<String>) = other
            .query_row(
                "SELECT model_id, in_reply_to_request_id, sender_role, preview FROM messages WHERE id = 'c-1-res-1'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .expect("response row");
        assert_eq!(model.as_deref(), Some("qwen3-0.6b"));
        assert_eq!(reply_to.as_deref(), Some("c-1-req-1"));
        assert_eq!(role, "assistant");
        assert_eq!(preview.as_deref(), Some("Summary"));

        let conversation = history.get("c-1").expect("get").expect("stored");
        assert_eq!(conversation.summary.id, "c-1");
        assert_eq!(conversation.summary.title.as_deref(), Some("summarize this page"));
        assert_eq!(conversation.summary.url.as_deref(), Some("https://example.com/article"));
        assert_eq!(conversation.summary.turns, 1);
        assert!(is_rfc3339_millis_utc(&conversation.summary.created_at), "{}", conversation.summary.created_at);
        assert!(is_rfc3339_millis_utc(&conversation.summary.updated_at));
        let expected: Vec<Value> = packets.iter().map(|p| redact_packet(p, StoragePolicy::Redacted)).collect();
        assert_eq!(conversation.messages, expected);
        assert_eq!(conversation.messages[0]["input"], packets[0]["input"]);
        assert_eq!(conversation.messages[1]["assistant"], packets[1]["assistant"]);
        assert_eq!(history.get("nope").expect("get"), None);
    }

    #[test]
    fn history_survives_closing_and_reopening() {
        let dir = TempDir::new("reopen");
        let grant = SiteGrant { origin: "https://shop.example".into(), capability: Capability::Click };
        {
            let history = History::open(&dir.db(), StoragePolicy::Redacted).expect("open");
            history.append_turn(&turn("c-1", 1, "first"), None).expect("append");
            history.add_grant(&grant).expect("grant");
            history
                .record_approval(&approval("a-1", "browser.click", json!({ "handleId": "laika-1" }), "ask", None))
                .expect("approval");
        }
        let history = History::open(&dir.db(), StoragePolicy::Redacted).expect("reopen");
        history.append_turn(&turn("c-1", 2, "second"), None).expect("append after reopen");
        let conversation = history.get("c-1").expect("get").expect("stored");
        assert_eq!(conversation.summary.turns, 2);
        let ids: Vec<&str> = conversation.messages.iter().filter_map(|m| m["id"].as_str()).collect();
        assert_eq!(ids, ["c-1-req-1", "c-1-res-1", "c-1-req-2", "c-1-res-2"]);
        assert_eq!(conversation.summary.title.as_deref(), Some("first"));
        assert_eq!(history.grants().expect("grants"), vec![grant]);
        assert_eq!(history.approval("a-1").expect("approval").expect("stored").tool_name, "browser.click");

        let conn = raw(&dir.db());
        let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).expect("journal_mode");
        assert_eq!(mode, "wal");
        assert_eq!(count(&conn, "PRAGMA user_version"), SCHEMA_VERSION);
    }

    #[test]
    fn redaction_keeps_digests_and_previews_but_never_page_text_or_form_values() {
        let dir = TempDir::new("redaction");
        let history = History::open(&dir.db(), StoragePolicy::Redacted).expect("open");
        let packets = turn("c-1", 1, "summarize this page");
        history.append_turn(&packets, None).expect("append");

        let conn = raw(&dir.db());
        let rows: Vec<String> = {
            let mut stmt = conn.prepare("SELECT packet_json FROM messages ORDER BY seq").expect("prepare");
            stmt.query_map([], |r| r.get(0)).expect("query").collect::<Result<_, _>>().expect("rows")
        };
        assert_eq!(rows.len(), 2);
        let all = rows.concat();
        for secret in [PAGE_TAIL, "PRIMARY-BODY-TEXT", "ELEMENT-TEXT", "hunter2-typed-secret", "card-4111"] {
            assert!(!all.contains(secret), "{secret} reached the disk");
        }
        assert!(all.contains("summarize this page"));

        let stored_request: Value = serde_json::from_str(&rows[0]).expect("json");
        let doc = &stored_request["context"]["documents"][0];
        assert_eq!(doc["doc_id"], "doc:web:summary");
        assert_eq!(doc["kind"], "web.observation.summary.v1");
        assert_eq!(doc["trust"], "untrusted");
        assert_eq!(doc["source"], json!({ "browser": "safari", "tab_id": "7" }));
        let content = &doc["content"];
        let keys: Vec<&String> = content.as_object().expect("object").keys().collect();
        let mut keys: Vec<&str> = keys.into_iter().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["chars", "digest", "doc_type", "preview", "title", "url"]);
        assert_eq!(content["doc_type"], "web.observation.summary.v1");
        assert_eq!(content["url"], "https://example.com/article");
        assert_eq!(content["title"], "Example article");
        let text = page_text();
        assert_eq!(content["chars"], json!(text.chars().count()));
        assert_eq!(content["chars"], json!(2005)); // 104 × 19 + 29: counted in chars, not bytes
        let preview = content["preview"].as_str().expect("preview");
        assert_eq!(preview.chars().count(), 281);
        assert!(preview.ends_with('…'));
        assert_eq!(preview.trim_end_matches('…'), text.chars().take(280).collect::<String>());

        // The digest is over the original content with keys sorted; recompute it independently
        // from a hand-written canonical string of the short chunk document.
        let chunk = &stored_request["context"]["documents"][1]["content"];
        let canonical = r#"{"chunk_count":1,"chunk_index":1,"doc_type":"web.observation.chunk.v1","text":"short chunk","title":"Example article","url":"https://example.com/article"}"#;
        let expected = format!("sha256:{:x}", ShaHex(Sha256::digest(canonical.as_bytes()).to_vec()));
        assert_eq!(chunk["digest"], json!(expected));
        assert_eq!(chunk["preview"], "short chunk", "a short text is kept whole, without an ellipsis");
        assert_eq!(chunk["chars"], 11);
        assert!(content["digest"].as_str().expect("digest").starts_with("sha256:"));
        assert_ne!(content["digest"], chunk["digest"]);

        let stored_response: Value = serde_json::from_str(&rows[1]).expect("json");
        assert_eq!(
            stored_response["tool_calls"],
            json!([
                { "name": "browser.type", "arguments": { "handleId": "laika-9", "text": "[redacted]" } },
                { "name": "browser.select", "arguments": { "handleId": "laika-10", "value": "[redacted]" } },
                { "name": "browser.click", "arguments": { "handleId": "laika-11" } }
            ])
        );
        assert_eq!(stored_response["assistant"], packets[1]["assistant"]);
        assert_eq!(stored_response["in_reply_to"], packets[1]["in_reply_to"]);
    }

    /// Lower-hex of bytes, written independently of the module's own helper.
    struct ShaHex(Vec<u8>);

    impl fmt::LowerHex for ShaHex {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
        }
    }

    #[test]
    fn the_digest_does_not_depend_on_key_order() {
        let a = json!({ "b": 1, "a": { "y": [1, 2], "x": "é" } });
        let mut reordered = Map::new();
        reordered.insert("a".into(), json!({ "x": "é", "y": [1, 2] }));
        reordered.insert("b".into(), json!(1));
        let b = Value::Object(reordered);
        assert_eq!(content_digest(&a)["digest"], content_digest(&b)["digest"]);
        assert_ne!(content_digest(&a)["digest"], content_digest(&json!({ "b": 2 }))["digest"]);
        let mut canonical = String::new();
        write_canonical_json(&a, &mut canonical);
        assert_eq!(canonical, r#"{"a":{"x":"é","y":[1,2]},"b":1}"#);
    }

    #[test]
    fn full_policy_stores_packets_unchanged() {
        let dir = TempDir::new("full");
        let history = History::open(&dir.db(), StoragePolicy::Full).expect("open");
        let packets = turn("c-1", 1, "summarize this page");
        history.append_turn(&packets, None).expect("append");
        assert_eq!(history.get("c-1").expect("get").expect("stored").messages, packets);
        let conn = raw(&dir.db());
        let all: String =
            conn.query_row("SELECT group_concat(packet_json, '') FROM messages", [], |r| r.get(0)).expect("rows");
        assert!(all.contains(PAGE_TAIL));
        assert!(all.contains("hunter2-typed-secret"));
        for packet in &packets {
            assert_eq!(&redact_packet(packet, StoragePolicy::Full), packet);
        }
        history
            .record_approval(&approval("a-1", "browser.type", json!({ "handleId": "h", "text": "typed" }), "ask", None))
            .expect("record");
        assert_eq!(history.approval("a-1").expect("get").expect("stored").arguments["text"], "typed");
        assert_eq!(history.stats().expect("stats")["policy"], "full");
    }

    #[test]
    fn a_user_version_0_database_with_the_spec_tables_is_migrated() {
        let dir = TempDir::new("migrate");
        std::fs::create_dir_all(dir.db().parent().expect("parent")).expect("mkdir");
        {
            // What an earlier prototype wrote: the spec's tables, no user_version.
            let conn = raw(&dir.db());
            conn.execute_batch(
                "CREATE TABLE conversations (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, title TEXT);
                 CREATE TABLE messages (
                     id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, turn INTEGER NOT NULL,
                     created_at TEXT NOT NULL, sender_role TEXT NOT NULL, packet_type TEXT NOT NULL,
                     in_reply_to_request_id TEXT, model_id TEXT, packet_json TEXT NOT NULL,
                     FOREIGN KEY(conversation_id) REFERENCES conversations(id));
                 CREATE INDEX idx_messages_conversation_turn ON messages(conversation_id, turn);
                 INSERT INTO conversations VALUES ('old', '2025-12-01T10:00:00.000Z', 'Old chat');
                 INSERT INTO messages VALUES ('old-2', 'old', 2, '2025-12-01T10:05:00.000Z', 'agent', 'request',
                     NULL, NULL, '{\"id\":\"old-2\",\"n\":2}');
                 INSERT INTO messages VALUES ('old-1', 'old', 1, '2025-12-01T10:01:00.000Z', 'agent', 'request',
                     NULL, NULL, '{\"id\":\"old-1\",\"n\":1}');",
            )
            .expect("old schema");
            assert_eq!(count(&conn, "PRAGMA user_version"), 0);
        }
        let history = History::open(&dir.db(), StoragePolicy::Redacted).expect("open migrates");
        assert_eq!(count(&raw(&dir.db()), "PRAGMA user_version"), SCHEMA_VERSION);

        let old = history.get("old").expect("get").expect("kept");
        assert_eq!(old.messages, vec![json!({ "id": "old-1", "n": 1 }), json!({ "id": "old-2", "n": 2 })]);
        assert_eq!(old.summary.title.as_deref(), Some("Old chat"));
        assert_eq!(old.summary.updated_at, "2025-12-01T10:05:00.000Z", "backfilled from the newest message");
        assert_eq!(old.summary.turns, 2);

        // New writes land after the old ones, in the list and inside the old conversation.
        history.append_turn(&turn("new", 1, "hello"), None).expect("append new");
        history.append_turn(&[request("old", 3, "old-3", "more")], None).expect("append old");
        let ids: Vec<String> = history.list(10, 0).expect("list").into_iter().map(|s| s.id).collect();
        assert_eq!(ids, ["old", "new"]);
        let old = history.get("old").expect("get").expect("kept");
        assert_eq!(old.messages.len(), 3);
        assert_eq!(old.messages[2]["id"], "old-3");
        assert_eq!(old.summary.title.as_deref(), Some("Old chat"), "an existing title is kept");
        assert_eq!(old.summary.url.as_deref(), Some("https://example.com/article"), "a missing url is filled in");
        history
            .add_grant(&SiteGrant { origin: "https://a.example".into(), capability: Capability::Type })
            .expect("grant");
        assert_eq!(history.stats().expect("stats")["grants"], 1);

        // Opening an up-to-date file again changes nothing.
        drop(history);
        let history = History::open(&dir.db(), StoragePolicy::Redacted).expect("reopen");
        assert_eq!(history.get("old").expect("get").expect("kept").messages.len(), 3);
    }

    #[test]
    fn a_newer_schema_is_refused_and_left_alone() {
        let dir = TempDir::new("too-new");
        drop(History::open(&dir.db(), StoragePolicy::Redacted).expect("create"));
        raw(&dir.db()).pragma_update(None, "user_version", SCHEMA_VERSION + 1).expect("bump");
        let err = History::open(&dir.db(), StoragePolicy::Redacted).err().expect("refused");
        assert_eq!(err.code, HistoryError::SCHEMA_TOO_NEW);
        assert!(err.to_string().starts_with("HISTORY_SCHEMA_TOO_NEW: "), "{err}");
        assert_eq!(count(&raw(&dir.db()), "PRAGMA user_version"), SCHEMA_VERSION + 1);
    }

    #[test]
    fn delete_removes_the_conversation_its_messages_and_its_approvals() {
        let dir = TempDir::new("delete");
        let history = History::open(&dir.db(), StoragePolicy::Redacted).expect("open");
        history.append_turn(&turn("c-1", 1, "one"), None).expect("append");
        history.append_turn(&turn("c-2", 1, "two"), None).expect("append");
        history.record_approval(&approval("a-1", "browser.click", json!({}), "ask", None)).expect("approval");
        let mut other = approval("a-2", "browser.click", json!({}), "ask", None);
        other.conversation_id = Some("c-2".into());
        history.record_approval(&other).expect("approval");

        assert!(history.delete("c-1").expect("delete"));
        let conn = raw(&dir.db());
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM messages WHERE conversation_id = 'c-1'"), 0);
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM conversations WHERE id = 'c-1'"), 0);
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM approvals WHERE conversation_id = 'c-1'"), 0);
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM messages"), 2, "the other conversation is untouched");
        assert_eq!(history.get("c-1").expect("get"), None);
        assert!(history.approval("a-2").expect("approval").is_some());
        assert!(!history.delete("c-1").expect("delete again"));
        // Deleted packet ids are free again.
        history.append_turn(&turn("c-1", 1, "again"), None).expect("append again");
        assert_eq!(history.get("c-1").expect("get").expect("stored").summary.title.as_deref(), Some("again"));
    }

    #[test]
    fn list_puts_the_newest_activity_first_and_pages() {
        let history = History::open_in_memory(StoragePolicy::Redacted).expect("open");
        for id in ["a", "b", "c"] {
            history.append_turn(&turn(id, 1, &format!("chat {id}")), None).expect("append");
        }
        history.append_turn(&turn("a", 2, "more"), None).expect("append");
        let ids = |limit, offset| -> Vec<String> {
            history.list(limit, offset).expect("list").into_iter().map(|s| s.id).collect()
        };
        assert_eq!(ids(10, 0), ["a", "c", "b"]);
        assert_eq!(ids(2, 0), ["a", "c"]);
        assert_eq!(ids(2, 1), ["c", "b"]);
        assert_eq!(ids(10, 3), Vec::<String>::new());
        assert_eq!(ids(0, 0), Vec::<String>::new());
        assert_eq!(ids(usize::MAX, usize::MAX), Vec::<String>::new());
        let first = &history.list(1, 0).expect("list")[0];
        assert_eq!(first.turns, 2);
        assert_eq!(first.title.as_deref(), Some("chat a"));
        assert!(first.updated_at >= first.created_at);
    }

    #[test]
    fn messages_come_back_by_turn_then_insertion() {
        let history = History::open_in_memory(StoragePolicy::Redacted).expect("open");
        history.append_turn(&turn("c", 2, "second"), None).expect("append");
        // A late turn 1, its response stored before its request.
        let mut late = turn("c", 1, "first");
        late.reverse();
        history.append_turn(&late, None).expect("append");
        let conversation = history.get("c").expect("get").expect("stored");
        let ids: Vec<&str> = conversation.messages.iter().filter_map(|m| m["id"].as_str()).collect();
        assert_eq!(ids, ["c-res-1", "c-req-1", "c-req-2", "c-res-2"]);
        assert_eq!(conversation.summary.title.as_deref(), Some("second"), "the title comes from the first turn stored");
        assert_eq!(history.last_turn("c").expect("last turn"), Some(2));
        assert_eq!(history.last_turn("unknown").expect("last turn"), None);
    }

    #[test]
    fn re_appending_a_turn_does_not_duplicate_it() {
        let history = History::open_in_memory(StoragePolicy::Redacted).expect("open");
        let packets = turn("c-1", 1, "hi");
        history.append_turn(&packets, None).expect("append");
        history.append_turn(&packets, None).expect("retry");
        assert_eq!(history.get("c-1").expect("get").expect("stored").messages.len(), 2);
        assert_eq!(history.stats().expect("stats")["messages"], 2);
        // The same id in another conversation is a bad packet, not a silent drop.
        let mut stolen = packets[0].clone();
        stolen["conversation"]["id"] = json!("c-2");
        let err = history.append_turn(&[stolen], None).expect_err("collision");
        assert_eq!(err.code, HistoryError::BAD_PACKET);
        assert_eq!(history.get("c-2").expect("get"), None);
    }

    #[test]
    fn a_bad_packet_stores_nothing_of_its_turn() {
        let dir = TempDir::new("bad-packet");
        let history = History::open(&dir.db(), StoragePolicy::Redacted).expect("open");
        let good = turn("c-1", 1, "hi");
        let mut missing_role = good[1].clone();
        missing_role["sender"] = json!({});
        let mut negative_turn = good[1].clone();
        negative_turn["conversation"]["turn"] = json!(-1);
        let mut string_turn = good[1].clone();
        string_turn["conversation"]["turn"] = json!("1");
        let mut no_id = good[1].clone();
        no_id.as_object_mut().expect("object").remove("id");
        let mut other_conversation = good[1].clone();
        other_conversation["conversation"]["id"] = json!("c-9");
        for bad in [json!("not an object"), missing_role, negative_turn, string_turn, no_id, other_conversation] {
            let err = history.append_turn(&[good[0].clone(), bad.clone()], None).expect_err("bad packet");
            assert_eq!(err.code, HistoryError::BAD_PACKET, "{bad}");
            assert!(err.message.starts_with("packet 1: "), "{}", err.message);
        }

        // A failure found only inside the transaction (an id owned by another conversation, known
        // only to the database) must roll back the packets already inserted before it.
        history.append_turn(&turn("other", 1, "x"), None).expect("append other");
        let mut clash = good[1].clone();
        clash["id"] = json!("other-req-1");
        let err = history.append_turn(&[good[0].clone(), clash], None).expect_err("clash");
        assert_eq!(err.code, HistoryError::BAD_PACKET);

        let conn = raw(&dir.db());
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM messages WHERE conversation_id = 'c-1'"), 0);
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM conversations WHERE id = 'c-1'"), 0);
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM messages"), 2);
        history.append_turn(&good, None).expect("the good turn alone still goes in");
        assert_eq!(history.get("c-1").expect("get").expect("stored").messages.len(), 2);
        history.append_turn(&[], None).expect("an empty turn is a no-op");
    }

    #[test]
    fn titles_fall_back_to_the_page_title_and_are_clipped() {
        let history = History::open_in_memory(StoragePolicy::Redacted).expect("open");
        let mut no_message = request("p", 1, "p-1", "");
        no_message["input"].as_object_mut().expect("input").remove("user_message");
        history.append_turn(&[no_message], None).expect("append");
        assert_eq!(history.get("p").expect("get").expect("stored").summary.title.as_deref(), Some("Example article"));

        let long = "ä".repeat(130);
        history.append_turn(&[request("l", 1, "l-1", &long)], None).expect("append");
        let title = history.get("l").expect("get").expect("stored").summary.title.expect("title");
        assert_eq!(title.chars().count(), 120);
        assert_eq!(title, format!("{}…", "ä".repeat(119)));

        let mut bare = request("n", 1, "n-1", "");
        bare.as_object_mut().expect("packet").remove("context");
        history.append_turn(&[bare], None).expect("append");
        let summary = history.get("n").expect("get").expect("stored").summary;
        assert_eq!((summary.title, summary.url), (None, None));
    }

    #[test]
    fn export_has_the_documented_shape() {
        let history = History::open_in_memory(StoragePolicy::Redacted).expect("open");
        history.append_turn(&turn("a", 1, "first chat"), None).expect("append");
        history.append_turn(&turn("b", 1, "second chat"), None).expect("append");

        let all = history.export(None).expect("export");
        assert_eq!(all["format"], "laika.history.v1");
        assert!(is_rfc3339_millis_utc(all["exported_at"].as_str().expect("exported_at")));
        let conversations = all["conversations"].as_array().expect("array");
        assert_eq!(conversations.len(), 2);
        assert_eq!(conversations[0]["id"], "b");
        assert_eq!(conversations[1]["id"], "a");
        let a = &conversations[1];
        let mut keys: Vec<&str> = a.as_object().expect("object").keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["created_at", "id", "messages", "title", "turns", "updated_at", "url"]);
        assert_eq!(a["title"], "first chat");
        assert_eq!(a["turns"], 1);
        assert_eq!(a["messages"][0]["id"], "a-req-1");
        assert_eq!(a["messages"][1]["tool_calls"][0]["arguments"]["text"], "[redacted]");

        let one = history.export(Some("a")).expect("export one");
        assert_eq!(one["conversations"].as_array().expect("array").len(), 1);
        assert_eq!(one["conversations"][0], *a);
        assert_eq!(history.export(Some("zzz")).expect_err("unknown").code, HistoryError::NOT_FOUND);
        let empty = History::open_in_memory(StoragePolicy::Redacted).expect("open").export(None).expect("export");
        assert_eq!(empty["conversations"], json!([]));
    }

    #[test]
    fn approvals_are_recorded_redacted_and_decided_once() {
        let history = History::open_in_memory(StoragePolicy::Redacted).expect("open");
        let record = approval(
            "a-1",
            "browser.type",
            json!({ "handleId": "laika-3", "text": "my address" }),
            "ask",
            Some("type"),
        );
        history.record_approval(&record).expect("record");
        let stored = history.approval("a-1").expect("get").expect("stored");
        assert_eq!(stored.arguments, json!({ "handleId": "laika-3", "text": "[redacted]" }));
        assert_eq!(stored.decision, None);
        assert_eq!(ApprovalRecord { arguments: record.arguments.clone(), ..stored.clone() }, record);
        assert_eq!(history.stats().expect("stats")["pending_approvals"], 1);
        assert_eq!(history.record_approval(&record).expect_err("duplicate").code, HistoryError::BAD_APPROVAL);

        let decided = history.decide_approval("a-1", "approve").expect("decide");
        assert_eq!(decided.decision.as_deref(), Some("approve"));
        assert!(is_rfc3339_millis_utc(decided.decided_at.as_deref().expect("decided_at")));
        assert_eq!(history.approval("a-1").expect("get").expect("stored"), decided);
        assert_eq!(history.stats().expect("stats")["pending_approvals"], 0);
        let again = history.decide_approval("a-1", "deny").expect_err("decided twice");
        assert_eq!(again.code, HistoryError::ALREADY_DECIDED);
        assert_eq!(history.approval("a-1").expect("get").expect("stored").decision.as_deref(), Some("approve"));

        assert_eq!(history.decide_approval("missing", "approve").expect_err("unknown").code, HistoryError::NOT_FOUND);
        assert_eq!(history.approval("missing").expect("get"), None);
        history.record_approval(&approval("a-2", "browser.click", json!({}), "ask", None)).expect("record");
        assert_eq!(history.decide_approval("a-2", "maybe").expect_err("bad word").code, HistoryError::BAD_DECISION);
        // Nothing was offered to grant, so "always" is refused and the card stays pending.
        let no_grant = history.decide_approval("a-2", "always_on_site").expect_err("no grant offered");
        assert_eq!(no_grant.code, HistoryError::BAD_DECISION);
        assert_eq!(history.approval("a-2").expect("get").expect("stored").decision, None);
        assert_eq!(history.decide_approval("a-2", "deny").expect("deny").decision.as_deref(), Some("deny"));

        // A deny from the gate can never be turned into an approval.
        history.record_approval(&approval("a-3", "browser.type", json!({}), "deny", None)).expect("record");
        assert_eq!(history.decide_approval("a-3", "approve").expect_err("deny").code, HistoryError::BAD_DECISION);

        let mut bad = approval("a-4", "browser.click", json!({}), "maybe", None);
        assert_eq!(history.record_approval(&bad).expect_err("verdict").code, HistoryError::BAD_APPROVAL);
        bad.verdict = "ask".into();
        bad.grantable = Some("teleport".into());
        assert_eq!(history.record_approval(&bad).expect_err("capability").code, HistoryError::BAD_APPROVAL);
        assert_eq!(history.approval("a-4").expect("get"), None);
    }

    #[test]
    fn always_on_site_stores_the_offered_grant() {
        let history = History::open_in_memory(StoragePolicy::Redacted).expect("open");
        history.record_approval(&approval("a-1", "browser.click", json!({}), "ask", Some("click"))).expect("record");
        let decided = history.decide_approval("a-1", "always_on_site").expect("decide");
        assert_eq!(decided.decision.as_deref(), Some("always_on_site"));
        assert_eq!(
            history.grants().expect("grants"),
            vec![SiteGrant { origin: "https://shop.example".into(), capability: Capability::Click }]
        );
    }

    #[test]
    fn grants_are_added_idempotently_and_removed() {
        let history = History::open_in_memory(StoragePolicy::Redacted).expect("open");
        let click = SiteGrant { origin: "https://shop.example".into(), capability: Capability::Click };
        let open_tab = SiteGrant { origin: "https://shop.example".into(), capability: Capability::OpenTab };
        let other = SiteGrant { origin: "http://localhost:8080".into(), capability: Capability::Navigate };
        history.add_grant(&click).expect("add");
        history.add_grant(&click).expect("add again");
        history.add_grant(&open_tab).expect("add");
        history.add_grant(&other).expect("add");
        assert_eq!(history.grants().expect("grants"), vec![other.clone(), click.clone(), open_tab.clone()]);
        assert_eq!(history.stats().expect("stats")["grants"], 3);
        let conn = history.lock();
        let stored: String = conn
            .query_row("SELECT capability FROM site_grants WHERE capability LIKE 'open%'", [], |r| r.get(0))
            .expect("row");
        assert_eq!(stored, "open_tab", "capabilities are stored by their serde names");
        drop(conn);

        assert!(history.remove_grant(&click).expect("remove"));
        assert!(!history.remove_grant(&click).expect("remove again"));
        assert_eq!(history.grants().expect("grants"), vec![other, open_tab]);

        for origin in ["https://shop.example/", "shop.example", "javascript:alert(1)", "HTTPS://Shop.Example", ""] {
            let grant = SiteGrant { origin: origin.into(), capability: Capability::Click };
            assert_eq!(history.add_grant(&grant).expect_err(origin).code, HistoryError::BAD_GRANT, "{origin}");
        }
        assert_eq!(history.grants().expect("grants").len(), 2);
    }

    #[test]
    fn stats_count_what_is_stored() {
        let history = History::open_in_memory(StoragePolicy::Redacted).expect("open");
        history.append_turn(&turn("a", 1, "x"), None).expect("append");
        history.append_turn(&turn("a", 2, "y"), None).expect("append");
        history.append_turn(&turn("b", 1, "z"), None).expect("append");
        history.record_approval(&approval("a-1", "browser.click", json!({}), "allow", None)).expect("record");
        let stats = history.stats().expect("stats");
        assert_eq!(stats["schema_version"], SCHEMA_VERSION);
        assert_eq!(stats["policy"], "redacted");
        assert_eq!(stats["conversations"], 2);
        assert_eq!(stats["messages"], 6);
        assert_eq!(stats["approvals"], 1);
        assert_eq!(stats["pending_approvals"], 0);
        assert_eq!(stats["grants"], 0);
        assert!(stats["bytes"].as_i64().expect("bytes") > 0);
    }

    #[test]
    fn concurrent_appends_from_threads_all_land() {
        let dir = TempDir::new("threads");
        let history = Arc::new(History::open(&dir.db(), StoragePolicy::Redacted).expect("open"));
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let history = Arc::clone(&history);
                std::thread::spawn(move || {
                    for n in 1..=5 {
                        history.append_turn(&turn(&format!("t{t}"), n, "hi"), None).expect("append");
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("thread");
        }
        assert_eq!(history.stats().expect("stats")["messages"], 40);
        assert!(history.list(10, 0).expect("list").iter().all(|s| s.turns == 5));
    }

    #[test]
    fn redact_packet_leaves_other_tools_and_odd_shapes_alone() {
        let packet = json!({
            "id": "p", "type": "response",
            "tool_calls": [
                { "name": "artifact.save", "arguments": { "title": "t", "text": "model-written notes" } },
                { "name": "browser.type" },
                "not a call",
                { "name": "browser.select", "arguments": { "handleId": "h" } }
            ],
            "context": { "documents": [{ "doc_id": "d", "kind": "x" }, "odd", { "doc_id": "s", "content": "raw string" }] }
        });
        let out = redact_packet(&packet, StoragePolicy::Redacted);
        assert_eq!(out["tool_calls"], packet["tool_calls"]);
        assert_eq!(out["context"]["documents"][0], packet["context"]["documents"][0]);
        assert_eq!(out["context"]["documents"][1], "odd");
        let content = &out["context"]["documents"][2]["content"];
        assert_eq!(content["chars"], 10);
        assert_eq!(content["preview"], "raw string");
        assert!(content["digest"].as_str().expect("digest").starts_with("sha256:"));
        assert_eq!(
            redact_tool_arguments("browser.select", &json!({ "handleId": "h", "value": "v" }), StoragePolicy::Redacted),
            json!({ "handleId": "h", "value": "[redacted]" })
        );
    }
}
