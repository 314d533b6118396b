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
//! Whether anything lies past the run is noted when the log opens (`SeqLog::tail_live`), set
//! again by a write into the run's block past the run, and rechecked when an interruption
//! finds it set (trims may have unmapped the tail since). A write into an empty tail is not
//! mapped yet when it arrives, so it ends the run at the next interruption, not at once. One
//! simplification: while an earlier log's partial merge is still being paced, no run is ended
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
        let Some(s) = self.sw.as_mut() else {
            return at;
        };
        // A write into the run's own block past the run puts data there (the run's next unit
        // itself is the sequential log's, and never reaches this function).
        let into_tail = s.lblock == l && off > s.next_off;
        if into_tail {
            s.tail_live = true;
        }
        if !s.tail_live {
            return at;
        }
        let s = *s;
        // One partial merge at a time: while the previous log's is still being paced, the run
        // stays open (finishing that merge inside this command would take it past the
        // busy-time ceiling).
        if self.cl_l != NIL {
            return at;
        }
        // Trims since the log opened may have left nothing past the run. A write into the tail
        // is not mapped yet: the next interruption ends the run.
        if !self.live_from(s.lblock, s.next_off) {
            if !into_tail {
                if let Some(s) = self.sw.as_mut() {
                    s.tail_live = false;
                }
            }
            return at;
        }
        self.close_sw_deferred(at, true)
    }
}
