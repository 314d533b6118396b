//! `flashlab sqlite`: what one SQLite transaction costs the storage, per journal mode and
//! `synchronous` setting, measured with the real SQLite library (rusqlite, bundled).
//!
//! * [`config`]: journal modes, synchronous settings, transaction shapes, option checks.
//! * [`workload`]: one configuration's run: schema, pre-fill, N timed transactions,
//!   integrity check, removal of the database files.
//! * [`vfs_recorder`]: the recording VFS every run goes through (opens, writes, syncs,
//!   truncates, deletes as SQLite asked for them).
//! * `kernel_counters`: the block device under a directory and its `/sys/.../stat` counters.
//! * `serve_counters`: a directory on a `flashlab serve` device (its loop device's backing
//!   file is the serve mount's `device`): the simulator's own counters from `stats.json`.
//! * [`replay`]: the recorded log replayed on a simulated system
//!   (`flashlab_lab::system::SimSystem`) through a page-cache model, in virtual time (a model,
//!   labelled so).
//! * [`results`]: per-configuration results and the JSON document.
//! * `text`: the terminal text (tables drawn by flashlab-results, 80 columns).
//! * `signals`: Ctrl-C/SIGTERM remove the database files between two transactions.
//!
//! On a directory target, device counts come from the kernel's counters sampled around each
//! configuration (everything on that device counts, so an idle baseline is measured and
//! reported). When that device is a flashlab serve device, the device columns are the
//! simulator's counters instead (the loop device's kernel counters are kept beside them).
//! On `sim:PROFILE`, SQLite runs in a scratch directory (the system's temporary
//! directory) and its log is replayed on a fresh simulated device per configuration.

pub mod config;
pub(crate) mod error;
pub(crate) mod kernel_counters;
pub mod replay;
pub mod results;
pub(crate) mod serve_counters;
pub(crate) mod signals;
pub(crate) mod text;
pub mod vfs_recorder;
pub mod workload;

pub use config::{JournalMode, Shape, SyncMode, Workload};
pub use error::{CountersError, CountersProblem, Error};
pub use results::Report;
pub use text::render_table;

use kernel_counters::{BlockDevice, DiskDelta};
use results::{Baseline, ConfigResult, DeviceCounts, VfsCounts};
use serve_counters::{ServeDevice, SimCounters};
use std::path::PathBuf;
use std::time::Duration;
use vfs_recorder::RecordingVfs;

/// Where to run.
pub enum Target {
    /// A directory of a mounted filesystem.
    Dir(PathBuf),
    /// A simulated device: `spec` is how the user named it (`sim:emmc-16g`).
    Sim {
        /// The profile named.
        spec: String,
        /// The simulated device's profile.
        profile: Box<flashsim::Profile>,
        /// Seed of the simulated device.
        seed: u64,
        /// The simulated filesystem model over the device.
        fs: flashlab_simfs::FsConfig,
        /// The simulated device's history before each configuration's run.
        precondition: flashlab_lab::precondition::Precondition,
    },
}

/// How to run (beyond the workload).
pub struct RunOptions {
    /// Idle interval measured on a real device before the runs (zero: none).
    pub baseline: Duration,
}

/// The bundled SQLite's version.
pub fn sqlite_version() -> &'static str {
    rusqlite::version()
}

/// Run every configuration of `wl` on `target`; `progress` hears one line per configuration.
pub fn run(target: &Target, wl: &Workload, opts: &RunOptions, progress: &mut dyn FnMut(&str)) -> Result<Report, Error> {
    signals::install().map_err(|source| Error::Io { path: PathBuf::from("(signal handlers)"), source })?;
    match target {
        Target::Dir(dir) => run_dir(dir, wl, opts, progress),
        Target::Sim { spec, profile, seed, fs, precondition } => {
            run_sim(spec, profile, *seed, fs, *precondition, wl, progress)
        }
    }
}

fn delta_counts(d: DiskDelta) -> DeviceCounts {
    DeviceCounts {
        write_requests: d.write_ios,
        write_bytes: d.write_bytes,
        flushes: d.flush_ios,
        discards: d.discard_ios,
        nand_write_bytes: None,
        waf: None,
    }
}

fn configs(wl: &Workload) -> Vec<(JournalMode, SyncMode)> {
    wl.modes.iter().flat_map(|&m| wl.syncs.iter().map(move |&s| (m, s))).collect()
}

