//! The daemon: one long-running `laika-host` per data directory. It owns what must exist once
//! however many browsers talk to Laika: the engine (the model is loaded once), the summary and
//! plan jobs, the history and the Lark v1 hub.
//!
//! Data flows in two ways. A browser starts `laika-host` for native messaging; that process is
//! a thin proxy ([`crate::proxy`]) that connects to the daemon's Unix socket and relays the
//! browser's frames unchanged, so each proxy is one [`transport::serve`] session here, over the
//! shared [`Host`]. Lark clients (people, agents, other tools) connect over WebSocket to
//! `ws://127.0.0.1:PORT/ws` ([`laika_lark::server`]); LAVS clients call the installed local
//! services on the same port ([`laika_lavs::http`]).
//!
//! Files in the data directory (names in [`files`]):
//! - `daemon.lock`: an exclusive lock held while a daemon runs, so a second daemon on the same
//!   directory stops at once (two proxies starting one each at the same moment is the usual way
//!   this happens) and the socket file is only ever replaced by the daemon that holds it.
//! - `laika.sock`: the native-messaging socket, mode 0600 (this user only).
//! - `daemon.json`: the running daemon's pid and build, written before the socket is bound, so a
//!   proxy of another build (an upgrade) can stop it and start its own.
//! - `daemon.log`: the daemon's stderr when a proxy started it.
//!
//! A daemon a proxy started leaves once nothing has used it for its idle time (no session, no
//! running summary, no hub connection; `daemon_idle_exit_secs`); one started by hand or by the
//! service unit runs until SIGTERM. Either way it stops cleanly: summaries are cancelled, the
//! history's write-ahead log is checkpointed, and the socket and `daemon.json` are removed.

use crate::api::HostApi;
use crate::host::{Config, Host, data_dir};
use crate::lark::open_store;
use crate::transport;
use anyhow::{Context, Result, bail};
use laika_lark::hub::Hub;
use laika_lark::limits::Limits;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The daemon's files in the data directory.
pub mod files {
    pub const LOCK: &str = "daemon.lock";
    pub const SOCKET: &str = "laika.sock";
    pub const INFO: &str = "daemon.json";
    pub const LOG: &str = "daemon.log";
}

/// How long a stopping daemon waits for cancelled summaries to finish their last write.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// A log over this is moved to `daemon.log.1` when a daemon starts (one generation kept).
const LOG_ROTATE_BYTES: u64 = 1024 * 1024;

#[derive(clap::Args, Debug, Default)]
pub struct DaemonArgs {
    /// The hub's port (`daemon_port` in config.json unless given).
    #[arg(long)]
    pub port: Option<u16>,
    /// Leave after this many seconds unused (no browser session, no running summary, no hub
    /// connection). Without it the daemon runs until SIGTERM.
    #[arg(long)]
    pub idle_exit: Option<u64>,
    /// Started by a native-messaging proxy: a busy hub port turns the hub off (logged) instead of
    /// stopping the daemon, since the browser needs the rest of it.
    #[arg(long, hide = true)]
    pub spawned: bool,
}

/// Who the running daemon is (`daemon.json`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DaemonInfo {
    pub pid: u32,
    /// [`build_id`] of the daemon's binary.
    pub build: String,
    /// The hub's port, when the hub is on.
    pub hub_port: Option<u16>,
}

impl DaemonInfo {
    /// Written whole or not at all (a proxy may read it at any moment).
    fn write(&self, dir: &Path) -> Result<()> {
        let partial = dir.join(format!("{}.partial", files::INFO));
        std::fs::write(&partial, serde_json::to_vec(self)?)?;
        std::fs::rename(&partial, dir.join(files::INFO))?;
        Ok(())
    }

    pub fn read(dir: &Path) -> Option<DaemonInfo> {
        serde_json::from_slice(&std::fs::read(dir.join(files::INFO)).ok()?).ok()
    }
}

/// This binary's identity: its version and the file's modification time, so a rebuilt or
/// reinstalled `laika-host` of the same version is still told apart from the running one.
pub fn build_id() -> String {
    let modified = std::env::current_exe()
        .and_then(std::fs::metadata)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}+{modified}", env!("CARGO_PKG_VERSION"))
}

/// Whether a process with this pid exists (signal 0 checks without sending anything).
pub fn alive(pid: u32) -> bool {
    // SAFETY: kill(2) with signal 0 only checks that the process exists and may be signalled.
    pid > 0 && unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
}

