//! `wsat`: IOPS per interval of SNIA write saturation.

use super::DeviceSummary;
use crate::table::{Format, Table};
use crate::Extra;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Write saturation's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WsatBody {
    pub iodepth: u32,
    pub capacity_bytes: u64,
    pub intervals: Vec<WsatInterval>,
    pub device: DeviceSummary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precondition: Option<serde_json::Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WsatInterval {
    /// Capacity written so far (1.0 = the logical capacity once).
    pub capacity_written: f64,
    /// Virtual time at the end of the interval, seconds.
    pub at_s: f64,
    pub iops: f64,
    pub write_amplification: f64,
    pub free_blocks: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

impl WsatBody {
    /// Every interval.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            "intervals",
            &[("capacity written", "x"), ("at", "s"), ("IOPS", ""), ("WAF", ""), ("free blocks", "")],
        )
        .format(0, Format::Fixed(2))
        .format(1, Format::Sig(4))
        .format(2, Format::Sig(4))
        .format(3, Format::Fixed(2))
        .format(4, Format::Fixed(0));
        for iv in &self.intervals {
            t.row(vec![
                iv.capacity_written.into(),
                iv.at_s.into(),
                iv.iops.into(),
                iv.write_amplification.into(),
                iv.free_blocks.into(),
            ]);
        }
        t
    }
}
