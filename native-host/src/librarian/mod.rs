//! The Librarian: the model proposes how to organise the user's notes; the user approves each
//! change; applied changes are versions of the notes, so each can be undone.
//!
//! How a run flows:
//! 1. the notes in scope ([`select`]: `notebook`, `tag:T`, `path:P`, `note:ID,ID`) become the
//!    request's sources, each clipped to [`limits::SOURCE_CHARS`];
//! 2. the request is written in `xml_attrless` ([`laika_shared::librarian::write_request`]) into
//!    the prompt pack's `organise` stage ([`prompt_pack`]); the model answers under the grammar
//!    of a valid response ([`grammar`]) unless the run asks for free text;
//! 3. the answer is parsed and checked against the contract ([`check`]: the request's id, real
//!    note ids, a topic for a new note, text grounded in the notes). An answer that does not
//!    parse (or answers another request) gets at most two `repair` attempts whose prompt holds
//!    only the errors and the answer; a run whose answer never parses is `failed` with the
//!    parser's code. Operations the contract refuses are dropped with the reason. Every
//!    attempt's raw text is kept;
//! 4. each valid operation becomes an approval card (`librarian.<kind>`), answered anywhere
//!    approvals are (the sidecar, `laika-host approvals`, the Lark bus); [`decided`] applies an
//!    approved one as a new version of its note ([`apply`]), or marks it rejected.

pub mod grammar;
pub mod prompt_pack;

pub use prompt_pack::PromptPack;

use crate::engine::{Engine, GenerateRequest, OutputShape, Sampling};
use crate::history::ApprovalRecord;
use crate::host::{Host, HostEvent};
use crate::notebook::{Note, NoteChange, NoteState, Notebook, NotebookError, redact};
use crate::transport::HostError;
use laika_shared::librarian::{
    Constraints, Diagnostic, LibrarianError, OperationKind, ParseOptions, Request, Response, Source, Target,
    parse_response, write_request,
};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// Approval cards of the Librarian's operations are named `librarian.<kind>`.
pub const TOOL_PREFIX: &str = "librarian.";

/// Sizes of a request, chosen so the request and the longest response fit SmolLM2-135M's
/// 2,048-token context with room to spare.
pub mod limits {
    /// Notes a request carries at most (the most recently changed in scope).
    pub const SOURCES: usize = 4;
    /// Characters of a note's body a request carries.
    pub const SOURCE_CHARS: usize = 600;
    /// Repair attempts after the first answer (the spec's "at most two").
    pub const REPAIRS: usize = 2;
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub goal: String,
    pub scope: String,
    pub taxonomy: Vec<String>,
    pub max_operations: usize,
    /// Only `create_note` and `rewrite_note` (the spec's strict fallback mode).
    pub fallback_only: bool,
    /// Decode under the response grammar (the default); off to measure what it adds.
    pub grammar: bool,
}

/// One call to the model and what came of it.
#[derive(Clone, Debug, Serialize)]
pub struct Attempt {
    pub stage: String,
    /// The model's text, whole (kept for audit whether it parsed or not).
    pub raw: String,
    /// The error code when it did not parse or broke the contract.
    pub code: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    pub completion_tokens: usize,
    pub ms: u64,
}

/// What a run did (stored in the notebook as its record).
#[derive(Clone, Debug, Serialize)]
pub struct RunRecord {
    pub id: String,
    /// `proposed` (operations wait for approval), `done` (nothing to propose) or `failed`.
    pub status: String,
    pub code: Option<String>,
    pub goal: String,
    pub scope: String,
    pub taxonomy: Vec<String>,
    pub model: String,
    pub grammar: bool,
    pub fallback_only: bool,
    /// The prompt pack's origin and the SHA-256 of each of its files.
    pub prompt_pack: Value,
    /// Each source note's version when the request was written (a rewrite of a note changed
    /// since is refused rather than applied over the change).
    pub source_versions: BTreeMap<String, i64>,
    pub attempts: Vec<Attempt>,
    pub response: Option<Response>,
    /// Operations the contract refused, with why.
    pub dropped: Vec<Diagnostic>,
    /// Operations proposed: `{operation, approval_id}`.
    pub proposed: Vec<Value>,
    pub ms: u64,
}

