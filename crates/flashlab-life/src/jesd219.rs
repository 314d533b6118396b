//! JEDEC's SSD endurance workloads (JESD219 / JESD219A) as built-in `life` workloads, so that
//! endurance is projected the way the industry rates TBW (JESD218: the host terabytes written
//! under the class's workload until the P/E budget is used).
//!
//! * `jesd219-enterprise`: the standard's synthetic enterprise workload (JESD219A §
//!   "Enterprise endurance workload"; tables cited in docs/jesd219.md): random writes over the
//!   whole user LBA range with the transfer-size mix [`ENTERPRISE_BSSPLIT`] (512 B 4 %, 1–3.5 KiB
//!   1 % each, 4 KiB 67 %, 8 KiB 10 %, 16 KiB 7 %, 32 KiB 3 %, 64 KiB 3 %) and the access skew
//!   [`ENTERPRISE_ZONES`] (50 % of accesses to the first 5 % of the LBA range, 30 % to the next
//!   15 %, 20 % to the remaining 80 %); transfers of 4 KiB and more are 4 KiB-aligned. The
//!   device is first filled with valid data (sequential writes of the whole user capacity), as
//!   the standard asks, then driven back to back (queue depth 1, no idle time).
//! * `jesd219-client`: JESD219A's client workload is not a synthetic mix but the replay of
//!   JEDEC's client master trace (captured on client PCs, distributed by JEDEC): flashlab does
//!   not ship it, so this name asks for the trace (`life --trace FILE`).
//! * `uniform-4k`: uniform 4 KiB random writes over the whole range, the usual comparison,
//!   run the same way.
//!
//! The samplers are flashlab-jobs' (fio's `bssplit` and `random_distribution=zoned`); each run
//! reports its steady-state write amplification, measured over the second half of the writes.

use crate::error::LifeError;
use crate::probe::ProbeConfig;
use crate::runner::{LifeResult, Sampler};
use crate::workload::AppStats;
use flashlab_jobs::blocksize::{parse_bssplit, BlockSizeSampler};
use flashlab_jobs::distribution::{Distribution, Sampler as Lba};
use flashlab_jobs::IoDir;
use flashlab_lab::system::SimSystem;
use flashsim::{Op, Profile};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

/// JESD219's enterprise transfer-size mix, in fio's `bssplit` spelling.
pub const ENTERPRISE_BSSPLIT: &str = "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3";
/// JESD219's enterprise access skew, in fio's `random_distribution` spelling.
pub const ENTERPRISE_ZONES: &str = "zoned:50/5:30/15:20/80";
/// Transfers of at least this size are aligned to it (JESD219: 4 KiB alignment).
const ALIGN: u64 = 4096;
/// Smaller transfers start on a sector.
const SECTOR: u64 = 512;
/// Request size of the sequential fill before the workload.
const FILL_REQUEST: u64 = 128 << 10;
/// Samples over the workload phase.
const SAMPLES: u64 = 8;

/// The built-in endurance workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Endurance {
    /// JESD219A's enterprise workload: its block-size mix and hot-zone distribution, random writes.
    Jesd219Enterprise,
    /// Uniform 4 KiB random writes over the whole range (the usual comparison).
    #[serde(rename = "uniform-4k")]
    Uniform4k,
}

impl Endurance {
    /// The workload named `s`; `Ok(None)` when `s` names none of them (a usage preset or file),
    /// an error for the client workload, which needs JEDEC's trace.
    pub fn parse(s: &str) -> Result<Option<Endurance>, LifeError> {
        match s {
            "jesd219-enterprise" => Ok(Some(Endurance::Jesd219Enterprise)),
            "uniform-4k" => Ok(Some(Endurance::Uniform4k)),
            "jesd219-client" => Err(LifeError::ClientTrace),
            _ => Ok(None),
        }
    }

    /// The workload's name as given on the command line (`jesd219-enterprise`, `uniform-4k`).
    pub fn name(self) -> &'static str {
        match self {
            Endurance::Jesd219Enterprise => "jesd219-enterprise",
            Endurance::Uniform4k => "uniform-4k",
        }
    }
}

/// Draws the requests of an endurance workload: (offset, length) in bytes. No allocation
/// per request.
pub(crate) struct Generator {
    sizes: Option<BlockSizeSampler>,
    lba: Lba,
    rng: Xoshiro256PlusPlus,
    capacity: u64,
}

