//! `laika-host install`: registers the host with the browsers, user scope, on Linux and macOS;
//! `--uninstall` removes what it wrote.
//!
//! A browser finds a native-messaging host by name, as `com.laika.host.json` in a directory of
//! host manifests. Chromium-family browsers look in `<user data dir>/NativeMessagingHosts/`, so
//! a profile started with `--user-data-dir DIR` looks in `DIR/NativeMessagingHosts/` and nowhere
//! else; Firefox looks in `~/.mozilla/native-messaging-hosts/` (Linux) or
//! `~/Library/Application Support/Mozilla/NativeMessagingHosts/` (macOS). The manifest names the
//! executable by absolute path and who may start it: the Chromium extension by origin (its id is
//! fixed by the `key` in `manifest/chrome/manifest.json`), the Firefox add-on by id.
//!
//! Browsers start the host with none of the user's shell environment, so a data directory chosen
//! at install time (`--data-dir`, else `LAIKA_DATA_DIR`) travels in a launcher script written
//! beside the manifest (`laika-host-launcher.sh`), which the manifest then names instead of the
//! binary. The launcher `exec`s the host with the browser's arguments, so the host still sees
//! the extension origin (Chromium) or the manifest path and add-on id (Firefox).
//!
//! By default every browser that is installed (its program on `PATH` on Linux, its application
//! bundle on macOS) or set up for this user (its profile folder exists) is registered: a browser
//! installed but never started has no profile folder yet, and its `NativeMessagingHosts` folder
//! is created, which the browser keeps when it creates the rest on its first start.
//!
//! Every file is written atomically (a temporary file in the same directory, then a rename).
//! Failures carry stable codes: `INSTALL_NO_HOME`, `INSTALL_UNSUPPORTED`, `INSTALL_BAD_ARGS`,
//! `INSTALL_HOST_PATH`, `INSTALL_BAD_PATH`, `INSTALL_IO`, `INSTALL_NO_BROWSER`.

use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The native-messaging name the extension connects to (`extension/src/background.rs`).
pub const HOST_NAME: &str = "com.laika.host";
/// The Chromium extension id, fixed by the manifest's `key`.
pub const CHROME_EXTENSION_ID: &str = "aalmaaaoibklhiemdgicgkpmclfehdkb";
/// The Firefox add-on id (`browser_specific_settings.gecko.id`).
pub const FIREFOX_ADDON_ID: &str = "laika@laika.local";
/// The launcher script written beside the manifests when a data directory is chosen.
pub const LAUNCHER_NAME: &str = "laika-host-launcher.sh";
const DESCRIPTION: &str = "Laika: the trusted native half of the browser assistant";

/// `--browser` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BrowserChoice {
    Chrome,
    Chromium,
    Edge,
    Brave,
    Firefox,
    /// Every browser installed or set up for this user (the default).
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Browser {
    Chrome,
    Chromium,
    Edge,
    Brave,
    Firefox,
}

impl Browser {
    pub const ALL: [Browser; 5] = [Browser::Chrome, Browser::Chromium, Browser::Edge, Browser::Brave, Browser::Firefox];

