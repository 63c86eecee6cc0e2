//! `browser.observe_dom`: what Laika sees on a page, computed once for any [`Dom`].
//!
//! The same code runs over the live page (web-sys, in the extension) and over an HTML string
//! (scraper, natively), so the CLI, the tests and the benchmarks measure exactly what users get.
//!
//! Steps: copy the DOM into a flat arena (iteratively: pages nest deeply), mark what is never
//! text (scripts, hidden nodes) and what is chrome (navigation, footers, sidebars, share bars),
//! score containers by the paragraphs they hold (Readability's scoring, adjusted), take the best
//! container and its related siblings as the primary content, and write its text with structure
//! prefixes (`H2:`, `- `, `> `, `Code:` …). Outline, interactive elements (with the field kind
//! the Policy Gate needs), list items, comments and access signals come from the same arena.
//!
//! Redaction happens here, at the source: form values are never read (the [`Dom`] cannot give
//! them), hidden inputs are not listed, and credential-like query parameters are stripped from
//! every URL.

use crate::dom::{Dom, NodeType};
use crate::observation::{Comment, Discussion, Element, FieldKind, Item, Observation, OutlineEntry, Primary, Signal};
use crate::tools::ObserveDomArgs;
use crate::weburl::WebUrl;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Budgets of one observation (`browser.observe_dom`'s options).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObserveOptions {
    pub max_chars: usize,
    pub max_elements: usize,
    pub max_blocks: usize,
    pub max_primary_chars: usize,
    pub max_outline: usize,
    pub max_outline_chars: usize,
    pub max_items: usize,
    pub max_item_chars: usize,
    pub max_comments: usize,
    pub max_comment_chars: usize,
    pub root_handle_id: Option<String>,
    /// Character offset into the page text where this observation's text starts.
    pub cursor: usize,
}

impl Default for ObserveOptions {
    /// The sidecar's defaults (laika-tools.md: `maxChars: 12000`, `maxElements: 160`).
    fn default() -> Self {
        ObserveOptions {
            max_chars: 12_000,
            max_elements: 160,
            max_blocks: 400,
            max_primary_chars: 4_000,
            max_outline: 60,
            max_outline_chars: 200,
            max_items: 50,
            max_item_chars: 400,
            max_comments: 50,
            max_comment_chars: 800,
            root_handle_id: None,
            cursor: 0,
        }
    }
}

impl ObserveOptions {
    /// No budget at all: the whole page (for benchmarks and whole-page reads).
    pub fn unbounded() -> Self {
        ObserveOptions {
            max_chars: usize::MAX,
            max_elements: usize::MAX,
            max_blocks: usize::MAX,
            max_primary_chars: usize::MAX,
            max_outline: usize::MAX,
            max_outline_chars: usize::MAX,
            max_items: usize::MAX,
            max_item_chars: usize::MAX,
            max_comments: usize::MAX,
            max_comment_chars: usize::MAX,
            root_handle_id: None,
            cursor: 0,
        }
    }

    /// The options a model's `browser.observe_dom` call asks for, on top of the defaults.
    pub fn from_args(args: &ObserveDomArgs) -> Self {
        let mut options = ObserveOptions::default();
        let set = |slot: &mut usize, value: Option<u32>| {
            if let Some(value) = value {
                *slot = value as usize;
            }
        };
        set(&mut options.max_chars, args.max_chars);
        set(&mut options.max_elements, args.max_elements);
        set(&mut options.max_blocks, args.max_blocks);
        set(&mut options.max_primary_chars, args.max_primary_chars);
        set(&mut options.max_outline, args.max_outline);
        set(&mut options.max_outline_chars, args.max_outline_chars);
        set(&mut options.max_items, args.max_items);
        set(&mut options.max_item_chars, args.max_item_chars);
        set(&mut options.max_comments, args.max_comments);
        set(&mut options.max_comment_chars, args.max_comment_chars);
        options.root_handle_id = args.root_handle_id.clone();
        options.cursor = args.cursor.map_or(0, |c| usize::try_from(c).unwrap_or(usize::MAX));
        options
    }
}

/// One step of the chunked read: `{maxChars, cursor}` → `{observation, cursor, done}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChunkedObservation {
    pub observation: Observation,
    /// Where the next chunk starts (character offset into the page text).
    pub cursor: usize,
    pub done: bool,
    /// Characters of page text in all.
    pub total_chars: usize,
}

/// Observes the page. `text` holds the whole page text from `options.cursor`, cut to
/// `max_chars` on a line boundary where one is near.
pub fn observe<D: Dom>(dom: &D, url: &str, options: &ObserveOptions) -> Observation {
    observe_chunk(dom, url, options).observation
}

/// Observes the page and says where the next chunk of text starts.
pub fn observe_chunk<D: Dom>(dom: &D, url: &str, options: &ObserveOptions) -> ChunkedObservation {
    let mut arena = Arena::build(dom, options.root_handle_id.as_deref(), false);
    if arena.needs_noscript_fallback() {
        arena = Arena::build(dom, options.root_handle_id.as_deref(), true);
    }
    let mut page = Page::analyse(&arena, url);
    // Content in a wrapper hidden by inline style (shown later by a script): when the visible
    // page gives little, read the styled-away parts too and keep that if it gives far more.
    let shown = page.text_len(&arena);
    if shown < 1_000 {
        let unstyled = Arena::build_with(dom, options.root_handle_id.as_deref(), arena.show_noscript, true);
        let retry = Page::analyse(&unstyled, url);
        let got = retry.text_len(&unstyled);
        if got >= 500 && (shown < 200 || got >= shown * 3) {
            arena = unstyled;
            page = retry;
        }
    }
    page.observation(dom, &arena, url, options)
}

/// The main text as a reader reads it: the observation's text without its structure prefixes
/// (`H2: `, `- `, `> `, `Code: ` …), which are layout hints for the model, not page words.
pub fn main_text(observation: &Observation) -> String {
    const LABELS: &[&str] =
        &["H1: ", "H2: ", "H3: ", "H4: ", "H5: ", "H6: ", "Code: ", "Caption: ", "Summary: ", "Term: ", "Definition: "];
    let mut out = String::with_capacity(observation.text.len());
    for line in observation.text.lines() {
        let mut rest = line;
        while let Some(after) = rest.strip_prefix("> ") {
            rest = after;
        }
        let trimmed = rest.trim_start_matches(' ');
        if let Some(item) = trimmed.strip_prefix("- ") {
            rest = item;
        }
        if let Some(label) = LABELS.iter().find(|l| rest.starts_with(**l)) {
            rest = &rest[label.len()..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// Whether a heading is the page's title: one holds the other; a title inside a heading must
/// be at least half of it (a card titled "News" is not the heading "News from the council").
fn same_title(heading: &str, title: &str) -> bool {
    let (heading, title) = (heading.trim().to_lowercase(), title.trim().to_lowercase());
    !heading.is_empty()
        && !title.is_empty()
        && (title.contains(&heading) || (heading.contains(&title) && title.len() * 2 >= heading.len()))
}

// ---------------------------------------------------------------------------------------------
// Arena: a flat, owned copy of the parts of the DOM the heuristics read.

struct ArenaNode<N> {
    dom: N,
    parent: Option<usize>,
    children: Vec<usize>,
    /// Lower-case tag; empty for text nodes.
    tag: String,
    /// Text of a text node, whitespace as in the source.
    text: String,
    /// class and id, lower-cased, for pattern tests.
    class_id: String,
    /// class alone, lower-cased and whitespace-collapsed: alike siblings share it (ids differ).
    class: String,
    role: String,
    /// `type` of an input, lower-cased; empty otherwise.
    input_type: String,
    /// Hidden by the page (attribute or style), itself or through an ancestor.
    hidden: bool,
    /// Hidden, or inside something whose text is never shown (script, style, head …).
    invisible: bool,
    /// An open `<dialog>`.
    open: bool,
    /// Never text: scripts, styles, templates, hidden nodes and everything under them.
    skip: bool,
    /// Visible text characters in the subtree (whitespace runs count as one).
    text_len: usize,
    /// Of those, characters inside links.
    link_len: usize,
    commas: usize,
    /// Marked `itemprop="articleBody"` (schema.org microdata).
    article_body: bool,
    /// A link marked `rel="tag"`: to a tag the author gave the page.
    tag_link: bool,
    /// Such links in the subtree (a tag link counts as one, whatever it holds), and the
    /// characters of their text.
    tag_links: usize,
    tag_link_len: usize,
}

struct Arena<N> {
    nodes: Vec<ArenaNode<N>>,
    body: usize,
    /// Built with `<noscript>` content shown.
    show_noscript: bool,
    /// Class names the page puts around half of its text or more ([`builder_classes`]).
    builder_classes: HashSet<String>,
    /// The element the page declares as its article's body ([`declared_article`]).
    declared_article: Option<usize>,
    /// Embedded social posts and their wrappers ([`embedded_posts`]).
    embeds: Vec<bool>,
}

/// Elements whose text a reader never sees.
const INVISIBLE_TEXT: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "math", "title", "meta", "link",
    // Form controls: what they hold is the user's input or a list of choices, never page text.
    "textarea", "select", "option", "optgroup", "datalist",
];

/// Elements whose text is never page text: the invisible ones, embedded media, and form
/// controls (whose text is a value or a caption, not content).
const NEVER_TEXT: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object", "embed", "head", "meta",
    "link", "input", "select", "textarea", "option", "optgroup", "datalist", "video", "audio", "source", "track",
    "map", "area", "param", "picture", "img", "button",
];

/// Deeper than this, a subtree is ignored: no real page needs it, and it bounds the work.
const MAX_DEPTH: usize = 512;

impl<N: Clone> Arena<N> {
    /// Copies the DOM. With `show_noscript`, `<noscript>` content counts as visible: for pages
    /// read without running scripts whose only content is their no-script version.
    fn build<D: Dom<Node = N>>(dom: &D, root_handle: Option<&str>, show_noscript: bool) -> Arena<N> {
        Self::build_with(dom, root_handle, show_noscript, false)
    }

    /// As `build`; with `ignore_style`, elements hidden by their style count as shown.
    fn build_with<D: Dom<Node = N>>(
        dom: &D,
        root_handle: Option<&str>,
        show_noscript: bool,
        ignore_style: bool,
    ) -> Arena<N> {
        let mut nodes: Vec<ArenaNode<N>> = Vec::new();
        let root = root_handle.and_then(|h| dom.find_handle(h)).or_else(|| dom.document_element());
        let Some(root) = root else {
            return Arena {
                nodes,
                body: 0,
                show_noscript,
                builder_classes: HashSet::new(),
                declared_article: None,
                embeds: Vec::new(),
            };
        };
        // (dom node, parent index, depth, parent skipped, parent hidden, parent invisible)
        let mut stack = vec![(root, None::<usize>, 0usize, false, false, false)];
        while let Some((node, parent, depth, parent_skip, parent_hidden, parent_invisible)) = stack.pop() {
            let node_type = dom.node_type(&node);
            if node_type == NodeType::Other {
                continue;
            }
            let index = nodes.len();
            let (tag, text, class_id, class, role, hidden, skip) = match node_type {
                NodeType::Text => (
                    String::new(),
                    dom.text(&node),
                    String::new(),
                    String::new(),
                    String::new(),
                    parent_hidden,
                    parent_skip,
                ),
                _ => {
                    let tag = dom.tag_name(&node);
                    let class = dom.attribute(&node, "class").unwrap_or_default();
                    let id = dom.attribute(&node, "id").unwrap_or_default();
                    let class_id = format!("{class} {id}").to_lowercase();
                    let class = collapse_whitespace(&class.to_lowercase());
                    let role = dom.attribute(&node, "role").unwrap_or_default().to_lowercase();
                    // React streams server-rendered content into `<div hidden id="S:0">` and
                    // shows it with a script; it is the page, not hidden content.
                    let streamed = dom.attribute(&node, "id").is_some_and(|id| is_streamed_boundary(&id));
                    // Collapsed tab and accordion panels hold page text (a product's description,
                    // specs, shipping terms) that a click shows: they count as shown.
                    let panel = matches!(role.as_str(), "tabpanel" | "region")
                        || has_word(&class_id, PANEL_WORDS)
                        || names_part(&class_id, &["answer"]);
                    let collapsed = (dom.attribute(&node, "hidden").is_some() && !streamed && !panel)
                        || (!ignore_style && !panel && dom.is_hidden_by_style(&node));
                    // So do collapsed disclosure panels: an accordion's answer right after the
                    // toggle that opens it (`aria-expanded="false"`, or a button holding the
                    // section's heading), whatever their class names.
                    let disclosed = collapsed
                        && element_before(&nodes, parent).is_some_and(|p| is_disclosure_toggle(dom, &nodes[p].dom, 0));
                    let hidden = parent_hidden
                        || (collapsed && !disclosed)
                        || (dom.attribute(&node, "aria-hidden").is_some_and(|v| v == "true") && !panel)
                        || (tag == "dialog" && dom.attribute(&node, "open").is_none());
                    let skip = parent_skip
                        || hidden
                        || (NEVER_TEXT.contains(&tag.as_str()) && !(show_noscript && tag == "noscript"));
                    (tag, String::new(), class_id, class, role, hidden, skip)
                }
            };
            let input_type = if tag == "input" {
                dom.attribute(&node, "type").unwrap_or_default().to_ascii_lowercase()
            } else {
                String::new()
            };
            let open = tag == "dialog" && dom.attribute(&node, "open").is_some();
            let tag_link = tag == "a"
                && dom
                    .attribute(&node, "rel")
                    .is_some_and(|v| v.split_whitespace().any(|r| r.eq_ignore_ascii_case("tag")));
            let article_body = node_type == NodeType::Element
                && dom
                    .attribute(&node, "itemprop")
                    .is_some_and(|v| v.split_whitespace().any(|t| t.eq_ignore_ascii_case("articlebody")));
            let shown_noscript = show_noscript && tag == "noscript";
            let invisible = parent_invisible || hidden || (INVISIBLE_TEXT.contains(&tag.as_str()) && !shown_noscript);
            nodes.push(ArenaNode {
                dom: node.clone(),
                parent,
                children: Vec::new(),
                tag,
                text,
                class_id,
                class,
                role,
                input_type,
                hidden,
                invisible,
                open,
                skip,
                text_len: 0,
                link_len: 0,
                commas: 0,
                article_body,
                tag_link,
                tag_links: 0,
                tag_link_len: 0,
            });
            if let Some(parent) = parent {
                nodes[parent].children.push(index);
            }
            if node_type == NodeType::Element && depth < MAX_DEPTH {
                let children = dom.children(&node);
                for child in children.into_iter().rev() {
                    stack.push((child, Some(index), depth + 1, skip, hidden, invisible));
                }
            }
        }
        // Children were pushed in document order; sums flow from the leaves up (indices grow
        // downwards in a pre-order walk, so a reverse pass sees every child before its parent).
        for index in (0..nodes.len()).rev() {
            let node = &nodes[index];
            let (own_len, own_commas) = if node.tag.is_empty() && !node.skip {
                (collapsed_len(&node.text), node.text.matches([',', '，', '、']).count())
            } else {
                (0, 0)
            };
            let is_link = node.tag == "a";
            let (text_len, link_len, commas) = (
                nodes[index].text_len + own_len,
                if is_link { nodes[index].text_len + own_len } else { nodes[index].link_len },
                // Commas in code are syntax, not the sign of prose they are in sentences.
                if matches!(node.tag.as_str(), "pre" | "code") { 0 } else { nodes[index].commas + own_commas },
            );
            let node = &mut nodes[index];
            node.text_len = text_len;
            node.link_len = link_len;
            node.commas = commas;
            if node.tag_link && !node.skip {
                (node.tag_links, node.tag_link_len) = (1, text_len);
            }
            let (tag_links, tag_link_len) = (node.tag_links, node.tag_link_len);
            if let Some(parent) = node.parent
                && !node.skip
            {
                nodes[parent].text_len += text_len;
                nodes[parent].link_len += link_len;
                nodes[parent].commas += commas;
                nodes[parent].tag_links += tag_links;
                nodes[parent].tag_link_len += tag_link_len;
            }
        }
        let body = nodes.iter().position(|n| n.tag == "body").unwrap_or(0);
        let builder_classes = builder_classes(&nodes, body);
        let declared_article = declared_article(&nodes);
        let embeds = embedded_posts(&nodes, body);
        Arena { nodes, body, show_noscript, builder_classes, declared_article, embeds }
    }
}

impl<N> Arena<N> {
    /// Whether the page shows almost nothing while its `<noscript>` holds a real page (forums
    /// and shops that render with scripts and ship their content for no-script readers).
    fn needs_noscript_fallback(&self) -> bool {
        let visible = self.nodes.get(self.body).map_or(0, |b| b.text_len);
        if visible >= 1_500 {
            return false;
        }
        let in_noscript: usize = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.tag == "noscript")
            .map(|(i, _)| self.subtree(i).iter().map(|&j| collapsed_len(&self.nodes[j].text)).sum::<usize>())
            .sum();
        in_noscript > visible.max(500) * 2
    }

    fn link_density(&self, index: usize) -> f64 {
        let node = &self.nodes[index];
        if node.text_len == 0 { 0.0 } else { node.link_len as f64 / node.text_len as f64 }
    }

    fn ancestors(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.nodes[index].parent, move |&i| self.nodes[i].parent)
    }

    /// A builder class ([`builder_classes`]), or a variant of one: the class with a `-` or `_`
    /// extension (`elementor-widget-icon-box`, `elementor-widget__width-initial` beside
    /// `elementor-widget`). A variant whose extension names chrome or a negative word itself
    /// (`elementor-widget-nav-menu`, `elementor-location-footer`) is no builder class; a "header"
    /// in it is no such name, because in a builder's variants it names a section's or a card's
    /// head row (`card__header`, `landing-row-header`) as often as the site's header, which its
    /// `<header>` tag or banner role still marks. (Measured: with "header" counted, WCXB gains
    /// 0.5 page points instead of 1.2.)
    fn is_builder_class(&self, token: &str) -> bool {
        self.builder_classes.contains(token)
            || self.builder_classes.iter().any(|b| {
                token.strip_prefix(b.as_str()).is_some_and(|rest| {
                    (rest.starts_with('-') || rest.starts_with('_'))
                        && !CHROME_WORDS.iter().any(|w| *w != "header" && rest.contains(w))
                        && !has_word(rest, NEGATIVE_WORDS)
                })
            })
    }

    /// Whether `other` is `index` or inside it.
    fn contains(&self, index: usize, other: usize) -> bool {
        index == other || self.ancestors(other).any(|a| a == index)
    }

    fn has_ancestor_tag(&self, index: usize, tags: &[&str]) -> bool {
        self.ancestors(index).any(|a| tags.contains(&self.nodes[a].tag.as_str()))
    }

    /// Whether a node is a text node a reader sees words in.
    fn is_shown_text(&self, index: usize) -> bool {
        let node = &self.nodes[index];
        node.tag.is_empty() && !node.skip && !node.text.trim().is_empty()
    }

    /// The nearest block-level ancestor: the element whose line a text or inline element is on.
    fn block_of(&self, index: usize) -> Option<usize> {
        self.ancestors(index).find(|&a| BLOCK_TAGS.contains(&self.nodes[a].tag.as_str()))
    }

    /// Descendants in document order (pre-order), including `index` itself.
    fn subtree(&self, index: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![index];
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.nodes[i].children.iter().rev());
        }
        out
    }

    /// Every text node of a subtree as written, shown or not (a `<title>`, a `<noscript>`).
    fn source_text(&self, index: usize) -> String {
        self.subtree(index).iter().map(|&j| self.nodes[j].text.as_str()).collect()
    }

    /// Visible text of a subtree (button captions included), whitespace collapsed, chrome
    /// included.
    fn plain_text(&self, index: usize) -> String {
        let mut out = String::new();
        for i in self.subtree(index) {
            let node = &self.nodes[i];
            if node.invisible {
                continue;
            }
            if node.tag.is_empty() {
                out.push_str(&node.text);
            } else if matches!(node.tag.as_str(), "br" | "p" | "div" | "li" | "tr" | "td" | "th") {
                out.push(' ');
            }
        }
        collapse_whitespace(&out)
    }
}

