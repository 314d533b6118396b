//! The simulated target's driver: jobs run on a simulated system, each keeping `iodepth`
//! requests in flight, and the virtual clock jumps from one completion to the next (no
//! sleeping, no wall clock).
//!
//! Jobs run side by side as fio runs the jobs of one group: all start together (unless a
//! `startdelay` or `wait_for` starts one later); each issues its next request when one of its
//! own completes, until its byte or I/O budget or its runtime is used up, or `exitall` stops
//! it when another job finishes. Which request a job sends next and why it waits is the one
//! job loop of every target ([`flashlab_workload::job_loop`]), and what it measures is its
//! [`flashlab_workload::job::JobCore`]'s, both shared with the real runner. This file is what
//! only the simulated target has: [`SimTarget`] sends each request to the system (a layer's
//! cost per request, `O_SYNC` as a flush, tags for verification, the mapping prefetch of a raw
//! job, fio's zoned mode and data placement) and queues its completion; the driver is an event
//! queue of completions, think times, rate wake-ups and job starts on the virtual clock.

use crate::event_queue::EventQueue;
use crate::system::{IoHints, SimSystem, SysError};
use flashlab_jobs::{ExitWhat, Rw};
use flashlab_measure::{Ddir, JobResult};
use flashlab_simfs::FileId;
use flashlab_workload::flow::Flow;
use flashlab_workload::job::{ddir, Done, JobCore, JobSettings, Timing};
use flashlab_workload::job_loop::{FlowHold, Hold, Io, JobLoop, Sent, Target};
use flashlab_workload::zbd::{ZbdDevice, ZbdJob};
use flashsim::{Ns, Op};

/// One job, resolved against a simulated system: its settings, which file, how it crosses
/// the stack.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// What the job does ([`JobSettings`], the same for every target).
    pub settings: JobSettings,
    /// Where the job's I/O goes.
    pub(crate) file: FileId,
    /// A layer between the job and the filesystem that each request crosses on the way in and
    /// on the way out (a FUSE daemon's round trip; see [`crate::stack`]); zero by default.
    pub(crate) layer: crate::stack::LayerCost,
    /// fio's `verify` on the simulated device ([`crate::sim_verify`]): writes carry tags, a
    /// backlog's read-backs are issued as this job's reads. `None`: no verification.
    pub verify: Option<std::sync::Arc<std::sync::Mutex<crate::sim_verify::SimVerifier>>>,
    /// A job over several files (fio's `nrfiles`, `filename=a:b`): every file with its span,
    /// chosen per I/O as [`crate::fileset`] does. Empty: the one file `file` at
    /// the settings' offset over their span.
    pub(crate) files: Vec<FileRegion>,
    /// fio's `wait_for`: the job starts once these jobs (indices into the specs run together)
    /// have all finished, or at its `start_delay_ns` if that is later. Empty: it starts with
    /// the group (after its delay).
    pub waits_for: Vec<usize>,
    /// fio's `zonemode=zbd`: the zones of the job's device (shared by every job on it) and the
    /// job's side of them. `None`: no zoned mode.
    pub zbd: Option<ZbdSpec>,
}

/// A job's zoned block device mode ([`flashlab_workload::zbd`]).
#[derive(Debug, Clone)]
pub struct ZbdSpec {
    /// The host's copy of the device's zones and the write target zones, shared by the jobs
    /// on the device.
    pub dev: std::sync::Arc<std::sync::Mutex<ZbdDevice>>,
    /// The job's side: its zone range, limits and resets.
    pub job: ZbdJob,
}

/// One file of a job over several files: where its I/O goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRegion {
    /// The file's name (reported per file).
    pub(crate) name: String,
    /// The file.
    pub(crate) file: FileId,
    /// The file's I/O lies in [offset, offset + span).
    pub(crate) offset: u64,
    /// Bytes of I/O space in the file.
    pub(crate) span: u64,
}

