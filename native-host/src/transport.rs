//! Native messaging: the 4-byte native-endian length + UTF-8 JSON frames browsers speak on the
//! host's stdin and stdout, and the loop that answers them.
//!
//! Frames are written by tokio-util's `LengthDelimitedCodec` (4 bytes, native endian) and read
//! by a decoder of the same format that keeps no state between frames, so that a bad frame
//! costs one error reply, not the connection: a length over the browser→host cap is skipped byte for byte (the
//! stream stays in step), invalid UTF-8 or JSON gets an error with a stable code, and a frame
//! cut off by end of input gets a last error before a clean exit. Replies over the host→browser
//! cap (1 MiB; Chromium refuses more) are replaced by an error reply, since the browser would
//! otherwise drop the port and the caller would wait forever.

use bytes::{Buf, Bytes, BytesMut};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::{Decoder, Encoder, FramedRead, FramedWrite, LengthDelimitedCodec};

/// Browser → host: Chromium sends at most 64 MiB.
pub const MAX_INCOMING: usize = 64 * 1024 * 1024;
/// Host → browser: Chromium accepts at most 1 MiB.
pub const MAX_OUTGOING: usize = 1024 * 1024;

/// One frame as read: a message, or what was wrong with it.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    Message(Bytes),
    /// The frame announced more bytes than the cap; they were skipped.
    TooLarge(usize),
}

/// The frame codec: writes with `LengthDelimitedCodec`, reads the same format and skips
/// oversize frames.
pub struct NativeCodec {
    inner: LengthDelimitedCodec,
    /// Bytes of an oversize frame still to skip.
    skipping: usize,
    max_incoming: usize,
}

impl NativeCodec {
    pub fn new(max_incoming: usize) -> Self {
        let inner = LengthDelimitedCodec::builder()
            .length_field_length(4)
            .native_endian()
            .max_frame_length(usize::MAX)
            .new_codec();
        NativeCodec { inner, skipping: 0, max_incoming }
    }
}

impl Decoder for NativeCodec {
    type Item = Incoming;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Incoming>, std::io::Error> {
        if self.skipping > 0 {
            let skip = self.skipping.min(src.len());
            src.advance(skip);
            self.skipping -= skip;
            if self.skipping > 0 {
                return Ok(None);
            }
        }
        if src.len() < 4 {
            return Ok(None);
        }
        let length = u32::from_ne_bytes([src[0], src[1], src[2], src[3]]) as usize;
        if length > self.max_incoming {
            src.advance(4);
            self.skipping = length;
            let skip = self.skipping.min(src.len());
            src.advance(skip);
            self.skipping -= skip;
            return Ok(Some(Incoming::TooLarge(length)));
        }
        // The head is read here rather than by the inner codec so that no frame state is held
        // between calls: the oversize check above always looks at a real length field.
        if src.len() < 4 + length {
            src.reserve(4 + length - src.len());
            return Ok(None);
        }
        src.advance(4);
        Ok(Some(Incoming::Message(src.split_to(length).freeze())))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Incoming>, std::io::Error> {
        match self.decode(src)? {
            Some(frame) => Ok(Some(frame)),
            None if src.is_empty() && self.skipping == 0 => Ok(None),
            None => {
                src.clear();
                self.skipping = 0;
                Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "NM_TRUNCATED_FRAME"))
            }
        }
    }
}

impl Encoder<Bytes> for NativeCodec {
    type Error = std::io::Error;

    fn encode(&mut self, item: Bytes, dst: &mut BytesMut) -> Result<(), std::io::Error> {
        self.inner.encode(item, dst)
    }
}

/// A request: `{"id": …, "method": "…", "params": {…}}`.
#[derive(Debug)]
pub struct Request {
    pub id: Value,
    pub method: String,
    pub params: Value,
}

/// An error with a stable code, for the reply's `error` object.
#[derive(Debug, Clone, PartialEq)]
pub struct HostError {
    pub code: &'static str,
    pub message: String,
}

impl HostError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        HostError { code, message: message.into() }
    }
}

