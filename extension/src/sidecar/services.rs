//! Local services (LAVS) in the sidecar: the Services panel, the Approvals panel, and the bridge
//! that hands a service's own view its `LAVSClient`.
//!
//! The Services panel lists the installed services (`lavs.list`). Opening one shows
//! - its own view component, where it declares one and this browser can frame it: the code
//!   (`lavs.view`) runs in `lavs-view.html`, which Chromium serves as a sandboxed page (a unique
//!   origin, no extension APIs, a CSP without network: the manifest's `sandbox` key). The frame's
//!   `LAVSClient` (`call`, `subscribe`, `getManifest`) asks over `postMessage`; [`ViewBridge`]
//!   answers only that frame, only for that service, through the host;
//! - otherwise the fallback rendering ([`crate::lavs_fallback`]): every query that needs no input
//!   as a table, list or JSON, a form per mutation, and each subscription's pushes as they come.
//!
//! The Approvals panel and the History panel are views over Laika's own service `laika`: the
//! questions waiting for an answer (`listApprovals`, kept current by the `approvalUpdates`
//! subscription, answered with `decideApproval`) and the conversations (`listConversations`,
//! `getConversation`, `deleteConversation`).
//!
//! Everything a service returns reaches the screen through `textContent`, never as HTML.

use super::{button, by_id, document, el, host, on, text_el};
use crate::ext::{self, ExtError};
use crate::lavs_fallback::{self, Control, Field, Layout};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlIFrameElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement, MessageEvent};

/// How long one `lavs.poll` waits for a push.
const POLL_WAIT_MS: u64 = 3000;

/// Calls an endpoint of a service through the host; a LAVS failure carries the spec's error
/// object as JSON in its message, which is unpacked here.
pub(super) async fn lavs_call(service: &str, endpoint: &str, input: Value) -> Result<Value, ExtError> {
    let reply = host("lavs.call", json!({ "service": service, "endpoint": endpoint, "input": input })).await;
    match reply {
        Ok(reply) => Ok(reply["result"].clone()),
        Err(error) if error.code == "LAVS_ERROR" => {
            let detail: Value = serde_json::from_str(&error.message).unwrap_or(Value::Null);
            let message = detail["message"].as_str().unwrap_or(&error.message).to_string();
            Err(ExtError::new("LAVS_ERROR", message))
        }
        Err(error) => Err(error),
    }
}

/// The subscriptions a panel or a view holds; ending them stops their poll loops and tells the
/// host.
#[derive(Clone, Default)]
pub(super) struct Streams {
    /// A handful at most: a list is smaller in the WASM than a set.
    live: Rc<RefCell<Vec<String>>>,
}

impl Streams {
    /// Subscribes and calls `push` with each push, until [`Streams::end_all`] or the stream ends.
    /// `push` is boxed: one poll loop in the WASM for every caller, not one per closure type.
    async fn open(&self, service: &str, endpoint: &str, push: Box<dyn Fn(Value)>) -> Result<String, ExtError> {
        let started =
            host("lavs.subscribe", json!({ "service": service, "endpoint": endpoint, "input": Value::Null })).await?;
        let id = started["subscription_id"].as_str().unwrap_or_default().to_string();
        self.live.borrow_mut().push(id.clone());
        let live = self.live.clone();
        let poll_id = id.clone();
        wasm_bindgen_futures::spawn_local(async move {
            while live.borrow().contains(&poll_id) {
                let polled = host("lavs.poll", json!({ "subscription_id": poll_id, "wait_ms": POLL_WAIT_MS })).await;
                let Ok(polled) = polled else { break };
                if !live.borrow().contains(&poll_id) {
                    break;
                }
                for event in polled["events"].as_array().cloned().unwrap_or_default() {
                    push(event);
                }
                if polled["closed"].as_bool() == Some(true) {
                    break;
                }
            }
            live.borrow_mut().retain(|id| id != &poll_id);
        });
        Ok(id)
    }

    fn end(&self, id: &str) {
        let was_live = self.live.borrow().iter().any(|live| live == id);
        self.live.borrow_mut().retain(|live| live != id);
        if was_live {
            let id = id.to_string();
            wasm_bindgen_futures::spawn_local(async move {
                let _ = host("lavs.unsubscribe", json!({ "subscription_id": id })).await;
            });
        }
    }