impl JobSpec {
    /// A job over a whole file of `size` bytes with fio's defaults: QD1, one pass over it.
    pub fn on_file(name: &str, rw: Rw, bs: u64, file: FileId, size: u64) -> JobSpec {
        JobSpec {
            settings: JobSettings::new(name, rw, bs, size),
            file,
            layer: crate::stack::LayerCost::ZERO,
            verify: None,
            files: Vec::new(),
            waits_for: Vec::new(),
            zbd: None,
        }
    }

    /// The spans of the job's files (one: the settings' span).
    fn spans(&self) -> Vec<u64> {
        if self.files.is_empty() {
            vec![self.settings.span]
        } else {
            self.files.iter().map(|f| f.span).collect()
        }
    }

    /// File `i`'s id and where its span starts.
    #[inline]
    fn region(&self, i: usize) -> (FileId, u64) {
        match self.files.get(i) {
            Some(f) => (f.file, f.offset),
            None => (self.file, self.settings.offset),
        }
    }
}

/// What a job issues next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// An I/O: its direction and priority slot (`JobCore::prio_slot`).
    Dir(u8, u8),
    Sync,
    /// The end of a think time (not an I/O).
    Think,
    /// A rate-limited job's next I/O is due (not an I/O).
    Wake,
    /// A job that starts after the group (`startdelay`, `wait_for`) starts (not an I/O).
    Start,
}

/// An I/O in flight, queued at the time it is done: (job, kind, bytes, submitted).
type Event = (usize, Kind, u64, Ns);

fn op(i: u8) -> Op {
    [Op::Read, Op::Write, Op::Trim][i as usize]
}

/// A job while it runs: the shared loop and what the simulated driver keeps beside it.
struct Live {
    lp: JobLoop,
    side: SimSide,
    /// When its core starts (the group's start plus `startdelay`; a job that waits for
    /// others gets a new core when it starts).
    origin: Ns,
    /// It has started (issued or may issue).
    begun: bool,
    /// It has finished: stopped, nothing in flight, its end fsync done.
    finished: bool,
    /// fio's `exitall` stopped it before it started: it never runs.
    cancelled: bool,
    /// Flow control held it back without a `flow_sleep`: it retries when another job of its
    /// flow moves.
    flow_retry: bool,
}

/// What only the simulated target keeps of a job: how its requests reach the system.
struct SimSide {
    /// A random read or write job on the raw device draws its offsets three ahead (`ahead`)
    /// and tells the device, which fetches their mapping entries meanwhile
    /// ([`SimSystem::prefetch`]). The offsets' generator is the job's own, so the sequence is
    /// the same.
    lookahead: bool,
    ahead: [(u64, u64); 3],
    /// fio's flow control: the job's flow (an index into the group's flows) and its I/Os
    /// counted in it.
    flow: Option<usize>,
    flow_count: u64,
    /// fio's `zonemode=zbd`: the job's side of the zones (its resets counted here).
    zbd: Option<ZbdJob>,
    /// fio's data placement: each write's placement or stream ID.
    placement: Option<flashlab_jobs::placement::Selector>,
    /// None of what a request may carry on its way to the system (verification, `O_SYNC`,
    /// a layer's cost, per-command priorities, zones, placement): each goes straight to it.
    bare: bool,
}

impl Live {
    /// Job `s`'s state starting at `start`.
    fn new(s: &JobSpec, start: Ns) -> Result<Live, SysError> {
        let mut core = JobCore::new(&s.settings, &s.spans(), start, s.verify.is_some())
            .map_err(|e| SysError::Job(e.to_string()))?;
        let lookahead = match s.settings.rw {
            _ if s.file != FileId::RAW || !s.files.is_empty() || s.zbd.is_some() => None,
            Rw::RandRead => Some(0u8),
            Rw::RandWrite => Some(1u8),
            _ => None,
        };
        let mut ahead = [(0, 0); 3];
        if let Some(d) = lookahead {
            for a in &mut ahead {
                *a = core.gen.next(d).map_or((0, 0), |(_, off, len)| (off, len));
            }
        }
        Ok(Live {
            lp: JobLoop::new(core, &s.settings),
            side: SimSide {
                lookahead: lookahead.is_some(),
                ahead,
                flow: None,
                flow_count: 0,
                zbd: s.zbd.as_ref().map(|z| z.job.clone()),
                placement: s.settings.job.as_ref().filter(|j| j.placement.on()).map(|j| {
                    let p = &j.placement;
                    flashlab_jobs::placement::Selector::new(p.ids.clone(), p.select, p.scheme.clone(), s.settings.seed)
                }),
                bare: s.verify.is_none()
                    && !s.settings.sync_writes
                    && s.layer == crate::stack::LayerCost::ZERO
                    && !s.settings.job.as_ref().is_some_and(|j| j.prio.cmdprio() || j.placement.on())
                    && s.zbd.is_none(),
            },
            origin: start,
            begun: false,
            finished: false,
            cancelled: false,
            flow_retry: false,
        })
    }

