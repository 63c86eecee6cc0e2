//! The Librarian's wire format, `xml_attrless` (`shared/spec/librarian-xml-attrless.md`): the
//! request Laika writes to a model and the response it reads back, both tag-only envelopes.
//!
//! Hand-written rather than an XML crate's: the format is XML-like, not XML. Text fields hold
//! markdown whose `<`, `&` and inline HTML a model writes unescaped, so an XML parser would reject
//! most real answers. Here a text field runs to its own closing tag, and only the envelope's
//! structure is parsed:
//! 1. line endings are normalised to `\n`;
//! 2. [`parse_response`] reads elements from the root down: a container (`librarian_response`,
//!    `operations`, `operation`, `warnings`) holds elements and whitespace only; a text field is
//!    raw text up to its closing tag;
//! 3. a tag with attributes, a closing tag that does not match, text where elements belong or a
//!    missing closing tag is `LIBRARIAN_PROTOCOL_INVALID`; a required tag that is absent or empty,
//!    an unknown status or kind, a confidence outside `[0, 1]`, more operations than allowed, or
//!    (in strict fallback mode) an operation other than `create_note` and `rewrite_note` is
//!    `LIBRARIAN_PARSE_FAILED`. Unknown tags are skipped unless strict, where they are invalid.
//!
//! Every failure carries all the diagnostics found, each naming where it is, so a repair prompt
//! can show the model exactly what to fix.

use serde::Serialize;
use std::fmt;

pub const PROTOCOL: &str = "xml_attrless";
pub const PROTOCOL_INVALID: &str = "LIBRARIAN_PROTOCOL_INVALID";
pub const PARSE_FAILED: &str = "LIBRARIAN_PARSE_FAILED";

/// One source of a request: a note or a captured page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Source {
    pub source_id: String,
    pub title: String,
    pub body_markdown: String,
    pub kind: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Constraints {
    pub strict_mode: bool,
    pub max_operations: usize,
    pub allow_delete: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request {
    pub request_id: String,
    pub goal: String,
    pub scope: String,
    pub sources: Vec<Source>,
    pub taxonomy: Vec<String>,
    pub constraints: Constraints,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    NeedsClarification,
    Rejected,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OperationKind {
    CreateNote,
    RewriteNote,
    RetitleNote,
    RelinkNote,
    RetagNote,
    Defer,
}

impl OperationKind {
    fn parse(text: &str) -> Option<OperationKind> {
        Some(match text {
            "create_note" => OperationKind::CreateNote,
            "rewrite_note" => OperationKind::RewriteNote,
            "retitle_note" => OperationKind::RetitleNote,
            "relink_note" => OperationKind::RelinkNote,
            "retag_note" => OperationKind::RetagNote,
            "defer" => OperationKind::Defer,
            _ => return None,
        })
    }
}

/// What an operation acts on: an existing note, or a path where a new one goes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    NoteId(String),
    Path(String),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Operation {
    pub operation_id: String,
    pub kind: OperationKind,
    pub target: Target,
    pub title: String,
    pub body_markdown: String,
    pub reason: String,
    pub confidence: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Response {
    pub request_id: String,
    pub status: Status,
    pub summary: String,
    pub operations: Vec<Operation>,
    pub warnings: Vec<String>,
}

/// How strictly a response is read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParseOptions {
    /// Unknown tags are errors instead of being skipped.
    pub strict: bool,
    /// More operations than this are refused.
    pub max_operations: usize,
    /// The strict fallback mode: only `create_note` and `rewrite_note` are accepted.
    pub fallback_only: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { strict: false, max_operations: 12, fallback_only: false }
    }
}

/// One thing wrong with a response, and where (a path of tags, `librarian_response/operations/
/// operation[2]/confidence`, or a line number for syntax).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub at: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LibrarianError {
    /// [`PROTOCOL_INVALID`] or [`PARSE_FAILED`].
    pub code: &'static str,
    pub diagnostics: Vec<Diagnostic>,
}

