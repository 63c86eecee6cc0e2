//! What building the extension needs besides cargo, installed when it is missing, so that
//! `cargo xtask install` works on a machine with only Rust and rustup:
//!
//! 1. the `wasm32-unknown-unknown` target of the toolchain in use (`rustup target add`);
//! 2. `wasm-bindgen-cli` at the version `Cargo.lock` pins for the `wasm-bindgen` crate (`cargo
//!    install`, about six minutes once; the glue it writes must match the crate);
//! 3. `wasm-opt` from npm's binaryen (see `build::wasm_opt`; without npm the extension is built
//!    unoptimised, with a note).
//!
//! Each step says what it does and skips what is present. A failure is one line with a stable
//! code and what to do (`main` prints it).

use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// Adds the WASM target to the toolchain in use unless it is there.
pub fn ensure_wasm_target() -> Result<()> {
    if let Some(dir) = wasm_target_dir()
        && dir.is_dir()
    {
        eprintln!("    {WASM_TARGET} target: present");
        return Ok(());
    }
    if !runs("rustup", &["--version"]) {
        bail!(
            "XTASK_NO_WASM_TARGET: the toolchain has no {WASM_TARGET} target and rustup is not installed to add it; \
             install Rust with rustup (https://rustup.rs) or add the target to this toolchain"
        );
    }
    super::run(
        &format!("rustup target add {WASM_TARGET} (the extension's WASM)"),
        Command::new("rustup").args(["target", "add", WASM_TARGET]),
    )
    .map_err(|e| anyhow::anyhow!("XTASK_NO_WASM_TARGET: {e:#}; run `rustup target add {WASM_TARGET}` and try again"))
}

/// Where the toolchain in use keeps the WASM target's standard library.
fn wasm_target_dir() -> Option<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).args(["--print", "sysroot"]).output().ok()?;
    let sysroot = String::from_utf8(out.stdout).ok()?;
    Some(Path::new(sysroot.trim()).join("lib").join("rustlib").join(WASM_TARGET).join("lib"))
}

/// The `wasm-bindgen` version `Cargo.lock` pins.
pub fn pinned_wasm_bindgen(root: &Path) -> Result<String> {
    let lock = fs::read_to_string(root.join("Cargo.lock")).context("XTASK_NO_LOCKFILE: cannot read Cargo.lock")?;
    pinned_version(&lock, "wasm-bindgen").context("XTASK_NO_LOCKFILE: wasm-bindgen is not in Cargo.lock")
}

/// A package's version in a `Cargo.lock`'s text.
fn pinned_version(lock: &str, package: &str) -> Option<String> {
    let name = format!("name = \"{package}\"\n");
    lock.split("[[package]]")
        .find(|p| p.contains(&name))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"').to_string())
}

/// The installed `wasm-bindgen` CLI's version, if there is one.
fn installed_wasm_bindgen() -> Option<String> {
    let out = Command::new("wasm-bindgen").arg("--version").output().ok()?;
    String::from_utf8(out.stdout).ok()?.split_whitespace().nth(1).map(String::from)
}

/// Installs `wasm-bindgen-cli` at the pinned version unless that version is installed.
pub fn ensure_wasm_bindgen(root: &Path) -> Result<()> {
    let pinned = pinned_wasm_bindgen(root)?;
    let installed = installed_wasm_bindgen();
    if installed.as_deref() == Some(pinned.as_str()) {
        eprintln!("    wasm-bindgen-cli {pinned}: present");
        return Ok(());
    }
    let why = match &installed {
        Some(other) => format!("{other} is installed, the crate is {pinned}"),
        None => "not installed".to_string(),
    };
    // No --locked: the CLI's own lock file pins crates this registry mirror may not carry.
    super::run(
        &format!("cargo install wasm-bindgen-cli --version {pinned} ({why}; about 6 minutes, once)"),
        super::cargo().args(["install", "wasm-bindgen-cli", "--version", &pinned]),
    )
    .map_err(|e| {
        anyhow::anyhow!(
            "XTASK_NO_WASM_BINDGEN: {e:#}; run `cargo install wasm-bindgen-cli --version {pinned}` and try again"
        )
    })?;
    match installed_wasm_bindgen() {
        Some(version) if version == pinned => Ok(()),
        other => bail!(
            "XTASK_NO_WASM_BINDGEN: wasm-bindgen-cli {pinned} was installed but `wasm-bindgen --version` finds {}; \
             put cargo's bin directory (~/.cargo/bin) first on PATH",
            other.unwrap_or_else(|| "none".into())
        ),
    }
}

/// Whether `program` starts and exits 0.
pub fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program).args(args).output().is_ok_and(|o| o.status.success())
}

/// Whether a graphical session is there to start a browser in (Linux: X11 or Wayland; macOS
/// always has one).
pub fn has_display() -> bool {
    if cfg!(target_os = "linux") {
        ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()))
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_version_is_read_from_the_lock_file() {
        let lock = "[[package]]\nname = \"wasm-bindgen-macro\"\nversion = \"9.9.9\"\n\n[[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.130\"\nsource = \"registry\"\n";
        assert_eq!(pinned_version(lock, "wasm-bindgen").as_deref(), Some("0.2.130"));
        assert_eq!(pinned_version(lock, "web-sys"), None);
        // This checkout's own lock file pins one. The checkout is the one cargo runs the test in
        // (its run-time CARGO_MANIFEST_DIR): a test binary shared through a target directory may
        // have been compiled in another clone.
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from).unwrap();
        let root = manifest_dir.parent().unwrap();
        assert!(pinned_wasm_bindgen(root).unwrap().starts_with("0."));
    }
}
