//! A life run: the usage model drives the simulated system hour by hour for the whole
//! duration, the trim policy is consulted every hour, battery and charger follow the day cycle,
//! and a [`Sample`] is taken every sampling interval (a probe every few samples).

use crate::error::{LifeError, SimError};
use crate::policy::{Moment, Policy, DAY, HOUR};
use crate::probe::{run_probe, ProbeConfig, ProbeResult};
use crate::series::{cycles_used, default_pe_cycles, project, Sample};
use crate::usage::Usage;
use crate::workload::{AppStats, Workload};
use flashlab_lab::system::SimSystem;
use flashlab_measure::LatencyHistogram;
use flashlab_simfs::FsConfig;
use flashsim::{Counters, Ns, Profile};
use serde::Serialize;

/// What a life run simulates: the trim policy, how long, the seed, sampling and probing.
#[derive(Debug, Clone)]
pub struct LifeConfig {
    /// When the filesystem is trimmed.
    pub policy: Policy,
    /// Virtual time to simulate, in nanoseconds.
    pub duration_ns: Ns,
    /// Seed of every random choice (same seed, same run).
    pub seed: u64,
    /// Take a sample every this many days (at the end of the day).
    pub sample_days: u32,
    /// Run the probe at every this many samples (0 = never); the last sample always has one.
    pub probe_every: u32,
    /// P/E-cycle budget per block (`None`: by the profile's cell type).
    pub pe_cycles: Option<u32>,
    /// The probe's size (`None`: sized for the device, [`ProbeConfig::for_device`]).
    pub probe: Option<ProbeConfig>,
}

impl LifeConfig {
    /// A run of `duration_ns` with `policy`: a sample a day, a probe every 7 samples.
    pub fn new(policy: Policy, duration_ns: Ns, seed: u64) -> LifeConfig {
        LifeConfig { policy, duration_ns, seed, sample_days: 1, probe_every: 7, pe_cycles: None, probe: None }
    }
}

/// What a run produced: its parameters, the time series and the totals.
#[derive(Debug, Clone, Serialize)]
pub struct LifeResult {
    /// The usage model's name.
    pub workload: String,
    /// The trim policy's name.
    pub policy: String,
    /// The device profile's name.
    pub profile: String,
    /// The seed the run used.
    pub seed: u64,
    /// Virtual days simulated.
    pub days: f64,
    /// P/E-cycle budget per block used for the projections.
    pub pe_cycles: u32,
    /// The random-write probe's size.
    pub probe: ProbeConfig,
    /// The time series, one sample per interval.
    pub samples: Vec<Sample>,
    /// What the applications did over the whole run.
    pub app: AppStats,
    /// Virtual seconds of the whole run.
    pub virtual_s: f64,
}

impl LifeResult {
    /// The last sample (a run has at least one).
    pub fn last(&self) -> &Sample {
        self.samples.last().expect("a run has at least one sample")
    }
    /// The last sample that has a probe.
    pub fn last_probe(&self) -> Option<&crate::probe::ProbeResult> {
        self.samples.iter().rev().find_map(|s| s.probe.as_ref())
    }

    /// The probes of the run's last four weeks, averaged (one probe is one moment; a few
    /// say how the device is at the end): (MB/s, p99 us, p99.9 us, how many).
    pub fn final_probes(&self) -> Option<(f64, f64, f64, usize)> {
        let from = self.days - 28.0;
        let ps: Vec<_> = self.samples.iter().filter(|s| s.day > from).filter_map(|s| s.probe).collect();
        if ps.is_empty() {
            return None;
        }
        let n = ps.len() as f64;
        let mean = |f: &dyn Fn(&crate::probe::ProbeResult) -> f64| ps.iter().map(f).sum::<f64>() / n;
        Some((mean(&|p| p.rand_write_mbs), mean(&|p| p.p99_us), mean(&|p| p.p999_us), ps.len()))
    }
}

/// Samples the device and filesystem; shared with trace replay.
pub(crate) struct Sampler {
    pub pe: u32,
    pub probe: ProbeConfig,
    pub seed: u64,
    pub prev: Counters,
    pub fstrims: u64,
    pub trimmed_bytes: u64,
    pub count: u64,
    pub probes: u64,
}