/// Asks a daemon to stop (SIGTERM: it cancels its jobs and checkpoints the history first).
pub fn terminate(pid: u32) {
    if pid > 0 {
        // SAFETY: sending SIGTERM to a pid read from daemon.json, which only a daemon writes.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
    }
}

/// `laika-host daemon`.
pub fn run(args: DaemonArgs) -> Result<ExitCode> {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(files::LOCK))
        .with_context(|| format!("cannot open {}", dir.join(files::LOCK).display()))?;
    if lock.try_lock().is_err() {
        let pid = DaemonInfo::read(&dir).map(|i| i.pid.to_string()).unwrap_or_else(|| "?".into());
        bail!("DAEMON_RUNNING: a daemon (pid {pid}) already serves {}", dir.display());
    }
    // Who holds the lock, from the first moment: a proxy of another build can stop this daemon
    // even while it is still opening its files.
    let info = DaemonInfo { pid: std::process::id(), build: build_id(), hub_port: None };
    info.write(&dir)?;
    let config = Config::load(&dir)?;
    let runtime = crate::runtime()?;
    let served = runtime.block_on(serve(&dir, &config, &args));
    // Engine threads may still be busy with a cancelled job; they hold nothing that needs saving.
    runtime.shutdown_timeout(Duration::from_secs(1));
    let _ = std::fs::remove_file(dir.join(files::SOCKET));
    if DaemonInfo::read(&dir).is_some_and(|i| i.pid == std::process::id()) {
        let _ = std::fs::remove_file(dir.join(files::INFO));
    }
    drop(lock);
    served?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(dir: &Path, config: &Config, args: &DaemonArgs) -> Result<()> {
    let host = Host::open(dir)?;
    host.set_served_by_daemon();
    let loading = host.clone();
    tokio::spawn(async move { loading.load_engine().await });
    // A host-run call (a local service's endpoint) runs once approved, from whichever client.
    crate::host_tools::run_on_approval(host.clone());
    let hub = Arc::new(Hub::new(open_store(dir)?)?);
    // Laika joins its hub (conversations as channels, approvals any person there may answer);
    // without it browsers are still served.
    // Its connection is the daemon's own: it does not keep an unused daemon running.
    let own_connections = match crate::bus::start(host.clone(), hub.clone()) {
        Ok(()) => 1,
        Err(error) => {
            tracing::warn!("{error:#}");
            0
        }
    };

    let port = args.port.unwrap_or(config.daemon_port);
    let hub_listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(listener) => Some(listener),
        Err(error) if args.spawned => {
            tracing::warn!("DAEMON_PORT_BUSY: 127.0.0.1:{port} ({error}); the Lark hub is off, browsers are served");
            None
        }
        Err(error) => bail!("DAEMON_PORT_BUSY: cannot listen on 127.0.0.1:{port}: {error}"),
    };

    let socket_path = dir.join(files::SOCKET);
    let info = DaemonInfo { pid: std::process::id(), build: build_id(), hub_port: hub_listener.as_ref().map(|_| port) };
    info.write(dir)?;
    // A socket file left by a daemon that was killed: ours to replace, since we hold the lock.
    let _ = std::fs::remove_file(&socket_path);
    let listener = bind_private(&socket_path)?;
    match info.hub_port {
        Some(port) => eprintln!(
            "laika-host daemon {}: browsers on {}, Lark v1 hub on ws://127.0.0.1:{port}/ws",
            info.pid,
            socket_path.display()
        ),
        None => eprintln!("laika-host daemon {}: browsers on {}", info.pid, socket_path.display()),
    }

    let sessions = Arc::new(AtomicUsize::new(0));
    let idle_limit = args.idle_exit.map(Duration::from_secs);
    let mut idle_since = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    // One loopback port: the hub at /ws, LAVS at /lavs/… and /api/agents/…/lavs/….
    let mut routes = laika_lark::server::router(hub.clone(), Limits::default());
    if let Some(lavs) = host.lavs.clone() {
        routes = routes.merge(laika_lavs::http::router(lavs));
    }
    // A task of its own, not polled here: this future runs on the thread that called
    // `block_on`, which is not one of the runtime's workers, so every connection it accepted
    // was handed to a worker by waking it. Accepted on a worker, a connection's task starts on
    // the same thread (measured in `cargo xtask bench lavs`, with the audit log's writer thread:
    // Laika's overhead on a script call went from 0.80 to 0.31 ms).
    let mut hub_served = tokio::spawn(async move {
        match hub_listener {
            Some(listener) => axum::serve(listener, routes).await,
            None => std::future::pending().await,
        }
    });
    let stop = shutdown_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        tracing::warn!("a browser session could not be accepted: {error}");
                        continue;
                    }
                };
                sessions.fetch_add(1, Ordering::SeqCst);
                let (host, ended) = (host.clone(), sessions.clone());
                let runtime = tokio::runtime::Handle::current();
                // Each browser session reads and answers on a thread of its own, as the
                // in-process host does on its main thread: a summary's CPU-bound stretches run
                // on the runtime's workers and would otherwise hold up the session's next read
                // (measured: summary.start then summary.cancel took 414 ms as a runtime task,
                // the whole of an extractive summary of a long page, against 2 ms).
                let spawned = std::thread::Builder::new().name("laika-session".into()).spawn(move || {
                    runtime.block_on(async {
                        let (read, write) = stream.into_split();
                        // A proxy that went away mid-reply is the browser closing; nothing to keep.
                        if let Err(error) = transport::serve(read, write, &HostApi { host }).await {
                            tracing::debug!("a browser session ended: {error}");
                        }
                    });
                    ended.fetch_sub(1, Ordering::SeqCst);
                });
                if let Err(error) = spawned {
                    sessions.fetch_sub(1, Ordering::SeqCst);
                    tracing::warn!("a browser session could not be started: {error}");
                }
            }
            served = &mut hub_served => {
                served.context("the hub's task failed")?.context("the hub stopped")?;
            }
            _ = &mut stop => {
                eprintln!("laika-host daemon {}: stopping (signal)", info.pid);
                break;
            }
            _ = tick.tick() => {
                // A closed sidecar never unsubscribes: its subscriptions (and their handlers'
                // processes) end once unpolled for a while.
                host.lavs_subscriptions.sweep();
                // Its directory removed (a test's, a reset): nobody can reach this daemon again.
                if !socket_path.exists() {
                    eprintln!("laika-host daemon {}: {} was removed; stopping", info.pid, socket_path.display());
                    break;
                }
                let busy = sessions.load(Ordering::SeqCst) > 0 || host.running_jobs() > 0 || hub.connections() > own_connections;
                if busy {
                    idle_since = Instant::now();
                } else if let Some(limit) = idle_limit
                    && idle_since.elapsed() >= limit
                {
                    eprintln!("laika-host daemon {}: unused for {} s; stopping", info.pid, limit.as_secs());
                    break;
                }
            }
        }
    }
    drop(listener);
    hub_served.abort();
    let _ = std::fs::remove_file(&socket_path);
    host.cancel_jobs();
    let deadline = Instant::now() + SHUTDOWN_GRACE;
    while host.running_jobs() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    host.history.checkpoint().map_err(|e| anyhow::anyhow!("{}: {}", e.code, e.message))?;
    Ok(())
}

/// Binds the socket readable and writable by this user only: whoever can connect can drive
/// Laika, so the umask is tightened for the bind (no window with a wider mode) and the mode set
/// again after.
fn bind_private(path: &Path) -> Result<tokio::net::UnixListener> {
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: umask(2) only swaps the process's file-creation mask.
    let previous = unsafe { libc::umask(0o177) };
    let bound = tokio::net::UnixListener::bind(path);
    // SAFETY: as above, restoring the mask.
    unsafe { libc::umask(previous) };
    let listener = bound.with_context(|| format!("DAEMON_SOCKET: cannot listen on {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// The daemon's log: `daemon.log`, the previous one kept as `daemon.log.1` once it grows past
/// [`LOG_ROTATE_BYTES`].
pub fn open_log(dir: &Path) -> std::io::Result<std::fs::File> {
    let path: PathBuf = dir.join(files::LOG);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > LOG_ROTATE_BYTES) {
        let _ = std::fs::rename(&path, dir.join(format!("{}.1", files::LOG)));
    }
    std::fs::OpenOptions::new().create(true).append(true).open(path)
}

/// SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    if let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        return;
    }
    let _ = tokio::signal::ctrl_c().await;
}
