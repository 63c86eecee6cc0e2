//! `laika-safari`: Laika's native host as a static library with a C ABI, for Safari.
//!
//! Chromium and Firefox start `laika-host` and speak native messaging with it on stdio. Safari
//! does not: `browser.runtime.sendNativeMessage` reaches the containing app's
//! `SafariWebExtensionHandler` (manifest/safari/), one message per call. That handler links this
//! library and forwards each message to [`laika_request`], which answers it exactly as the stdio
//! host answers the same frame: same API ([`laika_host::api::HostApi`]), same replies, same
//! stable error codes for malformed input, same 1 MiB cap on a reply.
//!
//! The C ABI (declared in `include/laika.h`):
//!
//! - `char *laika_request(const char *request_json)`: a request `{"id", "method", "params"}` in,
//!   the reply `{"id", "result"}` or `{"id", "error": {"code", "message"}}` out, as a newly
//!   allocated NUL-terminated string. Thread-safe; blocks until the reply is ready (a planning
//!   step waits for the model), so call it off the main thread.
//! - `void laika_free_string(char *reply_json)`: frees a reply.
//!
//! Inside, one process-wide host (configuration, history, engine, running summaries) and one
//! multi-thread tokio runtime are started by the first well-formed request and live as long as
//! the process, so a summary job started by one call is polled by later ones. Replies that come
//! at once ([`Answer::Now`]) are returned at once; later ones ([`Answer::Later`]) are waited for
//! on the runtime. The data directory is the stdio host's: `LAIKA_DATA_DIR`, else the platform
//! data directory (inside the app extension's sandbox container on macOS).
//!
//! No panic crosses the C boundary: one becomes a `HOST_PANIC` error reply. That needs the
//! default `panic = "unwind"`; the workspace's release profile keeps it.

use laika_host::api::HostApi;
use laika_host::host::{self, Host};
use laika_host::transport::{self, Answer, Handler, HostError, MAX_INCOMING, Reply, Request};
use serde_json::Value;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, OnceLock};

/// The host and the runtime its work runs on, for the life of the process.
struct Service {
    runtime: tokio::runtime::Runtime,
    api: HostApi,
}

static SERVICE: OnceLock<Service> = OnceLock::new();
/// Held while the service starts, so that two first requests start one host.
static STARTING: Mutex<()> = Mutex::new(());

impl Service {
    /// Opens the host as `laika-host native` does and starts loading its engine in the background.
    fn start() -> anyhow::Result<Service> {
        laika_host::init_logging();
        let runtime = laika_host::runtime()?;
        let host = Host::open(&host::data_dir())?;
        let loading = host.clone();
        runtime.spawn(async move { loading.load_engine().await });
        Ok(Service { runtime, api: HostApi { host } })
    }
}

/// The running service, started on first use. A failed start is not remembered: the next
/// request tries again (say, once a broken `config.json` is fixed).
fn service() -> Result<&'static Service, HostError> {
    if let Some(service) = SERVICE.get() {
        return Ok(service);
    }
    let _starting = STARTING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(service) = SERVICE.get() {
        return Ok(service);
    }
    let started = Service::start().map_err(|e| HostError::new("HOST_START_FAILED", format!("{e:#}")))?;
    Ok(SERVICE.get_or_init(|| started))
}

/// The host's API behind the service: started by the first well-formed request, so that a
/// malformed one is answered without opening the data directory.
struct Shared;

impl Handler for Shared {
    fn handle(&self, request: &Request) -> Answer {
        match service() {
            Ok(service) => {
                // Handlers spawn work (a summary job, an engine reload) onto the current runtime.
                let _entered = service.runtime.enter();
                service.api.handle(request)
            }
            Err(error) => Answer::Now(Err(error)),
        }
    }
}

/// The reply's JSON bytes for one message (`None`: the caller passed NULL).
fn reply(message: Option<&[u8]>, handler: &impl Handler) -> Vec<u8> {
    let Some(message) = message else {
        let error = HostError::new("NM_INVALID_REQUEST", "the request is a NULL pointer");
        return transport::error_bytes(Value::Null, &error).into();
    };
    if message.len() > MAX_INCOMING {
        return transport::error_bytes(Value::Null, &transport::too_large(message.len())).into();
    }
    match transport::answer(message, handler) {
        Reply::Ready(reply) => reply.into(),
        // Only the started service answers later, so it is there to wait on.
        Reply::Pending(work) => match service() {
            Ok(service) => service.runtime.block_on(work).into(),
            Err(error) => transport::error_bytes(Value::Null, &error).into(),
        },
    }
}

/// Runs `answer`, turning a panic into an error reply.
fn guarded(answer: impl FnOnce() -> Vec<u8>) -> Vec<u8> {
    catch_unwind(AssertUnwindSafe(answer)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let error = HostError::new("HOST_PANIC", format!("the host failed while answering: {what}"));
        transport::error_bytes(Value::Null, &error).into()
    })
}

