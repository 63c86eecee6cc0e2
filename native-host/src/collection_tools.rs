//! The executors of the collection tools (`collection.*`, `source.*`, `transform.*`), run by
//! [`crate::host_tools::run`] after the gate, over the notebook's collections
//! ([`crate::notebook::collections`]) and transforms ([`crate::notebook::transforms`]).
//!
//! A capture needs the browser: the host cannot open a page. So `source.capture` and
//! `source.refresh` run in two steps. `tool.run {call_id}` answers `{needs_capture: {url,
//! maxChars}}` and stores nothing; the sidecar opens the address in a background tab, reads it
//! with the same reader as any page, closes the tab, and asks `tool.run {call_id, capture:
//! <observation>}`, which stores the page as the source. Only then is the call's outcome kept.

use crate::host::Host;
use crate::notebook::{Notebook, export, transforms};
use crate::transport::HostError;
use laika_shared::observation::{Observation, SOURCE_DEFAULT_CHARS, SourceShape};
use laika_shared::tools::{CaptureMode, ToolCall};
use serde_json::{Value, json};

/// Whether a call needs a page captured by the browser before it can run.
pub fn needs_browser(call: &ToolCall) -> bool {
    matches!(call, ToolCall::SourceCapture(_) | ToolCall::SourceRefresh(_))
}

/// What the browser is to capture for a capture call: `{url, maxChars}`.
pub fn capture_request(host: &Host, call: &ToolCall) -> Result<Value, HostError> {
    match call {
        ToolCall::SourceCapture(args) => {
            // The collection must exist before a page is opened for it.
            host.notebook()?.collection(&args.collection_id)?;
            Ok(
                json!({ "url": args.url.trim(), "maxChars": args.max_chars.map_or(SOURCE_DEFAULT_CHARS, |n| n as usize) }),
            )
        }
        ToolCall::SourceRefresh(args) => {
            let (row, _) = host.notebook()?.source(&args.source_id)?;
            if row.kind != "url" {
                return Err(not_a_page(&row.id));
            }
            Ok(json!({ "url": row.url, "maxChars": SOURCE_DEFAULT_CHARS }))
        }
        other => Err(HostError::new("TOOL_NO_EXECUTOR", format!("{} captures nothing", other.name()))),
    }
}

/// Runs a collection tool. `capture` is the page the browser read for a capture call.
pub fn run(host: &Host, call: &ToolCall, capture: Option<&Value>) -> Result<Value, HostError> {
    let notebook = host.notebook()?;
    match call {
        ToolCall::CollectionCreate(args) => {
            let collection = notebook.create_collection(&args.title, args.tags.as_deref().unwrap_or_default())?;
            Ok(json!({
                "collectionId": collection.id,
                "title": collection.title,
                "message": format!("Created the collection {} ({}).", collection.title, collection.id),
            }))
        }
        ToolCall::CollectionAddSources(args) => {
            let before = notebook.collection(&args.collection_id)?.sources;
            let sources = notebook.add_sources(&args.collection_id, &args.sources)?;
            let pending = sources.iter().filter(|s| s.status == "pending").count();
            Ok(json!({
                "collectionId": args.collection_id.trim(),
                "sources": sources,
                "message": format!(
                    "Added {} source(s) to {}{}.",
                    sources.len() - before,
                    args.collection_id.trim(),
                    if pending > 0 { format!("; {pending} address(es) wait to be captured") } else { String::new() }
                ),
            }))
        }
        ToolCall::CollectionListSources(args) => {
            let collection = notebook.collection(&args.collection_id)?;
            let sources = notebook.sources(&collection.id)?;
            Ok(json!({
                "collectionId": collection.id,
                "title": collection.title,
                "sources": sources,
                "message": format!("{} holds {} source(s).", collection.title, sources.len()),
            }))
        }
        ToolCall::SourceCapture(args) => {
            let max_chars = args.max_chars.map_or(SOURCE_DEFAULT_CHARS, |n| n as usize);
            store(&notebook, &args.collection_id, args.url.trim(), shape_of(args.mode), max_chars, capture)
        }
        ToolCall::SourceRefresh(args) => {
            let (row, _) = notebook.source(&args.source_id)?;
            if row.kind != "url" {
                return Err(not_a_page(&row.id));
            }
            store(&notebook, &row.collection_id, &row.url, None, SOURCE_DEFAULT_CHARS, capture)
        }
        ToolCall::TransformListTypes(_) => Ok(transforms::list_types()),
        ToolCall::TransformRun(args) => {
            let note =
                transforms::run(&notebook, &args.collection_id, args.transform_type.trim(), args.config.as_ref())?;
            let markdown = export::to_markdown(&note);
            Ok(json!({
                "artifactId": note.id,
                "title": note.state.title,
                "doc": laika_shared::markdown::markdown_to_doc(&markdown),
                "message": format!("Made \"{}\", saved as {} in your notes.", note.state.title, note.id),
            }))
        }
        other => Err(HostError::new("TOOL_NO_EXECUTOR", format!("{} is not a collection tool", other.name()))),
    }
}

/// Stores the page the browser captured for `url` as that source of the collection.
fn store(
    notebook: &Notebook,
    collection_id: &str,
    url: &str,
    shape: Option<SourceShape>,
    max_chars: usize,
    capture: Option<&Value>,
) -> Result<Value, HostError> {
    let capture = capture
        .ok_or_else(|| HostError::new("SOURCE_NOT_CAPTURED", "the page was not captured; nothing was stored"))?;
    let observation: Observation = serde_json::from_value(capture.clone()).map_err(|e| {
        HostError::new("SOURCE_CAPTURE_INVALID", format!("the captured page does not read as an observation: {e}"))
    })?;
    if observation.text.trim().is_empty() && observation.items.is_empty() {
        return Err(HostError::new("SOURCE_EMPTY", format!("{url} showed no text to keep; nothing was stored")));
    }
    let row = notebook.store_capture(collection_id, url, &observation, shape, max_chars)?;
    Ok(json!({
        "sourceId": row.id,
        "collectionId": row.collection_id,
        "title": row.title,
        "chars": row.chars,
        "message": format!("Captured \"{}\" into {} ({} characters).", row.title, row.collection_id, row.chars),
    }))
}

fn not_a_page(id: &str) -> HostError {
    HostError::new("SOURCE_NOT_A_PAGE", format!("{id} is a note, not a page: there is nothing to fetch"))
}

fn shape_of(mode: Option<CaptureMode>) -> Option<SourceShape> {
    match mode {
        Some(CaptureMode::Article) => Some(SourceShape::Article),
        Some(CaptureMode::List) => Some(SourceShape::List),
        Some(CaptureMode::Auto) | None => None,
    }
}
