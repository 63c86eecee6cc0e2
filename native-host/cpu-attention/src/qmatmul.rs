//! Quantised matmul on the CPU (`y = x · Wᵀ`, W in GGML blocks), for the embedded engine's
//! linear layers (mistral.rs, patched to call this in `vendor/mistralrs-core`).
//!
//! Why it exists: candle 0.10's CPU quantised matmul walks the input one row (token) at a time
//! and hands each row's output columns to rayon separately, at least 128 columns a task. A
//! 470-token prompt through SmolLM2's 7 matrices × 30 layers is ≈ 100,000 rayon hand-offs, every
//! row reads the whole weight matrix again from outer cache, and the 192-column key and value
//! projections never run on a second thread. Here a prompt is cut into blocks of rows, one task
//! each; a task walks the weights in tiles of a few rows that stay in L1 while every row of its
//! block is multiplied with them. A single row (decoding) is cut by columns into as many tasks as
//! threads can take. The dot products are candle's own SIMD kernels on the same quantised
//! activations, so the result is candle's to the bit (tests below).

use crate::q4_1;
use candle_core::quantized::GgmlDType;
use candle_core::quantized::k_quants::{
    BlockQ4_0, BlockQ4K, BlockQ5_0, BlockQ5_1, BlockQ5K, BlockQ6K, BlockQ8_0, GgmlType,
};
use rayon::prelude::*;

/// Input rows a task multiplies: enough that a weight tile is reused many times from L1, few
/// enough that a 400-token prompt still makes a dozen tasks for two threads to share.
pub const ROW_BLOCK: usize = 32;

/// Weight rows (output columns) kept in L1 while a block's rows pass over them: 16 rows of a
/// 1,536-wide Q8_0 matrix are 26 KB.
pub const COLUMN_TILE: usize = 16;

/// Weight blocks below which a one-row product is not split between threads.
const SERIAL_DECODE_BLOCKS: usize = 8_192;

/// Fewest output columns a decoding task computes.
const MIN_DECODE_COLUMNS: usize = 64;

/// A product over weights of one GGML type (see [`quantized_matmul`]).
type Kernel = fn((usize, usize, usize), &[f32], &[u8], &mut [f32]) -> bool;

/// The kernel for weights of `dtype`, when this module has one.
fn kernel(dtype: GgmlDType) -> Option<Kernel> {
    Some(match dtype {
        GgmlDType::Q8_0 => typed::<BlockQ8_0>,
        GgmlDType::Q4_0 => typed::<BlockQ4_0>,
        GgmlDType::Q4_1 => q4_1_product,
        GgmlDType::Q5_0 => typed::<BlockQ5_0>,
        GgmlDType::Q5_1 => typed::<BlockQ5_1>,
        GgmlDType::Q4K => typed::<BlockQ4K>,
        GgmlDType::Q5K => typed::<BlockQ5K>,
        GgmlDType::Q6K => typed::<BlockQ6K>,
        _ => return None,
    })
}

/// `dst = lhs · rhsᵀ` for `lhs` (m × k, f32, row-major), `rhs` the n weight rows of k elements as
/// the raw bytes of GGML blocks of `dtype`, `dst` (m × n). False when this module has no kernel
/// for `dtype` or the bytes do not hold n × k elements of it (the caller uses its own path).
pub fn quantized_matmul(
    dtype: GgmlDType,
    mkn: (usize, usize, usize),
    lhs: &[f32],
    rhs: &[u8],
    dst: &mut [f32],
) -> bool {
    kernel(dtype).is_some_and(|multiply| multiply(mkn, lhs, rhs, dst))
}

/// Whether [`quantized_matmul`] has a kernel for weights of `dtype`.
pub fn supports(dtype: GgmlDType) -> bool {
    kernel(dtype).is_some()
}

/// Whether [`quantized_matmul`] multiplies weights of `dtype` with SIMD code of this crate's own
/// on this CPU: Q4_1, chosen at run time (for the other types it has candle's kernels, which
/// candle compiles in for the build's target features or not at all).
pub fn has_own_simd_kernel(dtype: GgmlDType) -> bool {
    dtype == GgmlDType::Q4_1 && q4_1::Simd::detect() != q4_1::Simd::Scalar
}

