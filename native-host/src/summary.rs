//! The summary service: what a user reads after **Summarise** (or **Ask**), grounded by
//! construction, streamed as append-only text and stored before it is reported done.
//!
//! How one job flows:
//! 1. **Evidence first.** The page's key points, chosen deterministically
//!    ([`grounding::rank`]), each with its citation (a verbatim quote and the element it came
//!    from), are on screen at once, before any model output. For a question, the passages that
//!    match it ([`grounding::retrieve`], BM25 over the whole page, comments included) are quoted
//!    instead; when nothing on the page matches, the job says so plainly.
//! 2. **The model adds what a small model does well**: one question at a time, in plain text for
//!    small models ([`prompt::plain_prompt`]) — a gist of the whole page, one line per part of a
//!    long page, or the answer to the question. Generation stops at loops, garbage and echoes of
//!    the request ([`grounding::guard`]).
//! 3. **The gate.** Each model sentence is shown only when the page supports it and it carries no
//!    number, name or address the page does not ([`grounding::support`]); its citation is the
//!    supporting sentence. When nothing passes, one stricter retry; then the key points stand
//!    alone and the job's notice says so.
//!
//! The page is read in parts (the first part of a long page is the first chunk document of the
//! request packet); coverage counts the characters of the parts read so far.

use crate::collection_read::{self, CollectionRead};
use crate::debuglog::DebugLog;
use crate::engine::extractive::GATES;
use crate::engine::{CopyBias, Engine, Exchange, GenerateRequest, OutputShape, Sampling, WarmPrefix};
use crate::history::History;
use crate::prompt::{self, SUMMARY_DOC_ID, TurnRef};
use laika_shared::grounding::{self, PageIndex, Sentence, Voice, shorten};
use laika_shared::markdown::markdown_to_doc;
use laika_shared::observation::Observation;
use laika_shared::packet;
use serde::Serialize;
use serde_json::{Value, json};
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A page up to this long is one part: its gist is all a model is asked.
pub const SHORT_PAGE_CHARS: usize = 3_000;
/// A long page has at most this many parts (one model line each).
pub const MAX_PARTS: usize = 8;
/// Page text a model is shown for the gist: the lead, as in the probe where SmolLM2-135M's
/// one-sentence answers were supported on 11 of 12 pages (shared/notes/quality-probe.md).
pub const GIST_CHARS: usize = 2_500;
/// Page text a model is shown for one part's line: the part's central passages.
pub const PART_PROMPT_CHARS: usize = 2_000;
/// The longest model sentence decoded under the sentence grammar: long enough for one claim,
/// short enough that a small model has no room to drift into embellishment.
const SENTENCE_CHARS: usize = 180;
/// Output tokens for one or two sentences.
const SENTENCE_TOKENS: usize = 90;
/// How much a small model's decoding favours the tokens of the passages it was shown (logits).
/// Tuned on the dev pages of `cargo xtask bench quality` (40 pages, SmolLM2-135M). Under the
/// word-count gate: pages with a model sentence shown 72.5 % at 0, 77.5 % at 1, 90 % at 2 and at
/// 3. Under the restatement check (`grounding/align.rs`), which wants the page's own words in the
/// page's order: 47.5 % at 2 (two runs), 70 % at 4 but with stitched copies ("Yoga & Pilates &
/// Yoga", "also also"), 67.5 % at 3 with those refused as stutters (57.5 % once a sentence read
/// again out of order is refused too); 3 kept.
const COPY_BIAS: f32 = 3.0;
/// Characters of a collection's sources a request packs per token of the engine's context (English
/// runs about four characters a token; three leaves room for the envelope and the instructions).
const COLLECTION_CHARS_PER_TOKEN: usize = 3;
/// Page text the stricter retry shows: one passage.
const RETRY_CHARS: usize = 700;
/// Key points a model is asked to shorten, one at a time, before the key points stand alone.
const SHORTEN_TRIES: usize = 5;
/// The page's first prose sentences (its lead, where news and reference pages state their point,
/// within its first [`GIST_CHARS`], naming what its title names) whose shorter forms join the key
/// points' in the model's choice of the main point. On readability's nytimes-3 the key points
/// offer one sound form; the lead's first sentence adds "A series of recent manhole fires in the
/// heart of Manhattan forced the evacuation of several theaters." (`cargo xtask bench quality`'s
/// pages, listed with a scratch example).
const MAIN_POINT_LEAD_SENTENCES: usize = 3;
/// A key point or quote is shown up to this many characters.
const QUOTE_CHARS: usize = 300;
/// A question is answered from this many of the passages that match it best.
const ANSWER_PASSAGES: usize = 3;
/// Page sentences shown as an answer's evidence, before the model's answer.
const EVIDENCE_SENTENCES: usize = 2;
/// A question whose content words the page holds less than this share of is not answered by
/// it (the question's own subject is missing).
const QUESTION_COVERAGE_MIN: f64 = 0.5;

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Coverage {
    pub chars_read: usize,
    pub chars_total: usize,
    pub ratio: f64,
}

/// What the gate did with the model's sentences in one job.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct GroundingCounts {
    pub key_points: usize,
    pub model_sentences_shown: usize,
    pub model_sentences_dropped: usize,
    /// Stricter retries after an attempt whose sentences all failed the gate.
    pub retries: usize,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct JobState {
    /// The streamed text so far; only ever appended to.
    pub text: String,
    pub done: bool,
    pub cancelled: bool,
    pub error: Option<Value>,
    pub coverage: Coverage,
    pub chunks_done: usize,
    pub chunks_total: usize,
    pub first_text_ms: Option<f64>,
    pub grounding: GroundingCounts,
    /// Said to the user beside the summary: why only the page's own points are shown, or that
    /// the page does not answer the question.
    pub notice: Option<String>,
    /// On success: `{request_id, response}` with the laika.llmcp response packet.
    pub result: Option<Value>,
}

impl JobState {
    /// The citations of the finished response (none before it is finished, or after a failure).
    pub fn citations(&self) -> Vec<Value> {
        self.result
            .as_ref()
            .and_then(|r| r.pointer("/response/assistant/citations"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }
}

pub struct SummaryJob {
    pub id: String,
    pub turn: TurnRef,
    pub state: Mutex<JobState>,
    pub cancel: CancellationToken,
    pub started: Instant,
}

impl SummaryJob {
    pub fn new(turn: TurnRef) -> Arc<SummaryJob> {
        Arc::new(SummaryJob {
            id: prompt::new_id(),
            turn,
            state: Mutex::new(JobState::default()),
            cancel: CancellationToken::new(),
            started: Instant::now(),
        })
    }

    /// Whether the job has finished, without copying its text (the daemon asks every second).
    pub fn is_done(&self) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).done
    }

    pub fn snapshot(&self) -> JobState {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn update(&self, f: impl FnOnce(&mut JobState)) {
        f(&mut self.state.lock().unwrap_or_else(|e| e.into_inner()));
    }

    fn append(&self, text: &str) {
        let elapsed = self.started.elapsed();
        self.update(|s| {
            if !text.is_empty() && s.first_text_ms.is_none() {
                s.first_text_ms = Some(elapsed.as_secs_f64() * 1000.0);
            }
            s.text.push_str(text);
        });
    }
}

/// Splits `text` into chunk ranges: the first about `first` characters, the rest about `rest`,
/// cut at a line end (or else a space) so no sentence is split when it can be helped. The ranges
/// tile the text exactly.
pub fn chunk_ranges(text: &str, first: usize, rest: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let want = if out.is_empty() { first } else { rest };
        let mut end = byte_at_chars(text, start, want);
        if end < text.len() {
            let window = &text[start..end];
            let floor = window.len() / 2;
            if let Some(cut) = window.rfind('\n').filter(|&i| i > floor) {
                end = start + cut + 1;
            } else if let Some(cut) = window.rfind(' ').filter(|&i| i > floor) {
                end = start + cut + 1;
            }
        }
        out.push(start..end);
        start = end;
    }
    out
}

fn byte_at_chars(text: &str, start: usize, chars: usize) -> usize {
    text[start..].char_indices().nth(chars).map_or(text.len(), |(i, _)| start + i)
}

/// The parts a page is read in: one for a short page; else parts of at least the engine's
/// window (at about three characters a token, less the prompt and output) and at most
/// [`MAX_PARTS`] of them.
pub fn part_ranges(text: &str, context_tokens: usize) -> Vec<Range<usize>> {
    let total = text.chars().count();
    if total <= SHORT_PAGE_CHARS {
        return chunk_ranges(text, SHORT_PAGE_CHARS, SHORT_PAGE_CHARS);
    }
    let window = (context_tokens.saturating_sub(600) * 3).clamp(SHORT_PAGE_CHARS, 12_000);
    let size = window.max(total.div_ceil(MAX_PARTS) + 1);
    let mut ranges = chunk_ranges(text, size, size);
    // Cuts at line ends make parts a little shorter than `size`: the remainder joins the last.
    while ranges.len() > MAX_PARTS {
        let tail = ranges.pop().map_or(0, |r| r.end);
        if let Some(last) = ranges.last_mut() {
            last.end = tail;
        }
    }
    ranges
}

