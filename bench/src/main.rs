//! `laika-bench`: Laika's benchmarks, run with `cargo xtask bench …`.
//!
//! `laika-bench extraction` measures how well Laika finds a page's main text, next to two
//! published Rust extractors (rs-trafilatura and dom_smoothie), on two third-party corpora read
//! from `shared/corpora/`: the Zyte article-extraction benchmark and the WCXB development split.
//! Each corpus is scored with its authors' own metric (see [`metrics`]), so the numbers compare
//! with the ones they publish. It prints a table, Laika's worst pages, and writes every number
//! to `target/bench/extraction.json`.
//!
//! It runs on one thread, one extractor call at a time, so the per-page times are comparable.

mod corpus;
mod extractors;
mod metrics;
mod readability;
mod report;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use corpus::{CorpusName, Page};
use extractors::{Extractor, Failure};
use report::{CorpusResults, PageResult, PageScore, ScoredRun};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Parser)]
#[command(name = "laika-bench", about = "Laika's benchmarks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Score main-text extraction on the Zyte and WCXB corpora, each with its own metric.
    Extraction(ExtractionArgs),
    /// Check Laika's titles against Mozilla's Readability test pages.
    Readability,
}

#[derive(Args)]
struct ExtractionArgs {
    /// Score only the first N pages of each corpus (in id order), for a quick run.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Which corpus to score.
    #[arg(long, value_enum, default_value_t = CorpusChoice::All)]
    corpus: CorpusChoice,
    /// Run only this extractor; repeat for several. All three when omitted.
    #[arg(long, value_enum, value_name = "EXTRACTOR")]
    only: Vec<Extractor>,
    /// How many of Laika's worst pages to list per corpus.
    #[arg(long, value_name = "K", default_value_t = 10)]
    worst: usize,
    /// Also write every extractor's output to DIR/<corpus>/<extractor>.json, in the format
    /// the corpus's own evaluation script reads.
    #[arg(long, value_name = "DIR")]
    save_outputs: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CorpusChoice {
    Zyte,
    Wcxb,
    All,
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Extraction(args) => extraction(&args),
        Command::Readability => {
            let root = workspace_root();
            readability::run(&corpus::corpora_dir(&root), &target_dir(&root).join("bench/readability.json"))
        }
    }
}

/// The workspace this crate was built in (its manifest's parent directory).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

/// The workspace's target directory, where the report goes: `$CARGO_TARGET_DIR` when cargo
/// was told to build elsewhere, else `<workspace>/target`.
fn target_dir(workspace_root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_root.join("target"),
    }
}

fn extraction(args: &ExtractionArgs) -> Result<()> {
    let root = workspace_root();
    let corpora_dir = corpus::corpora_dir(&root);
    // The selected extractors, each once, always in the same order.
    let extractors: Vec<Extractor> = if args.only.is_empty() {
        Extractor::ALL.to_vec()
    } else {
        Extractor::ALL.into_iter().filter(|e| args.only.contains(e)).collect()
    };
    let corpora: Vec<CorpusName> = match args.corpus {
        CorpusChoice::Zyte => vec![CorpusName::Zyte],
        CorpusChoice::Wcxb => vec![CorpusName::Wcxb],
        CorpusChoice::All => vec![CorpusName::Zyte, CorpusName::Wcxb],
    };
    extractors::silence_extractor_panics();

    let mut corpus_reports = serde_json::Map::new();
    let mut printed = String::new();
    for corpus in corpora {
        let mut pages = match corpus {
            CorpusName::Zyte => corpus::load_zyte(&corpora_dir)?,
            CorpusName::Wcxb => corpus::load_wcxb_dev(&corpora_dir)?,
        };
        if let Some(limit) = args.limit {
            pages.truncate(limit);
        }
        let (results, outputs) = score_corpus(corpus, &pages, &extractors, args.save_outputs.is_some())?;
        if let Some(dir) = &args.save_outputs {
            save_outputs(dir, corpus, &outputs)?;
        }
        let summary = report::summarize(&results);
        let laika_pages = report::laika_pages_worst_first(&results);
        printed.push_str(&report::table(&summary));
        printed.push('\n');
        if extractors.contains(&Extractor::Laika) && args.worst > 0 {
            printed.push_str(&report::worst_table(corpus, &laika_pages, args.worst));
            printed.push('\n');
        }
        corpus_reports.insert(corpus.key().to_string(), report::corpus_json(&summary, &laika_pages));
    }
    print!("{printed}");

    let report = serde_json::json!({
        "benchmark": "extraction",
        "corpora_dir": corpora_dir,
        "limit": args.limit,
        "extractors": extractors.iter().map(|e| e.key()).collect::<Vec<_>>(),
        "corpora": corpus_reports,
    });
    let out_dir = target_dir(&root).join("bench");
    std::fs::create_dir_all(&out_dir).with_context(|| format!("cannot create {}", out_dir.display()))?;
    let out_path = out_dir.join("extraction.json");
    let json = serde_json::to_string_pretty(&report).context("cannot serialise the report")?;
    std::fs::write(&out_path, json).with_context(|| format!("cannot write {}", out_path.display()))?;
    println!("wrote {}", out_path.display());
    Ok(())
}

