//! `flashlab life`: months of use on a simulated device in seconds (the work is in
//! flashlab-life; this parses the options, runs, prints the tables and writes the files).

use crate::cli::LifeArgs;
use crate::error::Error;
use crate::progress::Progress;
use crate::target::sim_profile;
use crate::{out, outln};
use flashlab_life::duration::parse_duration;
use flashlab_life::policy::{Policy, HOUR};
use flashlab_life::runner::{run_life, LifeConfig, LifeResult};
use flashlab_life::traces::{self, replay::ReplayConfig, Format};
use flashlab_life::{presets, report, table};
use serde_json::json;
use std::time::Instant;

/// `flashlab life`: months of use on a simulated device.
pub fn life(a: &LifeArgs) -> Result<(), Error> {
    let profile = sim_profile(&a.target)?;
    let duration = parse_duration(&a.duration).map_err(Error::at("--duration"))?;
    if !(a.scale.is_finite() && a.scale > 0.0 && a.scale <= 1000.0) {
        return Err(Error::flag("--scale", format!("must be in (0, 1000], got {}", a.scale)));
    }
    if a.sample_days == 0 || a.sample_days > 36_500 {
        return Err(Error::flag(format!("--sample-days {}", a.sample_days), "must be 1..=36500"));
    }
    if a.pe_cycles.is_some_and(|n| n == 0 || n > 10_000_000) {
        return Err(Error::flag(
            format!("--pe-cycles {}", a.pe_cycles.unwrap_or(0)),
            "must be 1..=10000000 (a block wears out after that many erases; 0 makes every projection meaningless)",
        ));
    }
    let wall = Instant::now();
    let bar = Progress::new("life");
    let (runs, usage_json, extra): (Vec<LifeResult>, serde_json::Value, String) = if let Some(path) = &a.trace {
        if a.compare_policies || a.policy != "none" {
            return Err(Error::not_applicable(
                "--policy and --compare-policies",
                "apply to the usage model; a trace brings its own discards",
            ));
        }
        let name = path.display().to_string();
        let text = flashlab_jobs::limits::read_text(path, "trace", flashlab_jobs::limits::MAX_TRACE_INPUT)?;
        let format = match &a.trace_format {
            Some(f) => Format::parse(f)?,
            None => Format::detect(&text),
        };
        let ops = traces::parse(&name, &text, format).map_err(flashlab_life::LifeError::from)?;
        let cfg = ReplayConfig {
            compress_time: a.compress_time,
            sample_ns: HOUR,
            probe_every: a.probe_every,
            seed: a.seed,
            pe_cycles: a.pe_cycles,
        };
        let trace_stats = traces::stats::trace_stats(&ops);
        bar.suspend(|| {
            outln!(
                "flashlab life on {} ({}), trace {name} ({format:?}, {} requests, {}), seed {}",
                a.target,
                profile.description,
                ops.len(),
                if a.compress_time { "time compressed" } else { "timestamps honoured" },
                a.seed
            );
            out!("{}", trace_stats.summary());
        });
        let (r, stats) = traces::replay::replay(&profile, &name, &ops, &cfg, |f| bar.set(f, "replay"))?;
        let extra =
            format!("{} requests replayed, {} folded into the device's capacity\n", stats.requests, stats.folded);
        (
            vec![r],
            json!({"trace": name, "format": format!("{format:?}").to_lowercase(), "replay": stats, "stats": trace_stats}),
            extra,
        )
    } else if let Some(w) = flashlab_life::jesd219::Endurance::parse(&a.usage)? {
        bar.suspend(|| {
            outln!(
                "flashlab life on {} ({}), {} for {} drive writes, seed {}",
                a.target,
                profile.description,
                w.name(),
                a.drive_writes,
                a.seed
            )
        });
        let (r, json, text) =
            flashlab_life::jesd219::run_compared(&profile, w, a.drive_writes, a.seed, a.pe_cycles, |f, l| {
                bar.set(f, l)
            })?;
        (vec![r], json, text)
    } else {
        let mut usage = presets::resolve(&a.usage)?;
        if a.scale != 1.0 {
            usage = usage.scaled(a.scale);
        }
        let policies = if a.compare_policies { Policy::all() } else { vec![Policy::parse(&a.policy)?] };
        bar.suspend(|| {
            outln!(
                "flashlab life on {} ({}), usage {} ({}){}, {} ({} days), seed {}",
                a.target,
                profile.description,
                usage.name,
                usage.description,
                if a.scale != 1.0 { format!(" scaled x{}", a.scale) } else { String::new() },
                a.duration,
                duration.div_ceil(flashlab_life::policy::DAY),
                a.seed
            )
        });
        let mut runs = Vec::new();
        let n = policies.len();
        for (i, p) in policies.into_iter().enumerate() {
            let mut cfg = LifeConfig::new(p, duration, a.seed);
            cfg.sample_days = a.sample_days;
            cfg.probe_every = a.probe_every;
            cfg.pe_cycles = a.pe_cycles;
            let label = format!("policy {}", p.name());
            runs.push(run_life(&profile, &usage, &cfg, |f| bar.set((i as f64 + f) / n as f64, &label))?);
        }
        (runs, serde_json::to_value(&usage).map_err(|source| Error::Json { what: "the usage", source })?, String::new())
    };
    bar.finish();
    let text = if runs.len() > 1 {
        table::compare_table(&runs)
    } else {
        format!("policy {}\n{}", runs[0].policy, table::run_table(&runs[0]))
    };
    out!("{text}");
    out!("{extra}");
    let r0 = &runs[0];
    let last = r0.last();
    if runs.len() > 1 {
        crate::proseln!(
            "rand write columns: mean of the probes of the last 28 days; erases per block; lifetime and TBW projected"
        );
    }
    crate::proseln!(
        "probe: {} MiB file, {} MiB of 4 KiB random writes at QD1, on a copy of the device (not counted in WAF/wear); \
         lifetime from {} P/E cycles; MB/s = 10^6 B/s",
        r0.probe.span >> 20,
        r0.probe.bytes >> 20,
        r0.pe_cycles
    );
    if runs.len() == 1 {
        crate::proseln!(
            "after {} days: host wrote {:.1} GB, WAF {:.2}, lifetime {} years (worst block {}), projected TBW {} TB",
            last.day,
            last.host_write_bytes as f64 / 1e9,
            last.waf,
            last.lifetime_years.map_or("-".into(), table::sig),
            last.lifetime_years_worst_block.map_or("-".into(), table::sig),
            last.projected_tbw_tb.map_or("-".into(), table::sig),
        );
    }
    crate::proseln!("virtual time {:.0} s per run; wall time {:.1} s", r0.virtual_s, wall.elapsed().as_secs_f64());
    let doc = flashlab_life::document::life_document(&a.target, &profile, a.seed, &a.duration, usage_json, &runs)?
        .param("policy", &a.policy)
        .param("compare_policies", a.compare_policies)
        .param("scale", a.scale)
        .param("sample_days", a.sample_days)
        .param("probe_every", a.probe_every)
        .param("pe_cycles", a.pe_cycles);
    let mut out = a.out.clone();
    out.report = None;
    out.write(&doc, "life")?;
    if let Some(path) = &a.out.report {
        let title = format!("flashlab life: {} on {}", r0.workload, a.target);
        let page = report::html(&title, &runs, &text)?;
        crate::report::output::write_file(path, page.as_bytes())?;
        outln!("report written to {}", path.display());
    }
    Ok(())
}
