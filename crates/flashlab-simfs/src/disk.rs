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
    /// When the request's phases happened (`submitted` is when it was issued); a dropped flush
    /// (`nobarrier`) is not traced.
    pub completion: Completion,
}

/// The host CPU a filesystem call spends outside its device requests, on the virtual clock:
/// the system call and the filesystem's own code, and for ext4 the hand-off of a commit to the
/// jbd2 thread and back. The block layer's cost per request is the device's (`host_submit_us`,
/// `host_complete_us`). Measured on this machine's kernel (`bench/fsync-cost.sh`) and scaled
/// to the profile's CPU (`[system] cpu_scale`); zero for profiles without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FsCpu {
    /// A `write()` call of one page (buffered) before its data goes to the device.
    pub write_ns: Ns,
    /// An `fsync()` call before its first device request (system call, writeback set-up).
    pub fsync_ns: Ns,
    /// An ext4 journal commit before its log blocks are sent: jbd2's thread woken, the
    /// transaction locked and its buffers gathered.
    pub commit_ns: Ns,
    /// F2FS: what its fsync spends beyond `fsync_ns` whenever it writes anything (an fsync of
    /// in-place updates alone: F2FS's own sync path against ext4's).
    pub f2fs_fsync_ns: Ns,
    /// F2FS: what an fsync that writes node blocks spends beyond `fsync_ns + f2fs_fsync_ns`
    /// before them (the file's new blocks allocated at writeback, its node pages found and the
    /// last marked for roll-forward recovery).
    pub node_ns: Ns,
}

/// This machine's kernel (6.18, AMD EPYC vCPU at 2.6 GHz), `bench/fsync-cost.sh`: ext4 on a
/// loop device over tmpfs, fio 4 KiB random writes at QD1 with an fsync after each, p50s,
/// medians of 5 runs at load average 2.2-3.6 (docs/breakdown.md, "One durable write, part by
/// part"). One block request's whole round trip on that device, O_DIRECT on the loop device
/// minus a write to tmpfs, is 11.71 - 1.42 = 10.29 µs; the fsync costs below are the measured
/// fsync minus that per request it sent.
pub mod measured {
    use flashsim::Ns;
    /// `write()` of 4 KiB into ext4's page cache: 5.34 µs (6.43, 5.34, 4.58 in the three ext4
    /// cases; their median).
    pub const WRITE_NS: Ns = 5_340;
    /// An fsync that commits nothing (nobarrier, an overwrite: one data request): 16.06 µs
    /// measured, minus one request, 5.77 µs.
    pub const FSYNC_NS: Ns = 5_770;
    /// A jbd2 commit's CPU: an fsync that commits (nobarrier: data, log blocks and commit
    /// block, three requests) took 61.70 µs; minus three requests and the fsync's own 5.77 µs,
    /// 25.06 µs. (With barriers, two flushes more: 92.67 µs measured, 82.3 µs by these parts.)
    pub const COMMIT_NS: Ns = 25_060;
    /// F2FS's write + fsync CPU against ext4's (WRITE_NS + FSYNC_NS, an fsync that commits
    /// nothing), in thousandths: this kernel has no F2FS, so the ratios were measured in the
    /// distribution's kernel (Linux 6.1) in a VM (`bench/fs-cpu-vm.sh`, 10 runs in two
    /// sessions, medians): the kernel CPU of fio's thread per 4 KiB write + fsync, less its
    /// block requests' submission, on a loop device over tmpfs, every filesystem nobarrier,
    /// interleaved in one VM (TCG: its absolute times are not this machine's, only the ratios
    /// are used). Against ext4 overwriting in place: F2FS overwriting in place (an in-place
    /// update and no node write) 1.28 (runs 0.9-1.6 of the median ext4), F2FS on new blocks
    /// (data and node writes) 2.02 (1.8-3.2).
    pub const IPU_RATIO_PERMILLE: Ns = 1_280;
    /// See [`IPU_RATIO_PERMILLE`].
    pub const NODE_RATIO_PERMILLE: Ns = 2_020;
    /// F2FS's fsync beyond ext4's: (1.28 - 1) x 11.11 µs = 3.11 µs.
    pub const F2FS_FSYNC_NS: Ns = (WRITE_NS + FSYNC_NS) * (IPU_RATIO_PERMILLE - 1_000) / 1_000;
    /// F2FS's node path beyond that: (2.02 - 1.28) x 11.11 µs = 8.22 µs.
    pub const NODE_NS: Ns = (WRITE_NS + FSYNC_NS) * (NODE_RATIO_PERMILLE - IPU_RATIO_PERMILLE) / 1_000;
}

impl FsCpu {
    /// No CPU time outside the device requests (every profile without `[system] cpu_scale`).
    pub const ZERO: FsCpu = FsCpu { write_ns: 0, fsync_ns: 0, commit_ns: 0, f2fs_fsync_ns: 0, node_ns: 0 };

    /// This machine's measured costs ([`measured`]) times `scale`, the profile's CPU against
    /// this machine's core (a 2016 phone: 4, docs/breakdown.md gives the source). F2FS's write
    /// and fsync take ext4's figures for a write and for an fsync that commits nothing (it
    /// never commits), plus [`measured::NODE_NS`] when its fsync writes node blocks (measured
    /// against ext4 in a VM: this kernel has no F2FS).
    pub fn scaled(scale: f64) -> FsCpu {
        let s = |ns: Ns| (ns as f64 * scale).round() as Ns;
        FsCpu {
            write_ns: s(measured::WRITE_NS),
            fsync_ns: s(measured::FSYNC_NS),
            commit_ns: s(measured::COMMIT_NS),
            f2fs_fsync_ns: s(measured::F2FS_FSYNC_NS),
            node_ns: s(measured::NODE_NS),
        }
    }
}

