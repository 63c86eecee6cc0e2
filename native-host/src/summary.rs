//! The summary service: a page of any length read whole by chunked map-reduce, streamed as
//! append-only text, grounded with citations, and stored before it is reported done.
//!
//! The first chunk is short so its summary starts streaming within seconds; the rest of the page
//! is read in chunks sized to the engine's window while that text is already on screen. Every
//! character of the observed text goes to the model exactly once (coverage = chars read / chars
//! on the page). With more than one chunk, a last call over the chunk notes appends an overall
//! statement: the stream is never rewritten.

use crate::debuglog::DebugLog;
use crate::engine::extractive::ExtractiveEngine;
use crate::engine::{Engine, GenerateRequest, OutputShape, Sampling, WarmPrefix};
use crate::ground;
use crate::history::History;
use crate::prompt::{self, SUMMARY_DOC_ID, TurnRef};
use laika_shared::markdown::markdown_to_doc;
use laika_shared::observation::Observation;
use laika_shared::packet;
use serde::Serialize;
use serde_json::{Value, json};
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Characters of the first chunk of a longer page: small, so the first text arrives fast. With
/// the shared prompt start already computed, the first chunk's prompt is this text (≈ 100
/// tokens) and the JSON around it (≈ 200: the page's URL and title twice, the task).
pub const FIRST_CHUNK_CHARS: usize = 400;
/// A page up to this long is read in one chunk: splitting it would add a second call and an
/// overall statement for little gain in first-text time.
pub const SHORT_PAGE_CHARS: usize = 1_500;
/// Output tokens per chunk.
pub const CHUNK_OUTPUT_TOKENS: usize = 220;
const COMBINE_OUTPUT_TOKENS: usize = 120;

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Coverage {
    pub chars_read: usize,
    pub chars_total: usize,
    pub ratio: f64,
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
    /// On success: `{request_id, response}` with the laika.llmcp response packet.
    pub result: Option<Value>,
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

/// Characters of later chunks for an engine's window: what is left after the system prompt, the
/// packet around the text and the output, at about three characters a token (JSON escaping
/// costs some).
pub fn chunk_chars_for(context_tokens: usize) -> usize {
    let overhead = 900 + CHUNK_OUTPUT_TOKENS;
    (context_tokens.saturating_sub(overhead) * 3).clamp(SHORT_PAGE_CHARS, 12_000)
}

/// Keeps a model's stream clean while it streams: layout prefixes it copied are dropped at line
/// starts, a sentence or line it already wrote is not written again (small models loop), blank
/// runs collapse. Text is released a sentence at a time, so the first words reach the user
/// without waiting for a line end, and the stream stays append-only. The summary's first
/// sentence is released word by word: nothing written before it can repeat, and it is what the
/// user waits for.
#[derive(Default)]
pub struct LineFilter {
    pending: String,
    seen: Vec<String>,
    wrote_blank: bool,
    /// Part of the current line has been written.
    mid_line: bool,
    /// The first sentence so far, while it is being released word by word (recorded as seen
    /// once it ends).
    opening: Option<String>,
}

/// The first sentence is released word by word once this much of it is there: enough to see a
/// layout prefix ("Definition: ") and the word after it, or the start of JSON.
const OPENING_MIN_BYTES: usize = 16;

/// A layout prefix the model copied from the page text, dropped (or, for headings, turned into
/// Markdown) at a line start.
fn strip_layout_prefix(text: &str) -> String {
    let mut text = text.to_string();
    for prefix in ["Summary: ", "Caption: ", "Code: ", "Term: ", "Definition: "] {
        if let Some(rest) = text.strip_prefix(prefix) {
            text = rest.to_string();
        }
    }
    if text.len() > 4 && text.starts_with('H') && text.as_bytes()[1].is_ascii_digit() && text[2..].starts_with(": ") {
        text = format!("### {}", &text[4..]);
    }
    text
}

/// What a sentence is compared by when looking for repeats.
fn repeat_key(text: &str) -> String {
    text.trim().trim_start_matches(['-', '*', ' ', '#']).to_lowercase()
}

/// Past this many bytes without a sentence end, text is released at a word boundary.
const RUN_ON_BYTES: usize = 120;

/// The end (after the space) of the first sentence in `text`, if one is complete.
fn sentence_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (1..bytes.len()).find(|&i| bytes[i] == b' ' && matches!(bytes[i - 1], b'.' | b'!' | b'?')).map(|i| i + 1)
}

