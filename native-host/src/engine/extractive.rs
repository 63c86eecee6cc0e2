//! The extractive engine: no model. It reads the request it is given (the `input` + `context`
//! JSON every engine receives) and answers with sentences taken verbatim from the untrusted
//! documents, so everything it says is on the page. It is the fallback when no model is
//! installed and the deterministic engine of tests that need exact output.

use super::{Engine, EngineError, GenerateRequest, Generation, OutputShape, TokenSink};
use crate::ground::{self, shorten};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

pub struct ExtractiveEngine;

/// Signals that mean the page shows only part of its content.
pub(crate) const GATES: &[(&str, &str)] = &[
    ("paywall", "a paywall"),
    ("auth_gate", "a sign-in wall"),
    ("age_gate", "an age check"),
    ("geo_block", "a regional block"),
    ("consent_overlay", "a consent banner"),
    ("overlay_or_dialog", "an overlay"),
    ("script_required", "content that needs scripts"),
];

impl ExtractiveEngine {
    /// The answer for one request, as the engine would stream it.
    pub fn answer(user: &str, shape: &OutputShape, max_tokens: usize) -> Result<String, EngineError> {
        let shown: Value = serde_json::from_str(user).map_err(|e| {
            EngineError::new("ENGINE_BAD_REQUEST", format!("the extractive engine reads request JSON: {e}"))
        })?;
        let documents = shown.pointer("/context/documents").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut text = String::new();
        let mut signals: Vec<String> = Vec::new();
        let mut notes_only = true;
        for document in &documents {
            let content = &document["content"];
            if let Some(t) = content.get("text").and_then(Value::as_str) {
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(t);
            }
            if document["doc_id"].as_str().is_some_and(|id| !id.starts_with("doc:notes")) {
                notes_only = false;
            }
            for signal in content.get("signals").and_then(Value::as_array).into_iter().flatten() {
                if let Some(s) = signal.as_str() {
                    signals.push(s.to_string());
                }
            }
        }
        let task = shown.pointer("/input/task/name").and_then(Value::as_str).unwrap_or("web.summarize");
        let question = shown.pointer("/input/user_message/text").and_then(Value::as_str);
        // Roughly four characters a token: the number of points follows the output budget.
        let budget_points = (max_tokens / 40).clamp(1, 6);
        let markdown = if notes_only && !documents.is_empty() {
            // Combining notes: the first sentence of the first notes says what the page is about.
            ground::select_sentences(&text, 2.min(budget_points), None)
                .into_iter()
                .map(|s| s.text)
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            let question = if task == "web.answer" { question } else { None };
            let picked = ground::select_sentences(&text, budget_points.min(5), question);
            let mut lines: Vec<String> = Vec::new();
            let gates: Vec<&str> =
                GATES.iter().filter(|(s, _)| signals.iter().any(|x| x == s)).map(|(_, label)| *label).collect();
            if !gates.is_empty() {
                lines.push(format!("- Only part of this page is visible: it shows {}.", gates.join(" and ")));
            }
            if picked.is_empty() {
                lines.push("- The visible page has no text to summarize.".into());
            }
            lines.extend(picked.iter().map(|s| format!("- {}", shorten(&s.text, 300))));
            lines.join("\n")
        };
        Ok(match shape {
            OutputShape::Markdown | OutputShape::Sentences { .. } | OutputShape::OneOf(_) | OutputShape::Grammar(_) => {
                markdown
            }
            OutputShape::Json(schema) => {
                // The calls the planner offered first (the goal read against the page as it is
                // now, without what the run has done: the agent's own proposal), all of them; a
                // schema that offers none (a packet planned elsewhere) gets the proposal made here
                // at the first step, and nothing at later ones.
                let offered: Option<Vec<Value>> = schema
                    .pointer("/properties/tool_calls/items/anyOf")
                    .and_then(Value::as_array)
                    .map(|alternatives| alternatives.iter().filter_map(|a| a.get("const").cloned()).collect());
                let step = shown.pointer("/input/task/args/step").and_then(Value::as_u64).unwrap_or(1);
                let calls = match offered {
                    Some(offered) => Value::Array(offered),
                    None if step > 1 => json!([]),
                    None => plan_calls(question.unwrap_or(""), &documents),
                };
                json!({ "summary": markdown, "summaryFormat": "markdown", "tool_calls": calls }).to_string()
            }
        })
    }
}

/// The deterministic planner: the calls [`laika_shared::goal::propose`] makes of the goal over the
/// elements the planner was shown, so the extractive engine and the agent's own proposal agree
/// ("click Sign in" → that click, "Buy these boots in size 42" → select 42, then Buy now; a goal
/// that only reads the page, or names nothing on it, proposes nothing).
fn plan_calls(goal: &str, documents: &[Value]) -> Value {
    use laika_shared::observation::{Element, Item, Observation};
    let mut observation = Observation::default();
    for document in documents {
        let content = &document["content"];
        if observation.url.is_empty() {
            observation.url = content["url"].as_str().unwrap_or_default().to_string();
            observation.title = content["title"].as_str().unwrap_or_default().to_string();
        }
        let list = |key: &str| content[key].as_array().cloned().unwrap_or_default();
        observation
            .elements
            .extend(list("elements").into_iter().filter_map(|e| serde_json::from_value::<Element>(e).ok()));
        observation.items.extend(list("items").into_iter().filter_map(|i| serde_json::from_value::<Item>(i).ok()));
    }
    Value::Array(laika_shared::goal::propose(goal, &observation).iter().map(|c| c.to_json()).collect())
}

