//! Transforms: a collection's captured sources turned into a note (`transform.run`), in which
//! every statement is a sentence of a source, quoted as the source wrote it and cited by the
//! source's number (`[2]`), with the numbered sources listed at the end.
//!
//! - `briefing`: each source's key points (the same ranker as a summary's key points);
//! - `comparison_table`: a table, a row per source and a column per aspect (`config.aspects`,
//!   at most [`MAX_ASPECTS`]; by default the main point), each cell the source's sentence that
//!   matches the aspect best (BM25 over its sentences), or "not stated";
//! - `timeline`: the sentences that carry a date, in date order.
//!
//! Nothing is written by a model: a transform puts the sources' own sentences side by side, so
//! nothing in it can be untrue of its sources; what it adds is the order and the layout.

use super::collections::SourceRow;
use super::{NoteChange, NoteSource, NoteState, Notebook, NotebookError};
use laika_shared::grounding::{self, Bm25, Passage, Sentence, shorten};
use laika_shared::observation::CollectionSource;
use serde_json::{Map, Value, json};

/// The transform types, with what each makes and its `config`.
pub const TYPES: &[(&str, &str, &str)] = &[
    ("briefing", "Each source's key points, cited.", "{ \"points\"?: 1..8 }"),
    (
        "comparison_table",
        "A table: a row per source, a column per aspect, each cell the source's own sentence.",
        "{ \"aspects\"?: [string] }",
    ),
    ("timeline", "The sources' dated sentences in date order.", "{ \"max\"?: int }"),
];

/// Columns a comparison table has at most (beyond the source's own).
pub const MAX_ASPECTS: usize = 6;
/// A quoted sentence is cut to this many characters (a table cell, a timeline line).
const CELL_CHARS: usize = 220;
/// Key points per source in a briefing, by default.
const BRIEFING_POINTS: usize = 3;
/// Lines a timeline holds at most, by default.
const TIMELINE_MAX: usize = 30;

pub const UNKNOWN_TYPE: &str = "TRANSFORM_UNKNOWN_TYPE";
pub const NO_SOURCES: &str = "TRANSFORM_NO_SOURCES";
pub const BAD_CONFIG: &str = "TRANSFORM_BAD_CONFIG";

/// `transform.list_types`.
pub fn list_types() -> Value {
    json!({ "types": TYPES.iter().map(|(name, what, config)| json!({ "type": name, "description": what, "config": config })).collect::<Vec<_>>() })
}

/// A transform's note: its title, its Markdown body, and its sources in the order their numbers
/// are cited.
#[derive(Debug, PartialEq)]
pub struct Made {
    pub title: String,
    pub markdown: String,
    pub sources: Vec<NoteSource>,
}

/// Runs a transform over a collection and stores its note. Returns the note.
pub fn run(
    notebook: &Notebook,
    collection_id: &str,
    kind: &str,
    config: Option<&Map<String, Value>>,
) -> Result<super::Note, NotebookError> {
    if !TYPES.iter().any(|(name, _, _)| *name == kind) {
        let known: Vec<&str> = TYPES.iter().map(|(name, _, _)| *name).collect();
        return Err(NotebookError::new(UNKNOWN_TYPE, format!("no transform {kind:?}; there are {}", known.join(", "))));
    }
    let collection = notebook.collection(collection_id)?;
    let (_, documents) = notebook.documents(&collection.id)?;
    if documents.iter().all(|d| d.text.trim().is_empty()) {
        let pending = notebook.sources(&collection.id)?.iter().filter(|s: &&SourceRow| s.status == "pending").count();
        return Err(NotebookError::new(
            NO_SOURCES,
            format!(
                "{} has no captured source to work from{}",
                collection.id,
                if pending > 0 {
                    format!(" ({pending} waiting to be captured: source.capture)")
                } else {
                    String::new()
                }
            ),
        ));
    }
    let empty = Map::new();
    let made = make(kind, &collection.title, &documents, config.unwrap_or(&empty))?;
    let state = NoteState {
        title: made.title,
        body_markdown: made.markdown,
        tags: vec!["transform".into(), kind.into()],
        ..Default::default()
    };
    notebook.create(&state, &made.sources, "default", &NoteChange::by(&format!("transform.run:{kind}")))
}

