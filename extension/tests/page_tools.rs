//! Approved tools on a live page, in a real browser (headless Chromium through wasm-bindgen-test):
//! each tool acts through the element's handle, refuses what it must (gone, hidden, disabled,
//! read-only, secret fields), never echoes what was typed, and the highlight box leaves the
//! page's observation unchanged.
#![cfg(target_arch = "wasm32")]

use laika_extension::live_dom::LiveDom;
use laika_extension::page_tools::{OVERLAY_HOST_TAG, clear_highlight, highlight, highlight_rect, run_tool};
use laika_shared::codes::Code;
use laika_shared::dom::Dom;
use laika_shared::observe::{ObserveOptions, observe};
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement, Node};

wasm_bindgen_test_configure!(run_in_browser);

const FORM: &str = include_str!("../../tests/fixtures/pages/form.html");

/// A page with one element for each case the checks distinguish, and enough height to scroll.
fn tools_page() -> String {
    let many: String = (1..=30).map(|n| format!("<option value=\"v{n}\">Option {n}</option>")).collect();
    format!(
        r#"<!doctype html>
<html><head><title>Tools</title>
<style>body {{ margin: 0; font: 16px sans-serif; }} .tall {{ height: 5000px; }}</style></head><body>
<h1>Tools</h1>
<p id="out">nothing yet</p>
<button id="go" onclick="document.getElementById('out').textContent = 'button clicked'">Go</button>
<a id="link" href="https://shop.example/item?id=7&amp;session=s3cr3t"
   onclick="event.preventDefault(); document.getElementById('out').textContent = 'link clicked'">Item</a>
<svg width="40" height="40"><rect id="shape" width="40" height="40"
   onclick="document.getElementById('out').textContent = 'shape clicked'"></rect></svg>
<button id="doomed">Doomed</button>
<button id="none" style="display: none">None</button>
<button id="invisible" style="visibility: hidden">Invisible</button>
<div style="display: none"><button id="nested">Nested</button></div>
<div id="tiny" style="width: 0; height: 0; overflow: hidden">Tiny</div>
<button id="off" disabled>Off</button>
<fieldset disabled><legend>Group</legend><input id="in-fieldset" type="text"><a id="link-in-fieldset" href="https://x.example/">x</a></fieldset>
<div aria-disabled="true"><span id="aria-child">Aria child</span></div>
<button id="aria-button" aria-disabled="true">Aria</button>
<input id="ro" type="text" readonly value="fixed">
<input id="file" type="file">
<input id="check" type="checkbox">
<input id="num" type="number">
<input id="expiry-month" autocomplete="cc-exp-month">
<select id="exp" autocomplete="cc-exp-month"><option>01</option><option>02</option></select>
<div id="editor" contenteditable="true">draft</div>
<select id="many">{many}</select>
<select id="with-disabled"><option value="a">A</option><option value="b" disabled>B</option></select>
<select id="multi" multiple><option value="x">X</option><option value="y">Y</option></select>
<p style="text-align: center"><span id="middle">Middle</span></p>
<div class="tall"></div>
<p id="bottom">Bottom</p>
</body></html>"#
    )
}

/// Loads a page into a same-origin iframe of the test page (as `live_dom.rs` does), sized so
/// that the page has a viewport to scroll and highlight in.
async fn load(html: &str) -> LiveDom {
    let document = web_sys::window().expect("a window").document().expect("a document");
    let frame: web_sys::HtmlIFrameElement = document.create_element("iframe").unwrap().dyn_into().unwrap();
    frame.set_attribute("style", "width: 800px; height: 400px; border: 0").unwrap();
    let loaded = js_sys::Promise::new(&mut |resolve, _reject| {
        frame.set_onload(Some(&resolve));
    });
    frame.set_srcdoc(html);
    document.body().expect("a body").append_child(&frame).unwrap();
    wasm_bindgen_futures::JsFuture::from(loaded).await.expect("the frame loads");
    LiveDom::new(frame.content_window().expect("the frame's window")).expect("a live dom")
}

