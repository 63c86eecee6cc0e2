//! The request API the host serves over native messaging.
//!
//! Requests are `{"id", "method", "params"}`; replies `{"id", "result"}` or
//! `{"id", "error": {"code", "message"}}`. Every reply fits the browser's 1 MiB cap: long
//! results are paged (`summary.poll` deltas, `history.export` pages).
//!
//! | method | params | result |
//! |---|---|---|
//! | `host.info` | — | name, version, protocol, methods, data_dir, history_storage (`redacted`, or `full` under `LAIKA_LOG_FULL_LLM=1`), pid and served_by (`daemon` or `process`) of the process answering |
//! | `packet.validate` | `{packet}` | `{valid, violations}` |
//! | `render.sanitize` | `{render}` | `{doc, html, dropped}` |
//! | `plan` | `{goal, observation, tabs?, conversation_id?}` | one gated planning step: `{conversation, run_id, step, done, summary, summaryFormat, render, html, citations, tool_calls: [{id, name, arguments, decision, approval_id?}], read_only, summary_request, repairs}` |
//! | `tool.result` | `{run_id, conversation_id, step, call_id, name, ok, result?, error?, observation?, goal?}` | recorded; with an observation and a goal, the next planning step (as `plan`) |
//! | `tool.run` | `{call_id}` | a host-run call (`integration.invoke`) of a planning step, once the gate allows it or its card was approved (the daemon also runs it as soon as the approval comes, from any client; each call runs once and every `tool.run` of it gets that outcome): the call's result (`{integration, operation, result, replayed}`); `TOOL_CALL_UNKNOWN`, `TOOL_NOT_APPROVED`, a `POLICY_*` deny code, `TOOL_IDEMPOTENCY_CONFLICT`, `LAVS_ERROR` |
//! | `tool.release` | `{call_id}` | a browser call of a planning step (a page action in the content script, a tab action in the router), released to the router that runs it: `{name, arguments, release}` as the gate saw them, once, when the gate allowed it or its approval is recorded as approved; `TOOL_CALL_UNKNOWN`, `TOOL_NOT_APPROVED`, `TOOL_ALREADY_RUN`, a `POLICY_*` deny code ([`crate::release`]) |
//! | `approval.decide` | `{approval_id, decision: approve\|deny\|always_on_site}` | `{approval, run, grant?}`; `HISTORY_ALREADY_DECIDED` when another client answered first |
//! | `approval.get` | `{approval_id}` | `{approval}`: `decision` is null while nobody has answered (a card polls this to see an answer given elsewhere) |
//! | `approval.list` | `{limit?}` | `{approvals}`: those waiting for an answer, oldest first |
//! | `lavs.list` | — | `{services}`: the installed LAVS services, their endpoints, what cannot be enforced here |
//! | `lavs.manifest` | `{service}` | `{manifest}` |
//! | `lavs.call` | `{service, endpoint, input?}` | `{result}`; a LAVS failure is `LAVS_ERROR` whose message is the JSON-RPC error `{code, message, data}` |
//! | `lavs.view` | `{service}` | `{code, fallback}`: the source of the service's view component (a `local` file inside the service's folder, at most 512 KiB, or `inline` code) for the sidecar's sandboxed frame; `LAVS_NO_VIEW` when it declares none or one Laika does not load (`cdn`, `npm`): the sidecar then shows the fallback rendering |
//! | `lavs.subscribe` | `{service, endpoint, input?}` | `{subscription_id}`; the pushes wait for `lavs.poll` |
//! | `lavs.poll` | `{subscription_id, wait_ms?}` | `{events, closed}`: the pushes since the last poll, each once and in order (waits up to `wait_ms`, at most 10 s, for the first); unpolled for 2 min, a subscription ends (`LAVS_SUBSCRIPTION_UNKNOWN`) |
//! | `lavs.unsubscribe` | `{subscription_id}` | `{unsubscribed}` |
//! | `summary.start` | `{observation, question?, conversation_id?}` | `{job_id, conversation}` |
//! | `summary.poll` | `{job_id, cursor?}` | `{delta, cursor, done, cancelled, error, coverage, chunks_done, chunks_total, first_text_ms, grounding: {key_points, model_sentences_shown, model_sentences_dropped, retries}, notice, result?}` |
//! | `summary.cancel` | `{job_id}` | `{cancelled}` |
//! | `history.list` | `{limit?, offset?}` | `{conversations}` |
//! | `history.get` / `history.delete` | `{conversation_id}` | the conversation / `{deleted}` |
//! | `history.export` | `{conversation_id?, offset?}` | `{export, next_offset}` |
//! | `model.status` | — | engine state (loading, ready, failed, not_installed), load time, installed models |
//! | `config.get` / `config.set` | — / `{key, value}` | the configuration |

