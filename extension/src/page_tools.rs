//! Approved content-script tools, executed on the live page, and the highlight overlay.
//!
//! [`run_tool`] runs `browser.click`, `browser.type`, `browser.select` and `browser.scroll` after
//! the Policy Gate and the user have approved them, and `browser.get_selection_links` (which
//! only reads: the gate allows it) lists the links inside the user's selection. The call is checked once more against the
//! shared catalogue (`RawToolCall::to_typed`), the element is found by its handle through
//! [`LiveDom::element`] (never by a selector or an attribute the page could move), and before
//! anything happens the element must still be in the page, visible and enabled. The answer is
//! JSON: `{"ok": true, "result": {…}}` or `{"ok": false, "error": {"code": "…", "message": "…"}}`.
//!
//! Error codes (stable; registered in [`laika_shared::codes::Code`]):
//!
//! | code | when |
//! |---|---|
//! | `TOOL_UNKNOWN`, `TOOL_ARGS_INVALID`, `TOOL_ARG_OUT_OF_RANGE` | the catalogue refused the call |
//! | `TOOL_NOT_CONTENT_SCRIPT` | a catalogue tool other than the five above |
//! | `TOOL_NO_SELECTION` | `browser.get_selection_links` with nothing selected in the page |
//! | `TOOL_ELEMENT_GONE` | the handle's element is no longer in the page |
//! | `TOOL_ELEMENT_HIDDEN` | `display: none` on it or an ancestor, `visibility: hidden`, or no size |
//! | `TOOL_ELEMENT_DISABLED` | `disabled` (property, attribute, `:disabled`, a disabled fieldset), `aria-disabled="true"` on it or an ancestor, or a disabled option |
//! | `TOOL_ELEMENT_READONLY` | typing into a read-only field |
//! | `TOOL_ELEMENT_UNSUPPORTED` | typing into something that is not a text-like field, selecting on something that is not a `<select>` |
//! | `TOOL_FIELD_REFUSED` | typing or selecting into a password, one-time-code or payment field, or typing into a hidden or file input |
//! | `TOOL_OPTION_NOT_FOUND` | no option has that value or label (the message lists at most 20 labels) |
//! | `TOOL_FAILED` | the page has no window, or a DOM call threw |
//!
//! Refusing secret fields here is defence in depth: the Policy Gate already denies those calls.
//! The field kind comes from the same [`field_kind`] the observation uses, so a field the
//! observation calls a password, one-time-code or payment field is refused here too.
//!
//! Results never carry what was typed or what a field holds: `browser.type` reports the number
//! of characters typed and whether the field now holds exactly them, and `browser.click` reports
//! no text for form fields or editable regions.
//!
//! Values are set through the element's property (`value`, `selectedIndex`), never its
//! attribute, followed by an `input` and a `change` event that bubble, as a user's edit would.
//! In the extension this runs in the content script's isolated world, which sees the native
//! `value` setter even where a page framework has wrapped it on the element, so frameworks that
//! track the value (React) see a change and handle the events.
//!
//! [`highlight`] draws a box over an element (for citations and approval cards) and
//! [`clear_highlight`] removes it. The box lives in a closed shadow root of a host element
//! appended to `<html>`: the page cannot reach into it, and the reader ([`LiveDom`]'s
//! `children`) sees only the host's light children, of which there are none, because a closed
//! root's `shadowRoot` is `null`. So the observation of a page is the same with the box shown.

use crate::live_dom::LiveDom;
use laika_shared::codes::Code;
use laika_shared::dom::Dom;
use laika_shared::observe::{field_kind, redact_url};
use laika_shared::tools::{RawToolCall, ToolCall};
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Document, DomRect, Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlOptionElement, HtmlSelectElement,
    HtmlTextAreaElement, InputEvent, InputEventInit, MouseEvent, MouseEventInit, Node, ScrollBehavior,
    ScrollIntoViewOptions, ScrollLogicalPosition, ScrollToOptions, ShadowRoot, ShadowRootInit, ShadowRootMode, Window,
};

