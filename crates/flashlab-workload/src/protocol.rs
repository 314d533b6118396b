//! Protocols: ordered steps run on one system — four-corner runs, filling the filesystem,
//! random writes over the free space, deleting the fill data, fstrim, idling — written in a
//! small TOML format. The built-in `age` protocol is the experiment of the published Nexus 7
//! table: new → fill → four-corner ×3 → delete → four-corner → fstrim + idle → four-corner.
//!
//! ```toml
//! name = "age"
//! four_corner_span = "100MiB"  # optional: the four-corner file (default 100 MiB)
//! four_corner_rand_io = "16MiB" # optional: bytes per random test (default --rand-io)
//! four_corner_rand_write = "overwrite" # or "truncated": random writes into the emptied
//!                              # write-test file; "truncated-sync": that file opened O_SYNC,
//!                              # as AndroBench 3.x (default overwrite)
//! four_corner_seq_write = "plain" # or "sync": the sequential-write file opened O_SYNC and
//!                              # fsynced after every request, as AndroBench 3.x (default plain)
//! four_corner_repeat = 3       # optional: each test runs 3 times back to back; MB/s is the
//!                              # mean of the runs' rates, as AndroBench 3.x (default 1)
//! four_corner_read_file = "100MiB" # optional: the read tests read their own file, written
//!                              # first; AndroBench's order, every write test truncating its file
//! [[step]]
//! kind = "four-corner"        # one row of the output table
//! label = "new"
//! [[step]]
//! kind = "fill"               # sequential fill files until `leave_free` is left
//! leave_free = "300MiB"
//! [[step]]
//! kind = "random-writes"      # 4 KiB random writes over the free space but `keep_free`
//! keep_free = "120MiB"
//! passes = 1.0
//! random_map = false         # uniform picks with repeats (fio norandommap), the default
//! delete_after = false       # delete the file afterwards, as a benchmark app does (default: keep)
//! [[step]]
//! kind = "delete-fill"        # delete every fill file (trimmed only with discard)
//! [[step]]
//! kind = "fstrim"             # trim all free space
//! [[step]]
//! kind = "idle"               # no I/O for a while (the device may collect garbage)
//! duration = "24h"
//! ```
//! Sizes take the same suffixes as the command line; durations take fio's (`s`, `m`, `h`, `d`).

use crate::fourcorner::{FourCorner, FourCornerConfig};
use crate::rng::Rng;
use crate::units::{parse_cli_size, parse_duration_ns};
use crate::Error;
use serde::{Deserialize, Serialize};

/// Prefix of the fill files a protocol creates (and `delete-fill` removes).
pub const FILL_PREFIX: &str = "flashlab-fill-";

/// The longest idle step: a century keeps the virtual clock (u64 ns) far from overflow.
pub const MAX_IDLE_NS: u64 = 100 * 365 * 24 * 3600 * 1_000_000_000;
/// Most runs of each four-corner test (`four_corner_repeat`).
const MAX_REPEAT: u32 = 10;

/// Sizes of files and transfers: whole 4 KiB blocks, at least one.
pub fn block_multiple(bytes: u64) -> Result<u64, Error> {
    if bytes == 0 || !bytes.is_multiple_of(4096) {
        return Err(Error::NotBlockMultiple { bytes });
    }
    Ok(bytes)
}

/// The built-in protocols: (name, TOML).
pub const BUILTIN: &[(&str, &str)] = &[
    ("age", include_str!("../protocols/age.toml")),
    ("age-thin", include_str!("../protocols/age-thin.toml")),
    ("four-corner", include_str!("../protocols/four-corner.toml")),
    ("age-small", include_str!("../protocols/age-small.toml")),
    ("motox-review", include_str!("../protocols/motox-review.toml")),
];

