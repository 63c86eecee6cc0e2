//! Crash safety of the history (security suite, part `crash`).
//!
//! The real `laika-host` (extractive engine) is driven over native messaging (the browser's
//! proxy, and behind it the daemon that owns the history) through turns that
//! write to its SQLite history and are acknowledged by their reply: `tool.result` (recorded at
//! once), `plan` (a request and a response packet, and an approval card for the click it
//! proposes) and summaries (`summary.start`, then `summary.poll` until done). A seeded generator
//! kills the host with SIGKILL at random points: after a request is sent and before its reply is
//! read (at once or a few milliseconds later), right after a reply arrived, and while the host is
//! starting up. A kill takes the daemon (pid from `daemon.json`) and the proxy down together, as
//! a crash or `kill -9` would; each time a new proxy is started on the same data directory and
//! starts a new daemon, the way a browser's next request does.
//!
//! Every turn whose reply arrived is recorded. At the end `PRAGMA integrity_check` must say
//! `ok`, and every acknowledged turn must be in the file (tool results by call id, plans and
//! summaries by the ids of their request and response packets, plan approvals by id), and a new
//! host must serve the history. 150 turns, or 1,000 with `LAIKA_SECURITY_SCALE=full`;
//! `LAIKA_CRASH_SEED` picks another seed. With `LAIKA_SECURITY_OUT=DIR` the counts go to
//! `DIR/crash.json`.

use rusqlite::Connection;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

mod support;
use support::Rng;

const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<Option<Value>>,
    stderr: Option<std::thread::JoinHandle<String>>,
    next_id: u64,
    data_dir: PathBuf,
}

impl Host {
    fn start(data_dir: &Path) -> Host {
        let mut child = support::host_command(data_dir)
            .arg("chrome-extension://abcdefghijklmnopabcdefghijklmnop/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("laika-host starts");
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, replies) = channel();
        std::thread::spawn(move || {
            loop {
                // A reply cut off by a kill is no reply.
                let Some(body) = support::read_frame(&mut stdout) else {
                    let _ = tx.send(None);
                    return;
                };
                if tx.send(Some(serde_json::from_slice(&body).expect("replies are JSON"))).is_err() {
                    return;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = stderr.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        });
        Host { stdin: child.stdin.take(), child, replies, stderr: Some(stderr), next_id: 0, data_dir: data_dir.into() }
    }

    /// Sends a request; returns its id.
    fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let bytes = support::request(self.next_id, method, params);
        let stdin = self.stdin.as_mut().expect("the host's input is open");
        stdin.write_all(&bytes).and_then(|_| stdin.flush()).expect("the host reads its input");
        self.next_id
    }

    fn reply(&mut self, id: u64) -> Value {
        let reply = self.replies.recv_timeout(REPLY_TIMEOUT).expect("the host answers within a minute");
        let Some(reply) = reply else {
            // The host closed its output: say what it wrote before it went.
            let _ = self.child.wait();
            let stderr = self.stderr.take().map(|t| t.join().unwrap_or_default()).unwrap_or_default();
            panic!("the host closed before it answered request {id}; its stderr:\n{stderr}");
        };
        assert_eq!(reply["id"], id, "{reply}");
        assert!(reply.get("error").is_none(), "{reply}");
        reply["result"].clone()
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.reply(id)
    }

    /// SIGKILL to the daemon that does the work (when it has started) and to the browser's
    /// proxy. Returns the proxy's stderr, which must show no panic.
    fn kill(mut self) -> String {
        if let Some(pid) = support::daemon_pid(&self.data_dir) {
            // It may have gone already (a previous kill, idle exit): then there is nothing to kill.
            let _ = std::process::Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            // `kill` returns once the signal is sent, not once the daemon is gone: a host started
            // before then can still connect to it and lose it at once (HOST_DAEMON_LOST on its
            // first request), which is a daemon dying mid-handshake, not the kill between turns
            // this stands for.
            support::wait_gone(pid);
        }
        self.child.kill().expect("kill the host");
        self.child.wait().expect("reap the host");
        self.stderr.take().unwrap().join().unwrap_or_default()
    }

    fn stop(mut self) -> String {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let stderr = self.stderr.take().unwrap().join().unwrap_or_default();
        assert!(status.success(), "the host exits cleanly at end of input: {stderr}");
        stderr
    }
}

fn data_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("laika-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), r#"{"engine": "extractive"}"#).unwrap();
    dir
}

fn observation(n: u64) -> Value {
    json!({
        "url": format!("https://crash.example/page/{n}"),
        "title": format!("Page {n}"),
        "text": format!("Page {n} opens with a plain sentence about otters. Otters use stones to crack shells. \
                         The third sentence of page {n} closes the paragraph."),
        "elements": [{ "handle_id": "laika-1", "role": "button", "text": "Next page" }],
    })
}

/// What an acknowledged turn left in the history.
enum Expect {
    ToolResult { call_id: String },
    Packets { ids: Vec<String>, approvals: Vec<String> },
}

/// Where in a turn the host is killed.
#[derive(Clone, Copy, PartialEq)]
enum Kill {
    None,
    /// Right after the request is written, before any reply is read.
    MidRequestAtOnce,
    /// A few milliseconds after the request is written (often inside the commit).
    MidRequestAfterDelay,
    /// As soon as the reply has arrived.
    AfterAck,
}

impl Kill {
    fn name(self) -> &'static str {
        match self {
            Kill::None => "none",
            Kill::MidRequestAtOnce => "mid_request_at_once",
            Kill::MidRequestAfterDelay => "mid_request_after_delay",
            Kill::AfterAck => "after_ack",
        }
    }
}

