//! A recording SQLite VFS: an `sqlite3_vfs` registered through `rusqlite::ffi` that wraps the
//! default VFS (unix) and forwards every call to it, recording the file operations SQLite asks
//! for: opens, `xWrite(file, offset, len)`, `xSync`, `xTruncate`, `xClose`, `xDelete`, and
//! shared-memory maps (the WAL index, which SQLite writes through mmap, never through xWrite).
//! The workload adds marks (transaction begin/end, syncfs, measured interval) to the same log.
//!
//! The real I/O still happens, on the real directory, through the real unix VFS: on a real
//! target the kernel counters measure it; on a simulated target the log is replayed on the
//! simulated device (`replay.rs`).

use crate::error::Error;
use rusqlite::ffi;
use serde::{Deserialize, Serialize};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::mem::size_of;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What kind of file SQLite opened (from the open flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// The main database file.
    MainDb,
    /// The rollback journal (`-journal`).
    MainJournal,
    /// The write-ahead log (`-wal`).
    Wal,
    /// Temporary databases, statement and super journals: no name or deleted on close.
    Other,
}

impl FileKind {
    fn from_flags(flags: c_int) -> FileKind {
        if flags & ffi::SQLITE_OPEN_MAIN_DB != 0 {
            FileKind::MainDb
        } else if flags & ffi::SQLITE_OPEN_MAIN_JOURNAL != 0 {
            FileKind::MainJournal
        } else if flags & ffi::SQLITE_OPEN_WAL != 0 {
            FileKind::Wal
        } else {
            FileKind::Other
        }
    }
}

/// Points the workload marks in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mark {
    /// Every dirty page of the database files was written back and the device's cache flushed:
    /// `syncfs` on the directory's filesystem before the measured interval, an fsync of each
    /// remaining database file (and of the directory) at its end.
    WritebackAll,
    /// The measured interval starts (right after a writeback of everything).
    MeasureStart,
    /// The measured interval ends (right after a writeback of everything).
    MeasureEnd,
    /// A transaction's BEGIN is about to run.
    TxBegin,
    /// A transaction's COMMIT returned.
    TxEnd,
}

/// One recorded operation. `file` is the handle number of an [`Event::Open`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// `path` is `None` for files SQLite opens without a name (temporary files).
    Open {
        /// Handle number given to this open.
        file: u32,
        /// The path SQLite opened (`None`: a nameless temporary file).
        path: Option<String>,
        /// What the file is for.
        kind: FileKind,
        /// SQLite's unix VFS will also fsync the directory at the file's first sync: it was
        /// opened to create a journal or WAL (`isNewJrnl` in `unixOpen`, `UNIXFILE_DIRSYNC`).
        #[serde(default)]
        dir_sync: bool,
        /// SQLite's unix VFS changed the file's inode as it opened it: running as root, it
        /// gives a journal or WAL the database's owner (`robustFchown` in `unixOpen`), which
        /// moves the file's ctime even when the owner is the same.
        #[serde(default)]
        chown: bool,
    },
    /// SQLite wrote `len` bytes at byte offset `off`.
    Write {
        /// The handle written.
        file: u32,
        /// Byte offset.
        off: u64,
        /// Bytes written.
        len: u64,
    },
    /// SQLite synced the file (`xSync`).
    Sync {
        /// The handle synced.
        file: u32,
        /// SQLite's sync flags (`SQLITE_SYNC_NORMAL`/`FULL`, `DATAONLY`).
        flags: i32,
    },
    /// SQLite truncated the file to `size` bytes.
    Truncate {
        /// The handle truncated.
        file: u32,
        /// New length, bytes.
        size: u64,
    },
    /// SQLite closed the file.
    Close {
        /// The handle closed.
        file: u32,
    },
    /// SQLite deleted a file by name.
    Delete {
        /// The path deleted.
        path: String,
        /// SQLite asked for a directory sync after the delete (its syncDir flag).
        sync_dir: bool,
    },
    /// SQLite read from the file (a read may update its atime: `relatime`).
    Read {
        /// The handle read.
        file: u32,
    },
    /// SQLite asked for the file's size (`xFileSize`: an fstat, which reads its timestamps).
    Stat {
        /// The handle asked about.
        file: u32,
    },
    /// A region of the WAL index (`-shm`) was mapped.
    ShmMap {
        /// The `-shm` handle.
        file: u32,
        /// Region index (SQLite's `iRegion`).
        region: u32,
        /// Region size, bytes.
        size: u32,
    },
    /// A point the workload marked.
    Mark(Mark),
}

