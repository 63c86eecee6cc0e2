//! `laika-extension`: the browser half of Laika, compiled to WASM.
//!
//! The content script, background and sidecar UI grow here with the extension issue. What is
//! here now is platform-free logic the sidecar needs: turning a proposed call and its Policy
//! Gate decision into the approval card the user decides on.

pub mod approval;
