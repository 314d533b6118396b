//! The breakdown report: one table per job (block size × queue depth × direction) with each
//! phase's p50/p90/p99, mean and share of the total latency, as btt prints them, and the same
//! as JSON (`--json`) for tools. Measured and modelled reports share the shape; a model says
//! so in its header and in `"source": "model"`.

use crate::run_real::RealJob;
use crate::sim_model::ModelJob;
use crate::stats::Breakdown;
use crate::JobKey;
use serde::Serialize;

/// The queueing phase in both phase lists: Q2D (measured) and queue wait (model).
pub const QUEUE_PHASE: usize = 1;

/// `4KiB`, `128KiB`, `1MiB`.
pub fn size_name(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{}MiB", b >> 20)
    } else if b.is_multiple_of(1024) {
        format!("{}KiB", b >> 10)
    } else {
        format!("{b}B")
    }
}

/// A duration in ns, printed in µs with 3 significant digits.
pub fn us(ns: f64) -> String {
    let u = ns / 1000.0;
    if u.abs() >= 100.0 {
        format!("{u:.0}")
    } else if u.abs() >= 10.0 {
        format!("{u:.1}")
    } else {
        format!("{u:.2}")
    }
}

/// One job's row of the report.
#[derive(Debug, Clone, Serialize)]
pub struct JobReport {
    pub rw: String,
    pub bs: u64,
    pub iodepth: u32,
    /// Requests completed.
    pub requests: u64,
    /// Requests the statistics are over (joined with their trace events; all of them for a
    /// model).
    pub analysed: u64,
    /// Measured only: requests not joined, by the event that was missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmatched: Option<crate::join::Unmatched>,
    /// Measured: joined requests whose phases are all ≥ −tolerance. Model: requests whose
    /// phases add up exactly to the simulated latency.
    pub consistent: u64,
    /// Measured only: joined requests that passed through `block_rq_insert`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inserted: Option<u64>,
    /// Measured only: events lost by the trace buffer (non-zero: raise the buffer or lower --ios).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_events_lost: Option<u64>,
    /// Share of the total spent in the host's software: every phase but the device's (D2C /
    /// device) and the queueing phase (Q2D / queue wait).
    pub software_share: f64,
    /// Share of the total spent queued (Q2D / queue wait): at depth mostly waiting behind other
    /// requests for the device, which is not software cost.
    pub queue_share: f64,
    #[serde(flatten)]
    pub breakdown: Breakdown,
    /// Measured on a flashlab serve loop device: D2C split into the emulator's parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serve: Option<crate::serve_split::ServeSplit>,
}

impl JobReport {
    pub fn key_name(&self) -> String {
        format!("{} {} QD{}", self.rw, size_name(self.bs), self.iodepth)
    }
}

/// A whole breakdown.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `measured` (block-layer trace) or `model` (simulated device).
    pub source: String,
    pub target: String,
    pub description: String,
    /// The phases in order; `device_phase` is the index of the device's.
    pub phase_names: Vec<String>,
    pub device_phase: usize,
    pub notes: Vec<String>,
    pub jobs: Vec<JobReport>,
}

fn key_fields(k: &JobKey) -> (String, u64, u32) {
    (k.rw_name().to_string(), k.bs, k.iodepth)
}

impl Report {
    pub fn measured(target: String, description: String, jobs: &[RealJob], notes: Vec<String>) -> Report {
        let jobs = jobs
            .iter()
            .map(|j| {
                let (rw, bs, iodepth) = key_fields(&j.key);
                JobReport {
                    rw,
                    bs,
                    iodepth,
                    requests: j.submitted,
                    analysed: j.joined,
                    unmatched: Some(j.unmatched),
                    consistent: j.consistent,
                    inserted: Some(j.inserted),
                    trace_events_lost: Some(j.drain.lost),
                    software_share: j.breakdown.share_except(crate::run_real::DEVICE_PHASE)
                        - j.breakdown.phases[QUEUE_PHASE].share,
                    queue_share: j.breakdown.phases[QUEUE_PHASE].share,
                    breakdown: j.breakdown.clone(),
                    serve: j.serve.clone(),
                }
            })
            .collect();
        Report {
            source: "measured".into(),
            target,
            description,
            phase_names: crate::run_real::PHASES.iter().map(|s| s.to_string()).collect(),
            device_phase: crate::run_real::DEVICE_PHASE,
            notes,
            jobs,
        }
    }

    pub fn model(target: String, description: String, jobs: &[ModelJob], notes: Vec<String>) -> Report {
        let jobs = jobs
            .iter()
            .map(|j| {
                let (rw, bs, iodepth) = key_fields(&j.key);
                JobReport {
                    rw,
                    bs,
                    iodepth,
                    requests: j.requests,
                    analysed: j.requests,
                    unmatched: None,
                    consistent: j.exact,
                    inserted: None,
                    trace_events_lost: None,
                    software_share: j.breakdown.share_except(crate::sim_model::DEVICE_PHASE)
                        - j.breakdown.phases[QUEUE_PHASE].share,
                    queue_share: j.breakdown.phases[QUEUE_PHASE].share,
                    breakdown: j.breakdown.clone(),
                    serve: None,
                }
            })
            .collect();
        Report {
            source: "model".into(),
            target,
            description,
            phase_names: crate::sim_model::PHASES.iter().map(|s| s.to_string()).collect(),
            device_phase: crate::sim_model::DEVICE_PHASE,
            notes,
            jobs,
        }
    }