    /// It has started, has nothing in flight and will issue nothing more.
    #[inline]
    fn done(&self) -> bool {
        self.begun && !self.finished && self.lp.done()
    }
}

/// Job `j` has finished at `t` (with jobs `exitall` stops in turn): its end fsync (fio's
/// `end_fsync` / `fsync_on_close`: each of its files, after its last I/O, counted in its
/// runtime), the start of the jobs waiting for it (`wait_for`), and fio's `exitall`: the
/// jobs its `exit_what` names are stopped (what they have in flight completes; one not
/// started yet never runs, unless `exit_what=stonewall`, which stops only running jobs).
/// Returns true when `exit_what=all` ends the rest of the run.
#[allow(clippy::too_many_arguments)]
fn finish(
    sys: &mut SimSystem,
    specs: &[JobSpec],
    live: &mut [Live],
    events: &mut EventQueue<Event>,
    j: usize,
    t: Ns,
    not_before: Ns,
    group_start: Ns,
    flows: &mut [Flow],
) -> Result<bool, SysError> {
    let mut work = vec![(j, t)];
    let mut stop_run = false;
    while let Some((j, t)) = work.pop() {
        let s = &specs[j];
        let l = &mut live[j];
        if l.finished {
            continue;
        }
        l.finished = true;
        if let (Some(f), Some((_, w, _))) = (l.side.flow, s.settings.flow()) {
            // fio's flow_exit_job: its I/Os and weight leave the flow.
            flows[f].leave(l.side.flow_count, w);
        }
        let mut end = t;
        if s.settings.end_fsync && s.settings.rw.has_writes() {
            let mut t = l.lp.core.last_done().max(not_before);
            let mut synced: Vec<FileId> = Vec::with_capacity(s.files.len().max(1));
            for i in 0..s.files.len().max(1) {
                let file = s.region(i).0;
                if !synced.contains(&file) {
                    t = sys.fsync(t, file)?;
                    synced.push(file);
                }
            }
            l.lp.core.ended_at(t);
            end = end.max(t);
        }
        for (k, sk) in specs.iter().enumerate() {
            let lk = &live[k];
            if lk.begun || lk.cancelled || !sk.waits_for.contains(&j) {
                continue;
            }
            if sk.waits_for.iter().all(|&w| live[w].finished) {
                let at = end.max(group_start + sk.settings.start_delay_ns);
                events.push(at, (k, Kind::Start, 0, at));
            }
        }
        let Some(what) = s.settings.exitall else { continue };
        stop_run |= what == ExitWhat::All;
        for (k, lk) in live.iter_mut().enumerate() {
            if k == j || lk.finished || lk.cancelled {
                continue;
            }
            if !lk.begun {
                if what != ExitWhat::Stonewall {
                    lk.cancelled = true;
                    lk.lp.core.stop();
                }
                continue;
            }
            lk.lp.core.stop();
            // A job waiting for its rate's (or flow sleep's) wake-up finishes when it comes.
            if lk.lp.in_flight() == 0 && !lk.lp.waking() {
                work.push((k, end));
            }
        }
    }
    Ok(stop_run)
}

/// The simulated system as a job's [`Target`]: each request is done by the system when it is
/// sent, and its completion is queued as an event at the time it is done.
struct SimTarget<'a> {
    sys: &'a mut SimSystem,
    s: &'a JobSpec,
    j: usize,
    side: &'a mut SimSide,
    events: &'a mut EventQueue<Event>,
    flows: &'a mut [Flow],
}

