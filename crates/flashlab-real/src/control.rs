//! Run control between the jobs of a group on a real target, where each job runs in a
//! thread of its own: fio's `startdelay` (from the group's origin), `wait_for` (a job starts
//! once the jobs it names have finished) and `exitall` (a finishing job stops the jobs its
//! `exit_what` names). The simulated engine does the same on its virtual clock.

use flashlab_jobs::ExitWhat;
use flashlab_workload::flow::Flow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The shared state of one group's jobs.
#[derive(Debug)]
pub struct GroupControl {
    /// The group's start: a job's `startdelay` counts from it.
    origin: Instant,
    state: Mutex<State>,
    changed: Condvar,
    /// Per job: `exitall` stopped it (its loop issues nothing more).
    stop: Vec<AtomicBool>,
    /// `exit_what=all` fired: the run's later groups do not start.
    stop_run: AtomicBool,
    /// fio's flow control: per job, its flow (an index into `flows`) and weight.
    job_flow: Vec<Option<(usize, u32)>>,
    /// The flows and, per job, its I/Os counted in its flow (one lock: a job's check and
    /// count are one step, as fio's atomics make them).
    flows: Mutex<(Vec<Flow>, Vec<u64>)>,
}

#[derive(Debug)]
struct State {
    started: Vec<bool>,
    finished: Vec<bool>,
    /// Stopped before it started: it never runs.
    cancelled: Vec<bool>,
}

impl GroupControl {
    /// Control for a group of `jobs` jobs starting at `origin`.
    pub fn new(jobs: usize, origin: Instant) -> Arc<GroupControl> {
        GroupControl::with_flows(origin, &vec![None; jobs])
    }

    /// Control for a group whose jobs have these flows (fio's `(flow_id, flow)` of each job;
    /// `None`: no flow control), starting at `origin`.
    pub fn with_flows(origin: Instant, job_flows: &[Option<(u32, u32)>]) -> Arc<GroupControl> {
        let jobs = job_flows.len();
        let mut ids: Vec<u32> = Vec::new();
        let mut flows: Vec<Flow> = Vec::new();
        let mut job_flow = Vec::with_capacity(jobs);
        for jf in job_flows {
            job_flow.push(jf.map(|(id, w)| {
                let f = ids.iter().position(|&i| i == id).unwrap_or_else(|| {
                    ids.push(id);
                    flows.push(Flow::default());
                    flows.len() - 1
                });
                flows[f].join(w);
                (f, w)
            }));
        }
        Arc::new(GroupControl {
            job_flow,
            flows: Mutex::new((flows, vec![0; jobs])),
            origin,
            state: Mutex::new(State {
                started: vec![false; jobs],
                finished: vec![false; jobs],
                cancelled: vec![false; jobs],
            }),
            changed: Condvar::new(),
            stop: (0..jobs).map(|_| AtomicBool::new(false)).collect(),
            stop_run: AtomicBool::new(false),
        })
    }

