//! The errors of flashlab-lab's loaders: profiles, protocols and command-line values. Each
//! names the file (or flag), the line where there is one, and the field.

use flashlab_jobs::limits::InputError;
use flashlab_jobs::units::UnitError;

/// What flashlab-lab could not load or accept.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// An input file could not be read (missing, too large, binary, not UTF-8).
    #[error(transparent)]
    Input(#[from] InputError),
    /// A device profile is not valid.
    #[error(transparent)]
    Profile(#[from] flashsim::ProfileError),
    /// A size or duration could not be read.
    #[error(transparent)]
    Unit(#[from] UnitError),
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
}

/// Until every caller returns a typed error: the message, as it always was.
impl From<LabError> for String {
    fn from(e: LabError) -> String {
        e.to_string()
    }
}