pub struct SummaryInput {
    pub observation: Observation,
    pub user_text: String,
    /// A question (web.answer) instead of a summary.
    pub question: Option<String>,
    /// Set when `observation` is a collection's sources joined (a question asked across them):
    /// each citation is traced to its source, and the request packs the collection's documents.
    pub collection: Option<Arc<CollectionRead>>,
}

pub struct SummaryDeps {
    pub engine: Arc<dyn Engine>,
    pub history: Option<Arc<History>>,
    pub debug: Arc<DebugLog>,
    pub sampling: Sampling,
    /// Hold model sentences to plain sentences by constrained decoding where the engine can.
    pub constrain: bool,
}

/// Runs a job to the end (done, cancelled or failed); the state says which.
pub async fn run(job: Arc<SummaryJob>, input: SummaryInput, deps: SummaryDeps) {
    match summarize(&job, &input, &deps).await {
        Ok(result) => job.update(|s| {
            s.result = Some(result);
            s.done = true;
        }),
        Err((code, message)) => job.update(|s| {
            s.error = Some(json!({ "code": code, "message": message }));
            s.done = true;
        }),
    }
}

type Failure = (&'static str, String);

/// One citation of the answer being written: `[n]` in the text is the n-th.
struct Cited {
    quote: String,
    /// Byte offset of the quoted sentence in the page corpus.
    offset: usize,
    handle_id: Option<String>,
}

/// The state one job writes through: the page index, the citations so far, the counts.
struct Writer<'a> {
    job: &'a SummaryJob,
    observation: &'a Observation,
    index: PageIndex,
    cited: Vec<Cited>,
    /// The model's lines shown so far, each with its `[n]`: a later line saying the same is not
    /// shown again.
    said: Vec<String>,
}

impl Writer<'_> {
    /// The citation number a page sentence has already, if it is cited.
    fn citation(&self, sentence: &Sentence) -> Option<usize> {
        self.cited.iter().position(|c| c.offset == sentence.offset).map(|at| at + 1)
    }

    /// The citation number of a page sentence (a sentence cited twice keeps its number).
    fn cite(&mut self, sentence: &Sentence) -> usize {
        if let Some(n) = self.citation(sentence) {
            return n;
        }
        let quote = shorten(&sentence.text, QUOTE_CHARS);
        let handle_id = grounding::handle_for(&quote, self.observation);
        self.cited.push(Cited { quote, offset: sentence.offset, handle_id });
        self.cited.len()
    }

    /// A page sentence as shown: `sentence [n]`.
    fn quoted(&mut self, sentence: &Sentence) -> String {
        let n = self.cite(sentence);
        format!("{} [{n}]", grounding::text::as_shown(&shorten(&sentence.text, QUOTE_CHARS)))
    }

    /// A page sentence as a cited line: `- sentence [n]`.
    fn point(&mut self, sentence: &Sentence) -> String {
        format!("- {}\n", self.quoted(sentence))
    }

    fn count(&self, f: impl FnOnce(&mut GroundingCounts)) {
        self.job.update(|s| f(&mut s.grounding));
    }
}

/// The note for a page that shows only part of itself (a paywall, a sign-in wall…).
fn gate_note(observation: &Observation) -> Option<String> {
    let signals: Vec<String> = observation
        .signals
        .iter()
        .filter_map(|s| serde_json::to_value(s).ok().and_then(|v| v.as_str().map(String::from)))
        .collect();
    let gates: Vec<&str> =
        GATES.iter().filter(|(s, _)| signals.iter().any(|x| x == s)).map(|(_, label)| *label).collect();
    (!gates.is_empty()).then(|| format!("Only part of this page is visible: it shows {}.", gates.join(" and ")))
}

async fn summarize(job: &SummaryJob, input: &SummaryInput, deps: &SummaryDeps) -> Result<Value, Failure> {
    let observation = &input.observation;
    let text = observation.text.as_str();
    let total_chars = text.chars().count();
    let ranges = part_ranges(text, deps.engine.context_tokens());
    job.update(|s| {
        s.chunks_total = ranges.len();
        s.coverage =
            Coverage { chars_read: 0, chars_total: total_chars, ratio: if total_chars == 0 { 1.0 } else { 0.0 } };
    });
    let mut writer = Writer {
        job,
        observation,
        index: PageIndex::with_title(&grounding::page_corpus(observation), &observation.title),
        cited: Vec::new(),
        said: Vec::new(),
    };
    if let Some(note) = gate_note(observation) {
        add_notice(job, &note);
    }
    // "Summarise this page" asked as a question is a summary.
    let question = input
        .question
        .as_deref()
        .filter(|q| !grounding::content_words(q).is_empty() && !laika_shared::goal::is_summary_request(q));
    match question {
        Some(question) => answer(&mut writer, input, deps, question, &ranges).await?,
        None => summary(&mut writer, input, deps, &ranges).await?,
    }
    // Across a collection: which source each citation quotes.
    if let Some(read) = &input.collection {
        let offsets: Vec<usize> = writer.cited.iter().map(|c| c.offset).collect();
        if let Some(line) = read.attribution(&offsets) {
            job.append(&format!("\n{line}\n"));
        }
    }
    let cancelled = job.cancel.is_cancelled();
    job.update(|s| s.cancelled = cancelled);
    finish(&writer, input, deps, &ranges).map_err(|e| ("SUMMARY_INVALID_RESPONSE", e))
}

/// Adds a sentence to the job's notice (what the user is told beside the summary).
fn add_notice(job: &SummaryJob, sentence: &str) {
    job.update(|s| match &mut s.notice {
        Some(notice) => {
            notice.push(' ');
            notice.push_str(sentence);
        }
        None => s.notice = Some(sentence.to_string()),
    });
}

fn read_part(job: &SummaryJob, index: usize, chars: usize) {
    job.update(|s| {
        s.chunks_done = index + 1;
        s.coverage.chars_read = (s.coverage.chars_read + chars).min(s.coverage.chars_total);
        s.coverage.ratio = if s.coverage.chars_total == 0 {
            1.0
        } else {
            s.coverage.chars_read as f64 / s.coverage.chars_total as f64
        };
    });
}

