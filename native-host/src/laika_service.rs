//! `laika`, the built-in LAVS service: Laika's own data as LAVS endpoints, so any LAVS client
//! (a view in the sidecar, the `lavs-sdk` client, another local tool) reads and acts on it the
//! same way as on any installed service, with the same validation, audit and transports:
//! conversations (list, get, search, delete), approvals (list, decide, and `approvalUpdates`,
//! which pushes each new question and each answer), site grants (list, revoke), and the notebook
//! (notes: list, get with their versions, export as text, undo).

use crate::api::decide_approval;
use crate::host::{Host, HostEvent};
use laika_lavs::LavsError;
use laika_lavs::error;
use laika_lavs::runtime::BuiltIn;
use laika_shared::policy::SiteGrant;
use serde_json::{Value, json};
use std::sync::{Arc, Weak};

/// The service's name (reserved: no installed folder may take it).
pub const NAME: &str = "laika";

pub struct LaikaService {
    pub host: Weak<Host>,
}

/// Conversations a search looks through (newest first).
const SEARCH_SCOPE: usize = 500;

fn manifest() -> Value {
    let builtin = json!({ "type": "builtin" });
    let id_input = |field: &str| json!({ "type": "object", "properties": { field: { "type": "string", "minLength": 1 } }, "required": [field] });
    json!({
        "lavs": "1.0",
        "name": NAME,
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Laika's own data: conversations, approvals waiting for an answer, site grants, notes.",
        "endpoints": [
            { "id": "listConversations", "method": "query", "handler": builtin,
              "description": "Conversations, newest first.",
              "schema": { "input": { "type": "object", "properties": {
                  "limit": { "type": "integer", "minimum": 1, "maximum": 500, "default": 50 },
                  "offset": { "type": "integer", "minimum": 0, "default": 0 } } } } },
            { "id": "getConversation", "method": "query", "handler": builtin,
              "description": "One conversation with its stored (redacted) packets.", "schema": { "input": id_input("id") } },
            { "id": "searchConversations", "method": "query", "handler": builtin,
              "description": "Conversations whose title or address contains the query.",
              "schema": { "input": { "type": "object", "properties": { "query": { "type": "string", "minLength": 1 } }, "required": ["query"] } } },
            { "id": "deleteConversation", "method": "mutation", "handler": builtin,
              "description": "Deletes a conversation and its packets.", "schema": { "input": id_input("id") } },
            { "id": "listApprovals", "method": "query", "handler": builtin,
              "description": "Proposed actions waiting for an answer, oldest first." },
            { "id": "decideApproval", "method": "mutation", "handler": builtin,
              "description": "Answers one; the first answer wins wherever it is given.",
              "schema": { "input": { "type": "object", "properties": {
                  "approval_id": { "type": "string", "minLength": 1 },
                  "decision": { "enum": ["approve", "deny", "always_on_site"] } }, "required": ["approval_id", "decision"] } } },
            { "id": "approvalUpdates", "method": "subscription", "handler": builtin,
              "description": "Each new question ({type: asked, approval}) and each answer ({type: decided, approval})." },
            { "id": "listGrants", "method": "query", "handler": builtin,
              "description": "Sites where an action runs without asking (\"Always on this site\")." },
            { "id": "revokeGrant", "method": "mutation", "handler": builtin,
              "description": "Asks again on that site from now on.",
              "schema": { "input": { "type": "object", "properties": {
                  "origin": { "type": "string", "minLength": 1 }, "capability": { "type": "string", "minLength": 1 } },
                  "required": ["origin", "capability"] } } },
            { "id": "listNotes", "method": "query", "handler": builtin,
              "description": "Notes, most recently changed first.",
              "schema": { "input": { "type": "object", "properties": {
                  "tag": { "type": "string", "minLength": 1 },
                  "limit": { "type": "integer", "minimum": 1, "maximum": 500, "default": 100 } } } } },
            { "id": "getNote", "method": "query", "handler": builtin,
              "description": "One note with every version and what made it.", "schema": { "input": id_input("id") } },
            { "id": "exportNote", "method": "query", "handler": builtin,
              "description": "A note as markdown, text, json or csv (PDF: artifact.share or laika-host notes export).",
              "schema": { "input": { "type": "object", "properties": {
                  "id": { "type": "string", "minLength": 1 },
                  "format": { "enum": ["markdown", "text", "json", "csv"] } }, "required": ["id", "format"] } } },
            { "id": "undoNote", "method": "mutation", "handler": builtin,
              "description": "Undoes the latest change to a note not undone yet.", "schema": { "input": id_input("id") } },
            { "id": "listCollections", "method": "query", "handler": builtin,
              "description": "Collections of sources, newest first." },
            { "id": "createCollection", "method": "mutation", "handler": builtin,
              "description": "A new, empty collection.",
              "schema": { "input": { "type": "object", "properties": {
                  "title": { "type": "string", "minLength": 1, "maxLength": 500 } }, "required": ["title"] } } },
            { "id": "listSources", "method": "query", "handler": builtin,
              "description": "A collection's sources: pages (captured or waiting) and notes.", "schema": { "input": id_input("id") } },
            { "id": "runTransform", "method": "mutation", "handler": builtin,
              "description": "Makes a note of a collection's captured sources, every line a source's own sentence, cited.",
              "schema": { "input": { "type": "object", "properties": {
                  "id": { "type": "string", "minLength": 1 },
                  "type": { "enum": ["briefing", "comparison_table", "timeline"] } }, "required": ["id", "type"] } } },
            { "id": "askCollection", "method": "query", "handler": builtin,
              "description": "Answers a question from a collection's captured sources, each quote cited with its source.",
              "schema": { "input": { "type": "object", "properties": {
                  "id": { "type": "string", "minLength": 1 },
                  "question": { "type": "string", "minLength": 1, "maxLength": 2000 } }, "required": ["id", "question"] } } }
        ]
    })
}

