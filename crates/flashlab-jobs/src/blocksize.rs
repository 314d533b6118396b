//! fio's mixed block sizes: `bssplit` (block sizes with percentages) and `bsrange` (uniform
//! between a minimum and a maximum), per direction, and a sampler that draws the size of the
//! next I/O with fio's rules (`get_next_buflen` in fio's `io_u.c`).
//!
//! - `bssplit=4k/10:64k/50:32k/40` — 10 % 4 KiB, 50 % 64 KiB, 40 % 32 KiB. An entry without a
//!   percentage (or with 0) gets an even part of what is left; `R,W[,T]` gives reads, writes
//!   (and trims) their own split, as `bs` does. As fio: shares that add to less than 100 leave
//!   the rest to the entry with the largest share.
//! - `bsrange=1k-16k[,4k-64k]` — fio draws `min + U[0, max)`, rounds down to a multiple of
//!   `min` (unless `bs_unaligned`) and caps at `max`.
//!
//! The sampler draws with no allocation.

use rand_core::RngCore;
use serde::{Deserialize, Serialize};

use crate::distribution::{below, split_per_dir};
use crate::job::IoDir;
use crate::units::parse_size;

/// fio's limit on bssplit entries (`BSSPLIT_MAX`).
const BSSPLIT_MAX: usize = 64;

/// A `bssplit`/`bsrange` value that could not be read; the parser adds file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BlockSizeError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, BlockSizeError> {
    Err(BlockSizeError(msg.into()))
}

/// One entry of a `bssplit`: `pct` % of the I/Os are `bs` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitEntry {
    /// The block size, bytes.
    pub bs: u64,
    /// Its share of the I/Os, percent.
    pub pct: u32,
}

/// How the block size of one direction is chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockSizes {
    /// One size (`bs=`).
    Fixed(u64),
    /// `bsrange=min-max`.
    Range {
        /// The smallest size, bytes.
        min: u64,
        /// The largest size, bytes.
        max: u64,
    },
    /// `bssplit=`: entries sorted by ascending share, as fio sorts them.
    Split(Vec<SplitEntry>),
}

impl BlockSizes {
    /// The smallest size this can draw.
    pub fn min(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range { min, .. } => *min,
            BlockSizes::Split(v) => v.iter().filter(|e| e.pct > 0).map(|e| e.bs).min().unwrap_or(0),
        }
    }

    /// The largest size this can draw.
    pub fn max(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range { max, .. } => *max,
            BlockSizes::Split(v) => v.iter().filter(|e| e.pct > 0).map(|e| e.bs).max().unwrap_or(0),
        }
    }

    /// Probability of each size (sums to 1), for reports and tests.
    pub fn probabilities(&self) -> Vec<(u64, f64)> {
        match self {
            BlockSizes::Fixed(b) => vec![(*b, 1.0)],
            BlockSizes::Range { min, max } => {
                // min + U[0,max) rounded down to a multiple of min, capped at max.
                let mut out: Vec<(u64, f64)> = Vec::new();
                let mut lo = *min;
                while lo < min + max {
                    let hi = (lo / min + 1) * min;
                    let size = ((lo / min) * min).min(*max);
                    let p = (hi.min(min + max) - lo) as f64 / *max as f64;
                    match out.last_mut() {
                        Some((s, q)) if *s == size => *q += p,
                        _ => out.push((size, p)),
                    }
                    lo = hi;
                }
                out
            }
            BlockSizes::Split(v) => {
                let total: u32 = v.iter().map(|e| e.pct).sum();
                let last = v.iter().rposition(|e| e.pct > 0);
                v.iter()
                    .enumerate()
                    .filter(|(_, e)| e.pct > 0)
                    .map(|(i, e)| {
                        let extra = if Some(i) == last { 100u32.saturating_sub(total) } else { 0 };
                        (e.bs, f64::from(e.pct + extra) / 100.0)
                    })
                    .collect()
            }
        }
    }
}

/// Block sizes per direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSizesPerDir {
    /// Sizes of reads.
    pub read: BlockSizes,
    /// Sizes of writes.
    pub write: BlockSizes,
    /// Sizes of trims.
    pub trim: BlockSizes,
}

impl BlockSizesPerDir {
    /// The sizes of direction `dir`.
    pub fn for_dir(&self, dir: IoDir) -> &BlockSizes {
        match dir {
            IoDir::Read => &self.read,
            IoDir::Write => &self.write,
            IoDir::Trim => &self.trim,
        }
    }
}

