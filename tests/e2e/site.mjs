// Site access for Laika in a test browser. The manifests ask for no site up front (`activeTab`,
// and web sites only as optional permissions), so a test that reads pages must be allowed on
// their site the way a user allows it. A headless Chromium's permission prompt cannot be answered
// from a test (playwright#32755, devtools-protocol#76); the browser's own extension settings can.

/** The user allowing Laika on a site in Chromium's extension settings (chrome://extensions,
 * "Site access"; the page calls developerPrivate as its "Add a site" dialog does). The browser
 * then grants Laika's own request for the site without a prompt. */
export async function allowInSettings(context, extensionId, pattern) {
  const settings = await context.newPage();
  await settings.goto("chrome://extensions");
  await settings.evaluate(([id, pattern]) => chrome.developerPrivate.addHostPermission(id, pattern), [extensionId, pattern]);
  await settings.close();
}

/** As above, and Laika's request for the site made at once, from one of its pages, as if in a
 * click (CDP's `userGesture`): for suites that read pages without testing how access is asked. */
export async function allowSite(context, extensionId, pattern) {
  await allowInSettings(context, extensionId, pattern);
  const page = await context.newPage();
  await page.goto(`chrome-extension://${extensionId}/welcome.html`);
  await requestSiteFrom(context, page, pattern);
  await page.close();
}

/** Laika's request for a site made from one of its open pages, as if in a click (CDP's
 * `userGesture`), after `allowInSettings`: the browser grants it without a prompt. */
export async function requestSiteFrom(context, page, pattern) {
  const cdp = await context.newCDPSession(page);
  const { result } = await cdp.send("Runtime.evaluate", {
    expression: `chrome.permissions.request({ origins: [${JSON.stringify(pattern)}] })`,
    awaitPromise: true,
    userGesture: true,
    returnByValue: true,
  });
  await cdp.detach();
  if (result?.value !== true) throw new Error(`site access for ${pattern} was not granted: ${JSON.stringify(result)}`);
}

/** Asks the host (through the extension, as the sidecar does) to use `engine`, and waits until it
 * is loaded (5 minutes at most); the host's model status, or `{ error }`. */
export async function useEngine(context, extensionId, engine) {
  const page = await context.newPage();
  await page.goto(`chrome-extension://${extensionId}/sidecar.html`);
  const status = await page.evaluate(async (engine) => {
    const set = await chrome.runtime.sendMessage({ to: "host", method: "config.set", params: { key: "engine", value: engine } });
    if (!set?.ok) return { error: set };
    for (let i = 0; i < 1200; i++) {
      const answer = await chrome.runtime.sendMessage({ to: "host", method: "model.status" });
      const state = answer?.result?.status;
      if (state && state.engine === engine && state.state !== "loading") return state;
      await new Promise((r) => setTimeout(r, 250));
    }
    return { error: "still loading after 5 minutes" };
  }, engine);
  await page.close();
  return status;
}
