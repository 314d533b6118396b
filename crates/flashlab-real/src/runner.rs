//! The real target: one job on one open file or block device (or on several files, fio's
//! `nrfiles`, each I/O's file chosen by `flashlab_workload::fileset`), keeping `iodepth` I/Os
//! in flight (the engine's depth: psync has 1) through an I/O engine, on the wall clock
//! (`std::time::Instant`, ns from the job's start). Which request the job sends next and why
//! it waits is the one job loop of every target (`flashlab_workload::job_loop::JobLoop`), and
//! how each completion is measured is its `flashlab_workload::job::JobCore`'s: the same code
//! the simulated target (`flashlab_lab::engine`) drives. This file is what only a real target
//! has: [`RealTarget`] and the thread that waits for it:
//!
//! * the engine's slots, submitted one per call unless the job sets `iodepth_batch_submit`
//!   (fio's default 1), reaped as they complete (fio's reaping rules), or a sleep for a think
//!   time, a rate or a flow sleep;
//! * the written bytes (a stamp per block, `dedupe_percentage`, `buffer_compress_percentage`)
//!   and fio's `verify` with its read-back pass;
//! * latencies in ns: a request's latency runs from just before the submit call that sent it to
//!   just after the reap call that returned it (psync: the whole call); slat is the submit
//!   call's duration (io_uring only), part of that latency, so clat = lat here (fio's io_uring
//!   clat leaves the submit call out; docs/real.md compares the two clocks);
//! * `end_fsync`, ENOSPC as the end of a fill, and the thread's CPU time from getrusage.
//!
//! Per I/O the loop does no allocation: buffers are the engine's slots, bookkeeping lives in
//! arrays sized by the queue depth. With buffered I/O (`direct = false`) the file's cached
//! pages are dropped first (fio's default `invalidate=1`), so reads come from the device.

use crate::buffers::{make_compressible, stamp, DataPattern};
use crate::engine::psync::PsyncEngine;
use crate::engine::uring::UringEngine;
use crate::engine::{EngineConfig, EngineKind, IoCompletion, IoEngine, IoOp, IoRequest};
use crate::RealError;
use flashlab_jobs::{IoDir, Rw};
use flashlab_measure::{CpuUsage, JobResult};
use flashlab_workload::job::{Done, JobCore, JobSettings, Timing};
use flashlab_workload::job_loop::{FlowHold, Hold, Io, JobLoop, Sent, Target as LoopTarget};
use flashlab_workload::rng::Rng;
use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One job on a real file or device: its settings (the same for every target) and how a
/// real target does its I/O.
#[derive(Debug, Clone)]
pub struct RealJob {
    /// What the job does ([`JobSettings`]; times in ns of the wall clock).
    pub settings: JobSettings,
    /// O_DIRECT (the file must have been opened with it: see [`open_file`]).
    pub direct: bool,
    /// The I/O engine.
    pub engine: EngineKind,
    /// What the written bytes hold.
    pub pattern: DataPattern,
    /// A write failing with ENOSPC ends the job normally (result's `error` = ENOSPC) instead of
    /// failing it: what a fill wants.
    pub stop_on_enospc: bool,
    /// Called once when a verifying job's writes have all completed, before it reads them
    /// back (tests corrupt a block here, as a faulty device would).
    pub before_verify: Option<crate::verify::Hook>,
    /// A job over several files (fio's `nrfiles`, `filename=a:b`): each file's path and span,
    /// chosen per I/O as `flashlab_workload::fileset` does ([`run_job_on_path`] opens them).
    /// Empty: one file, [offset, offset + span) of the file the runner is given.
    pub files: Vec<RealFile>,
    /// Run control with the other jobs of its group (`startdelay` from the group's origin,
    /// `wait_for`, `exitall`). `None`: a job by itself, which sleeps its `startdelay` first.
    pub control: Option<crate::control::JobControl>,
}

/// One file of a job over several files: a file of its own, or a region of a block device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealFile {
    /// The name reported for it.
    pub name: String,
    /// Where it is (several regions may share one block device).
    pub path: PathBuf,
    /// Its I/O lies in [offset, offset + span) of `path`: the first byte, in bytes.
    pub offset: u64,
    /// The length of that range, in bytes (whole blocks).
    pub span: u64,
}

/// One open file the runner does I/O to, with the span of it the job uses.
struct Region<'a> {
    path: &'a Path,
    fd: RawFd,
    offset: u64,
    span: u64,
}

impl RealJob {
    /// A job over `span` bytes from offset 0 with fio's defaults (QD1, one pass, random map,
    /// seed 1), direct I/O on io_uring, random data.
    pub fn new(name: &str, rw: Rw, bs: u64, span: u64) -> RealJob {
        RealJob::with(JobSettings::new(name, rw, bs, span))
    }