fn by_id(dom: &LiveDom, id: &str) -> Element {
    dom.document().get_element_by_id(id).unwrap_or_else(|| panic!("#{id}"))
}

fn by_selector(dom: &LiveDom, selector: &str) -> Element {
    dom.document().query_selector(selector).unwrap().unwrap_or_else(|| panic!("{selector}"))
}

fn handle(dom: &LiveDom, element: &Element) -> String {
    dom.handle(&Node::from(element.clone()))
}

fn run(dom: &LiveDom, name: &str, arguments: Value) -> Value {
    let arguments: Map<String, Value> = arguments.as_object().cloned().unwrap_or_default();
    run_tool(dom, name, &arguments, false)
}

fn click(dom: &LiveDom, element: &Element) -> Value {
    run(dom, "browser.click", json!({ "handleId": handle(dom, element) }))
}

fn type_into(dom: &LiveDom, element: &Element, text: &str) -> Value {
    run(dom, "browser.type", json!({ "handleId": handle(dom, element), "text": text }))
}

fn select(dom: &LiveDom, element: &Element, value: &str) -> Value {
    run(dom, "browser.select", json!({ "handleId": handle(dom, element), "value": value }))
}

#[track_caller]
fn result(answer: &Value) -> &Value {
    assert_eq!(answer["ok"], true, "{answer}");
    &answer["result"]
}

#[track_caller]
fn assert_error(answer: &Value, code: Code) {
    assert_eq!(answer["ok"], false, "{answer}");
    assert_eq!(answer["error"]["code"], code.as_str(), "{answer}");
    assert!(answer["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{answer}");
    assert!(answer.get("result").is_none());
}

fn out_text(dom: &LiveDom) -> String {
    by_id(dom, "out").text_content().unwrap_or_default()
}

fn input_value(element: &Element) -> String {
    element.unchecked_ref::<HtmlInputElement>().value()
}

/// Records the `input` and `change` events that reach `on` (they must bubble to get there), as
/// `type:target-id`.
struct EventLog {
    events: Rc<RefCell<Vec<String>>>,
    _listener: Closure<dyn FnMut(web_sys::Event)>,
}

impl EventLog {
    fn listen(on: &web_sys::EventTarget) -> EventLog {
        let events = Rc::new(RefCell::new(Vec::new()));
        let sink = events.clone();
        let listener = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            let target: Element = event.target().unwrap().unchecked_into();
            sink.borrow_mut().push(format!("{}:{}", event.type_(), target.id()));
        });
        for name in ["input", "change"] {
            on.add_event_listener_with_callback(name, listener.as_ref().unchecked_ref()).unwrap();
        }
        EventLog { events, _listener: listener }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.events.borrow_mut())
    }
}

#[wasm_bindgen_test]
async fn click_runs_the_handler_and_describes_the_element() {
    let dom = load(&tools_page()).await;
    let answer = click(&dom, &by_id(&dom, "go"));
    assert_eq!(result(&answer)["tag"], "button");
    assert_eq!(result(&answer)["text"], "Go");
    assert_eq!(out_text(&dom), "button clicked");

    // A link reports where it goes, with credential-like parameters redacted.
    let answer = click(&dom, &by_id(&dom, "link"));
    assert_eq!(result(&answer)["tag"], "a");
    assert_eq!(result(&answer)["href"], "https://shop.example/item?id=7");
    assert_eq!(out_text(&dom), "link clicked");

    // An SVG element has no click(): it gets a click event.
    let answer = click(&dom, &by_id(&dom, "shape"));
    assert_eq!(result(&answer)["tag"], "rect");
    assert_eq!(out_text(&dom), "shape clicked");

    // Clicking a filled field reports no text: it could be what the user typed.
    let dom = load(FORM).await;
    let notes = by_selector(&dom, "textarea");
    let answer = click(&dom, &notes);
    assert_eq!(result(&answer)["text"], "");
    assert!(!answer.to_string().contains("typed-notes-value"), "{answer}");
}

