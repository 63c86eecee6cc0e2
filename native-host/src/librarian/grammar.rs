//! The grammar a Librarian response is decoded under (llguidance's Lark syntax, through
//! mistral.rs's `Constraint::Lark`), built for each request so that a small model can only write
//! a response the parser accepts and the contract allows:
//! - the envelope and every tag are fixed text, one tag per line;
//! - `request_id` is the request's own;
//! - `kind` is one the run accepts, and each kind carries the target it needs: an existing
//!   note's id (only ids of the request's sources) or, for `create_note`, a taxonomy topic;
//! - at most `max_operations` operations, numbered `op_1`, `op_2`… in order;
//! - free text never holds `<` (it would open a tag) and each field has a token limit, so the
//!   whole response fits the stage's `max_tokens` and is never cut before its closing tag.

use laika_shared::librarian::Request;

/// Token limits of the free-text fields (what fits a note title, a short note, a reason).
mod limits {
    pub const SUMMARY_TOKENS: usize = 40;
    pub const TITLE_TOKENS: usize = 24;
    pub const BODY_TOKENS: usize = 160;
    pub const REASON_TOKENS: usize = 32;
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

/// The grammar of a response to `request`. `fallback_only` allows only `create_note` and
/// `rewrite_note` (the spec's strict fallback mode).
pub fn grammar(request: &Request, fallback_only: bool) -> String {
    let ids: Vec<String> = request.sources.iter().map(|s| s.source_id.clone()).collect();
    let topics: Vec<String> = request.taxonomy.clone();
    let max_operations = request.constraints.max_operations.min(limits::OPERATIONS);
    let targeted = |kind: &str| format!("\"<kind>{kind}</kind>\\n<target_note_id>\" note_id \"</target_note_id>\\n\"");
    let mut kinds = vec![targeted("rewrite_note")];
    kinds.push("\"<kind>create_note</kind>\\n<target_path>\" topic \"</target_path>\\n\"".into());
    if !fallback_only {
        for kind in ["retitle_note", "retag_note", "relink_note", "defer"] {
            kinds.push(targeted(kind));
        }
    }
    let kinds = if ids.is_empty() {
        // Nothing to rewrite: only new notes.
        vec!["\"<kind>create_note</kind>\\n<target_path>\" topic \"</target_path>\\n\"".to_string()]
    } else {
        kinds
    };
    let topic = if topics.is_empty() { "/[a-z0-9][a-z0-9_\\/-]*/".to_string() } else { alternatives(topics) };
    let note_id = if ids.is_empty() { "\"note_0\"".to_string() } else { alternatives(ids) };
    // Operations numbered in order (op_1, op_2, …): one rule per position, each optionally
    // followed by the next, so an id is never repeated.
    let mut operations = String::new();
    for n in (1..=max_operations).rev() {
        let next =
            if n == max_operations { String::new() } else { " operations_".to_string() + &(n + 1).to_string() + "?" };
        operations.push_str(&format!(
            "operations_{n}: \"<operation>\\n<operation_id>op_{n}</operation_id>\\n\" operation_body{next}\n"
        ));
    }
    let first = if max_operations == 0 { String::new() } else { "operations_1?".into() };
    format!(
        r#"start: "<librarian_response>\n<request_id>" {request_id} "</request_id>\n<status>" status "</status>\n<summary>" summary "</summary>\n<operations>\n" {first} "</operations>\n<warnings>" warnings? "</warnings>\n</librarian_response>"
status: "ok" | "needs_clarification" | "rejected"
{operations}operation_body: target "<title>" title "</title>\n<body_markdown>" body "</body_markdown>\n<reason>" reason "</reason>\n<confidence>" CONFIDENCE "</confidence>\n</operation>\n"
target: {kinds}
note_id: {note_id}
topic: {topic}
summary[max_tokens={summary}]: /[^<\n]+/
title[max_tokens={title}]: /[^<\n]+/
body[max_tokens={body}]: /[^<]+/
reason[max_tokens={reason}]: /[^<\n]+/
warnings[max_tokens={warnings}]: /[^<]+/
CONFIDENCE: /0\.[0-9][0-9]?|1\.0|0|1/
"#,
        request_id = literal(&request.request_id),
        kinds = kinds.join(" | "),
        summary = limits::SUMMARY_TOKENS,
        title = limits::TITLE_TOKENS,
        body = limits::BODY_TOKENS,
        reason = limits::REASON_TOKENS,
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
                    title: "t".into(),
                    body_markdown: "b".into(),
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
        assert!(g.contains(r#"note_id: "note_1" | "note_4""#), "{g}");
        assert!(g.contains(r#"topic: "garden" | "say \"hi\"""#), "{g}");
        assert!(g.contains("operations_1?") && g.contains("op_3</operation_id>") && !g.contains("op_4"), "{g}");
        assert!(g.contains("rewrite_note") && g.contains("create_note") && !g.contains("retag_note"), "{g}");
        let all = grammar(&request(&["note_1"], &[]), false);
        assert!(all.contains("retag_note") && all.contains("defer") && all.contains("topic: /[a-z0-9]"), "{all}");
        let empty = grammar(&request(&[], &["x"]), false);
        assert!(!empty.contains("rewrite_note"), "{empty}");
    }

    #[test]
    fn the_longest_response_fits_the_stage_token_limit() {
        let pack = super::super::prompt_pack::PromptPack::built_in().unwrap();
        assert!(max_response_tokens() <= pack.stage("organise").max_tokens, "{}", max_response_tokens());
    }
}
