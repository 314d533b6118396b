//! fio-compatible JSON: [`fio_json`] renders [`JobResult`]s as fio 3.x's
//! `--output-format=json` document — same key names, nesting and JSON types (integers where
//! fio prints integers, floats where it prints floats, percentile keys such as
//! `"99.000000"`) — so tools written for fio read flashlab's results unchanged.
//!
//! The layout follows fio's `stat.c` (`__show_run_stats`, `show_thread_status_json`,
//! `add_ddir_status_json`, `add_ddir_lat_json`). How each number is obtained:
//!
//! * `bw_bytes` = bytes·10⁹/runtime_ns (B/s, truncated), `bw` = `bw_bytes / 1024` (KiB/s),
//!   `iops` = I/Os·10⁹/runtime_ns (float). fio divides by its millisecond runtime instead;
//!   flashlab uses the nanosecond runtime, so short (simulated) runs are not rounded away.
//!   `runtime` and `job_runtime` are milliseconds, truncated, as fio prints them.
//! * `*_ns` latency objects: exact min/max/mean, sample stddev, `N`; `percentile` (fio's
//!   bucket values, see [`crate::histogram`]) only when enabled for that latency and `N > 0`,
//!   as fio: by default for `clat_ns` and `sync.lat_ns` only.
//! * `bw_min … bw_samples`, `iops_min … iops_samples`: the per-interval samples
//!   ([`DirStats::record_interval`]), KiB/s and I/O/s; `bw_agg` is the job's mean share of
//!   its group's aggregate bandwidth in percent, computed as fio does (including its
//!   truncation of the mean to an integer).
//! * `latency_ns/us/ms` and `iodepth_*`: percentages of fio's bands ([`crate::dist`]),
//!   with fio's floors (0.01 % and 0.1 % for any non-empty band).
//!
//! What is not measured is reported as zero, never estimated: `usr_cpu`, `sys_cpu`, `ctx`,
//! `majf`, `minf` are 0 unless the caller filled [`JobResult::cpu`] (simulated targets use
//! no CPU time of their own), `iodepth_*` are 0 unless [`JobResult::depth`] was counted,
//! `eta` is always 0 (the run is over). Keys fio prints only in some runs are emitted under
//! the same conditions: `"global options"` / `"job options"` when non-empty, `job_start`
//! when known, `latency_depth` & co. when the job's iodepth is known (with fio's values for
//! "no latency target"). fio's `disk_util` (kernel disk statistics) is not produced here.
//!
//! flashlab adds one key: `jobs[].flashlab_device`, the job's [`JobResult::extra`] (device
//! counters) when present; and for a job over several files `jobs[].flashlab_files`, the I/Os
//! and bytes each file was given (`[{name, read: {ios, io_bytes}, write, trim}]`).
//!
//! `serde_json` keeps object keys sorted, so key order differs from fio's; JSON readers do
//! not care. The key paths flashlab promises are listed by [`fio_json_keypaths`], and any
//! JSON document can be flattened the same way with [`json_key_paths`] to compare.

use crate::dist::{LatencyBands, BATCH_KEYS, DEPTH_KEYS, LAT_M_KEYS, LAT_NU_KEYS};
use crate::histogram::LatencyHistogram;
use crate::stats::{Ddir, DirStats, JobResult, UnifiedRw};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// fio's default `percentile_list`.
pub const FIO_DEFAULT_PERCENTILES: [f64; 17] =
    [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];

/// fio's `FIO_IO_U_LIST_MAX_LEN`: at most this many percentiles are reported.
pub const FIO_MAX_PERCENTILES: usize = 20;

/// Run-wide facts the report needs and this crate cannot know (it has no clock).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// Printed as `"fio version"`, e.g. `"flashlab-0.1.0"`.
    pub fio_version_string: String,
    /// End of the run, seconds since the Unix epoch (`"timestamp"`; `"time"` is derived
    /// from it and [`utc_offset_s`](Self::utc_offset_s)).
    pub timestamp_s: u64,
    /// The same instant in milliseconds (`"timestamp_ms"`).
    pub timestamp_ms: u64,
    /// Offset of the local time zone from UTC, seconds (east positive), applied to
    /// `"time"` only; 0 prints UTC. fio prints local time; this crate cannot look the zone up.
    pub utc_offset_s: i64,
    /// Seconds since the run started (each job's `"elapsed"`).
    pub elapsed_s: u64,
    /// Options of the `[global]` section (`"global options"`, omitted when empty).
    pub global_options: BTreeMap<String, String>,
    /// Report `clat_ns.percentile` (fio `clat_percentiles`, default on).
    pub clat_percentiles: bool,
    /// Report `lat_ns.percentile` (fio `lat_percentiles`, default off).
    pub lat_percentiles: bool,
    /// Report `slat_ns.percentile` (fio `slat_percentiles`, default off).
    pub slat_percentiles: bool,
    /// Add fio's `json+` `"bins"` (bucket value → count) beside each percentile object.
    pub json_plus: bool,
}

