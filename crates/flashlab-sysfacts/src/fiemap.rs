//! Where a file's bytes sit on its filesystem's device: the FIEMAP ioctl (what `filefrag -v`
//! prints), asked in batches until the kernel marks the last extent.

use std::fs::File;
use std::os::fd::AsRawFd;

/// `_IOWR('f', 11, struct fiemap)`.
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
/// Flush the file's dirty pages first, so delayed allocations have a place.
const FIEMAP_FLAG_SYNC: u32 = 1;
/// The extent flag on the file's last extent.
pub const FIEMAP_EXTENT_LAST: u32 = 0x1;
/// Unknown location, delayed allocation, encoded, encrypted, not aligned, inline, tail-packed,
/// unwritten: the extent flags whose bytes cannot be placed on the device by sector.
pub const FIEMAP_EXTENT_NOT_PLAIN: u32 = 0x2 | 0x4 | 0x8 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800;
/// Extents asked for per call.
const BATCH: usize = 256;

/// One extent as the kernel returns it (`struct fiemap_extent`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extent {
    /// Offset in the file, bytes.
    pub logical: u64,
    /// Offset on the filesystem's device, bytes.
    pub physical: u64,
    /// Length, bytes.
    pub length: u64,
    reserved64: [u64; 2],
    /// `FIEMAP_EXTENT_*` flags.
    pub flags: u32,
    reserved: [u32; 3],
}

/// `struct fiemap` with room for [`BATCH`] extents.
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

/// The extents of `file` that overlap `[start, start + length)`, in file order, as the kernel
/// returns them (not clipped to the range; flags not checked). Stops at the extent marked last,
/// at the end of the range, or when the kernel maps nothing more.
pub fn extents(file: &File, start: u64, length: u64) -> std::io::Result<Vec<Extent>> {
    let end = start.saturating_add(length);
    let mut out = Vec::new();
    let mut at = start;
    while at < end {
        let mut req = Box::new(Request {
            start: at,
            length: end - at,
            flags: FIEMAP_FLAG_SYNC,
            mapped: 0,
            count: BATCH as u32,
            reserved: 0,
            extents: [Extent::default(); BATCH],
        });
        // SAFETY: FS_IOC_FIEMAP reads the header and writes at most `count` extents into the
        // buffer we own, which holds that many.
        let r = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_FIEMAP as _, &mut *req as *mut Request) };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let got = &req.extents[..(req.mapped as usize).min(BATCH)];
        out.extend_from_slice(got);
        match got.last() {
            Some(e) if e.flags & FIEMAP_EXTENT_LAST == 0 => at = e.logical + e.length,
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

    #[test]
    fn a_written_file_is_mapped() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("flashlab-sysfacts-fiemap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::File::create(&path).unwrap().write_all(&vec![7u8; 64 << 10]).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        let got = super::extents(&f, 0, u64::MAX);
        std::fs::remove_dir_all(&dir).unwrap();
        // tmpfs has no FIEMAP (EOPNOTSUPP); any filesystem that has it maps all 64 KiB.
        match got {
            Ok(ext) => assert!(ext.iter().map(|e| e.length).sum::<u64>() >= 64 << 10, "{ext:?}"),
            Err(e) => assert_eq!(e.raw_os_error(), Some(libc::EOPNOTSUPP), "{e}"),
        }
    }
}
