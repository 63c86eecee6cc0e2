//! The text stage: page text cut into sentences (with their offsets, so a quote can be found
//! again), and the words a sentence is compared by.

use std::collections::HashSet;

use super::words::{
    BE_FORMS, BOUND_PAIRS, BOUNDS, CLOSING_QUOTES, ENGLISH_STOPWORD_SHARE_MIN, HEADING_PROSE_MIN_WORDS,
    INTENSIFYING_ADVERBS, JOINED_CLAUSES, MEANING_WORDS, META_WORDS, NEGATIONS, NON_NEGATING_PAIRS, OPENING_QUOTES,
    PROBE_STOPWORDS, QUESTION_VERBS, QUOTE_SPEAKER_REACH, QUOTE_SPEAKER_VERBS, SENTENCE_OPENING_WORDS, STOPWORDS,
};

/// A sentence of the page text, with its byte offset in the text it was cut from.
#[derive(Clone, Debug, PartialEq)]
pub struct Sentence {
    pub text: String,
    pub offset: usize,
    /// Whether it comes from a heading line (context for the sentences under it, never a point).
    pub heading: bool,
}

/// The observation's layout prefixes (shared/src/observe writes them at line starts).
const PREFIXES: &[&str] = &["Summary: ", "Caption: ", "Term: ", "Definition: ", "Code: ", "> ", "- "];

