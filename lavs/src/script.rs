//! The `script` handler: a program run once per call (or, for a subscription, kept running and
//! read line by line).
//!
//! - Input: `args` (`{{field}}` in an argument is the field's value), `stdin` (the input as JSON)
//!   or `env` (each top-level field a variable; names a loader or shell acts on are refused).
//! - Environment: cleared, then only `PATH`, `LANG`, `HOME` and `TMPDIR` (interpreters need them:
//!   a pyenv or nvm shim finds its versions through `HOME`), the handler's declared `env`, and the
//!   input in `env` mode. Nothing of the daemon's own
//!   environment reaches a script, so no token, key or secret it holds can.
//! - Limits: its own process group, so a timeout ends everything it started (SIGTERM, then
//!   SIGKILL after [`KILL_GRACE`]: -32002); `maxMemory` as its address-space limit; with
//!   `networkAccess: false`, a new network namespace where the OS lets an unprivileged process
//!   make one ([`network_isolation`] says whether it can).
//! - Output: exit 0 and standard output parsed as JSON (text that is not JSON comes back as a
//!   string, as `cat notes.txt` does in the spec's example); another exit is -32003 with the end
//!   of its stderr.

use crate::error::{self, LavsError};
use crate::manifest::InputMode;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// When a handler sets no time limit and the manifest none either.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Between SIGTERM and SIGKILL at a timeout.
pub const KILL_GRACE: Duration = Duration::from_secs(2);
/// Output a call may return (a larger one is an internal error, not a truncated answer).
pub const MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;
/// Of a failed handler's stderr, the end that is returned.
pub const STDERR_TAIL_CHARS: usize = 2000;

/// Variables an input may not set in `env` mode: they change how programs are loaded or how a
/// shell runs, not what the script is asked.
const RESERVED_ENV: &[&str] = &["PATH", "HOME", "IFS", "BASH_ENV", "ENV", "SHELLOPTS", "PS4", "TMPDIR", "LANG"];
const RESERVED_ENV_PREFIXES: &[&str] = &["LD_", "DYLD_", "BASH_FUNC_", "PYTHON", "NODE_", "PERL5", "RUBY"];

/// What one run needs, resolved by the runtime.
pub struct Script<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    pub input_mode: InputMode,
    pub cwd: PathBuf,
    pub env: &'a Map<String, Value>,
    pub service_dir: &'a Path,
    pub timeout: Duration,
    pub max_memory: Option<u64>,
    pub no_network: bool,
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `{{field}}` replaced by the input's field; a field the input lacks is an invalid param.
fn fill(template: &str, input: &Value) -> Result<String, LavsError> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let Some(end) = rest[start..].find("}}") else { break };
        out.push_str(&rest[..start]);
        let field = rest[start + 2..start + end].trim();
        let value = input.get(field).filter(|v| !v.is_null()).ok_or_else(|| {
            LavsError::titled(error::INVALID_PARAMS, format!("'{field}' is required"))
                .with_data(serde_json::json!({ "field": field, "constraint": "required" }))
        })?;
        out.push_str(&value_text(value));
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

fn reserved(name: &str) -> bool {
    RESERVED_ENV.contains(&name) || RESERVED_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether `networkAccess: false` can be enforced here: a new user and network namespace for
/// the handler (Linux, where unprivileged namespaces are allowed). Tried once.
pub fn network_isolation() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::process::CommandExt;
            let mut probe = std::process::Command::new("true");
            // SAFETY: unshare(2) only, between fork and exec.
            unsafe {
                probe.pre_exec(|| {
                    if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
            probe.stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
        }
        #[cfg(not(target_os = "linux"))]
        false
    })
}

/// Runs a `function` handler's module with Node.js: `argv[1]` the module's path, `argv[2]` the
/// function's name, the input as JSON on stdin, the function's (awaited) result as JSON on stdout.
pub const FUNCTION_LOADER: &str = r#"
import { pathToFileURL } from "node:url";
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const text = Buffer.concat(chunks).toString();
const input = text ? JSON.parse(text) : {};
const module = await import(pathToFileURL(process.argv[1]).href);
const fn = module[process.argv[2]] ?? module.default?.[process.argv[2]];
if (typeof fn !== "function") {
  console.error(`the module exports no function ${process.argv[2]}`);
  process.exit(2);
}
process.stdout.write(JSON.stringify((await fn(input)) ?? null));
"#;

/// Whether a program of this name is on the daemon's `PATH`.
pub fn on_path(command: &str) -> bool {
    let path = std::env::var("PATH").unwrap_or_default();
    program(command, &path).is_absolute()
}

/// The program a bare command name runs: looked up on `path` here, in the daemon, because a
/// child whose `PATH` differs from the parent's is otherwise looked up after a fork of the whole
/// daemon instead of started with posix_spawn (measured in `cargo xtask bench lavs`).
fn program(command: &str, path: &str) -> PathBuf {
    if command.contains('/') {
        return PathBuf::from(command);
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(command))
        .find(|candidate| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| PathBuf::from(command))
}

