//! The sidecar: Laika's one page of UI (Chrome's side panel, Firefox's sidebar, Safari's popup,
//! or a frame in the page where none of those exists).
//!
//! - **Summarise** reads the whole page (the chunked observation, cursor by cursor), starts a
//!   summary in the host and polls it: text is only ever appended, the reading progress and
//!   finally the coverage of the page are shown, then the citations, each of which lights up its
//!   element in the page on hover or focus.
//! - **Ask** sends the question as a planning goal. A goal that only reads the page (a question,
//!   "summarise") proposes no action and is answered by the grounded read, as Summarise is.
//!   Otherwise the reply's render is drawn through the render AST ([`crate::render_dom`]); every call the Policy Gate answered `ask` becomes an
//!   approval card, and nothing runs before Approve. Approved and allowed calls run in the
//!   observed tab; the page is observed again and the host plans the next step, up to the
//!   host's step bound. Denied calls are shown as refused.
//! - The model's state (loading, ready, failed, not installed) and the history of conversations
//!   come from the host.
//!
//! All text from the page or the model reaches the screen through `textContent` or the render
//! AST's renderer; never as HTML.

mod services;

use crate::approval::ApprovalCard;
use crate::ext::{self, ExtError};
use crate::render_dom;
use laika_shared::observation::Observation;
use laika_shared::policy::{Decision, origin_of};
use laika_shared::tools::RawToolCall;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlElement, HtmlTextAreaElement};

/// Characters of page text per observation request while reading a page whole.
const READ_CHUNK_CHARS: u32 = 60_000;
/// Pause between summary polls.
const POLL_MS: u32 = 120;
/// Budgets of the observation a planning step sees.
const PLAN_OBSERVATION: &str = r#"{"maxChars": 12000, "maxElements": 160}"#;

