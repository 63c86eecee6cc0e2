//! Loading the third-party corpora from `shared/corpora/` (read in place, never copied into the
//! project): their ground truth up front, each page's HTML only when it is scored.

use anyhow::{Context, Result, bail};
use flate2::read::GzDecoder;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The corpora this benchmark scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CorpusName {
    /// scrapinghub/article-extraction-benchmark: 181 news and blog articles.
    Zyte,
    /// The web content extraction benchmark's development split: 1,497 pages of 7 types.
    Wcxb,
}

impl CorpusName {
    pub fn key(self) -> &'static str {
        match self {
            CorpusName::Zyte => "zyte",
            CorpusName::Wcxb => "wcxb",
        }
    }
}

impl fmt::Display for CorpusName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// One page with what a correct extraction of it looks like.
#[derive(Debug, Clone)]
pub struct Page {
    pub id: String,
    pub url: String,
    /// WCXB's `_internal.page_type.primary`; the Zyte corpus has no types.
    pub page_type: Option<String>,
    /// Zyte's `articleBody` or WCXB's `main_content`.
    pub main_text: String,
    /// WCXB snippets a correct extraction includes (empty for Zyte).
    pub with: Vec<String>,
    /// WCXB boilerplate snippets a correct extraction leaves out (empty for Zyte).
    pub without: Vec<String>,
    pub html_path: PathBuf,
}

impl Page {
    /// The page's HTML as text.
    pub fn load_html(&self) -> Result<String> {
        read_gzipped_html(&self.html_path)
    }
}

/// Where the corpora are: `$LAIKA_CORPORA`, else `shared/corpora` beside the workspace.
pub fn corpora_dir(workspace_root: &Path) -> PathBuf {
    match std::env::var_os("LAIKA_CORPORA") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_root.join("..").join("shared").join("corpora"),
    }
}

#[derive(Deserialize)]
struct ZyteTruth {
    #[serde(rename = "articleBody", default)]
    article_body: Option<String>,
    #[serde(default)]
    url: Option<String>,
}

/// The Zyte corpus: `zyte/ground-truth.json` ({id: {articleBody, url}}) and
/// `zyte/html/<id>.html.gz`, in id order.
pub fn load_zyte(corpora: &Path) -> Result<Vec<Page>> {
    let dir = corpora.join("zyte");
    let truth_path = dir.join("ground-truth.json");
    let text = std::fs::read_to_string(&truth_path).with_context(|| format!("cannot read {}", truth_path.display()))?;
    // A BTreeMap orders the pages by id, so `--limit N` always takes the same N.
    let truth: BTreeMap<String, ZyteTruth> =
        serde_json::from_str(&text).with_context(|| format!("{} is not the expected JSON", truth_path.display()))?;
    Ok(truth
        .into_iter()
        .map(|(id, truth)| Page {
            html_path: dir.join("html").join(format!("{id}.html.gz")),
            id,
            url: truth.url.unwrap_or_default(),
            page_type: None,
            main_text: truth.article_body.unwrap_or_default(),
            with: Vec::new(),
            without: Vec::new(),
        })
        .collect())
}

#[derive(Deserialize)]
struct WcxbFile {
    #[serde(default)]
    url: Option<String>,
    #[serde(rename = "_internal", default)]
    internal: Option<WcxbInternal>,
    #[serde(default)]
    ground_truth: Option<WcxbTruth>,
}

#[derive(Deserialize)]
struct WcxbInternal {
    #[serde(default)]
    page_type: Option<WcxbPageType>,
}

/// `page_type` is an object with `primary` in this split; the authors' script also accepts a
/// bare string.
#[derive(Deserialize)]
#[serde(untagged)]
enum WcxbPageType {
    Detailed {
        #[serde(default)]
        primary: Option<String>,
    },
    Name(String),
}

#[derive(Deserialize)]
struct WcxbTruth {
    #[serde(default)]
    main_content: Option<String>,
    #[serde(default)]
    with: Option<Vec<String>>,
    #[serde(default)]
    without: Option<Vec<String>>,
}

/// The authors' `get_page_type`: `article` when missing, and the old name `category` read as
/// `collection`.
fn wcxb_page_type(internal: Option<WcxbInternal>) -> String {
    let name = match internal.and_then(|i| i.page_type) {
        Some(WcxbPageType::Detailed { primary: Some(name) }) | Some(WcxbPageType::Name(name)) => name,
        _ => "article".to_string(),
    };
    if name == "category" { "collection".to_string() } else { name }
}

