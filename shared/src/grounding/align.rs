//! The restatement check: how a claim's words are joined, which word counts cannot see.
//!
//! The support check ([`super::support`]) asks whether a claim's content words stand in its best
//! page sentences. A small model recombines page words fluently into claims the page never makes:
//! roles swapped ("building companies aren't offering a hot drink to homeowners" where
//! homeowners don't offer their builder one), a noun added ("Māori tribes' *fear* of whale
//! strandings"), the title glued to a mangled clause. Each of those holds enough page words to
//! pass a share-of-words test, so a claim is also aligned to the page, word by word in order:
//!
//! - every content word must be in the page sentences the claim is aligned to (none added: a
//!   word the page does not say there is a word Laika cannot vouch for);
//! - read in order, the claim's content words fall into at most [`ALIGN_MAX_RUNS`] runs, each a
//!   subsequence of one page sentence (or the title) in that sentence's own order, skipping at
//!   most [`ALIGN_MAX_GAP`] of its content words between two of the run's words;
//! - no run goes back into a sentence an earlier run came from (its pieces put in another
//!   order, or another sentence's words spliced into its middle);
//! - at most [`ALIGN_MAX_SINGLE_RUNS`] run is a lone word (a word plucked from elsewhere is how
//!   "you shouldn't use metal utensils" becomes "the need to use metal utensils"), and one run of
//!   two words or more stands in a page sentence, not only in the title.
//!
//! A claim that passes is the page's sentence shortened, or two of its sentences joined: the
//! deletion-and-fusion a small model does faithfully. What it cannot express, a reordering of
//! who did what, is what it refuses. Runs are found greedily (each as long as it can reach): for
//! a sequence cut into blocks that must each be a subsequence of some sentence, the farthest
//! reach from each start gives the fewest blocks, since any part of a block that fits fits too.

use super::words::{ALIGN_MAX_GAP, ALIGN_MAX_RUNS, ALIGN_MAX_SINGLE_RUNS, ALIGN_SWAP_REACH};

/// One run of a claim: consecutive content words of the claim found, in order, in one sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Index of the sentence among those the alignment was given.
    pub sentence: usize,
    /// How many of the claim's content words the run holds.
    pub words: usize,
    /// The first and last positions it matched in the sentence's content words.
    pub first: usize,
    pub last: usize,
    /// The position each of its words matched, in the claim's order (a repeated word once).
    pub matched: Vec<usize>,
}

/// How a claim lines up with the page.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Alignment {
    pub runs: Vec<Run>,
    /// The claim's content words in none of the candidate sentences, in claim order.
    pub missing: Vec<String>,
}

impl Alignment {
    /// Whether the claim restates the page: nothing missing, few enough runs, at most
    /// [`ALIGN_MAX_SINGLE_RUNS`] of them a lone word, and one run of two words or more in a page
    /// sentence (`body` is how many of the aligned sequences are page sentences; the rest, the
    /// title, lends a claim its subject but supports nothing alone).
    pub fn restates(&self, body: usize) -> bool {
        self.missing.is_empty()
            && self.runs.len() <= ALIGN_MAX_RUNS
            && self.runs.iter().filter(|r| r.words == 1).count() <= ALIGN_MAX_SINGLE_RUNS
            && self.runs.iter().any(|r| r.sentence < body && r.words >= 2)
            && !self.revisits()
            && !self.bridges()
    }

    /// Whether a lone word joins runs from two other page sentences: the relation between two
    /// facts is then that one word, the model's. "The Google Cloud content is perfect for scoring
    /// tech scholarships and is also [available] for women in tech and military veterans"
    /// (wcxb-0167's part line, shown before this): the page's programs for women in tech and
    /// veterans are its scholarships', not the Google Cloud content's. A lone word inside one
    /// sentence's words ("slow to address") or at a claim's end ("along the river") may stand.
    pub fn bridges(&self) -> bool {
        self.runs.windows(3).any(|w| {
            w[1].words == 1
                && w[0].words >= 2
                && w[2].words >= 2
                && w[0].sentence != w[2].sentence
                && w[1].sentence != w[0].sentence
                && w[1].sentence != w[2].sentence
        })
    }

