//! The embedded engine: mistral.rs running a local GGUF on the CPU.
//!
//! Loading goes one level below `GgufModelBuilder` because the builder always picks the Auto
//! dtype (F16 on CPU), which candle runs 4–8× slower than F32 (shared/notes/engine-probe.md).
//! The tokenizer and chat template come from the GGUF itself. The file must sit in a directory
//! of its own: a tokenizer or template file beside it would override the GGUF's.

use super::{Engine, EngineError, GenerateRequest, Generation, OutputShape, TokenSink};
use futures::future::BoxFuture;
use mistralrs::core::{GGUFLoaderBuilder, GGUFSpecificConfig, TokenSource};
use mistralrs::{
    AutoDeviceMapParams, Constraint, DefaultSchedulerMethod, DeviceMapSetting, DrySamplingParams, Model, ModelDType,
    RequestBuilder, Response, SchedulerConfig, StopTokens, TextMessageRole,
};
use std::path::{Path, PathBuf};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// How the engine computes on the CPU. F32 activations with the quantised weights dequantised
/// at load is the fastest set-up measured for small models (candle has no SIMD Q4_1 kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// F32 activations, weights dequantised to F32 at load (fast; ≈ 10× the file size in RAM).
    F32,
    /// F32 activations, weights kept quantised (less memory, slower on CPU).
    F32Quantised,
    /// mistral.rs's own choice (F16 on CPU; slowest here).
    Auto,
}

/// The longest wait for the next piece of output (prompt processing of a full window on a slow
/// CPU included) before a request counts as stalled.
const STALL_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

pub struct MistralEngine {
    model: Model,
    file_name: String,
    context_tokens: usize,
    stop_ids: Vec<u32>,
}

impl MistralEngine {
    /// Loads `gguf` (a path to a `.gguf` file). Never touches the network: the path is checked
    /// first, because mistral.rs sends a path that does not exist to the hub as a model id.
    pub async fn load(gguf: &Path, precision: Precision) -> Result<MistralEngine, EngineError> {
        let gguf =
            gguf.canonicalize().map_err(|e| EngineError::new("MODEL_NOT_FOUND", format!("{}: {e}", gguf.display())))?;
        if !gguf.is_file() {
            return Err(EngineError::new("MODEL_NOT_FOUND", format!("{} is not a file", gguf.display())));
        }
        let dir: PathBuf = gguf.parent().map(Path::to_path_buf).unwrap_or_default();
        let file_name = gguf.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        // Candle reads this when it loads quantised tensors; only for this load, and only when
        // the user has not set it themselves.
        let dequantise = precision == Precision::F32 && std::env::var_os("CANDLE_DEQUANTIZE_ALL").is_none();
        let dtype = match precision {
            Precision::Auto => ModelDType::Auto,
            Precision::F32 | Precision::F32Quantised => ModelDType::F32,
        };
        let dir_string = dir.to_string_lossy().into_owned();
        let file_for_loader = file_name.clone();
        let pipeline = tokio::task::spawn_blocking(move || {
            let loader = GGUFLoaderBuilder::new(
                None,
                None,
                dir_string,
                vec![file_for_loader],
                GGUFSpecificConfig { topology: None },
                false,
                None,
            )
            .build();
            with_dequantise(dequantise, || {
                loader.load_model_from_hf(
                    None,
                    TokenSource::None,
                    &dtype,
                    &mistralrs::Device::Cpu,
                    true,
                    DeviceMapSetting::Auto(AutoDeviceMapParams::default_text()),
                    None,
                    None,
                )
            })
        })
        .await
        .map_err(|e| EngineError::new("MODEL_LOAD_FAILED", e.to_string()))?
        .map_err(|e| EngineError::new("MODEL_LOAD_FAILED", format!("{}: {e:#}", gguf.display())))?;

        let scheduler =
            SchedulerConfig::DefaultScheduler { method: DefaultSchedulerMethod::Fixed(4.try_into().unwrap()) };
        let runner = mistralrs::core::MistralRsBuilder::new(pipeline, scheduler, false, None)
            .with_prefix_cache_n(16)
            .build()
            .await;
        let model = Model::new(runner);
        let context_tokens = model.max_sequence_length().ok().flatten().unwrap_or(4096);
        let mut engine = MistralEngine { model, file_name, context_tokens, stop_ids: vec![] };
        engine.stop_ids = engine.special_stop_ids().await;
        Ok(engine)
    }

    /// The ids of the chat end and end-of-text tokens. Under a JSON-schema constraint the grammar
    /// forces end-of-text after the closing brace while the engine only stops on the template's
    /// end-of-turn token; both must stop generation or it runs to the length limit.
    async fn special_stop_ids(&self) -> Vec<u32> {
        let mut ids = vec![];
        for token in ["<|im_end|>", "<|endoftext|>", "<|end_of_text|>", "<|eot_id|>", "</s>"] {
            if let Ok(found) =
                self.model.tokenize(either::Either::Right(token.to_string()), None, false, false, None).await
                && let [id] = found.as_slice()
            {
                ids.push(*id);
            }
        }
        ids
    }

