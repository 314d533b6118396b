//! The command line: every subcommand and option, as clap reads them.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

pub use crate::output_args::OutputArgs;

/// The target of every command that takes `--target` and is not given one: the README's main
/// job (`age`) runs on this simulated device, so every command starts from the same device
/// (a simulated one: it runs anywhere, needs no root and touches no real storage).
pub const DEFAULT_TARGET: &str = "sim:nexus7-2012";

#[derive(Parser, Debug)]
#[command(name = "flashlab", version = crate::shell::VERSION, about = "Simulate, measure and explain flash storage (eMMC, UFS, NVMe)")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Age a device: fill, torture, delete, fstrim, idle, with a four-corner run between steps
    /// (the main job).
    Age(AgeArgs),
    /// One four-corner run (256 KiB sequential, 4 KiB random, QD1, 100 MiB file) on a new device.
    Bench(BenchArgs),
    /// Fill all free space with 4 KiB random writes; latency percentiles at every 10 % of fill.
    Fill(FillArgs),
    /// SNIA write saturation: 4 KiB random writes until 4x capacity, IOPS per interval.
    Wsat(WsatArgs),
    /// Run an fio job file, or fio's command-line options after `--`.
    Run(RunArgs),
    /// List the built-in device profiles, or show one.
    Profiles(ProfilesArgs),
    /// Experiments on the simulator alone.
    #[command(subcommand)]
    Sim(SimCommand),
    /// Turn results files (age, bench, fill, wsat, run --output-format json) into one
    /// self-contained HTML report with charts.
    Report(ReportArgs),
    /// Inspect this system's (or a captured tree's) flash storage: fullness, TRIM, mount
    /// options, device class and health, FUSE layers; say what slows it and how to fix it.
    Doctor(DoctorArgs),
    /// Run a profile's published procedure on the simulated device and compare with the
    /// published numbers, cell by cell.
    Calibrate(CalibrateArgs),
    /// Where a request's latency goes: user submit, block queue, driver + device, completion;
    /// traced on a real device (root, tracefs) or modelled on sim:PROFILE.
    Breakdown(BreakdownArgs),
    /// Run real SQLite transactions per journal mode and synchronous setting; count what reaches
    /// the device (kernel counters on a directory, the simulated device on sim:PROFILE).
    Sqlite(SqliteArgs),
    /// Expose a simulated device as a file in a FUSE mount (and a loop block device with
    /// --attach), answering each request when the model says it completes.
    Serve(ServeArgs),
    /// Months of use in seconds: a usage model (or a block trace) on a simulated device under a
    /// trim policy, with performance, WAF, wear and lifetime over time.
    Life(LifeArgs),
    /// Many simulated runs from a sweep file (axes: profiles, profile fields, filesystems,
    /// protocols or usage models, trim policies, seeds), in parallel, resumable, into one table.
    Sweep(SweepArgs),
    /// Run flashlab on an Android phone over adb: push the static ARM binary, run bench, fill,
    /// age or a job file there, pull the results back; or inspect the phone's storage (doctor).
    #[command(subcommand)]
    Phone(crate::phone::cli::PhoneCommand),
    /// Run one workload on flashlab's ext4 model and on the kernel's ext4 (loop device on
    /// tmpfs, block tracepoints; needs root) and compare what reaches the device, per class.
    ValidateFs(ValidateFsArgs),
    /// Print a shell completion script to stdout (e.g. `flashlab completions bash >
    /// ~/.local/share/bash-completion/completions/flashlab`).
    Completions(crate::shell::CompletionsArgs),
    /// Print flashlab's manual page (roff) to stdout, or a subcommand's (e.g. `flashlab man age |
    /// man -l -`).
    Man(crate::shell::ManArgs),
}

