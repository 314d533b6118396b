//! The options of `flashlab fill` beyond the common ones: fio's semantics of the fill job, the
//! system's trim policy and shared-storage layer, and which procedure runs.

use crate::error::Error;
use clap::Args;
use flashlab_lab::experiments::fill::{FillSpec, Layout};
use flashlab_lab::stack::{SharedLayer, Stack, TrimPolicy};
use flashlab_lab::units::{parse_cli_size, parse_duration_ns};

/// The options of `flashlab fill` that say what the fill does.
#[derive(Args, Debug, Clone)]
pub struct FillOptions {
    /// `fill`: fill the free space; `phone`: the published procedure — test /data, fill the
    /// shared storage through its layer, test /data again [default: phone when the profile's
    /// [system] names a shared-storage layer, else fill].
    #[arg(long, value_name = "fill|phone")]
    pub procedure: Option<String>,
    /// How the fill file is laid out before the random writes: `allocate` (fio's default for a
    /// write job: fallocate, nothing written) or `write` (fio's overwrite=1: written
    /// sequentially first).
    #[arg(long, default_value = "allocate", value_name = "allocate|write")]
    pub layout: String,
    /// Offsets drawn with no memory (fio's norandommap): some blocks written twice, some never.
    #[arg(long)]
    pub norandommap: bool,
    /// fsync after every N writes (fio's fsync=N; 0: never) [default: 1 with --procedure
    /// phone, else 0].
    #[arg(long, value_name = "N")]
    pub fsync: Option<u32>,
    /// Trim policy during the fill: none, discard, daily, weekly, android, fstrim:INTERVAL
    /// [default: the profile's [system] trim, else none].
    #[arg(long, value_name = "POLICY")]
    pub trim: Option<String>,
    /// Shared-storage layer the fill crosses in the phone procedure: none, fuse, sdcardfs,
    /// esdfs [default: the profile's [system] shared_storage].
    #[arg(long, value_name = "LAYER")]
    pub shared_storage: Option<String>,
    /// Run the fill in N sessions with --gap idle time between them (when fstrim can run).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10000))]
    pub sessions: u32,
    /// Idle time between two sessions (e.g. 1d, 8h).
    #[arg(long, default_value = "0s", value_name = "DURATION")]
    pub gap: String,
    /// The phone procedure's /data test file.
    #[arg(long, default_value = "128MiB", value_name = "SIZE")]
    pub test_size: String,
}

/// Which procedure `fill` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Procedure {
    /// Fill the free space.
    Fill,
    /// Test /data, fill the shared storage, test /data again.
    Phone,
}

/// The options resolved against the profile's stack.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Which procedure runs.
    pub procedure: Procedure,
    /// The fill job.
    pub spec: FillSpec,
    /// The system stack, with the options' changes.
    pub stack: Stack,
    /// The phone procedure's /data test file, in bytes.
    pub test_bytes: u64,
}

impl FillOptions {
    /// The options resolved against the profile's stack; errors name the flag.
    pub fn resolve(&self, iodepth: u32, seed: u64, profile_stack: Stack) -> Result<Resolved, Error> {
        let mut stack = profile_stack;
        if let Some(s) = &self.shared_storage {
            stack.shared_storage = SharedLayer::parse(s).map_err(Error::at("--shared-storage"))?;
            stack.shared_cost = stack.shared_storage.default_cost();
        }
        if let Some(t) = &self.trim {
            stack.trim = TrimPolicy::parse(t).map_err(Error::at("--trim"))?;
        }
        let procedure = match self.procedure.as_deref() {
            Some("fill") => Procedure::Fill,
            Some("phone") => Procedure::Phone,
            Some(other) => {
                return Err(Error::flag("--procedure", format!("unknown procedure '{other}' (expected fill or phone)")))
            }
            None if stack.shared_storage != SharedLayer::None => Procedure::Phone,
            None => Procedure::Fill,
        };
        // The phone procedure's options, and --gap without sessions, change nothing: refused.
        if procedure == Procedure::Fill {
            if self.test_size != "128MiB" {
                return Err(Error::not_applicable("--test-size", "applies to --procedure phone (its /data test)"));
            }
            if self.shared_storage.is_some() && stack.shared_storage != SharedLayer::None {
                return Err(Error::not_applicable(
                    "--shared-storage",
                    "applies to --procedure phone (the fill of the shared storage crosses it)",
                ));
            }
        }
        if self.sessions == 1 && self.gap != "0s" {
            return Err(Error::not_applicable("--gap", "applies to --sessions N with N > 1"));
        }
        let mut spec = FillSpec::new(iodepth, seed);
        spec.layout = Layout::parse(&self.layout).map_err(Error::at("--layout"))?;
        spec.random_map = !self.norandommap;
        spec.fsync_every = self.fsync.unwrap_or(if procedure == Procedure::Phone { 1 } else { 0 });
        spec.sessions = self.sessions;
        spec.gap_ns = parse_duration_ns(&self.gap).map_err(Error::at("--gap"))?;
        spec.trim = stack.trim;
        if procedure == Procedure::Phone {
            spec.layer = stack.shared_cost;
        }
        let test_bytes = parse_cli_size(&self.test_size).map_err(Error::at("--test-size"))?;
        if test_bytes < 4096 {
            return Err(Error::flag("--test-size", "at least 4KiB"));
        }
        Ok(Resolved { procedure, spec, stack, test_bytes })
    }
}
