//! The hybrid (log-block) FTL of cheap, DRAM-less eMMC and SD controllers, after FAST (Lee et
//! al., ACM TECS 2007): data blocks are mapped whole (logical block -> physical block, unit `i`
//! of a logical block lives at offset `i` of its data block), and new writes go to a few log
//! blocks that are mapped page by page:
//!
//! - one **sequential log** (SW) takes a run of writes that starts at offset 0 of a logical
//!   block; when it is complete it simply becomes the data block (a *switch merge*, no copy);
//!   when it must be closed early, the rest of the block is copied into it (a *partial merge*);
//! - `log_blocks` **random logs** (RW) take every other write, from any logical block. When
//!   they are all full, the oldest is merged: every logical block with a valid unit in it gets
//!   a *full merge*, all its live units gathered into a fresh block and the old data block
//!   erased. Merges copy only units that are mapped: data the host trimmed is not copied, data
//!   it deleted without trimming is.
//!
//! A random write over a large span therefore costs a share of many full-block copies, and that
//! share grows with the live data around it: the reason an old eMMC manages 100 random writes a
//! second, and far fewer once the device is full of untrimmed data. Idle time merges the random
//! logs in the background. Units are 4 KiB; a write is buffered in controller RAM until its
//! program unit (page x planes) is full, as in the page-mapped FTL.

mod area;
mod bounded;
mod bulk;
mod busy;
mod in_place;
mod spare;
mod stream;
mod translation;
mod written;

use crate::buffer::WriteBuffer;
use crate::counters::{Counters, DeviceState, Wear};
use crate::ftl::{buffered_tag, heap_bytes, Location, OpenPage, BUFFERED, INVALID, MAX_UPP, UNMAPPED};
use crate::nand::{Geometry, Nand, NandTiming};
use crate::profile::{Profile, SequentialLog, MAP_UNIT};
use crate::timeline::Ns;
use crate::Error;
use in_place::{PageMarks, CLOSING, CUR, SYNC};
use std::collections::VecDeque;
use written::WrittenPages;

/// `l2p` value of a unit whose latest copy is at its own offset in its data block.
const DATA: u32 = 0x4000_0000;
const NIL: u32 = u32::MAX;
/// Open page of the random logs and of the sequential log.
const RW: usize = 0;
const SW: usize = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Erased (or waiting to be erased, see `dirty`), in a free list.
    Free,
    /// The data block of a logical block.
    Data,
    /// A random or sequential log block.
    Log,
}

/// What [`HybridFtl::merge_page`] did.
enum MergePage {
    /// The page holds no unit: nothing to copy.
    Empty,
    /// It would end past the command's deadline: not started.
    Late,
    /// Programmed; done at this time.
    Done(Ns),
}

/// The sequential log: logical block `lblock`, written in order up to `next_off`.
#[derive(Debug, Clone, Copy)]
struct SeqLog {
    block: u32,
    lblock: u32,
    next_off: u32,
    next_page: u32,
    /// The logical block held mapped units past offset 0 when the log opened (`stream.rs`).
    tail_live: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct HybridFtl {
    geo: Geometry,
    nand: Nand,
    logical_units: u32,
    upb: u32,
    upp: u32,
    /// Per logical unit: UNMAPPED, DATA, BUFFERED | slot, or the physical unit in a log block.
    l2p: Vec<u32>,
    /// Per physical unit of a log block: the logical unit it holds, or INVALID.
    p2l: Vec<u32>,
    tags: Option<Vec<u64>>,
    /// Per logical block: its data block, or NIL.
    data: Vec<u32>,
    /// Per logical block: units whose latest copy is in the data block.
    data_live: Vec<u32>,
    kind: Vec<Kind>,
    /// Per log block: valid units.
    valid: Vec<u32>,
    /// Per free block: it still has to be erased before use.
    dirty: Vec<bool>,
    erase_count: Vec<u32>,
    free: Vec<VecDeque<u32>>,
    /// Next die a random log block is taken from.
    next_log_die: u32,
    /// Full random log blocks, oldest first.
    rw_full: VecDeque<u32>,
    rw_active: u32,
    rw_next_page: u32,
    sw: Option<SeqLog>,
    open: [OpenPage; 2],
    buffer: WriteBuffer,
    volatile_buffer: bool,
    log_blocks: usize,
    /// Most random logs while erased blocks beyond the spare area last (`area.rs`).
    max_log_blocks: usize,
    /// `ftl.sequential_log = "single-stream"`: any write elsewhere ends a run (`stream.rs`).
    single_stream: bool,
    /// The physical blocks beyond the logical ones.
    spare_blocks: usize,
    /// The random logs allowed now, `log_blocks` to `max_log_blocks` (`area.rs`); as many
    /// again may be taken from the free blocks while the paced merge catches up (`spare.rs`).
    area: usize,
    /// The random log being emptied a little per host command (NIL when none): the logical
    /// blocks with units in it when the job started, the next of them to merge, and per
    /// logical block the job that listed it (so each is listed once).
    job_victim: u32,
    job_lblocks: Vec<u32>,
    job_next: usize,
    job_mark: Vec<u32>,
    /// Per logical block listed by the job: its units the victim still holds (so that the
    /// merge need not scan the victim for each block).
    job_held: Vec<u32>,
    job_epoch: u32,
    /// The full merge in progress (NIL when none): logical block, destination, next page.
    cur_l: u32,
    cur_dst: u32,
    cur_page: u32,
    /// The sequential log being closed a few pages per command (partial merge; NIL when
    /// none): its logical block, its block, the next page to fill.
    cl_l: u32,
    cl_block: u32,
    cl_page: u32,
    /// Units of the sequential log's open page that closing copied in (not host writes: they
    /// hold no write-buffer slot).
    sw_extra: u32,
    /// Per merge (paced, closing, within one call): the destination's pages holding units
    /// placed with a reverse-map entry (`in_place.rs`).
    marks: [PageMarks; 3],
    /// Per logical page: ever written (`written.rs`).
    written: WrittenPages,
    /// Most merge pages one command carries, and the busy-time ceiling of a command.
    pages_per_command: u32,
    busy_ceiling: Ns,
    /// Conservative time of one merge page (read, transfer, program), to stop at the ceiling.
    page_cost: Ns,
    /// Start of the device's current busy period, and the part of the ceiling kept for the
    /// queued commands' own work (`busy.rs`).
    busy_since: Ns,
    busy_reserve: Ns,
    counters: Counters,
}

impl HybridFtl {
    pub(crate) fn new(profile: &Profile) -> HybridFtl {
        let geo = Geometry::from_profile(profile);
        let f = &profile.ftl;
        let blocks = geo.blocks();
        let upb = geo.units_per_block;
        let lblocks = profile.logical_units() / upb;
        let mut free = vec![VecDeque::new(); geo.dies as usize];
        for b in 0..blocks {
            free[geo.die_of_block(b) as usize].push_back(b);
        }
        HybridFtl {
            geo,
            nand: Nand::new(geo, NandTiming::from_profile(profile)),
            logical_units: lblocks * upb,
            upb,
            upp: geo.units_per_page,
            l2p: vec![UNMAPPED; (lblocks * upb) as usize],
            p2l: vec![INVALID; geo.physical_units() as usize],
            tags: None,
            data: vec![NIL; lblocks as usize],
            data_live: vec![0; lblocks as usize],
            kind: vec![Kind::Free; blocks as usize],
            valid: vec![0; blocks as usize],
            dirty: vec![false; blocks as usize],
            erase_count: vec![0; blocks as usize],
            free,
            next_log_die: 0,
            rw_full: VecDeque::new(),
            rw_active: NIL,
            rw_next_page: 0,
            sw: None,
            open: [OpenPage::new(), OpenPage::new()],
            buffer: WriteBuffer::new(f.write_buffer_kib / (MAP_UNIT / 1024) as u32),
            volatile_buffer: f.write_buffer_volatile,
            log_blocks: f.log_blocks as usize,
            max_log_blocks: area::max_logs(
                f.log_blocks as usize,
                f.max_log_blocks as usize,
                (blocks - lblocks) as usize,
            ),
            single_stream: f.sequential_log == SequentialLog::SingleStream,
            spare_blocks: (blocks - lblocks) as usize,
            area: f.log_blocks as usize,
            job_victim: NIL,
            job_lblocks: Vec::with_capacity(upb as usize),
            job_next: 0,
            job_mark: vec![0; lblocks as usize],
            job_held: vec![0; lblocks as usize],
            job_epoch: 0,
            cur_l: NIL,
            cur_dst: NIL,
            cur_page: 0,
            cl_l: NIL,
            cl_block: NIL,
            cl_page: 0,
            sw_extra: 0,
            marks: std::array::from_fn(|_| PageMarks::new(geo.pages_per_block)),
            written: WrittenPages::new(lblocks * geo.pages_per_block),
            pages_per_command: profile.gc_pages_per_command(),
            busy_ceiling: crate::nand::us(profile.busy_ceiling_ms() * 1000.0),
            page_cost: {
                let t = NandTiming::from_profile(profile);
                t.t_read + t.t_prog + 2 * u64::from(geo.units_per_page) * t.unit_xfer
            },
            busy_since: 0,
            // A fifth of the ceiling: room for a jbd2 commit's queued commands (journal writes
            // of up to 256 KiB, 18-21 ms each on nexus7-2012; two flushes of the open pages) and
            // the host's costs around the request. A tenth let such bursts wait 251-270 ms.
            busy_reserve: crate::nand::us(profile.busy_ceiling_ms() * 200.0),
            counters: Counters::default(),
        }
    }

