//! `fill`: fill all free space of a new simulated system with 4 KiB random writes (each block
//! once, in random order, queue depth 1) and report write latency percentiles for every tenth
//! of the fill — the way phone storage was compared in public blog posts.

use crate::engine::{run_jobs_observed, JobSpec};
use crate::system::{DeviceReport, SimSystem, SysError};
use flashlab_jobs::Rw;
use flashlab_measure::{LatencyHistogram, LatencySummary};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct FillDecile {
    /// Fill level at the end of this slice, percent of the space written.
    pub filled_pct: u32,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    /// p99.9 and p99.99 (clamped to the exact range: max >= p99.99 >= p99.9 >= p99).
    pub p999_us: f64,
    pub p9999_us: f64,
    /// Exact largest and mean latency of the slice.
    pub max_us: f64,
    pub mean_us: f64,
    pub mbs: f64,
    /// Device write amplification within this slice.
    pub write_amplification: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FillResult {
    pub bytes: u64,
    pub deciles: Vec<FillDecile>,
    pub device: DeviceReport,
}

pub const FILL_FILE: &str = "flashlab-fill-random.tmp";

pub fn run_fill(
    sys: &mut SimSystem,
    iodepth: u32,
    seed: u64,
    mut progress: impl FnMut(f64),
) -> Result<FillResult, SysError> {
    let size = sys.fs.free_bytes() / 4096 * 4096;
    let file = sys.create(FILL_FILE, size)?;
    let mut job = JobSpec::on_file("fill", Rw::RandWrite, 4096, file, size);
    job.iodepth = iodepth;
    job.seed = seed;
    let slice = size.div_ceil(10);
    let mut hist = LatencyHistogram::new();
    let mut deciles = Vec::new();
    let (mut done_bytes, mut slice_start) = (0u64, sys.now);
    let mut counters = sys.dev.counters();
    run_jobs_observed(sys, &[job], &mut progress, |c, sys| {
        hist.record(c.done - c.submitted);
        done_bytes += c.bytes;
        if done_bytes >= slice * (deciles.len() as u64 + 1) || done_bytes == size {
            let secs = (c.done - slice_start) as f64 / 1e9;
            let bytes = done_bytes - slice * deciles.len() as u64;
            let now = sys.dev.counters();
            let l = LatencySummary::of(&hist);
            deciles.push(FillDecile {
                filled_pct: (done_bytes * 100 / size) as u32,
                p50_us: l.p50_us,
                p90_us: l.p90_us,
                p99_us: l.p99_us,
                p999_us: l.p999_us,
                p9999_us: l.p9999_us,
                max_us: l.max_us,
                mean_us: l.mean_us,
                mbs: if secs > 0.0 { bytes as f64 / secs / 1e6 } else { 0.0 },
                write_amplification: now.since(&counters).write_amplification(),
            });
            counters = now;
            hist.clear();
            slice_start = c.done;
        }
    })?;
    Ok(FillResult { bytes: size, deciles, device: sys.device_report() })
}