async fn summary(
    writer: &mut Writer<'_>,
    input: &SummaryInput,
    deps: &SummaryDeps,
    ranges: &[Range<usize>],
) -> Result<(), Failure> {
    let job = writer.job;
    let observation = &input.observation;
    let text = observation.text.as_str();
    // 1. The key points, each cited, before any model output.
    let sentences: Vec<Sentence> = grounding::sentences(text);
    let mut points = grounding::key_points(&sentences, &observation.title, grounding::point_count(sentences.len()));
    if points.is_empty() {
        points = grounding::short_points(&sentences, 3);
    }
    let mut lines = String::new();
    for &i in &points {
        lines.push_str(&writer.point(&sentences[i]));
    }
    if points.is_empty() {
        lines.push_str("The visible page has no text to summarize.\n");
    }
    job.append(&lines);
    writer.count(|c| c.key_points = points.len());
    // The gate checks a model's sentences with English word lists: on a page in another language
    // it cannot, so the model is not asked and the key points stand alone.
    let is_model = deps.engine.is_model() && model_may_write(job, text);

    // 2. The gist of the whole page (a model's; the extractive engine's key points are all it has).
    if is_model && !points.is_empty() && !job.cancel.is_cancelled() {
        let lead: String = text.chars().take(GIST_CHARS).collect();
        let passages: Vec<String> = grounding::passages(&lead).into_iter().map(|p| p.text).collect();
        // Two questions, one sentence each: a second sentence only when it says something the
        // first did not (its citation and most of its words differ).
        let mut gist: Vec<String> = Vec::new();
        let questions: Vec<&str> = page_kind_question(observation)
            .into_iter()
            .chain([prompt::GIST_QUESTION, prompt::GIST_QUESTION_2])
            .collect();
        for question in questions {
            if gist.len() >= 2 || job.cancel.is_cancelled() {
                break;
            }
            // A sentence saying what the first did is refused as repeated.
            gist.extend(ask(writer, deps, &observation.title, &passages, question, 1, Asked::Summary).await?);
        }
        // Asked only while no gist sentence has passed: the plain summary request over the key
        // points alone. Three or four sentences are what SmolLM2-135M restates without drifting
        // (5 of the 11 dev pages where nothing passed over the lead got a supported gist this
        // way).
        if gist.is_empty() && !job.cancel.is_cancelled() {
            let point_passages: Vec<String> = points.iter().map(|&i| sentences[i].text.clone()).collect();
            gist = ask(writer, deps, &observation.title, &point_passages, prompt::GIST_QUESTION_3, 1, Asked::Summary)
                .await?;
        }
        // Last, the page's most central sentences one at a time, each to be said in fewer words,
        // until one is (ranked again only when the page gets that far).
        let shortenings =
            if gist.is_empty() { shortening_order(&sentences, &points, &observation.title) } else { vec![] };
        for (i, forms) in &shortenings {
            if !gist.is_empty() || job.cancel.is_cancelled() {
                break;
            }
            let source = sentences[*i].text.as_str();
            let read = [source.to_string()];
            let asked = Asked::Shorter { source, forms };
            gist = ask(writer, deps, &observation.title, &read, prompt::SHORTEN_QUESTION, 1, asked).await?;
        }
        // Last of all, the page's main point as the model chooses it among the shorter forms of
        // the key points not yet tried, when they offer more than one.
        if gist.is_empty() && !job.cancel.is_cancelled() {
            let tried: Vec<usize> = shortenings.iter().map(|(i, _)| *i).collect();
            gist = main_point(writer, deps, &observation.title, &sentences, &points, &tried).await?;
        }
        if !gist.is_empty() {
            job.append(&format!("\nIn short: {}\n", gist.join(" ")));
        }
    }
    if ranges.len() == 1 {
        read_part(job, 0, text.chars().count());
    } else {
        // 3. One line per part of a long page.
        let mut header = false;
        for (i, range) in ranges.iter().enumerate() {
            if job.cancel.is_cancelled() {
                break;
            }
            let part = &text[range.clone()];
            let part_sentences: Vec<Sentence> =
                sentences.iter().filter(|s| range.contains(&s.offset)).cloned().collect();
            let label = part_label(&sentences, range, i);
            let line = if is_model {
                let passages = central_passages(part, &part_sentences, range.start, &observation.title);
                let mut line =
                    ask(writer, deps, &observation.title, &passages, prompt::PART_QUESTION, 1, Asked::Summary).await?;
                // As for the gist: when the model's own line does not pass, its choice of the
                // part's main point among the part's key points' shorter forms.
                if line.is_empty() && !job.cancel.is_cancelled() {
                    let points = grounding::key_points(
                        &part_sentences,
                        &observation.title,
                        grounding::point_count(part_sentences.len()),
                    );
                    line = main_point(writer, deps, &observation.title, &part_sentences, &points, &[]).await?;
                }
                line.join(" ")
            } else {
                grounding::key_points(&part_sentences, &observation.title, 1)
                    .first()
                    .filter(|&&p| !writer.cited.iter().any(|c| c.offset == part_sentences[p].offset))
                    .map(|&p| writer.quoted(&part_sentences[p]))
                    .unwrap_or_default()
            };
            if !line.is_empty() {
                if !header {
                    job.append("\nPart by part:\n");
                    header = true;
                }
                job.append(&format!("- {label}: {line}\n"));
            }
            read_part(job, i, part.chars().count());
        }
    }
    let counts = job.snapshot().grounding;
    if is_model && counts.model_sentences_shown == 0 && !job.cancel.is_cancelled() {
        add_notice(
            job,
            "The model's sentences were not supported by the page, so only the page's own key points are shown.",
        );
    }
    Ok(())
}

/// Whether a model's sentences about `text` can be checked: the page reads as English (the
/// gate's word lists are English). Otherwise the notice says why no model sentence is shown.
fn model_may_write(job: &SummaryJob, text: &str) -> bool {
    let english = grounding::reads_as_english(text);
    if !english {
        add_notice(
            job,
            "This page does not seem to be in English: Laika checks a model's sentences against the page in English only, so only the page's own sentences are shown.",
        );
    }
    english
}

/// Words on a page's buttons that make it a product page.
const PRODUCT_BUTTONS: &[&str] = &["add to cart", "add to bag", "add to basket", "buy now", "add to trolley"];

/// The first gist question for a discussion (a page with comments) or a product page.
fn page_kind_question(observation: &Observation) -> Option<&'static str> {
    if observation.comments.len() >= 2 {
        return Some(prompt::FORUM_QUESTION);
    }
    let product = observation.elements.iter().any(|e| {
        let label = e.text.to_lowercase();
        PRODUCT_BUTTONS.iter().any(|b| label.contains(b))
    });
    product.then_some(prompt::PRODUCT_QUESTION)
}

/// Whether two shown sentences (each ending in its `[n]` marker) say the same: the same
/// citation, or more than half of their content words shared.
fn same_claim(a: &str, b: &str) -> bool {
    let marker = |s: &str| s.rsplit_once(" [").map(|(_, m)| m.to_string());
    if marker(a).is_some() && marker(a) == marker(b) {
        return true;
    }
    let words = |s: &str| grounding::content_words(s).into_iter().collect::<std::collections::HashSet<_>>();
    let (x, y) = (words(a), words(b));
    x.intersection(&y).count() * 2 > x.len().min(y.len())
}

/// The key points a model is asked to shorten, one at a time: the page's most central sentence
/// first, then the other points shown, in page order; only those a shortening of which the gate
/// could show ([`grounding::shortenable`]), at most [`SHORTEN_TRIES`]. Only key points: a shorter
/// sentence from further down the ranking is no gist ("In short: If you have any questions,
/// please call that out for support." on a dev forum page, when the ten best were tried). Each
/// comes with the shorter forms the model is to choose among.
fn shortening_order(sentences: &[Sentence], points: &[usize], title: &str) -> Vec<(usize, Vec<String>)> {
    let mut order: Vec<(usize, Vec<String>)> = central_first(sentences, points, title)
        .into_iter()
        .filter_map(|i| grounding::shortening_choice(&sentences[i].text).map(|forms| (i, forms)))
        .collect();
    // Laika's own line before a quotation: a first-person sentence is tried only after the
    // others (stable, so each group keeps its order).
    order.sort_by_key(|(i, _)| grounding::voice(&sentences[*i].text) == Voice::Author);
    order.truncate(SHORTEN_TRIES);
    order
}

/// The key `points` of `sentences`, the most central sentence first (a key point or not), then
/// the others in their order, each once: the order a model is asked to shorten them in.
fn central_first(sentences: &[Sentence], points: &[usize], title: &str) -> Vec<usize> {
    let mut order: Vec<usize> = Vec::new();
    for i in grounding::key_points(sentences, title, 1).into_iter().chain(points.iter().copied()) {
        if !order.contains(&i) {
            order.push(i);
        }
    }
    order
}

/// The model's choice of the main point of `sentences` (a page, or a part of one) among the
/// shorter forms of its key `points` not `tried` and of its lead ([`main_point_choices`]), read
/// whole: nothing when they offer fewer than two.
async fn main_point(
    writer: &mut Writer<'_>,
    deps: &SummaryDeps,
    title: &str,
    sentences: &[Sentence],
    points: &[usize],
    tried: &[usize],
) -> Result<Vec<String>, Failure> {
    let choices = main_point_choices(&writer.index, sentences, points, title, tried);
    if choices.len() < grounding::words::SHORTENABLE_MIN_FORMS {
        return Ok(Vec::new());
    }
    let mut read: Vec<usize> = choices.iter().map(|c| c.1).collect();
    read.sort_unstable();
    read.dedup();
    let read: Vec<String> = read.into_iter().map(|i| sentences[i].text.clone()).collect();
    let choices: Vec<(String, &str)> =
        choices.into_iter().map(|(form, i)| (form, sentences[i].text.as_str())).collect();
    ask(writer, deps, title, &read, prompt::MAIN_POINT_QUESTION, 1, Asked::MainPoint { choices: &choices }).await
}

/// What a model chooses the page's main point among when no key point it was asked to shorten
/// gave a gist: the shorter forms ([`grounding::shorter_forms`]) of the key points not `tried`
/// (the most central first, then in page order), then of the lead's sentences
/// ([`MAIN_POINT_LEAD_SENTENCES`]), each with the index of its sentence, and only those the gate
/// would show ([`sound_form`]): a choice the gate refuses is no choice. Most of these sentences
/// have one shorter form each, which alone would be the rule's choice, not the model's; among
/// several sentences' forms, which one is the page's point is the model's judgement (wcxb-4833:
/// "The Oral-B iO Series 5 toothbrush is an excellent choice for sensitive teeth." against a
/// sentence about timers).
fn main_point_choices(
    index: &PageIndex,
    sentences: &[Sentence],
    points: &[usize],
    title: &str,
    tried: &[usize],
) -> Vec<(String, usize)> {
    // The lead is where the page (or part) begins, within the text a gist is asked over, and it
    // speaks of what the title names: wcxb-0226's "Our technicians complete many hours of
    // extensive in-house training." opens no pricing guide's point.
    let begins = sentences.first().map_or(0, |s| s.offset);
    let named = grounding::content_words(title);
    let lead = sentences
        .iter()
        .enumerate()
        .take_while(|(_, s)| s.offset < begins + GIST_CHARS)
        .filter(|(_, s)| !s.heading && grounding::text::reads_as_prose(&s.text))
        .filter(|(_, s)| grounding::content_words(&s.text).iter().any(|w| named.contains(w)))
        .map(|(i, _)| i)
        .take(MAIN_POINT_LEAD_SENTENCES);
    let mut order: Vec<usize> = Vec::new();
    for i in central_first(sentences, points, title).into_iter().chain(lead) {
        if !tried.contains(&i) && !order.contains(&i) {
            order.push(i);
        }
    }
    // The first forms in that order, each checked only until there are enough.
    let mut choices: Vec<(String, usize)> = Vec::new();
    for i in order {
        let source = sentences[i].text.as_str();
        for form in grounding::shorter_forms(source) {
            if choices.len() == grounding::words::SHORTENING_MAX_FORMS {
                return choices;
            }
            if !choices.iter().any(|(f, _)| *f == form) && sound_form(index, &form, source) {
                choices.push((form, i));
            }
        }
    }
    choices
}

