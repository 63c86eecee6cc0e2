//! The Lark v1 hub from the command line: `laika-host daemon` serves it on loopback, and
//! `laika-host lark member add` / `channel add` manage who is on it. The hub itself is the
//! `laika-lark` crate; its store is `lark.sqlite3` in the data directory.
//!

use crate::host::data_dir;
use anyhow::{Context, Result};
use laika_lark::hub::Hub;
use laika_lark::store::{MemberKind, Store};
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;

/// Laika's name on the hub (what `@laika` resolves to; reserved for the daemon's own member).
pub const LAIKA_NAME: &str = "laika";

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

pub fn open_store(dir: &Path) -> Result<Store> {
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
            // Laika's own member signs in inside the daemon; a token for it would let another
            // client take its place (one connection per member).
            if name.eq_ignore_ascii_case(LAIKA_NAME) {
                anyhow::bail!("LARK_NAME_RESERVED: {name:?} is Laika's own name on the hub");
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
