//! The power-cut model: which written data survives when the device loses power.
//!
//! flashsim times the write buffer but does not hold data, so persistence is modeled here, on
//! the data store, with three rules:
//! 1. Data covered by a completed FLUSH (`fsync` on the device file) is persisted.
//! 2. Of data written since the last flush, whatever is older than the last `window` bytes
//!    written (the profile's `[ftl] write_buffer_kib`) has necessarily left the buffer for NAND
//!    and is persisted; the newest `window` bytes are lost.
//! 3. A TRIM updates the mapping table and is persisted at once: a trimmed range reads zeros
//!    after a power cut, whatever happened to writes around it.
//!
//! Implementation: an undo journal at 4 KiB-block granularity. Before each write, the old
//! content of every block it touches is saved; entries leave the front of the journal as soon
//! as `window` bytes have been written after them (rule 2) and all of them at a flush (rule 1).
//! A power cut undoes the journal newest first, then re-applies the trims it holds (rule 3).
//! Block images come from a pool and go back to it, so steady-state writes allocate nothing.

use crate::store::Store;
use std::collections::VecDeque;
use std::io;

pub const BLOCK: u64 = 4096;

#[derive(Debug)]
enum Entry {
    /// `bytes` of a write landed in `block`; `image` is the block before it.
    Write {
        block: u64,
        bytes: u64,
        image: Box<[u8]>,
    },
    Trim {
        offset: u64,
        len: u64,
    },
}

/// What a power cut threw away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PowerCut {
    /// Bytes of host writes lost.
    pub lost_bytes: u64,
    /// 4 KiB blocks restored to their older content.
    pub blocks_restored: u64,
}

#[derive(Debug)]
pub struct PowerModel {
    window: u64,
    journal: VecDeque<Entry>,
    /// Write bytes in the journal.
    journal_bytes: u64,
    pool: Vec<Box<[u8]>>,
}

impl PowerModel {
    /// `window`: bytes of unflushed writes that a power cut loses (the volatile buffer size).
    pub fn new(window: u64) -> PowerModel {
        PowerModel { window, journal: VecDeque::new(), journal_bytes: 0, pool: Vec::new() }
    }

    pub fn window(&self) -> u64 {
        self.window
    }

    /// Bytes a power cut now would lose.
    pub fn at_risk_bytes(&self) -> u64 {
        self.journal_bytes
    }

    /// Call before `store.write(offset, len)`: saves what the write will overwrite.
    pub fn before_write(&mut self, store: &Store, offset: u64, len: u64) -> io::Result<()> {
        if self.window == 0 || len == 0 {
            return Ok(());
        }
        let end = offset + len;
        let mut block = offset / BLOCK;
        while block * BLOCK < end {
            let start = (block * BLOCK).max(offset);
            let stop = ((block + 1) * BLOCK).min(end).min(store.size());
            let mut image = self.pool.pop().unwrap_or_else(|| vec![0u8; BLOCK as usize].into_boxed_slice());
            let whole = ((block + 1) * BLOCK).min(store.size()) - block * BLOCK;
            store.read(block * BLOCK, &mut image[..whole as usize])?;
            let bytes = stop - start;
            self.journal.push_back(Entry::Write { block, bytes, image });
            self.journal_bytes += bytes;
            block += 1;
        }
        self.expire();
        Ok(())
    }

    /// Call after a trim of `[offset, offset + len)`.
    pub fn trimmed(&mut self, offset: u64, len: u64) {
        if self.window > 0 && !self.journal.is_empty() {
            self.journal.push_back(Entry::Trim { offset, len });
        }
    }

    /// A FLUSH completed: everything written so far is persisted.
    pub fn flushed(&mut self) {
        while let Some(e) = self.journal.pop_front() {
            self.recycle(e);
        }
        self.journal_bytes = 0;
    }

    /// Lose power: restore every block written within the window since the last flush.
    pub fn power_cut(&mut self, store: &mut Store) -> io::Result<PowerCut> {
        let mut cut = PowerCut { lost_bytes: self.journal_bytes, blocks_restored: 0 };
        for e in self.journal.iter().rev() {
            if let Entry::Write { block, image, .. } = e {
                let whole = ((block + 1) * BLOCK).min(store.size()) - block * BLOCK;
                store.write(block * BLOCK, &image[..whole as usize])?;
                cut.blocks_restored += 1;
            }
        }
        for e in self.journal.iter() {
            if let Entry::Trim { offset, len } = e {
                store.zero(*offset, *len)?;
            }
        }
        self.flushed();
        Ok(cut)
    }

