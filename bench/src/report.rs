//! Scores per page gathered into the numbers the benchmark prints and writes: per corpus, per
//! WCXB page type and per extractor.

use crate::corpus::CorpusName;
use crate::extractors::{Extractor, Failure};
use crate::metrics::{TimingSummary, summarize_timings, wcxb, zyte};
use serde::Serialize;
use std::collections::BTreeMap;

/// A page's score under its corpus's metric.
#[derive(Debug, Clone, Copy)]
pub enum PageScore {
    Zyte(zyte::PageScore),
    Wcxb(wcxb::PageScore),
}

impl PageScore {
    pub fn f1(&self) -> f64 {
        match self {
            PageScore::Zyte(score) => score.f1(),
            PageScore::Wcxb(score) => score.f1,
        }
    }

    pub fn precision(&self) -> f64 {
        match self {
            PageScore::Zyte(score) => score.precision,
            PageScore::Wcxb(score) => score.precision,
        }
    }

    pub fn recall(&self) -> f64 {
        match self {
            PageScore::Zyte(score) => score.recall,
            PageScore::Wcxb(score) => score.recall,
        }
    }
}

/// One extractor's result on one page.
#[derive(Debug, Clone)]
pub struct ScoredRun {
    pub millis: f64,
    pub failure: Option<Failure>,
    /// The extractor returned text with no word in it (failures included).
    pub empty: bool,
    pub score: PageScore,
}

/// Every selected extractor's result on one page.
#[derive(Debug, Clone)]
pub struct PageResult {
    pub id: String,
    pub url: String,
    pub page_type: Option<String>,
    pub runs: BTreeMap<Extractor, ScoredRun>,
}

/// A corpus's results, page by page.
pub struct CorpusResults {
    pub corpus: CorpusName,
    pub extractors: Vec<Extractor>,
    pub pages: Vec<PageResult>,
}

/// The WCXB page types in the order the tables list them; any other type found follows.
const PAGE_TYPE_ORDER: [&str; 7] = ["article", "service", "forum", "collection", "product", "listing", "documentation"];

/// The corpus-level numbers for one extractor over a group of pages.
#[derive(Debug, Clone, Serialize)]
pub struct GroupSummary {
    pub pages: usize,
    #[serde(flatten)]
    pub quality: Quality,
    pub timing: TimingSummary,
    /// Pages where the extractor returned an error (scored as empty).
    pub errors: usize,
    /// Pages where the extractor panicked (scored as empty).
    pub panics: usize,
    /// Pages where it produced no word at all, failures included.
    pub empty_outputs: usize,
}

