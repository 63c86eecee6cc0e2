//! Collections in the notebook's file: named sets of sources gathered across pages.
//!
//! A source is a web address or a note's text. A note is whole at once; an address is `pending`
//! until the extension captures it (`source.capture`: it opens the page in a background tab,
//! reads it with the same reader as any page, and closes it), then `captured` with its
//! `collection.source.v1` document, bounded in size ([`CollectionSource::from_observation`]).
//! `source.refresh` captures it again in place. What a request or a transform reads of a
//! collection is [`Notebook::documents`]: the `collection.index.v1` and the captured sources.

use super::{Notebook, NotebookError, redact};
use crate::sqlite::now_rfc3339;
use laika_shared::observation::{CollectionIndex, CollectionSource, CollectionSourceRef, Observation, SourceShape};
use laika_shared::tools::NewSource;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

const COLLECTION_PREFIX: &str = "col:";
const SOURCE_PREFIX: &str = "src:";
/// Sources one collection holds at most.
pub const MAX_SOURCES: usize = 200;

/// A collection as listed.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Collection {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub created_at: String,
    pub sources: usize,
}

/// A source as listed: what it is and how far it got.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SourceRow {
    pub id: String,
    pub collection_id: String,
    /// `url` or `note`.
    pub kind: String,
    /// The address asked for (a capture may end elsewhere after redirects; its document says
    /// where). Empty for a note.
    pub url: String,
    pub title: String,
    /// `pending` (an address not captured yet), `captured`, or `failed` (with `error`).
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captured_at: Option<String>,
    /// Characters of its captured text.
    pub chars: usize,
}

/// Which source rows [`Notebook::load`] reads (by sequence number).
enum SourcesOf {
    Collection(i64),
    One(i64),
}

fn seq_of(id: &str, prefix: &str) -> Option<i64> {
    id.trim().strip_prefix(prefix)?.parse().ok().filter(|n| *n > 0)
}

fn missing(what: &str, id: &str) -> NotebookError {
    NotebookError::new(NotebookError::NOT_FOUND, format!("no {what} {id:?}"))
}

/// A note's title: the one given, else its first words.
fn note_title(title: Option<&str>, text: &str) -> String {
    match title.map(str::trim).filter(|t| !t.is_empty()) {
        Some(title) => title.to_string(),
        None => laika_shared::grounding::shorten(text.split_whitespace().collect::<Vec<_>>().join(" ").as_str(), 60),
    }
}

impl Notebook {
    pub fn create_collection(&self, title: &str, tags: &[String]) -> Result<Collection, NotebookError> {
        let title = title.trim();
        if title.is_empty() || title.chars().count() > super::TITLE_MAX_CHARS {
            return Err(NotebookError::new(
                NotebookError::BAD_NOTE,
                "a collection needs a title of at most 500 characters",
            ));
        }
        let conn = self.lock();
        conn.execute(
            "INSERT INTO collections (title, tags_json, created_at) VALUES (?1, ?2, ?3)",
            params![title, serde_json::to_string(tags)?, now_rfc3339()],
        )?;
        let id = format!("{COLLECTION_PREFIX}{}", conn.last_insert_rowid());
        drop(conn);
        self.collection(&id)
    }

