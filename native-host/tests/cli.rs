//! The real `laika-host` binary, run as a user would run it.

use std::io::Write;
use std::process::{Command, Stdio};

fn host(args: &[&str], stdin: &str) -> (i32, String, String) {
    host_in(None, args, stdin)
}

/// [`host`], with `LAIKA_DATA_DIR` set to `data` when given.
fn host_in(data: Option<&std::path::Path>, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_laika-host"));
    if let Some(data) = data {
        command.env("LAIKA_DATA_DIR", data);
    }
    let mut child = command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("laika-host starts");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const RESPONSE: &str = r#"{
  "protocol": { "name": "laika.llmcp", "version": 1 },
  "id": "res-1", "type": "response", "created_at": "2026-01-24T12:34:57.123Z",
  "conversation": { "id": "c-1", "turn": 1 }, "sender": { "role": "assistant" },
  "in_reply_to": { "request_id": "req-1" },
  "assistant": { "title": "Summary", "render": { "type": "doc", "children": [
    { "type": "paragraph", "children": [ { "type": "text", "text": "<script>alert(1)</script> is text" },
      { "type": "link", "href": "javascript:alert(1)", "children": [ { "type": "text", "text": "click" } ] } ] }
  ] }, "citations": [] },
  "tool_calls": []
}"#;

#[test]
fn validate_reports_every_violation_with_its_code_and_exit_status() {
    let (code, stdout, _) = host(&["validate", "-"], RESPONSE);
    // The javascript: link breaks a render rule.
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("LLMCP_RENDER_BAD_LINK"), "{stdout}");

    let fixed = RESPONSE.replace("javascript:alert(1)", "https://example.com/");
    let (code, stdout, _) = host(&["validate", "-"], &fixed);
    assert_eq!(code, 0, "{stdout}");

    let (code, stdout, _) = host(&["validate", "--json", "-"], "{ not json");
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["valid"], false);
    assert_eq!(report["violations"][0]["code"], "LLMCP_PARSE_FAILED");
}

#[test]
fn render_escapes_text_and_drops_bad_links() {
    let (code, stdout, stderr) = host(&["render", "-"], RESPONSE);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("&lt;script&gt;alert(1)&lt;/script&gt; is text"), "{stdout}");
    assert!(!stdout.contains("javascript:"), "{stdout}");
    assert!(stdout.contains("click"), "the link's words stay: {stdout}");
    assert!(stderr.contains("LLMCP_RENDER_BAD_LINK"), "what was dropped is said: {stderr}");
}

#[test]
fn parse_output_reads_a_chatty_planner_reply() {
    let raw = "<think>hmm</think>Sure!\n```json\n{\"summary\": \"A **cat** page\", \"summaryFormat\": \"markdown\", \
               \"tool_calls\": [{\"name\": \"browser.click\", \"arguments\": {\"handleId\": \"laika-2\"}}, {\"name\": \"rm\"}]}\n```";
    let (code, stdout, stderr) = host(&["parse-output", "-"], raw);
    assert_eq!(code, 0, "{stderr}");
    let out: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["tool_calls"][0]["name"], "browser.click");
    assert_eq!(out["rejected"][0]["violations"][0]["code"], "TOOL_UNKNOWN");
    assert_eq!(out["render"]["children"][0]["children"][0]["text"], "A cat page");
}

#[test]
fn bad_input_is_a_clear_error_not_a_crash() {
    let (code, _, stderr) = host(&["validate", "/nonexistent/packet.json"], "");
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot read /nonexistent/packet.json"), "{stderr}");
    let (code, _, stderr) = host(&["parse-output", "-"], "no json here");
    assert_eq!(code, 2);
    assert!(stderr.contains("LLMCP_NO_JSON_OBJECT"), "{stderr}");
}