fn run_dir(
    dir: &std::path::Path,
    wl: &Workload,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, Error> {
    workload::check_writable(dir)?;
    let where_ = kernel_counters::dir_device(dir)?;
    let mut notes = Vec::new();
    let device: Option<BlockDevice> = where_.device.clone();
    let serve: Option<ServeDevice> = match &device {
        Some(d) => serve_counters::detect(d)?,
        None => None,
    };
    let counts_from = match (&device, &serve) {
        (Some(d), Some(s)) => format!(
            "simulator counters of the serve device (flashlab serve, profile {}, {}: a fresh snapshot at each read) under {} (ext4 or whatever is mounted on it), sampled before each configuration's transactions (after a syncfs) and after them (after fsyncing the database files); every process's I/O to {} is counted; the loop columns are {}'s kernel counters over the same interval",
            s.profile,
            s.stats_path.display(),
            d.name,
            d.name,
            d.stat_path.display()
        ),
        (Some(d), None) => {
            if !d.sends_flushes() {
                notes.push(format!(
                    "{} reports a write-through cache: the kernel sends it no flushes, so flush counts are 0",
                    d.disk
                ));
            }
            format!(
                "kernel counters of {} ({}), sampled before each configuration's transactions (after a syncfs) and after them (after fsyncing the database files); every process's I/O to {} is counted",
                d.name,
                d.stat_path.display(),
                d.name
            )
        }
        (None, _) => {
            notes.push(format!(
                "{} has no block device of its own ({}): there are no kernel counters to read, only what SQLite asked of the VFS is shown",
                dir.display(),
                where_.filesystem
            ));
            "none (no block device under this directory)".to_string()
        }
    };
    let baseline = match &device {
        Some(d) if !opts.baseline.is_zero() => {
            syncfs_quiet(dir);
            let a = sample(d, serve.as_ref())?;
            let t = std::time::Instant::now();
            std::thread::sleep(opts.baseline);
            let b = sample(d, serve.as_ref())?;
            let (dev, _) = interval(&a, &b);
            Some(Baseline {
                seconds: t.elapsed().as_secs_f64(),
                write_requests: dev.write_requests,
                write_bytes: dev.write_bytes,
                flushes: dev.flushes,
            })
        }
        _ => None,
    };
    let vfs = RecordingVfs::register()?;
    let mut results = Vec::new();
    for (mode, sync) in configs(wl) {
        let mut samples: Vec<Sample> = Vec::new();
        let run = workload::run_config(dir, &vfs, wl, mode, sync, &mut |_phase| {
            if let Some(d) = &device {
                samples.push(sample(d, serve.as_ref())?);
            }
            Ok(())
        })?;
        let (dev, kernel) = match samples.as_slice() {
            [a, b] => {
                let (dev, kernel) = interval(a, b);
                (Some(dev), kernel)
            }
            _ => (None, None),
        };
        let mut r = ConfigResult::new(
            wl,
            mode,
            sync,
            "wall",
            &run.latencies_ns,
            run.tx_wall_ns,
            run.measured_wall_ns as f64 / 1e9,
            VfsCounts::measured(&run.events),
            dev,
            baseline.as_ref(),
            run.integrity,
        );
        r.kernel_device = kernel;
        progress(&format!("{mode}/{sync}: {:.0} tx/s", r.tx_per_s.unwrap_or(0.0)));
        results.push(r);
    }
    if let Some(b) = &baseline {
        let noisy: Vec<String> = results
            .iter()
            .filter(|r| match (r.background_expected.and_then(|e| e.flushes), r.device.and_then(|d| d.flushes)) {
                (Some(e), Some(m)) => e * 10 > m,
                _ => false,
            })
            .map(|r| format!("{}/{}", r.journal_mode, r.synchronous))
            .collect();
        if !noisy.is_empty() {
            notes.push(format!(
                "the idle baseline ({:.1} s) predicts more than 10 % of the flushes counted for {}: rerun on a quieter device or with more transactions",
                b.seconds,
                noisy.join(", ")
            ));
        }
    }
    notes.push(
        "the device columns cover the transactions, closing the database (WAL's final checkpoint) and an fsync of the files left; tx/s and latencies cover the transactions only"
            .into(),
    );
    if serve.is_some() {
        notes.push(
            "dev = requests as the simulated device received them; the loop columns also count each empty flush the kernel sends (an fsync with no journal commit to do) as a 0-byte write, so loop wr/tx can exceed dev wr/tx while bytes and flushes agree; tx/s and latencies are real time with the device's modeled latencies"
                .into(),
        );
    }
    Ok(Report {
        sqlite_version: sqlite_version().to_string(),
        target: dir.display().to_string(),
        kind: if serve.is_some() { "serve" } else { "directory" },
        counts_from,
        filesystem: Some(where_.filesystem),
        precondition: None,
        baseline,
        workload: wl.clone(),
        notes,
        configs: results,
    })
}

/// One reading of the counters: the kernel's, and the simulator's on a serve device.
struct Sample {
    kernel: kernel_counters::DiskStat,
    sim: Option<SimCounters>,
}

fn sample(d: &BlockDevice, serve: Option<&ServeDevice>) -> Result<Sample, Error> {
    let kernel = d.read()?;
    let sim = serve.map(|s| s.read()).transpose()?;
    Ok(Sample { kernel, sim })
}

/// The device counts of an interval (the simulator's on a serve device, else the kernel's) and,
/// on a serve device, the kernel's beside them.
fn interval(a: &Sample, b: &Sample) -> (DeviceCounts, Option<DeviceCounts>) {
    let kernel = delta_counts(b.kernel.since(&a.kernel));
    match (&a.sim, &b.sim) {
        (Some(sa), Some(sb)) => (sb.since(sa), Some(kernel)),
        _ => (kernel, None),
    }
}

fn syncfs_quiet(dir: &std::path::Path) {
    let _ = workload::syncfs(dir);
}

fn run_sim(
    spec: &str,
    profile: &flashsim::Profile,
    seed: u64,
    fs: &flashlab_simfs::FsConfig,
    precondition: flashlab_lab::precondition::Precondition,
    wl: &Workload,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, Error> {
    // tmpfs where there is one: SQLite's calls do not depend on the filesystem below the VFS,
    // and its fsyncs there cost the real disk nothing.
    let shm = PathBuf::from("/dev/shm");
    let scratch = if workload::check_writable(&shm).is_ok() { shm } else { std::env::temp_dir() };
    workload::check_writable(&scratch).map_err(|e| Error::Target {
        path: scratch.clone(),
        msg: format!("the scratch directory SQLite runs in for a simulated target is not usable: {e}"),
    })?;
    let vfs = RecordingVfs::register()?;
    let mut results = Vec::new();
    for (mode, sync) in configs(wl) {
        let run = workload::run_config(&scratch, &vfs, wl, mode, sync, &mut |_| Ok(()))?;
        let (mut sim, _) = flashlab_lab::precondition::system(profile, seed, fs.clone(), precondition)
            .map_err(|e| Error::Sim(e.to_string()))?;
        let rep = replay::replay(&run.events, &mut sim)?;
        let c = rep.counters;
        let dev = DeviceCounts {
            write_requests: c.host_writes,
            write_bytes: c.host_write_bytes,
            flushes: Some(c.host_flushes),
            discards: Some(c.host_trims),
            nand_write_bytes: Some(c.nand_units_programmed * flashsim::MAP_UNIT),
            waf: Some(c.write_amplification()),
        };
        let r = ConfigResult::new(
            wl,
            mode,
            sync,
            "virtual",
            &rep.latencies_ns,
            rep.tx_span_ns,
            rep.tx_span_ns as f64 / 1e9,
            VfsCounts::measured(&run.events),
            Some(dev),
            None,
            run.integrity,
        );
        progress(&format!("{mode}/{sync}: replayed {} recorded operations", run.events.len()));
        results.push(r);
    }
    Ok(Report {
        sqlite_version: sqlite_version().to_string(),
        target: spec.to_string(),
        kind: "simulated",
        counts_from: format!(
            "model: simulated device under flashlab's simulated {} filesystem ({}); SQLite ran for real in {}, its recorded file operations were replayed in virtual time; tx/s and latencies are device time only",
            fs.label(),
            profile.name,
            scratch.display()
        ),
        filesystem: Some(fs.label()),
        precondition: Some(precondition),
        baseline: None,
        workload: wl.clone(),
        notes: vec![if fs.kind == flashlab_simfs::FsKind::Plain {
            "flushes = recorded xSync calls + directory syncs of deletes + one for the final writeback; bytes = the 4 KiB blocks dirtied between syncs".into()
        } else {
            format!(
                "each xSync is an fsync on the simulated {}: data blocks, then the filesystem's own writes (journal commit or node blocks) and flushes; the difference from the vfs columns is the filesystem's",
                fs.kind.name()
            )
        }],
        configs: results,
    })
}
