//! The flash translation layer: page-level mapping at the 4 KiB unit, write frontiers, the
//! write buffer's open pages, TRIM, FLUSH, and garbage collection (foreground when a die runs
//! short of free blocks, background in idle time).
//!
//! All state is in flat arrays: logical->physical (`l2p`, 4 bytes per logical unit),
//! physical->logical (`p2l`, packed at the bits a logical unit number needs: 23 bits per
//! physical unit at 16 GiB, 26 at 256 GiB) and per-block arrays. A logical unit
//! is in one of three places: unmapped (reads as zeros), in an open page of the controller's
//! buffer (`l2p` has the `BUFFERED` bit and the slot), or on NAND (`l2p` is the physical unit).
//!
//! Host writes go to the write frontier of their request's stream; GC has its own frontier
//! (or two, by temperature: `ftl/gc_split.rs`). With `[fdp]` the host frontiers are NVMe FDP
//! reclaim unit handles and GC has one frontier per persistently isolated handle
//! (`ftl/fdp.rs`).

mod bulk;
#[cfg(feature = "fault-injection")]
mod fault;
mod fdp;
mod gc_split;
mod pacing;
mod translation;

use crate::buffer::WriteBuffer;
use crate::counters::{Counters, DeviceState, Wear};
use crate::mapcache::MapCache;
use crate::nand::{Geometry, Nand, NandTiming};
use crate::packed::PackedTable;
use crate::profile::{Profile, MAP_UNIT, MAX_UNITS_PER_PAGE};
use crate::temperature::{Detector, TemperatureMode};
use crate::timeline::Ns;
use crate::victim::Victims;
use crate::Error;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// `l2p` value of a unit that holds no data.
pub(crate) const UNMAPPED: u32 = u32::MAX;
/// `p2l` value of a physical unit that holds no valid data.
pub(crate) const INVALID: u32 = u32::MAX;
/// `l2p` flag: the unit is in an open page; the low bits are `open_page * MAX_UPP + slot`.
pub(crate) const BUFFERED: u32 = 0x8000_0000;
pub(crate) const MAX_UPP: usize = MAX_UNITS_PER_PAGE as usize;
const NIL: u32 = u32::MAX;
/// GC prefetches the mapping entry of the unit this many physical units ahead.
const GC_PREFETCH: u32 = 16;
/// A program prefetches the reverse-map entry of the unit this many physical units ahead in
/// its block (a cache line holds 16 to 64 packed entries).
const PROGRAM_PREFETCH: u32 = 32;

use crate::memory::prefetch;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockState {
    Free,
    Open,
    Closed,
    /// Being cleaned by GC.
    Victim,
}

/// A program unit being filled in controller RAM.
#[derive(Debug, Clone)]
pub(crate) struct OpenPage {
    pub(crate) lpn: [u32; MAX_UPP],
    pub(crate) tag: [u64; MAX_UPP],
    /// With FDP, the reclaim unit handle whose data each slot of a GC page holds (a host
    /// page's slots are all its handle's); unused otherwise.
    pub(crate) handle: [u8; MAX_UPP],
    pub(crate) len: u32,
    /// When the last of its data arrived.
    pub(crate) ready: Ns,
}

impl OpenPage {
    pub(crate) fn new() -> OpenPage {
        OpenPage { lpn: [INVALID; MAX_UPP], tag: [0; MAX_UPP], handle: [0; MAX_UPP], len: 0, ready: 0 }
    }

    /// Add a unit whose data is in the controller at `ready`; returns its slot.
    #[inline]
    pub(crate) fn push(&mut self, lpn: u32, tag: u64, ready: Ns) -> usize {
        let slot = self.len as usize;
        self.lpn[slot] = lpn;
        self.tag[slot] = tag;
        self.len += 1;
        self.ready = self.ready.max(ready);
        slot
    }

    /// Empty the page after its program.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.ready = 0;
        // Slots past the page size are never used and stay INVALID: reset the whole array (a
        // few vector stores, where a slice fill of a run-time length calls memset).
        self.lpn = [INVALID; MAX_UPP];
    }
}

/// The tag of the buffered unit that `l2p` value `v` (BUFFERED | slot) points at.
#[inline]
pub(crate) fn buffered_tag(open: &[OpenPage], v: u32) -> u64 {
    let i = (v & !BUFFERED) as usize;
    open[i / MAX_UPP].tag[i % MAX_UPP]
}

/// Heap bytes of a vector (for the memory accounting).
pub(crate) fn heap_bytes<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

/// Where a logical unit's data is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Location {
    /// Never written, or trimmed: reads return zeros without touching NAND.
    Unmapped,
    /// In an open page of the controller's write buffer: reads are served from RAM.
    Buffered,
    /// On NAND, at this physical unit (block-major: `block * units_per_block + page *
    /// units_per_page + slot`).
    Nand(u32),
}