#[test]
fn librarian_parse_prints_the_response_or_its_code_and_diagnostics() {
    let response = "Sure.\r\n<librarian_response>\r\n<request_id>req_01</request_id>\r\n<status>ok</status>\r\n<summary>One runbook.</summary>\r\n<operations>\r\n<operation>\r\n<operation_id>op_1</operation_id>\r\n<kind>retag_note</kind>\r\n<target_note_id>note_18</target_note_id>\r\n<title>Outage notes</title>\r\n<body_markdown>- lag > 30 s & <b>replica</b></body_markdown>\r\n<reason>Database topic.</reason>\r\n<confidence>0.7</confidence>\r\n</operation>\r\n</operations>\r\n<warnings></warnings>\r\n</librarian_response>\r\n";
    let (status, stdout, stderr) = host(&["librarian", "parse", "-"], response);
    assert_eq!(status, 0, "{stderr}");
    let parsed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(parsed["operations"][0]["kind"], "retag_note");
    assert_eq!(parsed["operations"][0]["target"]["note_id"], "note_18");
    assert_eq!(parsed["operations"][0]["body_markdown"], "- lag > 30 s & <b>replica</b>");

    let (status, stdout, stderr) = host(&["librarian", "parse", "-", "--fallback-only"], response);
    assert_eq!((status, stdout.as_str()), (2, ""));
    assert!(
        stderr.starts_with("LIBRARIAN_PARSE_FAILED\n- librarian_response/operations/operation[1]/kind"),
        "{stderr}"
    );
    let (status, _, stderr) = host(&["librarian", "parse", "-", "--max-operations", "0"], response);
    assert_eq!(status, 2);
    assert!(stderr.contains("1 operations; at most 0"), "{stderr}");
    let (status, _, stderr) =
        host(&["librarian", "parse", "-", "--strict"], &response.replace("<summary>", "<notes>x</notes><summary>"));
    assert_eq!(status, 2);
    assert!(stderr.starts_with("LIBRARIAN_PROTOCOL_INVALID"), "{stderr}");
}

/// `laika-host collections`, as a user runs it: a collection made, two saved pages captured with
/// the reader, a note added, and each transform printed, every statement a source's own sentence.
#[test]
fn collections_capture_saved_pages_and_transforms_cite_them() {
    let data = std::env::temp_dir().join(format!("laika-cli-collections-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).unwrap();
    let fixtures =
        std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or(env!("CARGO_MANIFEST_DIR").into()))
            .join("../tests/fixtures/pages");
    let run = |args: &[&str], stdin: &str| {
        let (status, out, err) = host_in(Some(&data), args, stdin);
        assert_eq!(status, 0, "{args:?}: {out}{err}");
        out
    };
    assert_eq!(run(&["collections", "create", "Rivers"], ""), "col:1\n");
    let article = fixtures.join("article.html");
    let captured = run(
        &["collections", "capture", "col:1", article.to_str().unwrap(), "--url", "https://river.example/otters"],
        "",
    );
    assert!(captured.starts_with("src:1  How Sea Otters Use Stone Tools"), "{captured}");
    run(
        &["collections", "add-note", "col:1", "-", "--title", "Survey"],
        "The survey on 4 June 2024 counted five otters.",
    );
    let sources = run(&["collections", "sources", "col:1"], "");
    assert_eq!(sources.lines().count(), 2, "{sources}");
    assert!(sources.lines().all(|l| l.contains("captured")), "{sources}");

    let page_text = std::fs::read_to_string(&article).unwrap();
    let briefing = run(&["collections", "transform", "col:1", "briefing"], "");
    assert!(briefing.starts_with("# Briefing: Rivers\n"), "{briefing}");
    let statements: Vec<&str> = briefing.lines().filter(|l| l.starts_with("- ") && l.ends_with("[1]")).collect();
    assert!(!statements.is_empty(), "{briefing}");
    for statement in statements {
        let quote = statement.trim_start_matches("- ").trim_end_matches(" [1]").trim_end_matches('…');
        let first_words: String = quote.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
        assert!(page_text.contains(&first_words), "{quote:?} is not the page's");
    }
    assert!(briefing.contains("1. [How Sea Otters Use Stone Tools"), "{briefing}");
    let timeline = run(&["collections", "transform", "col:1", "timeline"], "");
    assert!(timeline.contains("- **2024-06-04**: The survey on 4 June 2024 counted five otters. [2]"), "{timeline}");
    let (status, _, err) = host_in(Some(&data), &["collections", "transform", "col:9", "briefing"], "");
    assert_ne!(status, 0);
    assert!(err.contains("NOTEBOOK_NOT_FOUND"), "{err}");
    let _ = std::fs::remove_dir_all(&data);
}
