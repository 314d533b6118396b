//! The SQLite workload: one configuration (journal mode × synchronous) run with the real SQLite
//! library in a directory, through the recording VFS. A chat-message table, pre-filled, then N
//! transactions of the chosen shape, each timed from BEGIN to the return of COMMIT. After the
//! run, `PRAGMA integrity_check` must answer "ok" and the row count must be the expected one;
//! the database files (db, -journal, -wal, -shm) are removed whatever happens (registered with
//! flashlab-real's cleanup registry, which `signals.rs` empties on SIGINT/SIGTERM; SQLite runs
//! only while holding [`crate::signals::gate`]).
//!
//! The measured interval is: syncfs (so the setup's writes are on the device), the N
//! transactions, closing the connection (WAL's final checkpoint), then an fsync of every
//! database file still there and of the directory, so that writes the page cache held back
//! (synchronous=OFF) are counted too. Not a second syncfs: that would also write back every
//! other process's dirty data on the filesystem. Both ends are marked in the log, and the
//! caller samples its counters right after them (see [`Phase`]).

use crate::config::{JournalMode, Shape, SyncMode, Workload};
use crate::error::Error;
use crate::vfs_recorder::{Event, Mark, RecordingVfs};
use flashlab_real::cleanup::Cleanup;
use rusqlite::{params, Connection, OpenFlags};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Where the caller's counters are sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// After the first syncfs, before the first transaction.
    Start,
    /// After the connection is closed and the database files are fsynced.
    End,
}

/// What one configuration's run measured on the host side.
#[derive(Debug, Clone)]
pub struct ConfigRun {
    /// Wall-clock latency of each transaction, BEGIN to COMMIT's return (ns).
    pub latencies_ns: Vec<u64>,
    /// Wall-clock time of the N transactions (ns).
    pub tx_wall_ns: u64,
    /// Wall-clock time of the whole measured interval (ns).
    pub measured_wall_ns: u64,
    /// The recorded file-operation log (setup included; the measure marks bound the interval).
    pub events: Vec<Event>,
    /// What `PRAGMA integrity_check` answered.
    pub integrity: String,
    /// Rows in the table after the run (checked against the expected count).
    pub final_rows: i64,
}

/// The database file names of one run, registered for removal; removed on drop.
struct DbFiles {
    paths: Vec<PathBuf>,
}

impl DbFiles {
    fn new(db: &Path) -> DbFiles {
        let s = db.display().to_string();
        let paths: Vec<PathBuf> = [s.clone(), format!("{s}-journal"), format!("{s}-wal"), format!("{s}-shm")]
            .into_iter()
            .map(PathBuf::from)
            .collect();
        for p in &paths {
            Cleanup::global().register(p);
        }
        DbFiles { paths }
    }

    fn remove(&self) -> Result<(), Error> {
        for p in &self.paths {
            Cleanup::global().remove(p).map_err(|source| Error::Io { path: p.clone(), source })?;
        }
        Ok(())
    }
}

impl DbFiles {
    /// fsync each database file that exists, then the directory.
    fn fsync_existing(&self, dir: &Path) -> Result<(), Error> {
        for p in &self.paths {
            match std::fs::OpenOptions::new().write(true).open(p) {
                Ok(f) => f.sync_all().map_err(|source| Error::Io { path: p.clone(), source })?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(Error::Io { path: p.clone(), source }),
            }
        }
        let d = std::fs::File::open(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
        d.sync_all().map_err(|source| Error::Io { path: dir.to_path_buf(), source })
    }
}

impl Drop for DbFiles {
    fn drop(&mut self) {
        let _ = self.remove();
    }
}

/// A database path in `dir` no other run uses.
pub fn db_path(dir: &Path) -> PathBuf {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    dir.join(format!("flashlab-sqlite-{}-{}.db", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed)))
}

/// Check that flashlab can create files in `dir` (a probe file, removed at once).
pub fn check_writable(dir: &Path) -> Result<(), Error> {
    let err = |msg: String| Error::Target { path: dir.to_path_buf(), msg };
    let meta = std::fs::metadata(dir).map_err(|e| err(format!("{e} (give an existing directory or sim:PROFILE)")))?;
    if !meta.is_dir() {
        return Err(err("not a directory (flashlab sqlite runs in a directory of a mounted filesystem)".into()));
    }
    let _gate = crate::signals::gate();
    let probe = db_path(dir).with_extension("probe");
    Cleanup::global().register(&probe);
    let r = {
        let _gate = flashlab_real::cleanup::creating();
        std::fs::OpenOptions::new().write(true).create_new(true).open(&probe)
    };
    let _ = Cleanup::global().remove(&probe);
    r.map(|_| ()).map_err(|e| err(format!("cannot create files here: {e}")))
}

