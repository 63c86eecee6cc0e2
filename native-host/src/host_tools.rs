//! The tools that run in the host (the catalogue's [`Executor::Host`]), after the Policy Gate.
//!
//! How a call flows:
//! 1. a planning step gates every proposed call ([`crate::agent::plan`]) and the host-run ones are
//!    kept here by call id, exactly as the gate saw them ([`HostCalls::remember`]);
//! 2. once the call is allowed, or its card approved (in the sidecar, by `laika-host approvals`
//!    or from the Lark bus), the sidecar asks `tool.run {call_id}`;
//! 3. [`run`] decides again with what is installed now (a service removed since is denied), checks
//!    that an `ask` was approved, and runs the call once.
//!
//! The browser never sends the arguments back: what runs is what the user saw on the card.
//!
//! `integration.invoke` calls an endpoint of a local LAVS service: `integration` names the
//! service, `operation` the endpoint, `payload` is its input. Queries allow, mutations ask
//! (naming the service and the endpoint), and a mutation with an `idempotencyKey` runs once per
//! key: a repeat answers with the stored result ([`crate::history::History::integration_result`]).
//! What the model may call, and what the planner is told of it, is [`crate::integrations`].

use crate::collection_tools;
use crate::history::History;
use crate::host::{Host, HostEvent};
use crate::integrations::{self, Integration, endpoints};
use crate::notebook::{self, NoteSource};
use crate::prompt::SUMMARY_DOC_ID;
use crate::transport::HostError;
use laika_shared::policy::{self, EndpointKind, PolicyContext, Verdict};
use laika_shared::tools::{
    ArtifactShareArgs, Executor, FindArgs, FindScope, IntegrationInvokeArgs, OpenTarget, RawToolCall, ShareFormat,
    ShareTarget, ToolCall,
};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Host-run calls kept for `tool.run`; the oldest are forgotten past this (a call proposed that
/// long ago is proposed again rather than run from a stale card).
const CALLS_KEPT: usize = 256;

/// A host-run call as the gate decided it, and, once it ran, what it answered: every later
/// `tool.run` of it (the card, and the host itself when the approval came from elsewhere) gets
/// that same outcome, and it runs once however many ask at the same moment.
#[derive(Clone, Debug)]
struct Pending {
    call: ToolCall,
    approval_id: Option<String>,
    /// The conversation that proposed it (whose page a saved artifact came from).
    conversation_id: Option<String>,
    outcome: Arc<tokio::sync::OnceCell<Result<Value, HostError>>>,
}

/// The host-run calls of recent planning steps, by call id.
#[derive(Default)]
pub struct HostCalls {
    calls: Mutex<VecDeque<(String, Pending)>>,
}

impl HostCalls {
    /// Keeps a gated call for `tool.run`. Calls other tools run elsewhere are not kept.
    pub fn remember(
        &self,
        call_id: &str,
        call: ToolCall,
        approval_id: Option<String>,
        conversation_id: Option<String>,
    ) {
        if call.spec().executor != Executor::Host {
            return;
        }
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.push_back((
            call_id.to_string(),
            Pending { call, approval_id, conversation_id, outcome: Default::default() },
        ));
        while calls.len() > CALLS_KEPT {
            calls.pop_front();
        }
    }

    fn get(&self, call_id: &str) -> Option<Pending> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.iter().find(|(id, _)| id == call_id).map(|(_, p)| p.clone())
    }

    /// The kept call an approval was asked for, if it has not run yet.
    fn waiting_on(&self, approval_id: &str) -> Option<String> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls
            .iter()
            .find(|(_, p)| p.approval_id.as_deref() == Some(approval_id) && p.outcome.get().is_none())
            .map(|(id, _)| id.clone())
    }
}

/// Runs a host-run call as soon as its approval is answered yes, wherever it was answered (the
/// sidecar's card, the Approvals panel, `laika-host approvals`, the Lark bus): the card that
/// asked may have been closed since. A card still open asks `tool.run` too and gets the same
/// outcome. The daemon starts this once.
pub fn run_on_approval(host: Arc<Host>) -> tokio::task::JoinHandle<()> {
    let mut events = host.subscribe();
    tokio::spawn(async move {
        loop {
            let approval = match events.recv().await {
                Ok(HostEvent::ApprovalDecided { approval, .. }) => approval,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            };
            if approval.tool_name.starts_with(crate::librarian::TOOL_PREFIX) {
                // The Librarian's proposals: applied (or marked rejected) in the notebook.
                let host = host.clone();
                tokio::task::spawn_blocking(move || {
                    if let Some(Err(error)) = crate::librarian::decided(&host, &approval) {
                        tracing::warn!(code = error.code, "an approved Librarian change failed: {}", error.message);
                    }
                });
                continue;
            }
            if !matches!(approval.decision.as_deref(), Some("approve" | "always_on_site")) {
                continue;
            }
            let Some(call_id) = host.host_calls.waiting_on(&approval.id) else { continue };
            let host = host.clone();
            tokio::spawn(async move {
                if let Err(error) = run(&host, &call_id).await {
                    tracing::warn!(code = error.code, "an approved host-run call failed: {}", error.message);
                }
            });
        }
    })
}

/// Keeps a planning reply's host-run calls (`tool_calls[]` with their ids) for `tool.run`.
pub fn remember_reply(host: &Host, reply: &Value, conversation_id: &str) {
    for call in reply["tool_calls"].as_array().into_iter().flatten() {
        let raw = RawToolCall {
            name: call["name"].as_str().unwrap_or_default().to_string(),
            arguments: call["arguments"].as_object().cloned().unwrap_or_default(),
        };
        if let (Ok(typed), Some(id)) = (raw.to_typed(), call["id"].as_str()) {
            let approval = call["approval_id"].as_str().map(str::to_string);
            host.host_calls.remember(id, typed, approval, Some(conversation_id.to_string()));
        }
    }
}

