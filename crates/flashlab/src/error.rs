//! The one error type at the binary's edge: every library crate's error converts into it with
//! `?`, the commands' own errors are its variants (naming the flag, file, line or job they are
//! about), and `main` prints it on one line (`flashlab: error: ...`) with no backtrace.

use flashlab_jobs::limits::InputError;
use flashlab_jobs::{JobFileError, UnitError};
use std::path::PathBuf;

/// Any error a command's option or a library hands back, kept whole as the source.
pub type Source = Box<dyn std::error::Error + Send + Sync>;

/// Why a flashlab command failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A profile, protocol, command-line value, job or experiment (flashlab-lab).
    #[error(transparent)]
    Lab(#[from] flashlab_lab::Error),
    /// A simulated system's filesystem or device refusing a request (flashlab-lab).
    #[error(transparent)]
    Sim(#[from] flashlab_lab::system::SysError),
    /// A device profile (flashsim).
    #[error(transparent)]
    Profile(#[from] flashsim::ProfileError),
    /// A simulated filesystem choice: `--fs`, or a profile's `[system]` table (flashlab-simfs).
    #[error(transparent)]
    FsConfig(#[from] flashlab_simfs::ConfigError),
    /// An fio job file.
    #[error(transparent)]
    JobFile(#[from] JobFileError),
    /// An fio option's value outside a job file (flashlab-jobs).
    #[error(transparent)]
    Jobs(#[from] flashlab_jobs::Error),
    /// A size or time value.
    #[error(transparent)]
    Unit(#[from] UnitError),
    /// An input file that could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A results document that could not be built or exported (flashlab-results).
    #[error(transparent)]
    Results(#[from] flashlab_results::Error),
    /// A sweep: its file, a case's setting, its output directory.
    #[error(transparent)]
    Sweep(#[from] flashlab_sweep::SweepError),

    /// A command-line option whose value is wrong (`--idle: ...`, `--bs 4x: ...`).
    #[error("{flag}: {source}")]
    Flag {
        /// The flag as the message names it, with its value where that helps (`--bs 4x`).
        flag: String,
        /// What is wrong with the value (a library's error, or the command's own words).
        source: Source,
    },
    /// An option given to a command, or a target, it does not apply to (`--rand-io applies to
    /// ...`): an error, never ignored.
    #[error("{flag} {why}")]
    NotApplicable {
        /// The flag, or flags, as typed.
        flag: String,
        /// What it applies to instead.
        why: String,
    },
    /// A command line that asks for something the command cannot do, not about one flag
    /// (`name a profile, or --all`).
    #[error("{0}")]
    Usage(String),
    /// An output file that cannot be written, found before the run starts.
    #[error("{flag} {}: {problem}", path.display())]
    Output {
        /// The option that named it (`--json`).
        flag: &'static str,
        /// The file.
        path: PathBuf,
        /// Why it cannot be written.
        problem: String,
    },
    /// `--target` (or a job's place) that is not a simulated device, a directory or a block
    /// device.
    #[error("target '{target}': {problem}")]
    Target {
        /// The target as given.
        target: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A file or directory that could not be read, written or made.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A file the command refuses to use (it exists and flashlab did not create it, it is not a
    /// regular file, ...).
    #[error("{}{problem}", path.display())]
    Refused {
        /// The file.
        path: PathBuf,
        /// Why, starting with the separator the message needs (` exists and ...`, `: not ...`).
        problem: String,
    },
    /// Writing to standard output failed.
    #[error("standard output: {0}")]
    Stdout(#[source] std::io::Error),
    /// Something of the run (a temporary directory, a signal handler) could not be set up.
    #[error("{what}: {source}")]
    Setup {
        /// What could not be set up.
        what: &'static str,
        /// The system's error.
        source: std::io::Error,
    },
    /// A value that could not be written as JSON.
    #[error("{what}: cannot be written as JSON: {source}")]
    Json {
        /// What it was.
        what: &'static str,
        /// serde_json's error.
        source: serde_json::Error,
    },
    /// A job of an fio job file that could not run: the file, the job's line, the job.
    #[error("{}:{line}: job '{job}': {source}", file.display())]
    Job {
        /// The job file.
        file: PathBuf,
        /// The line of the job's section, from 1.
        line: usize,
        /// The job's name.
        job: String,
        /// Why.
        source: Box<Error>,
    },
    /// A job whose data did not verify (fio's `verify`): one entry per job.
    #[error("verify failed: {}", failed.join("; "))]
    Verify {
        /// Per job: its name, how many blocks did not verify, the first offset.
        failed: Vec<String>,
    },
    /// adb could not be started.
    #[error("{program}: {}", adb_start(source))]
    AdbStart {
        /// The adb program.
        program: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// An adb call that failed: the call, its exit status and the first line it printed.
    #[error("{program} {args} failed ({status}){}", if why.is_empty() { String::new() } else { format!(": {why}") })]
    Adb {
        /// The adb program.
        program: String,
        /// Its arguments, joined by spaces.
        args: String,
        /// How it ended.
        status: std::process::ExitStatus,
        /// The first non-empty line of its error output (else its output), or empty.
        why: String,
    },
    /// The phone cannot be used: not attached, not authorized, no build for its CPU, or
    /// flashlab on it failed.
    #[error("{0}")]
    Phone(String),
    /// A phone run stopped by Ctrl-C or SIGTERM, after it cleaned up.
    #[error("interrupted: flashlab on the phone was stopped and {dir} removed")]
    Interrupted {
        /// The directory removed from the phone.
        dir: String,
    },
    /// An error and what was done about it, or what to do (`(removed ... from the phone)`).
    #[error("{error}\n{note}")]
    Noted {
        /// The error.
        error: Box<Error>,
        /// The note, on its own line.
        note: String,
    },

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
    /// One fact of a doctor inspection (flashlab-doctor).
    #[error(transparent)]
    Doctor(#[from] flashlab_doctor::DoctorError),
    /// A life run: its usage file, trace, policy or duration, or the simulated day that failed.
    #[error(transparent)]
    Life(#[from] flashlab_life::LifeError),
}

/// Why adb did not start, with what to do when it is not installed.
fn adb_start(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        "not found (install Android's platform-tools, or give --adb PATH)".to_string()
    } else {
        e.to_string()
    }
}

impl Error {
    /// A flag's value that is wrong: `Error::flag("--idle", e)`.
    pub fn flag(flag: impl Into<String>, source: impl Into<Source>) -> Error {
        Error::Flag { flag: flag.into(), source: source.into() }
    }

    /// [`Error::flag`] for `map_err`: `.map_err(Error::at("--gap"))`.
    pub fn at<E: Into<Source>>(flag: impl Into<String>) -> impl FnOnce(E) -> Error {
        let flag = flag.into();
        move |e| Error::flag(flag, e)
    }

    /// A flag given where it does not apply.
    pub fn not_applicable(flag: impl Into<String>, why: impl Into<String>) -> Error {
        Error::NotApplicable { flag: flag.into(), why: why.into() }
    }

    /// An I/O error on `path`, for `map_err`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    /// This error with a note on the next line.
    pub fn noted(self, note: impl Into<String>) -> Error {
        Error::Noted { error: Box::new(self), note: note.into() }
    }

    /// A phone run that was interrupted (Ctrl-C) and has cleaned up.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, Error::Interrupted { .. })
    }
}
