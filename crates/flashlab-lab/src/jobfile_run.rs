//! An fio job file on a simulated system, as `flashlab run` and a sweep's `job` cases run it:
//! each job gets its own files on the simulated filesystem (fio's `jobname.N.K`, or the names
//! of `filename=`), laid out first when the job reads; stonewalled groups run one after another, the jobs of a group
//! side by side. The document is fio's JSON with the device's counters in each job.

use crate::engine::{run_group, JobSpec};
use crate::precondition::PreconditionReport;
use crate::system::SimSystem;
use crate::Error;
use flashlab_jobs::{Job, JobFile};
use flashlab_measure::{fio_json, JobResult, RunMeta};
use flashlab_simfs::FileId;
use flashlab_workload::zbd::ZbdDevice;
use flashsim::Op;
use serde_json::Value;
use std::sync::{Arc, Mutex};

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
    let share = unsized_share(sys, &jf.jobs);
    let mut results: Vec<JobRun> = Vec::new();
    // fio counts startdelay from its own start: the first group's.
    let mut origin = None;
    // exitall with exit_what=all ended the run: the later groups never start.
    let mut stopped = false;
    // fio's zonemode=zbd: the device's zones, shared by every zbd job of the run.
    let mut zones: Option<Arc<Mutex<ZbdDevice>>> = None;
    for (g, group) in groups.iter().enumerate() {
        if stopped {
            for &ji in group {
                let job = &jf.jobs[ji];
                for _ in 0..job.numjobs.max(1) {
                    let mut r = JobResult::new(job.name.clone(), g as u32);
                    r.iodepth = Some(job.iodepth.max(1));
                    r.extra = Some(serde_json::to_value(sys.device_report())?);
                    results.push((r, job.rw.fio_name().to_string(), job.max_bs(), job.iodepth.max(1)));
                }
            }
            continue;
        }
        let mut specs = Vec::new();
        // The job-file index of each spec (a job's clones follow each other).
        let mut of_job = Vec::new();
        for &ji in group {
            let job = &jf.jobs[ji];
            for n in 0..job.numjobs.max(1) {
                let seed = seed.wrapping_add(ji as u64 * 1000 + u64::from(n));
                let s = if job.zoned.zbd() || sys.device().is_zoned() || job.placement.on() {
                    raw_spec(sys, job, g as u32, n, seed, file_name, &mut zones)?
                } else {
                    spec(sys, job, g as u32, n, seed, file_name, share)?
                };
                specs.push(s);
                of_job.push(ji);
            }
        }
        let group_start = sys.now();
        let origin = *origin.get_or_insert(group_start);
        let exitall = jf.exitall();
        for (i, s) in specs.iter_mut().enumerate() {
            let job = &jf.jobs[of_job[i]];
            // fio's genesis is the run's start: the earlier groups' time counts towards it.
            s.settings.start_delay_ns = (origin + s.settings.start_delay_ns).saturating_sub(group_start);
            s.settings.exitall = exitall.then_some(job.exit_what);
            if let Some(w) = &job.wait_for {
                // Every clone of the job it waits for (the parser checked that it is one job,
                // earlier in the file); one in an earlier group has finished already.
                s.waits_for =
                    (0..of_job.len()).filter(|&k| jf.jobs[of_job[k]].name == *w && of_job[k] < of_job[i]).collect();
            }
        }
        let run = run_group(sys, &specs, |f| progress(g, groups.len(), f))?;
        stopped = run.stop_run;
        let res = run.results;
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

/// The runs as fio reports them: folded by `group_reporting` into one entry per reporting
/// group, and numbered by reporting group (`stonewall` and `new_group`), each with the number
/// of job clones it holds ([`flashlab_workload::report_groups::fold`]). Runs that do not line
/// up with the job file's clones are returned as they are, one clone each.
pub fn reported(jf: &JobFile, runs: &[JobRun]) -> Vec<(JobRun, u32)> {
    let pairs: Vec<(JobResult, (String, u64, u32))> =
        runs.iter().map(|(r, rw, bs, qd)| (r.clone(), (rw.clone(), *bs, *qd))).collect();
    match flashlab_workload::report_groups::fold(jf, &pairs) {
        Some(entries) => entries.into_iter().map(|e| ((e.result, e.first.0, e.first.1, e.first.2), e.jobs)).collect(),
        None => runs.iter().map(|r| (r.clone(), 1)).collect(),
    }
}

/// fio's JSON of a run: `timestamp_ms` is when it ended (a sweep gives 0, so that the same
/// case gives the same bytes), `elapsed_s` how long its jobs ran.
pub fn fio_document(results: &[JobRun], percentiles: &[f64], timestamp_ms: u64, elapsed_s: u64) -> Value {
    let mut meta = RunMeta::new(format!("flashlab-{}", env!("CARGO_PKG_VERSION")), timestamp_ms);
    meta.elapsed_s = elapsed_s;
    let jobs: Vec<JobResult> = results.iter().map(|r| r.0.clone()).collect();
    fio_json(&jobs, percentiles, &meta)
}

/// The size a new file of a job without `size=` (or `filesize=`) takes on a simulated target.
/// fio sizes such a job to its file or block device; here the new files of the whole run that
/// have no size share the filesystem's free space evenly, after the new files that have a size
/// are set aside. The whole run, not one group: a file stays when its group ends, so a later
/// group's new file needs its part too (a job file of stonewalled jobs without sizes, each on
/// its own file, would otherwise give the first job all the space and the next none).
fn unsized_share(sys: &SimSystem, jobs: &[Job]) -> u64 {
    let cap = sys.fs().capacity();
    let mut without = std::collections::BTreeSet::new();
    let mut sized = std::collections::BTreeMap::new();
    for job in jobs {
        for n in 0..job.numjobs.max(1) {
            let names = file_names(job, n);
            let new = |f: &String| sys.file_id(f).is_none();
            match job.file_sizes(cap) {
                Some(sizes) if job.size.is_some() || job.filesize.is_some() => {
                    for (name, size) in names.iter().zip(sizes).filter(|(f, _)| new(f)) {
                        let at_least = sized.entry(name.clone()).or_insert(0u64);
                        *at_least = (*at_least).max(size);
                    }
                }
                _ => without.extend(names.into_iter().filter(new)),
            }
        }
    }
    // A file some job sizes takes that size, whichever job creates it.
    without.retain(|f| !sized.contains_key(f));
    let free = sys.fs().free_bytes().saturating_sub(sized.values().sum());
    let share = free.checked_div(without.len() as u64).unwrap_or(0);
    share / (1 << 20) * (1 << 20)
}

/// The names of clone `n`'s files on the simulated filesystem. fio's semantics: `filename=`
/// names the file, and the same name is the same file (a fill job and a randwrite job on one
/// file share it; clones of a job share it too); without it the files are
/// `NAME.JOBNUM.FILENUM` (or `filename_format`), in `directory=` when given.
fn file_names(job: &Job, n: u32) -> Vec<String> {
    let multi = job.nr_files() > 1;
    match (&job.filename, &job.directory) {
        (Some(_), _) => job.file_names(n),
        (None, Some(d)) => job.file_names(n).into_iter().map(|f| format!("{d}/{f}")).collect(),
        (None, None) if !multi && job.filename_format.is_none() => vec![format!("{}.{n}.0", job.name)],
        (None, None) => job.file_names(n),
    }
}

/// Resolve a job against the simulated system: create (and for reads lay out) its file.
/// `share`: the size a new file of a job without `size=` takes (its part of the free space).
fn spec(
    sys: &mut SimSystem,
    job: &Job,
    group: u32,
    n: u32,
    seed: u64,
    file_name: &str,
    share: u64,
) -> Result<JobSpec, Error> {
    let here = format!("{file_name}:{}: job '{}'", job.line, job.name);
    let cannot =
        |message: String| Error::Job { file: file_name.to_string(), line: job.line, job: job.name.clone(), message };
    let cap = sys.fs().capacity();
    let multi = job.nr_files() > 1;
    let names = file_names(job, n);
    // fio's sizes (filesetup.c): `filesize` each (a range: drawn per file), or `size` split
    // over the files; without either, each file's own size, and a new file takes its share
    // of the simulated device's free space, as fio takes a block device's size.
    let sizes: Vec<u64> = match job.file_sizes(cap) {
        Some(s) if multi || job.filesize.is_some() => s,
        _ => match job.size {
            // fio's fill_device: a new file stops where the filesystem is full (its ENOSPC
            // ends the job without an error).
            Some(s) if job.fill_device && names.iter().all(|n| sys.file_id(n).is_none()) => {
                let bs = job.max_bs().max(1);
                vec![s.resolve(cap).min(sys.fs().free_bytes() / bs * bs)]
            }
            Some(s) => vec![s.resolve(cap)],
            None => {
                let mut v = Vec::with_capacity(names.len());
                for name in &names {
                    match sys.file_id(name).and_then(|id| sys.file_size(id)) {
                        Some(existing) => v.push(existing),
                        None if share >= job.max_bs() => v.push(share),
                        None => {
                            return Err(cannot(format!(
                                "no size=, and the simulated filesystem has {} bytes free for the new file '{name}'",
                                sys.fs().free_bytes()
                            )))
                        }
                    }
                }
                v
            }
        },
    };
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
    let mut regions = Vec::with_capacity(names.len());
    for (name, &size) in names.iter().zip(&sizes) {
        // fio's get_start_offset: clone n starts `n * offset_increment` further on; the file
        // then holds the region [offset, offset + size) (fio extends it), except that
        // flashlab keeps its region [offset, size) when there is no increment.
        let step = job.offset_increment.resolve(size);
        let first = job.offset.resolve(size);
        let offset = first.saturating_add(step.saturating_mul(u64::from(n)));
        // A file the clones share (filename=) is made large enough for the last clone's
        // region at once, so that no clone recreates it under another.
        let last = if job.filename.is_some() { job.numjobs.max(1) - 1 } else { n };
        let file_size = if step > 0 {
            first.saturating_add(step.saturating_mul(u64::from(last))).saturating_add(size - first.min(size))
        } else {
            size
        };
        if offset + bs > file_size {
            return Err(cannot(format!(
                "offset {offset} leaves no room for a {bs}-byte block in a {file_size}-byte file"
            )));
        }
        let file = open_or_lay_out(sys, job, name, file_size, &here)?;
        regions.push(crate::engine::FileRegion {
            name: name.clone(),
            file,
            offset,
            // Every clone's region is as long as clone 0's.
            span: (size - first.min(size)).min(file_size - offset) / bs * bs,
        });
    }
    let (file, offset, span) = (regions[0].file, regions[0].offset, regions[0].span);
    let spans: Vec<u64> = regions.iter().map(|r| r.span).collect();
    let io_limit = if multi || job.filesize.is_some() { Some(job.pass_bytes(cap, &spans)) } else { job.io_size };
    let verify = crate::sim_verify::SimVerifier::new(sys, &job.verify, file, offset, span)
        .map_err(Error::within(here.as_str()))?
        .map(|v| if job.rw.has_writes() { v } else { v.read_only() })
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
        waits_for: Vec::new(),
        zbd: None,
    })
}

