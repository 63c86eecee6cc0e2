//! Stable error codes and the `Violation` record every validator in this crate returns.
//!
//! Codes are part of the protocol: the host, the extension, logs and tests match on the string,
//! so a code's text never changes once released. Add new codes; do not rename old ones.

use serde::{Serialize, Serializer};
use std::fmt;

macro_rules! codes {
    ($($name:ident => $text:literal : $doc:literal;)*) => {
        /// A stable, machine-readable error code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $( #[doc = $doc] $name, )*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$name),*];

            /// The stable text of the code, e.g. `LLMCP_INVALID_ENVELOPE`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$name => $text,)* }
            }

            /// What the rule behind the code says.
            pub fn description(self) -> &'static str {
                match self { $(Code::$name => $doc,)* }
            }

            /// Looks a code up by its stable text.
            pub fn from_text(text: &str) -> Option<Code> {
                match text { $($text => Some(Code::$name),)* _ => None }
            }
        }
    };
}

codes! {
    // Raw input
    ParseFailed => "LLMCP_PARSE_FAILED": "The input is not valid JSON.";
    NotObject => "LLMCP_NOT_OBJECT": "A packet must be a JSON object.";
    NoJsonObject => "LLMCP_NO_JSON_OBJECT": "Model output contains no JSON object.";
    ThinkUnclosed => "LLMCP_THINK_UNCLOSED": "Model output opens <think> and never closes it.";
    UnrecognisedOutput => "LLMCP_UNRECOGNISED_OUTPUT": "The JSON object is neither an llmcp response nor a planner reply.";
    InputTooLarge => "LLMCP_INPUT_TOO_LARGE": "The input exceeds the size this parser accepts.";

    // Envelope
    InvalidEnvelope => "LLMCP_INVALID_ENVELOPE": "A required envelope field (protocol, id, type, created_at, conversation, sender) is missing or has the wrong type.";
    UnsupportedProtocol => "LLMCP_UNSUPPORTED_PROTOCOL": "protocol.name must be \"laika.llmcp\".";
    UnsupportedVersion => "LLMCP_UNSUPPORTED_VERSION": "protocol.version must be 1.";
    InvalidType => "LLMCP_INVALID_TYPE": "type must be \"request\" or \"response\".";
    EmptyId => "LLMCP_EMPTY_ID": "Packet, conversation and message ids must be non-empty strings.";
    InvalidTimestamp => "LLMCP_INVALID_TIMESTAMP": "created_at must be an ISO-8601 timestamp in UTC (ending in Z).";
    InvalidTurn => "LLMCP_INVALID_TURN": "conversation.turn must be a non-negative integer.";
    InvalidRole => "LLMCP_INVALID_ROLE": "sender.role must be user, agent, assistant or tool.";
    RoleMismatch => "LLMCP_ROLE_MISMATCH": "Requests are sent by user, agent or tool; responses by assistant.";
    InvalidTrace => "LLMCP_INVALID_TRACE": "trace must be an object with a string run_id and an integer step.";

    // Request
    MissingInput => "LLMCP_MISSING_INPUT": "A request needs an input object.";
    InvalidUserMessage => "LLMCP_INVALID_USER_MESSAGE": "input.user_message needs a string id and text.";
    InvalidTask => "LLMCP_INVALID_TASK": "input.task needs a string name and, if present, an object args.";
    UnknownTask => "LLMCP_UNKNOWN_TASK": "input.task.name must be web.summarize, web.extract or web.answer.";
    MissingContext => "LLMCP_MISSING_CONTEXT": "context must be an object with a documents array.";
    InvalidDocument => "LLMCP_INVALID_DOCUMENT": "A context document needs a string doc_id, kind and trust, and an object content.";
    DuplicateDocId => "LLMCP_DUPLICATE_DOC_ID": "doc_id values must be unique within a request.";
    UnknownDocumentKind => "LLMCP_UNKNOWN_DOCUMENT_KIND": "Document kind must be one of the v1 kinds.";
    InvalidTrust => "LLMCP_INVALID_TRUST": "trust must be \"trusted\" or \"untrusted\".";
    UntrustedRequired => "LLMCP_UNTRUSTED_REQUIRED": "Web observations and collection sources are derived from web content and must be trust=\"untrusted\".";
    DocTypeMismatch => "LLMCP_DOC_TYPE_MISMATCH": "content.doc_type must equal the document kind.";
    InvalidDocumentContent => "LLMCP_INVALID_DOCUMENT_CONTENT": "A field of the document content is missing or has the wrong type.";
    BadChunkOrder => "LLMCP_BAD_CHUNK_ORDER": "Chunk documents are 1-based and ordered by chunk_index with no gap or repeat.";
    BadChunkCount => "LLMCP_BAD_CHUNK_COUNT": "chunk_count must equal the number of chunk documents in the request.";
    ChunkWithoutSummary => "LLMCP_CHUNK_WITHOUT_SUMMARY": "Chunks extend the observation summary document; a request with chunks must carry one.";
    InvalidOutputFormat => "LLMCP_INVALID_OUTPUT_FORMAT": "output.format must be \"json\".";

    // Response
    MissingInReplyTo => "LLMCP_MISSING_IN_REPLY_TO": "A response needs in_reply_to.request_id.";
    MissingAssistant => "LLMCP_MISSING_ASSISTANT": "A response needs an assistant object with a render document.";
    InvalidTitle => "LLMCP_INVALID_TITLE": "assistant.title must be a string.";
    InvalidCitation => "LLMCP_INVALID_CITATION": "A citation needs a string doc_id; node_id, handle_id and quote must be strings when present.";
    CitationQuoteTooLong => "LLMCP_CITATION_QUOTE_TOO_LONG": "Citation quotes must be short (at most 500 characters).";
    ReplyMismatch => "LLMCP_REPLY_MISMATCH": "in_reply_to.request_id and conversation must match the request being answered.";
    CitationUnknownDoc => "LLMCP_CITATION_UNKNOWN_DOC": "A citation's doc_id must name a document of the request.";
    ToolCallsNotArray => "LLMCP_TOOL_CALLS_NOT_ARRAY": "tool_calls must be an array.";
    InvalidToolCall => "LLMCP_INVALID_TOOL_CALL": "A tool call must be an object with a string name and an object arguments (which may be omitted).";

    // Render document
    RenderNotDoc => "LLMCP_RENDER_NOT_DOC": "assistant.render must be a node of type doc.";
    RenderUnknownNode => "LLMCP_RENDER_UNKNOWN_NODE": "A render node has a type that is not allowed where it stands.";
    RenderInvalidField => "LLMCP_RENDER_INVALID_FIELD": "A render node has a missing, extra or ill-typed field.";
    RenderBadLink => "LLMCP_RENDER_BAD_LINK": "Link hrefs must be absolute http, https or mailto URLs.";
    RenderTooDeep => "LLMCP_RENDER_TOO_DEEP": "The render document nests deeper than allowed.";

    // Tools
    UnknownTool => "TOOL_UNKNOWN": "The tool name is not in the catalogue; it is never executed.";
    ToolArgsInvalid => "TOOL_ARGS_INVALID": "Tool arguments are missing a required field, have a wrong type or an extra key.";
    ToolArgOutOfRange => "TOOL_ARG_OUT_OF_RANGE": "A tool argument is outside its allowed range or set.";
    ToolUnknownHandle => "TOOL_UNKNOWN_HANDLE": "handleId must name an element of the latest observation.";

    // Tool execution on the live page (the content script, after approval)
    ToolNotContentScript => "TOOL_NOT_CONTENT_SCRIPT": "The content script executes browser.click, browser.type, browser.select, browser.scroll and browser.get_selection_links only; other tools run elsewhere.";
    ToolNoSelection => "TOOL_NO_SELECTION": "browser.get_selection_links needs a selection: nothing is selected in the page.";
    ToolElementGone => "TOOL_ELEMENT_GONE": "The element behind handleId is no longer in the page.";
    ToolElementHidden => "TOOL_ELEMENT_HIDDEN": "The element is not visible: hidden by style, inside a hidden ancestor, or without size.";
    ToolElementDisabled => "TOOL_ELEMENT_DISABLED": "The element (or the chosen option) is disabled: disabled property or attribute, a disabled fieldset, or aria-disabled=\"true\".";
    ToolElementReadonly => "TOOL_ELEMENT_READONLY": "The field is read-only.";
    ToolElementUnsupported => "TOOL_ELEMENT_UNSUPPORTED": "The element is not of a kind the tool acts on (typing needs a text-like field, selecting a select element).";
    ToolFieldRefused => "TOOL_FIELD_REFUSED": "Laika never types into password, one-time-code, payment, hidden or file fields.";
    ToolOptionNotFound => "TOOL_OPTION_NOT_FOUND": "No option of the select element has that value or visible label.";
    ToolFailed => "TOOL_FAILED": "The page threw an error while the tool ran.";

    // Planner contract (laika-tools.md)
    PlannerInvalid => "PLANNER_INVALID": "Planner replies need a string summary, an optional summaryFormat of plain or markdown, and a tool_calls array.";
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One broken rule: which, where (a JSON pointer into the checked value) and what exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub code: Code,
    pub path: String,
    pub message: String,
}

impl Violation {
    pub fn new(code: Code, path: impl Into<String>, message: impl Into<String>) -> Self {
        Violation { code, path: path.into(), message: message.into() }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() { "/" } else { &self.path };
        write!(f, "{} at {}: {}", self.code, path, self.message)
    }
}

/// Joins a JSON pointer and a key or index, escaping as RFC 6901 requires.
pub fn pointer(base: &str, key: impl fmt::Display) -> String {
    let key = key.to_string().replace('~', "~0").replace('/', "~1");
    format!("{base}/{key}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_texts_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            assert!(seen.insert(code.as_str()), "duplicate code text {}", code);
            assert_eq!(Code::from_text(code.as_str()), Some(*code));
            assert!(!code.description().is_empty());
        }
    }

    #[test]
    fn pointer_escapes() {
        assert_eq!(pointer("", "a/b~c"), "/a~1b~0c");
        assert_eq!(pointer("/x", 3), "/x/3");
    }
}
