//! Markdown → render document, so that model output written in Markdown reaches the screen
//! through the same [`Doc`] and the same renderer ([`crate::render::to_html`]) as a render AST.
//!
//! Markdown can carry raw HTML; here it never comes through. The Markdown is parsed with
//! pulldown-cmark (tables and strikethrough on) and only what the render document can express
//! is kept: headings, paragraphs, lists, blockquotes, code blocks, tables and links whose href
//! passes [`is_allowed_href`]. Emphasis, strong, strikethrough and inline code become their
//! text, images their alt text, soft breaks a space and hard breaks `"\n"`. Raw HTML, block or
//! inline, is dropped whole (the text inside an inline `<script>`, `<style>`, `<textarea>` or
//! `<title>` too); footnote definitions, front matter and rules are ignored.
//!
//! The result is always a valid document: [`crate::render::check`] finds nothing in it, and
//! nesting is capped so that no node sits deeper than [`MAX_DEPTH`] (containers past the cap
//! hand their content to the enclosing one).

use crate::render::{
    Block, Doc, Inline, ListItem, MAX_DEPTH, TableCell, TableRow, Text, is_allowed_href, is_allowed_language,
};
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

/// Converts Markdown to a render document. Never fails and never panics.
pub fn markdown_to_doc(markdown: &str) -> Doc {
    let mut builder = Builder::new();
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        builder.event(event);
    }
    builder.finish()
}

/// Node levels each container needs below itself for its deepest content, e.g. a blockquote
/// holds a paragraph holding a link holding text.
const BELOW_BLOCKQUOTE: usize = 3;
/// list → list_item → paragraph → link → text.
const BELOW_LIST: usize = 4;
/// table → table_row → table_cell → link → text.
const BELOW_TABLE: usize = 4;

/// Inline elements whose content is code or markup-bound text rather than prose: an inline
/// opening tag of one hides the text up to its closing tag.
const HIDDEN_ELEMENTS: &[(&str, &str)] =
    &[("<script", "</script"), ("<style", "</style"), ("<textarea", "</textarea"), ("<title", "</title")];

/// A node under construction.
enum Frame {
    /// The doc, a blockquote or a list item: holds blocks.
    Blocks {
        of: BlocksOf,
        children: Vec<Block>,
    },
    /// A paragraph, heading or table cell: holds inline nodes.
    Inlines {
        of: InlinesOf,
        children: Vec<Inline>,
    },
    List {
        ordered: bool,
        items: Vec<ListItem>,
    },
    Table {
        rows: Vec<TableRow>,
    },
    Row {
        header: bool,
        cells: Vec<TableCell>,
    },
    /// `href` is `None` when the destination is not allowed: the link then leaves its text.
    Link {
        href: Option<String>,
        children: Vec<Text>,
    },
    CodeBlock {
        language: Option<String>,
        text: String,
    },
    /// A container that is not kept (too deep, or with no render counterpart): what it holds
    /// goes to the enclosing container.
    Transparent,
}

#[derive(Clone, Copy, PartialEq)]
enum BlocksOf {
    Doc,
    Blockquote,
    ListItem,
}

#[derive(Clone, Copy, PartialEq)]
enum InlinesOf {
    Paragraph,
    Heading(u8),
    Cell {
        header: bool,
    },
    /// Text standing directly in a block container, as in a tight list item: wrapped in a
    /// paragraph that closes at the next block or at the container's end.
    ImplicitParagraph,
}

struct Builder {
    /// Open nodes with their node depth (the doc is depth 1). Never empty: the doc stays at the
    /// bottom.
    stack: Vec<(Frame, usize)>,
    /// Nesting inside a skipped element (HTML block, footnote definition, front matter).
    skipping: usize,
    /// The closing tag that ends hidden inline content, while inside such content.
    hidden_until: Option<&'static str>,
}

impl Builder {
    fn new() -> Self {
        Builder {
            stack: vec![(Frame::Blocks { of: BlocksOf::Doc, children: Vec::new() }, 1)],
            skipping: 0,
            hidden_until: None,
        }
    }

