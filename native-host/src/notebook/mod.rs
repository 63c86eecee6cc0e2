//! The notebook: what the user keeps. Notes (the catalogue's artifacts: a saved summary, a text
//! the model wrote, a note the Librarian made) with every version they had, in their own SQLite
//! file beside the history.
//!
//! How data flows through it:
//! 1. a note arrives as an approved `artifact.save` ([`save_artifact`]), from `laika-host notes
//!    add`, or from an applied Librarian operation; [`redact`] removes secrets from it first
//!    unless the call asked for `redaction: "none"`;
//! 2. [`store`] writes it as version 1, and every later change as a new version with what made
//!    it ([`NoteChange`]); undo restores the version before, as a new version;
//! 3. [`export`] renders a note as Markdown, text, JSON, CSV or PDF, for `artifact.share` and
//!    `laika-host notes export`.
//!
//! Beside the notes, [`collections`]: sources gathered across pages (a URL captured by the
//! extension's reader, or a note's text) that [`transforms`] turn into notes whose every
//! statement cites a source.

pub mod collections;
pub mod export;
pub mod redact;
pub mod runs;
pub mod store;
pub mod transforms;

pub use store::{Notebook, note_id};

use laika_shared::tools::{ArtifactRedaction, ArtifactSaveArgs};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The notebook's file in the data directory.
pub const FILE: &str = "notebook.sqlite3";

/// Longest note title, in chars (as `artifact.save` accepts).
pub const TITLE_MAX_CHARS: usize = 500;
/// Longest note body, in chars (as `artifact.save` accepts its `text`).
pub const BODY_MAX_CHARS: usize = 100_000;

/// What a note says; each version stores one whole.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct NoteState {
    pub title: String,
    pub body_markdown: String,
    /// The Laika Document it was saved from, when it was one (a summary's render).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<Value>,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Where the note sits in the user's notebook (`platform/runbooks`), set by the Librarian.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Ids of related notes.
    #[serde(default)]
    pub links: Vec<String>,
}

impl NoteState {
    fn check(&self) -> Result<(), NotebookError> {
        let bad = |m: String| Err(NotebookError::new(NotebookError::BAD_NOTE, m));
        if self.title.trim().is_empty() {
            return bad("a note needs a title".into());
        }
        if self.title.chars().count() > TITLE_MAX_CHARS {
            return bad(format!("a note title is at most {TITLE_MAX_CHARS} characters"));
        }
        if self.body_markdown.chars().count() > BODY_MAX_CHARS {
            return bad(format!("a note body is at most {BODY_MAX_CHARS} characters"));
        }
        Ok(())
    }
}

/// A page a note came from (a saved summary's page, with its citations' sentences).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct NoteSource {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The cited sentences, numbered as the note's `[n]` markers are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub citations: Vec<Citation>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Citation {
    pub n: u32,
    pub quote: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Note {
    pub id: String,
    #[serde(flatten)]
    pub state: NoteState,
    pub sources: Vec<NoteSource>,
    /// "default" (secrets removed before storing) or "none" (stored as given).
    pub redaction: String,
    pub version: i64,
    pub deleted: bool,
    pub created_at: String,
    pub updated_at: String,
}

/// What made a version.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct NoteChange {
    /// `artifact.save`, `notes.add`, `librarian`, `undo`.
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    /// For an undo: the version it reverted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverts: Option<i64>,
}

impl NoteChange {
    pub fn by(by: &str) -> NoteChange {
        NoteChange { by: by.into(), ..NoteChange::default() }
    }

