//! `laika-host bench hub` (hidden): the Lark hub under load, measured from outside the daemon, as
//! `cargo xtask bench hub` reports it. Prints one JSON object.
//!
//! 1. A fresh hub store gets N members and two channels: `all` (every member) and `busy` (the
//!    first [`BUSY_SENDERS`]).
//! 2. `laika-host daemon` (this binary) is started on a free loopback port; its resident memory
//!    is read from /proc before and after the N clients sign in and sit idle: the difference over
//!    N is the memory of one idle connection.
//! 3. Fan-out: one client posts K messages to `all`, one every [`FANOUT_SPACING`]; every client
//!    notes when each arrives; latency = arrival − send (one process, one monotonic clock), p50
//!    and p99 over all N × K deliveries.
//! 4. Throughput: the `busy` members each post [`BUSY_MESSAGES`] messages at once (within the
//!    per-connection rate limit's burst); messages acknowledged per second, and deliveries.

use anyhow::{Context, Result, bail};
use futures_util::{SinkExt, StreamExt};
use laika_lark::auth::Auth;
use laika_lark::store::{MemberKind, Store};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// Members of the `busy` channel, each posting [`BUSY_MESSAGES`].
const BUSY_SENDERS: usize = 100;
const BUSY_MESSAGES: usize = 20;
/// Time between two fan-out messages: each message's fan-out is measured on its own, not queued
/// behind the previous one's (at 25 ms, 1,000 subscribers and the bench's own readers on two
/// cores made a backlog: p99 1.5 s, which is a throughput figure, not a fan-out latency).
const FANOUT_SPACING: Duration = Duration::from_millis(250);

#[derive(clap::Args)]
pub struct HubBenchArgs {
    /// Concurrent authenticated connections.
    #[arg(long, default_value_t = 1000)]
    clients: usize,
    /// Messages fanned out to every connection.
    #[arg(long, default_value_t = 20)]
    fanout_messages: usize,
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn rss_kb(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).context("reading the daemon's /proc status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .context("no VmRSS in /proc status")
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

async fn sign_in(url: &str, token: &str) -> Result<Ws> {
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.context("connecting to the hub")?;
    ws.send(Message::Text(json!({ "type": "auth.login", "data": { "token": token } }).to_string().into())).await?;
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(text))) => {
                let frame: Value = serde_json::from_str(&text)?;
                match frame["type"].as_str() {
                    Some("auth.success") => return Ok(ws),
                    Some("auth.fail") => bail!("sign-in refused: {frame}"),
                    _ => {}
                }
            }
            Some(Ok(_)) => {}
            other => bail!("the hub closed during sign-in: {other:?}"),
        }
    }
}