use crate::agent::{self, AgentDeps, PlanInput, Tab};
use crate::host::{Host, HostEvent};
use crate::models;
use crate::prompt::{self, TurnRef};
use crate::summary::{self, SummaryDeps, SummaryInput, SummaryJob};
use crate::transport::{Answer, Handler, HostError, Request};
use laika_shared::observation::Observation;
use laika_shared::packet::{self, PROTOCOL_NAME, PROTOCOL_VERSION};
use laika_shared::policy::{Capability, SiteGrant};
use laika_shared::render::{sanitize, to_html};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub const METHODS: &[&str] = &[
    "host.info",
    "packet.validate",
    "render.sanitize",
    "plan",
    "tool.result",
    "tool.run",
    "tool.release",
    "approval.decide",
    "approval.get",
    "approval.list",
    "lavs.list",
    "lavs.manifest",
    "lavs.call",
    "lavs.view",
    "lavs.subscribe",
    "lavs.poll",
    "lavs.unsubscribe",
    "summary.start",
    "collection.ask",
    "summary.poll",
    "summary.cancel",
    "history.list",
    "history.get",
    "history.delete",
    "history.export",
    "model.status",
    "config.get",
    "config.set",
];

/// The most text one `summary.poll` returns; the rest comes with the next poll.
const MAX_DELTA_BYTES: usize = 256 * 1024;
/// How long a finished summary stays pollable.
const JOB_RETENTION: std::time::Duration = std::time::Duration::from_secs(30 * 60);
/// Export pages stop growing past this many bytes.
const EXPORT_PAGE_BYTES: usize = 600 * 1024;

pub struct HostApi {
    pub host: Arc<Host>,
}

/// Answers an approval (the sidecar's card, `laika-host approvals`, the `laika` LAVS service):
/// the first answer wins (`HISTORY_ALREADY_DECIDED` after it), a site grant is recorded when
/// offered and chosen, and the host's listeners are told ([`HostEvent::ApprovalDecided`]).
pub fn decide_approval(host: &Host, id: &str, decision: &str) -> Result<Value, HostError> {
    if !["approve", "deny", "always_on_site"].contains(&decision) {
        return Err(invalid("params.decision is approve, deny or always_on_site"));
    }
    let history = &host.history;
    let existing = history
        .approval(id)
        .map_err(history_error)?
        .ok_or_else(|| HostError::new("APPROVAL_NOT_FOUND", format!("no approval {id:?}")))?;
    // A site grant is offered only where the gate said one may be; checked before anything is recorded.
    let grant = if decision == "always_on_site" {
        let capability: Capability =
            existing.grantable.as_deref().and_then(|c| serde_json::from_value(json!(c)).ok()).ok_or_else(|| {
                HostError::new("POLICY_NOT_GRANTABLE", "this action cannot be allowed for a whole site")
            })?;
        let origin =
            existing.origin.clone().ok_or_else(|| HostError::new("POLICY_NOT_GRANTABLE", "the page has no origin"))?;
        Some(SiteGrant { origin, capability })
    } else {
        None
    };
    let approval = history.decide_approval(id, decision).map_err(history_error)?;
    if let Some(grant) = &grant {
        history.add_grant(grant).map_err(history_error)?;
    }
    host.publish(HostEvent::ApprovalDecided { approval: approval.clone(), from_hub: false });
    Ok(json!({ "approval": approval, "run": decision != "deny", "grant": grant }))
}

