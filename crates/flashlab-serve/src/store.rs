//! The data the served device holds: sparse in memory (1 MiB chunks allocated on first write,
//! freed when wholly trimmed) or in a backing file that flashlab creates. Reads return exactly
//! what was written, zeros where nothing was written or where it was trimmed.

use crate::error::StoreError;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

const CHUNK: u64 = 1 << 20;

#[derive(Debug)]
pub enum Store {
    Memory { size: u64, chunks: Vec<Option<Box<[u8]>>> },
    File { size: u64, file: File },
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
        Ok(Store::File { size, file })
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
            Store::File { file, .. } => file.read_exact_at(buf, offset),
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
            Store::File { file, .. } => file.write_all_at(data, offset),
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
            Store::File { file, .. } => {
                use std::os::fd::AsRawFd;
                // SAFETY: fallocate on a file descriptor we own, with plain integer arguments.
                let r = unsafe {
                    libc::fallocate(
                        file.as_raw_fd(),
                        libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                        offset as libc::off_t,
                        len as libc::off_t,
                    )
                };
                if r == 0 {
                    return Ok(());
                }
                // No hole punching on this filesystem: write zeros.
                let zeros = [0u8; 65536];
                let mut pos = offset;
                while pos < offset + len {
                    let n = (offset + len - pos).min(zeros.len() as u64) as usize;
                    file.write_all_at(&zeros[..n], pos)?;
                    pos += n as u64;
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