    fn track_content(&mut self) {
        if self.tags.is_none() {
            self.tags = Some(vec![0; self.p2l.len()]);
        }
    }

    fn logical_units(&self) -> u32 {
        self.logical_units
    }

    #[inline]
    fn lblock(&self, lpn: u32) -> (u32, u32) {
        let l = self.geo.block_of(lpn);
        (l, lpn - l * self.upb)
    }

    /// The physical unit holding `lpn`'s latest copy on NAND, if it is on NAND.
    #[inline]
    fn ppa_of(&self, lpn: u32) -> Option<u32> {
        match self.l2p[lpn as usize] {
            UNMAPPED => None,
            v if v & BUFFERED != 0 => None,
            DATA => {
                let (l, off) = self.lblock(lpn);
                let moved = self.moved_to(l, off);
                let b = if moved == NIL { self.data[l as usize] } else { moved };
                Some(b * self.upb + off)
            }
            ppa => Some(ppa),
        }
    }

    fn locate(&self, lpn: u32) -> Location {
        match self.l2p[lpn as usize] {
            UNMAPPED => Location::Unmapped,
            v if v & BUFFERED != 0 => Location::Buffered,
            _ => Location::Nand(self.ppa_of(lpn).expect("on NAND")),
        }
    }

    fn peek(&self, lpn: u32) -> Option<u64> {
        let tags = self.tags.as_ref().expect("content tracking is off");
        match self.l2p[lpn as usize] {
            UNMAPPED => None,
            v if v & BUFFERED != 0 => Some(buffered_tag(&self.open, v)),
            _ => Some(tags[self.ppa_of(lpn).expect("on NAND") as usize]),
        }
    }

    /// Forget `lpn`'s current copy (it is being overwritten, trimmed, or moved by a merge).
    #[inline]
    fn drop_copy(&mut self, lpn: u32) {
        match self.l2p[lpn as usize] {
            UNMAPPED => {}
            v if v & BUFFERED != 0 => {
                let i = (v & !BUFFERED) as usize;
                self.open[i / MAX_UPP].lpn[i % MAX_UPP] = INVALID;
            }
            DATA => {
                let (l, off) = self.lblock(lpn);
                let moved = self.moved_to(l, off);
                if moved != NIL {
                    hot_assert!(
                        self.valid[moved as usize] > 0,
                        "block {moved}'s valid count would go below 0 (lpn {lpn})"
                    );
                    self.valid[moved as usize] -= 1;
                    self.l2p[lpn as usize] = UNMAPPED;
                    return;
                }
                hot_assert!(
                    self.data_live[l as usize] > 0,
                    "logical block {l}'s live count would go below 0 (lpn {lpn})"
                );
                self.data_live[l as usize] -= 1;
                if self.data_live[l as usize] == 0 {
                    let b = self.data[l as usize];
                    self.data[l as usize] = NIL;
                    self.release(b);
                }
            }
            ppa => {
                hot_assert!(
                    self.p2l[ppa as usize] == lpn,
                    "lpn {lpn} -> log unit {ppa}, which holds {}",
                    self.p2l[ppa as usize]
                );
                self.p2l[ppa as usize] = INVALID;
                let b = self.geo.block_of(ppa);
                hot_assert!(self.valid[b as usize] > 0, "block {b}'s valid count would go below 0 (lpn {lpn})");
                self.valid[b as usize] -= 1;
                if b == self.job_victim {
                    let (l, _) = self.lblock(lpn);
                    self.job_held[l as usize] -= 1;
                }
            }
        }
        self.l2p[lpn as usize] = UNMAPPED;
    }

