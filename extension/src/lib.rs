//! `laika-extension`: the browser half of Laika, compiled to WASM.
//!
//! The content script, background and sidecar UI grow here with the extension issue. What is
//! here now: the live page's [`Dom`](laika_shared::dom::Dom) (`live_dom`, WASM only), through
//! which the content script observes with the shared heuristics, and the platform-free logic
//! that turns a proposed call and its Policy Gate decision into the approval card.

pub mod approval;
#[cfg(target_arch = "wasm32")]
pub mod live_dom;
