//! `laika-host` as a library: Laika's trusted native half, for the programs that serve it.
//!
//! Two programs are built on it. The `laika-host` binary (`src/main.rs`) is what Chromium and
//! Firefox start: it speaks native messaging on stdio ([`transport::serve`]) and offers the
//! command-line tools ([`cli`]). The `laika-safari` static library (`native-host/safari`) is
//! what Safari's containing app links: Safari hands its extension's messages to the app's
//! `SafariWebExtensionHandler`, not to a process on stdio, so that library answers one request
//! at a time through the same API ([`transport::answer`]).
//!
//! Both serve the same request API ([`api::HostApi`], documented there) over the same state
//! ([`host::Host`]: configuration, engine, history, running summaries), so a request gets the
//! same reply, and the same stable error codes, whichever browser sent it.
//!
//! The `embedded` feature (default) builds the mistral.rs engine in; without it the host serves
//! the OpenAI-compatible and extractive engines and builds in a minute instead of fifteen.

/// Whether this CPU runs what the build was compiled for. x86-64 builds use the x86-64-v3
/// baseline (`.cargo/config.toml`): candle's quantised kernels are chosen at compile time, and
/// without AVX2 they fall back to scalar code several times slower. Checked first thing, so an
/// older CPU gets a message instead of an illegal-instruction crash.
pub fn cpu_baseline() -> Result<(), String> {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        let missing: Vec<&str> = [
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("fma", std::arch::is_x86_feature_detected!("fma")),
            ("bmi2", std::arch::is_x86_feature_detected!("bmi2")),
            ("f16c", std::arch::is_x86_feature_detected!("f16c")),
        ]
        .into_iter()
        .filter_map(|(name, present)| (!present).then_some(name))
        .collect();
        if !missing.is_empty() {
            return Err(missing.join(", "));
        }
    }
    Ok(())
}

pub mod agent;
pub mod api;
#[doc(hidden)]
pub mod bench;
#[cfg(unix)]
pub mod bus;
pub mod cli;
pub mod collection_read;
pub mod collection_tools;
pub mod collections_commands;
#[cfg(unix)]
pub mod daemon;
pub mod debuglog;
pub mod engine;
pub mod ground;
pub mod history;
pub mod host;
pub mod host_tools;
pub mod hub_bench;
pub mod install;
pub mod integrations;
pub mod laika_service;
pub mod lark;
pub mod lavs_commands;
pub mod lavs_subscriptions;
pub mod librarian;
pub mod librarian_bench;
pub mod librarian_commands;
pub mod models;
pub mod notebook;
pub mod notes_commands;
pub mod plan_suite;
pub mod prompt;
#[cfg(unix)]
pub mod proxy;
pub mod quality;
pub mod release;
pub mod service;
pub mod sqlite;
pub mod summary;
pub mod transport;

use anyhow::{Context, Result};

/// The runtime the host's async work runs on (two workers: the engine has threads of its own).
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the runtime")
}

/// Logs to stderr at the level `LAIKA_LOG` sets (default `warn`); stdout is the native-messaging
/// channel. Does nothing when the process already has a logger.
///
/// The HTML parser's own debug and trace output is never logged, whatever `LAIKA_LOG` says: it
/// prints every token of the page, attribute values included, so it would copy form values,
/// hidden inputs and URL credentials (everything observation keeps out) to the log.
pub fn init_logging() {
    let mut filter = tracing_subscriber::EnvFilter::try_from_env("LAIKA_LOG").unwrap_or_else(|_| "warn".into());
    for quiet in ["html5ever=warn", "markup5ever=warn"] {
        if let Ok(directive) = quiet.parse() {
            filter = filter.add_directive(directive);
        }
    }
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
