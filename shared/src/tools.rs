//! The tool catalogue: every tool a model may propose, with typed arguments.
//!
//! A model's tool call arrives as `{ "name": …, "arguments": {…} }` ([`RawToolCall`]). It becomes
//! a [`ToolCall`] only through [`RawToolCall::to_typed`], which checks the name against the
//! catalogue, the arguments against the tool's type (required fields, types, no extra keys) and
//! the ranges the texts set. An unknown name is reported and never becomes a typed call, so it
//! can never be executed. `handleId` is checked against the latest observation separately
//! ([`ToolCall::check_handle`]), because the observation lives with the caller.

use crate::codes::{Code, Violation, pointer};
use crate::observation::Observation;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A tool call as the model wrote it, before any checking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RawToolCall {
    pub name: String,
    /// May be omitted when a tool takes no parameters.
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// Where a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Executor {
    /// The content script of the observed tab (DOM actions).
    ContentScript,
    /// The extension background (tab actions).
    Background,
    /// Trusted code in the native host.
    Host,
}

/// One catalogue entry, for prompts, docs and UIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ToolSpec {
    pub name: &'static str,
    pub executor: Executor,
    pub description: &'static str,
    /// The argument shape as the texts write it.
    pub arguments: &'static str,
}

/// Range and consistency checks that the type alone cannot express.
trait CheckArgs {
    /// Pushes `(field, message)` for each out-of-range argument.
    fn check(&self, _out: &mut Vec<(&'static str, String)>) {}
}

macro_rules! catalogue {
    ($( $variant:ident($args:ident) => $name:literal, $executor:ident, $shape:literal, $desc:literal; )*) => {
        /// A checked tool call with typed arguments.
        #[derive(Debug, Clone, PartialEq)]
        pub enum ToolCall {
            $( $variant($args), )*
        }

        /// Every tool of laika-llmcp.md and laika-tools.md.
        pub const CATALOGUE: &[ToolSpec] = &[
            $( ToolSpec { name: $name, executor: Executor::$executor, description: $desc, arguments: $shape }, )*
        ];

        impl ToolCall {
            pub fn name(&self) -> &'static str {
                match self { $( ToolCall::$variant(_) => $name, )* }
            }

            pub fn spec(&self) -> &'static ToolSpec {
                // The catalogue is built from the same list as the enum, so the name is always there.
                CATALOGUE.iter().find(|spec| spec.name == self.name()).unwrap_or(&CATALOGUE[0])
            }

            /// The arguments as JSON, in the model's camelCase spelling.
            pub fn arguments(&self) -> Value {
                let value = match self { $( ToolCall::$variant(args) => serde_json::to_value(args), )* };
                value.unwrap_or(Value::Object(Map::new()))
            }

            fn decode(name: &str, arguments: &Map<String, Value>) -> Option<Result<ToolCall, Vec<Violation>>> {
                Some(match name {
                    $( $name => decode_args::<$args>(arguments).map(ToolCall::$variant), )*
                    _ => return None,
                })
            }
        }
    };
}

