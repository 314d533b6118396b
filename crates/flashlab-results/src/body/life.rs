//! `life`: each run's time series (samples) and totals.

use crate::table::Table;
use crate::Extra;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Months of use: the usage model (or trace) and one run per trim policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LifeBody {
    /// `--duration` as given.
    pub duration: String,
    /// The usage model (or the trace and its replay statistics).
    pub usage: serde_json::Value,
    pub runs: Vec<LifeRun>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One run (one trim policy).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LifeRun {
    pub workload: String,
    pub policy: String,
    pub days: f64,
    pub pe_cycles: u32,
    pub samples: Vec<LifeSample>,
    pub virtual_s: f64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One sample of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LifeSample {
    /// Days since the start.
    pub day: f64,
    pub host_write_bytes: u64,
    pub nand_write_bytes: u64,
    /// NAND / host writes since new.
    pub waf: f64,
    pub free_blocks: u64,
    pub total_blocks: u64,
    pub erases_mean: f64,
    pub erases_max: u32,
    #[serde(default)]
    pub lifetime_years: Option<f64>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl LifeBody {
    /// One row per run: its last sample.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            "runs",
            &[
                ("policy", ""),
                ("days", ""),
                ("host written", "GB"),
                ("WAF", ""),
                ("free blocks", ""),
                ("erases mean", ""),
                ("erases max", ""),
                ("lifetime", "years"),
            ],
        );
        for r in &self.runs {
            let Some(s) = r.samples.last() else { continue };
            t.row(vec![
                r.policy.as_str().into(),
                s.day.into(),
                (s.host_write_bytes as f64 / 1e9).into(),
                s.waf.into(),
                s.free_blocks.into(),
                s.erases_mean.into(),
                s.erases_max.into(),
                s.lifetime_years.into(),
            ]);
        }
        t
    }
}
