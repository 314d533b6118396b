//! The classic write-amplification experiment (`flashlab sim waf`): sequential prefill of the
//! whole logical space, optionally TRIM a fraction of it, then uniform random 4 KiB writes over
//! the live part for a number of logical passes; write amplification is measured over the
//! second half of the random phase. It runs through the full device model, timing included,
//! on a one-die device whose NAND page is one 4 KiB unit, as the analytical models assume.
//!
//! The random writes follow fio's `random_distribution` (uniform by default; `zipf:0.9`,
//! `pareto:0.2`, `zoned:80/20:20/80`...), drawn by flashlab-jobs' sampler. With separation
//! on, the device places host data by temperature ([`flashsim::temperature`]): hot and cold
//! host frontiers plus one for GC copies; without it, host data and GC copies share one
//! frontier, as the analytical models of uniform traffic assume. See docs/hotcold.md.

use crate::rng::Rng;
use crate::Error;
use flashlab_jobs::distribution::{Distribution, Sampler};
use flashlab_jobs::IoDir;
use flashsim::profile::single_die;
use flashsim::temperature::{COLD_STREAM, HOT_STREAM};
use flashsim::{Device, GcPolicy, Op, Profile, Request, TemperatureMode, MAP_UNIT};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct WafConfig {
    /// Spare factor (physical - logical) / physical.
    pub spare: f64,
    /// NAND pages per erase block.
    pub pages_per_block: u32,
    /// Physical blocks.
    pub blocks: u32,
    /// Garbage-collection victim policy.
    pub policy: GcPolicy,
    /// Logical passes of random writes over the live space.
    pub passes: f64,
    /// Fraction of the logical space trimmed after the prefill.
    pub trimmed: f64,
    /// Seed of the random writes.
    pub seed: u64,
    /// Where the random writes go (fio's `random_distribution`).
    pub distribution: Distribution,
    /// Placement by temperature: off (one shared frontier), the host's hint (hot zones of a
    /// `zoned` distribution carry the hot stream) or the device's detector.
    pub separation: TemperatureMode,
    /// With separation: GC copies to a hot or a cold GC frontier by temperature.
    pub gc_by_temperature: bool,
}

impl Default for WafConfig {
    fn default() -> WafConfig {
        WafConfig {
            spare: 0.07,
            pages_per_block: 64,
            blocks: 8192,
            policy: GcPolicy::Greedy,
            passes: 8.0,
            trimmed: 0.0,
            seed: 1,
            distribution: Distribution::Random,
            separation: TemperatureMode::Off,
            gc_by_temperature: false,
        }
    }
}

/// Measured over the second half of the random phase.
#[derive(Debug, Clone, Serialize)]
pub struct WafResult {
    /// Spare factor (physical - logical) / physical.
    pub(crate) spare_factor: f64,
    /// NAND pages per erase block.
    pub(crate) pages_per_block: u32,
    /// Physical blocks.
    pub(crate) blocks: u32,
    /// Garbage-collection victim policy (`greedy`, `cost-benefit`, `fifo`, `random`).
    pub policy: &'static str,
    /// Logical passes of random writes over the live space.
    pub(crate) passes: f64,
    /// Fraction of the logical space trimmed after the prefill.
    pub(crate) trimmed: f64,
    /// Seed of the random writes.
    pub(crate) seed: u64,
    /// fio's spelling of the write distribution.
    pub distribution: String,
    /// `off`, `hint` or `detect`.
    pub separation: &'static str,
    /// GC copies placed by temperature too.
    pub gc_by_temperature: bool,
    /// Share of the measured host writes that went to the hot frontier (separation on).
    pub hot_write_share: Option<f64>,
    /// Logical pages of the device.
    pub logical_pages: u64,
    /// Pages still mapped after the trim (the live data).
    pub live_pages: u64,
    /// NAND programs per host write over the measured half.
    pub write_amplification: f64,
    /// Host pages written in the measured half.
    pub host_pages_written: u64,
    /// NAND pages programmed in the measured half (host and GC).
    pub nand_pages_programmed: u64,
    /// Valid pages garbage collection copied in the measured half.
    pub gc_pages_copied: u64,
    /// Blocks erased in the measured half.
    pub erases: u64,
    /// Virtual time the random phase took, seconds.
    pub simulated_seconds: f64,
}

