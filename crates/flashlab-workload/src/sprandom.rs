//! fio's SPRandom preconditioning (`sprandom=1`, `spr_op`, `spr_num_regions`, `spr_cs`): one
//! pass of random writes, the device's physical capacity long, whose offsets leave the flash
//! in the distribution of valid data that a steady random-write load would, so that the next
//! job meets a steady-state device without writing it several times over.
//!
//! The physical capacity is the region times `1 + spr_op`, cut into `spr_num_regions` equal
//! regions written in turn. Every logical block is written once, in random order (fio draws
//! them from its LFSR; here a full-period congruential sequence with the out-of-range values
//! skipped, which likewise visits each block once). While region `r` is written, each new
//! block is kept with probability `invalid(r)`; when region `r + 1` starts, the kept blocks
//! are written again first (invalidating their copies in `r`, each kept again with
//! `invalid(r + 1)`), and new blocks fill the rest of it. With `spr_cs` the rewrites wait one
//! region more, so that a device's write cache cannot hold both copies at once.
//!
//! `invalid(r)` comes from the steady-state model fio cites (Desnoyers, "Analytic Models of
//! SSD Write Performance", ACM TOS 2012): at steady state a block's validity times the share
//! of the drive holding blocks of that validity is constant, and greedy GC's victim has
//! validity `1 - 1/WAF` with `WAF ~ 0.5 / OP + 0.7`. Validities spaced equally from 1 down to
//! the victim's, weighted by the space they take (`1 / validity`), resampled to equal-sized
//! regions and taken in reverse: the first regions written are the least valid. Learnt from
//! fio's `sprandom.c` and HOWTO; written here from the model.

use crate::rng::Rng;

/// Precision of the invalid shares (fio's `PCT_PRECISION`): draws are in 1/10 000.
const PRECISION: u32 = 10_000;

/// Bytes written by a SPRandom pass over `logical` bytes: the physical capacity that
/// `spr_op` implies, cut to whole blocks of `bs` (fio's `sprandom_physical_size`).
pub fn physical_size(op: f64, logical: u64, bs: u64) -> u64 {
    let size = logical + (logical as f64 * op).ceil() as u64;
    size - size % bs.max(1)
}

/// The invalid share of each region (in 1/[`PRECISION`]), first region first.
pub fn invalid_shares(regions: u32, op: f64) -> Vec<u32> {
    let n = regions.max(1) as usize;
    let waf = 0.5 / op + 0.7;
    let victim = 1.0 - 1.0 / waf;
    // Validities equally spaced from 1 down to the victim's, each taking space 1/validity:
    // the curve (accumulated space, validity).
    let validity: Vec<f64> =
        (0..n).map(|i| if n == 1 { 1.0 } else { 1.0 + (victim - 1.0) * i as f64 / (n - 1) as f64 }).collect();
    let mut x = Vec::with_capacity(n);
    let mut acc = 0.0;
    for v in &validity {
        acc += 1.0 / v;
        x.push(acc);
    }
    // Resampled at equally spaced accumulated space, linearly interpolated.
    let mut out: Vec<u32> = (0..n)
        .map(|i| {
            let at = if n == 1 { x[0] } else { x[0] + (x[n - 1] - x[0]) * i as f64 / (n - 1) as f64 };
            let k = x.partition_point(|&xi| xi < at).min(n - 1);
            let v = if k == 0 || (x[k] - x[k - 1]).abs() < 1e-9 {
                validity[k]
            } else {
                validity[k - 1] + (validity[k] - validity[k - 1]) * (at - x[k - 1]) / (x[k] - x[k - 1])
            };
            ((1.0 - v) * f64::from(PRECISION)).round() as u32
        })
        .collect();
    out.reverse();
    out
}

/// A permutation of `0..n`: a full-period congruential sequence modulo the next power of
/// two, with the values past `n` skipped. No memory per block.
#[derive(Debug, Clone)]
struct Permutation {
    n: u64,
    mask: u64,
    mul: u64,
    add: u64,
    x: u64,
    left: u64,
}

impl Permutation {
    fn new(n: u64, rng: &mut Rng) -> Permutation {
        let mask = n.max(2).next_power_of_two() - 1;
        // a = 1 mod 4 and c odd: period 2^k (Hull-Dobell).
        let mul = (rng.next_u64() & mask & !3) | 5;
        let add = rng.next_u64() | 1;
        Permutation { n, mask, mul, add, x: rng.next_u64() & mask, left: n }
    }

    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        loop {
            self.x = self.x.wrapping_mul(self.mul).wrapping_add(self.add) & self.mask;
            if self.x < self.n {
                self.left -= 1;
                return Some(self.x);
            }
        }
    }
}

