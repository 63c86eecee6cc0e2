//! Engines: what turns a prompt into text. One trait, three kinds:
//! - [`mistral`]: mistral.rs embedded in the host, any local GGUF (the default);
//! - [`openai`]: an OpenAI-compatible HTTP server (vLLM, SGLang, Ollama, llama.cpp's server);
//! - [`extractive`]: no model; a grounded extractive answer computed from the request itself.
//!
//! Every engine receives two messages: a fixed system prompt (instructions only) and the user
//! content: the `input` + `context` of a laika.llmcp request packet as JSON, or for a
//! [`Engine::small`] model the same request rendered as plain text (`prompt::plain_prompt`).
//! Page text therefore only ever reaches a model inside that untrusted user content.

pub mod extractive;
#[cfg(feature = "embedded")]
pub mod mistral;
pub mod openai;
#[cfg(feature = "embedded")]
pub mod requant;
#[cfg(test)]
pub mod scripted;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Sampling for one call. The defaults are laika-tools.md's non-thinking Qwen3 settings.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Sampling {
    pub temperature: f64,
    pub top_p: f64,
    pub top_k: usize,
    pub min_p: f64,
    /// Penalises tokens by how often they already appeared; small models loop without it.
    pub frequency_penalty: f32,
    pub presence_penalty: f32,
    /// DRY ("don't repeat yourself") sequence penalty multiplier; 0 turns it off.
    pub dry_multiplier: f32,
    pub seed: Option<u64>,
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling {
            temperature: 0.7,
            top_p: 0.8,
            top_k: 20,
            min_p: 0.0,
            frequency_penalty: 0.3,
            presence_penalty: 0.0,
            dry_multiplier: 0.8,
            seed: None,
        }
    }
}

impl Sampling {
    /// Greedy decoding with the repetition controls kept: for tests and repair retries.
    pub fn greedy() -> Self {
        Sampling { temperature: 0.0, top_p: 1.0, top_k: 1, ..Sampling::default() }
    }
}

/// What the caller expects back.
#[derive(Clone, Debug, PartialEq)]
pub enum OutputShape {
    /// Free text in the sanitised Markdown subset (answers; streamed to the user).
    Markdown,
    /// One JSON object valid under this schema (decoded under it where the engine can).
    Json(Value),
    /// Plain sentences on one line, at most `max_chars` characters (a gist or an answer):
    /// engines that constrain decoding hold the output to that shape, so a small model can
    /// neither run on nor start a list.
    Sentences { max_chars: usize },
    /// Exactly one of these texts, as written (a sentence's shorter forms, for a shortening):
    /// engines that constrain decoding can only choose among them; others are only asked by the
    /// prompt, and what they write is checked as any answer is.
    OneOf(Vec<String>),
    /// Text in the language of this grammar (llguidance's Lark syntax): engines that constrain
    /// decoding hold the output to it; others are only asked by the prompt.
    Grammar(String),
}

#[derive(Clone, Debug)]
pub struct GenerateRequest {
    /// Instructions only; never page text.
    pub system: String,
    /// Worked examples, shown as earlier turns of the conversation between `system` and `user`:
    /// a small model copies the shape of an answer it has seen more faithfully than it follows
    /// an instruction. Written for the task, never page text.
    pub examples: &'static [Exchange],
    /// The packet's `input` + `context` as JSON (documents marked `trust: "untrusted"`).
    pub user: String,
    pub max_tokens: usize,
    pub sampling: Sampling,
    pub shape: OutputShape,
    /// Text whose tokens a local engine favours while decoding; engines that cannot bias
    /// logits ignore it.
    pub copy_bias: Option<CopyBias>,
}

/// One worked example of a task: what the user says, and the answer wanted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exchange {
    pub user: &'static str,
    pub assistant: &'static str,
}

/// A bias towards the tokens of a text: a small model asked about a page then restates it in
/// the page's own words rather than its paraphrase, which the grounding gate would drop (a
/// name or word the page never uses). It only favours; the gate still decides.
#[derive(Clone, Debug, PartialEq)]
pub struct CopyBias {
    pub text: String,
    /// Added to the logit of every token the text's tokenisation uses.
    pub logit: f32,
}

/// The start every request of one kind shares: the fixed system prompt and the beginning of the
/// user content. An engine with a prefix cache can keep it computed.
#[derive(Clone, Debug, PartialEq)]
pub struct WarmPrefix {
    pub system: String,
    pub user_start: String,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Generation {
    pub text: String,
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    /// `stop`, `length`, `cancelled`, or what the engine said.
    pub finish_reason: String,
    #[serde(with = "millis_opt")]
    pub first_token: Option<Duration>,
    #[serde(with = "millis")]
    pub total: Duration,
}

mod millis {
    pub fn serialize<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64() * 1000.0)
    }
}
mod millis_opt {
    pub fn serialize<S: serde::Serializer>(d: &Option<std::time::Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_f64(d.as_secs_f64() * 1000.0),
            None => s.serialize_none(),
        }
    }
}

/// An engine failure, with a stable code.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineError {
    pub code: &'static str,
    pub message: String,
}

impl EngineError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        EngineError { code, message: message.into() }
    }
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for EngineError {}

/// Where streamed text goes as it is generated.
pub type TokenSink<'a> = &'a mut (dyn FnMut(&str) + Send);

pub trait Engine: Send + Sync {
    /// What the engine is, for history and `model.status` (`mistralrs:<file>`, `openai:<model>`…).
    fn model_id(&self) -> String;

    /// The engine's context window in tokens, when known; the packer budgets against it.
    fn context_tokens(&self) -> usize;

    /// Whether the model is small (the embedded default, or a remote model configured as one):
    /// a small model is handed plain text (title, numbered passages, one short question last)
    /// instead of the laika.llmcp JSON packet, which it cannot read (shared/notes/quality-probe.md).
    fn small(&self) -> bool {
        false
    }

    /// Whether a language model writes this engine's text (the extractive engine only quotes the
    /// page, so a summary asks it for nothing beyond the key points).
    fn is_model(&self) -> bool {
        true
    }

    /// Generates one reply, calling `sink` with each piece of text as it arrives. Stops early
    /// (finish reason `cancelled`) when `cancel` fires.
    fn generate<'a>(
        &'a self,
        request: GenerateRequest,
        sink: TokenSink<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Generation, EngineError>>;
}

/// Which engine a user picked (CLI `--engine`, `config.set engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// mistral.rs embedded, a local GGUF.
    Mistral,
    /// An OpenAI-compatible server.
    Openai,
    /// No model: extractive, deterministic.
    Extractive,
}

impl EngineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::Mistral => "mistral",
            EngineKind::Openai => "openai",
            EngineKind::Extractive => "extractive",
        }
    }
}
