//! Malformed native-messaging input to the real `laika-host` process (security suite, part
//! `malformed`).
//!
//! Each case starts the host the way Chromium does (extractive engine, its own data directory)
//! and sends bad bytes: oversize and wrong-endian lengths, truncated frames, invalid UTF-8 and
//! JSON, JSON nested 10,000 deep, a valid message of exactly 64 MiB, an empty frame, JSON that is
//! not a request, requests with no, unknown or mistyped methods, ids and params. Every case must
//! be answered with error replies carrying the expected stable codes (or, where the stream cannot
//! be in step any more, a last error and a clean exit), the process must never panic, overflow
//! its stack or hang, and then:
//! - if the stream is still in step, the same process answers `host.info`;
//! - if it is not (the host is skipping an announced oversize body, or its input ended inside a
//!   frame), closing its input ends it cleanly and a new process on the same data directory
//!   answers `host.info`.
//!
//! Random frames (valid lengths, random bodies: 50, or 2,000 with `LAIKA_SECURITY_SCALE=full`)
//! go through one process, each answered, then `host.info`. With `LAIKA_SECURITY_OUT=DIR` the
//! outcome of every case goes to `DIR/malformed.json`.

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod support;
use support::Rng;

const MAX_INCOMING: usize = 64 * 1024 * 1024;
const MAX_OUTGOING: usize = 1024 * 1024;
/// Longest wait for one reply: a 64 MiB message is parsed in well under this.
const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

use support::frame;

/// What the reader thread saw on the host's stdout.
#[derive(Debug)]
enum Out {
    Reply(Value),
    /// Bytes that are not a well-formed reply frame (too long, not JSON, cut off).
    Garbage(String),
    Closed,
}

/// A running host: stdin to write to, stdout read into a channel of replies, stderr collected.
struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<Out>,
    stderr: Option<JoinHandle<String>>,
}

impl Host {
    fn start(data_dir: &Path) -> Host {
        let mut child = support::host_command(data_dir)
            .arg("chrome-extension://abcdefghijklmnopabcdefghijklmnop/")
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("laika-host starts");
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, replies) = channel();
        std::thread::spawn(move || {
            loop {
                let mut head = [0u8; 4];
                if stdout.read_exact(&mut head).is_err() {
                    let _ = tx.send(Out::Closed);
                    return;
                }
                let length = u32::from_ne_bytes(head) as usize;
                if length > MAX_OUTGOING {
                    let _ = tx.send(Out::Garbage(format!("a {length}-byte reply, over the browser's cap")));
                    return;
                }
                let mut body = vec![0u8; length];
                if stdout.read_exact(&mut body).is_err() {
                    let _ = tx.send(Out::Garbage("a reply cut off".into()));
                    return;
                }
                let out = match serde_json::from_slice(&body) {
                    Ok(value) => Out::Reply(value),
                    Err(e) => Out::Garbage(format!("a reply that is not JSON: {e}")),
                };
                if tx.send(out).is_err() {
                    return;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = stderr.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        });
        Host { stdin: child.stdin.take(), child, replies, stderr: Some(stderr) }
    }

    /// Writes bytes; a host that has stopped reading is not an error here.
    fn send(&mut self, bytes: &[u8]) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(bytes).and_then(|_| stdin.flush());
        }
    }

    fn next(&self, timeout: Duration) -> Result<Out, RecvTimeoutError> {
        self.replies.recv_timeout(timeout)
    }

    /// `host.info` with a fresh id: whether the host answered it correctly.
    fn serves_host_info(&mut self, id: &str) -> bool {
        self.send(&frame(json!({ "id": id, "method": "host.info" }).to_string().as_bytes()));
        matches!(self.next(REPLY_TIMEOUT), Ok(Out::Reply(r)) if r["id"] == id && r["result"]["name"] == "laika-host")
    }

    /// Closes the host's input, collects what it still says, and waits for it to exit (killing it
    /// if it hangs). Returns (the replies after closing, the exit code, stderr, whether it hung).
    fn finish(mut self) -> (Vec<Value>, Option<i32>, String, bool) {
        drop(self.stdin.take());
        let mut late = Vec::new();
        let mut hung = false;
        loop {
            match self.next(REPLY_TIMEOUT) {
                Ok(Out::Reply(reply)) => late.push(reply),
                Ok(Out::Closed) => break,
                Ok(Out::Garbage(what)) => panic!("the host wrote {what}"),
                Err(_) => {
                    hung = true;
                    break;
                }
            }
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                hung = true;
                let _ = self.child.kill();
                break self.child.wait().ok();
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stderr = self.stderr.take().unwrap().join().unwrap_or_default();
        (late, status.and_then(|s| s.code()), stderr, hung)
    }
}

