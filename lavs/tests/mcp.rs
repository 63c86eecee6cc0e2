//! `mcp` handlers against a real stdio MCP server: the official MCP Python SDK's FastMCP
//! (`pip install mcp==1.30.0`), started by the runtime from `mcp-config.json`. The example
//! service `examples/mcp-notes` as installed, then a service of the test's own for each limit and
//! failure: text and JSON-text results, isError, a timeout, fileAccess, a server that does not
//! start, maxMemory, networkAccess, the clean environment, one process reused across calls and
//! started again after it died, and stopped with the runtime.
//!
//! Without the SDK these tests say so and pass, unless `LAIKA_REQUIRE_LAVS_SDK` is set (as CI
//! does, having installed it), when they fail.

use laika_lavs::Runtime;
use laika_lavs::error;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn examples() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()))
        .join("examples")
}

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lavs-mcp-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether the MCP Python SDK can be imported; without it a test is skipped, said on stderr.
fn python_sdk() -> bool {
    let found = std::process::Command::new("python3")
        .args(["-c", "import mcp.server.fastmcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("LAIKA_REQUIRE_LAVS_SDK").is_none(),
            "the MCP Python SDK is required here (LAIKA_REQUIRE_LAVS_SDK) and `python3 -c 'import mcp'` fails: \
             pip install mcp==1.30.0"
        );
        eprintln!("the MCP Python SDK is not installed (pip install mcp==1.30.0): skipped");
    }
    found
}

/// A process that has not ended (a zombie has).
fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
}

async fn ended(pid: u64) -> bool {
    let started = Instant::now();
    while alive(pid) {
        if started.elapsed() > Duration::from_secs(8) {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_notes_example_runs_from_its_manifest() {
    if !python_sdk() {
        return;
    }
    let root = fresh("notes");
    let runtime = Runtime::open(&root.join("lavs")).unwrap();
    assert_eq!(runtime.install(&examples().join("mcp-notes")).unwrap(), "mcp-notes");
    let call = |endpoint: &'static str, input: Value| {
        let runtime = &runtime;
        async move { runtime.call("mcp-notes", endpoint, Some(input), "test").await }
    };
    // Typed tool results come back as the tool's structuredContent.
    assert_eq!(call("listNotes", json!({})).await.unwrap(), json!({ "notes": [] }));
    let added = call("addNote", json!({ "text": "buy milk" })).await.unwrap();
    assert_eq!(added, json!({ "id": 1, "text": "buy milk" }));
    call("addNote", json!({ "text": "call Ada" })).await.unwrap();
    // An untyped result is its text, which here is JSON.
    assert_eq!(call("deleteNote", json!({ "id": 1 })).await.unwrap(), json!({ "deleted": 1 }));
    assert_eq!(call("listNotes", json!({})).await.unwrap(), json!({ "notes": [{ "id": 2, "text": "call Ada" }] }));
    // The server kept them in its folder as installed, not in the example's.
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("lavs/mcp-notes/data/notes.json")).unwrap()).unwrap();
    assert_eq!(stored, json!([{ "id": 2, "text": "call Ada" }]));
    assert!(!examples().join("mcp-notes/data").exists());
    // The tool raising is the result's isError: a handler error with the tool's text.
    let error = call("deleteNote", json!({ "id": 99 })).await.unwrap_err();
    assert_eq!(error.code, error::HANDLER_ERROR, "{error}");
    assert!(error.message.contains("there is no note 99"), "{error}");
    // The input is validated before the server sees it.
    let error = call("addNote", json!({ "text": "" })).await.unwrap_err();
    assert_eq!(error.code, error::INVALID_PARAMS, "{error}");
}

/// The test's own server: each tool a case the runtime has to handle.
const EDGE_SERVER: &str = r#"
import asyncio, os, socket, sys
from mcp.server.fastmcp import FastMCP

server = FastMCP("edge")

@server.tool()
def pid():
    return os.getpid()

@server.tool()
def greet(name: str):
    return f"hello {name}"

@server.tool()
async def slow(seconds: float):
    await asyncio.sleep(seconds)
    return "done"

@server.tool()
def environment():
    return {
        "pid": os.getpid(),
        "leaked": sorted(k for k in os.environ if k.startswith("LAIKA_TEST")),
        "configured": os.environ.get("FROM_CONFIG"),
        "cwd": os.getcwd(),
    }

@server.tool()
def crash():
    sys.stderr.write("edge server: giving up\n")
    sys.stderr.flush()
    os._exit(3)

@server.tool()
def allocate(megabytes: int):
    return len(bytearray(megabytes * 1024 * 1024))

@server.tool()
def connect(port: int):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return {"reached": True, "pid": os.getpid()}
    except OSError as e:
        return {"reached": False, "pid": os.getpid(), "error": str(e)}

server.run()
"#;

