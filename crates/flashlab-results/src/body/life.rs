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
    /// One run per trim policy compared (one without `--compare-policies`).
    pub runs: Vec<LifeRun>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One run (one trim policy).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LifeRun {
    /// The usage model's (or trace's) name.
    pub workload: String,
    /// The trim policy (`none`, `discard`, `fstrim:7d`, `android`, ...).
    pub policy: String,
    /// Days simulated.
    pub days: f64,
    /// The rated P/E cycles lifetime projections use.
    pub pe_cycles: u32,
    /// The device sampled every `--sample-days`.
    pub samples: Vec<LifeSample>,
    /// Virtual time simulated, seconds.
    pub virtual_s: f64,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One sample of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LifeSample {
    /// Days since the start.
    pub day: f64,
    /// Bytes the host wrote since the start.
    pub host_write_bytes: u64,
    /// Bytes programmed into NAND since the start.
    pub nand_write_bytes: u64,
    /// NAND / host writes since new.
    pub waf: f64,
    /// Erased blocks ready to be written.
    pub free_blocks: u64,
    /// Blocks of the NAND.
    pub total_blocks: u64,
    /// Mean erases per block.
    pub erases_mean: f64,
    /// Most erases of any block.
    pub erases_max: u32,
    /// Projected lifetime at this sample's write rate and WAF, years (none before any wear).
    #[serde(default)]
    pub lifetime_years: Option<f64>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
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
