//! `laika-host install --service`: keeps the daemon always on, for users who want the model
//! loaded before their first click and Lark clients answered while no browser is open. It writes
//! a systemd user unit (`$XDG_CONFIG_HOME/systemd/user/laika.service`, Linux) or a launchd agent
//! (`~/Library/LaunchAgents/org.laika.daemon.plist`, macOS) that runs `laika-host daemon` (no
//! idle exit) and restarts it if it fails; `--uninstall --service` removes the file. Browsers'
//! proxies then find the daemon running instead of starting one.
//!
//! The file is only written: enabling it is the user's step (`systemctl --user enable --now
//! laika.service`, `launchctl load -w …`), printed with the result, since a service manager that
//! starts things is not something an install command should switch on behind the user's back.

use crate::install::{Environment, InstallArgs, InstallError, Os, host_path, write_atomic};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The systemd unit's file name.
pub const UNIT_NAME: &str = "laika.service";
/// The launchd agent's label (and file name, with `.plist`).
pub const AGENT_LABEL: &str = "org.laika.daemon";

/// Where the service file goes on this system.
pub fn service_path(env: &Environment) -> Result<PathBuf, InstallError> {
    let home = env.home.as_deref().ok_or_else(|| InstallError::new(InstallError::NO_HOME, "no home directory"))?;
    match env.os {
        Some(Os::Linux) => {
            let config = env.xdg_config_home.clone().unwrap_or_else(|| home.join(".config"));
            Ok(config.join("systemd/user").join(UNIT_NAME))
        }
        Some(Os::MacOs) => Ok(home.join("Library/LaunchAgents").join(format!("{AGENT_LABEL}.plist"))),
        None => Err(InstallError::new(InstallError::UNSUPPORTED, "services are written on Linux and macOS only")),
    }
}

/// A systemd unit that runs the daemon for this user.
pub fn systemd_unit(host: &Path, data_dir: Option<&Path>) -> String {
    let environment = data_dir
        .map(|dir| format!("Environment={}\n", systemd_quote(&format!("LAIKA_DATA_DIR={}", dir.display()))))
        .unwrap_or_default();
    format!(
        "# Written by `laika-host install --service`; removed by `laika-host install --uninstall --service`.\n\
         [Unit]\n\
         Description=Laika daemon: the local model, history and Lark hub every browser shares\n\
         \n\
         [Service]\n\
         Type=simple\n\
         ExecStart={} daemon\n\
         {environment}\
         Restart=on-failure\n\
         RestartSec=2\n\
         # SIGTERM: running summaries are cancelled and the history checkpointed before it exits.\n\
         TimeoutStopSec=15\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        systemd_quote(&host.display().to_string())
    )
}

/// A launchd agent that runs the daemon for this user.
pub fn launchd_plist(host: &Path, data_dir: Option<&Path>) -> String {
    let environment = data_dir
        .map(|dir| {
            format!(
                "  <key>EnvironmentVariables</key>\n  <dict>\n    <key>LAIKA_DATA_DIR</key>\n    <string>{}</string>\n  </dict>\n",
                xml_escape(&dir.display().to_string())
            )
        })
        .unwrap_or_default();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <!-- Written by `laika-host install - -service`. -->\n\
         <plist version=\"1.0\">\n<dict>\n\
         \x20 <key>Label</key>\n  <string>{AGENT_LABEL}</string>\n\
         \x20 <key>ProgramArguments</key>\n  <array>\n    <string>{}</string>\n    <string>daemon</string>\n  </array>\n\
         {environment}\
         \x20 <key>RunAtLoad</key>\n  <true/>\n\
         \x20 <key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>\n\
         </dict>\n</plist>\n",
        xml_escape(&host.display().to_string())
    )
}

/// A systemd value in double quotes: `\` and `"` escaped, `%` doubled (systemd's specifiers).
fn systemd_quote(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\"").replace('%', "%%"))
}

