//! `flashlab run JOBFILE`: an fio job file on a simulated system. Each job gets its own file
//! on the simulated filesystem (its `filename=`, else fio's `jobname.N.0`; the same name is
//! the same file), laid out first when the job reads and the file is new or too small;
//! stonewalled groups run one after another, the jobs of a group side by side.

use super::run_real::{run_real, Place};
use crate::cli::RunArgs;
use crate::error::Error;
use crate::progress::Progress;
use crate::report::fio_text::job_text;
use crate::report::output::write_json;
use crate::target::{resolve, Target};
use crate::{out, outln};
use flashlab_jobs::{parse_jobfile_path_with, JobFile, TargetKind};
use flashlab_lab::jobfile_run::{fio_document, run_jobfile};
use flashlab_measure::{DirStats, JobResult};
use flashlab_results::body::{RunBody, RunDirection, RunInterval, RunJob};
use flashlab_results::{Body, Document};
use std::time::{SystemTime, UNIX_EPOCH};

/// `flashlab run JOBFILE`: the job file on the target.
pub fn run(a: &RunArgs) -> Result<(), Error> {
    // fio reads its command-line options before a job file: their global options are the
    // file's defaults and their jobs come first.
    // `--section NAME` is fio's `--section=NAME`, read with fio's other options.
    let options: Vec<String> =
        a.sections.iter().map(|s| format!("--section={s}")).chain(a.fio_options.iter().cloned()).collect();
    let jf = match (&a.jobfile, a.fio_options.is_empty()) {
        (Some(path), _) => parse_jobfile_path_with(path, &options)?,
        (None, false) => flashlab_jobs::parse_fio_options(&options, &|k| std::env::var(k).ok())?,
        (None, true) => {
            return Err(Error::flag("JOBFILE", "give a job file, or fio's options after -- (-- --name=NAME --rw=...)"))
        }
    };
    // Warnings for every target now; those of one kind of target once it is known.
    for w in jf.warnings.iter().filter(|w| w.on.is_none()) {
        eprintln!("warning: {w}");
    }
    let target_warnings = |kind: TargetKind| {
        for w in jf.warnings.iter().filter(|w| w.on == Some(kind)) {
            eprintln!("warning: {w}");
        }
    };
    if jf.jobs.is_empty() {
        return Err(Error::Refused { path: a.source(), problem: ": no jobs".into() });
    }
    let json = match a.output_format.as_str() {
        "normal" => false,
        "json" => true,
        f => return Err(Error::flag(format!("--output-format '{f}'"), "expected normal or json")),
    };
    if json && a.output.is_none() {
        if a.out.json.as_deref().is_some_and(|p| p.as_os_str() == "-") {
            return Err(Error::flag(
                "--json -",
                "--output-format json already writes fio's JSON to standard output (give --output FILE or --json FILE)",
            ));
        }
        // fio's JSON takes standard output; the text goes to standard error.
        if crate::output_args::text_mode() == crate::output_args::TextMode::Stdout {
            crate::output_args::set_text_mode(crate::output_args::TextMode::Stderr);
        }
    }
    let names_own = jf.jobs.iter().any(|j| j.filename.is_some() || j.directory.is_some());
    let target = match &a.target {
        Some(t) => resolve(t)?,
        None if names_own => {
            real_only(a, &jf, "the job file's own files")?;
            target_warnings(TargetKind::Real);
            let results = run_real(a, &jf, &Place::JobOwn)?;
            return emit(a, &jf, json, &results, "the job file's own files".into(), None);
        }
        None => resolve(&format!("sim:{}", flashlab_lab::profiles::DEFAULT))?,
    };
    let profile = match target {
        Target::Sim(p) => p,
        Target::Dir(d) => {
            real_only(a, &jf, &d.display().to_string())?;
            target_warnings(TargetKind::Real);
            let results = run_real(a, &jf, &Place::Dir(d.clone()))?;
            return emit(a, &jf, json, &results, d.display().to_string(), None);
        }
        Target::Block(d) => {
            real_only(a, &jf, &d.display().to_string())?;
            target_warnings(TargetKind::Real);
            let results = run_real(a, &jf, &Place::Block(d.clone()))?;
            return emit(a, &jf, json, &results, d.display().to_string(), None);
        }
    };
    if let Some(flag) = a.real.given() {
        return Err(Error::not_applicable(
            flag,
            "applies to real targets (a directory or block device), not to a simulated device",
        ));
    }
    target_warnings(TargetKind::Sim);
    let zoned = profile.ftl.mapping == flashsim::MappingKind::Zoned;
    let (mut sys, pre) = if zoned {
        // A zoned profile: the jobs run on the device itself, as fio's on a zoned block
        // device (zonemode=zbd follows the write pointers; another job's write off one fails
        // with fio's advice). No filesystem model: they write in place.
        if let Some(flag) = [(a.sim_fs.fs.is_some(), "--fs"), (a.sim_fs.discard, "--discard")]
            .into_iter()
            .find_map(|(set, flag)| set.then_some(flag))
        {
            return Err(Error::not_applicable(
                flag,
                format!(
                    "profile '{}' is zoned: its jobs run on the device itself, with no filesystem model (the models write in place; docs/zoned.md)",
                    profile.name
                ),
            ));
        }
        flashlab_lab::precondition::zoned_system(&profile, a.seed, a.sim_fs.precondition)
            .map_err(Error::at("--precondition"))?
    } else {
        super::sim_system(&a.sim_fs, &profile, a.seed, a.target.as_deref().unwrap_or("sim:"))?
    };
    if a.zone_report.is_some() && !zoned {
        return Err(Error::not_applicable(
            "--zone-report",
            format!("profile '{}' is not zoned: it has no zones to report", profile.name),
        ));
    }
    let bar = Progress::new("run");
    let results = run_jobfile(&mut sys, &jf, a.seed, &a.source().display().to_string(), Some(&pre), &mut |g, n, f| {
        bar.set((g as f64 + f) / n as f64, &format!("group {}", g + 1))
    });
    bar.finish();
    // The zones as the jobs left them, a failed job's included (the state at its error).
    if let Some(path) = &a.zone_report {
        let zones = crate::report::zone_report::blkzone_report(&sys.device().report_zones());
        crate::report::output::write_file(path, zones.as_bytes())?;
    }
    let results = results?;
    let d = sys.device_report();
    let device = flashlab_results::typed("the device's report", &d)?;
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
    emit(a, &jf, json, &results, what, Some((device_line, device)))
}