#[derive(Default)]
struct State {
    /// The tab this sidecar acts on: fixed by `?tab=` or the frame's own tab, else the active
    /// tab when an action starts.
    fixed_tab: Option<i64>,
    conversation_id: Option<String>,
    busy: bool,
    /// The site (match pattern) a tab operation was last refused for: the next click asks the
    /// browser for it at once, inside the click (Firefox accepts the request only there).
    needs_site: Option<String>,
    /// The browser's answer to that request, awaited by the operation the click starts.
    site_request: Option<js_sys::Promise>,
    /// When the last call of a run ran (ms since the epoch): a pause the goal asks for between
    /// two steps counts from there.
    last_call_at: Option<f64>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn document() -> Document {
    web_sys::window().and_then(|w| w.document()).expect("the sidecar has a document")
}

fn by_id(id: &str) -> Element {
    document().get_element_by_id(id).unwrap_or_else(|| panic!("the sidecar's #{id}"))
}

/// Starts the sidecar: called once by `sidecar.js` after the WASM is instantiated.
#[wasm_bindgen(js_name = sidecarStart)]
pub fn sidecar_start() -> Result<(), JsValue> {
    let params = web_sys::Url::new(&web_sys::window().ok_or("no window")?.location().href()?)?.search_params();
    let fixed_tab = params.get("tab").and_then(|t| t.parse::<i64>().ok());
    let embedded = params.get("embedded").is_some();
    STATE.with(|s| s.borrow_mut().fixed_tab = fixed_tab);
    if embedded {
        // Framed into a page: the skeleton gets a Close button.
        document().document_element().ok_or("no root")?.class_list().add_1("embedded")?;
    }
    build_skeleton()?;
    if embedded {
        wasm_bindgen_futures::spawn_local(async {
            if let Ok(who) = router(json!({ "to": "whoami" })).await
                && let Some(tab) = who.get("tabId").and_then(Value::as_i64)
            {
                STATE.with(|s| s.borrow_mut().fixed_tab = Some(tab));
            }
        });
    }
    wasm_bindgen_futures::spawn_local(watch_model_status());
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Talking to the router (in this page, or in the background).

/// A message for the router: run in this page's own instance where it can be
/// ([`crate::background::runs_here`]), else sent to the background.
async fn router(message: Value) -> Result<Value, ExtError> {
    if crate::background::runs_here(&message) {
        return crate::background::handle_here(&message).await;
    }
    let answer = ext::send_message(&message).await?;
    ext::unwrap_reply(&answer, ("EXT_NO_ANSWER", "the background did not answer"))
}

async fn host(method: &str, params: Value) -> Result<Value, ExtError> {
    router(json!({ "to": "host", "method": method, "params": params })).await
}

/// An operation in the tab. Where the browser has not given Laika the tab's site (the user opened
/// the panel and then switched tabs, or the page moved to another site), the browser's own
/// prompt asks the user for it, here in the click that asked for the operation, and it is tried
/// once more; declined, nothing on the page is read.
async fn tab_op(tab_id: i64, op: &str, mut extra: Value) -> Result<Value, ExtError> {
    extra["to"] = json!("tab");
    extra["tabId"] = json!(tab_id);
    extra["op"] = json!(op);
    match router(extra.clone()).await {
        Err(refused) if refused.code == "EXT_NO_SITE_ACCESS" => {
            let url = tab_url(tab_id).await.unwrap_or_default();
            let granted = match take_site_request() {
                Some(asked) => asked.await,
                None => request_site(&url).await.unwrap_or(false),
            };
            if granted {
                STATE.with(|s| s.borrow_mut().needs_site = None);
                return router(extra).await;
            }
            // Declined, or asked where the browser does not take it (Firefox: only within the
            // click itself): the next click asks at once.
            STATE.with(|s| s.borrow_mut().needs_site = site_pattern(&url));
            let site = origin_of(&url).unwrap_or(url);
            Err(ExtError::new(
                refused.code.as_str(),
                format!(
                    "Laika may not read {site} yet. Click again and allow it when your browser asks, or use Laika's button in the toolbar on this page."
                ),
            ))
        }
        other => other,
    }
}

/// Called first thing in a click that starts an action: where a site was refused before, the
/// browser is asked for it now, while the click is still being handled.
fn ask_site_in_click() {
    // An answer to an earlier click's request belongs to that click.
    let pattern = STATE.with(|s| {
        let mut state = s.borrow_mut();
        state.site_request = None;
        state.needs_site.clone()
    });
    if let Some(pattern) = pattern {
        request_in_click(&pattern);
    }
}

/// Asks the browser for a site now, within the click being handled; the operation the click
/// starts awaits the answer ([`take_site_request`]).
fn request_in_click(pattern: &str) {
    let promise = permission_request(pattern).ok();
    STATE.with(|s| s.borrow_mut().site_request = promise);
}

/// The browser's `permissions.request` for one site (a match pattern).
fn permission_request(pattern: &str) -> Result<js_sys::Promise, ExtError> {
    ext::call("permissions.request", &[ext::to_js(&json!({ "origins": [pattern] }))])?
        .dyn_into::<js_sys::Promise>()
        .map_err(|_| ExtError::new("EXT_CALL_FAILED", "permissions.request gave no promise"))
}

/// The answer to the request a click made, if it made one.
fn take_site_request() -> Option<impl std::future::Future<Output = bool>> {
    let promise = STATE.with(|s| s.borrow_mut().site_request.take())?;
    Some(
        async move { wasm_bindgen_futures::JsFuture::from(promise).await.ok().and_then(|v| v.as_bool()).unwrap_or(false) },
    )
}

async fn tab_url(tab_id: i64) -> Option<String> {
    ext::get_tab(tab_id).await.ok()?.get("url").and_then(Value::as_str).map(String::from)
}

/// The browser's match pattern for the site of `url` ("https://example.com/*", every port):
/// what Laika asks the user for. None for anything but a web page.
fn site_pattern(url: &str) -> Option<String> {
    let parsed = laika_shared::weburl::WebUrl::parse(url.trim())?;
    let scheme = parsed.scheme();
    matches!(scheme.as_str(), "http" | "https").then_some(())?;
    Some(format!("{scheme}://{}/*", parsed.host()?))
}

/// The site (match pattern) a navigation call would take the tab to, when it is not the run's.
fn other_site(run: &Run, call: &Value) -> Option<String> {
    let name = call["name"].as_str().unwrap_or_default();
    if !matches!(name, "browser.navigate" | "browser.open_tab" | "source.capture") {
        return None;
    }
    let target = site_pattern(call["arguments"]["url"].as_str()?)?;
    (Some(&target) != run.origin.as_deref().and_then(site_pattern).as_ref()).then_some(target)
}

/// Asks the browser for Laika's access to the site of `url`: its own prompt, or at once when the
/// user allowed the site before (in the prompt or the browser's extension settings). Browsers
/// accept the request only within a click, so it is made before anything else is awaited.
async fn request_site(url: &str) -> Result<bool, ExtError> {
    let Some(pattern) = site_pattern(url) else { return Ok(false) };
    request_pattern(&pattern).await
}

async fn request_pattern(pattern: &str) -> Result<bool, ExtError> {
    let granted = wasm_bindgen_futures::JsFuture::from(permission_request(pattern)?)
        .await
        .map_err(|e| ExtError::from_js("EXT_CALL_FAILED", &e))?;
    Ok(granted.as_bool() == Some(true))
}

async fn current_tab() -> Result<i64, ExtError> {
    if let Some(tab) = STATE.with(|s| s.borrow().fixed_tab) {
        return Ok(tab);
    }
    let query = json!({ "active": true, "currentWindow": true });
    let tabs: Vec<Value> = ext::from_js(ext::call_async("tabs.query", &[ext::to_js(&query)]).await?)?;
    tabs.first()
        .and_then(|t| t.get("id"))
        .and_then(Value::as_i64)
        .ok_or_else(|| ExtError::new("EXT_NO_TAB", "there is no page to read in this window"))
}

/// Reads the page whole: one observation, its text gathered chunk by chunk with the cursor.
async fn read_page(tab_id: i64, progress: &Element) -> Result<Observation, ExtError> {
    let mut cursor = 0u64;
    let mut whole: Option<Observation> = None;
    loop {
        let args = json!({ "maxChars": READ_CHUNK_CHARS, "cursor": cursor });
        let chunk = tab_op(tab_id, "observe", json!({ "args": args })).await?;
        let observation: Observation = serde_json::from_value(chunk["observation"].clone())
            .map_err(|e| ExtError::new("OBSERVE_FAILED", format!("the page's observation does not parse: {e}")))?;
        let total = chunk["total_chars"].as_u64().unwrap_or(0);
        let next = chunk["cursor"].as_u64().unwrap_or(total);
        match whole.as_mut() {
            None => whole = Some(observation),
            Some(whole) => whole.text.push_str(&observation.text),
        }
        if total > READ_CHUNK_CHARS as u64 {
            progress.set_text_content(Some(&format!("Reading the page… {}%", next * 100 / total.max(1))));
        }
        if chunk["done"].as_bool() != Some(false) || next <= cursor {
            break;
        }
        cursor = next;
    }
    whole.ok_or_else(|| ExtError::new("OBSERVE_FAILED", "the page gave no observation"))
}

async fn observe_for_plan(tab_id: i64) -> Result<Observation, ExtError> {
    let args: Value = serde_json::from_str(PLAN_OBSERVATION).unwrap_or_default();
    let chunk = tab_op(tab_id, "observe", json!({ "args": args })).await?;
    serde_json::from_value(chunk["observation"].clone())
        .map_err(|e| ExtError::new("OBSERVE_FAILED", format!("the page's observation does not parse: {e}")))
}

async fn open_tabs(tab_id: i64) -> Value {
    match router(json!({ "to": "tabs", "tabId": tab_id })).await {
        Ok(list) => Value::Array(
            list["tabs"]
                .as_array()
                .map(|tabs| tabs.iter().map(|t| json!({ "title": t["title"], "url": t["origin"] })).collect())
                .unwrap_or_default(),
        ),
        Err(_) => json!([]),
    }
}

// ---------------------------------------------------------------------------------------------
// Building the page.

fn el(tag: &str, class: &str) -> Element {
    let element = document().create_element(tag).expect("createElement");
    if !class.is_empty() {
        element.set_class_name(class);
    }
    element
}

fn text_el(tag: &str, class: &str, text: &str) -> Element {
    let element = el(tag, class);
    element.set_text_content(Some(text));
    element
}

fn button(label: &str, class: &str) -> Element {
    let b = text_el("button", class, label);
    let _ = b.set_attribute("type", "button");
    b
}

/// Adds an event listener that lives as long as the page.
fn on(target: &Element, event: &str, handler: impl FnMut(web_sys::Event) + 'static) {
    let closure = Closure::<dyn FnMut(web_sys::Event)>::new(handler);
    let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    closure.forget();
}

fn build_skeleton() -> Result<(), JsValue> {
    let body = document().body().ok_or("no body")?;
    let header = el("header", "bar");
    header.append_child(&text_el("h1", "brand", "Laika"))?;
    let status = text_el("span", "status", "Connecting…");
    status.set_id("status");
    status.set_attribute("role", "status")?;
    header.append_child(&status)?;
    // The header's panels: (button, id, the panel's accessible name).
    const PANELS: [(&str, &str, &str); 4] = [
        ("History", "history", "History"),
        ("Notes", "notes", "Notes and collections"),
        ("Approvals", "approvals", "Approvals"),
        ("Services", "services", "Local services"),
    ];
    let mut panel_toggles = Vec::new();
    for (label, id, _) in PANELS {
        let toggle = button(label, "ghost");
        toggle.set_id(&format!("{id}-toggle"));
        toggle.set_attribute("aria-expanded", "false")?;
        toggle.set_attribute("aria-controls", id)?;
        header.append_child(&toggle)?;
        panel_toggles.push((toggle, id));
    }
    if document().document_element().is_some_and(|d| d.class_list().contains("embedded")) {
        let close = button("Close", "ghost");
        on(&close, "click", |_| {
            if let Some(parent) = web_sys::window().and_then(|w| w.parent().ok().flatten()) {
                let _ = parent.post_message(&"laika:close".into(), "*");
            }
        });
        header.append_child(&close)?;
    }
    body.append_child(&header)?;

    for (_, id, label) in PANELS {
        let panel = el("section", id);
        panel.set_id(id);
        panel.set_attribute("aria-label", label)?;
        panel.set_attribute("hidden", "")?;
        body.append_child(&panel)?;
    }

    let log = el("main", "log");
    log.set_id("log");
    log.set_attribute("aria-live", "polite")?;
    log.append_child(&text_el(
        "p",
        "hint",
        "Summarise this page, or ask about it. Laika runs on this computer; nothing happens on the page \
         until you approve it.",
    ))?;
    body.append_child(&log)?;

    let form = el("form", "composer");
    form.set_id("composer");
    let summarise = button("Summarise", "primary");
    summarise.set_id("summarise");
    form.append_child(&summarise)?;
    let input = el("textarea", "input");
    input.set_id("input");
    input.set_attribute("rows", "2")?;
    input.set_attribute("placeholder", "Ask about this page…")?;
    input.set_attribute("aria-label", "Ask Laika about this page")?;
    form.append_child(&input)?;
    let ask = text_el("button", "secondary", "Ask");
    ask.set_id("ask");
    ask.set_attribute("type", "submit")?;
    form.append_child(&ask)?;
    body.append_child(&form)?;

    on(&summarise, "click", |_| {
        ask_site_in_click();
        wasm_bindgen_futures::spawn_local(run_guarded(Action::Summarise))
    });
    on(&form, "submit", |event| {
        event.prevent_default();
        ask_site_in_click();
        submit_question();
    });
    on(&input, "keydown", |event| {
        let Some(key) = event.dyn_ref::<web_sys::KeyboardEvent>() else { return };
        if key.key() == "Enter" && !key.shift_key() && !key.is_composing() {
            event.prevent_default();
            ask_site_in_click();
            submit_question();
        }
    });
    for (toggle, id) in panel_toggles {
        on(&toggle, "click", move |_| match id {
            "history" => wasm_bindgen_futures::spawn_local(toggle_history()),
            "approvals" => wasm_bindgen_futures::spawn_local(services::toggle_approvals()),
            "notes" => wasm_bindgen_futures::spawn_local(services::toggle_notes()),
            _ => wasm_bindgen_futures::spawn_local(services::toggle_services()),
        });
    }
    // Escape takes any highlight off the page.
    let root = document().document_element().ok_or("no root")?;
    on(&root, "keydown", |event| {
        if event.dyn_ref::<web_sys::KeyboardEvent>().is_some_and(|k| k.key() == "Escape") {
            wasm_bindgen_futures::spawn_local(clear_highlight());
        }
    });
    Ok(())
}

fn submit_question() {
    let input: HtmlTextAreaElement = by_id("input").unchecked_into();
    let question = input.value().trim().to_string();
    if question.is_empty() {
        return;
    }
    input.set_value("");
    wasm_bindgen_futures::spawn_local(run_guarded(Action::Ask(question)));
}

enum Action {
    Summarise,
    Ask(String),
}

/// One action at a time: the buttons are disabled while it runs.
async fn run_guarded(action: Action) {
    if STATE.with(|s| std::mem::replace(&mut s.borrow_mut().busy, true)) {
        return;
    }
    set_disabled(true);
    let turn = new_turn(match &action {
        Action::Summarise => "Summarise this page",
        Action::Ask(question) => question,
    });
    let result = match action {
        Action::Summarise => summarise(&turn, None).await,
        Action::Ask(goal) => ask(&turn, &goal).await,
    };
    if let Err(error) = result {
        show_error(&turn, &error);
    }
    STATE.with(|s| s.borrow_mut().busy = false);
    set_disabled(false);
}

fn set_disabled(disabled: bool) {
    for id in ["summarise", "ask"] {
        let b = by_id(id);
        let _ = if disabled { b.set_attribute("disabled", "") } else { b.remove_attribute("disabled") };
    }
}

/// A turn in the log: the user's words, then Laika's answer as it comes.
fn new_turn(user_text: &str) -> Element {
    let log = by_id("log");
    let turn = el("article", "turn");
    turn.append_child(&text_el("p", "user", user_text)).ok();
    let answer = el("div", "answer");
    turn.append_child(&answer).ok();
    log.append_child(&turn).ok();
    scroll_to_end();
    answer
}

fn scroll_to_end() {
    let log: HtmlElement = by_id("log").unchecked_into();
    log.set_scroll_top(log.scroll_height());
}

fn show_error(answer: &Element, error: &ExtError) {
    let text = match error.code.as_str() {
        "HOST_UNREACHABLE" | "HOST_DISCONNECTED" => format!(
            "Laika's native host is not reachable ({}). Install it with `cargo xtask install`, then try again.",
            error.message
        ),
        "TAB_UNREACHABLE" => format!("Laika cannot read this page: {}", error.message),
        _ => format!("{} ({})", error.message, error.code),
    };
    let p = text_el("p", "error", &text);
    p.set_attribute("role", "alert").ok();
    answer.append_child(&p).ok();
    scroll_to_end();
}

// ---------------------------------------------------------------------------------------------
// Summaries.

async fn summarise(answer: &Element, question: Option<&str>) -> Result<(), ExtError> {
    let tab_id = current_tab().await?;
    let progress_line = text_el("p", "progress", "Reading the page…");
    answer.append_child(&progress_line).ok();
    let observation = read_page(tab_id, &progress_line).await?;
    let conversation_id = STATE.with(|s| s.borrow().conversation_id.clone());
    let mut params = json!({ "observation": observation, "conversation_id": conversation_id });
    if let Some(question) = question {
        params["question"] = json!(question);
    }
    let started = host("summary.start", params).await?;
    remember_conversation(&started);
    let job_id = started["job_id"].as_str().unwrap_or_default().to_string();
    progress_line.set_text_content(Some("Summarising…"));
    let bar = el("progress", "bar");
    answer.insert_before(&bar, Some(&progress_line)).ok();
    let stream = el("div", "stream");
    answer.insert_before(&stream, Some(&bar)).ok();
    let stop = button("Stop", "ghost");
    answer.append_child(&stop).ok();
    let stop_job = job_id.clone();
    on(&stop, "click", move |_| {
        let job = stop_job.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let _ = host("summary.cancel", json!({ "job_id": job })).await;
        });
    });

