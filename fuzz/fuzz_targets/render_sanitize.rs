//! Render sanitiser: any JSON becomes a document whose HTML holds only allowed tags and
//! allowed link schemes.
#![no_main]

use laika_shared::render::{is_allowed_href, sanitize, to_html};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        let _ = laika_shared::markdown::markdown_to_doc(&String::from_utf8_lossy(data));
        return;
    };
    let sanitized = sanitize(&value);
    let html = to_html(&sanitized.doc);
    for (i, _) in html.match_indices("href=\"") {
        let rest = &html[i + 6..];
        let end = rest.find('"').unwrap_or(rest.len());
        // Attribute values are escaped; undo the escaping of & before checking the scheme.
        let href = rest[..end].replace("&amp;", "&");
        assert!(is_allowed_href(&href), "emitted a disallowed href: {href}");
    }
    assert!(!html.to_ascii_lowercase().contains("<script"), "emitted a script tag");
});