fn xml_escape(value: &str) -> String {
    value.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `laika-host install --service [--uninstall] [--data-dir DIR] [--host-path FILE] [--dry-run] [--json]`.
pub fn run(args: &InstallArgs, env: &Environment) -> anyhow::Result<ExitCode> {
    let fail = |e: InstallError| anyhow::anyhow!("{}: {}", e.code, e.message);
    let path = service_path(env).map_err(fail)?;
    let enable = match env.os {
        Some(Os::MacOs) => format!("launchctl load -w {}", path.display()),
        _ => format!("systemctl --user enable --now {UNIT_NAME}"),
    };
    let report = if args.uninstall {
        let removed = path.exists();
        if !args.dry_run && removed {
            std::fs::remove_file(&path)
                .map_err(|e| anyhow::anyhow!("INSTALL_IO: cannot remove {}: {e}", path.display()))?;
        }
        serde_json::json!({ "action": "uninstall", "service": path, "removed": removed, "dry_run": args.dry_run })
    } else {
        let host = host_path(args.host_path.as_deref()).map_err(fail)?;
        let data_dir = match args.data_dir.as_deref().or(env.laika_data_dir.as_deref()) {
            Some(dir) => Some(std::path::absolute(dir)?),
            None => None,
        };
        let content = match env.os {
            Some(Os::MacOs) => launchd_plist(&host, data_dir.as_deref()),
            _ => systemd_unit(&host, data_dir.as_deref()),
        };
        if !args.dry_run {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| anyhow::anyhow!("INSTALL_IO: cannot create {}: {e}", parent.display()))?;
            }
            write_atomic(&path, &content, 0o644)
                .map_err(|e| anyhow::anyhow!("INSTALL_IO: cannot write {}: {e}", path.display()))?;
        }
        serde_json::json!({
            "action": "install", "service": path, "host": host, "data_dir": data_dir,
            "enable": enable, "dry_run": args.dry_run, "content": args.dry_run.then_some(content),
        })
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else if args.uninstall {
        println!("{} {}", if report["removed"] == true { "removed" } else { "not present:" }, path.display());
    } else {
        println!("wrote {}{}", path.display(), if args.dry_run { " (dry run: nothing written)" } else { "" });
        println!("start it now and at every login with: {enable}");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_runs_the_daemon_with_the_chosen_data_directory() {
        let unit = systemd_unit(Path::new("/opt/my apps/laika-host"), Some(Path::new("/data/100%/\"x\"")));
        assert!(unit.contains("ExecStart=\"/opt/my apps/laika-host\" daemon\n"), "{unit}");
        assert!(unit.contains("Environment=\"LAIKA_DATA_DIR=/data/100%%/\\\"x\\\"\"\n"), "{unit}");
        assert!(unit.contains("Restart=on-failure") && unit.contains("WantedBy=default.target"));
        assert!(!systemd_unit(Path::new("/usr/bin/laika-host"), None).contains("Environment="));
    }

    #[test]
    fn the_launchd_agent_escapes_its_paths() {
        let plist = launchd_plist(Path::new("/Applications/A&B/laika-host"), Some(Path::new("/Users/x/<data>")));
        assert!(plist.contains("<string>/Applications/A&amp;B/laika-host</string>"), "{plist}");
        assert!(plist.contains("<string>/Users/x/&lt;data&gt;</string>"), "{plist}");
        assert!(plist.contains(&format!("<string>{AGENT_LABEL}</string>")));
        assert!(!plist.contains("--service"), "an XML comment may not hold a double hyphen");
    }

    #[test]
    fn the_file_goes_where_the_service_manager_looks() {
        let env = |os, xdg: Option<&str>| Environment {
            os: Some(os),
            home: Some(PathBuf::from("/home/ada")),
            xdg_config_home: xdg.map(PathBuf::from),
            laika_data_dir: None,
            path: vec![],
            applications: vec![],
        };
        assert_eq!(
            service_path(&env(Os::Linux, None)).unwrap(),
            Path::new("/home/ada/.config/systemd/user/laika.service")
        );
        assert_eq!(service_path(&env(Os::Linux, Some("/cfg"))).unwrap(), Path::new("/cfg/systemd/user/laika.service"));
        assert_eq!(
            service_path(&env(Os::MacOs, None)).unwrap(),
            Path::new("/home/ada/Library/LaunchAgents/org.laika.daemon.plist")
        );
    }
}
