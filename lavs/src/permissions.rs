//! `fileAccess`, enforced: every path a handler is given (its working directory, a command named
//! by path, each path-typed input) is resolved first (`..` and symlinks, through the deepest part
//! that exists), then must be inside the service's folder or match one of the manifest's
//! patterns, and must not match a `!` pattern. Patterns are globs relative to the service's folder
//! (`./data/**/*.json`) or absolute; `*` stays within one directory, `**` crosses them.
//!
//! A path-typed input is a string property whose schema says `"format": "path"`: the manifest
//! marks which inputs name files, and each of those is checked before the handler runs.

use crate::error::{self, LavsError};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

pub struct FileAccess {
    /// The service's folder, resolved.
    home: PathBuf,
    allow: GlobSet,
    deny: GlobSet,
}

fn glob(pattern: &str, home: &Path) -> Result<Glob, LavsError> {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let absolute =
        if Path::new(pattern).is_absolute() { pattern.to_string() } else { format!("{}/{pattern}", home.display()) };
    GlobBuilder::new(&absolute)
        .literal_separator(true)
        .build()
        .map_err(|e| LavsError::titled(error::INVALID_REQUEST, format!("fileAccess pattern {pattern:?}: {e}")))
}

impl FileAccess {
    pub fn new(service_dir: &Path, patterns: &[String]) -> Result<FileAccess, LavsError> {
        let home = resolve(service_dir)
            .map_err(|e| LavsError::titled(error::INTERNAL_ERROR, format!("{}: {e}", service_dir.display())))?;
        let (mut allow, mut deny) = (GlobSetBuilder::new(), GlobSetBuilder::new());
        for pattern in patterns {
            match pattern.strip_prefix('!') {
                Some(denied) => deny.add(glob(denied, &home)?),
                None => allow.add(glob(pattern, &home)?),
            };
        }
        let build = |b: GlobSetBuilder| b.build().map_err(|e| LavsError::titled(error::INVALID_REQUEST, e));
        Ok(FileAccess { home, allow: build(allow)?, deny: build(deny)? })
    }

    /// The resolved path when `path` (relative to `base`) may be used.
    pub fn check(&self, base: &Path, path: &str) -> Result<PathBuf, LavsError> {
        let joined = base.join(path);
        let denied = |why: String| {
            LavsError::titled(error::PERMISSION_DENIED, why).with_data(serde_json::json!({ "path": path }))
        };
        let resolved = resolve(&joined).map_err(|e| denied(format!("{path:?} cannot be resolved: {e}")))?;
        if self.deny.is_match(&resolved) {
            return Err(denied(format!("{path:?} is denied by the service's fileAccess")));
        }
        if resolved.starts_with(&self.home) || self.allow.is_match(&resolved) {
            return Ok(resolved);
        }
        Err(denied(format!("{path:?} is outside the service's folder and its fileAccess")))
    }

    /// Every path-typed input (`"format": "path"` in the input schema) must pass [`check`].
    pub fn check_inputs(&self, base: &Path, schema: Option<&Value>, input: &Value) -> Result<(), LavsError> {
        let Some(properties) = schema.and_then(|s| s.get("properties")).and_then(Value::as_object) else {
            return Ok(());
        };
        for (name, property) in properties {
            if property.get("format").and_then(Value::as_str) != Some("path") {
                continue;
            }
            if let Some(path) = input.get(name).and_then(Value::as_str) {
                self.check(base, path)?;
            }
        }
        Ok(())
    }

    pub fn home(&self) -> &Path {
        &self.home
    }
}

/// `path` made absolute with `..` and symlinks resolved: the deepest ancestor that exists is
/// canonicalised and the rest appended, which may not climb (`..`) out of it.
pub fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(mut resolved) => {
                for part in rest.iter().rev() {
                    resolved.push(part);
                }
                return Ok(resolved);
            }
            Err(error) => {
                let Some(name) = existing.file_name().map(|n| n.to_os_string()) else { return Err(error) };
                if existing.components().next_back().is_some_and(|c| matches!(c, Component::ParentDir)) {
                    return Err(std::io::Error::other("a '..' past a missing directory"));
                }
                rest.push(name);
                if !existing.pop() {
                    return Err(error);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lavs-perm-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("svc/data/sub")).unwrap();
        std::fs::create_dir_all(dir.join("outside")).unwrap();
        std::fs::write(dir.join("outside/secret.txt"), "s").unwrap();
        std::fs::write(dir.join("svc/data/a.json"), "{}").unwrap();
        std::os::unix::fs::symlink(dir.join("outside/secret.txt"), dir.join("svc/data/link.json")).unwrap();
        dir
    }

    #[test]
    fn traversal_and_symlinks_are_resolved_before_the_patterns() {
        let root = service("traversal");
        let svc = root.join("svc");
        let access = FileAccess::new(&svc, &["./data/**/*.json".into(), "!./data/secrets.json".into()]).unwrap();
        assert!(access.check(&svc, "data/a.json").is_ok());
        assert!(access.check(&svc, "data/sub/new.json").is_ok(), "a file still to be made");
        assert_eq!(access.check(&svc, "../outside/secret.txt").unwrap_err().code, error::PERMISSION_DENIED);
        assert_eq!(access.check(&svc, "data/../../outside/secret.txt").unwrap_err().code, error::PERMISSION_DENIED);
        assert_eq!(access.check(&svc, "data/link.json").unwrap_err().code, error::PERMISSION_DENIED, "a symlink out");
        assert_eq!(access.check(&svc, "/etc/passwd").unwrap_err().code, error::PERMISSION_DENIED);
        assert_eq!(access.check(&svc, "data/secrets.json").unwrap_err().code, error::PERMISSION_DENIED);
        assert_eq!(access.check(&svc, "data/missing/../../../x").unwrap_err().code, error::PERMISSION_DENIED);
        // Outside the folder only where a pattern allows.
        let wider = FileAccess::new(&svc, &[format!("{}/outside/*.txt", root.display())]).unwrap();
        assert!(wider.check(&svc, "../outside/secret.txt").is_ok());
    }

    #[test]
    fn path_typed_inputs_are_checked() {
        let root = service("inputs");
        let svc = root.join("svc");
        let access = FileAccess::new(&svc, &[]).unwrap();
        let schema = serde_json::json!({ "properties": { "file": { "type": "string", "format": "path" }, "text": { "type": "string" } } });
        assert!(
            access
                .check_inputs(&svc, Some(&schema), &serde_json::json!({ "file": "data/a.json", "text": "../x" }))
                .is_ok()
        );
        let error = access
            .check_inputs(&svc, Some(&schema), &serde_json::json!({ "file": "../outside/secret.txt" }))
            .unwrap_err();
        assert_eq!(error.code, error::PERMISSION_DENIED);
    }
}