/// Whether a shorter form of `source` would be shown if the model chose it: whole through the
/// gate in its sentence's voice, and what a shortening must do besides ([`shortening_fits`]).
fn sound_form(index: &PageIndex, form: &str, source: &str) -> bool {
    index.check_or_trim_as(form, true, grounding::voice(source)).is_ok_and(|(text, _)| text == form)
        && shortening_fits(form, source).is_ok()
}

/// What a shortening (a line asked to say `source` in fewer words) must do beyond the gate: name
/// what it is about, as any summary line, and say its sentence in fewer words.
fn shortening_fits(line: &str, source: &str) -> Result<(), grounding::Rejection> {
    grounding::anchored(line).and_then(|()| grounding::shortens(line, source))
}

/// A part's name: its first heading, else the last heading before it, else its number. A
/// heading without a word ("6.") names nothing; the colon the line adds is not doubled.
fn part_label(sentences: &[Sentence], range: &Range<usize>, index: usize) -> String {
    let named = |s: &&Sentence| s.heading && s.text.chars().filter(|c| c.is_alphabetic()).count() >= 2;
    sentences
        .iter()
        .find(|s| named(s) && range.contains(&s.offset))
        .or_else(|| sentences.iter().rev().find(|s| named(s) && s.offset < range.start))
        .map(|s| shorten(s.text.trim_end_matches([':', ' ']), 60))
        .unwrap_or_else(|| format!("Part {}", index + 1))
}

/// The passages of a part a model is shown for its line: the first, and those holding the
/// part's key points, in page order, within [`PART_PROMPT_CHARS`].
fn central_passages(part: &str, sentences: &[Sentence], part_start: usize, title: &str) -> Vec<String> {
    let passages = grounding::passages(part);
    let points: Vec<usize> =
        grounding::key_points(sentences, title, 4).into_iter().map(|i| sentences[i].offset - part_start).collect();
    let holds_point = |p: &grounding::Passage| points.iter().any(|&o| (p.offset..p.offset + p.text.len()).contains(&o));
    let mut order: Vec<usize> = (0..passages.len()).collect();
    order.sort_by_key(|&i| (i != 0 && !holds_point(&passages[i]), i));
    let mut chosen = Vec::new();
    let mut used = 0;
    for i in order {
        let len = passages[i].text.chars().count();
        if used > 0 && used + len > PART_PROMPT_CHARS {
            continue;
        }
        used += len;
        chosen.push(i);
    }
    chosen.sort_unstable();
    chosen.into_iter().map(|i| shorten(&passages[i].text, PART_PROMPT_CHARS)).collect()
}

async fn answer(
    writer: &mut Writer<'_>,
    input: &SummaryInput,
    deps: &SummaryDeps,
    question: &str,
    ranges: &[Range<usize>],
) -> Result<(), Failure> {
    let job = writer.job;
    let corpus = writer.index.text().to_string();
    let passages = grounding::passages(&corpus);
    let bm25 = grounding::Bm25::new(&passages);
    let ranked = bm25.rank(question);
    for (i, range) in ranges.iter().enumerate() {
        read_part(job, i, input.observation.text[range.clone()].chars().count());
    }
    if ranked.is_empty() || bm25.query_coverage(question) < QUESTION_COVERAGE_MIN {
        if input.collection.is_some() {
            job.append("The sources do not seem to answer this question.\n");
            add_notice(job, "Nothing in this collection's sources matches the question.");
        } else {
            job.append("The page does not seem to answer this question.\n");
            add_notice(job, "Nothing on this page matches the question.");
        }
        return Ok(());
    }
    let mut top: Vec<usize> = ranked.iter().take(ANSWER_PASSAGES).map(|&(i, _)| i).collect();
    // The evidence: the sentences of the best passages closest to the question (the rarer the
    // words they share with it, the closer; more so when they hold what it asks for).
    let mut lines = String::new();
    let all = writer.index.sentences();
    let evidence: Vec<Sentence> = grounding::evidence(&bm25, &passages, &top, all, question, EVIDENCE_SENTENCES)
        .into_iter()
        .map(|i| all[i].clone())
        .collect();
    for sentence in &evidence {
        lines.push_str(&writer.point(sentence));
    }
    top.sort_unstable();
    if !lines.is_empty() {
        let from = if input.collection.is_some() { "From the sources" } else { "From the page" };
        job.append(&format!("{from}:\n{lines}"));
    }
    writer.count(|c| c.key_points = writer.cited.len());
    if deps.engine.is_model() && model_may_write(job, &corpus) && !job.cancel.is_cancelled() {
        let texts: Vec<String> = top.iter().map(|&i| passages[i].text.clone()).collect();
        let shown = ask(
            writer,
            deps,
            &input.observation.title,
            &texts,
            &prompt::answer_question(question),
            2,
            Asked::Answer(&grounding::text::question_focus(question)),
        )
        .await?;
        if shown.is_empty() {
            add_notice(
                job,
                "The model's answer was not supported by the page, so only the matching passages are shown.",
            );
        } else {
            job.append(&format!("\nAnswer: {}\n", shown.join(" ")));
        }
    }
    Ok(())
}

