//! The real-time closed-loop runner: one job on one open file or block device (or on several
//! files, fio's `nrfiles`, each I/O's file chosen by `flashlab_lab::fileset`), keeping
//! `iodepth` I/Os in flight (the engine's depth: psync has 1) until its byte or I/O budget or
//! its runtime is used up — the semantics of the simulated engine
//! (`flashlab_lab::engine`), with the wall clock (`std::time::Instant`) instead of virtual
//! time:
//!
//! * offsets come from `flashlab_lab::offsets::Offsets` (sequential with wrap-around, fio's
//!   random map, or uniform with `random_map = false`), seeded, so a seed gives the same
//!   sequence as on a simulated device;
//! * mixed jobs pick reads with probability `rwmixread` %;
//! * after every `fsync_every` writes a flush (`fsync`, or `fdatasync` with `fdatasync`) is
//!   issued as one of the in-flight requests (ordered after the writes before it);
//! * I/Os completing before `ramp` has passed are not measured;
//! * latencies as fio measures them, in ns: for an asynchronous engine (io_uring) slat is the
//!   submit call's duration, clat runs from the end of the submit call to the end of the reap
//!   call that returned the I/O, lat = slat + clat; for psync, whose submit call does the
//!   I/O, clat = lat = the whole call (no slat), as fio reports sync engines;
//! * bandwidth/IOPS intervals every `interval` (fio's 500 ms), runtime per active direction
//!   (0 for a direction the job does not do, as fio), thread CPU time from getrusage.
//!
//! Per I/O the loop does no allocation: buffers are the engine's slots, bookkeeping lives in
//! arrays sized by the queue depth. With buffered I/O (`direct = false`) the file's cached
//! pages are dropped first (fio's default `invalidate=1`), so reads come from the device.

use crate::buffers::{make_compressible, stamp, DataPattern};
use crate::engine::psync::PsyncEngine;
use crate::engine::uring::UringEngine;
use crate::engine::{EngineConfig, EngineKind, IoCompletion, IoEngine, IoOp, IoRequest};
use crate::RealError;
use flashlab_jobs::pacing::Pacer;
use flashlab_jobs::{IoDir, Job, Rw};
use flashlab_lab::fileset::FileSet;
use flashlab_lab::rng::Rng;
use flashlab_measure::{CpuUsage, Ddir, Interval, JobResult};
use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One job on a real file or device.
#[derive(Debug, Clone)]
pub struct RealJob {
    /// The job's name.
    pub name: String,
    /// The I/O pattern (read, write, randread, ...).
    pub rw: Rw,
    /// Percentage of reads in a mixed workload.
    pub rwmixread: u32,
    /// Block size of reads, bytes.
    pub bs_read: u64,
    /// Block size of writes, bytes.
    pub bs_write: u64,
    /// The job's region of the file: [offset, offset + span).
    pub offset: u64,
    /// Length of the job's region, bytes.
    pub span: u64,
    /// I/Os kept in flight (psync: effectively 1).
    pub iodepth: u32,
    /// Bytes to transfer (fio's `io_size`); `None`: the span. Ignored when time-based.
    pub io_limit: Option<u64>,
    /// Number of I/Os to do (fio's `number_ios`); `None`: no limit.
    pub number_ios: Option<u64>,
    /// How long to run; `None`: until the bytes are done.
    pub runtime: Option<Duration>,
    /// Loop over the region until `runtime` has passed.
    pub time_based: bool,
    /// Run this long before measuring.
    pub ramp: Duration,
    /// Flush after every N writes; 0 = never.
    pub fsync_every: u32,
    /// The flush is `fdatasync` rather than `fsync`.
    pub fdatasync: bool,
    /// `fsync` once the job's I/O is done (counted in its runtime), as fio's `end_fsync`.
    pub end_fsync: bool,
    /// Random offsets visit each block once per pass (fio's default); false = `norandommap`.
    pub random_map: bool,
    /// Seed of the random offsets and data.
    pub seed: u64,
    /// O_DIRECT (the file must have been opened with it: see [`open_file`]).
    pub direct: bool,
    /// The I/O engine.
    pub engine: EngineKind,
    /// What the written bytes hold.
    pub pattern: DataPattern,
    /// Bandwidth sampling interval (fio's default 500 ms).
    pub interval: Duration,
    /// A write failing with ENOSPC ends the job normally (result's `error` = ENOSPC) instead of
    /// failing it: what a fill wants.
    pub stop_on_enospc: bool,
    /// fio's `thinktime`: the job issues `thinktime_blocks` I/Os, waits for them to complete,
    /// busy-waits `thinktime_spin`, then sleeps the rest of `thinktime`.
    pub thinktime: Duration,
    /// Part of `thinktime` busy-waited.
    pub thinktime_spin: Duration,
    /// I/Os between two think times.
    pub thinktime_blocks: u32,
    /// The job-file job this runs, for fio's options beyond the fields above (mixed block
    /// sizes, `random_distribution`, `percentage_random`, `rw=...:N`, `rate*`, `loops`);
    /// `None`: a job with only the fields above.
    pub job: Option<std::sync::Arc<Job>>,
    /// Called once when a verifying job's writes have all completed, before it reads them
    /// back (tests corrupt a block here, as a faulty device would).
    pub before_verify: Option<crate::verify::Hook>,
    /// A job over several files (fio's `nrfiles`, `filename=a:b`): each file's path and span,
    /// chosen per I/O as `flashlab_lab::fileset` does ([`run_job_on_path`] opens them).
    /// Empty: one file, [offset, offset + span) of the file the runner is given.
    pub files: Vec<RealFile>,
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
struct Target<'a> {
    path: &'a Path,
    fd: RawFd,
    offset: u64,
    span: u64,
}

