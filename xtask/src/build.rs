//! `cargo xtask build`: the extension for every browser, ready to load or ship.
//!
//! 1. `laika-extension` for `wasm32-unknown-unknown` in the `wasm-release` profile (size first).
//! 2. `wasm-bindgen --target web` (the CLI must match the crate's wasm-bindgen version).
//! 3. `wasm-opt -Oz` from npm's `binaryen` (installed once under `target/tools`; skipped with a
//!    note when npm is missing).
//!
//! The WASM target and the wasm-bindgen CLI are installed first when missing ([`super::prereq`]).
//! 4. `dist/<browser>/`: the browser's manifest (`manifest/<browser>/manifest.json`), the static
//!    files (`extension/static/`) and `pkg/`; then `dist/laika-<browser>.zip`.
//! 5. The size of everything shipped that the browser parses (WASM and JS), gzipped: the budget
//!    is 300 KB. Written to `target/bench/size.json`.

use anyhow::{Context, Result, bail};
use serde_json::json;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const BROWSERS: &[&str] = &["chrome", "firefox", "safari"];

/// The gzipped size budget of all shipped WASM and JS.
pub const SIZE_BUDGET_BYTES: u64 = 300 * 1024;

/// binaryen's npm release whose `wasm-opt` shrinks the WASM.
const BINARYEN_VERSION: &str = "123.0.0";

const WASM_PROFILE: &str = "wasm-release";

pub struct Built {
    /// `dist/chrome`, what the end-to-end suite loads.
    pub chrome: PathBuf,
    /// `dist/firefox`.
    pub firefox: PathBuf,
}

pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"))
}

pub fn build(root: &Path, optimise: bool) -> Result<Built> {
    let target = target_dir(root);
    super::prereq::ensure_wasm_target()?;
    // wasm-opt comes from npm; without it the extension still works, only larger.
    let optimise = optimise && {
        let npm = super::prereq::runs("npm", &["--version"]);
        if !npm {
            eprintln!(
                "    npm is not installed: the extension is built without wasm-opt (larger, same behaviour); \
                 install Node.js and npm for the smaller build"
            );
        }
        npm
    };
    super::run(
        "laika-extension for wasm32-unknown-unknown (wasm-release)",
        super::cargo().args([
            "build",
            "-p",
            "laika-extension",
            "--lib",
            "--target",
            "wasm32-unknown-unknown",
            "--profile",
            WASM_PROFILE,
        ]),
    )?;
    let wasm = target.join("wasm32-unknown-unknown").join(WASM_PROFILE).join("laika_extension.wasm");
    let pkg = target.join("extension-pkg");
    let _ = fs::remove_dir_all(&pkg);
    super::prereq::ensure_wasm_bindgen(root)?;
    super::run(
        "wasm-bindgen --target web",
        Command::new("wasm-bindgen")
            .args(["--target", "web", "--no-typescript", "--out-name", "laika_extension", "--out-dir"])
            .arg(&pkg)
            .arg(&wasm),
    )?;
    let bg = pkg.join("laika_extension_bg.wasm");
    if optimise {
        let wasm_opt = wasm_opt(&target)?;
        let optimised = pkg.join("laika_extension_bg.opt.wasm");
        super::run(
            "wasm-opt -Oz",
            Command::new(&wasm_opt)
                .arg("-Oz")
                .arg("--strip-debug")
                .arg("--strip-producers")
                .arg(&bg)
                .arg("-o")
                .arg(&optimised),
        )?;
        fs::rename(&optimised, &bg)?;
    }

    let dist = root.join("dist");
    let mut sizes = Vec::new();
    for browser in BROWSERS {
        let out = dist.join(browser);
        let _ = fs::remove_dir_all(&out);
        fs::create_dir_all(out.join("pkg"))?;
        fs::copy(root.join("manifest").join(browser).join("manifest.json"), out.join("manifest.json"))
            .with_context(|| format!("manifest/{browser}/manifest.json"))?;
        for entry in fs::read_dir(root.join("extension/static"))? {
            let path = entry?.path();
            if path.is_file() {
                fs::copy(&path, out.join(path.file_name().unwrap()))?;
            }
        }
        for name in ["laika_extension.js", "laika_extension_bg.wasm"] {
            fs::copy(pkg.join(name), out.join("pkg").join(name))?;
        }
        let zip = dist.join(format!("laika-{browser}.zip"));
        zip_dir(&out, &zip)?;
        if *browser == "chrome" {
            sizes = shipped_sizes(&out)?;
        }
    }
    let gzipped: u64 = sizes.iter().map(|(_, _, gz)| gz).sum();
    let raw: u64 = sizes.iter().map(|(_, raw, _)| raw).sum();
    eprintln!("    shipped WASM + JS (dist/chrome):");
    for (name, raw, gz) in &sizes {
        eprintln!("      {name:<32} {:>8.1} KB  {:>7.1} KB gzipped", *raw as f64 / 1024.0, *gz as f64 / 1024.0);
    }
    let verdict = if gzipped <= SIZE_BUDGET_BYTES { "within" } else { "OVER" };
    eprintln!(
        "      {:<32} {:>8.1} KB  {:>7.1} KB gzipped ({verdict} the {} KB budget)",
        "total",
        raw as f64 / 1024.0,
        gzipped as f64 / 1024.0,
        SIZE_BUDGET_BYTES / 1024
    );
    let report = json!({
        "optimised": optimise,
        "files": sizes.iter().map(|(n, r, g)| json!({ "file": n, "bytes": r, "gzip_bytes": g })).collect::<Vec<_>>(),
        "total_bytes": raw,
        "total_gzip_bytes": gzipped,
        "budget_gzip_bytes": SIZE_BUDGET_BYTES,
    });
    let bench = target.join("bench");
    fs::create_dir_all(&bench)?;
    fs::write(bench.join("size.json"), serde_json::to_string_pretty(&report)?)?;
    eprintln!("    dist/{{{}}} and their zips are ready", BROWSERS.join(","));
    Ok(Built { chrome: dist.join("chrome"), firefox: dist.join("firefox") })
}

