//! An fio job file on a simulated system, as `flashlab run` and a sweep's `job` cases run it:
//! each job gets its own files on the simulated filesystem (fio's `jobname.N.K`, or the names
//! of `filename=`), laid out first when the job reads; stonewalled groups run one after another, the jobs of a group
//! side by side. The document is fio's JSON with the device's counters in each job.

use crate::engine::{run_jobs, JobSpec};
use crate::precondition::PreconditionReport;
use crate::system::SimSystem;
use crate::Error;
use flashlab_jobs::{Job, JobFile};
use flashlab_measure::{fio_json, JobResult, RunMeta};
use flashlab_simfs::FileId;
use flashsim::Op;
use serde_json::Value;

/// Each job's result with its direction (fio's name), largest block size and queue depth.
pub type JobRun = (JobResult, String, u64, u32);

/// Run every job of `jf` on `sys`; `progress` gets (group, groups, fraction of the group).
/// `precondition`, when the device was preconditioned, goes into each job's device counters.
pub fn run_jobfile(
    sys: &mut SimSystem,
    jf: &JobFile,
    seed: u64,
    file_name: &str,
    precondition: Option<&PreconditionReport>,
    progress: &mut dyn FnMut(usize, usize, f64),
) -> Result<Vec<JobRun>, Error> {
    if jf.jobs.is_empty() {
        return Err(Error::NoJobs { file: file_name.to_string() });
    }
    let groups = jf.run_groups();
    let mut results: Vec<JobRun> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let mut specs = Vec::new();
        for &ji in group {
            let job = &jf.jobs[ji];
            for n in 0..job.numjobs.max(1) {
                specs.push(spec(sys, job, g as u32, n, seed.wrapping_add(ji as u64 * 1000 + u64::from(n)), file_name)?);
            }
        }
        let res = run_jobs(sys, &specs, |f| progress(g, groups.len(), f))?;
        let mut device = serde_json::to_value(sys.device_report())?;
        if let Some(pre) = precondition {
            device["precondition"] = serde_json::to_value(pre)?;
        }
        for (mut r, s) in res.into_iter().zip(&specs) {
            crate::sim_verify::finish(sys, s, &mut r)?;
            if let Some(job) = &s.settings.job {
                crate::iogen::check_rate_min(job, &r).map_err(|e| Error::At {
                    file: file_name.to_string(),
                    line: job.line,
                    source: Box::new(e),
                })?;
            }
            r.extra = Some(device.clone());
            results.push((
                r,
                s.settings.rw.fio_name().to_string(),
                s.settings.bs_write.max(s.settings.bs_read),
                s.settings.iodepth,
            ));
        }
    }
    Ok(results)
}

/// fio's JSON of a run: `timestamp_ms` is when it ended (a sweep gives 0, so that the same
/// case gives the same bytes), `elapsed_s` how long its jobs ran.
pub fn fio_document(results: &[JobRun], percentiles: &[f64], timestamp_ms: u64, elapsed_s: u64) -> Value {
    let mut meta = RunMeta::new(format!("flashlab-{}", env!("CARGO_PKG_VERSION")), timestamp_ms);
    meta.elapsed_s = elapsed_s;
    let jobs: Vec<JobResult> = results.iter().map(|r| r.0.clone()).collect();
    fio_json(&jobs, percentiles, &meta)
}

