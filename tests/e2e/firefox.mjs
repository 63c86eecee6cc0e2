// Laika in Firefox ESR: the Firefox build (dist/firefox) installed as a temporary add-on into a
// fresh profile, the real laika-host registered for Firefox (`laika-host install --browser
// firefox`, under a scratch HOME), and one summary round trip through the real sidecar.
//
// playwright-core drives only its own patched Firefox, so Debian's firefox-esr is driven over
// WebDriver BiDi, which Firefox serves itself (`--remote-debugging-port`): `webExtension.install`
// loads the unpacked add-on, `browsingContext.*` opens pages, `script.evaluate` reads and clicks.
//
// Environment: LAIKA_FIREFOX_DIST (dist/firefox), LAIKA_HOST_BIN, LAIKA_FIXTURES, LAIKA_E2E_OUT,
// FIREFOX (/usr/bin/firefox-esr). Needs node's WebSocket (node ≥ 22, or 20 with
// --experimental-websocket). Prints one line per check and `firefox: N passed, M failed`.

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const ADDON_ID = "laika@laika.local";
// Fixed, so the sidecar's moz-extension:// URL is known before the add-on is installed.
const ADDON_UUID = "5a1c0e1e-7a1c-4b6e-9c1a-1a1ca0000001";
const dist = path.resolve(process.env.LAIKA_FIREFOX_DIST ?? "dist/firefox");
const hostBin = path.resolve(process.env.LAIKA_HOST_BIN ?? "target/debug/laika-host");
const fixtures = path.resolve(process.env.LAIKA_FIXTURES ?? "tests/fixtures/pages");
const out = path.resolve(process.env.LAIKA_E2E_OUT ?? "target/e2e");
const firefox = process.env.FIREFOX ?? "/usr/bin/firefox-esr";

let passes = 0;
let failures = 0;
function check(name, ok, detail = "") {
  if (ok) passes++;
  else failures++;
  console.log(`${ok ? "ok  " : "FAIL"} firefox: ${name}${detail ? ` — ${detail}` : ""}`);
}

if (typeof WebSocket === "undefined") {
  console.log("FAIL firefox: node has no WebSocket (run node ≥ 22, or node 20 with --experimental-websocket)");
  process.exit(1);
}

// ------------------------------------------------------------------------------------------
// A scratch home: the host registered for Firefox there, a data directory, a profile.

const work = fs.mkdtempSync(path.join(os.tmpdir(), "laika-firefox-"));
const home = path.join(work, "home");
const dataDir = path.join(work, "data");
const profile = path.join(work, "profile");
for (const dir of [home, dataDir, profile, out]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dataDir, "config.json"), JSON.stringify({ engine: "extractive" }));
const registered = spawnSync(hostBin, ["install", "--browser", "firefox", "--data-dir", dataDir, "--json"], {
  env: { ...process.env, HOME: home },
  encoding: "utf8",
});
const manifestPath = path.join(home, ".mozilla", "native-messaging-hosts", "com.laika.host.json");
check(
  "laika-host install --browser firefox registers the host",
  registered.status === 0 && fs.existsSync(manifestPath),
  registered.stderr.trim().slice(0, 200),
);
const prefs = {
  "extensions.webextensions.uuids": JSON.stringify({ [ADDON_ID]: ADDON_UUID }),
  "browser.shell.checkDefaultBrowser": false,
  "browser.startup.homepage_override.mstone": "ignore",
  "datareporting.policy.dataSubmissionEnabled": false,
  "toolkit.telemetry.reportingpolicy.firstRun": false,
  "app.update.enabled": false,
  "extensions.update.enabled": false,
  "browser.discovery.enabled": false,
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
  // Laika asks for no site up front (`activeTab`, web sites as optional permissions); the
  // sidecar's request for a site is answered "allow" without showing the prompt, as a user who
  // accepts it would (a headless Firefox's prompt cannot be clicked from here).
  "extensions.webextOptionalPermissionPrompts": false,
};
fs.writeFileSync(
  path.join(profile, "user.js"),
  Object.entries(prefs)
    .map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});`)
    .join("\n"),
);

const server = http.createServer((req, res) => {
  const name = path.basename(new URL(req.url, "http://localhost").pathname);
  if (name === "blank.html") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    return res.end("<!doctype html><title>blank</title>");
  }
  const file = path.join(fixtures, name);
  if (!name.endsWith(".html") || !fs.existsSync(file)) {
    res.writeHead(404);
    return res.end("not found");
  }
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(fs.readFileSync(file));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const firefoxProcess = spawn(
  firefox,
  ["--headless", "--no-remote", "--profile", profile, `--remote-debugging-port=${port}`, "about:blank"],
  { env: { ...process.env, HOME: home, MOZ_CRASHREPORTER_DISABLE: "1" }, stdio: ["ignore", "ignore", "pipe"] },
);
let browserLog = "";
firefoxProcess.stderr.on("data", (d) => (browserLog += d));

// ------------------------------------------------------------------------------------------
// A small WebDriver BiDi client.

async function connect() {
  for (let i = 0; i < 150; i++) {
    if (/WebDriver BiDi listening/.test(browserLog)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const socket = new WebSocket(`ws://127.0.0.1:${port}/session`);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`cannot reach Firefox's BiDi port ${port}: ${browserLog.slice(-400)}`));
  });
  const pending = new Map();
  let next = 1;
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.type === "error") reject(new Error(`${message.error}: ${message.message}`));
      else resolve(message.result);
    }
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close() };
}