impl RunMeta {
    /// fio's defaults for a run that ended at `timestamp_ms` (ms since the Unix epoch).
    pub fn new(fio_version_string: impl Into<String>, timestamp_ms: u64) -> Self {
        RunMeta {
            fio_version_string: fio_version_string.into(),
            timestamp_s: timestamp_ms / 1000,
            timestamp_ms,
            utc_offset_s: 0,
            elapsed_s: 0,
            global_options: BTreeMap::new(),
            clat_percentiles: true,
            lat_percentiles: false,
            slat_percentiles: false,
            json_plus: false,
        }
    }
}

/// fio's key for percentile `p`: C's `"%f"`, six decimals (`99.9` → `"99.900000"`).
pub fn percentile_key(p: f64) -> String {
    format!("{p:.6}")
}

/// The percentiles reported for a requested list: valid ones (0 < p ≤ 100) among the
/// first [`FIO_MAX_PERCENTILES`], sorted, without duplicates.
pub fn percentile_plan(list: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> =
        list.iter().copied().filter(|p| p.is_finite() && *p > 0.0 && *p <= 100.0).take(FIO_MAX_PERCENTILES).collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// Render `results` as fio's JSON document. `percentile_list` is fio's `percentile_list`
/// (pass [`FIO_DEFAULT_PERCENTILES`] for fio's default); see the module docs for what each
/// field holds.
pub fn fio_json(results: &[JobResult], percentile_list: &[f64], meta: &RunMeta) -> Value {
    let plist = percentile_plan(percentile_list);
    let mut root = Map::new();
    root.insert("fio version".into(), meta.fio_version_string.clone().into());
    root.insert("timestamp".into(), meta.timestamp_s.into());
    root.insert("timestamp_ms".into(), meta.timestamp_ms.into());
    let local = meta.timestamp_s.saturating_add_signed(meta.utc_offset_s);
    root.insert("time".into(), ctime_utc(local).into());
    if !meta.global_options.is_empty() {
        root.insert("global options".into(), string_map(&meta.global_options));
    }
    let jobs = results.iter().map(|job| job_json(job, results, &plist, meta)).collect();
    root.insert("jobs".into(), Value::Array(jobs));
    Value::Object(root)
}

fn job_json(job: &JobResult, all: &[JobResult], plist: &[f64], meta: &RunMeta) -> Value {
    let mut o = Map::new();
    o.insert("jobname".into(), job.name.clone().into());
    o.insert("groupid".into(), job.groupid.into());
    if let Some(ms) = job.job_start_ms {
        o.insert("job_start".into(), ms.into());
    }
    o.insert("error".into(), job.error.into());
    o.insert("eta".into(), 0u64.into());
    o.insert("elapsed".into(), meta.elapsed_s.into());
    if !job.options.is_empty() {
        o.insert("job options".into(), string_map(&job.options));
    }
    // fio's unified_rw_reporting (stat.c add_ddir_status_json, add_mixed_ddir_status_json):
    // `mixed` replaces the directions and sync, `both` adds it after them.
    let split = job.unified_rw != UnifiedRw::Mixed;
    if split {
        for d in Ddir::ALL {
            let agg = group_agg_bytes_per_sec(all, job.groupid, d);
            o.insert(d.name().into(), dir_json(job.dir(d), agg, plist, meta));
        }
        let mut sync = Map::new();
        sync.insert("total_ios".into(), job.sync.total_ios.into());
        let sync_pct = meta.clat_percentiles || meta.lat_percentiles;
        sync.insert("lat_ns".into(), lat_json(&job.sync.lat, sync_pct, plist, meta));
        o.insert("sync".into(), Value::Object(sync));
    }
    if job.unified_rw != UnifiedRw::Split {
        let agg: u64 = Ddir::ALL.iter().map(|&d| group_agg_bytes_per_sec(all, job.groupid, d)).sum();
        o.insert("mixed".into(), dir_json(&job.mixed(), agg, plist, meta));
    }

    let runtime = job.job_runtime_ns;
    let cpu_pct = |ns: u64| {
        if runtime == 0 {
            0.0
        } else {
            ns as f64 * 100.0 / runtime as f64
        }
    };
    o.insert("job_runtime".into(), (runtime / 1_000_000).into());
    o.insert("usr_cpu".into(), float(cpu_pct(job.cpu.usr_ns)));
    o.insert("sys_cpu".into(), float(cpu_pct(job.cpu.sys_ns)));
    o.insert("ctx".into(), job.cpu.ctx.into());
    o.insert("majf".into(), job.cpu.majf.into());
    o.insert("minf".into(), job.cpu.minf.into());

    let total = job.total_rw_ios();
    let dd = &job.depth;
    o.insert("iodepth_level".into(), pct_object(&DEPTH_KEYS, &dd.depth, total, 0.1));
    o.insert("iodepth_submit".into(), pct_object(&BATCH_KEYS, &dd.submit, dd.total_submit, 0.1));
    o.insert("iodepth_complete".into(), pct_object(&BATCH_KEYS, &dd.complete, dd.total_complete, 0.1));

    let mut bands = LatencyBands::default();
    for d in Ddir::ALL {
        bands.merge(&job.dir(d).clat_bands);
    }
    o.insert("latency_ns".into(), pct_object(&LAT_NU_KEYS, &bands.nsec, total, 0.01));
    o.insert("latency_us".into(), pct_object(&LAT_NU_KEYS, &bands.usec, total, 0.01));
    o.insert("latency_ms".into(), pct_object(&LAT_M_KEYS, &bands.msec, total, 0.01));

    if let Some(depth) = job.iodepth {
        // fio prints these whenever its latency_qd is set, i.e. always; without a
        // latency_target they hold these values (target in ns, window in us, as fio).
        let p = job.latency_probe.unwrap_or(crate::stats::LatencyProbe {
            depth,
            target_ns: 0,
            window_ns: 0,
            percentile: 100.0,
        });
        o.insert("latency_depth".into(), p.depth.into());
        o.insert("latency_target".into(), p.target_ns.into());
        o.insert("latency_target_ns".into(), p.target_ns.into());
        o.insert("latency_percentile".into(), float(p.percentile));
        o.insert("latency_window".into(), (p.window_ns / 1000).into());
        o.insert("latency_window_us".into(), (p.window_ns / 1000).into());
    }
    if let Some(ss) = &job.steadystate {
        o.insert("steadystate".into(), ss.clone());
    }
    if job.continue_on_error {
        // fio (stat.c): with continue_on_error, the errors counted and the first one's errno.
        let n = job.verify.as_ref().map_or(0, |v| v.mismatches) + job.io_errors;
        o.insert("total_err".into(), n.into());
        o.insert("first_error".into(), job.error.into());
    }
    if let Some(v) = &job.verify {
        o.insert("flashlab_verify".into(), serde_json::to_value(v).unwrap_or(Value::Null));
    }
    if !job.files.is_empty() {
        let per_dir = |f: &crate::stats::FileIo, i: usize| serde_json::json!({"ios": f.ios[i], "io_bytes": f.bytes[i]});
        let files: Vec<Value> = job
            .files
            .iter()
            .map(|f| serde_json::json!({"name": f.name, "read": per_dir(f, 0), "write": per_dir(f, 1), "trim": per_dir(f, 2)}))
            .collect();
        o.insert("flashlab_files".into(), Value::Array(files));
    }
    if let Some(n) = job.zone_resets {
        // fio (stat.c): a zonemode=zbd job that writes or trims reports its zone resets.
        o.insert("zone_resets".into(), n.into());
    }
    if let Some(extra) = &job.extra {
        o.insert("flashlab_device".into(), extra.clone());
    }
    Value::Object(o)
}

/// fio's `rs->agg[ddir]`: bytes of the group's jobs over the group's longest runtime, B/s.
fn group_agg_bytes_per_sec(all: &[JobResult], groupid: u32, d: Ddir) -> u64 {
    let mut bytes = 0u128;
    let mut max_run = 0u64;
    for job in all.iter().filter(|j| j.groupid == groupid) {
        let ds = job.dir(d);
        if ds.runtime_ns == 0 {
            continue;
        }
        bytes += ds.io_bytes as u128;
        max_run = max_run.max(ds.runtime_ns);
    }
    if max_run == 0 {
        0
    } else {
        sat_u64(bytes * 1_000_000_000 / max_run as u128)
    }
}

fn dir_json(d: &DirStats, group_agg: u64, plist: &[f64], meta: &RunMeta) -> Value {
    let bw_bytes =
        if d.runtime_ns == 0 { 0 } else { sat_u64(d.io_bytes as u128 * 1_000_000_000 / d.runtime_ns as u128) };
    let mut o = Map::new();
    o.insert("io_bytes".into(), d.io_bytes.into());
    o.insert("io_kbytes".into(), (d.io_bytes >> 10).into());
    o.insert("bw_bytes".into(), bw_bytes.into());
    o.insert("bw".into(), (bw_bytes / 1024).into());
    o.insert("iops".into(), float(d.iops()));
    o.insert("runtime".into(), (d.runtime_ns / 1_000_000).into());
    o.insert("total_ios".into(), d.ios.into());
    o.insert("short_ios".into(), d.short_ios.into());
    o.insert("drop_ios".into(), d.drop_ios.into());
    o.insert("slat_ns".into(), lat_json(&d.slat, meta.slat_percentiles, plist, meta));
    o.insert("clat_ns".into(), lat_json(&d.clat, meta.clat_percentiles, plist, meta));
    o.insert("lat_ns".into(), lat_json(&d.lat, meta.lat_percentiles, plist, meta));
    if d.prios.iter().filter(|p| p.clat.count() > 0).count() >= 2 {
        // fio's add_ddir_status_json: only with two or more priorities that have samples, one
        // object each (those with samples), its class and level, and its latencies under the
        // name of the reported latency (clat_ns, lat_ns with lat_percentiles).
        let name = if meta.lat_percentiles { "lat_ns" } else { "clat_ns" };
        let prios: Vec<Value> = d
            .prios
            .iter()
            .filter(|p| p.clat.count() > 0)
            .map(|p| {
                let mut e = Map::new();
                e.insert("prioclass".into(), p.class().into());
                e.insert("prio".into(), p.level().into());
                if p.hint() != 0 {
                    // fio after 3.33 writes priohint always; 3.33 has no hints.
                    e.insert("priohint".into(), p.hint().into());
                }
                e.insert(name.into(), lat_json(&p.clat, meta.clat_percentiles || meta.lat_percentiles, plist, meta));
                Value::Object(e)
            })
            .collect();
        o.insert("prios".into(), Value::Array(prios));
    }

    let bw = &d.bw_stat;
    let bw_agg = if bw.samples() == 0 {
        0.0
    } else if group_agg > 1024 {
        // fio's convert_agg_kbytes_percent takes the mean as an int.
        let mean = bw.mean().trunc();
        (mean * 100.0 / (group_agg as f64 / 1024.0)).min(100.0)
    } else {
        100.0
    };
    o.insert("bw_min".into(), bw.min().into());
    o.insert("bw_max".into(), bw.max().into());
    o.insert("bw_agg".into(), float(bw_agg));
    o.insert("bw_mean".into(), float(bw.mean()));
    o.insert("bw_dev".into(), float(bw.stddev()));
    o.insert("bw_samples".into(), bw.samples().into());

    let io = &d.iops_stat;
    o.insert("iops_min".into(), io.min().into());
    o.insert("iops_max".into(), io.max().into());
    o.insert("iops_mean".into(), float(io.mean()));
    o.insert("iops_stddev".into(), float(io.stddev()));
    o.insert("iops_samples".into(), io.samples().into());
    Value::Object(o)
}

/// fio's `add_ddir_lat_json`.
fn lat_json(h: &LatencyHistogram, percentiles: bool, plist: &[f64], meta: &RunMeta) -> Value {
    let mut o = Map::new();
    o.insert("min".into(), h.min().into());
    o.insert("max".into(), h.max().into());
    o.insert("mean".into(), float(h.mean()));
    o.insert("stddev".into(), float(h.stddev()));
    o.insert("N".into(), h.count().into());
    if percentiles && h.count() > 0 {
        let pct: Map<String, Value> =
            h.percentiles(plist).into_iter().map(|(p, v)| (percentile_key(p), v.into())).collect();
        o.insert("percentile".into(), Value::Object(pct));
        if meta.json_plus {
            let bins: Map<String, Value> = h.nonzero_buckets().map(|(_, v, c)| (v.to_string(), c.into())).collect();
            o.insert("bins".into(), Value::Object(bins));
        }
    }
    Value::Object(o)
}

/// fio's `stat_calc_dist` / `stat_calc_lat`: percent of `total`, at least `floor` for any
/// non-empty band, 0 when `total` is 0.
fn pct_object(keys: &[&str], counts: &[u64], total: u64, floor: f64) -> Value {
    let o: Map<String, Value> = keys
        .iter()
        .zip(counts)
        .map(|(k, &c)| {
            let v = if total == 0 {
                0.0
            } else {
                let v = c as f64 * 100.0 / total as f64;
                if v < floor && c > 0 {
                    floor
                } else {
                    v
                }
            };
            (k.to_string(), float(v))
        })
        .collect();
    Value::Object(o)
}

fn string_map(m: &BTreeMap<String, String>) -> Value {
    Value::Object(m.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect())
}

/// A JSON float; non-finite values (never expected) become 0.0 rather than `null`.
fn float(x: f64) -> Value {
    Value::from(if x.is_finite() { x } else { 0.0 })
}

fn sat_u64(v: u128) -> u64 {
    v.min(u64::MAX as u128) as u64
}

/// C `ctime` layout without the newline (`"Thu Jan  1 00:00:00 1970"`), in UTC.
pub fn ctime_utc(secs: u64) -> String {
    const WDAY: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MON: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let wday = ((days + 4) % 7) as usize; // 1970-01-01 was a Thursday.
                                          // Days → civil date (proleptic Gregorian), after H. Hinnant's days_from_civil inverse.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{} {} {:>2} {:02}:{:02}:{:02} {}",
        WDAY[wday],
        MON[(month - 1) as usize],
        day,
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60,
        year
    )
}