catalogue! {
    ObserveDom(ObserveDomArgs) => "browser.observe_dom", ContentScript,
        r#"{ "maxChars"?: int, "maxElements"?: int, "maxBlocks"?: int, "maxPrimaryChars"?: int, "maxOutline"?: int, "maxOutlineChars"?: int, "maxItems"?: int, "maxItemChars"?: int, "maxComments"?: int, "maxCommentChars"?: int, "rootHandleId"?: string, "cursor"?: int, "debug"?: boolean }"#,
        "Capture or refresh page text and element handles.";
    GetSelectionLinks(GetSelectionLinksArgs) => "browser.get_selection_links", ContentScript,
        r#"{ "maxLinks"?: int }"#, "List the links inside the user's selection.";
    Click(HandleArgs) => "browser.click", ContentScript, r#"{ "handleId": string }"#, "Click an element.";
    Type(TypeArgs) => "browser.type", ContentScript, r#"{ "handleId": string, "text": string }"#,
        "Type text into a form field.";
    Select(SelectArgs) => "browser.select", ContentScript, r#"{ "handleId": string, "value": string }"#,
        "Choose an option of a select element.";
    Scroll(ScrollArgs) => "browser.scroll", ContentScript, r#"{ "deltaY": number }"#, "Scroll the page.";
    OpenTab(UrlArgs) => "browser.open_tab", Background, r#"{ "url": string }"#, "Open a URL in a new tab.";
    Navigate(UrlArgs) => "browser.navigate", Background, r#"{ "url": string }"#,
        "Navigate the current tab to a URL.";
    Back(NoArgs) => "browser.back", Background, "{}", "Go back in history.";
    Forward(NoArgs) => "browser.forward", Background, "{}", "Go forward in history.";
    Refresh(NoArgs) => "browser.refresh", Background, "{}", "Reload the current page.";
    Search(SearchArgs) => "search", Background, r#"{ "query": string, "engine"?: string, "newTab"?: boolean }"#,
        "Search the web with the configured engine.";
    Summarize(SummarizeArgs) => "content.summarize", Host, r#"{ "scope"?: string, "handleId"?: string }"#,
        "Summarise the page from the latest observation.";
    Find(FindArgs) => "content.find", Host, r#"{ "query": string, "scope"?: "page"|"web" }"#,
        "Find text in the page, or search the web.";
    ArtifactSave(ArtifactSaveArgs) => "artifact.save", Host,
        r#"{ "title": string, "mime"?: string, "text"?: string, "doc"?: Document, "tags"?: [string], "redaction"?: "default"|"none" }"#,
        "Save a text or document artifact (exactly one of text or doc).";
    ArtifactShare(ArtifactShareArgs) => "artifact.share", Host,
        r#"{ "artifactId": string, "format": "markdown"|"text"|"json"|"csv"|"pdf", "filename"?: string, "target"?: "share_sheet"|"clipboard"|"file" }"#,
        "Export an artifact.";
    ArtifactOpen(ArtifactOpenArgs) => "artifact.open", Host,
        r#"{ "artifactId": string, "target"?: "workspace"|"browser", "newTab"?: boolean }"#, "Open an artifact.";
    IntegrationInvoke(IntegrationInvokeArgs) => "integration.invoke", Host,
        r#"{ "integration": string, "operation": string, "payload": object, "idempotencyKey"?: string }"#,
        "Call an operation of a configured integration.";
    Calculate(CalculateArgs) => "app.calculate", Host, r#"{ "expression": string, "precision"?: 0..6 }"#,
        "Evaluate an arithmetic expression.";
    CollectionCreate(CollectionCreateArgs) => "collection.create", Host, r#"{ "title": string, "tags"?: [string] }"#,
        "Create a collection of sources.";
    CollectionAddSources(CollectionAddSourcesArgs) => "collection.add_sources", Host,
        r#"{ "collectionId": string, "sources": [{ "type": "url", "url": string, "title"?: string } | { "type": "note", "title"?: string, "text": string }] }"#,
        "Add URLs or notes to a collection.";
    CollectionListSources(CollectionIdArgs) => "collection.list_sources", Host, r#"{ "collectionId": string }"#,
        "List a collection's sources.";
    SourceCapture(SourceCaptureArgs) => "source.capture", Host,
        r#"{ "collectionId": string, "url": string, "mode"?: "auto"|"article"|"list", "maxChars"?: int }"#,
        "Capture a URL into a collection.";
    SourceRefresh(SourceRefreshArgs) => "source.refresh", Host, r#"{ "sourceId": string }"#, "Capture a source again.";
    TransformListTypes(NoArgs) => "transform.list_types", Host, "{}", "List the available transforms.";
    TransformRun(TransformRunArgs) => "transform.run", Host,
        r#"{ "collectionId": string, "type": string, "config"?: object }"#, "Run a transform over a collection.";
    MoneyCalculate(MoneyCalculateArgs) => "app.money_calculate", Host,
        r#"{ "expression": string, "currency": string, "rounding"?: "bankers"|"up"|"down" }"#,
        "Decimal money arithmetic, rounded to the currency's minor unit.";
}

/// Looks a tool up by name.
pub fn spec(name: &str) -> Option<&'static ToolSpec> {
    CATALOGUE.iter().find(|spec| spec.name == name)
}

