//! The data the served device holds: sparse in memory (1 MiB chunks allocated on first write,
//! freed when wholly trimmed) or in a backing file that flashlab creates. Reads return exactly
//! what was written, zeros where nothing was written or where it was trimmed.
//!
//! A trim punches a hole in the backing file. Where the file's filesystem cannot (9p, for one,
//! which a VM's shared directory is), the trimmed 4 KiB units are remembered in a bitmap and
//! read as zeros, rather than written with zeros: a phone's 16 GB of discards would otherwise
//! hold the server for minutes.

use crate::error::StoreError;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

const CHUNK: u64 = 1 << 20;
/// The unit of the backing file's trimmed-units bitmap.
const UNIT: u64 = 4096;

#[derive(Debug)]
pub enum Store {
    Memory {
        size: u64,
        chunks: Vec<Option<Box<[u8]>>>,
    },
    /// `zeroed`: one bit per 4 KiB unit trimmed but not punched (empty until a punch fails).
    File {
        size: u64,
        file: File,
        zeroed: Vec<u64>,
    },
}

/// Whether unit `u`'s bit is set.
fn bit(map: &[u64], u: u64) -> bool {
    map.get((u / 64) as usize).is_some_and(|w| w & (1 << (u % 64)) != 0)
}

fn set_bit(map: &mut [u64], u: u64, on: bool) {
    let (w, b) = ((u / 64) as usize, 1u64 << (u % 64));
    if on {
        map[w] |= b;
    } else {
        map[w] &= !b;
    }
}

impl Store {
    pub fn memory(size: u64) -> Store {
        let n = size.div_ceil(CHUNK) as usize;
        Store::Memory { size, chunks: (0..n).map(|_| None).collect() }
    }