/// Strips the observation's layout prefix from a line; says whether it was a heading (`H2: `).
pub fn strip_prefix(line: &str) -> (&str, bool) {
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

/// Splits observation text into sentences (layout prefixes removed). A sentence ends at `.`,
/// `!` or `?` followed by a space and a capital, a digit or an opening quote, or at a line end.
pub fn sentences(text: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in text.split('\n') {
        let (body, heading) = strip_prefix(line);
        let body_offset = line_start + (line.len() - body.len()).min(line.len());
        let mut start = 0;
        let bytes = body.as_bytes();
        for i in 0..bytes.len() {
            let end_mark = matches!(bytes[i], b'.' | b'!' | b'?');
            if let Some(space) = end_mark.then(|| sentence_end(body, i, start)).flatten() {
                push_sentence(&mut out, &body[start..space], body_offset + start, heading);
                start = space + 1;
            } else if end_mark && glued_sentence(bytes, i) && i + 1 > start {
                // "…disorders.Several studies": two sentences the page's markup ran together.
                push_sentence(&mut out, &body[start..=i], body_offset + start, heading);
                start = i + 1;
            }
        }
        push_sentence(&mut out, &body[start..], body_offset + start, heading);
        line_start += line.len() + 1;
    }
    out
}

/// Whether a heading is prose the page set in heading type: a full sentence, closed with a full
/// stop, at least [`HEADING_PROSE_MIN_WORDS`] words long and with no label before a colon
/// (wcxb-0588's product subtitle, an `h5`). It may support a claim as any page sentence does
/// (`PageIndex::check`); a titled question ("What is X?") or a label stays context only.
pub fn reads_as_prose(body: &str) -> bool {
    // A label before a colon says what the rest is, and the page may go on to deny it: "Myth 3:
    // Eating carrots will greatly improve your night vision."
    end_mark(body) == Some('.')
        && !body.trim_end().ends_with("..")
        && !body.contains(':')
        && body.split_whitespace().count() >= HEADING_PROSE_MIN_WORDS
}

/// A page sentence as a line shows it: a quotation it opens and does not close (the speaker's
/// next sentence closes it on the page) is closed after it, and one it closes that an earlier
/// sentence opened is opened before it, so the line reads as the quotation it is ("“DNP is not a
/// miracle slimming pill.", readability's buzzfeed-1, shown as "“DNP is not a miracle slimming
/// pill.”"). Curly double quotes, and straight ones that stand alone at either end; the citation
/// keeps the page's own text.
pub fn as_shown(sentence: &str) -> String {
    let text = sentence.trim();
    let (opens, closes) = (text.matches('“').count(), text.matches('”').count());
    if text.starts_with('“') && opens > closes {
        return format!("{text}”");
    }
    if text.ends_with('”') && closes > opens {
        return format!("“{text}");
    }
    if text.matches('"').count() == 1 {
        if text.starts_with('"') {
            return format!("{text}\"");
        }
        if text.ends_with('"') {
            return format!("\"{text}");
        }
    }
    text.to_string()
}

/// The mark a sentence ends with, past the closing quotation marks after it ("… having decided
/// …?"", readability's medicalnewstoday): what tells a question, an exclamation or a statement.
pub fn end_mark(sentence: &str) -> Option<char> {
    sentence.trim_end().trim_end_matches(CLOSING_QUOTES).chars().next_back().filter(|c| matches!(c, '.' | '!' | '?'))
}

/// Where the sentence whose end mark stands at `i` ends, if it does: the byte of the space
/// after the mark, or after the closing quotation marks around it ("… bears the name of
/// "bounded evidence accumulation." Reaching this …", readability's medicalnewstoday, and "…
/// trademark on "Arduino." Then, …", lwn-1, were each one key point). The next word must open a
/// sentence, and the word before the mark be no abbreviation (or be an initial a sentence
/// opener follows). Inside quotation marks a question or exclamation ends one unless who said it
/// follows ("Are you okay?" Smith asked.).
fn sentence_end(body: &str, i: usize, start: usize) -> Option<usize> {
    let rest = &body[i + 1..];
    let closers = rest.len() - rest.trim_start_matches(CLOSING_QUOTES).len();
    // A question or exclamation inside quotation marks ends its sentence too ("… a consulting firm
    // or a traditional insurance carrier?” In Future Fellows …", wcxb-0370's lead, and six more
    // of the 299 dev pages read), unless who said it follows ("Are you okay?” Smith asked.").
    let said_after = || {
        rest[closers..].split_whitespace().take(QUOTE_SPEAKER_REACH).any(|w| {
            QUOTE_SPEAKER_VERBS.contains(&w.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase().as_str())
        })
    };
    if closers > 0 && (i <= start || (body.as_bytes()[i] != b'.' && said_after())) {
        return None;
    }
    let space = i + 1 + closers;
    if body.as_bytes().get(space) != Some(&b' ') {
        return None;
    }
    let after = &body[space + 1..];
    let next = after.chars().next()?;
    let opens = next.is_uppercase() || next.is_ascii_digit() || (closers == 0 && (next == '"' || next == '“'));
    let before = &body[start..i];
    (opens && (!is_abbreviation(before) || initial_ends_sentence(before, after))).then_some(space)
}

/// A sentence end with no space after it: a lower-case word of three letters or more, the mark,
/// then a capitalised word ("disorders.Several"), never an initialism ("U.S.") or a name with a
/// dot ("Node.js", "Booking.com").
fn glued_sentence(bytes: &[u8], i: usize) -> bool {
    i >= 3
        && bytes[i - 3..i].iter().all(u8::is_ascii_lowercase)
        && bytes.get(i + 1).is_some_and(u8::is_ascii_uppercase)
        && bytes.get(i + 2).is_some_and(u8::is_ascii_lowercase)
}

/// Whether a full stop after an initial or initialism ("X.", "U.S.") ends the sentence all the
/// same: the next word is one that opens a sentence and never follows an initial in a name
/// ([`SENTENCE_OPENING_WORDS`]): "… across Meta and X. They combine …" (wcxb-3036, whose two
/// sentences were shown as one gist), "… in the U.S. The study …"; "John F. Kennedy" stays one.
fn initial_ends_sentence(before: &str, after: &str) -> bool {
    let last = before.rsplit(|c: char| c.is_whitespace()).next().unwrap_or("");
    let next = after.split(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    last.chars().next().is_some_and(char::is_uppercase)
        && last.chars().all(|c| c == '.' || c.is_uppercase())
        && SENTENCE_OPENING_WORDS.contains(&next)
}

/// Whether the text before a full stop ends in an abbreviation that does not end a sentence
/// ("Dr.", "U.S.", "e.g.", a single initial).
fn is_abbreviation(before: &str) -> bool {
    // A quotation's opening mark is not part of the word ("the "U.S." Army").
    let last = before.rsplit(|c: char| c.is_whitespace()).next().unwrap_or("").trim_start_matches(OPENING_QUOTES);
    const ABBREVIATIONS: &[&str] =
        &["mr", "mrs", "ms", "dr", "prof", "st", "vs", "e.g", "i.e", "etc", "no", "inc", "jr", "sr"];
    let lower = last.to_lowercase();
    (last.chars().count() == 1 && last.chars().all(char::is_uppercase))
        || ABBREVIATIONS.contains(&lower.as_str())
        || (last.contains('.') && last.len() <= 5 && last.chars().all(|c| c == '.' || c.is_uppercase()))
}

fn push_sentence(out: &mut Vec<Sentence>, text: &str, offset: usize, heading: bool) {
    let trimmed_start = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    if trimmed.chars().any(char::is_alphanumeric) {
        out.push(Sentence { text: trimmed.to_string(), offset: offset + trimmed_start, heading });
    }
}

/// A word as sentences are compared by it: lower case, a possessive or plural `s` removed
/// ("farmers'" and "farmer" match), so a model's inflection of a page word still counts.
pub fn normalise(word: &str) -> String {
    let mut w = word.to_lowercase();
    for suffix in ["'s", "’s", "'", "’"] {
        if let Some(rest) = w.strip_suffix(suffix) {
            w = rest.to_string();
        }
    }
    if w.len() > 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    w
}

/// The words of a text: runs of letters, digits and inner apostrophes.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| w.trim_matches(['\'', '’']))
        .filter(|w| !w.is_empty())
}

/// The words of a text ([`words`]), lower-cased, in order: how a claim is compared with a page
/// sentence word for word.
pub fn lower_words(text: &str) -> Vec<String> {
    words(text).map(str::to_lowercase).collect()
}

/// Whether a text reads as English: enough of its words (three letters or more, the first
/// few thousand) are English function words. Too few words to tell counts as English.
pub fn reads_as_english(text: &str) -> bool {
    let words: Vec<String> = words(text)
        .filter(|w| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic))
        .take(2_000)
        .map(str::to_lowercase)
        .collect();
    if words.len() < 20 {
        return true;
    }
    let function_words = words.iter().filter(|w| STOPWORDS.contains(&w.as_str())).count();
    function_words as f64 / words.len() as f64 >= ENGLISH_STOPWORD_SHARE_MIN
}

