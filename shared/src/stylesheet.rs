//! Which elements a parsed page's own `<style>` sheets hide, as a desktop browser would compute
//! it: the parsed-document side of [`crate::dom::Dom::is_hidden_by_style`].
//!
//! On the live page the browser answers from computed style. A page read from a string has no
//! layout engine, and inline `style` attributes alone miss what sites hide through classes:
//! the mobile copy of a responsive page beside its desktop copy (Framer's `ssr-variant`, a
//! `.tablet` block), menus and drawers, modal templates. Without this the native reader (CLI,
//! tests, benchmarks) sees such text two or three times where a user sees it once.
//!
//! Scope, chosen for what pages actually do and for speed:
//! - `display` and `visibility` declarations of rules in `<style>` elements (no external sheets:
//!   a saved page rarely has them), inside `@media` blocks that match a 1280×800 screen,
//!   `@supports` and `@layer` blocks.
//! - Selectors whose last compound names a class or an id (`.hidden`, `.nav .drawer`,
//!   `#menu:not(.open)`): those are indexed, so only elements carrying that class or id are
//!   matched. Type-only and attribute-only selectors (`img`, `[hidden]`) are not evaluated.
//! - The cascade: `!important`, then specificity, then order; an inline `display` beats a
//!   normal sheet rule.
//! - Rules for pseudo-elements (`::before`) hide no element and are skipped. Sheets inside
//!   `<noscript>` or `<template>` are not applied (a browser running scripts ignores them).

use cssparser::{
    AtRuleParser, CowRcStr, DeclarationParser, ParseError, Parser, ParserState, QualifiedRuleParser,
    RuleBodyItemParser, RuleBodyParser, StyleSheetParser, Token,
};
use ego_tree::NodeId;
use scraper::{ElementRef, Html, Node, Selector};
use std::collections::HashMap;

/// The viewport the sheets are evaluated for: a laptop browser window.
const VIEWPORT_WIDTH: f64 = 1280.0;
const VIEWPORT_HEIGHT: f64 = 800.0;
/// Pixels in an `em`/`rem` inside a media query (the initial font size).
const FONT_SIZE: f64 = 16.0;
/// More rules than this in a page's sheets are not read (bounds the work on hostile input).
const MAX_RULES: usize = 50_000;

/// What a rule says about showing its elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shows {
    Hidden,
    Shown,
}

/// Rank of a declaration in the cascade: importance, specificity (ids, classes, types), order.
type Rank = (bool, (u32, u32, u32), usize);

/// One complex selector with a `display`/`visibility` declaration.
struct StyleRule {
    selector: String,
    key: Key,
    rank: Rank,
    shows: Shows,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Class(String),
    Id(String),
}

/// The verdict of the page's sheets for each element they show or hide.
#[derive(Default)]
pub(crate) struct SheetVisibility {
    verdicts: HashMap<NodeId, (Rank, Shows)>,
}

impl SheetVisibility {
    /// Reads every applicable `<style>` element of the document and evaluates its rules.
    pub(crate) fn compute(html: &Html) -> SheetVisibility {
        let mut sheets = String::new();
        let mut index: HashMap<Key, Vec<NodeId>> = HashMap::new();
        for node in html.tree.root().descendants() {
            let Some(element) = ElementRef::wrap(node) else { continue };
            let value = element.value();
            if value.name() == "style" && applies(element) {
                sheets.extend(element.text());
                sheets.push('\n');
            }
            for class in value.classes() {
                index.entry(Key::Class(class.to_string())).or_default().push(node.id());
            }
            if let Some(id) = value.id() {
                index.entry(Key::Id(id.to_string())).or_default().push(node.id());
            }
        }
        let mut visibility = SheetVisibility::default();
        if sheets.is_empty() {
            return visibility;
        }
        for rule in style_rules(&sheets) {
            let Some(candidates) = index.get(&rule.key) else { continue };
            let Ok(selector) = Selector::parse(&rule.selector) else { continue };
            for &id in candidates {
                let Some(element) = html.tree.get(id).and_then(ElementRef::wrap) else { continue };
                if !selector.matches(&element) {
                    continue;
                }
                let entry = visibility.verdicts.entry(id).or_insert((rule.rank, rule.shows));
                if rule.rank >= entry.0 {
                    *entry = (rule.rank, rule.shows);
                }
            }
        }
        visibility
    }

