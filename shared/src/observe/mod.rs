//! `browser.observe_dom`: what Laika sees on a page, computed once for any [`Dom`].
//!
//! The same code runs over the live page (web-sys, in the extension) and over an HTML string
//! (scraper, natively), so the CLI, the tests and the benchmarks measure exactly what users get.
//!
//! The stages, in the order the data flows:
//!
//! 1. [`arena`]: the DOM copied into a flat arena (iteratively: pages nest deeply), with what is
//!    never text (scripts, hidden nodes) marked;
//! 2. [`chrome`]: what is page furniture (navigation, footers, sidebars, share bars, overlays);
//! 3. [`score`]: containers scored by the paragraphs they hold (Readability's scoring, adjusted);
//! 4. [`primary`]: the best container and its related siblings as the primary content, widened
//!    and narrowed ([`primary::Page`]), retried with fewer rules when it reads short;
//! 5. [`clutter`]: link lists, related stories, credits and pitches inside it dropped;
//! 6. [`text`]: its text written with structure prefixes (`H2:`, `- `, `> `, `Code:` …) and cut
//!    into chunks;
//! 7. [`assemble`]: the observation, with what the side stages read from the same arena:
//!    [`title`] (titles and outline), [`elements`] (interactive elements and the field kind the
//!    Policy Gate needs), [`items`] (list items and comments), [`signals`] (paywalls, walls).
//!
//! Every word list and threshold the heuristics use is in [`words`], with where it came from.
//!
//! Redaction happens here, at the source: form values are never read (the [`Dom`] cannot give
//! them), hidden inputs are not listed, and credential-like query parameters are stripped from
//! every URL ([`redact`]).

mod arena;
mod assemble;
mod chrome;
mod clutter;
mod elements;
mod items;
mod primary;
mod redact;
mod score;
mod signals;
mod text;
mod title;
mod words;

pub use elements::field_kind;
pub use redact::redact_url;

use arena::Arena;
use primary::Page;
use words::{STYLED_AWAY_MIN_CHARS, STYLED_AWAY_RETRY_BELOW, STYLED_AWAY_SHOWN_FEW};

use crate::dom::Dom;
use crate::observation::Observation;
use crate::tools::ObserveDomArgs;
use serde::Serialize;

/// Budgets of one observation (`browser.observe_dom`'s options).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObserveOptions {
    pub max_chars: usize,
    pub max_elements: usize,
    pub max_blocks: usize,
    pub max_primary_chars: usize,
    pub max_outline: usize,
    pub max_outline_chars: usize,
    pub max_items: usize,
    pub max_item_chars: usize,
    pub max_comments: usize,
    pub max_comment_chars: usize,
    pub root_handle_id: Option<String>,
    /// Character offset into the page text where this observation's text starts.
    pub cursor: usize,
}

impl Default for ObserveOptions {
    /// The sidecar's defaults (laika-tools.md: `maxChars: 12000`, `maxElements: 160`).
    fn default() -> Self {
        ObserveOptions {
            max_chars: 12_000,
            max_elements: 160,
            max_blocks: 400,
            max_primary_chars: 4_000,
            max_outline: 60,
            max_outline_chars: 200,
            max_items: 50,
            max_item_chars: 400,
            max_comments: 50,
            max_comment_chars: 800,
            root_handle_id: None,
            cursor: 0,
        }
    }
}

impl ObserveOptions {
    /// No budget at all: the whole page (for benchmarks and whole-page reads).
    pub fn unbounded() -> Self {
        ObserveOptions {
            max_chars: usize::MAX,
            max_elements: usize::MAX,
            max_blocks: usize::MAX,
            max_primary_chars: usize::MAX,
            max_outline: usize::MAX,
            max_outline_chars: usize::MAX,
            max_items: usize::MAX,
            max_item_chars: usize::MAX,
            max_comments: usize::MAX,
            max_comment_chars: usize::MAX,
            root_handle_id: None,
            cursor: 0,
        }
    }