#[derive(Debug, Clone)]
pub(crate) struct Ftl {
    geo: Geometry,
    nand: Nand,
    logical_units: u32,
    l2p: Vec<u32>,
    /// Packed at the bits the largest logical unit needs ([`PackedTable`]); `INVALID` is its
    /// "none".
    p2l: PackedTable,
    /// Per physical unit, the tag of the data (only when content tracking is on).
    tags: Option<Vec<u64>>,
    valid: Vec<u32>,
    /// Valid units per die: where GC sends its copies ([`Ftl::gc_target`]).
    die_valid: Vec<u64>,
    /// Per die, the die its current victim's copies go to, chosen with the victim.
    gc_to: Vec<u32>,
    erase_count: Vec<u32>,
    state: Vec<BlockState>,
    next_page: Vec<u32>,
    free: Vec<VecDeque<u32>>,
    /// Open block per (die, frontier): `active[die * frontiers + f]`.
    active: Vec<u32>,
    frontiers: u32,
    gc_frontier: u32,
    host_streams: u32,
    /// Open pages: one per host stream, then one per die for GC copies.
    open: Vec<OpenPage>,
    /// Next die for each host stream's next page (pages are striped over dies).
    next_die: Vec<u32>,
    buffer: WriteBuffer,
    volatile_buffer: bool,
    victims: Victims,
    gc_min_free: usize,
    bg_target: usize,
    in_gc: bool,
    /// Greedy picks the emptiest block, so a full one means there is nothing to gain.
    greedy: bool,
    /// The SRAM mapping cache of a DRAM-less controller; `None`: the whole table is in DRAM.
    map: Option<MapCache>,
    /// SLC write cache: host units it holds at most, holds now, and its program time.
    slc_capacity: u64,
    slc_used: u64,
    slc_prog: Ns,
    /// Incremental GC per die: the victim being cleaned a page per step (NIL when none) and
    /// its next page. Host write commands carry the steps ([`Ftl::command_gc`]).
    job_victim: Vec<u32>,
    job_page: Vec<u32>,
    /// Dies with a victim in `job_victim` (so that a command with no GC work skips the dies).
    jobs: u32,
    /// Most GC pages one command carries, the busy-time ceiling of a command, and a
    /// conservative time of one GC page (read, transfer, program) to stop at the ceiling.
    pages_per_command: u32,
    busy_ceiling: Ns,
    page_cost: Ns,
    /// How much of each die's incremental GC a host command carries ([`pacing`]).
    pace: pacing::Pacing,
    /// The update-frequency detector when the profile places data by detected temperature.
    detector: Option<Detector>,
    /// GC copies go to a hot or a cold GC frontier by temperature ([`gc_split`]).
    gc_split: bool,
    /// GC write frontiers (each with an open page per die): 1, 2 with `gc_split`, more with
    /// FDP's persistently isolated handles.
    gc_slots: u32,
    /// Flexible Data Placement ([`fdp`]): per-handle statistics and GC by handle; `None`
    /// without `[fdp]`.
    fdp: Option<Box<fdp::Fdp>>,
    /// The detector classifies host writes (else it only remembers the host's hints).
    detect: bool,
    counters: Counters,
}

