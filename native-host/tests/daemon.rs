//! `laika-host daemon` and `laika-host lark …` as a user runs them: members made on the command
//! line sign in to the running daemon over a real WebSocket, a mention wakes the agent, and
//! SIGTERM stops the daemon cleanly. Two browsers' native-messaging proxies share one daemon
//! (one engine, one set of jobs, one history), and the next proxy after the daemon stops starts
//! a new one.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

mod support;

fn host(data: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_laika-host"))
        .args(args)
        .env("LAIKA_DATA_DIR", data)
        .output()
        .expect("laika-host runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_str(stdout.trim()).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a frame within 10 s");
        match frame {
            Some(Ok(Message::Text(text))) => {
                let value: Value = serde_json::from_str(&text).unwrap();
                if value["type"] == kind {
                    return value;
                }
            }
            Some(Ok(_)) => {}
            other => panic!("the connection ended waiting for {kind}: {other:?}"),
        }
    }
}

async fn login(url: &str, token: &str) -> Ws {
    let mut ws = tokio_tungstenite::connect_async(url).await.unwrap().0;
    ws.send(Message::Text(json!({ "type": "auth.login", "data": { "token": token } }).to_string().into()))
        .await
        .unwrap();
    next_of(&mut ws, "auth.success").await;
    ws
}

