//! Every call flashlab breakdown makes into the simulated system (`flashlab_lab::system::SimSystem`
//! and its engine), in one place, so the coming filesystem API change touches only this file.
//!
//! A model run: a fresh simulated system, one file of `span` bytes written sequentially once
//! (so reads hit NAND, not unmapped blocks) and flushed, then the measured job through
//! `flashlab_lab::engine::run_jobs_observed`, keeping every completed I/O.

use crate::{BreakdownError, Dir, JobKey};
use flashlab_jobs::Rw;
use flashlab_lab::engine::{run_jobs, run_jobs_observed, Completed, JobSpec};
use flashlab_lab::system::SimSystem;
use flashsim::Profile;

/// The host costs and device queue depth of the model, as the device applies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostModel {
    pub host_submit_ns: u64,
    pub host_complete_ns: u64,
    pub queue_depth: u32,
}

/// Run `key` for `ios` I/Os over a file of `span` bytes on a fresh simulated `profile`;
/// returns the completed I/Os (in completion order) and the host model.
pub fn run_model_job(
    profile: &Profile,
    seed: u64,
    key: JobKey,
    ios: u64,
    span: u64,
) -> Result<(Vec<Completed>, HostModel), BreakdownError> {
    let mut sys = SimSystem::new(profile, seed, false);
    let file = sys.create("breakdown", span).map_err(|e| BreakdownError::Sim(e.to_string()))?;
    let mut fill = JobSpec::on_file("fill", Rw::Write, 1 << 20, file, span);
    fill.settings.iodepth = 4;
    run_jobs(&mut sys, &[fill], |_| {}).map_err(|e| BreakdownError::Sim(format!("fill: {e}")))?;
    sys.sync().map_err(|e| BreakdownError::Sim(format!("flush after fill: {e}")))?;
    let rw = match key.dir {
        Dir::Read => Rw::RandRead,
        Dir::Write => Rw::RandWrite,
    };
    let mut spec = JobSpec::on_file(key.rw_name(), rw, key.bs, file, span);
    spec.settings.iodepth = key.iodepth;
    spec.settings.number_ios = Some(ios);
    spec.settings.seed = seed;
    let mut out = Vec::with_capacity(ios as usize);
    run_jobs_observed(&mut sys, &[spec], |_| {}, |c, _| out.push(c)).map_err(|e| BreakdownError::Sim(e.to_string()))?;
    let host = HostModel {
        host_submit_ns: sys.dev.host().host_submit,
        host_complete_ns: sys.dev.host().host_complete,
        queue_depth: sys.dev.host().queue_depth,
    };
    Ok((out, host))
}