/// The notes a scope names, most recently changed first.
pub fn select(notebook: &Notebook, scope: &str) -> Result<Vec<Note>, HostError> {
    let all = || notebook.list(None, 10_000).map_err(HostError::from);
    let notes = match scope.split_once(':') {
        _ if scope == "notebook" => all()?,
        Some(("tag", tag)) => notebook.list(Some(tag), 10_000)?,
        Some(("path", prefix)) => {
            all()?.into_iter().filter(|n| n.state.path.as_deref().is_some_and(|p| p.starts_with(prefix))).collect()
        }
        Some(("note", ids)) => {
            ids.split(',').map(|id| notebook.live(id.trim()).map_err(HostError::from)).collect::<Result<_, _>>()?
        }
        _ => {
            return Err(HostError::new(
                "LIBRARIAN_BAD_SCOPE",
                format!("unknown scope {scope:?}: use notebook, tag:TAG, path:PREFIX or note:ID[,ID…]"),
            ));
        }
    };
    if notes.is_empty() {
        return Err(HostError::new("LIBRARIAN_EMPTY_SCOPE", format!("no notes in scope {scope:?}")));
    }
    Ok(notes)
}

/// The request for `notes` (at most [`limits::SOURCES`]).
pub fn request(id: &str, options: &RunOptions, notes: &[Note]) -> Request {
    let sources = notes
        .iter()
        .take(limits::SOURCES)
        .map(|note| Source {
            source_id: note.id.clone(),
            title: note.state.title.clone(),
            body_markdown: clip(&note.state.body_markdown, limits::SOURCE_CHARS),
            kind: "markdown".into(),
        })
        .collect();
    Request {
        request_id: id.to_string(),
        goal: options.goal.clone(),
        scope: options.scope.clone(),
        sources,
        taxonomy: options.taxonomy.clone(),
        constraints: Constraints {
            strict_mode: options.fallback_only,
            max_operations: options.max_operations,
            allow_delete: false,
        },
    }
}

fn clip(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_string();
    }
    let cut: String = text.chars().take(chars).collect();
    // At a word boundary where there is one.
    let cut = cut.rsplit_once(char::is_whitespace).map(|(a, _)| a.to_string()).unwrap_or(cut);
    format!("{cut} …")
}

/// What the contract requires of a parsed response beyond its syntax: the request's id,
/// targets that exist (a source's id; a topic of the taxonomy for a new note's path), tags and
/// links that are real. Each problem names the operation.
pub fn check(request: &Request, response: &Response, phrases_only: bool) -> (Vec<Diagnostic>, Vec<usize>) {
    let mut whole = vec![];
    let mut bad_operations = vec![];
    let problem = |at: String, message: String| Diagnostic { at, message };
    if response.request_id != request.request_id {
        whole.push(problem(
            "librarian_response/request_id".into(),
            format!("must be {} (the request's), not {}", request.request_id, response.request_id),
        ));
    }
    let ids: Vec<&str> = request.sources.iter().map(|s| s.source_id.as_str()).collect();
    let mut seen = vec![];
    let mut targets: Vec<String> = vec![];
    for (i, op) in response.operations.iter().enumerate() {
        let at = format!("librarian_response/operations/operation[{}]", i + 1);
        let mut problems = vec![];
        if seen.contains(&op.operation_id) {
            problems.push(format!("operation_id {} is used twice", op.operation_id));
        }
        seen.push(op.operation_id.clone());
        match (&op.kind, &op.target) {
            (OperationKind::CreateNote, Target::Path(path)) => {
                let topic = path.split('/').next().unwrap_or_default();
                if path.contains("..") || path.starts_with('/') {
                    problems.push(format!("target_path {path:?} must be a relative path"));
                } else if !request.taxonomy.is_empty() && !request.taxonomy.iter().any(|t| t == topic) {
                    problems.push(format!(
                        "target_path must start with a taxonomy topic ({})",
                        request.taxonomy.join(", ")
                    ));
                }
            }
            (OperationKind::CreateNote, Target::NoteId(_)) => {
                problems.push("create_note needs target_path (a topic), not target_note_id".into())
            }
            (_, Target::Path(_)) => problems.push("this kind needs target_note_id (a source_id)".into()),
            (_, Target::NoteId(id)) if !ids.contains(&id.as_str()) => {
                problems.push(format!("target_note_id {id} is not a source_id of the request ({})", ids.join(", ")))
            }
            _ => {}
        }
        if let Target::NoteId(id) = &op.target {
            if targets.contains(id) {
                problems.push(format!("{id} already has an operation: one operation per note"));
            }
            targets.push(id.clone());
        }
        problems.extend(ungrounded(request, op, phrases_only));
        match op.kind {
            OperationKind::RetagNote => {
                let tags = tags_of(&op.body_markdown);
                if tags.is_empty() {
                    problems.push("retag_note lists the tags in body_markdown, one per line".into());
                } else if !request.taxonomy.is_empty() {
                    let unknown: Vec<&String> = tags.iter().filter(|t| !request.taxonomy.contains(t)).collect();
                    if !unknown.is_empty() {
                        problems.push(format!("tags {unknown:?} are not in the taxonomy"));
                    }
                }
            }
            OperationKind::RelinkNote => {
                let links = links_of(&op.body_markdown);
                if links.is_empty() || links.iter().any(|l| !ids.contains(&l.as_str())) {
                    problems.push("relink_note lists related source_ids in body_markdown".into());
                }
            }
            _ => {}
        }
        if !problems.is_empty() {
            bad_operations.push(i);
            whole.extend(problems.into_iter().map(|m| problem(at.clone(), m)));
        }
    }
    (whole, bad_operations)
}

