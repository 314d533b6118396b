//! A protocol on a simulated device, from settings to the results document: the one way
//! every front end runs one (`flashlab age` and `bench`, `flashlab sweep`, the Python package).
//! The document has no wall-clock time in it, so the same settings give the same bytes.

use crate::fourcorner::FourCornerConfig;
use crate::precondition::{Precondition, PreconditionReport};
use crate::protocol::{block_multiple, run_protocol, Protocol, ProtocolResult};
use crate::system::SimSystem;
use crate::Error;
use flashlab_simfs::FsConfig;
use flashsim::Profile;
use serde_json::{json, Value};

/// What to run: a protocol on a new device of `profile` under filesystem `fs`.
#[derive(Debug, Clone)]
pub struct SimProtocolRun<'a> {
    /// How the target was named (`sim:toy`), for the document.
    pub target: &'a str,
    /// The device's profile.
    pub profile: &'a Profile,
    /// The filesystem made on it.
    pub fs: FsConfig,
    /// The protocol to run.
    pub protocol: &'a Protocol,
    /// Seed of the device and the workloads.
    pub seed: u64,
    /// Bytes each random four-corner test transfers, over the protocol's own setting.
    pub rand_io: Option<u64>,
    /// The four-corner file's size, over the protocol's own setting.
    pub span: Option<u64>,
    /// The device's history before the protocol starts.
    pub precondition: Precondition,
    /// Check the device's and the filesystem model's invariants every this many device
    /// commands, and once after the precondition and at the end (`flashlab age --check`);
    /// `None`: the device's default (periodic checks in debug builds only, no final check).
    pub check: Option<u64>,
}

/// What came out: the result, its document, and the system as the run left it.
pub struct SimProtocolOutcome {
    /// The four-corner rows and the step log.
    pub result: ProtocolResult,
    /// The results document (`flashlab age --json`).
    pub document: Value,
    /// The four-corner settings used.
    pub four_corner: FourCornerConfig,
    /// The simulated system as the protocol left it.
    pub system: SimSystem,
    /// What the precondition did to the device before the protocol.
    pub precondition: PreconditionReport,
    /// Virtual time the protocol itself took (the precondition's excluded), in ns.
    pub elapsed_ns: u64,
}

/// The four-corner settings of a run: the protocol's, then `rand_io` over them.
pub fn four_corner_config(
    protocol: &Protocol,
    seed: u64,
    rand_io: Option<u64>,
    span: Option<u64>,
) -> Result<FourCornerConfig, Error> {
    let mut fc = protocol.four_corner(&FourCornerConfig { seed, ..Default::default() });
    if let Some(r) = rand_io {
        fc.rand_io = block_multiple(r).map_err(Error::within("rand_io"))?;
    }
    if let Some(sp) = span {
        fc.span = block_multiple(sp).map_err(Error::within("span"))?;
    }
    Ok(fc)
}

/// Run it. `progress` gets (step, steps, what, fraction of the step).
pub fn run(r: &SimProtocolRun, progress: &mut dyn FnMut(usize, usize, &str, f64)) -> Result<SimProtocolOutcome, Error> {
    let fc = four_corner_config(r.protocol, r.seed, r.rand_io, r.span)?;
    // The settings are resolved into `fc`; the protocol's own must not apply twice.
    let proto = Protocol { four_corner_span: None, four_corner_rand_io: None, ..r.protocol.clone() };
    let (mut sys, pre) = crate::precondition::system(r.profile, r.seed, r.fs.clone(), r.precondition)
        .map_err(Error::within("precondition"))?;
    if let Some(every) = r.check {
        sys.check_invariants().map_err(Error::within("after the precondition"))?;
        sys.set_check_every(Some(every));
    }
    let start = sys.now();
    let result = run_protocol(&mut sys, &proto, &fc, progress)?;
    if r.check.is_some() {
        sys.check_invariants().map_err(Error::within("at the end of the run"))?;
    }
    let document = protocol_document(r, &sys, &pre, &result);
    let elapsed_ns = sys.now() - start;
    Ok(SimProtocolOutcome { result, document, four_corner: fc, system: sys, precondition: pre, elapsed_ns })
}

/// The results document of a simulated protocol run (`flashlab age --json`).
pub(crate) fn protocol_document(
    r: &SimProtocolRun,
    sys: &SimSystem,
    pre: &PreconditionReport,
    result: &ProtocolResult,
) -> Value {
    let p = r.profile;
    let cfg = sys.fs().config();
    let profile = json!({"name": p.name, "description": p.description, "calibration": p.calibration,
                         "filesystem": cfg.label(), "precondition": pre});
    document(r.target, profile, r.seed, cfg.discard, Some(r.precondition), result)
}

/// The results document of a protocol run on any target; `profile` is null on real targets.
/// `precondition` is `None` on real targets (their history is their own).
pub fn document(
    target: &str,
    profile: Value,
    seed: u64,
    discard: bool,
    precondition: Option<Precondition>,
    result: &ProtocolResult,
) -> Value {
    json!({
        "flashlab_version": env!("CARGO_PKG_VERSION"),
        "command": "age",
        "target": target,
        "profile": profile,
        "seed": seed,
        "discard": discard,
        "precondition": precondition,
        "protocol": result.protocol,
        "steps": result.steps,
        "log": result.log,
    })
}