/// A line of JSON structure: a brace or bracket line, or a `"key": value` member.
fn looks_like_json(line: &str) -> bool {
    let t = line.trim();
    if t.starts_with(['{', '}', '[', ']']) {
        return true;
    }
    t.strip_prefix('"')
        .and_then(|rest| rest.find('"').map(|end| rest[end + 1..].trim_start()))
        .is_some_and(|after| after.starts_with(':'))
}

impl LineFilter {
    pub fn push(&mut self, piece: &str, out: &mut String) {
        self.pending.push_str(piece);
        loop {
            if let Some(end) = self.pending.find('\n') {
                let line: String = self.pending.drain(..=end).collect();
                self.segment(line.trim_end(), true, out);
            } else if !self.mid_line && looks_like_json(&self.pending) {
                // A JSON line is judged whole at its end (and dropped there): released by the
                // sentence or run-on rules below, its pieces would no longer look like JSON.
                break;
            } else if let Some(end) = sentence_end(&self.pending) {
                let sentence: String = self.pending.drain(..end).collect();
                self.segment(&sentence, false, out);
            } else if let Some(words) = self.opening_words() {
                self.release_opening(&words, out);
            } else if self.pending.len() > RUN_ON_BYTES
                && let Some(space) = self.pending.rfind(' ').filter(|&i| i > 0)
            {
                // A run-on sentence is released at a word boundary so the user sees it grow;
                // only whole sentences are checked for repeats.
                let words: String = self.pending.drain(..=space).collect();
                self.continuation(&words, out);
            } else {
                break;
            }
        }
    }

    pub fn finish(&mut self, out: &mut String) {
        let rest = std::mem::take(&mut self.pending);
        if !rest.trim().is_empty() || self.mid_line || self.opening.is_some() {
            self.segment(rest.trim_end(), true, out);
        }
    }

    fn continuation(&mut self, text: &str, out: &mut String) {
        if !self.mid_line && text.trim().is_empty() {
            return;
        }
        self.wrote_blank = false;
        self.mid_line = true;
        out.push_str(text);
    }

    /// The next words of the summary's first sentence that may be shown before it ends: only
    /// while nothing has been written yet (or the first sentence is already being shown), and
    /// never what may be the start of JSON.
    fn opening_words(&mut self) -> Option<String> {
        let starting = self.opening.is_none();
        if starting {
            let start = self.pending.trim_start();
            if !self.seen.is_empty()
                || self.mid_line
                || start.starts_with(['{', '[', '"', '`', '<'])
                || looks_like_json(start)
            {
                return None;
            }
        }
        let min = if starting { OPENING_MIN_BYTES } else { 1 };
        let space = self.pending.rfind(' ').filter(|&i| i >= min)?;
        Some(self.pending.drain(..=space).collect())
    }

    fn release_opening(&mut self, words: &str, out: &mut String) {
        let shown = match self.opening {
            Some(_) => words.to_string(),
            None => strip_layout_prefix(words.trim_start()),
        };
        self.opening.get_or_insert_with(String::new).push_str(&shown);
        if !shown.is_empty() {
            self.wrote_blank = false;
            self.mid_line = true;
            out.push_str(&shown);
        }
    }

