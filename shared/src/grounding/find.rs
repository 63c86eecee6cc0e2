//! `content.find` on a page: where a query occurs in what Laika observed, as the page's own
//! sentences (comments and reviews included) and the controls whose caption holds it, each
//! with the element to light up.
//!
//! A user's find is the browser's: the words as typed, in that order, any case. Only when the
//! phrase occurs nowhere does a sentence holding every word of the query, in any order, count
//! ("boots size 42" finds "size 42 boots fit well").

use super::text::{self, shorten};
use super::words::{FIND_MAX_PLACES, FIND_QUOTE_CHARS};
use super::{handle_for, page_corpus};
use crate::observation::Observation;

/// One place a query was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The page's sentence (or the control's caption) holding the query.
    pub quote: String,
    /// The element to light up: the control, or the comment, item or main text holding it.
    pub handle_id: Option<String>,
    /// Whether the query's words stand there as typed (else each word occurs, in another order).
    pub exact: bool,
}

/// Lower case, every run of white space one space.
fn fold(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The words of a folded text (letters and digits).
fn words(folded: &str) -> Vec<&str> {
    folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect()
}

/// Where `query` occurs on the page, in page order (sentences, then controls), at most
/// [`FIND_MAX_PLACES`]. Empty when the query has no letter or digit.
pub fn find(observation: &Observation, query: &str) -> Vec<Found> {
    let phrase = fold(query);
    let wanted = words(&phrase);
    if wanted.is_empty() {
        return vec![];
    }
    let corpus = page_corpus(observation);
    let sentences = text::sentences(&corpus);
    let has_all = |text: &str| {
        let folded = fold(text);
        let present = words(&folded);
        wanted.iter().all(|w| present.contains(w))
    };
    let mut exact: Vec<Found> = vec![];
    let mut loose: Vec<Found> = vec![];
    let place = |text: &str, handle: Option<String>, exact: bool| Found {
        quote: shorten(text.trim(), FIND_QUOTE_CHARS),
        handle_id: handle,
        exact,
    };
    for sentence in &sentences {
        if fold(&sentence.text).contains(&phrase) {
            exact.push(place(&sentence.text, handle_for(&sentence.text, observation), true));
        } else if has_all(&sentence.text) {
            loose.push(place(&sentence.text, handle_for(&sentence.text, observation), false));
        }
    }
    // A control's caption ("Add to cart") is found on the control itself, unless the text
    // already quoted it.
    for element in &observation.elements {
        let caption = fold(&element.text);
        if caption.is_empty() || exact.iter().any(|f| fold(&f.quote) == caption) {
            continue;
        }
        if caption.contains(&phrase) {
            exact.push(place(&element.text, Some(element.handle_id.clone()), true));
        }
    }
    let found = if exact.is_empty() { loose } else { exact };
    found.into_iter().take(FIND_MAX_PLACES).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::{Comment, Element, Primary};

    fn page() -> Observation {
        Observation {
            url: "https://shop.example/boots".into(),
            title: "Trail boots".into(),
            text: "Trail boots\n\nThese trail boots are waterproof. The size 42 boots fit well.\n\nShipping takes three days."
                .into(),
            primary: Some(Primary { handle_id: Some("laika-1".into()), ..Default::default() }),
            comments: vec![Comment {
                text: "Waterproof indeed: I crossed a river in them.".into(),
                handle_id: Some("laika-7".into()),
                ..Default::default()
            }],
            elements: vec![Element {
                handle_id: "laika-3".into(),
                role: "button".into(),
                text: "Add to cart".into(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_phrase_is_found_in_any_case_with_the_element_to_light_up() {
        let found = find(&page(), "WATERPROOF");
        let quotes: Vec<&str> = found.iter().map(|f| f.quote.as_str()).collect();
        assert_eq!(quotes, ["These trail boots are waterproof.", "Waterproof indeed: I crossed a river in them."]);
        assert_eq!(found[0].handle_id.as_deref(), Some("laika-1"), "the main text");
        assert_eq!(found[1].handle_id.as_deref(), Some("laika-7"), "the comment itself");
        assert!(found.iter().all(|f| f.exact));
    }

    #[test]
    fn a_control_is_found_by_its_caption() {
        let found = find(&page(), "add to  cart");
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].quote.as_str(), found[0].handle_id.as_deref()), ("Add to cart", Some("laika-3")));
    }

    #[test]
    fn every_word_in_another_order_counts_only_when_the_phrase_is_nowhere() {
        let found = find(&page(), "boots size 42");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].quote, "The size 42 boots fit well.");
        assert!(!found[0].exact);
        // The phrase is on the page: the looser matches are not reported beside it.
        assert!(find(&page(), "trail boots").iter().all(|f| f.exact));
    }

    #[test]
    fn nothing_is_found_for_absent_words_or_a_query_without_words() {
        assert!(find(&page(), "umbrella").is_empty());
        assert!(find(&page(), " ?! ").is_empty());
    }
}