/// The endpoints of the installed services the model may call ([`integrations::installed`]).
pub fn integrations(host: &Host) -> Vec<Integration> {
    host.lavs.as_deref().map(integrations::installed).unwrap_or_default()
}

/// `tool.run`: runs the kept call `call_id` if the gate allows it now, or its card was approved.
pub async fn run(host: &Host, call_id: &str) -> Result<Value, HostError> {
    run_with(host, call_id, None).await
}

/// [`run`], with the page the browser captured for a capture call ([`collection_tools`]):
/// without one, such a call answers what to capture and keeps no outcome.
pub async fn run_with(host: &Host, call_id: &str, capture: Option<&Value>) -> Result<Value, HostError> {
    let pending = host.host_calls.get(call_id).ok_or_else(|| {
        HostError::new(
            "TOOL_CALL_UNKNOWN",
            format!("no host-run call {call_id:?} is kept: it was never proposed here, or the host restarted since; ask again"),
        )
    })?;
    if let Some(outcome) = pending.outcome.get() {
        return outcome.clone();
    }
    let installed = integrations(host);
    let endpoints = endpoints(&installed);
    let grants = host.history.grants().map_err(|e| HostError::new(e.code, e.message))?;
    let context = PolicyContext { grants: &grants, integrations: &endpoints, ..PolicyContext::default() };
    let decision = policy::decide(&pending.call, &context);
    match decision.verdict {
        Verdict::Deny => return Err(HostError::new(decision.code.as_str(), decision.reason)),
        Verdict::Ask => {
            let approval = pending
                .approval_id
                .as_deref()
                .map(|id| host.history.approval(id))
                .transpose()
                .map_err(|e| HostError::new(e.code, e.message))?
                .flatten();
            let answer = approval.as_ref().and_then(|a| a.decision.as_deref());
            if !matches!(answer, Some("approve" | "always_on_site")) {
                let said = answer.map(|a| format!("was answered {a:?}")).unwrap_or_else(|| "has no answer yet".into());
                return Err(HostError::new(
                    "TOOL_NOT_APPROVED",
                    format!("{}: its approval {said}", pending.call.name()),
                ));
            }
        }
        Verdict::Allow => {}
    }
    if collection_tools::needs_browser(&pending.call) && capture.is_none() {
        return Ok(json!({ "needs_capture": collection_tools::capture_request(host, &pending.call)? }));
    }
    let execute = || async {
        match &pending.call {
            ToolCall::IntegrationInvoke(args) => {
                let mutation = endpoints.iter().any(|e| {
                    e.service == args.integration && e.endpoint == args.operation && e.kind == EndpointKind::Mutation
                });
                invoke(host, args, mutation).await
            }
            // The pure computations of laika-shared, reported like any tool result.
            ToolCall::Calculate(args) => laika_shared::calc::calculate(&args.expression, args.precision)
                .map(
                    |c| json!({ "result": c.result, "formatted": c.formatted.unwrap_or_else(|| c.result.to_string()) }),
                )
                .map_err(|e| HostError::new(e.code(), e.to_string())),
            ToolCall::MoneyCalculate(args) => laika_shared::money::money_calculate(
                &args.expression,
                &args.currency,
                args.rounding.unwrap_or_default(),
            )
            .map(|m| {
                json!({
                    "result": m.amount,
                    "formatted": format!("{} {}", m.amount, m.currency),
                    "amount_minor": m.amount_minor,
                    "currency": m.currency,
                    "rounding": m.rounding,
                })
            })
            .map_err(|e| HostError::new(e.code(), e.to_string())),
            ToolCall::ArtifactSave(args) => {
                // A saved summary or answer keeps what each of its `[n]` markers quotes.
                let cites = args.text.as_deref().is_some_and(has_markers)
                    || args.doc.as_ref().is_some_and(|doc| has_markers(&doc.to_string()));
                let sources: Vec<NoteSource> = pending
                    .conversation_id
                    .as_deref()
                    .and_then(|id| host.page(id).map(|page| (id, page)))
                    .map(|(id, page)| NoteSource {
                        url: page.url.clone(),
                        title: Some(page.title.clone()),
                        citations: if cites { latest_citations(host, id) } else { vec![] },
                    })
                    .into_iter()
                    .collect();
                let note = notebook::save_artifact(&*host.notebook()?, args, &sources)?;
                Ok(json!({
                    "artifactId": note.id,
                    "title": note.state.title,
                    "version": note.version,
                    "redaction": note.redaction,
                    "message": format!("Saved as {} in your notes.", note.id),
                }))
            }
            ToolCall::ArtifactShare(args) => share(host, args),
            ToolCall::ArtifactOpen(args) => {
                let note = host.notebook()?.live(&args.artifact_id)?;
                let markdown = notebook::export::to_markdown(&note);
                Ok(json!({
                    "artifactId": note.id,
                    "target": args.target.unwrap_or(OpenTarget::Workspace),
                    "title": note.state.title,
                    "doc": laika_shared::markdown::markdown_to_doc(&markdown),
                    "markdown": markdown,
                    "message": format!("Opened {}.", note.id),
                }))
            }
            ToolCall::Find(args) => find(host, pending.conversation_id.as_deref(), args),
            call @ (ToolCall::CollectionCreate(_)
            | ToolCall::CollectionAddSources(_)
            | ToolCall::CollectionListSources(_)
            | ToolCall::SourceCapture(_)
            | ToolCall::SourceRefresh(_)
            | ToolCall::TransformListTypes(_)
            | ToolCall::TransformRun(_)) => collection_tools::run(host, call, capture),
            other => Err(HostError::new(
                "TOOL_NO_EXECUTOR",
                format!("{} has no executor in this version of Laika; nothing was run", other.name()),
            )),
        }
    };
    pending.outcome.get_or_init(execute).await.clone()
}

