//! The content script: Laika's hands and eyes in the page.
//!
//! It answers the extension's messages (`{"to": "content", "op": …}`), never the page's:
//! - `observe` `{args}`: `browser.observe_dom` over the live DOM with the shared reader,
//!   `{observation, cursor, done, total_chars}` (the chunked read).
//! - `run` `{name, arguments}`: an approved `browser.click` / `type` / `select` / `scroll` by
//!   handle ([`crate::page_tools`]).
//! - `highlight` `{handleId}` / `clear`: the box over the element behind a citation.
//! - `toggle_sidecar`: the sidecar as an in-page frame, where the browser has no side panel.
//! - `ping`: which mode the content script runs in.
//!
//! Replies are `{"ok": true, "result": …}` or `{"ok": false, "error": {code, message}}`.

use crate::ext::{self, ExtError};
use crate::live_dom::LiveDom;
use crate::page_tools;
use laika_shared::observe::{ObserveOptions, observe_chunk};
use laika_shared::tools::{RawToolCall, ToolCall};
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Starts the content script: called once by the loader after the WASM is instantiated, with the
/// loader's extension API object (see [`ext::provide_api`]).
#[wasm_bindgen(js_name = contentStart)]
pub fn content_start(api: JsValue) -> Result<(), JsValue> {
    ext::provide_api(api);
    ext::on_message(|message: Value, _sender: Value| {
        if message.get("to").and_then(Value::as_str) != Some("content") {
            return None;
        }
        Some(async move { reply(handle(&message)) })
    })
    .map_err(|e| JsValue::from_str(&e.to_string()))
}

pub fn reply(result: Result<Value, ExtError>) -> Value {
    match result {
        Ok(result) => json!({ "ok": true, "result": result }),
        Err(error) => json!({ "ok": false, "error": error.to_json() }),
    }
}

fn live_dom() -> Result<LiveDom, ExtError> {
    let window = web_sys::window().ok_or_else(|| ExtError::new("LIVE_DOM_UNAVAILABLE", "no window"))?;
    LiveDom::new(window).ok_or_else(|| ExtError::new("LIVE_DOM_UNAVAILABLE", "no document"))
}

fn handle(message: &Value) -> Result<Value, ExtError> {
    let op = message.get("op").and_then(Value::as_str).unwrap_or_default();
    match op {
        "ping" => Ok(json!({ "mode": "wasm", "url": live_dom()?.url() })),
        "observe" => {
            let args = message.get("args").and_then(Value::as_object).cloned().unwrap_or_default();
            observe(&args)
        }
        "run" => {
            // The router attaches the host's release of the call; an action without one is
            // refused here too (issue #56: 0 actions without a recorded approval).
            if message.get("release").and_then(Value::as_str).is_none_or(str::is_empty) {
                return Err(ExtError::new(
                    "TOOL_NOT_APPROVED",
                    "the page action comes without the host's release of an approved call; it was not run",
                ));
            }
            let name = message.get("name").and_then(Value::as_str).unwrap_or_default();
            let arguments = message.get("arguments").and_then(Value::as_object).cloned().unwrap_or_default();
            // page_tools answers in the reply shape already; unwrap it so errors stay errors.
            // The host releases a password only as the user's own, typed on a card of its own.
            let password = message.get("password").and_then(Value::as_bool) == Some(true);
            let outcome = page_tools::run_tool(&live_dom()?, name, &arguments, password);
            ext::unwrap_reply(&outcome, ("TOOL_FAILED", "the tool failed"))
        }
        "highlight" => {
            let handle = message.get("handleId").and_then(Value::as_str).unwrap_or_default();
            Ok(json!({ "shown": page_tools::highlight(&live_dom()?, handle) }))
        }
        "clear" => {
            page_tools::clear_highlight();
            Ok(json!({ "cleared": true }))
        }
        "toggle_sidecar" => toggle_in_page_sidecar().map(|shown| json!({ "shown": shown })),
        other => Err(ExtError::new("CONTENT_UNKNOWN_OP", format!("unknown content-script operation {other:?}"))),
    }
}