    pub(super) fn end_all(&self) {
        let ids: Vec<String> = self.live.borrow().iter().cloned().collect();
        for id in ids {
            self.end(&id);
        }
    }
}

thread_local! {
    /// What the open service (in the Services panel) holds: its streams and its frame's listener.
    static OPEN_VIEW: RefCell<Option<(Streams, Option<ViewBridge>)>> = const { RefCell::new(None) };
    /// The Approvals panel's subscription.
    static APPROVAL_STREAMS: RefCell<Streams> = RefCell::new(Streams::default());
}

fn close_open_view() {
    if let Some((streams, bridge)) = OPEN_VIEW.with(|v| v.borrow_mut().take()) {
        streams.end_all();
        drop(bridge);
    }
}

/// Opens or closes a header panel; true when it was opened (and emptied, to be drawn).
pub(super) fn toggle_panel(panel_id: &str, toggle_id: &str) -> bool {
    let panel = by_id(panel_id);
    let toggle = by_id(toggle_id);
    if !panel.has_attribute("hidden") {
        panel.set_attribute("hidden", "").ok();
        toggle.set_attribute("aria-expanded", "false").ok();
        return false;
    }
    panel.remove_attribute("hidden").ok();
    toggle.set_attribute("aria-expanded", "true").ok();
    panel.set_text_content(None);
    true
}

// ---------------------------------------------------------------------------------------------
// The Services panel.

pub(super) async fn toggle_services() {
    if !toggle_panel("services", "services-toggle") {
        close_open_view();
        return;
    }
    let panel = by_id("services");
    panel.append_child(&text_el("h2", "", "Local services")).ok();
    let listed = match host("lavs.list", json!({})).await {
        Ok(listed) => listed,
        Err(error) => {
            panel.append_child(&text_el("p", "error", &error.to_string())).ok();
            return;
        }
    };
    let services: Vec<Value> = listed["services"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|s| s["name"] != "laika")
        .collect();
    if services.is_empty() {
        panel
            .append_child(&text_el(
                "p",
                "note",
                "No local services yet. Install one with: laika-host lavs add <folder with a lavs.json>",
            ))
            .ok();
        return;
    }
    let ul = el("ul", "services");
    let view = el("div", "service-view");
    for service in services {
        let name = service["name"].as_str().unwrap_or_default().to_string();
        let li = el("li", "");
        let open = button(&name, "link");
        open.set_attribute("data-service", &name).ok();
        li.append_child(&open).ok();
        li.append_child(&text_el("span", "when", service["version"].as_str().unwrap_or_default())).ok();
        if let Some(description) = service["description"].as_str() {
            li.append_child(&text_el("p", "note", description)).ok();
        }
        for unenforced in service["unenforced"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            li.append_child(&text_el("p", "card-warning", &format!("Not enforced here: {unenforced}"))).ok();
        }
        let target = view.clone();
        on(&open, "click", move |_| {
            let (name, target) = (name.clone(), target.clone());
            wasm_bindgen_futures::spawn_local(async move { open_service(&name, &target).await });
        });
        ul.append_child(&li).ok();
    }
    panel.append_child(&ul).ok();
    panel.append_child(&view).ok();
}

/// Shows one service: its own view where it has one this browser frames, else the fallback.
async fn open_service(name: &str, target: &Element) {
    close_open_view();
    target.set_text_content(None);
    target.append_child(&text_el("h3", "", name)).ok();
    let manifest = match host("lavs.manifest", json!({ "service": name })).await {
        Ok(reply) => reply["manifest"].clone(),
        Err(error) => {
            target.append_child(&text_el("p", "error", &error.to_string())).ok();
            return;
        }
    };
    let streams = Streams::default();
    let view = host("lavs.view", json!({ "service": name })).await;
    match view {
        Ok(view) if sandbox_pages() => {
            let bridge =
                ViewBridge::mount(name, &manifest, view["code"].as_str().unwrap_or_default(), target, &streams);
            OPEN_VIEW.with(|v| *v.borrow_mut() = Some((streams, bridge.ok())));
        }
        other => {
            if other.is_ok() {
                target
                    .append_child(&text_el(
                        "p",
                        "note",
                        "This browser cannot run a service's own view in a sandbox; its data is shown as a list.",
                    ))
                    .ok();
            }
            let fallback = manifest.pointer("/view/fallback").and_then(Value::as_str).map(str::to_string);
            render_fallback(name, &manifest, fallback.as_deref(), target, &streams).await;
            OPEN_VIEW.with(|v| *v.borrow_mut() = Some((streams, None)));
        }
    }
}

