//! CPU-ready copies of GGUF files.
//!
//! Candle (mistral.rs's tensor library) has SIMD dot-product kernels on x86-64 for Q4_0, Q8_0
//! and the K-quants only; every other block format (Q5_0, Q5_1…) runs through scalar code,
//! several times slower than llama.cpp on the same file. Rather than dequantising to F32 (fast,
//! but four to eight times the memory), the host writes a copy of such a file once, with every
//! matrix in a format that has a kernel, and loads that copy. Q8_0 keeps the values of any 4- or
//! 5-bit source essentially exactly (8 bits per weight and a scale per 32), so the model's
//! answers do not change in kind.
//!
//! Q4_1 (the default model's format) has a kernel of Laika's own (`laika_cpu_attention::q4_1`)
//! in the architectures whose linear layers the vendored mistral.rs multiplies through
//! `laika_cpu_attention::qmatmul`; there the file is loaded as it is, which reads 0.6× the bytes
//! per token of a Q8_0 copy.

use anyhow::{Context, Result, bail};
use candle_core::Device;
use candle_core::quantized::{GgmlDType, QTensor, gguf_file};
use sha2::{Digest, Sha256};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Block formats with a SIMD kernel in candle on this build's target; anything else is
/// converted. F32 stays as it is (plain matmul), and so do 1-D tensors (norms, biases).
pub fn has_cpu_kernel(dtype: GgmlDType) -> bool {
    matches!(
        dtype,
        GgmlDType::F32
            | GgmlDType::Q4_0
            | GgmlDType::Q8_0
            | GgmlDType::Q2K
            | GgmlDType::Q3K
            | GgmlDType::Q4K
            | GgmlDType::Q5K
            | GgmlDType::Q6K
            | GgmlDType::Q8K
    )
}

/// `general.architecture` values whose GGUF linear layers (and output matrix) the vendored
/// mistral.rs multiplies through `laika_cpu_attention::qmatmul`, and whose KV cache it keeps in
/// f16 on the CPU (vendor/README.md, patches 3 and 4).
pub const QMATMUL_ARCHITECTURES: [&str; 2] = ["llama", "qwen3"];

/// Whether a matrix of `dtype` in a model of `architecture` is multiplied with SIMD code as it
/// is: candle's kernels, or Laika's own (Q4_1) where the architecture goes through them.
pub fn has_cpu_kernel_in(dtype: GgmlDType, architecture: Option<&str>) -> bool {
    has_cpu_kernel(dtype)
        || (architecture.is_some_and(|a| QMATMUL_ARCHITECTURES.contains(&a))
            && laika_cpu_attention::qmatmul::has_own_simd_kernel(dtype))
}

/// A GGUF file's `general.architecture`.
fn architecture(content: &gguf_file::Content) -> Option<String> {
    content.metadata.get("general.architecture").and_then(|v| v.to_string().ok()).cloned()
}

/// A GGUF file's header (metadata and tensor table), and the reader positioned to read tensors.
fn read_gguf(path: &Path) -> Result<(BufReader<std::fs::File>, gguf_file::Content)> {
    let mut reader = BufReader::new(std::fs::File::open(path).with_context(|| format!("{}", path.display()))?);
    let content =
        gguf_file::Content::read(&mut reader).with_context(|| format!("{}: not a GGUF file", path.display()))?;
    Ok((reader, content))
}

