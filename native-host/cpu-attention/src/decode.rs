//! Attention for a few query rows (decoding) over a long KV cache.
//!
//! Why it is separate from the prompt path: a decoded token's attention reads every cached key
//! and value once and does little arithmetic on each, so what counts is reading them at the
//! speed of memory on every thread. The keys are cut into segments, one task each per key/value
//! head, so that two threads share SmolLM2's three key/value heads evenly (one task a head left
//! one thread idle a third of the time); each task returns its rows' softmax maximum, sum and
//! unnormalised output, and the segments are merged exactly (the log-sum-exp rule). Inside a
//! task the query heads that share a key/value head are scored together, so each row is read
//! from memory once; the products are the kernels below, eight keys at a time with FMA, since
//! plain Rust loops keep one dependent sum per key (no fused multiply-add without fast-math):
//! 0.099 → 0.079 ms for one layer over 1,000 keys in L2. Most of the gain at 4,000 keys
//! (19.6 → 12.9 ms a token on two threads) is the segments.

use crate::{Dims, KEY_CHUNK, KvValue, View, exp_nonpositive, softmax_numerators, visible_keys};
use rayon::prelude::*;
use std::cell::RefCell;

/// Fewest keys in a segment: below this a task costs more to hand out than it computes.
const MIN_SEGMENT: usize = 512;

