//! A directory on a mounted filesystem as the target of a protocol. flashlab creates only its
//! own files there — the four-corner test file ([`TEST_FILE`]) and fill files
//! ([`FILL_PREFIX`]`NNNNN`) — registers each in a [`Cleanup`] before creating it, and removes
//! them when a step is done with them, when the target is dropped (success or error) and on
//! SIGINT/SIGTERM (see [`crate::cleanup`]).
//!
//! Steps: four-corner (the four tests on a new test file, then it is deleted), fill
//! (sequential 1 MiB writes into fill files until `leave_free` bytes are free, by statvfs;
//! ENOSPC ends the fill normally), random-writes (a fill file preallocated over the free
//! space but `keep_free`, then 4 KiB random writes into it), delete-fill (unlink), fstrim
//! (the FITRIM ioctl on the directory — it trims the whole mounted filesystem's free space
//! and reports the trimmed bytes; a filesystem without it gets a message, not an error),
//! idle (sleep, or [`DirTarget::idle_override`] instead of the protocol's duration).

use crate::buffers::DataPattern;
use crate::cleanup::Cleanup;
use crate::engine::EngineKind;
use crate::runner::{open_file, run_job, RealJob};
use crate::RealError;
use flashlab_jobs::Rw;
use flashlab_measure::JobResult;
use flashlab_workload::fourcorner::{
    DeviceClockRates, DeviceSample, FourCorner, FourCornerConfig, FourCornerFile, READ_FILE, TEST_FILE,
};
use flashlab_workload::protocol::FILL_PREFIX;
use flashlab_workload::protocol::{FileSizes, ProtocolTarget, RandomWrites};
use flashlab_workload::rng::Rng;
use flashlab_workload::Error as LabError;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How a real target does its I/O.
#[derive(Debug, Clone)]
pub struct RealOptions {
    /// The I/O engine.
    pub engine: EngineKind,
    /// O_DIRECT (default); false = buffered (`--buffered`).
    pub direct: bool,
    /// What the written bytes hold.
    pub pattern: DataPattern,
    /// Block size of fill writes (default 1 MiB).
    pub fill_bs: u64,
    /// Queue depth of fill writes (default 4; psync does 1).
    pub fill_iodepth: u32,
}

impl Default for RealOptions {
    fn default() -> Self {
        RealOptions {
            engine: EngineKind::IoUring,
            direct: true,
            pattern: DataPattern::Random,
            fill_bs: 1 << 20,
            fill_iodepth: 4,
        }
    }
}

/// Name of the file [`DirTarget::new`] creates and removes to check the directory.
pub const PROBE_FILE: &str = "flashlab-probe.tmp";

/// A directory on a mounted filesystem.
pub struct DirTarget {
    dir: PathBuf,
    /// How the target does its I/O.
    pub opts: RealOptions,
    /// Sleep this long in every idle step instead of the protocol's duration (`--idle`).
    pub idle_override: Option<Duration>,
    cleanup: Cleanup,
    created: Instant,
    fill_files: Vec<PathBuf>,
    /// Where `fill` steps put their files (default: `dir`), and whether with O_DIRECT there;
    /// see [`DirTarget::set_fill_dir`].
    fill_dir: Option<PathBuf>,
    fill_direct: bool,
    /// A second clock for the four-corner tests when the filesystem sits on a `flashlab serve`
    /// device: a reading of the simulated device's busy time and counters, taken before and
    /// after each test; see [`flashlab_workload::fourcorner::DeviceClockRates`].
    pub device_clock: Option<Box<dyn FnMut() -> Result<DeviceSample, String>>>,
}

/// `struct fstrim_range` of <linux/fs.h>.
#[repr(C)]
struct FstrimRange {
    start: u64,
    len: u64,
    minlen: u64,
}

/// `FITRIM` = `_IOWR('X', 121, struct fstrim_range)`.
const FITRIM: libc::c_ulong = 0xC018_5879;

/// Free bytes for an unprivileged writer on the filesystem holding `path` (statvfs
/// `f_bavail × f_frsize`, as `df` shows).
pub fn free_bytes(path: &Path) -> Result<u64, RealError> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| RealError::BadJob(format!("{}: path contains a NUL byte", path.display())))?;
    // SAFETY: statvfs fills the struct we pass; c is a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(RealError::io(format!("{}: statvfs", path.display()), std::io::Error::last_os_error()));
    }
    Ok(st.f_bavail as u64 * st.f_frsize as u64)
}