/// What a conversion did: how many tensors changed format, and the sizes before and after.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Conversion {
    pub converted: usize,
    pub kept: usize,
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// The file to load for `source` on the CPU: `source` itself when every matrix in it has a CPU
/// kernel, else its Q8_0 copy under `cache_dir`, written now if it is not there yet. A copy is
/// keyed by the source's path, size and modification time, so a replaced model is converted
/// again; older copies of the same file name are removed then, and so are all of them once the
/// source needs none (a copy written before this build had a kernel for the source's format).
pub fn cpu_ready(source: &Path, cache_dir: &Path) -> Result<PathBuf> {
    let stem = source.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    if !needs_conversion(source)? {
        remove_copies(cache_dir, stem, None);
        return Ok(source.to_path_buf());
    }
    let meta = std::fs::metadata(source).with_context(|| format!("{}", source.display()))?;
    let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).unwrap_or_default();
    let mut hasher = Sha256::new();
    hasher.update(source.to_string_lossy().as_bytes());
    hasher.update(meta.len().to_le_bytes());
    hasher.update(modified.as_nanos().to_le_bytes());
    let key: String = hasher.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect();
    // One directory per copy: the loader reads tokenizer files beside a GGUF over its own.
    let dir = cache_dir.join(format!("{stem}-{key}"));
    let copy = dir.join(format!("{stem}.cpu-q8_0.gguf"));
    if copy.is_file() {
        return Ok(copy);
    }
    remove_copies(cache_dir, stem, Some(&dir));
    let conversion = convert(source, &copy, GgmlDType::Q8_0, Kernels::Laika)?;
    tracing::info!(
        source = %source.display(),
        copy = %copy.display(),
        converted = conversion.converted,
        bytes = conversion.bytes_after,
        "wrote a CPU-ready Q8_0 copy of the model"
    );
    Ok(copy)
}

/// Removes the copies of models named `stem` from `cache_dir` (directories `<stem>-<16 hex>`),
/// but `keep`.
fn remove_copies(cache_dir: &Path, stem: &str, keep: Option<&Path>) {
    let Ok(entries) = std::fs::read_dir(cache_dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_copy = name.strip_prefix(stem).is_some_and(|rest| {
            rest.len() == 17 && rest.starts_with('-') && rest[1..].bytes().all(|b| b.is_ascii_hexdigit())
        });
        if is_copy && Some(entry.path().as_path()) != keep {
            match std::fs::remove_dir_all(entry.path()) {
                Ok(()) => tracing::info!(copy = %entry.path().display(), "removed a CPU-ready copy no longer needed"),
                Err(e) => tracing::warn!(copy = %entry.path().display(), "cannot remove a stale model copy: {e}"),
            }
        }
    }
}

/// Bytes of KV cache one token takes with F32 activations (f16 keys and values in the
/// architectures the vendored mistral.rs keeps so on the CPU, f32 in the rest), from the GGUF's
/// metadata
/// (`<arch>.block_count`, `.attention.head_count[_kv]`, `.embedding_length`, `.attention.key_length`);
/// `None` when the file does not say.
pub fn kv_bytes_per_token(path: &Path) -> Result<Option<usize>> {
    let (_, content) = read_gguf(path)?;
    let meta = &content.metadata;
    let Some(arch) = meta.get("general.architecture").and_then(|v| v.to_string().ok()) else { return Ok(None) };
    let get = |key: &str| {
        meta.get(&format!("{arch}.{key}")).and_then(|v| v.to_u64().or_else(|_| v.to_u32().map(u64::from)).ok())
    };
    let (Some(layers), Some(heads), Some(width)) =
        (get("block_count"), get("attention.head_count"), get("embedding_length"))
    else {
        return Ok(None);
    };
    let kv_heads = get("attention.head_count_kv").unwrap_or(heads);
    let head_dim = get("attention.key_length").unwrap_or(width / heads.max(1));
    let value_bytes = if QMATMUL_ARCHITECTURES.contains(&arch.as_str()) { 2 } else { 4 };
    Ok(Some((layers * 2 * kv_heads * head_dim * value_bytes) as usize))
}

/// How far apart two GGUF files' weights are: for each tensor of `a` (by name in `b`), the
/// largest absolute difference of the dequantised values relative to the tensor's largest
/// magnitude; the worst over all tensors. Reports what a conversion cost (`bench requantize`,
/// tests).
pub fn max_relative_difference(a: &Path, b: &Path) -> Result<f32> {
    let ((mut ra, ca), (mut rb, cb)) = (read_gguf(a)?, read_gguf(b)?);
    let device = Device::Cpu;
    let mut worst = 0f32;
    for name in ca.tensor_infos.keys() {
        let x = ca.tensor(&mut ra, name, &device)?.dequantize(&device)?.flatten_all()?;
        let y = cb.tensor(&mut rb, name, &device).with_context(|| format!("{} lacks {name}", b.display()))?;
        let y = y.dequantize(&device)?.flatten_all()?;
        let scale = x.abs()?.max(0)?.to_scalar::<f32>()?.max(f32::MIN_POSITIVE);
        let diff = (x - y)?.abs()?.max(0)?.to_scalar::<f32>()?;
        worst = worst.max(diff / scale);
    }
    Ok(worst)
}

