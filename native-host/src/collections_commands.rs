//! `laika-host collections`: collections from a terminal. `list`, `create TITLE`, `capture ID
//! PAGE --url URL` (a saved page read with the same reader as the browser's; the browser
//! captures through `source.capture`), `add-note ID FILE|-`, `sources ID`, `transform ID TYPE
//! [--aspect A]…` (prints the note it saved), and `ask ID QUESTION` (the grounded answer across
//! the captured sources, with the engine of `summarize`).

use crate::cli::{self, EngineArgs};
use crate::notebook::{NotebookError, export, transforms};
use anyhow::Result;
use laika_shared::observation::{SOURCE_DEFAULT_CHARS, SourceShape};
use laika_shared::tools::NewSource;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Subcommand)]
pub enum CollectionsCommand {
    /// Collections, newest first.
    List {
        #[arg(long)]
        json: bool,
    },
    /// A new, empty collection; prints its id.
    Create { title: String },
    /// Reads a saved page (HTML FILE, or `-`) as a source of the collection.
    Capture {
        id: String,
        page: PathBuf,
        /// The page's address (the source's address).
        #[arg(long)]
        url: String,
        #[arg(long, value_parser = ["auto", "article", "list"], default_value = "auto")]
        mode: String,
        #[arg(long, default_value_t = SOURCE_DEFAULT_CHARS)]
        max_chars: usize,
    },
    /// Adds a note's text (FILE, or `-`) as a source, secrets removed.
    AddNote {
        id: String,
        file: PathBuf,
        #[arg(long)]
        title: Option<String>,
    },
    /// The collection's sources and their state.
    Sources {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Makes a note of the captured sources (briefing, comparison_table, timeline) and prints it.
    Transform {
        id: String,
        #[arg(value_parser = ["briefing", "comparison_table", "timeline"])]
        kind: String,
        /// A comparison table's column (repeat for more).
        #[arg(long = "aspect")]
        aspects: Vec<String>,
    },
    /// Answers a question from the collection's captured sources, every quote cited with its source.
    Ask {
        id: String,
        question: String,
        #[command(flatten)]
        engine: EngineArgs,
    },
}

pub fn run(command: CollectionsCommand) -> Result<ExitCode> {
    let book = crate::notes_commands::open()?;
    let failed = |e: NotebookError| anyhow::anyhow!("{e}");
    match command {
        CollectionsCommand::List { json } => {
            let collections = book.collections().map_err(failed)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&collections)?);
            } else if collections.is_empty() {
                println!("No collections yet.");
            }
            for c in collections.iter().filter(|_| !json) {
                println!("{:<8} {:>3} source(s)  {}", c.id, c.sources, c.title);
            }
        }
        CollectionsCommand::Create { title } => println!("{}", book.create_collection(&title, &[]).map_err(failed)?.id),
        CollectionsCommand::Capture { id, page, url, mode, max_chars } => {
            let observation = cli::observe_page(&page, &url)?;
            let shape = match mode.as_str() {
                "article" => Some(SourceShape::Article),
                "list" => Some(SourceShape::List),
                _ => None,
            };
            let row = book.store_capture(&id, &url, &observation, shape, max_chars).map_err(failed)?;
            println!("{}  {} ({} characters)", row.id, row.title, row.chars);
        }
        CollectionsCommand::AddNote { id, file, title } => {
            let text = cli::read_page(&file)?;
            let rows = book.add_sources(&id, &[NewSource::Note { title, text }]).map_err(failed)?;
            if let Some(row) = rows.last() {
                println!("{}  {}", row.id, row.title);
            }
        }
        CollectionsCommand::Sources { id, json } => {
            let rows = book.sources(&id).map_err(failed)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&rows)?);
            } else if rows.is_empty() {
                println!("No sources yet.");
            }
            for row in rows.iter().filter(|_| !json) {
                let place = if row.url.is_empty() { "(note)".to_string() } else { row.url.clone() };
                println!("{:<8} {:<9} {:>6} chars  {}  {place}", row.id, row.status, row.chars, row.title);
            }
        }
        CollectionsCommand::Transform { id, kind, aspects } => {
            let config: Option<Map<String, Value>> =
                (!aspects.is_empty()).then(|| json!({ "aspects": aspects }).as_object().cloned().unwrap_or_default());
            let note = transforms::run(&book, &id, &kind, config.as_ref()).map_err(failed)?;
            eprintln!("Saved as {}.", note.id);
            print!("{}", export::to_markdown(&note));
        }
        CollectionsCommand::Ask { id, question, engine } => return ask(&id, question, &engine),
    }
    Ok(ExitCode::SUCCESS)
}

fn ask(id: &str, question: String, engine: &EngineArgs) -> Result<ExitCode> {
    let runtime = crate::runtime()?;
    let state = runtime.block_on(async {
        let host = cli::open_host(engine).await?;
        let turn = crate::prompt::TurnRef { conversation_id: crate::prompt::new_id(), turn: 1 };
        let job = crate::api::spawn_collection_ask(&host, id, question, turn)
            .map_err(|e| anyhow::anyhow!("{}: {}", e.code, e.message))?;
        let mut stdout = std::io::stdout();
        let state = crate::summary::follow(&job, |piece| {
            let _ = std::io::Write::write_all(&mut stdout, piece.as_bytes());
            let _ = std::io::Write::flush(&mut stdout);
        })
        .await;
        anyhow::Ok(state)
    })?;
    if let Some(error) = &state.error {
        anyhow::bail!(
            "{}: {}",
            error["code"].as_str().unwrap_or("SUMMARY_FAILED"),
            error["message"].as_str().unwrap_or("")
        );
    }
    cli::print_citations(&state.citations(), state.notice.as_deref());
    Ok(ExitCode::SUCCESS)
}