impl Generator {
    pub fn new(w: Endurance, capacity: u64, seed: u64) -> Result<Generator, LifeError> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x1ede_c219);
        let blocks = capacity / ALIGN;
        let (sizes, dist) = match w {
            Endurance::Jesd219Enterprise => {
                let s = parse_bssplit(ENTERPRISE_BSSPLIT, 1024).map_err(|e| LifeError::Workload(e.to_string()))?;
                let d = Distribution::parse(ENTERPRISE_ZONES, 1024).map_err(|e| LifeError::Workload(e.to_string()))?;
                (Some(BlockSizeSampler::new(s.for_dir(IoDir::Write), false)), d)
            }
            Endurance::Uniform4k => (None, Distribution::Random),
        };
        let lba =
            Lba::new(&dist, IoDir::Write, blocks, ALIGN, &mut rng).map_err(|e| LifeError::Workload(e.to_string()))?;
        Ok(Generator { sizes, lba, rng, capacity })
    }

    /// The next write: a size from the mix, a 4 KiB block from the skew; a transfer of 4 KiB
    /// or more starts at the block, a smaller one on a random sector inside it. A transfer
    /// that would run past the end ends at it.
    #[inline]
    pub fn next_write(&mut self) -> (u64, u64) {
        let len = self.sizes.as_ref().map_or(ALIGN, |s| s.next(&mut self.rng));
        let mut off = self.lba.next(&mut self.rng) * ALIGN;
        if len < ALIGN {
            off += flashlab_jobs::distribution::below(&mut self.rng, (ALIGN - len) / SECTOR + 1) * SECTOR;
        }
        if off + len > self.capacity {
            off = (self.capacity - len) / ALIGN * ALIGN;
        }
        (off, len)
    }
}

/// What an endurance run measured besides the samples.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EnduranceStats {
    /// The workload that ran.
    pub workload: Endurance,
    /// Drive writes of the workload phase (host bytes / user capacity), after the fill.
    pub drive_writes: f64,
    /// Host write requests of the workload phase.
    pub requests: u64,
    /// Over the second half of the workload: NAND bytes programmed per host byte written
    /// (what TBW sees) and NAND units per host unit (the FTL's; a sub-4 KiB write is a unit).
    pub steady_waf_bytes: f64,
    /// NAND units programmed per host unit written, same half (4 KiB units).
    pub steady_waf_units: f64,
}

/// Fill the device, then drive it with `w` for `drive_writes` drive writes, back to back.
/// Samples at the end of the fill and every eighth of the workload; the last has a probe.
pub fn run_endurance(
    profile: &Profile,
    w: Endurance,
    drive_writes: f64,
    seed: u64,
    pe_cycles: Option<u32>,
    mut progress: impl FnMut(f64),
) -> Result<(LifeResult, EnduranceStats), LifeError> {
    if !(drive_writes.is_finite() && drive_writes > 0.0 && drive_writes <= 1000.0) {
        return Err(LifeError::DriveWrites(drive_writes));
    }
    let mut sim = crate::runner::system(profile, seed, false)?;
    let cap = sim.device().logical_bytes();
    let mut gen = Generator::new(w, cap, seed)?;
    let probe = ProbeConfig::for_device(&sim, 0.0);
    let mut sampler = Sampler::new(&sim, pe_cycles, Some(probe), 0.0, seed);
    let mut app = AppStats::default();
    let day = |sim: &SimSystem| sim.now() as f64 / crate::policy::DAY as f64;
    let mut off = 0;
    while off < cap {
        let len = FILL_REQUEST.min(cap - off);
        sim.block_io(sim.now(), Op::Write, off, len)?;
        app.write_bytes += len;
        off += len;
    }
    let mut samples = vec![sampler.sample(&sim, day(&sim), None, None)?];
    let target = (drive_writes * cap as f64) as u64;
    let step = target.div_ceil(SAMPLES).max(1);
    let (mut written, mut requests, mut next) = (0u64, 0u64, step);
    let mut mid = None;
    while written < target {
        let (o, l) = gen.next_write();
        sim.block_io(sim.now(), Op::Write, o, l)?;
        written += l;
        requests += 1;
        if mid.is_none() && written >= target / 2 {
            mid = Some(sim.device().counters());
        }
        if written >= next || written >= target {
            let last = written >= target;
            let p = if last { Some(sampler.probe_now(&sim)?) } else { None };
            samples.push(sampler.sample(&sim, day(&sim), p, None)?);
            next += step;
            progress(written as f64 / target as f64);
        }
    }
    app.write_bytes += written;
    let d = sim.device().counters().since(&mid.unwrap_or_default());
    let stats = EnduranceStats {
        workload: w,
        drive_writes: written as f64 / cap as f64,
        requests,
        steady_waf_bytes: (d.nand_units_programmed * flashsim::MAP_UNIT) as f64 / d.host_write_bytes.max(1) as f64,
        steady_waf_units: d.write_amplification(),
    };
    Ok((sampler.finish(&sim, w.name().into(), "none (block-level workload)".into(), samples, app), stats))
}

