//! Where ext4 puts a file's blocks: its multi-block allocator (mballoc), as far as placement
//! goes. The rules, from `fs/ext4/mballoc.c` and `fs/ext4/extents.c`:
//!
//! * **Goal.** A file continues where its last extent ends; a file with no blocks starts at
//!   the first block of its inode's group (with `flex_bg` of 4 or more groups, the second group
//!   of the flex group: [`Layout::file_goal`]). If the run at the goal is free for the whole
//!   request, it is taken there.
//! * **Small files share a window.** A file of at most 16 blocks (`mb_stream_req`, 64 KiB)
//!   is allocated from the locality group's preallocation: a window of 512 blocks
//!   (`mb_group_prealloc`) taken once and handed out in order, so small files are packed
//!   side by side. A new window is taken when the current one cannot hold the request.
//! * **Request normalization.** A larger file's request is rounded up to a power of two by the
//!   file's size (16 KiB … 1 MiB; 2 MiB chunks up to 4 MiB, 4 MiB up to 8 MiB, 8 MiB beyond:
//!   `ext4_mb_normalize_request`); what the file does not use is preallocated to it and given
//!   back when the file is closed — the model takes only what the file uses.
//! * **Buddy search.** A power-of-two request is placed in the buddy system (`CR_POWER2_ALIGNED`):
//!   in each group, from the group of the last stream allocation on (group 0 at mount), the
//!   smallest free buddy of at least the request's order, the lowest such; a buddy of order
//!   *k* is aligned to 2^k blocks from the group's start and is free but not part of a larger
//!   free buddy. Data never goes to the first group of a flex group at this stage. Otherwise
//!   (or when no group has one) the first free run long enough for the normalized request
//!   (`CR_GOAL_LEN_FAST`), then the same over every group, loading them (`CR_GOAL_LEN_SLOW`),
//!   then for the request, then any free run (the file is split). The two cheap stages skip
//!   groups whose buddy the kernel has not loaded yet (no allocation there since mount),
//!   unless mke2fs left them `BLOCK_UNINIT` or they start a flex group.
//! * A request bigger than its normalized size is served a normalized size at a time, each
//!   piece continuing where the last ended when that is free.
//! * Extents never cross a group boundary; one writeback maps at most 2048 blocks
//!   (`MAX_WRITEPAGES_EXTENT_LEN`), so bigger requests are split.
//!
//! Not modelled: per-CPU locality groups (one window here), the inode preallocations of files
//! kept open while others allocate, `mb_optimize_scan`'s group lists (it is off below 16
//! groups), stripe alignment, bigalloc.

use super::ext4_layout::Layout;
use crate::extents::{Allocator, Extent, FS_BLOCK};

/// Files of at most this many blocks use the locality group's window (`mb_stream_req`).
pub const STREAM_REQUEST: u64 = 16;
/// The locality group's preallocation window in blocks (`mb_group_prealloc`).
pub const GROUP_PREALLOC: u64 = 512;
/// Largest extent one writeback maps (`MAX_WRITEPAGES_EXTENT_LEN`).
pub const MAX_REQUEST: u64 = 2048;
/// Groups whose bitmaps one search prefetches (`mb_prefetch`).
const PREFETCH: u64 = 32;
/// Largest buddy order for 4 KiB blocks (`MB_NUM_ORDERS` = block bits + 2 orders).
const MAX_ORDER: u32 = 13;

/// The allocator's state beyond the free-space map: the group of the last stream allocation
/// and the locality group's window.
#[derive(Debug, Clone, Default)]
pub struct Mballoc {
    /// Group of the last stream allocation (`s_mb_last_group`: 0 at mount).
    last_group: u64,
    /// Groups whose buddy the kernel has loaded (allocated in since mount, or prefetched).
    loaded: Vec<bool>,
    /// Per group: the longest free run and the allocator's change count it was measured at.
    longest: Vec<(u32, u64)>,
    /// Groups the previous search prefetched: loaded once the next search ends (the
    /// bitmap reads complete in the background; `ext4_mb_prefetch_fini`).
    prefetched: Vec<u64>,
    /// Within one `alloc` call: no run as long as the request was found, so the rest of the
    /// call takes free runs as they come (what `CR_ANY_FREE` ends with) without searching again.
    fragmented: bool,
    /// In a fragmented call: the free runs, largest first (ties in group order from the
    /// search's first group), consumed in order.
    frag_runs: Vec<(u64, u64)>,
    /// The locality group's window, [next, end) in blocks; held out of the free map.
    lg: Option<(u64, u64)>,
}

