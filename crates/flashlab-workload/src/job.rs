//! One fio job as every target runs it: its settings ([`JobSettings`], the one job type) and
//! the per-job state machine ([`JobCore`]) that implements fio's options once — what the job
//! issues next (direction, offset and size, flushes), when it stops (runtime, byte budget,
//! `number_ios`, steady state, the latency probe), when it waits (`rate*`, `thinktime`), and
//! how each completion is measured (histograms, bandwidth windows, `latency_target`,
//! `ss_dur`) into a fio-compatible [`JobResult`].
//!
//! A target's loop drives it: the simulated engine (`flashlab_lab::engine`) on a virtual
//! clock with every job of a group side by side, the real runner (`flashlab_real::runner`)
//! on the wall clock through an I/O engine. Times are nanoseconds on the target's clock from
//! an origin the target chooses; the core never reads a clock. No allocation per I/O.

use crate::fileset::FileSet;
use crate::rng::Rng;
use crate::Error;
use flashlab_jobs::latency_target::{Action, DepthProbe};
use flashlab_jobs::pacing::Pacer;
use flashlab_jobs::prio::PrioTable;
use flashlab_jobs::steadystate::SteadyTracker;
use flashlab_jobs::{IoDir, Job, Rw};
use flashlab_measure::{Ddir, Interval, JobResult, LatencyProbe};
use std::sync::Arc;

/// A job's settings, target-neutral: what fio's job section says, resolved against a target
/// (the region of its file it covers, its seed).
#[derive(Debug, Clone)]
pub struct JobSettings {
    /// The job's name (fio's section name).
    pub name: String,
    /// The stonewalled group the job runs in.
    pub groupid: u32,
    /// Read, write, trim, or a mix; sequential or random.
    pub rw: Rw,
    /// Percentage of reads in a mixed workload.
    pub rwmixread: u32,
    /// Block size of reads, bytes.
    pub bs_read: u64,
    /// Block size of writes, bytes.
    pub bs_write: u64,
    /// Block size of trims, bytes.
    pub bs_trim: u64,
    /// The job's region of its file: [offset, offset + span).
    pub offset: u64,
    /// Bytes of the file the job covers.
    pub span: u64,
    /// Requests kept in flight.
    pub iodepth: u32,
    /// Bytes to transfer (fio's `io_size`; defaults to the span). Ignored when time-based.
    pub io_limit: Option<u64>,
    /// I/Os to issue at most (fio's `number_ios`).
    pub number_ios: Option<u64>,
    /// Run time limit, ns (fio's `runtime`).
    pub runtime_ns: Option<u64>,
    /// Keep going over the span until `runtime_ns` is up (fio's `time_based`).
    pub time_based: bool,
    /// Time at the start not counted in the results, ns (fio's `ramp_time`).
    pub ramp_ns: u64,
    /// Flush after every N writes (fsync / fdatasync), 0 = never.
    pub fsync_every: u32,
    /// The flush is `fdatasync` rather than `fsync`.
    pub fdatasync: bool,
    /// `fsync` once the job's I/O is done (counted in its runtime), as fio's `end_fsync`.
    pub end_fsync: bool,
    /// The file is open `O_SYNC`: a write completes once it is durable (its latency includes
    /// the flush).
    pub sync_writes: bool,
    /// Random offsets visit each block once per pass (fio's default); false = `norandommap`.
    pub random_map: bool,
    /// Seed of the job's offsets (and of a real target's data).
    pub seed: u64,
    /// Bandwidth sampling interval, ns (fio's default `log_avg_msec` is 500 ms).
    pub interval_ns: u64,
    /// fio's `thinktime`: the job issues `thinktime_blocks` I/Os, lets them complete, then
    /// stalls this long before it issues again (0 = never), ns.
    pub thinktime_ns: u64,
    /// Part of `thinktime` busy-waited (fio's `thinktime_spin`; on a virtual clock the same
    /// as sleeping), ns.
    pub thinktime_spin_ns: u64,
    /// I/Os between two think times (fio's `thinktime_blocks`).
    pub thinktime_blocks: u32,
    /// fio's `startdelay`: the job starts this long after its group does, ns (a range is
    /// drawn with the job's seed; a target running several groups takes off the time the
    /// earlier ones took, as fio counts from its own start). Its runtime starts then.
    pub start_delay_ns: u64,
    /// fio's `exitall`: when this job finishes, the jobs this names are stopped. `None`:
    /// no `exitall` in the run.
    pub exitall: Option<flashlab_jobs::ExitWhat>,
    /// The job-file job this runs, for fio's options beyond the fields above (mixed block
    /// sizes, `random_distribution`, `percentage_random`, `rw=...:N`, `rate*`, `loops`,
    /// `verify`, `latency_target`, `ss`). `None`: a job with only the fields above.
    pub job: Option<Arc<Job>>,
}