/// Resolve a job against the simulated system: create (and for reads lay out) its file.
fn spec(sys: &mut SimSystem, job: &Job, group: u32, n: u32, seed: u64, file_name: &str) -> Result<JobSpec, Error> {
    let here = format!("{file_name}:{}: job '{}'", job.line, job.name);
    let cannot =
        |message: String| Error::Job { file: file_name.to_string(), line: job.line, job: job.name.clone(), message };
    let cap = sys.fs().capacity();
    let multi = job.nr_files() > 1;
    // fio's sizes: `filesize` each, or `size` split over the files (one file: `size`).
    let sizes =
        if multi || job.filesize.is_some() { job.file_sizes(cap) } else { job.size.map(|s| vec![s.resolve(cap)]) }
            .ok_or_else(|| {
                cannot("no size= (flashlab needs the size of the job's file on a simulated device)".into())
            })?;
    if job.rw == flashlab_jobs::Rw::TrimWrite && (job.bs_trim != job.bs_write || job.is_random()) {
        return Err(cannot("rw=trimwrite needs one block size for trims and writes".into()));
    }
    for (name, b) in [("bs (read)", job.bs_read), ("bs (write)", job.bs_write), ("bs (trim)", job.bs_trim)] {
        if b == 0 || b % flashsim::SECTOR != 0 {
            return Err(cannot(format!("{name} = {b} is not a multiple of the {}-byte sector", flashsim::SECTOR)));
        }
    }
    for d in [flashlab_jobs::IoDir::Read, flashlab_jobs::IoDir::Write, flashlab_jobs::IoDir::Trim] {
        let sizes = job.block_sizes(d);
        let align = job.align(d);
        let bad = sizes.probabilities().into_iter().map(|(b, _)| b).chain([align]).find(|b| b % flashsim::SECTOR != 0);
        if let Some(b) = bad.filter(|_| job.bs_mix.is_some() || job.blockalign.iter().any(|&a| a > 0)) {
            return Err(cannot(format!(
                "block size or alignment {b} (bssplit/bsrange/blockalign) is not a multiple of the {}-byte sector",
                flashsim::SECTOR
            )));
        }
        if job.bs_unaligned && job.bs_mix.is_some() {
            return Err(cannot(format!(
                "bs_unaligned: a simulated device takes whole {}-byte sectors",
                flashsim::SECTOR
            )));
        }
    }
    if job.iodepth_batch_complete_min > 1 {
        // Waiting for several completions delays the reap of all but the last one; the
        // simulated host takes each completion at its instant and has no reap to delay.
        return Err(cannot(format!(
            "iodepth_batch_complete_min={} is not modelled on a simulated target (its host reaps each completion when it happens); real targets honour it",
            job.iodepth_batch_complete_min
        )));
    }
    let bs = job.max_bs();
    // fio's semantics: `filename=` names the file, and the same name is the same file (a fill
    // job and a randwrite job on one file share it; clones of a job share it too); without it
    // the files are `NAME.JOBNUM.FILENUM` (or `filename_format`), in `directory=` when given.
    let names: Vec<String> = match (&job.filename, &job.directory) {
        (Some(_), _) => job.file_names(n),
        (None, Some(d)) => job.file_names(n).into_iter().map(|f| format!("{d}/{f}")).collect(),
        (None, None) if !multi && job.filename_format.is_none() => vec![format!("{}.{n}.0", job.name)],
        (None, None) => job.file_names(n),
    };
    let mut regions = Vec::with_capacity(names.len());
    for (name, &size) in names.iter().zip(&sizes) {
        let offset = job.offset.resolve(size);
        if offset + bs > size {
            return Err(cannot(format!("offset {offset} leaves no room for a {bs}-byte block in a {size}-byte file")));
        }
        let file = open_or_lay_out(sys, job, name, size, &here)?;
        regions.push(crate::engine::FileRegion { name: name.clone(), file, offset, span: (size - offset) / bs * bs });
    }
    let (file, offset, span) = (regions[0].file, regions[0].offset, regions[0].span);
    let spans: Vec<u64> = regions.iter().map(|r| r.span).collect();
    let io_limit = if multi || job.filesize.is_some() { Some(job.pass_bytes(cap, &spans)) } else { job.io_size };
    let verify = crate::sim_verify::SimVerifier::new(sys, &job.verify, file, offset, span)
        .map_err(Error::within(here.as_str()))?
        .map(|v| std::sync::Arc::new(std::sync::Mutex::new(v)));
    let mut settings =
        flashlab_workload::job::JobSettings::from_fio(job, offset, if multi { spans.iter().sum() } else { span }, seed);
    settings.groupid = group;
    settings.io_limit = io_limit;
    Ok(JobSpec {
        settings,
        file,
        layer: crate::stack::LayerCost::ZERO,
        verify,
        files: if multi { regions } else { Vec::new() },
    })
}

/// The file `name` of `size` bytes: an existing one at least that large, or a new one, laid
/// out (written once, not measured) when the job reads, as fio lays out its files.
fn open_or_lay_out(sys: &mut SimSystem, job: &Job, name: &str, size: u64, here: &str) -> Result<FileId, Error> {
    if let Some(id) = sys.file_id(name).filter(|&id| sys.file_size(id).is_some_and(|s| s >= size)) {
        return Ok(id);
    }
    if sys.file_id(name).is_some() {
        sys.delete(name)?;
    }
    let f = sys.create(name, size).map_err(Error::within(here))?;
    if job.rw.has_reads() {
        let mut off = 0;
        while off < size {
            let len = (1u64 << 20).min(size - off);
            sys.io_now(f, Op::Write, off, len)?;
            off += len;
        }
    }
    Ok(f)
}

/// The job name as one file-name component: every '/' (and NUL) becomes '_', so a job named
/// `[/abs/path]` or `[../x]` never names a file outside its directory.
pub fn job_file_stem(name: &str) -> String {
    name.chars().map(|c| if c == '/' || c == '\0' { '_' } else { c }).collect()
}