/// A handler's answer: at once (replies keep request order), or later from work that runs
/// while other requests are served (planning and model calls take seconds).
pub enum Answer {
    Now(Result<Value, HostError>),
    Later(futures::future::BoxFuture<'static, Result<Value, HostError>>),
}

/// What answers requests.
pub trait Handler {
    fn handle(&self, request: &Request) -> Answer;
}

fn error_reply(id: Value, error: &HostError) -> Value {
    json!({ "id": id, "error": { "code": error.code, "message": error.message } })
}

/// An error reply's JSON bytes.
pub fn error_bytes(id: Value, error: &HostError) -> Bytes {
    encode_reply(&error_reply(id.clone(), error), &id)
}

/// The error for a message over the browser→host cap (its bytes are skipped, not read).
pub fn too_large(length: usize) -> HostError {
    HostError::new(
        "NM_FRAME_TOO_LARGE",
        format!("a {length}-byte message is over the {MAX_INCOMING}-byte limit; it was skipped"),
    )
}

/// Reads one frame's bytes as a request, or says why it is not one.
fn parse_request(bytes: &[u8]) -> Result<Request, (Value, HostError)> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| (Value::Null, HostError::new("NM_INVALID_UTF8", format!("the message is not UTF-8: {e}"))))?;
    let value: Value = serde_json::from_str(text)
        .map_err(|e| (Value::Null, HostError::new("NM_INVALID_JSON", format!("the message is not JSON: {e}"))))?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let Some(object) = value.as_object() else {
        return Err((id, HostError::new("NM_INVALID_REQUEST", "a request is a JSON object")));
    };
    if !matches!(id, Value::String(_) | Value::Number(_)) {
        return Err((Value::Null, HostError::new("NM_INVALID_REQUEST", "a request needs a string or number id")));
    }
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        return Err((id, HostError::new("NM_INVALID_REQUEST", "a request needs a string method")));
    };
    let params = object.get("params").cloned().unwrap_or_else(|| json!({}));
    Ok(Request { id, method: method.to_string(), params })
}

/// Encodes a reply, replacing one over the outgoing cap with an error reply.
fn encode_reply(reply: &Value, id: &Value) -> Bytes {
    let bytes = serde_json::to_vec(reply).unwrap_or_default();
    if bytes.len() <= MAX_OUTGOING {
        return Bytes::from(bytes);
    }
    let error = HostError::new(
        "HOST_REPLY_TOO_LARGE",
        format!("the reply is {} bytes; the browser accepts at most {MAX_OUTGOING}", bytes.len()),
    );
    Bytes::from(serde_json::to_vec(&error_reply(id.clone(), &error)).unwrap_or_default())
}

