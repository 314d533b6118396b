//! A protocol on a simulated device, from settings to the results document: the one way
//! every front end runs one (`flashlab age` and `bench`, `flashlab sweep`, the Python package).
//! The document has no wall-clock time in it, so the same settings give the same bytes.

use crate::fourcorner::FourCornerConfig;
use crate::fs::FsConfig;
use crate::protocol::{block_multiple, run_protocol, Protocol, ProtocolResult};
use crate::system::SimSystem;
use flashsim::Profile;
use serde_json::{json, Value};

/// What to run: a protocol on a new device of `profile` under filesystem `fs`.
#[derive(Debug, Clone)]
pub struct SimProtocolRun<'a> {
    /// How the target was named (`sim:toy`), for the document.
    pub target: &'a str,
    pub profile: &'a Profile,
    pub fs: FsConfig,
    pub protocol: &'a Protocol,
    pub seed: u64,
    /// Bytes each random four-corner test transfers, over the protocol's own setting.
    pub rand_io: Option<u64>,
}

/// What came out: the result, its document, and the system as the run left it.
pub struct SimProtocolOutcome {
    pub result: ProtocolResult,
    pub document: Value,
    pub four_corner: FourCornerConfig,
    pub system: SimSystem,
}

/// The four-corner settings of a run: the protocol's, then `rand_io` over them.
pub fn four_corner_config(protocol: &Protocol, seed: u64, rand_io: Option<u64>) -> Result<FourCornerConfig, String> {
    let mut fc = protocol.four_corner(&FourCornerConfig { seed, ..Default::default() });
    if let Some(r) = rand_io {
        fc.rand_io = block_multiple(r).map_err(|e| format!("rand_io: {e}"))?;
    }
    Ok(fc)
}

/// Run it. `progress` gets (step, steps, what, fraction of the step).
pub fn run(
    r: &SimProtocolRun,
    progress: &mut dyn FnMut(usize, usize, &str, f64),
) -> Result<SimProtocolOutcome, String> {
    let fc = four_corner_config(r.protocol, r.seed, r.rand_io)?;
    // The settings are resolved into `fc`; the protocol's own must not apply twice.
    let proto = Protocol { four_corner_span: None, four_corner_rand_io: None, ..r.protocol.clone() };
    let mut sys = SimSystem::with_fs(r.profile, r.seed, r.fs.clone());
    let result = run_protocol(&mut sys, &proto, &fc, progress)?;
    let document = protocol_document(r, &sys, &result);
    Ok(SimProtocolOutcome { result, document, four_corner: fc, system: sys })
}

/// The results document of a simulated protocol run (`flashlab age --json`).
pub fn protocol_document(r: &SimProtocolRun, sys: &SimSystem, result: &ProtocolResult) -> Value {
    let p = r.profile;
    let cfg = sys.fs.config();
    let profile =
        json!({"name": p.name, "description": p.description, "calibration": p.calibration, "filesystem": cfg.label()});
    document(r.target, profile, r.seed, cfg.discard, result)
}

/// The results document of a protocol run on any target; `profile` is null on real targets.
pub fn document(target: &str, profile: Value, seed: u64, discard: bool, result: &ProtocolResult) -> Value {
    json!({
        "flashlab_version": env!("CARGO_PKG_VERSION"),
        "command": "age",
        "target": target,
        "profile": profile,
        "seed": seed,
        "discard": discard,
        "protocol": result.protocol,
        "steps": result.steps,
        "log": result.log,
    })
}