    pub fn name(self) -> &'static str {
        match self {
            Browser::Chrome => "chrome",
            Browser::Chromium => "chromium",
            Browser::Edge => "edge",
            Browser::Brave => "brave",
            Browser::Firefox => "firefox",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Browser::Chrome => "Google Chrome",
            Browser::Chromium => "Chromium",
            Browser::Edge => "Microsoft Edge",
            Browser::Brave => "Brave",
            Browser::Firefox => "Firefox",
        }
    }

    /// The programs that start it on Linux, looked for on `PATH` (the names its packages
    /// install: Google's and Microsoft's .deb and .rpm, Debian's and Fedora's Chromium, Brave's
    /// packages, Mozilla's and Debian's Firefox).
    fn executables(self) -> &'static [&'static str] {
        match self {
            Browser::Chrome => &["google-chrome", "google-chrome-stable"],
            Browser::Chromium => &["chromium", "chromium-browser"],
            Browser::Edge => &["microsoft-edge", "microsoft-edge-stable"],
            Browser::Brave => &["brave-browser", "brave"],
            Browser::Firefox => &["firefox", "firefox-esr"],
        }
    }

    /// Its application bundle on macOS.
    fn bundle(self) -> &'static str {
        match self {
            Browser::Chrome => "Google Chrome.app",
            Browser::Chromium => "Chromium.app",
            Browser::Edge => "Microsoft Edge.app",
            Browser::Brave => "Brave Browser.app",
            Browser::Firefox => "Firefox.app",
        }
    }

    pub fn family(self) -> Family {
        match self {
            Browser::Firefox => Family::Firefox,
            _ => Family::Chromium,
        }
    }

    fn from_choice(choice: BrowserChoice) -> Option<Browser> {
        match choice {
            BrowserChoice::Chrome => Some(Browser::Chrome),
            BrowserChoice::Chromium => Some(Browser::Chromium),
            BrowserChoice::Edge => Some(Browser::Edge),
            BrowserChoice::Brave => Some(Browser::Brave),
            BrowserChoice::Firefox => Some(Browser::Firefox),
            BrowserChoice::All => None,
        }
    }
}

/// Which kind of manifest a browser reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `allowed_origins`: the extension's `chrome-extension://ID/` origin.
    Chromium,
    /// `allowed_extensions`: the add-on id.
    Firefox,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Os {
    Linux,
    MacOs,
}

impl Os {
    /// The platform this host runs on; `None` where manifests live in the registry (Windows).
    pub fn current() -> Option<Os> {
        if cfg!(target_os = "macos") {
            Some(Os::MacOs)
        } else if cfg!(unix) {
            Some(Os::Linux)
        } else {
            None
        }
    }
}

/// A browser's user-scope configuration directory (there when the browser has been set up for
/// this user) and its host-manifest directory. On Linux the Chromium family honours
/// `XDG_CONFIG_HOME` as those browsers do.
pub fn browser_dirs(browser: Browser, os: Os, home: &Path, xdg_config_home: Option<&Path>) -> (PathBuf, PathBuf) {
    match os {
        Os::Linux => {
            let config = xdg_config_home.map(Path::to_path_buf).unwrap_or_else(|| home.join(".config"));
            let dir = match browser {
                Browser::Chrome => config.join("google-chrome"),
                Browser::Chromium => config.join("chromium"),
                Browser::Edge => config.join("microsoft-edge"),
                Browser::Brave => config.join("BraveSoftware").join("Brave-Browser"),
                Browser::Firefox => {
                    let dir = home.join(".mozilla");
                    return (dir.clone(), dir.join("native-messaging-hosts"));
                }
            };
            let hosts = dir.join("NativeMessagingHosts");
            (dir, hosts)
        }
        Os::MacOs => {
            let support = home.join("Library").join("Application Support");
            let dir = match browser {
                Browser::Chrome => support.join("Google").join("Chrome"),
                Browser::Chromium => support.join("Chromium"),
                Browser::Edge => support.join("Microsoft Edge"),
                Browser::Brave => support.join("BraveSoftware").join("Brave-Browser"),
                Browser::Firefox => support.join("Mozilla"),
            };
            let hosts = dir.join("NativeMessagingHosts");
            (dir, hosts)
        }
    }
}