fn edge_service(dir: &Path) -> PathBuf {
    let tool = |id: &str, server: &str, tool: &str| json!({ "id": id, "method": "query", "handler": { "type": "mcp", "server": server, "tool": tool } });
    let mut slow = tool("slow", "edge", "slow");
    slow["permissions"] = json!({ "maxExecutionTime": 1500 });
    slow["schema"] =
        json!({ "input": { "type": "object", "properties": { "seconds": { "type": "number", "default": 20 } } } });
    let mut typed = tool("pidAsText", "edge", "pid");
    typed["schema"] = json!({ "output": { "type": "string" } });
    let mut online = tool("connectOnline", "edge", "connect");
    online["permissions"] = json!({ "networkAccess": true });
    let manifest = json!({
        "lavs": "1.0", "name": "mcp-edge", "version": "1",
        "endpoints": [
            tool("pid", "edge", "pid"), tool("greet", "edge", "greet"), slow, typed,
            tool("environment", "edge", "environment"), tool("allocate", "edge", "allocate"),
            tool("connect", "edge", "connect"), online,
            tool("unknownTool", "edge", "nope"), tool("crash", "edge", "crash"),
            tool("outside", "outside", "pid"), tool("elsewhere", "elsewhere", "pid"),
            tool("broken", "broken", "pid"), tool("missing", "missing", "pid")
        ],
        "permissions": { "networkAccess": false, "maxMemory": 536870912, "maxExecutionTime": 20000 }
    });
    let config = json!({ "mcpServers": {
        "edge": { "command": "python3", "args": ["server/edge.py"], "env": { "FROM_CONFIG": "yes" } },
        "outside": { "command": "../outside.sh" },
        "elsewhere": { "command": "python3", "args": ["edge.py"], "cwd": "/tmp" },
        "broken": { "command": "python3", "args": ["-c", "import sys; sys.stderr.write('this server cannot start: no config\\n'); sys.exit(3)"] },
        "missing": { "command": "laika-no-such-mcp-server" }
    }});
    std::fs::create_dir_all(dir.join("server")).unwrap();
    std::fs::write(dir.join("lavs.json"), serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
    std::fs::write(dir.join("mcp-config.json"), serde_json::to_string_pretty(&config).unwrap()).unwrap();
    std::fs::write(dir.join("server/edge.py"), EDGE_SERVER).unwrap();
    std::fs::write(dir.parent().unwrap().join("outside.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    dir.to_path_buf()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_server_per_service_under_its_limits() {
    if !python_sdk() {
        return;
    }
    let root = fresh("edge");
    let dir = edge_service(&root.join("edge"));
    // SAFETY: set before this test's servers start; the other tests' servers get a cleared
    // environment whatever it holds.
    unsafe { std::env::set_var("LAIKA_TEST_MCP_TOKEN", "sk-should-never-leak") };
    let runtime = Runtime::open(&root.join("lavs")).unwrap();
    runtime.install(&dir).unwrap();
    let call = |endpoint: &'static str, input: Value| {
        let runtime = &runtime;
        async move { runtime.call("mcp-edge", endpoint, Some(input), "t").await }
    };
    let pid = || async { call("pid", json!({})).await.unwrap().as_u64().expect("the pid, as JSON text") };

    // One process, started at the first call and reused by the next, whichever endpoint.
    let first = pid().await;
    assert_eq!(pid().await, first, "the same server answers the second call");
    let environment = call("environment", json!({})).await.unwrap();
    assert_eq!(environment["pid"], first, "another endpoint of the same service shares it");
    // The clean environment, plus the config's env; the service's folder as working directory.
    assert_eq!(environment["leaked"], json!([]), "{environment}");
    assert_eq!(environment["configured"], "yes");
    assert_eq!(PathBuf::from(environment["cwd"].as_str().unwrap()), root.join("lavs/mcp-edge").canonicalize().unwrap());

    // Text that is not JSON comes back as {"text"}; the output schema still applies.
    assert_eq!(call("greet", json!({ "name": "Ada" })).await.unwrap(), json!({ "text": "hello Ada" }));
    assert_eq!(call("pidAsText", json!({})).await.unwrap_err().code, error::INTERNAL_ERROR);
    let error = call("unknownTool", json!({})).await.unwrap_err();
    assert_eq!(error.code, error::HANDLER_ERROR, "{error}");
    assert!(error.message.contains("nope"), "{error}");

    // maxMemory is the server's address-space limit: the allocation fails inside the tool.
    assert_eq!(call("allocate", json!({ "megabytes": 1 })).await.unwrap(), json!(1048576));
    let error = call("allocate", json!({ "megabytes": 1024 })).await.unwrap_err();
    assert_eq!(error.code, error::HANDLER_ERROR, "over maxMemory: {error}");

    // networkAccess: false is a network namespace of the server's own, where the OS allows one.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let online = call("connectOnline", json!({ "port": port })).await.unwrap();
    assert_eq!(online["reached"], true, "{online}");
    assert_ne!(online["pid"], first, "an endpoint allowed the network gets a server of its own");
    if laika_lavs::script::network_isolation() {
        let offline = call("connect", json!({ "port": port })).await.unwrap();
        assert_eq!(offline["reached"], false, "{offline}");
        assert_eq!(offline["pid"], first);
    } else {
        eprintln!("this system gives handlers no network namespace of their own; that part is skipped");
    }

    // fileAccess: a command or working directory outside the service's folder is refused.
    assert_eq!(call("outside", json!({})).await.unwrap_err().code, error::PERMISSION_DENIED);
    assert_eq!(call("elsewhere", json!({})).await.unwrap_err().code, error::PERMISSION_DENIED);

    // A server that does not start: a handler error with the end of its stderr.
    let error = call("broken", json!({})).await.unwrap_err();
    assert_eq!(error.code, error::HANDLER_ERROR, "{error}");
    let stderr = error.data.as_ref().unwrap()["stderr"].as_str().unwrap().to_string();
    assert!(stderr.contains("this server cannot start: no config"), "{error}: {stderr}");
    let error = call("missing", json!({})).await.unwrap_err();
    assert_eq!(error.code, error::HANDLER_ERROR, "{error}");
    assert!(error.message.contains("could not be started"), "{error}");

    // Past maxExecutionTime: -32002 at the limit, the server stopped, a fresh one for the next.
    let started = Instant::now();
    let error = call("slow", json!({})).await.unwrap_err();
    assert_eq!(error.code, error::TIMEOUT, "{error}");
    assert!(started.elapsed() < Duration::from_secs(5), "stopped at the limit, not waited out");
    assert!(ended(first).await, "the server that ran past the limit was stopped");
    let second = pid().await;
    assert_ne!(second, first);

    // A server that dies during a call: a handler error with its last words; the next call
    // starts another.
    let error = call("crash", json!({})).await.unwrap_err();
    assert_eq!(error.code, error::HANDLER_ERROR, "{error}");
    assert!(error.message.contains("stopped answering"), "{error}");
    assert_eq!(error.data.as_ref().unwrap()["stderr"].as_str().unwrap().lines().last(), Some("edge server: giving up"));
    assert!(ended(second).await);
    let after_crash = pid().await;
    assert_ne!(after_crash, second);
    // One that died between calls (killed here) is found dead and started again too.
    std::process::Command::new("kill").args(["-KILL", &after_crash.to_string()]).status().unwrap();
    assert!(ended(after_crash).await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let third = pid().await;
    assert_ne!(third, after_crash);
    assert_eq!(pid().await, third);

    // Installing the service again stops its servers (they would run the old copy).
    runtime.install(&dir).unwrap();
    assert!(ended(third).await, "the replaced copy's server was stopped");
    let fourth = pid().await;
    // Dropping the runtime stops the servers it started.
    drop(runtime);
    assert!(ended(fourth).await, "the runtime's servers end with it");
    assert!(ended(online["pid"].as_u64().unwrap()).await);
}

#[tokio::test]
async fn mcp_config_is_checked_when_the_service_loads() {
    let root = fresh("config");
    let runtime = Runtime::open(&root.join("lavs")).unwrap();
    let service = |name: &str, config: Option<Value>| {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = json!({ "lavs": "1.0", "name": name, "version": "1", "endpoints": [
            { "id": "issues", "method": "query", "handler": { "type": "mcp", "server": "github", "tool": "list_issues" } }
        ]});
        std::fs::write(dir.join("lavs.json"), manifest.to_string()).unwrap();
        if let Some(config) = config {
            std::fs::write(dir.join("mcp-config.json"), config.to_string()).unwrap();
        }
        dir
    };
    // The spec's example without a config: the endpoint's server field is named.
    let error = runtime.install(&service("noconfig", None)).unwrap_err();
    assert_eq!(error.code, error::INVALID_REQUEST);
    assert!(error.message.contains("/endpoints/0/handler/server"), "{error}");
    let error = runtime
        .install(&service("otherserver", Some(json!({ "mcpServers": { "gitlab": { "command": "x" } } }))))
        .unwrap_err();
    assert!(error.message.contains("/endpoints/0/handler/server"), "{error}");
    assert!(error.message.contains("\"github\" is not a server of mcp-config.json"), "{error}");
    // A config that breaks its format names its own field.
    let error = runtime
        .install(&service("badargs", Some(json!({ "mcpServers": { "github": { "command": "x", "args": "-y" } } }))))
        .unwrap_err();
    assert!(error.message.contains("mcp-config.json /mcpServers/github/args"), "{error}");
    let dir = service("notjson", None);
    std::fs::write(dir.join("mcp-config.json"), "{ nope").unwrap();
    assert_eq!(runtime.install(&dir).unwrap_err().code, error::PARSE_ERROR);
    // With its server declared, it installs.
    let config = json!({ "mcpServers": { "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"] } } });
    assert_eq!(runtime.install(&service("github-issues", Some(config))).unwrap(), "github-issues");
}
