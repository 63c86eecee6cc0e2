//! Laika patch: the GGUF linear layers of the quantised llama and Qwen3 multiply through
//! `laika_cpu_attention::qmatmul` on the CPU (see that module for why). Everything but `forward`
//! is upstream's `GgufMatMul`; other devices, and weight types that module has no kernel for,
//! take upstream's path unchanged.

use std::borrow::Cow;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use candle_core::quantized::QTensor;
use candle_core::{CpuStorage, CustomOp1, DType, Device, Layout, Result, Shape, Tensor};
use mistralrs_quant::{
    GgufMatMul, IsqType, QuantMethod, QuantMethodConfig, QuantizeOntoGuard, QuantizedSerde,
};

/// A linear layer over a GGUF weight: upstream's `GgufMatMul`, with a blocked CPU kernel for the
/// product where one exists.
pub(crate) fn gguf_linear(weight: impl Into<Arc<QTensor>>) -> Result<Arc<dyn QuantMethod>> {
    let weight = weight.into();
    let upstream = GgufMatMul::new(QuantMethodConfig::Gguf {
        q_weight: weight.clone(),
        b: None,
    })?;
    if weight.device().is_cpu() && laika_cpu_attention::qmatmul::supports(weight.dtype()) {
        Ok(Arc::new(CpuGgufMatMul { upstream, weight }))
    } else {
        Ok(Arc::new(upstream))
    }
}

#[derive(Debug)]
struct CpuGgufMatMul {
    upstream: GgufMatMul,
    weight: Arc<QTensor>,
}

/// The product as a candle op, so candle hands over the input's storage in place.
struct Product<'a>(&'a QTensor);

impl CustomOp1 for Product<'_> {
    fn name(&self) -> &'static str {
        "laika-qmatmul"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let (n, k) = self.0.shape().dims2()?;
        let dims = layout.shape().dims();
        if !layout.is_contiguous() || dims.len() < 2 || dims[dims.len() - 1] != k {
            candle_core::bail!("laika-qmatmul: input {layout:?} does not fit {:?}", self.0.shape())
        }
        let lhs = &storage.as_slice::<f32>()?[layout.start_offset()..][..layout.shape().elem_count()];
        let m = lhs.len() / k;
        let mut out_dims = dims.to_vec();
        *out_dims.last_mut().expect("rank >= 2") = n;
        let mut dst = vec![0f32; m * n];
        let weights = self.0.data()?;
        if !laika_cpu_attention::qmatmul::quantized_matmul(self.0.dtype(), (m, k, n), lhs, &weights, &mut dst) {
            candle_core::bail!("laika-qmatmul: no kernel for {:?} {:?}", self.0.dtype(), self.0.shape())
        }
        Ok((CpuStorage::F32(dst), Shape::from(out_dims)))
    }
}

impl QuantMethod for CpuGgufMatMul {
    fn new(method: QuantMethodConfig) -> Result<Self> {
        match method {
            QuantMethodConfig::Gguf { q_weight, b: None } => Ok(Self {
                upstream: GgufMatMul::new(QuantMethodConfig::Gguf {
                    q_weight: q_weight.clone(),
                    b: None,
                })?,
                weight: q_weight,
            }),
            _ => candle_core::bail!("laika-qmatmul: only GGUF weights without bias"),
        }
    }

    fn dequantize_w(&self) -> Result<Tensor> {
        self.upstream.dequantize_w()
    }

    fn forward(&self, a: &Tensor) -> Result<Tensor> {
        if a.dtype() != DType::F32 || !a.device().is_cpu() {
            return self.upstream.forward(a);
        }
        a.contiguous()?.apply_op1_no_bwd(&Product(&self.weight))
    }

    fn quantized_act_type(&self) -> Option<DType> {
        self.upstream.quantized_act_type()
    }

    fn dtype_and_device(&self) -> (DType, Device) {
        self.upstream.dtype_and_device()
    }

    fn add_delta_w(&self, delta: &Tensor) -> Result<Arc<dyn QuantMethod>> {
        self.upstream.add_delta_w(delta)
    }

    fn apply_isq(
        self: Arc<Self>,
        dtype: Option<IsqType>,
        device: Device,
        n_quantized: &AtomicUsize,
        imatrix_weight: Option<Vec<f32>>,
        guard: QuantizeOntoGuard,
    ) -> Result<Arc<dyn QuantMethod>> {
        Arc::new(GgufMatMul::new(QuantMethodConfig::Gguf {
            q_weight: self.weight.clone(),
            b: None,
        })?)
        .apply_isq(dtype, device, n_quantized, imatrix_weight, guard)
    }
}

impl QuantizedSerde for CpuGgufMatMul {
    fn name(&self) -> &'static str {
        self.upstream.name()
    }
    fn isq_serde_supported(&self) -> bool {
        self.upstream.isq_serde_supported()
    }
    fn serialize(&self) -> Result<Cow<'_, [u8]>> {
        self.upstream.serialize()
    }
    fn serialize_with_bias(&self, bias: Option<Tensor>) -> Result<Cow<'_, [u8]>> {
        self.upstream.serialize_with_bias(bias)
    }
}