    let mut cursor = 0u64;
    let last = loop {
        let poll = host("summary.poll", json!({ "job_id": job_id, "cursor": cursor })).await?;
        if let Some(delta) = poll["delta"].as_str().filter(|d| !d.is_empty()) {
            // Append-only: a new text node per delta, never a rewrite of what is shown.
            stream.append_child(&document().create_text_node(delta)).ok();
            scroll_to_end();
        }
        cursor = poll["cursor"].as_u64().unwrap_or(cursor);
        let (done_chunks, total_chunks) = (poll["chunks_done"].as_u64(), poll["chunks_total"].as_u64());
        if let (Some(done), Some(total)) = (done_chunks, total_chunks)
            && total > 0
        {
            bar.set_attribute("max", &total.to_string()).ok();
            bar.set_attribute("value", &done.to_string()).ok();
            if total > 1 {
                progress_line
                    .set_text_content(Some(&format!("Summarising… part {} of {total}", (done + 1).min(total))));
            }
        }
        if poll["done"].as_bool() == Some(true) {
            break poll;
        }
        ext::sleep_ms(POLL_MS).await;
    };
    stop.remove();
    bar.remove();
    progress_line.set_text_content(Some(&coverage_line(&last)));
    // summary.poll reports a failure as {code, message}.
    let error = &last["error"];
    if let Some(message) = error["message"].as_str().or_else(|| error.as_str()).filter(|m| !m.is_empty()) {
        show_error(answer, &ExtError::new(error["code"].as_str().unwrap_or("SUMMARY_FAILED"), message));
    }
    if last["cancelled"].as_bool() == Some(true) {
        answer.append_child(&text_el("p", "note", "Stopped.")).ok();
    }
    // Why only the page's own points are shown, or that the page does not answer the question.
    if let Some(notice) = last["notice"].as_str().filter(|n| !n.is_empty()) {
        answer.append_child(&text_el("p", "note", notice)).ok();
    }
    let citations = last.pointer("/result/response/assistant/citations").cloned().unwrap_or(json!([]));
    show_citations(answer, &citations, tab_id);
    Ok(())
}

