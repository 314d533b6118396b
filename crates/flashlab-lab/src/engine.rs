//! The closed-loop engine: each job keeps `iodepth` requests in flight on a simulated system,
//! and the virtual clock jumps from one completion to the next (no sleeping, no wall clock).
//!
//! Jobs run side by side as fio runs the jobs of one group: all start together; each issues
//! its next request when one of its own completes, until its byte or I/O budget or its
//! runtime is used up. Latencies go into fio-compatible histograms, bandwidth into intervals.

use crate::event_queue::EventQueue;
use crate::fileset::FileSet;
use crate::rng::Rng;
use crate::system::{IoHints, SimSystem, SysError};
use flashlab_jobs::latency_target::{Action, DepthProbe};
use flashlab_jobs::pacing::Pacer;
use flashlab_jobs::{IoDir, Job, Rw};
use flashlab_measure::{Ddir, Interval, JobResult};
use flashlab_simfs::FileId;
use flashsim::{Ns, Op};

/// One job, resolved against a target: which file, which span of it, how much.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// The job's name (fio's section name).
    pub(crate) name: String,
    /// The stonewalled group the job runs in.
    pub(crate) groupid: u32,
    /// Read, write, trim, or a mix; sequential or random.
    pub(crate) rw: Rw,
    /// Percentage of reads in a mixed workload.
    pub(crate) rwmixread: u32,
    /// Block size of reads.
    pub(crate) bs_read: u64,
    /// Block size of writes.
    pub(crate) bs_write: u64,
    /// Block size of trims.
    pub(crate) bs_trim: u64,
    /// Where the job's I/O goes.
    pub(crate) file: FileId,
    /// Span within the file: [offset, offset + span).
    pub(crate) offset: u64,
    /// Bytes of the file the job covers.
    pub(crate) span: u64,
    /// Requests kept in flight.
    pub iodepth: u32,
    /// Bytes to transfer (fio's `io_size`; defaults to the span).
    pub io_limit: Option<u64>,
    /// I/Os to issue at most (fio's `number_ios`).
    pub number_ios: Option<u64>,
    /// Run time limit, ns (fio's `runtime`).
    pub(crate) runtime_ns: Option<u64>,
    /// Keep going over the span until `runtime_ns` is up (fio's `time_based`).
    pub(crate) time_based: bool,
    /// Time at the start not counted in the results, ns (fio's `ramp_time`).
    pub(crate) ramp_ns: u64,
    /// Flush after every N writes (fsync / fdatasync), 0 = never.
    pub(crate) fsync_every: u32,
    /// The file is open `O_SYNC`: a write completes once fsynced (its latency includes it).
    pub(crate) sync_writes: bool,
    /// Random offsets visit each block once per pass (fio's default); false = `norandommap`.
    pub(crate) random_map: bool,
    /// Seed of the job's offsets.
    pub seed: u64,
    /// Bandwidth sampling interval (fio's default `log_avg_msec` is 500 ms).
    pub(crate) interval_ns: u64,
    /// fio's `thinktime`: the job issues `thinktime_blocks` I/Os, lets them complete, then
    /// stalls this long before it issues again (0 = never). On the
    /// simulated clock `thinktime_spin` is the same as sleeping, so it is not separate here.
    pub(crate) thinktime_ns: u64,
    /// I/Os between two think times (fio's `thinktime_blocks`).
    pub(crate) thinktime_blocks: u32,
    /// A layer between the job and the filesystem that each request crosses on the way in and
    /// on the way out (a FUSE daemon's round trip; see [`crate::stack`]); zero by default.
    pub(crate) layer: crate::stack::LayerCost,
    /// The job-file job this spec runs, for fio's options beyond the fields above (mixed
    /// block sizes, `random_distribution`, `percentage_random`, `rw=...:N`, `rate*`,
    /// `loops`). `None`: a job with only the fields above.
    pub(crate) job: Option<std::sync::Arc<Job>>,
    /// fio's `verify` on the simulated device ([`crate::sim_verify`]): writes carry tags, a
    /// backlog's read-backs are issued as this job's reads. `None`: no verification.
    pub verify: Option<std::sync::Arc<std::sync::Mutex<crate::sim_verify::SimVerifier>>>,
    /// A job over several files (fio's `nrfiles`, `filename=a:b`): every file with its span,
    /// chosen per I/O as [`crate::fileset`] does. Empty: the one file `file` at
    /// [`JobSpec::offset`] over [`JobSpec::span`].
    pub(crate) files: Vec<FileRegion>,
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
        let span = size;
        JobSpec {
            name: name.to_string(),
            groupid: 0,
            rw,
            rwmixread: 50,
            bs_read: bs,
            bs_write: bs,
            bs_trim: bs,
            file,
            offset: 0,
            span,
            iodepth: 1,
            io_limit: None,
            number_ios: None,
            runtime_ns: None,
            time_based: false,
            ramp_ns: 0,
            fsync_every: 0,
            sync_writes: false,
            random_map: true,
            seed: 1,
            interval_ns: 500_000_000,
            thinktime_ns: 0,
            thinktime_blocks: 1,
            layer: crate::stack::LayerCost::ZERO,
            job: None,
            verify: None,
            files: Vec::new(),
        }
    }

    /// The spans of the job's files (one: [`JobSpec::span`]).
    fn spans(&self) -> Vec<u64> {
        if self.files.is_empty() {
            vec![self.span]
        } else {
            self.files.iter().map(|f| f.span).collect()
        }
    }

    /// File `i`'s id and where its span starts.
    #[inline]
    fn region(&self, i: usize) -> (FileId, u64) {
        match self.files.get(i) {
            Some(f) => (f.file, f.offset),
            None => (self.file, self.offset),
        }
    }

    /// The job model this spec runs: its job-file job, or one made of the fields above.
    pub fn model(&self) -> std::borrow::Cow<'_, Job> {
        match &self.job {
            Some(j) => {
                let mut j = (**j).clone();
                j.rw = self.rw;
                j.norandommap = !self.random_map;
                std::borrow::Cow::Owned(j)
            }
            None => {
                let mut j = Job::new(self.name.clone());
                j.rw = self.rw;
                j.rwmixread = self.rwmixread;
                j.bs_read = self.bs_read;
                j.bs_write = self.bs_write;
                j.bs_trim = self.bs_trim;
                j.norandommap = !self.random_map;
                std::borrow::Cow::Owned(j)
            }
        }
    }

    /// fio's think time is due: `thinktime_blocks` I/Os were issued since the last one, so
    /// the job issues nothing more until they completed and it has thought.
    #[inline]
    fn must_think(&self, l: &Live) -> bool {
        self.thinktime_ns > 0 && l.since_think >= self.thinktime_blocks.max(1)
    }

    /// The one direction of every request of a job that uses none of the options acting
    /// between its requests: no verification, fsync, `O_SYNC`, layer, think time, and one kind
    /// of I/O (not a mix, not trimwrite). `None` for any other job.
    fn plain_dir(&self) -> Option<u8> {
        let bare = self.verify.is_none()
            && self.fsync_every == 0
            && !self.sync_writes
            && self.layer == crate::stack::LayerCost::ZERO
            && self.thinktime_ns == 0;
        match self.rw {
            _ if !bare => None,
            Rw::Read | Rw::RandRead => Some(0),
            Rw::Write | Rw::RandWrite => Some(1),
            Rw::Trim | Rw::RandTrim => Some(2),
            Rw::ReadWrite | Rw::RandRw | Rw::TrimWrite => None,
        }
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

/// What a job issues next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Dir(u8),
    Sync,
    /// The end of a think time (not an I/O).
    Think,
    /// A rate-limited job's next I/O is due (not an I/O).
    Wake,
}

