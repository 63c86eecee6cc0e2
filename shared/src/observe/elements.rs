//! Interactive elements: role, label, handle and the field kind the Policy Gate needs
//! ([`field_kind`]); values are never read.

use super::ObserveOptions;
use super::arena::{Arena, ArenaNode, collapse_whitespace, inherited};
use super::redact::redact_url;
use super::text::truncate_chars;
use super::words::*;
use crate::dom::Dom;
use crate::observation::{Element, FieldKind};
use std::collections::HashMap;

pub(super) fn interactive_role<D: Dom>(dom: &D, node: &ArenaNode<D::Node>) -> Option<String> {
    if !node.role.is_empty()
        && matches!(
            node.role.as_str(),
            "button"
                | "link"
                | "checkbox"
                | "radio"
                | "tab"
                | "menuitem"
                | "switch"
                | "textbox"
                | "combobox"
                | "option"
                | "searchbox"
        )
    {
        return Some(node.role.clone());
    }
    let input_type = || dom.attribute(&node.dom, "type").unwrap_or_default().to_lowercase();
    Some(
        match node.tag.as_str() {
            "a" if dom.attribute(&node.dom, "href").is_some() => "link",
            "button" => "button",
            "select" => "combobox",
            "textarea" => "textbox",
            "summary" => "button",
            "input" => match input_type().as_str() {
                "hidden" => return None,
                "submit" | "button" | "reset" | "image" => "button",
                "checkbox" => "checkbox",
                "radio" => "radio",
                "search" => "searchbox",
                _ => "textbox",
            },
            _ if dom.attribute(&node.dom, "contenteditable").is_some_and(|v| v != "false") => "textbox",
            _ => return None,
        }
        .to_string(),
    )
}

/// A control the page wires up in script rather than by tag or role: a click handler in its
/// markup, a place in the tab order, or (on a live page) a pointer cursor of its own, on a short
/// caption or an image. Read as a button.
fn script_control<D: Dom>(dom: &D, arena: &Arena<D::Node>, index: usize) -> bool {
    let node = &arena.nodes[index];
    if !SCRIPT_CONTROL_TAGS.contains(&node.tag.as_str()) {
        return false;
    }
    let has = |name: &str| dom.attribute(&node.dom, name).is_some();
    if SCRIPT_CLICK_ATTRIBUTES.iter().any(|a| has(a)) {
        return true;
    }
    // The subtree's text length, counted when the arena was built: no text is gathered here.
    let pictured = matches!(node.tag.as_str(), "img" | "svg" | "i");
    if node.text_len > SCRIPT_CONTROL_MAX_CHARS || (node.text_len == 0 && !pictured) {
        return false;
    }
    dom.attribute(&node.dom, "tabindex").and_then(|t| t.trim().parse::<i32>().ok()).is_some_and(|t| t >= 0)
        || dom.has_own_pointer_cursor(&node.dom)
}

/// What kind of value a field takes, from its type, autocomplete token, name, id and label.
pub fn field_kind(tag: &str, input_type: &str, autocomplete: &str, name_and_label: &str) -> Option<FieldKind> {
    let ty = input_type.to_ascii_lowercase();
    let auto = autocomplete.to_ascii_lowercase();
    let hint = name_and_label.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| hint.contains(w));
    if tag == "input" && matches!(ty.as_str(), "hidden" | "submit" | "button" | "reset" | "image") {
        return None;
    }
    if !matches!(tag, "input" | "textarea" | "select") && tag != "contenteditable" {
        return None;
    }
    if ty == "password" || auto.contains("current-password") || auto.contains("new-password") {
        return Some(FieldKind::Password);
    }
    if auto.contains("one-time-code") || has(ONE_TIME_CODE_WORDS) {
        return Some(FieldKind::OneTimeCode);
    }
    if auto.split_whitespace().any(|t| t.starts_with("cc-")) || has(PAYMENT_CARD_WORDS) {
        return Some(FieldKind::Payment);
    }
    Some(match (tag, ty.as_str()) {
        ("textarea", _) | ("contenteditable", _) => FieldKind::Textarea,
        ("select", _) => FieldKind::Select,
        (_, "email") => FieldKind::Email,
        (_, "search") => FieldKind::Search,
        (_, "tel") => FieldKind::Tel,
        (_, "url") => FieldKind::Url,
        (_, "number" | "range") => FieldKind::Number,
        (_, "date" | "datetime-local" | "month" | "week" | "time") => FieldKind::Date,
        (_, "checkbox") => FieldKind::Checkbox,
        (_, "radio") => FieldKind::Radio,
        (_, "file") => FieldKind::File,
        (_, "color") => FieldKind::Other,
        _ if auto.contains("email") || has(EMAIL_WORDS) => FieldKind::Email,
        _ if has(SEARCH_WORDS) => FieldKind::Search,
        _ => FieldKind::Text,
    })
}