    /// The rest of the first sentence: shown, and the whole sentence recorded as written.
    fn end_opening(&mut self, rest: &str, ends_line: bool, out: &mut String) {
        let mut opening = self.opening.take().unwrap_or_default();
        opening.push_str(rest);
        self.seen.push(repeat_key(&opening));
        out.push_str(rest);
        if ends_line {
            out.push('\n');
            self.mid_line = false;
        }
    }

    /// A sentence or line end: through the filter, or the end of the first sentence when it is
    /// being released word by word.
    fn segment(&mut self, text: &str, ends_line: bool, out: &mut String) {
        if self.opening.is_some() {
            return self.end_opening(text, ends_line, out);
        }
        let text = if self.mid_line { text.to_string() } else { strip_layout_prefix(text) };
        if !self.mid_line && looks_like_json(&text) {
            // A small model sometimes answers the JSON-wrapped request with JSON of its own;
            // a summary is Markdown, and braces and "key": value lines are never part of one.
            return;
        }
        let key = repeat_key(&text);
        if key.is_empty() {
            if self.mid_line && ends_line {
                out.push('\n');
                self.mid_line = false;
            } else if !self.mid_line && !self.wrote_blank && !out.is_empty() {
                out.push('\n');
                self.wrote_blank = true;
            }
            return;
        }
        if self.seen.contains(&key) {
            if self.mid_line && ends_line {
                out.push('\n');
                self.mid_line = false;
            }
            return;
        }
        self.seen.push(key);
        self.wrote_blank = false;
        out.push_str(&text);
        if ends_line {
            out.push('\n');
            self.mid_line = false;
        } else {
            self.mid_line = true;
        }
    }
}

pub struct SummaryInput {
    pub observation: Observation,
    pub user_text: String,
    /// A question (web.answer) instead of a summary.
    pub question: Option<String>,
}

