//! Extent allocation for the in-place filesystem models (`plain` and `ext4`): the free space
//! of the device's logical block space as coalesced free extents, next-fit allocation, and a
//! file's data as a list of extents that maps file ranges to device ranges.
//!
//! It only does bookkeeping; the models ([`crate::inplace`]) decide which device requests follow. Without
//! discard, freeing blocks leaves the device holding the old data as valid: that is what makes
//! an untrimmed device slow when it is full.

use crate::error::InvariantError;
use std::collections::BTreeMap;

/// Filesystem block: the 4 KiB mapping unit.
pub const FS_BLOCK: u64 = 4096;

/// A run of a file: `len` bytes at file offset `file_off` live at device offset `dev_off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// Where the run starts in the file (bytes).
    pub file_off: u64,
    /// Where it starts on the device (bytes).
    pub dev_off: u64,
    /// Its length (bytes, whole blocks).
    pub len: u64,
}

/// A file's size and the device extents holding its blocks (allocated in file order, without
/// holes: `allocated()` bytes from file offset 0).
#[derive(Debug, Clone, Default)]
pub(crate) struct File {
    pub(crate) size: u64,
    pub(crate) extents: Vec<Extent>,
}

impl File {
    /// Bytes of device space the file holds.
    pub(crate) fn allocated(&self) -> u64 {
        self.extents.last().map_or(0, |e| e.file_off + e.len)
    }

    /// Device pieces of the file range [off, off+len): (device offset, length).
    pub(crate) fn map(&self, off: u64, len: u64, mut piece: impl FnMut(u64, u64)) {
        let end = off + len;
        let mut i = self.extents.partition_point(|e| e.file_off + e.len <= off);
        let mut pos = off;
        while pos < end && i < self.extents.len() {
            let e = self.extents[i];
            let take = (e.file_off + e.len).min(end) - pos;
            piece(e.dev_off + (pos - e.file_off), take);
            pos += take;
            i += 1;
        }
    }
}

/// Free space as coalesced extents with a next-fit cursor (ext4's allocator also prefers to
/// continue after the last allocation), so a filesystem that was filled and emptied spreads
/// new files over blocks the device may still consider valid.
#[derive(Debug, Clone)]
pub(crate) struct Allocator {
    capacity: u64,
    /// Free extents: start -> length, in bytes, coalesced.
    free: BTreeMap<u64, u64>,
    free_bytes: u64,
    cursor: u64,
    /// Change counters per bucket of `bucket` bytes (0: not kept), so a caller can cache what
    /// it learnt about a region until the region changes.
    bucket: u64,
    changes: Vec<u32>,
}

