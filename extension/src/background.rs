//! The router between Laika's pages, `laika-host` and the tabs: the owner of a native port and
//! the runner of tab tools.
//!
//! It runs in two places. The sidecar runs it in its own WASM instance ([`runs_here`],
//! [`handle_here`]): an open sidecar talks to the host on a port of its own and to the tabs
//! directly, so using Laika wakes no service worker and instantiates no second copy of the module
//! in the extension's process (`cargo xtask bench weight`, used in one tab). The background
//! (Chrome's service worker, Firefox's event page) runs it for the other pages (the welcome page)
//! and for what a page cannot ask itself (`whoami`, Safari's host). Each port is a `laika-host`
//! proxy to the one daemon, so every sidecar still shares one engine, one history and one set of
//! approvals; a port closes with its page.
//!
//! It takes messages only from the extension's own pages, never from content scripts or pages:
//! - `{to: "host", method, params}`: a request to `laika-host`, answered with its result. The
//!   port is opened on first use and again after the host exits (the next request reconnects);
//!   requests in flight when it exits fail with `HOST_DISCONNECTED`. Safari has no stdio host:
//!   there each request is one `runtime.sendNativeMessage` to the app's handler.
//! - `{to: "tab", tabId, op: "observe", args}`: the chunked observation of that tab. On pages
//!   whose CSP keeps WASM out of the content script, the loader answers with a snapshot of the
//!   page and the observation is made here, with the same reader ([`laika_shared::snapshot`]).
//! - `{to: "tab", tabId, op: "run", callId, origin?}`: a planning step's call, run on that tab
//!   only once the host releases it (`tool.release`: the call as the gate saw it, once, when the
//!   gate allowed it or its approval is recorded; `TOOL_NOT_APPROVED` otherwise): page tools in
//!   its content script, which refuses any without the release, tab tools (`browser.open_tab`,
//!   `navigate`, `back`, `forward`, `refresh`, `search`) here. With `origin`, the call is refused
//!   when the tab has left the origin it was observed on.
//! - `{to: "tab", tabId, op: "highlight" | "clear", handleId?}`: citation highlights.
//! - `{to: "tabs", tabId}`: `laika.tabs.list`, the open tabs of that tab's window, title and
//!   origin only.
//! - `{to: "whoami"}`: the tab a sidecar framed into a page belongs to.
//!
//! Replies are `{ok: true, result}` or `{ok: false, error: {code, message}}`.

use crate::content::{observe_options, reply};
use crate::ext::{self, ExtError};
use js_sys::{Function, Promise, Reflect};
use laika_shared::observe::observe_chunk;
use laika_shared::policy::origin_of;
use laika_shared::snapshot::{Snapshot, SnapshotDom};
use laika_shared::tools::{RawToolCall, ToolCall};
use serde_json::{Map, Value, json};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// The native host's registered name (manifest/native-host).
pub const HOST_NAME: &str = "com.laika.host";

/// How long a tab tool waits for the tab to finish loading.
const LOAD_WAIT_MS: u32 = 15_000;

/// One `runtime.onMessage` message. The loader registers the listener synchronously (a service
/// worker woken by a message only delivers it to listeners registered in its first run) and
/// hands the message here; `undefined` means "not for the background".
#[wasm_bindgen(js_name = backgroundHandle)]
pub async fn background_handle(message: JsValue, sender: JsValue) -> JsValue {
    let message: Value = ext::from_js(message).unwrap_or(Value::Null);
    let sender: Value = ext::from_js(sender).unwrap_or(Value::Null);
    let Some(to) = message
        .get("to")
        .and_then(Value::as_str)
        .filter(|to| ["host", "tab", "tabs", "whoami", "capture"].contains(to))
    else {
        return JsValue::UNDEFINED;
    };
    if !from_extension_page(&sender) {
        let error = ExtError::new("EXT_FORBIDDEN_SENDER", "only Laika's own pages may ask this");
        return ext::to_js(&reply(Err(error)));
    }
    ext::to_js(&reply(route(to, &message, &sender).await))
}

