//! `laika-host notes`: the notebook from a terminal. `list [--tag T]`, `show ID [--versions]`,
//! `add --title T FILE|-` (a note from a Markdown file, redacted like a saved artifact),
//! `export ID --format F [--out FILE]`, `undo ID`.
//!
//! The notebook is a SQLite file the daemon keeps open too; SQLite's locking lets both write,
//! so these commands open it directly rather than going through the daemon.

use crate::host;
use crate::notebook::{self, Notebook, export};
use anyhow::{Context, Result, bail};
use laika_shared::tools::ArtifactSaveArgs;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Subcommand)]
pub enum NotesCommand {
    /// Notes, most recently changed first.
    List {
        #[arg(long)]
        tag: Option<String>,
        #[arg(long, default_value_t = 100)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// One note as Markdown; with --versions, every version and what made it.
    Show {
        id: String,
        #[arg(long)]
        versions: bool,
    },
    /// Adds a note from a Markdown FILE (or `-`), secrets removed as for a saved artifact.
    Add {
        file: PathBuf,
        #[arg(long)]
        title: String,
        #[arg(long = "tag")]
        tags: Vec<String>,
        /// Where it came from (a page's address).
        #[arg(long)]
        source: Option<String>,
    },
    /// Writes a note as markdown, text, json, csv or pdf (to --out, or standard output).
    Export {
        id: String,
        #[arg(long, value_parser = ["markdown", "text", "json", "csv", "pdf"], default_value = "markdown")]
        format: String,
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Undoes the latest change to a note not undone yet (a new version restores the one before).
    Undo { id: String },
}

pub fn open() -> Result<Notebook> {
    let dir = host::data_dir();
    Notebook::open(&dir.join(notebook::FILE)).map_err(|e| anyhow::anyhow!("{e}"))
}

pub fn run(command: NotesCommand) -> Result<ExitCode> {
    let book = open()?;
    let failed = |e: notebook::NotebookError| anyhow::anyhow!("{e}");
    match command {
        NotesCommand::List { tag, limit, json } => {
            let notes = book.list(tag.as_deref(), limit).map_err(failed)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&notes)?);
            } else if notes.is_empty() {
                println!("No notes yet.");
            } else {
                for note in notes {
                    let tags = if note.state.tags.is_empty() {
                        String::new()
                    } else {
                        format!("  [{}]", note.state.tags.join(", "))
                    };
                    let path = note.state.path.as_deref().map(|p| format!("  {p}/")).unwrap_or_default();
                    println!("{:<9} v{:<3} {}{path}{tags}", note.id, note.version, note.state.title);
                }
            }
        }
        NotesCommand::Show { id, versions } => {
            // A removed note's versions are still there to read (and to undo the removal).
            if versions {
                for v in book.versions(&id).map_err(failed)? {
                    let by = match (&v.change.run_id, &v.change.operation_id, v.change.reverts) {
                        (Some(run), Some(op), _) => format!("{} {run} {op}", v.change.by),
                        (_, _, Some(reverts)) => format!("undo of v{reverts}"),
                        _ => v.change.by.clone(),
                    };
                    let undone = if v.undone { " (undone)" } else { "" };
                    println!("v{:<3} {}  {by}{undone}  {}", v.version, v.created_at, v.state.title);
                }
            } else {
                print!("{}", export::to_markdown(&book.live(&id).map_err(failed)?));
            }
        }
        NotesCommand::Add { file, title, tags, source } => {
            let text = crate::cli::read_page(&file)?;
            let args = ArtifactSaveArgs {
                title,
                text: Some(text),
                tags: (!tags.is_empty()).then_some(tags),
                ..ArtifactSaveArgs::default()
            };
            let problems = laika_shared::tools::RawToolCall {
                name: "artifact.save".into(),
                arguments: serde_json::to_value(&args)?.as_object().cloned().unwrap_or_default(),
            }
            .to_typed();
            if let Err(problems) = problems
                && let Some(first) = problems.first()
            {
                bail!("{}: {} ({})", first.code.as_str(), first.message, first.path);
            }
            let sources: Vec<notebook::NoteSource> =
                source.map(|url| notebook::NoteSource { url, title: None, citations: vec![] }).into_iter().collect();
            let note = notebook::save_artifact(&book, &args, &sources).map_err(failed)?;
            println!("{}", note.id);
        }
        NotesCommand::Export { id, format, out } => {
            let note = book.live(&id).map_err(failed)?;
            let bytes = match format.as_str() {
                "text" => export::to_text(&note).into_bytes(),
                "json" => export::to_json(&note).into_bytes(),
                "csv" => export::to_csv(&note)?.into_bytes(),
                "pdf" => export::to_pdf(&note),
                _ => export::to_markdown(&note).into_bytes(),
            };
            match out {
                Some(path) => {
                    std::fs::write(&path, &bytes).with_context(|| format!("cannot write {}", path.display()))?;
                    eprintln!("Wrote {} ({} bytes).", path.display(), bytes.len());
                }
                None => std::io::stdout().write_all(&bytes)?,
            }
        }
        NotesCommand::Undo { id } => {
            let note = book.undo(&id).map_err(failed)?;
            if note.deleted {
                println!("{id} removed (its creation was undone).");
            } else {
                println!("{id} is back to \"{}\" (now v{}).", note.state.title, note.version);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
