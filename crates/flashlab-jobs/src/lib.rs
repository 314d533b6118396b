//! flashlab-jobs: workload descriptions for flashlab — the fio-style job model ([`Job`]),
//! fio job files ([`parse_jobfile`]) and fio's command-line form of them ([`cmdline`]), and
//! fio's size and time units ([`units`]).
//!
//! Everything here is pure text-in, data-out (no file I/O except [`parse_jobfile_path`]),
//! so the simulator, the real-device engine and the CLI can share it.
//!
//! ```
//! let f = flashlab_jobs::parse_jobfile("four-corner.fio", "
//! [global]
//! size=100m
//! direct=1
//! [seq-read]
//! rw=read
//! bs=256k
//! [rand-write]
//! stonewall
//! rw=randwrite
//! bs=4k
//! ").unwrap();
//! assert_eq!(f.jobs.len(), 2);
//! assert_eq!(f.jobs[0].bs, 256 * 1024);
//! assert_eq!(f.run_groups(), vec![vec![0], vec![1]]);
//! ```

pub mod arith;
pub mod blocksize;
pub mod cmdline;
pub mod distribution;
mod error;
pub mod files;
pub mod ioerror;
pub mod job;
pub mod latency_target;
pub mod limits;
pub mod options;
pub mod pacing;
pub mod parse;
pub mod placement;
pub mod prio;
pub mod sprandom;
pub mod steadystate;
pub mod units;
pub mod verify;
pub mod zoned;

pub use cmdline::parse_fio_options;
pub use error::Error;
pub use job::{ExitWhat, IoDir, Job, Rw, FIO_DEFAULT_PERCENTILES};
pub use options::{OptionClass, OptionInfo};
pub use parse::{
    parse_jobfile, parse_jobfile_in, parse_jobfile_path, parse_jobfile_path_with, parse_jobfile_with_env,
    parse_jobfile_with_options, Context, JobFile, JobFileError, TargetKind, Warning,
};
pub use units::{format_size_iec, parse_size, parse_size_spec, parse_time_ns, SizeSpec, TimeUnit, UnitError};