pub(crate) struct Disk<'a> {
    pub(crate) dev: &'a mut Device,
    /// A filesystem over two devices (F2FS on a zoned device, its metadata on a conventional
    /// one, as `mkfs.f2fs -c` lays it out): requests below `split` bytes go to `meta` at their
    /// own offset, the rest to `dev` at `offset - split`. `None` and 0 on one device.
    pub(crate) meta: Option<&'a mut Device>,
    pub(crate) split: u64,
    pub(crate) c: &'a mut FsCounters,
    pub(crate) nobarrier: bool,
    pub(crate) trace: Option<&'a mut Vec<Traced>>,
    /// The log the next writes go to (F2FS sets it around its log writes), for the trace.
    pub(crate) log: Option<u8>,
    /// No request of this call is issued before this (the call's own CPU time comes first).
    pub(crate) not_before: Ns,
    /// The host CPU of filesystem calls.
    pub(crate) cpu: FsCpu,
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
    Completion { submitted: t, device_start: t, device_done: t, done: t, idle_exit: 0 }
}

impl Disk<'_> {
    /// The device a request at filesystem byte `off` goes to, and its offset there.
    fn route(&mut self, off: u64) -> (&mut Device, u64) {
        match self.meta.as_deref_mut() {
            Some(meta) if off < self.split => (meta, off),
            _ => (&mut *self.dev, off - self.split),
        }
    }

    /// Submit `op` of `len` bytes at `at` on `dev`, split at zone boundaries on a zoned
    /// device as the block layer splits a bio (`chunk_sectors`: no request crosses a zone);
    /// the last piece's completion.
    fn submit_split(
        dev: &mut Device,
        t: Ns,
        issued: Ns,
        op: Op,
        mut at: u64,
        mut len: u64,
    ) -> Result<Completion, RequestError> {
        let zone = dev.zones().map_or(u64::MAX, |z| z.zone(0).size);
        let mut last: Option<Completion> = None;
        loop {
            let piece = len.min(zone - at % zone);
            let c = dev.submit_after(t, issued, &Request::new(op, at, piece))?;
            last = Some(later(last, c));
            (at, len) = (at + piece, len - piece);
            if len == 0 {
                return Ok(last.expect("one piece at least"));
            }
        }
    }

    fn record(&mut self, t: Ns, op: Op, offset: u64, len: u64, purpose: Option<Purpose>, completion: Completion) {
        if let Some(tr) = &mut self.trace {
            let log = if op == Op::Write { self.log } else { None };
            tr.push(Traced { t, op, offset, len, purpose, log, completion });
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
        let issued = issued.max(self.not_before);
        let (dev, at) = self.route(off);
        let c = Disk::submit_split(dev, t, issued, Op::Write, at, len)?;
        self.record(issued, Op::Write, off, len, Some(why), c);
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
        let issued = t.max(self.not_before);
        let (dev, at) = self.route(off);
        let c = Disk::submit_split(dev, t, issued, Op::Read, at, len)?;
        self.record(issued, Op::Read, off, len, None, c);
        Ok(c)
    }

    /// Discard [off, off+len), split at [`MAX_DISCARD`]; returns the last completion.
    pub(crate) fn trim(&mut self, t: Ns, mut off: u64, mut len: u64) -> Result<Completion, RequestError> {
        let mut last = instant(t);
        while len > 0 {
            let l = len.min(MAX_DISCARD);
            let issued = t.max(self.not_before);
            let (dev, at) = self.route(off);
            last = dev.submit_after(t, issued, &Request::new(Op::Trim, at, l))?;
            self.record(issued, Op::Trim, off, l, None, last);
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
        let issued = issued.max(self.not_before);
        if self.nobarrier {
            self.c.flushes_dropped += 1;
            return Ok(instant(issued));
        }
        self.c.flushes_issued += 1;
        let mut c = self.dev.submit_after(t, issued, &Request::new(Op::Flush, 0, 0))?;
        // Over two devices the flush goes to both (`f2fs_issue_flush` on a multi-device
        // volume) and is done when both are.
        if let Some(meta) = self.meta.as_deref_mut() {
            self.c.flushes_issued += 1;
            c = later(Some(c), meta.submit_after(t, issued, &Request::new(Op::Flush, 0, 0))?);
        }
        self.record(issued, Op::Flush, 0, 0, None, c);
        Ok(c)
    }

    /// Reset the zone of the zoned device that filesystem byte `off` starts (F2FS freeing a
    /// section, `__f2fs_issue_discard_zone`): its blocks are erased before the command
    /// completes. Traced as a trim of the zone.
    pub(crate) fn zone_reset(&mut self, t: Ns, off: u64) -> Result<Completion, RequestError> {
        let issued = t.max(self.not_before);
        let (dev, at) = self.route(off);
        let zone = dev.zones().map_or(0, |z| z.zone_of(at));
        let len = dev.zones().map_or(0, |z| z.zone(zone).size);
        let c = dev.zone_reset(issued, zone)?;
        self.record(issued, Op::Trim, off, len, None, c);
        self.c.zone_resets += 1;
        Ok(c)
    }
}