    /// Whether a later run goes back into a sentence an earlier run came from, either before
    /// where that run ended (the sentence's pieces put in another order: "a programmer has
    /// released a flaw in Minecraft" from "a flaw in Minecraft …, according to a programmer who
    /// has released code") or past words of another sentence spliced into its middle ("Life-
    /// threatening peanut allergies: babies who eat peanuts may have been on the rise" where the
    /// allergies have been on the rise). A lone word between is a word swapped for the page's
    /// ("slow to address" for "slow to respond"), which the one lone run allowed already bounds.
    pub fn revisits(&self) -> bool {
        self.runs.iter().enumerate().any(|(i, earlier)| {
            self.runs[i + 1..].iter().enumerate().any(|(k, later)| {
                let between = &self.runs[i + 1..i + 1 + k];
                later.sentence == earlier.sentence
                    && (later.first <= earlier.last
                        || between.iter().any(|r| r.sentence != earlier.sentence && r.words >= 2))
            })
        })
    }

    /// The sentence holding the most of the claim's words (the claim's citation).
    pub fn main_sentence(&self) -> Option<usize> {
        self.runs.iter().max_by(|a, b| a.words.cmp(&b.words).then(b.sentence.cmp(&a.sentence))).map(|r| r.sentence)
    }
}

/// Aligns `claim` (its content words in order) to `sentences` (each sentence's content words in
/// order), considering only the sentences in `candidates`.
pub fn align(claim: &[String], sentences: &[Vec<String>], candidates: &[usize]) -> Alignment {
    let mut alignment = Alignment::default();
    let mut at = 0;
    while at < claim.len() {
        // The candidate sentence whose run from here reaches farthest (ties: the earlier).
        let best = candidates
            .iter()
            .map(|&s| (reach(&claim[at..], &sentences[s]), s))
            .filter(|((n, _, _), _)| *n > 0)
            .max_by(|a, b| a.0.0.cmp(&b.0.0).then(b.1.cmp(&a.1)));
        match best {
            Some(((n, (first, last), matched), s)) => {
                alignment.runs.push(Run { sentence: s, words: n, first, last, matched });
                at += n;
            }
            None => {
                alignment.missing.push(claim[at].clone());
                at += 1;
            }
        }
    }
    alignment
}

