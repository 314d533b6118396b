//! flashlab-life: months of device use in seconds (`flashlab life`, issue 10).
//!
//! * [`usage`], [`usage_toml`], [`presets`]: the usage model — daily write volume, file-size
//!   mix, churn, fsync, fill level, reads, the day (sessions, idle, charging) — its TOML format
//!   and the built-in presets; [`workload`] turns it into file operations.
//! * [`policy`]: trim policies (none, discard, periodic fstrim, Android idle maintenance,
//!   fstrim when the user notices).
//! * [`jesd219`]: JEDEC's endurance workloads (JESD219 enterprise; the client one is a trace)
//!   and uniform 4 KiB random writes, block-level, for TBW as the industry rates it.
//! * [`traces`]: block-trace replay (blkparse text, fio iolog v2/v3, MSR Cambridge CSV).
//! * [`runner`]: the run itself; [`probe`]: the periodic random-write probe; [`series`]: the
//!   samples and the lifetime projection; [`table`] and [`report`]: text tables and the HTML
//!   report.
//!
//! Every run drives the simulated system through its one API (`flashlab_lab::system::
//! SimSystem`): files by name at the system's clock, block requests at their own times.
//! * [`document`]: the results document of a run.

pub mod document;
pub mod duration;
mod error;
pub mod jesd219;
pub mod policy;
pub mod presets;
pub mod probe;
pub mod report;
pub mod runner;
pub mod series;
pub mod table;
pub mod traces;
pub mod usage;
pub mod usage_toml;
pub mod workload;

pub use error::{LifeError, SimError};