impl Sampler {
    pub fn new(
        sim: &SimSystem,
        pe_cycles: Option<u32>,
        probe: Option<ProbeConfig>,
        max_fill: f64,
        seed: u64,
    ) -> Sampler {
        let cell = format!("{:?}", sim.device().profile().nand.cell).to_lowercase();
        Sampler {
            pe: pe_cycles.unwrap_or_else(|| default_pe_cycles(&cell)),
            probe: probe.unwrap_or_else(|| ProbeConfig::for_device(sim, max_fill)),
            seed,
            prev: sim.device().counters(),
            fstrims: 0,
            trimmed_bytes: 0,
            count: 0,
            probes: 0,
        }
    }

    /// The run's result: `samples` and `app` under a header taken from this sampler and
    /// `sim` (profile, seed, P/E-cycle budget, probe size; days and virtual seconds from the
    /// simulated clock now).
    pub fn finish(
        self,
        sim: &SimSystem,
        workload: String,
        policy: String,
        samples: Vec<Sample>,
        app: AppStats,
    ) -> LifeResult {
        let end = sim.now();
        LifeResult {
            workload,
            policy,
            profile: sim.device().profile().name.clone(),
            seed: self.seed,
            days: end as f64 / DAY as f64,
            pe_cycles: self.pe,
            probe: self.probe,
            samples,
            app,
            virtual_s: end as f64 / 1e9,
        }
    }

    /// Run the probe now (on a copy of `sim`).
    pub fn probe_now(&mut self, sim: &SimSystem) -> Result<ProbeResult, LifeError> {
        self.probes += 1;
        run_probe(sim, &self.probe, self.seed.wrapping_add(self.probes))
    }

    /// A sample of `sim` now, with the probe result of the interval if one ran.
    pub fn sample(
        &mut self,
        sim: &SimSystem,
        day: f64,
        probe: Option<ProbeResult>,
        lat: Option<(&LatencyHistogram, &LatencyHistogram)>,
    ) -> Result<Sample, LifeError> {
        let c = sim.device().counters();
        let st = sim.device().state();
        let d = c.since(&self.prev);
        self.prev = c;
        self.count += 1;
        let valid = st.valid_units * flashsim::MAP_UNIT;
        let nand_bytes = c.nand_units_programmed * flashsim::MAP_UNIT;
        let used = cycles_used(nand_bytes, st.physical_units * flashsim::MAP_UNIT, st.wear.mean_erases);
        let (lifetime, worst, ptbw) = project(day, used, st.wear.max_erases, self.pe, c.host_write_bytes);
        let pct = |h: &LatencyHistogram, p: f64| (!h.is_empty()).then(|| h.percentile(p) as f64 / 1e3);
        let mean = |h: &LatencyHistogram| (!h.is_empty()).then(|| h.mean() / 1e3);
        Ok(Sample {
            day,
            host_write_bytes: c.host_write_bytes,
            nand_write_bytes: c.nand_units_programmed * flashsim::MAP_UNIT,
            waf: c.write_amplification(),
            waf_interval: d.write_amplification(),
            fs_used_bytes: sim.fs().used_bytes(),
            fs_capacity_bytes: sim.fs().capacity(),
            device_valid_bytes: valid,
            logical_bytes: sim.device().logical_bytes(),
            deleted_valid_bytes: valid.saturating_sub(sim.fs().used_bytes()),
            free_blocks: st.free_blocks,
            total_blocks: st.total_blocks,
            erases_mean: st.wear.mean_erases,
            erases_max: st.wear.max_erases,
            erases_min: st.wear.min_erases,
            fstrims: self.fstrims,
            trimmed_bytes: self.trimmed_bytes,
            app_write_p99_us: lat.and_then(|(w, _)| pct(w, 99.0)),
            app_write_p999_us: lat.and_then(|(w, _)| pct(w, 99.9)),
            app_write_mean_us: lat.and_then(|(w, _)| mean(w)),
            fsync_p99_us: lat.and_then(|(_, f)| pct(f, 99.0)),
            fsync_mean_us: lat.and_then(|(_, f)| mean(f)),
            probe,
            lifetime_years: lifetime,
            lifetime_years_worst_block: worst,
            tbw_tb: c.host_write_bytes as f64 / 1e12,
            projected_tbw_tb: ptbw,
        })
    }
}

/// The simulated system of a life run: a new device of `profile` with an empty filesystem of
/// the profile's kind (its `[system]` table: ext4 on the Nexus 7, F2FS on the Moto X, the
/// data-extents-only `plain` model otherwise); `discard` mounts it with online discard (the
/// trim policy's). Errors name a bad `[system]` table of the profile.
pub(crate) fn system(profile: &Profile, seed: u64, discard: bool) -> Result<SimSystem, SimError> {
    flashlab_lab::precondition::refuse_zoned(profile)?;
    let mut fs = FsConfig::from_profile(profile, &profile.name).map_err(SimError::Config)?;
    fs.discard |= discard;
    Ok(SimSystem::with_fs(profile, seed, fs))
}