/// Whether this build of the extension has a sandboxed page for views (Chromium's manifest
/// `sandbox` key; Firefox and Safari have none).
fn sandbox_pages() -> bool {
    ext::call("runtime.getManifest", &[])
        .ok()
        .and_then(|m| ext::from_js::<Value>(m).ok())
        .is_some_and(|m| m.pointer("/sandbox/pages").and_then(Value::as_array).is_some_and(|p| !p.is_empty()))
}

// ---------------------------------------------------------------------------------------------
// The fallback rendering.

async fn render_fallback(service: &str, manifest: &Value, mode: Option<&str>, target: &Element, streams: &Streams) {
    for endpoint in manifest["endpoints"].as_array().cloned().unwrap_or_default() {
        let id = endpoint["id"].as_str().unwrap_or_default().to_string();
        let section = el("section", "endpoint");
        section.set_attribute("data-endpoint", &id).ok();
        let heading = text_el("h4", "", &lavs_fallback::endpoint_title(&id));
        heading.append_child(&text_el("code", "endpoint-id", &id)).ok();
        section.append_child(&heading).ok();
        if let Some(description) = endpoint["description"].as_str() {
            section.append_child(&text_el("p", "note", description)).ok();
        }
        target.append_child(&section).ok();
        let input_schema = endpoint.pointer("/schema/input");
        let needs_input = input_schema.and_then(|s| s["required"].as_array()).is_some_and(|r| !r.is_empty());
        let output = el("div", "result");
        match endpoint["method"].as_str() {
            Some("query") if !needs_input => {
                section.append_child(&output).ok();
                show_result(&output, lavs_call(service, &id, Value::Null).await, mode);
            }
            Some("subscription") => {
                let pushes = el("ul", "pushes");
                section.append_child(&pushes).ok();
                let shown = pushes.clone();
                let opened = streams
                    .open(
                        service,
                        &id,
                        Box::new(move |push| {
                            let li = el("li", "");
                            li.set_text_content(Some(&lavs_fallback::cell(&push)));
                            shown.append_child(&li).ok();
                        }),
                    )
                    .await;
                if let Err(error) = opened {
                    section.append_child(&text_el("p", "error", &error.to_string())).ok();
                }
            }
            _ => {
                let fields = lavs_fallback::form_fields(input_schema);
                let form = endpoint_form(service, &id, fields, &output, mode);
                section.append_child(&form).ok();
                section.append_child(&output).ok();
            }
        }
    }
}

fn show_result(output: &Element, result: Result<Value, ExtError>, mode: Option<&str>) {
    output.set_text_content(None);
    match result {
        Ok(value) => {
            output.append_child(&draw_layout(&lavs_fallback::layout(&value, mode))).ok();
        }
        Err(error) => {
            output.append_child(&text_el("p", "error", &error.to_string())).ok();
        }
    }
}

pub(super) fn draw_layout(layout: &Layout) -> Element {
    match layout {
        Layout::Empty => text_el("p", "note", "Nothing yet."),
        Layout::Text(text) => text_el("p", "value", text),
        Layout::Json(text) => text_el("pre", "json", text),
        Layout::List { items, more } => {
            let ul = el("ul", "values");
            for item in items {
                ul.append_child(&text_el("li", "", item)).ok();
            }
            if *more > 0 {
                ul.append_child(&text_el("li", "note", &format!("… and {more} more"))).ok();
            }
            ul
        }
        Layout::Table { columns, rows, more } => {
            let wrap = el("div", "table-wrap");
            let table = el("table", "values");
            let head = el("tr", "");
            for column in columns {
                head.append_child(&text_el("th", "", column)).ok();
            }
            table.append_child(&head).ok();
            for row in rows {
                let tr = el("tr", "");
                for cell in row {
                    tr.append_child(&text_el("td", "", cell)).ok();
                }
                table.append_child(&tr).ok();
            }
            wrap.append_child(&table).ok();
            if *more > 0 {
                wrap.append_child(&text_el("p", "note", &format!("… and {more} more rows"))).ok();
            }
            wrap
        }
    }
}