const HTML_NAMESPACE: &str = "http://www.w3.org/1999/xhtml";

/// Input types Laika types into (`type_` is the normalised property: no or an unknown `type`
/// attribute reads `"text"`).
const TEXT_INPUT_TYPES: &[&str] =
    &["text", "search", "email", "url", "tel", "number", "range", "date", "time", "datetime-local", "month"];

/// At most this many option labels are listed when no option matches.
const MAX_LISTED_OPTIONS: usize = 20;

/// Links `browser.get_selection_links` lists when the call names no `maxLinks`.
const DEFAULT_SELECTION_LINKS: usize = 50;

/// Longest element text a click result reports.
const MAX_RESULT_TEXT_CHARS: usize = 80;

/// The tag of the highlight overlay's host element, a child of `<html>` while a box is shown.
pub const OVERLAY_HOST_TAG: &str = "laika-highlight";

/// A refused or failed call: a stable code and a message for the model and the logs.
struct ToolError {
    code: Code,
    message: String,
}

fn fail(code: Code, message: impl Into<String>) -> ToolError {
    ToolError { code, message: message.into() }
}

/// A DOM call that threw.
fn thrown(what: &str) -> impl FnOnce(JsValue) -> ToolError + '_ {
    move |error| {
        let detail = error.as_string().or_else(|| error.dyn_ref::<js_sys::Error>().map(|e| e.message().into()));
        fail(Code::ToolFailed, format!("{what} failed: {}", truncate(&detail.unwrap_or_default(), 200)))
    }
}

type Outcome = Result<Value, ToolError>;

/// Runs an approved content-script tool on the live page. Never panics; every refusal or failure
/// is an `{"ok": false, "error": {code, message}}` answer.
/// With `password`, the host released this call as the user's own password for this page's
/// password field (typed on a card of its own); every other secret field is still refused.
pub fn run_tool(dom: &LiveDom, name: &str, arguments: &Map<String, Value>, password: bool) -> Value {
    match execute(dom, name, arguments, password) {
        Ok(result) => json!({ "ok": true, "result": result }),
        Err(error) => json!({ "ok": false, "error": { "code": error.code.as_str(), "message": error.message } }),
    }
}