/// An I/O in flight, queued at the time it is done: (job, kind, bytes, submitted).
type Event = (usize, Kind, u64, Ns);

fn iodir(i: u8) -> IoDir {
    [IoDir::Read, IoDir::Write, IoDir::Trim][i as usize]
}

fn op(i: u8) -> Op {
    [Op::Read, Op::Write, Op::Trim][i as usize]
}

fn ddir(i: u8) -> Ddir {
    [Ddir::Read, Ddir::Write, Ddir::Trim][i as usize]
}

struct Live {
    rng: Rng,
    gen: FileSet,
    /// The file of the last write (the one an `fsync` flushes).
    last_file: FileId,
    pacer: Option<Pacer>,
    /// A [`Kind::Wake`] is pending.
    waking: bool,
    /// The direction drawn for an I/O that waits for its rate.
    pending_dir: Option<u8>,
    issued_bytes: u64,
    issued_ios: u64,
    /// [`JobSpec::budget`], worked out once (it is asked before every request).
    budget: Option<u64>,
    /// trimwrite: the next request is the trim of a block (then its write).
    trim_next: bool,
    writes_since_sync: u32,
    in_flight: u32,
    stopped: bool,
    result: JobResult,
    measure_from: Ns,
    win_start: Ns,
    win_bytes: [u64; 3],
    win_ios: [u64; 3],
    win_lat_sum: [u64; 3],
    win_lat_max: [u64; 3],
    last_done: Ns,
    /// I/Os issued since the last think time.
    since_think: u32,
    /// A random read or write job on the raw device draws its offsets three ahead (`ahead`) and
    /// tells the device, which fetches their mapping entries meanwhile ([`SimSystem::prefetch`]).
    /// The offsets' generator is the job's own, so the sequence is the same.
    lookahead: Option<u8>,
    ahead: [(u64, u64); 3],
    /// fio's steady-state window (`ss_dur`), sampled on the virtual clock, with the job's
    /// completed bytes and I/Os it is fed.
    ss: Option<flashlab_jobs::steadystate::SteadyTracker>,
    done_bytes: u64,
    done_ios: u64,
    /// fio's `latency_target` probe of the queue depth ([`flashlab_jobs::latency_target`]).
    probe: Option<DepthProbe>,
    /// Issue nothing until the I/O in flight has completed (the probe lowered the depth).
    quiesce: bool,
    /// Once quiesced, restart the statistics (the probe found its depth).
    reset_pending: bool,
    /// The direction of every request of a job with none of the options that act between its
    /// requests on (see [`JobSpec::plain_dir`]; no rate, steady-state window or latency
    /// probe either): the closed loop issues its next request without looking at them.
    plain: Option<u8>,
}

