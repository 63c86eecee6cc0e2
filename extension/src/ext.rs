//! The WebExtension API, reached from Rust.
//!
//! Chrome names it `chrome`, Firefox and Safari `browser` (Firefox also answers to `chrome`, with
//! callbacks). Every call here goes to `browser` when it exists and to `chrome` otherwise; in
//! Chrome MV3 both return promises. The calls are looked up by name at run time (with
//! `Reflect`) rather than bound statically, because which of them exist differs per browser and
//! per context (a content script has no `tabs`).

use js_sys::{Function, Promise, Reflect};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// An error from the extension side, with a stable code like the host's errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtError {
    pub code: String,
    pub message: String,
}

impl ExtError {
    pub fn new(code: &str, message: impl Into<String>) -> ExtError {
        ExtError { code: code.into(), message: message.into() }
    }

    /// An error the browser raised (a JS exception or a rejected promise).
    pub fn from_js(code: &str, error: &JsValue) -> ExtError {
        let message = Reflect::get(error, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .or_else(|| error.as_string())
            .unwrap_or_else(|| format!("{error:?}"));
        ExtError::new(code, message)
    }

    pub fn to_json(&self) -> Value {
        serde_json::json!({ "code": self.code, "message": self.message })
    }
}

impl std::fmt::Display for ExtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

thread_local! {
    /// The API object a loader handed over ([`provide_api`]).
    static PROVIDED_API: std::cell::RefCell<Option<JsValue>> = const { std::cell::RefCell::new(None) };
}

/// Takes the API object from the loader. Firefox runs a module that a content script imports
/// with the page's window as its global, where the content script's `browser` is not visible;
/// the loader, a content script itself, can see it and passes it in.
pub fn provide_api(api: JsValue) {
    if api.is_object() && Reflect::get(&api, &"runtime".into()).is_ok_and(|r| r.is_object()) {
        PROVIDED_API.with(|slot| *slot.borrow_mut() = Some(api));
    }
}

/// The extension API object (`browser` or `chrome`).
pub fn api() -> Result<JsValue, ExtError> {
    if let Some(api) = PROVIDED_API.with(|slot| slot.borrow().clone()) {
        return Ok(api);
    }
    let global = js_sys::global();
    for name in ["browser", "chrome"] {
        let value = Reflect::get(&global, &name.into()).unwrap_or(JsValue::UNDEFINED);
        if value.is_object() && Reflect::get(&value, &"runtime".into()).is_ok_and(|r| r.is_object()) {
            return Ok(value);
        }
    }
    Err(ExtError::new("EXT_NO_API", "not running in an extension context"))
}

/// A member by dotted path from the API object, e.g. `"runtime.onMessage"`.
pub fn get(path: &str) -> Result<JsValue, ExtError> {
    let mut value = api()?;
    for part in path.split('.') {
        value = Reflect::get(&value, &part.into()).unwrap_or(JsValue::UNDEFINED);
        if value.is_undefined() || value.is_null() {
            return Err(ExtError::new("EXT_NO_API", format!("{path} is not available here")));
        }
    }
    Ok(value)
}

/// Whether an API member exists in this browser and context.
pub fn has(path: &str) -> bool {
    get(path).is_ok()
}

/// Calls `path(args…)` (a method of the object before the last dot) and returns what it returns.
pub fn call(path: &str, args: &[JsValue]) -> Result<JsValue, ExtError> {
    let (object_path, method) = path.rsplit_once('.').unwrap_or(("", path));
    let this = if object_path.is_empty() { api()? } else { get(object_path)? };
    let function: Function = Reflect::get(&this, &method.into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| ExtError::new("EXT_NO_API", format!("{path} is not available here")))?;
    let array = js_sys::Array::new();
    for arg in args {
        array.push(arg);
    }
    function.apply(&this, &array).map_err(|e| ExtError::from_js("EXT_CALL_FAILED", &e))
}

/// Calls an API method that returns a promise and awaits it.
pub async fn call_async(path: &str, args: &[JsValue]) -> Result<JsValue, ExtError> {
    let returned = call(path, args)?;
    match returned.dyn_into::<Promise>() {
        Ok(promise) => JsFuture::from(promise).await.map_err(|e| ExtError::from_js("EXT_CALL_FAILED", &e)),
        Err(value) => Ok(value),
    }
}

/// The browser's record of a tab (`tabs.get`): its URL, title, status.
pub async fn get_tab(tab_id: i64) -> Result<Value, ExtError> {
    let tab = call_async("tabs.get", &[JsValue::from_f64(tab_id as f64)])
        .await
        .map_err(|e| ExtError::new("TAB_GONE", e.message))?;
    from_js(tab)
}

// Data crosses between Rust and JS as JSON text: every message here is JSON-shaped anyway, and
// going through serde_json (already in the module) instead of a second serde bridge keeps the
// shipped WASM smaller.

/// Rust data → a plain JS object, as `JSON.parse` gives it.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    serde_json::to_string(value).ok().and_then(|text| js_sys::JSON::parse(&text).ok()).unwrap_or(JsValue::NULL)
}