impl fmt::Display for LibrarianError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code)?;
        for d in &self.diagnostics {
            write!(f, "\n- {}: {}", d.at, d.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for LibrarianError {}

// ---------------------------------------------------------------------------------------------
// Writing a request.

/// A text field's content: its closing tag cannot occur inside it (a source that quotes
/// `</body_markdown>` would end the field early), so it is written `<\/body_markdown>`, which
/// the parser turns back.
fn escape_field(text: &str, tag: &str) -> String {
    text.replace(&format!("</{tag}>"), &format!("<\\/{tag}>"))
}

fn field(out: &mut String, tag: &str, text: &str) {
    out.push('<');
    out.push_str(tag);
    out.push('>');
    out.push_str(&escape_field(&normalise(text), tag));
    out.push_str("</");
    out.push_str(tag);
    out.push_str(">\n");
}

/// The request envelope, exactly as the text writes it: one tag per line, the root first.
pub fn write_request(request: &Request) -> String {
    let mut out = String::from("<librarian_request>\n");
    field(&mut out, "request_id", &request.request_id);
    field(&mut out, "goal", &request.goal);
    field(&mut out, "scope", &request.scope);
    out.push_str("<source_bundle>\n");
    for source in &request.sources {
        out.push_str("<source>\n");
        field(&mut out, "source_id", &source.source_id);
        field(&mut out, "title", &source.title);
        field(&mut out, "body_markdown", &source.body_markdown);
        field(&mut out, "kind", &source.kind);
        out.push_str("</source>\n");
    }
    out.push_str("</source_bundle>\n<taxonomy>\n");
    for topic in &request.taxonomy {
        field(&mut out, "topic", topic);
    }
    out.push_str("</taxonomy>\n<constraints>\n");
    let c = &request.constraints;
    field(&mut out, "strict_mode", if c.strict_mode { "true" } else { "false" });
    field(&mut out, "max_operations", &c.max_operations.to_string());
    field(&mut out, "allow_delete", if c.allow_delete { "true" } else { "false" });
    out.push_str("</constraints>\n");
    field(&mut out, "output_contract", PROTOCOL);
    out.push_str("</librarian_request>\n");
    out
}

// ---------------------------------------------------------------------------------------------
// Reading a response.

fn normalise(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// The tags that hold other tags; every other tag holds text.
const CONTAINERS: &[&str] = &["librarian_response", "operations", "operation", "warnings"];

/// The tags each container knows (others are unknown: skipped, or refused when strict).
fn known_children(container: &str) -> &'static [&'static str] {
    match container {
        "librarian_response" => &["request_id", "status", "summary", "operations", "warnings"],
        "operations" => &["operation"],
        "operation" => {
            &["operation_id", "kind", "target_note_id", "target_path", "title", "body_markdown", "reason", "confidence"]
        }
        "warnings" => &["warning"],
        _ => &[],
    }
}

/// An element as read: its name and either its text or its children.
#[derive(Debug)]
struct Element {
    name: String,
    text: String,
    children: Vec<Element>,
}

impl Element {
    fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
    strict: bool,
    problems: Vec<Diagnostic>,
}

/// A tag as written: `<name>` or `</name>`, or something tag-like with attributes.
enum Tag {
    Open(String),
    Close(String),
}

impl<'a> Reader<'a> {
    fn line(&self, at: usize) -> usize {
        self.text[..at.min(self.text.len())].matches('\n').count() + 1
    }

    fn invalid(&mut self, at: usize, message: impl Into<String>) {
        let at = format!("line {}", self.line(at));
        self.problems.push(Diagnostic { at, message: message.into() });
    }

    /// Skips whitespace; reads the tag at the cursor if there is one.
    fn tag(&mut self) -> Option<Result<Tag, ()>> {
        let rest = &self.text[self.at..];
        let trimmed = rest.trim_start();
        self.at += rest.len() - trimmed.len();
        if !trimmed.starts_with('<') {
            return None;
        }
        let Some(end) = trimmed.find('>') else {
            let at = self.at;
            self.invalid(at, "a tag is not closed with '>'");
            return Some(Err(()));
        };
        let inner = &trimmed[1..end];
        let (closing, name) = match inner.strip_prefix('/') {
            Some(name) => (true, name),
            None => (false, inner),
        };
        let start = self.at;
        self.at += end + 1;
        let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !plain {
            let (tag_name, attributes) = name.split_once(char::is_whitespace).unwrap_or((name, ""));
            let message = if !attributes.trim().is_empty() {
                format!("<{tag_name}> has attributes ({}); tags carry none", attributes.trim())
            } else {
                format!("<{inner}> is not a tag of the protocol (lower-case letters, digits and _)")
            };
            self.invalid(start, message);
            return Some(Err(()));
        }
        Some(Ok(if closing { Tag::Close(name.to_string()) } else { Tag::Open(name.to_string()) }))
    }

    /// The raw text of field `name` up to its closing tag (the cursor just after `<name>`).
    fn text_until_close(&mut self, name: &str) -> Result<String, ()> {
        let close = format!("</{name}>");
        let rest = &self.text[self.at..];
        match rest.find(&close) {
            Some(end) => {
                let text = rest[..end].replace(&format!("<\\/{name}>"), &close);
                self.at += end + close.len();
                Ok(text.trim().to_string())
            }
            None => {
                let at = self.at;
                self.invalid(at, format!("<{name}> is never closed"));
                Err(())
            }
        }
    }

    /// The element whose `<name>` was just read: a container's children, or a field's text.
    fn element(&mut self, name: &str, depth: usize) -> Result<Element, ()> {
        if !CONTAINERS.contains(&name) {
            let text = self.text_until_close(name)?;
            return Ok(Element { name: name.to_string(), text, children: vec![] });
        }
        let mut children = Vec::new();
        loop {
            let before = self.at;
            match self.tag() {
                None if self.at >= self.text.len() => {
                    self.invalid(before, format!("<{name}> is never closed"));
                    return Err(());
                }
                None => {
                    let at = self.at;
                    let stray: String = self.text[at..].chars().take(30).collect();
                    self.invalid(at, format!("text {stray:?} inside <{name}>, which holds tags only"));
                    return Err(());
                }
                Some(Err(())) => return Err(()),
                Some(Ok(Tag::Close(closed))) if closed == name => break,
                Some(Ok(Tag::Close(closed))) => {
                    self.invalid(before, format!("</{closed}> closes <{name}>"));
                    return Err(());
                }
                Some(Ok(Tag::Open(child))) => {
                    if depth > 8 {
                        self.invalid(before, "tags nested deeper than the protocol's");
                        return Err(());
                    }
                    let known = known_children(name).contains(&child.as_str());
                    if !known && self.strict {
                        self.invalid(before, format!("<{child}> is not a tag of <{name}> (strict mode)"));
                        return Err(());
                    }
                    // An unknown tag's content is skipped whole, as text.
                    let element = if known { self.element(&child, depth + 1)? } else { self.unknown(&child)? };
                    if known {
                        children.push(element);
                    }
                }
            }
        }
        Ok(Element { name: name.to_string(), text: String::new(), children })
    }

    fn unknown(&mut self, name: &str) -> Result<Element, ()> {
        self.text_until_close(name).map(|text| Element { name: name.to_string(), text, children: vec![] })
    }
}

/// Reads a model's response. `Err` carries the code and every diagnostic found.
pub fn parse_response(raw: &str, options: &ParseOptions) -> Result<Response, LibrarianError> {
    let text = normalise(raw);
    let mut reader = Reader { text: &text, at: 0, strict: options.strict, problems: vec![] };
    let protocol = |problems: Vec<Diagnostic>| LibrarianError { code: PROTOCOL_INVALID, diagnostics: problems };
    // Prose before the root (a model's preamble) is not part of the envelope: the root is found.
    let Some(start) = text.find("<librarian_response") else {
        return Err(LibrarianError {
            code: PARSE_FAILED,
            diagnostics: vec![Diagnostic {
                at: "librarian_response".into(),
                message: "no <librarian_response> root".into(),
            }],
        });
    };
    reader.at = start;
    let root = match reader.tag() {
        Some(Ok(Tag::Open(name))) if name == "librarian_response" => reader.element(&name, 0),
        _ => Err(()),
    };
    let root = match root {
        Ok(root) => root,
        Err(()) => return Err(protocol(reader.problems)),
    };
    let mut problems = Vec::new();
    let mut need = |parent: &Element, path: &str, tag: &str| -> Option<String> {
        match parent.child(tag) {
            Some(found) if !found.text.is_empty() || CONTAINERS.contains(&tag) => Some(found.text.clone()),
            Some(_) => {
                problems.push(Diagnostic { at: format!("{path}/{tag}"), message: format!("<{tag}> is empty") });
                None
            }
            None => {
                problems.push(Diagnostic { at: path.to_string(), message: format!("<{tag}> is missing") });
                None
            }
        }
    };
    let path = "librarian_response";
    let request_id = need(&root, path, "request_id");
    let status_text = need(&root, path, "status");
    let summary = need(&root, path, "summary");
    need(&root, path, "operations");
    need(&root, path, "warnings");
    let status = status_text.as_deref().and_then(|s| match s {
        "ok" => Some(Status::Ok),
        "needs_clarification" => Some(Status::NeedsClarification),
        "rejected" => Some(Status::Rejected),
        other => {
            problems.push(Diagnostic {
                at: format!("{path}/status"),
                message: format!("status {other:?} is not ok, needs_clarification or rejected"),
            });
            None
        }
    });
    let listed: Vec<&Element> = root
        .child("operations")
        .map(|o| o.children.iter().filter(|c| c.name == "operation").collect())
        .unwrap_or_default();
    if listed.len() > options.max_operations {
        problems.push(Diagnostic {
            at: format!("{path}/operations"),
            message: format!("{} operations; at most {} are allowed", listed.len(), options.max_operations),
        });
    }
    let mut operations = Vec::new();
    for (i, op) in listed.iter().enumerate() {
        let at = format!("{path}/operations/operation[{}]", i + 1);
        let mut need = |tag: &str| match op.child(tag).map(|c| c.text.clone()).filter(|t| !t.is_empty()) {
            Some(text) => Some(text),
            None => {
                problems.push(Diagnostic { at: at.clone(), message: format!("<{tag}> is missing or empty") });
                None
            }
        };
        let operation_id = need("operation_id");
        let kind_text = need("kind");
        let title = need("title");
        let body_markdown = need("body_markdown");
        let reason = need("reason");
        let confidence_text = need("confidence");
        let target = match (op.child("target_note_id"), op.child("target_path")) {
            (Some(id), _) if !id.text.is_empty() => Some(Target::NoteId(id.text.clone())),
            (_, Some(path)) if !path.text.is_empty() => Some(Target::Path(path.text.clone())),
            _ => {
                problems.push(Diagnostic {
                    at: at.clone(),
                    message: "<target_note_id> or <target_path> is missing or empty".into(),
                });
                None
            }
        };
        let kind = kind_text.as_deref().and_then(|k| match OperationKind::parse(k) {
            Some(kind)
                if options.fallback_only && !matches!(kind, OperationKind::CreateNote | OperationKind::RewriteNote) =>
            {
                problems.push(Diagnostic {
                    at: format!("{at}/kind"),
                    message: format!("{k} is not accepted in strict fallback mode (create_note, rewrite_note only)"),
                });
                None
            }
            Some(kind) => Some(kind),
            None => {
                problems
                    .push(Diagnostic { at: format!("{at}/kind"), message: format!("{k:?} is not an operation kind") });
                None
            }
        });
        let confidence = confidence_text.as_deref().and_then(|c| match decimal(c) {
            Some(value) if (0.0..=1.0).contains(&value) => Some(value),
            _ => {
                problems.push(Diagnostic {
                    at: format!("{at}/confidence"),
                    message: format!("confidence {c:?} is not a decimal in [0, 1]"),
                });
                None
            }
        });
        if let (
            Some(operation_id),
            Some(kind),
            Some(target),
            Some(title),
            Some(body_markdown),
            Some(reason),
            Some(confidence),
        ) = (operation_id, kind, target, title, body_markdown, reason, confidence)
        {
            operations.push(Operation { operation_id, kind, target, title, body_markdown, reason, confidence });
        }
    }
    let warnings: Vec<String> = match root.child("warnings") {
        Some(w) => w.children.iter().map(|c| c.text.clone()).filter(|t| !t.is_empty()).collect(),
        None => vec![],
    };
    if !problems.is_empty() {
        return Err(LibrarianError { code: PARSE_FAILED, diagnostics: problems });
    }
    match (request_id, status, summary) {
        (Some(request_id), Some(status), Some(summary)) => {
            Ok(Response { request_id, status, summary, operations, warnings })
        }
        // Each missing piece was diagnosed above.
        _ => Err(LibrarianError { code: PARSE_FAILED, diagnostics: vec![] }),
    }
}

/// A plain decimal (`0`, `0.85`, `1.0`, `.5`): digits with at most one point, no sign, exponent
/// or words, so "high" or "1e-1" are refused rather than guessed.
fn decimal(text: &str) -> Option<f64> {
    let t = text.trim();
    let digits = t.chars().filter(|c| c.is_ascii_digit()).count();
    let points = t.chars().filter(|&c| c == '.').count();
    if digits == 0 || points > 1 || digits + points != t.chars().count() {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(operations: &str) -> String {
        format!(
            "<librarian_response>\n<request_id>req_01</request_id>\n<status>ok</status>\n<summary>Two notes.</summary>\n<operations>\n{operations}</operations>\n<warnings>\n<warning>One source was short.</warning>\n</warnings>\n</librarian_response>\n"
        )
    }

    fn operation(kind: &str, confidence: &str) -> String {
        format!(
            "<operation>\n<operation_id>op_1</operation_id>\n<kind>{kind}</kind>\n<target_path>runbooks/db.md</target_path>\n<title>Database runbook</title>\n<body_markdown>- Restart <b>replica</b> & check `a < b`\n</body_markdown>\n<reason>Groups outage notes.</reason>\n<confidence>{confidence}</confidence>\n</operation>\n"
        )
    }

    fn codes(raw: &str, options: &ParseOptions) -> (&'static str, Vec<String>) {
        let error = parse_response(raw, options).unwrap_err();
        (error.code, error.diagnostics.iter().map(|d| format!("{}: {}", d.at, d.message)).collect())
    }

    #[test]
    fn a_well_formed_response_is_read_whole_with_markdown_left_as_written() {
        let parsed = parse_response(&response(&operation("create_note", "0.85")), &ParseOptions::default()).unwrap();
        assert_eq!(parsed.request_id, "req_01");
        assert_eq!(parsed.status, Status::Ok);
        assert_eq!(parsed.warnings, ["One source was short."]);
        let op = &parsed.operations[0];
        assert_eq!((op.kind, op.confidence), (OperationKind::CreateNote, 0.85));
        assert_eq!(op.target, Target::Path("runbooks/db.md".into()));
        assert_eq!(op.body_markdown, "- Restart <b>replica</b> & check `a < b`");
    }

    #[test]
    fn line_endings_are_normalised_and_a_preamble_is_not_the_envelope() {
        let crlf = format!("Sure! Here it is:\r\n{}", response(&operation("rewrite_note", "1")).replace('\n', "\r\n"));
        let parsed = parse_response(&crlf, &ParseOptions::default()).unwrap();
        assert!(!parsed.operations[0].body_markdown.contains('\r'));
        assert_eq!(parsed.operations[0].confidence, 1.0);
    }

    #[test]
    fn attributes_are_rejected() {
        let raw = response(&operation("create_note", "0.5")).replace("<operation>", "<operation id=\"1\">");
        let (code, diagnostics) = codes(&raw, &ParseOptions::default());
        assert_eq!(code, PROTOCOL_INVALID);
        assert!(diagnostics[0].contains("<operation> has attributes (id=\"1\")"), "{diagnostics:?}");
    }

    #[test]
    fn malformed_nesting_is_protocol_invalid() {
        for broken in [
            response(&operation("create_note", "0.5"))
                .replace("</operation>\n</operations>", "</operations>\n</operation>"),
            response(&operation("create_note", "0.5")).replace("</librarian_response>\n", ""),
            response(&operation("create_note", "0.5")).replace("</title>", ""),
            response("stray words\n"),
        ] {
            assert_eq!(codes(&broken, &ParseOptions::default()).0, PROTOCOL_INVALID, "{broken}");
        }
    }

    #[test]
    fn missing_required_tags_fail_the_parse_and_say_which() {
        let raw = response(&operation("create_note", "0.5"))
            .replace("<summary>Two notes.</summary>\n", "")
            .replace("<reason>Groups outage notes.</reason>\n", "");
        let (code, diagnostics) = codes(&raw, &ParseOptions::default());
        assert_eq!(code, PARSE_FAILED);
        assert_eq!(
            diagnostics,
            [
                "librarian_response: <summary> is missing",
                "librarian_response/operations/operation[1]: <reason> is missing or empty"
            ]
        );
        assert_eq!(codes("no envelope at all", &ParseOptions::default()).0, PARSE_FAILED);
    }

    #[test]
    fn confidence_is_a_decimal_in_zero_to_one() {
        for bad in ["1.2", "-0.1", "high", "1e-1", "0.5.1", ""] {
            let (code, diagnostics) = codes(&response(&operation("create_note", bad)), &ParseOptions::default());
            assert_eq!(code, PARSE_FAILED, "{bad}: {diagnostics:?}");
        }
        for good in ["0", "0.0", "1.0", ".5", "0.999"] {
            assert!(
                parse_response(&response(&operation("create_note", good)), &ParseOptions::default()).is_ok(),
                "{good}"
            );
        }
    }

    #[test]
    fn too_many_operations_are_refused() {
        let three = operation("create_note", "0.5").repeat(3);
        let options = ParseOptions { max_operations: 2, ..ParseOptions::default() };
        let (code, diagnostics) = codes(&response(&three), &options);
        assert_eq!(code, PARSE_FAILED);
        assert!(diagnostics[0].contains("3 operations; at most 2"), "{diagnostics:?}");
    }

    #[test]
    fn unknown_tags_are_skipped_unless_strict() {
        let raw = response(&operation("create_note", "0.5"))
            .replace("<summary>", "<thinking>I should <b>group</b> them.</thinking>\n<summary>");
        assert!(parse_response(&raw, &ParseOptions::default()).is_ok());
        let (code, diagnostics) = codes(&raw, &ParseOptions { strict: true, ..ParseOptions::default() });
        assert_eq!(code, PROTOCOL_INVALID);
        assert!(diagnostics[0].contains("<thinking> is not a tag of <librarian_response>"), "{diagnostics:?}");
    }

    #[test]
    fn strict_fallback_mode_accepts_only_create_and_rewrite() {
        let fallback = ParseOptions { fallback_only: true, ..ParseOptions::default() };
        for kind in ["create_note", "rewrite_note"] {
            assert!(parse_response(&response(&operation(kind, "0.5")), &fallback).is_ok(), "{kind}");
        }
        for kind in ["retitle_note", "relink_note", "retag_note", "defer"] {
            assert!(parse_response(&response(&operation(kind, "0.5")), &ParseOptions::default()).is_ok(), "{kind}");
            assert_eq!(codes(&response(&operation(kind, "0.5")), &fallback).0, PARSE_FAILED, "{kind}");
        }
        assert_eq!(codes(&response(&operation("delete_note", "0.5")), &ParseOptions::default()).0, PARSE_FAILED);
    }

    #[test]
    fn a_request_is_written_as_the_text_shows_and_its_fields_survive_a_round_trip() {
        let request = Request {
            request_id: "req_01".into(),
            goal: "Organize incident runbooks by subsystem".into(),
            scope: "workspace:acme-core".into(),
            sources: vec![Source {
                source_id: "note_18".into(),
                title: "Outage notes".into(),
                body_markdown: "Line one\r\nquotes </body_markdown> and <b>html</b>".into(),
                kind: "markdown".into(),
            }],
            taxonomy: vec!["platform".into(), "database".into()],
            constraints: Constraints { strict_mode: true, max_operations: 12, allow_delete: false },
        };
        let written = write_request(&request);
        assert!(written.starts_with("<librarian_request>\n<request_id>req_01</request_id>\n<goal>"), "{written}");
        assert!(written.contains("<constraints>\n<strict_mode>true</strict_mode>\n<max_operations>12</max_operations>\n<allow_delete>false</allow_delete>\n</constraints>\n<output_contract>xml_attrless</output_contract>\n</librarian_request>"));
        assert!(!written.contains('\r'));
        // The body's own closing tag is escaped, so the field still ends where it should.
        let mut reader = Reader { text: &written, at: 0, strict: false, problems: vec![] };
        let start = written.find("<body_markdown>").unwrap() + "<body_markdown>".len();
        reader.at = start;
        assert_eq!(
            reader.text_until_close("body_markdown").unwrap(),
            "Line one\nquotes </body_markdown> and <b>html</b>"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Field text a model might write: markdown, HTML, angle brackets, ampersands, CRLF.
        fn field_text() -> impl Strategy<Value = String> {
            "[a-zA-Z0-9 .,:;!?&<>*_`#()\\[\\]\\-\r\n]{1,80}"
                .prop_filter("some visible text", |t| !t.trim().is_empty())
                // A field cannot hold its own closing tag unescaped; none of the generated text
                // is a closing tag of the protocol's fields.
                .prop_filter("no protocol closing tag", |t| !t.contains("</"))
        }

        proptest! {
            #[test]
            fn any_text_gives_a_response_or_a_typed_error(text in "\\PC{0,400}", strict: bool, fallback: bool) {
                let options = ParseOptions { strict, fallback_only: fallback, max_operations: 3 };
                match parse_response(&text, &options) {
                    Ok(response) => prop_assert!(response.operations.len() <= 3),
                    Err(error) => prop_assert!(error.code == PARSE_FAILED || error.code == PROTOCOL_INVALID),
                }
            }

            #[test]
            fn well_formed_responses_read_back_what_was_written(
                title in field_text(), body in field_text(), reason in field_text(), confidence in 0u32..=1000,
            ) {
                let confidence = format!("{}.{:03}", confidence / 1000, confidence % 1000);
                let raw = format!(
                    "<librarian_response>\n<request_id>r</request_id>\n<status>ok</status>\n<summary>s</summary>\n<operations>\n<operation>\n<operation_id>o</operation_id>\n<kind>create_note</kind>\n<target_note_id>n</target_note_id>\n<title>{title}</title>\n<body_markdown>{body}</body_markdown>\n<reason>{reason}</reason>\n<confidence>{confidence}</confidence>\n</operation>\n</operations>\n<warnings></warnings>\n</librarian_response>"
                );
                let parsed = parse_response(&raw, &ParseOptions::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
                let op = &parsed.operations[0];
                let clean = |t: &str| normalise(t).trim().to_string();
                prop_assert_eq!(&op.title, &clean(&title));
                prop_assert_eq!(&op.body_markdown, &clean(&body));
                prop_assert_eq!(&op.reason, &clean(&reason));
                prop_assert_eq!(op.confidence, confidence.parse::<f64>().unwrap());
            }
        }
    }
}
