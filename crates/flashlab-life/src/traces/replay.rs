//! Replaying a parsed trace on a new simulated device. Timestamps honoured: each request
//! arrives at its trace time (requests overlap and queue as they did). Compressed
//! (`--compress-time`): each request is issued when the previous one completes, so idle gaps
//! vanish (and with them the device's idle-time garbage collection).
//!
//! Offsets past the device's end are folded into it (modulo its capacity, kept whole), so a
//! trace of a larger disk still lands on the simulated one; how many were folded is reported.
//! Samples are taken every `sample_ns` of virtual time in which requests arrive, at most two
//! per gap between requests, and at the end.

use super::TraceOp;
use crate::error::LifeError;
use crate::runner::{LifeResult, Sampler};
use crate::workload::AppStats;
use flashlab_lab::system::SimSystem;
use flashlab_measure::LatencyHistogram;
use flashsim::{Ns, Op, Profile};

/// How a trace is replayed: timing, sampling, seed, P/E budget.
#[derive(Debug, Clone)]
pub struct ReplayConfig {
    /// Issue each request when the previous one completes, ignoring the trace's gaps.
    pub compress_time: bool,
    /// Virtual time between two samples, in nanoseconds.
    pub sample_ns: Ns,
    /// A probe at every this many samples (0 = only at the end).
    pub probe_every: u32,
    /// Seed of the simulated device.
    pub seed: u64,
    /// P/E-cycle budget per block (`None`: by the profile's cell type).
    pub pe_cycles: Option<u32>,
}

/// What the replay did besides the samples.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct ReplayStats {
    /// Requests replayed.
    pub requests: u64,
    /// Requests whose offset was past the device's end, folded into it.
    pub folded: u64,
}

/// Replays `ops` (the trace `name`) on a new simulated device of `profile`, sampling as a life run does.
pub fn replay(
    profile: &Profile,
    name: &str,
    ops: &[TraceOp],
    cfg: &ReplayConfig,
    mut progress: impl FnMut(f64),
) -> Result<(LifeResult, ReplayStats), LifeError> {
    let mut sim = crate::runner::system(profile, cfg.seed, false)?;
    let mut sampler = Sampler::new(&sim, cfg.pe_cycles, None, 0.0, cfg.seed);
    let cap = sim.device().logical_bytes();
    let mut stats = ReplayStats::default();
    let mut samples = Vec::new();
    let mut lat = LatencyHistogram::new();
    let none = LatencyHistogram::new();
    let mut next_sample = cfg.sample_ns.max(1);
    let mut prev_done: Ns = 0;
    let mut app = AppStats::default();
    let n = ops.len().max(1);
    let take = |sim: &mut SimSystem,
                sampler: &mut Sampler,
                lat: &mut LatencyHistogram,
                samples: &mut Vec<_>,
                at: Ns,
                last: bool| {
        let k = samples.len() as u64 + 1;
        let with_probe = last || (cfg.probe_every > 0 && k.is_multiple_of(u64::from(cfg.probe_every)));
        let probe = if with_probe { Some(sampler.probe_now(sim)?) } else { None };
        let s = sampler.sample(sim, at as f64 / crate::policy::DAY as f64, probe, Some((&*lat, &none)))?;
        lat.clear();
        samples.push(s);
        Ok::<(), LifeError>(())
    };
    for (i, o) in ops.iter().enumerate() {
        let t = if cfg.compress_time { prev_done.max(sim.now()) } else { o.t_ns };
        let step = cfg.sample_ns.max(1);
        if t >= next_sample {
            sim.idle_until(next_sample);
            take(&mut sim, &mut sampler, &mut lat, &mut samples, next_sample, false)?;
            next_sample = next_sample.saturating_add(step);
            // A gap in the trace: one more sample at its last boundary, not one per interval
            // across it (a gap of years used to take hours of sampling).
            if t >= next_sample {
                let last = next_sample + (t - next_sample) / step * step;
                sim.idle_until(last);
                take(&mut sim, &mut sampler, &mut lat, &mut samples, last, false)?;
                next_sample = last.saturating_add(step);
            }
        }
        let (off, len) = if o.op == Op::Flush {
            (0, 0)
        } else {
            let len = o.len.min(cap) / 512 * 512;
            let len = len.max(512);
            let mut off = o.offset / 512 * 512;
            if off + len > cap {
                stats.folded += 1;
                off = (off % cap) / 512 * 512;
                if off + len > cap {
                    off = cap - len;
                }
            }
            (off, len)
        };
        let c = sim.block_io(t, o.op, off, len).map_err(LifeError::sim(format!("trace {name}, request {}", i + 1)))?;
        match o.op {
            Op::Write => {
                lat.record(c.latency());
                app.write_bytes += len;
            }
            Op::Read => app.read_bytes += len,
            Op::Flush => app.fsyncs += 1,
            Op::Trim => {}
        }
        prev_done = c.done;
        stats.requests += 1;
        if i % 4096 == 0 {
            progress(i as f64 / n as f64);
        }
    }
    let end = sim.now();
    take(&mut sim, &mut sampler, &mut lat, &mut samples, end.max(1), true)?;
    progress(1.0);
    Ok((sampler.finish(&sim, format!("trace {name}"), "trace (its own discards only)".into(), samples, app), stats))
}
