//! Replays a recorded SQLite file-operation log (`vfs_recorder.rs`) on a simulated system, in
//! virtual time, through a small page-cache model. The rules:
//!
//! - Each named SQLite file (db, `-journal`, `-wal`) is one simulated file, created when first
//!   written back and allocated as its blocks are written back (as ext4's delayed allocation
//!   does at writeback). Files SQLite opens without a name (temporary files) are ignored: they
//!   are unlinked at once and live in the page cache.
//! - `xWrite` dirties the 4 KiB blocks it touches (a 4104-byte journal record or a 4120-byte
//!   WAL frame touches two or three); nothing reaches the device yet.
//! - `xSync` writes the file's dirty blocks back (contiguous blocks as one request, up to
//!   512 KiB, all queued at once), then flushes the device's cache.
//! - `xTruncate` drops dirty blocks past the new end; truncating to 0 frees the file's blocks
//!   (the simulated file is truncated: its blocks freed, trimmed if mounted with discard, and
//!   allocated again when written; on a model that cannot truncate it is deleted and made
//!   again).
//! - `xDelete` drops the file's dirty blocks (they are never written) and deletes it; with
//!   SQLite's `syncDir` flag the directory fsync costs one flush.
//! - Running as root, SQLite's unix VFS gives a journal or WAL it opens the database's owner
//!   (`fchown`), which changes the inode (its ctime) of one that exists already: the next
//!   fsync writes the inode.
//! - The first `xSync` of a journal or WAL that SQLite opened to create also fsyncs the
//!   directory (its unix VFS does): the filesystem's directory fsync (a checkpoint on F2FS;
//!   nothing more on ext4, whose file fsync already committed the directory's change).
//! - The workload's "write back everything" mark writes back every dirty block of every file,
//!   then flushes once. The real run does it at the same two points: `syncfs` before the
//!   measured interval, an fsync of each remaining database file and of the directory after it
//!   (the real device may see one flush per fsync there, the model one in all), so writes the
//!   page cache held back (synchronous=OFF) count too.
//! - `xFileSize` is an fstat: it reads the file's timestamps, so (multigrain timestamps, Linux
//!   6.13+) the file's next write takes a fine-grained time and dirties its inode.
//! - `xRead` of a file written since it was last read updates its atime (`relatime`, the
//!   default mount option), dirtying its inode.
//! - The WAL index (`-shm`) is shared memory: SQLite never writes or syncs it through the VFS,
//!   and the model does not write it (the kernel may write its dirty pages back on a real
//!   filesystem).
//!
//! Commit latency is the virtual time between a transaction's begin and end marks: device time
//! only, no CPU time.

use crate::error::Error;
use crate::vfs_recorder::{Event, Mark};
use flashlab_lab::system::{SimSystem, SysError};
use flashsim::Counters;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Page-cache block: the unit a write dirties.
pub const BLOCK: u64 = 4096;
/// Largest writeback request (blocks).
pub const MAX_RUN_BLOCKS: u64 = 128;

/// What the replay produced for the measured interval.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    /// Device counters accumulated between the measure marks.
    pub counters: Counters,
    /// Virtual latency of each transaction (ns).
    pub latencies_ns: Vec<u64>,
    /// Virtual time from the first transaction's begin to the last one's end (ns).
    pub tx_span_ns: u64,
    /// Writeback requests the page-cache model sent, and their bytes.
    pub writeback_requests: u64,
    /// Bytes of those writeback requests.
    pub writeback_bytes: u64,
}

#[derive(Default)]
struct SimFile {
    allocated: bool,
    size: u64,
    dirty: BTreeSet<u64>,
    /// The recorded coarse clock of its latest write (with [`replay_with_clock`]).
    write_clock: Option<u64>,
}

/// Contiguous runs of `blocks` (sorted), as (offset, length) in bytes, each at most
/// [`MAX_RUN_BLOCKS`] long.
pub fn runs(blocks: &BTreeSet<u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut cur: Option<(u64, u64)> = None; // (first block, count)
    for &b in blocks {
        cur = match cur {
            Some((s, n)) if s + n == b && n < MAX_RUN_BLOCKS => Some((s, n + 1)),
            Some((s, n)) => {
                out.push((s * BLOCK, n * BLOCK));
                Some((b, 1))
            }
            None => Some((b, 1)),
        };
    }
    if let Some((s, n)) = cur {
        out.push((s * BLOCK, n * BLOCK));
    }
    out
}

