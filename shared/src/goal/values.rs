//! Values a goal points at on the page instead of writing them out: "Enter the value of Country
//! into the text field", "Find the 10th word in the paragraph, type that into the textbox",
//! "Solve the math problem and type your answer into the textbox". The value is read from the
//! observation's text, in plain code, or not at all: a reference nothing here can resolve is
//! no value, and the step that would type it stops the run before anything that would submit
//! the form without it ([`super::propose_next`]).
//!
//! Each reading is a rule of the dev split of `cargo xtask bench agent` (issue #56), generic over
//! pages: a label–value line (`Key: value`, a table row `Key | value`), the words of the page's
//! longest passage counted by an ordinal, and an arithmetic problem or a linear equation in `x`
//! the page states.

use crate::observation::Observation;

/// Words that open a reference to something on the page rather than a value written out ("the
/// value of …", "your answer", "that").
const REFERENCE_OPENERS: &[&str] = &["the", "your", "my", "its", "their", "that", "this", "it", "them", "his", "her"];

/// Pronouns that point back at what an earlier clause found ("Find the 10th word …, type that").
pub(super) const POINTING_BACK: &[&str] = &["it", "that", "this", "them"];

/// Nouns for a problem's answer ("type your answer", "enter the result").
const ANSWER_NOUNS: &[&str] = &["answer", "result", "solution", "sum", "total"];

/// Ordinals as words, and "last".
const ORDINAL_WORDS: &[(&str, usize)] = &[
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
];

/// Whether a value a goal gives (unquoted) points at the page instead of being the value.
pub(super) fn is_reference(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or_default().to_lowercase();
    REFERENCE_OPENERS.contains(&first.as_str())
}

/// Whether a reference asks for a value per field ("the value that corresponds with each
/// label", "every field's value"): each field the page labels takes the value its label has in
/// the page's text ([`label_value`]).
pub(super) fn per_field(reference: &str) -> bool {
    let words: Vec<String> = reference.split_whitespace().map(|w| w.to_lowercase()).collect();
    words.iter().any(|w| w == "value" || w == "values") && words.iter().any(|w| w == "each" || w == "every")
}

/// The value a reference points at on the page, if it can be read there.
pub(super) fn resolve(reference: &str, observation: &Observation) -> Option<String> {
    let words: Vec<String> = reference
        .split(|c: char| c.is_whitespace())
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    value_of(&words, reference, observation)
        .or_else(|| counted_word(&words, observation))
        .or_else(|| answer(&words, observation))
}

/// "the value of KEY": the value a `KEY: value` or `KEY | value` line of the page gives.
fn value_of(words: &[String], reference: &str, observation: &Observation) -> Option<String> {
    let of = words.iter().position(|w| w == "of")?;
    if !words[..of].iter().any(|w| w == "value") {
        return None;
    }
    // The key as written (its case and inner punctuation), after "of".
    let lower = reference.to_lowercase();
    let key = reference[lower.find(" of ")? + 4..].trim().trim_matches(['"', '“', '”', '\'']).trim();
    label_value(key, &observation.text)
}

/// The value a page gives a label on a line of its own: `Label: value`, `Label | value`.
pub(super) fn label_value(label: &str, text: &str) -> Option<String> {
    let label = label.trim().to_lowercase();
    if label.is_empty() {
        return None;
    }
    text.lines().find_map(|line| {
        let (key, value) = line.split_once(" | ").or_else(|| line.split_once(": "))?;
        (key.trim().trim_end_matches(':').to_lowercase() == label)
            .then(|| value.trim().to_string())
            .filter(|v| !v.is_empty())
    })
}

/// Places whose text is a field's value, which Laika never reads ("the last word in the text
/// area"): a counted word there is not looked for in the page's text.
const FIELD_PLACES: &[&str] = &["textarea", "area", "field", "box", "input"];

/// "the 10th word in the paragraph", "the last word": a word of the page's longest passage.
fn counted_word(words: &[String], observation: &Observation) -> Option<String> {
    let noun = words.iter().position(|w| w == "word")?;
    if words[noun..].iter().any(|w| FIELD_PLACES.contains(&w.as_str())) {
        return None;
    }
    let count = words[..noun].iter().rev().find_map(|w| {
        if w == "last" {
            return Some(usize::MAX);
        }
        let digits = w.trim_end_matches(|c: char| c.is_alphabetic());
        digits.parse().ok().or_else(|| ORDINAL_WORDS.iter().find(|(name, _)| name == w).map(|(_, n)| *n))
    })?;
    // A line that states the request itself (a page may show it) is not what it points at.
    let request = words.join(" ");
    let passage = observation
        .text
        .lines()
        .filter(|line| !plain_words(line).contains(&request))
        .max_by_key(|l| l.split_whitespace().count())?;
    let page_words: Vec<&str> = passage
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let word = if count == usize::MAX { page_words.last() } else { page_words.get(count.checked_sub(1)?) };
    word.map(|w| w.to_string())
}