/// What a question asks about: its content words less its names and the verbs it asks with
/// ([`QUESTION_VERBS`]); all its content words when that leaves none ("Who is Ada Lovelace?").
/// An answer must share one of them.
pub fn question_focus(question: &str) -> HashSet<String> {
    let all: HashSet<String> = content_words(question).into_iter().collect();
    let names: HashSet<String> = names(question).into_iter().collect();
    let focus: HashSet<String> =
        all.iter().filter(|w| !names.contains(*w) && !QUESTION_VERBS.contains(&w.as_str())).cloned().collect();
    if focus.is_empty() { all } else { focus }
}

/// Where `text` may be cut: the byte offsets at which one of `marks` (lower-case, matched
/// ignoring case) begins, in order, each once.
pub fn cut_points(text: &str, marks: &[&str]) -> Vec<usize> {
    let lower = text.to_lowercase();
    let mut cuts: Vec<usize> = marks
        .iter()
        .flat_map(|m| lower.match_indices(m).map(|(i, _)| i).collect::<Vec<_>>())
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// Where a participle's phrase follows a comma (", showcasing the intricate connection …",
/// ", making it …"): the byte offsets of those commas. What the phrase adds about the clause
/// before it can go with it, unless it says whose claim it is or when it holds
/// ([`super::words::LIMITING_PARTICIPLES`]).
pub fn participle_cuts(text: &str) -> Vec<usize> {
    text.match_indices(", ")
        .filter(|(i, _)| {
            let next = text[i + 2..].split(' ').next().unwrap_or_default();
            next.chars().count() > 4
                && next.ends_with("ing")
                && next.chars().all(|c| c.is_ascii_lowercase())
                && !super::words::LIMITING_PARTICIPLES.contains(&next)
        })
        .map(|(i, _)| i)
        .collect()
}

/// The part of a model's answer that answers the question: its clauses joined by
/// [`JOINED_CLAUSES`] must each share a word with `focus` ([`question_focus`]), and the answer is
/// cut, with a full stop, before the first that does not. `None` when the first shares none.
pub fn answering_head(answer: &str, focus: &HashSet<String>) -> Option<String> {
    let mut cuts = cut_points(answer, JOINED_CLAUSES);
    cuts.push(answer.len());
    let answers = |clause: &str| content_words(clause).iter().any(|w| focus.contains(w));
    let mut start = 0;
    for (n, &end) in cuts.iter().enumerate() {
        if !answers(&answer[start..end]) {
            if n == 0 {
                return None;
            }
            let head = answer[..start].trim_end_matches([',', ';', ' ']);
            return Some(format!("{head}."));
        }
        start = end;
    }
    Some(answer.to_string())
}

/// Normalised content words: three characters or more (or any number), no stopwords, no words
/// about the text itself.
pub fn content_words(text: &str) -> Vec<String> {
    content_words_at(text).into_iter().map(|(_, w)| w).collect()
}

/// The [`content_words`] of a text, each with its place among the text's [`words`]: where a
/// claim's run of content words stands in its sentence as written.
pub fn content_words_at(text: &str) -> Vec<(usize, String)> {
    words(text)
        .enumerate()
        .filter(|(_, w)| w.chars().count() >= 3 || w.chars().all(|c| c.is_ascii_digit()))
        .map(|(i, w)| (i, normalise(w)))
        .filter(|(_, w)| !STOPWORDS.contains(&w.as_str()) && !META_WORDS.contains(&w.as_str()))
        .collect()
}

/// Whether the word at `i` of `words` (lower case, as [`lower_words`] gives) bounds the figure
/// after it: one of [`BOUNDS`] right before a figure or "half", or the first of a pair
/// ([`BOUND_PAIRS`]: "up to", "more than", "as many as") before one.
pub fn bounds(words: &[String], i: usize) -> bool {
    let figure = |k: usize| words.get(k).is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()) || w == "half");
    let next = words.get(i + 1).map(String::as_str).unwrap_or_default();
    (BOUNDS.contains(&words[i].as_str()) && figure(i + 1))
        || BOUND_PAIRS.iter().any(|(a, b)| {
            *a == words[i]
                && *b == next
                && (figure(i + 2) || (words.get(i + 2).is_some_and(|w| w == "as") && figure(i + 3)))
        })
}