#[derive(Args, Debug)]
pub struct ValidateFsArgs {
    /// fill, randwrite-fsync, sqlite-delete, sqlite-truncate, sqlite-persist, sqlite-wal,
    /// age-fill, nearly-full, delete-all.
    #[arg(long, required_unless_present = "guest")]
    pub workload: Option<String>,
    /// The filesystem: ext4 (this host's kernel, on a loop device) or f2fs (the distribution's
    /// kernel in a VM: needs qemu-system-x86, linux-image-amd64, f2fs-tools and virtme-ng).
    #[arg(long, default_value = "ext4")]
    pub fs: String,
    /// Mount options. ext4: default (data=ordered), nobarrier or discard. f2fs: android (the
    /// default), kernel, motox, motoz, or a comma-separated list of mount options.
    #[arg(long, default_value = "default")]
    pub mount: String,
    /// Image size (a multiple of 4 MiB) [default: 128M for ext4, 256M for f2fs].
    #[arg(long)]
    pub size: Option<String>,
    /// Inside the VM only: run the jobs of this request file (written by `validate-fs --fs
    /// f2fs` on the host).
    #[arg(long, hide = true, value_name = "REQUEST")]
    pub guest: Option<std::path::PathBuf>,
    /// f2fs: compare the model with the kernel's results of an earlier run, kept with
    /// FLASHLAB_VALIDATE_KEEP=DIR (DIR/guest-result.json), without booting the VM.
    #[arg(long, value_name = "FILE")]
    pub kernel_results: Option<std::path::PathBuf>,
    /// fill: how full the filesystem gets, in percent.
    #[arg(long, default_value_t = 80)]
    pub fill: u64,
    /// randwrite-fsync: 4 KiB overwrites.
    #[arg(long, default_value_t = 400)]
    pub writes: u64,
    /// SQLite: transactions.
    #[arg(long, default_value_t = 100)]
    pub transactions: u64,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// The target, the seed and the simulated system of a run on `sim:PROFILE`.
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// What to run on: `sim:PROFILE` (a built-in profile name or a profile TOML file); for age
    /// and bench also a directory on a mounted filesystem (flashlab creates and removes only its
    /// own files there).
    #[arg(long, default_value = DEFAULT_TARGET)]
    pub target: String,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub sim_fs: SimFsArgs,
}

/// The sizes of a four-corner run (`age`, `bench`, `phone bench|fill|age`).
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Four-corner runs")]
pub struct FourCornerArgs {
    /// Bytes each random four-corner test transfers [default: the protocol's, else 16MiB].
    #[arg(long, value_name = "SIZE")]
    pub rand_io: Option<String>,
    /// Size of the four-corner test file [default: the protocol's, else 100MiB].
    #[arg(long, value_name = "SIZE")]
    pub span: Option<String>,
}

/// The simulated filesystem of a run on `sim:PROFILE` (an error on real targets).
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Simulated targets (sim:PROFILE)")]
pub struct SimFsArgs {
    /// The simulated filesystem and mount options, `plain|ext4|f2fs[,discard][,nobarrier]...`
    /// [default: the profile's [system] table, else plain].
    #[arg(long, value_name = "FS[,OPTION...]")]
    pub fs: Option<String>,
    /// Mount the simulated filesystem with online discard (deletes are trimmed at once).
    #[arg(long)]
    pub discard: bool,
    /// The simulated device's history before the run: fresh (factory state, nothing mapped),
    /// used (every logical block written once, never trimmed), steady (SNIA purge, then
    /// write saturation to steady state) or lived (filled with files through the filesystem,
    /// half of them deleted, the system's trim policy applied: a phone after months of use).
    #[arg(long, value_name = "STATE", default_value = "fresh")]
    pub precondition: flashlab_lab::precondition::Precondition,
}

impl SimFsArgs {
    /// The first of these options given, for the error on a real target.
    pub fn given(&self) -> Option<&'static str> {
        if self.fs.is_some() {
            Some("--fs")
        } else if self.discard {
            Some("--discard")
        } else if self.precondition != flashlab_lab::precondition::Precondition::Fresh {
            Some("--precondition")
        } else {
            None
        }
    }
}

/// How flashlab does I/O on a real device (also on a phone).
#[derive(Args, Debug, Clone, Default)]
pub struct IoArgs {
    /// I/O engine: io_uring (default where the kernel allows it) or psync.
    #[arg(long, value_name = "ENGINE")]
    pub ioengine: Option<String>,
    /// Buffered I/O instead of O_DIRECT.
    #[arg(long)]
    pub buffered: bool,
    /// Write zeros instead of data that does not compress or dedupe (fio's zero_buffers).
    #[arg(long)]
    pub zero_buffers: bool,
}

/// How flashlab does I/O on a real target (an error on simulated ones).
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Real targets (a directory or block device)")]
pub struct RealArgs {
    #[command(flatten)]
    pub io: IoArgs,
    /// Idle this long instead of a protocol's idle duration on real targets (e.g. `10m`).
    #[arg(long, value_name = "DURATION")]
    pub idle: Option<String>,
    /// Allow writing to a raw block device (everything on it is destroyed).
    #[arg(long)]
    pub destroy_data: bool,
    /// Put the files of a protocol's fill steps into this directory instead of the target (e.g.
    /// a phone's shared storage, written buffered where O_DIRECT is refused).
    #[arg(long, value_name = "DIR")]
    pub fill_dir: Option<PathBuf>,
}

