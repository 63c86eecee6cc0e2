//! Scaled dot-product attention on the CPU, for the embedded engine (mistral.rs, patched to call
//! this in `vendor/mistralrs-core`); [`qmatmul`] is the quantised matmul of its linear layers,
//! patched in the same way.
//!
//! Why it exists: mistral.rs 0.8.1 computes CPU attention with a scalar loop over every
//! (query, key) pair, the masked-out half of a causal prompt included, one `exp` a pair, on a
//! rayon pool of its own beside candle's. On a 4,000-token prompt of SmolLM2-135M that was ≈ 86 %
//! of prompt time. Here each block of query rows is multiplied (gemm) only against the keys its
//! rows can see — read from the mask, never assumed — softmax runs once over those scores with a
//! vectorisable `exp`, and the heads of a grouped-query group read the same K and V rows instead
//! of copies. The result equals softmax(QKᵀ·scale + mask)·V to float rounding (tests below).
//!
//! Tensors are slices with explicit element strides, so any candle layout (a transposed view,
//! a KV cache narrowed from a larger buffer) is read in place. Queries are f32; keys and values
//! f32 or f16 (the engine keeps its KV cache in f16: half the bytes decoding reads per token).
//! Decoding (a few query rows) has its own path in `decode`: segments of the cache shared
//! between the threads, the query heads that share a key/value head scored together, so each
//! cached row is read once.

use std::cell::RefCell;

mod decode;
pub mod q4_1;
pub mod qmatmul;

use rayon::prelude::*;

/// Query rows a task multiplies at once: large enough for gemm to run at speed, small enough that
/// a block's scores (rows × visible keys) stay in cache and a causal prompt skips most of its
/// masked half.
pub const QUERY_BLOCK: usize = 64;

/// A rank-4 tensor read through element strides, indexed (batch, head, position, dim): f32, or
/// for keys and values also f16 (a KV cache at half the bytes).
#[derive(Clone, Copy, Debug)]
pub struct View<'a, T = f32> {
    pub data: &'a [T],
    pub batch: usize,
    pub head: usize,
    pub position: usize,
    pub dim: usize,
}

/// The element types keys and values may have. They are widened to f32 before any product: a
/// chunk of rows at a time when decoding, whole for a prompt's gemm.
pub trait KvValue: Copy + Send + Sync + 'static {
    /// The values as f32, when they are f32 already (read in place).
    fn as_f32(data: &[Self]) -> Option<&[f32]>;
    fn to_f32(self) -> f32;
    /// Eight values as f32.
    fn widen8(x: &[Self; 8]) -> [f32; 8];
}

impl KvValue for f32 {
    fn as_f32(data: &[f32]) -> Option<&[f32]> {
        Some(data)
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn widen8(x: &[f32; 8]) -> [f32; 8] {
        *x
    }
}

impl KvValue for half::f16 {
    fn as_f32(_: &[half::f16]) -> Option<&[f32]> {
        None
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
    /// One `vcvtph2ps` where the build has F16C (the x86-64-v3 baseline).
    #[inline(always)]
    fn widen8(x: &[half::f16; 8]) -> [f32; 8] {
        #[cfg(all(target_arch = "x86_64", target_feature = "f16c"))]
        // SAFETY: F16C is enabled for the whole build; the load reads the 16 bytes of `x`.
        unsafe {
            use std::arch::x86_64::{_mm_loadu_si128, _mm256_cvtph_ps};
            std::mem::transmute(_mm256_cvtph_ps(_mm_loadu_si128(x.as_ptr().cast())))
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "f16c")))]
        x.map(half::f16::to_f32)
    }
}

/// `dst[i] = src[i]` as f32.
fn widen_into<T: KvValue>(src: &[T], dst: &mut [f32]) {
    let (src8, src_rest) = src.as_chunks::<8>();
    let (dst8, dst_rest) = dst.as_chunks_mut::<8>();
    for (s, d) in src8.iter().zip(dst8) {
        *d = T::widen8(s);
    }
    for (s, d) in src_rest.iter().zip(dst_rest) {
        *d = s.to_f32();
    }
}

