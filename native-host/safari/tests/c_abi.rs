//! The C ABI answers like the stdio host. A C program (`tests/c/request.c`), compiled with the
//! system C compiler against `liblaika_safari.a` and `include/laika.h` as Safari's containing app
//! links them, and the real `laika-host native` are sent the same requests, each with a fresh
//! data directory, and must give the same replies: same ids, same results, same error codes,
//! once volatile fields (random ids, timestamps, timings, the data directory, which process
//! answered) are set aside.
//!
//! Where the two programs come from: cargo, asked from the test with the test's own profile,
//! target directory and features (`cargo build … --message-format=json`, the paths read from
//! its messages).
//!
//! - The static library: `cargo test` builds this crate's library with every crate type it
//!   declares, so `liblaika_safari-<hash>.a` is built with the test, but only into `deps/`:
//!   unlike `cargo build`, `cargo test` does not link a library's outputs into the profile
//!   directory. `cargo build -p laika-safari --lib` finds that same build fresh and only links
//!   `target/debug/liblaika_safari.a` into place.
//! - The stdio host: `CARGO_BIN_EXE_*` only names binaries of the test's own package, and a
//!   `target/debug/laika-host` found lying there may be stale or built with other features, so
//!   the test builds it: `cargo build -p laika-host --bin laika-host` with this library's
//!   features (by default `--no-default-features`: the graph the test was just built from, so
//!   only the binary is compiled). Like `cargo test -p laika-host --no-default-features`, this
//!   leaves `target/debug/laika-host` without the embedded engine until laika-host is next built
//!   with it (cargo then links that build back in place without recompiling anything).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long either program may take over the whole conversation before it is stopped.
const DEADLINE: Duration = Duration::from_secs(300);

/// Read at run time first: a test binary built in another checkout sharing the target folder
/// would otherwise look in that checkout.
fn manifest_dir() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()))
}

/// `cargo`, run from the workspace, without the variables cargo sets for a running test: passed
/// on, they look changed to build scripts that watch them (ring's does) and cost a rebuild.
fn cargo() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into()));
    command.current_dir(manifest_dir().join("../.."));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_MANIFEST_")
            || ["CARGO_CRATE_NAME", "CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR"].contains(&name.as_ref())
        {
            command.env_remove(name.as_ref());
        }
    }
    command
}

/// Runs `cargo build ARGS` and returns its `compiler-artifact` messages.
fn cargo_build(args: &[&str]) -> Vec<Value> {
    let output = cargo()
        .arg("build")
        .args(args)
        .args(built_like_this_test())
        .arg("--message-format=json-render-diagnostics")
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "cargo build {args:?} failed");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .collect()
}

/// Cargo arguments that build as this test was built: same profile, same target directory.
fn built_like_this_test() -> Vec<String> {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).expect("the test runs from <target>/<profile>/deps");
    let mut args = Vec::new();
    match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => {}
        Some("release") => args.push("--release".to_string()),
        Some(profile) => args.extend(["--profile".to_string(), profile.to_string()]),
        None => panic!("no profile directory above {}", exe.display()),
    }
    let above = profile_dir.parent().unwrap();
    // The target directory holds CACHEDIR.TAG; with --target TRIPLE the profiles sit in <target>/TRIPLE.
    if above.join("CACHEDIR.TAG").is_file() {
        args.extend(["--target-dir".to_string(), above.display().to_string()]);
    } else {
        let triple = above.file_name().unwrap().to_string_lossy().to_string();
        args.extend(["--target-dir".to_string(), above.parent().unwrap().display().to_string()]);
        args.extend(["--target".to_string(), triple]);
    }
    args
}

/// liblaika_safari.a, as built for this test.
fn static_library() -> PathBuf {
    let features: &[&str] = if cfg!(feature = "embedded") { &["--features", "embedded"] } else { &[] };
    let artifacts = cargo_build(&[&["-p", "laika-safari", "--lib"], features].concat());
    artifacts
        .iter()
        .filter(|a| a["target"]["name"] == "laika_safari")
        .flat_map(|a| a["filenames"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .find(|f| f.extension().is_some_and(|e| e == "a"))
        .expect("cargo built liblaika_safari.a")
}

/// The real stdio host, built with this library's features.
fn stdio_host() -> PathBuf {
    let features: &[&str] = if cfg!(feature = "embedded") { &[] } else { &["--no-default-features"] };
    let artifacts = cargo_build(&[&["-p", "laika-host", "--bin", "laika-host"], features].concat());
    artifacts
        .iter()
        .filter(|a| a["target"]["name"] == "laika-host")
        .find_map(|a| a["executable"].as_str().map(PathBuf::from))
        .expect("cargo built laika-host")
}

/// What a C program linking the static library needs besides it: on Linux what rustc's
/// `--print native-static-libs` gives for this crate; on macOS (not run here) what reqwest's TLS
/// and proxy lookup and the standard library use, to be checked the same way.
fn system_libraries() -> &'static [&'static str] {
    if cfg!(target_os = "macos") {
        &["-framework", "CoreFoundation", "-framework", "Security", "-framework", "SystemConfiguration", "-liconv"]
    } else {
        &["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"]
    }
}

/// Compiles tests/c/request.c against the static library with the system C compiler.
fn request_program(library: &Path) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("laika-safari-request");
    let compiler = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let status = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(manifest_dir().join("include"))
        .arg(manifest_dir().join("tests/c/request.c"))
        .arg(library)
        .args(system_libraries())
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {compiler:?}: {e}"));
    assert!(status.success(), "request.c does not compile and link against {}", library.display());
    out
}

