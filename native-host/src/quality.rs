//! `laika-host bench quality` (hidden): what a user reads after **Summarise**, measured on real
//! pages with an engine, by the definitions of `shared/notes/quality-probe.md` — deliberately
//! not with the grounding gate's own code, so the gate cannot grade itself.
//!
//! For each page (a list written by `cargo xtask bench quality`): observe the saved HTML as the
//! content script would, run the summary service with history off, and measure everything shown:
//! - a sentence is **supported** when at least 70 % of its content words (lower-cased, three
//!   letters or more, stopwords and words about the text left out) occur in the page text;
//! - a summary **loops** when a run of one to four words repeats three times in a row;
//! - a **novel number** is a number in the summary that the page text does not hold;
//! - a citation is **verbatim** when its quote (less a trailing `…`) is in the page text;
//! - first grounded text, whole summary time, and the gate's counts (model sentences shown and
//!   dropped).
//!
//! Prints one JSON object: per engine, every page's record and the totals.

use crate::debuglog::DebugLog;
use crate::engine::Engine;
use crate::engine::extractive::ExtractiveEngine;
use crate::host::{self, Host};
use crate::prompt::TurnRef;
use crate::summary::{self, SummaryDeps, SummaryInput, SummaryJob};
use anyhow::{Context, Result};
use laika_shared::grounding::text::probe_words;
use laika_shared::html::HtmlDom;
use laika_shared::observe::{ObserveOptions, observe};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
pub struct QualityArgs {
    /// A JSON list of pages: `[{name, kind, path, url, question?}]`.
    #[arg(long)]
    pages: PathBuf,
    /// Which engines to run, comma-separated: `mistral` (the configured model), `extractive`.
    #[arg(long, default_value = "mistral,extractive")]
    engines: String,
}

#[derive(Deserialize, Clone)]
struct PageCase {
    name: String,
    kind: String,
    path: PathBuf,
    url: String,
    #[serde(default)]
    question: Option<String>,
}

fn probe_numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            current.push(c);
        } else if c == ',' && !current.is_empty() {
            // "1,200" is one number
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    out
}

/// The probe's loop: a run of one to four words repeated three times in a row.
fn loops(text: &str) -> bool {
    let words: Vec<String> = text.split_whitespace().map(|w| w.to_lowercase()).collect();
    (1..=4).any(|n| {
        words.len() >= 3 * n
            && (0..=words.len() - 3 * n)
                .any(|i| (0..n).all(|k| words[i + k] == words[i + n + k] && words[i + k] == words[i + 2 * n + k]))
    })
}

/// The sentences a user reads: the summary's lines less list marks, labels and citation markers.
fn shown_sentences(summary: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in summary.lines() {
        let mut line = line.trim().trim_start_matches("- ").to_string();
        for label in ["In short:", "Answer:", "From the page:", "Part by part:"] {
            if let Some(rest) = line.strip_prefix(label) {
                line = rest.to_string();
            }
        }
        let mut clean = String::new();
        let mut rest = line.as_str();
        while let Some(open) = rest.find(" [") {
            let after = &rest[open + 2..];
            match after.find(']') {
                Some(close) if after[..close].chars().all(|c| c.is_ascii_digit()) && close > 0 => {
                    clean.push_str(&rest[..open]);
                    rest = &after[close + 1..];
                }
                _ => {
                    clean.push_str(&rest[..open + 2]);
                    rest = after;
                }
            }
        }
        clean.push_str(rest);
        let bytes = clean.as_bytes();
        let mut start = 0;
        for i in 0..bytes.len() {
            if matches!(bytes[i], b'.' | b'!' | b'?')
                && bytes.get(i + 1) == Some(&b' ')
                && bytes.get(i + 2).is_some_and(|b| b.is_ascii_uppercase())
            {
                out.push(clean[start..=i].trim().to_string());
                start = i + 2;
            }
        }
        out.push(clean[start..].trim().to_string());
    }
    out.retain(|s| !probe_words(s).is_empty());
    out
}

