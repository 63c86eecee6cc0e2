//! `laika-host bench …` (hidden): the measurements behind `cargo xtask bench engine` and
//! `cargo xtask bench host`. Each prints one JSON object on stdout.
//!
//! - `bench engine --text FILE`: loads the embedded engine, runs one generation over the text
//!   (the summary system prompt, the text as the user message, greedy) and then the real summary
//!   service over the same text; prints load time, token counts and speeds, time to first token,
//!   first summary text and RSS.
//! - `bench history [--appends N]`: appends N realistic turns (a request with a 10 KB page
//!   document and its response) to a fresh SQLite history under the default redaction.
//! - `bench hub [--clients N]`: the Lark hub under load (`crate::hub_bench`).
//! - `bench prompt`: prints the summary system prompt, so that other engines can be given the
//!   very same one.
//!
//! Threads: candle (mistral.rs's tensor library) computes on rayon pools, which size themselves
//! from `RAYON_NUM_THREADS` when they are first used (candle's matmul reads it too). `--threads N`
//! sets it at the start of the command, before the runtime or any engine thread exists.

use crate::history::{History, StoragePolicy};
use crate::prompt::{self, SUMMARY_DOC_ID, TurnRef};
use anyhow::{Context, Result};
use laika_shared::markdown::markdown_to_doc;
use laika_shared::observation::Observation;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    command: BenchCommand,
}

#[derive(clap::Subcommand)]
enum BenchCommand {
    /// One generation and one summary with the embedded engine; prints speeds as JSON.
    Engine(EngineBenchArgs),
    /// SQLite history appends per second, with the default storage redaction.
    History {
        #[arg(long, default_value_t = 2000)]
        appends: usize,
    },
    /// Print the summary system prompt (for the llama.cpp comparison).
    Prompt,
    /// The planning suite: first proposed action per (page, goal) case, actions on read-only goals,
    /// the gate's verdicts (crate::plan_suite).
    PlanSuite(crate::plan_suite::PlanSuiteArgs),
    /// What the summary service shows on real pages, measured as shared/notes/quality-probe.md
    /// defines it (crate::quality).
    Quality(crate::quality::QualityArgs),
    /// The Lark hub under load: N signed-in connections to a real `laika-host daemon`, fan-out
    /// latency, memory per idle connection, messages per second (crate::hub_bench).
    Hub(crate::hub_bench::HubBenchArgs),
    /// The Librarian on notes made from corpus pages, with and without the response grammar
    /// (crate::librarian_bench).
    Librarian(crate::librarian_bench::LibrarianBenchArgs),
    /// Write a copy of a GGUF with every matrix that lacks a SIMD kernel in candle re-quantised
    /// (the copy the host loaded before Q4_1 had a kernel of Laika's own; for A/B runs).
    Requantize {
        /// Installed model name or path to a GGUF.
        #[arg(long, default_value = crate::models::DEFAULT_MODEL)]
        model: String,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "q8_0", value_parser = ["q8_0", "q4_0"])]
        to: String,
    },
}

