//! `laika-host librarian`: the Librarian from a terminal.
//! - `parse FILE|- [--strict] [--fallback-only] [--max-operations N]` reads a response
//!   (`xml_attrless`, [`laika_shared::librarian`]) and prints it as JSON, or its error code and
//!   every diagnostic with exit status 2, so a response a model wrote can be checked by hand;
//! - `run --goal G --scope S [--taxonomy T…]` runs it over the notebook ([`crate::librarian`])
//!   and prints the changes it proposes, each an approval (`laika-host approvals approve ID`);
//! - `runs` lists recent runs, `show RUN` prints one's record (every attempt's raw text).

use crate::librarian::{self, RunRecord};
use anyhow::{Context, Result};
use laika_shared::librarian::{ParseOptions, parse_response};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Subcommand)]
pub enum LibrarianCommand {
    /// Parse a response: FILE, or `-` for standard input.
    Parse {
        file: PathBuf,
        /// Unknown tags are errors instead of being skipped.
        #[arg(long)]
        strict: bool,
        /// The strict fallback mode: only create_note and rewrite_note are accepted.
        #[arg(long)]
        fallback_only: bool,
        /// More operations than this are refused.
        #[arg(long, default_value_t = ParseOptions::default().max_operations)]
        max_operations: usize,
    },
    /// Proposes changes to the notes in scope; each is an approval card.
    Run {
        #[arg(long)]
        goal: String,
        /// notebook, tag:TAG, path:PREFIX or note:ID[,ID…]
        #[arg(long, default_value = "notebook")]
        scope: String,
        /// A topic new notes may be filed under (repeat for more).
        #[arg(long = "taxonomy")]
        taxonomy: Vec<String>,
        #[arg(long, default_value_t = 3)]
        max_operations: usize,
        /// Every operation kind, not only create_note and rewrite_note.
        #[arg(long)]
        all_kinds: bool,
        /// Free decoding instead of the response grammar (to measure what the grammar adds).
        #[arg(long)]
        no_grammar: bool,
        /// A prompt pack folder (manifest.json and its stage files) instead of the built-in one.
        #[arg(long)]
        prompt_pack: Option<PathBuf>,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        engine: crate::cli::EngineArgs,
    },
    /// Recent runs, newest first.
    Runs,
    /// One run's record: prompt-pack hashes, every attempt's raw text, its operations.
    Show { run_id: String },
}

pub fn run(command: LibrarianCommand) -> Result<ExitCode> {
    let (file, strict, fallback_only, max_operations) = match command {
        LibrarianCommand::Parse { file, strict, fallback_only, max_operations } => {
            (file, strict, fallback_only, max_operations)
        }
        LibrarianCommand::Runs => {
            let book = crate::notes_commands::open()?;
            for run in book.runs(50).map_err(|e| anyhow::anyhow!("{e}"))? {
                println!(
                    "{}  {}  {:<8}  {}  ({})",
                    run["id"].as_str().unwrap_or_default(),
                    run["created_at"].as_str().unwrap_or_default(),
                    run["status"].as_str().unwrap_or_default(),
                    run["goal"].as_str().unwrap_or_default(),
                    run["scope"].as_str().unwrap_or_default()
                );
            }
            return Ok(ExitCode::SUCCESS);
        }
        LibrarianCommand::Show { run_id } => {
            let book = crate::notes_commands::open()?;
            match book.run_record(&run_id).map_err(|e| anyhow::anyhow!("{e}"))? {
                Some(record) => println!("{}", serde_json::to_string_pretty(&record)?),
                None => anyhow::bail!("LIBRARIAN_NOT_FOUND: no run {run_id:?} (`laika-host librarian runs`)"),
            }
            return Ok(ExitCode::SUCCESS);
        }
        LibrarianCommand::Run {
            goal,
            scope,
            taxonomy,
            max_operations,
            all_kinds,
            no_grammar,
            prompt_pack,
            json,
            engine,
        } => {
            let pack = match &prompt_pack {
                Some(dir) => librarian::PromptPack::load(dir),
                None => librarian::PromptPack::built_in(),
            }
            .map_err(|e| anyhow::anyhow!(e))?;
            let options = librarian::RunOptions {
                goal,
                scope,
                taxonomy,
                max_operations,
                fallback_only: !all_kinds,
                grammar: !no_grammar,
            };
            let runtime = tokio::runtime::Runtime::new()?;
            let record = runtime.block_on(async {
                let host = crate::cli::open_host(&engine).await?;
                let engine = host.ready_engine().await;
                librarian::run(&host, engine, &pack, &options)
                    .await
                    .map_err(|e| anyhow::anyhow!("{}: {}", e.code, e.message))
            })?;
            if json {
                println!("{}", serde_json::to_string_pretty(&record)?);
            } else {
                print_run(&record);
            }
            return Ok(if record.status == "failed" { ExitCode::from(2) } else { ExitCode::SUCCESS });
        }
    };
    let mut text = String::new();
    if file.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text).context("cannot read standard input")?;
    } else {
        text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
    }
    match parse_response(&text, &ParseOptions { strict, max_operations, fallback_only }) {
        Ok(response) => {
            println!("{}", serde_json::to_string_pretty(&response)?);
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            eprintln!("{error}");
            Ok(ExitCode::from(2))
        }
    }
}

fn print_run(record: &RunRecord) {
    let attempts = record.attempts.len();
    println!(
        "Run {} ({}, {} attempt{}, {:.1} s): {}",
        record.id,
        record.model,
        attempts,
        if attempts == 1 { "" } else { "s" },
        record.ms as f64 / 1000.0,
        record.status
    );
    if let Some(code) = &record.code {
        println!("  {code}");
        if let Some(last) = record.attempts.last() {
            for d in last.diagnostics.iter().take(5) {
                println!("  - {}: {}", d.at, d.message);
            }
        }
        println!("  The model's text is kept: laika-host librarian show {}", record.id);
        return;
    }
    if let Some(response) = &record.response {
        println!("  {}", response.summary);
    }
    for proposed in &record.proposed {
        let op = &proposed["operation"];
        let target = op["target"]["note_id"].as_str().or(op["target"]["path"].as_str()).unwrap_or_default();
        println!(
            "\n  {} {} \"{}\"",
            op["kind"].as_str().unwrap_or_default(),
            target,
            op["title"].as_str().unwrap_or_default()
        );
        for line in op["body_markdown"].as_str().unwrap_or_default().lines().take(6) {
            println!("    | {line}");
        }
        println!("    why: {}", op["reason"].as_str().unwrap_or_default());
        println!("    approve: laika-host approvals approve {}", proposed["approval_id"].as_str().unwrap_or_default());
    }
    for dropped in &record.dropped {
        println!("  dropped {}: {}", dropped.at, dropped.message);
    }
}
