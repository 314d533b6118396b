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

/// [`HybridFtl::log_target`] from its counts: the blocks no logical block maps (`free` and the
/// random logs `in_use`) beyond the spare area and the `log_blocks` kept for good, clamped to
/// `log_blocks..=max_log_blocks`.
fn target(free: usize, in_use: usize, spare_blocks: usize, log_blocks: usize, max_log_blocks: usize) -> usize {
    let lendable = (free + in_use).saturating_sub(spare_blocks + log_blocks);
    lendable.clamp(log_blocks, max_log_blocks)
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

    /// The random logs the device may keep now: the blocks no logical block maps (free blocks
    /// and logs in use) beyond the spare area and the `log_blocks` it keeps for good, at least
    /// `log_blocks` and at most `max_log_blocks`. The spare logs of `spare.rs` come out of the
    /// free blocks, so taking one moves a block from one term to the other and the target does
    /// not move: on a full device whose merge lags the area stays at `log_blocks` (it grew
    /// there before session 32, when the logs in use and the free blocks were saturated apart).
    #[inline]
    pub(super) fn log_target(&self) -> usize {
        if self.max_log_blocks <= self.log_blocks {
            return self.log_blocks;
        }
        target(self.free_blocks(), self.logs_in_use(), self.spare_blocks, self.log_blocks, self.max_log_blocks)
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

    /// A random log was merged (or emptied by other merges) and released: while the area is
    /// above its target it gives that block back (one per released log, so the excess is
    /// merged oldest first, paced).
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

#[cfg(test)]
mod tests {
    use super::target;

    // nexus7-2012's numbers: 3 logs for good, at most 64, a spare area of 1146 blocks.
    const SPARE: usize = 1146;

    #[test]
    fn a_full_device_targets_log_blocks_however_many_logs_are_in_use() {
        // A full device (every logical block mapped: the free blocks and the logs share the
        // spare area) whose area had grown to 64 while it was discarded, with up to 64 spare
        // logs on top while the merge lags: every log in use came out of the spare area, so
        // the target is `log_blocks` and the area shrinks. (Before session 32 the logs in use
        // beyond 3 counted as lent, the target stayed near them and the area did not shrink.)
        for in_use in [3, 4, 20, 64, 100, 128] {
            assert_eq!(target(SPARE - in_use, in_use, SPARE, 3, 64), 3, "{in_use} logs in use");
        }
    }

    #[test]
    fn the_target_lends_the_erased_blocks_beyond_the_spare_area() {
        // A discarded device with 40 free blocks beyond the spare area and its 3 logs in
        // use: the area may hold 40 logs, and opening 10 of them from those blocks keeps it.
        assert_eq!(target(SPARE + 40, 3, SPARE, 3, 64), 40);
        assert_eq!(target(SPARE + 30, 13, SPARE, 3, 64), 40, "logs opened from the lent blocks");
        assert_eq!(target(SPARE + 500, 3, SPARE, 3, 64), 64, "capped at max_log_blocks");
        assert_eq!(target(10, 3, SPARE, 3, 64), 3, "never below log_blocks");
    }
}
