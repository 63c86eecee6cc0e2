//! A collection read as one page, for a question asked across it (`collection.ask`).
//!
//! The captured sources are joined into one text, each under its title as a heading, so the
//! grounded answer path (BM25 retrieval over passages, the gate on every model sentence, the
//! quoted evidence) runs over all of them unchanged. Every citation is then traced back to the
//! source whose text holds it ([`CollectionRead::source_at`]): the answer says which source each
//! quote comes from, and the stored request carries the collection as the spec packs it, one
//! `collection.index.v1` and a `collection.source.v1` per source, within a budget
//! ([`CollectionRead::documents`]).

use crate::prompt;
use laika_shared::observation::{CollectionIndex, CollectionSource, Observation, cut_at_line};
use serde_json::{Value, json};
use std::ops::Range;

/// The id of a source's document in a request: `doc:collection:src:3`.
pub fn doc_id(source_id: &str) -> String {
    format!("doc:collection:{source_id}")
}

/// The id of a collection's index document in a request.
pub const INDEX_DOC_ID: &str = "doc:collection:index";

#[derive(Debug)]
pub struct CollectionRead {
    pub index: CollectionIndex,
    pub sources: Vec<CollectionSource>,
    /// Where each source's text lies in the joined text (byte ranges, heading included).
    spans: Vec<Range<usize>>,
}

impl CollectionRead {
    /// The collection's captured sources joined into one page: the observation the answer path
    /// reads, and this record of where each source lies in it.
    pub fn new(index: CollectionIndex, sources: Vec<CollectionSource>) -> (CollectionRead, Observation) {
        let mut text = String::new();
        let mut spans = vec![];
        for source in &sources {
            let start = text.len();
            let title = if source.title.trim().is_empty() { source.source_id.as_str() } else { source.title.trim() };
            text.push_str(&format!("H1: {title}\n\n{}", source.text.trim()));
            spans.push(start..text.len());
            text.push_str("\n\n");
        }
        let observation = Observation {
            doc_type: Some("web.observation.summary.v1".into()),
            url: String::new(),
            title: index.title.clone(),
            text: text.trim_end().to_string(),
            ..Default::default()
        };
        (CollectionRead { index, sources, spans }, observation)
    }

    /// The source whose text holds the byte `offset` of the joined text.
    pub fn source_at(&self, offset: usize) -> Option<&CollectionSource> {
        self.spans.iter().position(|span| span.contains(&offset)).map(|i| &self.sources[i])
    }

    /// The request's documents: the index, then each source with its text cut (at a line) to an
    /// equal share of `budget_chars`, so the whole stays within it however many sources there are.
    pub fn documents(&self, budget_chars: usize) -> Vec<Value> {
        let index = serde_json::to_value(&self.index).unwrap_or_default();
        let mut documents = vec![prompt::document(INDEX_DOC_ID, "collection.index.v1", index)];
        let share = budget_chars / self.sources.len().max(1);
        for source in &self.sources {
            let mut content = source.clone();
            content.doc_type = Some("collection.source.v1".into());
            content.text = cut_at_line(&content.text, share);
            let value = serde_json::to_value(&content).unwrap_or_default();
            documents.push(prompt::document(&doc_id(&source.source_id), "collection.source.v1", value));
        }
        documents
    }

    /// The line the answer ends with: each source it quotes, with the numbers of its quotes,
    /// in the order the sources are first cited ("Sources: Phone A review [1] [3] · Phone B [2]").
    pub fn attribution(&self, cited_offsets: &[usize]) -> Option<String> {
        let mut named: Vec<(&str, Vec<String>)> = vec![];
        for (i, &offset) in cited_offsets.iter().enumerate() {
            let Some(source) = self.source_at(offset) else { continue };
            let title = if source.title.trim().is_empty() { source.source_id.as_str() } else { source.title.trim() };
            match named.iter_mut().find(|(t, _)| *t == title) {
                Some((_, numbers)) => numbers.push(format!("[{}]", i + 1)),
                None => named.push((title, vec![format!("[{}]", i + 1)])),
            }
        }
        let named: Vec<String> =
            named.into_iter().map(|(title, numbers)| format!("{title} {}", numbers.join(" "))).collect();
        (!named.is_empty()).then(|| format!("Sources: {}", named.join(" · ")))
    }
}

/// A collection answer's `{doc_id, quote}` citations, each with the source its document is: its
/// id, title and address.
pub fn with_sources(index: &CollectionIndex, citations: &[Value]) -> Vec<Value> {
    citations
        .iter()
        .map(|citation| {
            let mut citation = citation.clone();
            let doc = citation["doc_id"].as_str().unwrap_or_default().to_string();
            if let Some(source) = index.sources.iter().find(|s| doc_id(&s.source_id) == doc) {
                citation["source"] = json!({ "source_id": source.source_id, "title": source.title, "url": source.url });
            }
            citation
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A captured source of `col:1` numbered `n` (`src:n`, at `https://s<n>.example/`).
    pub(crate) fn source(n: usize, title: &str, text: &str) -> CollectionSource {
        CollectionSource {
            collection_id: "col:1".into(),
            source_id: format!("src:{n}"),
            url: format!("https://s{n}.example/"),
            title: title.into(),
            text: text.into(),
            ..Default::default()
        }
    }

    #[test]
    fn sources_are_joined_under_their_titles_and_every_offset_finds_its_source() {
        let index = CollectionIndex { collection_id: "col:1".into(), title: "Phones".into(), ..Default::default() };
        let (read, observation) =
            CollectionRead::new(index, vec![source(1, "Phone A", "A is bright."), source(2, "Phone B", "B is small.")]);
        assert_eq!(observation.text, "H1: Phone A\n\nA is bright.\n\nH1: Phone B\n\nB is small.");
        let at = |needle: &str| read.source_at(observation.text.find(needle).unwrap()).map(|s| s.source_id.as_str());
        assert_eq!((at("A is bright"), at("B is small")), (Some("src:1"), Some("src:2")));
        let (a, b) = (observation.text.find("A is bright").unwrap(), observation.text.find("B is small").unwrap());
        assert_eq!(read.attribution(&[b, a, b + 1]).as_deref(), Some("Sources: Phone B [1] [3] · Phone A [2]"));
    }

    #[test]
    fn the_documents_hold_the_index_and_each_source_within_the_budget() {
        let long = "A line of the first source.\n".repeat(100);
        let index = CollectionIndex { collection_id: "col:1".into(), title: "Phones".into(), ..Default::default() };
        let (read, _) =
            CollectionRead::new(index, vec![source(1, "Phone A", &long), source(2, "Phone B", "B is small.")]);
        let documents = read.documents(1_000);
        assert_eq!(documents.len(), 3);
        assert_eq!(documents[0]["kind"], "collection.index.v1");
        let first = documents[1]["content"]["text"].as_str().unwrap();
        assert!(first.chars().count() <= 500 && first.ends_with("source."), "{first:?}");
        assert_eq!(documents[2]["content"]["text"], "B is small.");
        assert_eq!(documents[2]["doc_id"], "doc:collection:src:2");
    }
}