/// Run `usage` on a new device of `profile` under `cfg`. `progress` gets the fraction done.
pub fn run_life(
    profile: &Profile,
    usage: &Usage,
    cfg: &LifeConfig,
    mut progress: impl FnMut(f64),
) -> Result<LifeResult, LifeError> {
    let mut sim = system(profile, cfg.seed, cfg.policy.mount_discard())?;
    let mut work = Workload::new(usage, cfg.seed);
    work.setup(&mut sim).map_err(LifeError::sim("base data (day 0)"))?;
    let mut sampler = Sampler::new(&sim, cfg.pe_cycles, cfg.probe, usage.keep_fill, cfg.seed);
    let day_cycle = &usage.day;
    let days = cfg.duration_ns.div_ceil(DAY).max(1);
    let sessions = u64::from(day_cycle.sessions);
    let active_ns = u64::from(day_cycle.active_hours()) * HOUR;
    let first_session = u64::from(day_cycle.active_start_h) * HOUR;
    let mut battery: f64 = 100.0;
    let mut last_io: Ns = sim.now();
    let mut last_trim: Option<Ns> = None;
    let start: Ns = 0;
    let mut samples = Vec::new();
    let mut lat = LatencyHistogram::new();
    let mut fsync_lat = LatencyHistogram::new();
    // The last probe's mean latency until the policy has seen it, and the first probe's.
    let mut probe_mean: Option<Ns> = None;
    let mut first_probe_mean: Option<Ns> = None;
    let mut probe: Option<ProbeResult> = None;
    for day in 0..days {
        let day_start = day * DAY;
        let mut next_session = 0u64;
        // Does today's sample get a probe? It runs at noon, away from the policies' night-time
        // trims, so that every policy is probed at the same distance from its own.
        let last = day + 1 == days;
        let sampled = (day + 1) % u64::from(cfg.sample_days.max(1)) == 0 || last;
        let n = samples.len() as u64 + 1;
        let probe_today =
            sampled && (last || n == 1 || (cfg.probe_every > 0 && n.is_multiple_of(u64::from(cfg.probe_every))));
        for hour in 0..24u32 {
            let tick_start = day_start + u64::from(hour) * HOUR;
            let tick_end = tick_start + HOUR;
            while next_session < sessions {
                let at = day_start + first_session + next_session * active_ns / sessions;
                if at >= tick_end {
                    break;
                }
                sim.idle_until(at);
                work.session(&mut sim).map_err(LifeError::sim(format!("day {day}")))?;
                last_io = sim.now();
                next_session += 1;
            }
            sim.idle_until(tick_end);
            if probe_today && hour == 12 {
                let p = sampler.probe_now(&sim)?;
                let ns = (p.mean_us * 1e3) as Ns;
                probe_mean = Some(ns);
                first_probe_mean.get_or_insert(ns);
                probe = Some(p);
            }
            let charging = day_cycle.charging_at(hour);
            battery = if charging {
                (battery + day_cycle.charge_pct_per_h).min(100.0)
            } else {
                (battery - day_cycle.drain_pct_per_h).max(0.0)
            };
            if hour == 23 {
                let (w, f) = work.take_latency();
                lat.merge(&w);
                fsync_lat.merge(&f);
            }
            let now = tick_end.max(sim.now());
            let m = Moment {
                now,
                last_io,
                last_trim,
                battery_pct: battery,
                charging,
                probe_mean_ns: probe_mean.take(),
                first_probe_mean_ns: first_probe_mean,
            };
            if cfg.policy.wants_fstrim(&m, start) {
                sim.idle_until(now);
                let bytes = sim.fstrim().map_err(LifeError::sim(format!("day {day}: fstrim")))?;
                last_trim = Some(now);
                sampler.fstrims += 1;
                sampler.trimmed_bytes += bytes;
            }
        }
        if sampled {
            let s = sampler.sample(&sim, (day + 1) as f64, probe.take(), Some((&lat, &fsync_lat)))?;
            lat.clear();
            fsync_lat.clear();
            samples.push(s);
        }
        progress((day + 1) as f64 / days as f64);
    }
    // Days as the whole days simulated (the clock may have run a little past the last one).
    Ok(LifeResult {
        days: days as f64,
        ..sampler.finish(&sim, usage.name.clone(), cfg.policy.name(), samples, work.stats)
    })
}