/// JSON type of a value at a key path. fio prints integers without and floats always with
/// a decimal point, so the two are told apart on parsing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum JsonKind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number without a decimal point.
    Int,
    /// A number with a decimal point.
    Float,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonKind {
    /// Kind of `v`.
    pub fn of(v: &Value) -> JsonKind {
        match v {
            Value::Null => JsonKind::Null,
            Value::Bool(_) => JsonKind::Bool,
            Value::Number(n) if n.is_f64() => JsonKind::Float,
            Value::Number(_) => JsonKind::Int,
            Value::String(_) => JsonKind::String,
            Value::Array(_) => JsonKind::Array,
            Value::Object(_) => JsonKind::Object,
        }
    }
}

/// When a promised key path is present.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Presence {
    /// In every document, for every job.
    Always,
    /// When the direction named in the path (`read`/`write`/`trim`) did I/O, with fio's
    /// default percentile settings and the percentile in the list (fio's default list has
    /// them all).
    WithIo,
}

/// One key path flashlab promises in [`fio_json`]'s output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyPath {
    /// Path in [`json_key_paths`] notation, e.g. `jobs[].write.clat_ns.percentile."99.000000"`.
    pub path: String,
    /// JSON type, the same as fio's.
    pub kind: JsonKind,
    /// When fio writes it: always, or only when that direction did I/O.
    pub presence: Presence,
}