/// One weight format's dot products, over activations quantised once per row.
trait Dots: Sync {
    type Weight: Sync;
    type Activation: Clone + Send + Sync;
    /// Elements a block holds.
    const BLOCK: usize;
    fn zero(&self) -> Self::Activation;
    fn quantise(&self, xs: &[f32], out: &mut [Self::Activation]);
    fn dot(&self, k: usize, weights: &[Self::Weight], xs: &[Self::Activation]) -> f32;
    /// One weight row times four activation rows.
    fn dot4(&self, k: usize, weights: &[Self::Weight], xs: [&[Self::Activation]; 4]) -> [f32; 4] {
        xs.map(|x| self.dot(k, weights, x))
    }
}

/// Candle's block types, kernels and activation quantisation.
struct Candle<T>(std::marker::PhantomData<T>);

impl<T: GgmlType + Sync> Dots for Candle<T>
where
    T::VecDotType: Send + Sync,
{
    type Weight = T;
    type Activation = T::VecDotType;
    const BLOCK: usize = T::BLCK_SIZE;
    fn zero(&self) -> T::VecDotType {
        T::VecDotType::zeros()
    }
    fn quantise(&self, xs: &[f32], out: &mut [T::VecDotType]) {
        T::VecDotType::from_float(xs, out)
    }
    fn dot(&self, k: usize, weights: &[T], xs: &[T::VecDotType]) -> f32 {
        T::vec_dot(k, weights, xs)
    }
}

/// Q4_1 through [`q4_1`]'s kernels at a given instruction level.
struct Q4_1(q4_1::Simd);

impl Dots for Q4_1 {
    type Weight = q4_1::WeightBlock;
    type Activation = q4_1::ActivationBlock;
    const BLOCK: usize = q4_1::BLOCK;
    fn zero(&self) -> q4_1::ActivationBlock {
        q4_1::ActivationBlock::ZERO
    }
    fn quantise(&self, xs: &[f32], out: &mut [q4_1::ActivationBlock]) {
        q4_1::quantise(xs, out)
    }
    fn dot(&self, _k: usize, weights: &[q4_1::WeightBlock], xs: &[q4_1::ActivationBlock]) -> f32 {
        self.0.dot(weights, xs)
    }
    fn dot4(&self, _k: usize, weights: &[q4_1::WeightBlock], xs: [&[q4_1::ActivationBlock]; 4]) -> [f32; 4] {
        self.0.dot4(weights, xs)
    }
}

fn typed<T: GgmlType + Sync>((m, k, n): (usize, usize, usize), lhs: &[f32], rhs: &[u8], dst: &mut [f32]) -> bool
where
    T::VecDotType: Send + Sync,
{
    if k == 0 || k % T::BLCK_SIZE != 0 || T::BLCK_SIZE != T::VecDotType::BLCK_SIZE {
        return false;
    }
    let blocks = k / T::BLCK_SIZE;
    let size = std::mem::size_of::<T>();
    if lhs.len() != m * k
        || dst.len() != m * n
        || rhs.len() != n * blocks * size
        || !(rhs.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>())
    {
        return false;
    }
    // SAFETY: the GGML block types are plain `repr(C)` data (integers and f16) valid for any bit
    // pattern; length and alignment were checked above.
    let weights: &[T] = unsafe { std::slice::from_raw_parts(rhs.as_ptr().cast::<T>(), n * blocks) };
    multiply(&Candle::<T>(std::marker::PhantomData), m, k, n, lhs, weights, dst);
    true
}

fn q4_1_product(mkn: (usize, usize, usize), lhs: &[f32], rhs: &[u8], dst: &mut [f32]) -> bool {
    q4_1_product_at(q4_1::Simd::detect(), mkn, lhs, rhs, dst)
}

/// [`q4_1_product`] at a given instruction level (tests compare the levels).
fn q4_1_product_at(
    simd: q4_1::Simd,
    (m, k, n): (usize, usize, usize),
    lhs: &[f32],
    rhs: &[u8],
    dst: &mut [f32],
) -> bool {
    if k == 0 || k % q4_1::BLOCK != 0 || lhs.len() != m * k || dst.len() != m * n {
        return false;
    }
    match q4_1::weight_blocks(rhs) {
        Some(weights) if weights.len() == n * (k / q4_1::BLOCK) => {
            multiply(&Q4_1(simd), m, k, n, lhs, weights, dst);
            true
        }
        _ => false,
    }
}