/// The simulated-system options are an error on a real target, and so are fio's
/// `zonemode=zbd` (its zones are the simulated runner's: the real runner does not follow
/// write pointers yet) and data placement (`fdp`, `dataplacement`: the real engines send
/// plain writes, with no directive).
fn real_only(a: &RunArgs, jf: &JobFile, place: &str) -> Result<(), Error> {
    if a.zone_report.is_some() {
        return Err(Error::not_applicable(
            "--zone-report",
            format!("reports a zoned sim:PROFILE's zones, not {place}'s"),
        ));
    }
    if let Some(j) = jf.jobs.iter().find(|j| j.placement.on()) {
        return Err(Error::Refused {
            path: a.source(),
            problem: format!(
                ":{}: job '{}': option 'fdp' / 'dataplacement': data placement runs on simulated targets only (sim:PROFILE with [fdp], such as sim:nvme-gen3-fdp), not on {place}; fio needs its io_uring_cmd or xnvme engine on an NVMe device for it too (with another engine it fails: the engine lacks fetch ruhs)",
                j.line, j.name
            ),
        });
    }
    if let Some(j) = jf.jobs.iter().find(|j| j.zoned.zbd()) {
        return Err(Error::Refused {
            path: a.source(),
            problem: format!(
                ":{}: job '{}': option 'zonemode': zbd runs on simulated targets only (sim:PROFILE), not on {place}",
                j.line, j.name
            ),
        });
    }
    match a.sim_fs.given() {
        Some(flag) => {
            Err(Error::not_applicable(flag, format!("applies to simulated targets (sim:PROFILE), not to {place}")))
        }
        None => Ok(()),
    }
}

