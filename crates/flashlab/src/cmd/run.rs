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
use flashlab_jobs::{parse_jobfile_path, Job, JobFile};
use flashlab_lab::engine::{run_jobs, JobSpec};
use flashlab_lab::system::SimSystem;
use flashlab_measure::{fio_json, JobResult, RunMeta};
use flashsim::Op;
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
    let groups = jf.run_groups();
    let mut results: Vec<(JobResult, String, u64, u32)> = Vec::new();
    let bar = Progress::new("run");
    for (g, group) in groups.iter().enumerate() {
        let mut specs = Vec::new();
        for &ji in group {
            let job = &jf.jobs[ji];
            for n in 0..job.numjobs.max(1) {
                specs.push(spec(
                    &mut sys,
                    job,
                    g as u32,
                    n,
                    a.seed.wrapping_add(ji as u64 * 1000 + u64::from(n)),
                    &a.jobfile.display().to_string(),
                )?);
            }
        }
        let res =
            run_jobs(&mut sys, &specs, |f| bar.set((g as f64 + f) / groups.len() as f64, &format!("group {}", g + 1)))
                .map_err(|e| e.to_string())?;
        let mut device = serde_json::to_value(sys.device_report()).map_err(|e| e.to_string())?;
        device["precondition"] = serde_json::to_value(&pre).map_err(|e| e.to_string())?;
        for (mut r, s) in res.into_iter().zip(&specs) {
            r.extra = Some(device.clone());
            results.push((r, s.rw.fio_name().to_string(), s.bs_write.max(s.bs_read), s.iodepth));
        }
    }
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
        let mut meta = RunMeta::new(format!("flashlab-{}", env!("CARGO_PKG_VERSION")), ms);
        meta.elapsed_s = sys_secs;
        let jobs: Vec<JobResult> = results.iter().map(|r| r.0.clone()).collect();
        let doc = fio_json(&jobs, &percentiles, &meta);
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

/// Resolve a job against the simulated system: create (and for reads lay out) its file.
fn spec(sys: &mut SimSystem, job: &Job, group: u32, n: u32, seed: u64, file_name: &str) -> Result<JobSpec, String> {
    let here = format!("{file_name}:{}: job '{}'", job.line, job.name);
    let size =
        job.size.or(job.filesize).map(|s| s.resolve(sys.fs.capacity())).ok_or_else(|| {
            format!("{here}: no size= (flashlab needs the size of the job's file on a simulated device)")
        })?;
    if job.rw == flashlab_jobs::Rw::TrimWrite && (job.bs_trim != job.bs_write || job.is_random()) {
        return Err(format!("{here}: rw=trimwrite needs one block size for trims and writes"));
    }
    for (name, b) in [("bs (read)", job.bs_read), ("bs (write)", job.bs_write), ("bs (trim)", job.bs_trim)] {
        if b == 0 || b % flashsim::SECTOR != 0 {
            return Err(format!("{here}: {name} = {b} is not a multiple of the {}-byte sector", flashsim::SECTOR));
        }
    }
    let offset = job.offset.resolve(size);
    let bs = job.max_bs();
    if offset + bs > size {
        return Err(format!("{here}: offset {offset} leaves no room for a {bs}-byte block in a {size}-byte file"));
    }
    // fio's semantics: `filename=` names the file, and the same name is the same file (a fill
    // job and a randwrite job on one file share it; clones of a job share it too); without it
    // the file is `NAME.JOBNUM.0`, in `directory=` when given.
    let name = match (&job.filename, &job.directory) {
        (Some(f), _) => f.clone(),
        (None, Some(d)) => format!("{d}/{}.{n}.0", super::run_real::job_file_stem(&job.name)),
        (None, None) => format!("{}.{n}.0", job.name),
    };
    let existing = sys.file_id(&name).filter(|&id| sys.file_size(id).is_some_and(|s| s >= size));
    let file = match existing {
        Some(id) => id,
        None => {
            if sys.file_id(&name).is_some() {
                sys.delete(&name).map_err(|e| e.to_string())?;
            }
            let f = sys.create(&name, size).map_err(|e| format!("{here}: {e}"))?;
            if job.rw.has_reads() {
                // fio lays out a file before reading it; so does flashlab (not measured).
                let mut off = 0;
                while off < size {
                    let len = (1u64 << 20).min(size - off);
                    let c = sys.io(sys.now, f, Op::Write, off, len).map_err(|e| e.to_string())?;
                    sys.now = c.done;
                    off += len;
                }
            }
            f
        }
    };
    let (bs_read, bs_write, bs_trim) = (job.bs_read, job.bs_write, job.bs_trim);
    Ok(JobSpec {
        name: job.name.clone(),
        groupid: group,
        rw: job.rw,
        rwmixread: job.rwmixread,
        bs_read,
        bs_write,
        bs_trim,
        file,
        offset,
        span: (size - offset) / bs * bs,
        iodepth: job.iodepth.max(1),
        io_limit: job.io_size,
        number_ios: job.number_ios,
        runtime_ns: job.runtime_ns,
        time_based: job.time_based,
        ramp_ns: job.ramp_time_ns,
        fsync_every: if job.fsync > 0 { job.fsync } else { job.fdatasync },
        random_map: true,
        seed: job.randseed.unwrap_or(seed),
        interval_ns: 500_000_000,
        thinktime_ns: job.thinktime_ns,
        thinktime_blocks: job.thinktime_blocks,
        layer: flashlab_lab::stack::LayerCost::ZERO,
    })
}