/// `syncfs(2)` on the filesystem holding `dir`.
pub fn syncfs(dir: &Path) -> Result<(), Error> {
    let f = std::fs::File::open(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
    // SAFETY: a valid open descriptor.
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(Error::Io { path: dir.to_path_buf(), source: std::io::Error::last_os_error() });
    }
    Ok(())
}

/// splitmix64: the workload's seeded choices (ids, senders, message text).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// Message text of exactly `len` bytes (lowercase words and spaces).
    fn text(&mut self, len: usize, out: &mut String) {
        out.clear();
        while out.len() < len {
            let r = self.next();
            for i in 0..8 {
                if out.len() == len {
                    break;
                }
                let b = ((r >> (i * 8)) & 0xff) as u8 % 28;
                out.push(if b >= 26 { ' ' } else { (b'a' + b) as char });
            }
        }
    }
}

const SCHEMA: &str = "CREATE TABLE messages(id INTEGER PRIMARY KEY, thread INTEGER NOT NULL, \
     sender INTEGER NOT NULL, sent_at INTEGER NOT NULL, body TEXT NOT NULL);
     CREATE INDEX messages_thread ON messages(thread, sent_at);";
const INSERT: &str = "INSERT INTO messages(thread, sender, sent_at, body) VALUES (?1, ?2, ?3, ?4)";
const UPDATE: &str = "UPDATE messages SET body = ?1 WHERE id = ?2";
const DELETE: &str = "DELETE FROM messages WHERE id = ?1";

/// The live row ids [lo, hi) and the next message's fields.
struct Table {
    lo: i64,
    hi: i64,
    sent_at: i64,
    body: String,
}

impl Table {
    fn insert(&mut self, c: &Connection, rng: &mut Rng, row_bytes: usize) -> rusqlite::Result<()> {
        rng.text(row_bytes, &mut self.body);
        self.sent_at += 1;
        let thread = rng.below(16) as i64;
        let sender = rng.below(64) as i64;
        c.prepare_cached(INSERT)?.execute(params![thread, sender, self.sent_at, self.body])?;
        self.hi += 1;
        Ok(())
    }

    fn update(&mut self, c: &Connection, rng: &mut Rng, row_bytes: usize) -> rusqlite::Result<()> {
        rng.text(row_bytes, &mut self.body);
        let id = self.lo + rng.below((self.hi - self.lo) as u64) as i64;
        c.prepare_cached(UPDATE)?.execute(params![self.body, id])?;
        Ok(())
    }

    fn delete(&mut self, c: &Connection) -> rusqlite::Result<()> {
        c.prepare_cached(DELETE)?.execute(params![self.lo])?;
        self.lo += 1;
        Ok(())
    }

    fn op(&mut self, shape: Shape, c: &Connection, rng: &mut Rng, row_bytes: usize) -> rusqlite::Result<()> {
        let shape = match shape {
            Shape::Mix => match rng.below(10) {
                0..=4 => Shape::Insert,
                5..=7 => Shape::Update,
                _ => Shape::Delete,
            },
            s => s,
        };
        match shape {
            _ if self.lo == self.hi => self.insert(c, rng, row_bytes),
            Shape::Insert | Shape::Mix => self.insert(c, rng, row_bytes),
            Shape::Update => self.update(c, rng, row_bytes),
            Shape::Delete => self.delete(c),
        }
    }
}

fn pragma_string(c: &Connection, sql: &str) -> Result<String, Error> {
    c.query_row(sql, [], |r| r.get::<_, String>(0)).map_err(Error::sqlite(sql))
}

