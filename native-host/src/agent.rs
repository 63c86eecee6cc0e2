//! The agent core's planning step: observe → pack → infer → parse and validate (with at most
//! two repair retries) → Policy Gate. Acting happens in the extension; it reports back with
//! `tool.result` and a fresh observation, which starts the next step, up to a bound.
//!
//! The model only proposes. Every call it proposes is typed against the catalogue, its handle
//! checked against the observation it saw, and decided by the deterministic Policy Gate with the
//! user's site grants; calls the gate asks about get an approval record the user decides on.

use crate::debuglog::DebugLog;
use crate::engine::{Engine, GenerateRequest, OutputShape, Sampling};
use crate::ground;
use crate::history::{ApprovalRecord, History};
use crate::prompt::{self, SUMMARY_DOC_ID, TABS_DOC_ID, TurnRef};
use crate::summary::check_pair;
use laika_shared::Violation;
use laika_shared::markdown::markdown_to_doc;
use laika_shared::observation::Observation;
use laika_shared::parse::{PlannerReply, SummaryFormat, parse_planner_lenient};
use laika_shared::policy::{self, PolicyContext, Verdict};
use laika_shared::render::Doc;
use laika_shared::tools::ToolCall;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Repair retries after the first answer (the issue: at most two).
pub const MAX_REPAIRS: usize = 2;
pub const DEFAULT_MAX_STEPS: u32 = 8;
const PLAN_OUTPUT_TOKENS: usize = 320;
/// Page text shown to the planner; the summary service reads pages whole, the planner needs
/// the gist and the elements.
const PLAN_TEXT_CHARS: usize = 6_000;
const PLAN_ELEMENTS: usize = 80;

#[derive(Clone, Debug, Deserialize)]
pub struct Tab {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub url: String,
}

#[derive(Clone, Debug)]
pub struct PlanInput {
    pub goal: String,
    pub observation: Observation,
    pub tabs: Vec<Tab>,
    pub turn: TurnRef,
    /// 1 for the first step of a run; tool results bring the next.
    pub step: u32,
    pub max_steps: u32,
    pub run_id: String,
}

pub struct AgentDeps {
    pub engine: Arc<dyn Engine>,
    pub history: Option<Arc<History>>,
    pub debug: Arc<DebugLog>,
    pub sampling: Sampling,
}

/// What one planning step produced, before it is reported.
pub struct PlanOutcome {
    pub reply: Value,
}

fn tabs_document(tabs: &[Tab]) -> Option<Value> {
    if tabs.is_empty() {
        return None;
    }
    let text = tabs
        .iter()
        .take(20)
        .map(|t| {
            let origin = policy::origin_of(&t.url).unwrap_or_default();
            format!("- {} ({origin})", ground::shorten(&t.title, 80))
        })
        .collect::<Vec<_>>()
        .join("\n");
    Some(prompt::document(
        TABS_DOC_ID,
        "web.observation.summary.v1",
        json!({ "doc_type": "web.observation.summary.v1", "url": "", "title": "Open tabs", "text": text }),
    ))
}

/// The planner's request packet for this step.
pub fn plan_request(input: &PlanInput) -> Value {
    let text = ground::shorten(&input.observation.text, PLAN_TEXT_CHARS);
    let mut documents = vec![prompt::document(
        SUMMARY_DOC_ID,
        "web.observation.summary.v1",
        prompt::summary_content(&input.observation, &text, PLAN_ELEMENTS),
    )];
    documents.extend(tabs_document(&input.tabs));
    let mut request = prompt::request_packet(
        &input.turn,
        &input.goal,
        "web.answer",
        json!({ "mode": "plan", "step": input.step, "max_steps": input.max_steps }),
        documents,
    );
    request["trace"] = json!({ "run_id": input.run_id, "step": input.step });
    request
}

/// Everything wrong with a reply that a retry could fix: unreadable output, calls outside the
/// catalogue or with bad arguments, handles that are not in the observation.
fn reply_problems(
    parsed: &Result<PlannerReply, laika_shared::parse::ParseError>,
    observation: &Observation,
) -> Vec<Violation> {
    match parsed {
        Err(error) => error.violations(),
        Ok(reply) => {
            let mut out: Vec<Violation> = reply.rejected.iter().flat_map(|r| r.violations.clone()).collect();
            for call in &reply.tool_calls {
                if let Err(violation) = call.check_handle(observation) {
                    out.push(violation);
                }
            }
            out
        }
    }
}