impl<T> View<'_, T> {
    fn offset(&self, batch: usize, head: usize, position: usize) -> usize {
        batch * self.batch + head * self.head + position * self.position
    }

    /// Whether every index below these dimensions stays inside `data`.
    fn covers(&self, batches: usize, heads: usize, positions: usize, dims: usize) -> bool {
        if batches == 0 || heads == 0 || positions == 0 || dims == 0 {
            return true;
        }
        let last = (batches - 1) * self.batch
            + (heads - 1) * self.head
            + (positions - 1) * self.position
            + (dims - 1) * self.dim;
        last < self.data.len()
    }
}

/// What the attention computes over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub batch: usize,
    /// Query heads; a multiple of `kv_heads` (grouped-query attention).
    pub heads: usize,
    pub kv_heads: usize,
    pub q_len: usize,
    pub kv_len: usize,
    pub head_dim: usize,
    pub v_dim: usize,
}

#[derive(Debug, PartialEq, Eq)]
pub enum AttentionError {
    /// Shapes that do not fit together, or strides that would read outside a slice.
    Shape(String),
}

impl std::fmt::Display for AttentionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttentionError::Shape(what) => write!(f, "cpu attention: {what}"),
        }
    }
}

impl std::error::Error for AttentionError {}

/// softmax(Q·Kᵀ·scale + mask)·V into `out`, laid out contiguous (batch, head, q position, v dim).
///
/// `mask`, when given, is row-major (q_len, kv_len), added to the scores, shared by every batch and
/// head; `-inf` hides a key from a query. Without a mask every query sees every key. A query that
/// sees no key at all gets a zero row.
///
/// Keys and values may be f16 (`T`); they are widened to f32 as they are read, a few rows at a
/// time when decoding, and whole (once per call) for a prompt, whose blocks multiply through
/// gemm in f32.
pub fn attention<T: KvValue>(
    dims: Dims,
    q: View<'_>,
    k: View<'_, T>,
    v: View<'_, T>,
    mask: Option<&[f32]>,
    scale: f32,
    out: &mut [f32],
) -> Result<(), AttentionError> {
    let Dims { batch, heads, kv_heads, q_len, kv_len, head_dim, v_dim } = dims;
    if kv_heads == 0 || heads % kv_heads != 0 {
        return Err(AttentionError::Shape(format!("{heads} query heads over {kv_heads} key/value heads")));
    }
    if !q.covers(batch, heads, q_len, head_dim)
        || !k.covers(batch, kv_heads, kv_len, head_dim)
        || !v.covers(batch, kv_heads, kv_len, v_dim)
    {
        return Err(AttentionError::Shape("a stride reads outside its tensor".into()));
    }
    if out.len() != batch * heads * q_len * v_dim {
        return Err(AttentionError::Shape(format!(
            "output holds {} values, not {}",
            out.len(),
            batch * heads * q_len * v_dim
        )));
    }
    if let Some(mask) = mask
        && mask.len() != q_len * kv_len
    {
        return Err(AttentionError::Shape(format!("mask holds {} values, not {q_len}×{kv_len}", mask.len())));
    }
    if out.is_empty() {
        return Ok(());
    }
    if T::as_f32(k.data).is_none() && !reads_rows_in_loops(&dims, &q, &k, &v) {
        // A prompt's blocks go through gemm, which multiplies f32: K and V widened once, laid
        // out contiguous.
        let (k, v) = (widen(&k, batch, kv_heads, kv_len, head_dim), widen(&v, batch, kv_heads, kv_len, v_dim));
        let k = View {
            data: &k[..],
            batch: kv_heads * kv_len * head_dim,
            head: kv_len * head_dim,
            position: head_dim,
            dim: 1,
        };
        let v = View { data: &v[..], batch: kv_heads * kv_len * v_dim, head: kv_len * v_dim, position: v_dim, dim: 1 };
        return attention(dims, q, k, v, mask, scale, out);
    }
    let group = heads / kv_heads;
    if reads_rows_in_loops(&dims, &q, &k, &v) && group * q_len <= QUERY_BLOCK {
        // Decoding: segments of keys shared between the threads, the query heads of a group
        // together (see `decode`).
        decode::attention(&dims, (&q, &k, &v), mask, scale, out);
        return Ok(());
    }
    // One task a (batch, head, block of query rows); the output of each is one contiguous run.
    let rows_per_task = QUERY_BLOCK.min(q_len);
    out.par_chunks_mut(q_len * v_dim).enumerate().for_each(|(batch_head, head_out)| {
        let (b, h) = (batch_head / heads, batch_head % heads);
        let kv_head = h / group;
        head_out.par_chunks_mut(rows_per_task * v_dim).enumerate().for_each(|(block, block_out)| {
            let first = block * rows_per_task;
            let rows = rows_per_task.min(q_len - first);
            SCRATCH.with_borrow_mut(|scratch| {
                let block = Block { b, h, kv_head, first, rows };
                attend_block(block, &dims, (&q, &k, &v), mask, scale, block_out, scratch)
            });
        });
    });
    Ok(())
}

