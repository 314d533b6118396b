//! fio's JSON (`--output-format=json`: fio itself, or `flashlab run --output-format json`),
//! read for the job-file charts; and a `run` document's body seen the same way.
//!
//! Why a reader of its own: fio's JSON is fio's format, not flashlab's results document
//! (`flashlab_results` types the document; `flashlab_measure::fio_json` only writes fio's
//! JSON, as a `serde_json::Value`, and has no type to read it into). So this module types the
//! few fields of fio's format the charts draw, under fio's names, and nothing else of it: per
//! job its name, group, options (`rw`, `bs`, `iodepth`, or the `global options`' ones), and
//! per direction the bandwidth, IOPS and completion-latency percentiles. flashlab's own
//! addition, `jobs[].flashlab_device`, is read as the document's `DeviceSummary`. A `run`
//! document ([`from_run_body`]) carries the same numbers under flashlab's names and is drawn
//! through the same view, so the charts have one source shape for job files.

use crate::error::InputError;
use flashlab_results::body::{DeviceSummary, RunBody, RunDirection};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The part of fio's JSON document the report draws.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FioOutput {
    /// `fio-3.33`, or `flashlab-0.1.0` from `flashlab run --output-format json`.
    #[serde(rename = "fio version", default)]
    pub version: Option<String>,
    /// Options of the `[global]` section (`rw`, `bs`, `iodepth` when no job sets them).
    #[serde(rename = "global options", default)]
    pub global: BTreeMap<String, Value>,
    /// One entry per job.
    pub jobs: Vec<FioJob>,
}

/// One job.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FioJob {
    pub jobname: String,
    #[serde(default)]
    pub groupid: u64,
    /// The job's own options (strings in fio's output).
    #[serde(rename = "job options", default)]
    pub options: BTreeMap<String, Value>,
    #[serde(default)]
    pub read: Option<FioDir>,
    #[serde(default)]
    pub write: Option<FioDir>,
    #[serde(default)]
    pub trim: Option<FioDir>,
    /// fio's `unified_rw_reporting=mixed|both`: the directions summed.
    #[serde(default)]
    pub mixed: Option<FioDir>,
    /// flashlab's addition on simulated targets: the device at the end.
    #[serde(default)]
    pub flashlab_device: Option<DeviceSummary>,
}

/// One direction of one job.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FioDir {
    pub io_bytes: f64,
    #[serde(default)]
    pub total_ios: Option<f64>,
    /// Bytes per second; older fio versions write only `bw` (KiB/s).
    #[serde(default)]
    pub bw_bytes: Option<f64>,
    #[serde(default)]
    pub bw: Option<f64>,
    #[serde(default)]
    pub iops: Option<f64>,
    /// Completion latency (fio's default percentiles).
    #[serde(default)]
    pub clat_ns: Option<FioLat>,
    /// Total latency (percentiles here with `lat_percentiles=1`).
    #[serde(default)]
    pub lat_ns: Option<FioLat>,
}

/// A latency object, ns.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FioLat {
    /// Percentile (`"99.000000"`) to latency.
    #[serde(default)]
    pub percentile: Option<BTreeMap<String, f64>>,
    #[serde(default)]
    pub max: Option<f64>,
}

