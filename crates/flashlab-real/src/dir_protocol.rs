//! A protocol on a directory of a real filesystem, from settings to the typed results
//! document: the real-target counterpart of `flashlab_workload::sim_run` (`flashlab age --target
//! DIR`, `flashlab bench --target DIR`). The four-corner settings and the document come from
//! `flashlab_workload::protocol_run`, as on simulated targets; this adds the directory, its I/O
//! options and the cleanup of what the run creates.

use crate::cleanup::install_signal_handlers;
use crate::dir_target::{DirTarget, RealOptions};
use crate::RealError;
use flashlab_results::Document;
use flashlab_workload::fourcorner::{DeviceSample, FourCornerConfig};
use flashlab_workload::protocol::{Protocol, ProtocolResult, ProtocolTarget};
use flashlab_workload::protocol_run::{ProtocolCommand, Resolved};
use flashlab_workload::Error;
use std::path::Path;
use std::time::Duration;

/// A reading of a served simulated device's clock (see [`DirTarget::device_clock`]).
pub type DeviceClock = Box<dyn FnMut() -> Result<DeviceSample, String>>;

/// What to run: a protocol in the directory `dir`.
pub struct DirProtocolRun<'a> {
    /// How the target was named on the command line, for the document.
    pub target: &'a str,
    /// The directory the four-corner file and (by default) the fill files go in.
    pub dir: &'a Path,
    /// How the I/O is done (engine, O_DIRECT, data pattern).
    pub opts: RealOptions,
    /// Sleep this long in every idle step instead of the protocol's durations.
    pub idle: Option<Duration>,
    /// Where `fill` steps put their files instead of `dir`.
    pub fill_dir: Option<&'a Path>,
    /// When `dir` is on a `flashlab serve` device: its clock, to time the tests on it too.
    pub device_clock: Option<DeviceClock>,
    /// The protocol to run.
    pub protocol: &'a Protocol,
    /// Seed of the workloads.
    pub seed: u64,
    /// Bytes each random four-corner test transfers, over the protocol's own setting.
    pub rand_io: Option<u64>,
    /// The four-corner file's size, over the protocol's own setting.
    pub span: Option<u64>,
    /// Which command's document the run makes (`age`, or `bench`).
    pub command: ProtocolCommand,
}

/// What came out.
pub struct DirProtocolOutcome {
    /// The four-corner rows and the step log.
    pub result: ProtocolResult,
    /// The results document.
    pub document: Document,
    /// The four-corner settings used.
    pub four_corner: FourCornerConfig,
    /// Real time from the target's setup to the end of the protocol, seconds.
    pub elapsed_s: f64,
    /// What the run had to do differently from what was asked, in words (buffered fill files
    /// on a filesystem that refuses O_DIRECT).
    pub notes: Vec<String>,
}

fn real(e: RealError) -> Error {
    Error::Target(Box::new(e))
}

impl DirProtocolRun<'_> {
    /// The run's settings resolved ([`Resolved::new`]), before anything is touched.
    pub fn resolve(&self) -> Result<Resolved, Error> {
        Resolved::new(self.protocol, self.seed, self.rand_io, self.span)
    }
}

/// Run it: the signal handlers that remove the run's files on SIGINT/SIGTERM are installed
/// first. `progress` gets (step, steps, what, fraction of the step).
pub fn run(r: DirProtocolRun, progress: &mut dyn FnMut(usize, usize, &str, f64)) -> Result<DirProtocolOutcome, Error> {
    let resolved = r.resolve()?;
    install_signal_handlers().map_err(|e| real(RealError::io("installing the signal handlers", e)))?;
    let engine = r.opts.engine.name();
    let direct = r.opts.direct;
    let mut target = DirTarget::new(r.dir, r.opts).map_err(real)?;
    target.idle_override = r.idle;
    target.device_clock = r.device_clock;
    let mut notes = Vec::new();
    if let Some(fd) = r.fill_dir {
        notes.extend(target.set_fill_dir(fd).map_err(real)?);
    }
    let result = resolved.run(&mut target, progress)?;
    let document =
        resolved.document(r.command, r.target, &result, None)?.param("ioengine", engine).param("direct", direct);
    Ok(DirProtocolOutcome { result, document, four_corner: resolved.four_corner, elapsed_s: target.clock_s(), notes })
}