impl RealJob {
    /// A job over `span` bytes from offset 0 with fio's defaults (QD1, one pass, random map,
    /// seed 1), direct I/O on io_uring, random data.
    pub fn new(name: &str, rw: Rw, bs: u64, span: u64) -> RealJob {
        RealJob {
            name: name.to_string(),
            rw,
            rwmixread: 50,
            bs_read: bs,
            bs_write: bs,
            offset: 0,
            span,
            iodepth: 1,
            io_limit: None,
            number_ios: None,
            runtime: None,
            time_based: false,
            ramp: Duration::ZERO,
            fsync_every: 0,
            fdatasync: false,
            end_fsync: false,
            random_map: true,
            seed: 1,
            direct: true,
            engine: EngineKind::IoUring,
            pattern: DataPattern::Random,
            interval: Duration::from_millis(500),
            stop_on_enospc: false,
            thinktime: Duration::ZERO,
            thinktime_spin: Duration::ZERO,
            thinktime_blocks: 1,
            job: None,
            before_verify: None,
            files: Vec::new(),
        }
    }

    /// The job model this runs: its job-file job, or one made of the fields above.
    pub fn model(&self) -> Job {
        let mut j = match &self.job {
            Some(j) => (**j).clone(),
            None => {
                let mut j = Job::new(self.name.clone());
                j.rwmixread = self.rwmixread;
                j.bs_read = self.bs_read;
                j.bs_write = self.bs_write;
                j.bs_trim = self.bs_write;
                j
            }
        };
        j.rw = self.rw;
        j.norandommap = !self.random_map;
        j
    }

    /// The job of a parsed fio job section over [offset, offset + span) of the target, as the
    /// simulated `flashlab run` builds it: fio's rw, rwmixread, block sizes, iodepth,
    /// io_size, number_ios, runtime, time_based, ramp_time, fsync / fdatasync, end_fsync and
    /// `direct` (fio's default is buffered: the caller may override `direct`, `engine` and
    /// `pattern`); the seed is `randseed` or `seed`.
    pub fn from_fio(job: &flashlab_jobs::Job, offset: u64, span: u64, seed: u64) -> RealJob {
        let mut j = RealJob::new(&job.name, job.rw, job.bs_read, span);
        j.bs_write = job.bs_write;
        j.rwmixread = job.rwmixread;
        j.offset = offset;
        j.iodepth = job.iodepth.max(1);
        j.io_limit = job.io_size;
        j.number_ios = job.number_ios;
        j.runtime = job.runtime_ns.map(Duration::from_nanos);
        j.time_based = job.time_based;
        j.ramp = Duration::from_nanos(job.ramp_time_ns);
        j.fsync_every = if job.fsync > 0 { job.fsync } else { job.fdatasync };
        j.fdatasync = job.fsync == 0 && job.fdatasync > 0;
        j.end_fsync = job.end_fsync;
        j.direct = job.direct;
        j.seed = job.randseed.unwrap_or(seed);
        j.thinktime = Duration::from_nanos(job.thinktime_ns);
        j.thinktime_spin = Duration::from_nanos(job.thinktime_spin_ns);
        j.thinktime_blocks = job.thinktime_blocks.max(1);
        j.random_map = !job.norandommap;
        j.job = Some(std::sync::Arc::new(job.clone()));
        j
    }

