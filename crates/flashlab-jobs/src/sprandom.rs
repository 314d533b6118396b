//! fio's SPRandom options (`sprandom`, `spr_num_regions`, `spr_op`, `spr_cs`; HOWTO "SPRandom"):
//! a random-write job that preconditions a device to its steady state in one pass of its
//! physical capacity. The offsets are `flashlab_workload::sprandom`'s; this module reads the
//! options and checks what fio checks.

use crate::Error;
use serde::{Deserialize, Serialize};

/// The options' names.
pub const OPTION_NAMES: &[&str] = &["sprandom", "spr_num_regions", "spr_op", "spr_cs"];

/// A job's SPRandom options, fio's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SprandomOptions {
    /// `sprandom=1`.
    pub enabled: bool,
    /// `spr_num_regions` (default 100).
    pub regions: u32,
    /// `spr_op`: the device's over-provisioning ratio, in (0, 1) (default 0.15).
    pub op: f64,
    /// `spr_cs`: the device's write cache, bytes; non-zero defers each region's rewrites by
    /// one region (default 0).
    pub cache: u64,
}

impl Default for SprandomOptions {
    fn default() -> Self {
        SprandomOptions { enabled: false, regions: 100, op: 0.15, cache: 0 }
    }
}

/// Sets `spr_num_regions`, `spr_op` or `spr_cs` from `v` (`bytes`: `spr_cs` read by the
/// caller with the job's `kb_base`); `sprandom` itself is a boolean the parser reads.
pub fn apply(s: &mut SprandomOptions, name: &str, v: &str, bytes: u64) -> Result<(), Error> {
    match name {
        "spr_num_regions" => {
            s.regions = match v.trim().parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(Error::Bad {
                        what: "value",
                        value: v.to_string(),
                        expected: "a whole number, at least 1".into(),
                    })
                }
            }
        }
        "spr_op" => {
            s.op = match v.trim().parse::<f64>() {
                Ok(f) if f > 0.0 && f < 1.0 => f,
                _ => {
                    return Err(Error::Bad {
                        what: "value",
                        value: v.to_string(),
                        expected: "an over-provisioning ratio between 0 and 1 (exclusive)".into(),
                    })
                }
            }
        }
        _ => s.cache = bytes,
    }
    Ok(())
}
