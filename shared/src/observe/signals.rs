//! Access signals: paywalls, cookie walls, age gates, sign-in walls and overlays found in the
//! arena, so the agent knows why a page reads short.

use super::arena::Arena;
use super::words::*;
use crate::observation::Signal;

pub(super) fn signals<N>(arena: &Arena<N>, primary: usize) -> Vec<Signal> {
    let mut found = Vec::new();
    let visible_text = arena.nodes.get(arena.body).map_or(0, |b| b.text_len);
    let primary_text = arena.nodes[primary].text_len;
    for (i, node) in arena.nodes.iter().enumerate() {
        if node.tag.is_empty() {
            continue;
        }
        let names = &node.class_id;
        // Overlays are often in the markup, hidden until a script shows them: only visible
        // ones count.
        if node.hidden {
            continue;
        }
        if node.tag == "input" && node.input_type == "password" {
            add(&mut found, Signal::AuthFields);
        }
        let text = || arena.plain_text(i).to_lowercase();
        let overlay = (node.tag == "dialog" && node.open)
            || matches!(node.role.as_str(), "dialog" | "alertdialog")
            || (has_word(names, MODAL_WORDS)
                && !NEVER_OVERLAY_TAGS.contains(&node.tag.as_str())
                && !names.split_whitespace().any(|token| HIDDEN_STATE_CLASSES.contains(&token))
                && node.text_len >= OVERLAY_MIN_CHARS);
        if overlay && node.text_len > 0 {
            add(&mut found, Signal::OverlayOrDialog);
        }
        if has_word(names, PAYWALL_WORDS) {
            add(&mut found, Signal::Paywall);
        }
        if has_word(names, COOKIE_WALL_WORDS) && node.text_len > COOKIE_WALL_MIN_CHARS {
            let t = text();
            if t.contains("cookie") || t.contains("consent") || t.contains("privacy") {
                add(&mut found, Signal::ConsentOverlay);
            }
        }
        if has_word(names, AGE_GATE_WORDS) {
            add(&mut found, Signal::AgeGate);
        }
    }
    let body_text = arena.plain_text(arena.body).to_lowercase();
    let has_phrase = |phrases: &[&str]| phrases.iter().any(|p| body_text.contains(p));
    if has_phrase(PAYWALL_PHRASES) {
        add(&mut found, Signal::Paywall);
    }
    if has_phrase(AUTH_GATE_PHRASES) {
        add(&mut found, Signal::AuthGate);
    }
    if has_phrase(AGE_GATE_PHRASES) {
        add(&mut found, Signal::AgeGate);
    }
    if has_phrase(GEO_BLOCK_PHRASES) {
        add(&mut found, Signal::GeoBlock);
    }
    let noscript_warning = arena.nodes.iter().enumerate().any(|(i, n)| {
        n.tag == "noscript" && {
            let t = arena.source_text(i).to_lowercase();
            t.contains("javascript") || t.contains("enable js")
        }
    });
    if (noscript_warning && visible_text < SCRIPT_REQUIRED_VISIBLE_CHARS) || has_phrase(SCRIPT_REQUIRED_PHRASES) {
        add(&mut found, Signal::ScriptRequired);
    }
    let asks_to_sign_in = has_phrase(SIGN_IN_PHRASES);
    if found.contains(&Signal::AuthFields) && asks_to_sign_in && primary_text < AUTH_GATE_MAX_TEXT_CHARS {
        add(&mut found, Signal::AuthGate);
    }
    found
}

pub(super) fn add(found: &mut Vec<Signal>, signal: Signal) {
    if !found.contains(&signal) {
        found.push(signal);
    }
}
