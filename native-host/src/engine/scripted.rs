//! A test engine (compiled for unit tests only): answers each call with the next reply of its
//! script, streamed in small pieces and stopping when cancelled, like a model would; once the
//! script is spent, a JSON-shaped request gets the first option its schema offers (what
//! SmolLM2 does when asked for a number) and any other an empty reply. It records every request.
//! The real engines are tested with the real model (tests/model.rs, the e2e suite); this one
//! shows what the summary service and the planner do with a given output.

use super::{Engine, EngineError, GenerateRequest, Generation, OutputShape, TokenSink};
use futures::future::BoxFuture;
use serde_json::json;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

pub struct Scripted {
    small: bool,
    /// The replies still to give, last first.
    script: Mutex<Vec<String>>,
    pub asked: Mutex<Vec<GenerateRequest>>,
}

impl Scripted {
    pub fn new(small: bool, script: &[&str]) -> Arc<Scripted> {
        let script = script.iter().rev().map(|s| s.to_string()).collect();
        Arc::new(Scripted { small, script: Mutex::new(script), asked: Mutex::new(vec![]) })
    }

    /// The user turns it was given, in order.
    pub fn prompts(&self) -> Vec<String> {
        self.asked.lock().unwrap().iter().map(|r| r.user.clone()).collect()
    }
}

impl Engine for Scripted {
    fn model_id(&self) -> String {
        "test:scripted".into()
    }

    fn context_tokens(&self) -> usize {
        8192
    }

    fn small(&self) -> bool {
        self.small
    }

    fn generate<'a>(
        &'a self,
        request: GenerateRequest,
        sink: TokenSink<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Generation, EngineError>> {
        Box::pin(async move {
            let scripted = self.script.lock().unwrap().pop();
            let reply = scripted.unwrap_or_else(|| match &request.shape {
                OutputShape::Json(schema) => {
                    let first = &schema["anyOf"][0]["properties"];
                    json!({ "choice": first["choice"]["const"], "tool_calls": first["tool_calls"]["const"] })
                        .to_string()
                }
                _ => String::new(),
            });
            self.asked.lock().unwrap().push(request);
            let mut out = Generation { finish_reason: "stop".into(), ..Generation::default() };
            let mut rest = reply.as_str();
            while !rest.is_empty() {
                if cancel.is_cancelled() {
                    out.finish_reason = "cancelled".into();
                    break;
                }
                let cut = rest.char_indices().nth(5).map_or(rest.len(), |(i, _)| i);
                let (piece, tail) = rest.split_at(cut);
                out.text.push_str(piece);
                sink(piece);
                rest = tail;
            }
            Ok(out)
        })
    }
}