/// A protocol: its name and its ordered steps.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Protocol {
    /// The protocol's name (the results document's `protocol`).
    pub name: String,
    /// What it is for, in a sentence.
    #[serde(default)]
    pub description: String,
    /// Size of the four-corner test file (default 100 MiB, as AndroBench).
    #[serde(default)]
    pub four_corner_span: Option<String>,
    /// Bytes each random four-corner test transfers (default: the command line's --rand-io).
    #[serde(default)]
    pub four_corner_rand_io: Option<String>,
    /// Where the random writes of a four-corner run go: `overwrite` (the file the sequential
    /// test wrote; the default), `truncated` (the emptied write-test file) or `truncated-sync`
    /// (that file opened `O_SYNC | O_TRUNC`, as AndroBench 3.x does: each write returns once
    /// it and the file's metadata are durable).
    #[serde(default)]
    pub four_corner_rand_write: Option<String>,
    /// How the sequential write of a four-corner run is issued: `plain` (the default) or
    /// `sync` (its file opened `O_SYNC | O_TRUNC` and fsynced after every request, as
    /// AndroBench 3.x's `SEQ_WRITE` does: each request returns once it and the file's
    /// metadata are durable).
    #[serde(default)]
    pub four_corner_seq_write: Option<String>,
    /// How many times each test of a four-corner run runs, back to back (default 1;
    /// AndroBench 3.x runs each three times and reports the mean of the three rates).
    #[serde(default)]
    pub four_corner_repeat: Option<u32>,
    /// The read tests' own file, of this size, written first in 1 MiB `O_SYNC` records
    /// (AndroBench 3.x's `INIT_READ`); the tests then run in AndroBench's order, each write
    /// test on a truncated write file. Default: the read tests read the sequential test's file.
    #[serde(default)]
    pub four_corner_read_file: Option<String>,
    /// The steps, in order.
    #[serde(rename = "step")]
    pub steps: Vec<Step>,
}

/// One step of a protocol (`kind = "..."` in the TOML).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Step {
    /// A four-corner run: one row of the output table.
    FourCorner {
        /// The row's label.
        label: String,
    },
    /// Sequential fill files until `leave_free` is left.
    Fill {
        /// The free space to leave (a size).
        leave_free: String,
        /// `SIZE` for files of one size, or `MIN..MAX` for sizes drawn log-uniformly (as the
        /// files on a phone are: many small, a few large). Default 1 GiB.
        #[serde(default)]
        file_size: Option<String>,
    },
    /// Delete fill files picked at random until `free` bytes are free: the free space is then
    /// in holes between live files, as on a device that has been in use.
    Thin {
        /// The free space to reach (a size).
        free: String,
    },
    /// 4 KiB random writes over a new file taking the free space but `keep_free`.
    RandomWrites {
        /// The free space the file leaves (a size).
        keep_free: String,
        /// Logical passes over the file (default 1).
        #[serde(default = "one")]
        passes: f64,
        /// Requests in flight (default 1).
        #[serde(default = "one_u32")]
        iodepth: u32,
        /// Visit each block once per pass (fio's random map); by default blocks are picked
        /// uniformly with repeats, as back-to-back random writes do.
        #[serde(default)]
        random_map: bool,
        /// Delete the file at the end of the step, as a benchmark app removes its test file
        /// (trimmed only with discard): the free space is then free again, its blocks still
        /// mapped on the device. By default the file stays, a fill file like the others.
        #[serde(default)]
        delete_after: bool,
    },
    /// Delete every fill file (trimmed only with discard).
    DeleteFill,
    /// Trim the filesystem's free space.
    Fstrim,
    /// No I/O for a while (the device may collect garbage).
    Idle {
        /// How long (a duration: `24h`).
        duration: String,
    },
}

fn one() -> f64 {
    1.0
}
fn one_u32() -> u32 {
    1
}