/// Whether the calling page runs `message` itself ([`handle_here`]) rather than through the
/// background: everything but `whoami` (only a message's sender says which tab a framed page is
/// in) and, on Safari, host requests (its native half is reached from the background).
pub fn runs_here(message: &Value) -> bool {
    match message.get("to").and_then(Value::as_str) {
        Some("host") => !use_send_native_message(),
        Some("tab" | "tabs" | "capture") => true,
        _ => false,
    }
}

/// `message` routed in the calling page's own instance, as the background would route it.
pub async fn handle_here(message: &Value) -> Result<Value, ExtError> {
    let to = message.get("to").and_then(Value::as_str).unwrap_or_default();
    route(to, message, &Value::Null).await
}

/// The toolbar button where the browser has neither a side panel nor a sidebar (the loader opens
/// those within the click): the sidecar is framed into the page, which the click has just
/// granted (`activeTab`). (Safari's manifest gives the button a popup instead, so this is not
/// called there.)
#[wasm_bindgen(js_name = backgroundActionClicked)]
pub async fn action_clicked(tab: JsValue) {
    let tab: Value = ext::from_js(tab).unwrap_or_default();
    if let Some(tab_id) = tab.get("id").and_then(Value::as_i64) {
        let _ = to_content(tab_id, &json!({ "to": "content", "op": "toggle_sidecar" })).await;
    }
}

/// `runtime.onInstalled`: a first install opens the welcome page, which says how to use Laika and
/// whether `laika-host` answers. (`cargo xtask install --launch` relies on this: a URL given to
/// Chromium on its command line opens before the extension has loaded, and is blocked.)
#[wasm_bindgen(js_name = backgroundInstalled)]
pub async fn installed(details: JsValue) {
    let details: Value = ext::from_js(details).unwrap_or_default();
    if details.get("reason").and_then(Value::as_str) != Some("install") {
        return;
    }
    let url = ext::extension_url("welcome.html");
    let _ = ext::call_async("tabs.create", &[ext::to_js(&json!({ "url": url }))]).await;
}

/// Whether a message comes from one of the extension's own pages.
fn from_extension_page(sender: &Value) -> bool {
    let own_id = ext::get("runtime.id").ok().and_then(|v| v.as_string());
    let origin = ext::extension_url("");
    sender.get("id").and_then(Value::as_str) == own_id.as_deref()
        && sender.get("url").and_then(Value::as_str).is_some_and(|url| !origin.is_empty() && url.starts_with(&origin))
}

async fn route(to: &str, message: &Value, sender: &Value) -> Result<Value, ExtError> {
    match to {
        "host" => {
            let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
            let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
            host_request(method, params).await
        }
        "whoami" => Ok(json!({ "tabId": sender.pointer("/tab/id") })),
        "tabs" => tabs_list(tab_id(message)?).await,
        "capture" => {
            let url = message.get("url").and_then(Value::as_str).unwrap_or_default();
            let max_chars = message.get("maxChars").and_then(Value::as_u64).unwrap_or(CAPTURE_DEFAULT_CHARS);
            capture(url, max_chars).await
        }
        _ => {
            let tab_id = tab_id(message)?;
            match message.get("op").and_then(Value::as_str).unwrap_or_default() {
                "observe" => {
                    let args = message.get("args").and_then(Value::as_object).cloned().unwrap_or_default();
                    observe(tab_id, &args).await
                }
                "run" => {
                    // Nothing runs on a page's word: the host releases the call by its id, with
                    // the arguments its card showed, when its approval is recorded.
                    let Some(call_id) = message.get("callId").and_then(Value::as_str).filter(|id| !id.is_empty())
                    else {
                        return Err(ExtError::new(
                            "TOOL_NOT_APPROVED",
                            "an action runs only by the id of a call the host released; this one names none",
                        ));
                    };
                    let released = host_request("tool.release", json!({ "call_id": call_id })).await?;
                    let name = released.get("name").and_then(Value::as_str).unwrap_or_default();
                    let arguments = released.get("arguments").and_then(Value::as_object).cloned().unwrap_or_default();
                    let release = released.get("release").and_then(Value::as_str).unwrap_or_default();
                    let password = released.get("password").and_then(Value::as_bool) == Some(true);
                    let origin = message.get("origin").and_then(Value::as_str);
                    run_tool(tab_id, name, arguments, origin, (release, password)).await
                }
                // Laika's code in the tab, injected now if it is not there yet (the sidecar asks
                // when it opens on a tab): which reader it runs, live DOM or snapshot.
                "ping" => to_content(tab_id, &json!({ "to": "content", "op": "ping" })).await,
                op @ ("highlight" | "clear") => {
                    let handle = message.get("handleId").cloned().unwrap_or(Value::Null);
                    to_content(tab_id, &json!({ "to": "content", "op": op, "handleId": handle })).await
                }
                other => Err(ExtError::new("EXT_UNKNOWN_OP", format!("unknown tab operation {other:?}"))),
            }
        }
    }
}