/// Starts a summary (or, with a question, an answer) of `observation` as a job the host keeps
/// for polling, remembers the page for the conversation, and tells the host's listeners when it
/// is done ([`HostEvent::SummaryDone`]). The sidecar's `summary.start` and a question asked of
/// Laika on the Lark bus both start their work here.
pub fn spawn_summary(
    host: &Arc<Host>,
    observation: Arc<Observation>,
    question: Option<String>,
    turn: TurnRef,
) -> Arc<SummaryJob> {
    spawn_job(host, observation, question, turn, None)
}

/// A question asked across a collection's captured sources: the grounded answer path over them
/// all, each citation traced to its source ([`crate::collection_read`]). `COLLECTION_EMPTY` when
/// nothing is captured yet.
pub fn spawn_collection_ask(
    host: &Arc<Host>,
    collection_id: &str,
    question: String,
    turn: TurnRef,
) -> Result<Arc<SummaryJob>, HostError> {
    let (index, sources) = host.notebook()?.documents(collection_id)?;
    if sources.iter().all(|s| s.text.trim().is_empty()) {
        return Err(HostError::new(
            "COLLECTION_EMPTY",
            format!("{collection_id} has no captured source to answer from (source.capture adds one)"),
        ));
    }
    let (read, observation) = crate::collection_read::CollectionRead::new(index, sources);
    Ok(spawn_job(host, Arc::new(observation), Some(question), turn, Some(Arc::new(read))))
}

fn spawn_job(
    host: &Arc<Host>,
    observation: Arc<Observation>,
    question: Option<String>,
    turn: TurnRef,
    collection: Option<Arc<crate::collection_read::CollectionRead>>,
) -> Arc<SummaryJob> {
    let job = SummaryJob::new(turn.clone());
    let user_text = question.clone().unwrap_or_else(|| "Summarize this page".to_string());
    {
        let mut jobs = host.jobs.lock().unwrap_or_else(|e| e.into_inner());
        // Finished jobs are kept a while for late polls, not for the life of the host.
        jobs.retain(|_, j| !(j.is_done() && j.started.elapsed() > JOB_RETENTION));
        jobs.insert(job.id.clone(), job.clone());
    }
    host.remember_page(&turn.conversation_id, observation.clone());
    let host = host.clone();
    let running = job.clone();
    tokio::spawn(async move {
        let engine = host.ready_engine().await;
        let deps = SummaryDeps {
            engine,
            history: Some(host.history.clone()),
            debug: host.debug.clone(),
            sampling: host.config().sampling(),
            constrain: host.config().constrain_bullets,
        };
        let (title, url) = (observation.title.clone(), observation.url.clone());
        let input =
            SummaryInput { observation: (*observation).clone(), user_text, question: question.clone(), collection };
        summary::run(running.clone(), input, deps).await;
        let state = running.snapshot();
        if state.result.is_some() && !state.cancelled {
            host.publish(HostEvent::SummaryDone {
                conversation_id: turn.conversation_id,
                title,
                url,
                question,
                text: state.text,
            });
        }
    });
    job
}

/// The largest view component the sidecar is handed.
const VIEW_MAX_BYTES: u64 = 512 * 1024;

/// `lavs.view`: the code of a service's view component. Only code on this machine is handed to
/// the sandboxed frame: a `local` file inside the service's folder (symlinks and `..` resolved
/// first) or `inline` code; a `cdn` or `npm` component would be code fetched from the network at
/// view time, which the frame's CSP (no network) could not run anyway.
fn view_source(runtime: &laika_lavs::Runtime, name: &str) -> Result<Value, HostError> {
    let no_view = |why: String| HostError::new("LAVS_NO_VIEW", why);
    let service = runtime.service(name).ok_or_else(|| no_view(format!("no service {name:?} is installed")))?;
    let view = service.manifest.view.clone().unwrap_or(Value::Null);
    let fallback = view["fallback"].as_str().unwrap_or("auto").to_string();
    let component = &view["component"];
    let code = match component["type"].as_str() {
        Some("inline") => component["code"].as_str().unwrap_or_default().to_string(),
        Some("local") => {
            let path = component["path"].as_str().unwrap_or_default();
            let home = laika_lavs::permissions::resolve(&service.dir).map_err(|e| no_view(e.to_string()))?;
            let file = laika_lavs::permissions::resolve(&service.dir.join(path))
                .map_err(|e| no_view(format!("view.component.path {path:?}: {e}")))?;
            if !file.starts_with(&home) {
                return Err(no_view(format!("view.component.path {path:?} is outside the service's folder")));
            }
            let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
            if size > VIEW_MAX_BYTES {
                return Err(no_view(format!(
                    "view.component.path {path:?} is {size} bytes (at most {VIEW_MAX_BYTES})"
                )));
            }
            std::fs::read_to_string(&file).map_err(|e| no_view(format!("view.component.path {path:?}: {e}")))?
        }
        Some(other) => {
            return Err(no_view(format!(
                "{name} declares a {other:?} view component; Laika runs only local and inline ones"
            )));
        }
        None => return Err(no_view(format!("{name} declares no view component"))),
    };
    Ok(json!({ "code": code, "fallback": fallback }))
}