/// The device `sim waf` runs on: one channel, one die, one plane, 4 KiB pages, GC keeping at
/// least two free blocks, GC copies sharing the host's write frontier.
/// With separation on: two host frontiers (cold, hot) and one for GC copies, and a write
/// buffer big enough for their open pages.
pub(crate) fn waf_profile(cfg: &WafConfig) -> Result<Profile, Error> {
    // The device's fields are the command's options.
    let flags = |e: flashsim::ProfileError| {
        let flag = match e.field.as_deref() {
            Some("ftl.spare_factor") => "--spare (with --blocks)".to_string(),
            Some("nand.blocks_per_plane") => "--blocks".to_string(),
            Some("nand.pages_per_block") => "--pages-per-block".to_string(),
            Some(other) => format!("sim waf options: field '{other}'"),
            None => "sim waf options".to_string(),
        };
        Error::Flag { flag, message: e.message }
    };
    let mut p = single_die(cfg.blocks, cfg.pages_per_block, cfg.spare, cfg.policy).map_err(flags)?;
    if cfg.separation != TemperatureMode::Off {
        p.ftl.host_streams = 2;
        p.ftl.separate_gc_frontier = true;
        p.ftl.write_buffer_kib = 32;
        p.ftl.temperature = cfg.separation;
        p.ftl.gc_by_temperature = cfg.gc_by_temperature;
        p.validate("single-die device").map_err(flags)?;
    }
    Ok(p)
}

/// The host's hint for a `zoned` distribution: block ranges of the write zones, and whether
/// each is hot (its share of writes at least twice its share of space: updated at least twice
/// as often as the average block, the detector's threshold too).
fn zone_hints(dist: &Distribution, n: u64) -> Result<Vec<(u64, u64, bool)>, Error> {
    let Distribution::Zoned(z) = dist else {
        return Err(Error::HintNeedsZones { distribution: dist.fio_spelling() });
    };
    let mut sp = 0u64;
    let mut out = Vec::new();
    for zone in z.for_dir(IoDir::Write) {
        let (start, end) = (sp * n / 100, (sp + u64::from(zone.size_pct)) * n / 100);
        out.push((start, end, zone.access_pct >= 2 * zone.size_pct));
        sp += u64::from(zone.size_pct);
    }
    Ok(out)
}

/// Read `sim waf`'s `--distribution` (fio's `random_distribution` spelling) and `--separate`
/// (`off`, `hint` or `detect`).
/// `hint-gc` and `detect-gc` also send GC copies to a hot or a cold GC frontier.
pub fn parse_workload(distribution: &str, separate: &str) -> Result<(Distribution, TemperatureMode, bool), Error> {
    let d = Distribution::parse(distribution, 1024)
        .map_err(|e| Error::Flag { flag: format!("--distribution '{distribution}'"), message: e.to_string() })?;
    let (mode, gc) = match separate.strip_suffix("-gc") {
        Some(m) if m != "off" => (m, true),
        _ => (separate, false),
    };
    let t = TemperatureMode::parse(mode).ok_or_else(|| Error::Flag {
        flag: format!("--separate '{separate}'"),
        message: "expected off, hint, detect, hint-gc or detect-gc".into(),
    })?;
    Ok((d, t, gc))
}

/// The LRW (FIFO) model's write amplification for this configuration's write distribution
/// ([`flashsim::analytic::waf_fifo_skewed`], Desnoyers TOS 2014), at the live spare factor;
/// `None` for distributions whose per-block rates have no closed form here (pareto, normal).
/// The model covers one shared log, with or without separate frontiers (a FIFO victim's age
/// does not depend on which frontier filled it).
pub fn lrw_model(cfg: &WafConfig) -> Option<f64> {
    let physical = f64::from(cfg.blocks) * f64::from(cfg.pages_per_block);
    let logical = (physical * (1.0 - cfg.spare)).floor();
    let live = (logical - (logical * cfg.trimmed).floor()).max(1.0);
    let sf = 1.0 - live / physical;
    let rates: Vec<(f64, f64)> = match &cfg.distribution {
        Distribution::Random => vec![(1.0, 1.0)],
        Distribution::Zipf { theta, .. } => flashsim::analytic::zipf_rates(*theta, live as u64),
        Distribution::Zoned(z) => z
            .for_dir(IoDir::Write)
            .iter()
            .filter(|z| z.size_pct > 0)
            .map(|z| (f64::from(z.size_pct) / 100.0, f64::from(z.access_pct) / f64::from(z.size_pct)))
            .collect(),
        _ => return None,
    };
    Some(flashsim::analytic::waf_fifo_skewed(sf, &rates))
}

