//! The free-space map after a workload, compared: the histogram of free-extent sizes (powers
//! of two of 4 KiB blocks) and the fraction of 4 MiB windows that hold both free and
//! allocated blocks (the erase-block-sized unit in which a device without TRIM finds live and
//! dead data mixed). The kernel's map comes from `dumpe2fs` after unmounting (its block
//! bitmaps); the model's from its allocator (its locality-group window counted free, as the
//! kernel's on-disk bitmaps do not mark preallocations).

use crate::compare::WINDOW;
use crate::error::Error;
use flashlab_simfs::FS_BLOCK;
use serde::Serialize;

/// Histogram bins: extents of 1, 2-3, 4-7, ... blocks; the last bin holds everything bigger.
pub const BINS: usize = 16;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FreeMap {
    pub free_bytes: u64,
    pub extents: u64,
    /// Free extents per size bin (bin i: 2^i to 2^(i+1)-1 blocks).
    pub histogram: [u64; BINS],
    /// Windows of 4 MiB holding both free and allocated blocks, over all windows.
    pub mixed_window_fraction: f64,
}

/// Free runs (bytes) from the per-group `Free blocks:` lines of `dumpe2fs`, merged across
/// group boundaries.
pub fn free_runs_from_dumpe2fs(source: &str, text: &str) -> Result<Vec<(u64, u64)>, Error> {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    let mut in_groups = false;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with("Group ") {
            in_groups = true;
        }
        let Some(r) = l.strip_prefix("Free blocks: ").filter(|_| in_groups) else { continue };
        for part in r.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            let num = |s: &str| {
                s.trim()
                    .parse::<u64>()
                    .map_err(|_| Error::Parse(format!("{source}:{}: '{part}' is not a block range", i + 1)))
            };
            let (a, b) = (num(a)?, num(b)?);
            runs.push((a * FS_BLOCK, (b + 1 - a) * FS_BLOCK));
        }
    }
    runs.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(runs.len());
    for (s, l) in runs {
        match out.last_mut() {
            Some(p) if p.0 + p.1 == s => p.1 += l,
            _ => out.push((s, l)),
        }
    }
    Ok(out)
}

/// The map of free runs `free` (bytes, sorted, merged) on a device of `capacity` bytes.
pub fn free_map(free: &[(u64, u64)], capacity: u64) -> FreeMap {
    let mut histogram = [0u64; BINS];
    for &(_, l) in free {
        let blocks = (l / FS_BLOCK).max(1);
        histogram[(63 - blocks.leading_zeros() as usize).min(BINS - 1)] += 1;
    }
    let windows = capacity.div_ceil(WINDOW).max(1);
    let mut free_in = vec![0u64; windows as usize];
    for &(s, l) in free {
        let mut p = s;
        while p < s + l {
            let w = p / WINDOW;
            let end = ((w + 1) * WINDOW).min(s + l);
            free_in[w as usize] += end - p;
            p = end;
        }
    }
    let mixed = free_in
        .iter()
        .enumerate()
        .filter(|&(w, &f)| {
            let size = WINDOW.min(capacity - w as u64 * WINDOW);
            f > 0 && f < size
        })
        .count();
    FreeMap {
        free_bytes: free.iter().map(|r| r.1).sum(),
        extents: free.len() as u64,
        histogram,
        mixed_window_fraction: mixed as f64 / windows as f64,
    }
}

/// The bin label of bin `i` in KiB ("4", "8-12", ...).
pub fn bin_label(i: usize) -> String {
    let lo = (1u64 << i) * 4;
    if i == BINS - 1 {
        format!(">={lo}K")
    } else if i == 0 {
        "4K".into()
    } else {
        format!("{lo}-{}K", ((1u64 << (i + 1)) - 1) * 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_and_mixed_windows() {
        let cap = 16 << 20;
        // One free block in window 0, window 1 all free, 3 blocks in window 2.
        let free = vec![(0, 4096), (4 << 20, 4 << 20), (8 << 20, 3 * 4096)];
        let m = free_map(&free, cap);
        assert_eq!(m.histogram[0], 1);
        assert_eq!(m.histogram[1], 1);
        assert_eq!(m.histogram[10], 1);
        assert_eq!(m.mixed_window_fraction, 0.5);
        assert_eq!(bin_label(0), "4K");
        assert_eq!(bin_label(2), "16-28K");
    }

    #[test]
    fn dumpe2fs_runs_merge_across_groups() {
        let t = "Free blocks: 999\nGroup 0: (Blocks 0-9)\n  Free blocks: 5-9\nGroup 1: (Blocks 10-19)\n  Free blocks: 10-11, 15\n";
        let r = free_runs_from_dumpe2fs("d", t).unwrap();
        assert_eq!(r, vec![(5 * 4096, 7 * 4096), (15 * 4096, 4096)]);
        assert!(free_runs_from_dumpe2fs("d", "Group 0:\n Free blocks: x-3\n").unwrap_err().to_string().contains("d:2"));
    }
}