/// A form for a mutation (or a query that needs input): a control per input property and a Run
/// button; the user runs it directly, as with any app's button (the model's calls go through the
/// gate instead).
fn endpoint_form(service: &str, endpoint: &str, fields: Vec<Field>, output: &Element, mode: Option<&str>) -> Element {
    let form = el("form", "endpoint-form");
    for field in &fields {
        let label = el("label", "");
        label
            .append_child(&text_el("span", "", &format!("{}{}", field.name, if field.required { " *" } else { "" })))
            .ok();
        let default = field.default.as_ref().map(lavs_fallback::cell).unwrap_or_default();
        let control = match &field.control {
            Control::Select(options) => {
                let select = el("select", "");
                for option in options {
                    let node = text_el("option", "", option);
                    node.set_attribute("value", option).ok();
                    select.append_child(&node).ok();
                }
                select
            }
            Control::Json => {
                let area = el("textarea", "");
                area.set_attribute("rows", "2").ok();
                area
            }
            other => {
                let input = el("input", "");
                let kind = match other {
                    Control::Number { .. } => "number",
                    Control::Checkbox => "checkbox",
                    _ => "text",
                };
                input.set_attribute("type", kind).ok();
                if kind == "number" {
                    input.set_attribute("step", "any").ok();
                }
                if !default.is_empty() {
                    input.set_attribute("value", &default).ok();
                }
                input
            }
        };
        control.set_attribute("name", &field.name).ok();
        label.append_child(&control).ok();
        form.append_child(&label).ok();
    }
    let run = text_el("button", "secondary", "Run");
    run.set_attribute("type", "submit").ok();
    form.append_child(&run).ok();
    let (service, endpoint, output, mode) =
        (service.to_string(), endpoint.to_string(), output.clone(), mode.map(str::to_string));
    let read_from = form.clone();
    on(&form, "submit", move |event| {
        event.prevent_default();
        let values = form_values(&read_from, &fields);
        let input = match lavs_fallback::form_input(&fields, &values) {
            Ok(input) => input,
            Err(problem) => {
                output.set_text_content(None);
                output.append_child(&text_el("p", "error", &problem)).ok();
                return;
            }
        };
        let (service, endpoint, output, mode) = (service.clone(), endpoint.clone(), output.clone(), mode.clone());
        wasm_bindgen_futures::spawn_local(async move {
            // A handler that prints nothing (the notes example's saveNote) still ran.
            let result =
                lavs_call(&service, &endpoint, input).await.map(|v| if v.is_null() { json!("Done.") } else { v });
            show_result(&output, result, mode.as_deref());
        });
    });
    form
}

