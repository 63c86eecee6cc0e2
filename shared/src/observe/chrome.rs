//! Stage 2, chrome: which elements are navigation, headers, footers, sidebars, share bars,
//! overlays and other page furniture ([`super::words::CHROME_WORDS`], roles, landmarks), and the
//! class-name weights the scorer adds. Hands the primary stage a `chrome` flag per element.

use super::arena::{Arena, hint_words};
use super::score::paragraph_text;
use super::words::*;

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