    /// The options a model's `browser.observe_dom` call asks for, on top of the defaults.
    pub fn from_args(args: &ObserveDomArgs) -> Self {
        let mut options = ObserveOptions::default();
        let set = |slot: &mut usize, value: Option<u32>| {
            if let Some(value) = value {
                *slot = value as usize;
            }
        };
        set(&mut options.max_chars, args.max_chars);
        set(&mut options.max_elements, args.max_elements);
        set(&mut options.max_blocks, args.max_blocks);
        set(&mut options.max_primary_chars, args.max_primary_chars);
        set(&mut options.max_outline, args.max_outline);
        set(&mut options.max_outline_chars, args.max_outline_chars);
        set(&mut options.max_items, args.max_items);
        set(&mut options.max_item_chars, args.max_item_chars);
        set(&mut options.max_comments, args.max_comments);
        set(&mut options.max_comment_chars, args.max_comment_chars);
        options.root_handle_id = args.root_handle_id.clone();
        options.cursor = args.cursor.map_or(0, |c| usize::try_from(c).unwrap_or(usize::MAX));
        options
    }
}

/// One step of the chunked read: `{maxChars, cursor}` → `{observation, cursor, done}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChunkedObservation {
    pub observation: Observation,
    /// Where the next chunk starts (character offset into the page text).
    pub cursor: usize,
    pub done: bool,
    /// Characters of page text in all.
    pub total_chars: usize,
}

/// Observes the page. `text` holds the whole page text from `options.cursor`, cut to
/// `max_chars` on a line boundary where one is near.
pub fn observe<D: Dom>(dom: &D, url: &str, options: &ObserveOptions) -> Observation {
    observe_chunk(dom, url, options).observation
}

/// Observes the page and says where the next chunk of text starts.
pub fn observe_chunk<D: Dom>(dom: &D, url: &str, options: &ObserveOptions) -> ChunkedObservation {
    let mut arena = Arena::build(dom, options.root_handle_id.as_deref(), false);
    if arena.needs_noscript_fallback() {
        arena = Arena::build(dom, options.root_handle_id.as_deref(), true);
    }
    let mut page = Page::analyse(&arena, url);
    // Content in a wrapper hidden by inline style (shown later by a script): when the visible
    // page gives little, read the styled-away parts too and keep that if it gives far more.
    let shown = page.text_len(&arena);
    if shown < STYLED_AWAY_RETRY_BELOW {
        let unstyled = Arena::build_with(dom, options.root_handle_id.as_deref(), arena.show_noscript, true);
        let retry = Page::analyse(&unstyled, url);
        let got = retry.text_len(&unstyled);
        if got >= STYLED_AWAY_MIN_CHARS && (shown < STYLED_AWAY_SHOWN_FEW || got >= shown * 3) {
            arena = unstyled;
            page = retry;
        }
    }
    page.observation(dom, &arena, url, options)
}

/// The main text as a reader reads it: the observation's text without its structure prefixes
/// (`H2: `, `- `, `> `, `Code: ` …), which are layout hints for the model, not page words.
pub fn main_text(observation: &Observation) -> String {
    const LABELS: &[&str] =
        &["H1: ", "H2: ", "H3: ", "H4: ", "H5: ", "H6: ", "Code: ", "Caption: ", "Summary: ", "Term: ", "Definition: "];
    let mut out = String::with_capacity(observation.text.len());
    for line in observation.text.lines() {
        let mut rest = line;
        while let Some(after) = rest.strip_prefix("> ") {
            rest = after;
        }
        let trimmed = rest.trim_start_matches(' ');
        if let Some(item) = trimmed.strip_prefix("- ") {
            rest = item;
        }
        if let Some(label) = LABELS.iter().find(|l| rest.starts_with(**l)) {
            rest = &rest[label.len()..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// Whether a heading is the page's title: one holds the other; a title inside a heading must
/// be at least half of it (a card titled "News" is not the heading "News from the council").
pub(super) fn same_title(heading: &str, title: &str) -> bool {
    let (heading, title) = (heading.trim().to_lowercase(), title.trim().to_lowercase());
    !heading.is_empty()
        && !title.is_empty()
        && (title.contains(&heading) || (heading.contains(&title) && title.len() * 2 >= heading.len()))
}
