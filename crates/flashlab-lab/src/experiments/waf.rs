//! The classic write-amplification experiment (`flashlab sim waf`): sequential prefill of the
//! whole logical space, optionally TRIM a fraction of it, then uniform random 4 KiB writes over
//! the live part for a number of logical passes; write amplification is measured over the
//! second half of the random phase. It runs through the full device model, timing included,
//! on a one-die device whose NAND page is one 4 KiB unit, as the analytical models assume.

use crate::rng::Rng;
use flashsim::profile::single_die;
use flashsim::{Device, GcPolicy, Op, Profile, Request, MAP_UNIT};
use serde::Serialize;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct WafConfig {
    /// Spare factor (physical - logical) / physical.
    pub spare: f64,
    pub pages_per_block: u32,
    /// Physical blocks.
    pub blocks: u32,
    pub policy: GcPolicy,
    /// Logical passes of random writes over the live space.
    pub passes: f64,
    /// Fraction of the logical space trimmed after the prefill.
    pub trimmed: f64,
    pub seed: u64,
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
        }
    }
}

/// Measured over the second half of the random phase.
#[derive(Debug, Clone, Serialize)]
pub struct WafResult {
    pub spare_factor: f64,
    pub pages_per_block: u32,
    pub blocks: u32,
    pub policy: &'static str,
    pub passes: f64,
    pub trimmed: f64,
    pub seed: u64,
    pub logical_pages: u64,
    pub live_pages: u64,
    pub write_amplification: f64,
    pub host_pages_written: u64,
    pub nand_pages_programmed: u64,
    pub gc_pages_copied: u64,
    pub erases: u64,
    /// Virtual time the random phase took, seconds.
    pub simulated_seconds: f64,
}

/// The device `sim waf` runs on: one channel, one die, one plane, 4 KiB pages, GC keeping at
/// least two free blocks, GC copies sharing the host's write frontier.
pub fn waf_profile(cfg: &WafConfig) -> Result<Profile, String> {
    single_die(cfg.blocks, cfg.pages_per_block, cfg.spare, cfg.policy).map_err(|e| {
        e.to_string()
            .replace("single-die device", "sim waf options")
            .replace("field 'ftl.spare_factor'", "--spare (with --blocks)")
            .replace("field 'nand.blocks_per_plane'", "--blocks")
            .replace("field 'nand.pages_per_block'", "--pages-per-block")
    })
}

/// Run the experiment; `progress` gets the fraction done now and then.
pub fn run_waf(cfg: &WafConfig, mut progress: impl FnMut(f64)) -> Result<WafResult, String> {
    if !(cfg.trimmed >= 0.0 && cfg.trimmed < 1.0) {
        return Err(format!("--trimmed must be in [0, 1), got {}", cfg.trimmed));
    }
    if !(cfg.passes > 0.0 && cfg.passes <= 1000.0) {
        return Err(format!("--passes must be in (0, 1000], got {}", cfg.passes));
    }
    let profile = waf_profile(cfg)?;
    let mut dev = Device::new(&profile, cfg.seed);
    let logical = dev.logical_bytes() / MAP_UNIT;
    let mut now = 0;
    let write = |dev: &mut Device, now: &mut u64, lpn: u64| {
        *now = dev.submit(*now, &Request::new(Op::Write, lpn * MAP_UNIT, MAP_UNIT)).expect("in range").done;
    };
    for lpn in 0..logical {
        write(&mut dev, &mut now, lpn);
    }
    let trimmed = (logical as f64 * cfg.trimmed).floor() as u64;
    if trimmed > 0 {
        now = dev.submit(now, &Request::new(Op::Trim, 0, trimmed * MAP_UNIT)).expect("in range").done;
    }
    let live = logical - trimmed;
    let total = (live as f64 * cfg.passes).round() as u64;
    let half = total / 2;
    let mut rng = Rng::new(cfg.seed);
    let (mut mid, mut t_mid) = (dev.counters(), now);
    let step = (total / 100).max(1);
    // The units are drawn two writes ahead, so that the device fetches their mapping entries
    // meanwhile (`Device::prefetch`); the sequence is the same.
    let mut ahead = [trimmed + rng.below(live), trimmed + rng.below(live)];
    let mut next_progress = 0;
    for i in 0..total {
        if i == half {
            mid = dev.counters();
            t_mid = now;
        }
        if i == next_progress {
            progress(i as f64 / total as f64);
            next_progress += step;
        }
        let lpn = ahead[0];
        ahead = [ahead[1], trimmed + rng.below(live)];
        dev.prefetch(ahead[1] * MAP_UNIT);
        write(&mut dev, &mut now, lpn);
    }
    progress(1.0);
    let c = dev.counters().since(&mid);
    Ok(WafResult {
        spare_factor: cfg.spare,
        pages_per_block: cfg.pages_per_block,
        blocks: cfg.blocks,
        policy: cfg.policy.name(),
        passes: cfg.passes,
        trimmed: cfg.trimmed,
        seed: cfg.seed,
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