/// How many of `claim`'s first words are a subsequence of `sentence` in order, each found at
/// most [`ALIGN_MAX_GAP`] content words past the farthest word matched so far (a word repeated in
/// the claim may stand once in the sentence). One word may come from just before the farthest
/// (within [`ALIGN_SWAP_REACH`]), once in a row: "the first sighting" for "the sighting is the
/// first" swaps neighbours; swapping who did what takes two steps back and ends the run.
/// Earliest matches leave the most room for the words after.
fn reach(claim: &[String], sentence: &[String]) -> (usize, (usize, usize), Vec<usize>) {
    let mut used: Vec<usize> = Vec::new();
    let mut farthest: Option<usize> = None;
    let mut stepped_back = false;
    let mut n = 0;
    for word in claim {
        if used.last().is_some_and(|&p| sentence[p] == *word) {
            n += 1;
            continue;
        }
        let from = farthest.map_or(0, |p| p + 1);
        let limit = farthest.map_or(sentence.len(), |p| (p + 2 + ALIGN_MAX_GAP).min(sentence.len()));
        if let Some(i) = (from..limit).find(|&i| sentence[i] == *word) {
            used.push(i);
            farthest = Some(i);
            stepped_back = false;
            n += 1;
            continue;
        }
        let back = farthest.filter(|_| !stepped_back).and_then(|p| {
            (p.saturating_sub(ALIGN_SWAP_REACH)..p).find(|&i| sentence[i] == *word && !used.contains(&i))
        });
        match back {
            Some(i) => {
                used.push(i);
                stepped_back = true;
                n += 1;
            }
            None => break,
        }
    }
    let span = (used.iter().copied().min().unwrap_or(0), used.iter().copied().max().unwrap_or(0));
    (n, span, used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::text::content_words;

    fn check(claim: &str, page: &[&str]) -> Alignment {
        let sentences: Vec<Vec<String>> = page.iter().map(|s| content_words(s)).collect();
        let candidates: Vec<usize> = (0..sentences.len()).collect();
        align(&content_words(claim), &sentences, &candidates)
    }

    #[test]
    fn a_shortened_sentence_restates_it() {
        let page = ["Less than half of homeowners offer their builder a hot drink, the survey by the FMB found."];
        let a = check("Less than half of homeowners offer their builder a drink.", &page);
        assert!(a.restates(usize::MAX), "{a:?}");
        assert_eq!(a.runs.len(), 1);
    }

    #[test]
    fn two_sentences_joined_restate_them() {
        let page = ["River otters were seen near the old mill last week.", "The sighting is the first in forty years."];
        let a = check("River otters were seen near the mill, the first sighting in forty years.", &page);
        assert!(a.restates(usize::MAX), "{a:?}");
        assert_eq!(a.runs.len(), 2);
        // Neighbours swapped ("the first sighting") stay one run; who did what swapped does not.
        let page = ["Homeowners rarely offer their builder a drink."];
        assert_eq!(check("Homeowners rarely offer a drink to their builder.", &page).runs.len(), 1);
        assert!(check("Builders rarely offer their homeowner a drink.", &page).runs.len() > 1);
    }

    #[test]
    fn a_lone_word_bridging_two_sentences_does_not_restate() {
        let page = [
            "The new course is perfect for scoring tech scholarships.",
            "Its programs are available online.",
            "They have scholarships for women in tech and military veterans.",
        ];
        let a = check(
            "The new course is perfect for scoring tech scholarships and is available for military veterans.",
            &page,
        );
        assert!(a.bridges(), "{a:?}");
        assert!(!a.restates(usize::MAX), "{a:?}");
        // A lone word inside one sentence's words, or at the end, bridges nothing.
        let a = check("The new course is perfect for scoring tech scholarships online.", &page);
        assert!(!a.bridges(), "{a:?}");
    }

    #[test]
    fn roles_swapped_do_not_restate() {
        let page = [
            "Less than half of homeowners offer their builder a hot drink, the survey by the FMB found.",
            "Building companies across the country took part.",
        ];
        let a = check("Less than half of building companies aren't offering a hot drink to homeowners.", &page);
        assert!(!a.restates(usize::MAX), "{a:?}");
    }

    #[test]
    fn a_word_the_page_does_not_say_there_is_missing() {
        let page = ["Māori tribes have turned to an expert on marine stranding after whale strandings."];
        let a = check("Māori tribes' fear of whale strandings and their expert on marine stranding.", &page);
        assert_eq!(a.missing, vec!["fear".to_string()]);
        assert!(!a.restates(usize::MAX));
    }

    #[test]
    fn words_plucked_from_far_apart_do_not_restate() {
        let page = [
            "The collection includes a 20th-century example of neon signs made by hand in the city.",
            "Letters in all caps and dashes were common then.",
            "De Miranda's introduction sets out the modern ambitions of the makers.",
        ];
        let a = check(
            "A 20th-century example of modern ambitions is re-created with all caps and dashes in de Miranda's introduction.",
            &page,
        );
        assert!(!a.restates(usize::MAX), "{a:?}");
    }

    #[test]
    fn a_word_far_past_the_last_one_starts_a_new_run() {
        let page = ["Otters eat fish, crabs, frogs, birds, eggs, insects, worms and plants in winter."];
        // "otters … winter" skips more than the allowed gap inside the sentence.
        assert_eq!(check("Otters eat in winter.", &page).runs.len(), 2);
        assert_eq!(check("Otters eat fish and crabs.", &page).runs.len(), 1);
    }

    #[test]
    fn a_sentence_read_again_out_of_order_does_not_restate() {
        let page = ["A flaw in Minecraft lets anyone crash a server, according to a programmer who has released code."];
        let a = check("A programmer has released a flaw in Minecraft that lets anyone crash a server.", &page);
        assert!(a.revisits(), "{a:?}");
        assert!(!a.restates(usize::MAX));
        assert!(
            check("A flaw in Minecraft lets anyone crash a server, a programmer says.", &page).restates(usize::MAX)
        );
        // Another sentence's words spliced into the middle of one.
        let page = [
            "Peanut allergies have been on the rise in the past decade, with little hope for a cure.",
            "Babies who eat peanuts early are less likely to become allergic.",
        ];
        let a = check(
            "Peanut allergies: babies who eat peanuts have been on the rise, with little hope for a cure.",
            &page,
        );
        assert!(a.revisits(), "{a:?}");
        assert!(check("Peanut allergies have been on the rise, and babies who eat peanuts early are less likely to become allergic.", &page).restates(usize::MAX));
    }
}