impl JobSettings {
    /// A job over `span` bytes from offset 0 with fio's defaults: QD1, one pass, random map,
    /// seed 1, 500 ms bandwidth windows.
    pub fn new(name: &str, rw: Rw, bs: u64, span: u64) -> JobSettings {
        JobSettings {
            name: name.to_string(),
            groupid: 0,
            rw,
            rwmixread: 50,
            bs_read: bs,
            bs_write: bs,
            bs_trim: bs,
            offset: 0,
            span,
            iodepth: 1,
            io_limit: None,
            number_ios: None,
            runtime_ns: None,
            time_based: false,
            ramp_ns: 0,
            fsync_every: 0,
            fdatasync: false,
            end_fsync: false,
            sync_writes: false,
            random_map: true,
            seed: 1,
            interval_ns: 500_000_000,
            thinktime_ns: 0,
            thinktime_spin_ns: 0,
            thinktime_blocks: 1,
            start_delay_ns: 0,
            exitall: None,
            job: None,
        }
    }

    /// The settings of a parsed fio job section over [offset, offset + span) of a target:
    /// fio's rw, rwmixread, block sizes, iodepth, io_size, number_ios, runtime, time_based,
    /// ramp_time, fsync / fdatasync, end_fsync (and fsync_on_close, which fio acts on at the
    /// same point: the end of the job's I/O), thinktime, norandommap, startdelay (a range
    /// drawn with the seed) and the job's own exitall; the seed is `randseed` or `seed`.
    pub fn from_fio(job: &Job, offset: u64, span: u64, seed: u64) -> JobSettings {
        let mut s = JobSettings::new(&job.name, job.rw, job.bs_read, span);
        s.bs_write = job.bs_write;
        s.bs_trim = job.bs_trim;
        s.rwmixread = job.rwmixread;
        s.offset = offset;
        s.iodepth = job.iodepth.max(1);
        s.io_limit = job.io_size;
        s.number_ios = job.number_ios;
        s.runtime_ns = job.runtime_ns;
        s.time_based = job.time_based;
        s.ramp_ns = job.ramp_time_ns;
        s.fsync_every = if job.fsync > 0 { job.fsync } else { job.fdatasync };
        s.fdatasync = job.fsync == 0 && job.fdatasync > 0;
        // fio's do_io ends with one fsync pass over the files for end_fsync or fsync_on_close.
        s.end_fsync = job.end_fsync || job.fsync_on_close;
        s.seed = job.randseed.unwrap_or(seed);
        s.start_delay_ns = match job.start_delay_max_ns {
            // fio's irange: each clone draws its delay from [low, high].
            Some(high) if high > job.start_delay_ns => {
                let mut r = Rng::new(s.seed ^ 0x5747_de1a_0000_0001);
                job.start_delay_ns + r.below(high - job.start_delay_ns + 1)
            }
            _ => job.start_delay_ns,
        };
        s.exitall = job.exitall.then_some(job.exit_what);
        s.thinktime_ns = job.thinktime_ns;
        s.thinktime_spin_ns = job.thinktime_spin_ns;
        s.thinktime_blocks = job.thinktime_blocks.max(1);
        s.random_map = !job.norandommap;
        s.job = Some(Arc::new(job.clone()));
        s
    }

    /// fio's flow control: `(flow_id, weight, flow_sleep ns)` for a job with a `flow` weight.
    pub fn flow(&self) -> Option<(u32, u32, u64)> {
        self.job.as_deref().filter(|j| j.flow > 0).map(|j| (j.flow_id, j.flow, j.flow_sleep_ns))
    }

