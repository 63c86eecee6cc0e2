//! `laika-host`: Laika's trusted native half. Started by a browser (or with `laika-host native`)
//! it speaks native messaging on stdio ([`transport`], [`api`]); from a terminal it offers the
//! protocol tools (`validate`, `render`, `parse-output`, `observe`), the whole summary pipeline on
//! a file (`summarize`), `history` and `model` management, and `install` (registering the host
//! with the browsers). The work is done by the `laika_host` library (`src/lib.rs`), which the
//! Safari static library shares.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use laika_host::{
    bench, cli, collections_commands, daemon, init_logging, install, lark, lavs_commands, librarian_commands,
    notes_commands, proxy,
};
use laika_shared::html::HtmlDom;
use laika_shared::observe::{ObserveOptions, observe_chunk};
use laika_shared::parse::{ModelReply, SummaryFormat, parse_model_output};
use laika_shared::render::{Doc, sanitize, to_html};
use laika_shared::tools::ObserveDomArgs;
use laika_shared::{markdown, packet};
use serde_json::{Value, json};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "laika-host", version, about = "Laika's native host and command-line tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Speak native messaging on stdin/stdout (what a browser starts the host for): through the
    /// daemon, started if none runs, so every browser shares one engine and one history.
    Native {
        /// Serve in this process instead of through the daemon.
        #[arg(long)]
        in_process: bool,
    },
    /// Check a laika.llmcp packet against every rule of v1; exits 1 when it breaks any.
    Validate {
        /// The packet file, or `-` for standard input.
        packet: PathBuf,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Render a response packet (or a bare render document) through the sanitiser.
    Render {
        /// The packet or document file, or `-` for standard input.
        packet: PathBuf,
        #[arg(long, value_enum, default_value_t = RenderFormat::Html)]
        format: RenderFormat,
    },
    /// Observe an HTML page the way the content script observes a live one; prints the
    /// observation JSON (a chunk of it, with `--cursor`).
    Observe(ObserveArgs),
    /// Read raw model output the way the agent core does and print what it yields.
    ParseOutput {
        /// The model output file, or `-` for standard input.
        output: PathBuf,
    },
    /// Summarize an HTML page offline: observe, read it whole with the engine, ground, store.
    Summarize(cli::SummarizeArgs),
    /// Ask one planning step for a goal on an HTML page (gated tool calls and a render).
    Plan(cli::PlanArgs),
    /// The stored conversations.
    #[command(subcommand)]
    History(cli::HistoryCommand),
    /// Proposed actions waiting for the user's answer: list them, approve or deny one (through
    /// the daemon, so the browser's card and the Lark bus see the answer).
    #[command(subcommand)]
    Approvals(cli::ApprovalsCommand),
    /// Local models: install (the default, or one of the catalogue `model list --catalogue` shows),
    /// list, status.
    #[command(subcommand)]
    Model(cli::ModelCommand),
    /// Register the host with the browsers (user-scope native-messaging manifests on Linux and
    /// macOS), or with `--uninstall` remove it.
    Install(install::InstallArgs),
    /// Run the daemon: the engine, the jobs and the history every browser shares (through the
    /// native-messaging proxy, on a Unix socket in the data directory), and the Lark v1 hub on
    /// `ws://127.0.0.1:PORT/ws` (`daemon_port` in config.json unless given).
    Daemon(daemon::DaemonArgs),
    /// The Lark hub's members and channels.
    #[command(subcommand)]
    Lark(lark::LarkCommand),
    /// LAVS local services: add DIR, list, remove NAME (served by the daemon on its port).
    #[command(subcommand)]
    Lavs(lavs_commands::LavsCommand),
    /// The Librarian's wire format: `parse FILE|-` checks a response and prints it as JSON.
    #[command(subcommand)]
    Librarian(librarian_commands::LibrarianCommand),
    /// The notebook: list, show, add, export (markdown, text, json, csv, pdf), undo.
    #[command(subcommand)]
    Notes(notes_commands::NotesCommand),
    /// Collections of sources: list, create, capture, add-note, sources, transform, ask.
    #[command(subcommand)]
    Collections(collections_commands::CollectionsCommand),
    #[command(hide = true)]
    Bench(bench::BenchArgs),
}

