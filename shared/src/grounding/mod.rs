//! Grounding: how Laika makes sure every sentence it shows is on the page.
//!
//! Pure logic, no I/O; the host's summary and answer services and the benchmark use it. Data
//! flows through the stages in this order:
//!
//! 1. [`text`]: the page text cut into sentences with their offsets, and the content words,
//!    numbers, names and addresses sentences are compared by.
//! 2. [`rank`]: the key points — the page's own sentences that best represent it (position,
//!    centrality, headings, diversity), shown first, each its own citation.
//! 3. [`retrieve`]: for a question, the passages that match it (BM25 over the whole page).
//! 4. [`guard`]: while a model streams, where to stop (loops, garbage, repeats, echoes of the
//!    request).
//! 5. [`support`]: the gate each model sentence passes before it is shown: supported by one or
//!    two page sentences, no novel number, name or address; its citation is the best support.
//!    Within it, [`align`]: the claim's words must be joined as the page joins them (one page
//!    sentence shortened, or two joined; no word added), which word counts cannot see.
//!
//! 6. [`shortening`]: when no gist of the page passes, a key point said in fewer words: its
//!    shorter forms (whole pieces its punctuation sets off, left out), which a small model is
//!    decoded as, and the check every shortening passes whatever engine wrote it.
//!
//! Beside them, [`find`]: where a user's `content.find` query occurs on the page.
//!
//! Every word list and threshold is in [`words`], with where it came from.

pub mod align;
pub mod find;
pub mod guard;
pub mod rank;
pub mod retrieve;
pub mod shortening;
pub mod support;
pub mod text;
pub mod words;

pub use guard::{LoopGuard, Trip};
pub use rank::{key_points, point_count, short_points};
pub use retrieve::{Bm25, Passage, Wanted, evidence, passages, wanted};
pub use shortening::{quote, shortenable, shortening_choice, shortenings, shortens, shorter_forms, voice};
pub use support::{PageIndex, Rejection, Support, Voice, anchored, clean_claim, strip_markers};
pub use text::{Sentence, content_words, reads_as_english, sentences, shorten};

use crate::observation::Observation;

/// The element a quote came from: a comment or item holding it, else the primary element.
pub fn handle_for(quote: &str, observation: &Observation) -> Option<String> {
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

/// The text a page is grounded against: the observed text, and the comments it does not hold
/// (answers search comments and reviews even where the reader leaves them out).
pub fn page_corpus(observation: &Observation) -> String {
    let mut corpus = observation.text.clone();
    for comment in &observation.comments {
        let probe: String = comment.text.chars().take(80).collect();
        if !probe.trim().is_empty() && !corpus.contains(probe.trim()) {
            corpus.push_str("\n\n");
            corpus.push_str(comment.text.trim());
        }
    }
    corpus
}
