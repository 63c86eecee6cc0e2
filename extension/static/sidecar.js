// Laika's sidecar loader: the UI is built by the Rust/WASM module.
import init, { sidecarStart } from "./pkg/laika_extension.js";

init({ module_or_path: new URL("pkg/laika_extension_bg.wasm", import.meta.url) }).then(() => sidecarStart());