    /// Return a block to its die's free list; it is erased when next taken.
    fn release(&mut self, b: u32) {
        self.kind[b as usize] = Kind::Free;
        self.valid[b as usize] = 0;
        self.dirty[b as usize] = true;
        self.free[self.geo.die_of_block(b) as usize].push_back(b);
    }

    /// Take a free block, preferably on `die`; returns it and when it is erased and ready.
    fn take_block(&mut self, die: u32, at: Ns, kind: Kind) -> (u32, Ns) {
        let dies = self.geo.dies;
        let d = (0..dies)
            .map(|i| (die + i) % dies)
            .find(|&d| !self.free[d as usize].is_empty())
            .expect("hybrid FTL has no free block: profile validation keeps log_blocks + 3 spare blocks");
        let b = self.free[d as usize].pop_front().expect("non-empty");
        hot_assert!(
            self.kind[b as usize] == Kind::Free,
            "die {d}'s free list gave block {b} of kind {:?}",
            self.kind[b as usize]
        );
        let mut ready = at;
        if self.dirty[b as usize] {
            ready = self.nand.erase(d, at);
            self.dirty[b as usize] = false;
            self.erase_count[b as usize] += 1;
            self.counters.erases += 1;
        }
        self.kind[b as usize] = kind;
        (b, ready)
    }

    /// Put a unit into open page `op`; returns true when the page is full.
    #[inline]
    fn append(&mut self, op: usize, lpn: u32, tag: u64, ready: Ns) -> bool {
        let slot = self.open[op].push(lpn, tag, ready);
        self.l2p[lpn as usize] = BUFFERED | (op * MAX_UPP + slot) as u32;
        self.open[op].len == self.upp
    }

    /// A host write of one unit whose data is in the controller at `at`; returns when the
    /// buffer has accepted it.
    fn write_unit(&mut self, lpn: u32, at: Ns, tag: u64) -> Ns {
        self.counters.host_units_written += 1;
        let cur = self.l2p[lpn as usize];
        if cur != UNMAPPED && cur & BUFFERED != 0 {
            let i = (cur & !BUFFERED) as usize;
            self.open[i / MAX_UPP].tag[i % MAX_UPP] = tag;
            self.counters.buffer_coalesced_units += 1;
            return at;
        }
        let (l, off) = self.lblock(lpn);
        self.written.set(lpn / self.upp);
        let mut at = at;
        let sequential = match self.sw {
            Some(s) if s.lblock == l && s.next_off == off => true,
            // A write at offset 0 opens a sequential run unless that needs merge work without
            // a bound (`bounded.rs`): then it is a random write like the others.
            _ if off == 0 && self.seq_log_can_open(l) => {
                if self.cur_l == l {
                    at = self.finish_cur(at);
                }
                if self.cl_l == l {
                    at = self.finish_closing(at);
                }
                // A new run over the same block: its partial merge cannot wait, since the new
                // log will become the block's data.
                let defer = self.sw.is_none_or(|s| s.lblock != l);
                at = self.close_sw_deferred(at, defer);
                let die = l % self.geo.dies;
                let (block, ready) = self.take_block(die, at, Kind::Log);
                at = ready.max(at);
                let tail_live = self.single_stream && self.live_from(l, 1);
                self.sw = Some(SeqLog { block, lblock: l, next_off: 0, next_page: 0, tail_live });
                true
            }
            _ => {
                at = self.end_run_elsewhere(l, off, at);
                false
            }
        };
        self.drop_copy(lpn);
        let t = self.buffer.acquire(at);
        if sequential {
            let s = self.sw.as_mut().expect("sequential log open");
            s.next_off += 1;
            let block_done = s.next_off == self.upb;
            if self.append(SW, lpn, tag, t) {
                self.program_sw(t);
                if block_done {
                    self.close_sw(t);
                }
            }
        } else if self.append(RW, lpn, tag, t) {
            self.program_rw(t);
        }
        t
    }

    /// Record the units of open page `op`, just programmed at physical unit `base`.
    fn place_open(&mut self, op: usize, base: u32, done: Ns, host_units: u32) -> u32 {
        let len = self.open[op].len;
        let mut placed = 0;
        for s in 0..len as usize {
            let lpn = self.open[op].lpn[s];
            if lpn == INVALID {
                continue;
            }
            let ppa = base + s as u32;
            self.p2l[ppa as usize] = lpn;
            self.l2p[lpn as usize] = ppa;
            if let Some(tags) = &mut self.tags {
                tags[ppa as usize] = self.open[op].tag[s];
            }
            placed += 1;
        }
        self.valid[self.geo.block_of(base) as usize] += placed;
        self.buffer.release_at(done, host_units);
        self.counters.nand_page_programs += 1;
        self.counters.nand_units_programmed += u64::from(self.upp);
        self.open[op].clear();
        placed
    }