    /// A job of `settings`, direct I/O on io_uring, random data.
    pub fn with(settings: JobSettings) -> RealJob {
        RealJob {
            settings,
            direct: true,
            engine: EngineKind::IoUring,
            pattern: DataPattern::Random,
            stop_on_enospc: false,
            before_verify: None,
            files: Vec::new(),
            control: None,
        }
    }

    /// The job of a parsed fio job section over [offset, offset + span) of the target, as the
    /// simulated `flashlab run` builds it ([`JobSettings::from_fio`]), with fio's `direct`
    /// (fio's default is buffered: the caller may override `direct`, `engine` and `pattern`).
    pub fn from_fio(job: &flashlab_jobs::Job, offset: u64, span: u64, seed: u64) -> RealJob {
        let mut j = RealJob::with(JobSettings::from_fio(job, offset, span, seed));
        j.direct = job.direct;
        j
    }

    /// The job verifies its writes (fio's `verify`, see [`crate::verify`]).
    pub fn verifies(&self) -> bool {
        self.settings.verifies()
    }
}

/// Open `path` for a job: read-write, with O_DIRECT when `direct`; with `create`, a new file
/// (mode 0644; an existing file or a symlink there is an error). A filesystem refusing O_DIRECT gets [`RealError::DirectUnsupported`].
pub fn open_file(path: &Path, direct: bool, create: bool) -> Result<File, RealError> {
    let mut o = std::fs::OpenOptions::new();
    // A file flashlab creates must be new: never follow a symlink or take over a file that
    // appeared meanwhile (flashlab writes only files it created).
    o.read(true).write(true).create_new(create).mode(0o644);
    let nofollow = if create { libc::O_NOFOLLOW } else { 0 };
    o.custom_flags(nofollow | if direct { libc::O_DIRECT } else { 0 });
    // A new file is created under the cleanup gate: after a signal it is never created.
    let _gate = create.then(crate::cleanup::creating);
    o.open(path).map_err(|e| {
        if direct && e.raw_os_error() == Some(libc::EINVAL) {
            RealError::DirectUnsupported { path: path.to_path_buf() }
        } else {
            RealError::io(format!("{}: open", path.display()), e)
        }
    })
}

/// Open `path` (which must exist) as the job asks and run the job on it; a job over several
/// files opens each of [`RealJob::files`] instead (a path named twice is opened once).
pub fn run_job_on_path(path: &Path, job: &RealJob, progress: &mut dyn FnMut(f64)) -> Result<JobResult, RealError> {
    if job.files.is_empty() {
        let f = open_file(path, job.direct, false)?;
        return run_job(path, &f, job, progress);
    }
    let mut open: Vec<(&Path, File)> = Vec::new();
    for f in &job.files {
        if !open.iter().any(|(p, _)| *p == f.path.as_path()) {
            open.push((&f.path, open_file(&f.path, job.direct, false)?));
        }
    }
    let targets: Vec<Region> = job
        .files
        .iter()
        .map(|f| {
            let fd = open.iter().find(|(p, _)| *p == f.path.as_path()).map(|(_, h)| h.as_raw_fd()).unwrap_or(-1);
            Region { path: &f.path, fd, offset: f.offset, span: f.span }
        })
        .collect();
    run_targets(&targets, job, progress)
}

/// Run `job` on `file` (open with O_DIRECT if `job.direct`); `path` names it in errors;
/// `progress` gets the fraction done now and then.
pub fn run_job(path: &Path, file: &File, job: &RealJob, progress: &mut dyn FnMut(f64)) -> Result<JobResult, RealError> {
    run_targets(
        &[Region { path, fd: file.as_raw_fd(), offset: job.settings.offset, span: job.settings.span }],
        job,
        progress,
    )
}

fn run_targets(targets: &[Region], job: &RealJob, progress: &mut dyn FnMut(f64)) -> Result<JobResult, RealError> {
    validate(job)?;
    for t in targets {
        if job.direct && (!t.offset.is_multiple_of(512) || !t.span.is_multiple_of(512)) {
            return Err(RealError::BadJob(format!(
                "job '{}': {}: offset {} and size {} must be multiples of 512 with O_DIRECT (use --buffered)",
                job.settings.name,
                t.path.display(),
                t.offset,
                t.span
            )));
        }
    }
    let reads = job.settings.rw.has_reads();
    let writes = job.settings.rw.has_writes();
    let buf_size = [(reads, job.settings.bs_read), (writes, job.settings.bs_write)]
        .iter()
        .filter(|(a, _)| *a)
        .map(|(_, b)| *b)
        .max()
        .unwrap_or(4096) as usize;
    let fixed_buffers = job.settings.job.as_ref().is_some_and(|j| j.fixedbufs);
    let cfg = EngineConfig {
        depth: job.settings.iodepth.max(1),
        buf_size,
        pattern: job.pattern,
        seed: job.settings.seed,
        fixed_buffers,
    };
    match job.engine {
        EngineKind::IoUring => run_with(&mut UringEngine::new(&cfg)?, targets, job, progress),
        EngineKind::Psync => run_with(&mut PsyncEngine::new(&cfg), targets, job, progress),
    }
}

