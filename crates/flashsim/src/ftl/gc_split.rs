//! GC copies by temperature (`ftl.gc_by_temperature`): each die has a cold and a hot GC open
//! page, on GC's two frontiers, and a unit GC moves goes to the one its temperature says (the
//! detector's aged count, or the host's last hint). With one GC frontier, hot units that a
//! victim still held land among cold survivors and die there soon, leaving those blocks
//! partly invalid: the mixing that host-side separation removed comes back through GC.
//!
//! The same work as [`Ftl::gc_copy_page`] otherwise (the same page read, `Ftl::gc_read`,
//! then the valid units moved into open pages, a page programmed whenever one fills); kept
//! apart so the common path stays as it is.

use super::{Ftl, BUFFERED, INVALID, MAX_UPP};
use crate::timeline::Ns;

impl Ftl {
    /// Copy the `live` valid units of victim `v`'s page from unit `base` on `die` into the
    /// GC open page of each unit's temperature; returns when the last program it caused
    /// completes.
    pub(super) fn gc_copy_page_split(&mut self, die: u32, v: u32, base: u32, live: u32, at: Ns) -> Ns {
        let cold = ((self.host_streams + die) as usize, self.gc_frontier);
        let hot = ((self.host_streams + self.geo.dies + die) as usize, self.gc_frontier + 1);
        self.gc_copy_page_routed(die, v, base, live, at, |ftl, lpn| {
            let (op, frontier) = if ftl.detector.as_ref().is_some_and(|d| d.is_hot(lpn)) { hot } else { cold };
            (op, frontier, 0)
        })
    }

    /// The GC copy of one victim page with a choice per unit: `route` gives the open page
    /// (`open` index), its frontier and the FDP handle the slot records for the unit `lpn`
    /// (temperature here, the reclaim unit handle in `ftl/fdp.rs`). The page is read once
    /// (`Ftl::gc_read`); an open page is programmed whenever it fills. Generic, so each caller
    /// gets its own copy with its route inlined.
    #[inline(always)]
    pub(super) fn gc_copy_page_routed(
        &mut self,
        die: u32,
        v: u32,
        base: u32,
        live: u32,
        at: Ns,
        route: impl Fn(&Ftl, u32) -> (usize, u32, u8),
    ) -> Ns {
        let ready = self.gc_read(die, at, live);
        let upp = self.geo.units_per_page;
        let mut done = ready;
        for ppa in base..base + upp {
            let lpn = self.p2l.get(ppa as usize);
            if lpn == INVALID {
                continue;
            }
            let (op, frontier, handle) = route(self, lpn);
            self.p2l.set(ppa as usize, INVALID);
            let tag = self.tags.as_ref().map_or(0, |t| t[ppa as usize]);
            let open = &mut self.open[op];
            let slot = open.len as usize;
            open.lpn[slot] = lpn;
            open.tag[slot] = tag;
            open.handle[slot] = handle;
            open.len += 1;
            open.ready = open.ready.max(ready);
            self.l2p[lpn as usize] = BUFFERED | (op * MAX_UPP + slot) as u32;
            hot_assert!(self.valid[v as usize] > 0, "victim {v}'s valid count would go below 0 (copying lpn {lpn})");
            self.valid[v as usize] -= 1;
            self.die_valid[die as usize] -= 1;
            self.counters.gc_units_copied += 1;
            if self.open[op].len == upp {
                done = done.max(self.gc_program(op, die, frontier, ready));
            }
        }
        done
    }
}
