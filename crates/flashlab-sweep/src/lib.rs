//! flashlab-sweep: many simulated runs from one sweep file — the product of axes (profiles,
//! profile fields by dotted path, filesystems and mount options, protocols or usage models,
//! trim policies, seeds) or explicit cases — run in parallel on this machine's cores,
//! resumable, into one table (`results.csv`, `results.parquet`) with each case's full results
//! document beside it (`cases/NNNN.json`).
//!
//! It runs each case the way the commands do (`flashlab_lab::sim_run` as `age`/`bench`,
//! `flashlab_life::runner` as `life`) and knows nothing of terminals: the `flashlab sweep`
//! command draws the progress, the Python package (`crates/flashlab-py`) and its Ray backend
//! call the same functions.
//!
//! ```no_run
//! let spec = flashlab_sweep::Spec::load("sweep.toml".as_ref()).unwrap();
//! let s = flashlab_sweep::run_sweep(&spec, "out".as_ref(), 0, &|done, n| eprintln!("{done}/{n}")).unwrap();
//! println!("{} cases, {} run, table in {}", s.cases, s.ran, s.csv.display());
//! ```
//!
//! * [`spec`]: the sweep file and its expansion into cases; [`case`]: one case resolved and
//!   run; [`headline`]: a case's numbers for the table.
//! * [`store`]: the case documents on disk (atomic, resumable); [`table`], [`csv_out`],
//!   [`parquet_out`]: the table and its two formats; [`engine`]: the local parallel run;
//!   [`report`]: the sweep's charts; [`error`]: what can go wrong, typed.

mod case;
mod csv_out;
mod engine;
mod error;
pub mod headline;
mod parquet_out;
pub mod report;
mod spec;
pub mod store;
pub mod table;

pub use engine::{prepare_all, run_case, run_sweep, write_tables, Summary};
pub use error::SweepError;
pub use spec::{Case, Param, Spec};
pub use store::pending;
