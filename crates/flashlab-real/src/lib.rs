//! flashlab on real targets: the same jobs and protocols as on simulated devices, run on a
//! directory of a mounted filesystem or on a raw block device, in real time.
//!
//! * [`engine`]: the [`IoEngine`](engine::IoEngine) interface (fio's `ioengine`), with
//!   `io_uring` (default where the kernel allows it) and `psync` (portable, queue depth 1).
//! * [`runner`]: the real-time closed-loop runner — [`run_job`](runner::run_job) keeps
//!   `iodepth` I/Os in flight and measures them into a fio-compatible
//!   [`JobResult`](flashlab_measure::JobResult).
//! * [`dir_protocol`]: a protocol in a directory, settings in, results document out.
//! * [`dir_target`]: [`DirTarget`](dir_target::DirTarget), a directory on a mounted filesystem
//!   as a [`ProtocolTarget`](flashlab_workload::protocol::ProtocolTarget) (four-corner, fill,
//!   random writes, delete, FITRIM, idle).
//! * [`verify`]: fio's `verify` — checksummed headers in every block written, read back and
//!   checked after the write phase or every `verify_backlog` blocks.
//! * [`cleanup`]: the registry of files flashlab created, removed on success, error and
//!   SIGINT/SIGTERM.
//! * [`blockdev`]: the safety checks before a raw block device is used.
//! * [`android`]: Android detection, why io_uring is unavailable, and asking Android to trim
//!   when FITRIM needs root.
//!
//! Safety rule: flashlab never writes outside the files it created, except a block device the
//! user named with `destroy_data`.

pub mod android;
pub mod blockdev;
pub mod buffers;
pub mod cleanup;
pub mod control;
pub mod dir_protocol;
pub mod dir_target;
pub mod engine;
pub mod error;
pub mod runner;
pub mod verify;

pub use error::{NoTrim, RealError, SmError, UringUnavailable};