impl RawToolCall {
    /// Checks the call against the catalogue. Unknown names give [`Code::UnknownTool`].
    pub fn to_typed(&self) -> Result<ToolCall, Vec<Violation>> {
        match ToolCall::decode(&self.name, &self.arguments) {
            Some(result) => result,
            None => Err(vec![Violation::new(
                Code::UnknownTool,
                "/name",
                format!("unknown tool {:?}; it will not be executed", truncate(&self.name, 80)),
            )]),
        }
    }

    /// Reads a raw call from JSON, reporting shape errors with [`Code::InvalidToolCall`].
    pub fn from_value(value: &Value, path: &str) -> Result<RawToolCall, Violation> {
        let object = value
            .as_object()
            .ok_or_else(|| Violation::new(Code::InvalidToolCall, path, "a tool call must be an object"))?;
        let name = match object.get("name") {
            Some(Value::String(name)) => name.clone(),
            _ => return Err(Violation::new(Code::InvalidToolCall, pointer(path, "name"), "name must be a string")),
        };
        let arguments = match object.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) => arguments.clone(),
            Some(_) => {
                return Err(Violation::new(
                    Code::InvalidToolCall,
                    pointer(path, "arguments"),
                    "arguments must be an object",
                ));
            }
        };
        if let Some(extra) = object.keys().find(|k| *k != "name" && *k != "arguments") {
            return Err(Violation::new(
                Code::InvalidToolCall,
                pointer(path, extra),
                format!("unexpected key {extra:?} in a tool call"),
            ));
        }
        Ok(RawToolCall { name, arguments })
    }
}

impl From<&ToolCall> for RawToolCall {
    fn from(call: &ToolCall) -> Self {
        let arguments = match call.arguments() {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        RawToolCall { name: call.name().to_string(), arguments }
    }
}

impl ToolCall {
    /// The call as it is proposed to the user: `content.find` with `scope: "web"` is a web
    /// search (laika-tools: "scope: web proposes a search"), so its card, its gate decision and
    /// its run are the `search` tool's. Every other call is itself.
    pub fn proposed(self) -> ToolCall {
        match self {
            ToolCall::Find(FindArgs { query, scope: Some(FindScope::Web) }) => {
                ToolCall::Search(SearchArgs { query, engine: None, new_tab: None })
            }
            other => other,
        }
    }

    /// The element the call targets, if it targets one.
    pub fn handle_id(&self) -> Option<&str> {
        match self {
            ToolCall::Click(a) => Some(&a.handle_id),
            ToolCall::Type(a) => Some(&a.handle_id),
            ToolCall::Select(a) => Some(&a.handle_id),
            ToolCall::ObserveDom(a) => a.root_handle_id.as_deref(),
            ToolCall::Summarize(a) => a.handle_id.as_deref(),
            _ => None,
        }
    }

