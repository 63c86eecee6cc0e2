//! laika.llmcp v1 packets: the envelope, requests and responses, and their validation.
//!
//! Validation works on the JSON value, not on the typed form, so that one pass reports every
//! broken rule of the text (a typed decode stops at the first). [`parse_packet`] is the one way
//! in from bytes: parse JSON → [`validate`] → typed [`Packet`].

use crate::codes::{Code, Violation, pointer};
use crate::observation::{CollectionIndex, CollectionSource, Observation, ObservationChunk};
use crate::render::Doc;
use crate::tools::RawToolCall;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashSet;

pub const PROTOCOL_NAME: &str = "laika.llmcp";
pub const PROTOCOL_VERSION: u32 = 1;
/// Citations carry short quotes, not copies of the page.
pub const MAX_QUOTE_CHARS: usize = 500;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protocol {
    pub name: String,
    pub version: u32,
}

impl Default for Protocol {
    fn default() -> Self {
        Protocol { name: PROTOCOL_NAME.into(), version: PROTOCOL_VERSION }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PacketType {
    Request,
    Response,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationRef {
    pub id: String,
    pub turn: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// User-authored text (UI → agent core).
    User,
    /// Agent core → model requests.
    Agent,
    /// Model → agent core responses.
    Assistant,
    /// Tool results.
    Tool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sender {
    pub role: Role,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    pub run_id: String,
    pub step: u64,
}

/// The fields every packet carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    pub protocol: Protocol,
    pub id: String,
    #[serde(rename = "type")]
    pub packet_type: PacketType,
    pub created_at: String,
    pub conversation: ConversationRef,
    pub sender: Sender,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserMessage {
    pub id: String,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TaskName {
    #[serde(rename = "web.summarize")]
    Summarize,
    #[serde(rename = "web.extract")]
    Extract,
    #[serde(rename = "web.answer")]
    Answer,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub name: TaskName,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub args: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Input {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message: Option<UserMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Task>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DocumentKind {
    #[serde(rename = "web.observation.summary.v1")]
    ObservationSummary,
    #[serde(rename = "web.observation.chunk.v1")]
    ObservationChunk,
    #[serde(rename = "collection.index.v1")]
    CollectionIndex,
    #[serde(rename = "collection.source.v1")]
    CollectionSource,
}

impl DocumentKind {
    pub const ALL: [DocumentKind; 4] = [
        DocumentKind::ObservationSummary,
        DocumentKind::ObservationChunk,
        DocumentKind::CollectionIndex,
        DocumentKind::CollectionSource,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::ObservationSummary => "web.observation.summary.v1",
            DocumentKind::ObservationChunk => "web.observation.chunk.v1",
            DocumentKind::CollectionIndex => "collection.index.v1",
            DocumentKind::CollectionSource => "collection.source.v1",
        }
    }

    pub fn parse(text: &str) -> Option<DocumentKind> {
        DocumentKind::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    /// Every v1 kind is derived from web content, so every v1 kind must be sent untrusted.
    pub fn requires_untrusted(self) -> bool {
        true
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    Trusted,
    Untrusted,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DocumentSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<String>,
}

/// One context document. `content` stays JSON here; [`Document::content`] gives the typed form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub doc_id: String,
    pub kind: DocumentKind,
    pub trust: Trust,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<DocumentSource>,
    pub content: Value,
}

/// The typed content of a context document.
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentContent {
    ObservationSummary(Observation),
    ObservationChunk(ObservationChunk),
    CollectionIndex(CollectionIndex),
    CollectionSource(CollectionSource),
}

impl Document {
    pub fn content(&self) -> Result<DocumentContent, Violation> {
        decode_content(self.kind, &self.content, "/content")
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Context {
    #[serde(default)]
    pub documents: Vec<Document>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    #[default]
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Output {
    pub format: OutputFormat,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    #[serde(flatten)]
    pub envelope: Envelope,
    pub input: Input,
    #[serde(default)]
    pub context: Context,
    pub output: Output,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InReplyTo {
    pub request_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    pub doc_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assistant {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub render: Doc,
    #[serde(default)]
    pub citations: Vec<Citation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    #[serde(flatten)]
    pub envelope: Envelope,
    pub in_reply_to: InReplyTo,
    pub assistant: Assistant,
    /// Proposals only: every one goes through the Policy Gate.
    #[serde(default)]
    pub tool_calls: Vec<RawToolCall>,
}

/// A validated packet.
#[derive(Debug, Clone, PartialEq)]
pub enum Packet {
    Request(Request),
    Response(Response),
}

impl Packet {
    pub fn envelope(&self) -> &Envelope {
        match self {
            Packet::Request(r) => &r.envelope,
            Packet::Response(r) => &r.envelope,
        }
    }

    pub fn to_value(&self) -> Value {
        let value = match self {
            Packet::Request(r) => serde_json::to_value(r),
            Packet::Response(r) => serde_json::to_value(r),
        };
        value.unwrap_or(Value::Null)
    }
}

impl Serialize for Packet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Packet::Request(r) => r.serialize(serializer),
            Packet::Response(r) => r.serialize(serializer),
        }
    }
}

impl Request {
    /// Every broken rule of the text, or none.
    pub fn validate(&self) -> Vec<Violation> {
        serde_json::to_value(self).map(|v| validate(&v)).unwrap_or_default()
    }

    /// The observation summary document, if the request carries one.
    pub fn observation(&self) -> Option<Observation> {
        self.context.documents.iter().filter(|d| d.kind == DocumentKind::ObservationSummary).find_map(|d| {
            match d.content() {
                Ok(DocumentContent::ObservationSummary(o)) => Some(o),
                _ => None,
            }
        })
    }
}

impl Response {
    pub fn validate(&self) -> Vec<Violation> {
        serde_json::to_value(self).map(|v| validate(&v)).unwrap_or_default()
    }

    /// Rules that need the request being answered: reply id, conversation, cited documents, and
    /// tool-call handles (which must come from the request's observation).
    pub fn validate_against(&self, request: &Request) -> Vec<Violation> {
        let mut out = Vec::new();
        if self.in_reply_to.request_id != request.envelope.id {
            out.push(Violation::new(
                Code::ReplyMismatch,
                "/in_reply_to/request_id",
                format!("answers {:?} but the request is {:?}", self.in_reply_to.request_id, request.envelope.id),
            ));
        }
        if self.envelope.conversation.id != request.envelope.conversation.id {
            out.push(Violation::new(
                Code::ReplyMismatch,
                "/conversation/id",
                "the response belongs to another conversation",
            ));
        }
        let doc_ids: HashSet<&str> = request.context.documents.iter().map(|d| d.doc_id.as_str()).collect();
        for (i, citation) in self.assistant.citations.iter().enumerate() {
            if !doc_ids.contains(citation.doc_id.as_str()) {
                out.push(Violation::new(
                    Code::CitationUnknownDoc,
                    format!("/assistant/citations/{i}/doc_id"),
                    format!("{:?} is not a document of the request", citation.doc_id),
                ));
            }
        }
        let observation = request.observation().unwrap_or_default();
        for (i, raw) in self.tool_calls.iter().enumerate() {
            if let Ok(call) = raw.to_typed()
                && let Err(mut v) = call.check_handle(&observation)
            {
                v.path = format!("/tool_calls/{i}{}", v.path);
                out.push(v);
            }
        }
        out
    }
}

/// Parses and validates one packet from JSON text.
pub fn parse_packet(text: &str) -> Result<Packet, Vec<Violation>> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| vec![Violation::new(Code::ParseFailed, "", e.to_string())])?;
    packet_from_value(&value)
}

/// Validates a JSON value and returns the typed packet.
pub fn packet_from_value(value: &Value) -> Result<Packet, Vec<Violation>> {
    let violations = validate(value);
    if !violations.is_empty() {
        return Err(violations);
    }
    let decoded = match value.get("type").and_then(Value::as_str) {
        Some("request") => decode::<Request>(value).map(Packet::Request),
        _ => decode::<Response>(value).map(Packet::Response),
    };
    decoded.map_err(|v| vec![v])
}

fn decode<T: DeserializeOwned>(value: &Value) -> Result<T, Violation> {
    // Validation has run, so a failure here means validation missed a rule: report, never panic.
    serde_json::from_value(value.clone()).map_err(|e| Violation::new(Code::InvalidEnvelope, "", e.to_string()))
}

/// Every broken rule of laika.llmcp v1 in `value`, checked as a request or a response by its
/// `type`. An empty list means the packet is valid.
pub fn validate(value: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    let Some(object) = value.as_object() else {
        out.push(Violation::new(Code::NotObject, "", "a packet must be a JSON object"));
        return out;
    };
    let packet_type = check_envelope(object, &mut out);
    match packet_type {
        Some(PacketType::Request) => check_request(object, &mut out),
        Some(PacketType::Response) => check_response(object, &mut out),
        None => {}
    }
    out
}

/// Checks only the envelope fields (for packets whose body is checked elsewhere).
pub fn validate_envelope(value: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    match value.as_object() {
        Some(object) => {
            check_envelope(object, &mut out);
        }
        None => out.push(Violation::new(Code::NotObject, "", "a packet must be a JSON object")),
    }
    out
}

fn check_envelope(object: &Map<String, Value>, out: &mut Vec<Violation>) -> Option<PacketType> {
    match object.get("protocol") {
        Some(Value::Object(protocol)) => {
            match protocol.get("name") {
                Some(Value::String(name)) if name == PROTOCOL_NAME => {}
                Some(Value::String(name)) => out.push(Violation::new(
                    Code::UnsupportedProtocol,
                    "/protocol/name",
                    format!("{name:?} is not {PROTOCOL_NAME:?}"),
                )),
                _ => {
                    out.push(Violation::new(Code::InvalidEnvelope, "/protocol/name", "protocol.name must be a string"))
                }
            }
            match protocol.get("version") {
                Some(Value::Number(n)) if n.as_u64() == Some(u64::from(PROTOCOL_VERSION)) => {}
                Some(Value::Number(n)) if n.is_u64() => out.push(Violation::new(
                    Code::UnsupportedVersion,
                    "/protocol/version",
                    format!("version {n} is not supported; this is version {PROTOCOL_VERSION}"),
                )),
                _ => out.push(Violation::new(
                    Code::InvalidEnvelope,
                    "/protocol/version",
                    "protocol.version must be an integer",
                )),
            }
        }
        _ => out.push(Violation::new(Code::InvalidEnvelope, "/protocol", "protocol must be an object")),
    }

    check_id(object.get("id"), "/id", out);

    let packet_type = match object.get("type") {
        Some(Value::String(t)) if t == "request" => Some(PacketType::Request),
        Some(Value::String(t)) if t == "response" => Some(PacketType::Response),
        Some(Value::String(t)) => {
            out.push(Violation::new(Code::InvalidType, "/type", format!("{t:?} is neither request nor response")));
            None
        }
        _ => {
            out.push(Violation::new(Code::InvalidEnvelope, "/type", "type must be a string"));
            None
        }
    };

    match object.get("created_at") {
        Some(Value::String(ts)) => {
            if !is_utc_timestamp(ts) {
                out.push(Violation::new(
                    Code::InvalidTimestamp,
                    "/created_at",
                    format!("{ts:?} is not an ISO-8601 UTC timestamp"),
                ));
            }
        }
        _ => out.push(Violation::new(Code::InvalidEnvelope, "/created_at", "created_at must be a string")),
    }

    match object.get("conversation") {
        Some(Value::Object(conversation)) => {
            check_id(conversation.get("id"), "/conversation/id", out);
            match conversation.get("turn") {
                Some(Value::Number(n)) if n.is_u64() => {}
                Some(Value::Number(_)) => out.push(Violation::new(
                    Code::InvalidTurn,
                    "/conversation/turn",
                    "turn must be a non-negative integer",
                )),
                _ => out.push(Violation::new(Code::InvalidEnvelope, "/conversation/turn", "turn must be an integer")),
            }
        }
        _ => out.push(Violation::new(Code::InvalidEnvelope, "/conversation", "conversation must be an object")),
    }

    let role = match object.get("sender") {
        Some(Value::Object(sender)) => match sender.get("role") {
            Some(Value::String(role)) => match serde_json::from_value::<Role>(Value::String(role.clone())) {
                Ok(role) => Some(role),
                Err(_) => {
                    out.push(Violation::new(Code::InvalidRole, "/sender/role", format!("{role:?} is not a role")));
                    None
                }
            },
            _ => {
                out.push(Violation::new(Code::InvalidEnvelope, "/sender/role", "sender.role must be a string"));
                None
            }
        },
        _ => {
            out.push(Violation::new(Code::InvalidEnvelope, "/sender", "sender must be an object"));
            None
        }
    };
    match (packet_type, role) {
        (Some(PacketType::Response), Some(role)) if role != Role::Assistant => {
            out.push(Violation::new(Code::RoleMismatch, "/sender/role", "responses are sent by the assistant"))
        }
        (Some(PacketType::Request), Some(Role::Assistant)) => {
            out.push(Violation::new(Code::RoleMismatch, "/sender/role", "the assistant sends responses, not requests"))
        }
        _ => {}
    }

    if let Some(trace) = object.get("trace") {
        let ok = trace
            .as_object()
            .is_some_and(|t| t.get("run_id").is_some_and(Value::is_string) && t.get("step").is_some_and(Value::is_u64));
        if !ok {
            out.push(Violation::new(
                Code::InvalidTrace,
                "/trace",
                "trace must be { run_id: string, step: non-negative integer }",
            ));
        }
    }
    packet_type
}

fn check_id(value: Option<&Value>, path: &str, out: &mut Vec<Violation>) {
    match value {
        Some(Value::String(id)) if !id.trim().is_empty() => {}
        Some(Value::String(_)) => out.push(Violation::new(Code::EmptyId, path, "ids must not be empty")),
        _ => out.push(Violation::new(Code::InvalidEnvelope, path, "ids must be strings")),
    }
}

/// RFC 3339 (the ISO-8601 profile the text's examples use), in UTC, written with `Z`.
pub fn is_utc_timestamp(text: &str) -> bool {
    text.ends_with('Z') && time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).is_ok()
}

fn check_request(object: &Map<String, Value>, out: &mut Vec<Violation>) {
    match object.get("input") {
        Some(Value::Object(input)) => {
            let user_message = input.get("user_message");
            let task = input.get("task");
            if user_message.is_none() && task.is_none() {
                out.push(Violation::new(Code::MissingInput, "/input", "input needs a user_message or a task"));
            }
            if let Some(message) = user_message {
                let ok = message.as_object().is_some_and(|m| {
                    m.get("id").is_some_and(Value::is_string) && m.get("text").is_some_and(Value::is_string)
                });
                if !ok {
                    out.push(Violation::new(
                        Code::InvalidUserMessage,
                        "/input/user_message",
                        "user_message must be { id: string, text: string }",
                    ));
                }
            }
            if let Some(task) = task {
                check_task(task, out);
            }
        }
        _ => out.push(Violation::new(Code::MissingInput, "/input", "a request needs an input object")),
    }

    match object.get("context") {
        None => {}
        Some(Value::Object(context)) => match context.get("documents") {
            Some(Value::Array(documents)) => check_documents(documents, out),
            _ => out.push(Violation::new(Code::MissingContext, "/context/documents", "documents must be an array")),
        },
        Some(_) => out.push(Violation::new(Code::MissingContext, "/context", "context must be an object")),
    }

    let format = object.get("output").and_then(|o| o.get("format")).and_then(Value::as_str);
    if format != Some("json") {
        out.push(Violation::new(Code::InvalidOutputFormat, "/output/format", "output.format must be \"json\""));
    }
}

fn check_task(task: &Value, out: &mut Vec<Violation>) {
    let Some(task) = task.as_object() else {
        out.push(Violation::new(Code::InvalidTask, "/input/task", "task must be an object"));
        return;
    };
    match task.get("name") {
        Some(Value::String(name)) => {
            if serde_json::from_value::<TaskName>(Value::String(name.clone())).is_err() {
                out.push(Violation::new(Code::UnknownTask, "/input/task/name", format!("{name:?} is not a v1 task")));
            }
        }
        _ => out.push(Violation::new(Code::InvalidTask, "/input/task/name", "task.name must be a string")),
    }
    if task.get("args").is_some_and(|a| !a.is_object()) {
        out.push(Violation::new(Code::InvalidTask, "/input/task/args", "task.args must be an object"));
    }
}

fn check_documents(documents: &[Value], out: &mut Vec<Violation>) {
    let mut seen_ids = HashSet::new();
    let mut chunks: Vec<(usize, Option<u64>, Option<u64>)> = Vec::new();
    let mut has_summary = false;

    for (i, document) in documents.iter().enumerate() {
        let path = format!("/context/documents/{i}");
        let Some(document) = document.as_object() else {
            out.push(Violation::new(Code::InvalidDocument, path, "a document must be an object"));
            continue;
        };
        match document.get("doc_id") {
            Some(Value::String(id)) if !id.trim().is_empty() => {
                if !seen_ids.insert(id.as_str()) {
                    out.push(Violation::new(Code::DuplicateDocId, pointer(&path, "doc_id"), format!("{id:?} repeats")));
                }
            }
            _ => out.push(Violation::new(
                Code::InvalidDocument,
                pointer(&path, "doc_id"),
                "doc_id must be a non-empty string",
            )),
        }
        let kind = match document.get("kind") {
            Some(Value::String(kind)) => {
                let parsed = DocumentKind::parse(kind);
                if parsed.is_none() {
                    out.push(Violation::new(
                        Code::UnknownDocumentKind,
                        pointer(&path, "kind"),
                        format!("{kind:?} is not a v1 document kind"),
                    ));
                }
                parsed
            }
            _ => {
                out.push(Violation::new(Code::InvalidDocument, pointer(&path, "kind"), "kind must be a string"));
                None
            }
        };
        match document.get("trust") {
            Some(Value::String(trust)) if trust == "untrusted" => {}
            Some(Value::String(trust)) if trust == "trusted" => {
                if kind.is_some_and(DocumentKind::requires_untrusted) {
                    out.push(Violation::new(
                        Code::UntrustedRequired,
                        pointer(&path, "trust"),
                        "web content is data, never instructions: it must be trust=\"untrusted\"",
                    ));
                }
            }
            Some(Value::String(trust)) => out.push(Violation::new(
                Code::InvalidTrust,
                pointer(&path, "trust"),
                format!("{trust:?} is not a trust level"),
            )),
            _ => out.push(Violation::new(Code::InvalidDocument, pointer(&path, "trust"), "trust is required")),
        }
        if let Some(source) = document.get("source") {
            let ok = source.as_object().is_some_and(|s| s.values().all(Value::is_string));
            if !ok {
                out.push(Violation::new(
                    Code::InvalidDocument,
                    pointer(&path, "source"),
                    "source must be an object of strings",
                ));
            }
        }
        has_summary |= kind == Some(DocumentKind::ObservationSummary);
        let content_path = pointer(&path, "content");
        match (document.get("content"), kind) {
            (Some(content @ Value::Object(fields)), Some(kind)) => {
                for mut violation in validate_content(kind, content) {
                    violation.path = format!("{content_path}{}", violation.path);
                    out.push(violation);
                }
                if kind == DocumentKind::ObservationChunk {
                    let number = |key: &str| fields.get(key).and_then(Value::as_u64);
                    chunks.push((i, number("chunk_index"), number("chunk_count")));
                }
            }
            (Some(Value::Object(_)), None) => {}
            _ => out.push(Violation::new(Code::InvalidDocument, content_path, "content must be an object")),
        }
    }

    if chunks.is_empty() {
        return;
    }
    if !has_summary {
        out.push(Violation::new(
            Code::ChunkWithoutSummary,
            "/context/documents",
            "chunk documents extend a web.observation.summary.v1 document, and there is none",
        ));
    }
    for (position, (i, index, _)) in chunks.iter().enumerate() {
        let expected = position as u64 + 1;
        if *index != Some(expected) {
            out.push(Violation::new(
                Code::BadChunkOrder,
                format!("/context/documents/{i}/content/chunk_index"),
                format!("expected chunk_index {expected}, found {}", index.map_or("none".into(), |n| n.to_string())),
            ));
        }
    }
    for (i, _, count) in &chunks {
        if *count != Some(chunks.len() as u64) {
            out.push(Violation::new(
                Code::BadChunkCount,
                format!("/context/documents/{i}/content/chunk_count"),
                format!("the request carries {} chunk documents", chunks.len()),
            ));
        }
    }
}

/// Checks the content of one context document of `kind`: its `doc_type` and field types.
pub fn validate_content(kind: DocumentKind, content: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    if !content.is_object() {
        out.push(Violation::new(Code::InvalidDocument, "", "content must be an object"));
        return out;
    }
    if let Some(doc_type) = content.get("doc_type")
        && doc_type.as_str() != Some(kind.as_str())
    {
        out.push(Violation::new(
            Code::DocTypeMismatch,
            "/doc_type",
            format!("doc_type {doc_type} does not match kind {}", kind.as_str()),
        ));
    }
    if let Err(violation) = decode_content(kind, content, "") {
        out.push(violation);
    }
    out
}

fn decode_content(kind: DocumentKind, content: &Value, path: &str) -> Result<DocumentContent, Violation> {
    fn typed<T: DeserializeOwned>(content: &Value, path: &str) -> Result<T, Violation> {
        serde_json::from_value(content.clone())
            .map_err(|e| Violation::new(Code::InvalidDocumentContent, path, e.to_string()))
    }
    Ok(match kind {
        DocumentKind::ObservationSummary => DocumentContent::ObservationSummary(typed(content, path)?),
        DocumentKind::ObservationChunk => DocumentContent::ObservationChunk(typed(content, path)?),
        DocumentKind::CollectionIndex => DocumentContent::CollectionIndex(typed(content, path)?),
        DocumentKind::CollectionSource => DocumentContent::CollectionSource(typed(content, path)?),
    })
}

fn check_response(object: &Map<String, Value>, out: &mut Vec<Violation>) {
    let reply_ok = object
        .get("in_reply_to")
        .and_then(|r| r.get("request_id"))
        .and_then(Value::as_str)
        .is_some_and(|id| !id.trim().is_empty());
    if !reply_ok {
        out.push(Violation::new(
            Code::MissingInReplyTo,
            "/in_reply_to/request_id",
            "in_reply_to.request_id is required",
        ));
    }

    match object.get("assistant") {
        Some(Value::Object(assistant)) => {
            if assistant.get("title").is_some_and(|t| !t.is_string()) {
                out.push(Violation::new(Code::InvalidTitle, "/assistant/title", "title must be a string"));
            }
            match assistant.get("render") {
                Some(render) => {
                    for mut violation in crate::render::check(render) {
                        violation.path = format!("/assistant/render{}", violation.path);
                        out.push(violation);
                    }
                }
                None => out.push(Violation::new(
                    Code::MissingAssistant,
                    "/assistant/render",
                    "assistant.render is required",
                )),
            }
            match assistant.get("citations") {
                None => {}
                Some(Value::Array(citations)) => {
                    for (i, citation) in citations.iter().enumerate() {
                        check_citation(citation, &format!("/assistant/citations/{i}"), out);
                    }
                }
                Some(_) => out.push(Violation::new(
                    Code::InvalidCitation,
                    "/assistant/citations",
                    "citations must be an array",
                )),
            }
        }
        _ => out.push(Violation::new(Code::MissingAssistant, "/assistant", "a response needs an assistant object")),
    }

    match object.get("tool_calls") {
        None => {}
        Some(Value::Array(calls)) => {
            for (i, call) in calls.iter().enumerate() {
                let path = format!("/tool_calls/{i}");
                match RawToolCall::from_value(call, &path) {
                    Ok(raw) => {
                        if let Err(violations) = raw.to_typed() {
                            out.extend(violations.into_iter().map(|mut v| {
                                v.path = format!("{path}{}", v.path);
                                v
                            }));
                        }
                    }
                    Err(violation) => out.push(violation),
                }
            }
        }
        Some(_) => out.push(Violation::new(Code::ToolCallsNotArray, "/tool_calls", "tool_calls must be an array")),
    }
}

fn check_citation(citation: &Value, path: &str, out: &mut Vec<Violation>) {
    let Some(citation) = citation.as_object() else {
        out.push(Violation::new(Code::InvalidCitation, path, "a citation must be an object"));
        return;
    };
    if citation.get("doc_id").and_then(Value::as_str).is_none_or(str::is_empty) {
        out.push(Violation::new(Code::InvalidCitation, pointer(path, "doc_id"), "doc_id must be a non-empty string"));
    }
    for key in ["node_id", "handle_id", "quote"] {
        if citation.get(key).is_some_and(|v| !v.is_string()) {
            out.push(Violation::new(Code::InvalidCitation, pointer(path, key), format!("{key} must be a string")));
        }
    }
    if let Some(quote) = citation.get("quote").and_then(Value::as_str)
        && quote.chars().count() > MAX_QUOTE_CHARS
    {
        out.push(Violation::new(
            Code::CitationQuoteTooLong,
            pointer(path, "quote"),
            format!("quotes are at most {MAX_QUOTE_CHARS} characters"),
        ));
    }
}
