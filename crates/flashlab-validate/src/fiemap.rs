//! A real file's extents through the FIEMAP ioctl (what `filefrag -v` prints): where the
//! kernel's ext4 put its blocks. The ioctl is [`flashlab_sysfacts::fiemap`]'s.

use crate::error::Error;
use std::path::Path;

/// A file's extents: (logical offset, physical offset, length), bytes.
pub type FileExtents = Vec<(u64, u64, u64)>;

/// The extents of the file at `path`.
pub fn extents(path: &Path) -> Result<FileExtents, Error> {
    let f = std::fs::File::open(path).map_err(Error::io(path))?;
    let all = flashlab_sysfacts::fiemap::extents(&f, 0, u64::MAX)
        .map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    Ok(all.iter().map(|e| (e.logical, e.physical, e.length)).collect())
}
