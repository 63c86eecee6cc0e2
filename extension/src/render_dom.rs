//! The sidecar's renderer: a render document ([`Doc`]) becomes DOM elements.
//!
//! This is the DOM twin of [`laika_shared::render::to_html`] and follows the same rules, but it
//! never produces markup: every node is made with `createElement` / `createTextNode` and every
//! attribute with `setAttribute`, so no string from a model (or a page) is ever parsed as HTML.
//! `innerHTML`, `outerHTML` and `insertAdjacentHTML` are not used anywhere in this module.
//!
//! What can come out is fixed: the tags in [`RENDER_TAGS`] and the attributes in
//! [`RENDER_ATTRIBUTES`], nothing else.
//!
//! - `doc` → `<div class="laika-render">`; blocks nested deeper than [`MAX_DEPTH`] are not rendered
//!   (a [`Doc`] built in code has not been through the sanitiser's depth cap).
//! - `heading` → `h1`…`h6`, the level clamped into 1..=6; `paragraph` → `p`; `list` → `ul`/`ol`
//!   with one `li` per item; `blockquote` → `blockquote`.
//! - `code_block` → `pre > code`, with `class="language-X"` only when the language passes
//!   [`is_allowed_language`]; the code is one text node, its line breaks kept by `pre`.
//! - `table` → `table`; leading rows whose cells are all headers go in a `thead`, the rest in a
//!   `tbody` (as [`laika_shared::render::to_html`] does); cells are `th` (header) or `td`.
//! - `text` → text nodes. A `"\n"` inside text (the markdown path's hard break, the line breaks
//!   [`Doc::from_plain_text`] keeps inside a paragraph) becomes a `<br>` between text nodes, so the
//!   break shows whatever the sidecar's stylesheet says about white space. `"\r\n"` counts as one
//!   break.
//! - `link` → `<a href rel="noopener noreferrer nofollow" target="_blank">`, but only when the
//!   href passes [`is_allowed_href`] here, again, whatever checked it before: a [`Doc`] can be
//!   built in code without the sanitiser. The attribute is the browser's normalised form of the
//!   URL, checked once more. Any other link renders as its text alone; a link without text shows
//!   its URL.

use laika_shared::markdown::markdown_to_doc;
use laika_shared::render::{
    Block, Doc, Inline, MAX_DEPTH, TableRow, Text, is_allowed_href, is_allowed_language, sanitize,
};
use serde_json::Value;
use wasm_bindgen::JsValue;
use web_sys::{Document, Element, Node};

/// Every tag name the renderer can ever create.
pub const RENDER_TAGS: &[&str] = &[
    "div",
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
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "a",
    "br",
];

/// Every `(tag, attribute)` pair the renderer can ever set. No other element carries an attribute.
pub const RENDER_ATTRIBUTES: &[(&str, &str)] =
    &[("div", "class"), ("code", "class"), ("a", "href"), ("a", "rel"), ("a", "target")];

/// The class of the root element.
pub const ROOT_CLASS: &str = "laika-render";

/// The `rel` of every link: no `window.opener` for the target, no referrer, and no
/// endorsement from us.
pub const LINK_REL: &str = "noopener noreferrer nofollow";

/// The depth of the `doc` node, as [`laika_shared::render`] counts it.
const DOC_DEPTH: usize = 1;

/// Renders a document as a detached `<div class="laika-render">` of `document`.
pub fn render_doc(document: &Document, doc: &Doc) -> Result<Element, JsValue> {
    let root = document.create_element("div")?;
    root.set_attribute("class", ROOT_CLASS)?;
    Renderer { document }.blocks(&root, &doc.children, DOC_DEPTH + 1)?;
    Ok(root)
}

/// Sanitises an untrusted render value ([`sanitize`]) and renders what is left. Also returns how
/// many violations the sanitiser dropped or repaired.
pub fn render_value(document: &Document, value: &Value) -> Result<(Element, usize), JsValue> {
    let sanitized = sanitize(value);
    Ok((render_doc(document, &sanitized.doc)?, sanitized.dropped.len()))
}

/// Renders Markdown through [`markdown_to_doc`], which drops raw HTML whole.
pub fn render_markdown(document: &Document, markdown: &str) -> Result<Element, JsValue> {
    render_doc(document, &markdown_to_doc(markdown))
}

struct Renderer<'d> {
    document: &'d Document,
}

