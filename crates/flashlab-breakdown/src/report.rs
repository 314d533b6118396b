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
    /// `randread` or `randwrite`.
    pub rw: String,
    /// Block size, bytes.
    pub bs: u64,
    /// Queue depth.
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
    /// The phases' statistics.
    #[serde(flatten)]
    pub breakdown: Breakdown,
    /// Measured on a flashlab serve loop device: D2C split into the emulator's parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serve: Option<crate::serve_split::ServeSplit>,
}

impl JobReport {
    /// The job as the tables name it, e.g. `randread 4KiB QD1`.
    pub fn key_name(&self) -> String {
        format!("{} {} QD{}", self.rw, size_name(self.bs), self.iodepth)
    }
}

/// A whole breakdown.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `measured` (block-layer trace) or `model` (simulated device).
    pub source: String,
    /// The target as given.
    pub target: String,
    /// What the target is (device, filesystem, model).
    pub description: String,
    /// The phases in order; `device_phase` is the index of the device's.
    pub phase_names: Vec<String>,
    /// Index in `phase_names` of the device's phase.
    pub device_phase: usize,
    /// Notes printed under the tables.
    pub notes: Vec<String>,
    /// One entry per job.
    pub jobs: Vec<JobReport>,
    /// On a simulated system with a `[system]` table: one durable 4 KiB write through its
    /// whole stack, part by part ([`crate::durable`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub durable_write: Option<crate::durable::DurableReport>,
}

fn key_fields(k: &JobKey) -> (String, u64, u32) {
    (k.rw_name().to_string(), k.bs, k.iodepth)
}

impl Report {
    /// The report of traced jobs on a real target.
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
            durable_write: None,
        }
    }

    /// The report of modelled jobs on a simulated device.
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
            durable_write: None,
        }
    }

    /// The report comes from the model, not a trace.
    pub fn is_model(&self) -> bool {
        self.source == "model"
    }

    /// The human text: a header and one table per job (see [`crate::text`]).
    pub fn render_text(&self) -> String {
        crate::text::render_text(self)
    }

    /// The durable-write section as text, if the report has one.
    pub fn render_durable(&self) -> Option<String> {
        self.durable_write.as_ref().map(crate::text::render_durable)
    }

    /// The summary table: one line per job (see [`crate::text::summary_table`]).
    pub fn render_summary(&self) -> String {
        crate::text::render_summary(self)
    }

    /// The report as pretty JSON.
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