pub struct SummaryDeps {
    pub engine: Arc<dyn Engine>,
    pub history: Option<Arc<History>>,
    pub debug: Arc<DebugLog>,
    pub sampling: Sampling,
    /// Ask the engine to hold summaries to a bullet list (constrained decoding).
    pub bullets: bool,
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

async fn summarize(job: &SummaryJob, input: &SummaryInput, deps: &SummaryDeps) -> Result<Value, Failure> {
    let observation = &input.observation;
    let text = observation.text.as_str();
    let total_chars = text.chars().count();
    let first = if total_chars <= SHORT_PAGE_CHARS { SHORT_PAGE_CHARS } else { FIRST_CHUNK_CHARS };
    let ranges = chunk_ranges(text, first, chunk_chars_for(deps.engine.context_tokens()));
    job.update(|s| {
        s.chunks_total = ranges.len();
        s.coverage =
            Coverage { chars_read: 0, chars_total: total_chars, ratio: if total_chars == 0 { 1.0 } else { 0.0 } };
    });
    let (task, system) = match &input.question {
        Some(_) => ("web.answer", prompt::ANSWER_SYSTEM),
        None => ("web.summarize", prompt::SUMMARY_SYSTEM),
    };
    // Summaries are held to a short bullet list (where the engine can constrain decoding);
    // answers are free text.
    let shape = match &input.question {
        None if deps.bullets => OutputShape::Bullets { min: 2, max: 5, max_chars: 220 },
        _ => OutputShape::Markdown,
    };
    let mut notes: Vec<String> = Vec::new();
    let mut filter = LineFilter::default();
    let mut chars_read = 0;
    for (index, range) in ranges.iter().enumerate() {
        if job.cancel.is_cancelled() {
            break;
        }
        let part = &text[range.clone()];
        let request = chunk_request(&job.turn, &input.user_text, task, observation, part, index, ranges.len());
        let before = job.snapshot().text.len();
        let generated =
            call(deps, system, &request, CHUNK_OUTPUT_TOKENS, shape.clone(), Some((job, &mut filter))).await?;
        // A part's notes end their line: the next part's first sentence is not glued to them.
        let mut line_end = String::new();
        filter.push("\n", &mut line_end);
        job.append(&line_end);
        if generated.finish_reason != "cancelled" {
            chars_read += part.chars().count();
        }
        let after = job.snapshot().text;
        notes.push(after[before.min(after.len())..].to_string());
        job.update(|s| {
            s.chunks_done = index + 1;
            s.coverage = Coverage {
                chars_read,
                chars_total: total_chars,
                ratio: if total_chars == 0 { 1.0 } else { chars_read as f64 / total_chars as f64 },
            };
        });
    }
    let mut tail = String::new();
    filter.finish(&mut tail);
    job.append(&tail);

    // The overall statement over the notes of a long page.
    if ranges.len() > 1 && !job.cancel.is_cancelled() && input.question.is_none() {
        let notes_text = notes.join("\n");
        let documents = vec![prompt::document(
            "doc:notes:summary",
            "web.observation.summary.v1",
            json!({ "doc_type": "web.observation.summary.v1", "url": observation.url, "title": observation.title, "text": notes_text }),
        )];
        let request =
            prompt::request_packet(&job.turn, &input.user_text, "web.summarize", json!({ "combine": true }), documents);
        job.append("\nOverall: ");
        let mut combine = String::new();
        let mut sink_target = CombineSink { job, text: &mut combine };
        let generated =
            call_plain(deps, prompt::COMBINE_SYSTEM, &request, COMBINE_OUTPUT_TOKENS, &mut sink_target).await?;
        if generated.trim().is_empty() {
            job.append("(no overall statement)");
        }
        job.append("\n");
    }

    // A fallback only when the stream is empty (laika-tools.md): the extractive summary.
    if job.snapshot().text.trim().is_empty() && !job.cancel.is_cancelled() {
        let shown = prompt::user_content(&prompt::request_packet(
            &job.turn,
            &input.user_text,
            task,
            json!({}),
            vec![prompt::document(
                SUMMARY_DOC_ID,
                "web.observation.summary.v1",
                prompt::summary_content(observation, text, 0),
            )],
        ));
        let fallback =
            ExtractiveEngine::answer(&shown, &OutputShape::Markdown, 240).map_err(|e| (e.code, e.message))?;
        job.append(&fallback);
    }
    let cancelled = job.cancel.is_cancelled();
    job.update(|s| s.cancelled = cancelled);
    finish(job, input, deps, &ranges).map_err(|e| ("SUMMARY_INVALID_RESPONSE", e))
}

/// What every summary request shows the model first: the system prompt and the start of the
/// user content that all summary requests share (up to the first field that varies, found by
/// writing two unlike requests). An engine with a prefix cache keeps it computed, so the first
/// chunk of a summary pays only for what follows it.
pub fn shared_prompt_start() -> WarmPrefix {
    let turn = TurnRef { conversation_id: "c".into(), turn: 1 };
    let user = |url: &str, text: &str, count: usize, asked: &str| {
        let observation =
            Observation { url: url.into(), title: text.into(), text: text.into(), ..Observation::default() };
        prompt::user_content(&chunk_request(&turn, asked, "web.summarize", &observation, text, 0, count))
    };
    let a = user("https://a.example/", "A", 1, "Summarize this page");
    let b = user("https://b.example/x", "B b", 2, "What is this?");
    let shared =
        a.char_indices().zip(b.chars()).find(|((_, x), y)| x != y).map_or(a.len().min(b.len()), |((i, _), _)| i);
    WarmPrefix { system: prompt::SUMMARY_SYSTEM.to_string(), user_start: a[..shared].to_string() }
}

/// The request that reads part `index` (from 0) of `count` of the page's text. The first part
/// is the summary document's own text (as a page read in one part is); each later part is a
/// chunk document extending the summary document, which then carries the page's identity and
/// signals without text. The first part is the one the user waits for: a chunk document there
/// would add its header and the URL and title a second time, ≈ 90 prompt tokens before the
/// first word of the summary.
fn chunk_request(
    turn: &TurnRef,
    user_text: &str,
    task: &str,
    observation: &Observation,
    part: &str,
    index: usize,
    count: usize,
) -> Value {
    let first = index == 0;
    let mut documents = vec![prompt::document(
        SUMMARY_DOC_ID,
        "web.observation.summary.v1",
        reading_content(observation, if first { part } else { "" }),
    )];
    if !first {
        documents.push(prompt::document(
            &prompt::chunk_doc_id(1),
            "web.observation.chunk.v1",
            prompt::chunk_content(observation, 1, 1, part),
        ));
    }
    let args = if count == 1 {
        json!({ "style": "concise" })
    } else {
        json!({ "style": "concise", "part": index + 1, "parts": count })
    };
    prompt::request_packet(turn, user_text, task, args, documents)
}

/// The summary document of one read: the page's identity, signals and the text being read.
/// Items, comments and the outline are already in the text; repeating them would cost the first
/// chunk's prompt (and so the first text) hundreds of tokens.
fn reading_content(observation: &Observation, text: &str) -> Value {
    let mut content = prompt::summary_content(observation, text, 0);
    if let Some(map) = content.as_object_mut() {
        for key in ["items", "comments", "outline", "elements"] {
            map.remove(key);
        }
    }
    content
}

struct CombineSink<'a> {
    job: &'a SummaryJob,
    text: &'a mut String,
}