fn pick_kill(rng: &mut Rng) -> Kill {
    match rng.below(100) {
        0..=5 => Kill::MidRequestAtOnce,
        6..=11 => Kill::MidRequestAfterDelay,
        12..=16 => Kill::AfterAck,
        _ => Kill::None,
    }
}

/// Sends one request of a turn under `kill`: the reply, or `None` when the host was killed
/// before it was read (the host is then gone and `host` must be restarted).
fn step(host: &mut Host, rng: &mut Rng, kill: Kill, method: &str, params: Value) -> Option<Value> {
    let id = host.send(method, params);
    match kill {
        Kill::MidRequestAtOnce => None,
        Kill::MidRequestAfterDelay => {
            std::thread::sleep(Duration::from_micros(rng.below(4_000)));
            None
        }
        Kill::None | Kill::AfterAck => Some(host.reply(id)),
    }
}

#[test]
fn acknowledged_turns_survive_sigkill_at_random_points() {
    let full = std::env::var("LAIKA_SECURITY_SCALE").is_ok_and(|s| s == "full");
    let turns: u64 = if full { 1_000 } else { 150 };
    let seed = std::env::var("LAIKA_CRASH_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x0001_a1ca_5afe);
    let mut rng = Rng(seed);
    let dir = data_dir();
    let started = Instant::now();

    let mut host = Host::start(&dir);
    let mut kills: BTreeMap<&str, u64> = BTreeMap::new();
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    let mut acknowledged: Vec<(u64, Expect)> = Vec::new();
    let mut stderr_all = String::new();
    let mut restarts = 0;
    // Tool results whose host was killed before their reply was read: stored or not, either is
    // fine; how many were stored shows the kills landing inside the write.
    let mut unacknowledged_calls: Vec<String> = Vec::new();

    for turn in 0..turns {
        // Now and then the host is killed between turns, and its successor while it starts up
        // (opening and migrating the file).
        if rng.below(100) < 4 {
            stderr_all.push_str(&host.kill());
            host = Host::start(&dir);
            std::thread::sleep(Duration::from_micros(rng.below(30_000)));
            stderr_all.push_str(&host.kill());
            host = Host::start(&dir);
            *kills.entry("between_turns").or_default() += 1;
            *kills.entry("startup").or_default() += 1;
            restarts += 2;
        }
        let kill = pick_kill(&mut rng);
        let conversation = format!("conv-{}", turn / 8);
        let kind = match rng.below(100) {
            0..=64 => "tool.result",
            65..=89 => "plan",
            _ => "summary",
        };
        *kinds.entry(kind).or_default() += 1;
        let expect = match kind {
            "tool.result" => {
                let call_id = format!("call-{turn}");
                let params = json!({
                    "run_id": format!("run-{turn}"), "conversation_id": conversation, "step": 1, "call_id": call_id,
                    "name": "browser.click", "ok": true, "result": { "tag": "button", "text": "Next page" },
                });
                let reply = step(&mut host, &mut rng, kill, "tool.result", params);
                if reply.is_none() {
                    unacknowledged_calls.push(call_id.clone());
                }
                reply.map(|result| {
                    assert_eq!(result["recorded"], true, "{result}");
                    Expect::ToolResult { call_id }
                })
            }
            "plan" => {
                let params = json!({ "goal": "click Next page", "observation": observation(turn) });
                step(&mut host, &mut rng, kill, "plan", params).map(|result| {
                    let approvals = result["tool_calls"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter_map(|c| c["approval_id"].as_str().map(String::from))
                        .collect::<Vec<_>>();
                    assert_eq!(approvals.len(), 1, "the click asks: {result}");
                    let ids = [&result["request_id"], &result["response_id"]]
                        .iter()
                        .map(|v| v.as_str().expect("packet ids").to_string())
                        .collect();
                    Expect::Packets { ids, approvals }
                })
            }
            _ => {
                // Start, then poll until done; the kill (if any) falls on a random request of the turn.
                let polls_before_kill = rng.below(4);
                let start_kill = if polls_before_kill == 0 { kill } else { Kill::None };
                let started =
                    step(&mut host, &mut rng, start_kill, "summary.start", json!({ "observation": observation(turn) }));
                started.and_then(|started| {
                    let job = started["job_id"].as_str().unwrap().to_string();
                    let mut polls = 0;
                    loop {
                        polls += 1;
                        let poll_kill = if polls == polls_before_kill { kill } else { Kill::None };
                        let poll = step(&mut host, &mut rng, poll_kill, "summary.poll", json!({ "job_id": job }))?;
                        if poll["done"] == true {
                            assert!(poll["error"].is_null(), "{poll}");
                            let ids = vec![
                                poll["result"]["request_id"].as_str().unwrap().to_string(),
                                poll["result"]["response"]["id"].as_str().unwrap().to_string(),
                            ];
                            break Some(Expect::Packets { ids, approvals: vec![] });
                        }
                        assert!(polls < 1_000, "the summary never finished");
                        std::thread::sleep(Duration::from_millis(2));
                    }
                })
            }
        };
        let acked = expect.is_some();
        if let Some(expect) = expect {
            acknowledged.push((turn, expect));
        }
        if kill != Kill::None {
            // A kill planned for a later poll of a summary that finished first falls after its ack.
            let point = if acked && kill != Kill::AfterAck { "after_ack" } else { kill.name() };
            *kills.entry(point).or_default() += 1;
            stderr_all.push_str(&host.kill());
            host = Host::start(&dir);
            restarts += 1;
        }
    }
    stderr_all.push_str(&host.stop());

    // The file, read directly.
    let db = dir.join("history.sqlite3");
    let conn = Connection::open(&db).expect("the history opens");
    let integrity: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .unwrap()
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let integrity = integrity.join("; ");
    let foreign_key_problems: i64 =
        conn.query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |r| r.get(0)).unwrap();
    let mut message_ids = HashSet::new();
    let mut call_ids = HashSet::new();
    {
        let mut stmt = conn.prepare("SELECT id, packet_json FROM messages").unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).unwrap();
        for row in rows {
            let (id, json) = row.unwrap();
            let packet: Value = serde_json::from_str(&json).expect("stored packets are JSON");
            if let Some(call_id) = packet.pointer("/tool_result/call_id").and_then(Value::as_str) {
                call_ids.insert(call_id.to_string());
            }
            message_ids.insert(id);
        }
    }
    let approval_ids: HashSet<String> = conn
        .prepare("SELECT id FROM approvals")
        .unwrap()
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let messages_in_db = message_ids.len();
    drop(conn);
    let mut missing = Vec::new();
    for (turn, expect) in &acknowledged {
        match expect {
            Expect::ToolResult { call_id } => {
                if !call_ids.contains(call_id) {
                    missing.push(format!("turn {turn}: tool result {call_id}"));
                }
            }
            Expect::Packets { ids, approvals } => {
                for id in ids.iter().filter(|id| !message_ids.contains(*id)) {
                    missing.push(format!("turn {turn}: packet {id}"));
                }
                for id in approvals.iter().filter(|id| !approval_ids.contains(*id)) {
                    missing.push(format!("turn {turn}: approval {id}"));
                }
            }
        }
    }

    // And through a new host: the history is readable after all those crashes.
    let mut host = Host::start(&dir);
    let listed = host.call("history.list", json!({ "limit": 500 }));
    let conversations = listed["conversations"].as_array().unwrap().len();
    let first_tool = acknowledged.iter().find_map(|(turn, e)| match e {
        Expect::ToolResult { call_id } => Some((format!("conv-{}", turn / 8), call_id.clone())),
        Expect::Packets { .. } => None,
    });
    let sample = first_tool
        .as_ref()
        .map(|(conversation, _)| host.call("history.get", json!({ "conversation_id": conversation })));
    let exported = host.call("history.export", json!({}));
    stderr_all.push_str(&host.stop());
    // Every daemon of the run logged to the same file.
    stderr_all.push_str(&support::daemon_log(&dir));
    let panicked = stderr_all.contains("panicked");
    // Each daemon logs one line as it starts serving: the kills took daemons down, and the next
    // proxy started a new one each time.
    let daemons_started = stderr_all.matches(": browsers on ").count();

    let report = json!({
        "part": "crash",
        "scale": if full { "full" } else { "ci" },
        "seed": seed,
        "turns": turns,
        "turn_kinds": kinds,
        "kills": kills.values().sum::<u64>(),
        "kill_points": kills,
        "restarts": restarts,
        "daemons_started": daemons_started,
        "acknowledged": acknowledged.len(),
        "unacknowledged_tool_results": unacknowledged_calls.len(),
        "unacknowledged_but_stored": unacknowledged_calls.iter().filter(|c| call_ids.contains(*c)).count(),
        "missing": missing.len(),
        "integrity": integrity,
        "foreign_key_problems": foreign_key_problems,
        "messages_in_db": messages_in_db,
        "approvals_in_db": approval_ids.len(),
        "conversations_listed": conversations,
        "panicked": panicked,
        "seconds": started.elapsed().as_secs_f64(),
    });
    write_report("crash", &report);
    eprintln!("{report}");

    assert_eq!(integrity, "ok");
    assert_eq!(foreign_key_problems, 0);
    assert!(missing.is_empty(), "acknowledged but lost ({}):\n{}", missing.len(), missing.join("\n"));
    assert!(!panicked, "{stderr_all}");
    assert!(daemons_started as u64 > kills.values().sum::<u64>() / 2, "daemons started: {daemons_started}");
    if let (Some((_, call_id)), Some(sample)) = (&first_tool, &sample) {
        assert!(sample.to_string().contains(call_id.as_str()), "history.get misses {call_id}: {sample}");
    }
    assert!(conversations > 0);
    assert!(exported["export"]["conversations"].is_array());
    // The run did what it says: real kills at every point, and most turns acknowledged.
    for point in ["mid_request_at_once", "mid_request_after_delay", "after_ack", "startup"] {
        assert!(kills.get(point).is_some_and(|&n| n > 0), "no kill at {point}: {kills:?}");
    }
    assert!(acknowledged.len() as u64 > turns / 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `$LAIKA_SECURITY_OUT/<part>.json`, when the suite collects results.
fn write_report(part: &str, report: &Value) {
    let Some(dir) = std::env::var_os("LAIKA_SECURITY_OUT") else { return };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("create LAIKA_SECURITY_OUT");
    std::fs::write(dir.join(format!("{part}.json")), serde_json::to_string_pretty(report).unwrap())
        .expect("write the security report");
}
