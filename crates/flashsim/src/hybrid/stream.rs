//! What ends a sequential run (`ftl.sequential_log`).
//!
//! FAST keeps its sequential log open while the run continues, whatever the host writes
//! elsewhere in between: a journal commit between two records of a file goes to the random
//! logs and the file's run goes on. The cheap controllers of early eMMC and SD cards follow
//! one write stream. AnandTech on the Nexus 7 (2012)'s Kingston eMMC: "any other action
//! performed while that download is in progress will effectively turn the IO stream from
//! purely sequential to pseudo-random"; the controllers are "primarily optimized for reading
//! and writing large images as if they were used in a camera" (The Google Nexus 7 Review,
//! 2012, "NAND Performance").
//!
//! `single-stream`: a write anywhere but the run's next unit ends the run. The log's logical
//! block may still hold data past the run (units the host wrote before, deleted or not: the
//! controller cannot tell). Then the log must be completed by copying that data into it (a
//! partial merge, paced over the following commands as when FAST closes a log early), and the
//! run's next write, not at offset 0, goes to the random logs. If nothing is mapped past the
//! run (a block never written since it was discarded or trimmed), there is nothing to copy:
//! the log keeps its erased pages and the run continues in it when it resumes. So the same
//! `O_SYNC` sequential writes, each followed by a journal commit elsewhere, cost nothing
//! extra on a new device and a partial merge per record on a device full of deleted,
//! untrimmed data; fstrim makes them cheap again.
//!
//! Two simplifications. Whether anything lies past the run is noted when the log opens
//! (`SeqLog::tail_live`) and rechecked only when it was set: a random write that maps a unit
//! past the run of a log opened over an empty block does not make a later interruption end
//! the run. And while an earlier log's partial merge is still being paced, no run is ended
//! (one partial merge at a time, so that no command has to finish one past the busy-time
//! ceiling).

use super::{HybridFtl, NIL, UNMAPPED};
use crate::timeline::Ns;

impl HybridFtl {
    /// Whether logical block `l` holds mapped units from offset `from` on.
    pub(super) fn live_from(&self, l: u32, from: u32) -> bool {
        let base = (l * self.upb) as usize;
        self.l2p[base + from as usize..base + self.upb as usize].iter().any(|&v| v != UNMAPPED)
    }

    /// A host write of offset `off` of logical block `l` that the sequential log does not take,
    /// at `at`: under `single-stream`, end the run if that needs a partial merge (it is then
    /// paced over the following commands); returns when the write may proceed.
    pub(super) fn end_run_elsewhere(&mut self, l: u32, off: u32, at: Ns) -> Ns {
        if !self.single_stream {
            return at;
        }
        let Some(s) = self.sw else {
            return at;
        };
        if (s.lblock == l && s.next_off == off) || !s.tail_live {
            return at;
        }
        // One partial merge at a time: while the previous log's is still being paced, the run
        // stays open (finishing that merge inside this command would take it past the
        // busy-time ceiling).
        if self.cl_l != NIL {
            return at;
        }
        // Trims since the log opened may have left nothing past the run.
        if !self.live_from(s.lblock, s.next_off) {
            if let Some(s) = self.sw.as_mut() {
                s.tail_live = false;
            }
            return at;
        }
        self.close_sw_deferred(at, true)
    }
}