    /// The job verifies its writes (fio's `verify`, see [`crate::verify`]).
    pub fn verifies(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.verify.enabled())
    }

    /// The job issues reads: its pattern's, or a verify's read-back.
    fn reads(&self) -> bool {
        self.rw.has_reads() || self.verifies()
    }

    fn budget(&self) -> Option<u64> {
        if self.time_based {
            None
        } else {
            let loops = self.job.as_ref().map_or(1, |j| u64::from(j.loops.max(1)));
            Some(self.io_limit.unwrap_or(self.span).saturating_mul(loops))
        }
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
    let targets: Vec<Target> = job
        .files
        .iter()
        .map(|f| {
            let fd = open.iter().find(|(p, _)| *p == f.path.as_path()).map(|(_, h)| h.as_raw_fd()).unwrap_or(-1);
            Target { path: &f.path, fd, offset: f.offset, span: f.span }
        })
        .collect();
    run_targets(&targets, job, progress)
}

/// Run `job` on `file` (open with O_DIRECT if `job.direct`); `path` names it in errors;
/// `progress` gets the fraction done now and then.
pub fn run_job(path: &Path, file: &File, job: &RealJob, progress: &mut dyn FnMut(f64)) -> Result<JobResult, RealError> {
    run_targets(&[Target { path, fd: file.as_raw_fd(), offset: job.offset, span: job.span }], job, progress)
}

fn run_targets(targets: &[Target], job: &RealJob, progress: &mut dyn FnMut(f64)) -> Result<JobResult, RealError> {
    validate(job)?;
    for t in targets {
        if job.direct && (!t.offset.is_multiple_of(512) || !t.span.is_multiple_of(512)) {
            return Err(RealError::BadJob(format!(
                "job '{}': {}: offset {} and size {} must be multiples of 512 with O_DIRECT (use --buffered)",
                job.name,
                t.path.display(),
                t.offset,
                t.span
            )));
        }
    }
    let reads = job.rw.has_reads();
    let writes = job.rw.has_writes();
    let buf_size = [(reads, job.bs_read), (writes, job.bs_write)]
        .iter()
        .filter(|(a, _)| *a)
        .map(|(_, b)| *b)
        .max()
        .unwrap_or(4096) as usize;
    let fixed_buffers = job.job.as_ref().is_some_and(|j| j.fixedbufs);
    let cfg = EngineConfig { depth: job.iodepth.max(1), buf_size, pattern: job.pattern, seed: job.seed, fixed_buffers };
    match job.engine {
        EngineKind::IoUring => run_with(&mut UringEngine::new(&cfg)?, targets, job, progress),
        EngineKind::Psync => run_with(&mut PsyncEngine::new(&cfg), targets, job, progress),
    }
}

