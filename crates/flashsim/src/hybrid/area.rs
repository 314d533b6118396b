//! The random-log area: how many random log blocks the controller keeps.
//!
//! A FAST-style controller has `log_blocks` random logs for good: physical blocks that back no
//! logical block, taken from its spare area (physical - logical blocks). When the host has
//! never written much of the logical space, or discarded it (a factory reset's `BLKDISCARD`
//! of /data), the controller holds erased blocks beyond its spare area: blocks no logical
//! block maps. It can lend them to the log area: random writes then go to more logs, and a
//! merge comes later, when each logical block has gathered more of its units in the logs
//! (and, for the test file of a fresh device, when more of them have been trimmed or rewritten).
//! As the host maps its logical space the lent blocks must come back: the area shrinks to
//! `log_blocks` once the free blocks are down to the spare area. The area is bounded by
//! `ftl.max_log_blocks`: each random log needs a page map in the controller's SRAM (128 pages
//! x 4 units x 4 bytes = 2 KiB per log on nexus7-2012: 128 KiB for 64 logs), the bound of a
//! DRAM-less part. The logs above `log_blocks` are merged like the others (paced per command,
//! at most the busy-time ceiling); when the area shrinks below the logs in use, the excess is
//! merged oldest first as when spare logs are in use (`spare.rs`), not all at once.

use super::{HybridFtl, NIL};

/// The area's bound: `max_log_blocks`, but never more logs than the spare area can hold once
/// every logical block is mapped (data blocks + logs + free = physical blocks, so with every
/// logical block mapped the logs and the free blocks share the spare area): the logs, their
/// spares, the sequential log, a merge destination per die and the free reserve must fit in it,
/// or a device mapped faster than its area shrinks would run out of free blocks.
pub(super) fn max_logs(log_blocks: usize, max_log_blocks: usize, spare_blocks: usize) -> usize {
    let room = spare_blocks.saturating_sub(log_blocks + 8) / 2;
    max_log_blocks.min(room).max(log_blocks)
}

impl HybridFtl {
    /// Free blocks, over every die.
    #[inline]
    pub(super) fn free_blocks(&self) -> usize {
        self.free.iter().map(|f| f.len()).sum()
    }

    /// Random logs in use: full, active, and the paced merge's victim.
    #[inline]
    pub(super) fn logs_in_use(&self) -> usize {
        self.rw_full.len() + usize::from(self.rw_active != NIL) + usize::from(self.job_victim != NIL)
    }

    /// The random logs the device may keep now: the free blocks beyond the spare area plus the
    /// logs in use beyond `log_blocks` (blocks lent already), at least `log_blocks` and at most
    /// `max_log_blocks`. (On a full device whose merge lags, the spare logs of `spare.rs` count
    /// here as lent although they come out of the spare area, so the area can grow: measured and
    /// written down in docs/calibration.md, session 31; not changed yet.)
    #[inline]
    pub(super) fn log_target(&self) -> usize {
        if self.max_log_blocks <= self.log_blocks {
            return self.log_blocks;
        }
        let lent = self.free_blocks().saturating_sub(self.spare_blocks);
        // Logs in use are blocks lent already: count them as lendable.
        let lendable = lent + self.logs_in_use().saturating_sub(self.log_blocks);
        lendable.clamp(self.log_blocks, self.max_log_blocks)
    }

    /// The area grows at once to the target. It shrinks only as logs are merged
    /// ([`HybridFtl::shrink_area`]): while it is above its target every write command merges
    /// as much as the ceiling allows (`spare.rs`), so the host pays for the shrinking.
    #[inline]
    pub(super) fn update_area(&mut self) {
        if self.max_log_blocks > self.log_blocks {
            self.area = self.area.max(self.log_target());
        }
    }

    /// A random log was merged and released: while the area is above its target it gives
    /// that block back (one per merged log, so the excess is merged oldest first, paced).
    #[inline]
    pub(super) fn shrink_area(&mut self) {
        // Only while no spare log is in use: shrinking faster than the logs are merged would
        // leave more logs than the area and its spares, and a command would then have to
        // finish a merge whole (`spare.rs`).
        if self.area > self.log_blocks && self.logs_in_use() <= self.area && self.area > self.log_target() {
            self.area -= 1;
        }
    }
}
