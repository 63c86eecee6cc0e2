//! The host's state: where its files are, its configuration, the engine (loaded in the
//! background so the host answers at once), the history database and the running summaries.

use crate::debuglog::DebugLog;
use crate::engine::extractive::ExtractiveEngine;
use crate::engine::openai::OpenAiEngine;
use crate::engine::{Engine, EngineKind, Sampling};
use crate::history::{History, StoragePolicy};
use crate::models;
use crate::summary::SummaryJob;
use anyhow::{Context, Result};
use laika_shared::observation::Observation;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

/// The data directory: `LAIKA_DATA_DIR`, else the platform's (e.g. `~/.local/share/laika`).
pub fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("LAIKA_DATA_DIR") {
        return PathBuf::from(dir);
    }
    directories::ProjectDirs::from("org", "Laika", "laika")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".laika"))
}

/// The embedded engine's precisions (engine::mistral::Precision; named here as well so that a
/// host built without the engine still checks its configuration the same way).
pub const PRECISIONS: [&str; 4] = ["q8", "f32", "f32quantised", "auto"];

/// The daemon's default port: unassigned by IANA, and not a common development server's.
pub const DEFAULT_DAEMON_PORT: u16 = 7341;

/// What a user can set (`config.set`, `config.json` in the data directory).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub engine: EngineKind,
    /// An installed model name or a path to a GGUF (mistral engine).
    pub model: String,
    /// Precision of the embedded engine: `q8` (the default), `f32`, `f32quantised` or `auto`
    /// (engine/mistral.rs says what each costs).
    pub precision: String,
    /// The OpenAI-compatible server (openai engine).
    pub base_url: String,
    pub remote_model: String,
    /// Name of the environment variable holding the server's API key, if it needs one.
    pub api_key_env: String,
    pub remote_context_tokens: usize,
    /// The remote model is small (a few hundred million parameters): it gets plain prompts
    /// (title, numbered passages, one question last) instead of the JSON request packet.
    pub remote_small: bool,
    pub max_steps: u32,
    pub temperature: f64,
    pub top_p: f64,
    pub top_k: usize,
    /// Repetition control (small models loop without it).
    pub frequency_penalty: f32,
    pub presence_penalty: f32,
    pub dry_multiplier: f32,
    /// Model sentences (the gist, part lines, answers) held to plain sentences by constrained
    /// decoding where the engine can (the embedded one); the name is older than the sentences.
    pub constrain_bullets: bool,
    /// The loopback port `laika-host daemon` serves the Lark v1 hub on (`ws://127.0.0.1:PORT/ws`).
    pub daemon_port: u16,
    /// A daemon a browser's proxy started leaves after this many seconds unused (no browser
    /// session, no running summary, no hub connection); 0 keeps it running. The model stays
    /// loaded meanwhile, so the next summary does not wait for it. `LAIKA_DAEMON_IDLE_SECS`
    /// overrides it (tests use a few seconds).
    pub daemon_idle_exit_secs: u64,
    /// Where `artifact.share` writes files; empty: the user's Downloads folder (or
    /// `<data dir>/exports` on a system without one).
    pub export_dir: String,
}

impl Default for Config {
    fn default() -> Self {
        let sampling = Sampling::default();
        Config {
            engine: EngineKind::Mistral,
            model: models::DEFAULT_MODEL.into(),
            precision: "q8".into(),
            base_url: "http://127.0.0.1:8080".into(),
            remote_model: "default".into(),
            api_key_env: String::new(),
            remote_context_tokens: 8192,
            remote_small: false,
            max_steps: crate::agent::DEFAULT_MAX_STEPS,
            temperature: sampling.temperature,
            top_p: sampling.top_p,
            top_k: sampling.top_k,
            frequency_penalty: sampling.frequency_penalty,
            presence_penalty: sampling.presence_penalty,
            dry_multiplier: sampling.dry_multiplier,
            constrain_bullets: true,
            daemon_port: DEFAULT_DAEMON_PORT,
            daemon_idle_exit_secs: 30 * 60,
            export_dir: String::new(),
        }
    }
}

