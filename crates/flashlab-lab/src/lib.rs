//! flashlab-lab: what flashlab runs on a target and what comes out.
//!
//! * [`system`]: a simulated device with a simulated filesystem (`flashlab-simfs`: `plain`,
//!   ext4-like, F2FS-like) on it and the virtual clock.
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
//! * [`precondition`]: the device's history before a run (fresh, used, steady).
//! * [`units`]: sizes and durations as the command line reads them; [`rng`]: seeded randomness.
//! * [`Error`]: the one error type of all of the above, naming the file, line, field, job or
//!   flag at fault.

pub mod calibrate;
pub mod calibrate_loo;
pub mod engine;
mod error;
mod event_queue;
pub mod experiments;
pub mod fileset;
pub mod fourcorner;
pub mod iogen;
pub mod jobfile_run;
mod lived_in;
pub mod offsets;
pub mod precondition;
pub mod profiles;
pub mod protocol;
pub mod protocol_run;
pub mod rng;
pub mod shrink;
pub mod sim_run;
pub mod sim_steps;
pub mod sim_verify;
pub mod stack;
pub mod system;
pub mod units;

pub use error::Error;
