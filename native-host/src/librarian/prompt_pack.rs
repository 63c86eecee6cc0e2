//! The Librarian's prompt pack: `manifest.json` naming one JSON file per stage, the prompt text
//! kept out of code (`native-host/librarian-prompts/`, built into the host; `--prompt-pack DIR`
//! reads another). The SHA-256 of every file is recorded with each run, so a run can be traced
//! to the exact prompts that produced it.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

pub const INVALID: &str = "LIBRARIAN_PROMPT_PACK_INVALID";

/// The pack built into the host.
const BUILT_IN: &[(&str, &str)] = &[
    ("manifest.json", include_str!("../../librarian-prompts/manifest.json")),
    ("organise.json", include_str!("../../librarian-prompts/organise.json")),
    ("repair.json", include_str!("../../librarian-prompts/repair.json")),
];

/// The stages the host runs; a pack must define each.
pub const STAGES: &[&str] = &["organise", "repair"];

#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub system: String,
    /// With `{request}`, `{errors}`, `{response}` to fill in.
    pub user: String,
    pub max_tokens: usize,
}

#[derive(Debug, Clone)]
pub struct PromptPack {
    stages: BTreeMap<String, Stage>,
    /// File name → SHA-256 (hex) of its bytes, the manifest included.
    pub hashes: BTreeMap<String, String>,
    /// `built-in`, or the folder it was read from.
    pub origin: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    protocol: String,
    #[allow(dead_code)]
    pack: String,
    #[allow(dead_code)]
    version: u32,
    #[allow(dead_code)]
    #[serde(default)]
    about: String,
    stages: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StageFile {
    stage: String,
    system: Lines,
    user: String,
    max_tokens: usize,
}

/// Prompt text as one string or as lines (easier to read in JSON).
#[derive(Deserialize)]
#[serde(untagged)]
enum Lines {
    One(String),
    Many(Vec<String>),
}

impl PromptPack {
    pub fn built_in() -> Result<PromptPack, String> {
        PromptPack::read("built-in", |name| {
            BUILT_IN
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, text)| text.as_bytes().to_vec())
                .ok_or_else(|| format!("{INVALID}: the built-in pack has no file {name:?}"))
        })
    }

    pub fn load(dir: &Path) -> Result<PromptPack, String> {
        PromptPack::read(&dir.display().to_string(), |name| {
            std::fs::read(dir.join(name))
                .map_err(|e| format!("{INVALID}: cannot read {}: {e}", dir.join(name).display()))
        })
    }

    fn read(origin: &str, read: impl Fn(&str) -> Result<Vec<u8>, String>) -> Result<PromptPack, String> {
        let mut hashes = BTreeMap::new();
        let mut file = |name: &str| -> Result<Vec<u8>, String> {
            let bytes = read(name)?;
            hashes.insert(name.to_string(), crate::history::sha256_hex(&bytes));
            Ok(bytes)
        };
        let manifest: Manifest =
            serde_json::from_slice(&file("manifest.json")?).map_err(|e| format!("{INVALID}: manifest.json: {e}"))?;
        if manifest.protocol != laika_shared::librarian::PROTOCOL {
            return Err(format!("{INVALID}: manifest.json is for protocol {:?}, not xml_attrless", manifest.protocol));
        }
        let mut stages = BTreeMap::new();
        for name in STAGES {
            let path = manifest
                .stages
                .get(*name)
                .ok_or_else(|| format!("{INVALID}: manifest.json names no {name:?} stage"))?;
            if path.contains(['/', '\\']) || path.starts_with('.') {
                return Err(format!("{INVALID}: stage file {path:?} must be a plain file name beside manifest.json"));
            }
            let stage: StageFile =
                serde_json::from_slice(&file(path)?).map_err(|e| format!("{INVALID}: {path}: {e}"))?;
            if stage.stage != *name {
                return Err(format!(
                    "{INVALID}: {path} says it is stage {:?}, the manifest says {name:?}",
                    stage.stage
                ));
            }
            if stage.max_tokens == 0 || stage.max_tokens > 4096 {
                return Err(format!("{INVALID}: {path}: max_tokens must be 1 to 4096"));
            }
            let system = match stage.system {
                Lines::One(text) => text,
                Lines::Many(lines) => lines.join("\n"),
            };
            stages.insert(name.to_string(), Stage { system, user: stage.user, max_tokens: stage.max_tokens });
        }
        Ok(PromptPack { stages, hashes, origin: origin.to_string() })
    }

    pub fn stage(&self, name: &str) -> &Stage {
        // Every name of STAGES was checked present when the pack was read.
        &self.stages[name]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_pack_reads_and_every_file_is_hashed() {
        let pack = PromptPack::built_in().unwrap();
        assert_eq!(pack.hashes.keys().collect::<Vec<_>>(), ["manifest.json", "organise.json", "repair.json"]);
        assert!(pack.hashes.values().all(|h| h.len() == 64));
        let organise = pack.stage("organise");
        assert!(organise.system.contains("<librarian_response>") && organise.user.contains("{request}"));
        assert!(pack.stage("repair").user.contains("{errors}"));
    }

    #[test]
    fn a_pack_on_disk_is_read_and_a_broken_one_is_refused_with_its_code() {
        let dir = std::env::temp_dir().join(format!("laika-prompt-pack-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in BUILT_IN {
            std::fs::write(dir.join(name), text.replace("You tidy a user's notes.", "You file notes.")).unwrap();
        }
        let pack = PromptPack::load(&dir).unwrap();
        assert!(pack.stage("organise").system.contains("You file notes."));
        assert_ne!(pack.hashes["organise.json"], PromptPack::built_in().unwrap().hashes["organise.json"]);
        std::fs::write(dir.join("repair.json"), r#"{"stage":"organise","system":"x","user":"y","max_tokens":5}"#)
            .unwrap();
        let error = PromptPack::load(&dir).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(error.starts_with(INVALID) && error.contains("says it is stage"), "{error}");
    }
}