/// `browser.observe_dom` with the tool's arguments, checked against the catalogue.
pub fn observe_options(args: &Map<String, Value>) -> Result<ObserveOptions, ExtError> {
    let call = RawToolCall { name: "browser.observe_dom".into(), arguments: args.clone() };
    match call.to_typed() {
        Ok(ToolCall::ObserveDom(args)) => Ok(ObserveOptions::from_args(&args)),
        Ok(_) => Err(ExtError::new("TOOL_UNKNOWN", "not browser.observe_dom")),
        Err(violations) => {
            let text: Vec<String> = violations.iter().map(ToString::to_string).collect();
            Err(ExtError::new("TOOL_ARGS_INVALID", text.join("; ")))
        }
    }
}

/// The chunked observation of this page for `browser.observe_dom` arguments.
pub fn observe(args: &Map<String, Value>) -> Result<Value, ExtError> {
    let options = observe_options(args)?;
    let dom = live_dom()?;
    let chunk = observe_chunk(&dom, &dom.url(), &options);
    serde_json::to_value(&chunk).map_err(|e| ExtError::new("OBSERVE_FAILED", e.to_string()))
}

/// The in-page sidecar's host element and the message listener that closes it.
type InPageSidecar = (web_sys::Element, Closure<dyn Fn(web_sys::MessageEvent)>);

thread_local! {
    static IN_PAGE: RefCell<Option<InPageSidecar>> = const { RefCell::new(None) };
}

/// Shows or hides the sidecar as a frame in the page (for browsers without a side panel or
/// sidebar). The frame is an extension page inside a closed shadow root, so page scripts cannot
/// reach into it; its only message to the page, "close", is taken only from that frame and
/// the extension's origin.
fn toggle_in_page_sidecar() -> Result<bool, ExtError> {
    let shown = IN_PAGE.with(|slot| slot.borrow_mut().take());
    let window = web_sys::window().ok_or_else(|| ExtError::new("LIVE_DOM_UNAVAILABLE", "no window"))?;
    if let Some((host, listener)) = shown {
        host.remove();
        let _ = window.remove_event_listener_with_callback("message", listener.as_ref().unchecked_ref());
        return Ok(false);
    }
    let js = |e: JsValue| ExtError::from_js("SIDECAR_FRAME_FAILED", &e);
    let document = window.document().ok_or_else(|| ExtError::new("LIVE_DOM_UNAVAILABLE", "no document"))?;
    let host = document.create_element("laika-sidecar").map_err(js)?;
    host.set_attribute(
        "style",
        "all: initial; position: fixed; top: 0; right: 0; height: 100vh; width: min(420px, 100vw); \
         z-index: 2147483647; box-shadow: 0 0 24px rgba(0,0,0,.25);",
    )
    .map_err(js)?;
    let shadow = host.attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Closed)).map_err(js)?;
    let frame = document.create_element("iframe").map_err(js)?;
    frame.set_attribute("src", &ext::extension_url("sidecar.html?embedded=1")).map_err(js)?;
    frame.set_attribute("title", "Laika").map_err(js)?;
    frame.set_attribute("style", "border: 0; width: 100%; height: 100%; color-scheme: normal;").map_err(js)?;
    shadow.append_child(&frame).map_err(js)?;
    let origin = ext::extension_url("").trim_end_matches('/').to_string();
    let frame_window = frame.clone();
    let listener = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let from_frame = frame_window
            .dyn_ref::<web_sys::HtmlIFrameElement>()
            .and_then(|f| f.content_window())
            .is_some_and(|w| event.source().is_some_and(|s| JsValue::from(s) == JsValue::from(w)));
        if from_frame && event.origin() == origin && event.data().as_string().as_deref() == Some("laika:close") {
            // Later, not from inside this listener: closing drops the listener itself.
            wasm_bindgen_futures::spawn_local(async {
                let _ = toggle_in_page_sidecar();
            });
        }
    });
    window.add_event_listener_with_callback("message", listener.as_ref().unchecked_ref()).map_err(js)?;
    document
        .document_element()
        .ok_or_else(|| ExtError::new("LIVE_DOM_UNAVAILABLE", "no root"))?
        .append_child(&host)
        .map_err(js)?;
    IN_PAGE.with(|slot| *slot.borrow_mut() = Some((host, listener)));
    Ok(true)
}
