//! The grammar a Librarian response is decoded under (llguidance's Lark syntax, through
//! mistral.rs's `Constraint::Lark`), built for each request so that a small model can only write
//! a response the parser accepts and the contract allows:
//! - the envelope and every tag are fixed text, one tag per line;
//! - `request_id` is the request's own;
//! - `kind` is one the run accepts, and each kind carries the target it needs: an existing
//!   note's id (only ids of the request's sources) or, for `create_note`, a taxonomy topic;
//! - at most `max_operations` operations, numbered `op_1`, `op_2`… in order;
//! - a title is words of the note it is for, a body sentences of it (of all sources, for a new
//!   note): nothing in either can be invented;
//! - other free text never holds `<` (it would open a tag) and each field has a token limit,
//!   so the whole response fits the stage's `max_tokens` and is never cut before its closing
//!   tag.

use laika_shared::librarian::Request;

/// The reasons an operation may give. A reason is shown on the approval card, and a small
/// model's own reasons were claims about the notes that the notes do not make (seen in the
/// bench: a reason written about the other note of the run); these say only what the change
/// does.
pub const REASONS: &[&str] = &[
    "The title now says what the note is about.",
    "The note now keeps only its main points.",
    "The notes share these points.",
    "The note belongs under this topic.",
];

/// Token limits of the free-text fields (what fits a note title, a short note, a reason).
mod limits {
    pub const SUMMARY_TOKENS: usize = 40;
    pub const TITLE_TOKENS: usize = 24;
    /// The longest of [`super::REASONS`], with room.
    pub const REASON_TOKENS: usize = 16;
    /// Words of a title (each a word of the note).
    pub const TITLE_WORDS: usize = 12;
    /// Sentences of a body (each a sentence of the note), and the longest a body may copy:
    /// three of them stay within [`BODY_TOKENS`] (English runs about four characters a token).
    pub const BODY_SENTENCES: usize = 3;
    pub const SENTENCE_CHARS: usize = 200;
    /// Tokens of a free body (a retag's tags, a relink's ids).
    pub const BODY_TOKENS: usize = 160;
    pub const WARNINGS_TOKENS: usize = 24;
    /// Operations a response may hold at most under the grammar, whatever the request allows:
    /// with the limits above, three operations and the envelope stay under 900 tokens.
    pub const OPERATIONS: usize = 3;
}

/// The most tokens a response under [`grammar`] can take (for the stage's `max_tokens`).
pub fn max_response_tokens() -> usize {
    // Each tag line is at most ~12 tokens; an operation has 8 of them.
    let operation = 8 * 12 + limits::TITLE_TOKENS + limits::BODY_TOKENS + limits::REASON_TOKENS + 6;
    6 * 12 + limits::SUMMARY_TOKENS + limits::WARNINGS_TOKENS + limits::OPERATIONS * operation
}

/// A Lark string literal (JSON's escapes are Lark's).
fn literal(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

fn alternatives(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().map(|i| literal(&i)).collect::<Vec<_>>().join(" | ")
}

/// Words of a text a title may use (letters and digits; each once, in order of appearance).
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if !out.iter().any(|w| w == word) {
            out.push(word.to_string());
        }
    }
    out
}

/// Sentences of a text a body may copy (headings, fragments of under four words and sentences
/// longer than [`limits::SENTENCE_CHARS`] left out).
fn sentences_of(text: &str) -> Vec<String> {
    laika_shared::grounding::sentences(text)
        .into_iter()
        .filter(|s| {
            // A sentence the request clipped ends in "…": not one the note has.
            !s.heading
                && s.text.split_whitespace().count() >= 4
                && s.text.chars().count() <= limits::SENTENCE_CHARS
                && !s.text.trim_end().ends_with('…')
        })
        .map(|s| s.text.trim().to_string())
        .collect()
}

/// Rules for a title in the words of `text` and a body of its sentences, named `{name}`:
/// `title_{name}` and `body_{name}`.
fn grounded_rules(name: &str, text: &str, out: &mut String) -> bool {
    let (words, sentences) = (words(text), sentences_of(text));
    if words.is_empty() || sentences.is_empty() {
        return false;
    }
    out.push_str(&format!(
        "title_{name}: word_{name} (\" \" word_{name}){{0,{}}}\nword_{name}: {}\nbody_{name}: sentence_{name} (\" \" sentence_{name}){{0,{}}}\nsentence_{name}: {}\n",
        limits::TITLE_WORDS - 1,
        alternatives(words),
        limits::BODY_SENTENCES - 1,
        alternatives(sentences),
    ));
    true
}

