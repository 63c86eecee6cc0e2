//! Model output → a typed reply, whatever the model wrapped around its JSON.
//!
//! Small models add prose, `<think>` blocks and code fences. The rules (laika-llmcp.md,
//! "Strict JSON parsing"; laika-tools.md, "Parsing behavior"): strip `<think>…</think>`; unwrap a
//! single code fence only when what is inside is one JSON object; otherwise take the first
//! top-level JSON object in the text. The object is then read as an llmcp response (it has
//! `protocol`) or as a planner reply (`summary` / `tool_calls`). Unknown tools are reported and
//! dropped, never executed. Nothing here panics on any input.

use crate::codes::{Code, Violation};
use crate::packet::{Packet, Response, packet_from_value};
use crate::tools::{RawToolCall, ToolCall};
use serde::Serialize;
use serde_json::{Map, Value};

/// Model output longer than this is refused before any scanning (a runaway generation).
pub const MAX_OUTPUT_BYTES: usize = 4 * 1024 * 1024;

/// How a planner's `summary` is to be rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SummaryFormat {
    #[default]
    Plain,
    Markdown,
}

/// A tool call the model proposed that cannot run, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RejectedCall {
    pub index: usize,
    pub name: Option<String>,
    pub violations: Vec<Violation>,
}

/// The planner contract of laika-tools.md.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannerReply {
    pub summary: String,
    pub summary_format: SummaryFormat,
    /// Calls that passed the catalogue; still proposals for the Policy Gate.
    #[serde(skip)]
    pub tool_calls: Vec<ToolCall>,
    pub rejected: Vec<RejectedCall>,
}

/// What a model reply turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelReply {
    Response(Response),
    Planner(PlannerReply),
}

/// Why model output could not be read. Each carries the stable code of [`ParseError::code`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    #[error("model output is {0} bytes, more than the {MAX_OUTPUT_BYTES} accepted")]
    TooLarge(usize),
    #[error("model output opens <think> and never closes it")]
    ThinkUnclosed,
    #[error("model output contains no JSON object")]
    NoJsonObject,
    #[error("the JSON object is neither an llmcp response nor a planner reply")]
    Unrecognised,
    #[error("invalid llmcp response: {}", join(.0))]
    InvalidResponse(Vec<Violation>),
    #[error("invalid planner reply: {}", join(.0))]
    InvalidPlanner(Vec<Violation>),
}

