//! `laika`, the built-in LAVS service: Laika's own data as LAVS endpoints, so any LAVS client
//! (a view in the sidecar, the `lavs-sdk` client, another local tool) reads and acts on it the
//! same way as on any installed service, with the same validation, audit and transports:
//! conversations (list, get, search, delete), approvals (list, decide, and `approvalUpdates`,
//! which pushes each new question and each answer), site grants (list, revoke).

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
        "description": "Laika's own data: conversations, approvals waiting for an answer, site grants.",
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
                  "required": ["origin", "capability"] } } }
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
        other => Err(LavsError::titled(error::METHOD_NOT_FOUND, format!("laika has no endpoint {other:?}"))),
    }
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
