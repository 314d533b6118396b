//! The mapping-table cache of a DRAM-less controller (DFTL, Gupta et al., ASPLOS 2009): the
//! page-level mapping table lives on NAND in translation pages of 1024 four-byte entries (one
//! per 4 KiB unit: a translation page maps 4 MiB), and only `map_cache_kib` of them fit in the
//! controller's SRAM. A request whose translation page is not cached first reads it from NAND;
//! making room evicts the least recently used page (CLOCK), and a dirty one (an entry changed
//! by a write or trim) is written back through the map log ([`crate::map_log`]: each alone, or
//! a program unit of translation pages at a time, as `ftl.map_writeback` says).
//!
//! Translation pages are programmed in SLC mode where the device has an SLC cache.
//! Simplifications, stated: translation pages are read on die `tpage % dies` without taking
//! space in the data blocks (their own garbage collection is not modelled), and
//! the mapping updates of garbage-collection copies are batched by the controller and cost
//! nothing here.

use crate::counters::Counters;
use crate::map_log::MapLog;
use crate::nand::Nand;
use crate::profile::MapWriteback;
use crate::timeline::Ns;

/// Mapping entries per translation page (4 KiB of 4-byte entries).
pub(crate) const ENTRIES_PER_TPAGE: u32 = 1024;
const NIL: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub(crate) struct MapCache {
    /// Per translation page: its cache slot, or NIL.
    slot_of: Vec<u32>,
    /// Per slot: the translation page it holds and its flags (one array: a miss touches all
    /// three of a slot, with one bounds check).
    slots: Vec<Slot>,
    hand: usize,
    /// Where dirty translation pages are written back.
    log: MapLog,
    pub(crate) misses: u64,
    pub(crate) writebacks: u64,
}

/// A cache slot.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// The translation page held (NIL when empty).
    tpage: u32,
    /// An entry changed since the page was read.
    dirty: bool,
    /// CLOCK's reference bit.
    referenced: bool,
}

impl MapCache {
    /// A cache of `slots` translation pages for `logical_units` mapping entries, writing dirty
    /// ones back as `writeback` says.
    pub(crate) fn new(logical_units: u32, slots: u32, t_prog: Ns, writeback: MapWriteback) -> MapCache {
        let tpages = logical_units.div_ceil(ENTRIES_PER_TPAGE) as usize;
        let slots = (slots.max(1) as usize).min(tpages.max(1));
        MapCache {
            slot_of: vec![NIL; tpages],
            slots: vec![Slot { tpage: NIL, dirty: false, referenced: false }; slots],
            hand: 0,
            log: MapLog::new(t_prog, writeback),
            misses: 0,
            writebacks: 0,
        }
    }

    /// Look up the entry of `lpn` at `at` (`write`: the entry changes); returns when the entry
    /// is in SRAM, after reading its translation page (and writing back a dirty victim) on a
    /// miss. The NAND work a miss does is added to `counters`.
    #[inline(always)]
    pub(crate) fn access(&mut self, lpn: u32, write: bool, at: Ns, nand: &mut Nand, counters: &mut Counters) -> Ns {
        let tp = lpn / ENTRIES_PER_TPAGE;
        let s = self.slot_of[tp as usize];
        if s != NIL {
            let slot = &mut self.slots[s as usize];
            slot.referenced = true;
            slot.dirty |= write;
            return at;
        }
        self.miss(tp, write, at, nand, counters)
    }

    /// [`MapCache::access`] of translation page `tp`, not cached. (Its own function, which
    /// returns only a time: the counts go straight to `counters` instead of back through
    /// memory.)
    #[inline(never)]
    fn miss(&mut self, tp: u32, write: bool, at: Ns, nand: &mut Nand, counters: &mut Counters) -> Ns {
        self.misses += 1;
        // CLOCK: the first slot not referenced since the hand last passed it.
        // (The hand wraps by a compare: a `%` per step is a division.)
        let n = self.slots.len();
        let mut hand = self.hand;
        while self.slots[hand].referenced {
            self.slots[hand].referenced = false;
            hand = if hand + 1 == n { 0 } else { hand + 1 };
        }
        let s = hand;
        self.hand = if hand + 1 == n { 0 } else { hand + 1 };
        let old = self.slots[s].tpage;
        let mut programs = 0;
        // A staged (packed) write-back can wait: the translation read the command needs goes
        // to its die first.
        let mut staged = NIL;
        if old != NIL {
            if self.slots[s].dirty {
                if self.log.staged() {
                    staged = old;
                } else {
                    programs = self.log.write_back(old, at, nand);
                }
                self.writebacks += 1;
                counters.map_page_writes += 1;
            }
            self.slot_of[old as usize] = NIL;
        }
        let ready = nand.read(nand.geo.die_round_robin(tp), at, 1);
        if staged != NIL {
            programs = self.log.write_back(staged, at, nand);
        }
        self.slots[s] = Slot { tpage: tp, dirty: write, referenced: true };
        self.slot_of[tp as usize] = s as u32;
        counters.map_page_reads += 1;
        counters.nand_page_reads += 1;
        counters.nand_page_programs += programs;
        counters.nand_units_programmed += programs * u64::from(nand.geo.units_per_page);
        ready
    }

    pub(crate) fn memory_bytes(&self) -> u64 {
        (self.slot_of.capacity() * 4 + self.slots.capacity() * std::mem::size_of::<Slot>()) as u64
    }
}