    /// `handleId` values must come from the latest observation.
    pub fn check_handle(&self, latest: &Observation) -> Result<(), Violation> {
        match self.handle_id() {
            Some(handle) if !latest.has_handle(handle) => Err(Violation::new(
                Code::ToolUnknownHandle,
                "/arguments/handleId",
                format!("{} is not in the latest observation", truncate(handle, 80)),
            )),
            _ => Ok(()),
        }
    }
}

fn decode_args<T: DeserializeOwned + CheckArgs>(arguments: &Map<String, Value>) -> Result<T, Vec<Violation>> {
    let args: T = serde_json::from_value(Value::Object(arguments.clone()))
        .map_err(|e| vec![Violation::new(Code::ToolArgsInvalid, "/arguments", e.to_string())])?;
    let mut problems = Vec::new();
    args.check(&mut problems);
    if problems.is_empty() {
        Ok(args)
    } else {
        Err(problems
            .into_iter()
            .map(|(field, message)| Violation::new(Code::ToolArgOutOfRange, pointer("/arguments", field), message))
            .collect())
    }
}

fn truncate(text: &str, max_chars: usize) -> String {
    text.chars().take(max_chars).collect()
}

// ---- limits that keep hostile arguments bounded ----------------------------------------------

const MAX_ID_CHARS: usize = 256;
const MAX_URL_CHARS: usize = 8_192;
const MAX_QUERY_CHARS: usize = 2_048;
const MAX_TYPED_CHARS: usize = 10_000;
const MAX_NOTE_CHARS: usize = 100_000;
const MAX_SCROLL: f64 = 1_000_000.0;
/// Observation budgets above this are treated as mistakes, not requests.
const MAX_BUDGET: u32 = 10_000_000;

fn need_text(out: &mut Vec<(&'static str, String)>, field: &'static str, value: &str, max_chars: usize) {
    if value.trim().is_empty() {
        out.push((field, format!("{field} must not be empty")));
    } else if value.chars().count() > max_chars {
        out.push((field, format!("{field} is longer than {max_chars} characters")));
    }
}

fn opt_text(out: &mut Vec<(&'static str, String)>, field: &'static str, value: &Option<String>, max_chars: usize) {
    if let Some(value) = value {
        need_text(out, field, value, max_chars);
    }
}

fn need_currency(out: &mut Vec<(&'static str, String)>, field: &'static str, value: &str) {
    if value.len() != 3 || !value.bytes().all(|b| b.is_ascii_alphabetic()) {
        out.push((field, format!("{field} must be a three-letter ISO 4217 code")));
    }
}

// ---- argument types ---------------------------------------------------------------------------

/// For tools that take no parameters: `{}` or no `arguments` at all.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}
impl CheckArgs for NoArgs {}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ObserveDomArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_elements: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_blocks: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_primary_chars: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_outline: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_outline_chars: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_item_chars: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_comments: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_comment_chars: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_handle_id: Option<String>,
    /// Character offset into the normalised page text, for the chunked read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug: Option<bool>,
}
impl CheckArgs for ObserveDomArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        if self.max_chars == Some(0) {
            out.push(("maxChars", "maxChars must be at least 1".into()));
        }
        let budgets = [
            ("maxChars", self.max_chars),
            ("maxElements", self.max_elements),
            ("maxBlocks", self.max_blocks),
            ("maxPrimaryChars", self.max_primary_chars),
            ("maxOutline", self.max_outline),
            ("maxOutlineChars", self.max_outline_chars),
            ("maxItems", self.max_items),
            ("maxItemChars", self.max_item_chars),
            ("maxComments", self.max_comments),
            ("maxCommentChars", self.max_comment_chars),
        ];
        for (field, value) in budgets {
            if value.is_some_and(|v| v > MAX_BUDGET) {
                out.push((field, format!("{field} is above {MAX_BUDGET}")));
            }
        }
        opt_text(out, "rootHandleId", &self.root_handle_id, MAX_ID_CHARS);
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetSelectionLinksArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_links: Option<u32>,
}
impl CheckArgs for GetSelectionLinksArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        if let Some(n) = self.max_links
            && !(1..=1_000).contains(&n)
        {
            out.push(("maxLinks", "maxLinks must be between 1 and 1000".into()));
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HandleArgs {
    pub handle_id: String,
}
impl CheckArgs for HandleArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "handleId", &self.handle_id, MAX_ID_CHARS);
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TypeArgs {
    pub handle_id: String,
    pub text: String,
}
impl CheckArgs for TypeArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "handleId", &self.handle_id, MAX_ID_CHARS);
        // Typing an empty string (clearing a field) is legitimate; only the length is bounded.
        if self.text.chars().count() > MAX_TYPED_CHARS {
            out.push(("text", format!("text is longer than {MAX_TYPED_CHARS} characters")));
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SelectArgs {
    pub handle_id: String,
    pub value: String,
}
impl CheckArgs for SelectArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "handleId", &self.handle_id, MAX_ID_CHARS);
        if self.value.chars().count() > MAX_QUERY_CHARS {
            out.push(("value", format!("value is longer than {MAX_QUERY_CHARS} characters")));
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScrollArgs {
    pub delta_y: f64,
}
impl CheckArgs for ScrollArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        if !self.delta_y.is_finite() || self.delta_y.abs() > MAX_SCROLL {
            out.push(("deltaY", format!("deltaY must be a finite number within ±{MAX_SCROLL}")));
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UrlArgs {
    pub url: String,
}
impl CheckArgs for UrlArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "url", &self.url, MAX_URL_CHARS);
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SearchArgs {
    pub query: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_tab: Option<bool>,
}
impl CheckArgs for SearchArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "query", &self.query, MAX_QUERY_CHARS);
        opt_text(out, "engine", &self.engine, MAX_ID_CHARS);
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SummarizeArgs {
    /// Reserved by the text; accepted and passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle_id: Option<String>,
}
impl CheckArgs for SummarizeArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        opt_text(out, "scope", &self.scope, MAX_ID_CHARS);
        opt_text(out, "handleId", &self.handle_id, MAX_ID_CHARS);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FindScope {
    #[default]
    Page,
    Web,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindArgs {
    pub query: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<FindScope>,
}
impl CheckArgs for FindArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "query", &self.query, MAX_QUERY_CHARS);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactRedaction {
    #[default]
    Default,
    None,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ArtifactSaveArgs {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A Laika Document (render AST); checked with the render rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redaction: Option<ArtifactRedaction>,
}
impl CheckArgs for ArtifactSaveArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "title", &self.title, 500);
        opt_text(out, "mime", &self.mime, 255);
        match (&self.text, &self.doc) {
            (Some(_), Some(_)) | (None, None) => out.push(("text", "exactly one of text or doc must be given".into())),
            (Some(text), None) if text.chars().count() > MAX_NOTE_CHARS => {
                out.push(("text", format!("text is longer than {MAX_NOTE_CHARS} characters")))
            }
            (None, Some(doc)) => {
                if let Some(problem) = crate::render::check(doc).first() {
                    out.push(("doc", format!("doc is not a valid Laika Document: {problem}")));
                }
            }
            _ => {}
        }
        check_tags(out, &self.tags);
    }
}

