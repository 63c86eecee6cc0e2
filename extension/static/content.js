// Laika's content-script loader. MV3 content scripts are classic scripts, so the Rust/WASM
// module (pkg/, web-accessible) is loaded with a dynamic import and does all the work.
//
// The rest of this file exists because the platform forces it: Chromium refuses to compile
// WASM in a content script on pages whose CSP lacks 'wasm-unsafe-eval' (crbug 1385796). On such
// pages this fallback copies the page into a snapshot (the format of laika_shared::snapshot)
// that the router (in the sidecar, or the background) reads with the same Rust reader, and runs
// approved tools by the handles it gave out, with the same checks and error codes as
// extension/src/page_tools.rs.
(() => {
  if (globalThis.__laikaContent) return;
  globalThis.__laikaContent = true;
  const api = globalThis.browser ?? globalThis.chrome;
  const url = (path) => api.runtime.getURL(path);

  import(url("pkg/laika_extension.js"))
    .then(async (wasm) => {
      await wasm.default({ module_or_path: url("pkg/laika_extension_bg.wasm") });
      // The API object goes in by hand: Firefox gives an imported module the page's global.
      wasm.contentStart(api);
    })
    .catch((error) => fallback(String((error && error.message) || error)));

  function fallback(reason) {
    const byElement = new WeakMap();
    const elements = [];
    const handleOf = (el) => {
      let n = byElement.get(el);
      if (n === undefined) {
        elements.push(el);
        n = elements.length;
        byElement.set(el, n);
      }
      return n;
    };
    const find = (handle) => {
      const m = /^laika-(\d+)$/.exec(handle || "");
      const el = m ? elements[Number(m[1]) - 1] : undefined;
      return el && el.isConnected ? el : null;
    };
    const isButtonInput = (el) =>
      el.localName === "input" && ["button", "submit", "reset"].includes((el.getAttribute("type") || "").trim().toLowerCase());

    function snapshot() {
      const nodes = [];
      const root = document.documentElement;
      if (!root) return { url: location.href, nodes };
      const stack = [[root, undefined]];
      while (stack.length && nodes.length < 400000) {
        const [node, parent] = stack.pop();
        if (node.nodeType === Node.ELEMENT_NODE) {
          const index = nodes.length;
          const entry = { t: node.localName.toLowerCase(), k: handleOf(node) };
          if (parent !== undefined) entry.p = parent;
          const attributes = [];
          for (const attr of node.attributes) {
            const name = attr.name.toLowerCase();
            if (name.startsWith("on")) continue;
            // Never a field's value; a button's markup value is its label.
            if (name === "value" && !isButtonInput(node)) continue;
            attributes.push([name, attr.value]);
          }
          if (attributes.length) entry.a = attributes;
          const style = getComputedStyle(node);
          if (style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse") entry.h = 1;
          nodes.push(entry);
          const skipText = node.localName === "style" || (node.localName === "script" && !/ld\+json/i.test(node.type));
          const from = node.shadowRoot || node;
          const children = skipText ? [] : Array.from(from.childNodes);
          for (let i = children.length - 1; i >= 0; i--) stack.push([children[i], index]);
        } else if (node.nodeType === Node.TEXT_NODE) {
          nodes.push({ p: parent, x: node.data });
        }
      }
      return { url: location.href, nodes };
    }

    const fail = (code, message) => ({ ok: false, error: { code, message } });
    const hidden = (el) => {
      for (let e = el; e && e.nodeType === Node.ELEMENT_NODE; e = e.parentElement) {
        const s = getComputedStyle(e);
        if (s.display === "none") return true;
      }
      const s = getComputedStyle(el);
      const r = el.getBoundingClientRect();
      return s.visibility === "hidden" || s.visibility === "collapse" || (r.width === 0 && r.height === 0);
    };
    const disabled = (el) =>
      el.matches(":disabled") || !!el.closest('[aria-disabled="true"]') || !!el.closest("fieldset:disabled");
    const secret = (el) => {
      const type = (el.getAttribute("type") || "").toLowerCase();
      const auto = (el.getAttribute("autocomplete") || "").toLowerCase();
      return type === "password" || auto.includes("one-time-code") || /\bcc-/.test(auto) || type === "hidden" || type === "file";
    };
    const fire = (el, type) => el.dispatchEvent(new Event(type, { bubbles: true }));

    // `password`: the host released this call as the user's own password, typed into this
    // page's password field on a card of its own (never any other secret field).
    function run(name, args, password) {
      if (name === "browser.scroll") {
        if (typeof args.deltaY !== "number" || !isFinite(args.deltaY)) return fail("TOOL_ARGS_INVALID", "deltaY must be a number");
        window.scrollBy(0, args.deltaY);
        return { ok: true, result: { scrollY: window.scrollY } };
      }
      if (!["browser.click", "browser.type", "browser.select"].includes(name))
        return fail("TOOL_NOT_CONTENT_SCRIPT", `${name} does not run in the page`);
      const el = find(args.handleId);
      if (!el) return fail("TOOL_ELEMENT_GONE", `${args.handleId} is no longer in the page`);
      if (hidden(el)) return fail("TOOL_ELEMENT_HIDDEN", `${args.handleId} is not visible`);
      if (disabled(el)) return fail("TOOL_ELEMENT_DISABLED", `${args.handleId} is disabled`);
      el.scrollIntoView({ block: "center", inline: "nearest" });
      if (name === "browser.click") {
        el.click();
        const editable = el.matches("input, textarea, select, [contenteditable]");
        return { ok: true, result: { tag: el.localName, text: editable ? "" : (el.textContent || "").trim().slice(0, 80), href: el.href || undefined } };
      }
      if (typeof args.text !== "string" && name === "browser.type") return fail("TOOL_ARGS_INVALID", "text must be a string");
      const ownPassword = password === true && name === "browser.type" && el.localName === "input" && (el.getAttribute("type") || "").toLowerCase() === "password";
      if (secret(el) && !ownPassword) return fail("TOOL_FIELD_REFUSED", "Laika never types into password, one-time-code, payment, hidden or file fields");
      if (name === "browser.type") {
        const textLike = ownPassword || el.localName === "textarea" ||
          (el.localName === "input" && ["", "text", "search", "email", "url", "tel", "number"].includes((el.getAttribute("type") || "").toLowerCase()));
        if (el.isContentEditable) {
          el.focus();
          el.textContent = args.text;
          fire(el, "input");
          return { ok: true, result: { typed_chars: [...args.text].length } };
        }
        if (!textLike) return fail("TOOL_ELEMENT_UNSUPPORTED", `${args.handleId} is not a text field`);
        if (el.readOnly) return fail("TOOL_ELEMENT_READONLY", `${args.handleId} is read-only`);
        el.focus();
        el.value = args.text;
        fire(el, "input");
        fire(el, "change");
        return { ok: true, result: { typed_chars: [...args.text].length, matches: el.value === args.text } };
      }
      if (el.localName !== "select") return fail("TOOL_ELEMENT_UNSUPPORTED", `${args.handleId} is not a list of options`);
      const wanted = String(args.value ?? "").trim().toLowerCase();
      const options = Array.from(el.options);
      const option = options.find((o) => o.value === args.value) || options.find((o) => o.label.trim().toLowerCase() === wanted);
      if (!option) return fail("TOOL_OPTION_NOT_FOUND", `no option ${JSON.stringify(args.value)}; options: ${options.slice(0, 20).map((o) => o.label).join(", ")}`);
      if (option.disabled) return fail("TOOL_ELEMENT_DISABLED", "that option is disabled");
      el.selectedIndex = option.index;
      fire(el, "input");
      fire(el, "change");
      return { ok: true, result: { selected: option.label } };
    }

    let overlay = null;
    function highlight(handle) {
      clear();
      const el = find(handle);
      if (!el) return false;
      el.scrollIntoView({ block: "center", inline: "nearest" });
      const host = document.createElement("laika-highlight");
      host.style.cssText = "all: initial; position: fixed; inset: 0; pointer-events: none; z-index: 2147483647;";
      const box = document.createElement("div");
      host.attachShadow({ mode: "closed" }).append(box);
      const place = () => {
        const r = el.getBoundingClientRect();
        box.style.cssText = `position: fixed; left: ${r.left - 3}px; top: ${r.top - 3}px; width: ${r.width + 6}px; height: ${r.height + 6}px; border: 3px solid #f5a524; border-radius: 4px; background: rgba(245,165,36,.15); box-sizing: border-box;`;
      };
      place();
      addEventListener("scroll", place, true);
      addEventListener("resize", place);
      document.documentElement.append(host);
      overlay = { host, place };
      return true;
    }
    function clear() {
      if (!overlay) return;
      removeEventListener("scroll", overlay.place, true);
      removeEventListener("resize", overlay.place);
      overlay.host.remove();
      overlay = null;
    }

    let frame = null;
    function toggleSidecar() {
      if (frame) { frame.host.remove(); removeEventListener("message", frame.listener); frame = null; return false; }
      const host = document.createElement("laika-sidecar");
      host.style.cssText = "all: initial; position: fixed; top: 0; right: 0; height: 100vh; width: min(420px, 100vw); z-index: 2147483647;";
      const iframe = document.createElement("iframe");
      iframe.src = url("sidecar.html?embedded=1");
      iframe.title = "Laika";
      iframe.style.cssText = "border: 0; width: 100%; height: 100%;";
      host.attachShadow({ mode: "closed" }).append(iframe);
      const origin = new URL(url("")).origin;
      const listener = (event) => {
        if (event.source === iframe.contentWindow && event.origin === origin && event.data === "laika:close") toggleSidecar();
      };
      addEventListener("message", listener);
      document.documentElement.append(host);
      frame = { host, listener };
      return true;
    }

    api.runtime.onMessage.addListener((message, _sender, sendResponse) => {
      if (!message || message.to !== "content") return false;
      let answer;
      try {
        switch (message.op) {
          case "ping": answer = { ok: true, result: { mode: "snapshot", reason } }; break;
          case "observe": answer = { ok: true, result: { snapshot: snapshot() } }; break;
          // The router attaches the host's release of an approved call; without it, nothing runs.
          case "run": answer = message.release ? run(message.name, message.arguments || {}, message.password) : fail("TOOL_NOT_APPROVED", "the page action comes without the host's release of an approved call; it was not run"); break;
          case "highlight": answer = { ok: true, result: { shown: highlight(message.handleId) } }; break;
          case "clear": clear(); answer = { ok: true, result: { cleared: true } }; break;
          case "toggle_sidecar": answer = { ok: true, result: { shown: toggleSidecar() } }; break;
          default: answer = fail("CONTENT_UNKNOWN_OP", `unknown content-script operation ${message.op}`);
        }
      } catch (error) {
        answer = fail("TOOL_FAILED", String((error && error.message) || error));
      }
      sendResponse(answer);
      return false;
    });
  }
})();
