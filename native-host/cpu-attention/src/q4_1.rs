//! Q4_1 weights (the default model's format) times 8-bit activations, with x86-64 SIMD.
//!
//! Why it exists: candle 0.10 multiplies Q4_1 with scalar code only, so the host used to convert
//! Q4_1 files to Q8_0 before loading them. That copy is 1.7× the bytes, and decoding one token
//! reads every matrix once: on a machine with little memory bandwidth the copy made generation
//! slower than llama.cpp on the same file. Here the file's own blocks are multiplied: 20 bytes
//! per 32 weights (scale `d`, minimum `m`, 32 nibbles `q`, value `d·q + m`).
//!
//! Activations are quantised per block of 32 to `i8` with a scale, as GGML's Q8_1 does, with the
//! block's sum `s = d_x · Σ q_x` beside them. A dot product is then, per block,
//! `d_w · d_x · Σ q_w·q_x + m_w · s`. The sum is that of the quantised values on purpose: the
//! exact sum of the inputs looks more precise, but then the activations' rounding errors meet
//! the nibbles (0..15, never centred) instead of the weights (`d·q + m`, centred), and products
//! came out 2.3× further from the exact one (test below). Scale and sum are f32, not GGML's f16.
//! The integer part is one unsigned×signed byte multiply
//! (AVX2 `vpmaddubsw`, or AVX-VNNI / AVX512-VNNI `vpdpbusd` where the CPU has it, chosen at run
//! time). A prompt's rows share each unpacked weight block four at a time.

use half::f16;

/// Weights a block holds.
pub const BLOCK: usize = 32;

/// A GGML Q4_1 block as it lies in a GGUF file.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct WeightBlock {
    d: f16,
    m: f16,
    /// Element `j` in the low nibble of byte `j`, element `j + 16` in its high nibble.
    qs: [u8; BLOCK / 2],
}
const _: () = assert!(std::mem::size_of::<WeightBlock>() == 20);

/// 32 activations as `d · qs[i]`, and their sum.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct ActivationBlock {
    d: f32,
    sum: f32,
    qs: [i8; BLOCK],
}

impl ActivationBlock {
    pub const ZERO: ActivationBlock = ActivationBlock { d: 0.0, sum: 0.0, qs: [0; BLOCK] };
}

/// The weight blocks in `bytes` (n rows × k/32 blocks, as GGUF stores them); `None` when the
/// length or alignment does not fit.
pub fn weight_blocks(bytes: &[u8]) -> Option<&[WeightBlock]> {
    let size = std::mem::size_of::<WeightBlock>();
    if !bytes.len().is_multiple_of(size)
        || !(bytes.as_ptr() as usize).is_multiple_of(std::mem::align_of::<WeightBlock>())
    {
        return None;
    }
    // SAFETY: `WeightBlock` is plain `repr(C)` data (two f16 and bytes) valid for any bit
    // pattern; length and alignment were checked above.
    Some(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<WeightBlock>(), bytes.len() / size) })
}

/// Quantises one row (`xs.len()` = 32 × `out.len()`) the way GGML's `quantize_row_q8_1` does
/// (round to nearest, scale = max |x| / 127), scale and sum in f32.
pub fn quantise(xs: &[f32], out: &mut [ActivationBlock]) {
    debug_assert_eq!(xs.len(), out.len() * BLOCK);
    for (values, block) in xs.chunks_exact(BLOCK).zip(out.iter_mut()) {
        let max = values.iter().fold(0f32, |max, x| max.max(x.abs()));
        let d = max / 127.0;
        let inverse = if d != 0.0 { 1.0 / d } else { 0.0 };
        for (q, x) in block.qs.iter_mut().zip(values) {
            *q = (x * inverse).round() as i8;
        }
        block.d = d;
        block.sum = d * block.qs.iter().map(|&q| i32::from(q)).sum::<i32>() as f32;
    }
}

/// The instructions a dot product runs on, detected once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    /// Portable code (other architectures, or x86-64 without AVX2).
    Scalar,
    /// AVX2 and FMA: `vpmaddubsw` + `vpmaddwd`.
    Avx2,
    /// AVX-VNNI (or AVX512-VNNI with VL): one `vpdpbusd` for both.
    Vnni,
}

