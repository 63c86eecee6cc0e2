//! One negative test per rule of laika.llmcp v1: break exactly one rule of a valid packet and
//! the validator names it with its stable code (and at the right place).

use laika_shared::Code;
use laika_shared::packet::{self, Packet};
use serde_json::{Value, json};

fn request() -> Value {
    json!({
        "protocol": { "name": "laika.llmcp", "version": 1 },
        "id": "req-1",
        "type": "request",
        "created_at": "2026-01-24T12:34:56.789Z",
        "conversation": { "id": "c-1", "turn": 1 },
        "sender": { "role": "agent" },
        "trace": { "run_id": "run-1", "step": 3 },
        "input": {
            "user_message": { "id": "u-1", "text": "summarize this page" },
            "task": { "name": "web.summarize", "args": { "style": "concise" } }
        },
        "context": { "documents": [
            { "doc_id": "doc:web:summary", "kind": "web.observation.summary.v1", "trust": "untrusted",
              "source": { "browser": "chromium", "tab_id": "7" },
              "content": { "doc_type": "web.observation.summary.v1", "url": "https://example.com", "title": "Example",
                           "text": "H1: Example", "elements": [{ "handle_id": "laika-1", "role": "button", "text": "Go" }] } },
            { "doc_id": "doc:web:chunk:1", "kind": "web.observation.chunk.v1", "trust": "untrusted",
              "content": { "doc_type": "web.observation.chunk.v1", "url": "https://example.com", "title": "Example",
                           "chunk_index": 1, "chunk_count": 2, "text": "first" } },
            { "doc_id": "doc:web:chunk:2", "kind": "web.observation.chunk.v1", "trust": "untrusted",
              "content": { "doc_type": "web.observation.chunk.v1", "url": "https://example.com", "title": "Example",
                           "chunk_index": 2, "chunk_count": 2, "text": "second" } }
        ] },
        "output": { "format": "json" }
    })
}

fn response() -> Value {
    json!({
        "protocol": { "name": "laika.llmcp", "version": 1 },
        "id": "res-1",
        "type": "response",
        "created_at": "2026-01-24T12:34:57.123Z",
        "conversation": { "id": "c-1", "turn": 1 },
        "sender": { "role": "assistant" },
        "in_reply_to": { "request_id": "req-1" },
        "assistant": {
            "title": "Summary",
            "render": { "type": "doc", "children": [
                { "type": "paragraph", "children": [
                    { "type": "text", "text": "An example page. " },
                    { "type": "link", "href": "https://example.com", "children": [{ "type": "text", "text": "Source" }] }
                ] }
            ] },
            "citations": [{ "doc_id": "doc:web:summary", "node_id": "n:1", "handle_id": "laika-1", "quote": "Example" }]
        },
        "tool_calls": [{ "name": "browser.click", "arguments": { "handleId": "laika-1" } }]
    })
}

/// Applies `edit` to a copy of `base` and returns the codes the validator reports (and paths).
fn broken(base: fn() -> Value, edit: impl FnOnce(&mut Value)) -> Vec<(Code, String)> {
    let mut value = base();
    edit(&mut value);
    packet::validate(&value).into_iter().map(|v| (v.code, v.path)).collect()
}

/// Sets (or adds) the value at `pointer`.
fn set(value: &mut Value, pointer: &str, new: Value) {
    if let Some(slot) = value.pointer_mut(pointer) {
        *slot = new;
        return;
    }
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let parent = value.pointer_mut(parent).and_then(Value::as_object_mut).unwrap_or_else(|| panic!("no {parent}"));
    parent.insert(key.to_string(), new);
}

fn remove(value: &mut Value, pointer: &str) {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    value.pointer_mut(parent).and_then(Value::as_object_mut).unwrap().remove(key).unwrap();
}

/// For breaks whose consequences are reported too: the first violation is the broken rule.
fn assert_first(found: Vec<(Code, String)>, code: Code, path: &str) {
    assert_eq!(found.first(), Some(&(code, path.to_string())), "expected {code} at {path} first: {found:?}");
}

fn assert_only(found: Vec<(Code, String)>, code: Code, path: &str) {
    assert_eq!(found, vec![(code, path.to_string())], "expected exactly {code} at {path}");
}

#[test]
fn the_bases_are_valid() {
    assert_eq!(packet::validate(&request()), vec![]);
    assert_eq!(packet::validate(&response()), vec![]);
    let Ok(Packet::Request(req)) = packet::packet_from_value(&request()) else { panic!() };
    let Ok(Packet::Response(res)) = packet::packet_from_value(&response()) else { panic!() };
    assert_eq!(res.validate_against(&req), vec![]);
}