/// Whether a text holds a citation marker (`[1]`).
fn has_markers(text: &str) -> bool {
    text.match_indices('[').any(|(i, _)| {
        let rest = &text[i + 1..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && rest[digits..].starts_with(']')
    })
}

/// The citations of the conversation's latest summary or answer (not a plan's), numbered as its
/// `[n]` markers are: what a saved copy of it keeps beside its text.
fn latest_citations(host: &Host, conversation_id: &str) -> Vec<notebook::Citation> {
    let Ok(Some(conversation)) = host.history.get(conversation_id) else { return vec![] };
    conversation
        .messages
        .iter()
        .rev()
        .filter(|m| m.pointer("/assistant/title").and_then(Value::as_str) != Some("Plan"))
        .find_map(|m| {
            let list = m.pointer("/assistant/citations")?.as_array().filter(|l| !l.is_empty())?;
            Some(
                list.iter()
                    .enumerate()
                    .filter_map(|(i, c)| {
                        Some(notebook::Citation { n: i as u32 + 1, quote: c["quote"].as_str()?.to_string() })
                    })
                    .collect(),
            )
        })
        .unwrap_or_default()
}

/// `content.find` in the page the conversation observed last: each place is a citation, which
/// the sidecar lists under the step and lights up (the first at once, each on hover).
fn find(host: &Host, conversation_id: Option<&str>, args: &FindArgs) -> Result<Value, HostError> {
    if args.scope == Some(FindScope::Web) {
        // The planner proposes a web find as a search ([`ToolCall::proposed`]): one that
        // reaches here came another way, and the search it means asks first.
        return Err(HostError::new(
            "TOOL_FIND_WEB",
            "a find on the web is proposed as a search, which asks first; nothing was run",
        ));
    }
    let page = conversation_id.and_then(|id| host.page(id)).ok_or_else(|| {
        HostError::new("TOOL_NO_PAGE", "this conversation has no observed page to find in; nothing was run")
    })?;
    let found = laika_shared::grounding::find::find(&page, &args.query);
    let citations: Vec<Value> = found
        .iter()
        .map(|f| {
            let mut citation = json!({ "doc_id": SUMMARY_DOC_ID, "quote": f.quote });
            if let Some(handle) = &f.handle_id {
                citation["handle_id"] = json!(handle);
            }
            citation
        })
        .collect();
    let exact = found.iter().all(|f| f.exact);
    let query = args.query.trim();
    let message = match found.len() {
        0 => format!("\"{query}\" is not on this page."),
        1 => format!("Found \"{query}\" once on this page."),
        n => format!("Found \"{query}\" in {n} places on this page."),
    };
    let message = if exact {
        message
    } else {
        message.replace(" on this page.", " on this page (its words, not in that order).")
    };
    Ok(json!({ "query": query, "matches": found.len(), "exact": exact, "citations": citations, "message": message }))
}

/// `artifact.share`: the note in the format asked, to a file (the user's Downloads folder, or
/// `<data dir>/exports` where there is none; never over an existing file) or, as text, to the
/// clipboard (the sidecar copies `clipboard`).
fn share(host: &Host, args: &ArtifactShareArgs) -> Result<Value, HostError> {
    use notebook::export;
    let note = host.notebook()?.live(&args.artifact_id)?;
    let (bytes, extension) = match args.format {
        ShareFormat::Markdown => (export::to_markdown(&note).into_bytes(), "md"),
        ShareFormat::Text => (export::to_text(&note).into_bytes(), "txt"),
        ShareFormat::Json => (export::to_json(&note).into_bytes(), "json"),
        ShareFormat::Csv => {
            (export::to_csv(&note).map_err(|e| HostError::new("TOOL_SHARE_FAILED", e.to_string()))?.into_bytes(), "csv")
        }
        ShareFormat::Pdf => (export::to_pdf(&note), "pdf"),
    };
    match args.target.unwrap_or(ShareTarget::File) {
        ShareTarget::Clipboard if args.format == ShareFormat::Pdf => Err(HostError::new(
            "TOOL_SHARE_UNSUPPORTED",
            "a PDF cannot go to the clipboard; share it to a file, or as markdown or text",
        )),
        ShareTarget::Clipboard => Ok(json!({
            "artifactId": note.id,
            "clipboard": String::from_utf8_lossy(&bytes),
            "message": format!("Copied {} to the clipboard.", note.id),
        })),
        ShareTarget::ShareSheet => Err(HostError::new(
            "TOOL_SHARE_UNSUPPORTED",
            "there is no share sheet on this system; share to a file or the clipboard",
        )),
        ShareTarget::File => {
            let configured = host.config.lock().unwrap_or_else(|e| e.into_inner()).export_dir.clone();
            let folder = Some(PathBuf::from(configured))
                .filter(|p| !p.as_os_str().is_empty())
                .or_else(|| directories::UserDirs::new().and_then(|d| d.download_dir().map(Path::to_path_buf)))
                .unwrap_or_else(|| host.data_dir.join("exports"));
            let name = args.filename.clone().unwrap_or_else(|| format!("{}.{extension}", slug(&note.state.title)));
            let path = write_new(&folder, &name, &bytes).map_err(|e| {
                HostError::new("TOOL_SHARE_FAILED", format!("cannot write into {}: {e}", folder.display()))
            })?;
            Ok(json!({
                "artifactId": note.id,
                "path": path.display().to_string(),
                "bytes": bytes.len(),
                "message": format!("Saved {} as {}.", note.id, path.display()),
            }))
        }
    }
}

/// A file name from a title: letters, digits and dashes, at most 60 characters.
fn slug(title: &str) -> String {
    let words: Vec<String> =
        title.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    let slug: String = words.join("-").chars().take(60).collect();
    if slug.is_empty() { "note".into() } else { slug }
}

/// Writes `bytes` as `folder/name`, or `name (2)`, `name (3)`… when that file exists: an export
/// never replaces a file. Created with `create_new`, so two exports at once cannot both take one
/// name.
fn write_new(folder: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    use std::io::Write;
    std::fs::create_dir_all(folder)?;
    let (stem, extension) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem.to_string(), format!(".{ext}")),
        _ => (name.to_string(), String::new()),
    };
    for n in 1..1000 {
        let candidate = if n == 1 { folder.join(name) } else { folder.join(format!("{stem} ({n}){extension}")) };
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&candidate) {
            Ok(mut file) => {
                file.write_all(bytes)?;
                return Ok(candidate);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!("{name} and 998 numbered copies exist already")))
}

