//! `wsat`: IOPS per interval of SNIA write saturation.

use super::DeviceSummary;
use crate::table::{Format, Table};
use crate::Extra;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Write saturation's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WsatBody {
    /// Requests kept in flight.
    pub iodepth: u32,
    /// Logical capacity written over, bytes.
    pub capacity_bytes: u64,
    /// One entry per interval, in order.
    pub intervals: Vec<WsatInterval>,
    /// The simulated device at the end.
    pub device: DeviceSummary,
    /// The device's history before the run (`--precondition`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precondition: Option<serde_json::Value>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
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
    /// Write IOPS in the interval.
    pub iops: f64,
    /// NAND writes / host writes within the interval.
    pub write_amplification: f64,
    /// Erased blocks at the end of the interval.
    pub free_blocks: u64,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
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
