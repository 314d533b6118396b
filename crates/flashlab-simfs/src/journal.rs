//! A jbd2-style journal: a circular log of 4 KiB blocks in fixed runs of the device (one run
//! when mke2fs placed it; several when no free run was long enough, as for make_ext4fs's
//! journal of a whole group, which spans groups around their headers).
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
    /// The journal's runs on the device, in log order: (device byte offset, blocks); block 0
    /// of the first run is the journal superblock.
    runs: Vec<(u64, u64)>,
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
    /// A journal over `runs` (device byte offset, blocks), in log order; block 0 of the first
    /// run is the journal superblock.
    pub fn new(runs: Vec<(u64, u64)>) -> Journal {
        assert!(!runs.is_empty(), "a journal has blocks");
        let blocks = runs.iter().map(|&(_, l)| l).sum();
        Journal { runs, blocks, head: 1, used: 0, pending_home: Vec::new(), oldest: None }
    }

    /// The journal's bookkeeping: its runs add up to its blocks, the head is a log block (not
    /// the superblock) and no more log blocks are in use than the log has. Errors name the
    /// value out of place.
    pub(crate) fn check(&self) -> Result<(), String> {
        let sum: u64 = self.runs.iter().map(|&(_, l)| l).sum();
        if sum != self.blocks {
            return Err(format!("journal: its runs hold {sum} blocks, but it counts {}", self.blocks));
        }
        if self.head == 0 || self.head >= self.blocks {
            return Err(format!("journal: head at block {}, outside the log blocks 1..{}", self.head, self.blocks));
        }
        if self.used >= self.blocks {
            return Err(format!("journal: {} log blocks in use, but the log has {}", self.used, self.blocks - 1));
        }
        Ok(())
    }

    /// The journal's runs on the device: (device offset, bytes).
    pub fn regions(&self) -> Vec<(u64, u64)> {
        self.runs.iter().map(|&(s, l)| (s, l * FS_BLOCK)).collect()
    }

    /// Device byte offset of log block `b` and how many blocks from it are contiguous there.
    fn locate(&self, mut b: u64) -> (u64, u64) {
        for &(s, l) in &self.runs {
            if b < l {
                return (s + b * FS_BLOCK, l - b);
            }
            b -= l;
        }
        unreachable!("log block past the journal")
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
        // jbd2's thread takes the transaction: its CPU time comes before the log blocks.
        let start = t.max(d.not_before) + d.cpu.commit_ns;
        last = Some(later(last, self.log_write(d, t, start, body)?));
        // jbd2 (without `journal_async_commit`) waits for the log blocks before it sends the
        // commit block (`jbd2_journal_commit_transaction`: the log buffers are waited on, then
        // `journal_submit_commit_record`), so the device sees the commit block as a command of
        // its own, after an idle gap.
        let logged = last.expect("a log write").done;
        // The block layer runs a PREFLUSH|FUA write as a sequence (`blk-flush.c`): the
        // preflush, then the write once the flush has completed, then the post-flush that
        // emulates FUA once the write has completed. Each step waits for the one before.
        let pre = d.flush_after(t, logged)?; // PREFLUSH
        let commit = self.log_write(d, t, pre.done, 1)?; // commit block
        let post = d.flush_after(t, commit.done)?; // FUA, emulated by a post-flush
        let done = later(Some(later(Some(later(last, pre)), commit)), post);
        self.used += total;
        self.pending_home.extend_from_slice(dirty);
        self.oldest.get_or_insert(t);
        d.c.commits += 1;
        Ok(done)
    }

    /// Write `n` blocks at the log's head, submitted at `t` and issued at `issued`.
    fn log_write(&mut self, d: &mut Disk, t: Ns, issued: Ns, mut n: u64) -> Result<Completion, RequestError> {
        let mut last = None;
        while n > 0 {
            let (off, contiguous) = self.locate(self.head);
            let run = n.min(contiguous);
            last = Some(later(last, d.write_after(t, issued, off, run * FS_BLOCK, Purpose::Journal)?));
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
        // The flush once the home writes are on the device, then the journal superblock with
        // FUA (a post-flush), each step after the one before (`blk-flush.c`).
        let homed = last.map_or(t, |c| c.done);
        let pre = d.flush_after(t, homed)?;
        let sb = d.write_after(t, pre.done, self.runs[0].0, FS_BLOCK, Purpose::Journal)?;
        let post = d.flush_after(t, sb.done)?;
        let done = later(Some(later(Some(later(last, pre)), sb)), post);
        self.pending_home.clear();
        self.used = 0;
        self.oldest = None;
        d.c.checkpoints += 1;
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FsCounters;
    use flashsim::{Device, Profile};

    #[test]
    fn the_journal_check_names_a_head_or_use_out_of_place() {
        let mut j = Journal::new(vec![(4096, 8), (1 << 20, 8)]);
        j.check().unwrap();
        j.head = 16;
        assert_eq!(j.check().unwrap_err(), "journal: head at block 16, outside the log blocks 1..16");
        j.head = 3;
        j.used = 16;
        assert_eq!(j.check().unwrap_err(), "journal: 16 log blocks in use, but the log has 15");
        j.used = 0;
        j.blocks = 17;
        assert_eq!(j.check().unwrap_err(), "journal: its runs hold 16 blocks, but it counts 17");
    }

    /// A journal in two runs logs into both, splitting a write at the gap, and a commit is
    /// still two flushes around the commit block.
    #[test]
    fn a_journal_in_runs_logs_across_the_gap() {
        let profile = Profile::from_toml("toy.toml", flashsim::builtin::TOY).unwrap();
        let mut dev = Device::new(&profile, 1);
        let mut c = FsCounters::default();
        let mut trace = Vec::new();
        let runs = vec![(100 * FS_BLOCK, 10), (200 * FS_BLOCK, 20)];
        let mut j = Journal::new(runs.clone());
        let mut d = Disk {
            dev: &mut dev,
            meta: None,
            split: 0,
            c: &mut c,
            nobarrier: false,
            trace: Some(&mut trace),
            log: None,
            not_before: 0,
            cpu: crate::disk::FsCpu::ZERO,
        };
        // 1 descriptor + 12 blocks from log block 1: 9 in the first run, 4 in the second.
        let dirty: Vec<u64> = (1000..1012).collect();
        j.commit(&mut d, 0, &dirty, 0.75).unwrap();
        assert_eq!(c.commits, 1);
        let writes: Vec<(u64, u64)> =
            trace.iter().filter(|r| r.purpose == Some(Purpose::Journal)).map(|r| (r.offset, r.len)).collect();
        assert_eq!(
            writes,
            vec![(101 * FS_BLOCK, 9 * FS_BLOCK), (200 * FS_BLOCK, 4 * FS_BLOCK), (204 * FS_BLOCK, FS_BLOCK)]
        );
        assert_eq!(trace.iter().filter(|r| r.op == flashsim::Op::Flush).count(), 2);
        assert_eq!(j.regions(), vec![(100 * FS_BLOCK, 10 * FS_BLOCK), (200 * FS_BLOCK, 20 * FS_BLOCK)]);
    }

    /// jbd2 sends the commit block (and its flushes) only once the log blocks are on the
    /// device, and the block layer runs its PREFLUSH, write and POSTFLUSH one after the other
    /// (`blk-flush.c`): each is issued at the completion of the one before.
    #[test]
    fn the_commit_block_is_issued_when_the_log_blocks_are_done() {
        let profile = Profile::from_toml("toy.toml", flashsim::builtin::TOY).unwrap();
        let mut dev = Device::new(&profile, 1);
        let mut c = FsCounters::default();
        let mut trace = Vec::new();
        let mut j = Journal::new(vec![(100 * FS_BLOCK, 64)]);
        let mut d = Disk {
            dev: &mut dev,
            meta: None,
            split: 0,
            c: &mut c,
            nobarrier: false,
            trace: Some(&mut trace),
            log: None,
            not_before: 0,
            cpu: crate::disk::FsCpu::ZERO,
        };
        let done = j.commit(&mut d, 0, &[1000, 1001, 1002], 0.75).unwrap().done;
        // Descriptor and three metadata copies at 0; then flush, commit block, flush, each
        // issued when the one before completed.
        let ops: Vec<(flashsim::Op, Ns)> = trace.iter().map(|r| (r.op, r.t)).collect();
        assert_eq!(ops.len(), 4, "{ops:?}");
        assert_eq!(ops[0], (flashsim::Op::Write, 0));
        let kinds: Vec<flashsim::Op> = ops.iter().map(|o| o.0).collect();
        assert_eq!(kinds[1..], [flashsim::Op::Flush, flashsim::Op::Write, flashsim::Op::Flush]);
        for w in trace.windows(2) {
            assert_eq!(w[1].t, w[0].completion.done, "{:?} issued when {:?} completed", w[1].op, w[0].op);
        }
        assert_eq!(done, trace[3].completion.done);
    }
}
