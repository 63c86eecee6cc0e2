//! `cargo xtask bench agent [--tasks T,…] [--episodes N] [--engine E] [--baseline random|none]`:
//! whether approving Laika's proposals gets web tasks done (issue #56).
//!
//! MiniWoB++ tasks (small real pages with an instruction and a reward) from the `miniwob` wheel on
//! PyPI, served on 127.0.0.1; Laika installed into a scratch home as `cargo xtask install` installs
//! it; `tests/e2e/agent.mjs` types each episode's instruction into the real sidecar in Debian
//! Chromium and approves every card, and runs a random-clicking policy on the same seeded problems
//! (the floor). Reports success per task, steps, approvals, time and why each failure stopped, as
//! a table and as `target/bench/agent.json`.
//!
//! The default tasks are the dev split the issue names: the only tasks to tune on. Every other
//! task of the wheel is the project's blind check, and is run only when named with `--tasks` by
//! whoever runs that check.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The dev split (issue #56): tune only on these.
pub const DEV_TASKS: &[&str] = &[
    "button-delay",
    "buy-ticket",
    "choose-date",
    "choose-date-easy",
    "choose-date-medium",
    "choose-date-nodelay",
    "click-menu",
    "click-scroll-list",
    "click-widget",
    "daily-calendar",
    "enter-time",
    "find-greatest",
    "find-word",
    "generate-number",
    "guess-number",
    "hot-cold",
    "multi-layouts",
    "multi-orderings",
    "number-checkboxes",
    "odd-or-even",
    "order-food",
    "phone-book",
    "read-table",
    "read-table-2",
    "scroll-text",
    "scroll-text-2",
    "sign-agreement",
    "simple-algebra",
    "simple-arithmetic",
    "stock-market",
    "terminal",
    "text-editor",
    "text-transform",
    "unicode-test",
    "use-spinner",
];

/// The pinned MiniWoB++ release whose HTML tasks and `core/core.js` the bench serves.
const MINIWOB_PIN: &str = "miniwob==1.1.0";
const MINIWOB_WHEEL_PREFIX: &str = "miniwob-1.1.0-";

pub struct AgentOptions {
    pub tasks: Vec<String>,
    pub episodes: u32,
    pub engine: String,
    pub baseline: String,
    pub out: PathBuf,
    /// Where each episode's sidecar screenshot (and a failing one's page) goes, when set.
    pub shots: Option<PathBuf>,
}

pub fn agent(root: &Path, args: &[String]) -> Result<()> {
    let mut options = AgentOptions {
        tasks: DEV_TASKS.iter().map(|t| t.to_string()).collect(),
        episodes: 3,
        engine: "mistral".into(),
        baseline: "random".into(),
        out: super::build::target_dir(root).join("bench").join("agent.json"),
        shots: None,
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value = || rest.next().cloned().ok_or_else(|| anyhow::anyhow!("XTASK_BAD_ARGS: {arg} needs a value"));
        match arg.as_str() {
            "--tasks" => options.tasks = value()?.split(',').filter(|t| !t.is_empty()).map(str::to_string).collect(),
            "--episodes" => {
                let n = value()?;
                options.episodes = n.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    anyhow::anyhow!("XTASK_BAD_ARGS: --episodes must be a positive number, not {n:?}")
                })?;
            }
            "--engine" => options.engine = value()?,
            "--baseline" => options.baseline = value()?,
            "--out" => options.out = value()?.into(),
            "--shots" => options.shots = Some(value()?.into()),
            other => bail!(
                "XTASK_BAD_ARGS: bench agent takes --tasks T,…, --episodes N, --engine mistral|extractive|openai, \
                 --baseline random|none, --out FILE, --shots DIR; not {other:?}"
            ),
        }
    }
    if !matches!(options.baseline.as_str(), "random" | "none") {
        bail!("XTASK_BAD_ARGS: --baseline is random or none, not {:?}", options.baseline);
    }
    if options.tasks.is_empty() {
        bail!("XTASK_BAD_ARGS: --tasks names no task");
    }
    run(root, &options).map(|_| ())
}

/// The smoke run `cargo xtask test` makes (the benchmark itself is not part of the tests): two
/// dev tasks, one episode each, with the model when a wheel is given (else the extractive
/// engine), and both must be completed. Returns (passed, failed) checks.
pub fn smoke(root: &Path) -> Result<(u64, u64)> {
    let with_model = std::env::var_os("LAIKA_SMOLLM2_WHEEL").is_some_and(|w| Path::new(&w).is_file());
    let options = AgentOptions {
        tasks: SMOKE_TASKS.iter().map(|t| t.to_string()).collect(),
        episodes: 1,
        engine: if with_model { "mistral" } else { "extractive" }.into(),
        baseline: "none".into(),
        out: super::build::target_dir(root).join("bench").join("agent-smoke.json"),
        shots: Some(super::build::target_dir(root).join("e2e").join("agent-smoke")),
    };
    eprintln!("==> agent benchmark, smoke run ({})", SMOKE_TASKS.join(", "));
    let (done, not) = run(root, &options)?;
    if not > 0 {
        bail!("XTASK_AGENT_SMOKE: Laika completed {done} of {} smoke episodes; the table above says why", done + not);
    }
    Ok((done, not))
}

