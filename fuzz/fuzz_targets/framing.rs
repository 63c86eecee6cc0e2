//! Native-messaging framing: the decoder `laika-host` reads stdin with
//! (`laika_host::transport::NativeCodec`), fed arbitrary bytes in arbitrary chunkings.
//!
//! Checked: it never panics; it never yields a message longer than its limit (and reports an
//! oversize length only when it is over the limit); what it yields does not depend on how the
//! stream was cut into reads (it equals a one-pass reference reading of the whole stream, end of
//! input included); and every message it yields gets one JSON reply with a stable error code or
//! a result, within the browser's 1 MiB cap (`laika_host::transport::answer`).
#![no_main]

use bytes::BytesMut;
use laika_host::transport::{
    Answer, Handler, Incoming, MAX_INCOMING, MAX_OUTGOING, NativeCodec, Reply, Request, answer,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tokio_util::codec::Decoder;

/// What a read of the whole stream yields: frames, then a clean end or a truncated one.
#[derive(Debug, PartialEq)]
enum Event {
    Message(Vec<u8>),
    TooLarge(usize),
    Truncated,
}

/// The one-pass reference: 4-byte native-endian length, then that many bytes; a length over
/// `max` is reported and its bytes skipped; input ending inside a head, a body or a skip is a
/// truncated frame.
fn reference(stream: &[u8], max: usize) -> Vec<Event> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        if stream.len() - at < 4 {
            out.push(Event::Truncated);
            return out;
        }
        let length = u32::from_ne_bytes([stream[at], stream[at + 1], stream[at + 2], stream[at + 3]]) as usize;
        at += 4;
        if length > max {
            out.push(Event::TooLarge(length));
            if stream.len() - at < length {
                out.push(Event::Truncated);
                return out;
            }
            at += length;
            continue;
        }
        if stream.len() - at < length {
            out.push(Event::Truncated);
            return out;
        }
        out.push(Event::Message(stream[at..at + length].to_vec()));
        at += length;
    }
    out
}

fn record(events: &mut Vec<Event>, frame: Incoming, max: usize) {
    match frame {
        Incoming::Message(bytes) => {
            assert!(bytes.len() <= max, "a {}-byte message passed the {max}-byte limit", bytes.len());
            events.push(Event::Message(bytes.to_vec()));
        }
        Incoming::TooLarge(length) => {
            assert!(length > max, "a {length}-byte frame was called too large for a {max}-byte limit");
            events.push(Event::TooLarge(length));
        }
    }
}

/// Answers every method with an error, `echo` with its params: enough to reach every parse path.
struct Probe;
impl Handler for Probe {
    fn handle(&self, request: &Request) -> Answer {
        match request.method.as_str() {
            "echo" => Answer::Now(Ok(request.params.clone())),
            _ => Answer::Now(Err(laika_host::transport::HostError::new("HOST_UNKNOWN_METHOD", "no such method"))),
        }
    }
}

fn check_reply(message: &[u8]) {
    let Reply::Ready(bytes) = answer(message, &Probe) else { panic!("the probe answers at once") };
    assert!(bytes.len() <= MAX_OUTGOING, "a {}-byte reply", bytes.len());
    let reply: Value = serde_json::from_slice(&bytes).expect("replies are JSON");
    assert!(matches!(reply["id"], Value::Null | Value::String(_) | Value::Number(_)), "{reply}");
    match reply.get("error") {
        Some(error) => {
            let code = error["code"].as_str().expect("an error has a code");
            assert!(
                !code.is_empty() && code.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
                "unstable code {code:?}"
            );
        }
        None => assert!(reply.get("result").is_some(), "neither result nor error: {reply}"),
    }
}

fuzz_target!(|data: &[u8]| {
    // Byte 0: the limit (mostly tiny, so oversize frames are common; sometimes the real one).
    // Byte 1: how many chunk-size bytes follow. Then chunk sizes, then the stream.
    if data.len() < 2 {
        return;
    }
    let max = match data[0] {
        255 => MAX_INCOMING,
        b => b as usize * 3,
    };
    let n_sizes = (data[1] as usize).min(data.len() - 2);
    let sizes = &data[2..2 + n_sizes];
    let stream = &data[2 + n_sizes..];

    let mut codec = NativeCodec::new(max);
    let mut buffer = BytesMut::new();
    let mut events = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < stream.len() {
        // A size of 0 is a read that returned nothing new; the decoder is polled anyway. Once the
        // sizes run out, the rest arrives in one read.
        let size = sizes.get(i).map_or(stream.len() - at, |&s| s as usize).min(stream.len() - at);
        i += 1;
        buffer.extend_from_slice(&stream[at..at + size]);
        at += size;
        while let Some(frame) = codec.decode(&mut buffer).expect("decode never fails before the end") {
            record(&mut events, frame, max);
        }
    }
    // End of input, as FramedRead drives it: decode_eof until it says no more.
    loop {
        match codec.decode_eof(&mut buffer) {
            Ok(Some(frame)) => record(&mut events, frame, max),
            Ok(None) => break,
            Err(error) => {
                assert_eq!(error.kind(), std::io::ErrorKind::UnexpectedEof);
                events.push(Event::Truncated);
                break;
            }
        }
    }
    assert_eq!(events, reference(stream, max), "the chunking changed what was read");
    for event in &events {
        if let Event::Message(bytes) = event {
            check_reply(bytes);
        }
    }
});