    /// Tokens of a text under this model's tokenizer (for budgets and benchmarks).
    pub async fn count_tokens(&self, text: &str) -> Result<usize, EngineError> {
        self.model
            .tokenize(either::Either::Right(text.to_string()), None, false, false, None)
            .await
            .map(|t| t.len())
            .map_err(|e| EngineError::new("ENGINE_FAILED", e.to_string()))
    }
}

/// `min..=max` lines of "- " and at least a few characters, none longer than `max_chars`.
fn bullets_regex(min: usize, max: usize, max_chars: usize) -> String {
    format!("(- [A-Z0-9][^\\n]{{8,{max_chars}}}\\n){{{min},{max}}}")
}

fn with_dequantise<T>(on: bool, f: impl FnOnce() -> T) -> T {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    if !on {
        return f();
    }
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: setting a variable races with other threads reading the environment; the only
    // reader of this one is candle's loader, which runs inside this closure under the lock.
    unsafe { std::env::set_var("CANDLE_DEQUANTIZE_ALL", "1") };
    let out = f();
    unsafe { std::env::remove_var("CANDLE_DEQUANTIZE_ALL") };
    out
}

impl Engine for MistralEngine {
    fn model_id(&self) -> String {
        format!("mistralrs:{}", self.file_name)
    }

    fn context_tokens(&self) -> usize {
        self.context_tokens
    }

    fn generate<'a>(
        &'a self,
        request: GenerateRequest,
        sink: TokenSink<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Generation, EngineError>> {
        Box::pin(async move {
            let started = Instant::now();
            let sampling = &request.sampling;
            let mut builder = RequestBuilder::new()
                .add_message(TextMessageRole::System, &request.system)
                .add_message(TextMessageRole::User, &request.user)
                .enable_thinking(false)
                .set_sampler_max_len(request.max_tokens)
                .set_sampler_frequency_penalty(sampling.frequency_penalty)
                .set_sampler_presence_penalty(sampling.presence_penalty)
                .set_sampler_stop_toks(StopTokens::Ids(self.stop_ids.clone()));
            // At temperature 0 nothing is set: a new RequestBuilder decodes greedily already.
            // Not `set_deterministic_sampler()`: it replaces every sampling parameter, the length
            // limit and stop tokens set above included, and generation then runs to the end of
            // the context window (measured: a "hang" of over 10 minutes).
            if sampling.temperature > 0.0 {
                builder = builder
                    .set_sampler_temperature(sampling.temperature)
                    .set_sampler_topp(sampling.top_p)
                    .set_sampler_topk(sampling.top_k)
                    .set_sampler_minp(sampling.min_p);
            }
            if sampling.dry_multiplier > 0.0
                && let Ok(dry) = DrySamplingParams::new_with_defaults(sampling.dry_multiplier, None, None, None)
            {
                builder = builder.set_sampler_dry_params(dry);
            }
            match &request.shape {
                OutputShape::Json(schema) => builder = builder.set_constraint(Constraint::JsonSchema(schema.clone())),
                OutputShape::Bullets { min, max, max_chars } => {
                    builder = builder.set_constraint(Constraint::Regex(bullets_regex(*min, *max, *max_chars)))
                }
                OutputShape::Markdown => {}
            }
            let mut stream = self
                .model
                .stream_chat_request(builder)
                .await
                .map_err(|e| EngineError::new("ENGINE_FAILED", e.to_string()))?;
            let mut out = Generation::default();
            loop {
                let next = tokio::select! {
                    _ = cancel.cancelled() => {
                        out.finish_reason = "cancelled".into();
                        break;
                    }
                    next = tokio::time::timeout(STALL_LIMIT, stream.next()) => match next {
                        Ok(next) => next,
                        Err(_) => return Err(EngineError::new(
                            "ENGINE_STALLED",
                            format!("no output for {} s; the request was abandoned", STALL_LIMIT.as_secs()),
                        )),
                    },
                };
                let Some(response) = next else { break };
                match response {
                    Response::Chunk(chunk) => {
                        if let Some(usage) = &chunk.usage {
                            out.prompt_tokens = usage.prompt_tokens;
                            out.completion_tokens = usage.completion_tokens;
                        }
                        for choice in &chunk.choices {
                            if let Some(text) = &choice.delta.content
                                && !text.is_empty()
                            {
                                out.first_token.get_or_insert_with(|| started.elapsed());
                                out.text.push_str(text);
                                sink(text);
                            }
                            if let Some(reason) = &choice.finish_reason {
                                out.finish_reason = reason.clone();
                            }
                        }
                        if !out.finish_reason.is_empty() && chunk.usage.is_some() {
                            break;
                        }
                    }
                    Response::Done(done) => {
                        out.prompt_tokens = done.usage.prompt_tokens;
                        out.completion_tokens = done.usage.completion_tokens;
                        break;
                    }
                    Response::ModelError(message, _) | Response::CompletionModelError(message, _) => {
                        return Err(EngineError::new("ENGINE_FAILED", message));
                    }
                    Response::InternalError(e) | Response::ValidationError(e) => {
                        return Err(EngineError::new("ENGINE_FAILED", e.to_string()));
                    }
                    _ => {}
                }
            }
            if out.finish_reason.is_empty() {
                out.finish_reason = "stop".into();
            }
            out.total = started.elapsed();
            Ok(out)
        })
    }
}
