//! The `io_uring` engine: up to `depth` requests in flight on one ring (submission queue of
//! `depth` entries, completion queue of twice that, so it never overflows). Reads and writes
//! are plain `READ`/`WRITE` on the 4 KiB-aligned buffer slots, as fio's io_uring engine does
//! by default; with `fixed_buffers` (fio's `fixedbufs`) the slots are registered with the ring
//! and `READ_FIXED`/`WRITE_FIXED` are used (no page pinning per I/O; plain again if the kernel
//! refuses the registration, e.g. the locked-memory limit). A submit call also runs the
//! completions the kernel has deferred to this thread (`IORING_ENTER_GETEVENTS` without
//! waiting), as fio's submit does, so the reap after it finds them without a system call. A
//! flush is an `FSYNC` (with `DATASYNC` for fdatasync) marked `IO_DRAIN`, so it starts only
//! after every request submitted before it has completed — the ordering fsync-every-N promises.

use super::{check_slot, EngineConfig, IoCompletion, IoEngine, IoOp, IoRequest};
use crate::buffers::AlignedBuffers;
use crate::RealError;
use io_uring::{opcode, squeue, types, IoUring};

/// `io_uring_enter`'s flag to process completions (linux/io_uring.h; the crate keeps its copy
/// private).
const IORING_ENTER_GETEVENTS: u32 = 1;

/// The io_uring engine: a ring of `depth` entries; its buffers registered where the kernel allows.
pub struct UringEngine {
    // Declared before the buffers: dropped (ring closed) first; Drop also waits for every
    // request in flight, so the kernel never writes into freed memory.
    ring: IoUring,
    bufs: AlignedBuffers,
    fixed: bool,
    busy: Vec<bool>,
    user: Vec<u64>,
    in_flight: u32,
    unsubmitted: u32,
}

impl UringEngine {
    /// Sets up the ring; an error says why io_uring cannot be used.
    pub fn new(cfg: &EngineConfig) -> Result<UringEngine, RealError> {
        let depth = cfg.depth.max(1);
        let ring = build_ring(depth)?;
        let bufs = AlignedBuffers::new(depth as usize, cfg.buf_size, cfg.pattern, cfg.seed);
        // SAFETY: the iovec covers memory owned by `bufs`, which outlives the ring's use of it
        // (Drop drains the ring first; the ring is closed before the buffers are freed).
        let fixed = cfg.fixed_buffers
            && bufs.as_iovec().iov_len <= (1 << 30)
            && unsafe { ring.submitter().register_buffers(&[bufs.as_iovec()]) }.is_ok();
        Ok(UringEngine {
            ring,
            bufs,
            fixed,
            busy: vec![false; depth as usize],
            user: vec![0; depth as usize],
            in_flight: 0,
            unsubmitted: 0,
        })
    }

    /// Whether completions wait for the runner to ask for them (`SINGLE_ISSUER` +
    /// `DEFER_TASKRUN`, see [`build_ring`]); false on kernels older than 6.1.
    pub fn defers_task_work(&self) -> bool {
        self.ring.params().is_setup_single_issuer()
    }

    /// Whether the buffers are registered with the ring.
    pub fn fixed_buffers(&self) -> bool {
        self.fixed
    }

    fn enter(&mut self, want: usize) -> Result<usize, RealError> {
        loop {
            let r = if want == 0 {
                // Submit, and run the completions deferred to this thread without waiting for
                // any (fio's commit: `io_uring_enter(n, 0, GETEVENTS)`).
                let n = self.ring.submission().len() as u32;
                // SAFETY: no argument is passed; the ring's submission entries were pushed
                // with buffers that stay valid until reaped (see `queue`).
                unsafe { self.ring.submitter().enter::<libc::sigset_t>(n, 0, IORING_ENTER_GETEVENTS, None) }
            } else {
                self.ring.submit_and_wait(want)
            };
            match r {
                Ok(n) => return Ok(n),
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY)) => {
                    if want == 0 {
                        return Ok(0);
                    }
                }
                Err(e) => return Err(RealError::io("io_uring_enter", e)),
            }
        }
    }
}

