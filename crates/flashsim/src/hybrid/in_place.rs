//! Merges that leave a moved unit's `DATA` entry in place, so that copying a page of a logical
//! block's data block costs a count, not a rewrite of every unit's two mapping entries.
//!
//! A merge rebuilds logical block `l` page by page into a destination block, and installs the
//! destination as `l`'s data block once every page is done. Most units it copies sit in the old
//! data block (`l2p` = `DATA`), and they end up as `DATA` again in the new one. Their `l2p` entry
//! is therefore left alone while the merge runs, and a `DATA` unit of `l` is wherever the page
//! rule below puts it:
//!
//! - `l` is the paced merge's block (`cur_l`) and the unit's page is below `cur_page`: at its own
//!   offset in `cur_dst`;
//! - `l` is the sequential log being closed (`cl_l`) and the page is below `cl_page`: at its own
//!   offset in `cl_block`;
//! - otherwise: in the data block `data[l]`.
//!
//! A unit moved that way has no reverse-map entry (nothing looks one up: a merge destination is
//! never a random log, so no merge lists it), and it is counted in the destination's `valid`
//! like any log unit. Units that come from log blocks or the write buffer are moved as before,
//! with both entries written; the pages that received one are marked ([`PageMarks`]), and
//! installing the destination walks only those pages. The merges that run to completion inside
//! one call (a full merge, closing the sequential log at once) use the same scheme: nothing
//! looks at a moved unit before they install.
//!
//! Every NAND operation, counter and free-list change happens as before, in the same order: only
//! the bookkeeping is cheaper.

use super::{HybridFtl, DATA, NIL};
use crate::timeline::Ns;

/// A set of page numbers within one block (the pages whose units were placed with a reverse-map
/// entry); allocated once per FTL.
#[derive(Debug, Clone, Default)]
pub(super) struct PageMarks {
    words: Vec<u64>,
}

impl PageMarks {
    pub(super) fn new(pages: u32) -> PageMarks {
        PageMarks { words: vec![0; pages.div_ceil(64) as usize] }
    }

    #[inline]
    pub(super) fn clear(&mut self) {
        self.words.fill(0);
    }

    #[inline]
    pub(super) fn set(&mut self, page: u32) {
        self.words[(page / 64) as usize] |= 1 << (page % 64);
    }

    /// Mark pages `0..n`.
    pub(super) fn set_below(&mut self, n: u32) {
        for p in 0..n {
            self.set(p);
        }
    }

    /// The marked pages, in order.
    pub(super) fn pages(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                Some(w as u32 * 64 + b)
            })
        })
    }

    pub(super) fn heap_bytes(&self) -> u64 {
        (self.words.capacity() * 8) as u64
    }
}

/// Which merge a destination belongs to: the paced full merge, the closing of the sequential
/// log, or a merge done within one call.
pub(super) const CUR: usize = 0;
pub(super) const CLOSING: usize = 1;
pub(super) const SYNC: usize = 2;

impl HybridFtl {
    /// The merge destination holding `DATA` unit `off` of logical block `l`, or NIL when it is
    /// still in the data block (the page rule of this module).
    #[inline]
    pub(super) fn moved_to(&self, l: u32, off: u32) -> u32 {
        let page = off / self.upp;
        if l == self.cur_l && page < self.cur_page {
            self.cur_dst
        } else if l == self.cl_l && page < self.cl_page {
            self.cl_block
        } else {
            NIL
        }
    }

    /// Copy page `page` of logical block `l` into the same page of merge destination `dst`
    /// from `at` (read its units, program, move them); returns when programmed, or None when
    /// the page holds no unit. A page wholly in the data block, the common case, is copied
    /// without looking at its units one by one.
    #[inline]
    pub(super) fn copy_page(&mut self, l: u32, page: u32, dst: u32, at: Ns) -> Option<Ns> {
        let base = (l * self.upb + page * self.upp) as usize;
        if !self.written.get(l * self.geo.pages_per_block + page) {
            return None;
        }
        if self.l2p[base..base + self.upp as usize].iter().all(|&v| v == DATA) {
            return Some(self.copy_data_page(l, page, dst, at));
        }
        let (ready, n) = self.gather(l, page, at);
        if n == 0 {
            return None;
        }
        let done = self.nand.program(self.geo.die_of_block(dst), ready);
        self.move_page(l, page, dst, done);
        Some(done)
    }

    /// [`HybridFtl::copy_page`] of a page whose units are all in the data block: what
    /// `gather` and `move_page` do for it, a page at a time.
    fn copy_data_page(&mut self, l: u32, page: u32, dst: u32, at: Ns) -> Ns {
        debug_assert_eq!(self.moved_to(l, page * self.upp), NIL, "a page moved twice");
        let old = self.data[l as usize];
        let ready = at.max(self.nand.read(self.geo.die_of_block(old), at, self.upp));
        self.counters.nand_page_reads += 1;
        let done = self.nand.program(self.geo.die_of_block(dst), ready);
        if let Some(t) = &mut self.tags {
            let (from, to) = ((old * self.upb + page * self.upp) as usize, (dst * self.upb + page * self.upp) as usize);
            t.copy_within(from..from + self.upp as usize, to);
        }
        self.data_live[l as usize] -= self.upp;
        if self.data_live[l as usize] == 0 {
            self.data[l as usize] = NIL;
            self.release(old);
        }
        self.valid[dst as usize] += self.upp;
        self.counters.gc_units_copied += u64::from(self.upp);
        self.counters.nand_page_programs += 1;
        self.counters.nand_units_programmed += u64::from(self.upp);
        done
    }

    /// The marks of the merge that is filling `dst` with logical block `l`.
    #[inline]
    pub(super) fn marks_of(&self, l: u32, dst: u32) -> usize {
        if l == self.cur_l && dst == self.cur_dst {
            CUR
        } else if l == self.cl_l && dst == self.cl_block {
            CLOSING
        } else {
            SYNC
        }
    }
}