/// The note a transform makes of `documents` (pure: the tests call it directly).
pub fn make(
    kind: &str,
    title: &str,
    documents: &[CollectionSource],
    config: &Map<String, Value>,
) -> Result<Made, NotebookError> {
    let read: Vec<(usize, &CollectionSource, Vec<Sentence>)> = documents
        .iter()
        .filter(|d| !d.text.trim().is_empty())
        .enumerate()
        .map(|(i, d)| (i + 1, d, grounding::sentences(&d.text).into_iter().filter(|s| !s.heading).collect()))
        .collect();
    let cite = |n: usize, sentence: &str| format!("{} [{n}]", shorten(sentence.trim(), CELL_CHARS));
    let (heading, body) = match kind {
        "briefing" => {
            let points = config_count(config, "points", BRIEFING_POINTS, 8)?;
            let mut body = String::new();
            for (n, document, sentences) in &read {
                body.push_str(&format!("## {}\n\n", source_name(document)));
                let mut chosen = grounding::key_points(sentences, &document.title, points);
                if chosen.is_empty() {
                    chosen = grounding::short_points(sentences, points);
                }
                if chosen.is_empty() {
                    body.push_str("- (no sentence to quote)\n");
                }
                for i in chosen {
                    body.push_str(&format!("- {}\n", cite(*n, &sentences[i].text)));
                }
                body.push('\n');
            }
            ("Briefing", body)
        }
        "comparison_table" => {
            let aspects = aspects(config)?;
            let mut body = format!("| Source | {} |\n|---|{}\n", aspects.join(" | "), "---|".repeat(aspects.len()));
            for (n, document, sentences) in &read {
                let mut row = vec![cell(&source_name(document))];
                for aspect in &aspects {
                    let found = best_sentence(sentences, &document.title, aspect);
                    row.push(match found {
                        Some(i) => cell(&cite(*n, &sentences[i].text)),
                        None => "not stated".into(),
                    });
                }
                body.push_str(&format!("| {} |\n", row.join(" | ")));
            }
            ("Comparison", body)
        }
        _ => {
            let max = config_count(config, "max", TIMELINE_MAX, 200)?;
            let mut dated: Vec<((u32, u32, u32), usize, String)> = vec![];
            for (n, _, sentences) in &read {
                for sentence in sentences {
                    if let Some(date) = date_of(&sentence.text) {
                        dated.push((date, *n, sentence.text.clone()));
                    }
                }
            }
            dated.sort_by_key(|(date, n, _)| (*date, *n));
            dated.truncate(max);
            let mut body = String::new();
            for ((year, month, day), n, text) in &dated {
                let when = match (month, day) {
                    (0, _) => format!("{year}"),
                    (m, 0) => format!("{year}-{m:02}"),
                    (m, d) => format!("{year}-{m:02}-{d:02}"),
                };
                body.push_str(&format!("- **{when}**: {}\n", cite(*n, text)));
            }
            if dated.is_empty() {
                body.push_str("No sentence of these sources carries a date.\n");
            }
            ("Timeline", body)
        }
    };
    // The note's title and its numbered sources are the note's own (the export writes them): the
    // body is the statements, each ending in its source's number.
    let sources = read
        .iter()
        .map(|(_, document, _)| NoteSource {
            url: document.url.clone(),
            title: Some(document.title.clone()),
            citations: vec![],
        })
        .collect();
    Ok(Made { title: format!("{heading}: {title}"), markdown: body, sources })
}

fn source_name(document: &CollectionSource) -> String {
    match (document.title.trim(), document.outlet.trim()) {
        ("", "") => document.source_id.clone(),
        (title, "") => title.to_string(),
        ("", outlet) => outlet.to_string(),
        (title, outlet) => format!("{title} ({outlet})"),
    }
}

/// A Markdown table cell: one line, `|` escaped.
fn cell(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

fn config_count(config: &Map<String, Value>, key: &str, default: usize, max: usize) -> Result<usize, NotebookError> {
    match config.get(key) {
        None => Ok(default),
        Some(value) => value.as_u64().map(|n| n as usize).filter(|n| (1..=max).contains(n)).ok_or_else(|| {
            NotebookError::new(BAD_CONFIG, format!("config.{key} must be a whole number from 1 to {max}"))
        }),
    }
}

fn aspects(config: &Map<String, Value>) -> Result<Vec<String>, NotebookError> {
    let Some(value) = config.get("aspects") else { return Ok(vec!["Main point".into()]) };
    let bad = || {
        NotebookError::new(
            BAD_CONFIG,
            format!("config.aspects must be 1 to {MAX_ASPECTS} short texts, e.g. [\"price\", \"battery\"]"),
        )
    };
    let aspects: Vec<String> = value
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|a| a.as_str().map(|s| cell(s.trim())).filter(|s| !s.is_empty() && s.chars().count() <= 60))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    if aspects.is_empty() || aspects.len() > MAX_ASPECTS {
        return Err(bad());
    }
    Ok(aspects)
}