#[wasm_bindgen_test]
async fn elements_that_are_gone_hidden_or_disabled_are_refused() {
    let dom = load(&tools_page()).await;
    let doomed = by_id(&dom, "doomed");
    let doomed_handle = handle(&dom, &doomed);
    doomed.remove();
    assert_error(&run(&dom, "browser.click", json!({ "handleId": doomed_handle })), Code::ToolElementGone);
    assert_error(&run(&dom, "browser.click", json!({ "handleId": "laika-987654" })), Code::ToolElementGone);
    assert_error(&run(&dom, "browser.click", json!({ "handleId": "not-a-handle" })), Code::ToolElementGone);

    for id in ["none", "invisible", "nested", "tiny"] {
        assert_error(&click(&dom, &by_id(&dom, id)), Code::ToolElementHidden);
    }
    for id in ["off", "in-fieldset", "link-in-fieldset", "aria-child", "aria-button"] {
        assert_error(&click(&dom, &by_id(&dom, id)), Code::ToolElementDisabled);
    }
    assert_error(&type_into(&dom, &by_id(&dom, "in-fieldset"), "x"), Code::ToolElementDisabled);
    assert_eq!(out_text(&dom), "nothing yet", "no refused click ran a handler");

    // The fixture's disabled button.
    let dom = load(FORM).await;
    let disabled = by_selector(&dom, "button[disabled]");
    assert_error(&click(&dom, &disabled), Code::ToolElementDisabled);
}

#[wasm_bindgen_test]
async fn typing_sets_the_value_fires_events_and_never_echoes_the_text() {
    let dom = load(FORM).await;
    let form = by_selector(&dom, "form");
    let log = EventLog::listen(&form);

    let name = by_id(&dom, "name");
    let answer = type_into(&dom, &name, "Ada Lovelace");
    assert_eq!(result(&answer)["chars"], 12);
    assert_eq!(result(&answer)["complete"], true);
    assert_eq!(result(&answer)["tag"], "input");
    assert_eq!(input_value(&name), "Ada Lovelace");
    // The property changed, not the markup.
    assert_eq!(name.get_attribute("value").as_deref(), Some("prefilled-name-value"));
    assert_eq!(log.take(), ["input:name", "change:name"]);
    let text = answer.to_string();
    assert!(!text.contains("Ada") && !text.contains("prefilled"), "{answer}");

    for (selector, typed) in
        [("#mail", "ada@example.com"), ("input[type=search]", "lamps"), ("input[type=tel]", "+44 1")]
    {
        let field = by_selector(&dom, selector);
        let answer = type_into(&dom, &field, typed);
        assert_eq!(result(&answer)["chars"], typed.chars().count(), "{selector}");
        assert_eq!(input_value(&field), typed, "{selector}");
        assert!(!answer.to_string().contains(typed));
    }
    log.take();

    let notes = by_selector(&dom, "textarea");
    let answer = type_into(&dom, &notes, "Leave it at the door");
    assert_eq!(result(&answer)["tag"], "textarea");
    assert_eq!(notes.unchecked_ref::<HtmlTextAreaElement>().value(), "Leave it at the door");
    assert!(!answer.to_string().contains("door") && !answer.to_string().contains("typed-notes-value"));
    assert_eq!(log.take(), ["input:", "change:"]);

    // Typing an empty string clears a field.
    let answer = type_into(&dom, &name, "");
    assert_eq!(result(&answer)["chars"], 0);
    assert_eq!(input_value(&name), "");

    let dom = load(&tools_page()).await;
    let number = by_id(&dom, "num");
    assert_eq!(result(&type_into(&dom, &number, "42"))["complete"], true);
    assert_eq!(input_value(&number), "42");
    // A number field cannot hold letters: the answer says so, without saying what it holds or
    // what was typed, and the field keeps its value.
    let refused = type_into(&dom, &number, "forty-two");
    assert_error(&refused, Code::ToolArgsInvalid);
    assert!(!refused.to_string().contains("forty"), "{refused}");
    assert_eq!(input_value(&number), "42");

    let editor = by_id(&dom, "editor");
    let log = EventLog::listen(&editor);
    let answer = type_into(&dom, &editor, "Hello there");
    assert_eq!(result(&answer)["chars"], 11);
    assert_eq!(editor.text_content().unwrap(), "Hello there");
    assert_eq!(log.take(), ["input:editor"]);
    assert!(!answer.to_string().contains("Hello"));

    assert_error(&type_into(&dom, &by_id(&dom, "ro"), "x"), Code::ToolElementReadonly);
    assert_eq!(input_value(&by_id(&dom, "ro")), "fixed");
    assert_error(&type_into(&dom, &by_id(&dom, "check"), "x"), Code::ToolElementUnsupported);
    assert_error(&type_into(&dom, &by_id(&dom, "go"), "x"), Code::ToolElementUnsupported);
    assert_error(&type_into(&dom, &by_id(&dom, "many"), "x"), Code::ToolElementUnsupported);
}

