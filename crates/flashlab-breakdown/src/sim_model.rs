//! The breakdown of a simulated device, from the model alone: per request, the host stack's
//! submit cost, the wait for a device queue slot, the device's time (command handling, bus,
//! NAND, and waiting for busy dies inside the device), and the host's completion cost — the
//! model's counterparts of submit→Q + Q2D, D2C and C→user. They add up exactly to the
//! simulated latency.
//!
//! The lab engine reports each completed I/O's submit and done times; the host costs and the
//! device's queue depth are the model's own (`flashsim`'s host interface). The time a request
//! entered the device is recovered by replaying the device's admission rule (a request gets a
//! slot when one of the `queue_depth` in flight has finished: `flashsim::HostInterface`) over the
//! requests in submission order; requests submitted at the same instant are ordered by when the
//! device finished them, which is the device's FIFO order on a one-slot device and leaves every
//! phase non-negative otherwise. A test checks the replay against the device's own
//! `Completion::device_start`.

use crate::stats::Breakdown;
use crate::{BreakdownError, Dir, JobKey};
use flashlab_jobs::Rw;
use flashlab_lab::engine::{run_jobs, run_jobs_observed, Completed, JobSpec};
use flashlab_lab::system::SimSystem;
use flashsim::{Device, Profile};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The host costs and device queue depth of the model, as the device applies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostModel {
    pub host_submit_ns: u64,
    pub host_complete_ns: u64,
    pub queue_depth: u32,
}

impl HostModel {
    /// The host model of `dev` (its profile's host interface).
    fn of(dev: &Device) -> HostModel {
        HostModel {
            host_submit_ns: dev.host().host_submit,
            host_complete_ns: dev.host().host_complete,
            queue_depth: dev.host().queue_depth,
        }
    }
}

/// Run `key` for `ios` I/Os over a file of `span` bytes on a fresh simulated `profile`;
/// returns the completed I/Os (in completion order) and the host model. The file is written
/// sequentially once first (so reads hit NAND, not unmapped blocks) and flushed.
fn run_model_job(
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
    Ok((out, HostModel::of(sys.device())))
}

/// The model's phase names.
pub const PHASES: [&str; 4] = ["host submit", "queue wait", "device", "host complete"];
/// The device's phase (the rest is the host stack or waiting in it).
pub const DEVICE_PHASE: usize = 2;

/// One request's times on the virtual clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelIo {
    pub submitted: u64,
    pub done: u64,
}

/// The phases of each request (same order as `ios`), in ns: host submit, queue wait, device,
/// host complete. Each row adds up to `done - submitted`.
pub fn model_phases(ios: &[ModelIo], host: &HostModel) -> Result<Vec<[i64; 4]>, BreakdownError> {
    let overhead = host.host_submit_ns + host.host_complete_ns;
    for (i, io) in ios.iter().enumerate() {
        if io.done < io.submitted + overhead {
            return Err(BreakdownError::Sim(format!(
                "request {i}: latency {} ns is below the model's host costs ({overhead} ns)",
                io.done.saturating_sub(io.submitted)
            )));
        }
    }
    let mut order: Vec<usize> = (0..ios.len()).collect();
    order.sort_by_key(|&i| (ios[i].submitted, ios[i].done));
    let mut in_flight: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    let qd = host.queue_depth.max(1) as usize;
    let mut rows = vec![[0i64; 4]; ios.len()];
    for i in order {
        let io = ios[i];
        let arrive = io.submitted + host.host_submit_ns;
        let device_done = io.done - host.host_complete_ns;
        while in_flight.peek().is_some_and(|&Reverse(d)| d <= arrive) {
            in_flight.pop();
        }
        let start = if in_flight.len() >= qd { in_flight.pop().map_or(arrive, |Reverse(d)| d) } else { arrive };
        // Never past the request's own device completion (only possible if the replay's order
        // differed from the device's).
        let start = start.clamp(arrive, device_done);
        in_flight.push(Reverse(device_done));
        rows[i] = [
            host.host_submit_ns as i64,
            (start - arrive) as i64,
            (device_done - start) as i64,
            host.host_complete_ns as i64,
        ];
    }
    Ok(rows)
}

/// The model breakdown of one job on `profile`.
pub fn model_job(profile: &Profile, seed: u64, key: JobKey, ios: u64, span: u64) -> Result<ModelJob, BreakdownError> {
    let (done, host) = run_model_job(profile, seed, key, ios, span)?;
    let ios: Vec<ModelIo> =
        done.iter().filter(|c| c.dir.is_some()).map(|c| ModelIo { submitted: c.submitted, done: c.done }).collect();
    let rows = model_phases(&ios, &host)?;
    let exact =
        rows.iter().zip(&ios).filter(|(r, io)| r.iter().sum::<i64>() == (io.done - io.submitted) as i64).count();
    Ok(ModelJob {
        key,
        host,
        breakdown: Breakdown::from_rows(PHASES, &rows),
        requests: ios.len() as u64,
        exact: exact as u64,
    })
}

