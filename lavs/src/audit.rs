//! Every call, written down: which service and endpoint, who called (the sidecar, the model
//! through the gate, an HTTP client), how long it took and how it ended. Never the input or the
//! output: those are the user's data, and the audit log is for seeing what ran.
//!
//! The rows are written by a thread of their own, in the order the calls ended, gathered for
//! 20 ms (`BATCH_WINDOW`) and written in one transaction: a call queues its row and answers at once
//! instead of waiting for SQLite. A read goes through the same queue, so it sees every call that
//! ended before it. What a crash of the daemon can lose is the rows of the last batch window.

use rusqlite::{Connection, params};
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;

/// How long the writer gathers rows before writing them (a crash of the daemon loses at most
/// this much of the log; a read does not wait for it).
const BATCH_WINDOW: std::time::Duration = std::time::Duration::from_millis(20);

/// What the writer thread is asked to do, in order.
enum Job {
    Record(Entry),
    Recent(usize, mpsc::SyncSender<rusqlite::Result<Vec<Entry>>>),
}

/// Why the log could not be opened or read.
#[derive(Debug)]
pub enum AuditError {
    Sqlite(rusqlite::Error),
    /// The writer thread could not be started, or has ended.
    WriterStopped,
}

impl std::fmt::Display for AuditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditError::Sqlite(error) => write!(f, "the audit log: {error}"),
            AuditError::WriterStopped => f.write_str("the audit log's writer is not running"),
        }
    }
}

impl std::error::Error for AuditError {}

impl From<rusqlite::Error> for AuditError {
    fn from(error: rusqlite::Error) -> AuditError {
        AuditError::Sqlite(error)
    }
}

pub struct Audit {
    jobs: Option<mpsc::Sender<Job>>,
    writer: Option<JoinHandle<()>>,
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
    pub fn open(path: &Path) -> Result<Audit, AuditError> {
        let db = Connection::open(path)?;
        db.pragma_update(None, "journal_mode", "WAL")?;
        // A row is committed without waiting for the disk (WAL + NORMAL: a power cut may lose
        // the last rows): a synced commit per call cost more than running the handler.
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS calls (
               at_ms INTEGER NOT NULL, service TEXT NOT NULL, endpoint TEXT NOT NULL, caller TEXT NOT NULL,
               duration_ms REAL NOT NULL, code INTEGER NOT NULL);
             CREATE INDEX IF NOT EXISTS calls_by_time ON calls (at_ms);",
        )?;
        let (jobs, queue) = mpsc::channel();
        let writer = std::thread::Builder::new()
            .name("lavs-audit".into())
            .spawn(move || write_rows(db, queue))
            .map_err(|_| AuditError::WriterStopped)?;
        Ok(Audit { jobs: Some(jobs), writer: Some(writer) })
    }

    /// Queues the row of a call that has ended.
    pub fn record(&self, service: &str, endpoint: &str, caller: &str, duration_ms: f64, code: i64) {
        let at_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        let entry = Entry {
            at_ms,
            service: service.to_string(),
            endpoint: endpoint.to_string(),
            caller: caller.to_string(),
            duration_ms,
            code,
        };
        if self.jobs.as_ref().is_none_or(|jobs| jobs.send(Job::Record(entry)).is_err()) {
            tracing::warn!("lavs: a call could not be audited: the audit writer has stopped");
        }
    }

    /// The latest `limit` calls, newest first (every call that ended before this one included).
    pub fn recent(&self, limit: usize) -> Result<Vec<Entry>, AuditError> {
        let (reply, answer) = mpsc::sync_channel(1);
        let jobs = self.jobs.as_ref().ok_or(AuditError::WriterStopped)?;
        jobs.send(Job::Recent(limit, reply)).map_err(|_| AuditError::WriterStopped)?;
        Ok(answer.recv().map_err(|_| AuditError::WriterStopped)??)
    }
}

impl Drop for Audit {
    /// Every queued row is written before the runtime is gone.
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The writer thread: rows queued together are written in one transaction.
fn write_rows(db: Connection, queue: mpsc::Receiver<Job>) {
    while let Ok(first) = queue.recv() {
        if matches!(first, Job::Record(_)) {
            // Rows that come within the batch window are written together, and queuing them
            // does not wake this thread: on a busy machine the insert no longer competes with
            // the calls themselves for the CPU.
            std::thread::sleep(BATCH_WINDOW);
        }
        let mut rows = Vec::new();
        let mut next = Some(first);
        while let Some(job) = next.take() {
            match job {
                Job::Record(entry) => rows.push(entry),
                Job::Recent(limit, reply) => {
                    insert(&db, &mut rows);
                    let _ = reply.send(read_recent(&db, limit));
                }
            }
            next = queue.try_recv().ok();
        }
        insert(&db, &mut rows);
    }
}

fn insert(db: &Connection, rows: &mut Vec<Entry>) {
    if rows.is_empty() {
        return;
    }
    let written = (|| {
        let batch = db.unchecked_transaction()?;
        {
            let mut statement = batch.prepare_cached(
                "INSERT INTO calls (at_ms, service, endpoint, caller, duration_ms, code) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for row in rows.iter() {
                statement.execute(params![
                    row.at_ms,
                    row.service,
                    row.endpoint,
                    row.caller,
                    row.duration_ms,
                    row.code
                ])?;
            }
        }
        batch.commit()
    })();
    if let Err(error) = written {
        tracing::warn!("lavs: {} calls could not be audited: {error}", rows.len());
    }
    rows.clear();
}

fn read_recent(db: &Connection, limit: usize) -> rusqlite::Result<Vec<Entry>> {
    let mut statement = db.prepare_cached(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_sees_every_call_recorded_before_it_and_closing_writes_the_rest() {
        let dir = std::env::temp_dir().join(format!("lavs-audit-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("audit.sqlite3");
        let audit = Audit::open(&path).unwrap();
        for (endpoint, code) in [("list", 0), ("add", -32602), ("remove", 0)] {
            audit.record("todo", endpoint, "http", 1.5, code);
        }
        let recent = audit.recent(2).unwrap();
        let seen: Vec<(&str, i64)> = recent.iter().map(|e| (e.endpoint.as_str(), e.code)).collect();
        assert_eq!(seen, [("remove", 0), ("add", -32602)]);

        audit.record("todo", "list", "sidecar", 0.5, 0);
        drop(audit);
        let reopened = Audit::open(&path).unwrap();
        let all = reopened.recent(10).unwrap();
        assert_eq!(all.len(), 4);
        assert_eq!((all[0].endpoint.as_str(), all[0].caller.as_str()), ("list", "sidecar"));
        drop(reopened);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