/// The results document's body: a summary per reported job (`reported`, folded by
/// `group_reporting`) and direction, and every interval of every job clone (`results`).
fn body(
    a: &RunArgs,
    reported: &[(JobResult, String, u64, u32)],
    results: &[(JobResult, String, u64, u32)],
    plist: &[f64],
) -> RunBody {
    let dir = |d: &DirStats| {
        (!d.is_idle()).then(|| RunDirection {
            io_bytes: d.io_bytes,
            total_ios: d.ios,
            runtime_ns: d.runtime_ns,
            bw_bytes: d.bw_bytes_per_sec(),
            iops: d.iops(),
            clat_mean_ns: d.clat.mean(),
            clat_max_ns: d.clat.max(),
            clat_percentiles_ns: d.clat.percentiles(plist).into_iter().map(|(p, v)| (format!("{p:.6}"), v)).collect(),
            extra: Default::default(),
        })
    };
    let mut intervals = Vec::new();
    for (r, ..) in results {
        for (name, d) in [("read", &r.read), ("write", &r.write), ("trim", &r.trim)] {
            for iv in &d.intervals {
                intervals.push(RunInterval {
                    job: r.name.clone(),
                    direction: name.into(),
                    end_ns: iv.end_ns,
                    duration_ns: iv.duration_ns,
                    bytes: iv.bytes,
                    ios: iv.ios,
                    mean_lat_ns: iv.mean_lat_ns(),
                    max_lat_ns: iv.lat_ns_max,
                });
            }
        }
    }
    RunBody {
        jobfile: a.source().display().to_string(),
        jobs: reported
            .iter()
            .map(|(r, rw, bs, qd)| RunJob {
                name: r.name.clone(),
                groupid: r.groupid,
                rw: rw.clone(),
                bs: *bs,
                iodepth: *qd,
                read: dir(&r.read),
                write: dir(&r.write),
                trim: dir(&r.trim),
                extra: super::run_verify::extra(r),
            })
            .collect(),
        intervals,
        device: None,
        extra: Default::default(),
    }
}

/// Print or write the results: fio-style text or fio JSON, CSV, HTML report.
fn emit(
    a: &RunArgs,
    jf: &JobFile,
    json: bool,
    results: &[(JobResult, String, u64, u32)],
    what: String,
    device: Option<(String, flashlab_results::body::DeviceSummary)>,
) -> Result<(), Error> {
    let sys_secs = results.iter().map(|r| r.0.job_runtime_ns).sum::<u64>() / 1_000_000_000;
    let percentiles = jf.jobs[0].percentile_list.clone();
    // As fio reports them: one entry per reporting group under `group_reporting`.
    let (reported, members): (Vec<_>, Vec<u32>) = flashlab_lab::jobfile_run::reported(jf, results).into_iter().unzip();
    if json {
        // fio's own JSON, as fio writes it (separate from the results document).
        let ms = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
        let doc = fio_document(&reported, &percentiles, ms, sys_secs);
        match &a.output {
            Some(p) => write_json(p, &doc)?,
            None => println!(
                "{}",
                serde_json::to_string_pretty(&doc).map_err(|source| Error::Json { what: "fio's JSON", source })?
            ),
        }
    } else {
        outln!("flashlab run {} on {what}", a.source().display());
        for ((r, rw, bs, qd), jobs) in reported.iter().zip(&members) {
            out!("{}", job_text(r, *jobs, rw, *bs, *qd, &percentiles));
            if let Some(line) = super::run_verify::text_line(r) {
                outln!("{line}");
            }
        }
        if let Some((line, _)) = &device {
            crate::proseln!("{line}");
        }
    }
    let mut b = body(a, &reported, results, &percentiles);
    b.device = device.map(|d| d.1);
    let mut doc = Document::new(Body::Run(b)).seed(a.seed).param("jobfile", a.source().display().to_string());
    if let Some(t) = &a.target {
        doc = doc.target(t);
    }
    a.out.write(&doc, &a.source().display().to_string())?;
    super::run_verify::verdict(results)
}
