//! flashlab-lab: what flashlab runs on a target and what comes out.
//!
//! * [`system`]: a simulated device with a simulated filesystem (`flashlab-simfs`: `plain`,
//!   ext4-like, F2FS-like) on it and the virtual clock: the one API every front end drives.
//! * [`engine`]: the closed-loop engine that runs fio-style jobs ([`offsets`] says where each
//!   I/O goes), measuring with `flashlab-measure`.
//! * [`jobfile_run`]: an fio job file on a simulated system (`flashlab run`, sweeps).
//! * [`fourcorner`], [`protocol`]: the four-corner suite and ordered protocols such as `age`.
//! * [`protocol_run`]: a protocol's settings resolved and its typed results document, on any
//!   target.
//! * [`sim_run`]: a protocol on a simulated device, settings in, results document out — the
//!   one way every front end (`age`, `bench`, `sweep`, the Python package) runs one.
//! * [`experiments`]: runs directly on a device (`sim waf`, `fill`, `wsat`).
//! * [`stack`]: the system stack above the filesystem (shared-storage layer, trim policy).
//! * [`precondition`]: the device's history before a run (fresh, used, steady, lived), and the
//!   bare device of a front end with no simulated filesystem (`serve`).
//! * [`units`]: sizes and durations as the command line reads them; [`rng`]: seeded randomness.
//! * [`Error`]: the one error type of all of the above, naming the file, line, field, job or
//!   flag at fault.

pub mod calibrate;
pub mod calibrate_loo;
pub mod engine;
mod event_queue;
pub mod experiments;
pub mod fourcorner;
pub mod jobfile_run;
mod lived_in;
pub mod precondition;
pub mod profiles;
pub mod shrink;
pub mod sim_run;
pub mod sim_steps;
pub mod sim_verify;
pub mod stack;
pub mod system;

// The target-neutral modules live in flashlab-workload; their paths here stay for callers.
pub use flashlab_workload::{fileset, iogen, offsets, protocol, protocol_run, rng, units, Error};
