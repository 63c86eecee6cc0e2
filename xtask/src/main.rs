//! `cargo xtask`: the project's automation, in Rust so that it runs wherever cargo does.
//!
//! `cargo xtask test` is the README's test command and what CI runs: the workspace tests, the
//! WASM builds of the crates that ship to the browser, and the fuzz targets (built, then run
//! briefly as a smoke test when cargo-fuzz is installed).
//!
//! `cargo xtask install [--launch]` builds and installs Laika for this user ([`install`]);
//! `cargo xtask build` builds the extension for every browser into `dist/` ([`build`]);
//! `cargo xtask e2e` runs it in Chromium with the real host ([`e2e`]), also part of `test`.
//!
//! `cargo xtask bench extraction [--limit N] [--corpus zyte|wcxb|all] …` runs the `laika-bench`
//! benchmarks in release mode; `cargo xtask bench engine [--quick]` (mistral.rs against llama.cpp)
//! and `cargo xtask bench host` (native messaging, RSS, history) drive `laika-host` ([`perf`]);
//! `cargo xtask bench security [--fuzz-seconds N] [--only PARTS]` is the security suite at full
//! size, one table ([`security`]); `cargo xtask bench quality [--quick]` measures what the
//! summary service shows on real pages, with the default model and the extractive engine
//! ([`quality`]); `cargo xtask bench weight [--tabs N]` what the extension costs a browser with
//! N tabs open ([`weight`]); `cargo xtask bench hub [--clients N]` the Lark hub under load
//! ([`hub`]); `cargo xtask bench agent [--tasks T,…] [--episodes N] [--engine E]` whether approving
//! Laika's proposals finishes MiniWoB++ web tasks, beside a random-clicking floor ([`agent`]).

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

mod agent;
mod build;
mod e2e;
mod hub;
mod install;
mod lavs;
mod librarian;
mod perf;
mod prereq;
mod quality;
mod security;
mod weight;

#[derive(Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Run every test: workspace tests, WASM builds, fuzz-target builds.
    Test {
        /// Seconds to run each fuzz target after building it (0 = build only).
        #[arg(long, default_value_t = 10)]
        fuzz_seconds: u32,
    },
    /// Build the extension for Chrome, Firefox and Safari into `dist/` (and zips), report its size.
    Build {
        /// Skip wasm-opt (faster, larger).
        #[arg(long)]
        no_opt: bool,
    },
    /// The end-to-end suite: the built extension in Debian Chromium with the real host.
    E2e,
    /// Build and install Laika for this user: extension, host, model, browser registration.
    Install(install::InstallOptions),
    /// Build the fuzz targets and run one of them (or all) for a while.
    Fuzz {
        /// A target name; all targets when omitted.
        target: Option<String>,
        #[arg(long, default_value_t = 600)]
        seconds: u32,
    },
    /// Run a benchmark: `engine [--quick]` and `host` drive laika-host; anything else is a
    /// laika-bench benchmark run in release mode, e.g. `bench extraction --limit 30`.
    Bench {
        /// The benchmark and its options (passed to `laika-bench` as they are).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        args: Vec<String>,
    },
}

/// The crates that are compiled to WASM for the extension.
const WASM_CRATES: &[&str] = &["laika-shared", "laika-extension"];

/// The benchmark crate: left out of the workspace tests, because building the extractors it
/// compares against would slow every test run; `cargo test -p laika-bench` runs its own tests.
const BENCH_CRATE: &str = "laika-bench";

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    let result = std::env::set_current_dir(&root)
        .with_context(|| format!("XTASK_NO_CHECKOUT: cannot enter {}", root.display()))
        .and_then(|()| match cli.command {
            Task::Test { fuzz_seconds } => test(fuzz_seconds),
            Task::Build { no_opt } => build::build(&root, !no_opt).map(|_| ()),
            Task::E2e => e2e::e2e(&root).map(|_| ()),
            Task::Install(options) => install::install(&root, &options).map(|_| ()),
            Task::Fuzz { target, seconds } => fuzz(target.as_deref(), seconds),
            Task::Bench { args } => bench(&args),
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cargo xtask: {}", failure_line(&error));
            ExitCode::FAILURE
        }
    }
}

/// A failure as one line: its stable code (`XTASK_…`, `MODEL_…`; `XTASK_FAILED` when the error
/// has none), what happened and what to do. Never a backtrace, even with RUST_BACKTRACE set: the
/// step's own output above it says where.
fn failure_line(error: &anyhow::Error) -> String {
    let text = format!("{error:#}").replace('\n', " ");
    let coded = text.split(':').next().is_some_and(|code| {
        code.len() > 3 && code.contains('_') && code.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    });
    if coded { text } else { format!("XTASK_FAILED: {text}") }
}

/// The checkout `cargo xtask` was run in. `cargo run` sets `CARGO_MANIFEST_DIR` for the running
/// program; the path compiled in is only a fallback, because a target directory shared between
/// checkouts (CI's cache) can hand this checkout an xtask binary built in another one.
fn workspace_root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest_dir.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

