//! `laika-host install`, run as a user runs it, with HOME pointing at a fresh directory: what it
//! writes for each browser, what it skips and why, the launcher that carries a data directory,
//! `--uninstall`, `--dry-run`, and that a browser can then start the host through what it wrote.
//! (Linux and macOS: elsewhere browsers find hosts through the registry.)
#![cfg(unix)]

use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_laika-host");
const ORIGIN: &str = "chrome-extension://aalmaaaoibklhiemdgicgkpmclfehdkb/";
const MANIFEST: &str = "com.laika.host.json";
const LAUNCHER: &str = "laika-host-launcher.sh";

/// A fresh directory standing in for the user's home, removed when dropped.
struct Home(PathBuf);

impl Home {
    fn new(name: &str) -> Home {
        let dir = std::env::temp_dir().join(format!("laika-install-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Canonical, so paths compare with what the host writes (macOS's /var is a symlink).
        Home(dir.canonicalize().unwrap())
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.0.join(relative)
    }

    fn mkdir(&self, relative: &str) {
        std::fs::create_dir_all(self.path(relative)).unwrap();
    }

    /// Every file and directory under the home, relative to it, sorted.
    fn tree(&self) -> Vec<String> {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                out.push(path.strip_prefix(base).unwrap().display().to_string());
                if path.is_dir() {
                    walk(&path, base, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.0, &self.0, &mut out);
        out.sort();
        out
    }

    /// `laika-host install ARGS` with this home and none of the caller's Laika or XDG settings.
    fn install(&self, args: &[&str]) -> (i32, String, String) {
        self.install_with(args, &[])
    }

    fn install_with(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let mut command = Command::new(BIN);
        command
            .arg("install")
            .args(args)
            .env("HOME", &self.0)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("LAIKA_DATA_DIR")
            // Browsers are found on PATH: only the ones a test puts in the home's `bin`.
            .env("PATH", self.path("bin"))
            .current_dir(&self.0)
            .stdin(Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        let out = command.output().expect("laika-host starts");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// `install ARGS --json`, which must succeed; the report.
    fn install_json(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let (code, stdout, stderr) = self.install(&args);
        assert_eq!(code, 0, "install {args:?} failed: {stderr}\n{stdout}");
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn result<'a>(report: &'a Value, browser: &str) -> &'a Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["browser"] == browser)
        .unwrap_or_else(|| panic!("no result for {browser}: {report:#}"))
}

fn this_binary() -> PathBuf {
    Path::new(BIN).canonicalize().unwrap()
}

fn assert_chromium_manifest(path: &Path, executable: &Path) {
    let manifest = read_json(path);
    assert_eq!(manifest["name"], "com.laika.host");
    assert_eq!(manifest["type"], "stdio");
    assert!(manifest["description"].as_str().is_some_and(|d| !d.is_empty()));
    assert_eq!(manifest["allowed_origins"], serde_json::json!([ORIGIN]));
    assert!(manifest.get("allowed_extensions").is_none(), "{manifest}");
    let named = PathBuf::from(manifest["path"].as_str().unwrap());
    assert!(named.is_absolute() && named.is_file(), "{}", named.display());
    assert_eq!(named, executable);
}

#[test]
fn a_custom_profile_gets_a_chromium_manifest_naming_this_binary() {
    let home = Home::new("profile");
    home.mkdir(".config/google-chrome");
    let profile = home.path("profile");
    let (code, stdout, stderr) = home.install(&["--user-data-dir", profile.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let manifest = profile.join("NativeMessagingHosts").join(MANIFEST);
    assert_chromium_manifest(&manifest, &this_binary());
    assert!(stdout.contains("profile") && stdout.contains("written"), "{stdout}");
    assert!(stdout.contains(&manifest.display().to_string()), "{stdout}");
    // A custom profile reads only its own directory: nothing else is written.
    assert!(!home.path(".config/google-chrome/NativeMessagingHosts").exists());
    assert!(!profile.join("NativeMessagingHosts").join(LAUNCHER).exists());
    // Installing again replaces the manifest in place.
    let (code, _, stderr) = home.install(&["--user-data-dir", profile.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_chromium_manifest(&manifest, &this_binary());
    let leftovers: Vec<_> = home.tree().into_iter().filter(|p| p.contains(".partial")).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[cfg(target_os = "linux")]
#[test]
fn all_browsers_writes_where_each_is_set_up_and_says_why_it_skips_the_rest() {
    let home = Home::new("all");
    home.mkdir(".config/google-chrome");
    home.mkdir(".config/BraveSoftware/Brave-Browser");
    home.mkdir(".mozilla");
    let report = home.install_json(&[]);
    assert_eq!(report["action"], "install");
    assert_eq!(report["host"], this_binary().to_str().unwrap());
    for (browser, dir) in [
        ("chrome", ".config/google-chrome/NativeMessagingHosts"),
        ("brave", ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts"),
    ] {
        let manifest = home.path(dir).join(MANIFEST);
        assert_eq!(result(&report, browser)["status"], "written", "{report:#}");
        assert_eq!(result(&report, browser)["manifest"], manifest.to_str().unwrap());
        assert_chromium_manifest(&manifest, &this_binary());
    }
    let firefox = home.path(".mozilla/native-messaging-hosts").join(MANIFEST);
    assert_eq!(result(&report, "firefox")["status"], "written");
    let manifest = read_json(&firefox);
    assert_eq!(manifest["allowed_extensions"], serde_json::json!(["laika@laika.local"]));
    assert!(manifest.get("allowed_origins").is_none(), "{manifest}");
    assert_eq!(manifest["path"], this_binary().to_str().unwrap());
    for (browser, dir) in [("chromium", ".config/chromium"), ("edge", ".config/microsoft-edge")] {
        let skipped = result(&report, browser);
        assert_eq!(skipped["status"], "skipped", "{report:#}");
        let reason = skipped["reason"].as_str().unwrap();
        assert!(reason.contains(home.path(dir).to_str().unwrap()) && reason.contains("not set up"), "{reason}");
        assert!(!home.path(dir).exists(), "a skipped browser's directory is not created");
    }

    // The table says the same to a person.
    let (code, stdout, _) = home.install(&[]);
    assert_eq!(code, 0);
    let line = |browser: &str| stdout.lines().find(|l| l.starts_with(browser)).unwrap_or_default().to_string();
    assert!(line("chrome").contains("written"), "{stdout}");
    assert!(line("edge").contains("skipped") && line("edge").contains("not set up"), "{stdout}");
}

/// Puts a program called `name` into the home's `bin` (which `install` runs with as its PATH).
#[cfg(target_os = "linux")]
fn put_program(home: &Home, name: &str, executable: bool) {
    use std::os::unix::fs::PermissionsExt;
    home.mkdir("bin");
    let path = home.path("bin").join(name);
    std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(if executable { 0o755 } else { 0o644 })).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn a_browser_installed_but_never_started_is_registered_and_its_folder_created() {
    // A fresh machine: Chromium and Firefox ESR installed by the package manager, never started,
    // so neither ~/.config/chromium nor ~/.mozilla exists.
    let home = Home::new("fresh");
    put_program(&home, "chromium", true);
    put_program(&home, "firefox-esr", true);
    // A file by a browser's name that cannot be run is no browser.
    put_program(&home, "google-chrome", false);
    let report = home.install_json(&[]);
    let chromium = result(&report, "chromium");
    assert_eq!(chromium["status"], "written", "{report:#}");
    let manifest = home.path(".config/chromium/NativeMessagingHosts").join(MANIFEST);
    assert_chromium_manifest(&manifest, &this_binary());
    let reason = chromium["reason"].as_str().unwrap();
    assert!(reason.contains("not been started") && reason.contains("created"), "{reason}");
    assert!(reason.contains(home.path("bin/chromium").to_str().unwrap()), "{reason}");
    assert_eq!(result(&report, "firefox")["status"], "written", "{report:#}");
    let firefox = read_json(&home.path(".mozilla/native-messaging-hosts").join(MANIFEST));
    assert_eq!(firefox["allowed_extensions"], serde_json::json!(["laika@laika.local"]));
    for browser in ["chrome", "edge", "brave"] {
        let skipped = result(&report, browser);
        assert_eq!(skipped["status"], "skipped", "{report:#}");
        assert!(skipped["reason"].as_str().unwrap().contains("not installed (no "), "{skipped}");
    }
    assert!(
        result(&report, "chrome")["reason"].as_str().unwrap().contains("google-chrome or google-chrome-stable on PATH")
    );
    assert!(!home.path(".config/google-chrome").exists());
    // The browser, started later, finds the host where it looks: Firefox through what was written.
    let session = browser_session(
        &home.0,
        Path::new(firefox["path"].as_str().unwrap()),
        &[home.path(".mozilla/native-messaging-hosts").join(MANIFEST).to_str().unwrap(), "laika@laika.local"],
    );
    assert_eq!(session[0]["result"]["name"], "laika-host", "{session:?}");
}

#[test]
fn a_named_browser_is_written_even_before_it_is_set_up() {
    let home = Home::new("named");
    let report = home.install_json(&["--browser", "firefox"]);
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{report:#}");
    assert_eq!(results[0]["status"], "written");
    let manifest = read_json(Path::new(results[0]["manifest"].as_str().unwrap()));
    assert_eq!(manifest["allowed_extensions"], serde_json::json!(["laika@laika.local"]));
    assert!(manifest.get("allowed_origins").is_none());
    // Comma-separated and repeated both work.
    let report = home.install_json(&["--browser", "chrome,edge", "--browser", "brave"]);
    let browsers: Vec<&str> =
        report["results"].as_array().unwrap().iter().map(|r| r["browser"].as_str().unwrap()).collect();
    assert_eq!(browsers, ["chrome", "edge", "brave"]);
}

#[test]
fn nothing_set_up_is_an_error_that_says_what_to_do() {
    let home = Home::new("empty");
    let (code, stdout, stderr) = home.install(&[]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stderr.contains("INSTALL_NO_BROWSER") && stderr.contains("--browser"), "{stderr}");
    assert_eq!(stdout.matches("skipped").count(), 5, "{stdout}");
    assert!(home.tree().is_empty(), "{:?}", home.tree());
}

#[test]
fn a_data_directory_travels_in_an_executable_launcher() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new("launcher");
    let profile = home.path("profile");
    let hosts = profile.join("NativeMessagingHosts");
    // A name the shell would split or expand unless the launcher quotes it.
    let data_dir = home.path("my data's $HOME");
    let report =
        home.install_json(&["--user-data-dir", profile.to_str().unwrap(), "--data-dir", data_dir.to_str().unwrap()]);
    assert_eq!(report["data_dir"], data_dir.to_str().unwrap());
    let launcher = hosts.join(LAUNCHER);
    assert_eq!(result(&report, "profile")["launcher"], launcher.to_str().unwrap());
    assert_chromium_manifest(&hosts.join(MANIFEST), &launcher);
    let mode = std::fs::metadata(&launcher).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755, "{mode:o}");
    let script = std::fs::read_to_string(&launcher).unwrap();
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    assert!(script.contains(r"export LAIKA_DATA_DIR='/"), "{script}");
    assert!(script.contains(&format!("exec '{}' \"$@\"", this_binary().display())), "{script}");

    // Started the way Chromium starts it, the host runs with that data directory.
    let replies = browser_session(&home.0, &launcher, &[ORIGIN]);
    assert_eq!(replies[0]["result"]["data_dir"], data_dir.to_str().unwrap(), "{replies:?}");

    // LAIKA_DATA_DIR at install time does the same; a relative directory is made absolute.
    // (The install runs in the home directory.)
    let (code, _, stderr) =
        home.install_with(&["--user-data-dir", profile.to_str().unwrap()], &[("LAIKA_DATA_DIR", "laika data")]);
    assert_eq!(code, 0, "{stderr}");
    let script = std::fs::read_to_string(&launcher).unwrap();
    assert!(script.contains(&format!("export LAIKA_DATA_DIR='{}'\n", home.path("laika data").display())), "{script}");

    // Without a data directory the manifest names the binary again and the launcher goes.
    let (code, _, stderr) = home.install(&["--user-data-dir", profile.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_chromium_manifest(&hosts.join(MANIFEST), &this_binary());
    assert!(!launcher.exists());
}

#[test]
fn firefox_can_start_the_host_through_what_install_wrote() {
    let home = Home::new("firefox");
    let data_dir = home.path("data");
    let report = home.install_json(&["--browser", "firefox", "--data-dir", data_dir.to_str().unwrap()]);
    let manifest_path = PathBuf::from(result(&report, "firefox")["manifest"].as_str().unwrap());
    let manifest = read_json(&manifest_path);
    assert_eq!(manifest["allowed_extensions"], serde_json::json!(["laika@laika.local"]));
    // Firefox runs `path` with the manifest's path and the add-on id.
    let launcher = PathBuf::from(manifest["path"].as_str().unwrap());
    let replies = browser_session(&home.0, &launcher, &[manifest_path.to_str().unwrap(), "laika@laika.local"]);
    assert_eq!(replies[0]["result"]["name"], "laika-host", "{replies:?}");
    assert_eq!(replies[0]["result"]["data_dir"], data_dir.to_str().unwrap());
}

/// Starts `program` with `args` as a browser does, asks `host.info`, and returns the replies.
/// A native-messaging session as a browser starts it, with `home` as the user's home: a host
/// without a launcher then uses the default data directory under it, never the real user's
/// (where its daemon would otherwise stay running after the test).
fn browser_session(home: &Path, program: &Path, args: &[&str]) -> Vec<Value> {
    let mut child = Command::new(program)
        .args(args)
        .env_remove("LAIKA_DATA_DIR")
        .env_remove("XDG_DATA_HOME")
        .env("HOME", home)
        .env("LAIKA_DAEMON_IDLE_SECS", support::DAEMON_IDLE_SECS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let request = br#"{"id": 1, "method": "host.info"}"#;
    let input = support::frame(request);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&input).unwrap();
    drop(stdin);
    let mut output = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut output).unwrap();
    assert!(child.wait().unwrap().success());
    let replies: Vec<Value> =
        support::split_frames(&output).0.iter().map(|body| serde_json::from_slice(body).unwrap()).collect();
    assert!(!replies.is_empty(), "no reply from {}", program.display());
    replies
}

#[test]
fn uninstall_removes_everything_install_wrote_and_may_run_twice() {
    let home = Home::new("uninstall");
    for dir in [".config/google-chrome", ".config/chromium", ".config/microsoft-edge", ".mozilla"] {
        home.mkdir(dir);
    }
    let profile = home.path("profile");
    home.install_json(&["--data-dir", "/srv/laika"]);
    home.install_json(&["--user-data-dir", profile.to_str().unwrap(), "--data-dir", "/srv/laika"]);
    let written: Vec<String> =
        home.tree().into_iter().filter(|p| p.ends_with(MANIFEST) || p.ends_with(LAUNCHER)).collect();
    assert_eq!(written.len(), 10, "{written:?}");

    let report = home.install_json(&["--uninstall"]);
    assert_eq!(report["action"], "uninstall");
    for browser in ["chrome", "chromium", "edge", "firefox"] {
        assert_eq!(result(&report, browser)["status"], "removed", "{report:#}");
    }
    assert_eq!(result(&report, "brave")["status"], "absent");
    let report = home.install_json(&["--uninstall", "--user-data-dir", profile.to_str().unwrap()]);
    assert_eq!(result(&report, "profile")["status"], "removed");
    let left: Vec<String> =
        home.tree().into_iter().filter(|p| p.ends_with(MANIFEST) || p.ends_with(LAUNCHER)).collect();
    assert!(left.is_empty(), "{left:?}");

    // Again: nothing to remove is not an error.
    let (code, stdout, stderr) = home.install(&["--uninstall"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.matches("absent").count(), 5, "{stdout}");
    let (code, _, stderr) = home.install(&["--uninstall", "--user-data-dir", profile.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn dry_run_prints_the_files_and_writes_nothing() {
    let home = Home::new("dry");
    home.mkdir(".config/chromium");
    home.mkdir(".mozilla");
    let before = home.tree();
    let (code, stdout, stderr) = home.install(&["--dry-run", "--data-dir", "/srv/laika"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(home.tree(), before, "a dry run wrote something");
    assert!(stdout.contains("would write"), "{stdout}");
    let chromium = home.path(".config/chromium/NativeMessagingHosts");
    assert!(stdout.contains(&format!("--- {}", chromium.join(MANIFEST).display())), "{stdout}");
    assert!(stdout.contains(&format!("--- {}", chromium.join(LAUNCHER).display())), "{stdout}");
    assert!(stdout.contains(ORIGIN) && stdout.contains("laika@laika.local"), "{stdout}");
    assert!(stdout.contains("export LAIKA_DATA_DIR='/srv/laika'"), "{stdout}");

    // And an uninstall dry run removes nothing.
    home.install_json(&["--browser", "chromium"]);
    let before = home.tree();
    let report = home.install_json(&["--uninstall", "--dry-run"]);
    assert_eq!(result(&report, "chromium")["status"], "would_remove");
    assert_eq!(result(&report, "firefox")["status"], "absent");
    assert_eq!(home.tree(), before);
}

#[test]
fn bad_arguments_are_clear_errors() {
    let home = Home::new("bad");
    let (code, _, stderr) = home.install(&["--browser", "safari"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("invalid value 'safari'") && stderr.contains("chrome"), "{stderr}");

    let (code, _, stderr) = home.install(&["--browser", "firefox", "--user-data-dir", "/tmp/p"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("INSTALL_BAD_ARGS"), "{stderr}");

    let missing = home.path("no-such-host");
    let (code, _, stderr) = home.install(&["--browser", "chrome", "--host-path", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("INSTALL_HOST_PATH"), "{stderr}");

    let (code, _, stderr) = home.install(&["--uninstall", "--data-dir", "/srv/laika"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(home.tree().is_empty(), "{:?}", home.tree());
}

#[test]
fn a_file_where_a_directory_should_be_is_an_io_error_with_a_code() {
    let home = Home::new("io");
    std::fs::write(home.path("profile"), "not a directory").unwrap();
    let (code, stdout, stderr) = home.install(&["--user-data-dir", home.path("profile").to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stderr.contains("INSTALL_IO") && stderr.contains("profile"), "{stderr}");
    assert!(stdout.contains("FAILED"), "{stdout}");
}

#[test]
#[cfg(target_os = "linux")]
fn install_service_writes_a_systemd_unit_that_runs_the_daemon_and_uninstall_removes_it() {
    let home = Home::new("service");
    let (code, stdout, stderr) = home.install(&["--service", "--data-dir", "/srv/laika data"]);
    assert_eq!(code, 0, "{stderr}");
    let unit_path = home.path(".config/systemd/user/laika.service");
    assert!(stdout.contains("systemctl --user enable --now laika.service"), "{stdout}");
    let unit = std::fs::read_to_string(&unit_path).expect("the unit is written");
    assert!(unit.contains(&format!("ExecStart=\"{BIN}\" daemon\n")), "{unit}");
    assert!(unit.contains("Environment=\"LAIKA_DATA_DIR=/srv/laika data\"\n"), "{unit}");
    // Nothing for the browsers: --service writes the service only.
    assert!(!home.tree().iter().any(|p| p.ends_with(MANIFEST)), "{:?}", home.tree());
    // --service names no browser.
    let (code, _, stderr) = home.install(&["--service", "--browser", "firefox"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, stdout, _) = home.install(&["--uninstall", "--service"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("removed"), "{stdout}");
    assert!(!unit_path.exists());
    let (code, stdout, _) = home.install(&["--uninstall", "--service"]);
    assert_eq!(code, 0, "removing what is gone is fine");
    assert!(stdout.contains("not present"), "{stdout}");
}
