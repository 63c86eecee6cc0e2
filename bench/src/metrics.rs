//! The two corpora's scores, ported line by line from their authors' evaluation scripts so that
//! the numbers compare with the published ones:
//!
//! - Zyte: `evaluate.py` of scrapinghub/article-extraction-benchmark (the commit in
//!   `zyte/SOURCE_COMMIT`);
//! - WCXB: `evaluate.py` of the web content extraction benchmark (the README's `word_f1`).
//!
//! Both scripts tokenise with Python's `re.findall(r'\w+', …)`; [`words`] reproduces Python's
//! `\w`, which is not the regex crate's (see [`PYTHON_WORD`]).

use regex::Regex;
use std::sync::LazyLock;

/// Python 3's `\w` on `str`: a character for which `str.isalnum()` holds (Unicode letters `L*`
/// and numbers `N*`) or `_`. The regex crate's Unicode `\w` differs: it also takes combining
/// marks, connector punctuation and joiners, and leaves out `No` numbers such as `²`. On
/// Devanagari, Thai or decomposed accents Python splits a word at every mark and Rust's `\w`
/// does not, which would shift shingles and bags away from what the authors' scripts count.
static PYTHON_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[\p{L}\p{N}_]+").expect("the word pattern is a valid constant"));

/// `re.findall(r'\w+', text)`: the maximal runs of word characters, in order.
pub fn words(text: &str) -> Vec<&str> {
    PYTHON_WORD.find_iter(text).map(|m| m.as_str()).collect()
}

/// The harmonic mean of a precision and a recall, 0 when both are 0.
pub fn harmonic_mean(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 }
}

/// The mean of some values; `None` for none (Python's `statistics.mean` raises there).
pub fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, count) = values.into_iter().fold((0.0, 0usize), |(sum, count), v| (sum + v, count + 1));
    (count > 0).then(|| sum / count as f64)
}

/// The Zyte article-extraction benchmark's metric: case-sensitive `\w+` words (the script's
/// `re.IGNORECASE` changes nothing for `\w`, and it never lowercases), overlapping 4-word
/// shingles counted as multisets, precision and recall per page, each averaged over the pages
/// where it is defined, and F1 from the two averages.
pub mod zyte {
    use super::{harmonic_mean, mean, words};
    use std::collections::HashMap;

    /// Words per shingle (`ngram_n=4` in the script).
    pub const SHINGLE_WORDS: usize = 4;