#[test]
fn members_made_on_the_command_line_meet_on_the_daemons_hub() {
    let data = fresh_dir("daemon");
    let (code, alice, _) = host(&data, &["lark", "member", "add", "alice"]);
    assert_eq!(code, 0);
    let (code, _, stderr) = host(&data, &["lark", "member", "add", "Laika", "--agent"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("LARK_NAME_RESERVED"), "{stderr}");
    let (_, bot, _) = host(&data, &["lark", "member", "add", "codebot", "--agent"]);
    assert!(bot["token"].as_str().unwrap().starts_with("lr_"), "{bot}");
    let (code, _, stderr) = host(&data, &["lark", "member", "add", "Alice"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("LARK_NAME_TAKEN"), "{stderr}");
    let ids = [alice["member_id"].as_str().unwrap(), bot["member_id"].as_str().unwrap()];
    let (code, channel, _) = host(&data, &["lark", "channel", "add", "page-1", "--member", ids[0], "--member", ids[1]]);
    assert_eq!(code, 0);
    let channel = channel["channel_id"].as_str().unwrap().to_string();

    let (daemon, port) = Daemon::start(&data);
    let url = format!("ws://127.0.0.1:{port}/ws");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut alice_ws = login(&url, alice["token"].as_str().unwrap()).await;
        let mut bot_ws = login(&url, bot["token"].as_str().unwrap()).await;
        let send =
            json!({ "type": "message.send", "data": { "channel_id": channel, "content": "Summarise it, @codebot." } });
        alice_ws.send(Message::Text(send.to_string().into())).await.unwrap();
        let wake = next_of(&mut bot_ws, "agent.wake").await;
        assert_eq!(wake["data"]["reason"], "mention");
        assert_eq!(wake["data"]["context"]["recent_messages"][0]["content"], "Summarise it, @codebot.");
    });

    // A second daemon on the same data directory, or on the same port, says why it cannot start.
    let (code, _, stderr) = host(&data, &["daemon", "--port", &free_port().to_string()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("DAEMON_RUNNING"), "{stderr}");
    let other = fresh_dir("daemon-other");
    let (code, _, stderr) = host(&other, &["daemon", "--port", &port.to_string()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("DAEMON_PORT_BUSY"), "{stderr}");

    daemon.stop();
    // The hub's store survives the daemon.
    assert!(data.join("lark.sqlite3").is_file());
}

/// An empty data directory of this test run's own, removed when the test ends.
fn fresh_dir(name: &str) -> support::TestDir {
    support::TestDir::new(&format!("{name}-test"))
}

#[test]
fn the_hub_benchmark_runs_against_a_real_daemon() {
    let data = fresh_dir("hub-bench");
    let (code, report, stderr) = host(&data, &["bench", "hub", "--clients", "20", "--fanout-messages", "2"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(report["fanout_deliveries"], 40, "{report}");
    assert_eq!(report["busy_subscribers_complete"], 20, "{report}");
    assert!(report["idle_kb_per_connection"].as_f64().is_some_and(|kb| kb >= 0.0), "{report}");
}

/// A browser's end of native messaging: `laika-host` started as Chromium or Firefox starts it.
struct Browser {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: std::process::ChildStdout,
    next_id: u64,
}

impl Browser {
    fn start(data: &Path, args: &[&str]) -> Browser {
        let mut child = support::host_command(data)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("laika-host starts");
        Browser { stdin: child.stdin.take(), stdout: child.stdout.take().unwrap(), child, next_id: 0 }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        use std::io::Write;
        self.next_id += 1;
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(&support::request(self.next_id, method, params)).unwrap();
        stdin.flush().unwrap();
        let body = support::read_frame(&mut self.stdout).expect("a reply");
        let reply: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(reply["id"], self.next_id, "{reply}");
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// Closes the browser's side; returns the proxy's exit status and stderr.
    fn close(mut self) -> (std::process::ExitStatus, String) {
        use std::io::Read;
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let mut stderr = String::new();
        let _ = self.child.stderr.take().unwrap().read_to_string(&mut stderr);
        (status, stderr)
    }
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn two_browsers_share_one_daemon_and_a_stopped_daemon_is_started_again() {
    let data = fresh_dir("proxy");
    std::fs::write(data.join("config.json"), r#"{"engine": "extractive"}"#).unwrap();
    // Chromium passes the extension's origin; `native` is what a user or Firefox's wrapper runs.
    let mut chrome = Browser::start(&data, &["chrome-extension://abcdefghijklmnopabcdefghijklmnop/"]);
    let mut firefox = Browser::start(&data, &["native"]);
    let (a, b) = (chrome.call("host.info", json!({})), firefox.call("host.info", json!({})));
    assert_eq!(a["served_by"], "daemon", "{a}");
    assert_eq!(a["pid"], b["pid"], "both browsers are served by one daemon: {a} {b}");
    let daemon = a["pid"].as_u64().unwrap() as u32;
    assert!(daemon != chrome.child.id() && daemon != firefox.child.id());
    assert_eq!(support::daemon_pid(&data), Some(daemon));
    assert!(data.join("laika.sock").exists());

    // A summary started in one browser is the same job in the other, and lands in one history.
    let observation = json!({
        "url": "https://shared.example/otters", "title": "Otters",
        "text": "Otters use stones to crack shells. They float on their backs while they eat. \
                 A group of otters resting together is called a raft.",
        "elements": [],
    });
    let started = chrome.call("summary.start", json!({ "observation": observation }));
    let job = started["job_id"].clone();
    let mut polls = 0;
    let done = loop {
        let poll = firefox.call("summary.poll", json!({ "job_id": job }));
        if poll["done"] == true {
            break poll;
        }
        polls += 1;
        assert!(polls < 2_000, "the summary never finished");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(done["error"].is_null(), "{done}");
    let listed = firefox.call("history.list", json!({}));
    assert_eq!(listed["conversations"][0]["id"], started["conversation"]["id"], "{listed}");

    // SIGTERM: the daemon stops cleanly, its socket and daemon.json go, its WAL is checkpointed;
    // the proxies lose it and say so.
    assert!(Command::new("kill").args(["-TERM", &daemon.to_string()]).status().unwrap().success());
    wait_until("the daemon is gone", || {
        !std::path::Path::new(&format!("/proc/{daemon}")).exists() || {
            let stat = std::fs::read_to_string(format!("/proc/{daemon}/stat")).unwrap_or_default();
            stat.split_whitespace().nth(2) == Some("Z")
        }
    });
    assert!(!data.join("laika.sock").exists());
    assert_eq!(support::daemon_pid(&data), None);
    let wal = std::fs::metadata(data.join("history.sqlite3-wal")).map(|m| m.len()).unwrap_or(0);
    assert_eq!(wal, 0, "the write-ahead log was checkpointed");
    let log = support::daemon_log(&data);
    assert!(log.contains("stopping (signal)"), "{log}");
    let (status, stderr) = chrome.close();
    assert!(!status.success() && stderr.contains("HOST_DAEMON_LOST"), "{status:?} {stderr}");
    let _ = firefox.close();

    // The next browser request starts a new daemon, which has the history.
    let mut again = Browser::start(&data, &["native"]);
    let info = again.call("host.info", json!({}));
    assert_eq!(info["served_by"], "daemon");
    assert_ne!(info["pid"], a["pid"]);
    let listed = again.call("history.list", json!({}));
    assert_eq!(listed["conversations"][0]["id"], started["conversation"]["id"], "{listed}");
    let (status, _) = again.close();
    assert!(status.success());
    // Unused, it leaves after its idle time (support::DAEMON_IDLE_SECS).
    let second = info["pid"].as_u64().unwrap();
    wait_until("the idle daemon leaves", || support::daemon_pid(&data).is_none());
    assert!(support::daemon_log(&data).contains(&format!("daemon {second}: unused for")));
}

#[test]
fn in_process_serves_without_a_daemon() {
    let data = fresh_dir("in-process");
    let mut browser = Browser::start(&data, &["native", "--in-process"]);
    let info = browser.call("host.info", json!({}));
    assert_eq!(info["served_by"], "process");
    assert_eq!(info["pid"], browser.child.id());
    assert!(!data.join("laika.sock").exists());
    let (status, _) = browser.close();
    assert!(status.success());
}

/// The next frame of `kind` whose data matches `want`, skipping others.
async fn next_matching(ws: &mut Ws, kind: &str, want: impl Fn(&Value) -> bool) -> Value {
    loop {
        let frame = next_of(ws, kind).await;
        if want(&frame["data"]) {
            return frame;
        }
    }
}

#[test]
fn laika_posts_to_the_bus_and_any_client_answers_its_approvals() {
    let data = fresh_dir("bus");
    std::fs::write(data.join("config.json"), r#"{"engine": "extractive"}"#).unwrap();
    let (code, alice, _) = host(&data, &["lark", "member", "add", "alice"]);
    assert_eq!(code, 0);
    let token = alice["token"].as_str().unwrap().to_string();
    let (daemon, port) = Daemon::start(&data);
    let url = format!("ws://127.0.0.1:{port}/ws");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut ws = runtime.block_on(async { login(&url, &token).await });
    // The browser reaches the same daemon through its proxy.
    let mut browser = Browser::start(&data, &["native"]);
    let info = browser.call("host.info", json!({}));
    assert_eq!(info["pid"], daemon.0.id());

    // A summary is posted to the conversation's channel, which alice hears at once.
    let observation = json!({
        "url": "https://news.example.com/otters", "title": "Sea otters use stones",
        "text": "Sea otters use stones to crack open shellfish. They float on their backs while they eat. \
                 A group of otters resting together is called a raft.",
        "elements": [{ "handle_id": "laika-1", "role": "button", "text": "Next page" }],
    });
    let started = browser.call("summary.start", json!({ "observation": observation }));
    let conversation = started["conversation"]["id"].as_str().unwrap().to_string();
    let joined = runtime.block_on(next_of(&mut ws, "channel.join"));
    let channel = joined["data"]["channel_id"].as_str().unwrap().to_string();
    assert_eq!(joined["data"]["name"], "sea-otters-use-stones");
    let posted = runtime.block_on(next_matching(&mut ws, "message.new", |d| d["channel_id"] == channel.as_str()));
    assert_eq!(posted["data"]["sender_name"], "laika");
    let summary = posted["data"]["content"].as_str().unwrap();
    assert!(summary.contains("Sea otters use stones") && summary.contains("crack open shellfish"), "{summary}");

    // The gate's question reaches the hub; alice approves it there; the browser sees it answered.
    let plan = browser.call(
        "plan",
        json!({ "goal": "click Next page", "observation": observation, "conversation_id": conversation }),
    );
    let approval_id = plan["tool_calls"][0]["approval_id"].as_str().expect("the click asks").to_string();
    let request = runtime.block_on(next_of(&mut ws, "approval.request"));
    assert_eq!(request["data"]["channel_id"], channel.as_str());
    assert_eq!(request["data"]["action"], "browser.click");
    let payload: Value = serde_json::from_str(request["data"]["payload"].as_str().unwrap()).unwrap();
    assert_eq!(payload["approval_id"], approval_id.as_str());
    let hub_id = request["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        browser.call("approval.get", json!({ "approval_id": approval_id }))["approval"]["decision"],
        Value::Null
    );
    assert_eq!(browser.call("approval.list", json!({}))["approvals"][0]["id"], approval_id.as_str());
    runtime.block_on(async {
        let decide = json!({ "type": "approval.decide", "data": { "approval_id": hub_id, "decision": "approve" } });
        ws.send(Message::Text(decide.to_string().into())).await.unwrap();
    });
    let resolved = runtime.block_on(next_of(&mut ws, "approval.resolved"));
    assert_eq!(resolved["data"]["status"], "approved");
    assert_eq!(browser.call("approval.get", json!({ "approval_id": approval_id }))["approval"]["decision"], "approve");
    assert_eq!(browser.call("approval.list", json!({}))["approvals"], json!([]));

    // The next one is answered on the command line; the hub sees it resolved and refuses a late answer.
    let plan = browser.call(
        "plan",
        json!({ "goal": "click Next page", "observation": observation, "conversation_id": conversation }),
    );
    let second = plan["tool_calls"][0]["approval_id"].as_str().unwrap().to_string();
    let request = runtime.block_on(next_of(&mut ws, "approval.request"));
    let second_hub = request["data"]["id"].as_str().unwrap().to_string();
    let listed = Command::new(env!("CARGO_BIN_EXE_laika-host"))
        .args(["approvals", "list"])
        .env("LAIKA_DATA_DIR", &data)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains(&second) && listed.contains("browser.click"), "{listed}");
    let (code, _, stderr) = host(&data, &["approvals", "deny", &second]);
    assert_eq!(code, 0, "{stderr}");
    let resolved = runtime.block_on(next_matching(&mut ws, "approval.resolved", |d| d["id"] == second_hub.as_str()));
    assert_eq!(resolved["data"]["status"], "denied");
    let (code, _, stderr) = host(&data, &["approvals", "approve", &second]);
    assert_eq!(code, 2);
    assert!(stderr.contains("HISTORY_ALREADY_DECIDED"), "{stderr}");
    runtime.block_on(async {
        let late = json!({ "type": "approval.decide", "data": { "approval_id": second_hub, "decision": "approve" } });
        ws.send(Message::Text(late.to_string().into())).await.unwrap();
        let error = next_of(&mut ws, "error").await;
        assert_eq!(error["data"]["error"], "approval already decided", "{error}");
    });

    // @laika in the channel: a grounded answer about the page, posted there.
    runtime.block_on(async {
        let ask = json!({ "type": "message.send", "data": { "channel_id": channel, "content": "@laika what do sea otters crack open?" } });
        ws.send(Message::Text(ask.to_string().into())).await.unwrap();
    });
    let thinking = runtime.block_on(next_of(&mut ws, "typing.start"));
    assert_eq!(thinking["data"]["channel_id"], channel.as_str());
    let answer = runtime.block_on(next_matching(&mut ws, "message.new", |d| d["sender_name"] == "laika"));
    let answer = answer["data"]["content"].as_str().unwrap();
    assert!(answer.starts_with("**Q:** what do sea otters crack open?"), "{answer}");
    assert!(answer.contains("shellfish"), "{answer}");

    let _ = browser.close();
    daemon.stop();
}

/// The published LAVS Python client (PyPI `lavs-sdk`) against the daemon: the manifest, calls,
/// an error, and a subscription's push. Prints what it saw as JSON.
const LAVS_SDK_CLIENT: &str = r#"
import json, sys, threading, time
from lavs_client import LAVSClient
from lavs_types import LAVSError

base = sys.argv[1]
out = {}
notes = LAVSClient("simple-notes", base_url=base)
manifest = notes.get_manifest()
out["manifest"] = [manifest.name, [e.id for e in manifest.endpoints]]
notes.call("saveNote", {"NOTE": "from the sdk"})
out["notes"] = notes.call("getNotes")
try:
    notes.call("nothing")
except LAVSError as e:
    out["unknown"] = e.code
todo = LAVSClient("todo-manager", base_url=base)
pushes, arrived = [], threading.Event()
def on_push(data):
    pushes.append(data)
    arrived.set()
stop = todo.subscribe("todoUpdates", on_push)
time.sleep(0.8)
out["added"] = todo.call("addTodo", {"text": "via the sdk"})["text"]
arrived.wait(10)
stop()
out["pushes"] = pushes
print(json.dumps(out))
"#;

#[test]
fn lavs_services_are_installed_on_the_command_line_and_served_on_the_daemons_port() {
    let data = fresh_dir("lavs");
    std::fs::write(data.join("config.json"), r#"{"engine": "extractive"}"#).unwrap();
    let examples = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
    )
    .join("../lavs/examples");
    let out = Command::new(env!("CARGO_BIN_EXE_laika-host"))
        .args(["lavs", "add"])
        .arg(examples.join("simple-notes"))
        .env("LAIKA_DATA_DIR", &data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A broken manifest is refused, naming the field.
    let broken = data.join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("lavs.json"), r#"{"lavs": "1.0", "name": "broken", "version": "1", "endpoints": [{"id": "x", "method": "poll", "handler": {"type": "script", "command": "true"}}]}"#).unwrap();
    let (code, _, stderr) = host(&data, &["lavs", "add", broken.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("LAVS_INVALID_MANIFEST") && stderr.contains("/endpoints/0/method"), "{stderr}");

    let (daemon, port) = Daemon::start(&data);
    let base = format!("http://127.0.0.1:{port}");
    // Added while the daemon runs: served at its first call.
    let out = Command::new(env!("CARGO_BIN_EXE_laika-host"))
        .args(["lavs", "add"])
        .arg(examples.join("todo-manager"))
        .env("LAIKA_DATA_DIR", &data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed = Command::new(env!("CARGO_BIN_EXE_laika-host"))
        .args(["lavs", "list"])
        .env("LAIKA_DATA_DIR", &data)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("simple-notes 1.0.0: getNotes (query), saveNote (mutation)"), "{listed}");
    assert!(listed.contains("todo-manager 1.0.0"), "{listed}");

    // The browser's side: native messaging through the proxy.
    let mut browser = Browser::start(&data, &["native"]);
    let services = browser.call("lavs.list", json!({}));
    let names: Vec<&str> =
        services["services"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["laika", "simple-notes", "todo-manager"], "the built-in service first, then the installed");
    browser.call(
        "lavs.call",
        json!({ "service": "simple-notes", "endpoint": "saveNote", "input": { "NOTE": "from the sidecar" } }),
    );

    let sdk = Command::new("python3").args(["-c", LAVS_SDK_CLIENT, &base]).output().unwrap();
    if !sdk.status.success() {
        let stderr = String::from_utf8_lossy(&sdk.stderr);
        assert!(
            std::env::var_os("LAIKA_REQUIRE_LAVS_SDK").is_none() && stderr.contains("ModuleNotFoundError"),
            "the lavs-sdk client failed: {stderr}"
        );
        eprintln!("lavs-sdk is not installed (pip install lavs-sdk==0.2.0): its part is skipped");
    } else {
        let seen: Value = serde_json::from_slice(&sdk.stdout).unwrap();
        assert_eq!(seen["manifest"], json!(["simple-notes", ["getNotes", "saveNote"]]), "{seen}");
        assert_eq!(seen["notes"], "from the sidecar\nfrom the sdk", "{seen}");
        assert_eq!(seen["unknown"], -32601, "{seen}");
        assert_eq!(seen["added"], "via the sdk");
        assert_eq!(seen["pushes"][0]["todo"]["text"], "via the sdk", "{seen}");
    }
    let error = {
        use std::io::Write;
        let stdin = browser.stdin.as_mut().unwrap();
        stdin
            .write_all(&support::request(99, "lavs.call", json!({ "service": "simple-notes", "endpoint": "nope" })))
            .unwrap();
        stdin.flush().unwrap();
        let reply: Value = serde_json::from_slice(&support::read_frame(&mut browser.stdout).unwrap()).unwrap();
        reply["error"].clone()
    };
    assert_eq!(error["code"], "LAVS_ERROR");
    let rpc: Value = serde_json::from_str(error["message"].as_str().unwrap()).unwrap();
    assert_eq!(rpc["code"], -32601);
    let _ = browser.close();

    let (code, _, _) = host(&data, &["lavs", "remove", "todo-manager"]);
    assert_eq!(code, 0);
    let (code, _, stderr) = host(&data, &["lavs", "remove", "todo-manager"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("LAVS_NO_SERVICE"), "{stderr}");
    daemon.stop();
}

#[test]
fn the_builtin_laika_service_serves_conversations_and_approvals_over_lavs() {
    let data = fresh_dir("laika-service");
    std::fs::write(data.join("config.json"), r#"{"engine": "extractive"}"#).unwrap();
    let (daemon, port) = Daemon::start(&data);
    let mut browser = Browser::start(&data, &["native"]);
    let mut ws = LaikaWs::connect(port);
    let subscribed = ws.rpc("lavs/subscribe", json!({ "endpoint": "approvalUpdates" }));
    assert!(subscribed["result"]["subscriptionId"].is_string(), "{subscribed}");

    let observation = json!({
        "url": "https://news.example.com/otters", "title": "Sea otters use stones",
        "text": "Sea otters use stones to crack open shellfish. They float on their backs while they eat.",
        "elements": [{ "handle_id": "laika-1", "role": "button", "text": "Next page" }],
    });
    let plan = browser.call("plan", json!({ "goal": "click Next page", "observation": observation }));
    let approval = plan["tool_calls"][0]["approval_id"].as_str().expect("the click asks").to_string();
    let conversation = plan["conversation"]["id"].as_str().map(String::from).unwrap_or_default();

    let listed = ws.call("listApprovals", json!(null));
    assert_eq!(listed["result"][0]["id"], approval.as_str(), "{listed}");
    let found = ws.call("searchConversations", json!({ "query": "OTTERS" }));
    assert_eq!(found["result"].as_array().unwrap().len(), 1, "{found}");
    let decided = ws.call("decideApproval", json!({ "approval_id": approval, "decision": "approve" }));
    assert_eq!(decided["result"]["approval"]["decision"], "approve", "{decided}");
    assert_eq!(browser.call("approval.get", json!({ "approval_id": approval }))["approval"]["decision"], "approve");
    let again = ws.call("decideApproval", json!({ "approval_id": approval, "decision": "deny" }));
    assert_eq!(again["error"]["code"], -32003, "{again}");
    assert_eq!(again["error"]["data"]["code"], "HISTORY_ALREADY_DECIDED");
    let bad = ws.call("decideApproval", json!({ "approval_id": approval, "decision": "maybe" }));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");

    // The subscription pushed the question and the answer, each once.
    let pushes = ws.pushes(2);
    let kinds: Vec<&str> = pushes.iter().map(|p| p["params"]["data"]["type"].as_str().unwrap_or("?")).collect();
    assert_eq!(kinds, ["asked", "decided"], "{pushes:?}");
    assert!(pushes.iter().all(|p| p["params"]["data"]["approval"]["id"] == approval.as_str()));

    if !conversation.is_empty() {
        let deleted = ws.call("deleteConversation", json!({ "id": conversation }));
        assert_eq!(deleted["result"]["deleted"], true, "{deleted}");
    }
    let missing = ws.call("getConversation", json!({ "id": "nope" }));
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    // No folder may take the built-in service's name.
    let fake = data.join("fake-laika");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join("lavs.json"), r#"{"lavs": "1.0", "name": "laika", "version": "1", "endpoints": []}"#)
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_laika-host"))
        .args(["lavs", "add"])
        .arg(&fake)
        .env("LAIKA_DATA_DIR", &data)
        .output()
        .unwrap();
    assert!(!out.status.success(), "a folder took the name laika");
    let _ = browser.close();
    daemon.stop();
}

/// The Librarian's card answered over LAVS: the daemon applies the change it proposed as a new
/// version of the note, the notes endpoints show it, and undo takes it back.
#[test]
fn an_approved_librarian_card_is_applied_by_the_daemon_and_undone_over_lavs() {
    use laika_host::history::{ApprovalRecord, History, StoragePolicy};
    use laika_host::notebook::{NoteChange, NoteState, Notebook};
    let data = fresh_dir("librarian-card");
    std::fs::write(data.join("config.json"), r#"{"engine": "extractive"}"#).unwrap();
    // A note, and a run that proposes to retitle it, as `laika-host librarian run` leaves them.
    {
        let notebook = Notebook::open(&data.join(laika_host::notebook::FILE)).unwrap();
        let state = NoteState {
            title: "Outage notes".into(),
            body_markdown: "The database stopped at nine.".into(),
            ..NoteState::default()
        };
        let note = notebook.create(&state, &[], "default", &NoteChange::by("notes.add")).unwrap();
        let operation = json!({ "operation_id": "op_1", "kind": "rewrite_note", "target": { "note_id": note.id },
            "title": "Database outage", "body_markdown": "The database stopped at nine.", "reason": "clearer", "confidence": 0.8 });
        let record = json!({ "id": "lib_t1", "source_versions": { "note_1": 1 } });
        notebook
            .record_run(
                "lib_t1",
                "tidy",
                "notebook",
                "proposed",
                &record,
                &[("op_1".into(), operation.clone(), Some("lib_t1-op_1".into()), "proposed")],
            )
            .unwrap();
        let history = History::open(&data.join("history.sqlite3"), StoragePolicy::Redacted).unwrap();
        history
            .record_approval(&ApprovalRecord {
                id: "lib_t1-op_1".into(),
                conversation_id: None,
                created_at: "2026-11-26T00:00:00.000Z".into(),
                origin: None,
                tool_name: "librarian.rewrite_note".into(),
                arguments: json!({ "run_id": "lib_t1", "operation": operation }),
                verdict: "ask".into(),
                code: "POLICY_NEEDS_APPROVAL".into(),
                grantable: None,
                decision: None,
                decided_at: None,
                reason: Some("The Librarian proposes to rewrite note_1".into()),
            })
            .unwrap();
    }
    let (daemon, port) = Daemon::start(&data);
    let mut ws = LaikaWs::connect(port);
    let mut call = |endpoint: &str, input: Value| ws.call(endpoint, input);
    let listed = call("listApprovals", json!({}));
    assert_eq!(listed["result"][0]["tool_name"], "librarian.rewrite_note", "{listed}");
    let decided = call("decideApproval", json!({ "approval_id": "lib_t1-op_1", "decision": "approve" }));
    assert_eq!(decided["result"]["approval"]["decision"], "approve", "{decided}");
    // The daemon applies it as soon as it hears the answer.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let note = loop {
        let got = call("getNote", json!({ "id": "note_1" }));
        if got["result"]["note"]["version"] == 2 || std::time::Instant::now() > deadline {
            break got;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(note["result"]["note"]["title"], "Database outage", "{note}");
    assert_eq!(note["result"]["versions"][1]["change"]["run_id"], "lib_t1", "{note}");
    let markdown = call("exportNote", json!({ "id": "note_1", "format": "markdown" }));
    assert!(markdown["result"]["text"].as_str().unwrap().starts_with("# Database outage\n"), "{markdown}");
    let undone = call("undoNote", json!({ "id": "note_1" }));
    assert_eq!(undone["result"]["title"], "Outage notes", "{undone}");
    let missing = call("getNote", json!({ "id": "note_9" }));
    assert_eq!(
        (missing["error"]["code"].clone(), missing["error"]["data"]["code"].clone()),
        (json!(-32602), json!("NOTEBOOK_NOT_FOUND")),
        "{missing}"
    );
    // Collections: made, listed, and a transform refused until a source is captured.
    let made = call("createCollection", json!({ "title": "Outages" }));
    assert_eq!(made["result"]["id"], "col:1", "{made}");
    assert_eq!(call("listCollections", json!({}))["result"][0]["title"], "Outages");
    assert_eq!(call("listSources", json!({ "id": "col:1" }))["result"], json!([]));
    let empty = call("runTransform", json!({ "id": "col:1", "type": "briefing" }));
    assert_eq!(empty["error"]["data"]["code"], "TRANSFORM_NO_SOURCES", "{empty}");
    let unknown = call("runTransform", json!({ "id": "col:1", "type": "poem" }));
    assert_eq!(unknown["error"]["code"], -32602, "the schema refuses an unknown type: {unknown}");
    daemon.stop();
}

type Ws2 = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A client of the built-in `laika` service over LAVS's WebSocket, one request at a time;
/// pushes that arrive before a reply are kept for [`LaikaWs::pushes`].
struct LaikaWs {
    runtime: tokio::runtime::Runtime,
    ws: Ws2,
    next_id: u64,
    pushes: Vec<Value>,
}

impl LaikaWs {
    fn connect(port: u16) -> LaikaWs {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let ws = runtime
            .block_on(tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/lavs/laika")))
            .expect("LAVS over a WebSocket")
            .0;
        LaikaWs { runtime, ws, next_id: 0, pushes: vec![] }
    }

    /// One JSON-RPC request and its reply.
    fn rpc(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let (ws, pushes) = (&mut self.ws, &mut self.pushes);
        self.runtime.block_on(async {
            let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
            ws.send(Message::Text(request.to_string().into())).await.unwrap();
            loop {
                let frame =
                    tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a reply").unwrap().unwrap();
                let frame: Value = serde_json::from_str(frame.to_text().unwrap()).unwrap();
                if frame["id"] == id {
                    return frame;
                }
                pushes.push(frame);
            }
        })
    }

    /// `lavs/call` of an endpoint (a null input is left out).
    fn call(&mut self, endpoint: &str, input: Value) -> Value {
        let params = if input.is_null() {
            json!({ "endpoint": endpoint })
        } else {
            json!({ "endpoint": endpoint, "input": input })
        };
        self.rpc("lavs/call", params)
    }

    /// The pushes so far, waiting until there are at least `count`.
    fn pushes(&mut self, count: usize) -> Vec<Value> {
        let (ws, pushes) = (&mut self.ws, &mut self.pushes);
        self.runtime.block_on(async {
            while pushes.len() < count {
                let frame =
                    tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a push").unwrap().unwrap();
                pushes.push(serde_json::from_str(frame.to_text().unwrap()).unwrap());
            }
        });
        self.pushes.clone()
    }
}

/// A daemon a test started by hand: killed if the test ends early, so it never outlives it (nor
/// holds the test runner's output open).
struct Daemon(std::process::Child);

impl Daemon {
    /// `laika-host daemon` on a free port of its own for `data`, once it listens.
    fn start(data: &Path) -> (Daemon, u16) {
        let port = free_port();
        let daemon = Daemon(
            Command::new(env!("CARGO_BIN_EXE_laika-host"))
                .args(["daemon", "--port", &port.to_string()])
                .env("LAIKA_DATA_DIR", data)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        wait_until("the daemon listens", || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
        (daemon, port)
    }

    /// SIGTERM; the daemon must stop cleanly.
    fn stop(mut self) {
        assert!(Command::new("kill").args(["-TERM", &self.0.id().to_string()]).status().unwrap().success());
        assert!(self.0.wait().unwrap().success(), "the daemon did not stop cleanly");
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
