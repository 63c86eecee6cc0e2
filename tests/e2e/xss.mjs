// Issue 7, part 1: XSS through the renderer. The model is the attacker.
//
// Every vector of the XSS corpora (../shared/corpora/xss: DOMPurify's expectations, html5sec,
// OWASP's filter-evasion cheat sheet) is put into every string the model controls, and the result
// is rendered by the REAL sidecar (dist/chrome in Debian Chromium) talking to the REAL laika-host,
// whose OpenAI-compatible engine is pointed at a scripted server in this file that answers with
// the vectors. The host's Markdown→HTML path (`laika-host summarize --format html`) and its render
// AST→HTML writer (`laika-host render --format html`) are fed the same vectors and their HTML is
// loaded in a Chromium page.
//
// What the model controls, and where each vector is put (each vector lands in each field once):
// - plan (Ask): the planner reply's `summary`, as plain text and as Markdown (raw inline HTML, raw
//   HTML block, paragraph, heading, list item, blockquote, table header and body cells, link text,
//   link href raw and inside an https URL, image alt, fenced code text and language, inline code),
//   rendered through the render AST by the sidecar's DOM renderer; its tool calls (search query →
//   approval card title and arguments, typed text → card arguments, navigation URL → refusal line
//   or card); the engine's error message (shown as the turn's error).
// - summary (Summarise): the streamed text of every chunk and of the overall statement; citation
//   quotes (the page quotes the model's sentences are grounded on: the page holds the vectors too).
// - history: every stored plan render and the summary's stored render (its Markdown), re-rendered
//   by the sidecar's History panel.
// - host CLI: all Markdown fields through `summarize --format html`, and a hostile render AST
//   (every field of every node type, unknown node types, extra keys, bare strings) through
//   `render --format html`.
//
// Counted: script executions (a canary installed before any page script: alert/confirm/prompt/print
// and window.__laikaXss; dialogs), CSP violations (securitypolicyviolation: attempts the extension
// page CSP blocked), elements outside the renderer's allowlist (RENDER_TAGS in
// extension/src/render_dom.rs; text-only sinks must hold no element at all; a MutationObserver also
// sees transient elements), attributes outside RENDER_ATTRIBUTES, dangerous URLs (any attribute
// value that is a javascript:/data:/vbscript: URL, srcdoc, any on* attribute), and (reported, no
// target) vectors whose literal text is not visible as text in their field. A self-check injects
// one vector with innerHTML into scratch pages and must be caught by the same counters.
//
// Environment: LAIKA_DIST (dist/chrome), LAIKA_HOST_BIN (target/debug/laika-host), CHROMIUM
// (/usr/bin/chromium), LAIKA_E2E_OUT (screenshots, target/e2e), LAIKA_SECURITY_OUT (writes
// xss.json there), LAIKA_CORPORA (the folder holding xss/; default ../shared/corpora),
// LAIKA_XSS_KEEP=1 (keep the temporary profile and data directory). For development only:
// LAIKA_XSS_LIMIT=N (about N vectors), LAIKA_XSS_ONLY=stage,… and LAIKA_XSS_DEBUG=1.
// Prints a table and a final `xss: {json}` line; exits non-zero when a target is missed.

import { chromium } from "playwright-core";
import { allowSite } from "./site.mjs";
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const started = Date.now();
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const EXTENSION_ID = "aalmaaaoibklhiemdgicgkpmclfehdkb";
const HOST_NAME = "com.laika.host";
const dist = path.resolve(process.env.LAIKA_DIST ?? path.join(repo, "dist/chrome"));
const hostBin = path.resolve(process.env.LAIKA_HOST_BIN ?? path.join(repo, "target/debug/laika-host"));
const out = path.resolve(process.env.LAIKA_E2E_OUT ?? path.join(repo, "target/e2e"));
const corpora = path.resolve(process.env.LAIKA_CORPORA ?? path.join(repo, "../shared/corpora"));
const securityOut = process.env.LAIKA_SECURITY_OUT ? path.resolve(process.env.LAIKA_SECURITY_OUT) : null;
const log = (...a) => console.log(...a);

// The renderer's allowlist (extension/src/render_dom.rs) and the host's HTML writer's
// (shared/src/render.rs to_html).
const RENDER_TAGS = ["div", "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "table", "thead", "tbody", "tr", "th", "td", "a", "br"];
const RENDER_ATTRIBUTES = [["div", "class"], ["code", "class"], ["a", "href"], ["a", "rel"], ["a", "target"]];
const TO_HTML_TAGS = RENDER_TAGS.filter((t) => t !== "div" && t !== "br");
const TO_HTML_ATTRIBUTES = [["code", "class"], ["a", "href"], ["a", "rel"], ["a", "target"]];
// What the sidecar itself builds around model text (extension/src/sidecar.rs): allowed outside
// the render root, never inside it. Text sinks get model/page text through textContent only.
const SIDECAR_TAGS = ["article", "p", "div", "section", "h2", "h3", "ol", "ul", "li", "button", "code", "dl", "dt", "dd", "span", "progress"];
const TEXT_SINKS = ".stream, button.cite, .card-title, .card-args dt, .card-args dd, .card-text, .card-href, .card-role, .refused, .error, .user, .progress, .done, .note, .card-outcome, .card-kicker, .card-warning";

// ------------------------------------------------------------------------------------------
// The vectors.

function loadVectors() {
  const dir = path.join(corpora, "xss");
  const read = (f) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));
  const vectors = [];
  read("dompurify-expect.json").forEach((v, i) => vectors.push({ source: "dompurify", ref: `${i}`, title: v.title, payload: v.payload }));
  read("html5sec-h5sc.json").forEach((v) => vectors.push({ source: "html5sec", ref: `${v.id}`, title: v.name, payload: v.payload }));
  read("owasp-xss-filter-evasion.json").forEach((v, i) => {
    vectors.push({ source: "owasp", ref: `${i}`, title: v.title, payload: v.payload });
    // The cheat sheet's Markdown escapes hide four payloads; their unescaped form is a vector too.
    if (v.payload_md_unescaped && v.payload_md_unescaped !== v.payload) {
      vectors.push({ source: "owasp", ref: `${i}u`, title: `${v.title} (unescaped)`, payload: v.payload_md_unescaped });
    }
  });
  // LAIKA_XSS_LIMIT=N keeps every Nth vector (a quick run while developing; not a result).
  const step = Number(process.env.LAIKA_XSS_LIMIT ?? 0) > 0 ? Math.ceil(vectors.length / Number(process.env.LAIKA_XSS_LIMIT)) : 1;
  const kept = vectors.filter((_, i) => i % step === 0);
  kept.forEach((v, k) => {
    v.k = k;
    v.tag = `x${String(k).padStart(3, "0")}`;
  });
  return { all: vectors, kept };
}
const { all: allVectors, kept: vectors } = loadVectors();
const corpusCounts = vectors.reduce((m, v) => ((m[v.source] = (m[v.source] ?? 0) + 1), m), {});

const norm = (s) => s.replace(/\s+/g, " ").trim();
const mark = (v, field) => `⟦${v.tag}.${field}⟧`;

// ------------------------------------------------------------------------------------------
// Bookkeeping per field: which vectors landed there, and whose literal text is not visible.

