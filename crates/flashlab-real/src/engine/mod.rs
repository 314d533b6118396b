//! I/O engines behind one interface, as fio's `engines/`: a job queues reads, writes and
//! flushes at (file descriptor, offset, buffer slot), submits them, and reaps completions that
//! carry its user data back. Engines own their buffers ([`AlignedBuffers`]): one 4 KiB-aligned
//! slot per I/O that can be in flight, so O_DIRECT works and nothing is allocated per I/O.
//!
//! * [`uring::UringEngine`] (`--ioengine io_uring`, the default where a ring can be created):
//!   keeps up to `iodepth` I/Os in flight; buffers registered with the ring (fixed buffers)
//!   when the kernel lets us, plain otherwise.
//! * [`psync::PsyncEngine`] (`--ioengine psync`, the portable fallback — Android blocks
//!   io_uring for most processes): `pread`/`pwrite`/`fsync`/`fdatasync`, one at a time, so its
//!   effective queue depth is 1 whatever `iodepth` says (as fio's psync).

pub mod psync;
pub mod uring;

use crate::buffers::DataPattern;
use crate::RealError;
use std::os::fd::RawFd;

/// What one request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoOp {
    /// Read `len` bytes into the slot.
    Read,
    /// Write `len` bytes from the slot.
    Write,
    /// `fsync` the file.
    Fsync,
    /// `fdatasync` the file.
    Fdatasync,
}

/// One request: `len` bytes at `offset` of `fd`, from or into buffer `slot`. Flushes use a
/// slot too (it marks the request in flight) but no bytes of it.
#[derive(Debug, Clone, Copy)]
pub struct IoRequest {
    /// What the request does.
    pub op: IoOp,
    /// The file or device.
    pub fd: RawFd,
    /// Byte offset.
    pub offset: u64,
    /// Length, bytes.
    pub len: u32,
    /// The buffer slot it uses.
    pub slot: u32,
    /// The caller's tag, returned in the completion.
    pub user_data: u64,
    /// Linux's ioprio value the request is sent with (io_uring's `sqe->ioprio`; 0: the
    /// thread's own). A synchronous engine sends it with the thread's priority.
    pub ioprio: u16,
}

/// A finished request: `result` is the byte count (or 0 for a flush), or `-errno`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoCompletion {
    /// The request's tag.
    pub user_data: u64,
    /// The buffer slot it used (free again).
    pub slot: u32,
    /// Bytes transferred (0 for a flush), or `-errno`.
    pub result: i32,
}

/// fio's `ioengine` names flashlab implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineKind {
    /// Linux io_uring: up to `iodepth` requests in flight.
    #[default]
    IoUring,
    /// pread/pwrite: one request at a time.
    Psync,
}

impl EngineKind {
    /// `io_uring` or `psync` (fio's names; `sync` and `pvsync` are read as `psync`).
    pub fn from_name(s: &str) -> Option<EngineKind> {
        match s {
            "io_uring" | "uring" => Some(EngineKind::IoUring),
            "psync" | "sync" | "pvsync" => Some(EngineKind::Psync),
            _ => None,
        }
    }

    /// fio's name: `io_uring` or `psync`.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Psync => "psync",
        }
    }
}

/// What an engine is built with.
#[derive(Debug, Clone, Copy)]
pub struct EngineConfig {
    /// Requests in flight at most (psync: 1 whatever this says).
    pub depth: u32,
    /// Bytes of each buffer slot (the largest block size of the job).
    pub buf_size: usize,
    /// What the written bytes hold.
    pub pattern: DataPattern,
    /// Seed of the random data.
    pub seed: u64,
    /// io_uring: register the buffers with the ring (fio's `fixedbufs`; fio's default is not
    /// to, and each I/O then pins its buffer's pages). psync ignores it.
    pub fixed_buffers: bool,
}

