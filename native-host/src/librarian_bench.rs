//! `laika-host bench librarian`: the Librarian with the configured model on saved notes made
//! from corpus pages (WCXB dev articles: title and the first part of the ground-truth text, as a
//! user's clipped article would be), each run over two notes, once under the response grammar
//! and once decoding freely. Printed as JSON: per mode, how many runs' first answers parsed, how
//! many parsed after repair, how many operations the contract accepted of those parsed, and the
//! run time. `cargo xtask bench librarian` drives it.

use crate::host::Host;
use crate::librarian::{self, PromptPack, RunOptions};
use crate::notebook::{NoteChange, NoteSource, NoteState};
use anyhow::{Context, Result};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct LibrarianBenchArgs {
    /// Runs per mode (each over two notes of its own).
    #[arg(long, default_value_t = 50)]
    runs: usize,
    /// WCXB's dev ground truth (`…/corpora/wcxb/dev/ground-truth`).
    #[arg(long)]
    ground_truth: PathBuf,
    /// Installed model name or GGUF path (default: the configured one).
    #[arg(long)]
    model: Option<String>,
}

/// Characters of an article a bench note keeps.
const NOTE_CHARS: usize = 900;

/// (title, url, body) of WCXB dev articles, in file order.
fn articles(dir: &std::path::Path, wanted: usize) -> Result<Vec<(String, String, String)>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = vec![];
    for file in files {
        let truth: Value = serde_json::from_slice(&std::fs::read(&file)?)?;
        if truth.pointer("/_internal/page_type/primary").and_then(Value::as_str) != Some("article") {
            continue;
        }
        let title = truth.pointer("/ground_truth/title").and_then(Value::as_str).unwrap_or_default().trim();
        let body = truth.pointer("/ground_truth/main_content").and_then(Value::as_str).unwrap_or_default().trim();
        if title.is_empty() || body.chars().count() < 400 {
            continue;
        }
        let body: String = body.chars().take(NOTE_CHARS).collect();
        out.push((title.chars().take(120).collect(), truth["url"].as_str().unwrap_or_default().to_string(), body));
        if out.len() == wanted {
            break;
        }
    }
    Ok(out)
}

pub fn run(args: LibrarianBenchArgs) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let engine_args = crate::cli::EngineArgs::for_model(args.model.clone());
        let host = crate::cli::open_host(&engine_args).await?;
        let pages = articles(&args.ground_truth, args.runs * 2)?;
        let mut note_ids = vec![];
        for (title, url, body) in &pages {
            let state = NoteState { title: title.clone(), body_markdown: body.clone(), ..NoteState::default() };
            let source = NoteSource { url: url.clone(), title: Some(title.clone()), citations: vec![] };
            let note = host
                .notebook()?
                .create(&state, &[source], "default", &NoteChange::by("bench"))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            note_ids.push(note.id);
        }
        let pack = PromptPack::built_in().map_err(|e| anyhow::anyhow!(e))?;
        let mut modes = serde_json::Map::new();
        for grammar in [true, false] {
            modes
                .insert(if grammar { "grammar" } else { "free" }.into(), mode(&host, &pack, &note_ids, grammar).await?);
        }
        let report = json!({
            "model": host.engine().map(|e| e.model_id()),
            "runs_per_mode": note_ids.len() / 2,
            "notes_per_run": 2,
            "note_chars": NOTE_CHARS,
            "modes": modes,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
        Ok(ExitCode::SUCCESS)
    })
}

async fn mode(host: &Arc<Host>, pack: &PromptPack, note_ids: &[String], grammar: bool) -> Result<Value> {
    let engine = host.ready_engine().await;
    let (mut first_parsed, mut parsed, mut failed, mut attempts) = (0, 0, 0, 0);
    let (mut operations, mut accepted) = (0usize, 0usize);
    let mut times = vec![];
    let mut codes: std::collections::BTreeMap<String, usize> = Default::default();
    for pair in note_ids.chunks(2).filter(|p| p.len() == 2) {
        let options = RunOptions {
            goal: "Give each note a clear title and a short body that says what it is about".into(),
            scope: format!("note:{},{}", pair[0], pair[1]),
            taxonomy: vec!["health".into(), "technology".into(), "culture".into(), "news".into()],
            max_operations: 3,
            fallback_only: true,
            grammar,
        };
        let record = librarian::run(host, engine.clone(), pack, &options)
            .await
            .map_err(|e| anyhow::anyhow!("{}: {}", e.code, e.message))?;
        let first = &record.attempts[0];
        if first.code.as_deref().is_none_or(|c| c == "LIBRARIAN_CONTRACT_VIOLATED") {
            first_parsed += 1;
        }
        for attempt in &record.attempts {
            if let Some(code) = &attempt.code {
                *codes.entry(code.clone()).or_default() += 1;
            }
        }
        attempts += record.attempts.len();
        times.push(record.ms as f64 / 1000.0);
        match &record.response {
            Some(response) => {
                parsed += 1;
                operations += response.operations.len();
                accepted += record.proposed.len();
            }
            None => failed += 1,
        }
    }
    let runs = times.len().max(1);
    times.sort_by(f64::total_cmp);
    Ok(json!({
        "runs": times.len(),
        "first_answer_parse_rate": first_parsed as f64 / runs as f64,
        "parse_rate_after_repair": parsed as f64 / runs as f64,
        "failed_runs": failed,
        "mean_attempts": attempts as f64 / runs as f64,
        "operations_parsed": operations,
        "operations_accepted": accepted,
        "operations_valid_rate": if operations == 0 { Value::Null } else { json!(accepted as f64 / operations as f64) },
        "attempt_error_codes": codes,
        "run_s_median": times.get(times.len() / 2).copied().unwrap_or(0.0),
        "run_s_mean": times.iter().sum::<f64>() / runs as f64,
        "run_s_max": times.last().copied().unwrap_or(0.0),
    }))
}