/// The log one VFS writes into. Several threads may record at once (each test registers its
/// own VFS, so logs do not mix).
#[derive(Debug, Default)]
pub struct Recorder {
    events: Mutex<Vec<Event>>,
    /// `CLOCK_REALTIME_COARSE` (ns) at each event, in step with `events`; for a write, as read
    /// just before its system call: the value ext4 compares with the file's mtime.
    clocks: Mutex<Vec<u64>>,
    /// The clocks of the events the last [`Recorder::take`] returned.
    taken_clocks: Mutex<Vec<u64>>,
    next_file: AtomicU32,
}

impl Recorder {
    pub(crate) fn new() -> Arc<Recorder> {
        Arc::new(Recorder::default())
    }

    pub(crate) fn push(&self, e: Event) {
        self.push_at(e, coarse_clock_ns());
    }

    /// Record `e` with the coarse clock read when it happened.
    pub fn push_at(&self, e: Event, clock_ns: u64) {
        let mut ev = self.events.lock().unwrap_or_else(|p| p.into_inner());
        ev.push(e);
        self.clocks.lock().unwrap_or_else(|p| p.into_inner()).push(clock_ns);
    }

    pub(crate) fn mark(&self, m: Mark) {
        self.push(Event::Mark(m));
    }

    /// Take the log, leaving it empty.
    pub fn take(&self) -> Vec<Event> {
        let mut ev = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let clocks = std::mem::take(&mut *self.clocks.lock().unwrap_or_else(|p| p.into_inner()));
        *self.taken_clocks.lock().unwrap_or_else(|p| p.into_inner()) = clocks;
        std::mem::take(&mut *ev)
    }

    /// The kernel's coarse clock (ns) at each event the last [`Recorder::take`] returned, one
    /// value per event: file timestamps come from this clock, so a replay that compares with
    /// the kernel can dirty inodes where the kernel did ([`crate::replay::replay_with_clock`]).
    pub fn taken_clocks(&self) -> Vec<u64> {
        self.taken_clocks.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn new_file(&self) -> u32 {
        self.next_file.fetch_add(1, Ordering::Relaxed)
    }
}

/// The registered VFS; unregistered when dropped. Every connection opened with [`Self::name`]
/// must be closed before this is dropped.
pub struct RecordingVfs {
    boxed: *mut VfsBox,
    name: String,
    recorder: Arc<Recorder>,
}

// SAFETY: the VfsBox is only read after registration (SQLite's own calls are thread-safe in
// the bundled, serialized build); the recorder is behind a Mutex.
unsafe impl Send for RecordingVfs {}
unsafe impl Sync for RecordingVfs {}

struct VfsBox {
    vfs: ffi::sqlite3_vfs,
    inner: *mut ffi::sqlite3_vfs,
    recorder: Arc<Recorder>,
    _name: CString,
}

/// The file object SQLite allocates for us (`szOsFile` bytes): our header, then the inner
/// VFS's file object.
#[repr(C)]
struct RecFile {
    base: ffi::sqlite3_file,
    recorder: *const Recorder,
    id: u32,
}

impl RecordingVfs {
    /// Register a new recording VFS wrapping SQLite's default VFS (not as the default).
    pub fn register() -> Result<RecordingVfs, Error> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let name = format!("flashlab-rec-{}-{}", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed));
        let cname = CString::new(name.clone()).map_err(|e| Error::Vfs(e.to_string()))?;
        let recorder = Recorder::new();
        // SAFETY: plain SQLite C API calls; the VfsBox is leaked into a raw pointer that stays
        // valid (and unmoved) until Drop unregisters it.
        unsafe {
            let rc = ffi::sqlite3_initialize();
            if rc != ffi::SQLITE_OK {
                return Err(Error::Vfs(format!("sqlite3_initialize failed ({rc})")));
            }
            let inner = ffi::sqlite3_vfs_find(std::ptr::null());
            if inner.is_null() {
                return Err(Error::Vfs("SQLite has no default VFS".into()));
            }
            let iv = &*inner;
            let vfs = ffi::sqlite3_vfs {
                iVersion: 2,
                szOsFile: size_of::<RecFile>() as c_int + iv.szOsFile,
                mxPathname: iv.mxPathname,
                pNext: std::ptr::null_mut(),
                zName: cname.as_ptr(),
                pAppData: std::ptr::null_mut(),
                xOpen: Some(v_open),
                xDelete: Some(v_delete),
                xAccess: Some(v_access),
                xFullPathname: Some(v_full_pathname),
                xDlOpen: Some(v_dl_open),
                xDlError: Some(v_dl_error),
                xDlSym: Some(v_dl_sym),
                xDlClose: Some(v_dl_close),
                xRandomness: Some(v_randomness),
                xSleep: Some(v_sleep),
                xCurrentTime: Some(v_current_time),
                xGetLastError: Some(v_get_last_error),
                xCurrentTimeInt64: Some(v_current_time_i64),
                xSetSystemCall: None,
                xGetSystemCall: None,
                xNextSystemCall: None,
            };
            let boxed = Box::into_raw(Box::new(VfsBox { vfs, inner, recorder: recorder.clone(), _name: cname }));
            (*boxed).vfs.pAppData = boxed as *mut c_void;
            let rc = ffi::sqlite3_vfs_register(&mut (*boxed).vfs, 0);
            if rc != ffi::SQLITE_OK {
                drop(Box::from_raw(boxed));
                return Err(Error::Vfs(format!("sqlite3_vfs_register failed ({rc})")));
            }
            Ok(RecordingVfs { boxed, name, recorder })
        }
    }

    /// The name to open connections with.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The log this VFS records into.
    pub fn recorder(&self) -> &Arc<Recorder> {
        &self.recorder
    }
}