/// Guards keyed mutations: two calls with one key never both reach the service.
static KEYED: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `integration.invoke`, gated already: calls the endpoint as the caller `laika-agent` (audited).
/// A mutation's `idempotencyKey` is honoured; a query's is ignored (a query changes nothing).
async fn invoke(host: &Host, args: &IntegrationInvokeArgs, mutation: bool) -> Result<Value, HostError> {
    let runtime = host.lavs.clone().ok_or_else(|| {
        HostError::new("TOOL_INTEGRATION_UNAVAILABLE", "local services are off on this machine (see the host's log)")
    })?;
    let payload = Value::Object(args.payload.clone());
    let reply = |result: Value, replayed: bool| json!({ "integration": args.integration, "operation": args.operation, "result": result, "replayed": replayed });
    let call = || async {
        runtime
            .call(&args.integration, &args.operation, Some(payload.clone()), "laika-agent")
            .await
            .map_err(|e| HostError::new("LAVS_ERROR", serde_json::to_string(&e).unwrap_or_default()))
    };
    let Some(key) = args.idempotency_key.as_ref().filter(|_| mutation) else { return Ok(reply(call().await?, false)) };
    let digest = crate::history::canonical_sha256(&payload);
    let _one_at_a_time = KEYED.lock().await;
    if let Some((stored_digest, result)) = stored(&host.history, args, key)? {
        if stored_digest != digest {
            return Err(HostError::new(
                "TOOL_IDEMPOTENCY_CONFLICT",
                format!(
                    "idempotencyKey {key:?} was used for a different payload of {} {}",
                    args.integration, args.operation
                ),
            ));
        }
        return Ok(reply(result, true));
    }
    let result = call().await?;
    host.history
        .record_integration_result(&args.integration, &args.operation, key, &digest, &result)
        .map_err(|e| HostError::new(e.code, e.message))?;
    Ok(reply(result, false))
}

