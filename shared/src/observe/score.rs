//! Stage 3, scoring: Readability's content score, adjusted. Paragraph-like blocks outside chrome
//! give points to their parent and grandparent; the best-scoring container is the primary
//! candidate, and siblings that score close to it or read as prose join it. The measures the
//! other stages share live here too: paragraph text per subtree, prose, a class's weight.

use super::arena::{Arena, ArenaNode, collapsed_len, hint_words, inherited};
use super::words::*;
use std::collections::HashMap;

pub(super) fn initial_score(tag: &str) -> f64 {
    TAG_SCORES.iter().find(|(tags, _)| tags.contains(&tag)).map_or(0.0, |&(_, score)| score)
}

pub(super) fn is_paragraph_like<N>(arena: &Arena<N>, index: usize) -> bool {
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

pub(super) fn score_candidates<N>(arena: &Arena<N>, chrome: &[bool]) -> HashMap<usize, f64> {
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
        if length < PARAGRAPH_MIN_CHARS {
            continue;
        }
        let score = 1.0 + commas as f64 + (length / SCORE_CHARS_PER_POINT).min(SCORE_MAX_LENGTH_POINTS) as f64;
        let scored = first_scored.into_iter().chain(first_scored.into_iter().flat_map(|f| arena.ancestors(f)));
        for (level, ancestor) in scored.take(SCORE_ANCESTOR_LEVELS).enumerate() {
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
pub(super) fn loose_text<N>(arena: &Arena<N>, index: usize) -> (usize, usize) {
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

pub(super) fn pick_primary<N>(
    arena: &Arena<N>,
    scores: &HashMap<usize, f64>,
    chrome: &[bool],
    related: &[bool],
) -> usize {
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
    let strong: Vec<usize> = scores
        .iter()
        .filter(|(i, s)| **i != top && **s >= top_score * ALTERNATIVE_SCORE_SHARE)
        .map(|(i, _)| *i)
        .collect();
    if strong.len() >= ALTERNATIVE_MIN_COUNT {
        for ancestor in arena.ancestors(top).collect::<Vec<_>>() {
            if ancestor == arena.body || related[ancestor] {
                break;
            }
            let holding = strong.iter().filter(|&&s| arena.contains(ancestor, s)).count();
            if holding >= ALTERNATIVE_MIN_COUNT {
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
        if parents > 0.0 && own / parents >= CLIMB_TEXT_SHARE && !chrome[parent] {
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
pub(super) fn related_siblings<N>(
    arena: &Arena<N>,
    scores: &HashMap<usize, f64>,
    chrome: &[bool],
    excerpts: &[bool],
    primary: usize,
) -> Vec<usize> {
    let Some(parent) = arena.nodes[primary].parent else { return vec![primary] };
    let top_score = scores.get(&primary).copied().unwrap_or(0.0);
    let threshold = (top_score * SIBLING_SCORE_SHARE).max(SIBLING_MIN_SCORE);
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
                if SIBLING_EXCERPT_SHARE.reached(excerpt_text, node.text_len) {
                    return false;
                }
            }
            let mut bonus = 0.0;
            if !primary_class.is_empty() && node.class == *primary_class {
                bonus += top_score * SIBLING_SCORE_SHARE;
            }
            if scores.get(&sibling).is_some_and(|s| s + bonus >= threshold) {
                return true;
            }
            if node.tag == "p" {
                let density = arena.link_density(sibling);
                let plain = arena.plain_text(sibling);
                return (node.text_len > SIBLING_PARAGRAPH_CHARS && density < SIBLING_PARAGRAPH_LINK_DENSITY)
                    || (node.text_len > 0 && density == 0.0 && plain.ends_with(['.', '!', '?']));
            }
            false
        })
        .collect()
}

pub(super) fn class_weight<N>(arena: &Arena<N>, node: &ArenaNode<N>) -> f64 {
    let mut weight = 0.0;
    if hint_words(arena, node).any(|t| has_word(t, NEGATIVE_WORDS)) {
        weight -= CLASS_WEIGHT;
    }
    // Utility classes (`text-muted`, `text-center`) style text; they do not say "this is the
    // text", and a muted byline or caption must not win the content on them.
    let mut named = node.class_id.split_whitespace().filter(|t| !t.starts_with("text-"));
    if named.any(|token| has_word(token, POSITIVE_WORDS)) {
        weight += CLASS_WEIGHT;
    }
    weight
}

/// Characters of paragraph text (what content scoring counts) in each subtree.
pub(super) fn paragraph_text<N>(arena: &Arena<N>) -> Vec<usize> {
    let mut lengths = vec![0usize; arena.nodes.len()];
    for index in (0..arena.nodes.len()).rev() {
        let node = &arena.nodes[index];
        if !node.skip && node.text_len >= PARAGRAPH_MIN_CHARS && is_paragraph_like(arena, index) && lengths[index] == 0
        {
            lengths[index] = node.text_len;
        }
        if let Some(parent) = node.parent {
            lengths[parent] += lengths[index];
        }
    }
    lengths
}

/// Characters in real paragraphs (a `p` of 80+ characters with few links) under a node.
pub(super) fn prose<N>(arena: &Arena<N>, root: usize) -> usize {
    arena
        .subtree(root)
        .into_iter()
        .filter(|&i| {
            let n = &arena.nodes[i];
            n.tag == "p"
                && !n.skip
                && n.text_len >= PROSE_PARAGRAPH_MIN_CHARS
                && arena.link_density(i) < PROSE_MAX_LINK_DENSITY
        })
        .map(|i| arena.nodes[i].text_len)
        .sum()
}
