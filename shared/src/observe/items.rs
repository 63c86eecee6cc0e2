//! Lists and discussions: the repeated items of a listing page (title, link, comment count) and
//! the comments of a discussion (author, age, score, body, nesting).

use super::ObserveOptions;
use super::arena::{Arena, collapse_whitespace};
use super::elements::shape;
use super::redact::redact_url;
use super::text::truncate_chars;
use super::words::*;
use crate::dom::Dom;
use crate::observation::{Comment, Discussion, Item};
use std::collections::HashMap;

pub(super) fn comment_count(text: &str) -> Option<u64> {
    let lower = text.to_lowercase();
    for word in COMMENT_COUNT_WORDS {
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

pub(super) fn items<D: Dom>(dom: &D, arena: &Arena<D::Node>, url: &str, options: &ObserveOptions) -> Vec<Item> {
    // The parent with the most repeated children that each carry a substantial link is the list.
    let mut best: Option<(usize, Vec<usize>)> = None;
    for (index, node) in arena.nodes.iter().enumerate() {
        if node.skip || node.children.len() < LIST_MIN_ITEMS {
            continue;
        }
        let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
        for &child in &node.children {
            let c = &arena.nodes[child];
            if c.tag.is_empty() || c.skip {
                continue;
            }
            if primary_link(arena, child).is_some_and(|(_, len)| len >= LIST_ITEM_LINK_CHARS) {
                groups.entry(shape(c)).or_default().push(child);
            }
        }
        if let Some((_, members)) = groups.into_iter().max_by_key(|(_, m)| m.len())
            && members.len() >= LIST_MIN_ITEMS
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

pub(super) fn next_element_sibling<N>(arena: &Arena<N>, index: usize) -> Option<usize> {
    let parent = arena.nodes[index].parent?;
    let siblings = &arena.nodes[parent].children;
    let pos = siblings.iter().position(|&s| s == index)?;
    siblings[pos + 1..].iter().copied().find(|&s| !arena.nodes[s].tag.is_empty())
}

/// The longest link (by text) inside an element: an item's title link.
pub(super) fn primary_link<N>(arena: &Arena<N>, index: usize) -> Option<(usize, usize)> {
    arena
        .subtree(index)
        .into_iter()
        .filter(|&i| arena.nodes[i].tag == "a" && !arena.nodes[i].skip)
        .map(|i| (i, arena.nodes[i].text_len))
        .max_by_key(|(i, len)| (*len, std::cmp::Reverse(*i)))
}

/// Whether a class or id token names one comment (not a list of them, nor a part of one).
pub(super) fn is_comment_token(token: &str) -> bool {
    let token = token.trim_matches(|c: char| c == '-' || c == '_');
    if COMMENT_TOKENS.contains(&token) {
        return true;
    }
    for stem in COMMENT_STEMS {
        if let Some(rest) = token.strip_prefix(stem).and_then(|r| r.strip_prefix(['-', '_'])) {
            // comment-123, comment-item, comment-thread: one comment; comment-body: a part.
            return !COMMENT_PART_WORDS.iter().any(|p| rest.starts_with(p));
        }
        if token.ends_with(&format!("-{stem}")) || token.ends_with(&format!("_{stem}")) {
            return true;
        }
    }
    false
}

pub(super) fn comments<D: Dom>(dom: &D, arena: &Arena<D::Node>, options: &ObserveOptions) -> Vec<Comment> {
    let is_comment = |i: usize| {
        let n = &arena.nodes[i];
        !n.skip
            && matches!(n.tag.as_str(), "div" | "li" | "article" | "section" | "tr")
            && (n.role == "comment" || n.class_id.split_whitespace().any(is_comment_token))
            && n.text_len >= COMMENT_MIN_CHARS
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
        let author = field(COMMENT_AUTHOR_WORDS, "address");
        let age = field(COMMENT_AGE_WORDS, "time");
        let score = field(COMMENT_SCORE_WORDS, "data");
        let body = field(COMMENT_BODY_WORDS, "blockquote");
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

pub(super) fn body_text_excluding_nested<N>(
    arena: &Arena<N>,
    index: usize,
    is_comment: &dyn Fn(usize) -> bool,
) -> String {
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

pub(super) fn top_discussions(items: &[Item]) -> Vec<Discussion> {
    let mut ranked: Vec<&Item> = items.iter().filter(|i| i.comment_count.is_some()).collect();
    ranked.sort_by_key(|i| std::cmp::Reverse(i.comment_count));
    ranked
        .into_iter()
        .take(TOP_DISCUSSIONS)
        .map(|i| Discussion { title: i.title.clone(), url: i.url.clone(), comment_count: i.comment_count.unwrap_or(0) })
        .collect()
}