fn validate(job: &RealJob) -> Result<(), RealError> {
    let bad = |m: String| Err(RealError::BadJob(format!("job '{}': {m}", job.settings.name)));
    if job.settings.rw.has_trims() {
        return Err(RealError::Unsupported(format!(
            "job '{}': rw={} (trim) is not supported on real targets yet",
            job.settings.name,
            job.settings.rw.fio_name()
        )));
    }
    if job.settings.rw.has_writes() && job.settings.job.as_deref().is_some_and(|j| j.atomic) {
        return Err(RealError::Unsupported(format!(
            "job '{}': atomic=1 (RWF_ATOMIC writes) is not implemented on real targets: flashlab's engines would issue ordinary writes, which the device may tear",
            job.settings.name
        )));
    }
    if job.settings.span == 0 {
        return bad("the region to do I/O on is empty (size 0)".into());
    }
    for (active, bs, what) in [
        (job.settings.rw.has_reads(), job.settings.bs_read, "read"),
        (job.settings.rw.has_writes(), job.settings.bs_write, "write"),
    ] {
        if active && (bs == 0 || bs > u64::from(u32::MAX)) {
            return bad(format!("{what} block size {bs} out of range"));
        }
        if active && job.direct && !bs.is_multiple_of(512) {
            return bad(format!(
                "{what} block size {bs} is not a multiple of 512, which O_DIRECT needs (use --buffered)"
            ));
        }
    }
    if job.direct && (!job.settings.offset.is_multiple_of(512) || !job.settings.span.is_multiple_of(512)) {
        return bad(format!(
            "offset {} and size {} must be multiples of 512 with O_DIRECT (use --buffered)",
            job.settings.offset, job.settings.span
        ));
    }
    if let Some(j) = job.settings.job.as_deref().filter(|_| job.direct) {
        for d in [IoDir::Read, IoDir::Write] {
            let wrong =
                j.block_sizes(d).probabilities().into_iter().map(|(b, _)| b).chain([j.align(d)]).find(|b| b % 512 != 0);
            if let Some(b) = wrong.filter(|_| j.bs_mix.is_some() || j.blockalign.iter().any(|&a| a > 0)) {
                return bad(format!("block size or alignment {b} (bssplit/bsrange/blockalign) is not a multiple of 512, which O_DIRECT needs (use --buffered)"));
            }
        }
    }
    if job.settings.time_based && job.settings.runtime_ns.is_none() {
        return bad("time_based needs a runtime".into());
    }
    Ok(())
}