#[wasm_bindgen_test]
async fn secret_hidden_and_file_fields_are_refused_and_left_alone() {
    let dom = load(FORM).await;
    let form = by_selector(&dom, "form");
    let log = EventLog::listen(&form);
    // Password, one-time code, card number, CVC (by its name), the hidden CSRF token.
    for selector in ["#pw", "#otp", "#cc", "#cvc", "input[type=hidden]"] {
        let field = by_selector(&dom, selector);
        let before = input_value(&field);
        let answer = type_into(&dom, &field, "999999");
        assert_error(&answer, Code::ToolFieldRefused);
        assert_eq!(input_value(&field), before, "{selector}");
        let text = answer.to_string();
        assert!(!text.contains("999999") && !text.contains("hunter2") && !text.contains("csrf-token"), "{answer}");
    }
    assert_eq!(input_value(&by_id(&dom, "pw")), "hunter2-secret");
    assert!(log.take().is_empty(), "a refused field got events");

    let dom = load(&tools_page()).await;
    assert_error(&type_into(&dom, &by_id(&dom, "file"), "/etc/passwd"), Code::ToolFieldRefused);
    assert_error(&type_into(&dom, &by_id(&dom, "expiry-month"), "12"), Code::ToolFieldRefused);
    // Selecting in a payment field is refused too.
    let expiry = by_id(&dom, "exp");
    assert_error(&select(&dom, &expiry, "02"), Code::ToolFieldRefused);
    assert_eq!(expiry.unchecked_ref::<HtmlSelectElement>().value(), "01");
}

#[wasm_bindgen_test]
async fn a_password_is_typed_only_when_the_host_released_it_as_the_user_s_own() {
    let dom = load(FORM).await;
    let field = by_selector(&dom, "#pw");
    let arguments: Map<String, Value> =
        json!({ "handleId": handle(&dom, &field), "text": "from-the-goal" }).as_object().cloned().unwrap_or_default();
    assert_error(&run_tool(&dom, "browser.type", &arguments, false), Code::ToolFieldRefused);
    assert_eq!(input_value(&field), "hunter2-secret");
    let typed = run_tool(&dom, "browser.type", &arguments, true);
    assert_eq!(typed["ok"], true, "{typed}");
    assert_eq!(input_value(&field), "from-the-goal");
    assert!(!typed.to_string().contains("from-the-goal"), "{typed}");
    // Released as a password, a one-time-code field is still refused.
    let otp = by_selector(&dom, "#otp");
    let arguments: Map<String, Value> =
        json!({ "handleId": handle(&dom, &otp), "text": "123456" }).as_object().cloned().unwrap_or_default();
    assert_error(&run_tool(&dom, "browser.type", &arguments, true), Code::ToolFieldRefused);
}