    /// Create the backing file `path` of `size` bytes (sparse). An existing file is refused
    /// unless `overwrite` is set, and then only a regular file is reused.
    pub fn backing_file(path: &Path, size: u64, overwrite: bool) -> Result<Store, StoreError> {
        let mut o = OpenOptions::new();
        o.read(true).write(true).mode(0o600).custom_flags(libc::O_NOFOLLOW);
        if overwrite {
            if let Ok(m) = std::fs::symlink_metadata(path) {
                if !m.file_type().is_file() {
                    return Err(StoreError::NotAFile(path.to_path_buf()));
                }
            }
            o.create(true).truncate(true);
        } else {
            o.create_new(true);
        }
        let file = o.open(path).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                StoreError::Exists(path.to_path_buf())
            } else {
                StoreError::Io { path: path.to_path_buf(), source: e }
            }
        })?;
        file.set_len(size).map_err(|source| StoreError::Io { path: path.to_path_buf(), source })?;
        Ok(Store::File { size, file, zeroed: Vec::new() })
    }

    pub fn size(&self) -> u64 {
        match self {
            Store::Memory { size, .. } | Store::File { size, .. } => *size,
        }
    }

    /// Bytes of memory or file the data occupies now (the tests check trims free it).
    #[cfg(test)]
    pub fn allocated_bytes(&self) -> u64 {
        match self {
            Store::Memory { chunks, .. } => chunks.iter().filter(|c| c.is_some()).count() as u64 * CHUNK,
            Store::File { file, .. } => {
                use std::os::unix::fs::MetadataExt;
                file.metadata().map(|m| m.blocks() * 512).unwrap_or(0)
            }
        }
    }

    /// Fill `buf` from `offset` (the caller keeps it inside the device).
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        match self {
            Store::Memory { chunks, .. } => {
                let mut done = 0usize;
                while done < buf.len() {
                    let pos = offset + done as u64;
                    let (ci, co) = ((pos / CHUNK) as usize, (pos % CHUNK) as usize);
                    let n = (CHUNK as usize - co).min(buf.len() - done);
                    match &chunks[ci] {
                        Some(c) => buf[done..done + n].copy_from_slice(&c[co..co + n]),
                        None => buf[done..done + n].fill(0),
                    }
                    done += n;
                }
                Ok(())
            }
            Store::File { file, zeroed, .. } => {
                file.read_exact_at(buf, offset)?;
                if !zeroed.is_empty() {
                    let end = offset + buf.len() as u64;
                    for u in offset / UNIT..end.div_ceil(UNIT) {
                        if bit(zeroed, u) {
                            let (a, b) = ((u * UNIT).max(offset), ((u + 1) * UNIT).min(end));
                            buf[(a - offset) as usize..(b - offset) as usize].fill(0);
                        }
                    }
                }
                Ok(())
            }
        }
    }

    pub fn write(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        match self {
            Store::Memory { chunks, .. } => {
                let mut done = 0usize;
                while done < data.len() {
                    let pos = offset + done as u64;
                    let (ci, co) = ((pos / CHUNK) as usize, (pos % CHUNK) as usize);
                    let n = (CHUNK as usize - co).min(data.len() - done);
                    let c = chunks[ci].get_or_insert_with(|| vec![0u8; CHUNK as usize].into_boxed_slice());
                    c[co..co + n].copy_from_slice(&data[done..done + n]);
                    done += n;
                }
                Ok(())
            }
            Store::File { file, zeroed, .. } => {
                if !zeroed.is_empty() {
                    let end = offset + data.len() as u64;
                    for u in offset / UNIT..end.div_ceil(UNIT) {
                        if bit(zeroed, u) {
                            // A unit the write covers only in part keeps zeros around it.
                            if u * UNIT < offset || (u + 1) * UNIT > end {
                                file.write_all_at(&[0u8; UNIT as usize], u * UNIT)?;
                            }
                            set_bit(zeroed, u, false);
                        }
                    }
                }
                file.write_all_at(data, offset)
            }
        }
    }

    /// Make `[offset, offset + len)` read as zeros and release its space where possible.
    pub fn zero(&mut self, offset: u64, len: u64) -> io::Result<()> {
        match self {
            Store::Memory { chunks, .. } => {
                let end = offset + len;
                let mut pos = offset;
                while pos < end {
                    let (ci, co) = ((pos / CHUNK) as usize, pos % CHUNK);
                    let n = (CHUNK - co).min(end - pos);
                    if n == CHUNK {
                        chunks[ci] = None;
                    } else if let Some(c) = &mut chunks[ci] {
                        c[co as usize..(co + n) as usize].fill(0);
                    }
                    pos += n;
                }
                Ok(())
            }
            Store::File { file, zeroed, size } => {
                use std::os::fd::AsRawFd;
                // Once a punch failed, the filesystem cannot: the bitmap from then on.
                let r = if !zeroed.is_empty() {
                    -1
                } else {
                    // SAFETY: fallocate on a file descriptor we own, with plain integer arguments.
                    unsafe {
                        libc::fallocate(
                            file.as_raw_fd(),
                            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                            offset as libc::off_t,
                            len as libc::off_t,
                        )
                    }
                };
                if r == 0 {
                    return Ok(());
                }
                // No hole punching on this filesystem: the whole units read as zeros from now
                // on (the bitmap), the parts of units at the ends are written with zeros.
                if zeroed.is_empty() {
                    *zeroed = vec![0; size.div_ceil(UNIT).div_ceil(64) as usize];
                }
                let end = offset + len;
                let (first, last) = (offset.div_ceil(UNIT), end / UNIT);
                for u in first..last {
                    set_bit(zeroed, u, true);
                }
                let zeros = [0u8; UNIT as usize];
                let head = (offset, (first * UNIT).min(end));
                let tail = ((last * UNIT).max(head.1), end);
                for (a, b) in [head, tail] {
                    if a < b {
                        file.write_all_at(&zeros[..(b - a) as usize], a)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Make the backing file's contents durable on the host (no-op in memory).
    pub fn sync(&self) -> io::Result<()> {
        match self {
            Store::Memory { .. } => Ok(()),
            Store::File { file, .. } => file.sync_data(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
    }

    fn exercise(mut s: Store) {
        let size = s.size();
        let mut buf = vec![1u8; 8192];
        s.read(0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0), "never written reads zeros");
        // A write across a chunk boundary reads back exactly.
        let data = pattern(3 * 4096, 7);
        let off = CHUNK - 4096;
        s.write(off, &data).unwrap();
        let mut back = vec![0u8; data.len()];
        s.read(off, &mut back).unwrap();
        assert_eq!(back, data);
        // Trim the middle block only.
        s.zero(CHUNK, 4096).unwrap();
        s.read(off, &mut back).unwrap();
        assert_eq!(&back[..4096], &data[..4096]);
        assert!(back[4096..8192].iter().all(|&b| b == 0));
        assert_eq!(&back[8192..], &data[8192..]);
        // The last byte of the device.
        s.write(size - 1, &[9]).unwrap();
        let mut last = [0u8; 1];
        s.read(size - 1, &mut last).unwrap();
        assert_eq!(last, [9]);
    }

    #[test]
    fn memory_reads_back_and_trims() {
        exercise(Store::memory(4 * CHUNK + 4096));
    }

    /// A backing file on a filesystem that cannot punch holes: trims become the bitmap, and
    /// every read and write around them keeps "what was written, zeros where trimmed".
    #[test]
    fn backing_file_without_hole_punching_remembers_trims() {
        let dir = std::env::temp_dir().join(format!("flashlab-serve-nopunch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("backing.img");
        let mut s = Store::backing_file(&path, 4 * CHUNK, true).unwrap();
        if let Store::File { zeroed, .. } = &mut s {
            *zeroed = vec![0; (4 * CHUNK / UNIT / 64) as usize]; // as after a failed punch
        }
        let data = pattern(6 * 4096, 3);
        s.write(0, &data).unwrap();
        // Trim from the middle of unit 1 to the middle of unit 4: 2 and 3 whole, the ends zeroed.
        s.zero(4096 + 100, 3 * 4096).unwrap();
        let mut back = vec![0u8; data.len()];
        s.read(0, &mut back).unwrap();
        let (a, b) = (4096 + 100, 4 * 4096 + 100);
        assert_eq!(&back[..a], &data[..a]);
        assert!(back[a..b].iter().all(|&x| x == 0), "the trimmed range reads zeros");
        assert_eq!(&back[b..], &data[b..]);
        assert!(matches!(&s, Store::File { zeroed, .. } if bit(zeroed, 2) && bit(zeroed, 3) && !bit(zeroed, 1)));
        // A write into part of a trimmed unit keeps zeros around it; a whole-unit write clears it.
        s.write(2 * 4096 + 10, &[7, 7]).unwrap();
        s.write(3 * 4096, &pattern(4096, 9)).unwrap();
        s.read(0, &mut back).unwrap();
        assert!(back[2 * 4096..2 * 4096 + 10].iter().all(|&x| x == 0));
        assert_eq!(&back[2 * 4096 + 10..2 * 4096 + 12], &[7, 7]);
        assert!(back[2 * 4096 + 12..3 * 4096].iter().all(|&x| x == 0));
        assert_eq!(&back[3 * 4096..4 * 4096], &pattern(4096, 9)[..]);
        // A trim inside one unit, and one across a boundary without a whole unit.
        s.zero(5 * 4096 + 8, 16).unwrap();
        s.zero(4096 - 4, 8).unwrap();
        s.read(0, &mut back).unwrap();
        assert!(back[5 * 4096 + 8..5 * 4096 + 24].iter().all(|&x| x == 0));
        assert_eq!(back[5 * 4096 + 24], data[5 * 4096 + 24]);
        assert!(back[4092..4100].iter().all(|&x| x == 0));
        assert_eq!(back[4091], data[4091]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn memory_whole_chunk_trim_frees_it() {
        let mut s = Store::memory(4 * CHUNK);
        s.write(CHUNK + 5, &[1, 2, 3]).unwrap();
        assert_eq!(s.allocated_bytes(), CHUNK);
        s.zero(0, 3 * CHUNK).unwrap();
        assert_eq!(s.allocated_bytes(), 0);
    }

    #[test]
    fn backing_file_reads_back_and_refuses_existing() {
        let dir = std::env::temp_dir().join(format!("flashlab-serve-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("backing.img");
        let _ = std::fs::remove_file(&path);
        exercise(Store::backing_file(&path, 4 * CHUNK, false).unwrap());
        let e = Store::backing_file(&path, 4 * CHUNK, false).unwrap_err().to_string();
        assert!(e.contains("already exists") && e.contains("backing.img"), "{e}");
        assert!(Store::backing_file(&path, 4 * CHUNK, true).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
