// What Laika costs a browser it is installed in: Debian Chromium (headless) with N tabs of one
// corpus page, (a) without the extension, (b) with it loaded but never used (as installed on an
// earlier day: welcome page closed, service worker asleep), (c) the same with one extension page
// open that holds nothing of Laika's (the floor any extension UI costs), (d) with it used in one
// tab (the sidecar opened on it and the page observed, which is when its content script and WASM
// arrive). For each: the browser's memory (RSS and PSS summed over its process tree,
// from /proc) and the JS heap of the tabs (CDP Performance.getMetrics), after the pages have
// settled and every page (the tabs and Laika's own) has been garbage-collected. Laika's pages
// are driven from their own world only, so no Playwright script is counted as Laika's. Run by
// `cargo xtask bench weight`; prints a table and writes LAIKA_WEIGHT_OUT.
//
// Environment: LAIKA_DIST (dist/chrome), LAIKA_WEIGHT_PAGE (the HTML file), LAIKA_WEIGHT_TABS
// (10), LAIKA_WEIGHT_RUNS (3), LAIKA_WEIGHT_OUT (the JSON), LAIKA_WEIGHT_SIDECAR_WIDTH (360),
// CHROMIUM (/usr/bin/chromium).

import { chromium } from "playwright-core";
import { allowInSettings, requestSiteFrom } from "./site.mjs";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const EXTENSION_ID = "aalmaaaoibklhiemdgicgkpmclfehdkb";
// The extension as built, in a copy whose content script also keeps its WASM instance's memory
// where this script can read it (in the content script's own isolated world, which no page
// script sees): how much linear memory the used tab keeps is the part of its cost that is
// Laika's own heap, and the browser's PSS is too coarse to see it move by a megabyte.
const dist = fs.mkdtempSync(path.join(os.tmpdir(), "laika-weight-dist-"));
fs.cpSync(path.resolve(process.env.LAIKA_DIST ?? "dist/chrome"), dist, { recursive: true });
{
  const file = path.join(dist, "content.js");
  const content = fs.readFileSync(file, "utf8");
  const init = 'await wasm.default({ module_or_path: url("pkg/laika_extension_bg.wasm") });';
  if (!content.includes(init)) throw new Error(`content.js no longer instantiates its WASM with ${init}: update weight.mjs`);
  fs.writeFileSync(file, content.replace(init, `globalThis.__laikaWeightMemory = (${init.slice(0, -1)}).memory;`));
}
const pageFile = path.resolve(process.env.LAIKA_WEIGHT_PAGE ?? "../shared/corpora/readability/nytimes-1/source.html");
const tabs = Number(process.env.LAIKA_WEIGHT_TABS ?? 10);
const runs = Number(process.env.LAIKA_WEIGHT_RUNS ?? 3);
const outFile = process.env.LAIKA_WEIGHT_OUT;
const MB = 1024 * 1024;
// The size Laika's sidecar is shown at: Chrome opens it in its side panel, 360 px wide on this
// Chromium (156: the `innerWidth` of the panel Laika's toolbar button opens, through CDP's
// Extensions.triggerAction), here as tall as the tabs' viewport. Opened as a plain tab, the
// sidecar would be laid out and painted 1,280 px wide, a size no user sees it at
// (LAIKA_WEIGHT_SIDECAR_WIDTH=1280 measures that). The side panel itself is not used: in headless
// Chromium opening it brings the browser's own side-panel UI, which is not Laika's.
const SIDE_PANEL_WIDTH = 360;
const SIDECAR_VIEWPORT = { width: Number(process.env.LAIKA_WEIGHT_SIDECAR_WIDTH ?? SIDE_PANEL_WIDTH), height: 720 };

// The page, served from localhost (each tab its own path, so nothing is shared between them but
// what the browser shares).
const body = fs.readFileSync(pageFile);
const server = http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(body);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

/** PIDs of the process whose command line names `profile` (the browser) and its descendants. */
function processTree(profile) {
  const parents = new Map();
  let root = null;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmdline.includes(`--user-data-dir=${profile}`) && !cmdline.includes("--type=")) root = Number(entry);
    } catch {}
  }
  if (root === null) throw new Error("the browser process was not found");
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** RSS and PSS of the browser's processes, in MB (LAIKA_WEIGHT_PROCESSES=1 lists each). */
function memory(profile) {
  let rss = 0;
  let pss = 0;
  for (const pid of processTree(profile)) {
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const processRss = Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      const processPss = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      rss += processRss;
      pss += processPss;
      if (process.env.LAIKA_WEIGHT_PROCESSES === "1") {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split(/[\0 ]/);
        const type = cmdline.find((a) => a.startsWith("--type="))?.slice(7) ?? "browser";
        const extension = cmdline.some((a) => a.startsWith("--extension-process")) ? " (extension)" : "";
        console.error(`    ${pid} ${type}${extension}: PSS ${(processPss / 1024).toFixed(1)} MB`);
      }
    } catch {}
  }
  return { rss_mb: rss / 1024, pss_mb: pss / 1024 };
}

const settle = (ms) => new Promise((r) => setTimeout(r, ms));