fn failed(code: i64) -> impl Fn(crate::history::HistoryError) -> LavsError {
    move |e| LavsError::titled(code, format!("{}: {}", e.code, e.message))
}

fn answer(host: &Host, endpoint: &str, input: &Value) -> Result<Value, LavsError> {
    let history = &host.history;
    let text = |field: &str| input[field].as_str().unwrap_or_default().to_string();
    match endpoint {
        "listConversations" => {
            let (limit, offset) = (input["limit"].as_u64().unwrap_or(50), input["offset"].as_u64().unwrap_or(0));
            Ok(json!(history.list(limit as usize, offset as usize).map_err(failed(error::INTERNAL_ERROR))?))
        }
        "getConversation" => match history.get(&text("id")).map_err(failed(error::INTERNAL_ERROR))? {
            Some(conversation) => Ok(json!(conversation)),
            None => Err(LavsError::titled(error::INVALID_PARAMS, format!("no conversation {:?}", text("id")))
                .with_data(json!({ "field": "id" }))),
        },
        "searchConversations" => {
            let query = text("query").to_lowercase();
            let found: Vec<_> = history
                .list(SEARCH_SCOPE, 0)
                .map_err(failed(error::INTERNAL_ERROR))?
                .into_iter()
                .filter(|c| {
                    [&c.title, &c.url].iter().any(|f| f.as_deref().is_some_and(|f| f.to_lowercase().contains(&query)))
                })
                .collect();
            Ok(json!(found))
        }
        "deleteConversation" => {
            Ok(json!({ "deleted": history.delete(&text("id")).map_err(failed(error::INTERNAL_ERROR))? }))
        }
        "listApprovals" => Ok(json!(history.pending_approvals(500).map_err(failed(error::INTERNAL_ERROR))?)),
        "decideApproval" => decide_approval(host, &text("approval_id"), &text("decision")).map_err(|e| {
            LavsError::titled(error::HANDLER_ERROR, format!("{}: {}", e.code, e.message))
                .with_data(json!({ "code": e.code }))
        }),
        "listGrants" => Ok(json!(history.grants().map_err(failed(error::INTERNAL_ERROR))?)),
        "revokeGrant" => {
            let grant: SiteGrant = serde_json::from_value(input.clone())
                .map_err(|e| LavsError::titled(error::INVALID_PARAMS, e).with_data(json!({ "field": "capability" })))?;
            Ok(json!({ "revoked": history.remove_grant(&grant).map_err(failed(error::INTERNAL_ERROR))? }))
        }
        "listNotes" | "getNote" | "exportNote" | "undoNote" => notes(host, endpoint, input),
        "listCollections" | "createCollection" | "listSources" | "runTransform" => collections(host, endpoint, input),
        other => Err(LavsError::titled(error::METHOD_NOT_FOUND, format!("laika has no endpoint {other:?}"))),
    }
}

