//! The filesystem models' view of the device: every request a model sends goes through here,
//! so it is counted by purpose, discards are split at the device's limit, and flushes are
//! dropped under `nobarrier`.
//!
//! All requests a model issues for one call at virtual time `t` are submitted at `t`: the
//! device serves them in submission order and a flush waits for everything booked before it,
//! so a chain of requests completes in order without moving the device's submission clock past
//! requests other jobs still have to submit at `t`. A request the kernel sends only once
//! earlier ones have completed (jbd2's commit block after its log blocks) is submitted at `t`
//! but issued at their completion ([`Disk::write_after`], `flashsim::Device::submit_after`).

use super::counters::FsCounters;
use flashsim::{Completion, Device, Ns, Op, Request, RequestError};

/// Largest single discard request (Linux splits discards at the device's
/// `discard_max_bytes`; 4 GiB is typical).
pub(crate) const MAX_DISCARD: u64 = 4 << 30;

/// Why a write is sent, for the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// File data.
    Data,
    /// ext4's journal (descriptors, metadata copies, commit blocks, journal superblock).
    Journal,
    /// Metadata at its home location (ext4 checkpoints; F2FS NAT, SIT, checkpoint packs).
    Meta,
    /// F2FS node blocks.
    Node,
    /// F2FS cleaning copies.
    Cleaning,
}

/// One request as the filesystem sent it (recorded only when tracing is on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Traced {
    /// Virtual time it was submitted.
    pub t: Ns,
    /// Read, write, trim or flush.
    pub op: Op,
    /// Device byte offset.
    pub offset: u64,
    /// Bytes (0 for a flush).
    pub len: u64,
    /// Why a write was sent (`None` for reads, trims and flushes).
    pub purpose: Option<Purpose>,
    /// F2FS: the log a main-area write went to, as the kernel numbers its current segments
    /// (0-2 hot, warm, cold data; 3-5 hot, warm, cold node); `None` otherwise.
    pub log: Option<u8>,
}

pub(crate) struct Disk<'a> {
    pub(crate) dev: &'a mut Device,
    pub(crate) c: &'a mut FsCounters,
    pub(crate) nobarrier: bool,
    pub(crate) trace: Option<&'a mut Vec<Traced>>,
    /// The log the next writes go to (F2FS sets it around its log writes), for the trace.
    pub(crate) log: Option<u8>,
}

/// The later of two completions (`None` = nothing yet).
pub(crate) fn later(a: Option<Completion>, b: Completion) -> Completion {
    match a {
        Some(a) if a.done >= b.done => a,
        _ => b,
    }
}

/// A completion at `t` for an operation that needed no device request.
pub(crate) fn instant(t: Ns) -> Completion {
    Completion { submitted: t, device_start: t, device_done: t, done: t }
}

impl Disk<'_> {
    fn record(&mut self, t: Ns, op: Op, offset: u64, len: u64, purpose: Option<Purpose>) {
        if let Some(tr) = &mut self.trace {
            let log = if op == Op::Write { self.log } else { None };
            tr.push(Traced { t, op, offset, len, purpose, log });
        }
    }

    pub(crate) fn write(&mut self, t: Ns, off: u64, len: u64, why: Purpose) -> Result<Completion, RequestError> {
        self.write_after(t, t, off, len, why)
    }

    /// [`Disk::write`] issued at `issued`, once the requests it depends on completed
    /// ([`Device::submit_after`]).
    pub(crate) fn write_after(
        &mut self,
        t: Ns,
        issued: Ns,
        off: u64,
        len: u64,
        why: Purpose,
    ) -> Result<Completion, RequestError> {
        let c = self.dev.submit_after(t, issued, &Request::new(Op::Write, off, len))?;
        self.record(issued, Op::Write, off, len, Some(why));
        let n = match why {
            Purpose::Data => &mut self.c.data_bytes,
            Purpose::Journal => &mut self.c.journal_bytes,
            Purpose::Meta => &mut self.c.metadata_bytes,
            Purpose::Node => &mut self.c.node_bytes,
            Purpose::Cleaning => &mut self.c.cleaning_write_bytes,
        };
        *n += len;
        Ok(c)
    }

    pub(crate) fn read(&mut self, t: Ns, off: u64, len: u64) -> Result<Completion, RequestError> {
        self.record(t, Op::Read, off, len, None);
        self.dev.submit(t, &Request::new(Op::Read, off, len))
    }

    /// Discard [off, off+len), split at [`MAX_DISCARD`]; returns the last completion.
    pub(crate) fn trim(&mut self, t: Ns, mut off: u64, mut len: u64) -> Result<Completion, RequestError> {
        let mut last = instant(t);
        while len > 0 {
            let l = len.min(MAX_DISCARD);
            last = self.dev.submit(t, &Request::new(Op::Trim, off, l))?;
            self.record(t, Op::Trim, off, l, None);
            self.c.discards += 1;
            self.c.discard_bytes += l;
            off += l;
            len -= l;
        }
        Ok(last)
    }

    /// A cache flush (PREFLUSH, or the POSTFLUSH that emulates FUA on a device without it);
    /// under `nobarrier` it is counted as dropped and costs nothing.
    pub(crate) fn flush(&mut self, t: Ns) -> Result<Completion, RequestError> {
        self.flush_after(t, t)
    }

    /// [`Disk::flush`] issued at `issued`, once the requests it depends on completed.
    pub(crate) fn flush_after(&mut self, t: Ns, issued: Ns) -> Result<Completion, RequestError> {
        if self.nobarrier {
            self.c.flushes_dropped += 1;
            return Ok(instant(issued));
        }
        self.c.flushes_issued += 1;
        self.record(issued, Op::Flush, 0, 0, None);
        self.dev.submit_after(t, issued, &Request::new(Op::Flush, 0, 0))
    }
}