#[test]
fn envelope_rules() {
    assert_only(
        broken(request, |v| set(v, "/protocol/name", json!("other"))),
        Code::UnsupportedProtocol,
        "/protocol/name",
    );
    assert_only(
        broken(request, |v| set(v, "/protocol/version", json!(2))),
        Code::UnsupportedVersion,
        "/protocol/version",
    );
    assert_only(
        broken(request, |v| set(v, "/protocol/version", json!("1"))),
        Code::InvalidEnvelope,
        "/protocol/version",
    );
    assert_only(broken(request, |v| remove(v, "/protocol")), Code::InvalidEnvelope, "/protocol");
    assert_only(broken(request, |v| remove(v, "/id")), Code::InvalidEnvelope, "/id");
    assert_only(broken(request, |v| set(v, "/id", json!(""))), Code::EmptyId, "/id");
    assert_only(broken(request, |v| set(v, "/type", json!("event"))), Code::InvalidType, "/type");
    assert_only(broken(request, |v| remove(v, "/created_at")), Code::InvalidEnvelope, "/created_at");
    for bad_time in ["yesterday", "2026-01-24 12:34:56", "2026-01-24T12:34:56+02:00", "2026-13-24T12:34:56Z"] {
        assert_only(broken(request, |v| set(v, "/created_at", json!(bad_time))), Code::InvalidTimestamp, "/created_at");
    }
    assert_only(broken(request, |v| remove(v, "/conversation")), Code::InvalidEnvelope, "/conversation");
    assert_only(broken(request, |v| set(v, "/conversation/id", json!(" "))), Code::EmptyId, "/conversation/id");
    assert_only(broken(request, |v| set(v, "/conversation/turn", json!(-1))), Code::InvalidTurn, "/conversation/turn");
    assert_only(broken(request, |v| set(v, "/conversation/turn", json!(1.5))), Code::InvalidTurn, "/conversation/turn");
    assert_only(broken(request, |v| remove(v, "/sender")), Code::InvalidEnvelope, "/sender");
    assert_only(broken(request, |v| set(v, "/sender/role", json!("admin"))), Code::InvalidRole, "/sender/role");
    assert_only(broken(request, |v| set(v, "/sender/role", json!("assistant"))), Code::RoleMismatch, "/sender/role");
    assert_only(broken(response, |v| set(v, "/sender/role", json!("agent"))), Code::RoleMismatch, "/sender/role");
    assert_only(broken(request, |v| set(v, "/trace", json!({ "run_id": 5 }))), Code::InvalidTrace, "/trace");
    let not_object = packet::validate(&json!([1, 2]));
    assert_eq!(not_object[0].code, Code::NotObject);
    let unparsable = packet::parse_packet("{ nope").unwrap_err();
    assert_eq!(unparsable[0].code, Code::ParseFailed);
}

#[test]
fn request_rules() {
    assert_only(broken(request, |v| remove(v, "/input")), Code::MissingInput, "/input");
    assert_only(broken(request, |v| set(v, "/input", json!({}))), Code::MissingInput, "/input");
    assert_only(
        broken(request, |v| set(v, "/input/user_message", json!({ "text": "hi" }))),
        Code::InvalidUserMessage,
        "/input/user_message",
    );
    assert_only(
        broken(request, |v| set(v, "/input/task/name", json!("web.hack"))),
        Code::UnknownTask,
        "/input/task/name",
    );
    assert_only(broken(request, |v| set(v, "/input/task/name", json!(3))), Code::InvalidTask, "/input/task/name");
    assert_only(broken(request, |v| set(v, "/input/task/args", json!("x"))), Code::InvalidTask, "/input/task/args");
    assert_only(broken(request, |v| set(v, "/context", json!({}))), Code::MissingContext, "/context/documents");
    assert_only(broken(request, |v| set(v, "/context", json!([]))), Code::MissingContext, "/context");
    assert_only(broken(request, |v| remove(v, "/output")), Code::InvalidOutputFormat, "/output/format");
    assert_only(
        broken(request, |v| set(v, "/output/format", json!("markdown"))),
        Code::InvalidOutputFormat,
        "/output/format",
    );
}

