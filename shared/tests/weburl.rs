//! The URL cases of `url_cases.json`, answered by the native build (the `url` crate). The
//! extension's browser tests run the same file through the WASM build (the browser's `URL`).

use laika_shared::observe::redact_url;
use laika_shared::policy::origin_of;
use laika_shared::render::is_allowed_href;
use serde_json::Value;

fn cases() -> Value {
    serde_json::from_str(include_str!("url_cases.json")).expect("url_cases.json parses")
}

#[test]
fn redacted_urls_match_the_shared_cases() {
    for case in cases()["redact_url"].as_array().unwrap() {
        let got = redact_url(case["href"].as_str().unwrap(), case["base"].as_str().unwrap());
        assert_eq!(got.as_deref(), case["expected"].as_str(), "{case}");
    }
}

#[test]
fn origins_match_the_shared_cases() {
    for case in cases()["origin_of"].as_array().unwrap() {
        assert_eq!(origin_of(case["url"].as_str().unwrap()).as_deref(), case["expected"].as_str(), "{case}");
    }
}

#[test]
fn allowed_hrefs_match_the_shared_cases() {
    for case in cases()["allowed_href"].as_array().unwrap() {
        assert_eq!(is_allowed_href(case["href"].as_str().unwrap()), case["expected"].as_bool().unwrap(), "{case}");
    }
}
