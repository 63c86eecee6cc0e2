// The welcome page's one job beyond text: say whether the native host answers, and with which model.
const status = document.getElementById("host-status");
const ext = globalThis.browser ?? globalThis.chrome;
try {
  const answer = await ext.runtime.sendMessage({ to: "host", method: "model.status" });
  if (!answer?.ok) throw new Error(answer?.error?.message ?? "no answer");
  const s = answer.result.status;
  status.dataset.state = s.state;
  status.textContent =
    s.state === "ready"
      ? `Connected to laika-host · ${s.fallback ? "no model installed: extractive summaries" : s.model_id ?? s.engine}`
      : `Connected to laika-host · model ${s.state}`;
} catch (error) {
  status.dataset.state = "offline";
  status.textContent = `laika-host does not answer (${error.message ?? error}).`;
}
