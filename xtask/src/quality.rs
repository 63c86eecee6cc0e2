//! `cargo xtask bench quality [--quick]`: what a user reads after **Summarise**, on real pages
//! from the corpora's dev splits (WCXB dev articles, forums and products; Mozilla Readability's
//! test pages), with the default model (SmolLM2-135M through mistral.rs) and, side by side, the
//! extractive engine; then the planning suite. The measuring is `laika-host bench quality` and
//! `laika-host bench plan-suite`; this prints the table with the targets and writes
//! `target/bench/quality.json`.
//!
//! Pages are chosen deterministically: of each kind, evenly spaced through the sorted ids. Only
//! dev splits are read; the held-out test splits are never touched.

use crate::perf::{self, Paths};
use anyhow::{Context, Result};
use clap::Parser;
use serde_json::{Value, json};
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "cargo xtask bench quality")]
struct QualityOpts {
    /// Twelve pages instead of forty.
    #[arg(long)]
    quick: bool,
    /// Only these engines (comma-separated: mistral, extractive).
    #[arg(long, default_value = "mistral,extractive")]
    engines: String,
    /// Skip the planning suite.
    #[arg(long)]
    no_plan: bool,
}

/// The targets of the issue (issue 23).
const TARGET_SUPPORT: f64 = 0.95;
const TARGET_CITATIONS: f64 = 3.0;
const TARGET_FIRST_TEXT_MS: f64 = 1000.0;
const TARGET_CONTRIBUTION: f64 = 0.8;
const TARGET_PLAN_CORRECT: f64 = 0.8;

/// How many pages of each kind: (kind, quick, full).
const KINDS: &[(&str, usize, usize)] = &[("article", 6, 20), ("forum", 2, 8), ("product", 2, 6), ("readability", 2, 6)];