impl DirTarget {
    /// A target in `dir`, registering its files in [`Cleanup::global`] (the registry the
    /// signal handlers empty).
    pub fn new(dir: &Path, opts: RealOptions) -> Result<DirTarget, RealError> {
        DirTarget::with_cleanup(dir, opts, Cleanup::global().clone())
    }

    /// A target in `dir` registering its files in `cleanup`. Checks that `dir` is a writable
    /// directory and (with `opts.direct`) that its filesystem takes O_DIRECT, by creating and
    /// removing [`PROBE_FILE`].
    pub fn with_cleanup(dir: &Path, opts: RealOptions, cleanup: Cleanup) -> Result<DirTarget, RealError> {
        let md = std::fs::metadata(dir).map_err(|e| RealError::io(format!("{}", dir.display()), e))?;
        if !md.is_dir() {
            return Err(RealError::BadJob(format!(
                "{}: not a directory (a real target is a directory on a mounted filesystem, or a block device)",
                dir.display()
            )));
        }
        let t = DirTarget {
            dir: dir.to_path_buf(),
            opts: opts.clone(),
            idle_override: None,
            cleanup,
            created: Instant::now(),
            fill_files: Vec::new(),
            fill_dir: None,
            fill_direct: opts.direct,
            device_clock: None,
        };
        let probe = t.own_new_file(PROBE_FILE)?;
        let r = open_file(&probe, t.opts.direct, true);
        let _ = t.cleanup.remove(&probe);
        r?;
        Ok(t)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Put the files of `fill` steps into `dir` instead (e.g. a phone's shared storage while the
    /// four-corner runs on /data). With O_DIRECT asked for, a filesystem that refuses it there
    /// (FUSE, as Android's /sdcard) gets buffered writes with an fsync per file instead; the
    /// returned note says so.
    pub fn set_fill_dir(&mut self, dir: &Path) -> Result<Option<String>, RealError> {
        let md = std::fs::metadata(dir).map_err(|e| RealError::io(format!("fill directory {}", dir.display()), e))?;
        if !md.is_dir() {
            return Err(RealError::BadJob(format!("fill directory {}: not a directory", dir.display())));
        }
        let probe = dir.join(PROBE_FILE);
        if probe.symlink_metadata().is_ok() && !self.cleanup.contains(&probe) {
            return Err(RealError::Refused(format!("{}: already exists and was not created by this run; flashlab writes only files it creates (remove it if a previous run left it)", probe.display())));
        }
        self.cleanup.register(&probe);
        let r = open_file(&probe, self.opts.direct, true);
        let _ = self.cleanup.remove(&probe);
        self.fill_dir = Some(dir.to_path_buf());
        self.fill_direct = self.opts.direct;
        match r {
            Ok(_) => Ok(None),
            Err(RealError::DirectUnsupported { .. }) => {
                // Buffered, then: the probe must at least be creatable.
                self.cleanup.register(&probe);
                let r = open_file(&probe, false, true);
                let _ = self.cleanup.remove(&probe);
                r?;
                self.fill_direct = false;
                Ok(Some(format!(
                    "the filesystem of {} does not take O_DIRECT (FUSE?): fill files there are written buffered, each ended by fsync",
                    dir.display()
                )))
            }
            Err(e) => Err(e),
        }
    }

    /// Where fill files go.
    fn fill_place(&self) -> &Path {
        self.fill_dir.as_deref().unwrap_or(&self.dir)
    }

    /// The fill files that exist now.
    pub fn fill_files(&self) -> &[PathBuf] {
        &self.fill_files
    }

    /// Free bytes on the directory's filesystem.
    pub fn free_bytes(&self) -> Result<u64, RealError> {
        free_bytes(&self.dir)
    }

    /// Free bytes, waiting for space a deletion has not yet returned. A file unlinked just
    /// before (the protocol's torture file) gives its blocks back only once the kernel has
    /// evicted its inode (writeback may still hold it) and, on ext4, committed the journal
    /// transaction that freed them. A benchmark app on a phone starts its next test seconds
    /// later, after jbd2's 5 s commit interval; here `syncfs` forces the writeback and the
    /// commit, and the count is read again for up to 5 s. Seen in a loaded CI run: 4 MB free
    /// right after the delete, where the file had held more than 16 MB.
    fn free_bytes_settled(&self, want: u64) -> Result<u64, RealError> {
        let mut free = self.free_bytes()?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while free < want && std::time::Instant::now() < deadline {
            if let Ok(d) = std::fs::File::open(&self.dir) {
                // SAFETY: syncfs on a valid open descriptor; failure only means no flush.
                unsafe { libc::syncfs(std::os::fd::AsRawFd::as_raw_fd(&d)) };
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            free = self.free_bytes()?;
        }
        Ok(free)
    }

    /// Register `dir/name` for a new file; refuses a name that exists (not ours).
    fn own_new_file(&self, name: &str) -> Result<PathBuf, RealError> {
        let p = self.dir.join(name);
        if p.symlink_metadata().is_ok() && !self.cleanup.contains(&p) {
            return Err(RealError::Refused(format!("{}: already exists and was not created by this run; flashlab writes only files it creates (remove it if a previous run left it)", p.display())));
        }
        self.cleanup.register(&p);
        Ok(p)
    }

    fn next_fill_path(&self) -> Result<PathBuf, RealError> {
        let name = (0..)
            .map(|i| format!("{FILL_PREFIX}{i:05}"))
            .find(|n| self.dir.join(n).symlink_metadata().is_err())
            .expect("a free name");
        self.own_new_file(&name)
    }

    /// A new fill file in the fill directory (see [`DirTarget::set_fill_dir`]).
    fn next_fill_path_in_place(&self) -> Result<PathBuf, RealError> {
        let Some(dir) = self.fill_dir.as_deref() else { return self.next_fill_path() };
        let name = (0..)
            .map(|i| format!("{FILL_PREFIX}{i:05}"))
            .find(|n| dir.join(n).symlink_metadata().is_err())
            .expect("a free name");
        let p = dir.join(name);
        self.cleanup.register(&p);
        Ok(p)
    }

    fn job(&self, name: &str, rw: Rw, bs: u64, span: u64) -> RealJob {
        let mut j = RealJob::new(name, rw, bs, span);
        j.engine = self.opts.engine;
        j.direct = self.opts.direct;
        j.pattern = self.opts.pattern;
        // Buffered writes count only once they reach the device.
        j.settings.end_fsync = !self.opts.direct;
        j
    }

    fn four_corner_on(
        &mut self,
        path: &Path,
        read_path: Option<&Path>,
        fc: &FourCornerConfig,
        label: &str,
        progress: &mut dyn FnMut(&str, f64),
    ) -> Result<FourCorner, RealError> {
        let need = fc.span + read_path.and(fc.read_file).unwrap_or(0);
        let free = self.free_bytes_settled(need)?;
        if free < need {
            return Err(RealError::BadJob(format!(
                "{}: four-corner needs {} bytes free for its test files, {} are",
                self.dir.display(),
                need,
                free
            )));
        }
        let f = open_file(path, self.opts.direct, true)?;
        let read = match (read_path, fc.read_file) {
            (Some(rp), Some(size)) => Some((open_file(rp, self.opts.direct, true)?, rp, size)),
            _ => None,
        };
        let mut runs: [Vec<JobResult>; 4] = Default::default();
        let mut busy = [(0u64, 0u64); 4];
        let first = self.read_device_clock()?;
        let mut last = first;
        for step in fc.steps() {
            let (file, at, span) = match step.file {
                FourCornerFile::Test => (&f, path, fc.span),
                FourCornerFile::Read => {
                    let (r, rp, size) = read.as_ref().expect("run_four_corner opens the read file a read step needs");
                    (r, *rp, *size)
                }
            };
            if step.truncate {
                file.set_len(0).map_err(|e| RealError::io(format!("{}: truncate", at.display()), e))?;
            }
            let t = step.test;
            let mut j = self.job(t.name, t.rw, t.bs, span);
            j.settings.io_limit = t.io;
            j.settings.seed = t.seed;
            if t.sync {
                // O_SYNC as fio's fsync=1: a flush before each next write; end_fsync covers the
                // last.
                j.settings.fsync_every = 1;
                j.settings.end_fsync = true;
            }
            let before = self.read_device_clock()?;
            let result = run_job(at, file, &j, &mut |x| progress(t.name, x))?;
            let after = self.read_device_clock()?;
            last = after;
            if let Some(i) = step.row {
                let bytes = result.read.io_bytes + result.write.io_bytes;
                busy[i].0 += bytes;
                busy[i].1 += after.busy_ns.saturating_sub(before.busy_ns);
                runs[i].push(result);
            }
        }
        let mut row = FourCorner::from_repeats(label, runs, None);
        if self.device_clock.is_some() {
            row.device_clock = DeviceClockRates::from_busy(busy, first, last);
        }
        Ok(row)
    }

    /// The device clock's reading, zeros without one.
    fn read_device_clock(&mut self) -> Result<DeviceSample, RealError> {
        match &mut self.device_clock {
            Some(read) => read().map_err(|e| RealError::BadJob(format!("the served device's clock: {e}"))),
            None => Ok(DeviceSample::default()),
        }
    }

    /// One four-corner run on a new test file (and, for AndroBench's sequence, a new read
    /// file), deleted afterwards (also on error).
    pub fn run_four_corner(
        &mut self,
        fc: &FourCornerConfig,
        label: &str,
        progress: &mut dyn FnMut(&str, f64),
    ) -> Result<FourCorner, RealError> {
        let path = self.own_new_file(TEST_FILE)?;
        let read_path = match fc.read_file {
            Some(_) => Some(self.own_new_file(READ_FILE)?),
            None => None,
        };
        let r = self.four_corner_on(&path, read_path.as_deref(), fc, label, progress);
        let rm = self.cleanup.remove(&path);
        let rm_read = read_path.as_ref().map(|p| (p, self.cleanup.remove(p)));
        let out = r?;
        rm.map_err(|e| RealError::io(format!("{}: remove", path.display()), e))?;
        if let Some((p, rm)) = rm_read {
            rm.map_err(|e| RealError::io(format!("{}: remove", p.display()), e))?;
        }
        Ok(out)
    }

    /// Fill files until `leave_free` bytes are free; see [`ProtocolTarget::fill`].
    pub fn run_fill(
        &mut self,
        leave_free: u64,
        sizes: FileSizes,
        progress: &mut dyn FnMut(f64),
    ) -> Result<String, RealError> {
        let place = self.fill_place().to_path_buf();
        let start_free = free_bytes(&place)?;
        let target = start_free.saturating_sub(leave_free);
        let mut rng = Rng::new(sizes.seed);
        let (mut written, mut files, mut disk_full) = (0u64, 0usize, false);
        loop {
            let file_size = sizes.pick(&mut rng).max(4096) / 4096 * 4096;
            let free = free_bytes(&place)?;
            // Never more than the space free at the start beyond `leave_free` (someone else
            // freeing space meanwhile must not make the fill grow).
            let size = free.saturating_sub(leave_free).min(file_size).min(target.saturating_sub(written)) / 4096 * 4096;
            // Filesystem metadata makes the last bytes creep: stop below one fill block.
            if size == 0 || (files > 0 && size < self.opts.fill_bs.min(sizes.min)) {
                break;
            }
            let path = self.next_fill_path_in_place()?;
            self.fill_files.push(path.clone());
            let f = match open_file(&path, self.fill_direct, true) {
                Ok(f) => f,
                Err(RealError::Io { source, .. }) if source.raw_os_error() == Some(libc::ENOSPC) => {
                    disk_full = true;
                    break;
                }
                Err(e) => return Err(e),
            };
            files += 1;
            let mut j = self.job(&format!("fill-{files}"), Rw::Write, self.opts.fill_bs, size);
            j.direct = self.fill_direct;
            j.settings.iodepth = self.opts.fill_iodepth;
            j.stop_on_enospc = true;
            j.settings.end_fsync = true;
            let done_before = written;
            let r = run_job(&path, &f, &j, &mut |x| {
                progress(((done_before as f64 + x * size as f64) / target.max(1) as f64).min(1.0))
            });
            let r = match r {
                Ok(r) => r,
                // ENOSPC from the closing fsync (delayed allocation): the disk is full.
                Err(RealError::Io { source, .. }) if source.raw_os_error() == Some(libc::ENOSPC) => {
                    disk_full = true;
                    break;
                }
                Err(e) => return Err(e),
            };
            written += r.write.io_bytes;
            if r.error == libc::ENOSPC || r.write.io_bytes == 0 {
                disk_full = true;
                break;
            }
        }
        progress(1.0);
        let full =
            if disk_full { " (the filesystem filled up before that: stopped at ENOSPC, as expected)" } else { "" };
        let at = match &self.fill_dir {
            Some(d) => format!(" in {}{}", d.display(), if self.fill_direct { "" } else { " (buffered)" }),
            None => String::new(),
        };
        Ok(format!(
            "wrote {written} bytes of fill files in {files} files{at}; {} bytes free{full}",
            free_bytes(&place)?
        ))
    }

    /// 4 KiB random writes over a new fill file; see [`ProtocolTarget::random_writes`].
    pub fn run_random_writes(&mut self, w: &RandomWrites, progress: &mut dyn FnMut(f64)) -> Result<String, RealError> {
        let size = self.free_bytes()?.saturating_sub(w.keep_free) / 4096 * 4096;
        if size == 0 {
            return Ok("no free space beyond keep_free: skipped".into());
        }
        let path = self.next_fill_path()?;
        self.fill_files.push(path.clone());
        let f = open_file(&path, self.opts.direct, true)?;
        // Reserve the space (unwritten extents) so the file takes it as the simulated one does;
        // where fallocate is not supported the file is sparse and writes allocate.
        // SAFETY: fallocate on an open fd.
        if unsafe { libc::fallocate(f.as_raw_fd(), 0, 0, size as libc::off_t) } != 0 {
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EOPNOTSUPP) => {
                    f.set_len(size).map_err(|e| RealError::io(format!("{}: set_len", path.display()), e))?
                }
                Some(libc::ENOSPC) => {
                    // The free space shrank since statvfs (another writer): nothing to do.
                    drop(f);
                    self.fill_files.pop();
                    let _ = self.cleanup.remove(&path);
                    return Ok(format!("fallocate of {size} bytes hit ENOSPC (free space shrank meanwhile): skipped"));
                }
                _ => return Err(RealError::io(format!("{}: fallocate {size} bytes", path.display()), e)),
            }
        }
        let mut j = self.job("random-writes", Rw::RandWrite, 4096, size);
        j.settings.io_limit = Some((size as f64 * w.passes) as u64 / 4096 * 4096);
        j.settings.iodepth = w.iodepth;
        j.settings.random_map = w.random_map;
        j.settings.seed = w.seed;
        j.stop_on_enospc = true;
        let r = run_job(&path, &f, &j, progress)?;
        let full = if r.error == libc::ENOSPC { " (stopped at ENOSPC)" } else { "" };
        drop(f);
        let deleted = if w.delete_after {
            self.fill_files.retain(|p| p != &path);
            self.cleanup.remove(&path).map_err(|e| RealError::io(format!("{}: remove", path.display()), e))?;
            "; file deleted"
        } else {
            ""
        };
        Ok(format!(
            "{} bytes of 4 KiB random writes over {size} bytes at {:.3} MB/s{full}{deleted}",
            r.write.io_bytes,
            r.write.bw_bytes_per_sec() / 1e6
        ))
    }

    /// Unlink every fill file.
    /// Delete fill files picked at random until `free` bytes are free; see
    /// [`ProtocolTarget::thin`].
    pub fn run_thin(&mut self, free: u64, seed: u64) -> Result<String, RealError> {
        let mut rng = Rng::new(seed);
        let mut deleted = 0;
        while self.free_bytes()? < free && !self.fill_files.is_empty() {
            let i = rng.below(self.fill_files.len() as u64) as usize;
            let p = self.fill_files.swap_remove(i);
            self.cleanup.remove(&p).map_err(|e| RealError::io(format!("{}: remove", p.display()), e))?;
            deleted += 1;
        }
        Ok(format!("deleted {deleted} fill files at random; {} bytes free", self.free_bytes()?))
    }

    /// Deletes every fill file flashlab wrote; says how many and the bytes free after.
    pub fn run_delete_fill(&mut self) -> Result<String, RealError> {
        let n = self.fill_files.len();
        for p in std::mem::take(&mut self.fill_files) {
            self.cleanup.remove(&p).map_err(|e| RealError::io(format!("{}: remove", p.display()), e))?;
        }
        Ok(format!("deleted {n} fill files; {} bytes free", self.free_bytes()?))
    }

    /// FITRIM on the directory's filesystem: `Ok(Some(bytes))` trimmed, `Ok(None)` with the
    /// reason when the filesystem or the user's rights do not allow it.
    pub fn fitrim(&self) -> Result<Result<u64, crate::NoTrim>, RealError> {
        let d =
            std::fs::File::open(&self.dir).map_err(|e| RealError::io(format!("{}: open", self.dir.display()), e))?;
        let mut range = FstrimRange { start: 0, len: u64::MAX, minlen: 0 };
        // SAFETY: FITRIM reads and writes a struct fstrim_range, which `range` is.
        let rc = unsafe { libc::ioctl(d.as_raw_fd(), FITRIM as _, &mut range as *mut FstrimRange) };
        if rc == 0 {
            return Ok(Ok(range.len));
        }
        let e = std::io::Error::last_os_error();
        let dir = self.dir.clone();
        match e.raw_os_error() {
            Some(libc::EOPNOTSUPP) | Some(libc::ENOTTY) | Some(libc::ENOSYS) => {
                Ok(Err(crate::NoTrim::Unsupported { dir, source: e }))
            }
            Some(libc::EPERM) | Some(libc::EACCES) => Ok(Err(crate::NoTrim::Refused { dir, source: e })),
            Some(libc::EINVAL) => Ok(Err(crate::NoTrim::Rejected { dir, source: e })),
            _ => Err(RealError::io(format!("{}: FITRIM", dir.display()), e)),
        }
    }
}

/// A real target's error, as a protocol step returns it (kept whole; flashlab's error shows it).
fn target(e: RealError) -> LabError {
    LabError::Target(Box::new(e))
}

impl ProtocolTarget for DirTarget {
    fn four_corner(
        &mut self,
        fc: &FourCornerConfig,
        label: &str,
        progress: &mut dyn FnMut(&str, f64),
    ) -> Result<FourCorner, LabError> {
        self.run_four_corner(fc, label, progress).map_err(target)
    }

