//! The OpenAI-compatible HTTP engine: any server that speaks `POST /v1/chat/completions` with
//! server-sent events (vLLM, SGLang, Ollama, llama.cpp's `llama-server`, llama-cpp-python).
//!
//! Every generation is one streamed request carrying the two messages (system, user), the sampling
//! settings (with `top_k`/`min_p`, which vLLM and llama.cpp accept as extra fields) and, for a JSON
//! reply, `response_format: json_schema` so servers that support it decode under the schema
//! (llama-cpp-python refuses that form with an HTTP 500 naming `response_format`; the engine then
//! retries once with its `{"type": "json_object", "schema": …}` and keeps to that form). The reply
//! is read with a small incremental SSE parser ([`SseParser`]); each content delta goes to the sink
//! as it arrives. Servers that send no `usage` (llama-cpp-python) leave `prompt_tokens` at 0 and
//! `completion_tokens` counted from the content deltas.
//!
//! Timeouts: 10 s to connect; no overall limit (a generation may be long), but at most
//! [`IDLE_TIMEOUT`] without a byte from the server, waiting for the response head included.

use super::{Engine, EngineError, GenerateRequest, Generation, OutputShape, TokenSink};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the server may stay silent (before the response head, and between chunks).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// How long `probe` (GET /v1/models) may take in all.
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);
/// How much of an error body an `ENGINE_HTTP_STATUS` message quotes.
const BODY_EXCERPT_CHARS: usize = 300;
/// The longest SSE line accepted; a server sending more without a newline is broken.
const MAX_LINE_BYTES: usize = 4 << 20;
/// The largest non-streamed (plain JSON) reply body accepted.
const MAX_JSON_BODY_BYTES: usize = 16 << 20;

/// A client of one OpenAI-compatible server and one model on it.
#[derive(Clone)]
pub struct OpenAiEngine {
    /// `<scheme>://<host>[:port][/prefix]/v1`, without a trailing slash.
    api_base: String,
    model: String,
    api_key: Option<String>,
    context_tokens: usize,
    idle_timeout: Duration,
    client: reqwest::Client,
    /// Set once the server refused `response_format: json_schema`: from then on the schema goes
    /// as llama-cpp-python takes it, `{"type": "json_object", "schema": …}`.
    schema_as_json_object: Arc<AtomicBool>,
    /// Configured as a small model (`remote_small`): handed plain prompts.
    small: bool,
}

impl std::fmt::Debug for OpenAiEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiEngine")
            .field("api_base", &self.api_base)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("context_tokens", &self.context_tokens)
            .field("idle_timeout", &self.idle_timeout)
            .field("schema_as_json_object", &self.schema_as_json_object.load(Ordering::Relaxed))
            .finish()
    }
}

impl OpenAiEngine {
    /// An engine for `model` on the server at `base_url` (`http://host:port`, with or without a
    /// trailing `/v1`; a pasted `…/v1/chat/completions` works too). Fails with
    /// `ENGINE_BAD_CONFIG` unless the URL is plain http(s) without credentials, query or fragment.
    pub fn new(
        base_url: &str,
        model: &str,
        api_key: Option<String>,
        context_tokens: usize,
    ) -> Result<Self, EngineError> {
        let (api_base, loopback) = normalise_base_url(base_url)?;
        let mut builder = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            // A redirect could carry the prompt to another host; a 3xx is reported instead.
            .redirect(reqwest::redirect::Policy::none());
        if loopback {
            // The page text stays on this machine: never route a local server through a proxy.
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| EngineError::new("ENGINE_BAD_CONFIG", format!("cannot set up the HTTP client: {e}")))?;
        Ok(OpenAiEngine {
            api_base,
            model: model.to_owned(),
            api_key: api_key.filter(|k| !k.is_empty()),
            context_tokens,
            idle_timeout: IDLE_TIMEOUT,
            client,
            schema_as_json_object: Arc::new(AtomicBool::new(false)),
            small: false,
        })
    }

    /// Marks the served model as small: it is then handed plain prompts, not JSON packets.
    pub fn with_small(mut self, small: bool) -> Self {
        self.small = small;
        self
    }

    /// Replaces the idle-read timeout ([`IDLE_TIMEOUT`] by default).
    #[cfg(test)]
    pub fn with_idle_timeout(mut self, idle_timeout: Duration) -> Self {
        self.idle_timeout = idle_timeout;
        self
    }

    /// The normalised API base, `…/v1` (for `model.status`).
    #[cfg(test)]
    pub fn api_base(&self) -> &str {
        &self.api_base
    }

    fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.api_base)
    }

    fn models_url(&self) -> String {
        format!("{}/models", self.api_base)
    }

    fn authorised(&self, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.api_key {
            Some(key) => builder.bearer_auth(key),
            None => builder,
        }
    }

    /// Asks the server which models it serves (`GET /v1/models`) and returns their ids.
    pub async fn probe(&self) -> Result<Vec<String>, EngineError> {
        let url = self.models_url();
        let request = self.authorised(self.client.get(&url)).timeout(PROBE_TIMEOUT);
        let response = request.send().await.map_err(|e| unreachable(&url, &e))?;
        let status = response.status();
        if !status.is_success() {
            return Err(http_status(&url, status, response, PROBE_TIMEOUT).await);
        }
        let body = response.bytes().await.map_err(|e| unreachable(&url, &e))?;
        let not_a_list = || {
            EngineError::new(
                "ENGINE_BAD_STREAM",
                format!("{url} answered something that is not a model list: {}", excerpt(&body)),
            )
        };
        let value: Value = serde_json::from_slice(&body).map_err(|_| not_a_list())?;
        let data = value.get("data").and_then(Value::as_array).ok_or_else(not_a_list)?;
        Ok(data.iter().filter_map(|m| m.get("id").and_then(Value::as_str)).map(str::to_owned).collect())
    }

    /// The JSON body of one chat-completions request.
    fn request_body(&self, request: &GenerateRequest) -> Value {
        let s = &request.sampling;
        let mut messages = vec![json!({"role": "system", "content": request.system})];
        for example in request.examples {
            messages.push(json!({"role": "user", "content": example.user}));
            messages.push(json!({"role": "assistant", "content": example.assistant}));
        }
        messages.push(json!({"role": "user", "content": request.user}));
        let mut body = json!({
            "model": self.model,
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": request.max_tokens,
            "temperature": s.temperature,
            "top_p": s.top_p,
            "top_k": s.top_k,
            "min_p": s.min_p,
            "frequency_penalty": f32_to_f64(s.frequency_penalty),
            "presence_penalty": f32_to_f64(s.presence_penalty),
        });
        if let Some(seed) = s.seed {
            body["seed"] = json!(seed);
        }
        if let OutputShape::Json(schema) = &request.shape {
            body["response_format"] = if self.schema_as_json_object.load(Ordering::Relaxed) {
                json!({"type": "json_object", "schema": schema})
            } else {
                json!({
                    "type": "json_schema",
                    "json_schema": {"name": "laika_reply", "schema": schema, "strict": true},
                })
            };
        }
        body
    }

    async fn stream_chat(
        &self,
        request: GenerateRequest,
        sink: TokenSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<Generation, EngineError> {
        let started = Instant::now();
        let url = self.chat_url();
        let mut reply = Reply::new(started);
        let mut response = loop {
            let sent_json_schema =
                matches!(request.shape, OutputShape::Json(_)) && !self.schema_as_json_object.load(Ordering::Relaxed);
            let body = self.request_body(&request);
            tracing::debug!(url = %url, model = %self.model, "openai engine: request");
            let send = self
                .authorised(self.client.post(&url))
                .header(reqwest::header::ACCEPT, "text/event-stream")
                .json(&body)
                .send();
            let response = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Ok(reply.finish("cancelled")),
                sent = tokio::time::timeout(self.idle_timeout, send) => match sent {
                    Err(_) => return Err(self.idle_error(&url)),
                    Ok(Err(e)) => return Err(unreachable(&url, &e)),
                    Ok(Ok(response)) => response,
                },
            };
            let status = response.status();
            if status.is_success() {
                break response;
            }
            let error = http_status(&url, status, response, self.idle_timeout.min(CONNECT_TIMEOUT)).await;
            // llama-cpp-python refuses `json_schema` (HTTP 500, "Input should be 'text' or
            // 'json_object'") but decodes under `{"type": "json_object", "schema": …}`.
            if !(sent_json_schema && error.message.contains("response_format")) {
                return Err(error);
            }
            self.schema_as_json_object.store(true, Ordering::Relaxed);
            tracing::warn!(url = %url, "openai engine: json_schema refused; sending the schema as json_object");
        };
        drop(request);
        let plain_json = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("application/json"));

        let mut parser = SseParser::default();
        let mut json_body = Vec::new();
        loop {
            // On cancellation the response (and with it the connection) is dropped unread.
            let chunk = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Ok(reply.finish("cancelled")),
                read = tokio::time::timeout(self.idle_timeout, response.chunk()) => match read {
                    Err(_) => return Err(self.idle_error(&url)),
                    Ok(Err(e)) => {
                        return Err(EngineError::new(
                            "ENGINE_UNREACHABLE",
                            format!("the connection to {url} broke mid-reply: {}", error_chain(&e)),
                        ));
                    }
                    Ok(Ok(chunk)) => chunk,
                },
            };
            let Some(bytes) = chunk else { break };
            if plain_json {
                if json_body.len() + bytes.len() > MAX_JSON_BODY_BYTES {
                    return Err(EngineError::new("ENGINE_BAD_STREAM", format!("{url} sent an oversized reply")));
                }
                json_body.extend_from_slice(&bytes);
                continue;
            }
            for data in parser.push(&bytes)? {
                if reply.apply(parse_event(&data)?, sink) {
                    return Ok(reply.finish("stop"));
                }
            }
        }
        if plain_json {
            // The server ignored `stream: true` and sent one whole completion.
            reply.apply_whole(&json_body, sink)?;
            return Ok(reply.finish("stop"));
        }
        for data in parser.finish() {
            if reply.apply(parse_event(&data)?, sink) {
                return Ok(reply.finish("stop"));
            }
        }
        if reply.finish_reason.is_none() {
            return Err(EngineError::new(
                "ENGINE_BAD_STREAM",
                format!(
                    "the stream from {url} ended before the reply did (no finish reason, no [DONE]); \
                     the server may have failed, e.g. on a prompt longer than its context"
                ),
            ));
        }
        Ok(reply.finish("stop"))
    }

    fn idle_error(&self, url: &str) -> EngineError {
        EngineError::new(
            "ENGINE_UNREACHABLE",
            format!("the engine at {url} sent nothing for {} s", self.idle_timeout.as_secs_f64()),
        )
    }
}

impl Engine for OpenAiEngine {
    fn model_id(&self) -> String {
        format!("openai:{}", self.model)
    }

    fn small(&self) -> bool {
        self.small
    }

    fn context_tokens(&self) -> usize {
        self.context_tokens
    }

    fn generate<'a>(
        &'a self,
        request: GenerateRequest,
        sink: TokenSink<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Generation, EngineError>> {
        Box::pin(self.stream_chat(request, sink, cancel))
    }
}

/// Checks and normalises a base URL to `…/v1`; also says whether the host is this machine.
fn normalise_base_url(base_url: &str) -> Result<(String, bool), EngineError> {
    let bad = |why: String| EngineError::new("ENGINE_BAD_CONFIG", why);
    let trimmed = base_url.trim();
    let mut url = reqwest::Url::parse(trimmed)
        .map_err(|e| bad(format!("the engine URL {trimmed:?} is not a URL ({e}); expected http://host:port")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad(format!("the engine URL {trimmed:?} must start with http:// or https://")));
    }
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return Err(bad(format!("the engine URL {trimmed:?} has no host")));
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback =
        bare.eq_ignore_ascii_case("localhost") || bare.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("the engine URL must not carry credentials; give the API key separately".into()));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad(format!("the engine URL {trimmed:?} must not have a query or fragment")));
    }
    let mut path = url.path().trim_end_matches('/');
    for suffix in ["/chat/completions", "/v1"] {
        path = path.strip_suffix(suffix).unwrap_or(path).trim_end_matches('/');
    }
    let path = format!("{path}/v1");
    url.set_path(&path);
    Ok((url.as_str().trim_end_matches('/').to_owned(), loopback))
}