    /// Whether the sheets hide the element; `inline_display` is whether its own `style`
    /// attribute sets `display` (which beats any sheet rule that is not `!important`). With no
    /// rule of the page's own for the element, a framework's hiding class (`classes`) decides.
    pub(crate) fn hides(&self, node: NodeId, inline_display: bool, classes: &str) -> bool {
        match self.verdicts.get(&node) {
            Some(((important, _, _), Shows::Hidden)) => *important || !inline_display,
            Some((_, Shows::Shown)) => false,
            None => !inline_display && framework_hidden(classes),
        }
    }
}

/// The hiding utility classes of the common CSS frameworks (Bootstrap's `hide`/`hidden`/`d-none`,
/// Tailwind's `hidden`, Bulma's `is-hidden`, Foundation's `hide`): their sheets are usually
/// external, so the page's own `<style>` elements say nothing about them. A responsive class
/// beside one (`hidden md:block`, `d-none d-lg-flex`) shows the element again on a wide screen.
const HIDING_UTILITIES: &[&str] = &["hide", "hidden", "d-none", "is-hidden", "display-none", "u-hidden"];

fn framework_hidden(classes: &str) -> bool {
    let mut hidden = false;
    for token in classes.split_whitespace() {
        if HIDING_UTILITIES.contains(&token) {
            hidden = true;
        } else if token.contains(':') || (token.starts_with("d-") && token.matches('-').count() >= 2) {
            return false;
        }
    }
    hidden
}

/// Whether a `<style>` element's sheet applies: not inside `<noscript>`/`<template>`, and its
/// `media` attribute (if any) matches the viewport.
fn applies(style: ElementRef<'_>) -> bool {
    let inert =
        style.ancestors().any(|a| matches!(a.value(), Node::Element(e) if matches!(e.name(), "noscript" | "template")));
    !inert && style.value().attr("media").is_none_or(media_matches)
}

/// The rules of a sheet that set `display` or `visibility`, in order, each selector of a
/// selector list on its own.
fn style_rules(css: &str) -> Vec<StyleRule> {
    let mut parser = Parser::new(css);
    let mut rules = RuleCollector { rules: Vec::new(), order: 0 };
    let sheet = StyleSheetParser::new(&mut parser, &mut rules);
    for _ in sheet {
        // Each rule is collected as a side effect; invalid ones are skipped as browsers do.
    }
    rules.rules
}

struct RuleCollector {
    rules: Vec<StyleRule>,
    order: usize,
}

/// The part of an at-rule's prelude the collector needs.
enum AtPrelude {
    /// `@media`, `@supports`, `@layer`…: its rules count when the condition holds.
    Block(bool),
    /// Any other at-rule (`@font-face`, `@keyframes`, `@page`): nothing in it hides elements.
    Other,
}

impl<'i> QualifiedRuleParser<'i> for RuleCollector {
    type Prelude = &'i str;
    type QualifiedRule = ();
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<&'i str, ParseError<()>> {
        Ok(rest_of(input))
    }

    fn parse_block(
        &mut self,
        prelude: &'i str,
        _start: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<(), ParseError<()>> {
        if self.rules.len() >= MAX_RULES {
            return Ok(());
        }
        let mut declarations = DisplayDeclarations { found: None };
        for _ in RuleBodyParser::new(input, &mut declarations) {}
        let Some((shows, important)) = declarations.found else { return Ok(()) };
        for (selector, key, specificity) in complex_selectors(prelude) {
            self.order += 1;
            self.rules.push(StyleRule { selector, key, rank: (important, specificity, self.order), shows });
        }
        Ok(())
    }
}

impl<'i> AtRuleParser<'i> for RuleCollector {
    type Prelude = AtPrelude;
    type AtRule = ();
    type Error = ();

