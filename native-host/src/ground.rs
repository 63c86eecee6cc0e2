//! Grounding: sentences of the page text, extractive selection, and citations that tie each
//! sentence of an answer to a quote on the page and the element (handle) it came from.
//!
//! Lexical and deterministic on purpose: the same page and answer always give the same
//! citations, whatever engine wrote the answer, and a sentence with no support on the page gets
//! no citation rather than an invented one.

use laika_shared::observation::Observation;
use std::collections::{HashMap, HashSet};

/// A sentence of the page text, with its character offset in the text it was cut from.
#[derive(Clone, Debug, PartialEq)]
pub struct Sentence {
    pub text: String,
    pub offset: usize,
    /// Whether it comes from a heading line (kept as context, never chosen as a point).
    pub heading: bool,
}

const PREFIXES: &[&str] = &["Summary: ", "Caption: ", "Term: ", "Definition: ", "Code: ", "> ", "- "];

/// Strips the observation's layout prefix from a line; says whether it was a heading.
fn strip_prefix(line: &str) -> (&str, bool) {
    let trimmed = line.trim_start();
    if trimmed.len() > 3
        && trimmed.starts_with('H')
        && trimmed.as_bytes()[1].is_ascii_digit()
        && trimmed[2..].starts_with(": ")
    {
        return (&trimmed[4..], true);
    }
    for prefix in PREFIXES {
        if let Some(rest) = trimmed.strip_prefix(prefix) {
            return (rest, false);
        }
    }
    (trimmed, false)
}

/// Splits observation text into sentences (layout prefixes removed).
pub fn sentences(text: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in text.split('\n') {
        let (body, heading) = strip_prefix(line);
        let body_offset = line_start + (line.len() - body.len()).min(line.len());
        let mut start = 0;
        let bytes = body.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let end_mark = matches!(bytes[i], b'.' | b'!' | b'?');
            if end_mark && i + 2 < bytes.len() && bytes[i + 1] == b' ' {
                let next = body[i + 2..].chars().next().unwrap_or(' ');
                if next.is_uppercase() || next.is_ascii_digit() || next == '"' || next == '“' {
                    push_sentence(&mut out, &body[start..=i], body_offset + start, heading);
                    start = i + 2;
                }
            }
            i += 1;
        }
        push_sentence(&mut out, &body[start..], body_offset + start, heading);
        line_start += line.len() + 1;
    }
    out
}

fn push_sentence(out: &mut Vec<Sentence>, text: &str, offset: usize, heading: bool) {
    let trimmed = text.trim();
    if trimmed.chars().any(char::is_alphanumeric) {
        out.push(Sentence { text: trimmed.to_string(), offset, heading });
    }
}

const STOPWORDS: &[&str] = &[
    "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was", "one", "our", "out",
    "has", "have", "his", "how", "its", "may", "new", "now", "old", "see", "way", "who", "did", "get", "him", "let",
    "say", "she", "too", "use", "that", "with", "this", "from", "they", "will", "would", "there", "their", "what",
    "about", "which", "when", "make", "like", "time", "just", "know", "take", "into", "your", "some", "could", "them",
    "than", "then", "also", "been", "were", "more", "these", "those", "other", "such", "only", "over", "page", "here",
    "said", "each", "most", "very", "where", "after", "before", "while",
];

/// Lower-cased content words (3+ letters, no stopwords).
pub fn content_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// Chooses up to `count` sentences that best represent the text (word-frequency centrality with a
/// lead bonus), in page order. With a `question`, overlap with it is what counts.
pub fn select_sentences(text: &str, count: usize, question: Option<&str>) -> Vec<Sentence> {
    let all = sentences(text);
    let mut frequency: HashMap<String, f64> = HashMap::new();
    for sentence in &all {
        for word in content_words(&sentence.text).into_iter().collect::<HashSet<_>>() {
            *frequency.entry(word).or_default() += 1.0;
        }
    }
    let question_words: HashSet<String> = question.map(|q| content_words(q).into_iter().collect()).unwrap_or_default();
    let total = all.len().max(1) as f64;
    let mut scored: Vec<(f64, usize)> = all
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.heading && (40..=500).contains(&s.text.chars().count()))
        .map(|(i, s)| {
            let words = content_words(&s.text);
            let len = words.len().max(1) as f64;
            let centrality: f64 =
                words.iter().map(|w| frequency.get(w).copied().unwrap_or(0.0)).sum::<f64>() / len.sqrt();
            let lead = 1.0 + 0.5 * (1.0 - i as f64 / total);
            let score = if question_words.is_empty() {
                centrality * lead
            } else {
                let hits = words.iter().filter(|w| question_words.contains(*w)).count() as f64;
                hits * 10.0 + centrality * 0.01
            };
            (score, i)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // Near-duplicates (a teaser repeating the lead) would waste a point.
    let mut chosen: Vec<usize> = Vec::new();
    for (_, index) in scored {
        if chosen.len() >= count {
            break;
        }
        let words: HashSet<String> = content_words(&all[index].text).into_iter().collect();
        let duplicate = chosen.iter().any(|&c| {
            let other: HashSet<String> = content_words(&all[c].text).into_iter().collect();
            let shared = words.intersection(&other).count() as f64;
            shared / words.len().min(other.len()).max(1) as f64 > 0.7
        });
        if !duplicate {
            chosen.push(index);
        }
    }
    chosen.sort_unstable();
    chosen.into_iter().map(|i| all[i].clone()).collect()
}

/// One citation: a quote from the page that supports a sentence of the answer.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Grounded {
    /// The answer sentence this supports.
    pub claim: String,
    pub quote: String,
    /// Offset of the quote in the page text.
    pub offset: usize,
    pub handle_id: Option<String>,
    /// Share of the claim's content words found in the quote.
    pub support: f64,
}

