//! Every call, written down: which service and endpoint, who called (the sidecar, the model
//! through the gate, an HTTP client), how long it took and how it ended. Never the input or the
//! output: those are the user's data, and the audit log is for seeing what ran.

use rusqlite::{Connection, params};
use std::path::Path;
use std::sync::Mutex;

pub struct Audit {
    db: Mutex<Connection>,
}

/// One row of the log.
#[derive(Debug, serde::Serialize)]
pub struct Entry {
    pub at_ms: i64,
    pub service: String,
    pub endpoint: String,
    pub caller: String,
    pub duration_ms: f64,
    /// 0 for success, else the error code.
    pub code: i64,
}

impl Audit {
    pub fn open(path: &Path) -> rusqlite::Result<Audit> {
        let db = Connection::open(path)?;
        db.pragma_update(None, "journal_mode", "WAL")?;
        // A call's row is committed without waiting for the disk (WAL + NORMAL: a crash of the
        // daemon loses nothing, a power cut may lose the last rows): a synced commit per call
        // cost more than running the handler (`cargo xtask bench lavs`).
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS calls (
               at_ms INTEGER NOT NULL, service TEXT NOT NULL, endpoint TEXT NOT NULL, caller TEXT NOT NULL,
               duration_ms REAL NOT NULL, code INTEGER NOT NULL);
             CREATE INDEX IF NOT EXISTS calls_by_time ON calls (at_ms);",
        )?;
        Ok(Audit { db: Mutex::new(db) })
    }

    pub fn record(&self, service: &str, endpoint: &str, caller: &str, duration_ms: f64, code: i64) {
        let at_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        let db = self.db.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(error) = db.execute(
            "INSERT INTO calls (at_ms, service, endpoint, caller, duration_ms, code) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![at_ms, service, endpoint, caller, duration_ms, code],
        ) {
            tracing::warn!("lavs: a call could not be audited: {error}");
        }
    }

    /// The latest `limit` calls, newest first.
    pub fn recent(&self, limit: usize) -> rusqlite::Result<Vec<Entry>> {
        let db = self.db.lock().unwrap_or_else(|e| e.into_inner());
        let mut statement = db.prepare(
            "SELECT at_ms, service, endpoint, caller, duration_ms, code FROM calls ORDER BY at_ms DESC, rowid DESC LIMIT ?1",
        )?;
        let rows = statement.query_map([limit as i64], |r| {
            Ok(Entry {
                at_ms: r.get(0)?,
                service: r.get(1)?,
                endpoint: r.get(2)?,
                caller: r.get(3)?,
                duration_ms: r.get(4)?,
                code: r.get(5)?,
            })
        })?;
        rows.collect()
    }
}
