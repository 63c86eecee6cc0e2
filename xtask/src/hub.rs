//! `cargo xtask bench hub [--clients N]`: the Lark hub under load. Builds the host (the dev
//! profile, as every host benchmark: `perf`'s module comment), runs `laika-host bench hub`, which
//! starts a real `laika-host daemon` and signs N clients (default 1,000) in over loopback
//! WebSockets (`native-host/src/hub_bench.rs` says what it measures and how), then writes
//! `target/bench/hub.json` and prints the figures beside the targets (#27): fan-out p99
//! ≤ 50 ms to 1,000 subscribers, ≤ 64 KB of daemon memory per idle connection.

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::path::Path;

const TARGET_FANOUT_P99_MS: f64 = 50.0;
const TARGET_IDLE_KB: f64 = 64.0;

pub fn hub(root: &Path, args: &[String]) -> Result<()> {
    let mut clients = "1000".to_string();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--clients" => clients = rest.next().context("XTASK_BAD_ARGS: --clients needs a number")?.clone(),
            other => bail!("XTASK_BAD_ARGS: bench hub takes --clients N, not {other:?}"),
        }
    }
    let paths = super::perf::prepare(root)?;
    eprintln!("==> laika-host bench hub --clients {clients}");
    let out = super::perf::host_command(&paths)
        .args(["bench", "hub", "--clients", &clients])
        .output()
        .context("cannot run laika-host bench hub")?;
    if !out.status.success() {
        bail!("XTASK_STEP_FAILED: laika-host bench hub: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let mut report: Value = serde_json::from_slice(&out.stdout).context("laika-host bench hub printed no JSON")?;
    let p99 = report["fanout_p99_ms"].as_f64().unwrap_or(f64::INFINITY);
    let idle = report["idle_kb_per_connection"].as_f64().unwrap_or(f64::INFINITY);
    let complete = report["fanout_deliveries"] == report["fanout_deliveries_expected"];
    report["targets"] = json!({
        "fanout_p99_ms": { "value": p99, "target": format!("≤ {TARGET_FANOUT_P99_MS}"), "met": p99 <= TARGET_FANOUT_P99_MS && complete },
        "idle_kb_per_connection": { "value": idle, "target": format!("≤ {TARGET_IDLE_KB}"), "met": idle <= TARGET_IDLE_KB },
    });
    let file = paths.bench.join("hub.json");
    std::fs::write(&file, serde_json::to_string_pretty(&report)?)?;
    let f = |key: &str| report[key].as_f64().unwrap_or(f64::NAN);
    println!("| Lark hub, {} clients | |", report["clients"]);
    println!("|---|---|");
    println!("| sign-in of all clients | {:.2} s |", f("connect_s"));
    println!(
        "| daemon RSS before → connected, idle | {:.1} → {:.1} MB |",
        f("daemon_rss_before_mb"),
        f("daemon_rss_connected_mb")
    );
    println!("| per idle connection (≤ {TARGET_IDLE_KB} KB) | {:.1} KB |", idle);
    println!(
        "| fan-out to every client, p50 / p99 (≤ {TARGET_FANOUT_P99_MS} ms) / max | {:.1} / {:.1} / {:.1} ms ({} of {} deliveries) |",
        f("fanout_p50_ms"),
        p99,
        f("fanout_max_ms"),
        report["fanout_deliveries"],
        report["fanout_deliveries_expected"]
    );
    println!(
        "| messages acknowledged per second, {} senders in one channel | {:.0} ({:.0} deliveries/s) |",
        report["busy_subscribers"],
        f("busy_messages_per_s"),
        f("busy_deliveries_per_s")
    );
    for (name, target) in report["targets"].as_object().into_iter().flatten() {
        println!(
            "{name}: {} (target {}): {}",
            target["value"],
            target["target"].as_str().unwrap_or(""),
            if target["met"] == true { "met" } else { "NOT met" }
        );
    }
    eprintln!("    wrote {}", file.display());
    Ok(())
}