thread_local! {
    /// A worker's scores (rows × segment keys) and widened keys, reused across calls.
    static SCRATCH: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// The rows of one task: query heads `h..h + heads` (all reading key/value head `kv_head`) at
/// positions `0..q_len`, in (head, position) order.
#[derive(Clone, Copy)]
struct Rows {
    b: usize,
    h: usize,
    heads: usize,
    kv_head: usize,
}

/// softmax(Q·Kᵀ·scale + mask)·V for calls whose rows are read in loops (see `attention`): the
/// caller has checked shapes and strides, and that q, k and v have contiguous last dimensions.
pub(crate) fn attention<T: KvValue>(
    dims: &Dims,
    (q, k, v): (&View<'_>, &View<'_, T>, &View<'_, T>),
    mask: Option<&[f32]>,
    scale: f32,
    out: &mut [f32],
) {
    let Dims { batch, heads, kv_heads, q_len, kv_len, v_dim, .. } = *dims;
    let group = heads / kv_heads;
    let rows = group * q_len;
    // The keys any row sees end where the mask is -inf for every row (a causal mask of a few
    // rows at the end of the cache hides nothing; a sliding window hides the start only, which
    // the mask still does).
    let visible = match mask {
        Some(mask) => mask.chunks(kv_len).map(visible_keys).max().unwrap_or(0),
        None => kv_len,
    };
    if visible == 0 {
        out.fill(0.0);
        return;
    }
    // Enough segments that every thread has work twice over, none shorter than MIN_SEGMENT.
    let tasks_wanted = 2 * rayon::current_num_threads();
    let per_head = tasks_wanted.div_ceil(batch * kv_heads).clamp(1, visible.div_ceil(MIN_SEGMENT).max(1));
    let segment = visible.div_ceil(per_head).next_multiple_of(KEY_CHUNK);
    let segments = visible.div_ceil(segment);
    // Each task's result: per row its maximum, its sum and v_dim unnormalised outputs.
    let width = v_dim + 2;
    let mut partial = vec![0f32; batch * kv_heads * segments * rows * width];
    partial.par_chunks_mut(rows * width).enumerate().for_each(|(task, result)| {
        let (batch_head, s) = (task / segments, task % segments);
        let (b, kv_head) = (batch_head / kv_heads, batch_head % kv_heads);
        let task_rows = Rows { b, h: kv_head * group, heads: group, kv_head };
        let keys = s * segment..((s + 1) * segment).min(visible);
        SCRATCH.with_borrow_mut(|(scores, widened)| {
            attend_segment(task_rows, dims, (q, k, v), mask, scale, keys, result, scores, widened)
        });
    });
    // out = Σ_s e^(m_s − m)·o_s / Σ_s e^(m_s − m)·l_s, over the segments of each row.
    for (batch_head, group_out) in out.chunks_mut(rows * v_dim).enumerate() {
        let results = &partial[batch_head * segments * rows * width..][..segments * rows * width];
        for (r, row_out) in group_out.chunks_mut(v_dim).enumerate() {
            let result = |s: usize| &results[(s * rows + r) * width..][..width];
            let max = (0..segments).map(|s| result(s)[0]).fold(f32::NEG_INFINITY, f32::max);
            row_out.fill(0.0);
            if max == f32::NEG_INFINITY {
                continue; // the row sees no key at all
            }
            let mut sum = 0.0;
            for s in 0..segments {
                let result = result(s);
                let weight = exp_nonpositive(result[0] - max);
                sum += weight * result[1];
                for (o, &x) in row_out.iter_mut().zip(&result[2..]) {
                    *o += weight * x;
                }
            }
            let inverse = if sum > 0.0 { 1.0 / sum } else { 0.0 };
            row_out.iter_mut().for_each(|o| *o *= inverse);
        }
    }
}

/// One segment of keys for one task's rows: `result` gets, per row, the maximum score, the sum
/// of e^(score − maximum) and Σ e^(score − maximum)·value (maximum -inf and zeros when the row
/// sees none of these keys).
#[allow(clippy::too_many_arguments)]
fn attend_segment<T: KvValue>(
    rows: Rows,
    dims: &Dims,
    (q, k, v): (&View<'_>, &View<'_, T>, &View<'_, T>),
    mask: Option<&[f32]>,
    scale: f32,
    keys: std::ops::Range<usize>,
    result: &mut [f32],
    scores: &mut Vec<f32>,
    widened: &mut Vec<f32>,
) {
    let Rows { b, h, heads, kv_head } = rows;
    let (q_len, kv_len, head_dim, v_dim) = (dims.q_len, dims.kv_len, dims.head_dim, dims.v_dim);
    let total = heads * q_len;
    let len = keys.len();
    // Every score below is written before it is read: the buffer only grows, never cleared.
    grow(scores, total * len);
    let q_row = |r: usize| &q.data[q.offset(b, h + r / q_len, r % q_len)..][..head_dim];
    let (k_start, v_start) = (k.offset(b, kv_head, 0), v.offset(b, kv_head, 0));
    for chunk in keys.clone().step_by(KEY_CHUNK) {
        let count = KEY_CHUNK.min(keys.end - chunk);
        let chunk_keys = crate::rows(k, k_start, chunk, count, head_dim);
        let chunk_keys = as_f32(&chunk_keys, widened);
        for r in 0..total {
            let at = r * len + (chunk - keys.start);
            score(q_row(r), chunk_keys, head_dim, scale, &mut scores[at..at + count]);
        }
    }
    let width = v_dim + 2;
    for (r, row_scores) in scores[..total * len].chunks_mut(len).enumerate() {
        if let Some(mask) = mask {
            let mask_row = &mask[(r % q_len) * kv_len..][keys.clone()];
            row_scores.iter_mut().zip(mask_row).for_each(|(s, m)| *s += m);
        }
        let (max, sum) = softmax_numerators(row_scores);
        let row_result = &mut result[r * width..][..width];
        row_result[0] = max;
        row_result[1] = sum;
        row_result[2..].fill(0.0);
    }
    for chunk in keys.clone().step_by(KEY_CHUNK) {
        let count = KEY_CHUNK.min(keys.end - chunk);
        let values = crate::rows(v, v_start, chunk, count, v_dim);
        let values = as_f32(&values, widened);
        let from = chunk - keys.start;
        for (r, row_scores) in scores[..total * len].chunks(len).enumerate() {
            let out = &mut result[r * width + 2..][..v_dim];
            accumulate(&row_scores[from..from + count], values, out);
        }
    }
}

/// The rows as f32: in place when they are, else widened into `buffer`.
pub(crate) fn as_f32<'a, T: KvValue>(rows: &'a [T], buffer: &'a mut Vec<f32>) -> &'a [f32] {
    if let Some(rows) = T::as_f32(rows) {
        return rows;
    }
    grow(buffer, rows.len());
    let widened = &mut buffer[..rows.len()];
    crate::widen_into(rows, widened);
    widened
}

/// Makes `buffer` hold at least `len` values (new ones zero; old ones left as they are: every
/// user writes what it reads).
fn grow(buffer: &mut Vec<f32>, len: usize) {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
}

/// `scores[j] = scale · q·keys[j]` for the `scores.len()` contiguous rows of `dim` in `keys`.
pub(crate) fn score(q: &[f32], keys: &[f32], dim: usize, scale: f32, scores: &mut [f32]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma"))]
    if dim.is_multiple_of(8) {
        // SAFETY: AVX2 and FMA are enabled for the whole build (cfg above); the lengths are
        // checked inside.
        unsafe { x86::score(q, keys, dim, scale, scores) };
        return;
    }
    for (s, key) in scores.iter_mut().zip(keys.chunks_exact(dim)) {
        *s = dot(q, key) * scale;
    }
}

/// `out += Σ_j weights[j]·values[j]` over contiguous rows of `out.len()` values.
pub(crate) fn accumulate(weights: &[f32], values: &[f32], out: &mut [f32]) {
    let dim = out.len();
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma"))]
    if dim.is_multiple_of(64) {
        // SAFETY: as in `score`.
        unsafe { x86::accumulate(weights, values, out) };
        return;
    }
    match dim {
        64 => weighted_sum::<64>(weights, values, out),
        128 => weighted_sum::<128>(weights, values, out),
        _ => {
            for (&p, value) in weights.iter().zip(values.chunks_exact(dim)) {
                if p != 0.0 {
                    out.iter_mut().zip(value).for_each(|(o, x)| *o += p * x);
                }
            }
        }
    }
}

/// Σ a·b with eight running sums, so that the compiler keeps them in one vector register (the
/// portable path of `score`).
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (a8, a_rest) = a.as_chunks::<8>();
    let (b8, b_rest) = b.as_chunks::<8>();
    for (x, y) in a8.iter().zip(b8) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    let tail: f32 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + tail
}

/// out += Σ_j weights[j]·values[j] (contiguous rows of D, a multiple of 8) for the common head
/// sizes (the portable path of `accumulate`): with the size known the sum stays in registers
/// across the keys instead of going through memory for each one.
#[inline(always)]
fn weighted_sum<const D: usize>(weights: &[f32], values: &[f32], out: &mut [f32]) {
    let mut sum: [f32; D] = out.try_into().expect("D values");
    for (&p, row) in weights.iter().zip(values.as_chunks::<D>().0) {
        for (s, x) in sum.as_chunks_mut::<8>().0.iter_mut().zip(row.as_chunks::<8>().0) {
            for i in 0..8 {
                s[i] += p * x[i];
            }
        }
    }
    out.copy_from_slice(&sum);
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma"))]
mod x86 {
    use std::arch::x86_64::*;

    /// Eight keys at a time, each with its own running sum (eight independent FMA chains), the
    /// eight sums reduced to one vector of eight scores together.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn score(q: &[f32], keys: &[f32], dim: usize, scale: f32, scores: &mut [f32]) {
        let count = scores.len();
        assert!(q.len() >= dim && keys.len() >= count * dim && dim.is_multiple_of(8));
        let (q, keys) = (q.as_ptr(), keys.as_ptr());
        let scale8 = _mm256_set1_ps(scale);
        let mut j = 0;
        // SAFETY: every load reads key rows j..j+8 < count (dims below `dim`) or q below `dim`,
        // inside the slices by the assertion; stores write scores j..j+8 < count.
        unsafe {
            while j + 8 <= count {
                let row = |i: usize| keys.add((j + i) * dim);
                let mut sums = [_mm256_setzero_ps(); 8];
                for c in (0..dim).step_by(8) {
                    let qc = _mm256_loadu_ps(q.add(c));
                    for (i, sum) in sums.iter_mut().enumerate() {
                        *sum = _mm256_fmadd_ps(qc, _mm256_loadu_ps(row(i).add(c)), *sum);
                    }
                }
                _mm256_storeu_ps(scores.as_mut_ptr().add(j), _mm256_mul_ps(horizontal_sums(sums), scale8));
                j += 8;
            }
            for (j, s) in scores.iter_mut().enumerate().skip(j) {
                let mut sum = _mm256_setzero_ps();
                for c in (0..dim).step_by(8) {
                    sum = _mm256_fmadd_ps(_mm256_loadu_ps(q.add(c)), _mm256_loadu_ps(keys.add(j * dim + c)), sum);
                }
                let sums = horizontal_sums([sum, sum, sum, sum, sum, sum, sum, sum]);
                *s = _mm256_cvtss_f32(sums) * scale;
            }
        }
    }

    /// Lane i of the result is the sum of the eight lanes of `v[i]`.
    #[target_feature(enable = "avx2,fma")]
    fn horizontal_sums(v: [__m256; 8]) -> __m256 {
        // hadd(a, b) = [a0+a1, a2+a3, b0+b1, b2+b3, a4+a5, a6+a7, b4+b5, b6+b7]
        let pairs = [
            _mm256_hadd_ps(v[0], v[1]),
            _mm256_hadd_ps(v[2], v[3]),
            _mm256_hadd_ps(v[4], v[5]),
            _mm256_hadd_ps(v[6], v[7]),
        ];
        // Lanes: v0 low quarter sums… v3, then the same of their high halves.
        let low = _mm256_hadd_ps(pairs[0], pairs[1]);
        let high = _mm256_hadd_ps(pairs[2], pairs[3]);
        _mm256_add_ps(_mm256_permute2f128_ps::<0x20>(low, high), _mm256_permute2f128_ps::<0x31>(low, high))
    }

    /// Sixty-four output values at a time stay in eight registers across all the keys (eight
    /// independent FMA chains).
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn accumulate(weights: &[f32], values: &[f32], out: &mut [f32]) {
        let dim = out.len();
        assert!(values.len() >= weights.len() * dim && dim.is_multiple_of(64));
        for c in (0..dim).step_by(64) {
            // SAFETY: c + 64 ≤ dim = out.len(); value reads stay below weights.len() × dim, inside
            // `values` by the assertion.
            unsafe {
                let mut sums = [_mm256_setzero_ps(); 8];
                for (i, sum) in sums.iter_mut().enumerate() {
                    *sum = _mm256_loadu_ps(out.as_ptr().add(c + 8 * i));
                }
                for (j, &p) in weights.iter().enumerate() {
                    let p = _mm256_set1_ps(p);
                    let row = values.as_ptr().add(j * dim + c);
                    for (i, sum) in sums.iter_mut().enumerate() {
                        *sum = _mm256_fmadd_ps(p, _mm256_loadu_ps(row.add(8 * i)), *sum);
                    }
                }
                for (i, sum) in sums.iter().enumerate() {
                    _mm256_storeu_ps(out.as_mut_ptr().add(c + 8 * i), *sum);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(count: usize, seed: u32) -> Vec<f32> {
        (0..count)
            .map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) >> 8) as f32 / 8_388_608.0 - 1.0)
            .collect()
    }

    /// The SIMD kernels this build uses and the portable loops (other CPUs) give the same
    /// products, for the head sizes both have a path for.
    #[test]
    fn the_portable_products_agree_with_the_kernels() {
        for dim in [64, 128] {
            let count = 61; // seven blocks of eight keys and a tail
            let (q, keys, weights) = (values(dim, 1), values(count * dim, 2), values(count, 3));
            let mut scores = vec![0.0; count];
            score(&q, &keys, dim, 0.5, &mut scores);
            for (j, s) in scores.iter().enumerate() {
                let portable = dot(&q, &keys[j * dim..][..dim]) * 0.5;
                assert!((s - portable).abs() <= 1e-5 * (1.0 + portable.abs()), "score {j} of dim {dim}");
            }
            let start = values(dim, 4);
            let (mut kernel, mut portable) = (start.clone(), start);
            accumulate(&weights, &keys, &mut kernel);
            match dim {
                64 => weighted_sum::<64>(&weights, &keys, &mut portable),
                _ => weighted_sum::<128>(&weights, &keys, &mut portable),
            }
            for (a, b) in kernel.iter().zip(&portable) {
                assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "accumulate of dim {dim}");
            }
        }
    }
}
