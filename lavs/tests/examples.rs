//! The spec's three examples, run for real from their manifests (`lavs/examples/`): the bash
//! notes service, the python sqlite contacts service and the node todo service with its
//! subscription; then every error code from a real handler or a real HTTP request: traversal,
//! timeout, memory, a failing handler, bad input and output, unknown endpoints, malformed
//! JSON-RPC, a web page's origin.

use laika_lavs::Runtime;
use laika_lavs::error;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

fn examples() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()))
        .join("examples")
}

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lavs-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn have(program: &str) -> bool {
    std::process::Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// A service of the test's own, written to `dir`.
fn service(dir: &Path, manifest: Value, files: &[(&str, &str)]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("lavs.json"), serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir.to_path_buf()
}

#[tokio::test]
async fn the_bash_notes_service_runs_from_its_manifest() {
    let root = fresh("notes");
    let runtime = Runtime::open(&root.join("lavs")).unwrap();
    assert_eq!(runtime.install(&examples().join("simple-notes")).unwrap(), "simple-notes");
    assert_eq!(runtime.call("simple-notes", "getNotes", None, "test").await.unwrap(), Value::Null);
    runtime.call("simple-notes", "saveNote", Some(json!({ "NOTE": "buy milk" })), "test").await.unwrap();
    runtime.call("simple-notes", "saveNote", Some(json!({ "NOTE": "call Ada; $(rm -rf /)" })), "test").await.unwrap();
    let notes = runtime.call("simple-notes", "getNotes", None, "test").await.unwrap();
    assert_eq!(notes, json!("buy milk\ncall Ada; $(rm -rf /)"), "the input is data, never code");
    // Installed as a copy: the example's own notes.txt is untouched.
    assert_eq!(std::fs::read_to_string(examples().join("simple-notes/notes.txt")).unwrap(), "");
    // A variable that steers the shell is refused.
    let error =
        runtime.call("simple-notes", "saveNote", Some(json!({ "BASH_ENV": "/tmp/x" })), "test").await.unwrap_err();
    assert_eq!(error.code, error::INVALID_PARAMS, "{error}");
    // Every call is in the audit log, without its input.
    let audit = runtime.audit.recent(10).unwrap();
    assert_eq!(audit.len(), 5);
    assert_eq!(audit[0].code, error::INVALID_PARAMS);
    let log = std::fs::read(root.join("lavs/audit.sqlite3")).unwrap();
    assert!(!String::from_utf8_lossy(&log).contains("buy milk"));
}

#[tokio::test]
async fn the_python_contacts_service_runs_from_its_manifest() {
    if !have("python3") {
        panic!("python3 is needed (the spec's contacts example is a python script)");
    }
    let root = fresh("contacts");
    let runtime = Runtime::open(&root.join("lavs")).unwrap();
    runtime.install(&examples().join("contact-manager")).unwrap();
    let ada =
        runtime.call("contact-manager", "addContact", Some(json!({ "name": "Ada Lovelace" })), "t").await.unwrap();
    assert_eq!(ada["email"], "", "the default was applied");
    runtime
        .call("contact-manager", "addContact", Some(json!({ "name": "Grace Hopper", "email": "g@h" })), "t")
        .await
        .unwrap();
    let found = runtime.call("contact-manager", "searchContacts", Some(json!({ "query": "hop" })), "t").await.unwrap();
    assert_eq!(found, json!([{ "id": 2, "name": "Grace Hopper", "email": "g@h" }]));
    let error = runtime.call("contact-manager", "searchContacts", Some(json!({})), "t").await.unwrap_err();
    assert_eq!(error.code, error::INVALID_PARAMS);
    assert!(error.message.contains("query"), "the message names the field: {error}");
}

#[tokio::test]
async fn the_node_todo_service_and_its_subscription() {
    if !have("node") {
        panic!("node is needed (the spec's todo example is a node script)");
    }
    let root = fresh("todo");
    let runtime = Runtime::open(&root.join("lavs")).unwrap();
    runtime.install(&examples().join("todo-manager")).unwrap();
    assert_eq!(runtime.call("todo-manager", "listTodos", None, "t").await.unwrap(), json!([]));
    let mut pushes = runtime.subscribe("todo-manager", "todoUpdates", None, "t").unwrap();
    // The watcher reads the file once before it starts counting.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let added = runtime.call("todo-manager", "addTodo", Some(json!({ "text": "Buy milk" })), "t").await.unwrap();
    assert_eq!(
        (added["id"].clone(), added["priority"].clone(), added["done"].clone()),
        (json!(1), json!(0), json!(false))
    );
    runtime.call("todo-manager", "addTodo", Some(json!({ "text": "Walk", "priority": 2 })), "t").await.unwrap();
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let push = tokio::time::timeout(Duration::from_secs(10), pushes.recv()).await.expect("a push").expect("open");
        seen.push(push["todo"]["text"].clone());
    }
    assert_eq!(seen, [json!("Buy milk"), json!("Walk")]);
    assert!(tokio::time::timeout(Duration::from_millis(500), pushes.recv()).await.is_err(), "each change once");
    let listed = runtime.call("todo-manager", "listTodos", None, "t").await.unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2);
    // A subscription is not called, nor a query subscribed to.
    assert_eq!(runtime.call("todo-manager", "todoUpdates", None, "t").await.unwrap_err().code, error::METHOD_NOT_FOUND);
    assert_eq!(runtime.subscribe("todo-manager", "listTodos", None, "t").unwrap_err().code, error::METHOD_NOT_FOUND);
}

