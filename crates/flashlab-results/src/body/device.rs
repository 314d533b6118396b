//! A simulated device's report: write amplification, counters and state (the counters and
//! state a table shows are typed; the rest is kept in `extra`).

use crate::Extra;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a simulated device reports about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeviceSummary {
    /// The profile's name.
    #[serde(default)]
    pub profile: Option<String>,
    /// NAND writes / host writes since new.
    pub write_amplification: f64,
    pub counters: Counters,
    pub state: DeviceState,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The device's counters since new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Counters {
    pub host_write_bytes: u64,
    pub nand_units_programmed: u64,
    #[serde(default)]
    pub gc_units_copied: Option<u64>,
    pub erases: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The device's state at the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeviceState {
    pub free_blocks: u64,
    pub total_blocks: u64,
    #[serde(flatten)]
    pub extra: Extra,
}
