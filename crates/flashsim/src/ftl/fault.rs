//! Test-only fault injection (cargo feature `fault-injection`): breaks the page-mapped FTL on
//! purpose, so that a checker of what reads return (flashlab's simulated `verify`) can show it
//! catches a wrong mapping.

use super::Ftl;

impl Ftl {
    /// Swap the mapping entries of logical units `a` and `b`, as a buggy FTL would: each then
    /// reads the other's data (the reverse map is left alone, so GC later moves the wrong unit).
    pub(crate) fn fault_swap_mapping(&mut self, a: u32, b: u32) {
        self.l2p.swap(a as usize, b as usize);
    }
}