/// The request size ext4 normalizes to for a file whose logical end is `end` blocks.
pub fn normalized(end: u64) -> u64 {
    let bytes = end * FS_BLOCK;
    let size: u64 = match bytes {
        b if b <= 16 << 10 => 16 << 10,
        b if b <= 32 << 10 => 32 << 10,
        b if b <= 64 << 10 => 64 << 10,
        b if b <= 128 << 10 => 128 << 10,
        b if b <= 256 << 10 => 256 << 10,
        b if b <= 512 << 10 => 512 << 10,
        b if b <= 1 << 20 => 1 << 20,
        b if b <= 4 << 20 => 2 << 20,
        b if b <= 8 << 20 => 4 << 20,
        _ => 8 << 20,
    };
    size / FS_BLOCK
}

/// Free runs of `a` inside blocks [lo, hi), clipped, in blocks.
fn runs_in(a: &Allocator, lo: u64, hi: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
    a.free_runs(lo * FS_BLOCK, hi * FS_BLOCK).map(|(s, l)| (s / FS_BLOCK, l / FS_BLOCK))
}

/// The smallest free buddy of order >= `order` in [gs, ge) (orders relative to `gs`), lowest
/// address first: (block, order).
fn buddy_in(a: &Allocator, gs: u64, ge: u64, order: u32) -> Option<(u64, u32)> {
    let mut best: Option<(u64, u32)> = None;
    for (s, l) in runs_in(a, gs, ge) {
        if l < 1 << order {
            continue;
        }
        let (mut p, e) = (s - gs, s + l - gs);
        while p < e {
            let mut o = p.trailing_zeros().min(MAX_ORDER);
            while p + (1 << o) > e {
                o -= 1;
            }
            if o >= order && best.is_none_or(|(_, bo)| o < bo) {
                best = Some((gs + p, o));
                if o == order {
                    return best;
                }
            }
            p += 1 << o;
        }
    }
    best
}

/// The first free run in [gs, ge) of at least `len` blocks.
fn first_fit(a: &Allocator, gs: u64, ge: u64, len: u64) -> Option<u64> {
    runs_in(a, gs, ge).find(|&(_, l)| l >= len).map(|(s, _)| s)
}

impl Mballoc {
    /// The locality group's window, if one is held: (first block, blocks).
    pub fn window(&self) -> Option<(u64, u64)> {
        self.lg.filter(|&(s, e)| e > s).map(|(s, e)| (s, e - s))
    }

    /// Blocks held in the window (free for statfs; given back when space runs short).
    pub fn window_blocks(&self) -> u64 {
        self.window().map_or(0, |w| w.1)
    }

    /// Give the window back to the free space.
    pub fn drop_window(&mut self, a: &mut Allocator) {
        if let Some((s, l)) = self.window() {
            a.release(s * FS_BLOCK, l * FS_BLOCK);
        }
        self.lg = None;
    }

