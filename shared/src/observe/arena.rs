//! Stage 1, the arena: the parts of the DOM the heuristics read, copied once into a flat, owned
//! list (iteratively: pages nest deeply), with each element's tag, class and id words, own text
//! length, link text length and visibility; and what is known of it as a whole (page builders'
//! classes, embedded posts, the declared article body), class hints, and a flag carried down
//! subtrees ([`inherited`]). Every later stage reads only this.

use super::words::*;
use crate::dom::{Dom, NodeType};
use std::collections::{HashMap, HashSet};

pub(super) struct ArenaNode<N> {
    pub(super) dom: N,
    pub(super) parent: Option<usize>,
    pub(super) children: Vec<usize>,
    /// Lower-case tag; empty for text nodes.
    pub(super) tag: String,
    /// Text of a text node, whitespace as in the source.
    pub(super) text: String,
    /// class and id, lower-cased, for pattern tests.
    pub(super) class_id: String,
    /// class alone, lower-cased and whitespace-collapsed: alike siblings share it (ids differ).
    pub(super) class: String,
    pub(super) role: String,
    /// `type` of an input, lower-cased; empty otherwise.
    pub(super) input_type: String,
    /// Hidden by the page (attribute or style), itself or through an ancestor.
    pub(super) hidden: bool,
    /// Hidden, or inside something whose text is never shown (script, style, head …).
    pub(super) invisible: bool,
    /// An open `<dialog>`.
    pub(super) open: bool,
    /// Never text: scripts, styles, templates, hidden nodes and everything under them.
    pub(super) skip: bool,
    /// Visible text characters in the subtree (whitespace runs count as one).
    pub(super) text_len: usize,
    /// Of those, characters inside links.
    pub(super) link_len: usize,
    pub(super) commas: usize,
    /// Marked `itemprop="articleBody"` (schema.org microdata).
    pub(super) article_body: bool,
    /// A link marked `rel="tag"`: to a tag the author gave the page.
    pub(super) tag_link: bool,
    /// Such links in the subtree (a tag link counts as one, whatever it holds), and the
    /// characters of their text.
    pub(super) tag_links: usize,
    pub(super) tag_link_len: usize,
}

pub(super) struct Arena<N> {
    /// Each node boxed: a page's arena grows by pushing one node at a time, and a `Vec` of the
    /// nodes themselves doubles as it grows, holding the old and the new buffer at once (up to
    /// three times the nodes' size at its peak, 3.1 MB of heap for readability's nytimes-1 where
    /// 1.9 MB hold them boxed). In the content script that peak is the tab's WASM memory for as
    /// long as the tab lives: linear memory never shrinks (issue #25).
    pub(super) nodes: Vec<Box<ArenaNode<N>>>,
    pub(super) body: usize,
    /// Built with `<noscript>` content shown.
    pub(super) show_noscript: bool,
    /// Class names the page puts around half of its text or more ([`builder_classes`]).
    pub(super) builder_classes: HashSet<String>,
    /// The element the page declares as its article's body ([`declared_article`]).
    pub(super) declared_article: Option<usize>,
    /// Embedded social posts and their wrappers ([`embedded_posts`]).
    pub(super) embeds: Vec<bool>,
}

impl<N: Clone> Arena<N> {
    /// Copies the DOM. With `show_noscript`, `<noscript>` content counts as visible: for pages
    /// read without running scripts whose only content is their no-script version.
    pub(super) fn build<D: Dom<Node = N>>(dom: &D, root_handle: Option<&str>, show_noscript: bool) -> Arena<N> {
        Self::build_with(dom, root_handle, show_noscript, false)
    }