/// The notebook's endpoints. A note that is not there is an invalid `id`; any other notebook
/// failure is a handler error carrying its `NOTEBOOK_` code.
fn notes(host: &Host, endpoint: &str, input: &Value) -> Result<Value, LavsError> {
    use crate::notebook::{NotebookError, export};
    let failed = |e: NotebookError| {
        let code = if e.code == NotebookError::NOT_FOUND { error::INVALID_PARAMS } else { error::HANDLER_ERROR };
        LavsError::titled(code, format!("{}: {}", e.code, e.message))
            .with_data(json!({ "code": e.code, "field": "id" }))
    };
    let notebook = host.notebook().map_err(failed)?;
    let id = input["id"].as_str().unwrap_or_default();
    match endpoint {
        "listNotes" => {
            let limit = input["limit"].as_u64().unwrap_or(100) as usize;
            Ok(json!(notebook.list(input["tag"].as_str(), limit).map_err(failed)?))
        }
        "getNote" => {
            let note = notebook.live(id).map_err(failed)?;
            Ok(json!({ "note": note, "versions": notebook.versions(id).map_err(failed)? }))
        }
        "exportNote" => {
            let note = notebook.live(id).map_err(failed)?;
            let text = match input["format"].as_str() {
                Some("text") => export::to_text(&note),
                Some("json") => export::to_json(&note),
                Some("csv") => export::to_csv(&note)
                    .map_err(|e| LavsError::titled(error::HANDLER_ERROR, format!("NOTEBOOK_EXPORT_FAILED: {e}")))?,
                _ => export::to_markdown(&note),
            };
            Ok(json!({ "id": note.id, "format": input["format"], "text": text }))
        }
        _ => Ok(json!(notebook.undo(id).map_err(failed)?)),
    }
}

/// The notebook's collections: listed, created, their sources, and transforms of them.
fn collections(host: &Host, endpoint: &str, input: &Value) -> Result<Value, LavsError> {
    use crate::notebook::{NotebookError, transforms};
    let failed = |e: NotebookError| {
        let code = match e.code {
            NotebookError::NOT_FOUND | transforms::UNKNOWN_TYPE => error::INVALID_PARAMS,
            _ => error::HANDLER_ERROR,
        };
        LavsError::titled(code, format!("{}: {}", e.code, e.message))
            .with_data(json!({ "code": e.code, "field": "id" }))
    };
    let notebook = host.notebook().map_err(failed)?;
    let id = input["id"].as_str().unwrap_or_default();
    match endpoint {
        "listCollections" => Ok(json!(notebook.collections().map_err(failed)?)),
        "createCollection" => {
            Ok(json!(notebook.create_collection(input["title"].as_str().unwrap_or_default(), &[]).map_err(failed)?))
        }
        "listSources" => Ok(json!(notebook.sources(id).map_err(failed)?)),
        _ => {
            let note =
                transforms::run(&notebook, id, input["type"].as_str().unwrap_or_default(), None).map_err(failed)?;
            Ok(json!({ "id": note.id, "title": note.state.title, "markdown": note.state.body_markdown }))
        }
    }
}