fn tab_id(message: &Value) -> Result<i64, ExtError> {
    message.get("tabId").and_then(Value::as_i64).ok_or_else(|| ExtError::new("EXT_NO_TAB", "the message names no tab"))
}

// ---------------------------------------------------------------------------------------------
// The native host.

struct NativePort {
    port: JsValue,
    // Kept alive as long as the port: the browser calls them.
    _on_message: Closure<dyn Fn(JsValue)>,
    _on_disconnect: Closure<dyn Fn(JsValue)>,
}

thread_local! {
    static PORT: RefCell<Option<NativePort>> = const { RefCell::new(None) };
    /// Requests waiting for their reply, by id: the promise's resolve function.
    static PENDING: RefCell<HashMap<String, Function>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

/// Safari reaches its native half through the containing app, one message at a time.
fn use_send_native_message() -> bool {
    !ext::has("runtime.connectNative") || is_safari()
}

fn is_safari() -> bool {
    let agent = js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
        .and_then(|n| Reflect::get(&n, &"userAgent".into()))
        .ok()
        .and_then(|a| a.as_string())
        .unwrap_or_default();
    agent.contains("Safari/") && !agent.contains("Chrome/") && !agent.contains("Chromium/")
}

/// One request to the host; its `{id, result}` / `{id, error}` reply as a result.
pub async fn host_request(method: &str, params: Value) -> Result<Value, ExtError> {
    if method.is_empty() {
        return Err(ExtError::new("HOST_INVALID_PARAMS", "no method"));
    }
    let id = NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id + 1);
        format!("bg-{id}")
    });
    let request = json!({ "id": id, "method": method, "params": params });
    let reply: Value = if use_send_native_message() {
        let reply = ext::call_async("runtime.sendNativeMessage", &[HOST_NAME.into(), ext::to_js(&request)])
            .await
            .map_err(|e| ExtError::new("HOST_UNREACHABLE", e.message))?;
        ext::from_js(reply)?
    } else {
        let waiting = Promise::new(&mut |resolve, _reject| {
            PENDING.with(|pending| pending.borrow_mut().insert(id.clone(), resolve));
        });
        if let Err(error) = post(&request) {
            PENDING.with(|pending| pending.borrow_mut().remove(&id));
            return Err(error);
        }
        let reply = JsFuture::from(waiting).await.unwrap_or(JsValue::NULL);
        ext::from_js(reply)?
    };
    if let Some(error) = reply.get("error") {
        return Err(ExtError::new(
            error.get("code").and_then(Value::as_str).unwrap_or("HOST_ERROR"),
            error.get("message").and_then(Value::as_str).unwrap_or("the host reported an error"),
        ));
    }
    Ok(reply.get("result").cloned().unwrap_or(Value::Null))
}

/// Sends a request on the port, connecting first if there is none.
fn post(request: &Value) -> Result<(), ExtError> {
    let connected = PORT.with(|p| p.borrow().is_some());
    if !connected {
        connect()?;
    }
    PORT.with(|p| {
        let slot = p.borrow();
        let port = &slot.as_ref().ok_or_else(|| ExtError::new("HOST_UNREACHABLE", "no port"))?.port;
        let post: Function = Reflect::get(port, &"postMessage".into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| ExtError::new("HOST_UNREACHABLE", "the port cannot post"))?;
        post.call1(port, &ext::to_js(request)).map(|_| ()).map_err(|e| ExtError::from_js("HOST_UNREACHABLE", &e))
    })
}

