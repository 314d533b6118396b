//! The one error type of flashlab's workloads and the lab: what could not be loaded (profiles,
//! protocols, command-line values), what a job or experiment cannot do on a target, and a
//! simulated system's own refusals ([`Error::Sys`], boxed: the lab converts its `SysError`).
//! Each names the file (or flag), the line where there is one, and the field, job or step.

use flashlab_jobs::limits::InputError;
use flashlab_jobs::units::UnitError;

/// Why flashlab-lab could not load, accept or run something.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input file could not be read (missing, too large, binary, not UTF-8).
    #[error(transparent)]
    Input(#[from] InputError),
    /// A device profile is not valid.
    #[error(transparent)]
    Profile(#[from] flashsim::ProfileError),
    /// A size or duration could not be read.
    #[error(transparent)]
    Unit(#[from] UnitError),
    /// The simulated system (its filesystem or device) refused a request.
    #[error(transparent)]
    Sys(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// A job option's distribution that does not fit its file (`zoned_abs` past the end).
    #[error(transparent)]
    Distribution(#[from] flashlab_jobs::distribution::DistributionError),
    /// A value that could not be turned into JSON for a results document.
    #[error("results document: {0}")]
    Json(#[from] serde_json::Error),
    /// A result that does not fit the results document's types (naming what and the field).
    #[error(transparent)]
    Results(#[from] flashlab_results::Error),
    /// A profile name that is neither built in nor a file.
    #[error("unknown profile '{name}'; built-in profiles: {builtin} (or give a path to a .toml file)")]
    UnknownProfile {
        /// The name given.
        name: String,
        /// The built-in names, comma-separated.
        builtin: String,
    },
    /// A protocol name that is neither built in nor a file.
    #[error("protocol '{name}': not a built-in protocol ({builtin}) nor a file")]
    UnknownProtocol {
        /// The name given.
        name: String,
        /// The built-in names, comma-separated.
        builtin: String,
    },
    /// A protocol file that is not valid.
    #[error("{file}{}: {}{message}", line.map(|l| format!(":{l}")).unwrap_or_default(), place.as_ref().map(|p| format!("{p}: ")).unwrap_or_default())]
    Protocol {
        /// The protocol's name or path.
        file: String,
        /// The line of a TOML syntax error.
        line: Option<usize>,
        /// The field or step (`four_corner_span`, `step 3 (duration)`).
        place: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A name that is not one of those accepted (a precondition, a trim policy, a layout).
    #[error("unknown {what} '{name}' (expected {expected})")]
    UnknownName {
        /// What kind of name (`precondition`, `trim policy`).
        what: &'static str,
        /// The name given.
        name: String,
        /// The accepted names, as a phrase (`fresh, used, steady or lived`).
        expected: String,
    },
    /// A size of files or transfers that is not whole 4 KiB blocks.
    #[error("{bytes} bytes is not a positive multiple of 4 KiB")]
    NotBlockMultiple {
        /// The size given.
        bytes: u64,
    },
    /// A `MIN..MAX` range of file sizes that is empty.
    #[error("'{value}': sizes must be positive and MIN <= MAX")]
    FileSizes {
        /// The range as written.
        value: String,
    },
    /// The interval of an `fstrim:INTERVAL` trim policy.
    #[error("trim policy 'fstrim:{value}': {problem}")]
    TrimInterval {
        /// The interval as written.
        value: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A field of a profile's table (`[system]`, `[calibrate]`) that is not valid.
    #[error("{file}: {}{message}", table.as_ref().map(|t| format!("{t}{}: ", field.as_ref().map(|f| format!(" field '{f}'")).unwrap_or_default())).unwrap_or_default())]
    ProfileTable {
        /// The profile's name or path.
        file: String,
        /// The table (`[system]`, `[calibrate.vendor]`), or `None` for the whole profile.
        table: Option<String>,
        /// The field whose value is wrong.
        field: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// The simulated device's refusal as flashsim words it (until flashsim's errors are typed).
    #[error("{0}")]
    Device(String),
    /// The error of a protocol's target other than a simulated system (a real filesystem's,
    /// from flashlab-real), kept whole.
    #[error(transparent)]
    Target(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// A simulated filesystem model's settings or refusal, as its module words it (the models
    /// move to their own crate with a typed error of their own).
    #[error("{0}")]
    FsModel(String),
    /// A command-line option (`--trimmed`, `--separate`) whose value cannot be used.
    #[error("{flag}: {message}")]
    Flag {
        /// The option, with its value where that helps (`--separate hint`).
        flag: String,
        /// What is wrong.
        message: String,
    },
    /// `sim waf --separate hint` with a distribution that has no hot zones to hint.
    #[error("--separate hint needs a zoned distribution (the host knows its hot zones); '{distribution}' has no hint: use --separate detect")]
    HintNeedsZones {
        /// The distribution, as fio spells it.
        distribution: String,
    },
    /// A job file with no jobs.
    #[error("{file}: no jobs")]
    NoJobs {
        /// The job file.
        file: String,
    },
    /// A job of a job file that cannot run on a simulated system.
    #[error("{file}:{line}: job '{job}': {message}")]
    Job {
        /// The job file.
        file: String,
        /// The line of the job's section.
        line: usize,
        /// The job's name.
        job: String,
        /// Why it cannot run.
        message: String,
    },
    /// fio's `rate_min` or `rate_iops_min` not met by a direction of a job.
    #[error("job '{job}': {option} of {wanted} for {direction}s not met ({got})")]
    RateMin {
        /// The job's name.
        job: String,
        /// `rate_min` or `rate_iops_min`.
        option: &'static str,
        /// `read`, `write` or `trim`.
        direction: &'static str,
        /// The minimum asked for, with its unit (`1000 B/s`).
        wanted: String,
        /// The rate the run had, with its unit.
        got: String,
    },
    /// A verifying job on a simulated filesystem whose cleaning does not carry data.
    #[error("verify on the simulated {filesystem} filesystem is not supported: its cleaning moves blocks without carrying their data (use --fs plain or ext4)")]
    VerifyUnsupported {
        /// The filesystem's label.
        filesystem: String,
    },
    /// A `[[calibrate.row]]` whose label no four-corner step of the protocol has.
    #[error("[calibrate.row] label '{label}': protocol '{protocol}' has no four-corner step so named")]
    CalibrateRow {
        /// The row's label.
        label: String,
        /// The protocol's name.
        protocol: String,
    },
    /// An error inside a part of a run, named first (`precondition`, `rand_io`, a design
    /// point `ftl.spare_factor x 0.5`).
    #[error("{context}: {source}")]
    Context {
        /// The part of the run.
        context: String,
        /// What went wrong there.
        source: Box<Error>,
    },
    /// An error about a line of a file (a job's `rate_min`).
    #[error("{file}:{line}: {source}")]
    At {
        /// The file.
        file: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong there.
        source: Box<Error>,
    },
}

impl Error {
    /// This error inside `context`: `precondition: ...`.
    pub fn context(self, context: impl Into<String>) -> Error {
        Error::Context { context: context.into(), source: Box::new(self) }
    }

    /// [`Error::context`] for `map_err`: `.map_err(Error::within("rand_io"))`.
    pub fn within<E: Into<Error>>(context: impl Into<String>) -> impl FnOnce(E) -> Error {
        let context = context.into();
        move |e| e.into().context(context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages name the file, the table and the field, and a context comes first.
    #[test]
    fn messages_name_where() {
        let t = |table: Option<&str>, field: Option<&str>| {
            Error::ProfileTable {
                file: "p.toml".into(),
                table: table.map(str::to_string),
                field: field.map(str::to_string),
                message: "wrong".into(),
            }
            .to_string()
        };
        assert_eq!(t(Some("[system]"), Some("trim")), "p.toml: [system] field 'trim': wrong");
        assert_eq!(t(Some("[calibrate]"), None), "p.toml: [calibrate]: wrong");
        assert_eq!(t(None, None), "p.toml: wrong");
        let e = Error::NotBlockMultiple { bytes: 100 }.context("rand_io");
        assert_eq!(e.to_string(), "rand_io: 100 bytes is not a positive multiple of 4 KiB");
        let e = Error::At {
            file: "j.fio".into(),
            line: 3,
            source: Box::new(Error::RateMin {
                job: "w".into(),
                option: "rate_min",
                direction: "write",
                wanted: "1000 B/s".into(),
                got: "10 B/s".into(),
            }),
        };
        assert_eq!(e.to_string(), "j.fio:3: job 'w': rate_min of 1000 B/s for writes not met (10 B/s)");
        assert!(std::error::Error::source(&e).is_some(), "the cause is kept");
    }
}