fn multiply<D: Dots>(dots: &D, m: usize, k: usize, n: usize, lhs: &[f32], weights: &[D::Weight], dst: &mut [f32]) {
    let blocks = k / D::BLOCK;
    // The activations in the weights' dot-product type, once per row (as candle does).
    let mut quantised = vec![dots.zero(); m * blocks];
    if m < ROW_BLOCK {
        quantised.chunks_mut(blocks).zip(lhs.chunks(k)).for_each(|(q, x)| dots.quantise(x, q));
    } else {
        quantised.par_chunks_mut(blocks).zip(lhs.par_chunks(k)).for_each(|(q, x)| dots.quantise(x, q));
    }
    let weight_row = |column: usize| &weights[column * blocks..(column + 1) * blocks];
    if m == 1 {
        // Decoding. A small product (SmolLM2's key and value projections) runs on the calling
        // thread: waking another costs more than it saves.
        if n * blocks < SERIAL_DECODE_BLOCKS {
            for (column, y) in dst.iter_mut().enumerate() {
                *y = dots.dot(k, weight_row(column), &quantised);
            }
            return;
        }
        // Otherwise one task per thread: a one-row product takes tens of microseconds, and more
        // tasks cost more in hand-offs than they balance.
        let per_task = n.div_ceil(rayon::current_num_threads()).max(MIN_DECODE_COLUMNS);
        dst.par_chunks_mut(per_task).enumerate().for_each(|(task, out)| {
            let first = task * per_task;
            for (j, y) in out.iter_mut().enumerate() {
                *y = dots.dot(k, weight_row(first + j), &quantised);
            }
        });
        return;
    }
    // A short prompt (a question after a cached prefix) still gives every thread rows.
    let row_block = ROW_BLOCK.min(m.div_ceil(rayon::current_num_threads()));
    dst.par_chunks_mut(row_block * n).zip(quantised.par_chunks(row_block * blocks)).for_each(|(out, rows)| {
        let rows_here = out.len() / n;
        for tile in (0..n).step_by(COLUMN_TILE) {
            let columns = tile..(tile + COLUMN_TILE).min(n);
            let row = |r: usize| &rows[r * blocks..(r + 1) * blocks];
            // Four rows at a time share each weight block's unpacking, then the rest one by one.
            let mut r = 0;
            while r + 4 <= rows_here {
                for column in columns.clone() {
                    let ys = dots.dot4(k, weight_row(column), [row(r), row(r + 1), row(r + 2), row(r + 3)]);
                    for (i, y) in ys.into_iter().enumerate() {
                        out[(r + i) * n + column] = y;
                    }
                }
                r += 4;
            }
            for r in r..rows_here {
                for column in columns.clone() {
                    out[r * n + column] = dots.dot(k, weight_row(column), row(r));
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::quantized::{QMatMul, QTensor};
    use candle_core::{Device, Module, Tensor};
    use std::sync::Arc;

    /// Deterministic values in [-1, 1) (no rand in this crate's dependencies).
    fn values(count: usize, seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..count)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }

    /// The same product through candle's own quantised matmul.
    fn candle_product(weights: &Arc<QTensor>, lhs: &Tensor) -> Vec<f32> {
        let qmatmul = QMatMul::from_arc(weights.clone()).unwrap();
        qmatmul.forward(lhs).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap()
    }

    #[test]
    fn equals_candles_product_to_the_bit_for_every_supported_type_and_shape() {
        for dtype in [
            GgmlDType::Q8_0,
            GgmlDType::Q4_0,
            GgmlDType::Q5_0,
            GgmlDType::Q5_1,
            GgmlDType::Q4K,
            GgmlDType::Q5K,
            GgmlDType::Q6K,
        ] {
            assert!(supports(dtype));
            // Rows: one (decoding: on the calling thread, and split between threads), fewer than
            // a block, several blocks with a short last one. Columns: fewer than a tile, not a
            // multiple of it, the key/value width of SmolLM2.
            for (m, k, n) in [(1, 256, 40), (1, 512, 192), (1, 1024, 520), (3, 256, 16), (70, 512, 40), (33, 256, 192)]
            {
                let weights = Tensor::from_vec(values(n * k, (m * 31 + n) as u64), (n, k), &Device::Cpu).unwrap();
                let weights = Arc::new(QTensor::quantize(&weights, dtype).unwrap());
                let lhs_values = values(m * k, (k + n) as u64);
                let lhs = Tensor::from_vec(lhs_values.clone(), (m, k), &Device::Cpu).unwrap();
                let expected = candle_product(&weights, &lhs);
                let mut got = vec![f32::NAN; m * n];
                let bytes = weights.data().unwrap();
                assert!(quantized_matmul(dtype, (m, k, n), &lhs_values, &bytes, &mut got), "{dtype:?}");
                assert_eq!(got, expected, "{dtype:?} m={m} k={k} n={n}");
            }
        }
    }

    /// Every shape of the test above plus four-row groups with a remainder.
    const SHAPES: [(usize, usize, usize); 8] = [
        (1, 256, 40),
        (1, 512, 192),
        (1, 1024, 520),
        (3, 256, 16),
        (70, 512, 40),
        (33, 256, 192),
        (8, 64, 3),
        (9, 96, 17),
    ];

    /// The exact product of the dequantised weights with the f32 input.
    fn exact_product(weights: &QTensor, lhs: &[f32], (m, k, n): (usize, usize, usize)) -> Vec<f32> {
        let w = weights.dequantize(&Device::Cpu).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let mut out = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                out[i * n + j] =
                    (0..k).map(|l| f64::from(lhs[i * k + l]) * f64::from(w[j * k + l])).sum::<f64>() as f32;
            }
        }
        out
    }

    fn q4_1_case((m, k, n): (usize, usize, usize)) -> (Arc<QTensor>, Vec<f32>) {
        let weights = Tensor::from_vec(values(n * k, (m * 31 + n) as u64), (n, k), &Device::Cpu).unwrap();
        let weights = Arc::new(QTensor::quantize(&weights, GgmlDType::Q4_1).unwrap());
        (weights, values(m * k, (k + n) as u64))
    }

    #[test]
    fn q4_1_is_as_close_to_the_exact_product_as_candles_and_every_instruction_level_agrees() {
        assert!(supports(GgmlDType::Q4_1));
        for (m, k, n) in SHAPES {
            let (weights, lhs_values) = q4_1_case((m, k, n));
            let bytes = weights.data().unwrap();
            let exact = exact_product(&weights, &lhs_values, (m, k, n));
            let worst = |got: &[f32]| got.iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
            let rms = |got: &[f32]| {
                (got.iter().zip(&exact).map(|(a, b)| (a - b).powi(2)).sum::<f32>() / got.len() as f32).sqrt()
            };
            let levels = [q4_1::Simd::Scalar, q4_1::Simd::Avx2, q4_1::Simd::Vnni].map(|simd| {
                let mut got = vec![f32::NAN; m * n];
                assert!(q4_1_product_at(simd.at_most(), (m, k, n), &lhs_values, &bytes, &mut got));
                got
            });
            assert!(worst(&levels[0]) < 0.02 * (k as f32).sqrt(), "m={m} k={k} n={n}: {}", worst(&levels[0]));
            // Activations are 8-bit, so neither is exact; ours (f32 scales and sums where candle
            // has f16) must not be further off than candle's. With the exact sum of the inputs in
            // the minimum's share this failed: rms 0.054 against candle's 0.023 at 1×256×40.
            // (Candle's Q4_1 dot asserts an even number of blocks.)
            if (k / q4_1::BLOCK).is_multiple_of(2) {
                let lhs = Tensor::from_vec(lhs_values.clone(), (m, k), &Device::Cpu).unwrap();
                let (ours, theirs) = (rms(&levels[0]), rms(&candle_product(&weights, &lhs)));
                assert!(ours <= theirs * 1.05, "m={m} k={k} n={n}: rms ours {ours} candle {theirs}");
            }
            // The SIMD levels add the same integer sums in the same order; the scalar code adds
            // block by block, so it differs from them by rounding only.
            assert_eq!(levels[1], levels[2], "m={m} k={k} n={n}");
            for (a, b) in levels[0].iter().zip(&levels[1]) {
                assert!((a - b).abs() <= 1e-4 * (1.0 + a.abs()), "m={m} k={k} n={n}: {a} vs {b}");
            }
            // The default level is one of these.
            let mut got = vec![f32::NAN; m * n];
            assert!(quantized_matmul(GgmlDType::Q4_1, (m, k, n), &lhs_values, &bytes, &mut got));
            assert!(levels.contains(&got));
        }
    }

    #[test]
    fn q4_1_activation_blocks_round_to_nearest_and_carry_their_sum() {
        let xs: Vec<f32> = (0..64).map(|i| (i as f32 - 20.0) * 0.37).collect();
        let mut blocks = [q4_1::ActivationBlock::ZERO; 2];
        q4_1::quantise(&xs, &mut blocks);
        // A weight row of one block with d = 1, m = 0 and q = 1 at element 0 only reads back x₀'s
        // 8-bit value; the all-zero block with m = 1 reads back the block's sum.
        let block = |d: f32, m: f32, first: u8| {
            let mut bytes = Vec::new();
            bytes.extend_from_slice(&half::f16::from_f32(d).to_le_bytes());
            bytes.extend_from_slice(&half::f16::from_f32(m).to_le_bytes());
            bytes.push(first);
            bytes.extend_from_slice(&[0; 15]);
            bytes
        };
        let (sum_block, first_block) = (block(0.0, 1.0, 0), block(1.0, 0.0, 1));
        for simd in [q4_1::Simd::Scalar, q4_1::Simd::Avx2, q4_1::Simd::Vnni].map(q4_1::Simd::at_most) {
            for (b, values) in blocks.iter().zip(xs.chunks(32)) {
                let step = values.iter().fold(0f32, |a, x| a.max(x.abs())) / 127.0;
                let first = simd.dot(q4_1::weight_blocks(&first_block).unwrap(), std::slice::from_ref(b));
                assert!((first - values[0]).abs() <= step / 2.0 * 1.001, "{first} vs {}", values[0]);
                assert!((first / step - (values[0] / step).round()).abs() < 1e-3);
                let sum = simd.dot(q4_1::weight_blocks(&sum_block).unwrap(), std::slice::from_ref(b));
                let rounded: f32 = values.iter().map(|x| (x / step).round() * step).sum();
                assert!((sum - rounded).abs() <= 1e-4 * rounded.abs().max(1.0), "{sum} vs {rounded}");
            }
        }
        // A zero block quantises to zeros without dividing by zero.
        let mut zero = [q4_1::ActivationBlock::ZERO; 1];
        q4_1::quantise(&[0.0; 32], &mut zero);
        assert_eq!(zero[0], q4_1::ActivationBlock::ZERO);
    }

    #[test]
    fn refuses_what_it_cannot_multiply() {
        let weights = Tensor::from_vec(values(16 * 64, 1), (16, 64), &Device::Cpu).unwrap();
        let q8 = QTensor::quantize(&weights, GgmlDType::Q8_0).unwrap();
        let bytes = q8.data().unwrap();
        let lhs = values(2 * 64, 2);
        let mut dst = vec![0.0; 2 * 16];
        // No kernel for the type.
        assert!(!supports(GgmlDType::F16));
        assert!(!quantized_matmul(GgmlDType::F16, (2, 64, 16), &lhs, &bytes, &mut dst));
        // Sizes that do not match the data.
        assert!(!quantized_matmul(GgmlDType::Q8_0, (2, 64, 17), &lhs, &bytes, &mut [0.0; 34]));
        assert!(!quantized_matmul(GgmlDType::Q8_0, (3, 64, 16), &lhs, &bytes, &mut dst));
        // k not a whole number of blocks.
        assert!(!quantized_matmul(GgmlDType::Q8_0, (2, 60, 16), &lhs[..120], &bytes, &mut dst));
        assert!(quantized_matmul(GgmlDType::Q8_0, (2, 64, 16), &lhs, &bytes, &mut dst));
    }
}
