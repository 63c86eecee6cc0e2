//! `cargo xtask bench librarian [--runs N]`: the Librarian with the default model (SmolLM2-135M)
//! on notes made from WCXB dev articles, N runs (default 50) of two notes each, under the
//! response grammar and decoding freely. Builds the host (dev profile, as every host benchmark),
//! runs `laika-host bench librarian` on a fresh data directory of its own
//! (`native-host/src/librarian_bench.rs` says what it measures), writes
//! `target/bench/librarian.json` and prints the figures beside #29's target: every response
//! parses under the grammar.

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::path::Path;

pub fn librarian(root: &Path, args: &[String]) -> Result<()> {
    let mut runs = "50".to_string();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--runs" => runs = rest.next().context("XTASK_BAD_ARGS: --runs needs a number")?.clone(),
            other => bail!("XTASK_BAD_ARGS: bench librarian takes --runs N, not {other:?}"),
        }
    }
    let paths = super::perf::prepare(root)?;
    let model = super::perf::ensure_model(&paths)?;
    let data = paths.bench.join("librarian-data");
    let _ = std::fs::remove_dir_all(&data);
    let truth = root.join("../shared/corpora/wcxb/dev/ground-truth");
    eprintln!("==> laika-host bench librarian --runs {runs} (two modes; a few minutes per ten runs)");
    let out = std::process::Command::new(&paths.host)
        .env("LAIKA_DATA_DIR", &data)
        .args(["bench", "librarian", "--runs", &runs, "--model"])
        .arg(&model)
        .arg("--ground-truth")
        .arg(&truth)
        .output()
        .context("cannot run laika-host bench librarian")?;
    if !out.status.success() {
        bail!("XTASK_STEP_FAILED: laika-host bench librarian: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let mut report: Value =
        serde_json::from_slice(&out.stdout).context("laika-host bench librarian printed no JSON")?;
    let grammar_parse = report["modes"]["grammar"]["parse_rate_after_repair"].as_f64().unwrap_or(f64::NAN);
    report["targets"] = json!({
        "grammar_parse_rate": { "value": grammar_parse, "target": "1.0", "met": grammar_parse >= 1.0 },
    });
    let rate = |mode: &str, key: &str| report["modes"][mode][key].as_f64().unwrap_or(f64::NAN);
    std::fs::write(paths.bench.join("librarian.json"), serde_json::to_string_pretty(&report)?)?;
    let pct = |v: f64| if v.is_nan() { "–".to_string() } else { format!("{:.0} %", v * 100.0) };
    println!(
        "| Librarian, {}, {} runs per mode | under the grammar | free decoding |",
        report["model"].as_str().unwrap_or("?"),
        report["runs_per_mode"]
    );
    println!("|---|---|---|");
    for (label, key) in [
        ("first answer parses", "first_answer_parse_rate"),
        ("parses after ≤ 2 repairs (target with the grammar: 100 %)", "parse_rate_after_repair"),
        ("operations the contract accepts, of those parsed", "operations_valid_rate"),
    ] {
        println!("| {label} | {} | {} |", pct(rate("grammar", key)), pct(rate("free", key)));
    }
    println!("| mean attempts | {:.2} | {:.2} |", rate("grammar", "mean_attempts"), rate("free", "mean_attempts"));
    println!(
        "| run time, median / max | {:.1} / {:.1} s | {:.1} / {:.1} s |",
        rate("grammar", "run_s_median"),
        rate("grammar", "run_s_max"),
        rate("free", "run_s_median"),
        rate("free", "run_s_max")
    );
    println!(
        "| operations parsed → accepted | {} → {} | {} → {} |",
        report["modes"]["grammar"]["operations_parsed"],
        report["modes"]["grammar"]["operations_accepted"],
        report["modes"]["free"]["operations_parsed"],
        report["modes"]["free"]["operations_accepted"]
    );
    eprintln!("    written to {}", paths.bench.join("librarian.json").display());
    Ok(())
}