#[derive(clap::Args)]
struct EngineBenchArgs {
    /// The text to summarize (the user message).
    #[arg(long)]
    text: PathBuf,
    /// Installed model name or path to a GGUF.
    #[arg(long, default_value = crate::models::DEFAULT_MODEL)]
    model: String,
    #[arg(long, default_value = "q8", value_parser = crate::host::PRECISIONS)]
    precision: String,
    /// Most tokens to generate.
    #[arg(long, default_value_t = 128)]
    max_tokens: usize,
    /// Compute threads (sets RAYON_NUM_THREADS); default: RAYON_NUM_THREADS, else every core.
    #[arg(long)]
    threads: Option<usize>,
    /// Run a second generation over a different text of the same length (the halves swapped):
    /// shows what mistral.rs's prefix cache saves when only the fixed system prompt is shared.
    #[arg(long)]
    repeat: bool,
    /// Do not compute the shared prompt start at load (what the prefix cache saves).
    #[arg(long)]
    no_warm: bool,
    /// Skip the summary-service measurement.
    #[arg(long)]
    no_summary: bool,
    /// Measure only the summary service, as a freshly loaded host serves its first summary
    /// (no generation over the whole text before it).
    #[arg(long, conflicts_with_all = ["no_summary", "repeat"])]
    summary_only: bool,
    /// The page URL the summary's observation carries.
    #[arg(long, default_value = "https://example.com/article")]
    url: String,
    /// The page title the summary's observation carries.
    #[arg(long, default_value = "")]
    title: String,
}

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    match args.command {
        BenchCommand::Engine(args) => {
            if let Some(threads) = args.threads {
                anyhow::ensure!(threads > 0, "--threads must be at least 1");
                // SAFETY: no other thread exists yet: this runs before the runtime starts, and
                // nothing before it (argument parsing, logging set-up) spawns threads.
                unsafe { std::env::set_var("RAYON_NUM_THREADS", threads.to_string()) };
            }
            engine(args)
        }
        BenchCommand::History { appends } => history(appends),
        BenchCommand::Prompt => {
            print!("{}", prompt::SUMMARY_SYSTEM);
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Requantize { model, out, to } => requantize(&model, &out, &to),
        BenchCommand::PlanSuite(args) => crate::plan_suite::run(args),
        BenchCommand::Quality(args) => crate::quality::run(args),
        BenchCommand::Hub(args) => crate::hub_bench::run(args, &crate::host::data_dir()),
        BenchCommand::Librarian(args) => crate::librarian_bench::run(args),
    }
}

/// The compute threads candle will use: `RAYON_NUM_THREADS`, else every core (as candle decides).
#[cfg(feature = "embedded")]
fn compute_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A `kB` field of /proc/self/status, in MB (Linux; `None` elsewhere).
#[cfg(feature = "embedded")]
fn proc_status_mb(field: &str) -> Option<f64> {
    proc_status(field).map(|kb| kb / 1024.0)
}

#[cfg(feature = "embedded")]
fn proc_status(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[cfg(not(feature = "embedded"))]
fn requantize(_model: &str, _out: &std::path::Path, _to: &str) -> Result<ExitCode> {
    anyhow::bail!("ENGINE_NOT_BUILT: this laika-host was built without the embedded engine")
}

#[cfg(feature = "embedded")]
fn requantize(model: &str, out: &std::path::Path, to: &str) -> Result<ExitCode> {
    use candle_core::quantized::GgmlDType;
    let data_dir = crate::host::data_dir();
    let path = crate::models::resolve(&data_dir, model).with_context(|| format!("MODEL_NOT_INSTALLED: {model:?}"))?;
    let target = if to == "q4_0" { GgmlDType::Q4_0 } else { GgmlDType::Q8_0 };
    let started = Instant::now();
    let conversion = crate::engine::requant::convert(&path, out, target, crate::engine::requant::Kernels::Candle)?;
    let elapsed = started.elapsed();
    let difference = crate::engine::requant::max_relative_difference(&path, out)?;
    println!("{}", json!({ "conversion": conversion, "ms": ms(elapsed), "max_relative_difference": difference }));
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "embedded"))]
fn engine(_args: EngineBenchArgs) -> Result<ExitCode> {
    anyhow::bail!(
        "ENGINE_NOT_BUILT: this laika-host was built without the embedded engine (cargo feature `embedded`); \
         `bench engine` needs it"
    )
}