    /// The job model this runs: its job-file job (with this job's `rw` and random map), or
    /// one made of the fields above.
    pub fn model(&self) -> Job {
        let mut j = match &self.job {
            Some(j) => (**j).clone(),
            None => {
                let mut j = Job::new(self.name.clone());
                j.rwmixread = self.rwmixread;
                j.bs_read = self.bs_read;
                j.bs_write = self.bs_write;
                j.bs_trim = self.bs_trim;
                j
            }
        };
        j.rw = self.rw;
        j.norandommap = !self.random_map;
        j
    }

    /// The job verifies its writes (fio's `verify`).
    pub fn verifies(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.verify.enabled())
    }

    /// Bytes the job transfers before it stops (`io_size` or the span, or a SPRandom pass's
    /// physical capacity, times `loops`);
    /// `None` when it runs for its time.
    pub fn budget(&self) -> Option<u64> {
        if self.time_based {
            None
        } else {
            let loops = self.job.as_ref().map_or(1, |j| u64::from(j.loops.max(1)));
            let pass = match &self.job {
                // fio's sprandom_init sets io_size to the physical capacity the pass writes.
                Some(j) if j.sprandom.enabled => {
                    crate::sprandom::physical_size(j.sprandom.op, self.span, self.bs_write)
                }
                _ => self.io_limit.unwrap_or(self.span),
            };
            Some(pass.saturating_mul(loops))
        }
    }

    /// The direction `d` (0 read, 1 write, 2 trim) is one the job does I/O in (reads
    /// include a verify's read-back), so it has a runtime and bandwidth windows.
    pub fn active(&self, d: u8, verifies: bool) -> bool {
        match d {
            0 => self.rw.has_reads() || verifies,
            1 => self.rw.has_writes(),
            _ => self.rw.has_trims(),
        }
    }
}

/// The fio direction of `d` (0 read, 1 write, 2 trim).
#[inline]
pub fn iodir(d: u8) -> IoDir {
    [IoDir::Read, IoDir::Write, IoDir::Trim][d as usize]
}

/// The result direction of `d` (0 read, 1 write, 2 trim).
#[inline]
pub fn ddir(d: u8) -> Ddir {
    [Ddir::Read, Ddir::Write, Ddir::Trim][d as usize]
}

/// What a completed request was, as [`JobCore::completed`] measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// An I/O in direction 0 (read, a verify's read-back included), 1 (write) or 2 (trim).
    Dir(u8),
    /// A flush (fsync / fdatasync).
    Sync,
}

/// When a request completed and how long it took, ns on the target's clock.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// When it completed.
    pub at: u64,
    /// Its completion latency.
    pub clat: u64,
    /// Its total latency.
    pub lat: u64,
    /// Its submission latency, where the target has one (an asynchronous engine).
    pub slat: Option<u64>,
    /// The priority slot it was sent with ([`JobCore::prio_slot`]; 0: the job's own).
    pub prio: u8,
}

/// The bandwidth window being filled: bytes, I/Os and latencies per direction since
/// `start`.
#[derive(Debug, Clone, Default)]
struct Window {
    start: u64,
    bytes: [u64; 3],
    ios: [u64; 3],
    lat_sum: [u64; 3],
    lat_max: [u64; 3],
}

/// One job's state while it runs: its generators, budgets, pacing, probes and results.
#[derive(Debug, Clone)]
pub struct JobCore {
    /// The job's generator (mixes, pacing; the offsets draw from it first).
    pub rng: Rng,
    /// Where each I/O goes (file, offset, size).
    pub gen: FileSet,
    model: Job,
    pacer: Option<Pacer>,
    /// The direction drawn for an I/O that waits for its rate.
    pending_dir: Option<u8>,
    issued_bytes: u64,
    issued_ios: u64,
    budget: Option<u64>,
    /// trimwrite: the next request is the trim of a block (then its write).
    trim_next: bool,
    writes_since_sync: u32,
    /// The file index of the last write (the one a flush syncs).
    pub last_write_file: usize,
    stopped: bool,
    /// The job's result so far.
    pub result: JobResult,
    /// Completions from this time on are measured: the ramp's end, or where the latency
    /// probe restarted the statistics.
    measure_from: u64,
    /// The start of the run (runtime limits count from it).
    start: u64,
    win: Window,
    last_done: u64,
    /// I/Os issued since the last think time.
    since_think: u32,
    ss: Option<SteadyTracker>,
    done_bytes: u64,
    done_ios: u64,
    /// Completion latencies of the measured I/Os (after the ramp), for a latency steady state.
    done_clat_sum: u128,
    done_clat_ios: u64,
    probe: Option<DepthProbe>,
    /// Issue nothing until the I/O in flight has completed (the probe lowered the depth).
    quiesce: bool,
    /// Once quiesced, restart the statistics (the probe found its depth).
    reset_pending: bool,
    /// Which directions have a runtime and windows (reads: also a verify's read-back).
    active: [bool; 3],
    /// The priorities the job's I/Os are sent with (fio's `prio*`/`cmdprio*`).
    prios: PrioTable,
    /// fio draws per-command priorities from a generator of their own (`prio_state`).
    prio_rng: Rng,
}

