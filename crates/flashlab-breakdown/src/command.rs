//! The `flashlab breakdown` command as a library call: resolve the target (`sim:PROFILE`, a
//! block device, or a directory to create a file in), run every job, and build the
//! [`Report`]. The CLI only parses options, calls [`run`] and prints.

use crate::report::Report;
use crate::run_real::{breakdown_real, RealOptions};
use crate::sim_model::model_job;
use crate::target::{create_file, is_block_device, open_block};
use crate::tracefs::{find_tracefs, install_signal_handlers, load_layouts, DEFAULT_ROOTS};
use crate::{BreakdownError, JobKey};
use flashlab_real::engine::EngineKind;
use flashsim::Profile;
use std::path::{Path, PathBuf};

/// Everything a breakdown run needs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The target as given: a directory, a block device or `sim:PROFILE`.
    pub target: String,
    /// `--destroy-data`: a raw block device may be written.
    pub destroy_data: bool,
    /// The jobs to run, in order.
    pub jobs: Vec<JobKey>,
    /// I/Os per job.
    pub ios: u64,
    /// Bytes of the target the jobs spread over (file size, or the first bytes of a device).
    pub span: u64,
    /// The I/O engine on a real target.
    pub engine: EngineKind,
    /// Seed of the random offsets.
    pub seed: u64,
    /// On `sim:PROFILE`: host costs measured on this machine (scaled) instead of the profile's.
    pub host_cost: Option<crate::host_cost::HostCost>,
}

/// A profile from `sim:NAME` (built-in) or `sim:FILE.toml`, loaded as every command loads one.
pub fn sim_profile(spec: &str) -> Result<Profile, BreakdownError> {
    let name = spec.strip_prefix("sim:").unwrap_or(spec);
    flashlab_lab::profiles::load(name).map_err(|e| BreakdownError::Bad(format!("--target {spec}: {e}")))
}

/// Run the breakdown; `progress` hears each job as it starts.
pub fn run(o: &Options, progress: &mut dyn FnMut(&str)) -> Result<Report, BreakdownError> {
    if o.ios == 0 || o.ios > flashlab_jobs::limits::MAX_IOS {
        return Err(BreakdownError::Bad(format!(
            "--ios {}: must be 1..={} (docs/reliability.md)",
            o.ios,
            flashlab_jobs::limits::MAX_IOS
        )));
    }
    if o.jobs.is_empty() {
        return Err(BreakdownError::Bad("no jobs: --rw, --bs and --iodepth must each name at least one".into()));
    }
    if let Some(k) = o.jobs.iter().find(|k| k.bs == 0 || !k.bs.is_multiple_of(4096) || k.bs > o.span) {
        return Err(BreakdownError::Bad(format!(
            "--bs {}: must be a non-zero multiple of 4 KiB and at most --size ({} bytes)",
            k.bs, o.span
        )));
    }
    if o.target.starts_with("sim:") {
        return run_model(o, progress);
    }
    // Tracing support first: without it nothing is created or opened.
    let roots: Vec<&Path> = DEFAULT_ROOTS.iter().map(Path::new).collect();
    load_layouts(&find_tracefs(&roots)?)?;
    install_signal_handlers().map_err(|e| BreakdownError::Bad(format!("installing signal handlers: {e}")))?;
    let path = PathBuf::from(&o.target);
    let target =
        if is_block_device(&path)? { open_block(&path, o.destroy_data, o.span)? } else { create_file(&path, o.span)? };
    let ro = RealOptions {
        ios: o.ios,
        engine: o.engine,
        seed: o.seed,
        tracefs_roots: DEFAULT_ROOTS.iter().map(PathBuf::from).collect(),
    };
    let (jobs, root) = breakdown_real(&target, &o.jobs, &ro, progress)?;
    let notes = vec![
        format!(
            "{} I/Os per job, random offsets over {} MiB, O_DIRECT, {} engine; seed {}",
            o.ios,
            target.span >> 20,
            o.engine.name(),
            o.seed
        ),
        format!(
            "events block_bio_queue/rq_insert/rq_issue/rq_complete of {}:{} from {root} (private instance, trace_clock mono, per-CPU binary buffers); joined by sector and time, tolerance {} µs",
            target.disk.major,
            target.disk.minor,
            crate::join::TOLERANCE_NS as f64 / 1000.0
        ),
        "submit→Q: system call to bio queued; Q2D: block layer until issued to the driver (includes I2D); D2C: driver + device; C→user: completion to the reap call returning".into(),
        if jobs.iter().any(|j| j.serve.is_some()) {
            "flashlab serve device: D2C split with the server's stats.json read before and after each job (means; the requests serve answered in that window). serve answers at the model's completion, which includes the profile's simulated host stack (host_submit + host_complete), so that sits inside D2C too; FUSE+loop overhead = D2C mean − the whole simulated latency mean, on the real clock (simulated time ÷ time scale)".into()
        } else {
            "not a loop device over a flashlab serve mount: D2C is not split further".into()
        },
    ];
    Ok(Report::measured(o.target.clone(), target.describe(), &jobs, notes))
}