/// A job on the simulated device itself, as fio runs a job on a block device: every job on a
/// zoned profile (fio opens the zoned block device), and every `zonemode=zbd` job (on a
/// conventional profile its zones are emulated from `zonesize`, as fio's are on a
/// conventional drive). The region is [offset, offset + size) of the device (the whole device
/// from `offset` without `size`), nothing is laid out first, and a zbd job gets the device's
/// zones (`zones`, made by the first zbd job of the run and shared) and its side of them.
fn raw_spec(
    sys: &mut SimSystem,
    job: &Job,
    group: u32,
    n: u32,
    seed: u64,
    file_name: &str,
    zones: &mut Option<Arc<Mutex<ZbdDevice>>>,
) -> Result<JobSpec, Error> {
    let cannot =
        |message: String| Error::Job { file: file_name.to_string(), line: job.line, job: job.name.clone(), message };
    let dev = sys.device();
    let cap = dev.logical_bytes();
    let target = format!("sim:{}", dev.profile().name);
    let zbd = job.zoned.zbd();
    if zbd && zones.is_none() {
        let z = match dev.zones() {
            Some(zs) => {
                let l = zs.layout();
                ZbdDevice::from_report(&dev.report_zones(), l.max_open, l.max_active)
            }
            None => ZbdDevice::emulated(&target, cap, job.zoned.size, job.zoned.capacity).map_err(cannot)?,
        };
        *zones = Some(Arc::new(Mutex::new(z)));
    }
    let mut job = job.clone();
    resolve_placement(dev, &mut job).map_err(cannot)?;
    let zone_size = match zones.as_ref().filter(|_| zbd) {
        Some(z) => {
            let d = z.lock().unwrap_or_else(|e| e.into_inner());
            if d.host_managed && job.zoned.size > 0 && job.zoned.size != d.zone_size() {
                return Err(cannot(format!(
                    "option 'zonesize': {} does not match the zone size of {target}, {} (fio refuses the job too; leave zonesize out to take the device's)",
                    job.zoned.size,
                    d.zone_size()
                )));
            }
            d.zone_size()
        }
        None => job.zoned.size,
    };
    flashlab_jobs::zoned::resolve(&mut job, zone_size);
    let job = &job;
    if zbd && dev.is_zoned() && job.rw.has_writes() && !job.direct {
        return Err(cannot(format!(
            "option 'direct': direct I/O is mandatory for writing to a zoned device with zonemode=zbd (fio refuses it too; add direct=1) on {target}"
        )));
    }
    if job.nr_files() > 1 {
        return Err(cannot(format!("several files per job (nrfiles, filename=a:b) on the device itself ({target})")));
    }
    for (name, b) in [("bs (read)", job.bs_read), ("bs (write)", job.bs_write), ("bs (trim)", job.bs_trim)] {
        if b == 0 || b % flashsim::SECTOR != 0 {
            return Err(cannot(format!("{name} = {b} is not a multiple of the {}-byte sector", flashsim::SECTOR)));
        }
    }
    let first = job.offset.resolve(cap);
    let step = job.offset_increment.resolve(cap);
    let offset = first.saturating_add(step.saturating_mul(u64::from(n)));
    let size = match job.size {
        Some(s) => s.resolve(cap),
        None => cap.saturating_sub(offset),
    };
    if offset.saturating_add(size) > cap || offset + job.max_bs() > cap {
        return Err(cannot(format!(
            "option 'offset': the region [{offset}, {offset} + {size}) runs past the end of {target} ({cap} bytes)"
        )));
    }
    let (offset, span, zbd_spec) = match zones.as_ref().filter(|_| zbd) {
        Some(z) => {
            let mut d = z.lock().unwrap_or_else(|e| e.into_inner());
            let zj = d.setup_job(job, &target, offset, size).map_err(cannot)?;
            let spec = crate::engine::ZbdSpec { dev: Arc::clone(z), job: zj.clone() };
            (zj.file_offset, zj.io_size, Some(spec))
        }
        None => (offset, size, None),
    };
    let bs = job.max_bs();
    let span = span / bs * bs;
    if span == 0 {
        return Err(cannot(format!("the region at {offset} of {target} holds no {bs}-byte block")));
    }
    let verify = crate::sim_verify::SimVerifier::new(sys, &job.verify, FileId::RAW, offset, span)
        .map_err(Error::within(format!("{file_name}:{}: job '{}'", job.line, job.name).as_str()))?
        .map(|v| if job.rw.has_writes() { v } else { v.read_only() })
        .map(|v| Arc::new(Mutex::new(v)));
    let mut settings = flashlab_workload::job::JobSettings::from_fio(job, offset, span, seed);
    settings.groupid = group;
    let mut spec = JobSpec::on_file(&job.name, job.rw, job.max_bs(), FileId::RAW, span);
    spec.settings = settings;
    spec.verify = verify;
    spec.zbd = zbd_spec;
    Ok(spec)
}