    fn fill(&mut self, leave_free: u64, sizes: FileSizes, progress: &mut dyn FnMut(f64)) -> Result<String, LabError> {
        self.run_fill(leave_free, sizes, progress).map_err(target)
    }

    fn thin(&mut self, free: u64, seed: u64) -> Result<String, LabError> {
        self.run_thin(free, seed).map_err(target)
    }

    fn random_writes(&mut self, w: &RandomWrites, progress: &mut dyn FnMut(f64)) -> Result<String, LabError> {
        self.run_random_writes(w, progress).map_err(target)
    }

    fn delete_fill(&mut self) -> Result<String, LabError> {
        self.run_delete_fill().map_err(target)
    }

    fn fstrim(&mut self) -> Result<String, LabError> {
        match self.fitrim().map_err(target)? {
            Ok(bytes) => Ok(format!("Trimmed {bytes} bytes")),
            Err(why) if crate::android::is_android() => match crate::android::request_trim() {
                Ok(ran) => Ok(format!("FITRIM not done ({why}); {ran}")),
                Err(e) => Ok(format!("fstrim skipped: {why}; asking Android failed too: {e}")),
            },
            Err(why) => Ok(format!("fstrim skipped: {why}")),
        }
    }

    fn idle(&mut self, ns: u64, duration: &str) -> Result<String, LabError> {
        match self.idle_override {
            Some(d) => {
                std::thread::sleep(d);
                Ok(format!("idle {:.3} s (the protocol's {duration} shortened by --idle)", d.as_secs_f64()))
            }
            None => {
                std::thread::sleep(Duration::from_nanos(ns));
                Ok(format!("idle {duration}"))
            }
        }
    }

    fn clock_s(&self) -> f64 {
        self.created.elapsed().as_secs_f64()
    }
}

impl Drop for DirTarget {
    /// Remove what is left of this target's files (fill files a protocol did not delete, or
    /// files of a step that failed).
    fn drop(&mut self) {
        for p in std::mem::take(&mut self.fill_files) {
            let _ = self.cleanup.remove(&p);
        }
        for name in [TEST_FILE, READ_FILE, PROBE_FILE] {
            let p = self.dir.join(name);
            if self.cleanup.contains(&p) {
                let _ = self.cleanup.remove(&p);
            }
        }
    }
}