fn join(violations: &[Violation]) -> String {
    violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

impl ParseError {
    pub fn code(&self) -> Code {
        match self {
            ParseError::TooLarge(_) => Code::InputTooLarge,
            ParseError::ThinkUnclosed => Code::ThinkUnclosed,
            ParseError::NoJsonObject => Code::NoJsonObject,
            ParseError::Unrecognised => Code::UnrecognisedOutput,
            ParseError::InvalidResponse(v) | ParseError::InvalidPlanner(v) => {
                v.first().map_or(Code::InvalidEnvelope, |v| v.code)
            }
        }
    }

    /// The violations to show the model in a repair retry.
    pub fn violations(&self) -> Vec<Violation> {
        match self {
            ParseError::InvalidResponse(v) | ParseError::InvalidPlanner(v) => v.clone(),
            other => vec![Violation::new(other.code(), "", other.to_string())],
        }
    }
}

/// Reads a model reply: either contract, with unknown or invalid tool calls reported.
pub fn parse_model_output(raw: &str) -> Result<ModelReply, ParseError> {
    let object = extract_json_object(raw)?;
    if object.contains_key("protocol") {
        return match packet_from_value(&Value::Object(object)) {
            Ok(Packet::Response(response)) => Ok(ModelReply::Response(response)),
            Ok(Packet::Request(_)) => Err(ParseError::InvalidResponse(vec![Violation::new(
                Code::InvalidType,
                "/type",
                "the model must answer with a response packet",
            )])),
            Err(violations) => Err(ParseError::InvalidResponse(violations)),
        };
    }
    if object.contains_key("summary") || object.contains_key("tool_calls") {
        return planner_reply(&object).map(ModelReply::Planner);
    }
    Err(ParseError::Unrecognised)
}

/// Reads a planner reply; plain prose with no JSON is taken as a summary with no tool calls
/// (laika-tools.md: "If no JSON object is found, the output is treated as a summary").
pub fn parse_planner_lenient(raw: &str) -> Result<PlannerReply, ParseError> {
    match extract_json_object(raw) {
        Ok(object) => planner_reply(&object),
        Err(ParseError::NoJsonObject) => Ok(PlannerReply {
            summary: strip_think(raw)?.trim().to_string(),
            summary_format: SummaryFormat::Plain,
            tool_calls: Vec::new(),
            rejected: Vec::new(),
        }),
        Err(other) => Err(other),
    }
}

fn planner_reply(object: &Map<String, Value>) -> Result<PlannerReply, ParseError> {
    let mut problems = Vec::new();
    let summary = match object.get("summary") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => {
            problems.push(Violation::new(Code::PlannerInvalid, "/summary", "summary must be a string"));
            String::new()
        }
    };
    let summary_format = match object.get("summaryFormat") {
        None | Some(Value::Null) => SummaryFormat::Plain,
        Some(Value::String(s)) if s == "plain" => SummaryFormat::Plain,
        Some(Value::String(s)) if s == "markdown" => SummaryFormat::Markdown,
        Some(_) => {
            problems.push(Violation::new(
                Code::PlannerInvalid,
                "/summaryFormat",
                "summaryFormat must be plain or markdown",
            ));
            SummaryFormat::Plain
        }
    };
    let mut tool_calls = Vec::new();
    let mut rejected = Vec::new();
    match object.get("tool_calls") {
        None | Some(Value::Null) => {}
        Some(Value::Array(calls)) => {
            for (index, call) in calls.iter().enumerate() {
                let path = format!("/tool_calls/{index}");
                let name = call.get("name").and_then(Value::as_str).map(str::to_string);
                let typed = RawToolCall::from_value(call, &path).map_err(|v| vec![v]).and_then(|raw| raw.to_typed());
                match typed {
                    Ok(call) => tool_calls.push(call),
                    Err(violations) => rejected.push(RejectedCall { index, name, violations }),
                }
            }
        }
        Some(_) => problems.push(Violation::new(Code::ToolCallsNotArray, "/tool_calls", "tool_calls must be an array")),
    }
    if !problems.is_empty() {
        return Err(ParseError::InvalidPlanner(problems));
    }
    Ok(PlannerReply { summary, summary_format, tool_calls, rejected })
}