/// What a proposed note says that its sources do not: every sentence of a new or rewritten body
/// must pass the grounding gate against the note it rewrites (all sources, for a new note), and
/// every word of a title must be in that text. A small model rewriting a note otherwise invents
/// (measured: SmolLM2-135M turned a nutrition article into "the latest trends … are science
/// fiction").
fn ungrounded(request: &Request, op: &laika_shared::librarian::Operation, phrases_only: bool) -> Vec<String> {
    let sources: Vec<&Source> = match &op.target {
        Target::NoteId(id) => request.sources.iter().filter(|s| &s.source_id == id).collect(),
        Target::Path(_) => request.sources.iter().collect(),
    };
    if sources.is_empty() {
        return vec![]; // an unknown target is reported already
    }
    let text: String = sources.iter().map(|s| format!("{}\n{}\n", s.title, s.body_markdown)).collect();
    let lower = text.to_lowercase();
    let mut problems = vec![];
    let novel: Vec<&str> = op
        .title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4 || w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| !lower.contains(&w.to_lowercase()))
        .collect();
    if !novel.is_empty() {
        problems.push(format!("title words {novel:?} are not in the note"));
    }
    // From a small model, a title is a phrase of the note: every pair of neighbouring words
    // stands side by side in it. Its words alone are not enough: SmolLM2 strung them into "The 1
    // in 1 in 2025" (seen in the bench).
    if phrases_only {
        let flat: String =
            lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
        let words: Vec<String> = op
            .title
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let loose: Vec<String> = words
            .windows(2)
            .map(|pair| pair.join(" "))
            .filter(|pair| !format!(" {flat} ").contains(&format!(" {pair} ")))
            .collect();
        if !loose.is_empty() {
            problems.push(format!("the title is not a phrase of the note ({:?} are not side by side in it)", loose));
        }
    }
    // Words of the note in a loop ("deep 7 deep 7 deep") are no title (seen in the bench).
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for word in op.title.split_whitespace() {
        *counts.entry(word.to_lowercase()).or_default() += 1;
    }
    if laika_shared::grounding::guard::has_loop(&op.title) || counts.values().any(|n| *n > 2) {
        problems.push("the title repeats itself".into());
    }
    if matches!(op.kind, OperationKind::CreateNote | OperationKind::RewriteNote) {
        let index = laika_shared::grounding::PageIndex::new(&text);
        for sentence in laika_shared::grounding::sentences(&op.body_markdown) {
            // A sentence copied from the note is the note's own (the grammar offers only those);
            // the gate judges what was written anew.
            if sentence.heading
                || sentence.text.split_whitespace().count() < 4
                || lower.contains(&sentence.text.to_lowercase())
            {
                continue;
            }
            if let Err(why) = index.check(&sentence.text) {
                problems.push(format!(
                    "body sentence {:?} is not supported by the note ({})",
                    clip(&sentence.text, 80),
                    why.code()
                ));
            }
        }
    }
    problems
}