fn validate(job: &RealJob) -> Result<(), RealError> {
    let bad = |m: String| Err(RealError::BadJob(format!("job '{}': {m}", job.name)));
    if job.rw.has_trims() {
        return Err(RealError::Unsupported(format!(
            "job '{}': rw={} (trim) is not supported on real targets yet",
            job.name,
            job.rw.fio_name()
        )));
    }
    if job.span == 0 {
        return bad("the region to do I/O on is empty (size 0)".into());
    }
    for (active, bs, what) in [(job.rw.has_reads(), job.bs_read, "read"), (job.rw.has_writes(), job.bs_write, "write")]
    {
        if active && (bs == 0 || bs > u64::from(u32::MAX)) {
            return bad(format!("{what} block size {bs} out of range"));
        }
        if active && job.direct && !bs.is_multiple_of(512) {
            return bad(format!(
                "{what} block size {bs} is not a multiple of 512, which O_DIRECT needs (use --buffered)"
            ));
        }
    }
    if job.direct && (!job.offset.is_multiple_of(512) || !job.span.is_multiple_of(512)) {
        return bad(format!(
            "offset {} and size {} must be multiples of 512 with O_DIRECT (use --buffered)",
            job.offset, job.span
        ));
    }
    if let Some(j) = job.job.as_deref().filter(|_| job.direct) {
        for d in [IoDir::Read, IoDir::Write] {
            let wrong =
                j.block_sizes(d).probabilities().into_iter().map(|(b, _)| b).chain([j.align(d)]).find(|b| b % 512 != 0);
            if let Some(b) = wrong.filter(|_| j.bs_mix.is_some() || j.blockalign.iter().any(|&a| a > 0)) {
                return bad(format!("block size or alignment {b} (bssplit/bsrange/blockalign) is not a multiple of 512, which O_DIRECT needs (use --buffered)"));
            }
        }
    }
    if job.time_based && job.runtime.is_none() {
        return bad("time_based needs a runtime".into());
    }
    Ok(())
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
}

#[derive(Default)]
struct Windows {
    start_ns: u64,
    bytes: [u64; 2],
    ios: [u64; 2],
    lat_sum: [u64; 2],
    lat_max: [u64; 2],
}

impl Windows {
    /// An empty bandwidth window opening at `start_ns`.
    fn starting(start_ns: u64) -> Windows {
        Windows { start_ns, ..Windows::default() }
    }
}

fn thread_cpu() -> (u64, u64, u64, u64, u64) {
    // SAFETY: getrusage fills the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (ns(ru.ru_utime), ns(ru.ru_stime), (ru.ru_nvcsw + ru.ru_nivcsw) as u64, ru.ru_majflt as u64, ru.ru_minflt as u64)
}

