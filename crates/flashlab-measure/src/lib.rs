//! flashlab's measurements: what a run records and how it is reported in fio's terms.
//!
//! * [`histogram`]: [`LatencyHistogram`], nanosecond latencies in fio's log-linear buckets
//!   (relative error ≤ 1/128, exact below 128 ns), with fio's percentile rule, so that
//!   flashlab's p50/p99/p99.9 agree with fio's to the bucket.
//! * [`rate`]: [`RateStats`], per-interval bandwidth/IOPS samples summarised as fio does.
//! * [`dist`]: [`LatencyBands`] and [`DepthDist`], fio's coarse latency bands and queue-depth
//!   counters.
//! * [`summary`]: [`LatencySummary`], the mean, p50…p99.99 and exact max every report prints.
//! * [`stats`]: [`DirStats`] (read / write / trim), [`SyncStats`], [`JobResult`] — everything
//!   one job measured.
//! * [`fio_json`](mod@fio_json): [`fio_json()`] renders results as fio 3.x's
//!   `--output-format=json`, and lists the key paths flashlab promises.
//!
//! The crate does no I/O and reads no clock: times come in as nanoseconds (virtual for the
//! simulator, real for real devices), and the report's timestamp is passed in by the caller.

pub mod dist;
pub mod fio_json;
pub mod histogram;
pub mod rate;
pub mod stats;
pub mod summary;
pub mod verify;

pub use dist::{DepthDist, LatencyBands};
pub use fio_json::{
    fio_json, fio_json_keypaths, json_key_paths, percentile_key, JsonKind, KeyPath, Presence, RunMeta,
    FIO_DEFAULT_PERCENTILES,
};
pub use histogram::{plat_idx_to_val, plat_val_to_idx, LatencyHistogram};
pub use rate::RateStats;
pub use stats::{CpuUsage, Ddir, DirStats, FileIo, Interval, JobResult, LatencyProbe, PrioStat, SyncStats, UnifiedRw};
pub use summary::{LatencySummary, SUMMARY_PERCENTILES};
pub use verify::{VerifyMismatch, VerifySummary};
