//! The host's use of [`laika_shared::grounding`]: citations for text the host did not write
//! sentence by sentence (a planner's summary), and the sentences the extractive engine answers
//! with. The logic itself (sentences, ranking, retrieval, the support check) lives in the shared
//! crate, pure and tested there.

use laika_shared::grounding::{self, PageIndex};
use laika_shared::observation::Observation;
use std::collections::HashSet;

pub use laika_shared::grounding::{Sentence, content_words, sentences, shorten};

/// Chooses up to `count` sentences that best represent the text, in page order: the key points,
/// or with a `question` the sentences sharing most of its words.
pub fn select_sentences(text: &str, count: usize, question: Option<&str>) -> Vec<Sentence> {
    let all = grounding::sentences(text);
    let Some(question) = question.filter(|q| !grounding::content_words(q).is_empty()) else {
        return grounding::key_points(&all, "", count).into_iter().map(|i| all[i].clone()).collect();
    };
    let wanted: HashSet<String> = grounding::content_words(question).into_iter().collect();
    let mut scored: Vec<(usize, usize)> = all
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.heading)
        .map(|(i, s)| {
            let words: HashSet<String> = grounding::content_words(&s.text).into_iter().collect();
            (words.intersection(&wanted).count(), i)
        })
        .filter(|(hits, _)| *hits > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen: Vec<usize> = scored.into_iter().take(count).map(|(_, i)| i).collect();
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
    /// Share of the claim's content words found in its best support.
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

/// For each sentence of `answer` that passes the grounding gate against `text`, its supporting
/// page sentence. A sentence the page does not support gets no citation rather than an invented
/// one.
pub fn cite(answer: &str, text: &str, observation: &Observation) -> Vec<Grounded> {
    let index = PageIndex::with_title(text, &observation.title);
    let mut out: Vec<Grounded> = Vec::new();
    for claim in grounding::sentences(answer) {
        let Ok(support) = index.check(&grounding::clean_claim(&claim.text)) else { continue };
        if out.iter().any(|g| g.offset == support.sentence.offset) {
            continue;
        }
        let quote = shorten(&support.sentence.text, 300);
        out.push(Grounded {
            claim: claim.text,
            handle_id: grounding::handle_for(&quote, observation),
            quote,
            offset: support.sentence.offset,
            support: support.support,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "H1: Otters return to the river\n\nRiver otters were seen near the old mill last week. \
        The sighting is the first in forty years. Volunteers counted five otters along a two-mile stretch.\n\n\
        H2: Why it matters\n\n- Otters need clean water and plenty of fish to survive.\n- Local groups cleaned \
        the river banks since 2015.";

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
    }
}