#[tokio::test]
async fn permissions_limits_and_failures_get_their_codes() {
    let root = fresh("limits");
    std::fs::write(root.join("secret.txt"), "top secret").unwrap();
    let manifest = json!({
        "lavs": "1.0", "name": "edge", "version": "0.1.0",
        "endpoints": [
            { "id": "read", "method": "query",
              "handler": { "type": "script", "command": "cat", "args": ["{{file}}"] },
              "schema": { "input": { "type": "object", "properties": { "file": { "type": "string", "format": "path" } }, "required": ["file"] } } },
            { "id": "slow", "method": "query", "handler": { "type": "script", "command": "sleep", "args": ["5"], "timeout": 300 } },
            { "id": "fail", "method": "query", "handler": { "type": "script", "command": "bash", "args": ["-c", "echo broken >&2; exit 3"] } },
            { "id": "hungry", "method": "query",
              "handler": { "type": "script", "command": "python3", "args": ["-c", "x = bytearray(512 * 1024 * 1024); print(len(x))"] },
              "permissions": { "maxMemory": 134217728 } },
            { "id": "env", "method": "query", "handler": { "type": "script", "command": "env" } },
            { "id": "lies", "method": "query", "handler": { "type": "script", "command": "echo", "args": ["\"text\""] },
              "schema": { "output": { "type": "number" } } },
            { "id": "escape", "method": "query", "handler": { "type": "script", "command": "../escape.sh" } }
        ],
        "permissions": { "fileAccess": ["./data/**", "!./data/private.txt"] }
    });
    let dir = service(&root.join("edge"), manifest, &[("data/ok.txt", "fine"), ("data/private.txt", "no")]);
    std::fs::write(root.join("escape.sh"), "#!/bin/sh\necho out\n").unwrap();
    let runtime = Runtime::open(&root.join("lavs")).unwrap();
    runtime.install(&dir).unwrap();
    let call = |endpoint: &'static str, input: Value| {
        let runtime = &runtime;
        async move { runtime.call("edge", endpoint, Some(input), "t").await }
    };
    assert_eq!(call("read", json!({ "file": "data/ok.txt" })).await.unwrap(), json!("fine"));
    for file in ["../../secret.txt", "/etc/passwd", "data/../../secret.txt", "data/private.txt"] {
        let error = call("read", json!({ "file": file })).await.unwrap_err();
        assert_eq!(error.code, error::PERMISSION_DENIED, "{file}: {error}");
    }
    assert_eq!(call("escape", json!({})).await.unwrap_err().code, error::PERMISSION_DENIED);
    let started = std::time::Instant::now();
    assert_eq!(call("slow", json!({})).await.unwrap_err().code, error::TIMEOUT);
    assert!(started.elapsed() < Duration::from_secs(4), "stopped, not waited out");
    let error = call("fail", json!({})).await.unwrap_err();
    assert_eq!(error.code, error::HANDLER_ERROR);
    assert_eq!(error.data.as_ref().unwrap()["stderr"], "broken");
    if have("python3") {
        assert_eq!(call("hungry", json!({})).await.unwrap_err().code, error::HANDLER_ERROR, "over maxMemory");
    }
    // SAFETY: the test sets a variable before any handler reads the environment.
    unsafe { std::env::set_var("LAIKA_TEST_API_TOKEN", "sk-should-never-leak") };
    let env = call("env", json!({})).await.unwrap();
    assert!(!env.as_str().unwrap().contains("sk-should-never-leak"), "{env}");
    assert_eq!(call("lies", json!({})).await.unwrap_err().code, error::INTERNAL_ERROR);
    assert_eq!(call("nope", json!({})).await.unwrap_err().code, error::METHOD_NOT_FOUND);
    assert_eq!(runtime.call("nobody", "read", None, "t").await.unwrap_err().code, error::METHOD_NOT_FOUND);
    // A manifest with a broken field is refused at install, naming it.
    let bad = service(
        &root.join("bad"),
        json!({ "lavs": "1.0", "name": "bad", "version": "1", "endpoints": [{ "id": "x", "method": "query", "handler": { "type": "script" } }] }),
        &[],
    );
    let error = runtime.install(&bad).unwrap_err();
    assert!(error.message.contains("/endpoints/0/handler"), "{error}");
}