/// `0.3f32` as `0.3`, not `0.30000001192092896`.
fn f32_to_f64(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

/// An error and its causes on one line (reqwest's own message hides "connection refused").
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

fn unreachable(url: &str, error: &reqwest::Error) -> EngineError {
    let what = if error.is_timeout() { "timed out reaching" } else { "cannot reach" };
    EngineError::new("ENGINE_UNREACHABLE", format!("{what} the engine at {url}: {}", error_chain(error)))
}

/// The `ENGINE_HTTP_STATUS` error for a non-2xx answer, quoting the start of its body.
async fn http_status(
    url: &str,
    status: reqwest::StatusCode,
    mut response: reqwest::Response,
    wait: Duration,
) -> EngineError {
    let mut body = Vec::new();
    let read = async {
        while body.len() < BODY_EXCERPT_CHARS * 4 {
            match response.chunk().await {
                Ok(Some(bytes)) => body.extend_from_slice(&bytes),
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(wait, read).await;
    EngineError::new("ENGINE_HTTP_STATUS", format!("{url} answered HTTP {status}: {}", excerpt(&body)))
}

/// The first [`BODY_EXCERPT_CHARS`] characters of a body, on one line.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut out: String = text.trim().chars().take(BODY_EXCERPT_CHARS).collect();
    out = out.replace(['\r', '\n'], " ");
    if text.trim().chars().count() > BODY_EXCERPT_CHARS {
        out.push('…');
    }
    out
}

/// What one stream event said.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Delta {
    /// `choices[0].delta.content`.
    pub content: Option<String>,
    /// `choices[0].finish_reason`.
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Usage {
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StreamEvent {
    Delta(Delta),
    /// `data: [DONE]`.
    Done,
}

/// Reads one event's `data` (a completion chunk, `[DONE]`, or a server `error` object).
pub(crate) fn parse_event(data: &str) -> Result<StreamEvent, EngineError> {
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(StreamEvent::Done);
    }
    if data.is_empty() {
        return Ok(StreamEvent::Delta(Delta::default()));
    }
    let value: Value = serde_json::from_str(data).map_err(|e| {
        EngineError::new("ENGINE_BAD_STREAM", format!("a stream event is not JSON ({e}): {}", excerpt(data.as_bytes())))
    })?;
    if !value.is_object() {
        return Err(EngineError::new(
            "ENGINE_BAD_STREAM",
            format!("a stream event is not a JSON object: {}", excerpt(data.as_bytes())),
        ));
    }
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        return Err(server_error(error));
    }
    let choice = value.get("choices").and_then(|c| c.get(0));
    let content = choice.and_then(|c| c.pointer("/delta/content")).and_then(Value::as_str).map(str::to_owned);
    let finish_reason = choice.and_then(|c| c.get("finish_reason")).and_then(Value::as_str).map(str::to_owned);
    let usage = value.get("usage").and_then(parse_usage);
    Ok(StreamEvent::Delta(Delta { content, finish_reason, usage }))
}

fn parse_usage(usage: &Value) -> Option<Usage> {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).map(|n| n as usize);
    let (prompt_tokens, completion_tokens) = (count("prompt_tokens"), count("completion_tokens"));
    if prompt_tokens.is_none() && completion_tokens.is_none() {
        return None;
    }
    Some(Usage { prompt_tokens: prompt_tokens.unwrap_or(0), completion_tokens: completion_tokens.unwrap_or(0) })
}

/// `ENGINE_SERVER_ERROR` from an `error` object (`{"message", "type", "code"}`) or string.
fn server_error(error: &Value) -> EngineError {
    let message = match error {
        Value::String(s) => s.clone(),
        _ => {
            let mut message =
                error.get("message").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| error.to_string());
            let kind = ["type", "code"].iter().filter_map(|k| error.get(*k)).find(|v| !v.is_null());
            if let Some(kind) = kind {
                let kind = kind.as_str().map(str::to_owned).unwrap_or_else(|| kind.to_string());
                message = format!("{message} ({kind})");
            }
            message
        }
    };
    EngineError::new("ENGINE_SERVER_ERROR", format!("the engine reported an error: {}", excerpt(message.as_bytes())))
}

/// The reply being assembled from stream events.
struct Reply {
    started: Instant,
    text: String,
    deltas: usize,
    first_token: Option<Duration>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
}

impl Reply {
    fn new(started: Instant) -> Self {
        Reply { started, text: String::new(), deltas: 0, first_token: None, finish_reason: None, usage: None }
    }

    /// Takes one event in; true at `[DONE]`.
    fn apply(&mut self, event: StreamEvent, sink: TokenSink<'_>) -> bool {
        let delta = match event {
            StreamEvent::Done => return true,
            StreamEvent::Delta(delta) => delta,
        };
        if let Some(content) = delta.content.filter(|c| !c.is_empty()) {
            self.first_token.get_or_insert_with(|| self.started.elapsed());
            sink(&content);
            self.text.push_str(&content);
            self.deltas += 1;
        }
        if delta.finish_reason.is_some() {
            self.finish_reason = delta.finish_reason;
        }
        if delta.usage.is_some() {
            self.usage = delta.usage;
        }
        false
    }

    /// Takes in a whole non-streamed completion (`choices[0].message.content`).
    fn apply_whole(&mut self, body: &[u8], sink: TokenSink<'_>) -> Result<(), EngineError> {
        let value: Value = serde_json::from_slice(body)
            .map_err(|_| EngineError::new("ENGINE_BAD_STREAM", format!("the reply is not JSON: {}", excerpt(body))))?;
        if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
            return Err(server_error(error));
        }
        let choice = value.get("choices").and_then(|c| c.get(0)).ok_or_else(|| {
            EngineError::new("ENGINE_BAD_STREAM", format!("the reply has no choices: {}", excerpt(body)))
        })?;
        let content = choice.pointer("/message/content").and_then(Value::as_str).map(str::to_owned);
        let finish_reason = choice.get("finish_reason").and_then(Value::as_str).map(str::to_owned);
        let usage = value.get("usage").and_then(parse_usage);
        self.apply(StreamEvent::Delta(Delta { content, finish_reason, usage }), sink);
        Ok(())
    }

    /// The generation; `default_reason` when the server named none (or on cancellation).
    fn finish(self, default_reason: &str) -> Generation {
        let finish_reason = match (default_reason, self.finish_reason) {
            ("cancelled", _) | (_, None) => default_reason.to_owned(),
            (_, Some(reason)) => reason,
        };
        let usage = self.usage.filter(|_| finish_reason != "cancelled");
        Generation {
            text: self.text,
            prompt_tokens: usage.map_or(0, |u| u.prompt_tokens),
            completion_tokens: usage.map_or(self.deltas, |u| u.completion_tokens),
            finish_reason,
            first_token: self.first_token,
            total: self.started.elapsed(),
        }
    }
}

/// An incremental server-sent-events parser: bytes in (split anywhere), each event's `data` out.
/// Lines end in LF, CRLF or CR; `:` lines are comments; fields other than `data` are ignored;
/// an event's `data` lines are joined with LF and dispatched at the blank line that ends it.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    data: String,
    has_data: bool,
    /// The last byte was CR: an LF right after it ends the same line.
    after_cr: bool,
}