/// Reads a `bssplit` value into per-direction splits.
///
/// ```
/// use flashlab_jobs::blocksize::{parse_bssplit, BlockSizes};
/// let s = parse_bssplit("4k/10:64k/50:32k/40", 1024).unwrap();
/// assert_eq!(s.write.probabilities(), vec![(4096, 0.1), (32768, 0.4), (65536, 0.5)]);
/// ```
pub fn parse_bssplit(text: &str, kb_base: u32) -> Result<BlockSizesPerDir, BlockSizeError> {
    let (r, w, t) = split_per_dir(text);
    Ok(BlockSizesPerDir {
        read: parse_split(r, kb_base, "read")?,
        write: parse_split(w, kb_base, "write")?,
        trim: parse_split(t, kb_base, "trim")?,
    })
}

fn parse_split(text: &str, kb_base: u32, dir: &str) -> Result<BlockSizes, BlockSizeError> {
    let text = text.trim();
    if text.is_empty() {
        return err(format!("empty bssplit for {dir}s"));
    }
    let mut v: Vec<SplitEntry> = Vec::new();
    let mut missing = 0u32;
    for part in text.split(':') {
        let part = part.trim();
        if part.is_empty() {
            break; // fio stops at an empty element
        }
        if v.len() == BSSPLIT_MAX {
            return err(format!("more than {BSSPLIT_MAX} bssplit entries for {dir}s"));
        }
        let (b, p) = match part.split_once('/') {
            Some((b, p)) => (b.trim(), Some(p.trim())),
            None => (part, None),
        };
        let bs = parse_size(b, kb_base).map_err(|e| BlockSizeError(format!("bssplit entry '{part}': {e}")))?;
        if bs == 0 {
            return err(format!("bssplit entry '{part}': block size 0"));
        }
        let pct = match p {
            None => 0,
            Some(p) => {
                let p: u32 = p
                    .trim_end_matches('%')
                    .parse()
                    .map_err(|_| BlockSizeError(format!("bssplit entry '{part}': bad percentage '{p}'")))?;
                p.min(100) // fio clamps
            }
        };
        if pct == 0 {
            missing += 1;
        }
        v.push(SplitEntry { bs, pct });
    }
    if v.is_empty() {
        return err(format!("empty bssplit for {dir}s"));
    }
    let total: u32 = v.iter().map(|e| e.pct).sum();
    if total > 100 {
        return err(format!("bssplit percentages for {dir}s add to {total}, more than 100"));
    }
    if let Some(each) = (100 - total).checked_div(missing) {
        for e in v.iter_mut().filter(|e| e.pct == 0) {
            e.pct = each;
        }
    }
    if v.iter().all(|e| e.pct == 0) {
        return err(format!("bssplit for {dir}s gives every size 0 %"));
    }
    v.sort_by_key(|e| e.pct); // stable: equal shares keep the file's order
    Ok(BlockSizes::Split(v))
}

/// Reads a `bsrange` value (`min-max`, per direction like `bs`).
pub fn parse_bsrange(text: &str, kb_base: u32) -> Result<BlockSizesPerDir, BlockSizeError> {
    let (r, w, t) = split_per_dir(text);
    let one = |s: &str| -> Result<BlockSizes, BlockSizeError> {
        let s = s.trim();
        let (a, b) = s.split_once('-').ok_or_else(|| BlockSizeError(format!("bsrange '{s}' is not min-max")))?;
        let min = parse_size(a.trim(), kb_base).map_err(|e| BlockSizeError(format!("bsrange '{s}': {e}")))?;
        let max = parse_size(b.trim(), kb_base).map_err(|e| BlockSizeError(format!("bsrange '{s}': {e}")))?;
        // fio swaps a reversed range.
        let (min, max) = if min <= max { (min, max) } else { (max, min) };
        if min == 0 {
            return err(format!("bsrange '{s}': block size 0"));
        }
        Ok(if min == max { BlockSizes::Fixed(min) } else { BlockSizes::Range { min, max } })
    };
    Ok(BlockSizesPerDir { read: one(r)?, write: one(w)?, trim: one(t)? })
}

/// Draws block sizes for one direction. `align` is fio's rounding unit (the direction's
/// minimum size; `bs_unaligned` sets it to 1).
#[derive(Debug, Clone)]
pub struct BlockSizeSampler {
    sizes: BlockSizes,
    align: u64,
}