/// How a program takes requests: lines of JSON (request.c) or native-messaging frames.
#[derive(Clone, Copy)]
enum Wire {
    Lines,
    Frames,
}

/// One of the two programs, in conversation.
struct Peer {
    name: &'static str,
    wire: Wire,
    data_dir: PathBuf,
    child: Arc<Mutex<Child>>,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Peer {
    fn start(name: &'static str, program: &Path, args: &[&str], wire: Wire) -> Peer {
        // A data directory of its own (config, history), never the user's.
        let data_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "c-abi-{}-{}",
            name.replace(' ', "-"),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&data_dir);
        let mut child = Command::new(program)
            .args(args)
            .env("LAIKA_DATA_DIR", &data_dir)
            // The stdio host's daemon leaves soon after the test.
            .env("LAIKA_DAEMON_IDLE_SECS", "2")
            .env("LAIKA_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{name}: cannot start {}: {e}", program.display()));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let child = Arc::new(Mutex::new(child));
        let watched = Arc::downgrade(&child);
        std::thread::spawn(move || {
            std::thread::sleep(DEADLINE);
            if let Some(child) = watched.upgrade() {
                eprintln!("{name}: still running after {DEADLINE:?}; stopping it");
                let _ = child.lock().unwrap().kill();
            }
        });
        Peer { name, wire, data_dir, child, stdin, stdout }
    }

    /// Sends one message and reads its reply.
    fn send(&mut self, message: &[u8]) -> Value {
        let name = self.name;
        let stdin = self.stdin.as_mut().unwrap();
        let body = match self.wire {
            Wire::Lines => {
                assert!(!message.contains(&b'\n'), "a request line holds no newline");
                stdin.write_all(message).unwrap();
                stdin.write_all(b"\n").unwrap();
                stdin.flush().unwrap();
                let mut line = String::new();
                self.stdout.read_line(&mut line).unwrap();
                assert!(line.ends_with('\n'), "{name} stopped answering");
                line.into_bytes()
            }
            Wire::Frames => {
                stdin.write_all(&(message.len() as u32).to_ne_bytes()).unwrap();
                stdin.write_all(message).unwrap();
                stdin.flush().unwrap();
                let mut length = [0u8; 4];
                self.stdout.read_exact(&mut length).unwrap_or_else(|e| panic!("{name} stopped answering: {e}"));
                let mut body = vec![0u8; u32::from_ne_bytes(length) as usize];
                self.stdout.read_exact(&mut body).unwrap();
                body
            }
        };
        serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{name}: the reply is not JSON ({e})"))
    }

    /// Ends the conversation: both programs exit cleanly at the end of their input.
    fn stop(mut self) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        self.stdout.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty(), "{}: output after the last reply", self.name);
        // Polled, not waited for with the lock held: the watchdog may need it to stop the child.
        let status = loop {
            if let Some(status) = self.child.lock().unwrap().try_wait().unwrap() {
                break status;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(status.success(), "{} exits cleanly at the end of its input ({status})", self.name);
        // Kept when anything failed, for a look at its config and history.
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

/// True for a v4 UUID's text, as the host makes its ids.
fn is_uuid(s: &[u8]) -> bool {
    s.len() == 36
        && s.iter()
            .enumerate()
            .all(|(i, c)| if [8, 13, 18, 23].contains(&i) { *c == b'-' } else { c.is_ascii_hexdigit() })
}

/// The RFC 3339 timestamps the host writes: `2025-01-31T12:00:00.000Z`.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24
        && b[4] == b'-'
        && b[10] == b'T'
        && b[23] == b'Z'
        && b.iter().enumerate().all(|(i, c)| [4, 7, 10, 13, 16, 19, 23].contains(&i) || c.is_ascii_digit())
}

/// A reply with what differs between any two runs set aside: random ids (also inside text),
/// timestamps, durations (`*_ms`) and the data directory.
fn scrub(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| {
                    // Which process answered (`pid`, `served_by`): the library answers in the
                    // test's process, the stdio host through its daemon.
                    let volatile = ["data_dir", "pid", "served_by"].contains(&key.as_str()) || key.ends_with("_ms");
                    (key.clone(), if volatile { json!("<volatile>") } else { scrub(v) })
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(scrub).collect()),
        Value::String(s) if is_timestamp(s) => json!("<time>"),
        Value::String(s) => {
            let mut out = String::with_capacity(s.len());
            let mut i = 0;
            while i < s.len() {
                if s.is_char_boundary(i) && s.get(i..i + 36).is_some_and(|w| is_uuid(w.as_bytes())) {
                    out.push_str("<id>");
                    i += 36;
                } else {
                    let c = s[i..].chars().next().unwrap();
                    out.push(c);
                    i += c.len_utf8();
                }
            }
            Value::String(out)
        }
        other => other.clone(),
    }
}

