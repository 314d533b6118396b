//! `fill`: fill the free space of a simulated system with 4 KiB random writes the way fio does
//! it, and report write latency percentiles for every tenth of the fill — the public fill
//! driver that compared phones' storage ran fio this way (docs/fill.md).
//!
//! fio's semantics, checked with fio 3.33 on this machine (strace; docs/fill.md):
//!
//! * A `rw=randwrite` job on a file that does not exist unlinks any old one, creates it and
//!   `fallocate`s its whole size: blocks are allocated, no data is written. Then every block is
//!   written once, in an order its random map draws (`randrepeat=1` by default: the same order
//!   every run). [`FillSpec::layout`] = [`Layout::Allocate`].
//! * With `overwrite=1` fio first writes the whole file sequentially (the "laying out" of
//!   `extend_file`), and the random pass then overwrites it: [`Layout::Write`].
//! * `norandommap`: offsets are drawn uniformly at random with no memory, so some blocks are
//!   written several times and others never ([`FillSpec::random_map`] = false).
//! * `fsync=N`: an fsync after every N writes ([`FillSpec::fsync_every`]).
//!
//! The system's trim policy acts during the fill: online discard is the filesystem's mount
//! option; a timer's or Android's idle-maintenance fstrim runs in the idle periods between
//! fill sessions when it falls due ([`FillSpec::sessions`], [`FillSpec::gap_ns`]).
//! [`run_phone_procedure`] is the published procedure: test /data, fill the shared storage
//! (through the shared-storage layer), test /data again.

use crate::engine::{run_jobs_hooked, Completed, JobSpec};
use crate::stack::{LayerCost, TrimPolicy};
use crate::system::{DeviceReport, SimSystem, SysError};
use flashlab_jobs::Rw;
use flashlab_measure::{LatencyHistogram, LatencySummary};
use flashlab_simfs::FileId;
use flashsim::Ns;
use serde::Serialize;

/// How the fill file is laid out before the random pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// fio's default for a write job: fallocate, nothing written.
    Allocate,
    /// fio's `overwrite=1`: the whole file written sequentially first.
    Write,
}

impl Layout {
    /// `allocate` (or `fallocate`) or `write` (or `overwrite`).
    pub fn parse(s: &str) -> Result<Layout, crate::Error> {
        match s {
            "allocate" | "fallocate" => Ok(Layout::Allocate),
            "write" | "overwrite" => Ok(Layout::Write),
            other => Err(crate::Error::UnknownName {
                what: "layout",
                name: other.to_string(),
                expected: "allocate or write".into(),
            }),
        }
    }
}

/// What a fill does.
#[derive(Debug, Clone, Serialize)]
pub struct FillSpec {
    /// Requests in flight (fio's `iodepth`).
    pub iodepth: u32,
    /// Seed of the random offsets.
    pub(crate) seed: u64,
    /// How the file is laid out before the random pass.
    pub layout: Layout,
    /// fio's random map (each block once per pass); false = `norandommap`.
    pub random_map: bool,
    /// fsync after every N writes (fio's `fsync=N`); 0 = never.
    pub fsync_every: u32,
    /// The fill runs in this many sessions of equal size...
    pub sessions: u32,
    /// ...with this much idle time between two sessions.
    pub gap_ns: Ns,
    /// fstrim during the idle periods (a timer's or Android's); discard is a mount option.
    pub trim: TrimPolicy,
    /// What each request pays crossing the layer above the filesystem (shared storage).
    pub layer: LayerCost,
    /// Leave this many bytes of the free space unfilled.
    pub leave_free: u64,
}

impl FillSpec {
    /// fio's defaults: QD1, fallocated file, random map, no fsync, one session, no trim.
    pub fn new(iodepth: u32, seed: u64) -> FillSpec {
        FillSpec {
            iodepth,
            seed,
            layout: Layout::Allocate,
            random_map: true,
            fsync_every: 0,
            sessions: 1,
            gap_ns: 0,
            trim: TrimPolicy::None,
            layer: LayerCost::ZERO,
            leave_free: 0,
        }
    }
}

