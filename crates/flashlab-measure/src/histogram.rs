//! Latency histogram in nanoseconds with fio's log-linear buckets, so that flashlab's
//! percentiles agree with fio's to the bucket.
//!
//! # The bucket scheme (fio `stat.h` / `stat.c`)
//!
//! fio keeps `FIO_IO_U_PLAT_NR = 1856` counters: 29 groups (`FIO_IO_U_PLAT_GROUP_NR`) of
//! 64 buckets (`FIO_IO_U_PLAT_VAL = 1 << FIO_IO_U_PLAT_BITS`, `FIO_IO_U_PLAT_BITS = 6`).
//!
//! * Values `0..=127` ns (most significant bit ≤ 6) have a bucket each: index = value.
//! * A value `v ≥ 128` with most significant bit `m` drops its `e = m - 6` low bits:
//!   index = `(e + 1) * 64 + ((v >> e) & 63)`. Its bucket covers `2^e` consecutive values.
//! * Values `≥ 2^34` ns (≈ 17.18 s) all land in the last bucket (index 1855).
//!
//! A bucket reports the value fio reports for it (`plat_idx_to_val`): the value itself
//! below 128, otherwise `base + (k + 0.5) * 2^e` — the lower bound plus half the width,
//! i.e. fio's "midpoint" (exactly an integer, since `e ≥ 1` there).
//!
//! # Error bound
//!
//! For a recorded value `v` and the value `r` its bucket reports:
//!
//! * `v < 128`: `r == v` (exact);
//! * `128 ≤ v < 2^34`: `|r - v| ≤ 2^(e-1) ≤ v / 128`, so the relative error is at most
//!   1/128 ≈ 0.78 % (the bound is reached at the lower edge of a group, e.g. `v = 128`,
//!   `r = 129`). This is fio's "1/2^(FIO_IO_U_PLAT_BITS+1)".
//! * `v ≥ 2^34`: clamped; reported as [`LAST_BUCKET_VALUE`] (≈ 17.11 s) whatever `v` is.
//!
//! Count, min, max, sum and sum of squares are kept exactly beside the buckets, so
//! `min()`, `max()` and `mean()` are exact whatever the values.
//!
//! # Percentiles
//!
//! `percentile(p)` is computed the way fio's `calc_clat_percentiles` does: walk the buckets
//! in order and stop at the first one whose cumulative count reaches `p / 100 · N`. That is
//! the nearest-rank definition: the reported value is the value of the bucket holding the
//! `ceil(p / 100 · N)`-th smallest sample. flashlab evaluates `p / 100 · N` exactly (fio uses
//! `long double`; the two can only differ when that product lies within about 1e-19 of an
//! integer without being one). `p ≤ 0` (which fio never evaluates: 0 ends its list) gives
//! the smallest sample's bucket; `p ≥ 100` the largest's.
//!
//! Unlike fio, a percentile is clamped to the exact `[min, max]`: a bucket's midpoint can lie
//! above the largest sample in it (or below the smallest), and a report that prints a p99
//! above its max contradicts itself. The clamp only moves a value inside the bucket of the
//! min or the max, towards the samples, so the error bound above still holds, and every
//! percentile is at most `max()` and at least `min()` by construction.

use serde::{Deserialize, Serialize};
use std::fmt;

/// fio's `FIO_IO_U_PLAT_BITS`: index bits kept below the most significant bit.
pub const PLAT_BITS: u32 = 6;
/// fio's `FIO_IO_U_PLAT_VAL`: buckets per group.
pub const PLAT_VAL: usize = 1 << PLAT_BITS;
/// fio's `FIO_IO_U_PLAT_GROUP_NR`: number of groups.
pub const PLAT_GROUP_NR: usize = 29;
/// fio's `FIO_IO_U_PLAT_NR`: total number of buckets (1856).
pub const PLAT_NR: usize = PLAT_GROUP_NR * PLAT_VAL;
/// Largest value (ns) whose bucket still bounds the error; larger values are clamped into
/// the last bucket. `2^34 - 1` ns ≈ 17.18 s.
pub const MAX_TRACKED_NS: u64 = (1 << 34) - 1;
/// The value fio reports for the last bucket (and so for every value above
/// [`MAX_TRACKED_NS`]): 17 112 760 320 ns.
pub const LAST_BUCKET_VALUE: u64 = plat_idx_to_val(PLAT_NR - 1);

