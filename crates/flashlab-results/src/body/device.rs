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
    /// The device's counters since new.
    pub counters: Counters,
    /// The device's state at the end.
    pub state: DeviceState,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// The device's counters since new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Counters {
    /// Bytes the host wrote.
    pub host_write_bytes: u64,
    /// 4 KiB units programmed into NAND (host data, GC copies, map pages).
    pub nand_units_programmed: u64,
    /// 4 KiB units GC copied (none where the FTL does not count them).
    #[serde(default)]
    pub gc_units_copied: Option<u64>,
    /// Blocks erased.
    pub erases: u64,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// The device's state at the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeviceState {
    /// Erased blocks ready to be written.
    pub free_blocks: u64,
    /// Blocks of the NAND.
    pub total_blocks: u64,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}