impl GroupSummary {
    pub fn failures(&self) -> usize {
        self.errors + self.panics
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Quality {
    Zyte(zyte::Summary),
    Wcxb(wcxb::Summary),
}

impl Quality {
    fn f1_precision_recall(&self) -> (Option<f64>, Option<f64>, Option<f64>) {
        match self {
            Quality::Zyte(s) => (s.f1, s.precision, s.recall),
            Quality::Wcxb(s) => (s.f1, s.precision, s.recall),
        }
    }
}

fn summarize_group(corpus: CorpusName, extractor: Extractor, pages: &[&PageResult]) -> GroupSummary {
    let runs: Vec<&ScoredRun> = pages.iter().filter_map(|p| p.runs.get(&extractor)).collect();
    let quality = match corpus {
        CorpusName::Zyte => {
            let scores: Vec<zyte::PageScore> =
                runs.iter().filter_map(|r| if let PageScore::Zyte(s) = r.score { Some(s) } else { None }).collect();
            Quality::Zyte(zyte::summarize(&scores))
        }
        CorpusName::Wcxb => {
            let scores: Vec<wcxb::PageScore> =
                runs.iter().filter_map(|r| if let PageScore::Wcxb(s) = r.score { Some(s) } else { None }).collect();
            Quality::Wcxb(wcxb::summarize(&scores))
        }
    };
    let millis: Vec<f64> = runs.iter().map(|r| r.millis).collect();
    GroupSummary {
        pages: runs.len(),
        quality,
        timing: summarize_timings(&millis),
        errors: runs.iter().filter(|r| matches!(r.failure, Some(Failure::Error(_)))).count(),
        panics: runs.iter().filter(|r| matches!(r.failure, Some(Failure::Panic(_)))).count(),
        empty_outputs: runs.iter().filter(|r| r.empty).count(),
    }
}

/// A corpus's numbers: over all its pages, and per page type for WCXB.
pub struct CorpusSummary {
    pub corpus: CorpusName,
    pub pages: usize,
    /// ("all" or a page type, the summary per extractor).
    pub groups: Vec<(String, BTreeMap<Extractor, GroupSummary>)>,
}

pub fn summarize(results: &CorpusResults) -> CorpusSummary {
    let mut groups = Vec::new();
    let all: Vec<&PageResult> = results.pages.iter().collect();
    let mut group_pages = vec![("all".to_string(), all)];
    if results.corpus == CorpusName::Wcxb {
        let mut types: Vec<String> = PAGE_TYPE_ORDER.iter().map(|t| t.to_string()).collect();
        for page in &results.pages {
            if let Some(page_type) = &page.page_type
                && !types.contains(page_type)
            {
                types.push(page_type.clone());
            }
        }
        for page_type in types {
            let pages: Vec<&PageResult> =
                results.pages.iter().filter(|p| p.page_type.as_deref() == Some(page_type.as_str())).collect();
            if !pages.is_empty() {
                group_pages.push((page_type, pages));
            }
        }
    }
    for (name, pages) in group_pages {
        let by_extractor =
            results.extractors.iter().map(|&e| (e, summarize_group(results.corpus, e, &pages))).collect();
        groups.push((name, by_extractor));
    }
    CorpusSummary { corpus: results.corpus, pages: results.pages.len(), groups }
}

fn number(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"))
}

fn millis(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

/// The table for one corpus, one row per group and extractor. `fail` counts errors and panics;
/// `empty` counts outputs without a word, failures included (on Zyte an empty output lowers
/// recall only, since the precision average leaves such pages out).
pub fn table(summary: &CorpusSummary) -> String {
    let mut out = String::new();
    let metric = match summary.corpus {
        CorpusName::Zyte => "4-word shingles; P and R averaged per page, F1 of the averages",
        CorpusName::Wcxb => "lowercased word bags; P, R, F1 averaged per page",
    };
    out.push_str(&format!("{} ({} pages; {metric})\n", summary.corpus, summary.pages));
    out.push_str(&format!(
        "{:<15} {:<12} {:>5} {:>6} {:>6} {:>6} {:>6} {:>7} {:>8} {:>8} {:>5} {:>5}\n",
        "group", "extractor", "pages", "F1", "P", "R", "with", "w/o-abs", "med ms", "p90 ms", "fail", "empty"
    ));
    for (group, by_extractor) in &summary.groups {
        for (extractor, row) in by_extractor {
            let (f1, precision, recall) = row.quality.f1_precision_recall();
            let (with, without_absent) = match &row.quality {
                Quality::Zyte(_) => (None, None),
                Quality::Wcxb(w) => (w.with_found, w.without_absent),
            };
            out.push_str(&format!(
                "{:<15} {:<12} {:>5} {:>6} {:>6} {:>6} {:>6} {:>7} {:>8} {:>8} {:>5} {:>5}\n",
                group,
                extractor.key(),
                row.pages,
                number(f1),
                number(precision),
                number(recall),
                number(with),
                number(without_absent),
                millis(row.timing.median_ms),
                millis(row.timing.p90_ms),
                row.failures(),
                row.empty_outputs
            ));
        }
    }
    out
}

/// Laika's result on one page, with the others' F1 on the same page for comparison.
#[derive(Debug, Clone, Serialize)]
pub struct LaikaPage {
    pub id: String,
    pub url: String,
    pub page_type: Option<String>,
    pub f1: f64,
    pub precision: f64,
    pub recall: f64,
    pub ms: f64,
    /// Laika's output had no word in it.
    pub empty_output: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// The other extractors' F1 on this page.
    pub others_f1: BTreeMap<&'static str, f64>,
}

/// Laika's pages, worst F1 first (ties by id); empty when Laika did not run.
pub fn laika_pages_worst_first(results: &CorpusResults) -> Vec<LaikaPage> {
    let mut pages: Vec<LaikaPage> = results
        .pages
        .iter()
        .filter_map(|page| {
            let run = page.runs.get(&Extractor::Laika)?;
            Some(LaikaPage {
                id: page.id.clone(),
                url: page.url.clone(),
                page_type: page.page_type.clone(),
                f1: run.score.f1(),
                precision: run.score.precision(),
                recall: run.score.recall(),
                ms: run.millis,
                empty_output: run.empty,
                failure: run.failure.as_ref().map(|f| match f {
                    Failure::Error(message) => format!("error: {message}"),
                    Failure::Panic(message) => format!("panic: {message}"),
                }),
                others_f1: page
                    .runs
                    .iter()
                    .filter(|(extractor, _)| **extractor != Extractor::Laika)
                    .map(|(extractor, other)| (extractor.key(), other.score.f1()))
                    .collect(),
            })
        })
        .collect();
    pages.sort_by(|a, b| a.f1.total_cmp(&b.f1).then_with(|| a.id.cmp(&b.id)));
    pages
}

/// The `count` worst of [`laika_pages_worst_first`], as lines to print.
pub fn worst_table(corpus: CorpusName, pages: &[LaikaPage], count: usize) -> String {
    let mut out = format!(
        "Laika's {} worst pages on {corpus} (page F1; the others' F1 on the same page)\n",
        count.min(pages.len())
    );
    for page in pages.iter().take(count) {
        let others: Vec<String> = page.others_f1.iter().map(|(name, f1)| format!("{name} {f1:.3}")).collect();
        out.push_str(&format!(
            "  F1 {:.3} (P {:.3} R {:.3})  {:<14} {}  {}  [{}]{}\n",
            page.f1,
            page.precision,
            page.recall,
            page.page_type.as_deref().unwrap_or("-"),
            page.id,
            page.url,
            others.join(", "),
            page.failure.as_ref().map(|f| format!("  {f}")).unwrap_or_default()
        ));
    }
    out
}

/// The JSON for one corpus: the summaries and Laika's pages.
pub fn corpus_json(summary: &CorpusSummary, laika_pages: &[LaikaPage]) -> serde_json::Value {
    let metric = match summary.corpus {
        CorpusName::Zyte => {
            "Zyte evaluate.py: case-sensitive \\w+ words, overlapping 4-word shingles as multisets; precision averaged over pages with a non-empty prediction, recall over pages with a non-empty truth; f1 = harmonic mean of the two averages. Per-page f1 in laika_pages is the harmonic mean of that page's precision and recall."
        }
        CorpusName::Wcxb => {
            "WCXB evaluate.py: lowercased \\w+ words as bags; precision, recall and f1 per page, each averaged over pages; with_found / without_found = mean share of snippets found as case-insensitive substrings (1 for a page with no snippets of that kind); without_absent = 1 - without_found."
        }
    };
    let mut extractors = serde_json::Map::new();
    for (group, by_extractor) in &summary.groups {
        for (extractor, group_summary) in by_extractor {
            let entry = extractors
                .entry(extractor.key())
                .or_insert_with(|| serde_json::json!({ "all": null, "by_page_type": {} }));
            let value = serde_json::to_value(group_summary).unwrap_or(serde_json::Value::Null);
            if group == "all" {
                entry["all"] = value;
            } else {
                entry["by_page_type"][group.as_str()] = value;
            }
        }
    }
    if summary.corpus == CorpusName::Zyte {
        for entry in extractors.values_mut() {
            if let Some(object) = entry.as_object_mut() {
                object.remove("by_page_type");
            }
        }
    }
    serde_json::json!({
        "pages": summary.pages,
        "metric": metric,
        "extractors": extractors,
        "laika_pages": laika_pages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(id: &str, page_type: &str, laika: (&str, &str), smoothie: (&str, &str)) -> PageResult {
        let run = |(prediction, truth): (&str, &str)| ScoredRun {
            millis: 1.0,
            failure: None,
            empty: prediction.is_empty(),
            score: PageScore::Wcxb(wcxb::score_page(prediction, truth, &[], &[])),
        };
        PageResult {
            id: id.into(),
            url: format!("https://example.com/{id}"),
            page_type: Some(page_type.into()),
            runs: [(Extractor::Laika, run(laika)), (Extractor::Smoothie, run(smoothie))].into_iter().collect(),
        }
    }

    fn results() -> CorpusResults {
        CorpusResults {
            corpus: CorpusName::Wcxb,
            extractors: vec![Extractor::Laika, Extractor::Smoothie],
            pages: vec![
                page("0001", "forum", ("a b", "a b"), ("", "a b")),
                page("0002", "article", ("", "c d"), ("c d", "c d")),
                page("0003", "article", ("c", "c d"), ("c d", "c d")),
            ],
        }
    }

    #[test]
    fn wcxb_is_summarised_overall_then_per_type_in_table_order() {
        let summary = summarize(&results());
        let names: Vec<&str> = summary.groups.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["all", "article", "forum"]);
        let article = &summary.groups[1].1[&Extractor::Laika];
        assert_eq!(article.pages, 2);
        assert_eq!(article.empty_outputs, 1);
        let Quality::Wcxb(quality) = &article.quality else { panic!("a WCXB summary") };
        // Page F1s 0 and 2/3 (P 1, R 1/2).
        assert!((quality.f1.unwrap_or(f64::NAN) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn laikas_pages_come_worst_first_with_the_others_scores() {
        let pages = laika_pages_worst_first(&results());
        let ids: Vec<&str> = pages.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["0002", "0003", "0001"]);
        assert_eq!(pages[0].others_f1.get("smoothie"), Some(&1.0));
        let json = corpus_json(&summarize(&results()), &pages);
        assert_eq!(json["laika_pages"][0]["id"], "0002");
        assert!(json["extractors"]["laika"]["all"]["f1"].is_number());
        assert_eq!(json["extractors"]["smoothie"]["by_page_type"]["forum"]["f1"], 0.0);
    }
}