/// `cargo`, for a nested build. `cargo run` (how `cargo xtask` starts) hands this process the
/// variables cargo sets for a running package (`CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME`…); passed
/// on, they look changed to build scripts that watch them (ring's does), and every switch between
/// a build from the shell and one from xtask would rebuild ring and everything above it
/// (rustls, reqwest, mistral.rs: minutes). So they are not passed on.
fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    const SET_BY_CARGO_RUN: &[&str] = &[
        "CARGO_MANIFEST_DIR",
        "CARGO_MANIFEST_PATH",
        "CARGO_MANIFEST_LINKS",
        "CARGO_CRATE_NAME",
        "CARGO_BIN_NAME",
        "CARGO_PRIMARY_PACKAGE",
    ];
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_") || SET_BY_CARGO_RUN.contains(&name.as_ref()) {
            command.env_remove(name.as_ref());
        }
    }
    command
}

fn run(step: &str, command: &mut Command) -> Result<()> {
    eprintln!("==> {step}");
    let started = Instant::now();
    let status = command.status().with_context(|| {
        format!("XTASK_STEP_FAILED: {step}: cannot start {}", command.get_program().to_string_lossy())
    })?;
    if !status.success() {
        bail!("XTASK_STEP_FAILED: {step} failed ({status}); its output is above");
    }
    eprintln!("    {step}: ok in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn test(fuzz_seconds: u32) -> Result<()> {
    // The Safari static library is tested on its own: in the workspace run, laika-host's default
    // `embedded` feature would be unified into it, linking mistral.rs into a static library.
    const SAFARI_CRATE: &str = "laika-safari";
    let mut counts = run_cargo_tests(
        "workspace tests",
        cargo().args(["test", "--workspace", "--all-targets", "--exclude", BENCH_CRATE, "--exclude", SAFARI_CRATE]),
    )?;
    let safari = run_cargo_tests(
        "Safari static library tests (C ABI against the stdio host)",
        cargo().args(["test", "-p", SAFARI_CRATE, "--all-targets"]),
    )?;
    counts.passed += safari.passed;
    counts.failed += safari.failed;
    prereq::ensure_wasm_target()?;
    for krate in WASM_CRATES {
        run(
            &format!("{krate} for wasm32-unknown-unknown"),
            cargo().args(["build", "-p", krate, "--target", "wasm32-unknown-unknown"]),
        )?;
    }
    match browser_test_tools() {
        Some(chromedriver) => {
            let browser = run_cargo_tests(
                "extension tests in headless Chromium",
                cargo()
                    .args(["test", "-p", "laika-extension", "--target", "wasm32-unknown-unknown"])
                    .env("CHROMEDRIVER", chromedriver)
                    .current_dir("extension"),
            )?;
            counts.passed += browser.passed;
            counts.failed += browser.failed;
        }
        None if std::env::var_os("CI").is_some() => {
            bail!("CI needs wasm-bindgen-test-runner and chromedriver for the browser tests (.ci/run installs them)")
        }
        None => eprintln!(
            "    skipping the browser tests: they need wasm-bindgen-test-runner (cargo install wasm-bindgen-cli) \
             and chromedriver (apt-get install chromium chromium-driver)"
        ),
    }
    if e2e::available() {
        let (passed, failed) = e2e::e2e(&workspace_root())?;
        counts.passed += passed;
        counts.failed += failed;
    } else if std::env::var_os("CI").is_some() {
        bail!("CI needs Chromium, node and wasm-bindgen for the end-to-end suite (.ci/run installs them)");
    } else {
        eprintln!("    skipping the end-to-end suite: it needs /usr/bin/chromium, node and wasm-bindgen");
    }
    if e2e::available() {
        let (passed, failed) = agent::smoke(&workspace_root())?;
        counts.passed += passed;
        counts.failed += failed;
    }
    build_fuzz_targets()?;
    if fuzz_seconds > 0 && has_cargo_fuzz() {
        for target in fuzz_targets()? {
            run_fuzz_target(&target, fuzz_seconds)?;
        }
    }
    eprintln!("==> all checks passed");
    // One closing line for the whole run, in the plain form CI reads.
    println!("xtask: {} passed, {} failed", counts.passed, counts.failed);
    Ok(())
}

#[derive(Default)]
struct TestCounts {
    passed: u64,
    failed: u64,
}

/// Runs a `cargo test`, passing its output through and adding up its `test result:` lines.
fn run_cargo_tests(step: &str, command: &mut Command) -> Result<TestCounts> {
    eprintln!("==> {step}");
    let started = Instant::now();
    let mut child = command.stdout(Stdio::piped()).spawn().with_context(|| format!("{step}: cannot start cargo"))?;
    let mut counts = TestCounts::default();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line?;
            println!("{line}");
            if let Some(rest) = line.strip_prefix("test result: ") {
                counts.passed += number_before(rest, " passed");
                counts.failed += number_before(rest, " failed");
            }
        }
    }
    let status = child.wait()?;
    if !status.success() {
        println!("xtask: {} passed, {} failed", counts.passed, counts.failed.max(1));
        bail!("{step} failed ({status})");
    }
    eprintln!("    {step}: {} passed in {:.1} s", counts.passed, started.elapsed().as_secs_f64());
    Ok(counts)
}