impl RealArgs {
    /// The first of these options given, for the error on a simulated target.
    pub fn given(&self) -> Option<&'static str> {
        [
            (self.io.ioengine.is_some(), "--ioengine"),
            (self.io.buffered, "--buffered"),
            (self.io.zero_buffers, "--zero-buffers"),
            (self.idle.is_some(), "--idle"),
            (self.destroy_data, "--destroy-data"),
            (self.fill_dir.is_some(), "--fill-dir"),
        ]
        .into_iter()
        .find_map(|(set, flag)| set.then_some(flag))
    }
}

/// What `--check` without a number means: every 10 000 device commands
/// ([`flashsim::DEFAULT_CHECK_EVERY`]).
pub const CHECK_EVERY_DEFAULT: &str = "10000";
// The string above and the simulator's constant say the same number.
const _: () = assert!(flashsim::DEFAULT_CHECK_EVERY == 10_000);

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Check the simulated device's and filesystem model's invariants (mapping, valid counts,
    /// free lists, allocations) every N device commands [N: 10000], after the precondition and
    /// at the end; a broken one stops the run with an error naming it and when (sim:PROFILE).
    #[arg(
        long,
        value_name = "N",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = CHECK_EVERY_DEFAULT,
        value_parser = clap::value_parser!(u64).range(1..),
        help_heading = "Simulated targets (sim:PROFILE)"
    )]
    pub check: Option<u64>,
    #[command(flatten)]
    pub four: FourCornerArgs,
    #[command(flatten)]
    pub real: RealArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct AgeArgs {
    #[arg(long, default_value = "age", help = protocol_help(), value_parser = protocol_spec)]
    pub protocol: String,
    #[command(flatten)]
    pub bench: BenchArgs,
}

/// The help of `--protocol`, naming the built-in protocols from their registry.
pub fn protocol_help() -> String {
    let names: Vec<&str> = flashlab_lab::protocol::BUILTIN.iter().map(|(n, _)| *n).collect();
    format!("Protocol: a built-in name ({}) or a protocol TOML file", names.join(", "))
}

/// `--protocol`: a built-in protocol's name, or a path (read, and its errors named, when the
/// command runs); anything else is refused with the closest built-in name.
pub fn protocol_spec(s: &str) -> Result<String, String> {
    let builtin = || flashlab_lab::protocol::BUILTIN.iter().map(|(n, _)| *n);
    if builtin().any(|n| n == s) || s.ends_with(".toml") || s.contains('/') || std::path::Path::new(s).exists() {
        return Ok(s.to_string());
    }
    Err(format!(
        "not a built-in protocol ({}) nor a file{}",
        builtin().collect::<Vec<_>>().join(", "),
        crate::suggest::hint(s, builtin(), "")
    ))
}