/// Two dev tasks of different kinds for the smoke run: a click on a kind of element, and a time
/// typed in its input's own form.
const SMOKE_TASKS: &[&str] = &["click-widget", "enter-time"];

/// Runs the bench; returns (episodes completed, episodes not).
pub fn run(root: &Path, options: &AgentOptions) -> Result<(u64, u64)> {
    if !Path::new(super::e2e::CHROMIUM).exists() {
        bail!("XTASK_NO_BROWSER: the agent benchmark needs Debian Chromium ({})", super::e2e::CHROMIUM);
    }
    let html = miniwob_html(root)?;
    let (guard, installed) = super::e2e::install_scratch(root, "agent", options.engine == "mistral")?;
    let scratch = &guard.0;
    std::fs::create_dir_all(options.out.parent().unwrap_or(Path::new(".")))?;
    let mut node = super::e2e::node();
    node.arg(root.join("tests/e2e/agent.mjs"))
        .env("LAIKA_DIST", &installed.chrome)
        .env("LAIKA_HOST_BIN", &installed.host)
        .env("LAIKA_E2E_PROFILE", scratch.join("profile"))
        .env("LAIKA_E2E_DATA", scratch.join("data"))
        .env("LAIKA_MINIWOB", &html)
        .env("LAIKA_AGENT_TASKS", options.tasks.join(","))
        .env("LAIKA_AGENT_EPISODES", options.episodes.to_string())
        .env("LAIKA_AGENT_ENGINE", &options.engine)
        .env("LAIKA_AGENT_BASELINE", &options.baseline)
        .env("LAIKA_AGENT_OUT", &options.out)
        .env("CHROMIUM", super::e2e::CHROMIUM);
    if let Some(shots) = &options.shots {
        node.env("LAIKA_AGENT_SHOTS", shots);
    }
    let counts = super::e2e::run_suite(&mut node, "agent: ")?;
    eprintln!("    wrote {}", options.out.display());
    Ok(counts)
}

/// The wheel's `miniwob/html` folder, unpacked under `target/miniwob/`: from the wheel named by
/// `LAIKA_MINIWOB_WHEEL`, else downloaded once from PyPI with pip.
fn miniwob_html(root: &Path) -> Result<PathBuf> {
    let dir = super::build::target_dir(root).join("miniwob");
    let html = dir.join("html");
    if html.join("core").join("core.js").is_file() {
        return Ok(html);
    }
    let wheel = match std::env::var_os("LAIKA_MINIWOB_WHEEL").map(PathBuf::from) {
        Some(wheel) => wheel,
        None => {
            let wheels = dir.join("wheel");
            std::fs::create_dir_all(&wheels)?;
            if find_wheel(&wheels).is_none() {
                super::run(
                    &format!("pip download {MINIWOB_PIN} (the MiniWoB++ tasks)"),
                    Command::new("python3")
                        .args(["-m", "pip", "download", "--no-deps", "--quiet", "-d"])
                        .arg(&wheels)
                        .arg(MINIWOB_PIN),
                )
                .map_err(|e| {
                    anyhow::anyhow!("XTASK_NO_MINIWOB: {e:#}; or name a downloaded wheel with LAIKA_MINIWOB_WHEEL")
                })?;
            }
            find_wheel(&wheels).context("XTASK_NO_MINIWOB: pip left no miniwob wheel")?
        }
    };
    let file =
        std::fs::File::open(&wheel).with_context(|| format!("XTASK_NO_MINIWOB: cannot open {}", wheel.display()))?;
    let mut archive = zip::ZipArchive::new(file).context("XTASK_NO_MINIWOB: the wheel is not a zip archive")?;
    let staging = dir.join("html.partial");
    let _ = std::fs::remove_dir_all(&staging);
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i)?;
        let Some(name) = entry.enclosed_name() else { continue };
        let Ok(inside) = name.strip_prefix("miniwob/html") else { continue };
        if entry.is_dir() {
            continue;
        }
        let target = staging.join(inside);
        std::fs::create_dir_all(target.parent().unwrap_or(&staging))?;
        let mut out = std::fs::File::create(&target)?;
        std::io::copy(&mut entry, &mut out)?;
    }
    if !staging.join("core").join("core.js").is_file() {
        bail!("XTASK_NO_MINIWOB: {} holds no miniwob/html/core/core.js", wheel.display());
    }
    let _ = std::fs::remove_dir_all(&html);
    std::fs::rename(&staging, &html)?;
    Ok(html)
}

fn find_wheel(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir).ok()?.filter_map(|e| e.ok().map(|e| e.path())).find(|p| {
        p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(MINIWOB_WHEEL_PREFIX))
            && p.extension().is_some_and(|e| e == "whl")
    })
}