    fn event(&mut self, event: Event<'_>) {
        if self.skipping > 0 {
            match event {
                Event::Start(_) => self.skipping += 1,
                Event::End(_) => self.skipping -= 1,
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) | Event::Code(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.text(&text)
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.text("\n"),
            Event::InlineHtml(html) => self.inline_html(&html),
            Event::Html(_) | Event::FootnoteReference(_) | Event::Rule | Event::TaskListMarker(_) => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.open_block(Frame::Inlines { of: InlinesOf::Paragraph, children: Vec::new() }),
            Tag::Heading { level, .. } => {
                self.open_block(Frame::Inlines { of: InlinesOf::Heading(heading_level(level)), children: Vec::new() })
            }
            Tag::CodeBlock(kind) => {
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        // The language is the info string's first word; `rust,ignore` and
                        // `python {.numberLines}` name rust and python.
                        let language = info.split(|c: char| c.is_whitespace() || c == ',' || c == '{').next();
                        language.filter(|language| is_allowed_language(language)).map(str::to_owned)
                    }
                    CodeBlockKind::Indented => None,
                };
                self.open_block(Frame::CodeBlock { language, text: String::new() });
            }
            Tag::BlockQuote(_) => {
                self.open_container(Frame::Blocks { of: BlocksOf::Blockquote, children: Vec::new() }, BELOW_BLOCKQUOTE)
            }
            Tag::List(start) => {
                self.open_container(Frame::List { ordered: start.is_some(), items: Vec::new() }, BELOW_LIST)
            }
            Tag::Item => {
                self.close_implicit_paragraph();
                let frame = if matches!(self.top(), Frame::List { .. }) {
                    Frame::Blocks { of: BlocksOf::ListItem, children: Vec::new() }
                } else {
                    Frame::Transparent
                };
                self.open_block(frame);
            }
            Tag::Table(_) => self.open_container(Frame::Table { rows: Vec::new() }, BELOW_TABLE),
            Tag::TableHead | Tag::TableRow => {
                let header = matches!(tag, Tag::TableHead);
                self.close_implicit_paragraph();
                let frame = if matches!(self.top(), Frame::Table { .. }) {
                    Frame::Row { header, cells: Vec::new() }
                } else {
                    Frame::Transparent
                };
                self.open_block(frame);
            }
            Tag::TableCell => {
                self.close_implicit_paragraph();
                let frame = match self.top() {
                    Frame::Row { header, .. } => {
                        Frame::Inlines { of: InlinesOf::Cell { header: *header }, children: Vec::new() }
                    }
                    _ => Frame::Transparent,
                };
                self.open_block(frame);
            }
            Tag::DefinitionList | Tag::DefinitionListTitle | Tag::DefinitionListDefinition => {
                self.open_block(Frame::Transparent)
            }
            Tag::HtmlBlock | Tag::FootnoteDefinition(_) | Tag::MetadataBlock(_) => {
                self.close_implicit_paragraph();
                self.skipping = 1;
            }
            Tag::Link { link_type, dest_url, .. } => {
                let href = match link_type {
                    // pulldown-cmark gives an email autolink's bare address.
                    LinkType::Email => format!("mailto:{dest_url}"),
                    _ => dest_url.to_string(),
                };
                let href = is_allowed_href(&href).then_some(href);
                // Pushed even where inline content cannot go, so that its end pops it; the
                // finished link is then dropped there.
                self.ensure_inline_target();
                self.push(Frame::Link { href, children: Vec::new() });
            }
            // Flattened to their text: these push nothing, and their ends pop nothing.
            Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Image { .. } => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Image => {}
            TagEnd::Link => self.close_top(),
            // Skipped elements end while `skipping` is counting, never here.
            TagEnd::HtmlBlock | TagEnd::FootnoteDefinition | TagEnd::MetadataBlock(_) => {}
            TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::BlockQuote(_)
            | TagEnd::CodeBlock
            | TagEnd::List(_)
            | TagEnd::Item
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Table
            | TagEnd::TableHead
            | TagEnd::TableRow
            | TagEnd::TableCell => {
                self.close_implicit_paragraph();
                self.close_top();
            }
        }
    }

    fn top(&self) -> &Frame {
        // The doc frame is never popped, so there is always a last frame; the fallback only
        // keeps this free of a panic path.
        self.stack.last().map_or(&Frame::Transparent, |(frame, _)| frame)
    }

    fn top_depth(&self) -> usize {
        self.stack.last().map_or(1, |(_, depth)| *depth)
    }

    /// Pushes a frame one node level below the top; a transparent frame adds no level.
    fn push(&mut self, frame: Frame) {
        let depth = match frame {
            Frame::Transparent => self.top_depth(),
            _ => self.top_depth() + 1,
        };
        self.stack.push((frame, depth));
    }

    fn open_block(&mut self, frame: Frame) {
        self.close_implicit_paragraph();
        self.push(frame);
    }

    /// Opens a container, or a transparent frame in its place when its content would pass
    /// [`MAX_DEPTH`].
    fn open_container(&mut self, frame: Frame, levels_below: usize) {
        self.close_implicit_paragraph();
        if self.top_depth() + 1 + levels_below <= MAX_DEPTH {
            self.push(frame);
        } else {
            self.push(Frame::Transparent);
        }
    }

    fn close_implicit_paragraph(&mut self) {
        if matches!(self.top(), Frame::Inlines { of: InlinesOf::ImplicitParagraph, .. }) {
            self.close_top();
        }
    }

    /// Makes the top frame one that takes inline content, opening an implicit paragraph in a
    /// block container. False where inline content cannot go (directly in a list or table).
    fn ensure_inline_target(&mut self) -> bool {
        match self.top() {
            Frame::Inlines { .. } | Frame::Link { .. } => true,
            Frame::Blocks { .. } | Frame::Transparent => {
                self.push(Frame::Inlines { of: InlinesOf::ImplicitParagraph, children: Vec::new() });
                true
            }
            Frame::List { .. } | Frame::Table { .. } | Frame::Row { .. } | Frame::CodeBlock { .. } => false,
        }
    }

    fn text(&mut self, text: &str) {
        if self.hidden_until.is_some() {
            return;
        }
        if let Some((Frame::CodeBlock { text: code, .. }, _)) = self.stack.last_mut() {
            code.push_str(text);
            return;
        }
        if !self.ensure_inline_target() {
            return;
        }
        match self.stack.last_mut() {
            Some((Frame::Inlines { children, .. }, _)) => push_inline_text(children, text),
            Some((Frame::Link { children, .. }, _)) => push_link_text(children, text),
            _ => {}
        }
    }

    /// Inline HTML is dropped; an opening `<script>` (and the like) also hides the text up to
    /// its closing tag, as a browser would never show it.
    fn inline_html(&mut self, html: &str) {
        let html = html.to_ascii_lowercase();
        if let Some(closing) = self.hidden_until {
            if html.starts_with(closing) {
                self.hidden_until = None;
            }
            return;
        }
        for (opening, closing) in HIDDEN_ELEMENTS {
            let Some(rest) = html.strip_prefix(opening) else { continue };
            let is_this_element = rest.starts_with(|c: char| c == '>' || c == '/' || c.is_ascii_whitespace());
            if is_this_element && !rest.trim_end().ends_with("/>") && !rest.contains(closing) {
                self.hidden_until = Some(closing);
            }
            return;
        }
    }

    /// Pops the top frame and hands the finished node to the frame below.
    fn close_top(&mut self) {
        if self.stack.len() <= 1 {
            return;
        }
        let Some((frame, _)) = self.stack.pop() else { return };
        match frame {
            Frame::Blocks { of: BlocksOf::Doc, children } => {
                for block in children {
                    self.push_block(block);
                }
            }
            Frame::Blocks { of: BlocksOf::Blockquote, children } => {
                if !children.is_empty() {
                    self.push_block(Block::Blockquote { children });
                }
            }
            Frame::Blocks { of: BlocksOf::ListItem, children } => {
                if children.is_empty() {
                    return;
                }
                match self.stack.last_mut() {
                    Some((Frame::List { items, .. }, _)) => items.push(ListItem { children }),
                    _ => {
                        for block in children {
                            self.push_block(block);
                        }
                    }
                }
            }
            Frame::Inlines { of, children } => {
                // Hidden inline content never runs past the paragraph it started in.
                self.hidden_until = None;
                if let (InlinesOf::Cell { header }, Some((Frame::Row { cells, .. }, _))) = (of, self.stack.last_mut()) {
                    cells.push(TableCell { header, children });
                    return;
                }
                if children.is_empty() {
                    return;
                }
                let block = match of {
                    InlinesOf::Heading(level) => Block::Heading { level, children },
                    _ => Block::Paragraph { children },
                };
                self.push_block(block);
            }
            Frame::List { ordered, items } => {
                if !items.is_empty() {
                    self.push_block(Block::List { ordered, items });
                }
            }
            Frame::Table { rows } => {
                if !rows.is_empty() {
                    self.push_block(Block::Table { rows });
                }
            }
            Frame::Row { cells, .. } => match self.stack.last_mut() {
                Some((Frame::Table { rows }, _)) if !cells.is_empty() => rows.push(TableRow { cells }),
                _ => {}
            },
            Frame::Link { href, children } => {
                let inlines = match href {
                    Some(href) => vec![Inline::Link { href, children }],
                    None => children.into_iter().map(Inline::Text).collect(),
                };
                for inline in inlines {
                    self.push_inline(inline);
                }
            }
            Frame::CodeBlock { language, mut text } => {
                // pulldown-cmark ends a code block's text with the newline before the fence.
                if text.ends_with('\n') {
                    text.pop();
                }
                self.push_block(Block::CodeBlock { language, text });
            }
            Frame::Transparent => {}
        }
    }

    /// Adds a finished block to the nearest block container, looking through transparent
    /// frames. With no block container in reach (not expected from pulldown-cmark) the block
    /// goes to the doc, so no text is lost.
    fn push_block(&mut self, block: Block) {
        self.close_implicit_paragraph();
        for (frame, _) in self.stack.iter_mut().rev() {
            match frame {
                Frame::Transparent => continue,
                Frame::Blocks { children, .. } => {
                    children.push(block);
                    return;
                }
                _ => break,
            }
        }
        if let Some((Frame::Blocks { children, .. }, _)) = self.stack.first_mut() {
            children.push(block);
        }
    }

    /// Adds a finished inline node to the inline container on top.
    fn push_inline(&mut self, inline: Inline) {
        if !self.ensure_inline_target() {
            return;
        }
        match (self.stack.last_mut(), inline) {
            (Some((Frame::Inlines { children, .. }, _)), Inline::Text(text)) => push_inline_text(children, &text.text),
            (Some((Frame::Inlines { children, .. }, _)), link) => children.push(link),
            // Links cannot nest: an inner link leaves its text in the outer one.
            (Some((Frame::Link { children, .. }, _)), Inline::Text(text)) => push_link_text(children, &text.text),
            (Some((Frame::Link { children: outer, .. }, _)), Inline::Link { children, .. }) => {
                for text in children {
                    push_link_text(outer, &text.text);
                }
            }
            _ => {}
        }
    }

    fn finish(mut self) -> Doc {
        while self.stack.len() > 1 {
            self.close_top();
        }
        match self.stack.pop() {
            Some((Frame::Blocks { children, .. }, _)) => Doc { children },
            _ => Doc::default(),
        }
    }
}

