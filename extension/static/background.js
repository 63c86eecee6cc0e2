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
  if (!message || !["host", "tab", "tabs", "whoami", "capture"].includes(message.to)) return false;
  start()
    .then(() => backgroundHandle(message, sender))
    .then(sendResponse, (error) => sendResponse({ ok: false, error: { code: "EXT_FAILED", message: String(error) } }));
  return true;
});

// The toolbar button. Clicking it is what grants Laika the page it was clicked on (`activeTab`):
// the manifests ask for no site up front. Chrome grants it only when the click reaches this
// listener (a side panel opened by `openPanelOnActionClick` gets no grant), so the panel is opened
// here; the side panel and Firefox's sidebar must be opened within the click itself, before any
// await, which is why it is done here and not in the module.
api.action?.onClicked.addListener((tab) => {
  if (api.sidePanel?.open) {
    api.sidePanel.open({ tabId: tab.id }).catch(() => {});
    return;
  }
  if (api.sidebarAction?.toggle) {
    api.sidebarAction.toggle();
    return;
  }
  start().then(() => backgroundActionClicked(tab));
});

// A first install opens the welcome page. (Browsers also report an update at every start of an
// unpacked extension: that needs nothing, so it does not instantiate the module.)
api.runtime.onInstalled.addListener((details) => {
  if (details?.reason === "install") start().then(() => backgroundInstalled(details));
});

// An earlier version let Chrome open the panel by itself (no activeTab grant); undo that setting.
api.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: false })?.catch?.(() => {});
