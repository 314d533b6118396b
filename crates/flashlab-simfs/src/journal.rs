//! A jbd2-style journal: a circular log of 4 KiB blocks in a fixed region of the device.
//! A commit writes descriptor blocks and a copy of every dirty metadata block, then the commit
//! block with PREFLUSH|FUA (a flush before it and — the device having no FUA — a flush after
//! it, as the block layer emulates FUA). A checkpoint writes the journaled blocks to their
//! home locations, flushes, and moves the log tail in the journal superblock (FUA).
//!
//! Not modelled: revoke records, asynchronous commit, fast commits, checksums.

use super::disk::{later, Disk, Purpose};
use crate::extents::FS_BLOCK;
use flashsim::{Completion, Ns, RequestError};

/// Block tags per descriptor block (16-byte tags in a 4 KiB block, header and tail aside).
pub const TAGS_PER_DESCRIPTOR: u64 = 250;

#[derive(Debug, Clone)]
pub struct Journal {
    /// Device byte offset of journal block 0 (the journal superblock).
    start: u64,
    blocks: u64,
    /// Next log block, in [1, blocks).
    head: u64,
    /// Log blocks holding transactions not yet checkpointed.
    used: u64,
    /// Home block numbers of the metadata journaled since the last checkpoint.
    pending_home: Vec<u64>,
    /// When the oldest not-yet-checkpointed transaction committed.
    oldest: Option<Ns>,
}

impl Journal {
    pub fn new(start: u64, blocks: u64) -> Journal {
        Journal { start, blocks, head: 1, used: 0, pending_home: Vec::new(), oldest: None }
    }

    /// (device offset, bytes) of the journal region.
    pub fn region(&self) -> (u64, u64) {
        (self.start, self.blocks * FS_BLOCK)
    }

    /// Largest transaction: jbd2 closes a transaction at a quarter of the journal.
    pub fn max_transaction(&self) -> u64 {
        ((self.blocks - 1) / 4).max(3)
    }

    /// Commit one transaction of `dirty` home blocks (sorted, distinct, at most
    /// `max_transaction() - 2` of them... the caller splits); checkpoints first if the log
    /// would pass `fraction` full.
    pub fn commit(&mut self, d: &mut Disk, t: Ns, dirty: &[u64], fraction: f64) -> Result<Completion, RequestError> {
        let n = dirty.len() as u64;
        let body = n.div_ceil(TAGS_PER_DESCRIPTOR).max(1) + n;
        let total = body + 1;
        let limit = (((self.blocks - 1) as f64 * fraction) as u64).max(total);
        let mut last = None;
        if self.used + total > limit {
            last = Some(self.checkpoint(d, t)?);
        }
        last = Some(later(last, self.log_write(d, t, body)?));
        last = Some(later(last, d.flush(t)?)); // PREFLUSH
        last = Some(later(last, self.log_write(d, t, 1)?)); // commit block
        let done = later(last, d.flush(t)?); // FUA, emulated by a post-flush
        self.used += total;
        self.pending_home.extend_from_slice(dirty);
        self.oldest.get_or_insert(t);
        d.c.commits += 1;
        Ok(done)
    }

    fn log_write(&mut self, d: &mut Disk, t: Ns, mut n: u64) -> Result<Completion, RequestError> {
        let mut last = None;
        while n > 0 {
            let run = n.min(self.blocks - self.head);
            last = Some(later(last, d.write(t, self.start + self.head * FS_BLOCK, run * FS_BLOCK, Purpose::Journal)?));
            self.head += run;
            if self.head == self.blocks {
                self.head = 1;
            }
            n -= run;
        }
        Ok(last.expect("at least one block"))
    }

    /// Is a writeback of journaled metadata due at `t`?
    pub fn writeback_due(&self, t: Ns, interval: Ns) -> Option<Ns> {
        self.oldest.map(|o| o + interval).filter(|&due| due <= t)
    }

    /// When the next writeback falls due, if anything is journaled.
    pub fn next_writeback(&self, interval: Ns) -> Option<Ns> {
        self.oldest.map(|o| o + interval)
    }

    /// Write every journaled block home (runs of adjacent blocks as one request), flush, and
    /// free the log (journal superblock written with FUA).
    pub fn checkpoint(&mut self, d: &mut Disk, t: Ns) -> Result<Completion, RequestError> {
        self.pending_home.sort_unstable();
        self.pending_home.dedup();
        let mut last = None;
        let mut i = 0;
        while i < self.pending_home.len() {
            let s = self.pending_home[i];
            let mut j = i + 1;
            while j < self.pending_home.len() && self.pending_home[j] == s + (j - i) as u64 {
                j += 1;
            }
            last = Some(later(last, d.write(t, s * FS_BLOCK, (j - i) as u64 * FS_BLOCK, Purpose::Meta)?));
            i = j;
        }
        last = Some(later(last, d.flush(t)?));
        last = Some(later(last, d.write(t, self.start, FS_BLOCK, Purpose::Journal)?));
        let done = later(last, d.flush(t)?);
        self.pending_home.clear();
        self.used = 0;
        self.oldest = None;
        d.c.checkpoints += 1;
        Ok(done)
    }
}