fn coverage_line(poll: &Value) -> String {
    let read = poll.pointer("/coverage/chars_read").and_then(Value::as_u64).unwrap_or(0);
    let total = poll.pointer("/coverage/chars_total").and_then(Value::as_u64).unwrap_or(0);
    let ratio = poll.pointer("/coverage/ratio").and_then(Value::as_f64).unwrap_or(0.0);
    let chunks = poll["chunks_total"].as_u64().unwrap_or(1);
    let percent = (ratio * 100.0).floor() as u64;
    let parts = if chunks > 1 { format!(", in {chunks} parts") } else { String::new() };
    format!("Read {percent}% of the page ({read} of {total} characters{parts}).")
}

fn remember_conversation(reply: &Value) {
    if let Some(id) = reply.pointer("/conversation/id").and_then(Value::as_str) {
        STATE.with(|s| s.borrow_mut().conversation_id = Some(id.to_string()));
    }
}

/// The citations under an answer: each quote lights up its element while pointed at or focused.
fn show_citations(answer: &Element, citations: &Value, tab_id: i64) {
    let Some(list) = citations.as_array().filter(|l| !l.is_empty()) else { return };
    let heading = text_el("h2", "sources", "Sources on this page");
    answer.append_child(&heading).ok();
    let ol = el("ol", "citations");
    for citation in list {
        let quote = citation["quote"].as_str().unwrap_or_default();
        if quote.is_empty() {
            continue;
        }
        let li = el("li", "");
        let cite = button(quote, "cite");
        let handle = citation["handle_id"].as_str().map(String::from);
        match &handle {
            Some(handle) => {
                cite.set_attribute("data-handle", handle).ok();
                cite.set_attribute("title", "Show on the page").ok();
            }
            None => {
                cite.set_attribute("aria-disabled", "true").ok();
            }
        }
        if let Some(handle) = handle {
            for event in ["mouseenter", "focus"] {
                let handle = handle.clone();
                on(&cite, event, move |_| {
                    let handle = handle.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let _ = tab_op(tab_id, "highlight", json!({ "handleId": handle })).await;
                    });
                });
            }
            for event in ["mouseleave", "blur"] {
                on(&cite, event, |_| wasm_bindgen_futures::spawn_local(clear_highlight()));
            }
        }
        li.append_child(&cite).ok();
        ol.append_child(&li).ok();
    }
    answer.append_child(&ol).ok();
    scroll_to_end();
}

async fn clear_highlight() {
    if let Ok(tab_id) = current_tab().await {
        let _ = tab_op(tab_id, "clear", json!({})).await;
    }
}

// ---------------------------------------------------------------------------------------------
// Planning, approvals and tools.

/// What a planning run needs from step to step.
#[derive(Clone)]
struct Run {
    tab_id: i64,
    goal: String,
    origin: Option<String>,
    observation: Rc<Observation>,
}

async fn ask(answer: &Element, goal: &str) -> Result<(), ExtError> {
    let tab_id = current_tab().await?;
    let thinking = text_el("p", "progress", "Looking at the page…");
    answer.append_child(&thinking).ok();
    let observation = observe_for_plan(tab_id).await?;
    let tabs = open_tabs(tab_id).await;
    thinking.set_text_content(Some("Thinking…"));
    let conversation_id = STATE.with(|s| s.borrow().conversation_id.clone());
    let reply = host(
        "plan",
        json!({ "goal": goal, "observation": observation, "tabs": tabs, "conversation_id": conversation_id }),
    )
    .await;
    thinking.remove();
    let reply = reply?;
    let run =
        Run { tab_id, goal: goal.to_string(), origin: origin_of(&observation.url), observation: Rc::new(observation) };
    show_step(answer, run, reply).await
}

/// Shows one planning step and runs what may run; approval cards continue the run on a click.
async fn show_step(answer: &Element, run: Run, reply: Value) -> Result<(), ExtError> {
    remember_conversation(&reply);
    let step = el("section", "step");
    answer.append_child(&step).ok();
    if let Some(render) = reply.get("render").filter(|r| !r.is_null()) {
        let (rendered, _dropped) =
            render_dom::render_value(&document(), render).map_err(|e| ExtError::from_js("RENDER_FAILED", &e))?;
        step.append_child(&rendered).ok();
    } else if let Some(summary) = reply["summary"].as_str().filter(|s| !s.is_empty()) {
        step.append_child(&text_el("p", "", summary)).ok();
    }
    show_citations(&step, &reply["citations"], run.tab_id);
    // A goal that only reads the page gets no action: it is answered from the page through the
    // grounded read (a summary, or the passages that answer the question, each cited).
    if reply["read_only"].as_bool() == Some(true) {
        let question = (reply["summary_request"] != true).then_some(run.goal.as_str());
        return summarise(&step, question).await;
    }
    let calls = reply["tool_calls"].as_array().map(Vec::as_slice).unwrap_or_default();
    let batch = plan_batch(&step, calls);
    let asks = batch.iter().filter(|c| verdict_of(c) == "ask").count();
    match (asks, batch.as_slice()) {
        (_, []) => {}
        (0, _) => {}
        (1, [call]) => show_card(&step, &run, &reply, call),
        _ => show_plan_card(&step, &run, &reply, batch.clone()),
    }
    for call in calls.iter().filter(|c| c["later"] == true) {
        if verdict_of(call) == "deny" { show_refused(&step, call) } else { show_later(&step, &run, call) }
    }
    // Nothing to ask: what the gate allows runs now (after the plan is shown whole).
    if asks == 0
        && !batch.is_empty()
        && let Err(error) = run_calls(&step, &run, &reply, &batch).await
    {
        show_error(&step, &error);
    }
    scroll_to_end();
    Ok(())
}