    /// Program the random logs' open page, merging the oldest random log first when all of
    /// them are full.
    fn program_rw(&mut self, at: Ns) -> Ns {
        let mut start = at.max(self.open[RW].ready);
        if self.rw_active == NIL || self.rw_next_page == self.geo.pages_per_block {
            if self.rw_active != NIL {
                self.rw_full.push_back(self.rw_active);
                self.rw_active = NIL;
            }
            // The log space ran out before the paced merge finished: take a spare log and let
            // the merge catch up (`spare.rs`); only without one must this command finish it.
            if self.job_victim != NIL && !self.spare_log_room() {
                start = start.max(self.finish_job(start, false));
            }
            self.update_area();
            while self.job_victim == NIL && self.rw_full.len() >= self.area {
                let victim = self.rw_full.pop_front().expect("non-empty");
                if self.log_blocks >= 2 && self.spare_log_room() {
                    self.start_job(victim);
                    break;
                }
                start = start.max(self.merge_log(victim, start, false));
            }
            let die = self.next_log_die;
            self.next_log_die = (die + 1) % self.geo.dies;
            let (b, ready) = self.take_block(die, start, Kind::Log);
            self.rw_active = b;
            self.rw_next_page = 0;
            start = start.max(ready);
            // The new log is the last one allowed: start emptying the oldest, a little per
            // host command, so that it is free by the time this one is full.
            if self.job_victim == NIL && self.log_blocks >= 2 && self.rw_full.len() + 1 >= self.area {
                let victim = self.rw_full.pop_front().expect("non-empty");
                self.start_job(victim);
            }
        }
        if self.open[RW].len == 0 {
            // A merge took every unit of the page.
            return start;
        }
        let b = self.rw_active;
        let page = self.rw_next_page;
        hot_assert!(page < self.geo.pages_per_block, "random log {b}'s write pointer {page} is past its last page");
        self.rw_next_page += 1;
        let done = self.nand.program(self.geo.die_of_block(b), start);
        let len = self.open[RW].len;
        self.place_open(RW, b * self.upb + page * self.upp, done, len);
        done
    }

    /// Program the sequential log's open page at its next page (padding a partial page).
    fn program_sw(&mut self, at: Ns) -> Ns {
        let s = self.sw.expect("sequential log open");
        hot_assert!(
            s.next_page < self.geo.pages_per_block,
            "sequential log {}'s write pointer {} is past its last page",
            s.block,
            s.next_page
        );
        let start = at.max(self.open[SW].ready);
        let done = self.nand.program(self.geo.die_of_block(s.block), start);
        let host = self.open[SW].len - self.sw_extra;
        self.sw_extra = 0;
        self.place_open(SW, s.block * self.upb + s.next_page * self.upp, done, host);
        let s = self.sw.as_mut().expect("sequential log open");
        s.next_page += 1;
        // A padded page ends the run: later units of this page go to the random logs.
        s.next_off = s.next_page * self.upp;
        done
    }

    /// Read the units of logical block `l` that page `page` of its (new) data block will hold,
    /// starting at `at`; returns when they are all in the controller.
    fn gather(&mut self, l: u32, page: u32, at: Ns) -> (Ns, u32) {
        let base = l * self.upb + page * self.upp;
        let mut ready = at;
        let mut n = 0;
        let mut data_units = 0;
        for lpn in base..base + self.upp {
            match self.l2p[lpn as usize] {
                UNMAPPED => continue,
                v if v & BUFFERED != 0 => {}
                DATA => data_units += 1,
                ppa => {
                    let die = self.geo.die_of_block(self.geo.block_of(ppa));
                    ready = ready.max(self.nand.read(die, at, 1));
                    self.counters.nand_page_reads += 1;
                }
            }
            n += 1;
        }
        if data_units > 0 {
            let die = self.geo.die_of_block(self.data[l as usize]);
            ready = ready.max(self.nand.read(die, at, data_units));
            self.counters.nand_page_reads += 1;
        }
        (ready, n)
    }

    /// Move the units of page `page` of logical block `l` to physical page `dst_page` of
    /// `dst`, after a program completing at `done`. Units become `DATA` only later, when
    /// `dst` is installed as the data block; until then they are log units of `dst`: those
    /// from the data block keep their `DATA` entry (`in_place.rs`), the others are recorded
    /// with both entries and their page is marked.
    fn move_page(&mut self, l: u32, page: u32, dst: u32, done: Ns) {
        let base = l * self.upb + page * self.upp;
        let dst_base = dst * self.upb + page * self.upp;
        let marks = self.marks_of(l, dst);
        let mut marked = false;
        for i in 0..self.upp {
            let lpn = base + i;
            let tag = match self.l2p[lpn as usize] {
                UNMAPPED => continue,
                DATA => {
                    debug_assert_eq!(self.moved_to(l, page * self.upp + i), NIL, "a unit moved twice");
                    let old = self.data[l as usize];
                    if let Some(t) = &mut self.tags {
                        t[(dst_base + i) as usize] = t[(old * self.upb + page * self.upp + i) as usize];
                    }
                    self.data_live[l as usize] -= 1;
                    if self.data_live[l as usize] == 0 {
                        self.data[l as usize] = NIL;
                        self.release(old);
                    }
                    self.valid[dst as usize] += 1;
                    self.counters.gc_units_copied += 1;
                    continue;
                }
                v if v & BUFFERED != 0 => buffered_tag(&self.open, v),
                _ => self.tags.as_ref().map_or(0, |t| t[self.ppa_of(lpn).expect("on NAND") as usize]),
            };
            self.drop_copy(lpn);
            marked = true;
            let ppa = dst_base + i;
            self.p2l[ppa as usize] = lpn;
            self.l2p[lpn as usize] = ppa;
            self.valid[dst as usize] += 1;
            if let Some(t) = &mut self.tags {
                t[ppa as usize] = tag;
            }
            self.counters.gc_units_copied += 1;
        }
        if marked {
            self.marks[marks].set(page);
        }
        let _ = done;
        self.counters.nand_page_programs += 1;
        self.counters.nand_units_programmed += u64::from(self.upp);
    }

    /// Make `b` the data block of `l`: its valid units (at their own offsets) become `DATA`,
    /// and the old data block is released. Units the merge moved from the old data block are
    /// `DATA` already; the others are on the merge's marked pages (`in_place.rs`).
    fn install(&mut self, l: u32, b: u32) {
        let old = self.data[l as usize];
        if old != NIL {
            self.data[l as usize] = NIL;
            self.release(old);
        }
        let marks = self.marks_of(l, b);
        let mut pages = std::mem::take(&mut self.marks[marks]);
        for page in pages.pages() {
            for off in page * self.upp..(page + 1) * self.upp {
                let ppa = b * self.upb + off;
                let lpn = self.p2l[ppa as usize];
                if lpn != INVALID {
                    debug_assert_eq!(lpn, l * self.upb + off);
                    self.p2l[ppa as usize] = INVALID;
                    self.l2p[lpn as usize] = DATA;
                }
            }
        }
        pages.clear();
        self.marks[marks] = pages;
        let live = self.valid[b as usize];
        debug_assert!(
            (b * self.upb..(b + 1) * self.upb).all(|ppa| self.p2l[ppa as usize] == INVALID),
            "block {b} keeps a reverse-map entry its merge did not mark"
        );
        self.valid[b as usize] = 0;
        if live == 0 {
            self.release(b);
            return;
        }
        self.kind[b as usize] = Kind::Data;
        self.data[l as usize] = b;
        self.data_live[l as usize] = live;
    }