/// Strips `<think>…</think>` blocks. An unclosed block is an error: whatever follows it is
/// the model still thinking, not its answer.
pub fn strip_think(raw: &str) -> Result<String, ParseError> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(start) = find_ascii_ci(rest, "<think>") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "<think>".len()..];
        match find_ascii_ci(after, "</think>") {
            Some(end) => rest = &after[end + "</think>".len()..],
            None => return Err(ParseError::ThinkUnclosed),
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn find_ascii_ci(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    if n.len() > h.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

/// The JSON object a model reply carries, after think-stripping and fence unwrapping.
pub fn extract_json_object(raw: &str) -> Result<Map<String, Value>, ParseError> {
    if raw.len() > MAX_OUTPUT_BYTES {
        return Err(ParseError::TooLarge(raw.len()));
    }
    let text = strip_think(raw)?;
    if let Some(inner) = single_fence_body(&text)
        && let Ok(Value::Object(object)) = serde_json::from_str::<Value>(inner.trim())
    {
        return Ok(object);
    }
    first_top_level_object(&text).ok_or(ParseError::NoJsonObject)
}

/// The body of the text when the text (trimmed) is exactly one fenced code block.
fn single_fence_body(text: &str) -> Option<&str> {
    let text = text.trim();
    let rest = text.strip_prefix("```")?;
    let body_start = rest.find('\n')?;
    let info = rest[..body_start].trim();
    if !info.is_empty() && !info.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return None;
    }
    let body = rest[body_start + 1..].strip_suffix("```")?;
    // A second fence inside means more than one block: not "a single code fence".
    if body.contains("```") {
        return None;
    }
    Some(body)
}

/// Finds the first balanced `{…}` (outside JSON strings) that parses as an object.
///
/// Each candidate's end is found with a brace scan that respects strings and escapes, starting
/// fresh at each `{` so that a stray quote in the prose before it cannot hide it. Hostile text
/// (thousands of nested groups that are not JSON) could make that quadratic, so the total bytes
/// scanned are bounded; past the bound the text is treated as holding no object.
fn first_top_level_object(text: &str) -> Option<Map<String, Value>> {
    let bytes = text.as_bytes();
    let mut budget = bytes.len().saturating_mul(8).max(1 << 20);
    let mut start = 0;
    while let Some(offset) = bytes[start..].iter().position(|&b| b == b'{') {
        let open = start + offset;
        let len = balanced_end(&bytes[open..], &mut budget)?;
        if let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(&bytes[open..open + len]) {
            return Some(object);
        }
        start = open + 1;
    }
    None
}

/// Length of the balanced brace group starting at `bytes[0] == b'{'`; `None` when the group
/// never closes (then no later `{` closes either) or the scan budget runs out.
fn balanced_end(bytes: &[u8], budget: &mut usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        *budget = budget.checked_sub(1)?;
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn planner(raw: &str) -> PlannerReply {
        match parse_model_output(raw) {
            Ok(ModelReply::Planner(p)) => p,
            other => panic!("expected a planner reply, got {other:?}"),
        }
    }

    #[test]
    fn takes_the_first_object_after_prose() {
        let p =
            planner(r#"Sure! Here it is: {"summary": "A {braced} text", "tool_calls": []} and {"summary": "second"}"#);
        assert_eq!(p.summary, "A {braced} text");
    }

    #[test]
    fn strips_think_blocks() {
        let p = planner("<think>maybe {\"summary\": \"wrong\"}</think>\n{\"summary\": \"right\", \"tool_calls\": []}");
        assert_eq!(p.summary, "right");
        assert_eq!(
            parse_model_output("<THINK>never ends {\"summary\": \"x\"}").unwrap_err(),
            ParseError::ThinkUnclosed
        );
    }

    #[test]
    fn unwraps_a_single_fence_holding_one_object() {
        let p = planner("```json\n{\"summary\": \"fenced\", \"summaryFormat\": \"markdown\", \"tool_calls\": []}\n```");
        assert_eq!(p.summary, "fenced");
        assert_eq!(p.summary_format, SummaryFormat::Markdown);
    }

    #[test]
    fn a_fence_with_more_than_one_object_is_not_unwrapped_but_the_first_object_still_counts() {
        let raw = "```json\n{\"summary\": \"one\"}\n{\"summary\": \"two\"}\n```";
        assert!(single_fence_body(raw).is_some());
        assert_eq!(planner(raw).summary, "one");
        let two_fences = "```\n{\"summary\": \"a\"}\n```\n```\n{\"summary\": \"b\"}\n```";
        assert!(single_fence_body(two_fences).is_none());
        assert_eq!(planner(two_fences).summary, "a");
    }

    #[test]
    fn skips_brace_groups_that_are_not_json() {
        let p = planner("function f() { return 1; } {\"summary\": \"ok\"}");
        assert_eq!(p.summary, "ok");
    }

    #[test]
    fn no_object_is_a_typed_error_and_lenient_mode_keeps_the_prose() {
        assert_eq!(parse_model_output("just words").unwrap_err(), ParseError::NoJsonObject);
        assert_eq!(parse_model_output("{ unclosed").unwrap_err().code(), Code::NoJsonObject);
        let p = parse_planner_lenient("<think>hm</think> The page is about cats.").unwrap();
        assert_eq!(p.summary, "The page is about cats.");
        assert!(p.tool_calls.is_empty());
    }

    #[test]
    fn unknown_and_invalid_tools_are_reported_not_kept() {
        let raw = json!({
            "summary": "s",
            "tool_calls": [
                { "name": "browser.click", "arguments": { "handleId": "laika-3" } },
                { "name": "os.exec", "arguments": { "cmd": "ls" } },
                { "name": "browser.click", "arguments": {} },
                "not an object"
            ]
        })
        .to_string();
        let p = planner(&raw);
        assert_eq!(p.tool_calls.len(), 1);
        assert_eq!(p.tool_calls[0].name(), "browser.click");
        let codes: Vec<Code> = p.rejected.iter().map(|r| r.violations[0].code).collect();
        assert_eq!(codes, [Code::UnknownTool, Code::ToolArgsInvalid, Code::InvalidToolCall]);
        assert_eq!(p.rejected[0].name.as_deref(), Some("os.exec"));
    }

    #[test]
    fn planner_shape_errors_are_typed() {
        let err = parse_model_output(r#"{"summary": 5, "tool_calls": {}}"#).unwrap_err();
        let codes: Vec<Code> = err.violations().iter().map(|v| v.code).collect();
        assert_eq!(codes, [Code::PlannerInvalid, Code::ToolCallsNotArray]);
        let err = parse_model_output(r#"{"summary": "x", "summaryFormat": "html"}"#).unwrap_err();
        assert_eq!(err.code(), Code::PlannerInvalid);
        assert_eq!(parse_model_output(r#"{"answer": 42}"#).unwrap_err(), ParseError::Unrecognised);
    }

    #[test]
    fn llmcp_responses_are_validated() {
        let response = json!({
            "protocol": { "name": "laika.llmcp", "version": 1 },
            "id": "res-1", "type": "response", "created_at": "2026-01-24T12:34:57.123Z",
            "conversation": { "id": "c-1", "turn": 1 }, "sender": { "role": "assistant" },
            "in_reply_to": { "request_id": "req-1" },
            "assistant": { "title": "Summary", "render": { "type": "doc", "children": [] }, "citations": [] },
            "tool_calls": []
        });
        let raw = format!("Here you go:\n```json\n{response}\n```");
        assert!(matches!(parse_model_output(&raw), Ok(ModelReply::Response(_))));
        let mut bad = response.clone();
        bad["tool_calls"] = json!({});
        let err = parse_model_output(&bad.to_string()).unwrap_err();
        assert_eq!(err.code(), Code::ToolCallsNotArray);
    }

    #[test]
    fn deep_nesting_and_huge_input_are_errors_not_crashes() {
        let deep = format!("{}{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
        assert!(parse_model_output(&deep).is_err());
        let huge = "x".repeat(MAX_OUTPUT_BYTES + 1);
        assert_eq!(parse_model_output(&huge).unwrap_err().code(), Code::InputTooLarge);
    }

    #[test]
    fn nested_non_json_groups_stay_bounded() {
        // 200k nested groups that are not JSON: each candidate fails; the scan budget ends it.
        let hostile = format!("{}{}", "{x".repeat(200_000), "}".repeat(200_000));
        assert_eq!(parse_model_output(&hostile).unwrap_err(), ParseError::NoJsonObject);
    }

    #[test]
    fn unicode_around_the_object_is_fine() {
        let p = planner("🙂 {\"summary\": \"é ü 中文\"} 🙂");
        assert_eq!(p.summary, "é ü 中文");
        assert!(find_ascii_ci("ÄÖ<think>", "<think>").is_some());
    }
}
