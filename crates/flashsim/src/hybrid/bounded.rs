//! Merge work that a host command may not leave unbounded: the sequential log's partial merge.
//!
//! A controller has one sequential log. Closing it early (a *partial merge*: the rest of its
//! logical block copied in) costs up to a block's pages, about 270 ms on a 2012 eMMC, more than
//! the busy-time ceiling a command may take (`ftl.busy_ceiling_ms`). So the closing is never
//! done in one piece inside a command: a write at offset 0 that would need it goes to the random
//! logs instead of opening a new sequential run (the log is still being closed), and the paced
//! merge of a random log, when it reaches the sequential log's block, closes it a few pages per
//! command like the rest of its work, stopping at the deadline.

use super::{HybridFtl, NIL};
use crate::timeline::Ns;

impl HybridFtl {
    /// May a write at offset 0 of logical block `l` open a new sequential log now, without
    /// merge work that has no bound? Not while a partial merge is pending, not while `l` is
    /// being merged, and not when `l`'s own sequential log would have to be closed at once.
    pub(super) fn seq_log_can_open(&self, l: u32) -> bool {
        self.cl_l == NIL && self.cur_l != l && self.sw.is_none_or(|s| s.lblock != l)
    }

    /// Before the paced merge rebuilds logical block `l`: turn its open sequential log into a
    /// pending partial merge and advance that (and any other pending one, which must finish
    /// first) from `end`, starting no page past `deadline`. Returns (end, settled): settled is
    /// false when the partial merge did not fit before the deadline, and the paced merge must
    /// stop here and come back to `l` in a later command.
    pub(super) fn settle_seq_log(&mut self, l: u32, end: Ns, deadline: Ns) -> (Ns, bool) {
        let mut end = end;
        let open_here = self.sw.is_some_and(|s| s.lblock == l);
        if !open_here && self.cl_l != l {
            return (end, true);
        }
        if open_here {
            if self.cl_l != NIL {
                end = end.max(self.advance_closing(end, u32::MAX, deadline).0);
                if self.cl_l != NIL {
                    return (end, false);
                }
            }
            end = end.max(self.close_sw_deferred(end, true));
        }
        if self.cl_l == l {
            end = end.max(self.advance_closing(end, u32::MAX, deadline).0);
        }
        (end, self.cl_l != l)
    }
}
