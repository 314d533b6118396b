//! The serve path: when the traced disk is a loop device over a `flashlab serve` mount's
//! `DIR/device`, split each job's D2C into the emulator's own parts, read from the server's
//! `DIR/stats.json` before and after the job (exact sums, so the parts are means over the
//! job's requests; no per-request join):
//!
//! - simulated host stack: the profile's `host_submit_us + host_complete_us`. serve answers a
//!   request at the model's `done`, which includes them, so on a serve device they sit inside
//!   D2C (the real stack above the loop device is measured in the other phases);
//! - simulated queue wait (`device_start − submitted − host_submit`);
//! - simulated device service (`device_done − device_start`: command, bus, NAND);
//! - FUSE + loop overhead = D2C − the whole simulated latency (`done − submitted`), all on the
//!   real clock (simulated ns ÷ `time_scale`).

use crate::stats::Dist;
use crate::target::Disk;
use crate::{BreakdownError, Dir};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A serve mount found behind a loop device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeDevice {
    /// The loop device's backing file (`DIR/device`).
    pub backing: PathBuf,
    /// `DIR/stats.json`.
    pub stats: PathBuf,
    /// The mount's source (`flashlab-sim:PROFILE`).
    pub source: String,
}

/// Whether `disk` is a loop device bound to the `device` file of a flashlab serve FUSE mount
/// (mount source `flashlab-sim:...`, as serve names its mounts).
pub fn detect(disk: &Disk) -> Option<ServeDevice> {
    if disk.partition.is_some() || !disk.name.starts_with("loop") {
        return None;
    }
    let m = flashlab_serve::mounts::behind_loop(&disk.name)?;
    Some(ServeDevice { stats: m.stats(), backing: m.device(), source: m.source() })
}

/// Running sums of one operation in a stats snapshot (simulated ns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpSums {
    /// Requests answered.
    pub count: u64,
    /// Sum of the simulated latency (`done − submitted`), simulated ns.
    pub model_ns: u64,
    /// Sum of the device service time, simulated ns.
    pub device_ns: u64,
    /// Sum of the time queued in the simulated host, simulated ns.
    pub queue_ns: u64,
}

/// The parts of a serve stats snapshot the split needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ServeStats {
    /// The served profile.
    pub profile: String,
    /// Simulated seconds per real second.
    pub time_scale: f64,
    /// The profile's host submit cost, simulated ns.
    pub host_submit_ns: f64,
    /// The profile's host completion cost, simulated ns.
    pub host_complete_ns: f64,
    /// Sums over reads.
    pub read: OpSums,
    /// Sums over writes.
    pub write: OpSums,
}

impl ServeStats {
    /// The sums of direction `d`.
    pub fn op(&self, d: Dir) -> OpSums {
        match d {
            Dir::Read => self.read,
            Dir::Write => self.write,
        }
    }
}

/// Parse a serve `stats.json` (`name` for error messages).
pub fn parse_stats(name: &str, text: &str) -> Result<ServeStats, BreakdownError> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| BreakdownError::Bad(format!("{name}: line {}: {e}", e.line())))?;
    let field = |path: &[&str]| -> Result<&Value, BreakdownError> {
        path.iter().try_fold(&v, |v, k| v.get(k)).ok_or_else(|| {
            BreakdownError::Bad(format!("{name}: field {} missing (not a flashlab serve stats file?)", path.join(".")))
        })
    };
    let num = |path: &[&str]| -> Result<f64, BreakdownError> {
        field(path)?
            .as_f64()
            .ok_or_else(|| BreakdownError::Bad(format!("{name}: field {}: not a number", path.join("."))))
    };
    let int = |path: &[&str]| -> Result<u64, BreakdownError> {
        field(path)?
            .as_u64()
            .ok_or_else(|| BreakdownError::Bad(format!("{name}: field {}: not a non-negative integer", path.join("."))))
    };
    let op = |k: &str| -> Result<OpSums, BreakdownError> {
        Ok(OpSums {
            count: int(&["latency", k, "model", "count"])?,
            model_ns: int(&["latency", k, "model", "sum_ns"])?,
            device_ns: int(&["latency", k, "device", "sum_ns"])?,
            queue_ns: int(&["latency", k, "queue", "sum_ns"])?,
        })
    };
    let time_scale = num(&["time_scale"])?;
    if !(time_scale.is_finite() && time_scale > 0.0) {
        return Err(BreakdownError::Bad(format!("{name}: field time_scale: {time_scale} is not > 0")));
    }
    Ok(ServeStats {
        profile: field(&["profile"])?.as_str().unwrap_or("?").to_string(),
        time_scale,
        host_submit_ns: num(&["host_stack", "submit_us"])? * 1000.0,
        host_complete_ns: num(&["host_stack", "complete_us"])? * 1000.0,
        read: op("read")?,
        write: op("write")?,
    })
}

/// Read and parse `DIR/stats.json` (every open is a fresh snapshot).
pub fn read_stats(path: &Path) -> Result<ServeStats, BreakdownError> {
    let text = std::fs::read_to_string(path).map_err(|e| BreakdownError::Bad(format!("{}: {e}", path.display())))?;
    parse_stats(&path.display().to_string(), &text)
}

