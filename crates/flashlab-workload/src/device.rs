//! What a simulated device reports about itself in a result (a four-corner row, a fill, a
//! steady-state run): the profile, write amplification, counters and state. Real targets have
//! no such report.

use serde::Serialize;

/// What the device reports about itself, for results files and tables.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceReport {
    /// The profile's name.
    pub profile: String,
    /// NAND writes per host write since the device was new.
    pub write_amplification: f64,
    /// The device's counters.
    pub counters: flashsim::Counters,
    /// The device's state (free blocks, wear).
    pub state: flashsim::DeviceState,
    /// Flexible Data Placement: per reclaim unit handle host and media bytes (FDP profiles
    /// only; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fdp: Option<flashsim::FdpStats>,
}