/// Longest a question across a collection may take before its answer is given as it stands.
const ASK_WAIT: std::time::Duration = std::time::Duration::from_secs(180);

/// `askCollection`: the grounded answer across a collection's sources, when it is done: its
/// text (key passages, the model's answer if one passed the gate, which source each quote is
/// from) and its citations, each with its source.
async fn ask_collection(host: &Arc<Host>, input: &Value) -> Result<Value, LavsError> {
    let id = input["id"].as_str().unwrap_or_default();
    let question = input["question"].as_str().unwrap_or_default().trim().to_string();
    let turn = crate::prompt::TurnRef { conversation_id: crate::prompt::new_id(), turn: 1 };
    let job = crate::api::spawn_collection_ask(host, id, question, turn).map_err(|e| {
        let code = if e.code == crate::notebook::NotebookError::NOT_FOUND {
            error::INVALID_PARAMS
        } else {
            error::HANDLER_ERROR
        };
        LavsError::titled(code, format!("{}: {}", e.code, e.message))
            .with_data(json!({ "code": e.code, "field": "id" }))
    })?;
    let state = match tokio::time::timeout(ASK_WAIT, crate::summary::follow(&job, |_| {})).await {
        Ok(state) => state,
        Err(_) => {
            job.cancel.cancel();
            job.snapshot()
        }
    };
    if let Some(error) = state.error {
        return Err(LavsError::titled(error::HANDLER_ERROR, error.to_string()));
    }
    let index = host.notebook().ok().and_then(|n| n.documents(id).ok()).map(|(index, _)| index).unwrap_or_default();
    let citations = crate::collection_read::with_sources(&index, &state.citations());
    Ok(json!({ "answer": state.text, "notice": state.notice, "citations": citations }))
}

impl BuiltIn for LaikaService {
    fn manifest(&self) -> Value {
        manifest()
    }

    fn call(&self, endpoint: &str, input: Value) -> futures::future::BoxFuture<'static, Result<Value, LavsError>> {
        let host = self.host.upgrade();
        let endpoint = endpoint.to_string();
        Box::pin(async move {
            let host = host.ok_or_else(|| LavsError::titled(error::INTERNAL_ERROR, "Laika is stopping"))?;
            if endpoint == "askCollection" {
                return ask_collection(&host, &input).await;
            }
            // SQLite work: off the runtime's workers' async path.
            tokio::task::spawn_blocking(move || answer(&host, &endpoint, &input))
                .await
                .map_err(|e| LavsError::titled(error::INTERNAL_ERROR, e))?
        })
    }

    fn subscribe(&self, endpoint: &str, _input: Value) -> Result<tokio::sync::mpsc::Receiver<Value>, LavsError> {
        if endpoint != "approvalUpdates" {
            return Err(LavsError::titled(error::METHOD_NOT_FOUND, format!("laika has no subscription {endpoint:?}")));
        }
        let host = self.host.upgrade().ok_or_else(|| LavsError::titled(error::INTERNAL_ERROR, "Laika is stopping"))?;
        let mut events = host.subscribe();
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let push = match events.recv().await {
                    Ok(HostEvent::ApprovalAsked { approval, .. }) => json!({ "type": "asked", "approval": approval }),
                    Ok(HostEvent::ApprovalDecided { approval, .. }) => {
                        json!({ "type": "decided", "approval": approval })
                    }
                    Ok(_) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => break,
                };
                if tx.send(push).await.is_err() {
                    break;
                }
            }
        });
        Ok(rx)
    }
}

/// Serves `laika` in the host's LAVS runtime.
pub fn register(host: &Arc<Host>) {
    if let Some(runtime) = &host.lavs
        && let Err(error) = runtime.register_builtin(Arc::new(LaikaService { host: Arc::downgrade(host) }))
    {
        tracing::warn!("the built-in laika LAVS service is off: {error}");
    }
}