impl JobCore {
    /// The state of `s` starting at `start` over files of `spans` bytes; `verifies`: the
    /// target verifies the job's writes (its read-backs count as reads). Errors name the job
    /// (a `zoned_abs` zone past the end of its span).
    pub fn new(s: &JobSettings, spans: &[u64], start: u64, verifies: bool) -> Result<JobCore, Error> {
        let mut rng = Rng::new(s.seed);
        let model = s.model();
        let gen = FileSet::new(&model, spans, &mut rng).map_err(Error::within(format!("job '{}'", s.name)))?;
        let pacer = Pacer::new(&model, start);
        let ss = model.steadystate.enabled().then(|| SteadyTracker::new(model.steadystate, start));
        let probe =
            model.latency_target.enabled().then(|| DepthProbe::new(model.latency_target, s.iodepth, start + s.ramp_ns));
        let mut result = JobResult::new(s.name.clone(), s.groupid);
        result.iodepth = Some(s.iodepth);
        let prios = model.prio.table(model.rw.has_reads(), model.rw.has_writes());
        result.read.init_prios(prios.ioprios(0));
        result.write.init_prios(prios.ioprios(1));
        Ok(JobCore {
            rng,
            gen,
            model,
            pacer,
            pending_dir: None,
            issued_bytes: 0,
            issued_ios: 0,
            budget: s.budget(),
            trim_next: true,
            writes_since_sync: 0,
            last_write_file: 0,
            stopped: false,
            result,
            measure_from: start + s.ramp_ns,
            start,
            win: Window { start: start + s.ramp_ns, ..Window::default() },
            last_done: start,
            since_think: 0,
            ss,
            done_bytes: 0,
            done_ios: 0,
            done_clat_sum: 0,
            done_clat_ios: 0,
            probe,
            quiesce: false,
            reset_pending: false,
            active: [s.active(0, verifies), s.active(1, verifies), s.active(2, verifies)],
            prios,
            prio_rng: Rng::new(s.seed ^ 0x7072_696f_0000_0001),
        })
    }

    /// The job model it runs ([`JobSettings::model`]).
    pub fn model(&self) -> &Job {
        &self.model
    }

    /// The job uses only options that act on each request alone: no rate, steady-state
    /// window or latency probe (a target may take a shorter path for such a job).
    pub fn unpaced(&self) -> bool {
        self.pacer.is_none() && self.ss.is_none() && self.probe.is_none()
    }

    /// I/Os the job keeps in flight now: the probe's depth, or `iodepth`.
    #[inline]
    pub fn depth(&self, s: &JobSettings) -> u32 {
        self.probe.as_ref().map_or(s.iodepth.max(1), |p| p.depth())
    }

    /// The job has a latency probe (`latency_target`).
    pub fn probing(&self) -> bool {
        self.probe.is_some()
    }

    /// The job has stopped.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Stop the job: nothing more is issued, what is in flight completes.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// The job has stopped, or stops now at `t`: its runtime (after the ramp), byte budget or
    /// I/O count is used up.
    #[inline(always)]
    pub fn stops(&mut self, s: &JobSettings, t: u64) -> bool {
        if self.stopped {
            return true;
        }
        let over_time = s.runtime_ns.is_some_and(|r| t >= self.start + s.ramp_ns + r);
        let over_bytes = self.budget.is_some_and(|b| self.issued_bytes >= b);
        let over_ios = !s.time_based && s.number_ios.is_some_and(|n| self.issued_ios >= n);
        if over_time || over_bytes || over_ios {
            self.stopped = true;
        }
        self.stopped
    }