/** The size of the content script's WASM memory in `page` (MB), read in its isolated world. */
async function contentWasmMemory(context, page) {
  const cdp = await context.newCDPSession(page);
  const contexts = [];
  cdp.on("Runtime.executionContextCreated", (event) => contexts.push(event.context.id));
  await cdp.send("Runtime.enable");
  let size = null;
  for (const contextId of contexts) {
    const { result } = await cdp
      .send("Runtime.evaluate", { expression: "globalThis.__laikaWeightMemory?.buffer.byteLength ?? null", contextId })
      .catch(() => ({ result: {} }));
    if (typeof result?.value === "number") size = result.value / MB;
  }
  await cdp.detach();
  if (size === null) throw new Error("the used tab's content script keeps no WASM memory");
  return size;
}

async function measure(config) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), `laika-weight-${config}-`));
  const args = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
  if (config === "none") args.push("--disable-extensions");
  else args.push(`--disable-extensions-except=${dist}`, `--load-extension=${dist}`);
  const launch = () =>
    chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      headless: true,
      args,
    });
  const context = await launch();
  try {
    // The page's own resources from elsewhere (images, ads, fonts) are not fetched: every run
    // measures the same document, offline.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      return url.startsWith(origin) || url.startsWith("chrome-extension:") ? route.continue() : route.abort();
    });
    if (config !== "none") {
      // As in a user's browser, where Laika was installed on some earlier day: an extension
      // loaded from the command line is installed afresh at every start, so its first-install
      // welcome page is closed and its service worker (woken by that install) stopped, as the
      // browser stops an idle one. What remains is what an unused installed Laika costs.
      await settle(2000);
      const blank = await context.newPage();
      for (const page of context.pages()) if (page.url().startsWith("chrome-extension://")) await page.close();
      const cdp = await context.newCDPSession(blank);
      await cdp.send("ServiceWorker.enable");
      await cdp.send("ServiceWorker.stopAllWorkers");
      await cdp.detach();
    }
    const pages = [];
    for (let i = 0; i < tabs; i++) {
      const page = i === 0 ? (context.pages()[0] ?? (await context.newPage())) : await context.newPage();
      await page.goto(`${origin}/tab-${i}.html`, { waitUntil: "load" });
      pages.push(page);
    }
    if (config === "floor") {
      // What the browser charges for any page of an extension, whatever it holds: one tab showing
      // a file of Laika's with no code or UI in it (its manifest), at the sidecar's size. Chromium
      // gives extension pages a renderer process of their own, so the sidecar (a side panel or a
      // tab) cannot cost less.
      const page = await context.newPage();
      await page.setViewportSize(SIDECAR_VIEWPORT);
      await page.goto(`chrome-extension://${EXTENSION_ID}/manifest.json`);
    }
    let contentWasmMb = null;
    if (config === "used") {
      // The user opens Laika on the first tab and it reads the page: the sidecar, bound to the
      // tab, observes it with its own router (the content script and its WASM arrive now), as
      // its Summarise does. Laika asks for no site up front: the user has allowed this one in the
      // browser's settings and the sidecar asks for it in a click (tests/e2e/site.mjs), so no
      // other Laika page is opened and the service worker stays asleep, as in a user's session.
      await allowInSettings(context, EXTENSION_ID, "http://127.0.0.1/*");
      const sidecar = await context.newPage();
      await sidecar.setViewportSize(SIDECAR_VIEWPORT);
      const sidecarUrl = `chrome-extension://${EXTENSION_ID}/sidecar.html`;
      await sidecar.goto(sidecarUrl);
      const tabId = await sidecar.evaluate(async (url) => (await chrome.tabs.query({ url }))[0]?.id, `${origin}/tab-0.html`);
      await sidecar.goto(`${sidecarUrl}?tab=${tabId}`);
      // Waited for from the page's own world: Playwright's selector engine (`waitForSelector`)
      // would put some 0.7 MB of its own script into the sidecar and count it as Laika's.
      while (!(await sidecar.evaluate(() => !!document.querySelector("#summarise")))) await settle(100);
      await requestSiteFrom(context, sidecar, "http://127.0.0.1/*");
      const observed = await sidecar.evaluate(async (tabId) => {
        // The sidecar's own instance (already instantiated: the import is the page's module).
        const laika = await import(chrome.runtime.getURL("pkg/laika_extension.js"));
        await laika.default();
        const self = { id: chrome.runtime.id, url: location.href };
        return laika.backgroundHandle({ to: "tab", tabId, op: "observe", args: {} }, self);
      }, tabId);
      if (!observed?.ok) throw new Error(`observe failed: ${JSON.stringify(observed)}`);
      contentWasmMb = await contentWasmMemory(context, pages[0]);
    }
    // Let load-time work (content scripts, WASM instantiation, GC) finish.
    await settle(Number(process.env.LAIKA_WEIGHT_SETTLE_MS ?? 4000));
    let heap = 0;
    // Every page is measured after a garbage collection, Laika's own (the sidecar) as the tabs:
    // what a page retains, not the garbage a collector has not reached yet. The JS heap is the
    // tabs'.
    for (const page of context.pages()) {
      const session = await context.newCDPSession(page);
      await session.send("HeapProfiler.collectGarbage").catch(() => {});
      if (pages.includes(page)) {
        await session.send("Performance.enable");
        const { metrics } = await session.send("Performance.getMetrics");
        heap += metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? 0;
      }
      await session.detach();
    }
    await settle(1000);
    const { rss_mb, pss_mb } = memory(profile);
    // Whether the last tab (never used) holds Laika's content script, asked (after the
    // measurement) from an extension page, which can message a tab but never injects.
    let lastTabHasLaika = false;
    if (config !== "none") {
      const probe = await context.newPage();
      await probe.goto(`chrome-extension://${EXTENSION_ID}/welcome.html`);
      lastTabHasLaika = await probe.evaluate(async (url) => {
        const [tab] = await chrome.tabs.query({ url });
        try {
          return !!(await chrome.tabs.sendMessage(tab.id, { to: "content", op: "ping" }));
        } catch {
          return false;
        }
      }, `${origin}/tab-${tabs - 1}.html`);
    }
    return { config, rss_mb, pss_mb, js_heap_mb: heap / MB, content_wasm_mb: contentWasmMb, last_tab_has_laika: lastTabHasLaika };
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

