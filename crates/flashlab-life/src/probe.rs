//! The periodic random-write probe: the random-write corner of the four-corner test, made cheap.
//! It runs on a copy of the simulated system ([`random_writes`]), so its writes
//! neither wear the device nor enter the run's counters (WAF, TBW, lifetime); what it wrote and
//! caused on the copy is reported beside its result.
//!
//! Sizing: what the device's background GC keeps free (its target per die, times the dies)
//! decides it. The test file is four times that (at least 4 MiB, at most half the space the
//! usage model leaves free) and is written sequentially first, as AndroBench does; then twice
//! that much is written at random. A device that holds deleted data as valid then has to copy it
//! to make room (foreground GC); a trimmed one erases blocks with nothing valid in them.

use crate::error::{LifeError, SimError};
use flashlab_lab::rng::Rng;
use flashlab_lab::system::SimSystem;
use flashlab_measure::LatencyHistogram;
use flashsim::{Ns, Op};
use serde::Serialize;

/// The random-write probe's size, in bytes: a file of `span`, `bytes` of 4 KiB writes in it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ProbeConfig {
    /// Size of the probe's file, in bytes.
    pub span: u64,
    /// Bytes of 4 KiB random writes at queue depth 1 in that file.
    pub bytes: u64,
}

impl ProbeConfig {
    /// The probe for this device, with the filesystem kept at most `max_fill` full.
    pub(crate) fn for_device(sim: &SimSystem, max_fill: f64) -> ProbeConfig {
        let st = sim.device().state();
        let dies = u64::from(sim.device().profile().nand.channels * sim.device().profile().nand.dies_per_channel);
        let block_bytes = st.physical_units / st.total_blocks.max(1) * flashsim::MAP_UNIT;
        let bg_free = u64::from(sim.device().profile().ftl.bg_gc_target_free_blocks) * dies * block_bytes;
        let room = (sim.fs().capacity() as f64 * (1.0 - max_fill) / 2.0) as u64;
        let span = (4 * bg_free).min(room).max(4 << 20) / (1 << 20) * (1 << 20);
        let bytes = (2 * bg_free).max(4 << 20) / 4096 * 4096;
        ProbeConfig { span, bytes }
    }
}

/// One probe's result. MB/s = 10^6 bytes/s.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ProbeResult {
    /// Random-write throughput, MB/s (10^6 bytes/s).
    pub rand_write_mbs: f64,
    /// Mean 4 KiB write latency, µs.
    pub mean_us: f64,
    /// Median 4 KiB write latency, µs.
    pub p50_us: f64,
    /// 99th-percentile 4 KiB write latency, µs.
    pub p99_us: f64,
    /// 99.9th percentile and maximum: where garbage-collection stalls show when they hit
    /// fewer than 1 % of the writes.
    pub p999_us: f64,
    /// Largest 4 KiB write latency, µs.
    pub max_us: f64,
    /// Host and NAND bytes the probe wrote on its copy of the system.
    pub probe_host_bytes: u64,
    /// NAND bytes the probe caused (GC copies included).
    pub probe_nand_bytes: u64,
}

pub(crate) fn run_probe(sim: &SimSystem, cfg: &ProbeConfig, seed: u64) -> Result<ProbeResult, LifeError> {
    let r = random_writes(sim, cfg.span, cfg.bytes, seed).map_err(LifeError::sim("probe"))?;
    Ok(ProbeResult {
        rand_write_mbs: r.bytes as f64 / (r.elapsed_ns.max(1) as f64 / 1e9) / 1e6,
        mean_us: r.latency.mean() / 1e3,
        p50_us: r.latency.percentile(50.0) as f64 / 1e3,
        p99_us: r.latency.percentile(99.0) as f64 / 1e3,
        p999_us: r.latency.percentile(99.9) as f64 / 1e3,
        max_us: r.latency.max() as f64 / 1e3,
        probe_host_bytes: r.host_bytes,
        probe_nand_bytes: r.nand_bytes,
    })
}

/// What a random-write probe measured.
#[derive(Debug, Clone)]
struct ProbeRun {
    /// Bytes of 4 KiB random writes and the virtual time they took.
    bytes: u64,
    elapsed_ns: Ns,
    latency: LatencyHistogram,
    /// Host bytes the whole probe wrote (the sequential write of its file included) and the
    /// NAND bytes it caused (GC copies included).
    host_bytes: u64,
    nand_bytes: u64,
}

/// The random-write probe, on a copy of `sys` so that it neither wears the device nor moves
/// its counters: a `span`-byte file written sequentially (512 KiB requests), then `bytes` of
/// 4 KiB random writes at queue depth 1 inside it. When the filesystem is too full for the
/// file, it is made smaller (half the free space); below 1 MiB it is an error.
fn random_writes(sys: &SimSystem, span: u64, bytes: u64, seed: u64) -> Result<ProbeRun, SimError> {
    const NAME: &str = "flashlab-life-probe.tmp";
    const BS: u64 = 4096;
    let free = sys.fs().free_bytes();
    let span = span.min(free / 2 / BS * BS);
    if span < 1 << 20 {
        return Err(SimError::NoRoomForProbe { free });
    }
    let mut s = sys.clone();
    let before = s.device().counters();
    let file = s.create(NAME, span)?;
    let mut off = 0;
    while off < span {
        let l = (512 << 10).min(span - off);
        s.io_now(file, Op::Write, off, l)?;
        off += l;
    }
    let mut rng = Rng::new(seed);
    let mut latency = LatencyHistogram::new();
    let blocks = span / BS;
    let start = s.now();
    let mut done = 0;
    while done < bytes {
        let c = s.io_now(file, Op::Write, rng.below(blocks) * BS, BS)?;
        latency.record(c.latency());
        done += BS;
    }
    let elapsed_ns = s.now() - start;
    let d = s.device().counters().since(&before);
    Ok(ProbeRun {
        bytes,
        elapsed_ns,
        latency,
        host_bytes: d.host_write_bytes,
        nand_bytes: d.nand_units_programmed * flashsim::MAP_UNIT,
    })
}