/// Block `k` of a working set (fio's `dedupe_mode=working_set`): `len` bytes drawn from a
/// generator seeded by `seed` and `k`, so equal `k` give equal bytes.
fn working_set_block(buf: &mut [u8], len: usize, seed: u64, k: u64) {
    let mut r = Rng::new(seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let len = len.min(buf.len());
    for c in buf[..len].chunks_mut(8) {
        let x = r.next_u64().to_le_bytes();
        c.copy_from_slice(&x[..c.len()]);
    }
}

/// The calling thread's I/O priority set for a job (fio's `ioprio_set` of `prio`/`prioclass`)
/// and put back when dropped.
struct ThreadPrio(Option<libc::c_long>);

impl ThreadPrio {
    const WHO_PROCESS: libc::c_long = 1;

    fn set(ioprio: u16) -> Result<ThreadPrio, RealError> {
        if ioprio == 0 {
            return Ok(ThreadPrio(None));
        }
        // SAFETY: plain syscalls on the calling thread (who = 0).
        let old = unsafe { libc::syscall(libc::SYS_ioprio_get, Self::WHO_PROCESS, 0) };
        // SAFETY: as above.
        if unsafe { libc::syscall(libc::SYS_ioprio_set, Self::WHO_PROCESS, 0, libc::c_long::from(ioprio)) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(RealError::BadJob(format!("ioprio_set (class {}, level {}): {e}", ioprio >> 13, ioprio & 7)));
        }
        Ok(ThreadPrio((old >= 0).then_some(old)))
    }
}

impl Drop for ThreadPrio {
    fn drop(&mut self) {
        if let Some(old) = self.0 {
            // SAFETY: as in set.
            unsafe { libc::syscall(libc::SYS_ioprio_set, Self::WHO_PROCESS, 0, old) };
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Slot {
    /// 0 read, 1 write, 2 flush, 3 a verify's read-back.
    kind: u8,
    /// The target (file) it went to.
    file: u32,
    len: u32,
    offset: u64,
    /// Start of clat.
    submitted: Option<Instant>,
    /// Submission latency (0 for a synchronous engine).
    slat_ns: u64,
    /// Its priority slot (`JobCore::prio_slot`).
    prio: u8,
}

fn thread_cpu() -> (u64, u64, u64, u64, u64) {
    // SAFETY: getrusage fills the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (ns(ru.ru_utime), ns(ru.ru_stime), (ru.ru_nvcsw + ru.ru_nivcsw) as u64, ru.ru_majflt as u64, ru.ru_minflt as u64)
}

/// Nanoseconds from `start` to `t` (the runner's clock: 0 is the job's start).
#[inline]
fn ns_since(start: Instant, t: Instant) -> u64 {
    t.duration_since(start).as_nanos() as u64
}

/// A real engine as a job's [`LoopTarget`]: each request takes one of the engine's slots (its
/// buffer filled for a write), and the slots queued are submitted together once
/// `iodepth_batch_submit` of them are queued, or when the loop stops issuing.
struct RealTarget<'a, E: IoEngine> {
    eng: &'a mut E,
    targets: &'a [Region<'a>],
    job: &'a RealJob,
    /// The job's one file (a verifying job has one).
    fd: RawFd,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Queued, not yet submitted.
    batch: Vec<u32>,
    /// fio's iodepth_batch_submit: I/Os per submit call (default 1: each as soon as it is
    /// queued, as fio does).
    submit_batch: usize,
    flush_op: IoOp,
    sync_engine: bool,
    verifier: Option<crate::verify::Verifier>,
    write_counter: u64,
    /// What every deduplicable write carries (allocated once, only with dedupe_percentage).
    dedupe_data: Vec<u8>,
    dedupe_percentage: u32,
    buffer_compress_percentage: u32,
    /// fio's dedupe_mode=working_set: its blocks, and the seed of their bytes.
    ws_blocks: u64,
    ws_seed: u64,
    ws_unique: u64,
}

impl<E: IoEngine> RealTarget<'_, E> {
    /// Take a free slot for `slot`'s request and queue it.
    fn queue(&mut self, req: IoRequest) -> Result<(), RealError> {
        self.eng.queue(req)?;
        self.free.pop();
        self.batch.push(req.slot);
        Ok(())
    }

    /// Submit what is queued in one call. Completion latency starts before the submitting
    /// system call, for every engine: psync's pread does the I/O inside it, and io_uring can
    /// deliver a completion during io_uring_enter (task work runs on the syscall's return),
    /// which fio's clock, started after the call, reads as ~0.06 us (17.3 us with psync on the
    /// same device). slat is how long the call took (part of clat here).
    fn submit(&mut self, core: &mut JobCore) -> Result<(), RealError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let n = self.batch.len() as u64;
        core.result.depth.mark_depth(u64::from(self.eng.in_flight()), n);
        core.result.depth.mark_submit(n);
        let t0 = Instant::now();
        self.eng.submit()?;
        let slat = if self.sync_engine { 0 } else { Instant::now().duration_since(t0).as_nanos() as u64 };
        for &s in &self.batch {
            self.slots[s as usize].submitted = Some(t0);
            self.slots[s as usize].slat_ns = slat;
        }
        self.batch.clear();
        Ok(())
    }

    /// The slot the next request takes.
    fn slot(&self) -> u32 {
        *self.free.last().expect("the job loop keeps no more in flight than the engine's depth")
    }

    /// A full batch goes out at once.
    fn maybe_submit(&mut self, core: &mut JobCore) -> Result<(), RealError> {
        if self.batch.len() >= self.submit_batch {
            self.submit(core)?;
        }
        Ok(())
    }
}