fn check_tags(out: &mut Vec<(&'static str, String)>, tags: &Option<Vec<String>>) {
    if let Some(tags) = tags {
        if tags.len() > 64 {
            out.push(("tags", "at most 64 tags".into()));
        }
        if tags.iter().any(|t| t.trim().is_empty() || t.chars().count() > 100) {
            out.push(("tags", "tags must be non-empty and at most 100 characters".into()));
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShareFormat {
    Markdown,
    Text,
    Json,
    Csv,
    Pdf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShareTarget {
    ShareSheet,
    Clipboard,
    File,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ArtifactShareArgs {
    pub artifact_id: String,
    pub format: ShareFormat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<ShareTarget>,
}
impl CheckArgs for ArtifactShareArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "artifactId", &self.artifact_id, MAX_ID_CHARS);
        if let Some(name) = &self.filename {
            need_text(out, "filename", name, 255);
            // A file name, never a path: the host picks the folder.
            if name.contains(['/', '\\', '\0']) || name == "." || name == ".." {
                out.push(("filename", "filename must be a plain file name".into()));
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpenTarget {
    Workspace,
    Browser,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ArtifactOpenArgs {
    pub artifact_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<OpenTarget>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_tab: Option<bool>,
}
impl CheckArgs for ArtifactOpenArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "artifactId", &self.artifact_id, MAX_ID_CHARS);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IntegrationInvokeArgs {
    pub integration: String,
    pub operation: String,
    pub payload: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}
impl CheckArgs for IntegrationInvokeArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "integration", &self.integration, MAX_ID_CHARS);
        need_text(out, "operation", &self.operation, MAX_ID_CHARS);
        opt_text(out, "idempotencyKey", &self.idempotency_key, MAX_ID_CHARS);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CalculateArgs {
    pub expression: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<u32>,
}
impl CheckArgs for CalculateArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "expression", &self.expression, 1_000);
        if self.precision.is_some_and(|p| p > 6) {
            out.push(("precision", "precision must be an integer from 0 to 6".into()));
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CollectionCreateArgs {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
}
impl CheckArgs for CollectionCreateArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "title", &self.title, 500);
        check_tags(out, &self.tags);
    }
}

/// A source to add to a collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum NewSource {
    Url {
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    Note {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        text: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CollectionAddSourcesArgs {
    pub collection_id: String,
    pub sources: Vec<NewSource>,
}
impl CheckArgs for CollectionAddSourcesArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "collectionId", &self.collection_id, MAX_ID_CHARS);
        if self.sources.is_empty() || self.sources.len() > 100 {
            out.push(("sources", "sources must hold 1 to 100 entries".into()));
        }
        for source in &self.sources {
            match source {
                NewSource::Url { url, .. } => need_text(out, "sources", url, MAX_URL_CHARS),
                NewSource::Note { text, .. } => need_text(out, "sources", text, MAX_NOTE_CHARS),
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CollectionIdArgs {
    pub collection_id: String,
}
impl CheckArgs for CollectionIdArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "collectionId", &self.collection_id, MAX_ID_CHARS);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaptureMode {
    Auto,
    Article,
    List,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SourceCaptureArgs {
    pub collection_id: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<CaptureMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<u32>,
}
impl CheckArgs for SourceCaptureArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "collectionId", &self.collection_id, MAX_ID_CHARS);
        need_text(out, "url", &self.url, MAX_URL_CHARS);
        if self.max_chars.is_some_and(|n| n == 0 || n > MAX_BUDGET) {
            out.push(("maxChars", format!("maxChars must be between 1 and {MAX_BUDGET}")));
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SourceRefreshArgs {
    pub source_id: String,
}
impl CheckArgs for SourceRefreshArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "sourceId", &self.source_id, MAX_ID_CHARS);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TransformRunArgs {
    pub collection_id: String,
    #[serde(rename = "type")]
    pub transform_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Map<String, Value>>,
}
impl CheckArgs for TransformRunArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "collectionId", &self.collection_id, MAX_ID_CHARS);
        need_text(out, "type", &self.transform_type, MAX_ID_CHARS);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MoneyCalculateArgs {
    pub expression: String,
    pub currency: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounding: Option<crate::money::Rounding>,
}
impl CheckArgs for MoneyCalculateArgs {
    fn check(&self, out: &mut Vec<(&'static str, String)>) {
        need_text(out, "expression", &self.expression, 1_000);
        need_currency(out, "currency", &self.currency);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::Element;
    use serde_json::json;

    fn call(value: Value) -> Result<ToolCall, Vec<Violation>> {
        RawToolCall::from_value(&value, "").map_err(|v| vec![v])?.to_typed()
    }

    fn code_of(value: Value) -> Code {
        call(value).expect_err("expected a rejection")[0].code
    }

    #[test]
    fn catalogue_names_are_unique_and_cover_both_texts() {
        let mut names: Vec<&str> = CATALOGUE.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CATALOGUE.len());
        for name in [
            "browser.observe_dom",
            "browser.get_selection_links",
            "browser.click",
            "browser.type",
            "browser.select",
            "browser.scroll",
            "browser.open_tab",
            "browser.navigate",
            "browser.back",
            "browser.forward",
            "browser.refresh",
            "search",
            "content.summarize",
            "content.find",
            "artifact.save",
            "artifact.share",
            "artifact.open",
            "integration.invoke",
            "app.calculate",
            "collection.create",
            "collection.add_sources",
            "collection.list_sources",
            "source.capture",
            "source.refresh",
            "transform.list_types",
            "transform.run",
            "app.money_calculate",
        ] {
            assert!(spec(name).is_some(), "{name} missing from the catalogue");
        }
        assert_eq!(CATALOGUE.len(), 27);
        // Removed for want of a data source (README, "Not in the catalogue").
        assert!(spec("commerce.estimate_tax").is_none() && spec("commerce.estimate_shipping").is_none());
    }

    #[test]
    fn a_find_on_the_web_is_proposed_as_a_search() {
        let web = call(json!({ "name": "content.find", "arguments": { "query": "boots", "scope": "web" } })).unwrap();
        assert_eq!(web.proposed(), ToolCall::Search(SearchArgs { query: "boots".into(), engine: None, new_tab: None }));
        let page = call(json!({ "name": "content.find", "arguments": { "query": "boots" } })).unwrap();
        assert_eq!(page.clone().proposed(), page);
    }

    #[test]
    fn the_spec_example_call_is_typed() {
        let typed = call(json!({ "name": "browser.click", "arguments": { "handleId": "laika-1" } })).unwrap();
        assert_eq!(typed, ToolCall::Click(HandleArgs { handle_id: "laika-1".into() }));
        assert_eq!(RawToolCall::from(&typed).arguments["handleId"], "laika-1");
    }

    #[test]
    fn arguments_may_be_omitted_or_empty_for_parameterless_tools() {
        assert_eq!(call(json!({ "name": "browser.back" })).unwrap(), ToolCall::Back(NoArgs {}));
        assert_eq!(call(json!({ "name": "browser.refresh", "arguments": {} })).unwrap(), ToolCall::Refresh(NoArgs {}));
        assert_eq!(code_of(json!({ "name": "browser.back", "arguments": { "steps": 2 } })), Code::ToolArgsInvalid);
    }

    #[test]
    fn unknown_tools_are_reported() {
        assert_eq!(code_of(json!({ "name": "shell.exec", "arguments": { "cmd": "rm -rf /" } })), Code::UnknownTool);
    }

    #[test]
    fn missing_wrong_typed_and_extra_arguments_are_rejected() {
        assert_eq!(code_of(json!({ "name": "browser.click", "arguments": {} })), Code::ToolArgsInvalid);
        assert_eq!(code_of(json!({ "name": "browser.click", "arguments": { "handleId": 7 } })), Code::ToolArgsInvalid);
        assert_eq!(
            code_of(json!({ "name": "browser.click", "arguments": { "handleId": "laika-1", "force": true } })),
            Code::ToolArgsInvalid
        );
        assert_eq!(
            code_of(json!({ "name": "browser.observe_dom", "arguments": { "maxChars": -1 } })),
            Code::ToolArgsInvalid
        );
        assert_eq!(
            code_of(json!({ "name": "browser.observe_dom", "arguments": { "maxChars": 1.5 } })),
            Code::ToolArgsInvalid
        );
        assert_eq!(
            code_of(json!({ "name": "artifact.share", "arguments": { "artifactId": "a", "format": "exe" } })),
            Code::ToolArgsInvalid
        );
        assert_eq!(code_of(json!({ "name": "browser.click", "arguments": [1] })), Code::InvalidToolCall);
        assert_eq!(code_of(json!({ "name": 3 })), Code::InvalidToolCall);
        assert_eq!(code_of(json!({ "name": "browser.back", "args": {} })), Code::InvalidToolCall);
    }

    #[test]
    fn ranges_are_enforced() {
        assert!(call(json!({ "name": "app.calculate", "arguments": { "expression": "1+1", "precision": 6 } })).is_ok());
        assert!(call(json!({ "name": "app.calculate", "arguments": { "expression": "1+1", "precision": 0 } })).is_ok());
        assert_eq!(
            code_of(json!({ "name": "app.calculate", "arguments": { "expression": "1+1", "precision": 7 } })),
            Code::ToolArgOutOfRange
        );
        assert_eq!(
            code_of(json!({ "name": "browser.click", "arguments": { "handleId": " " } })),
            Code::ToolArgOutOfRange
        );
        assert_eq!(code_of(json!({ "name": "search", "arguments": { "query": "" } })), Code::ToolArgOutOfRange);
        assert_eq!(
            code_of(json!({ "name": "browser.scroll", "arguments": { "deltaY": 1e300 } })),
            Code::ToolArgOutOfRange
        );
        assert_eq!(
            code_of(json!({ "name": "browser.observe_dom", "arguments": { "maxChars": 0 } })),
            Code::ToolArgOutOfRange
        );
        assert_eq!(
            code_of(
                json!({ "name": "app.money_calculate", "arguments": { "expression": "1", "currency": "dollars" } })
            ),
            Code::ToolArgOutOfRange
        );
        assert_eq!(
            code_of(
                json!({ "name": "artifact.share", "arguments": { "artifactId": "a", "format": "csv", "filename": "../x" } })
            ),
            Code::ToolArgOutOfRange
        );
    }

    #[test]
    fn artifact_save_needs_exactly_one_body() {
        assert!(call(json!({ "name": "artifact.save", "arguments": { "title": "t", "text": "x" } })).is_ok());
        let doc = json!({ "type": "doc", "children": [] });
        assert!(call(json!({ "name": "artifact.save", "arguments": { "title": "t", "doc": doc } })).is_ok());
        assert_eq!(
            code_of(json!({ "name": "artifact.save", "arguments": { "title": "t", "text": "x", "doc": doc } })),
            Code::ToolArgOutOfRange
        );
        assert_eq!(code_of(json!({ "name": "artifact.save", "arguments": { "title": "t" } })), Code::ToolArgOutOfRange);
        assert_eq!(
            code_of(json!({ "name": "artifact.save", "arguments": { "title": "t", "doc": { "type": "script" } } })),
            Code::ToolArgOutOfRange
        );
    }

    #[test]
    fn collection_sources_are_tagged_unions() {
        let ok = json!({ "name": "collection.add_sources", "arguments": { "collectionId": "col:1", "sources": [
            { "type": "url", "url": "https://example.com", "title": "Example" },
            { "type": "note", "text": "remember this" }
        ] } });
        assert!(call(ok).is_ok());
        let bad = json!({ "name": "collection.add_sources", "arguments": { "collectionId": "col:1", "sources": [
            { "type": "file", "path": "/etc/passwd" }
        ] } });
        assert_eq!(code_of(bad), Code::ToolArgsInvalid);
        let extra = json!({ "name": "collection.add_sources", "arguments": { "collectionId": "col:1", "sources": [
            { "type": "url", "url": "https://example.com", "secret": 1 }
        ] } });
        assert_eq!(code_of(extra), Code::ToolArgsInvalid);
    }

    #[test]
    fn every_tool_accepts_a_minimal_valid_call() {
        let minimal = |name: &str| -> Value {
            match name {
                "browser.click" => json!({ "handleId": "laika-1" }),
                "browser.type" => json!({ "handleId": "laika-1", "text": "hi" }),
                "browser.select" => json!({ "handleId": "laika-1", "value": "a" }),
                "browser.scroll" => json!({ "deltaY": 400 }),
                "browser.open_tab" | "browser.navigate" => json!({ "url": "https://example.com" }),
                "search" | "content.find" => json!({ "query": "q" }),
                "artifact.save" => json!({ "title": "t", "text": "x" }),
                "artifact.share" => json!({ "artifactId": "a", "format": "markdown" }),
                "artifact.open" => json!({ "artifactId": "a" }),
                "integration.invoke" => json!({ "integration": "i", "operation": "o", "payload": {} }),
                "app.calculate" => json!({ "expression": "1" }),
                "collection.create" => json!({ "title": "t" }),
                "collection.add_sources" => {
                    json!({ "collectionId": "c", "sources": [{ "type": "note", "text": "n" }] })
                }
                "collection.list_sources" => json!({ "collectionId": "c" }),
                "source.capture" => json!({ "collectionId": "c", "url": "https://example.com" }),
                "source.refresh" => json!({ "sourceId": "s" }),
                "transform.run" => json!({ "collectionId": "c", "type": "brief" }),
                "app.money_calculate" => json!({ "expression": "1", "currency": "USD" }),
                _ => json!({}),
            }
        };
        for spec in CATALOGUE {
            let typed = call(json!({ "name": spec.name, "arguments": minimal(spec.name) }))
                .unwrap_or_else(|e| panic!("{}: {:?}", spec.name, e));
            assert_eq!(typed.name(), spec.name);
            assert_eq!(typed.spec().name, spec.name);
            // Arguments survive the trip back to the model's spelling.
            let again = RawToolCall::from(&typed).to_typed().unwrap();
            assert_eq!(again, typed);
        }
    }

    #[test]
    fn handles_must_come_from_the_latest_observation() {
        let observation = Observation {
            elements: vec![Element { handle_id: "laika-1".into(), role: "button".into(), ..Default::default() }],
            ..Default::default()
        };
        let known = call(json!({ "name": "browser.click", "arguments": { "handleId": "laika-1" } })).unwrap();
        assert!(known.check_handle(&observation).is_ok());
        let unknown = call(json!({ "name": "browser.click", "arguments": { "handleId": "laika-999" } })).unwrap();
        assert_eq!(unknown.check_handle(&observation).unwrap_err().code, Code::ToolUnknownHandle);
        let no_handle = call(json!({ "name": "browser.back" })).unwrap();
        assert!(no_handle.check_handle(&observation).is_ok());
    }
}