/// `view` (batch, heads, positions, dims) as contiguous f32.
fn widen<T: KvValue>(view: &View<'_, T>, batches: usize, heads: usize, positions: usize, dims: usize) -> Vec<f32> {
    let mut out = vec![0f32; batches * heads * positions * dims];
    out.par_chunks_mut(positions * dims).enumerate().for_each(|(bh, head_out)| {
        let start = view.offset(bh / heads, bh % heads, 0);
        for (p, row) in head_out.chunks_mut(dims).enumerate() {
            let first = start + p * view.position;
            if view.dim == 1 {
                widen_into(&view.data[first..first + dims], row);
            } else {
                for (d, x) in row.iter_mut().enumerate() {
                    *x = view.data[first + d * view.dim].to_f32();
                }
            }
        }
    });
    out
}

/// Whether every block of this call is computed by plain loops (few query rows, rows contiguous
/// in their last dimension) rather than gemm.
fn reads_rows_in_loops<T>(dims: &Dims, q: &View<'_>, k: &View<'_, T>, v: &View<'_, T>) -> bool {
    dims.q_len <= FEW_ROWS && q.dim == 1 && k.dim == 1 && v.dim == 1
}

thread_local! {
    /// A worker's score buffer, reused across blocks (rows × visible keys).
    static SCRATCH: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Keys (or values) the plain loops widen and multiply per step: 64 rows of 128 f32 dims are
/// 32 KB, inside L1.
const KEY_CHUNK: usize = 64;

/// The keys a mask row lets its query see end here: past it every score would be exp(-inf) = 0.
fn visible_keys(mask_row: &[f32]) -> usize {
    mask_row.iter().rposition(|&x| x != f32::NEG_INFINITY).map_or(0, |j| j + 1)
}

/// Rows `first..first + count` of one head (starting at `start`) as contiguous rows of `width`
/// values: in place when they lie so (a KV cache), else gathered. The caller has checked
/// `view.dim == 1`.
fn rows<'r, T: KvValue>(
    view: &View<'r, T>,
    start: usize,
    first: usize,
    count: usize,
    width: usize,
) -> std::borrow::Cow<'r, [T]>
where
    [T]: ToOwned<Owned = Vec<T>>,
{
    let from = start + first * view.position;
    if view.position == width {
        return std::borrow::Cow::Borrowed(&view.data[from..from + count * width]);
    }
    (0..count).flat_map(|j| &view.data[from + j * view.position..][..width]).copied().collect::<Vec<T>>().into()
}

/// Query rows `first..first + rows` of query head `h`, which reads key and value head `kv_head`.
struct Block {
    b: usize,
    h: usize,
    kv_head: usize,
    first: usize,
    rows: usize,
}