impl<E: IoEngine> LoopTarget for RealTarget<'_, E> {
    type Error = RealError;

    fn flow_go(&mut self) -> bool {
        self.job.control.as_ref().is_none_or(|c| c.flow_go())
    }

    fn may_read_back(&self) -> bool {
        self.verifier.is_some()
    }

    fn read_back(&mut self, core: &mut JobCore, _stopped: bool, _now: u64) -> Result<bool, RealError> {
        // A backlog's read-back, or the pass after the writes.
        let Some((off, len)) = self.verifier.as_mut().and_then(|v| v.next_read()) else { return Ok(false) };
        let slot = self.slot();
        self.slots[slot as usize] =
            Slot { kind: 3, file: 0, len: len as u32, offset: off, submitted: None, slat_ns: 0, prio: 0 };
        let req = IoRequest {
            op: IoOp::Read,
            fd: self.fd,
            offset: off,
            len: len as u32,
            slot,
            user_data: u64::from(slot),
            ioprio: core.ioprio(0, 0),
        };
        self.queue(req)?;
        self.maybe_submit(core)?;
        Ok(true)
    }

    fn flush(&mut self, core: &mut JobCore, file: usize, _now: u64) -> Result<(), RealError> {
        let slot = self.slot();
        self.slots[slot as usize] =
            Slot { kind: 2, file: file as u32, len: 0, offset: 0, submitted: None, slat_ns: 0, prio: 0 };
        let fd = self.targets[file].fd;
        self.queue(IoRequest {
            op: self.flush_op,
            fd,
            offset: 0,
            len: 0,
            slot,
            user_data: u64::from(slot),
            ioprio: 0,
        })?;
        self.maybe_submit(core)
    }

    fn io(&mut self, core: &mut JobCore, set: &JobSettings, io: Io, _now: u64) -> Result<Sent, RealError> {
        let Io { dir, file: fi, off, len } = io;
        core.issued(set, dir, len, fi);
        let slot = self.slot();
        let t = &self.targets[fi];
        let abs = t.offset + off;
        if dir == 1 {
            self.write_counter += 1;
            if self.job.pattern == DataPattern::Random {
                let dedupe = self.dedupe_percentage > 0 && core.rng.below(100) < u64::from(self.dedupe_percentage);
                if let Some(b) = self.eng.buffer_mut(slot) {
                    if dedupe && self.ws_blocks > 0 {
                        // fio's dedupe_mode=working_set: one of the working set's buffers, drawn
                        // at random.
                        let k = core.rng.below(self.ws_blocks);
                        working_set_block(b, len as usize, self.ws_seed, k);
                    } else if dedupe {
                        // fio's dedupe_percentage: the same bytes as every other deduplicable
                        // write of this job.
                        let n = (len as usize).min(b.len()).min(self.dedupe_data.len());
                        b[..n].copy_from_slice(&self.dedupe_data[..n]);
                    } else if self.ws_unique < self.ws_blocks {
                        // The first unique writes are the working set.
                        working_set_block(b, len as usize, self.ws_seed, self.ws_unique);
                        self.ws_unique += 1;
                    } else {
                        stamp(b, len as usize, abs, self.write_counter);
                    }
                    make_compressible(b, len as usize, self.buffer_compress_percentage);
                }
            }
            if let Some(v) = self.verifier.as_mut() {
                if let Some(b) = self.eng.buffer_mut(slot) {
                    v.fill(b, abs, len, self.write_counter - 1);
                }
            }
        }
        let prio = core.prio_slot(dir, len);
        self.slots[slot as usize] =
            Slot { kind: dir, file: fi as u32, len: len as u32, offset: abs, submitted: None, slat_ns: 0, prio };
        let req = IoRequest {
            op: if dir == 0 { IoOp::Read } else { IoOp::Write },
            fd: t.fd,
            offset: abs,
            len: len as u32,
            slot,
            user_data: u64::from(slot),
            ioprio: core.ioprio(dir, prio),
        };
        self.queue(req)?;
        self.maybe_submit(core)?;
        Ok(Sent::Io)
    }
}

