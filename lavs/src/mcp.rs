//! The `mcp` handler (spec sections 8.3 and 9.1): an endpoint answered by a tool of an MCP server
//! that the service's `mcp-config.json` names ([`crate::mcp_config`]), spoken to over stdio with
//! the official Rust SDK (`rmcp`).
//!
//! - The server is a program the service brings, so it gets what a script handler gets and no
//!   more ([`Sandbox`]): its command and working directory checked against `fileAccess` (-32001),
//!   the clean environment plus the config's `env`, a process group of its own, `maxMemory` as
//!   its address-space limit, no network for `networkAccess: false`.
//! - A server takes a while to start (an interpreter, its SDK) and is made to serve many calls,
//!   so one runs per service, server and sandbox (two endpoints with different permissions get
//!   a process each, so neither runs with the other's), started by the first call that needs it
//!   and kept for the next. One found dead is started again at the next call.
//!   [`Servers::stop_service`] ends a service's servers when the service is removed, installed
//!   again or changed; dropping the [`Servers`] (with the runtime) ends them all.
//! - A call is `tools/call` with the validated input as the arguments. The output is the result's
//!   `structuredContent`, else its text parsed as JSON, else `{"text": …}`; a result with
//!   `isError` is -32003 with the text. The time limit (`maxExecutionTime`) covers starting the
//!   server too: a call past it is -32002 and that server is stopped (what it was doing cannot be
//!   known to have ended; the next call starts a fresh one), and so are calls that were sharing
//!   it (-32003). A server that does not start, or stops answering, is -32003 with the end of its
//!   stderr.

use crate::error::{self, LavsError};
use crate::manifest::{NetworkAccess, Permissions, Service};
use crate::permissions::FileAccess;
use crate::script::{self, Sandbox};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientCapabilities, Implementation, InitializeRequestParams};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// Of a server's stderr, the bytes kept as it is read (enough for [`script::STDERR_TAIL_CHARS`]
/// characters of any width).
const STDERR_KEPT_BYTES: usize = 4 * script::STDERR_TAIL_CHARS;
/// After a server has ended, how long its last stderr is waited for.
const STDERR_DRAIN: Duration = Duration::from_secs(1);

/// Everything a server process is started with, resolved and checked: two calls share a process
/// only when all of it is the same.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Launch {
    pub service: String,
    pub server: String,
    command: String,
    args: Vec<String>,
    cwd: PathBuf,
    env: BTreeMap<String, String>,
    service_dir: PathBuf,
    max_memory: Option<u64>,
    no_network: bool,
}

impl Launch {
    /// The server `server` of `service` under `permissions` (the endpoint's over the service's):
    /// the working directory and a command given by path must be inside `fileAccess` (-32001).
    pub fn new(
        service: &Service,
        server: &str,
        access: &FileAccess,
        permissions: &Permissions,
    ) -> Result<Launch, LavsError> {
        let config = service.mcp_servers.get(server).ok_or_else(|| {
            // The load refuses a manifest that names a server its config lacks.
            LavsError::titled(error::INTERNAL_ERROR, format!("no MCP server {server:?} in the service's config"))
        })?;
        let cwd = access.check(access.home(), config.cwd.as_deref().unwrap_or("."))?;
        let command = if config.command.contains('/') {
            access.check(&cwd, &config.command)?.display().to_string()
        } else {
            config.command.clone()
        };
        Ok(Launch {
            service: service.manifest.name.clone(),
            server: server.to_string(),
            command,
            args: config.args.clone(),
            cwd,
            env: config
                .env
                .iter()
                .map(|(name, value)| (name.clone(), value.as_str().map_or_else(|| value.to_string(), str::to_string)))
                .collect(),
            service_dir: access.home().to_path_buf(),
            max_memory: permissions.max_memory,
            no_network: permissions.network_access == Some(NetworkAccess::All(false)),
        })
    }
}

/// The running servers, by what they were started with.
#[derive(Default)]
pub struct Servers {
    slots: Mutex<HashMap<Launch, Arc<Slot>>>,
}

/// One server's place: empty until a call starts it; locked while it starts, so calls that
/// arrive meanwhile wait for that one instead of starting their own.
type Slot = tokio::sync::Mutex<Option<Server>>;

/// A started server. Dropping it ends it: the client's connection is cancelled and its process
/// group is stopped.
struct Server {
    client: RunningService<RoleClient, InitializeRequestParams>,
    stderr: Stderr,
    group: Group,
}

/// A server's process group, stopped (SIGTERM, then SIGKILL after the grace) when dropped: what
/// the server started dies with it, whether a call timed out, the service went or the runtime
/// was dropped.
struct Group(Option<u32>);

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            script::stop_group_later(pid);
        }
    }
}

