//! Which part of F2FS a request writes: the superblock, checkpoint, SIT, NAT or SSA area by
//! its address (from the image's layout), and in the main area the log its blocks were
//! written to — hot, warm or cold data or node — as F2FS's own tracepoints said (kernel) or
//! the model's trace says. Flushes, discards and reads are classes of their own. A request is
//! classed by its first block.

use crate::f2fs_events::Log;
use crate::requests::{Req, ReqOp};
use flashlab_simfs::f2fs_layout::{F2fsArea, F2fsLayout};
use flashlab_simfs::FS_BLOCK;
use std::collections::{HashMap, VecDeque};

/// A class of F2FS request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum F2fsClass {
    /// Superblock area.
    Superblock,
    /// Checkpoint packs.
    Checkpoint,
    /// SIT blocks.
    Sit,
    /// NAT blocks.
    Nat,
    /// SSA blocks.
    Ssa,
    /// A main-area write to a log.
    Log(Log),
    /// A main-area write no log was recorded for.
    Main,
    /// Cache flush.
    Flush,
    /// Discard.
    Discard,
    /// Read.
    Read,
}

impl F2fsClass {
    /// Every class, in the report's order.
    pub const ALL: [F2fsClass; 15] = [
        F2fsClass::Log(Log::HotData),
        F2fsClass::Log(Log::WarmData),
        F2fsClass::Log(Log::ColdData),
        F2fsClass::Log(Log::HotNode),
        F2fsClass::Log(Log::WarmNode),
        F2fsClass::Log(Log::ColdNode),
        F2fsClass::Log(Log::Meta),
        F2fsClass::Main,
        F2fsClass::Checkpoint,
        F2fsClass::Sit,
        F2fsClass::Nat,
        F2fsClass::Ssa,
        F2fsClass::Superblock,
        F2fsClass::Flush,
        F2fsClass::Discard,
    ];

    /// The report's name.
    pub fn name(self) -> &'static str {
        match self {
            F2fsClass::Superblock => "superblock",
            F2fsClass::Checkpoint => "checkpoint",
            F2fsClass::Sit => "sit",
            F2fsClass::Nat => "nat",
            F2fsClass::Ssa => "ssa",
            F2fsClass::Log(l) => l.name(),
            F2fsClass::Main => "main-unknown",
            F2fsClass::Flush => "flush",
            F2fsClass::Discard => "discard",
            F2fsClass::Read => "read",
        }
    }
}

/// The class of a request outside the main area, or None for a main-area write.
fn fixed(layout: &F2fsLayout, r: &Req) -> Option<F2fsClass> {
    Some(match r.op {
        ReqOp::Flush => F2fsClass::Flush,
        ReqOp::Discard => F2fsClass::Discard,
        ReqOp::Read => F2fsClass::Read,
        ReqOp::Write => match layout.area(r.offset / FS_BLOCK) {
            F2fsArea::Superblock => F2fsClass::Superblock,
            F2fsArea::Checkpoint => F2fsClass::Checkpoint,
            F2fsArea::Sit => F2fsClass::Sit,
            F2fsArea::Nat => F2fsClass::Nat,
            F2fsArea::Ssa => F2fsClass::Ssa,
            F2fsArea::Main => return None,
        },
    })
}

/// Class each of the kernel's requests (in issue order) from the F2FS page events (in
/// submission order): each written block takes the log of the oldest page event for that
/// block not yet matched, so a block reused by another log later is classed right each time.
pub fn classify_kernel(layout: &F2fsLayout, reqs: &[Req], pages: &[(u32, Log)]) -> Vec<F2fsClass> {
    let mut queue: HashMap<u32, VecDeque<Log>> = HashMap::new();
    for &(b, l) in pages {
        queue.entry(b).or_default().push_back(l);
    }
    reqs.iter()
        .map(|r| {
            if let Some(c) = fixed(layout, r) {
                return c;
            }
            let first = (r.offset / FS_BLOCK) as u32;
            let mut class = F2fsClass::Main;
            for b in first..first + (r.bytes / FS_BLOCK) as u32 {
                if let Some(l) = queue.get_mut(&b).and_then(VecDeque::pop_front) {
                    if b == first {
                        class = F2fsClass::Log(l);
                    }
                }
            }
            class
        })
        .collect()
}

/// Class each of the model's requests: `logs[i]` is the log the model wrote request `i` to.
pub fn classify_model(layout: &F2fsLayout, reqs: &[Req], logs: &[Option<Log>]) -> Vec<F2fsClass> {
    reqs.iter().zip(logs).map(|(r, l)| fixed(layout, r).unwrap_or(l.map_or(F2fsClass::Main, F2fsClass::Log))).collect()
}