impl Grounded {
    /// The citation of a laika.llmcp response: `{doc_id, quote, handle_id?}`.
    pub fn citation(&self, doc_id: &str) -> serde_json::Value {
        let mut citation = serde_json::json!({ "doc_id": doc_id, "quote": self.quote });
        if let Some(handle) = &self.handle_id {
            citation["handle_id"] = serde_json::json!(handle);
        }
        citation
    }
}

/// Finds, for each sentence of `answer`, the page sentence that supports it best, when at least
/// half of its content words are there. `text` is the whole page text that was read.
pub fn cite(answer: &str, text: &str, observation: &Observation) -> Vec<Grounded> {
    let page = sentences(text);
    let page_words: Vec<HashSet<String>> = page.iter().map(|s| content_words(&s.text).into_iter().collect()).collect();
    let mut out: Vec<Grounded> = Vec::new();
    for claim in sentences(answer) {
        let words: HashSet<String> = content_words(&claim.text).into_iter().collect();
        if words.len() < 2 {
            continue;
        }
        let best = page_words
            .iter()
            .enumerate()
            .filter(|(i, _)| !page[*i].heading || words.len() <= 4)
            .map(|(i, pw)| (words.intersection(pw).count() as f64 / words.len() as f64, i))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        let Some((support, index)) = best else { continue };
        if support < 0.5 || out.iter().any(|g| g.offset == page[index].offset) {
            continue;
        }
        let quote = shorten(&page[index].text, 200);
        out.push(Grounded {
            claim: claim.text,
            handle_id: handle_for(&quote, observation),
            quote,
            offset: page[index].offset,
            support,
        });
    }
    out
}

/// The element a quote came from: a comment or item holding it, else the primary element.
fn handle_for(quote: &str, observation: &Observation) -> Option<String> {
    let probe: String = quote.chars().take(60).collect();
    let probe = probe.trim_end_matches('…');
    observation
        .comments
        .iter()
        .find(|c| c.text.contains(probe))
        .and_then(|c| c.handle_id.clone())
        .or_else(|| {
            observation
                .items
                .iter()
                .find(|i| i.title.contains(probe) || i.snippet.contains(probe))
                .and_then(|i| i.handle_id.clone())
        })
        .or_else(|| observation.primary.as_ref().and_then(|p| p.handle_id.clone()))
}

/// Cuts text to at most `max` characters at a word boundary, marking the cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    let at = cut.rfind(' ').filter(|&i| i > max / 2).unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "H1: Otters return to the river\n\nRiver otters were seen near the old mill last week. \
        The sighting is the first in forty years. Volunteers counted five otters along a two-mile stretch.\n\n\
        H2: Why it matters\n\n- Otters need clean water and plenty of fish to survive.\n- Local groups cleaned \
        the river banks since 2015.";

    #[test]
    fn sentences_strip_prefixes_and_keep_offsets() {
        let all = sentences(TEXT);
        assert_eq!(all[0].text, "Otters return to the river");
        assert!(all[0].heading);
        let cleaner = all.iter().find(|s| s.text.starts_with("Local groups")).unwrap();
        assert_eq!(&TEXT[cleaner.offset..cleaner.offset + 12], "Local groups");
        assert!(all.iter().any(|s| s.text == "The sighting is the first in forty years."));
    }

    #[test]
    fn selection_is_in_page_order_without_headings() {
        let picked = select_sentences(TEXT, 3, None);
        assert_eq!(picked.len(), 3);
        assert!(picked.windows(2).all(|w| w[0].offset < w[1].offset));
        assert!(picked.iter().all(|s| !s.heading));
        let answer = select_sentences(TEXT, 1, Some("How many otters did volunteers count?"));
        assert!(answer[0].text.starts_with("Volunteers counted five otters"), "{answer:?}");
    }

    #[test]
    fn citations_need_support_on_the_page() {
        let observation = Observation::default();
        let cited =
            cite("- Volunteers counted five otters on the river.\n- Whales sing loudly in winter.", TEXT, &observation);
        assert_eq!(cited.len(), 1, "{cited:?}");
        assert_eq!(cited[0].quote, "Volunteers counted five otters along a two-mile stretch.");
        assert!(cited[0].support >= 0.5);
    }

    #[test]
    fn shorten_cuts_at_words() {
        assert_eq!(shorten("short", 10), "short");
        let cut = shorten("alpha beta gamma delta epsilon", 14);
        assert_eq!(cut, "alpha beta…");
    }
}
