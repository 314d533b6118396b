//! `flashlab run JOBFILE`: an fio job file on a simulated system. Each job gets its own file
//! on the simulated filesystem (its `filename=`, else fio's `jobname.N.0`; the same name is
//! the same file), laid out first when the job reads and the file is new or too small;
//! stonewalled groups run one after another, the jobs of a group side by side.

use super::run_real::{run_real, Place};
use crate::cli::RunArgs;
use crate::progress::Progress;
use crate::report::fio_text::job_text;
use crate::report::output::{write_atomic, write_json};
use crate::target::{resolve, Target};
use flashlab_jobs::{parse_jobfile_path, JobFile};
use flashlab_lab::jobfile_run::{fio_document, run_jobfile};
use flashlab_measure::JobResult;
use std::time::{SystemTime, UNIX_EPOCH};

pub fn run(a: &RunArgs) -> Result<(), String> {
    let jf = parse_jobfile_path(&a.jobfile).map_err(|e| e.to_string())?;
    for w in &jf.warnings {
        eprintln!("warning: {w}");
    }
    if jf.jobs.is_empty() {
        return Err(format!("{}: no jobs", a.jobfile.display()));
    }
    let json = match a.output_format.as_str() {
        "normal" => false,
        "json" => true,
        f => return Err(format!("--output-format '{f}': expected normal or json")),
    };
    let names_own = jf.jobs.iter().any(|j| j.filename.is_some() || j.directory.is_some());
    let target = match &a.target {
        Some(t) => resolve(t)?,
        None if names_own => {
            let results = run_real(a, &jf, &Place::JobOwn)?;
            return emit(a, &jf, json, &results, "the job file's own files".into(), None);
        }
        None => resolve(&format!("sim:{}", flashlab_lab::profiles::DEFAULT))?,
    };
    let profile = match target {
        Target::Sim(p) => p,
        Target::Dir(d) => {
            let results = run_real(a, &jf, &Place::Dir(d.clone()))?;
            return emit(a, &jf, json, &results, d.display().to_string(), None);
        }
        Target::Block(d) => {
            let results = run_real(a, &jf, &Place::Block(d.clone()))?;
            return emit(a, &jf, json, &results, d.display().to_string(), None);
        }
    };
    let (mut sys, pre) = super::sim_system(&a.sim_fs, &profile, a.seed, a.target.as_deref().unwrap_or("sim:"))?;
    let bar = Progress::new("run");
    let results = run_jobfile(&mut sys, &jf, a.seed, &a.jobfile.display().to_string(), Some(&pre), &mut |g, n, f| {
        bar.set((g as f64 + f) / n as f64, &format!("group {}", g + 1))
    })?;
    bar.finish();
    let d = sys.device_report();
    let device_line = format!(
        "device: write amplification {:.2}, {} host bytes written, {} NAND units programmed, {} erases, {} of {} blocks free",
        d.write_amplification, d.counters.host_write_bytes, d.counters.nand_units_programmed, d.counters.erases, d.state.free_blocks, d.state.total_blocks
    );
    let history = match a.sim_fs.precondition {
        flashlab_lab::precondition::Precondition::Fresh => String::new(),
        p => format!(", device {}", p.describe()),
    };
    let what = format!(
        "{} ({}){history}; times are simulated",
        a.target.clone().unwrap_or_else(|| format!("sim:{}", flashlab_lab::profiles::DEFAULT)),
        profile.description
    );
    emit(a, &jf, json, &results, what, Some(device_line))
}

/// Print or write the results: fio-style text or fio JSON, CSV, HTML report.
fn emit(
    a: &RunArgs,
    jf: &JobFile,
    json: bool,
    results: &[(JobResult, String, u64, u32)],
    what: String,
    device_line: Option<String>,
) -> Result<(), String> {
    let sys_secs = results.iter().map(|r| r.0.job_runtime_ns).sum::<u64>() / 1_000_000_000;
    let percentiles = jf.jobs[0].percentile_list.clone();
    if json || a.report.is_some() {
        let ms = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
        let doc = fio_document(results, &percentiles, ms, sys_secs);
        if let Some(p) = &a.report {
            super::report::write_for(p, &a.jobfile.display().to_string(), doc.clone())?;
        }
        if json {
            match &a.output {
                Some(p) => write_json(p, &doc)?,
                None => println!("{}", serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?),
            }
        }
    }
    if !json {
        println!("flashlab run {} on {what}", a.jobfile.display());
        for (r, rw, bs, qd) in results {
            print!("{}", job_text(r, rw, *bs, *qd, &percentiles));
        }
        if let Some(line) = device_line {
            println!("{line}");
        }
    }
    if let Some(path) = &a.csv {
        let mut csv = String::from("job,direction,end_ms,duration_ms,bytes,ios,mb_per_s,iops,mean_lat_us,max_lat_us\n");
        for (r, ..) in results {
            for (name, d) in [("read", &r.read), ("write", &r.write), ("trim", &r.trim)] {
                for iv in &d.intervals {
                    let secs = iv.duration_ns as f64 / 1e9;
                    csv.push_str(&format!(
                        "{},{name},{:.3},{:.3},{},{},{:.6},{:.3},{},{:.3}\n",
                        r.name,
                        iv.end_ns as f64 / 1e6,
                        iv.duration_ns as f64 / 1e6,
                        iv.bytes,
                        iv.ios,
                        iv.bytes as f64 / secs / 1e6,
                        iv.ios as f64 / secs,
                        iv.mean_lat_ns().map_or(String::new(), |l| format!("{:.3}", l / 1e3)),
                        iv.lat_ns_max as f64 / 1e3
                    ));
                }
            }
        }
        write_atomic(path, csv.as_bytes())?;
    }
    Ok(())
}