impl Protocol {
    /// Parse a protocol; `source` names it in errors, which also name the line or step.
    pub fn from_toml(source: &str, text: &str) -> Result<Protocol, Error> {
        let err = |line: Option<usize>, place: Option<String>, message: String| Error::Protocol {
            file: source.to_string(),
            line,
            place,
            message,
        };
        let p: Protocol = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            err(line, None, e.message().trim().to_string())
        })?;
        for (field, v) in [
            ("four_corner_span", &p.four_corner_span),
            ("four_corner_rand_io", &p.four_corner_rand_io),
            ("four_corner_read_file", &p.four_corner_read_file),
        ] {
            if let Some(v) = v {
                let bytes = parse_cli_size(v).map_err(|e| err(None, Some(field.into()), e.to_string()))?;
                block_multiple(bytes).map_err(|e| err(None, Some(field.into()), e.to_string()))?;
            }
        }
        for (field, v, allowed) in [
            ("four_corner_rand_write", &p.four_corner_rand_write, &["overwrite", "truncated", "truncated-sync"][..]),
            ("four_corner_seq_write", &p.four_corner_seq_write, &["plain", "sync"][..]),
        ] {
            if let Some(v) = v.as_deref().filter(|v| !allowed.contains(v)) {
                let names = allowed.iter().map(|a| format!("'{a}'")).collect::<Vec<_>>().join(", ");
                return Err(err(None, Some(field.into()), format!("'{v}' is none of {names}")));
            }
        }
        if let Some(n) = p.four_corner_repeat {
            if !(1..=MAX_REPEAT).contains(&n) {
                return Err(err(
                    None,
                    Some("four_corner_repeat".into()),
                    format!("must be 1 to {MAX_REPEAT}, got {n}"),
                ));
            }
        }
        if p.steps.is_empty() {
            return Err(err(None, None, format!("protocol '{}' has no [[step]]", p.name)));
        }
        for (i, s) in p.steps.iter().enumerate() {
            let bad = |field: &str, e: String| err(None, Some(format!("step {} ({field})", i + 1)), e);
            match s {
                Step::Fill { leave_free, file_size } => {
                    parse_cli_size(leave_free).map_err(|e| bad("leave_free", e.to_string()))?;
                    if let Some(f) = file_size {
                        FileSizes::parse(f, 0).map_err(|e| bad("file_size", e.to_string()))?;
                    }
                }
                Step::Thin { free } => {
                    parse_cli_size(free).map_err(|e| bad("free", e.to_string()))?;
                }
                Step::RandomWrites { keep_free, passes, iodepth, .. } => {
                    parse_cli_size(keep_free).map_err(|e| bad("keep_free", e.to_string()))?;
                    if !(*passes > 0.0 && passes.is_finite()) {
                        return Err(bad("passes", format!("must be positive, got {passes}")));
                    }
                    if *iodepth == 0 {
                        return Err(bad("iodepth", "must be at least 1".into()));
                    }
                }
                Step::Idle { duration } => {
                    let ns = parse_duration_ns(duration).map_err(|e| bad("duration", e.to_string()))?;
                    if ns > MAX_IDLE_NS {
                        return Err(bad("duration", format!("{duration} is longer than 100 years")));
                    }
                }
                _ => {}
            }
        }
        Ok(p)
    }

    /// The four-corner settings this protocol asks for, over `base`.
    pub fn four_corner(&self, base: &FourCornerConfig) -> FourCornerConfig {
        let mut fc = base.clone();
        if let Some(s) = &self.four_corner_span {
            fc.span = parse_cli_size(s).expect("validated");
        }
        if let Some(s) = &self.four_corner_rand_io {
            fc.rand_io = parse_cli_size(s).expect("validated");
        }
        if let Some(s) = &self.four_corner_rand_write {
            fc.rand_write_truncated = s.starts_with("truncated");
            fc.rand_write_sync = s == "truncated-sync";
        }
        if let Some(s) = &self.four_corner_seq_write {
            fc.seq_write_sync = s == "sync";
        }
        if let Some(n) = self.four_corner_repeat {
            fc.repeats = n;
        }
        if let Some(s) = &self.four_corner_read_file {
            fc.read_file = Some(parse_cli_size(s).expect("validated"));
        }
        fc
    }

    /// A built-in protocol by name, or a protocol TOML file.
    pub fn load(spec: &str) -> Result<Protocol, Error> {
        if let Some(p) = Protocol::builtin(spec) {
            return Ok(p);
        }
        if std::path::Path::new(spec).exists() {
            let text = flashlab_jobs::limits::read_text(
                std::path::Path::new(spec),
                "protocol",
                flashlab_jobs::limits::MAX_TEXT_INPUT,
            )?;
            return Protocol::from_toml(spec, &text);
        }
        let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
        Err(Error::UnknownProtocol { name: spec.to_string(), builtin: names.join(", ") })
    }

    /// The built-in protocol `name`, if there is one.
    pub fn builtin(name: &str) -> Option<Protocol> {
        BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, t)| Protocol::from_toml(&format!("built-in protocol {n}"), t).expect("built-in protocols parse"))
    }
}