/// A server's stderr, read as it is written (a server whose pipe is full blocks), its end kept for
/// the error that says why the server did not start or stopped.
struct Stderr {
    kept: Arc<Mutex<Vec<u8>>>,
    reader: Option<tokio::task::JoinHandle<()>>,
}

impl Stderr {
    fn read(pipe: Option<tokio::process::ChildStderr>) -> Stderr {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let reader = pipe.map(|mut pipe| {
            let kept = kept.clone();
            tokio::spawn(async move {
                let mut buffer = [0u8; 4096];
                while let Ok(read) = pipe.read(&mut buffer).await
                    && read > 0
                {
                    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                    kept.extend_from_slice(&buffer[..read]);
                    if kept.len() > 2 * STDERR_KEPT_BYTES {
                        let excess = kept.len() - STDERR_KEPT_BYTES;
                        kept.drain(..excess);
                    }
                }
            })
        });
        Stderr { kept, reader }
    }

    /// Its end, once the server has ended: what it wrote last is waited for (briefly, as a
    /// program it started may hold the pipe open).
    async fn finished(&mut self) -> String {
        if let Some(reader) = self.reader.take() {
            let _ = tokio::time::timeout(STDERR_DRAIN, reader).await;
        }
        script::stderr_tail(&self.kept.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Drop for Stderr {
    fn drop(&mut self) {
        if let Some(reader) = self.reader.take() {
            reader.abort();
        }
    }
}

fn handler_error(message: String) -> LavsError {
    LavsError::titled(error::HANDLER_ERROR, message)
}

impl Server {
    /// Starts the server and completes MCP's initialization with it.
    async fn start(launch: &Launch) -> Result<Server, LavsError> {
        let env: Map<String, Value> = launch.env.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        let sandbox = Sandbox {
            cwd: &launch.cwd,
            env: &env,
            service_dir: &launch.service_dir,
            max_memory: launch.max_memory,
            no_network: launch.no_network,
        };
        let command = sandbox.command(&launch.command, launch.args.iter().cloned());
        let (transport, stderr) = TokioChildProcess::builder(command).stderr(Stdio::piped()).spawn().map_err(|e| {
            handler_error(format!("the MCP server {} ({}) could not be started: {e}", launch.server, launch.command))
        })?;
        // Owned from here on: if this start is abandoned (a call's time limit), the group goes.
        let group = Group(transport.id());
        let mut stderr = Stderr::read(stderr);
        let client = InitializeRequestParams::new(
            ClientCapabilities::default(),
            Implementation::new("laika-lavs", env!("CARGO_PKG_VERSION")),
        );
        match client.serve(transport).await {
            Ok(client) => Ok(Server { client, stderr, group }),
            Err(e) => {
                drop(group);
                let tail = stderr.finished().await;
                Err(handler_error(format!("the MCP server {} did not start: {e}", launch.server))
                    .with_data(json!({ "stderr": tail })))
            }
        }
    }
}

impl Servers {
    fn slot(&self, launch: &Launch) -> Arc<Slot> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.entry(launch.clone()).or_default().clone()
    }

    /// Takes the server out of its slot when it is still the one whose process group is
    /// `group` (another call may have put a fresh one there).
    async fn take(slot: &Slot, group: Option<u32>) -> Option<Server> {
        let mut server = slot.lock().await;
        if server.as_ref().is_some_and(|s| s.group.0 == group) { server.take() } else { None }
    }

    /// Ends the servers of `service` (removed, installed again or changed); calls to them that
    /// are under way fail (-32003), and the next call starts the server from its new config.
    pub fn stop_service(&self, service: &str) {
        let stopped: Vec<Arc<Slot>> = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            let names: Vec<Launch> = slots.keys().filter(|l| l.service == service).cloned().collect();
            names.iter().filter_map(|l| slots.remove(l)).collect()
        };
        // Dropped outside the lock: each drop stops a process group.
        drop(stopped);
    }

    /// `tools/call` of `tool` on the server `launch` describes (started or started again as
    /// needed), with `input` as its arguments, within `limit`.
    pub async fn call(&self, launch: &Launch, tool: &str, input: &Value, limit: Duration) -> Result<Value, LavsError> {
        let Value::Object(arguments) = input else {
            return Err(LavsError::titled(
                error::INVALID_PARAMS,
                "the input of an mcp handler is an object (the tool's arguments)",
            ));
        };
        let slot = self.slot(launch);
        // The server this call used, for what follows a timeout or a lost connection.
        let used: OnceLock<Option<u32>> = OnceLock::new();
        let attempt = async {
            let peer = {
                let mut server = slot.lock().await;
                if server.as_ref().is_some_and(|s| s.client.is_transport_closed()) {
                    // It died (or broke the protocol): dropping it stops what is left of its group.
                    *server = None;
                }
                if server.is_none() {
                    *server = Some(Server::start(launch).await?);
                }
                let running = server.as_ref().expect("started above");
                let _ = used.set(running.group.0);
                running.client.peer().clone()
            };
            let request = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments.clone());
            Ok::<_, LavsError>(peer.call_tool(request).await)
        };
        let result = match tokio::time::timeout(limit, attempt).await {
            Ok(result) => result?,
            Err(_) => {
                // An abandoned start has stopped its server already (its Group was dropped).
                if let Some(group) = used.get() {
                    drop(Servers::take(&slot, *group).await);
                }
                return Err(LavsError::titled(
                    error::TIMEOUT,
                    format!("the MCP server {} ran past {} ms and was stopped", launch.server, limit.as_millis()),
                ));
            }
        };
        match result {
            Ok(result) => output(&launch.server, tool, result),
            Err(ServiceError::McpError(e)) => Err(handler_error(format!(
                "the MCP server {} refused {tool}: {} ({})",
                launch.server, e.message, e.code.0
            ))
            .with_data(json!({ "mcpError": e }))),
            Err(e) => {
                // The connection is gone or unusable: the server goes, and the next call starts it again.
                let server = match used.get() {
                    Some(group) => Servers::take(&slot, *group).await,
                    None => None,
                };
                let stderr = match server {
                    Some(mut server) => {
                        // Stopped first, so its stderr ends even if it is still running.
                        drop(std::mem::replace(&mut server.group, Group(None)));
                        server.stderr.finished().await
                    }
                    None => String::new(),
                };
                Err(handler_error(format!("the MCP server {} stopped answering: {e}", launch.server))
                    .with_data(json!({ "stderr": stderr })))
            }
        }
    }
}