/// Write latency over one slice of a fill (or one test run).
#[derive(Debug, Clone, Serialize)]
pub struct FillDecile {
    /// Fill level at the end of this slice, percent of the fill's random writes done.
    pub filled_pct: u32,
    /// Median write latency, µs.
    pub p50_us: f64,
    /// 90th percentile write latency, µs.
    pub(crate) p90_us: f64,
    /// 99th percentile write latency, µs.
    pub p99_us: f64,
    /// p99.9 and p99.99 (clamped to the exact range: max >= p99.99 >= p99.9 >= p99).
    pub(crate) p999_us: f64,
    /// 99.99th percentile write latency, µs.
    pub(crate) p9999_us: f64,
    /// Exact largest and mean latency of the slice.
    pub max_us: f64,
    /// Mean write latency, µs.
    pub mean_us: f64,
    /// Writes in this slice.
    pub writes: u64,
    /// Host write bandwidth over the slice's busy time (idle gaps excluded).
    pub(crate) mbs: f64,
    /// Device write amplification within this slice.
    pub write_amplification: f64,
    /// NAND bytes programmed on every device of the system per byte of this slice's random
    /// writes (the layout's writes left out): the filesystem's own writes (nodes, metadata, F2FS's cleaning) and
    /// the devices' (garbage collection, map pages) together ([`SimSystem::nand_units_programmed`]).
    pub end_to_end_write_amplification: f64,
    /// fstrims that ran since the previous slice.
    pub(crate) fstrims: u32,
    /// Fraction of the device's physical blocks free at the end of the slice.
    pub(crate) free_block_fraction: f64,
}

/// One fstrim during a fill.
#[derive(Debug, Clone, Serialize)]
pub struct FstrimEvent {
    /// When it ran, virtual seconds since the fill started.
    pub(crate) at_s: f64,
    /// How far the fill was, percent of its random writes.
    pub filled_pct: f64,
    /// Bytes it trimmed.
    pub bytes: u64,
}

/// What a fill did: the file, the latency per slice, the fstrims, the device afterwards.
#[derive(Debug, Clone, Serialize)]
pub struct FillResult {
    /// Bytes of the fill file.
    pub bytes: u64,
    /// Bytes written laying the file out (0 with [`Layout::Allocate`]).
    pub layout_bytes: u64,
    /// What was asked for.
    pub spec: FillSpec,
    /// Latency and device state per tenth of the fill.
    pub deciles: Vec<FillDecile>,
    /// Every fstrim during the fill.
    pub fstrims: Vec<FstrimEvent>,
    /// Virtual time the fill took, idle periods included.
    pub virtual_s: f64,
    /// The device after the fill.
    pub(crate) device: DeviceReport,
}

/// The fill file's name on the simulated filesystem.
pub(crate) const FILL_FILE: &str = "flashlab-fill-random.tmp";

/// Fill the free space (less `spec.leave_free`) with one file named [`FILL_FILE`].
pub fn run_fill(sys: &mut SimSystem, spec: &FillSpec, progress: impl FnMut(f64)) -> Result<FillResult, SysError> {
    run_fill_named(sys, FILL_FILE, spec, progress)
}