/// Whether the word at `i` of `words` (lower case, as [`lower_words`] gives) is an adverb in
/// "-ly" right after a form of "be" that narrows what follows it ("is unitarily
/// diagonalizable", "was largely destroyed"): any but an intensifier ([`INTENSIFYING_ADVERBS`]),
/// whose leaving out only weakens the claim.
pub fn restricts(words: &[String], i: usize) -> bool {
    let word = words[i].as_str();
    i > 0 && BE_FORMS.contains(&words[i - 1].as_str()) && ly_adverb(word) && !INTENSIFYING_ADVERBS.contains(&word)
}

/// Whether a word has the shape of an adverb in "-ly": five letters or more, all lower-case
/// ASCII ("intuitively", "unitarily"; not a name, not "fly").
pub fn ly_adverb(word: &str) -> bool {
    word.len() >= 5 && word.ends_with("ly") && word.chars().all(|c| c.is_ascii_lowercase())
}

/// Whether the word at `i` of `words` (lower case, as [`lower_words`] gives) negates: "not" and
/// its contractions, "no", "never", "none", "nor", "neither", "nothing", "nobody", "nowhere"
/// ([`NEGATIONS`]), unless it opens a phrase that negates nothing ("not only", "no doubt":
/// [`NON_NEGATING_PAIRS`]).
pub fn negates(words: &[String], i: usize) -> bool {
    let word = words[i].as_str();
    let next = words.get(i + 1).map(String::as_str).unwrap_or_default();
    (says_not(word) || NEGATIONS.contains(&word)) && !NON_NEGATING_PAIRS.iter().any(|(a, b)| *a == word && *b == next)
}

/// Whether a lower-case word is "not" contracted or joined: "isn't", "can’t", "cannot".
fn says_not(word: &str) -> bool {
    let word = word.replace('’', "'");
    word.ends_with("n't") || word == "cannot"
}