/// Bucket index of a latency in ns (fio's `plat_val_to_idx`).
#[inline]
pub const fn plat_val_to_idx(ns: u64) -> usize {
    // Most significant bit ≤ PLAT_BITS: one bucket per value.
    if ns < (2 * PLAT_VAL) as u64 {
        return ns as usize;
    }
    let msb = 63 - ns.leading_zeros();
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as usize) << PLAT_BITS;
    let offset = ((ns >> error_bits) as usize) & (PLAT_VAL - 1);
    let idx = base + offset;
    if idx < PLAT_NR - 1 {
        idx
    } else {
        PLAT_NR - 1
    }
}

/// The value fio reports for bucket `idx` (fio's `plat_idx_to_val`): the value itself below
/// 128, otherwise the bucket's lower bound plus half its width. `idx` past the last bucket
/// is treated as the last bucket.
#[inline]
pub const fn plat_idx_to_val(idx: usize) -> u64 {
    let idx = if idx < PLAT_NR { idx } else { PLAT_NR - 1 };
    if idx < 2 * PLAT_VAL {
        return idx as u64;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + PLAT_BITS);
    let k = (idx % PLAT_VAL) as u64;
    base + (k << error_bits) + (1u64 << (error_bits - 1))
}

/// Inclusive range `(lo, hi)` of values (ns) that fall in bucket `idx`, ignoring the clamp
/// (the last bucket also receives every value above its `hi`).
pub const fn plat_idx_range(idx: usize) -> (u64, u64) {
    let idx = if idx < PLAT_NR { idx } else { PLAT_NR - 1 };
    if idx < 2 * PLAT_VAL {
        return (idx as u64, idx as u64);
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + PLAT_BITS);
    let lo = base + (((idx % PLAT_VAL) as u64) << error_bits);
    (lo, lo + (1u64 << error_bits) - 1)
}

/// The nearest rank `ceil(p / 100 · n)` for `n > 0`, clamped to `1..=n`, evaluated exactly
/// on the binary value of `p`.
fn nearest_rank(p: f64, n: u64) -> u64 {
    debug_assert!(n > 0);
    // NaN, zero and negatives: the smallest sample.
    if p.is_nan() || p <= 0.0 {
        return 1;
    }
    if p >= 100.0 {
        return n;
    }
    // 0 < p < 100, so p = mant · 2^-shift with shift > 0 (normal or subnormal).
    let bits = p.to_bits();
    let exp_field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mant, exp) = if exp_field == 0 { (frac, -1074) } else { (frac | (1u64 << 52), exp_field - 1075) };
    debug_assert!(exp < 0);
    let shift = (-exp) as u32;
    // rank = ceil(mant · n / (100 · 2^shift)); mant · n < 2^117.
    let num = mant as u128 * n as u128;
    if shift >= 120 {
        // 100 · 2^shift > 2^117 > num > 0: the quotient is in (0, 1).
        return 1;
    }
    let den = 100u128 << shift;
    let rank = num.div_ceil(den) as u64;
    rank.clamp(1, n)
}