/// Asks the model one question about `passages` and returns the sentences that passed the gate,
/// each ending in its citation marker. Generation stops at the guard's first trip; when no
/// sentence passes, one retry with a stricter setting (less text, stronger repetition penalties).
/// What was asked decides what else a sentence must do to be shown ([`Asked`]).
async fn ask(
    writer: &mut Writer<'_>,
    deps: &SummaryDeps,
    title: &str,
    passages: &[String],
    instruction: &str,
    max_sentences: usize,
    asked: Asked<'_>,
) -> Result<Vec<String>, Failure> {
    let job = writer.job;
    for attempt in 0..2 {
        if job.cancel.is_cancelled() {
            break;
        }
        // The retry reads only the first passage (at most RETRY_CHARS): one paragraph is what a
        // small model restates most faithfully.
        let first: String;
        let shown_passages: Vec<&str> = match attempt {
            0 => passages.iter().map(String::as_str).collect(),
            _ => {
                first = shorten(passages.first().map_or("", String::as_str), RETRY_CHARS);
                vec![first.as_str()]
            }
        };
        let (system, examples, user) = render(deps.engine.small(), title, &shown_passages, instruction, asked);
        // Greedy: the most likely sentence is the one most often supported (the probe's 11 of
        // 12); the retry adds stronger repetition penalties.
        let sampling = match attempt {
            0 => Sampling { seed: deps.sampling.seed, ..Sampling::greedy() },
            _ => Sampling { frequency_penalty: 0.6, presence_penalty: 0.3, dry_multiplier: 1.0, ..Sampling::greedy() },
        };
        // A shortening is one of its sentence's shorter forms.
        let shape = match asked {
            _ if !deps.constrain => OutputShape::Markdown,
            Asked::Shorter { forms, .. } => OutputShape::OneOf(forms.to_vec()),
            Asked::MainPoint { choices } => OutputShape::OneOf(choices.iter().map(|(form, _)| form.clone()).collect()),
            _ => OutputShape::Sentences { max_chars: SENTENCE_CHARS },
        };
        let generate = GenerateRequest {
            system: system.to_string(),
            examples,
            user: user.clone(),
            max_tokens: SENTENCE_TOKENS * max_sentences,
            sampling,
            shape,
            copy_bias: deps.engine.small().then(|| CopyBias {
                text: std::iter::once(title).chain(shown_passages.iter().copied()).collect::<Vec<_>>().join("\n"),
                logit: COPY_BIAS,
            }),
        };
        // What the request asks of a sentence beyond the gate.
        let fits_request =
            |index: &PageIndex, text: String, support: grounding::Support, source: Option<&str>| match asked {
                // A summary line is read on its own: it must name what it is about.
                Asked::Summary => grounding::anchored(&text).map(|()| (text, support)),
                // An answer keeps only the clauses that answer the question (a shorter head is
                // checked again on its own).
                Asked::Answer(focus) => match grounding::text::answering_head(&text, focus) {
                    None => Err(grounding::Rejection::OffQuestion),
                    Some(head) if head == text => Ok((text, support)),
                    Some(head) => index.check(&head).map(|support| (head, support)),
                },
                // A shortening is a summary line that says its sentence in fewer words.
                Asked::Shorter { .. } | Asked::MainPoint { .. } => {
                    shortening_fits(&text, source.unwrap_or_default()).map(|()| (text, support))
                }
            };
        let mut guard = grounding::LoopGuard::new(writer.index.lower());
        let stop = job.cancel.child_token();
        let mut sink = |piece: &str| {
            if guard.push(piece) {
                stop.cancel();
            }
        };
        let result = deps.engine.generate(generate, &mut sink, &stop).await;
        log_call(deps, system, &user, &result);
        let generation = result.map_err(|e| (e.code, e.message))?;
        // Citation markers the model wrote out of habit go before its text is cut into
        // sentences: "… display moment. [1] I still remember …" is two sentences, not one
        // refused whole for the second's "I" (SmolLM2-135M on readability's theverge).
        let clean = grounding::strip_markers(guard.clean_text());
        let sentences = grounding::sentences(&clean);
        let mut shown: Vec<String> = Vec::new();
        let mut dropped = 0;
        // A shortening is its first sentence: what a small model writes after it is drift (a
        // second try at the same sentence, with other words).
        let read = if matches!(asked, Asked::Shorter { .. } | Asked::MainPoint { .. }) { 1 } else { max_sentences + 2 };
        for (i, sentence) in sentences.iter().enumerate().take(read) {
            let claim = grounding::clean_claim(&sentence.text);
            // The sentence a shortening says in fewer words. A shortening of a sentence its author
            // wrote as "I" is shown as their words, quoted; everything else is Laika's own line.
            let source = asked.shortened(&claim);
            let voice = source.map_or(Voice::Laika, grounding::voice);
            // The last sentence is complete only when it ended on its own, with a full stop.
            let complete = i + 1 < sentences.len()
                || (generation.finish_reason == "stop" && guard.trip().is_none() && claim.ends_with(['.', '!', '?']));
            let verdict = writer
                .index
                .check_or_trim_as(&claim, complete, voice)
                .and_then(|(text, support)| fits_request(&writer.index, text, support, source))
                .and_then(|(text, support)| {
                    // Its line as it would be shown (its `[n]` when its sentence is cited already).
                    let line = match writer.citation(&support.sentence) {
                        Some(n) => format!("{text} [{n}]"),
                        None => text.clone(),
                    };
                    // A summary line that is a sentence already quoted, nearly word for word,
                    // tells the reader nothing new ("In short: Hermitian matrices can be
                    // understood as complex extension of real symmetric matrices. [1]" under
                    // key point [1], SmolLM2-135M on readability's wikipedia-3).
                    let quoted_again = matches!(asked, Asked::Summary)
                        && writer.citation(&support.sentence).is_some()
                        && grounding::text::word_for_word(&text, &support.sentence.text);
                    if quoted_again || writer.said.iter().any(|said| same_claim(said, &line)) {
                        Err(grounding::Rejection::Repeated)
                    } else {
                        Ok((text, support))
                    }
                });
            if deps.debug.enabled() {
                let mut event = json!({ "sentence": claim, "verdict": verdict.as_ref().map(|(shown, s)| json!({ "shown": shown, "support": s.support })).map_err(|r| r.clone()) });
                // The page sentences the claim was aligned to are page text: logged only when
                // full prompts may be.
                if deps.debug.full() {
                    let alignment = writer.index.align(&claim);
                    event["alignment"] = json!({
                        "runs": alignment.runs.iter().map(|r| json!({ "words": r.words, "sentence": writer.index.run_text(r) })).collect::<Vec<_>>(),
                        "missing": alignment.missing,
                    });
                }
                deps.debug.event("grounding.verdict", event);
            }
            match verdict {
                Ok((text, support)) if shown.len() < max_sentences => {
                    let n = writer.cite(&support.sentence);
                    let text = match voice {
                        Voice::Laika => text.trim_end().to_string(),
                        Voice::Author => grounding::quote(&text),
                    };
                    let line = format!("{text} [{n}]");
                    writer.said.push(line.clone());
                    shown.push(line);
                }
                Ok(_) => {}
                Err(_) => dropped += 1,
            }
        }
        if let Some(trip) = guard.trip()
            && deps.debug.enabled()
        {
            deps.debug.event("grounding.guard", json!({ "trip": trip, "attempt": attempt }));
        }
        let shown_count = shown.len();
        writer.count(|c| {
            c.model_sentences_shown += shown_count;
            c.model_sentences_dropped += dropped;
            c.retries += attempt;
        });
        if !shown.is_empty() {
            return Ok(shown);
        }
    }
    Ok(Vec::new())
}

/// What a model question asks for, and so what a sentence must do beyond the gate to be shown.
#[derive(Clone, Copy)]
enum Asked<'a> {
    /// A summary line: read on its own, it must name what it is about.
    Summary,
    /// An answer to a question with these content words: a sentence sharing none of them is
    /// true of the page, but no answer to what was asked.
    Answer(&'a std::collections::HashSet<String>),
    /// This page sentence (`source`) in fewer words, as one of its shorter `forms`: one that
    /// keeps nearly all of them is the key point again, not a gist.
    Shorter { source: &'a str, forms: &'a [String] },
    /// The page's main point, as one of these shorter forms of its key points (each with the
    /// sentence it shortens): a shortening of whichever sentence it says in fewer words.
    MainPoint { choices: &'a [(String, &'a str)] },
}

impl<'a> Asked<'a> {
    /// The page sentence a line of a shortening question says in fewer words: for a choice among
    /// several sentences' forms, the one the line is a form of, else the first the line
    /// shortens, else the first offered (whose check then says why the line is no shortening).
    /// None for a question that asks for no shortening.
    fn shortened(&self, line: &str) -> Option<&'a str> {
        match *self {
            Asked::Shorter { source, .. } => Some(source),
            Asked::MainPoint { choices } => choices
                .iter()
                .find(|(form, _)| form.trim() == line.trim())
                .or_else(|| choices.iter().find(|(_, source)| grounding::shortens(line, source).is_ok()))
                .or(choices.first())
                .map(|(_, source)| *source),
            Asked::Summary | Asked::Answer(_) => None,
        }
    }
}

/// The system prompt, worked examples and user turn of one model question: plain text for a
/// small model (a shortening is the sentence alone, after the examples), the request's `input` +
/// `context` as JSON for others.
fn render(
    small: bool,
    title: &str,
    passages: &[&str],
    instruction: &str,
    asked: Asked<'_>,
) -> (&'static str, &'static [Exchange], String) {
    if small {
        if let Asked::Shorter { source, .. } = asked {
            return (prompt::SHORTEN_SYSTEM, prompt::SHORTEN_EXAMPLES, source.trim().to_string());
        }
        return (prompt::PLAIN_SYSTEM, &[], prompt::plain_prompt(title, passages, instruction));
    }
    let text = passages.iter().enumerate().map(|(i, p)| format!("[{}] {p}", i + 1)).collect::<Vec<_>>().join("\n\n");
    let documents = vec![prompt::document(
        SUMMARY_DOC_ID,
        "web.observation.summary.v1",
        json!({ "doc_type": "web.observation.summary.v1", "url": "", "title": title, "text": text }),
    )];
    let turn = TurnRef { conversation_id: String::new(), turn: 1 };
    let request =
        prompt::request_packet(&turn, instruction, "web.answer", json!({ "question": instruction }), documents);
    (prompt::GIST_SYSTEM, &[], prompt::user_content(&request))
}

/// What every small-model request shows the model first: the plain system prompt and the
/// opening of the user turn. An engine with a prefix cache keeps it computed, so a request pays
/// only for what follows it.
pub fn shared_prompt_start() -> WarmPrefix {
    let a = prompt::plain_prompt("A", &["a"], prompt::GIST_QUESTION);
    let b = prompt::plain_prompt("B b", &["b"], prompt::PART_QUESTION);
    let shared =
        a.char_indices().zip(b.chars()).find(|((_, x), y)| x != y).map_or(a.len().min(b.len()), |((i, _), _)| i);
    WarmPrefix { system: prompt::PLAIN_SYSTEM.to_string(), user_start: a[..shared].to_string() }
}

fn log_call(
    deps: &SummaryDeps,
    system: &str,
    user: &str,
    result: &Result<crate::engine::Generation, crate::engine::EngineError>,
) {
    if !deps.debug.enabled() {
        return;
    }
    let prompt_field = if deps.debug.full() { json!(user) } else { json!({ "chars": user.chars().count() }) };
    match result {
        Ok(g) => deps.debug.event(
            "llm.generate",
            json!({ "model": deps.engine.model_id(), "system_chars": system.len(), "user": prompt_field, "output": g.text, "generation": g }),
        ),
        Err(e) => deps.debug.event("llm.error", json!({ "model": deps.engine.model_id(), "code": e.code, "message": e.message })),
    }
}

