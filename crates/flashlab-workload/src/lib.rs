//! flashlab-workload: what flashlab runs, whatever the target — a simulated device, a real
//! filesystem or block device, or a served simulated device under a real kernel.
//!
//! * [`rng`]: seeded randomness; [`offsets`], [`iogen`]: where and how big each I/O of a job
//!   is (fio's workload options); [`fileset`]: a job over several files.
//! * [`fourcorner`], [`protocol`]: the four-corner suite and ordered protocols such as the
//!   Moto X review's, run on any [`protocol::ProtocolTarget`]; [`protocol_run`]: a protocol's
//!   settings resolved once and its result as a typed results document.
//! * [`report_groups`]: fio's reporting groups (`group_reporting`, `new_group`): which jobs'
//!   results are reported as one.
//! * [`units`]: sizes and durations as the command line reads them.
//! * [`device`]: what a simulated device reports about itself in a result.
//! * [`Error`]: the one error type of the workloads and the lab, naming the file, line,
//!   field, job or flag at fault.
//!
//! Nothing here does I/O or reads a clock: targets do (`flashlab-lab` for simulated systems,
//! `flashlab-real` for real ones).

pub mod device;
mod error;
pub mod fileset;
pub mod flow;
pub mod fourcorner;
pub mod iogen;
pub mod job;
pub mod job_loop;
pub mod offsets;
pub mod protocol;
pub mod protocol_run;
pub mod report_groups;
pub mod rng;
pub mod sprandom;
pub mod strided;
pub mod units;
pub mod zbd;

pub use error::Error;