const fields = new Map();
function field(name) {
  if (!fields.has(name)) fields.set(name, { landed: new Set(), missing: new Set(), literalChecked: 0 });
  return fields.get(name);
}
function landed(name, v) {
  field(name).landed.add(v.k);
}
function literal(name, v, visible, shown) {
  const f = field(name);
  f.literalChecked++;
  if (!visible) {
    f.missing.add(v.k);
    if (shown !== undefined && (f.shown ??= []).length < 3) f.shown.push(shown.slice(0, 160));
  }
}
const totals = { executions: 0, csp: 0, disallowed: 0, badAttributes: 0, dangerousUrls: 0, onAttributes: 0, observerFlags: 0, dialogs: 0, pageErrors: 0, unexpectedRequests: 0 };
const examples = { executions: [], csp: [], disallowed: [], badAttributes: [], dangerous: [], observer: [], requests: [] };
const rendered = { elements: 0, links: 0, code_languages: 0 };
const note = (list, item) => list.length < 12 && list.push(item);

// ------------------------------------------------------------------------------------------
// Markdown builders. Escaped text shows the vector literally; raw placements are the attack.

/** Backslash-escapes ASCII punctuation; control characters (line breaks too) as entities. */
const mdEscape = (s) =>
  s.replace(/[!-/:-@[-`{-~]|[\u0000-\u001f\u007f]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 || code === 0x7f ? `&#${code};` : `\\${c}`;
  });
const longestRun = (s, ch) => Math.max(0, ...(s.match(new RegExp(`\\${ch}+`, "g")) ?? []).map((r) => r.length));
const quoteLines = (s) => s.split(/\r\n|\r|\n/).map((l) => `> ${l}`).join("\n");
const httpsWith = (p) => `https://laika.test/h?${p.replace(/[\s\u0000-\u001f\u007f]/g, (c) => encodeURIComponent(c))}`;

/**
 * Every Markdown placement of one vector: [field, markdown, literal expectation or null]. Lines
 * are kept unique (fence lengths, separator rows, comment separators) so the summary stream's
 * repeat filter, which drops a line it has seen, cannot merge structure across vectors.
 */
const fenceBase = Math.max(3, ...allVectors.map((v) => longestRun(v.payload, "`") + 1));
function markdownPlacements(v) {
  const p = v.payload;
  const e = mdEscape(p);
  const m = (f) => mark(v, f);
  // Code fences: the opening line is unique by its info string (not a language name, so no
  // class), the closing one by its length (a closing fence may be longer than the opening one).
  const open = "`".repeat(Math.max(3, longestRun(p, "`") + 1));
  const close = "`".repeat(fenceBase + v.k);
  const ticks = "`".repeat(longestRun(p, "`") + 1);
  const oneLine = p.replace(/\r\n|\r|\n/g, " ");
  return [
    ["md.inline_html", `${quoteLines(`${m("hi")} ${p}`)}`, `${m("hi")} ${p}`],
    ["md.html_block", `> ${m("hb")}\n> <!-- ${v.tag} -->\n${quoteLines(p)}`, `${m("hb")} ${p}`],
    ["md.paragraph", `${m("pa")} ${e}`, `${m("pa")} ${p}`],
    ["md.heading", `## ${m("he")} ${e}`, `${m("he")} ${p}`],
    ["md.list_item", `- ${m("li")} ${e}`, `${m("li")} ${p}`],
    ["md.blockquote", `> ${m("bq")} ${e}`, `${m("bq")} ${p}`],
    ["md.table_header", `| ${m("th")} | ${e} |\n| --- | ${"-".repeat(3 + v.k)} |\n| ${m("td")} | ${e} |`, `${m("th")} ${p}`],
    ["md.table_cell", null, `${m("td")} ${p}`],
    ["md.link_text", `${m("lt")} [${e}](https://laika.test/v/${v.tag})`, `${m("lt")} ${p}`],
    ["md.link_href", `${m("lh")} [link ${v.tag}a](<${e}>)`, null],
    ["md.link_href_https", `${m("lu")} [link ${v.tag}b](<${mdEscape(httpsWith(p))}>)`, null],
    ["md.image_alt", `${m("ia")} ![${e}](https://laika.test/i/${v.tag}.png)`, `${m("ia")} ${p}`],
    ["md.code_text", `${m("ct")}\n\n${open} ⟦${v.tag}⟧\n${p}\n${close}`, `${m("ct")} ${p}`],
    ["md.code_language", `${m("cl")}\n\n~~~ ${e} ${v.tag}\ncode ${v.tag}\n${"~".repeat(3 + v.k)}`, null],
    ["md.inline_code", `${m("ic")} ${ticks} ${oneLine} ${ticks}`, `${m("ic")} ${oneLine}`],
  ];
}

function markdownFor(batch) {
  const parts = [];
  const expectations = [];
  for (const v of batch) {
    for (const [f, md, expect] of markdownPlacements(v)) {
      if (md !== null) parts.push(md);
      expectations.push({ field: f, v, expect });
    }
  }
  return { markdown: parts.join("\n\n"), expectations };
}

function batches(list, budget, size) {
  const out = [];
  let current = [];
  let used = 0;
  for (const item of list) {
    const s = size(item);
    if (current.length && used + s > budget) {
      out.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += s;
  }
  if (current.length) out.push(current);
  return out;
}

// ------------------------------------------------------------------------------------------
// The scripted OpenAI-compatible server: the attacker's model.

const script = {
  plan: null, // the planner reply (content string) or { error }
  summaryParts: null, // (part, parts) => content
  combine: null, // () => content
  cli: null, // content for the CLI's single-chunk summary
  summaryError: null, // an error every summary call answers with
  calls: [],
  lastPlanUser: null,
};

function sse(res, content) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  // Deltas of whole lines, about 4 KB each (a line is split only when longer, never inside a
  // surrogate pair): the summary's repeat filter then sees whole lines, as it would from a model
  // that streams a line faster than the filter releases it.
  const pieces = [];
  let current = "";
  for (const line of content.split(/(?<=\n)/)) {
    if (current && current.length + line.length > 4000) {
      pieces.push(current);
      current = "";
    }
    if (line.length <= 4000) current += line;
    else {
      const chars = Array.from(line);
      for (let i = 0; i < chars.length; i += 4000) pieces.push(chars.slice(i, i + 4000).join(""));
    }
  }
  if (current) pieces.push(current);
  for (const piece of pieces) {
    res.write(`data: ${JSON.stringify({ id: "xss", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`);
  }
  res.write(`data: ${JSON.stringify({ id: "xss", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
  res.write("data: [DONE]\n\n");
  res.end();
}

function sseError(res, message) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(`data: ${JSON.stringify({ error: { message } })}\n\n`);
  res.end();
}

function engineAnswer(body, res) {
  const system = body.messages?.[0]?.content ?? "";
  const user = body.messages?.[1]?.content ?? "";
  let request = {};
  try {
    request = JSON.parse(user);
  } catch {}
  if (system.startsWith("You are Laika, a browser assistant")) {
    script.calls.push("plan");
    if (!request.previous_output) script.lastPlanUser = request;
    const plan = typeof script.plan === "function" ? script.plan(script.lastPlanUser) : script.plan;
    if (plan && typeof plan === "object" && plan.error !== undefined) return sseError(res, plan.error);
    return sse(res, plan ?? JSON.stringify({ summary: "Nothing scripted.", tool_calls: [] }));
  }
  if (system.startsWith("You are Laika. The user message is JSON whose documents hold notes")) {
    script.calls.push("combine");
    return sse(res, script.combine ? script.combine() : "No overall statement scripted.");
  }
  if (system.startsWith("You are Laika, a careful assistant")) {
    const args = request.input?.task?.args ?? {};
    script.calls.push(`summary ${args.part ?? 1}/${args.parts ?? 1}`);
    if (script.cli !== null) return sse(res, script.cli);
    if (script.summaryError) return sseError(res, script.summaryError);
    return sse(res, script.summaryParts ? script.summaryParts(args.part ?? 1, args.parts ?? 1) : "- Nothing scripted.");
  }
  script.calls.push("unknown");
  return sse(res, "- Unknown request.");
}

// ------------------------------------------------------------------------------------------
// Pages: the page the planner acts on, the page of vectors Summarise reads, scratch pages for
// the self-check, and the host's HTML outputs.

const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const PLAN_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Notes</title></head><body><main>
<h1>Notes</h1><p>A short page the planner looks at while the model proposes its answer and its actions.</p>
<label for="q">Search notes</label> <input id="q" type="text" name="q"> <button id="go">Go</button>
</main></body></html>`;
const VECTORS_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Collected vectors</title></head><body><main><article>
<h1>Collected vectors</h1>
${vectors.map((v) => `<p>${escapeHtml(`⟦${v.tag}⟧ ${v.payload}`)}</p>`).join("\n")}
</article></main></body></html>`;
const CLI_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Notes</title></head><body><main><article>
<h1>Notes</h1><p>A short page: the model's answer is what carries the vectors.</p></article></main></body></html>`;
const hostPages = new Map();

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  if (url.pathname === "/v1/models") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify({ object: "list", data: [{ id: "xss", object: "model" }] }));
  }
  if (url.pathname === "/v1/chat/completions" && req.method === "POST") {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {}
      engineAnswer(body, res);
    });
    return;
  }
  const html = (body) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(body);
  };
  if (url.pathname === "/plan.html") return html(PLAN_PAGE);
  if (url.pathname === "/vectors.html") return html(VECTORS_PAGE);
  if (url.pathname === "/scratch.html") return html(`<!doctype html><meta charset="utf-8"><title>scratch</title><body><div id="out"></div></body>`);
  if (hostPages.has(url.pathname)) return html(hostPages.get(url.pathname));
  res.writeHead(404);
  res.end("not found");
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