/// One planning step. Stores the turn before returning.
pub async fn plan(
    input: &PlanInput,
    deps: &AgentDeps,
    cancel: &CancellationToken,
) -> Result<PlanOutcome, (&'static str, String)> {
    if input.step > input.max_steps {
        return Err(("AGENT_STEP_LIMIT", format!("the run reached its bound of {} steps", input.max_steps)));
    }
    let request = plan_request(input);
    let system = prompt::planner_system();
    let handles: Vec<String> =
        input.observation.elements.iter().take(PLAN_ELEMENTS).map(|e| e.handle_id.clone()).collect();
    let schema = prompt::planner_schema(&handles);
    let mut user = prompt::user_content(&request);
    let mut attempts: Vec<Value> = Vec::new();
    let mut last: Option<(String, Result<PlannerReply, laika_shared::parse::ParseError>)> = None;
    for attempt in 0..=MAX_REPAIRS {
        let sampling = if attempt == 0 {
            deps.sampling.clone()
        } else {
            Sampling { temperature: 0.6, top_p: 0.95, ..deps.sampling.clone() }
        };
        let generate = GenerateRequest {
            system: system.clone(),
            user: user.clone(),
            max_tokens: PLAN_OUTPUT_TOKENS,
            sampling,
            shape: OutputShape::Json(schema.clone()),
        };
        let mut sink = |_: &str| {};
        let generated = deps.engine.generate(generate, &mut sink, cancel).await.map_err(|e| (e.code, e.message))?;
        let parsed = parse_planner_lenient(&generated.text);
        let problems = reply_problems(&parsed, &input.observation);
        deps.debug.event(
            "agent.plan_attempt",
            json!({ "attempt": attempt, "output": generated.text, "problems": problems, "generation": generated }),
        );
        attempts.push(json!({ "attempt": attempt, "problems": problems }));
        let clean = problems.is_empty();
        last = Some((generated.text.clone(), parsed));
        if clean || cancel.is_cancelled() {
            break;
        }
        // The repair shows the model only its previous output and what was wrong with it.
        user = json!({
            "task": "Your previous output broke the rules listed in errors. Return one corrected JSON object.",
            "previous_output": generated.text,
            "errors": problems.iter().map(|p| json!({ "code": p.code, "path": p.path, "message": p.message })).collect::<Vec<_>>(),
        })
        .to_string();
    }
    let (raw, parsed) = last.ok_or(("AGENT_NO_OUTPUT", "the engine produced nothing".to_string()))?;
    let reply = match parsed {
        Ok(reply) => reply,
        // Unreadable after the repairs: the user still gets an honest answer and no actions.
        Err(error) => PlannerReply {
            summary: format!("I could not produce a valid plan ({}).", error.code()),
            summary_format: SummaryFormat::Plain,
            tool_calls: vec![],
            rejected: vec![],
        },
    };
    // Calls whose handles are not on the page never reach the gate.
    let calls: Vec<ToolCall> =
        reply.tool_calls.iter().filter(|c| c.check_handle(&input.observation).is_ok()).cloned().collect();
    let grants = match &deps.history {
        Some(history) => history.grants().map_err(|e| (e.code, e.message))?,
        None => vec![],
    };
    let context = PolicyContext {
        page_url: Some(&input.observation.url),
        observation: Some(&input.observation),
        grants: &grants,
    };
    let render: Doc = match reply.summary_format {
        SummaryFormat::Markdown => markdown_to_doc(&reply.summary),
        SummaryFormat::Plain => Doc::from_plain_text(&reply.summary),
    };
    let mut response = prompt::envelope("response", "assistant", &input.turn);
    response.insert("in_reply_to".into(), json!({ "request_id": request["id"] }));
    // Cite only the text the planner saw.
    let shown_text = ground::shorten(&input.observation.text, PLAN_TEXT_CHARS);
    let citations: Vec<Value> = ground::cite(&reply.summary, &shown_text, &input.observation)
        .into_iter()
        .map(|g| g.citation(SUMMARY_DOC_ID))
        .collect();
    response.insert("assistant".into(), json!({ "title": "Plan", "render": render, "citations": citations }));
    response.insert(
        "tool_calls".into(),
        Value::Array(calls.iter().map(|c| json!({ "name": c.name(), "arguments": c.arguments() })).collect()),
    );
    response.insert("trace".into(), json!({ "run_id": input.run_id, "step": input.step }));
    let response = Value::Object(response);
    check_pair(&request, &response).map_err(|e| ("AGENT_INVALID_RESPONSE", e))?;

    let mut gated = Vec::new();
    let mut approvals = Vec::new();
    for call in &calls {
        let decision = policy::decide(call, &context);
        let call_id = prompt::new_id();
        let mut entry = json!({
            "id": call_id,
            "name": call.name(),
            "arguments": call.arguments(),
            "decision": decision,
        });
        if decision.verdict == Verdict::Ask {
            let record = ApprovalRecord {
                id: call_id.clone(),
                conversation_id: Some(input.turn.conversation_id.clone()),
                created_at: prompt::now_utc(),
                origin: policy::origin_of(&input.observation.url),
                tool_name: call.name().to_string(),
                arguments: call.arguments(),
                verdict: "ask".into(),
                code: decision.code.as_str().into(),
                grantable: decision.grantable.map(|c| {
                    serde_json::to_value(c).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
                }),
                decision: None,
                decided_at: None,
            };
            approvals.push(record);
            entry["approval_id"] = json!(call_id);
        }
        gated.push(entry);
    }
    if let Some(history) = &deps.history {
        history
            .append_turn(&[request.clone(), response.clone()], Some(&deps.engine.model_id()))
            .map_err(|e| (e.code, e.message))?;
        for record in &approvals {
            history.record_approval(record).map_err(|e| (e.code, e.message))?;
        }
    }
    let html = laika_shared::render::to_html(&render);
    let done = calls.is_empty() || input.step >= input.max_steps;
    Ok(PlanOutcome {
        reply: json!({
            "conversation": { "id": input.turn.conversation_id, "turn": input.turn.turn },
            "run_id": input.run_id,
            "step": input.step,
            "max_steps": input.max_steps,
            "done": done,
            "summary": reply.summary,
            "summaryFormat": reply.summary_format,
            "render": render,
            "html": html,
            "citations": response["assistant"]["citations"],
            "tool_calls": gated,
            "rejected": reply.rejected,
            "repairs": attempts.len() - 1,
            "attempts": attempts,
            "raw_output_chars": raw.chars().count(),
            "request_id": request["id"],
            "response_id": response["id"],
        }),
    })
}