    fn parse_prelude(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i>) -> Result<AtPrelude, ParseError<()>> {
        let condition = rest_of(input);
        Ok(match name.to_ascii_lowercase().as_str() {
            "media" => AtPrelude::Block(media_matches(condition)),
            // A browser that runs the page supports what the page asks for, near enough.
            "supports" | "layer" | "document" | "-moz-document" => AtPrelude::Block(true),
            _ => AtPrelude::Other,
        })
    }

    fn rule_without_block(&mut self, _prelude: AtPrelude, _start: &ParserState) -> Result<(), ()> {
        Ok(())
    }

    fn parse_block(
        &mut self,
        prelude: AtPrelude,
        _start: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<(), ParseError<()>> {
        if let AtPrelude::Block(true) = prelude {
            for _ in StyleSheetParser::new(input, self) {}
        }
        Ok(())
    }
}

/// Reads a rule's declarations, keeping the last `display`/`visibility` verdict.
struct DisplayDeclarations {
    found: Option<(Shows, bool)>,
}

impl<'i> DeclarationParser<'i> for DisplayDeclarations {
    type Declaration = ();
    type Error = ();

    fn parse_value(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
        _start: &ParserState,
    ) -> Result<(), ParseError<()>> {
        let value = rest_of(input).to_ascii_lowercase();
        let important = value.contains("!important");
        let word = value.split(|c: char| c.is_whitespace() || c == '!').find(|w| !w.is_empty()).unwrap_or("");
        let shows = if name.eq_ignore_ascii_case("display") {
            match word {
                "none" => Shows::Hidden,
                // Values that defer to something else say nothing about this element.
                "" | "inherit" | "initial" | "unset" | "revert" | "revert-layer" | "contents" => return Ok(()),
                _ => Shows::Shown,
            }
        } else if name.eq_ignore_ascii_case("visibility") {
            match word {
                "hidden" | "collapse" => Shows::Hidden,
                "visible" => Shows::Shown,
                _ => return Ok(()),
            }
        } else {
            return Ok(());
        };
        // Within one rule a later declaration wins unless an earlier one is !important.
        if !matches!(self.found, Some((_, true))) || important {
            self.found = Some((shows, important));
        }
        Ok(())
    }
}

impl<'i> AtRuleParser<'i> for DisplayDeclarations {
    type Prelude = ();
    type AtRule = ();
    type Error = ();
}

impl<'i> QualifiedRuleParser<'i> for DisplayDeclarations {
    type Prelude = ();
    type QualifiedRule = ();
    type Error = ();
}

impl<'i> RuleBodyItemParser<'i, (), ()> for DisplayDeclarations {
    fn parse_declarations(&self) -> bool {
        true
    }

    // Nested style rules (CSS nesting) are rare in served pages; they are not read.
    fn parse_qualified(&self) -> bool {
        false
    }
}

/// The rest of a parser's input as source text.
fn rest_of<'i>(input: &mut Parser<'i>) -> &'i str {
    let start = input.position();
    while input.next().is_ok() {}
    input.slice_from(start)
}