fn invalid(message: impl Into<String>) -> HostError {
    HostError::new("HOST_INVALID_PARAMS", message)
}

fn param<'a>(request: &'a Request, name: &str) -> Result<&'a Value, HostError> {
    request
        .params
        .get(name)
        .filter(|v| !v.is_null())
        .ok_or_else(|| invalid(format!("{} needs params.{name}", request.method)))
}

fn str_param<'a>(request: &'a Request, name: &str) -> Result<&'a str, HostError> {
    param(request, name)?.as_str().ok_or_else(|| invalid(format!("params.{name} must be a string")))
}

fn opt_str<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request.params.get(name).and_then(Value::as_str)
}

fn observation_param(request: &Request) -> Result<Observation, HostError> {
    let value = param(request, "observation")?;
    serde_json::from_value(value.clone()).map_err(|e| invalid(format!("params.observation is not an observation: {e}")))
}

fn history_error(e: crate::history::HistoryError) -> HostError {
    HostError::new(e.code, e.message)
}

impl HostApi {
    /// The next turn of a conversation (1 for a new one).
    pub fn next_turn(&self, conversation_id: Option<&str>) -> Result<TurnRef, HostError> {
        let Some(id) = conversation_id else {
            return Ok(TurnRef { conversation_id: prompt::new_id(), turn: 1 });
        };
        let last = self
            .host
            .history
            .get(id)
            .map_err(history_error)?
            .map(|c| {
                c.messages
                    .iter()
                    .filter_map(|m| m.pointer("/conversation/turn").and_then(Value::as_u64))
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0);
        Ok(TurnRef { conversation_id: id.to_string(), turn: last + 1 })
    }

    fn agent_deps(host: &Host, engine: Arc<dyn crate::engine::Engine>) -> AgentDeps {
        AgentDeps {
            engine,
            history: Some(host.history.clone()),
            debug: host.debug.clone(),
            sampling: host.config().sampling(),
            integrations: crate::host_tools::integrations(host),
        }
    }

    fn plan_later(&self, input: PlanInput) -> Answer {
        let host = self.host.clone();
        Answer::Later(Box::pin(async move {
            let engine = host.ready_engine().await;
            let deps = Self::agent_deps(&host, engine);
            let outcome = agent::plan(&input, &deps, &CancellationToken::new())
                .await
                .map_err(|(code, message)| HostError::new(code, message))?;
            let reply = outcome.reply;
            host.browser_calls.remember(&outcome.calls);
            // What each call did is compared with what later steps propose: the calls as they
            // run (a masked password would never match itself).
            host.runs.proposed(&input.run_id, &outcome.calls, &input.observation);
            host.remember_page(&input.turn.conversation_id, Arc::new(input.observation.clone()));
            crate::host_tools::remember_reply(&host, &reply, &input.turn.conversation_id);
            // Every call the gate asked about, for whoever else may answer it (the Lark bus).
            let asked = reply["tool_calls"].as_array().into_iter().flatten().filter_map(|c| c["approval_id"].as_str());
            for id in asked {
                if let Ok(Some(approval)) = host.history.approval(id) {
                    host.publish(HostEvent::ApprovalAsked { approval, title: input.observation.title.clone() });
                }
            }
            Ok(reply)
        }))
    }

    fn plan(&self, request: &Request) -> Result<Answer, HostError> {
        let goal = str_param(request, "goal")?.to_string();
        if goal.trim().is_empty() {
            return Err(invalid("params.goal is empty"));
        }
        let observation = observation_param(request)?;
        let tabs: Vec<Tab> = match request.params.get("tabs") {
            None | Some(Value::Null) => vec![],
            Some(v) => serde_json::from_value(v.clone()).map_err(|e| invalid(format!("params.tabs: {e}")))?,
        };
        let turn = self.next_turn(opt_str(request, "conversation_id"))?;
        let max_steps = self.host.config().max_steps;
        Ok(self.plan_later(PlanInput {
            goal,
            observation,
            tabs,
            turn,
            step: 1,
            max_steps,
            run_id: prompt::new_id(),
            done: vec![],
        }))
    }

    fn tool_result(&self, request: &Request) -> Result<Answer, HostError> {
        let conversation_id = str_param(request, "conversation_id")?.to_string();
        let run_id = str_param(request, "run_id")?.to_string();
        let step = param(request, "step")?.as_u64().ok_or_else(|| invalid("params.step must be a number"))? as u32;
        let name = str_param(request, "name")?.to_string();
        let call_id = str_param(request, "call_id")?.to_string();
        let ok = param(request, "ok")?.as_bool().ok_or_else(|| invalid("params.ok must be a boolean"))?;
        let turn = self.next_turn(Some(&conversation_id))?;
        // A tool result is recorded as a packet of its own (sender role "tool"); results are
        // page-derived, so only a short preview of them is kept.
        let result_preview =
            request.params.get("result").map(|r| crate::ground::shorten(&r.to_string(), 500)).unwrap_or_default();
        let mut record = prompt::envelope("tool", "tool", &turn);
        record.insert("trace".into(), json!({ "run_id": run_id, "step": step }));
        record.insert(
            "tool_result".into(),
            json!({ "call_id": call_id, "name": name, "ok": ok, "error": request.params.get("error"), "result_preview": result_preview }),
        );
        self.host.history.append_turn(&[Value::Object(record)], None).map_err(history_error)?;
        self.host.runs.finished(&run_id, &call_id);
        let next = match (request.params.get("observation"), opt_str(request, "goal")) {
            (Some(o), Some(goal)) if !o.is_null() => Some((observation_param(request)?, goal.to_string())),
            _ => None,
        };
        let max_steps = self.host.config().max_steps;
        match next {
            Some((observation, goal)) if step < max_steps => {
                let tabs = serde_json::from_value(request.params.get("tabs").cloned().unwrap_or(json!([])))
                    .unwrap_or_default();
                Ok(self.plan_later(PlanInput {
                    goal,
                    observation,
                    tabs,
                    turn: TurnRef { conversation_id, turn: turn.turn + 1 },
                    step: step + 1,
                    max_steps,
                    done: self.host.runs.done(&run_id),
                    run_id,
                }))
            }
            Some(_) => Ok(Answer::Now(Ok(json!({
                "recorded": true,
                "done": true,
                "reason": "AGENT_STEP_LIMIT",
                "summary": format!("I stopped: this run reached its bound of {max_steps} steps. Ask again to go on."),
            })))),
            None => Ok(Answer::Now(Ok(json!({ "recorded": true, "done": false })))),
        }
    }

    /// `tool.run {call_id}`: a host-run call of a planning step, once allowed or approved.
    fn tool_run(&self, request: &Request) -> Result<Answer, HostError> {
        let call_id = str_param(request, "call_id")?.to_string();
        // A page the browser captured for a capture call (source.capture, source.refresh).
        let capture = request.params.get("capture").filter(|c| !c.is_null()).cloned();
        let host = self.host.clone();
        Ok(Answer::Later(Box::pin(async move { crate::host_tools::run_with(&host, &call_id, capture.as_ref()).await })))
    }

    fn approval_decide(&self, request: &Request) -> Result<Value, HostError> {
        decide_approval(&self.host, str_param(request, "approval_id")?, str_param(request, "decision")?)
    }

    /// `collection.ask {collection_id, question, conversation_id?}`: a question across a
    /// collection, as a job polled like a summary's.
    fn collection_ask(&self, request: &Request) -> Result<Value, HostError> {
        let collection_id = str_param(request, "collection_id")?.to_string();
        let question = str_param(request, "question")?.trim().to_string();
        if question.is_empty() {
            return Err(invalid("params.question must not be empty"));
        }
        let turn = self.next_turn(opt_str(request, "conversation_id"))?;
        let job = spawn_collection_ask(&self.host, &collection_id, question, turn.clone())?;
        Ok(json!({ "job_id": job.id, "conversation": { "id": turn.conversation_id, "turn": turn.turn } }))
    }

    fn summary_start(&self, request: &Request) -> Result<Value, HostError> {
        let observation = observation_param(request)?;
        let question = opt_str(request, "question").map(str::to_string).filter(|q| !q.trim().is_empty());
        let turn = self.next_turn(opt_str(request, "conversation_id"))?;
        let job = spawn_summary(&self.host, Arc::new(observation), question, turn.clone());
        Ok(json!({ "job_id": job.id, "conversation": { "id": turn.conversation_id, "turn": turn.turn } }))
    }

    fn lavs(&self) -> Result<Arc<laika_lavs::Runtime>, HostError> {
        self.host.lavs.clone().ok_or_else(|| HostError::new("LAVS_UNAVAILABLE", "LAVS services are off (see the log)"))
    }

    /// `lavs.call`: an endpoint of an installed service, as the sidecar calls it. A failure is
    /// `LAVS_ERROR` whose message is the JSON-RPC error object (`{code, message, data}`) as
    /// JSON, so the caller still has the spec's code.
    fn lavs_call(&self, request: &Request) -> Result<Answer, HostError> {
        let runtime = self.lavs()?;
        let service = str_param(request, "service")?.to_string();
        let endpoint = str_param(request, "endpoint")?.to_string();
        let input = request.params.get("input").cloned().filter(|v| !v.is_null());
        Ok(Answer::Later(Box::pin(async move {
            runtime
                .call(&service, &endpoint, input, "sidecar")
                .await
                .map(|result| json!({ "result": result }))
                .map_err(|e| HostError::new("LAVS_ERROR", serde_json::to_string(&e).unwrap_or_default()))
        })))
    }

    fn lavs_poll(&self, request: &Request) -> Result<Answer, HostError> {
        let id = str_param(request, "subscription_id")?.to_string();
        let wait = std::time::Duration::from_millis(request.params.get("wait_ms").and_then(Value::as_u64).unwrap_or(0));
        let host = self.host.clone();
        Ok(Answer::Later(Box::pin(async move { host.lavs_subscriptions.poll(&id, wait).await })))
    }

    fn approval_list(&self, request: &Request) -> Result<Value, HostError> {
        let limit = request.params.get("limit").and_then(Value::as_u64).unwrap_or(100).min(500) as usize;
        let pending = self.host.history.pending_approvals(limit).map_err(history_error)?;
        Ok(json!({ "approvals": pending }))
    }

    fn approval_get(&self, request: &Request) -> Result<Value, HostError> {
        let id = str_param(request, "approval_id")?;
        let approval = self
            .host
            .history
            .approval(id)
            .map_err(history_error)?
            .ok_or_else(|| HostError::new("APPROVAL_NOT_FOUND", format!("no approval {id:?}")))?;
        Ok(json!({ "approval": approval }))
    }

    fn job(&self, request: &Request) -> Result<Arc<SummaryJob>, HostError> {
        let id = str_param(request, "job_id")?;
        self.host
            .jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
            .ok_or_else(|| HostError::new("SUMMARY_NOT_FOUND", format!("no summary job {id:?}")))
    }

    fn summary_poll(&self, request: &Request) -> Result<Value, HostError> {
        let job = self.job(request)?;
        let cursor = request.params.get("cursor").and_then(Value::as_u64).unwrap_or(0) as usize;
        let state = job.snapshot();
        if cursor > state.text.len() || !state.text.is_char_boundary(cursor) {
            return Err(invalid(format!("params.cursor {cursor} is not a position in the stream")));
        }
        let mut end = (cursor + MAX_DELTA_BYTES).min(state.text.len());
        while !state.text.is_char_boundary(end) {
            end -= 1;
        }
        let complete = end == state.text.len();
        let done = state.done && complete;
        let mut reply = json!({
            "delta": &state.text[cursor..end],
            "cursor": end,
            "done": done,
            "cancelled": state.cancelled,
            "error": state.error,
            "coverage": state.coverage,
            "chunks_done": state.chunks_done,
            "chunks_total": state.chunks_total,
            "first_text_ms": state.first_text_ms,
            "grounding": state.grounding,
            "notice": state.notice,
        });
        if done && let Some(result) = &state.result {
            let response = &result["response"];
            reply["result"] = json!({
                "request_id": result["request_id"],
                "response": response,
                "html": sanitize(&response["assistant"]["render"]).doc.pipe(|d| to_html(&d)),
            });
            if to_reply_size(&reply) > crate::transport::MAX_OUTGOING - 1024 {
                // The packet repeats the streamed text; the caller has that already.
                reply["result"]["response"] =
                    json!({ "id": response["id"], "assistant": { "citations": response["assistant"]["citations"] } });
            }
        }
        Ok(reply)
    }

    fn history_export(&self, request: &Request) -> Result<Value, HostError> {
        let history = &self.host.history;
        if let Some(id) = opt_str(request, "conversation_id") {
            let export = history.export(Some(id)).map_err(history_error)?;
            return Ok(json!({ "export": export, "next_offset": null }));
        }
        let offset = request.params.get("offset").and_then(Value::as_u64).unwrap_or(0) as usize;
        let page = history.list(50, offset).map_err(history_error)?;
        let mut conversations = Vec::new();
        let mut bytes = 0;
        let mut taken = 0;
        for summary in &page {
            let export = history.export(Some(&summary.id)).map_err(history_error)?;
            let size = export.to_string().len();
            if taken > 0 && bytes + size > EXPORT_PAGE_BYTES {
                break;
            }
            bytes += size;
            taken += 1;
            conversations.extend(export["conversations"].as_array().cloned().unwrap_or_default());
        }
        let more = taken < page.len() || page.len() == 50;
        Ok(json!({
            "export": { "format": "laika.history.v1", "exported_at": prompt::now_utc(), "conversations": conversations },
            "next_offset": if more { json!(offset + taken) } else { Value::Null },
        }))
    }

    fn model_status(&self) -> Value {
        let status = self.host.status();
        json!({
            "status": status,
            "installed": models::list(&self.host.data_dir),
            "default_model": models::DEFAULT_MODEL,
            "uptime_ms": self.host.started.elapsed().as_secs_f64() * 1000.0,
        })
    }

    fn config_set(&self, request: &Request) -> Result<Value, HostError> {
        let key = str_param(request, "key")?;
        let value = request.params.get("value").ok_or_else(|| invalid("config.set needs params.value"))?;
        let updated = {
            let mut config = self.host.config.lock().unwrap_or_else(|e| e.into_inner());
            let mut candidate = config.clone();
            candidate.set(key, value).map_err(|m| HostError::new("CONFIG_INVALID", m))?;
            candidate.save(&self.host.data_dir).map_err(|e| HostError::new("CONFIG_IO", format!("{e:#}")))?;
            *config = candidate.clone();
            candidate
        };
        // A change of engine or model reloads in the background; model.status shows progress.
        if ["engine", "model", "precision", "base_url", "remote_model", "api_key_env", "remote_context_tokens"]
            .contains(&key)
        {
            let host = self.host.clone();
            tokio::spawn(async move { host.load_engine().await });
        }
        Ok(json!({ "config": updated }))
    }
}

fn to_reply_size(value: &Value) -> usize {
    serde_json::to_vec(value).map(|v| v.len()).unwrap_or(usize::MAX)
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl<T> Pipe for T {}

impl Handler for HostApi {
    fn handle(&self, request: &Request) -> Answer {
        let now = |result: Result<Value, HostError>| Answer::Now(result);
        match request.method.as_str() {
            "host.info" => now(Ok(json!({
                "name": "laika-host",
                "version": env!("CARGO_PKG_VERSION"),
                "protocol": { "name": PROTOCOL_NAME, "version": PROTOCOL_VERSION },
                "methods": METHODS,
                "data_dir": self.host.data_dir,
                // "full" under LAIKA_LOG_FULL_LLM=1: the history then keeps whole packets (page text).
                "history_storage": self.host.history.policy().as_str(),
                // Which process answers: the daemon every browser shares, or one of its own.
                "pid": std::process::id(),
                "served_by": if self.host.served_by_daemon() { "daemon" } else { "process" },
            }))),
            "packet.validate" => now(param(request, "packet").map(|p| {
                let violations = packet::validate(p);
                json!({ "valid": violations.is_empty(), "violations": violations })
            })),
            "render.sanitize" => now(param(request, "render").map(|r| {
                let sanitized = sanitize(r);
                json!({ "doc": sanitized.doc, "html": to_html(&sanitized.doc), "dropped": sanitized.dropped })
            })),
            "plan" => self.plan(request).unwrap_or_else(|e| now(Err(e))),
            "tool.result" => self.tool_result(request).unwrap_or_else(|e| now(Err(e))),
            "tool.release" => {
                now(str_param(request, "call_id")
                    .and_then(|id| self.host.browser_calls.release(&self.host.history, id)))
            }
            "tool.run" => self.tool_run(request).unwrap_or_else(|e| now(Err(e))),
            "approval.decide" => now(self.approval_decide(request)),
            "approval.get" => now(self.approval_get(request)),
            "lavs.list" => now(self.lavs().map(|runtime| json!({ "services": runtime.list() }))),
            "lavs.manifest" => now(self.lavs().and_then(|runtime| {
                let name = str_param(request, "service")?;
                let service = runtime
                    .service(name)
                    .ok_or_else(|| HostError::new("LAVS_NO_SERVICE", format!("no LAVS service {name:?}")))?;
                Ok(json!({ "manifest": service.raw }))
            })),
            "lavs.call" => self.lavs_call(request).unwrap_or_else(|e| now(Err(e))),
            "lavs.subscribe" => now(self.lavs().and_then(|runtime| {
                let input = request.params.get("input").cloned().filter(|v| !v.is_null());
                self.host.lavs_subscriptions.subscribe(
                    &runtime,
                    str_param(request, "service")?,
                    str_param(request, "endpoint")?,
                    input,
                )
            })),
            "lavs.poll" => self.lavs_poll(request).unwrap_or_else(|e| now(Err(e))),
            "lavs.view" => now(self.lavs().and_then(|runtime| view_source(&runtime, str_param(request, "service")?))),
            "lavs.unsubscribe" => {
                now(str_param(request, "subscription_id").and_then(|id| self.host.lavs_subscriptions.unsubscribe(id)))
            }
            "approval.list" => now(self.approval_list(request)),
            "summary.start" => now(self.summary_start(request)),
            "collection.ask" => now(self.collection_ask(request)),
            "summary.poll" => now(self.summary_poll(request)),
            "summary.cancel" => now(self.job(request).map(|job| {
                job.cancel.cancel();
                json!({ "cancelled": true })
            })),
            "history.list" => now({
                let limit = request.params.get("limit").and_then(Value::as_u64).unwrap_or(50).min(500) as usize;
                let offset = request.params.get("offset").and_then(Value::as_u64).unwrap_or(0) as usize;
                self.host.history.list(limit, offset).map(|c| json!({ "conversations": c })).map_err(history_error)
            }),
            "history.get" => now(str_param(request, "conversation_id").and_then(|id| {
                self.host
                    .history
                    .get(id)
                    .map_err(history_error)?
                    .map(|c| json!(c))
                    .ok_or_else(|| HostError::new("HISTORY_NOT_FOUND", format!("no conversation {id:?}")))
            })),
            "history.delete" => now(str_param(request, "conversation_id").and_then(|id| {
                self.host.history.delete(id).map(|deleted| json!({ "deleted": deleted })).map_err(history_error)
            })),
            "history.export" => now(self.history_export(request)),
            "model.status" => now(Ok(self.model_status())),
            "config.get" => now(Ok(json!({ "config": self.host.config(), "keys": crate::host::Config::keys() }))),
            "config.set" => now(self.config_set(request)),
            other => now(Err(HostError::new("HOST_UNKNOWN_METHOD", format!("no method {other:?}; see host.info")))),
        }
    }
}