impl Drop for RecordingVfs {
    fn drop(&mut self) {
        // SAFETY: registered in `register`; no connection uses it any more (type contract).
        unsafe {
            ffi::sqlite3_vfs_unregister(&mut (*self.boxed).vfs);
            drop(Box::from_raw(self.boxed));
        }
    }
}

// ---- VFS methods -------------------------------------------------------------------------

unsafe fn vbox<'a>(v: *mut ffi::sqlite3_vfs) -> &'a VfsBox {
    &*((*v).pAppData as *const VfsBox)
}

unsafe fn inner_vfs(v: *mut ffi::sqlite3_vfs) -> *mut ffi::sqlite3_vfs {
    vbox(v).inner
}

unsafe fn c_str(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        Some(CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

unsafe extern "C" fn v_open(
    v: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let b = vbox(v);
    let f = file as *mut RecFile;
    let inner = inner_file(file);
    (*f).base.pMethods = std::ptr::null();
    let Some(open) = (*b.inner).xOpen else { return ffi::SQLITE_CANTOPEN };
    let rc = open(b.inner, name, inner, flags, out_flags);
    if rc != ffi::SQLITE_OK {
        // The inner VFS may have set its methods even though it failed: close it ourselves,
        // and leave ours NULL so SQLite does not call xClose on us.
        if !(*inner).pMethods.is_null() {
            if let Some(close) = (*(*inner).pMethods).xClose {
                close(inner);
            }
        }
        return rc;
    }
    let id = b.recorder.new_file();
    (*f).recorder = Arc::as_ptr(&b.recorder);
    (*f).id = id;
    (*f).base.pMethods = &REC_IO;
    let kind = FileKind::from_flags(flags);
    let dir_sync = flags & ffi::SQLITE_OPEN_CREATE != 0 && matches!(kind, FileKind::MainJournal | FileKind::Wal);
    // SAFETY: geteuid has no preconditions.
    let chown = dir_sync && unsafe { libc::geteuid() } == 0;
    b.recorder.push(Event::Open { file: id, path: c_str(name), kind, dir_sync, chown });
    rc
}

unsafe extern "C" fn v_delete(v: *mut ffi::sqlite3_vfs, name: *const c_char, sync_dir: c_int) -> c_int {
    let b = vbox(v);
    let Some(del) = (*b.inner).xDelete else { return ffi::SQLITE_IOERR_DELETE };
    let rc = del(b.inner, name, sync_dir);
    if rc == ffi::SQLITE_OK {
        if let Some(path) = c_str(name) {
            b.recorder.push(Event::Delete { path, sync_dir: sync_dir != 0 });
        }
    }
    rc
}

unsafe extern "C" fn v_access(v: *mut ffi::sqlite3_vfs, name: *const c_char, flags: c_int, out: *mut c_int) -> c_int {
    let i = inner_vfs(v);
    match (*i).xAccess {
        Some(f) => f(i, name, flags, out),
        None => ffi::SQLITE_IOERR_ACCESS,
    }
}

unsafe extern "C" fn v_full_pathname(
    v: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    n: c_int,
    out: *mut c_char,
) -> c_int {
    let i = inner_vfs(v);
    match (*i).xFullPathname {
        Some(f) => f(i, name, n, out),
        None => ffi::SQLITE_CANTOPEN,
    }
}

unsafe extern "C" fn v_dl_open(v: *mut ffi::sqlite3_vfs, name: *const c_char) -> *mut c_void {
    let i = inner_vfs(v);
    match (*i).xDlOpen {
        Some(f) => f(i, name),
        None => std::ptr::null_mut(),
    }
}

unsafe extern "C" fn v_dl_error(v: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) {
    let i = inner_vfs(v);
    if let Some(f) = (*i).xDlError {
        f(i, n, out)
    }
}

type DlSym = unsafe extern "C" fn(*mut ffi::sqlite3_vfs, *mut c_void, *const c_char);

unsafe extern "C" fn v_dl_sym(v: *mut ffi::sqlite3_vfs, h: *mut c_void, sym: *const c_char) -> Option<DlSym> {
    let i = inner_vfs(v);
    ((*i).xDlSym?)(i, h, sym)
}

unsafe extern "C" fn v_dl_close(v: *mut ffi::sqlite3_vfs, h: *mut c_void) {
    let i = inner_vfs(v);
    if let Some(f) = (*i).xDlClose {
        f(i, h)
    }
}

unsafe extern "C" fn v_randomness(v: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    let i = inner_vfs(v);
    match (*i).xRandomness {
        Some(f) => f(i, n, out),
        None => 0,
    }
}

unsafe extern "C" fn v_sleep(v: *mut ffi::sqlite3_vfs, us: c_int) -> c_int {
    let i = inner_vfs(v);
    match (*i).xSleep {
        Some(f) => f(i, us),
        None => 0,
    }
}

unsafe extern "C" fn v_current_time(v: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    let i = inner_vfs(v);
    match (*i).xCurrentTime {
        Some(f) => f(i, out),
        None => ffi::SQLITE_ERROR,
    }
}

unsafe extern "C" fn v_get_last_error(v: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    let i = inner_vfs(v);
    match (*i).xGetLastError {
        Some(f) => f(i, n, out),
        None => 0,
    }
}

unsafe extern "C" fn v_current_time_i64(v: *mut ffi::sqlite3_vfs, out: *mut ffi::sqlite3_int64) -> c_int {
    let i = inner_vfs(v);
    if (*i).iVersion >= 2 {
        if let Some(f) = (*i).xCurrentTimeInt64 {
            return f(i, out);
        }
    }
    let mut days = 0.0;
    let rc = v_current_time(v, &mut days);
    *out = (days * 86_400_000.0) as ffi::sqlite3_int64;
    rc
}

// ---- file methods ------------------------------------------------------------------------

static REC_IO: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 3,
    xClose: Some(f_close),
    xRead: Some(f_read),
    xWrite: Some(f_write),
    xTruncate: Some(f_truncate),
    xSync: Some(f_sync),
    xFileSize: Some(f_file_size),
    xLock: Some(f_lock),
    xUnlock: Some(f_unlock),
    xCheckReservedLock: Some(f_check_reserved_lock),
    xFileControl: Some(f_file_control),
    xSectorSize: Some(f_sector_size),
    xDeviceCharacteristics: Some(f_device_characteristics),
    xShmMap: Some(f_shm_map),
    xShmLock: Some(f_shm_lock),
    xShmBarrier: Some(f_shm_barrier),
    xShmUnmap: Some(f_shm_unmap),
    xFetch: Some(f_fetch),
    xUnfetch: Some(f_unfetch),
};

unsafe fn inner_file(f: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file {
    (f as *mut u8).add(size_of::<RecFile>()) as *mut ffi::sqlite3_file
}

unsafe fn methods<'a>(f: *mut ffi::sqlite3_file) -> &'a ffi::sqlite3_io_methods {
    &*(*inner_file(f)).pMethods
}

/// `CLOCK_REALTIME_COARSE` in ns: the clock the kernel takes file timestamps from (a jiffy).
pub fn coarse_clock_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes one timespec we own; the clock exists on every Linux since 2.6.32.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

unsafe fn record(f: *mut ffi::sqlite3_file, e: impl FnOnce(u32) -> Event) {
    let rf = f as *mut RecFile;
    (*(*rf).recorder).push(e((*rf).id));
}

/// Forward a file method to the inner file, or answer `$missing` if it has none.
macro_rules! forward {
    ($f:expr, $method:ident, $missing:expr $(, $arg:expr)*) => {{
        let inner = inner_file($f);
        match methods($f).$method {
            Some(m) => m(inner $(, $arg)*),
            None => $missing,
        }
    }};
}

unsafe extern "C" fn f_close(f: *mut ffi::sqlite3_file) -> c_int {
    let rc = forward!(f, xClose, ffi::SQLITE_OK);
    record(f, |file| Event::Close { file });
    rc
}

unsafe extern "C" fn f_read(f: *mut ffi::sqlite3_file, buf: *mut c_void, n: c_int, off: ffi::sqlite3_int64) -> c_int {
    let rc = forward!(f, xRead, ffi::SQLITE_IOERR_READ, buf, n, off);
    if rc == ffi::SQLITE_OK || rc == ffi::SQLITE_IOERR_SHORT_READ {
        record(f, |file| Event::Read { file });
    }
    rc
}

unsafe extern "C" fn f_write(
    f: *mut ffi::sqlite3_file,
    buf: *const c_void,
    n: c_int,
    off: ffi::sqlite3_int64,
) -> c_int {
    let clock = coarse_clock_ns();
    let rc = forward!(f, xWrite, ffi::SQLITE_IOERR_WRITE, buf, n, off);
    if rc == ffi::SQLITE_OK {
        let rf = f as *mut RecFile;
        (*(*rf).recorder).push_at(Event::Write { file: (*rf).id, off: off as u64, len: n as u64 }, clock);
    }
    rc
}

unsafe extern "C" fn f_truncate(f: *mut ffi::sqlite3_file, size: ffi::sqlite3_int64) -> c_int {
    let rc = forward!(f, xTruncate, ffi::SQLITE_IOERR_TRUNCATE, size);
    if rc == ffi::SQLITE_OK {
        record(f, |file| Event::Truncate { file, size: size as u64 });
    }
    rc
}

unsafe extern "C" fn f_sync(f: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    let rc = forward!(f, xSync, ffi::SQLITE_IOERR_FSYNC, flags);
    if rc == ffi::SQLITE_OK {
        record(f, |file| Event::Sync { file, flags });
    }
    rc
}

unsafe extern "C" fn f_file_size(f: *mut ffi::sqlite3_file, out: *mut ffi::sqlite3_int64) -> c_int {
    let rc = forward!(f, xFileSize, ffi::SQLITE_IOERR_FSTAT, out);
    if rc == ffi::SQLITE_OK {
        record(f, |file| Event::Stat { file });
    }
    rc
}

unsafe extern "C" fn f_lock(f: *mut ffi::sqlite3_file, l: c_int) -> c_int {
    forward!(f, xLock, ffi::SQLITE_IOERR_LOCK, l)
}

unsafe extern "C" fn f_unlock(f: *mut ffi::sqlite3_file, l: c_int) -> c_int {
    forward!(f, xUnlock, ffi::SQLITE_IOERR_UNLOCK, l)
}

unsafe extern "C" fn f_check_reserved_lock(f: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    forward!(f, xCheckReservedLock, ffi::SQLITE_IOERR_CHECKRESERVEDLOCK, out)
}

unsafe extern "C" fn f_file_control(f: *mut ffi::sqlite3_file, op: c_int, arg: *mut c_void) -> c_int {
    forward!(f, xFileControl, ffi::SQLITE_NOTFOUND, op, arg)
}

unsafe extern "C" fn f_sector_size(f: *mut ffi::sqlite3_file) -> c_int {
    forward!(f, xSectorSize, 4096)
}

unsafe extern "C" fn f_device_characteristics(f: *mut ffi::sqlite3_file) -> c_int {
    forward!(f, xDeviceCharacteristics, 0)
}

unsafe extern "C" fn f_shm_map(
    f: *mut ffi::sqlite3_file,
    region: c_int,
    size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    if methods(f).iVersion < 2 {
        return ffi::SQLITE_IOERR_SHMMAP;
    }
    let rc = forward!(f, xShmMap, ffi::SQLITE_IOERR_SHMMAP, region, size, extend, out);
    if rc == ffi::SQLITE_OK && !(*out).is_null() {
        record(f, |file| Event::ShmMap { file, region: region as u32, size: size as u32 });
    }
    rc
}

unsafe extern "C" fn f_shm_lock(f: *mut ffi::sqlite3_file, off: c_int, n: c_int, flags: c_int) -> c_int {
    if methods(f).iVersion < 2 {
        return ffi::SQLITE_IOERR_SHMLOCK;
    }
    forward!(f, xShmLock, ffi::SQLITE_IOERR_SHMLOCK, off, n, flags)
}

unsafe extern "C" fn f_shm_barrier(f: *mut ffi::sqlite3_file) {
    if methods(f).iVersion >= 2 {
        forward!(f, xShmBarrier, ())
    }
}

unsafe extern "C" fn f_shm_unmap(f: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    if methods(f).iVersion < 2 {
        return ffi::SQLITE_OK;
    }
    forward!(f, xShmUnmap, ffi::SQLITE_OK, delete)
}

unsafe extern "C" fn f_fetch(
    f: *mut ffi::sqlite3_file,
    off: ffi::sqlite3_int64,
    n: c_int,
    pp: *mut *mut c_void,
) -> c_int {
    if methods(f).iVersion < 3 {
        *pp = std::ptr::null_mut();
        return ffi::SQLITE_OK;
    }
    forward!(
        f,
        xFetch,
        {
            *pp = std::ptr::null_mut();
            ffi::SQLITE_OK
        },
        off,
        n,
        pp
    )
}

unsafe extern "C" fn f_unfetch(f: *mut ffi::sqlite3_file, off: ffi::sqlite3_int64, p: *mut c_void) -> c_int {
    if methods(f).iVersion < 3 {
        return ffi::SQLITE_OK;
    }
    forward!(f, xUnfetch, ffi::SQLITE_OK, off, p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::{Connection, OpenFlags};

    #[test]
    fn records_and_forwards() {
        let vfs = RecordingVfs::register().unwrap();
        let dir = std::env::temp_dir();
        let db = dir.join(format!("flashlab-vfs-test-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&db);
        {
            let c = Connection::open_with_flags_and_vfs(&db, OpenFlags::default(), vfs.name()).unwrap();
            c.execute_batch(
                "PRAGMA journal_mode=delete; PRAGMA synchronous=full; CREATE TABLE t(x); INSERT INTO t VALUES (1);",
            )
            .unwrap();
            let n: i64 = c.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
            assert_eq!(n, 1);
        }
        let ev = vfs.recorder().take();
        let _ = std::fs::remove_file(&db);
        assert!(ev.iter().any(|e| matches!(e, Event::Open { kind: FileKind::MainDb, .. })));
        assert!(ev.iter().any(|e| matches!(e, Event::Open { kind: FileKind::MainJournal, .. })));
        assert!(ev.iter().any(|e| matches!(e, Event::Write { .. })));
        assert!(ev.iter().any(|e| matches!(e, Event::Sync { .. })));
        assert!(ev.iter().any(|e| matches!(e, Event::Delete { path, .. } if path.ends_with("-journal"))));
        let opens = ev.iter().filter(|e| matches!(e, Event::Open { .. })).count();
        let closes = ev.iter().filter(|e| matches!(e, Event::Close { .. })).count();
        assert_eq!(opens, closes, "every file closed: {ev:?}");
    }
}
