//! Test-only fault injection (cargo feature `fault-injection`): breaks the page-mapped FTL on
//! purpose ([`crate::fault::Fault`]), so that a checker of what reads return (flashlab's
//! simulated `verify`) or the invariant checks can show they catch it.

use super::{Ftl, BUFFERED, INVALID, UNMAPPED};
use crate::fault::Fault;

impl Ftl {
    /// Swap the mapping entries of logical units `a` and `b`, as a buggy FTL would: each then
    /// reads the other's data (the reverse map is left alone, so GC later moves the wrong unit).
    pub(crate) fn fault_swap_mapping(&mut self, a: u32, b: u32) {
        self.l2p.swap(a as usize, b as usize);
    }

    /// Break the state as `fault` says; false (nothing changed) when it does not apply: a die
    /// or unit out of range, or a unit that is not on NAND for [`Fault::ClearReverse`].
    pub(crate) fn inject(&mut self, fault: Fault) -> bool {
        match fault {
            Fault::SwapMapping(a, b) => {
                if a.max(b) >= self.logical_units {
                    return false;
                }
                self.fault_swap_mapping(a, b);
            }
            Fault::DieValidOffByOne(die) => match self.die_valid.get_mut(die as usize) {
                Some(n) => *n += 1,
                None => return false,
            },
            Fault::ClearReverse(lpn) => match self.l2p.get(lpn as usize) {
                Some(&v) if v != UNMAPPED && v & BUFFERED == 0 => self.p2l.set(v as usize, INVALID),
                _ => return false,
            },
        }
        true
    }
}