/// The number just before `label` in a cargo summary such as `ok. 12 passed; 0 failed; …`.
fn number_before(text: &str, label: &str) -> u64 {
    text.find(label)
        .and_then(|end| text[..end].rsplit(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

/// The chromedriver to drive the WASM tests with, when both it and the wasm-bindgen test
/// runner are installed.
fn browser_test_tools() -> Option<PathBuf> {
    let runner = prereq::runs("wasm-bindgen-test-runner", &["--version"]);
    let driver =
        std::env::var_os("CHROMEDRIVER").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/bin/chromedriver"));
    (runner && driver.is_file()).then_some(driver)
}

fn has_cargo_fuzz() -> bool {
    cargo().args(["fuzz", "--version"]).output().is_ok_and(|o| o.status.success())
}

fn fuzz_targets() -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir("fuzz/fuzz_targets").context("reading fuzz/fuzz_targets")? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs")
            && let Some(stem) = path.file_stem()
        {
            names.push(stem.to_string_lossy().into_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// cargo-fuzz's sanitizer flags are nightly-only; RUSTC_BOOTSTRAP lets the one stable
/// toolchain this project has accept them.
fn fuzz_command() -> Command {
    let mut command = cargo();
    command.env("RUSTC_BOOTSTRAP", "1");
    command
}

fn build_fuzz_targets() -> Result<()> {
    if has_cargo_fuzz() {
        run("fuzz targets (cargo fuzz build)", fuzz_command().args(["fuzz", "build", "--dev"]))
    } else {
        // Without cargo-fuzz the targets still compile and link against libFuzzer, uninstrumented.
        eprintln!("    cargo-fuzz is not installed (cargo install cargo-fuzz); building the targets uninstrumented");
        run(
            "fuzz targets (uninstrumented build)",
            cargo().args(["build", "--manifest-path", "fuzz/Cargo.toml", "--bins"]).env("RUSTFLAGS", "--cfg fuzzing"),
        )
    }
}

fn run_fuzz_target(target: &str, seconds: u32) -> Result<()> {
    let corpus = PathBuf::from("target/fuzz-corpus").join(target);
    std::fs::create_dir_all(&corpus)?;
    run(
        &format!("fuzz {target} for {seconds} s"),
        fuzz_command().args([
            "fuzz",
            "run",
            "--dev",
            target,
            &corpus.to_string_lossy(),
            "--",
            &format!("-max_total_time={seconds}"),
            "-rss_limit_mb=2048",
            "-print_final_stats=1",
        ]),
    )
}

fn fuzz(target: Option<&str>, seconds: u32) -> Result<()> {
    if !has_cargo_fuzz() {
        bail!("cargo-fuzz is not installed: cargo install cargo-fuzz");
    }
    let targets = match target {
        Some(name) => vec![name.to_string()],
        None => fuzz_targets()?,
    };
    run("fuzz targets (cargo fuzz build)", fuzz_command().args(["fuzz", "build", "--dev"]))?;
    for target in targets {
        run_fuzz_target(&target, seconds)?;
    }
    Ok(())
}

/// `engine` and `host` run here ([`perf`]). Any other benchmark: builds and runs `laika-bench` with
/// the given arguments and exits with its status, so a failed benchmark fails the command too.
fn bench(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("engine") => return perf::engine(&workspace_root(), &args[1..]),
        Some("host") => return perf::host(&workspace_root(), &args[1..]),
        Some("security") => return security::security(&workspace_root(), &args[1..]),
        Some("quality") => return quality::quality(&workspace_root(), &args[1..]),
        Some("weight") => return weight::weight(&workspace_root(), &args[1..]),
        Some("agent") => return agent::agent(&workspace_root(), &args[1..]),
        Some("hub") => return hub::hub(&workspace_root(), &args[1..]),
        Some("lavs") => return lavs::lavs(&workspace_root(), &args[1..]),
        Some("librarian") => return librarian::librarian(&workspace_root(), &args[1..]),
        _ => {}
    }
    eprintln!("==> laika-bench {}", args.join(" "));
    let status = cargo()
        .args(["run", "--release", "--package", BENCH_CRATE, "--"])
        .args(args)
        .status()
        .context("bench: cannot start cargo")?;
    if !status.success() {
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_one_line_with_a_stable_code() {
        let coded = anyhow::anyhow!("XTASK_NO_DISPLAY: no display");
        assert_eq!(failure_line(&coded), "XTASK_NO_DISPLAY: no display");
        let coded = anyhow::anyhow!("XTASK_NO_DISPLAY: no display\nsecond line");
        assert_eq!(failure_line(&coded), "XTASK_NO_DISPLAY: no display second line");
        let plain = anyhow::Error::from(std::io::Error::other("disk full")).context("cannot write dist/");
        assert_eq!(failure_line(&plain), "XTASK_FAILED: cannot write dist/: disk full");
    }
}