fn form_values(form: &Element, fields: &[Field]) -> Vec<(String, String)> {
    fields
        .iter()
        .filter_map(|field| {
            let node = form.query_selector(&format!("[name=\"{}\"]", field.name.replace('"', ""))).ok().flatten()?;
            let value = if let Some(input) = node.dyn_ref::<HtmlInputElement>() {
                if input.type_() == "checkbox" { input.checked().to_string() } else { input.value() }
            } else if let Some(select) = node.dyn_ref::<HtmlSelectElement>() {
                select.value()
            } else {
                node.dyn_ref::<HtmlTextAreaElement>()?.value()
            };
            Some((field.name.clone(), value))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// A service's own view, in the sandboxed frame.

/// Answers one frame's `LAVSClient` requests for one service. Dropping it stops listening.
pub(super) struct ViewBridge {
    listener: Closure<dyn FnMut(MessageEvent)>,
}

impl Drop for ViewBridge {
    fn drop(&mut self) {
        if let Some(window) = web_sys::window() {
            let _ = window.remove_event_listener_with_callback("message", self.listener.as_ref().unchecked_ref());
        }
    }
}

impl ViewBridge {
    fn mount(
        service: &str,
        manifest: &Value,
        code: &str,
        target: &Element,
        streams: &Streams,
    ) -> Result<ViewBridge, JsValue> {
        let frame: HtmlIFrameElement = document().create_element("iframe")?.dyn_into()?;
        frame.set_class_name("service-frame");
        frame.set_title(&format!("{service}: its own view"));
        // The page is sandboxed by the manifest too; the attribute keeps it so if it is ever
        // loaded another way. Forms may fire their submit event (a view's own inputs), and the
        // CSP's `form-action 'none'` keeps any submission from leaving the frame.
        frame.set_attribute("sandbox", "allow-scripts allow-forms")?;
        frame.set_src(&ext::extension_url("lavs-view.html"));
        target.append_child(&frame)?;

        let init = json!({ "lavs": "init", "service": service, "manifest": manifest, "code": code });
        let loaded = frame.clone();
        on(&frame.clone().into(), "load", move |_| {
            if let Some(window) = loaded.content_window() {
                let _ = window.post_message(&ext::to_js(&init), "*");
            }
        });

        let (service, manifest, streams) = (service.to_string(), manifest.clone(), streams.clone());
        let listener = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            // Only this frame's messages; the sandbox's origin is opaque ("null"), so the frame is
            // told apart by its window.
            let Some(window) = frame.content_window() else { return };
            let from_frame = event.source().is_some_and(|s| js_sys::Object::is(&s, window.as_ref()));
            if !from_frame {
                return;
            }
            let Ok(message) = ext::from_js::<Value>(event.data()) else { return };
            let (service, manifest, streams) = (service.clone(), manifest.clone(), streams.clone());
            wasm_bindgen_futures::spawn_local(async move {
                answer_frame(&window, &service, &manifest, &streams, message).await;
            });
        });
        web_sys::window()
            .ok_or("no window")?
            .add_event_listener_with_callback("message", listener.as_ref().unchecked_ref())?;
        Ok(ViewBridge { listener })
    }
}

/// One `LAVSClient` request from the frame: `{lavs: call|subscribe|unsubscribe|manifest, id, …}`;
/// the answer is `{lavs: reply, id, result | error}`, pushes are `{lavs: data, id, data}`.
async fn answer_frame(window: &web_sys::Window, service: &str, manifest: &Value, streams: &Streams, message: Value) {
    let id = message["id"].clone();
    let post = |reply: Value| {
        let _ = window.post_message(&ext::to_js(&reply), "*");
    };
    let endpoint = message["endpoint"].as_str().unwrap_or_default().to_string();
    let reply = match message["lavs"].as_str() {
        Some("call") => lavs_call(service, &endpoint, message["input"].clone()).await,
        Some("manifest") => Ok(manifest.clone()),
        Some("subscribe") => {
            let pushes_to = window.clone();
            let push_id = id.clone();
            streams
                .open(
                    service,
                    &endpoint,
                    Box::new(move |data| {
                        let message = json!({ "lavs": "data", "id": push_id, "data": data });
                        let _ = pushes_to.post_message(&ext::to_js(&message), "*");
                    }),
                )
                .await
                .map(|subscription| json!({ "subscription": subscription }))
        }
        Some("unsubscribe") => {
            streams.end(message["subscription"].as_str().unwrap_or_default());
            Ok(json!({ "unsubscribed": true }))
        }
        Some("readFile") => {
            Err(ExtError::new("LAVS_PERMISSION_DENIED", "views read data through their service's endpoints, not files"))
        }
        _ => return,
    };
    match reply {
        Ok(result) => post(json!({ "lavs": "reply", "id": id, "result": result })),
        Err(error) => {
            post(json!({ "lavs": "reply", "id": id, "error": { "code": error.code, "message": error.message } }))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The Notes panel: a view over `laika`.

/// The endpoints of `laika` the Notes panel shows: the notebook's notes and collections.
const NOTEBOOK_ENDPOINTS: &[&str] = &[
    "listNotes",
    "getNote",
    "exportNote",
    "undoNote",
    "listCollections",
    "createCollection",
    "listSources",
    "runTransform",
    "askCollection",
];

/// The Notes panel: the notebook's endpoints of Laika's own service, drawn by the same fallback
/// renderer as any service without a view (lists and tables of data, a form per endpoint that
/// takes input), so a note's text is never HTML here.
pub(super) async fn toggle_notes() {
    if !toggle_panel("notes", "notes-toggle") {
        return;
    }
    let panel = by_id("notes");
    panel.append_child(&text_el("h2", "", "Notes and collections")).ok();
    let mut manifest = match host("lavs.manifest", json!({ "service": "laika" })).await {
        Ok(reply) => reply["manifest"].clone(),
        Err(error) => {
            panel.append_child(&text_el("p", "error", &error.to_string())).ok();
            return;
        }
    };
    if let Some(endpoints) = manifest["endpoints"].as_array_mut() {
        endpoints.retain(|e| NOTEBOOK_ENDPOINTS.contains(&e["id"].as_str().unwrap_or_default()));
    }
    render_fallback("laika", &manifest, None, &panel, &Streams::default()).await;
}

// The Approvals panel: a view over `laika`.

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

pub(super) async fn toggle_approvals() {
    if !toggle_panel("approvals", "approvals-toggle") {
        APPROVAL_STREAMS.with(|s| s.borrow().end_all());
        return;
    }
    let panel = by_id("approvals");
    panel.append_child(&text_el("h2", "", "Waiting for your answer")).ok();
    let list = el("ul", "approvals");
    panel.append_child(&list).ok();
    draw_approvals(&list).await;
    // New questions and answers given elsewhere (another browser, the command line, the Lark bus)
    // redraw the list.
    let redraw = list.clone();
    let streams = APPROVAL_STREAMS.with(|s| s.borrow().clone());
    let opened = streams
        .open(
            "laika",
            "approvalUpdates",
            Box::new(move |_| {
                let redraw = redraw.clone();
                wasm_bindgen_futures::spawn_local(async move { draw_approvals(&redraw).await });
            }),
        )
        .await;
    if let Err(error) = opened {
        panel.append_child(&text_el("p", "error", &error.to_string())).ok();
    }
}

async fn draw_approvals(list: &Element) {
    let pending = lavs_call("laika", "listApprovals", Value::Null).await;
    list.set_text_content(None);
    let pending = match pending {
        Ok(pending) => pending.as_array().cloned().unwrap_or_default(),
        Err(error) => {
            list.append_child(&text_el("li", "error", &error.to_string())).ok();
            return;
        }
    };
    if pending.is_empty() {
        list.append_child(&text_el("li", "note", "Nothing is waiting for an answer.")).ok();
        return;
    }
    for approval in pending {
        let id = approval["id"].as_str().unwrap_or_default().to_string();
        let li = el("li", "card");
        li.set_attribute("data-approval", &id).ok();
        let tool = approval["tool_name"].as_str().unwrap_or_default();
        let title = approval["reason"].as_str().map(capitalise).unwrap_or_else(|| format!("Run {tool}"));
        li.append_child(&text_el("h3", "card-title", &title)).ok();
        li.append_child(&text_el("code", "card-tool", tool)).ok();
        let arguments = lavs_fallback::cell(&approval["arguments"]);
        li.append_child(&text_el("p", "card-args-line", &arguments)).ok();
        if let Some(origin) = approval["origin"].as_str() {
            li.append_child(&text_el("span", "when", &format!("on {origin}"))).ok();
        }
        let actions = el("div", "card-actions");
        for (label, decision, class) in [("Approve", "approve", "primary"), ("Deny", "deny", "secondary")] {
            let answer = button(label, class);
            let (id, list) = (id.clone(), list.clone());
            on(&answer, "click", move |_| {
                let (id, list) = (id.clone(), list.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let decided =
                        lavs_call("laika", "decideApproval", json!({ "approval_id": id, "decision": decision })).await;
                    if let Err(error) = decided {
                        list.append_child(&text_el("li", "error", &error.to_string())).ok();
                    }
                    draw_approvals(&list).await;
                });
            });
            actions.append_child(&answer).ok();
        }
        li.append_child(&actions).ok();
        list.append_child(&li).ok();
    }
}