/// The element just before a node that is about to join the arena under `parent`: its previous
/// element sibling, or for a first child its parent's (two levels up at most). The arena is
/// built in document order, so the earlier siblings are already in `parent`'s children (and at
/// the levels above, the ancestor itself is the last of its parent's). Sheets and scripts do
/// not count: CSS-in-JS puts a `<style>` before each element, not on screen.
fn element_before<N>(nodes: &[ArenaNode<N>], parent: Option<usize>) -> Option<usize> {
    let mut level = parent;
    for up in 0..3 {
        let at = level?;
        let children = &nodes[at].children;
        let earlier = if up == 0 { &children[..] } else { &children[..children.len().saturating_sub(1)] };
        let element = earlier.iter().rev().copied().find(|&c| {
            let tag = nodes[c].tag.as_str();
            !tag.is_empty() && !matches!(tag, "style" | "script" | "template" | "link" | "meta")
        });
        if element.is_some() {
            return element;
        }
        level = nodes[at].parent;
    }
    None
}

/// Whether an element is (or wraps, two levels down at most) the toggle of a disclosure: a
/// collapsed `aria-expanded="false"` control that is not a menu button, or a button that holds
/// a heading (an accordion section's title).
fn is_disclosure_toggle<D: Dom>(dom: &D, node: &D::Node, depth: usize) -> bool {
    if dom.node_type(node) != NodeType::Element {
        return false;
    }
    let popup = dom.attribute(node, "aria-haspopup").is_some_and(|v| v != "false");
    if dom.attribute(node, "aria-expanded").is_some_and(|v| v == "false") && !popup {
        return true;
    }
    let button = dom.tag_name(node) == "button" || dom.attribute(node, "role").is_some_and(|r| r == "button");
    if button && !popup && (holds_heading(dom, node, 0) || says_disclose(&own_text(dom, node, 0))) {
        return true;
    }
    depth < 2 && dom.children(node).iter().any(|c| is_disclosure_toggle(dom, c, depth + 1))
}

/// Whether a button's label offers to show more ("View product details", "Read more",
/// "Show all 12 answers").
fn says_disclose(label: &str) -> bool {
    let label = label.trim().to_lowercase();
    let first = label.split_whitespace().next().unwrap_or("");
    label.chars().count() <= 40
        && (matches!(first, "view" | "show" | "read" | "see" | "expand" | "more" | "details")
            || label.ends_with("more")
            || label.ends_with("details"))
}

/// The text of an element's subtree, a few levels deep (a button's label).
fn own_text<D: Dom>(dom: &D, node: &D::Node, depth: usize) -> String {
    let mut out = String::new();
    for child in dom.children(node) {
        match dom.node_type(&child) {
            NodeType::Text => out.push_str(&dom.text(&child)),
            NodeType::Element if depth < 3 => {
                out.push(' ');
                out.push_str(&own_text(dom, &child, depth + 1));
            }
            _ => {}
        }
    }
    out
}

fn holds_heading<D: Dom>(dom: &D, node: &D::Node, depth: usize) -> bool {
    dom.children(node).iter().any(|c| {
        dom.node_type(c) == NodeType::Element
            && (is_heading_tag(&dom.tag_name(c)) || (depth < 2 && holds_heading(dom, c, depth + 1)))
    })
}

/// `S:0`, `S:1`…: React's streamed Suspense boundaries.
fn is_streamed_boundary(id: &str) -> bool {
    id.strip_prefix("S:").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn collapsed_len(text: &str) -> usize {
    let mut len = 0;
    let mut in_space = true;
    for c in text.chars() {
        if c.is_whitespace() {
            if !in_space {
                len += 1;
                in_space = true;
            }
        } else {
            len += 1;
            in_space = false;
        }
    }
    len
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------------
// Page analysis: chrome, content scores, the primary content.

/// Class or id words of page chrome (Readability's "unlikely candidates", extended).
const CHROME_WORDS: &[&str] = &[
    "-ad-",
    "ad-break",
    "adsbygoogle",
    "advert",
    "agegate",
    "ai2html",
    "banner",
    "breadcrumb",
    "combx",
    "comment",
    "community",
    "cookie",
    "consent",
    "cover-wrap",
    "disqus",
    "footer",
    "gdpr",
    "header",
    "legends",
    "masthead",
    "menu",
    "navbar",
    "nav-",
    "newsletter",
    "outbrain",
    "pager",
    "pagination",
    // Links to the next and previous story, each with its title and excerpt.
    "next-prev",
    "prev-next",
    "prevnext",
    "nextprev",
    "popup",
    "promo",
    "related",
    "remark",
    "replies",
    "rss",
    "share",
    "sharing",
    "shoutbox",
    "sidebar",
    "skip-link",
    "skyscraper",
    "social",
    "sponsor",
    "subscribe",
    "supplemental",
    "taboola",
    "toolbar",
    "trending",
    "widget",
    "yom-remote",
    // Customer reviews under a product: other people's words about the page's subject, like
    // its comments (a review site's own review is named "review", singular).
    "reviews",
];

/// Chrome words of boxes that hold paragraphs of text and still are not the page's own.
const PARAGRAPHED_CHROME_WORDS: &[&str] = &[
    "comment",
    "community",
    "consent",
    "cookie",
    "disqus",
    "gdpr",
    "newsletter",
    "popup",
    "related",
    "remark",
    "replies",
    "reviews",
    "sidebar",
];

/// Class or id words that keep an element a content candidate despite a chrome word.
const CONTENT_WORDS: &[&str] =
    &["article", "body", "column", "content", "main", "mathjax", "post", "story", "entry", "text", "shadow"];

const POSITIVE_WORDS: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "hentry",
    "h-entry",
    "main",
    "page",
    "pagination",
    "post",
    "text",
    "blog",
    "story",
    "prose",
    "markdown",
];

const NEGATIVE_WORDS: &[&str] = &[
    "-ad-",
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "foot",
    "footer",
    "footnote",
    "gdpr",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "tool",
    "widget",
    "byline",
    "author",
    "dateline",
    "caption",
];

/// Class or id words of a post's author card or signature.
const PROFILE_WORDS: &[&str] = &["user", "profile", "poster", "signature", "avatar", "author"];

/// Class or id words of tab and accordion panels (and, as a part of a name, "answer": an FAQ's
/// collapsed answers).
const PANEL_WORDS: &[&str] = &["tab-pane", "tabpanel", "tab-content", "accordion", "collapse"];

const CHROME_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "menu",
    "menubar",
    "search",
    "alert",
    "alertdialog",
    "dialog",
];

fn has_word(haystack: &str, words: &[&str]) -> bool {
    words.iter().any(|w| haystack.contains(w))
}

/// Whether a class or id names one of `words` as a whole part (`faq__answer`, `cookie-banner`,
/// `onetrust-consent-sdk`), not inside a longer word (`unanswered`) nor as a taxonomy term of
/// the page (`category-cookies`, `tag-reviews`, `node--type-reviews`).
fn names_part(class_id: &str, words: &[&str]) -> bool {
    class_id.split_whitespace().any(|token| {
        let taxonomy = token.starts_with("category-") || token.starts_with("tag-") || token.contains("type-");
        !taxonomy && token.split(['-', '_']).any(|part| words.contains(&part))
    })
}

struct Page {
    /// Elements that are chrome (their subtrees are left out of the primary text).
    chrome: Vec<bool>,
    /// Chrome, plus the clutter found inside the content (link lists, share boxes): what the
    /// primary text leaves out.
    dropped: Vec<bool>,
    /// The primary content container.
    primary: usize,
    /// Siblings of the primary container that belong to the content, in document order,
    /// with the primary itself.
    content_roots: Vec<usize>,
}

impl Page {
    /// Finds the content; when that leaves little text, tries again with fewer rules, as
    /// Readability does: class names are hints that page builders defeat ("elementor-widget"
    /// holding the article), and clutter rules can strip a page made of short cards.
    fn analyse<N: Clone>(arena: &Arena<N>, _url: &str) -> Page {
        const ENOUGH: usize = 500;
        let related = related_blocks(arena);
        let excerpts = excerpts(arena);
        let teasers = teasers(arena, &excerpts);
        let first = Page::attempt(arena, Strictness::Full, &related, &teasers, &excerpts);
        let first_len = first.text_len(arena);
        if first_len >= ENOUGH {
            return first;
        }
        let mut best = (first_len, first);
        for strictness in [Strictness::NoClassNames, Strictness::NoClassNamesNoClutter] {
            let page = Page::attempt(arena, strictness, &related, &teasers, &excerpts);
            let len = page.text_len(arena);
            if len >= ENOUGH {
                return page;
            }
            if len > best.0 {
                best = (len, page);
            }
        }
        best.1
    }