const CONFIGS = ["none", "loaded", "floor", "used"];
const results = [];
for (let run = 0; run < runs; run++) {
  for (const config of CONFIGS) {
    const result = { run, ...(await measure(config)) };
    results.push(result);
    console.error(
      `  run ${run + 1} ${config.padEnd(7)} RSS ${result.rss_mb.toFixed(0)} MB  PSS ${result.pss_mb.toFixed(0)} MB  JS heap ${result.js_heap_mb.toFixed(1)} MB`,
    );
  }
}
server.close();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const summary = {};
for (const config of CONFIGS) {
  const of = results.filter((r) => r.config === config);
  summary[config] = {
    rss_mb: median(of.map((r) => r.rss_mb)),
    pss_mb: median(of.map((r) => r.pss_mb)),
    js_heap_mb: median(of.map((r) => r.js_heap_mb)),
  };
}
const perTab = (summary.loaded.pss_mb - summary.none.pss_mb) / tabs;
const used = summary.used.pss_mb - summary.loaded.pss_mb;
const floor = summary.floor.pss_mb - summary.loaded.pss_mb;
const targets = {
  loaded_unused_per_tab_mb: { value: perTab, target: "≤ 2", met: perTab <= 2 },
  used_in_one_tab_mb: { value: used, target: "≤ 30", met: used <= 30 },
};
// Not a target: the part of "used" no extension can avoid (an extension page's process), and the
// part that is Laika's own (its code, instances and UI on top of that).
const contentWasm = median(results.filter((r) => r.config === "used").map((r) => r.content_wasm_mb));
const reference = { extension_page_floor_mb: floor, used_above_floor_mb: used - floor, used_tab_content_wasm_memory_mb: contentWasm };
const unusedTabsClean = results.filter((r) => r.config !== "none").every((r) => !r.last_tab_has_laika);
const report = { page: pageFile, tabs, runs, sidecar_viewport: SIDECAR_VIEWPORT, results, summary, targets, reference, unused_tabs_carry_no_laika_code: unusedTabsClean };
if (outFile) fs.writeFileSync(outFile, JSON.stringify(report, null, 2));

console.log(`| ${tabs} tabs of ${path.basename(path.dirname(pageFile))}/${path.basename(pageFile)} | RSS MB | PSS MB | JS heap MB |`);
console.log("|---|---|---|---|");
for (const [config, s] of Object.entries(summary)) {
  const label = {
    none: "no extension",
    loaded: "Laika loaded, unused",
    floor: "Laika loaded, an empty extension page open",
    used: "Laika used in one tab",
  }[config];
  console.log(`| ${label} | ${s.rss_mb.toFixed(0)} | ${s.pss_mb.toFixed(0)} | ${s.js_heap_mb.toFixed(1)} |`);
}
console.log("");
console.log(`loaded but unused, per tab (PSS): ${perTab.toFixed(2)} MB (target ≤ 2): ${targets.loaded_unused_per_tab_mb.met ? "met" : "NOT met"}`);
console.log(`used in one tab (PSS): ${used.toFixed(1)} MB (target ≤ 30): ${targets.used_in_one_tab_mb.met ? "met" : "NOT met"}`);
console.log(`  the sidecar drawn at ${SIDECAR_VIEWPORT.width}×${SIDECAR_VIEWPORT.height} px (Chrome's side panel: ${SIDE_PANEL_WIDTH} px wide)`);
console.log(`  of which any extension page costs (PSS): ${floor.toFixed(1)} MB; Laika's own: ${(used - floor).toFixed(1)} MB`);
console.log(`  the used tab's content-script WASM memory after observing the page: ${contentWasm.toFixed(2)} MB`);
console.log(`a tab Laika was never asked about carries Laika code: ${unusedTabsClean ? "no" : "YES"}`);
fs.rmSync(dist, { recursive: true, force: true });