// ------------------------------------------------------------------------------------------
// The host, registered into a fresh Chromium profile, its engine pointed at the server above.

const work = fs.mkdtempSync(path.join(os.tmpdir(), "laika-xss-"));
const userDataDir = path.join(work, "profile");
const dataDir = path.join(work, "data");
fs.mkdirSync(path.join(userDataDir, "NativeMessagingHosts"), { recursive: true });
fs.mkdirSync(dataDir, { recursive: true });
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(
  path.join(dataDir, "config.json"),
  JSON.stringify({ engine: "openai", base_url: origin, remote_model: "xss", remote_context_tokens: 32768 }),
);
const wrapper = path.join(work, "laika-host.sh");
fs.writeFileSync(
  wrapper,
  `#!/bin/sh\nexport LAIKA_DATA_DIR='${dataDir}'\nexec '${hostBin}' "$@" 2>>'${path.join(work, "host.log")}'\n`,
);
fs.chmodSync(wrapper, 0o755);
fs.writeFileSync(
  path.join(userDataDir, "NativeMessagingHosts", `${HOST_NAME}.json`),
  JSON.stringify({ name: HOST_NAME, description: "Laika native host (XSS test)", path: wrapper, type: "stdio", allowed_origins: [`chrome-extension://${EXTENSION_ID}/`] }),
);

// ------------------------------------------------------------------------------------------
// The canary, in every page before its own scripts, and the audit the harness runs in pages.

const CANARY = `(() => {
  if (window.__laikaXss) return;
  const state = { executions: 0, calls: [], csp: [], flagged: [] };
  Object.defineProperty(window, "__laikaXss", { value: state, configurable: false, enumerable: false, writable: false });
  const hit = (kind, args) => {
    state.executions++;
    if (state.calls.length < 50) state.calls.push(kind + "(" + String(args && args.length ? args[0] : "").slice(0, 80) + ")");
  };
  for (const name of ["alert", "confirm", "prompt", "print"]) {
    const f = function (...args) { hit(name, args); return name === "confirm" ? false : name === "prompt" ? null : undefined; };
    try { Object.defineProperty(window, name, { value: f, writable: true, configurable: true }); } catch (e) {}
  }
  window.__laikaXssHit = (...args) => hit("hit", args);
  document.addEventListener("securitypolicyviolation", (e) => {
    if (state.csp.length < 200) state.csp.push({ directive: e.violatedDirective, blocked: String(e.blockedURI).slice(0, 80), sample: String(e.sample || "").slice(0, 80) });
    else state.csp.push(null);
  }, true);
  // The sidecar: any element it ever holds (even for an instant) must be one it can build.
  if (location.protocol === "chrome-extension:" && location.pathname.endsWith("/sidecar.html")) {
    const allowed = new Set(${JSON.stringify([...new Set([...RENDER_TAGS, ...SIDECAR_TAGS, "html", "head", "body", "meta", "link", "script", "title", "noscript", "header", "h1", "main", "form", "textarea"])])});
    const dangerous = /^(javascript|data|vbscript):/;
    const check = (el) => {
      const tag = el.localName.toLowerCase();
      if (!allowed.has(tag) || el.namespaceURI !== "http://www.w3.org/1999/xhtml") state.flagged.push("element <" + tag + ">");
      for (const a of el.attributes) {
        const name = a.name.toLowerCase();
        const value = a.value.replace(/[\\s\\u0000-\\u001f\\u007f-\\u009f]/g, "").toLowerCase();
        if (name.startsWith("on") || name === "srcdoc" || dangerous.test(value)) state.flagged.push("attribute " + tag + "[" + name + "=" + a.value.slice(0, 60) + "]");
      }
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === "attributes") { if (r.target.nodeType === 1) check(r.target); continue; }
        for (const n of r.addedNodes) {
          if (n.nodeType !== 1) continue;
          check(n);
          for (const d of n.querySelectorAll("*")) check(d);
        }
      }
    }).observe(document, { childList: true, subtree: true, attributes: true });
  }
})();`;

