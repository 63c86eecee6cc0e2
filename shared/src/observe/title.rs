//! The page's titles (document title, metadata, JSON-LD headline, cleaned of site names) and
//! its outline of headings.

use super::ObserveOptions;
use super::arena::{Arena, collapse_whitespace};
use super::text::truncate_chars;
use super::words::*;
use crate::dom::Dom;
use crate::observation::OutlineEntry;

pub(super) fn first_tag<N>(arena: &Arena<N>, tag: &str) -> Option<usize> {
    arena.nodes.iter().position(|n| n.tag == tag)
}

/// The page title, as Readability finds it: the article's own metadata first (JSON-LD
/// `headline`, Dublin Core, Open Graph, Weibo), then `<title>` cleaned of its site name, then
/// Twitter and Parse.ly titles.
pub(super) fn document_title<D: Dom>(dom: &D, arena: &Arena<D::Node>) -> String {
    let document = cleaned_document_title(arena);
    json_ld_headline(arena, &document)
        .or_else(|| meta_content(dom, arena, TITLE_META_KEYS))
        .or_else(|| Some(document).filter(|t| !t.is_empty()))
        .or_else(|| meta_content(dom, arena, TITLE_META_FALLBACK_KEYS))
        .unwrap_or_default()
}

/// Every title the page gives itself: the one the observation reports ([`document_title`]),
/// and beside it its headline in JSON-LD, its social-card and Dublin Core titles and its
/// `<title>` (cleaned of the site's name). Sites word them differently ("Sweden drops Assange
/// rape investigation" for the card, "Julian Assange: Sweden drops rape investigation" for the
/// page).
pub(super) fn page_titles<D: Dom>(dom: &D, arena: &Arena<D::Node>, reported: &str) -> Vec<String> {
    let document = cleaned_document_title(arena);
    let mut titles: Vec<String> = [
        Some(reported.to_string()),
        json_ld_headline(arena, &document),
        meta_content(dom, arena, &["og:title"]),
        meta_content(dom, arena, &["twitter:title"]),
        meta_content(dom, arena, OTHER_TITLE_META_KEYS),
    ]
    .into_iter()
    .flatten()
    .collect();
    titles.push(document);
    titles.retain(|t| !t.is_empty());
    titles
}

/// The `content` of the first `<meta>` whose `property` or `name` is one of `keys`.
pub(super) fn meta_content<D: Dom>(dom: &D, arena: &Arena<D::Node>, keys: &[&str]) -> Option<String> {
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
pub(super) fn json_ld_headline<N>(arena: &Arena<N>, document_title: &str) -> Option<String> {
    let find_in = |value: &serde_json::Value| find(value, document_title);
    fn find(value: &serde_json::Value, document_title: &str) -> Option<String> {
        match value {
            serde_json::Value::Array(items) => items.iter().find_map(|v| find(v, document_title)),
            serde_json::Value::Object(map) => {
                if let Some(graph) = map.get("@graph").and_then(|g| find(g, document_title)) {
                    return Some(graph);
                }
                let is_article = match map.get("@type") {
                    Some(serde_json::Value::String(t)) => JSON_LD_ARTICLE_TYPES.contains(&t.as_str()),
                    Some(serde_json::Value::Array(ts)) => {
                        ts.iter().any(|t| t.as_str().is_some_and(|t| JSON_LD_ARTICLE_TYPES.contains(&t)))
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
pub(super) fn cleaned_document_title<N>(arena: &Arena<N>) -> String {
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
        if words(&title) < TITLE_MIN_WORDS {
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
            if words(&title) < TITLE_MIN_WORDS {
                title = original[first_colon + 1..].to_string();
            } else if words(&original[..first_colon]) > TITLE_PREFIX_MAX_WORDS {
                title = original.clone();
            }
        }
    } else if original.chars().count() > TITLE_MAX_CHARS || original.chars().count() < TITLE_MIN_CHARS {
        let h1s: Vec<usize> = arena.nodes.iter().enumerate().filter(|(_, n)| n.tag == "h1").map(|(i, _)| i).collect();
        if h1s.len() == 1 {
            title = arena.plain_text(h1s[0]);
        }
    }
    let title = collapse_whitespace(&title);
    let without_separators: String = original.chars().filter(|&c| !is_separator(c)).collect();
    let count = words(&title);
    if count <= TITLE_TOO_FEW_WORDS && (!hierarchical || count + 1 != words(&without_separators)) {
        return original;
    }
    title
}

pub(super) fn outline<N>(arena: &Arena<N>, options: &ObserveOptions) -> Vec<OutlineEntry> {
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