async fn serve(runtime: Arc<Runtime>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, laika_lavs::http::router(runtime)).await });
    format!("http://{address}")
}

/// A raw HTTP/1.1 exchange (status and JSON body), so headers are exactly what the test says.
async fn post(base: &str, path: &str, content_type: Option<&str>, origin: Option<&str>, body: &str) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let mut request =
        format!("POST {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    if let Some(t) = content_type {
        request.push_str(&format!("Content-Type: {t}\r\n"));
    }
    if let Some(o) = origin {
        request.push_str(&format!("Origin: {o}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let text = String::from_utf8_lossy(&response);
    let status = text[9..12].parse().unwrap();
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_rpc_and_the_rest_form_over_http() {
    let root = fresh("http");
    let runtime = Arc::new(Runtime::open(&root.join("lavs")).unwrap());
    runtime.install(&examples().join("simple-notes")).unwrap();
    let base = serve(runtime.clone()).await;
    let json = Some("application/json");
    let call = json!({ "jsonrpc": "2.0", "id": 7, "method": "lavs/call", "params": { "endpoint": "saveNote", "input": { "NOTE": "from rpc" } } });
    let (status, reply) = post(&base, "/lavs/simple-notes", json, None, &call.to_string()).await;
    assert_eq!((status, reply["id"].clone(), reply["result"].clone()), (200, json!(7), Value::Null), "{reply}");
    let (_, reply) = post(&base, "/api/agents/simple-notes/lavs/getNotes", json, None, "{}").await;
    assert_eq!(reply["result"], "from rpc");
    let code = |reply: &Value| reply["error"]["code"].as_i64().unwrap_or(0);
    let (_, reply) = post(&base, "/lavs/simple-notes", json, None, "{ not json").await;
    assert_eq!(code(&reply), error::PARSE_ERROR);
    let (_, reply) = post(&base, "/lavs/simple-notes", json, None, r#"{"id": 1, "method": "lavs/call"}"#).await;
    assert_eq!(code(&reply), error::INVALID_REQUEST);
    let (_, reply) =
        post(&base, "/lavs/simple-notes", json, None, r#"{"jsonrpc": "2.0", "id": 1, "method": "lavs/nope"}"#).await;
    assert_eq!(code(&reply), error::METHOD_NOT_FOUND);
    let (status, reply) = post(&base, "/api/agents/simple-notes/lavs/nothing", json, None, "{}").await;
    assert_eq!((status, code(&reply)), (404, error::METHOD_NOT_FOUND));
    // A web page cannot drive a local service: its origin is refused, and so is a body it could
    // send without a preflight.
    let (status, reply) =
        post(&base, "/lavs/simple-notes", json, Some("https://evil.example"), &call.to_string()).await;
    assert_eq!((status, code(&reply)), (403, error::PERMISSION_DENIED));
    let (status, _) = post(&base, "/lavs/simple-notes", Some("text/plain"), None, &call.to_string()).await;
    assert_eq!(status, 415);
    let (_, reply) = post(&base, "/api/agents/simple-notes/lavs/getNotes", json, None, "{}").await;
    assert_eq!(reply["result"], "from rpc", "the refused calls did nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_access_false_takes_the_network_away() {
    if !laika_lavs::script::network_isolation() {
        // Said by `laika-host lavs list` ("unenforced"); nothing to check here then.
        eprintln!("this system gives handlers no network namespace of their own; skipped");
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let root = fresh("network");
    let probe = |id: &str, network: bool| {
        json!({ "id": id, "method": "query",
                "handler": { "type": "script", "command": "bash", "args": ["-c", "echo reached > /dev/tcp/127.0.0.1/{{port}}"] },
                "schema": { "input": { "type": "object", "properties": { "port": { "type": "string" } }, "required": ["port"] } },
                "permissions": { "networkAccess": network } })
    };
    let manifest = json!({ "lavs": "1.0", "name": "net", "version": "1", "endpoints": [probe("offline", false), probe("online", true)] });
    let dir = service(&root.join("net"), manifest, &[]);
    let runtime = Runtime::open(&root.join("lavs")).unwrap();
    runtime.install(&dir).unwrap();
    runtime
        .call("net", "online", Some(json!({ "port": port })), "t")
        .await
        .expect("with networkAccess the port is reached");
    let error = runtime.call("net", "offline", Some(json!({ "port": port })), "t").await.unwrap_err();
    assert_eq!(error.code, error::HANDLER_ERROR, "without it the connection fails: {error}");
    drop(listener);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_rpc_over_a_websocket_pushes_each_change_once() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    if !have("node") {
        panic!("node is needed (the spec's todo example is a node script)");
    }
    let root = fresh("websocket");
    let runtime = Arc::new(Runtime::open(&root.join("lavs")).unwrap());
    runtime.install(&examples().join("todo-manager")).unwrap();
    let base = serve(runtime).await;
    let url = format!("{}/lavs/todo-manager", base.replace("http://", "ws://"));
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let mut send = async |frame: Value| ws.send(Message::Text(frame.to_string().into())).await.unwrap();
    send(json!({ "jsonrpc": "2.0", "id": 1, "method": "lavs/subscribe", "params": { "endpoint": "todoUpdates" } }))
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    send(json!({ "jsonrpc": "2.0", "id": 2, "method": "lavs/call", "params": { "endpoint": "addTodo", "input": { "text": "over the socket" } } })).await;
    let mut frames = Vec::new();
    while !frames.iter().any(|f: &Value| f["method"] == "lavs/data") || frames.len() < 3 {
        let next = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a frame").unwrap().unwrap();
        frames.push(serde_json::from_str(next.to_text().unwrap()).unwrap());
    }
    let subscribed = frames.iter().find(|f| f["id"] == 1).expect("the subscribe reply");
    let sub = subscribed["result"]["subscriptionId"].as_str().unwrap().to_string();
    assert_eq!(frames.iter().find(|f| f["id"] == 2).unwrap()["result"]["text"], "over the socket");
    let pushes: Vec<&Value> = frames.iter().filter(|f| f["method"] == "lavs/data").collect();
    assert_eq!(pushes.len(), 1, "{frames:?}");
    assert_eq!(pushes[0]["params"]["subscriptionId"], sub.as_str());
    assert_eq!(pushes[0]["params"]["data"]["todo"]["text"], "over the socket");
    let mut send = async |frame: Value| ws.send(Message::Text(frame.to_string().into())).await.unwrap();
    send(json!({ "jsonrpc": "2.0", "id": 3, "method": "lavs/unsubscribe", "params": { "subscriptionId": sub } })).await;
    send(json!({ "jsonrpc": "2.0", "id": 4, "method": "lavs/unsubscribe", "params": { "subscriptionId": sub } })).await;
    send(json!({ "jsonrpc": "2.0", "id": 5, "method": "lavs/call", "params": { "endpoint": "nope" } })).await;
    let mut replies = std::collections::BTreeMap::new();
    while replies.len() < 3 {
        let next = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a frame").unwrap().unwrap();
        let frame: Value = serde_json::from_str(next.to_text().unwrap()).unwrap();
        if let Some(id) = frame["id"].as_i64() {
            replies.insert(id, frame);
        }
    }
    assert_eq!(replies[&3]["result"], true);
    assert_eq!(replies[&4]["error"]["code"], error::INVALID_PARAMS);
    assert_eq!(replies[&5]["error"]["code"], error::METHOD_NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_and_http_handlers() {
    let root = fresh("handlers");
    // A tiny HTTP service on loopback for the http handler to reach.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let upstream = axum::Router::new().route(
        "/sum",
        axum::routing::post(|axum::Json(v): axum::Json<Value>| async move {
            axum::Json(json!({ "sum": v["a"].as_i64().unwrap_or(0) + v["b"].as_i64().unwrap_or(0) }))
        }),
    );
    tokio::spawn(async move { axum::serve(listener, upstream).await });
    let remote = |id: &str, hosts: Value| {
        json!({ "id": id, "method": "query",
                "handler": { "type": "http", "url": format!("http://127.0.0.1:{port}/sum"), "method": "POST" },
                "permissions": { "networkAccess": hosts } })
    };
    let manifest = json!({
        "lavs": "1.0", "name": "handlers", "version": "1",
        "endpoints": [
            { "id": "add", "method": "query", "handler": { "type": "function", "module": "lib.mjs", "function": "add" },
              "schema": { "input": { "type": "object", "properties": { "a": { "type": "number" }, "b": { "type": "number", "default": 10 } } },
                          "output": { "type": "number" } } },
            { "id": "missing", "method": "query", "handler": { "type": "function", "module": "lib.mjs", "function": "nope" } },
            { "id": "outside", "method": "query", "handler": { "type": "function", "module": "../lib.mjs", "function": "add" } },
            remote("sum", json!(["127.0.0.1"])),
            remote("elsewhere", json!(["api.example.com"])),
            remote("offline", json!(false))
        ]
    });
    let dir = service(
        &root.join("handlers"),
        manifest,
        &[("lib.mjs", "export async function add({ a, b }) { return a + b; }\n")],
    );
    let runtime = Runtime::open(&root.join("lavs")).unwrap();
    runtime.install(&dir).unwrap();
    if have("node") {
        assert_eq!(runtime.call("handlers", "add", Some(json!({ "a": 2 })), "t").await.unwrap(), json!(12));
        let error = runtime.call("handlers", "missing", None, "t").await.unwrap_err();
        assert_eq!(error.code, error::HANDLER_ERROR);
        assert!(error.data.unwrap()["stderr"].as_str().unwrap().contains("no function nope"));
    }
    assert_eq!(runtime.call("handlers", "outside", None, "t").await.unwrap_err().code, error::PERMISSION_DENIED);
    let sum = runtime.call("handlers", "sum", Some(json!({ "a": 2, "b": 3 })), "t").await.unwrap();
    assert_eq!(sum, json!({ "sum": 5 }));
    for id in ["elsewhere", "offline"] {
        assert_eq!(
            runtime.call("handlers", id, Some(json!({})), "t").await.unwrap_err().code,
            error::PERMISSION_DENIED,
            "{id}"
        );
    }
}