impl Target for SimTarget<'_> {
    type Error = SysError;

    #[inline(always)]
    fn flow_go(&mut self) -> bool {
        match (self.side.flow, self.s.settings.flow()) {
            // fio's flow_threshold_exceeded, before each I/O.
            (Some(f), Some((_, w, _))) => self.flows[f].go(&mut self.side.flow_count, w),
            _ => true,
        }
    }

    #[inline(always)]
    fn may_read_back(&self) -> bool {
        self.s.verify.is_some()
    }

    #[inline(always)]
    fn read_back(&mut self, _core: &mut JobCore, stopped: bool, now: u64) -> Result<bool, SysError> {
        // A verify backlog's read-back goes before the workload's next I/O (the simulated
        // verification reads the rest back after the run).
        let Some(v) = self.s.verify.as_ref().filter(|_| !stopped) else { return Ok(false) };
        let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
        let Some((off, len)) = v.next_backlog() else { return Ok(false) };
        let (done, _) = v.read_back(self.sys, now + self.s.layer.submit_ns, off, len)?;
        self.events.push(done + self.s.layer.complete_ns, (self.j, Kind::Dir(0, 0), len, now));
        Ok(true)
    }

    #[inline(always)]
    fn draw(&mut self, core: &mut JobCore, dir: u8) -> Option<(usize, u64, u64)> {
        if !self.side.lookahead {
            return core.draw(dir);
        }
        let a = &mut self.side.ahead;
        let got = a[0];
        let next = core.gen.next(dir).map_or((0, 0), |(_, off, len)| (off, len));
        *a = [a[1], a[2], next];
        self.sys.prefetch(self.s.settings.offset + a[2].0);
        Some((0, got.0, got.1))
    }

    fn flush(&mut self, _core: &mut JobCore, file: usize, now: u64) -> Result<(), SysError> {
        let done = self.sys.fsync(now + self.s.layer.submit_ns, self.s.region(file).0)?;
        self.events.push(done + self.s.layer.complete_ns, (self.j, Kind::Sync, 0, now));
        Ok(())
    }

    #[inline(always)]
    fn io(&mut self, core: &mut JobCore, set: &JobSettings, io: Io, now: u64) -> Result<Sent, SysError> {
        let Io { dir, file: fi, off, len } = io;
        let (s, sys) = (self.s, &mut *self.sys);
        let (file, base) = s.region(fi);
        if self.side.bare {
            core.issued(set, dir, len, fi);
            let c =
                sys.io(now, file, op(dir), base + off, len).map_err(|e| zoned_hint(sys, s, dir, base + off, len, e))?;
            self.events.push(c.done, (self.j, Kind::Dir(dir, 0), len, now));
            return Ok(Sent::Io);
        }
        let t_in = now + s.layer.submit_ns;
        let (mut off, mut len) = (off, len);
        // fio's zonemode=zbd: the I/O goes where the zones let it (zone commands first).
        let mut after = 0;
        if let (Some(spec), Some(zj)) = (&s.zbd, &mut self.side.zbd) {
            let mut dev = spec.dev.lock().unwrap_or_else(|e| e.into_inner());
            let at = if set.rw.is_random() {
                base + off
            } else {
                let (at, wrapped) = dev.seq_offset(zj, dir, len);
                let loops = set.job.as_ref().map_or(1, |j| j.loops);
                if wrapped
                    && flashlab_workload::zbd::pass_ends_job(zj, dir, set.io_limit.is_some(), set.time_based, loops)
                {
                    return Ok(Sent::End);
                }
                at
            };
            let mut failed = None;
            let adjusted = dev.adjust(zj, dir, at, len, &mut |c| match sys.zone_command(t_in, c) {
                Ok(done) => {
                    after = after.max(done.done);
                    Ok(())
                }
                Err(e) => {
                    let m = format!("zone command {c:?} failed: {e}");
                    failed = Some(e);
                    Err(m)
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            match adjusted.map_err(|m| SysError::Job(format!("job '{}': {m}", set.name)))? {
                flashlab_workload::zbd::Adjusted::Eof => return Ok(Sent::End),
                flashlab_workload::zbd::Adjusted::ResetOnly(_) => {
                    core.issued(set, dir, len, fi);
                    self.events.push(after.max(t_in) + s.layer.complete_ns, (self.j, Kind::Dir(dir, 0), len, now));
                    return Ok(Sent::Io);
                }
                flashlab_workload::zbd::Adjusted::Io { off: o, len: n } => {
                    dev.queued(zj, dir, o, n);
                    off = o - base;
                    len = n;
                }
            }
        }
        core.issued(set, dir, len, fi);
        // The simulated host interfaces serve commands in arrival order whatever their
        // priority: the slot only sorts the completion into its priority's statistics.
        let prio = core.prio_slot(dir, len);
        // A verifying job's writes carry a tag the device keeps with the data.
        let verify = s.verify.as_ref().filter(|_| dir == 1);
        let mut hints = match verify {
            Some(v) => IoHints {
                write_tag: v.lock().unwrap_or_else(|e| e.into_inner()).tag_write(set.offset + off, len),
                placement: 0,
            },
            None => IoHints::NONE,
        };
        // fio's data placement: a write's ID, chosen at the offset it goes to.
        if let (Some(sel), 1) = (&mut self.side.placement, dir) {
            hints.placement = sel.next(base + off);
        }
        let c = sys.io_with(t_in, file, op(dir), base + off, len, hints);
        if let Some(v) = verify {
            v.lock().unwrap_or_else(|e| e.into_inner()).written(set.offset + off, len);
        }
        let mut c = c.map_err(|e| zoned_hint(sys, s, dir, base + off, len, e))?;
        if let Some(v) = s.verify.as_ref().filter(|_| dir == 0) {
            // A job that only reads checks each block it reads (fio's read-only verify);
            // a mismatch ends it unless it continues on verify errors.
            let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
            if v.is_read_only() {
                v.check_read(sys, base + off, len);
                if v.aborted() {
                    core.stop();
                }
            }
        }
        c.done = c.done.max(after);
        if set.sync_writes && dir == 1 {
            // O_SYNC (`generic_write_sync`): the write returns after an fsync of its file.
            c.done = sys.fsync(c.done, file)?;
        }
        self.events.push(c.done + s.layer.complete_ns, (self.j, Kind::Dir(dir, prio), len, now));
        Ok(Sent::Io)
    }

    /// The simulated host submits each request by itself, with this many in flight (fio's
    /// `iodepth_level` and `iodepth_submit`).
    #[inline(always)]
    fn sent(&mut self, core: &mut JobCore, in_flight: u32) {
        core.result.depth.mark_depth(u64::from(in_flight), 1);
        core.result.depth.mark_submit(1);
    }
}

/// A zoned device's refusal of a job's I/O, as fio reports an I/O error (`io_u error on file
/// ...: STRERROR: write offset=..., buflen=...`) with the errno Linux returns for it
/// ([`zone_errno`]), the zone's reason, and, when the job is not in fio's zoned mode, fio's
/// advice (`ioengines.c`: "consider --zonemode=zbd"). The run ends there (as at any fatal I/O
/// error of flashlab's; fio ends only the job).
fn zoned_hint(sys: &SimSystem, s: &JobSpec, dir: u8, off: u64, len: u64, e: SysError) -> SysError {
    match e {
        SysError::Device(flashsim::RequestError::Zone(z)) if sys.device().is_zoned() => {
            let errno = zone_errno(&z);
            let advice =
                if s.zbd.is_none() { "; the device is zoned (host-managed): consider zonemode=zbd" } else { "" };
            SysError::Job(format!(
                "job '{}': io_u error on file sim:{}: {} ({}, errno {errno}): {} offset={off}, buflen={len} ({z}){advice}",
                s.settings.name,
                sys.device().profile().name,
                strerror(errno),
                flashlab_jobs::ioerror::name(errno).unwrap_or("?"),
                ["read", "write", "trim"][usize::from(dir.min(2))],
            ))
        }
        e => e,
    }
}

/// The errno Linux's block layer returns for a zoned device's refusal (`blk_status_to_errno`
/// of what zoned `null_blk` and `sd_zbc` complete the request with): too many open zones is
/// `BLK_STS_ZONE_OPEN_RESOURCE` (ETOOMANYREFS), too many active zones
/// `BLK_STS_ZONE_ACTIVE_RESOURCE` (EOVERFLOW); every other refusal of a write (off the write
/// pointer, past the capacity, a full, read-only or offline zone, unaligned) is an I/O error
/// (EIO).
pub fn zone_errno(z: &flashsim::ZoneError) -> i32 {
    match z {
        flashsim::ZoneError::TooManyOpenZones { .. } => 109,
        flashsim::ZoneError::TooManyActiveZones { .. } => 75,
        flashsim::ZoneError::InvalidTransition { .. } | flashsim::ZoneError::NoSuchZone { .. } => 22,
        _ => flashlab_jobs::ioerror::EIO,
    }
}

/// What fio prints for the errnos a zoned device's refusal gives (glibc's `strerror`).
fn strerror(errno: i32) -> &'static str {
    match errno {
        5 => "Input/output error",
        22 => "Invalid argument",
        75 => "Value too large for defined data type",
        109 => "Too many references: cannot splice",
        _ => "Unknown error",
    }
}

/// One completed I/O, as an observer of [`run_jobs_observed`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct Completed {
    /// Index of the job in the specs passed in.
    pub job: usize,
    /// `None` for a flush (fsync).
    pub dir: Option<Ddir>,
    /// Bytes transferred.
    pub(crate) bytes: u64,
    /// When it was issued (virtual time).
    pub submitted: Ns,
    /// When it completed (virtual time).
    pub done: Ns,
}