    /// Allocate `need` blocks for a file that will be `end` blocks long, continuing at block
    /// `goal`, appending to `extents` from file offset `file_off` (bytes). False (nothing taken)
    /// when there is not enough free space.
    #[allow(clippy::too_many_arguments)]
    pub fn alloc(
        &mut self,
        a: &mut Allocator,
        l: &Layout,
        need: u64,
        end: u64,
        goal: u64,
        file_off: u64,
        extents: &mut Vec<Extent>,
    ) -> bool {
        if need * FS_BLOCK > a.free_bytes() {
            self.drop_window(a);
            if need * FS_BLOCK > a.free_bytes() {
                return false;
            }
        }
        let mut got = 0;
        let mut goal = goal.min(l.blocks.saturating_sub(1));
        self.fragmented = false;
        self.frag_runs.clear();
        while got < need {
            let want = (need - got).min(MAX_REQUEST);
            let (start, len) =
                if end <= STREAM_REQUEST { self.small(a, l, want, goal) } else { self.stream(a, l, want, end, goal) };
            a.reserve(start * FS_BLOCK, len * FS_BLOCK);
            let off = file_off + got * FS_BLOCK;
            match extents.last_mut() {
                Some(e) if e.dev_off + e.len == start * FS_BLOCK && e.file_off + e.len == off => {
                    e.len += len * FS_BLOCK
                }
                _ => extents.push(Extent { file_off: off, dev_off: start * FS_BLOCK, len: len * FS_BLOCK }),
            }
            got += len;
            goal = start + len;
        }
        true
    }

    /// One block for metadata (an extent leaf or a directory block) at or after `goal`.
    pub fn alloc_meta(&mut self, a: &mut Allocator, l: &Layout, goal: u64) -> Option<u64> {
        if a.free_bytes() < FS_BLOCK {
            self.drop_window(a);
        }
        let b = runs_in(a, goal, l.blocks).chain(runs_in(a, 0, goal)).next().map(|(s, _)| s)?;
        a.reserve(b * FS_BLOCK, FS_BLOCK);
        Some(b)
    }

    /// A small file's blocks from the window (a new window when it cannot hold `want`).
    /// Returns a run not yet taken from `a` (the caller reserves it).
    fn small(&mut self, a: &mut Allocator, l: &Layout, want: u64, goal: u64) -> (u64, u64) {
        if let Some((s, e)) = self.lg {
            if e - s >= want {
                self.lg = Some((s + want, e));
                a.release(s * FS_BLOCK, want * FS_BLOCK); // the caller takes it again
                return (s, want);
            }
        }
        self.drop_window(a);
        let (ws, wl) = self.place(a, l, GROUP_PREALLOC, GROUP_PREALLOC, goal, false);
        if wl < want {
            // No window fits the request: the file takes what was found.
            return (ws, wl);
        }
        self.lg = Some((ws + want, ws + wl));
        a.reserve((ws + want) * FS_BLOCK, (wl - want) * FS_BLOCK);
        (ws, want)
    }

    /// A stream allocation of up to `want` blocks for a file `end` blocks long.
    fn stream(&mut self, a: &mut Allocator, l: &Layout, want: u64, end: u64, goal: u64) -> (u64, u64) {
        // The goal, if the whole request is free there (within its group).
        let g = l.group_of(goal);
        if let Some((s, len)) = runs_in(a, goal, l.group_end(g)).next() {
            if s == goal && len >= want {
                return (goal, want);
            }
        }
        let norm = normalized(end);
        let (s, len) = self.place(a, l, norm, want.min(norm), goal, true);
        self.last_group = l.group_of(s);
        (s, len.min(want))
    }

    /// Find room for a request normalized to `norm` blocks of which `want` are needed: a
    /// buddy, then a first fit of `norm`, of `want`, then the first free run. Returns
    /// (start, blocks available there, at most `norm`).
    fn place(&mut self, a: &mut Allocator, l: &Layout, norm: u64, want: u64, goal: u64, stream: bool) -> (u64, u64) {
        let first = if stream { self.last_group.min(l.groups - 1) } else { l.group_of(goal) };
        let r = self.search(a, l, norm, want, first);
        if self.loaded.len() < l.groups as usize {
            self.loaded.resize(l.groups as usize, false);
        }
        self.loaded[l.group_of(r.0) as usize] = true;
        for g in std::mem::take(&mut self.prefetched) {
            self.loaded[g as usize] = true;
        }
        self.prefetched = (0..l.groups.min(PREFETCH)).map(|i| (first + i) % l.groups).collect();
        r
    }