/// What [`model_job`] found.
#[derive(Debug, Clone)]
pub struct ModelJob {
    pub key: JobKey,
    pub host: HostModel,
    pub breakdown: Breakdown,
    pub requests: u64,
    /// Requests whose phases add up exactly to the simulated latency.
    pub exact: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use flashlab_lab::precondition::Precondition;
    use flashsim::{Op, Request};

    fn profile(name: &str) -> Profile {
        Profile::from_toml(name, flashlab_lab::profiles::builtin(name).unwrap()).unwrap()
    }

    /// Drive the device directly at queue depth `qd` (closed loop, same-instant submissions in
    /// order) and compare the replayed device start of every request with the device's own.
    fn replay_matches_device(name: &str, qd: usize, op: Op) {
        let p = profile(name);
        let (mut dev, _, _) = flashlab_lab::precondition::device(&p, 7, Precondition::Fresh).unwrap();
        let span = 64u64 << 20;
        let mut t = 0;
        for off in (0..span).step_by(1 << 20) {
            t = dev.submit(t, &Request::new(Op::Write, off, 1 << 20)).unwrap().done;
        }
        let mut rng = flashlab_lab::rng::Rng::new(3);
        let mut truth = Vec::new();
        let mut flight: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
        let mut now = t;
        for k in 0..2000 {
            if k >= qd {
                now = flight.pop().unwrap().0;
            }
            let off = rng.below(span / 4096) * 4096;
            let c = dev.submit(now, &Request::new(op, off, 4096)).unwrap();
            flight.push(Reverse(c.done));
            truth.push(c);
        }
        let host = HostModel::of(&dev);
        // The engine reports completions in completion order: shuffle the input likewise.
        let mut idx: Vec<usize> = (0..truth.len()).collect();
        idx.sort_by_key(|&i| (truth[i].done, i));
        let ios: Vec<ModelIo> =
            idx.iter().map(|&i| ModelIo { submitted: truth[i].submitted, done: truth[i].done }).collect();
        let rows = model_phases(&ios, &host).unwrap();
        for (row, &i) in rows.iter().zip(&idx) {
            let c = truth[i];
            assert_eq!(row.iter().sum::<i64>(), (c.done - c.submitted) as i64);
            assert_eq!(
                row[1],
                (c.device_start - c.submitted - host.host_submit_ns) as i64,
                "{name} qd {qd}: queue wait of request {i}"
            );
            assert_eq!(row[2], (c.device_done - c.device_start) as i64, "{name} qd {qd}: device time of request {i}");
        }
    }

    #[test]
    fn replay_matches_the_device_emmc() {
        replay_matches_device("emmc-16g", 1, Op::Read);
        replay_matches_device("emmc-16g", 32, Op::Read);
        replay_matches_device("emmc-16g", 32, Op::Write);
    }

    #[test]
    fn replay_matches_the_device_ufs() {
        replay_matches_device("ufs-64g", 32, Op::Read);
        replay_matches_device("ufs-64g", 64, Op::Write);
    }

    #[test]
    fn model_phases_add_up_exactly() {
        let p = profile("emmc-16g");
        for key in crate::job_matrix(&[Dir::Read, Dir::Write], &[4096], &[1, 32]) {
            let m = model_job(&p, 1, key, 500, 16 << 20).unwrap();
            assert_eq!(m.requests, 500, "{key:?}");
            assert_eq!(m.exact, m.requests, "{key:?}: every request's phases add up to its latency");
            let share: f64 = m.breakdown.phases.iter().map(|ph| ph.share).sum();
            assert!((share - 1.0).abs() < 1e-9);
            // The host costs are the profile's, per request.
            assert_eq!(m.breakdown.phases[0].dist.p50_ns, (p.host.host_submit_us * 1000.0) as i64);
            if key.iodepth == 1 {
                assert_eq!(m.breakdown.phases[1].dist.max_ns, 0, "QD1: nothing waits for a slot");
            } else {
                assert!(m.breakdown.phases[1].share > 0.5, "eMMC without a command queue at QD32: mostly waiting");
            }
        }
    }

    #[test]
    fn latency_below_host_costs_is_an_error() {
        let host = HostModel { host_submit_ns: 100, host_complete_ns: 100, queue_depth: 1 };
        let e = model_phases(&[ModelIo { submitted: 0, done: 150 }], &host).unwrap_err().to_string();
        assert!(e.contains("request 0") && e.contains("host costs"), "{e}");
    }
}
