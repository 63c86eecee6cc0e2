// Laika's background loader (an MV3 module service worker in Chrome, an event page elsewhere).
// Listeners are registered synchronously here: a worker woken by an event only delivers it to
// listeners added in its first run, and module workers cannot use top-level await. The work is
// done by the Rust/WASM module, instantiated at the first event that needs it (a message from
// the sidecar, the toolbar button, an install or update) rather than whenever the browser starts
// the worker: a browser where Laika is installed but unused holds no instance of it.
import init, { backgroundHandle, backgroundActionClicked, backgroundInstalled } from "./pkg/laika_extension.js";

const api = globalThis.browser ?? globalThis.chrome;
let ready = null;
const start = () =>
  (ready ??= init({ module_or_path: api.runtime.getURL("pkg/laika_extension_bg.wasm") }));

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (!message || !["host", "tab", "tabs", "whoami"].includes(message.to)) return false;
  start()
    .then(() => backgroundHandle(message, sender))
    .then(sendResponse, (error) => sendResponse({ ok: false, error: { code: "EXT_FAILED", message: String(error) } }));
  return true;
});

api.action?.onClicked.addListener((tab) => {
  start().then(() => backgroundActionClicked(tab));
});

// A first install opens the welcome page. (Browsers also report an update at every start of an
// unpacked extension: that needs nothing, so it does not instantiate the module.)
api.runtime.onInstalled.addListener((details) => {
  if (details?.reason === "install") start().then(() => backgroundInstalled(details));
});

// Chrome's toolbar button opens the side panel by itself once this is set. Set here, at every
// start of the worker, not in the module: a button clicked before the module exists must work.
api.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: true })?.catch?.(() => {});