    /// A flush is due (`fsync`/`fdatasync` every N writes): true once per N writes.
    #[inline]
    pub fn flush_due(&mut self, s: &JobSettings) -> bool {
        if s.fsync_every > 0 && self.writes_since_sync >= s.fsync_every {
            self.writes_since_sync = 0;
            return true;
        }
        false
    }

    /// fio's think time is due: `thinktime_blocks` I/Os were issued since the last one, so
    /// the job issues nothing more until they completed and it has thought.
    #[inline]
    pub fn must_think(&self, s: &JobSettings) -> bool {
        s.thinktime_ns > 0 && self.since_think >= s.thinktime_blocks.max(1)
    }

    /// One more request went out since the last think time.
    #[inline]
    pub fn counted_for_think(&mut self) {
        self.since_think += 1;
    }

    /// The job has thought: it may issue `thinktime_blocks` more.
    pub fn thought(&mut self) {
        self.since_think = 0;
    }

    /// The direction (0 read, 1 write, 2 trim) of the job's next I/O: one that waited for its
    /// rate, else drawn (`rwmixread` for a mix; a trim then a write of the same block for
    /// trimwrite).
    #[inline]
    pub fn next_dir(&mut self, s: &JobSettings) -> u8 {
        if let Some(d) = self.pending_dir.take() {
            return d;
        }
        match s.rw {
            Rw::Read | Rw::RandRead => 0,
            Rw::Write | Rw::RandWrite => 1,
            Rw::Trim | Rw::RandTrim => 2,
            Rw::ReadWrite | Rw::RandRw => u8::from(self.rng.below(100) >= u64::from(s.rwmixread)),
            Rw::TrimWrite => {
                let d = if self.trim_next { 2 } else { 1 };
                self.trim_next = !self.trim_next;
                d
            }
        }
    }

    /// fio's `rate*`: when the I/O in direction `dir` may go out at `t`, if later than `t`
    /// (the direction is kept for then); `None`: now.
    #[inline]
    pub fn rate_wait(&mut self, dir: u8, t: u64) -> Option<u64> {
        let due = self.pacer.as_ref()?.due(iodir(dir), t);
        (due > t).then(|| {
            self.pending_dir = Some(dir);
            due
        })
    }

    /// The file index, offset in the file's span and length of the next I/O in direction
    /// `dir`; `None` when every file is done (the job stops there, as fio's does).
    #[inline(always)]
    pub fn draw(&mut self, dir: u8) -> Option<(usize, u64, u64)> {
        let next = self.gen.next(dir);
        if next.is_none() {
            self.pending_dir = None;
            self.stopped = true;
        }
        next
    }

    /// Count an I/O of `len` bytes in direction `dir` to file `file`, issued (paced, against
    /// the budgets, towards the next flush).
    #[inline(always)]
    pub fn issued(&mut self, s: &JobSettings, dir: u8, len: u64, file: usize) {
        if let Some(p) = &mut self.pacer {
            p.issued(iodir(dir), len, &mut self.rng);
        }
        // As fio (HOWTO, rw=trimwrite): io_size=64K trims 64K and writes the same 64K, so a
        // block's trim and write count once against io_size and number_ios.
        if !(s.rw == Rw::TrimWrite && dir == 2) {
            self.issued_bytes += len;
            self.issued_ios += 1;
        }
        if dir == 1 {
            self.writes_since_sync += 1;
            self.last_write_file = file;
        }
    }

    /// The priority slot of the job's next I/O, `len` bytes in direction `dir` (fio's
    /// `fio_cmdprio_set_ioprio`: a share of the I/Os gets a per-command priority); 0 is the
    /// job's own priority. [`JobCore::ioprio`] gives its value; [`Timing::prio`] takes it back.
    #[inline]
    pub fn prio_slot(&mut self, dir: u8, len: u64) -> u8 {
        let rng = &mut self.prio_rng;
        self.prios.pick(dir, len, || rng.below(100) as u32)
    }

    /// Linux's ioprio value of `slot` in direction `dir` (0: no priority set).
    #[inline]
    pub fn ioprio(&self, dir: u8, slot: u8) -> u16 {
        self.prios.ioprio(dir, slot)
    }

