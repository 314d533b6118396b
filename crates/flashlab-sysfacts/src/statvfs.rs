//! The size and free space of a mounted filesystem (`statvfs(3)`).

use crate::SysError;
use std::path::Path;

/// A filesystem's space, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    /// Total size.
    pub size: u64,
    /// Bytes in use (size minus free, including blocks reserved for root).
    pub used: u64,
    /// Bytes an unprivileged user may still write.
    pub avail: u64,
}

/// The space of the filesystem that holds `path`.
pub fn statvfs(path: &Path) -> Result<Space, SysError> {
    let s = rustix::fs::statvfs(path).map_err(|e| SysError::io(path, e.into()))?;
    let frag = if s.f_frsize > 0 { s.f_frsize } else { s.f_bsize };
    Ok(Space {
        size: s.f_blocks.saturating_mul(frag),
        used: s.f_blocks.saturating_sub(s.f_bfree).saturating_mul(frag),
        avail: s.f_bavail.saturating_mul(frag),
    })
}