impl Live {
    /// I/Os the job keeps in flight now: the probe's depth, or `iodepth`.
    fn depth(&self, s: &JobSpec) -> u32 {
        self.probe.as_ref().map_or(s.iodepth.max(1), |p| p.depth())
    }

    /// The job has stopped, or stops now at `t`: its runtime (from `start`), byte budget or
    /// I/O count is used up.
    #[inline(always)]
    fn stops(&mut self, s: &JobSpec, t: Ns, start: Ns) -> bool {
        if self.stopped {
            return true;
        }
        let over_time = s.runtime_ns.is_some_and(|r| t >= start + s.ramp_ns + r);
        let over_bytes = self.budget.is_some_and(|b| self.issued_bytes >= b);
        let over_ios = !s.time_based && s.number_ios.is_some_and(|n| self.issued_ios >= n);
        if over_time || over_bytes || over_ios {
            self.stopped = true;
        }
        self.stopped
    }

    /// The file, offset and length of the job's next I/O in direction `dir`; `None` when every
    /// file is done (the job stops there, as fio's does). A job that draws ahead tells the
    /// device about the offset three requests on.
    #[inline(always)]
    fn draw(&mut self, s: &JobSpec, sys: &mut SimSystem, dir: u8) -> Option<(usize, u64, u64)> {
        match self.lookahead {
            Some(_) => {
                let got = self.ahead[0];
                let next = self.gen.next(dir).map_or((0, 0), |(_, off, len)| (off, len));
                self.ahead = [self.ahead[1], self.ahead[2], next];
                sys.prefetch(s.offset + self.ahead[2].0);
                Some((0, got.0, got.1))
            }
            None => {
                let next = self.gen.next(dir);
                self.stopped |= next.is_none();
                next
            }
        }
    }