/// Run jobs side by side from the system's current time; the clock ends at the last completion.
/// `progress` gets the fraction done now and then.
pub fn run_jobs(sys: &mut SimSystem, specs: &[JobSpec], progress: impl FnMut(f64)) -> Result<Vec<JobResult>, SysError> {
    run_jobs_observed(sys, specs, progress, |_, _| {})
}

/// [`run_jobs`], calling `observe` for every completed I/O in completion order (ramp included),
/// with the system as it is at that moment (for device counters).
pub fn run_jobs_observed(
    sys: &mut SimSystem,
    specs: &[JobSpec],
    progress: impl FnMut(f64),
    mut observe: impl FnMut(Completed, &SimSystem),
) -> Result<Vec<JobResult>, SysError> {
    run_jobs_hooked(sys, specs, progress, |c, sys| {
        observe(c, sys);
        Ok(None)
    })
}

/// [`run_jobs_observed`] with a hook that may act on the system between requests (an fstrim,
/// an idle period): it gets the completed I/O and the system, and returns `Some(t)` to hold
/// every job's next request until virtual time `t` (the work it did meanwhile), or `None`.
pub fn run_jobs_hooked(
    sys: &mut SimSystem,
    specs: &[JobSpec],
    progress: impl FnMut(f64),
    hook: impl FnMut(Completed, &mut SimSystem) -> Result<Option<Ns>, SysError>,
) -> Result<Vec<JobResult>, SysError> {
    Ok(run_group_hooked(sys, specs, progress, hook)?.results)
}

