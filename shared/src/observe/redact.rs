//! URL redaction at the source: credential-like query parameters
//! ([`super::words::CREDENTIAL_PARAMS`]) and user info are stripped from every URL the
//! observation carries.

use super::words::*;
use crate::weburl::WebUrl;

/// Resolves `href` against the page and strips credentials: user info, credential-like query
/// parameters (by name, or by a value that carries one, such as an encoded redirect URL) and
/// fragments that carry credentials. `None` for hrefs that are not URLs at all.
pub fn redact_url(href: &str, base: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    let mut parsed = match WebUrl::parse(base) {
        Some(base) => base.join(href)?,
        None => WebUrl::parse(href)?,
    };
    let scheme = parsed.scheme();
    if matches!(scheme.as_str(), "javascript" | "data" | "vbscript" | "blob") {
        return Some(format!("{scheme}:"));
    }
    parsed.clear_credentials();
    if parsed.has_query() {
        // A parameter goes when its name marks a credential, or when its value carries one of
        // its own (an encoded redirect such as `next=%2Freset%3Ftoken%3D…`).
        let kept: Vec<(String, String)> = parsed
            .query_pairs()
            .into_iter()
            .filter(|(k, v)| !CREDENTIAL_PARAMS.contains(&k.to_ascii_lowercase().as_str()) && !carries_credentials(v))
            .collect();
        parsed.set_query_pairs(&kept);
    }
    let href = parsed.href();
    // Fragments carry credentials too (OAuth's `#access_token=…`, hash-routed `#/reset?token=…`);
    // such a fragment is dropped whole.
    match href.split_once('#') {
        Some((before, fragment)) if carries_credentials(fragment) => Some(before.to_string()),
        _ => Some(href),
    }
}

/// Whether `text` (a parameter value or a fragment) holds `name=value` for a credential name or
/// a URL with user info, percent-decoded up to three times (for values encoded more than once).
pub(super) fn carries_credentials(text: &str) -> bool {
    let mut text = text.to_string();
    for _ in 0..4 {
        let mut names = text.split(['?', '&', '#', ';', '/']).filter_map(|part| part.split_once('=')).map(|p| p.0);
        if names.any(|name| CREDENTIAL_PARAMS.contains(&name.trim().to_ascii_lowercase().as_str()))
            || WebUrl::parse(text.trim()).is_some_and(|u| u.has_credentials())
        {
            return true;
        }
        let decoded = percent_decode(&text);
        if decoded == text {
            return false;
        }
        text = decoded;
    }
    false
}

/// `%XX` escapes (and `+` as a space) decoded; anything else kept as it is.
pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