/// Builds the turn's request and response packets (the whole read: the summary document and every
/// chunk), checks them against the protocol, and stores them.
fn finish(
    writer: &Writer<'_>,
    input: &SummaryInput,
    deps: &SummaryDeps,
    ranges: &[Range<usize>],
) -> Result<Value, String> {
    let job = writer.job;
    let observation = &input.observation;
    let text = observation.text.as_str();
    let written = job.snapshot().text;
    let mut documents = match &input.collection {
        // The collection as the spec packs it, within what the engine reads at once.
        Some(read) => read.documents(deps.engine.context_tokens() * COLLECTION_CHARS_PER_TOKEN),
        None => vec![prompt::document(
            SUMMARY_DOC_ID,
            "web.observation.summary.v1",
            prompt::summary_content(observation, if ranges.len() == 1 { text } else { "" }, usize::MAX),
        )],
    };
    if ranges.len() > 1 && input.collection.is_none() {
        for (i, range) in ranges.iter().enumerate() {
            documents.push(prompt::document(
                &prompt::chunk_doc_id(i + 1),
                "web.observation.chunk.v1",
                prompt::chunk_content(observation, i + 1, ranges.len(), &text[range.clone()]),
            ));
        }
    }
    let task = if input.question.is_some() { "web.answer" } else { "web.summarize" };
    let request = prompt::request_packet(&job.turn, &input.user_text, task, json!({ "style": "concise" }), documents);
    let citations: Vec<Value> = writer
        .cited
        .iter()
        .map(|c| {
            let source = input.collection.as_ref().and_then(|read| read.source_at(c.offset));
            let doc_id = match (source, ranges.iter().position(|r| r.contains(&c.offset))) {
                (Some(source), _) => collection_read::doc_id(&source.source_id),
                (None, Some(chunk)) if ranges.len() > 1 => prompt::chunk_doc_id(chunk + 1),
                _ => SUMMARY_DOC_ID.to_string(),
            };
            let mut citation = json!({ "doc_id": doc_id, "quote": c.quote });
            if let Some(handle) = &c.handle_id {
                citation["handle_id"] = json!(handle);
            }
            citation
        })
        .collect();
    let title = if observation.title.is_empty() {
        "Page summary".to_string()
    } else {
        shorten(&format!("Summary: {}", observation.title), 120)
    };
    let mut response = prompt::envelope("response", "assistant", &job.turn);
    response.insert("in_reply_to".into(), json!({ "request_id": request["id"] }));
    response.insert(
        "assistant".into(),
        json!({ "title": title, "render": markdown_to_doc(&written), "citations": citations }),
    );
    response.insert("tool_calls".into(), json!([]));
    let response = Value::Object(response);
    check_pair(&request, &response)?;
    if let Some(history) = &deps.history {
        history
            .append_turn(&[request.clone(), response.clone()], Some(&deps.engine.model_id()))
            .map_err(|e| e.to_string())?;
    }
    Ok(json!({ "request_id": request["id"], "response": response }))
}

/// Both packets must satisfy laika.llmcp v1, and the response must answer the request.
pub fn check_pair(request: &Value, response: &Value) -> Result<(), String> {
    let mut problems = packet::validate(request);
    problems.extend(packet::validate(response));
    if let (Ok(packet::Packet::Request(req)), Ok(packet::Packet::Response(res))) =
        (packet::packet_from_value(request), packet::packet_from_value(response))
    {
        problems.extend(res.validate_against(&req));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))
    }
}