impl FioOutput {
    /// Every percentile key is a number; the error names the table (read time, so drawing
    /// never meets a bad key).
    pub fn check(&self) -> Result<(), InputError> {
        if self.jobs.is_empty() {
            return Err(InputError::Empty { field: "jobs".into(), why: " (no job to draw)" });
        }
        for (i, j) in self.jobs.iter().enumerate() {
            for (name, d) in j.all_directions() {
                for (key, lat) in [("clat_ns", &d.clat_ns), ("lat_ns", &d.lat_ns)] {
                    let Some(p) = lat.as_ref().and_then(|l| l.percentile.as_ref()) else { continue };
                    if let Some(k) = p.keys().find(|k| k.parse::<f64>().is_err()) {
                        return Err(InputError::NotPercentile {
                            field: format!("jobs[{i}].{name}.{key}.percentile"),
                            key: k.clone(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// A job option (`rw`, `bs`, `iodepth`), from the job or else the global options, under
    /// its name or fio's other name for it (`readwrite`, `blocksize`).
    pub fn option(&self, job: &FioJob, names: &[&str]) -> Option<String> {
        let find = |m: &BTreeMap<String, Value>| names.iter().find_map(|n| text(m.get(*n)?));
        find(&job.options).or_else(|| find(&self.global))
    }

    /// The device profile of the first job that has a simulated device.
    pub fn profile(&self) -> Option<&str> {
        self.jobs.iter().find_map(|j| j.flashlab_device.as_ref()?.profile.as_deref())
    }
}

/// A string option as fio writes it, or a number written as one.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl FioJob {
    fn all_directions(&self) -> impl Iterator<Item = (&'static str, &FioDir)> {
        // With unified_rw_reporting=mixed the sum is all there is; with `both` the
        // directions are there too and the sum would count them twice.
        let split = self.read.is_some() || self.write.is_some() || self.trim.is_some();
        let mixed = if split { &None } else { &self.mixed };
        [("read", &self.read), ("write", &self.write), ("trim", &self.trim), ("mixed", mixed)]
            .into_iter()
            .filter_map(|(n, d)| d.as_ref().map(|d| (n, d)))
    }

    /// The directions that did I/O, in fio's order (read, write, trim).
    pub fn directions(&self) -> impl Iterator<Item = (&'static str, &FioDir)> {
        self.all_directions().filter(|(_, d)| d.total_ios.unwrap_or(0.0) > 0.0 || d.io_bytes > 0.0)
    }
}

impl FioDir {
    /// The latency whose percentiles fio reported: completion latency, else total latency.
    fn latency(&self) -> Option<&FioLat> {
        [&self.clat_ns, &self.lat_ns].into_iter().flatten().find(|l| l.percentile.is_some())
    }

    /// Bytes per second (`bw_bytes`, or `bw` KiB/s × 1024; 0 without either).
    pub fn bw_bytes(&self) -> f64 {
        self.bw_bytes.or(self.bw.map(|kib| kib * 1024.0)).unwrap_or(0.0)
    }

    /// (percentile, ns), ascending.
    pub fn percentiles(&self) -> Vec<(f64, f64)> {
        let mut v: Vec<(f64, f64)> = self
            .latency()
            .and_then(|l| l.percentile.as_ref())
            .map(|p| p.iter().filter_map(|(k, ns)| Some((k.parse().ok()?, *ns))).collect())
            .unwrap_or_default();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    }

    /// The longest latency of the latency whose percentiles are drawn, ns.
    pub fn max_ns(&self) -> Option<f64> {
        self.latency().and_then(|l| l.max)
    }
}

/// A `run` document's body in fio's shape: the same numbers `--output-format json` writes
/// (names, percentiles by fio's keys, bandwidth in bytes/s), the device beside every job.
pub(crate) fn from_run_body(b: &RunBody) -> FioOutput {
    let dir = |d: &RunDirection| FioDir {
        io_bytes: d.io_bytes as f64,
        total_ios: Some(d.total_ios as f64),
        bw_bytes: Some(d.bw_bytes),
        bw: None,
        iops: Some(d.iops),
        clat_ns: Some(FioLat {
            percentile: Some(d.clat_percentiles_ns.iter().map(|(k, ns)| (k.clone(), *ns as f64)).collect()),
            max: Some(d.clat_max_ns as f64),
        }),
        lat_ns: None,
    };
    FioOutput {
        version: None,
        global: BTreeMap::new(),
        jobs: b
            .jobs
            .iter()
            .map(|j| FioJob {
                jobname: j.name.clone(),
                groupid: u64::from(j.groupid),
                options: [
                    ("rw".to_string(), Value::from(j.rw.clone())),
                    ("bs".to_string(), Value::from(j.bs)),
                    ("iodepth".to_string(), Value::from(j.iodepth)),
                ]
                .into_iter()
                .collect(),
                read: j.read.as_ref().map(dir),
                write: j.write.as_ref().map(dir),
                trim: j.trim.as_ref().map(dir),
                mixed: None,
                flashlab_device: b.device.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::FioJob;

    /// fio's `unified_rw_reporting`: a `mixed`-only job reports its sum; with `both` the
    /// directions are reported and the sum is not counted again.
    #[test]
    fn mixed_is_a_direction_only_without_the_others() {
        let names = |text: &str| {
            let j: FioJob = serde_json::from_str(text).unwrap();
            j.directions().map(|(n, _)| n).collect::<Vec<_>>()
        };
        let mixed = r#""mixed": {"io_bytes": 8192, "total_ios": 2}"#;
        assert_eq!(names(&format!(r#"{{"jobname": "a", {mixed}}}"#)), ["mixed"]);
        let both = format!(
            r#"{{"jobname": "a", "read": {{"io_bytes": 4096, "total_ios": 1}}, "write": {{"io_bytes": 4096, "total_ios": 1}}, {mixed}}}"#
        );
        assert_eq!(names(&both), ["read", "write"]);
    }
}