/// fio's data placement (`flashlab_jobs::placement`) against the device: the IDs a job may
/// use (its `plids`, checked, or every handle / none), and the `dp_scheme` file's entries. A
/// job with placement writes the device itself, as fio's passthrough engines do.
fn resolve_placement(dev: &flashsim::Device, job: &mut Job) -> Result<(), String> {
    use flashlab_jobs::placement::{Directive, Select};
    let p = &mut job.placement;
    let target = format!("sim:{}", dev.profile().name);
    let ids = match p.directive() {
        Directive::None => return Ok(()),
        Directive::Fdp => {
            let Some(fdp) = &dev.profile().fdp else {
                return Err(format!(
                    "option 'fdp': {target} has no Flexible Data Placement (no [fdp] in its profile; nvme-gen3-fdp has); fio stops such a job at set-up too, when it cannot read the device's reclaim unit handle status (\"fdp fetch ruhs failed\")"
                ));
            };
            fdp.handles
        }
        Directive::Streams => {
            if dev.profile().fdp.is_some() {
                return Err(format!(
                    "option 'dataplacement': {target} places data by FDP; use fdp=1 (this model takes streams on a device without [fdp])"
                ));
            }
            dev.profile().ftl.host_streams
        }
    };
    let what = if p.directive() == Directive::Fdp { "placement ID index" } else { "stream ID" };
    if let Some(&bad) = p.ids.iter().find(|&&i| i >= ids) {
        return Err(format!("option 'plids': {what} {bad} must be smaller than {ids}, the number {target} has"));
    }
    if p.ids.is_empty() {
        // fio's default: every handle the device reports (at most 128).
        p.ids = (0..ids.min(flashlab_jobs::placement::MAX_IDS as u32)).collect();
    }
    if p.select == Select::Scheme {
        let file = p.scheme_file.clone().unwrap_or_default();
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("option 'dp_scheme': cannot read the scheme file {file}: {e}"))?;
        p.scheme = flashlab_jobs::placement::parse_scheme(&text);
        if let Some(e) = p.scheme.iter().find(|e| e.id >= ids) {
            return Err(format!("option 'dp_scheme': {file}: {what} {} must be smaller than {ids}", e.id));
        }
    }
    Ok(())
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
