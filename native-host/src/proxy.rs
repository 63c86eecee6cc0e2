//! What a browser starts: a thin native-messaging proxy to the daemon ([`crate::daemon`]).
//!
//! The proxy connects to the daemon's Unix socket in the data directory, starting the daemon
//! when none answers (the spec's daemon-proxy pattern, `lark-websocket-v1.md`), then copies
//! bytes both ways: the socket carries the same 4-byte-length JSON frames as stdio, so the
//! daemon's session reads exactly what the browser wrote, and every reply, error codes
//! included, is the one an in-process host would give. Two browsers (or two profiles) thus share
//! one engine, one history and one set of running summaries.
//!
//! The relay ends when the browser closes its side (the proxy half-closes the socket and waits
//! for the replies still owed) or when the daemon goes away (the proxy exits with an error; the
//! browser's next connection starts a new proxy, which starts a new daemon).
//!
//! When no daemon can be had (the socket path is too long for the platform, the daemon cannot
//! be spawned or does not come up), the proxy serves the browser itself, as `laika-host native
//! --in-process` does, and logs why: the browser keeps working, without the sharing.

use crate::api::HostApi;
use crate::daemon::{DaemonInfo, alive, build_id, files, open_log, terminate};
use crate::host::{Config, Host, data_dir};
use crate::transport;
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

/// How long a proxy waits for a daemon it started to answer (the daemon binds its socket before
/// it loads the model, so this is process start-up and opening two SQLite files).
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a proxy of a new build waits for the old daemon to stop.
const REPLACE_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves the browser on stdio: through the daemon, or in this process (`in_process`, or when
/// no daemon can be had).
pub fn serve_native_messaging(in_process: bool) -> ExitCode {
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("laika-host: {error:#}");
            return ExitCode::from(2);
        }
    };
    let served = runtime.block_on(async {
        let dir = data_dir();
        if !in_process {
            match connect_or_start(&dir).await {
                Ok(stream) => return relay(stream).await,
                Err(error) => {
                    tracing::warn!("HOST_DAEMON_UNAVAILABLE: {error:#}; serving this browser in this process")
                }
            }
        }
        serve_here(&dir).await
    });
    // Stdin's reader thread may still be blocked on a read; the browser is gone, so leave now.
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("laika-host: {error:#}");
            ExitCode::from(1)
        }
    }
}

/// The whole host in this process, on stdio.
async fn serve_here(dir: &Path) -> Result<()> {
    // stdout carries frames: nothing else may be written there, so logs go to stderr.
    let host = Host::open(dir)?;
    let loading = host.clone();
    tokio::spawn(async move { loading.load_engine().await });
    let api = HostApi { host };
    transport::serve(tokio::io::stdin(), tokio::io::stdout(), &api).await.context("native messaging failed")
}