/// The simulated system's refusal of `what` (`write test.db`), as the replay's error.
fn refused(what: impl Into<String>) -> impl FnOnce(SysError) -> Error {
    let what = what.into();
    move |source| Error::Replay { what, source }
}

struct Replayer<'a> {
    sim: &'a mut SimSystem,
    files: BTreeMap<String, SimFile>,
    measuring: bool,
    requests: u64,
    bytes: u64,
}

impl Replayer<'_> {
    fn writeback(&mut self, path: &str) -> Result<(), Error> {
        let Some(f) = self.files.get_mut(path) else { return Ok(()) };
        if f.dirty.is_empty() {
            return Ok(());
        }
        if !f.allocated {
            // Allocated as it is written back, not at its final size: on ext4 each writeback
            // that appends (a WAL frame, a journal record) allocates blocks then, dirtying the
            // block bitmap and group descriptor in that commit.
            self.sim.create(path, 0).map_err(refused(format!("create {path}")))?;
            f.allocated = true;
        }
        let runs = runs(&f.dirty);
        f.dirty.clear();
        let clock = f.write_clock;
        if self.measuring {
            self.requests += runs.len() as u64;
            self.bytes += runs.iter().map(|r| r.1).sum::<u64>();
        }
        self.sim.set_file_clock(clock);
        let r = self.sim.write_together(path, &runs);
        self.sim.set_file_clock(None);
        r.map(drop).map_err(refused(format!("write {path}")))
    }

    /// fsync `path` (its journal commit or node write and the cache flush), or with no file
    /// or one never written back, commit what the filesystem holds and flush.
    fn fsync(&mut self, path: Option<&str>) -> Result<(), Error> {
        match path.filter(|p| self.sim.file_id(p).is_some()) {
            Some(p) => self.sim.fsync_now(p).map(drop).map_err(refused(format!("fsync {p}"))),
            None => self.sim.sync().map_err(refused("sync")),
        }
    }

    /// Truncate to 0: the file keeps its inode and name where the model can truncate.
    fn truncate(&mut self, path: &str) -> Result<(), Error> {
        let allocated = self.files.get(path).is_some_and(|f| f.allocated);
        if allocated && self.sim.truncate_to_zero(path).map_err(refused(format!("truncate {path}")))? {
            if let Some(f) = self.files.get_mut(path) {
                f.dirty.clear();
            }
            return Ok(());
        }
        self.free(path)
    }

    fn free(&mut self, path: &str) -> Result<(), Error> {
        if let Some(f) = self.files.get_mut(path) {
            f.dirty.clear();
            if f.allocated {
                f.allocated = false;
                self.sim.delete(path).map_err(refused(format!("delete {path}")))?;
            }
        }
        Ok(())
    }
}

/// Replay `events` on `sim`. The log must hold the measure marks.
pub fn replay(events: &[Event], sim: &mut SimSystem) -> Result<Replay, Error> {
    replay_with(events, sim, &mut |_, _| {})
}

/// [`replay`], calling `at_mark` with each mark when the replay reaches it (before the mark's
/// own work), so a caller can start and stop recording the simulated requests there.
pub fn replay_with(
    events: &[Event],
    sim: &mut SimSystem,
    at_mark: &mut dyn FnMut(Mark, &mut SimSystem),
) -> Result<Replay, Error> {
    replay_with_clock(events, None, sim, at_mark)
}