fn verdict_of(call: &Value) -> &str {
    call.pointer("/decision/verdict").and_then(Value::as_str).unwrap_or("deny")
}

/// The calls of a step that run now, in order (the host sends a step's calls only up to the
/// first that must ask on a card of its own: `agent::this_step`); denied calls are shown as
/// refused.
fn plan_batch(step: &Element, calls: &[Value]) -> Vec<Value> {
    let mut batch: Vec<Value> = Vec::new();
    for call in calls.iter().filter(|c| c["later"] != true) {
        if matches!(verdict_of(call), "allow" | "ask") {
            batch.push(call.clone());
        } else {
            show_refused(step, call);
        }
    }
    batch
}

fn show_refused(step: &Element, call: &Value) {
    let reason = call.pointer("/decision/reason").and_then(Value::as_str).unwrap_or("not allowed");
    let name = call["name"].as_str().unwrap_or_default();
    step.append_child(&text_el("p", "refused", &format!("Blocked by Laika's policy: {name} — {reason}."))).ok();
}

/// One card for the steps of a plan: each step in words with the Policy Gate's decision; one
/// Approve decides every approval the card holds and runs the steps in order.
fn show_plan_card(step: &Element, run: &Run, reply: &Value, batch: Vec<Value>) {
    let node = el("div", "card plan-card");
    node.set_attribute("role", "group").ok();
    node.set_attribute("aria-label", "Approval needed").ok();
    node.append_child(&text_el("p", "card-kicker", "Approval needed")).ok();
    node.append_child(&text_el("h3", "card-title", &format!("Run these {} steps", batch.len()))).ok();
    // Each step as the gate worded it, with the value it types or chooses. The steps on such a
    // card carry no warning (`policy::asks_together`): a warned call asks on a card of its own.
    let list = el("ol", "plan-steps");
    for call in &batch {
        let reason = call.pointer("/decision/reason").and_then(Value::as_str).unwrap_or_default();
        let value = ["text", "value"].iter().find_map(|k| call["arguments"][*k].as_str());
        let title = match value {
            Some(value) if value.chars().count() > 200 => {
                format!("{reason} — “{}…”", value.chars().take(200).collect::<String>())
            }
            Some(value) => format!("{reason} — “{value}”"),
            None => reason.to_string(),
        };
        let item = el("li", "plan-step");
        item.append_child(&text_el("span", "plan-step-title", &title)).ok();
        let gate = if verdict_of(call) == "ask" { "asks you" } else { "allowed" };
        item.append_child(&text_el("span", "plan-step-gate", gate)).ok();
        if let Some(wait) = call["wait_ms"].as_u64() {
            let tenths = wait.div_ceil(100);
            let after = format!("after {}.{} s", tenths / 10, tenths % 10);
            item.append_child(&text_el("span", "plan-step-gate", &after)).ok();
        }
        list.append_child(&item).ok();
    }
    node.append_child(&list).ok();
    let actions = el("div", "card-actions");
    let approve = button("Approve", "primary");
    let deny = button("Deny", "secondary");
    actions.append_child(&approve).ok();
    actions.append_child(&deny).ok();
    node.append_child(&actions).ok();
    let outcome = text_el("p", "card-outcome", "");
    outcome.set_attribute("role", "status").ok();
    node.append_child(&outcome).ok();
    step.append_child(&node).ok();
    let batch = Rc::new(batch);
    for (decision_name, button) in [("approve", approve.clone()), ("deny", deny.clone())] {
        let (run, reply, step, node, outcome, batch, buttons) = (
            run.clone(),
            reply.clone(),
            step.clone(),
            node.clone(),
            outcome.clone(),
            batch.clone(),
            [approve.clone(), deny.clone()],
        );
        on(&button, "click", move |_| {
            node.set_attribute("data-decided", "here").ok();
            for b in &buttons {
                b.set_attribute("disabled", "").ok();
            }
            let (run, reply, step, node, outcome, batch) =
                (run.clone(), reply.clone(), step.clone(), node.clone(), outcome.clone(), batch.clone());
            wasm_bindgen_futures::spawn_local(async move {
                node.class_list().add_1(if decision_name == "deny" { "denied" } else { "approved" }).ok();
                let result = decide_plan(decision_name, &step, &run, &reply, &batch, &outcome).await;
                if let Err(error) = result {
                    show_error(&step, &error);
                }
            });
        });
    }
}

/// A plan card's answer: every approval it holds decided alike; approved, the steps run.
async fn decide_plan(
    decision: &str,
    step: &Element,
    run: &Run,
    reply: &Value,
    batch: &[Value],
    outcome: &Element,
) -> Result<(), ExtError> {
    for call in batch.iter().filter(|c| verdict_of(c) == "ask") {
        let approval_id = call["approval_id"].as_str().unwrap_or_default();
        host("approval.decide", json!({ "approval_id": approval_id, "decision": decision })).await?;
    }
    if decision == "deny" {
        outcome.set_text_content(Some("Denied. Nothing was done."));
        return Ok(());
    }
    outcome.set_text_content(Some("Approved."));
    run_calls(step, run, reply, batch).await
}

/// A gated call of a step as typed data, its call and the gate's decision; one that cannot be
/// read is said so in the step, and nothing of it runs.
fn gated_call(step: &Element, call: &Value) -> Option<(laika_shared::tools::ToolCall, Decision)> {
    let raw = RawToolCall {
        name: call["name"].as_str().unwrap_or_default().to_string(),
        arguments: call["arguments"].as_object().cloned().unwrap_or_default(),
    };
    match (raw.to_typed(), serde_json::from_value::<Decision>(call["decision"].clone())) {
        (Ok(typed), Ok(decision)) => Some((typed, decision)),
        _ => {
            step.append_child(&text_el("p", "refused", "A proposed action could not be read; it was not run.")).ok();
            None
        }
    }
}

/// A card's body: what it asks, the tool, the target element, the arguments, the warnings.
fn card_node(card: &ApprovalCard, kicker: &str) -> Element {
    let node = el("div", "card");
    node.set_attribute("role", "group").ok();
    node.set_attribute("aria-label", kicker).ok();
    node.append_child(&text_el("p", "card-kicker", kicker)).ok();
    node.append_child(&text_el("h3", "card-title", &card.title)).ok();
    node.append_child(&text_el("code", "card-tool", card.tool)).ok();
    if let Some(target) = &card.target {
        let preview = el("div", "card-target");
        preview.append_child(&text_el("span", "card-role", &target.role)).ok();
        preview.append_child(&text_el("span", "card-text", &target.text)).ok();
        if let Some(href) = &target.href {
            preview.append_child(&text_el("span", "card-href", href)).ok();
        }
        node.append_child(&preview).ok();
    }
    if !card.arguments.is_empty() {
        let dl = el("dl", "card-args");
        for (key, value) in &card.arguments {
            dl.append_child(&text_el("dt", "", key)).ok();
            dl.append_child(&text_el("dd", "", value)).ok();
        }
        node.append_child(&dl).ok();
    }
    for warning in &card.warnings {
        node.append_child(&text_el("p", "card-warning", warning)).ok();
    }
    node
}