/// `life --usage <endurance workload>`: run `w`, and uniform 4 KiB random writes the same way
/// for comparison; returns the run, the JSON of both runs' statistics and a summary text.
pub fn run_compared(
    profile: &Profile,
    w: Endurance,
    drive_writes: f64,
    seed: u64,
    pe_cycles: Option<u32>,
    mut progress: impl FnMut(f64, &str),
) -> Result<(LifeResult, serde_json::Value, String), LifeError> {
    let (run, stats) = run_endurance(profile, w, drive_writes, seed, pe_cycles, |f| progress(f / 2.0, w.name()))?;
    let mut all = vec![stats];
    if w != Endurance::Uniform4k {
        let (_, base) = run_endurance(profile, Endurance::Uniform4k, drive_writes, seed, pe_cycles, |f| {
            progress(0.5 + f / 2.0, "uniform-4k")
        })?;
        all.push(base);
    }
    let mut text = String::new();
    for s in &all {
        text += &format!(
            "{}: {:.2} drive writes after the fill, {} requests; steady-state WAF {:.2} (NAND bytes / host bytes), \
             {:.2} per 4 KiB unit\n",
            s.workload.name(),
            s.drive_writes,
            s.requests,
            s.steady_waf_bytes,
            s.steady_waf_units
        );
    }
    let json = serde_json::json!({ "endurance_workload": w.name(), "runs": all });
    Ok((run, json, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enterprise_requests_follow_the_standard_mix_skew_and_alignment() {
        let cap = 1u64 << 30;
        let mut g = Generator::new(Endurance::Jesd219Enterprise, cap, 3).unwrap();
        let n = 200_000;
        let (mut small, mut four, mut first5, mut next15) = (0u64, 0u64, 0u64, 0u64);
        for _ in 0..n {
            let (o, l) = g.next_write();
            assert!(o + l <= cap);
            if l >= ALIGN {
                assert_eq!(o % ALIGN, 0, "{l}-byte transfer at {o}");
            } else {
                assert_eq!(o % SECTOR, 0);
                // A small transfer stays inside its 4 KiB block.
                assert_eq!(o / ALIGN, (o + l - 1) / ALIGN);
                small += 1;
            }
            four += u64::from(l == 4096);
            let f = o as f64 / cap as f64;
            first5 += u64::from(f < 0.05);
            next15 += u64::from((0.05..0.20).contains(&f));
        }
        let share = |k: u64| k as f64 / n as f64;
        // Binomial standard error at n = 200k is about 0.1 %; 0.5 % is 5 sigma.
        assert!((share(small) - 0.10).abs() < 0.005, "sub-4 KiB {}", share(small));
        assert!((share(four) - 0.67).abs() < 0.005, "4 KiB {}", share(four));
        assert!((share(first5) - 0.50).abs() < 0.005, "first 5 % {}", share(first5));
        assert!((share(next15) - 0.30).abs() < 0.005, "next 15 % {}", share(next15));
    }

    #[test]
    fn trace_statistics_see_the_standard_skew() {
        // The hottest 1 % of blocks lie in the first 5 % (10x the mean rate): 10 % of writes;
        // the hottest 10 %: that zone and a third of the next (2x): 50 + 10 = 60 %; the
        // hottest 20 %: both zones, 80 %. Multi-block transfers blur the edges a little. A
        // small device, so that every block is written many times (the skew is over the
        // blocks written).
        let cap = 64u64 << 20;
        let mut g = Generator::new(Endurance::Jesd219Enterprise, cap, 9).unwrap();
        let ops: Vec<crate::traces::TraceOp> = (0..400_000)
            .map(|_| {
                let (offset, len) = g.next_write();
                crate::traces::TraceOp { t_ns: 0, op: Op::Write, offset, len }
            })
            .collect();
        let s = crate::traces::stats::trace_stats(&ops);
        let skew: Vec<f64> = s.write_skew.iter().map(|k| k.write_share).collect();
        for (got, want) in skew.iter().zip([0.10, 0.60, 0.80]) {
            assert!((got - want).abs() < 0.03, "skew {skew:?}");
        }
        assert_eq!(s.write_sizes[0].bytes, 4096);
    }

    #[test]
    fn names() {
        assert_eq!(Endurance::parse("jesd219-enterprise").unwrap(), Some(Endurance::Jesd219Enterprise));
        assert_eq!(Endurance::parse("light-phone").unwrap(), None);
        assert!(Endurance::parse("jesd219-client").unwrap_err().to_string().contains("--trace"));
    }
}