    /// As `build`; with `ignore_style`, elements hidden by their style count as shown.
    pub(super) fn build_with<D: Dom<Node = N>>(
        dom: &D,
        root_handle: Option<&str>,
        show_noscript: bool,
        ignore_style: bool,
    ) -> Arena<N> {
        let mut nodes: Vec<Box<ArenaNode<N>>> = Vec::new();
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
                        || names_part(&class_id, ANSWER_WORDS);
                    // Under a hidden parent the node is hidden whatever its style says, and the
                    // browser would compute a style for every element of a `display: none`
                    // subtree only to be asked (cached on each, in the tab's memory): not asked.
                    let collapsed = (dom.attribute(&node, "hidden").is_some() && !streamed && !panel)
                        || (!ignore_style && !panel && !parent_hidden && dom.is_hidden_by_style(&node));
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
            nodes.push(Box::new(ArenaNode {
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
            }));
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
    pub(super) fn needs_noscript_fallback(&self) -> bool {
        let visible = self.nodes.get(self.body).map_or(0, |b| b.text_len);
        if visible >= NOSCRIPT_VISIBLE_ENOUGH {
            return false;
        }
        let in_noscript: usize = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.tag == "noscript")
            .map(|(i, _)| self.subtree(i).iter().map(|&j| collapsed_len(&self.nodes[j].text)).sum::<usize>())
            .sum();
        in_noscript > visible.max(NOSCRIPT_MIN_VISIBLE) * 2
    }

    pub(super) fn link_density(&self, index: usize) -> f64 {
        let node = &self.nodes[index];
        if node.text_len == 0 { 0.0 } else { node.link_len as f64 / node.text_len as f64 }
    }

    pub(super) fn ancestors(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
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
    pub(super) fn is_builder_class(&self, token: &str) -> bool {
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
    pub(super) fn contains(&self, index: usize, other: usize) -> bool {
        index == other || self.ancestors(other).any(|a| a == index)
    }

    pub(super) fn has_ancestor_tag(&self, index: usize, tags: &[&str]) -> bool {
        self.ancestors(index).any(|a| tags.contains(&self.nodes[a].tag.as_str()))
    }

    /// Whether a node is a text node a reader sees words in.
    pub(super) fn is_shown_text(&self, index: usize) -> bool {
        let node = &self.nodes[index];
        node.tag.is_empty() && !node.skip && !node.text.trim().is_empty()
    }

    /// The nearest block-level ancestor: the element whose line a text or inline element is on.
    pub(super) fn block_of(&self, index: usize) -> Option<usize> {
        self.ancestors(index).find(|&a| BLOCK_TAGS.contains(&self.nodes[a].tag.as_str()))
    }

    /// Descendants in document order (pre-order), including `index` itself.
    pub(super) fn subtree(&self, index: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![index];
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.nodes[i].children.iter().rev());
        }
        out
    }

    /// Every text node of a subtree as written, shown or not (a `<title>`, a `<noscript>`).
    pub(super) fn source_text(&self, index: usize) -> String {
        self.subtree(index).iter().map(|&j| self.nodes[j].text.as_str()).collect()
    }