/// Splits a selector list into its complex selectors, each with the class or id its last
/// compound requires (the index key) and its specificity. Selectors with a pseudo-element, or
/// whose last compound names no class or id, are left out.
fn complex_selectors(list: &str) -> Vec<(String, Key, (u32, u32, u32))> {
    let mut parser = Parser::new(list);
    let mut out = Vec::new();
    loop {
        let start = parser.position();
        let mut key: Option<Key> = None;
        let mut specificity = (0u32, 0u32, 0u32);
        let mut pseudo_element = false;
        let mut after_dot = false;
        let mut colons = 0;
        // Whitespace is a descendant combinator only when another compound follows it.
        let mut after_space = false;
        let mut ended = true;
        while let Ok(token) = parser.next_including_whitespace() {
            let token = token.clone();
            let dot = after_dot;
            after_dot = false;
            let pseudo = colons;
            if !matches!(token, Token::Colon) {
                colons = 0;
            }
            let space = after_space;
            after_space = false;
            if space && !matches!(token, Token::Comma | Token::WhiteSpace(_) | Token::Delim('>' | '+' | '~')) {
                key = None;
            }
            match token {
                Token::Comma => {
                    ended = false;
                    break;
                }
                Token::WhiteSpace(_) => after_space = true,
                Token::Delim('>' | '+' | '~') => key = None,
                Token::Delim('.') => after_dot = true,
                Token::Ident(name) if dot => {
                    specificity.1 += 1;
                    key = Some(Key::Class(name.to_string()));
                }
                Token::IDHash(name) => {
                    specificity.0 += 1;
                    key = Some(Key::Id(name.to_string()));
                }
                Token::Colon => colons += 1,
                Token::Ident(_) | Token::Function(_) if pseudo == 2 => pseudo_element = true,
                Token::Ident(name) if pseudo == 1 => {
                    // The old one-colon spelling of the pseudo-elements.
                    if matches!(&*name.to_ascii_lowercase(), "before" | "after" | "first-line" | "first-letter") {
                        pseudo_element = true;
                    }
                    specificity.1 += 1;
                }
                Token::Function(_) if pseudo == 1 => specificity.1 += 1,
                Token::SquareBracketBlock => specificity.1 += 1,
                Token::Ident(_) => specificity.2 += 1,
                _ => {}
            }
        }
        let text = parser.slice_from(start).trim_end_matches(',').trim();
        if let Some(key) = key
            && !pseudo_element
            && !text.is_empty()
        {
            out.push((text.to_string(), key, specificity));
        }
        if ended {
            return out;
        }
    }
}

/// Whether a media query list matches the viewport (a screen of [`VIEWPORT_WIDTH`] ×
/// [`VIEWPORT_HEIGHT`] pixels, landscape, fine pointer with hover, light scheme, 1 dppx, no
/// reduced motion). Unknown features do not match.
fn media_matches(list: &str) -> bool {
    let list = list.trim();
    if list.is_empty() {
        return true;
    }
    list.split(',').any(|query| query_matches(query.trim()))
}

fn query_matches(query: &str) -> bool {
    let lower = query.to_ascii_lowercase();
    let mut rest = lower.trim();
    let negated = if let Some(after) = rest.strip_prefix("not ") {
        rest = after.trim_start();
        true
    } else {
        if let Some(after) = rest.strip_prefix("only ") {
            rest = after.trim_start();
        }
        false
    };
    let mut matched = true;
    for (n, part) in split_and(rest).into_iter().enumerate() {
        let part = part.trim();
        let ok = if let Some(feature) = part.strip_prefix('(').and_then(|p| p.strip_suffix(')')) {
            feature_matches(feature.trim())
        } else if n == 0 {
            matches!(part, "all" | "screen")
        } else {
            false
        };
        matched &= ok;
    }
    matched != negated
}

