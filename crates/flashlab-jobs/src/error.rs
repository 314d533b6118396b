//! flashlab-jobs' one error type. A job file's error names the file, the line and the option
//! ([`JobFileError`]); the errors of one option's value ([`Error::Bad`], [`Error::Value`], ...)
//! are what the parser puts after `file:line: option 'NAME': `, and what a command-line flag
//! that takes an fio value (`--distribution`) shows after the flag.

use crate::blocksize::BlockSizeError;
use crate::distribution::DistributionError;
use crate::limits::InputError;
use crate::parse::JobFileError;
use crate::units::UnitError;

/// Why flashlab-jobs could not read a job file or an option's value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A job file that is not valid: its file, line and option.
    #[error(transparent)]
    JobFile(#[from] JobFileError),
    /// An input file that could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A size, number or time with fio's units.
    #[error(transparent)]
    Unit(#[from] UnitError),
    /// A `bssplit` or `bsrange` value.
    #[error(transparent)]
    BlockSize(#[from] BlockSizeError),
    /// A `random_distribution` (or `file_service_type`) value.
    #[error(transparent)]
    Distribution(#[from] DistributionError),
    /// An option that needs a value, written bare.
    #[error("needs a value ('{option}=...')")]
    NeedsValue {
        /// The option as written.
        option: String,
    },
    /// An option written with `=` and nothing after it.
    #[error("empty value")]
    Empty,
    /// A value that is not one of those the option takes.
    #[error("bad {what} '{value}': expected {expected}")]
    Bad {
        /// What the value is (`value`, `percentage`, `criterion`).
        what: &'static str,
        /// The value as written.
        value: String,
        /// What the option takes.
        expected: String,
    },
    /// A value the option cannot use, and why (`'4k-8k': ranges are not supported ...`).
    #[error("'{value}': {problem}")]
    Value {
        /// The value as written.
        value: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A `verify=` method fio has and flashlab does not.
    #[error("verify={method} is fio's, but flashlab implements crc32c (crc32c-intel), crc32, crc64, md5, sha256, meta and pattern")]
    FioVerifyMethod {
        /// The method as written.
        method: String,
    },
    /// A number below the option's least value (`iodepth must be at least 1`).
    #[error("{what} must be {rule}")]
    Must {
        /// The option.
        what: String,
        /// The rule (`at least 1`, `greater than 0`).
        rule: &'static str,
    },
    /// A number above flashlab's limit for the option (`iodepth 99999: at most 65536`).
    #[error("{what} {value}: at most {max}")]
    AtMost {
        /// The option.
        what: &'static str,
        /// The value given.
        value: u64,
        /// The largest value flashlab takes.
        max: u64,
    },
    /// An option the parser knows but has no handler for: a bug in flashlab.
    #[error("internal: option '{option}' has no handler")]
    Internal {
        /// The option.
        option: String,
    },
}
