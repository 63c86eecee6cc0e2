//! Stage 2, chrome: which elements are navigation, headers, footers, sidebars, share bars,
//! overlays and other page furniture ([`super::words::CHROME_WORDS`], roles, landmarks), and the
//! class-name weights the scorer adds. Hands the primary stage a `chrome` flag per element.

use super::*;

pub(super) fn has_word(haystack: &str, words: &[&str]) -> bool {
    words.iter().any(|w| haystack.contains(w))
}

/// Whether a class or id names one of `words` as a whole part (`faq__answer`, `cookie-banner`,
/// `onetrust-consent-sdk`), not inside a longer word (`unanswered`) nor as a taxonomy term of
/// the page (`category-cookies`, `tag-reviews`, `node--type-reviews`).
pub(super) fn names_part(class_id: &str, words: &[&str]) -> bool {
    class_id.split_whitespace().any(|token| {
        let taxonomy = token.starts_with("category-") || token.starts_with("tag-") || token.contains("type-");
        !taxonomy && token.split(['-', '_']).any(|part| words.contains(&part))
    })
}

pub(super) fn mark_chrome<N>(arena: &Arena<N>, ignore_class_names: bool) -> Vec<bool> {
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
        let mut holds_the_content = page_paragraphs >= CHROME_AS_CONTENT_PAGE_PARAGRAPHS
            && CHROME_AS_CONTENT_SHARE.reached(paragraphs[i], page_paragraphs)
            && (node.tag == "form" || arena.link_density(i) < CHROME_AS_CONTENT_MAX_LINK_DENSITY);
        // A box only named like chrome ("pane-header-alignment", "elementor-widget-container")
        // that holds 500+ characters of paragraph text with few links is text, not a menu,
        // header or promo; but comments, reviews, related stories, consent banners and
        // newsletter boxes are written in paragraphs too. (Overlays found with class names
        // ignored stay chrome.)
        if !ignore_class_names
            && !by_tag
            && !by_role
            && paragraphs[i] >= NAMED_CHROME_TEXT_CHARS
            && arena.link_density(i) < NAMED_CHROME_MAX_LINK_DENSITY
            && !has_word(&node.class_id, PARAGRAPHED_CHROME_WORDS)
        {
            holds_the_content = true;
        }
        // A consent panel or popup is chrome however much of the page's prose it holds: the
        // cookie preferences of a page of linked cards are its only paragraphs. So are the
        // customer reviews under a product, whose own text is a few short blocks (WCXB +2.4
        // page points; comments and community words too: -2.0, a forum's posts are its page).
        if names_part(&node.class_id, OVERLAY_WORDS) || names_part(&node.class_id, REVIEW_WORDS) {
            holds_the_content = false;
        }
        // A sidebar both tagged or roled as chrome and named so ("aside.widget", "complementary
        // widget-area") is chrome however much teaser text it holds.
        if (by_tag || by_role) && by_name {
            holds_the_content = false;
        }
        // Chrome by tag or role (not a page-wide <form>) is the page only when it holds most of
        // its paragraphs: a related-stories aside beside a short article holds 40% or more.
        if (by_role || (by_tag && node.tag != "form"))
            && !CHROME_BY_TAG_CONTENT_SHARE.reached(paragraphs[i], page_paragraphs)
        {
            holds_the_content = false;
        }
        chrome[i] = (by_tag || by_role || by_name) && !holds_the_content;
    }
    chrome
}

/// Embedded social posts and the boxes wrapping them ("social-media-embed"): a tweet or an
/// Instagram post the story quotes is its text, whatever the wrapper's name says. The
/// embedding code gives each post a `blockquote` of a known class; a wrapper holds little more.
pub(super) fn embedded_posts<N>(nodes: &[ArenaNode<N>], body: usize) -> Vec<bool> {
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

/// The class names of a page builder or design system: classes on three or more elements whose
/// outermost ones hold half of the page's text or more ("elementor-widget-container",
/// "wp-block-group"). Such a class is on the article and the menu alike, so a chrome word in it
/// ("widget", "header") says nothing of what one element holds. Classes of comments, reviews and
/// related stories are never builder classes: a long thread is most of its page and still not
/// the article.
pub(super) fn builder_classes<N>(nodes: &[ArenaNode<N>], body: usize) -> HashSet<String> {
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

/// The class and id words of an element that may hint at what it holds: neither a utility
/// class ([`is_utility_class`]) nor a builder class or a variant of one
/// ([`Arena::is_builder_class`]).
pub(super) fn hint_words<'a, N>(arena: &'a Arena<N>, node: &'a ArenaNode<N>) -> impl Iterator<Item = &'a str> {
    node.class_id.split_whitespace().filter(|t| !is_utility_class(t) && !arena.is_builder_class(t))
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

/// A utility class of a CSS framework (Tailwind's `md:hidden`, `overflow-hidden`,
/// `bg-[url(...)]`): it styles a box and says nothing of what the box holds, so a chrome word
/// inside it ("hidden", "media", "scroll") is no sign of chrome.
pub(super) fn is_utility_class(token: &str) -> bool {
    token.contains(':') || token.contains('[') || token.starts_with("overflow-")
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