fn run_with<E: IoEngine>(
    eng: &mut E,
    targets: &[Target],
    job: &RealJob,
    progress: &mut dyn FnMut(f64),
) -> Result<JobResult, RealError> {
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
    // A verifying job has one file (the parser refuses verify over several).
    let fd = targets[0].fd;
    let mut last_write_file = 0u32;
    let depth = eng.depth() as usize;
    let sync_engine = eng.synchronous();
    let mut rng = Rng::new(job.seed);
    let model = job.model();
    let spans: Vec<u64> = targets.iter().map(|t| t.span).collect();
    let mut gen =
        FileSet::new(&model, &spans, &mut rng).map_err(|e| RealError::BadJob(format!("job '{}': {e}", job.name)))?;
    let mut verifier = crate::verify::Verifier::new(&model.verify, job.offset, job.span, job.bs_write, job.seed, 0);
    // When the write phase ended (the verify pass starts), ns from the start.
    let mut write_phase_end: Option<u64> = None;
    let mut pacer = Pacer::new(&model, 0);
    // What every deduplicable write carries (allocated once, only with dedupe_percentage).
    let dedupe_data: Vec<u8> = if model.dedupe_percentage > 0 {
        let mut r = Rng::new(job.seed ^ 0xdede_0009);
        (0..job.bs_read.max(job.bs_write)).map(|_| r.next_u64() as u8).collect()
    } else {
        Vec::new()
    };
    // The direction drawn for an I/O that waits for its rate.
    let mut pending_dir: Option<u8> = None;
    let mut rate_wait: Option<u64> = None;
    let mut result = JobResult::new(job.name.clone(), 0);
    result.iodepth = Some(job.iodepth);
    let mut slots = vec![Slot::default(); depth];
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut batch: Vec<u32> = Vec::with_capacity(depth);
    // fio's iodepth_batch_submit: I/Os per submit call (default 1: each as soon as it is
    // queued, as fio does); `more`: the batch filled while slots were still free.
    let submit_batch = match job.job.as_ref().map_or(1, |j| j.iodepth_batch) {
        0 => depth,
        n => n as usize,
    };
    let mut more = false;
    let mut comps: Vec<IoCompletion> = Vec::with_capacity(depth * 2);
    let budget = job.budget();
    let interval_ns = job.interval.as_nanos().max(1) as u64;
    let ramp_ns = job.ramp.as_nanos() as u64;
    let flush_op = if job.fdatasync { IoOp::Fdatasync } else { IoOp::Fsync };
    let mut issued_bytes = 0u64;
    let mut issued_ios = 0u64;
    let mut writes_since_sync = 0u32;
    let mut write_counter = 0u64;
    let mut stopped = false;
    let mut win = Windows::starting(ramp_ns);
    // Completions from this time on are measured: the ramp's end, or where the latency
    // target's probe restarted the statistics.
    let mut measure_from = ramp_ns;
    // fio's `latency_target` probe of the queue depth, with its quiesce and restart.
    let mut probe = model
        .latency_target
        .enabled()
        .then(|| flashlab_jobs::latency_target::DepthProbe::new(model.latency_target, job.iodepth, ramp_ns));
    let (mut quiesce, mut reset_pending) = (false, false);
    let mut last_done_ns = 0u64;
    let mut done_count = 0u64;
    let mut last_progress = 0.0f64;
    let cpu0 = thread_cpu();
    let start = Instant::now();
    let deadline = job.runtime.map(|r| start + job.ramp + r);
    // fio's think time: at most `thinktime_blocks` I/Os between two think times.
    let thinks = !job.thinktime.is_zero();
    let mut since_think = 0u32;
    // fio's steady-state window (`ss_dur`), sampled once a second of wall time, with the
    // bytes and I/Os completed since the start (ramp included) it is fed.
    let mut ss =
        model.steadystate.enabled().then(|| flashlab_jobs::steadystate::SteadyTracker::new(model.steadystate, 0));
    let (mut ss_bytes, mut ss_ios) = (0u64, 0u64);

    loop {
        // Issue until every slot is busy or the job is done.
        let think_due = thinks && since_think >= job.thinktime_blocks;
        let verify_now = verifier.as_ref().is_some_and(|v| v.has_work());
        if quiesce && eng.in_flight() == 0 {
            quiesce = false;
            if reset_pending {
                // fio's reset_all_stats: measure again from here, at the depth found.
                reset_pending = false;
                let now_ns = start.elapsed().as_nanos() as u64;
                let mut r = JobResult::new(job.name.clone(), 0);
                r.iodepth = Some(job.iodepth);
                result = r;
                measure_from = now_ns;
                win = Windows::starting(now_ns);
            }
        }
        if (!stopped || verify_now) && !free.is_empty() && (!think_due || verify_now) {
            let now = Instant::now();
            while let Some(&slot) = free.last() {
                if batch.len() >= submit_batch {
                    more = true;
                    break;
                }
                if probe.as_ref().is_some_and(|p| quiesce || eng.in_flight() + batch.len() as u32 >= p.depth()) {
                    break;
                }
                // A verify's read-back goes first (a backlog's, or the pass after the writes).
                if let Some((off, len)) = verifier.as_mut().and_then(|v| v.next_read()) {
                    slots[slot as usize] =
                        Slot { kind: 3, file: 0, len: len as u32, offset: off, submitted: None, slat_ns: 0 };
                    eng.queue(IoRequest {
                        op: IoOp::Read,
                        fd,
                        offset: off,
                        len: len as u32,
                        slot,
                        user_data: u64::from(slot),
                    })?;
                    free.pop();
                    batch.push(slot);
                    continue;
                }
                if stopped {
                    break;
                }
                if thinks && since_think >= job.thinktime_blocks {
                    break;
                }
                let over_time = deadline.is_some_and(|d| now >= d);
                let over_bytes = budget.is_some_and(|b| issued_bytes >= b);
                let over_ios = !job.time_based && job.number_ios.is_some_and(|n| issued_ios >= n);
                if over_time || over_bytes || over_ios {
                    stopped = true;
                    break;
                }
                let now_ns = now.duration_since(start).as_nanos() as u64;
                let req = if job.fsync_every > 0 && writes_since_sync >= job.fsync_every {
                    writes_since_sync = 0;
                    slots[slot as usize] =
                        Slot { kind: 2, file: last_write_file, len: 0, offset: 0, submitted: None, slat_ns: 0 };
                    let fd = targets[last_write_file as usize].fd;
                    IoRequest { op: flush_op, fd, offset: 0, len: 0, slot, user_data: u64::from(slot) }
                } else {
                    let dir: u8 = pending_dir.take().unwrap_or_else(|| match job.rw {
                        Rw::Read | Rw::RandRead => 0,
                        Rw::ReadWrite | Rw::RandRw => u8::from(rng.below(100) >= u64::from(job.rwmixread)),
                        _ => 1,
                    });
                    let io_dir = if dir == 0 { IoDir::Read } else { IoDir::Write };
                    if let Some(p) = &pacer {
                        let due = p.due(io_dir, now_ns);
                        if due > now_ns {
                            pending_dir = Some(dir);
                            rate_wait = Some(due);
                            break;
                        }
                    }
                    let Some((fi, off, len)) = gen.next(dir) else {
                        // Every file is done (fio ends the job there).
                        pending_dir = None;
                        stopped = true;
                        break;
                    };
                    if let Some(p) = &mut pacer {
                        p.issued(io_dir, len, &mut rng);
                    }
                    let t = &targets[fi];
                    let abs = t.offset + off;
                    if dir == 1 {
                        last_write_file = fi as u32;
                        write_counter += 1;
                        writes_since_sync += 1;
                        if job.pattern == DataPattern::Random {
                            let dedupe =
                                model.dedupe_percentage > 0 && rng.below(100) < u64::from(model.dedupe_percentage);
                            if let Some(b) = eng.buffer_mut(slot) {
                                if dedupe {
                                    // fio's dedupe_percentage: the same bytes as every other
                                    // deduplicable write of this job.
                                    let n = (len as usize).min(b.len()).min(dedupe_data.len());
                                    b[..n].copy_from_slice(&dedupe_data[..n]);
                                } else {
                                    stamp(b, len as usize, abs, write_counter);
                                }
                                make_compressible(b, len as usize, model.buffer_compress_percentage);
                            }
                        }
                        if let Some(v) = verifier.as_mut() {
                            if let Some(b) = eng.buffer_mut(slot) {
                                v.fill(b, abs, len, write_counter - 1);
                            }
                        }
                    }
                    issued_bytes += len;
                    issued_ios += 1;
                    slots[slot as usize] =
                        Slot { kind: dir, file: fi as u32, len: len as u32, offset: abs, submitted: None, slat_ns: 0 };
                    IoRequest {
                        op: if dir == 0 { IoOp::Read } else { IoOp::Write },
                        fd: t.fd,
                        offset: abs,
                        len: len as u32,
                        slot,
                        user_data: u64::from(slot),
                    }
                };
                eng.queue(req)?;
                since_think += 1;
                free.pop();
                batch.push(slot);
            }
            if !batch.is_empty() {
                let n = batch.len() as u64;
                result.depth.mark_depth(u64::from(eng.in_flight()), n);
                result.depth.mark_submit(n);
                // Completion latency starts before the submitting system call, for every engine:
                // psync's pread does the I/O inside it, and io_uring can deliver a completion
                // during io_uring_enter (task work runs on the syscall's return), which fio's
                // clock, started after the call, reads as ~0.06 us (17.3 us with psync on the
                // same device). slat is how long the call took (part of clat here).
                let t0 = Instant::now();
                eng.submit()?;
                let (t, slat) =
                    if sync_engine { (t0, 0) } else { (t0, Instant::now().duration_since(t0).as_nanos() as u64) };
                for &s in &batch {
                    slots[s as usize].submitted = Some(t);
                    slots[s as usize].slat_ns = slat;
                }
                batch.clear();
            }
        }
        if std::mem::take(&mut more) {
            // Submitted a full batch with slots still free: queue the next before reaping.
            continue;
        }
        if thinks && since_think >= job.thinktime_blocks && eng.in_flight() == 0 {
            // fio's handle_thinktime: the queue has drained; spin, then sleep the rest.
            since_think = 0;
            if !stopped {
                let t = Instant::now();
                while t.elapsed() < job.thinktime_spin {
                    std::hint::spin_loop();
                }
                let rest = job.thinktime.saturating_sub(t.elapsed());
                if !rest.is_zero() {
                    std::thread::sleep(rest);
                }
            }
            continue;
        }
        if let Some(due) = rate_wait.take() {
            if eng.in_flight() == 0 && !stopped {
                // fio's rate: nothing in flight, so wait for the next I/O's turn.
                let now_ns = start.elapsed().as_nanos() as u64;
                let until = deadline.map_or(due, |d| due.min(d.duration_since(start).as_nanos() as u64));
                if until > now_ns {
                    std::thread::sleep(Duration::from_nanos(until - now_ns));
                }
                continue;
            }
        }
        if eng.in_flight() == 0 {
            if let Some(v) = verifier.as_mut() {
                if !v.final_pass_started() {
                    // The write phase is over and every write has completed: read it all back.
                    write_phase_end = Some(start.elapsed().as_nanos() as u64);
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
        let n = eng.reap(1, &mut comps)?;
        let t_done = Instant::now();
        result.depth.mark_complete(n as u64);
        let t_ns = t_done.duration_since(start).as_nanos() as u64;
        last_done_ns = last_done_ns.max(t_ns);
        for c in &comps {
            let s = slots[c.slot as usize];
            free.push(c.slot);
            if c.result < 0 {
                let errno = -c.result;
                if errno == libc::ENOSPC && s.kind == 1 && job.stop_on_enospc {
                    stopped = true;
                    result.error = libc::ENOSPC;
                    continue;
                }
                return Err(io_error(targets[s.file as usize].path, job, &s, errno));
            }
            if let Some(tr) = &mut ss {
                // Steady state ends the job: nothing more is issued, what is in flight completes.
                if tr.advance(t_ns, ss_bytes, ss_ios) {
                    stopped = true;
                }
                if s.kind != 2 {
                    ss_bytes += c.result as u64;
                    ss_ios += 1;
                }
            }
            if let Some(v) = verifier.as_mut() {
                match s.kind {
                    1 => v.written(s.offset, u64::from(s.len)),
                    3 => {
                        let ok = (c.result as u32) == s.len
                            && eng.buffer_mut(c.slot).is_some_and(|b| v.check(b, s.offset, u64::from(s.len)));
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
                            if result.error == 0 {
                                result.error = libc::EILSEQ;
                            }
                            if v.aborted() {
                                stopped = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
            let clat = s.submitted.map_or(0, |sub| t_done.duration_since(sub).as_nanos() as u64);
            // clat already spans the submission (see above).
            let lat = clat;
            if t_ns < measure_from {
                continue;
            }
            if let (Some(p), 0 | 1) = (&mut probe, s.kind) {
                use flashlab_jobs::latency_target::Action;
                match p.completed(lat, t_ns) {
                    Action::Go => {}
                    Action::Quiesce => quiesce = true,
                    Action::ResetStats => {
                        quiesce = true;
                        reset_pending = true;
                    }
                    Action::Done => stopped = true,
                    Action::Fatal => {
                        // fio: "max latency exceeded", ETIMEDOUT.
                        result.error = libc::ETIMEDOUT;
                        stopped = true;
                    }
                }
            }
            while t_ns >= win.start_ns + interval_ns {
                close_window(&mut result, job, &mut win, interval_ns);
            }
            if s.kind == 2 {
                result.sync.record(lat);
                continue;
            }
            // A verify's read-back is a read, as fio counts it.
            let d = if s.kind == 3 { 0 } else { s.kind as usize };
            let bytes = c.result as u64;
            let dstats = result.dir_mut(if d == 0 { Ddir::Read } else { Ddir::Write });
            if bytes < u64::from(s.len) {
                dstats.short_ios += 1;
            }
            dstats.record_io(bytes, clat, lat);
            if !sync_engine {
                dstats.record_slat(s.slat_ns);
            }
            win.bytes[d] += bytes;
            win.ios[d] += 1;
            win.lat_sum[d] += clat;
            win.lat_max[d] = win.lat_max[d].max(clat);
        }
        done_count += n as u64;
        if done_count % 64 < n as u64 {
            let frac = if let (true, Some(r)) = (job.time_based, job.runtime) {
                t_ns as f64 / (r + job.ramp).as_nanos().max(1) as f64
            } else if let Some(b) = budget {
                let f = issued_bytes as f64 / b.max(1) as f64;
                job.number_ios.map_or(f, |n| f.max(issued_ios as f64 / n.max(1) as f64))
            } else {
                0.0
            };
            let frac = frac.min(1.0);
            if frac - last_progress >= 0.01 {
                last_progress = frac;
                progress(frac);
            }
        }
    }

    if job.end_fsync && job.rw.has_writes() {
        for t in targets {
            if fds.binary_search(&t.fd).is_err() {
                continue;
            }
            // SAFETY: fsync on an open fd.
            if unsafe { libc::fsync(t.fd) } != 0 {
                let e = std::io::Error::last_os_error();
                return Err(RealError::io(format!("{}: fsync at the end of job '{}'", t.path.display(), job.name), e));
            }
            // Each distinct file once.
            fds.retain(|&f| f != t.fd);
        }
        last_done_ns = start.elapsed().as_nanos() as u64;
    }
    let partial = last_done_ns.saturating_sub(win.start_ns);
    if partial > 0 {
        close_window(&mut result, job, &mut win, partial);
    }
    let runtime = last_done_ns.saturating_sub(measure_from);
    result.read.runtime_ns = if job.reads() { runtime } else { 0 };
    result.write.runtime_ns = if job.rw.has_writes() { runtime } else { 0 };
    if let Some(v) = verifier {
        // As fio: without a backlog the reads are the pass after the writes, and each
        // direction's runtime is its own phase's.
        if let (Some(end), 0) = (write_phase_end, model.verify.backlog) {
            let end = end.saturating_sub(measure_from).min(runtime);
            result.write.runtime_ns = end;
            result.read.runtime_ns = runtime - end;
        }
        result.continue_on_error = model.verify.continue_on_error;
        result.verify = Some(v.summary);
    }
    result.trim.runtime_ns = 0;
    result.job_runtime_ns = runtime;
    if let Some(tr) = &ss {
        result.steadystate = serde_json::to_value(tr.report()).ok();
    }
    if let Some(p) = &probe {
        result.latency_probe = Some(flashlab_measure::LatencyProbe {
            depth: p.depth(),
            target_ns: model.latency_target.target_ns,
            window_ns: model.latency_target.window_ns,
            percentile: model.latency_target.percentile,
        });
    }
    for (f, c) in job.files.iter().zip(gen.counts()) {
        result.files.push(flashlab_lab::engine::file_io(&f.name, c));
    }
    let cpu1 = thread_cpu();
    result.cpu = CpuUsage {
        usr_ns: cpu1.0 - cpu0.0,
        sys_ns: cpu1.1 - cpu0.1,
        ctx: cpu1.2 - cpu0.2,
        majf: cpu1.3 - cpu0.3,
        minf: cpu1.4 - cpu0.4,
    };
    flashlab_lab::iogen::check_rate_min(&model, &result).map_err(|e| RealError::BadJob(e.to_string()))?;
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
        what: format!("{}: job '{}': {what} of {} bytes at offset {}{hint}", path.display(), job.name, s.len, s.offset),
        source: std::io::Error::from_raw_os_error(errno),
    }
}

fn close_window(result: &mut JobResult, job: &RealJob, w: &mut Windows, dur: u64) {
    let end = w.start_ns + dur;
    for (d, active, ddir) in [(0usize, job.reads(), Ddir::Read), (1, job.rw.has_writes(), Ddir::Write)] {
        if active {
            result.dir_mut(ddir).record_interval(Interval {
                end_ns: end,
                duration_ns: dur,
                bytes: w.bytes[d],
                ios: w.ios[d],
                lat_ns_sum: w.lat_sum[d],
                lat_ns_max: w.lat_max[d],
            });
        }
        w.bytes[d] = 0;
        w.ios[d] = 0;
        w.lat_sum[d] = 0;
        w.lat_max[d] = 0;
    }
    w.start_ns = end;
}