#[derive(Args, Debug)]
pub struct FillArgs {
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub iodepth: u32,
    #[command(flatten)]
    pub fill: crate::cmd::fill_args::FillOptions,
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct WsatArgs {
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub iodepth: u32,
    /// Capacities to write.
    #[arg(long, default_value_t = 4.0)]
    pub times: f64,
    /// Intervals to report.
    #[arg(long, default_value_t = 100)]
    pub intervals: u32,
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The fio job file (or fio's options after `--`).
    pub jobfile: Option<PathBuf>,
    /// `sim:PROFILE`, a directory, or a block device (with --destroy-data); default: the job's
    /// own filename/directory, else the default simulated device.
    #[arg(long)]
    pub target: Option<String>,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// `normal` (fio-style text) or `json` (fio's JSON, plus the device's counters).
    #[arg(long, default_value = "normal")]
    pub output_format: String,
    /// Write fio's JSON here instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Run only this section of the job file (and its [global] sections), as fio's
    /// --section; give it more than once for several.
    #[arg(long = "section", value_name = "NAME")]
    pub sections: Vec<String>,
    /// Write the zoned device's zones after the jobs to FILE, as `blkzone report` prints a
    /// kernel zoned device's (a zoned sim:PROFILE only; written when a job fails too)
    #[arg(long, value_name = "FILE")]
    pub zone_report: Option<PathBuf>,
    #[command(flatten)]
    pub sim_fs: SimFsArgs,
    #[command(flatten)]
    pub real: RealArgs,
    /// fio's command-line options, after `--`: `--name=NAME` starts a job, options before it
    /// are global (`-- --name=r --rw=randread --bs=4k --size=1g`); with JOBFILE, as fio reads
    /// them: the global ones are the file's defaults, their jobs come first
    #[arg(last = true, value_name = "FIO OPTIONS")]
    pub fio_options: Vec<String>,
    #[command(flatten)]
    pub out: OutputArgs,
}

impl RunArgs {
    /// What the jobs came from, as results and messages name it: the job file's path, or
    /// [`flashlab_jobs::cmdline::SOURCE`] for options after `--`.
    pub fn source(&self) -> PathBuf {
        self.jobfile.clone().unwrap_or_else(|| PathBuf::from(flashlab_jobs::cmdline::SOURCE))
    }
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Results files written by flashlab (`--json`, or `run --output-format json`); several
    /// files are drawn side by side. Or one `flashlab sweep` directory (`--out DIR`): a chart
    /// per setting against each metric, and heatmaps for two settings.
    #[arg(required = true, value_name = "RESULTS.json")]
    pub files: Vec<PathBuf>,
    /// The HTML file to write (the same as --report) [default: report.html].
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write each chart as an SVG file into this directory.
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct ProfilesArgs {
    /// Show this profile's TOML.
    pub name: Option<String>,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Subcommand, Debug)]
pub enum SimCommand {
    /// Write amplification of GC under uniform random 4 KiB writes, through the full device model.
    Waf(WafArgs),
    /// One multi-stream workload under conventional, streams and zoned placement on the same
    /// NAND: device and end-to-end WAF, write latency, projected lifetime (docs/placement.md).
    Placement(PlacementArgs),
}

#[derive(Args, Debug)]
pub struct PlacementArgs {
    /// The workload: hotcold (20 % of the data takes 80 % of the writes), multistream (four
    /// streams, lifetimes 16x apart) or adversarial (a short-lived log rewritten in order,
    /// interleaved write by write with uniform writes).
    #[arg(long, default_value = "multistream")]
    pub family: String,
    /// The conventional device (conventional and streams placement).
    #[arg(long, default_value = "sim:ufs-4.0")]
    pub conventional: String,
    /// Its zoned twin, on the same NAND.
    #[arg(long, default_value = "sim:zoned-ufs-4.0")]
    pub zoned: String,
    /// Its FDP twin, on the same NAND (a profile with [fdp]; one handle per stream, run
    /// initially and persistently isolated). Default: the built-in `<conventional>-fdp` if
    /// there is one (sim:nvme-gen3-fdp for sim:nvme-gen3), else no FDP rows; `none`: none.
    #[arg(long)]
    pub fdp: Option<String>,
    /// Both devices with this many blocks per plane (the same NAND, smaller, so the run is
    /// short); 0 keeps the profiles'.
    #[arg(long, default_value_t = 256)]
    pub blocks_per_plane: u32,
    /// Both devices with this many pages per block (the zone size follows); 0 keeps the
    /// profiles'.
    #[arg(long, default_value_t = 64)]
    pub pages_per_block: u32,
    /// Live data, a fraction of the conventional device's logical capacity.
    #[arg(long, default_value_t = 0.75)]
    pub live: f64,
    /// Application writes, in passes over the live data (measured over the second half).
    #[arg(long, default_value_t = 4.0)]
    pub passes: f64,
    /// P/E cycles a block is rated for (default: by cell type, as `life` takes it).
    #[arg(long)]
    pub pe_cycles: Option<u32>,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct WafArgs {
    /// Spare factor (physical - logical) / physical.
    #[arg(long, default_value_t = 0.07)]
    pub spare: f64,
    #[arg(long, default_value_t = 64)]
    pub pages_per_block: u32,
    /// Physical blocks.
    #[arg(long, default_value_t = 8192)]
    pub blocks: u32,
    /// greedy, cost-benefit, fifo or random.
    #[arg(long, default_value = "greedy")]
    pub policy: String,
    /// Logical passes of random writes.
    #[arg(long, default_value_t = 8.0)]
    pub passes: f64,
    /// Fraction of the logical space trimmed after the prefill.
    #[arg(long, default_value_t = 0.0)]
    pub trimmed: f64,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where the random writes go, as fio's random_distribution: random, zipf:0.9, pareto:0.2,
    /// zoned:80/20:20/80 (80 % of writes to 20 % of the space)...
    #[arg(long, default_value = "random")]
    pub distribution: String,
    /// Hot/cold separation: off, hint (the host marks its hot zones) or detect (the device's
    /// update-frequency detector); hint-gc and detect-gc also split GC copies by temperature.
    #[arg(long, default_value = "off")]
    pub separate: String,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Read a captured tree (proc/, sys/block/, etc/, doctor/df.txt) instead of the live system;
    /// see docs/doctor.md and scripts/capture-adb.sh.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Built-in profile names or `sim:FILE.toml`.
    pub profiles: Vec<String>,
    /// Every built-in profile that has a [calibrate] table.
    #[arg(long)]
    pub all: bool,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Skip the leave-one-out fits (one simulation per knob setting).
    #[arg(long)]
    pub no_loo: bool,
}

#[derive(Args, Debug)]
pub struct BreakdownArgs {
    /// `sim:PROFILE` (the model), a block device (needs --destroy-data), or a directory on a
    /// block-device-backed filesystem (flashlab creates, uses and removes one file there).
    #[arg(long, default_value = DEFAULT_TARGET)]
    pub target: String,
    /// Allow writing to a raw block device (destroys its data).
    #[arg(long)]
    pub destroy_data: bool,
    /// Block sizes, comma-separated (multiples of 4 KiB).
    #[arg(long, value_delimiter = ',', default_value = "4k")]
    pub bs: Vec<String>,
    /// Queue depths, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,32")]
    pub iodepth: Vec<u32>,
    /// Directions, comma-separated: randread, randwrite.
    #[arg(long, value_delimiter = ',', default_value = "randread,randwrite")]
    pub rw: Vec<String>,
    /// I/Os per job.
    #[arg(long, default_value_t = 5000)]
    pub ios: u64,
    /// Bytes of the target the I/O spreads over (the file's size, or a device's first bytes).
    #[arg(long, default_value = "64M")]
    pub size: String,
    /// io_uring or psync (psync: queue depth 1) [default: io_uring where it works].
    #[arg(long)]
    pub ioengine: Option<String>,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Write the stacked-bar chart to this file (.svg, or .html for a page with the table).
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    /// On sim:PROFILE: the model's host costs from this measured breakdown (the `--json` of a
    /// run on a zero-latency device, e.g. a loop device over tmpfs; bench/host-cost.sh), its
    /// QD1 medians times --cpu-scale, instead of the profile's constants.
    #[arg(long, value_name = "FILE")]
    pub host_cost: Option<PathBuf>,
    /// How many times slower the target's CPU runs the block stack than this machine's
    /// (docs/breakdown.md: phone classes and their source).
    #[arg(long, default_value_t = 1.0, value_name = "X")]
    pub cpu_scale: f64,
}

#[derive(Args, Debug)]
pub struct SqliteArgs {
    /// A directory of a mounted filesystem (flashlab creates and removes only its own database
    /// files there), or `sim:PROFILE` (SQLite runs in the temporary directory and its file
    /// operations are replayed on the simulated device).
    #[arg(long, default_value = DEFAULT_TARGET)]
    pub target: String,
    /// Journal modes, comma-separated: delete, truncate, persist, wal, off, or all.
    #[arg(long, default_value = "delete,truncate,persist,wal,off")]
    pub modes: String,
    /// synchronous settings, comma-separated: full, normal, off, or all.
    #[arg(long, default_value = "full")]
    pub sync: String,
    /// Transactions (commits) per configuration.
    #[arg(long, default_value_t = 200)]
    pub transactions: u64,
    /// Row operations per transaction.
    #[arg(long, default_value_t = 1)]
    pub batch: u64,
    /// What each row operation does: insert, update, delete, or mix.
    #[arg(long, default_value = "insert")]
    pub shape: String,
    /// Bytes of message text per row.
    #[arg(long, default_value_t = 100)]
    pub row_bytes: usize,
    /// Seconds of idle device activity measured before the runs on a real device (0: none).
    #[arg(long, default_value_t = 1.0)]
    pub baseline: f64,
    /// Seed for the workload's choices and the simulated device.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub sim_fs: SimFsArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The device: `sim:PROFILE` (a built-in profile name or a profile TOML file).
    #[arg(long, default_value = DEFAULT_TARGET)]
    pub target: String,
    /// Bytes exposed (suffixes as elsewhere, binary); at most, and by default, the profile's
    /// logical capacity.
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Simulated seconds per real second: 10 answers ten times sooner than the model says.
    #[arg(long, default_value_t = 1.0, value_name = "X")]
    pub time_scale: f64,
    /// The device's clock skips gaps shorter than MS milliseconds (real time) between a
    /// completion and the next request that finds the device empty, as if the host cost
    /// nothing beyond the profile's host stack: for a slow serving host (a VM without hardware
    /// virtualisation) whose own gaps would give the device time a phone never gives it.
    /// Longer gaps stay idle time. Answers still come the model's latency after each arrival.
    #[arg(long, value_name = "MS")]
    pub skip_host_gaps: Option<f64>,
    /// Keep the data in this file (created by flashlab) instead of memory.
    #[arg(long, value_name = "FILE")]
    pub backing: Option<PathBuf>,
    /// Reuse an existing backing file (its contents are discarded).
    #[arg(long)]
    pub overwrite_backing: bool,
    /// The write buffer is volatile: `echo powercut > DIR/.ctl` loses unflushed writes.
    #[arg(long)]
    pub volatile_cache: bool,
    /// Also set up a loop block device over DIR/device and print its name.
    #[arg(long)]
    pub attach: bool,
    /// FUSE worker threads (requests that can wait for their completion at once; the kernel
    /// sends at most 64 asynchronous requests at a time).
    #[arg(long, default_value_t = 64)]
    pub threads: usize,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// An empty directory to mount on; the device appears as DIR/device.
    pub dir: PathBuf,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct LifeArgs {
    /// The simulated device: `sim:PROFILE` (a built-in profile or a profile TOML file).
    #[arg(long, default_value = DEFAULT_TARGET)]
    pub target: String,
    /// Usage model: a preset (light-phone, heavy-phone, sbc-desktop, logger, anandtech-10g), a
    /// usage TOML file (docs/life.md), or a block-level endurance workload (jesd219-enterprise,
    /// uniform-4k; docs/jesd219.md).
    #[arg(long, default_value = "light-phone")]
    pub usage: String,
    /// Drive writes (host bytes / capacity) of a block-level endurance workload
    /// (--usage jesd219-enterprise or uniform-4k), after the device is filled.
    #[arg(long, default_value_t = 3.0)]
    pub drive_writes: f64,
    /// Multiply the usage's volumes and file sizes by this (e.g. to run a phone model on a
    /// small test device).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Trim policy: none, discard, fstrim[:INTERVAL] (weekly, daily), android, on-notice[:LATENCY].
    #[arg(long, default_value = "none")]
    pub policy: String,
    /// Run every policy (none, weekly fstrim, android, discard, on-notice) from the same seed
    /// and print one table.
    #[arg(long)]
    pub compare_policies: bool,
    /// Virtual time to simulate: 12months, 1y, 30d, 6w, 48h.
    #[arg(long, default_value = "12months")]
    pub duration: String,
    /// Replay this block trace instead of the usage model (blkparse text, fio iolog v2/v3, or
    /// MSR Cambridge CSV).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// The trace's format: blkparse, iolog or msr [default: detected from its first line].
    #[arg(long, value_name = "FORMAT")]
    pub trace_format: Option<String>,
    /// Replay the trace back to back (each request when the previous completes) instead of at
    /// its timestamps.
    #[arg(long)]
    pub compress_time: bool,
    /// P/E-cycle budget per block for the lifetime projection [default: by cell type: SLC
    /// 100000, MLC 3000, TLC 1000, QLC 300].
    #[arg(long, value_name = "N")]
    pub pe_cycles: Option<u32>,
    /// Days between samples (a trace replay samples every hour of trace time instead).
    #[arg(long, default_value_t = 1)]
    pub sample_days: u32,
    /// Run the random-write probe at every Nth sample (and the last).
    #[arg(long, default_value_t = 7)]
    pub probe_every: u32,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The sweep file (docs/sweep.md).
    #[arg(value_name = "SWEEP.toml")]
    pub spec: PathBuf,
    /// The directory for results.csv, results.parquet and cases/ (a re-run skips the cases
    /// already there).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Threads [default: one per core].
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
    /// Run the cases as tasks on the Ray cluster at this address (`auto`, `ray://HOST:10001`,
    /// or `local` for a Ray instance started for this sweep), through the flashlab Python
    /// package.
    #[arg(long, value_name = "ADDRESS")]
    pub ray: Option<String>,
    /// The Python interpreter that has the flashlab package and ray, for --ray
    /// [default: $FLASHLAB_PYTHON, else python3].
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}
