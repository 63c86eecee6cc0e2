// Laika's background loader (an MV3 module service worker in Chrome, an event page elsewhere).
// Listeners are registered synchronously here: a worker woken by an event only delivers it to
// listeners added in its first run, and module workers cannot use top-level await. The work is
// done by the Rust/WASM module once it is instantiated.
import init, { backgroundStart, backgroundHandle, backgroundActionClicked, backgroundInstalled } from "./pkg/laika_extension.js";

const api = globalThis.browser ?? globalThis.chrome;
const ready = init({ module_or_path: api.runtime.getURL("pkg/laika_extension_bg.wasm") }).then(() => backgroundStart());

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (!message || !["host", "tab", "tabs", "whoami"].includes(message.to)) return false;
  ready
    .then(() => backgroundHandle(message, sender))
    .then(sendResponse, (error) => sendResponse({ ok: false, error: { code: "EXT_FAILED", message: String(error) } }));
  return true;
});

api.action?.onClicked.addListener((tab) => {
  ready.then(() => backgroundActionClicked(tab));
});

api.runtime.onInstalled.addListener((details) => {
  ready.then(() => backgroundInstalled(details));
});