#[wasm_bindgen_test]
async fn select_matches_by_value_then_by_label() {
    let dom = load(FORM).await;
    let country = by_selector(&dom, "select");
    let log = EventLog::listen(&by_selector(&dom, "form"));
    let value = || country.unchecked_ref::<HtmlSelectElement>().value();
    assert_eq!(value(), "de");

    let answer = select(&dom, &country, "fr");
    assert_eq!(value(), "fr");
    assert_eq!(result(&answer)["value"], "fr");
    assert_eq!(result(&answer)["label"], "France");
    assert_eq!(log.take(), ["input:", "change:"]);

    let answer = select(&dom, &country, "  GERMANY ");
    assert_eq!(value(), "de");
    assert_eq!(result(&answer)["label"], "Germany");
    assert_eq!(log.take(), ["input:", "change:"]);

    let answer = select(&dom, &country, "Spain");
    assert_error(&answer, Code::ToolOptionNotFound);
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("\"France\"") && message.contains("\"Germany\""), "{message}");
    assert_eq!(value(), "de");
    assert!(log.take().is_empty());

    assert_error(&select(&dom, &by_id(&dom, "name"), "fr"), Code::ToolElementUnsupported);

    let dom = load(&tools_page()).await;
    let many = by_id(&dom, "many");
    let answer = select(&dom, &many, "Option 31");
    assert_error(&answer, Code::ToolOptionNotFound);
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("\"Option 20\"") && !message.contains("\"Option 21\""), "{message}");
    assert!(message.contains("and 10 more"), "{message}");
    assert_eq!(result(&select(&dom, &many, "option 25"))["value"], "v25");
    assert_eq!(result(&select(&dom, &many, "v3"))["label"], "Option 3");

    let with_disabled = by_id(&dom, "with-disabled");
    assert_error(&select(&dom, &with_disabled, "b"), Code::ToolElementDisabled);
    assert_eq!(with_disabled.unchecked_ref::<HtmlSelectElement>().value(), "a");

    // A multiple select adds to the selection.
    let multi = by_id(&dom, "multi");
    select(&dom, &multi, "x");
    select(&dom, &multi, "Y");
    assert_eq!(multi.unchecked_ref::<HtmlSelectElement>().selected_options().length(), 2);
}

#[wasm_bindgen_test]
async fn scroll_moves_the_page_and_reports_where_it_is() {
    let dom = load(&tools_page()).await;
    let window = dom.document().default_view().unwrap();
    assert_eq!(window.scroll_y().unwrap(), 0.0);
    let answer = run(&dom, "browser.scroll", json!({ "deltaY": 400 }));
    let scrolled = window.scroll_y().unwrap();
    assert_eq!(scrolled, 400.0);
    assert_eq!(result(&answer)["scrollY"], scrolled);
    assert_eq!(result(&answer)["moved"], 400.0);
    assert!(result(&answer)["maxScrollY"].as_i64().unwrap() > 4000, "{answer}");

    let answer = run(&dom, "browser.scroll", json!({ "deltaY": -100000 }));
    assert_eq!(result(&answer)["scrollY"], 0.0);
    assert_eq!(result(&answer)["moved"], -400.0);
    assert_eq!(window.scroll_y().unwrap(), 0.0);
}

#[wasm_bindgen_test]
async fn only_the_content_script_tools_run_and_arguments_are_checked() {
    let dom = load(&tools_page()).await;
    assert_error(&run(&dom, "browser.navigate", json!({ "url": "https://evil.example/" })), Code::ToolNotContentScript);
    assert_error(&run(&dom, "browser.observe_dom", json!({})), Code::ToolNotContentScript);
    assert_error(&run(&dom, "app.calculate", json!({ "expression": "1+1" })), Code::ToolNotContentScript);
    assert_error(&run(&dom, "browser.exec_js", json!({ "code": "1" })), Code::UnknownTool);
    let go = handle(&dom, &by_id(&dom, "go"));
    assert_error(&run(&dom, "browser.click", json!({ "handleId": go, "force": true })), Code::ToolArgsInvalid);
    assert_error(&run(&dom, "browser.click", json!({})), Code::ToolArgsInvalid);
    assert_error(&run(&dom, "browser.scroll", json!({ "deltaY": 1e9 })), Code::ToolArgOutOfRange);
    assert_eq!(out_text(&dom), "nothing yet");
}