fn code_of(reply: &Value) -> String {
    match reply.get("error") {
        Some(error) => error["code"].as_str().unwrap_or("(no code)").to_string(),
        None if reply.get("result").is_some() => "ok".into(),
        None => "(neither result nor error)".into(),
    }
}

/// A stable code: upper-case words joined by underscores.
fn is_stable_code(code: &str) -> bool {
    code == "ok"
        || (code.len() > 3
            && code.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            && !code.starts_with('_'))
}

struct Case {
    name: &'static str,
    /// Written in order, with a short pause between parts (frames split across reads).
    parts: Vec<Vec<u8>>,
    /// For each reply the case must get at once, the codes it may carry ("ok" for a result).
    replies: Vec<&'static [&'static str]>,
    /// Whether the stream is still in step afterwards (else the host must end when its input does).
    in_sync: bool,
    /// Codes the host may still send once its input is closed (a case that leaves it out of step).
    on_close: &'static [&'static str],
}

fn case(name: &'static str, bytes: Vec<u8>, codes: &'static [&'static str]) -> Case {
    Case { name, parts: vec![bytes], replies: vec![codes], in_sync: true, on_close: &[] }
}

fn request(value: Value) -> Vec<u8> {
    frame(value.to_string().as_bytes())
}

fn nested(depth: usize, open: &str, close: &str, leaf: &str) -> String {
    format!("{}{leaf}{}", open.repeat(depth), close.repeat(depth))
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let oversize_head = |length: u32| length.to_ne_bytes().to_vec();
    // Oversize lengths whose bodies never come: reported at once (not after reading 4 GiB), then
    // the host skips the announced bytes, so the stream is out of step until its input ends.
    for (name, length) in
        [("oversize_0xffffffff", u32::MAX), ("oversize_64mib_plus_1_no_body", MAX_INCOMING as u32 + 1)]
    {
        cases.push(Case {
            name,
            parts: vec![oversize_head(length), frame(br#"{"id": "swallowed", "method": "host.info"}"#)],
            replies: vec![&["NM_FRAME_TOO_LARGE"]],
            in_sync: false,
            on_close: &["NM_TRUNCATED_FRAME"],
        });
    }
    // A big-endian length (a common client bug): 100 reads as 1.6 GB.
    let mut big_endian = 100u32.to_be_bytes().to_vec();
    big_endian.extend(vec![b' '; 100]);
    cases.push(Case {
        name: "big_endian_length",
        parts: vec![big_endian],
        replies: vec![&["NM_FRAME_TOO_LARGE"]],
        in_sync: false,
        on_close: &["NM_TRUNCATED_FRAME"],
    });
    // An oversize frame whose bytes follow in full: skipped, and the stream is back in step.
    let mut skipped = oversize_head(MAX_INCOMING as u32 + 1);
    skipped.extend(vec![b'x'; MAX_INCOMING + 1]);
    cases.push(case("oversize_64mib_plus_1_with_body", skipped, &["NM_FRAME_TOO_LARGE"]));
    // Cut off by the end of input.
    let mut truncated = 100u32.to_ne_bytes().to_vec();
    truncated.extend(b"{\"id\": 1, ");
    cases.push(Case {
        name: "truncated_100_then_10_bytes",
        parts: vec![truncated],
        replies: vec![],
        in_sync: false,
        on_close: &["NM_TRUNCATED_FRAME"],
    });
    cases.push(Case {
        name: "truncated_header",
        parts: vec![vec![7, 0]],
        replies: vec![],
        in_sync: false,
        on_close: &["NM_TRUNCATED_FRAME"],
    });
    // Bodies that are not requests.
    cases.push(case("invalid_utf8", frame(b"{\"id\": 1, \"method\": \"\xff\xfe\xc3\x28\"}"), &["NM_INVALID_UTF8"]));
    cases.push(case("invalid_utf8_overlong", frame(b"\xc0\xaf\xed\xa0\x80"), &["NM_INVALID_UTF8"]));
    cases.push(case("invalid_json", frame(b"{\"id\": 1, \"method\": "), &["NM_INVALID_JSON"]));
    cases.push(case("trailing_garbage", frame(br#"{"id": 1, "method": "host.info"} extra"#), &["NM_INVALID_JSON"]));
    cases.push(case(
        "byte_order_mark",
        frame(b"\xef\xbb\xbf{\"id\": 1, \"method\": \"host.info\"}"),
        &["NM_INVALID_JSON"],
    ));
    cases.push(case("lone_surrogate", frame(br#"{"id": 1, "method": "\ud800"}"#), &["NM_INVALID_JSON"]));
    cases.push(case("number_out_of_range", frame(br#"{"id": 1e400, "method": "host.info"}"#), &["NM_INVALID_JSON"]));
    cases.push(case("zero_length", frame(b""), &["NM_INVALID_JSON"]));
    // Nesting 10,000 deep: refused by the parser's depth limit, not by the stack.
    cases.push(case("deep_array_10000", frame(nested(10_000, "[", "]", "").as_bytes()), &["NM_INVALID_JSON"]));
    cases.push(case("deep_object_10000", frame(nested(10_000, "{\"a\":", "}", "1").as_bytes()), &["NM_INVALID_JSON"]));
    cases.push(case("deep_unclosed_10000", frame("[".repeat(10_000).as_bytes()), &["NM_INVALID_JSON"]));
    cases.push(case(
        "deep_in_params_10000",
        frame(
            format!(
                r#"{{"id": 1, "method": "packet.validate", "params": {{"packet": {}}}}}"#,
                nested(10_000, "[", "]", "")
            )
            .as_bytes(),
        ),
        &["NM_INVALID_JSON"],
    ));
    // As deep as the parser allows, into the methods that walk JSON.
    // (Each blockquote is two levels, an object and its children; the request adds four.)
    let deep_render = (0..60).fold(
        json!({ "type": "text", "text": "leaf" }),
        |inner, _| json!({ "type": "blockquote", "children": [inner] }),
    );
    cases.push(case(
        "deep_render_60_blockquotes",
        request(json!({ "id": 1, "method": "render.sanitize", "params": { "render": { "type": "doc", "children": [deep_render] } } })),
        &["ok"],
    ));
    let deep_packet: Value = serde_json::from_str(&nested(120, "[", "]", "")).unwrap();
    cases.push(case(
        "deep_packet_120_arrays",
        request(json!({ "id": 1, "method": "packet.validate", "params": { "packet": { "protocol": deep_packet } } })),
        &["ok"],
    ));
    // Size limits: exactly the incoming cap is read whole; a reply over the outgoing cap is
    // replaced by an error.
    let mut at_cap = json!({ "id": "big", "method": "host.info", "params": { "filler": "" } }).to_string().into_bytes();
    let filler = "a".repeat(MAX_INCOMING - at_cap.len());
    at_cap = json!({ "id": "big", "method": "host.info", "params": { "filler": filler } }).to_string().into_bytes();
    assert_eq!(at_cap.len(), MAX_INCOMING);
    cases.push(case("valid_64mib_message", frame(&at_cap), &["ok"]));
    let long_text = "lorem ipsum ".repeat(200_000);
    cases.push(case(
        "reply_over_1mib",
        request(json!({ "id": 1, "method": "render.sanitize", "params": { "render": { "type": "doc", "children": [
            { "type": "paragraph", "children": [{ "type": "text", "text": long_text }] }
        ] } } })),
        &["HOST_REPLY_TOO_LARGE"],
    ));
    // JSON that is not a request.
    for (name, body) in [
        ("not_object_array", "[1, 2]"),
        ("not_object_string", "\"host.info\""),
        ("not_object_number", "42"),
        ("not_object_null", "null"),
        ("not_object_bool", "true"),
        ("no_method", r#"{"id": 1}"#),
        ("no_id", r#"{"method": "host.info"}"#),
        ("id_null", r#"{"id": null, "method": "host.info"}"#),
        ("id_array", r#"{"id": [1], "method": "host.info"}"#),
        ("id_object", r#"{"id": {"a": 1}, "method": "host.info"}"#),
        ("id_bool", r#"{"id": true, "method": "host.info"}"#),
        ("method_number", r#"{"id": 1, "method": 5}"#),
        ("method_null", r#"{"id": 1, "method": null}"#),
        ("method_object", r#"{"id": 1, "method": {"name": "host.info"}}"#),
    ] {
        cases.push(case(name, frame(body.as_bytes()), &["NM_INVALID_REQUEST"]));
    }
    for (name, body) in [
        ("unknown_method", r#"{"id": 1, "method": "shell.exec", "params": {"cmd": "rm -rf /"}}"#),
        ("empty_method", r#"{"id": 1, "method": ""}"#),
        ("nul_in_method", r#"{"id": 1, "method": "host.info\u0000"}"#),
        ("method_case", r#"{"id": 1, "method": "HOST.INFO"}"#),
    ] {
        cases.push(case(name, frame(body.as_bytes()), &["HOST_UNKNOWN_METHOD"]));
    }
    // Known methods with params of the wrong shape.
    for (name, body, codes) in [
        ("params_string", r#"{"id": 1, "method": "history.get", "params": "x"}"#, &["HOST_INVALID_PARAMS"][..]),
        ("params_array", r#"{"id": 1, "method": "summary.poll", "params": [1]}"#, &["HOST_INVALID_PARAMS"]),
        (
            "conversation_id_number",
            r#"{"id": 1, "method": "history.get", "params": {"conversation_id": 5}}"#,
            &["HOST_INVALID_PARAMS"],
        ),
        ("job_id_array", r#"{"id": 1, "method": "summary.poll", "params": {"job_id": []}}"#, &["HOST_INVALID_PARAMS"]),
        (
            "unknown_job",
            r#"{"id": 1, "method": "summary.poll", "params": {"job_id": "nope", "cursor": 18446744073709551615}}"#,
            &["SUMMARY_NOT_FOUND"],
        ),
        (
            "plan_observation_number",
            r#"{"id": 1, "method": "plan", "params": {"goal": "x", "observation": 5}}"#,
            &["HOST_INVALID_PARAMS"],
        ),
        (
            "plan_goal_object",
            r#"{"id": 1, "method": "plan", "params": {"goal": {}, "observation": {}}}"#,
            &["HOST_INVALID_PARAMS"],
        ),
        (
            "plan_tabs_string",
            r#"{"id": 1, "method": "plan", "params": {"goal": "x", "observation": {"url": "", "title": "", "text": ""}, "tabs": "all"}}"#,
            &["HOST_INVALID_PARAMS"],
        ),
        (
            "summary_observation_string",
            r#"{"id": 1, "method": "summary.start", "params": {"observation": "page"}}"#,
            &["HOST_INVALID_PARAMS"],
        ),
        (
            "tool_result_step_negative",
            r#"{"id": 1, "method": "tool.result", "params": {"run_id": "r", "conversation_id": "c", "step": -1, "name": "browser.click", "call_id": "k", "ok": true}}"#,
            &["HOST_INVALID_PARAMS"],
        ),
        (
            "tool_result_ok_string",
            r#"{"id": 1, "method": "tool.result", "params": {"run_id": "r", "conversation_id": "c", "step": 1, "name": "browser.click", "call_id": "k", "ok": "yes"}}"#,
            &["HOST_INVALID_PARAMS"],
        ),
        (
            "approval_bad_decision",
            r#"{"id": 1, "method": "approval.decide", "params": {"approval_id": "a", "decision": "maybe"}}"#,
            &["HOST_INVALID_PARAMS"],
        ),
        (
            "approval_unknown",
            r#"{"id": 1, "method": "approval.decide", "params": {"approval_id": "a", "decision": "approve"}}"#,
            &["APPROVAL_NOT_FOUND"],
        ),
        (
            "config_wrong_type",
            r#"{"id": 1, "method": "config.set", "params": {"key": "max_steps", "value": "many"}}"#,
            &["CONFIG_INVALID"],
        ),
        (
            "config_deep_value",
            r#"{"id": 1, "method": "config.set", "params": {"key": "engine", "value": [[[[[["x"]]]]]]}}"#,
            &["CONFIG_INVALID"],
        ),
        ("render_missing", r#"{"id": 1, "method": "render.sanitize", "params": {}}"#, &["HOST_INVALID_PARAMS"]),
        (
            "packet_null",
            r#"{"id": 1, "method": "packet.validate", "params": {"packet": null}}"#,
            &["HOST_INVALID_PARAMS"],
        ),
        (
            "history_list_wrong_types",
            r#"{"id": 1, "method": "history.list", "params": {"limit": "all", "offset": -5}}"#,
            &["ok"],
        ),
        (
            "history_list_huge",
            r#"{"id": 1, "method": "history.list", "params": {"limit": 18446744073709551615, "offset": 18446744073709551615}}"#,
            &["ok"],
        ),
    ] {
        cases.push(case(name, frame(body.as_bytes()), codes));
    }
    // Framing that is fine but arrives awkwardly.
    let good = frame(br#"{"id": "split", "method": "host.info"}"#);
    cases.push(Case {
        name: "header_and_body_split_across_writes",
        parts: vec![good[..1].to_vec(), good[1..3].to_vec(), good[3..10].to_vec(), good[10..].to_vec()],
        replies: vec![&["ok"]],
        in_sync: true,
        on_close: &[],
    });
    let mut two = frame(br#"{"id": 1, "method": "nope"}"#);
    two.extend(frame(br#"{"id": 2, "method": "host.info"}"#));
    cases.push(Case {
        name: "two_frames_in_one_write",
        parts: vec![two],
        replies: vec![&["HOST_UNKNOWN_METHOD"], &["ok"]],
        in_sync: true,
        on_close: &[],
    });
    cases
}

fn data_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("laika-malformed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), r#"{"engine": "extractive"}"#).unwrap();
    dir
}

fn crashed(stderr: &str) -> bool {
    stderr.contains("panicked") || stderr.contains("stack overflow") || stderr.contains("overflowed its stack")
}

/// A random value of the shapes requests carry, keyed with the API's parameter names.
fn random_value(rng: &mut Rng, depth: u32) -> Value {
    const KEYS: &[&str] = &[
        "goal",
        "observation",
        "tabs",
        "conversation_id",
        "run_id",
        "step",
        "call_id",
        "name",
        "ok",
        "result",
        "error",
        "approval_id",
        "decision",
        "question",
        "job_id",
        "cursor",
        "limit",
        "offset",
        "packet",
        "render",
        "url",
        "title",
        "text",
        "elements",
        "type",
        "children",
    ];
    const STRINGS: &[&str] = &["", "x", "laika-1", "https://example.com/", "approve", "doc", "text", "é✓", "\u{0}"];
    match rng.next() % if depth > 3 { 5 } else { 7 } {
        0 => Value::Null,
        1 => json!(rng.next().is_multiple_of(2)),
        2 => json!(rng.next() as i64),
        3 => json!(f64::from_bits(rng.next()).clamp(-1e300, 1e300)),
        4 => json!(STRINGS[(rng.next() % STRINGS.len() as u64) as usize]),
        5 => Value::Array((0..rng.next() % 4).map(|_| random_value(rng, depth + 1)).collect()),
        _ => Value::Object(
            (0..rng.next() % 5)
                .map(|_| (KEYS[(rng.next() % KEYS.len() as u64) as usize].to_string(), random_value(rng, depth + 1)))
                .collect(),
        ),
    }
}

/// A random body: bytes, JSON-ish text from request fragments, or a well-formed request to a
/// real method (not `config.set`, which could point the engine at a server) with random params.
fn random_body(rng: &mut Rng) -> Vec<u8> {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"id\"",
        "\"method\"",
        "\"params\"",
        "\"host.info\"",
        "\"plan\"",
        "\"summary.poll\"",
        "\"history.get\"",
        "\"tool.result\"",
        "1",
        "-1",
        "1e999",
        "null",
        "true",
        "\"\\u0000\"",
        "\"\\ud800\"",
        "\"x\"",
        " ",
        "\u{feff}",
        "\"conversation_id\"",
        "\"observation\"",
    ];
    let length = (rng.next() % 200) as usize;
    match rng.next() % 3 {
        0 => (0..length).map(|_| rng.next() as u8).collect(),
        1 => {
            let mut text = String::new();
            for _ in 0..length / 4 {
                text.push_str(PIECES[(rng.next() % PIECES.len() as u64) as usize]);
            }
            text.into_bytes()
        }
        _ => {
            // The host's own methods (but config.set, which would persist random settings) and
            // one it does not have.
            let methods: Vec<&str> =
                laika_host::api::METHODS.iter().copied().filter(|m| *m != "config.set").chain(["nope"]).collect();
            let method = methods[(rng.next() % methods.len() as u64) as usize];
            json!({ "id": rng.next() % 1000, "method": method, "params": random_value(rng, 0) })
                .to_string()
                .into_bytes()
        }
    }
}

#[test]
fn malformed_frames_get_stable_errors_and_never_take_the_host_down() {
    let full = std::env::var("LAIKA_SECURITY_SCALE").is_ok_and(|s| s == "full");
    let dir = data_dir();
    let mut results = Vec::new();
    let mut failures = Vec::new();
    for case in cases() {
        let started = Instant::now();
        let mut host = Host::start(&dir);
        for (i, part) in case.parts.iter().enumerate() {
            if i > 0 {
                std::thread::sleep(Duration::from_millis(30));
            }
            host.send(part);
        }
        let mut outcome = Vec::new();
        let mut hung = false;
        for allowed in &case.replies {
            match host.next(REPLY_TIMEOUT) {
                Ok(Out::Reply(reply)) => {
                    let code = code_of(&reply);
                    if !allowed.contains(&code.as_str()) || !is_stable_code(&code) {
                        failures.push(format!("{}: got {code} ({reply}), expected one of {allowed:?}", case.name));
                    }
                    outcome.push(code);
                }
                Ok(Out::Closed) => {
                    failures.push(format!("{}: the host closed instead of answering", case.name));
                    outcome.push("closed".into());
                    break;
                }
                Ok(Out::Garbage(what)) => {
                    failures.push(format!("{}: the host wrote {what}", case.name));
                    break;
                }
                Err(_) => {
                    failures.push(format!("{}: no reply within {REPLY_TIMEOUT:?}", case.name));
                    hung = true;
                    break;
                }
            }
        }
        let same_process_served = (case.in_sync && !hung).then(|| host.serves_host_info("next"));
        if same_process_served == Some(false) {
            failures.push(format!("{}: the same process did not answer host.info afterwards", case.name));
        }
        let (late, exit_code, stderr, hung_at_end) = host.finish();
        hung |= hung_at_end;
        let late_codes: Vec<String> = late.iter().map(code_of).collect();
        for code in &late_codes {
            if !case.on_close.contains(&code.as_str()) {
                failures.push(format!("{}: after closing its input the host said {code}", case.name));
            }
        }
        if !case.in_sync && late_codes.is_empty() && !case.on_close.is_empty() {
            failures.push(format!("{}: no last error before the end", case.name));
        }
        if exit_code != Some(0) || hung {
            failures.push(format!("{}: exit code {exit_code:?}, hung: {hung}; stderr: {stderr}", case.name));
        }
        if crashed(&stderr) {
            failures.push(format!("{}: the host crashed: {stderr}", case.name));
        }
        let new_process_served = (!case.in_sync).then(|| {
            let mut fresh = Host::start(&dir);
            let served = fresh.serves_host_info("fresh");
            let (_, code, stderr, hung) = fresh.finish();
            served && code == Some(0) && !hung && !crashed(&stderr)
        });
        if new_process_served == Some(false) {
            failures.push(format!("{}: a new process on the same data directory did not serve", case.name));
        }
        outcome.extend(late_codes.iter().map(|c| format!("{c} (after close)")));
        results.push(json!({
            "case": case.name,
            "bytes_sent": case.parts.iter().map(Vec::len).sum::<usize>(),
            "outcome": outcome,
            "stream_in_sync": case.in_sync,
            "closed": !case.in_sync,
            "same_process_served_next": same_process_served,
            "new_process_served": new_process_served,
            "exit_code": exit_code,
            "panicked": crashed(&stderr),
            "hung": hung,
            "ms": started.elapsed().as_secs_f64() * 1000.0,
        }));
    }

    // Random frames through one process: each gets one reply, then host.info.
    let random_frames = if full { 2_000 } else { 50 };
    let started = Instant::now();
    let mut rng = Rng(0x0001_a1ca_5eed);
    let mut host = Host::start(&dir);
    let mut random_codes = std::collections::BTreeMap::<String, u64>::new();
    let mut random_failures = 0;
    for i in 0..random_frames {
        host.send(&frame(&random_body(&mut rng)));
        match host.next(REPLY_TIMEOUT) {
            Ok(Out::Reply(reply)) => {
                let code = code_of(&reply);
                if !is_stable_code(&code) {
                    random_failures += 1;
                    failures.push(format!("random frame {i}: code {code:?}"));
                }
                *random_codes.entry(code).or_default() += 1;
            }
            other => {
                random_failures += 1;
                failures.push(format!("random frame {i}: {other:?}"));
                break;
            }
        }
    }
    let served = host.serves_host_info("after-random");
    let (_, exit_code, stderr, hung) = host.finish();
    if !served || exit_code != Some(0) || hung || crashed(&stderr) {
        failures.push(format!("random frames: served {served}, exit {exit_code:?}, hung {hung}, stderr {stderr}"));
    }
    results.push(json!({
        "case": "random_frames",
        "frames": random_frames,
        "outcome": random_codes,
        "stream_in_sync": true,
        "closed": false,
        "same_process_served_next": served,
        "new_process_served": null,
        "exit_code": exit_code,
        "panicked": crashed(&stderr),
        "hung": hung,
        "failures": random_failures,
        "ms": started.elapsed().as_secs_f64() * 1000.0,
    }));

    let report = json!({
        "part": "malformed",
        "scale": if full { "full" } else { "ci" },
        "cases": results.len(),
        "failures": failures.len(),
        "panics": results.iter().filter(|r| r["panicked"] == true).count(),
        "hangs": results.iter().filter(|r| r["hung"] == true).count(),
        "results": results,
    });
    write_report("malformed", &report);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// `$LAIKA_SECURITY_OUT/<part>.json`, when the suite collects results.
fn write_report(part: &str, report: &Value) {
    let Some(dir) = std::env::var_os("LAIKA_SECURITY_OUT") else { return };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("create LAIKA_SECURITY_OUT");
    std::fs::write(dir.join(format!("{part}.json")), serde_json::to_string_pretty(report).unwrap())
        .expect("write the security report");
}
