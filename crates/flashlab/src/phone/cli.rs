//! The command line of `flashlab phone`.

use crate::cli::{FourCornerArgs, IoArgs, OutputArgs};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum PhoneCommand {
    /// List the devices adb sees, with their CPU ABI and Android version.
    Devices(DevicesArgs),
    /// One four-corner run in /data on the phone (psync, O_DIRECT).
    Bench(BenchArgs),
    /// The public procedure: four-corner in /data, fill shared storage, four-corner in /data
    /// again, delete the fill, four-corner once more.
    Fill(FillArgs),
    /// An aging protocol in /data on the phone (the built-in `age` by default) with a
    /// shortened idle.
    Age(AgeArgs),
    /// An fio job file, run in /data on the phone.
    Run(RunArgs),
    /// Inspect the phone's storage: mounts and options of /data and shared storage, the
    /// shared-storage layer, the storage part, fullness, discard and the last fstrim.
    Doctor(DoctorArgs),
}

/// Which phone, and how to reach it.
#[derive(Args, Debug, Clone)]
pub struct ConnArgs {
    /// The adb program [default: $ADB, else `adb` on PATH].
    #[arg(long, value_name = "PATH")]
    pub adb: Option<String>,
    /// The device's serial (`adb devices`); needed when several are attached.
    #[arg(short = 's', long)]
    pub serial: Option<String>,
}

#[derive(Args, Debug)]
pub struct DevicesArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// What every run on the phone takes.
#[derive(Args, Debug, Clone)]
pub struct RunOnPhone {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// The flashlab binary to push [default: target/TRIPLE/release/flashlab for the phone's CPU,
    /// built by scripts/build-arm.sh].
    #[arg(long, value_name = "FILE")]
    pub binary: Option<PathBuf>,
    /// A new directory on the phone for the binary, its test files and results; removed
    /// afterwards, also after errors and Ctrl-C.
    #[arg(long, value_name = "DIR", default_value = "/data/local/tmp/flashlab")]
    pub remote_dir: String,
    /// The I/O on the phone (the engine is psync unless given).
    #[command(flatten)]
    pub io: IoArgs,
    /// Seed for every random choice; the same seed gives the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Find and describe the phone, then print the adb calls the run would make, without
    /// making them.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    pub on: RunOnPhone,
    #[command(flatten)]
    pub four: FourCornerArgs,
}

#[derive(Args, Debug)]
pub struct FillArgs {
    /// A new directory in shared storage for the fill files (removed afterwards).
    #[arg(long, value_name = "DIR", default_value = "/sdcard/flashlab-fill")]
    pub shared_dir: String,
    /// Stop filling when this much is left free.
    #[arg(long, value_name = "SIZE", default_value = "1GiB")]
    pub leave_free: String,
    /// Sizes of the fill files: `SIZE` or `MIN..MAX` (log-uniform).
    #[arg(long, value_name = "SIZE", default_value = "32KiB..64MiB")]
    pub file_size: String,
    #[command(flatten)]
    pub bench: BenchArgs,
}

#[derive(Args, Debug)]
pub struct AgeArgs {
    /// A built-in protocol name or a protocol TOML file (pushed to the phone).
    #[arg(long, default_value = "age", value_parser = crate::cli::protocol_spec)]
    pub protocol: String,
    /// Idle this long instead of the protocol's idle steps.
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub idle: String,
    #[command(flatten)]
    pub bench: BenchArgs,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub on: RunOnPhone,
    /// The fio job file (pushed to the phone; its jobs run in the phone's work directory).
    pub jobfile: PathBuf,
}

#[derive(Args, Debug)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// A new directory on the phone for the capture (removed afterwards).
    #[arg(long, value_name = "DIR", default_value = "/data/local/tmp/flashlab-doctor")]
    pub remote_dir: String,
    /// Keep the captured tree in this (new) directory on the host.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
}