/// A JS value → Rust data (`undefined` reads as `null`).
pub fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, ExtError> {
    let text: String = if value.is_undefined() {
        "null".into()
    } else {
        js_sys::JSON::stringify(&value)
            .map_err(|e| ExtError::from_js("EXT_BAD_MESSAGE", &e))?
            .as_string()
            .unwrap_or_else(|| "null".into())
    };
    serde_json::from_str(&text).map_err(|e| ExtError::new("EXT_BAD_MESSAGE", e.to_string()))
}

/// Adds a listener to an event such as `runtime.onMessage`; the closure lives as long as the page.
pub fn listen(event_path: &str, listener: &Function) -> Result<(), ExtError> {
    call(&format!("{event_path}.addListener"), &[listener.into()]).map(|_| ())
}

/// The `runtime.onMessage` shape shared by every context: the handler gets the message and the
/// sender, returns a future of the reply, and the reply goes back through `sendResponse` (the
/// one way that works in every browser: returning `true` keeps the channel open). Messages the
/// handler does not take (`None`) are left to other listeners.
pub fn on_message<F, Fut>(handler: F) -> Result<(), ExtError>
where
    F: Fn(Value, Value) -> Option<Fut> + 'static,
    Fut: std::future::Future<Output = Value> + 'static,
{
    let closure = Closure::<dyn Fn(JsValue, JsValue, Function) -> JsValue>::new(
        move |message: JsValue, sender: JsValue, send_response: Function| -> JsValue {
            let message: Value = from_js(message).unwrap_or(Value::Null);
            let sender: Value = from_js(sender).unwrap_or(Value::Null);
            let Some(reply) = handler(message, sender) else { return JsValue::FALSE };
            wasm_bindgen_futures::spawn_local(async move {
                let reply = reply.await;
                let _ = send_response.call1(&JsValue::NULL, &to_js(&reply));
            });
            JsValue::TRUE
        },
    );
    listen("runtime.onMessage", closure.as_ref().unchecked_ref())?;
    closure.forget();
    Ok(())
}

/// A reply in the `{ok: true, result}` / `{ok: false, error: {code, message}}` shape, as a
/// result; `silent` names who failed to answer when the reply says nothing.
pub fn unwrap_reply(answer: &Value, silent: (&str, &str)) -> Result<Value, ExtError> {
    if answer.get("ok").and_then(Value::as_bool) == Some(true) {
        return Ok(answer.get("result").cloned().unwrap_or(Value::Null));
    }
    let error = answer.get("error").cloned().unwrap_or_default();
    Err(ExtError::new(
        error.get("code").and_then(Value::as_str).unwrap_or(silent.0),
        error.get("message").and_then(Value::as_str).unwrap_or(silent.1),
    ))
}

/// `runtime.sendMessage(message)` → the reply.
pub async fn send_message(message: &Value) -> Result<Value, ExtError> {
    let reply = call_async("runtime.sendMessage", &[to_js(message)]).await?;
    from_js(reply)
}

/// `tabs.sendMessage(tab, message)` → the reply.
pub async fn send_to_tab(tab_id: i64, message: &Value) -> Result<Value, ExtError> {
    let reply = call_async("tabs.sendMessage", &[JsValue::from_f64(tab_id as f64), to_js(message)])
        .await
        .map_err(|e| ExtError::new("TAB_UNREACHABLE", e.message))?;
    from_js(reply)
}

/// `runtime.getURL(path)`.
pub fn extension_url(path: &str) -> String {
    call("runtime.getURL", &[path.into()]).ok().and_then(|v| v.as_string()).unwrap_or_default()
}

/// Sleeps without blocking the event loop.
pub async fn sleep_ms(ms: u32) {
    gloo_timers::future::TimeoutFuture::new(ms).await;
}