impl Renderer<'_> {
    fn element(&self, parent: &Node, tag: &str) -> Result<Element, JsValue> {
        debug_assert!(RENDER_TAGS.contains(&tag));
        let element = self.document.create_element(tag)?;
        parent.append_child(&element)?;
        Ok(element)
    }

    fn blocks(&self, parent: &Node, blocks: &[Block], depth: usize) -> Result<(), JsValue> {
        if depth > MAX_DEPTH {
            return Ok(());
        }
        blocks.iter().try_for_each(|block| self.block(parent, block, depth))
    }

    fn block(&self, parent: &Node, block: &Block, depth: usize) -> Result<(), JsValue> {
        match block {
            Block::Heading { level, children } => {
                // A Doc built in code may carry any u8; only h1..h6 exist.
                let tag = ["h1", "h2", "h3", "h4", "h5", "h6"][usize::from((*level).clamp(1, 6)) - 1];
                let heading = self.element(parent, tag)?;
                self.inlines(&heading, children)
            }
            Block::Paragraph { children } => {
                let paragraph = self.element(parent, "p")?;
                self.inlines(&paragraph, children)
            }
            Block::List { ordered, items } => {
                let list = self.element(parent, if *ordered { "ol" } else { "ul" })?;
                for item in items {
                    let li = self.element(&list, "li")?;
                    self.blocks(&li, &item.children, depth + 2)?;
                }
                Ok(())
            }
            Block::Blockquote { children } => {
                let quote = self.element(parent, "blockquote")?;
                self.blocks(&quote, children, depth + 1)
            }
            Block::CodeBlock { language, text } => {
                let pre = self.element(parent, "pre")?;
                let code = self.element(&pre, "code")?;
                if let Some(language) = language.as_deref().filter(|language| is_allowed_language(language)) {
                    code.set_attribute("class", &format!("language-{language}"))?;
                }
                if !text.is_empty() {
                    code.append_child(&self.document.create_text_node(text))?;
                }
                Ok(())
            }
            Block::Table { rows } => {
                let header_rows = rows
                    .iter()
                    .take_while(|row| !row.cells.is_empty() && row.cells.iter().all(|cell| cell.header))
                    .count();
                let (head, body) = rows.split_at(header_rows);
                let table = self.element(parent, "table")?;
                if !head.is_empty() {
                    let thead = self.element(&table, "thead")?;
                    self.rows(&thead, head)?;
                }
                if !body.is_empty() {
                    let tbody = self.element(&table, "tbody")?;
                    self.rows(&tbody, body)?;
                }
                Ok(())
            }
        }
    }

    fn rows(&self, parent: &Node, rows: &[TableRow]) -> Result<(), JsValue> {
        for row in rows {
            let tr = self.element(parent, "tr")?;
            for cell in &row.cells {
                let td = self.element(&tr, if cell.header { "th" } else { "td" })?;
                self.inlines(&td, &cell.children)?;
            }
        }
        Ok(())
    }

    fn inlines(&self, parent: &Node, inlines: &[Inline]) -> Result<(), JsValue> {
        for inline in inlines {
            match inline {
                Inline::Text(text) => self.text(parent, &text.text)?,
                Inline::Link { href, children } => match checked_href(href) {
                    Some(href) => {
                        let link = self.element(parent, "a")?;
                        link.set_attribute("href", &href)?;
                        link.set_attribute("rel", LINK_REL)?;
                        link.set_attribute("target", "_blank")?;
                        let text = link_text(children);
                        self.text(&link, if text.is_empty() { &href } else { &text })?;
                    }
                    None => self.text(parent, &link_text(children))?,
                },
            }
        }
        Ok(())
    }

    /// Text nodes, with a `<br>` for each line break.
    fn text(&self, parent: &Node, text: &str) -> Result<(), JsValue> {
        for (index, line) in text.split('\n').enumerate() {
            if index > 0 {
                self.element(parent, "br")?;
            }
            let line = line.strip_suffix('\r').unwrap_or(line);
            if !line.is_empty() {
                parent.append_child(&self.document.create_text_node(line))?;
            }
        }
        Ok(())
    }
}

/// The href to set on a link: the browser's normalised form of an allowed href, itself allowed.
fn checked_href(href: &str) -> Option<String> {
    if !is_allowed_href(href) {
        return None;
    }
    let normalised = web_sys::Url::new(href).ok()?.href();
    is_allowed_href(&normalised).then_some(normalised)
}

fn link_text(children: &[Text]) -> String {
    children.iter().map(|child| child.text.as_str()).collect()
}
