//! Every JSON example in laika-llmcp.md and laika-tools.md parses, validates and round-trips.
//!
//! The examples are read from the protocol texts themselves (`../shared/spec/` beside the
//! checkout, or `LAIKA_SPEC_DIR`), so a new or changed example is tested the day it lands.
//! Schematic examples stand a placeholder `{ "...": "see <Section>" }` where another example
//! goes; the test completes them with that section's example before checking, as the text says.

use laika_shared::packet::{self, DocumentKind, Packet, Request, Response};
use laika_shared::parse::{ModelReply, parse_model_output};
use laika_shared::render::{self, Doc};
use laika_shared::tools::RawToolCall;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::PathBuf;

fn spec_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("LAIKA_SPEC_DIR") {
        return PathBuf::from(dir);
    }
    std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
    )
    .join("../../shared/spec")
}

struct Example {
    file: &'static str,
    line: usize,
    value: Value,
}

fn examples(file: &'static str) -> Vec<Example> {
    let path = spec_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("cannot read {} ({e}); the protocol texts live in ../shared/spec or LAIKA_SPEC_DIR", path.display())
    });
    let mut out = Vec::new();
    let mut block: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        match &mut block {
            None if line.trim() == "```json" => block = Some((n + 1, String::new())),
            Some((start, body)) if line.trim() == "```" => {
                let value = serde_json::from_str(body)
                    .unwrap_or_else(|e| panic!("{file}:{start}: the example is not JSON: {e}"));
                out.push(Example { file, line: *start, value });
                block = None;
            }
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    out
}

/// The example that a placeholder's "see <Section>" names.
fn referenced(all: &[Example], reference: &str) -> Value {
    let kind_of = |e: &Example| e.value.get("doc_type").and_then(Value::as_str).map(str::to_string);
    let found = match reference {
        "see Observation Summary Document" => {
            all.iter().find(|e| kind_of(e).as_deref() == Some("web.observation.summary.v1"))
        }
        "see Observation Chunk Document" => {
            all.iter().find(|e| kind_of(e).as_deref() == Some("web.observation.chunk.v1"))
        }
        "see Laika Document" => all.iter().find(|e| e.value.get("type").and_then(Value::as_str) == Some("doc")),
        other => panic!("unknown placeholder reference {other:?}"),
    };
    found.map(|e| e.value.clone()).unwrap_or_else(|| panic!("no example for {reference:?}"))
}