let bidi;
try {
  bidi = await connect();
  await bidi.send("session.new", { capabilities: {} });
  const installed = await bidi.send("webExtension.install", { extensionData: { type: "path", path: dist } });
  check("the Firefox build installs as an add-on", installed?.extension === ADDON_ID, JSON.stringify(installed));

  /** Evaluates `fn(arg)` in a browsing context; returns its JSON-able result. */
  const evaluate = async (context, fn, arg) => {
    const result = await bidi.send("script.evaluate", {
      expression: `(async () => JSON.stringify(await (${fn})(${JSON.stringify(arg)})))()`,
      target: { context },
      awaitPromise: true,
    });
    if (result.type === "exception") throw new Error(result.exceptionDetails?.text ?? "script exception");
    return result.result?.value === undefined ? undefined : JSON.parse(result.result.value);
  };
  const waitFor = async (context, fn, arg, timeout = 120000) => {
    const started = Date.now();
    while (Date.now() - started < timeout) {
      const value = await evaluate(context, fn, arg).catch(() => null);
      if (value) return value;
      await new Promise((r) => setTimeout(r, 250));
    }
    return null;
  };

  const pageUrl = `${origin}/article.html`;
  const { context: page } = await bidi.send("browsingContext.create", { type: "tab" });
  await bidi.send("browsingContext.navigate", { context: page, url: pageUrl, wait: "complete" });
  // WebDriver BiDi will not navigate to an extension page itself; a page may, because
  // sidecar.html is web-accessible. So a blank page of ours opens it.
  const { context: sidecar } = await bidi.send("browsingContext.create", { type: "tab" });
  const sidecarUrl = `moz-extension://${ADDON_UUID}/sidecar.html`;
  const openSidecar = async (url) => {
    await bidi.send("browsingContext.navigate", { context: sidecar, url: `${origin}/blank.html`, wait: "complete" });
    await bidi.send("script.evaluate", { expression: `location.href = ${JSON.stringify(url)}`, target: { context: sidecar }, awaitPromise: false });
    const started = Date.now();
    while (Date.now() - started < 20000) {
      const tree = await bidi.send("browsingContext.getTree", { root: sidecar });
      if (tree.contexts[0]?.url.startsWith(url)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the sidecar did not open: ${JSON.stringify(await bidi.send("browsingContext.getTree", { root: sidecar }))}`);
  };
  await openSidecar(sidecarUrl);
  // tabs.query's url is a match pattern, and Firefox's match patterns take no port: filter here.
  const tabId = await waitFor(sidecar, async (url) => (await browser.tabs.query({})).find((t) => t.url === url)?.id ?? null, pageUrl, 20000);
  check("the sidecar (an extension page) sees the page's tab", Number.isInteger(tabId), String(tabId));
  const refused = await evaluate(sidecar, async (tabId) => browser.runtime.sendMessage({ to: "tab", tabId, op: "ping" }), tabId);
  check("the page is not reached before the user allows its site", refused?.error?.code === "EXT_NO_SITE_ACCESS", JSON.stringify(refused).slice(0, 200));

  await openSidecar(`${sidecarUrl}?tab=${tabId}`);
  const hostInfo = await waitFor(sidecar, async () => {
    const answer = await browser.runtime.sendMessage({ to: "host", method: "host.info" });
    return answer?.ok ? answer.result : null;
  }, null, 30000);
  check("the background reaches laika-host through native messaging", hostInfo?.name === "laika-host", JSON.stringify(hostInfo ?? null).slice(0, 160));

  await waitFor(sidecar, () => !!document.querySelector("#summarise"), null, 20000);
  // A real click (WebDriver input, not a script's click()): Firefox lets an add-on ask for a site
  // only while the user's click is being handled.
  const clickSummarise = async () => {
    const box = await evaluate(sidecar, () => {
      const r = document.querySelector("#summarise").getBoundingClientRect();
      return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2) };
    });
    await bidi.send("input.performActions", {
      context: sidecar,
      actions: [
        {
          type: "pointer",
          id: "mouse",
          parameters: { pointerType: "mouse" },
          actions: [{ type: "pointerMove", x: box.x, y: box.y }, { type: "pointerDown", button: 0 }, { type: "pointerUp", button: 0 }],
        },
      ],
    });
  };
  // The sidebar was opened without Laika's button (no activeTab): the first Summarise learns the
  // site is not allowed and says so; the next click asks the browser within the click.
  await clickSummarise();
  const refusal = await waitFor(sidecar, () => document.querySelector(".turn .error")?.textContent ?? null, null, 30000);
  check("a site not allowed yet: Summarise says how to allow it", /Click again and allow it when your browser asks/.test(refusal ?? ""), refusal);
  await waitFor(sidecar, () => !document.querySelector("#summarise").disabled || null, null, 30000);
  await clickSummarise();
  const coverage = await waitFor(
    sidecar,
    () => {
      const turn = [...document.querySelectorAll(".turn")].at(-1);
      if (turn?.querySelector(".error")) return `error: ${turn.querySelector(".error").textContent}`;
      return [...(turn?.querySelectorAll(".progress") ?? [])].map((p) => p.textContent).find((t) => t.startsWith("Read ")) ?? null;
    },
    null,
    180000,
  );
  check("Summarise reads the whole page", /^Read 100% of the page/.test(coverage ?? ""), coverage);
  const summary = await evaluate(sidecar, () => ({
    text: [...document.querySelectorAll(".turn")].at(-1)?.querySelector(".stream")?.textContent ?? "",
    quotes: [...document.querySelectorAll("button.cite")].map((b) => b.textContent),
  }));
  check("the summary streams into the sidecar", summary.text.length > 0, `${summary.text.length} characters`);
  const content = await waitFor(
    sidecar,
    async (tabId) => {
      try {
        const answer = await browser.runtime.sendMessage({ to: "tab", tabId, op: "ping" });
        return answer?.ok ? [answer.result.mode, answer.result.reason].filter(Boolean).join(": ") : null;
      } catch {
        return null;
      }
    },
    tabId,
    30000,
  );
  check("the content script runs its WASM in the page once allowed", content === "wasm", String(content));
  const pageText = (await evaluate(page, () => document.body.textContent)).replace(/\s+/g, " ");
  const missing = summary.quotes.filter((q) => !pageText.includes(q.replace(/\s+/g, " ").trim().replace(/…$/, "")));
  check("every citation quotes the page", summary.quotes.length > 0 && missing.length === 0, `${summary.quotes.length} quotes`);
  // Focusing a citation (as keyboard users do; hover does the same) highlights its element.
  await evaluate(sidecar, () => document.querySelector("button.cite[data-handle]")?.focus());
  const lit = await waitFor(page, () => !!document.querySelector("laika-highlight"), null, 10000);
  check("a focused citation highlights its element on the page", !!lit);
  const shot = await bidi.send("browsingContext.captureScreenshot", { context: sidecar });
  fs.writeFileSync(path.join(out, "firefox-summary.png"), Buffer.from(shot.data, "base64"));
} catch (error) {
  check("ran to the end", false, String(error?.stack ?? error).split("\n").slice(0, 3).join(" "));
} finally {
  try {
    await bidi?.send("session.end");
  } catch {}
  bidi?.close();
  firefoxProcess.kill("SIGTERM");
  server.close();
  fs.rmSync(work, { recursive: true, force: true });
  console.log(`firefox: ${passes} passed, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}