/// Set the ring up as fio's io_uring engine does (fio 3.33 and later): the runner is the ring's
/// only submitter and reaps on the same thread, so completions are run when it asks for events
/// (`SINGLE_ISSUER` + `DEFER_TASKRUN`) instead of interrupting it with task work, and a
/// completion never needs an inter-processor interrupt (`COOP_TASKRUN`). Without these flags
/// every completion of a request the kernel finishes on another CPU (a loop device's worker,
/// an interrupt) is run as task work that interrupts the waiting thread. Measured (issue 18:
/// QD1 4 KiB O_DIRECT random reads, ext4 on a loop device over a disk file, quiet 2-vCPU VM,
/// medians of 8 interleaved 2 s runs): 27.1 k IOPS without these flags, 32.8 k with them, fio
/// 3.33 38.1 k. Kernels that refuse a flag (EINVAL: older than 6.1 / 5.19) get the ring without
/// it, as fio retries.
fn build_ring(depth: u32) -> Result<IoUring, RealError> {
    let entries = depth.next_power_of_two();
    let attempt = |defer: bool, coop: bool| {
        let mut b = IoUring::builder();
        b.setup_cqsize(depth * 2);
        if coop {
            b.setup_coop_taskrun();
        }
        if defer {
            b.setup_single_issuer().setup_defer_taskrun();
        }
        b.build(entries)
    };
    let einval = |e: &std::io::Error| e.raw_os_error() == Some(libc::EINVAL);
    attempt(true, true)
        .or_else(|e| if einval(&e) { attempt(false, true) } else { Err(e) })
        .or_else(|e| if einval(&e) { attempt(false, false) } else { Err(e) })
        .map_err(|e| RealError::io("io_uring_setup", e))
}

impl IoEngine for UringEngine {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn depth(&self) -> u32 {
        self.busy.len() as u32
    }

    fn synchronous(&self) -> bool {
        false
    }

    fn in_flight(&self) -> u32 {
        self.in_flight
    }

    fn buffer_mut(&mut self, slot: u32) -> Option<&mut [u8]> {
        match self.busy.get(slot as usize) {
            Some(false) => Some(self.bufs.slot_mut(slot as usize)),
            _ => None,
        }
    }

    fn queue(&mut self, req: IoRequest) -> Result<(), RealError> {
        check_slot(&self.busy, self.bufs.slot_size(), &req)?;
        let fd = types::Fd(req.fd);
        let p = self.bufs.slot_ptr(req.slot as usize);
        let sqe = match (req.op, self.fixed) {
            (IoOp::Read, true) => {
                opcode::ReadFixed::new(fd, p, req.len, 0).offset(req.offset).ioprio(req.ioprio).build()
            }
            (IoOp::Write, true) => {
                opcode::WriteFixed::new(fd, p, req.len, 0).offset(req.offset).ioprio(req.ioprio).build()
            }
            (IoOp::Read, false) => opcode::Read::new(fd, p, req.len).offset(req.offset).ioprio(req.ioprio).build(),
            (IoOp::Write, false) => opcode::Write::new(fd, p, req.len).offset(req.offset).ioprio(req.ioprio).build(),
            (IoOp::Fsync, _) => opcode::Fsync::new(fd).build().flags(squeue::Flags::IO_DRAIN),
            (IoOp::Fdatasync, _) => {
                opcode::Fsync::new(fd).flags(types::FsyncFlags::DATASYNC).build().flags(squeue::Flags::IO_DRAIN)
            }
        }
        .user_data(u64::from(req.slot));
        if self.ring.submission().is_full() {
            self.enter(0)?;
        }
        // SAFETY: the buffer slot stays allocated and unused by us until its completion is
        // reaped (busy flag); the fd is the caller's, open for the job.
        unsafe { self.ring.submission().push(&sqe) }
            .map_err(|_| RealError::BadJob("io_uring: submission queue full".into()))?;
        self.busy[req.slot as usize] = true;
        self.user[req.slot as usize] = req.user_data;
        self.in_flight += 1;
        self.unsubmitted += 1;
        Ok(())
    }