    /// The job sets any I/O priority (its own or per command).
    pub fn has_prio(&self) -> bool {
        self.model.prio.any()
    }

    /// A request of this job completed at `t`: fio's steady-state window sees it (ramp
    /// included). Call before [`JobCore::measure`].
    #[inline]
    pub fn completed(&mut self, done: Done, bytes: u64, t: u64) {
        self.last_done = self.last_done.max(t);
        if let Some(ss) = &mut self.ss {
            // fio samples the counters once a second; steady state ends the job.
            if ss.advance(t, self.done_bytes, self.done_ios, self.done_clat_sum, self.done_clat_ios) {
                self.stopped = true;
            }
            if let Done::Dir(_) = done {
                self.done_bytes += bytes;
                self.done_ios += 1;
            }
        }
    }

    /// Measure a request of `len` bytes asked, `bytes` done (a short transfer counts), with
    /// its [`Timing`]. Completions before the ramp's end (or the probe's restart) are not
    /// measured.
    #[inline]
    pub fn measure(&mut self, s: &JobSettings, done: Done, bytes: u64, len: u64, timing: Timing) {
        let Timing { at: t, clat, lat, slat, prio } = timing;
        if t < self.measure_from {
            return;
        }
        while t >= self.win.start + s.interval_ns {
            self.close_window(s.interval_ns);
            // An idle gap (think time, a trace's pause): one empty window for all of it,
            // not one per interval (a simulated year is 63 million 500 ms windows).
            let empty = (t - self.win.start) / s.interval_ns;
            if empty > 1 {
                self.close_window(empty * s.interval_ns);
            }
        }
        if let (Some(p), Done::Dir(_)) = (&mut self.probe, done) {
            match p.completed(lat, t) {
                Action::Go => {}
                Action::Quiesce => self.quiesce = true,
                Action::ResetStats => {
                    self.quiesce = true;
                    self.reset_pending = true;
                }
                Action::Done => self.stopped = true,
                Action::Fatal => {
                    // fio: "max latency exceeded", ETIMEDOUT.
                    self.result.error = 110;
                    self.stopped = true;
                }
            }
        }
        let d = match done {
            Done::Sync => {
                self.result.sync.record(lat);
                return;
            }
            Done::Dir(d) => d,
        };
        if self.ss.is_some() {
            self.done_clat_sum += u128::from(clat);
            self.done_clat_ios += 1;
        }
        let stats = self.result.dir_mut(ddir(d));
        if bytes < len {
            stats.short_ios += 1;
        }
        match slat {
            None if clat == lat => stats.record_io_same(bytes, lat),
            _ => stats.record_io(bytes, clat, lat),
        }
        if let Some(sl) = slat {
            stats.record_slat(sl);
        }
        stats.record_prio(prio, clat);
        let w = &mut self.win;
        w.bytes[d as usize] += bytes;
        w.ios[d as usize] += 1;
        w.lat_sum[d as usize] += clat;
        w.lat_max[d as usize] = w.lat_max[d as usize].max(clat);
    }

    /// The probe asks the job to issue nothing until what is in flight has completed.
    pub fn quiesced(&self) -> bool {
        self.quiesce
    }

    /// Nothing is in flight any more at `at`: a quiesce ends, and when the probe found its
    /// depth the statistics restart from here (fio's reset_all_stats).
    pub fn drained(&mut self, s: &JobSettings, at: u64) {
        if !self.quiesce {
            return;
        }
        self.quiesce = false;
        if self.reset_pending {
            self.reset_pending = false;
            let mut r = JobResult::new(s.name.clone(), s.groupid);
            r.iodepth = Some(s.iodepth);
            r.read.init_prios(self.prios.ioprios(0));
            r.write.init_prios(self.prios.ioprios(1));
            self.result = r;
            self.measure_from = at;
            self.win = Window { start: at, ..Window::default() };
        }
    }

    /// The job's latest completion so far (or its start).
    pub fn last_done(&self) -> u64 {
        self.last_done
    }

    /// The run's end moved to `t` (an `end_fsync` after the last I/O).
    pub fn ended_at(&mut self, t: u64) {
        self.last_done = self.last_done.max(t);
    }