fn stored(history: &History, args: &IntegrationInvokeArgs, key: &str) -> Result<Option<(String, Value)>, HostError> {
    history.integration_result(&args.integration, &args.operation, key).map_err(|e| HostError::new(e.code, e.message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{self, AgentDeps, PlanInput};
    use crate::debuglog::DebugLog;
    use crate::engine::Sampling;
    use crate::engine::scripted::Scripted;
    use crate::prompt::{self, TurnRef};
    use laika_shared::observation::Observation;
    use std::path::PathBuf;
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;

    struct Dir(PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A host on a fresh data directory with the spec's bash notes service installed.
    fn host_with_notes(name: &str) -> (Dir, Arc<Host>) {
        let dir = std::env::temp_dir().join(format!("laika-host-tools-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let host = Host::open(&dir).expect("host opens");
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into());
        let examples = PathBuf::from(manifest_dir).join("../lavs/examples/simple-notes");
        host.lavs.as_ref().expect("LAVS runtime").install(&examples).expect("simple-notes installs");
        (Dir(dir), host)
    }

    fn notes(host: &Host) -> String {
        std::fs::read_to_string(host.data_dir.join("lavs/simple-notes/notes.txt")).unwrap_or_default()
    }

    /// One planning step whose (larger) model proposes `calls`, gated as the daemon gates it.
    async fn plan(host: &Arc<Host>, calls: Value) -> (Value, Arc<Scripted>) {
        let reply = json!({ "summary": "On it.", "tool_calls": calls }).to_string();
        let engine = Scripted::new(false, &[reply.as_str()]);
        let deps = AgentDeps {
            engine: engine.clone(),
            history: Some(host.history.clone()),
            debug: Arc::new(DebugLog::off()),
            sampling: Sampling::default(),
            integrations: integrations(host),
        };
        let observation = Observation {
            url: "https://news.example/story".into(),
            title: "A story".into(),
            text: "A story about notes.".into(),
            ..Default::default()
        };
        let input = PlanInput {
            goal: "note that the meeting moved to Friday".into(),
            observation,
            tabs: vec![],
            turn: TurnRef { conversation_id: prompt::new_id(), turn: 1 },
            step: 1,
            max_steps: 4,
            run_id: prompt::new_id(),
            done: vec![],
        };
        let outcome = agent::plan(&input, &deps, &CancellationToken::new()).await.expect("plans");
        host.remember_page(&input.turn.conversation_id, Arc::new(input.observation.clone()));
        host.browser_calls.remember(&outcome.calls);
        remember_reply(host, &outcome.reply, &input.turn.conversation_id);
        (outcome.reply, engine)
    }

    fn call_named<'a>(reply: &'a Value, operation: &str) -> &'a Value {
        reply["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c.pointer("/arguments/operation").and_then(Value::as_str) == Some(operation))
            .unwrap_or_else(|| panic!("no call of {operation} in {reply}"))
    }

    fn save(note: &str, key: &str) -> Value {
        json!({ "name": "integration.invoke", "arguments": {
            "integration": "simple-notes", "operation": "saveNote", "payload": { "NOTE": note }, "idempotencyKey": key } })
    }

    #[tokio::test]
    async fn a_query_runs_a_mutation_waits_for_its_approval_and_runs_once() {
        let (_dir, host) = host_with_notes("approve");
        let read = json!({ "name": "integration.invoke", "arguments": {
            "integration": "simple-notes", "operation": "getNotes", "payload": {} } });
        let (reply, engine) = plan(&host, json!([read, save("Meeting moved to Friday", "note-0001")])).await;

        // The planner was told what it may call, and could only write those calls.
        let asked = engine.asked.lock().unwrap()[0].clone();
        assert!(asked.system.contains("simple-notes saveNote (changes data, asks the user)"), "{}", asked.system);
        let schema = match &asked.shape {
            crate::engine::OutputShape::Json(schema) => schema.to_string(),
            other => panic!("plans decode under a schema, not {other:?}"),
        };
        assert!(schema.contains(r#""operation":{"const":"saveNote"}"#), "{schema}");

        let get = call_named(&reply, "getNotes");
        assert_eq!(get["decision"]["verdict"], "allow");
        let saved = call_named(&reply, "saveNote");
        assert_eq!(saved["decision"]["verdict"], "ask");
        let reason = saved["decision"]["reason"].as_str().unwrap();
        assert!(
            reason.contains("\"saveNote\"") && reason.contains("\"simple-notes\""),
            "the card names both: {reason}"
        );

        let listed = run(&host, get["id"].as_str().unwrap()).await.expect("a query runs without asking");
        assert_eq!(listed["operation"], "getNotes");

        let save_id = saved["id"].as_str().unwrap();
        let early = run(&host, save_id).await.expect_err("not approved yet");
        assert_eq!(early.code, "TOOL_NOT_APPROVED");
        assert_eq!(notes(&host), "", "nothing ran before the approval");

        host.history.decide_approval(saved["approval_id"].as_str().unwrap(), "approve").expect("approved");
        let done = run(&host, save_id).await.expect("runs once approved");
        assert_eq!(done["replayed"], false);
        assert_eq!(notes(&host), "Meeting moved to Friday\n");
        // Asked again (the card and the host at once, say): the same answer, not a second run.
        assert_eq!(run(&host, save_id).await.expect("the outcome is kept"), done);
        assert_eq!(notes(&host), "Meeting moved to Friday\n");
        assert_eq!(run(&host, "never-proposed").await.expect_err("unknown").code, "TOOL_CALL_UNKNOWN");

        // Every call reached the audit log as the agent's.
        let audit = host.lavs.as_ref().expect("the runtime").audit.recent(10).expect("audit log");
        assert_eq!(audit.iter().filter(|e| e.caller == "laika-agent").count(), 2);
    }

    #[tokio::test]
    async fn a_call_approved_elsewhere_runs_without_its_card() {
        let (_dir, host) = host_with_notes("elsewhere");
        let runner = run_on_approval(host.clone());
        let (reply, _) = plan(&host, json!([save("Approved from the panel", "note-0004")])).await;
        let saved = call_named(&reply, "saveNote");
        // Answered through the laika service's path (the Approvals panel, the CLI, the bus).
        crate::api::decide_approval(&host, saved["approval_id"].as_str().unwrap(), "approve").expect("approved");
        let mut waited = 0;
        while notes(&host).is_empty() && waited < 100 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            waited += 1;
        }
        assert_eq!(notes(&host), "Approved from the panel\n", "ran on the approval alone");
        // The card, asking afterwards, gets what the run answered.
        let late = run(&host, saved["id"].as_str().unwrap()).await.expect("kept outcome");
        assert_eq!(late["operation"], "saveNote");
        assert_eq!(notes(&host), "Approved from the panel\n");
        // A denial runs nothing.
        let (reply, _) = plan(&host, json!([save("Never", "note-0005")])).await;
        let refused = call_named(&reply, "saveNote");
        crate::api::decide_approval(&host, refused["approval_id"].as_str().unwrap(), "deny").unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(notes(&host), "Approved from the panel\n");
        assert_eq!(run(&host, refused["id"].as_str().unwrap()).await.unwrap_err().code, "TOOL_NOT_APPROVED");
        runner.abort();
    }

    #[tokio::test]
    async fn a_find_runs_in_the_observed_page_and_a_find_on_the_web_is_proposed_as_a_search() {
        let (_dir, host) = host_with_notes("find");
        let calls = json!([
            { "name": "content.find", "arguments": { "query": "ABOUT notes" } },
            { "name": "content.find", "arguments": { "query": "umbrella", "scope": "page" } },
            { "name": "content.find", "arguments": { "query": "notes app reviews", "scope": "web" } },
        ]);
        let (reply, _) = plan(&host, calls).await;
        let proposed = reply["tool_calls"].as_array().unwrap();
        assert_eq!(proposed.len(), 3, "{reply}");
        assert!(proposed[..2].iter().all(|c| c["name"] == "content.find" && c["decision"]["verdict"] == "allow"));
        assert_eq!(proposed[2]["name"], "search");
        assert_eq!(proposed[2]["arguments"]["query"], "notes app reviews");
        assert_eq!(proposed[2]["decision"]["verdict"], "ask", "a web search asks: {}", proposed[2]);

        let found = run(&host, proposed[0]["id"].as_str().unwrap()).await.expect("a find in the page runs");
        assert_eq!(found["matches"], 1);
        assert_eq!(found["citations"][0]["quote"], "A story about notes.");
        assert_eq!(found["message"], "Found \"ABOUT notes\" once on this page.");
        let none = run(&host, proposed[1]["id"].as_str().unwrap()).await.expect("runs");
        assert_eq!(
            (none["matches"].clone(), none["message"].clone()),
            (json!(0), json!("\"umbrella\" is not on this page."))
        );

        // A blank query is refused before any gate (the planner is asked to repair it).
        let blank = RawToolCall::from_value(&json!({ "name": "content.find", "arguments": { "query": "  " } }), "")
            .expect("a call")
            .to_typed()
            .expect_err("blank");
        assert_eq!(blank[0].code.as_str(), "TOOL_ARG_OUT_OF_RANGE");
        // Without a page observed in the conversation there is nothing to find in.
        let args = FindArgs { query: "notes".into(), scope: None };
        assert_eq!(find(&host, Some("no-such-conversation"), &args).unwrap_err().code, "TOOL_NO_PAGE");
        let web = FindArgs { query: "notes".into(), scope: Some(FindScope::Web) };
        assert_eq!(find(&host, None, &web).unwrap_err().code, "TOOL_FIND_WEB");
    }

    /// Approves a proposed call's card (when it has one) and runs it, with a captured page.
    async fn approve_and_run(host: &Arc<Host>, call: &Value, capture: Option<&Value>) -> Result<Value, HostError> {
        if let Some(approval) = call["approval_id"].as_str()
            && host.history.approval(approval).unwrap().and_then(|a| a.decision).is_none()
        {
            host.history.decide_approval(approval, "approve").expect("approved");
        }
        run_with(host, call["id"].as_str().unwrap(), capture).await
    }

    #[tokio::test]
    async fn collections_gather_captured_pages_and_notes_and_transforms_cite_them() {
        let (_dir, host) = host_with_notes("collections");
        let (reply, _) =
            plan(&host, json!([{ "name": "collection.create", "arguments": { "title": "Phones" } }])).await;
        let create = &reply["tool_calls"][0];
        assert_eq!(create["decision"]["verdict"], "ask", "creating a collection writes: {create}");
        let created = approve_and_run(&host, create, None).await.expect("created");
        let id = created["collectionId"].as_str().unwrap().to_string();

        let (reply, _) = plan(&host, json!([
            { "name": "collection.add_sources", "arguments": { "collectionId": id, "sources": [
                { "type": "url", "url": "https://phones.example/a" },
                { "type": "note", "title": "Launch notes", "text": "Phone B went on sale on 5 September 2023 in Berlin at 399 dollars." } ] } },
            { "name": "collection.list_sources", "arguments": { "collectionId": id } },
            { "name": "transform.list_types", "arguments": {} },
        ]))
        .await;
        let calls = reply["tool_calls"].as_array().unwrap();
        assert_eq!(calls[0]["decision"]["verdict"], "ask");
        assert!(calls[1..].iter().all(|c| c["decision"]["verdict"] == "allow"), "{reply}");
        let added = approve_and_run(&host, &calls[0], None).await.expect("added");
        assert!(added["message"].as_str().unwrap().contains("1 address(es) wait to be captured"), "{added}");
        let listed = approve_and_run(&host, &calls[1], None).await.expect("listed");
        assert_eq!(listed["sources"].as_array().unwrap().len(), 2);
        let types = approve_and_run(&host, &calls[2], None).await.expect("types");
        assert_eq!(types["types"].as_array().unwrap().len(), 3);

        // A capture runs in two steps: what to capture, then the page the browser read.
        let (reply, _) = plan(&host, json!([{ "name": "source.capture", "arguments": { "collectionId": id, "url": "https://phones.example/a", "maxChars": 5000 } }])).await;
        let capture = &reply["tool_calls"][0];
        assert_eq!(capture["decision"]["verdict"], "ask");
        let asked = approve_and_run(&host, capture, None).await.expect("asks for the page");
        assert_eq!(asked["needs_capture"], json!({ "url": "https://phones.example/a", "maxChars": 5000 }));
        let page = json!({ "url": "https://phones.example/a", "title": "Phone A review",
            "text": "Phone A has a bright screen and a fast chip. It went on sale in March 2024 at a price of 499 dollars." });
        let stored = approve_and_run(&host, capture, Some(&page)).await.expect("stored");
        assert_eq!(stored["title"], "Phone A review");
        assert_eq!(
            run(&host, capture["id"].as_str().unwrap()).await.expect("kept"),
            stored,
            "the outcome is kept once stored"
        );
        let bad = json!({ "url": 7 });
        let (reply, _) = plan(&host, json!([{ "name": "source.capture", "arguments": { "collectionId": id, "url": "https://phones.example/b" } }])).await;
        let err = approve_and_run(&host, &reply["tool_calls"][0], Some(&bad)).await.expect_err("not an observation");
        assert_eq!(err.code, "SOURCE_CAPTURE_INVALID");

        let (reply, _) =
            plan(&host, json!([{ "name": "transform.run", "arguments": { "collectionId": id, "type": "timeline" } }]))
                .await;
        let made = approve_and_run(&host, &reply["tool_calls"][0], None).await.expect("a timeline");
        let note = host.notebook().unwrap().live(made["artifactId"].as_str().unwrap()).unwrap();
        let lines: Vec<&str> = note.state.body_markdown.lines().filter(|l| l.starts_with("- **")).collect();
        assert_eq!(lines.len(), 2, "{}", note.state.body_markdown);
        assert!(
            lines[0].starts_with("- **2023-09-05**: Phone B went on sale") && lines[0].ends_with("[2]"),
            "{}",
            lines[0]
        );
        assert!(lines[1].starts_with("- **2024-03**: It went on sale") && lines[1].ends_with("[1]"), "{}", lines[1]);
        assert!(made["doc"]["children"].as_array().is_some_and(|c| !c.is_empty()));

        // A refresh asks for the source's own address and replaces the capture in place.
        let source = stored["sourceId"].as_str().unwrap();
        let (reply, _) = plan(&host, json!([{ "name": "source.refresh", "arguments": { "sourceId": source } }])).await;
        let refresh = &reply["tool_calls"][0];
        let asked = approve_and_run(&host, refresh, None).await.expect("asks for the page");
        assert_eq!(asked["needs_capture"]["url"], "https://phones.example/a");
        let newer = json!({ "url": "https://phones.example/a", "title": "Phone A review", "text": "Phone A now costs 449 dollars." });
        let refreshed = approve_and_run(&host, refresh, Some(&newer)).await.expect("refreshed");
        assert_eq!((refreshed["sourceId"].as_str(), refreshed["chars"].as_u64()), (Some(source), Some(30)));

        // Unknown collections are named in the error.
        let (reply, _) =
            plan(&host, json!([{ "name": "collection.list_sources", "arguments": { "collectionId": "col:99" } }]))
                .await;
        assert_eq!(approve_and_run(&host, &reply["tool_calls"][0], None).await.unwrap_err().code, "NOTEBOOK_NOT_FOUND");
    }

    #[tokio::test]
    async fn calculations_run_in_the_host_and_say_what_is_wrong_with_an_expression() {
        let (_dir, host) = host_with_notes("calculate");
        let calls = json!([
            { "name": "app.calculate", "arguments": { "expression": "2 * (3 + 4) / 3", "precision": 2 } },
            { "name": "app.money_calculate", "arguments": { "expression": "19.99 * 3 - 0.005", "currency": "usd" } },
            { "name": "app.calculate", "arguments": { "expression": "1 / (2 - 2)" } },
            { "name": "app.money_calculate", "arguments": { "expression": "10", "currency": "ZZZ" } },
        ]);
        let (reply, _) = plan(&host, calls).await;
        let ran: Vec<Result<Value, HostError>> = {
            let mut out = Vec::new();
            for call in reply["tool_calls"].as_array().unwrap() {
                assert_eq!(call["decision"]["verdict"], "allow", "pure computation runs without asking: {call}");
                out.push(run(&host, call["id"].as_str().unwrap()).await);
            }
            out
        };
        let ok = |i: usize| ran[i].clone().unwrap_or_else(|e| panic!("{i}: {e:?}"));
        assert_eq!((ok(0)["result"].as_f64().unwrap() * 100.0).round(), 467.0);
        assert_eq!(ok(0)["formatted"], "4.67");
        assert_eq!((ok(1)["result"].clone(), ok(1)["formatted"].clone()), (json!("59.96"), json!("59.96 USD")));
        assert_eq!(ok(1)["amount_minor"], 5996);
        assert_eq!(ran[2].clone().unwrap_err().code, "CALC_DIVIDE_BY_ZERO");
        assert!(ran[3].clone().unwrap_err().code.starts_with("MONEY_"), "{:?}", ran[3]);
    }

    #[tokio::test]
    async fn an_idempotency_key_runs_a_mutation_once_and_refuses_another_payload() {
        let (_dir, host) = host_with_notes("idempotent");
        for attempt in 0..2 {
            let (reply, _) = plan(&host, json!([save("Buy milk", "note-0002")])).await;
            let saved = call_named(&reply, "saveNote");
            host.history.decide_approval(saved["approval_id"].as_str().unwrap(), "approve").unwrap();
            let done = run(&host, saved["id"].as_str().unwrap()).await.expect("runs");
            assert_eq!(done["replayed"], attempt == 1, "attempt {attempt}");
        }
        assert_eq!(notes(&host), "Buy milk\n", "the repeat did not write again");

        let (reply, _) = plan(&host, json!([save("Buy bread", "note-0002")])).await;
        let saved = call_named(&reply, "saveNote");
        host.history.decide_approval(saved["approval_id"].as_str().unwrap(), "approve").unwrap();
        let conflict = run(&host, saved["id"].as_str().unwrap()).await.expect_err("same key, other payload");
        assert_eq!(conflict.code, "TOOL_IDEMPOTENCY_CONFLICT");
        assert_eq!(notes(&host), "Buy milk\n");
    }

    #[tokio::test]
    async fn unknown_endpoints_and_services_removed_since_are_denied() {
        let (_dir, host) = host_with_notes("denied");
        let unknown = json!({ "name": "integration.invoke", "arguments": {
            "integration": "simple-notes", "operation": "dropAll", "payload": {} } });
        let own = json!({ "name": "integration.invoke", "arguments": {
            "integration": "laika", "operation": "listGrants", "payload": {} } });
        let (reply, _) = plan(&host, json!([unknown, own, save("Later", "note-0003")])).await;
        for operation in ["dropAll", "listGrants"] {
            let call = call_named(&reply, operation);
            assert_eq!(call["decision"]["verdict"], "deny", "{operation}");
            assert_eq!(call["decision"]["code"], "POLICY_UNKNOWN_INTEGRATION", "{operation}");
        }
        let saved = call_named(&reply, "saveNote");
        host.history.decide_approval(saved["approval_id"].as_str().unwrap(), "approve").unwrap();
        // Approved, then the service was removed: the gate decides again when it runs.
        assert!(host.lavs.as_ref().unwrap().remove("simple-notes").unwrap());
        let gone = run(&host, saved["id"].as_str().unwrap()).await.expect_err("removed");
        assert_eq!(gone.code, "POLICY_UNKNOWN_INTEGRATION");
    }

    #[tokio::test]
    async fn artifacts_are_saved_after_approval_shared_in_every_format_and_opened() {
        let (dir, host) = host_with_notes("artifacts");
        let exports = dir.0.join("exports-here");
        host.config.lock().unwrap().export_dir = exports.display().to_string();
        let save = json!({ "name": "artifact.save", "arguments": {
            "title": "Meeting: Friday", "text": "Moved to Friday.\n\n| Who | When |\n|---|---|\n| Ana | 10:00 |\n\nJoin at https://meet.example/x?token=s3cret" } });
        let (reply, _) = plan(&host, json!([save])).await;
        let call = &reply["tool_calls"][0];
        assert_eq!(call["decision"]["verdict"], "ask", "a write asks: {call}");
        let id = call["id"].as_str().unwrap();
        assert_eq!(run(&host, id).await.unwrap_err().code, "TOOL_NOT_APPROVED");
        host.history.decide_approval(call["approval_id"].as_str().unwrap(), "approve").unwrap();
        let saved = run(&host, id).await.expect("saves");
        let note_id = saved["artifactId"].as_str().unwrap().to_string();
        let note = host.notebook().unwrap().live(&note_id).unwrap();
        assert!(!note.state.body_markdown.contains("s3cret"), "redacted by default");
        assert_eq!(note.sources[0].url, "https://news.example/story", "the page it was saved from");
        assert!(note.sources[0].citations.is_empty(), "a text without markers keeps no citations");

        // A saved summary keeps what its markers quote: the conversation's summary's citations.
        let save = json!({ "name": "artifact.save", "arguments": { "title": "Summary", "text": "- Otters use stones. [1]\n- Five were seen. [2]" } });
        let (reply, _) = plan(&host, json!([save])).await;
        let conversation = reply["conversation"]["id"].as_str().unwrap().to_string();
        let summary = json!({
            "protocol": { "name": "laika.llmcp", "version": 1 }, "id": "resp-summary", "type": "response",
            "created_at": "2026-11-26T12:00:00.000Z", "conversation": { "id": conversation, "turn": 2 },
            "sender": { "role": "assistant" }, "in_reply_to": { "request_id": "req-summary" },
            "assistant": { "title": "Summary: A story", "render": { "type": "doc", "children": [] },
                "citations": [{ "doc_id": "doc:web:summary", "quote": "Otters use stones to crack shells." },
                              { "doc_id": "doc:web:summary", "quote": "Volunteers counted five." }] } });
        host.history.append_turn(&[summary], None).expect("the summary's turn is stored");
        let call = &reply["tool_calls"][0];
        host.history.decide_approval(call["approval_id"].as_str().unwrap(), "approve").unwrap();
        let saved = run(&host, call["id"].as_str().unwrap()).await.expect("saves");
        let kept = host.notebook().unwrap().live(saved["artifactId"].as_str().unwrap()).unwrap();
        let quotes: Vec<(u32, &str)> = kept.sources[0].citations.iter().map(|c| (c.n, c.quote.as_str())).collect();
        assert_eq!(quotes, [(1, "Otters use stones to crack shells."), (2, "Volunteers counted five.")]);
        assert!(notebook::export::to_markdown(&kept).contains("Volunteers counted five."), "the export lists them");

        let share = |format: &str, target: &str| json!({ "name": "artifact.share", "arguments": { "artifactId": note_id, "format": format, "target": target } });
        let calls = json!([share("markdown", "file"), share("pdf", "file"), share("csv", "file"), share("text", "clipboard"),
            share("pdf", "clipboard"), share("json", "share_sheet"),
            { "name": "artifact.open", "arguments": { "artifactId": note_id } },
            { "name": "artifact.open", "arguments": { "artifactId": "note_99" } }]);
        let (reply, _) = plan(&host, calls).await;
        let mut results = vec![];
        for call in reply["tool_calls"].as_array().unwrap() {
            if let Some(approval) = call["approval_id"].as_str() {
                host.history.decide_approval(approval, "approve").unwrap();
            }
            results.push(run(&host, call["id"].as_str().unwrap()).await);
        }
        let path = |i: usize| PathBuf::from(results[i].as_ref().unwrap()["path"].as_str().unwrap());
        assert_eq!(path(0), exports.join("meeting-friday.md"));
        assert!(std::fs::read_to_string(path(0)).unwrap().starts_with("# Meeting: Friday\n"));
        assert!(std::fs::read(path(1)).unwrap().starts_with(b"%PDF-"));
        assert_eq!(std::fs::read_to_string(path(2)).unwrap(), "Who,When\nAna,10:00\n");
        assert!(results[3].as_ref().unwrap()["clipboard"].as_str().unwrap().contains("Moved to Friday."));
        assert_eq!(results[4].as_ref().unwrap_err().code, "TOOL_SHARE_UNSUPPORTED");
        assert_eq!(results[5].as_ref().unwrap_err().code, "TOOL_SHARE_UNSUPPORTED");
        assert!(results[6].as_ref().unwrap()["markdown"].as_str().unwrap().contains("| Ana | 10:00 |"));
        assert_eq!(results[7].as_ref().unwrap_err().code, "NOTEBOOK_NOT_FOUND");

        // A second export of the same name never replaces the first.
        let (reply, _) = plan(&host, json!([share("markdown", "file")])).await;
        let call = &reply["tool_calls"][0];
        host.history.decide_approval(call["approval_id"].as_str().unwrap(), "approve").unwrap();
        let again = run(&host, call["id"].as_str().unwrap()).await.unwrap();
        assert_eq!(PathBuf::from(again["path"].as_str().unwrap()), exports.join("meeting-friday (2).md"));
    }
}
