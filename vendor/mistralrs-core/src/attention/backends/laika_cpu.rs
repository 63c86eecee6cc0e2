//! Laika patch: CPU attention in f32 through `laika_cpu_attention` (see that crate for why), over
//! a KV cache kept in f16.

use candle_core::{DType, Result, Storage, Tensor, WithDType};

use crate::attention::SdpaParams;

/// The keys and values to store in a layer's KV cache: in f16 for f32 models on the CPU. Decoding
/// reads the whole cache for every token, so at a few thousand tokens of context its bytes, not
/// the arithmetic, bound the speed: f16 halves them (SmolLM2-135M at 4,000 tokens: 189 → 94 MB
/// a token), as llama.cpp's default cache does; f16's 11 bits change attention outputs by about
/// 1e-3 (laika-cpu-attention's tests). [`sdpa`] reads them; other paths widen them back.
pub(crate) fn kv_for_cache(k: &Tensor, v: &Tensor) -> Result<(Tensor, Tensor)> {
    if k.device().is_cpu() && k.dtype() == DType::F32 && v.dtype() == DType::F32 {
        Ok((k.to_dtype(DType::F16)?, v.to_dtype(DType::F16)?))
    } else {
        Ok((k.clone(), v.clone()))
    }
}

/// softmax(QKᵀ·scale + mask)·V for q (b, heads, q_len, d), k and v (b, kv_heads, kv_len, d), or
/// `None` where this path does not apply (not the CPU, q not f32, k and v neither both f32 nor
/// both f16, a soft cap, a mask other than (q_len, kv_len)) and the caller's own kernels run.
pub(crate) fn sdpa(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    mask: Option<&Tensor>,
    sdpa_params: &SdpaParams,
) -> Result<Option<Tensor>> {
    let kv_dtype = k.dtype();
    if !q.device().is_cpu()
        || q.dtype() != DType::F32
        || !matches!(kv_dtype, DType::F32 | DType::F16)
        || v.dtype() != kv_dtype
        || sdpa_params.softcap.is_some_and(|c| c != 0.0)
        || sdpa_params.sinks.is_some()
    {
        return Ok(None);
    }
    let (batch, heads, q_len, head_dim) = q.dims4()?;
    let (_, kv_heads, kv_len, k_dim) = k.dims4()?;
    let (_, _, v_len, v_dim) = v.dims4()?;
    if k_dim != head_dim || v_len != kv_len || k.dim(0)? != batch || v.dim(0)? != batch {
        return Ok(None);
    }
    let mask = match mask {
        None => None,
        Some(m) if m.dtype() == DType::F32 && m.dims() == [q_len, kv_len] => Some(m.contiguous()?),
        Some(_) => return Ok(None),
    };
    let dims = laika_cpu_attention::Dims { batch, heads, kv_heads, q_len, kv_len, head_dim, v_dim };
    let (q_storage, q_layout) = q.storage_and_layout();
    let (k_storage, k_layout) = k.storage_and_layout();
    let (v_storage, v_layout) = v.storage_and_layout();
    let mask_guard = mask.as_ref().map(|m| m.storage_and_layout());
    let mask_data = match &mask_guard {
        Some((storage, layout)) => Some(&cpu_slice::<f32>(storage, layout.start_offset())?[..q_len * kv_len]),
        None => None,
    };
    let mut out = vec![0f32; batch * heads * q_len * v_dim];
    let q_view = view::<f32>(&q_storage, q_layout)?;
    let scale = sdpa_params.softmax_scale;
    let done = if kv_dtype == DType::F16 {
        let (k, v) = (view::<half::f16>(&k_storage, k_layout)?, view::<half::f16>(&v_storage, v_layout)?);
        laika_cpu_attention::attention(dims, q_view, k, v, mask_data, scale, &mut out)
    } else {
        let (k, v) = (view::<f32>(&k_storage, k_layout)?, view::<f32>(&v_storage, v_layout)?);
        laika_cpu_attention::attention(dims, q_view, k, v, mask_data, scale, &mut out)
    };
    done.map_err(candle_core::Error::wrap)?;
    Ok(Some(Tensor::from_vec(out, (batch, heads, q_len, v_dim), q.device())?))
}

fn cpu_slice<T: WithDType>(storage: &Storage, start: usize) -> Result<&[T]> {
    match storage {
        Storage::Cpu(cpu) => Ok(&cpu.as_slice::<T>()?[start..]),
        _ => candle_core::bail!("laika cpu attention: not CPU storage"),
    }
}

fn view<'a, T: WithDType>(
    storage: &'a Storage,
    layout: &candle_core::Layout,
) -> Result<laika_cpu_attention::View<'a, T>> {
    let stride = layout.stride();
    Ok(laika_cpu_attention::View {
        data: cpu_slice(storage, layout.start_offset())?,
        batch: stride[0],
        head: stride[1],
        position: stride[2],
        dim: stride[3],
    })
}