fn tags_of(body: &str) -> Vec<String> {
    body.split([',', '\n'])
        .map(|t| t.trim().trim_start_matches(['-', '*', '#']).trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn links_of(body: &str) -> Vec<String> {
    body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("note_"))
        .map(str::to_string)
        .collect()
}

/// Greedy, with no repetition penalties: a response repeats its tags on purpose (every operation
/// has the same eight), and penalising repeated tokens pushed SmolLM2-135M off the closing tags
/// into runs of punctuation until each field's token limit.
fn structured_sampling() -> Sampling {
    Sampling { frequency_penalty: 0.0, presence_penalty: 0.0, dry_multiplier: 0.0, ..Sampling::greedy() }
}

/// Runs the Librarian over `options.scope` with `engine`, records the run and its approval
/// cards, and returns its record.
pub async fn run(
    host: &Host,
    engine: Arc<dyn Engine>,
    pack: &PromptPack,
    options: &RunOptions,
) -> Result<RunRecord, HostError> {
    let started = Instant::now();
    let notebook = host.notebook()?;
    let notes = select(&notebook, &options.scope)?;
    let id = format!("lib_{}", &crate::prompt::new_id().replace('-', "")[..10]);
    let request = request(&id, options, &notes);
    let source_versions =
        notes.iter().take(limits::SOURCES).map(|n| (n.id.clone(), n.version)).collect::<BTreeMap<_, _>>();
    let parse_options =
        ParseOptions { strict: false, max_operations: options.max_operations, fallback_only: options.fallback_only };
    let shape = if options.grammar {
        OutputShape::Grammar(grammar::grammar(&request, options.fallback_only))
    } else {
        OutputShape::Markdown
    };
    let organise = pack.stage("organise");
    let mut prompt =
        (organise.system.clone(), organise.user.replace("{request}", &write_request(&request)), organise.max_tokens);
    let mut attempts: Vec<Attempt> = vec![];
    let mut accepted: Option<(Response, Vec<Diagnostic>, Vec<usize>)> = None;
    for attempt in 0..=limits::REPAIRS {
        let stage = if attempt == 0 { "organise" } else { "repair" };
        let call = Instant::now();
        let generation = engine
            .generate(
                GenerateRequest {
                    system: prompt.0.clone(),
                    examples: &[],
                    user: prompt.1.clone(),
                    max_tokens: prompt.2,
                    sampling: structured_sampling(),
                    shape: shape.clone(),
                    copy_bias: None,
                },
                &mut |_| {},
                &CancellationToken::new(),
            )
            .await
            .map_err(|e| HostError::new(e.code, e.message))?;
        let raw = generation.text.clone();
        let (code, diagnostics) = match parse_response(&raw, &parse_options) {
            Ok(response) => {
                // A response that parses is repaired only when it is wrong as a whole (another
                // request's id); an operation the contract refuses is dropped, not repaired: a
                // small model asked again rewrites the same operation.
                let (problems, bad) = check(&request, &response, engine.small());
                let whole_response_wrong = problems.iter().any(|d| !d.at.contains("operation["));
                if !whole_response_wrong {
                    attempts.push(Attempt {
                        stage: stage.into(),
                        raw,
                        code: (!problems.is_empty()).then(|| "LIBRARIAN_CONTRACT_VIOLATED".into()),
                        diagnostics: problems.clone(),
                        completion_tokens: generation.completion_tokens,
                        ms: call.elapsed().as_millis() as u64,
                    });
                    accepted = Some((response, problems, bad));
                    break;
                }
                ("LIBRARIAN_CONTRACT_VIOLATED".to_string(), problems)
            }
            Err(LibrarianError { code, diagnostics }) => (code.to_string(), diagnostics),
        };
        let errors: String =
            diagnostics.iter().map(|d| format!("- {}: {}", d.at, d.message)).collect::<Vec<_>>().join("\n");
        attempts.push(Attempt {
            stage: stage.into(),
            raw: raw.clone(),
            code: Some(code),
            diagnostics,
            completion_tokens: generation.completion_tokens,
            ms: call.elapsed().as_millis() as u64,
        });
        let repair = pack.stage("repair");
        prompt = (
            repair.system.clone(),
            repair.user.replace("{errors}", &errors).replace("{response}", &raw),
            repair.max_tokens,
        );
    }
    let mut record = RunRecord {
        id: id.clone(),
        status: "failed".into(),
        code: None,
        goal: options.goal.clone(),
        scope: options.scope.clone(),
        taxonomy: options.taxonomy.clone(),
        model: engine.model_id(),
        grammar: options.grammar,
        fallback_only: options.fallback_only,
        prompt_pack: json!({ "origin": pack.origin, "files": pack.hashes }),
        source_versions,
        attempts,
        response: None,
        dropped: vec![],
        proposed: vec![],
        ms: 0,
    };
    let mut rows = vec![];
    let mut approvals = vec![];
    match accepted {
        None => {
            // The parser's own code when the last answer did not parse; the contract's otherwise.
            record.code = record.attempts.last().and_then(|a| a.code.clone());
        }
        Some((response, problems, bad)) => {
            record.dropped = problems;
            for (i, operation) in response.operations.iter().enumerate().filter(|(i, _)| !bad.contains(i)) {
                let _ = i;
                let value = json!({
                    "operation_id": operation.operation_id,
                    "kind": operation.kind,
                    "target": operation.target,
                    "title": operation.title,
                    "body_markdown": operation.body_markdown,
                    "reason": operation.reason,
                    "confidence": operation.confidence,
                });
                if operation.kind == OperationKind::Defer {
                    rows.push((operation.operation_id.clone(), value, None, "deferred"));
                    continue;
                }
                let approval = approval_card(&id, &value);
                record.proposed.push(json!({ "operation": value, "approval_id": approval.id }));
                rows.push((operation.operation_id.clone(), value, Some(approval.id.clone()), "proposed"));
                approvals.push(approval);
            }
            record.status = if approvals.is_empty() { "done" } else { "proposed" }.into();
            record.response = Some(response);
        }
    }
    record.ms = started.elapsed().as_millis() as u64;
    let stored = serde_json::to_value(&record).map_err(|e| HostError::new("LIBRARIAN_FAILED", e.to_string()))?;
    notebook.record_run(&id, &options.goal, &options.scope, &record.status, &stored, &rows)?;
    for approval in approvals {
        host.history.record_approval(&approval).map_err(|e| HostError::new(e.code, e.message))?;
        host.publish(HostEvent::ApprovalAsked { approval, title: format!("The Librarian: {}", options.goal) });
    }
    Ok(record)
}

/// The card a proposed operation is asked on: what it would do, in words, and the operation.
fn approval_card(run_id: &str, operation: &Value) -> ApprovalRecord {
    let kind = operation["kind"].as_str().unwrap_or_default();
    let title = operation["title"].as_str().unwrap_or_default();
    let target = operation["target"]["note_id"].as_str().or(operation["target"]["path"].as_str()).unwrap_or_default();
    let what = match kind {
        "create_note" => format!("create a note \"{title}\" in {target}"),
        "rewrite_note" => format!("rewrite {target} as \"{title}\""),
        "retitle_note" => format!("retitle {target} as \"{title}\""),
        "retag_note" => format!("retag {target}"),
        "relink_note" => format!("link {target} to related notes"),
        other => other.to_string(),
    };
    let reason = operation["reason"].as_str().unwrap_or_default();
    ApprovalRecord {
        id: format!("{run_id}-{}", operation["operation_id"].as_str().unwrap_or_default()),
        conversation_id: None,
        created_at: crate::prompt::now_utc(),
        origin: None,
        tool_name: format!("{TOOL_PREFIX}{kind}"),
        arguments: json!({ "run_id": run_id, "operation": operation }),
        verdict: "ask".into(),
        code: "POLICY_NEEDS_APPROVAL".into(),
        grantable: None,
        decision: None,
        decided_at: None,
        reason: Some(format!("The Librarian proposes to {what}. Its reason: {reason}")),
    }
}

/// Applies or rejects the operation an answered card was about (called wherever an approval is
/// decided). Nothing for cards of other tools.
pub fn decided(host: &Host, approval: &ApprovalRecord) -> Option<Result<Value, NotebookError>> {
    if !approval.tool_name.starts_with(TOOL_PREFIX) {
        return None;
    }
    let notebook = match host.notebook() {
        Ok(notebook) => notebook,
        Err(e) => return Some(Err(e)),
    };
    let stored = match notebook.operation_for_approval(&approval.id) {
        Ok(Some(stored)) if stored.state == "proposed" => stored,
        Ok(_) => return None,
        Err(e) => return Some(Err(e)),
    };
    let approved = matches!(approval.decision.as_deref(), Some("approve" | "always_on_site"));
    let outcome = if approved {
        let versions = notebook
            .run_record(&stored.run_id)
            .ok()
            .flatten()
            .map(|r| r["source_versions"].clone())
            .unwrap_or_default();
        apply(&notebook, &stored.run_id, &stored.operation, &versions)
    } else {
        Ok(json!({ "rejected": true }))
    };
    let (state, result) = match &outcome {
        Ok(result) if approved => ("applied", result.clone()),
        Ok(result) => ("rejected", result.clone()),
        Err(e) => ("failed", json!({ "code": e.code, "message": e.message })),
    };
    if let Err(e) = notebook.settle_operation(&stored.run_id, &stored.operation_id, state, &result) {
        return Some(Err(e));
    }
    Some(outcome)
}

/// Applies one operation to the notebook as a new version (or a new note), recording the run
/// and operation that made it. A note changed since the request was written is refused
/// (`NOTEBOOK_CONFLICT`) rather than overwritten.
pub fn apply(
    notebook: &Notebook,
    run_id: &str,
    operation: &Value,
    source_versions: &Value,
) -> Result<Value, NotebookError> {
    let text = |field: &str| redact::redact_text(operation[field].as_str().unwrap_or_default().trim());
    let change = NoteChange {
        by: "librarian".into(),
        run_id: Some(run_id.to_string()),
        operation_id: operation["operation_id"].as_str().map(str::to_string),
        reverts: None,
    };
    let kind = operation["kind"].as_str().unwrap_or_default();
    if kind == "create_note" {
        let path = operation["target"]["path"].as_str().unwrap_or_default().trim_matches('/').to_string();
        let topic = path.split('/').next().unwrap_or_default().to_string();
        let state = NoteState {
            title: text("title"),
            body_markdown: text("body_markdown"),
            tags: if topic.is_empty() { vec![] } else { vec![topic] },
            path: (!path.is_empty()).then_some(path),
            ..NoteState::default()
        };
        let note = notebook.create(&state, &[], "default", &change)?;
        return Ok(json!({ "note_id": note.id, "version": note.version }));
    }
    let id = operation["target"]["note_id"].as_str().unwrap_or_default();
    let expected = source_versions[id].as_i64();
    let (title, body) = (text("title"), text("body_markdown"));
    let note = notebook.update(
        id,
        expected,
        |state| match kind {
            "rewrite_note" => {
                state.title = title;
                state.body_markdown = body;
            }
            "retitle_note" => state.title = title,
            "retag_note" => state.tags = tags_of(&body),
            "relink_note" => state.links = links_of(&body),
            _ => {}
        },
        &change,
    )?;
    Ok(json!({ "note_id": note.id, "version": note.version }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::scripted::Scripted;
    use crate::notebook::NoteSource;

    struct Dir(std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A host with two notes: note_1 (an outage) and note_2 (a recipe).
    fn host(name: &str) -> (Dir, Arc<Host>) {
        let dir = std::env::temp_dir().join(format!("laika-librarian-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let host = Host::open(&dir).unwrap();
        for (title, body) in [
            ("Outage notes", "The primary database stopped at 09:10 on 3 May. The replicas took over within a minute."),
            ("Soup", "Simmer the lentils for twenty minutes. Add the cumin at the end."),
        ] {
            let state = NoteState { title: title.into(), body_markdown: body.into(), ..NoteState::default() };
            let source = NoteSource { url: "https://example.com".into(), title: None, citations: vec![] };
            host.notebook().unwrap().create(&state, &[source], "default", &NoteChange::by("notes.add")).unwrap();
        }
        (Dir(dir), host)
    }

    fn options() -> RunOptions {
        RunOptions {
            goal: "Give each note a clear title".into(),
            scope: "notebook".into(),
            taxonomy: vec!["database".into(), "cooking".into()],
            max_operations: 3,
            fallback_only: true,
            grammar: true,
        }
    }

    /// A response to whatever request id the run makes: `{id}` is replaced by the test's engine.
    fn response(operations: &str) -> String {
        format!(
            "<librarian_response>\n<request_id>{{id}}</request_id>\n<status>ok</status>\n<summary>Clearer titles.</summary>\n\
             <operations>\n{operations}</operations>\n<warnings></warnings>\n</librarian_response>"
        )
    }

    fn operation(n: u32, kind: &str, target: &str, title: &str, body: &str) -> String {
        let target = if kind == "create_note" {
            format!("<target_path>{target}</target_path>")
        } else {
            format!("<target_note_id>{target}</target_note_id>")
        };
        format!(
            "<operation>\n<operation_id>op_{n}</operation_id>\n<kind>{kind}</kind>\n{target}\n<title>{title}</title>\n\
             <body_markdown>{body}</body_markdown>\n<reason>Says what it is about.</reason>\n<confidence>0.8</confidence>\n</operation>\n"
        )
    }

    async fn run_with_id(host: &Host, engine: Arc<Scripted>, options: &RunOptions) -> RunRecord {
        let filled = FillId(engine.clone());
        run(host, Arc::new(filled), &PromptPack::built_in().unwrap(), options).await.unwrap()
    }

    /// The scripted engine, with `{id}` in its answer replaced by the request's id.
    struct FillId(Arc<Scripted>);
    impl Engine for FillId {
        fn model_id(&self) -> String {
            self.0.model_id()
        }
        fn context_tokens(&self) -> usize {
            self.0.context_tokens()
        }
        fn small(&self) -> bool {
            true
        }
        fn generate<'a>(
            &'a self,
            request: GenerateRequest,
            sink: crate::engine::TokenSink<'a>,
            cancel: &'a CancellationToken,
        ) -> futures::future::BoxFuture<'a, Result<crate::engine::Generation, crate::engine::EngineError>> {
            Box::pin(async move {
                let id = request
                    .user
                    .split("<request_id>")
                    .nth(1)
                    .and_then(|r| r.split('<').next())
                    .map(str::to_string)
                    .or_else(|| {
                        // A repair prompt holds the earlier answer, and its id.
                        self.0.asked.lock().unwrap().first().and_then(|first| {
                            first
                                .user
                                .split("<request_id>")
                                .nth(1)
                                .and_then(|r| r.split('<').next())
                                .map(str::to_string)
                        })
                    })
                    .unwrap_or_default();
                let mut generation = self.0.generate(request, sink, cancel).await?;
                generation.text = generation.text.replace("{id}", &id);
                Ok(generation)
            })
        }
    }

    #[tokio::test]
    async fn a_grounded_proposal_is_a_card_and_approving_it_applies_a_version_that_undo_takes_back() {
        let (_dir, host) = host("apply");
        let answer = response(&operation(
            1,
            "rewrite_note",
            "note_1",
            "The primary database stopped",
            "The primary database stopped at 09:10 on 3 May. The replicas took over within a minute.",
        ));
        let engine = Scripted::new(true, &[answer.as_str()]);
        let record = run_with_id(&host, engine.clone(), &options()).await;
        assert_eq!(record.status, "proposed", "{record:?}");
        assert_eq!(record.attempts.len(), 1);
        let hashes = record.prompt_pack["files"].as_object().unwrap();
        assert_eq!(hashes.len(), 3, "every prompt file's SHA-256 is recorded");
        let asked = &engine.asked.lock().unwrap()[0];
        assert!(asked.user.contains("<source_id>note_1</source_id>") && asked.user.contains("<taxonomy>"));
        assert!(
            matches!(&asked.shape, OutputShape::Grammar(g) if g.contains("<target_note_id>note_1</target_note_id>") && g.contains("<target_note_id>note_2</target_note_id>"))
        );

        let approval_id = record.proposed[0]["approval_id"].as_str().unwrap().to_string();
        let card = host.history.approval(&approval_id).unwrap().unwrap();
        assert_eq!((card.tool_name.as_str(), card.verdict.as_str()), ("librarian.rewrite_note", "ask"));
        assert!(card.reason.unwrap().contains("rewrite note_1 as \"The primary database stopped\""));
        assert_eq!(
            host.notebook().unwrap().live("note_1").unwrap().state.title,
            "Outage notes",
            "nothing changes before approval"
        );

        let decided = host.history.decide_approval(&approval_id, "approve").unwrap();
        let applied = decided_and_applied(&host, &decided);
        assert_eq!(applied["note_id"], "note_1");
        let note = host.notebook().unwrap().live("note_1").unwrap();
        assert_eq!((note.state.title.as_str(), note.version), ("The primary database stopped", 2));
        let versions = host.notebook().unwrap().versions("note_1").unwrap();
        assert_eq!(versions[1].change.run_id.as_deref(), Some(record.id.as_str()));
        assert_eq!(host.notebook().unwrap().operations(&record.id).unwrap()[0].state, "applied");
        // A second answer to the same card changes nothing.
        assert!(decided_again(&host, &decided).is_none());
        assert_eq!(host.notebook().unwrap().undo("note_1").unwrap().state.title, "Outage notes");
    }

    fn decided_and_applied(host: &Host, approval: &ApprovalRecord) -> Value {
        decided(host, approval).expect("a Librarian card").expect("applies")
    }

    fn decided_again(host: &Host, approval: &ApprovalRecord) -> Option<Result<Value, NotebookError>> {
        decided(host, approval)
    }

    #[tokio::test]
    async fn a_broken_answer_is_repaired_with_only_its_errors_and_itself() {
        let (_dir, host) = host("repair");
        let broken = "<librarian_response>\n<request_id>{id}</request_id>\n<status>ok</status>";
        let good = response(&operation(
            1,
            "create_note",
            "database",
            "Outage notes",
            "The primary database stopped at 09:10 on 3 May.",
        ));
        let engine = Scripted::new(true, &[broken, good.as_str()]);
        let record = run_with_id(&host, engine.clone(), &options()).await;
        assert_eq!((record.status.as_str(), record.attempts.len()), ("proposed", 2), "{record:?}");
        assert_eq!(record.attempts[0].code.as_deref(), Some("LIBRARIAN_PROTOCOL_INVALID"));
        let repair = &engine.asked.lock().unwrap()[1];
        assert!(repair.user.starts_with("Errors:\n- "), "{}", repair.user);
        assert!(repair.user.contains("<status>ok</status>"), "the original answer");
        assert!(
            !repair.user.contains("<source_bundle>") && !repair.user.contains("Simmer"),
            "nothing else: {}",
            repair.user
        );
        assert_eq!(record.proposed[0]["operation"]["target"]["path"], "database");
    }

    #[tokio::test]
    async fn an_answer_that_never_parses_fails_with_its_code_and_keeps_every_raw_text() {
        let (_dir, host) = host("fail");
        let engine = Scripted::new(true, &["I organised your notes!", "Sure.", "<librarian_response>"]);
        let record = run_with_id(&host, engine.clone(), &options()).await;
        assert_eq!(record.status, "failed");
        assert_eq!(record.code.as_deref(), Some("LIBRARIAN_PROTOCOL_INVALID"));
        assert_eq!(record.attempts.len(), 3, "the first answer and two repairs, no more");
        let stored = host.notebook().unwrap().run_record(&record.id).unwrap().unwrap();
        assert_eq!(stored["attempts"][0]["raw"], "I organised your notes!");
        assert_eq!(stored["status"], "failed");
        assert!(host.history.pending_approvals(10).unwrap().is_empty());
    }

    #[tokio::test]
    async fn invented_text_unknown_notes_and_repeated_targets_are_dropped_not_proposed() {
        let (_dir, host) = host("contract");
        let ops = [
            operation(
                1,
                "rewrite_note",
                "note_2",
                "Simmer the lentils",
                "Simmer the lentils for twenty minutes. Add the cumin at the end.",
            ),
            operation(2, "rewrite_note", "note_2", "Soup", "Simmer the lentils for twenty minutes."),
            operation(
                3,
                "rewrite_note",
                "note_1",
                "Outage notes",
                "The latest trends in databases are science fiction.",
            ),
            operation(4, "retitle_note", "note_9", "Soup", "x"),
            operation(
                5,
                "rewrite_note",
                "note_1",
                "Outage notes notes notes",
                "The replicas took over within a minute.",
            ),
            operation(6, "create_note", "database", "The 1 in 1", "The replicas took over within a minute."),
        ]
        .concat();
        let answer = response(&ops);
        let engine = Scripted::new(true, &[answer.as_str(), answer.as_str(), answer.as_str()]);
        let mut options = options();
        options.fallback_only = false;
        options.max_operations = 6;
        let filled = FillId(engine.clone());
        let record = run(&host, Arc::new(filled), &PromptPack::built_in().unwrap(), &options).await.unwrap();
        assert_eq!(record.attempts.len(), 1, "refused operations are dropped, not repaired");
        let proposed: Vec<&str> =
            record.proposed.iter().map(|p| p["operation"]["operation_id"].as_str().unwrap()).collect();
        assert_eq!(proposed, ["op_1"], "{:?}", record.dropped);
        let why: Vec<&str> = record.dropped.iter().map(|d| d.message.as_str()).collect();
        assert!(why.iter().any(|m| m.contains("one operation per note")), "{why:?}");
        assert!(
            why.iter().any(|m| m.contains("\"Lentil\"")) || !why.iter().any(|m| m.contains("operation[1]")),
            "{why:?}"
        );
        assert!(why.iter().any(|m| m.contains("science fiction")), "{why:?}");
        assert!(why.iter().any(|m| m.contains("note_9 is not a source_id")), "{why:?}");
        assert!(why.iter().any(|m| m.contains("the title repeats itself")), "{why:?}");
        assert!(why.iter().any(|m| m.contains("not a phrase of the note")), "{why:?}");
    }

    #[test]
    fn scopes_select_notes_and_a_bad_one_says_what_is_allowed() {
        let notebook = Notebook::open_in_memory().unwrap();
        for (title, tag) in [("A", "x"), ("B", "y")] {
            let state = NoteState { title: title.into(), tags: vec![tag.into()], ..NoteState::default() };
            notebook.create(&state, &[], "default", &NoteChange::by("t")).unwrap();
        }
        let titles =
            |scope: &str| select(&notebook, scope).map(|n| n.into_iter().map(|n| n.state.title).collect::<Vec<_>>());
        assert_eq!(titles("notebook").unwrap(), ["B", "A"]);
        assert_eq!(titles("tag:y").unwrap(), ["B"]);
        assert_eq!(titles("note:note_1").unwrap(), ["A"]);
        assert_eq!(titles("tag:z").unwrap_err().code, "LIBRARIAN_EMPTY_SCOPE");
        assert_eq!(titles("everything").unwrap_err().code, "LIBRARIAN_BAD_SCOPE");
        assert_eq!(titles("note:note_7").unwrap_err().code, "NOTEBOOK_NOT_FOUND");
    }
}