    /// Visible text of a subtree (button captions included), whitespace collapsed, chrome
    /// included.
    pub(super) fn plain_text(&self, index: usize) -> String {
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
pub(super) fn element_before<N>(nodes: &[Box<ArenaNode<N>>], parent: Option<usize>) -> Option<usize> {
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
pub(super) fn is_disclosure_toggle<D: Dom>(dom: &D, node: &D::Node, depth: usize) -> bool {
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
    depth < BUTTON_SEARCH_DEPTH && dom.children(node).iter().any(|c| is_disclosure_toggle(dom, c, depth + 1))
}

/// Whether a button's label offers to show more ("View product details", "Read more",
/// "Show all 12 answers").
pub(super) fn says_disclose(label: &str) -> bool {
    let label = label.trim().to_lowercase();
    let first = label.split_whitespace().next().unwrap_or("");
    label.chars().count() <= DISCLOSE_LABEL_MAX_CHARS
        && (DISCLOSE_FIRST_WORDS.contains(&first) || label.ends_with("more") || label.ends_with("details"))
}

/// The text of an element's subtree, a few levels deep (a button's label).
pub(super) fn own_text<D: Dom>(dom: &D, node: &D::Node, depth: usize) -> String {
    let mut out = String::new();
    for child in dom.children(node) {
        match dom.node_type(&child) {
            NodeType::Text => out.push_str(&dom.text(&child)),
            NodeType::Element if depth < BUTTON_SEARCH_DEPTH + 1 => {
                out.push(' ');
                out.push_str(&own_text(dom, &child, depth + 1));
            }
            _ => {}
        }
    }
    out
}

pub(super) fn holds_heading<D: Dom>(dom: &D, node: &D::Node, depth: usize) -> bool {
    dom.children(node).iter().any(|c| {
        dom.node_type(c) == NodeType::Element
            && (is_heading_tag(&dom.tag_name(c)) || (depth < BUTTON_SEARCH_DEPTH && holds_heading(dom, c, depth + 1)))
    })
}

/// `S:0`, `S:1`…: React's streamed Suspense boundaries.
pub(super) fn is_streamed_boundary(id: &str) -> bool {
    id.strip_prefix("S:").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

pub(super) fn collapsed_len(text: &str) -> usize {
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

pub(super) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The class names of a page builder or design system: classes on three or more elements whose
/// outermost ones hold half of the page's text or more ("elementor-widget-container",
/// "wp-block-group"). Such a class is on the article and the menu alike, so a chrome word in it
/// ("widget", "header") says nothing of what one element holds. Classes of comments, reviews and
/// related stories are never builder classes: a long thread is most of its page and still not
/// the article.
pub(super) fn builder_classes<N>(nodes: &[Box<ArenaNode<N>>], body: usize) -> HashSet<String> {
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
            *count >= BUILDER_CLASS_MIN_COUNT
                && BUILDER_CLASS_TEXT_SHARE.reached(*outer_text, total)
                && !has_word(class, PARAGRAPHED_CHROME_WORDS)
        })
        .map(|(class, _)| class.to_string())
        .collect()
}

/// Embedded social posts and the boxes wrapping them ("social-media-embed"): a tweet or an
/// Instagram post the story quotes is its text, whatever the wrapper's name says. The
/// embedding code gives each post a `blockquote` of a known class; a wrapper holds little more.
pub(super) fn embedded_posts<N>(nodes: &[Box<ArenaNode<N>>], body: usize) -> Vec<bool> {
    let mut embeds = vec![false; nodes.len()];
    for (index, node) in nodes.iter().enumerate() {
        if node.tag != "blockquote" || node.skip || !has_word(&node.class, EMBEDDED_POST_CLASSES) {
            continue;
        }
        embeds[index] = true;
        for ancestor in std::iter::successors(node.parent, |&a| nodes[a].parent) {
            if ancestor == body || nodes[ancestor].text_len > node.text_len * 2 + EMBED_WRAPPER_EXTRA_CHARS {
                break;
            }
            embeds[ancestor] = true;
        }
    }
    embeds
}

/// The one element marked `itemprop="articleBody"` with 200 or more characters of visible
/// text; none when there is none or several (a listing marking each entry's body).
pub(super) fn declared_article<N>(nodes: &[Box<ArenaNode<N>>]) -> Option<usize> {
    let mut declared =
        nodes.iter().enumerate().filter(|(_, n)| n.article_body && !n.skip && n.text_len >= ARTICLE_BODY_MIN_CHARS);
    match (declared.next(), declared.next()) {
        (Some((index, _)), None) => Some(index),
        _ => None,
    }
}

/// Flags that hold for a node when they hold for it or any ancestor (parents come first in the
/// arena, so one forward pass suffices).
pub(super) fn inherited<N>(arena: &Arena<N>, own: &[bool]) -> Vec<bool> {
    let mut out = vec![false; own.len()];
    for (i, node) in arena.nodes.iter().enumerate() {
        out[i] = own[i] || node.parent.is_some_and(|p| out[p]);
    }
    out
}

/// The class and id words of an element that may hint at what it holds: neither a utility
/// class ([`is_utility_class`]) nor a builder class or a variant of one
/// ([`Arena::is_builder_class`]).
pub(super) fn hint_words<'a, N>(arena: &'a Arena<N>, node: &'a ArenaNode<N>) -> impl Iterator<Item = &'a str> {
    node.class_id.split_whitespace().filter(|t| !is_utility_class(t) && !arena.is_builder_class(t))
}