/// How every handler program is started, whatever then speaks to it (a `script` run, a
/// subscription, an `mcp` server): in `cwd`, with the environment cleared but for `PATH`, `LANG`,
/// `HOME`, `TMPDIR` and the declared `env`, in a process group of its own (so a timeout or a
/// shutdown reaches everything it started), killed if its handle is dropped, with `maxMemory` as
/// its address-space limit and, for `networkAccess: false`, a network namespace of its own where
/// [`network_isolation`] says the OS allows one. One function, so the handler kinds cannot drift
/// apart in what they let a program have.
pub struct Sandbox<'a> {
    pub cwd: &'a Path,
    pub env: &'a Map<String, Value>,
    pub service_dir: &'a Path,
    pub max_memory: Option<u64>,
    pub no_network: bool,
}

impl Sandbox<'_> {
    /// `command` (a path relative to `cwd`, or a name looked up on `PATH`) with `args`; standard
    /// output and error piped, standard input closed unless the caller sets it.
    pub fn command(&self, command: &str, args: impl IntoIterator<Item = String>) -> tokio::process::Command {
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        let program = if command.contains('/') { self.cwd.join(command) } else { program(command, &path) };
        let mut process = tokio::process::Command::new(program);
        process
            .args(args)
            .current_dir(self.cwd)
            .env_clear()
            .env("PATH", &path)
            .env("LANG", "C.UTF-8")
            .env("HOME", std::env::var_os("HOME").unwrap_or_else(|| self.service_dir.as_os_str().to_owned()))
            .env("TMPDIR", std::env::temp_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        for (name, value) in self.env {
            process.env(name, value_text(value));
        }
        let (max_memory, no_network) = (self.max_memory, self.no_network && network_isolation());
        if max_memory.is_none() && !no_network {
            // Without a hook the standard library starts the program with posix_spawn, not a
            // fork of the whole daemon: measurably cheaper per call (`cargo xtask bench lavs`).
            return process;
        }
        // SAFETY: only async-signal-safe calls (setrlimit, unshare) between fork and exec.
        unsafe {
            process.pre_exec(move || {
                if let Some(bytes) = max_memory {
                    let limit = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
                    if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                #[cfg(target_os = "linux")]
                if no_network && libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let _ = no_network;
                Ok(())
            });
        }
        process
    }
}

impl Script<'_> {
    fn command(&self, input: &Value) -> Result<tokio::process::Command, LavsError> {
        let args = self.args.iter().map(|a| fill(a, input)).collect::<Result<Vec<_>, _>>()?;
        let sandbox = Sandbox {
            cwd: &self.cwd,
            env: self.env,
            service_dir: self.service_dir,
            max_memory: self.max_memory,
            no_network: self.no_network,
        };
        let mut command = sandbox.command(self.command, args);
        if self.input_mode == InputMode::Stdin {
            command.stdin(Stdio::piped());
        }
        if self.input_mode == InputMode::Env
            && let Some(fields) = input.as_object()
        {
            for (name, value) in fields {
                if reserved(name) || name.is_empty() || name.contains('=') {
                    return Err(LavsError::titled(
                        error::INVALID_PARAMS,
                        format!("'{name}' cannot be passed as a variable"),
                    )
                    .with_data(serde_json::json!({ "field": name })));
                }
                command.env(name, value_text(value));
            }
        }
        Ok(command)
    }

    fn spawn(&self, input: &Value) -> Result<tokio::process::Child, LavsError> {
        self.command(input)?
            .spawn()
            .map_err(|e| LavsError::titled(error::HANDLER_ERROR, format!("{} could not be started: {e}", self.command)))
    }

    /// Runs once with `input`; the parsed output.
    pub async fn run(&self, input: &Value) -> Result<Value, LavsError> {
        let mut child = self.spawn(input)?;
        if let Some(mut stdin) = child.stdin.take() {
            let body = serde_json::to_vec(input).unwrap_or_default();
            // A script that does not read its input closes the pipe; that is its business.
            let _ = stdin.write_all(&body).await;
        }
        let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let pid = child.id();
        let collected = async {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let mut limited = (&mut stdout).take(MAX_OUTPUT_BYTES as u64 + 1);
            let (o, e) = tokio::join!(limited.read_to_end(&mut out), stderr.read_to_end(&mut err));
            // Both pipes closed: the program has almost always exited already, and asking now
            // saves waiting for the runtime to report its exit (`cargo xtask bench lavs`).
            let status = match child.try_wait() {
                Ok(Some(status)) => Ok(status),
                _ => child.wait().await,
            };
            (o.and(e).and(status), out, err)
        };
        let (status, out, err) = match tokio::time::timeout(self.timeout, collected).await {
            Ok(done) => done,
            Err(_) => {
                stop_group(pid).await;
                return Err(LavsError::titled(
                    error::TIMEOUT,
                    format!("the handler ran past {} ms and was stopped", self.timeout.as_millis()),
                ));
            }
        };
        let status = status.map_err(|e| LavsError::titled(error::INTERNAL_ERROR, e))?;
        if !status.success() {
            let tail = stderr_tail(&err);
            let how = match status.code() {
                Some(code) => format!("exited with status {code}"),
                None => "was killed by a signal".to_string(),
            };
            return Err(LavsError::titled(error::HANDLER_ERROR, format!("the handler {how}"))
                .with_data(serde_json::json!({ "exitCode": status.code(), "stderr": tail })));
        }
        if out.len() > MAX_OUTPUT_BYTES {
            return Err(LavsError::titled(
                error::INTERNAL_ERROR,
                format!("the output is over {MAX_OUTPUT_BYTES} bytes"),
            ));
        }
        Ok(parse_output(&out))
    }

    /// Starts the handler for a subscription: each line it prints is one push (JSON, or a string).
    /// Ends when the receiver is dropped (the process group is stopped) or the process exits.
    pub fn subscribe(&self, input: &Value) -> Result<tokio::sync::mpsc::Receiver<Value>, LavsError> {
        let mut child = self.spawn(input)?;
        let stdin = child.stdin.take();
        let body = serde_json::to_vec(input).unwrap_or_default();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        tokio::spawn(async move {
            if let Some(mut stdin) = stdin {
                let _ = stdin.write_all(&body).await;
            }
            let pid = child.id();
            let mut lines = tokio::io::BufReader::new(stdout).lines();
            loop {
                tokio::select! {
                    line = lines.next_line() => match line {
                        Ok(Some(line)) if !line.trim().is_empty() => {
                            if tx.send(parse_output(line.as_bytes())).await.is_err() {
                                break;
                            }
                        }
                        Ok(Some(_)) => {}
                        _ => break,
                    },
                    _ = tx.closed() => break,
                }
            }
            stop_group(pid).await;
            let _ = child.wait().await;
        });
        Ok(rx)
    }
}