    pub fn undo(version: i64) -> NoteChange {
        NoteChange { by: "undo".into(), reverts: Some(version), ..NoteChange::default() }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct NoteVersion {
    pub version: i64,
    pub state: NoteState,
    pub change: NoteChange,
    pub undone: bool,
    pub created_at: String,
}

/// A notebook failure with a stable code.
#[derive(Debug, Clone, PartialEq)]
pub struct NotebookError {
    pub code: &'static str,
    pub message: String,
}

impl NotebookError {
    pub const IO: &'static str = "NOTEBOOK_IO";
    pub const SCHEMA_TOO_NEW: &'static str = "NOTEBOOK_SCHEMA_TOO_NEW";
    pub const NOT_FOUND: &'static str = "NOTEBOOK_NOT_FOUND";
    pub const BAD_NOTE: &'static str = "NOTEBOOK_BAD_NOTE";
    pub const CONFLICT: &'static str = "NOTEBOOK_CONFLICT";
    pub const NOTHING_TO_UNDO: &'static str = "NOTEBOOK_NOTHING_TO_UNDO";
    pub const CORRUPT: &'static str = "NOTEBOOK_CORRUPT";

    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        NotebookError { code, message: message.into() }
    }

    fn io(message: impl Into<String>) -> Self {
        NotebookError::new(NotebookError::IO, message)
    }

    fn not_found(id: &str) -> Self {
        NotebookError::new(
            NotebookError::NOT_FOUND,
            format!("no note {id:?} (ids look like note_12; `laika-host notes list`)"),
        )
    }
}

impl fmt::Display for NotebookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for NotebookError {}

impl From<rusqlite::Error> for NotebookError {
    fn from(e: rusqlite::Error) -> Self {
        NotebookError::io(e.to_string())
    }
}

impl From<serde_json::Error> for NotebookError {
    fn from(e: serde_json::Error) -> Self {
        NotebookError::new(NotebookError::CORRUPT, format!("a stored note does not decode: {e}"))
    }
}

impl From<NotebookError> for crate::transport::HostError {
    fn from(e: NotebookError) -> Self {
        crate::transport::HostError::new(e.code, e.message)
    }
}

/// Stores an `artifact.save` (checked by the catalogue and approved): a `doc` is kept with its
/// Markdown rendering as the body, `text` is the body; both redacted unless `redaction: "none"`.
/// `sources` are the pages it came from (the conversation's page, for a saved summary).
pub fn save_artifact(
    notebook: &Notebook,
    args: &ArtifactSaveArgs,
    sources: &[NoteSource],
) -> Result<Note, NotebookError> {
    let redacting = args.redaction.unwrap_or_default() == ArtifactRedaction::Default;
    let clean = |text: &str| if redacting { redact::redact_text(text) } else { text.to_string() };
    // The catalogue checked the document already; sanitising only gives its typed form.
    let doc = args.doc.as_ref().map(|value| laika_shared::render::sanitize(value).doc);
    let body = match (&doc, &args.text) {
        (Some(doc), _) => export::doc_to_markdown(doc),
        (None, Some(text)) => text.clone(),
        (None, None) => String::new(),
    };
    let doc_value = match doc {
        Some(doc) if redacting => Some(redact_doc(serde_json::to_value(&doc)?)),
        Some(doc) => Some(serde_json::to_value(&doc)?),
        None => None,
    };
    let state = NoteState {
        title: clean(args.title.trim()),
        body_markdown: clean(&body),
        doc: doc_value,
        tags: args.tags.clone().unwrap_or_default().into_iter().map(|t| t.trim().to_string()).collect(),
        path: None,
        links: vec![],
    };
    let redaction = if redacting { "default" } else { "none" };
    notebook.create(&state, sources, redaction, &NoteChange::by("artifact.save"))
}

/// Every `text` and `href` string of a render document, redacted.
fn redact_doc(mut value: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    match v {
                        Value::String(s) if key == "text" || key == "href" => *s = redact::redact_text(s),
                        _ => walk(v),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> ArtifactSaveArgs {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_saved_document_keeps_its_markdown_its_sources_and_loses_its_secrets() {
        let book = Notebook::open_in_memory().unwrap();
        let doc = json!({ "type": "doc", "children": [
            { "type": "paragraph", "children": [
                { "type": "text", "text": "Reset it at https://example.com/reset?token=s3cret&lang=en. [1]" } ] },
            { "type": "list", "ordered": false, "items": [
                { "type": "list_item", "children": [ { "type": "text", "text": "Card 4111 1111 1111 1111 was charged." } ] } ] }
        ]});
        let source = NoteSource {
            url: "https://example.com/help".into(),
            title: Some("Help".into()),
            citations: vec![Citation { n: 1, quote: "Reset it.".into() }],
        };
        let note = save_artifact(
            &book,
            &args(json!({ "title": "Help", "doc": doc, "tags": [" howto "] })),
            std::slice::from_ref(&source),
        )
        .unwrap();
        assert_eq!(note.redaction, "default");
        assert_eq!(note.state.tags, ["howto"]);
        assert_eq!(note.sources, [source]);
        let body = &note.state.body_markdown;
        assert!(body.contains("https://example.com/reset?lang=en") && !body.contains("s3cret"), "{body}");
        assert!(body.contains("* Card [redacted card number] was charged."), "{body}");
        let stored = note.state.doc.unwrap().to_string();
        assert!(!stored.contains("s3cret") && !stored.contains("4111"), "{stored}");
    }

    #[test]
    fn redaction_none_stores_the_text_as_given() {
        let book = Notebook::open_in_memory().unwrap();
        let text = "token at https://example.com/?token=abc";
        let note =
            save_artifact(&book, &args(json!({ "title": "Raw", "text": text, "redaction": "none" })), &[]).unwrap();
        assert_eq!((note.state.body_markdown.as_str(), note.redaction.as_str()), (text, "none"));
    }
}