/// The WCXB development split: `wcxb/dev/ground-truth/NNNN.json` with `wcxb/dev/html/NNNN.html.gz`,
/// in file order. Like the authors' script, a file whose `ground_truth` is missing is skipped
/// and missing fields are empty.
pub fn load_wcxb_dev(corpora: &Path) -> Result<Vec<Page>> {
    let dir = corpora.join("wcxb").join("dev");
    let truth_dir = dir.join("ground-truth");
    let mut truth_paths = Vec::new();
    for entry in std::fs::read_dir(&truth_dir).with_context(|| format!("cannot list {}", truth_dir.display()))? {
        let path = entry.with_context(|| format!("cannot list {}", truth_dir.display()))?.path();
        if path.extension().is_some_and(|e| e == "json") {
            truth_paths.push(path);
        }
    }
    truth_paths.sort();
    let mut pages = Vec::with_capacity(truth_paths.len());
    for path in truth_paths {
        let Some(id) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else { continue };
        let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let file: WcxbFile =
            serde_json::from_str(&text).with_context(|| format!("{} is not the expected JSON", path.display()))?;
        let Some(truth) = file.ground_truth else { continue };
        pages.push(Page {
            html_path: dir.join("html").join(format!("{id}.html.gz")),
            id,
            url: file.url.unwrap_or_default(),
            page_type: Some(wcxb_page_type(file.internal)),
            main_text: truth.main_content.unwrap_or_default(),
            with: truth.with.unwrap_or_default(),
            without: truth.without.unwrap_or_default(),
        });
    }
    if pages.is_empty() {
        bail!("no ground truth in {}", truth_dir.display());
    }
    Ok(pages)
}

fn read_gzipped_html(path: &Path) -> Result<String> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut bytes = Vec::new();
    GzDecoder::new(file).read_to_end(&mut bytes).with_context(|| format!("{} is not valid gzip", path.display()))?;
    Ok(decode_html(bytes))
}

/// HTML bytes as text. Every page in both corpora is stored as UTF-8, including the few whose
/// `<meta charset>` still names ISO-8859-1 or windows-1252 (they were transcoded when saved),
/// so valid UTF-8 is taken as is and the declaration believed only when the bytes are not
/// UTF-8; failing both, invalid bytes become U+FFFD.
pub fn decode_html(bytes: Vec<u8>) -> String {
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => return text,
        Err(not_utf8) => not_utf8.into_bytes(),
    };
    match declared_charset(&bytes).and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes())) {
        Some(encoding) => encoding.decode(&bytes).0.into_owned(),
        None => String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// The label after the first `charset=` in the document's first 4 KiB, as `<meta charset=…>`
/// and `<meta http-equiv="Content-Type" content="…; charset=…">` both write it.
fn declared_charset(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(4096)];
    let lowered: Vec<u8> = head.to_ascii_lowercase();
    let at = lowered.windows(8).position(|w| w == b"charset=")? + 8;
    let label: String = lowered[at..]
        .iter()
        .skip_while(|&&b| b == b'"' || b == b'\'' || b == b' ')
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
        .map(|&b| char::from(b))
        .collect();
    (!label.is_empty()).then_some(label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_wins_over_a_stale_declaration() {
        let html = "<meta charset=\"iso-8859-1\"><p>café</p>".as_bytes().to_vec();
        assert_eq!(decode_html(html), "<meta charset=\"iso-8859-1\"><p>café</p>");
    }

    #[test]
    fn non_utf8_bytes_follow_the_declared_charset() {
        let html =
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"><p>caf\xe9 \x93x\x94</p>"
                .to_vec();
        assert!(decode_html(html).ends_with("<p>café “x”</p>"));
    }

    #[test]
    fn undeclared_non_utf8_bytes_are_replaced() {
        assert_eq!(decode_html(b"<p>caf\xe9</p>".to_vec()), "<p>caf\u{fffd}</p>");
    }

    #[test]
    fn page_types_follow_the_authors_script() {
        let detailed =
            |name: &str| Some(WcxbInternal { page_type: Some(WcxbPageType::Detailed { primary: Some(name.into()) }) });
        assert_eq!(wcxb_page_type(detailed("forum")), "forum");
        assert_eq!(wcxb_page_type(detailed("category")), "collection");
        assert_eq!(
            wcxb_page_type(Some(WcxbInternal { page_type: Some(WcxbPageType::Name("listing".into())) })),
            "listing"
        );
        assert_eq!(wcxb_page_type(None), "article");
    }

    #[test]
    fn a_missing_corpus_names_the_path() {
        let missing = Path::new("/nonexistent/corpora");
        let error = load_zyte(missing).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("/nonexistent/corpora/zyte/ground-truth.json"), "{error}");
        let error = load_wcxb_dev(missing).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("/nonexistent/corpora/wcxb/dev/ground-truth"), "{error}");
    }
}