/// A host manifest, its fields in the order the browsers' documentation gives them.
#[derive(Serialize)]
struct HostManifest<'a> {
    name: &'static str,
    description: &'static str,
    path: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_origins: Option<[String; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_extensions: Option<[&'static str; 1]>,
}

impl<'a> HostManifest<'a> {
    fn new(family: Family, path: &'a str) -> HostManifest<'a> {
        HostManifest {
            name: HOST_NAME,
            description: DESCRIPTION,
            path,
            kind: "stdio",
            allowed_origins: (family == Family::Chromium)
                .then(|| [format!("chrome-extension://{CHROME_EXTENSION_ID}/")]),
            allowed_extensions: (family == Family::Firefox).then_some([FIREFOX_ADDON_ID]),
        }
    }
}

/// The host manifest a browser of `family` reads, naming `path` as the executable.
pub fn manifest(family: Family, path: &str) -> Value {
    serde_json::to_value(HostManifest::new(family, path)).unwrap_or(Value::Null)
}

/// [`manifest`] as the file's text.
pub fn manifest_text(family: Family, path: &str) -> String {
    serde_json::to_string_pretty(&HostManifest::new(family, path)).unwrap_or_default() + "\n"
}

/// The launcher that gives a browser-started host its data directory.
pub fn launcher_script(host: &str, data_dir: &str) -> String {
    format!(
        "#!/bin/sh\n# Written by `laika-host install`: browsers start native hosts without the user's environment.\nexport LAIKA_DATA_DIR={}\nexec {} \"$@\"\n",
        sh_quote(data_dir),
        sh_quote(host)
    )
}

/// A POSIX shell word that stands for `text` exactly.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[derive(clap::Args, Debug)]
pub struct InstallArgs {
    /// The browsers to register with (comma-separated or repeated). `all`, the default, writes
    /// for every browser installed (its program or application found) or set up for this user,
    /// creating its manifest folder when it has not been started yet, and skips the others; a
    /// browser named here is written for even when it is neither.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "BROWSER")]
    pub browser: Vec<BrowserChoice>,
    /// A custom Chromium-family profile (`chromium --user-data-dir=DIR`): writes
    /// DIR/NativeMessagingHosts/ instead of the browsers' own locations.
    #[arg(long, value_name = "DIR")]
    pub user_data_dir: Option<PathBuf>,
    /// The data directory the browser-started host uses (default: `LAIKA_DATA_DIR` when set, else
    /// the platform's); set through a launcher script beside the manifests.
    #[arg(long, value_name = "DIR", conflicts_with = "uninstall")]
    pub data_dir: Option<PathBuf>,
    /// The executable the manifests name (default: this laika-host).
    #[arg(long, value_name = "FILE", conflicts_with = "uninstall")]
    pub host_path: Option<PathBuf>,
    /// Remove what install writes (files already gone are fine).
    #[arg(long)]
    pub uninstall: bool,
    /// Print what would be written or removed, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Instead of the browsers' manifests: write a systemd user unit (Linux) or a launchd agent
    /// (macOS) that keeps `laika-host daemon` always on (`--uninstall --service` removes it).
    #[arg(long, conflicts_with_all = ["browser", "user_data_dir"])]
    pub service: bool,
}

/// An install failure with a stable code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallError {
    pub code: &'static str,
    pub message: String,
}

impl InstallError {
    pub const NO_HOME: &'static str = "INSTALL_NO_HOME";
    pub const UNSUPPORTED: &'static str = "INSTALL_UNSUPPORTED";
    pub const BAD_ARGS: &'static str = "INSTALL_BAD_ARGS";
    pub const HOST_PATH: &'static str = "INSTALL_HOST_PATH";
    pub const BAD_PATH: &'static str = "INSTALL_BAD_PATH";
    pub const IO: &'static str = "INSTALL_IO";
    pub const NO_BROWSER: &'static str = "INSTALL_NO_BROWSER";

    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> InstallError {
        InstallError { code, message: message.into() }
    }
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for InstallError {}

/// What the install reads from its surroundings (the process's, or a test's).
#[derive(Debug, Clone)]
pub struct Environment {
    pub os: Option<Os>,
    pub home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub laika_data_dir: Option<PathBuf>,
    /// The directories of `PATH`, where a browser's program is looked for (Linux).
    pub path: Vec<PathBuf>,
    /// Where application bundles are looked for (macOS: `/Applications`, `~/Applications`).
    pub applications: Vec<PathBuf>,
}

impl Environment {
    pub fn from_process() -> Environment {
        let home = directories::BaseDirs::new()
            .map(|dirs| dirs.home_dir().to_path_buf())
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
            .filter(|home| home.is_absolute());
        let absolute_var = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
        Environment {
            os: Os::current(),
            xdg_config_home: absolute_var("XDG_CONFIG_HOME"),
            laika_data_dir: std::env::var_os("LAIKA_DATA_DIR").filter(|d| !d.is_empty()).map(PathBuf::from),
            path: std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default(),
            applications: std::iter::once(PathBuf::from("/Applications"))
                .chain(home.as_ref().map(|h| h.join("Applications")))
                .collect(),
            home,
        }
    }

    /// Where `browser` is installed: its program on `PATH` (Linux) or its application bundle
    /// (macOS).
    pub fn find_browser(&self, browser: Browser) -> Option<PathBuf> {
        match self.os? {
            Os::Linux => self
                .path
                .iter()
                .flat_map(|dir| browser.executables().iter().map(move |name| dir.join(name)))
                .find(|candidate| is_executable(candidate)),
            Os::MacOs => self.applications.iter().map(|dir| dir.join(browser.bundle())).find(|b| b.is_dir()),
        }
    }
}

/// One place manifests go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `chrome`, `chromium`, `edge`, `brave`, `firefox`, or `profile` for `--user-data-dir`.
    pub label: &'static str,
    pub family: Family,
    /// Present when the browser (or the profile) has been set up.
    pub config_dir: PathBuf,
    pub hosts_dir: PathBuf,
    /// Named on the command line: written even when `config_dir` is missing.
    pub explicit: bool,
    /// Who `config_dir` belongs to, for the reason a target is skipped.
    pub title: &'static str,
    /// The browser's program or application bundle, when it is installed: its manifest is
    /// written even before its first start has made `config_dir`.
    pub installed: Option<PathBuf>,
    /// What was looked for, for the reason a target is skipped.
    pub looked_for: String,
}

impl Target {
    pub fn manifest_path(&self) -> PathBuf {
        self.hosts_dir.join(format!("{HOST_NAME}.json"))
    }

    pub fn launcher_path(&self) -> PathBuf {
        self.hosts_dir.join(LAUNCHER_NAME)
    }
}

fn absolute(path: &Path) -> Result<PathBuf, InstallError> {
    std::path::absolute(path)
        .map_err(|e| InstallError::new(InstallError::BAD_PATH, format!("cannot make {} absolute: {e}", path.display())))
}

/// Where `args` sends manifests.
pub fn targets(args: &InstallArgs, env: &Environment) -> Result<Vec<Target>, InstallError> {
    let Some(os) = env.os else {
        return Err(InstallError::new(
            InstallError::UNSUPPORTED,
            "on this platform browsers find native hosts through the registry; `laika-host install` supports Linux and macOS",
        ));
    };
    let mut named: Vec<Browser> = Vec::new();
    for browser in args.browser.iter().filter_map(|&c| Browser::from_choice(c)) {
        if !named.contains(&browser) {
            named.push(browser);
        }
    }
    let all = args.browser.is_empty() || args.browser.contains(&BrowserChoice::All);
    if let Some(dir) = &args.user_data_dir {
        if named.contains(&Browser::Firefox) {
            return Err(InstallError::new(
                InstallError::BAD_ARGS,
                "--user-data-dir is a Chromium-family profile; Firefox reads only its own manifest directory",
            ));
        }
        let dir = absolute(dir)?;
        return Ok(vec![Target {
            label: "profile",
            family: Family::Chromium,
            hosts_dir: dir.join("NativeMessagingHosts"),
            config_dir: dir,
            explicit: true,
            title: "the profile",
            installed: None,
            looked_for: String::new(),
        }]);
    }
    let Some(home) = &env.home else {
        return Err(InstallError::new(
            InstallError::NO_HOME,
            "cannot find the home directory (set HOME), or name a profile with --user-data-dir",
        ));
    };
    let chosen: Vec<Browser> = if all { Browser::ALL.to_vec() } else { named.clone() };
    Ok(chosen
        .into_iter()
        .map(|browser| {
            let (config_dir, hosts_dir) = browser_dirs(browser, os, home, env.xdg_config_home.as_deref());
            Target {
                label: browser.name(),
                family: browser.family(),
                config_dir,
                hosts_dir,
                explicit: named.contains(&browser),
                title: browser.title(),
                installed: env.find_browser(browser),
                looked_for: match os {
                    Os::Linux => format!("no {} on PATH", browser.executables().join(" or ")),
                    Os::MacOs => format!("no {} in /Applications or ~/Applications", browser.bundle()),
                },
            }
        })
        .collect())
}

/// The executable the manifests name: `--host-path`, else this one; absolute, canonical,
/// an executable file.
pub fn host_path(arg: Option<&Path>) -> Result<PathBuf, InstallError> {
    let fail = |message: String| InstallError::new(InstallError::HOST_PATH, message);
    let path = match arg {
        Some(path) => path.to_path_buf(),
        None => std::env::current_exe().map_err(|e| fail(format!("cannot find this executable: {e}")))?,
    };
    let canonical = std::fs::canonicalize(&path).map_err(|e| fail(format!("{}: {e}", path.display())))?;
    let metadata = std::fs::metadata(&canonical).map_err(|e| fail(format!("{}: {e}", canonical.display())))?;
    if !metadata.is_file() {
        return Err(fail(format!("{} is not a file", canonical.display())));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o111 == 0 {
            return Err(fail(format!("{} is not executable", canonical.display())));
        }
    }
    Ok(canonical)
}

/// A regular file (or a link to one) that may be run.
fn is_executable(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        metadata.is_file()
    }
}

