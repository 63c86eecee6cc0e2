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

/// How a page becomes a collection source (`source.capture`'s `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceShape {
    /// The reader's text (an article, a thread, a product).
    Article,
    /// The page's list items, one line each: title, snippet, address (a listing, a search
    /// result page, a front page).
    List,
}

/// Links a captured source keeps at most, and the source text's default bound in chars.
pub const SOURCE_MAX_LINKS: usize = 50;
pub const SOURCE_DEFAULT_CHARS: usize = 20_000;

impl CollectionSource {
    /// A page as a collection source: its text (or, for a list, its items) cut at a line
    /// boundary within `max_chars`, its outline, and its links with the text they stand in.
    /// `shape` `None` reads the page: a list when its items hold more text than its body.
    pub fn from_observation(
        observation: &Observation,
        ids: (&str, &str),
        captured_at: &str,
        shape: Option<SourceShape>,
        max_chars: usize,
    ) -> CollectionSource {
        let item_line = |i: &Item| {
            let mut line = format!("- {}", i.title.trim());
            if !i.snippet.trim().is_empty() {
                line.push_str(&format!(": {}", i.snippet.trim()));
            }
            if !i.url.is_empty() {
                line.push_str(&format!(" ({})", i.url));
            }
            line
        };
        let list: String = observation.items.iter().map(item_line).collect::<Vec<_>>().join("\n");
        let shape =
            shape.unwrap_or(if list.len() > observation.text.len() { SourceShape::List } else { SourceShape::Article });
        let text = match shape {
            SourceShape::List if !list.is_empty() => &list,
            _ => &observation.text,
        };
        let mut links: Vec<ExtractedLink> = vec![];
        let items = observation
            .items
            .iter()
            .filter(|i| !i.url.is_empty())
            .map(|i| (i.url.as_str(), i.title.as_str(), i.snippet.as_str()));
        let anchors = observation
            .elements
            .iter()
            .filter(|e| e.role == "link")
            .filter_map(|e| e.href.as_deref().map(|href| (href, e.text.as_str(), "")));
        for (url, text, context) in items.chain(anchors) {
            if links.len() == SOURCE_MAX_LINKS {
                break;
            }
            if url.starts_with("http") && !links.iter().any(|l| l.url == url) {
                links.push(ExtractedLink {
                    url: url.to_string(),
                    text: text.trim().to_string(),
                    context: context.trim().to_string(),
                });
            }
        }
        let (collection_id, source_id) = ids;
        CollectionSource {
            doc_type: Some("collection.source.v1".into()),
            collection_id: collection_id.to_string(),
            source_id: source_id.to_string(),
            url: observation.url.clone(),
            title: observation.title.trim().to_string(),
            outlet: crate::weburl::WebUrl::parse(&observation.url).and_then(|u| u.host()).unwrap_or_default(),
            captured_at: captured_at.to_string(),
            published_at: None,
            text: cut_at_line(text, max_chars),
            outline: observation
                .outline
                .iter()
                .map(|o| SourceOutlineEntry { level: o.level, text: o.text.clone() })
                .collect(),
            extracted_links: links,
        }
    }
}

/// `text` within `max` chars, cut after its last whole line that fits (or, for a first line
/// longer than that, after its last whole word). A source's text is bounded this way wherever it
/// is cut: when captured, and when a request packs it.
pub fn cut_at_line(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    // A line that ends right at the bound fits whole.
    let line_end = if text[end..].starts_with('\n') { Some(end) } else { head.rfind('\n') };
    match line_end {
        Some(cut) if cut > 0 => head[..cut].trim_end().to_string(),
        _ => head.rsplit_once(' ').map_or(head, |(h, _)| h).trim_end().to_string(),
    }
}

#[cfg(test)]
mod source_tests {
    use super::*;

    fn page() -> Observation {
        Observation {
            url: "https://news.example/otters".into(),
            title: " Otters return ".into(),
            text: "H1: Otters return\n\nOtters were seen near the mill.\nVolunteers counted five.".into(),
            outline: vec![OutlineEntry { level: 1, text: "Otters return".into(), ..Default::default() }],
            elements: vec![
                Element {
                    handle_id: "laika-1".into(),
                    role: "link".into(),
                    text: "Mill trust".into(),
                    href: Some("https://mill.example/".into()),
                    ..Default::default()
                },
                Element {
                    handle_id: "laika-2".into(),
                    role: "link".into(),
                    text: "Top".into(),
                    href: Some("javascript:void(0)".into()),
                    ..Default::default()
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn a_page_becomes_a_bounded_source_with_its_outline_and_links() {
        let source =
            CollectionSource::from_observation(&page(), ("col:1", "src:2"), "2026-11-26T10:00:00Z", None, 1_000);
        assert_eq!((source.title.as_str(), source.outlet.as_str()), ("Otters return", "news.example"));
        assert_eq!(source.text, page().text);
        assert_eq!(source.outline[0].text, "Otters return");
        assert_eq!(source.extracted_links.len(), 1, "web links only");
        assert_eq!(source.extracted_links[0].url, "https://mill.example/");
        // Bounded at a line: never half a line.
        let cut = CollectionSource::from_observation(&page(), ("col:1", "src:2"), "", None, 50);
        assert_eq!(cut.text, "H1: Otters return\n\nOtters were seen near the mill.");
    }

    #[test]
    fn a_listing_is_captured_as_its_items() {
        let mut listing = page();
        listing.text = "News".into();
        listing.items = vec![Item {
            title: "Otters return".into(),
            url: "https://news.example/o".into(),
            snippet: "Five seen.".into(),
            ..Default::default()
        }];
        let source = CollectionSource::from_observation(&listing, ("col:1", "src:3"), "", None, 1_000);
        assert_eq!(source.text, "- Otters return: Five seen. (https://news.example/o)");
        let article =
            CollectionSource::from_observation(&listing, ("col:1", "src:3"), "", Some(SourceShape::Article), 1_000);
        assert_eq!(article.text, "News");
    }
}