    /// The longest free run in group `g` (cached until the group changes).
    fn longest(&mut self, a: &mut Allocator, l: &Layout, g: u64) -> u64 {
        if a.changes(0) == 0 && self.longest.is_empty() {
            a.count_changes(l.blocks_per_group * FS_BLOCK);
        }
        if self.longest.len() < l.groups as usize {
            self.longest = vec![(u32::MAX, 0); l.groups as usize];
        }
        let c = a.changes(l.group_start(g) * FS_BLOCK);
        let (seen, len) = self.longest[g as usize];
        if seen == c {
            return len;
        }
        let len = runs_in(a, l.group_start(g), l.group_end(g)).map(|r| r.1).max().unwrap_or(0);
        self.longest[g as usize] = (c, len);
        len
    }

    fn search(&mut self, a: &mut Allocator, l: &Layout, norm: u64, want: u64, first: u64) -> (u64, u64) {
        let order = (norm.is_power_of_two() && norm >= 4).then(|| norm.trailing_zeros()).filter(|&o| o <= MAX_ORDER);
        let groups = (0..l.groups).map(|i| (first + i) % l.groups);
        if self.fragmented {
            // Runs are taken largest first while none holds the rest of the request; once one
            // does, the rest is a request like any other.
            match self.frag_runs.last() {
                Some(&(_, len)) if len < want => return self.any(a, l, norm, first),
                _ => {
                    self.fragmented = false;
                    self.frag_runs.clear();
                }
            }
        }
        let longest: Vec<u64> = (0..l.groups).map(|g| self.longest(a, l, g)).collect();
        let flex_first = |g: u64| l.flex > 1 && g.is_multiple_of(l.flex);
        let cheap =
            |g: u64| self.loaded.get(g as usize).copied().unwrap_or(false) || l.block_uninit(g) || flex_first(g);
        if let Some(order) = order {
            for g in
                groups.clone().filter(|&g| cheap(g) && !(l.flex >= 4 && flex_first(g)) && longest[g as usize] >= norm)
            {
                if let Some((s, _)) = buddy_in(a, l.group_start(g), l.group_end(g), order) {
                    return (s, norm);
                }
            }
        }
        for g in groups.clone().filter(|&g| cheap(g) && longest[g as usize] >= norm) {
            if let Some(s) = first_fit(a, l.group_start(g), l.group_end(g), norm) {
                return (s, norm);
            }
        }
        for len in [norm, want] {
            for g in groups.clone().filter(|&g| longest[g as usize] >= len) {
                if let Some(s) = first_fit(a, l.group_start(g), l.group_end(g), len) {
                    return (s, len);
                }
            }
        }
        self.fragmented = true;
        self.frag_runs.clear();
        self.any(a, l, norm, first)
    }

    /// What is left: the largest free run, then the next largest, ... (`CR_BEST_AVAIL_LEN` and
    /// `CR_ANY_FREE` on a nearly full filesystem), up to `norm` blocks of it. The largest
    /// runs are listed a few dozen at a time (ties in group order from `first`).
    fn any(&mut self, a: &Allocator, l: &Layout, norm: u64, first: u64) -> (u64, u64) {
        const TOP: usize = 64;
        loop {
            while let Some((s, len)) = self.frag_runs.pop() {
                if let Some((fs, fl)) = runs_in(a, s, s + len).next() {
                    if fl > norm {
                        self.frag_runs.push((fs + norm, fl - norm));
                    }
                    return (fs, fl.min(norm));
                }
            }
            let mut runs: Vec<(u64, u64, u64)> = Vec::new(); // (len, group order, start)
            for i in 0..l.groups {
                let g = (first + i) % l.groups;
                runs.extend(runs_in(a, l.group_start(g), l.group_end(g)).map(|(s, len)| (len, i, s)));
            }
            assert!(!runs.is_empty(), "free bytes accounted but no free run");
            let order =
                |x: &(u64, u64, u64), y: &(u64, u64, u64)| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2));
            if runs.len() > TOP {
                runs.select_nth_unstable_by(TOP, order);
                runs.truncate(TOP);
            }
            runs.sort_unstable_by(order);
            self.frag_runs = runs.into_iter().rev().map(|(len, _, s)| (s, len)).collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout_4_groups() -> (Layout, Allocator) {
        // 4 groups of 8192 blocks, metadata in the first 2127 blocks and 65 at 8192 (as a
        // 128 MiB `mkfs.ext4 -b 4096 -g 8192` image, without its journal and last backup).
        let text = "Block count: 32768\nBlock size: 4096\nBlocks per group: 8192\nInodes per group: 8192\nFlex block group size: 16\n\
Group 0: (Blocks 0-8191)\n Group descriptors at 1-1\n Block bitmap at 65\n Inode bitmap at 69\n Inode table at 73-584\n Free blocks: 2127-8191\n Free inodes: 12-8192\n\
Group 1: (Blocks 8192-16383) [INODE_UNINIT, BLOCK_UNINIT]\n Block bitmap at 66\n Inode bitmap at 70\n Inode table at 585-1096\n Free blocks: 8257-16383\n\
Group 2: (Blocks 16384-24575)\n Block bitmap at 67\n Inode bitmap at 71\n Inode table at 1097-1608\n Free blocks: 16384-24575\n\
Group 3: (Blocks 24576-32767) [BLOCK_UNINIT]\n Block bitmap at 68\n Inode bitmap at 72\n Inode table at 1609-2120\n Free blocks: 24576-32767\n";
        let l = Layout::from_dumpe2fs("t", text, Some((0, 0))).unwrap();
        let mut a = Allocator::new(l.blocks * FS_BLOCK);
        for (s, n) in l.static_ranges() {
            assert!(a.reserve(s * FS_BLOCK, n * FS_BLOCK));
        }
        (l, a)
    }