/// What a group of jobs run side by side gave.
#[derive(Debug, Clone)]
pub struct GroupRun {
    /// Each job's result, in the order of the specs.
    pub results: Vec<JobResult>,
    /// fio's `exitall` with `exit_what=all` fired: the run's later groups do not start.
    pub stop_run: bool,
}

/// [`run_jobs`] for one group of a job file: also says whether `exitall` ended the run.
pub fn run_group(sys: &mut SimSystem, specs: &[JobSpec], progress: impl FnMut(f64)) -> Result<GroupRun, SysError> {
    run_group_hooked(sys, specs, progress, |_, _| Ok(None))
}

/// [`run_jobs_hooked`], with what [`GroupRun`] adds.
pub fn run_group_hooked(
    sys: &mut SimSystem,
    specs: &[JobSpec],
    mut progress: impl FnMut(f64),
    mut hook: impl FnMut(Completed, &mut SimSystem) -> Result<Option<Ns>, SysError>,
) -> Result<GroupRun, SysError> {
    let start = sys.now();
    // No request is issued before this (moved by the hook).
    let mut not_before: Ns = start;
    let mut live: Vec<Live> = Vec::with_capacity(specs.len());
    for s in specs {
        live.push(Live::new(s, start + s.settings.start_delay_ns)?);
    }
    // fio's flows: one per flow_id among the group's jobs, every job's weight joined.
    let mut flow_ids: Vec<u32> = Vec::new();
    let mut flows: Vec<Flow> = Vec::new();
    for (s, l) in specs.iter().zip(live.iter_mut()) {
        if let Some((id, w, _)) = s.settings.flow() {
            let f = match flow_ids.iter().position(|&i| i == id) {
                Some(f) => f,
                None => {
                    flow_ids.push(id);
                    flows.push(Flow::default());
                    flows.len() - 1
                }
            };
            flows[f].join(w);
            l.side.flow = Some(f);
        }
    }
    let has_flow = !flows.is_empty();
    let mut stop_run = false;
    // In flight at once: each job's depth of I/Os (a rate wake-up takes one of them) and a
    // think time's end.
    let bound = specs.iter().map(|s| s.settings.iodepth.max(1) as usize + 1).sum();
    let mut events: EventQueue<Event> = EventQueue::new(bound, (0, Kind::Sync, 0, 0));
    let mut last_progress = 0.0;
    // Events since the progress fraction was last worked out: it is reported in steps of 1 %,
    // so once every 64 events is often enough, and saves a pass over the jobs per event.
    let mut since_progress = 0u32;

    // Job `j`'s requests at `t` (the shared loop's), and what holds it then on the virtual
    // clock: a think time's end or a rate's or flow sleep's wake-up is queued as an event; a job
    // flow control holds back without a sleep retries when another job of its flow moves.
    #[inline(always)]
    fn top_up(
        sys: &mut SimSystem,
        j: usize,
        t: Ns,
        l: &mut Live,
        s: &JobSpec,
        events: &mut EventQueue<Event>,
        flows: &mut [Flow],
    ) -> Result<(), SysError> {
        let set = &s.settings;
        let hold = l.lp.fill(set, &mut SimTarget { sys, s, j, side: &mut l.side, events: &mut *events, flows }, t)?;
        match hold {
            Hold::Rate(due) => events.push(due, (j, Kind::Wake, 0, t)),
            // fio's handle_thinktime: quiesce (wait for every I/O in flight), then think.
            Hold::Think if l.lp.in_flight() == 0 && !l.lp.waking() => {
                events.push(t.saturating_add(set.thinktime_ns), (j, Kind::Think, 0, t))
            }
            _ => {}
        }
        if l.side.flow.is_none() {
            return Ok(());
        }
        match l.lp.flow_held(set) {
            FlowHold::Sleep(ns) => events.push(t.saturating_add(ns), (j, Kind::Wake, 0, t)),
            FlowHold::Retry => l.flow_retry = true,
            FlowHold::No => {}
        }
        Ok(())
    }

    for (j, s) in specs.iter().enumerate() {
        if !s.waits_for.is_empty() {
            // fio's wait_for: started when the jobs it waits for have finished.
            continue;
        }
        if s.settings.start_delay_ns > 0 {
            let at = start + s.settings.start_delay_ns;
            events.push(at, (j, Kind::Start, 0, at));
            continue;
        }
        live[j].begun = true;
        top_up(sys, j, start, &mut live[j], s, &mut events, &mut flows)?;
    }
    for j in 0..specs.len() {
        if live[j].done() {
            stop_run |= finish(sys, specs, &mut live, &mut events, j, start, not_before, start, &mut flows)?;
        }
    }

    // The time of the event handled last: jobs flow control held back retry then.
    let mut flow_t = start;
    loop {
        loop {
            if has_flow {
                // fio's held-back job spins on its flow check: it goes as soon as another job
                // of its flow has moved (issued, or ended and left the flow).
                for k in 0..specs.len() {
                    let lk = &mut live[k];
                    if !lk.flow_retry || lk.finished || !lk.begun {
                        continue;
                    }
                    lk.flow_retry = false;
                    top_up(sys, k, flow_t, lk, &specs[k], &mut events, &mut flows)?;
                    if lk.done() {
                        stop_run |=
                            finish(sys, specs, &mut live, &mut events, k, flow_t, not_before, start, &mut flows)?;
                    }
                }
            }
            let Some((t, (j, kind, bytes, submitted))) = events.take() else { break };
            flow_t = t.max(not_before);
            let s = &specs[j];
            let set = &s.settings;
            let l = &mut live[j];
            let at = match kind {
                Kind::Start => {
                    if l.begun || l.cancelled {
                        continue;
                    }
                    if l.origin != t {
                        // A job that waited for others: its run (runtime, ramp, pacing) starts now.
                        let flow = l.side.flow;
                        *l = Live::new(s, t)?;
                        l.side.flow = flow;
                    }
                    l.begun = true;
                    t.max(not_before)
                }
                // The end of a think time of a job exitall has ended meanwhile (a finished job
                // has nothing else in flight).
                _ if l.finished => continue,
                // Thought: fill the queue again.
                Kind::Think => {
                    l.lp.thought();
                    t.max(not_before)
                }
                // The rate (or the flow sleep) lets the waiting I/O go: fill the queue again.
                Kind::Wake => {
                    l.lp.woke();
                    t.max(not_before)
                }
                Kind::Dir(..) | Kind::Sync => {
                    let (done, dir, prio) = match kind {
                        Kind::Dir(d, p) => (Done::Dir(d), Some(ddir(d)), p),
                        _ => (Done::Sync, None, 0),
                    };
                    let lat = t - submitted;
                    l.lp.complete(set, done, bytes, bytes, Timing { at: t, clat: lat, lat, slat: None, prio });
                    // Each completion is reaped by itself, at its instant (fio's `iodepth_complete`).
                    l.lp.core.result.depth.mark_complete(1);
                    if let Some(h) = hook(Completed { job: j, dir, bytes, submitted, done: t }, sys)? {
                        not_before = not_before.max(h);
                    }
                    let at = t.max(not_before);
                    if l.lp.core.probing() && l.lp.in_flight() == 0 {
                        l.lp.core.drained(set, at);
                    }
                    at
                }
            };
            top_up(sys, j, at, l, s, &mut events, &mut flows)?;
            if l.done() {
                stop_run |= finish(sys, specs, &mut live, &mut events, j, at, not_before, start, &mut flows)?;
            }
            if !matches!(kind, Kind::Dir(..) | Kind::Sync) {
                continue;
            }
            since_progress += 1;
            if since_progress < 64 {
                continue;
            }
            since_progress = 0;
            let frac = specs.iter().zip(&live).map(|(s, l)| l.lp.core.progress(&s.settings, t)).fold(1.0f64, f64::min);
            if frac - last_progress >= 0.01 {
                last_progress = frac;
                progress(frac);
            }
        }

        // Every event is done: a job that has not been seen to finish (nothing in flight, so it
        // is done) finishes at its last completion, which may start jobs waiting for it.
        let mut started_more = false;
        for j in 0..specs.len() {
            if live[j].begun && !live[j].finished {
                let t = live[j].lp.core.last_done();
                stop_run |= finish(sys, specs, &mut live, &mut events, j, t, not_before, start, &mut flows)?;
                started_more = true;
            }
        }
        if !started_more {
            break;
        }
    }
    let mut end = start;
    let mut results = Vec::with_capacity(specs.len());
    for (s, l) in specs.iter().zip(live) {
        if l.begun {
            end = end.max(l.lp.core.last_done());
        }
        let zone_resets = l.side.zbd.as_ref().filter(|z| z.counts_resets).map(|z| z.resets);
        let mut r = l.lp.core.finish(s.files.iter().map(|f| f.name.as_str()));
        r.zone_resets = zone_resets;
        results.push(r);
    }
    sys.advance_to(end);
    progress(1.0);
    Ok(GroupRun { results, stop_run })
}
