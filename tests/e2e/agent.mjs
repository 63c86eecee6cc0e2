// `cargo xtask bench agent`: Laika's proposals on MiniWoB++ web tasks, approved by a simulated user,
// in the real extension in Debian Chromium with the real host; and a random-clicking policy on the
// same problems in the same run (the floor).
//
// Each task page is served from the `miniwob` wheel's html/ folder on 127.0.0.1. An episode is
// seeded (`Math.seedrandom`), its time limit raised, and started as MiniWoB's own Python client
// starts one (`core.startEpisodeReal()`); the utterance in `#query` is the goal typed into the
// sidecar; every approval card is approved; the episode's reward is `WOB_REWARD_GLOBAL` once
// `WOB_DONE_GLOBAL` is set. An episode whose run stops (Laika says it is done, needs something or
// proposes nothing) without the task's reward counts as a failure, with the reason it stopped.
//
// Environment: LAIKA_DIST (dist/chrome), LAIKA_HOST_BIN, LAIKA_E2E_PROFILE and LAIKA_E2E_DATA (an
// install's profile and data directory), LAIKA_MINIWOB (the wheel's miniwob/html folder),
// LAIKA_AGENT_TASKS (comma-separated), LAIKA_AGENT_EPISODES, LAIKA_AGENT_ENGINE (mistral |
// extractive | openai: the host's engine), LAIKA_AGENT_BASELINE (random | none), LAIKA_AGENT_OUT
// (the JSON report), LAIKA_AGENT_EPISODE_SECONDS (a run's bound), CHROMIUM.
// Prints a table and, last, `agent: N passed, M failed` (episodes Laika completed / did not).

import { chromium } from "playwright-core";
import { allowSite, useEngine } from "./site.mjs";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

const EXTENSION_ID = "aalmaaaoibklhiemdgicgkpmclfehdkb";
const dist = path.resolve(process.env.LAIKA_DIST ?? "dist/chrome");
const userDataDir = path.resolve(process.env.LAIKA_E2E_PROFILE);
const miniwob = path.resolve(process.env.LAIKA_MINIWOB);
const tasks = (process.env.LAIKA_AGENT_TASKS ?? "click-widget").split(",").filter(Boolean);
const episodes = Number(process.env.LAIKA_AGENT_EPISODES ?? 3);
const engine = process.env.LAIKA_AGENT_ENGINE ?? "mistral";
const baseline = process.env.LAIKA_AGENT_BASELINE ?? "random";
const outFile = process.env.LAIKA_AGENT_OUT;
const episodeSeconds = Number(process.env.LAIKA_AGENT_EPISODE_SECONDS ?? 90);
/** Clicks the random policy makes at most in an episode. */
const RANDOM_CLICKS = 10;
/** How long the sidecar must sit idle (no progress line, no card waiting) before a run counts as stopped. */
const IDLE_MS = 1500;

// ------------------------------------------------------------------------------------------
// The tasks, served as MiniWoB's own client serves them (a static folder).

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".png": "image/png", ".gif": "image/gif", ".svg": "image/svg+xml", ".json": "application/json" };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  const file = path.normalize(path.join(miniwob, decodeURIComponent(url.pathname)));
  if (!file.startsWith(miniwob) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404);
    return res.end("not found");
  }
  res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
  res.end(fs.readFileSync(file));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
for (const task of tasks) {
  if (!fs.existsSync(path.join(miniwob, "miniwob", `${task}.html`))) {
    console.error(`AGENT_NO_TASK: ${task} is not a MiniWoB++ task of the wheel (${miniwob}/miniwob/${task}.html)`);
    process.exit(2);
  }
}

// ------------------------------------------------------------------------------------------
// The browser, with Laika allowed on the tasks' site as a user allows it.

const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1024, height: 768 },
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
const sidecarUrl = `chrome-extension://${EXTENSION_ID}/sidecar.html`;
await allowSite(context, EXTENSION_ID, "http://127.0.0.1/*");

async function setEngine(name) {
  const status = await useEngine(context, EXTENSION_ID, name);
  if (status.state !== "ready" || status.fallback) throw new Error(`AGENT_ENGINE_NOT_READY: ${name}: ${JSON.stringify(status)}`);
  return status;
}

// ------------------------------------------------------------------------------------------
// Episodes.