    /// Count an I/O of `len` bytes in direction `dir` to `file`, issued.
    #[inline(always)]
    fn issued(&mut self, s: &JobSpec, dir: u8, len: u64, file: FileId) {
        // As fio (HOWTO, rw=trimwrite): io_size=64K trims 64K and writes the same 64K, so a
        // block's trim and write count once against io_size and number_ios.
        if !(s.rw == Rw::TrimWrite && dir == 2) {
            self.issued_bytes += len;
            self.issued_ios += 1;
        }
        if dir == 1 {
            self.writes_since_sync += 1;
            self.last_file = file;
        }
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
    mut progress: impl FnMut(f64),
    mut hook: impl FnMut(Completed, &mut SimSystem) -> Result<Option<Ns>, SysError>,
) -> Result<Vec<JobResult>, SysError> {
    let start = sys.now();
    // No request is issued before this (moved by the hook).
    let mut not_before: Ns = start;
    let mut live: Vec<Live> = Vec::with_capacity(specs.len());
    for s in specs {
        live.push({
            let mut rng = Rng::new(s.seed);
            let model = s.model();
            let mut gen = FileSet::new(&model, &s.spans(), &mut rng)
                .map_err(|e| SysError::Job(format!("job '{}': {e}", s.name)))?;
            let pacer = Pacer::new(&model, start);
            let ss = model
                .steadystate
                .enabled()
                .then(|| flashlab_jobs::steadystate::SteadyTracker::new(model.steadystate, start));
            let lookahead = match s.rw {
                _ if s.file != FileId::RAW || !s.files.is_empty() => None,
                Rw::RandRead => Some(0u8),
                Rw::RandWrite => Some(1u8),
                _ => None,
            };
            let mut ahead = [(0, 0); 3];
            if let Some(d) = lookahead {
                for a in &mut ahead {
                    *a = gen.next(d).map_or((0, 0), |(_, off, len)| (off, len));
                }
            }
            let mut result = JobResult::new(s.name.clone(), s.groupid);
            result.iodepth = Some(s.iodepth);
            let probe = model
                .latency_target
                .enabled()
                .then(|| DepthProbe::new(model.latency_target, s.iodepth, start + s.ramp_ns));
            let plain = if pacer.is_none() && ss.is_none() && probe.is_none() { s.plain_dir() } else { None };
            Live {
                rng,
                gen,
                last_file: s.file,
                pacer,
                waking: false,
                pending_dir: None,
                issued_bytes: 0,
                issued_ios: 0,
                budget: s.budget(),
                trim_next: true,
                writes_since_sync: 0,
                in_flight: 0,
                stopped: false,
                result,
                measure_from: start + s.ramp_ns,
                win_start: start + s.ramp_ns,
                win_bytes: [0; 3],
                win_ios: [0; 3],
                win_lat_sum: [0; 3],
                win_lat_max: [0; 3],
                last_done: start,
                since_think: 0,
                lookahead,
                ahead,
                ss,
                done_bytes: 0,
                done_ios: 0,
                probe,
                quiesce: false,
                reset_pending: false,
                plain,
            }
        });
    }
    // In flight at once: each job's depth of I/Os (a rate wake-up takes one of them) and a
    // think time's end.
    let bound = specs.iter().map(|s| s.iodepth.max(1) as usize + 1).sum();
    let mut events: EventQueue<Event> = EventQueue::new(bound, (0, Kind::Sync, 0, 0));
    let mut last_progress = 0.0;
    // Events since the progress fraction was last worked out: it is reported in steps of 1 %,
    // so once every 64 events is often enough, and saves a pass over the jobs per event.
    let mut since_progress = 0u32;

    let issue = |sys: &mut SimSystem,
                 j: usize,
                 t: Ns,
                 l: &mut Live,
                 s: &JobSpec|
     -> Result<Option<(Ns, Kind, u64)>, SysError> {
        if l.stops(s, t, start) {
            return Ok(None);
        }
        let _ = j;
        let t_in = t + s.layer.submit_ns;
        if let Some(v) = &s.verify {
            // A verify backlog's read-back goes before the workload's next I/O.
            let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((off, len)) = v.next_backlog() {
                let (done, _) = v.read_back(sys, t_in, off, len)?;
                return Ok(Some((done + s.layer.complete_ns, Kind::Dir(0), len)));
            }
        }
        if s.fsync_every > 0 && l.writes_since_sync >= s.fsync_every {
            l.writes_since_sync = 0;
            let done = sys.fsync(t_in, l.last_file)?;
            return Ok(Some((done + s.layer.complete_ns, Kind::Sync, 0)));
        }
        if l.waking {
            return Ok(None);
        }
        let dir: u8 = if let Some(d) = l.pending_dir.take() {
            d
        } else {
            match s.rw {
                Rw::Read | Rw::RandRead => 0,
                Rw::Write | Rw::RandWrite => 1,
                Rw::Trim | Rw::RandTrim => 2,
                Rw::ReadWrite | Rw::RandRw => u8::from(l.rng.below(100) >= u64::from(s.rwmixread)),
                // fio's trimwrite: trim a block, then write the same block (both sequential).
                Rw::TrimWrite => {
                    let d = if l.trim_next { 2 } else { 1 };
                    l.trim_next = !l.trim_next;
                    d
                }
            }
        };
        if let Some(p) = &l.pacer {
            let due = p.due(iodir(dir), t);
            if due > t {
                l.pending_dir = Some(dir);
                l.waking = true;
                return Ok(Some((due, Kind::Wake, 0)));
            }
        }
        let Some((fi, off, len)) = l.draw(s, sys, dir) else {
            return Ok(None);
        };
        let (file, base) = s.region(fi);
        if let Some(p) = &mut l.pacer {
            p.issued(iodir(dir), len, &mut l.rng);
        }
        let op = op(dir);
        // A verifying job's writes carry a tag the device keeps with the data.
        let verify = s.verify.as_ref().filter(|_| dir == 1);
        let hints = match verify {
            Some(v) => {
                IoHints { write_tag: v.lock().unwrap_or_else(|e| e.into_inner()).tag_write(s.offset + off, len) }
            }
            None => IoHints::NONE,
        };
        let c = sys.io_with(t_in, file, op, base + off, len, hints);
        if let Some(v) = verify {
            v.lock().unwrap_or_else(|e| e.into_inner()).written(s.offset + off, len);
        }
        let mut c = c?;
        if s.sync_writes && dir == 1 {
            // O_SYNC (`generic_write_sync`): the write returns after an fsync of its file.
            c.done = sys.fsync(c.done, file)?;
        }
        l.issued(s, dir, len, file);
        Ok(Some((c.done + s.layer.complete_ns, Kind::Dir(dir), len)))
    };

    // A plain job's next request ([`Live::plain`]): the steps `issue` takes for it, without
    // the checks of the options it does not use.
    let issue_plain =
        |sys: &mut SimSystem, t: Ns, l: &mut Live, s: &JobSpec, dir: u8| -> Result<Option<(Ns, u64)>, SysError> {
            if l.stops(s, t, start) {
                return Ok(None);
            }
            let Some((fi, off, len)) = l.draw(s, sys, dir) else {
                return Ok(None);
            };
            let (file, base) = s.region(fi);
            let c = sys.io(t, file, op(dir), base + off, len)?;
            l.issued(s, dir, len, file);
            Ok(Some((c.done, len)))
        };

    // Issue at `t` until the job's depth is in flight, a think time is due or a rate limit
    // makes it wait (a Wake); a job that must think with nothing in flight schedules it.
    let top_up = |sys: &mut SimSystem,
                  j: usize,
                  t: Ns,
                  l: &mut Live,
                  s: &JobSpec,
                  events: &mut EventQueue<Event>|
     -> Result<(), SysError> {
        while l.in_flight < l.depth(s) && !s.must_think(l) {
            let Some((done, kind, bytes)) = issue(sys, j, t, l, s)? else { break };
            l.since_think += u32::from(kind != Kind::Wake);
            l.in_flight += 1;
            events.push(done, (j, kind, bytes, t));
            if kind == Kind::Wake {
                break;
            }
        }
        if l.in_flight == 0 && s.must_think(l) && !l.stopped {
            events.push(t.saturating_add(s.thinktime_ns), (j, Kind::Think, 0, t));
        }
        Ok(())
    };

    for (j, s) in specs.iter().enumerate() {
        for _ in 0..live[j].depth(s) {
            if s.must_think(&live[j]) {
                break;
            }
            if let Some((done, kind, bytes)) = issue(sys, j, start, &mut live[j], s)? {
                live[j].since_think += u32::from(kind != Kind::Wake);
                live[j].in_flight += 1;
                events.push(done, (j, kind, bytes, start));
            }
        }
    }

    while let Some((t, (j, kind, bytes, submitted))) = events.take() {
        let s = &specs[j];
        let l = &mut live[j];
        if kind == Kind::Think || kind == Kind::Wake {
            if kind == Kind::Think {
                // Thought: fill the queue again.
                l.since_think = 0;
            } else {
                // The rate lets the waiting I/O go: fill the queue again.
                l.waking = false;
                l.in_flight -= 1;
            }
            top_up(sys, j, t.max(not_before), l, s, &mut events)?;
            continue;
        }
        l.in_flight -= 1;
        l.last_done = l.last_done.max(t);
        if let Some(ss) = &mut l.ss {
            // fio samples the counters once a second; steady state ends the job.
            if ss.advance(t, l.done_bytes, l.done_ios) {
                l.stopped = true;
            }
            if let Kind::Dir(_) = kind {
                l.done_bytes += bytes;
                l.done_ios += 1;
            }
        }
        let hold = hook(
            Completed {
                job: j,
                dir: match kind {
                    Kind::Sync | Kind::Think | Kind::Wake => None,
                    Kind::Dir(d) => Some(ddir(d)),
                },
                bytes,
                submitted,
                done: t,
            },
            sys,
        )?;
        if let Some(h) = hold {
            not_before = not_before.max(h);
        }
        if t >= l.measure_from {
            while t >= l.win_start + s.interval_ns {
                close_window(l, s, s.interval_ns);
                // An idle gap (think time, a trace's pause): one empty window for all of it,
                // not one per interval (a simulated year is 63 million 500 ms windows).
                let empty = (t - l.win_start) / s.interval_ns;
                if empty > 1 {
                    close_window(l, s, empty * s.interval_ns);
                }
            }
            let lat = t - submitted;
            if let (Some(p), Kind::Dir(_)) = (&mut l.probe, kind) {
                match p.completed(lat, t) {
                    Action::Go => {}
                    Action::Quiesce => l.quiesce = true,
                    Action::ResetStats => {
                        l.quiesce = true;
                        l.reset_pending = true;
                    }
                    Action::Done => l.stopped = true,
                    Action::Fatal => {
                        // fio: "max latency exceeded", ETIMEDOUT.
                        l.result.error = 110;
                        l.stopped = true;
                    }
                }
            }
            match kind {
                Kind::Sync | Kind::Think | Kind::Wake => l.result.sync.record(lat),
                Kind::Dir(d) => {
                    l.result.dir_mut(ddir(d)).record_io_same(bytes, lat);
                    l.win_bytes[d as usize] += bytes;
                    l.win_ios[d as usize] += 1;
                    l.win_lat_sum[d as usize] += lat;
                    l.win_lat_max[d as usize] = l.win_lat_max[d as usize].max(lat);
                }
            }
        }
        let at = t.max(not_before);
        if let Some(dir) = l.plain {
            if let Some((done, bytes)) = issue_plain(sys, at, l, s, dir)? {
                l.since_think += 1;
                l.in_flight += 1;
                events.push(done, (j, Kind::Dir(dir), bytes, at));
            }
        } else if l.probe.is_some() {
            if l.quiesce && l.in_flight == 0 {
                l.quiesce = false;
                if l.reset_pending {
                    // fio's reset_all_stats: measure again from here, at the depth found.
                    l.reset_pending = false;
                    let mut r = JobResult::new(s.name.clone(), s.groupid);
                    r.iodepth = Some(s.iodepth);
                    l.result = r;
                    l.measure_from = at;
                    l.win_start = at;
                    l.win_bytes = [0; 3];
                    l.win_ios = [0; 3];
                    l.win_lat_sum = [0; 3];
                    l.win_lat_max = [0; 3];
                }
            }
            // While quiesced, I/O is still in flight (the quiesce ends above when none is), so
            // nothing is issued and no think time is due.
            if !l.quiesce {
                top_up(sys, j, at, l, s, &mut events)?;
            }
        } else if s.must_think(l) {
            // fio's handle_thinktime: quiesce (wait for every I/O in flight), then think.
            if l.in_flight == 0 && !l.stopped {
                events.push(at.saturating_add(s.thinktime_ns), (j, Kind::Think, 0, at));
            }
        } else if let Some((done, kind, bytes)) = issue(sys, j, at, l, s)? {
            l.since_think += u32::from(kind != Kind::Wake);
            l.in_flight += 1;
            events.push(done, (j, kind, bytes, at));
        }
        since_progress += 1;
        if since_progress < 64 {
            continue;
        }
        since_progress = 0;
        let frac = specs
            .iter()
            .zip(&live)
            .map(|(s, l)| match (l.budget, s.runtime_ns) {
                (_, Some(r)) if s.time_based => (t.saturating_sub(start) as f64 / (r + s.ramp_ns) as f64).min(1.0),
                (Some(b), _) => l.issued_bytes as f64 / b.max(1) as f64,
                _ => 0.0,
            })
            .fold(1.0f64, f64::min);
        if frac - last_progress >= 0.01 {
            last_progress = frac;
            progress(frac);
        }
    }

    let mut end = start;
    let mut results = Vec::with_capacity(specs.len());
    for (s, mut l) in specs.iter().zip(live) {
        let partial = l.last_done.saturating_sub(l.win_start);
        if partial > 0 {
            close_window(&mut l, s, partial);
        }
        let runtime = l.last_done.saturating_sub(l.measure_from);
        // As fio: a direction the job never did I/O in has no runtime.
        for (d, active) in [
            (Ddir::Read, s.rw.has_reads() || s.verify.is_some()),
            (Ddir::Write, s.rw.has_writes()),
            (Ddir::Trim, s.rw.has_trims()),
        ] {
            l.result.dir_mut(d).runtime_ns = if active { runtime } else { 0 };
        }
        l.result.job_runtime_ns = runtime;
        if let Some(ss) = &l.ss {
            l.result.steadystate = serde_json::to_value(ss.report()).ok();
        }
        if let (Some(p), Some(j)) = (&l.probe, &s.job) {
            l.result.latency_probe = Some(flashlab_measure::LatencyProbe {
                depth: p.depth(),
                target_ns: j.latency_target.target_ns,
                window_ns: j.latency_target.window_ns,
                percentile: j.latency_target.percentile,
            });
        }
        for (f, c) in s.files.iter().zip(l.gen.counts()) {
            l.result.files.push(c.file_io(&f.name));
        }
        end = end.max(l.last_done);
        results.push(l.result);
    }
    sys.advance_to(end);
    progress(1.0);
    Ok(results)
}

fn close_window(l: &mut Live, s: &JobSpec, dur: Ns) {
    let end = l.win_start + dur;
    for d in 0..3u8 {
        let active = match d {
            0 => s.rw.has_reads() || s.verify.is_some(),
            1 => s.rw.has_writes(),
            _ => s.rw.has_trims(),
        };
        if active {
            l.result.dir_mut(ddir(d)).record_interval(Interval {
                end_ns: end,
                duration_ns: dur,
                bytes: l.win_bytes[d as usize],
                ios: l.win_ios[d as usize],
                lat_ns_sum: l.win_lat_sum[d as usize],
                lat_ns_max: l.win_lat_max[d as usize],
            });
        }
        l.win_bytes[d as usize] = 0;
        l.win_ios[d as usize] = 0;
        l.win_lat_sum[d as usize] = 0;
        l.win_lat_max[d as usize] = 0;
    }
    l.win_start = end;
}
