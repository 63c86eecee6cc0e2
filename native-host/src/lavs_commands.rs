//! `laika-host lavs add DIR | list | remove NAME`: the LAVS services installed in the data
//! directory (`<data dir>/lavs/<name>/`). A running daemon sees a change at the service's next
//! call (`laika_lavs::Runtime::service`).

use crate::host::{LAVS_DIR, data_dir};
use anyhow::{Result, anyhow};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Subcommand)]
pub enum LavsCommand {
    /// Install the service in DIR (its `lavs.json` is checked first; the folder is copied).
    Add { dir: PathBuf },
    /// The installed services, their endpoints, and any permission this system cannot enforce.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove an installed service.
    Remove { name: String },
}

pub fn run(command: LavsCommand) -> Result<ExitCode> {
    let runtime = laika_lavs::Runtime::open(&data_dir().join(LAVS_DIR)).map_err(|e| anyhow!("LAVS_ERROR: {e}"))?;
    runtime.reserve_name(crate::laika_service::NAME);
    match command {
        LavsCommand::Add { dir } => {
            let name = runtime.install(&dir).map_err(|e| anyhow!("LAVS_INVALID_MANIFEST: {}", e.message))?;
            println!("installed {name}");
        }
        LavsCommand::List { json } => {
            let services = runtime.list();
            if json {
                println!("{}", serde_json::to_string_pretty(&services)?);
            } else if services.is_empty() {
                println!("no LAVS services installed (laika-host lavs add DIR)");
            } else {
                for service in &services {
                    let endpoints: Vec<String> = service
                        .endpoints
                        .iter()
                        .map(|e| {
                            format!(
                                "{} ({})",
                                e["id"].as_str().unwrap_or_default(),
                                e["method"].as_str().unwrap_or_default()
                            )
                        })
                        .collect();
                    println!("{} {}: {}", service.name, service.version, endpoints.join(", "));
                    for note in &service.unenforced {
                        println!("  not enforced here: {note}");
                    }
                }
            }
        }
        LavsCommand::Remove { name } => {
            if !runtime.remove(&name).map_err(|e| anyhow!("LAVS_ERROR: {e}"))? {
                anyhow::bail!("LAVS_NO_SERVICE: no service {name:?} is installed");
            }
            println!("removed {name}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