    /// Close the sequential log: complete its block from the latest copies (partial merge) and
    /// install it as the data block; or, when a unit it skipped still lives only in the old
    /// data block, fall back to a full merge. Returns when done.
    fn close_sw(&mut self, at: Ns) -> Ns {
        self.close_sw_deferred(at, false)
    }

    /// [`HybridFtl::close_sw`]; with `defer`, the partial merge's copies are left to the
    /// following commands ([`HybridFtl::command_gc`]) instead of this one.
    fn close_sw_deferred(&mut self, at: Ns, defer: bool) -> Ns {
        let Some(_) = self.sw else {
            return at;
        };
        let mut t = at;
        if self.open[SW].len > 0 {
            // Complete the open page from the block's other copies first (a read-modify-write
            // of one page), so that no unit of it is left behind in the old data block.
            self.fill_sw_page(t);
            t = self.program_sw(t);
        }
        let s = self.sw.take().expect("sequential log open");
        let l = s.lblock;
        // Units before `next_off` that the log does not hold and that are still only in the
        // old data block would be lost by installing the log.
        let stranded =
            (0..s.next_off).any(|off| self.l2p[(l * self.upb + off) as usize] == DATA && self.data[l as usize] != NIL);
        if stranded {
            // The log's units are ordinary log units: a full merge collects them, and the log
            // block is released once empty.
            let done = self.full_merge(l, t);
            if self.valid[s.block as usize] == 0 {
                self.release(s.block);
            }
            return done;
        }
        if defer && s.next_page < self.geo.pages_per_block {
            if self.cl_l != NIL {
                t = self.finish_closing(t);
            }
            self.cl_l = l;
            self.cl_block = s.block;
            self.cl_page = s.next_page;
            self.marks[CLOSING].clear();
            self.marks[CLOSING].set_below(s.next_page);
            return t;
        }
        self.marks[SYNC].clear();
        self.marks[SYNC].set_below(s.next_page);
        let mut done = t;
        for page in s.next_page..self.geo.pages_per_block {
            if let Some(d) = self.copy_page(l, page, s.block, t) {
                done = d;
            }
        }
        self.install(l, s.block);
        done
    }

    /// Fill the rest of the sequential log's open page with the latest copies of the units at
    /// those offsets (unmapped ones stay empty).
    fn fill_sw_page(&mut self, at: Ns) {
        let s = self.sw.expect("sequential log open");
        let first = s.lblock * self.upb + s.next_page * self.upp;
        let mut lpn = first + self.open[SW].len;
        while lpn < first + self.upp {
            let (tag, ready) = match self.l2p[lpn as usize] {
                UNMAPPED => {
                    self.open[SW].push(INVALID, 0, at);
                    self.sw_extra += 1;
                    lpn += 1;
                    continue;
                }
                v if v & BUFFERED != 0 => (buffered_tag(&self.open, v), at),
                _ => {
                    let ppa = self.ppa_of(lpn).expect("on NAND");
                    let tag = self.tags.as_ref().map_or(0, |t| t[ppa as usize]);
                    let die = self.geo.die_of_block(self.geo.block_of(ppa));
                    self.counters.nand_page_reads += 1;
                    (tag, self.nand.read(die, at, 1))
                }
            };
            self.drop_copy(lpn);
            self.append(SW, lpn, tag, ready);
            self.sw_extra += 1;
            self.counters.gc_units_copied += 1;
            lpn += 1;
        }
    }

    /// Gather every live unit of logical block `l` into a fresh block and install it.
    fn full_merge(&mut self, l: u32, at: Ns) -> Ns {
        let mut at = at;
        if self.cl_l == l {
            at = self.finish_closing(at);
        }
        if self.cur_l == l {
            // A paced merge of this block is under way: complete it, then merge only what
            // reached the logs since.
            at = self.finish_cur(at);
            if !self.has_log_units(l) {
                return at;
            }
        }
        if self.sw.is_some_and(|s| s.lblock == l) {
            // Closing the sequential log completes the block, except for units rewritten
            // after the log passed them: those are still in the random logs.
            at = self.close_sw(at);
            let range = (l * self.upb) as usize..((l + 1) * self.upb) as usize;
            if !self.l2p[range].iter().any(|&v| v != UNMAPPED && v != DATA && v & BUFFERED == 0) {
                return at;
            }
        }
        let (dst, ready) = self.take_block(l % self.geo.dies, at, Kind::Log);
        self.marks[SYNC].clear();
        let mut done = ready;
        for page in 0..self.geo.pages_per_block {
            if let Some(d) = self.copy_page(l, page, dst, ready) {
                done = d;
            }
        }
        self.install(l, dst);
        done
    }

    /// Merge random log block `victim`: a full merge of every logical block with a valid unit
    /// in it, then the block is released. Empty random logs are released on the way.
    fn merge_log(&mut self, victim: u32, at: Ns, background: bool) -> Ns {
        let mut done = at;
        let base = victim * self.upb;
        for ppa in base..base + self.upb {
            let lpn = self.p2l[ppa as usize];
            if lpn != INVALID {
                let (l, _) = self.lblock(lpn);
                done = done.max(self.full_merge(l, at));
            }
        }
        self.release_victim(victim, background);
        done
    }

    /// Random log `victim` is empty after its merges: release it, count it, and release any
    /// other random log the merges emptied.
    fn release_victim(&mut self, victim: u32, background: bool) {
        debug_assert_eq!(self.valid[victim as usize], 0);
        self.release(victim);
        self.shrink_area();
        if background {
            self.counters.gc_victims_background += 1;
        } else {
            self.counters.gc_victims_foreground += 1;
        }
        self.release_empty_logs();
    }