fn complete(value: &mut Value, all: &[Example]) {
    match value {
        Value::Object(map) => {
            if map.len() == 1
                && let Some(Value::String(reference)) = map.get("...")
            {
                *value = referenced(all, reference);
                return;
            }
            for child in map.values_mut() {
                complete(child, all);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| complete(v, all)),
        _ => {}
    }
    // The chunk example stands alone as "chunk 1 of 3"; completed into a request that carries one
    // chunk document, it is the whole set: chunk_count is the number of chunk docs in the request.
    if let Some(documents) = value.pointer_mut("/context/documents").and_then(Value::as_array_mut) {
        let chunks = documents.iter().filter(|d| d["kind"] == "web.observation.chunk.v1").count();
        for document in documents.iter_mut().filter(|d| d["kind"] == "web.observation.chunk.v1") {
            document["content"]["chunk_count"] = Value::from(chunks);
        }
    }
}

/// typed → JSON → typed gives the same typed value, and the JSON is the example's.
fn round_trip<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(value: &Value, at: &str) -> T {
    let typed: T = serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{at}: does not decode: {e}"));
    let written = serde_json::to_value(&typed).unwrap();
    let again: T = serde_json::from_value(written.clone()).unwrap();
    assert_eq!(typed, again, "{at}: typed round trip differs");
    assert_eq!(&written, value, "{at}: serialised form differs from the example");
    typed
}

#[derive(Debug, PartialEq)]
enum Checked {
    Envelope,
    Request,
    Response,
    Document(DocumentKind),
    Render,
    ToolCall,
    Planner,
}

fn check(example: &Example, all: &[Example]) -> Checked {
    let at = format!("{}:{}", example.file, example.line);
    let mut value = example.value.clone();
    complete(&mut value, all);
    let object = value.as_object().unwrap_or_else(|| panic!("{at}: not an object"));

    if object.contains_key("protocol") {
        if !object.contains_key("input") && !object.contains_key("assistant") {
            assert_eq!(packet::validate_envelope(&value), vec![], "{at}");
            round_trip::<packet::Envelope>(&value, &at);
            return Checked::Envelope;
        }
        assert_eq!(packet::validate(&value), vec![], "{at}");
        let packet = packet::parse_packet(&value.to_string()).unwrap_or_else(|v| panic!("{at}: {v:?}"));
        assert_eq!(packet.to_value(), value, "{at}: packet round trip");
        return match packet {
            Packet::Request(_) => {
                let request: Request = round_trip(&value, &at);
                assert!(request.validate().is_empty(), "{at}");
                Checked::Request
            }
            Packet::Response(_) => {
                let response: Response = round_trip(&value, &at);
                assert!(response.validate().is_empty(), "{at}");
                Checked::Response
            }
        };
    }
    if let Some(doc_type) = object.get("doc_type").and_then(Value::as_str) {
        let kind = DocumentKind::parse(doc_type).unwrap_or_else(|| panic!("{at}: unknown doc_type {doc_type}"));
        assert_eq!(packet::validate_content(kind, &value), vec![], "{at}");
        match kind {
            DocumentKind::ObservationSummary => drop(round_trip::<laika_shared::observation::Observation>(&value, &at)),
            DocumentKind::ObservationChunk => {
                drop(round_trip::<laika_shared::observation::ObservationChunk>(&value, &at))
            }
            DocumentKind::CollectionIndex => {
                drop(round_trip::<laika_shared::observation::CollectionIndex>(&value, &at))
            }
            DocumentKind::CollectionSource => {
                drop(round_trip::<laika_shared::observation::CollectionSource>(&value, &at))
            }
        }
        return Checked::Document(kind);
    }
    if object.get("type").and_then(Value::as_str) == Some("doc") {
        assert_eq!(render::check(&value), vec![], "{at}");
        let doc: Doc = round_trip(&value, &at);
        assert_eq!(render::sanitize(&value).doc, doc, "{at}: sanitising a valid document changes nothing");
        return Checked::Render;
    }
    if object.contains_key("name") {
        let raw = RawToolCall::from_value(&value, "").unwrap_or_else(|v| panic!("{at}: {v}"));
        let typed = raw.to_typed().unwrap_or_else(|v| panic!("{at}: {v:?}"));
        assert_eq!(RawToolCall::from(&typed), raw, "{at}: tool call round trip");
        return Checked::ToolCall;
    }
    if object.contains_key("summary") {
        match parse_model_output(&value.to_string()) {
            Ok(ModelReply::Planner(reply)) => {
                assert!(reply.rejected.is_empty(), "{at}: {:?}", reply.rejected);
                assert_eq!(reply.tool_calls.len(), value["tool_calls"].as_array().map_or(0, Vec::len), "{at}");
            }
            other => panic!("{at}: expected a planner reply, got {other:?}"),
        }
        return Checked::Planner;
    }
    panic!("{at}: an example of a shape this test does not know; teach the test what it is");
}

#[test]
fn every_json_example_of_the_protocol_texts_is_valid() {
    let llmcp = examples("laika-llmcp.md");
    let tools = examples("laika-tools.md");
    let mut checked: Vec<Checked> = Vec::new();
    for example in llmcp.iter().chain(&tools) {
        let all: &[Example] = if example.file == "laika-llmcp.md" { &llmcp } else { &tools };
        checked.push(check(example, all));
    }
    use Checked::*;
    use DocumentKind::*;
    // The texts as they stand: eleven examples in laika-llmcp.md, one in laika-tools.md.
    assert_eq!(
        checked,
        vec![
            Envelope,
            Request,
            Document(ObservationSummary),
            Document(ObservationChunk),
            Document(CollectionIndex),
            Document(CollectionSource),
            Response,
            ToolCall,
            Render,
            Request,
            Response,
            Planner,
        ]
    );
}

#[test]
fn the_abbreviated_exchange_validates_as_a_pair() {
    let llmcp = examples("laika-llmcp.md");
    let packets: Vec<Packet> = llmcp
        .iter()
        .filter(|e| e.value.get("id").is_some_and(|id| id == "req-1" || id == "res-1"))
        .map(|e| packet::packet_from_value(&e.value).unwrap())
        .collect();
    let [Packet::Request(request), Packet::Response(response)] = packets.as_slice() else {
        panic!("expected the req-1 / res-1 pair, got {packets:?}");
    };
    assert_eq!(response.validate_against(request), vec![]);
}