/// [`replay_with`]; with `clocks` (one value per event: the kernel's coarse clock as it
/// happened, [`crate::vfs_recorder::Recorder::taken_clocks`]) the model's ext4 takes each
/// file's timestamps from the clock of its latest write instead of the simulated time, so a
/// writeback dirties the inode exactly when the kernel's write moved the mtime. For comparing
/// with the kernel run that recorded the log; a simulated run keeps its own clock (`None`).
pub fn replay_with_clock(
    events: &[Event],
    clocks: Option<&[u64]>,
    sim: &mut SimSystem,
    at_mark: &mut dyn FnMut(Mark, &mut SimSystem),
) -> Result<Replay, Error> {
    if let Some(c) = clocks {
        if c.len() != events.len() {
            return Err(Error::Sim(format!("{} clock values for {} events", c.len(), events.len())));
        }
    }
    // Generous sizes: the furthest any write to a path reaches.
    let mut handles: HashMap<u32, Option<String>> = HashMap::new();
    let mut files: BTreeMap<String, SimFile> = BTreeMap::new();
    for e in events {
        match e {
            Event::Open { file, path, .. } => {
                handles.insert(*file, path.clone());
                if let Some(p) = path {
                    files.entry(p.clone()).or_default();
                }
            }
            Event::Write { file, off, len } => {
                if let Some(Some(p)) = handles.get(file) {
                    let end = (off + len).div_ceil(BLOCK).max(1) * BLOCK;
                    let f = files.entry(p.clone()).or_default();
                    f.size = f.size.max(end);
                }
            }
            _ => {}
        }
    }
    let path_of = |file: &u32| -> Result<Option<&String>, Error> {
        handles.get(file).map(|p| p.as_ref()).ok_or_else(|| Error::Sim(format!("operation on unopened file #{file}")))
    };
    let mut r = Replayer { sim, files, measuring: false, requests: 0, bytes: 0 };
    let mut pending_dir_sync: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut out = Replay::default();
    let mut start_counters = None;
    let (mut tx_begin, mut first_begin, mut last_end) = (0, None, 0);
    for (i, e) in events.iter().enumerate() {
        if let Event::Mark(m) = e {
            at_mark(*m, r.sim);
        }
        match e {
            Event::Open { file, dir_sync, chown, path, .. } => {
                if *dir_sync {
                    pending_dir_sync.insert(*file);
                }
                // The VFS's fchown changed an existing file's inode (its ctime).
                if let Some(p) = path.as_ref().filter(|_| *chown) {
                    if r.files.get(p).is_some_and(|f| f.allocated) {
                        r.sim.inode_changed(p);
                    }
                }
            }
            Event::Close { .. } | Event::ShmMap { .. } => {}
            Event::Stat { file } | Event::Read { file } => {
                if let Some(p) = path_of(file)? {
                    if r.files.get(p).is_some_and(|f| f.allocated) {
                        if matches!(e, Event::Read { .. }) {
                            r.sim.read_atime(p);
                        } else {
                            r.sim.stat(p);
                        }
                    }
                }
            }
            Event::Write { file, off, len } => {
                if let Some(p) = path_of(file)? {
                    let f = r.files.get_mut(p).expect("sized above");
                    f.write_clock = clocks.map(|c| c[i]);
                    let (first, last) = (off / BLOCK, (off + len).div_ceil(BLOCK));
                    f.dirty.extend(first..last.max(first + 1));
                }
            }
            Event::Sync { file, .. } => {
                let p = path_of(file)?.cloned();
                if let Some(p) = &p {
                    r.writeback(p)?;
                }
                r.fsync(p.as_deref())?;
                // The first sync of a new journal or WAL also fsyncs the directory.
                if pending_dir_sync.remove(file) {
                    r.sim.fsync_dir().map_err(refused("fsync of the directory"))?;
                }
            }
            Event::Truncate { file, size } => {
                if let Some(p) = path_of(file)? {
                    let keep = size.div_ceil(BLOCK);
                    let f = r.files.get_mut(p).expect("sized above");
                    f.dirty.retain(|&b| b < keep);
                    if *size == 0 {
                        r.truncate(p)?;
                    }
                }
            }
            Event::Delete { path, sync_dir } => {
                r.free(path)?;
                if *sync_dir {
                    r.fsync(None)?;
                }
            }
            Event::Mark(Mark::WritebackAll) => {
                let paths: Vec<String> = r.files.keys().cloned().collect();
                for p in paths {
                    r.writeback(&p)?;
                }
                r.fsync(None)?;
            }
            Event::Mark(Mark::MeasureStart) => {
                start_counters = Some(r.sim.device().counters());
                r.measuring = true;
            }
            Event::Mark(Mark::MeasureEnd) => {
                let start = start_counters.ok_or_else(|| Error::Sim("measure end before its start".into()))?;
                out.counters = r.sim.device().counters().since(&start);
                r.measuring = false;
            }
            Event::Mark(Mark::TxBegin) => {
                tx_begin = r.sim.now();
                first_begin.get_or_insert(tx_begin);
            }
            Event::Mark(Mark::TxEnd) => {
                last_end = r.sim.now();
                out.latencies_ns.push(last_end - tx_begin);
            }
        }
    }
    if start_counters.is_none() {
        return Err(Error::Sim("the log has no measured interval".into()));
    }
    out.tx_span_ns = last_end.saturating_sub(first_begin.unwrap_or(last_end));
    out.writeback_requests = r.requests;
    out.writeback_bytes = r.bytes;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs_recorder::FileKind;

    #[test]
    fn runs_split_and_cap() {
        let b: BTreeSet<u64> = [0, 1, 2, 5, 6].into_iter().chain(10..10 + MAX_RUN_BLOCKS + 3).collect();
        let r = runs(&b);
        assert_eq!(r[0], (0, 3 * BLOCK));
        assert_eq!(r[1], (5 * BLOCK, 2 * BLOCK));
        assert_eq!(r[2], (10 * BLOCK, MAX_RUN_BLOCKS * BLOCK));
        assert_eq!(r[3], ((10 + MAX_RUN_BLOCKS) * BLOCK, 3 * BLOCK));
    }

    /// A hand-made log: the counts follow from the rules above.
    #[test]
    fn replays_a_small_log() {
        let p = flashsim::Profile::from_toml("toy", flashlab_lab::profiles::builtin("toy").unwrap()).unwrap();
        let mut sim = SimSystem::with_fs(&p, 1, flashlab_simfs::FsConfig::plain(false));
        let db = Some("/x/db".to_string());
        let j = "/x/db-journal".to_string();
        let ev = vec![
            Event::Open { file: 0, path: db, kind: FileKind::MainDb, dir_sync: false, chown: false },
            Event::Write { file: 0, off: 0, len: 8192 },
            Event::Mark(Mark::WritebackAll),
            Event::Mark(Mark::MeasureStart),
            Event::Mark(Mark::TxBegin),
            Event::Open { file: 1, path: Some(j.clone()), kind: FileKind::MainJournal, dir_sync: true, chown: false },
            Event::Write { file: 1, off: 0, len: 512 },
            Event::Write { file: 1, off: 512, len: 4104 }, // blocks 0 and 1
            Event::Sync { file: 1, flags: 2 },             // 1 request of 8 KiB + flush
            Event::Write { file: 0, off: 4096, len: 4096 },
            Event::Sync { file: 0, flags: 2 },         // 4 KiB + flush
            Event::Write { file: 1, off: 0, len: 28 }, // dirty, then deleted: never written
            Event::Close { file: 1 },
            Event::Delete { path: j, sync_dir: false },
            Event::Mark(Mark::TxEnd),
            Event::Mark(Mark::WritebackAll), // nothing dirty: flush only
            Event::Mark(Mark::MeasureEnd),
        ];
        let r = replay(&ev, &mut sim).unwrap();
        assert_eq!(r.counters.host_flushes, 3);
        assert_eq!(r.counters.host_write_bytes, 12288);
        assert_eq!(r.writeback_requests, 2);
        assert_eq!(r.latencies_ns.len(), 1);
        assert!(r.latencies_ns[0] > 0);
    }

    #[test]
    fn log_without_measure_is_an_error() {
        let p = flashsim::Profile::from_toml("toy", flashlab_lab::profiles::builtin("toy").unwrap()).unwrap();
        let mut sim = SimSystem::with_fs(&p, 1, flashlab_simfs::FsConfig::plain(false));
        assert!(replay(&[Event::Write { file: 9, off: 0, len: 1 }], &mut sim).is_err());
        assert!(replay(&[], &mut sim).unwrap_err().to_string().contains("measured interval"));
    }
}