    /// Release the full random logs that merges emptied. Each gives a block back like a merged
    /// victim, so the area shrinks for it too while above its target (`hybrid/area.rs`; before
    /// session 32 only the victim counted, and an area that had to shrink kept every command
    /// merging for logs already gone).
    fn release_empty_logs(&mut self) {
        let mut i = 0;
        while i < self.rw_full.len() {
            let b = self.rw_full[i];
            if self.valid[b as usize] == 0 {
                self.rw_full.remove(i);
                self.release(b);
                self.shrink_area();
            } else {
                i += 1;
            }
        }
    }

    fn trim_unit(&mut self, lpn: u32) {
        self.drop_copy(lpn);
    }

    /// Read `n` units from `lpn` at `at`; `chunk(ready, units)` per piece as in the page FTL.
    fn read_units(&mut self, lpn: u32, n: u32, at: Ns, mut chunk: impl FnMut(Ns, u32)) {
        let upp = self.upp;
        let mut i = 0;
        while i < n {
            let Some(ppa) = self.ppa_of(lpn + i) else {
                chunk(at, 1);
                i += 1;
                continue;
            };
            let page = ppa / upp;
            let mut k = 1;
            while i + k < n && self.ppa_of(lpn + i + k).is_some_and(|p| p / upp == page) {
                k += 1;
            }
            let die = self.geo.die_of_block(self.geo.block_of(ppa));
            let ready = self.nand.read(die, at, k);
            self.counters.nand_page_reads += 1;
            chunk(ready, k);
            i += k;
        }
    }

    /// Write the open pages to NAND (padded); returns when everything in flight has landed.
    fn flush(&mut self, at: Ns) -> Ns {
        if !self.volatile_buffer {
            return at;
        }
        let mut done = at;
        for die in 0..self.geo.dies {
            done = done.max(self.nand.die_free_at(die));
        }
        if self.open[RW].len > 0 {
            done = done.max(self.program_rw(at));
        }
        if self.open[SW].len > 0 {
            // Pad the sequential log's page with the block's current data at those offsets (a
            // read-modify-write of one page), as closing it does: padding it with nothing
            // would strand them in the old data block, and closing the log would then need
            // a full merge inside one command.
            self.fill_sw_page(at);
            done = done.max(self.program_sw(at));
        }
        done
    }

    /// Idle time: carry on with the paced merge, then merge the full random logs, oldest
    /// first, a page at a time while the window lasts (a page started inside the window
    /// completes past it).
    fn background(&mut self, from: Ns, until: Ns) {
        let mut t = from;
        while t < until {
            let before = (self.job_victim, self.job_slots_left(), self.cl_l, self.cl_page);
            if self.cl_l != NIL {
                t = t.max(self.advance_closing(t, u32::MAX, until).0);
            }
            if self.job_victim == NIL {
                if let Some(victim) = self.rw_full.pop_front() {
                    self.start_job(victim);
                }
            }
            if self.job_victim != NIL {
                let (end, _) = self.advance(t, u64::MAX, u32::MAX, until, true);
                t = t.max(end);
            }
            if (self.job_victim, self.job_slots_left(), self.cl_l, self.cl_page) == before {
                // Nothing more fits before the window ends.
                break;
            }
        }
    }

    /// Start emptying random log `victim` step by step: list the logical blocks it holds
    /// units of.
    fn start_job(&mut self, victim: u32) {
        debug_assert_eq!(self.job_victim, NIL);
        self.job_epoch = self.job_epoch.wrapping_add(1);
        if self.job_epoch == 0 {
            self.job_mark.fill(0);
            self.job_epoch = 1;
        }
        self.job_lblocks.clear();
        let base = victim * self.upb;
        for ppa in base..base + self.upb {
            let lpn = self.p2l[ppa as usize];
            if lpn != INVALID {
                let (l, _) = self.lblock(lpn);
                if self.job_mark[l as usize] != self.job_epoch {
                    self.job_mark[l as usize] = self.job_epoch;
                    self.job_lblocks.push(l);
                    self.job_held[l as usize] = 0;
                }
                self.job_held[l as usize] += 1;
            }
        }
        self.job_victim = victim;
        self.job_next = 0;
    }

    /// Page slots the paced merge still has to walk (each listed block's pages; empty ones
    /// cost no NAND time).
    fn job_slots_left(&self) -> u64 {
        if self.job_victim == NIL {
            return 0;
        }
        let ppb = u64::from(self.geo.pages_per_block);
        let cur = if self.cur_l == NIL { 0 } else { ppb - u64::from(self.cur_page) };
        (self.job_lblocks.len() - self.job_next) as u64 * ppb + cur
    }

    /// Host units the random logs take before they run out: what is left of the active log.
    fn rw_units_left(&self) -> u64 {
        if self.rw_active == NIL {
            return u64::from(self.upb);
        }
        let pages = u64::from(self.geo.pages_per_block - self.rw_next_page);
        (pages * u64::from(self.upp)).saturating_sub(u64::from(self.open[RW].len)).max(1)
    }

    /// The merge work a host write command of `units` units carries, starting at `at` for a
    /// command that started at `start`: its share of the paced merge, at most the profile's
    /// pages per command and never past the busy-time ceiling. Returns when it is done.
    fn command_gc(&mut self, start: Ns, at: Ns, units: u32) -> Ns {
        let deadline = self.gc_deadline(start);
        self.update_area();
        self.catch_up();
        let mut end = at;
        // Catching up (`spare.rs`): only the budget's ceiling bounds the work. Closing the
        // sequential log below moves no random log, so this holds for the whole command.
        let catching_up = self.spare_logs_in_use();
        let mut budget = if catching_up { u32::MAX } else { self.pages_per_command };
        // Pace to be done with a quarter of the active log to spare: a command that hits the
        // ceiling leaves its share to the next ones, and they need room to catch up.
        let left = self.rw_units_left().saturating_sub(u64::from(self.upb / 4)).max(1);
        if self.cl_l != NIL {
            // The partial merge of a closed sequential log goes first, paced like the random
            // logs' merge (all merge work must be done before the logs run out).
            let pages = u64::from(self.geo.pages_per_block - self.cl_page);
            let quota = (pages * u64::from(units)).div_ceil(left).min(u64::from(budget)) as u32;
            let (e, n) = self.advance_closing(at, quota, deadline);
            end = end.max(e);
            budget -= n.min(budget);
        }
        if self.job_victim == NIL || budget == 0 {
            return end;
        }
        let quota = if catching_up {
            // Catching up (`spare.rs`): as much as the budget and the ceiling allow.
            u64::MAX
        } else {
            (self.job_slots_left() * u64::from(units)).div_ceil(left)
        };
        end.max(self.advance(at, quota, budget, deadline, false).0)
    }

