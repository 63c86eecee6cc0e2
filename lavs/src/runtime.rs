//! The installed services and the one way to call them: [`Runtime::call`] (and
//! [`Runtime::subscribe`]) run the stages the crate doc lists, whoever the caller is.
//!
//! Services live in `<root>/<name>/` (the daemon's `<data dir>/lavs/`), each with its
//! `lavs.json`; `install` copies a folder there after checking its manifest, so what runs is
//! what was checked, and a later edit of the original has no effect until it is installed again.

use crate::audit::Audit;
use crate::error::{self, LavsError};
use crate::manifest::{Handler, Method, NetworkAccess, Service};
use crate::permissions::FileAccess;
use crate::script::{self, Script};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

pub const AUDIT_FILE: &str = "audit.sqlite3";

/// A built-in service: its checked manifest and what answers it.
type BuiltInEntry = (Arc<Service>, Arc<dyn BuiltIn>);

pub struct Runtime {
    root: PathBuf,
    services: RwLock<BTreeMap<String, Arc<Service>>>,
    builtins: RwLock<BTreeMap<String, BuiltInEntry>>,
    /// Names no folder may take: the built-in services' (also where they are not registered,
    /// as in `laika-host lavs add`).
    reserved: RwLock<std::collections::BTreeSet<String>>,
    /// The MCP servers `mcp` handlers have started, kept between calls; dropped (and so stopped)
    /// with the runtime.
    mcp: crate::mcp::Servers,
    pub audit: Audit,
}

/// A service answered inside the program that hosts the runtime (Laika's own `laika` service
/// over its history): its manifest is checked like any other and its calls go through the same
/// validation, audit and transports; only the handler is a function here, not a program.
pub trait BuiltIn: Send + Sync {
    /// The manifest, every endpoint's handler `{"type": "builtin"}`.
    fn manifest(&self) -> Value;
    fn call(&self, endpoint: &str, input: Value) -> futures_util::future::BoxFuture<'static, Result<Value, LavsError>>;
    fn subscribe(&self, endpoint: &str, input: Value) -> Result<tokio::sync::mpsc::Receiver<Value>, LavsError>;
}

/// A service as `lavs list` shows it.
#[derive(Debug, serde::Serialize)]
pub struct Listed {
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    pub endpoints: Vec<Value>,
    pub dir: PathBuf,
    /// What the manifest asks that this system cannot enforce (said, not hidden).
    pub unenforced: Vec<String>,
}

fn internal(e: impl std::fmt::Display) -> LavsError {
    LavsError::titled(error::INTERNAL_ERROR, e)
}

impl Runtime {
    /// Opens `root` (made if missing) and loads every service in it; one that no longer loads is
    /// skipped with a warning (the others still serve).
    pub fn open(root: &Path) -> Result<Runtime, LavsError> {
        std::fs::create_dir_all(root).map_err(|e| internal(format!("{}: {e}", root.display())))?;
        let audit = Audit::open(&root.join(AUDIT_FILE)).map_err(internal)?;
        let runtime = Runtime {
            root: root.to_path_buf(),
            services: RwLock::new(BTreeMap::new()),
            builtins: RwLock::new(BTreeMap::new()),
            reserved: RwLock::new(Default::default()),
            mcp: Default::default(),
            audit,
        };
        for entry in std::fs::read_dir(root).map_err(internal)?.flatten() {
            let dir = entry.path();
            if !dir.join(crate::manifest::MANIFEST_FILE).is_file() {
                continue;
            }
            match Service::load(&dir) {
                Ok(service) => {
                    runtime.services_mut().insert(service.manifest.name.clone(), Arc::new(service));
                }
                Err(error) => tracing::warn!("lavs: {} does not load: {error}", dir.display()),
            }
        }
        Ok(runtime)
    }