/// A step other than a four-corner run, as it happened.
#[derive(Debug, Clone, Serialize)]
pub struct StepLog {
    /// The step's number, from 1.
    pub step: usize,
    /// The step's kind (`fill`, `fstrim`).
    pub kind: String,
    /// What it did, in one line.
    pub detail: String,
    /// When the step ended, seconds since the target was set up (virtual time on a
    /// simulated system).
    pub at_s: f64,
    /// The longest one device command held a simulated device during the step, µs (none on
    /// real targets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_command_max_us: Option<f64>,
}

/// What a protocol run gave: a four-corner row per four-corner step and a log of the others.
#[derive(Debug, Clone, Serialize)]
pub struct ProtocolResult {
    /// The protocol's name.
    pub protocol: String,
    /// The four-corner rows, in order.
    pub steps: Vec<FourCorner>,
    /// The other steps, in order.
    pub log: Vec<StepLog>,
}

/// The sizes of the files a `fill` step writes: `min` to `max` bytes, log-uniform (one size
/// when they are equal), whole 4 KiB blocks, drawn from `seed`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FileSizes {
    /// The smallest file, bytes.
    pub min: u64,
    /// The largest file, bytes.
    pub max: u64,
    /// Seed of the sizes.
    pub seed: u64,
}

impl FileSizes {
    /// `SIZE` or `MIN..MAX`.
    pub fn parse(s: &str, seed: u64) -> Result<FileSizes, Error> {
        let (a, b) = s.split_once("..").unwrap_or((s, s));
        let min = block_multiple(parse_cli_size(a.trim())?)?;
        let max = block_multiple(parse_cli_size(b.trim())?)?;
        if min == 0 || max < min {
            return Err(Error::FileSizes { value: s.to_string() });
        }
        Ok(FileSizes { min, max, seed })
    }

    /// Files of `size` bytes each.
    pub fn fixed(size: u64) -> FileSizes {
        FileSizes { min: size, max: size, seed: 0 }
    }

    /// The next file's size.
    pub fn pick(&self, rng: &mut Rng) -> u64 {
        if self.min == self.max {
            return self.min;
        }
        let (lo, hi) = ((self.min as f64).ln(), (self.max as f64).ln());
        let v = (lo + rng.unit() * (hi - lo)).exp() as u64;
        (v / 4096 * 4096).clamp(self.min, self.max)
    }
}

/// A `random-writes` step, resolved: bytes to leave free, logical passes over the file, queue
/// depth, random map (each block once per pass) or uniform picks, whether the file is deleted
/// afterwards, seed.
#[derive(Debug, Clone, Copy)]
pub struct RandomWrites {
    /// Bytes of the free space the file leaves.
    pub keep_free: u64,
    /// Logical passes over the file.
    pub passes: f64,
    /// Requests in flight.
    pub iodepth: u32,
    /// Each block once per pass (fio's random map), else uniform picks with repeats.
    pub random_map: bool,
    /// Delete the file when the writes are done (a benchmark app's test file).
    pub delete_after: bool,
    /// Seed of the offsets.
    pub seed: u64,
}

/// What a protocol needs from the thing it runs on: a simulated system here, a real
/// filesystem in the real-target engines. Each step returns a one-line account of what it did.
pub trait ProtocolTarget {
    /// One four-corner run; `progress` gets (test name, fraction).
    fn four_corner(
        &mut self,
        fc: &FourCornerConfig,
        label: &str,
        progress: &mut dyn FnMut(&str, f64),
    ) -> Result<FourCorner, Error>;
    /// Write sequential fill files (of sizes drawn from `sizes`) until `leave_free` bytes are free.
    fn fill(&mut self, leave_free: u64, sizes: FileSizes, progress: &mut dyn FnMut(f64)) -> Result<String, Error>;
    /// Delete fill files picked at random (from `seed`) until `free` bytes are free.
    fn thin(&mut self, free: u64, seed: u64) -> Result<String, Error>;
    /// 4 KiB random writes over a new fill file taking all free space but `w.keep_free`
    /// (deleted afterwards if `w.delete_after`).
    fn random_writes(&mut self, w: &RandomWrites, progress: &mut dyn FnMut(f64)) -> Result<String, Error>;
    /// Delete every fill file.
    fn delete_fill(&mut self) -> Result<String, Error>;
    /// Trim the free space of the filesystem.
    fn fstrim(&mut self) -> Result<String, Error>;
    /// No I/O for `ns` nanoseconds.
    fn idle(&mut self, ns: u64, duration: &str) -> Result<String, Error>;
    /// Seconds since the protocol's target was set up (virtual or real).
    fn clock_s(&self) -> f64;
    /// The longest one device command held a simulated device since the last call, µs (what
    /// the profile's busy-time ceiling bounds); resets it. Real targets cannot see their
    /// device's commands: `None`.
    fn take_slowest_command_us(&mut self) -> Option<f64> {
        None
    }
}

