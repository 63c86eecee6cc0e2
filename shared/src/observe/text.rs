//! Stage 6, text: the content roots written as text with structure prefixes (`H2: `, `- `,
//! `> `, `Code: ` …), dropped elements left out; and the text cut into chunks at line boundaries
//! for `observe_chunk`'s cursor.

use super::arena::{Arena, collapse_whitespace};
use super::words::*;

pub(super) struct TextWriter {
    pub(super) out: String,
    pub(super) line: String,
}

impl TextWriter {
    pub(super) fn new() -> Self {
        TextWriter { out: String::new(), line: String::new() }
    }

    pub(super) fn push_inline(&mut self, text: &str) {
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
    pub(super) fn end_block(&mut self, prefix: &str) {
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

    pub(super) fn push_raw_block(&mut self, prefix: &str, text: &str) {
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

pub(super) struct TextContext<'a> {
    /// Elements whose subtrees the text leaves out (chrome and clutter).
    pub(super) left_out: &'a [bool],
    /// `- ` prefix indentation for nested lists.
    pub(super) list_depth: usize,
    pub(super) quote: bool,
}

pub(super) fn write_text<N>(arena: &Arena<N>, index: usize, ctx: &mut TextContext<'_>, writer: &mut TextWriter) {
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

pub(super) fn prefixed_block<N>(
    arena: &Arena<N>,
    index: usize,
    ctx: &mut TextContext<'_>,
    writer: &mut TextWriter,
    label: &str,
) {
    let quote = if ctx.quote { "> " } else { "" };
    writer.end_block(quote);
    children_text(arena, index, ctx, writer);
    writer.end_block(&format!("{quote}{label}"));
}

pub(super) fn children_text<N>(arena: &Arena<N>, index: usize, ctx: &mut TextContext<'_>, writer: &mut TextWriter) {
    for &child in &arena.nodes[index].children {
        write_text(arena, child, ctx, writer);
    }
}

/// Text of a `pre` as written (newlines kept).
pub(super) fn raw_text<N>(arena: &Arena<N>, index: usize) -> String {
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

/// Cuts at most `max_chars` characters and `max_blocks` lines of `text` from `cursor`, ending at
/// a line break when one falls in the last fifth of the window, so chunks split between blocks
/// rather than inside them. Returns the chunk, the next cursor, whether the text is done, and
/// the text's length: reading from each returned cursor in turn yields the text exactly once.
pub(super) fn cut_chunk(
    text: &str,
    cursor: usize,
    max_chars: usize,
    max_blocks: usize,
) -> (String, usize, bool, usize) {
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

pub(super) fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}