impl Ftl {
    pub(crate) fn new(profile: &Profile, seed: u64) -> Ftl {
        let geo = Geometry::from_profile(profile);
        let f = &profile.ftl;
        let physical = geo.physical_units();
        let logical = profile.logical_units();
        let blocks = geo.blocks() as usize;
        let frontiers = profile.frontiers();
        let gc_slots = match &profile.fdp {
            Some(c) => c.gc_frontiers(),
            None => 1 + u32::from(f.gc_by_temperature),
        };
        let mut free = vec![VecDeque::new(); geo.dies as usize];
        for b in 0..geo.blocks() {
            free[geo.die_of_block(b) as usize].push_back(b);
        }
        Ftl {
            geo,
            nand: Nand::new(geo, NandTiming::from_profile(profile)),
            logical_units: logical,
            l2p: crate::memory::table(logical as usize, UNMAPPED),
            p2l: PackedTable::new(physical as usize, logical.saturating_sub(1)),
            tags: None,
            valid: vec![0; blocks],
            die_valid: vec![0; geo.dies as usize],
            gc_to: (0..geo.dies).collect(),
            erase_count: vec![0; blocks],
            state: vec![BlockState::Free; blocks],
            next_page: vec![0; blocks],
            free,
            active: vec![NIL; (geo.dies * frontiers) as usize],
            frontiers,
            gc_frontier: if f.separate_gc_frontier { f.host_streams } else { 0 },
            host_streams: f.host_streams,
            open: vec![OpenPage::new(); (f.host_streams + geo.dies * gc_slots) as usize],
            next_die: (0..f.host_streams).map(|s| s % geo.dies).collect(),
            buffer: WriteBuffer::new(f.write_buffer_kib / (MAP_UNIT / 1024) as u32),
            volatile_buffer: f.write_buffer_volatile,
            victims: Victims::new(
                f.gc_policy,
                geo.dies,
                geo.blocks_per_die,
                geo.units_per_block,
                Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15),
            ),
            gc_min_free: f.gc_min_free_blocks as usize,
            bg_target: f.bg_gc_target_free_blocks as usize,
            in_gc: false,
            greedy: f.gc_policy == crate::profile::GcPolicy::Greedy,
            map: (f.map_cache_kib > 0).then(|| {
                let t_prog = if f.slc_cache_mib > 0 { f.slc_t_prog_us } else { profile.nand.t_prog_us };
                MapCache::new(logical, f.map_cache_kib / 4, crate::nand::us(t_prog), f.map_writeback)
            }),
            slc_capacity: u64::from(f.slc_cache_mib) * 256,
            slc_used: 0,
            slc_prog: crate::nand::us(f.slc_t_prog_us),
            job_victim: vec![NIL; geo.dies as usize],
            job_page: vec![0; geo.dies as usize],
            jobs: 0,
            pages_per_command: profile.gc_pages_per_command(),
            busy_ceiling: crate::nand::us(profile.busy_ceiling_ms() * 1000.0),
            page_cost: {
                let t = NandTiming::from_profile(profile);
                t.t_read + t.t_prog + 2 * u64::from(geo.units_per_page) * t.unit_xfer
            },
            pace: pacing::Pacing::new(geo.dies, f.gc_min_free_blocks),
            detector: (f.temperature == TemperatureMode::Detect
                || (f.temperature == TemperatureMode::Hint && f.gc_by_temperature))
                .then(|| Detector::new(logical)),
            gc_split: f.gc_by_temperature,
            gc_slots,
            fdp: profile.fdp.as_ref().map(|c| Box::new(fdp::Fdp::new(c, logical))),
            detect: f.temperature == TemperatureMode::Detect,
            counters: Counters::default(),
        }
    }

    /// Host unit writes the temperature detector classified (hot, cold); `None` without one.
    fn temperature_split(&self) -> Option<(u64, u64)> {
        self.detector.as_ref().filter(|_| self.detect).map(|d| (d.hot_writes, d.cold_writes))
    }

    /// Keep a tag per physical unit so that tests can check what every read returns.
    fn track_content(&mut self) {
        if self.tags.is_none() {
            self.tags = Some(vec![0; self.p2l.len()]);
        }
    }

    fn logical_units(&self) -> u32 {
        self.logical_units
    }

    #[inline]
    fn locate(&self, lpn: u32) -> Location {
        match self.l2p[lpn as usize] {
            UNMAPPED => Location::Unmapped,
            v if v & BUFFERED != 0 => Location::Buffered,
            ppa => Location::Nand(ppa),
        }
    }

    /// Ask the CPU to fetch `lpn`'s mapping entry: a request's first unit is a cache miss in a
    /// table of tens of MiB, which can overlap the host-interface bookkeeping before it.
    #[inline]
    fn prefetch_mapping(&self, lpn: u32) {
        prefetch(&self.l2p, lpn as usize);
    }

    /// Second step of a prefetch: with `lpn`'s mapping entry already in cache (fetched by
    /// [`Ftl::prefetch_mapping`] a while ago), fetch the reverse-map entry of its place on NAND,
    /// which a write of `lpn` invalidates. Only a hint; it reads but changes nothing.
    #[inline]
    fn prefetch_location(&self, lpn: u32) {
        if let Some(&v) = self.l2p.get(lpn as usize) {
            // UNMAPPED has the BUFFERED bit too.
            if v & BUFFERED == 0 {
                self.p2l.prefetch(v as usize);
            }
        }
    }

    /// The tag of the data a read of `lpn` returns; `None` means zeros (never written or trimmed).
    fn peek(&self, lpn: u32) -> Option<u64> {
        let tags = self.tags.as_ref().expect("content tracking is off");
        match self.l2p[lpn as usize] {
            UNMAPPED => None,
            v if v & BUFFERED != 0 => Some(buffered_tag(&self.open, v)),
            ppa => Some(tags[ppa as usize]),
        }
    }

    #[inline]
    fn invalidate(&mut self, ppa: u32) {
        hot_assert!((ppa as usize) < self.p2l.len(), "mapping entry {ppa} past the device's physical units");
        hot_assert!(self.p2l.get(ppa as usize) != INVALID, "invalidating ppa {ppa}, which holds no valid unit");
        self.p2l.set(ppa as usize, INVALID);
        let b = self.geo.block_of(ppa);
        let old = self.valid[b as usize];
        hot_assert!(old > 0, "block {b}'s valid count would go below 0 (invalidating ppa {ppa})");
        self.valid[b as usize] = old - 1;
        self.die_valid[self.geo.die_of_block(b) as usize] -= 1;
        if self.state[b as usize] == BlockState::Closed {
            self.victims.update(b, old, old - 1);
        }
    }

    /// With a mapping cache, make `lpn`'s entry present at `at`; returns when it is.
    #[inline]
    fn map_access(&mut self, lpn: u32, write: bool, at: Ns) -> Ns {
        let Ftl { map, nand, counters, .. } = self;
        match map {
            None => at,
            Some(m) => m.access(lpn, write, at, nand, counters),
        }
    }

    /// Put a unit into open page `op`; returns true when the page is full.
    #[inline]
    fn append(&mut self, op: usize, lpn: u32, tag: u64, ready: Ns) -> bool {
        let slot = self.open[op].push(lpn, tag, ready);
        self.l2p[lpn as usize] = BUFFERED | (op * MAX_UPP + slot) as u32;
        self.open[op].len == self.geo.units_per_page
    }

    /// A host write of one unit whose data is in the controller at `at`; returns when the
    /// buffer has accepted it.
    #[inline]
    fn write_unit(&mut self, lpn: u32, stream: u32, at: Ns, tag: u64) -> Ns {
        self.counters.host_units_written += 1;
        let stream = match &mut self.detector {
            Some(d) if self.detect => d.classify(lpn),
            Some(d) => {
                d.remember(lpn, stream);
                stream
            }
            None => stream,
        };
        let mut cur = self.l2p[lpn as usize];
        if self.fdp.is_some() {
            cur = self.fdp_host_unit(lpn, stream, cur);
        }
        if cur != UNMAPPED && cur & BUFFERED != 0 {
            // Still in controller RAM: the new data replaces it there.
            let i = (cur & !BUFFERED) as usize;
            self.open[i / MAX_UPP].tag[i % MAX_UPP] = tag;
            self.counters.buffer_coalesced_units += 1;
            return at;
        }
        let at = self.map_access(lpn, true, at);
        if cur != UNMAPPED {
            self.invalidate(cur);
        }
        let t = self.buffer.acquire(at);
        let op = stream as usize;
        if self.append(op, lpn, tag, t) {
            let die = self.next_die[op];
            self.next_die[op] = if die + 1 == self.geo.dies { 0 } else { die + 1 };
            self.program_open(op, die, stream, t);
        }
        t
    }

    /// Unmap one unit (TRIM): it reads as zeros and GC never copies it.
    #[inline]
    fn trim_unit(&mut self, lpn: u32) {
        let cur = self.l2p[lpn as usize];
        if cur == UNMAPPED {
            return;
        }
        if cur & BUFFERED != 0 {
            let i = (cur & !BUFFERED) as usize;
            self.open[i / MAX_UPP].lpn[i % MAX_UPP] = INVALID;
        } else {
            self.invalidate(cur);
        }
        self.l2p[lpn as usize] = UNMAPPED;
    }

    /// Read `n` units from `lpn` starting at `at`. Calls `chunk(ready, units)` for each piece
    /// as it reaches the controller: one NAND page read per run of units in the same page;
    /// unmapped and buffered units are ready at once.
    #[inline]
    fn read_units(&mut self, lpn: u32, n: u32, at: Ns, mut chunk: impl FnMut(Ns, u32)) {
        let mut at = at;
        if self.map.is_some() {
            // One lookup per translation page the request spans.
            let mut l = lpn;
            while l < lpn + n {
                at = at.max(self.map_access(l, false, at));
                l = (l / crate::mapcache::ENTRIES_PER_TPAGE + 1) * crate::mapcache::ENTRIES_PER_TPAGE;
            }
        }
        let upp = self.geo.units_per_page;
        let mut i = 0;
        while i < n {
            let cur = self.l2p[(lpn + i) as usize];
            if cur == UNMAPPED || cur & BUFFERED != 0 {
                chunk(at, 1);
                i += 1;
                continue;
            }
            let page = cur / upp;
            let mut k = 1;
            while i + k < n {
                let next = self.l2p[(lpn + i + k) as usize];
                if next == UNMAPPED || next & BUFFERED != 0 || next / upp != page {
                    break;
                }
                k += 1;
            }
            let die = self.geo.die_of_block(self.geo.block_of(cur));
            let ready = self.nand.read(die, at, k);
            self.counters.nand_page_reads += 1;
            chunk(ready, k);
            i += k;
        }
    }

    /// Program open page `op` on `die` through frontier `frontier`; returns when it completes.
    fn program_open(&mut self, op: usize, die: u32, frontier: u32, at: Ns) -> Ns {
        let start = at.max(self.open[op].ready);
        // A host page goes to the next die that can take it; GC copies go where `gc_target` chose.
        let mut die = die;
        let mut tries = 0;
        let (block, page) = loop {
            if let Some(got) = self.alloc_page(die, frontier, start) {
                break got;
            }
            tries += 1;
            assert!(
                op < self.host_streams as usize && tries < self.geo.dies,
                "no die can take a page: every die is full of valid data (profile validation should prevent this)"
            );
            die = if die + 1 == self.geo.dies { 0 } else { die + 1 };
        };
        let upp = self.geo.units_per_page;
        // Host pages go to the SLC cache while it has room: a faster program.
        let done = if op < self.host_streams as usize && self.slc_used + u64::from(upp) <= self.slc_capacity {
            self.slc_used += u64::from(upp);
            self.counters.slc_units_written += u64::from(upp);
            self.nand.program_for(die, start, self.slc_prog)
        } else {
            // Lower and upper pages program at different speeds where the part says so.
            let t_prog = self.nand.timing.t_prog_of_page(page);
            self.nand.program_for(die, start, t_prog)
        };
        self.counters.nand_page_programs += 1;
        self.counters.nand_units_programmed += u64::from(upp);
        let base = block * self.geo.units_per_block + page * upp;
        // The reverse-map entries of this block's later pages: each program reads and rewrites
        // its page's packed entries, a miss when the block's part of the table left the cache
        // since its last erase.
        let ahead = base + PROGRAM_PREFETCH;
        if ahead < (block + 1) * self.geo.units_per_block {
            self.p2l.prefetch(ahead as usize);
        }
        let len = self.open[op].len;
        let open = &self.open[op];
        // A slice: its pointer and length stay in registers across the stores below (through
        // the `Vec`, each store could change them, so each index reloads both).
        let l2p = &mut self.l2p[..];
        // Slots from `len` on hold INVALID (an open page is cleared whole), and so do the
        // slots of buffered units trimmed meanwhile: the page's reverse-map entries are its
        // slots as they are, written at once.
        debug_assert!(open.lpn[len as usize..].iter().all(|&l| l == INVALID));
        self.p2l.set_run(base as usize, &open.lpn[..upp as usize]);
        let mut programmed = 0;
        for (ppa, &lpn) in (base..).zip(&open.lpn[..upp as usize]) {
            if lpn != INVALID {
                l2p[lpn as usize] = ppa;
                programmed += 1;
            }
        }
        self.valid[block as usize] += programmed;
        self.die_valid[die as usize] += u64::from(programmed);
        if let Some(tags) = &mut self.tags {
            for s in 0..len as usize {
                if open.lpn[s] != INVALID {
                    tags[base as usize + s] = open.tag[s];
                }
            }
        }
        if op < self.host_streams as usize {
            self.buffer.release_at(done, len);
        }
        if self.fdp.is_some() {
            self.fdp_programmed(op);
        }
        self.open[op].clear();
        if self.next_page[block as usize] == self.geo.pages_per_block {
            self.state[block as usize] = BlockState::Closed;
            self.victims.insert(block, self.valid[block as usize], self.counters.host_units_written);
            self.active[(die * self.frontiers + frontier) as usize] = NIL;
        }
        done
    }

    /// Next page of the open block of (`die`, `frontier`), opening a block if needed. A host
    /// frontier that needs a block first runs foreground GC while the die is short of free
    /// blocks; GC's own frontier draws on the reserve.
    fn alloc_page(&mut self, die: u32, frontier: u32, at: Ns) -> Option<(u32, u32)> {
        let ai = (die * self.frontiers + frontier) as usize;
        if self.active[ai] == NIL {
            let mut stuck = false;
            if !self.in_gc {
                // Every victim frees a block, but FIFO or random victims can be full of valid
                // data and gain nothing; after a die's worth of such rounds, GC takes the
                // victim with the fewest valid units. When even that one is full of valid data
                // (the host's overwrites all hit other dies), this die is stuck for now.
                let mut rounds = 0;
                if self.free[die as usize].len() <= self.gc_min_free && self.job_victim[die as usize] != NIL {
                    // The paced GC fell behind: this command finishes the victim.
                    self.finish_job(die, at, false);
                }
                while self.free[die as usize].len() <= self.gc_min_free {
                    let fallback = rounds >= self.geo.blocks_per_die;
                    if !self.gc_one(die, at, false, fallback) {
                        stuck = true;
                        break;
                    }
                    rounds += 1;
                }
            }
            // GC sharing this frontier may have opened a block meanwhile.
            if self.active[ai] == NIL {
                // A stuck die keeps its last free block for GC's own copies.
                if stuck && self.free[die as usize].len() < 2 {
                    return None;
                }
                let b = self.free[die as usize].pop_front().unwrap_or_else(|| {
                    panic!(
                        "die {die} has no free block: FTL reserve exhausted (profile validation should prevent this)"
                    )
                });
                hot_assert!(
                    self.state[b as usize] == BlockState::Free && self.valid[b as usize] == 0,
                    "die {die}'s free list gave block {b} in state {:?} with {} valid units",
                    self.state[b as usize],
                    self.valid[b as usize]
                );
                self.state[b as usize] = BlockState::Open;
                self.next_page[b as usize] = 0;
                self.active[ai] = b;
                // One more block taken and the die is down to its last spare one: start
                // cleaning a victim, a few pages per host command, before the die runs out.
                if !self.in_gc && self.free[die as usize].len() <= self.pace.zone {
                    self.arm_paced(die);
                }
            }
        }
        let b = self.active[ai];
        let p = self.next_page[b as usize];
        hot_assert!(p < self.geo.pages_per_block, "block {b}'s write pointer {p} is past its last page");
        self.next_page[b as usize] = p + 1;
        Some((b, p))
    }

    /// Clean one victim block on `die`, starting no earlier than `at`, chosen by the policy or,
    /// with `fewest_valid`, the one with the fewest valid units. Background GC declines a victim
    /// with no invalid data. Returns false when there was nothing to clean.
    fn gc_one(&mut self, die: u32, at: Ns, background: bool, fewest_valid: bool) -> bool {
        let Some(v) = self.choose_victim(die, background || fewest_valid || self.greedy, fewest_valid) else {
            return false;
        };
        self.in_gc = true;
        for page in 0..self.geo.pages_per_block {
            if self.valid[v as usize] == 0 {
                break;
            }
            self.gc_copy_page(die, v, page, at);
        }
        self.finish_victim(die, v, at, background);
        self.in_gc = false;
        true
    }

    /// Take a victim on `die` out of the index and mark it; with `decline_full`, a victim full
    /// of valid data (which gains nothing) is put back and `None` returned.
    fn choose_victim(&mut self, die: u32, decline_full: bool, fewest_valid: bool) -> Option<u32> {
        let clock = self.counters.host_units_written;
        let v = if fewest_valid {
            self.victims.select_fewest_valid(die, &self.valid)
        } else {
            self.victims.select(die, &self.valid, clock)
        }?;
        let upb = self.geo.units_per_block;
        if decline_full && self.valid[v as usize] == upb {
            self.victims.put_back(v, upb);
            return None;
        }
        self.state[v as usize] = BlockState::Victim;
        self.gc_to[die as usize] = self.gc_target(die);
        Some(v)
    }

    /// GC's read of a victim page on `die` holding `live` valid units, the first step of every
    /// copy (counted as one NAND page read); returns when the read completes.
    #[inline(always)]
    pub(super) fn gc_read(&mut self, die: u32, at: Ns, live: u32) -> Ns {
        let ready = self.nand.read(die, at, live);
        self.counters.nand_page_reads += 1;
        ready
    }

    /// Copy the valid units of page `page` of victim `v` on `die` into GC's open page,
    /// programming it whenever it fills; returns when the last of it is done (`at` if the
    /// page held nothing).
    fn gc_copy_page(&mut self, die: u32, v: u32, page: u32, at: Ns) -> Ns {
        let mut lpns = [INVALID; MAX_UPP];
        let (base, live) = self.victim_page(v, page, &mut lpns);
        if live == 0 {
            return at;
        }
        let to = self.gc_destination(die);
        self.gc_copy_read(die, v, base, &lpns, live, to, at)
    }

    /// Copy a victim page that [`Ftl::victim_page`] read (`live` valid units `lpns` from unit
    /// `base`): by temperature when GC splits its frontier ([`Ftl::gc_copy_page_split`]), else
    /// into GC's open page, programmed on die `to` ([`Ftl::gc_copy_live`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn gc_copy_read(&mut self, die: u32, v: u32, base: u32, lpns: &[u32; MAX_UPP], live: u32, to: u32, at: Ns) -> Ns {
        if self.gc_split {
            self.gc_copy_page_split(die, v, base, live, at)
        } else if self.fdp.is_some() {
            self.gc_copy_page_fdp(die, v, base, live, at)
        } else {
            self.gc_copy_live(die, v, base, lpns, live, to, at)
        }
    }

    /// The logical units of page `page` of victim `v`, read from the reverse map once, into
    /// `lpns` (`INVALID` where a unit holds nothing valid). Returns the page's first unit and
    /// how many of its units are valid.
    #[inline(always)]
    fn victim_page(&self, v: u32, page: u32, lpns: &mut [u32; MAX_UPP]) -> (u32, u32) {
        let upp = self.geo.units_per_page;
        let base = v * self.geo.units_per_block + page * upp;
        let live = self.p2l.get_run(base as usize, &mut lpns[..upp as usize]);
        (base, live)
    }

    /// [`Ftl::gc_copy_page`] of a page whose `live` valid units `lpns` ([`Ftl::victim_page`])
    /// start at unit `base`, GC's open page going to die `to` when it fills (the one
    /// [`Ftl::gc_destination`] chooses: nothing between the choice and the program changes it,
    /// and a page's units fill the open page at most once). Reads the page (one NAND page
    /// read), then moves each valid unit into the open page (the mapping then points into it
    /// until it is programmed), and forgets the page's old places together at the end.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn gc_copy_live(&mut self, die: u32, v: u32, base: u32, lpns: &[u32; MAX_UPP], live: u32, to: u32, at: Ns) -> Ns {
        let ready = self.gc_read(die, at, live);
        let upp = self.geo.units_per_page;
        let gc_op = (self.host_streams + die) as usize;
        let end = (v + 1) * self.geo.units_per_block;
        let mut done = ready;
        for (ppa, &lpn) in (base..).zip(&lpns[..upp as usize]) {
            if lpn == INVALID {
                continue;
            }
            let ahead = ppa + GC_PREFETCH;
            if ahead < end {
                let next = self.p2l.get(ahead as usize);
                if next != INVALID {
                    prefetch(&self.l2p, next as usize);
                }
            }
            let tag = self.tags.as_ref().map_or(0, |t| t[ppa as usize]);
            let gc_page = &mut self.open[gc_op];
            let slot = gc_page.len as usize;
            gc_page.lpn[slot] = lpn;
            gc_page.tag[slot] = tag;
            gc_page.len += 1;
            gc_page.ready = gc_page.ready.max(ready);
            let full = gc_page.len == upp;
            self.l2p[lpn as usize] = BUFFERED | (gc_op * MAX_UPP + slot) as u32;
            hot_assert!(self.valid[v as usize] > 0, "victim {v}'s valid count would go below 0 (copying lpn {lpn})");
            self.valid[v as usize] -= 1;
            self.die_valid[die as usize] -= 1;
            self.counters.gc_units_copied += 1;
            if full {
                done = done.max(self.gc_program_to(gc_op, die, to, self.gc_frontier, ready));
            }
        }
        self.p2l.clear_run(base as usize, (base + upp) as usize);
        done
    }

    /// Program GC's open page `op`, filled from `die`'s victim, through `frontier` on the die
    /// `gc_destination` chooses. When that is another die and the page opened a block that
    /// left it inside its pacing zone, its paced cleaning is armed: otherwise the next host
    /// block on it would find it at its minimum and clean a whole victim in one command.
    pub(super) fn gc_program(&mut self, op: usize, die: u32, frontier: u32, ready: Ns) -> Ns {
        let to = self.gc_destination(die);
        self.gc_program_to(op, die, to, frontier, ready)
    }

    /// [`Ftl::gc_program`] on die `to`, [`Ftl::gc_destination`]'s choice for `die`.
    #[inline]
    fn gc_program_to(&mut self, op: usize, die: u32, to: u32, frontier: u32, ready: Ns) -> Ns {
        let done = self.program_open(op, to, frontier, ready);
        if to != die && self.free[to as usize].len() <= self.pace.zone {
            self.arm_paced(to);
        }
        done
    }

    /// The die the next GC page copied from `die`'s victim is programmed on: the one chosen with
    /// the victim (`gc_target`), while it can still take the page without going below its
    /// reserve, else `die` itself. A block it opens there that leaves that die in its pacing
    /// zone arms the die's own paced cleaning ([`Ftl::gc_program`]), as a host block would.
    #[inline]
    fn gc_destination(&self, die: u32) -> u32 {
        let to = self.gc_to[die as usize];
        if to == die || self.takes_gc_page(to) {
            to
        } else {
            die
        }
    }

    /// `die` can take a GC page from another die without going below its reserve: it has a
    /// free block beyond it, or room in its GC block.
    #[inline]
    fn takes_gc_page(&self, die: u32) -> bool {
        self.free[die as usize].len() > self.gc_min_free || self.gc_room(die)
    }

    /// The die the GC pages copied from a victim on `die` are programmed on: its own die, unless
    /// another die that can take the page without going below its reserve holds at least its
    /// pacing zone plus one block's worth of valid units fewer (then the one holding the fewest).
    ///
    /// Host pages are striped over the dies in turn, so a periodic write pattern can alias with
    /// the die count: an fsync-per-write load whose every fsync pads two pages (the data and
    /// journal page at the preflush, the commit block's at the post-flush) sends all of its
    /// long-lived data to every other die of four. With copies kept on their die, those dies
    /// fill with valid data while the others hold nothing but stale journal pages, and their
    /// victims end up nearly full (`pixel-2016`'s fill: WAF 9.4 and two-second writes from
    /// 60 %). Controllers clean superblocks that span the dies and write the copies across
    /// them, so no die fills alone; this keeps the model's per-die cleaning and moves copies
    /// only once a die is out of balance by more than its pacing reserve (`zone` + 1 blocks),
    /// which a balanced load never reaches (the completion digests are unchanged).
    #[inline]
    fn gc_target(&self, die: u32) -> u32 {
        let margin = (self.pace.zone as u64 + 1) * u64::from(self.geo.units_per_block);
        let mut best = die;
        let mut least = self.die_valid[die as usize].saturating_sub(margin);
        for d in 0..self.geo.dies {
            let n = self.die_valid[d as usize];
            if n < least && self.takes_gc_page(d) {
                best = d;
                least = n;
            }
        }
        best
    }

    /// Victim `v` on `die` holds no valid data any more: erase it and return it to the free list.
    fn finish_victim(&mut self, die: u32, v: u32, at: Ns, background: bool) -> Ns {
        hot_assert!(
            self.valid[v as usize] == 0,
            "erasing victim {v}, which still counts {} valid units",
            self.valid[v as usize]
        );
        let done = self.nand.erase(die, at);
        self.erase_count[v as usize] += 1;
        self.state[v as usize] = BlockState::Free;
        self.next_page[v as usize] = 0;
        self.free[die as usize].push_back(v);
        self.counters.erases += 1;
        if background {
            self.counters.gc_victims_background += 1;
        } else {
            self.counters.gc_victims_foreground += 1;
        }
        done
    }

    /// Choose the victim that `die`'s incremental GC cleans next: the one the forced path
    /// (`gc_one`) would take. Only greedy declines a victim full of valid data (then every
    /// candidate is; the forced path decides); declining one under random or FIFO would redraw
    /// until a block with invalid data came up, another policy with less write amplification
    /// than the one the profile names.
    fn start_job(&mut self, die: u32) {
        if self.job_victim[die as usize] != NIL {
            return;
        }
        if let Some(v) = self.choose_victim(die, self.greedy, false) {
            self.job_victim[die as usize] = v;
            self.job_page[die as usize] = 0;
            self.jobs += 1;
        }
    }

    /// Up to `pages` steps of `die`'s incremental GC from `at`, none starting a page that would
    /// end past `deadline`; the victim is erased once empty. Returns (end, pages copied).
    ///
    /// Paced steps (`paced`) leave the die's last free block alone: the foreground path may need
    /// it to finish the victim, since the victim's copies take space before it frees any.
    ///
    /// `lpns` is scratch for a page's logical units ([`Ftl::victim_page`] sets the page's
    /// entries before they are read): the caller's, so that a command paying several dies
    /// fills it once, not once a die.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn advance(
        &mut self,
        die: u32,
        at: Ns,
        pages: u64,
        deadline: Ns,
        background: bool,
        paced: bool,
        lpns: &mut [u32; MAX_UPP],
    ) -> (Ns, u64) {
        let mut end = at;
        let mut copied = 0;
        self.in_gc = true;
        while copied < pages {
            let v = self.job_victim[die as usize];
            if v == NIL {
                break;
            }
            let page = self.job_page[die as usize];
            if page == self.geo.pages_per_block || self.valid[v as usize] == 0 {
                // The erase keeps the die busy (later programs on it wait), not the command.
                self.finish_victim(die, v, end, background);
                self.job_victim[die as usize] = NIL;
                self.jobs -= 1;
                break;
            }
            if paced && self.free[die as usize].len() <= 1 && !self.gc_room(die) {
                break;
            }
            let (base, live) = self.victim_page(v, page, lpns);
            if live > 0 {
                // The copy reads on this die and programs where `gc_destination` sends it: both
                // dies' queued work counts against the ceiling.
                let to = self.gc_destination(die);
                if end.max(self.nand.die_free_at(die)).max(self.nand.die_free_at(to)) + self.page_cost > deadline {
                    break;
                }
                end = end.max(self.gc_copy_read(die, v, base, lpns, live, to, at));
                copied += 1;
            }
            self.job_page[die as usize] = page + 1;
        }
        self.in_gc = false;
        (end, copied)
    }

    /// Clean `die`'s victim to the end, whatever it costs; returns when done.
    fn finish_job(&mut self, die: u32, at: Ns, background: bool) -> Ns {
        let mut end = at;
        let mut lpns = [INVALID; MAX_UPP];
        while self.job_victim[die as usize] != NIL {
            end = end.max(self.advance(die, at, u64::MAX, Ns::MAX, background, false, &mut lpns).0);
        }
        end
    }

    /// The GC work a host write command of `units` units carries, starting at `at` for a
    /// command that started at `start`: on each die with a victim in progress, the page copies
    /// it owes at the victim's pace ([`pacing`]), at most the profile's pages per command in
    /// all and never past the busy-time ceiling. Returns when it is done.
    #[inline]
    fn command_gc(&mut self, start: Ns, at: Ns, units: u32) -> Ns {
        if self.jobs == 0 && self.pace.n_armed == 0 {
            return at;
        }
        self.paced_gc(start, at, units)
    }

    /// Write the host data in controller RAM to NAND (partial pages are padded); returns when
    /// all of it, and every program already in flight, has completed. A power-loss-protected
    /// buffer needs no draining. Pages GC is assembling are not padded: their data is still in
    /// the victim block, so no host write depends on them — and padding them at every flush
    /// made GC consume more pages than it freed under an fsync-per-write load until no die had
    /// a free page left (a panic on a full device).
    fn flush(&mut self, at: Ns) -> Ns {
        if !self.volatile_buffer {
            return at;
        }
        // Everything already sent to NAND, host pages and GC copies, must have landed: a die is
        // free only after every program booked on it.
        let mut done = at;
        for die in 0..self.geo.dies {
            done = done.max(self.nand.die_free_at(die));
        }
        for s in 0..self.host_streams as usize {
            if self.open[s].len > 0 {
                let die = self.next_die[s];
                self.next_die[s] = if die + 1 == self.geo.dies { 0 } else { die + 1 };
                done = done.max(self.program_open(s, die, s as u32, at));
            }
        }
        done
    }

    /// Background GC in an idle window: each die whose NAND is free before `until` cleans
    /// victims until it has the target number of free blocks. An operation that starts inside
    /// the window runs to completion even past it (NAND operations are not preempted).
    fn background(&mut self, from: Ns, until: Ns) {
        for die in 0..self.geo.dies {
            let t = self.nand.die_free_at(die).max(from);
            if self.job_victim[die as usize] != NIL && t < until && self.free[die as usize].len() < self.bg_target {
                self.finish_job(die, t, true);
            }
            while self.free[die as usize].len() < self.bg_target {
                let t = self.nand.die_free_at(die).max(from);
                if t >= until || !self.gc_one(die, t, true, false) {
                    break;
                }
            }
        }
        self.fold_slc(from, until);
    }

    /// Idle time: fold the SLC cache into the main area, a page at a time on each die whose
    /// NAND is free before `until`: read it, program it in the main (TLC) mode. The data keeps
    /// its mapping (the cache is accounted in capacity and time, not as separate blocks).
    fn fold_slc(&mut self, from: Ns, until: Ns) {
        let upp = u64::from(self.geo.units_per_page);
        let mut die = 0;
        let mut idle_dies = 0;
        while self.slc_used > 0 && idle_dies < self.geo.dies {
            let t = self.nand.die_free_at(die).max(from);
            if t >= until {
                idle_dies += 1;
            } else {
                idle_dies = 0;
                let r = self.nand.read(die, t, self.geo.units_per_page);
                self.nand.program(die, r);
                let n = upp.min(self.slc_used);
                self.slc_used -= n;
                self.counters.slc_units_folded += n;
                self.counters.nand_page_reads += 1;
                self.counters.nand_page_programs += 1;
                self.counters.nand_units_programmed += upp;
            }
            die = if die + 1 == self.geo.dies { 0 } else { die + 1 };
        }
    }

    fn state(&self) -> DeviceState {
        DeviceState {
            free_blocks: self.free.iter().map(|f| f.len() as u64).sum(),
            total_blocks: u64::from(self.geo.blocks()),
            valid_units: self.valid.iter().map(|&v| u64::from(v)).sum(),
            logical_units: u64::from(self.logical_units),
            physical_units: self.geo.physical_units(),
            slc_cached_units: self.slc_used,
            wear: Wear::of(&self.erase_count),
        }
    }

    /// Bytes of heap the FTL holds for its mapping and bookkeeping (the flat arrays, free
    /// lists, victim index and, when on, content tags), for the memory budget of issue 2.
    fn memory_bytes(&self) -> u64 {
        let free: u64 = self.free.iter().map(|f| (f.capacity() * 4) as u64).sum::<u64>() + heap_bytes(&self.free);
        heap_bytes(&self.l2p)
            + self.p2l.memory_bytes()
            + self.tags.as_ref().map_or(0, heap_bytes)
            + heap_bytes(&self.valid)
            + heap_bytes(&self.erase_count)
            + heap_bytes(&self.state)
            + heap_bytes(&self.next_page)
            + free
            + heap_bytes(&self.active)
            + heap_bytes(&self.open)
            + heap_bytes(&self.next_die)
            + heap_bytes(&self.die_valid)
            + heap_bytes(&self.gc_to)
            + heap_bytes(&self.job_victim)
            + heap_bytes(&self.job_page)
            + self.pace.memory_bytes()
            + self.victims.memory_bytes()
            + self.buffer.memory_bytes()
            + self.map.as_ref().map_or(0, MapCache::memory_bytes)
            + self.detector.as_ref().map_or(0, Detector::memory_bytes)
            + self.fdp.as_ref().map_or(0, |f| f.memory_bytes())
    }

    /// Check that the mapping, the valid counts and the free lists agree. For tests; O(size).
    fn check_invariants(&self) -> Result<(), Error> {
        let upb = self.geo.units_per_block;
        for (lpn, &v) in self.l2p.iter().enumerate() {
            if v == UNMAPPED {
                continue;
            }
            if v & BUFFERED != 0 {
                let i = (v & !BUFFERED) as usize;
                let (op, slot) = (i / MAX_UPP, i % MAX_UPP);
                if slot >= self.open[op].len as usize || self.open[op].lpn[slot] != lpn as u32 {
                    return Err(Error::Invariant(format!(
                        "lpn {lpn} points at open page {op} slot {slot}, which does not hold it"
                    )));
                }
            } else if self.p2l.get(v as usize) != lpn as u32 {
                return Err(Error::Invariant(format!(
                    "lpn {lpn} -> ppa {v}, but ppa {v} -> {}",
                    self.p2l.get(v as usize)
                )));
            }
        }
        let mut counted = vec![0u32; self.valid.len()];
        for ppa in 0..self.p2l.len() {
            let lpn = self.p2l.get(ppa);
            if lpn == INVALID {
                continue;
            }
            if self.l2p[lpn as usize] != ppa as u32 {
                return Err(Error::Invariant(format!(
                    "ppa {ppa} holds lpn {lpn}, a stale copy (lpn -> {})",
                    self.l2p[lpn as usize]
                )));
            }
            counted[ppa / upb as usize] += 1;
        }
        for (b, (&c, &v)) in counted.iter().zip(&self.valid).enumerate() {
            if c != v {
                return Err(Error::Invariant(format!("block {b}: valid count {v}, but {c} units map to it")));
            }
        }
        for die in 0..self.geo.dies {
            let (first, n) = (die * self.geo.blocks_per_die, self.geo.blocks_per_die);
            let sum: u64 = self.valid[first as usize..(first + n) as usize].iter().map(|&v| u64::from(v)).sum();
            if sum != self.die_valid[die as usize] {
                return Err(Error::Invariant(format!(
                    "die {die}: valid count {}, but its blocks hold {sum}",
                    self.die_valid[die as usize]
                )));
            }
        }
        let mut in_free = vec![false; self.valid.len()];
        for list in &self.free {
            for &b in list {
                if in_free[b as usize] || self.state[b as usize] != BlockState::Free || self.valid[b as usize] != 0 {
                    return Err(Error::Invariant(format!(
                        "free list holds block {b} in state {:?} with {} valid",
                        self.state[b as usize], self.valid[b as usize]
                    )));
                }
                in_free[b as usize] = true;
            }
        }
        let jobs = self.job_victim.iter().filter(|&&v| v != NIL).count();
        if jobs != self.jobs as usize {
            return Err(Error::Invariant(format!(
                "{} dies with a GC victim in progress, but the count says {}",
                jobs, self.jobs
            )));
        }
        self.check_fdp()?;
        for (b, s) in self.state.iter().enumerate() {
            if *s == BlockState::Free && !in_free[b] {
                return Err(Error::Invariant(format!("block {b} is free but in no free list")));
            }
            if *s == BlockState::Victim && !self.job_victim.contains(&(b as u32)) {
                return Err(Error::Invariant(format!("block {b} left in victim state")));
            }
        }
        Ok(())
    }
}