    /// The script's `_ngrams`: every run of [`SHINGLE_WORDS`] consecutive words; a text of
    /// 1 to 3 words is one shorter shingle of all its words, and a text without words has none.
    pub fn shingles<'t>(words: &'t [&'t str]) -> Vec<&'t [&'t str]> {
        // range(0, max(1, len(tokens) - n + 1)), keeping the non-empty tokens[i:i+n].
        let starts = (words.len() + 1).saturating_sub(SHINGLE_WORDS).max(1);
        (0..starts)
            .map(|start| &words[start..(start + SHINGLE_WORDS).min(words.len())])
            .filter(|shingle| !shingle.is_empty())
            .collect()
    }

    fn shingle_counts<'t>(words: &'t [&'t str]) -> HashMap<&'t [&'t str], u64> {
        let mut counts = HashMap::new();
        for shingle in shingles(words) {
            *counts.entry(shingle).or_insert(0) += 1;
        }
        counts
    }

    /// One page's score, as `string_shingle_matching` and the score functions compute it.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct PageScore {
        /// `precision_score`: 1 when nothing was missed or added (so also when both texts are
        /// empty), 0 when the prediction has no shingles, otherwise tp / (tp + fp).
        pub precision: f64,
        /// `recall_score`: 1 when nothing was missed or added, 0 when the truth has no
        /// shingles, otherwise tp / (tp + fn).
        pub recall: f64,
        /// Whether the page enters the precision average: the script averages precision only
        /// over pages with tp + fp > 0, so an empty prediction costs recall, never precision.
        pub counts_for_precision: bool,
        /// Whether the page enters the recall average (tp + fn > 0: the truth has words).
        pub counts_for_recall: bool,
        /// The script's `get_accuracy`: the two texts have exactly the same words.
        pub exact: bool,
    }

    impl PageScore {
        /// Not part of the authors' script, which gives no per-page F1: the harmonic mean of
        /// this page's precision and recall, for ranking pages.
        pub fn f1(&self) -> f64 {
            harmonic_mean(self.precision, self.recall)
        }
    }

    /// Scores one prediction against the page's `articleBody`.
    pub fn score_page(prediction: &str, truth: &str) -> PageScore {
        let truth_words = words(truth);
        let predicted_words = words(prediction);
        let truth_shingles = shingle_counts(&truth_words);
        let predicted_shingles = shingle_counts(&predicted_words);
        let (mut tp, mut fp, mut fn_) = (0u64, 0u64, 0u64);
        for (shingle, &predicted) in &predicted_shingles {
            let expected = truth_shingles.get(shingle).copied().unwrap_or(0);
            tp += predicted.min(expected);
            fp += predicted.saturating_sub(expected);
        }
        for (shingle, &expected) in &truth_shingles {
            fn_ += expected.saturating_sub(predicted_shingles.get(shingle).copied().unwrap_or(0));
        }
        // The script divides tp, fp and fn by their sum so long pages weigh no more than
        // short ones; every score below is a ratio of them, so the division changes nothing.
        let (tp, fp, fn_) = (tp as f64, fp as f64, fn_ as f64);
        let precision = if fp == 0.0 && fn_ == 0.0 {
            1.0
        } else if tp == 0.0 && fp == 0.0 {
            0.0
        } else {
            tp / (tp + fp)
        };
        let recall = if fp == 0.0 && fn_ == 0.0 {
            1.0
        } else if tp == 0.0 && fn_ == 0.0 {
            0.0
        } else {
            tp / (tp + fn_)
        };
        PageScore {
            precision,
            recall,
            counts_for_precision: tp + fp > 0.0,
            counts_for_recall: tp + fn_ > 0.0,
            exact: truth_words == predicted_words,
        }
    }

    /// `metrics_from_tp_fp_fns` plus the accuracy: the corpus-level numbers.
    #[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
    pub struct Summary {
        /// From the averaged precision and recall, not the mean of per-page F1.
        pub f1: Option<f64>,
        pub precision: Option<f64>,
        pub recall: Option<f64>,
        /// Share of pages whose words match the truth exactly.
        pub accuracy: Option<f64>,
        /// How many pages the precision average is over (those with a non-empty prediction).
        pub precision_pages: usize,
        /// How many pages the recall average is over (those with a non-empty truth).
        pub recall_pages: usize,
    }

    pub fn summarize<'a>(pages: impl IntoIterator<Item = &'a PageScore> + Clone) -> Summary {
        let precision = mean(pages.clone().into_iter().filter(|p| p.counts_for_precision).map(|p| p.precision));
        let recall = mean(pages.clone().into_iter().filter(|p| p.counts_for_recall).map(|p| p.recall));
        let f1 = match (precision, recall) {
            (Some(p), Some(r)) => Some(harmonic_mean(p, r)),
            _ => None,
        };
        Summary {
            f1,
            precision,
            recall,
            accuracy: mean(pages.clone().into_iter().map(|p| if p.exact { 1.0 } else { 0.0 })),
            precision_pages: pages.clone().into_iter().filter(|p| p.counts_for_precision).count(),
            recall_pages: pages.into_iter().filter(|p| p.counts_for_recall).count(),
        }
    }
}

/// WCXB's metric: lowercased `\w+` words as bags, precision, recall and F1 per page, each
/// averaged over all pages; plus the share of `with` snippets found in the output and of
/// `without` snippets found in it (the script's `without_rate`, lower is better).
pub mod wcxb {
    use super::{harmonic_mean, mean, words};
    use std::collections::HashMap;