fn connect() -> Result<(), ExtError> {
    let port = ext::call("runtime.connectNative", &[HOST_NAME.into()])
        .map_err(|e| ExtError::new("HOST_UNREACHABLE", e.message))?;
    let on_message = Closure::<dyn Fn(JsValue)>::new(|message: JsValue| {
        let id = Reflect::get(&message, &"id".into()).ok().and_then(|id| id.as_string());
        let waiting = id.and_then(|id| PENDING.with(|pending| pending.borrow_mut().remove(&id)));
        if let Some(resolve) = waiting {
            let _ = resolve.call1(&JsValue::NULL, &message);
        }
    });
    let on_disconnect = Closure::<dyn Fn(JsValue)>::new(|_port: JsValue| {
        // The host exited (or could not start): everything in flight fails, and the next request
        // opens a new port. Dropping the port's closures from inside one of them is not allowed,
        // so the slot is cleared after this call returns.
        let reason = ext::get("runtime.lastError.message")
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| "the host exited".into());
        let waiting: Vec<(String, Function)> = PENDING.with(|pending| pending.borrow_mut().drain().collect());
        for (id, resolve) in waiting {
            let error = json!({ "id": id, "error": { "code": "HOST_DISCONNECTED", "message": reason } });
            let _ = resolve.call1(&JsValue::NULL, &ext::to_js(&error));
        }
        wasm_bindgen_futures::spawn_local(async {
            PORT.with(|p| p.borrow_mut().take());
        });
    });
    let add = |event: &str, listener: &Function| -> Result<(), ExtError> {
        let target = Reflect::get(&port, &event.into()).map_err(|e| ExtError::from_js("HOST_UNREACHABLE", &e))?;
        let add: Function = Reflect::get(&target, &"addListener".into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| ExtError::new("HOST_UNREACHABLE", "the port has no events"))?;
        add.call1(&target, listener).map(|_| ()).map_err(|e| ExtError::from_js("HOST_UNREACHABLE", &e))
    };
    add("onMessage", on_message.as_ref().unchecked_ref())?;
    add("onDisconnect", on_disconnect.as_ref().unchecked_ref())?;
    PORT.with(|p| *p.borrow_mut() = Some(NativePort { port, _on_message: on_message, _on_disconnect: on_disconnect }));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Tabs.

/// A message to the tab's content script. No page carries one until the user acts on it with
/// Laika (the manifests declare none: a tab Laika was never asked about holds none of its code
/// and none of its memory), and a navigation leaves the new page without one: then it is
/// injected once and the message sent again.
async fn to_content(tab_id: i64, message: &Value) -> Result<Value, ExtError> {
    let answer = match ext::send_to_tab(tab_id, message).await {
        Ok(answer) => answer,
        Err(_) => {
            inject_content_script(tab_id).await?;
            ext::send_to_tab(tab_id, message).await?
        }
    };
    ext::unwrap_reply(&answer, ("TAB_UNREACHABLE", "the page did not answer"))
}

async fn inject_content_script(tab_id: i64) -> Result<(), ExtError> {
    let details = json!({ "target": { "tabId": tab_id }, "files": ["content.js"] });
    if let Err(e) = ext::call_async("scripting.executeScript", &[ext::to_js(&details)]).await {
        return Err(no_site_access(tab_id, &e.message)
            .await
            .unwrap_or_else(|| ExtError::new("TAB_UNREACHABLE", format!("cannot reach this page: {}", e.message))));
    }
    // The loader instantiates the WASM asynchronously; give it a moment to listen.
    for _ in 0..50 {
        if ext::send_to_tab(tab_id, &json!({ "to": "content", "op": "ping" })).await.is_ok() {
            return Ok(());
        }
        ext::sleep_ms(100).await;
    }
    Err(ExtError::new("TAB_UNREACHABLE", "the page's content script did not start"))
}

/// The manifests ask for no site: Laika may read a page the user clicked its button on
/// (`activeTab`) or a site the user allowed (`optional_host_permissions`). A page outside both is
/// refused with `EXT_NO_SITE_ACCESS`, which the sidecar answers with the browser's own prompt.
/// None when the failure was something else (a browser page, a tab gone).
async fn no_site_access(tab_id: i64, message: &str) -> Option<ExtError> {
    let refused = ["Cannot access contents", "permission", "Missing host permission"];
    if !refused.iter().any(|r| message.contains(r)) {
        return None;
    }
    let url = ext::get_tab(tab_id).await.ok()?.get("url").and_then(Value::as_str).map(String::from)?;
    let origin = origin_of(&url)?;
    Some(ExtError::new(
        "EXT_NO_SITE_ACCESS",
        format!(
            "Laika may not read {origin} yet: click Laika's button on the page, or allow the site when your browser asks"
        ),
    ))
}