impl Allocator {
    /// All of `capacity` bytes (rounded down to whole blocks) free.
    pub(crate) fn new(capacity: u64) -> Allocator {
        let capacity = capacity / FS_BLOCK * FS_BLOCK;
        let mut free = BTreeMap::new();
        if capacity > 0 {
            free.insert(0, capacity);
        }
        Allocator { capacity, free, free_bytes: capacity, cursor: 0, bucket: 0, changes: Vec::new() }
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Keep a change counter per `bucket` bytes from now on (see [`Allocator::changes`]).
    pub(crate) fn count_changes(&mut self, bucket: u64) {
        self.bucket = bucket.max(1);
        self.changes = vec![0; self.capacity.div_ceil(self.bucket) as usize + 1];
    }

    /// How often the bucket holding byte `at` changed (0 if not counted).
    pub(crate) fn changes(&self, at: u64) -> u32 {
        if self.bucket == 0 {
            return 0;
        }
        self.changes.get((at / self.bucket) as usize).copied().unwrap_or(0)
    }

    fn touch(&mut self, start: u64, len: u64) {
        if self.bucket == 0 || len == 0 {
            return;
        }
        for b in start / self.bucket..=(start + len - 1) / self.bucket {
            if let Some(c) = self.changes.get_mut(b as usize) {
                *c = c.wrapping_add(1);
            }
        }
    }
    pub(crate) fn free_bytes(&self) -> u64 {
        self.free_bytes
    }

    /// Take `len` bytes at `start` out of the free space (mkfs placing static metadata);
    /// false if any of it is not free.
    pub(crate) fn reserve(&mut self, start: u64, len: u64) -> bool {
        let Some((&s, &l)) = self.free.range(..=start).next_back() else { return false };
        if s + l < start + len {
            return false;
        }
        self.free.remove(&s);
        if start > s {
            self.free.insert(s, start - s);
        }
        if s + l > start + len {
            self.free.insert(start + len, s + l - start - len);
        }
        self.free_bytes -= len;
        self.touch(start, len);
        true
    }

    /// The first free run of at least `len` bytes at or after `goal` (wrapping), taken.
    pub(crate) fn take_contiguous(&mut self, goal: u64, len: u64) -> Option<u64> {
        let s = self.free.range(goal..).chain(self.free.range(..goal)).find(|(_, &l)| l >= len).map(|(&s, _)| s)?;
        self.reserve(s, len);
        Some(s)
    }

    /// `len` bytes taken from the free runs at or after `goal` (wrapping), in that order, whole
    /// runs until the last: (offset, bytes) each. `None` (nothing taken) when less is free.
    pub(crate) fn take_runs(&mut self, goal: u64, len: u64) -> Option<Vec<(u64, u64)>> {
        if len > self.free_bytes {
            return None;
        }
        let mut runs = Vec::new();
        let mut left = len;
        for (&s, &l) in self.free.range(goal..).chain(self.free.range(..goal)) {
            if left == 0 {
                break;
            }
            let take = l.min(left);
            runs.push((s, take));
            left -= take;
        }
        for &(s, l) in &runs {
            self.reserve(s, l);
        }
        Some(runs)
    }

    /// Allocate `need` bytes (whole blocks) next-fit and append them to `extents` from file
    /// offset `file_off`, merging with the last extent where contiguous. False when there is
    /// not enough free space (nothing is taken then).
    #[must_use]
    pub(crate) fn alloc(&mut self, need: u64, file_off: u64, extents: &mut Vec<Extent>) -> bool {
        if need > self.free_bytes {
            return false;
        }
        let mut got = 0;
        while got < need {
            let (start, len) = self
                .free
                .range(self.cursor..)
                .next()
                .or_else(|| self.free.iter().next())
                .map(|(&s, &l)| (s, l))
                .expect("free bytes accounted but no free extent");
            let take = len.min(need - got);
            self.free.remove(&start);
            if take < len {
                self.free.insert(start + take, len - take);
            }
            match extents.last_mut() {
                Some(e) if e.dev_off + e.len == start && e.file_off + e.len == file_off + got => e.len += take,
                _ => extents.push(Extent { file_off: file_off + got, dev_off: start, len: take }),
            }
            got += take;
            self.cursor = start + take;
            self.touch(start, take);
        }
        self.free_bytes -= need;
        true
    }

    /// Return [start, start+len) to the free space.
    pub(crate) fn release(&mut self, start: u64, len: u64) {
        self.free_bytes += len;
        self.touch(start, len);
        let (mut s, mut l) = (start, len);
        if let Some((&ps, &pl)) = self.free.range(..s).next_back() {
            if ps + pl == s {
                self.free.remove(&ps);
                s = ps;
                l += pl;
            }
        }
        if let Some(&nl) = self.free.get(&(s + l)) {
            self.free.remove(&(s + l));
            l += nl;
        }
        self.free.insert(s, l);
    }

    /// The free runs inside [lo, hi) (bytes), clipped to it, in address order.
    pub(crate) fn free_runs(&self, lo: u64, hi: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let before = self.free.range(..lo).next_back().filter(|(&s, &l)| s + l > lo);
        before.into_iter().chain(self.free.range(lo..hi)).filter_map(move |(&s, &l)| {
            let (a, b) = (s.max(lo), (s + l).min(hi));
            (b > a).then_some((a, b - a))
        })
    }

    /// The allocator's own bookkeeping: every free extent is whole blocks inside the
    /// capacity, none touches the next (they are coalesced), the free byte count is their sum
    /// and the next-fit cursor is inside the capacity. Errors name the extent or count.
    pub(crate) fn check(&self) -> Result<(), InvariantError> {
        let mut sum = 0;
        let mut prev_end = None;
        for (&s, &l) in &self.free {
            if l == 0 || s % FS_BLOCK != 0 || l % FS_BLOCK != 0 || s + l > self.capacity {
                return Err(format!(
                    "free extent at byte {s} of {l} bytes: not whole blocks inside the {} bytes",
                    self.capacity
                )
                .into());
            }
            if prev_end.is_some_and(|e| e >= s) {
                return Err(
                    format!("free extent at byte {s} touches or overlaps the one before it (not coalesced)").into()
                );
            }
            prev_end = Some(s + l);
            sum += l;
        }
        if sum != self.free_bytes {
            return Err(format!(
                "free space: the free extents hold {sum} bytes, but the count says {}",
                self.free_bytes
            )
            .into());
        }
        if self.cursor > self.capacity {
            return Err(format!("allocation cursor at byte {} past the capacity {}", self.cursor, self.capacity).into());
        }
        Ok(())
    }

    /// The free extents (what fstrim trims).
    pub(crate) fn free_extents(&self) -> Vec<(u64, u64)> {
        self.free.iter().map(|(&s, &l)| (s, l)).collect()
    }
}

/// Check that `ranges` (start, len) tile [0, capacity) exactly. For invariant checks.
pub(crate) fn check_tiling(mut ranges: Vec<(u64, u64)>, capacity: u64) -> Result<(), InvariantError> {
    ranges.sort_unstable();
    let mut pos = 0;
    for (s, l) in ranges {
        if s != pos {
            return Err(if s < pos {
                format!("overlap at {s} (a range ends at {pos})")
            } else {
                format!("gap at {pos} (next range starts at {s})")
            }
            .into());
        }
        pos = s + l;
    }
    if pos != capacity {
        return Err(format!("ranges end at {pos}, capacity {capacity}").into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allocator_check_names_a_broken_free_map() {
        let mut a = Allocator::new(100 * FS_BLOCK);
        let mut x = vec![];
        assert!(a.alloc(10 * FS_BLOCK, 0, &mut x));
        a.check().unwrap();
        // Two free extents that touch: not coalesced.
        let mut b = a.clone();
        b.free.insert(2 * FS_BLOCK, FS_BLOCK);
        b.free.insert(3 * FS_BLOCK, FS_BLOCK);
        b.free_bytes += 2 * FS_BLOCK;
        assert_eq!(
            b.check().unwrap_err().0,
            format!("free extent at byte {} touches or overlaps the one before it (not coalesced)", 3 * FS_BLOCK)
        );
        // A free count that is not the extents' sum.
        let mut c = a.clone();
        c.free_bytes -= FS_BLOCK;
        assert_eq!(
            c.check().unwrap_err().0,
            format!("free space: the free extents hold {} bytes, but the count says {}", 90 * FS_BLOCK, 89 * FS_BLOCK)
        );
        // An extent past the capacity.
        let mut d = a;
        d.free.insert(100 * FS_BLOCK, FS_BLOCK);
        d.free_bytes += FS_BLOCK;
        assert!(d.check().unwrap_err().0.contains("not whole blocks inside"));
    }

    #[test]
    fn alloc_release_tiles() {
        let mut a = Allocator::new(100 * FS_BLOCK);
        let (mut x, mut y, mut z) = (vec![], vec![], vec![]);
        assert!(a.alloc(10 * FS_BLOCK, 0, &mut x));
        assert!(a.alloc(21 * FS_BLOCK, 0, &mut y));
        assert_eq!(a.free_bytes(), 69 * FS_BLOCK);
        for e in &x {
            a.release(e.dev_off, e.len);
        }
        assert!(a.alloc(75 * FS_BLOCK, 0, &mut z)); // wraps: uses the tail, then x's hole
        assert_eq!(z.len(), 2);
        assert_eq!(z[1].file_off, 69 * FS_BLOCK);
        assert!(!a.alloc(5 * FS_BLOCK, 0, &mut x));
        let mut ranges: Vec<(u64, u64)> = y.iter().chain(&z).map(|e| (e.dev_off, e.len)).collect();
        ranges.extend(a.free_extents());
        check_tiling(ranges, a.capacity()).unwrap();
        for e in y.iter().chain(&z) {
            a.release(e.dev_off, e.len);
        }
        assert_eq!(a.free_extents(), vec![(0, 100 * FS_BLOCK)]);
    }

    #[test]
    fn reserve_and_contiguous() {
        let mut a = Allocator::new(100 * FS_BLOCK);
        assert!(a.reserve(10 * FS_BLOCK, 5 * FS_BLOCK));
        assert!(!a.reserve(12 * FS_BLOCK, FS_BLOCK));
        assert_eq!(a.take_contiguous(5 * FS_BLOCK, 8 * FS_BLOCK), Some(15 * FS_BLOCK));
        assert_eq!(a.free_bytes(), 87 * FS_BLOCK);
    }

    #[test]
    fn map_splits_at_extents() {
        let f = File {
            size: 8 * FS_BLOCK,
            extents: vec![
                Extent { file_off: 0, dev_off: 40 * FS_BLOCK, len: 4 * FS_BLOCK },
                Extent { file_off: 4 * FS_BLOCK, dev_off: 0, len: 4 * FS_BLOCK },
            ],
        };
        let mut pieces = vec![];
        f.map(3 * FS_BLOCK, 2 * FS_BLOCK, |d, l| pieces.push((d, l)));
        assert_eq!(pieces, vec![(43 * FS_BLOCK, FS_BLOCK), (0, FS_BLOCK)]);
        assert_eq!(f.allocated(), 8 * FS_BLOCK);
    }
}
