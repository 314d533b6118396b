//! `flashlab breakdown`: parse the options, run flashlab-breakdown, print the tables, write
//! the JSON and the chart.

use crate::cli::BreakdownArgs;
use crate::error::Error;
use crate::report::output::write_file;
use flashlab_breakdown::command::{run, Options};
use flashlab_breakdown::{chart, job_matrix, Dir};
use flashlab_lab::units::parse_cli_size;
use flashlab_real::engine::choose_engine;

/// `flashlab breakdown`: where a request's latency goes, per job of the matrix.
pub fn breakdown(a: &BreakdownArgs) -> Result<(), Error> {
    let bss =
        a.bs.iter()
            .map(|s| parse_cli_size(s).map_err(Error::at(format!("--bs {s}"))))
            .collect::<Result<Vec<u64>, Error>>()?;
    let dirs =
        a.rw.iter()
            .map(|s| match s.as_str() {
                "randread" => Ok(Dir::Read),
                "randwrite" => Ok(Dir::Write),
                _ => Err(Error::flag(format!("--rw {s}"), "flashlab breakdown runs randread and randwrite")),
            })
            .collect::<Result<Vec<Dir>, Error>>()?;
    if let Some(q) = a.iodepth.iter().find(|&&q| q == 0 || q > 4096) {
        return Err(Error::flag(format!("--iodepth {q}"), "must be 1..=4096"));
    }
    let span = parse_cli_size(&a.size).map_err(Error::at(format!("--size {}", a.size)))?;
    let sim = a.target.starts_with("sim:");
    let engine = if sim {
        flashlab_real::engine::EngineKind::IoUring
    } else {
        let (engine, note) = choose_engine(a.ioengine.as_deref())?;
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
            Some(p) if sim => Some(flashlab_breakdown::host_cost::HostCost::from_report_file(p, a.cpu_scale)?),
            Some(_) => {
                return Err(Error::flag(
                    "--host-cost",
                    "only with --target sim:PROFILE (it replaces the model's host costs)",
                ))
            }
            None => None,
        },
    };
    let report = run(&o, &mut |job| eprintln!("running {job} ..."))?;
    crate::out!("{}", report.render_text());
    crate::outln!("\nsummary (means, µs):\n{}", report.render_summary());
    if let Some(d) = report.render_durable() {
        crate::out!("{d}");
    }
    if let Some(p) = &a.chart {
        let html = p.extension().is_some_and(|e| e == "html" || e == "htm");
        let text = if html { chart::render_html(&report)? } else { chart::render_svg(&report)? };
        write_file(p, text.as_bytes())?;
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
