//! Which logical pages (a program unit's worth of logical units, `units_per_page`) the host
//! has ever written: a bit per page. A merge walks every page of the logical block it
//! rebuilds, and on a device that is not full most of them have never held data: the bit tells
//! so without reading the page's mapping entries, and a run of such pages is stepped over at
//! once. A page whose bit is set may still hold nothing (trimmed): its entries say so.

use super::HybridFtl;
use crate::memory::prefetch;

/// A bit per logical page, set when a unit of the page is written (never cleared).
#[derive(Debug, Clone)]
pub(super) struct WrittenPages {
    bits: Vec<u64>,
}

impl WrittenPages {
    pub(super) fn new(pages: u32) -> WrittenPages {
        WrittenPages { bits: vec![0; pages.div_ceil(64) as usize] }
    }

    #[inline]
    pub(super) fn set(&mut self, page: u32) {
        self.bits[(page / 64) as usize] |= 1 << (page % 64);
    }

    /// Every page written (a device set up as written once).
    pub(super) fn set_all(&mut self) {
        self.bits.fill(u64::MAX);
    }

    #[inline]
    pub(super) fn get(&self, page: u32) -> bool {
        self.bits[(page / 64) as usize] >> (page % 64) & 1 != 0
    }

    /// How many pages from `from` on, before `end`, were never written.
    #[inline]
    pub(super) fn unwritten_run(&self, from: u32, end: u32) -> u32 {
        let mut p = from;
        while p < end {
            let w = self.bits[(p / 64) as usize] >> (p % 64);
            if w != 0 {
                return (p + w.trailing_zeros()).min(end) - from;
            }
            p = (p / 64 + 1) * 64;
        }
        end - from
    }

    pub(super) fn heap_bytes(&self) -> u64 {
        (self.bits.capacity() * 8) as u64
    }
}

impl HybridFtl {
    /// A hint that changes no result: start fetching the mapping entries of logical block
    /// `l`'s written pages, which a merge visits next. Their cache misses then overlap instead
    /// of coming one after another.
    pub(super) fn prefetch_written(&self, l: u32) {
        let ppb = self.geo.pages_per_block;
        let (first, end) = (l * ppb, (l + 1) * ppb);
        // Pages whose entries share a 64-byte line (roughly: the table is not line-aligned).
        let per_line = (16 / self.upp).max(1);
        let mut p = first;
        while p < end {
            p += self.written.unwritten_run(p, end);
            if p == end {
                break;
            }
            prefetch(&self.l2p, (p * self.upp) as usize);
            p += per_line;
        }
    }

    /// A hint that changes no result: a host request for `lpn` is coming.
    #[inline]
    pub fn prefetch_mapping(&self, lpn: u32) {
        prefetch(&self.l2p, lpn as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::WrittenPages;

    #[test]
    fn runs_stop_at_written_pages_and_at_the_end() {
        let mut w = WrittenPages::new(300);
        assert_eq!(w.unwritten_run(0, 300), 300);
        w.set(70);
        w.set(200);
        assert!(w.get(70) && !w.get(69) && !w.get(71));
        assert_eq!(w.unwritten_run(0, 300), 70);
        assert_eq!(w.unwritten_run(0, 64), 64);
        assert_eq!(w.unwritten_run(70, 128), 0);
        assert_eq!(w.unwritten_run(71, 300), 129);
        assert_eq!(w.unwritten_run(71, 150), 79);
        assert_eq!(w.unwritten_run(201, 300), 99);
        w.set_all();
        assert_eq!(w.unwritten_run(5, 300), 0);
    }
}
