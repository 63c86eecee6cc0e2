//! The real `laika-host` binary, started the way Chromium starts it, spoken to in native
//! messaging frames: good requests, malformed frames, and the end of input.

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::process::{Command, Stdio};

mod support;
use support::frame;

/// Runs the host with `args`, writes `input`, closes stdin, and returns its replies and status.
fn session(args: &[&str], input: Vec<u8>) -> (Vec<Value>, Option<i32>) {
    // Each session gets a data directory of its own (history, config), never the user's.
    static SESSIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let data_dir = std::env::temp_dir().join(format!("laika-nm-{}-{n}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_laika-host"))
        .args(args)
        .env("LAIKA_DATA_DIR", &data_dir)
        .env("LAIKA_DAEMON_IDLE_SECS", support::DAEMON_IDLE_SECS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("laika-host starts");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // The host may answer before it has read everything; a closed pipe is not an error here.
        let _ = stdin.write_all(&input);
    });
    let mut output = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut output).unwrap();
    writer.join().unwrap();
    let status = child.wait().unwrap();
    let (frames, rest) = support::split_frames(&output);
    assert!(rest.is_empty(), "trailing bytes after the last reply");
    let replies = frames
        .iter()
        .map(|body| {
            assert!(body.len() <= 1024 * 1024, "a reply over the browser's 1 MiB cap");
            serde_json::from_slice(body).expect("replies are JSON")
        })
        .collect();
    (replies, status.code())
}

#[test]
fn chromium_style_launch_serves_requests_and_survives_malformed_frames() {
    let packet = json!({ "protocol": { "name": "laika.llmcp", "version": 2 } });
    let mut input = Vec::new();
    input.extend(frame(br#"{"id": 1, "method": "host.info"}"#));
    input.extend(frame(b"\xc3\x28 invalid utf-8"));
    input.extend(frame(b"{\"id\": 2, \"method\": "));
    input.extend(frame(
        json!({ "id": 3, "method": "packet.validate", "params": { "packet": packet } }).to_string().as_bytes(),
    ));
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    input.extend(frame(
        format!(r#"{{"id": 4, "method": "packet.validate", "params": {{"packet": {deep}}}}}"#).as_bytes(),
    ));
    input.extend(frame(
        json!({ "id": 5, "method": "render.sanitize", "params": { "render": {
        "type": "doc", "children": [{ "type": "paragraph", "children": [
            { "type": "link", "href": "javascript:alert(1)", "children": [{ "type": "text", "text": "<b>hi</b>" }] }
        ] }]
    } } })
        .to_string()
        .as_bytes(),
    ));
    input.extend(frame(br#"{"id": 6, "method": "plan.everything"}"#));
    input.extend(frame(br#"{"id": 7, "method": "host.info"}"#));
    let (replies, status) = session(&["chrome-extension://abcdefghijklmnopabcdefghijklmnop/"], input);
    assert_eq!(status, Some(0), "end of input is a clean exit");
    let codes: Vec<&str> = replies.iter().map(|r| r["error"]["code"].as_str().unwrap_or("ok")).collect();
    assert_eq!(
        codes,
        ["ok", "NM_INVALID_UTF8", "NM_INVALID_JSON", "ok", "NM_INVALID_JSON", "ok", "HOST_UNKNOWN_METHOD", "ok"]
    );
    assert_eq!(replies[0]["result"]["name"], "laika-host");
    assert_eq!(replies[3]["result"]["valid"], false);
    assert!(replies[3]["result"]["violations"].to_string().contains("LLMCP_UNSUPPORTED_VERSION"));
    let html = replies[5]["result"]["html"].as_str().unwrap();
    assert!(html.contains("&lt;b&gt;hi&lt;/b&gt;") && !html.contains("javascript:"), "{html}");
    assert_eq!(replies[7]["id"], 7, "the host still serves after every bad frame");
}

#[test]
fn oversize_and_truncated_frames_are_answered_and_the_host_exits_cleanly() {
    let mut input = Vec::new();
    // Announces 64 MiB + 1 and sends it: the host skips it and answers the next request.
    input.extend(((64 * 1024 * 1024 + 1) as u32).to_ne_bytes());
    input.extend(vec![b'x'; 64 * 1024 * 1024 + 1]);
    input.extend(frame(br#"{"id": "after", "method": "host.info"}"#));
    // Then a frame cut off by the end of input.
    input.extend(500u32.to_ne_bytes());
    input.extend(b"{\"id\": ");
    let (replies, status) = session(&["native"], input);
    assert_eq!(status, Some(0));
    let codes: Vec<&str> = replies.iter().map(|r| r["error"]["code"].as_str().unwrap_or("ok")).collect();
    assert_eq!(codes, ["NM_FRAME_TOO_LARGE", "ok", "NM_TRUNCATED_FRAME"]);
    assert_eq!(replies[1]["id"], "after");
}

#[test]
fn a_64_mib_message_is_read_whole() {
    let filler = "a".repeat(64 * 1024 * 1024 - 200);
    let request = json!({ "id": 1, "method": "host.info", "params": { "filler": filler } });
    let bytes = request.to_string().into_bytes();
    assert!(bytes.len() <= 64 * 1024 * 1024);
    let (replies, status) = session(&["native"], frame(&bytes));
    assert_eq!(status, Some(0));
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0]["result"]["name"], "laika-host");
}

#[test]
fn firefox_style_launch_is_recognised() {
    let dir = std::env::temp_dir().join(format!("laika-host-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("laika_host.json");
    std::fs::write(&manifest, "{}").unwrap();
    let (replies, status) =
        session(&[manifest.to_str().unwrap(), "laika@laika.example"], frame(br#"{"id": 1, "method": "host.info"}"#));
    assert_eq!(status, Some(0));
    assert_eq!(replies[0]["result"]["name"], "laika-host");
    std::fs::remove_dir_all(&dir).unwrap();
}