fn utf8(path: &Path) -> Result<&str, InstallError> {
    path.to_str().ok_or_else(|| {
        InstallError::new(InstallError::BAD_PATH, format!("{} is not UTF-8, which manifests need", path.display()))
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Written,
    WouldWrite,
    Skipped,
    Removed,
    WouldRemove,
    Absent,
    Failed,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Written => "written",
            Status::WouldWrite => "would write",
            Status::Skipped => "skipped",
            Status::Removed => "removed",
            Status::WouldRemove => "would remove",
            Status::Absent => "absent",
            Status::Failed => "FAILED",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct FileContent {
    pub path: PathBuf,
    pub content: String,
}

/// What happened at one target.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub browser: &'static str,
    pub status: Status,
    pub manifest: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launcher: Option<PathBuf>,
    /// Why it was skipped, what failed, or a note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// What would be written (`--dry-run`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileContent>,
}

impl Outcome {
    fn new(target: &Target, status: Status) -> Outcome {
        Outcome {
            browser: target.label,
            status,
            manifest: target.manifest_path(),
            launcher: None,
            reason: None,
            code: None,
            files: Vec::new(),
        }
    }

    fn failed(target: &Target, error: InstallError) -> Outcome {
        Outcome { reason: Some(error.message), code: Some(error.code), ..Outcome::new(target, Status::Failed) }
    }
}

fn io_error(what: &str, path: &Path, error: std::io::Error) -> InstallError {
    InstallError::new(InstallError::IO, format!("cannot {what} {}: {error}", path.display()))
}

/// Writes `content` to `path` through a temporary file in the same directory and a rename, so a
/// browser never reads half a file.
pub(crate) fn write_atomic(path: &Path, content: &str, mode: u32) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let partial = dir.join(format!(".{name}.{}.partial", std::process::id()));
    let _ = std::fs::remove_file(&partial);
    let written = write_new(&partial, content, mode).and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

fn write_new(path: &Path, content: &str, mode: u32) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(content.as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    file.sync_all()
}

/// Removes `path`; `Ok(false)` when it was not there.
fn remove_if_present(path: &Path) -> Result<bool, InstallError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error("remove", path, e)),
    }
}