/// The words the quality probe counts (three letters or more, lower-cased as written, less
/// [`PROBE_STOPWORDS`]): what the page-level floor compares.
pub fn probe_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| w.trim_matches(['\'', '’']).to_lowercase())
        .filter(|w| w.chars().count() >= 3 && !PROBE_STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// The negation, comparison and quantifier words of a text ([`MEANING_WORDS`]), lower-cased; a contraction
/// ending in "n't" and "cannot" count as "not".
pub fn meaning_words(text: &str) -> HashSet<String> {
    words(text)
        .map(|w| w.to_lowercase().replace('’', "'"))
        .filter_map(|w| {
            if says_not(&w) { Some("not".to_string()) } else { MEANING_WORDS.contains(&w.as_str()).then_some(w) }
        })
        .collect()
}

/// Numbers in a text, normalised ("1,200" and "1200" are one number; "3.5" stays "3.5").
pub fn numbers(text: &str) -> Vec<String> {
    number_spans(text).into_iter().map(|(number, _)| number).collect()
}

/// Each number with the range of characters (not bytes) it was read from.
fn number_spans(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let inner =
            matches!(c, ',' | '.') && !current.is_empty() && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
        if c.is_ascii_digit() {
            if current.is_empty() {
                start = i;
            }
            current.push(c);
        } else if inner {
            if c == '.' {
                current.push('.');
            }
        } else if !current.is_empty() {
            out.push((std::mem::take(&mut current), start..i));
        }
    }
    if !current.is_empty() {
        out.push((current, start..chars.len()));
    }
    out
}

/// Figures as a reader takes them: [`numbers`], except that a range ("5-20%", "5 – 20", "5 to
/// 20") is one figure, "5-20", and so are figures sharing a suffix ("1- and 2-byte sequences",
/// "3- or 4-star hotels": "1-2", "3-4"; "designed for 1-byte sequences", SmolLM2-135M on
/// wcxb-0415, left out the 2-byte ones). A sentence that gives one end of a range alone states a figure its
/// page does not ("include a 5% tip" where the page says "a 5-20% tip", SmolLM2-135M on
/// wcxb-1066 in `cargo xtask bench quality`), though the number itself stands on the page.
pub fn figures(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut last_end: Option<usize> = None;
    for (number, span) in number_spans(text) {
        let between: String = last_end.map(|end| chars[end..span.start].iter().collect()).unwrap_or_default();
        let joiner = between.trim_matches(|c: char| c.is_whitespace() || matches!(c, '%' | '$' | '€' | '£'));
        match out.last_mut() {
            Some(previous) if matches!(joiner, "-" | "–" | "—" | "to" | "- and" | "- or" | "-and" | "-or") => {
                previous.push('-');
                previous.push_str(&number);
            }
            _ => out.push(number),
        }
        last_end = Some(span.end);
    }
    out
}

/// Names in a sentence: capitalised words that do not open it (nor follow a colon or a
/// quote), lower-cased. A name a sentence invents is one the page never uses.
pub fn names(sentence: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut first = true;
    for raw in sentence.split_whitespace() {
        let opens = first || raw.starts_with(['"', '“', '(']);
        first = raw.ends_with([':', '.', '!', '?']);
        if opens {
            continue;
        }
        // "Booking.Com", "Wi-Fi": each part is checked as a word of its own, as the page's
        // words are split.
        for word in raw.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')) {
            let word = word.trim_matches(['\'', '’']);
            if word.chars().count() < 2 || word == "I" {
                continue;
            }
            let capitalised =
                word.chars().next().is_some_and(char::is_uppercase) && word.chars().any(char::is_lowercase);
            let acronym =
                word.chars().all(|c| c.is_uppercase() || c.is_ascii_digit()) && word.chars().any(char::is_alphabetic);
            if capitalised || acronym {
                out.push(normalise(word));
            }
        }
    }
    out
}

/// Web addresses and domain-like tokens in a text (`https://…`, `www.…`, `example.com`).
pub fn addresses(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, '(' | ')' | '<' | '>' | '"' | '\'' | ',' | ';' | '[' | ']'))
                .trim_end_matches('.')
        })
        .filter(|w| {
            let lower = w.to_lowercase();
            lower.starts_with("http://")
                || lower.starts_with("https://")
                || lower.starts_with("www.")
                || [".com", ".org", ".net", ".io", ".gov", ".edu", ".co.uk"].iter().any(|tld| lower.ends_with(tld))
                    && lower.len() > 5
                    && !lower.contains(' ')
        })
        .map(str::to_lowercase)
        .collect()
}

/// Cuts text to at most `max` characters at a word boundary, marking the cut with `…`.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    let at = cut.rfind(' ').filter(|&i| i > max / 2).unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end())
}