/// A latency histogram (ns) with fio's buckets plus exact count, min, max, sum and sum of
/// squares. See the [module documentation](self) for the scheme and its error bound.
///
/// `record` is cheap (a shift, a mask, a few adds; no allocation): it is meant for the
/// simulator's hot path. A histogram takes about 15 KiB.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "HistogramRepr", try_from = "HistogramRepr")]
pub struct LatencyHistogram {
    counts: Box<[u64; PLAT_NR]>,
    n: u64,
    /// `u64::MAX` while empty.
    min: u64,
    max: u64,
    /// Saturating; exact below 2^128.
    sum: u128,
    /// Saturating; exact below 2^128 (e.g. 2^48 samples of 2^40 ns).
    sum_sq: u128,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        let counts: Box<[u64; PLAT_NR]> = vec![0u64; PLAT_NR].into_boxed_slice().try_into().expect("PLAT_NR counters");
        LatencyHistogram { counts, n: 0, min: u64::MAX, max: 0, sum: 0, sum_sq: 0 }
    }

    /// Record one latency of `ns` nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let v = u128::from(ns);
        self.add(plat_val_to_idx(ns), ns, v * v);
    }

    /// Record one latency of `ns` nanoseconds in both `a` and `b` (a completion latency that
    /// is also the total latency): the bucket index and the square are worked out once.
    #[inline]
    pub fn record_both(a: &mut LatencyHistogram, b: &mut LatencyHistogram, ns: u64) {
        let idx = plat_val_to_idx(ns);
        let sq = u128::from(ns) * u128::from(ns);
        a.add(idx, ns, sq);
        b.add(idx, ns, sq);
    }

    /// [`LatencyHistogram::record`] of `ns`, with its bucket `idx` and its square `sq`.
    #[inline(always)]
    fn add(&mut self, idx: usize, ns: u64, sq: u128) {
        self.counts[idx] += 1;
        self.n += 1;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        self.sum = self.sum.saturating_add(u128::from(ns));
        self.sum_sq = self.sum_sq.saturating_add(sq);
    }

    /// Record `count` latencies of `ns` nanoseconds each (nothing if `count == 0`).
    #[inline]
    pub fn record_n(&mut self, ns: u64, count: u64) {
        if count == 0 {
            return;
        }
        self.counts[plat_val_to_idx(ns)] += count;
        self.n += count;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        let v = ns as u128;
        let c = count as u128;
        self.sum = self.sum.saturating_add(v * c);
        self.sum_sq = self.sum_sq.saturating_add((v * v).saturating_mul(c));
    }

    /// Add every sample of `other` to `self`; the result equals recording both sets of
    /// values into one histogram.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        if other.n == 0 {
            return;
        }
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += *b;
        }
        self.n += other.n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum = self.sum.saturating_add(other.sum);
        self.sum_sq = self.sum_sq.saturating_add(other.sum_sq);
    }

    /// Forget every sample.
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Smallest sample (exact); 0 when empty, as fio prints it.
    pub fn min(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            self.min
        }
    }

    /// Largest sample (exact); 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Sum of all samples (ns), saturating at `u128::MAX`.
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Arithmetic mean (ns); 0.0 when empty.
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// Sample standard deviation (divisor `N - 1`, as fio's `calc_lat`); 0.0 for fewer than
    /// two samples.
    pub fn stddev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as u128;
        // N·Σx² − (Σx)² = N²·variance_pop, exact in integers when it fits.
        let exact =
            n.checked_mul(self.sum_sq).and_then(|a| self.sum.checked_mul(self.sum).map(|b| a.saturating_sub(b)));
        let var = match exact {
            Some(num) => num as f64 / (n as f64 * (n - 1) as f64),
            None => {
                let nf = self.n as f64;
                let s = self.sum as f64;
                ((self.sum_sq as f64 - s * s / nf) / (nf - 1.0)).max(0.0)
            }
        };
        var.sqrt()
    }

    /// The `p`-th percentile (`p` in percent, e.g. 99.9) as fio computes it: the reported
    /// value of the bucket holding the nearest-rank sample, clamped to `[min, max]` (see the
    /// module documentation). 0 when empty.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = nearest_rank(p, self.n);
        let mut cum = 0u64;
        for (idx, &c) in self.counts.iter().enumerate() {
            cum += c;
            if cum >= rank {
                return self.clamp(plat_idx_to_val(idx));
            }
        }
        self.clamp(plat_idx_to_val(PLAT_NR - 1))
    }

    /// A bucket's reported value held inside the exact range of the samples.
    #[inline]
    fn clamp(&self, v: u64) -> u64 {
        v.clamp(self.min, self.max)
    }

    /// Several percentiles at once, in the order given: `(p, value)` pairs. One pass over
    /// the buckets. All values are 0 when empty.
    pub fn percentiles(&self, ps: &[f64]) -> Vec<(f64, u64)> {
        if self.n == 0 {
            return ps.iter().map(|&p| (p, 0)).collect();
        }
        let mut order: Vec<(u64, usize)> = ps.iter().enumerate().map(|(i, &p)| (nearest_rank(p, self.n), i)).collect();
        order.sort_unstable();
        let mut out: Vec<(f64, u64)> = ps.iter().map(|&p| (p, 0)).collect();
        let mut next = 0;
        let mut cum = 0u64;
        for (idx, &c) in self.counts.iter().enumerate() {
            if next == order.len() {
                break;
            }
            cum += c;
            while next < order.len() && cum >= order[next].0 {
                out[order[next].1].1 = self.clamp(plat_idx_to_val(idx));
                next += 1;
            }
        }
        out
    }

    /// Count in bucket `idx` (0 past the last bucket).
    pub fn bucket_count(&self, idx: usize) -> u64 {
        self.counts.get(idx).copied().unwrap_or(0)
    }

    /// All bucket counts, index = fio bucket index.
    pub fn bucket_counts(&self) -> &[u64] {
        &self.counts[..]
    }

    /// Non-empty buckets in order: `(index, reported value, count)`.
    pub fn nonzero_buckets(&self) -> impl Iterator<Item = (usize, u64, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, &c)| c != 0).map(|(i, &c)| (i, plat_idx_to_val(i), c))
    }
}

