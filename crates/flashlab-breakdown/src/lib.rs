//! `flashlab breakdown`: where the time of each I/O request goes.
//!
//! On a real block device (or a file flashlab creates on one) a job runs while the kernel's
//! block-layer events are traced through tracefs; each request's user-space submit and
//! completion times (CLOCK_MONOTONIC, the trace clock `mono`) are joined with its block-layer
//! events, giving four phases per request, as btt names them:
//!
//! | phase | from → to | what it is |
//! |---|---|---|
//! | `submit→Q` | the submit call → `block_bio_queue` | system call, io_uring, filesystem, bio setup |
//! | `Q2D` | `block_bio_queue` → `block_rq_issue` | block layer: get request, insert (I), scheduler, dispatch |
//! | `D2C` | `block_rq_issue` → `block_rq_complete` | driver + device |
//! | `C→user` | `block_rq_complete` → the reap call returns | interrupt, completion, wake-up |
//!
//! On a simulated device (`sim:PROFILE`) the same four phases come from the model
//! ([`sim_model`]): host submit cost, waiting for a device queue slot, device time, host
//! completion cost.
//!
//! Modules: [`command`] (the command as a library call), [`tracefs`] (finding tracefs, a private tracing instance and its guard),
//! [`events`] (the event format files and the per-CPU binary buffers), [`join`] (events ↔
//! user requests), [`host_cost`] (measured host costs for the model), [`stats`] (per-phase percentiles and shares), [`target`] (what to run on
//! and its sectors), [`run_real`] (the traced run), [`sim_model`] (the
//! model), [`serve_split`] (D2C split into the emulator's parts on a `flashlab serve` loop
//! device), [`report`] (the report, JSON), [`text`] (its terminal tables) and [`chart`] (the stacked-bar SVG).

pub mod chart;
pub mod command;
pub mod durable;
pub mod error;
pub mod events;
pub mod host_cost;
pub mod join;
pub mod report;
pub mod run_real;
pub mod serve_split;
mod sim_model;
mod stats;
pub mod target;
mod text;
pub mod tracefs;

pub use error::{BreakdownError, FieldError};

/// Read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    /// Reads.
    Read,
    /// Writes.
    Write,
}

impl Dir {
    /// `read` or `write`.
    pub fn name(self) -> &'static str {
        match self {
            Dir::Read => "read",
            Dir::Write => "write",
        }
    }
}

/// One job of a breakdown: random I/O of `bs` bytes in one direction at queue depth `iodepth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobKey {
    /// Read or write.
    pub dir: Dir,
    /// Block size, bytes.
    pub bs: u64,
    /// Requests in flight.
    pub iodepth: u32,
}

impl JobKey {
    /// fio's name of the job's `rw`.
    pub fn rw_name(&self) -> &'static str {
        match self.dir {
            Dir::Read => "randread",
            Dir::Write => "randwrite",
        }
    }
}

/// The jobs of a run: every direction × block size × queue depth, in that order.
pub fn job_matrix(dirs: &[Dir], bss: &[u64], depths: &[u32]) -> Vec<JobKey> {
    let mut v = Vec::new();
    for &dir in dirs {
        for &bs in bss {
            for &iodepth in depths {
                v.push(JobKey { dir, bs, iodepth });
            }
        }
    }
    v
}