    /// Drop entries that `window` bytes of newer writes have pushed out to NAND.
    fn expire(&mut self) {
        loop {
            let front = match self.journal.front() {
                Some(Entry::Write { bytes, .. }) => *bytes,
                Some(Entry::Trim { .. }) => 0,
                None => break,
            };
            if self.journal_bytes - front < self.window {
                break;
            }
            self.journal_bytes -= front;
            let e = self.journal.pop_front().expect("front exists");
            self.recycle(e);
        }
    }

    fn recycle(&mut self, e: Entry) {
        if let Entry::Write { image, .. } = e {
            self.pool.push(image);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: u64 = 1024;

    fn write(m: &mut PowerModel, s: &mut Store, off: u64, data: &[u8]) {
        m.before_write(s, off, data.len() as u64).unwrap();
        s.write(off, data).unwrap();
    }

    fn read(s: &Store, off: u64, len: usize) -> Vec<u8> {
        let mut b = vec![0u8; len];
        s.read(off, &mut b).unwrap();
        b
    }

    #[test]
    fn unflushed_within_window_is_lost_flushed_is_kept() {
        let mut s = Store::memory(16 << 20);
        let mut m = PowerModel::new(256 * KIB);
        write(&mut m, &mut s, 0, &[1u8; 8192]);
        m.flushed();
        write(&mut m, &mut s, 0, &[2u8; 4096]);
        write(&mut m, &mut s, 1 << 20, &[3u8; 4096]);
        let cut = m.power_cut(&mut s).unwrap();
        assert_eq!(cut.lost_bytes, 8192);
        assert_eq!(read(&s, 0, 8192), vec![1u8; 8192], "the flushed version comes back");
        assert_eq!(read(&s, 1 << 20, 4096), vec![0u8; 4096], "never-flushed block is gone");
    }

    #[test]
    fn older_than_window_is_programmed() {
        let mut s = Store::memory(16 << 20);
        let mut m = PowerModel::new(256 * KIB);
        // 1 MiB in 64 KiB writes, no flush: the first 768 KiB must have reached NAND.
        for i in 0..16u64 {
            write(&mut m, &mut s, i * 64 * KIB, &vec![i as u8 + 1; 64 * KIB as usize]);
        }
        assert_eq!(m.at_risk_bytes(), 256 * KIB);
        m.power_cut(&mut s).unwrap();
        for i in 0..16u64 {
            let got = read(&s, i * 64 * KIB, 64 * KIB as usize);
            let want = if i < 12 { i as u8 + 1 } else { 0 };
            assert!(got.iter().all(|&b| b == want), "chunk {i}: want {want}");
        }
    }

    #[test]
    fn rewrites_undo_in_order_and_trims_persist() {
        let mut s = Store::memory(1 << 20);
        let mut m = PowerModel::new(256 * KIB);
        write(&mut m, &mut s, 0, &[5u8; 4096]);
        write(&mut m, &mut s, 4096, &[5u8; 4096]);
        m.flushed();
        write(&mut m, &mut s, 0, &[6u8; 4096]);
        write(&mut m, &mut s, 0, &[7u8; 4096]);
        write(&mut m, &mut s, 4096, &[8u8; 4096]);
        s.zero(4096, 4096).unwrap();
        m.trimmed(4096, 4096);
        m.power_cut(&mut s).unwrap();
        assert_eq!(read(&s, 0, 4096), vec![5u8; 4096]);
        assert_eq!(read(&s, 4096, 4096), vec![0u8; 4096], "the trim survives the cut");
    }

    #[test]
    fn zero_window_loses_nothing() {
        let mut s = Store::memory(1 << 20);
        let mut m = PowerModel::new(0);
        write(&mut m, &mut s, 0, &[9u8; 4096]);
        assert_eq!(m.power_cut(&mut s).unwrap(), PowerCut::default());
        assert_eq!(read(&s, 0, 4096), vec![9u8; 4096]);
    }
}
