//! Device history without simulating it write by write: the page-mapped FTL's state after
//! every logical unit has been written once, in order (what a sequential fill of the whole
//! device leaves), set up in one pass over the mapping tables.
//!
//! The state is exactly what the write path would build for one sequential pass through host
//! stream 0: pages striped over the dies in turn, blocks filled page by page and closed (and
//! entered in the victim index) when full, the last block left open. The NAND timeline, the
//! counters and the wear are untouched: the writes are history, not part of the run.

use super::{BlockState, Ftl, NIL, UNMAPPED};
use crate::Error;

impl Ftl {
    /// Map every logical unit as one sequential pass would. Fails (changing nothing) unless
    /// the FTL is new: nothing mapped, nothing buffered, no block opened.
    pub(crate) fn map_all_sequential(&mut self) -> Result<(), Error> {
        if self.l2p.iter().any(|&v| v != UNMAPPED) || self.active.iter().any(|&b| b != NIL) {
            return Err(Error::NotNew);
        }
        let upp = self.geo.units_per_page;
        let upb = self.geo.units_per_block;
        let dies = self.geo.dies;
        let mut die = self.next_die[0];
        let mut lpn = 0u32;
        while lpn < self.logical_units {
            let ai = (die * self.frontiers) as usize;
            if self.active[ai] == NIL {
                let b = self.free[die as usize].pop_front().ok_or(Error::NoFreeBlock { die })?;
                self.state[b as usize] = BlockState::Open;
                self.next_page[b as usize] = 0;
                self.active[ai] = b;
            }
            let b = self.active[ai];
            let page = self.next_page[b as usize];
            self.next_page[b as usize] = page + 1;
            let base = b * upb + page * upp;
            let n = upp.min(self.logical_units - lpn);
            for s in 0..n {
                self.p2l.set((base + s) as usize, lpn + s);
                self.l2p[(lpn + s) as usize] = base + s;
            }
            self.valid[b as usize] += n;
            self.die_valid[die as usize] += u64::from(n);
            if page + 1 == self.geo.pages_per_block {
                self.state[b as usize] = BlockState::Closed;
                self.victims.insert(b, self.valid[b as usize], 0);
                self.active[ai] = NIL;
            }
            lpn += n;
            die = if die + 1 == dies { 0 } else { die + 1 };
        }
        self.next_die[0] = die;
        Ok(())
    }
}