pub(super) fn element_label<D: Dom>(
    dom: &D,
    arena: &Arena<D::Node>,
    index: usize,
    labels: &HashMap<String, String>,
) -> String {
    let node = &arena.nodes[index];
    let attr = |name: &str| dom.attribute(&node.dom, name).map(|v| collapse_whitespace(&v)).filter(|v| !v.is_empty());
    if let Some(label) = attr("aria-label") {
        return label;
    }
    let text = arena.plain_text(index);
    if !text.is_empty() && !matches!(node.tag.as_str(), "select" | "textarea") {
        return text;
    }
    if let Some(id) = attr("id")
        && let Some(label) = labels.get(&id)
    {
        return label.clone();
    }
    // A wrapping <label>.
    if let Some(label) = arena.ancestors(index).find(|&a| arena.nodes[a].tag == "label") {
        let text = arena.plain_text(label);
        if !text.is_empty() {
            return text;
        }
    }
    let is_button_input = node.tag == "input"
        && attr("type").is_some_and(|t| matches!(t.to_lowercase().as_str(), "submit" | "button" | "reset"));
    if is_button_input && let Some(value) = attr("value") {
        // The visible caption of a button input is markup, not user data.
        return value;
    }
    attr("placeholder")
        .or_else(|| attr("title"))
        .or_else(|| attr("alt"))
        .or_else(|| label_beside(arena, index))
        .or_else(|| attr("name"))
        .unwrap_or_default()
}

/// A `<label>` just before a field that it is not tied to (`<label>Username</label><input>`):
/// the caption a user reads for the field.
fn label_beside<N>(arena: &Arena<N>, index: usize) -> Option<String> {
    let parent = arena.nodes[index].parent?;
    let siblings = &arena.nodes[parent].children;
    let at = siblings.iter().position(|&c| c == index)?;
    let before = siblings[..at]
        .iter()
        .rev()
        .find(|&&c| !arena.nodes[c].tag.is_empty() || !arena.plain_text(c).trim().is_empty())?;
    let node = &arena.nodes[*before];
    let text = arena.plain_text(*before);
    // A `<label>`, or a caption written as text before the field: "Date: <input>".
    let caption = node.tag == "label"
        || (node.tag.is_empty() && text.trim_end().ends_with(':') && text.chars().count() <= LABEL_TEXT_MAX_CHARS);
    (caption && !text.trim().is_empty()).then(|| text.trim().trim_end_matches(':').trim().to_string())
}

pub(super) fn elements<D: Dom>(
    dom: &D,
    arena: &Arena<D::Node>,
    chrome: &[bool],
    primary: usize,
    url: &str,
    options: &ObserveOptions,
) -> Vec<Element> {
    let chrome_below = inherited(arena, chrome);
    let mut labels = HashMap::new();
    for (i, node) in arena.nodes.iter().enumerate() {
        if node.tag == "label"
            && let Some(target) = dom.attribute(&node.dom, "for")
        {
            labels.insert(target, arena.plain_text(i));
        }
    }
    let primary_range: Vec<usize> = arena.subtree(primary);
    let in_primary: std::collections::HashSet<usize> = primary_range.into_iter().collect();
    let mut found: Vec<(bool, usize, Element)> = Vec::new();
    for (i, node) in arena.nodes.iter().enumerate() {
        // Form controls are never text (NEVER_TEXT), but they are elements unless hidden.
        if node.tag.is_empty() || node.hidden {
            continue;
        }
        let Some(role) =
            interactive_role(dom, node).or_else(|| script_control(dom, arena, i).then(|| "button".to_string()))
        else {
            continue;
        };
        let text = element_label(dom, arena, i, &labels);
        let tag_for_kind = if node.tag != "input" && node.tag != "select" && node.tag != "textarea" && role == "textbox"
        {
            "contenteditable"
        } else {
            node.tag.as_str()
        };
        let input_type = dom.attribute(&node.dom, "type").unwrap_or_default();
        let autocomplete = dom.attribute(&node.dom, "autocomplete").unwrap_or_default();
        let hints = format!(
            "{} {} {} {}",
            dom.attribute(&node.dom, "name").unwrap_or_default(),
            dom.attribute(&node.dom, "id").unwrap_or_default(),
            dom.attribute(&node.dom, "placeholder").unwrap_or_default(),
            text
        );
        let kind = field_kind(tag_for_kind, &input_type, &autocomplete, &hints);
        let href = dom.attribute(&node.dom, "href").and_then(|h| redact_url(&h, url));
        let element = Element {
            handle_id: dom.handle(&node.dom),
            role,
            text: truncate_chars(&text, 200),
            href,
            tag: Some(node.tag.clone()),
            field_kind: kind,
            download: node.tag == "a" && dom.attribute(&node.dom, "download").is_some(),
            disabled: dom.attribute(&node.dom, "disabled").is_some()
                || dom.attribute(&node.dom, "aria-disabled").is_some_and(|v| v == "true"),
        };
        found.push((in_primary.contains(&i) && !chrome_below[i], i, element));
    }
    // The content's own elements first, then the rest, each in document order.
    found.sort_by_key(|(primary, index, _)| (!primary, *index));
    found.into_iter().take(options.max_elements).map(|(_, _, e)| e).collect()
}

/// A shape key for repeated siblings: tag plus class.
pub(super) fn shape<N>(node: &ArenaNode<N>) -> String {
    format!("{}.{}", node.tag, node.class_id.split_whitespace().next().unwrap_or(""))
}
