//! The errors of flashlab-doctor. Inspecting a system never fails as a whole (what cannot be
//! read becomes "unknown" and a [`crate::Problem`]); these are the errors of the few calls that
//! read one fact and can fail.

/// Why one fact about the inspected system could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DoctorError {
    /// `statvfs` on a mount point failed (the path and the system's error are in the source).
    #[error("statvfs {0}")]
    Statvfs(#[source] flashlab_sysfacts::SysError),
}
