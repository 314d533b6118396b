//! `sim placement`: one workload under conventional, streams, FDP and zoned placement on the
//! same NAND.

use crate::table::{Format, Table};
use crate::Extra;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `sim placement`: the placements side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlacementBody {
    /// The workload family (`hotcold`, `multistream`, `adversarial`).
    pub family: String,
    /// One row per placement.
    pub rows: Vec<PlacementRow>,
    /// Fields this type does not name, kept as the command wrote them.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One placement's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlacementRow {
    /// `conventional`, `streams`, `fdp-initial`, `fdp-persistent` or `zoned`.
    pub placement: String,
    /// NAND writes / writes the device received.
    pub device_waf: f64,
    /// NAND writes / application writes (the host's cleaning included).
    pub end_to_end_waf: f64,
    /// The application's 99th-percentile write latency, µs.
    pub p99_us: f64,
    /// Application terabytes written until the P/E budget is used.
    pub lifetime_tbw: f64,
    /// FDP placements: each reclaim unit handle's media bytes / host bytes (one handle per
    /// stream); empty for the others.
    #[serde(default)]
    pub handle_waf: Vec<f64>,
    /// Fields this type does not name, kept as the command wrote them.
    #[serde(flatten)]
    pub extra: Extra,
}

impl PlacementBody {
    /// One row per placement.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            "placement",
            &[("placement", ""), ("device WAF", ""), ("end-to-end WAF", ""), ("p99", "µs"), ("lifetime", "TBW")],
        )
        .format(1, Format::Fixed(3))
        .format(2, Format::Fixed(3))
        .format(4, Format::Fixed(1));
        for r in &self.rows {
            t.row(vec![
                r.placement.as_str().into(),
                r.device_waf.into(),
                r.end_to_end_waf.into(),
                r.p99_us.into(),
                r.lifetime_tbw.into(),
            ]);
        }
        t
    }
}