/// Writes one target's manifest (and launcher, with a data directory).
pub fn install_target(target: &Target, host: &str, data_dir: Option<&str>, dry_run: bool) -> Outcome {
    if !target.explicit && !target.config_dir.is_dir() && target.installed.is_none() {
        let mut outcome = Outcome::new(target, Status::Skipped);
        outcome.reason = Some(format!(
            "{} is not installed ({}) and not set up for this user ({} does not exist)",
            target.title,
            target.looked_for,
            target.config_dir.display(),
        ));
        return outcome;
    }
    match write_target(target, host, data_dir, dry_run) {
        Ok(outcome) => outcome,
        Err(error) => Outcome::failed(target, error),
    }
}

fn write_target(target: &Target, host: &str, data_dir: Option<&str>, dry_run: bool) -> Result<Outcome, InstallError> {
    let manifest_path = target.manifest_path();
    let launcher_path = target.launcher_path();
    let launcher = match data_dir {
        Some(data_dir) => Some((utf8(&launcher_path)?.to_string(), launcher_script(host, data_dir))),
        None => None,
    };
    let executable = launcher.as_ref().map_or(host, |(path, _)| path.as_str());
    let text = manifest_text(target.family, executable);
    let mut outcome = Outcome::new(target, if dry_run { Status::WouldWrite } else { Status::Written });
    outcome.launcher = launcher.as_ref().map(|_| launcher_path.clone());
    if !target.config_dir.is_dir() {
        let found = match &target.installed {
            Some(program) => {
                format!("{} is installed ({}) but has not been started yet: ", target.title, program.display())
            }
            None => String::new(),
        };
        outcome.reason = Some(format!(
            "{found}{} did not exist{}",
            target.config_dir.display(),
            if dry_run { "" } else { "; created" }
        ));
    }
    if dry_run {
        if let Some((_, script)) = &launcher {
            outcome.files.push(FileContent { path: launcher_path, content: script.clone() });
        }
        outcome.files.push(FileContent { path: manifest_path, content: text });
        return Ok(outcome);
    }
    std::fs::create_dir_all(&target.hosts_dir).map_err(|e| io_error("create", &target.hosts_dir, e))?;
    match &launcher {
        Some((_, script)) => {
            write_atomic(&launcher_path, script, 0o755).map_err(|e| io_error("write", &launcher_path, e))?
        }
        // A launcher left by an install with a data directory would only mislead now.
        None => {
            remove_if_present(&launcher_path)?;
        }
    }
    write_atomic(&manifest_path, &text, 0o644).map_err(|e| io_error("write", &manifest_path, e))?;
    Ok(outcome)
}

