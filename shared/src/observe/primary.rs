//! Stage 4, the primary content ([`Page`]): from the scored candidate, widened to the siblings
//! that belong to the content and narrowed to a declared `<article>` where there is one, with
//! teasers of other pages set aside; retried with fewer rules when a reading leaves too little
//! text, as Readability does. Hands the clutter stage the content roots.

use super::arena::{Arena, collapsed_len, inherited};
use super::chrome::mark_chrome;
use super::clutter::{drop_clutter, related_blocks};
use super::score::{is_paragraph_like, loose_text, pick_primary, prose, related_siblings, score_candidates};
use super::text::{TextContext, TextWriter, write_text};
use super::words::*;
use std::collections::{HashMap, HashSet};

pub(super) struct Page {
    /// Elements that are chrome (their subtrees are left out of the primary text).
    pub(super) chrome: Vec<bool>,
    /// Chrome, plus the clutter found inside the content (link lists, share boxes): what the
    /// primary text leaves out.
    pub(super) dropped: Vec<bool>,
    /// The primary content container.
    pub(super) primary: usize,
    /// Siblings of the primary container that belong to the content, in document order,
    /// with the primary itself.
    pub(super) content_roots: Vec<usize>,
}

impl Page {
    /// Finds the content; when that leaves little text, tries again with fewer rules, as
    /// Readability does: class names are hints that page builders defeat ("elementor-widget"
    /// holding the article), and clutter rules can strip a page made of short cards.
    pub(super) fn analyse<N: Clone>(arena: &Arena<N>, _url: &str) -> Page {
        let related = related_blocks(arena);
        let excerpts = excerpts(arena);
        let teasers = teasers(arena, &excerpts);
        let first = Page::attempt(arena, Strictness::Full, &related, &teasers, &excerpts);
        let first_len = first.text_len(arena);
        if first_len >= ENOUGH_TEXT_CHARS {
            return first;
        }
        let mut best = (first_len, first);
        for strictness in [Strictness::NoClassNames, Strictness::NoClassNamesNoClutter] {
            let page = Page::attempt(arena, strictness, &related, &teasers, &excerpts);
            let len = page.text_len(arena);
            if len >= ENOUGH_TEXT_CHARS {
                return page;
            }
            if len > best.0 {
                best = (len, page);
            }
        }
        best.1
    }

    /// One reading of the page at a strictness; `related` marks the related-content blocks
    /// ([`related_blocks`]), `teasers` the teasers of other pages ([`teasers`]) and `excerpts`
    /// the cut-short excerpts among them ([`excerpts`]), all the same for every attempt.
    pub(super) fn attempt<N: Clone>(
        arena: &Arena<N>,
        strictness: Strictness,
        related: &[bool],
        teasers: &[bool],
        excerpts: &[bool],
    ) -> Page {
        let chrome = mark_chrome(arena, strictness != Strictness::Full);
        let scores = score_candidates(arena, &chrome);
        let primary = pick_primary(arena, &scores, &chrome, related);
        let content_roots = related_siblings(arena, &scores, &chrome, excerpts, primary);
        let content_roots = repeated_items(arena, &chrome, primary).unwrap_or(content_roots);
        let content_roots = match arena.declared_article {
            Some(article) if content_roots.iter().any(|&r| arena.contains(r, article)) => {
                narrow_to_declared(arena, &chrome, article, content_roots)
            }
            // The content found lies inside the declared article: the article is the content.
            Some(article) if content_roots.iter().all(|&r| arena.contains(article, r)) => vec![article],
            _ => widen(arena, &chrome, teasers, primary, content_roots),
        };
        // Narrowed to the declared article: that is the main content element.
        let primary = match content_roots[..] {
            [article] if arena.declared_article == Some(article) => article,
            _ => primary,
        };
        let dropped = if strictness == Strictness::NoClassNamesNoClutter {
            chrome.clone()
        } else {
            drop_clutter(arena, &chrome, &scores, &content_roots, primary, related)
        };
        Page { chrome, dropped, primary, content_roots }
    }

    /// Characters of text the content roots give.
    pub(super) fn text_len<N>(&self, arena: &Arena<N>) -> usize {
        self.write(arena).chars().count()
    }