    fn submit(&mut self) -> Result<usize, RealError> {
        let n = self.unsubmitted as usize;
        if n > 0 {
            self.enter(0)?;
            self.unsubmitted = 0;
        }
        Ok(n)
    }

    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<IoCompletion>) -> Result<usize, RealError> {
        let min = min.min(self.in_flight as usize);
        let max = max.max(min);
        let ready = self.ring.completion().len();
        // Nothing ready and no wait asked for (fio's `iodepth_batch_complete_min=0`): enter
        // anyway without waiting, since deferred completions are only posted inside the call.
        if self.unsubmitted > 0 || ready < min || ready == 0 {
            // io_uring_enter's min_complete counts the completions already in the queue too.
            self.enter(if ready < min { min } else { 0 })?;
            self.unsubmitted = 0;
        }
        let mut n = 0;
        // Only the entries taken are consumed (the queue's head moves past them when the
        // iterator is dropped); the rest wait in the ring for the next reap, as with fio's
        // `iodepth_batch_complete_max`.
        for cqe in self.ring.completion().take(max) {
            let slot = cqe.user_data() as usize;
            if slot < self.busy.len() && self.busy[slot] {
                self.busy[slot] = false;
                self.in_flight -= 1;
                out.push(IoCompletion { user_data: self.user[slot], slot: slot as u32, result: cqe.result() });
                n += 1;
            }
        }
        Ok(n)
    }
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        let mut sink = Vec::new();
        while self.in_flight > 0 {
            sink.clear();
            if self.reap(1, usize::MAX, &mut sink).is_err() {
                // The ring is broken; leak the buffers rather than free memory the kernel
                // might still write.
                let b =
                    std::mem::replace(&mut self.bufs, AlignedBuffers::new(1, 1, crate::buffers::DataPattern::Zeros, 0));
                std::mem::forget(b);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffers::DataPattern;

    /// The kernel release's (major, minor), e.g. (6, 18) for "6.18.44-…".
    fn kernel_version() -> (u32, u32) {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").expect("read osrelease");
        let mut it = release.trim().split(|c: char| !c.is_ascii_digit()).map(|p| p.parse().unwrap_or(0));
        (it.next().unwrap_or(0), it.next().unwrap_or(0))
    }

    /// From Linux 6.1 the ring must be set up as fio sets it up (deferred task work): without it
    /// every completion interrupts the runner, ~15 µs per I/O in a VM (issue 18).
    #[test]
    fn ring_defers_task_work_where_the_kernel_can() {
        let cfg = EngineConfig { depth: 4, buf_size: 4096, pattern: DataPattern::Zeros, seed: 1, fixed_buffers: false };
        let eng = match UringEngine::new(&cfg) {
            Ok(e) => e,
            Err(e) => {
                if flashlab_testcaps::skip_requested("io_uring") {
                    eprintln!("SKIPPED ring_defers_task_work_where_the_kernel_can: {e}");
                    return;
                }
                panic!("io_uring ring could not be set up ({e}); set FLASHLAB_TEST_SKIP=io_uring to skip");
            }
        };
        let v = kernel_version();
        assert_eq!(eng.defers_task_work(), v >= (6, 1), "kernel {v:?}");
        // fio's default: plain reads and writes, no registered buffers.
        assert!(!eng.fixed_buffers());
    }

    /// `fixedbufs` registers the slots (root or a locked-memory limit above 16 KiB here).
    #[test]
    fn fixed_buffers_only_when_asked() {
        let cfg = EngineConfig { depth: 4, buf_size: 4096, pattern: DataPattern::Zeros, seed: 1, fixed_buffers: true };
        match UringEngine::new(&cfg) {
            Ok(e) => assert!(e.fixed_buffers()),
            Err(e) => assert!(flashlab_testcaps::skip_requested("io_uring"), "io_uring ring could not be set up ({e})"),
        }
    }
}