/** Runs in a page: audits the elements under each root. */
function auditInPage({ rootSelector, tags, attributes, sinks, outerTags }) {
  const renderTags = new Set(tags);
  const renderAttributes = new Set(attributes.map(([t, a]) => `${t} ${a}`));
  const outer = new Set(outerTags);
  const dangerous = /^(javascript|data|vbscript):/;
  const result = { elements: 0, disallowed: [], badAttributes: [], dangerous: [], on: [], links: 0, languages: 0 };
  const describe = (el) => `<${el.localName}${[...el.attributes].map((a) => ` ${a.name}="${a.value.slice(0, 40)}"`).join("")}>`;
  const walk = (root) => {
    const all = root.nodeType === 1 ? [root, ...root.querySelectorAll("*")] : [...root.querySelectorAll("*")];
    for (const el of all) {
      result.elements++;
      const tag = el.localName.toLowerCase();
      if (tag === "a" && el.hasAttribute("href")) result.links++;
      if (tag === "code" && el.closest(".laika-render, [data-xss-root]") && el.hasAttribute("class")) result.languages++;
      const html = el.namespaceURI === "http://www.w3.org/1999/xhtml";
      const sink = sinks ? el.parentElement?.closest(sinks) : null;
      const renderRoot = el.closest(".laika-render, [data-xss-root]");
      const harnessRoot = renderRoot === el && el.hasAttribute("data-xss-root");
      if (sink && root.contains(sink)) result.disallowed.push(`${describe(el)} inside a text sink`);
      else if (harnessRoot) {
        // The harness's own container.
      } else if (renderRoot) {
        if (!html || !renderTags.has(tag)) result.disallowed.push(describe(el));
        for (const a of el.attributes) if (!renderAttributes.has(`${tag} ${a.name.toLowerCase()}`)) result.badAttributes.push(`${tag}[${a.name}]`);
      } else if (!html || !outer.has(tag)) result.disallowed.push(describe(el));
      for (const a of el.attributes) {
        const name = a.name.toLowerCase();
        const value = a.value.replace(/[\s\u0000-\u001f\u007f-\u009f]/g, "").toLowerCase();
        if (name.startsWith("on")) result.on.push(`${tag}[${name}]`);
        else if (name === "srcdoc" || dangerous.test(value)) result.dangerous.push(`${tag}[${name}=${a.value.slice(0, 60)}]`);
      }
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  for (const root of document.querySelectorAll(rootSelector)) walk(root);
  return result;
}

/** Runs in a page: for each expectation, whether its normalised text is visible under its root. */
function literalInPage({ rootSelector, expectations }) {
  const norm = (s) => s.replace(/\s+/g, " ").trim();
  const text = norm([...document.querySelectorAll(rootSelector)].map((r) => r.innerText).join("\n"));
  return expectations.map((e) => text.includes(e));
}

function addAudit(result, where) {
  if (!selfChecking) {
    rendered.elements += result.elements;
    rendered.links += result.links;
    rendered.code_languages += result.languages;
  }
  totals.disallowed += result.disallowed.length;
  totals.badAttributes += result.badAttributes.length;
  totals.dangerousUrls += result.dangerous.length + result.on.length;
  totals.onAttributes += result.on.length;
  for (const d of result.disallowed) note(examples.disallowed, `${where}: ${d}`);
  for (const d of result.badAttributes) note(examples.badAttributes, `${where}: ${d}`);
  for (const d of [...result.dangerous, ...result.on]) note(examples.dangerous, `${where}: ${d}`);
  return result;
}

/** Reads (and clears) a page's canary. */
async function collect(page, where) {
  const state = await page.evaluate(() => {
    const s = window.__laikaXss;
    if (!s) return null;
    const copy = { executions: s.executions, calls: s.calls.splice(0), csp: s.csp.splice(0), flagged: s.flagged.splice(0) };
    s.executions = 0;
    return copy;
  });
  if (!state) throw new Error(`${where}: the canary is missing from the page`);
  totals.executions += state.executions;
  totals.csp += state.csp.length;
  totals.observerFlags += state.flagged.length;
  for (const c of state.calls) note(examples.executions, `${where}: ${c}`);
  for (const c of state.csp) note(examples.csp, `${where}: ${JSON.stringify(c)}`);
  for (const f of state.flagged) note(examples.observer, `${where}: ${f}`);
  return state;
}

// ------------------------------------------------------------------------------------------
// The browser.

const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--disable-extensions-except=${dist}`,
    `--load-extension=${dist}`,
  ],
});
await context.addInitScript(CANARY);
const distFiles = new Set();
for (const f of fs.readdirSync(dist, { recursive: true })) distFiles.add(`chrome-extension://${EXTENSION_ID}/${String(f).split(path.sep).join("/")}`);
const watched = new WeakSet();
function watch(page, label) {
  if (watched.has(page)) return;
  watched.add(page);
  page.on("dialog", (dialog) => {
    dialog.dismiss().catch(() => {});
    if (selfChecking) return;
    totals.executions++;
    totals.dialogs++;
    note(examples.executions, `${label}: dialog ${dialog.type()} ${dialog.message().slice(0, 60)}`);
  });
  page.on("pageerror", () => selfChecking || totals.pageErrors++);
  page.on("request", (request) => {
    const url = request.url().split("?")[0];
    if (url.startsWith(origin) || distFiles.has(url)) return;
    if (selfChecking) return void selfRequests++;
    totals.unexpectedRequests++;
    note(examples.requests, `${label}: ${request.url().slice(0, 100)}`);
  });
}
context.on("page", (page) => watch(page, "page"));
const sidecarUrl = `chrome-extension://${EXTENSION_ID}/sidecar.html`;

async function openTab(url) {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: "load" });
  return page;
}

async function tabIdOf(sidecar, url) {
  return sidecar.evaluate(async (url) => (await chrome.tabs.query({ url }))[0]?.id, url);
}

/** Loads the sidecar bound to a tab (a fresh page load: a fresh conversation). */
async function loadSidecar(sidecar, tabId) {
  await sidecar.goto(`${sidecarUrl}?tab=${tabId}`);
  await sidecar.waitForSelector("#summarise");
}