/// One engine call whose streamed text goes through the line filter into the job.
async fn call(
    deps: &SummaryDeps,
    system: &str,
    request: &Value,
    max_tokens: usize,
    shape: OutputShape,
    target: Option<(&SummaryJob, &mut LineFilter)>,
) -> Result<crate::engine::Generation, Failure> {
    let user = prompt::user_content(request);
    let generate = GenerateRequest {
        system: system.to_string(),
        user: user.clone(),
        max_tokens,
        sampling: deps.sampling.clone(),
        shape,
    };
    let (job, filter) = match target {
        Some((job, filter)) => (Some(job), Some(filter)),
        None => (None, None),
    };
    let never = CancellationToken::new();
    let cancel = job.map(|j| &j.cancel).unwrap_or(&never);
    let mut filter = filter;
    let mut sink = |piece: &str| {
        if let (Some(job), Some(filter)) = (job, filter.as_deref_mut()) {
            let mut out = String::new();
            filter.push(piece, &mut out);
            job.append(&out);
        }
    };
    let result = deps.engine.generate(generate, &mut sink, cancel).await;
    log_call(deps, system, &user, &result);
    result.map_err(|e| (e.code, e.message))
}

/// One engine call streamed straight into the job (the overall statement: one paragraph).
async fn call_plain(
    deps: &SummaryDeps,
    system: &str,
    request: &Value,
    max_tokens: usize,
    target: &mut CombineSink<'_>,
) -> Result<String, Failure> {
    let user = prompt::user_content(request);
    let generate = GenerateRequest {
        system: system.to_string(),
        user: user.clone(),
        max_tokens,
        sampling: deps.sampling.clone(),
        shape: OutputShape::Markdown,
    };
    let job = target.job;
    let mut sink = |piece: &str| {
        // One paragraph: newlines from the model would break the "Overall:" line.
        let piece = piece.replace('\n', " ");
        target.text.push_str(&piece);
        job.append(&piece);
    };
    let result = deps.engine.generate(generate, &mut sink, &job.cancel).await;
    log_call(deps, system, &user, &result);
    result.map(|g| g.text).map_err(|e| (e.code, e.message))
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
    job: &SummaryJob,
    input: &SummaryInput,
    deps: &SummaryDeps,
    ranges: &[Range<usize>],
) -> Result<Value, String> {
    let observation = &input.observation;
    let text = observation.text.as_str();
    let written = job.snapshot().text;
    let mut documents = vec![prompt::document(
        SUMMARY_DOC_ID,
        "web.observation.summary.v1",
        prompt::summary_content(observation, if ranges.len() == 1 { text } else { "" }, usize::MAX),
    )];
    if ranges.len() > 1 {
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
    let citations: Vec<Value> = ground::cite(&written, text, observation)
        .into_iter()
        .map(|g| {
            let doc_id = if ranges.len() == 1 {
                SUMMARY_DOC_ID.to_string()
            } else {
                let chunk = ranges.iter().position(|r| r.contains(&g.offset)).unwrap_or(0);
                prompt::chunk_doc_id(chunk + 1)
            };
            g.citation(&doc_id)
        })
        .collect();
    let title = if observation.title.is_empty() {
        "Page summary".to_string()
    } else {
        ground::shorten(&format!("Summary: {}", observation.title), 120)
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

    #[test]
    fn json_lines_are_not_summary_text() {
        let mut filter = LineFilter::default();
        let mut out = String::new();
        for piece in ["{\n", "    \"id\" : \"40e5\",\n", "  \"name\": \"Web\",\n", "  ],\n", "}\n"] {
            filter.push(piece, &mut out);
        }
        filter.push("- The otters came back. \"Quoted\" words stay.\n", &mut out);
        filter.finish(&mut out);
        assert_eq!(out, "- The otters came back. \"Quoted\" words stay.\n");
    }

    #[test]
    fn long_json_lines_are_dropped_whole() {
        // Longer than the run-on limit, with a sentence end inside a string: still no text.
        let mut filter = LineFilter::default();
        let mut out = String::new();
        let member = format!("  \"description\" : \"This is a summary. {}\",", "word ".repeat(40));
        for piece in member.as_bytes().chunks(7) {
            filter.push(std::str::from_utf8(piece).unwrap(), &mut out);
        }
        assert_eq!(out, "");
        filter.push("\n- Meal prep takes an hour. It saves a week.\n", &mut out);
        filter.finish(&mut out);
        assert_eq!(out, "- Meal prep takes an hour. It saves a week.\n");
    }

    #[test]
    fn the_shared_prompt_start_begins_every_summary_request() {
        let start = shared_prompt_start();
        assert_eq!(start.system, prompt::SUMMARY_SYSTEM);
        // (The key order depends on serde_json's preserve_order feature, which mistral.rs turns
        // on in the default build.)
        assert!(start.user_start.starts_with("{\""), "{}", start.user_start);
        let observation = Observation {
            url: "https://news.example/story?id=7".into(),
            title: "Otters return".into(),
            text: "H1: Otters return\nThe otters came back to the river.".into(),
            ..Observation::default()
        };
        let turn = TurnRef { conversation_id: "conv".into(), turn: 3 };
        // The requests `summarize` sends: a page read in one part, and the first of two.
        for count in [1, 2] {
            let request =
                chunk_request(&turn, "Summarize this page", "web.summarize", &observation, &observation.text, 0, count);
            let user = prompt::user_content(&request);
            assert!(user.starts_with(&start.user_start), "{user}\ndoes not start with\n{}", start.user_start);
        }
    }

    #[test]
    fn the_first_part_is_the_summary_documents_text_and_later_parts_are_chunk_documents() {
        let observation = Observation {
            url: "https://news.example/story".into(),
            title: "Otters return".into(),
            text: "Part one. Part two.".into(),
            signals: vec![laika_shared::observation::Signal::Paywall],
            ..Observation::default()
        };
        let turn = TurnRef { conversation_id: "conv".into(), turn: 1 };
        let first = chunk_request(&turn, "Summarize this page", "web.summarize", &observation, "Part one.", 0, 2);
        let second = chunk_request(&turn, "Summarize this page", "web.summarize", &observation, "Part two.", 1, 2);
        for request in [&first, &second] {
            assert!(packet::validate(request).is_empty(), "{:?}", packet::validate(request));
        }
        let documents = first["context"]["documents"].as_array().unwrap();
        assert_eq!(documents.len(), 1, "{first}");
        assert_eq!(documents[0]["content"]["text"], "Part one.");
        assert_eq!(documents[0]["content"]["signals"], json!(["paywall"]));
        assert_eq!(first["input"]["task"]["args"], json!({ "style": "concise", "part": 1, "parts": 2 }));
        let documents = second["context"]["documents"].as_array().unwrap();
        assert_eq!(documents.len(), 2, "{second}");
        assert_eq!(documents[0]["content"]["text"], "");
        assert_eq!(documents[0]["content"]["signals"], json!(["paywall"]));
        assert_eq!(documents[1]["kind"], "web.observation.chunk.v1");
        assert_eq!(documents[1]["content"]["text"], "Part two.");
        assert_eq!(second["input"]["task"]["args"], json!({ "style": "concise", "part": 2, "parts": 2 }));
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
    fn line_filter_drops_repeats_and_prefixes() {
        let mut filter = LineFilter::default();
        let mut out = String::new();
        for piece in ["- Otters are", " back.\n- Otters are back.\nH2: Why", "\n\n\n\n- Clean water", " matters."] {
            filter.push(piece, &mut out);
        }
        filter.finish(&mut out);
        assert_eq!(out, "- Otters are back.\n### Why\n\n- Clean water matters.\n");
    }

    #[test]
    fn the_first_sentence_is_released_word_by_word_and_still_never_repeated() {
        let mut filter = LineFilter::default();
        let mut out = String::new();
        filter.push("- The otters of the river came", &mut out);
        assert_eq!(out, "- The otters of the river ");
        filter.push(" back to the", &mut out);
        assert_eq!(out, "- The otters of the river came back to ");
        filter.push(" valley.\n- The otters of the river came back to the valley.\n- They", &mut out);
        filter.push(" dive for food in deep water", &mut out);
        // Later sentences wait for their end (or the run-on limit).
        assert_eq!(out, "- The otters of the river came back to the valley.\n");
        filter.push(".\n", &mut out);
        filter.finish(&mut out);
        assert_eq!(out, "- The otters of the river came back to the valley.\n- They dive for food in deep water.\n");
    }

    #[test]
    fn the_first_words_lose_layout_prefixes_and_json_is_never_streamed() {
        let mut filter = LineFilter::default();
        let mut out = String::new();
        filter.push("Summary: The otters of the river came", &mut out);
        assert_eq!(out, "The otters of the river ");
        filter.finish(&mut out);
        assert_eq!(out, "The otters of the river came\n");

        let mut filter = LineFilter::default();
        let mut out = String::new();
        filter.push("{\"summary\": \"The otters of the river came back to the", &mut out);
        assert_eq!(out, "");
        filter.push(" valley.\"}\n- Otters dive.\n", &mut out);
        filter.finish(&mut out);
        assert_eq!(out, "- Otters dive.\n");
    }

    #[test]
    fn a_part_ending_without_a_line_end_is_not_glued_to_the_next() {
        let mut filter = LineFilter::default();
        let mut out = String::new();
        // What the summary loop does between two parts' streams.
        for piece in ["Otters use stones to open shells!", "\n", "Herons wait.", "\n"] {
            filter.push(piece, &mut out);
        }
        filter.finish(&mut out);
        assert_eq!(out, "Otters use stones to open shells!\nHerons wait.\n");
    }

    #[test]
    fn line_filter_releases_sentences_before_the_line_ends() {
        let mut filter = LineFilter::default();
        let mut out = String::new();
        filter.push("Otters use stones. Otters use stones. They", &mut out);
        assert_eq!(out, "Otters use stones. ");
        filter.push(" dive.", &mut out);
        filter.finish(&mut out);
        assert_eq!(out, "Otters use stones. They dive.\n");
    }
}
