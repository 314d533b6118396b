//! The periodic random-write probe: the random-write corner of the four-corner test, made cheap.
//! It runs on a copy of the simulated system ([`crate::sim_adapter::Sim::probe`]), so its writes
//! neither wear the device nor enter the run's counters (WAF, TBW, lifetime); what it wrote and
//! caused on the copy is reported beside its result.
//!
//! Sizing: what the device's background GC keeps free (its target per die, times the dies)
//! decides it. The test file is four times that (at least 4 MiB, at most half the space the
//! usage model leaves free) and is written sequentially first, as AndroBench does; then twice
//! that much is written at random. A device that holds deleted data as valid then has to copy it
//! to make room (foreground GC); a trimmed one erases blocks with nothing valid in them.

use crate::error::LifeError;
use crate::sim_adapter::Sim;
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
    pub(crate) fn for_device(sim: &Sim, max_fill: f64) -> ProbeConfig {
        let st = sim.state();
        let dies = u64::from(sim.profile().nand.channels * sim.profile().nand.dies_per_channel);
        let block_bytes = st.physical_units / st.total_blocks.max(1) * flashsim::MAP_UNIT;
        let bg_free = u64::from(sim.profile().ftl.bg_gc_target_free_blocks) * dies * block_bytes;
        let room = (sim.fs_capacity() as f64 * (1.0 - max_fill) / 2.0) as u64;
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

pub(crate) fn run_probe(sim: &Sim, cfg: &ProbeConfig, seed: u64) -> Result<ProbeResult, LifeError> {
    let r = sim.probe(cfg.span, cfg.bytes, seed).map_err(LifeError::sim("probe"))?;
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
