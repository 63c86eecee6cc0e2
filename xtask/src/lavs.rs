//! `cargo xtask bench lavs [--calls N]`: what the LAVS runtime adds to a call, beside the
//! published `lavs-sdk` Python runtime (`lavs_runtime.host.LavsHost`, served by the standard
//! library's WSGI server) serving the same manifest on the same machine.
//!
//! One service, one `script` endpoint that prints a fixed JSON object (`echo`), so the handler's
//! own cost is a process start. Measured in N rounds of one sequential call of each, over loopback
//! HTTP (a new connection each, as both clients of the spec's REST form do):
//! - the handler alone: the same program spawned directly (`raw`);
//! - Laika: `POST /api/agents/bench/lavs/echo` on a real `laika-host daemon`;
//! - lavs-sdk: `POST /api/call/bench/echo` on its host.
//!
//! The runtime overhead is a call's p50 minus the handler's p50; the target (#28) is Laika's at
//! most a third of lavs-sdk's. Also printed: calls/s with 4 clients at once, and the latency of
//! the built-in `laika` service (`listGrants`: no process, one SQLite read). Writes
//! `target/bench/lavs.json`.

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TARGET_OVERHEAD_RATIO: f64 = 1.0 / 3.0;
const CONCURRENT_CLIENTS: usize = 4;

const MANIFEST: &str = r#"{
  "lavs": "1.0", "name": "bench", "version": "1.0.0",
  "endpoints": [
    { "id": "echo", "method": "query",
      "handler": { "type": "script", "command": "echo", "args": ["{\"ok\": true}"] },
      "schema": { "output": { "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] } } }
  ]
}"#;

/// The lavs-sdk host on a port, serving the bundles in a folder (argv: port, folder).
const SDK_SERVER: &str = r#"
import sys
from wsgiref.simple_server import make_server, WSGIRequestHandler
from lavs_runtime.host import LavsHost

class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass

host = LavsHost(registry_dirs=[sys.argv[2]])
make_server("127.0.0.1", int(sys.argv[1]), host.wsgi(), handler_class=Quiet).serve_forever()
"#;

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// One POST with a JSON body on a new connection; the status and body. The request goes out in
/// one write, as HTTP clients send it (`write!` straight onto the socket would send each piece
/// of the format as a segment of its own, and both servers would pay for reading them).
fn post(port: u16, path: &str) -> Result<(u16, String)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let body = "{}";
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes())?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let status = response.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    Ok((status, response.split("\r\n\r\n").nth(1).unwrap_or("").to_string()))
}

fn wait_for(port: u16, what: &str) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            bail!("{what} did not listen on {port} within 30 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

#[derive(Clone, Copy)]
struct Latency {
    p50: f64,
    p99: f64,
    mean: f64,
}

fn latency(mut ms: Vec<f64>) -> Latency {
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() as f64 - 1.0) * q).round() as usize];
    Latency { p50: at(0.5), p99: at(0.99), mean: ms.iter().sum::<f64>() / ms.len() as f64 }
}

/// N sequential calls, each checked to return `{"ok": true}`.
fn sequential(calls: usize, mut call: impl FnMut() -> Result<()>) -> Result<Latency> {
    Ok(interleaved(calls, &mut [&mut call])?.remove(0))
}

