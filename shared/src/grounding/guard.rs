//! The degeneration guard: watches a model's output as it streams and says where to stop — at a
//! repetition loop, a garbage token, a sentence it already wrote, or an echo of its instructions
//! or of JSON. Small models loop without a stop ("tailored tailored tailored … ununununun"), and
//! every token after the loop starts is wasted time.

use super::text;
use super::words::{ECHO_PHRASES, GARBAGE_SYLLABLE_REPEATS, GARBAGE_WORD_CHARS, LOOP_MAX_GRAM, LOOP_REPEATS};

/// Why the guard stopped generation.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trip {
    Loop,
    Garbage,
    RepeatedSentence,
    Echo,
}

/// Watches one streamed output.
pub struct LoopGuard {
    text: String,
    /// Echo phrases the page itself does not use (those it uses are the page's words).
    echoes: Vec<&'static str>,
    /// Where the clean text ends once tripped.
    tripped: Option<(usize, Trip)>,
}

impl LoopGuard {
    /// `page_lower` is the page text in lower case.
    pub fn new(page_lower: &str) -> LoopGuard {
        let echoes = ECHO_PHRASES.iter().copied().filter(|p| !page_lower.contains(p)).collect();
        LoopGuard { text: String::new(), echoes, tripped: None }
    }

    /// Adds a streamed piece; true when generation should stop now.
    pub fn push(&mut self, piece: &str) -> bool {
        if self.tripped.is_some() {
            return true;
        }
        self.text.push_str(piece);
        self.tripped = self.find_trip();
        self.tripped.is_some()
    }

    /// The output up to where it went wrong (all of it when it never did).
    pub fn clean_text(&self) -> &str {
        match &self.tripped {
            Some((at, _)) => &self.text[..*at],
            None => &self.text,
        }
    }

    pub fn trip(&self) -> Option<&Trip> {
        self.tripped.as_ref().map(|(_, t)| t)
    }

    fn find_trip(&self) -> Option<(usize, Trip)> {
        let lower = self.text.to_lowercase();
        // Lower-casing can change byte lengths; positions are only used when they line up.
        let aligned = lower.len() == self.text.len();
        if aligned {
            if let Some(at) = self.echoes.iter().filter_map(|p| lower.find(p)).min() {
                return Some((sentence_start(&self.text, at), Trip::Echo));
            }
            if let Some(at) = json_start(&self.text) {
                return Some((sentence_start(&self.text, at), Trip::Echo));
            }
        }
        if let Some(at) = loop_start(&self.text) {
            return Some((at, Trip::Loop));
        }
        if let Some(at) = garbage_start(&self.text) {
            return Some((at, Trip::Garbage));
        }
        repeated_sentence(&self.text).map(|at| (at, Trip::RepeatedSentence))
    }
}

/// The start of the sentence holding byte `at`.
fn sentence_start(text: &str, at: usize) -> usize {
    let before = &text[..at];
    before
        .char_indices()
        .rev()
        .find(|&(i, c)| {
            matches!(c, '.' | '!' | '?' | '\n') && before[i + c.len_utf8()..].starts_with([' ', '\n']) || c == '\n'
        })
        .map_or(0, |(i, c)| {
            let after = i + c.len_utf8();
            after + before[after..].len() - before[after..].trim_start().len()
        })
}

/// JSON structure in the output (`{"`, `":`), which no summary sentence holds.
fn json_start(text: &str) -> Option<usize> {
    ["{\"", "\":", "\": ", "[{", "}"].iter().filter_map(|p| text.find(p)).min()
}

/// Words with their byte offsets, lower-cased.
fn word_spans(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let part = c.is_alphanumeric() || c == '\'';
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, text[s..i].to_lowercase()));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text[s..].to_lowercase()));
    }
    out
}

/// Where a run of one to [`LOOP_MAX_GRAM`] words first repeats [`LOOP_REPEATS`] times in a row:
/// the end of its first occurrence (the text before it may still be a sentence).
fn loop_start(text: &str) -> Option<usize> {
    let words = word_spans(text);
    let mut found: Option<usize> = None;
    for n in 1..=LOOP_MAX_GRAM {
        let needed = n * LOOP_REPEATS;
        if words.len() < needed {
            break;
        }
        for i in 0..=words.len() - needed {
            let repeats = (1..LOOP_REPEATS).all(|r| (0..n).all(|k| words[i + k].1 == words[i + r * n + k].1));
            if repeats {
                let at = words[i + n].0;
                found = Some(found.map_or(at, |f: usize| f.min(at)));
                break;
            }
        }
    }
    found
}