fn run_with<E: IoEngine>(
    eng: &mut E,
    targets: &[Region],
    job: &RealJob,
    progress: &mut dyn FnMut(f64),
) -> Result<JobResult, RealError> {
    let set = &job.settings;
    // fio's startdelay and wait_for: the job starts later; its runtime starts then.
    let began = match &job.control {
        Some(c) => c.wait_to_start(set.start_delay_ns),
        None => {
            std::thread::sleep(Duration::from_nanos(set.start_delay_ns));
            true
        }
    };
    if !began {
        // exitall stopped the job before it started: it did nothing.
        let spans: Vec<u64> = targets.iter().map(|t| t.span).collect();
        let core = JobCore::new(set, &spans, 0, job.verifies()).map_err(|e| RealError::BadJob(e.to_string()))?;
        return Ok(core.finish(job.files.iter().map(|f| f.name.as_str())));
    }
    // The distinct open files (several regions of a block device share one).
    let mut fds: Vec<RawFd> = targets.iter().map(|t| t.fd).collect();
    fds.sort_unstable();
    fds.dedup();
    if !job.direct {
        for &fd in &fds {
            // fio's invalidate=1: start with none of the file in the page cache.
            // SAFETY: plain syscalls on an open fd.
            unsafe {
                libc::fdatasync(fd);
                libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED);
            }
        }
    }
    let depth = eng.depth() as usize;
    let sync_engine = eng.synchronous();
    let spans: Vec<u64> = targets.iter().map(|t| t.span).collect();
    let core = JobCore::new(set, &spans, 0, job.verifies()).map_err(|e| RealError::BadJob(e.to_string()))?;
    let model = core.model().clone();
    if sync_engine && model.prio.cmdprio() {
        // fio has cmdprio_* for its asynchronous engines only (psync refuses them).
        return Err(RealError::BadJob(format!(
            "job '{}': cmdprio_percentage/cmdprio_bssplit need an asynchronous engine (fio's libaio or io_uring); this run uses {}",
            set.name,
            eng.name()
        )));
    }
    // fio's prio/prioclass: the worker's own I/O priority (ioprio_set), restored afterwards.
    let _prio_guard = ThreadPrio::set(model.prio.job_ioprio())?;
    let mut verifier = crate::verify::Verifier::new(&model.verify, set.offset, set.span, set.bs_write, set.seed, 0)
        .map(|v| if set.rw.has_writes() { v } else { v.read_only() });
    if let Some(v) = verifier.as_mut() {
        // fio's verify_dump writes into its current directory (no --aux-path here).
        v.dump_to(&std::env::current_dir().unwrap_or_default(), targets[0].path);
    }
    // When the write phase ended (the verify pass starts), ns from the start.
    let mut write_phase_end: Option<u64> = None;
    let dedupe_data: Vec<u8> = if model.dedupe_percentage > 0 {
        let mut r = Rng::new(set.seed ^ 0xdede_0009);
        (0..set.bs_read.max(set.bs_write)).map(|_| r.next_u64() as u8).collect()
    } else {
        Vec::new()
    };
    // fio's dedupe_mode=working_set: dedupe_working_set_percentage of the region's blocks; the
    // same for every job with dedupe_global.
    let ws_blocks = match model.dedupe_working_set {
        Some(p) if model.dedupe_percentage > 0 => {
            (set.span.saturating_mul(u64::from(p)) / 100 / set.bs_write.max(1)).max(1)
        }
        _ => 0,
    };
    let mut rt = RealTarget {
        eng,
        targets,
        job,
        fd: targets[0].fd,
        slots: vec![Slot::default(); depth],
        free: (0..depth as u32).rev().collect(),
        batch: Vec::with_capacity(depth),
        submit_batch: match set.job.as_ref().map_or(1, |j| j.iodepth_batch) {
            0 => depth,
            n => n as usize,
        },
        flush_op: if set.fdatasync { IoOp::Fdatasync } else { IoOp::Fsync },
        sync_engine,
        verifier,
        write_counter: 0,
        dedupe_data,
        dedupe_percentage: model.dedupe_percentage,
        buffer_compress_percentage: model.buffer_compress_percentage,
        ws_blocks,
        ws_seed: if model.dedupe_global { 0xdede_0bad_5e70_0001 } else { set.seed ^ 0xdede_0bad_5e70_0002 },
        ws_unique: 0,
    };
    let mut jl = JobLoop::limited(core, set, depth as u32);
    // fio's reaping rules: a full queue waits for `iodepth_batch_complete_min` completions
    // (0: polls without waiting) and takes at most `iodepth_batch_complete_max` (default: the
    // min) per reap; the job loop then lets it drain to `iodepth_low` (default: the depth)
    // before filling it again. With the defaults one completion is taken and its slot refilled
    // before the next is looked at, so the queue stays full and a completion waiting in the
    // ring counts in its latency, as in fio.
    let (complete_min, complete_max) = set.job.as_ref().map_or((1, 1), |j| {
        let min = j.iodepth_batch_complete_min as usize;
        (min, (j.iodepth_batch_complete_max as usize).max(min).max(1))
    });
    let mut comps: Vec<IoCompletion> = Vec::with_capacity(depth * 2);
    let mut rate_wait: Option<u64> = None;
    let mut done_count = 0u64;
    let mut last_progress = 0.0f64;
    let cpu0 = thread_cpu();
    let start = Instant::now();
    let deadline_ns = set.runtime_ns.map(|r| set.ramp_ns + r);

    loop {
        if job.control.as_ref().is_some_and(|c| c.stopped()) {
            // fio's exitall: another job finished; what is in flight completes.
            jl.core.stop();
        }
        let now_ns = ns_since(start, Instant::now());
        if jl.in_flight() == 0 {
            jl.core.drained(set, now_ns);
        }
        let hold = jl.fill(set, &mut rt, now_ns)?;
        rt.submit(&mut jl.core)?;
        if let Hold::Rate(due) = hold {
            // The thread sleeps for it below, or reaps and looks again: no wake-up is pending
            // in the loop meanwhile (a rate's turn takes no place in the queue).
            rate_wait = Some(due);
            jl.woke();
        }
        match jl.flow_held(set) {
            FlowHold::Retry if jl.in_flight() == 0 => {
                // fio spins on its flow check until another job of the flow has moved.
                std::thread::yield_now();
                continue;
            }
            FlowHold::Sleep(ns) => {
                // fio's io_u_quiesce, then usleep(flow_sleep), then the check again.
                std::thread::sleep(Duration::from_nanos(ns));
                jl.woke();
                continue;
            }
            _ => {}
        }
        if hold == Hold::Think && jl.in_flight() == 0 {
            // fio's handle_thinktime: the queue has drained; spin, then sleep the rest.
            jl.thought();
            let t = Instant::now();
            let spin = Duration::from_nanos(set.thinktime_spin_ns);
            while t.elapsed() < spin {
                std::hint::spin_loop();
            }
            let rest = Duration::from_nanos(set.thinktime_ns).saturating_sub(t.elapsed());
            if !rest.is_zero() {
                std::thread::sleep(rest);
            }
            continue;
        }
        if let Some(due) = rate_wait.take() {
            if jl.in_flight() == 0 && !jl.core.stopped() {
                // fio's rate: nothing in flight, so wait for the next I/O's turn.
                let now_ns = ns_since(start, Instant::now());
                let until = deadline_ns.map_or(due, |d| due.min(d));
                if until > now_ns {
                    std::thread::sleep(Duration::from_nanos(until - now_ns));
                }
                continue;
            }
        }
        if jl.in_flight() == 0 {
            if let Some(v) = rt.verifier.as_mut() {
                if !v.final_pass_started() {
                    // The write phase is over and every write has completed: read it all back.
                    write_phase_end = Some(ns_since(start, Instant::now()));
                    if let Some(h) = &job.before_verify {
                        (h.0)();
                    }
                    v.start_final_pass();
                    continue;
                }
                if v.has_work() {
                    continue;
                }
            }
            break;
        }
        comps.clear();
        // Full: every slot busy, or a latency-target probe's depth reached (fio's queue_full);
        // a queue draining to iodepth_low stays full until it is there (fio evaluates `full`
        // once and reaps with the same limits until then).
        let full = jl.draining() || rt.free.is_empty() || (jl.core.probing() && jl.in_flight() >= jl.depth(set));
        let in_flight = rt.eng.in_flight() as usize;
        let n = if full {
            rt.eng.reap(complete_min.min(in_flight), complete_max, &mut comps)?
        } else {
            // Waiting for the job's last I/Os, a rate's turn, a think time or a probe's quiesce:
            // whatever has completed.
            rt.eng.reap(1, usize::MAX, &mut comps)?
        };
        let t_done = Instant::now();
        jl.core.result.depth.mark_complete(n as u64);
        let t_ns = ns_since(start, t_done);
        for c in &comps {
            let s = rt.slots[c.slot as usize];
            rt.free.push(c.slot);
            if c.result < 0 {
                jl.returned(set);
                let errno = -c.result;
                let core = &mut jl.core;
                // fio's td_non_fatal_error: continue_on_error/ignore_error say the job goes
                // on; the error is counted (total_err) and the first kept (first_error).
                if model.errors.non_fatal(u8::from(!matches!(s.kind, 0 | 3)), errno) {
                    core.result.io_errors += 1;
                    if core.result.error == 0 {
                        core.result.error = errno;
                    }
                    continue;
                }
                if errno == libc::ENOSPC && s.kind == 1 && job.stop_on_enospc {
                    core.stop();
                    core.result.error = libc::ENOSPC;
                    continue;
                }
                return Err(io_error(targets[s.file as usize].path, job, &s, errno));
            }
            let bytes = c.result as u64;
            // A verify's read-back is a read, as fio counts it.
            let done = match s.kind {
                2 => Done::Sync,
                3 => Done::Dir(0),
                d => Done::Dir(d),
            };
            if let Some(v) = rt.verifier.as_mut() {
                let core = &mut jl.core;
                match s.kind {
                    1 => v.written(s.offset, u64::from(s.len)),
                    0 | 3 if s.kind == 3 || v.is_read_only() => {
                        // A verify's read-back, or any read of a job that only reads (fio's
                        // read-only verify: each read is checked as it completes).
                        let ok = (c.result as u32) == s.len
                            && rt.eng.buffer_mut(c.slot).is_some_and(|b| {
                                if s.kind == 3 {
                                    v.check(b, s.offset, u64::from(s.len))
                                } else {
                                    v.check_read(b, s.offset, u64::from(s.len))
                                }
                            });
                        if !ok {
                            if c.result as u32 != s.len {
                                v.summary.record_mismatch(flashlab_measure::VerifyMismatch {
                                    offset: s.offset,
                                    len: u64::from(s.len),
                                    check: "length".into(),
                                    expected: format!("{} bytes", s.len),
                                    received: format!("{} bytes (short read)", c.result),
                                });
                            }
                            // fio: EILSEQ, and the job ends unless it continues on verify errors.
                            if core.result.error == 0 {
                                core.result.error = libc::EILSEQ;
                            }
                            if v.aborted() {
                                core.stop();
                            }
                        }
                    }
                    _ => {}
                }
            }
            // clat already spans the submission (see RealTarget::submit): lat = clat.
            let clat = s.submitted.map_or(0, |sub| t_done.duration_since(sub).as_nanos() as u64);
            let slat = (!sync_engine).then_some(s.slat_ns);
            jl.complete(set, done, bytes, u64::from(s.len), Timing { at: t_ns, clat, lat: clat, slat, prio: s.prio });
        }
        done_count += n as u64;
        if done_count % 64 < n as u64 {
            let frac = jl.core.progress(set, t_ns);
            if frac - last_progress >= 0.01 {
                last_progress = frac;
                progress(frac);
            }
        }
    }

    let mut core = jl.core;
    if set.end_fsync && set.rw.has_writes() {
        for t in targets {
            if fds.binary_search(&t.fd).is_err() {
                continue;
            }
            // SAFETY: fsync on an open fd.
            if unsafe { libc::fsync(t.fd) } != 0 {
                let e = std::io::Error::last_os_error();
                return Err(RealError::io(format!("{}: fsync at the end of job '{}'", t.path.display(), set.name), e));
            }
            // Each distinct file once.
            fds.retain(|&f| f != t.fd);
        }
        core.ended_at(ns_since(start, Instant::now()));
    }
    let measure_from = core.measure_from();
    let mut result = core.finish(job.files.iter().map(|f| f.name.as_str()));
    if let Some(v) = rt.verifier {
        // As fio: without a backlog the reads are the pass after the writes, and each
        // direction's runtime is its own phase's.
        if let (Some(end), 0) = (write_phase_end, model.verify.backlog) {
            let runtime = result.job_runtime_ns;
            let end = end.saturating_sub(measure_from).min(runtime);
            result.write.runtime_ns = end;
            if !set.rw.has_reads() {
                result.read.runtime_ns = runtime - end;
            }
            // A mix's own reads ran all along: its read runtime is the whole job (fio adds
            // the pass to the main loop's).
        }
        result.continue_on_error = model.verify.continue_on_error;
        result.verify = Some(v.summary);
    }
    result.continue_on_error |= model.errors.continues();
    let cpu1 = thread_cpu();
    result.cpu = CpuUsage {
        usr_ns: cpu1.0 - cpu0.0,
        sys_ns: cpu1.1 - cpu0.1,
        ctx: cpu1.2 - cpu0.2,
        majf: cpu1.3 - cpu0.3,
        minf: cpu1.4 - cpu0.4,
    };
    flashlab_workload::iogen::check_rate_min(&model, &result).map_err(|e| RealError::BadJob(e.to_string()))?;
    progress(1.0);
    Ok(result)
}