/// Measures one finished summary against its page.
pub fn measure(summary: &str, citations: &[Value], page_text: &str) -> Value {
    let page_words: HashSet<String> = probe_words(page_text).into_iter().collect();
    let page_numbers: HashSet<String> = probe_numbers(page_text).into_iter().collect();
    let sentences = shown_sentences(summary);
    let unsupported: Vec<&String> = sentences
        .iter()
        .filter(|s| {
            let words = probe_words(s);
            let found = words.iter().filter(|w| page_words.contains(*w)).count();
            (found as f64) < 0.7 * words.len() as f64
        })
        .collect();
    // Citation markers are not the summary's numbers.
    let without_markers: String = sentences.join(" ");
    let novel: Vec<String> =
        probe_numbers(&without_markers).into_iter().filter(|n| !page_numbers.contains(n)).collect();
    let verbatim = citations
        .iter()
        .filter(|c| c["quote"].as_str().is_some_and(|q| page_text.contains(q.trim_end_matches('…').trim_end())))
        .count();
    json!({
        "sentences": sentences.len(),
        "supported": sentences.len() - unsupported.len(),
        "unsupported": unsupported,
        "loops": loops(summary),
        "novel_numbers": novel,
        "citations": citations.len(),
        "citations_verbatim": verbatim,
    })
}

pub fn run(args: QualityArgs) -> Result<ExitCode> {
    let list = std::fs::read_to_string(&args.pages).with_context(|| format!("cannot read {}", args.pages.display()))?;
    let pages: Vec<PageCase> = serde_json::from_str(&list).context("the page list is not [{name, kind, path, url}]")?;
    let runtime = crate::runtime()?;
    let mut report = serde_json::Map::new();
    for name in args.engines.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let engine: Arc<dyn Engine> = match name {
            "extractive" => Arc::new(ExtractiveEngine),
            "mistral" => runtime.block_on(async {
                let host = Host::open(&host::data_dir())?;
                host.load_engine().await;
                let status = host.status();
                anyhow::ensure!(status.state == "ready", "the model engine is not ready: {:?}", status.error);
                anyhow::Ok(host.ready_engine().await)
            })?,
            other => anyhow::bail!("unknown engine {other:?}: mistral or extractive"),
        };
        let model = engine.model_id();
        let mut records = Vec::new();
        for page in &pages {
            let html =
                std::fs::read_to_string(&page.path).with_context(|| format!("cannot read {}", page.path.display()))?;
            let observation = observe(&HtmlDom::parse(&html), &page.url, &ObserveOptions::unbounded());
            let page_text = laika_shared::grounding::page_corpus(&observation);
            let job = SummaryJob::new(TurnRef { conversation_id: crate::prompt::new_id(), turn: 1 });
            let deps = SummaryDeps {
                engine: engine.clone(),
                history: None,
                debug: Arc::new(DebugLog::from_env(&host::data_dir())),
                sampling: crate::engine::Sampling::default(),
                constrain: crate::host::Config::default().constrain_bullets,
            };
            let input = SummaryInput {
                observation,
                user_text: page.question.clone().unwrap_or_else(|| "Summarize this page".into()),
                question: page.question.clone(),
                collection: None,
            };
            deps.debug.event("bench.page", json!({ "name": page.name, "engine": name }));
            let started = Instant::now();
            runtime.block_on(summary::run(job.clone(), input, deps));
            let total_ms = started.elapsed().as_secs_f64() * 1000.0;
            let state = job.snapshot();
            let citations = state.citations();
            let mut record = measure(&state.text, &citations, &page_text);
            record["name"] = json!(page.name);
            record["kind"] = json!(page.kind);
            record["question"] = json!(page.question);
            record["summary"] = json!(state.text);
            record["notice"] = json!(state.notice);
            record["error"] = json!(state.error);
            record["grounding"] = json!(state.grounding);
            record["first_text_ms"] = json!(state.first_text_ms);
            record["total_ms"] = json!(total_ms);
            record["chars"] = json!(state.coverage.chars_total);
            eprintln!(
                "    {model} {:<28} {:>5.0} ms  shown {} dropped {}  {}",
                page.name,
                total_ms,
                state.grounding.model_sentences_shown,
                state.grounding.model_sentences_dropped,
                state.error.as_ref().map(|e| e.to_string()).unwrap_or_default()
            );
            records.push(record);
        }
        report.insert(name.to_string(), json!({ "model": model, "pages": records, "totals": totals(&records) }));
    }
    println!("{}", Value::Object(report));
    Ok(ExitCode::SUCCESS)
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    values.retain(|v| v.is_finite());
    values.sort_by(f64::total_cmp);
    (!values.is_empty()).then(|| values[values.len() / 2])
}