fn wcxb_pages(corpora: &Path, kind: &str) -> Result<Vec<(String, PathBuf, String)>> {
    let truth = corpora.join("wcxb").join("dev").join("ground-truth");
    let mut out = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&truth)
        .with_context(|| format!("cannot read {}", truth.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    for path in names {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let page_type = file.pointer("/_internal/page_type/primary").and_then(Value::as_str).unwrap_or("article");
        if page_type != kind {
            continue;
        }
        let id = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let html = corpora.join("wcxb").join("dev").join("html").join(format!("{id}.html.gz"));
        out.push((format!("wcxb-{id}"), html, file["url"].as_str().unwrap_or("https://example.com/").to_string()));
    }
    Ok(out)
}

fn readability_pages(corpora: &Path) -> Result<Vec<(String, PathBuf, String)>> {
    let dir = corpora.join("readability");
    let mut names: Vec<PathBuf> =
        std::fs::read_dir(&dir)?.flatten().map(|e| e.path()).filter(|p| p.join("source.html").is_file()).collect();
    names.sort();
    Ok(names
        .into_iter()
        .filter(|p| {
            // Only pages Readability calls readerable: the rest are its parser edge cases.
            std::fs::read_to_string(p.join("expected-metadata.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .is_some_and(|m| m["readerable"] == true)
        })
        // Nor its test documents of placeholder Latin (27 of the 122 readerable ones: metadata,
        // base URLs, hidden nodes): no real page, and no English for a model to sum up.
        .filter(|p| !std::fs::read_to_string(p.join("source.html")).is_ok_and(|t| is_placeholder(&t)))
        .map(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            (format!("readability-{name}"), p.join("source.html"), format!("https://readability.example/{name}"))
        })
        .collect())
}

/// Whether a page is placeholder text ("Lorem ipsum dolor sit amet …"), as parser tests are.
fn is_placeholder(html: &str) -> bool {
    html.to_lowercase().contains("lorem ipsum")
}

/// Every `len / want`-th entry, starting in the middle of the first stride.
fn spread<T: Clone>(all: &[T], want: usize) -> Vec<T> {
    if all.len() <= want {
        return all.to_vec();
    }
    (0..want).map(|i| all[(2 * i + 1) * all.len() / (2 * want)].clone()).collect()
}

/// Writes the chosen pages (decompressed) under `target/bench/quality/` and their list.
fn write_pages(paths: &Paths, corpora: &Path, quick: bool) -> Result<PathBuf> {
    let dir = paths.bench.join("quality").join("pages");
    std::fs::create_dir_all(&dir)?;
    let mut list = Vec::new();
    for &(kind, q, full) in KINDS {
        let candidates = if kind == "readability" { readability_pages(corpora)? } else { wcxb_pages(corpora, kind)? };
        for (name, source, url) in spread(&candidates, if quick { q } else { full }) {
            let mut html = String::new();
            let file = std::fs::File::open(&source).with_context(|| format!("cannot open {}", source.display()))?;
            if source.extension().is_some_and(|e| e == "gz") {
                flate2::read::GzDecoder::new(file).read_to_string(&mut html)?;
            } else {
                std::io::BufReader::new(file).read_to_string(&mut html)?;
            }
            let path = dir.join(format!("{name}.html"));
            std::fs::write(&path, html)?;
            list.push(json!({ "name": name, "kind": kind, "path": path, "url": url }));
        }
    }
    let list_path = paths.bench.join("quality").join("pages.json");
    std::fs::write(&list_path, serde_json::to_string_pretty(&list)?)?;
    Ok(list_path)
}

pub fn quality(root: &Path, args: &[String]) -> Result<()> {
    let opts = QualityOpts::try_parse_from(std::iter::once("quality".to_string()).chain(args.iter().cloned()))
        .unwrap_or_else(|e| e.exit());
    let paths = perf::prepare(root)?;
    if opts.engines.contains("mistral") {
        perf::ensure_model(&paths)?;
    }
    let list = write_pages(&paths, &perf::corpora_dir(root), opts.quick)?;
    let busy = perf::cpu_busy();
    let summaries = perf::json_run(
        "summaries (laika-host bench quality)",
        perf::host_command(&paths).args(["bench", "quality", "--pages"]).arg(&list).args(["--engines", &opts.engines]),
    )?;
    let plan = if opts.no_plan {
        Value::Null
    } else {
        let cases = root.join("tests").join("fixtures").join("plan-suite");
        let mut out = serde_json::Map::new();
        for engine in opts.engines.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let result = perf::json_run(
                &format!("planning suite, {engine} (laika-host bench plan-suite)"),
                perf::host_command(&paths)
                    .args(["bench", "plan-suite", "--cases"])
                    .arg(&cases)
                    .args(["--engine", engine]),
            )?;
            out.insert(engine.to_string(), result);
        }
        Value::Object(out)
    };

    println!();
    println!("| | {} |", opts.engines.split(',').collect::<Vec<_>>().join(" | "));
    println!("|---|{}", "---|".repeat(opts.engines.split(',').count()));
    let engines: Vec<&str> = opts.engines.split(',').map(str::trim).collect();
    let row = |label: &str, f: &dyn Fn(&Value) -> String| {
        let cells: Vec<String> = engines.iter().map(|e| f(&summaries[*e]["totals"])).collect();
        println!("| {label} | {} |", cells.join(" | "));
    };
    row("pages", &|t| perf::cell(perf::num(t, "pages"), 0));
    row("sentences shown", &|t| perf::cell(perf::num(t, "sentences"), 0));
    row("supported (≥ 95 %)", &|t| perf::cell(perf::num(t, "support_rate").map(|v| v * 100.0), 1));
    row("summaries with a loop (0)", &|t| perf::cell(perf::num(t, "summaries_with_loop"), 0));
    row("with a number not on the page (0)", &|t| perf::cell(perf::num(t, "summaries_with_novel_number"), 0));
    row("citations per summary (≥ 3)", &|t| perf::cell(perf::num(t, "citations_per_summary"), 1));
    row("fewest citations", &|t| perf::cell(perf::num(t, "min_citations"), 0));
    row("citations verbatim (100 %)", &|t| perf::cell(perf::num(t, "citations_verbatim").map(|v| v * 100.0), 1));
    row("first grounded text, median ms", &|t| perf::cell(perf::num(t, "first_text_ms_median"), 0));
    row("first grounded text, max ms (≤ 1000)", &|t| perf::cell(perf::num(t, "first_text_ms_max"), 0));
    row("whole summary, median ms", &|t| perf::cell(perf::num(t, "total_ms_median"), 0));
    row("pages with a model sentence shown (≥ 80 %)", &|t| {
        perf::cell(perf::num(t, "model_contribution_rate").map(|v| v * 100.0), 1)
    });
    row("model sentences shown / dropped", &|t| {
        format!(
            "{} / {}",
            perf::cell(perf::num(t, "model_sentences_shown"), 0),
            perf::cell(perf::num(t, "model_sentences_dropped"), 0)
        )
    });
    if let Value::Object(plans) = &plan {
        for (engine, result) in plans {
            let totals = &result["totals"];
            println!(
                "planning suite, {engine}: first action correct {} of {} ({}%), actions on read-only goals {}",
                totals["first_action_correct"],
                totals["run"],
                perf::cell(perf::num(totals, "first_action_correct_share").map(|v| v * 100.0), 1),
                totals["actions_on_read_only"]
            );
        }
    }
    perf::busy_note(busy);

    let mut targets = serde_json::Map::new();
    if let Some(t) = summaries.get("mistral").map(|m| &m["totals"]) {
        let n = |k: &str| perf::num(t, k).unwrap_or(f64::NAN);
        let check = |name: &str, target: String, value: f64, ok: bool| {
            (name.to_string(), json!({ "target": target, "value": value, "met": ok }))
        };
        for (name, entry) in [
            check(
                "support_rate",
                format!("≥ {TARGET_SUPPORT}"),
                n("support_rate"),
                n("support_rate") >= TARGET_SUPPORT,
            ),
            check("summaries_with_loop", "0".into(), n("summaries_with_loop"), n("summaries_with_loop") == 0.0),
            check(
                "summaries_with_novel_number",
                "0".into(),
                n("summaries_with_novel_number"),
                n("summaries_with_novel_number") == 0.0,
            ),
            check(
                "citations_per_summary",
                format!("≥ {TARGET_CITATIONS}"),
                n("citations_per_summary"),
                n("min_citations") >= TARGET_CITATIONS,
            ),
            check("citations_verbatim", "1.0".into(), n("citations_verbatim"), n("citations_verbatim") >= 1.0),
            check(
                "first_text_ms_max",
                format!("≤ {TARGET_FIRST_TEXT_MS}"),
                n("first_text_ms_max"),
                n("first_text_ms_max") <= TARGET_FIRST_TEXT_MS,
            ),
            check(
                "model_contribution_rate",
                format!("≥ {TARGET_CONTRIBUTION}"),
                n("model_contribution_rate"),
                n("model_contribution_rate") >= TARGET_CONTRIBUTION,
            ),
        ] {
            targets.insert(name, entry);
        }
        if let Some(p) = plan.get("mistral").map(|p| &p["totals"]) {
            let rate = perf::num(p, "first_action_correct_share").unwrap_or(f64::NAN);
            let read_only = perf::num(p, "actions_on_read_only").unwrap_or(f64::NAN);
            targets.insert("plan_first_action_correct".into(), json!({ "target": format!("≥ {TARGET_PLAN_CORRECT}"), "value": rate, "met": rate >= TARGET_PLAN_CORRECT }));
            targets.insert(
                "plan_read_only_actions".into(),
                json!({ "target": "0", "value": read_only, "met": read_only == 0.0 }),
            );
        }
        println!();
        for (name, entry) in &targets {
            println!(
                "{name}: {} (target {}): {}",
                entry["value"],
                entry["target"].as_str().unwrap_or(""),
                perf::met(entry["met"] == true)
            );
        }
    }
    let report = json!({ "quick": opts.quick, "summaries": summaries, "planning": plan, "targets": targets, "cpu_busy_before": busy });
    let out = paths.bench.join("quality.json");
    std::fs::write(&out, serde_json::to_string_pretty(&report)?)?;
    println!("\nwrote {}", out.display());
    Ok(())
}
