//! Laika patch: CPU attention in f32 through `laika_cpu_attention` (see that crate for why).

use candle_core::{DType, Result, Storage, Tensor};

use crate::attention::SdpaParams;

/// softmax(QKᵀ·scale + mask)·V for q (b, heads, q_len, d), k and v (b, kv_heads, kv_len, d), or
/// `None` where this path does not apply (not the CPU, not f32, a soft cap, a mask other than
/// (q_len, kv_len)) and the caller's own kernels run.
pub(crate) fn sdpa(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    mask: Option<&Tensor>,
    sdpa_params: &SdpaParams,
) -> Result<Option<Tensor>> {
    if !q.device().is_cpu()
        || [q, k, v].iter().any(|t| t.dtype() != DType::F32)
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
        Some((storage, layout)) => Some(&cpu_slice(storage, layout.start_offset())?[..q_len * kv_len]),
        None => None,
    };
    let mut out = vec![0f32; batch * heads * q_len * v_dim];
    laika_cpu_attention::attention(
        dims,
        view(&q_storage, q_layout)?,
        view(&k_storage, k_layout)?,
        view(&v_storage, v_layout)?,
        mask_data,
        sdpa_params.softmax_scale,
        &mut out,
    )
    .map_err(candle_core::Error::wrap)?;
    Ok(Some(Tensor::from_vec(out, (batch, heads, q_len, v_dim), q.device())?))
}

fn cpu_slice(storage: &Storage, start: usize) -> Result<&[f32]> {
    match storage {
        Storage::Cpu(cpu) => Ok(&cpu.as_slice::<f32>()?[start..]),
        _ => candle_core::bail!("laika cpu attention: not CPU storage"),
    }
}

fn view<'a>(storage: &'a Storage, layout: &candle_core::Layout) -> Result<laika_cpu_attention::View<'a>> {
    let stride = layout.stride();
    Ok(laika_cpu_attention::View {
        data: cpu_slice(storage, layout.start_offset())?,
        batch: stride[0],
        head: stride[1],
        position: stride[2],
        dim: stride[3],
    })
}