/// The sentence of a source that says most about `aspect`: its best key point for the main
/// point, else the best BM25 match among its sentences (none when no word of the aspect occurs).
fn best_sentence(sentences: &[Sentence], title: &str, aspect: &str) -> Option<usize> {
    if aspect.eq_ignore_ascii_case("main point") {
        return grounding::key_points(sentences, title, 1).first().copied();
    }
    let passages: Vec<Passage> = sentences.iter().map(|s| Passage { text: s.text.clone(), offset: s.offset }).collect();
    let bm25 = Bm25::new(&passages);
    if bm25.query_coverage(aspect) == 0.0 {
        return None;
    }
    bm25.rank(aspect).first().map(|&(i, _)| i)
}

use laika_shared::field_value::MONTHS;

/// The date a sentence names, as (year, month, day) with 0 for what it leaves out: an ISO date
/// (2024-03-05), a month with its year ("March 2024", "5 March 2024", "March 5, 2024"), or a
/// year alone (1800–2199) after "in", "since", "by", "from", "until" or "of". The first found.
pub fn date_of(sentence: &str) -> Option<(u32, u32, u32)> {
    let words: Vec<String> = sentence
        .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    let year = |w: &str| w.parse::<u32>().ok().filter(|y| (1800..2200).contains(y) && w.len() == 4);
    let day = |w: &str| {
        w.trim_end_matches(['s', 't', 'n', 'd', 'r', 'h']).parse::<u32>().ok().filter(|d| (1..=31).contains(d))
    };
    let month = |w: &str| {
        MONTHS.iter().position(|m| w == *m || (w.len() == 3 && m.starts_with(w) && w != "may")).map(|m| m as u32 + 1)
    };
    for (i, word) in words.iter().enumerate() {
        // 2024-03-05
        let parts: Vec<&str> = word.split('-').collect();
        if parts.len() == 3
            && let (Some(y), Ok(m), Ok(d)) = (year(parts[0]), parts[1].parse::<u32>(), parts[2].parse::<u32>())
            && (1..=12).contains(&m)
            && (1..=31).contains(&d)
        {
            return Some((y, m, d));
        }
        if let Some(m) = month(word) {
            let next = words.get(i + 1).map(String::as_str).unwrap_or_default();
            let after = words.get(i + 2).map(String::as_str).unwrap_or_default();
            let before = if i > 0 { words[i - 1].as_str() } else { "" };
            if let (Some(d), Some(y)) = (day(next), year(after)) {
                return Some((y, m, d));
            }
            if let Some(y) = year(next) {
                return Some((y, m, day(before).unwrap_or(0)));
            }
        }
        if let Some(y) = year(word)
            && i > 0
            && ["in", "since", "by", "from", "until", "of", "year"].contains(&words[i - 1].as_str())
        {
            return Some((y, 0, 0));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(n: usize, title: &str, text: &str) -> CollectionSource {
        CollectionSource {
            source_id: format!("src:{n}"),
            url: format!("https://s{n}.example/"),
            title: title.into(),
            outlet: format!("s{n}.example"),
            text: text.into(),
            ..Default::default()
        }
    }

    fn sources() -> Vec<CollectionSource> {
        vec![
            source(
                1,
                "Phone A review",
                "Phone A has a bright screen and a fast chip from its maker. The battery lasts two days on a single charge. It went on sale in March 2024 at a price of 499 dollars.",
            ),
            source(
                2,
                "Phone B review",
                "Phone B is a small phone with a very good camera for its size. Its price is 399 dollars in most shops. The company announced it on 5 September 2023 in Berlin.",
            ),
        ]
    }

    /// Every cited statement of a transform is a sentence (or its cut head) of the source its
    /// number names.
    fn assert_cited_from_sources(made: &Made, documents: &[CollectionSource]) {
        let mut statements = 0;
        for line in made.markdown.lines() {
            for piece in line.split(" | ") {
                let Some((text, rest)) = piece.rsplit_once(" [") else { continue };
                let n: usize = rest.trim_end_matches([']', '|', ' ']).parse().expect("a source number");
                let text =
                    text.rsplit_once("**: ").map_or(text, |(_, t)| t).trim_start_matches("- ").trim_start_matches("| ");
                let quote = text.trim_end_matches('…');
                assert!(documents[n - 1].text.contains(quote), "{quote:?} is not in source {n}");
                statements += 1;
            }
        }
        assert!(statements > 0, "{}", made.markdown);
    }

    #[test]
    fn a_briefing_quotes_each_sources_key_points_with_its_number() {
        let made = make("briefing", "Phones", &sources(), &Map::new()).unwrap();
        assert_eq!(made.title, "Briefing: Phones");
        assert!(made.markdown.starts_with("## Phone A review (s1.example)\n"), "{}", made.markdown);
        assert_cited_from_sources(&made, &sources());
        // The sources, numbered as the statements cite them, are the note's.
        assert_eq!(
            made.sources.iter().map(|s| s.url.as_str()).collect::<Vec<_>>(),
            ["https://s1.example/", "https://s2.example/"]
        );
    }

    #[test]
    fn a_comparison_table_has_a_cell_per_source_and_aspect_or_says_not_stated() {
        let config: Map<String, Value> = serde_json::from_value(json!({ "aspects": ["price", "battery"] })).unwrap();
        let made = make("comparison_table", "Phones", &sources(), &config).unwrap();
        assert!(made.markdown.contains("| Source | price | battery |"), "{}", made.markdown);
        let rows: Vec<&str> = made.markdown.lines().filter(|l| l.starts_with("| Phone")).collect();
        assert_eq!(rows.len(), 2);
        assert!(rows[0].contains("499 dollars") && rows[0].contains("two days"), "{}", rows[0]);
        assert!(rows[1].contains("399 dollars") && rows[1].ends_with("| not stated |"), "{}", rows[1]);
        assert_cited_from_sources(&made, &sources());
        let bad: Map<String, Value> = serde_json::from_value(json!({ "aspects": [] })).unwrap();
        assert_eq!(make("comparison_table", "P", &sources(), &bad).unwrap_err().code, BAD_CONFIG);
    }

    #[test]
    fn a_timeline_orders_the_dated_sentences() {
        let made = make("timeline", "Phones", &sources(), &Map::new()).unwrap();
        let lines: Vec<&str> = made.markdown.lines().filter(|l| l.starts_with("- **")).collect();
        assert_eq!(lines.len(), 2, "{}", made.markdown);
        assert!(lines[0].starts_with("- **2023-09-05**: The company announced it"), "{}", lines[0]);
        assert!(lines[1].starts_with("- **2024-03**: It went on sale"), "{}", lines[1]);
        assert_cited_from_sources(&made, &sources());
    }

    #[test]
    fn dates_are_read_in_their_common_forms_and_numbers_are_not_dates() {
        assert_eq!(date_of("Released 2024-03-05 worldwide."), Some((2024, 3, 5)));
        assert_eq!(date_of("On March 5, 2024 it shipped."), Some((2024, 3, 5)));
        assert_eq!(date_of("It shipped in Dec 1999."), Some((1999, 12, 0)));
        assert_eq!(date_of("The firm was founded in 1887."), Some((1887, 0, 0)));
        assert_eq!(date_of("It costs 1999 dollars."), None);
        assert_eq!(date_of("You may see 2024 users."), None);
    }

    #[test]
    fn a_transform_needs_a_known_type_and_a_captured_source() {
        let notebook = Notebook::open_in_memory().unwrap();
        let collection = notebook.create_collection("Empty", &[]).unwrap();
        notebook
            .add_sources(
                &collection.id,
                &[laika_shared::tools::NewSource::Url { url: "https://a.example/".into(), title: None }],
            )
            .unwrap();
        let err = run(&notebook, &collection.id, "briefing", None).unwrap_err();
        assert_eq!(err.code, NO_SOURCES);
        assert!(err.message.contains("1 waiting to be captured"), "{}", err.message);
        assert_eq!(run(&notebook, &collection.id, "poem", None).unwrap_err().code, UNKNOWN_TYPE);
        notebook
            .add_sources(
                &collection.id,
                &[laika_shared::tools::NewSource::Note {
                    title: Some("Minutes".into()),
                    text: "The board met on 3 May 2025 and chose a new chair for the year.".into(),
                }],
            )
            .unwrap();
        let note = run(&notebook, &collection.id, "timeline", None).unwrap();
        assert_eq!(note.state.title, "Timeline: Empty");
        assert!(note.state.body_markdown.contains("- **2025-05-03**: The board met"), "{}", note.state.body_markdown);
        assert_eq!(note.state.tags, ["transform", "timeline"]);
    }
}