    /// Latest time any die is busy until: a merge page reads from any die and programs on one.
    fn dies_free_at(&self) -> Ns {
        (0..self.geo.dies).map(|d| self.nand.die_free_at(d)).max().unwrap_or(0)
    }

    /// Up to `pages` pages of the pending partial merge from `at`, none that would end past
    /// `deadline`; the block is installed once complete. Returns (end, pages programmed).
    fn advance_closing(&mut self, at: Ns, pages: u32, deadline: Ns) -> (Ns, u32) {
        let mut end = at;
        let mut programmed = 0;
        while self.cl_l != NIL && programmed < pages {
            let (l, b, page) = (self.cl_l, self.cl_block, self.cl_page);
            match self.merge_page(l, page, b, at, end, deadline) {
                MergePage::Late => break,
                MergePage::Empty => {}
                MergePage::Done(done) => {
                    end = end.max(done);
                    programmed += 1;
                }
            }
            self.cl_page = page + 1;
            // Installed as soon as its last page is done: a closing left at its last page
            // with no quota would block every new sequential run (`seq_log_can_open`), and the
            // sequential streams would all go to the random logs.
            if self.cl_page == self.geo.pages_per_block {
                self.install(l, b);
                self.cl_l = NIL;
            }
        }
        (end, programmed)
    }

    /// One page of a paced merge: page `page` of logical block `l` gathered from `at` and
    /// programmed into `dst`, unless it holds nothing, or unless it would end past `deadline`
    /// for a command whose work so far ends at `end`.
    fn merge_page(&mut self, l: u32, page: u32, dst: u32, at: Ns, end: Ns, deadline: Ns) -> MergePage {
        let base = l * self.upb + page * self.upp;
        if !self.written.get(base / self.upp)
            || self.l2p[base as usize..(base + self.upp) as usize].iter().all(|&v| v == UNMAPPED)
        {
            return MergePage::Empty;
        }
        if end.max(self.dies_free_at()) + self.page_cost > deadline {
            return MergePage::Late;
        }
        MergePage::Done(self.copy_page(l, page, dst, at).expect("the page holds a unit"))
    }

    /// Complete the pending partial merge, whatever it costs; returns when done.
    fn finish_closing(&mut self, at: Ns) -> Ns {
        let mut end = at;
        while self.cl_l != NIL {
            end = end.max(self.advance_closing(end, u32::MAX, Ns::MAX).0);
        }
        end
    }

    /// Walk up to `slots` page slots of the paced merge from `at`, programming at most `pages`
    /// pages and starting none that would end past `deadline`. Returns (end, pages programmed).
    fn advance(&mut self, at: Ns, slots: u64, pages: u32, deadline: Ns, background: bool) -> (Ns, u32) {
        let mut end = at;
        let (mut walked, mut programmed) = (0u64, 0u32);
        while walked < slots && programmed < pages && self.job_victim != NIL {
            if self.cur_l == NIL {
                if self.job_next == self.job_lblocks.len() {
                    self.end_job(background);
                    break;
                }
                let l = self.job_lblocks[self.job_next];
                self.job_next += 1;
                if let Some(&next) = self.job_lblocks.get(self.job_next) {
                    self.prefetch_written(next);
                }
                let ppb = u64::from(self.geo.pages_per_block);
                if !self.victim_holds(l) {
                    walked += ppb;
                    continue;
                }
                if self.cl_l == l || self.sw.is_some_and(|s| s.lblock == l) {
                    // Its sequential log is closed first, within the deadline (`bounded.rs`).
                    let (e, settled) = self.settle_seq_log(l, end, deadline);
                    end = end.max(e);
                    if !settled {
                        self.job_next -= 1;
                        break;
                    }
                    if !self.has_log_units(l) {
                        walked += ppb;
                        continue;
                    }
                }
                let die = l % self.geo.dies;
                if end.max(self.dies_free_at()) + self.page_cost + self.nand.timing.t_erase > deadline {
                    self.job_next -= 1;
                    break;
                }
                let (dst, ready) = self.take_block(die, end, Kind::Log);
                end = end.max(ready);
                self.cur_l = l;
                self.cur_dst = dst;
                self.cur_page = 0;
                self.marks[CUR].clear();
            }
            let (l, dst, page) = (self.cur_l, self.cur_dst, self.cur_page);
            // Pages never written hold nothing: step over them as the walk would, one slot each.
            let ppb = self.geo.pages_per_block;
            let skip = u64::from(self.written.unwritten_run(l * ppb + page, (l + 1) * ppb)).min(slots - walked);
            if skip > 0 {
                walked += skip;
                self.cur_page += skip as u32;
                if self.cur_page == ppb {
                    self.install(l, dst);
                    self.cur_l = NIL;
                }
                continue;
            }
            match self.merge_page(l, page, dst, at, end, deadline) {
                MergePage::Late => break,
                MergePage::Empty => {}
                MergePage::Done(done) => {
                    end = end.max(done);
                    programmed += 1;
                }
            }
            walked += 1;
            self.cur_page += 1;
            if self.cur_page == self.geo.pages_per_block {
                self.install(l, dst);
                self.cur_l = NIL;
            }
        }
        (end, programmed)
    }

    /// Complete the full merge in progress, whatever it costs; returns when done.
    fn finish_cur(&mut self, at: Ns) -> Ns {
        let mut end = at;
        while self.cur_l != NIL {
            let (l, dst, page) = (self.cur_l, self.cur_dst, self.cur_page);
            if let Some(done) = self.copy_page(l, page, dst, at) {
                end = end.max(done);
            }
            self.cur_page += 1;
            if self.cur_page == self.geo.pages_per_block {
                self.install(l, dst);
                self.cur_l = NIL;
            }
        }
        end
    }

