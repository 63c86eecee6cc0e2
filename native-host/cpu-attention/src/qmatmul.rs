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

use candle_core::quantized::GgmlDType;
use candle_core::quantized::k_quants::{
    BlockQ4_0, BlockQ4_1, BlockQ4K, BlockQ5_0, BlockQ5_1, BlockQ5K, BlockQ6K, BlockQ8_0, GgmlType,
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
        GgmlDType::Q4_1 => typed::<BlockQ4_1>,
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

fn typed<T: GgmlType>((m, k, n): (usize, usize, usize), lhs: &[f32], rhs: &[u8], dst: &mut [f32]) -> bool {
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
    multiply(m, k, n, lhs, weights, dst);
    true
}

fn multiply<T: GgmlType>(m: usize, k: usize, n: usize, lhs: &[f32], weights: &[T], dst: &mut [f32]) {
    let blocks = k / T::BLCK_SIZE;
    // The activations in the weights' dot-product type, once per row (as candle does).
    let mut quantised = vec![T::VecDotType::zeros(); m * blocks];
    if m < ROW_BLOCK {
        quantised.chunks_mut(blocks).zip(lhs.chunks(k)).for_each(|(q, x)| T::VecDotType::from_float(x, q));
    } else {
        quantised.par_chunks_mut(blocks).zip(lhs.par_chunks(k)).for_each(|(q, x)| T::VecDotType::from_float(x, q));
    }
    let weight_row = |column: usize| &weights[column * blocks..(column + 1) * blocks];
    if m == 1 {
        // Decoding. A small product (SmolLM2's key and value projections) runs on the calling
        // thread: waking another costs more than it saves.
        if n * blocks < SERIAL_DECODE_BLOCKS {
            for (column, y) in dst.iter_mut().enumerate() {
                *y = T::vec_dot(k, weight_row(column), &quantised);
            }
            return;
        }
        // Otherwise one task per thread: a one-row product takes tens of microseconds, and more
        // tasks cost more in hand-offs than they balance.
        let per_task = n.div_ceil(rayon::current_num_threads()).max(MIN_DECODE_COLUMNS);
        dst.par_chunks_mut(per_task).enumerate().for_each(|(task, out)| {
            let first = task * per_task;
            for (j, y) in out.iter_mut().enumerate() {
                *y = T::vec_dot(k, weight_row(first + j), &quantised);
            }
        });
        return;
    }
    // A short prompt (a question after a cached prefix) still gives every thread rows.
    let row_block = ROW_BLOCK.min(m.div_ceil(rayon::current_num_threads()));
    dst.par_chunks_mut(row_block * n).zip(quantised.par_chunks(row_block * blocks)).for_each(|(out, rows)| {
        for tile in (0..n).step_by(COLUMN_TILE) {
            let columns = tile..(tile + COLUMN_TILE).min(n);
            for (y, x) in out.chunks_mut(n).zip(rows.chunks(blocks)) {
                for column in columns.clone() {
                    y[column] = T::vec_dot(k, weight_row(column), x);
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
            GgmlDType::Q4_1,
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
