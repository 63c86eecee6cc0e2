//! The observation documents of laika.llmcp v1: what Laika saw on a page (or in a collection),
//! as carried in `context.documents[].content`.
//!
//! These types are the contract between the DOM reader (which fills them), the agent core
//! (which packs them for the model) and the Policy Gate (which reads the field kinds of
//! interactive elements). Everything in them came from a web page: it is untrusted data.
//!
//! Unknown keys are tolerated when reading content (an observer may add debug fields); the
//! documented fields are type-checked.

use serde::{Deserialize, Serialize};

/// `web.observation.summary.v1`: the compact, summary-friendly view of one page.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Observation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_type: Option<String>,
    pub url: String,
    pub title: String,
    /// Page text with structure prefixes (`H2:`, `- `, `> `, `Code:` …), chrome suppressed.
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<Primary>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Item>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<Comment>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outline: Vec<OutlineEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signals: Vec<Signal>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<Element>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top_discussions: Vec<Discussion>,
}

/// The main content element of the page.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Primary {
    pub text: String,
    #[serde(default)]
    pub tag: String,
    #[serde(default)]
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle_id: Option<String>,
}

/// One entry of a list page (a story, a search result, a product tile).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Item {
    pub title: String,
    #[serde(default)]
    pub url: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snippet: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle_id: Option<String>,
    /// Only when the page shows a count ("136 comments"); never estimated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment_count: Option<u64>,
}

/// One comment of a discussion page.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Comment {
    pub text: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub author: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub age: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub score: String,
    #[serde(default)]
    pub depth: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle_id: Option<String>,
}

/// A heading (or heading-like element) of the page.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OutlineEntry {
    pub level: u8,
    #[serde(default)]
    pub tag: String,
    #[serde(default)]
    pub role: String,
    pub text: String,
}

/// A heading of a captured source.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SourceOutlineEntry {
    pub level: u8,
    pub text: String,
}

/// A list item ranked by its shown comment count.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Discussion {
    pub title: String,
    #[serde(default)]
    pub url: String,
    pub comment_count: u64,
}

/// Access and layout conditions that change what a summary may claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    OverlayOrDialog,
    Paywall,
    AuthGate,
    AuthFields,
    ConsentOverlay,
    AgeGate,
    GeoBlock,
    ScriptRequired,
}

impl Signal {
    /// Signals after which only part of the content is visible (the summary must say so).
    pub fn limits_access(self) -> bool {
        matches!(
            self,
            Signal::Paywall
                | Signal::AuthGate
                | Signal::ConsentOverlay
                | Signal::AgeGate
                | Signal::GeoBlock
                | Signal::ScriptRequired
                | Signal::OverlayOrDialog
        )
    }
}

/// An interactive element the model may target by handle.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Element {
    pub handle_id: String,
    /// ARIA-like role: link, button, textbox, checkbox, combobox …
    pub role: String,
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// What kind of value a form field takes; the Policy Gate refuses typing into the sensitive ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_kind: Option<FieldKind>,
    /// A link with a `download` attribute.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub download: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
}

/// The kind of value a form field takes, from its type, autocomplete token, name and label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FieldKind {
    Text,
    Textarea,
    Search,
    Email,
    Tel,
    Url,
    Number,
    Date,
    Checkbox,
    Radio,
    Select,
    File,
    Password,
    /// One-time codes (SMS/TOTP), `autocomplete="one-time-code"`.
    OneTimeCode,
    /// Card number, security code, expiry (`autocomplete="cc-*"`) and bank details.
    Payment,
    Other,
}

impl FieldKind {
    /// Fields whose values are secrets: the model may never type into them.
    pub fn is_secret(self) -> bool {
        matches!(self, FieldKind::Password | FieldKind::OneTimeCode | FieldKind::Payment)
    }
}

/// `web.observation.chunk.v1`: one ordered, additive slice of long page text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ObservationChunk {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_type: Option<String>,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// 1-based.
    pub chunk_index: u32,
    pub chunk_count: u32,
    pub text: String,
}

/// `collection.index.v1`: the lightweight index of a saved collection.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CollectionIndex {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_type: Option<String>,
    pub collection_id: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub sources: Vec<CollectionSourceRef>,
}

/// One source as listed in a collection index.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CollectionSourceRef {
    pub source_id: String,
    pub url: String,
    #[serde(default)]
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub outlet: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub captured_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
}

/// `collection.source.v1`: one captured, normalised source of a collection.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CollectionSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_type: Option<String>,
    pub collection_id: String,
    pub source_id: String,
    pub url: String,
    #[serde(default)]
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub outlet: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub captured_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outline: Vec<SourceOutlineEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extracted_links: Vec<ExtractedLink>,
}

/// A link found in a captured source, with the sentence around it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExtractedLink {
    pub url: String,
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
}

impl Observation {
    /// Every handle the observation names: the only handles a tool call may target.
    pub fn handles(&self) -> impl Iterator<Item = &str> {
        let primary = self.primary.iter().filter_map(|p| p.handle_id.as_deref());
        let items = self.items.iter().filter_map(|i| i.handle_id.as_deref());
        let comments = self.comments.iter().filter_map(|c| c.handle_id.as_deref());
        let elements = self.elements.iter().map(|e| e.handle_id.as_str());
        primary.chain(items).chain(comments).chain(elements)
    }

    pub fn has_handle(&self, handle_id: &str) -> bool {
        self.handles().any(|h| h == handle_id)
    }

    pub fn element(&self, handle_id: &str) -> Option<&Element> {
        self.elements.iter().find(|e| e.handle_id == handle_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_kinds_use_autocomplete_spelling() {
        let kind: FieldKind = serde_json::from_str("\"one-time-code\"").unwrap();
        assert_eq!(kind, FieldKind::OneTimeCode);
        assert!(kind.is_secret());
        assert!(!FieldKind::Email.is_secret());
    }

    #[test]
    fn handles_cover_every_targetable_part() {
        let observation = Observation {
            primary: Some(Primary { text: "x".into(), handle_id: Some("laika-1".into()), ..Default::default() }),
            items: vec![Item { title: "t".into(), handle_id: Some("laika-2".into()), ..Default::default() }],
            comments: vec![Comment { text: "c".into(), handle_id: Some("laika-3".into()), ..Default::default() }],
            elements: vec![Element { handle_id: "laika-4".into(), role: "button".into(), ..Default::default() }],
            ..Default::default()
        };
        let handles: Vec<&str> = observation.handles().collect();
        assert_eq!(handles, ["laika-1", "laika-2", "laika-3", "laika-4"]);
        assert!(observation.has_handle("laika-4"));
        assert!(!observation.has_handle("laika-5"));
    }

    #[test]
    fn unknown_signal_is_rejected() {
        assert!(serde_json::from_str::<Signal>("\"paywall\"").is_ok());
        assert!(serde_json::from_str::<Signal>("\"free_cookies\"").is_err());
    }
}
