//! `laika-bench readability`: what Mozilla's Readability test pages say about Laika's titles
//! and about pages that are not articles ("readerable": false).
//!
//! The corpus's own metric is an exact match of Readability's article DOM, which only
//! Readability itself can meet; what transfers to Laika is the metadata: the expected title
//! (compared exactly, whitespace collapsed) and whether the page is readerable. For the latter
//! Laika has no yes/no answer; the report gives the primary text's length on readerable and
//! non-readerable pages, so a summariser can tell a thin page from an article.

use anyhow::{Context, Result};
use laika_shared::html::observe_html;
use laika_shared::observe::ObserveOptions;
use serde_json::{Value, json};
use std::path::Path;

struct Case {
    name: String,
    expected_title: String,
    readerable: Option<bool>,
    laika_title: String,
    primary_chars: usize,
}

pub fn run(corpora: &Path, report_path: &Path) -> Result<()> {
    let dir = corpora.join("readability");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot read the Readability corpus at {}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("source.html").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut cases = Vec::new();
    for name in names {
        let case_dir = dir.join(&name);
        let html = crate::corpus::decode_html(
            std::fs::read(case_dir.join("source.html")).with_context(|| format!("reading {name}/source.html"))?,
        );
        let metadata: Value = serde_json::from_slice(
            &std::fs::read(case_dir.join("expected-metadata.json"))
                .with_context(|| format!("reading {name}/expected-metadata.json"))?,
        )
        .with_context(|| format!("{name}/expected-metadata.json is not JSON"))?;
        let observation = observe_html(&html, "http://fakehost/test/page.html", &ObserveOptions::unbounded());
        cases.push(Case {
            name,
            expected_title: collapse(metadata["title"].as_str().unwrap_or_default()),
            readerable: metadata["readerable"].as_bool(),
            laika_title: collapse(&observation.title),
            primary_chars: observation.primary.map_or(0, |p| p.text.chars().count()),
        });
    }
    let with_title: Vec<&Case> = cases.iter().filter(|c| !c.expected_title.is_empty()).collect();
    let matched = with_title.iter().filter(|c| c.laika_title == c.expected_title).count();
    let median = |readerable: bool| {
        let mut lengths: Vec<usize> =
            cases.iter().filter(|c| c.readerable == Some(readerable)).map(|c| c.primary_chars).collect();
        lengths.sort_unstable();
        (lengths.len(), lengths.get(lengths.len() / 2).copied().unwrap_or(0))
    };
    let (readerable_pages, readerable_median) = median(true);
    let (thin_pages, thin_median) = median(false);
    println!("readability ({} pages; expected metadata)", cases.len());
    println!(
        "  titles: {matched}/{} exact ({:.1}%)",
        with_title.len(),
        100.0 * matched as f64 / with_title.len().max(1) as f64
    );
    println!(
        "  primary text, median chars: readerable {readerable_median} ({readerable_pages} pages), not readerable {thin_median} ({thin_pages} pages)"
    );
    println!("  titles that differ:");
    for case in with_title.iter().filter(|c| c.laika_title != c.expected_title).take(15) {
        println!(
            "    {:<28} expected {:?}\n    {:<28} laika    {:?}",
            case.name, case.expected_title, "", case.laika_title
        );
    }
    let report = json!({
        "benchmark": "readability",
        "pages": cases.len(),
        "titles": { "compared": with_title.len(), "exact": matched },
        "primary_median_chars": { "readerable": readerable_median, "not_readerable": thin_median },
        "cases": cases.iter().map(|c| json!({
            "name": c.name, "expected_title": c.expected_title, "laika_title": c.laika_title,
            "readerable": c.readerable, "primary_chars": c.primary_chars,
        })).collect::<Vec<_>>(),
    });
    if let Some(parent) = report_path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(report_path, serde_json::to_string_pretty(&report)?)?;
    println!("wrote {}", report_path.display());
    Ok(())
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
