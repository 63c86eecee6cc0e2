//! What the host's SQLite files share (the history, the notebook): how a connection is set up
//! and how a schema is brought up to date by numbered migrations in `PRAGMA user_version`.

use rusqlite::{Connection, TransactionBehavior};
use std::time::Duration;

/// How long a write waits for another connection's (a second host process, a sqlite3 shell).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Durable settings for a fresh connection. WAL lets readers work while a write is in progress;
/// in WAL mode only `synchronous=FULL` syncs the log on every commit, which is what makes a
/// committed write survive a power cut rather than just a crash.
pub fn setup(conn: &Connection, what: &str) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") && !mode.eq_ignore_ascii_case("memory") {
        tracing::warn!(journal_mode = %mode, "{what}: the file system refused WAL mode");
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", true)
}

#[derive(Debug)]
pub enum MigrateError {
    /// The file was written by a newer Laika: refused rather than guessed at.
    TooNew {
        found: i64,
        known: i64,
    },
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for MigrateError {
    fn from(e: rusqlite::Error) -> Self {
        MigrateError::Sql(e)
    }
}

/// Applies `migrations[v]` for every version `v` from the file's `user_version` up, each in a
/// transaction of its own together with the version it reaches (`user_version` lives in the
/// database header, which is part of the transaction). The version is read inside the write
/// transaction, so two host processes opening the file at once cannot both apply a migration.
pub fn migrate(conn: &mut Connection, migrations: &[&str]) -> Result<(), MigrateError> {
    let known = migrations.len() as i64;
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > known {
            return Err(MigrateError::TooNew { found: version, known });
        }
        let Some(migration) = usize::try_from(version).ok().and_then(|v| migrations.get(v)) else {
            // Up to date (a negative user_version, never written by Laika, falls through to here
            // too and is left alone rather than migrated blindly).
            return Ok(());
        };
        tx.execute_batch(migration)?;
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
    }
}

/// Now, RFC 3339 in UTC with milliseconds (`2026-01-24T12:34:56.789Z`), like packet timestamps.
pub fn now_rfc3339() -> String {
    let t = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}