/// A call the plan makes after this step, shown as it will be asked, without buttons: it is
/// proposed again, and asked about, at its own step, on the page as it is then.
fn show_later(step: &Element, run: &Run, call: &Value) {
    let Some((typed, decision)) = gated_call(step, call) else { return };
    if let Some(card) = ApprovalCard::for_decision(&typed, &decision, Some(&run.observation)) {
        let node = card_node(&card, "Next, asked on its own");
        node.class_list().add_1("later").ok();
        step.append_child(&node).ok();
    }
}

/// The approval card for one `ask` call. Nothing runs until Approve (or Always on this site).
fn show_card(step: &Element, run: &Run, reply: &Value, call: &Value) {
    let Some((typed, decision)) = gated_call(step, call) else { return };
    let Some(card) = ApprovalCard::for_decision(&typed, &decision, Some(&run.observation)) else { return };
    let node = card_node(&card, "Approval needed");
    let actions = el("div", "card-actions");
    let approve = button("Approve", "primary");
    let deny = button("Deny", "secondary");
    actions.append_child(&approve).ok();
    actions.append_child(&deny).ok();
    let always = card.always_on_site.map(|_| button("Always on this site", "ghost"));
    if let Some(always) = &always {
        actions.append_child(always).ok();
    }
    node.append_child(&actions).ok();
    let outcome = text_el("p", "card-outcome", "");
    outcome.set_attribute("role", "status").ok();
    node.append_child(&outcome).ok();
    step.append_child(&node).ok();
    wasm_bindgen_futures::spawn_local(watch_elsewhere(
        step.clone(),
        run.clone(),
        reply.clone(),
        call.clone(),
        node.clone(),
        outcome.clone(),
    ));

    let buttons: Vec<Element> =
        [Some(approve.clone()), Some(deny.clone()), always.clone()].into_iter().flatten().collect();
    let choices = [("approve", Some(approve)), ("deny", Some(deny)), ("always_on_site", always)];
    for (decision_name, button) in choices {
        let Some(button) = button else { continue };
        let (run, reply, call, step, node, outcome, buttons) =
            (run.clone(), reply.clone(), call.clone(), step.clone(), node.clone(), outcome.clone(), buttons.clone());
        on(&button, "click", move |_| {
            // Answered here: the watch for an answer given elsewhere stands down.
            node.set_attribute("data-decided", "here").ok();
            for b in &buttons {
                b.set_attribute("disabled", "").ok();
            }
            if decision_name != "deny"
                && let Some(target) = other_site(&run, &call)
            {
                request_in_click(&target);
            }
            let (run, reply, call, step, node, outcome) =
                (run.clone(), reply.clone(), call.clone(), step.clone(), node.clone(), outcome.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let result = decide(decision_name, &step, &run, &reply, &call, &outcome).await;
                // (An answer given elsewhere first has marked the card itself.)
                if node.get_attribute("data-decided").as_deref() == Some("here") {
                    node.class_list().add_1(if decision_name == "deny" { "denied" } else { "approved" }).ok();
                }
                if let Err(error) = result {
                    show_error(&step, &error);
                }
            });
        });
    }
}

/// How often an open card asks whether it was answered elsewhere.
const ELSEWHERE_POLL_MS: u32 = 1500;
/// How long a card keeps asking (a card left open longer is answered here or not at all).
const ELSEWHERE_WATCH_MS: u32 = 30 * 60 * 1000;

/// Watches an open card for an answer given elsewhere (another browser's sidecar, `laika-host
/// approvals`, a person on the Lark bus): the first answer wins wherever it was given, and this
/// card then shows it and, when it was approved, runs the call here, in the page it is about.
async fn watch_elsewhere(step: Element, run: Run, reply: Value, call: Value, node: Element, outcome: Element) {
    let approval_id = call["approval_id"].as_str().unwrap_or_default().to_string();
    let mut waited = 0;
    while waited < ELSEWHERE_WATCH_MS {
        ext::sleep_ms(ELSEWHERE_POLL_MS).await;
        waited += ELSEWHERE_POLL_MS;
        if node.has_attribute("data-decided") || !node.is_connected() {
            return;
        }
        let Ok(found) = host("approval.get", json!({ "approval_id": approval_id })).await else { continue };
        let Some(decision) = found.pointer("/approval/decision").and_then(Value::as_str).map(str::to_string) else {
            continue;
        };
        if node.has_attribute("data-decided") {
            return;
        }
        show_decided_elsewhere(&step, &run, &reply, &call, &node, &outcome, &decision).await;
        return;
    }
}

/// A card answered elsewhere: its buttons go, the answer is said, an approved call runs here.
async fn show_decided_elsewhere(
    step: &Element,
    run: &Run,
    reply: &Value,
    call: &Value,
    node: &Element,
    outcome: &Element,
    decision: &str,
) {
    node.set_attribute("data-decided", "elsewhere").ok();
    if let Ok(buttons) = node.query_selector_all("button") {
        for i in 0..buttons.length() {
            if let Some(button) = buttons.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                button.set_attribute("disabled", "").ok();
            }
        }
    }
    let approved = decision != "deny";
    node.class_list().add_1(if approved { "approved" } else { "denied" }).ok();
    if !approved {
        outcome.set_text_content(Some("Denied from another Laika client. Nothing was done."));
        return;
    }
    // Moving to another site needs the user's leave for it, which only a click here can give.
    if let Some(site) = other_site(run, call) {
        outcome.set_text_content(Some(&format!(
            "Approved from another Laika client, but Laika may not open {site} without your leave here: ask again to do it."
        )));
        return;
    }
    outcome.set_text_content(Some("Approved from another Laika client."));
    if let Err(error) = run_call(step, run, reply, call).await {
        show_error(step, &error);
    }
}