fn run_model(o: &Options, progress: &mut dyn FnMut(&str)) -> Result<Report, BreakdownError> {
    let mut profile = sim_profile(&o.target)?;
    if let Some(h) = &o.host_cost {
        profile.host.host_submit_us = h.submit_ns() / 1000.0;
        profile.host.host_complete_us = h.complete_ns() / 1000.0;
    }
    // The per-request phases are recovered by replaying the device's admission with constant
    // host costs (`sim_model`): the jobs run with the host stack at its medians.
    // They are raw block requests on the plain model: the [system] table's CPU costs of
    // filesystem calls are not theirs either.
    let mut steady = profile.clone();
    let jittered = steady.host.host_jitter.take().is_some();
    steady.system = None;
    let mut jobs = Vec::new();
    for &key in &o.jobs {
        progress(&format!("{} {} QD{}", key.rw_name(), crate::report::size_name(key.bs), key.iodepth));
        jobs.push(model_job(&steady, o.seed, key, o.ios, o.span)?);
    }
    let host = jobs.first().map(|j| j.host);
    let mut notes = vec![format!(
        "{} I/Os per job, random offsets over a {} MiB file written once; seed {}",
        o.ios,
        o.span >> 20,
        o.seed
    )];
    if let (Some(h), Some(c)) = (host, &o.host_cost) {
        notes.push(format!(
            "model: host submit {:.1} µs and host complete {:.1} µs per request are this machine's block stack measured on {} (medians at QD1 over {} jobs: submit→Q + Q2D {:.2} µs, C→user {:.2} µs) times the CPU scale {}; queue wait is waiting for one of the device's {} command slot(s), not software; device is command handling, bus and NAND (including waits for busy dies)",
            h.host_submit_ns as f64 / 1000.0,
            h.host_complete_ns as f64 / 1000.0,
            c.measured_on,
            c.jobs,
            c.measured_submit_ns / 1000.0,
            c.measured_complete_ns / 1000.0,
            c.cpu_scale,
            h.queue_depth
        ));
    } else if let Some(h) = host {
        notes.push(format!(
            "model: host submit {} µs and host complete {} µs per request are the profile's host costs; queue wait is waiting for one of the device's {} command slot(s); device is command handling, bus and NAND (including waits for busy dies)",
            h.host_submit_ns as f64 / 1000.0,
            h.host_complete_ns as f64 / 1000.0,
            h.queue_depth
        ));
    }
    if jittered {
        notes.push("the profile's host_jitter is off in these jobs (host costs at their medians: the phases are recovered by replaying the device's admission with constant host costs); the durable write below has it".into());
    }
    let desc = format!("{} — {}", profile.name, profile.description);
    let mut report = Report::model(o.target.clone(), desc, &jobs, notes);
    if profile.system.is_some() {
        progress("one durable 4 KiB write, part by part");
        report.durable_write = Some(crate::durable::durable_write(&profile, o.seed, o.ios, o.ios / 10, o.span)?);
    }
    Ok(report)
}
