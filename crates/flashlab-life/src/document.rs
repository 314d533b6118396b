//! The results document of a life run (`flashlab life --json`, a sweep's life case, the Python
//! package): one shape, written in one place. No wall-clock time in it.

use crate::runner::LifeResult;
use flashsim::Profile;
use serde_json::{json, Value};

/// `usage` is the usage model (or, for a trace replay, what was replayed).
pub fn life_document(
    target: &str,
    profile: &Profile,
    seed: u64,
    duration: &str,
    usage: Value,
    runs: &[LifeResult],
) -> Value {
    json!({
        "flashlab_version": env!("CARGO_PKG_VERSION"),
        "command": "life",
        "target": target,
        "profile": {"name": profile.name, "description": profile.description, "calibration": profile.calibration},
        "seed": seed,
        "duration": duration,
        "usage": usage,
        "runs": runs,
    })
}
