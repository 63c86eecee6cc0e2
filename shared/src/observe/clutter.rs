//! Stage 5, clutter inside the content: link lists, related-story blocks, credits, UI labels,
//! metadata lines, repeated blocks and the closing sign-up pitch are marked `dropped`, so the
//! text stage leaves them out.

use super::arena::{Arena, ArenaNode, inherited};
use super::score::{class_weight, prose};
use super::words::*;
use std::collections::HashMap;

/// Marks clutter inside the content roots (Readability's conditional cleaning, simplified):
/// containers that are mostly links, or whose class says chrome and whose score does not
/// outweigh it. Prose with many commas is always kept.
pub(super) fn drop_clutter<N>(
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
            if n.text_len < METADATA_BLOCK_MAX_CHARS && (is_metadata(n) || mostly_time(arena, i)) {
                metadata_like[i] = true;
                *metadata_blocks.entry(kind).or_default() += 1;
            }
        }
    }
    drop_repeated_blocks(arena, roots, &mut dropped);
    for &root in roots {
        // Link-dense blocks are clutter beside prose, but on a page of cards (a link-dense
        // content root with little prose) they are the content.
        let card_page =
            arena.link_density(root) > CARD_PAGE_MIN_LINK_DENSITY && prose(arena, root) < CARD_PAGE_MAX_PROSE_CHARS;
        // One of four or more blocks of a kind (tag and class) with text of its own beside its
        // links is an entry of the page's list (a linked title and its snippet, a product and
        // its price), not a list of links; nor is the list holding four or more of them.
        let is_entry = |i: usize| {
            let n = &arena.nodes[i];
            !n.class.is_empty()
                && n.text_len >= n.link_len + ENTRY_OWN_TEXT_CHARS
                && kinds.get(&(root, n.tag.as_str(), n.class.as_str())).is_some_and(|&k| k >= ENTRY_MIN_KIND_COUNT)
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
            if node.tag_links >= 2 && node.text_len <= node.tag_link_len + TAG_LIST_EXTRA_CHARS + 2 * node.tag_links {
                dropped[index] = true;
                continue;
            }
            // A photo credit, or a control's label left in the text ("Advertisement", "Share",
            // "Like this:"): words about the page, not of it.
            if !node.tag.is_empty()
                && node.text_len > 0
                && node.text_len <= LABEL_BLOCK_MAX_CHARS
                && is_credit_or_label(arena, index)
            {
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
            if node.commas >= PROSE_MIN_COMMAS || node.text_len * 2 > arena.nodes[root].text_len {
                continue;
            }
            // The poster's card beside each post (name, rank, join date, post count) or a
            // signature: short blocks the class names as the user's, not the message.
            if node.text_len < PROFILE_BLOCK_MAX_CHARS
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
                && metadata_blocks
                    .get(&(root, node.tag.as_str(), node.class.as_str()))
                    .is_some_and(|&n| n <= METADATA_KIND_MAX_COUNT)
            {
                dropped[index] = true;
                continue;
            }
            let weight = class_weight(arena, node);
            let density = arena.link_density(index);
            let score = scores.get(&index).copied().unwrap_or(0.0);
            let entries =
                is_entry(index) || node.children.iter().filter(|&&c| is_entry(c)).count() >= ENTRY_MIN_KIND_COUNT;
            // A link in a sentence wrapped in a span ("reported that <span class=link><a>…</a></span>
            // for his role") is the sentence's words.
            let in_sentence = || {
                node.tag == "span"
                    && arena.block_of(index).is_some_and(|block| {
                        node.text_len * 2 < arena.nodes[block].text_len
                            && arena.link_density(block) <= SENTENCE_LINK_DENSITY
                    })
            };
            let link_list = !card_page
                && !entries
                && ((weight < CLASS_WEIGHT && density > LINK_LIST_DENSITY) || (density > LINK_LIST_DENSITY_ANY_CLASS))
                && !in_sentence();
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
pub(super) fn drop_repeated_blocks<N>(arena: &Arena<N>, roots: &[usize], dropped: &mut [bool]) {
    let mut by_length: HashMap<usize, Vec<usize>> = HashMap::new();
    for &root in roots {
        for index in arena.subtree(root) {
            let node = &arena.nodes[index];
            if index != root && !node.skip && !node.tag.is_empty() && node.text_len >= REPEATED_BLOCK_MIN_CHARS {
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
pub(super) fn holds_code<N>(arena: &Arena<N>, index: usize) -> bool {
    arena.subtree(index).into_iter().any(|i| matches!(arena.nodes[i].tag.as_str(), "pre" | "code"))
}

/// Whether an element's first text is a heading, or a short label, that announces related content.
pub(super) fn opens_with_related_heading<N>(arena: &Arena<N>, index: usize) -> bool {
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
    if node.tag == "h1" || node.text_len > RELATED_LABEL_MAX_CHARS {
        return false;
    }
    let text = arena.plain_text(first).to_lowercase();
    let text = text.trim().trim_start_matches(['#', '-', '–', ' ']);
    // A label that is not a heading ("<div class=title>More Great Stories</div>") announces the
    // block only when it is little more than the phrase: a leaf of prose may open with "Related".
    let is_heading = is_heading_tag(&node.tag);
    RELATED_HEADINGS.iter().any(|h| {
        text.starts_with(h) && (is_heading || text.chars().count() <= h.chars().count() + RELATED_LABEL_EXTRA_CHARS)
    }) || (is_heading && names_more_stories(text))
}

/// "More blog stories", "More tech news", "More world headlines": "more", at most two words,
/// then a word for stories.
pub(super) fn names_more_stories(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.len() <= MORE_STORIES_MAX_WORDS
        && words.first() == Some(&"more")
        && words.last().is_some_and(|w| STORY_WORDS.contains(&w.trim_end_matches([':', '.'])))
}

/// Containers that open with a related-content heading, and everything inside them.
pub(super) fn related_blocks<N>(arena: &Arena<N>) -> Vec<bool> {
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

/// A photo credit: a short element the class names so (`credit`, `image-credit`), or whose text
/// (`text`, lower case) starts as credits do.
pub(super) fn is_credit<N>(node: &ArenaNode<N>, text: &str) -> bool {
    (has_word(&node.class_id, CREDIT_WORDS) && !has_word(&node.class_id, CONTENT_WORDS))
        || CREDIT_STARTS.iter().any(|start| text.starts_with(start))
}

/// A photo credit or a control's label, the element's text read once for both tests.
pub(super) fn is_credit_or_label<N>(arena: &Arena<N>, index: usize) -> bool {
    let node = &arena.nodes[index];
    let text = arena.plain_text(index).to_lowercase();
    is_credit(node, &text) || is_ui_label(node, &text)
}

/// Whether a short element's whole text (`text`, lower case) is such a label.
pub(super) fn is_ui_label<N>(node: &ArenaNode<N>, text: &str) -> bool {
    node.text_len <= UI_LABEL_MAX_CHARS
        && UI_LABELS.contains(&text.trim().trim_end_matches(['.', ':', '…', ' ']).trim())
}

pub(super) fn is_metadata<N>(node: &ArenaNode<N>) -> bool {
    has_word(&node.class_id, METADATA_WORDS) && !has_word(&node.class_id, METADATA_EXCEPT_WORDS)
}

/// Whether a `<time>` element holds most of a block's text.
pub(super) fn mostly_time<N>(arena: &Arena<N>, index: usize) -> bool {
    let node = &arena.nodes[index];
    node.text_len > 0
        && arena
            .subtree(index)
            .into_iter()
            .any(|i| arena.nodes[i].tag == "time" && arena.nodes[i].text_len * 2 >= node.text_len)
}

/// The publisher's closing pitch: the run of short blocks (under 400 characters) among the
/// content's last three lines that ask the reader to sign up, subscribe or follow ("Get the
/// latest updates right in your inbox", "Join our Space Forums", "Follow us on Twitter"). It
/// is an advertisement for the site, not the page's text. Only at the end, and only in words
/// the rest of the content does not use: an article about newsletters says "subscribe"
/// throughout. Zyte +0.34 page points (13 pages up, none down), WCXB +0.11 (a service page's
/// own "sign up!" is the one real loss).
pub(super) fn closing_pitches<N>(arena: &Arena<N>, roots: &[usize], dropped: &[bool]) -> Vec<usize> {
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
            if last_blocks.len() == PITCH_LINES {
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
    if rest.len() < PITCH_REST_MIN_WORDS {
        return Vec::new();
    }
    let rest = format!(" {} ", rest.join(" "));
    let mut pitches = Vec::new();
    for block in last_blocks {
        let is_pitch = arena.nodes[block].text_len < PITCH_MAX_CHARS
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
pub(super) fn words_of(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '@' && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The phrases in a line that ask the reader to sign up, subscribe or follow the site.
pub(super) fn sign_up_phrases(text: &str) -> Vec<String> {
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
pub(super) fn first_block<N>(arena: &Arena<N>, roots: &[usize], dropped: &[bool]) -> Option<usize> {
    let left_out = inherited(arena, dropped);
    let first_text =
        roots.iter().flat_map(|&root| arena.subtree(root)).find(|&i| !left_out[i] && arena.is_shown_text(i))?;
    arena.block_of(first_text).filter(|&block| roots.iter().any(|&root| arena.contains(root, block)))
}
