//! LAVS over HTTP on the daemon's loopback port, in the two forms clients speak:
//!
//! - JSON-RPC 2.0 as the spec writes it: `POST /lavs/<service>` with `lavs/call`
//!   (`{endpoint, input}`), and the same path upgraded to a WebSocket, where `lavs/subscribe`
//!   answers `{subscriptionId}` and each push arrives as a `lavs/data` notification until
//!   `lavs/unsubscribe` (or the socket closes); every error is the spec's code.
//! - The REST form of the published `lavs-sdk` Python client, so that client works against Laika
//!   unchanged: `GET /api/agents/<service>/lavs/manifest`, `POST /api/agents/<service>/lavs/<endpoint>`
//!   (the body is the input; the reply `{jsonrpc, id, result | error}`), and
//!   `GET /api/agents/<service>/lavs/<endpoint>/subscribe` as Server-Sent Events (`connected`,
//!   then one `data` event per push).
//!
//! Refused before anything runs: a request a web page sent (its `Origin` is a web origin), and a
//! `POST` whose body is not declared `application/json`. Together these keep a page the user
//! visits from driving local services: it cannot send JSON cross-origin without a preflight,
//! which is never answered.

use crate::error::{self, LavsError};
use crate::runtime::Runtime;
use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::{Value, json};
use std::sync::Arc;

/// Origins that may call besides none at all (the extension's own pages).
const EXTENSION_SCHEMES: &[&str] = &["chrome-extension://", "moz-extension://", "safari-web-extension://"];

/// Who is calling, for the audit log.
const HTTP_CALLER: &str = "http";

pub fn router(runtime: Arc<Runtime>) -> Router {
    Router::new()
        .route("/lavs/{service}", post(json_rpc).get(json_rpc_socket))
        .route("/api/agents/{service}/lavs/manifest", get(manifest))
        .route("/api/agents/{service}/lavs/{endpoint}", post(rest_call))
        .route("/api/agents/{service}/lavs/{endpoint}/subscribe", get(rest_subscribe))
        .with_state(runtime)
}

/// The refusal of a request from a web page, or of a body not declared JSON; `None` lets it in.
fn refusal(headers: &HeaderMap, has_body: bool) -> Option<Response> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !EXTENSION_SCHEMES.iter().any(|s| origin.starts_with(s)) {
            let error = LavsError::titled(error::PERMISSION_DENIED, "web pages may not call local services");
            return Some((StatusCode::FORBIDDEN, axum::Json(envelope(Value::Null, Err(error)))).into_response());
        }
    }
    if has_body {
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")));
        if !json {
            let error = LavsError::titled(error::INVALID_REQUEST, "the body must be sent as application/json");
            return Some(
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, axum::Json(envelope(Value::Null, Err(error)))).into_response(),
            );
        }
    }
    None
}

fn envelope(id: Value, result: Result<Value, LavsError>) -> Value {
    match result {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
    }
}

/// JSON-RPC replies are 200 whatever the outcome (the error is in the body); the REST form
/// answers an error with the HTTP status its client expects (anything but 200 is an error).
fn rest_status(code: i64) -> StatusCode {
    match code {
        error::PARSE_ERROR | error::INVALID_REQUEST | error::INVALID_PARAMS => StatusCode::BAD_REQUEST,
        error::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        error::PERMISSION_DENIED => StatusCode::FORBIDDEN,
        error::TIMEOUT => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

async fn json_rpc(
    State(runtime): State<Arc<Runtime>>,
    Path(service): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(refused) = refusal(&headers, true) {
        return refused;
    }
    let reply = match serde_json::from_slice::<Value>(&body) {
        Err(e) => envelope(Value::Null, Err(LavsError::titled(error::PARSE_ERROR, e))),
        Ok(request) => rpc(&runtime, &service, request).await,
    };
    axum::Json(reply).into_response()
}

/// One JSON-RPC request.
pub async fn rpc(runtime: &Runtime, service: &str, request: Value) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let valid_id = matches!(id, Value::String(_) | Value::Number(_));
    let (Some(method), true, Some("2.0")) =
        (request.get("method").and_then(Value::as_str), valid_id, request.get("jsonrpc").and_then(Value::as_str))
    else {
        let error = LavsError::titled(error::INVALID_REQUEST, "a request is {jsonrpc: \"2.0\", id, method, params}");
        return envelope(if valid_id { id } else { Value::Null }, Err(error));
    };
    let params = request.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "lavs/call" => match params.get("endpoint").and_then(Value::as_str) {
            Some(endpoint) => runtime.call(service, endpoint, params.get("input").cloned(), HTTP_CALLER).await,
            None => Err(LavsError::titled(error::INVALID_PARAMS, "params.endpoint is required")
                .with_data(json!({ "field": "endpoint", "constraint": "required" }))),
        },
        "lavs/subscribe" | "lavs/unsubscribe" => Err(LavsError::titled(
            error::INVALID_REQUEST,
            format!(
                "subscriptions are streams: GET /api/agents/{service}/lavs/<endpoint>/subscribe (Server-Sent Events)"
            ),
        )),
        other => Err(LavsError::titled(error::METHOD_NOT_FOUND, format!("no method {other:?}"))),
    };
    envelope(id, result)
}

async fn manifest(State(runtime): State<Arc<Runtime>>, Path(service): Path<String>, headers: HeaderMap) -> Response {
    if let Some(refused) = refusal(&headers, false) {
        return refused;
    }
    match runtime.service(&service) {
        Some(found) => axum::Json(envelope(Value::Null, Ok(found.raw.clone()))).into_response(),
        None => {
            let error = LavsError::titled(error::METHOD_NOT_FOUND, format!("no service {service:?}"));
            (StatusCode::NOT_FOUND, axum::Json(envelope(Value::Null, Err(error)))).into_response()
        }
    }
}