impl SseParser {
    /// Feeds bytes; returns the `data` of every event they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<String>, EngineError> {
        let mut events = Vec::new();
        for &byte in bytes {
            if std::mem::take(&mut self.after_cr) && byte == b'\n' {
                continue;
            }
            match byte {
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                b'\n' => self.end_line(&mut events),
                _ => {
                    if self.line.len() >= MAX_LINE_BYTES {
                        return Err(EngineError::new("ENGINE_BAD_STREAM", "a stream line is longer than 4 MiB"));
                    }
                    self.line.push(byte);
                }
            }
        }
        Ok(events)
    }

    /// The end of the stream: dispatches an event the server left unterminated.
    pub fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut events);
        }
        self.end_line(&mut events);
        events
    }

    fn end_line(&mut self, events: &mut Vec<String>) {
        if self.line.is_empty() {
            if std::mem::take(&mut self.has_data) {
                events.push(std::mem::take(&mut self.data));
            }
            return;
        }
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        if field == "data" {
            if self.has_data {
                self.data.push('\n');
            }
            self.data.push_str(value);
            self.has_data = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Sampling;
    use std::sync::{Arc, Mutex};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};
    use tokio::sync::mpsc;

    // ---- SSE parser ----

    /// Feeds `bytes` in pieces of `piece` bytes and collects every event's data.
    fn feed(bytes: &[u8], piece: usize) -> Vec<String> {
        let mut parser = SseParser::default();
        let mut events = Vec::new();
        for chunk in bytes.chunks(piece) {
            events.extend(parser.push(chunk).unwrap());
        }
        events.extend(parser.finish());
        events
    }

    const STREAM: &str = ": keep-alive comment\n\
        data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n\
        data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Héllo\"},\"finish_reason\":null}]}\n\n\
        : another comment\n\
        event: message\n\
        id: 3\n\
        data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\", wörld 🌍\"},\"finish_reason\":\"stop\"}]}\n\n\
        data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,\"total_tokens\":15}}\n\n\
        data: [DONE]\n\n";

    #[test]
    fn sse_parser_reassembles_events_split_at_every_byte_boundary() {
        let whole = feed(STREAM.as_bytes(), STREAM.len());
        assert_eq!(whole.len(), 5, "{whole:?}");
        assert_eq!(whole[4], "[DONE]");
        assert!(whole[1].contains("Héllo"));
        assert!(whole[2].contains("🌍"), "multi-byte characters survive: {:?}", whole[2]);
        for piece in 1..=17 {
            assert_eq!(feed(STREAM.as_bytes(), piece), whole, "pieces of {piece} bytes");
        }
        // Every single split point, including inside multi-byte UTF-8 sequences.
        let bytes = STREAM.as_bytes();
        for at in 0..bytes.len() {
            let mut parser = SseParser::default();
            let mut events = parser.push(&bytes[..at]).unwrap();
            events.extend(parser.push(&bytes[at..]).unwrap());
            assert_eq!(events, whole, "split at byte {at}");
        }
    }

    #[test]
    fn sse_parser_accepts_crlf_and_bare_cr() {
        let lf = feed(STREAM.as_bytes(), 64);
        let crlf = STREAM.replace('\n', "\r\n");
        let cr = STREAM.replace('\n', "\r");
        for piece in [1, 2, 3, 7, crlf.len()] {
            assert_eq!(feed(crlf.as_bytes(), piece), lf, "CRLF in pieces of {piece}");
            assert_eq!(feed(cr.as_bytes(), piece), lf, "CR in pieces of {piece}");
        }
        // A CR at the end of one chunk and its LF at the start of the next are one line end.
        let mut parser = SseParser::default();
        assert!(parser.push(b"data: a\r").unwrap().is_empty());
        assert!(parser.push(b"\n\r").unwrap().len() == 1);
        assert!(parser.push(b"\n").unwrap().is_empty(), "the LF after CR is not another blank line");
    }

    #[test]
    fn sse_parser_fields_comments_and_multiline_data() {
        let text = ":comment only\n\nretry: 100\nevent: x\n\ndata:no-space\n\ndata: one\ndata: two\n\ndata\n\n";
        assert_eq!(feed(text.as_bytes(), 3), vec!["no-space", "one\ntwo", ""]);
        // An event the server left without its blank line is still delivered at the end.
        assert_eq!(feed(b"data: [DONE]", 4), vec!["[DONE]"]);
        assert_eq!(feed(b"data: [DONE]\n", 4), vec!["[DONE]"]);
        assert!(feed(b"", 1).is_empty());
    }

    #[test]
    fn sse_parser_refuses_an_endless_line() {
        let mut parser = SseParser::default();
        let block = vec![b'x'; 1 << 20];
        let mut result = Ok(Vec::new());
        for _ in 0..5 {
            result = parser.push(&block);
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result.unwrap_err().code, "ENGINE_BAD_STREAM");
    }

    #[test]
    fn parse_event_reads_deltas_usage_done_and_errors() {
        let events: Vec<StreamEvent> = feed(STREAM.as_bytes(), 5).iter().map(|d| parse_event(d).unwrap()).collect();
        assert_eq!(events[0], StreamEvent::Delta(Delta::default()), "role-only delta");
        assert_eq!(
            events[2],
            StreamEvent::Delta(Delta {
                content: Some(", wörld 🌍".into()),
                finish_reason: Some("stop".into()),
                usage: None
            })
        );
        assert_eq!(
            events[3],
            StreamEvent::Delta(Delta {
                usage: Some(Usage { prompt_tokens: 12, completion_tokens: 3 }),
                ..Delta::default()
            })
        );
        assert_eq!(events[4], StreamEvent::Done);
        // vLLM sends `"usage": null` and `"content": null` on ordinary chunks.
        let chunk = r#"{"choices":[{"delta":{"content":null},"finish_reason":null}],"usage":null}"#;
        assert_eq!(parse_event(chunk).unwrap(), StreamEvent::Delta(Delta::default()));
        assert_eq!(parse_event("  [DONE] ").unwrap(), StreamEvent::Done);

        let error = parse_event(r#"{"error":{"message":"context too long","type":"invalid_request_error"}}"#);
        let error = error.unwrap_err();
        assert_eq!(error.code, "ENGINE_SERVER_ERROR");
        assert!(error.message.contains("context too long") && error.message.contains("invalid_request_error"));
        assert_eq!(parse_event(r#"{"error":"boom"}"#).unwrap_err().code, "ENGINE_SERVER_ERROR");
        assert_eq!(parse_event(r#"{"error":null,"choices":[]}"#).unwrap(), StreamEvent::Delta(Delta::default()));

        for malformed in [r#"{"choices":[{"delta":{"content":"x"}"#, "not json", "[1,2]", "\"text\""] {
            assert_eq!(parse_event(malformed).unwrap_err().code, "ENGINE_BAD_STREAM", "{malformed}");
        }
    }

    #[test]
    fn reply_counts_deltas_without_usage_and_prefers_usage_when_sent() {
        let mut pieces = Vec::new();
        let mut sink = |s: &str| pieces.push(s.to_owned());
        let mut reply = Reply::new(Instant::now());
        for data in feed(STREAM.as_bytes(), 9) {
            if reply.apply(parse_event(&data).unwrap(), &mut sink) {
                break;
            }
        }
        let generation = reply.finish("stop");
        assert_eq!(generation.text, "Héllo, wörld 🌍");
        assert_eq!((generation.prompt_tokens, generation.completion_tokens), (12, 3));
        assert_eq!(generation.finish_reason, "stop");
        assert!(generation.first_token.is_some());
        assert_eq!(pieces.concat(), generation.text);

        let mut reply = Reply::new(Instant::now());
        let mut sink = |_: &str| {};
        for content in ["a", "", "b", "c"] {
            let delta = Delta { content: Some(content.into()), ..Delta::default() };
            reply.apply(StreamEvent::Delta(delta), &mut sink);
        }
        let last = Delta { finish_reason: Some("length".into()), ..Delta::default() };
        reply.apply(StreamEvent::Delta(last), &mut sink);
        let generation = reply.finish("stop");
        assert_eq!((generation.text.as_str(), generation.prompt_tokens, generation.completion_tokens), ("abc", 0, 3));
        assert_eq!(generation.finish_reason, "length");
    }

    // ---- configuration and request body ----

    #[test]
    fn new_normalises_the_base_url_and_refuses_bad_ones() {
        for (given, api_base) in [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1"),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1"),
            ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
            ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
            (" https://llm.example/v1/chat/completions ", "https://llm.example/v1"),
            ("https://llm.example/proxy/openai", "https://llm.example/proxy/openai/v1"),
            ("http://localhost:11434/v1", "http://localhost:11434/v1"),
            ("http://[::1]:8000", "http://[::1]:8000/v1"),
        ] {
            let engine = OpenAiEngine::new(given, "m", None, 4096).unwrap();
            assert_eq!(engine.api_base(), api_base, "{given}");
            assert_eq!(engine.chat_url(), format!("{api_base}/chat/completions"));
        }
        for bad in
            ["", "localhost:8080", "ftp://host/v1", "file:///tmp/x", "http://user:pw@host/", "http://h/?a=1", "nope"]
        {
            let error = OpenAiEngine::new(bad, "m", None, 4096).unwrap_err();
            assert_eq!(error.code, "ENGINE_BAD_CONFIG", "{bad}");
        }
        let engine = OpenAiEngine::new("http://127.0.0.1:1", "qwen3-1.7b", Some("sk-secret".into()), 8192).unwrap();
        assert_eq!(engine.model_id(), "openai:qwen3-1.7b");
        assert_eq!(engine.context_tokens(), 8192);
        assert!(!format!("{engine:?}").contains("sk-secret"), "Debug must not show the API key");
    }

    fn request(shape: OutputShape) -> GenerateRequest {
        GenerateRequest {
            system: "You are Laika.".into(),
            examples: &[],
            user: "{\"input\":\"hi\"}".into(),
            max_tokens: 64,
            sampling: Sampling { seed: Some(42), ..Sampling::default() },
            shape,
            copy_bias: None,
        }
    }

    fn summary_schema() -> Value {
        json!({
            "type": "object",
            "properties": {"summary": {"type": "string", "maxLength": 200}},
            "required": ["summary"],
        })
    }

    #[test]
    fn worked_examples_go_as_earlier_turns_before_the_user_turn() {
        const EXAMPLES: &[crate::engine::Exchange] =
            &[crate::engine::Exchange { user: "A long sentence here.", assistant: "A sentence." }];
        let engine = OpenAiEngine::new("http://127.0.0.1:1", "m", None, 4096).unwrap();
        let body = engine.request_body(&GenerateRequest { examples: EXAMPLES, ..request(OutputShape::Markdown) });
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "You are Laika."},
                {"role": "user", "content": "A long sentence here."},
                {"role": "assistant", "content": "A sentence."},
                {"role": "user", "content": "{\"input\":\"hi\"}"},
            ])
        );
    }

    #[test]
    fn request_body_carries_messages_sampling_and_schema() {
        let engine = OpenAiEngine::new("http://127.0.0.1:1", "m", None, 4096).unwrap();
        let body = engine.request_body(&request(OutputShape::Markdown));
        assert_eq!(
            body,
            json!({
                "model": "m",
                "messages": [
                    {"role": "system", "content": "You are Laika."},
                    {"role": "user", "content": "{\"input\":\"hi\"}"},
                ],
                "stream": true,
                "stream_options": {"include_usage": true},
                "max_tokens": 64,
                "temperature": 0.7,
                "top_p": 0.8,
                "top_k": 20,
                "min_p": 0.0,
                "frequency_penalty": 0.3,
                "presence_penalty": 0.0,
                "seed": 42,
            })
        );
        let mut no_seed = request(OutputShape::Json(summary_schema()));
        no_seed.sampling.seed = None;
        let body = engine.request_body(&no_seed);
        assert!(body.get("seed").is_none());
        assert_eq!(
            body["response_format"],
            json!({
                "type": "json_schema",
                "json_schema": {"name": "laika_reply", "schema": summary_schema(), "strict": true},
            })
        );
    }

    // ---- a fake HTTP server replaying canned responses ----

    enum Step {
        /// Writes these bytes in pieces of this many bytes, flushing after each.
        Send(Vec<u8>, usize),
        Pause(Duration),
        /// Keeps the connection open until the client hangs up, then reports it.
        HoldUntilClientHangsUp,
    }

    /// A fake OpenAI-compatible server: serves one scripted response per connection, in order,
    /// and reports each request (head and body) it received.
    struct FakeServer {
        base: String,
        requests: mpsc::UnboundedReceiver<String>,
        hangups: mpsc::UnboundedReceiver<()>,
    }

    impl FakeServer {
        async fn start(scripts: Vec<Vec<Step>>) -> FakeServer {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let (request_tx, requests) = mpsc::unbounded_channel();
            let (hangup_tx, hangups) = mpsc::unbounded_channel();
            tokio::spawn(async move {
                for script in scripts {
                    let (mut socket, _) = listener.accept().await.unwrap();
                    socket.set_nodelay(true).unwrap();
                    let request = read_request(&mut socket).await;
                    let _ = request_tx.send(request);
                    for step in script {
                        match step {
                            Step::Send(bytes, piece) => {
                                for chunk in bytes.chunks(piece.max(1)) {
                                    if socket.write_all(chunk).await.is_err() {
                                        break;
                                    }
                                    let _ = socket.flush().await;
                                    tokio::task::yield_now().await;
                                }
                            }
                            Step::Pause(d) => tokio::time::sleep(d).await,
                            Step::HoldUntilClientHangsUp => {
                                let mut buf = [0u8; 1024];
                                while matches!(socket.read(&mut buf).await, Ok(n) if n > 0) {}
                                let _ = hangup_tx.send(());
                            }
                        }
                    }
                    let _ = socket.shutdown().await;
                }
            });
            FakeServer { base, requests, hangups }
        }

        async fn request(&mut self) -> String {
            self.requests.recv().await.expect("the fake server saw no request")
        }
    }

    async fn read_request(socket: &mut TcpStream) -> String {
        let mut raw = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = socket.read(&mut buf).await.unwrap();
            assert!(n > 0, "client closed before sending a request");
            raw.extend_from_slice(&buf[..n]);
            if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&raw[..end]).to_lowercase();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse::<usize>().unwrap());
                while raw.len() < end + 4 + length {
                    let n = socket.read(&mut buf).await.unwrap();
                    assert!(n > 0);
                    raw.extend_from_slice(&buf[..n]);
                }
                return String::from_utf8(raw).unwrap();
            }
        }
    }

    fn request_json(raw: &str) -> Value {
        serde_json::from_str(&raw[raw.find("\r\n\r\n").unwrap() + 4..]).unwrap()
    }

    /// A close-delimited `200 text/event-stream` response.
    fn sse_response(body: &str) -> Vec<u8> {
        format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n{body}").into_bytes()
    }

    /// A complete response with a Content-Length, e.g. `http_response("500 Internal Server Error", …)`.
    fn http_response(status: &str, content_type: &str, body: &str) -> Vec<u8> {
        let length = body.len();
        let head = format!("HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n");
        format!("{head}Connection: close\r\n\r\n{body}").into_bytes()
    }

    /// The same as a chunked response, cut into `piece`-byte HTTP chunks.
    fn sse_response_chunked(body: &str, piece: usize) -> Vec<u8> {
        let mut out = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n".to_vec();
        out.extend_from_slice(b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        for chunk in body.as_bytes().chunks(piece) {
            out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            out.extend_from_slice(chunk);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    }

    fn delta_event(content: &str) -> String {
        let choice = json!({"index": 0, "delta": {"content": content}, "finish_reason": null});
        let chunk = json!({"object": "chat.completion.chunk", "choices": [choice]});
        format!("data: {chunk}\n\n")
    }

    fn finish_event(reason: &str) -> String {
        format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}))
    }

    fn usage_event(prompt: usize, completion: usize) -> String {
        format!(
            "data: {}\n\n",
            json!({"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion}})
        )
    }

    async fn run(engine: &OpenAiEngine, request: GenerateRequest) -> (Result<Generation, EngineError>, Vec<String>) {
        let mut pieces = Vec::new();
        let mut sink = |s: &str| pieces.push(s.to_owned());
        let cancel = CancellationToken::new();
        let result = engine.generate(request, &mut sink, &cancel).await;
        (result, pieces)
    }

    #[tokio::test]
    async fn fake_server_streams_a_reply_through_the_sink() {
        let body = format!(
            ": ping\r\n\r\n{}{}{}{}{}data: [DONE]\n\n",
            delta_event("Le chat "),
            delta_event("dort"),
            delta_event(" — bien."),
            finish_event("stop"),
            usage_event(21, 4),
        );
        let mut server = FakeServer::start(vec![vec![Step::Send(sse_response(&body), 7)]]).await;
        let engine =
            OpenAiEngine::new(&format!("{}/v1/", server.base), "test-model", Some("sk-test".into()), 4096).unwrap();
        let (result, pieces) = run(&engine, request(OutputShape::Markdown)).await;
        let generation = result.unwrap();
        assert_eq!(generation.text, "Le chat dort — bien.");
        assert_eq!(pieces, ["Le chat ", "dort", " — bien."]);
        assert_eq!((generation.prompt_tokens, generation.completion_tokens), (21, 4));
        assert_eq!(generation.finish_reason, "stop");
        assert!(generation.first_token.unwrap() <= generation.total);

        let raw = server.request().await;
        assert!(raw.starts_with("POST /v1/chat/completions HTTP/1.1\r\n"), "{raw}");
        assert!(raw.to_lowercase().contains("authorization: bearer sk-test\r\n"), "{raw}");
        assert!(raw.to_lowercase().contains("content-type: application/json\r\n"), "{raw}");
        let sent = request_json(&raw);
        assert_eq!(sent, engine.request_body(&request(OutputShape::Markdown)));
        assert!(sent.get("response_format").is_none());
    }

    #[tokio::test]
    async fn fake_server_json_shape_sends_the_schema_and_chunked_replies_parse() {
        let body = format!(
            "{}{}{}data: [DONE]\r\n\r\n",
            delta_event("{\"summary\":"),
            delta_event(" \"short\"}"),
            finish_event("stop"),
        );
        let mut server = FakeServer::start(vec![vec![Step::Send(sse_response_chunked(&body, 5), 3)]]).await;
        let engine = OpenAiEngine::new(&server.base, "m", None, 4096).unwrap();
        let (result, pieces) = run(&engine, request(OutputShape::Json(summary_schema()))).await;
        let generation = result.unwrap();
        let reply: Value = serde_json::from_str(&generation.text).unwrap();
        assert_eq!(reply["summary"], "short");
        assert_eq!(pieces.concat(), generation.text);
        assert_eq!((generation.prompt_tokens, generation.completion_tokens), (0, 2), "no usage: counted deltas");

        let raw = server.request().await;
        assert!(!raw.to_lowercase().contains("authorization:"), "no key, no header: {raw}");
        let sent = request_json(&raw);
        assert_eq!(sent["response_format"]["type"], "json_schema");
        assert_eq!(sent["response_format"]["json_schema"]["schema"], summary_schema());
        assert_eq!(sent["response_format"]["json_schema"]["strict"], true);
    }

    #[tokio::test]
    async fn fake_server_refusing_json_schema_gets_the_schema_as_json_object() {
        // What llama-cpp-python 0.3.36 answers to `response_format: {"type": "json_schema", …}`.
        let message = "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), \
                       'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}";
        let refusal =
            json!({"error": {"message": message, "type": "internal_server_error", "param": null, "code": null}});
        let refused = http_response("500 Internal Server Error", "application/json", &refusal.to_string());
        let body = format!("{}{}data: [DONE]\n\n", delta_event("{\"summary\": \"ok\"}"), finish_event("stop"));
        let mut server = FakeServer::start(vec![
            vec![Step::Send(refused.clone(), 1000)],
            vec![Step::Send(sse_response(&body), 1000)],
            vec![Step::Send(sse_response(&body), 1000)],
            vec![Step::Send(refused, 1000)],
        ])
        .await;
        let engine = OpenAiEngine::new(&server.base, "m", None, 4096).unwrap();
        let (result, _) = run(&engine, request(OutputShape::Json(summary_schema()))).await;
        assert_eq!(result.unwrap().text, "{\"summary\": \"ok\"}");
        assert_eq!(request_json(&server.request().await)["response_format"]["type"], "json_schema");
        let retried = request_json(&server.request().await);
        assert_eq!(retried["response_format"], json!({"type": "json_object", "schema": summary_schema()}));

        // Learnt: the next request sends json_object straight away.
        let (result, _) = run(&engine, request(OutputShape::Json(summary_schema()))).await;
        assert!(result.is_ok());
        assert_eq!(request_json(&server.request().await)["response_format"]["type"], "json_object");

        // A refusal of the json_object form is reported, not retried for ever.
        let (result, _) = run(&engine, request(OutputShape::Json(summary_schema()))).await;
        assert_eq!(result.unwrap_err().code, "ENGINE_HTTP_STATUS");
        assert_eq!(request_json(&server.request().await)["response_format"]["type"], "json_object");
    }

    #[tokio::test]
    async fn fake_server_answers_a_whole_json_completion_when_it_ignores_stream() {
        let body = json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "whole"}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1},
        })
        .to_string();
        let response = http_response("200 OK", "application/json", &body);
        let server = FakeServer::start(vec![vec![Step::Send(response, 64)]]).await;
        let engine = OpenAiEngine::new(&server.base, "m", None, 4096).unwrap();
        let (result, pieces) = run(&engine, request(OutputShape::Markdown)).await;
        let generation = result.unwrap();
        assert_eq!((generation.text.as_str(), generation.finish_reason.as_str()), ("whole", "length"));
        assert_eq!((generation.prompt_tokens, generation.completion_tokens), (5, 1));
        assert_eq!(pieces, ["whole"]);
    }

    #[tokio::test]
    async fn fake_server_500_is_engine_http_status_with_the_body_start() {
        let long_body = format!("model exploded: {}", "x".repeat(1000));
        let response = http_response("500 Internal Server Error", "text/plain", &long_body);
        let server = FakeServer::start(vec![vec![Step::Send(response, 100)]]).await;
        let engine = OpenAiEngine::new(&server.base, "m", None, 4096).unwrap();
        let (result, pieces) = run(&engine, request(OutputShape::Markdown)).await;
        let error = result.unwrap_err();
        assert_eq!(error.code, "ENGINE_HTTP_STATUS");
        assert!(error.message.contains("500"), "{error}");
        assert!(error.message.contains("model exploded: xxx"), "{error}");
        assert!(error.message.contains(&format!("{}/v1/chat/completions", server.base)), "{error}");
        let quoted = error.message.split_once(": ").unwrap().1;
        assert!(quoted.chars().count() <= BODY_EXCERPT_CHARS + 40, "at most ~300 body chars quoted: {error}");
        assert!(!error.message.contains(&"x".repeat(300)), "{error}");
        assert!(pieces.is_empty());
    }

    #[tokio::test]
    async fn fake_server_error_object_in_the_stream_is_engine_server_error() {
        let body = format!(
            "{}data: {}\n\n",
            delta_event("partial"),
            json!({"error": {"message": "out of memory", "code": 500}})
        );
        let server = FakeServer::start(vec![vec![Step::Send(sse_response(&body), 1000)]]).await;
        let engine = OpenAiEngine::new(&server.base, "m", None, 4096).unwrap();
        let (result, pieces) = run(&engine, request(OutputShape::Markdown)).await;
        let error = result.unwrap_err();
        assert_eq!(error.code, "ENGINE_SERVER_ERROR");
        assert!(error.message.contains("out of memory") && error.message.contains("500"), "{error}");
        assert_eq!(pieces, ["partial"]);
    }

    #[tokio::test]
    async fn fake_server_malformed_or_truncated_stream_is_engine_bad_stream() {
        let malformed = format!("{}data: {{\"choices\": [\n\n", delta_event("ok"));
        let truncated = delta_event("cut off here");
        let server = FakeServer::start(vec![
            vec![Step::Send(sse_response(&malformed), 1000)],
            vec![Step::Send(sse_response(&truncated), 1000)],
        ])
        .await;
        let engine = OpenAiEngine::new(&server.base, "m", None, 4096).unwrap();
        for _ in 0..2 {
            let (result, _) = run(&engine, request(OutputShape::Markdown)).await;
            assert_eq!(result.unwrap_err().code, "ENGINE_BAD_STREAM");
        }
    }

    #[tokio::test]
    async fn a_closed_port_is_engine_unreachable_naming_the_url() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let engine = OpenAiEngine::new(&format!("http://127.0.0.1:{port}"), "m", None, 4096).unwrap();
        let (result, _) = run(&engine, request(OutputShape::Markdown)).await;
        let error = result.unwrap_err();
        assert_eq!(error.code, "ENGINE_UNREACHABLE");
        assert!(error.message.contains(&format!("http://127.0.0.1:{port}/v1/chat/completions")), "{error}");
        assert!(error.message.to_lowercase().contains("refused"), "the cause is named: {error}");
        let error = engine.probe().await.unwrap_err();
        assert_eq!(error.code, "ENGINE_UNREACHABLE");
        assert!(error.message.contains(&format!("http://127.0.0.1:{port}/v1/models")), "{error}");
    }

    #[tokio::test]
    async fn fake_server_cancellation_returns_the_text_so_far_and_drops_the_connection() {
        let head = sse_response(&format!("{}{}", delta_event("first "), delta_event("second")));
        let mut server = FakeServer::start(vec![vec![Step::Send(head, 1000), Step::HoldUntilClientHangsUp]]).await;
        let engine = OpenAiEngine::new(&server.base, "m", None, 4096).unwrap();
        let cancel = CancellationToken::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut sink = {
            let (cancel, seen) = (cancel.clone(), seen.clone());
            move |s: &str| {
                let mut seen = seen.lock().unwrap();
                seen.push(s.to_owned());
                if seen.len() == 2 {
                    cancel.cancel();
                }
            }
        };
        let generation = tokio::time::timeout(
            Duration::from_secs(10),
            engine.generate(request(OutputShape::Markdown), &mut sink, &cancel),
        )
        .await
        .expect("cancellation must end the generation")
        .unwrap();
        assert_eq!(generation.finish_reason, "cancelled");
        assert_eq!(generation.text, "first second");
        assert_eq!(seen.lock().unwrap().concat(), generation.text);
        tokio::time::timeout(Duration::from_secs(10), server.hangups.recv())
            .await
            .expect("the engine must drop the connection on cancellation");

        // Cancelled before anything arrives: Ok, empty, cancelled.
        let cancel = CancellationToken::new();
        cancel.cancel();
        let mut sink = |_: &str| {};
        let generation = engine.generate(request(OutputShape::Markdown), &mut sink, &cancel).await.unwrap();
        assert_eq!((generation.text.as_str(), generation.finish_reason.as_str()), ("", "cancelled"));
    }

    #[tokio::test]
    async fn fake_server_silence_past_the_idle_timeout_is_engine_unreachable() {
        let head = sse_response(&delta_event("then nothing"));
        let server = FakeServer::start(vec![
            vec![Step::Send(head, 1000), Step::HoldUntilClientHangsUp],
            vec![Step::Pause(Duration::from_secs(5))],
        ])
        .await;
        let engine =
            OpenAiEngine::new(&server.base, "m", None, 4096).unwrap().with_idle_timeout(Duration::from_millis(300));
        for what in ["between chunks", "before the response head"] {
            let started = Instant::now();
            let (result, _) = run(&engine, request(OutputShape::Markdown)).await;
            let error = result.unwrap_err();
            assert_eq!(error.code, "ENGINE_UNREACHABLE", "{what}: {error}");
            assert!(error.message.contains("sent nothing for 0.3 s"), "{what}: {error}");
            assert!(started.elapsed() < Duration::from_secs(4), "{what}");
        }
    }

    #[tokio::test]
    async fn fake_server_probe_lists_model_ids() {
        let body =
            json!({"object": "list", "data": [{"id": "smollm2", "object": "model"}, {"id": "qwen3"}]}).to_string();
        let ok = http_response("200 OK", "application/json", &body);
        let denied = http_response("401 Unauthorized", "text/plain", "bad api key!");
        let garbage = http_response("200 OK", "application/json", "not json!");
        let mut server = FakeServer::start(vec![
            vec![Step::Send(ok, 50)],
            vec![Step::Send(denied, 50)],
            vec![Step::Send(garbage, 50)],
        ])
        .await;
        let engine = OpenAiEngine::new(&format!("{}/v1", server.base), "m", Some("k".into()), 4096).unwrap();
        assert_eq!(engine.probe().await.unwrap(), ["smollm2", "qwen3"]);
        let raw = server.request().await;
        assert!(raw.starts_with("GET /v1/models HTTP/1.1\r\n") && raw.to_lowercase().contains("bearer k"), "{raw}");
        let error = engine.probe().await.unwrap_err();
        assert_eq!(error.code, "ENGINE_HTTP_STATUS");
        assert!(error.message.contains("401") && error.message.contains("bad api key!"), "{error}");
        assert_eq!(engine.probe().await.unwrap_err().code, "ENGINE_BAD_STREAM");
    }

    // ---- a real llama-cpp-python server ----

    /// Kills the server process when the test ends, however it ends.
    struct KillOnDrop(std::process::Child);

    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    fn log_tail(path: &std::path::Path) -> String {
        let log = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// Runs llama-cpp-python's OpenAI-compatible server on the GGUF named by
    /// `LAIKA_TEST_OPENAI_GGUF` and generates through it (Markdown, then JSON under a schema).
    /// Skips (prints `SKIP`) when the variable is unset or `llama_cpp.server` is not importable,
    /// unless `LAIKA_REQUIRE_OPENAI_SERVER=1`, which turns a skip into a failure.
    /// `LAIKA_TEST_PYTHON` picks the interpreter (default `python3`).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn real_llama_cpp_server() {
        let required = std::env::var("LAIKA_REQUIRE_OPENAI_SERVER").is_ok_and(|v| v == "1");
        let skip = |why: String| {
            assert!(!required, "real_llama_cpp_server: LAIKA_REQUIRE_OPENAI_SERVER=1 but {why}");
            eprintln!("SKIP real_llama_cpp_server: {why}");
        };
        let Some(gguf) = std::env::var_os("LAIKA_TEST_OPENAI_GGUF").filter(|v| !v.is_empty()) else {
            return skip("LAIKA_TEST_OPENAI_GGUF (the GGUF to serve) is not set".into());
        };
        let gguf = std::path::PathBuf::from(gguf);
        assert!(gguf.is_file(), "LAIKA_TEST_OPENAI_GGUF={} is not a file", gguf.display());
        let python = std::env::var("LAIKA_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
        let import = std::process::Command::new(&python).args(["-c", "import llama_cpp.server"]).output();
        match import {
            Ok(out) if out.status.success() => {}
            Ok(out) => {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let last = stderr.lines().last().unwrap_or("").to_owned();
                return skip(format!(
                    "`{python} -c 'import llama_cpp.server'` failed ({last}); pip install 'llama-cpp-python[server]'"
                ));
            }
            Err(e) => return skip(format!("cannot run {python}: {e}")),
        }

        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let log_path = std::env::temp_dir().join(format!("laika-llama-cpp-server-{port}.log"));
        let log = std::fs::File::create(&log_path).unwrap();
        let child = std::process::Command::new(&python)
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(&gguf)
            .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--n_ctx", "4096", "--n_threads", "2"])
            .stdin(std::process::Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("spawn llama_cpp.server");
        let mut server = KillOnDrop(child);

        let engine = OpenAiEngine::new(&format!("http://127.0.0.1:{port}"), "smollm2", None, 4096).unwrap();
        let started = Instant::now();
        let models = loop {
            if let Some(status) = server.0.try_wait().unwrap() {
                panic!("llama_cpp.server exited ({status}) before answering; log:\n{}", log_tail(&log_path));
            }
            match engine.probe().await {
                Ok(models) => break models,
                Err(e) if started.elapsed() > Duration::from_secs(60) => {
                    panic!("llama_cpp.server did not answer within 60 s ({e}); log:\n{}", log_tail(&log_path))
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        };
        eprintln!("llama_cpp.server up after {:?}; models: {models:?}", started.elapsed());
        assert!(!models.is_empty());

        let greedy = Sampling { temperature: 0.0, seed: Some(7), ..Sampling::greedy() };
        let cancel = CancellationToken::new();
        for (shape, max_tokens, system, user) in [
            (
                OutputShape::Markdown,
                40,
                "You are a helpful assistant. Answer briefly.",
                "In one sentence: what is a web browser?",
            ),
            (
                OutputShape::Json(summary_schema()),
                200,
                "Reply with a JSON object {\"summary\": string} summarising the user's text.",
                "The cat sat on the warm mat all afternoon, ignoring the dog and the rain outside.",
            ),
        ] {
            let json = matches!(shape, OutputShape::Json(_));
            let request = GenerateRequest {
                system: system.into(),
                examples: &[],
                user: user.into(),
                max_tokens,
                sampling: greedy.clone(),
                shape,
                copy_bias: None,
            };
            let mut pieces = Vec::new();
            let mut sink = |s: &str| pieces.push(s.to_owned());
            let result = engine.generate(request, &mut sink, &cancel).await;
            let generation = result.unwrap_or_else(|e| panic!("generate failed: {e}; log:\n{}", log_tail(&log_path)));
            eprintln!("real server reply ({}): {generation:?}", if json { "json" } else { "markdown" });
            assert!(!generation.text.trim().is_empty());
            assert_eq!(pieces.concat(), generation.text, "the sink saw exactly the final text");
            assert!(pieces.len() > 1, "the reply was streamed, not sent whole");
            assert!(generation.first_token.is_some_and(|t| t <= generation.total));
            // llama-cpp-python sends no `usage` when streaming (it ignores `stream_options`), so
            // prompt_tokens stays 0 and completion_tokens is the count of content deltas.
            assert!(generation.completion_tokens > 0 && generation.completion_tokens <= max_tokens, "{generation:?}");
            assert!(["stop", "length"].contains(&generation.finish_reason.as_str()), "{generation:?}");
            if json {
                let reply: Value = serde_json::from_str(&generation.text)
                    .unwrap_or_else(|e| panic!("the JSON reply does not parse ({e}): {:?}", generation.text));
                assert!(reply["summary"].is_string(), "{reply}");
            }
        }
        let learnt = engine.schema_as_json_object.load(Ordering::Relaxed);
        eprintln!("json_schema refused, schema sent as json_object: {learnt}");

        // A prompt longer than the server's context: llama-cpp-python answers 200 and then
        // closes the stream without a byte of data.
        let request = GenerateRequest {
            system: "Summarise.".into(),
            examples: &[],
            user: "word ".repeat(6000),
            max_tokens: 8,
            sampling: greedy,
            shape: OutputShape::Markdown,
            copy_bias: None,
        };
        let mut sink = |_: &str| {};
        let error = engine.generate(request, &mut sink, &cancel).await.unwrap_err();
        eprintln!("over-long prompt: {error}");
        assert!(["ENGINE_BAD_STREAM", "ENGINE_HTTP_STATUS", "ENGINE_SERVER_ERROR"].contains(&error.code), "{error}");
        drop(server);
    }
}