/// The totals the targets are read from.
fn totals(records: &[Value]) -> Value {
    let sum = |key: &str| records.iter().map(|r| r[key].as_u64().unwrap_or(0)).sum::<u64>();
    let summaries = records.iter().filter(|r| r["question"].is_null()).count().max(1) as f64;
    let sentences = sum("sentences");
    let shown: u64 = records.iter().map(|r| r["grounding"]["model_sentences_shown"].as_u64().unwrap_or(0)).sum();
    let dropped: u64 = records.iter().map(|r| r["grounding"]["model_sentences_dropped"].as_u64().unwrap_or(0)).sum();
    let contributed =
        records.iter().filter(|r| r["grounding"]["model_sentences_shown"].as_u64().unwrap_or(0) > 0).count();
    let citations = sum("citations");
    json!({
        "pages": records.len(),
        "errors": records.iter().filter(|r| !r["error"].is_null()).count(),
        "sentences": sentences,
        "support_rate": if sentences == 0 { 1.0 } else { sum("supported") as f64 / sentences as f64 },
        "summaries_with_loop": records.iter().filter(|r| r["loops"] == true).count(),
        "summaries_with_novel_number": records.iter().filter(|r| r["novel_numbers"].as_array().is_some_and(|n| !n.is_empty())).count(),
        "citations_per_summary": citations as f64 / summaries,
        "min_citations": records.iter().map(|r| r["citations"].as_u64().unwrap_or(0)).min().unwrap_or(0),
        "citations_verbatim": if citations == 0 { 1.0 } else { sum("citations_verbatim") as f64 / citations as f64 },
        "first_text_ms_median": median(records.iter().filter_map(|r| r["first_text_ms"].as_f64()).collect()),
        "first_text_ms_max": records.iter().filter_map(|r| r["first_text_ms"].as_f64()).fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v)))),
        "total_ms_median": median(records.iter().filter_map(|r| r["total_ms"].as_f64()).collect()),
        "model_sentences_shown": shown,
        "model_sentences_dropped": dropped,
        "model_dropped_share": if shown + dropped == 0 { 0.0 } else { dropped as f64 / (shown + dropped) as f64 },
        "pages_with_model_sentence": contributed,
        "model_contribution_rate": contributed as f64 / records.len().max(1) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_measures_what_it_says() {
        let page = "River otters were seen near the old mill in 2015. Volunteers counted five otters.";
        let summary = "- River otters were seen near the old mill in 2015. [1]\n\nIn short: Whales sang 12 songs in the sea. [2]\n";
        let citations = vec![json!({ "quote": "Volunteers counted five otters." }), json!({ "quote": "Otters sang…" })];
        let m = measure(summary, &citations, page);
        assert_eq!(m["sentences"], 2);
        assert_eq!(m["supported"], 1);
        assert_eq!(m["novel_numbers"], json!(["12"]));
        assert_eq!(m["citations_verbatim"], 1);
        assert_eq!(m["loops"], false);
        assert!(loops("it was tailored tailored tailored here"));
        assert!(loops("a b a b a b"));
        assert!(!loops("a b a b c"));
    }
}