/// Whether a sentence holds a loop.
pub fn has_loop(text: &str) -> bool {
    loop_start(text).is_some()
}

/// Whether a word is garbage: a syllable of one to three letters repeated
/// [`GARBAGE_SYLLABLE_REPEATS`] times or more, or far too long to be a word.
fn garbage_word(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    if chars.len() > GARBAGE_WORD_CHARS && !word.contains(['-', '/', '.']) {
        return true;
    }
    for size in 1..=3 {
        let needed = size * GARBAGE_SYLLABLE_REPEATS;
        if chars.len() < needed {
            continue;
        }
        for start in 0..=chars.len() - needed {
            let unit = &chars[start..start + size];
            if (1..GARBAGE_SYLLABLE_REPEATS).all(|r| &chars[start + r * size..start + (r + 1) * size] == unit)
                && unit.iter().all(|c| c.is_alphabetic())
            {
                return true;
            }
        }
    }
    false
}

fn garbage_start(text: &str) -> Option<usize> {
    for (at, word) in text.split_whitespace().map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w)) {
        let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
        let symbols = word.chars().filter(|c| !c.is_alphanumeric() && !c.is_whitespace()).count();
        if garbage_word(bare) || (word.chars().count() >= 4 && symbols * 4 >= word.chars().count() * 3) {
            return Some(sentence_start(text, at));
        }
        if word.contains("<|") || word.contains("|>") {
            return Some(sentence_start(text, at));
        }
    }
    None
}

/// Whether a sentence holds a garbage word.
pub fn has_garbage(text: &str) -> bool {
    garbage_start(text).is_some()
}

/// The start of a complete sentence that repeats an earlier one (compared by content words).
fn repeated_sentence(text: &str) -> Option<usize> {
    let sentences = text::sentences(text);
    let complete =
        if text.trim_end().ends_with(['.', '!', '?']) { sentences.len() } else { sentences.len().saturating_sub(1) };
    let mut seen: Vec<Vec<String>> = Vec::new();
    for s in &sentences[..complete] {
        let key = text::content_words(&s.text);
        if !key.is_empty() && seen.contains(&key) {
            return Some(s.offset);
        }
        seen.push(key);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pieces: &[&str]) -> LoopGuard {
        let mut guard = LoopGuard::new("otters swim in the river");
        for piece in pieces {
            if guard.push(piece) {
                break;
            }
        }
        guard
    }

    #[test]
    fn a_word_loop_stops_generation_and_keeps_what_came_before() {
        let guard = run(&["Otters swim well. The garden is tailored", " tailored tailored", " tailored and more"]);
        assert_eq!(guard.trip(), Some(&Trip::Loop));
        assert_eq!(guard.clean_text(), "Otters swim well. The garden is tailored ");
        let guard = run(&["Otters swim. a b c a b c a b c"]);
        assert_eq!(guard.trip(), Some(&Trip::Loop));
    }

    #[test]
    fn garbage_and_repeated_sentences_stop_generation() {
        let guard = run(&["Otters swim well. ununununununun"]);
        assert_eq!(guard.trip(), Some(&Trip::Garbage));
        assert_eq!(guard.clean_text(), "Otters swim well. ");
        let guard = run(&["Otters swim well. ", "Otters swim well. Then"]);
        assert_eq!(guard.trip(), Some(&Trip::RepeatedSentence));
        assert_eq!(guard.clean_text(), "Otters swim well. ");
    }

    #[test]
    fn echoes_of_the_request_stop_generation_unless_the_page_says_them() {
        let guard = run(&["Otters swim. The user asks for JSON output."]);
        assert_eq!(guard.trip(), Some(&Trip::Echo));
        assert_eq!(guard.clean_text(), "Otters swim. ");
        let guard = run(&["{\"summary\": \"Otters"]);
        assert_eq!(guard.trip(), Some(&Trip::Echo));
        assert_eq!(guard.clean_text(), "");
        let mut guard = LoopGuard::new("the user manual says otters swim");
        assert!(!guard.push("The user manual says otters swim."));
    }

    #[test]
    fn ordinary_sentences_pass() {
        let guard = run(&["Otters swim in the river. They eat fish, crabs and frogs; they rest on the banks."]);
        assert_eq!(guard.trip(), None);
        assert!(!has_loop("It was a very, very long day."));
        assert!(!has_garbage("Mississippi and Honolulu"));
    }
}