    /// How far the job is, 0 to 1, at `t`: its time for a time-based job, else the larger of
    /// its bytes and (with `number_ios`) its I/Os.
    pub fn progress(&self, s: &JobSettings, t: u64) -> f64 {
        let f = match (self.budget, s.runtime_ns) {
            (_, Some(r)) if s.time_based => t.saturating_sub(self.start) as f64 / (r + s.ramp_ns).max(1) as f64,
            (Some(b), _) => {
                let f = self.issued_bytes as f64 / b.max(1) as f64;
                s.number_ios.map_or(f, |n| f.max(self.issued_ios as f64 / n.max(1) as f64))
            }
            _ => 0.0,
        };
        f.min(1.0)
    }

    /// Close the last window and fill in the runtimes (from the measured start to the last
    /// completion; 0 for a direction the job never did I/O in, as fio), the steady-state
    /// and probe reports and the per-file counts (`files`: the files' names, when the job has
    /// several).
    pub fn finish<'a>(mut self, files: impl IntoIterator<Item = &'a str>) -> JobResult {
        let partial = self.last_done.saturating_sub(self.win.start);
        if partial > 0 {
            self.close_window(partial);
        }
        let runtime = self.last_done.saturating_sub(self.measure_from);
        for d in 0..3u8 {
            self.result.dir_mut(ddir(d)).runtime_ns = if self.active[d as usize] { runtime } else { 0 };
        }
        self.result.job_runtime_ns = runtime;
        if let Some(ss) = &self.ss {
            self.result.steadystate = serde_json::to_value(ss.report()).ok();
        }
        if let Some(p) = &self.probe {
            let lt = self.model.latency_target;
            self.result.latency_probe = Some(LatencyProbe {
                depth: p.depth(),
                target_ns: lt.target_ns,
                window_ns: lt.window_ns,
                percentile: lt.percentile,
            });
        }
        for (name, c) in files.into_iter().zip(self.gen.counts()) {
            self.result.files.push(c.file_io(name));
        }
        self.result.unified_rw = flashlab_measure::UnifiedRw::from_fio(self.model.unified_rw_reporting);
        self.result
    }

    /// The measured start (the ramp's end, or the probe's restart).
    pub fn measure_from(&self) -> u64 {
        self.measure_from
    }

    fn close_window(&mut self, dur: u64) {
        let w = &mut self.win;
        let end = w.start + dur;
        for d in 0..3usize {
            if self.active[d] {
                self.result.dir_mut(ddir(d as u8)).record_interval(Interval {
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
        w.start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drive `core` as a QD1 target would: each I/O takes `lat` ns, one after another.
    fn run_qd1(s: &JobSettings, core: &mut JobCore, lat: u64) -> u64 {
        let mut t = 0;
        while !core.stops(s, t) {
            let done = if core.flush_due(s) {
                Done::Sync
            } else {
                let dir = core.next_dir(s);
                let Some((fi, _, len)) = core.draw(dir) else { break };
                core.issued(s, dir, len, fi);
                Done::Dir(dir)
            };
            t += lat;
            let bytes = if let Done::Dir(_) = done { s.bs_write } else { 0 };
            core.completed(done, bytes, t);
            core.measure(s, done, bytes, bytes, Timing { at: t, clat: lat, lat, slat: None, prio: 0 });
        }
        t
    }

    #[test]
    fn windows_add_up_to_the_job_and_runtime_is_last_completion_minus_ramp() {
        let mut s = JobSettings::new("w", Rw::Write, 4096, 4096 * 1000);
        s.interval_ns = 1_000_000;
        s.ramp_ns = 3_000_000;
        s.time_based = true;
        s.runtime_ns = Some(20_000_000);
        let mut core = JobCore::new(&s, &[s.span], 0, false).unwrap();
        // 99 us per I/O: no completion falls exactly on a window's end. (The run's last
        // completion exactly there would be in no window: the zero-length window after it is
        // not recorded. Both engines always did so; the golden outputs hold it.)
        let end = run_qd1(&s, &mut core, 99_000);
        let r = core.finish([]);
        let w = &r.write;
        let window_bytes: u64 = w.intervals.iter().map(|i| i.bytes).sum();
        assert_eq!(window_bytes, w.io_bytes, "every measured byte is in one window");
        assert_eq!(w.runtime_ns, end - s.ramp_ns);
        assert_eq!(r.read.runtime_ns, 0, "a direction the job does not do has no runtime");
        // Completions from 3.069 ms (the 31st) to 23.067 ms (the 233rd, the first at or past
        // ramp + runtime).
        assert_eq!(w.ios, 233 - 31 + 1);
    }

    #[test]
    fn an_idle_gap_is_one_empty_window() {
        let mut s = JobSettings::new("g", Rw::Write, 4096, 4096 * 10);
        s.interval_ns = 1_000;
        let mut core = JobCore::new(&s, &[s.span], 0, false).unwrap();
        core.measure(&s, Done::Dir(1), 4096, 4096, Timing { at: 500, clat: 500, lat: 500, slat: None, prio: 0 });
        // The next completion a million intervals later.
        core.measure(
            &s,
            Done::Dir(1),
            4096,
            4096,
            Timing { at: 1_000_000_500, clat: 10, lat: 10, slat: None, prio: 0 },
        );
        core.ended_at(1_000_000_500);
        let r = core.finish([]);
        assert!(r.write.intervals.len() <= 4, "{} windows", r.write.intervals.len());
        let covered: u64 = r.write.intervals.iter().map(|i| i.duration_ns).sum();
        assert_eq!(covered, 1_000_000_500, "the windows cover the run");
    }

    #[test]
    fn flushes_every_n_writes_and_trimwrite_counts_a_block_once() {
        let mut s = JobSettings::new("f", Rw::Write, 4096, 4096 * 8);
        s.fsync_every = 3;
        let mut core = JobCore::new(&s, &[s.span], 0, false).unwrap();
        run_qd1(&s, &mut core, 10);
        let r = core.finish([]);
        assert_eq!(r.write.ios, 8);
        // After writes 3 and 6 (the 8th write ends the budget before a third flush).
        assert_eq!(r.sync.total_ios, 2);

        let s = JobSettings::new("tw", Rw::TrimWrite, 4096, 4096 * 4);
        let mut core = JobCore::new(&s, &[s.span], 0, false).unwrap();
        let mut dirs = Vec::new();
        while !core.stops(&s, 0) {
            let d = core.next_dir(&s);
            let (fi, _, len) = core.draw(d).unwrap();
            core.issued(&s, d, len, fi);
            dirs.push(d);
        }
        // io_size = span: each block trimmed then written, counted once.
        assert_eq!(dirs, [2, 1, 2, 1, 2, 1, 2, 1]);
    }

    #[test]
    fn start_delay_ranges_are_drawn_per_seed_and_fsync_on_close_is_an_end_fsync() {
        let mut j = Job::new("d");
        j.start_delay_ns = 1_000;
        j.start_delay_max_ns = Some(1_000_000);
        let a = JobSettings::from_fio(&j, 0, 4096, 1).start_delay_ns;
        let b = JobSettings::from_fio(&j, 0, 4096, 2).start_delay_ns;
        assert!((1_000..=1_000_000).contains(&a) && (1_000..=1_000_000).contains(&b));
        assert_ne!(a, b, "clones (other seeds) draw other delays");
        assert_eq!(a, JobSettings::from_fio(&j, 0, 4096, 1).start_delay_ns, "the same seed, the same delay");
        j.start_delay_max_ns = None;
        assert_eq!(JobSettings::from_fio(&j, 0, 4096, 1).start_delay_ns, 1_000);
        assert!(!JobSettings::from_fio(&j, 0, 4096, 1).end_fsync);
        j.fsync_on_close = true;
        assert!(JobSettings::from_fio(&j, 0, 4096, 1).end_fsync);
        assert_eq!(JobSettings::from_fio(&j, 0, 4096, 1).exitall, None);
        j.exitall = true;
        assert_eq!(JobSettings::from_fio(&j, 0, 4096, 1).exitall, Some(flashlab_jobs::ExitWhat::Group));
    }

    #[test]
    fn number_ios_and_progress() {
        let mut s = JobSettings::new("n", Rw::RandWrite, 4096, 4096 * 100);
        s.number_ios = Some(10);
        let mut core = JobCore::new(&s, &[s.span], 0, false).unwrap();
        assert_eq!(core.progress(&s, 0), 0.0);
        run_qd1(&s, &mut core, 7);
        assert_eq!(core.progress(&s, 70), 1.0, "10 of 10 I/Os");
        assert_eq!(core.finish([]).write.ios, 10);
    }
}