    pub fn is_model(&self) -> bool {
        self.source == "model"
    }

    /// The human table.
    pub fn render_text(&self) -> String {
        let mut s = String::new();
        let what = if self.is_model() {
            "MODEL (simulated device; no real I/O was traced)"
        } else {
            "measured (block-layer trace joined with flashlab's own submit/complete times)"
        };
        s += &format!("flashlab breakdown: {} — {what}\n{}\n", self.target, self.description);
        for n in &self.notes {
            s += &format!("note: {n}\n");
        }
        for j in &self.jobs {
            s += &format!("\n{}: {} requests", j.key_name(), j.requests);
            if let Some(u) = j.unmatched {
                s += &format!(
                    ", {} joined with their events ({} without Q, {} without D, {} without C), {} in order",
                    j.analysed, u.no_queue, u.no_issue, u.no_complete, j.consistent
                );
            } else {
                s += &format!(", {} whose phases add up exactly", j.consistent);
            }
            if let Some(l) = j.trace_events_lost.filter(|&l| l > 0) {
                s += &format!(", WARNING: {l} trace events lost");
            }
            s += "\n";
            s += &format!(
                "  {:<14} {:>9} {:>9} {:>9} {:>9} {:>7}\n",
                "phase (µs)", "p50", "p90", "p99", "mean", "share"
            );
            for p in &j.breakdown.phases {
                s += &format!(
                    "  {:<14} {:>9} {:>9} {:>9} {:>9} {:>6.1}%\n",
                    p.name,
                    us(p.dist.p50_ns as f64),
                    us(p.dist.p90_ns as f64),
                    us(p.dist.p99_ns as f64),
                    us(p.dist.mean_ns),
                    p.share * 100.0
                );
            }
            let t = &j.breakdown.total;
            s += &format!(
                "  {:<14} {:>9} {:>9} {:>9} {:>9} {:>6.1}%\n",
                "total",
                us(t.p50_ns as f64),
                us(t.p90_ns as f64),
                us(t.p99_ns as f64),
                us(t.mean_ns),
                100.0
            );
            s += &format!(
                "  software (all but {} and {}): {:.1}% of the latency; queued ({}: waiting, not software): {:.1}%\n",
                self.phase_names[self.device_phase],
                self.phase_names[QUEUE_PHASE],
                j.software_share * 100.0,
                self.phase_names[QUEUE_PHASE],
                j.queue_share * 100.0
            );
            if let Some(v) = &j.serve {
                s += &format!(
                    "  D2C on the serve device ({}, means over {} requests serve answered, µs): D2C {} (p50 {}) = sim host stack {} + sim queue {} + sim device {} + FUSE+loop overhead {}; the simulated latency ({}) is {:.1}% of D2C\n",
                    v.profile,
                    v.serve_requests,
                    us(v.d2c_mean_ns),
                    us(v.d2c_p50_ns as f64),
                    us(v.sim_host_ns),
                    us(v.sim_queue_mean_ns),
                    us(v.sim_device_mean_ns),
                    us(v.fuse_loop_overhead_mean_ns),
                    us(v.sim_latency_mean_ns),
                    v.sim_share_of_d2c * 100.0
                );
            }
        }
        s
    }

    /// The summary table: one line per job, phase means and the software share; on a serve
    /// device, D2C's split (simulated latency, of it simulated device service, and the FUSE+loop
    /// overhead) right after D2C.
    pub fn render_summary(&self) -> String {
        let serve = self.jobs.iter().any(|j| j.serve.is_some());
        let mut s = format!("{:<22}", "job");
        for (i, n) in self.phase_names.iter().enumerate() {
            s += &format!(" {:>13}", n);
            if serve && i == self.device_phase {
                s += &format!(" {:>9} {:>9} {:>9}", "sim lat", "sim dev", "FUSE+loop");
            }
        }
        s += &format!(" {:>10} {:>9} {:>9}\n", "total µs", "software", "queued");
        for j in &self.jobs {
            s += &format!("{:<22}", j.key_name());
            for (i, p) in j.breakdown.phases.iter().enumerate() {
                s += &format!(" {:>13}", us(p.dist.mean_ns));
                if serve && i == self.device_phase {
                    let v = j.serve.as_ref();
                    let f = |x: fn(&crate::serve_split::ServeSplit) -> f64| v.map(|v| us(x(v))).unwrap_or("-".into());
                    s += &format!(
                        " {:>9} {:>9} {:>9}",
                        f(|v| v.sim_latency_mean_ns),
                        f(|v| v.sim_device_mean_ns),
                        f(|v| v.fuse_loop_overhead_mean_ns)
                    );
                }
            }
            s += &format!(
                " {:>10} {:>8.1}% {:>8.1}%\n",
                us(j.breakdown.total.mean_ns),
                j.software_share * 100.0,
                j.queue_share * 100.0
            );
        }
        s
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(size_name(4096), "4KiB");
        assert_eq!(size_name(1 << 20), "1MiB");
        assert_eq!(us(1234.0), "1.23");
        assert_eq!(us(45_600.0), "45.6");
        assert_eq!(us(456_000.0), "456");
    }
}
