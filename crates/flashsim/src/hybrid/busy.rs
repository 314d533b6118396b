//! The busy-time ceiling as the host sees it: bounded per busy period, not per command.
//!
//! A merge step carried by one command stops before the command passes the profile's
//! busy-time ceiling (`ftl.busy_ceiling_ms`). That alone does not bound what a request waits:
//! an eMMC 4.41 serves one command at a time, and when the host has several queued (a jbd2
//! commit: journal blocks, a flush, the commit block, a flush, and the application's write
//! behind them) each of them could carry a ceiling's worth of merging, and the last one waits
//! for all of it (0.5-1.2 s in `age` before this). So the merge work of a whole busy period
//! (commands served back to back, each having waited for the one before: the device sees the
//! next command the moment it finishes one) is bounded: merging stops at the period's start
//! plus the ceiling, less a reserve for the queued commands' own work (programming what they
//! bring, the flushes). A request that arrives during the period is served by its end; one
//! that arrives when the device is idle starts a new period.

use super::HybridFtl;
use crate::timeline::Ns;

impl HybridFtl {
    /// The device has been busy without a break since `t` (told before each command).
    #[inline]
    pub fn note_busy_since(&mut self, t: Ns) {
        self.busy_since = t;
    }

    /// Latest time merge work carried by a command that started at `start` may end: within
    /// the ceiling of the command and of its busy period, less the reserve for the commands'
    /// own work.
    #[inline]
    pub(super) fn gc_deadline(&self, start: Ns) -> Ns {
        let period = self.busy_since.min(start);
        period + self.busy_ceiling - self.busy_reserve
    }
}
