//! `laika-host librarian parse FILE|- [--strict] [--fallback-only] [--max-operations N]`: reads a
//! Librarian response (`xml_attrless`, [`laika_shared::librarian`]) and prints it as JSON, or
//! its error code and every diagnostic with exit status 2, so a response a model wrote can be
//! checked by hand or from a script.

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
}

pub fn run(command: LibrarianCommand) -> Result<ExitCode> {
    let LibrarianCommand::Parse { file, strict, fallback_only, max_operations } = command;
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
