//! A device that has been lived in: the state of a phone's storage after months of use, made by
//! using a fresh simulated system as its owner would, not by mapping blocks in bulk.
//!
//! The owner's files (a mix of sizes, 4 KiB to 4 MiB in equal shares per power of two: app
//! databases and caches to photos) are written through the filesystem, in sequential 1 MiB
//! requests, until the filesystem is full, so every logical block has been written at least
//! once (the `used` premise). Then half of them, drawn at random, are deleted: what the owner
//! and the apps removed. The files that stay are scattered over the space, and so is the free
//! space the deletions left; on the device, each erase block holds a mix of live data and data
//! of deleted files. What the device knows of the deletions is the system's trim policy:
//!
//! * online discard (`discard` mount option): the filesystem trimmed the files as it deleted
//!   them;
//! * a periodic fstrim (a timer, Android's idle maintenance): it has run since, so the free
//!   space is trimmed: [`LivedSpec::fstrim`];
//! * none: the deleted files' data is still valid on the device (stale).
//!
//! A day of idle follows, in which the device's background garbage collection runs.
//! ([`crate::precondition`] resets the device's counters afterwards: a run reports its own
//! write amplification.)
//!
//! Why this state matters to a fill (docs/fill.md): each erase block is partly live, so as a
//! fill consumes the free space, garbage collection has to clean blocks that are fuller and
//! fuller (greedy takes the emptiest first); the per-request copy work rises over the fill.
//! Stale (untrimmed) deletions make the device run out of free blocks earlier: the rise comes
//! sooner than with trim.

use crate::rng::Rng;
use crate::stack::DAY;
use crate::system::{SimSystem, SysError};
use flashsim::Op;
use serde::Serialize;

/// How the system was used before the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LivedSpec {
    /// Seed of the files' sizes and of which ones stay.
    pub(crate) seed: u64,
    /// Fraction of the files (by count) that stay.
    pub(crate) keep: f64,
    /// A periodic fstrim has run since the deletions (with online discard the filesystem
    /// trims at delete anyway).
    pub(crate) fstrim: bool,
}

impl LivedSpec {
    /// Half of the files stay; `fstrim` as the system's trim policy says.
    pub fn new(seed: u64, fstrim: bool) -> LivedSpec {
        LivedSpec { seed, keep: 0.5, fstrim }
    }
}

/// What the owner's use left.
#[derive(Debug, Clone, Serialize)]
pub struct LivedReport {
    /// Files the owner wrote.
    pub files_written: u64,
    /// Bytes the owner wrote.
    pub(crate) bytes_written: u64,
    /// Files still there.
    pub files_kept: u64,
    /// Bytes still there.
    pub(crate) bytes_kept: u64,
    /// Bytes trimmed by the fstrim after the deletions (0 without one).
    pub fstrim_bytes: u64,
}

/// Smallest and largest file: 4 KiB << 0..=10.
const FILE_MIN: u64 = 4096;
const SIZE_STEPS: u64 = 11;
const REQUEST: u64 = 1 << 20;

/// Use `sys` as its owner would (module documentation); returns what was done.
pub fn live_in(sys: &mut SimSystem, spec: &LivedSpec) -> Result<LivedReport, SysError> {
    let mut rng = Rng::new(spec.seed ^ 0x006c_6976_6564_696e);
    let mut files: Vec<(String, u64)> = Vec::new();
    let mut bytes_written = 0;
    loop {
        let free = sys.fs().free_bytes() / 4096 * 4096;
        let size = (FILE_MIN << rng.below(SIZE_STEPS)).min(free);
        if size < FILE_MIN {
            break;
        }
        let name = format!("owner/f{}", files.len());
        let f = match sys.create(&name, size) {
            Ok(f) => f,
            // The filesystem's own metadata for the file did not fit: it is full.
            Err(SysError::Fs(flashlab_simfs::FsError::NoSpace { .. })) => break,
            Err(e) => return Err(e),
        };
        let mut t = sys.now();
        let mut off = 0;
        while off < size {
            let n = REQUEST.min(size - off);
            t = sys.io(t, f, Op::Write, off, n)?.done;
            off += n;
        }
        sys.advance_to(t);
        bytes_written += size;
        files.push((name, size));
    }
    sys.sync()?;
    let (mut files_kept, mut bytes_kept) = (0, 0);
    for (name, size) in &files {
        if rng.unit() < spec.keep {
            files_kept += 1;
            bytes_kept += size;
        } else {
            sys.delete(name)?;
        }
    }
    sys.sync()?;
    let fstrim_bytes = if spec.fstrim { sys.fstrim()? } else { 0 };
    sys.idle(DAY);
    Ok(LivedReport { files_written: files.len() as u64, bytes_written, files_kept, bytes_kept, fstrim_bytes })
}
