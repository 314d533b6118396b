//! The errors of `flashlab life`: each names the option, file, line or field at fault (a usage
//! file's field, a trace's line, the policy or duration given) or the simulated day on which
//! the simulated system refused a request.

use crate::traces::TraceError;
use crate::usage_toml::UsageError;

/// Why the simulated system refused an operation (a bug or a model limit: the message names
/// the operation).
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The profile's `[system]` table does not describe a usable filesystem.
    #[error(transparent)]
    Config(flashlab_simfs::ConfigError),
    /// The simulated filesystem refused an operation.
    #[error(transparent)]
    System(#[from] flashlab_lab::system::SysError),
    /// The filesystem is too full for the probe's file (`free` bytes free).
    #[error("the filesystem has {free} bytes free, too little for the probe's file")]
    NoRoomForProbe {
        /// Bytes free on the simulated filesystem.
        free: u64,
    },
}

/// Why a life run could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum LifeError {
    /// A usage file (or preset) is wrong: names the file, line and field.
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// A usage name that is neither a preset nor a file.
    #[error("usage '{what}': not a preset ({presets}) nor a file")]
    NoUsage {
        /// The name given.
        what: String,
        /// The presets, comma-separated.
        presets: String,
    },
    /// A file could not be read (too large, not text, missing).
    #[error(transparent)]
    Input(#[from] flashlab_jobs::limits::InputError),
    /// A trace file is wrong: names the file and line.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// `--trace-format` names no format.
    #[error("trace format '{0}': expected blkparse, iolog or msr")]
    TraceFormat(String),
    /// A duration that does not parse.
    #[error(transparent)]
    Unit(#[from] flashlab_jobs::UnitError),
    /// A run duration outside an hour..100 years.
    #[error("duration '{0}': must be between an hour and 100 years")]
    DurationRange(String),
    /// A trim policy that does not parse (`policy` as given, `msg` what is wrong).
    #[error("policy '{policy}': {msg}")]
    Policy {
        /// The policy as given.
        policy: String,
        /// What is wrong with it.
        msg: String,
    },
    /// JESD219A's client workload was asked for; it needs JEDEC's trace.
    #[error(
        "jesd219-client: JESD219A's client workload is the replay of JEDEC's client master trace, which \
         flashlab does not ship; convert it to blkparse, fio iolog or MSR CSV and pass it with --trace FILE \
         (docs/jesd219.md)"
    )]
    ClientTrace,
    /// `--drive-writes` outside (0, 1000].
    #[error("drive writes must be in (0, 1000], got {0}")]
    DriveWrites(f64),
    /// A built-in workload's block sizes or zones did not parse (a bug).
    #[error("built-in workload: {0}")]
    Workload(String),
    /// The simulated system refused an operation `at` a point of the run (`day 12`, `probe`,
    /// `trace NAME, request 7`).
    #[error("{at}: {source}")]
    Sim {
        /// Where in the run: `base data (day 0)`, `day 12`, `day 12: fstrim`, `probe`, ...
        at: String,
        /// What the simulated system said.
        #[source]
        source: SimError,
    },
    /// The simulated system could not be built from the profile, or refused an operation that
    /// names itself.
    #[error(transparent)]
    Simulated(#[from] SimError),
    /// A chart of the report could not be drawn.
    #[error(transparent)]
    Chart(#[from] flashlab_report::ChartError),
    /// A run's result that does not fit the results document (naming what and the field).
    #[error(transparent)]
    Results(#[from] flashlab_results::Error),
}

impl From<flashlab_lab::system::SysError> for LifeError {
    /// A refusal of the simulated system that names its own operation (a block request).
    fn from(e: flashlab_lab::system::SysError) -> Self {
        LifeError::Simulated(SimError::System(e))
    }
}

impl LifeError {
    /// The error of the simulated system at a point of the run.
    pub(crate) fn sim<E: Into<SimError>>(at: impl Into<String>) -> impl FnOnce(E) -> LifeError {
        let at = at.into();
        move |source| LifeError::Sim { at, source: source.into() }
    }
}