async function waitContent(sidecar, tabId) {
  return sidecar.evaluate(async (tabId) => {
    for (let i = 0; i < 100; i++) {
      try {
        const answer = await chrome.runtime.sendMessage({ to: "tab", tabId, op: "ping" });
        if (answer?.ok) return answer.result.mode;
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  }, tabId);
}

async function ask(sidecar, goal) {
  const turns = await sidecar.$$eval(".turn", (t) => t.length);
  await sidecar.fill("#input", goal);
  await sidecar.press("#input", "Enter");
  await sidecar.waitForFunction(
    (n) => {
      const turn = document.querySelectorAll(".turn")[n];
      return turn && !turn.querySelector(".progress") && !document.querySelector("#ask[disabled]");
    },
    turns,
    { timeout: 180000 },
  );
  return turns;
}

const settle = (page) => page.waitForTimeout(250);
const SIDECAR_AUDIT = { rootSelector: ".turn", tags: RENDER_TAGS, attributes: RENDER_ATTRIBUTES, sinks: TEXT_SINKS, outerTags: [...RENDER_TAGS, ...SIDECAR_TAGS] };

// ------------------------------------------------------------------------------------------
// Self-check: one vector put in with innerHTML must be caught by the same counters.

let selfChecking = false;
let selfRequests = 0;

async function selfCheck() {
  selfChecking = true;
  const inject = (payload) => {
    const root = document.createElement("div");
    root.className = "laika-render";
    root.dataset.xssRoot = "";
    root.innerHTML = payload; // deliberately unsafe
    (document.querySelector("#out") ?? document.body).append(root);
  };
  const state = (page) => page.evaluate(() => ({ executions: window.__laikaXss.executions, csp: window.__laikaXss.csp.length, flagged: window.__laikaXss.flagged.length }));
  // The first corpus vector that runs script when put into a plain http page with innerHTML.
  const candidates = allVectors.filter((x) => /<img[^>]*\son\w+\s*=/i.test(x.payload));
  let v = null;
  let plainAudit = null;
  let plainState = null;
  for (const candidate of candidates.slice(0, 20)) {
    const plain = await openTab(`${origin}/scratch.html`);
    await plain.evaluate(inject, candidate.payload);
    await plain.waitForTimeout(300);
    const s = await state(plain);
    if (s.executions > 0) {
      v = candidate;
      plainState = s;
      plainAudit = await plain.evaluate(auditInPage, { ...SIDECAR_AUDIT, rootSelector: "[data-xss-root]" });
    }
    await plain.close();
    if (v) break;
  }
  // And the first whose innerHTML leaves a javascript: URL in an attribute.
  const linkVector = allVectors.find((x) => /<a\s[^>]*href\s*=\s*["']?javascript:/i.test(x.payload));
  const results = {
    vector: v ? `${v.source} ${v.ref}: ${v.payload.slice(0, 80)}` : null,
    url_vector: linkVector ? `${linkVector.source} ${linkVector.ref}: ${linkVector.payload.slice(0, 80)}` : null,
  };
  if (!v || !linkVector) {
    selfChecking = false;
    return { ...results, detected: false };
  }
  {
    const plain = await openTab(`${origin}/scratch.html`);
    await plain.evaluate(inject, v.payload);
    await plain.evaluate(inject, linkVector.payload);
    await plain.waitForTimeout(300);
    plainState = await state(plain);
    plainAudit = await plain.evaluate(auditInPage, { ...SIDECAR_AUDIT, rootSelector: "[data-xss-root]" });
    await plain.close();
  }
  // The same vector in an extension page (the sidecar's document and CSP): blocked, but attempted.
  const ext = await context.newPage();
  await ext.goto(`${sidecarUrl}?tab=-1`);
  await ext.waitForSelector("#summarise");
  const hasCanary = await ext.evaluate(() => typeof window.__laikaXss === "object" && String(window.alert).includes("hit"));
  selfRequests = 0;
  await ext.evaluate(inject, v.payload);
  await ext.evaluate(inject, linkVector.payload);
  await ext.waitForTimeout(500);
  const extAudit = await ext.evaluate(auditInPage, { ...SIDECAR_AUDIT, rootSelector: "[data-xss-root]" });
  const extState = await state(ext);
  await ext.close();
  selfChecking = false;
  results.canary_in_extension_page = hasCanary;
  const summarise = (st, audit) => ({
    executions: st.executions,
    csp_violations: st.csp,
    disallowed_elements: audit.disallowed.length,
    dangerous_urls: audit.dangerous.length,
    on_attributes: audit.on.length,
  });
  results.extension_page = { ...summarise(extState, extAudit), observer_flags: extState.flagged, unexpected_requests: selfRequests };
  results.http_page = summarise(plainState, plainAudit);
  const caught = (r) => r.disallowed_elements > 0 && r.dangerous_urls > 0 && r.on_attributes > 0;
  results.detected =
    hasCanary &&
    caught(results.extension_page) &&
    results.extension_page.csp_violations > 0 &&
    results.extension_page.observer_flags > 0 &&
    caught(results.http_page) &&
    results.http_page.executions > 0;
  return results;
}

// ------------------------------------------------------------------------------------------
// Plan turns: Markdown, plain text, tool calls, engine errors.

let planTab;
let planTabId;
let sidecar;
const runs = { plan_turns: 0, markdown_turns: 0, plain_turns: 0, tool_turns: 0, error_turns: 0, summary_runs: 0, history_views: 0, cli_pages: 0 };

async function planTurn(label, reply, check) {
  await loadSidecar(sidecar, planTabId);
  script.plan = reply;
  const index = await ask(sidecar, `${label}`);
  runs.plan_turns++;
  await settle(sidecar);
  const turnSel = `.turn:nth-of-type(${index + 1})`;
  addAudit(await sidecar.evaluate(auditInPage, { ...SIDECAR_AUDIT, rootSelector: ".turn" }), label);
  const error = await sidecar.$eval(".turn", (t) => t.querySelector(".error")?.textContent ?? "");
  await check(turnSel, error);
  await collect(sidecar, label);
}

async function markdownTurns() {
  const groups = batches(vectors, 90000, (v) => markdownPlacements(v).reduce((n, [, md]) => n + (md?.length ?? 0), 0));
  let first = true;
  for (const [i, group] of groups.entries()) {
    const { markdown, expectations } = markdownFor(group);
    const label = `xss markdown batch ${i + 1}`;
    runs.markdown_turns++;
    await planTurn(label, JSON.stringify({ summary: markdown, summaryFormat: "markdown", tool_calls: [] }), async (turnSel, error) => {
      if (error) throw new Error(`${label}: ${error}`);
      const checks = expectations.filter((e) => e.expect !== null);
      const seen = await sidecar.evaluate(literalInPage, { rootSelector: ".turn .laika-render", expectations: checks.map((e) => norm(e.expect)) });
      for (const e of expectations) landed(`plan.${e.field}`, e.v);
      checks.forEach((e, j) => literal(`plan.${e.field}`, e.v, seen[j]));
      historyPlan.push({ label, expectations: expectations.map((e) => ({ ...e, field: `history:plan.${e.field}` })) });
      if (first) {
        await sidecar.screenshot({ path: path.join(out, "xss-plan-markdown.png") });
        first = false;
      }
    });
  }
}

async function plainTurns() {
  const groups = batches(vectors, 90000, (v) => v.payload.length + 20);
  for (const [i, group] of groups.entries()) {
    const label = `xss plain batch ${i + 1}`;
    runs.plain_turns++;
    const summary = group.map((v) => `${mark(v, "pl")} ${v.payload}`).join("\n\n");
    await planTurn(label, JSON.stringify({ summary, summaryFormat: "plain", tool_calls: [] }), async (_, error) => {
      if (error) throw new Error(`${label}: ${error}`);
      const seen = await sidecar.evaluate(literalInPage, { rootSelector: ".turn .laika-render", expectations: group.map((v) => norm(`${mark(v, "pl")} ${v.payload}`)) });
      group.forEach((v, j) => {
        landed("plan.plain_text", v);
        literal("plan.plain_text", v, seen[j]);
      });
      historyPlan.push({ label, expectations: group.map((v) => ({ field: "history:plan.plain_text", v, expect: `${mark(v, "pl")} ${v.payload}` })) });
    });
  }
}

const shorten = (text, max) => {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
};
/** Rust's `{:?}` of a string, as the Policy Gate quotes a search query in a card title. */
const rustDebug = (s) =>
  `"${Array.from(s)
    .map((c) => {
      const escapes = { "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0" };
      if (escapes[c]) return escapes[c];
      const code = c.codePointAt(0);
      // Rust escapes what it does not consider printable (controls, separators, format
      // characters); approximated here by Unicode category.
      return c !== " " && /[\p{C}\p{Z}]/u.test(c) ? `\\u{${code.toString(16)}}` : c;
    })
    .join("")}"`;
const clip = (s) => {
  const chars = Array.from(s.trim());
  return chars.length <= 80 ? s.trim() : `${chars.slice(0, 79).join("")}…`;
};
const prefixOf = (full, shown) => {
  const a = norm(full);
  const b = norm(shown).replace(/…$/, "").trim();
  return b.length > 0 && a.startsWith(b) && (b.length >= Math.min(a.length, 60) || a === b);
};

async function toolTurns() {
  const usable = vectors.filter((v) => v.payload.trim() !== "");
  for (const v of vectors) if (v.payload.trim() === "") for (const f of ["plan.card.search_query", "plan.card.title", "plan.card.typed_text", "plan.navigate_url"]) field(f).notApplicable = (field(f).notApplicable ?? 0) + 1;
  const groups = batches(usable, 40, () => 1);
  for (const [i, group] of groups.entries()) {
    const label = `xss tool batch ${i + 1}`;
    runs.tool_turns++;
    const reply = (request) => {
      const elements = request?.context?.documents?.[0]?.content?.elements ?? [];
      const box = elements.find((e) => e.role === "textbox" || e.tag === "input");
      const calls = [];
      for (const v of group) {
        calls.push({ name: "search", arguments: { query: v.payload } });
        calls.push({ name: "browser.type", arguments: { handleId: box?.handle_id ?? "laika-missing", text: v.payload } });
        calls.push({ name: "browser.navigate", arguments: { url: v.payload } });
      }
      return JSON.stringify({ summary: `Tool batch ${i + 1}.`, summaryFormat: "plain", tool_calls: calls });
    };
    await planTurn(label, reply, async (turnSel, error) => {
      if (error) throw new Error(`${label}: ${error}`);
      const items = await sidecar.$$eval(".turn .step > .card, .turn .step > .refused", (nodes) =>
        nodes.map((n) => ({
          kind: n.classList.contains("card") ? "card" : "refused",
          title: n.querySelector(".card-title")?.innerText ?? "",
          tool: n.querySelector(".card-tool")?.innerText ?? "",
          args: Object.fromEntries([...n.querySelectorAll(".card-args dt")].map((dt) => [dt.innerText, dt.nextElementSibling?.innerText ?? ""])),
          text: n.innerText,
        })),
      );
      if (items.length !== group.length * 3) throw new Error(`${label}: ${items.length} cards and refusals for ${group.length * 3} calls`);
      group.forEach((v, j) => {
        const [search, type, navigate] = items.slice(3 * j, 3 * j + 3);
        landed("plan.card.search_query", v);
        landed("plan.card.title", v);
        literal("plan.card.title", v, search.kind === "card" && norm(search.title) === norm(`Search the web for ${rustDebug(clip(v.payload))}`), search.title);
        landed("plan.card.typed_text", v);
        landed("plan.navigate_url", v);
        // The card's argument list shows the query (at most 200 characters, elided visibly); its
        // title quotes the first 80.
        literal("plan.card.search_query", v, search.kind === "card" && search.tool === "search" && prefixOf(v.payload, search.args.query ?? ""));
        literal("plan.card.typed_text", v, type.kind === "card" && type.tool === "browser.type" && prefixOf(v.payload, type.args.text ?? ""));
        // Refused: the reason quotes the URL (80 characters) unless it parsed as a URL of another
        // scheme; asked: the card's argument list shows it.
        const shown = navigate.kind === "card" ? navigate.args.url ?? "" : navigate.text.replace(/^Blocked by Laika's policy: browser\.navigate — /, "").replace(/ is not an absolute URL\.$/, "");
        literal("plan.navigate_url", v, prefixOf(v.payload.trim(), shown) || (navigate.kind === "card" && prefixOf(v.payload, shown)));
      });
    });
  }
}

async function errorTurns() {
  // The host quotes at most 300 characters of the server's error; vectors are packed up to that.
  const groups = batches(vectors, 290, (v) => Array.from(`${mark(v, "er")} ${v.payload}`.trim()).length + 1);
  await loadSidecar(sidecar, planTabId);
  for (const [i, group] of groups.entries()) {
    const label = `xss error batch ${i + 1}`;
    runs.error_turns++;
    script.plan = { error: group.map((v) => `${mark(v, "er")} ${v.payload}`).join(" ") };
    await ask(sidecar, label);
    runs.plan_turns++;
    addAudit(await sidecar.evaluate(auditInPage, { ...SIDECAR_AUDIT, rootSelector: ".turn" }), label);
    const shown = await sidecar.$eval(".turn:last-of-type", (t) => t.querySelector(".error")?.innerText ?? "");
    const text = norm(shown);
    for (const v of group) {
      landed("plan.engine_error", v);
      const full = norm(`${mark(v, "er")} ${v.payload}`);
      literal("plan.engine_error", v, text.includes(full) || (group.length === 1 && prefixOf(full, text.replace(/^the engine reported an error: /, "").replace(/ \(ENGINE_SERVER_ERROR\)$/, ""))));
    }
    // Keep the log short: earlier turns are audited already.
    await sidecar.evaluate(() => document.querySelectorAll(".turn").forEach((t) => t.remove()));
    if (i % 20 === 19) await collect(sidecar, label);
  }
  await collect(sidecar, "xss error batches");
}

// ------------------------------------------------------------------------------------------
// Summarise: every chunk's stream and the overall statement carry vectors; the page holds them
// too, so the citations quote them.

async function summaryRun() {
  const vectorsTab = await openTab(`${origin}/vectors.html`);
  const tabId = await tabIdOf(sidecar, `${origin}/vectors.html`);
  await loadSidecar(sidecar, tabId);
  const mode = await waitContent(sidecar, tabId);
  const line = (v) => `- ${mark(v, "su").replace(".su", "")} ${v.payload}`;
  script.summaryParts = (part, parts) => {
    const from = Math.floor(((part - 1) * vectors.length) / parts);
    const to = Math.floor((part * vectors.length) / parts);
    return `${vectors.slice(from, to).map(line).join("\n")}\n`;
  };
  script.combine = () => vectors.map((v) => `${mark(v, "co")} ${v.payload}`).join(" ");
  script.calls = [];
  await sidecar.click("#summarise");
  await sidecar.waitForFunction(
    () => {
      const turn = document.querySelector(".turn");
      return turn && (turn.querySelector(".error") || [...turn.querySelectorAll(".progress")].some((p) => p.textContent.startsWith("Read ")));
    },
    null,
    { timeout: 300000 },
  );
  runs.summary_runs++;
  await settle(sidecar);
  addAudit(await sidecar.evaluate(auditInPage, { ...SIDECAR_AUDIT, rootSelector: ".turn" }), "summary");
  const coverage = await sidecar.$eval(".turn .progress", (p) => p.textContent);
  const error = await sidecar.$eval(".turn", (t) => t.querySelector(".error")?.textContent ?? "");
  if (error) throw new Error(`summary: ${error}`);
  const streamChecks = vectors.map((v) => norm(`${mark(v, "su").replace(".su", "")} ${v.payload}`));
  const combineChecks = vectors.map((v) => norm(`${mark(v, "co")} ${v.payload}`));
  const seen = await sidecar.evaluate(literalInPage, { rootSelector: ".turn .stream", expectations: [...streamChecks, ...combineChecks] });
  const combined = script.calls.includes("combine");
  vectors.forEach((v, j) => {
    landed("summary.stream", v);
    literal("summary.stream", v, seen[j]);
    if (combined) {
      landed("summary.combine", v);
      literal("summary.combine", v, seen[vectors.length + j]);
    }
  });
  const quotes = await sidecar.$$eval(".turn button.cite", (b) => b.map((x) => x.innerText));
  for (const v of vectors) {
    const head = `⟦${v.tag}⟧`;
    const mine = quotes.filter((q) => q.startsWith(head));
    if (!mine.length) continue;
    landed("summary.citation_quote", v);
    literal("summary.citation_quote", v, mine.some((q) => prefixOf(`${head} ${v.payload}`, q)));
  }
  await sidecar.screenshot({ path: path.join(out, "xss-summary.png") });
  await collect(sidecar, "summary");
  const pageState = await vectorsTab.evaluate(() => window.__laikaXss.executions);
  await vectorsTab.close();
  // A summary whose engine fails with a message carrying a vector: is the message shown, and how?
  await loadSidecar(sidecar, planTabId);
  const probe = vectors.find((v) => /<img/i.test(v.payload)) ?? vectors[0];
  script.summaryError = `${mark(probe, "se")} ${probe.payload}`.slice(0, 280);
  await sidecar.click("#summarise");
  await sidecar.waitForFunction(
    () => {
      const turn = document.querySelector(".turn");
      return turn && (turn.querySelector(".error") || [...turn.querySelectorAll(".progress")].some((p) => p.textContent.startsWith("Read ")));
    },
    null,
    { timeout: 60000 },
  );
  script.summaryError = null;
  await settle(sidecar);
  addAudit(await sidecar.evaluate(auditInPage, { ...SIDECAR_AUDIT, rootSelector: ".turn" }), "summary error");
  const errorProbe = await sidecar.$eval(".turn", (t) => ({ error_shown: !!t.querySelector(".error"), text: t.innerText.slice(0, 300) }));
  await collect(sidecar, "summary error");
  historySummary.expectations = vectors.map((v) => ({ field: "history:summary.markdown", v, expect: `${mark(v, "su").replace(".su", "")} ${v.payload}` }));
  return { coverage, mode, calls: script.calls.slice(), quotes: quotes.length, vectors_page_executions: pageState, engine_error_probe: errorProbe };
}

// ------------------------------------------------------------------------------------------
// History: the stored renders of every conversation, drawn again by the History panel.

const historyPlan = [];
const historySummary = { expectations: [] };

async function historyViews() {
  await loadSidecar(sidecar, planTabId);
  await sidecar.click("#history-toggle");
  await sidecar.waitForSelector("#history ul.conversations, #history .note, #history .error", { timeout: 30000 });
  const titles = await sidecar.$$eval("#history li > button.link", (b) => b.map((x) => x.textContent));
  const wanted = new Map([...historyPlan.map((h) => [h.label, h.expectations]), ["Summarise this page", historySummary.expectations], ["Summarize this page", historySummary.expectations]]);
  for (const [index, title] of titles.entries()) {
    const expectations = wanted.get(title);
    if (!expectations || !expectations.length) continue;
    await sidecar.evaluate((i) => {
      document.querySelectorAll("#history .detail").forEach((d) => d.replaceChildren());
      document.querySelectorAll("#history li > button.link")[i].click();
    }, index);
    await sidecar.waitForFunction((i) => document.querySelectorAll("#history li .detail")[i]?.childElementCount > 0, index, { timeout: 60000 });
    await settle(sidecar);
    runs.history_views++;
    addAudit(await sidecar.evaluate(auditInPage, { ...SIDECAR_AUDIT, rootSelector: "#history .detail" }), `history ${title}`);
    const checks = expectations.filter((e) => e.expect !== null);
    if (process.env.LAIKA_XSS_DEBUG) fs.writeFileSync(path.join(out, `xss-history-${index}.txt`), await sidecar.$eval("#history", (h) => h.innerText));
    const seen = await sidecar.evaluate(literalInPage, { rootSelector: "#history .detail .laika-render", expectations: checks.map((e) => norm(e.expect)) });
    for (const e of expectations) landed(e.field, e.v);
    checks.forEach((e, j) => literal(e.field, e.v, seen[j]));
  }
  await collect(sidecar, "history");
  return titles.length;
}

// ------------------------------------------------------------------------------------------
// The host's HTML: `summarize --format html` (Markdown → render document → HTML) and
// `render --format html` (a hostile render AST → HTML), each loaded in a Chromium page.

function runHost(args, input) {
  return new Promise((resolve, reject) => {
    const cliData = path.join(work, "cli-data");
    fs.mkdirSync(cliData, { recursive: true });
    const child = spawn(hostBin, args, { env: { ...process.env, LAIKA_DATA_DIR: cliData, LAIKA_LOG: "warn" }, stdio: ["pipe", "pipe", "pipe"] });
    const stdout = [];
    const stderr = [];
    child.stdout.on("data", (c) => stdout.push(c));
    child.stderr.on("data", (c) => stderr.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      const text = Buffer.concat(stdout).toString("utf8");
      if (code !== 0) reject(new Error(`laika-host ${args[0]} exited ${code}: ${Buffer.concat(stderr).toString("utf8").slice(-600)}`));
      else resolve(text);
    });
    child.stdin.end(input ?? "");
  });
}

const CLI_AUDIT = { rootSelector: "#out", tags: TO_HTML_TAGS, attributes: TO_HTML_ATTRIBUTES, sinks: null, outerTags: ["div"] };

async function loadHostHtml(name, html, expectations) {
  const pagePath = `/host/${name}.html`;
  if (process.env.LAIKA_XSS_DEBUG) fs.writeFileSync(path.join(out, `xss-host-${name}.html`), html);
  hostPages.set(pagePath, `<!doctype html><html><head><meta charset="utf-8"><title>${name}</title></head><body><div id="out" data-xss-root>\n${html}\n</div></body></html>`);
  const page = await openTab(`${origin}${pagePath}`);
  await page.waitForTimeout(300);
  runs.cli_pages++;
  addAudit(await page.evaluate(auditInPage, CLI_AUDIT), `host ${name}`);
  const seen = await page.evaluate(literalInPage, { rootSelector: "#out", expectations: expectations.map((e) => norm(e.expect)) });
  await collect(page, `host ${name}`);
  await page.close();
  return seen;
}

async function cliSummaries() {
  const pageFile = path.join(work, "cli-page.html");
  fs.writeFileSync(pageFile, CLI_PAGE);
  for (const source of Object.keys(corpusCounts)) {
    const group = vectors.filter((v) => v.source === source);
    const { markdown, expectations } = markdownFor(group);
    script.cli = `${markdown}\n`;
    const html = await runHost(["summarize", pageFile, "--url", `${origin}/cli.html`, "--format", "html", "--engine", "openai", "--base-url", origin, "--remote-model", "xss", "--no-history"]);
    script.cli = null;
    const checks = expectations.filter((e) => e.expect !== null);
    const seen = await loadHostHtml(`summarize-${source}`, html, checks);
    for (const e of expectations) landed(`cli-summarize.${e.field}`, e.v);
    checks.forEach((e, j) => literal(`cli-summarize.${e.field}`, e.v, seen[j]));
  }
}

function astFor(v) {
  const p = v.payload;
  const t = (text) => ({ type: "text", text });
  const m = (f) => mark(v, f);
  const doc = [
    { type: "heading", level: 2, children: [t(`${m("ah")} ${p}`)] },
    { type: "paragraph", children: [t(`${m("at")} ${p}`)] },
    { type: "paragraph", children: [t(`${m("al")} `), { type: "link", href: "https://laika.test/a", children: [t(p)] }] },
    { type: "paragraph", children: [t(`${m("ar")} `), { type: "link", href: p, children: [t(`link ${v.tag}a`)] }, t(" "), { type: "link", href: p, children: [] }] },
    { type: "paragraph", children: [t(`${m("au")} `), { type: "link", href: httpsWith(p), children: [t(`link ${v.tag}b`)] }] },
    { type: "paragraph", children: [t(m("ac"))] },
    { type: "code_block", language: p, text: p },
    { type: "list", ordered: v.k % 2 === 0, items: [{ type: "list_item", children: [{ type: "paragraph", children: [t(`${m("ai")} ${p}`)] }] }] },
    { type: "blockquote", children: [{ type: "paragraph", children: [t(`${m("aq")} ${p}`)] }] },
    { type: "table", rows: [{ type: "table_row", cells: [{ type: "table_cell", header: true, children: [t(m("ath"))] }, { type: "table_cell", header: true, children: [t(p)] }] }, { type: "table_row", cells: [{ type: "table_cell", header: false, children: [t(m("atd"))] }, { type: "table_cell", header: false, children: [t(p)] }] }] },
    // Shapes the schema does not allow: unknown node types, extra keys, HTML-ish fields, bare
    // strings where nodes belong, a link where a block belongs, a string as a table cell.
    { type: "html", html: p, text: p, children: [t(p)] },
    { type: "paragraph", html: p, style: p, onclick: p, children: [{ type: "raw", html: p }, { type: "text", text: `${m("ax")} ${p}`, html: p, href: p }] },
    `${m("as")} ${p}`,
    { type: "link", href: p, children: [t(`${m("ak")} ${p}`)] },
    { type: "table", rows: [{ type: "table_row", cells: [`${m("ac2")} ${p}`] }] },
    { type: "heading", level: p, children: [t(`${m("av")} ${p}`)] },
  ];
  const expectations = [
    ["ast.heading", `${m("ah")} ${p}`],
    ["ast.text", `${m("at")} ${p}`],
    ["ast.link_text", `${m("al")} ${p}`],
    ["ast.link_href", null],
    ["ast.link_href_https", null],
    ["ast.code_text", `${m("ac")} ${p}`],
    ["ast.code_language", null],
    ["ast.list_item", `${m("ai")} ${p}`],
    ["ast.blockquote", `${m("aq")} ${p}`],
    ["ast.table_header", `${m("ath")} ${p}`],
    ["ast.table_cell", `${m("atd")} ${p}`],
    ["ast.unknown_node_and_keys", `${m("ax")} ${p}`],
    ["ast.bare_string", `${m("as")} ${p}`],
    ["ast.link_as_block", `${m("ak")} ${p}`],
    ["ast.string_as_cell", `${m("ac2")} ${p}`],
    ["ast.heading_bad_level", `${m("av")} ${p}`],
  ].map(([f, expect]) => ({ field: f, v, expect }));
  return { doc, expectations };
}

async function cliRender() {
  for (const source of Object.keys(corpusCounts)) {
    const group = vectors.filter((v) => v.source === source);
    const built = group.map(astFor);
    const packet = {
      protocol: { name: "laika.llmcp", version: 1 },
      type: "response",
      assistant: { title: group.map((v) => v.payload).join(" "), render: { type: "doc", children: built.flatMap((b) => b.doc) } },
    };
    const file = path.join(work, `ast-${source}.json`);
    fs.writeFileSync(file, JSON.stringify(packet));
    const html = await runHost(["render", file, "--format", "html"]);
    const expectations = built.flatMap((b) => b.expectations);
    const checks = expectations.filter((e) => e.expect !== null);
    const seen = await loadHostHtml(`render-${source}`, html, checks);
    for (const e of expectations) landed(`cli-render.${e.field}`, e.v);
    checks.forEach((e, j) => literal(`cli-render.${e.field}`, e.v, seen[j]));
  }
}

// ------------------------------------------------------------------------------------------
// Run, report.

let self = null;
let summaryInfo = null;
let historyCount = 0;
let failure = null;
const stage = {};
const only = process.env.LAIKA_XSS_ONLY ? process.env.LAIKA_XSS_ONLY.split(",") : null;
const timed = async (name, fn) => {
  if (only && !only.includes(name) && name !== "self_check") return null;
  const t = Date.now();
  try {
    return await fn();
  } finally {
    stage[name] = Math.round((Date.now() - t) / 100) / 10;
  }
};
// Laika reads this suite's pages once allowed on their site (tests/e2e/site.mjs); the settings
// page it takes is the browser's own, not a page under test.
selfChecking = true;
await allowSite(context, EXTENSION_ID, "http://127.0.0.1/*");
selfChecking = false;
try {
  self = await timed("self_check", selfCheck);
  planTab = await openTab(`${origin}/plan.html`);
  sidecar = await context.newPage();
  await sidecar.goto(sidecarUrl);
  planTabId = await tabIdOf(sidecar, `${origin}/plan.html`);
  await loadSidecar(sidecar, planTabId);
  await waitContent(sidecar, planTabId);
  const baseline = await collect(sidecar, "baseline");
  if (baseline.csp.length || baseline.executions || baseline.flagged.length) throw new Error(`the sidecar is not clean before any vector: ${JSON.stringify(baseline)}`);
  await timed("plan_markdown", markdownTurns);
  await timed("plan_plain", plainTurns);
  await timed("plan_tools", toolTurns);
  await timed("plan_errors", errorTurns);
  summaryInfo = await timed("summary", summaryRun);
  historyCount = await timed("history", historyViews);
  await timed("cli_summarize", cliSummaries);
  await timed("cli_render", cliRender);
} catch (error) {
  failure = String(error?.stack ?? error).split("\n").slice(0, 4).join(" ");
} finally {
  await context.close().catch(() => {});
  server.close();
}

const perField = {};
let renders = 0;
let literalMissing = 0;
for (const [name, f] of [...fields.entries()].sort(([a], [b]) => a.localeCompare(b))) {
  perField[name] = {
    vectors: f.landed.size,
    literal_checked: f.literalChecked,
    literal_text_missing: f.missing.size,
    ...(f.notApplicable ? { not_applicable: f.notApplicable } : {}),
    ...(f.missing.size ? { missing_examples: [...f.missing].slice(0, 5).map((k) => `${vectors[k].source} ${vectors[k].ref}`) } : {}),
    ...(f.shown ? { shown_examples: f.shown } : {}),
    ...(f.landed.size + (f.notApplicable ?? 0) < vectors.length
      ? { not_reached_examples: vectors.filter((v) => !f.landed.has(v.k)).slice(0, 5).map((v) => `${v.source} ${v.ref}`) }
      : {}),
  };
  renders += f.landed.size;
  literalMissing += f.missing.size;
}
const incomplete = Object.entries(perField)
  .filter(([name, f]) => f.vectors + (f.not_applicable ?? 0) < vectors.length && name !== "summary.citation_quote")
  .map(([name]) => name);
const seconds = Math.round((Date.now() - started) / 100) / 10;
const report = {
  vectors: vectors.length,
  corpora: corpusCounts,
  fields: fields.size,
  renders,
  executions: totals.executions,
  csp_violations: totals.csp,
  disallowed_elements: totals.disallowed + totals.observerFlags,
  disallowed_attributes: totals.badAttributes,
  dangerous_urls: totals.dangerousUrls,
  on_attributes: totals.onAttributes,
  mutation_observer_flags: totals.observerFlags,
  literal_text_missing: literalMissing,
  dialogs: totals.dialogs,
  page_errors: totals.pageErrors,
  unexpected_requests: totals.unexpectedRequests,
  runs,
  rendered_in_audited_output: rendered,
  summary: summaryInfo,
  history_conversations: historyCount,
  fields_without_every_vector: incomplete,
  self_check: self,
  seconds,
  stage_seconds: stage,
  examples,
  error: failure,
  per_field: perField,
};
const targetsMet =
  !failure &&
  self?.detected === true &&
  report.executions === 0 &&
  report.disallowed_elements === 0 &&
  report.disallowed_attributes === 0 &&
  report.dangerous_urls === 0 &&
  incomplete.length === 0;
report.pass = targetsMet;

const pad = (s, n) => String(s).padEnd(n);
const padl = (s, n) => String(s).padStart(n);
log(`\nXSS through the renderer: ${vectors.length} vectors (${Object.entries(corpusCounts).map(([k, n]) => `${k} ${n}`).join(", ")}), ${fields.size} fields\n`);
log(`${pad("field", 44)}${padl("vectors", 8)}${padl("checked", 9)}${padl("literal missing", 17)}`);
for (const [name, f] of Object.entries(perField)) log(`${pad(name, 44)}${padl(f.vectors, 8)}${padl(f.literal_checked, 9)}${padl(f.literal_text_missing, 17)}`);
log("");
log(`self-check (one vector through innerHTML): ${self?.detected ? "detected" : "NOT DETECTED"} — ${JSON.stringify(self)}`);
log(`renders ${renders} · script executions ${report.executions} (dialogs ${report.dialogs}) · CSP violations ${report.csp_violations} · elements outside the allowlist ${report.disallowed_elements} (observer ${report.mutation_observer_flags}) · attributes outside the allowlist ${report.disallowed_attributes} · dangerous URLs/on* ${report.dangerous_urls} · literal text missing ${literalMissing} · unexpected requests ${report.unexpected_requests}`);
for (const [k, list] of Object.entries(examples)) if (list.length) log(`  ${k}: ${list.slice(0, 6).join(" | ")}`);
if (incomplete.length) log(`fields some vectors did not reach: ${incomplete.join(", ")}`);
if (failure) log(`error: ${failure}`);
if (failure || !targetsMet) {
  const hostLog = path.join(work, "host.log");
  if (fs.existsSync(hostLog)) log(`host log (tail):\n${fs.readFileSync(hostLog, "utf8").split("\n").slice(-15).join("\n")}`);
}
if (!process.env.LAIKA_XSS_KEEP) fs.rmSync(work, { recursive: true, force: true });
log(`time ${seconds} s (${Object.entries(stage).map(([k, s]) => `${k} ${s}`).join(", ")})`);
if (securityOut) {
  fs.mkdirSync(securityOut, { recursive: true });
  fs.writeFileSync(path.join(securityOut, "xss.json"), `${JSON.stringify(report, null, 2)}\n`);
}
const { per_field, examples: _examples, ...line } = report;
log(`xss: ${JSON.stringify(line)}`);
process.exit(targetsMet ? 0 : 1);