/// A reply as a C string the caller frees with [`laika_free_string`]; NULL only when its
/// buffer cannot be allocated. JSON text has no NUL byte (U+0000 is written `\u0000`).
fn into_c_string(mut bytes: Vec<u8>) -> *mut c_char {
    if bytes.try_reserve_exact(1).is_err() {
        return std::ptr::null_mut();
    }
    bytes.push(0);
    CString::from_vec_with_nul(bytes).map_or(std::ptr::null_mut(), CString::into_raw)
}

/// Answers one native-messaging request, given as NUL-terminated UTF-8 JSON
/// (`{"id", "method", "params"}`), with the reply JSON the stdio host would send for it, as a
/// newly allocated NUL-terminated string to be freed with [`laika_free_string`].
///
/// Malformed input gets an error reply with the stdio host's codes (`NM_INVALID_UTF8`,
/// `NM_INVALID_JSON`, `NM_INVALID_REQUEST`, `NM_FRAME_TOO_LARGE`); a host that cannot start,
/// `HOST_START_FAILED`; a panic, `HOST_PANIC`. Returns NULL only when the reply cannot be
/// allocated. Thread-safe; blocks until the reply is ready; must not be called from a thread
/// that is running a tokio runtime.
///
/// # Safety
///
/// `request_json` is NULL (answered with an `NM_INVALID_REQUEST` error) or points to a
/// NUL-terminated string that stays valid and unchanged for the duration of the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn laika_request(request_json: *const c_char) -> *mut c_char {
    let reply = guarded(|| {
        // SAFETY: the caller passes NULL or a valid NUL-terminated string (see above).
        let message = (!request_json.is_null()).then(|| unsafe { CStr::from_ptr(request_json) }.to_bytes());
        reply(message, &Shared)
    });
    into_c_string(reply)
}

/// Frees a reply returned by [`laika_request`]. NULL is ignored.
///
/// # Safety
///
/// `reply_json` is NULL or a pointer [`laika_request`] returned, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn laika_free_string(reply_json: *mut c_char) {
    if !reply_json.is_null() {
        // SAFETY: the pointer came from `CString::into_raw` in `laika_request` (see above).
        drop(unsafe { CString::from_raw(reply_json) });
    }
}

#[cfg(test)]
mod tests {
    //! Malformed input never starts the host, so these run without a data directory; the
    //! whole host is exercised through the C ABI by `tests/c_abi.rs`.

    use super::*;
    use serde_json::json;

    /// Calls the C ABI as C does and frees the reply.
    fn call(request: Option<&[u8]>) -> Value {
        let owned = request.map(|r| CString::new(r).unwrap());
        let pointer = owned.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        let reply = unsafe { laika_request(pointer) };
        assert!(!reply.is_null());
        let value = serde_json::from_slice(unsafe { CStr::from_ptr(reply) }.to_bytes()).unwrap();
        unsafe { laika_free_string(reply) };
        value
    }

    fn code(reply: &Value) -> &str {
        reply["error"]["code"].as_str().unwrap_or("ok")
    }

    #[test]
    fn malformed_requests_get_the_stdio_hosts_codes() {
        assert_eq!(code(&call(None)), "NM_INVALID_REQUEST");
        assert_eq!(code(&call(Some(b"\xc3\x28 invalid utf-8"))), "NM_INVALID_UTF8");
        assert_eq!(code(&call(Some(b"{\"id\": 2, \"method\": "))), "NM_INVALID_JSON");
        assert_eq!(code(&call(Some(b""))), "NM_INVALID_JSON");
        assert_eq!(code(&call(Some(b"[1, 2]"))), "NM_INVALID_REQUEST");
        assert_eq!(code(&call(Some(br#"{"method": "host.info"}"#))), "NM_INVALID_REQUEST");
        let reply = call(Some(br#"{"id": "x", "params": {}}"#));
        assert_eq!(
            reply,
            json!({ "id": "x", "error": { "code": "NM_INVALID_REQUEST", "message": "a request needs a string method" } })
        );
    }

    #[test]
    fn an_oversize_request_is_refused_as_the_stdio_host_refuses_the_frame() {
        let big = vec![b' '; MAX_INCOMING + 1];
        let reply: Value = serde_json::from_slice(&reply(Some(&big), &Shared)).unwrap();
        assert_eq!(code(&reply), "NM_FRAME_TOO_LARGE");
    }

    #[test]
    fn a_panic_becomes_an_error_reply() {
        let reply: Value = serde_json::from_slice(&guarded(|| panic!("boom"))).unwrap();
        assert_eq!(code(&reply), "HOST_PANIC");
        assert!(reply["error"]["message"].as_str().unwrap().contains("boom"));
    }

    #[test]
    fn freeing_null_is_a_no_op() {
        unsafe { laika_free_string(std::ptr::null_mut()) };
    }
}