/// The grammar of a response to `request`. `fallback_only` allows only `create_note` and
/// `rewrite_note` (the spec's strict fallback mode).
///
/// A note's new title is written in that note's own words and its new body is sentences copied
/// from it; a new note's, in the words and sentences of all the sources. The grounding check
/// still runs on every answer; under this grammar a small model cannot fail it by inventing.
pub fn grammar(request: &Request, fallback_only: bool) -> String {
    let max_operations = request.constraints.max_operations.min(limits::OPERATIONS);
    let mut rules = String::new();
    let mut targets = vec![];
    for (i, source) in request.sources.iter().enumerate() {
        let name = format!("n{i}");
        let text = format!("{}\n{}", source.title, source.body_markdown);
        if !grounded_rules(&name, &text, &mut rules) {
            continue;
        }
        let id = &source.source_id;
        let head = |kind: &str| format!("\"<kind>{kind}</kind>\\n<target_note_id>{id}</target_note_id>\\n<title>\"");
        targets.push(format!(
            "{} title_{name} \"</title>\\n<body_markdown>\" body_{name} \"</body_markdown>\\n\"",
            head("rewrite_note")
        ));
        if !fallback_only {
            targets.push(format!(
                "{} title_{name} \"</title>\\n<body_markdown>\" body_{name} \"</body_markdown>\\n\"",
                head("retitle_note")
            ));
            for kind in ["retag_note", "relink_note", "defer"] {
                targets.push(format!(
                    "{} title_{name} \"</title>\\n<body_markdown>\" free_body \"</body_markdown>\\n\"",
                    head(kind)
                ));
            }
        }
    }
    let all: String = request.sources.iter().map(|s| format!("{}\n{}\n", s.title, s.body_markdown)).collect();
    if grounded_rules("all", &all, &mut rules) {
        targets.push(
            "\"<kind>create_note</kind>\\n<target_path>\" topic \"</target_path>\\n<title>\" title_all \"</title>\\n<body_markdown>\" body_all \"</body_markdown>\\n\""
                .into(),
        );
    }
    let topic = if request.taxonomy.is_empty() {
        "/[a-z0-9][a-z0-9_\\/-]*/".to_string()
    } else {
        alternatives(request.taxonomy.clone())
    };
    // Operations numbered in order (op_1, op_2, …): one rule per position, each optionally
    // followed by the next, so an id is never repeated.
    let max_operations = if targets.is_empty() { 0 } else { max_operations };
    let mut operations = String::new();
    for n in (1..=max_operations).rev() {
        let next = if n == max_operations { String::new() } else { format!(" operations_{}?", n + 1) };
        operations.push_str(&format!(
            "operations_{n}: \"<operation>\\n<operation_id>op_{n}</operation_id>\\n\" target \"<reason>\" reason \"</reason>\\n<confidence>\" CONFIDENCE \"</confidence>\\n</operation>\\n\"{next}\n"
        ));
    }
    let first = if max_operations == 0 { String::new() } else { "operations_1?".into() };
    let target = if targets.is_empty() { String::new() } else { format!("target: {}\n", targets.join(" | ")) };
    format!(
        r#"start: "<librarian_response>\n<request_id>" {request_id} "</request_id>\n<status>" status "</status>\n<summary>" summary "</summary>\n<operations>\n" {first} "</operations>\n<warnings>" warnings? "</warnings>\n</librarian_response>"
status: "ok" | "needs_clarification" | "rejected"
{operations}{target}{rules}topic: {topic}
summary[max_tokens={summary}]: /[^<\n]+/
free_body[max_tokens={body}]: /[^<]+/
reason: {reasons}
warnings[max_tokens={warnings}]: /[^<]+/
CONFIDENCE: /0\.[0-9][0-9]?|1\.0|0|1/
"#,
        request_id = literal(&request.request_id),
        summary = limits::SUMMARY_TOKENS,
        body = limits::BODY_TOKENS,
        reasons = alternatives(REASONS.iter().map(|r| r.to_string())),
        warnings = limits::WARNINGS_TOKENS,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use laika_shared::librarian::{Constraints, Source};

    fn request(ids: &[&str], taxonomy: &[&str]) -> Request {
        Request {
            request_id: "lib_1".into(),
            goal: "Tidy".into(),
            scope: "notebook".into(),
            sources: ids
                .iter()
                .map(|id| Source {
                    source_id: id.to_string(),
                    title: format!("Outage {id}"),
                    body_markdown: format!("The database stopped at nine. Replicas of {id} took over. Short one."),
                    kind: "markdown".into(),
                })
                .collect(),
            taxonomy: taxonomy.iter().map(|t| t.to_string()).collect(),
            constraints: Constraints { strict_mode: true, max_operations: 12, allow_delete: false },
        }
    }

    #[test]
    fn the_grammar_names_the_request_its_notes_its_topics_and_its_kinds() {
        let g = grammar(&request(&["note_1", "note_4"], &["garden", "say \"hi\""]), true);
        assert!(g.contains(r#""<librarian_response>\n<request_id>" "lib_1" "</request_id>"#), "{g}");
        assert!(
            g.contains("<target_note_id>note_1</target_note_id>")
                && g.contains("<target_note_id>note_4</target_note_id>"),
            "{g}"
        );
        assert!(g.contains(r#"topic: "garden" | "say \"hi\"""#), "{g}");
        assert!(g.contains("operations_1?") && g.contains("op_3</operation_id>") && !g.contains("op_4"), "{g}");
        assert!(g.contains("rewrite_note") && g.contains("create_note") && !g.contains("retag_note"), "{g}");
        let all = grammar(&request(&["note_1"], &[]), false);
        assert!(all.contains("retag_note") && all.contains("defer") && all.contains("topic: /[a-z0-9]"), "{all}");
    }

    #[test]
    fn titles_are_the_notes_words_and_bodies_its_sentences() {
        let g = grammar(&request(&["note_1", "note_4"], &["x"]), true);
        // note_1's rewrite takes note_1's rules; its words and sentences are literals.
        assert!(g.contains("<target_note_id>note_1</target_note_id>\\n<title>\" title_n0 "), "{g}");
        assert!(
            g.contains("sentence_n0: \"The database stopped at nine.\" | \"Replicas of note_1 took over.\""),
            "{g}"
        );
        assert!(!g.contains("\"Short one.\""), "fragments are not offered: {g}");
        assert!(g.contains("word_n1: \"Outage\" | \"note\" | \"4\" | \"The\""), "{g}");
        assert!(
            g.contains("title_all") && g.contains("Replicas of note_4 took over."),
            "a new note draws on every source: {g}"
        );
    }

    #[test]
    fn the_longest_response_fits_the_stage_token_limit() {
        let pack = super::super::prompt_pack::PromptPack::built_in().unwrap();
        assert!(max_response_tokens() <= pack.stage("organise").max_tokens, "{}", max_response_tokens());
    }
}