/// [`run_fill`] with the file named `name`.
pub(crate) fn run_fill_named(
    sys: &mut SimSystem,
    name: &str,
    spec: &FillSpec,
    mut progress: impl FnMut(f64),
) -> Result<FillResult, SysError> {
    let t0 = sys.now();
    let size = sys.fs().free_bytes().saturating_sub(spec.leave_free) / 4096 * 4096;
    if size == 0 {
        return Err(flashlab_simfs::FsError::NoSpace {
            name: name.to_string(),
            wanted: 4096,
            free: sys.fs().free_bytes(),
        }
        .into());
    }
    let sessions = u64::from(spec.sessions.max(1));
    let mut sl = Slices::new(sys, size);
    let mut fstrims = Vec::new();
    let mut last_trim: Option<Ns> = None;
    let (mut planned, mut layout_bytes) = (0u64, 0u64);
    for k in 0..sessions {
        // One fio run per session, each on a new file of its share of the fill (the last takes
        // what is left): a driver that reports along the way runs fio chunk by chunk.
        let left = size - planned;
        let share = if k + 1 == sessions { left } else { (left / (sessions - k)) / 4096 * 4096 };
        let share = share.min(sys.fs().free_bytes() / 4096 * 4096);
        if share == 0 {
            break;
        }
        let fname = if sessions == 1 { name.to_string() } else { format!("{name}.{k}") };
        let (file, share) = create_what_fits(sys, &fname, share)?;
        planned += share;
        if spec.layout == Layout::Write {
            lay_out(sys, file, share, spec)?;
            layout_bytes += share;
            // The end-to-end write amplification is the random writes': the layout's are not
            // theirs (the device's WAF of the tenth has always counted both, in and out).
            sl.media_units = sys.nand_units_programmed();
        }
        let mut job = JobSpec::on_file("fill", Rw::RandWrite, 4096, file, share);
        job.settings.iodepth = spec.iodepth.max(1);
        job.settings.seed = spec.seed.wrapping_add(k);
        job.settings.random_map = spec.random_map;
        job.settings.fsync_every = spec.fsync_every;
        job.layer = spec.layer;
        // Bandwidth windows are not reported here; a long window keeps idle days cheap.
        job.settings.interval_ns = 3_600_000_000_000;
        let mut durable = Durable::new(spec.fsync_every);
        let base = sl.done_bytes;
        run_jobs_hooked(
            sys,
            &[job],
            |f| progress((base as f64 + f * share as f64) / size as f64),
            |c, sys| {
                sl.busy(&c);
                if durable.complete(&c, &mut sl.hist) {
                    sl.account(sys, base + durable.bytes);
                }
                Ok(None)
            },
        )?;
        // The writes after the last fsync (fio issues none at the end): one more makes them
        // durable.
        if durable.pending() {
            let t = sys.free_at();
            let done = sys.fsync(t, file)?;
            sys.advance_to(done);
            let c = Completed { job: 0, dir: None, bytes: 0, submitted: t, done };
            sl.busy(&c);
            durable.complete(&c, &mut sl.hist);
            sl.account(sys, base + durable.bytes);
        }
        if k + 1 == sessions {
            break;
        }
        // Between sessions the device idles (its background GC runs) and the system's trim
        // policy may run fstrim.
        let from = sys.free_at();
        let to = from + spec.gap_ns;
        if let Some(at) = spec.trim.fstrim_in_idle(from - t0, to - t0, last_trim.map(|l| l - t0)) {
            sys.idle(t0 + at - from);
            let bytes = sys.fstrim()?;
            last_trim = Some(t0 + at);
            sl.fstrims += 1;
            fstrims.push(FstrimEvent {
                at_s: at as f64 / 1e9,
                filled_pct: sl.done_bytes as f64 * 100.0 / size as f64,
                bytes,
            });
        }
        if to > sys.now() {
            sys.idle(to - sys.now());
        }
        sl.last_done = sys.now();
    }
    sl.finish(sys);
    Ok(FillResult {
        bytes: sl.done_bytes,
        layout_bytes,
        spec: spec.clone(),
        deciles: sl.deciles,
        fstrims,
        virtual_s: (sys.now() - t0) as f64 / 1e9,
        device: sys.device_report(),
    })
}

/// Create `name` with up to `size` bytes: what the filesystem reports free also has to hold the
/// file's own metadata (F2FS: a node block per 1018 data blocks), so a file of exactly the free
/// space may not fit; then the size shrinks by 1/256 at a time, as a fill that stops at ENOSPC.
fn create_what_fits(sys: &mut SimSystem, name: &str, size: u64) -> Result<(FileId, u64), SysError> {
    let mut size = size;
    for _ in 0..16 {
        match sys.create(name, size) {
            Ok(f) => return Ok((f, size)),
            Err(SysError::Fs(flashlab_simfs::FsError::NoSpace { .. })) if size > 1 << 20 => {
                size = (size - size / 256) / 4096 * 4096;
            }
            Err(e) => return Err(e),
        }
    }
    Ok((sys.create(name, size)?, size))
}

/// fio's layout of a new file under `overwrite=1`: the whole file written sequentially (1 MiB
/// requests, QD1), through the same layer as the job.
fn lay_out(sys: &mut SimSystem, file: FileId, size: u64, spec: &FillSpec) -> Result<(), SysError> {
    // The largest power of two up to 1 MiB that divides the file, so no request runs past it.
    let bs = (1u64 << 20).min(1 << size.trailing_zeros());
    let mut job = JobSpec::on_file("layout", Rw::Write, bs, file, size);
    job.layer = spec.layer;
    job.settings.interval_ns = 3_600_000_000_000;
    run_jobs_hooked(sys, &[job], |_| {}, |_, _| Ok(None))?;
    Ok(())
}