/// Waits until a job is done (CLI use); `on_text` receives each new piece of the stream.
pub async fn follow(job: &SummaryJob, mut on_text: impl FnMut(&str)) -> JobState {
    let mut shown = 0;
    loop {
        let state = job.snapshot();
        if state.text.len() > shown {
            on_text(&state.text[shown..]);
            shown = state.text.len();
        }
        if state.done {
            return state;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::scripted::Scripted;

    const PAGE: &str = "H1: Otters return to the river\n\nRiver otters were seen near the old mill last week by \
        volunteers, the first otters on the river in forty years. Volunteers counted five otters along a two-mile stretch of the \
        river.\n\nH2: Why it matters\n\nOtters need clean water and plenty of fish to survive in a river. Local \
        groups have cleaned the river banks every spring since 2015, the trust said.";

    fn run_with(replies: &[&'static str], question: Option<&str>) -> (JobState, Vec<String>) {
        run_on(PAGE, replies, question)
    }

    fn run_on(page: &str, replies: &[&'static str], question: Option<&str>) -> (JobState, Vec<String>) {
        let observation = Observation {
            url: "https://news.example/otters".into(),
            title: "Otters return to the river".into(),
            text: page.into(),
            ..Observation::default()
        };
        let input = SummaryInput {
            observation,
            user_text: question.unwrap_or("Summarize this page").into(),
            question: question.map(String::from),
            collection: None,
        };
        run_input(replies, input)
    }

    /// One job over `input` with a small scripted model answering `replies` in turn.
    fn run_input(replies: &[&'static str], input: SummaryInput) -> (JobState, Vec<String>) {
        let engine = Scripted::new(true, replies);
        let job = SummaryJob::new(TurnRef { conversation_id: "c".into(), turn: 1 });
        let deps = SummaryDeps {
            engine: engine.clone(),
            history: None,
            debug: Arc::new(DebugLog::off()),
            sampling: Sampling::default(),
            constrain: false,
        };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(run(job.clone(), input, deps));
        (job.snapshot(), engine.prompts())
    }

    #[test]
    fn a_question_across_a_collection_cites_each_sources_own_sentence_and_names_the_source() {
        use crate::collection_read::tests::source;
        use laika_shared::observation::CollectionIndex;
        let index = CollectionIndex { collection_id: "col:1".into(), title: "Phones".into(), ..Default::default() };
        let (read, observation) = CollectionRead::new(
            index,
            vec![
                source(1, "Phone A review", "Phone A has a bright screen. Phone A costs 499 dollars in most shops."),
                source(2, "Phone B review", "Phone B is small and light. Phone B costs 399 dollars at launch."),
            ],
        );
        let question = "How much does each phone cost in dollars?";
        let input = SummaryInput {
            observation,
            user_text: question.into(),
            question: Some(question.into()),
            collection: Some(Arc::new(read)),
        };
        let (state, _) = run_input(&["Phone B costs 399 dollars at launch."], input);
        assert!(state.error.is_none(), "{:?}", state.error);
        let text = &state.text;
        assert!(text.contains("costs 499 dollars") && text.contains("costs 399 dollars"), "{text}");
        assert!(text.starts_with("From the sources:\n"), "{text}");
        assert!(text.contains("\nSources: Phone "), "each citation names its source: {text}");
        assert!(text.contains("Phone A review") && text.contains("Phone B review"), "{text}");
        let result = state.result.unwrap();
        let citations = result["response"]["assistant"]["citations"].as_array().unwrap().clone();
        let docs: Vec<&str> = citations.iter().map(|c| c["doc_id"].as_str().unwrap()).collect();
        assert!(docs.contains(&"doc:collection:src:1") && docs.contains(&"doc:collection:src:2"), "{docs:?}");
    }

    #[test]
    fn key_points_come_first_and_a_supported_gist_is_added_with_its_citation() {
        let (state, prompts) =
            run_with(&["The main point of this text is that volunteers counted five otters along the river."], None);
        assert!(state.error.is_none(), "{:?}", state.error);
        let text = &state.text;
        assert!(text.starts_with("- River otters were seen near the old mill last week"), "{text}");
        assert!(text.contains("\nIn short: Volunteers counted five otters along the river. [2]\n"), "{text}");
        assert_eq!(state.grounding.model_sentences_shown, 1);
        assert_eq!(state.grounding.model_sentences_dropped, 0);
        assert!(state.notice.is_none());
        let citations = state.result.unwrap()["response"]["assistant"]["citations"].clone();
        assert!(citations.as_array().unwrap().len() >= 3, "{citations}");
        for c in citations.as_array().unwrap() {
            assert!(PAGE.contains(c["quote"].as_str().unwrap().trim_end_matches('…')), "{c}");
        }
        // The small model got plain text: the title, numbered passages, the question last.
        assert!(prompts[0].starts_with("Title: Otters return to the river\n\n[1] "), "{}", prompts[0]);
        assert!(prompts[0].ends_with(prompt::GIST_QUESTION));
        assert_eq!(state.coverage.ratio, 1.0);
    }

    #[test]
    fn unsupported_invented_and_looping_sentences_are_never_shown() {
        // Three gist questions, each with its stricter retry.
        let bad = [
            "Watch https://youtube.com/otters for more. Whales sing in the winter ocean.",
            "Volunteers counted 12 otters. Tailored tailored tailored tailored ununununun",
            "The user asks for a JSON summary of the documents.",
            "Otters were seen by John Smith at the mill.",
            "Whales sing in the winter ocean near Iceland.",
            "Volunteers counted 12 otters.",
            "Otters return to the river, said NASA.",
            "{\"summary\": \"Otters return\"}",
            "Whales were seen near Iceland by NASA.",
            "Whales need clean water and fish, and sharks sing.",
        ];
        let (state, prompts) = run_with(&bad, None);
        let sentences = grounding::sentences(PAGE);
        let points =
            grounding::key_points(&sentences, "Otters return to the river", grounding::point_count(sentences.len()));
        let order = shortening_order(&sentences, &points, "Otters return to the river");
        let tries = order.len();
        // Only key points with a piece to let go (on this page, a comma) are offered.
        assert!((1..=SHORTEN_TRIES).contains(&tries), "{order:?}");
        assert!(order.iter().all(|(i, _)| sentences[*i].text.contains(',')), "{order:?}");
        assert_eq!(
            prompts.len(),
            6 + 2 * tries,
            "three gist questions, then the sentences to shorten, each with one stricter retry"
        );
        assert!(prompts[4].ends_with(prompt::GIST_QUESTION_3), "{}", prompts[4]);
        // Then the most central sentences, each alone, to be said in fewer words.
        let central = &sentences[grounding::key_points(&sentences, "Otters return to the river", 1)[0]].text;
        assert_eq!(&prompts[6], central);
        for (k, shortening) in prompts[6..].iter().enumerate() {
            assert_eq!(shortening, &sentences[order[k / 2].0].text);
        }
        assert!(!state.text.contains("In short"), "{}", state.text);
        for word in ["Whales", "12", "ailored", "youtube", "John", "user", "NASA", "summary"] {
            assert!(!state.text.contains(word), "{word} in {}", state.text);
        }
        assert_eq!(state.grounding.model_sentences_shown, 0);
        assert_eq!(state.grounding.retries, 3 + tries);
        assert!(state.grounding.model_sentences_dropped >= 6, "{:?}", state.grounding);
        assert!(state.notice.as_deref().unwrap().contains("only the page's own key points"));
        // The retry saw less of the page.
        assert!(prompts[1].len() <= prompts[0].len());
        // The key points still stand, each cited.
        assert!(state.text.lines().filter(|l| l.starts_with("- ")).count() >= 3, "{}", state.text);
    }

    #[test]
    fn a_key_point_said_in_fewer_words_is_the_gist_and_the_sentence_again_is_not() {
        // Nothing passes for the three gist questions; then the most central sentence comes back
        // whole (refused: not shorter), and on the retry shortened.
        let replies = [
            "Whales sing.",
            "Whales sing.",
            "Whales sing.",
            "Whales sing.",
            "Whales sing.",
            "Whales sing.",
            "River otters were seen near the old mill last week by volunteers, the first otters on the river in forty years.",
            "River otters were seen near the old mill last week.",
        ];
        let (state, prompts) = run_with(&replies, None);
        assert_eq!(prompts[6], prompts[7], "the retry shortens the same sentence");
        assert!(prompts[6].starts_with("River otters were seen"), "{}", prompts[6]);
        assert!(
            state.text.contains("\nIn short: River otters were seen near the old mill last week. [1]\n"),
            "{}",
            state.text
        );
        assert_eq!(state.grounding.model_sentences_shown, 1);
        assert_eq!(prompts.len(), 8, "no further sentence is asked for once one is shown");
    }

    #[test]
    fn a_citation_marker_between_two_model_sentences_parts_them() {
        // The first sentence is the page's; the second speaks as its author. Glued by the marker
        // into one sentence, both were refused for the "I".
        let (state, _) =
            run_with(&["Volunteers counted five otters along the river. [2] I saw them myself last week."], None);
        assert!(
            state.text.contains("\nIn short: Volunteers counted five otters along the river. [2]\n"),
            "{}",
            state.text
        );
        assert_eq!(state.grounding.model_sentences_shown, 1);
    }

    #[test]
    fn a_model_line_saying_what_an_earlier_one_said_is_not_shown_again() {
        // The second gist question is answered with the first answer in other words.
        let replies = [
            "Volunteers counted five otters along the river.",
            "Five otters were counted by volunteers along the river.",
            "Otters need clean water and fish.",
        ];
        let (state, prompts) = run_with(&replies, None);
        let text = &state.text;
        assert!(!text.contains("Five otters were counted"), "{text}");
        // Refused, the repeat gets its stricter retry, whose answer says something new.
        assert!(
            text.contains("\nIn short: Volunteers counted five otters along the river. [2] Otters need clean water and fish. [3]\n"),
            "{text}"
        );
        assert_eq!(prompts.len(), 3);
        assert_eq!(state.grounding.model_sentences_shown, 2, "{text}");
        assert_eq!(state.grounding.model_sentences_dropped, 1, "{:?}", state.grounding);
    }

    #[test]
    fn a_key_point_written_out_again_is_no_gist() {
        // Key point [3] nearly word for word: the reader has it already.
        let (state, _) = run_with(&["Otters need clean water and plenty of fish to survive in a river."], None);
        assert!(!state.text.contains("In short:"), "{}", state.text);
        assert_eq!(state.grounding.model_sentences_shown, 0);
    }

    #[test]
    fn a_first_person_key_point_said_in_fewer_words_is_quoted_as_its_authors() {
        let post = "H1: NodeBB v4 RC1\n\nI'm happy to announce RC1 (that's Release Candidate 1!!) of NodeBB v4, and we've \
            fixed many bugs since beta 4.\n\nThe release candidate is ready for testing on community forums.";
        let replies =
            ["Whales sing."; 6].into_iter().chain(["I'm happy to announce RC1 of NodeBB v4."]).collect::<Vec<_>>();
        let (state, prompts) = run_on(post, &replies, None);
        assert!(prompts[6].starts_with("I'm happy to announce RC1 (that's"), "{}", prompts[6]);
        assert!(state.text.contains("\nIn short: “I'm happy to announce RC1 of NodeBB v4.” [1]\n"), "{}", state.text);
        assert_eq!(state.grounding.model_sentences_shown, 1);
        // A gist in the first person is still refused: Laika does not speak as the author.
        let replies = ["I'm happy to announce RC1 of NodeBB v4."; 8];
        let (state, _) = run_on(post, &replies, None);
        assert!(!state.text.contains("In short: I'm"), "{}", state.text);
    }

    /// A page none of whose key points has a choice of shorter forms of its own, but two of
    /// which have one each.
    const FERRY: &str = "H1: Harbour ferry to stop on Sundays\n\nThe harbour ferry will stop running on Sundays \
        from next month, the council said on Friday. Fewer than forty people used the Sunday ferry last winter.\n\nThe \
        old ferry needs a new engine for its next season at sea, and the council cannot pay for one this year. The \
        ferry crew, who have worked the route for decades, will move to weekday shifts.\n\nResidents can still take \
        the bus to the town centre on Sundays.";

    fn run_ferry(replies: &[&'static str]) -> (JobState, Vec<String>) {
        let observation = Observation {
            url: "https://news.example/ferry".into(),
            title: "Harbour ferry to stop on Sundays".into(),
            text: FERRY.into(),
            ..Observation::default()
        };
        run_input(
            replies,
            SummaryInput { observation, user_text: "Summarize this page".into(), question: None, collection: None },
        )
    }

    #[test]
    fn the_main_point_is_chosen_among_the_key_points_shorter_forms_when_none_has_a_choice_of_its_own() {
        let sentences = grounding::sentences(FERRY);
        let title = "Harbour ferry to stop on Sundays";
        let points = grounding::key_points(&sentences, title, grounding::point_count(sentences.len()));
        assert!(shortening_order(&sentences, &points, title).is_empty(), "no key point is shortenable alone");
        let index = PageIndex::with_title(FERRY, title);
        let choices = main_point_choices(&index, &sentences, &points, title, &[]);
        let forms: Vec<&str> = choices.iter().map(|(f, _)| f.as_str()).collect();
        assert!(forms.contains(&"The harbour ferry will stop running on Sundays from next month."), "{forms:?}");
        assert!(forms.contains(&"The old ferry needs a new engine for its next season at sea."), "{forms:?}");
        // Each with the sentence it shortens.
        for (form, i) in &choices {
            assert!(grounding::shortens(form, &sentences[*i].text).is_ok(), "{form} / {}", sentences[*i].text);
        }
        // A key point already tried is not offered again.
        let (_, first) = choices[0].clone();
        assert!(main_point_choices(&index, &sentences, &points, title, &[first]).iter().all(|(_, i)| *i != first));

        // Nothing passes for the three gist questions (each with its retry); then the model
        // chooses, and its choice is shown as a shortening of its own sentence.
        let replies = ["Whales sing."; 6]
            .into_iter()
            .chain(["The old ferry needs a new engine for its next season at sea."])
            .collect::<Vec<_>>();
        let (state, prompts) = run_ferry(&replies);
        assert_eq!(prompts.len(), 7, "{prompts:?}");
        assert!(prompts[6].ends_with(prompt::MAIN_POINT_QUESTION), "{}", prompts[6]);
        // The model reads the sentences it chooses among, whole.
        assert!(prompts[6].contains("The old ferry needs a new engine for its next season at sea, and the council"));
        assert!(
            prompts[6].contains("The harbour ferry will stop running on Sundays from next month, the council said")
        );
        assert!(
            state.text.contains("\nIn short: The old ferry needs a new engine for its next season at sea. ["),
            "{}",
            state.text
        );
        assert_eq!(state.grounding.model_sentences_shown, 1);
    }

    #[test]
    fn the_lead_naming_the_titles_subject_joins_the_choice_and_a_form_the_gate_refuses_does_not() {
        let title = "Harbour ferry to stop on Sundays";
        // The lead speaks of the ferry (the title's word); a later sentence of the lead does not.
        let page = "The harbour ferry, which first sailed in 1921, will stop running on Sundays from next \
            month. Residents, who have long asked for a bus, can take the bus to the town centre instead. \
            Volunteers, who met at the old mill, counted five otters along the river on Saturday.";
        let sentences = grounding::sentences(page);
        let index = PageIndex::with_title(page, title);
        let choices = main_point_choices(&index, &sentences, &[2], title, &[]);
        let forms: Vec<&str> = choices.iter().map(|(f, _)| f.as_str()).collect();
        assert!(forms.contains(&"The harbour ferry will stop running on Sundays from next month."), "{forms:?}");
        assert!(forms.contains(&"Volunteers counted five otters along the river on Saturday."), "{forms:?}");
        assert!(!forms.iter().any(|f| f.starts_with("Residents")), "no word of the title: {forms:?}");
        // Every choice is one the gate shows.
        for (form, i) in &choices {
            assert!(sound_form(&index, form, &sentences[*i].text), "{form}");
        }
        // A form of "be" left without its complement (wcxb-0370's lead) is neither a shorter form
        // nor a choice the gate would show.
        let question = "A common question asked by people buying a ferry ticket is, “Where is the pier?”";
        assert!(!grounding::shorter_forms(question).iter().any(|f| f.ends_with(" is.")));
        let index = PageIndex::with_title(question, title);
        assert!(!sound_form(&index, "A common question asked by people buying a ferry ticket is.", question));
    }

    #[test]
    fn a_part_whose_own_line_fails_gets_the_models_choice_of_its_main_point() {
        // A long page of two parts, the second the end of the ferry story; the model's lines all
        // fail (the script is empty).
        let filler: String = (1..=145)
            .map(|n| format!("Volunteer group {n} cleaned stretch {n} of the river bank on a Saturday morning.\n\n"))
            .collect();
        let page = format!(
            "H1: River news\n\n{filler}{}",
            FERRY.trim_start_matches("H1: Harbour ferry to stop on Sundays\n\n")
        );
        let observation = Observation {
            url: "https://news.example/river".into(),
            title: "River news".into(),
            text: page.clone(),
            ..Observation::default()
        };
        let ranges = part_ranges(&page, 8192);
        assert_eq!(ranges.len(), 2);
        let input =
            SummaryInput { observation, user_text: "Summarize this page".into(), question: None, collection: None };
        let (_, prompts) = run_input(&[], input);
        let part = prompts.iter().position(|p| p.ends_with(prompt::PART_QUESTION) && p.contains("old ferry"));
        let part = part.unwrap_or_else(|| panic!("no part question over the ferry story: {prompts:#?}"));
        // After the part's own question and its retry, the choice among its key points' forms.
        let choice = &prompts[part + 2];
        assert!(choice.ends_with(prompt::MAIN_POINT_QUESTION), "{choice}");
        assert!(choice.contains("The old ferry needs a new engine for its next season at sea, and"), "{choice}");
    }

    #[test]
    fn a_main_point_that_is_no_shortening_of_a_key_point_is_not_shown() {
        // An engine that is not decoded as one of the forms answers with words of its own, or
        // with a key point whole: neither is shown.
        let replies = ["Whales sing."; 6]
            .into_iter()
            .chain([
                "The old ferry needs a new engine for the winter.",
                "The harbour ferry will stop running on Sundays from next month, the council said on Friday.",
            ])
            .collect::<Vec<_>>();
        let (state, prompts) = run_ferry(&replies);
        assert_eq!(prompts.len(), 8, "the choice and its retry");
        assert!(!state.text.contains("In short"), "{}", state.text);
        assert_eq!(state.grounding.model_sentences_shown, 0);
        assert!(state.notice.as_deref().unwrap().contains("only the page's own key points"));
    }

    #[test]
    fn answers_quote_the_matching_passage_and_say_when_the_page_has_none() {
        let (state, prompts) = run_with(
            &["Local groups have cleaned the river banks every spring since 2015."],
            Some("Who cleaned the river banks?"),
        );
        assert!(
            state.text.starts_with("From the page:\n- Local groups have cleaned the river banks"),
            "{}",
            state.text
        );
        assert!(
            state.text.contains("Answer: Local groups have cleaned the river banks every spring since 2015. [1]"),
            "{}",
            state.text
        );
        assert!(prompts[0].contains("Question: Who cleaned the river banks?"), "{}", prompts[0]);

        // A joined clause that answers something else is cut away; the head is checked alone.
        let (state, _) = run_with(
            &[
                "Local groups have cleaned the river banks every spring since 2015, and volunteers counted five otters along a two-mile stretch.",
            ],
            Some("Who cleaned the river banks?"),
        );
        assert!(
            state.text.contains("Answer: Local groups have cleaned the river banks every spring since 2015. [1]\n"),
            "{}",
            state.text
        );

        // True of the page but no answer to the question: not shown, and the notice says so.
        let (state, _) = run_with(
            &["Otters need clean water and fish.", "Otters need plenty of fish to survive."],
            Some("Who cleaned the river banks?"),
        );
        assert!(!state.text.contains("Answer:"), "{}", state.text);
        assert_eq!(state.grounding.model_sentences_shown, 0);
        assert!(state.notice.as_deref().is_some_and(|n| n.contains("not supported")), "{:?}", state.notice);

        let (state, prompts) = run_with(&[], Some("Who won the football league?"));
        assert!(prompts.is_empty());
        assert_eq!(state.text, "The page does not seem to answer this question.\n");
        assert!(state.notice.is_some());
    }

    #[test]
    fn a_page_not_in_english_gets_its_key_points_and_no_model_sentence() {
        const FRENCH: &str = "H1: Le renseignement\n\nLe projet de loi relatif au renseignement prévoit que les \
            services pourront recueillir des données sur les communications des personnes soupçonnées. Une \
            autorisation sera donnée par le premier ministre après avis de la commission nationale de contrôle.";
        for question in [None, Some("Les services de renseignement ont-ils une autorisation ?")] {
            let (state, prompts) =
                run_on(FRENCH, &["Le premier ministre donne une autorisation aux services."], question);
            assert!(prompts.is_empty(), "{prompts:?}");
            assert_eq!(state.grounding.model_sentences_shown, 0);
            assert!(state.notice.as_deref().is_some_and(|n| n.contains("in English only")), "{:?}", state.notice);
        }
        let (state, _) = run_on(FRENCH, &[], None);
        assert!(state.text.starts_with("- Le projet de loi"), "{}", state.text);
    }

    #[test]
    fn parts_tile_the_page_within_the_part_bound() {
        assert_eq!(part_ranges("short page", 4096).len(), 1);
        let text = "H2: A heading\n".to_string() + &"A sentence of some length here. ".repeat(5_000);
        let ranges = part_ranges(&text, 4096);
        assert!(ranges.len() > 1 && ranges.len() <= MAX_PARTS, "{}", ranges.len());
        assert_eq!(ranges.last().unwrap().end, text.len());
        assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
    }

    #[test]
    fn chunks_tile_the_text() {
        let text =
            "H1: Title\n".to_string() + &"A sentence of some length here. ".repeat(400) + "\nEnd line with é and ü.";
        let ranges = chunk_ranges(&text, 300, 2_000);
        assert!(ranges.len() > 3);
        assert_eq!(ranges[0].start, 0);
        assert_eq!(ranges.last().unwrap().end, text.len());
        assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
        let joined: String = ranges.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(joined, text);
        assert!(text[ranges[0].clone()].chars().count() <= 300);
        assert!(chunk_ranges("", 10, 10).is_empty());
    }

    #[test]
    fn the_shared_prompt_start_begins_every_small_model_request() {
        let start = shared_prompt_start();
        assert_eq!(start.system, prompt::PLAIN_SYSTEM);
        assert_eq!(start.user_start, "Title: ");
        let (_, _, user) = render(true, "Otters", &["Otters swim."], prompt::GIST_QUESTION, Asked::Summary);
        assert!(user.starts_with(&start.user_start));
    }
}
