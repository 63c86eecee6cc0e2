//! The notebook's file (`notebook.sqlite3` in the data directory): notes with every version they
//! had, and the Librarian's runs with the operations they proposed.
//!
//! Every change to a note writes the note's whole new state as a version, together with what made
//! it (`artifact.save`, a Librarian operation, an undo). Undo restores the state before the latest
//! change not yet undone, as a new version, so nothing is ever lost and undo can go back step by
//! step; undoing a note's creation removes it from the lists (its versions stay).

use super::{Note, NoteChange, NoteSource, NoteState, NoteVersion, NotebookError};
use crate::sqlite::{MigrateError, now_rfc3339};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde_json::Value;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

const MIGRATIONS: &[&str] = &[
    // 1: notes and their versions; the Librarian's runs and proposed operations.
    "CREATE TABLE notes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        title TEXT NOT NULL,
        body_markdown TEXT NOT NULL,
        doc_json TEXT,
        tags_json TEXT NOT NULL,
        path TEXT,
        links_json TEXT NOT NULL,
        sources_json TEXT NOT NULL,
        redaction TEXT NOT NULL,
        version INTEGER NOT NULL,
        deleted INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE note_versions (
        note_seq INTEGER NOT NULL REFERENCES notes(seq),
        version INTEGER NOT NULL,
        state_json TEXT NOT NULL,
        change_json TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        PRIMARY KEY (note_seq, version)
    );
    CREATE TABLE librarian_runs (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        goal TEXT NOT NULL,
        scope TEXT NOT NULL,
        status TEXT NOT NULL,
        record_json TEXT NOT NULL
    );
    CREATE TABLE librarian_operations (
        run_id TEXT NOT NULL REFERENCES librarian_runs(id),
        operation_id TEXT NOT NULL,
        operation_json TEXT NOT NULL,
        approval_id TEXT UNIQUE,
        state TEXT NOT NULL,
        result_json TEXT,
        PRIMARY KEY (run_id, operation_id)
    );",
    // 2: collections and their sources (`collection.source.v1` documents once captured).
    "CREATE TABLE collections (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        title TEXT NOT NULL,
        tags_json TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE sources (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        collection_seq INTEGER NOT NULL REFERENCES collections(seq),
        kind TEXT NOT NULL,
        url TEXT NOT NULL,
        title TEXT NOT NULL,
        status TEXT NOT NULL,
        document_json TEXT,
        error TEXT,
        created_at TEXT NOT NULL,
        captured_at TEXT
    );
    CREATE INDEX sources_by_collection ON sources(collection_seq);",
];

pub struct Notebook {
    conn: Mutex<Connection>,
}

/// The prefix of note ids: `note_12`. Short on purpose: the Librarian's small model copies ids
/// into its operations, and a short id is copied right.
const NOTE_PREFIX: &str = "note_";

pub fn note_id(seq: i64) -> String {
    format!("{NOTE_PREFIX}{seq}")
}

fn note_seq(id: &str) -> Option<i64> {
    id.strip_prefix(NOTE_PREFIX)?.parse().ok().filter(|n| *n > 0)
}