/// One test run of the published procedure: 4 KiB random writes over a file on /data.
#[derive(Debug, Clone, Serialize)]
pub struct TestRun {
    /// Which run (`/data before the fill`).
    pub(crate) label: String,
    /// Median write latency, µs.
    pub p50_us: f64,
    /// 90th percentile write latency, µs.
    pub(crate) p90_us: f64,
    /// 99th percentile write latency, µs.
    pub(crate) p99_us: f64,
    /// 99.9th percentile write latency, µs.
    pub(crate) p999_us: f64,
    /// Largest write latency, µs.
    pub(crate) max_us: f64,
    /// Mean write latency, µs.
    pub mean_us: f64,
    /// Writes done.
    pub writes: u64,
    /// Host write bandwidth, MB/s (10^6 bytes per second).
    pub(crate) mbs: f64,
    /// Device write amplification during the run.
    pub(crate) write_amplification: f64,
}

/// The published procedure: test /data, fill the shared storage, test /data again.
#[derive(Debug, Clone, Serialize)]
pub struct PhoneResult {
    /// Bytes of the test file on /data.
    pub test_bytes: u64,
    /// The test before the fill.
    pub before: TestRun,
    /// The fill of the shared storage.
    pub fill: FillResult,
    /// The test after the fill.
    pub after: TestRun,
}

/// The test file on /data.
pub const TEST_FILE: &str = "data/flashlab-fill-test.tmp";
/// The fill file on the shared storage (`/storage/emulated/0`).
pub(crate) const SHARED_FILL_FILE: &str = "media/0/flashlab-fill-random.tmp";

/// Run the published procedure on `sys`: a 4 KiB random-write test over a `test_bytes` file on
/// /data (fio's semantics as in the fill, without the shared-storage layer), the fill of the
/// shared storage with `spec` (its `layer` is the shared-storage layer's cost), and the same
/// test again on the same file (fio overwrites an existing file of the right size in place).
pub fn run_phone_procedure(
    sys: &mut SimSystem,
    spec: &FillSpec,
    test_bytes: u64,
    mut progress: impl FnMut(&str, f64),
) -> Result<PhoneResult, SysError> {
    let test_bytes = test_bytes / 4096 * 4096;
    let file = sys.create(TEST_FILE, test_bytes)?;
    let before = test_run(sys, file, test_bytes, spec, "/data before the fill", &mut progress)?;
    let fill = run_fill_named(sys, SHARED_FILL_FILE, spec, |f| progress("fill /storage/emulated/0", f))?;
    let after = test_run(sys, file, test_bytes, spec, "/data after the fill", &mut progress)?;
    Ok(PhoneResult { test_bytes, before, fill, after })
}

fn test_run(
    sys: &mut SimSystem,
    file: FileId,
    bytes: u64,
    spec: &FillSpec,
    label: &str,
    progress: &mut impl FnMut(&str, f64),
) -> Result<TestRun, SysError> {
    let mut job = JobSpec::on_file("data-test", Rw::RandWrite, 4096, file, bytes);
    job.settings.iodepth = spec.iodepth.max(1);
    job.settings.seed = spec.seed ^ 0x7465_7374;
    job.settings.random_map = spec.random_map;
    job.settings.fsync_every = spec.fsync_every;
    let before = sys.device().counters();
    let t0 = sys.now();
    let mut h = LatencyHistogram::new();
    let mut durable = Durable::new(spec.fsync_every);
    run_jobs_hooked(
        sys,
        &[job],
        |f| progress(label, f),
        |c, _| {
            durable.complete(&c, &mut h);
            Ok(None)
        },
    )?;
    if durable.pending() {
        let t = sys.free_at();
        let done = sys.fsync(t, file)?;
        sys.advance_to(done);
        durable.complete(&Completed { job: 0, dir: None, bytes: 0, submitted: t, done }, &mut h);
    }
    let secs = (sys.now() - t0) as f64 / 1e9;
    let l = LatencySummary::of(&h);
    Ok(TestRun {
        label: label.to_string(),
        p50_us: l.p50_us,
        p90_us: l.p90_us,
        p99_us: l.p99_us,
        p999_us: l.p999_us,
        max_us: l.max_us,
        mean_us: l.mean_us,
        writes: h.count(),
        mbs: if secs > 0.0 { durable.bytes as f64 / secs / 1e6 } else { 0.0 },
        write_amplification: sys.device().counters().since(&before).write_amplification(),
    })
}

/// A write's latency until it is durable: with fsync every N writes, from the write's submission
/// to the completion of the fsync that covers it (what fio's `sync=1` measures as one write);
/// without fsync, the write's own completion.
struct Durable {
    fsync_every: u32,
    /// Submission times of completed writes no fsync has covered yet.
    unsynced: Vec<Ns>,
    /// Bytes of writes recorded so far.
    bytes: u64,
    pending_bytes: u64,
}