/// N rounds of one call of each, in an order that turns each round (so none always goes first);
/// the latency of each. Interleaved rather than one block after another because the machine's
/// speed drifts over seconds (a shared VM): blocks measured a minute apart gave the same runtime
/// overheads up to twice apart, which said more about the minute than about the runtimes.
fn interleaved(calls: usize, each: &mut [&mut dyn FnMut() -> Result<()>]) -> Result<Vec<Latency>> {
    for call in each.iter_mut() {
        call()?; // warm-up: first loads, first process start
    }
    let mut ms = vec![Vec::with_capacity(calls); each.len()];
    for round in 0..calls {
        for turn in 0..each.len() {
            let which = (round + turn) % each.len();
            let started = Instant::now();
            each[which]()?;
            ms[which].push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    Ok(ms.into_iter().map(latency).collect())
}

/// Calls per second with several clients calling at once.
fn throughput(calls: usize, port: u16, path: &'static str) -> Result<f64> {
    let started = Instant::now();
    let per_client = calls / CONCURRENT_CLIENTS;
    let workers: Vec<_> = (0..CONCURRENT_CLIENTS)
        .map(|_| std::thread::spawn(move || (0..per_client).try_for_each(|_| checked(post(port, path)))))
        .collect();
    for worker in workers {
        worker.join().map_err(|_| anyhow::anyhow!("a client thread panicked"))??;
    }
    Ok((per_client * CONCURRENT_CLIENTS) as f64 / started.elapsed().as_secs_f64())
}

/// A call of the built-in service's `listGrants` (an array).
fn checked_list(reply: Result<(u16, String)>) -> Result<()> {
    let (status, body) = reply?;
    let value: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    if status != 200 || !value["result"].is_array() {
        bail!("a call failed: HTTP {status} {body}");
    }
    Ok(())
}

fn checked(reply: Result<(u16, String)>) -> Result<()> {
    let (status, body) = reply?;
    let value: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    if status != 200 || value["result"]["ok"] != true {
        bail!("a call failed: HTTP {status} {body}");
    }
    Ok(())
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn lavs(root: &Path, args: &[String]) -> Result<()> {
    let mut calls = 1000usize;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--calls" => {
                calls = rest.next().and_then(|n| n.parse().ok()).context("XTASK_BAD_ARGS: --calls needs a number")?
            }
            other => bail!("XTASK_BAD_ARGS: bench lavs takes --calls N, not {other:?}"),
        }
    }
    if std::process::Command::new("python3")
        .args(["-c", "import lavs_runtime"])
        .status()
        .map(|s| !s.success())
        .unwrap_or(true)
    {
        bail!("XTASK_PREREQ: the comparison needs lavs-sdk (python3 -m pip install lavs-sdk==0.2.0)");
    }
    let paths = super::perf::prepare(root)?;
    let work = paths.bench.join("lavs");
    let _ = std::fs::remove_dir_all(&work);
    let bundles = work.join("bundles");
    std::fs::create_dir_all(bundles.join("bench"))?;
    std::fs::write(bundles.join("bench/lavs.json"), MANIFEST)?;
    let data = work.join("data");
    std::fs::create_dir_all(&data)?;
    std::fs::write(data.join("config.json"), r#"{"engine": "extractive"}"#)?;

    let host = |args: &[&str]| {
        let mut command = Command::new(&paths.host);
        command.args(args).env("LAIKA_DATA_DIR", &data);
        command
    };
    let added = host(&["lavs", "add"]).arg(bundles.join("bench")).output()?;
    if !added.status.success() {
        bail!("laika-host lavs add: {}", String::from_utf8_lossy(&added.stderr));
    }
    let laika_port = free_port()?;
    let _daemon = Killed(
        host(&["daemon", "--port", &laika_port.to_string()])
            .stderr(Stdio::null())
            .spawn()
            .context("laika-host daemon")?,
    );
    let sdk_port = free_port()?;
    let _sdk = Killed(
        Command::new("python3")
            .args(["-c", SDK_SERVER, &sdk_port.to_string()])
            .arg(&bundles)
            .stderr(Stdio::null())
            .spawn()
            .context("the lavs-sdk host")?,
    );
    wait_for(laika_port, "laika-host daemon")?;
    wait_for(sdk_port, "the lavs-sdk host")?;

    eprintln!("==> {calls} rounds of a call each: the handler alone, Laika, lavs-sdk");
    let mut raw_call = || {
        let out = Command::new("echo").arg(r#"{"ok": true}"#).output()?;
        if !out.status.success() {
            bail!("echo failed");
        }
        Ok(())
    };
    let mut laika_call = || checked(post(laika_port, "/api/agents/bench/lavs/echo"));
    let mut sdk_call = || checked(post(sdk_port, "/api/call/bench/echo"));
    let [raw, laika, sdk] = interleaved(calls, &mut [&mut raw_call, &mut laika_call, &mut sdk_call])?[..] else {
        unreachable!("three runtimes measured")
    };
    let builtin = sequential(calls, || checked_list(post(laika_port, "/api/agents/laika/lavs/listGrants")))?;
    eprintln!("==> {calls} calls from {CONCURRENT_CLIENTS} clients at once");
    let laika_per_s = throughput(calls, laika_port, "/api/agents/bench/lavs/echo")?;
    let sdk_per_s = throughput(calls, sdk_port, "/api/call/bench/echo")?;

    let laika_overhead = (laika.p50 - raw.p50).max(0.0);
    let sdk_overhead = (sdk.p50 - raw.p50).max(0.0);
    let ratio = if sdk_overhead > 0.0 { laika_overhead / sdk_overhead } else { f64::INFINITY };
    let met = ratio <= TARGET_OVERHEAD_RATIO;
    println!(
        "| LAVS, script endpoint (`echo`), {calls} calls | p50 ms | p99 ms | overhead p50 ms | calls/s ({CONCURRENT_CLIENTS} clients) |"
    );
    println!("|---|---|---|---|---|");
    println!("| the handler alone | {:.2} | {:.2} | — | — |", raw.p50, raw.p99);
    println!(
        "| Laika (laika-host daemon) | {:.2} | {:.2} | {:.2} | {:.0} |",
        laika.p50, laika.p99, laika_overhead, laika_per_s
    );
    println!(
        "| lavs-sdk 0.2.0 (Python host, wsgiref) | {:.2} | {:.2} | {:.2} | {:.0} |",
        sdk.p50, sdk.p99, sdk_overhead, sdk_per_s
    );
    println!(
        "| Laika's built-in `laika` service (`listGrants`, SQLite) | {:.2} | {:.2} | — | — |",
        builtin.p50, builtin.p99
    );
    println!(
        "overhead ratio Laika / lavs-sdk: {ratio:.2} (target ≤ {TARGET_OVERHEAD_RATIO:.2}): {}",
        if met { "met" } else { "NOT met" }
    );
    let row = |l: Latency| json!({ "p50_ms": l.p50, "p99_ms": l.p99, "mean_ms": l.mean });
    let report = json!({
        "calls": calls,
        "handler": row(raw),
        "laika": { "latency": row(laika), "overhead_p50_ms": laika_overhead, "calls_per_s": laika_per_s },
        "lavs_sdk": { "latency": row(sdk), "overhead_p50_ms": sdk_overhead, "calls_per_s": sdk_per_s },
        "targets": { "overhead_ratio": { "value": ratio, "target": format!("≤ {TARGET_OVERHEAD_RATIO:.3}"), "met": met } },
        "builtin_laika_list_grants": row(builtin),
    });
    let file = paths.bench.join("lavs.json");
    std::fs::write(&file, serde_json::to_string_pretty(&report)?)?;
    eprintln!("    wrote {}", file.display());
    Ok(())
}
