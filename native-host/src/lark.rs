//! The Lark v1 hub from the command line: `laika-host daemon` serves it on loopback, and
//! `laika-host lark member add` / `channel add` manage who is on it. The hub itself is the
//! `laika-lark` crate; its store is `lark.sqlite3` in the data directory.
//!
//! What the daemon does not do yet (issue #27): own the model and the jobs, take over native
//! messaging through a proxy, and carry Laika's conversations and approvals on the bus. Today it
//! is the hub alone.

use crate::host::{Config, data_dir};
use anyhow::{Context, Result};
use laika_lark::hub::Hub;
use laika_lark::limits::Limits;
use laika_lark::store::{MemberKind, Store};
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// The hub's database, in the data directory.
pub const HUB_DB: &str = "lark.sqlite3";

#[derive(clap::Subcommand)]
pub enum LarkCommand {
    /// Members of the hub.
    #[command(subcommand)]
    Member(MemberCommand),
    /// Channels of the hub.
    #[command(subcommand)]
    Channel(ChannelCommand),
}

#[derive(clap::Subcommand)]
pub enum MemberCommand {
    /// Adds a member and prints `{member_id, name, token}`: a JWT for a person, an `lr_` API key
    /// for an agent (`--agent`). The token is shown once; only the key's hash is kept.
    Add {
        name: String,
        #[arg(long)]
        agent: bool,
    },
}

#[derive(clap::Subcommand)]
pub enum ChannelCommand {
    /// Adds a channel with these members (their ids) and prints `{channel_id, name}`.
    Add {
        name: String,
        #[arg(long = "member", required = true)]
        members: Vec<String>,
    },
}

fn open_store(dir: &Path) -> Result<Store> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(Store::open(&dir.join(HUB_DB))?)
}

pub fn lark(command: LarkCommand) -> Result<ExitCode> {
    let hub = Hub::new(open_store(&data_dir())?)?;
    let out = match command {
        LarkCommand::Member(MemberCommand::Add { name, agent }) => {
            let name = name.trim();
            if name.is_empty() || name.contains(char::is_whitespace) || name.starts_with('@') {
                anyhow::bail!("LARK_BAD_NAME: a member's name is one word, without '@' ({name:?})");
            }
            let kind = if agent { MemberKind::Agent } else { MemberKind::Human };
            let member = hub.add_member(name, kind)?;
            let token = match kind {
                MemberKind::Agent => hub.auth().issue_api_key(hub.store(), &member.id)?,
                MemberKind::Human => hub.auth().issue_jwt(&member.id),
            };
            json!({ "member_id": member.id, "name": member.name, "token": token })
        }
        LarkCommand::Channel(ChannelCommand::Add { name, members }) => {
            let id = hub.store().add_channel(&name, &members)?;
            json!({ "channel_id": id, "name": name })
        }
    };
    println!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// Serves the hub on 127.0.0.1 (never another interface) until SIGTERM or Ctrl-C.
pub fn daemon(port: Option<u16>) -> Result<ExitCode> {
    let dir = data_dir();
    let port = match port {
        Some(port) => port,
        None => Config::load(&dir)?.daemon_port,
    };
    let hub = Arc::new(Hub::new(open_store(&dir)?)?);
    let runtime = crate::runtime()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .with_context(|| format!("DAEMON_PORT_BUSY: cannot listen on 127.0.0.1:{port}"))?;
        eprintln!("laika-host daemon: Lark v1 hub on ws://127.0.0.1:{port}/ws (store {})", dir.join(HUB_DB).display());
        tokio::select! {
            served = laika_lark::server::serve(listener, hub, Limits::default()) => served.context("the hub stopped")?,
            _ = shutdown() => eprintln!("laika-host daemon: stopping"),
        }
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

async fn shutdown() {
    #[cfg(unix)]
    {
        if let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