    /// One reading of the page at a strictness; `related` marks the related-content blocks
    /// ([`related_blocks`]), `teasers` the teasers of other pages ([`teasers`]) and `excerpts`
    /// the cut-short excerpts among them ([`excerpts`]), all the same for every attempt.
    fn attempt<N: Clone>(
        arena: &Arena<N>,
        strictness: Strictness,
        related: &[bool],
        teasers: &[bool],
        excerpts: &[bool],
    ) -> Page {
        let chrome = mark_chrome(arena, strictness != Strictness::Full);
        let scores = score_candidates(arena, &chrome);
        let primary = pick_primary(arena, &scores, &chrome, related);
        let content_roots = related_siblings(arena, &scores, &chrome, excerpts, primary);
        let content_roots = repeated_items(arena, &chrome, primary).unwrap_or(content_roots);
        let content_roots = match arena.declared_article {
            Some(article) if content_roots.iter().any(|&r| arena.contains(r, article)) => {
                narrow_to_declared(arena, &chrome, article, content_roots)
            }
            // The content found lies inside the declared article: the article is the content.
            Some(article) if content_roots.iter().all(|&r| arena.contains(article, r)) => vec![article],
            _ => widen(arena, &chrome, teasers, primary, content_roots),
        };
        // Narrowed to the declared article: that is the main content element.
        let primary = match content_roots[..] {
            [article] if arena.declared_article == Some(article) => article,
            _ => primary,
        };
        let dropped = if strictness == Strictness::NoClassNamesNoClutter {
            chrome.clone()
        } else {
            drop_clutter(arena, &chrome, &scores, &content_roots, primary, related)
        };
        Page { chrome, dropped, primary, content_roots }
    }

    /// Characters of text the content roots give.
    fn text_len<N>(&self, arena: &Arena<N>) -> usize {
        self.write(arena).chars().count()
    }

    fn write<N>(&self, arena: &Arena<N>) -> String {
        self.write_leaving_out(arena, &self.dropped)
    }