    fn services_mut(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<String, Arc<Service>>> {
        self.services.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `name` for a built-in service: `install` refuses a folder of that name.
    pub fn reserve_name(&self, name: &str) {
        self.reserved.write().unwrap_or_else(|e| e.into_inner()).insert(name.to_string());
    }

    /// Serves a built-in service under its manifest's name (which no folder may then take).
    pub fn register_builtin(&self, builtin: Arc<dyn BuiltIn>) -> Result<String, LavsError> {
        let service = Service::from_value(&self.root, builtin.manifest())?;
        let name = service.manifest.name.clone();
        self.builtins.write().unwrap_or_else(|e| e.into_inner()).insert(name.clone(), (Arc::new(service), builtin));
        Ok(name)
    }

    fn builtin(&self, name: &str) -> Option<BuiltInEntry> {
        self.builtins.read().unwrap_or_else(|e| e.into_inner()).get(name).cloned()
    }

    /// The service `name` as its folder has it now: one installed, changed or removed (by
    /// `laika-host lavs` while the daemon runs) is seen at its next call, at the cost of two
    /// `stat`s a call (`lavs.json`, `mcp-config.json`). The MCP servers of one changed or removed
    /// are stopped then.
    pub fn service(&self, name: &str) -> Option<Arc<Service>> {
        if let Some((service, _)) = self.builtin(name) {
            return Some(service);
        }
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return None;
        }
        let dir = self.root.join(name);
        let modified = crate::manifest::manifest_modified(&dir);
        if let Some(found) = self.services.read().unwrap_or_else(|e| e.into_inner()).get(name)
            && modified.is_some()
            && found.modified == modified
        {
            return Some(found.clone());
        }
        if modified.is_none() {
            self.services_mut().remove(name);
            self.mcp.stop_service(name);
            return None;
        }
        match Service::load(&dir) {
            Ok(service) if service.manifest.name == name => {
                let service = Arc::new(service);
                self.services_mut().insert(name.to_string(), service.clone());
                self.mcp.stop_service(name);
                Some(service)
            }
            Ok(_) => None,
            Err(error) => {
                tracing::warn!("lavs: {} does not load: {error}", dir.display());
                None
            }
        }
    }

    /// Checks `from/lavs.json`, then copies the folder to `<root>/<name>/` (replacing an older
    /// copy) and serves it. Returns the service's name.
    pub fn install(&self, from: &Path) -> Result<String, LavsError> {
        let checked = Service::load(from)?;
        let name = checked.manifest.name.clone();
        if self.builtin(&name).is_some() || self.reserved.read().unwrap_or_else(|e| e.into_inner()).contains(&name) {
            return Err(LavsError::titled(error::INVALID_REQUEST, format!("{name:?} is a built-in service's name")));
        }
        if checked.manifest.endpoints.iter().any(|e| matches!(e.handler, Handler::Builtin {})) {
            return Err(LavsError::titled(
                error::INVALID_REQUEST,
                "builtin handlers are Laika's own; a service folder cannot use them",
            ));
        }
        let target = self.root.join(&name);
        let staging = self.root.join(format!(".{name}.installing"));
        let _ = std::fs::remove_dir_all(&staging);
        copy_dir(from, &staging).map_err(|e| internal(format!("copying {}: {e}", from.display())))?;
        let _ = std::fs::remove_dir_all(&target);
        std::fs::rename(&staging, &target).map_err(internal)?;
        let service = Service::load(&target)?;
        self.services_mut().insert(name.clone(), Arc::new(service));
        // Servers started from the replaced copy would go on running its old program.
        self.mcp.stop_service(&name);
        Ok(name)
    }

    /// Removes an installed service (its folder with it). False when there was none.
    pub fn remove(&self, name: &str) -> Result<bool, LavsError> {
        let Some(service) = self.services_mut().remove(name) else { return Ok(false) };
        self.mcp.stop_service(name);
        std::fs::remove_dir_all(&service.dir).map_err(internal)?;
        Ok(true)
    }

    /// Every service served: the built-in ones, then the installed ones by name.
    pub fn services(&self) -> Vec<Arc<Service>> {
        let mut names: Vec<String> = std::fs::read_dir(&self.root)
            .map(|entries| entries.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
            .unwrap_or_default();
        names.sort();
        let builtins: Vec<Arc<Service>> =
            self.builtins.read().unwrap_or_else(|e| e.into_inner()).values().map(|(s, _)| s.clone()).collect();
        builtins.into_iter().chain(names.iter().filter_map(|name| self.service(name))).collect()
    }

    pub fn list(&self) -> Vec<Listed> {
        self.services()
            .iter()
            .map(|s| {
                let mut unenforced = Vec::new();
                let asks_offline = std::iter::once(&s.manifest.permissions)
                    .chain(s.manifest.endpoints.iter().filter_map(|e| e.permissions.as_ref()))
                    .any(|p| p.network_access == Some(NetworkAccess::All(false)));
                if asks_offline && !script::network_isolation() {
                    unenforced.push(
                        "networkAccess: false (this system does not let Laika give a handler a network namespace of its own)"
                            .to_string(),
                    );
                }
                Listed {
                    name: s.manifest.name.clone(),
                    version: s.manifest.version.clone(),
                    description: s.manifest.description.clone(),
                    endpoints: s
                        .manifest
                        .endpoints
                        .iter()
                        .map(|e| json!({ "id": e.id, "method": e.method, "description": e.description }))
                        .collect(),
                    dir: s.dir.clone(),
                    unenforced,
                }
            })
            .collect()
    }

    /// Everything before the handler runs: the service, the endpoint (of the wanted kind), the
    /// input validated with its defaults, the file access checked.
    fn prepare(
        &self,
        service: &str,
        endpoint: &str,
        input: Option<Value>,
        subscription: bool,
    ) -> Result<(Arc<Service>, usize, Value, Arc<FileAccess>), LavsError> {
        let found = self
            .service(service)
            .ok_or_else(|| LavsError::titled(error::METHOD_NOT_FOUND, format!("no service {service:?}")))?;
        let index = found.endpoints.iter().position(|e| e.endpoint.id == endpoint).ok_or_else(|| {
            LavsError::titled(error::METHOD_NOT_FOUND, format!("{service} has no endpoint {endpoint:?}"))
        })?;
        let compiled = &found.endpoints[index];
        if (compiled.endpoint.method == Method::Subscription) != subscription {
            let how = if subscription { "lavs/call" } else { "lavs/subscribe" };
            return Err(LavsError::titled(error::METHOD_NOT_FOUND, format!("{endpoint} is called with {how}")));
        }
        let mut input = input.unwrap_or_else(|| json!({}));
        if let Some(schema) = &compiled.input {
            schema.apply_defaults(&mut input);
            if let Err((field, what)) = schema.check(&input) {
                let field_name = field.trim_start_matches('/').to_string();
                return Err(LavsError::titled(error::INVALID_PARAMS, format!("{field}: {what}"))
                    .with_data(json!({ "field": if field_name.is_empty() { what.clone() } else { field_name } })));
            }
        }
        let access = match compiled.file_access.get() {
            Some(access) => access.clone(),
            None => {
                let permissions = found.manifest.permissions.merged(compiled.endpoint.permissions.as_ref());
                let built = FileAccess::new(&found.dir, permissions.file_access.as_deref().unwrap_or_default())?;
                compiled.file_access.get_or_init(|| Arc::new(built)).clone()
            }
        };
        access.check_inputs(access.home(), compiled.input.as_ref().map(|s| &s.root), &input)?;
        Ok((found.clone(), index, input, access))
    }

    fn script<'a>(service: &'a Service, index: usize, access: &'a FileAccess) -> Result<Script<'a>, LavsError> {
        let endpoint = &service.endpoints[index].endpoint;
        let permissions = service.manifest.permissions.merged(endpoint.permissions.as_ref());
        let Handler::Script { command, args, input, cwd, timeout, env } = &endpoint.handler else {
            unreachable!("only script handlers come here")
        };
        let cwd = access.check(access.home(), cwd.as_deref().unwrap_or("."))?;
        if command.contains('/') {
            access.check(&cwd, command)?;
        }
        let limit = [*timeout, permissions.max_execution_time].into_iter().flatten().min();
        Ok(Script {
            command,
            args,
            input_mode: *input,
            cwd,
            env,
            service_dir: access.home(),
            timeout: limit.map(Duration::from_millis).unwrap_or(script::DEFAULT_TIMEOUT),
            max_memory: permissions.max_memory,
            no_network: permissions.network_access == Some(NetworkAccess::All(false)),
        })
    }

    /// `lavs/call`: the endpoint's result, or the error with its spec code. `caller` is who
    /// asked, for the audit log.
    pub async fn call(
        &self,
        service: &str,
        endpoint: &str,
        input: Option<Value>,
        caller: &str,
    ) -> Result<Value, LavsError> {
        let started = Instant::now();
        let result = self.call_unaudited(service, endpoint, input).await;
        let code = result.as_ref().err().map(|e| e.code).unwrap_or(0);
        self.audit.record(service, endpoint, caller, started.elapsed().as_secs_f64() * 1000.0, code);
        result
    }

    async fn call_unaudited(&self, service: &str, endpoint: &str, input: Option<Value>) -> Result<Value, LavsError> {
        let (found, index, input, access) = self.prepare(service, endpoint, input, false)?;
        let compiled = &found.endpoints[index];
        let permissions = found.manifest.permissions.merged(compiled.endpoint.permissions.as_ref());
        let limit = permissions.max_execution_time.map(Duration::from_millis).unwrap_or(script::DEFAULT_TIMEOUT);
        let output = match &compiled.endpoint.handler {
            Handler::Script { .. } => Runtime::script(&found, index, &access)?.run(&input).await?,
            Handler::Function { module, function } => {
                let module = access.check(access.home(), module)?;
                if !script::on_path("node") {
                    return Err(LavsError::titled(
                        error::INTERNAL_ERROR,
                        "function handlers run their module with Node.js, and node is not on PATH",
                    ));
                }
                let args = vec![
                    "--input-type=module".to_string(),
                    "-e".to_string(),
                    script::FUNCTION_LOADER.to_string(),
                    module.display().to_string(),
                    function.clone(),
                ];
                let empty = serde_json::Map::new();
                let run = Script {
                    command: "node",
                    args: &args,
                    input_mode: crate::manifest::InputMode::Stdin,
                    cwd: access.home().to_path_buf(),
                    env: &empty,
                    service_dir: access.home(),
                    timeout: limit,
                    max_memory: permissions.max_memory,
                    no_network: permissions.network_access != Some(NetworkAccess::All(true))
                        && !matches!(permissions.network_access, Some(NetworkAccess::Hosts(_))),
                };
                run.run(&input).await?
            }
            Handler::Http { url, method, headers } => {
                crate::remote::call(url, method, headers, &input, permissions.network_access.as_ref(), limit).await?
            }
            Handler::Builtin {} => {
                let (_, builtin) = self.builtin(service).ok_or_else(|| {
                    LavsError::titled(error::INTERNAL_ERROR, "a builtin handler outside a built-in service")
                })?;
                builtin.call(endpoint, input).await?
            }
            Handler::Mcp { server, tool } => {
                let launch = crate::mcp::Launch::new(&found, server, &access, &permissions)?;
                self.mcp.call(&launch, tool, &input, limit).await?
            }
        };
        if let Some(schema) = &compiled.output
            && let Err((field, what)) = schema.check(&output)
        {
            return Err(LavsError::titled(
                error::INTERNAL_ERROR,
                format!("invalid output from handler at {field}: {what}"),
            ));
        }
        Ok(output)
    }

    /// `lavs/subscribe`: a stream of pushes (each line the handler prints), until dropped.
    pub fn subscribe(
        &self,
        service: &str,
        endpoint: &str,
        input: Option<Value>,
        caller: &str,
    ) -> Result<tokio::sync::mpsc::Receiver<Value>, LavsError> {
        let started = Instant::now();
        let result =
            self.prepare(service, endpoint, input, true).and_then(|(found, index, input, access)| {
                match &found.endpoints[index].endpoint.handler {
                    Handler::Script { .. } => Runtime::script(&found, index, &access)?.subscribe(&input),
                    Handler::Builtin {} => match self.builtin(service) {
                        Some((_, builtin)) => builtin.subscribe(endpoint, input),
                        None => Err(LavsError::titled(
                            error::INTERNAL_ERROR,
                            "a builtin handler outside a built-in service",
                        )),
                    },
                    _ => Err(LavsError::titled(error::INTERNAL_ERROR, "only script handlers can be subscribed to yet")),
                }
            });
        let code = result.as_ref().err().map(|e| e.code).unwrap_or(0);
        self.audit.record(service, endpoint, caller, started.elapsed().as_secs_f64() * 1000.0, code);
        result
    }
}

/// Copies a service folder. Hand-written (a dozen lines) rather than a dependency; symbolic links
/// are refused, so a service cannot bring in a link that points outside its folder.
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_symlink() {
            return Err(std::io::Error::other(format!("{} is a symbolic link", entry.path().display())));
        } else if kind.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
