//! Host costs for the model, measured rather than assumed: a breakdown measured on a device that
//! takes no time — a loop device over a file in tmpfs (`bench/host-cost.sh`) — leaves only the
//! block stack's own cost in the phases around D2C. This module reads such a measured report
//! (`flashlab breakdown --json`), takes its queue-depth-1 jobs' medians — submit→Q + Q2D as the
//! submit cost, C→user as the completion cost — and scales them by a CPU factor (this machine's
//! core to the phone's; docs/breakdown.md states the factors and their source) for the model's
//! host phases (`flashlab breakdown --target sim:PROFILE --host-cost FILE --cpu-scale X`).
//!
//! Medians, not means: on a shared machine the means carry scheduling delays that a phone at
//! rest would not see. At queue depth 1 Q2D is the block layer's own work (nothing to wait
//! for); at depth it is mostly waiting, which is why only QD1 jobs are read.

use crate::BreakdownError;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// This machine's block-stack cost per request, and the scale applied to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostCost {
    /// Measured: median submit→Q + median Q2D, ns (mean over the QD1 jobs).
    pub measured_submit_ns: f64,
    /// Measured: median C→user, ns (mean over the QD1 jobs).
    pub measured_complete_ns: f64,
    /// Multiplier for the target CPU (1 = this machine).
    pub cpu_scale: f64,
    /// The measured report's target (the zero-latency device).
    pub measured_on: String,
    /// QD1 jobs the figures are averaged over.
    pub jobs: usize,
}

impl HostCost {
    /// Host submit cost on the simulated host, ns (measured × `cpu_scale`).
    pub fn submit_ns(&self) -> f64 {
        self.measured_submit_ns * self.cpu_scale
    }
    /// Host completion cost on the simulated host, ns (measured × `cpu_scale`).
    pub fn complete_ns(&self) -> f64 {
        self.measured_complete_ns * self.cpu_scale
    }

    /// Read a measured breakdown report's JSON.
    pub fn from_report_file(path: &Path, cpu_scale: f64) -> Result<HostCost, BreakdownError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| BreakdownError::Bad(format!("--host-cost {}: {e}", path.display())))?;
        HostCost::from_report_json(&text, cpu_scale)
            .map_err(|e| BreakdownError::Bad(format!("--host-cost {}: {e}", path.display())))
    }

    /// Host costs from a measured report's JSON (a results document or the report itself).
    pub fn from_report_json(text: &str, cpu_scale: f64) -> Result<HostCost, BreakdownError> {
        let bad = BreakdownError::HostCost;
        if !(cpu_scale.is_finite() && cpu_scale > 0.0) {
            return Err(bad(format!("--cpu-scale {cpu_scale}: must be a positive number")));
        }
        let mut v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not a breakdown report: {e}")))?;
        // `flashlab breakdown --json FILE` writes a results document (docs/results.md): the
        // report is its `results`; older files are the report itself.
        if v.get("schema_version").is_some() {
            v = v["results"].take();
        }
        let r: ReportIn = serde_json::from_value(v).map_err(|e| bad(format!("not a breakdown report: {e}")))?;
        if r.source != "measured" {
            return Err(bad(format!("source '{}': host costs come from a measured report, not a model", r.source)));
        }
        let phase = |j: &JobIn, name: &str| -> Result<f64, BreakdownError> {
            j.phases
                .iter()
                .find(|p| p.name == name)
                .map(|p| p.p50_ns as f64)
                .ok_or_else(|| bad(format!("job {} QD{}: no phase '{name}'", j.rw, j.iodepth)))
        };
        let (mut submit, mut complete, mut n) = (0.0, 0.0, 0usize);
        for j in r.jobs.iter().filter(|j| j.iodepth == 1) {
            submit += phase(j, "submit→Q")? + phase(j, "Q2D")?;
            complete += phase(j, "C→user")?;
            n += 1;
        }
        if n == 0 {
            return Err(bad("no queue-depth-1 job in the report (run it with --iodepth 1)".into()));
        }
        Ok(HostCost {
            measured_submit_ns: submit / n as f64,
            measured_complete_ns: complete / n as f64,
            cpu_scale,
            measured_on: r.target,
            jobs: n,
        })
    }
}

#[derive(Deserialize)]
struct ReportIn {
    source: String,
    target: String,
    jobs: Vec<JobIn>,
}

#[derive(Deserialize)]
struct JobIn {
    rw: String,
    iodepth: u32,
    phases: Vec<PhaseIn>,
}

#[derive(Deserialize)]
struct PhaseIn {
    name: String,
    p50_ns: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(source: &str, qd: u32) -> String {
        let phases = |s: i64, q: i64, d: i64, c: i64| {
            format!(
                r#"[{{"name":"submit→Q","p50_ns":{s}}},{{"name":"Q2D","p50_ns":{q}}},{{"name":"D2C","p50_ns":{d}}},{{"name":"C→user","p50_ns":{c}}}]"#
            )
        };
        format!(
            r#"{{"source":"{source}","target":"/dev/loop7","jobs":[{{"rw":"randread","iodepth":{qd},"phases":{}}},{{"rw":"randwrite","iodepth":{qd},"phases":{}}},{{"rw":"randwrite","iodepth":32,"phases":{}}}]}}"#,
            phases(2000, 1000, 5000, 9000),
            phases(4000, 1000, 7000, 11000),
            phases(90000, 90000, 5000, 9000)
        )
    }

    #[test]
    fn reads_the_qd1_medians_and_scales_them() {
        let h = HostCost::from_report_json(&report("measured", 1), 3.0).unwrap();
        assert_eq!(h.jobs, 2);
        assert_eq!(h.measured_submit_ns, 4000.0);
        assert_eq!(h.measured_complete_ns, 10000.0);
        assert_eq!(h.submit_ns(), 12000.0);
        assert_eq!(h.complete_ns(), 30000.0);
        assert_eq!(h.measured_on, "/dev/loop7");
    }

    #[test]
    fn refuses_models_reports_without_qd1_and_bad_scales() {
        assert!(HostCost::from_report_json(&report("model", 1), 1.0).unwrap_err().to_string().contains("measured"));
        assert!(HostCost::from_report_json(&report("measured", 4), 1.0)
            .unwrap_err()
            .to_string()
            .contains("--iodepth 1"));
        assert!(HostCost::from_report_json(&report("measured", 1), 0.0)
            .unwrap_err()
            .to_string()
            .contains("--cpu-scale"));
        assert!(HostCost::from_report_json("{", 1.0).unwrap_err().to_string().contains("not a breakdown report"));
    }
}