/** Starts a seeded episode in the task page, as MiniWoB's Python client does; returns the goal. */
async function startEpisode(page, seed) {
  await page.evaluate((seed) => {
    if (typeof core.EP_TIMER !== "undefined" && core.EP_TIMER !== null) core.endEpisode(0);
    core.EPISODE_MAX_TIME = 600000;
    Math.seedrandom(`laika-${seed}`);
    core.startEpisodeReal();
  }, seed);
  await page.waitForFunction(() => WOB_TASK_READY === true, null, { timeout: 5000 });
  return page.evaluate(() => core.getUtterance());
}

async function outcome(page) {
  return page.evaluate(() => ({ done: WOB_DONE_GLOBAL, reward: WOB_REWARD_GLOBAL, raw: WOB_RAW_REWARD_GLOBAL, reason: WOB_REWARD_REASON }));
}

/** A deterministic generator for the random policy (mulberry32). */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The floor: clicks on random visible elements of the task area, until the episode ends. */
async function randomEpisode(page, seed) {
  const started = Date.now();
  await startEpisode(page, seed);
  const next = rng(seed * 7919 + 13);
  let clicks = 0;
  for (; clicks < RANDOM_CLICKS; clicks++) {
    if ((await outcome(page)).done) break;
    const boxes = await page.evaluate(() =>
      [...document.querySelectorAll("#area *")]
        .map((e) => e.getBoundingClientRect())
        .filter((r) => r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0)
        .map((r) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 })),
    );
    if (!boxes.length) break;
    const box = boxes[Math.floor(next() * boxes.length)];
    await page.mouse.click(box.x, box.y);
    await page.waitForTimeout(50);
  }
  const end = await outcome(page);
  return { success: end.done && end.reward > 0, reward: end.done ? end.reward : 0, steps: clicks, seconds: (Date.now() - started) / 1000 };
}

/** What the sidecar shows for the run now: cards waiting, whether it is busy, the last words. */
async function sidecarState(sidecar) {
  return sidecar.evaluate(() => {
    const turn = [...document.querySelectorAll(".turn")].pop();
    if (!turn) return { started: false };
    const waiting = [...turn.querySelectorAll(".card:not([data-decided]) button.primary:not([disabled])")].length;
    const busy = !!turn.querySelector(".progress") || !!document.querySelector("#ask[disabled]");
    const steps = turn.querySelectorAll(".step").length;
    const error = turn.querySelector(".error")?.textContent ?? "";
    const texts = [...turn.querySelectorAll(".step > p:not(.progress), .step > div > p, .done, .refused, .card-outcome")].map((p) => p.textContent.trim()).filter(Boolean);
    return { started: true, waiting, busy, steps, error, last: texts.pop() ?? "", said: texts };
  });
}

/** Laika on one episode: the goal typed into the sidecar, every card approved. */
async function laikaEpisode(page, sidecar, tabId, seed) {
  const goal = await startEpisode(page, seed);
  await sidecar.goto(`${sidecarUrl}?tab=${tabId}`);
  await sidecar.waitForSelector("#input");
  const started = Date.now();
  await sidecar.fill("#input", goal);
  await sidecar.press("#input", "Enter");
  let approvals = 0;
  let idleSince = null;
  let state = { started: false };
  let why = "time limit";
  while (Date.now() - started < episodeSeconds * 1000) {
    const end = await outcome(page);
    if (end.done) {
      why = end.reward > 0 ? "" : `wrong: the task ended with reward ${end.reward}${end.reason ? ` (${end.reason})` : ""}`;
      break;
    }
    state = await sidecarState(sidecar);
    if (state.waiting > 0) {
      // The simulated user approves the first card waiting.
      await sidecar.evaluate(() => {
        const turn = [...document.querySelectorAll(".turn")].pop();
        turn.querySelector(".card:not([data-decided]) button.primary:not([disabled])").click();
      });
      approvals++;
      idleSince = null;
    } else if (state.started && !state.busy) {
      idleSince ??= Date.now();
      if (Date.now() - idleSince > IDLE_MS) {
        why = state.error ? `error: ${state.error}` : `stopped: ${state.last}`;
        break;
      }
    } else {
      idleSince = null;
    }
    await page.waitForTimeout(100);
  }
  // A last look: the task may have ended with the final step.
  await page.waitForTimeout(200);
  const end = await outcome(page);
  const success = end.done && end.reward > 0;
  if (success) why = "";
  else if (end.done && !why.startsWith("wrong")) why = `wrong: the task ended with reward ${end.reward}`;
  const final = await sidecarState(sidecar);
  return {
    goal,
    success,
    reward: end.done ? end.reward : 0,
    steps: final.steps ?? 0,
    approvals,
    seconds: (Date.now() - started) / 1000,
    why,
    said: final.said ?? [],
  };
}