impl Simd {
    /// The best this CPU has.
    pub fn detect() -> Simd {
        static DETECTED: std::sync::OnceLock<Simd> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
                if avx2 && is_x86_feature_detected!("avxvnni") {
                    return Simd::Vnni;
                }
                if avx2 {
                    return Simd::Avx2;
                }
            }
            Simd::Scalar
        })
    }

    /// This level, or a lower one when the CPU lacks it (tests pin a level this way).
    pub fn at_most(self) -> Simd {
        let best = Simd::detect();
        match (self, best) {
            (Simd::Scalar, _) | (_, Simd::Scalar) => Simd::Scalar,
            (Simd::Avx2, _) | (_, Simd::Avx2) => Simd::Avx2,
            (Simd::Vnni, Simd::Vnni) => Simd::Vnni,
        }
    }

    /// Σ over blocks of one weight row times one activation row.
    pub fn dot(self, weights: &[WeightBlock], xs: &[ActivationBlock]) -> f32 {
        debug_assert_eq!(weights.len(), xs.len());
        match self {
            Simd::Scalar => dot_scalar(weights, xs),
            // SAFETY: `detect` saw the features these need (a `Simd` other than `Scalar` is
            // only reached through `detect` or `at_most`).
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { x86::dot_avx2(weights, xs) },
            #[cfg(target_arch = "x86_64")]
            Simd::Vnni => unsafe { x86::dot_vnni(weights, xs) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => dot_scalar(weights, xs),
        }
    }

    /// One weight row times four activation rows, each weight block unpacked once.
    pub fn dot4(self, weights: &[WeightBlock], xs: [&[ActivationBlock]; 4]) -> [f32; 4] {
        debug_assert!(xs.iter().all(|x| x.len() == weights.len()));
        match self {
            Simd::Scalar => xs.map(|x| dot_scalar(weights, x)),
            // SAFETY: as in `dot`.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { x86::dot4_avx2(weights, xs) },
            #[cfg(target_arch = "x86_64")]
            Simd::Vnni => unsafe { x86::dot4_vnni(weights, xs) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => xs.map(|x| dot_scalar(weights, x)),
        }
    }
}

fn dot_scalar(weights: &[WeightBlock], xs: &[ActivationBlock]) -> f32 {
    let mut total = 0f32;
    for (w, x) in weights.iter().zip(xs) {
        let mut products = 0i32;
        for j in 0..BLOCK / 2 {
            products += i32::from(w.qs[j] & 0x0F) * i32::from(x.qs[j]);
            products += i32::from(w.qs[j] >> 4) * i32::from(x.qs[j + BLOCK / 2]);
        }
        total += w.d.to_f32() * x.d * products as f32 + w.m.to_f32() * x.sum;
    }
    total
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{ActivationBlock, WeightBlock};
    use std::arch::x86_64::*;

    /// The 32 weights of a block as unsigned bytes, in element order.
    #[inline(always)]
    unsafe fn unpack(w: &WeightBlock) -> __m256i {
        unsafe {
            let packed = _mm_loadu_si128(w.qs.as_ptr().cast());
            let low = _mm_and_si128(packed, _mm_set1_epi8(0x0F));
            let high = _mm_and_si128(_mm_srli_epi16::<4>(packed), _mm_set1_epi8(0x0F));
            _mm256_set_m128i(high, low)
        }
    }

    #[inline(always)]
    unsafe fn hsum(x: __m256) -> f32 {
        unsafe {
            let halves = _mm_add_ps(_mm256_extractf128_ps::<1>(x), _mm256_castps256_ps128(x));
            let pairs = _mm_add_ps(halves, _mm_movehl_ps(halves, halves));
            _mm_cvtss_f32(_mm_add_ss(pairs, _mm_movehdup_ps(pairs)))
        }
    }

    /// The kernels for one way of computing Σ q_w·q_x as eight i32 lanes (`$products`, from the
    /// unsigned weights and the signed activations), compiled with `$features`.
    macro_rules! kernels {
        ($dot:ident, $dot4:ident, $features:literal, |$q:ident, $x:ident| $products:expr) => {
            #[target_feature(enable = $features)]
            pub(super) unsafe fn $dot(weights: &[WeightBlock], xs: &[ActivationBlock]) -> f32 {
                unsafe {
                    // Two accumulators, so consecutive blocks' multiply-adds do not wait on each
                    // other.
                    let mut acc = [_mm256_setzero_ps(); 2];
                    let mut minimums = [0f32; 2];
                    for (i, (w, x)) in weights.iter().zip(xs).enumerate() {
                        let q = {
                            let ($q, $x) = (unpack(w), _mm256_loadu_si256(x.qs.as_ptr().cast()));
                            $products
                        };
                        let scale = _mm256_set1_ps(w.d.to_f32() * x.d);
                        acc[i & 1] = _mm256_fmadd_ps(scale, _mm256_cvtepi32_ps(q), acc[i & 1]);
                        minimums[i & 1] += w.m.to_f32() * x.sum;
                    }
                    hsum(_mm256_add_ps(acc[0], acc[1])) + (minimums[0] + minimums[1])
                }
            }

            #[target_feature(enable = $features)]
            pub(super) unsafe fn $dot4(weights: &[WeightBlock], xs: [&[ActivationBlock]; 4]) -> [f32; 4] {
                unsafe {
                    let mut acc = [_mm256_setzero_ps(); 4];
                    let mut minimums = [0f32; 4];
                    for (i, w) in weights.iter().enumerate() {
                        let q = unpack(w);
                        let (d, m) = (w.d.to_f32(), w.m.to_f32());
                        for r in 0..4 {
                            let x = xs[r].get_unchecked(i);
                            let p = {
                                let ($q, $x) = (q, _mm256_loadu_si256(x.qs.as_ptr().cast()));
                                $products
                            };
                            acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(d * x.d), _mm256_cvtepi32_ps(p), acc[r]);
                            minimums[r] += m * x.sum;
                        }
                    }
                    [0, 1, 2, 3].map(|r| hsum(acc[r]) + minimums[r])
                }
            }
        };
    }

    // Weights are 0..=15 and activations -127..=127: a pair's sum (≤ 3,810) fits `vpmaddubsw`'s
    // saturating i16 exactly.
    kernels!(dot_avx2, dot4_avx2, "avx2,fma,f16c", |q, x| _mm256_madd_epi16(
        _mm256_maddubs_epi16(q, x),
        _mm256_set1_epi16(1)
    ));
    kernels!(dot_vnni, dot4_vnni, "avx2,fma,f16c,avxvnni", |q, x| _mm256_dpbusd_avx_epi32(
        _mm256_setzero_si256(),
        q,
        x
    ));
}