async fn observe(tab_id: i64, args: &Map<String, Value>) -> Result<Value, ExtError> {
    let options = observe_options(args)?;
    let answer = to_content(tab_id, &json!({ "to": "content", "op": "observe", "args": args })).await?;
    let Some(snapshot) = answer.get("snapshot") else { return Ok(answer) };
    // The CSP fallback: the page came as data; read it here with the same reader.
    let snapshot: Snapshot = serde_json::from_value(snapshot.clone())
        .map_err(|e| ExtError::new("SNAPSHOT_INVALID", format!("the page snapshot does not parse: {e}")))?;
    let dom = SnapshotDom::new(snapshot).map_err(|e| ExtError::new(e.code(), e.to_string()))?;
    let mut chunk = serde_json::to_value(observe_chunk(&dom, dom.url(), &options))
        .map_err(|e| ExtError::new("OBSERVE_FAILED", e.to_string()))?;
    chunk["mode"] = json!("snapshot");
    Ok(chunk)
}

async fn run_tool(
    tab_id: i64,
    name: &str,
    arguments: Map<String, Value>,
    origin: Option<&str>,
    (release, password): (&str, bool),
) -> Result<Value, ExtError> {
    let call = RawToolCall { name: name.into(), arguments: arguments.clone() }.to_typed().map_err(|violations| {
        let text: Vec<String> = violations.iter().map(ToString::to_string).collect();
        ExtError::new("TOOL_ARGS_INVALID", text.join("; "))
    })?;
    let tab = ext::get_tab(tab_id).await?;
    // Execution stays bound to what was observed: not another site the tab has moved to.
    if let Some(expected) = origin {
        let now = tab.get("url").and_then(Value::as_str).and_then(origin_of);
        if now.as_deref() != Some(expected) {
            return Err(ExtError::new(
                "TAB_MOVED",
                format!("the tab is no longer on {expected}; observe the page again before acting"),
            ));
        }
    }
    let id = JsValue::from_f64(tab_id as f64);
    let result = match &call {
        ToolCall::Click(_) | ToolCall::Type(_) | ToolCall::Select(_) | ToolCall::Scroll(_) => {
            let message = json!({
                "to": "content", "op": "run", "name": name, "arguments": arguments, "release": release,
                "password": password,
            });
            return to_content(tab_id, &message).await;
        }
        ToolCall::OpenTab(args) => {
            let url = web_url(&args.url)?;
            let mut details = json!({ "url": url, "active": true, "openerTabId": tab_id });
            if let Some(window) = tab.get("windowId") {
                details["windowId"] = window.clone();
            }
            let created: Value = ext::from_js(ext::call_async("tabs.create", &[ext::to_js(&details)]).await?)?;
            let new_id = created.get("id").and_then(Value::as_i64);
            if let Some(new_id) = new_id {
                wait_for_load(new_id).await;
            }
            json!({ "tabId": new_id, "url": url })
        }
        ToolCall::Navigate(args) => {
            let url = web_url(&args.url)?;
            ext::call_async("tabs.update", &[id, ext::to_js(&json!({ "url": url }))]).await?;
            wait_for_load(tab_id).await;
            json!({ "tabId": tab_id, "url": url })
        }
        ToolCall::Back(_) => {
            ext::call_async("tabs.goBack", &[id]).await?;
            wait_for_load(tab_id).await;
            json!({ "tabId": tab_id })
        }
        ToolCall::Forward(_) => {
            ext::call_async("tabs.goForward", &[id]).await?;
            wait_for_load(tab_id).await;
            json!({ "tabId": tab_id })
        }
        ToolCall::Refresh(_) => {
            ext::call_async("tabs.reload", &[id]).await?;
            wait_for_load(tab_id).await;
            json!({ "tabId": tab_id })
        }
        ToolCall::Search(args) => {
            let url = search_url(&args.query, args.engine.as_deref());
            if args.new_tab.unwrap_or(true) {
                let details = json!({ "url": url, "active": true, "openerTabId": tab_id });
                let created: Value = ext::from_js(ext::call_async("tabs.create", &[ext::to_js(&details)]).await?)?;
                json!({ "tabId": created.get("id"), "url": url })
            } else {
                ext::call_async("tabs.update", &[id, ext::to_js(&json!({ "url": url }))]).await?;
                wait_for_load(tab_id).await;
                json!({ "tabId": tab_id, "url": url })
            }
        }
        other => {
            return Err(ExtError::new(
                "TOOL_NOT_IN_BROWSER",
                format!("{} runs in the host, not in the browser", other.name()),
            ));
        }
    };
    Ok(result)
}