async fn decide(
    decision: &str,
    step: &Element,
    run: &Run,
    reply: &Value,
    call: &Value,
    outcome: &Element,
) -> Result<(), ExtError> {
    let approval_id = call["approval_id"].as_str().unwrap_or_default();
    // An approved move to another site needs the user's leave for that site too: asked now,
    // within the Approve click, with the browser's own prompt. Declined, the call is denied.
    let target = call["arguments"]["url"].as_str().unwrap_or_default();
    let allowed = match other_site(run, call) {
        Some(pattern) if decision != "deny" => match take_site_request() {
            Some(asked) => asked.await,
            None => request_pattern(&pattern).await.unwrap_or(false),
        },
        _ => true,
    };
    if !allowed {
        host("approval.decide", json!({ "approval_id": approval_id, "decision": "deny" })).await?;
        outcome.set_text_content(Some(&format!(
            "Not allowed on {}: nothing was done.",
            origin_of(target).unwrap_or_else(|| target.to_string())
        )));
        return Ok(());
    }
    if let Err(error) = host("approval.decide", json!({ "approval_id": approval_id, "decision": decision })).await {
        // Answered elsewhere a moment before this click: that answer stands, and is shown.
        if error.code == "HISTORY_ALREADY_DECIDED"
            && let Ok(found) = host("approval.get", json!({ "approval_id": approval_id })).await
            && let Some(first) = found.pointer("/approval/decision").and_then(Value::as_str)
        {
            let node = outcome.parent_element().unwrap_or_else(|| step.clone());
            node.remove_attribute("data-decided").ok();
            node.class_list().remove_2("approved", "denied").ok();
            show_decided_elsewhere(step, run, reply, call, &node, outcome, first).await;
            return Ok(());
        }
        return Err(error);
    }
    if decision == "deny" {
        outcome.set_text_content(Some("Denied. Nothing was done."));
        return Ok(());
    }
    outcome.set_text_content(Some(if decision == "always_on_site" {
        "Approved, and allowed on this site from now on."
    } else {
        "Approved."
    }));
    run_call(step, run, reply, call).await
}

/// A host-run call by id. A capture (`source.capture`, `source.refresh`) needs a page the host
/// cannot open: the host names it, the router reads it in a tab of its own and closes it,
/// and the host stores what was read.
async fn run_in_host(call: &Value) -> Result<Value, ExtError> {
    let first = host("tool.run", json!({ "call_id": call["id"] })).await?;
    let Some(wanted) = first.get("needs_capture") else { return Ok(first) };
    // The site the approval's click asked the browser for, answered before the page opens.
    if let Some(asked) = take_site_request() {
        asked.await;
    }
    let page = router(json!({ "to": "capture", "url": wanted["url"], "maxChars": wanted["maxChars"] })).await?;
    host("tool.run", json!({ "call_id": call["id"], "capture": page })).await
}

/// Runs an allowed or approved call in the observed tab, reports the result to the host with a
/// fresh observation, and shows the next step the host plans.
async fn run_call(step: &Element, run: &Run, reply: &Value, call: &Value) -> Result<(), ExtError> {
    run_calls(step, run, reply, std::slice::from_ref(call)).await
}

/// Runs a step's calls in order, each reported to the host; after the last (or the first that
/// fails) the page is observed again and the host plans the next step, which is shown.
async fn run_calls(step: &Element, run: &Run, reply: &Value, calls: &[Value]) -> Result<(), ExtError> {
    for (i, call) in calls.iter().enumerate() {
        let name = call["name"].as_str().unwrap_or_default().to_string();
        if name == "content.summarize" {
            return summarise(step, Some(&run.goal)).await;
        }
        // A pause the goal asked for, counted from the call before this one.
        if let Some(wait) = call["wait_ms"].as_f64() {
            let since = STATE.with(|s| s.borrow().last_call_at).map_or(f64::INFINITY, |at| js_sys::Date::now() - at);
            let left = wait - since.min(wait);
            if left > 0.0 {
                // Tenths by integer arithmetic: float formatting would grow the WASM.
                let tenths = (left / 100.0).ceil() as u64;
                let line =
                    text_el("p", "progress", &format!("Waiting {}.{} s, as you asked…", tenths / 10, tenths % 10));
                step.append_child(&line).ok();
                ext::sleep_ms(left as u32).await;
                line.remove();
            }
        }
        let (ok, result, error) = execute_call(step, run, call).await;
        STATE.with(|s| s.borrow_mut().last_call_at = Some(js_sys::Date::now()));
        let last = i + 1 == calls.len() || !ok;
        report_call(step, run, reply, call, (ok, result, error), last).await?;
        if last {
            break;
        }
    }
    Ok(())
}

/// Runs one call and shows what it did: (ok, result, error).
async fn execute_call(step: &Element, run: &Run, call: &Value) -> (bool, Value, Value) {
    let name = call["name"].as_str().unwrap_or_default().to_string();
    let running = text_el("p", "progress", &format!("Running {name}…"));
    step.append_child(&running).ok();
    let outcome = if name == "browser.observe_dom" {
        let args = call["arguments"].clone();
        tab_op(run.tab_id, "observe", json!({ "args": args })).await.map(|c| json!({ "chars": c["total_chars"] }))
    } else if laika_shared::tools::spec(&name).is_some_and(|s| s.executor == laika_shared::tools::Executor::Host) {
        // Host-run tools (a local service's endpoint): the host runs the call it gated, by id,
        // and checks the approval itself; no arguments go back from here.
        run_in_host(call).await
    } else {
        // Only the call's id goes: the router runs what the host releases for it (the call as
        // the gate saw it, once it is allowed or approved), not arguments from here.
        tab_op(run.tab_id, "run", json!({ "callId": call["id"], "origin": run.origin })).await
    };
    running.remove();
    match &outcome {
        Ok(result) if result.get("integration").is_some() => {
            // A local service's endpoint: what it answered, drawn as its data (never as HTML).
            let what = format!(
                "Done: {} of {}{}.",
                result["operation"].as_str().unwrap_or_default(),
                result["integration"].as_str().unwrap_or_default(),
                if result["replayed"] == true { " (already done before: its first result)" } else { "" }
            );
            step.append_child(&text_el("p", "done", &what)).ok();
            let layout = crate::lavs_fallback::layout(&result["result"], None);
            if layout != crate::lavs_fallback::Layout::Empty {
                step.append_child(&services::draw_layout(&layout)).ok();
            }
            (true, result.clone(), Value::Null)
        }
        Ok(result) => {
            // The host says what happened where it has more to say than the tool's name (a
            // note saved, a file written).
            let done = result["message"].as_str().map(str::to_string).unwrap_or_else(|| format!("Done: {name}."));
            step.append_child(&text_el("p", "done", &done)).ok();
            // A calculation's answer (app.calculate, app.money_calculate).
            if let Some(formatted) = result["formatted"].as_str() {
                step.append_child(&text_el("p", "value", &format!("= {formatted}"))).ok();
            }
            // An opened note (its render document, made by the host: the Markdown parser stays
            // out of the extension's WASM), drawn through the same sanitising renderer as any
            // answer.
            if let Some(doc) = result.get("doc")
                && let Ok((rendered, _)) = render_dom::render_value(&document(), doc)
            {
                rendered.set_class_name("note-view");
                step.append_child(&rendered).ok();
            }
            // Places in the page (content.find): listed as citations, the first lit up at once.
            if result["citations"].as_array().is_some_and(|c| !c.is_empty()) {
                show_citations(step, &result["citations"], run.tab_id);
                if let Some(handle) = result.pointer("/citations/0/handle_id").and_then(Value::as_str) {
                    let _ = tab_op(run.tab_id, "highlight", json!({ "handleId": handle })).await;
                }
            }
            // The links of the user's selection (browser.get_selection_links), as text: each its
            // caption and its address.
            if let Some(links) = result["links"].as_array().filter(|l| !l.is_empty()) {
                let list = el("ul", "links");
                for link in links {
                    let caption = link["text"].as_str().unwrap_or_default();
                    let url = link["url"].as_str().unwrap_or_default();
                    list.append_child(&text_el("li", "", &format!("{caption} — {url}"))).ok();
                }
                step.append_child(&list).ok();
            }
            // artifact.share to the clipboard: the host hands the text, the page copies it.
            if let (Some(text), Some(window)) = (result["clipboard"].as_str(), web_sys::window()) {
                let _ = window.navigator().clipboard().write_text(text);
            }
            (true, result.clone(), Value::Null)
        }
        Err(error) => {
            show_error(step, error);
            (false, Value::Null, error.to_json())
        }
    }
}