pub fn run(args: HubBenchArgs, data: &Path) -> Result<ExitCode> {
    anyhow::ensure!(args.clients >= 2 && args.fanout_messages >= 1, "--clients ≥ 2 and --fanout-messages ≥ 1");
    let dir = data.join("hub-bench");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let store = Store::open(&dir.join(crate::lark::HUB_DB))?;
    let auth = Auth::new(&store)?;
    let mut ids = Vec::with_capacity(args.clients);
    let mut tokens = Vec::with_capacity(args.clients);
    for i in 0..args.clients {
        let member = store.add_member(&format!("member{i}"), MemberKind::Human)?;
        tokens.push(auth.issue_jwt(&member.id));
        ids.push(member.id);
    }
    let all = store.add_channel("all", &ids)?;
    let busy_senders = BUSY_SENDERS.min(args.clients);
    let busy = store.add_channel("busy", &ids[..busy_senders])?;
    drop(store);

    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let mut daemon = Command::new(std::env::current_exe()?)
        .args(["daemon", "--port", &port.to_string()])
        .env("LAIKA_DATA_DIR", &dir)
        .stderr(Stdio::null())
        .spawn()
        .context("starting laika-host daemon")?;
    let pid = daemon.id();
    let url = format!("ws://127.0.0.1:{port}/ws");
    let runtime = crate::runtime()?;
    let report = runtime.block_on(async {
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let idle_before = rss_kb(pid)?;
        let connecting = Instant::now();
        let mut clients = Vec::with_capacity(args.clients);
        // In batches, as many clients arriving at once would: a burst of 1,000 handshakes at the
        // same instant measures the listen backlog, not the hub.
        for batch in tokens.chunks(50) {
            let signed = futures_util::future::join_all(batch.iter().map(|t| sign_in(&url, t))).await;
            for ws in signed {
                clients.push(ws?);
            }
        }
        let connect_s = connecting.elapsed().as_secs_f64();

        // Readers start now: each sign-in told every connection so far of a presence change, and
        // that backlog is read (and the hub's queues emptied) before anything is measured.
        let started = Instant::now();
        let mut sends = vec![f64::NAN; args.fanout_messages];
        let mut sinks = Vec::new();
        let mut readers = Vec::new();
        let busy_messages = busy_senders * BUSY_MESSAGES;
        let mut ack_streams = Vec::new();
        for (i, ws) in clients.into_iter().enumerate() {
            let (sink, mut stream) = ws.split();
            sinks.push(sink);
            let (ack_tx, ack_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
            ack_streams.push(ack_rx);
            let expected = args.fanout_messages;
            // Members of `busy` hear every busy message; the rest hear none.
            let busy_expected = if i < busy_senders { busy_messages } else { 0 };
            readers.push(tokio::spawn(async move {
                let mut arrivals = Vec::with_capacity(expected);
                let deadline = tokio::time::sleep(Duration::from_secs(90));
                tokio::pin!(deadline);
                let mut busy_seen = 0usize;
                let mut busy_done: Option<f64> = None;
                loop {
                    tokio::select! {
                        _ = &mut deadline => break,
                        frame = stream.next() => match frame {
                            Some(Ok(Message::Text(text))) => {
                                let at = started.elapsed().as_secs_f64();
                                let Ok(frame) = serde_json::from_str::<Value>(&text) else { continue };
                                if frame["type"] == "message.ack" {
                                    let _ = ack_tx.send(());
                                    continue;
                                }
                                if frame["type"] != "message.new" { continue }
                                let content = frame["data"]["content"].as_str().unwrap_or("");
                                if let Some(seq) = content.strip_prefix("fanout ").and_then(|s| s.parse::<usize>().ok()) {
                                    arrivals.push((seq, at));
                                } else if content.starts_with("busy ") {
                                    busy_seen += 1;
                                    if busy_seen == busy_expected {
                                        busy_done = Some(at);
                                    }
                                }
                                if arrivals.len() == expected && busy_seen == busy_expected { break }
                            }
                            Some(Ok(_)) => {}
                            _ => break,
                        }
                    }
                }
                (arrivals, busy_done, stream)
            }));
        }
        tokio::time::sleep(Duration::from_millis(2000)).await;
        let idle_after = rss_kb(pid)?;
        for (seq, sent) in sends.iter_mut().enumerate() {
            let frame = json!({ "type": "message.send", "data": { "channel_id": all, "content": format!("fanout {seq}") } });
            *sent = started.elapsed().as_secs_f64();
            sinks[0].send(Message::Text(frame.to_string().into())).await?;
            tokio::time::sleep(FANOUT_SPACING).await;
        }
        // Throughput: the busy channel's members post together, each its next message when the
        // hub has acknowledged the last (a closed loop: what the hub sustains, not how much a
        // burst overflows the send queues by).
        for acks in ack_streams.iter_mut() {
            while acks.try_recv().is_ok() {}
        }
        let busy_started = started.elapsed().as_secs_f64();
        let posting = sinks.into_iter().zip(ack_streams).take(busy_senders).map(|(mut sink, mut acks)| {
            let busy = busy.clone();
            async move {
                for i in 0..BUSY_MESSAGES {
                    let frame = json!({ "type": "message.send", "data": { "channel_id": busy, "content": format!("busy {i}") } });
                    sink.send(Message::Text(frame.to_string().into())).await?;
                    tokio::time::timeout(Duration::from_secs(10), acks.recv()).await.context("no ack within 10 s")?;
                }
                Ok::<_, anyhow::Error>(sink)
            }
        });
        let posted = futures_util::future::join_all(posting).await;
        let acked_at = started.elapsed().as_secs_f64();
        for sink in posted {
            drop(sink?);
        }
        let mut latencies = Vec::new();
        let mut busy_end = busy_started;
        let mut busy_complete = 0usize;
        for reader in readers {
            let (arrivals, busy_done, _stream) = reader.await?;
            for (seq, at) in arrivals {
                latencies.push((at - sends[seq]) * 1000.0);
            }
            if let Some(at) = busy_done {
                busy_complete += 1;
                busy_end = busy_end.max(at);
            }
        }
        let last_busy = busy_end - busy_started;
        latencies.sort_by(|a, b| a.total_cmp(b));
        let expected = args.clients * args.fanout_messages;
        Ok::<Value, anyhow::Error>(json!({
            "clients": args.clients,
            "connect_s": connect_s,
            "daemon_rss_before_mb": idle_before as f64 / 1024.0,
            "daemon_rss_connected_mb": idle_after as f64 / 1024.0,
            "idle_kb_per_connection": idle_after.saturating_sub(idle_before) as f64 / args.clients as f64,
            "fanout_messages": args.fanout_messages,
            "fanout_deliveries": latencies.len(),
            "fanout_deliveries_expected": expected,
            "fanout_p50_ms": percentile(&latencies, 0.5),
            "fanout_p99_ms": percentile(&latencies, 0.99),
            "fanout_max_ms": latencies.last().copied().unwrap_or(f64::NAN),
            "busy_messages": busy_messages,
            "busy_subscribers": busy_senders,
            "busy_subscribers_complete": busy_complete,
            "busy_messages_per_s": busy_messages as f64 / (acked_at - busy_started),
            "busy_deliveries_per_s": (busy_messages * busy_senders) as f64 / last_busy,
        }))
    });
    let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
    let _ = daemon.wait();
    runtime.shutdown_background();
    println!("{}", report?);
    Ok(ExitCode::SUCCESS)
}
