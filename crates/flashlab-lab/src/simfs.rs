//! The simulated filesystem: files as extents on a simulated device's logical block space,
//! with in-place updates (ext4-like allocation), delete, fstrim, and optional online discard.
//!
//! It only does bookkeeping — which device ranges a file occupies and which are free — and
//! says which device requests an operation implies; [`crate::system::SimSystem`] sends them.
//! Without discard, deleting a file frees its blocks for the filesystem while the device still
//! holds the old data as valid: that is what makes an untrimmed device slow when it is full.
//! Metadata and journal writes are not modelled yet (calibrated filesystem models are later
//! work); data blocks are what moves the device.

use std::collections::BTreeMap;
use std::fmt;

/// Filesystem block: the 4 KiB mapping unit.
pub const FS_BLOCK: u64 = 4096;

/// A run of a file: `len` bytes at file offset `file_off` live at device offset `dev_off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub file_off: u64,
    pub dev_off: u64,
    pub len: u64,
}

#[derive(Debug, Clone, Default)]
pub struct File {
    pub size: u64,
    pub extents: Vec<Extent>,
}

impl File {
    /// Device pieces of the file range [off, off+len): (device offset, length).
    pub fn map(&self, off: u64, len: u64, mut piece: impl FnMut(u64, u64)) {
        let end = off + len;
        let mut i = self.extents.partition_point(|e| e.file_off + e.len <= off);
        let mut pos = off;
        while pos < end && i < self.extents.len() {
            let e = self.extents[i];
            let take = (e.file_off + e.len).min(end) - pos;
            piece(e.dev_off + (pos - e.file_off), take);
            pos += take;
            i += 1;
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FsError {
    NoSpace { name: String, wanted: u64, free: u64 },
    Exists(String),
    NotFound(String),
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FsError::NoSpace { name, wanted, free } => {
                write!(f, "file '{name}' of {wanted} bytes does not fit: {free} bytes free on the simulated filesystem")
            }
            FsError::Exists(n) => write!(f, "file '{n}' already exists"),
            FsError::NotFound(n) => write!(f, "no file '{n}'"),
        }
    }
}

impl std::error::Error for FsError {}

/// Free space and files. Allocation is next-fit over free extents (ext4's allocator also
/// prefers to continue after the last allocation), so a filesystem that was filled and emptied
/// spreads new files over blocks the device may still consider valid.
#[derive(Debug, Clone)]
pub struct SimFs {
    capacity: u64,
    /// Free extents: start -> length, in bytes, coalesced.
    free: BTreeMap<u64, u64>,
    free_bytes: u64,
    files: BTreeMap<String, File>,
    /// Next-fit cursor.
    cursor: u64,
    pub discard: bool,
}

impl SimFs {
    /// A fresh filesystem over `capacity` bytes of device (rounded down to whole blocks).
    pub fn new(capacity: u64, discard: bool) -> SimFs {
        let capacity = capacity / FS_BLOCK * FS_BLOCK;
        let mut free = BTreeMap::new();
        if capacity > 0 {
            free.insert(0, capacity);
        }
        SimFs { capacity, free, free_bytes: capacity, files: BTreeMap::new(), cursor: 0, discard }
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }
    pub fn free_bytes(&self) -> u64 {
        self.free_bytes
    }
    pub fn used_bytes(&self) -> u64 {
        self.capacity - self.free_bytes
    }
    pub fn file(&self, name: &str) -> Option<&File> {
        self.files.get(name)
    }
    pub fn files(&self) -> impl Iterator<Item = (&String, &File)> {
        self.files.iter()
    }