/// A connection to a daemon of this build: the running one, or one started now.
async fn connect_or_start(dir: &Path) -> Result<UnixStream> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let socket = dir.join(files::SOCKET);
    // sun_path holds 108 bytes on Linux, 104 on macOS; a longer path cannot be bound at all.
    if socket.as_os_str().len() >= 104 {
        bail!("the socket path {} is too long for a Unix socket", socket.display());
    }
    let ours = build_id();
    if let Ok(stream) = UnixStream::connect(&socket).await {
        match DaemonInfo::read(dir) {
            Some(info) if info.build != ours && alive(info.pid) => {
                // Another build (an upgrade, a rebuild): stop it, so this build's code serves.
                drop(stream);
                replace(&info).await?;
            }
            _ => return Ok(stream),
        }
    }
    spawn_daemon(dir)?;
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(stream) = UnixStream::connect(&socket).await {
            return Ok(stream);
        }
        if Instant::now() > deadline {
            bail!(
                "the daemon did not answer on {} within {} s (see {})",
                socket.display(),
                START_TIMEOUT.as_secs(),
                dir.join(files::LOG).display()
            );
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Stops a daemon of another build and waits for it to be gone.
async fn replace(old: &DaemonInfo) -> Result<()> {
    tracing::info!("stopping daemon {} (build {}) for build {}", old.pid, old.build, build_id());
    terminate(old.pid);
    let deadline = Instant::now() + REPLACE_TIMEOUT;
    while alive(old.pid) {
        if Instant::now() > deadline {
            bail!("daemon {} of another build did not stop within {} s", old.pid, REPLACE_TIMEOUT.as_secs());
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    Ok(())
}

/// Starts `laika-host daemon` detached: its own process group (the browser's signals to the
/// proxy's group do not reach it), no stdio of ours (a caller waiting for our output would
/// otherwise wait for the daemon too), stderr into `daemon.log`. If another proxy started one at
/// the same moment, ours finds the lock held and exits; both proxies connect to the winner.
fn spawn_daemon(dir: &Path) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().context("cannot find laika-host's own path")?;
    let mut command = std::process::Command::new(exe);
    command.args(["daemon", "--spawned"]);
    if let Some(secs) = Config::load(dir).unwrap_or_default().daemon_idle_exit() {
        command.args(["--idle-exit", &secs.to_string()]);
    }
    let log = open_log(dir).with_context(|| format!("cannot open {}", dir.join(files::LOG).display()))?;
    command
        .env("LAIKA_DATA_DIR", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .context("cannot start the daemon")?;
    Ok(())
}

/// Copies the browser's frames to the daemon and the daemon's to the browser until one side
/// ends (see the module doc).
async fn relay(stream: UnixStream) -> Result<()> {
    let (mut from_daemon, mut to_daemon) = stream.into_split();
    let upstream = async {
        let mut stdin = tokio::io::stdin();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = stdin.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            to_daemon.write_all(&buf[..n]).await?;
        }
        // The browser is done sending: the daemon answers what it has and closes its side.
        to_daemon.shutdown().await
    };
    let downstream = async {
        let mut stdout = tokio::io::stdout();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = from_daemon.read(&mut buf).await?;
            if n == 0 {
                return Ok::<_, std::io::Error>(());
            }
            stdout.write_all(&buf[..n]).await?;
            stdout.flush().await?;
        }
    };
    tokio::pin!(upstream, downstream);
    tokio::select! {
        sent = &mut upstream => {
            if let Err(error) = sent {
                // The daemon went away while the browser was still talking.
                bail!("HOST_DAEMON_LOST: {error}");
            }
            downstream.await.context("HOST_DAEMON_LOST")?;
            Ok(())
        }
        received = &mut downstream => {
            received.context("HOST_DAEMON_LOST")?;
            // The daemon closed first, with the browser still connected: it stopped or crashed.
            bail!("HOST_DAEMON_LOST: the daemon closed the connection; the next start of Laika starts it again")
        }
    }
}

/// One request to the daemon, as a browser would send it (the daemon is started if none runs):
/// for command-line tools that must act through the daemon, so that what they change is seen by
/// every client at once (`laika-host approvals`). Returns the reply's `result`, or its error as
/// `CODE: message`.
pub async fn request(dir: &Path, method: &str, params: serde_json::Value) -> Result<serde_json::Value> {
    use futures::{SinkExt, StreamExt};
    use transport::{Incoming, MAX_OUTGOING, NativeCodec};
    let mut frames = tokio_util::codec::Framed::new(connect_or_start(dir).await?, NativeCodec::new(MAX_OUTGOING));
    let body = serde_json::to_vec(&serde_json::json!({ "id": 1, "method": method, "params": params }))?;
    frames.send(bytes::Bytes::from(body)).await?;
    let reply = match frames.next().await {
        Some(Ok(Incoming::Message(reply))) => reply,
        Some(Ok(Incoming::TooLarge(length))) => bail!("HOST_REPLY_TOO_LARGE: a {length}-byte reply"),
        Some(Err(error)) => return Err(error.into()),
        None => bail!("HOST_DAEMON_LOST: the daemon closed before answering"),
    };
    let reply: serde_json::Value = serde_json::from_slice(&reply)?;
    if let Some(error) = reply.get("error") {
        bail!("{}: {}", error["code"].as_str().unwrap_or("HOST_ERROR"), error["message"].as_str().unwrap_or_default());
    }
    Ok(reply["result"].clone())
}