async fn rest_call(
    State(runtime): State<Arc<Runtime>>,
    Path((service, endpoint)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(refused) = refusal(&headers, !body.is_empty()) {
        return refused;
    }
    let input = if body.is_empty() {
        Ok(None)
    } else {
        serde_json::from_slice::<Value>(&body).map(Some).map_err(|e| LavsError::titled(error::PARSE_ERROR, e))
    };
    let result = match input {
        Ok(input) => runtime.call(&service, &endpoint, input, HTTP_CALLER).await,
        Err(error) => Err(error),
    };
    let status = result.as_ref().err().map(|e| rest_status(e.code)).unwrap_or(StatusCode::OK);
    (status, axum::Json(envelope(Value::Null, result))).into_response()
}

async fn rest_subscribe(
    State(runtime): State<Arc<Runtime>>,
    Path((service, endpoint)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = refusal(&headers, false) {
        return refused;
    }
    match runtime.subscribe(&service, &endpoint, None, HTTP_CALLER) {
        Ok(pushes) => Sse::new(events(pushes)).keep_alive(KeepAlive::default()).into_response(),
        Err(error) => (rest_status(error.code), axum::Json(envelope(Value::Null, Err(error)))).into_response(),
    }
}

static NEXT_SUBSCRIPTION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn events(pushes: tokio::sync::mpsc::Receiver<Value>) -> impl Stream<Item = Result<Event, std::convert::Infallible>> {
    let id = format!("sub-{}", NEXT_SUBSCRIPTION.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let connected = Event::default().event("connected").data(json!({ "subscriptionId": id }).to_string());
    let data = stream::unfold(pushes, |mut pushes| async move {
        let push = pushes.recv().await?;
        Some((Event::default().event("data").data(push.to_string()), pushes))
    });
    stream::once(async move { connected }).chain(data).map(Ok)
}

/// Frames one socket may have waiting to be written before pushes are dropped (a client that
/// stopped reading does not hold the runtime's memory).
const SOCKET_QUEUE: usize = 256;

async fn json_rpc_socket(
    State(runtime): State<Arc<Runtime>>,
    Path(service): Path<String>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if let Some(refused) = refusal(&headers, false) {
        return refused;
    }
    upgrade.on_upgrade(move |socket| socket_session(socket, runtime, service))
}

/// One WebSocket: requests answered in order, pushes of its subscriptions between them.
async fn socket_session(socket: WebSocket, runtime: Arc<Runtime>, service: String) {
    use futures_util::SinkExt;
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Value>(SOCKET_QUEUE);
    let mut subscriptions: std::collections::HashMap<String, tokio::task::JoinHandle<()>> = Default::default();
    loop {
        tokio::select! {
            frame = stream.next() => {
                let text = match frame {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Binary(_))) => {
                        let error = LavsError::titled(error::INVALID_REQUEST, "requests are text frames");
                        let _ = tx.try_send(envelope(Value::Null, Err(error)));
                        continue;
                    }
                    _ => break,
                };
                let reply = match serde_json::from_str::<Value>(&text) {
                    Err(e) => envelope(Value::Null, Err(LavsError::titled(error::PARSE_ERROR, e))),
                    Ok(request) => match request.get("method").and_then(Value::as_str) {
                        Some("lavs/subscribe") => subscribe(&runtime, &service, &request, &tx, &mut subscriptions),
                        Some("lavs/unsubscribe") => {
                            let id = request.get("id").cloned().unwrap_or(Value::Null);
                            let sub = request.pointer("/params/subscriptionId").and_then(Value::as_str).unwrap_or_default();
                            match subscriptions.remove(sub) {
                                Some(task) => {
                                    task.abort();
                                    envelope(id, Ok(json!(true)))
                                }
                                None => envelope(id, Err(LavsError::titled(error::INVALID_PARAMS, format!("no subscription {sub:?}")))),
                            }
                        }
                        _ => rpc(&runtime, &service, request).await,
                    },
                };
                if tx.send(reply).await.is_err() {
                    break;
                }
            }
            Some(out) = rx.recv() => {
                if sink.send(Message::Text(out.to_string().into())).await.is_err() {
                    break;
                }
            }
        }
    }
    for (_, task) in subscriptions {
        task.abort();
    }
}

fn subscribe(
    runtime: &Runtime,
    service: &str,
    request: &Value,
    tx: &tokio::sync::mpsc::Sender<Value>,
    subscriptions: &mut std::collections::HashMap<String, tokio::task::JoinHandle<()>>,
) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let params = request.get("params").cloned().unwrap_or(Value::Null);
    let Some(endpoint) = params.get("endpoint").and_then(Value::as_str) else {
        return envelope(id, Err(LavsError::titled(error::INVALID_PARAMS, "params.endpoint is required")));
    };
    match runtime.subscribe(service, endpoint, params.get("input").cloned(), "websocket") {
        Err(error) => envelope(id, Err(error)),
        Ok(mut pushes) => {
            let sub = format!("sub-{}", NEXT_SUBSCRIPTION.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
            let (tx, name) = (tx.clone(), sub.clone());
            let task = tokio::spawn(async move {
                while let Some(data) = pushes.recv().await {
                    let push = json!({ "jsonrpc": "2.0", "method": "lavs/data", "params": { "subscriptionId": name, "data": data } });
                    if tx.try_send(push).is_err() && tx.is_closed() {
                        break;
                    }
                }
            });
            subscriptions.insert(sub.clone(), task);
            envelope(id, Ok(json!({ "subscriptionId": sub })))
        }
    }
}
