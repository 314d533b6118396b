//! Spare random logs: what the controller does when the random logs run out before the paced
//! merge of the oldest is done.
//!
//! The paced merge (`command_gc`) spreads the merge of the oldest random log over the writes
//! that fill the newest one. When the victim holds units of many fully mapped logical blocks
//! (after the published torture: units of ~150 blocks, 128 pages each), the work per write is
//! large, commands stop at the busy-time ceiling, and the newest log can fill before the merge
//! is done. Finishing the merge inside the command that needs a new log would take seconds,
//! far past the ceiling. Instead the controller takes one more log block from its free blocks
//! (as many as it has random logs, and only while the free pool keeps the reserve every merge
//! needs) and the merge goes on, paced, in the commands that follow; once it is done, the next
//! oldest log is merged the same way until the logs are back to their number. Only when no
//! spare is left does a command finish the merge whatever it costs.

use super::{HybridFtl, NIL};

/// Free blocks a spare log must leave: a merge's destination on each die, and the sequential
/// log's next block (the profile's validation keeps `log_blocks + 3` spare blocks).
const FREE_RESERVE: usize = 4;

impl HybridFtl {
    /// May one more random log be opened now, beyond the area, counting the full ones and the
    /// new one (the victim of the paced merge is not counted: it is being emptied)? As many
    /// spares as the area has logs (the area is never below `log_blocks`): an area grown into
    /// free blocks (`area.rs`) gets as many spares as it has logs (`area::max_logs` leaves room
    /// in the spare area for both). Until session 34 the spares stayed at `log_blocks`, and on
    /// a full device whose area had grown to 8-25 logs the merge ran out of them and one
    /// command finished it: up to 7.8 s with `sequential_log = "single-stream"`.
    pub(super) fn spare_log_room(&self) -> bool {
        let free: usize = self.free.iter().map(|f| f.len()).sum();
        self.rw_full.len() < 2 * self.area && free > FREE_RESERVE
    }

    /// Are more random logs in use (full, active, and the paced merge's victim) than the log
    /// area allows, or is the area shrinking (`area.rs`)? Then every write command merges as
    /// much as its budget and the busy-time ceiling allow, until the logs are back to their
    /// number.
    pub(super) fn spare_logs_in_use(&self) -> bool {
        self.logs_in_use() > self.area || self.area > self.log_target()
    }

    /// With spare logs in use (more full logs than the paced merge's steady state leaves)
    /// and no merge under way, start merging the oldest, paced like any other.
    pub(super) fn catch_up(&mut self) {
        let logs = self.rw_full.len() + usize::from(self.rw_active != NIL);
        let shrinking = self.area > self.log_target() && !self.rw_full.is_empty();
        if self.job_victim == NIL && self.log_blocks >= 2 && (logs >= self.area || shrinking) {
            if let Some(victim) = self.rw_full.pop_front() {
                self.start_job(victim);
            }
        }
    }
}