impl Durable {
    fn new(fsync_every: u32) -> Durable {
        Durable { fsync_every, unsynced: Vec::with_capacity(fsync_every as usize), bytes: 0, pending_bytes: 0 }
    }

    fn pending(&self) -> bool {
        !self.unsynced.is_empty()
    }

    /// Account one completed request; true when writes were recorded into `hist`.
    fn complete(&mut self, c: &Completed, hist: &mut LatencyHistogram) -> bool {
        match c.dir {
            Some(_) if self.fsync_every == 0 => {
                hist.record(c.done - c.submitted);
                self.bytes += c.bytes;
                true
            }
            Some(_) => {
                self.unsynced.push(c.submitted);
                self.pending_bytes += c.bytes;
                false
            }
            None => {
                for s in self.unsynced.drain(..) {
                    hist.record(c.done - s);
                }
                self.bytes += std::mem::take(&mut self.pending_bytes);
                true
            }
        }
    }
}

/// Tenths of a fill: the latency histogram of the current tenth and what closes it.
struct Slices {
    size: u64,
    slice: u64,
    hist: LatencyHistogram,
    deciles: Vec<FillDecile>,
    counters: flashsim::Counters,
    /// NAND units programmed on the system's devices when the slice began.
    media_units: u64,
    busy_ns: u64,
    last_done: Ns,
    fstrims: u32,
    /// Durable write bytes so far.
    done_bytes: u64,
}

impl Slices {
    fn new(sys: &SimSystem, size: u64) -> Slices {
        Slices {
            size,
            slice: size.div_ceil(10),
            hist: LatencyHistogram::new(),
            deciles: Vec::with_capacity(10),
            counters: sys.device().counters(),
            media_units: sys.nand_units_programmed(),
            busy_ns: 0,
            last_done: sys.now(),
            fstrims: 0,
            done_bytes: 0,
        }
    }

    /// Time the device was working for the fill (idle gaps excluded).
    fn busy(&mut self, c: &Completed) {
        self.busy_ns += c.done.saturating_sub(self.last_done.max(c.submitted));
        self.last_done = self.last_done.max(c.done);
    }

    /// Close the tenth if `done_bytes` of durable writes reach its end.
    fn account(&mut self, sys: &SimSystem, done_bytes: u64) {
        self.done_bytes = done_bytes;
        let n = self.deciles.len() as u64;
        if done_bytes < self.slice * (n + 1) && done_bytes < self.size {
            return;
        }
        self.close(sys);
    }

    /// Close the last tenth if writes are left in it (a fill that came out smaller than
    /// planned: the filesystem's own metadata took some of the space).
    fn finish(&mut self, sys: &SimSystem) {
        if self.hist.count() > 0 {
            self.close(sys);
        }
    }

    fn close(&mut self, sys: &SimSystem) {
        let done_bytes = self.done_bytes;
        let n = self.deciles.len() as u64;
        let bytes = done_bytes - (self.slice * n).min(done_bytes);
        let now = sys.device().counters();
        let state = sys.device().state();
        let l = LatencySummary::of(&self.hist);
        self.deciles.push(FillDecile {
            filled_pct: ((done_bytes * 100 / self.size) as u32).min(100),
            p50_us: l.p50_us,
            p90_us: l.p90_us,
            p99_us: l.p99_us,
            p999_us: l.p999_us,
            p9999_us: l.p9999_us,
            max_us: l.max_us,
            mean_us: l.mean_us,
            writes: self.hist.count(),
            mbs: if self.busy_ns > 0 { bytes as f64 / (self.busy_ns as f64 / 1e9) / 1e6 } else { 0.0 },
            write_amplification: now.since(&self.counters).write_amplification(),
            end_to_end_write_amplification: {
                let media = sys.nand_units_programmed() - self.media_units;
                if bytes == 0 {
                    0.0
                } else {
                    (media * flashsim::MAP_UNIT) as f64 / bytes as f64
                }
            },
            fstrims: self.fstrims,
            free_block_fraction: state.free_blocks as f64 / state.total_blocks.max(1) as f64,
        });
        self.counters = now;
        self.media_units = sys.nand_units_programmed();
        self.hist.clear();
        self.busy_ns = 0;
        self.fstrims = 0;
    }
}