/// Run a protocol; `progress` gets (step number, step count, what, fraction of the step).
pub fn run_protocol<T: ProtocolTarget + ?Sized>(
    target: &mut T,
    proto: &Protocol,
    fc: &FourCornerConfig,
    mut progress: impl FnMut(usize, usize, &str, f64),
) -> Result<ProtocolResult, Error> {
    let fc = &proto.four_corner(fc);
    let n = proto.steps.len();
    let mut out = ProtocolResult { protocol: proto.name.clone(), steps: Vec::new(), log: Vec::new() };
    for (i, step) in proto.steps.iter().enumerate() {
        let mut p = |what: &str, f: f64| progress(i + 1, n, what, f);
        target.take_slowest_command_us();
        let (kind, detail) = match step {
            Step::FourCorner { label } => {
                let mut row = target.four_corner(fc, label, &mut |what, f| p(&format!("{label}: {what}"), f))?;
                row.device_command_max_us = target.take_slowest_command_us();
                out.steps.push(row);
                continue;
            }
            Step::Fill { leave_free, file_size } => {
                let leave = parse_cli_size(leave_free).expect("validated");
                let seed = fc.seed + i as u64;
                let sizes = file_size.as_deref().map_or(FileSizes { seed, ..FileSizes::fixed(1 << 30) }, |s| {
                    FileSizes::parse(s, seed).expect("validated")
                });
                ("fill", target.fill(leave, sizes, &mut |f| p("fill", f))?)
            }
            Step::Thin { free } => ("thin", target.thin(parse_cli_size(free).expect("validated"), fc.seed + i as u64)?),
            Step::RandomWrites { keep_free, passes, iodepth, random_map, delete_after } => {
                let w = RandomWrites {
                    keep_free: parse_cli_size(keep_free).expect("validated"),
                    passes: *passes,
                    iodepth: *iodepth,
                    random_map: *random_map,
                    delete_after: *delete_after,
                    seed: fc.seed + i as u64,
                };
                ("random-writes", target.random_writes(&w, &mut |f| p("random writes", f))?)
            }
            Step::DeleteFill => ("delete-fill", target.delete_fill()?),
            Step::Fstrim => ("fstrim", target.fstrim()?),
            Step::Idle { duration } => {
                ("idle", target.idle(parse_duration_ns(duration).expect("validated"), duration)?)
            }
        };
        let device_command_max_us = target.take_slowest_command_us();
        out.log.push(StepLog { step: i + 1, kind: kind.into(), detail, at_s: target.clock_s(), device_command_max_us });
        progress(i + 1, n, "done", 1.0);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses_and_the_motox_review_has_its_published_shape() {
        for (name, _) in BUILTIN {
            assert!(Protocol::builtin(name).is_some(), "{name}");
        }
        let p = Protocol::builtin("motox-review").unwrap();
        let rows: Vec<&str> = p
            .steps
            .iter()
            .filter_map(|s| if let Step::FourCorner { label } = s { Some(label.as_str()) } else { None })
            .collect();
        // New, five after the fill, three after the delete.
        assert_eq!(rows.len(), 9, "{rows:?}");
        assert!(matches!(p.steps[1], Step::Fill { .. }));
        assert!(p.steps.iter().any(|s| matches!(s, Step::DeleteFill)));
    }
}