/// One block of query rows (a prompt's; decoding goes to `decode`). Keys and values other than
/// f32 only arrive here for plain loops (`attention` widens them for gemm).
fn attend_block<T: KvValue>(
    block: Block,
    dims: &Dims,
    (q, k, v): (&View<'_>, &View<'_, T>, &View<'_, T>),
    mask: Option<&[f32]>,
    scale: f32,
    out: &mut [f32],
    scores: &mut Vec<f32>,
) {
    let Block { b, h, kv_head, first, rows } = block;
    let (kv_len, head_dim, v_dim) = (dims.kv_len, dims.head_dim, dims.v_dim);
    let mask_row = |r: usize| mask.map(|m| &m[(first + r) * kv_len..][..kv_len]);
    // The keys any row of the block sees end at `visible`; later scores are never computed.
    let visible = (0..rows).map(|row| mask_row(row).map_or(kv_len, visible_keys)).max().unwrap_or(0);
    if visible == 0 {
        out.fill(0.0);
        return;
    }
    scores.clear();
    scores.resize(rows * visible, 0.0);
    let q_start = q.offset(b, h, first);
    let k_start = k.offset(b, kv_head, 0);
    let v_start = v.offset(b, kv_head, 0);
    // A block of a few rows (the last of a prompt): gemm's matrix-vector path is
    // several times slower than plain loops, which the compiler vectorises.
    let plain_loops = rows <= FEW_ROWS && q.dim == 1 && k.dim == 1 && v.dim == 1;

    // scores = scale · Q_block · K_visibleᵀ
    let mut widened = Vec::new();
    if plain_loops {
        for chunk in (0..visible).step_by(KEY_CHUNK) {
            let count = KEY_CHUNK.min(visible - chunk);
            let keys = self::rows(k, k_start, chunk, count, head_dim);
            let keys = decode::as_f32(&keys, &mut widened);
            for r in 0..rows {
                let q_row = &q.data[q.offset(b, h, first + r)..][..head_dim];
                decode::score(q_row, keys, head_dim, scale, &mut scores[r * visible + chunk..][..count]);
            }
        }
    } else {
        let Some(k_data) = T::as_f32(k.data) else { unreachable!("attention widens keys for gemm") };
        // SAFETY: `attention` checked that every index of q, k and v below their dimensions is
        // inside the slices; the block reads rows first..first+rows of q (< q_len), keys
        // 0..visible (≤ kv_len) and dims below head_dim; `scores` holds rows×visible, written
        // row-major.
        unsafe {
            gemm::gemm(
                rows,
                visible,
                head_dim,
                scores.as_mut_ptr(),
                1,
                visible as isize,
                false,
                q.data.as_ptr().add(q_start),
                q.dim as isize,
                q.position as isize,
                k_data.as_ptr().add(k_start),
                k.position as isize,
                k.dim as isize,
                0.0,
                scale,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
    }

    let mut sums = [0f32; QUERY_BLOCK];
    for (r, sum) in sums.iter_mut().enumerate().take(rows) {
        let row_scores = &mut scores[r * visible..(r + 1) * visible];
        if let Some(m) = mask_row(r) {
            for (s, &m) in row_scores.iter_mut().zip(&m[..visible]) {
                *s += m;
            }
        }
        *sum = softmax_numerators(row_scores).1;
    }

    // out = P · V_visible (P unnormalised; rows divided by their sums below)
    if plain_loops {
        out.fill(0.0);
        for chunk in (0..visible).step_by(KEY_CHUNK) {
            let count = KEY_CHUNK.min(visible - chunk);
            let values = self::rows(v, v_start, chunk, count, v_dim);
            let values = decode::as_f32(&values, &mut widened);
            for (row_scores, row_out) in scores.chunks(visible).zip(out.chunks_mut(v_dim)) {
                decode::accumulate(&row_scores[chunk..chunk + count], values, row_out);
            }
        }
    } else {
        let Some(v_data) = T::as_f32(v.data) else { unreachable!("attention widens values for gemm") };
        // SAFETY: as above for v (keys 0..visible, dims below v_dim); `out` holds rows×v_dim,
        // written row-major.
        unsafe {
            gemm::gemm(
                rows,
                v_dim,
                visible,
                out.as_mut_ptr(),
                1,
                v_dim as isize,
                false,
                scores.as_ptr(),
                1,
                visible as isize,
                v_data.as_ptr().add(v_start),
                v.dim as isize,
                v.position as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
    }
    for (row_out, &sum) in out.chunks_mut(v_dim).zip(&sums[..rows]) {
        let inverse = if sum > 0.0 { 1.0 / sum } else { 0.0 };
        for x in row_out {
            *x *= inverse;
        }
    }
}

/// Up to this many query rows a block is computed by plain loops instead of gemm.
const FEW_ROWS: usize = 4;

/// Replaces each score by exp(score − max) and returns (max, their sum); a row of nothing but
/// -inf gives (-inf, 0) and zeros. Three passes (max, exp, sum), each of which the compiler
/// vectorises; one fused loop would not be, for the order of its additions.
fn softmax_numerators(row: &mut [f32]) -> (f32, f32) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        row.fill(0.0);
        return (max, 0.0);
    }
    // A -inf score (a hidden key) gives -inf − max = -inf, which exp_nonpositive maps to 0.
    let (row8, rest) = row.as_chunks_mut::<8>();
    for chunk in row8 {
        for x in chunk {
            *x = exp_nonpositive(*x - max);
        }
    }
    for x in rest {
        *x = exp_nonpositive(*x - max);
    }
    let mut lanes = [0f32; 8];
    let (row8, rest) = row.as_chunks::<8>();
    for chunk in row8 {
        for i in 0..8 {
            lanes[i] += chunk[i];
        }
    }
    (max, lanes.iter().sum::<f32>() + rest.iter().sum::<f32>())
}

/// e^x for x ≤ 0 in plain arithmetic the compiler vectorises (the libm call in a loop does not):
/// x = n·ln2 + r with |r| ≤ ln2/2, e^r by its Taylor series to r⁶ (relative error < 2e-7),
/// 2^n built in the exponent bits. Below -87.3 (2^-126) the result is flushed to 0.
#[inline(always)]
fn exp_nonpositive(x: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    // ln 2 split so that n·LN2_HI is exact for the n that occur.
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Adding and subtracting 1.5·2^23 rounds to the nearest integer without a libm call.
    const ROUND: f32 = 12_582_912.0;
    let clamped = if x > -87.0 { x } else { -87.0 };
    let shifted = clamped * LOG2_E + ROUND;
    let n = shifted - ROUND;
    let r = clamped - n * LN2_HI - n * LN2_LO;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // The low bits of `shifted` hold n (an integer in [-126, 0]): 2^n is built from them in
    // integer arithmetic, not through a float-to-int conversion (whose saturation rules keep
    // the loop scalar); wrapping, as overflow checks in test builds would too.
    let n_bits = shifted.to_bits().wrapping_sub(ROUND.to_bits()) as i32;
    let two_n = f32::from_bits((n_bits.wrapping_add(127) as u32) << 23);
    if x < -87.0 { 0.0 } else { p * two_n }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift) for test data in [-1, 1).
    struct Numbers(u64);
    impl Numbers {
        fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        }
        fn vec(&mut self, n: usize) -> Vec<f32> {
            (0..n).map(|_| self.next()).collect()
        }
    }

    /// softmax(QKᵀ·scale + mask)·V the textbook way, in f64, contiguous (b, h, pos, dim) inputs.
    #[allow(clippy::too_many_arguments)]
    fn reference(dims: Dims, q: &[f32], k: &[f32], v: &[f32], mask: Option<&[f32]>, scale: f32) -> Vec<f32> {
        let Dims { batch, heads, kv_heads, q_len, kv_len, head_dim, v_dim } = dims;
        let group = heads / kv_heads;
        let mut out = vec![0f32; batch * heads * q_len * v_dim];
        for b in 0..batch {
            for h in 0..heads {
                let g = h / group;
                for i in 0..q_len {
                    let qi = &q[((b * heads + h) * q_len + i) * head_dim..][..head_dim];
                    let scores: Vec<f64> = (0..kv_len)
                        .map(|j| {
                            let kj = &k[((b * kv_heads + g) * kv_len + j) * head_dim..][..head_dim];
                            let dot: f64 = qi.iter().zip(kj).map(|(a, b)| *a as f64 * *b as f64).sum();
                            dot * scale as f64 + mask.map_or(0.0, |m| m[i * kv_len + j] as f64)
                        })
                        .collect();
                    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    if max == f64::NEG_INFINITY {
                        continue;
                    }
                    let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
                    let sum: f64 = weights.iter().sum();
                    for d in 0..v_dim {
                        let value: f64 = (0..kv_len)
                            .map(|j| weights[j] * v[((b * kv_heads + g) * kv_len + j) * v_dim + d] as f64)
                            .sum();
                        out[((b * heads + h) * q_len + i) * v_dim + d] = (value / sum) as f32;
                    }
                }
            }
        }
        out
    }

    fn contiguous(data: &[f32], heads: usize, len: usize, dim: usize) -> View<'_> {
        View { data, batch: heads * len * dim, head: len * dim, position: dim, dim: 1 }
    }

    /// The mask mistral.rs builds for a prompt of `q_len` new tokens after `past` cached ones.
    fn causal_mask(q_len: usize, past: usize) -> Vec<f32> {
        let kv_len = past + q_len;
        (0..q_len).flat_map(|i| (0..kv_len).map(move |j| if j <= past + i { 0.0 } else { f32::NEG_INFINITY })).collect()
    }

    fn max_difference(a: &[f32], b: &[f32]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
    }

    fn check(dims: Dims, mask: Option<Vec<f32>>, seed: u64) {
        let mut numbers = Numbers(seed);
        let q = numbers.vec(dims.batch * dims.heads * dims.q_len * dims.head_dim);
        let k = numbers.vec(dims.batch * dims.kv_heads * dims.kv_len * dims.head_dim);
        let v = numbers.vec(dims.batch * dims.kv_heads * dims.kv_len * dims.v_dim);
        let scale = 1.0 / (dims.head_dim as f32).sqrt();
        let mut out = vec![f32::NAN; dims.batch * dims.heads * dims.q_len * dims.v_dim];
        attention(
            dims,
            contiguous(&q, dims.heads, dims.q_len, dims.head_dim),
            contiguous(&k, dims.kv_heads, dims.kv_len, dims.head_dim),
            contiguous(&v, dims.kv_heads, dims.kv_len, dims.v_dim),
            mask.as_deref(),
            scale,
            &mut out,
        )
        .unwrap();
        let expected = reference(dims, &q, &k, &v, mask.as_deref(), scale);
        let difference = max_difference(&out, &expected);
        assert!(difference < 2e-5, "{dims:?}: max difference {difference}");

        // The same with keys and values in f16 (a half-size KV cache): exact against the
        // reference on the f16 values, whether the block reads rows in loops or through gemm.
        let half = |x: &[f32]| x.iter().map(|&x| half::f16::from_f32(x)).collect::<Vec<_>>();
        let (k16, v16) = (half(&k), half(&v));
        let widened = |x: &[half::f16]| x.iter().map(|x| x.to_f32()).collect::<Vec<_>>();
        let mut out16 = vec![f32::NAN; out.len()];
        let view16 =
            |data, len, dim| View { data, batch: dims.kv_heads * len * dim, head: len * dim, position: dim, dim: 1 };
        attention(
            dims,
            contiguous(&q, dims.heads, dims.q_len, dims.head_dim),
            view16(&k16[..], dims.kv_len, dims.head_dim),
            view16(&v16[..], dims.kv_len, dims.v_dim),
            mask.as_deref(),
            scale,
            &mut out16,
        )
        .unwrap();
        let expected16 = reference(dims, &q, &widened(&k16), &widened(&v16), mask.as_deref(), scale);
        let difference = max_difference(&out16, &expected16);
        assert!(difference < 2e-5, "f16 {dims:?}: max difference {difference}");
        // f16 keeps 11 bits: the answer moves by about that much, no more.
        assert!(max_difference(&out16, &expected) < 2e-3, "f16 {dims:?}");
    }

    fn dims(heads: usize, kv_heads: usize, q_len: usize, kv_len: usize) -> Dims {
        Dims { batch: 1, heads, kv_heads, q_len, kv_len, head_dim: 64, v_dim: 64 }
    }

    #[test]
    fn causal_prompt_matches_the_reference() {
        // SmolLM2-135M's heads (9 over 3), a prompt spanning several query blocks.
        check(dims(9, 3, 150, 150), Some(causal_mask(150, 0)), 1);
    }

    #[test]
    fn prompt_after_cached_prefix_matches_the_reference() {
        check(dims(9, 3, 70, 70 + 133), Some(causal_mask(70, 133)), 2);
    }

    #[test]
    fn decoding_one_token_without_mask_matches_the_reference() {
        check(dims(9, 3, 1, 517), None, 3);
        check(Dims { batch: 2, ..dims(4, 4, 1, 33) }, None, 4);
    }

    #[test]
    fn a_few_rows_take_the_loop_path_and_match_the_reference() {
        // One query row (decoding) and a prompt whose last block has three rows.
        check(dims(9, 3, 1, 300), Some(causal_mask(1, 299)), 9);
        check(dims(9, 3, QUERY_BLOCK + 3, 300), Some(causal_mask(QUERY_BLOCK + 3, 300 - QUERY_BLOCK - 3)), 11);
        check(Dims { head_dim: 13, v_dim: 5, ..dims(2, 1, 2, 21) }, None, 10);
        check(Dims { head_dim: 128, v_dim: 128, ..dims(4, 2, 1, 77) }, None, 12);
    }

    #[test]
    fn any_mask_is_honoured_not_only_causal() {
        // A sliding window and scattered hidden keys: rows see different, non-prefix key sets.
        let (q_len, kv_len) = (80, 96);
        let mut numbers = Numbers(5);
        let mask: Vec<f32> = (0..q_len * kv_len)
            .map(|n| {
                let (i, j) = (n / kv_len, n % kv_len);
                let hidden = j > i + 16 || j + 40 < i || numbers.next() > 0.8;
                if hidden { f32::NEG_INFINITY } else { numbers.next() }
            })
            .collect();
        check(dims(6, 2, q_len, kv_len), Some(mask), 6);
    }

    #[test]
    fn a_row_that_sees_nothing_is_zero() {
        let (q_len, kv_len) = (3, 5);
        let mut mask = causal_mask(q_len, 2);
        mask[kv_len..2 * kv_len].fill(f32::NEG_INFINITY);
        let mut numbers = Numbers(7);
        let d = Dims { head_dim: 4, v_dim: 4, ..dims(2, 1, q_len, kv_len) };
        let q = numbers.vec(2 * q_len * 4);
        let k = numbers.vec(kv_len * 4);
        let mut out = vec![f32::NAN; 2 * q_len * 4];
        attention(
            d,
            contiguous(&q, 2, q_len, 4),
            contiguous(&k, 1, kv_len, 4),
            contiguous(&k, 1, kv_len, 4),
            Some(&mask),
            0.5,
            &mut out,
        )
        .unwrap();
        for head in 0..2 {
            assert_eq!(&out[(head * q_len + 1) * 4..(head * q_len + 2) * 4], &[0.0; 4]);
            assert!(out[(head * q_len) * 4..(head * q_len + 1) * 4].iter().all(|x| x.is_finite() && *x != 0.0));
        }
    }

    #[test]
    fn a_long_cache_is_split_into_segments_and_merged_exactly() {
        // One key/value head over 2,100 keys: decoding cuts them into several segments (at least
        // 512 keys each), whose results are merged. Checked without a mask, with a window that
        // hides whole segments from every row, and with rows that see different segments.
        let kv_len = 2_100;
        check(dims(3, 1, 1, kv_len), None, 21);
        check(Dims { batch: 2, ..dims(2, 1, 1, kv_len) }, None, 22);
        let window = |q_len: usize, width: usize| -> Vec<f32> {
            (0..q_len * kv_len)
                .map(|n| {
                    let (i, j) = (n / kv_len, n % kv_len);
                    let position = kv_len - q_len + i;
                    if j <= position && j + width > position { 0.0 } else { f32::NEG_INFINITY }
                })
                .collect()
        };
        check(dims(3, 1, 1, kv_len), Some(window(1, 300)), 23);
        check(dims(2, 1, 3, kv_len), Some(window(3, 700)), 24);
        // The last row sees only the first key, the others the whole cache.
        let mut mask = vec![0.0; 2 * kv_len];
        mask[kv_len + 1..].fill(f32::NEG_INFINITY);
        check(Dims { head_dim: 128, v_dim: 128, ..dims(4, 2, 2, kv_len) }, Some(mask), 25);
    }

    #[test]
    fn strided_views_are_read_in_place() {
        // q as candle hands it after a transpose: (batch, position, head, dim) in memory; k and v
        // as a KV cache narrowed from a buffer of 40 positions.
        let d = Dims { batch: 1, heads: 4, kv_heads: 2, q_len: 20, kv_len: 30, head_dim: 8, v_dim: 8 };
        let mut numbers = Numbers(8);
        let q_mem = numbers.vec(20 * 4 * 8);
        let k_mem = numbers.vec(2 * 40 * 8);
        let v_mem = numbers.vec(2 * 40 * 8);
        let q = View { data: &q_mem, batch: 0, head: 8, position: 4 * 8, dim: 1 };
        let k = View { data: &k_mem, batch: 0, head: 40 * 8, position: 8, dim: 1 };
        let v = View { data: &v_mem, batch: 0, head: 40 * 8, position: 8, dim: 1 };
        let mask = causal_mask(20, 10);
        let mut out = vec![0f32; 4 * 20 * 8];
        attention(d, q, k, v, Some(&mask), 0.3, &mut out).unwrap();
        // The same numbers copied into contiguous (b, h, pos, dim) order.
        let gather = |view: View<'_>, heads: usize, len: usize| -> Vec<f32> {
            (0..heads)
                .flat_map(|h| {
                    (0..len).flat_map(move |p| (0..8).map(move |x| view.data[h * view.head + p * view.position + x]))
                })
                .collect()
        };
        let expected = reference(d, &gather(q, 4, 20), &gather(k, 2, 30), &gather(v, 2, 30), Some(&mask), 0.3);
        assert!(max_difference(&out, &expected) < 2e-5);
    }

    #[test]
    fn strided_f16_keys_and_values_are_widened_where_they_lie() {
        // K and V in f16 laid out (position, head, dim) with a gap after each dim (dim stride 2)
        // or without (rows apart by heads × dims): decoding (rows widened a chunk at a time)
        // and a prompt (widened whole for gemm).
        for (q_len, dim_stride) in [(1, 1), (1, 2), (3, 1), (20, 1), (20, 2)] {
            let d = Dims { batch: 1, heads: 4, kv_heads: 2, q_len, kv_len: 90, head_dim: 8, v_dim: 8 };
            let mut numbers = Numbers(13 + q_len as u64);
            let q = numbers.vec(4 * q_len * 8);
            let memory = |numbers: &mut Numbers| {
                numbers.vec(90 * 2 * 8 * dim_stride).into_iter().map(half::f16::from_f32).collect::<Vec<_>>()
            };
            let (k_mem, v_mem) = (memory(&mut numbers), memory(&mut numbers));
            let view =
                |data| View { data, batch: 0, head: 8 * dim_stride, position: 2 * 8 * dim_stride, dim: dim_stride };
            let mask = causal_mask(q_len, 90 - q_len);
            let mut out = vec![f32::NAN; 4 * q_len * 8];
            attention(d, contiguous(&q, 4, q_len, 8), view(&k_mem[..]), view(&v_mem[..]), Some(&mask), 0.3, &mut out)
                .unwrap();
            let gather = |view: View<'_, half::f16>| -> Vec<f32> {
                (0..2)
                    .flat_map(|h| {
                        (0..90).flat_map(move |p| {
                            (0..8).map(move |x| view.data[h * view.head + p * view.position + x * view.dim].to_f32())
                        })
                    })
                    .collect()
            };
            let expected = reference(d, &q, &gather(view(&k_mem[..])), &gather(view(&v_mem[..])), Some(&mask), 0.3);
            assert!(max_difference(&out, &expected) < 2e-5, "q_len {q_len} dim stride {dim_stride}");
        }
    }

    #[test]
    fn shapes_that_do_not_fit_are_refused() {
        let data = vec![0f32; 64];
        let view = contiguous(&data, 1, 8, 8);
        let mut out = vec![0f32; 64];
        let fine = Dims { batch: 1, heads: 1, kv_heads: 1, q_len: 8, kv_len: 8, head_dim: 8, v_dim: 8 };
        assert!(attention(fine, view, view, view, None, 1.0, &mut out).is_ok());
        let too_long = Dims { q_len: 9, ..fine };
        assert!(attention(too_long, view, view, view, None, 1.0, &mut vec![0f32; 72]).is_err());
        let bad_group = Dims { heads: 3, kv_heads: 2, ..fine };
        assert!(attention(bad_group, view, view, view, None, 1.0, &mut out).is_err());
        assert!(attention(fine, view, view, view, Some(&[0.0; 7]), 1.0, &mut out).is_err());
        assert!(attention(fine, view, view, view, None, 1.0, &mut [0f32; 63]).is_err());
    }

    #[test]
    fn exp_is_accurate_over_its_range() {
        let mut worst = 0f64;
        for i in 0..=87_000 {
            let x = -(i as f32) / 1000.0;
            let exact = (x as f64).exp();
            let relative = ((exp_nonpositive(x) as f64 - exact) / exact).abs();
            worst = worst.max(relative);
        }
        assert!(worst < 5e-7, "worst relative error {worst}");
        assert_eq!(exp_nonpositive(-100.0), 0.0);
        assert_eq!(exp_nonpositive(0.0), 1.0);
    }
}