/// One job's D2C split, in real ns (means over the requests serve answered during the job).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServeSplit {
    /// The served profile.
    pub profile: String,
    /// Simulated seconds per real second.
    pub time_scale: f64,
    /// Requests of the job's direction serve answered between the two snapshots.
    pub serve_requests: u64,
    /// Mean D2C of the job, real ns.
    pub d2c_mean_ns: f64,
    /// Median D2C of the job, real ns.
    pub d2c_p50_ns: i64,
    /// The whole simulated latency (`done − submitted`), real ns.
    pub sim_latency_mean_ns: f64,
    /// Simulated host stack (`host_submit + host_complete`), inside D2C on a serve device.
    pub sim_host_ns: f64,
    /// Mean time queued in the simulated host, real ns.
    pub sim_queue_mean_ns: f64,
    /// Simulated device service (`device_done − device_start`).
    pub sim_device_mean_ns: f64,
    /// D2C mean − simulated latency mean: the FUSE round trip, the loop driver and serve's own
    /// wake-up lateness.
    pub fuse_loop_overhead_mean_ns: f64,
    /// Simulated latency mean ÷ D2C mean.
    pub sim_share_of_d2c: f64,
}

/// The split of a job in direction `dir` whose D2C statistics are `d2c`, from the snapshots
/// taken before and after it.
pub fn split(before: &ServeStats, after: &ServeStats, dir: Dir, d2c: &Dist) -> Result<ServeSplit, BreakdownError> {
    let (a, b) = (before.op(dir), after.op(dir));
    let n = b.count.checked_sub(a.count).filter(|&n| n > 0).ok_or_else(|| {
        BreakdownError::Bad(format!(
            "serve stats: {} {} requests before the job and {} after (was the server restarted?)",
            a.count,
            dir.name(),
            b.count
        ))
    })?;
    let s = after.time_scale;
    let mean = |x: u64, y: u64| y.saturating_sub(x) as f64 / n as f64 / s;
    let sim = mean(a.model_ns, b.model_ns);
    Ok(ServeSplit {
        profile: after.profile.clone(),
        time_scale: s,
        serve_requests: n,
        d2c_mean_ns: d2c.mean_ns,
        d2c_p50_ns: d2c.p50_ns,
        sim_latency_mean_ns: sim,
        sim_host_ns: (after.host_submit_ns + after.host_complete_ns) / s,
        sim_queue_mean_ns: mean(a.queue_ns, b.queue_ns),
        sim_device_mean_ns: mean(a.device_ns, b.device_ns),
        fuse_loop_overhead_mean_ns: d2c.mean_ns - sim,
        sim_share_of_d2c: if d2c.mean_ns > 0.0 { sim / d2c.mean_ns } else { 0.0 },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATS: &str = r#"{"profile": "emmc-16g", "time_scale": 2.0,
        "host_stack": {"submit_us": 40.0, "complete_us": 30.0},
        "latency": {
          "read": {"model": {"count": 10, "sum_ns": 2000000}, "device": {"count": 10, "sum_ns": 1000000},
                   "queue": {"count": 10, "sum_ns": 0}},
          "write": {"model": {"count": 0, "sum_ns": 0}, "device": {"count": 0, "sum_ns": 0},
                    "queue": {"count": 0, "sum_ns": 0}}}}"#;

    #[test]
    fn splits_the_job_between_snapshots() {
        let before = parse_stats("s", STATS).unwrap();
        let mut after = before.clone();
        after.read = OpSums {
            count: 14,
            model_ns: 2_000_000 + 4 * 200_000,
            device_ns: 1_000_000 + 4 * 110_000,
            queue_ns: 4 * 2_000,
        };
        let d2c = Dist { mean_ns: 250_000.0, p50_ns: 240_000, ..Dist::default() };
        let s = split(&before, &after, Dir::Read, &d2c).unwrap();
        assert_eq!(s.serve_requests, 4);
        // Simulated ns ÷ time scale 2.
        assert_eq!(s.sim_latency_mean_ns, 100_000.0);
        assert_eq!(s.sim_device_mean_ns, 55_000.0);
        assert_eq!(s.sim_queue_mean_ns, 1_000.0);
        assert_eq!(s.sim_host_ns, 35_000.0);
        assert_eq!(s.fuse_loop_overhead_mean_ns, 150_000.0);
        assert!((s.sim_share_of_d2c - 0.4).abs() < 1e-12);
        assert!(split(&before, &before, Dir::Read, &d2c).unwrap_err().to_string().contains("restarted"));
    }

    #[test]
    fn bad_stats_name_the_field() {
        let e = parse_stats("x/stats.json", r#"{"profile": "p", "time_scale": 1}"#).unwrap_err().to_string();
        assert!(e.contains("x/stats.json") && e.contains("host_stack.submit_us"), "{e}");
        let e = parse_stats("x/stats.json", "{\n  nope").unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        let e = parse_stats("x", &STATS.replace("\"sum_ns\": 0}}}", "\"sum_ns\": -1}}}")).unwrap_err().to_string();
        assert!(e.contains("latency.write.queue.sum_ns"), "{e}");
    }
}