    /// Create a file of `size` bytes (rounded up to whole blocks) and allocate its blocks. The
    /// data is not written here: the caller writes it (or not, like fallocate).
    pub fn create(&mut self, name: &str, size: u64) -> Result<&File, FsError> {
        if self.files.contains_key(name) {
            return Err(FsError::Exists(name.to_string()));
        }
        let need = size.div_ceil(FS_BLOCK).saturating_mul(FS_BLOCK);
        if need > self.free_bytes {
            return Err(FsError::NoSpace { name: name.to_string(), wanted: size, free: self.free_bytes });
        }
        let mut extents = Vec::new();
        let mut got = 0;
        while got < need {
            let (start, len) = self
                .free
                .range(self.cursor..)
                .next()
                .or_else(|| self.free.iter().next())
                .map(|(&s, &l)| (s, l))
                .expect("free bytes accounted but no free extent");
            let take = len.min(need - got);
            self.free.remove(&start);
            if take < len {
                self.free.insert(start + take, len - take);
            }
            match extents.last_mut() {
                Some(Extent { dev_off, len, .. }) if *dev_off + *len == start => *len += take,
                _ => extents.push(Extent { file_off: got, dev_off: start, len: take }),
            }
            got += take;
            self.cursor = start + take;
        }
        self.free_bytes -= need;
        self.files.insert(name.to_string(), File { size, extents });
        Ok(&self.files[name])
    }

    /// Delete a file; returns its extents (the ranges online discard would trim).
    pub fn delete(&mut self, name: &str) -> Result<Vec<Extent>, FsError> {
        let file = self.files.remove(name).ok_or_else(|| FsError::NotFound(name.to_string()))?;
        for e in &file.extents {
            self.release(e.dev_off, e.len);
        }
        Ok(file.extents)
    }

    fn release(&mut self, start: u64, len: u64) {
        self.free_bytes += len;
        let (mut s, mut l) = (start, len);
        if let Some((&ps, &pl)) = self.free.range(..s).next_back() {
            if ps + pl == s {
                self.free.remove(&ps);
                s = ps;
                l += pl;
            }
        }
        if let Some(&nl) = self.free.get(&(s + l)) {
            self.free.remove(&(s + l));
            l += nl;
        }
        self.free.insert(s, l);
    }

    /// The free extents, which fstrim trims (ext4 trims all free space on the first fstrim
    /// after mount; this model always does).
    pub fn free_extents(&self) -> Vec<(u64, u64)> {
        self.free.iter().map(|(&s, &l)| (s, l)).collect()
    }

    /// Check that files and free space tile the device exactly. For tests.
    pub fn check(&self) -> Result<(), String> {
        let mut ranges: Vec<(u64, u64)> = self.free_extents();
        for f in self.files.values() {
            ranges.extend(f.extents.iter().map(|e| (e.dev_off, e.len)));
        }
        ranges.sort();
        let mut pos = 0;
        for (s, l) in ranges {
            if s != pos {
                return Err(format!("gap or overlap at {pos} (next range starts at {s})"));
            }
            pos = s + l;
        }
        if pos != self.capacity {
            return Err(format!("ranges end at {pos}, capacity {}", self.capacity));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_delete_tiles() {
        let mut fs = SimFs::new(100 * FS_BLOCK, false);
        fs.create("a", 10 * FS_BLOCK).unwrap();
        fs.create("b", 20 * FS_BLOCK + 1).unwrap();
        assert_eq!(fs.free_bytes(), 69 * FS_BLOCK);
        fs.check().unwrap();
        fs.delete("a").unwrap();
        fs.create("c", 75 * FS_BLOCK).unwrap(); // wraps: uses the tail, then a's hole
        fs.check().unwrap();
        assert_eq!(fs.file("c").unwrap().extents.len(), 2);
        assert!(matches!(fs.create("d", 5 * FS_BLOCK), Err(FsError::NoSpace { .. })));
        fs.create("d", 4 * FS_BLOCK).unwrap();
        fs.delete("d").unwrap();
        fs.delete("b").unwrap();
        fs.delete("c").unwrap();
        assert_eq!(fs.free_extents(), vec![(0, 100 * FS_BLOCK)]);
    }

    #[test]
    fn map_splits_at_extents() {
        let f = File {
            size: 8 * FS_BLOCK,
            extents: vec![
                Extent { file_off: 0, dev_off: 40 * FS_BLOCK, len: 4 * FS_BLOCK },
                Extent { file_off: 4 * FS_BLOCK, dev_off: 0, len: 4 * FS_BLOCK },
            ],
        };
        let mut pieces = vec![];
        f.map(3 * FS_BLOCK, 2 * FS_BLOCK, |d, l| pieces.push((d, l)));
        assert_eq!(pieces, vec![(43 * FS_BLOCK, FS_BLOCK), (0, FS_BLOCK)]);
    }
}