#[test]
fn document_rules() {
    let doc = "/context/documents/0";
    assert_only(
        broken(request, |v| remove(v, &format!("{doc}/doc_id"))),
        Code::InvalidDocument,
        &format!("{doc}/doc_id"),
    );
    assert_only(
        broken(request, |v| set(v, "/context/documents/1/doc_id", json!("doc:web:summary"))),
        Code::DuplicateDocId,
        "/context/documents/1/doc_id",
    );
    // Without a known summary kind, the chunks also lack their summary document.
    assert_first(
        broken(request, |v| set(v, &format!("{doc}/kind"), json!("web.dom.full.v9"))),
        Code::UnknownDocumentKind,
        &format!("{doc}/kind"),
    );
    assert_only(
        broken(request, |v| remove(v, &format!("{doc}/trust"))),
        Code::InvalidDocument,
        &format!("{doc}/trust"),
    );
    assert_only(
        broken(request, |v| set(v, &format!("{doc}/trust"), json!("maybe"))),
        Code::InvalidTrust,
        &format!("{doc}/trust"),
    );
    assert_only(
        broken(request, |v| set(v, &format!("{doc}/trust"), json!("trusted"))),
        Code::UntrustedRequired,
        &format!("{doc}/trust"),
    );
    assert_only(
        broken(request, |v| set(v, &format!("{doc}/source"), json!({ "tab_id": 7 }))),
        Code::InvalidDocument,
        &format!("{doc}/source"),
    );
    assert_only(
        broken(request, |v| set(v, &format!("{doc}/content"), json!("text"))),
        Code::InvalidDocument,
        &format!("{doc}/content"),
    );
    assert_only(
        broken(request, |v| set(v, &format!("{doc}/content/doc_type"), json!("web.observation.chunk.v1"))),
        Code::DocTypeMismatch,
        &format!("{doc}/content/doc_type"),
    );
    assert_only(
        broken(request, |v| remove(v, &format!("{doc}/content/url"))),
        Code::InvalidDocumentContent,
        &format!("{doc}/content"),
    );
    assert_only(
        broken(request, |v| set(v, &format!("{doc}/content/signals"), json!(["free_lunch"]))),
        Code::InvalidDocumentContent,
        &format!("{doc}/content"),
    );
}

#[test]
fn chunk_rules() {
    // Out of order.
    let found = broken(request, |v| {
        let docs = v.pointer_mut("/context/documents").and_then(Value::as_array_mut).unwrap();
        docs.swap(1, 2);
    });
    assert!(found.iter().all(|(c, _)| *c == Code::BadChunkOrder) && found.len() == 2, "{found:?}");
    // 0-based.
    let found = broken(request, |v| {
        set(v, "/context/documents/1/content/chunk_index", json!(0));
        set(v, "/context/documents/2/content/chunk_index", json!(1));
    });
    assert!(found.iter().all(|(c, _)| *c == Code::BadChunkOrder) && !found.is_empty(), "{found:?}");
    // A repeat.
    assert_only(
        broken(request, |v| set(v, "/context/documents/2/content/chunk_index", json!(1))),
        Code::BadChunkOrder,
        "/context/documents/2/content/chunk_index",
    );
    // Count disagrees with the documents present.
    let found = broken(request, |v| {
        set(v, "/context/documents/1/content/chunk_count", json!(3));
        set(v, "/context/documents/2/content/chunk_count", json!(3));
    });
    assert_eq!(found.iter().map(|(c, _)| *c).collect::<Vec<_>>(), [Code::BadChunkCount, Code::BadChunkCount]);
    // Chunks without the summary they extend.
    let found = broken(request, |v| {
        v.pointer_mut("/context/documents").and_then(Value::as_array_mut).unwrap().remove(0);
    });
    assert_eq!(found, vec![(Code::ChunkWithoutSummary, "/context/documents".to_string())]);
}

