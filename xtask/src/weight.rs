//! `cargo xtask bench weight [--tabs N] [--runs R] [--page FILE]`: what Laika costs a browser it is
//! installed in. Builds the extension as shipped (`dist/chrome`), then `tests/e2e/weight.mjs`
//! opens N tabs (default 10) of a corpus page in Debian Chromium without the extension, with it
//! loaded but unused, with it loaded and one empty extension page open (the floor: Chromium gives
//! any extension page a renderer process, whatever it holds), and with it used in one tab (the
//! sidecar drawn at the size of Chrome's side panel, 360 px wide), and
//! reports the browser's RSS and PSS (its whole process tree), the tabs' JS heap and the used
//! tab's content-script WASM memory, R runs each (default 3; medians). Targets (issue #25):
//! loaded but unused within 2 MB a tab of no extension; used in one tab ≤ 30 MB (reported beside
//! the floor, which it includes); no Laika code in a tab it was never asked about. Writes `target/bench/weight.json`.

use anyhow::{Result, bail};
use std::path::Path;

/// The default page: a long real article of the Readability corpus.
const DEFAULT_PAGE: &str = "readability/nytimes-1/source.html";

pub fn weight(root: &Path, args: &[String]) -> Result<()> {
    let mut tabs = "10".to_string();
    let mut runs = "3".to_string();
    let mut page = root.join("..").join("shared").join("corpora").join(DEFAULT_PAGE);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value = || rest.next().cloned().ok_or_else(|| anyhow::anyhow!("XTASK_BAD_ARGS: {arg} needs a value"));
        match arg.as_str() {
            "--tabs" => tabs = value()?,
            "--runs" => runs = value()?,
            "--page" => page = value()?.into(),
            other => bail!("XTASK_BAD_ARGS: bench weight takes --tabs N, --runs R, --page FILE, not {other:?}"),
        }
    }
    for (name, n) in [("--tabs", &tabs), ("--runs", &runs)] {
        if n.parse::<u32>().map_or(true, |n| n == 0) {
            bail!("XTASK_BAD_ARGS: {name} must be a positive number, not {n:?}");
        }
    }
    if !page.is_file() {
        bail!("XTASK_NO_PAGE: {} does not exist (--page FILE names another)", page.display());
    }
    if !Path::new(super::e2e::CHROMIUM).exists() {
        bail!("XTASK_NO_BROWSER: the weight benchmark needs Debian Chromium ({})", super::e2e::CHROMIUM);
    }
    let built = super::build::build(root, true)?;
    super::e2e::npm_ci(root)?;
    let bench = super::build::target_dir(root).join("bench");
    std::fs::create_dir_all(&bench)?;
    let out = bench.join("weight.json");
    super::run(
        &format!("weight: {tabs} tabs, {runs} runs"),
        super::e2e::node()
            .arg(root.join("tests/e2e/weight.mjs"))
            .env("LAIKA_DIST", &built.chrome)
            .env("LAIKA_WEIGHT_PAGE", &page)
            .env("LAIKA_WEIGHT_TABS", &tabs)
            .env("LAIKA_WEIGHT_RUNS", &runs)
            .env("LAIKA_WEIGHT_OUT", &out)
            .env("CHROMIUM", super::e2e::CHROMIUM),
    )?;
    eprintln!("    wrote {}", out.display());
    Ok(())
}