/// Appends text, joining it to a text node right before it.
fn push_inline_text(children: &mut Vec<Inline>, text: &str) {
    if let Some(Inline::Text(last)) = children.last_mut() {
        last.text.push_str(text);
    } else {
        children.push(Inline::Text(Text { text: text.to_owned() }));
    }
}

/// Appends text to a link's children, joining it to the text node before it.
fn push_link_text(children: &mut Vec<Text>, text: &str) {
    match children.last_mut() {
        Some(last) => last.text.push_str(text),
        None => children.push(Text { text: text.to_owned() }),
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::assert_safe_html;
    use crate::render::{check, sanitize, to_html};
    use proptest::prelude::*;

    fn text(text: &str) -> Inline {
        Inline::Text(Text { text: text.to_owned() })
    }

    fn paragraph(content: &str) -> Block {
        Block::Paragraph { children: vec![text(content)] }
    }

    fn link(href: &str, content: &str) -> Inline {
        Inline::Link { href: href.to_owned(), children: vec![Text { text: content.to_owned() }] }
    }

    fn item(blocks: Vec<Block>) -> ListItem {
        ListItem { children: blocks }
    }

    fn blocks(markdown: &str) -> Vec<Block> {
        let doc = markdown_to_doc(markdown);
        assert_valid(&doc);
        doc.children
    }

    /// What every conversion must give: a document `check` finds nothing in, that `sanitize`
    /// returns unchanged, and whose HTML passes the tag scanner.
    fn assert_valid(doc: &Doc) {
        let value = serde_json::to_value(doc).expect("serialises");
        assert_eq!(check(&value), vec![], "{value}");
        assert_eq!(&sanitize(&value).doc, doc);
        assert_safe_html(&to_html(doc));
    }

    #[test]
    fn headings_and_paragraphs() {
        assert_eq!(
            blocks("# One\n\n###### Six\n\nSetext\n---\n\nfirst line\nsecond line\n\nnext"),
            vec![
                Block::Heading { level: 1, children: vec![text("One")] },
                Block::Heading { level: 6, children: vec![text("Six")] },
                Block::Heading { level: 2, children: vec![text("Setext")] },
                paragraph("first line second line"),
                paragraph("next"),
            ]
        );
    }

    #[test]
    fn emphasis_strong_strikethrough_and_code_flatten_to_one_text() {
        assert_eq!(blocks("a *b* **c** ~~d~~ `<e>` _f_"), vec![paragraph("a b c d <e> f")]);
    }

    #[test]
    fn hard_breaks_become_newlines() {
        assert_eq!(blocks("a  \nb\\\nc"), vec![paragraph("a\nb\nc")]);
    }

    #[test]
    fn tight_lists_wrap_text_in_paragraphs_and_nest() {
        assert_eq!(
            blocks("- a\n- b\n  - c\n  - d\n- e"),
            vec![Block::List {
                ordered: false,
                items: vec![
                    item(vec![paragraph("a")]),
                    item(vec![
                        paragraph("b"),
                        Block::List {
                            ordered: false,
                            items: vec![item(vec![paragraph("c")]), item(vec![paragraph("d")])]
                        },
                    ]),
                    item(vec![paragraph("e")]),
                ],
            }]
        );
    }

    #[test]
    fn ordered_and_loose_lists() {
        assert_eq!(
            blocks("3. one\n\n4. two\n\n   more\n"),
            vec![Block::List {
                ordered: true,
                items: vec![item(vec![paragraph("one")]), item(vec![paragraph("two"), paragraph("more")])],
            }]
        );
    }

    #[test]
    fn list_items_with_headings_and_code() {
        assert_eq!(
            blocks("- text\n  ```\n  code\n  ```\n- # head"),
            vec![Block::List {
                ordered: false,
                items: vec![
                    item(vec![paragraph("text"), Block::CodeBlock { language: None, text: "code".into() }]),
                    item(vec![Block::Heading { level: 1, children: vec![text("head")] }]),
                ],
            }]
        );
    }

    #[test]
    fn blockquotes_nest() {
        assert_eq!(
            blocks("> quoted\n>\n> > inner"),
            vec![Block::Blockquote {
                children: vec![paragraph("quoted"), Block::Blockquote { children: vec![paragraph("inner")] }]
            }]
        );
    }

    #[test]
    fn code_blocks_keep_text_and_valid_languages() {
        assert_eq!(
            blocks(
                "```rust\nfn main() {\n    println!(\"<hi>\");\n}\n```\n\n```rust,ignore\nx\n```\n\n```bad\"lang\ny\n```\n\n    indented\n"
            ),
            vec![
                Block::CodeBlock {
                    language: Some("rust".into()),
                    text: "fn main() {\n    println!(\"<hi>\");\n}".into()
                },
                Block::CodeBlock { language: Some("rust".into()), text: "x".into() },
                Block::CodeBlock { language: None, text: "y".into() },
                Block::CodeBlock { language: None, text: "indented".into() },
            ]
        );
        let html = to_html(&markdown_to_doc("```c++\n<b>\n```"));
        assert_eq!(html, "<pre><code class=\"language-c++\">&lt;b&gt;</code></pre>");
    }

    #[test]
    fn tables_have_header_cells() {
        let cell = |header: bool, content: &str| TableCell {
            header,
            children: if content.is_empty() { vec![] } else { vec![text(content)] },
        };
        assert_eq!(
            blocks("| Name | Value |\n|:-----|------:|\n| a | **1** |\n| [l](https://l.example/) | |\n"),
            vec![Block::Table {
                rows: vec![
                    TableRow { cells: vec![cell(true, "Name"), cell(true, "Value")] },
                    TableRow { cells: vec![cell(false, "a"), cell(false, "1")] },
                    TableRow {
                        cells: vec![
                            TableCell { header: false, children: vec![link("https://l.example/", "l")] },
                            cell(false, ""),
                        ]
                    },
                ]
            }]
        );
        let html = to_html(&markdown_to_doc("| h |\n|---|\n| c |"));
        assert_eq!(html, "<table><thead><tr><th>h</th></tr></thead><tbody><tr><td>c</td></tr></tbody></table>");
    }

    #[test]
    fn allowed_links_become_links() {
        assert_eq!(
            blocks(
                "see [the *docs*](https://docs.example/a?b=1) and <https://auto.example/> or <me@mail.example>\n\n[ref][r]\n\n[r]: http://ref.example/"
            ),
            vec![
                Block::Paragraph {
                    children: vec![
                        text("see "),
                        link("https://docs.example/a?b=1", "the docs"),
                        text(" and "),
                        link("https://auto.example/", "https://auto.example/"),
                        text(" or "),
                        link("mailto:me@mail.example", "me@mail.example"),
                    ]
                },
                Block::Paragraph { children: vec![link("http://ref.example/", "ref")] },
            ]
        );
    }

    #[test]
    fn refused_links_leave_their_text() {
        for markdown in [
            "[x](javascript:alert(1))",
            "[x](JAVASCRIPT:alert(1))",
            "[x](data:text/html,<script>alert(1)</script>)",
            "[x](vbscript:msgbox)",
            "[x](//evil.example)",
            "[x](/relative)",
            "[x](<java\tscript:alert(1)>)",
            "[x](jav&#x09;ascript:alert(1))",
        ] {
            assert_eq!(blocks(markdown), vec![paragraph("x")], "{markdown}");
        }
        assert_eq!(blocks("a [b](javascript:x) c"), vec![paragraph("a b c")]);
    }

    #[test]
    fn images_become_their_alt_text() {
        assert_eq!(blocks("![a *cat*](https://img.example/cat.png) here"), vec![paragraph("a cat here")]);
        assert_eq!(
            blocks("[![logo](x.png)](https://home.example/)"),
            vec![Block::Paragraph { children: vec![link("https://home.example/", "logo")] }]
        );
    }

    #[test]
    fn raw_html_vanishes() {
        let cases = [
            ("<img src=x onerror=alert(1)>", vec![]),
            ("<script>alert(1)</script>", vec![]),
            ("<div>\n<b>inside</b>\n</div>", vec![]),
            ("<!-- comment -->", vec![]),
            ("before\n\n<script>\nalert(1)\n</script>\n\nafter", vec![paragraph("before"), paragraph("after")]),
            ("a <img src=x onerror=alert(1)> b", vec![paragraph("a  b")]),
            ("a <script>alert(1)</script> b", vec![paragraph("a  b")]),
            ("a <style>p{}</style> b <SCRIPT type=x>alert(1)</SCRIPT> c", vec![paragraph("a  b  c")]),
            ("a <b>bold</b> <!-- c --> d", vec![paragraph("a bold  d")]),
            (
                "- <img src=x onerror=alert(1)>\n- ok",
                vec![Block::List { ordered: false, items: vec![item(vec![paragraph("ok")])] }],
            ),
        ];
        for (markdown, expected) in cases {
            let doc = markdown_to_doc(markdown);
            assert_valid(&doc);
            assert_eq!(doc.children, expected, "{markdown}");
            let html = to_html(&doc);
            for banned in ["<img", "<script", "<div", "<b>", "onerror", "alert", "<!--"] {
                assert!(!html.contains(banned), "{markdown} gave {html}");
            }
        }
    }

    #[test]
    fn hidden_inline_content_ends_with_its_paragraph() {
        // An unclosed inline <script> hides the rest of its paragraph, not of the document.
        assert_eq!(blocks("a <script> hidden\n\nshown"), vec![paragraph("a "), paragraph("shown")]);
    }

    #[test]
    fn rules_and_footnote_syntax_are_ignored() {
        assert_eq!(blocks("a\n\n---\n\nb"), vec![paragraph("a"), paragraph("b")]);
        // Footnotes are not enabled, so CommonMark reads this as a reference link to the
        // relative URL `note`, which is refused: the label stays as text.
        assert_eq!(blocks("x[^1]\n\n[^1]: note"), vec![paragraph("x^1")]);
    }

    #[test]
    fn empty_input_gives_an_empty_doc() {
        assert!(markdown_to_doc("").children.is_empty());
        assert!(markdown_to_doc("\n\n   \n").children.is_empty());
        assert!(markdown_to_doc("<br>").is_empty());
    }

    #[test]
    fn deep_nesting_stays_within_max_depth() {
        let inputs = [
            format!("{} text [l](https://x.example/)", ">".repeat(10_000)),
            (0..300).map(|level| format!("{}- item {level}\n", "  ".repeat(level))).collect::<String>(),
            format!("{}\n|a|b|\n|-|-|\n|c|d|", ">".repeat(40)),
            format!(
                "{}| a |\n{}|---|\n{}| [c](https://c.example/) |",
                "> ".repeat(29),
                "> ".repeat(29),
                "> ".repeat(29)
            ),
            "[".repeat(10_000),
            "*".repeat(10_000) + "a" + &"*".repeat(10_000),
            format!("{}x{}", "[a](".repeat(2_000), ")".repeat(2_000)),
            "1. ".repeat(5_000),
        ];
        for markdown in inputs {
            let doc = markdown_to_doc(&markdown);
            assert_valid(&doc);
        }
        let quoted = markdown_to_doc(&format!("{} deep", ">".repeat(100)));
        assert_eq!(quoted.plain_text().trim_start_matches(['>', ' ']), "deep");
    }

    #[test]
    fn rich_markdown_renders_through_the_same_renderer() {
        let markdown = "## Summary\n\nThis page explains **things**.\n\n- Key point A\n- Key point B\n";
        let html = to_html(&markdown_to_doc(markdown));
        assert_eq!(
            html,
            "<h2>Summary</h2>\n<p>This page explains things.</p>\n<ul><li><p>Key point A</p></li><li><p>Key point B</p></li></ul>"
        );
    }

    fn markdownish() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("# "),
            Just("> "),
            Just("- "),
            Just("1. "),
            Just("  "),
            Just("    "),
            Just("\n"),
            Just("\n\n"),
            Just("```rust\n"),
            Just("```\n"),
            Just("| a | b |\n"),
            Just("|---|---|\n"),
            Just("|"),
            Just("[x](https://e.example/)"),
            Just("[y](javascript:alert(1))"),
            Just("<https://auto.example>"),
            Just("!["),
            Just("]("),
            Just(")"),
            Just("<script>"),
            Just("</script>"),
            Just("<img src=x onerror=alert(1)>"),
            Just("<div>"),
            Just("**"),
            Just("*"),
            Just("_"),
            Just("~~"),
            Just("`"),
            Just("\\"),
            Just("---\n"),
            Just("[^1]"),
            Just("&amp;"),
            Just("&#x3C;"),
            Just("<!--"),
            Just("-->"),
        ];
        let word = "[a-z<>\"'&]{0,6}";
        prop::collection::vec(prop_oneof![2 => piece.prop_map(str::to_owned), 1 => word], 0..40)
            .prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn any_string_converts_without_panic(markdown in ".{0,200}") {
            assert_valid(&markdown_to_doc(&markdown));
        }

        #[test]
        fn any_markdownish_string_converts_to_a_valid_safe_doc(markdown in markdownish()) {
            let doc = markdown_to_doc(&markdown);
            assert_valid(&doc);
            let html = to_html(&doc);
            prop_assert!(!html.contains("<script") && !html.contains("<img") && !html.contains("<div"), "{}", html);
        }
    }
}