    fn write_leaving_out<N>(&self, arena: &Arena<N>, dropped: &[bool]) -> String {
        let mut writer = TextWriter::new();
        let mut ctx = TextContext { left_out: dropped, list_depth: 0, quote: false };
        for &root in &self.content_roots {
            write_text(arena, root, &mut ctx, &mut writer);
            writer.end_block("");
        }
        writer.out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strictness {
    /// Every rule.
    Full,
    /// Chrome by tag and role only (class names that merely suggest chrome are ignored).
    NoClassNames,
    /// As above, and no clutter dropped inside the content.
    NoClassNamesNoClutter,
}

/// Visible text outside chrome, per subtree; with `outside_links`, leaving out the text of links.
fn non_chrome_text<N>(arena: &Arena<N>, chrome: &[bool], outside_links: bool) -> Vec<usize> {
    let in_link = if outside_links {
        inherited(arena, &arena.nodes.iter().map(|n| n.tag == "a").collect::<Vec<_>>())
    } else {
        vec![false; arena.nodes.len()]
    };
    let mut lengths = vec![0usize; arena.nodes.len()];
    for index in (0..arena.nodes.len()).rev() {
        let node = &arena.nodes[index];
        if node.skip || chrome[index] {
            lengths[index] = 0;
            continue;
        }
        if node.tag.is_empty() && !in_link[index] {
            lengths[index] = collapsed_len(&node.text);
        }
        if let Some(parent) = node.parent {
            lengths[parent] += lengths[index];
        }
    }
    lengths
}

/// Widens the content found when it is only part of the page's own text:
///
/// - When it holds under two thirds of the page's paragraphs (outside chrome and teasers;
///   measured against a half: WCXB +2.8 page points, Zyte unchanged), the text
///   is spread over several containers (an article continued below a table, the posts of a
///   thread beside an AI summary, the sections of a service page or an FAQ): the content is the
///   lowest ancestor holding 80% of them, never wider than the page's `<main>`.
/// - When it lies inside the page's `<main>` and holds under half of main's text outside links,
///   the content is the main.
/// - When it holds under a quarter of the page's non-chrome text (a landing page of many short
///   sections, a listing of short cards), the content is the lowest ancestor that holds most of
///   it.
fn widen<N>(arena: &Arena<N>, chrome: &[bool], teasers: &[bool], primary: usize, roots: Vec<usize>) -> Vec<usize> {
    let lengths = non_chrome_text(arena, chrome, false);
    let total = lengths[arena.body];
    let covered: usize = roots.iter().map(|&r| lengths[r]).sum();
    if total == 0 {
        return roots;
    }
    let paragraphs = own_paragraphs(arena, chrome, teasers);
    let page_paragraphs = paragraphs[arena.body];
    let covered_paragraphs: usize = roots.iter().map(|&r| paragraphs[r]).sum();
    if page_paragraphs >= 500 && covered_paragraphs * 3 < page_paragraphs * 2 {
        return vec![lowest_ancestor_holding(arena, primary, &paragraphs, (4, 5), true)];
    }
    // The page's <main> says where its content is: content found inside it that holds under
    // half of its text outside links (one section of a reference page, the intro of a
    // category page above its product grid) is the main, which drop_clutter then clears of
    // link lists and related blocks. Measured against a third and two thirds: WCXB +1.3 and
    // +1.1 page points, a half +1.9.
    // Text outside links, per subtree: one pass, read by the rule below and the prose rule.
    let mut plain: Option<Vec<usize>> = None;
    if let Some(main) =
        arena.ancestors(primary).find(|&a| arena.nodes[a].tag == "main" || arena.nodes[a].role == "main")
        && roots.iter().all(|&r| arena.contains(main, r))
    {
        let plain = plain.get_or_insert_with(|| non_chrome_text(arena, chrome, true));
        let covered_plain: usize = roots.iter().map(|&r| plain[r]).sum();
        if covered_plain * 2 < plain[main] {
            return vec![main];
        }
    }
    if covered * 4 >= total {
        return roots;
    }
    // Around an article (real paragraphs, or a long run of text broken by <br>), link text
    // elsewhere (category and archive lists, menus the page did not mark as such) is no reason
    // to widen: only text that is not links.
    if prose(arena, primary) >= 300 || loose_text(arena, primary).0 >= 300 {
        let plain = plain.get_or_insert_with(|| non_chrome_text(arena, chrome, true));
        let covered_plain: usize = roots.iter().map(|&r| plain[r]).sum();
        if covered_plain * 4 >= plain[arena.body] {
            return roots;
        }
    }
    vec![lowest_ancestor_holding(arena, primary, &lengths, (3, 5), false)]
}

/// The content found holds the article the page declares (`itemprop="articleBody"`): that is
/// the page's own word on where its text is, so the content is not widened to paragraphs
/// elsewhere (a site footer's blurb), and when the declared body is half or more of it, the
/// content is the declared body alone (without the share bar, author box and newsletter pitch
/// the container around it holds). Content found inside the declared body is lifted to all of
/// it (the highlights above the paragraphs) in [`Page::attempt`].
fn narrow_to_declared<N>(arena: &Arena<N>, chrome: &[bool], article: usize, roots: Vec<usize>) -> Vec<usize> {
    let lengths = non_chrome_text(arena, chrome, false);
    let covered: usize = roots.iter().map(|&r| lengths[r]).sum();
    if lengths[article] * 2 >= covered { vec![article] } else { roots }
}

/// The one element marked `itemprop="articleBody"` with 200 or more characters of visible
/// text; none when there is none or several (a listing marking each entry's body).
fn declared_article<N>(nodes: &[ArenaNode<N>]) -> Option<usize> {
    let mut declared = nodes.iter().enumerate().filter(|(_, n)| n.article_body && !n.skip && n.text_len >= 200);
    match (declared.next(), declared.next()) {
        (Some((index, _)), None) => Some(index),
        _ => None,
    }
}

/// The lowest ancestor of `start` (below `<html>`) whose `amounts` reach `share` (numerator,
/// denominator) of the body's; with `up_to_main`, never wider than a `<main>` (or `role=main`)
/// on the way. The highest one reached when none does.
fn lowest_ancestor_holding<N>(
    arena: &Arena<N>,
    start: usize,
    amounts: &[usize],
    share: (usize, usize),
    up_to_main: bool,
) -> usize {
    let is_main = |i: usize| arena.nodes[i].tag == "main" || arena.nodes[i].role == "main";
    let total = amounts[arena.body];
    let mut widest = start;
    while let Some(parent) = arena.nodes[widest].parent {
        if arena.nodes[parent].tag == "html" || (up_to_main && is_main(widest)) {
            break;
        }
        widest = parent;
        if amounts[widest] * share.1 >= total * share.0 {
            break;
        }
    }
    widest
}

/// Characters of the page's own paragraphs per subtree: paragraph-like blocks (the outermost
/// of nested ones) of 40+ characters with few links, outside chrome and outside teasers of
/// other pages ([`teasers`]: a story list's excerpts are paragraphs too, but not this page's).
/// 40, not the 80 of a news paragraph: the sections of a landing page or a product page say
/// what they say in a sentence each.
fn own_paragraphs<N>(arena: &Arena<N>, chrome: &[bool], teaser: &[bool]) -> Vec<usize> {
    let chrome_below = inherited(arena, chrome);
    let mut lengths = vec![0usize; arena.nodes.len()];
    for index in (0..arena.nodes.len()).rev() {
        let node = &arena.nodes[index];
        if node.skip || chrome_below[index] || teaser[index] {
            continue;
        }
        if node.text_len >= 40
            && is_paragraph_like(arena, index)
            && !node.parent.is_some_and(|p| is_paragraph_like(arena, p))
            && arena.link_density(index) < 0.3
        {
            lengths[index] += node.text_len;
        }
        if let Some(parent) = node.parent {
            lengths[parent] += lengths[index];
        }
    }
    lengths
}

/// Teasers of other pages: anything inside a link (a card that is one big link), the
/// [`excerpts`], and cards (under 1,500 characters, up to four levels above the heading) whose
/// heading is a link.
fn teasers<N>(arena: &Arena<N>, excerpts: &[bool]) -> Vec<bool> {
    let mut own: Vec<bool> = arena.nodes.iter().zip(excerpts).map(|(n, &excerpt)| n.tag == "a" || excerpt).collect();
    for (index, node) in arena.nodes.iter().enumerate() {
        if is_heading_tag(&node.tag) && node.tag != "h1" && node.text_len > 0 && arena.link_density(index) > 0.5 {
            for ancestor in arena.ancestors(index).take(4) {
                if ancestor == arena.body || arena.nodes[ancestor].text_len >= 1_500 {
                    break;
                }
                own[ancestor] = true;
            }
        }
    }
    inherited(arena, &own)
}

/// Excerpts of other pages: entries that open with a linked title and end in a snippet cut
/// short with an ellipsis, three or more under one parent (a news ticker's or a story list's
/// entries; paragraphs of an article with a link inside stay paragraphs).
fn excerpts<N>(arena: &Arena<N>) -> Vec<bool> {
    let mut own = vec![false; arena.nodes.len()];
    let mut excerpt_parents: HashMap<usize, HashSet<usize>> = HashMap::new();
    for (index, node) in arena.nodes.iter().enumerate() {
        let trimmed = node.text.trim_end();
        if !node.tag.is_empty() || node.skip || !(trimmed.ends_with("...") || trimmed.ends_with('…')) {
            continue;
        }
        // The cut snippet is plain text beside the link ("Read more..." is a link's own label).
        if arena.has_ancestor_tag(index, &["a"]) {
            continue;
        }
        if let Some(entry) = arena.ancestors(index).take(3).find(|&a| {
            let n = &arena.nodes[a];
            n.link_len >= 10 && n.text_len < 600
        }) && opens_with_link(arena, entry)
            && let Some(parent) = arena.nodes[entry].parent
        {
            excerpt_parents.entry(parent).or_default().insert(entry);
        }
    }
    for entries in excerpt_parents.into_values().filter(|e| e.len() >= 3) {
        for entry in entries {
            own[entry] = true;
        }
    }
    inherited(arena, &own)
}

/// Whether the first text in `index` is link text (a linked title opening an entry).
fn opens_with_link<N>(arena: &Arena<N>, index: usize) -> bool {
    arena
        .subtree(index)
        .into_iter()
        .find(|&i| arena.is_shown_text(i))
        .is_some_and(|first| arena.ancestors(first).take_while(|&a| a != index).any(|a| arena.nodes[a].tag == "a"))
}

/// Characters in real paragraphs (a `p` of 80+ characters with few links) under a node.
fn prose<N>(arena: &Arena<N>, root: usize) -> usize {
    arena
        .subtree(root)
        .into_iter()
        .filter(|&i| {
            let n = &arena.nodes[i];
            n.tag == "p" && !n.skip && n.text_len >= 80 && arena.link_density(i) < 0.3
        })
        .map(|i| arena.nodes[i].text_len)
        .sum()
}

/// When the primary (or a near ancestor) is one of several alike siblings holding text (the
/// posts of a thread, the entries of a listing), the content is their parent; but not when the
/// primary is, holds or lies inside the article the page declares (a breaking-news story in one
/// row of headline rows).
fn repeated_items<N>(arena: &Arena<N>, chrome: &[bool], primary: usize) -> Option<Vec<usize>> {
    if arena.declared_article.is_some_and(|a| arena.contains(primary, a) || arena.contains(a, primary)) {
        return None;
    }
    let mut current = primary;
    for _ in 0..4 {
        let parent = arena.nodes[current].parent?;
        if parent == arena.body || arena.nodes[parent].tag == "html" || chrome[parent] {
            return None;
        }
        let node = &arena.nodes[current];
        if !node.class.is_empty() || matches!(node.tag.as_str(), "article" | "li") {
            let alike: Vec<usize> = arena.nodes[parent]
                .children
                .iter()
                .copied()
                .filter(|&c| {
                    let n = &arena.nodes[c];
                    !n.skip && !chrome[c] && n.tag == node.tag && n.class == node.class && n.text_len >= 25
                })
                .collect();
            let total: usize = alike.iter().map(|&c| arena.nodes[c].text_len).sum();
            if alike.len() >= 3 && total * 2 >= node.text_len * 3 {
                return Some(vec![parent]);
            }
        }
        current = parent;
    }
    None
}

/// Marks clutter inside the content roots (Readability's conditional cleaning, simplified):
/// containers that are mostly links, or whose class says chrome and whose score does not
/// outweigh it. Prose with many commas is always kept.
fn drop_clutter<N>(
    arena: &Arena<N>,
    chrome: &[bool],
    scores: &HashMap<usize, f64>,
    roots: &[usize],
    primary: usize,
    related: &[bool],
) -> Vec<bool> {
    let mut dropped = chrome.to_vec();
    // Per root, blocks and candidate datelines counted by tag and class.
    let mut metadata_like = vec![false; arena.nodes.len()];
    let mut metadata_blocks: HashMap<(usize, &str, &str), usize> = HashMap::new();
    let mut kinds: HashMap<(usize, &str, &str), usize> = HashMap::new();
    for &root in roots {
        for i in arena.subtree(root) {
            let n = &arena.nodes[i];
            if n.skip || n.tag.is_empty() {
                continue;
            }
            let kind = (root, n.tag.as_str(), n.class.as_str());
            *kinds.entry(kind).or_default() += 1;
            if n.text_len < 150 && (is_metadata(n) || mostly_time(arena, i)) {
                metadata_like[i] = true;
                *metadata_blocks.entry(kind).or_default() += 1;
            }
        }
    }
    drop_repeated_blocks(arena, roots, &mut dropped);
    for &root in roots {
        // Link-dense blocks are clutter beside prose, but on a page of cards (a link-dense
        // content root with little prose) they are the content.
        let card_page = arena.link_density(root) > 0.4 && prose(arena, root) < 1_000;
        // One of four or more blocks of a kind (tag and class) with text of its own beside its
        // links is an entry of the page's list (a linked title and its snippet, a product and
        // its price), not a list of links; nor is the list holding four or more of them.
        let is_entry = |i: usize| {
            let n = &arena.nodes[i];
            !n.class.is_empty()
                && n.text_len >= n.link_len + 30
                && kinds.get(&(root, n.tag.as_str(), n.class.as_str())).is_some_and(|&k| k >= 4)
        };
        for index in arena.subtree(root) {
            let node = &arena.nodes[index];
            // A block headed "Related stories", "You may also like", "Leia também": teasers of
            // other pages, not this one's text.
            if related[index] && !node.skip && !dropped[index] && !arena.contains(index, primary) {
                dropped[index] = true;
                continue;
            }
            if index == root || node.skip || dropped[index] {
                continue;
            }
            // The page's tags: two or more `rel="tag"` links with little else (a "Tags" label,
            // commas, list items). They name topics for navigation; they are not the page's text.
            if node.tag_links >= 2 && node.text_len <= node.tag_link_len + 40 + 2 * node.tag_links {
                dropped[index] = true;
                continue;
            }
            // A photo credit, or a control's label left in the text ("Advertisement", "Share",
            // "Like this:"): words about the page, not of it.
            if !node.tag.is_empty() && node.text_len > 0 && node.text_len <= 120 && is_credit_or_label(arena, index) {
                dropped[index] = true;
                continue;
            }
            if !matches!(
                node.tag.as_str(),
                "div" | "section" | "ul" | "ol" | "table" | "aside" | "header" | "figure" | "span" | "p" | "dl"
            ) {
                continue;
            }
            // Prose with many commas stays; so does a container that is most of the content
            // (on a listing page the link list is the content).
            if node.commas >= 10 || node.text_len * 2 > arena.nodes[root].text_len {
                continue;
            }
            // The poster's card beside each post (name, rank, join date, post count) or a
            // signature: short blocks the class names as the user's, not the message.
            if node.text_len < 300
                && has_word(&node.class_id, PROFILE_WORDS)
                && !has_word(&node.class_id, CONTENT_WORDS)
            {
                dropped[index] = true;
                continue;
            }
            // A dateline or byline: a short block the class names as post metadata, or one that
            // is mostly a <time>. It says when and by whom, which the page's metadata carries;
            // as text it is noise between the title and the story. Each post of a thread or
            // entry of a listing has its own date, which belongs to it: only blocks of a kind
            // (tag and class) that occurs once or twice go.
            if metadata_like[index]
                && metadata_blocks.get(&(root, node.tag.as_str(), node.class.as_str())).is_some_and(|&n| n <= 2)
            {
                dropped[index] = true;
                continue;
            }
            let weight = class_weight(arena, node);
            let density = arena.link_density(index);
            let score = scores.get(&index).copied().unwrap_or(0.0);
            let entries = is_entry(index) || node.children.iter().filter(|&&c| is_entry(c)).count() >= 4;
            // A link in a sentence wrapped in a span ("reported that <span class=link><a>…</a></span>
            // for his role") is the sentence's words.
            let in_sentence = || {
                node.tag == "span"
                    && arena.block_of(index).is_some_and(|block| {
                        node.text_len * 2 < arena.nodes[block].text_len && arena.link_density(block) <= 0.5
                    })
            };
            let link_list =
                !card_page && !entries && ((weight < 25.0 && density > 0.5) || (density > 0.75)) && !in_sentence();
            // A block of the primary's own kind (its tag, and the class holding the negative
            // word, not a builder's or a utility's) is the content's, whatever that word says: a
            // product page's feature blades are all "mediaclass".
            let like_primary = || {
                let primary_node = &arena.nodes[primary];
                node.tag == primary_node.tag
                    && node.class.split_whitespace().any(|token| {
                        has_word(token, NEGATIVE_WORDS)
                            && !arena.is_builder_class(token)
                            && !is_utility_class(token)
                            && primary_node.class.split_whitespace().any(|own| own == token)
                    })
            };
            let negative = weight < 0.0 && weight + score < 0.0 && !arena.embeds[index] && !like_primary();
            if link_list || negative {
                dropped[index] = true;
            }
        }
    }
    dropped
}

/// Drops the second and later copies of a block of text (200 characters or more) that the
/// content holds several times over: the tablet and desktop versions of a section, a carousel's
/// clones. A repeated line inside different blocks (a recipe's "1 tsp. oil" every day) stays;
/// only whole blocks with the same text go.
fn drop_repeated_blocks<N>(arena: &Arena<N>, roots: &[usize], dropped: &mut [bool]) {
    const MIN_CHARS: usize = 200;
    let mut by_length: HashMap<usize, Vec<usize>> = HashMap::new();
    for &root in roots {
        for index in arena.subtree(root) {
            let node = &arena.nodes[index];
            if index != root && !node.skip && !node.tag.is_empty() && node.text_len >= MIN_CHARS {
                by_length.entry(node.text_len).or_default().push(index);
            }
        }
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut candidates: Vec<usize> = by_length.into_values().filter(|v| v.len() >= 2).flatten().collect();
    candidates.retain(|&index| !holds_code(arena, index));
    candidates.sort_unstable();
    for index in candidates {
        if dropped[index] || arena.ancestors(index).any(|a| dropped[a]) {
            continue;
        }
        let text = arena.plain_text(index);
        match seen.get(&text) {
            // The same text in an element and one of its wrappers is one block, not two.
            Some(&first) if !arena.contains(first, index) => dropped[index] = true,
            Some(_) => {}
            None => {
                seen.insert(text, index);
            }
        }
    }
}

/// Whether an element is or holds a code block (documentation repeats its examples on purpose).
fn holds_code<N>(arena: &Arena<N>, index: usize) -> bool {
    arena.subtree(index).into_iter().any(|i| matches!(arena.nodes[i].tag.as_str(), "pre" | "code"))
}

/// How the headings of related-content blocks begin (lower case, several languages).
const RELATED_HEADINGS: &[&str] = &[
    "related",
    "you may also like",
    "you might also like",
    "you may like",
    "you might like",
    "more from",
    "more stories",
    "more news",
    "more articles",
    // Not "Recommended" alone: Invision forums head a thread's posts "Recommended Posts".
    "recommended for you",
    "recommended stories",
    "recommended articles",
    "recommended reading",
    "read next",
    "also read",
    "read also",
    "more great",
    "editor's picks",
    "editors' picks",
    "don't miss",
    "more on this",
    "other stories",
    "você pode gostar",
    "voce pode gostar",
    "leia também",
    "leia mais",
    "veja também",
    "notícias relacionadas",
    "lee también",
    "te puede interesar",
    "artículos relacionados",
    "noticias relacionadas",
    "à lire aussi",
    "a lire aussi",
    "sur le même sujet",
    "articles similaires",
    "lesen sie auch",
    "das könnte sie auch",
    "ähnliche artikel",
    "mehr zum thema",
    "leggi anche",
    "potrebbe interessarti",
    "関連記事",
];

/// Whether an element's first text is a heading, or a short label, that announces related content.
fn opens_with_related_heading<N>(arena: &Arena<N>, index: usize) -> bool {
    // The first element holding text, in document order: a heading or a leaf.
    let mut stack: Vec<usize> = arena.nodes[index].children.iter().rev().copied().collect();
    let mut first = None;
    while let Some(i) = stack.pop() {
        let n = &arena.nodes[i];
        if n.skip || n.tag.is_empty() || n.text_len == 0 {
            continue;
        }
        if is_heading_tag(&n.tag) || n.children.iter().all(|&c| arena.nodes[c].tag.is_empty()) {
            first = Some(i);
            break;
        }
        stack.extend(n.children.iter().rev());
    }
    let Some(first) = first else { return false };
    let node = &arena.nodes[first];
    // An h1 is the page's own title, whatever it says ("Related products" on a shop's page).
    if node.tag == "h1" || node.text_len > 60 {
        return false;
    }
    let text = arena.plain_text(first).to_lowercase();
    let text = text.trim().trim_start_matches(['#', '-', '–', ' ']);
    // A label that is not a heading ("<div class=title>More Great Stories</div>") announces the
    // block only when it is little more than the phrase: a leaf of prose may open with "Related".
    let is_heading = is_heading_tag(&node.tag);
    RELATED_HEADINGS
        .iter()
        .any(|h| text.starts_with(h) && (is_heading || text.chars().count() <= h.chars().count() + 25))
        || (is_heading && names_more_stories(text))
}

/// "More blog stories", "More tech news", "More world headlines": "more", at most two words,
/// then a word for stories.
fn names_more_stories(text: &str) -> bool {
    const STORIES: &[&str] = &["stories", "news", "articles", "posts", "headlines", "videos"];
    let words: Vec<&str> = text.split_whitespace().collect();
    words.len() <= 4
        && words.first() == Some(&"more")
        && words.last().is_some_and(|w| STORIES.contains(&w.trim_end_matches([':', '.'])))
}

/// Containers that open with a related-content heading, and everything inside them.
fn related_blocks<N>(arena: &Arena<N>) -> Vec<bool> {
    let own: Vec<bool> = (0..arena.nodes.len())
        .map(|i| {
            matches!(
                arena.nodes[i].tag.as_str(),
                "div" | "section" | "article" | "aside" | "ul" | "ol" | "footer" | "nav"
            ) && opens_with_related_heading(arena, i)
        })
        .collect();
    inherited(arena, &own)
}

fn is_heading_tag(tag: &str) -> bool {
    matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// What a photo credit starts with.
const CREDIT_STARTS: &[&str] = &[
    "(image credit",
    "image credit",
    "(photo credit",
    "photo credit",
    "credit:",
    "credits:",
    "(credit:",
    "photo:",
    "(photo:",
    "photograph:",
    "photos:",
    "image:",
    "(image:",
    "picture:",
    "getty images",
    "(getty images",
];

/// A photo credit: a short element the class names so (`credit`, `image-credit`), or whose text
/// (`text`, lower case) starts as credits do.
fn is_credit<N>(node: &ArenaNode<N>, text: &str) -> bool {
    (has_word(&node.class_id, &["credit"]) && !has_word(&node.class_id, CONTENT_WORDS))
        || CREDIT_STARTS.iter().any(|start| text.starts_with(start))
}

/// Labels of page controls and ad slots that pages leave as text.
const UI_LABELS: &[&str] = &[
    "advertisement",
    "advert",
    "ad",
    "ads",
    "sponsored",
    "like this",
    "like loading",
    "comments",
    "comment",
    "share",
    "share this",
    "share this article",
    "share this story",
    "subscribe",
    "trending",
    "highlights",
    "explore further",
    "print article",
    "order reprints",
    "text size",
    "related",
    "related articles",
    "related stories",
    "read more",
    "you may also like",
    "more",
    "previous next",
    "our standards",
    "breaking news emails",
    "tell us what you think",
    "story continues below advertisement",
    "continue reading below",
    "scroll to continue with content",
];

/// A photo credit or a control's label, the element's text read once for both tests.
fn is_credit_or_label<N>(arena: &Arena<N>, index: usize) -> bool {
    let node = &arena.nodes[index];
    let text = arena.plain_text(index).to_lowercase();
    is_credit(node, &text) || is_ui_label(node, &text)
}

/// Whether a short element's whole text (`text`, lower case) is such a label.
fn is_ui_label<N>(node: &ArenaNode<N>, text: &str) -> bool {
    node.text_len <= 40 && UI_LABELS.contains(&text.trim().trim_end_matches(['.', ':', '…', ' ']).trim())
}

/// Class or id words of a post's date, author line and other metadata.
const METADATA_WORDS: &[&str] = &[
    // "date" also covers datestamp, datetime, pubdate, post-date, updated…
    "byline",
    "dateline",
    "date",
    "timestamp",
    "publish",
    "posted",
    "entry-meta",
    "post-meta",
    "article-meta",
    "meta-info",
    "postmeta",
    "author",
];

fn is_metadata<N>(node: &ArenaNode<N>) -> bool {
    has_word(&node.class_id, METADATA_WORDS) && !has_word(&node.class_id, &["content", "body", "text"])
}

/// Whether a `<time>` element holds most of a block's text.
fn mostly_time<N>(arena: &Arena<N>, index: usize) -> bool {
    let node = &arena.nodes[index];
    node.text_len > 0
        && arena
            .subtree(index)
            .into_iter()
            .any(|i| arena.nodes[i].tag == "time" && arena.nodes[i].text_len * 2 >= node.text_len)
}

/// Characters of paragraph text (what content scoring counts) in each subtree.
fn paragraph_text<N>(arena: &Arena<N>) -> Vec<usize> {
    let mut lengths = vec![0usize; arena.nodes.len()];
    for index in (0..arena.nodes.len()).rev() {
        let node = &arena.nodes[index];
        if !node.skip && node.text_len >= 25 && is_paragraph_like(arena, index) && lengths[index] == 0 {
            lengths[index] = node.text_len;
        }
        if let Some(parent) = node.parent {
            lengths[parent] += lengths[index];
        }
    }
    lengths
}

/// Class words of overlays, which stay chrome even when other class names are ignored, and
/// however many of the page's paragraphs they hold.
const OVERLAY_WORDS: &[&str] = &["cookie", "consent", "gdpr", "onetrust", "popup", "modal"];

fn mark_chrome<N>(arena: &Arena<N>, ignore_class_names: bool) -> Vec<bool> {
    let paragraphs = paragraph_text(arena);
    let page_paragraphs = paragraphs.get(arena.body).copied().unwrap_or(0);
    let mut chrome = vec![false; arena.nodes.len()];
    for (i, node) in arena.nodes.iter().enumerate() {
        if node.tag.is_empty() || i == arena.body || matches!(node.tag.as_str(), "html" | "body" | "main" | "article") {
            continue;
        }
        let by_tag = matches!(node.tag.as_str(), "nav" | "aside" | "footer" | "form" | "dialog")
            || (node.tag == "header" && !arena.has_ancestor_tag(i, &["article", "main"]));
        let by_role = CHROME_ROLES.contains(&node.role.as_str());
        let by_name = if ignore_class_names {
            has_word(&node.class_id, OVERLAY_WORDS)
        } else {
            hint_words(arena, node).any(|t| has_word(t, CHROME_WORDS))
                && !has_word(&node.class_id, CONTENT_WORDS)
                && !arena.embeds[i]
        };
        // Class names are a hint, not a verdict: a "widget" or "header" that holds most of the
        // page's paragraphs is the page (site builders wrap everything in such classes). Not
        // when its text is mostly links: that is the footer or menu of a page whose content a
        // script draws, which leaves the footer's link columns as its longest "paragraphs"
        // (WCXB +6.8 page points, 6 of them on such pages, whose truth is empty). A page-wide
        // <form> (ASP.NET) holds the page's menus too, so its links say nothing.
        let mut holds_the_content = page_paragraphs >= 200
            && paragraphs[i] * 5 >= page_paragraphs * 2
            && (node.tag == "form" || arena.link_density(i) < 0.5);
        // A box only named like chrome ("pane-header-alignment", "elementor-widget-container")
        // that holds 500+ characters of paragraph text with few links is text, not a menu,
        // header or promo; but comments, reviews, related stories, consent banners and
        // newsletter boxes are written in paragraphs too. (Overlays found with class names
        // ignored stay chrome.)
        if !ignore_class_names
            && !by_tag
            && !by_role
            && paragraphs[i] >= 500
            && arena.link_density(i) < 0.15
            && !has_word(&node.class_id, PARAGRAPHED_CHROME_WORDS)
        {
            holds_the_content = true;
        }
        // A consent panel or popup is chrome however much of the page's prose it holds: the
        // cookie preferences of a page of linked cards are its only paragraphs. So are the
        // customer reviews under a product, whose own text is a few short blocks (WCXB +2.4
        // page points; comments and community words too: -2.0, a forum's posts are its page).
        if names_part(&node.class_id, OVERLAY_WORDS) || names_part(&node.class_id, &["reviews"]) {
            holds_the_content = false;
        }
        // A sidebar both tagged or roled as chrome and named so ("aside.widget", "complementary
        // widget-area") is chrome however much teaser text it holds.
        if (by_tag || by_role) && by_name {
            holds_the_content = false;
        }
        // Chrome by tag or role (not a page-wide <form>) is the page only when it holds most of
        // its paragraphs: a related-stories aside beside a short article holds 40% or more.
        if (by_role || (by_tag && node.tag != "form")) && paragraphs[i] * 5 < page_paragraphs * 3 {
            holds_the_content = false;
        }
        chrome[i] = (by_tag || by_role || by_name) && !holds_the_content;
    }
    chrome
}

/// Embedded social posts and the boxes wrapping them ("social-media-embed"): a tweet or an
/// Instagram post the story quotes is its text, whatever the wrapper's name says. The
/// embedding code gives each post a `blockquote` of a known class; a wrapper holds little more.
fn embedded_posts<N>(nodes: &[ArenaNode<N>], body: usize) -> Vec<bool> {
    const EMBED_CLASSES: &[&str] =
        &["twitter-tweet", "instagram-media", "tiktok-embed", "bluesky-embed", "reddit-embed"];
    let mut embeds = vec![false; nodes.len()];
    for (index, node) in nodes.iter().enumerate() {
        if node.tag != "blockquote" || node.skip || !has_word(&node.class, EMBED_CLASSES) {
            continue;
        }
        embeds[index] = true;
        for ancestor in std::iter::successors(node.parent, |&a| nodes[a].parent) {
            if ancestor == body || nodes[ancestor].text_len > node.text_len * 2 + 100 {
                break;
            }
            embeds[ancestor] = true;
        }
    }
    embeds
}

/// The class names of a page builder or design system: classes on three or more elements whose
/// outermost ones hold half of the page's text or more ("elementor-widget-container",
/// "wp-block-group"). Such a class is on the article and the menu alike, so a chrome word in it
/// ("widget", "header") says nothing of what one element holds. Classes of comments, reviews and
/// related stories are never builder classes: a long thread is most of its page and still not
/// the article.
fn builder_classes<N>(nodes: &[ArenaNode<N>], body: usize) -> HashSet<String> {
    let total = nodes.get(body).map_or(0, |n| n.text_len);
    if total == 0 {
        return HashSet::new();
    }
    // Per class: elements carrying it, and text in its outermost elements (a class nested in
    // itself counts its text once). A depth-first walk with enter and leave events keeps the
    // classes open on the path from the body.
    let mut carried: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut open: HashMap<&str, usize> = HashMap::new();
    let mut stack = vec![(body, true)];
    while let Some((index, entering)) = stack.pop() {
        let node = &nodes[index];
        if node.skip || node.tag.is_empty() {
            continue;
        }
        let classes = node.class.split_whitespace();
        if entering {
            for class in classes {
                let depth = open.entry(class).or_default();
                let (count, outer_text) = carried.entry(class).or_default();
                *count += 1;
                if *depth == 0 {
                    *outer_text += node.text_len;
                }
                *depth += 1;
            }
            stack.push((index, false));
            stack.extend(node.children.iter().rev().map(|&c| (c, true)));
        } else {
            for class in classes {
                if let Some(depth) = open.get_mut(class) {
                    *depth -= 1;
                }
            }
        }
    }
    carried
        .into_iter()
        .filter(|(class, (count, outer_text))| {
            *count >= 3 && outer_text * 2 >= total && !has_word(class, PARAGRAPHED_CHROME_WORDS)
        })
        .map(|(class, _)| class.to_string())
        .collect()
}

/// The class and id words of an element that may hint at what it holds: neither a utility
/// class ([`is_utility_class`]) nor a builder class or a variant of one
/// ([`Arena::is_builder_class`]).
fn hint_words<'a, N>(arena: &'a Arena<N>, node: &'a ArenaNode<N>) -> impl Iterator<Item = &'a str> {
    node.class_id.split_whitespace().filter(|t| !is_utility_class(t) && !arena.is_builder_class(t))
}

/// Flags that hold for a node when they hold for it or any ancestor (parents come first in the
/// arena, so one forward pass suffices).
fn inherited<N>(arena: &Arena<N>, own: &[bool]) -> Vec<bool> {
    let mut out = vec![false; own.len()];
    for (i, node) in arena.nodes.iter().enumerate() {
        out[i] = own[i] || node.parent.is_some_and(|p| out[p]);
    }
    out
}

/// A utility class of a CSS framework (Tailwind's `md:hidden`, `overflow-hidden`,
/// `bg-[url(...)]`): it styles a box and says nothing of what the box holds, so a chrome word
/// inside it ("hidden", "media", "scroll") is no sign of chrome.
fn is_utility_class(token: &str) -> bool {
    token.contains(':') || token.contains('[') || token.starts_with("overflow-")
}

fn class_weight<N>(arena: &Arena<N>, node: &ArenaNode<N>) -> f64 {
    let mut weight = 0.0;
    if hint_words(arena, node).any(|t| has_word(t, NEGATIVE_WORDS)) {
        weight -= 25.0;
    }
    // Utility classes (`text-muted`, `text-center`) style text; they do not say "this is the
    // text", and a muted byline or caption must not win the content on them.
    let mut named = node.class_id.split_whitespace().filter(|t| !t.starts_with("text-"));
    if named.any(|token| has_word(token, POSITIVE_WORDS)) {
        weight += 25.0;
    }
    weight
}

fn initial_score(tag: &str) -> f64 {
    match tag {
        "div" | "article" | "main" | "section" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
        _ => 0.0,
    }
}

const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "dialog",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
    "summary",
    "tr",
    "td",
    "th",
    "tbody",
    "thead",
];

fn is_paragraph_like<N>(arena: &Arena<N>, index: usize) -> bool {
    let node = &arena.nodes[index];
    match node.tag.as_str() {
        "p" | "pre" | "td" | "blockquote" => true,
        // Text held directly in a div or section is a paragraph when no block is inside.
        "div" | "section" | "span" | "font" | "li" | "dd" => {
            !node.children.iter().any(|&c| BLOCK_TAGS.contains(&arena.nodes[c].tag.as_str()))
        }
        _ => false,
    }
}

fn score_candidates<N>(arena: &Arena<N>, chrome: &[bool]) -> HashMap<usize, f64> {
    let mut scores: HashMap<usize, f64> = HashMap::new();
    let chrome_below = inherited(arena, chrome);
    for (index, node) in arena.nodes.iter().enumerate() {
        if node.skip || chrome_below[index] || node.tag.is_empty() {
            continue;
        }
        // A paragraph, or the run of loose text in a container that also holds blocks (text
        // broken by <br> beside a few divs): Readability wraps such runs in a <p>; here the run
        // counts as a paragraph whose parent is the container.
        let (length, commas, first_scored) = if is_paragraph_like(arena, index) {
            // Paragraph-like elements inside a paragraph-like element count once, at the outer one.
            if node.parent.is_some_and(|p| matches!(arena.nodes[p].tag.as_str(), "p" | "pre" | "blockquote")) {
                continue;
            }
            (node.text_len, node.commas, node.parent)
        } else {
            let (length, commas) = loose_text(arena, index);
            (length, commas, Some(index))
        };
        if length < 25 {
            continue;
        }
        let score = 1.0 + commas as f64 + (length / 100).min(3) as f64;
        let scored = first_scored.into_iter().chain(first_scored.into_iter().flat_map(|f| arena.ancestors(f)));
        for (level, ancestor) in scored.take(5).enumerate() {
            if arena.nodes[ancestor].tag.is_empty() {
                continue;
            }
            let divider = match level {
                0 => 1.0,
                1 => 2.0,
                l => l as f64 * 3.0,
            };
            let entry = scores.entry(ancestor).or_insert_with(|| {
                let a = &arena.nodes[ancestor];
                initial_score(&a.tag) + class_weight(arena, a)
            });
            *entry += score / divider;
        }
    }
    for (index, score) in scores.iter_mut() {
        *score *= 1.0 - arena.link_density(*index);
    }
    scores
}

/// Length and commas of the text directly in an element (text nodes and inline children).
fn loose_text<N>(arena: &Arena<N>, index: usize) -> (usize, usize) {
    let mut length = 0;
    let mut commas = 0;
    for &child in &arena.nodes[index].children {
        let node = &arena.nodes[child];
        // `body` and `head` are not inline text of `<html>`: counted as such, every comma on
        // the page scored for `<html>`, which then won over the article on pages with many.
        if node.skip || BLOCK_TAGS.contains(&node.tag.as_str()) || matches!(node.tag.as_str(), "body" | "head") {
            continue;
        }
        length += node.text_len;
        commas += node.commas;
    }
    (length, commas)
}

fn pick_primary<N>(arena: &Arena<N>, scores: &HashMap<usize, f64>, chrome: &[bool], related: &[bool]) -> usize {
    let chrome_below = inherited(arena, chrome);
    // A block headed "Related stories" is never the page's content, however much teaser text
    // it holds.
    let best = scores
        .iter()
        .filter(|(i, _)| !chrome_below[**i] && !related[**i])
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(i, s)| (*i, *s));
    let Some((mut top, top_score)) = best else {
        return arena.body;
    };
    // A container whose score is mostly one child's is better described by that child's parent
    // when several strong candidates share it (Readability's alternative-ancestor step).
    let strong: Vec<usize> =
        scores.iter().filter(|(i, s)| **i != top && **s >= top_score * 0.75).map(|(i, _)| *i).collect();
    if strong.len() >= 2 {
        for ancestor in arena.ancestors(top).collect::<Vec<_>>() {
            if ancestor == arena.body || related[ancestor] {
                break;
            }
            let holding = strong.iter().filter(|&&s| arena.contains(ancestor, s)).count();
            if holding >= 2 {
                top = ancestor;
                break;
            }
        }
    }
    // Climb while the parent holds little more than the top candidate: its text is the same.
    while let Some(parent) = arena.nodes[top].parent {
        if parent == arena.body || arena.nodes[parent].tag == "html" {
            break;
        }
        let own = arena.nodes[top].text_len as f64;
        let parents = arena.nodes[parent].text_len as f64;
        if parents > 0.0 && own / parents >= 0.9 && !chrome[parent] {
            top = parent;
        } else {
            break;
        }
    }
    top
}

/// The primary and those of its siblings that belong to the content: scored near it (with a
/// bonus for sharing its class), or paragraphs of prose; never chrome, and never a block made
/// mostly of excerpts of other pages (a "Breaking news" ticker beside the story).
fn related_siblings<N>(
    arena: &Arena<N>,
    scores: &HashMap<usize, f64>,
    chrome: &[bool],
    excerpts: &[bool],
    primary: usize,
) -> Vec<usize> {
    let Some(parent) = arena.nodes[primary].parent else { return vec![primary] };
    let top_score = scores.get(&primary).copied().unwrap_or(0.0);
    let threshold = (top_score * 0.2).max(10.0);
    let primary_class = &arena.nodes[primary].class;
    arena.nodes[parent]
        .children
        .iter()
        .copied()
        .filter(|&sibling| {
            if sibling == primary {
                return true;
            }
            let node = &arena.nodes[sibling];
            if node.skip || node.tag.is_empty() || chrome[sibling] {
                return false;
            }
            if !excerpts[primary] {
                let excerpt_text: usize = arena
                    .subtree(sibling)
                    .into_iter()
                    .filter(|&i| excerpts[i] && arena.nodes[i].tag.is_empty() && !arena.nodes[i].skip)
                    .map(|i| collapsed_len(&arena.nodes[i].text))
                    .sum();
                if excerpt_text * 2 >= node.text_len {
                    return false;
                }
            }
            let mut bonus = 0.0;
            if !primary_class.is_empty() && node.class == *primary_class {
                bonus += top_score * 0.2;
            }
            if scores.get(&sibling).is_some_and(|s| s + bonus >= threshold) {
                return true;
            }
            if node.tag == "p" {
                let density = arena.link_density(sibling);
                let plain = arena.plain_text(sibling);
                return (node.text_len > 80 && density < 0.25)
                    || (node.text_len > 0 && density == 0.0 && plain.ends_with(['.', '!', '?']));
            }
            false
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Text with structure prefixes.

struct TextWriter {
    out: String,
    line: String,
}

impl TextWriter {
    fn new() -> Self {
        TextWriter { out: String::new(), line: String::new() }
    }

    fn push_inline(&mut self, text: &str) {
        let starts_with_space = text.starts_with(char::is_whitespace);
        let ends_with_space = text.ends_with(char::is_whitespace);
        let collapsed = collapse_whitespace(text);
        if collapsed.is_empty() {
            if (starts_with_space || ends_with_space) && !self.line.is_empty() && !self.line.ends_with(' ') {
                self.line.push(' ');
            }
            return;
        }
        if starts_with_space && !self.line.is_empty() && !self.line.ends_with(' ') {
            self.line.push(' ');
        }
        self.line.push_str(&collapsed);
        if ends_with_space {
            self.line.push(' ');
        }
    }

    /// Ends the current line as a block with the given prefix.
    fn end_block(&mut self, prefix: &str) {
        let line = self.line.trim();
        if !line.is_empty() {
            if !self.out.is_empty() {
                self.out.push('\n');
            }
            self.out.push_str(prefix);
            self.out.push_str(line);
        }
        self.line.clear();
    }

    fn push_raw_block(&mut self, prefix: &str, text: &str) {
        self.end_block("");
        let text = text.trim_matches('\n');
        if text.trim().is_empty() {
            return;
        }
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        self.out.push_str(prefix);
        self.out.push_str(text);
    }
}

struct TextContext<'a> {
    /// Elements whose subtrees the text leaves out (chrome and clutter).
    left_out: &'a [bool],
    /// `- ` prefix indentation for nested lists.
    list_depth: usize,
    quote: bool,
}

fn write_text<N>(arena: &Arena<N>, index: usize, ctx: &mut TextContext<'_>, writer: &mut TextWriter) {
    // Recursion depth is bounded by the arena's MAX_DEPTH.
    let node = &arena.nodes[index];
    if node.skip {
        return;
    }
    if node.tag.is_empty() {
        writer.push_inline(&node.text);
        return;
    }
    if ctx.left_out[index] {
        return;
    }
    let prefix_for = |ctx: &TextContext<'_>| if ctx.quote { "> ".to_string() } else { String::new() };
    let tag = node.tag.as_str();
    match tag {
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
            writer.end_block(&prefix_for(ctx));
            children_text(arena, index, ctx, writer);
            writer.end_block(&format!("{}H{}: ", prefix_for(ctx), &tag[1..]));
        }
        "br" => writer.end_block(&prefix_for(ctx)),
        "hr" => writer.end_block(&prefix_for(ctx)),
        "pre" => {
            writer.end_block(&prefix_for(ctx));
            let code = raw_text(arena, index);
            writer.push_raw_block(&format!("{}Code: ", prefix_for(ctx)), &code);
        }
        "ul" | "ol" | "menu" => {
            writer.end_block(&prefix_for(ctx));
            ctx.list_depth += 1;
            children_text(arena, index, ctx, writer);
            ctx.list_depth -= 1;
        }
        "li" => {
            writer.end_block(&prefix_for(ctx));
            let indent = "  ".repeat(ctx.list_depth.saturating_sub(1));
            let prefix = format!("{}{indent}- ", prefix_for(ctx));
            for &child in &node.children {
                let child_tag = arena.nodes[child].tag.as_str();
                if matches!(child_tag, "ul" | "ol") {
                    writer.end_block(&prefix);
                }
                write_text(arena, child, ctx, writer);
            }
            writer.end_block(&prefix);
        }
        "blockquote" => {
            writer.end_block(&prefix_for(ctx));
            let was = std::mem::replace(&mut ctx.quote, true);
            children_text(arena, index, ctx, writer);
            writer.end_block("> ");
            ctx.quote = was;
        }
        "figcaption" | "caption" => prefixed_block(arena, index, ctx, writer, "Caption: "),
        "summary" => prefixed_block(arena, index, ctx, writer, "Summary: "),
        "dt" => prefixed_block(arena, index, ctx, writer, "Term: "),
        "dd" => prefixed_block(arena, index, ctx, writer, "Definition: "),
        "tr" => {
            writer.end_block(&prefix_for(ctx));
            let mut first = true;
            for &cell in &node.children {
                if !matches!(arena.nodes[cell].tag.as_str(), "td" | "th") || arena.nodes[cell].skip {
                    continue;
                }
                if !first {
                    writer.line.push_str(" | ");
                }
                first = false;
                children_text(arena, cell, ctx, writer);
            }
            writer.end_block(&prefix_for(ctx));
        }
        _ if BLOCK_TAGS.contains(&tag) => {
            writer.end_block(&prefix_for(ctx));
            children_text(arena, index, ctx, writer);
            writer.end_block(&prefix_for(ctx));
        }
        _ => children_text(arena, index, ctx, writer),
    }
}

fn prefixed_block<N>(arena: &Arena<N>, index: usize, ctx: &mut TextContext<'_>, writer: &mut TextWriter, label: &str) {
    let quote = if ctx.quote { "> " } else { "" };
    writer.end_block(quote);
    children_text(arena, index, ctx, writer);
    writer.end_block(&format!("{quote}{label}"));
}

fn children_text<N>(arena: &Arena<N>, index: usize, ctx: &mut TextContext<'_>, writer: &mut TextWriter) {
    for &child in &arena.nodes[index].children {
        write_text(arena, child, ctx, writer);
    }
}

/// Text of a `pre` as written (newlines kept).
fn raw_text<N>(arena: &Arena<N>, index: usize) -> String {
    let mut out = String::new();
    for i in arena.subtree(index) {
        let node = &arena.nodes[i];
        if node.skip {
            continue;
        }
        if node.tag.is_empty() {
            out.push_str(&node.text);
        } else if node.tag == "br" {
            out.push('\n');
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Assembling the observation.

impl Page {
    fn observation<D: Dom>(
        &self,
        dom: &D,
        arena: &Arena<D::Node>,
        url: &str,
        options: &ObserveOptions,
    ) -> ChunkedObservation {
        let title = document_title(dom, arena);
        // The heading that repeats one of the page's titles is the title, which the observation
        // carries already; leaving it out of the text keeps it from being read (and counted)
        // twice. With no such <h1>, the content's first line is the title when it repeats one
        // (a headline styled as `p.titulo` or `div.headline`).
        let mut dropped = self.dropped.clone();
        let first_heading = self
            .content_roots
            .iter()
            .flat_map(|&root| arena.subtree(root))
            .find(|&i| arena.nodes[i].tag == "h1" && !dropped[i] && !arena.nodes[i].skip);
        let titles = page_titles(dom, arena, &title);
        if let Some(heading) = first_heading
            && titles.iter().any(|t| same_title(&arena.plain_text(heading), t))
        {
            dropped[heading] = true;
        } else if let Some(first) = first_block(arena, &self.content_roots, &dropped)
            && !self.content_roots.contains(&first)
        {
            // A short line, and not a mere part of the title (a kicker, the author's name).
            let text = collapse_whitespace(&arena.plain_text(first));
            let count = text.chars().count();
            if count <= 200 && titles.iter().any(|t| same_title(&text, t) && count * 2 >= t.chars().count()) {
                dropped[first] = true;
            }
        }
        for block in closing_pitches(arena, &self.content_roots, &dropped) {
            dropped[block] = true;
        }
        let full_text = self.write_leaving_out(arena, &dropped);
        let (text, cursor, done, total_chars) =
            cut_chunk(&full_text, options.cursor, options.max_chars, options.max_blocks);

        let primary_node = &arena.nodes[self.primary];
        let primary_text = arena.plain_text(self.primary);
        let primary = Primary {
            text: truncate_chars(&primary_text, options.max_primary_chars),
            tag: primary_node.tag.clone(),
            role: primary_node.role.clone(),
            handle_id: Some(dom.handle(&primary_node.dom)),
        };

        let mut observation = Observation {
            doc_type: Some("web.observation.summary.v1".into()),
            url: redact_url(url, url).unwrap_or_default(),
            title,
            text,
            primary: Some(primary),
            outline: outline(arena, options),
            elements: elements(dom, arena, &self.chrome, self.primary, url, options),
            signals: signals(arena, self.primary),
            ..Default::default()
        };
        observation.items = items(dom, arena, url, options);
        observation.comments = comments(dom, arena, options);
        observation.top_discussions = top_discussions(&observation.items);
        ChunkedObservation { observation, cursor, done, total_chars }
    }
}

/// The publisher's closing pitch: the run of short blocks (under 400 characters) among the
/// content's last three lines that ask the reader to sign up, subscribe or follow ("Get the
/// latest updates right in your inbox", "Join our Space Forums", "Follow us on Twitter"). It
/// is an advertisement for the site, not the page's text. Only at the end, and only in words
/// the rest of the content does not use: an article about newsletters says "subscribe"
/// throughout. Zyte +0.34 page points (13 pages up, none down), WCXB +0.11 (a service page's
/// own "sign up!" is the one real loss).
fn closing_pitches<N>(arena: &Arena<N>, roots: &[usize], dropped: &[bool]) -> Vec<usize> {
    const LINES: usize = 3;
    let left_out = inherited(arena, dropped);
    let texts: Vec<usize> = roots
        .iter()
        .flat_map(|&root| arena.subtree(root))
        .filter(|&i| !left_out[i] && arena.is_shown_text(i))
        .collect();
    let mut last_blocks: Vec<usize> = Vec::new();
    for &text in texts.iter().rev() {
        let Some(block) = arena.block_of(text) else {
            continue;
        };
        // A block around a later line (loose text in a div that also wraps the last <p>) is
        // more than one line: the walk stops there.
        if last_blocks.iter().any(|&later| later != block && arena.contains(block, later)) {
            break;
        }
        if !last_blocks.contains(&block) {
            last_blocks.push(block);
            if last_blocks.len() == LINES {
                break;
            }
        }
    }
    // The words of the content outside those lines.
    let rest: String = texts
        .iter()
        .filter(|&&t| !last_blocks.iter().any(|&b| arena.contains(b, t)))
        .map(|&t| arena.nodes[t].text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let rest = words_of(&rest);
    // Too little else to tell the publisher's words from the page's (a contact page, a short
    // notice): nothing is a pitch.
    if rest.len() < 50 {
        return Vec::new();
    }
    let rest = format!(" {} ", rest.join(" "));
    let mut pitches = Vec::new();
    for block in last_blocks {
        let is_pitch = arena.nodes[block].text_len < 400
            && !roots.contains(&block)
            && roots.iter().any(|&root| arena.contains(root, block))
            && sign_up_phrases(&arena.plain_text(block)).iter().any(|p| !rest.contains(&format!(" {p} ")));
        if !is_pitch {
            break;
        }
        pitches.push(block);
    }
    pitches
}

/// Lower-case words of a text (a leading `@` kept: a handle).
fn words_of(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '@' && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The phrases in a line that ask the reader to sign up, subscribe or follow the site.
fn sign_up_phrases(text: &str) -> Vec<String> {
    let words = words_of(text);
    let at = |i: usize| words.get(i).map_or("", String::as_str);
    let mut found = Vec::new();
    for i in 0..words.len() {
        let length = match at(i) {
            "subscribe" | "newsletter" | "newsletters" | "inbox" => 1,
            "sign" if at(i + 1) == "up" => 2,
            "follow" if at(i + 1) == "us" || at(i + 1).starts_with('@') => 2,
            "follow" if matches!(at(i + 1), "him" | "her") && (at(i + 2) == "on" || at(i + 2).starts_with('@')) => 3,
            "join" if at(i + 1) == "our" => 2,
            "delivered" if matches!(at(i + 1), "to" | "through") && at(i + 2) == "your" => 3,
            "delivered" if at(i + 1) == "straight" && at(i + 2) == "to" && at(i + 3) == "your" => 4,
            "get" if matches!(at(i + 1), "latest" | "breaking") => 2,
            "get" if at(i + 1) == "the" && matches!(at(i + 2), "latest" | "breaking") => 3,
            "share" if at(i + 1) == "this" && matches!(at(i + 2), "post" | "article" | "story") => 3,
            "like" if at(i + 1) == "this" && at(i + 2) == "story" => 3,
            "have" if at(i + 1) == "your" && at(i + 2) == "say" => 3,
            "give" if at(i + 1) == "us" && at(i + 2) == "feedback" => 3,
            "email" if at(i + 1) == "alerts" => 2,
            _ => 0,
        };
        if length > 0 {
            found.push(words[i..i + length].join(" "));
        }
    }
    found
}

/// The block holding the content's first line: the nearest block-level ancestor of its first
/// visible text, when that lies inside the content.
fn first_block<N>(arena: &Arena<N>, roots: &[usize], dropped: &[bool]) -> Option<usize> {
    let left_out = inherited(arena, dropped);
    let first_text =
        roots.iter().flat_map(|&root| arena.subtree(root)).find(|&i| !left_out[i] && arena.is_shown_text(i))?;
    arena.block_of(first_text).filter(|&block| roots.iter().any(|&root| arena.contains(root, block)))
}

/// Cuts at most `max_chars` characters and `max_blocks` lines of `text` from `cursor`, ending at
/// a line break when one falls in the last fifth of the window, so chunks split between blocks
/// rather than inside them. Returns the chunk, the next cursor, whether the text is done, and
/// the text's length: reading from each returned cursor in turn yields the text exactly once.
fn cut_chunk(text: &str, cursor: usize, max_chars: usize, max_blocks: usize) -> (String, usize, bool, usize) {
    let total = text.chars().count();
    let start = cursor.min(total);
    let rest: Vec<char> = text.chars().skip(start).collect();
    let max_chars = max_chars.max(1);
    let mut end = if rest.len() <= max_chars {
        rest.len()
    } else {
        let floor = max_chars - max_chars / 5;
        rest[..max_chars].iter().rposition(|&c| c == '\n').filter(|&p| p + 1 >= floor).map_or(max_chars, |p| p + 1)
    };
    // The block budget: stop after the newline that ends the last allowed line.
    if let Some(newline) = rest[..end].iter().enumerate().filter(|(_, c)| **c == '\n').nth(max_blocks.max(1) - 1) {
        end = newline.0 + 1;
    }
    let next = start + end;
    (rest[..end].iter().collect(), next, next >= total, total)
}

fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn first_tag<N>(arena: &Arena<N>, tag: &str) -> Option<usize> {
    arena.nodes.iter().position(|n| n.tag == tag)
}

/// The page title, as Readability finds it: the article's own metadata first (JSON-LD
/// `headline`, Dublin Core, Open Graph, Weibo), then `<title>` cleaned of its site name, then
/// Twitter and Parse.ly titles.
fn document_title<D: Dom>(dom: &D, arena: &Arena<D::Node>) -> String {
    let document = cleaned_document_title(arena);
    json_ld_headline(arena, &document)
        .or_else(|| {
            meta_content(
                dom,
                arena,
                &["dc:title", "dcterm:title", "og:title", "weibo:article:title", "weibo:webpage:title"],
            )
        })
        .or_else(|| Some(document).filter(|t| !t.is_empty()))
        .or_else(|| meta_content(dom, arena, &["twitter:title", "parsely-title"]))
        .unwrap_or_default()
}

/// Every title the page gives itself: the one the observation reports ([`document_title`]),
/// and beside it its headline in JSON-LD, its social-card and Dublin Core titles and its
/// `<title>` (cleaned of the site's name). Sites word them differently ("Sweden drops Assange
/// rape investigation" for the card, "Julian Assange: Sweden drops rape investigation" for the
/// page).
fn page_titles<D: Dom>(dom: &D, arena: &Arena<D::Node>, reported: &str) -> Vec<String> {
    let document = cleaned_document_title(arena);
    let mut titles: Vec<String> = [
        Some(reported.to_string()),
        json_ld_headline(arena, &document),
        meta_content(dom, arena, &["og:title"]),
        meta_content(dom, arena, &["twitter:title"]),
        meta_content(dom, arena, &["dc:title", "dcterm:title", "weibo:article:title", "parsely-title"]),
    ]
    .into_iter()
    .flatten()
    .collect();
    titles.push(document);
    titles.retain(|t| !t.is_empty());
    titles
}

/// The `content` of the first `<meta>` whose `property` or `name` is one of `keys`.
fn meta_content<D: Dom>(dom: &D, arena: &Arena<D::Node>, keys: &[&str]) -> Option<String> {
    arena.nodes.iter().filter(|n| n.tag == "meta").find_map(|n| {
        let names = [dom.attribute(&n.dom, "property"), dom.attribute(&n.dom, "name")];
        let names: Vec<String> = names
            .into_iter()
            .flatten()
            .flat_map(|v| v.split_whitespace().map(str::to_ascii_lowercase).collect::<Vec<_>>())
            .collect();
        keys.iter()
            .any(|k| names.iter().any(|n| n == k))
            .then(|| dom.attribute(&n.dom, "content").map(|c| collapse_whitespace(&c)))
            .flatten()
            .filter(|c| !c.is_empty())
    })
}

/// `headline` (or `name`) of a schema.org article in a JSON-LD script.
fn json_ld_headline<N>(arena: &Arena<N>, document_title: &str) -> Option<String> {
    const ARTICLES: &[&str] = &[
        "Article",
        "NewsArticle",
        "BlogPosting",
        "Report",
        "ScholarlyArticle",
        "TechArticle",
        "AdvertiserContentArticle",
        "AnalysisNewsArticle",
        "BackgroundNewsArticle",
        "OpinionNewsArticle",
        "ReportageNewsArticle",
        "ReviewNewsArticle",
        "SatiricalArticle",
        "SocialMediaPosting",
        "LiveBlogPosting",
        "DiscussionForumPosting",
        "MedicalScholarlyArticle",
    ];
    let find_in = |value: &serde_json::Value| find(value, document_title);
    fn find(value: &serde_json::Value, document_title: &str) -> Option<String> {
        match value {
            serde_json::Value::Array(items) => items.iter().find_map(|v| find(v, document_title)),
            serde_json::Value::Object(map) => {
                if let Some(graph) = map.get("@graph").and_then(|g| find(g, document_title)) {
                    return Some(graph);
                }
                let is_article = match map.get("@type") {
                    Some(serde_json::Value::String(t)) => ARTICLES.contains(&t.as_str()),
                    Some(serde_json::Value::Array(ts)) => {
                        ts.iter().any(|t| t.as_str().is_some_and(|t| ARTICLES.contains(&t)))
                    }
                    _ => false,
                };
                if !is_article {
                    return None;
                }
                let field =
                    |k: &str| map.get(k).and_then(|v| v.as_str()).map(collapse_whitespace).filter(|t| !t.is_empty());
                match (field("headline"), field("name")) {
                    // Both: the one the document's own title agrees with.
                    (Some(headline), Some(name)) if name != headline => {
                        Some(if document_title.contains(&name) && !document_title.contains(&headline) {
                            name
                        } else {
                            headline
                        })
                    }
                    (headline, name) => headline.or(name),
                }
            }
            _ => None,
        }
    }
    arena.nodes.iter().enumerate().filter(|(_, n)| n.tag == "script").find_map(|(i, _)| {
        let text: String = arena.nodes[i].children.iter().map(|&c| arena.nodes[c].text.as_str()).collect();
        if !text.contains("schema.org") {
            return None;
        }
        serde_json::from_str::<serde_json::Value>(text.trim()).ok().as_ref().and_then(find_in)
    })
}

/// `<title>` with the site name cut off the way Readability does it.
fn cleaned_document_title<N>(arena: &Arena<N>) -> String {
    let original = first_tag(arena, "title").map(|i| collapse_whitespace(&arena.source_text(i))).unwrap_or_default();
    let words = |s: &str| s.split_whitespace().count();
    let is_separator = |c: char| matches!(c, '|' | '-' | '–' | '—' | '\\' | '/' | '>' | '»');
    // " X " with X a separator, as (start, separator) pairs.
    let chars: Vec<(usize, char)> = original.char_indices().collect();
    let separators: Vec<(usize, char)> = chars
        .windows(3)
        .filter(|w| w[0].1 == ' ' && is_separator(w[1].1) && w[2].1 == ' ')
        .map(|w| (w[0].0, w[1].1))
        .collect();
    let mut hierarchical = false;
    let mut title = original.clone();
    if let Some(&(last, _)) = separators.last() {
        hierarchical = separators.iter().any(|(_, c)| matches!(c, '\\' | '/' | '>' | '»'));
        title = original[..last].to_string();
        if words(&title) < 3 {
            // Everything after the first separator.
            title = original
                .char_indices()
                .find(|&(_, c)| is_separator(c))
                .map_or(original.clone(), |(p, c)| original[p + c.len_utf8()..].to_string());
        }
    } else if original.contains(": ") {
        let heading_matches = arena
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.tag == "h1" || n.tag == "h2")
            .any(|(i, _)| arena.plain_text(i) == original.trim());
        if !heading_matches {
            let colon = original.rfind(':').unwrap_or(0);
            title = original[colon + 1..].to_string();
            let first_colon = original.find(':').unwrap_or(0);
            if words(&title) < 3 {
                title = original[first_colon + 1..].to_string();
            } else if words(&original[..first_colon]) > 5 {
                title = original.clone();
            }
        }
    } else if original.chars().count() > 150 || original.chars().count() < 15 {
        let h1s: Vec<usize> = arena.nodes.iter().enumerate().filter(|(_, n)| n.tag == "h1").map(|(i, _)| i).collect();
        if h1s.len() == 1 {
            title = arena.plain_text(h1s[0]);
        }
    }
    let title = collapse_whitespace(&title);
    let without_separators: String = original.chars().filter(|&c| !is_separator(c)).collect();
    let count = words(&title);
    if count <= 4 && (!hierarchical || count + 1 != words(&without_separators)) {
        return original;
    }
    title
}

fn outline<N>(arena: &Arena<N>, options: &ObserveOptions) -> Vec<OutlineEntry> {
    let mut out = Vec::new();
    for (i, node) in arena.nodes.iter().enumerate() {
        if out.len() >= options.max_outline {
            break;
        }
        if node.skip {
            continue;
        }
        let level = match node.tag.as_str() {
            "h1" => 1,
            "h2" => 2,
            "h3" => 3,
            "h4" => 4,
            "h5" => 5,
            "h6" => 6,
            _ if node.role == "heading" => 2,
            _ => continue,
        };
        let text = arena.plain_text(i);
        if text.is_empty() {
            continue;
        }
        out.push(OutlineEntry {
            level,
            tag: node.tag.clone(),
            role: node.role.clone(),
            text: truncate_chars(&text, options.max_outline_chars),
        });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Interactive elements and their field kinds.

fn interactive_role<D: Dom>(dom: &D, node: &ArenaNode<D::Node>) -> Option<String> {
    if !node.role.is_empty()
        && matches!(
            node.role.as_str(),
            "button"
                | "link"
                | "checkbox"
                | "radio"
                | "tab"
                | "menuitem"
                | "switch"
                | "textbox"
                | "combobox"
                | "option"
                | "searchbox"
        )
    {
        return Some(node.role.clone());
    }
    let input_type = || dom.attribute(&node.dom, "type").unwrap_or_default().to_lowercase();
    Some(
        match node.tag.as_str() {
            "a" if dom.attribute(&node.dom, "href").is_some() => "link",
            "button" => "button",
            "select" => "combobox",
            "textarea" => "textbox",
            "summary" => "button",
            "input" => match input_type().as_str() {
                "hidden" => return None,
                "submit" | "button" | "reset" | "image" => "button",
                "checkbox" => "checkbox",
                "radio" => "radio",
                "search" => "searchbox",
                _ => "textbox",
            },
            _ if dom.attribute(&node.dom, "contenteditable").is_some_and(|v| v != "false") => "textbox",
            _ => return None,
        }
        .to_string(),
    )
}

/// What kind of value a field takes, from its type, autocomplete token, name, id and label.
pub fn field_kind(tag: &str, input_type: &str, autocomplete: &str, name_and_label: &str) -> Option<FieldKind> {
    let ty = input_type.to_ascii_lowercase();
    let auto = autocomplete.to_ascii_lowercase();
    let hint = name_and_label.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| hint.contains(w));
    if tag == "input" && matches!(ty.as_str(), "hidden" | "submit" | "button" | "reset" | "image") {
        return None;
    }
    if !matches!(tag, "input" | "textarea" | "select") && tag != "contenteditable" {
        return None;
    }
    if ty == "password" || auto.contains("current-password") || auto.contains("new-password") {
        return Some(FieldKind::Password);
    }
    if auto.contains("one-time-code")
        || has(&[
            "one-time",
            "otp",
            "2fa",
            "two-factor",
            "totp",
            "verification code",
            "security code sent",
            "authenticator",
        ])
    {
        return Some(FieldKind::OneTimeCode);
    }
    if auto.split_whitespace().any(|t| t.starts_with("cc-"))
        || has(&[
            "card number",
            "cardnumber",
            "card-number",
            "card_number",
            "ccnum",
            "cc-num",
            "cvc",
            "cvv",
            "csc",
            "security code",
            "expiry",
            "expiration",
            "exp-date",
            "iban",
            "routing number",
            "account number",
        ])
    {
        return Some(FieldKind::Payment);
    }
    Some(match (tag, ty.as_str()) {
        ("textarea", _) | ("contenteditable", _) => FieldKind::Textarea,
        ("select", _) => FieldKind::Select,
        (_, "email") => FieldKind::Email,
        (_, "search") => FieldKind::Search,
        (_, "tel") => FieldKind::Tel,
        (_, "url") => FieldKind::Url,
        (_, "number" | "range") => FieldKind::Number,
        (_, "date" | "datetime-local" | "month" | "week" | "time") => FieldKind::Date,
        (_, "checkbox") => FieldKind::Checkbox,
        (_, "radio") => FieldKind::Radio,
        (_, "file") => FieldKind::File,
        (_, "color") => FieldKind::Other,
        _ if auto.contains("email") || has(&["email", "e-mail"]) => FieldKind::Email,
        _ if has(&["search"]) => FieldKind::Search,
        _ => FieldKind::Text,
    })
}

fn element_label<D: Dom>(dom: &D, arena: &Arena<D::Node>, index: usize, labels: &HashMap<String, String>) -> String {
    let node = &arena.nodes[index];
    let attr = |name: &str| dom.attribute(&node.dom, name).map(|v| collapse_whitespace(&v)).filter(|v| !v.is_empty());
    if let Some(label) = attr("aria-label") {
        return label;
    }
    let text = arena.plain_text(index);
    if !text.is_empty() && !matches!(node.tag.as_str(), "select" | "textarea") {
        return text;
    }
    if let Some(id) = attr("id")
        && let Some(label) = labels.get(&id)
    {
        return label.clone();
    }
    // A wrapping <label>.
    if let Some(label) = arena.ancestors(index).find(|&a| arena.nodes[a].tag == "label") {
        let text = arena.plain_text(label);
        if !text.is_empty() {
            return text;
        }
    }
    let is_button_input = node.tag == "input"
        && attr("type").is_some_and(|t| matches!(t.to_lowercase().as_str(), "submit" | "button" | "reset"));
    if is_button_input && let Some(value) = attr("value") {
        // The visible caption of a button input is markup, not user data.
        return value;
    }
    attr("placeholder").or_else(|| attr("title")).or_else(|| attr("alt")).or_else(|| attr("name")).unwrap_or_default()
}

fn elements<D: Dom>(
    dom: &D,
    arena: &Arena<D::Node>,
    chrome: &[bool],
    primary: usize,
    url: &str,
    options: &ObserveOptions,
) -> Vec<Element> {
    let chrome_below = inherited(arena, chrome);
    let mut labels = HashMap::new();
    for (i, node) in arena.nodes.iter().enumerate() {
        if node.tag == "label"
            && let Some(target) = dom.attribute(&node.dom, "for")
        {
            labels.insert(target, arena.plain_text(i));
        }
    }
    let primary_range: Vec<usize> = arena.subtree(primary);
    let in_primary: std::collections::HashSet<usize> = primary_range.into_iter().collect();
    let mut found: Vec<(bool, usize, Element)> = Vec::new();
    for (i, node) in arena.nodes.iter().enumerate() {
        // Form controls are never text (NEVER_TEXT), but they are elements unless hidden.
        if node.tag.is_empty() || node.hidden {
            continue;
        }
        let Some(role) = interactive_role(dom, node) else { continue };
        let text = element_label(dom, arena, i, &labels);
        let tag_for_kind = if node.tag != "input" && node.tag != "select" && node.tag != "textarea" && role == "textbox"
        {
            "contenteditable"
        } else {
            node.tag.as_str()
        };
        let input_type = dom.attribute(&node.dom, "type").unwrap_or_default();
        let autocomplete = dom.attribute(&node.dom, "autocomplete").unwrap_or_default();
        let hints = format!(
            "{} {} {} {}",
            dom.attribute(&node.dom, "name").unwrap_or_default(),
            dom.attribute(&node.dom, "id").unwrap_or_default(),
            dom.attribute(&node.dom, "placeholder").unwrap_or_default(),
            text
        );
        let kind = field_kind(tag_for_kind, &input_type, &autocomplete, &hints);
        let href = dom.attribute(&node.dom, "href").and_then(|h| redact_url(&h, url));
        let element = Element {
            handle_id: dom.handle(&node.dom),
            role,
            text: truncate_chars(&text, 200),
            href,
            tag: Some(node.tag.clone()),
            field_kind: kind,
            download: node.tag == "a" && dom.attribute(&node.dom, "download").is_some(),
            disabled: dom.attribute(&node.dom, "disabled").is_some()
                || dom.attribute(&node.dom, "aria-disabled").is_some_and(|v| v == "true"),
        };
        found.push((in_primary.contains(&i) && !chrome_below[i], i, element));
    }
    // The content's own elements first, then the rest, each in document order.
    found.sort_by_key(|(primary, index, _)| (!primary, *index));
    found.into_iter().take(options.max_elements).map(|(_, _, e)| e).collect()
}

// ---------------------------------------------------------------------------------------------
// Lists and discussions.

/// A shape key for repeated siblings: tag plus class.
fn shape<N>(node: &ArenaNode<N>) -> String {
    format!("{}.{}", node.tag, node.class_id.split_whitespace().next().unwrap_or(""))
}

fn comment_count(text: &str) -> Option<u64> {
    let lower = text.to_lowercase();
    for word in ["comments", "comment", "replies", "reply", "answers", "responses"] {
        let mut search = 0;
        while let Some(pos) = lower[search..].find(word) {
            let at = search + pos;
            let before = lower[..at].trim_end();
            let digits: String =
                before.chars().rev().take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.').collect();
            let digits: String = digits.chars().rev().filter(char::is_ascii_digit).collect();
            if !digits.is_empty()
                && let Ok(n) = digits.parse()
            {
                return Some(n);
            }
            search = at + word.len();
        }
    }
    None
}

fn items<D: Dom>(dom: &D, arena: &Arena<D::Node>, url: &str, options: &ObserveOptions) -> Vec<Item> {
    // The parent with the most repeated children that each carry a substantial link is the list.
    let mut best: Option<(usize, Vec<usize>)> = None;
    for (index, node) in arena.nodes.iter().enumerate() {
        if node.skip || node.children.len() < 3 {
            continue;
        }
        let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
        for &child in &node.children {
            let c = &arena.nodes[child];
            if c.tag.is_empty() || c.skip {
                continue;
            }
            if primary_link(arena, child).is_some_and(|(_, len)| len >= 12) {
                groups.entry(shape(c)).or_default().push(child);
            }
        }
        if let Some((_, members)) = groups.into_iter().max_by_key(|(_, m)| m.len())
            && members.len() >= 3
            && best.as_ref().is_none_or(|(_, b)| members.len() > b.len())
        {
            best = Some((index, members));
        }
    }
    let Some((_, members)) = best else { return Vec::new() };
    members
        .into_iter()
        .take(options.max_items)
        .filter_map(|member| {
            let (link, _) = primary_link(arena, member)?;
            let title = arena.plain_text(link);
            let href =
                dom.attribute(&arena.nodes[link].dom, "href").and_then(|h| redact_url(&h, url)).unwrap_or_default();
            let text = arena.plain_text(member);
            // A table row's details often sit in the next row (e.g. "136 comments").
            let next_row = next_element_sibling(arena, member).filter(|&n| arena.nodes[n].tag == "tr");
            let detail = next_row.map(|n| arena.plain_text(n)).unwrap_or_default();
            let snippet = text.replacen(&title, "", 1);
            let snippet = collapse_whitespace(&format!("{snippet} {detail}"));
            Some(Item {
                title: truncate_chars(&title, options.max_item_chars),
                url: href,
                snippet: truncate_chars(&snippet, options.max_item_chars),
                handle_id: Some(dom.handle(&arena.nodes[member].dom)),
                comment_count: comment_count(&text).or_else(|| comment_count(&detail)),
            })
        })
        .collect()
}

fn next_element_sibling<N>(arena: &Arena<N>, index: usize) -> Option<usize> {
    let parent = arena.nodes[index].parent?;
    let siblings = &arena.nodes[parent].children;
    let pos = siblings.iter().position(|&s| s == index)?;
    siblings[pos + 1..].iter().copied().find(|&s| !arena.nodes[s].tag.is_empty())
}

/// The longest link (by text) inside an element: an item's title link.
fn primary_link<N>(arena: &Arena<N>, index: usize) -> Option<(usize, usize)> {
    arena
        .subtree(index)
        .into_iter()
        .filter(|&i| arena.nodes[i].tag == "a" && !arena.nodes[i].skip)
        .map(|i| (i, arena.nodes[i].text_len))
        .max_by_key(|(i, len)| (*len, std::cmp::Reverse(*i)))
}

/// Whether a class or id token names one comment (not a list of them, nor a part of one).
fn is_comment_token(token: &str) -> bool {
    const WHOLE: &[&str] = &["comment", "reply", "answer", "comtr", "athing comtr", "review", "message", "post-reply"];
    const PARTS: &[&str] = &[
        "body",
        "content",
        "text",
        "meta",
        "header",
        "footer",
        "author",
        "actions",
        "form",
        "count",
        "list",
        "link",
        "date",
        "time",
        "vote",
        "avatar",
        "reply-link",
        "toggle",
        "score",
        "children",
        "replies",
        "tree",
        "section",
        "area",
        "widget",
        "respond",
        "policy",
        "rules",
        "sort",
        "nav",
        "pagination",
        "field",
        "input",
        "button",
        "icon",
        "permalink",
    ];
    let token = token.trim_matches(|c: char| c == '-' || c == '_');
    if WHOLE.contains(&token) {
        return true;
    }
    for stem in ["comment", "reply"] {
        if let Some(rest) = token.strip_prefix(stem).and_then(|r| r.strip_prefix(['-', '_'])) {
            // comment-123, comment-item, comment-thread: one comment; comment-body: a part.
            return !PARTS.iter().any(|p| rest.starts_with(p));
        }
        if token.ends_with(&format!("-{stem}")) || token.ends_with(&format!("_{stem}")) {
            return true;
        }
    }
    false
}

fn comments<D: Dom>(dom: &D, arena: &Arena<D::Node>, options: &ObserveOptions) -> Vec<Comment> {
    let is_comment = |i: usize| {
        let n = &arena.nodes[i];
        !n.skip
            && matches!(n.tag.as_str(), "div" | "li" | "article" | "section" | "tr")
            && (n.role == "comment" || n.class_id.split_whitespace().any(is_comment_token))
            && n.text_len >= 20
    };
    let mut out = Vec::new();
    for index in 0..arena.nodes.len() {
        if out.len() >= options.max_comments {
            break;
        }
        if !is_comment(index) {
            continue;
        }
        let nested_depth = arena.ancestors(index).filter(|&a| is_comment(a)).count() as u32;
        // Flat threads (one row per comment) say the depth in an indent attribute.
        let indent = arena
            .subtree(index)
            .into_iter()
            .find_map(|i| dom.attribute(&arena.nodes[i].dom, "indent").and_then(|v| v.trim().parse::<u32>().ok()));
        let field = |words: &[&str], tag: &str| {
            arena
                .subtree(index)
                .into_iter()
                .skip(1)
                .filter(|&i| !(is_comment(i)))
                .find(|&i| {
                    let n = &arena.nodes[i];
                    n.tag == tag || n.class_id.split_whitespace().any(|t| words.iter().any(|w| t.contains(w)))
                })
                .map(|i| arena.plain_text(i))
                .unwrap_or_default()
        };
        let author = field(&["author", "user", "hnuser", "commenter", "byline"], "address");
        let age = field(&["age", "time", "date", "timestamp"], "time");
        let score = field(&["score", "points", "votes", "karma"], "data");
        let body = field(&["body", "content", "commtext", "comment-text", "text", "message"], "blockquote");
        let text = if body.is_empty() { body_text_excluding_nested(arena, index, &is_comment) } else { body };
        if text.is_empty() {
            continue;
        }
        out.push(Comment {
            text: truncate_chars(&text, options.max_comment_chars),
            author: truncate_chars(&author, 100),
            age: truncate_chars(&age, 60),
            score: truncate_chars(&score, 40),
            depth: indent.unwrap_or(nested_depth),
            handle_id: Some(dom.handle(&arena.nodes[index].dom)),
        });
    }
    out
}

fn body_text_excluding_nested<N>(arena: &Arena<N>, index: usize, is_comment: &dyn Fn(usize) -> bool) -> String {
    let mut out = String::new();
    let mut stack = vec![index];
    while let Some(i) = stack.pop() {
        let node = &arena.nodes[i];
        if node.skip || (i != index && is_comment(i)) {
            continue;
        }
        if node.tag.is_empty() {
            out.push_str(&node.text);
        } else if BLOCK_TAGS.contains(&node.tag.as_str()) || node.tag == "br" {
            out.push(' ');
        }
        stack.extend(node.children.iter().rev());
    }
    collapse_whitespace(&out)
}

fn top_discussions(items: &[Item]) -> Vec<Discussion> {
    let mut ranked: Vec<&Item> = items.iter().filter(|i| i.comment_count.is_some()).collect();
    ranked.sort_by_key(|i| std::cmp::Reverse(i.comment_count));
    ranked
        .into_iter()
        .take(5)
        .map(|i| Discussion { title: i.title.clone(), url: i.url.clone(), comment_count: i.comment_count.unwrap_or(0) })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Access signals.

fn signals<N>(arena: &Arena<N>, primary: usize) -> Vec<Signal> {
    let mut found = Vec::new();
    let visible_text = arena.nodes.get(arena.body).map_or(0, |b| b.text_len);
    let primary_text = arena.nodes[primary].text_len;
    for (i, node) in arena.nodes.iter().enumerate() {
        if node.tag.is_empty() {
            continue;
        }
        let names = &node.class_id;
        // Overlays are often in the markup, hidden until a script shows them: only visible
        // ones count.
        if node.hidden {
            continue;
        }
        if node.tag == "input" && node.input_type == "password" {
            add(&mut found, Signal::AuthFields);
        }
        let text = || arena.plain_text(i).to_lowercase();
        let overlay = (node.tag == "dialog" && node.open)
            || matches!(node.role.as_str(), "dialog" | "alertdialog")
            || has_word(names, &["modal", "overlay", "lightbox"]);
        if overlay && node.text_len > 0 {
            add(&mut found, Signal::OverlayOrDialog);
        }
        if has_word(names, &["paywall", "piano-", "meter-", "subscriber-only", "premium-content", "regwall"]) {
            add(&mut found, Signal::Paywall);
        }
        if has_word(names, &["cookie", "consent", "gdpr", "cmp-", "onetrust", "didomi"]) && node.text_len > 20 {
            let t = text();
            if t.contains("cookie") || t.contains("consent") || t.contains("privacy") {
                add(&mut found, Signal::ConsentOverlay);
            }
        }
        if has_word(names, &["age-gate", "agegate", "age-verification", "ageverify"]) {
            add(&mut found, Signal::AgeGate);
        }
    }
    let body_text = arena.plain_text(arena.body).to_lowercase();
    let has_phrase = |phrases: &[&str]| phrases.iter().any(|p| body_text.contains(p));
    if has_phrase(&[
        "subscribe to continue reading",
        "subscribe to read",
        "to continue reading, subscribe",
        "this content is for subscribers",
        "become a subscriber to read",
        "subscribers only",
    ]) {
        add(&mut found, Signal::Paywall);
    }
    if has_phrase(&[
        "sign in to continue",
        "log in to continue",
        "please log in to",
        "please sign in to",
        "you must be logged in",
        "login required",
        "sign in to view",
    ]) {
        add(&mut found, Signal::AuthGate);
    }
    if has_phrase(&[
        "are you 18",
        "are you over 18",
        "you must be 18",
        "you must be 21",
        "verify your age",
        "confirm your age",
        "enter your date of birth",
    ]) {
        add(&mut found, Signal::AgeGate);
    }
    if has_phrase(&[
        "not available in your country",
        "not available in your region",
        "not available in your location",
        "unavailable in your region",
        "blocked in your country",
    ]) {
        add(&mut found, Signal::GeoBlock);
    }
    let noscript_warning = arena.nodes.iter().enumerate().any(|(i, n)| {
        n.tag == "noscript" && {
            let t = arena.source_text(i).to_lowercase();
            t.contains("javascript") || t.contains("enable js")
        }
    });
    if (noscript_warning && visible_text < 400)
        || has_phrase(&[
            "you need to enable javascript",
            "please enable javascript",
            "javascript is required",
            "requires javascript",
        ])
    {
        add(&mut found, Signal::ScriptRequired);
    }
    let asks_to_sign_in = has_phrase(&["sign in", "log in", "login", "sign-in", "log-in"]);
    if found.contains(&Signal::AuthFields) && asks_to_sign_in && primary_text < 200 {
        add(&mut found, Signal::AuthGate);
    }
    found
}

fn add(found: &mut Vec<Signal>, signal: Signal) {
    if !found.contains(&signal) {
        found.push(signal);
    }
}

// ---------------------------------------------------------------------------------------------
// URL redaction.

/// Query parameters that carry credentials; their values never leave the page.
const CREDENTIAL_PARAMS: &[&str] = &[
    "token",
    "access_token",
    "id_token",
    "refresh_token",
    "auth",
    "authorization",
    "auth_token",
    "sig",
    "signature",
    "password",
    "passwd",
    "pwd",
    "pass",
    "session",
    "sessionid",
    "session_id",
    "sid",
    "jsessionid",
    "phpsessid",
    "api_key",
    "apikey",
    "key",
    "secret",
    "client_secret",
    "code",
    "otp",
    "x-amz-signature",
    "x-amz-credential",
    "x-amz-security-token",
    "credential",
    "credentials",
    "csrf",
    "csrftoken",
    "csrf_token",
    "_csrf",
    "csrfmiddlewaretoken",
    "xsrf",
    "_xsrf",
    "xsrf_token",
    "xsrf-token",
    "authenticity_token",
    "private_token",
    "access_key",
];

/// Resolves `href` against the page and strips credentials: user info, credential-like query
/// parameters (by name, or by a value that carries one, such as an encoded redirect URL) and
/// fragments that carry credentials. `None` for hrefs that are not URLs at all.
pub fn redact_url(href: &str, base: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    let mut parsed = match WebUrl::parse(base) {
        Some(base) => base.join(href)?,
        None => WebUrl::parse(href)?,
    };
    let scheme = parsed.scheme();
    if matches!(scheme.as_str(), "javascript" | "data" | "vbscript" | "blob") {
        return Some(format!("{scheme}:"));
    }
    parsed.clear_credentials();
    if parsed.has_query() {
        // A parameter goes when its name marks a credential, or when its value carries one of
        // its own (an encoded redirect such as `next=%2Freset%3Ftoken%3D…`).
        let kept: Vec<(String, String)> = parsed
            .query_pairs()
            .into_iter()
            .filter(|(k, v)| !CREDENTIAL_PARAMS.contains(&k.to_ascii_lowercase().as_str()) && !carries_credentials(v))
            .collect();
        parsed.set_query_pairs(&kept);
    }
    let href = parsed.href();
    // Fragments carry credentials too (OAuth's `#access_token=…`, hash-routed `#/reset?token=…`);
    // such a fragment is dropped whole.
    match href.split_once('#') {
        Some((before, fragment)) if carries_credentials(fragment) => Some(before.to_string()),
        _ => Some(href),
    }
}

/// Whether `text` (a parameter value or a fragment) holds `name=value` for a credential name or
/// a URL with user info, percent-decoded up to three times (for values encoded more than once).
fn carries_credentials(text: &str) -> bool {
    let mut text = text.to_string();
    for _ in 0..4 {
        let mut names = text.split(['?', '&', '#', ';', '/']).filter_map(|part| part.split_once('=')).map(|p| p.0);
        if names.any(|name| CREDENTIAL_PARAMS.contains(&name.trim().to_ascii_lowercase().as_str()))
            || WebUrl::parse(text.trim()).is_some_and(|u| u.has_credentials())
        {
            return true;
        }
        let decoded = percent_decode(&text);
        if decoded == text {
            return false;
        }
        text = decoded;
    }
    false
}

/// `%XX` escapes (and `+` as a space) decoded; anything else kept as it is.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
