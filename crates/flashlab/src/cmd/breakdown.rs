//! `flashlab breakdown`: parse the options, run flashlab-breakdown, print the tables, write
//! the JSON and the chart.

use crate::cli::BreakdownArgs;
use crate::report::output::write_atomic;
use flashlab_breakdown::command::{run, Options};
use flashlab_breakdown::{chart, job_matrix, Dir};
use flashlab_lab::units::parse_cli_size;
use flashlab_real::engine::choose_engine;

pub fn breakdown(a: &BreakdownArgs) -> Result<(), String> {
    let bss =
        a.bs.iter()
            .map(|s| parse_cli_size(s).map_err(|e| format!("--bs {s}: {e}")))
            .collect::<Result<Vec<u64>, String>>()?;
    let dirs =
        a.rw.iter()
            .map(|s| match s.as_str() {
                "randread" => Ok(Dir::Read),
                "randwrite" => Ok(Dir::Write),
                _ => Err(format!("--rw {s}: flashlab breakdown runs randread and randwrite")),
            })
            .collect::<Result<Vec<Dir>, String>>()?;
    if let Some(q) = a.iodepth.iter().find(|&&q| q == 0 || q > 4096) {
        return Err(format!("--iodepth {q}: must be 1..=4096"));
    }
    let span = parse_cli_size(&a.size).map_err(|e| format!("--size {}: {e}", a.size))?;
    let sim = a.target.starts_with("sim:");
    let engine = if sim {
        flashlab_real::engine::EngineKind::IoUring
    } else {
        let (engine, note) = choose_engine(a.ioengine.as_deref()).map_err(|e| e.to_string())?;
        if let Some(n) = note {
            eprintln!("note: {n}");
        }
        engine
    };
    let o = Options {
        target: a.target.clone(),
        destroy_data: a.destroy_data,
        jobs: job_matrix(&dirs, &bss, &a.iodepth),
        ios: a.ios,
        span,
        engine,
        seed: a.seed,
        host_cost: match &a.host_cost {
            Some(p) if sim => Some(
                flashlab_breakdown::host_cost::HostCost::from_report_file(p, a.cpu_scale).map_err(|e| e.to_string())?,
            ),
            Some(_) => {
                return Err("--host-cost: only with --target sim:PROFILE (it replaces the model's host costs)".into())
            }
            None => None,
        },
    };
    let report = run(&o, &mut |job| eprintln!("running {job} ...")).map_err(|e| e.to_string())?;
    crate::out!("{}", report.render_text());
    crate::outln!("\nsummary (means, µs):\n{}", report.render_summary());
    if let Some(p) = &a.chart {
        let html = p.extension().is_some_and(|e| e == "html" || e == "htm");
        let text = if html { chart::render_html(&report)? } else { chart::render_svg(&report)? };
        write_atomic(p, text.as_bytes())?;
    }
    let doc = flashlab_results::Document::new(flashlab_results::Body::Breakdown(flashlab_results::typed(
        "the breakdown",
        &report,
    )?))
    .target(&a.target)
    .seed(a.seed)
    .param("bs", &a.bs)
    .param("iodepth", &a.iodepth)
    .param("rw", &a.rw)
    .param("ios", a.ios)
    .param("size", &a.size);
    a.out.write(&doc, "breakdown")
}
