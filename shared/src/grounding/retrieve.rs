//! Retrieval for answers: the page cut into passages (runs of lines of about
//! [`PASSAGE_CHARS`]), ranked against a question with BM25 (Robertson and Zaragoza 2009) over
//! normalised content words. The whole page is searched, comments and reviews included.

use super::text;
use super::words::{BM25_B, BM25_K1, PASSAGE_CHARS};
use std::collections::HashMap;

/// A passage of the page: its text and its byte offset in the text it was cut from.
#[derive(Clone, Debug, PartialEq)]
pub struct Passage {
    pub text: String,
    pub offset: usize,
}

/// Cuts text into passages of whole lines, each about `PASSAGE_CHARS` long (a longer line is a
/// passage of its own); blank lines are left out.
pub fn passages(text: &str) -> Vec<Passage> {
    let mut out: Vec<Passage> = Vec::new();
    let mut current: Option<(usize, usize)> = None; // (start, end) bytes
    let mut offset = 0;
    for line in text.split('\n') {
        let start = offset;
        let end = offset + line.len();
        offset = end + 1;
        if line.trim().is_empty() {
            continue;
        }
        current = match current {
            Some((s, e)) if end - s <= PASSAGE_CHARS || e - s < PASSAGE_CHARS / 4 => Some((s, end)),
            Some((s, e)) => {
                out.push(Passage { text: text[s..e].to_string(), offset: s });
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    if let Some((s, e)) = current {
        out.push(Passage { text: text[s..e].to_string(), offset: s });
    }
    out
}

/// A BM25 index over passages.
pub struct Bm25 {
    docs: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    average: f64,
    document_frequency: HashMap<String, f64>,
}

impl Bm25 {
    pub fn new(passages: &[Passage]) -> Bm25 {
        let mut docs = Vec::with_capacity(passages.len());
        let mut lengths = Vec::with_capacity(passages.len());
        let mut document_frequency: HashMap<String, f64> = HashMap::new();
        for passage in passages {
            let words = text::content_words(&passage.text);
            lengths.push(words.len() as f64);
            let mut counts: HashMap<String, f64> = HashMap::new();
            for word in words {
                *counts.entry(word).or_default() += 1.0;
            }
            for word in counts.keys() {
                *document_frequency.entry(word.clone()).or_default() += 1.0;
            }
            docs.push(counts);
        }
        let average = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        Bm25 { docs, lengths, average: average.max(1.0), document_frequency }
    }

    /// Passages by score for `query`, best first; only those matching at least one query word.
    pub fn rank(&self, query: &str) -> Vec<(usize, f64)> {
        let terms = query_terms(query);
        let mut scored: Vec<(usize, f64)> = self
            .docs
            .iter()
            .enumerate()
            .map(|(i, counts)| {
                let score = terms
                    .iter()
                    .map(|t| {
                        let tf = counts.get(t).copied().unwrap_or(0.0);
                        if tf == 0.0 {
                            return 0.0;
                        }
                        self.idf(t) * tf * (BM25_K1 + 1.0)
                            / (tf + BM25_K1 * (1.0 - BM25_B + BM25_B * self.lengths[i] / self.average))
                    })
                    .sum::<f64>();
                (i, score)
            })
            .filter(|(_, score)| *score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
    }

    /// How much of `query` a piece of `text` (a sentence of a passage) holds: the inverse
    /// document frequency of each query word it has, summed. A word few passages share says more
    /// than one most do: asked "How many strandings has Hori Parata overseen?", the sentence with
    /// "overseen" answers, not the one that names "Hori Parata" again (readability's guardian-1).
    pub fn overlap(&self, query: &str, text: &str) -> f64 {
        let terms = query_terms(query);
        let held: std::collections::HashSet<String> = text::content_words(text).into_iter().collect();
        terms.iter().filter(|t| held.contains(*t)).map(|t| self.idf(t)).sum()
    }

    /// BM25's inverse document frequency of a word over the passages.
    fn idf(&self, term: &str) -> f64 {
        let n = self.docs.len() as f64;
        let df = self.document_frequency.get(term).copied().unwrap_or(0.0);
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// The share of the query's content words that occur in any passage.
    pub fn query_coverage(&self, query: &str) -> f64 {
        let terms = query_terms(query);
        if terms.is_empty() {
            return 0.0;
        }
        terms.iter().filter(|t| self.document_frequency.contains_key(*t)).count() as f64 / terms.len() as f64
    }
}

/// A query's content words, each once.
fn query_terms(query: &str) -> Vec<String> {
    let mut terms = text::content_words(query);
    terms.sort();
    terms.dedup();
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passages_tile_lines_and_bm25_finds_the_answer() {
        let text = format!(
            "H1: Otters\n\n{}\n\nOtters use stones to crack open clam shells on their bellies.\n\n{}\n\nReviews: great boots, size 42 fits.",
            "Rivers are long and wet. ".repeat(30),
            "Fish swim upstream in spring. ".repeat(30)
        );
        let all = passages(&text);
        assert!(all.len() >= 3, "{all:?}");
        for p in &all {
            assert_eq!(&text[p.offset..p.offset + p.text.len()], p.text);
        }
        let index = Bm25::new(&all);
        let best = index.rank("What do otters use stones for?");
        assert!(all[best[0].0].text.contains("crack open clam"), "{best:?}");
        assert!(all[index.rank("Does size 42 fit?")[0].0].text.contains("size 42"));
        assert!(index.rank("Who won the election?").is_empty());
        assert_eq!(index.query_coverage("otters election"), 0.5);
        // A rare word the question shares weighs more than a common one.
        let question = "Why do otters crack clam shells?";
        let rare = index.overlap(question, "Otters crack open clam shells.");
        assert!(rare > index.overlap(question, "Otters swim in rivers."), "{rare}");
        assert_eq!(index.overlap(question, "Fish swim upstream."), 0.0);
    }
}
