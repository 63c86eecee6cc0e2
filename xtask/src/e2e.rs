//! `cargo xtask e2e`: Laika in a real browser, the way a user meets it.
//!
//! Builds the extension (`dist/chrome`, optimised, as shipped) and `laika-host`, installs the
//! pinned `playwright-core` from npm into `tests/e2e/node_modules` (it drives Debian's Chromium;
//! it never downloads a browser), and runs `tests/e2e/extension.mjs`: a fresh Chromium profile
//! with the host registered in it, fixture pages served from localhost (one set under
//! `script-src 'self'`), and the real sidecar UI driven through summaries, citations, approval
//! cards, form typing, a 150,000-character page and a host killed mid-session.

use anyhow::{Context, Result, bail};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

pub const CHROMIUM: &str = "/usr/bin/chromium";

/// Whether this machine can run the suite (Chromium and the wasm-bindgen CLI).
pub fn available() -> bool {
    Path::new(CHROMIUM).exists()
        && Command::new("wasm-bindgen").arg("--version").output().is_ok_and(|o| o.status.success())
        && Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Runs the suite; returns (passed, failed) checks.
pub fn e2e(root: &Path) -> Result<(u64, u64)> {
    let built = super::build::build(root, true)?;
    super::run("laika-host", super::cargo().args(["build", "-p", "laika-host"]))?;
    let host = super::build::target_dir(root).join("debug").join("laika-host");
    let suite = root.join("tests/e2e");
    if !suite.join("node_modules/playwright-core").exists() {
        super::run(
            "npm ci (playwright-core)",
            Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&suite),
        )?;
    }
    eprintln!("==> end-to-end in Chromium");
    let out = super::build::target_dir(root).join("e2e");
    let mut child = Command::new("node")
        .arg(suite.join("extension.mjs"))
        .env("LAIKA_DIST", &built.chrome)
        .env("LAIKA_HOST_BIN", &host)
        .env("LAIKA_FIXTURES", root.join("tests/fixtures/pages"))
        .env("LAIKA_E2E_OUT", &out)
        .env("CHROMIUM", CHROMIUM)
        .stdout(Stdio::piped())
        .spawn()
        .context("cannot start node")?;
    let (mut passed, mut failed) = (0, 0);
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line?;
            println!("{line}");
            if let Some(rest) = line.strip_prefix("e2e: ") {
                passed = super::number_before(rest, " passed");
                failed = super::number_before(rest, " failed");
            }
        }
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("end-to-end suite failed ({status}); screenshots in {}", out.display());
    }
    eprintln!("    end-to-end: {passed} checks passed; screenshots in {}", out.display());
    Ok((passed, failed))
}