/// Only web pages are opened: never `javascript:`, `data:`, `file:` or extension URLs.
fn web_url(url: &str) -> Result<String, ExtError> {
    match origin_of(url) {
        Some(_) => Ok(url.trim().to_string()),
        None => Err(ExtError::new("TOOL_URL_REFUSED", "only http and https addresses can be opened")),
    }
}

fn search_url(query: &str, engine: Option<&str>) -> String {
    let encoded: String = js_sys::encode_uri_component(query).into();
    match engine.map(str::to_ascii_lowercase).as_deref() {
        Some("google") => format!("https://www.google.com/search?q={encoded}"),
        Some("bing") => format!("https://www.bing.com/search?q={encoded}"),
        _ => format!("https://duckduckgo.com/?q={encoded}"),
    }
}

/// Waits (bounded) until the tab reports its page loaded, so the next observation sees it.
async fn wait_for_load(tab_id: i64) {
    let mut waited = 0;
    // A navigation reports "loading" only after a moment; don't take the old page's "complete".
    ext::sleep_ms(150).await;
    while waited < LOAD_WAIT_MS {
        let status =
            ext::get_tab(tab_id).await.ok().and_then(|t| t.get("status").and_then(Value::as_str).map(String::from));
        if status.as_deref() != Some("loading") {
            return;
        }
        ext::sleep_ms(100).await;
        waited += 100;
    }
}

/// Characters of text a capture reads when the host names no bound.
const CAPTURE_DEFAULT_CHARS: u64 = 20_000;

/// A page read for a collection (`source.capture`, `source.refresh`): opened in a background
/// tab the user is not taken to, read with the same reader as any page (the snapshot path on a
/// strict page), and closed again whatever happened. The answer is the page's observation.
async fn capture(url: &str, max_chars: u64) -> Result<Value, ExtError> {
    let url = web_url(url)?;
    let created: Value =
        ext::from_js(ext::call_async("tabs.create", &[ext::to_js(&json!({ "url": url, "active": false }))]).await?)?;
    let tab_id = created
        .get("id")
        .and_then(Value::as_i64)
        .ok_or_else(|| ExtError::new("CAPTURE_FAILED", "the browser opened no tab for the page"))?;
    wait_for_load(tab_id).await;
    let args: Map<String, Value> =
        json!({ "maxChars": max_chars, "maxElements": 200 }).as_object().cloned().unwrap_or_default();
    let read = observe(tab_id, &args).await;
    let _ = ext::call_async("tabs.remove", &[JsValue::from_f64(tab_id as f64)]).await;
    let chunk = read?;
    chunk.get("observation").cloned().ok_or_else(|| ExtError::new("CAPTURE_FAILED", "the page gave no observation"))
}

/// `laika.tabs.list`: the window's tabs, title and origin only (never paths or queries).
async fn tabs_list(tab_id: i64) -> Result<Value, ExtError> {
    let tab = ext::get_tab(tab_id).await?;
    let query = json!({ "windowId": tab.get("windowId") });
    let tabs: Vec<Value> = ext::from_js(ext::call_async("tabs.query", &[ext::to_js(&query)]).await?)?;
    let listed: Vec<Value> = tabs
        .iter()
        .filter_map(|t| {
            let origin = origin_of(t.get("url").and_then(Value::as_str)?)?;
            let title: String = t.get("title").and_then(Value::as_str).unwrap_or_default().chars().take(120).collect();
            Some(json!({ "title": title, "origin": origin, "active": t.get("id").and_then(Value::as_i64) == Some(tab_id) }))
        })
        .collect();
    Ok(json!({ "tabs": listed }))
}
