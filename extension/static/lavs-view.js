// The frame a local service's own view runs in (LAVS v1 §7), opened by the sidecar's Services
// panel. Chromium serves this page sandboxed (manifest `sandbox`): a unique origin, no extension
// APIs, and a CSP without network (`content_security_policy.sandbox`), so the view's code can
// reach its data only through the LAVSClient below, whose every request goes to the sidecar over
// postMessage and is answered there for this one service. JavaScript, not Rust: it hosts the
// service's own JavaScript component and only passes messages.
"use strict";
(() => {
  const pending = new Map();
  const streams = new Map();
  let nextId = 1;
  let manifest = null;
  let mounted = false;

  const send = (message) => window.parent.postMessage(message, "*");
  const ask = (message) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ ...message, id });
    });

  const client = {
    call: (endpoint, input) => ask({ lavs: "call", endpoint, input: input === undefined ? null : input }),
    subscribe(endpoint, callback) {
      const id = nextId++;
      let subscription = null;
      let ended = false;
      const end = () => send({ lavs: "unsubscribe", id: nextId++, subscription });
      streams.set(id, callback);
      pending.set(id, {
        resolve: (result) => {
          subscription = result.subscription;
          if (ended) end();
        },
        reject: (error) => console.error("LAVS subscription failed:", error.message),
      });
      send({ lavs: "subscribe", id, endpoint });
      return () => {
        ended = true;
        streams.delete(id);
        if (subscription) end();
      };
    },
    getManifest: () => Promise.resolve(manifest),
    readFile: () => Promise.reject(new Error("views read data through their service's endpoints, not files")),
  };

  const fail = (text) => {
    const p = document.createElement("p");
    p.className = "laika-view-error";
    p.textContent = text;
    document.body.appendChild(p);
  };

  // Runs the component's code and mounts the custom element it defines (the first one).
  function mount(code) {
    const defined = [];
    const define = customElements.define.bind(customElements);
    customElements.define = (name, constructor, options) => {
      defined.push(name);
      return define(name, constructor, options);
    };
    try {
      new Function(code)();
    } catch (error) {
      fail(`The view's code failed: ${error.message}`);
      return;
    }
    if (defined.length === 0) {
      fail("The view's code defines no custom element.");
      return;
    }
    const element = document.createElement(defined[0]);
    document.body.appendChild(element);
    if (typeof element.setLAVSClient === "function") element.setLAVSClient(client);
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || typeof message !== "object") return;
    if (message.lavs === "init" && !mounted) {
      mounted = true;
      manifest = message.manifest;
      mount(String(message.code || ""));
    } else if (message.lavs === "reply") {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) {
        const error = new Error(message.error.message);
        error.code = message.error.code;
        waiting.reject(error);
      } else {
        waiting.resolve(message.result);
      }
    } else if (message.lavs === "data") {
      const callback = streams.get(message.id);
      if (callback) callback(message.data);
    }
  });
})();