    /// A job with `exit_what=all` finished: the run's later groups must not start.
    pub fn stop_run(&self) -> bool {
        self.stop_run.load(Ordering::Acquire)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One job's handle on its group's [`GroupControl`].
#[derive(Debug, Clone)]
pub struct JobControl {
    /// The group.
    pub group: Arc<GroupControl>,
    /// The job's index in the group.
    pub index: usize,
    /// fio's `wait_for`: the jobs (indices in the group) that must have finished before it
    /// starts.
    pub waits_for: Vec<usize>,
}

impl JobControl {
    /// Wait until the job may start: `delay_ns` after the group's origin, and every job it
    /// waits for has finished. False: `exitall` stopped it first, so it never runs.
    pub fn wait_to_start(&self, delay_ns: u64) -> bool {
        let due = self.group.origin + Duration::from_nanos(delay_ns);
        let mut st = self.group.lock();
        loop {
            if st.cancelled[self.index] {
                return false;
            }
            let now = Instant::now();
            if now >= due && self.waits_for.iter().all(|&w| st.finished[w]) {
                st.started[self.index] = true;
                return true;
            }
            let wait = if now < due { due - now } else { Duration::from_secs(1) };
            st = self.group.changed.wait_timeout(st, wait).unwrap_or_else(|e| e.into_inner()).0;
        }
    }

    /// fio's flow control before each I/O: true when the job may issue one (it is counted),
    /// false while it is ahead of its flow's share. Always true for a job without `flow`.
    pub fn flow_go(&self) -> bool {
        let g = &self.group;
        let Some((f, w)) = g.job_flow[self.index] else { return true };
        let mut st = g.flows.lock().unwrap_or_else(|e| e.into_inner());
        let (flows, counts) = &mut *st;
        flows[f].go(&mut counts[self.index], w)
    }

    /// `exitall` has stopped the job.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.group.stop[self.index].load(Ordering::Relaxed)
    }

    /// The job has finished (or failed): the jobs waiting for it may start, and with
    /// `exitall` the jobs `exit_what` names stop — `group`: every other job of the group,
    /// started or not (one not started never runs); `stonewall`: the running ones; `all`:
    /// as `group`, and the later groups do not run.
    pub fn finished(&self, exitall: Option<ExitWhat>) {
        let g = &self.group;
        if let Some((f, w)) = g.job_flow[self.index] {
            // fio's flow_exit_job: the job's I/Os and weight leave its flow.
            let mut st = g.flows.lock().unwrap_or_else(|e| e.into_inner());
            let (flows, counts) = &mut *st;
            flows[f].leave(std::mem::take(&mut counts[self.index]), w);
        }
        let mut st = g.lock();
        st.finished[self.index] = true;
        if let Some(what) = exitall {
            if what == ExitWhat::All {
                g.stop_run.store(true, Ordering::Release);
            }
            for k in 0..st.finished.len() {
                if k == self.index || st.finished[k] {
                    continue;
                }
                if !st.started[k] {
                    if what != ExitWhat::Stonewall {
                        st.cancelled[k] = true;
                    }
                    continue;
                }
                g.stop[k].store(true, Ordering::Relaxed);
            }
        }
        drop(st);
        g.changed.notify_all();
    }
}

/// Calls [`JobControl::finished`] when dropped: however the job's thread ends (an error
/// included), the jobs waiting for it are not left waiting.
#[derive(Debug)]
pub struct FinishGuard {
    control: JobControl,
    exitall: Option<ExitWhat>,
}

impl FinishGuard {
    /// A guard for a job with this `exitall`.
    pub fn new(control: JobControl, exitall: Option<ExitWhat>) -> FinishGuard {
        FinishGuard { control, exitall }
    }
}

impl Drop for FinishGuard {
    fn drop(&mut self) {
        self.control.finished(self.exitall);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_cancelling_and_stopping() {
        let g = GroupControl::new(3, Instant::now());
        let c = |i, w: Vec<usize>| JobControl { group: g.clone(), index: i, waits_for: w };
        let (a, b, d) = (c(0, vec![]), c(1, vec![]), c(2, vec![0]));
        assert!(a.wait_to_start(0) && b.wait_to_start(1_000_000));
        assert!(g.origin.elapsed() >= Duration::from_millis(1), "b waited for its delay");
        let waiter = std::thread::spawn(move || (d.wait_to_start(0), Instant::now()));
        std::thread::sleep(Duration::from_millis(20));
        let t = Instant::now();
        a.finished(Some(ExitWhat::Stonewall));
        let (ok, at) = waiter.join().unwrap();
        assert!(ok && at >= t, "d started once a had finished");
        assert!(b.stopped(), "stonewall stops the running b");
        assert!(!g.stop_run());
        // group: a job not started yet never runs.
        let g = GroupControl::new(2, Instant::now());
        let (a, b) = (
            JobControl { group: g.clone(), index: 0, waits_for: vec![] },
            JobControl { group: g.clone(), index: 1, waits_for: vec![0] },
        );
        assert!(a.wait_to_start(0));
        drop(FinishGuard::new(a, Some(ExitWhat::All)));
        assert!(!b.wait_to_start(0), "cancelled");
        assert!(g.stop_run());
    }
}
