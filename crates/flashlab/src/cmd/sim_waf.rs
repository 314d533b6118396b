//! `flashlab sim waf`: the write-amplification experiment.

use crate::cli::WafArgs;
use crate::error::Error;
use crate::progress::Progress;
use flashlab_lab::experiments::waf::{lrw_model, parse_workload, run_waf, WafConfig};
use flashlab_results::{Body, Document};
use flashsim::{analytic, GcPolicy};
use std::time::Instant;

/// `flashlab sim waf`: the write-amplification experiment.
pub fn waf(a: &WafArgs) -> Result<(), Error> {
    let policy = GcPolicy::parse(&a.policy).ok_or_else(|| {
        Error::flag(format!("--policy '{}'", a.policy), "expected greedy, cost-benefit, fifo or random")
    })?;
    let (distribution, separation, gc_by_temperature) = parse_workload(&a.distribution, &a.separate)?;
    let cfg = WafConfig {
        distribution,
        separation,
        gc_by_temperature,
        spare: a.spare,
        pages_per_block: a.pages_per_block,
        blocks: a.blocks,
        policy,
        passes: a.passes,
        trimmed: a.trimmed,
        seed: a.seed,
    };
    let bar = Progress::new("sim waf");
    let wall = Instant::now();
    let r = run_waf(&cfg, |f| bar.set(f, ""))?;
    bar.finish();
    let secs = wall.elapsed().as_secs_f64();
    let live_sf = 1.0 - r.live_pages as f64 / (u64::from(a.blocks) * u64::from(a.pages_per_block)) as f64;
    crate::proseln!(
        "write amplification  {:.3}  ({} policy, spare factor {}, {} pages/block, {} blocks)",
        r.write_amplification,
        r.policy,
        a.spare,
        a.pages_per_block,
        a.blocks
    );
    let gc = if r.gc_by_temperature { ", GC copies by temperature" } else { "" };
    crate::proseln!(
        "  writes {}, hot/cold separation {}{gc}{}",
        r.distribution,
        r.separation,
        hot_share(r.hot_write_share)
    );
    crate::proseln!(
        "  measured over the second half of {} passes: {} host pages, {} NAND pages, {} GC copies, {} erases",
        a.passes,
        r.host_pages_written,
        r.nand_pages_programmed,
        r.gc_pages_copied,
        r.erases
    );
    crate::proseln!(
        "  for comparison, analytical at the live spare factor {live_sf:.4}: FIFO {:.3}, random {:.3}",
        analytic::waf_fifo(live_sf),
        analytic::waf_random(live_sf)
    );
    if let Some(m) = lrw_model(&cfg).filter(|_| !cfg.distribution.is_uniform()) {
        crate::proseln!("  LRW (FIFO) model for this skew (Desnoyers, ACM TOS 2014), one shared log: {m:.3}");
    }
    crate::proseln!("  simulated {:.1} s of device time in {secs:.1} s of wall time", r.simulated_seconds);
    let doc = Document::new(Body::SimWaf(flashlab_results::typed("sim waf's results", &r)?))
        .seed(a.seed)
        .param("spare", a.spare)
        .param("pages_per_block", a.pages_per_block)
        .param("blocks", a.blocks)
        .param("policy", &a.policy)
        .param("passes", a.passes)
        .param("trimmed", a.trimmed)
        .param("distribution", &a.distribution)
        .param("separate", &a.separate);
    a.out.write(&doc, "sim waf")
}

fn hot_share(s: Option<f64>) -> String {
    s.map(|h| format!(" ({:.1} % of writes hot)", 100.0 * h)).unwrap_or_default()
}