/// The C library and the stdio host, asked the same things.
struct Pair {
    library: Peer,
    host: Peer,
}

impl Pair {
    /// Sends a message to both; checks their replies agree and returns them (library, host).
    fn same(&mut self, what: &str, message: &[u8]) -> (Value, Value) {
        let from_library = self.library.send(message);
        let from_host = self.host.send(message);
        assert_eq!(
            scrub(&from_library),
            scrub(&from_host),
            "{what}: the C library and the stdio host disagree\nlibrary: {from_library}\nhost: {from_host}"
        );
        (from_library, from_host)
    }

    /// A request to both; returns the library's reply.
    fn call(&mut self, id: Value, method: &str, params: Value) -> Value {
        let request = json!({ "id": id, "method": method, "params": params }).to_string();
        let (reply, _) = self.same(method, request.as_bytes());
        assert_eq!(reply["id"], id, "{method}: {reply}");
        reply
    }

    fn result(&mut self, id: Value, method: &str, params: Value) -> Value {
        let reply = self.call(id, method, params);
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    fn error_code(&mut self, what: &str, message: &[u8]) -> String {
        let (reply, _) = self.same(what, message);
        reply["error"]["code"].as_str().unwrap_or_else(|| panic!("{what}: not an error: {reply}")).to_string()
    }
}

/// Waits for the configured engine, on one program, until `model.status` says it is ready.
fn wait_until_ready(peer: &mut Peer, engine: &str) -> Value {
    for attempt in 0..500 {
        let status =
            peer.send(json!({ "id": format!("status-{attempt}"), "method": "model.status" }).to_string().as_bytes());
        let state = &status["result"]["status"];
        if state["state"] == "ready" && state["engine"] == engine {
            return status;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{}: the {engine} engine never became ready", peer.name);
}

/// Polls a summary job to the end on one program: the whole text and the last poll.
fn follow(peer: &mut Peer, job: &str) -> (String, Value) {
    let mut text = String::new();
    for attempt in 0..2_000 {
        let request = json!({ "id": format!("poll-{attempt}"), "method": "summary.poll", "params": { "job_id": job, "cursor": text.len() } });
        let reply = peer.send(request.to_string().as_bytes());
        assert_eq!(reply["id"], format!("poll-{attempt}"), "{}: {reply}", peer.name);
        let poll = &reply["result"];
        text.push_str(poll["delta"].as_str().unwrap_or_else(|| panic!("{}: {reply}", peer.name)));
        assert_eq!(poll["cursor"].as_u64().unwrap() as usize, text.len());
        if poll["done"] == true {
            return (text, poll.clone());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{}: the summary never finished", peer.name);
}

/// A saved page as the content script would observe it, by the stdio host's `observe`.
fn observation(host: &Path, page: &str, url: &str) -> Value {
    let path = manifest_dir().join("../../tests/fixtures/pages").join(page);
    let out = Command::new(host).args(["observe"]).arg(&path).args(["--url", url, "--full"]).output().unwrap();
    assert!(out.status.success(), "laika-host observe {}", path.display());
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_c_library_answers_like_the_stdio_host() {
    let library = static_library();
    let program = request_program(&library);
    let host_program = stdio_host();
    eprintln!("the static library: {}\nthe stdio host: {}", library.display(), host_program.display());
    let article = observation(&host_program, "article.html", "https://news.example.com/otters");

    let mut pair = Pair {
        library: Peer::start("request.c", &program, &[], Wire::Lines),
        host: Peer::start("laika-host native", &host_program, &["native"], Wire::Frames),
    };

    // The protocol tools.
    let info = pair.result(json!(1), "host.info", json!({}));
    assert_eq!(info["name"], "laika-host");
    assert!(info["methods"].as_array().unwrap().contains(&json!("summary.poll")), "{info}");
    let sanitized = pair.result(
        json!("render"),
        "render.sanitize",
        json!({ "render": { "type": "doc", "children": [{ "type": "paragraph", "children": [
            { "type": "link", "href": "javascript:alert(1)", "children": [{ "type": "text", "text": "<b>hi</b>" }] }
        ] }] } }),
    );
    assert!(!sanitized["html"].as_str().unwrap().contains("javascript:"), "{sanitized}");
    let invalid = json!({ "protocol": { "name": "laika.llmcp", "version": 2 } });
    let validated = pair.result(json!(2), "packet.validate", json!({ "packet": invalid }));
    assert_eq!(validated["valid"], false);
    assert!(!validated["violations"].as_array().unwrap().is_empty());

    // State, before anything was done.
    assert_eq!(pair.result(json!(3), "history.list", json!({})), json!({ "conversations": [] }));
    let config = pair.result(json!(4), "config.get", json!({}));
    assert_eq!(config["config"]["engine"], "mistral");

    // Errors, with the stdio host's stable codes.
    assert_eq!(pair.call(json!(5), "plan.everything", json!({}))["error"]["code"], "HOST_UNKNOWN_METHOD");
    assert_eq!(pair.call(json!(6), "packet.validate", json!({}))["error"]["code"], "HOST_INVALID_PARAMS");
    assert_eq!(pair.error_code("malformed JSON", b"{\"id\": 7, \"method\": "), "NM_INVALID_JSON");
    assert_eq!(pair.error_code("invalid UTF-8", b"\xc3\x28 invalid utf-8"), "NM_INVALID_UTF8");
    assert_eq!(pair.error_code("not an object", b"[1, 2]"), "NM_INVALID_REQUEST");
    let (no_method, _) = pair.same("no method", br#"{"id": "m", "params": {}}"#);
    assert_eq!(no_method["id"], "m");
    assert_eq!(no_method["error"]["code"], "NM_INVALID_REQUEST");

    // A summary on the extractive engine: started by one call, polled by the next ones.
    let set = pair.result(json!(8), "config.set", json!({ "key": "engine", "value": "extractive" }));
    assert_eq!(set["config"]["engine"], "extractive");
    let ready = (wait_until_ready(&mut pair.library, "extractive"), wait_until_ready(&mut pair.host, "extractive"));
    assert_eq!(scrub(&ready.0["result"]), scrub(&ready.1["result"]), "model.status once ready");
    let (started, started_by_host) = pair.same(
        "summary.start",
        json!({ "id": 9, "method": "summary.start", "params": { "observation": article } }).to_string().as_bytes(),
    );
    let job = started["result"]["job_id"].as_str().expect("a job id").to_string();
    let host_job = started_by_host["result"]["job_id"].as_str().expect("a job id").to_string();
    let (text, last) = follow(&mut pair.library, &job);
    let (host_text, host_last) = follow(&mut pair.host, &host_job);
    assert_eq!(text, host_text, "the summaries' text");
    // How much of it the last poll carries depends on when it came.
    let without_delta = |poll: &Value| {
        let mut poll = scrub(poll);
        poll.as_object_mut().unwrap().remove("delta");
        poll
    };
    assert_eq!(without_delta(&last), without_delta(&host_last), "the summaries' last poll");
    assert!(last["error"].is_null(), "{last}");
    assert_eq!(last["coverage"]["ratio"], 1.0, "{last}");
    assert!(text.lines().count() >= 2, "{text}");
    assert!(last["result"]["html"].as_str().unwrap().contains("<li>"), "{last}");

    // The summary's packet is valid, and the summary was stored.
    let packet = &last["result"]["response"];
    assert_eq!(pair.result(json!(10), "packet.validate", json!({ "packet": packet }))["valid"], true);
    let listed = pair.result(json!(11), "history.list", json!({}));
    assert_eq!(listed["conversations"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed["conversations"][0]["id"], started["result"]["conversation"]["id"]);
    assert_eq!(pair.call(json!(12), "summary.poll", json!({ "job_id": "nope" }))["error"]["code"], "SUMMARY_NOT_FOUND");

    // A planning step is answered later (after the engine): the library waits for it.
    let link = article["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["role"] == "link" && e["text"].as_str().is_some_and(|t| t.len() > 3))
        .expect("a link on the page")
        .clone();
    let goal = format!("click {}", link["text"].as_str().unwrap());
    let plan = pair.result(json!(13), "plan", json!({ "goal": goal, "observation": article }));
    assert_eq!(plan["tool_calls"][0]["decision"]["verdict"], "ask", "{plan}");

    pair.library.stop();
    pair.host.stop();
}