fn io_error(path: &Path, job: &RealJob, s: &Slot, errno: i32) -> RealError {
    let what = ["read", "write", "flush", "verify read"][s.kind as usize];
    if errno == libc::ENOSPC {
        return RealError::NoSpace { path: PathBuf::from(path) };
    }
    let hint = if errno == libc::EINVAL && job.direct {
        " (O_DIRECT needs offsets and sizes aligned to the device's logical block size; try a larger block size or --buffered)"
    } else {
        ""
    };
    RealError::Io {
        what: format!(
            "{}: job '{}': {what} of {} bytes at offset {}{hint}",
            path.display(),
            job.settings.name,
            s.len,
            s.offset
        ),
        source: std::io::Error::from_raw_os_error(errno),
    }
}

#[cfg(test)]
mod tests {
    use super::working_set_block;

    #[test]
    fn a_working_set_block_is_the_same_bytes_for_the_same_index() {
        let (mut a, mut b, mut c) = (vec![0u8; 4096], vec![1u8; 4096], vec![0u8; 4096]);
        working_set_block(&mut a, 4096, 7, 3);
        working_set_block(&mut b, 4096, 7, 3);
        working_set_block(&mut c, 4096, 7, 4);
        assert_eq!(a, b, "the same block of the working set");
        assert_ne!(a, c, "another block");
        let mut d = vec![0u8; 4096];
        working_set_block(&mut d, 4096, 8, 3);
        assert_ne!(a, d, "another job's working set (no dedupe_global)");
    }
}
