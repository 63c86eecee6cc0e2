//! The WebSocket endpoint: `GET /ws` upgraded on a loopback listener, one task per connection.
//!
//! A connection task is a `select!` over four things: the socket's next frame (to the hub), the
//! connection's outbound queue (to the socket, within the write deadline), the ping timer (a
//! connection silent past the pong timeout is dropped) and, until `auth.login`, the auth timer.
//!
//! Refused before the upgrade: a request from a web page (`Origin: http(s)://…`), so a site the
//! user visits cannot open the hub on their behalf (cross-site WebSocket hijacking). Clients that
//! are not browsers send no `Origin`; the extension's pages send their own scheme.

use crate::envelope::Envelope;
use crate::errors;
use crate::hub::{Hub, Outbound};
use crate::limits::{Limits, MAX_FRAME_BYTES, RATE_BURST, RATE_PER_SECOND, SEND_BUFFER, SOCKET_BUFFER_BYTES};
use axum::Router;
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::{SinkExt, StreamExt};
use std::sync::Arc;
use std::time::Instant;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// Origins allowed to connect besides none at all: the extension's own pages.
const EXTENSION_SCHEMES: &[&str] = &["chrome-extension://", "moz-extension://", "safari-web-extension://"];

#[derive(Clone)]
struct Shared {
    hub: Arc<Hub>,
    limits: Limits,
}

/// The hub's HTTP routes.
pub fn router(hub: Arc<Hub>, limits: Limits) -> Router {
    Router::new().route("/ws", get(upgrade)).with_state(Shared { hub, limits })
}

/// Serves the hub on `listener` until the future is dropped. The listener must be loopback: the
/// caller binds it (`laika-host daemon` binds 127.0.0.1).
pub async fn serve(listener: TcpListener, hub: Arc<Hub>, limits: Limits) -> std::io::Result<()> {
    axum::serve(listener, router(hub, limits)).await
}

async fn upgrade(ws: WebSocketUpgrade, headers: HeaderMap, State(shared): State<Shared>) -> Response {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !EXTENSION_SCHEMES.iter().any(|s| origin.starts_with(s)) {
            return (StatusCode::FORBIDDEN, "LARK_FORBIDDEN_ORIGIN: web pages may not connect to the hub")
                .into_response();
        }
    }
    ws.max_frame_size(MAX_FRAME_BYTES)
        .max_message_size(MAX_FRAME_BYTES)
        .read_buffer_size(SOCKET_BUFFER_BYTES)
        .write_buffer_size(SOCKET_BUFFER_BYTES)
        .on_upgrade(move |socket| connection(socket, shared))
}

/// A token bucket: [`RATE_BURST`] requests at once, [`RATE_PER_SECOND`] after.
struct RateLimit {
    tokens: f64,
    at: Instant,
}

impl RateLimit {
    fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.at).as_secs_f64() * RATE_PER_SECOND as f64).min(RATE_BURST as f64);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

async fn connection(socket: WebSocket, shared: Shared) {
    let Shared { hub, limits } = shared;
    let conn = hub.next_conn_id();
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::channel::<Outbound>(SEND_BUFFER);
    let mut signed_in = false;
    let auth_deadline = tokio::time::sleep(limits.auth_timeout);
    tokio::pin!(auth_deadline);
    let mut ping = tokio::time::interval(limits.ping_interval);
    ping.tick().await;
    let mut last_heard = Instant::now();
    let mut rate = RateLimit { tokens: RATE_BURST as f64, at: Instant::now() };
    // Frames for this connection before it is signed in (errors, auth.fail) go straight out.
    let direct = |envelope: Envelope| Message::Text(envelope.to_text().into());
    let close = |reason: &'static str| Message::Close(Some(CloseFrame { code: 1000, reason: reason.into() }));

    loop {
        tokio::select! {
            _ = &mut auth_deadline, if !signed_in => {
                let fail = Envelope::new("auth.fail", serde_json::json!({ "error": errors::AUTH_TIMEOUT }));
                let _ = tokio::time::timeout(limits.write_deadline, sink.send(direct(fail))).await;
                let _ = tokio::time::timeout(limits.write_deadline, sink.send(close(errors::AUTH_TIMEOUT))).await;
                break;
            }
            frame = stream.next() => {
                last_heard = Instant::now();
                let text = match frame {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Binary(_))) => {
                        let _ = sink.send(direct(Envelope::error(errors::INVALID_DATA))).await;
                        continue;
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Err(error)) => {
                        // An oversize frame or a broken socket: say so if the socket still
                        // takes it, and end this connection only.
                        let message = if error.to_string().contains("too long") || error.to_string().contains("too big") {
                            errors::FRAME_TOO_LARGE
                        } else {
                            errors::INVALID_DATA
                        };
                        let _ = tokio::time::timeout(limits.write_deadline, sink.send(direct(Envelope::error(message)))).await;
                        break;
                    }
                };
                if !rate.allow() {
                    let _ = sink.send(direct(Envelope::error(errors::RATE_LIMITED))).await;
                    continue;
                }
                let request = match Envelope::parse(&text) {
                    Ok(request) => request,
                    Err(error) => {
                        let _ = sink.send(direct(Envelope::error(error))).await;
                        continue;
                    }
                };
                if !signed_in {
                    if request.kind != "auth.login" {
                        let _ = sink.send(direct(Envelope::error(errors::NOT_AUTHENTICATED))).await;
                        continue;
                    }
                    let token = request.str("token").unwrap_or("");
                    if hub.login(conn, token, tx.clone(), &request).is_some() {
                        signed_in = true;
                    } else {
                        let fail = Envelope::reply(&request, "auth.fail", serde_json::json!({ "error": errors::INVALID_CREDENTIALS }));
                        let _ = tokio::time::timeout(limits.write_deadline, sink.send(direct(fail))).await;
                        let _ = tokio::time::timeout(limits.write_deadline, sink.send(close(errors::INVALID_CREDENTIALS))).await;
                        break;
                    }
                    continue;
                }
                if let Err(error) = hub.handle(conn, &request) {
                    let mut frame = Envelope::error(error);
                    frame.id = request.id.clone().or(frame.id);
                    let _ = tx.try_send(Outbound::Frame(frame.to_text().into()));
                }
            }
            out = rx.recv() => match out {
                Some(Outbound::Frame(text)) => {
                    let sent = tokio::time::timeout(limits.write_deadline, sink.send(Message::Text(text.as_ref().into()))).await;
                    if !matches!(sent, Ok(Ok(()))) {
                        break;
                    }
                }
                Some(Outbound::Close(reason)) => {
                    let _ = tokio::time::timeout(limits.write_deadline, sink.send(close(reason))).await;
                    break;
                }
                None => break,
            },
            _ = ping.tick() => {
                if last_heard.elapsed() > limits.pong_timeout {
                    break;
                }
                let sent = tokio::time::timeout(limits.write_deadline, sink.send(Message::Ping(Vec::new().into()))).await;
                if !matches!(sent, Ok(Ok(()))) {
                    break;
                }
            }
        }
    }
    if signed_in {
        hub.disconnect(conn);
    }
}