/// The interface every engine implements.
pub trait IoEngine {
    /// fio's name of the engine.
    fn name(&self) -> &'static str;
    /// Requests that can be in flight at once: the number of buffer slots.
    fn depth(&self) -> u32;
    /// Requests queued or submitted and not yet reaped.
    fn in_flight(&self) -> u32;
    /// True when [`submit`](IoEngine::submit) does the I/O itself (psync): the whole I/O is
    /// completion latency, as fio counts it for sync engines. False: submit only hands the
    /// requests to the kernel, and its duration is the submission latency (fio's slat).
    fn synchronous(&self) -> bool;
    /// The buffer of `slot`, or `None` while a request on it is in flight.
    fn buffer_mut(&mut self, slot: u32) -> Option<&mut [u8]>;
    /// Queue a request (not yet submitted). Fails if its slot is busy or out of range, or
    /// `len` exceeds the slot.
    fn queue(&mut self, req: IoRequest) -> Result<(), RealError>;
    /// Submit every queued request; returns how many.
    fn submit(&mut self) -> Result<usize, RealError>;
    /// Wait until at least `min` completions are there, then append up to `max` of those
    /// available to `out` (the rest stay for the next call); returns how many were appended.
    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<IoCompletion>) -> Result<usize, RealError>;
}

/// Whether io_uring works here: creates (and drops) a small ring. `Err` says why not
/// (e.g. `io_uring_setup: Operation not permitted` under a seccomp policy, or ENOSYS).
pub fn probe_io_uring() -> Result<(), crate::UringUnavailable> {
    match io_uring::IoUring::new(4) {
        Ok(_) => Ok(()),
        Err(source) => {
            Err(crate::UringUnavailable { explanation: crate::android::explain_uring_error(&source), source })
        }
    }
}

/// The engine to use for `--ioengine` (`None`: the default). The default is io_uring when
/// [`probe_io_uring`] succeeds, psync otherwise (and always on Android), with a note saying
/// why; asking for io_uring
/// explicitly where it does not work is an error.
pub fn choose_engine(requested: Option<&str>) -> Result<(EngineKind, Option<String>), RealError> {
    match requested {
        // Android blocks io_uring for most processes (a seccomp filter or SELinux; a trapping
        // filter would kill the probe), so psync is the default there without probing.
        None if crate::android::is_android() => Ok((
            EngineKind::Psync,
            Some("Android: using psync by default (io_uring is blocked for most Android processes; --ioengine io_uring tries it)".into()),
        )),
        None => match probe_io_uring() {
            Ok(()) => Ok((EngineKind::IoUring, None)),
            Err(e) => {
                Ok((EngineKind::Psync, Some(format!("io_uring is not available ({e}); using psync (queue depth 1)"))))
            }
        },
        Some(name) => match EngineKind::from_name(name) {
            Some(EngineKind::IoUring) => match probe_io_uring() {
                Ok(()) => Ok((EngineKind::IoUring, None)),
                Err(e) => Err(RealError::Unsupported(format!(
                    "--ioengine io_uring: not available on this system ({e}); use --ioengine psync"
                ))),
            },
            Some(k) => Ok((k, None)),
            None => Err(RealError::Unsupported(format!(
                "--ioengine {name}: unknown engine (flashlab has io_uring and psync)"
            ))),
        },
    }
}

/// Slot bookkeeping shared by the engines.
pub(crate) fn check_slot(busy: &[bool], buf_size: usize, req: &IoRequest) -> Result<(), RealError> {
    let s = req.slot as usize;
    if s >= busy.len() {
        return Err(RealError::BadJob(format!("I/O engine: buffer slot {s} of {}", busy.len())));
    }
    if busy[s] {
        return Err(RealError::BadJob(format!("I/O engine: buffer slot {s} is in flight")));
    }
    if matches!(req.op, IoOp::Read | IoOp::Write) && req.len as usize > buf_size {
        return Err(RealError::BadJob(format!("I/O engine: {} bytes do not fit a {buf_size}-byte buffer", req.len)));
    }
    Ok(())
}