/// Removes one target's manifest and launcher.
pub fn uninstall_target(target: &Target, dry_run: bool) -> Outcome {
    let mut removed = Vec::new();
    for path in [target.manifest_path(), target.launcher_path()] {
        if dry_run {
            if path.symlink_metadata().is_ok() {
                removed.push(path);
            }
            continue;
        }
        match remove_if_present(&path) {
            Ok(true) => removed.push(path),
            Ok(false) => {}
            Err(error) => return Outcome::failed(target, error),
        }
    }
    let status = match (removed.is_empty(), dry_run) {
        (true, _) => Status::Absent,
        (false, true) => Status::WouldRemove,
        (false, false) => Status::Removed,
    };
    let mut outcome = Outcome::new(target, status);
    outcome.launcher = removed.iter().find(|p| p.ends_with(LAUNCHER_NAME)).cloned();
    if removed.is_empty() {
        outcome.reason = Some("nothing to remove".into());
    }
    outcome
}

/// The whole report of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub action: &'static str,
    pub dry_run: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<PathBuf>,
    pub results: Vec<Outcome>,
}

/// `laika-host install`.
pub fn run(args: InstallArgs) -> anyhow::Result<ExitCode> {
    let env = Environment::from_process();
    if args.service {
        return crate::service::run(&args, &env);
    }
    let targets = targets(&args, &env)?;
    let report = if args.uninstall {
        Report {
            action: "uninstall",
            dry_run: args.dry_run,
            host: None,
            data_dir: None,
            results: targets.iter().map(|t| uninstall_target(t, args.dry_run)).collect(),
        }
    } else {
        let host = host_path(args.host_path.as_deref())?;
        let data_dir = match args.data_dir.as_deref().or(env.laika_data_dir.as_deref()) {
            Some(dir) => Some(absolute(dir)?),
            None => None,
        };
        let host_text = utf8(&host)?;
        let data_dir_text = data_dir.as_deref().map(utf8).transpose()?;
        Report {
            action: "install",
            dry_run: args.dry_run,
            results: targets.iter().map(|t| install_target(t, host_text, data_dir_text, args.dry_run)).collect(),
            host: Some(host.clone()),
            data_dir,
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", summary(&report));
    }
    let mut code = ExitCode::SUCCESS;
    for failed in report.results.iter().filter(|o| o.status == Status::Failed) {
        eprintln!(
            "laika-host: {}: {}",
            failed.code.unwrap_or(InstallError::IO),
            failed.reason.as_deref().unwrap_or("")
        );
        code = ExitCode::from(1);
    }
    let done = report.results.iter().any(|o| matches!(o.status, Status::Written | Status::WouldWrite | Status::Failed));
    if report.action == "install" && !done {
        eprintln!(
            "laika-host: {}: no browser is installed or set up for this user; install one, or name one with --browser, or a profile with --user-data-dir",
            InstallError::NO_BROWSER
        );
        code = ExitCode::from(1);
    }
    Ok(code)
}

/// The report as a table (and with `--dry-run`, the files that would be written).
pub fn summary(report: &Report) -> String {
    let mut out = String::new();
    if let Some(host) = &report.host {
        out += &format!("host: {}\n", host.display());
    }
    if let Some(dir) = &report.data_dir {
        out += &format!("data directory: {} (set by {LAUNCHER_NAME} beside each manifest)\n", dir.display());
    }
    let rows: Vec<[String; 4]> = report
        .results
        .iter()
        .map(|o| {
            let mut notes: Vec<String> = Vec::new();
            if let Some(launcher) = &o.launcher {
                notes.push(format!("+ {}", launcher.file_name().unwrap_or_default().to_string_lossy()));
            }
            if let Some(code) = o.code {
                notes.push(code.to_string());
            }
            if let Some(reason) = &o.reason {
                notes.push(reason.clone());
            }
            [o.browser.to_string(), o.status.label().to_string(), o.manifest.display().to_string(), notes.join("; ")]
        })
        .collect();
    let header = ["BROWSER", "RESULT", "MANIFEST", "NOTE"].map(String::from);
    let mut widths = [0usize; 3];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let line = format!(
            "{:w0$}  {:w1$}  {:w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
        out += line.trim_end();
        out += "\n";
    }
    for file in report.results.iter().flat_map(|o| &o.files) {
        out += &format!("\n--- {}\n{}", file.path.display(), file.content);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(os: Os) -> Environment {
        Environment {
            os: Some(os),
            home: Some(PathBuf::from("/home/u")),
            xdg_config_home: None,
            laika_data_dir: None,
            path: Vec::new(),
            applications: Vec::new(),
        }
    }

    fn args(browsers: &[BrowserChoice]) -> InstallArgs {
        InstallArgs {
            browser: browsers.to_vec(),
            user_data_dir: None,
            data_dir: None,
            host_path: None,
            uninstall: false,
            dry_run: false,
            json: false,
            service: false,
        }
    }

    fn hosts_dirs(targets: &[Target]) -> Vec<(&'static str, String)> {
        targets.iter().map(|t| (t.label, t.hosts_dir.display().to_string())).collect()
    }

    #[test]
    fn linux_locations() {
        let targets = targets(&args(&[]), &env(Os::Linux)).unwrap();
        assert_eq!(
            hosts_dirs(&targets),
            [
                ("chrome", "/home/u/.config/google-chrome/NativeMessagingHosts".to_string()),
                ("chromium", "/home/u/.config/chromium/NativeMessagingHosts".into()),
                ("edge", "/home/u/.config/microsoft-edge/NativeMessagingHosts".into()),
                ("brave", "/home/u/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts".into()),
                ("firefox", "/home/u/.mozilla/native-messaging-hosts".into()),
            ]
        );
        assert!(targets.iter().all(|t| !t.explicit && t.hosts_dir.parent() == Some(t.config_dir.as_path())));
        let mut xdg = env(Os::Linux);
        xdg.xdg_config_home = Some(PathBuf::from("/xdg"));
        let targets = super::targets(&args(&[BrowserChoice::Chrome, BrowserChoice::Firefox]), &xdg).unwrap();
        assert_eq!(
            hosts_dirs(&targets),
            [
                ("chrome", "/xdg/google-chrome/NativeMessagingHosts".to_string()),
                ("firefox", "/home/u/.mozilla/native-messaging-hosts".into()),
            ]
        );
        assert!(targets.iter().all(|t| t.explicit));
    }

    #[test]
    fn macos_locations() {
        let targets = targets(&args(&[BrowserChoice::All]), &env(Os::MacOs)).unwrap();
        let support = "/home/u/Library/Application Support";
        assert_eq!(
            hosts_dirs(&targets),
            [
                ("chrome", format!("{support}/Google/Chrome/NativeMessagingHosts")),
                ("chromium", format!("{support}/Chromium/NativeMessagingHosts")),
                ("edge", format!("{support}/Microsoft Edge/NativeMessagingHosts")),
                ("brave", format!("{support}/BraveSoftware/Brave-Browser/NativeMessagingHosts")),
                ("firefox", format!("{support}/Mozilla/NativeMessagingHosts")),
            ]
        );
    }

    #[test]
    fn a_profile_replaces_the_browsers_and_excludes_firefox() {
        let mut profile = args(&[BrowserChoice::Chrome, BrowserChoice::Brave]);
        profile.user_data_dir = Some(PathBuf::from("/tmp/p"));
        let targets = targets(&profile, &env(Os::MacOs)).unwrap();
        assert_eq!(hosts_dirs(&targets), [("profile", "/tmp/p/NativeMessagingHosts".to_string())]);
        assert_eq!(targets[0].family, Family::Chromium);
        profile.browser.push(BrowserChoice::Firefox);
        assert_eq!(super::targets(&profile, &env(Os::Linux)).unwrap_err().code, InstallError::BAD_ARGS);
    }

    #[test]
    fn no_home_and_no_platform_are_errors_with_codes() {
        let mut no_home = env(Os::Linux);
        no_home.home = None;
        assert_eq!(targets(&args(&[]), &no_home).unwrap_err().code, InstallError::NO_HOME);
        let mut windows = env(Os::Linux);
        windows.os = None;
        assert_eq!(targets(&args(&[]), &windows).unwrap_err().code, InstallError::UNSUPPORTED);
    }

    #[test]
    fn manifests_name_the_right_extension() {
        let chromium = manifest(Family::Chromium, "/bin/laika-host");
        assert_eq!(chromium["allowed_origins"], json!(["chrome-extension://aalmaaaoibklhiemdgicgkpmclfehdkb/"]));
        assert!(chromium.get("allowed_extensions").is_none());
        assert_eq!(chromium["type"], "stdio");
        assert_eq!(chromium["name"], HOST_NAME);
        let firefox = manifest(Family::Firefox, "/bin/laika-host");
        assert_eq!(firefox["allowed_extensions"], json!(["laika@laika.local"]));
        assert!(firefox.get("allowed_origins").is_none());
        let text = manifest_text(Family::Firefox, "/bin/laika-host");
        assert!(text.starts_with("{\n  \"name\": \"com.laika.host\",\n  \"description\""), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), firefox);
    }

    #[test]
    fn launcher_quotes_for_the_shell() {
        let script = launcher_script("/opt/it's here/laika-host", "/data/$HOME `x`");
        assert!(script.starts_with("#!/bin/sh\n"));
        assert!(script.contains("export LAIKA_DATA_DIR='/data/$HOME `x`'\n"), "{script}");
        assert!(script.contains(r#"exec '/opt/it'\''s here/laika-host' "$@""#), "{script}");
    }
}