/// Run the experiment; `progress` gets the fraction done now and then.
pub fn run_waf(cfg: &WafConfig, mut progress: impl FnMut(f64)) -> Result<WafResult, Error> {
    if !(cfg.trimmed >= 0.0 && cfg.trimmed < 1.0) {
        return Err(Error::Flag {
            flag: "--trimmed".into(),
            message: format!("must be in [0, 1), got {}", cfg.trimmed),
        });
    }
    if !(cfg.passes > 0.0 && cfg.passes <= 1000.0) {
        return Err(Error::Flag {
            flag: "--passes".into(),
            message: format!("must be in (0, 1000], got {}", cfg.passes),
        });
    }
    let profile = waf_profile(cfg)?;
    let mut dev = crate::system::new_device(&profile, cfg.seed);
    let logical = dev.logical_bytes() / MAP_UNIT;
    let mut now = 0;
    let write = |dev: &mut Device, now: &mut u64, lpn: u64, stream: u32| {
        let r = Request { stream, ..Request::new(Op::Write, lpn * MAP_UNIT, MAP_UNIT) };
        *now = dev.submit(*now, &r).expect("in range").done;
    };
    for lpn in 0..logical {
        write(&mut dev, &mut now, lpn, COLD_STREAM);
    }
    let trimmed = (logical as f64 * cfg.trimmed).floor() as u64;
    if trimmed > 0 {
        now = dev.submit(now, &Request::new(Op::Trim, 0, trimmed * MAP_UNIT)).expect("in range").done;
    }
    let live = logical - trimmed;
    let total = (live as f64 * cfg.passes).round() as u64;
    let half = total / 2;
    // Uniform writes keep the experiment's own generator (its numbers stay as they were).
    let mut rng = Rng::new(cfg.seed);
    let mut xo = Xoshiro256PlusPlus::seed_from_u64(cfg.seed);
    let sampler = if cfg.distribution.is_uniform() {
        None
    } else {
        Some(
            Sampler::new(&cfg.distribution, IoDir::Write, live, MAP_UNIT, &mut xo)
                .map_err(|e| Error::Flag { flag: "--distribution".into(), message: e.to_string() })?,
        )
    };
    let hints = match cfg.separation {
        TemperatureMode::Hint => zone_hints(&cfg.distribution, live)?,
        _ => Vec::new(),
    };
    let stream_of = |block: u64| -> u32 {
        match hints.iter().find(|&&(s, e, _)| block >= s && block < e) {
            Some(&(_, _, true)) => HOT_STREAM,
            _ => COLD_STREAM,
        }
    };
    let (mut mid, mut t_mid) = (dev.counters(), now);
    let mut split_mid = dev.temperature_split();
    let (mut hot, mut cold) = (0u64, 0u64);
    let step = (total / 100).max(1);
    // The units are drawn three writes ahead, so that the device fetches their mapping entries
    // meanwhile (`Device::prefetch`); the sequence is the same.
    let draw = |rng: &mut Rng, xo: &mut Xoshiro256PlusPlus| match &sampler {
        None => rng.below(live),
        Some(s) => s.next(xo),
    };
    let mut ahead = [draw(&mut rng, &mut xo), draw(&mut rng, &mut xo), draw(&mut rng, &mut xo)];
    let mut next_progress = 0;
    for i in 0..total {
        if i == half {
            mid = dev.counters();
            t_mid = now;
            split_mid = dev.temperature_split();
            (hot, cold) = (0, 0);
        }
        if i == next_progress {
            progress(i as f64 / total as f64);
            next_progress += step;
        }
        let block = ahead[0];
        ahead = [ahead[1], ahead[2], draw(&mut rng, &mut xo)];
        dev.prefetch((trimmed + ahead[2]) * MAP_UNIT);
        let stream = stream_of(block);
        if stream == HOT_STREAM {
            hot += 1;
        } else {
            cold += 1;
        }
        write(&mut dev, &mut now, trimmed + block, stream);
    }
    progress(1.0);
    let hot_write_share = match (cfg.separation, dev.temperature_split(), split_mid) {
        (TemperatureMode::Off, _, _) => None,
        (_, Some((h1, c1)), Some((h0, c0))) => Some((h1 - h0) as f64 / ((h1 - h0) + (c1 - c0)).max(1) as f64),
        _ => Some(hot as f64 / (hot + cold).max(1) as f64),
    };
    let c = dev.counters().since(&mid);
    Ok(WafResult {
        spare_factor: cfg.spare,
        pages_per_block: cfg.pages_per_block,
        blocks: cfg.blocks,
        policy: cfg.policy.name(),
        passes: cfg.passes,
        trimmed: cfg.trimmed,
        seed: cfg.seed,
        distribution: cfg.distribution.fio_spelling(),
        separation: cfg.separation.name(),
        gc_by_temperature: cfg.gc_by_temperature,
        hot_write_share,
        logical_pages: logical,
        live_pages: live,
        write_amplification: c.write_amplification(),
        host_pages_written: c.host_units_written,
        nand_pages_programmed: c.nand_units_programmed,
        gc_pages_copied: c.gc_units_copied,
        erases: c.erases,
        simulated_seconds: (now - t_mid) as f64 / 1e9,
    })
}