/// A `tools/call` result as the endpoint's output: `structuredContent` when the tool gave one,
/// else its text parsed as JSON when it is JSON, else `{"text": …}`; content with no text at all
/// (images, resources) comes back as `{"content": […]}`. `isError` is -32003 with the text.
fn output(server: &str, tool: &str, result: CallToolResult) -> Result<Value, LavsError> {
    let texts: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
    let text = texts.join("\n");
    if result.is_error == Some(true) {
        return Err(handler_error(format!("the tool {tool} of the MCP server {server} failed: {text}"))
            .with_data(json!({ "text": text })));
    }
    if let Some(structured) = result.structured_content {
        return Ok(structured);
    }
    if texts.is_empty() {
        return Ok(if result.content.is_empty() { Value::Null } else { json!({ "content": result.content }) });
    }
    Ok(serde_json::from_str(text.trim()).unwrap_or_else(|_| json!({ "text": text })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ContentBlock;

    fn result(content: Vec<ContentBlock>, structured: Option<Value>, is_error: bool) -> CallToolResult {
        let mut result: CallToolResult =
            serde_json::from_value(json!({ "content": content, "isError": is_error })).unwrap();
        result.structured_content = structured;
        result
    }

    #[test]
    fn structured_content_then_json_text_then_text() {
        let text = |t: &str| vec![ContentBlock::text(t)];
        assert_eq!(
            output("s", "t", result(text("{\"a\": 1}"), Some(json!({ "b": 2 })), false)).unwrap(),
            json!({ "b": 2 })
        );
        assert_eq!(output("s", "t", result(text("{\"a\": 1}"), None, false)).unwrap(), json!({ "a": 1 }));
        assert_eq!(output("s", "t", result(text("42"), None, false)).unwrap(), json!(42));
        assert_eq!(output("s", "t", result(text("hello"), None, false)).unwrap(), json!({ "text": "hello" }));
        assert_eq!(output("s", "t", result(vec![], None, false)).unwrap(), Value::Null);
        let image = vec![ContentBlock::image("aGk=", "image/png")];
        assert_eq!(output("s", "t", result(image, None, false)).unwrap()["content"][0]["mimeType"], "image/png");
    }

    #[test]
    fn is_error_is_a_handler_error_with_the_text() {
        let error =
            output("notes", "delete_note", result(vec![ContentBlock::text("no note 9")], None, true)).unwrap_err();
        assert_eq!(error.code, error::HANDLER_ERROR);
        assert!(error.message.contains("no note 9"), "{error}");
        assert_eq!(error.data.unwrap()["text"], "no note 9");
    }
}