impl BlockSizeSampler {
    /// A sampler for `sizes`, rounding to multiples of the minimum unless `unaligned`.
    pub fn new(sizes: &BlockSizes, unaligned: bool) -> BlockSizeSampler {
        let align = if unaligned { 1 } else { sizes.min().max(1) };
        BlockSizeSampler { sizes: sizes.clone(), align }
    }

    /// The smallest size drawn.
    pub fn min(&self) -> u64 {
        self.sizes.min()
    }

    /// The largest size drawn.
    pub fn max(&self) -> u64 {
        self.sizes.max()
    }

    /// The size of the next I/O. For `bssplit` the sizes are returned as listed (fio does
    /// not round them).
    #[inline]
    pub fn next<R: RngCore + ?Sized>(&self, rng: &mut R) -> u64 {
        match &self.sizes {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range { min, max } => {
                let b = min + below(rng, *max);
                ((b / self.align) * self.align).min(*max)
            }
            BlockSizes::Split(v) => {
                let r = below(rng, 100) as u32;
                let mut acc = 0;
                let mut last = v[v.len() - 1].bs;
                for e in v {
                    if e.pct == 0 {
                        continue;
                    }
                    last = e.bs;
                    acc += e.pct;
                    if r < acc {
                        return e.bs;
                    }
                }
                last
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn shares(s: &BlockSizes, draws: usize) -> Vec<(u64, f64)> {
        let smp = BlockSizeSampler::new(s, false);
        let mut r = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut m = std::collections::BTreeMap::new();
        for _ in 0..draws {
            *m.entry(smp.next(&mut r)).or_insert(0u64) += 1;
        }
        m.into_iter().map(|(k, v)| (k, v as f64 / draws as f64)).collect()
    }

    fn close(a: &[(u64, f64)], b: &[(u64, f64)], tol: f64) {
        assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
        for ((sa, pa), (sb, pb)) in a.iter().zip(b) {
            assert_eq!(sa, sb);
            assert!((pa - pb).abs() < tol, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn bssplit_forms() {
        let s = parse_bssplit("4k/10:64k/50:32k/40", 1024).unwrap();
        assert_eq!(s.read, s.trim);
        let mut p = s.write.probabilities();
        p.sort_by_key(|x| x.0);
        close(&shares(&s.write, 200_000), &p, 0.005);
        assert_eq!((s.write.min(), s.write.max()), (4096, 65536));
        // Missing shares: the rest, split evenly.
        let s = parse_bssplit("4k/50:8k:16k", 1024).unwrap();
        close(&shares(&s.read, 200_000), &[(4096, 0.5), (8192, 0.25), (16384, 0.25)], 0.005);
        // Per direction.
        let s = parse_bssplit("4k,64k/50:128k/50", 1024).unwrap();
        assert_eq!(s.read, BlockSizes::Split(vec![SplitEntry { bs: 4096, pct: 100 }]));
        assert_eq!(s.write, s.trim);
        // Shares under 100: the rest goes to the largest share (fio's loop falls through).
        let s = parse_bssplit("4k/10:8k/60", 1024).unwrap();
        close(&shares(&s.read, 200_000), &[(4096, 0.1), (8192, 0.9)], 0.005);
        close(&s.read.probabilities(), &[(4096, 0.1), (8192, 0.9)], 1e-9);
    }

    #[test]
    fn bssplit_errors() {
        for (bad, needle) in [
            ("4k/60:8k/60", "more than 100"),
            ("4q/50:8k/50", "bssplit entry '4q/50'"),
            ("4k/x", "bad percentage"),
            ("0/100", "block size 0"),
        ] {
            let e = parse_bssplit(bad, 1024).unwrap_err().to_string();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn bsrange_is_uniform_over_multiples_of_min() {
        let s = parse_bsrange("4k-16k", 1024).unwrap();
        let want = vec![(4096, 0.25), (8192, 0.25), (12288, 0.25), (16384, 0.25)];
        close(&s.read.probabilities(), &want, 1e-9);
        close(&shares(&s.read, 200_000), &want, 0.005);
        // A max that is not a multiple of min: fio caps at max.
        let s = parse_bsrange("3k-8k", 1024).unwrap();
        let p = s.read.probabilities();
        assert!((p.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-9);
        close(&shares(&s.read, 200_000), &p, 0.005);
        assert!(parse_bsrange("4k", 1024).unwrap_err().to_string().contains("not min-max"));
        assert_eq!(parse_bsrange("8k-8k", 1024).unwrap().write, BlockSizes::Fixed(8192));
    }
}