#[test]
fn response_rules() {
    assert_only(broken(response, |v| remove(v, "/in_reply_to")), Code::MissingInReplyTo, "/in_reply_to/request_id");
    assert_only(broken(response, |v| remove(v, "/assistant")), Code::MissingAssistant, "/assistant");
    assert_only(broken(response, |v| remove(v, "/assistant/render")), Code::MissingAssistant, "/assistant/render");
    assert_only(broken(response, |v| set(v, "/assistant/title", json!(["x"]))), Code::InvalidTitle, "/assistant/title");
    assert_only(
        broken(response, |v| set(v, "/assistant/citations", json!({}))),
        Code::InvalidCitation,
        "/assistant/citations",
    );
    assert_only(
        broken(response, |v| remove(v, "/assistant/citations/0/doc_id")),
        Code::InvalidCitation,
        "/assistant/citations/0/doc_id",
    );
    assert_only(
        broken(response, |v| set(v, "/assistant/citations/0/quote", json!(5))),
        Code::InvalidCitation,
        "/assistant/citations/0/quote",
    );
    assert_only(
        broken(response, |v| set(v, "/assistant/citations/0/quote", json!("x".repeat(501)))),
        Code::CitationQuoteTooLong,
        "/assistant/citations/0/quote",
    );
    assert_only(broken(response, |v| set(v, "/tool_calls", json!({}))), Code::ToolCallsNotArray, "/tool_calls");
    assert_only(broken(response, |v| set(v, "/tool_calls", json!("click"))), Code::ToolCallsNotArray, "/tool_calls");
    assert_only(broken(response, |v| set(v, "/tool_calls/0", json!(["x"]))), Code::InvalidToolCall, "/tool_calls/0");
    assert_only(
        broken(response, |v| set(v, "/tool_calls/0/name", json!("os.exec"))),
        Code::UnknownTool,
        "/tool_calls/0/name",
    );
    assert_only(
        broken(response, |v| set(v, "/tool_calls/0/arguments", json!({ "handleId": "laika-1", "x": 1 }))),
        Code::ToolArgsInvalid,
        "/tool_calls/0/arguments",
    );
    assert_only(
        broken(response, |v| {
            set(
                v,
                "/tool_calls/0",
                json!({ "name": "app.calculate", "arguments": { "expression": "1", "precision": 9 } }),
            )
        }),
        Code::ToolArgOutOfRange,
        "/tool_calls/0/arguments/precision",
    );
}

#[test]
fn render_rules_inside_a_response() {
    // The unknown node is reported as well as the missing doc root.
    assert_first(
        broken(response, |v| set(v, "/assistant/render", json!({ "type": "html", "html": "<b>x</b>" }))),
        Code::RenderNotDoc,
        "/assistant/render",
    );
    let found = broken(response, |v| {
        set(v, "/assistant/render/children/0/children/0", json!({ "type": "strong", "text": "x" }))
    });
    assert_eq!(found[0].0, Code::RenderUnknownNode, "{found:?}");
    assert_eq!(found[0].1, "/assistant/render/children/0/children/0");
    let found =
        broken(response, |v| set(v, "/assistant/render/children/0/children/1/href", json!("javascript:alert(1)")));
    assert_eq!(found[0].0, Code::RenderBadLink, "{found:?}");
    let found = broken(response, |v| {
        set(v, "/assistant/render/children/0", json!({ "type": "heading", "level": 9, "children": [] }))
    });
    assert_eq!(found[0].0, Code::RenderInvalidField, "{found:?}");
}

#[test]
fn rules_that_need_the_request() {
    let Ok(Packet::Request(req)) = packet::packet_from_value(&request()) else { panic!() };
    let answer = |edit: fn(&mut Value)| {
        let mut value = response();
        edit(&mut value);
        let Ok(Packet::Response(res)) = packet::packet_from_value(&value) else { panic!("response must stay valid") };
        res.validate_against(&req).into_iter().map(|v| (v.code, v.path)).collect::<Vec<_>>()
    };
    assert_only(
        answer(|v| set(v, "/in_reply_to/request_id", json!("req-9"))),
        Code::ReplyMismatch,
        "/in_reply_to/request_id",
    );
    assert_only(answer(|v| set(v, "/conversation/id", json!("c-9"))), Code::ReplyMismatch, "/conversation/id");
    assert_only(
        answer(|v| set(v, "/assistant/citations/0/doc_id", json!("doc:web:9"))),
        Code::CitationUnknownDoc,
        "/assistant/citations/0/doc_id",
    );
    assert_only(
        answer(|v| set(v, "/tool_calls/0/arguments/handleId", json!("laika-77"))),
        Code::ToolUnknownHandle,
        "/tool_calls/0/arguments/handleId",
    );
}

#[test]
fn every_violation_is_reported_in_one_pass() {
    let mut value = request();
    set(&mut value, "/protocol/version", json!(9));
    set(&mut value, "/created_at", json!("noon"));
    set(&mut value, "/input/task/name", json!("web.nope"));
    set(&mut value, "/output/format", json!("xml"));
    let codes: Vec<Code> = packet::validate(&value).into_iter().map(|v| v.code).collect();
    assert_eq!(codes, [Code::UnsupportedVersion, Code::InvalidTimestamp, Code::UnknownTask, Code::InvalidOutputFormat]);
}