/// A line's words as [`resolve`] reads a reference's: lower case, outer punctuation trimmed.
fn plain_words(line: &str) -> String {
    line.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// "your answer", "the result": the answer to the arithmetic problem the page states (`8 - 7 =`),
/// or `x` of the linear equation it states (`8 - x = 75`).
fn answer(words: &[String], observation: &Observation) -> Option<String> {
    if !words.iter().any(|w| ANSWER_NOUNS.contains(&w.as_str())) {
        return None;
    }
    observation.text.lines().find_map(|line| {
        let line = line.trim();
        let (left, right) = line.split_once('=')?;
        let (left, right) = (left.trim(), right.trim());
        if left.is_empty() || !left.chars().any(|c| c.is_ascii_digit()) {
            return None;
        }
        if right.is_empty() && !left.contains('x') {
            return arithmetic(left).map(format_number);
        }
        solve_for_x(left, right).map(format_number)
    })
}

/// An arithmetic expression of numbers and `+ - * / ×  ÷`, by the calculator of `app.calculate`.
fn arithmetic(expression: &str) -> Option<f64> {
    let expression = expression.replace('×', "*").replace('÷', "/");
    if !expression.chars().all(|c| c.is_ascii_digit() || " .+-*/()".contains(c)) {
        return None;
    }
    crate::calc::calculate(&expression, None).ok().map(|c| c.result)
}

/// `x` of `left = right` when the equation is linear in `x`: f(x) = left − right at 0 and 1.
fn solve_for_x(left: &str, right: &str) -> Option<f64> {
    if !format!("{left}{right}").contains('x') {
        return None;
    }
    let at = |x: f64| {
        let put = |side: &str| side.replace('x', &format!("({x})"));
        let expression = format!("({}) - ({})", put(left), put(right));
        if !expression.chars().all(|c| c.is_ascii_digit() || " .+-*/()".contains(c)) {
            return None;
        }
        crate::calc::calculate(&expression, None).ok().map(|c| c.result)
    };
    let (f0, f1, f2) = (at(0.0)?, at(1.0)?, at(2.0)?);
    let slope = f1 - f0;
    // Linear: the same slope between 1 and 2; and x must appear with a slope.
    if slope == 0.0 || ((f2 - f1) - slope).abs() > 1e-9 {
        return None;
    }
    Some(-f0 / slope)
}

/// A number as a person types it: no ".0" on whole numbers.
fn format_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 { format!("{}", value as i64) } else { format!("{value}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> Observation {
        Observation { text: text.into(), ..Observation::default() }
    }

    #[test]
    fn references_are_told_from_values() {
        assert!(is_reference("the value of Country"));
        assert!(is_reference("your answer"));
        assert!(is_reference("that"));
        assert!(!is_reference("Ada Lovelace"));
        assert!(!is_reference("42"));
    }

    #[test]
    fn a_value_per_field_is_told_from_one_value() {
        assert!(per_field("the value that corresponds with each label"));
        assert!(!per_field("the value of Country"));
    }

    #[test]
    fn a_label_value_line_gives_the_value() {
        let p = page("Enter the value of Country into the text field.\nLast name | Logan\nCountry | Kyrgyzstan");
        assert_eq!(resolve("the value of Country", &p).as_deref(), Some("Kyrgyzstan"));
        assert_eq!(resolve("the value of last name", &p).as_deref(), Some("Logan"));
        assert_eq!(label_value("Clearance Level", "Clearance Level: Secret"), Some("Secret".into()));
        assert_eq!(resolve("the value of Height", &p), None);
    }

    #[test]
    fn a_counted_word_of_the_longest_passage() {
        // The request, shown on the page and longer than the passage, is not the passage.
        let p = page(
            "Find the 3rd word in the paragraph, then type that into the textbox and press Submit.\nNec, eget magna accumsan tortor egestas. Felis sit.",
        );
        assert_eq!(resolve("the 3rd word in the paragraph", &p).as_deref(), Some("magna"));
        let p = page("Nec, eget magna accumsan tortor egestas. Felis sit.");
        assert_eq!(resolve("the first word", &p).as_deref(), Some("Nec"));
        assert_eq!(resolve("the last word in the paragraph", &p).as_deref(), Some("sit"));
        assert_eq!(resolve("the 40th word", &p), None);
        // A field's text is its value, never read.
        assert_eq!(resolve("the last word in the text area", &p), None);
    }

    #[test]
    fn an_arithmetic_problem_or_a_linear_equation_gives_the_answer() {
        assert_eq!(resolve("your answer", &page("Solve it.\n8 - 7 =")).as_deref(), Some("1"));
        assert_eq!(resolve("your answer", &page("Solve for x.\n8 - x = 75\nx =")).as_deref(), Some("-67"));
        assert_eq!(resolve("the answer", &page("3 × 4 =")).as_deref(), Some("12"));
        assert_eq!(resolve("the answer", &page("2 * x + 1 = 8")).as_deref(), Some("3.5"));
        assert_eq!(resolve("your answer", &page("x * x = 4")), None);
        assert_eq!(resolve("your answer", &page("No problem here.")), None);
    }
}