#[cfg(feature = "embedded")]
fn engine(args: EngineBenchArgs) -> Result<ExitCode> {
    use crate::debuglog::DebugLog;
    use crate::engine::mistral::{MistralEngine, Precision};
    use crate::engine::{Engine, GenerateRequest, OutputShape, Sampling};
    use crate::summary::{self, SummaryDeps, SummaryInput, SummaryJob};
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;

    let text = std::fs::read_to_string(&args.text).with_context(|| format!("cannot read {}", args.text.display()))?;
    let data_dir = crate::host::data_dir();
    let path = crate::models::resolve(&data_dir, &args.model).with_context(|| {
        format!(
            "MODEL_NOT_INSTALLED: {:?} is neither an installed model in {} nor a GGUF file",
            args.model,
            data_dir.display()
        )
    })?;
    let precision = Precision::from_name(&args.precision).unwrap_or(Precision::Q8);
    let threads = compute_threads();
    let runtime = crate::runtime()?;
    let mut out = json!({
        "engine": "mistral.rs",
        "model": path,
        "precision": args.precision,
        "threads": threads,
        "rayon_num_threads_env": std::env::var("RAYON_NUM_THREADS").ok(),
        "loadavg_before": loadavg(),
        "text_chars": text.chars().count(),
        "text_words": text.split_whitespace().count(),
    });
    // Every step adds its numbers to `out`; a failing step records its error and ends the run,
    // so what was measured before it is still printed.
    let failed = runtime.block_on(async {
        let started = Instant::now();
        let warm = (!args.no_warm).then(crate::summary::shared_prompt_start);
        let engine = MistralEngine::load(&path, precision, &crate::models::cpu_cache_dir(&data_dir), warm).await?;
        out["load_ms"] = json!(ms(started.elapsed()));
        out["rss_loaded_mb"] = json!(proc_status_mb("VmRSS"));
        out["text_tokens"] = json!(engine.count_tokens(&text).await.ok());
        progress(&format!("loaded in {:.0} ms; generating", ms(started.elapsed())));
        if !args.summary_only {
            let request = GenerateRequest {
                system: prompt::SUMMARY_SYSTEM.to_string(),
                examples: &[],
                user: text.clone(),
                max_tokens: args.max_tokens,
                sampling: Sampling::greedy(),
                shape: OutputShape::Markdown,
                copy_bias: None,
            };
            let never = CancellationToken::new();
            let generation = engine.generate(request.clone(), &mut |_: &str| {}, &never).await?;
            let first = generation.first_token.unwrap_or(generation.total);
            let after_first = generation.total.saturating_sub(first);
            let fields = json!({
                "prompt_tokens": generation.prompt_tokens,
                "completion_tokens": generation.completion_tokens,
                "finish_reason": generation.finish_reason,
                "first_token_ms": ms(first),
                "total_ms": ms(generation.total),
                "prompt_tok_s": generation.prompt_tokens as f64 / first.as_secs_f64(),
                "gen_tok_s": (generation.completion_tokens > 1 && !after_first.is_zero())
                    .then(|| (generation.completion_tokens - 1) as f64 / after_first.as_secs_f64()),
                "rss_mb": proc_status_mb("VmRSS"),
                "os_threads": proc_status("Threads"),
                "text_preview": generation.text.chars().take(200).collect::<String>(),
            });
            merge(&mut out, fields);
            progress(&format!(
                "{} prompt tokens, first token after {:.0} ms, {} tokens in {:.0} ms",
                generation.prompt_tokens,
                ms(first),
                generation.completion_tokens,
                ms(generation.total)
            ));
            if args.repeat {
                // mistral.rs keeps the KV cache of finished sequences (prefix cache, 16 entries) and
                // reuses the longest shared prefix, but 0.8.1 ignores a match that leaves no new
                // token to compute, so the very same prompt would be computed again in full. A page
                // that is not the last one shares the system prompt only, which is the case to
                // measure: the same text with its halves swapped (same length, another page).
                progress("another text of the same length (prefix cache of the system prompt)");
                let middle = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
                let swapped = format!("{}\n{}", &text[middle..], &text[..middle]);
                let again = engine
                    .generate(GenerateRequest { user: swapped, ..request.clone() }, &mut |_: &str| {}, &never)
                    .await?;
                out["repeat_prompt_tokens"] = json!(again.prompt_tokens);
                out["repeat_first_token_ms"] = json!(again.first_token.map(ms));
                out["repeat_total_ms"] = json!(ms(again.total));
                out["repeat_completion_tokens"] = json!(again.completion_tokens);
            }
        }
        if !args.no_summary {
            // The real summary service over the same text, as a page observation. It runs after
            // the generation above, so the fixed system prompt may already be in the prefix cache
            // (as in a host that has answered once).
            progress("the summary service");
            let observation = Observation {
                url: args.url.clone(),
                title: args.title.clone(),
                text: text.clone(),
                ..Default::default()
            };
            let deps = SummaryDeps {
                engine: Arc::new(engine) as Arc<dyn Engine>,
                history: None,
                // LAIKA_DEBUG=1: each chunk's engine call (prompt tokens, time to first token)
                // in llm.jsonl in the data directory, as in the host.
                debug: Arc::new(DebugLog::from_env(&data_dir)),
                // Greedy, so that runs compare; everything else as a host with the default configuration.
                sampling: Sampling::greedy(),
                constrain: crate::host::Config::default().constrain_bullets,
            };
            let job = SummaryJob::new(TurnRef { conversation_id: prompt::new_id(), turn: 1 });
            let input =
                SummaryInput { observation, user_text: "Summarize this page".into(), question: None, collection: None };
            summary::run(job.clone(), input, deps).await;
            let total = job.started.elapsed();
            let state = job.snapshot();
            out["summary_first_text_ms"] = json!(state.first_text_ms);
            out["summary_total_ms"] = json!(ms(total));
            out["summary_chunks"] = json!(state.chunks_total);
            out["summary_coverage"] = json!(state.coverage.ratio);
            out["summary_error"] = json!(state.error);
            out["summary_preview"] = json!(state.text.chars().take(300).collect::<String>());
            out["rss_after_summary_mb"] = json!(proc_status_mb("VmRSS"));
        }
        anyhow::Ok(())
    });
    out["rss_peak_mb"] = json!(proc_status_mb("VmHWM"));
    if let Err(error) = &failed {
        // The first line: candle appends a backtrace when RUST_BACKTRACE is set.
        out["error"] = json!(format!("{error:#}").lines().next().unwrap_or_default());
    }
    // The engine's threads may still be winding down; the numbers are out, so leave now.
    runtime.shutdown_background();
    println!("{}", serde_json::to_string(&out)?);
    Ok(if failed.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

#[cfg(feature = "embedded")]
fn merge(out: &mut Value, fields: Value) {
    if let (Some(out), Value::Object(fields)) = (out.as_object_mut(), fields) {
        out.extend(fields);
    }
}

#[cfg(feature = "embedded")]
fn progress(message: &str) {
    eprintln!("bench engine: {message}");
}

/// The 1-minute load average (a shared machine's numbers are only as good as it was idle).
#[cfg(feature = "embedded")]
fn loadavg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// About `chars` characters of article-like text with headings and list items.
fn page_text(chars: usize) -> String {
    const SENTENCES: &[&str] = &[
        "The river otter population in the valley has doubled since the water quality programme began in 2014.",
        "Volunteers counted 212 animals along 40 kilometres of bank during the spring survey.",
        "Researchers attribute the recovery to cleaner runoff from the farms upstream and to new fish ladders.",
        "Local schools now run a monitoring project in which pupils record tracks and spraints every week.",
        "Not everyone is pleased: some anglers report fewer trout in the pools below the old mill.",
        "The council will publish a management plan next year after a consultation with residents.",
    ];
    let mut text = String::from("H1: Otters return to the valley\n");
    let mut i = 0;
    while text.len() < chars {
        if i % 9 == 8 {
            text.push_str(&format!("H2: Section {}\n", i / 9 + 1));
        } else if i % 7 == 6 {
            text.push_str("- ");
        }
        text.push_str(SENTENCES[i % SENTENCES.len()]);
        text.push('\n');
        i += 1;
    }
    text.truncate(chars);
    text
}

/// A summary turn as the service stores it: the request with the page document and the
/// response with its render and citations.
fn summary_turn(turn: &TurnRef, observation: &Observation) -> [Value; 2] {
    let documents = vec![prompt::document(
        SUMMARY_DOC_ID,
        "web.observation.summary.v1",
        prompt::summary_content(observation, &observation.text, usize::MAX),
    )];
    let request =
        prompt::request_packet(turn, "Summarize this page", "web.summarize", json!({ "style": "concise" }), documents);
    let summary = "- The otter population has doubled since 2014.\n- Volunteers counted 212 animals.\n\
                   - Cleaner runoff and fish ladders helped.\n- Some anglers report fewer trout.\n";
    let mut response = prompt::envelope("response", "assistant", turn);
    response.insert("in_reply_to".into(), json!({ "request_id": request["id"] }));
    response.insert(
        "assistant".into(),
        json!({
            "title": format!("Summary: {}", observation.title),
            "render": markdown_to_doc(summary),
            "citations": [{ "doc_id": SUMMARY_DOC_ID, "quote": "Volunteers counted 212 animals" }],
        }),
    );
    response.insert("tool_calls".into(), json!([]));
    [request, Value::Object(response)]
}

fn history(appends: usize) -> Result<ExitCode> {
    anyhow::ensure!(appends > 0, "--appends must be at least 1");
    let dir = std::env::temp_dir().join(format!("laika-bench-history-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let db = dir.join("history.sqlite3");
    let history = History::open(&db, StoragePolicy::Redacted).map_err(|e| anyhow::anyhow!("{e}"))?;
    let observation = Observation {
        url: "https://news.example.com/2025/otters-return".into(),
        title: "Otters return to the valley".into(),
        text: page_text(10 * 1024),
        ..Default::default()
    };
    // Built beforehand: only the appends (redaction, JSON, SQLite, fsync) are timed.
    let mut conversation = prompt::new_id();
    let turns: Vec<[Value; 2]> = (0..appends)
        .map(|i| {
            if i % 10 == 0 && i > 0 {
                conversation = prompt::new_id();
            }
            summary_turn(&TurnRef { conversation_id: conversation.clone(), turn: (i % 10 + 1) as u64 }, &observation)
        })
        .collect();
    crate::summary::check_pair(&turns[0][0], &turns[0][1])
        .map_err(|e| anyhow::anyhow!("the benchmark's packets are not valid laika.llmcp: {e}"))?;
    let packet_bytes = serde_json::to_string(&turns[0][0])?.len() + serde_json::to_string(&turns[0][1])?.len();
    let mut each = Vec::with_capacity(appends);
    let started = Instant::now();
    for turn in &turns {
        let one = Instant::now();
        history.append_turn(turn, Some("bench")).map_err(|e| anyhow::anyhow!("{e}"))?;
        each.push(one.elapsed());
    }
    let seconds = started.elapsed().as_secs_f64();
    drop(history);
    let db_bytes: u64 = std::fs::read_dir(&dir)?.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum();
    each.sort();
    let at = |q: f64| ms(each[((each.len() - 1) as f64 * q).round() as usize]);
    let out = json!({
        "appends": appends,
        "seconds": seconds,
        "appends_per_s": appends as f64 / seconds,
        "append_ms_p50": at(0.5),
        "append_ms_p99": at(0.99),
        "turn_packet_bytes": packet_bytes,
        "db_bytes": db_bytes,
        "policy": StoragePolicy::Redacted.as_str(),
        "synchronous": "FULL",
    });
    let _ = std::fs::remove_dir_all(&dir);
    println!("{}", serde_json::to_string(&out)?);
    Ok(ExitCode::SUCCESS)
}
