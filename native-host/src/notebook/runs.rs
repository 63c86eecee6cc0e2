//! The Librarian's runs in the notebook's file: each run's record (prompt-pack hashes, every
//! attempt's raw model text, the parsed response), and each operation it proposed with its
//! approval and what became of it (`proposed`, `applied`, `rejected`, `failed`, `deferred`).

use super::{Notebook, NotebookError};
use crate::sqlite::now_rfc3339;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use serde_json::Value;

/// One proposed operation as stored.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StoredOperation {
    pub run_id: String,
    pub operation_id: String,
    pub operation: Value,
    pub approval_id: Option<String>,
    pub state: String,
    pub result: Option<Value>,
}

impl Notebook {
    /// Stores a run's record and the operations it proposes, in one transaction.
    pub fn record_run(
        &self,
        id: &str,
        goal: &str,
        scope: &str,
        status: &str,
        record: &Value,
        operations: &[(String, Value, Option<String>, &str)],
    ) -> Result<(), NotebookError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO librarian_runs (id, created_at, goal, scope, status, record_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, now_rfc3339(), goal, scope, status, record.to_string()],
        )?;
        for (operation_id, operation, approval_id, state) in operations {
            tx.execute(
                "INSERT INTO librarian_operations (run_id, operation_id, operation_json, approval_id, state)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, operation_id, operation.to_string(), approval_id, state],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// A run's record with its operations' current states.
    pub fn run_record(&self, id: &str) -> Result<Option<Value>, NotebookError> {
        let conn = self.lock();
        let Some(record) = conn
            .query_row("SELECT record_json FROM librarian_runs WHERE id = ?1", [id], |r| r.get::<_, String>(0))
            .optional()?
        else {
            return Ok(None);
        };
        let mut record: Value = serde_json::from_str(&record)?;
        drop(conn);
        record["operations"] = serde_json::to_value(self.operations(id)?)?;
        Ok(Some(record))
    }

    /// Recent runs, newest first: id, when, goal, scope, status.
    pub fn runs(&self, limit: usize) -> Result<Vec<Value>, NotebookError> {
        let conn = self.lock();
        let mut statement = conn
            .prepare("SELECT id, created_at, goal, scope, status FROM librarian_runs ORDER BY rowid DESC LIMIT ?1")?;
        let rows = statement.query_map([limit as i64], |r| {
            Ok(serde_json::json!({
                "id": r.get::<_, String>(0)?, "created_at": r.get::<_, String>(1)?, "goal": r.get::<_, String>(2)?,
                "scope": r.get::<_, String>(3)?, "status": r.get::<_, String>(4)?,
            }))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn operations(&self, run_id: &str) -> Result<Vec<StoredOperation>, NotebookError> {
        let conn = self.lock();
        let mut statement = conn.prepare(
            "SELECT run_id, operation_id, operation_json, approval_id, state, result_json FROM librarian_operations
             WHERE run_id = ?1 ORDER BY rowid",
        )?;
        let rows = statement.query_map([run_id], row)?.collect::<Result<Vec<_>, _>>()?;
        rows.into_iter().map(decode).collect()
    }

    /// The operation an approval was asked for.
    pub fn operation_for_approval(&self, approval_id: &str) -> Result<Option<StoredOperation>, NotebookError> {
        let conn = self.lock();
        let found = conn
            .query_row(
                "SELECT run_id, operation_id, operation_json, approval_id, state, result_json FROM librarian_operations
                 WHERE approval_id = ?1",
                [approval_id],
                row,
            )
            .optional()?;
        found.map(decode).transpose()
    }

    /// Moves a `proposed` operation to `state` with its result; false when it was not proposed
    /// any more (another answer got there first).
    pub fn settle_operation(
        &self,
        run_id: &str,
        operation_id: &str,
        state: &str,
        result: &Value,
    ) -> Result<bool, NotebookError> {
        let changed = self.lock().execute(
            "UPDATE librarian_operations SET state = ?3, result_json = ?4
             WHERE run_id = ?1 AND operation_id = ?2 AND state = 'proposed'",
            params![run_id, operation_id, state, result.to_string()],
        )?;
        Ok(changed == 1)
    }
}

type Row = (String, String, String, Option<String>, String, Option<String>);

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
}

fn decode(
    (run_id, operation_id, operation, approval_id, state, result): Row,
) -> Result<StoredOperation, NotebookError> {
    Ok(StoredOperation {
        run_id,
        operation_id,
        operation: serde_json::from_str(&operation)?,
        approval_id,
        state,
        result: result.map(|r| serde_json::from_str(&r)).transpose()?,
    })
}