/// Splits a media query on its top-level `and`s.
fn split_and(query: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = query.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b' ' if depth == 0 && query[i..].starts_with(" and ") => {
                parts.push(&query[start..i]);
                i += 5;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&query[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

fn feature_matches(feature: &str) -> bool {
    if let Some((name, value)) = feature.split_once(':') {
        let (name, value) = (name.trim(), value.trim());
        return match name {
            "min-width" => length(value).is_some_and(|v| VIEWPORT_WIDTH >= v),
            "max-width" => length(value).is_some_and(|v| VIEWPORT_WIDTH <= v),
            "min-height" => length(value).is_some_and(|v| VIEWPORT_HEIGHT >= v),
            "max-height" => length(value).is_some_and(|v| VIEWPORT_HEIGHT <= v),
            "width" => length(value).is_some_and(|v| v == VIEWPORT_WIDTH),
            "orientation" => value == "landscape",
            "hover" | "any-hover" => value == "hover",
            "pointer" | "any-pointer" => value == "fine",
            "prefers-color-scheme" => value == "light",
            "prefers-reduced-motion" | "prefers-reduced-transparency" => value == "no-preference",
            "prefers-contrast" => value == "no-preference",
            "min-resolution" => resolution(value).is_some_and(|v| v <= 1.0),
            "max-resolution" => resolution(value).is_some_and(|v| v >= 1.0),
            "-webkit-min-device-pixel-ratio" | "min--moz-device-pixel-ratio" => {
                value.parse::<f64>().is_ok_and(|v| v <= 1.0)
            }
            "-webkit-max-device-pixel-ratio" => value.parse::<f64>().is_ok_and(|v| v >= 1.0),
            _ => false,
        };
    }
    // Range syntax: `width >= 768px`, `400px < width <= 1024px`.
    range_matches(feature).unwrap_or(false)
}

fn range_matches(feature: &str) -> Option<bool> {
    let mut tokens: Vec<&str> = Vec::new();
    let mut rest = feature;
    while !rest.is_empty() {
        rest = rest.trim_start();
        let op = ["<=", ">=", "<", ">", "="].into_iter().find(|op| rest.starts_with(op));
        if let Some(op) = op {
            tokens.push(op);
            rest = &rest[op.len()..];
        } else {
            let end = rest.find(['<', '>', '=']).unwrap_or(rest.len());
            tokens.push(rest[..end].trim());
            rest = &rest[end..];
        }
    }
    let value_of = |token: &str| -> Option<f64> {
        match token {
            "width" => Some(VIEWPORT_WIDTH),
            "height" => Some(VIEWPORT_HEIGHT),
            _ => length(token),
        }
    };
    if tokens.len() < 3 || tokens.len().is_multiple_of(2) || !tokens.iter().any(|t| matches!(*t, "width" | "height")) {
        return None;
    }
    let mut ok = true;
    for pair in (0..tokens.len() - 2).step_by(2) {
        let (a, op, b) = (value_of(tokens[pair])?, tokens[pair + 1], value_of(tokens[pair + 2])?);
        ok &= match op {
            "<" => a < b,
            "<=" => a <= b,
            ">" => a > b,
            ">=" => a >= b,
            "=" => a == b,
            _ => return None,
        };
    }
    Some(ok)
}

/// A media-query length in pixels.
fn length(value: &str) -> Option<f64> {
    let value = value.trim();
    let split = value.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(value.len());
    let (number, unit) = value.split_at(split);
    let number: f64 = number.parse().ok()?;
    match unit.trim() {
        "px" | "" => Some(number),
        "em" | "rem" => Some(number * FONT_SIZE),
        _ => None,
    }
}

/// A resolution in dppx.
fn resolution(value: &str) -> Option<f64> {
    let value = value.trim();
    if let Some(n) = value.strip_suffix("dppx").or_else(|| value.strip_suffix('x')) {
        return n.trim().parse().ok();
    }
    if let Some(n) = value.strip_suffix("dpi") {
        return n.trim().parse::<f64>().ok().map(|d| d / 96.0);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hidden(html: &str) -> Vec<String> {
        let html = Html::parse_document(html);
        let visibility = SheetVisibility::compute(&html);
        let mut out: Vec<String> = html
            .tree
            .root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .filter(|e| visibility.hides(e.id(), e.value().attr("style").is_some_and(|s| s.contains("display")), ""))
            .filter_map(|e| e.value().id().map(str::to_string))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn media_queries_match_a_desktop_screen() {
        for yes in [
            "",
            "screen",
            "all",
            "only screen and (min-width: 768px)",
            "(min-width:64em)",
            "screen and (min-width: 1024px) and (max-width: 1440px)",
            "(width >= 1200px)",
            "(768px <= width < 1300px)",
            "print, (min-width: 900px)",
            "not print",
            "(orientation: landscape)",
            "(hover: hover)",
            "(prefers-reduced-motion: no-preference)",
        ] {
            assert!(media_matches(yes), "{yes:?} should match");
        }
        for no in [
            "print",
            "(max-width: 767px)",
            "screen and (max-width:1023.98px)",
            "(min-width: 1440px)",
            "(width < 768px)",
            "not screen",
            "(orientation: portrait)",
            "(prefers-color-scheme: dark)",
            "(some-future-feature: yes)",
            "screen and (min-width: 40rem) and (max-width: 60rem)",
        ] {
            assert!(!media_matches(no), "{no:?} should not match");
        }
    }

    #[test]
    fn responsive_copies_hidden_at_desktop_width_are_hidden() {
        let page = r#"<html><head><style>
            .hidden-desktop { display: none }
            @media (max-width: 767px) { .hidden-desktop { display: block } .hidden-mobile { display: none } }
            @media (min-width: 768px) { .tablet { display: none } }
            .menu .drawer { visibility: hidden }
            .x::before { display: none }
            div.flex { display: flex }
        </style></head><body>
            <div id="mobile" class="hidden-desktop">Mobile copy</div>
            <div id="desktop" class="hidden-mobile">Desktop copy</div>
            <div id="tablet" class="tablet">Tablet copy</div>
            <nav class="menu"><div id="drawer" class="drawer">Links</div></nav>
            <div id="drawer-elsewhere" class="drawer">Shown</div>
            <div id="pseudo" class="x">Shown</div>
        </body></html>"#;
        assert_eq!(hidden(page), ["drawer", "mobile", "tablet"]);
    }

    #[test]
    fn the_cascade_decides_between_rules() {
        let page = r#"<html><head><style>
            .a { display: none }
            .b { display: block }
            .c.d { display: none }
            .d { display: block }
            .e { display: none !important }
            #f { display: block }
            .g { display: none; display: block }
            .h { display: none }
        </style><style media="print">.i { display: none }</style></head><body>
            <p id="ab" class="a b">later rule shows</p>
            <p id="cd" class="c d">more specific hides</p>
            <p id="f" class="e">important hides</p>
            <p id="g" class="g">last declaration shows</p>
            <p id="h" class="h" style="display: block">inline display shows</p>
            <p id="i" class="i">print sheet ignored</p>
            <noscript><style>.j { display: none }</style></noscript><p id="j" class="j">noscript sheet ignored</p>
        </body></html>"#;
        assert_eq!(hidden(page), ["cd", "f"]);
    }

    #[test]
    fn selector_lists_split_with_their_keys() {
        let selectors = complex_selectors(".a, #b > .c:hover, div, .d::after, .e:not(.f) span, .g:before");
        let keys: Vec<(&str, &Key)> = selectors.iter().map(|(s, k, _)| (s.as_str(), k)).collect();
        assert_eq!(keys, [(".a", &Key::Class("a".into())), ("#b > .c:hover", &Key::Class("c".into()))]);
        assert_eq!(selectors[1].2, (1, 2, 0));
    }

    #[test]
    fn framework_hiding_classes_hide_unless_a_wide_screen_shows_them() {
        assert!(framework_hidden("sale-info hide"));
        assert!(framework_hidden("hidden"));
        assert!(framework_hidden("d-none menu"));
        assert!(!framework_hidden("hidden md:block"));
        assert!(!framework_hidden("d-none d-lg-flex"));
        assert!(!framework_hidden("hidden-mobile visually-hidden"));
        let page = r#"<html><head><style>.shown { display: block }</style></head><body>
            <div id="a" class="hide">Outlet terms</div>
            <div id="b" class="hidden shown">A rule of the page's own shows it</div>
            <div id="c" class="hidden" style="display: block">Inline style shows it</div>
        </body></html>"#;
        let html = Html::parse_document(page);
        let visibility = SheetVisibility::compute(&html);
        let verdict = |id: &str| {
            let element = html.select(&Selector::parse(&format!("#{id}")).unwrap()).next().unwrap();
            let value = element.value();
            visibility.hides(
                element.id(),
                value.attr("style").is_some_and(|s| s.contains("display")),
                value.attr("class").unwrap_or(""),
            )
        };
        assert!(verdict("a"));
        assert!(!verdict("b"));
        assert!(!verdict("c"));
    }

    #[test]
    fn broken_css_never_panics() {
        for css in ["{{{", "}", "@media (min-width: {", ".a { display: ", "@media screen { .a { display: none }", "\\"]
        {
            let _ = style_rules(css);
        }
        let rules = style_rules("@media screen { .a { display: none }");
        assert_eq!(rules.len(), 1);
    }
}
