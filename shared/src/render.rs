//! The render document: the only form in which a model's answer reaches the screen.
//!
//! A language model never returns HTML. It returns a small JSON tree (the laika.llmcp v1 "render
//! AST"): a `doc` of headings, paragraphs, lists, blockquotes, code blocks and tables whose text
//! is plain `text` nodes and `link` nodes. That tree is untrusted, so this module is the single
//! gate between it and the page:
//!
//! - [`Doc`] and its node types mirror the JSON shape exactly (serde, tag `"type"`).
//! - [`sanitize`] walks any `serde_json::Value` by hand and always yields a safe [`Doc`], keeping
//!   what is valid, repairing what small models commonly get wrong, and recording a
//!   [`Violation`] for everything it dropped or repaired. [`check`] is the strict view of the
//!   same walk: a value is valid exactly when it reports nothing.
//! - [`to_html`] is the only HTML producer. It emits a fixed set of tags and attributes and
//!   escapes every string, and it re-checks every href, because a [`Doc`] can also be built in
//!   code without passing through [`sanitize`].
//! - [`Doc::plain_text`] and [`Doc::from_plain_text`] convert to and from plain text.
//!
//! Deserialising a [`Doc`] rejects unknown node types and unknown fields, but it cannot check
//! values (heading level range, href schemes, language names, nesting depth): untrusted input
//! goes through [`sanitize`], never straight through `serde_json::from_value`.

use crate::codes::{Code, Violation, pointer};
use crate::weburl::WebUrl;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// The deepest a node may sit, counting the `doc` itself as depth 1. Deeper subtrees are dropped
/// by [`sanitize`] and not rendered by [`to_html`] or [`Doc::plain_text`], which keeps every walk
/// of a document (and its stack use) bounded.
pub const MAX_DEPTH: usize = 32;

/// The longest href, in characters, that [`is_allowed_href`] accepts.
pub const MAX_HREF_CHARS: usize = 2048;

/// The longest code-block language name [`is_allowed_language`] accepts.
pub const MAX_LANGUAGE_CHARS: usize = 32;

/// The root of a render document: `{"type":"doc","children":[block...]}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "type", rename = "doc", from = "DocRepr")]
pub struct Doc {
    pub children: Vec<Block>,
}

/// A block node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Block {
    Heading {
        level: u8,
        children: Vec<Inline>,
    },
    Paragraph {
        children: Vec<Inline>,
    },
    List {
        ordered: bool,
        items: Vec<ListItem>,
    },
    Blockquote {
        children: Vec<Block>,
    },
    CodeBlock {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        language: Option<String>,
        text: String,
    },
    Table {
        rows: Vec<TableRow>,
    },
}

/// `{"type":"list_item","children":[block...]}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "list_item", from = "ListItemRepr")]
pub struct ListItem {
    pub children: Vec<Block>,
}

/// `{"type":"table_row","cells":[table_cell...]}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "table_row", from = "TableRowRepr")]
pub struct TableRow {
    pub cells: Vec<TableCell>,
}

/// `{"type":"table_cell","header":bool,"children":[inline...]}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "table_cell", from = "TableCellRepr")]
pub struct TableCell {
    pub header: bool,
    pub children: Vec<Inline>,
}

/// An inline node: `text`, or a `link` whose children are text nodes.
///
/// `Serialize` is written by hand: `Text` already writes its own `"type":"text"`, so a derived,
/// internally tagged impl would write the tag twice.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "InlineRepr")]
pub enum Inline {
    Text(Text),
    Link { href: String, children: Vec<Text> },
}

/// `{"type":"text","text":"..."}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "text", from = "TextRepr")]
pub struct Text {
    pub text: String,
}