/// The end of a failed program's standard error (its last [`STDERR_TAIL_CHARS`]), trimmed: where
/// an interpreter says why it stopped.
pub fn stderr_tail(err: &[u8]) -> String {
    let stderr = String::from_utf8_lossy(err);
    let tail: String = stderr.chars().rev().take(STDERR_TAIL_CHARS).collect::<Vec<_>>().into_iter().rev().collect();
    tail.trim().to_string()
}

fn parse_output(out: &[u8]) -> Value {
    let text = String::from_utf8_lossy(out);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Value::Null;
    }
    serde_json::from_str(trimmed).unwrap_or_else(|_| Value::String(text.trim_end_matches('\n').to_string()))
}

/// SIGTERM to the handler's process group, then SIGKILL after the grace.
pub(crate) async fn stop_group(pid: Option<u32>) {
    let Some(pid) = pid else { return };
    let group = -(pid as libc::pid_t);
    // SAFETY: signals to the process group the handler leads (process_group(0) at spawn).
    unsafe { libc::kill(group, libc::SIGTERM) };
    tokio::time::sleep(KILL_GRACE).await;
    // SAFETY: as above; a group that has gone makes this a no-op (ESRCH).
    unsafe { libc::kill(group, libc::SIGKILL) };
}

/// [`stop_group`] where nothing can be awaited (a server's handle dropped, perhaps with no async
/// runtime left to wait in): SIGTERM now, SIGKILL after the grace from a short-lived thread.
pub(crate) fn stop_group_later(pid: u32) {
    let group = -(pid as libc::pid_t);
    // SAFETY: signals to the process group the program leads (process_group(0) at spawn).
    unsafe { libc::kill(group, libc::SIGTERM) };
    let later = std::thread::Builder::new().name("lavs-stop".into()).spawn(move || {
        std::thread::sleep(KILL_GRACE);
        // SAFETY: as above; a group that has gone makes this a no-op (ESRCH).
        unsafe { libc::kill(group, libc::SIGKILL) };
    });
    if later.is_err() {
        // SAFETY: as above.
        unsafe { libc::kill(group, libc::SIGKILL) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_take_the_inputs_fields() {
        assert_eq!(fill("--name={{ name }}!", &json!({ "name": "Ada" })).unwrap(), "--name=Ada!");
        assert_eq!(fill("{{n}}", &json!({ "n": 3 })).unwrap(), "3");
        assert_eq!(fill("plain", &json!({})).unwrap(), "plain");
        assert_eq!(fill("{{missing}}", &json!({})).unwrap_err().code, error::INVALID_PARAMS);
    }

    #[test]
    fn variables_that_steer_loaders_or_shells_are_refused() {
        for name in ["LD_PRELOAD", "PATH", "BASH_ENV", "DYLD_INSERT_LIBRARIES", "PYTHONPATH", "NODE_OPTIONS"] {
            assert!(reserved(name), "{name}");
        }
        assert!(!reserved("NOTE"));
    }

    #[test]
    fn output_is_json_when_it_parses_and_text_otherwise() {
        assert_eq!(parse_output(b"[1, 2]\n"), json!([1, 2]));
        assert_eq!(parse_output(b"first note\nsecond note\n"), json!("first note\nsecond note"));
        assert_eq!(parse_output(b"  \n"), Value::Null);
    }
}