#[derive(clap::Args)]
struct ObserveArgs {
    /// The HTML file, or `-` for standard input.
    page: PathBuf,
    /// The page's URL (links are resolved and redacted against it).
    #[arg(long, default_value = "about:blank")]
    url: String,
    #[arg(long)]
    max_chars: Option<u32>,
    #[arg(long)]
    max_elements: Option<u32>,
    #[arg(long)]
    max_blocks: Option<u32>,
    #[arg(long)]
    max_primary_chars: Option<u32>,
    #[arg(long)]
    max_outline: Option<u32>,
    #[arg(long)]
    max_outline_chars: Option<u32>,
    #[arg(long)]
    max_items: Option<u32>,
    #[arg(long)]
    max_item_chars: Option<u32>,
    #[arg(long)]
    max_comments: Option<u32>,
    #[arg(long)]
    max_comment_chars: Option<u32>,
    /// Observe only inside the element with this handle.
    #[arg(long)]
    root_handle_id: Option<String>,
    /// Character offset into the page text: prints `{observation, cursor, done}`.
    #[arg(long)]
    cursor: Option<u64>,
    /// The whole page, no budgets.
    #[arg(long, conflicts_with_all = ["max_chars", "cursor"])]
    full: bool,
}

impl ObserveArgs {
    fn options(&self) -> ObserveOptions {
        if self.full {
            return ObserveOptions::unbounded();
        }
        ObserveOptions::from_args(&ObserveDomArgs {
            max_chars: self.max_chars,
            max_elements: self.max_elements,
            max_blocks: self.max_blocks,
            max_primary_chars: self.max_primary_chars,
            max_outline: self.max_outline,
            max_outline_chars: self.max_outline_chars,
            max_items: self.max_items,
            max_item_chars: self.max_item_chars,
            max_comments: self.max_comments,
            max_comment_chars: self.max_comment_chars,
            root_handle_id: self.root_handle_id.clone(),
            cursor: self.cursor,
            debug: None,
        })
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum RenderFormat {
    Html,
    Text,
    Json,
}

fn read_input(path: &PathBuf) -> Result<String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("reading standard input")?;
        return Ok(text);
    }
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Whether the browser started us: Chrome passes the extension origin, Firefox the host
/// manifest's path and the add-on id.
fn started_by_browser(args: &[String]) -> bool {
    match args {
        [_, origin, ..] if origin.starts_with("chrome-extension://") => true,
        [_, manifest, _addon_id] => manifest.ends_with(".json") && std::path::Path::new(manifest).is_file(),
        _ => false,
    }
}

fn main() -> ExitCode {
    quiet_library_backtraces();
    if let Err(missing) = laika_host::cpu_baseline() {
        eprintln!(
            "laika-host: LAIKA_CPU_UNSUPPORTED: this build needs an x86-64-v3 CPU (AVX2, FMA, BMI2; \
             Intel Haswell / AMD Excavator or newer); this CPU lacks {missing}. Build it for this \
             CPU with RUSTFLAGS=\"-C target-cpu=native\" (README, \"CPU baseline\")."
        );
        return ExitCode::from(3);
    }
    init_logging();
    let args: Vec<String> = std::env::args().collect();
    if started_by_browser(&args) {
        return proxy::serve_native_messaging(false);
    }
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("laika-host: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Errors inside the engine's libraries do not capture backtraces, even when RUST_BACKTRACE is
/// set for panics: candle captures one for every error, and loading a GGUF reads its optional
/// metadata keys by trying each and discarding the error, which (measured: `laika-host native`
/// with the default model, RUST_BACKTRACE=1) walked the stack through the binary's unwind tables
/// and kept 88 MB more resident (293 → 381 MB). Panics still print theirs; an explicit
/// RUST_LIB_BACKTRACE is respected.
fn quiet_library_backtraces() {
    if std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        // SAFETY: the first statement of `main`: no other thread exists yet.
        unsafe { std::env::set_var("RUST_LIB_BACKTRACE", "0") };
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Native { in_process } => Ok(proxy::serve_native_messaging(in_process)),
        Command::Validate { packet: path, json } => {
            let text = read_input(&path)?;
            let violations = match serde_json::from_str::<Value>(&text) {
                Ok(value) => packet::validate(&value),
                Err(e) => vec![laika_shared::Violation::new(laika_shared::Code::ParseFailed, "", e.to_string())],
            };
            if json {
                println!("{}", json!({ "valid": violations.is_empty(), "violations": violations }));
            } else if violations.is_empty() {
                println!("valid laika.llmcp v1 packet");
            } else {
                for violation in &violations {
                    println!("{violation}");
                }
            }
            Ok(if violations.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Render { packet: path, format } => {
            let text = read_input(&path)?;
            let value: Value = serde_json::from_str(&text).context("the input is not JSON")?;
            // A response packet renders its assistant.render; anything else is taken as a document.
            let render = value.pointer("/assistant/render").unwrap_or(&value);
            let sanitized = sanitize(render);
            for dropped in &sanitized.dropped {
                eprintln!("dropped: {dropped}");
            }
            print_doc(&sanitized.doc, format)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Observe(args) => {
            if args.max_chars == Some(0) {
                bail!("--max-chars must be at least 1");
            }
            let html = read_input(&args.page)?;
            let dom = HtmlDom::parse(&html);
            let options = args.options();
            let chunk = observe_chunk(&dom, &args.url, &options);
            let out = if args.cursor.is_some() {
                serde_json::to_value(&chunk)?
            } else {
                serde_json::to_value(&chunk.observation)?
            };
            println!("{}", serde_json::to_string_pretty(&out)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::ParseOutput { output } => {
            let text = read_input(&output)?;
            match parse_model_output(&text) {
                Ok(ModelReply::Response(response)) => {
                    println!("{}", serde_json::to_string_pretty(&response)?);
                }
                Ok(ModelReply::Planner(reply)) => {
                    let doc = match reply.summary_format {
                        SummaryFormat::Markdown => markdown::markdown_to_doc(&reply.summary),
                        SummaryFormat::Plain => Doc::from_plain_text(&reply.summary),
                    };
                    let calls: Vec<Value> = reply
                        .tool_calls
                        .iter()
                        .map(|c| json!({ "name": c.name(), "arguments": c.arguments() }))
                        .collect();
                    let out = json!({ "summary": reply.summary, "render": doc, "tool_calls": calls, "rejected": reply.rejected });
                    println!("{}", serde_json::to_string_pretty(&out)?);
                }
                Err(error) => bail!("{}: {error}", error.code()),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Summarize(args) => cli::summarize(args),
        Command::Plan(args) => cli::plan(args),
        Command::History(command) => cli::history(command),
        Command::Approvals(command) => cli::approvals(command),
        Command::Model(command) => cli::model(command),
        Command::Install(args) => install::run(args),
        Command::Daemon(args) => daemon::run(args),
        Command::Lark(command) => lark::lark(command),
        Command::Lavs(command) => lavs_commands::run(command),
        Command::Librarian(command) => librarian_commands::run(command),
        Command::Notes(command) => notes_commands::run(command),
        Command::Collections(command) => collections_commands::run(command),
        Command::Bench(args) => bench::run(args),
    }
}

fn print_doc(doc: &Doc, format: RenderFormat) -> Result<()> {
    match format {
        RenderFormat::Html => println!("{}", to_html(doc)),
        RenderFormat::Text => println!("{}", doc.plain_text()),
        RenderFormat::Json => println!("{}", serde_json::to_string_pretty(doc)?),
    }
    Ok(())
}
