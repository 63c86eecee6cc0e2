//! `LAIKA_DEBUG=1`: lightweight debug events, one JSON object a line, in `llm.jsonl` in the data
//! directory. Events carry sizes, timings and model output; page text only when
//! `LAIKA_LOG_FULL_LLM=1` also says so.

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub struct DebugLog {
    path: Option<PathBuf>,
    full: bool,
    lock: Mutex<()>,
}

impl DebugLog {
    pub fn from_env(data_dir: &Path) -> DebugLog {
        let on = std::env::var("LAIKA_DEBUG").is_ok_and(|v| v == "1");
        DebugLog {
            path: on.then(|| data_dir.join("llm.jsonl")),
            full: std::env::var("LAIKA_LOG_FULL_LLM").is_ok_and(|v| v == "1"),
            lock: Mutex::new(()),
        }
    }

    pub fn off() -> DebugLog {
        DebugLog { path: None, full: false, lock: Mutex::new(()) }
    }

    pub fn enabled(&self) -> bool {
        self.path.is_some()
    }

    /// Whether events may carry full prompts (page text).
    pub fn full(&self) -> bool {
        self.full
    }

    /// Appends one event. Failures are reported on stderr and never stop the caller.
    pub fn event(&self, name: &str, fields: Value) {
        let Some(path) = &self.path else { return };
        let mut event = json!({ "ts": crate::prompt::now_utc(), "event": name });
        if let (Some(map), Value::Object(extra)) = (event.as_object_mut(), fields) {
            map.extend(extra);
        }
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let result = std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
            .and_then(|_| std::fs::OpenOptions::new().create(true).append(true).open(path))
            .and_then(|mut file| writeln!(file, "{event}"));
        if let Err(error) = result {
            tracing::warn!("cannot write {}: {error}", path.display());
        }
    }
}