// serde's `tag` on a struct only affects serialisation: deserialising would neither require nor
// check the tag, and `deny_unknown_fields` would then refuse the tag itself. So each struct is
// deserialised through a one-variant internally tagged enum, which checks both.

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum DocRepr {
    Doc { children: Vec<Block> },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum ListItemRepr {
    ListItem { children: Vec<Block> },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum TableRowRepr {
    TableRow { cells: Vec<TableCell> },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum TableCellRepr {
    TableCell { header: bool, children: Vec<Inline> },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum TextRepr {
    Text { text: String },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum InlineRepr {
    Text { text: String },
    Link { href: String, children: Vec<Text> },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum LinkRef<'a> {
    Link { href: &'a str, children: &'a [Text] },
}

impl From<DocRepr> for Doc {
    fn from(repr: DocRepr) -> Self {
        let DocRepr::Doc { children } = repr;
        Doc { children }
    }
}

impl From<ListItemRepr> for ListItem {
    fn from(repr: ListItemRepr) -> Self {
        let ListItemRepr::ListItem { children } = repr;
        ListItem { children }
    }
}

impl From<TableRowRepr> for TableRow {
    fn from(repr: TableRowRepr) -> Self {
        let TableRowRepr::TableRow { cells } = repr;
        TableRow { cells }
    }
}

impl From<TableCellRepr> for TableCell {
    fn from(repr: TableCellRepr) -> Self {
        let TableCellRepr::TableCell { header, children } = repr;
        TableCell { header, children }
    }
}

impl From<TextRepr> for Text {
    fn from(repr: TextRepr) -> Self {
        let TextRepr::Text { text } = repr;
        Text { text }
    }
}

impl From<InlineRepr> for Inline {
    fn from(repr: InlineRepr) -> Self {
        match repr {
            InlineRepr::Text { text } => Inline::Text(Text { text }),
            InlineRepr::Link { href, children } => Inline::Link { href, children },
        }
    }
}

impl Serialize for Inline {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Inline::Text(text) => text.serialize(serializer),
            Inline::Link { href, children } => LinkRef::Link { href, children }.serialize(serializer),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Hrefs and language names
// ---------------------------------------------------------------------------------------------

/// Whether `href` may become a link: an absolute `http`/`https` URL with a host, or a `mailto:`
/// URL, at most [`MAX_HREF_CHARS`] long, with no whitespace or control character anywhere.
///
/// Nothing is trimmed or decoded first: browsers skip whitespace and control characters inside a
/// scheme (`java\tscript:`), so rather than reason about what a browser would make of such a
/// string, any href containing one is refused. Hrefs with user credentials
/// (`https://bank.example@evil.example/`) are refused too, as they exist mostly to mislead.
pub fn is_allowed_href(href: &str) -> bool {
    allowed_url(href).is_some()
}

/// The parsed form of an allowed href; [`to_html`] emits this normalised form, so the attribute
/// is exactly what was checked (lower-case scheme, encoded host).
fn allowed_url(href: &str) -> Option<WebUrl> {
    if href.is_empty() || href.chars().count() > MAX_HREF_CHARS {
        return None;
    }
    if href.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let url = WebUrl::parse(href)?;
    let allowed = match url.scheme().as_str() {
        "http" | "https" => url.host().is_some() && !url.has_credentials(),
        "mailto" => !url.path().is_empty(),
        _ => false,
    };
    allowed.then_some(url)
}

/// Whether `language` may name a code block's language (and so appear in a `class` attribute):
/// 1 to 32 characters from `A-Z a-z 0-9 _ + # . -`.
pub fn is_allowed_language(language: &str) -> bool {
    (1..=MAX_LANGUAGE_CHARS).contains(&language.len())
        && language.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'.' | b'-'))
}

// ---------------------------------------------------------------------------------------------
// Sanitising untrusted values
// ---------------------------------------------------------------------------------------------

/// What [`sanitize`] made of a value: a safe document, and every violation it dropped or repaired.
#[derive(Debug, Clone, PartialEq)]
pub struct Sanitized {
    pub doc: Doc,
    pub dropped: Vec<Violation>,
}

/// Turns any JSON value into a safe [`Doc`]. Never fails, never panics, and never descends more
/// than [`MAX_DEPTH`] levels.
///
/// Valid parts are kept as they are; a valid document comes back unchanged except that empty
/// paragraphs, headings, lists, list items, blockquotes, tables and table rows are removed (they
/// show nothing, and removing them is not a violation). Everything else is dropped or repaired,
/// with one [`Violation`] each whose path is a JSON pointer into `value`:
///
/// - root not a `doc` → `RenderNotDoc`; an array of blocks, a single node or a string is wrapped
///   into a doc.
/// - a node type unknown or not allowed where it stands → `RenderUnknownNode`, dropped. Repairs
///   for what small models commonly write, each still reported as `RenderUnknownNode`: a bare
///   string where a node is expected is read as a text node; text or link nodes where blocks are
///   expected are wrapped in a paragraph (consecutive ones share it); a block, text node or
///   string where a list item is expected is wrapped in a list item; a text node, link or string
///   where a table cell is expected is wrapped in a (non-header) cell.
/// - a missing, ill-typed or unknown field → `RenderInvalidField`: heading level clamped into
///   1..=6 (2 when not a number), `ordered`/`header` default to false, a bad code language is
///   dropped (`"language": null` counts as absent and is fine), a code block or text node without
///   string text is dropped, unknown keys are ignored.
/// - a link whose href fails [`is_allowed_href`] → `RenderBadLink`; its text stays, the link goes.
///   Non-text link children are dropped (`RenderUnknownNode`).
/// - nodes nested deeper than [`MAX_DEPTH`] → `RenderTooDeep`, dropped with their subtree.
pub fn sanitize(value: &Value) -> Sanitized {
    let mut sanitizer = Sanitizer { dropped: Vec::new() };
    let children = sanitizer.root(value);
    Sanitized { doc: Doc { children }, dropped: sanitizer.dropped }
}

/// Strict validation: every problem in `value`, as [`sanitize`] reports them. Empty means valid.
pub fn check(value: &Value) -> Vec<Violation> {
    sanitize(value).dropped
}

/// The depth of the `doc` node; each level of nesting below it adds one.
const DOC_DEPTH: usize = 1;

const BLOCK_TYPES: &[&str] = &["heading", "paragraph", "list", "blockquote", "code_block", "table"];

/// A JSON value seen as a render node.
enum NodeRef<'v> {
    /// An object with a string `type`.
    Node(&'v Map<String, Value>, &'v str),
    /// An object without a string `type`.
    Untyped,
    /// A bare string, which the lenient rules read as a text node.
    Bare(&'v str),
    /// Anything else: null, boolean, number or array.
    Other(&'static str),
}

fn classify(value: &Value) -> NodeRef<'_> {
    match value {
        Value::Object(object) => match object.get("type") {
            Some(Value::String(kind)) => NodeRef::Node(object, kind),
            _ => NodeRef::Untyped,
        },
        Value::String(text) => NodeRef::Bare(text),
        other => NodeRef::Other(json_kind(other)),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A short, single-line quote of untrusted text for violation messages.
fn excerpt(text: &str) -> String {
    const LIMIT: usize = 60;
    let mut quoted: String = text.chars().take(LIMIT).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if text.chars().nth(LIMIT).is_some() {
        quoted.push('…');
    }
    quoted
}

/// Collects blocks, gathering loose inline nodes (text or links standing where blocks belong)
/// into one paragraph until the next real block.
#[derive(Default)]
struct BlockSink {
    blocks: Vec<Block>,
    loose_inlines: Vec<Inline>,
}

impl BlockSink {
    fn push(&mut self, block: Block) {
        self.flush_loose();
        self.blocks.push(block);
    }

    fn flush_loose(&mut self) {
        if !self.loose_inlines.is_empty() {
            let children = std::mem::take(&mut self.loose_inlines);
            self.blocks.push(Block::Paragraph { children });
        }
    }

    fn finish(mut self) -> Vec<Block> {
        self.flush_loose();
        self.blocks
    }
}

struct Sanitizer {
    dropped: Vec<Violation>,
}

impl Sanitizer {
    fn report(&mut self, code: Code, path: &str, message: impl Into<String>) {
        self.dropped.push(Violation::new(code, path, message));
    }

    /// Reports and refuses a node deeper than [`MAX_DEPTH`]; the caller then skips its subtree.
    fn within_depth(&mut self, path: &str, depth: usize) -> bool {
        if depth <= MAX_DEPTH {
            return true;
        }
        self.report(
            Code::RenderTooDeep,
            path,
            format!("nodes may nest at most {MAX_DEPTH} levels deep; this subtree is dropped"),
        );
        false
    }

    fn root(&mut self, value: &Value) -> Vec<Block> {
        match value {
            Value::Object(object) => match object.get("type") {
                Some(Value::String(kind)) if kind == "doc" => self.doc_children(object),
                None if object.contains_key("children") => {
                    self.report(Code::RenderNotDoc, "", "the render node has no type; read as a doc");
                    self.doc_children(object)
                }
                _ => {
                    let kind = match object.get("type") {
                        Some(Value::String(kind)) => format!("a `{}` node", excerpt(kind)),
                        _ => "an object without a type".to_owned(),
                    };
                    self.report(
                        Code::RenderNotDoc,
                        "",
                        format!("the render value is {kind}, not a doc; wrapped in one"),
                    );
                    self.single_block(value)
                }
            },
            Value::Array(values) => {
                self.report(
                    Code::RenderNotDoc,
                    "",
                    "the render value is an array, not a doc; its items are read as the doc's blocks",
                );
                self.blocks(values, "", DOC_DEPTH + 1)
            }
            Value::String(_) => {
                self.report(Code::RenderNotDoc, "", "the render value is a string, not a doc; read as a paragraph");
                self.single_block(value)
            }
            other => {
                self.report(Code::RenderNotDoc, "", format!("the render value is {}, not a doc", json_kind(other)));
                Vec::new()
            }
        }
    }

    fn doc_children(&mut self, object: &Map<String, Value>) -> Vec<Block> {
        self.unknown_keys(object, "", "doc", &["type", "children"]);
        let children = self.array_field(object, "", "doc", "children");
        self.blocks(children, "/children", DOC_DEPTH + 1)
    }

    /// A root value that is a single node: read as the doc's only block.
    fn single_block(&mut self, value: &Value) -> Vec<Block> {
        let mut sink = BlockSink::default();
        self.block_entry(value, "", DOC_DEPTH + 1, &mut sink);
        sink.finish()
    }

    /// Reports each key of `object` that the node type does not have.
    fn unknown_keys(&mut self, object: &Map<String, Value>, path: &str, kind: &str, allowed: &[&str]) {
        for key in object.keys() {
            if !allowed.contains(&key.as_str()) {
                self.report(
                    Code::RenderInvalidField,
                    &pointer(path, key),
                    format!("a {kind} node has no field `{}`; ignored", excerpt(key)),
                );
            }
        }
    }

    /// The array in `object[key]`, or an empty slice (reported) when it is missing or no array.
    fn array_field<'v>(&mut self, object: &'v Map<String, Value>, path: &str, kind: &str, key: &str) -> &'v [Value] {
        match object.get(key) {
            Some(Value::Array(values)) => values,
            Some(other) => {
                self.report(
                    Code::RenderInvalidField,
                    &pointer(path, key),
                    format!("`{key}` of a {kind} node must be an array, not {}; read as empty", json_kind(other)),
                );
                &[]
            }
            None => {
                self.report(
                    Code::RenderInvalidField,
                    path,
                    format!("a {kind} node needs a `{key}` array; read as empty"),
                );
                &[]
            }
        }
    }

    /// The boolean in `object[key]`, or false (reported) when it is missing or no boolean.
    fn bool_field(&mut self, object: &Map<String, Value>, path: &str, kind: &str, key: &str) -> bool {
        match object.get(key) {
            Some(Value::Bool(flag)) => *flag,
            Some(other) => {
                self.report(
                    Code::RenderInvalidField,
                    &pointer(path, key),
                    format!("`{key}` of a {kind} node must be a boolean, not {}; false used", json_kind(other)),
                );
                false
            }
            None => {
                self.report(
                    Code::RenderInvalidField,
                    path,
                    format!("a {kind} node needs a boolean `{key}`; false used"),
                );
                false
            }
        }
    }

    fn heading_level(&mut self, object: &Map<String, Value>, path: &str) -> u8 {
        const DEFAULT_LEVEL: u8 = 2;
        match object.get("level") {
            Some(Value::Number(number)) => {
                if let Some(level) =
                    number.as_u64().and_then(|level| u8::try_from(level).ok()).filter(|level| (1..=6).contains(level))
                {
                    return level;
                }
                let clamped = match number.as_f64() {
                    // In 1.0..=6.0 after the clamp, so the cast is exact.
                    Some(level) if level.is_finite() => level.round().clamp(1.0, 6.0) as u8,
                    _ => DEFAULT_LEVEL,
                };
                self.report(
                    Code::RenderInvalidField,
                    &pointer(path, "level"),
                    format!("heading level {number} is not an integer from 1 to 6; {clamped} used"),
                );
                clamped
            }
            Some(other) => {
                self.report(
                    Code::RenderInvalidField,
                    &pointer(path, "level"),
                    format!("heading level must be a number, not {}; {DEFAULT_LEVEL} used", json_kind(other)),
                );
                DEFAULT_LEVEL
            }
            None => {
                self.report(
                    Code::RenderInvalidField,
                    path,
                    format!("a heading node needs a level; {DEFAULT_LEVEL} used"),
                );
                DEFAULT_LEVEL
            }
        }
    }

    /// Reads an array of blocks (children of a doc, blockquote or list item).
    fn blocks(&mut self, values: &[Value], base: &str, depth: usize) -> Vec<Block> {
        let mut sink = BlockSink::default();
        for (index, value) in values.iter().enumerate() {
            self.block_entry(value, &pointer(base, index), depth, &mut sink);
        }
        sink.finish()
    }

    /// Reads one value where a block is expected.
    fn block_entry(&mut self, value: &Value, path: &str, depth: usize, sink: &mut BlockSink) {
        if !self.within_depth(path, depth) {
            return;
        }
        match classify(value) {
            NodeRef::Node(object, kind) if BLOCK_TYPES.contains(&kind) => {
                if let Some(block) = self.block(object, kind, path, depth) {
                    sink.push(block);
                }
            }
            NodeRef::Node(object, kind @ ("text" | "link")) => {
                self.report(
                    Code::RenderUnknownNode,
                    path,
                    format!("a {kind} node stands where a block is expected; wrapped in a paragraph"),
                );
                self.inline_node(object, kind, path, depth + 1, &mut sink.loose_inlines);
            }
            NodeRef::Bare(text) => {
                self.report(
                    Code::RenderUnknownNode,
                    path,
                    "a bare string stands where a block is expected; read as text in a paragraph",
                );
                if self.within_depth(path, depth + 1) {
                    push_text(&mut sink.loose_inlines, text);
                }
            }
            other => self.report_misplaced(other, path, "a block"),
        }
    }

    /// Reports a value that cannot stand where it is and is dropped.
    fn report_misplaced(&mut self, node: NodeRef<'_>, path: &str, expected: &str) {
        let message = match node {
            NodeRef::Node(_, kind) => {
                let known = BLOCK_TYPES.contains(&kind)
                    || matches!(kind, "doc" | "list_item" | "table_row" | "table_cell" | "text" | "link");
                if known {
                    format!("a {kind} node is not allowed where {expected} is expected; dropped")
                } else {
                    format!("unknown node type `{}`; dropped", excerpt(kind))
                }
            }
            NodeRef::Untyped => format!("an object without a string type stands where {expected} is expected; dropped"),
            NodeRef::Bare(_) => format!("a bare string stands where {expected} is expected; dropped"),
            NodeRef::Other(json) => format!("{json} stands where {expected} is expected; dropped"),
        };
        self.report(Code::RenderUnknownNode, path, message);
    }

    /// Reads a block node of a known block type; `None` when nothing of it is left.
    fn block(&mut self, object: &Map<String, Value>, kind: &str, path: &str, depth: usize) -> Option<Block> {
        if !self.within_depth(path, depth) {
            return None;
        }
        match kind {
            "heading" => {
                self.unknown_keys(object, path, kind, &["type", "level", "children"]);
                let level = self.heading_level(object, path);
                let values = self.array_field(object, path, kind, "children");
                let children = self.inlines(values, &pointer(path, "children"), depth + 1);
                (!children.is_empty()).then_some(Block::Heading { level, children })
            }
            "paragraph" => {
                self.unknown_keys(object, path, kind, &["type", "children"]);
                let values = self.array_field(object, path, kind, "children");
                let children = self.inlines(values, &pointer(path, "children"), depth + 1);
                (!children.is_empty()).then_some(Block::Paragraph { children })
            }
            "list" => {
                self.unknown_keys(object, path, kind, &["type", "ordered", "items"]);
                let ordered = self.bool_field(object, path, kind, "ordered");
                let values = self.array_field(object, path, kind, "items");
                let base = pointer(path, "items");
                let mut items = Vec::new();
                for (index, value) in values.iter().enumerate() {
                    self.list_item_entry(value, &pointer(&base, index), depth + 1, &mut items);
                }
                (!items.is_empty()).then_some(Block::List { ordered, items })
            }
            "blockquote" => {
                self.unknown_keys(object, path, kind, &["type", "children"]);
                let values = self.array_field(object, path, kind, "children");
                let children = self.blocks(values, &pointer(path, "children"), depth + 1);
                (!children.is_empty()).then_some(Block::Blockquote { children })
            }
            "code_block" => {
                self.unknown_keys(object, path, kind, &["type", "language", "text"]);
                let language = match object.get("language") {
                    // An absent language and an explicit null mean the same.
                    None | Some(Value::Null) => None,
                    Some(Value::String(language)) if is_allowed_language(language) => Some(language.clone()),
                    Some(other) => {
                        let what = match other {
                            Value::String(language) => format!("`{}`", excerpt(language)),
                            other => json_kind(other).to_owned(),
                        };
                        self.report(
                            Code::RenderInvalidField,
                            &pointer(path, "language"),
                            format!("code language {what} is not 1 to {MAX_LANGUAGE_CHARS} of A-Z a-z 0-9 _ + # . -; dropped"),
                        );
                        None
                    }
                };
                match object.get("text") {
                    Some(Value::String(text)) => Some(Block::CodeBlock { language, text: text.clone() }),
                    Some(other) => {
                        self.report(
                            Code::RenderInvalidField,
                            &pointer(path, "text"),
                            format!("code block text must be a string, not {}; the block is dropped", json_kind(other)),
                        );
                        None
                    }
                    None => {
                        self.report(
                            Code::RenderInvalidField,
                            path,
                            "a code block needs a string text; the block is dropped",
                        );
                        None
                    }
                }
            }
            "table" => {
                self.unknown_keys(object, path, kind, &["type", "rows"]);
                let values = self.array_field(object, path, kind, "rows");
                let base = pointer(path, "rows");
                let mut rows = Vec::new();
                for (index, value) in values.iter().enumerate() {
                    self.table_row_entry(value, &pointer(&base, index), depth + 1, &mut rows);
                }
                (!rows.is_empty()).then_some(Block::Table { rows })
            }
            _ => {
                self.report_misplaced(NodeRef::Node(object, kind), path, "a block");
                None
            }
        }
    }

    /// Reads one value where a list item is expected.
    fn list_item_entry(&mut self, value: &Value, path: &str, depth: usize, items: &mut Vec<ListItem>) {
        if !self.within_depth(path, depth) {
            return;
        }
        let children = match classify(value) {
            NodeRef::Node(object, "list_item") => {
                self.unknown_keys(object, path, "list_item", &["type", "children"]);
                let values = self.array_field(object, path, "list_item", "children");
                self.blocks(values, &pointer(path, "children"), depth + 1)
            }
            NodeRef::Node(object, kind) if BLOCK_TYPES.contains(&kind) => {
                self.report(
                    Code::RenderUnknownNode,
                    path,
                    format!("a {kind} node stands where a list_item is expected; wrapped in one"),
                );
                self.block(object, kind, path, depth + 1).into_iter().collect()
            }
            NodeRef::Node(object, kind @ ("text" | "link")) => {
                self.report(
                    Code::RenderUnknownNode,
                    path,
                    format!("a {kind} node stands where a list_item is expected; wrapped in one"),
                );
                let mut inlines = Vec::new();
                // The item is at `depth`, the paragraph wrapping the node below it.
                self.inline_node(object, kind, path, depth + 2, &mut inlines);
                paragraph_if_any(inlines)
            }
            NodeRef::Bare(text) => {
                self.report(
                    Code::RenderUnknownNode,
                    path,
                    "a bare string stands where a list_item is expected; read as a list item of text",
                );
                let mut inlines = Vec::new();
                if self.within_depth(path, depth + 2) {
                    push_text(&mut inlines, text);
                }
                paragraph_if_any(inlines)
            }
            other => {
                self.report_misplaced(other, path, "a list_item");
                Vec::new()
            }
        };
        if !children.is_empty() {
            items.push(ListItem { children });
        }
    }

    /// Reads one value where a table row is expected.
    fn table_row_entry(&mut self, value: &Value, path: &str, depth: usize, rows: &mut Vec<TableRow>) {
        if !self.within_depth(path, depth) {
            return;
        }
        match classify(value) {
            NodeRef::Node(object, "table_row") => {
                self.unknown_keys(object, path, "table_row", &["type", "cells"]);
                let values = self.array_field(object, path, "table_row", "cells");
                let base = pointer(path, "cells");
                let mut cells = Vec::new();
                for (index, value) in values.iter().enumerate() {
                    self.table_cell_entry(value, &pointer(&base, index), depth + 1, &mut cells);
                }
                if !cells.is_empty() {
                    rows.push(TableRow { cells });
                }
            }
            other => self.report_misplaced(other, path, "a table_row"),
        }
    }

    /// Reads one value where a table cell is expected. Cells are kept even when empty: dropping
    /// one would shift the cells after it into the wrong column.
    fn table_cell_entry(&mut self, value: &Value, path: &str, depth: usize, cells: &mut Vec<TableCell>) {
        if !self.within_depth(path, depth) {
            return;
        }
        match classify(value) {
            NodeRef::Node(object, "table_cell") => {
                self.unknown_keys(object, path, "table_cell", &["type", "header", "children"]);
                let header = self.bool_field(object, path, "table_cell", "header");
                let values = self.array_field(object, path, "table_cell", "children");
                let children = self.inlines(values, &pointer(path, "children"), depth + 1);
                cells.push(TableCell { header, children });
            }
            NodeRef::Node(object, kind @ ("text" | "link")) => {
                self.report(
                    Code::RenderUnknownNode,
                    path,
                    format!("a {kind} node stands where a table_cell is expected; wrapped in one"),
                );
                let mut children = Vec::new();
                self.inline_node(object, kind, path, depth + 1, &mut children);
                cells.push(TableCell { header: false, children });
            }
            NodeRef::Bare(text) => {
                self.report(
                    Code::RenderUnknownNode,
                    path,
                    "a bare string stands where a table_cell is expected; read as a cell of text",
                );
                let mut children = Vec::new();
                if self.within_depth(path, depth + 1) {
                    push_text(&mut children, text);
                }
                cells.push(TableCell { header: false, children });
            }
            other => self.report_misplaced(other, path, "a table_cell"),
        }
    }

    /// Reads an array of inline nodes (children of a heading, paragraph or table cell).
    fn inlines(&mut self, values: &[Value], base: &str, depth: usize) -> Vec<Inline> {
        let mut inlines = Vec::new();
        for (index, value) in values.iter().enumerate() {
            let path = pointer(base, index);
            if !self.within_depth(&path, depth) {
                continue;
            }
            match classify(value) {
                NodeRef::Node(object, kind @ ("text" | "link")) => {
                    self.inline_node(object, kind, &path, depth, &mut inlines);
                }
                NodeRef::Bare(text) => {
                    self.report(
                        Code::RenderUnknownNode,
                        &path,
                        "a bare string stands where an inline node is expected; read as a text node",
                    );
                    push_text(&mut inlines, text);
                }
                other => self.report_misplaced(other, &path, "an inline node"),
            }
        }
        inlines
    }

    /// Reads a `text` or `link` node into `out`. A link with a refused href leaves its text.
    fn inline_node(
        &mut self,
        object: &Map<String, Value>,
        kind: &str,
        path: &str,
        depth: usize,
        out: &mut Vec<Inline>,
    ) {
        if !self.within_depth(path, depth) {
            return;
        }
        if kind == "text" {
            if let Some(text) = self.text_node(object, path) {
                out.push(Inline::Text(text));
            }
            return;
        }
        self.unknown_keys(object, path, "link", &["type", "href", "children"]);
        let values = self.array_field(object, path, "link", "children");
        let children = self.link_children(values, &pointer(path, "children"), depth + 1);
        let refusal = match object.get("href") {
            Some(Value::String(href)) if is_allowed_href(href) => {
                out.push(Inline::Link { href: href.clone(), children });
                return;
            }
            Some(Value::String(href)) => (
                pointer(path, "href"),
                format!("href `{}` is not an absolute http, https or mailto URL", excerpt(href)),
            ),
            Some(other) => (pointer(path, "href"), format!("href must be a string, not {}", json_kind(other))),
            None => (path.to_owned(), "a link needs an href".to_owned()),
        };
        let (at, reason) = refusal;
        self.report(Code::RenderBadLink, &at, format!("{reason}; the link is replaced by its text"));
        out.extend(children.into_iter().map(Inline::Text));
    }

    /// Reads a link's children, which may only be text nodes.
    fn link_children(&mut self, values: &[Value], base: &str, depth: usize) -> Vec<Text> {
        let mut texts = Vec::new();
        for (index, value) in values.iter().enumerate() {
            let path = pointer(base, index);
            if !self.within_depth(&path, depth) {
                continue;
            }
            match classify(value) {
                NodeRef::Node(object, "text") => texts.extend(self.text_node(object, &path)),
                NodeRef::Bare(text) => {
                    self.report(
                        Code::RenderUnknownNode,
                        &path,
                        "a bare string stands where a text node is expected; read as a text node",
                    );
                    texts.push(Text { text: text.to_owned() });
                }
                other => self.report_misplaced(other, &path, "a text node (the only child a link may have)"),
            }
        }
        texts
    }

    fn text_node(&mut self, object: &Map<String, Value>, path: &str) -> Option<Text> {
        self.unknown_keys(object, path, "text", &["type", "text"]);
        match object.get("text") {
            Some(Value::String(text)) => Some(Text { text: text.clone() }),
            Some(other) => {
                self.report(
                    Code::RenderInvalidField,
                    &pointer(path, "text"),
                    format!("text must be a string, not {}; the node is dropped", json_kind(other)),
                );
                None
            }
            None => {
                self.report(Code::RenderInvalidField, path, "a text node needs a string text; dropped");
                None
            }
        }
    }
}

/// Appends `text` as a text node. Neighbouring text nodes are not joined: a valid document must
/// come back from [`sanitize`] unchanged.
fn push_text(inlines: &mut Vec<Inline>, text: &str) {
    inlines.push(Inline::Text(Text { text: text.to_owned() }));
}

fn paragraph_if_any(inlines: Vec<Inline>) -> Vec<Block> {
    if inlines.is_empty() { Vec::new() } else { vec![Block::Paragraph { children: inlines }] }
}

// ---------------------------------------------------------------------------------------------
// HTML
// ---------------------------------------------------------------------------------------------

/// The `rel` every link carries: the page opened gets no handle on ours, no referrer, and no
/// endorsement from us.
const LINK_REL: &str = "noopener noreferrer nofollow";

/// Renders a document as HTML.
///
/// Only these tags are produced: `p h1-h6 ul ol li blockquote pre code a table thead tbody tr th
/// td`; only these attributes: `href`, `rel` and `target` on `a`, and `class="language-X"` on
/// `code`. Every text and attribute value is escaped. A link whose href fails
/// [`is_allowed_href`] is rendered as its text alone. Blocks nested deeper than [`MAX_DEPTH`]
/// are not rendered. Blocks are separated by `"\n"`.
pub fn to_html(doc: &Doc) -> String {
    let mut html = String::new();
    write_blocks(&mut html, &doc.children, DOC_DEPTH + 1);
    html
}

fn write_blocks(html: &mut String, blocks: &[Block], depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for (index, block) in blocks.iter().enumerate() {
        if index > 0 {
            html.push('\n');
        }
        write_block(html, block, depth);
    }
}

fn write_block(html: &mut String, block: &Block, depth: usize) {
    match block {
        Block::Heading { level, children } => {
            // A Doc built in code may carry any u8; only h1..h6 exist.
            let digit = char::from(b'0' + (*level).clamp(1, 6));
            html.push_str("<h");
            html.push(digit);
            html.push('>');
            write_inlines(html, children);
            html.push_str("</h");
            html.push(digit);
            html.push('>');
        }
        Block::Paragraph { children } => {
            html.push_str("<p>");
            write_inlines(html, children);
            html.push_str("</p>");
        }
        Block::List { ordered, items } => {
            let tag = if *ordered { "ol" } else { "ul" };
            html.push('<');
            html.push_str(tag);
            html.push('>');
            for item in items {
                html.push_str("<li>");
                write_blocks(html, &item.children, depth + 2);
                html.push_str("</li>");
            }
            html.push_str("</");
            html.push_str(tag);
            html.push('>');
        }
        Block::Blockquote { children } => {
            html.push_str("<blockquote>");
            write_blocks(html, children, depth + 1);
            html.push_str("</blockquote>");
        }
        Block::CodeBlock { language, text } => {
            html.push_str("<pre><code");
            if let Some(language) = language.as_deref().filter(|language| is_allowed_language(language)) {
                html.push_str(" class=\"language-");
                push_escaped(html, language);
                html.push('"');
            }
            html.push('>');
            push_escaped(html, text);
            html.push_str("</code></pre>");
        }
        Block::Table { rows } => {
            let header_rows =
                rows.iter().take_while(|row| !row.cells.is_empty() && row.cells.iter().all(|cell| cell.header)).count();
            let (head, body) = rows.split_at(header_rows);
            html.push_str("<table>");
            if !head.is_empty() {
                html.push_str("<thead>");
                write_rows(html, head);
                html.push_str("</thead>");
            }
            if !body.is_empty() {
                html.push_str("<tbody>");
                write_rows(html, body);
                html.push_str("</tbody>");
            }
            html.push_str("</table>");
        }
    }
}

fn write_rows(html: &mut String, rows: &[TableRow]) {
    for row in rows {
        html.push_str("<tr>");
        for cell in &row.cells {
            let tag = if cell.header { "th" } else { "td" };
            html.push('<');
            html.push_str(tag);
            html.push('>');
            write_inlines(html, &cell.children);
            html.push_str("</");
            html.push_str(tag);
            html.push('>');
        }
        html.push_str("</tr>");
    }
}

fn write_inlines(html: &mut String, inlines: &[Inline]) {
    for inline in inlines {
        match inline {
            Inline::Text(text) => push_escaped(html, &text.text),
            Inline::Link { href, children } => match allowed_url(href) {
                Some(url) => {
                    html.push_str("<a href=\"");
                    push_escaped(html, &url.href());
                    html.push_str("\" rel=\"");
                    html.push_str(LINK_REL);
                    html.push_str("\" target=\"_blank\">");
                    push_escaped(html, &link_text(children, Some(&url)));
                    html.push_str("</a>");
                }
                None => push_escaped(html, &link_text(children, None)),
            },
        }
    }
}

/// A link's visible text; a link without any shows its (allowed) URL instead of nothing.
fn link_text(children: &[Text], url: Option<&WebUrl>) -> String {
    let text: String = children.iter().map(|child| child.text.as_str()).collect();
    match url {
        Some(url) if text.is_empty() => url.href(),
        _ => text,
    }
}

/// Appends `text` with `& < > " '` escaped, which makes it safe both as element content and as
/// a double- or single-quoted attribute value.
fn push_escaped(html: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => html.push_str("&amp;"),
            '<' => html.push_str("&lt;"),
            '>' => html.push_str("&gt;"),
            '"' => html.push_str("&quot;"),
            '\'' => html.push_str("&#39;"),
            other => html.push(other),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Plain text
// ---------------------------------------------------------------------------------------------

impl Doc {
    /// The visible text: blocks separated by blank lines, list items on their own lines with
    /// `- ` or `1. ` (continuation lines indented under the marker), blockquote lines prefixed
    /// with `> `, table rows on lines with cells separated by tabs, code as it is.
    pub fn plain_text(&self) -> String {
        blocks_text(&self.children, "\n\n", DOC_DEPTH + 1)
    }

    /// A document of paragraphs: `text` split on blank (or whitespace-only) lines, the single
    /// line breaks inside a paragraph kept as they are (`\r\n` read as `\n`).
    pub fn from_plain_text(text: &str) -> Doc {
        let mut children = Vec::new();
        let mut lines: Vec<&str> = Vec::new();
        for line in text.lines().chain(std::iter::once("")) {
            if !line.trim().is_empty() {
                lines.push(line);
            } else if !lines.is_empty() {
                let text = lines.join("\n");
                lines.clear();
                children.push(Block::Paragraph { children: vec![Inline::Text(Text { text })] });
            }
        }
        Doc { children }
    }

    /// Whether the document shows nothing: no blocks, or only blocks without a visible character.
    pub fn is_empty(&self) -> bool {
        self.plain_text().trim().is_empty()
    }
}

fn blocks_text(blocks: &[Block], separator: &str, depth: usize) -> String {
    if depth > MAX_DEPTH {
        return String::new();
    }
    let parts: Vec<String> =
        blocks.iter().map(|block| block_text(block, depth)).filter(|part| !part.is_empty()).collect();
    parts.join(separator)
}

fn block_text(block: &Block, depth: usize) -> String {
    match block {
        Block::Heading { children, .. } | Block::Paragraph { children } => inlines_text(children),
        Block::List { ordered, items } => {
            let mut lines = Vec::new();
            for (index, item) in items.iter().enumerate() {
                let marker = if *ordered { format!("{}. ", index + 1) } else { "- ".to_owned() };
                let indent = " ".repeat(marker.chars().count());
                let body = blocks_text(&item.children, "\n", depth + 2);
                let mut body_lines = body.lines();
                lines.push(format!("{marker}{}", body_lines.next().unwrap_or("")));
                lines.extend(body_lines.map(|line| format!("{indent}{line}")));
            }
            lines.join("\n")
        }
        Block::Blockquote { children } => blocks_text(children, "\n\n", depth + 1)
            .lines()
            .map(|line| if line.is_empty() { ">".to_owned() } else { format!("> {line}") })
            .collect::<Vec<_>>()
            .join("\n"),
        Block::CodeBlock { text, .. } => text.clone(),
        Block::Table { rows } => rows
            .iter()
            .map(|row| row.cells.iter().map(|cell| inlines_text(&cell.children)).collect::<Vec<_>>().join("\t"))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn inlines_text(inlines: &[Inline]) -> String {
    let mut text = String::new();
    for inline in inlines {
        match inline {
            Inline::Text(child) => text.push_str(&child.text),
            Inline::Link { href, children } => {
                text.push_str(&link_text(children, allowed_url(href).as_ref()));
            }
        }
    }
    text
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn example() -> Value {
        json!({"type":"doc","children":[
            {"type":"heading","level":2,"children":[{"type":"text","text":"Summary"}]},
            {"type":"paragraph","children":[{"type":"text","text":"This page explains ..."}]},
            {"type":"list","ordered":false,"items":[
                {"type":"list_item","children":[{"type":"paragraph","children":[{"type":"text","text":"Key point A"}]}]}
            ]}
        ]})
    }

    /// A document using every node type and field.
    fn rich() -> Value {
        json!({"type":"doc","children":[
            {"type":"heading","level":1,"children":[{"type":"text","text":"Title"}]},
            {"type":"paragraph","children":[
                {"type":"text","text":"See "},
                {"type":"link","href":"https://example.com/a?b=c&d=e","children":[{"type":"text","text":"the docs"}]},
                {"type":"text","text":" or "},
                {"type":"link","href":"mailto:someone@example.com","children":[]}
            ]},
            {"type":"list","ordered":true,"items":[
                {"type":"list_item","children":[
                    {"type":"paragraph","children":[{"type":"text","text":"one"}]},
                    {"type":"list","ordered":false,"items":[
                        {"type":"list_item","children":[{"type":"paragraph","children":[{"type":"text","text":"one.a"}]}]}
                    ]}
                ]},
                {"type":"list_item","children":[{"type":"paragraph","children":[{"type":"text","text":"two"}]}]}
            ]},
            {"type":"blockquote","children":[{"type":"paragraph","children":[{"type":"text","text":"quoted"}]}]},
            {"type":"code_block","language":"rust","text":"fn main() {}\n"},
            {"type":"code_block","text":"plain"},
            {"type":"table","rows":[
                {"type":"table_row","cells":[
                    {"type":"table_cell","header":true,"children":[{"type":"text","text":"Name"}]},
                    {"type":"table_cell","header":true,"children":[{"type":"text","text":"Value"}]}
                ]},
                {"type":"table_row","cells":[
                    {"type":"table_cell","header":false,"children":[{"type":"text","text":"a"}]},
                    {"type":"table_cell","header":false,"children":[]}
                ]}
            ]}
        ]})
    }

    fn text(text: &str) -> Inline {
        Inline::Text(Text { text: text.to_owned() })
    }

    fn paragraph(content: &str) -> Block {
        Block::Paragraph { children: vec![text(content)] }
    }

    fn doc_of(children: Vec<Value>) -> Value {
        json!({"type":"doc","children":children})
    }

    /// The (code, path) pairs of what sanitize reported.
    fn reported(value: &Value) -> Vec<(Code, String)> {
        sanitize(value).dropped.into_iter().map(|v| (v.code, v.path)).collect()
    }

    fn para_value(content: &str) -> Value {
        json!({"type":"paragraph","children":[{"type":"text","text":content}]})
    }

    // ---- serde ----------------------------------------------------------------------------

    #[test]
    fn example_and_rich_docs_round_trip_through_serde() {
        for value in [example(), rich()] {
            let doc: Doc = serde_json::from_value(value.clone()).expect("valid doc deserialises");
            assert_eq!(serde_json::to_value(&doc).expect("serialises"), value);
        }
    }

    #[test]
    fn example_deserialises_to_the_expected_tree() {
        let doc: Doc = serde_json::from_value(example()).expect("valid doc deserialises");
        let expected = Doc {
            children: vec![
                Block::Heading { level: 2, children: vec![text("Summary")] },
                paragraph("This page explains ..."),
                Block::List { ordered: false, items: vec![ListItem { children: vec![paragraph("Key point A")] }] },
            ],
        };
        assert_eq!(doc, expected);
    }

    #[test]
    fn deserialise_rejects_unknown_fields_and_types() {
        let bad = [
            json!({"type":"doc","children":[],"extra":1}),
            json!({"type":"doc","children":[{"type":"paragraph","children":[],"x":1}]}),
            json!({"type":"doc","children":[{"type":"strong","children":[]}]}),
            json!({"type":"doc","children":[{"type":"paragraph","children":[{"type":"text","text":"a","x":1}]}]}),
            json!({"type":"doc","children":[{"type":"paragraph","children":[{"type":"emphasis","text":"a"}]}]}),
            json!({"type":"doc","children":[{"type":"list","ordered":true,"items":[{"type":"paragraph","children":[]}]}]}),
            json!({"type":"doc","children":[{"type":"table","rows":[{"type":"table_row","cells":[{"type":"table_cell","children":[]}]}]}]}),
            json!({"type":"paragraph","children":[]}),
            json!({"children":[]}),
        ];
        for value in bad {
            assert!(serde_json::from_value::<Doc>(value.clone()).is_err(), "accepted {value}");
        }
        assert!(serde_json::from_value::<Text>(json!({"type":"link","text":"a"})).is_err());
        assert!(serde_json::from_value::<Text>(json!({"text":"a"})).is_err());
    }

    #[test]
    fn doc_serialises_with_its_type() {
        assert_eq!(serde_json::to_value(Doc::default()).expect("serialises"), json!({"type":"doc","children":[]}));
        let code = Block::CodeBlock { language: None, text: "x".into() };
        assert_eq!(serde_json::to_value(code).expect("serialises"), json!({"type":"code_block","text":"x"}));
    }

    // ---- sanitize: valid input ------------------------------------------------------------

    #[test]
    fn sanitize_keeps_a_valid_doc_unchanged() {
        for value in [example(), rich()] {
            let result = sanitize(&value);
            assert_eq!(result.dropped, vec![]);
            assert_eq!(result.doc, serde_json::from_value::<Doc>(value.clone()).expect("valid"));
            assert!(check(&value).is_empty());
        }
    }

    #[test]
    fn null_language_is_accepted_silently() {
        let value = doc_of(vec![json!({"type":"code_block","language":null,"text":"x"})]);
        let result = sanitize(&value);
        assert!(result.dropped.is_empty());
        assert_eq!(result.doc.children, vec![Block::CodeBlock { language: None, text: "x".into() }]);
    }

    #[test]
    fn check_reports_what_sanitize_dropped() {
        let value = doc_of(vec![json!({"type":"marquee"}), json!({"type":"heading","level":9,"children":["x"]})]);
        assert_eq!(check(&value), sanitize(&value).dropped);
        assert_eq!(check(&value).len(), 3);
    }

    // ---- sanitize: root --------------------------------------------------------------------

    #[test]
    fn root_that_is_not_a_node_gives_an_empty_doc() {
        for value in [json!(null), json!(3), json!(true)] {
            let result = sanitize(&value);
            assert_eq!(result.doc, Doc::default());
            assert_eq!(reported(&value), vec![(Code::RenderNotDoc, String::new())]);
        }
    }

    #[test]
    fn root_array_of_blocks_is_wrapped_into_a_doc() {
        let value = json!([para_value("a"), {"type":"bogus"}]);
        let result = sanitize(&value);
        assert_eq!(result.doc.children, vec![paragraph("a")]);
        assert_eq!(reported(&value), vec![(Code::RenderNotDoc, String::new()), (Code::RenderUnknownNode, "/1".into())]);
    }

    #[test]
    fn root_single_block_is_wrapped_into_a_doc() {
        let value = para_value("alone");
        let result = sanitize(&value);
        assert_eq!(result.doc.children, vec![paragraph("alone")]);
        assert_eq!(reported(&value), vec![(Code::RenderNotDoc, String::new())]);
    }

    #[test]
    fn root_inline_or_string_becomes_a_paragraph() {
        let result = sanitize(&json!("just words"));
        assert_eq!(result.doc.children, vec![paragraph("just words")]);
        assert_eq!(result.dropped[0].code, Code::RenderNotDoc);

        let result = sanitize(&json!({"type":"text","text":"hi"}));
        assert_eq!(result.doc.children, vec![paragraph("hi")]);
        assert_eq!(result.dropped[0].code, Code::RenderNotDoc);
    }

    #[test]
    fn root_without_type_but_with_children_is_read_as_doc() {
        let value = json!({"children":[para_value("a")]});
        let result = sanitize(&value);
        assert_eq!(result.doc.children, vec![paragraph("a")]);
        assert_eq!(reported(&value), vec![(Code::RenderNotDoc, String::new())]);
    }

    #[test]
    fn root_of_another_unknown_type_reports_both() {
        let value = json!({"type":"html","children":[]});
        assert_eq!(
            reported(&value),
            vec![(Code::RenderNotDoc, String::new()), (Code::RenderUnknownNode, String::new())]
        );
        assert!(sanitize(&value).doc.children.is_empty());
    }

    #[test]
    fn doc_fields_are_checked() {
        assert_eq!(reported(&json!({"type":"doc"})), vec![(Code::RenderInvalidField, String::new())]);
        assert_eq!(
            reported(&json!({"type":"doc","children":{}})),
            vec![(Code::RenderInvalidField, "/children".into())]
        );
        assert_eq!(
            reported(&json!({"type":"doc","children":[],"a/b":1})),
            vec![(Code::RenderInvalidField, "/a~1b".into())]
        );
    }

    // ---- sanitize: node types and positions ------------------------------------------------

    #[test]
    fn unknown_and_misplaced_nodes_are_dropped() {
        let value = doc_of(vec![
            json!({"type":"script","text":"alert(1)"}),
            json!({"type":"paragraph","children":[
                {"type":"strong","children":[{"type":"text","text":"bold"}]},
                para_value("block in inline"),
                {"type":"text","text":"kept"},
                42,
                {"text":"no type"}
            ]}),
            json!({"type":"list_item","children":[para_value("item outside a list")]}),
            json!({"type":"doc","children":[]}),
            json!([para_value("nested array")]),
        ]);
        let result = sanitize(&value);
        assert_eq!(result.doc.children, vec![paragraph("kept")]);
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderUnknownNode, "/children/0".into()),
                (Code::RenderUnknownNode, "/children/1/children/0".into()),
                (Code::RenderUnknownNode, "/children/1/children/1".into()),
                (Code::RenderUnknownNode, "/children/1/children/3".into()),
                (Code::RenderUnknownNode, "/children/1/children/4".into()),
                (Code::RenderUnknownNode, "/children/2".into()),
                (Code::RenderUnknownNode, "/children/3".into()),
                (Code::RenderUnknownNode, "/children/4".into()),
            ]
        );
    }

    #[test]
    fn inline_nodes_in_block_position_are_wrapped_in_one_paragraph() {
        let value = doc_of(vec![
            json!({"type":"text","text":"Hello "}),
            json!({"type":"link","href":"https://a.example/","children":[{"type":"text","text":"link"}]}),
            para_value("real"),
            json!({"type":"text","text":"tail"}),
        ]);
        let result = sanitize(&value);
        let link = Inline::Link { href: "https://a.example/".into(), children: vec![Text { text: "link".into() }] };
        assert_eq!(
            result.doc.children,
            vec![Block::Paragraph { children: vec![text("Hello "), link] }, paragraph("real"), paragraph("tail")]
        );
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderUnknownNode, "/children/0".into()),
                (Code::RenderUnknownNode, "/children/1".into()),
                (Code::RenderUnknownNode, "/children/3".into()),
            ]
        );
    }

    #[test]
    fn inline_nodes_in_blockquote_and_list_item_are_wrapped() {
        let value = doc_of(vec![
            json!({"type":"blockquote","children":[{"type":"text","text":"q"}]}),
            json!({"type":"list","ordered":false,"items":[{"type":"list_item","children":[{"type":"text","text":"i"}]}]}),
        ]);
        let result = sanitize(&value);
        assert_eq!(
            result.doc.children,
            vec![
                Block::Blockquote { children: vec![paragraph("q")] },
                Block::List { ordered: false, items: vec![ListItem { children: vec![paragraph("i")] }] },
            ]
        );
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderUnknownNode, "/children/0/children/0".into()),
                (Code::RenderUnknownNode, "/children/1/items/0/children/0".into()),
            ]
        );
    }

    #[test]
    fn bare_strings_are_read_as_text() {
        let value = doc_of(vec![
            json!("loose"),
            json!({"type":"paragraph","children":["a", {"type":"text","text":"b"}]}),
            json!({"type":"paragraph","children":[{"type":"link","href":"https://x.example/","children":["t"]}]}),
        ]);
        let result = sanitize(&value);
        assert_eq!(
            result.doc.children,
            vec![
                paragraph("loose"),
                Block::Paragraph { children: vec![text("a"), text("b")] },
                Block::Paragraph {
                    children: vec![Inline::Link {
                        href: "https://x.example/".into(),
                        children: vec![Text { text: "t".into() }]
                    }]
                },
            ]
        );
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderUnknownNode, "/children/0".into()),
                (Code::RenderUnknownNode, "/children/1/children/0".into()),
                (Code::RenderUnknownNode, "/children/2/children/0/children/0".into()),
            ]
        );
    }

    #[test]
    fn list_items_that_are_not_list_items_are_wrapped() {
        let value = doc_of(vec![json!({"type":"list","ordered":true,"items":[
            "first",
            para_value("second"),
            {"type":"text","text":"third"},
            {"type":"table_row","cells":[]},
        ]})]);
        let result = sanitize(&value);
        let item = |content: &str| ListItem { children: vec![paragraph(content)] };
        assert_eq!(
            result.doc.children,
            vec![Block::List { ordered: true, items: vec![item("first"), item("second"), item("third")] }]
        );
        let codes: Vec<_> = reported(&value);
        assert_eq!(
            codes,
            (0..4).map(|i| (Code::RenderUnknownNode, format!("/children/0/items/{i}"))).collect::<Vec<_>>()
        );
    }

    #[test]
    fn table_cells_that_are_not_cells_are_wrapped_and_rows_must_be_rows() {
        let value = doc_of(vec![json!({"type":"table","rows":[
            {"type":"table_row","cells":["a", {"type":"text","text":"b"}, {"type":"table_cell","header":true,"children":[]}]},
            {"type":"table_cell","header":false,"children":[]},
        ]})]);
        let result = sanitize(&value);
        assert_eq!(
            result.doc.children,
            vec![Block::Table {
                rows: vec![TableRow {
                    cells: vec![
                        TableCell { header: false, children: vec![text("a")] },
                        TableCell { header: false, children: vec![text("b")] },
                        TableCell { header: true, children: vec![] },
                    ]
                }]
            }]
        );
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderUnknownNode, "/children/0/rows/0/cells/0".into()),
                (Code::RenderUnknownNode, "/children/0/rows/0/cells/1".into()),
                (Code::RenderUnknownNode, "/children/0/rows/1".into()),
            ]
        );
    }

    #[test]
    fn table_cells_hold_inline_content_only() {
        let value = doc_of(vec![json!({"type":"table","rows":[{"type":"table_row","cells":[
            {"type":"table_cell","header":false,"children":[para_value("block"), {"type":"text","text":"ok"}]}
        ]}]})]);
        let result = sanitize(&value);
        assert_eq!(reported(&value), vec![(Code::RenderUnknownNode, "/children/0/rows/0/cells/0/children/0".into())]);
        assert_eq!(
            result.doc.children,
            vec![Block::Table {
                rows: vec![TableRow { cells: vec![TableCell { header: false, children: vec![text("ok")] }] }]
            }]
        );
    }

    // ---- sanitize: fields ------------------------------------------------------------------

    #[test]
    fn heading_levels_are_clamped_or_defaulted() {
        let cases = [
            (json!(9), 6, "/children/0/level"),
            (json!(0), 1, "/children/0/level"),
            (json!(-3), 1, "/children/0/level"),
            (json!(2.0), 2, "/children/0/level"),
            (json!(3.6), 4, "/children/0/level"),
            (json!(1e300), 6, "/children/0/level"),
            (json!(u64::MAX), 6, "/children/0/level"),
            (json!("3"), 2, "/children/0/level"),
            (json!(null), 2, "/children/0/level"),
        ];
        for (level, expected, path) in cases {
            let value = doc_of(vec![json!({"type":"heading","level":level,"children":[{"type":"text","text":"h"}]})]);
            let result = sanitize(&value);
            assert_eq!(
                result.doc.children,
                vec![Block::Heading { level: expected, children: vec![text("h")] }],
                "{level}"
            );
            assert_eq!(reported(&value), vec![(Code::RenderInvalidField, path.to_owned())], "{level}");
        }
        let missing = doc_of(vec![json!({"type":"heading","children":[{"type":"text","text":"h"}]})]);
        assert_eq!(sanitize(&missing).doc.children, vec![Block::Heading { level: 2, children: vec![text("h")] }]);
        assert_eq!(reported(&missing), vec![(Code::RenderInvalidField, "/children/0".into())]);
    }

    #[test]
    fn missing_or_ill_typed_booleans_default_to_false() {
        let value = doc_of(vec![
            json!({"type":"list","items":[{"type":"list_item","children":[para_value("a")]}]}),
            json!({"type":"list","ordered":"yes","items":[{"type":"list_item","children":[para_value("b")]}]}),
            json!({"type":"table","rows":[{"type":"table_row","cells":[{"type":"table_cell","children":[]}]}]}),
        ]);
        let result = sanitize(&value);
        assert!(matches!(result.doc.children[0], Block::List { ordered: false, .. }));
        assert!(matches!(result.doc.children[1], Block::List { ordered: false, .. }));
        assert_eq!(
            result.doc.children[2],
            Block::Table { rows: vec![TableRow { cells: vec![TableCell { header: false, children: vec![] }] }] }
        );
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderInvalidField, "/children/0".into()),
                (Code::RenderInvalidField, "/children/1/ordered".into()),
                (Code::RenderInvalidField, "/children/2/rows/0/cells/0".into()),
            ]
        );
    }

    #[test]
    fn code_blocks_without_string_text_are_dropped() {
        let value = doc_of(vec![
            json!({"type":"code_block","language":"rust"}),
            json!({"type":"code_block","text":5}),
            json!({"type":"code_block","text":"kept"}),
        ]);
        assert_eq!(sanitize(&value).doc.children, vec![Block::CodeBlock { language: None, text: "kept".into() }]);
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderInvalidField, "/children/0".into()),
                (Code::RenderInvalidField, "/children/1/text".into()),
            ]
        );
    }

    #[test]
    fn bad_code_languages_are_dropped() {
        let long = "a".repeat(33);
        for language in
            [json!("rust lang"), json!("x\" onclick=\"y"), json!(""), json!(long), json!(5), json!("<script>")]
        {
            let value = doc_of(vec![json!({"type":"code_block","language":language,"text":"t"})]);
            assert_eq!(sanitize(&value).doc.children, vec![Block::CodeBlock { language: None, text: "t".into() }]);
            assert_eq!(reported(&value), vec![(Code::RenderInvalidField, "/children/0/language".into())], "{language}");
        }
        for language in ["c++", "c#", "objective-c", "x86_64", "js.map", "a"] {
            assert!(is_allowed_language(language), "{language}");
        }
    }

    #[test]
    fn unknown_keys_are_reported_and_ignored() {
        let value = doc_of(vec![
            json!({"type":"paragraph","style":"x","children":[{"type":"text","text":"a","bold":true}]}),
            json!({"type":"code_block","text":"c","onclick":"x"}),
            json!({"type":"list","ordered":false,"start":3,"items":[{"type":"list_item","id":1,"children":[para_value("i")]}]}),
        ]);
        let result = sanitize(&value);
        assert_eq!(result.doc.children.len(), 3);
        assert_eq!(result.doc.children[0], paragraph("a"));
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderInvalidField, "/children/0/style".into()),
                (Code::RenderInvalidField, "/children/0/children/0/bold".into()),
                (Code::RenderInvalidField, "/children/1/onclick".into()),
                (Code::RenderInvalidField, "/children/2/start".into()),
                (Code::RenderInvalidField, "/children/2/items/0/id".into()),
            ]
        );
    }

    #[test]
    fn text_nodes_without_string_text_are_dropped() {
        let value = doc_of(vec![json!({"type":"paragraph","children":[
            {"type":"text","text":7},
            {"type":"text"},
            {"type":"text","text":"ok"}
        ]})]);
        assert_eq!(sanitize(&value).doc.children, vec![paragraph("ok")]);
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderInvalidField, "/children/0/children/0/text".into()),
                (Code::RenderInvalidField, "/children/0/children/1".into()),
            ]
        );
    }

    #[test]
    fn missing_children_are_reported_and_empty_nodes_removed() {
        let value = doc_of(vec![json!({"type":"paragraph"}), json!({"type":"blockquote","children":"x"})]);
        assert!(sanitize(&value).doc.children.is_empty());
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderInvalidField, "/children/0".into()),
                (Code::RenderInvalidField, "/children/1/children".into()),
            ]
        );
    }

    #[test]
    fn empty_containers_are_removed_silently() {
        let value = doc_of(vec![
            json!({"type":"paragraph","children":[]}),
            json!({"type":"heading","level":1,"children":[]}),
            json!({"type":"list","ordered":false,"items":[]}),
            json!({"type":"list","ordered":false,"items":[{"type":"list_item","children":[]}]}),
            json!({"type":"blockquote","children":[{"type":"paragraph","children":[]}]}),
            json!({"type":"table","rows":[{"type":"table_row","cells":[]}]}),
            para_value("survivor"),
        ]);
        let result = sanitize(&value);
        assert!(result.dropped.is_empty());
        assert_eq!(result.doc.children, vec![paragraph("survivor")]);
    }

    #[test]
    fn a_paragraph_emptied_by_dropping_is_removed() {
        let value = doc_of(vec![json!({"type":"paragraph","children":[{"type":"image","src":"x"}]})]);
        let result = sanitize(&value);
        assert!(result.doc.children.is_empty());
        assert_eq!(reported(&value), vec![(Code::RenderUnknownNode, "/children/0/children/0".into())]);
    }

    // ---- sanitize: links ---------------------------------------------------------------------

    #[test]
    fn links_with_bad_hrefs_become_their_text() {
        let link = |href: Value| json!({"type":"link","href":href,"children":[{"type":"text","text":"click"}]});
        let value = doc_of(vec![json!({"type":"paragraph","children":[
            {"type":"text","text":"a "},
            link(json!("javascript:alert(1)")),
            link(json!(17)),
            {"type":"link","children":[{"type":"text","text":"nohref"}]},
        ]})]);
        let result = sanitize(&value);
        assert_eq!(
            result.doc.children,
            vec![Block::Paragraph { children: vec![text("a "), text("click"), text("click"), text("nohref")] }]
        );
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderBadLink, "/children/0/children/1/href".into()),
                (Code::RenderBadLink, "/children/0/children/2/href".into()),
                (Code::RenderBadLink, "/children/0/children/3".into()),
            ]
        );
    }

    #[test]
    fn link_children_must_be_text() {
        let value = doc_of(vec![
            json!({"type":"paragraph","children":[{"type":"link","href":"https://ok.example/","children":[
                {"type":"link","href":"https://inner.example/","children":[{"type":"text","text":"inner"}]},
                {"type":"text","text":"outer"},
                para_value("block"),
            ]}]}),
        ]);
        let result = sanitize(&value);
        assert_eq!(
            result.doc.children,
            vec![Block::Paragraph {
                children: vec![Inline::Link {
                    href: "https://ok.example/".into(),
                    children: vec![Text { text: "outer".into() }]
                }]
            }]
        );
        assert_eq!(
            reported(&value),
            vec![
                (Code::RenderUnknownNode, "/children/0/children/0/children/0".into()),
                (Code::RenderUnknownNode, "/children/0/children/0/children/2".into()),
            ]
        );
    }

    // ---- sanitize: depth -------------------------------------------------------------------

    /// `levels` blockquotes nested inside each other, each also holding a paragraph, built
    /// without recursion.
    fn nested_blockquotes(levels: usize) -> Value {
        let mut value = para_value("bottom");
        for level in 0..levels {
            value = node(
                "blockquote",
                vec![("children", Value::Array(vec![para_value(&format!("level {level}")), value]))],
            );
        }
        node("doc", vec![("children", Value::Array(vec![value]))])
    }

    /// Builds a node object by moving `fields` in. (`json!` copies an interpolated value by
    /// serialising it, recursively, which a thousand levels of nesting would overflow.)
    fn node(kind: &str, fields: Vec<(&str, Value)>) -> Value {
        let mut object = Map::new();
        object.insert("type".to_owned(), Value::from(kind));
        for (key, value) in fields {
            object.insert(key.to_owned(), value);
        }
        Value::Object(object)
    }

    /// The node depth of a document (the doc itself counting 1), computed without recursion.
    fn doc_depth(doc: &Doc) -> usize {
        let mut deepest = 1;
        let mut stack: Vec<(&Block, usize)> = doc.children.iter().map(|block| (block, 2)).collect();
        while let Some((block, depth)) = stack.pop() {
            let below = match block {
                Block::Heading { children, .. } | Block::Paragraph { children } => inline_depth(children),
                Block::List { items, .. } => {
                    for item in items {
                        stack.extend(item.children.iter().map(|child| (child, depth + 2)));
                    }
                    usize::from(!items.is_empty())
                }
                Block::Blockquote { children } => {
                    stack.extend(children.iter().map(|child| (child, depth + 1)));
                    0
                }
                Block::CodeBlock { .. } => 0,
                Block::Table { rows } => {
                    let cells = rows.iter().flat_map(|row| &row.cells);
                    2 + cells.map(|cell| inline_depth(&cell.children)).max().unwrap_or(0)
                }
            };
            deepest = deepest.max(depth + below);
        }
        deepest
    }

    fn inline_depth(inlines: &[Inline]) -> usize {
        inlines
            .iter()
            .map(|inline| match inline {
                Inline::Text(_) => 1,
                Inline::Link { children, .. } => 1 + usize::from(!children.is_empty()),
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn nesting_a_thousand_deep_is_cut_at_max_depth() {
        let value = nested_blockquotes(1_000);
        let result = sanitize(&value);
        let too_deep: Vec<_> = result.dropped.iter().filter(|v| v.code == Code::RenderTooDeep).collect();
        assert_eq!(result.dropped.len(), too_deep.len());
        // Cut where they would pass depth 32: the blockquote and the paragraph inside the
        // blockquote at depth 32, and the text of the paragraph inside the one at depth 31. Both
        // of those blockquotes are then empty and removed too.
        assert_eq!(too_deep.len(), 3);
        assert!(too_deep.iter().all(|v| v.path.starts_with("/children/0/children/1/children/1")));
        assert_eq!(doc_depth(&result.doc), MAX_DEPTH);
        // The output is valid as it stands and renders without trouble.
        let again = sanitize(&serde_json::to_value(&result.doc).expect("serialises"));
        assert!(again.dropped.is_empty());
        assert_eq!(again.doc, result.doc);
        assert!(to_html(&result.doc).contains("level 999"));
        assert!(result.doc.plain_text().contains("level 999"));
    }

    #[test]
    fn nesting_a_thousand_deep_without_content_vanishes() {
        let mut value = json!({"type":"list","ordered":false,"items":[]});
        for _ in 0..1_000 {
            let item = node("list_item", vec![("children", Value::Array(vec![value]))]);
            value = node("list", vec![("ordered", Value::Bool(false)), ("items", Value::Array(vec![item]))]);
        }
        let result = sanitize(&node("doc", vec![("children", Value::Array(vec![value]))]));
        assert!(result.doc.children.is_empty());
        assert_eq!(result.dropped.len(), 1);
        assert_eq!(result.dropped[0].code, Code::RenderTooDeep);
        // doc 1, then list/list_item pairs: the node at depth 33 is a list item.
        assert_eq!(result.dropped[0].path, format!("/children/0{}", "/items/0/children/0".repeat(15) + "/items/0"));
    }

    #[test]
    fn rendering_a_deep_doc_built_in_code_stops_at_max_depth() {
        let mut block = paragraph("deepest");
        for _ in 0..200 {
            block = Block::Blockquote { children: vec![block] };
        }
        let doc = Doc { children: vec![block] };
        let html = to_html(&doc);
        assert!(!html.contains("deepest"));
        assert_eq!(html.matches("<blockquote>").count(), MAX_DEPTH - 1);
        assert!(doc.plain_text().is_empty());
        assert!(doc.is_empty());
    }

    // ---- hrefs -----------------------------------------------------------------------------

    #[test]
    fn allowed_hrefs() {
        for href in [
            "https://example.com",
            "http://example.com/path?q=1#frag",
            "HTTPS://EXAMPLE.COM/",
            "https://例え.jp/",
            "mailto:someone@example.com",
            "MAILTO:a@b.c",
            "https://example.com:8080/a%20b",
        ] {
            assert!(is_allowed_href(href), "{href}");
        }
    }

    #[test]
    fn refused_hrefs() {
        let long = format!("https://example.com/{}", "a".repeat(MAX_HREF_CHARS));
        for href in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "JAVASCRIPT:x",
            " javascript:alert(1)",
            "\njavascript:alert(1)",
            "java\tscript:alert(1)",
            "jav&#x09;ascript:alert(1)",
            "javascript&colon;alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:msgbox(1)",
            "file:///etc/passwd",
            "ftp://example.com/",
            "//evil.com",
            "/relative/path",
            "relative",
            "#fragment",
            "",
            " https://example.com",
            "https://example.com ",
            "https://exa mple.com",
            "https://example.com/\u{0}",
            "https://user:pass@example.com/",
            "https://google.com@evil.com/",
            "http://",
            "mailto:",
            long.as_str(),
        ] {
            assert!(!is_allowed_href(href), "{href:?}");
        }
    }

    // ---- HTML ------------------------------------------------------------------------------

    #[test]
    fn example_renders_to_the_expected_html() {
        let doc = sanitize(&example()).doc;
        assert_eq!(
            to_html(&doc),
            "<h2>Summary</h2>\n<p>This page explains ...</p>\n<ul><li><p>Key point A</p></li></ul>"
        );
    }

    #[test]
    fn rich_doc_renders_every_tag() {
        let html = to_html(&sanitize(&rich()).doc);
        assert!(html.contains("<h1>Title</h1>"));
        assert!(html.contains(
            "<a href=\"https://example.com/a?b=c&amp;d=e\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">the docs</a>"
        ));
        // A link without text shows its address.
        assert!(html.contains(">mailto:someone@example.com</a>"));
        assert!(html.contains("<ol><li><p>one</p>\n<ul><li><p>one.a</p></li></ul></li><li><p>two</p></li></ol>"));
        assert!(html.contains("<blockquote><p>quoted</p></blockquote>"));
        assert!(html.contains("<pre><code class=\"language-rust\">fn main() {}\n</code></pre>"));
        assert!(html.contains("<pre><code>plain</code></pre>"));
        assert!(html.contains(
            "<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a</td><td></td></tr></tbody></table>"
        ));
        assert_safe_html(&html);
    }

    #[test]
    fn table_sections_follow_the_header_rows() {
        let row = |header: bool| TableRow { cells: vec![TableCell { header, children: vec![text("c")] }] };
        let only_body = Doc { children: vec![Block::Table { rows: vec![row(false), row(true)] }] };
        assert_eq!(to_html(&only_body), "<table><tbody><tr><td>c</td></tr><tr><th>c</th></tr></tbody></table>");
        let only_head = Doc { children: vec![Block::Table { rows: vec![row(true), row(true)] }] };
        assert_eq!(to_html(&only_head), "<table><thead><tr><th>c</th></tr><tr><th>c</th></tr></thead></table>");
    }

    #[test]
    fn text_is_escaped() {
        let doc = Doc { children: vec![paragraph("<script>alert(1)</script> & \"quotes\" 'single'")] };
        assert_eq!(
            to_html(&doc),
            "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;single&#39;</p>"
        );
        let code = Doc {
            children: vec![Block::CodeBlock {
                language: None,
                text: "</code></pre><img src=x onerror=alert(1)>".into(),
            }],
        };
        assert_eq!(
            to_html(&code),
            "<pre><code>&lt;/code&gt;&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;</code></pre>"
        );
    }

    #[test]
    fn attributes_cannot_be_broken_out_of() {
        // Built in code, so nothing was sanitised first.
        let link = |href: &str| Inline::Link { href: href.into(), children: vec![Text { text: "x".into() }] };
        let doc = Doc {
            children: vec![
                Block::Paragraph {
                    children: vec![
                        link("https://a.example/\"onmouseover=\"alert(1)"),
                        link("https://a.example/\" onmouseover=\"alert(1)"),
                        link("https://a.example/'><script>"),
                        link("javascript:alert(1)"),
                    ],
                },
                Block::CodeBlock { language: Some("x\" onclick=\"y".into()), text: "t".into() },
                Block::CodeBlock { language: Some("x\"onclick=\"y".into()), text: "t".into() },
            ],
        };
        let html = to_html(&doc);
        assert!(!html.contains("\"onmouseover"), "{html}");
        assert!(!html.contains(" onmouseover"), "{html}");
        assert!(!html.contains("onclick"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("javascript"), "{html}");
        assert!(html.contains("<a href=\"https://a.example/%22onmouseover=%22alert(1)\""), "{html}");
        assert_safe_html(&html);
    }

    #[test]
    fn links_with_refused_hrefs_render_as_text() {
        let doc = Doc {
            children: vec![Block::Paragraph {
                children: vec![Inline::Link {
                    href: "javascript:alert(1)".into(),
                    children: vec![Text { text: "click me".into() }],
                }],
            }],
        };
        assert_eq!(to_html(&doc), "<p>click me</p>");
        // Without text, a refused link shows nothing rather than its href.
        let empty = Doc {
            children: vec![Block::Paragraph {
                children: vec![text("a"), Inline::Link { href: "data:text/html,x".into(), children: vec![] }],
            }],
        };
        assert_eq!(to_html(&empty), "<p>a</p>");
    }

    #[test]
    fn heading_levels_outside_the_range_render_as_h1_to_h6() {
        let heading = |level| Doc { children: vec![Block::Heading { level, children: vec![text("h")] }] };
        assert_eq!(to_html(&heading(0)), "<h1>h</h1>");
        assert_eq!(to_html(&heading(200)), "<h6>h</h6>");
    }

    // ---- plain text --------------------------------------------------------------------------

    #[test]
    fn plain_text_of_the_example() {
        assert_eq!(sanitize(&example()).doc.plain_text(), "Summary\n\nThis page explains ...\n\n- Key point A");
    }

    #[test]
    fn plain_text_of_every_block() {
        let doc = sanitize(&rich()).doc;
        assert_eq!(
            doc.plain_text(),
            "Title\n\nSee the docs or mailto:someone@example.com\n\n1. one\n   - one.a\n2. two\n\n> quoted\n\nfn main() {}\n\n\nplain\n\nName\tValue\na\t"
        );
    }

    #[test]
    fn from_plain_text_splits_paragraphs_on_blank_lines() {
        let doc = Doc::from_plain_text("first line\nsecond line\n\n  \n\nnext\r\nparagraph\n\n");
        assert_eq!(doc.children, vec![paragraph("first line\nsecond line"), paragraph("next\nparagraph")]);
        assert!(Doc::from_plain_text("").children.is_empty());
        assert!(Doc::from_plain_text("\n \n").is_empty());
        // plain text survives the trip through a document.
        assert_eq!(doc.plain_text(), "first line\nsecond line\n\nnext\nparagraph");
    }

    #[test]
    fn is_empty_means_nothing_visible() {
        assert!(Doc::default().is_empty());
        assert!(Doc { children: vec![paragraph("  ")] }.is_empty());
        assert!(!Doc { children: vec![paragraph("x")] }.is_empty());
        assert!(!sanitize(&example()).doc.is_empty());
    }

    // ---- property tests ------------------------------------------------------------------------

    const ALLOWED_TAGS: &[&str] = &[
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "ul",
        "ol",
        "li",
        "blockquote",
        "pre",
        "code",
        "a",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    ];

    /// A tiny scanner over `to_html` output: every `<` opens an allowed tag, every attribute is
    /// one the renderer may emit with a safe value, and text holds no raw `>`, `"` or `'`.
    pub(crate) fn assert_safe_html(html: &str) {
        let mut rest = html;
        loop {
            let (text, after_text) = match rest.find('<') {
                Some(start) => (&rest[..start], Some(&rest[start + 1..])),
                None => (rest, None),
            };
            assert!(!text.contains(['>', '"', '\'']), "unescaped text {text:?} in {html:?}");
            let Some(tag_start) = after_text else { break };
            let end = tag_start.find('>').unwrap_or_else(|| panic!("unclosed tag in {html:?}"));
            let tag = &tag_start[..end];
            rest = &tag_start[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                assert!(ALLOWED_TAGS.contains(&name), "closing tag {name:?} in {html:?}");
                continue;
            }
            let name_end = tag.find(' ').unwrap_or(tag.len());
            let name = &tag[..name_end];
            assert!(ALLOWED_TAGS.contains(&name), "tag {name:?} in {html:?}");
            let mut attributes = &tag[name_end..];
            while !attributes.is_empty() {
                let attribute = attributes.strip_prefix(' ').unwrap_or_else(|| panic!("bad attributes {tag:?}"));
                let (key, value_and_rest) =
                    attribute.split_once("=\"").unwrap_or_else(|| panic!("bad attribute in {tag:?}"));
                let (value, after) =
                    value_and_rest.split_once('"').unwrap_or_else(|| panic!("unterminated value in {tag:?}"));
                match (name, key) {
                    ("a", "href") => assert!(
                        ["http://", "https://", "mailto:"].iter().any(|prefix| value.starts_with(prefix)),
                        "href {value:?}"
                    ),
                    ("a", "rel") => assert_eq!(value, LINK_REL),
                    ("a", "target") => assert_eq!(value, "_blank"),
                    ("code", "class") => {
                        let language = value.strip_prefix("language-").unwrap_or_else(|| panic!("class {value:?}"));
                        assert!(is_allowed_language(language), "class {value:?}");
                    }
                    _ => panic!("attribute {key:?} on {name:?} in {html:?}"),
                }
                assert!(!value.contains(['<', '\'']), "unescaped value {value:?}");
                attributes = after;
            }
        }
    }

    fn any_text() -> impl Strategy<Value = String> {
        prop_oneof![
            ".{0,12}",
            "[<>\"'& a-z/=]{0,16}",
            Just("<script>alert(1)</script>".to_owned()),
            Just("\" onmouseover=\"x".to_owned()),
        ]
    }

    fn any_href() -> impl Strategy<Value = String> {
        prop_oneof![
            ".{0,20}",
            "(javascript|JaVaScRiPt|data|vbscript|http|https|mailto|HTTPS|ftp|file)[:;]{0,2}[ -~]{0,24}",
            "(https?|mailto)://[a-z.@:]{0,10}[ -~]{0,16}",
            "[ \t\n]?(//|/)[a-z]{1,8}[ -~]{0,8}",
            Just("https://example.com/\"onmouseover=\"x".to_owned()),
            Just("java\tscript:alert(1)".to_owned()),
        ]
    }

    fn any_language() -> impl Strategy<Value = Option<String>> {
        prop::option::of(prop_oneof!["[A-Za-z0-9_+#.-]{1,40}", any_text()])
    }

    fn any_inline() -> impl Strategy<Value = Inline> {
        let texts = prop::collection::vec(any_text().prop_map(|text| Text { text }), 0..3);
        prop_oneof![
            any_text().prop_map(|text| Inline::Text(Text { text })),
            (any_href(), texts).prop_map(|(href, children)| Inline::Link { href, children }),
        ]
    }

    fn any_inlines() -> impl Strategy<Value = Vec<Inline>> {
        prop::collection::vec(any_inline(), 0..4)
    }

    fn any_block() -> impl Strategy<Value = Block> {
        let leaf = prop_oneof![
            (any::<u8>(), any_inlines()).prop_map(|(level, children)| Block::Heading { level, children }),
            any_inlines().prop_map(|children| Block::Paragraph { children }),
            (any_language(), any_text()).prop_map(|(language, text)| Block::CodeBlock { language, text }),
            prop::collection::vec(
                prop::collection::vec(
                    (any::<bool>(), any_inlines()).prop_map(|(header, children)| TableCell { header, children }),
                    0..3
                )
                .prop_map(|cells| TableRow { cells }),
                0..3
            )
            .prop_map(|rows| Block::Table { rows }),
        ];
        leaf.prop_recursive(4, 48, 3, |inner| {
            let blocks = prop::collection::vec(inner, 0..3);
            prop_oneof![
                blocks.clone().prop_map(|children| Block::Blockquote { children }),
                (any::<bool>(), prop::collection::vec(blocks.prop_map(|children| ListItem { children }), 0..3))
                    .prop_map(|(ordered, items)| Block::List { ordered, items }),
            ]
        })
    }

    fn any_doc() -> impl Strategy<Value = Doc> {
        prop::collection::vec(any_block(), 0..4).prop_map(|children| Doc { children })
    }

    /// Documents that are valid and already normalised, so `sanitize` must return them as is.
    fn valid_doc() -> impl Strategy<Value = Doc> {
        let href = prop_oneof![
            "https://[a-z]{1,8}\\.example/[a-z0-9/?=&%-]{0,12}",
            "http://[a-z]{1,8}\\.example",
            "mailto:[a-z]{1,6}@[a-z]{1,6}\\.example",
        ];
        let texts = prop::collection::vec(any_text().prop_map(|text| Text { text }), 0..3);
        let inline = prop_oneof![
            any_text().prop_map(|text| Inline::Text(Text { text })),
            (href, texts).prop_map(|(href, children)| Inline::Link { href, children }),
        ];
        let inlines = prop::collection::vec(inline, 1..4);
        let leaf = prop_oneof![
            (1u8..=6, inlines.clone()).prop_map(|(level, children)| Block::Heading { level, children }),
            inlines.clone().prop_map(|children| Block::Paragraph { children }),
            (prop::option::of("[A-Za-z0-9_+#.-]{1,32}"), any_text())
                .prop_map(|(language, text)| Block::CodeBlock { language, text }),
            prop::collection::vec(
                prop::collection::vec(
                    (any::<bool>(), prop::collection::vec(any_inline_text(), 0..3))
                        .prop_map(|(header, children)| TableCell { header, children }),
                    1..3
                )
                .prop_map(|cells| TableRow { cells }),
                1..3
            )
            .prop_map(|rows| Block::Table { rows }),
        ];
        let block = leaf.prop_recursive(4, 48, 3, |inner| {
            let blocks = prop::collection::vec(inner, 1..3);
            prop_oneof![
                blocks.clone().prop_map(|children| Block::Blockquote { children }),
                (any::<bool>(), prop::collection::vec(blocks.prop_map(|children| ListItem { children }), 1..3))
                    .prop_map(|(ordered, items)| Block::List { ordered, items }),
            ]
        });
        prop::collection::vec(block, 0..4).prop_map(|children| Doc { children })
    }

    fn any_inline_text() -> impl Strategy<Value = Inline> {
        any_text().prop_map(|text| Inline::Text(Text { text }))
    }

    /// Arbitrary JSON shaped mostly like render nodes (with the right child key most of the
    /// time, random scalar fields and junk mixed in), so that the walk goes deep and meets every
    /// rule.
    fn any_json() -> impl Strategy<Value = Value> {
        let scalar = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            (0u8..9).prop_map(Value::from),
            any_text().prop_map(Value::String),
            any_href().prop_map(Value::String),
            "[a-z_]{1,10}".prop_map(Value::String),
        ];
        let field = prop_oneof![
            Just("level"),
            Just("ordered"),
            Just("header"),
            Just("language"),
            Just("text"),
            Just("href"),
            Just("type"),
            Just("on/click~"),
        ];
        let extras = prop::collection::vec((field, scalar.clone()), 0..3);
        let text_value = prop_oneof![4 => any_text().prop_map(Value::String), 1 => scalar.clone()];
        let text_node = (text_value.clone(), extras.clone())
            .prop_map(|(text, extras)| with_extras(node("text", vec![("text", text)]), extras));
        let link_children = prop::collection::vec(prop_oneof![3 => text_node.clone(), 1 => scalar.clone()], 0..3);
        let link_node = (any_href(), link_children, extras.clone()).prop_map(|(href, children, extras)| {
            with_extras(node("link", vec![("href", Value::String(href)), ("children", Value::Array(children))]), extras)
        });
        let code_node =
            (text_value, prop::option::of(any_language()), extras.clone()).prop_map(|(text, language, extras)| {
                let mut fields = vec![("text", text)];
                if let Some(language) = language {
                    fields.push(("language", language.map_or(Value::Null, Value::String)));
                }
                with_extras(node("code_block", fields), extras)
            });
        let leaf = prop_oneof![scalar, text_node, link_node, code_node];
        let container_type = prop_oneof![
            Just("doc"),
            Just("heading"),
            Just("paragraph"),
            Just("list"),
            Just("list_item"),
            Just("blockquote"),
            Just("table"),
            Just("table_row"),
            Just("table_cell"),
            Just("link"),
            Just("strong"),
        ];
        leaf.prop_recursive(12, 256, 4, move |inner| {
            let children = prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array);
            let container = (container_type.clone(), prop::bool::weighted(0.8), children, extras.clone()).prop_map(
                |(kind, right_key, children, extras)| {
                    let key = match (kind, right_key) {
                        ("list", true) => "items",
                        ("table", true) => "rows",
                        ("table_row", true) => "cells",
                        (_, true) => "children",
                        (_, false) => "items",
                    };
                    let mut fields = vec![(key, children)];
                    match kind {
                        "heading" => fields.push(("level", Value::from(2))),
                        "list" => fields.push(("ordered", Value::Bool(true))),
                        "table_cell" => fields.push(("header", Value::Bool(false))),
                        _ => {}
                    }
                    with_extras(node(kind, fields), extras)
                },
            );
            prop_oneof![1 => prop::collection::vec(inner, 0..4).prop_map(Value::Array), 6 => container]
        })
    }

    fn with_extras(mut value: Value, extras: Vec<(&str, Value)>) -> Value {
        if let Value::Object(object) = &mut value {
            for (key, extra) in extras {
                object.insert(key.to_owned(), extra);
            }
        }
        value
    }

    proptest! {
        #[test]
        fn to_html_of_any_doc_is_safe(doc in any_doc()) {
            assert_safe_html(&to_html(&doc));
        }

        #[test]
        fn any_doc_round_trips_through_serde(doc in any_doc()) {
            let value = serde_json::to_value(&doc).expect("serialises");
            prop_assert_eq!(serde_json::from_value::<Doc>(value).expect("deserialises"), doc);
        }

        #[test]
        fn sanitize_keeps_any_valid_doc(doc in valid_doc()) {
            let result = sanitize(&serde_json::to_value(&doc).expect("serialises"));
            prop_assert_eq!(result.dropped, vec![]);
            prop_assert_eq!(result.doc, doc);
        }

        #[test]
        fn sanitize_of_any_json_is_safe_valid_and_stable(value in any_json()) {
            let result = sanitize(&value);
            assert_safe_html(&to_html(&result.doc));
            let _ = result.doc.plain_text();
            // What sanitize returns is itself valid and comes back unchanged.
            let again = sanitize(&serde_json::to_value(&result.doc).expect("serialises"));
            prop_assert_eq!(again.dropped, vec![]);
            prop_assert_eq!(again.doc, result.doc);
        }

        #[test]
        fn sanitize_repairs_any_doc_into_a_safe_valid_one(doc in any_doc()) {
            // Arbitrary hrefs, heading levels and languages, and empty containers.
            let result = sanitize(&serde_json::to_value(&doc).expect("serialises"));
            for violation in &result.dropped {
                prop_assert!(
                    matches!(violation.code, Code::RenderBadLink | Code::RenderInvalidField),
                    "{}", violation
                );
            }
            assert_safe_html(&to_html(&result.doc));
            let again = sanitize(&serde_json::to_value(&result.doc).expect("serialises"));
            prop_assert_eq!(again.dropped, vec![]);
            prop_assert_eq!(again.doc, result.doc);
        }

        #[test]
        fn sanitize_of_any_json_wrapped_in_a_doc_is_safe(children in prop::collection::vec(any_json(), 0..4)) {
            let result = sanitize(&json!({"type":"doc","children":children}));
            assert_safe_html(&to_html(&result.doc));
        }

        #[test]
        fn from_plain_text_keeps_the_words(text in "[a-z \n<>&]{0,40}") {
            let doc = Doc::from_plain_text(&text);
            let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
            prop_assert_eq!(words(&doc.plain_text()), words(&text));
            assert_safe_html(&to_html(&doc));
        }
    }
}