    /// Complete the paced merge, whatever it costs; returns when done.
    fn finish_job(&mut self, at: Ns, background: bool) -> Ns {
        let mut end = at;
        while self.job_victim != NIL {
            end = end.max(self.advance(end, u64::MAX, u32::MAX, Ns::MAX, background).0);
        }
        end
    }

    /// Every listed block is merged: the victim is empty; release it, and any other random
    /// log the merges emptied.
    fn end_job(&mut self, background: bool) {
        let victim = self.job_victim;
        self.job_victim = NIL;
        self.release_victim(victim, background);
    }

    /// Does the paced merge's victim still hold a unit of logical block `l`?
    #[inline]
    fn victim_holds(&self, l: u32) -> bool {
        self.job_held[l as usize] > 0
    }

    /// Has logical block `l` units in log blocks (not in its data block, not buffered)?
    fn has_log_units(&self, l: u32) -> bool {
        let range = (l * self.upb) as usize..((l + 1) * self.upb) as usize;
        self.l2p[range].iter().any(|&v| v != UNMAPPED && v != DATA && v & BUFFERED == 0)
    }

    fn state(&self) -> DeviceState {
        let live: u64 = self.data_live.iter().map(|&v| u64::from(v)).sum();
        let logged: u64 = self.valid.iter().map(|&v| u64::from(v)).sum();
        DeviceState {
            free_blocks: self.free.iter().map(|f| f.len() as u64).sum(),
            total_blocks: u64::from(self.geo.blocks()),
            valid_units: live + logged,
            logical_units: u64::from(self.logical_units),
            physical_units: self.geo.physical_units(),
            slc_cached_units: 0,
            wear: Wear::of(&self.erase_count),
        }
    }

    fn memory_bytes(&self) -> u64 {
        let free: u64 = self.free.iter().map(|f| (f.capacity() * 4) as u64).sum();
        heap_bytes(&self.l2p)
            + heap_bytes(&self.p2l)
            + self.tags.as_ref().map_or(0, heap_bytes)
            + heap_bytes(&self.data)
            + heap_bytes(&self.data_live)
            + heap_bytes(&self.kind)
            + heap_bytes(&self.valid)
            + heap_bytes(&self.dirty)
            + heap_bytes(&self.erase_count)
            + free
            + (self.rw_full.capacity() * 4) as u64
            + heap_bytes(&self.job_lblocks)
            + heap_bytes(&self.job_mark)
            + heap_bytes(&self.job_held)
            + self.marks.iter().map(PageMarks::heap_bytes).sum::<u64>()
            + self.written.heap_bytes()
            + self.buffer.memory_bytes()
    }

    /// Check that the mapping, the logs' valid counts, the data blocks and the free lists agree.
    fn check_invariants(&self) -> Result<(), Error> {
        let mut live = vec![0u32; self.data.len()];
        // Units a merge moved without a reverse-map entry, per destination (`in_place.rs`).
        let mut counted = vec![0u32; self.valid.len()];
        for (lpn, &v) in self.l2p.iter().enumerate() {
            let lpn = lpn as u32;
            let (l, off) = self.lblock(lpn);
            match v {
                UNMAPPED => {}
                v if v & BUFFERED != 0 => {
                    let i = (v & !BUFFERED) as usize;
                    let (op, slot) = (i / MAX_UPP, i % MAX_UPP);
                    if op > SW || slot >= self.open[op].len as usize || self.open[op].lpn[slot] != lpn {
                        return Err(Error::Invariant(format!(
                            "lpn {lpn} points at open page {op} slot {slot}, which does not hold it"
                        )));
                    }
                }
                DATA if self.moved_to(l, off) != NIL => counted[self.moved_to(l, off) as usize] += 1,
                DATA => {
                    let b = self.data[l as usize];
                    if b == NIL || self.kind[b as usize] != Kind::Data {
                        return Err(Error::Invariant(format!("lpn {lpn} is in the data block of {l}, which has none")));
                    }
                    live[l as usize] += 1;
                }
                ppa => {
                    if self.p2l[ppa as usize] != lpn {
                        return Err(Error::Invariant(format!(
                            "lpn {lpn} -> log unit {ppa}, which holds {}",
                            self.p2l[ppa as usize]
                        )));
                    }
                    if self.kind[self.geo.block_of(ppa) as usize] != Kind::Log {
                        return Err(Error::Invariant(format!("lpn {lpn} -> unit {ppa} outside a log block")));
                    }
                }
            }
        }
        if live != self.data_live {
            return Err(Error::Invariant("data_live disagrees with the mapping".into()));
        }
        for (ppa, &lpn) in self.p2l.iter().enumerate() {
            if lpn != INVALID {
                if self.l2p[lpn as usize] != ppa as u32 {
                    return Err(Error::Invariant(format!("unit {ppa} holds lpn {lpn}, a stale copy")));
                }
                counted[ppa / self.upb as usize] += 1;
            }
        }
        for (b, (&c, &v)) in counted.iter().zip(&self.valid).enumerate() {
            if c != v {
                return Err(Error::Invariant(format!("block {b}: valid count {v}, but {c} units map to it")));
            }
        }
        if self.job_victim != NIL {
            let base = (self.job_victim * self.upb) as usize;
            for &l in &self.job_lblocks[self.job_next..] {
                let (lo, hi) = (l * self.upb, (l + 1) * self.upb);
                let held =
                    self.p2l[base..base + self.upb as usize].iter().filter(|&&u| u != INVALID && u >= lo && u < hi);
                if held.count() != self.job_held[l as usize] as usize {
                    return Err(Error::Invariant(format!(
                        "the merge's count of block {l}'s units in victim {} is off",
                        self.job_victim
                    )));
                }
            }
        }
        let logs = self.rw_full.len() + usize::from(self.rw_active != NIL);
        // The area is at most `max_log_blocks`, and its spares as many again.
        let spare = self.max_log_blocks;
        if logs > self.max_log_blocks + spare {
            return Err(Error::Invariant(format!(
                "{logs} random log blocks, more than {} + {spare} spare",
                self.max_log_blocks
            )));
        }
        let in_free: usize = self.free.iter().map(|f| f.len()).sum();
        let free_kind = self.kind.iter().filter(|&&k| k == Kind::Free).count();
        if in_free != free_kind {
            return Err(Error::Invariant(format!("{in_free} blocks in free lists but {free_kind} marked free")));
        }
        Ok(())
    }
}
