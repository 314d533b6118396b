//! A protocol on a simulated device, from settings to the typed results document: the one way
//! every front end runs one (`flashlab age` and `bench`, `flashlab sweep`, the Python package).
//! The document has no wall-clock time in it, so the same settings give the same bytes.

use crate::fourcorner::FourCornerConfig;
use crate::precondition::{Precondition, PreconditionReport};
use crate::protocol::{Protocol, ProtocolResult};
use crate::protocol_run::{ProtocolCommand, Resolved};
use crate::system::SimSystem;
use crate::Error;
use flashlab_results::Document;
use flashlab_simfs::FsConfig;
use flashsim::Profile;

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
    /// Which command's document the run makes (`age`, or `bench`).
    pub command: ProtocolCommand,
}

/// What came out: the result, its document, and the system as the run left it.
pub struct SimProtocolOutcome {
    /// The four-corner rows and the step log.
    pub result: ProtocolResult,
    /// The results document (`flashlab age --json`).
    pub document: Document,
    /// The four-corner settings used.
    pub four_corner: FourCornerConfig,
    /// The simulated system as the protocol left it.
    pub system: SimSystem,
    /// What the precondition did to the device before the protocol.
    pub precondition: PreconditionReport,
    /// Virtual time the protocol itself took (the precondition's excluded), in ns.
    pub elapsed_ns: u64,
}

impl SimProtocolRun<'_> {
    /// The run's settings resolved ([`Resolved::new`]).
    pub fn resolve(&self) -> Result<Resolved, Error> {
        Resolved::new(self.protocol, self.seed, self.rand_io, self.span)
    }
}

/// Run it. `progress` gets (step, steps, what, fraction of the step).
pub fn run(r: &SimProtocolRun, progress: &mut dyn FnMut(usize, usize, &str, f64)) -> Result<SimProtocolOutcome, Error> {
    let resolved = r.resolve()?;
    let (mut sys, pre) = crate::precondition::system(r.profile, r.seed, r.fs.clone(), r.precondition)
        .map_err(Error::within("precondition"))?;
    if let Some(every) = r.check {
        sys.check_invariants().map_err(Error::within("after the precondition"))?;
        sys.set_check_every(Some(every));
    }
    let start = sys.now();
    let result = resolved.run(&mut sys, progress)?;
    if r.check.is_some() {
        sys.check_invariants().map_err(Error::within("at the end of the run"))?;
    }
    let document = resolved
        .document(r.command, r.target, &result, Some(serde_json::to_value(&pre)?))?
        .profile(&r.profile.name, &r.profile.description)
        .param("filesystem", r.fs.label());
    let elapsed_ns = sys.now() - start;
    Ok(SimProtocolOutcome {
        result,
        document,
        four_corner: resolved.four_corner,
        system: sys,
        precondition: pre,
        elapsed_ns,
    })
}
