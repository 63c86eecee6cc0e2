//! A page copied into a snapshot reads exactly like the page: the CSP fallback of the content
//! script observes through the same heuristics and gets the same observation.

use laika_shared::html::HtmlDom;
use laika_shared::observe::{ObserveOptions, observe_chunk};
use laika_shared::snapshot::{Snapshot, SnapshotDom, snapshot_of};

fn fixture_pages() -> Vec<(String, String)> {
    let dir = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
    )
    .join("../tests/fixtures/pages");
    let mut pages: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("the fixture pages")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    pages.sort();
    assert!(pages.len() >= 5, "fixture pages missing in {}", dir.display());
    pages
}

#[test]
fn a_snapshot_observes_like_its_page() {
    let url = "https://site.example/page?token=secret";
    for (name, html) in fixture_pages() {
        let page = HtmlDom::parse(&html);
        let snapshot = snapshot_of(&page, url);
        // Through the wire form, as the loader sends it.
        let wire = serde_json::to_string(&snapshot).unwrap();
        let snapshot: Snapshot = serde_json::from_str(&wire).unwrap();
        let dom = SnapshotDom::new(snapshot).expect("a well-formed snapshot");
        for options in [ObserveOptions::default(), ObserveOptions { max_chars: 300, cursor: 200, ..Default::default() }]
        {
            let direct = observe_chunk(&page, url, &options);
            let copied = observe_chunk(&dom, dom.url(), &options);
            assert_eq!(copied, direct, "{name}");
        }
    }
}

#[test]
fn a_snapshot_never_carries_field_values() {
    let html = r#"<html><body><form><input type="password" value="hunter2"><input value="prefilled-secret">
        <textarea>draft secret</textarea><input type="submit" value="Send"></form></body></html>"#;
    let wire = serde_json::to_string(&snapshot_of(&HtmlDom::parse(html), "https://a.example/")).unwrap();
    assert!(!wire.contains("hunter2") && !wire.contains("prefilled-secret"), "{wire}");
    assert!(wire.contains("Send"), "a button's label is kept: {wire}");
}