    pub(super) fn write<N>(&self, arena: &Arena<N>) -> String {
        self.write_leaving_out(arena, &self.dropped)
    }

    pub(super) fn write_leaving_out<N>(&self, arena: &Arena<N>, dropped: &[bool]) -> String {
        let mut writer = TextWriter::new();
        let mut ctx = TextContext { left_out: dropped, list_depth: 0, quote: false };
        for &root in &self.content_roots {
            write_text(arena, root, &mut ctx, &mut writer);
            writer.end_block("");
        }
        writer.out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Strictness {
    /// Every rule.
    Full,
    /// Chrome by tag and role only (class names that merely suggest chrome are ignored).
    NoClassNames,
    /// As above, and no clutter dropped inside the content.
    NoClassNamesNoClutter,
}

/// Visible text outside chrome, per subtree; with `outside_links`, leaving out the text of links.
pub(super) fn non_chrome_text<N>(arena: &Arena<N>, chrome: &[bool], outside_links: bool) -> Vec<usize> {
    let in_link = if outside_links {
        inherited(arena, &arena.nodes.iter().map(|n| n.tag == "a").collect::<Vec<_>>())
    } else {
        vec![false; arena.nodes.len()]
    };
    let mut lengths = vec![0usize; arena.nodes.len()];
    for index in (0..arena.nodes.len()).rev() {
        let node = &arena.nodes[index];
        if node.skip || chrome[index] {
            lengths[index] = 0;
            continue;
        }
        if node.tag.is_empty() && !in_link[index] {
            lengths[index] = collapsed_len(&node.text);
        }
        if let Some(parent) = node.parent {
            lengths[parent] += lengths[index];
        }
    }
    lengths
}

/// Widens the content found when it is only part of the page's own text:
///
/// - When it holds under two thirds of the page's paragraphs (outside chrome and teasers;
///   measured against a half: WCXB +2.8 page points, Zyte unchanged), the text
///   is spread over several containers (an article continued below a table, the posts of a
///   thread beside an AI summary, the sections of a service page or an FAQ): the content is the
///   lowest ancestor holding 80% of them, never wider than the page's `<main>`.
/// - When it lies inside the page's `<main>` and holds under half of main's text outside links,
///   the content is the main.
/// - When it holds under a quarter of the page's non-chrome text (a landing page of many short
///   sections, a listing of short cards), the content is the lowest ancestor that holds most of
///   it.
pub(super) fn widen<N>(
    arena: &Arena<N>,
    chrome: &[bool],
    teasers: &[bool],
    primary: usize,
    roots: Vec<usize>,
) -> Vec<usize> {
    let lengths = non_chrome_text(arena, chrome, false);
    let total = lengths[arena.body];
    let covered: usize = roots.iter().map(|&r| lengths[r]).sum();
    if total == 0 {
        return roots;
    }
    let paragraphs = own_paragraphs(arena, chrome, teasers);
    let page_paragraphs = paragraphs[arena.body];
    let covered_paragraphs: usize = roots.iter().map(|&r| paragraphs[r]).sum();
    if page_paragraphs >= WIDEN_PAGE_PARAGRAPHS && !WIDEN_PARAGRAPH_SHARE.reached(covered_paragraphs, page_paragraphs) {
        return vec![lowest_ancestor_holding(arena, primary, &paragraphs, WIDEN_TO_PARAGRAPH_SHARE, true)];
    }
    // The page's <main> says where its content is: content found inside it that holds under
    // half of its text outside links (one section of a reference page, the intro of a
    // category page above its product grid) is the main, which drop_clutter then clears of
    // link lists and related blocks. Measured against a third and two thirds: WCXB +1.3 and
    // +1.1 page points, a half +1.9.
    // Text outside links, per subtree: one pass, read by the rule below and the prose rule.
    let mut plain: Option<Vec<usize>> = None;
    if let Some(main) =
        arena.ancestors(primary).find(|&a| arena.nodes[a].tag == "main" || arena.nodes[a].role == "main")
        && roots.iter().all(|&r| arena.contains(main, r))
    {
        let plain = plain.get_or_insert_with(|| non_chrome_text(arena, chrome, true));
        let covered_plain: usize = roots.iter().map(|&r| plain[r]).sum();
        if !MAIN_TEXT_SHARE.reached(covered_plain, plain[main]) {
            return vec![main];
        }
    }
    if ENOUGH_TEXT_SHARE.reached(covered, total) {
        return roots;
    }
    // Around an article (real paragraphs, or a long run of text broken by <br>), link text
    // elsewhere (category and archive lists, menus the page did not mark as such) is no reason
    // to widen: only text that is not links.
    if prose(arena, primary) >= ARTICLE_PROSE_CHARS || loose_text(arena, primary).0 >= ARTICLE_PROSE_CHARS {
        let plain = plain.get_or_insert_with(|| non_chrome_text(arena, chrome, true));
        let covered_plain: usize = roots.iter().map(|&r| plain[r]).sum();
        if ENOUGH_TEXT_SHARE.reached(covered_plain, plain[arena.body]) {
            return roots;
        }
    }
    vec![lowest_ancestor_holding(arena, primary, &lengths, WIDEN_TO_TEXT_SHARE, false)]
}

/// The content found holds the article the page declares (`itemprop="articleBody"`): that is
/// the page's own word on where its text is, so the content is not widened to paragraphs
/// elsewhere (a site footer's blurb), and when the declared body is half or more of it, the
/// content is the declared body alone (without the share bar, author box and newsletter pitch
/// the container around it holds). Content found inside the declared body is lifted to all of
/// it (the highlights above the paragraphs) in [`Page::attempt`].
pub(super) fn narrow_to_declared<N>(
    arena: &Arena<N>,
    chrome: &[bool],
    article: usize,
    roots: Vec<usize>,
) -> Vec<usize> {
    let lengths = non_chrome_text(arena, chrome, false);
    let covered: usize = roots.iter().map(|&r| lengths[r]).sum();
    if DECLARED_ARTICLE_SHARE.reached(lengths[article], covered) { vec![article] } else { roots }
}

/// The lowest ancestor of `start` (below `<html>`) whose `amounts` reach `share` (numerator,
/// denominator) of the body's; with `up_to_main`, never wider than a `<main>` (or `role=main`)
/// on the way. The highest one reached when none does.
pub(super) fn lowest_ancestor_holding<N>(
    arena: &Arena<N>,
    start: usize,
    amounts: &[usize],
    share: Share,
    up_to_main: bool,
) -> usize {
    let is_main = |i: usize| arena.nodes[i].tag == "main" || arena.nodes[i].role == "main";
    let total = amounts[arena.body];
    let mut widest = start;
    while let Some(parent) = arena.nodes[widest].parent {
        if arena.nodes[parent].tag == "html" || (up_to_main && is_main(widest)) {
            break;
        }
        widest = parent;
        if share.reached(amounts[widest], total) {
            break;
        }
    }
    widest
}

/// Characters of the page's own paragraphs per subtree: paragraph-like blocks (the outermost
/// of nested ones) of 40+ characters with few links, outside chrome and outside teasers of
/// other pages ([`teasers`]: a story list's excerpts are paragraphs too, but not this page's).
/// 40, not the 80 of a news paragraph: the sections of a landing page or a product page say
/// what they say in a sentence each.
pub(super) fn own_paragraphs<N>(arena: &Arena<N>, chrome: &[bool], teaser: &[bool]) -> Vec<usize> {
    let chrome_below = inherited(arena, chrome);
    let mut lengths = vec![0usize; arena.nodes.len()];
    for index in (0..arena.nodes.len()).rev() {
        let node = &arena.nodes[index];
        if node.skip || chrome_below[index] || teaser[index] {
            continue;
        }
        if node.text_len >= OWN_PARAGRAPH_MIN_CHARS
            && is_paragraph_like(arena, index)
            && !node.parent.is_some_and(|p| is_paragraph_like(arena, p))
            && arena.link_density(index) < OWN_PARAGRAPH_MAX_LINK_DENSITY
        {
            lengths[index] += node.text_len;
        }
        if let Some(parent) = node.parent {
            lengths[parent] += lengths[index];
        }
    }
    lengths
}

/// Teasers of other pages: anything inside a link (a card that is one big link), the
/// [`excerpts`], and cards (under 1,500 characters, up to four levels above the heading) whose
/// heading is a link.
pub(super) fn teasers<N>(arena: &Arena<N>, excerpts: &[bool]) -> Vec<bool> {
    let mut own: Vec<bool> = arena.nodes.iter().zip(excerpts).map(|(n, &excerpt)| n.tag == "a" || excerpt).collect();
    for (index, node) in arena.nodes.iter().enumerate() {
        if is_heading_tag(&node.tag)
            && node.tag != "h1"
            && node.text_len > 0
            && arena.link_density(index) > TEASER_HEADING_LINK_DENSITY
        {
            for ancestor in arena.ancestors(index).take(TEASER_MAX_LEVELS) {
                if ancestor == arena.body || arena.nodes[ancestor].text_len >= TEASER_MAX_CHARS {
                    break;
                }
                own[ancestor] = true;
            }
        }
    }
    inherited(arena, &own)
}

/// Excerpts of other pages: entries that open with a linked title and end in a snippet cut
/// short with an ellipsis, three or more under one parent (a news ticker's or a story list's
/// entries; paragraphs of an article with a link inside stay paragraphs).
pub(super) fn excerpts<N>(arena: &Arena<N>) -> Vec<bool> {
    let mut own = vec![false; arena.nodes.len()];
    let mut excerpt_parents: HashMap<usize, HashSet<usize>> = HashMap::new();
    for (index, node) in arena.nodes.iter().enumerate() {
        let trimmed = node.text.trim_end();
        if !node.tag.is_empty() || node.skip || !(trimmed.ends_with("...") || trimmed.ends_with('…')) {
            continue;
        }
        // The cut snippet is plain text beside the link ("Read more..." is a link's own label).
        if arena.has_ancestor_tag(index, &["a"]) {
            continue;
        }
        if let Some(entry) = arena.ancestors(index).take(EXCERPT_MAX_LEVELS).find(|&a| {
            let n = &arena.nodes[a];
            n.link_len >= EXCERPT_MIN_LINK_CHARS && n.text_len < EXCERPT_MAX_CHARS
        }) && opens_with_link(arena, entry)
            && let Some(parent) = arena.nodes[entry].parent
        {
            excerpt_parents.entry(parent).or_default().insert(entry);
        }
    }
    for entries in excerpt_parents.into_values().filter(|e| e.len() >= EXCERPT_MIN_ENTRIES) {
        for entry in entries {
            own[entry] = true;
        }
    }
    inherited(arena, &own)
}

/// Whether the first text in `index` is link text (a linked title opening an entry).
pub(super) fn opens_with_link<N>(arena: &Arena<N>, index: usize) -> bool {
    arena
        .subtree(index)
        .into_iter()
        .find(|&i| arena.is_shown_text(i))
        .is_some_and(|first| arena.ancestors(first).take_while(|&a| a != index).any(|a| arena.nodes[a].tag == "a"))
}

/// When the primary (or a near ancestor) is one of several alike siblings holding text (the
/// posts of a thread, the entries of a listing), the content is their parent; but not when the
/// primary is, holds or lies inside the article the page declares (a breaking-news story in one
/// row of headline rows).
pub(super) fn repeated_items<N>(arena: &Arena<N>, chrome: &[bool], primary: usize) -> Option<Vec<usize>> {
    if arena.declared_article.is_some_and(|a| arena.contains(primary, a) || arena.contains(a, primary)) {
        return None;
    }
    let mut current = primary;
    for _ in 0..4 {
        let parent = arena.nodes[current].parent?;
        if parent == arena.body || arena.nodes[parent].tag == "html" || chrome[parent] {
            return None;
        }
        let node = &arena.nodes[current];
        if !node.class.is_empty() || matches!(node.tag.as_str(), "article" | "li") {
            let alike: Vec<usize> = arena.nodes[parent]
                .children
                .iter()
                .copied()
                .filter(|&c| {
                    let n = &arena.nodes[c];
                    !n.skip
                        && !chrome[c]
                        && n.tag == node.tag
                        && n.class == node.class
                        && n.text_len >= REPEATED_ITEM_MIN_CHARS
                })
                .collect();
            let total: usize = alike.iter().map(|&c| arena.nodes[c].text_len).sum();
            if alike.len() >= REPEATED_ITEMS_MIN_COUNT && REPEATED_ITEMS_TEXT_SHARE.reached(total, node.text_len) {
                return Some(vec![parent]);
            }
        }
        current = parent;
    }
    None
}