impl Notebook {
    /// Opens (creating if needed) the notebook at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Notebook, NotebookError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| NotebookError::io(format!("cannot create {}: {e}", parent.display())))?;
        }
        Notebook::setup(Connection::open(path)?)
    }

    pub fn open_in_memory() -> Result<Notebook, NotebookError> {
        Notebook::setup(Connection::open_in_memory()?)
    }

    fn setup(mut conn: Connection) -> Result<Notebook, NotebookError> {
        crate::sqlite::setup(&conn, "notebook")?;
        crate::sqlite::migrate(&mut conn, MIGRATIONS).map_err(|e| match e {
            MigrateError::TooNew { found, known } => NotebookError::new(
                NotebookError::SCHEMA_TOO_NEW,
                format!("the notebook file has schema version {found}; this Laika knows up to {known}"),
            ),
            MigrateError::Sql(e) => e.into(),
        })?;
        Ok(Notebook { conn: Mutex::new(conn) })
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while the lock was held rolled its transaction back; the connection is sound.
        self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Stores a new note (already redacted as its `redaction` says) as version 1.
    pub fn create(
        &self,
        state: &NoteState,
        sources: &[NoteSource],
        redaction: &str,
        change: &NoteChange,
    ) -> Result<Note, NotebookError> {
        state.check()?;
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // The row holds what never changes; its state is written as version 1 the way every
        // later version is.
        tx.execute(
            "INSERT INTO notes (title, body_markdown, tags_json, links_json, sources_json, redaction, version,
                 created_at, updated_at)
             VALUES ('', '', '[]', '[]', ?1, ?2, 0, ?3, ?3)",
            params![serde_json::to_string(sources)?, redaction, now_rfc3339()],
        )?;
        let seq = tx.last_insert_rowid();
        write_state(&tx, seq, 1, state, false, change)?;
        let note = load(&tx, seq)?.ok_or_else(|| NotebookError::io("a note just written is missing"))?;
        tx.commit()?;
        Ok(note)
    }

    /// A note, deleted or not (`None` for an id that never existed).
    pub fn get(&self, id: &str) -> Result<Option<Note>, NotebookError> {
        let Some(seq) = note_seq(id) else { return Ok(None) };
        load(&self.lock(), seq)
    }

    /// A note that exists and is not deleted, or `NOTEBOOK_NOT_FOUND`.
    pub fn live(&self, id: &str) -> Result<Note, NotebookError> {
        self.get(id)?.filter(|n| !n.deleted).ok_or_else(|| NotebookError::not_found(id))
    }

    /// Notes not deleted, most recently changed first; with `tag`, only those carrying it.
    pub fn list(&self, tag: Option<&str>, limit: usize) -> Result<Vec<Note>, NotebookError> {
        let conn = self.lock();
        let mut statement = conn.prepare(
            "SELECT seq FROM notes WHERE deleted = 0
             ORDER BY (SELECT MAX(rowid) FROM note_versions WHERE note_seq = notes.seq) DESC",
        )?;
        let seqs: Vec<i64> = statement.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
        let mut out = vec![];
        for seq in seqs {
            let Some(note) = load(&conn, seq)? else { continue };
            if tag.is_none_or(|t| note.state.tags.iter().any(|x| x.eq_ignore_ascii_case(t))) {
                out.push(note);
            }
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    /// Replaces a live note's state (a new version). With `expected_version`, a note changed
    /// since it was read is refused with `NOTEBOOK_CONFLICT` rather than overwritten.
    pub fn update(
        &self,
        id: &str,
        expected_version: Option<i64>,
        edit: impl FnOnce(&mut NoteState),
        change: &NoteChange,
    ) -> Result<Note, NotebookError> {
        let seq = note_seq(id).ok_or_else(|| NotebookError::not_found(id))?;
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let note = load(&tx, seq)?.filter(|n| !n.deleted).ok_or_else(|| NotebookError::not_found(id))?;
        if let Some(expected) = expected_version.filter(|v| *v != note.version) {
            return Err(NotebookError::new(
                NotebookError::CONFLICT,
                format!("{id} is at version {} now, not {expected}: it changed since it was read", note.version),
            ));
        }
        let mut state = note.state.clone();
        edit(&mut state);
        state.check()?;
        write_state(&tx, seq, note.version + 1, &state, false, change)?;
        let note = load(&tx, seq)?.ok_or_else(|| NotebookError::not_found(id))?;
        tx.commit()?;
        Ok(note)
    }

    /// Every version of a note, oldest first.
    pub fn versions(&self, id: &str) -> Result<Vec<NoteVersion>, NotebookError> {
        let seq = note_seq(id).ok_or_else(|| NotebookError::not_found(id))?;
        let conn = self.lock();
        let mut statement = conn.prepare(
            "SELECT version, state_json, change_json, undone, created_at FROM note_versions
             WHERE note_seq = ?1 ORDER BY version",
        )?;
        let rows = statement
            .query_map([seq], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, bool>(3)?,
                    r.get(4)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        if rows.is_empty() {
            return Err(NotebookError::not_found(id));
        }
        rows.into_iter()
            .map(|(version, state, change, undone, created_at)| {
                Ok(NoteVersion {
                    version,
                    state: serde_json::from_str(&state)?,
                    change: serde_json::from_str(&change)?,
                    undone,
                    created_at,
                })
            })
            .collect()
    }

    /// Undoes the latest change to a note not undone yet: the state before it comes back as a new
    /// version (or, for the note's creation, the note is deleted). `NOTEBOOK_NOTHING_TO_UNDO`
    /// when every change is undone already.
    pub fn undo(&self, id: &str) -> Result<Note, NotebookError> {
        let seq = note_seq(id).ok_or_else(|| NotebookError::not_found(id))?;
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let note = load(&tx, seq)?.ok_or_else(|| NotebookError::not_found(id))?;
        let target: Option<i64> = tx
            .query_row(
                "SELECT version FROM note_versions WHERE note_seq = ?1 AND undone = 0
                     AND json_extract(change_json, '$.by') != 'undo'
                 ORDER BY version DESC LIMIT 1",
                [seq],
                |r| r.get(0),
            )
            .optional()?;
        let Some(target) = target else {
            return Err(NotebookError::new(
                NotebookError::NOTHING_TO_UNDO,
                format!("every change to {id} is undone already"),
            ));
        };
        let change = NoteChange::undo(target);
        let (state, deleted) = if target == 1 {
            (note.state.clone(), true)
        } else {
            let before: String = tx.query_row(
                "SELECT state_json FROM note_versions WHERE note_seq = ?1 AND version = ?2",
                params![seq, target - 1],
                |r| r.get(0),
            )?;
            // The state before the change, and live: a deleted note is only ever at the end.
            (serde_json::from_str(&before)?, false)
        };
        tx.execute("UPDATE note_versions SET undone = 1 WHERE note_seq = ?1 AND version = ?2", params![seq, target])?;
        write_state(&tx, seq, note.version + 1, &state, deleted, &change)?;
        let note = load(&tx, seq)?.ok_or_else(|| NotebookError::not_found(id))?;
        tx.commit()?;
        Ok(note)
    }
}

fn write_state(
    tx: &rusqlite::Transaction<'_>,
    seq: i64,
    version: i64,
    state: &NoteState,
    deleted: bool,
    change: &NoteChange,
) -> Result<(), NotebookError> {
    let now = now_rfc3339();
    tx.execute(
        "UPDATE notes SET title = ?2, body_markdown = ?3, doc_json = ?4, tags_json = ?5, path = ?6, links_json = ?7,
             version = ?8, deleted = ?9, updated_at = ?10
         WHERE seq = ?1",
        params![
            seq,
            state.title,
            state.body_markdown,
            state.doc.as_ref().map(Value::to_string),
            serde_json::to_string(&state.tags)?,
            state.path,
            serde_json::to_string(&state.links)?,
            version,
            deleted,
            now,
        ],
    )?;
    insert_version(tx, seq, version, state, change, &now)
}

fn insert_version(
    tx: &rusqlite::Transaction<'_>,
    seq: i64,
    version: i64,
    state: &NoteState,
    change: &NoteChange,
    now: &str,
) -> Result<(), NotebookError> {
    tx.execute(
        "INSERT INTO note_versions (note_seq, version, state_json, change_json, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![seq, version, serde_json::to_string(state)?, serde_json::to_string(change)?, now],
    )?;
    Ok(())
}

fn load(conn: &Connection, seq: i64) -> Result<Option<Note>, NotebookError> {
    let row = conn
        .query_row(
            "SELECT title, body_markdown, doc_json, tags_json, path, links_json, sources_json, redaction, version,
                 deleted, created_at, updated_at
             FROM notes WHERE seq = ?1",
            [seq],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, String>(7)?,
                    r.get::<_, i64>(8)?,
                    r.get::<_, bool>(9)?,
                    r.get::<_, String>(10)?,
                    r.get::<_, String>(11)?,
                ))
            },
        )
        .optional()?;
    let Some((
        title,
        body_markdown,
        doc,
        tags,
        path,
        links,
        sources,
        redaction,
        version,
        deleted,
        created_at,
        updated_at,
    )) = row
    else {
        return Ok(None);
    };
    Ok(Some(Note {
        id: note_id(seq),
        state: NoteState {
            title,
            body_markdown,
            doc: doc.map(|d| serde_json::from_str(&d)).transpose()?,
            tags: serde_json::from_str(&tags)?,
            path,
            links: serde_json::from_str(&links)?,
        },
        sources: serde_json::from_str(&sources)?,
        redaction,
        version,
        deleted,
        created_at,
        updated_at,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(title: &str, body: &str) -> NoteState {
        NoteState { title: title.into(), body_markdown: body.into(), ..NoteState::default() }
    }

    #[test]
    fn every_change_is_a_version_and_undo_walks_back_one_change_at_a_time() {
        let book = Notebook::open_in_memory().unwrap();
        let note = book.create(&state("Outage", "db down"), &[], "default", &NoteChange::by("notes.add")).unwrap();
        assert_eq!((note.id.as_str(), note.version), ("note_1", 1));
        book.update(&note.id, Some(1), |s| s.title = "Database outage".into(), &NoteChange::by("librarian")).unwrap();
        let tagged =
            book.update(&note.id, None, |s| s.tags = vec!["database".into()], &NoteChange::by("librarian")).unwrap();
        assert_eq!((tagged.version, tagged.state.title.as_str()), (3, "Database outage"));

        let undone = book.undo(&note.id).unwrap();
        assert_eq!((undone.version, undone.state.tags.len(), undone.state.title.as_str()), (4, 0, "Database outage"));
        let undone = book.undo(&note.id).unwrap();
        assert_eq!((undone.version, undone.state.title.as_str()), (5, "Outage"));
        // Undoing the creation removes the note from the lists; its versions stay.
        let gone = book.undo(&note.id).unwrap();
        assert!(gone.deleted);
        assert!(book.list(None, 10).unwrap().is_empty());
        assert_eq!(book.versions(&note.id).unwrap().len(), 6);
        assert_eq!(book.undo(&note.id).unwrap_err().code, NotebookError::NOTHING_TO_UNDO);
        assert_eq!(book.live(&note.id).unwrap_err().code, NotebookError::NOT_FOUND);
    }

    #[test]
    fn a_change_after_an_undo_is_undone_first() {
        let book = Notebook::open_in_memory().unwrap();
        let id = book.create(&state("A", "x"), &[], "default", &NoteChange::by("notes.add")).unwrap().id;
        book.update(&id, None, |s| s.title = "B".into(), &NoteChange::by("librarian")).unwrap();
        book.undo(&id).unwrap(); // back to A
        book.update(&id, None, |s| s.title = "C".into(), &NoteChange::by("librarian")).unwrap();
        assert_eq!(book.undo(&id).unwrap().state.title, "A");
        assert!(book.undo(&id).unwrap().deleted);
    }

    #[test]
    fn a_stale_version_a_bad_note_and_an_unknown_id_are_refused_and_change_nothing() {
        let book = Notebook::open_in_memory().unwrap();
        let id = book.create(&state("A", "x"), &[], "default", &NoteChange::by("notes.add")).unwrap().id;
        book.update(&id, None, |s| s.title = "B".into(), &NoteChange::by("librarian")).unwrap();
        let stale = book.update(&id, Some(1), |s| s.title = "C".into(), &NoteChange::by("librarian")).unwrap_err();
        assert_eq!(stale.code, NotebookError::CONFLICT);
        let empty = book.update(&id, None, |s| s.title = " ".into(), &NoteChange::by("librarian")).unwrap_err();
        assert_eq!(empty.code, NotebookError::BAD_NOTE);
        assert_eq!(book.live(&id).unwrap().state.title, "B");
        for unknown in ["note_99", "note_0", "n1", ""] {
            assert_eq!(
                book.update(unknown, None, |_| {}, &NoteChange::by("x")).unwrap_err().code,
                NotebookError::NOT_FOUND
            );
        }
    }

    #[test]
    fn lists_filter_by_tag_newest_change_first() {
        let book = Notebook::open_in_memory().unwrap();
        let a = book
            .create(&NoteState { tags: vec!["Garden".into()], ..state("A", "") }, &[], "default", &NoteChange::by("x"))
            .unwrap();
        book.create(&state("B", ""), &[], "default", &NoteChange::by("x")).unwrap();
        book.update(&a.id, None, |s| s.body_markdown = "new".into(), &NoteChange::by("x")).unwrap();
        let titles = |notes: Vec<Note>| notes.into_iter().map(|n| n.state.title).collect::<Vec<_>>();
        assert_eq!(titles(book.list(None, 10).unwrap()), ["A", "B"]);
        assert_eq!(titles(book.list(Some("garden"), 10).unwrap()), ["A"]);
        assert_eq!(titles(book.list(None, 1).unwrap()), ["A"]);
    }

    #[test]
    fn a_file_from_a_newer_laika_is_refused() {
        let dir = std::env::temp_dir().join(format!("laika-notebook-{}", std::process::id()));
        let path = dir.join("notebook.sqlite3");
        drop(Notebook::open(&path).unwrap());
        Connection::open(&path).unwrap().pragma_update(None, "user_version", 99).unwrap();
        let error = Notebook::open(&path).err().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(error.code, NotebookError::SCHEMA_TOO_NEW);
    }
}