    /// One page's score, as the script's `word_f1` and `snippet_check` compute it.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct PageScore {
        pub precision: f64,
        pub recall: f64,
        pub f1: f64,
        /// Share of the `with` snippets found in the output (1 when there are none).
        pub with_found: f64,
        /// Share of the `without` snippets found in the output. The script returns 1 when the
        /// page has no `without` snippets, as it does for `with`: such a page counts as if all
        /// its boilerplate had leaked. Kept, so the averages match the script's.
        pub without_found: f64,
    }

    /// `word_f1`: the script lowercases the whole text first and then takes `\w+` (the order
    /// matters: `İ` lowercases to `i` plus a combining dot, which is no word character).
    pub fn word_scores(prediction: &str, truth: &str) -> (f64, f64, f64) {
        let prediction = prediction.to_lowercase();
        let truth = truth.to_lowercase();
        let predicted_words = words(&prediction);
        let truth_words = words(&truth);
        // An empty truth is met only by an empty prediction; an empty prediction scores 0.
        if truth_words.is_empty() {
            return if predicted_words.is_empty() { (1.0, 1.0, 1.0) } else { (0.0, 0.0, 0.0) };
        }
        if predicted_words.is_empty() {
            return (0.0, 0.0, 0.0);
        }
        let mut truth_bag: HashMap<&str, u64> = HashMap::new();
        for word in &truth_words {
            *truth_bag.entry(word).or_insert(0) += 1;
        }
        let mut predicted_bag: HashMap<&str, u64> = HashMap::new();
        for word in &predicted_words {
            *predicted_bag.entry(word).or_insert(0) += 1;
        }
        let overlap: u64 =
            predicted_bag.iter().map(|(word, &count)| count.min(truth_bag.get(word).copied().unwrap_or(0))).sum();
        let precision = overlap as f64 / predicted_words.len() as f64;
        let recall = overlap as f64 / truth_words.len() as f64;
        (precision, recall, harmonic_mean(precision, recall))
    }

    /// `snippet_check`: the share of snippets that occur in the text as plain substrings after
    /// lowercasing both; no whitespace or punctuation normalisation, so a snippet the
    /// extractor splits across a line break is not found. 1 when there are no snippets.
    pub fn snippet_share_found(lowercase_text: &str, snippets: &[String]) -> f64 {
        if snippets.is_empty() {
            return 1.0;
        }
        let found = snippets.iter().filter(|snippet| lowercase_text.contains(&snippet.to_lowercase())).count();
        found as f64 / snippets.len() as f64
    }

    pub fn score_page(prediction: &str, truth: &str, with: &[String], without: &[String]) -> PageScore {
        let (precision, recall, f1) = word_scores(prediction, truth);
        let lowercase_prediction = prediction.to_lowercase();
        PageScore {
            precision,
            recall,
            f1,
            with_found: snippet_share_found(&lowercase_prediction, with),
            without_found: snippet_share_found(&lowercase_prediction, without),
        }
    }

    /// The averages the script prints, over every page given.
    #[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
    pub struct Summary {
        /// The mean of per-page F1 (not F1 of the mean precision and recall).
        pub f1: Option<f64>,
        pub precision: Option<f64>,
        pub recall: Option<f64>,
        /// Mean share of `with` snippets found (higher is better).
        pub with_found: Option<f64>,
        /// Mean share of `without` snippets found: the script's number, lower is better.
        pub without_found: Option<f64>,
        /// 1 − `without_found`: the mean share of `without` snippets absent (higher is
        /// better). Pages without `without` snippets count 0 here, as the script has it.
        pub without_absent: Option<f64>,
    }

    pub fn summarize<'a>(pages: impl IntoIterator<Item = &'a PageScore> + Clone) -> Summary {
        let average = |field: fn(&PageScore) -> f64| mean(pages.clone().into_iter().map(field));
        let without_found = average(|p| p.without_found);
        Summary {
            f1: average(|p| p.f1),
            precision: average(|p| p.precision),
            recall: average(|p| p.recall),
            with_found: average(|p| p.with_found),
            without_found,
            without_absent: without_found.map(|found| 1.0 - found),
        }
    }
}

/// Per-page extraction time, summarised.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct TimingSummary {
    pub median_ms: Option<f64>,
    /// Nearest rank: the smallest time that at least 90 % of the pages took no longer than.
    pub p90_ms: Option<f64>,
    pub mean_ms: Option<f64>,
    pub total_ms: f64,
}