    fn file(m: &mut Mballoc, a: &mut Allocator, l: &Layout, blocks: u64) -> Vec<Extent> {
        let mut e = Vec::new();
        assert!(m.alloc(a, l, blocks, blocks, l.file_goal(12), 0, &mut e));
        e
    }

    /// The placements the kernel (6.18) chose for the first files of a fill of a 128 MiB
    /// image (`filefrag -v`): 13 blocks at 8704 (a fresh 512-block window), 271 at 9216,
    /// 191 at 8448, 23 at 8288, 62 at 8640, 11 at 8717 (the window again).
    #[test]
    fn first_files_land_where_the_kernel_put_them() {
        let (l, mut a) = layout_4_groups();
        let mut m = Mballoc::default();
        let at = |e: &[Extent]| (e[0].dev_off / FS_BLOCK, e.len());
        assert_eq!(at(&file(&mut m, &mut a, &l, 13)), (8704, 1));
        assert_eq!(at(&file(&mut m, &mut a, &l, 271)), (9216, 1));
        assert_eq!(at(&file(&mut m, &mut a, &l, 191)), (8448, 1));
        assert_eq!(at(&file(&mut m, &mut a, &l, 23)), (8288, 1));
        assert_eq!(at(&file(&mut m, &mut a, &l, 62)), (8640, 1));
        assert_eq!(at(&file(&mut m, &mut a, &l, 11)), (8717, 1));
    }

    #[test]
    fn a_full_disk_splits_and_then_refuses() {
        let (l, mut a) = layout_4_groups();
        let mut m = Mballoc::default();
        let free = a.free_bytes() / FS_BLOCK;
        let e = file(&mut m, &mut a, &l, free - 100);
        assert!(e.len() > 1);
        assert_eq!(e.iter().map(|x| x.len).sum::<u64>(), (free - 100) * FS_BLOCK);
        let mut more = Vec::new();
        assert!(!m.alloc(&mut a, &l, 200, 200, 0, 0, &mut more));
        assert!(more.is_empty());
        assert!(m.alloc(&mut a, &l, 100, 100, 0, 0, &mut more));
        assert_eq!(a.free_bytes(), 0);
    }

    #[test]
    fn normalization_follows_the_kernel_table() {
        assert_eq!(normalized(1), 4);
        assert_eq!(normalized(16), 16);
        assert_eq!(normalized(17), 32);
        assert_eq!(normalized(256), 256);
        assert_eq!(normalized(271), 512);
        assert_eq!(normalized(1500), 1024);
        assert_eq!(normalized(100_000), 2048);
    }
}
