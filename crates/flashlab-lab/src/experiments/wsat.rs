//! `wsat`: SNIA PTS write saturation. From a purged (new) device, 4 KiB random writes over the
//! whole logical space (uniformly, repeats allowed) until 4x its capacity has been written,
//! with IOPS per interval: the
//! curve falls off the "write cliff" when the spare blocks run out and GC starts copying.

use crate::engine::{run_jobs_observed, JobSpec};
use crate::precondition::{Precondition, PreconditionReport};
use crate::system::{DeviceReport, SimSystem, SysError};
use crate::Error;
use flashlab_jobs::Rw;
use flashlab_results::body::WsatBody;
use flashlab_results::{Body, Document};
use flashlab_simfs::{FileId, FsConfig};
use flashsim::Profile;
use serde::Serialize;

/// What `flashlab wsat` asks for: write saturation on a new device of `profile`, brought into
/// the state `precondition` names first.
#[derive(Debug, Clone)]
pub struct WsatRun<'a> {
    /// How the target was named (`sim:toy`), for the document.
    pub target: &'a str,
    /// The device's profile.
    pub profile: &'a Profile,
    /// The filesystem made on it (wsat itself writes the raw device).
    pub fs: FsConfig,
    /// The device's history before the run.
    pub precondition: Precondition,
    /// Seed of the device and the workload.
    pub seed: u64,
    /// Capacities to write (1.0 = the logical capacity once).
    pub times: f64,
    /// Requests kept in flight (at least 1 is used).
    pub iodepth: u32,
    /// Intervals the run is measured in (at least 1 is used).
    pub intervals: u32,
}

/// What came out: the results document, and what the precondition did before the run.
pub struct WsatOutcome {
    /// The results document (`flashlab wsat --json`).
    pub document: Document,
    /// What the precondition did to the device before the run.
    pub precondition: PreconditionReport,
}

/// Run it, from settings to the results document; `progress` gets the fraction done.
pub fn run(r: &WsatRun, progress: impl FnMut(f64)) -> Result<WsatOutcome, Error> {
    // Write saturation writes the device at random, whatever the filesystem: never on zones.
    crate::precondition::refuse_zoned(r.profile)?;
    let (mut sys, pre) = crate::precondition::system(r.profile, r.seed, r.fs.clone(), r.precondition)
        .map_err(Error::within("precondition"))?;
    let result = run_wsat(&mut sys, r.times, r.iodepth.max(1), r.intervals.max(1), r.seed, progress)?;
    let mut body: WsatBody = flashlab_results::typed("wsat's results", &result)?;
    body.precondition = Some(serde_json::to_value(&pre)?);
    let document = Document::new(Body::Wsat(body))
        .target(r.target)
        .seed(r.seed)
        .profile(&r.profile.name, &r.profile.description)
        .param("iodepth", r.iodepth)
        .param("times", r.times)
        .param("intervals", r.intervals);
    Ok(WsatOutcome { document, precondition: pre })
}

/// One interval of a write-saturation run.
#[derive(Debug, Clone, Serialize)]
pub struct WsatInterval {
    /// Capacity written so far at the end of the interval (1.0 = the logical capacity once).
    pub(crate) capacity_written: f64,
    /// Virtual time at the end of the interval, seconds.
    pub(crate) at_s: f64,
    /// Write IOPS over the interval.
    pub(crate) iops: f64,
    /// Device write amplification over the interval.
    pub(crate) write_amplification: f64,
    /// Free physical blocks at the end of the interval.
    pub(crate) free_blocks: u64,
}

/// A write-saturation run (SNIA's WSAT): IOPS and write amplification over time.
#[derive(Debug, Clone, Serialize)]
pub struct WsatResult {
    /// Requests in flight.
    pub(crate) iodepth: u32,
    /// The device's logical capacity, bytes.
    pub(crate) capacity_bytes: u64,
    /// The intervals, in order.
    pub(crate) intervals: Vec<WsatInterval>,
    /// The device after the run.
    pub(crate) device: DeviceReport,
}

/// Run `times` x capacity of random writes at `iodepth`, in `intervals` equal slices.
pub fn run_wsat(
    sys: &mut SimSystem,
    times: f64,
    iodepth: u32,
    intervals: u32,
    seed: u64,
    mut progress: impl FnMut(f64),
) -> Result<WsatResult, SysError> {
    // The raw device, as the PTS prescribes: one extent over the whole logical space.
    let cap = sys.device().logical_bytes() / 4096 * 4096;
    let mut job = JobSpec::on_file("wsat", Rw::RandWrite, 4096, FileId::RAW, cap);
    job.settings.iodepth = iodepth;
    job.settings.seed = seed;
    // Uniform picks with repeats, as the PTS's random writes are (a once-per-pass random map
    // would make whole blocks expire together and the curve oscillate with the passes).
    job.settings.random_map = false;
    let total = ((cap as f64 * times) as u64 / 4096) * 4096;
    job.settings.io_limit = Some(total);
    let per = (total / 4096).div_ceil(u64::from(intervals.max(1)));
    let (mut ios, mut start, mut counters) = (0u64, sys.now(), sys.device().counters());
    let mut out = Vec::new();
    // The next interval boundary (a compare per I/O instead of a division).
    let mut mark = per;
    run_jobs_observed(sys, &[job], &mut progress, |c, sys| {
        ios += 1;
        if ios == mark {
            mark += per;
        }
        if ios + per == mark || ios * 4096 == total {
            let now = sys.device().counters();
            let n = ios - (out.len() as u64) * per;
            out.push(WsatInterval {
                capacity_written: (ios * 4096) as f64 / cap as f64,
                at_s: c.done as f64 / 1e9,
                iops: n as f64 * 1e9 / (c.done - start).max(1) as f64,
                write_amplification: now.since(&counters).write_amplification(),
                free_blocks: sys.device().state().free_blocks,
            });
            counters = now;
            start = c.done;
        }
    })?;
    Ok(WsatResult { iodepth, capacity_bytes: cap, intervals: out, device: sys.device_report() })
}