pub fn summarize_timings(millis: &[f64]) -> TimingSummary {
    let mut sorted = millis.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[n / 2]),
        n => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    };
    let p90 = match sorted.len() {
        0 => None,
        n => Some(sorted[(n * 9).div_ceil(10) - 1]),
    };
    TimingSummary {
        median_ms: median,
        p90_ms: p90,
        mean_ms: mean(sorted.iter().copied()),
        total_ms: sorted.iter().sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn words_follow_pythons_backslash_w() {
        // Values from Python 3: re.findall(r'\w+', …).
        assert_eq!(words("Hello, wörld! it's x_1"), ["Hello", "wörld", "it", "s", "x_1"]);
        // Python splits at Devanagari vowel signs and viramas (combining marks)…
        assert_eq!(words("हिन्दी भाषा"), ["ह", "न", "द", "भ", "ष"]);
        // …takes other numbers such as ² and ½, and not the connector ‿.
        assert_eq!(words("x²y ½ a‿b"), ["x²y", "½", "a", "b"]);
        assert!(words(" \n—…").is_empty());
    }

    #[test]
    fn shingles_overlap_by_three_words() {
        let text = words("a b c d e f");
        let shingles: Vec<Vec<&str>> = zyte::shingles(&text).into_iter().map(<[&str]>::to_vec).collect();
        assert_eq!(shingles, [vec!["a", "b", "c", "d"], vec!["b", "c", "d", "e"], vec!["c", "d", "e", "f"]]);
    }

    #[test]
    fn short_texts_make_one_short_shingle_and_empty_texts_none() {
        let three = words("one two three");
        assert_eq!(zyte::shingles(&three), [&["one", "two", "three"][..]]);
        let four = words("one two three four");
        assert_eq!(zyte::shingles(&four).len(), 1);
        assert!(zyte::shingles(&words("")).is_empty());
        assert!(zyte::shingles(&words("—")).is_empty());
    }

    #[test]
    fn zyte_counts_shingles_as_multisets() {
        // The truth has "a b c d" twice; a prediction that has it once finds one of two.
        let truth = "a b c d a b c d";
        let score = zyte::score_page("a b c d", truth);
        // truth shingles: abcd ×2, bcda, cdab, dabc; prediction: abcd → tp 1, fp 0, fn 4.
        assert!(close(score.precision, 1.0));
        assert!(close(score.recall, 0.2));
        // A prediction that repeats a shingle more often than the truth pays for the extra.
        let doubled = zyte::score_page("a b c d x a b c d x a b c d", "a b c d");
        // prediction shingles: abcd ×3 + 8 others → tp 1 of 11 (fp 10), fn 0.
        assert!(close(doubled.precision, 1.0 / 11.0));
        assert!(close(doubled.recall, 1.0));
    }

    #[test]
    fn zyte_is_case_sensitive() {
        let score = zyte::score_page("The Cat sat down", "the cat sat down");
        assert!(close(score.precision, 0.0));
        assert!(!score.exact);
    }

    #[test]
    fn zyte_edge_cases_follow_the_script() {
        // Both empty: precision = recall = 1, and the page enters neither average.
        let both_empty = zyte::score_page("", "");
        assert_eq!(
            both_empty,
            zyte::PageScore {
                precision: 1.0,
                recall: 1.0,
                counts_for_precision: false,
                counts_for_recall: false,
                exact: true
            }
        );
        // Empty prediction: recall 0; precision 0 but left out of the precision average.
        let nothing = zyte::score_page("", "some words of the article body");
        assert!(close(nothing.recall, 0.0) && close(nothing.precision, 0.0));
        assert!(!nothing.counts_for_precision && nothing.counts_for_recall);
        // Empty truth: precision 0, left out of the recall average.
        let extra = zyte::score_page("a whole page of boilerplate", "");
        assert!(close(extra.precision, 0.0) && extra.counts_for_precision && !extra.counts_for_recall);
        // Identical: 1 and 1, exact.
        let same = zyte::score_page("One two, three four five.", "One two three four five");
        assert!(close(same.precision, 1.0) && close(same.recall, 1.0) && same.exact);
    }

    #[test]
    fn zyte_f1_comes_from_the_averages() {
        let pages = [
            zyte::score_page("a b c d", "a b c d"),             // p 1, r 1
            zyte::score_page("", "a b c d e"),                  // p left out, r 0
            zyte::score_page("a b c d e f g", "a b c d e f g"), // p 1, r 1
        ];
        let summary = zyte::summarize(&pages);
        assert_eq!(summary.precision, Some(1.0));
        assert_eq!(summary.precision_pages, 2);
        assert!(close(summary.recall.unwrap_or(f64::NAN), 2.0 / 3.0));
        assert!(close(summary.f1.unwrap_or(f64::NAN), 0.8));
        assert!(close(summary.accuracy.unwrap_or(f64::NAN), 2.0 / 3.0));
        let empty: [zyte::PageScore; 0] = [];
        assert_eq!(zyte::summarize(&empty).f1, None);
    }

    #[test]
    fn wcxb_compares_lowercased_bags() {
        let (p, r, f1) = wcxb::word_scores("The the cat, CAT dog", "the cat sat");
        // prediction bag: the 2, cat 2, dog 1; truth: the, cat, sat → overlap 2.
        assert!(close(p, 2.0 / 5.0));
        assert!(close(r, 2.0 / 3.0));
        assert!(close(f1, harmonic_mean(0.4, 2.0 / 3.0)));
        // Word order does not matter.
        assert_eq!(wcxb::word_scores("sat cat the", "the cat sat"), (1.0, 1.0, 1.0));
    }

    #[test]
    fn wcxb_edge_cases_follow_the_script() {
        assert_eq!(wcxb::word_scores("", ""), (1.0, 1.0, 1.0));
        assert_eq!(wcxb::word_scores("...", " "), (1.0, 1.0, 1.0));
        assert_eq!(wcxb::word_scores("anything", ""), (0.0, 0.0, 0.0));
        assert_eq!(wcxb::word_scores("", "the truth"), (0.0, 0.0, 0.0));
        assert_eq!(wcxb::word_scores("other words", "the truth"), (0.0, 0.0, 0.0));
    }

    #[test]
    fn wcxb_lowercases_before_tokenising() {
        // Python: 'İstanbul'.lower() is 'i̇stanbul' and \w+ then gives ['i', 'stanbul'].
        assert_eq!(wcxb::word_scores("i stanbul", "İstanbul"), (1.0, 1.0, 1.0));
    }

    #[test]
    fn snippets_match_case_insensitively_as_plain_substrings() {
        let text = "Read the FULL Story here.\nSubscribe to our\nnewsletter";
        let lower = text.to_lowercase();
        let snippets = ["full story".to_string(), "subscribe to our newsletter".to_string()];
        // The second is split by a line break in the text, and the script does not normalise.
        assert!(close(wcxb::snippet_share_found(&lower, &snippets), 0.5));
        assert!(close(wcxb::snippet_share_found(&lower, &[]), 1.0));
        let score = wcxb::score_page(text, "full story", &snippets[..1], &[]);
        assert!(close(score.with_found, 1.0));
        // No `without` snippets: the script counts them all as found.
        assert!(close(score.without_found, 1.0));
    }

    #[test]
    fn wcxb_summary_averages_page_f1() {
        let pages =
            [wcxb::score_page("a b", "a b", &[], &["x".into()]), wcxb::score_page("", "a b", &[], &["x".into()])];
        let summary = wcxb::summarize(&pages);
        assert_eq!(summary.f1, Some(0.5));
        assert_eq!(summary.without_found, Some(0.0));
        assert_eq!(summary.without_absent, Some(1.0));
    }

    #[test]
    fn timing_percentiles() {
        let summary = summarize_timings(&[5.0, 1.0, 3.0, 2.0, 4.0, 6.0, 7.0, 8.0, 9.0, 10.0]);
        assert_eq!(summary.median_ms, Some(5.5));
        assert_eq!(summary.p90_ms, Some(9.0));
        assert_eq!(summary.total_ms, 55.0);
        assert_eq!(summarize_timings(&[2.0]).p90_ms, Some(2.0));
        assert_eq!(summarize_timings(&[]).median_ms, None);
    }
}