/// Whether a sentence tells its reader to act on the site itself: it opens with a capitalised
/// [`SITE_ACTION_VERBS`] verb ("Read the … Review.", "Write your own review for …").
pub fn site_action(sentence: &str) -> bool {
    let first = sentence.split_whitespace().next().unwrap_or_default();
    first.starts_with(char::is_uppercase)
        && super::words::SITE_ACTION_VERBS.contains(&first.trim_end_matches([',', ':']).to_lowercase().as_str())
}

/// Whether `claim` is `sentence` again, nearly word for word: the longest run of their words in
/// common, in order, holds at least [`super::words::REPEAT_MIN_SHARE`] of each. "This is a quick
/// review of top 50+ software development Frameworks." is wcxb-1222's "… review on top 50+ …";
/// "This is a Linux script to join files and devices in linear mode together." is wcxb-2827's
/// "For joining in Linux files/devices in linear mode together i have this script …" rewritten,
/// and is not.
pub fn word_for_word(claim: &str, sentence: &str) -> bool {
    let (a, b) = (lower_words(claim), lower_words(sentence));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    // Longest common subsequence, one row at a time.
    let mut row = vec![0usize; b.len() + 1];
    for x in &a {
        let mut diagonal = 0;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if x == y { diagonal + 1 } else { row[j + 1].max(row[j]) };
            diagonal = above;
        }
    }
    let common = row[b.len()] as f64;
    let share = super::words::REPEAT_MIN_SHARE;
    common >= share * a.len() as f64 && common >= share * b.len() as f64
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_quotation_cut_by_the_sentence_split_is_shown_whole() {
        assert_eq!(as_shown("“DNP is not a miracle slimming pill."), "“DNP is not a miracle slimming pill.”");
        assert_eq!(as_shown("It is a deadly toxin.”"), "“It is a deadly toxin.”");
        assert_eq!(as_shown("\"Quoted and cut."), "\"Quoted and cut.\"");
        // Whole quotations and plain sentences stay as they are.
        for whole in ["“Man’s greed is hurting the whales,” says Parata.", "She said “no” twice.", "Plain words."]
        {
            assert_eq!(as_shown(whole), whole);
        }
    }

    use super::*;

    #[test]
    fn a_line_with_one_word_in_ten_changed_is_its_sentence_again() {
        assert!(word_for_word(
            "This is a quick review of top 50+ software development Frameworks.",
            "This is a quick review on top 50+ software development frameworks."
        ));
        assert!(!word_for_word(
            "This is a Linux script to join files and devices in linear mode together.",
            "For joining in Linux files/devices in linear mode together i have this script dm-joinlinear.sh from"
        ));
        assert!(!word_for_word(
            "Otters need clean water and fish.",
            "Otters need clean water and plenty of fish to survive."
        ));
    }

    #[test]
    fn sentences_keep_offsets_and_skip_abbreviations() {
        let text = "H1: Otters\nDr. Smith saw otters at 5 p.m. near the mill. They dove. U.S. rules apply.";
        let all = sentences(text);
        assert_eq!(all[0].text, "Otters");
        assert!(all[0].heading);
        assert_eq!(all[1].text, "Dr. Smith saw otters at 5 p.m. near the mill.");
        assert_eq!(&text[all[2].offset..all[2].offset + 9], "They dove");
        assert_eq!(all[3].text, "U.S. rules apply.");
        // After an initial or initialism, a word that opens sentences opens one.
        let split = |t: &str| sentences(t).into_iter().map(|s| s.text).collect::<Vec<_>>();
        assert_eq!(
            split("Ads run across Meta and X. They combine video with paid strategy."),
            ["Ads run across Meta and X.", "They combine video with paid strategy."]
        );
        assert_eq!(
            split("Prices rose in the U.S. The study found more."),
            ["Prices rose in the U.S.", "The study found more."]
        );
        assert_eq!(split("John F. Kennedy was president."), ["John F. Kennedy was president."]);
        assert_eq!(split("J. A. Smith wrote it."), ["J. A. Smith wrote it."]);
        // A full stop inside closing quotation marks ends a sentence; a question there does unless
        // who said it follows; an abbreviation need not.
        assert_eq!(
            split("It bears the name of \"bounded evidence accumulation.\" Reaching it matters."),
            ["It bears the name of \"bounded evidence accumulation.\"", "Reaching it matters."]
        );
        assert_eq!(
            split("They filed on “Arduino.” Then, in 2014, it changed."),
            ["They filed on “Arduino.”", "Then, in 2014, it changed."]
        );
        assert_eq!(split("\"Are you okay?\" Smith asked."), ["\"Are you okay?\" Smith asked."]);
        assert_eq!(split("“Are you okay?” the nurse asked him."), ["“Are you okay?” the nurse asked him."]);
        // Anything else after a quoted question opens the next sentence (wcxb-0370's lead).
        assert_eq!(
            split("Should I work for a firm or a carrier?” In 2009, we addressed several myths."),
            ["Should I work for a firm or a carrier?”", "In 2009, we addressed several myths."]
        );
        assert_eq!(
            split("Ask yourself, “does this spark joy?” If the answer is no, let it go."),
            ["Ask yourself, “does this spark joy?”", "If the answer is no, let it go."]
        );
        assert_eq!(split("He joined the \"U.S.\" Army in 1990."), ["He joined the \"U.S.\" Army in 1990."]);
        assert_eq!(split("It is called \"calm.\" and rests."), ["It is called \"calm.\" and rests."]);
        let glued = sentences("It helps anxiety disorders.Several studies agree. Node.js and Booking.com stay whole.");
        assert_eq!(
            glued.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(),
            ["It helps anxiety disorders.", "Several studies agree.", "Node.js and Booking.com stay whole."]
        );
    }

    #[test]
    fn words_are_normalised_for_comparison() {
        assert_eq!(content_words("The farmers' crops and the farmer's studies"), ["farmer", "crop", "farmer", "study"]);
        assert_eq!(content_words("The main point of this article is rain"), ["rain"]);
    }

    #[test]
    fn numbers_names_and_addresses_are_found() {
        assert_eq!(numbers("In 2019, 1,200 people paid $3.50 each."), ["2019", "1200", "3.50"]);
        assert_eq!(
            figures("Tip 5-20% of $1,200, or $5 – $20, for 2 to 3 hours; 15% and 6 more; 1- and 2-byte."),
            ["5-20", "1200", "5-20", "2-3", "15", "6", "1-2"]
        );
        assert_eq!(names("Otters were seen by Jane Doe at NASA's lab."), ["jane", "doe", "nasa"]);
        assert!(names("Otters swim.").is_empty());
        assert_eq!(addresses("See https://youtu.be/x1 or example.com."), ["https://youtu.be/x1", "example.com"]);
    }

    #[test]
    fn a_question_is_about_its_words_less_its_names_and_asking_verbs() {
        let focus = question_focus("What did Obama say about race relations?");
        assert_eq!(focus, ["race", "relation"].iter().map(|w| w.to_string()).collect());
        // Only a name to ask about: the name is the focus.
        assert_eq!(question_focus("Who is Ada Lovelace?"), ["ada", "lovelace"].iter().map(|w| w.to_string()).collect());
    }

    #[test]
    fn an_answer_is_cut_before_a_joined_clause_that_answers_something_else() {
        let focus = question_focus("What did Obama say about race relations?");
        assert_eq!(
            answering_head(
                "Obama said race relations have improved during his presidency, and he is confident Iran will be passed by Congress.",
                &focus
            )
            .as_deref(),
            Some("Obama said race relations have improved during his presidency.")
        );
        let whole = "Obama said race relations have improved, but that concerns about race are legitimate.";
        assert_eq!(answering_head(whole, &focus).as_deref(), Some(whole));
        assert_eq!(answering_head("Obama has been speaking at a White House interview.", &focus), None);
    }

    #[test]
    fn shorten_cuts_at_words() {
        assert_eq!(shorten("short", 10), "short");
        assert_eq!(shorten("alpha beta gamma delta epsilon", 14), "alpha beta…");
    }

    #[test]
    fn english_is_told_from_other_languages() {
        assert!(reads_as_english(
            "The volunteers counted five otters along the river, and they said that the water was cleaner than it had been for years. Most of them had never seen one there before, which made the morning a happy one for everybody who came."
        ));
        assert!(!reads_as_english(
            "Le projet de loi relatif au renseignement prévoit que les services pourront recueillir des données sur les communications des personnes soupçonnées, avec une autorisation donnée par le premier ministre après avis de la commission nationale."
        ));
        assert!(!reads_as_english(
            "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat."
        ));
        assert!(reads_as_english("Buy now"));
    }
}