    pub fn collection(&self, id: &str) -> Result<Collection, NotebookError> {
        let seq = seq_of(id, COLLECTION_PREFIX).ok_or_else(|| missing("collection", id))?;
        let conn = self.lock();
        conn.query_row(
            "SELECT c.title, c.tags_json, c.created_at, (SELECT COUNT(*) FROM sources s WHERE s.collection_seq = c.seq)
             FROM collections c WHERE c.seq = ?1",
            [seq],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, i64>(3)?)),
        )
        .optional()?
        .map(|(title, tags, created_at, sources)| {
            Ok(Collection {
                id: format!("{COLLECTION_PREFIX}{seq}"),
                title,
                tags: serde_json::from_str(&tags)?,
                created_at,
                sources: sources as usize,
            })
        })
        .unwrap_or_else(|| Err(missing("collection", id)))
    }

    /// Every collection, newest first.
    pub fn collections(&self) -> Result<Vec<Collection>, NotebookError> {
        let ids: Vec<i64> = {
            let conn = self.lock();
            let mut statement = conn.prepare("SELECT seq FROM collections ORDER BY seq DESC")?;
            statement.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?
        };
        ids.into_iter().map(|seq| self.collection(&format!("{COLLECTION_PREFIX}{seq}"))).collect()
    }

    /// Adds sources: an address as `pending` (once: one already in the collection is kept as
    /// it is), a note's text, redacted, as `captured`. Returns the collection's sources.
    pub fn add_sources(&self, collection_id: &str, sources: &[NewSource]) -> Result<Vec<SourceRow>, NotebookError> {
        let collection = self.collection(collection_id)?;
        if collection.sources + sources.len() > MAX_SOURCES {
            return Err(NotebookError::new(
                NotebookError::BAD_NOTE,
                format!(
                    "a collection holds at most {MAX_SOURCES} sources; {} has {}",
                    collection.id, collection.sources
                ),
            ));
        }
        let seq = seq_of(&collection.id, COLLECTION_PREFIX).unwrap_or_default();
        let now = now_rfc3339();
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        for source in sources {
            match source {
                NewSource::Url { url, title } => {
                    let known: Option<i64> = tx
                        .query_row(
                            "SELECT seq FROM sources WHERE collection_seq = ?1 AND kind = 'url' AND url = ?2",
                            params![seq, url.trim()],
                            |r| r.get(0),
                        )
                        .optional()?;
                    if known.is_none() {
                        tx.execute(
                            "INSERT INTO sources (collection_seq, kind, url, title, status, created_at)
                             VALUES (?1, 'url', ?2, ?3, 'pending', ?4)",
                            params![seq, url.trim(), title.as_deref().unwrap_or_default().trim(), now],
                        )?;
                    }
                }
                NewSource::Note { title, text } => {
                    let text = redact::redact_text(text);
                    let title = note_title(title.as_deref(), &text);
                    tx.execute(
                        "INSERT INTO sources (collection_seq, kind, url, title, status, created_at, captured_at)
                         VALUES (?1, 'note', '', ?2, 'captured', ?3, ?3)",
                        params![seq, title, now],
                    )?;
                    let id = format!("{SOURCE_PREFIX}{}", tx.last_insert_rowid());
                    let document = CollectionSource {
                        doc_type: Some("collection.source.v1".into()),
                        collection_id: collection.id.clone(),
                        source_id: id.clone(),
                        title,
                        captured_at: now.clone(),
                        text,
                        ..Default::default()
                    };
                    tx.execute(
                        "UPDATE sources SET document_json = ?1 WHERE seq = ?2",
                        params![serde_json::to_string(&document)?, seq_of(&id, SOURCE_PREFIX)],
                    )?;
                }
            }
        }
        tx.commit()?;
        drop(conn);
        self.sources(&collection.id)
    }

    /// A collection's sources, in the order they were added.
    pub fn sources(&self, collection_id: &str) -> Result<Vec<SourceRow>, NotebookError> {
        let collection = self.collection(collection_id)?;
        let seq = seq_of(&collection.id, COLLECTION_PREFIX).unwrap_or_default();
        Ok(self.load(SourcesOf::Collection(seq))?.into_iter().map(|(row, _)| row).collect())
    }

    /// One source and, once captured, its document.
    pub fn source(&self, id: &str) -> Result<(SourceRow, Option<CollectionSource>), NotebookError> {
        let seq = seq_of(id, SOURCE_PREFIX).ok_or_else(|| missing("source", id))?;
        let (row, document) = self.load(SourcesOf::One(seq))?.pop().ok_or_else(|| missing("source", id))?;
        Ok((row, document.transpose()?))
    }

    /// Source rows, each with its document read once (`chars` counts its text; a document that
    /// does not decode counts 0 there and is an error to whoever asks for the document).
    #[allow(clippy::type_complexity)]
    fn load(
        &self,
        which: SourcesOf,
    ) -> Result<Vec<(SourceRow, Option<Result<CollectionSource, serde_json::Error>>)>, NotebookError> {
        let (filter, value) = match which {
            SourcesOf::Collection(seq) => ("collection_seq", seq),
            SourcesOf::One(seq) => ("seq", seq),
        };
        let conn = self.lock();
        let mut statement = conn.prepare(&format!(
            "SELECT seq, collection_seq, kind, url, title, status, error, captured_at, document_json FROM sources
             WHERE {filter} = ?1 ORDER BY seq"
        ))?;
        let rows = statement.query_map([value], |r| {
            let document = r.get::<_, Option<String>>(8)?.map(|d| serde_json::from_str::<CollectionSource>(&d));
            let chars = document.as_ref().and_then(|d| d.as_ref().ok()).map_or(0, |d| d.text.chars().count());
            let row = SourceRow {
                id: format!("{SOURCE_PREFIX}{}", r.get::<_, i64>(0)?),
                collection_id: format!("{COLLECTION_PREFIX}{}", r.get::<_, i64>(1)?),
                kind: r.get(2)?,
                url: r.get(3)?,
                title: r.get(4)?,
                status: r.get(5)?,
                error: r.get(6)?,
                captured_at: r.get(7)?,
                chars,
            };
            Ok((row, document))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Stores a page the extension captured for `requested_url` in a collection: the source
    /// with that address (added now if the collection has none) becomes `captured` with its
    /// document, replacing an earlier capture.
    pub fn store_capture(
        &self,
        collection_id: &str,
        requested_url: &str,
        observation: &Observation,
        shape: Option<SourceShape>,
        max_chars: usize,
    ) -> Result<SourceRow, NotebookError> {
        let requested = requested_url.trim();
        let rows = self.add_sources(collection_id, &[NewSource::Url { url: requested.to_string(), title: None }])?;
        let row = rows
            .into_iter()
            .find(|s| s.kind == "url" && s.url == requested)
            .ok_or_else(|| NotebookError::io("a source just added is missing"))?;
        let now = now_rfc3339();
        let document =
            CollectionSource::from_observation(observation, (&row.collection_id, &row.id), &now, shape, max_chars);
        {
            let conn = self.lock();
            conn.execute(
                "UPDATE sources SET status = 'captured', error = NULL, title = ?1, document_json = ?2, captured_at = ?3
                 WHERE seq = ?4",
                params![document.title, serde_json::to_string(&document)?, now, seq_of(&row.id, SOURCE_PREFIX)],
            )?;
        }
        Ok(self.source(&row.id)?.0)
    }

    /// The collection as a request or a transform reads it: its index, and its captured
    /// sources' documents in the order they were added.
    pub fn documents(&self, collection_id: &str) -> Result<(CollectionIndex, Vec<CollectionSource>), NotebookError> {
        let collection = self.collection(collection_id)?;
        let seq = seq_of(&collection.id, COLLECTION_PREFIX).unwrap_or_default();
        let documents: Vec<CollectionSource> =
            self.load(SourcesOf::Collection(seq))?.into_iter().filter_map(|(_, d)| d).collect::<Result<_, _>>()?;
        let index = CollectionIndex {
            doc_type: Some("collection.index.v1".into()),
            collection_id: collection.id.clone(),
            title: collection.title.clone(),
            sources: documents
                .iter()
                .map(|d| CollectionSourceRef {
                    source_id: d.source_id.clone(),
                    url: d.url.clone(),
                    title: d.title.clone(),
                    outlet: d.outlet.clone(),
                    captured_at: d.captured_at.clone(),
                    published_at: d.published_at.clone(),
                })
                .collect(),
        };
        Ok((index, documents))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, title: &str, text: &str) -> Observation {
        Observation { url: url.into(), title: title.into(), text: text.into(), ..Default::default() }
    }

    #[test]
    fn a_collection_gathers_addresses_and_notes_and_captures_replace_in_place() {
        let notebook = Notebook::open_in_memory().unwrap();
        let collection = notebook.create_collection("Otters", &["rivers".into()]).unwrap();
        assert_eq!((collection.id.as_str(), collection.sources), ("col:1", 0));
        let rows = notebook
            .add_sources(
                &collection.id,
                &[
                    NewSource::Url { url: "https://a.example/otters".into(), title: Some("A".into()) },
                    NewSource::Note { title: None, text: "Card 4111 1111 1111 1111 paid the survey.".into() },
                    NewSource::Url { url: "https://a.example/otters".into(), title: None },
                ],
            )
            .unwrap();
        assert_eq!(rows.len(), 2, "an address is added once: {rows:?}");
        assert_eq!((rows[0].status.as_str(), rows[1].status.as_str()), ("pending", "captured"));
        let (_, note) = notebook.source(&rows[1].id).unwrap();
        assert!(!note.unwrap().text.contains("4111 1111"), "a note's text is redacted");

        let captured = notebook
            .store_capture(
                &collection.id,
                "https://a.example/otters",
                &page("https://a.example/otters", "Otters back", "Five otters."),
                None,
                1_000,
            )
            .unwrap();
        assert_eq!(
            (captured.id.as_str(), captured.status.as_str(), captured.chars),
            (rows[0].id.as_str(), "captured", 12)
        );
        assert_eq!(captured.title, "Otters back");
        // Captured again (source.refresh): the same source, the new text.
        let again = notebook
            .store_capture(
                &collection.id,
                "https://a.example/otters",
                &page("https://a.example/otters", "Otters back", "Six otters now."),
                None,
                1_000,
            )
            .unwrap();
        assert_eq!((again.id.as_str(), again.chars), (rows[0].id.as_str(), 15));
        let (index, documents) = notebook.documents(&collection.id).unwrap();
        assert_eq!(index.sources.len(), 2);
        assert_eq!(documents[0].text, "Six otters now.");
        assert_eq!(notebook.collections().unwrap()[0].sources, 2);
    }

    #[test]
    fn unknown_ids_and_bad_titles_are_refused_with_their_codes() {
        let notebook = Notebook::open_in_memory().unwrap();
        assert_eq!(notebook.collection("col:9").unwrap_err().code, NotebookError::NOT_FOUND);
        assert_eq!(notebook.sources("nonsense").unwrap_err().code, NotebookError::NOT_FOUND);
        assert_eq!(notebook.source("src:1").unwrap_err().code, NotebookError::NOT_FOUND);
        assert_eq!(notebook.create_collection("  ", &[]).unwrap_err().code, NotebookError::BAD_NOTE);
    }
}