impl Engine for ExtractiveEngine {
    fn model_id(&self) -> String {
        "extractive".into()
    }

    fn is_model(&self) -> bool {
        false
    }

    fn context_tokens(&self) -> usize {
        // No model window; bounded only so packing still splits very long pages into chunks.
        32_768
    }

    fn generate<'a>(
        &'a self,
        request: GenerateRequest,
        sink: TokenSink<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Generation, EngineError>> {
        Box::pin(async move {
            let started = Instant::now();
            let text = Self::answer(&request.user, &request.shape, request.max_tokens)?;
            let mut out = Generation { finish_reason: "stop".into(), ..Generation::default() };
            // Streamed a line at a time, like a model would, so callers exercise the same path.
            for piece in text.split_inclusive('\n') {
                if cancel.is_cancelled() {
                    out.finish_reason = "cancelled".into();
                    break;
                }
                out.first_token.get_or_insert_with(|| started.elapsed());
                out.text.push_str(piece);
                out.completion_tokens += piece.split_whitespace().count();
                sink(piece);
                tokio::task::yield_now().await;
            }
            out.prompt_tokens = request.user.split_whitespace().count();
            out.total = started.elapsed();
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(text: &str, signals: &[&str]) -> String {
        json!({
            "input": { "user_message": { "id": "u", "text": "summarize this page" }, "task": { "name": "web.summarize" } },
            "context": { "documents": [ { "doc_id": "doc:web:summary", "kind": "web.observation.summary.v1", "trust": "untrusted",
                "content": { "url": "https://example.com", "title": "T", "text": text, "signals": signals } } ] }
        })
        .to_string()
    }

    #[test]
    fn summary_is_made_of_page_sentences() {
        let text = "H1: Otters\n\nRiver otters were seen near the old mill last week for the first time. \
                    Volunteers counted five otters along a two-mile stretch of the river.";
        let out = ExtractiveEngine::answer(&request(text, &[]), &OutputShape::Markdown, 400).unwrap();
        for line in out.lines() {
            let sentence = line.strip_prefix("- ").unwrap();
            assert!(text.contains(sentence), "{sentence:?} is not on the page");
        }
        assert_eq!(out.lines().count(), 2);
    }

    #[test]
    fn gated_pages_say_so() {
        let out = ExtractiveEngine::answer(
            &request("H1: News\n\nSubscribe to read.", &["paywall"]),
            &OutputShape::Markdown,
            400,
        )
        .unwrap();
        assert!(out.starts_with("- Only part of this page is visible: it shows a paywall."), "{out}");
    }

    #[test]
    fn planner_shape_is_json() {
        let out = ExtractiveEngine::answer(
            &request("Some words here in a sentence that is long enough.", &[]),
            &OutputShape::Json(json!({})),
            200,
        )
        .unwrap();
        let value: Value = serde_json::from_str(&out).unwrap();
        // "summarize this page" only reads the page: no action is proposed (goal::is_read_only).
        assert_eq!(value["tool_calls"], json!([]));
    }

    #[test]
    fn planner_turns_explicit_goals_into_calls() {
        let shown = |goal: &str| {
            json!({
                "input": { "user_message": { "id": "u", "text": goal }, "task": { "name": "web.answer" } },
                "context": { "documents": [ { "doc_id": "doc:web:summary", "content": { "text": "", "elements": [
                    { "handle_id": "laika-3", "role": "button", "text": "Sign in" },
                    { "handle_id": "laika-4", "role": "textbox", "text": "Search" } ] } } ] }
            })
            .to_string()
        };
        let calls = |goal: &str| {
            let out = ExtractiveEngine::answer(&shown(goal), &OutputShape::Json(json!({})), 200).unwrap();
            serde_json::from_str::<Value>(&out).unwrap()["tool_calls"].clone()
        };
        assert_eq!(
            calls("click Sign in"),
            json!([{ "name": "browser.click", "arguments": { "handleId": "laika-3" } }])
        );
        assert_eq!(
            calls("type \"otters\" into search"),
            json!([{ "name": "browser.type", "arguments": { "handleId": "laika-4", "text": "otters" } }])
        );
        assert_eq!(calls("open https://example.org/x")[0]["name"], "browser.navigate");
        assert_eq!(calls("click Nowhere"), json!([]));
        assert_eq!(calls("what is this?"), json!([]));
    }

    #[test]
    fn bad_request_is_an_error() {
        let err = ExtractiveEngine::answer("not json", &OutputShape::Markdown, 10).unwrap_err();
        assert_eq!(err.code, "ENGINE_BAD_REQUEST");
    }
}