/// Run one configuration in `dir` through `vfs`; `at` is called at the two [`Phase`]s.
pub fn run_config(
    dir: &Path,
    vfs: &RecordingVfs,
    wl: &Workload,
    mode: JournalMode,
    sync: SyncMode,
    at: &mut dyn FnMut(Phase) -> Result<(), Error>,
) -> Result<ConfigRun, Error> {
    let db = db_path(dir);
    let files = DbFiles::new(&db);
    let config = format!("journal_mode={mode}, synchronous={sync}");
    let rec = vfs.recorder().clone();
    rec.take();
    let mut rng = Rng(wl.seed ^ 0x5EED_F1A5_4000_0000);
    let mut table = Table { lo: 1, hi: 1, sent_at: 1_700_000_000_000, body: String::with_capacity(wl.row_bytes) };

    let setup_gate = crate::signals::gate();
    let c = Connection::open_with_flags_and_vfs(&db, OpenFlags::default(), vfs.name())
        .map_err(Error::sqlite(format!("open {}", db.display())))?;
    let got = pragma_string(&c, &format!("PRAGMA journal_mode={}", mode.pragma()))?;
    if !got.eq_ignore_ascii_case(mode.pragma()) {
        return Err(Error::Target {
            path: dir.to_path_buf(),
            msg: format!("SQLite refused journal_mode={mode} here (it answered '{got}')"),
        });
    }
    c.execute_batch(&format!("PRAGMA synchronous={}", sync.pragma())).map_err(Error::sqlite("PRAGMA synchronous"))?;
    let level: i64 =
        c.query_row("PRAGMA synchronous", [], |r| r.get(0)).map_err(Error::sqlite("PRAGMA synchronous"))?;
    if level != sync.level() {
        return Err(Error::Sqlite {
            what: format!("PRAGMA synchronous={sync} answered {level}"),
            source: rusqlite::Error::InvalidQuery,
        });
    }
    c.execute_batch(SCHEMA).map_err(Error::sqlite("create table"))?;
    // Pre-fill as many rows as the run touches, so updates and deletes always find rows.
    c.execute_batch("BEGIN").map_err(Error::sqlite("pre-fill"))?;
    for _ in 0..wl.rows() {
        table.insert(&c, &mut rng, wl.row_bytes).map_err(Error::sqlite("pre-fill"))?;
    }
    c.execute_batch("COMMIT").map_err(Error::sqlite("pre-fill"))?;
    if mode == JournalMode::Wal {
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).map_err(Error::sqlite("wal_checkpoint"))?;
    }
    drop(setup_gate);

    syncfs(dir)?;
    rec.mark(Mark::WritebackAll);
    at(Phase::Start)?;
    rec.mark(Mark::MeasureStart);
    let measure_start = Instant::now();
    let mut latencies_ns = Vec::with_capacity(wl.transactions as usize);
    for _ in 0..wl.transactions {
        let _gate = crate::signals::gate();
        rec.mark(Mark::TxBegin);
        let t0 = Instant::now();
        c.execute_batch("BEGIN").map_err(Error::sqlite(format!("BEGIN ({config})")))?;
        for _ in 0..wl.batch {
            table
                .op(wl.shape, &c, &mut rng, wl.row_bytes)
                .map_err(Error::sqlite(format!("{} ({config})", wl.shape)))?;
        }
        c.execute_batch("COMMIT").map_err(Error::sqlite(format!("COMMIT ({config})")))?;
        latencies_ns.push(t0.elapsed().as_nanos() as u64);
        rec.mark(Mark::TxEnd);
    }
    let tx_wall_ns = measure_start.elapsed().as_nanos() as u64;
    let close_gate = crate::signals::gate();
    c.close().map_err(|(_, e)| Error::Sqlite { what: format!("close ({config})"), source: e })?;
    files.fsync_existing(dir)?;
    drop(close_gate);
    rec.mark(Mark::WritebackAll);
    at(Phase::End)?;
    rec.mark(Mark::MeasureEnd);
    let measured_wall_ns = measure_start.elapsed().as_nanos() as u64;
    let events = rec.take();

    // Check with the default VFS, outside the measured interval.
    let _check_gate = crate::signals::gate();
    let c = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(Error::sqlite(format!("reopen {}", db.display())))?;
    let answers: Vec<String> = c
        .prepare("PRAGMA integrity_check")
        .and_then(|mut s| s.query_map([], |r| r.get::<_, String>(0))?.collect())
        .map_err(Error::sqlite("PRAGMA integrity_check"))?;
    let integrity = answers.join("; ");
    if integrity != "ok" {
        return Err(Error::Integrity { config, answer: integrity });
    }
    let final_rows: i64 =
        c.query_row("SELECT count(*) FROM messages", [], |r| r.get(0)).map_err(Error::sqlite("count rows"))?;
    if final_rows != table.hi - table.lo {
        return Err(Error::Integrity {
            config,
            answer: format!("{final_rows} rows, expected {}", table.hi - table.lo),
        });
    }
    drop(c);
    files.remove()?;
    Ok(ConfigRun { latencies_ns, tx_wall_ns, measured_wall_ns, events, integrity, final_rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_has_the_asked_length() {
        let mut r = Rng(7);
        let mut s = String::new();
        for len in [1, 7, 8, 9, 100, 1000] {
            r.text(len, &mut s);
            assert_eq!(s.len(), len);
        }
    }
}
