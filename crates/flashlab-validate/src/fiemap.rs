//! A real file's extents through the FIEMAP ioctl (what `filefrag -v` prints): where the
//! kernel's ext4 put its blocks.

use crate::error::Error;
use std::os::fd::AsRawFd;
use std::path::Path;

/// `_IOWR('f', 11, struct fiemap)`.
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
const FIEMAP_FLAG_SYNC: u32 = 1;
const FIEMAP_EXTENT_LAST: u32 = 1;
/// Extents asked for per call.
const BATCH: usize = 256;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Extent {
    logical: u64,
    physical: u64,
    length: u64,
    reserved64: [u64; 2],
    flags: u32,
    reserved: [u32; 3],
}

#[repr(C)]
struct Request {
    start: u64,
    length: u64,
    flags: u32,
    mapped: u32,
    count: u32,
    reserved: u32,
    extents: [Extent; BATCH],
}

/// A file's extents: (logical offset, physical offset, length), bytes.
pub type FileExtents = Vec<(u64, u64, u64)>;

/// The extents of the file at `path`.
pub fn extents(path: &Path) -> Result<FileExtents, Error> {
    let f = std::fs::File::open(path).map_err(Error::io(path))?;
    let mut out = Vec::new();
    let mut start = 0u64;
    loop {
        let mut req = Box::new(Request {
            start,
            length: u64::MAX - start,
            flags: FIEMAP_FLAG_SYNC,
            mapped: 0,
            count: BATCH as u32,
            reserved: 0,
            extents: [Extent::default(); BATCH],
        });
        // SAFETY: FS_IOC_FIEMAP reads the header and writes at most `count` extents into the
        // buffer we own, which holds that many.
        let r = unsafe { libc::ioctl(f.as_raw_fd(), FS_IOC_FIEMAP as _, &mut *req as *mut Request) };
        if r < 0 {
            return Err(Error::Io { path: path.to_path_buf(), source: std::io::Error::last_os_error() });
        }
        let n = req.mapped as usize;
        for e in &req.extents[..n.min(BATCH)] {
            out.push((e.logical, e.physical, e.length));
        }
        match req.extents[..n.min(BATCH)].last() {
            Some(e) if e.flags & FIEMAP_EXTENT_LAST == 0 => start = e.logical + e.length,
            _ => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn layout_matches_the_kernel_abi() {
        assert_eq!(std::mem::size_of::<super::Extent>(), 56);
        assert_eq!(std::mem::offset_of!(super::Request, extents), 32);
    }
}