/// `wasm-opt` from npm's binaryen, installed once under `target/tools/`.
fn wasm_opt(target: &Path) -> Result<PathBuf> {
    let tools = target.join("tools").join(format!("binaryen-{BINARYEN_VERSION}"));
    let bin = tools.join("node_modules/.bin/wasm-opt");
    if bin.exists() {
        eprintln!("    wasm-opt (binaryen {BINARYEN_VERSION}): present");
    } else {
        fs::create_dir_all(&tools)?;
        super::run(
            &format!("npm install binaryen@{BINARYEN_VERSION}"),
            Command::new("npm")
                .args(["install", "--no-save", "--no-audit", "--no-fund", "--prefix"])
                .arg(&tools)
                .arg(format!("binaryen@{BINARYEN_VERSION}")),
        )?;
    }
    if !bin.exists() {
        bail!("XTASK_NO_WASM_OPT: npm installed binaryen but {} is missing", bin.display());
    }
    Ok(bin)
}

/// Every WASM and JS file under `dir`: (path, bytes, gzipped bytes).
fn shipped_sizes(dir: &Path) -> Result<Vec<(String, u64, u64)>> {
    let mut out = Vec::new();
    for path in walk(dir)? {
        if path.extension().is_some_and(|e| e == "wasm" || e == "js") {
            let bytes = fs::read(&path)?;
            let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            encoder.write_all(&bytes)?;
            let gz = encoder.finish()?.len() as u64;
            let name = path.strip_prefix(dir).unwrap_or(&path).display().to_string();
            out.push((name, bytes.len() as u64, gz));
        }
    }
    out.sort();
    Ok(out)
}

fn walk(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() { stack.push(path) } else { files.push(path) }
        }
    }
    files.sort();
    Ok(files)
}

fn zip_dir(dir: &Path, zip_path: &Path) -> Result<()> {
    let file = fs::File::create(zip_path).with_context(|| format!("cannot create {}", zip_path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for path in walk(dir)? {
        let name = path.strip_prefix(dir)?.to_string_lossy().replace('\\', "/");
        zip.start_file(name, options)?;
        zip.write_all(&fs::read(&path)?)?;
    }
    zip.finish()?;
    Ok(())
}