/// The reply to one message: ready, or from work still to run (an [`Answer::Later`]).
pub enum Reply {
    Ready(Bytes),
    Pending(futures::future::BoxFuture<'static, Bytes>),
}

/// Answers one message (a request's JSON bytes, without the frame's length) with the reply's
/// JSON bytes: the reply [`serve`] writes for that frame, with the same error codes for a
/// malformed message and the same cap on the reply's size. For callers that are handed whole
/// messages rather than a stream (the Safari extension's handler, through `laika-safari`).
pub fn answer<H: Handler + ?Sized>(message: &[u8], handler: &H) -> Reply {
    match parse_request(message) {
        Ok(request) => match handler.handle(&request) {
            Answer::Now(result) => Reply::Ready(result_reply(request.id, result)),
            Answer::Later(work) => {
                let id = request.id;
                Reply::Pending(Box::pin(async move { result_reply(id, work.await) }))
            }
        },
        Err((id, error)) => Reply::Ready(error_bytes(id, &error)),
    }
}

/// Serves requests from `input` until it ends. Every frame gets exactly one reply.
pub async fn serve<R, W, H>(input: R, output: W, handler: &H) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
    H: Handler,
{
    let mut frames = FramedRead::new(input, NativeCodec::new(MAX_INCOMING));
    let mut replies = FramedWrite::new(output, NativeCodec::new(MAX_INCOMING));
    let mut pending: tokio::task::JoinSet<Bytes> = tokio::task::JoinSet::new();
    loop {
        let frame = tokio::select! {
            frame = frames.next() => frame,
            Some(done) = pending.join_next(), if !pending.is_empty() => {
                match done {
                    Ok(reply) => replies.send(reply).await?,
                    Err(error) => tracing::error!("a request task failed: {error}"),
                }
                continue;
            }
        };
        let Some(frame) = frame else { break };
        let reply = match frame {
            Ok(Incoming::Message(bytes)) => match answer(&bytes, handler) {
                Reply::Ready(reply) => reply,
                Reply::Pending(work) => {
                    pending.spawn(work);
                    continue;
                }
            },
            Ok(Incoming::TooLarge(length)) => error_bytes(Value::Null, &too_large(length)),
            Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => {
                let error = HostError::new("NM_TRUNCATED_FRAME", "the input ended inside a message");
                replies.send(error_bytes(Value::Null, &error)).await?;
                break;
            }
            Err(error) => return Err(error),
        };
        replies.send(reply).await?;
    }
    // The browser closed our input; work in flight still gets its reply written.
    while let Some(done) = pending.join_next().await {
        if let Ok(reply) = done {
            replies.send(reply).await?;
        }
    }
    replies.flush().await
}

fn result_reply(id: Value, result: Result<Value, HostError>) -> Bytes {
    let reply = match result {
        Ok(result) => json!({ "id": id, "result": result }),
        Err(error) => error_reply(id.clone(), &error),
    };
    encode_reply(&reply, &id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(payload: &[u8]) -> Vec<u8> {
        let mut out = (payload.len() as u32).to_ne_bytes().to_vec();
        out.extend_from_slice(payload);
        out
    }

    struct Echo;
    impl Handler for Echo {
        fn handle(&self, request: &Request) -> Answer {
            match request.method.as_str() {
                "echo" => Answer::Now(Ok(request.params.clone())),
                "big" => Answer::Now(Ok(json!("x".repeat(MAX_OUTGOING + 10)))),
                "slow" => Answer::Later(Box::pin(async {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    Ok(json!("slow"))
                })),
                _ => Answer::Now(Err(HostError::new("HOST_UNKNOWN_METHOD", "no such method"))),
            }
        }
    }

    async fn exchange(input: Vec<u8>) -> Vec<Value> {
        let mut output = Vec::new();
        serve(&input[..], &mut output, &Echo).await.unwrap();
        let mut replies = Vec::new();
        let mut rest = &output[..];
        while rest.len() >= 4 {
            let length = u32::from_ne_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            replies.push(serde_json::from_slice(&rest[4..4 + length]).unwrap());
            rest = &rest[4 + length..];
        }
        replies
    }

    fn run(input: Vec<u8>) -> Vec<Value> {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(exchange(input))
    }

    #[test]
    fn every_bad_frame_gets_an_error_and_the_next_request_is_served() {
        let mut input = Vec::new();
        input.extend(frame(br#"{"id": 1, "method": "echo", "params": {"a": 1}}"#));
        input.extend(frame(b"\xff\xfe not utf-8"));
        input.extend(frame(b"{ not json"));
        input.extend(frame(br#"[1, 2]"#));
        input.extend(frame(br#"{"id": 2}"#));
        input.extend(frame(br#"{"id": 3, "method": "nope"}"#));
        input.extend(frame(br#"{"id": 4, "method": "big"}"#));
        // An oversize length whose bytes follow in full: skipped, then back in step.
        input.extend((MAX_INCOMING as u32 + 1).to_ne_bytes());
        input.extend(vec![b' '; MAX_INCOMING + 1]);
        input.extend(frame(br#"{"id": "last", "method": "echo", "params": {"ok": true}}"#));
        let replies = run(input);
        let codes: Vec<&str> = replies.iter().map(|r| r["error"]["code"].as_str().unwrap_or("ok")).collect();
        assert_eq!(
            codes,
            [
                "ok",
                "NM_INVALID_UTF8",
                "NM_INVALID_JSON",
                "NM_INVALID_REQUEST",
                "NM_INVALID_REQUEST",
                "HOST_UNKNOWN_METHOD",
                "HOST_REPLY_TOO_LARGE",
                "NM_FRAME_TOO_LARGE",
                "ok"
            ]
        );
        assert_eq!(replies[0], json!({ "id": 1, "result": { "a": 1 } }));
        assert_eq!(replies[4]["id"], 2, "the id is echoed when the request has one");
        assert_eq!(replies[8]["result"]["ok"], true);
    }

    #[test]
    fn a_truncated_frame_gets_a_last_error_and_a_clean_end() {
        let mut input = frame(br#"{"id": 1, "method": "echo"}"#);
        input.extend(100u32.to_ne_bytes());
        input.extend(b"{\"id\": 2");
        let replies = run(input);
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[1]["error"]["code"], "NM_TRUNCATED_FRAME");
        // A stray partial length header, too.
        let replies = run(vec![1, 0]);
        assert_eq!(replies[0]["error"]["code"], "NM_TRUNCATED_FRAME");
    }

    #[test]
    fn end_of_input_between_frames_is_a_clean_exit() {
        assert!(run(Vec::new()).is_empty());
        assert_eq!(run(frame(br#"{"id": 1, "method": "echo"}"#)).len(), 1);
    }

    #[test]
    fn replies_fit_the_browser_cap() {
        let at_cap = "y".repeat(MAX_OUTGOING - 40);
        let request = json!({ "id": 1, "method": "echo", "params": at_cap });
        let replies = run(frame(request.to_string().as_bytes()));
        assert!(replies[0]["result"].is_string() || replies[0]["error"]["code"] == "HOST_REPLY_TOO_LARGE");
    }

    #[test]
    fn slow_work_does_not_hold_up_quick_requests_and_is_answered_before_exit() {
        let mut input = frame(br#"{"id": 1, "method": "slow"}"#);
        input.extend(frame(br#"{"id": 2, "method": "echo", "params": 2}"#));
        let replies = run(input);
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[0]["id"], 2, "the quick reply comes first: {replies:?}");
        assert_eq!(replies[1], json!({ "id": 1, "result": "slow" }));
    }
}