/// One job's SPRandom offsets over a region of `blocks` blocks.
#[derive(Debug, Clone)]
pub struct Sprandom {
    blocks: Permutation,
    invalid: Vec<u32>,
    region: usize,
    /// Writes per region, and left in the current one.
    per_region: u64,
    left: u64,
    /// Blocks kept to be rewritten: those of the region before (`replay`, being written
    /// again) and of this region (`kept`).
    replay: Vec<u64>,
    kept: Vec<u64>,
    /// `spr_cs`: the rewrites of a region wait until the end of the next.
    deferred: bool,
    rng: Rng,
}

impl Sprandom {
    /// The pass over `blocks` blocks of `bs` bytes with over-provisioning `op` in `regions`
    /// regions; `cache` is `spr_cs` (0: none). Errors as fio's (a cache larger than a region).
    pub fn new(blocks: u64, bs: u64, op: f64, regions: u32, cache: u64, rng: &mut Rng) -> Result<Sprandom, String> {
        let physical = physical_size(op, blocks * bs, bs);
        let region_bytes = physical / u64::from(regions.max(1));
        if cache > 0 && cache > region_bytes {
            return Err(format!(
                "spr_cs {cache} must be smaller than a region ({region_bytes} bytes: the physical size {physical} over {regions} regions)"
            ));
        }
        let per_region = region_bytes / bs.max(1);
        Ok(Sprandom {
            blocks: Permutation::new(blocks, rng),
            invalid: invalid_shares(regions, op),
            region: 0,
            per_region,
            left: per_region,
            replay: Vec::new(),
            kept: Vec::new(),
            deferred: cache > 0,
            rng: Rng::new(rng.next_u64()),
        })
    }

    /// Keep `b` for the next region's rewrites with the current region's invalid share.
    fn keep(&mut self, b: u64) {
        let share = self.invalid.get(self.region).copied().unwrap_or(0);
        if (self.rng.next_u64() % u64::from(PRECISION + 1)) as u32 <= share {
            self.kept.push(b);
        }
    }

    /// The next block to write; `None` when the pass is over.
    pub fn next_block(&mut self) -> Option<u64> {
        if !self.deferred {
            if let Some(b) = self.replay.pop() {
                self.keep(b);
                return Some(b);
            }
        }
        if self.left == 0 {
            if self.deferred {
                if let Some(b) = self.replay.pop() {
                    self.keep(b);
                    return Some(b);
                }
            }
            if self.region >= self.invalid.len() {
                return None;
            }
            self.region += 1;
            // The rewrites count in the new region's writes.
            self.left = self.per_region.saturating_sub(self.kept.len() as u64);
            std::mem::swap(&mut self.replay, &mut self.kept);
            self.kept.clear();
        }
        match self.blocks.next() {
            Some(b) => {
                self.left = self.left.saturating_sub(1);
                self.keep(b);
                Some(b)
            }
            None => self.replay.pop(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn physical_size_adds_the_over_provisioning() {
        assert_eq!(physical_size(0.15, 100 << 20, 4096), (115 << 20) / 4096 * 4096);
    }

    #[test]
    fn the_first_regions_are_the_least_valid() {
        let s = invalid_shares(100, 0.15);
        assert_eq!(s.len(), 100);
        // The last region is fully valid; the first is the GC victim's validity, 1 - 1/WAF.
        assert_eq!(*s.last().unwrap(), 0);
        let waf = 0.5 / 0.15 + 0.7;
        assert!((f64::from(s[0]) / 1e4 - 1.0 / waf).abs() < 1e-3, "{}", s[0]);
        assert!(s.windows(2).all(|w| w[0] >= w[1]), "{s:?}");
    }

    #[test]
    fn every_block_is_written_and_the_pass_is_the_physical_size() {
        let blocks = 10_000;
        let mut s = Sprandom::new(blocks, 4096, 0.15, 20, 0, &mut Rng::new(3)).unwrap();
        let mut seen = vec![0u32; blocks as usize];
        let mut n = 0u64;
        while let Some(b) = s.next_block() {
            seen[b as usize] += 1;
            n += 1;
        }
        assert!(seen.iter().all(|&c| c >= 1), "every block written at least once");
        // Rewrites fill the physical capacity's extra 15 %, within the draws' spread.
        let want = physical_size(0.15, blocks * 4096, 4096) / 4096;
        assert!((n as f64 - want as f64).abs() / (want as f64) < 0.03, "{n} writes, {want} wanted");
    }

    #[test]
    fn a_cache_larger_than_a_region_is_refused() {
        assert!(Sprandom::new(1000, 4096, 0.15, 100, 1 << 30, &mut Rng::new(1)).is_err());
    }
}