#[wasm_bindgen_test]
async fn a_closed_shadow_root_is_invisible_to_the_reader() {
    let dom = load(&tools_page()).await;
    let document = dom.document();
    for (mode, id) in [(web_sys::ShadowRootMode::Open, "open-host"), (web_sys::ShadowRootMode::Closed, "closed-host")] {
        let host = document.create_element("div").unwrap();
        host.set_id(id);
        let shadow = host.attach_shadow(&web_sys::ShadowRootInit::new(mode)).unwrap();
        let paragraph = document.create_element("p").unwrap();
        paragraph.set_text_content(Some(&format!("Shadow text of {id}")));
        shadow.append_child(&paragraph).unwrap();
        document.body().unwrap().append_child(&host).unwrap();
    }
    let text = observe(&dom, "https://site.example/", &ObserveOptions::default()).text;
    assert!(text.contains("Shadow text of open-host"), "{text}");
    assert!(!text.contains("Shadow text of closed-host"), "{text}");
    assert!(dom.children(&Node::from(by_id(&dom, "closed-host"))).is_empty());
}

fn assert_rect_matches(element: &Element) {
    let expected = element.get_bounding_client_rect();
    let drawn = highlight_rect().expect("a box is shown");
    for (what, a, b) in [
        ("left", drawn.left(), expected.left()),
        ("top", drawn.top(), expected.top()),
        ("width", drawn.width(), expected.width()),
        ("height", drawn.height(), expected.height()),
    ] {
        assert!((a - b).abs() < 0.5, "{what}: box {a}, element {b}");
    }
}

fn overlay_hosts(dom: &LiveDom) -> u32 {
    dom.document().query_selector_all(OVERLAY_HOST_TAG).unwrap().length()
}

#[wasm_bindgen_test]
async fn highlight_boxes_the_element_without_changing_the_observation() {
    let dom = load(FORM).await;
    let url = "https://site.example/checkout";
    let before = observe(&dom, url, &ObserveOptions::default());

    let name = by_id(&dom, "name");
    assert!(highlight(&dom, &handle(&dom, &name)));
    assert_eq!(overlay_hosts(&dom), 1);
    let host = by_selector(&dom, OVERLAY_HOST_TAG);
    let html = dom.document().document_element().unwrap();
    assert!(host.parent_element().unwrap().is_same_node(Some(&html)), "the host hangs off <html>");
    assert!(host.shadow_root().is_none(), "the overlay's shadow root is closed");
    assert!(dom.children(&Node::from(host.clone())).is_empty());
    assert_rect_matches(&name);
    // Visible in the viewport.
    let rect = name.get_bounding_client_rect();
    let window = dom.document().default_view().unwrap();
    let height = window.inner_height().unwrap().as_f64().unwrap();
    assert!(rect.top() >= 0.0 && rect.bottom() <= height, "the element was scrolled into view");

    let during = observe(&dom, url, &ObserveOptions::default());
    assert_eq!(during, before, "the overlay changed the observation");

    // One box at a time.
    let notes = by_selector(&dom, "textarea");
    assert!(highlight(&dom, &handle(&dom, &notes)));
    assert_eq!(overlay_hosts(&dom), 1);
    assert_rect_matches(&notes);

    clear_highlight();
    assert_eq!(overlay_hosts(&dom), 0);
    assert!(highlight_rect().is_none());
    assert_eq!(observe(&dom, url, &ObserveOptions::default()), before);
    clear_highlight();

    // Nothing is drawn for a hidden or a missing element.
    assert!(!highlight(&dom, &handle(&dom, &by_selector(&dom, "input[type=hidden]"))));
    assert!(!highlight(&dom, "laika-987654"));
    assert_eq!(overlay_hosts(&dom), 0);
}