/// Every extractor's text per page id, kept only for `--save-outputs`.
type Outputs = BTreeMap<Extractor, BTreeMap<String, String>>;

/// Runs every extractor on every page, one call at a time, and scores each output.
fn score_corpus(
    corpus: CorpusName,
    pages: &[Page],
    extractors: &[Extractor],
    keep_outputs: bool,
) -> Result<(CorpusResults, Outputs)> {
    let started = Instant::now();
    let mut results = Vec::with_capacity(pages.len());
    let mut outputs = Outputs::new();
    for (done, page) in pages.iter().enumerate() {
        if done > 0 && done % 100 == 0 {
            eprintln!("  {corpus}: {done}/{} pages, {:.0} s", pages.len(), started.elapsed().as_secs_f64());
        }
        let html = page.load_html()?;
        let mut runs = BTreeMap::new();
        for &extractor in extractors {
            let run = extractor.run(&html, &page.url);
            if let Some(failure) = &run.failure {
                let (kind, message) = match failure {
                    Failure::Error(message) => ("error", message),
                    Failure::Panic(message) => ("panic", message),
                };
                eprintln!("  {corpus}/{} {}: {kind}: {message}", page.id, extractor.key());
            }
            let score = match corpus {
                CorpusName::Zyte => PageScore::Zyte(metrics::zyte::score_page(&run.text, &page.main_text)),
                CorpusName::Wcxb => {
                    PageScore::Wcxb(metrics::wcxb::score_page(&run.text, &page.main_text, &page.with, &page.without))
                }
            };
            runs.insert(
                extractor,
                ScoredRun {
                    millis: run.elapsed.as_secs_f64() * 1000.0,
                    empty: metrics::words(&run.text).is_empty(),
                    failure: run.failure,
                    score,
                },
            );
            if keep_outputs {
                outputs.entry(extractor).or_default().insert(page.id.clone(), run.text);
            }
        }
        results.push(PageResult {
            id: page.id.clone(),
            url: page.url.clone(),
            page_type: page.page_type.clone(),
            runs,
        });
    }
    eprintln!("  {corpus}: {} pages in {:.0} s", pages.len(), started.elapsed().as_secs_f64());
    Ok((CorpusResults { corpus, extractors: extractors.to_vec(), pages: results }, outputs))
}

/// Writes the outputs as the corpora's scripts read predictions: Zyte's `{id: {"articleBody":
/// text}}`, WCXB's `{id: text}`.
fn save_outputs(dir: &Path, corpus: CorpusName, outputs: &Outputs) -> Result<()> {
    let corpus_dir = dir.join(corpus.key());
    std::fs::create_dir_all(&corpus_dir).with_context(|| format!("cannot create {}", corpus_dir.display()))?;
    for (extractor, texts) in outputs {
        let json = match corpus {
            CorpusName::Zyte => serde_json::to_string(
                &texts
                    .iter()
                    .map(|(id, text)| (id.as_str(), serde_json::json!({ "articleBody": text })))
                    .collect::<BTreeMap<_, _>>(),
            ),
            CorpusName::Wcxb => serde_json::to_string(texts),
        }
        .context("cannot serialise the outputs")?;
        let path = corpus_dir.join(format!("{}.json", extractor.key()));
        std::fs::write(&path, json).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