/// The key paths (and JSON types) of fio's JSON that flashlab promises, in
/// [`json_key_paths`] notation: object keys joined by `.`, `[]` for "every element of the
/// array", keys containing `.`, `"`, `[` or `]` in double quotes. For example
/// `jobs[].write.iops` (float), `jobs[].write.bw_bytes` (int),
/// `jobs[].write.clat_ns.percentile."99.000000"` (int).
pub fn fio_json_keypaths() -> Vec<KeyPath> {
    use JsonKind::*;
    let mut out = Vec::new();
    let mut add =
        |path: std::string::String, kind: JsonKind, presence: Presence| out.push(KeyPath { path, kind, presence });
    for (k, kind) in [
        ("fio version", String),
        ("timestamp", Int),
        ("timestamp_ms", Int),
        ("time", String),
        ("jobs", Array),
        ("jobs[]", Object),
    ] {
        add(k.to_string(), kind, Presence::Always);
    }
    for (k, kind) in [
        ("jobname", String),
        ("groupid", Int),
        ("error", Int),
        ("eta", Int),
        ("elapsed", Int),
        ("sync", Object),
        ("sync.total_ios", Int),
        ("job_runtime", Int),
        ("usr_cpu", Float),
        ("sys_cpu", Float),
        ("ctx", Int),
        ("majf", Int),
        ("minf", Int),
        ("iodepth_level", Object),
        ("iodepth_submit", Object),
        ("iodepth_complete", Object),
        ("latency_ns", Object),
        ("latency_us", Object),
        ("latency_ms", Object),
    ] {
        add(format!("jobs[].{k}"), kind, Presence::Always);
    }
    let lat_fields = [("min", Int), ("max", Int), ("mean", Float), ("stddev", Float), ("N", Int)];
    add("jobs[].sync.lat_ns".into(), Object, Presence::Always);
    for (f, kind) in lat_fields {
        add(format!("jobs[].sync.lat_ns.{f}"), kind, Presence::Always);
    }
    for k in DEPTH_KEYS {
        add(format!("jobs[].iodepth_level.{k}"), Float, Presence::Always);
    }
    for obj in ["iodepth_submit", "iodepth_complete"] {
        for k in BATCH_KEYS {
            add(format!("jobs[].{obj}.{k}"), Float, Presence::Always);
        }
    }
    for obj in ["latency_ns", "latency_us"] {
        for k in LAT_NU_KEYS {
            add(format!("jobs[].{obj}.{k}"), Float, Presence::Always);
        }
    }
    for k in LAT_M_KEYS {
        add(format!("jobs[].latency_ms.{k}"), Float, Presence::Always);
    }
    for d in Ddir::ALL {
        let dir = d.name();
        add(format!("jobs[].{dir}"), Object, Presence::Always);
        for (k, kind) in [
            ("io_bytes", Int),
            ("io_kbytes", Int),
            ("bw_bytes", Int),
            ("bw", Int),
            ("iops", Float),
            ("runtime", Int),
            ("total_ios", Int),
            ("short_ios", Int),
            ("drop_ios", Int),
            ("bw_min", Int),
            ("bw_max", Int),
            ("bw_agg", Float),
            ("bw_mean", Float),
            ("bw_dev", Float),
            ("bw_samples", Int),
            ("iops_min", Int),
            ("iops_max", Int),
            ("iops_mean", Float),
            ("iops_stddev", Float),
            ("iops_samples", Int),
        ] {
            add(format!("jobs[].{dir}.{k}"), kind, Presence::Always);
        }
        for lat in ["slat_ns", "clat_ns", "lat_ns"] {
            add(format!("jobs[].{dir}.{lat}"), Object, Presence::Always);
            for (f, kind) in lat_fields {
                add(format!("jobs[].{dir}.{lat}.{f}"), kind, Presence::Always);
            }
        }
        add(format!("jobs[].{dir}.clat_ns.percentile"), Object, Presence::WithIo);
        for p in FIO_DEFAULT_PERCENTILES {
            add(format!("jobs[].{dir}.clat_ns.percentile.\"{}\"", percentile_key(p)), Int, Presence::WithIo);
        }
    }
    out
}