/// Whether `path` holds any matrix without a CPU kernel (and so is worth converting).
pub fn needs_conversion(path: &Path) -> Result<bool> {
    let (_, content) = read_gguf(path)?;
    let architecture = architecture(&content);
    Ok(content
        .tensor_infos
        .values()
        .any(|info| info.shape.rank() >= 2 && !has_cpu_kernel_in(info.ggml_dtype, architecture.as_deref())))
}

/// Which kernels a conversion counts as present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernels {
    /// Candle's and Laika's (what the host loads).
    Laika,
    /// Candle's alone: the copy the host loaded before Q4_1 had a kernel (`bench requantize`,
    /// for A/B measurements).
    Candle,
}

/// Writes `dst`: `src` with every matrix that lacks a CPU kernel re-quantised to `target`, all
/// metadata (tokenizer and chat template included) copied. Written to `dst` + ".partial" and
/// renamed, so a crash never leaves a half-written model where the loader would find it.
pub fn convert(src: &Path, dst: &Path, target: GgmlDType, kernels: Kernels) -> Result<Conversion> {
    if !has_cpu_kernel(target) || target == GgmlDType::F32 {
        bail!("{target:?} is not a quantised format with a CPU kernel");
    }
    let (mut reader, content) = read_gguf(src)?;
    let architecture = architecture(&content);
    let device = Device::Cpu;
    let mut names: Vec<&String> = content.tensor_infos.keys().collect();
    names.sort();
    let mut tensors: Vec<(String, QTensor)> = Vec::with_capacity(names.len());
    let mut conversion = Conversion { converted: 0, kept: 0, bytes_before: 0, bytes_after: 0 };
    for name in names {
        let info = &content.tensor_infos[name];
        let tensor = content.tensor(&mut reader, name, &device).with_context(|| format!("tensor {name}"))?;
        conversion.bytes_before += tensor.storage_size_in_bytes() as u64;
        let row = info.shape.dims().last().copied().unwrap_or(0);
        let convert = match kernels {
            Kernels::Laika => !has_cpu_kernel_in(info.ggml_dtype, architecture.as_deref()),
            Kernels::Candle => !has_cpu_kernel(info.ggml_dtype),
        };
        let tensor = if info.shape.rank() >= 2 && convert && row % target.block_size() == 0 {
            conversion.converted += 1;
            QTensor::quantize(&tensor.dequantize(&device)?, target).with_context(|| format!("re-quantising {name}"))?
        } else {
            conversion.kept += 1;
            tensor
        };
        conversion.bytes_after += tensor.storage_size_in_bytes() as u64;
        tensors.push((name.clone(), tensor));
    }
    // The writer aligns tensor data to 32 bytes, the format's default; a source alignment
    // would describe the old layout, not this one.
    let mut metadata: Vec<(&str, &gguf_file::Value)> = content
        .metadata
        .iter()
        .filter(|(k, _)| k.as_str() != "general.alignment")
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    metadata.sort_by_key(|(k, _)| *k);
    let tensor_refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();

    let partial = dst.with_extension(format!("gguf.{}.partial", std::process::id()));
    if let Some(parent) = dst.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("{}", parent.display()))?;
    }
    let result = (|| -> Result<()> {
        let mut file = BufWriter::new(std::fs::File::create(&partial)?);
        gguf_file::write(&mut file, &metadata, &tensor_refs)?;
        file.flush()?;
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&partial, dst)?;
        Ok(())
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&partial);
        return Err(e.context(format!("writing {}", dst.display())));
    }
    Ok(conversion)
}