impl fmt::Debug for LatencyHistogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LatencyHistogram")
            .field("count", &self.n)
            .field("min", &self.min())
            .field("max", &self.max)
            .field("mean", &self.mean())
            .field("stddev", &self.stddev())
            .field("nonzero_buckets", &self.nonzero_buckets().count())
            .finish()
    }
}

/// Compact, checked serialized form: sparse buckets, u128 sums as decimal strings (so any
/// serde format can carry them).
#[derive(Serialize, Deserialize)]
struct HistogramRepr {
    count: u64,
    min: u64,
    max: u64,
    sum: String,
    sum_sq: String,
    /// `(bucket index, count)` for non-empty buckets.
    buckets: Vec<(u32, u64)>,
}

impl From<LatencyHistogram> for HistogramRepr {
    fn from(h: LatencyHistogram) -> Self {
        HistogramRepr {
            count: h.n,
            min: h.min(),
            max: h.max,
            sum: h.sum.to_string(),
            sum_sq: h.sum_sq.to_string(),
            buckets: h.nonzero_buckets().map(|(i, _, c)| (i as u32, c)).collect(),
        }
    }
}

/// Why a stored histogram (its serialized form) is not a valid histogram; serde names the
/// field it was reading.
#[derive(Debug, thiserror::Error)]
pub enum HistogramError {
    /// A bucket index past the last bucket.
    #[error("bucket index {index} out of range (< {PLAT_NR})")]
    Bucket {
        /// The stored index.
        index: usize,
    },
    /// The bucket counts, or their total, do not fit in 64 bits.
    #[error("{what} overflows u64")]
    Overflow {
        /// `bucket count` or `total count`.
        what: &'static str,
    },
    /// The bucket counts do not add up to the stored count.
    #[error("bucket counts add up to {total}, but count is {count}")]
    Count {
        /// The sum of the bucket counts.
        total: u64,
        /// The stored count.
        count: u64,
    },
    /// The stored minimum is above the stored maximum.
    #[error("min {min} greater than max {max}")]
    MinMax {
        /// The stored minimum.
        min: u64,
        /// The stored maximum.
        max: u64,
    },
    /// `sum` or `sum_sq` is not a number.
    #[error("{field} {text:?}: {source}")]
    Sum {
        /// `sum` or `sum_sq`.
        field: &'static str,
        /// The stored text.
        text: String,
        /// The parser's error.
        source: std::num::ParseIntError,
    },
}

impl TryFrom<HistogramRepr> for LatencyHistogram {
    type Error = HistogramError;

