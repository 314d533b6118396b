//! Flexible Data Placement in the page-mapped FTL (`[fdp]`, [`crate::fdp`]): the host write
//! frontiers are the reclaim unit handles, a write's stream is its placement ID, and GC moves
//! each valid unit into the GC frontier its handle's isolation says: the handle's own when
//! persistently isolated, the one the initially isolated handles share otherwise. It counts,
//! per handle, the host units written and the units programmed for it.
//!
//! Kept apart from the common path: the FTL calls in here only when FDP is on (one test of
//! `Ftl::fdp` per host unit, per program and per GC page).

use super::{Ftl, BUFFERED, INVALID, MAX_UPP, NIL, UNMAPPED};
use crate::fdp::{FdpConfig, FdpStats, HandleStats, Isolation, MAX_HANDLES};
use crate::profile::MAP_UNIT;
use crate::timeline::Ns;
use crate::Error;

const H: usize = MAX_HANDLES as usize;

/// The FDP state of the FTL.
#[derive(Debug, Clone)]
pub(crate) struct Fdp {
    handles: u32,
    isolation: [Isolation; H],
    /// Per handle: its GC frontier's index among GC's (0: the shared one).
    gc_slot: [u32; H],
    /// Per logical unit: the handle whose host write it holds (one byte per unit).
    owner: Vec<u8>,
    /// Per handle: host units written through it.
    host_units: [u64; H],
    /// Per handle: units programmed for it (host data, padding, GC copies of its data).
    media_units: [u64; H],
}

impl Fdp {
    pub(crate) fn new(c: &FdpConfig, logical_units: u32) -> Fdp {
        let mut isolation = [Isolation::InitiallyIsolated; H];
        let mut gc_slot = [0; H];
        let mut next = 1;
        for h in 0..c.handles {
            isolation[h as usize] = c.isolation_of(h);
            if isolation[h as usize] == Isolation::PersistentlyIsolated {
                gc_slot[h as usize] = next;
                next += 1;
            }
        }
        Fdp {
            handles: c.handles,
            isolation,
            gc_slot,
            owner: vec![0; logical_units as usize],
            host_units: [0; H],
            media_units: [0; H],
        }
    }

    pub(crate) fn memory_bytes(&self) -> u64 {
        self.owner.capacity() as u64
    }
}

impl Ftl {
    /// FDP's part of a host write of `lpn` through handle `stream`, whose mapping is `cur`:
    /// count it, record the owner, and drop a copy still in controller RAM that is not in this
    /// handle's own open page (a GC page, or another handle's), so that the new data lands in
    /// this handle's RU. Returns the mapping the write then finds (`UNMAPPED` after a drop).
    #[inline(never)]
    pub(super) fn fdp_host_unit(&mut self, lpn: u32, stream: u32, cur: u32) -> u32 {
        let f = self.fdp.as_mut().expect("FDP on");
        f.host_units[stream as usize] += 1;
        f.owner[lpn as usize] = stream as u8;
        if cur == UNMAPPED || cur & BUFFERED == 0 {
            return cur;
        }
        let i = (cur & !BUFFERED) as usize;
        if i / MAX_UPP == stream as usize {
            return cur;
        }
        // The stale copy's slot is still programmed (as a trimmed unit's is) and counted for
        // the handle whose page it is in.
        self.open[i / MAX_UPP].lpn[i % MAX_UPP] = INVALID;
        self.l2p[lpn as usize] = UNMAPPED;
        UNMAPPED
    }

    /// Count the units of open page `op`, about to be cleared after its program, for their
    /// handles: a host page's (padding included) for its handle, a GC page's slot by slot.
    #[inline(never)]
    pub(super) fn fdp_programmed(&mut self, op: usize) {
        let upp = self.geo.units_per_page as usize;
        let host = self.host_streams as usize;
        let f = self.fdp.as_mut().expect("FDP on");
        if op < host {
            f.media_units[op] += upp as u64;
        } else {
            debug_assert_eq!(self.open[op].len as usize, upp, "GC pages are programmed full");
            for &h in &self.open[op].handle[..upp] {
                f.media_units[h as usize] += 1;
            }
        }
    }

    /// Copy the `live` valid units of victim `v`'s page from unit `base` on `die`, each into
    /// the GC open page of its handle's GC frontier; returns when the last program it caused
    /// completes ([`Ftl::gc_copy_page_routed`], routed by the unit's handle).
    pub(super) fn gc_copy_page_fdp(&mut self, die: u32, v: u32, base: u32, live: u32, at: Ns) -> Ns {
        let dies = self.geo.dies;
        self.gc_copy_page_routed(die, v, base, live, at, |ftl, lpn| {
            let f = ftl.fdp.as_ref().expect("FDP on");
            let h = f.owner[lpn as usize];
            let slot = f.gc_slot[h as usize];
            ((ftl.host_streams + slot * dies + die) as usize, ftl.gc_frontier + slot, h)
        })
    }

    /// The FDP report: configuration and per-handle statistics; `None` without FDP.
    pub(crate) fn fdp_stats(&self) -> Option<FdpStats> {
        let f = self.fdp.as_ref()?;
        let upb = u64::from(self.geo.units_per_block);
        let upp = u64::from(self.geo.units_per_page);
        let handles = (0..f.handles)
            .map(|h| {
                let mut remaining = 0;
                let mut open_rus = 0;
                for die in 0..self.geo.dies {
                    let b = self.active[(die * self.frontiers + h) as usize];
                    if b != NIL {
                        open_rus += 1;
                        remaining += u64::from(self.geo.pages_per_block - self.next_page[b as usize]) * upp;
                    }
                }
                HandleStats {
                    placement_id: h,
                    isolation: f.isolation[h as usize],
                    host_bytes: f.host_units[h as usize] * MAP_UNIT,
                    media_bytes: f.media_units[h as usize] * MAP_UNIT,
                    ru_remaining_bytes: remaining * MAP_UNIT,
                    open_rus,
                }
            })
            .collect();
        Some(FdpStats { reclaim_groups: 1, ru_bytes: upb * MAP_UNIT, handles })
    }

    /// FDP's invariant: a block holding valid data of a persistently isolated handle holds no
    /// other handle's. O(physical units); for tests.
    pub(super) fn check_fdp(&self) -> Result<(), Error> {
        let Some(f) = &self.fdp else { return Ok(()) };
        let upb = self.geo.units_per_block as usize;
        for b in 0..self.valid.len() {
            let mut seen: Option<u8> = None;
            let mut isolated = false;
            for ppa in b * upb..(b + 1) * upb {
                let lpn = self.p2l.get(ppa);
                if lpn == INVALID {
                    continue;
                }
                let h = f.owner[lpn as usize];
                isolated |= f.isolation[h as usize] == Isolation::PersistentlyIsolated;
                match seen {
                    None => seen = Some(h),
                    Some(s) if s != h && isolated => {
                        return Err(Error::Invariant(format!(
                            "block {b} mixes data of handles {s} and {h}, one of them persistently isolated"
                        )))
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }
}
