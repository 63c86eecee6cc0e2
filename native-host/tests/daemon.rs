//! `laika-host daemon` and `laika-host lark …` as a user runs them: members made on the command
//! line sign in to the running daemon over a real WebSocket, a mention wakes the agent, and
//! SIGTERM stops the daemon cleanly.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

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
    let (_, bot, _) = host(&data, &["lark", "member", "add", "laika", "--agent"]);
    assert!(bot["token"].as_str().unwrap().starts_with("lr_"), "{bot}");
    let (code, _, stderr) = host(&data, &["lark", "member", "add", "Alice"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("LARK_NAME_TAKEN"), "{stderr}");
    let ids = [alice["member_id"].as_str().unwrap(), bot["member_id"].as_str().unwrap()];
    let (code, channel, _) = host(&data, &["lark", "channel", "add", "page-1", "--member", ids[0], "--member", ids[1]]);
    assert_eq!(code, 0);
    let channel = channel["channel_id"].as_str().unwrap().to_string();

    let port = free_port();
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_laika-host"))
        .args(["daemon", "--port", &port.to_string()])
        .env("LAIKA_DATA_DIR", &data)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let url = format!("ws://127.0.0.1:{port}/ws");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut alice_ws = login(&url, alice["token"].as_str().unwrap()).await;
        let mut bot_ws = login(&url, bot["token"].as_str().unwrap()).await;
        let send =
            json!({ "type": "message.send", "data": { "channel_id": channel, "content": "Summarise it, @laika." } });
        alice_ws.send(Message::Text(send.to_string().into())).await.unwrap();
        let wake = next_of(&mut bot_ws, "agent.wake").await;
        assert_eq!(wake["data"]["reason"], "mention");
        assert_eq!(wake["data"]["context"]["recent_messages"][0]["content"], "Summarise it, @laika.");
    });

    // A second daemon on the same port says why it cannot start.
    let (code, _, stderr) = host(&data, &["daemon", "--port", &port.to_string()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("DAEMON_PORT_BUSY"), "{stderr}");

    let killed = Command::new("kill").args(["-TERM", &daemon.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = daemon.wait().unwrap();
    assert!(status.success(), "the daemon did not stop cleanly: {status:?}");
    // The hub's store survives the daemon.
    assert!(data.join("lark.sqlite3").is_file());
}

/// An empty data directory of this test run's own.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("laika-{name}-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