fn execute(dom: &LiveDom, name: &str, arguments: &Map<String, Value>, password: bool) -> Outcome {
    let call =
        RawToolCall { name: name.to_owned(), arguments: arguments.clone() }.to_typed().map_err(|violations| {
            let code = violations.first().map_or(Code::ToolArgsInvalid, |violation| violation.code);
            let message: Vec<String> = violations.iter().map(ToString::to_string).collect();
            fail(code, message.join("; "))
        })?;
    match call {
        ToolCall::Click(args) => click(dom, &args.handle_id),
        ToolCall::Type(args) => type_text(dom, &args.handle_id, &args.text, password),
        ToolCall::Select(args) => select(dom, &args.handle_id, &args.value),
        ToolCall::Scroll(args) => scroll(dom, args.delta_y),
        ToolCall::GetSelectionLinks(args) => {
            selection_links(dom, args.max_links.map_or(DEFAULT_SELECTION_LINKS, |n| n as usize))
        }
        other => Err(fail(
            Code::ToolNotContentScript,
            format!(
                "{} is not executed here; the content script runs browser.click, browser.type, browser.select, \
                 browser.scroll and browser.get_selection_links",
                other.name()
            ),
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// The tools
// ---------------------------------------------------------------------------------------------

fn click(dom: &LiveDom, handle: &str) -> Outcome {
    let element = target(dom, handle)?;
    let window = window_of(dom)?;
    check_visible(&window, &element)?;
    check_enabled(&element)?;
    scroll_into_view(&element);
    if is_html(&element) {
        element.unchecked_ref::<HtmlElement>().click();
    } else {
        // SVG and MathML elements have no click(); a synthetic click event is what they get.
        let init = MouseEventInit::new();
        init.set_bubbles(true);
        init.set_cancelable(true);
        let event = MouseEvent::new_with_mouse_event_init_dict("click", &init).map_err(thrown("creating the click"))?;
        element.dispatch_event(&event).map_err(thrown("the click"))?;
    }
    let tag = tag_of(&element);
    let mut result = json!({ "tag": tag, "text": short_text(&element) });
    if matches!(tag.as_str(), "a" | "area")
        && let Some(href) = element.get_attribute("href").and_then(|href| redact_url(&href, &dom.url()))
    {
        result["href"] = Value::String(href);
    }
    Ok(result)
}

/// `browser.get_selection_links`: the links the user's selection holds or touches, in page
/// order, each once (by URL), at most `max`. A link's URL is absolute and redacted as the
/// observation redacts it; one that is not a web address (`javascript:`, `mailto:`) is left out.
fn selection_links(dom: &LiveDom, max: usize) -> Outcome {
    let window = window_of(dom)?;
    let selection = window.get_selection().map_err(thrown("reading the selection"))?;
    let Some(selection) = selection.filter(|s| !s.is_collapsed() && s.range_count() > 0) else {
        return Err(fail(
            Code::ToolNoSelection,
            "nothing is selected in the page: select the part whose links you want, then ask again",
        ));
    };
    let anchors = dom.document().query_selector_all("a[href], area[href]").map_err(thrown("finding the links"))?;
    let page_url = dom.url();
    let mut links: Vec<Value> = vec![];
    let mut seen: Vec<String> = vec![];
    let mut more = false;
    for i in 0..anchors.length() {
        let Some(node) = anchors.item(i) else { continue };
        // Partly selected counts: a selection that starts inside a link's text holds the link.
        if !selection.contains_node_with_allow_partial_containment(&node, true).unwrap_or(false) {
            continue;
        }
        let element: &Element = node.unchecked_ref();
        // The resolved address (`href` property), not the attribute as written.
        let href = js_sys::Reflect::get(element, &JsValue::from_str("href")).ok().and_then(|v| v.as_string());
        let Some(url) = href
            .and_then(|href| redact_url(&href, &page_url))
            .filter(|url| url.starts_with("https://") || url.starts_with("http://"))
        else {
            continue;
        };
        if seen.contains(&url) {
            continue;
        }
        if links.len() == max {
            more = true;
            break;
        }
        seen.push(url.clone());
        links.push(json!({ "text": short_text(element), "url": url, "handleId": dom.handle(&node) }));
    }
    let count = links.len();
    let message = match count {
        0 => "The selection holds no links.".to_string(),
        1 => "The selection holds 1 link.".to_string(),
        n if more => format!("The selection holds more than {n} links; the first {n} are listed."),
        n => format!("The selection holds {n} links."),
    };
    Ok(json!({ "links": links, "count": count, "truncated": more, "message": message }))
}

/// The editable thing `browser.type` writes into.
enum Field {
    Input(HtmlInputElement),
    TextArea(HtmlTextAreaElement),
    Editable(HtmlElement),
}

fn type_text(dom: &LiveDom, handle: &str, text: &str, password: bool) -> Outcome {
    let element = target(dom, handle)?;
    let field = typable_field(&element, password)?;
    let window = window_of(dom)?;
    check_visible(&window, &element)?;
    check_enabled(&element)?;
    let read_only = match &field {
        Field::Input(input) => input.read_only(),
        Field::TextArea(area) => area.read_only(),
        Field::Editable(_) => false,
    };
    // A read-only text field that takes a date is a date picker's (the page opens a calendar on
    // it and writes the picked date there): the date the user named goes in as the picker would
    // write it. Any other read-only field is refused.
    let date_picker = matches!(&field, Field::Input(input) if input.type_() == "text") && looks_like_a_date(text);
    if read_only && !date_picker {
        return Err(fail(Code::ToolElementReadonly, "the field is read-only"));
    }
    scroll_into_view(&element);
    let html = element.unchecked_ref::<HtmlElement>();
    // A page may refuse focus (or move it on focus); the value is set either way.
    let _ = html.focus();
    let complete = match &field {
        Field::Input(input) => {
            // The host gave a date or time field's value in its input's form already
            // (`field_value::for_field`); a number field refuses what is no number (the answer
            // never repeats what was typed).
            let input_type = input.type_();
            if matches!(input_type.as_str(), "number" | "range")
                && !text.trim().is_empty()
                && !laika_shared::field_value::is_number(&text.trim().replace(',', ""))
            {
                return Err(fail(
                    Code::ToolArgsInvalid,
                    format!("a {} field does not take that value", truncate(&input_type, 20)),
                ));
            }
            input.set_value(text);
            input.value() == text
        }
        Field::TextArea(area) => {
            area.set_value(text);
            area.value() == text
        }
        Field::Editable(editable) => {
            editable.set_text_content(Some(text));
            editable.text_content().unwrap_or_default() == text
        }
    };
    dispatch_input(&element)?;
    // Browsers never fire `change` on editable regions; fields get it as after a user's edit.
    if !matches!(field, Field::Editable(_)) {
        dispatch_plain(&element, "change")?;
    }
    // Neither the text nor the field's value: only how much was typed.
    Ok(json!({ "tag": tag_of(&element), "chars": text.chars().count(), "complete": complete }))
}

/// Whether a text is written as a date ("12/26/2016", "2016-12-26"): digits and separators.
fn looks_like_a_date(text: &str) -> bool {
    let digits = text.bytes().filter(u8::is_ascii_digit).count();
    (6..=8).contains(&digits) && text.bytes().all(|b| b.is_ascii_digit() || b"/-. ".contains(&b))
}

/// The field to type into, or why not: secret, hidden and file fields are refused whatever the
/// gate said; anything else that is not a text-like field is unsupported.
fn typable_field(element: &Element, password: bool) -> Result<Field, ToolError> {
    let tag = tag_of(element);
    if is_html(element) && tag == "input" {
        let input: HtmlInputElement = element.clone().unchecked_into();
        let input_type = input.type_().to_ascii_lowercase();
        if password && input_type == "password" {
            return Ok(Field::Input(input));
        }
        if matches!(input_type.as_str(), "password" | "hidden" | "file") {
            return Err(fail(Code::ToolFieldRefused, format!("Laika never types into {input_type} fields")));
        }
        refuse_secret(element, "input", &input_type)?;
        if !TEXT_INPUT_TYPES.contains(&input_type.as_str()) {
            return Err(fail(
                Code::ToolElementUnsupported,
                format!("an input of type {} does not take typed text", truncate(&input_type, 40)),
            ));
        }
        return Ok(Field::Input(input));
    }
    if is_html(element) && tag == "textarea" {
        refuse_secret(element, "textarea", "")?;
        return Ok(Field::TextArea(element.clone().unchecked_into()));
    }
    if is_html(element) && element.unchecked_ref::<HtmlElement>().is_content_editable() {
        refuse_secret(element, "contenteditable", "")?;
        return Ok(Field::Editable(element.clone().unchecked_into()));
    }
    Err(fail(Code::ToolElementUnsupported, format!("a {} element does not take typed text", truncate(&tag, 40))))
}

/// Refuses password, one-time-code and payment fields, judged as the observation judges them:
/// type, autocomplete tokens, and the name, id, placeholder and labels.
fn refuse_secret(element: &Element, tag: &str, input_type: &str) -> Result<(), ToolError> {
    let autocomplete = element.get_attribute("autocomplete").unwrap_or_default();
    let kind = field_kind(tag, input_type, &autocomplete, &field_hints(element));
    match kind {
        Some(kind) if kind.is_secret() => {
            let what = serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
            Err(fail(Code::ToolFieldRefused, format!("Laika never types into or selects in {what} fields")))
        }
        _ => Ok(()),
    }
}

/// The words that say what a field is for: name, id, placeholder, aria-label and label text.
fn field_hints(element: &Element) -> String {
    let mut hints: Vec<String> = ["name", "id", "placeholder", "aria-label"]
        .iter()
        .filter_map(|attribute| element.get_attribute(attribute))
        .collect();
    // `labels` exists on input, select and textarea (null for hidden inputs). Read by name: the
    // node list of a frame's element is not an instance of this realm's `NodeList`.
    let labels = js_sys::Reflect::get(element, &JsValue::from_str("labels")).unwrap_or(JsValue::NULL);
    if labels.is_object() {
        let labels: &web_sys::NodeList = labels.unchecked_ref();
        for index in 0..labels.length() {
            if let Some(label) = labels.item(index) {
                hints.push(label.text_content().unwrap_or_default());
            }
        }
    }
    hints.join(" ")
}

fn select(dom: &LiveDom, handle: &str, wanted: &str) -> Outcome {
    let element = target(dom, handle)?;
    if !(is_html(&element) && tag_of(&element) == "select") {
        return Err(fail(Code::ToolElementUnsupported, "browser.select needs a select element"));
    }
    refuse_secret(&element, "select", "")?;
    let window = window_of(dom)?;
    check_visible(&window, &element)?;
    check_enabled(&element)?;
    let select: &HtmlSelectElement = element.unchecked_ref();
    let options: Vec<HtmlOptionElement> = (0..select.length())
        .filter_map(|index| select.item(index))
        .filter(|option| tag_of(option) == "option")
        .map(JsCast::unchecked_into)
        .collect();
    let wanted_label = normalise_label(wanted);
    let index = options
        .iter()
        .position(|option| option.value() == wanted)
        .or_else(|| {
            options.iter().position(|option| {
                normalise_label(&option.text()) == wanted_label || normalise_label(&option.label()) == wanted_label
            })
        })
        .or_else(|| options.iter().position(|option| normalise_label(&option.value()) == wanted_label));
    let Some(index) = index else {
        let mut labels: Vec<String> = options
            .iter()
            .take(MAX_LISTED_OPTIONS)
            .map(|option| format!("{:?}", truncate(&normalise_space(&option.text()), MAX_RESULT_TEXT_CHARS)))
            .collect();
        if options.len() > MAX_LISTED_OPTIONS {
            labels.push(format!("and {} more", options.len() - MAX_LISTED_OPTIONS));
        }
        return Err(fail(
            Code::ToolOptionNotFound,
            format!(
                "no option has the value or label {:?}; the options are: {}",
                truncate(wanted, MAX_RESULT_TEXT_CHARS),
                labels.join(", ")
            ),
        ));
    };
    let option = &options[index];
    if option.disabled() || option.matches(":disabled").unwrap_or(false) {
        return Err(fail(Code::ToolElementDisabled, "that option is disabled"));
    }
    scroll_into_view(&element);
    let _ = select.focus();
    if select.multiple() {
        option.set_selected(true);
    } else {
        select.set_selected_index(option.index());
    }
    dispatch_input(&element)?;
    dispatch_plain(&element, "change")?;
    Ok(json!({
        "tag": "select",
        "index": option.index(),
        "value": truncate(&option.value(), MAX_RESULT_TEXT_CHARS),
        "label": truncate(&normalise_space(&option.text()), MAX_RESULT_TEXT_CHARS),
    }))
}

fn scroll(dom: &LiveDom, delta_y: f64) -> Outcome {
    let window = window_of(dom)?;
    let before = window.scroll_y().map_err(thrown("reading scrollY"))?;
    let options = ScrollToOptions::new();
    options.set_left(0.0);
    options.set_top(delta_y);
    // Instant, whatever the page's `scroll-behavior`: the answer reports where the page is.
    options.set_behavior(ScrollBehavior::Instant);
    window.scroll_by_with_scroll_to_options(&options);
    let after = window.scroll_y().map_err(thrown("reading scrollY"))?;
    let max = dom
        .document()
        .scrolling_element()
        .map_or(0, |scroller| (scroller.scroll_height() - scroller.client_height()).max(0));
    Ok(json!({ "scrollY": after, "moved": after - before, "maxScrollY": max }))
}

// ---------------------------------------------------------------------------------------------
// Checks before acting
// ---------------------------------------------------------------------------------------------

fn target(dom: &LiveDom, handle: &str) -> Result<Element, ToolError> {
    dom.element(handle)
        .ok_or_else(|| fail(Code::ToolElementGone, format!("{} is no longer in the page", truncate(handle, 80))))
}

fn window_of(dom: &LiveDom) -> Result<Window, ToolError> {
    dom.document().default_view().ok_or_else(|| fail(Code::ToolFailed, "the page has no window"))
}

fn check_visible(window: &Window, element: &Element) -> Result<(), ToolError> {
    match hidden_reason(window, element) {
        Some(reason) => Err(fail(Code::ToolElementHidden, format!("the element is not visible: {reason}"))),
        None => Ok(()),
    }
}

/// Why the user cannot see the element, if they cannot.
fn hidden_reason(window: &Window, element: &Element) -> Option<&'static str> {
    let mut current = Some(element.clone());
    let mut itself = true;
    while let Some(node) = current {
        if let Ok(Some(style)) = window.get_computed_style(&node) {
            if style.get_property_value("display").unwrap_or_default() == "none" {
                return Some(if itself { "display: none" } else { "inside a hidden ancestor" });
            }
            // Visibility is inherited (and a child may undo it), so the element's own value decides.
            if itself
                && matches!(style.get_property_value("visibility").unwrap_or_default().as_str(), "hidden" | "collapse")
            {
                return Some("visibility: hidden");
            }
        }
        current = parent_crossing_shadow(&node);
        itself = false;
    }
    let rect = element.get_bounding_client_rect();
    (rect.width() <= 0.0 || rect.height() <= 0.0).then_some("it has no size on the page")
}

/// The parent element, or the host when the element is at the top of a shadow tree.
fn parent_crossing_shadow(element: &Element) -> Option<Element> {
    if let Some(parent) = element.parent_element() {
        return Some(parent);
    }
    let parent = element.parent_node()?;
    (parent.node_type() == Node::DOCUMENT_FRAGMENT_NODE).then(|| parent.unchecked_ref::<ShadowRoot>().host())
}

fn check_enabled(element: &Element) -> Result<(), ToolError> {
    match disabled_reason(element) {
        Some(reason) => Err(fail(Code::ToolElementDisabled, format!("the element is disabled: {reason}"))),
        None => Ok(()),
    }
}

/// Why the element is disabled, if it is.
fn disabled_reason(element: &Element) -> Option<&'static str> {
    let property = js_sys::Reflect::get(element, &JsValue::from_str("disabled")).ok().and_then(|v| v.as_bool());
    if property == Some(true) || element.has_attribute("disabled") {
        return Some("disabled");
    }
    // `:disabled` is exact for form controls: a disabled fieldset (outside its first legend),
    // a disabled optgroup.
    if element.matches(":disabled").unwrap_or(false) {
        return Some("inside a disabled fieldset");
    }
    let form_control =
        is_html(element) && matches!(tag_of(element).as_str(), "button" | "input" | "select" | "textarea" | "fieldset");
    if !form_control && element.closest("fieldset[disabled]").ok().flatten().is_some() {
        return Some("inside a disabled fieldset");
    }
    if element.closest("[aria-disabled=\"true\" i]").ok().flatten().is_some() {
        return Some("aria-disabled");
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn is_html(element: &Element) -> bool {
    element.namespace_uri().as_deref() == Some(HTML_NAMESPACE)
}

fn tag_of(element: &Element) -> String {
    element.local_name().to_ascii_lowercase()
}

/// Centred, instantly (a smooth scroll would leave the element moving when the tool returns).
fn scroll_into_view(element: &Element) {
    let options = ScrollIntoViewOptions::new();
    options.set_block(ScrollLogicalPosition::Center);
    options.set_inline(ScrollLogicalPosition::Center);
    options.set_behavior(ScrollBehavior::Instant);
    element.scroll_into_view_with_scroll_into_view_options(&options);
}

fn dispatch_input(element: &Element) -> Result<(), ToolError> {
    let init = InputEventInit::new();
    init.set_bubbles(true);
    init.set_composed(true);
    init.set_input_type("insertReplacementText");
    let event = InputEvent::new_with_event_init_dict("input", &init).map_err(thrown("creating the input event"))?;
    element.dispatch_event(&event).map_err(thrown("the input event"))?;
    Ok(())
}

fn dispatch_plain(element: &Element, name: &str) -> Result<(), ToolError> {
    let init = EventInit::new();
    init.set_bubbles(true);
    let event = Event::new_with_event_init_dict(name, &init).map_err(thrown("creating the event"))?;
    element.dispatch_event(&event).map_err(thrown("the event"))?;
    Ok(())
}

/// A short description of a clicked element. Never the content of a form field or an editable
/// region: those may hold what the user typed.
fn short_text(element: &Element) -> String {
    if let Some(label) = element.get_attribute("aria-label").map(|l| normalise_space(&l)).filter(|l| !l.is_empty()) {
        return truncate(&label, MAX_RESULT_TEXT_CHARS);
    }
    let tag = tag_of(element);
    if tag == "input" {
        let input_type = element.get_attribute("type").unwrap_or_default().to_ascii_lowercase();
        // The value of a button-like input is its visible label, not user data.
        return if matches!(input_type.as_str(), "submit" | "button" | "reset") {
            truncate(&normalise_space(&element.get_attribute("value").unwrap_or_default()), MAX_RESULT_TEXT_CHARS)
        } else {
            String::new()
        };
    }
    let editable = is_html(element) && element.unchecked_ref::<HtmlElement>().is_content_editable();
    if matches!(tag.as_str(), "textarea" | "select") || editable {
        return String::new();
    }
    truncate(&normalise_space(&element.text_content().unwrap_or_default()), MAX_RESULT_TEXT_CHARS)
}

fn normalise_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn normalise_label(text: &str) -> String {
    normalise_space(text).to_lowercase()
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// The highlight overlay
// ---------------------------------------------------------------------------------------------

/// The host: out of the page's layout and above everything, whatever the page's stylesheets say.
const HOST_STYLE: &str = "all: initial !important; display: block !important; position: fixed !important; \
    top: 0 !important; left: 0 !important; width: 0 !important; height: 0 !important; \
    overflow: visible !important; pointer-events: none !important; z-index: 2147483647 !important;";

/// The box (in the closed shadow root, so no page rule reaches it); its place is set apart.
const BOX_STYLE: &str = "position: fixed; box-sizing: border-box; margin: 0; padding: 0; border: 0; \
    pointer-events: none; z-index: 2147483647; border-radius: 3px; \
    outline: 2px solid rgba(37, 99, 235, 0.9); outline-offset: 1px; background: rgba(37, 99, 235, 0.12);";

struct Overlay {
    host: Element,
    highlight_box: HtmlElement,
    target: Element,
    window: Window,
    /// Re-places the box; listens to scroll (captured, so scrolling containers count) and resize.
    on_move: Closure<dyn FnMut()>,
}

impl Overlay {
    fn place(&self) {
        let style = self.highlight_box.style();
        if !self.target.is_connected() {
            let _ = style.set_property("display", "none");
            return;
        }
        let rect = self.target.get_bounding_client_rect();
        let _ = style.set_property("display", "block");
        let _ = style.set_property("left", &format!("{}px", rect.left()));
        let _ = style.set_property("top", &format!("{}px", rect.top()));
        let _ = style.set_property("width", &format!("{}px", rect.width()));
        let _ = style.set_property("height", &format!("{}px", rect.height()));
    }
}

thread_local! {
    static OVERLAY: RefCell<Option<Overlay>> = const { RefCell::new(None) };
}

/// Scrolls the element into view (centred) and draws a box over it, replacing any box shown
/// before. `false` when the element is gone or not visible (nothing is drawn then).
pub fn highlight(dom: &LiveDom, handle: &str) -> bool {
    clear_highlight();
    let Some(element) = dom.element(handle) else { return false };
    let Some(window) = dom.document().default_view() else { return false };
    if hidden_reason(&window, &element).is_some() {
        return false;
    }
    scroll_into_view(&element);
    match draw(dom.document(), window, element) {
        Ok(overlay) => {
            overlay.place();
            OVERLAY.with(|slot| *slot.borrow_mut() = Some(overlay));
            true
        }
        Err(_) => false,
    }
}

fn draw(document: &Document, window: Window, target: Element) -> Result<Overlay, JsValue> {
    let root_element = document.document_element().ok_or_else(|| JsValue::from_str("no document element"))?;
    let host = document.create_element(OVERLAY_HOST_TAG)?;
    host.set_attribute("aria-hidden", "true")?;
    // CSSOM, not a style attribute: a page's CSP may forbid inline style attributes.
    host.unchecked_ref::<HtmlElement>().style().set_css_text(HOST_STYLE);
    let shadow = host.attach_shadow(&ShadowRootInit::new(ShadowRootMode::Closed))?;
    let highlight_box: HtmlElement = document.create_element("div")?.unchecked_into();
    highlight_box.style().set_css_text(BOX_STYLE);
    shadow.append_child(&highlight_box)?;
    let on_move = Closure::<dyn FnMut()>::new(|| {
        OVERLAY.with(|slot| {
            if let Ok(overlay) = slot.try_borrow()
                && let Some(overlay) = overlay.as_ref()
            {
                overlay.place();
            }
        });
    });
    let overlay = Overlay { host, highlight_box, target, window, on_move };
    let callback = overlay.on_move.as_ref().unchecked_ref();
    let attached = overlay
        .window
        .add_event_listener_with_callback_and_bool("scroll", callback, true)
        .and_then(|()| overlay.window.add_event_listener_with_callback("resize", callback))
        .and_then(|()| root_element.append_child(&overlay.host));
    if let Err(error) = attached {
        // Nothing may keep calling the closure once `overlay` (and with it the closure) is gone.
        remove_listeners(&overlay);
        return Err(error);
    }
    Ok(overlay)
}

fn remove_listeners(overlay: &Overlay) {
    let callback = overlay.on_move.as_ref().unchecked_ref();
    let _ = overlay.window.remove_event_listener_with_callback_and_bool("scroll", callback, true);
    let _ = overlay.window.remove_event_listener_with_callback("resize", callback);
}

/// Removes the box, if one is shown.
pub fn clear_highlight() {
    let overlay = OVERLAY.with(|slot| slot.try_borrow_mut().ok().and_then(|mut slot| slot.take()));
    if let Some(overlay) = overlay {
        remove_listeners(&overlay);
        overlay.host.remove();
    }
}

/// Where the highlight box is on screen (viewport coordinates), while one is shown.
pub fn highlight_rect() -> Option<DomRect> {
    OVERLAY.with(|slot| slot.borrow().as_ref().map(|overlay| overlay.highlight_box.get_bounding_client_rect()))
}