impl Config {
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join("config.json")
    }

    /// Reads the configuration; a missing file is the defaults, a broken one an error that
    /// names the file (nothing is overwritten).
    pub fn load(data_dir: &Path) -> Result<Config> {
        let path = Config::path(data_dir);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| format!("CONFIG_INVALID: {}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    pub fn save(&self, data_dir: &Path) -> Result<()> {
        std::fs::create_dir_all(data_dir)?;
        let path = Config::path(data_dir);
        let partial = path.with_extension("json.partial");
        std::fs::write(&partial, serde_json::to_string_pretty(self)?)?;
        std::fs::rename(&partial, &path)?;
        Ok(())
    }

    /// Sets one key from JSON, checking the value; the configuration is unchanged on error.
    pub fn set(&mut self, key: &str, value: &Value) -> std::result::Result<(), String> {
        let mut object = serde_json::to_value(&*self).map_err(|e| e.to_string())?;
        let Some(slot) = object.get_mut(key) else {
            return Err(format!("no setting {key:?}; settings are {}", Config::keys().join(", ")));
        };
        *slot = value.clone();
        let updated: Config = serde_json::from_value(object).map_err(|e| format!("{key}: {e}"))?;
        if !PRECISIONS.contains(&updated.precision.as_str()) {
            return Err(format!("precision is one of {}", PRECISIONS.join(", ")));
        }
        if !(1..=50).contains(&updated.max_steps) {
            return Err("max_steps is 1..=50".into());
        }
        if !(0.0..=2.0).contains(&updated.temperature) || !(0.0..=1.0).contains(&updated.top_p) {
            return Err("temperature is 0..=2 and top_p 0..=1".into());
        }
        if updated.daemon_port < 1024 {
            return Err("daemon_port is 1024..=65535 (a port a user may listen on)".into());
        }
        *self = updated;
        Ok(())
    }

    pub fn keys() -> Vec<String> {
        serde_json::to_value(Config::default())
            .ok()
            .and_then(|v| v.as_object().map(|m| m.keys().cloned().collect()))
            .unwrap_or_default()
    }

    /// How long a proxy-started daemon stays unused before it leaves (`None`: it stays).
    pub fn daemon_idle_exit(&self) -> Option<u64> {
        let secs = std::env::var("LAIKA_DAEMON_IDLE_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(self.daemon_idle_exit_secs);
        (secs > 0).then_some(secs)
    }

    pub fn sampling(&self) -> Sampling {
        Sampling {
            temperature: self.temperature,
            top_p: self.top_p,
            top_k: self.top_k,
            frequency_penalty: self.frequency_penalty,
            presence_penalty: self.presence_penalty,
            dry_multiplier: self.dry_multiplier,
            ..Sampling::default()
        }
    }
}

/// Where LAVS services are installed, in the data directory.
pub const LAVS_DIR: &str = "lavs";

/// Pages kept in memory per conversation, for questions asked about them from elsewhere (the
/// Lark bus): the history keeps only a short preview of a page, never its whole text.
pub const PAGES_KEPT: usize = 32;

/// What happened in the host that another part of the daemon may act on: Laika's member on the
/// Lark bus posts finished summaries and answers to the conversation's channel and mirrors
/// approvals there. Nobody listening is fine (the in-process host, the Safari library).
#[derive(Clone, Debug)]
pub enum HostEvent {
    /// A summary or an answer finished (not cancelled, not failed).
    SummaryDone { conversation_id: String, title: String, url: String, question: Option<String>, text: String },
    /// The Policy Gate asked the user about a proposed call.
    ApprovalAsked { approval: crate::history::ApprovalRecord, title: String },
    /// An approval was answered: through the host's API (the sidecar's card, the CLI, the
    /// `laika` LAVS service), or by a person on the Lark hub (`from_hub`, already resolved there).
    ApprovalDecided { approval: crate::history::ApprovalRecord, from_hub: bool },
}

/// The engine's loading state, for `model.status`.
#[derive(Clone, Debug, Serialize)]
pub struct EngineStatus {
    /// `loading`, `ready`, `failed` or `not_installed`.
    pub state: &'static str,
    pub engine: EngineKind,
    pub model_id: Option<String>,
    pub model_path: Option<PathBuf>,
    pub error: Option<Value>,
    pub load_ms: Option<f64>,
    /// True when summaries run on the extractive fallback because no model could be used.
    pub fallback: bool,
}

impl EngineStatus {
    /// The state while an engine is being loaded: nothing known about it yet.
    fn loading(engine: EngineKind) -> EngineStatus {
        EngineStatus {
            state: "loading",
            engine,
            model_id: None,
            model_path: None,
            error: None,
            load_ms: None,
            fallback: false,
        }
    }
}

pub struct Host {
    pub data_dir: PathBuf,
    pub config: Mutex<Config>,
    pub history: Arc<History>,
    /// The user's notes (`notebook.sqlite3`), opened on first use ([`Host::notebook`]).
    notebook: Mutex<Option<Arc<crate::notebook::Notebook>>>,
    pub debug: Arc<DebugLog>,
    engine: RwLock<Option<Arc<dyn Engine>>>,
    status: RwLock<EngineStatus>,
    pub jobs: Mutex<HashMap<String, Arc<SummaryJob>>>,
    pub started: Instant,
    /// Whether this host is the daemon's (shared by every browser) or a process of its own.
    served_by_daemon: AtomicBool,
    events: tokio::sync::broadcast::Sender<HostEvent>,
    /// The LAVS services installed in `<data dir>/lavs/` (`None` when that folder cannot be
    /// opened; the rest of the host still serves).
    pub lavs: Option<Arc<laika_lavs::Runtime>>,
    /// The latest page of each recent conversation, newest last ([`PAGES_KEPT`]).
    pages: Mutex<std::collections::VecDeque<(String, Arc<Observation>)>>,
    /// Host-run calls the gate decided on, waiting for `tool.run`.
    pub host_calls: crate::host_tools::HostCalls,
    /// The browser calls of recent planning steps, released to the router once allowed or
    /// approved ([`crate::release`]).
    pub browser_calls: crate::release::BrowserCalls,
    /// Recent planning runs: what each step proposed and what ran.
    pub runs: crate::agent::Runs,
    /// LAVS subscriptions the sidecar polls over native messaging.
    pub lavs_subscriptions: crate::lavs_subscriptions::Subscriptions,
}

impl Host {
    pub fn open(data_dir: &Path) -> Result<Arc<Host>> {
        std::fs::create_dir_all(data_dir).with_context(|| format!("cannot create {}", data_dir.display()))?;
        let config = Config::load(data_dir)?;
        let history = History::open(&data_dir.join("history.sqlite3"), StoragePolicy::from_env())
            .map_err(|e| anyhow::anyhow!("{}: {}", e.code, e.message))?;
        if history.policy() == StoragePolicy::Full {
            tracing::warn!(
                "LAIKA_LOG_FULL_LLM=1: full-packet mode. The history in {} stores every packet whole, full page \
                 text included (and with LAIKA_DEBUG=1, llm.jsonl keeps full prompts). For debugging only; unset \
                 it to store redacted packets again.",
                data_dir.display()
            );
        }
        let status = EngineStatus::loading(config.engine);
        let host = Arc::new(Host {
            notebook: Mutex::new(None),
            data_dir: data_dir.to_path_buf(),
            debug: Arc::new(DebugLog::from_env(data_dir)),
            config: Mutex::new(config),
            history: Arc::new(history),
            engine: RwLock::new(None),
            status: RwLock::new(status),
            jobs: Mutex::new(HashMap::new()),
            started: Instant::now(),
            served_by_daemon: AtomicBool::new(false),
            events: tokio::sync::broadcast::channel(256).0,
            lavs: match laika_lavs::Runtime::open(&data_dir.join(LAVS_DIR)) {
                Ok(runtime) => Some(Arc::new(runtime)),
                Err(error) => {
                    tracing::warn!("LAVS services are off: {error}");
                    None
                }
            },
            pages: Mutex::new(std::collections::VecDeque::new()),
            host_calls: Default::default(),
            runs: Default::default(),
            browser_calls: Default::default(),
            lavs_subscriptions: Default::default(),
        });
        crate::laika_service::register(&host);
        Ok(host)
    }

    /// The user's notes: saved artifacts and the Librarian's work. Opened on first use, so a
    /// notebook file that cannot be opened fails only what needs notes (with its code), never
    /// the host's start, and a host that never touches notes never creates the file.
    pub fn notebook(&self) -> Result<Arc<crate::notebook::Notebook>, crate::notebook::NotebookError> {
        let mut slot = self.notebook.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(notebook) = slot.as_ref() {
            return Ok(notebook.clone());
        }
        let notebook = Arc::new(crate::notebook::Notebook::open(&self.data_dir.join(crate::notebook::FILE))?);
        *slot = Some(notebook.clone());
        Ok(notebook)
    }

    /// Tells whoever listens (see [`HostEvent`]).
    pub fn publish(&self, event: HostEvent) {
        let _ = self.events.send(event);
    }

    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<HostEvent> {
        self.events.subscribe()
    }

    /// Keeps a conversation's page for later questions, replacing its older page.
    pub fn remember_page(&self, conversation_id: &str, observation: Arc<Observation>) {
        let mut pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        pages.retain(|(id, _)| id != conversation_id);
        pages.push_back((conversation_id.to_string(), observation));
        while pages.len() > PAGES_KEPT {
            pages.pop_front();
        }
    }

    /// The page a conversation last looked at, if this host still has it.
    pub fn page(&self, conversation_id: &str) -> Option<Arc<Observation>> {
        let pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        pages.iter().rev().find(|(id, _)| id == conversation_id).map(|(_, page)| page.clone())
    }

    pub fn set_served_by_daemon(&self) {
        self.served_by_daemon.store(true, Ordering::Relaxed);
    }

    pub fn served_by_daemon(&self) -> bool {
        self.served_by_daemon.load(Ordering::Relaxed)
    }

    /// Summaries still running.
    pub fn running_jobs(&self) -> usize {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).values().filter(|j| !j.is_done()).count()
    }

    /// Cancels every running summary (the daemon is stopping).
    pub fn cancel_jobs(&self) {
        for job in self.jobs.lock().unwrap_or_else(|e| e.into_inner()).values() {
            job.cancel.cancel();
        }
    }

    pub fn config(&self) -> Config {
        self.config.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn status(&self) -> EngineStatus {
        self.status.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The engine to use now: the configured one once loaded; while it loads or when it cannot
    /// be used, `None` (callers decide whether to wait or fall back).
    pub fn engine(&self) -> Option<Arc<dyn Engine>> {
        self.engine.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Waits for the engine to finish loading; the extractive engine when the configured one
    /// failed or no model is installed (the status says so).
    pub async fn ready_engine(&self) -> Arc<dyn Engine> {
        loop {
            if let Some(engine) = self.engine() {
                return engine;
            }
            let state = self.status().state;
            if state != "loading" {
                return Arc::new(ExtractiveEngine);
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    fn set_status(&self, f: impl FnOnce(&mut EngineStatus)) {
        f(&mut self.status.write().unwrap_or_else(|e| e.into_inner()));
    }

    /// Loads the configured engine; call again after the configuration changes.
    pub async fn load_engine(self: &Arc<Self>) {
        let config = self.config();
        *self.engine.write().unwrap_or_else(|e| e.into_inner()) = None;
        self.set_status(|s| *s = EngineStatus::loading(config.engine));
        let started = Instant::now();
        let loaded: std::result::Result<Arc<dyn Engine>, (&'static str, Value)> = match config.engine {
            EngineKind::Extractive => Ok(Arc::new(ExtractiveEngine)),
            EngineKind::Openai => {
                let key = (!config.api_key_env.is_empty()).then(|| std::env::var(&config.api_key_env).ok()).flatten();
                match OpenAiEngine::new(&config.base_url, &config.remote_model, key, config.remote_context_tokens)
                    .map(|engine| engine.with_small(config.remote_small))
                {
                    // Ready only when the server answers: model.status then says so at once.
                    Ok(engine) => match engine.probe().await {
                        Ok(_) => Ok(Arc::new(engine) as Arc<dyn Engine>),
                        Err(e) => Err(("failed", json!({ "code": e.code, "message": e.message }))),
                    },
                    Err(e) => Err(("failed", json!({ "code": e.code, "message": e.message }))),
                }
            }
            EngineKind::Mistral => self.load_mistral(&config).await,
        };
        let load_ms = started.elapsed().as_secs_f64() * 1000.0;
        match loaded {
            Ok(engine) => {
                let id = engine.model_id();
                *self.engine.write().unwrap_or_else(|e| e.into_inner()) = Some(engine);
                self.set_status(|s| {
                    s.state = "ready";
                    s.model_id = Some(id);
                    s.load_ms = Some(load_ms);
                });
            }
            Err((state, error)) => {
                tracing::warn!("engine not available: {error}");
                self.set_status(|s| {
                    s.state = state;
                    s.error = Some(error);
                    s.load_ms = Some(load_ms);
                    s.fallback = true;
                });
            }
        }
    }

    #[cfg(feature = "embedded")]
    async fn load_mistral(&self, config: &Config) -> std::result::Result<Arc<dyn Engine>, (&'static str, Value)> {
        use crate::engine::mistral::{MistralEngine, Precision};
        let Some(path) = models::resolve(&self.data_dir, &config.model) else {
            return Err((
                "not_installed",
                json!({ "code": "MODEL_NOT_INSTALLED", "message": format!("model {:?} is not installed; run `laika-host model install`", config.model) }),
            ));
        };
        self.set_status(|s| s.model_path = Some(path.clone()));
        let precision = Precision::from_name(&config.precision).unwrap_or(Precision::Q8);
        let warm = Some(crate::summary::shared_prompt_start());
        MistralEngine::load(&path, precision, &models::cpu_cache_dir(&self.data_dir), warm)
            .await
            .map(|e| Arc::new(e) as Arc<dyn Engine>)
            .map_err(|e| ("failed", json!({ "code": e.code, "message": e.message })))
    }

    #[cfg(not(feature = "embedded"))]
    async fn load_mistral(&self, _config: &Config) -> std::result::Result<Arc<dyn Engine>, (&'static str, Value)> {
        Err((
            "failed",
            json!({ "code": "ENGINE_NOT_BUILT", "message": "this laika-host was built without the embedded engine" }),
        ))
    }
}
