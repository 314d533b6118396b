//! The one error type at the binary's edge: every library crate's error converts into it with
//! `?`, and `main` prints it on one line (`flashlab: error: ...`) with the file, line and
//! field the library named, and no backtrace.

use flashlab_jobs::limits::InputError;
use flashlab_jobs::{JobFileError, UnitError};

/// Why a flashlab command failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A profile, protocol or command-line value (flashlab-lab).
    #[error(transparent)]
    Lab(#[from] flashlab_lab::LabError),
    /// A device profile (flashsim).
    #[error(transparent)]
    Profile(#[from] flashsim::ProfileError),
    /// An fio job file.
    #[error(transparent)]
    JobFile(#[from] JobFileError),
    /// A size or time value.
    #[error(transparent)]
    Unit(#[from] UnitError),
    /// An input file that could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A run on a real file or device.
    #[error(transparent)]
    Real(#[from] flashlab_real::RealError),
    /// A latency breakdown.
    #[error(transparent)]
    Breakdown(#[from] flashlab_breakdown::BreakdownError),
    /// A served (simulated) block device.
    #[error(transparent)]
    Serve(#[from] flashlab_serve::ServeError),
    /// A SQLite run.
    #[error(transparent)]
    Sqlite(#[from] flashlab_sqlite::Error),
    /// A filesystem-model validation against the kernel.
    #[error(transparent)]
    Validate(#[from] flashlab_validate::Error),
    /// A report or results file.
    #[error(transparent)]
    Report(#[from] flashlab_report::ReportError),
    /// A sweep: its file, a case's setting, its output directory.
    #[error(transparent)]
    Sweep(#[from] flashlab_sweep::SweepError),
    /// A message from code that still returns `String` (the commands, life); goes away
    /// as those return typed errors.
    #[error("{0}")]
    Message(String),
    /// One fact of a doctor inspection (flashlab-doctor).
    #[error(transparent)]
    Doctor(#[from] flashlab_doctor::DoctorError),
    /// A life run: its usage file, trace, policy or duration, or the simulated day that failed.
    #[error(transparent)]
    Life(#[from] flashlab_life::LifeError),
}

impl From<String> for Error {
    fn from(m: String) -> Error {
        Error::Message(m)
    }
}

impl From<&str> for Error {
    fn from(m: &str) -> Error {
        Error::Message(m.to_string())
    }
}

impl Error {
    /// A phone run that was interrupted (Ctrl-C) and has cleaned up.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, Error::Message(m) if m.starts_with("interrupted"))
    }
}