    fn try_from(r: HistogramRepr) -> Result<Self, HistogramError> {
        let mut h = LatencyHistogram::new();
        let mut total = 0u64;
        for (idx, c) in r.buckets {
            let idx = idx as usize;
            if idx >= PLAT_NR {
                return Err(HistogramError::Bucket { index: idx });
            }
            h.counts[idx] = h.counts[idx].checked_add(c).ok_or(HistogramError::Overflow { what: "bucket count" })?;
            total = total.checked_add(c).ok_or(HistogramError::Overflow { what: "total count" })?;
        }
        if total != r.count {
            return Err(HistogramError::Count { total, count: r.count });
        }
        if r.count > 0 && r.min > r.max {
            return Err(HistogramError::MinMax { min: r.min, max: r.max });
        }
        h.n = r.count;
        h.min = if r.count == 0 { u64::MAX } else { r.min };
        h.max = r.max;
        h.sum = r.sum.parse().map_err(|source| HistogramError::Sum { field: "sum", text: r.sum.clone(), source })?;
        h.sum_sq = r.sum_sq.parse().map_err(|source| HistogramError::Sum {
            field: "sum_sq",
            text: r.sum_sq.clone(),
            source,
        })?;
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn constants_match_fio() {
        assert_eq!(PLAT_VAL, 64);
        assert_eq!(PLAT_NR, 1856);
        assert_eq!(LAST_BUCKET_VALUE, 17_112_760_320);
    }

    #[test]
    fn small_values_are_exact() {
        for v in 0..128u64 {
            assert_eq!(plat_val_to_idx(v), v as usize);
            assert_eq!(plat_idx_to_val(v as usize), v);
        }
    }

    #[test]
    fn first_rounded_groups() {
        // Group 2: [128, 255], 2 ns per bucket.
        assert_eq!(plat_val_to_idx(128), 128);
        assert_eq!(plat_val_to_idx(129), 128);
        assert_eq!(plat_val_to_idx(130), 129);
        assert_eq!(plat_val_to_idx(255), 191);
        assert_eq!(plat_idx_to_val(128), 129);
        assert_eq!(plat_idx_to_val(191), 255);
        // Group 3: [256, 511], 4 ns per bucket.
        assert_eq!(plat_val_to_idx(256), 192);
        assert_eq!(plat_val_to_idx(259), 192);
        assert_eq!(plat_val_to_idx(260), 193);
        assert_eq!(plat_idx_to_val(192), 258);
        assert_eq!(plat_idx_range(192), (256, 259));
    }

    #[test]
    fn top_of_range_and_clamp() {
        assert_eq!(plat_val_to_idx(MAX_TRACKED_NS), PLAT_NR - 1);
        assert_eq!(plat_val_to_idx(MAX_TRACKED_NS - (1 << 27) + 1), PLAT_NR - 1);
        assert_eq!(plat_val_to_idx(MAX_TRACKED_NS - (1 << 27)), PLAT_NR - 2);
        assert_eq!(plat_val_to_idx(MAX_TRACKED_NS + 1), PLAT_NR - 1);
        assert_eq!(plat_val_to_idx(u64::MAX), PLAT_NR - 1);
        assert_eq!(plat_idx_range(PLAT_NR - 1), (MAX_TRACKED_NS - (1 << 27) + 1, MAX_TRACKED_NS));
    }

    #[test]
    fn buckets_tile_the_range_and_round_trip() {
        let mut expected_lo = 0u64;
        for idx in 0..PLAT_NR {
            let (lo, hi) = plat_idx_range(idx);
            assert_eq!(lo, expected_lo, "bucket {idx} starts where the previous ended");
            assert!(hi >= lo);
            assert_eq!(plat_val_to_idx(lo), idx);
            assert_eq!(plat_val_to_idx(hi), idx);
            let v = plat_idx_to_val(idx);
            assert!(lo <= v && v <= hi, "value {v} of bucket {idx} inside [{lo}, {hi}]");
            assert_eq!(plat_val_to_idx(v), idx, "reported value maps back to its bucket");
            // The documented bound at both edges.
            assert!((v - lo) * 128 <= lo, "bucket {idx}: lower edge within 1/128");
            assert!((hi - v) * 128 <= hi, "bucket {idx}: upper edge within 1/128");
            expected_lo = hi + 1;
        }
        assert_eq!(expected_lo, MAX_TRACKED_NS + 1);
    }

    #[test]
    fn bound_is_tight_at_group_start() {
        // v = 128 → 129: exactly 1/128.
        assert_eq!(plat_idx_to_val(plat_val_to_idx(128)), 129);
        let v = 1u64 << 20;
        assert_eq!(plat_idx_to_val(plat_val_to_idx(v)) - v, v / 128);
    }

    #[test]
    fn real_fio_percentiles_are_bucket_values() {
        // clat percentiles printed by fio 3.42 (4 KiB randwrite, libaio): every one is a
        // reported bucket value, i.e. a fixed point of idx → val → idx → val.
        for v in [
            774_144u64, 864_256, 921_600, 995_328, 1_056_768, 1_122_304, 1_187_840, 1_269_760, 1_351_680, 1_466_368,
            1_662_976, 1_892_352, 2_539_520, 2_834_432, 6_717_440, 7_438_336, 7_962_624,
        ] {
            assert_eq!(plat_idx_to_val(plat_val_to_idx(v)), v, "{v}");
        }
        assert_eq!(plat_idx_range(plat_val_to_idx(774_144)), (770_048, 778_239));
    }

    #[test]
    fn nearest_rank_examples() {
        assert_eq!(nearest_rank(50.0, 10), 5);
        assert_eq!(nearest_rank(50.0, 11), 6);
        assert_eq!(nearest_rank(99.9, 1000), 1000); // 99.9 is a hair above 99.9
        assert_eq!(nearest_rank(99.0, 100), 99);
        assert_eq!(nearest_rank(1.0, 1), 1);
        assert_eq!(nearest_rank(100.0, 7), 7);
        assert_eq!(nearest_rank(250.0, 7), 7);
        assert_eq!(nearest_rank(0.0, 7), 1);
        assert_eq!(nearest_rank(-3.0, 7), 1);
        assert_eq!(nearest_rank(f64::NAN, 7), 1);
        assert_eq!(nearest_rank(f64::MIN_POSITIVE / 4.0, u64::MAX), 1);
        assert_eq!(nearest_rank(1e-300, 5), 1);
        // 99.99 is a hair below 99.99: 9998.9999… → 9999.
        assert_eq!(nearest_rank(99.99, 10_000), 9_999);
        assert_eq!(nearest_rank(99.5, 200), 199);
        assert_eq!(nearest_rank(99.99, u64::MAX), 18_444_899_399_302_179_717);
    }

    #[test]
    fn basic_stats() {
        let mut h = LatencyHistogram::new();
        assert_eq!((h.count(), h.min(), h.max(), h.mean(), h.stddev()), (0, 0, 0, 0.0, 0.0));
        assert_eq!(h.percentile(50.0), 0);
        for v in [2u64, 4, 4, 4, 5, 5, 7, 9] {
            h.record(v);
        }
        assert_eq!(h.count(), 8);
        assert_eq!(h.min(), 2);
        assert_eq!(h.max(), 9);
        assert_eq!(h.mean(), 5.0);
        // Sample variance 32/7.
        assert!((h.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!(h.percentile(50.0), 4);
        assert_eq!(h.percentile(100.0), 9);
        assert_eq!(h.percentile(0.0), 2);
        assert_eq!(h.percentiles(&[100.0, 50.0, 1.0]), vec![(100.0, 9), (50.0, 4), (1.0, 2)]);
    }

    #[test]
    fn record_n_and_huge_values() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        a.record_n(1_000, 3);
        a.record_n(5, 0);
        for _ in 0..3 {
            b.record(1_000);
        }
        assert_eq!(a, b);
        let mut h = LatencyHistogram::new();
        h.record(u64::MAX);
        h.record(u64::MAX);
        assert_eq!(h.max(), u64::MAX);
        // Past the tracked range the bucket value is clamped to the exact samples.
        assert_eq!(h.percentile(99.0), u64::MAX);
        assert_eq!(h.mean(), u64::MAX as f64);
        assert_eq!(h.stddev(), 0.0);
        let mut h = LatencyHistogram::new();
        h.record(MAX_TRACKED_NS + 5);
        h.record(u64::MAX);
        assert_eq!(h.percentile(50.0), MAX_TRACKED_NS + 5);
    }

    #[test]
    fn serde_round_trip_and_validation() {
        let mut h = LatencyHistogram::new();
        for v in [0u64, 1, 127, 128, 10_000, 123_456_789, u64::MAX] {
            h.record(v);
        }
        let s = serde_json::to_string(&h).unwrap();
        let back: LatencyHistogram = serde_json::from_str(&s).unwrap();
        assert_eq!(back, h);
        let empty: LatencyHistogram =
            serde_json::from_str(&serde_json::to_string(&LatencyHistogram::new()).unwrap()).unwrap();
        assert_eq!(empty, LatencyHistogram::new());
        let bad = r#"{"count":2,"min":1,"max":1,"sum":"2","sum_sq":"2","buckets":[[1,1]]}"#;
        assert!(serde_json::from_str::<LatencyHistogram>(bad).is_err());
        let bad = r#"{"count":1,"min":1,"max":1,"sum":"1","sum_sq":"1","buckets":[[5000,1]]}"#;
        assert!(serde_json::from_str::<LatencyHistogram>(bad).is_err());
    }

    /// Latencies spread over all magnitudes up to the tracked range.
    fn latency() -> impl Strategy<Value = u64> {
        (0u32..=34).prop_flat_map(|bits| 0u64..(1u64 << bits).max(1))
    }

    fn percentile_arg() -> impl Strategy<Value = f64> {
        prop_oneof![
            prop::sample::select(vec![
                1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
                100.0
            ]),
            0.0001f64..=100.0,
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn percentiles_agree_with_exact_sort(
            values in prop::collection::vec(latency(), 1..400),
            ps in prop::collection::vec(percentile_arg(), 1..20),
        ) {
            let mut h = LatencyHistogram::new();
            for &v in &values {
                h.record(v);
            }
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let n = sorted.len();
            prop_assert_eq!(h.count(), n as u64);
            prop_assert_eq!(h.min(), sorted[0]);
            prop_assert_eq!(h.max(), sorted[n - 1]);
            let exact_mean = sorted.iter().map(|&v| v as f64).sum::<f64>() / n as f64;
            prop_assert!((h.mean() - exact_mean).abs() <= 1e-9 * exact_mean.max(1.0));

            let batch = h.percentiles(&ps);
            for (i, &p) in ps.iter().enumerate() {
                // Nearest rank, as fio defines it: ceil(p/100 · N).
                let x = p / 100.0 * n as f64;
                let rank = (x.ceil() as usize).clamp(1, n);
                let got = h.percentile(p);
                prop_assert_eq!(batch[i], (p, got));
                // Where p/100·N is within float noise of an integer the f64 rank above may
                // be off by one from the exact one: accept either neighbour there.
                let candidates: Vec<usize> = if (x - x.round()).abs() > 1e-6 {
                    vec![rank]
                } else {
                    let r = (x.round() as usize).clamp(1, n);
                    vec![r, (r + 1).min(n)]
                };
                let ok = candidates.iter().any(|&r| {
                    let exact = sorted[r - 1];
                    // Exactly that sample's bucket value held inside [min, max], hence
                    // within 1/128 of it.
                    got == plat_idx_to_val(plat_val_to_idx(exact)).clamp(sorted[0], sorted[n - 1])
                        && got.abs_diff(exact) * 128 <= exact
                });
                prop_assert!(ok, "p={} rank={:?} got={} sorted={:?}", p, candidates, got,
                    candidates.iter().map(|&r| sorted[r - 1]).collect::<Vec<_>>());
            }
        }

        #[test]
        fn percentiles_are_ordered_and_inside_min_max(values in prop::collection::vec(latency(), 1..400)) {
            let mut h = LatencyHistogram::new();
            for &v in &values {
                h.record(v);
            }
            let ps = [0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0];
            let got = h.percentiles(&ps);
            for w in got.windows(2) {
                prop_assert!(w[0].1 <= w[1].1, "{:?}", got);
            }
            prop_assert!(got[0].1 >= h.min());
            prop_assert!(got[ps.len() - 1].1 <= h.max(), "{:?} max {}", got, h.max());
        }

        #[test]
        fn merge_equals_recording_everything(
            a in prop::collection::vec(latency(), 0..200),
            b in prop::collection::vec(latency(), 0..200),
        ) {
            let mut ha = LatencyHistogram::new();
            let mut hb = LatencyHistogram::new();
            let mut all = LatencyHistogram::new();
            for &v in &a { ha.record(v); all.record(v); }
            for &v in &b { hb.record(v); all.record(v); }
            ha.merge(&hb);
            prop_assert_eq!(&ha, &all);
            prop_assert_eq!(ha.stddev(), all.stddev());
        }

        #[test]
        fn stddev_matches_two_pass(values in prop::collection::vec(latency(), 2..200)) {
            let mut h = LatencyHistogram::new();
            for &v in &values { h.record(v); }
            let n = values.len() as f64;
            let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
            let var = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
            let sd = var.sqrt();
            prop_assert!((h.stddev() - sd).abs() <= 1e-6 * sd.max(1.0), "{} vs {}", h.stddev(), sd);
        }
    }
}