#[wasm_bindgen_test]
async fn the_box_follows_its_element_when_the_page_scrolls_or_resizes() {
    let dom = load(&tools_page()).await;
    let middle = by_id(&dom, "middle");
    assert!(highlight(&dom, &handle(&dom, &middle)));
    assert_rect_matches(&middle);
    let window = dom.document().default_view().unwrap();
    // Scroll and resize events are delivered with the next frame.
    let settle = || gloo_timers::future::TimeoutFuture::new(150);
    window.scroll_to_with_x_and_y(0.0, 0.0);
    settle().await;
    assert_rect_matches(&middle);
    let top = middle.get_bounding_client_rect().top();
    window.scroll_by_with_x_and_y(0.0, 60.0);
    settle().await;
    assert!((middle.get_bounding_client_rect().top() - (top - 60.0)).abs() < 0.5);
    assert_rect_matches(&middle);

    let left = middle.get_bounding_client_rect().left();
    let frame: web_sys::HtmlElement = window.frame_element().unwrap().unwrap().unchecked_into();
    frame.style().set_property("width", "500px").unwrap();
    settle().await;
    assert!((middle.get_bounding_client_rect().left() - left).abs() > 50.0, "the centred element moved");
    assert_rect_matches(&middle);

    clear_highlight();
    assert_eq!(overlay_hosts(&dom), 0);
    // Scrolling after the box is gone is harmless (the listeners went with it).
    window.scroll_by_with_x_and_y(0.0, 30.0);
    settle().await;
    assert!(highlight_rect().is_none());
}

#[wasm_bindgen_test]
async fn the_links_of_the_selection_are_listed_absolute_redacted_and_once() {
    let dom = load(
        r#"<!doctype html><html><body>
<p id="before">Before: <a href="https://outside.example/">outside</a></p>
<div id="picked">Read <a href="/guide?id=4&amp;token=abc123">the guide</a>, <a href="https://docs.example/a">docs</a>,
<a href="javascript:void(0)">a script</a>, <a href="/guide?id=4&amp;token=abc123">the guide again</a>
and <a href="https://docs.example/b">more docs</a>.</div>
</body></html>"#,
    )
    .await;
    let window = dom.document().default_view().expect("a window");
    let selection = window.get_selection().unwrap().expect("a selection");
    selection.remove_all_ranges().unwrap();
    assert_error(&run(&dom, "browser.get_selection_links", json!({})), Code::ToolNoSelection);

    let range = dom.document().create_range().unwrap();
    range.select_node_contents(&by_id(&dom, "picked")).unwrap();
    selection.add_range(&range).unwrap();
    let answer = run(&dom, "browser.get_selection_links", json!({}));
    let links = result(&answer)["links"].as_array().unwrap().clone();
    let urls: Vec<&str> = links.iter().map(|l| l["url"].as_str().unwrap()).collect();
    // The link before the selection, the script link and the repeat are not listed; the
    // relative link is absolute and its token redacted as the observation redacts it.
    assert_eq!(urls.len(), 3, "{answer}");
    assert!(urls[0].contains("/guide?id=4"), "{}", urls[0]);
    assert!(!urls[0].contains("abc123"), "the token is redacted: {}", urls[0]);
    assert_eq!(&urls[1..], ["https://docs.example/a", "https://docs.example/b"]);
    assert_eq!(links[1]["text"], "docs");
    assert_eq!(result(&answer)["truncated"], false);
    // Each link's handle names it, for a later click.
    let docs = dom.element(links[1]["handleId"].as_str().unwrap()).expect("the handle names the link");
    assert_eq!(docs.text_content().unwrap(), "docs");

    let first = run(&dom, "browser.get_selection_links", json!({ "maxLinks": 1 }));
    assert_eq!(result(&first)["count"], 1);
    assert_eq!(result(&first)["truncated"], true);
    assert_error(&run(&dom, "browser.get_selection_links", json!({ "maxLinks": 0 })), Code::ToolArgOutOfRange);
    selection.remove_all_ranges().unwrap();
}
