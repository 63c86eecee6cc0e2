//! `cargo xtask`'s failures, as a user meets them: one line with a stable code and what to do,
//! and no backtrace even when RUST_BACKTRACE asks for one. Both are refused before any build.

use std::process::Command;

fn xtask(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("xtask starts");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn assert_one_coded_line(stderr: &str, code: &str) {
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(lines[0].starts_with(&format!("cargo xtask: {code}: ")), "{stderr}");
    assert!(!stderr.contains("backtrace") && !stderr.contains("Caused by"), "{stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn launch_without_a_display_says_so_in_one_line() {
    let (code, stderr) = xtask(&["install", "--launch"]);
    assert_eq!(code, 1);
    assert_one_coded_line(&stderr, "XTASK_NO_DISPLAY");
    assert!(stderr.contains("without --launch"), "{stderr}");
}

#[test]
fn a_bin_dir_inside_the_build_directory_is_refused_in_one_line() {
    let target =
        std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| format!("{}/../target", env!("CARGO_MANIFEST_DIR")));
    let (code, stderr) = xtask(&["install", "--bin-dir", &format!("{target}/bin")]);
    assert_eq!(code, 1);
    assert_one_coded_line(&stderr, "XTASK_BAD_ARGS");
}