/// Reports a call's outcome to the host; with `plan_next`, the page is observed again (it may
/// have changed) and the host plans the next step of the run, which is shown.
async fn report_call(
    step: &Element,
    run: &Run,
    reply: &Value,
    call: &Value,
    (ok, result, error): (bool, Value, Value),
    plan_next: bool,
) -> Result<(), ExtError> {
    let name = call["name"].as_str().unwrap_or_default();
    let looking = plan_next.then(|| {
        let line = text_el("p", "progress", "Looking at the page again…");
        step.append_child(&line).ok();
        line
    });
    let observation = if plan_next { observe_for_plan(run.tab_id).await.ok() } else { None };
    let conversation_id = STATE.with(|s| s.borrow().conversation_id.clone());
    let mut params = json!({
        "run_id": reply["run_id"],
        "conversation_id": conversation_id,
        "step": reply["step"],
        "call_id": call["id"],
        "name": name,
        "ok": ok,
        "result": result,
        "error": error,
    });
    if let Some(observation) = &observation
        && reply["done"].as_bool() != Some(true)
    {
        params["observation"] = json!(observation);
        params["goal"] = json!(run.goal);
    }
    let next = host("tool.result", params).await;
    if let Some(line) = looking {
        line.remove();
    }
    let next = next?;
    if next.get("tool_calls").is_none()
        && let Some(summary) = next["summary"].as_str()
    {
        // The run ends without a step of its own (its bound reached): said, not left silent.
        step.append_child(&text_el("p", "", summary)).ok();
    }
    if next.get("tool_calls").is_some() {
        let run = Run {
            observation: observation.map(Rc::new).unwrap_or_else(|| run.observation.clone()),
            origin: run.origin.clone(),
            ..run.clone()
        };
        Box::pin(show_step(step, run, next)).await?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Model status and history.

async fn watch_model_status() {
    let status = by_id("status");
    loop {
        let (text, state, again) = match host("model.status", json!({})).await {
            Ok(reply) => {
                let s = &reply["status"];
                let state = s["state"].as_str().unwrap_or("unknown").to_string();
                let engine = s["engine"].as_str().unwrap_or("model");
                let model = s["model_id"].as_str().unwrap_or_default();
                let text = match state.as_str() {
                    "ready" if s["fallback"].as_bool() == Some(true) => "No model: extractive summaries".to_string(),
                    "ready" => format!("Ready · {}", if model.is_empty() { engine } else { model }),
                    "loading" => "Loading the model…".to_string(),
                    "not_installed" => "No model installed: extractive summaries".to_string(),
                    "failed" => {
                        let why = s.pointer("/error/message").and_then(Value::as_str).unwrap_or("see the host log");
                        format!("Model failed: {why}")
                    }
                    other => other.to_string(),
                };
                let again = state == "loading";
                (text, state, again)
            }
            Err(error) => (format!("Host not connected ({})", error.code), "offline".to_string(), false),
        };
        status.set_text_content(Some(&text));
        status.set_attribute("data-state", &state).ok();
        if !again {
            break;
        }
        ext::sleep_ms(1000).await;
    }
}

/// The History panel: a view over Laika's own LAVS service (`laika`).
async fn toggle_history() {
    if !services::toggle_panel("history", "history-toggle") {
        return;
    }
    let panel = by_id("history");
    panel.append_child(&text_el("h2", "", "History")).ok();
    let list = match services::lavs_call("laika", "listConversations", json!({ "limit": 50 })).await {
        Ok(list) => list,
        Err(error) => {
            panel.append_child(&text_el("p", "error", &error.to_string())).ok();
            return;
        }
    };
    let conversations = list.as_array().cloned().unwrap_or_default();
    if conversations.is_empty() {
        panel.append_child(&text_el("p", "note", "No conversations yet.")).ok();
        return;
    }
    let ul = el("ul", "conversations");
    for conversation in conversations {
        let id = conversation["id"].as_str().unwrap_or_default().to_string();
        let title = conversation["title"].as_str().filter(|t| !t.is_empty()).unwrap_or("Untitled conversation");
        let when = conversation["updated_at"].as_str().unwrap_or_default();
        let li = el("li", "");
        let open = button(title, "link");
        li.append_child(&open).ok();
        li.append_child(&text_el("span", "when", when)).ok();
        let delete = button("Delete", "ghost small");
        delete.set_attribute("aria-label", &format!("Delete {title}")).ok();
        li.append_child(&delete).ok();
        let detail = el("div", "detail");
        li.append_child(&detail).ok();
        let open_id = id.clone();
        let open_detail = detail.clone();
        on(&open, "click", move |_| {
            let (id, detail) = (open_id.clone(), open_detail.clone());
            wasm_bindgen_futures::spawn_local(async move { show_conversation(&id, &detail).await });
        });
        let item = li.clone();
        on(&delete, "click", move |_| {
            let (id, item) = (id.clone(), item.clone());
            wasm_bindgen_futures::spawn_local(async move {
                if services::lavs_call("laika", "deleteConversation", json!({ "id": id })).await.is_ok() {
                    item.remove();
                }
            });
        });
        ul.append_child(&li).ok();
    }
    panel.append_child(&ul).ok();
}

async fn show_conversation(id: &str, detail: &Element) {
    detail.set_text_content(None);
    let conversation = match services::lavs_call("laika", "getConversation", json!({ "id": id })).await {
        Ok(c) => c,
        Err(error) => {
            detail.append_child(&text_el("p", "error", &error.to_string())).ok();
            return;
        }
    };
    for message in conversation["messages"].as_array().cloned().unwrap_or_default() {
        let role = message.pointer("/sender/role").and_then(Value::as_str).unwrap_or_default();
        if let Some(render) = message.pointer("/assistant/render") {
            if let Ok((rendered, _)) = render_dom::render_value(&document(), render) {
                detail.append_child(&rendered).ok();
            }
        } else if let Some(text) = message.pointer("/input/user_message/text").and_then(Value::as_str) {
            detail.append_child(&text_el("p", "user", text)).ok();
        } else if role == "tool" {
            let name = message.pointer("/tool/name").and_then(Value::as_str).unwrap_or("tool");
            detail.append_child(&text_el("p", "note", &format!("Ran {name}"))).ok();
        }
    }
}