const status = await setEngine(engine);
console.log(`engine: ${status.engine}${status.model ? ` (${status.model})` : ""}`);
const results = [];
for (const task of tasks) {
  const page = await context.newPage();
  await page.goto(`${origin}/miniwob/${task}.html`, { waitUntil: "load" });
  const sidecar = await context.newPage();
  await sidecar.setViewportSize({ width: 360, height: 720 });
  await sidecar.goto(sidecarUrl);
  const tabId = await sidecar.evaluate(async (url) => (await chrome.tabs.query({ url }))[0]?.id, page.url());
  for (let episode = 1; episode <= episodes; episode++) {
    const seed = episode;
    const floor = baseline === "random" ? await randomEpisode(page, seed) : null;
    let laika;
    try {
      laika = await laikaEpisode(page, sidecar, tabId, seed);
    } catch (error) {
      laika = { goal: "", success: false, reward: 0, steps: 0, approvals: 0, seconds: 0, why: `harness: ${String(error.message).split("\n")[0]}`, said: [] };
    }
    results.push({ task, seed, laika, random: floor });
    const mark = laika.success ? "ok  " : "FAIL";
    console.log(
      `${mark} ${task} #${seed}: ${JSON.stringify(laika.goal)} → reward ${laika.reward.toFixed(2)}, ${laika.steps} steps, ${laika.approvals} approvals, ${laika.seconds.toFixed(1)} s${laika.why ? ` — ${laika.why}` : ""}${floor ? ` | random ${floor.success ? "ok" : "no"}` : ""}`,
    );
    // With --shots: how each episode looked in the side panel (360 px), and the page when it failed.
    if (process.env.LAIKA_AGENT_SHOTS) {
      fs.mkdirSync(process.env.LAIKA_AGENT_SHOTS, { recursive: true });
      await sidecar.screenshot({ path: path.join(process.env.LAIKA_AGENT_SHOTS, `${task}-${seed}-sidecar.png`), fullPage: true });
      if (!laika.success) await page.screenshot({ path: path.join(process.env.LAIKA_AGENT_SHOTS, `${task}-${seed}-page.png`) });
    }
  }
  await sidecar.close();
  await page.close();
}
await context.close();
server.close();

// ------------------------------------------------------------------------------------------
// The report.

const median = (xs) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const byTask = tasks.map((task) => {
  const runs = results.filter((r) => r.task === task);
  const ok = runs.filter((r) => r.laika.success);
  return {
    task,
    episodes: runs.length,
    laika_success: ok.length / runs.length,
    random_success: baseline === "random" ? runs.filter((r) => r.random.success).length / runs.length : null,
    median_steps: median(runs.map((r) => r.laika.steps)),
    median_approvals_success: median(ok.map((r) => r.laika.approvals)),
    median_seconds: median(runs.map((r) => r.laika.seconds)),
    failures: runs.filter((r) => !r.laika.success).map((r) => r.laika.why),
  };
});
const all = results.length;
const laikaOk = results.filter((r) => r.laika.success).length;
const summary = {
  engine: status.engine,
  model: status.model ?? null,
  tasks: tasks.length,
  episodes_per_task: episodes,
  episodes: all,
  laika_success: laikaOk / all,
  random_success: baseline === "random" ? results.filter((r) => r.random.success).length / all : null,
  median_approvals_per_successful_task: median(byTask.filter((t) => t.median_approvals_success !== null).map((t) => t.median_approvals_success)),
  median_seconds_per_task: median(byTask.map((t) => t.median_seconds)),
};
console.log("");
console.log("| task | Laika | random | steps | approvals (success) | time (s) | why it failed |");
console.log("|---|---|---|---|---|---|---|");
const pct = (x) => (x === null ? "—" : `${Math.round(x * 100)} %`);
for (const t of byTask) {
  const whys = [...new Set(t.failures)].map((w) => w.slice(0, 90)).join("; ");
  console.log(`| ${t.task} | ${pct(t.laika_success)} | ${pct(t.random_success)} | ${t.median_steps} | ${t.median_approvals_success ?? "—"} | ${t.median_seconds?.toFixed(1)} | ${whys} |`);
}
console.log(`| **all ${all} episodes** | **${pct(summary.laika_success)}** | ${pct(summary.random_success)} | | ${summary.median_approvals_per_successful_task ?? "—"} | ${summary.median_seconds_per_task?.toFixed(1)} | |`);
if (outFile) {
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify({ summary, tasks: byTask, episodes: results }, null, 2));
  console.log(`wrote ${outFile}`);
}
console.log(`agent: ${laikaOk} passed, ${all - laikaOk} failed`);