/// Flatten a JSON document into its key paths and the JSON type found at each (for arrays,
/// the union over elements, `[]` standing for any index). Notation as in
/// [`fio_json_keypaths`], so real fio output and flashlab's can be compared path by path.
pub fn json_key_paths(v: &Value) -> BTreeMap<String, JsonKind> {
    let mut out = BTreeMap::new();
    walk(v, "", &mut out);
    out
}

fn walk(v: &Value, prefix: &str, out: &mut BTreeMap<String, JsonKind>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let seg = if k.is_empty() || k.contains(['.', '"', '[', ']']) {
                    format!("\"{}\"", k.replace('"', "\\\""))
                } else {
                    k.clone()
                };
                let path = if prefix.is_empty() { seg } else { format!("{prefix}.{seg}") };
                out.insert(path.clone(), JsonKind::of(child));
                walk(child, &path, out);
            }
        }
        Value::Array(items) => {
            let path = format!("{prefix}[]");
            for item in items {
                out.insert(path.clone(), JsonKind::of(item));
                walk(item, &path, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Interval;
    use serde_json::json;

    fn meta() -> RunMeta {
        let mut m = RunMeta::new("flashlab-0.1.0", 1_783_516_131_103);
        m.elapsed_s = 22;
        m
    }

    /// A write job with the totals of a real fio 3.42 run (4 KiB randwrite, 10.001 s).
    fn write_job() -> JobResult {
        let mut j = JobResult::new("randwrite", 0);
        j.options.insert("bs".into(), "4k".into());
        let w = &mut j.write;
        for i in 0..23_492u64 {
            w.record_io(4096, 600_000 + (i % 2_000) * 1_000, 610_000 + (i % 2_000) * 1_000);
            w.record_slat(7_000);
        }
        w.io_bytes = 96_231_424;
        w.runtime_ns = 10_001_000_000;
        // Two bandwidth samples averaging 3448.5 KiB/s (fio truncates it to 3448 for bw_agg).
        for kib in [3_448u64, 3_449] {
            w.record_interval(Interval {
                end_ns: 0,
                duration_ns: 1_000_000_000,
                bytes: kib * 1024,
                ios: kib / 4,
                ..Default::default()
            });
        }
        j.job_runtime_ns = 10_000_000_000;
        j.sync.record(2_000_000);
        j.iodepth = Some(3);
        j
    }

    #[test]
    fn matches_fio_numbers_for_the_same_totals() {
        let doc = fio_json(&[write_job()], &FIO_DEFAULT_PERCENTILES, &meta());
        let w = &doc["jobs"][0]["write"];
        // Values fio 3.42 printed for io_bytes 96231424 / 23492 I/Os / 10001 ms.
        assert_eq!(w["io_bytes"], json!(96_231_424u64));
        assert_eq!(w["io_kbytes"], json!(93_976u64));
        assert_eq!(w["bw_bytes"], json!(9_622_180u64));
        assert_eq!(w["bw"], json!(9_396u64));
        assert_eq!(format!("{:.6}", w["iops"].as_f64().unwrap()), "2348.965103");
        assert_eq!(w["runtime"], json!(10_001u64));
        assert_eq!(w["total_ios"], json!(23_492u64));
        // bw_agg as fio: 3448·100 / (9622180/1024).
        assert_eq!(format!("{:.6}", w["bw_agg"].as_f64().unwrap()), "36.693888");
        assert_eq!(w["bw_min"], json!(3_448u64));
        assert_eq!(w["bw_max"], json!(3_449u64));
        assert_eq!(w["bw_samples"], json!(2u64));
        assert_eq!(doc["jobs"][0]["job_runtime"], json!(10_000u64));
        assert_eq!(doc["jobs"][0]["elapsed"], json!(22u64));
        assert_eq!(doc["jobs"][0]["latency_depth"], json!(3u64));
    }

    #[test]
    fn top_level_and_time() {
        let doc = fio_json(&[], &FIO_DEFAULT_PERCENTILES, &meta());
        assert_eq!(doc["fio version"], json!("flashlab-0.1.0"));
        assert_eq!(doc["timestamp"], json!(1_783_516_131u64));
        assert_eq!(doc["timestamp_ms"], json!(1_783_516_131_103u64));
        assert_eq!(doc["time"], json!("Wed Jul  8 13:08:51 2026"));
        // fio 3.42 printed this instant as "Wed Jul  8 09:08:51 2026" on a machine at UTC−4.
        let mut m = meta();
        m.utc_offset_s = -4 * 3600;
        let doc = fio_json(&[], &[], &m);
        assert_eq!(doc["time"], json!("Wed Jul  8 09:08:51 2026"));
        assert_eq!(doc["jobs"], json!([]));
        assert!(doc.get("global options").is_none());
        assert_eq!(ctime_utc(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime_utc(951_782_400), "Tue Feb 29 00:00:00 2000");
        assert_eq!(ctime_utc(1_709_164_799), "Wed Feb 28 23:59:59 2024");
        let mut m = meta();
        m.global_options.insert("direct".into(), "1".into());
        let doc = fio_json(&[], &[], &m);
        assert_eq!(doc["global options"], json!({"direct": "1"}));
    }

    #[test]
    fn promised_key_paths_exist_with_fio_types() {
        let mut idle = JobResult::new("idle", 1);
        idle.extra = Some(json!({"nand_programs": 10, "waf": 1.25}));
        let doc = fio_json(&[write_job(), idle], &FIO_DEFAULT_PERCENTILES, &meta());
        // Round-trip through text, as a consumer would read it.
        let doc: Value = serde_json::from_str(&serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        let found = json_key_paths(&doc);
        for kp in fio_json_keypaths() {
            // Only the write direction did I/O here.
            if kp.presence == Presence::WithIo && !kp.path.starts_with("jobs[].write.") {
                assert!(!found.contains_key(&kp.path), "{} only with I/O", kp.path);
                continue;
            }
            assert_eq!(found.get(&kp.path), Some(&kp.kind), "{}", kp.path);
        }
        // Every job carries every Always path, not just one of them.
        for job in doc["jobs"].as_array().unwrap() {
            let paths = json_key_paths(job);
            for kp in fio_json_keypaths() {
                if kp.presence == Presence::Always && kp.path.starts_with("jobs[].") {
                    let p = &kp.path["jobs[].".len()..];
                    assert_eq!(paths.get(p), Some(&kp.kind), "{p} in {}", job["jobname"]);
                }
            }
        }
        assert_eq!(doc["jobs"][1]["flashlab_device"]["waf"], json!(1.25));
        assert!(doc["jobs"][0].get("flashlab_device").is_none());
        assert_eq!(doc["jobs"][0]["job options"], json!({"bs": "4k"}));
        assert!(doc["jobs"][1].get("job options").is_none());
        assert!(doc["jobs"][1].get("latency_depth").is_none());
    }

    #[test]
    fn percentile_keys_and_values() {
        assert_eq!(percentile_key(99.0), "99.000000");
        assert_eq!(percentile_key(99.95), "99.950000");
        assert_eq!(percentile_key(1.0), "1.000000");
        assert_eq!(percentile_key(99.99), "99.990000");
        assert_eq!(percentile_plan(&[99.0, 0.0, 50.0, 150.0, f64::NAN, 50.0, -1.0]), vec![50.0, 99.0]);
        let doc = fio_json(&[write_job()], &FIO_DEFAULT_PERCENTILES, &meta());
        let clat = &doc["jobs"][0]["write"]["clat_ns"];
        let pct = clat["percentile"].as_object().unwrap();
        assert_eq!(pct.len(), FIO_DEFAULT_PERCENTILES.len());
        for p in FIO_DEFAULT_PERCENTILES {
            assert!(pct[&percentile_key(p)].is_u64(), "{p}");
        }
        // The nearest-rank sample of the recorded clats, reported as its bucket's value.
        let mut clats: Vec<u64> = (0..23_492u64).map(|i| 600_000 + (i % 2_000) * 1_000).collect();
        clats.sort_unstable();
        for (key, p) in [("50.000000", 50.0), ("99.900000", 99.9), ("1.000000", 1.0)] {
            let rank = (p / 100.0 * clats.len() as f64).ceil() as usize;
            let exact = clats[rank - 1];
            // (held inside the samples' exact range: the 1st percentile's bucket starts below 600 us)
            let want = crate::histogram::plat_idx_to_val(crate::histogram::plat_val_to_idx(exact))
                .clamp(clats[0], clats[clats.len() - 1]);
            assert_eq!(pct[key].as_u64(), Some(want), "{key}");
        }
        // fio's defaults: no percentiles for slat/lat, yes for sync.
        assert!(doc["jobs"][0]["write"]["lat_ns"].is_object());
        assert!(doc["jobs"][0]["write"]["lat_ns"].get("percentile").is_none());
        assert!(doc["jobs"][0]["write"]["slat_ns"].get("percentile").is_none());
        assert!(doc["jobs"][0]["read"]["clat_ns"].get("percentile").is_none());
        assert_eq!(
            doc["jobs"][0]["sync"]["lat_ns"]["percentile"]["99.000000"],
            // Every sync took 2 ms: the bucket's value (2 007 040) is clamped to the samples.
            json!(2_000_000)
        );
        assert!(clat.get("bins").is_none());

        let mut m = meta();
        m.lat_percentiles = true;
        m.json_plus = true;
        let doc = fio_json(&[write_job()], &[99.0], &m);
        let w = &doc["jobs"][0]["write"];
        assert_eq!(w["lat_ns"]["percentile"].as_object().unwrap().len(), 1);
        let bins = w["clat_ns"]["bins"].as_object().unwrap();
        assert_eq!(bins.values().map(|v| v.as_u64().unwrap()).sum::<u64>(), 23_492);
    }

    /// fio's unified_rw_reporting: `mixed` sums the directions into one object in their
    /// place (and drops `sync`, as fio 3.33 prints it); `both` keeps them and adds it.
    #[test]
    fn unified_rw_reporting_sections() {
        let mut j = JobResult::new("m", 0);
        for i in 0..30u64 {
            j.read.record_io(4096, 1_000 + i, 1_000 + i);
        }
        for i in 0..70u64 {
            j.write.record_io(8192, 5_000 + i, 5_000 + i);
        }
        j.read.runtime_ns = 2_000_000;
        j.write.runtime_ns = 3_000_000;
        j.sync.record(10_000);
        let keys = |d: &Value| {
            let o = d["jobs"][0].as_object().unwrap();
            ["read", "write", "trim", "sync", "mixed"].into_iter().filter(|k| o.contains_key(*k)).collect::<Vec<_>>()
        };
        let doc = fio_json(std::slice::from_ref(&j), &FIO_DEFAULT_PERCENTILES, &meta());
        assert_eq!(keys(&doc), ["read", "write", "trim", "sync"]);
        j.unified_rw = UnifiedRw::Mixed;
        let doc = fio_json(std::slice::from_ref(&j), &FIO_DEFAULT_PERCENTILES, &meta());
        assert_eq!(keys(&doc), ["mixed"]);
        let m = &doc["jobs"][0]["mixed"];
        assert_eq!((m["total_ios"].as_u64(), m["io_bytes"].as_u64()), (Some(100), Some(30 * 4096 + 70 * 8192)));
        assert_eq!((m["clat_ns"]["min"].as_u64(), m["clat_ns"]["max"].as_u64()), (Some(1_000), Some(5_069)));
        assert_eq!(m["runtime"].as_u64(), Some(3), "the longer direction's runtime, ms");
        j.unified_rw = UnifiedRw::Both;
        let doc = fio_json(std::slice::from_ref(&j), &FIO_DEFAULT_PERCENTILES, &meta());
        assert_eq!(keys(&doc), ["read", "write", "trim", "sync", "mixed"]);
        assert_eq!(doc["jobs"][0]["mixed"]["total_ios"].as_u64(), Some(100));
        assert_eq!(doc["jobs"][0]["read"]["total_ios"].as_u64(), Some(30));
    }

    #[test]
    fn bandwidth_units() {
        let mut j = JobResult::new("r", 0);
        j.read.record_io(1_048_576, 1_000, 1_000);
        j.read.runtime_ns = 500_000_000; // 1 MiB in 0.5 s
        let doc = fio_json(&[j], &FIO_DEFAULT_PERCENTILES, &meta());
        let r = &doc["jobs"][0]["read"];
        assert_eq!(r["bw_bytes"], json!(2_097_152u64)); // B/s
        assert_eq!(r["bw"], json!(2_048u64)); // KiB/s
        assert_eq!(r["io_kbytes"], json!(1_024u64));
        assert_eq!(r["runtime"], json!(500u64));
        assert_eq!(r["iops"].as_f64(), Some(2.0));
        assert!(r["iops"].is_f64());
        // No interval samples: fio's zeros.
        assert_eq!(r["bw_agg"].as_f64(), Some(0.0));
        assert_eq!(r["bw_min"], json!(0u64));
    }

    #[test]
    fn distributions_as_fio_percentages() {
        let mut j = JobResult::new("d", 0);
        for _ in 0..9_999 {
            j.write.record_io(4096, 1_500_000, 1_500_000); // 1.5 ms
        }
        j.read.record_io(4096, 300, 300); // 300 ns
        j.depth.mark_depth(1, 1);
        j.depth.mark_depth(4, 9_999);
        j.depth.mark_submit(1);
        let doc = fio_json(&[j], &[], &meta());
        let job = &doc["jobs"][0];
        assert_eq!(job["latency_ms"]["2"].as_f64(), Some(99.99));
        assert_eq!(job["latency_ns"]["500"].as_f64(), Some(0.01));
        assert_eq!(job["latency_us"]["2"].as_f64(), Some(0.0));
        assert_eq!(job["iodepth_level"]["1"].as_f64(), Some(0.1)); // floor, 0.01 % → 0.1
        assert_eq!(job["iodepth_level"]["4"].as_f64(), Some(99.99));
        assert_eq!(job["iodepth_submit"]["4"].as_f64(), Some(100.0));
        assert_eq!(job["iodepth_complete"]["4"].as_f64(), Some(0.0));
        assert_eq!(job["usr_cpu"].as_f64(), Some(0.0));
        assert!(job["usr_cpu"].is_f64());
        assert_eq!(job["ctx"], json!(0u64));
        assert_eq!(job["eta"], json!(0u64));
    }

    #[test]
    fn key_path_notation() {
        let v = json!({"a": {"b.c": 1, "x": [ {"y": 1.5}, {"z": "s"} ]}, "fio version": "v"});
        let p = json_key_paths(&v);
        assert_eq!(p["a.\"b.c\""], JsonKind::Int);
        assert_eq!(p["a.x"], JsonKind::Array);
        assert_eq!(p["a.x[]"], JsonKind::Object);
        assert_eq!(p["a.x[].y"], JsonKind::Float);
        assert_eq!(p["a.x[].z"], JsonKind::String);
        assert_eq!(p["fio version"], JsonKind::String);
    }

    #[test]
    fn group_bw_agg_shares() {
        // Two jobs of one group, each half the group's bandwidth.
        let mk = |name: &str| {
            let mut j = JobResult::new(name, 3);
            j.write.io_bytes = 100 * 1024 * 1024;
            j.write.ios = 100;
            j.write.runtime_ns = 1_000_000_000;
            j.write.record_interval(Interval {
                end_ns: 1_000_000_000,
                duration_ns: 1_000_000_000,
                bytes: 100 * 1024 * 1024,
                ios: 100,
                ..Default::default()
            });
            j
        };
        let doc = fio_json(&[mk("a"), mk("b")], &[], &meta());
        assert_eq!(doc["jobs"][0]["write"]["bw_agg"].as_f64(), Some(50.0));
        assert_eq!(doc["jobs"][1]["write"]["bw_agg"].as_f64(), Some(50.0));
        assert_eq!(doc["jobs"][0]["write"]["bw_mean"].as_f64(), Some(102_400.0));
    }
}
