//! `laika-extension`: the browser half of Laika, compiled to WASM.
//!
//! One WASM module serves the extension's three contexts; a few lines of JavaScript per context
//! (in `static/`) load it and call its start function:
//! - the content script ([`content`]): observes the live page through [`live_dom`] with the
//!   shared reader, runs approved page tools by handle ([`page_tools`]), highlights cited
//!   elements;
//! - the background ([`background`]): the router to `laika-host` (a native port) and to the
//!   tabs (tab tools, the tab list, page snapshots where a page's CSP keeps WASM out of the
//!   content script), run by the sidecar in its own instance and by the service worker for the
//!   other pages;
//! - the sidecar ([`sidecar`]): the UI, drawing model output only through the render AST
//!   ([`render_dom`]) and asking before anything runs ([`approval`]).
//!
//! [`ext`] is the small bridge to the WebExtension API the three share. Only [`approval`] and
//! [`lavs_fallback`] are platform-free (and tested natively); the rest exists only in the browser.

pub mod approval;
#[cfg(target_arch = "wasm32")]
pub mod background;
#[cfg(target_arch = "wasm32")]
pub mod content;
#[cfg(target_arch = "wasm32")]
pub mod ext;
pub mod lavs_fallback;
#[cfg(target_arch = "wasm32")]
pub mod live_dom;
#[cfg(target_arch = "wasm32")]
pub mod page_tools;
#[cfg(target_arch = "wasm32")]
pub mod render_dom;
#[cfg(target_arch = "wasm32")]
pub mod sidecar;
