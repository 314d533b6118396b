//! Device profiles: the TOML description of a simulated device (NAND geometry and timings, FTL
//! policy, host interface), parsed and validated into [`Profile`].
//!
//! The simulator core does no file I/O: callers hand in the profile's text and a name to put in
//! error messages (usually the file's path). Every error names that file and the offending field,
//! and TOML syntax errors also name the line.
//!
//! Units are in the field names (`_us`, `_mb_s` = 10^6 bytes/s, `_bytes`, `_kib`) so a profile
//! reads without a manual.

use serde::Deserialize;
use std::fmt;

/// The logical mapping unit of every FTL in flashlab: 4 KiB.
pub const MAP_UNIT: u64 = 4096;
/// Largest program unit (page size x planes) in mapping units.
pub(crate) const MAX_UNITS_PER_PAGE: u32 = 32;

/// A parsed, validated device profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Short name, e.g. `emmc-16g`.
    pub name: String,
    /// One line: what device this is.
    #[serde(default)]
    pub description: String,
    /// What the profile was calibrated against and how close it got (free text).
    #[serde(default)]
    pub calibration: String,
    /// `[nand]`: geometry and timings of the flash array.
    pub nand: NandConfig,
    /// `[ftl]`: the translation layer's mapping scheme, spare, buffer and GC policy.
    pub ftl: FtlConfig,
    /// `[host]`: the host interface and the host software stack's costs.
    pub host: HostConfig,
    /// The system the device ships in (filesystem, mount options): read by flashlab's
    /// filesystem layer; the simulator core ignores it.
    #[serde(default)]
    pub system: Option<toml::Table>,
    /// The published numbers and procedure the profile is calibrated against: read by
    /// `flashlab calibrate`; the simulator core ignores it.
    #[serde(default)]
    pub calibrate: Option<toml::Table>,
    /// `[zoned]`: the zones of a zoned device (`ftl.mapping = "zoned"`; docs/zoned.md).
    #[serde(default)]
    pub zoned: Option<ZonedConfig>,
    /// `[fdp]`: NVMe Flexible Data Placement on the page-mapped FTL ([`crate::fdp`]); the
    /// host streams become its reclaim unit handles.
    #[serde(default)]
    pub fdp: Option<crate::fdp::FdpConfig>,
}

/// `[zoned]`: a host-managed zoned device (zoned UFS, NVMe ZNS): every zone owns its own erase
/// blocks, striped over `zone_width` dies, and is written sequentially at its write pointer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZonedConfig {
    /// Dies a zone's blocks are striped over: its write and read parallelism. Divides the
    /// number of dies.
    pub zone_width: u32,
    /// Erase blocks (multi-plane) a zone holds on each of its dies.
    pub blocks_per_die: u32,
    /// Writable MiB of a zone (its capacity); default: all its blocks hold. At most that.
    #[serde(default)]
    pub zone_capacity_mib: Option<f64>,
    /// MiB of address space per zone (zone size, the distance between zone starts); default:
    /// what its blocks hold. At least the capacity.
    #[serde(default)]
    pub zone_size_mib: Option<f64>,
    /// Most zones open (implicitly or explicitly) at once.
    pub max_open_zones: u32,
    /// Most zones active (open or closed) at once; at least `max_open_zones`.
    pub max_active_zones: u32,
}

/// NAND cell type. Informational (timings are given explicitly) but shown in reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    /// One bit per cell.
    Slc,
    /// Two bits per cell.
    Mlc,
    /// Three bits per cell.
    Tlc,
    /// Four bits per cell.
    Qlc,
}

/// `[nand]`: the flash array. Dies are spread over channels; each die has its planes, each
/// plane its blocks, each block its pages.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NandConfig {
    /// Bits per cell (reports show it; the timings below are what the simulation uses).
    pub cell: CellType,
    /// NAND buses between the controller and the dies; each carries one transfer at a time.
    pub channels: u32,
    /// Dies on each channel; each die runs one operation (read, program, erase) at a time.
    pub dies_per_channel: u32,
    /// Planes per die. Planes are operated in multi-plane mode: a die reads or programs one
    /// page on every plane at once, so the program unit is `planes_per_die x page_kib`.
    pub planes_per_die: u32,
    /// Erase blocks per plane (in multi-plane mode, the FTL's blocks per die).
    pub blocks_per_plane: u32,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// NAND page size in KiB (a multiple of the 4 KiB mapping unit).
    pub page_kib: u32,
    /// Array read time tR.
    pub t_read_us: f64,
    /// Page program time tPROG.
    pub t_prog_us: f64,
    /// Block erase time tBERS.
    pub t_erase_us: f64,
    /// Channel (NAND bus) transfer rate, 10^6 bytes/s.
    pub channel_mb_s: f64,
    /// Program/erase suspension for reads (`[nand.suspend]`), where the part supports it;
    /// absent = not supported (the model is in flashsim's `suspend.rs`).
    #[serde(default)]
    pub suspend: Option<SuspendConfig>,
    /// The controller serves a die's reads before the programs and erases queued on it (they
    /// wait for the operation in progress only); false = every die runs its operations in the
    /// order they were booked. Implied by `[nand.suspend]` (the model is in flashsim's
    /// `read_priority.rs`).
    #[serde(default)]
    pub read_priority: bool,
    /// Program time by page type, lower page first (MLC: lower, upper; TLC: lower, middle,
    /// upper; QLC: four): the bits of a cell are programmed one page at a time, and each
    /// later page places the cell among more levels, which takes longer. Page `p` of a block is
    /// of type `p % n`, as the pages of a block alternate between types in program order. One
    /// entry per bit of the cell; their mean must be `t_prog_us` (within 1 %), which stays the
    /// time of the programs that land on no particular page (SLC-cache folding, map pages).
    /// Absent: every page programs in `t_prog_us`. Page-mapped FTL only.
    #[serde(default)]
    pub t_prog_page_us: Option<Vec<f64>>,
}

/// `[nand.suspend]`: a read may suspend a program or erase in progress on its die.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuspendConfig {
    /// From the suspend command to the die ready for the read (the pulse in progress ends).
    pub suspend_us: f64,
    /// Extra time the suspended operation takes when it resumes.
    pub resume_us: f64,
}

/// Garbage-collection victim policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicy {
    /// Fewest valid pages first.
    Greedy,
    /// Highest (1-u)/2u x age first (Kawaguchi et al.).
    CostBenefit,
    /// Oldest closed block first.
    Fifo,
    /// A uniformly random closed block.
    Random,
}

impl GcPolicy {
    /// Read a policy as the command line spells it: `greedy`, `cost-benefit` (or
    /// `costbenefit`, `cb`), `fifo` (or `lru`), `random`; `None` for anything else.
    pub fn parse(s: &str) -> Option<GcPolicy> {
        match s {
            "greedy" => Some(GcPolicy::Greedy),
            "cost-benefit" | "costbenefit" | "cb" => Some(GcPolicy::CostBenefit),
            "fifo" | "lru" => Some(GcPolicy::Fifo),
            "random" => Some(GcPolicy::Random),
            _ => None,
        }
    }
    /// The policy as a profile spells it (`greedy`, `cost-benefit`, `fifo`, `random`).
    pub fn name(self) -> &'static str {
        match self {
            GcPolicy::Greedy => "greedy",
            GcPolicy::CostBenefit => "cost-benefit",
            GcPolicy::Fifo => "fifo",
            GcPolicy::Random => "random",
        }
    }
}

/// Hybrid mapping: when the sequential log stops taking a run of writes (`hybrid/stream.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SequentialLog {
    /// FAST's rule: the log takes the run while it continues, whatever is written elsewhere in
    /// between; only a run starting at offset 0 of another logical block (or the block's end)
    /// closes it.
    #[default]
    Fast,
    /// The controller follows one write stream: any write elsewhere ends the run. A log whose
    /// logical block still holds data past the run is completed by copying it (a partial
    /// merge), and the run's next write goes to the random logs; a log with nothing past the
    /// run keeps its erased pages and stays open for the run to continue.
    SingleStream,
}

/// How the FTL maps logical units to NAND.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MappingKind {
    /// Page-level mapping with garbage collection (SSDs, UFS, eMMC with DRAM or a large SRAM).
    #[default]
    Page,
    /// Block-mapped data blocks plus a few page-mapped log blocks, merged when full (FAST-style;
    /// cheap DRAM-less eMMC and SD cards).
    Hybrid,
    /// Host-managed zones ([`ZonedConfig`]): written sequentially, freed by zone reset, no
    /// device-side garbage collection (zoned UFS, NVMe ZNS).
    Zoned,
}

impl MappingKind {
    /// The kind as a profile spells it (`page`, `hybrid`).
    pub fn name(self) -> &'static str {
        match self {
            MappingKind::Page => "page",
            MappingKind::Hybrid => "hybrid",
            MappingKind::Zoned => "zoned",
        }
    }
}

/// How a DRAM-less controller's mapping cache writes an evicted dirty translation page (4 KiB)
/// back to NAND.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MapWriteback {
    /// Each one programmed alone, as a whole program unit, on its own die (DFTL's model, where a
    /// translation page is a flash page).
    #[default]
    Page,
    /// Staged in SRAM and programmed a full program unit of translation pages at a time, like
    /// any data (`crate::map_log`).
    Packed,
}

/// `[ftl]`: the flash translation layer (mapping scheme, spare, write buffer, garbage
/// collection, placement).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// `page` (default), `hybrid` or `zoned`.
    #[serde(default)]
    pub mapping: MappingKind,
    /// Hybrid mapping: random-write log blocks (the sequential log is one more).
    #[serde(default)]
    pub log_blocks: u32,
    /// Hybrid mapping: most random logs the controller keeps while it has erased blocks
    /// beyond its spare area (the logical space nothing maps, as after a discard): the log area
    /// grows into them and shrinks back to `log_blocks` as the host maps them
    /// (`hybrid/area.rs`). 0 (default): `log_blocks`, a fixed log area.
    #[serde(default)]
    pub max_log_blocks: u32,
    /// Hybrid mapping: what ends a sequential run ([`SequentialLog`]): `fast` (default) or
    /// `single-stream`.
    #[serde(default)]
    pub sequential_log: SequentialLog,
    /// Page mapping on a DRAM-less controller: KiB of SRAM caching translation pages of the
    /// mapping table (DFTL); 0 (default) keeps the whole table in DRAM.
    #[serde(default)]
    pub map_cache_kib: u32,
    /// How the mapping cache writes dirty translation pages back ([`MapWriteback`]): `page`
    /// (default) or `packed`.
    #[serde(default)]
    pub map_writeback: MapWriteback,
    /// SLC write cache (UFS WriteBooster, Samsung TurboWrite): MiB of host data programmed in
    /// SLC mode (`slc_t_prog_us`) before writes fall back to the main mode (`nand.t_prog_us`);
    /// folded into the main area in idle time. 0 (default): none.
    #[serde(default)]
    pub slc_cache_mib: u32,
    /// Program time of a page in SLC mode.
    #[serde(default)]
    pub slc_t_prog_us: f64,
    /// Spare factor (physical - logical) / physical. The logical capacity is the physical
    /// capacity times (1 - spare_factor), rounded down to whole mapping units.
    pub spare_factor: f64,
    /// Controller write buffer, KiB. Must hold at least two program units per host stream.
    pub write_buffer_kib: u32,
    /// A volatile buffer is drained to NAND by FLUSH; a power-loss-protected one is not.
    #[serde(default = "default_true")]
    pub write_buffer_volatile: bool,
    /// How garbage collection picks its victim block (page mapping); default greedy. A zoned
    /// device has no device-side GC and ignores it and the two below.
    #[serde(default = "default_gc_policy")]
    pub gc_policy: GcPolicy,
    /// Foreground GC runs on a die when its free blocks fall below this; default 2.
    #[serde(default = "default_two")]
    pub gc_min_free_blocks: u32,
    /// Background GC in idle time reclaims until a die has this many free blocks; default 2.
    #[serde(default = "default_two")]
    pub bg_gc_target_free_blocks: u32,
    /// The device counts as idle this long after its last command completed.
    pub idle_delay_ms: f64,
    /// Host write streams (write frontiers). Requests carry a stream number below this.
    #[serde(default = "default_one")]
    pub host_streams: u32,
    /// GC copies go to their own frontier (true) or share host stream 0's (false).
    #[serde(default = "default_true")]
    pub separate_gc_frontier: bool,
    /// Most NAND pages that foreground garbage collection (page mapping) or log-block merges
    /// (hybrid mapping) copy while serving one host write command: controllers spread that work
    /// over the commands (incremental GC, partial merges) instead of stalling one command for a
    /// whole block. Default: one block's pages ([`Profile::gc_pages_per_command`]).
    #[serde(default)]
    pub gc_pages_per_command: Option<u32>,
    /// The device's busy-time ceiling, ms: a command's device time (its own data plus the GC
    /// it carries) stops taking on GC work at this bound. Default by interface class
    /// ([`Profile::busy_ceiling_ms`]).
    #[serde(default)]
    pub busy_ceiling_ms: Option<f64>,
    /// Placement by data temperature ([`crate::temperature`]): `off` (default), `hint` (the
    /// host's stream number) or `detect` (the device's update-frequency detector).
    #[serde(default)]
    pub temperature: crate::temperature::TemperatureMode,
    /// With temperature on: GC copies go to a hot or a cold GC frontier by the unit's
    /// temperature (default false: one GC frontier).
    #[serde(default)]
    pub gc_by_temperature: bool,
}

/// Host interface kind: decides the command queue and whether the bus is full duplex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Interface {
    /// eMMC without command queue: one command at a time (eMMC 4.41/4.5/5.0).
    Emmc,
    /// eMMC 5.1 command queue: 32 tasks.
    EmmcCq,
    /// UFS: 32 request slots, full-duplex M-PHY lanes.
    Ufs,
    /// NVMe: deep queues, full-duplex PCIe.
    Nvme,
}

impl Interface {
    /// Commands the device accepts at once when the profile does not say.
    pub(crate) fn default_queue_depth(self) -> u32 {
        match self {
            Interface::Emmc => 1,
            Interface::EmmcCq | Interface::Ufs => 32,
            Interface::Nvme => 1024,
        }
    }
    /// Reads and writes move on the bus at the same time (separate lanes each way).
    pub(crate) fn full_duplex(self) -> bool {
        matches!(self, Interface::Ufs | Interface::Nvme)
    }
    /// The interface as a profile spells it (`emmc`, `emmc-cq`, `ufs`, `nvme`).
    pub fn name(self) -> &'static str {
        match self {
            Interface::Emmc => "emmc",
            Interface::EmmcCq => "emmc-cq",
            Interface::Ufs => "ufs",
            Interface::Nvme => "nvme",
        }
    }
}

/// `[host]`: the host interface and the host software stack's cost per request.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// The interface standard: sets the command queue and whether the bus is full duplex.
    pub interface: Interface,
    /// Commands the device accepts at once; defaults to the interface's (1, 32, 32, 1024).
    #[serde(default)]
    pub queue_depth: Option<u32>,
    /// Host bus bandwidth, 10^6 bytes/s (eMMC HS400: 400).
    pub bus_mb_s: f64,
    /// Controller time per command (firmware), serialised on the controller.
    pub command_overhead_us: f64,
    /// Host software stack cost per request before the command reaches the device.
    pub host_submit_us: f64,
    /// Host software stack cost per request after the device completes it.
    pub host_complete_us: f64,
    /// Controller time per mapping unit of a TRIM (unmap bookkeeping).
    #[serde(default)]
    pub trim_us_per_mib: f64,
    /// The spread of the host stack's cost: `[[q, factor], ...]`, the quantile function of the
    /// factor each request's `host_submit_us` and `host_complete_us` are multiplied by (one draw
    /// per request for both, linear between the points, flat past the first and last), with
    /// quantiles `q` rising in [0, 1] and factors rising and positive. A measured distribution
    /// divided by its median (factor 1 at q = 0.5) keeps the profile's costs as the medians.
    /// Absent: every request costs exactly `host_submit_us` and `host_complete_us`.
    #[serde(default)]
    pub host_jitter: Option<Vec<[f64; 2]>>,
}

fn default_true() -> bool {
    true
}
fn default_one() -> u32 {
    1
}
fn default_two() -> u32 {
    2
}
fn default_gc_policy() -> GcPolicy {
    GcPolicy::Greedy
}

/// A profile that could not be read: names the source, the field, and for syntax errors the line.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileError {
    /// The profile's name or path.
    pub source: String,
    /// The line of a TOML syntax error.
    pub line: Option<usize>,
    /// The field whose value is wrong.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.source)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "field '{field}': ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for ProfileError {}

impl Profile {
    /// Parse and validate a profile from TOML text; `source` names it in errors.
    pub fn from_toml(source: &str, text: &str) -> Result<Profile, ProfileError> {
        let profile: Profile = toml::from_str(text).map_err(|e| {
            let start = e.span().map(|s| s.start.min(text.len()));
            let line = start.map(|s| text[..s].matches('\n').count() + 1);
            // Name the key written on that line, when there is one.
            let field = start.and_then(|s| {
                let line_text = text[..s].rsplit('\n').next().unwrap_or("").to_string()
                    + text[s..].split('\n').next().unwrap_or("");
                let key = line_text.split_once('=')?.0.trim();
                (!key.is_empty() && !key.starts_with('[') && !key.starts_with('#')).then(|| key.to_string())
            });
            ProfileError { source: source.to_string(), line, field, message: e.message().trim().to_string() }
        })?;
        let mut profile = profile;
        // With FDP the host write frontiers are the reclaim unit handles: `host_streams` left
        // out (1) takes their number; any other value must agree (checked by `validate`).
        if let Some(fdp) = &profile.fdp {
            if profile.ftl.host_streams == 1 {
                profile.ftl.host_streams = fdp.handles;
            }
        }
        profile.validate(source)?;
        Ok(profile)
    }

    /// Check every field's range and the relations between fields.
    pub fn validate(&self, source: &str) -> Result<(), ProfileError> {
        let err = |field: &str, message: String| ProfileError {
            source: source.to_string(),
            line: None,
            field: Some(field.to_string()),
            message,
        };
        let n = &self.nand;
        let positive_int = [
            ("nand.channels", n.channels),
            ("nand.dies_per_channel", n.dies_per_channel),
            ("nand.planes_per_die", n.planes_per_die),
            ("nand.blocks_per_plane", n.blocks_per_plane),
            ("nand.pages_per_block", n.pages_per_block),
            ("nand.page_kib", n.page_kib),
        ];
        // Upper bounds keep every product below u32/u64 overflow (a device of at most 2^31
        // units is checked below).
        let limits = [64, 64, 16, 1 << 20, 1 << 16, 64];
        for ((field, v), max) in positive_int.into_iter().zip(limits) {
            if v == 0 || v > max {
                return Err(err(field, format!("must be 1..={max}, got {v}")));
            }
        }
        if !n.page_kib.is_multiple_of(4) {
            return Err(err("nand.page_kib", format!("{} is not a multiple of the 4 KiB mapping unit", n.page_kib)));
        }
        let upp = n.page_kib / 4 * n.planes_per_die;
        if upp > MAX_UNITS_PER_PAGE {
            return Err(err(
                "nand.page_kib",
                format!(
                    "page_kib x planes_per_die = {} KiB exceeds the largest program unit, {} KiB",
                    upp * 4,
                    MAX_UNITS_PER_PAGE * 4
                ),
            ));
        }
        let positive_f = [
            ("nand.t_read_us", n.t_read_us),
            ("nand.t_prog_us", n.t_prog_us),
            ("nand.t_erase_us", n.t_erase_us),
            ("nand.channel_mb_s", n.channel_mb_s),
            ("host.bus_mb_s", self.host.bus_mb_s),
        ];
        // Times up to 1000 s and rates from 0.001 MB/s keep every duration far from u64 overflow.
        for (field, v) in positive_f {
            let ok = if field.ends_with("_us") { v > 0.0 && v <= 1e9 } else { (1e-3..=1e7).contains(&v) };
            if !(v.is_finite() && ok) {
                let range = if field.ends_with("_us") { "(0, 1e9] us" } else { "[0.001, 1e7] MB/s" };
                return Err(err(field, format!("must be in {range}, got {v}")));
            }
        }
        if let Some(types) = &n.t_prog_page_us {
            let bits = match n.cell {
                CellType::Slc => 1,
                CellType::Mlc => 2,
                CellType::Tlc => 3,
                CellType::Qlc => 4,
            };
            if types.len() != bits || bits < 2 {
                return Err(err(
                    "nand.t_prog_page_us",
                    format!(
                        "needs one program time per bit of the cell ({bits} for {:?}), got {}",
                        n.cell,
                        types.len()
                    ),
                ));
            }
            if let Some(v) = types.iter().find(|v| !(v.is_finite() && **v > 0.0 && **v <= 1e9)) {
                return Err(err("nand.t_prog_page_us", format!("every time must be in (0, 1e9] us, got {v}")));
            }
            let mean = types.iter().sum::<f64>() / bits as f64;
            if (mean - n.t_prog_us).abs() > 0.01 * n.t_prog_us {
                return Err(err(
                    "nand.t_prog_page_us",
                    format!("the page types' mean ({mean:.1} us) must be nand.t_prog_us ({}) within 1 %", n.t_prog_us),
                ));
            }
            if self.ftl.mapping != MappingKind::Page {
                return Err(err(
                    "nand.t_prog_page_us",
                    "is modelled for the page-mapped FTL only (ftl.mapping = \"page\")".into(),
                ));
            }
        }
        if let Some(sus) = &n.suspend {
            for (field, v) in [("nand.suspend.suspend_us", sus.suspend_us), ("nand.suspend.resume_us", sus.resume_us)] {
                if !(v.is_finite() && (0.0..=1e9).contains(&v)) {
                    return Err(err(field, format!("must be in [0, 1e9] us, got {v}")));
                }
            }
        }
        let non_negative = [
            ("host.command_overhead_us", self.host.command_overhead_us),
            ("host.host_submit_us", self.host.host_submit_us),
            ("host.host_complete_us", self.host.host_complete_us),
            ("host.trim_us_per_mib", self.host.trim_us_per_mib),
            ("ftl.idle_delay_ms", self.ftl.idle_delay_ms),
        ];
        for (field, v) in non_negative {
            if !(v.is_finite() && (0.0..=1e9).contains(&v)) {
                return Err(err(field, format!("must be in [0, 1e9], got {v}")));
            }
        }
        if let Some(points) = &self.host.host_jitter {
            let ok = !points.is_empty()
                && points.iter().all(|&[q, f]| (0.0..=1.0).contains(&q) && f.is_finite() && f > 0.0 && f <= 1e4)
                && points.windows(2).all(|w| w[0][0] < w[1][0] && w[0][1] <= w[1][1]);
            if !ok {
                return Err(err(
                    "host.host_jitter",
                    "needs [[q, factor], ...] with quantiles rising in [0, 1] and factors rising in (0, 1e4]".into(),
                ));
            }
        }
        let units_per_block = u64::from(upp) * u64::from(n.pages_per_block);
        let total_units = units_per_block * u64::from(n.blocks_per_plane) * u64::from(n.channels * n.dies_per_channel);
        if total_units >= u64::from(u32::MAX >> 1) {
            return Err(err("nand.blocks_per_plane", "device too large: at most 2^31 mapping units (8 TiB)".into()));
        }
        let f = &self.ftl;
        if !(f.spare_factor.is_finite() && f.spare_factor > 0.0 && f.spare_factor < 0.9) {
            return Err(err("ftl.spare_factor", format!("must be in (0, 0.9), got {}", f.spare_factor)));
        }
        self.validate_fdp(&err)?;
        if f.mapping == MappingKind::Zoned {
            self.validate_zoned(&err)?;
            return self.validate_host_limits(&err);
        }
        if self.zoned.is_some() {
            return Err(err("zoned", "a [zoned] table needs ftl.mapping = \"zoned\"".into()));
        }
        if f.host_streams == 0 || f.host_streams > 8 {
            return Err(err("ftl.host_streams", format!("must be 1..=8, got {}", f.host_streams)));
        }
        if f.gc_min_free_blocks < 1 {
            return Err(err("ftl.gc_min_free_blocks", "must be at least 1".into()));
        }
        if f.bg_gc_target_free_blocks < f.gc_min_free_blocks {
            return Err(err(
                "ftl.bg_gc_target_free_blocks",
                format!("must be at least gc_min_free_blocks ({})", f.gc_min_free_blocks),
            ));
        }
        let min_buffer_units = 2 * upp * (f.host_streams + 1);
        if f.write_buffer_kib / 4 < min_buffer_units {
            return Err(err(
                "ftl.write_buffer_kib",
                format!("must hold at least two program units per host stream plus two: {} KiB", min_buffer_units * 4),
            ));
        }
        // Each die needs room for its open blocks, the GC reserve and at least one block of
        // slack beyond the logical data, or GC cannot make progress.
        let blocks_per_die = u64::from(n.blocks_per_plane);
        if f.gc_by_temperature && f.temperature == crate::temperature::TemperatureMode::Off {
            return Err(err("ftl.gc_by_temperature", "needs ftl.temperature = \"hint\" or \"detect\"".into()));
        }
        let frontiers = u64::from(self.frontiers());
        let reserved = frontiers + u64::from(f.bg_gc_target_free_blocks) + 1;
        if reserved >= blocks_per_die {
            return Err(err(
                "nand.blocks_per_plane",
                format!("{blocks_per_die} blocks per die cannot hold {reserved} reserved blocks (open frontiers + GC target + 1)"),
            ));
        }
        let spare_blocks = (blocks_per_die as f64 * f.spare_factor).floor() as u64;
        if spare_blocks < frontiers + u64::from(f.gc_min_free_blocks) + 1 {
            return Err(err(
                "ftl.spare_factor",
                format!(
                    "{} leaves {spare_blocks} spare blocks per die; at least {} are needed (open frontiers + gc_min_free_blocks + 1)",
                    f.spare_factor,
                    frontiers + u64::from(f.gc_min_free_blocks) + 1
                ),
            ));
        }
        // Idle-time GC aims for free blocks the spare can provide; a target beyond it would
        // have GC compact nearly-valid blocks forever in every idle period.
        if u64::from(f.bg_gc_target_free_blocks) + frontiers > spare_blocks {
            return Err(err(
                "ftl.bg_gc_target_free_blocks",
                format!(
                    "{} free blocks per die is more than the spare can hold: {spare_blocks} spare blocks per die less {frontiers} open frontiers",
                    f.bg_gc_target_free_blocks
                ),
            ));
        }
        if f.temperature != crate::temperature::TemperatureMode::Off {
            if f.mapping != MappingKind::Page {
                return Err(err("ftl.temperature", "placement by temperature needs the page-mapped FTL".into()));
            }
            if f.host_streams < 2 || !f.separate_gc_frontier {
                return Err(err(
                    "ftl.temperature",
                    "placement by temperature needs host_streams >= 2 (cold, hot) and separate_gc_frontier = true"
                        .into(),
                ));
            }
        }
        if f.mapping == MappingKind::Hybrid {
            if f.log_blocks == 0 || f.log_blocks > 4096 {
                return Err(err(
                    "ftl.log_blocks",
                    format!("a hybrid FTL needs 1..=4096 log blocks, got {}", f.log_blocks),
                ));
            }
            if f.max_log_blocks != 0 && (f.max_log_blocks < f.log_blocks || f.max_log_blocks > 4096) {
                return Err(err(
                    "ftl.max_log_blocks",
                    format!(
                        "must be 0 (fixed log area) or in {}..=4096 (at least log_blocks), got {}",
                        f.log_blocks, f.max_log_blocks
                    ),
                ));
            }
            if f.host_streams != 1 {
                return Err(err("ftl.host_streams", "a hybrid FTL has one host stream".into()));
            }
            if total_units >= 1 << 30 {
                return Err(err("nand.blocks_per_plane", "hybrid device too large: at most 2^30 mapping units".into()));
            }
            let blocks = u64::from(n.blocks_per_plane) * u64::from(n.channels * n.dies_per_channel);
            let spare = blocks - (blocks as f64 * (1.0 - f.spare_factor)).floor() as u64;
            if spare < u64::from(f.log_blocks) + 3 {
                return Err(err(
                    "ftl.spare_factor",
                    format!(
                        "{} leaves {spare} spare blocks; a hybrid FTL with {} log blocks needs {} (logs + sequential log + merge target + 1)",
                        f.spare_factor,
                        f.log_blocks,
                        f.log_blocks + 3
                    ),
                ));
            }
            if f.map_cache_kib != 0 {
                return Err(err(
                    "ftl.map_cache_kib",
                    "a hybrid FTL maps data blocks whole: it has no page-mapping cache".into(),
                ));
            }
        } else if f.log_blocks != 0 || f.max_log_blocks != 0 {
            let field = if f.log_blocks != 0 { "ftl.log_blocks" } else { "ftl.max_log_blocks" };
            return Err(err(field, "only a hybrid FTL (mapping = \"hybrid\") has log blocks".into()));
        } else if f.sequential_log != SequentialLog::Fast {
            return Err(err(
                "ftl.sequential_log",
                "only a hybrid FTL (mapping = \"hybrid\") has a sequential log".into(),
            ));
        }
        if f.slc_cache_mib != 0 {
            if f.mapping == MappingKind::Hybrid {
                return Err(err("ftl.slc_cache_mib", "the SLC cache is modelled for page mapping only".into()));
            }
            if !(f.slc_t_prog_us.is_finite() && f.slc_t_prog_us > 0.0 && f.slc_t_prog_us <= n.t_prog_us) {
                return Err(err(
                    "ftl.slc_t_prog_us",
                    format!("must be in (0, nand.t_prog_us = {}], got {}", n.t_prog_us, f.slc_t_prog_us),
                ));
            }
            if u64::from(f.slc_cache_mib) * 256 > total_units / 2 {
                return Err(err("ftl.slc_cache_mib", "larger than half the device".into()));
            }
        }
        if f.map_cache_kib == 0 && f.map_writeback != MapWriteback::Page {
            return Err(err("ftl.map_writeback", "needs a mapping cache (ftl.map_cache_kib > 0)".into()));
        }
        if f.map_cache_kib != 0 && (f.map_cache_kib < 4 || f.map_cache_kib > 1 << 20) {
            return Err(err("ftl.map_cache_kib", format!("must be 0 or 4..=1048576 KiB, got {}", f.map_cache_kib)));
        }
        if self.ftl.gc_pages_per_command == Some(0) {
            return Err(err("ftl.gc_pages_per_command", "must be at least 1".into()));
        }
        self.validate_host_limits(&err)
    }

    /// Write frontiers of the page-mapped FTL: the host streams (with FDP, its reclaim unit
    /// handles), then GC's: its own unless it shares stream 0's, a second one for hot data with
    /// `gc_by_temperature`; with FDP one shared by the initially isolated handles and one per
    /// persistently isolated handle.
    pub(crate) fn frontiers(&self) -> u32 {
        let f = &self.ftl;
        f.host_streams
            + match &self.fdp {
                Some(fdp) => fdp.gc_frontiers(),
                None => u32::from(f.separate_gc_frontier) + u32::from(f.gc_by_temperature),
            }
    }

    /// The checks of `[fdp]` and of how it fits the FTL (nothing without it).
    fn validate_fdp(&self, err: &dyn Fn(&str, String) -> ProfileError) -> Result<(), ProfileError> {
        let Some(fdp) = &self.fdp else { return Ok(()) };
        let f = &self.ftl;
        if f.mapping != MappingKind::Page {
            return Err(err(
                "fdp",
                "Flexible Data Placement is modelled on the page-mapped FTL (ftl.mapping = \"page\")".into(),
            ));
        }
        fdp.check().map_err(|(field, m)| err(field, m))?;
        if f.host_streams != fdp.handles {
            return Err(err(
                "ftl.host_streams",
                format!(
                    "with [fdp] the host write frontiers are the reclaim unit handles: leave it out or set it to fdp.handles ({}), got {}",
                    fdp.handles, f.host_streams
                ),
            ));
        }
        if !f.separate_gc_frontier {
            return Err(err(
                "ftl.separate_gc_frontier",
                "must be true with [fdp]: GC copies never go into a handle's host reclaim unit".into(),
            ));
        }
        if f.temperature != crate::temperature::TemperatureMode::Off || f.gc_by_temperature {
            let field = if f.gc_by_temperature { "ftl.gc_by_temperature" } else { "ftl.temperature" };
            return Err(err(field, "placement by temperature and [fdp] both choose frontiers: use one".into()));
        }
        Ok(())
    }

    /// The checks every mapping kind shares at the end: busy ceiling and queue depth.
    fn validate_host_limits(&self, err: &dyn Fn(&str, String) -> ProfileError) -> Result<(), ProfileError> {
        if let Some(c) = self.ftl.busy_ceiling_ms {
            if !(c.is_finite() && c > 0.0 && c <= 1e6) {
                return Err(err("ftl.busy_ceiling_ms", format!("must be in (0, 1e6] ms, got {c}")));
            }
        }
        if let Some(q) = self.host.queue_depth {
            if q == 0 || q > 65536 {
                return Err(err("host.queue_depth", format!("must be 1..=65536, got {q}")));
            }
        }
        Ok(())
    }

    /// The zoned mapping's checks (`[zoned]` and the `[ftl]` fields that apply to it).
    fn validate_zoned(&self, err: &dyn Fn(&str, String) -> ProfileError) -> Result<(), ProfileError> {
        let Some(z) = &self.zoned else {
            return Err(err("zoned", "ftl.mapping = \"zoned\" needs a [zoned] table".into()));
        };
        let f = &self.ftl;
        let n = &self.nand;
        let dies = n.channels * n.dies_per_channel;
        let not_for_zoned = [
            ("ftl.map_cache_kib", f.map_cache_kib != 0),
            ("ftl.slc_cache_mib", f.slc_cache_mib != 0),
            ("ftl.host_streams", f.host_streams != 1),
            ("ftl.temperature", f.temperature != crate::temperature::TemperatureMode::Off),
            ("ftl.gc_by_temperature", f.gc_by_temperature),
            ("ftl.log_blocks", f.log_blocks != 0 || f.max_log_blocks != 0),
            ("ftl.gc_pages_per_command", f.gc_pages_per_command.is_some()),
        ];
        for (field, set) in not_for_zoned {
            if set {
                return Err(err(
                    field,
                    "does not apply to a zoned device (one zone table, no mapping cache, SLC cache, streams or GC); leave it out".into(),
                ));
            }
        }
        if z.zone_width == 0 || !dies.is_multiple_of(z.zone_width) {
            return Err(err(
                "zoned.zone_width",
                format!("must divide the {dies} dies (channels x dies_per_channel), got {}", z.zone_width),
            ));
        }
        let reserved = self.zone_reserved_blocks();
        if z.blocks_per_die == 0 || z.blocks_per_die + reserved > n.blocks_per_plane {
            return Err(err(
                "zoned.blocks_per_die",
                format!(
                    "must be 1..={} (blocks per die less the {reserved} spare of ftl.spare_factor), got {}",
                    n.blocks_per_plane.saturating_sub(reserved),
                    z.blocks_per_die
                ),
            ));
        }
        let physical_mib = self.zone_physical_units() as f64 / 256.0;
        let mib_field = |field: &str, v: Option<f64>, lo: f64, hi: f64| -> Result<(), ProfileError> {
            if let Some(v) = v {
                if !(v.is_finite() && v >= lo && v <= hi && (v * 256.0).fract() == 0.0) {
                    return Err(err(
                        field,
                        format!("must be a whole number of 4 KiB blocks in [{lo}, {hi}] MiB, got {v}"),
                    ));
                }
            }
            Ok(())
        };
        mib_field("zoned.zone_capacity_mib", z.zone_capacity_mib, 1.0 / 256.0, physical_mib)?;
        let cap_mib = self.zone_capacity_units() as f64 / 256.0;
        mib_field("zoned.zone_size_mib", z.zone_size_mib, cap_mib, 1024.0 * 1024.0)?;
        let units = u64::from(self.zone_size_units()) * u64::from(dies / z.zone_width) * u64::from(self.zone_slots());
        if units >= u64::from(u32::MAX >> 1) {
            return Err(err(
                "zoned.zone_size_mib",
                "the zones' address space is too large: at most 2^31 blocks of 4 KiB".into(),
            ));
        }
        let zones = (dies / z.zone_width) * self.zone_slots();
        if z.max_open_zones == 0 || z.max_open_zones > zones {
            return Err(err(
                "zoned.max_open_zones",
                format!("must be 1..={zones} (the zones), got {}", z.max_open_zones),
            ));
        }
        if z.max_active_zones < z.max_open_zones || z.max_active_zones > zones {
            return Err(err(
                "zoned.max_active_zones",
                format!(
                    "must be in {}..={zones} (at least max_open_zones), got {}",
                    z.max_open_zones, z.max_active_zones
                ),
            ));
        }
        let upp = self.units_per_page();
        let need = (z.max_active_zones + 1) * upp;
        if f.write_buffer_kib / 4 < need {
            return Err(err(
                "ftl.write_buffer_kib",
                format!(
                    "must hold a partial program unit of every active zone plus one: {} KiB ({} active zones x {} KiB + {} KiB)",
                    need * 4,
                    z.max_active_zones,
                    upp * 4,
                    upp * 4
                ),
            ));
        }
        if f.write_buffer_volatile && n.pages_per_block < z.max_active_zones {
            return Err(err(
                "nand.pages_per_block",
                "a volatile buffer stages partial pages in one spare block per die: it needs at least max_active_zones pages".into(),
            ));
        }
        Ok(())
    }

    /// Zoned mapping: blocks per die kept out of the zones (`ftl.spare_factor` of them, at
    /// least one: the staging block).
    pub(crate) fn zone_reserved_blocks(&self) -> u32 {
        ((f64::from(self.nand.blocks_per_plane) * self.ftl.spare_factor).ceil() as u32).max(1)
    }

    /// Zoned mapping: zones per die group.
    pub(crate) fn zone_slots(&self) -> u32 {
        let z = self.zoned.as_ref().expect("zoned profile");
        (self.nand.blocks_per_plane - self.zone_reserved_blocks()) / z.blocks_per_die
    }

    /// Zoned mapping: 4 KiB units a zone's blocks hold.
    pub(crate) fn zone_physical_units(&self) -> u32 {
        let z = self.zoned.as_ref().expect("zoned profile");
        z.zone_width * z.blocks_per_die * self.units_per_page() * self.nand.pages_per_block
    }

    /// Zoned mapping: writable 4 KiB units per zone.
    pub(crate) fn zone_capacity_units(&self) -> u32 {
        let z = self.zoned.as_ref().expect("zoned profile");
        z.zone_capacity_mib.map_or(self.zone_physical_units(), |m| (m * 256.0) as u32)
    }

    /// Zoned mapping: 4 KiB units of address space per zone.
    pub(crate) fn zone_size_units(&self) -> u32 {
        let z = self.zoned.as_ref().expect("zoned profile");
        z.zone_size_mib.map_or(self.zone_physical_units(), |m| (m * 256.0) as u32).max(self.zone_capacity_units())
    }

    /// Units (4 KiB) per program unit: page size x planes.
    pub fn units_per_page(&self) -> u32 {
        self.nand.page_kib / 4 * self.nand.planes_per_die
    }

    /// Commands the device accepts at once: `host.queue_depth`, or the interface's default.
    pub fn queue_depth(&self) -> u32 {
        self.host.queue_depth.unwrap_or_else(|| self.host.interface.default_queue_depth())
    }

    /// `ftl.gc_pages_per_command`, or one block's pages when the profile does not say: a
    /// controller then does at most one partial merge's worth of copying per command.
    pub fn gc_pages_per_command(&self) -> u32 {
        self.ftl.gc_pages_per_command.unwrap_or(self.nand.pages_per_block)
    }

    /// `ftl.busy_ceiling_ms`, or the interface class's write timeout when the profile does not
    /// say: eMMC and SD 250 ms (the SD Physical Layer Simplified Specification 4.10, section
    /// 4.6.2.2, gives 250 ms for a write's busy time of SDSC/SDHC cards; MultiMediaCard
    /// timeouts are 10x the typical program time of the CSD's TAAC x R2W_FACTOR and the same
    /// order); UFS and NVMe define no per-command write timeout, so the ceiling is the host's
    /// I/O timeout, 30 s (Linux `sd` and `nvme` defaults).
    pub fn busy_ceiling_ms(&self) -> f64 {
        self.ftl.busy_ceiling_ms.unwrap_or(match self.host.interface {
            Interface::Emmc | Interface::EmmcCq => 250.0,
            Interface::Ufs | Interface::Nvme => 30_000.0,
        })
    }
}

/// The device of the classic write-amplification experiment (`flashlab sim waf`): one channel,
/// one die, one plane, 4 KiB pages (one mapping unit per page), GC keeping at least two free
/// blocks and sharing the host's write frontier, as the analytical models assume. Errors name
/// the profile fields (`nand.blocks_per_plane`, `nand.pages_per_block`, `ftl.spare_factor`).
pub fn single_die(
    blocks: u32,
    pages_per_block: u32,
    spare_factor: f64,
    policy: GcPolicy,
) -> Result<Profile, ProfileError> {
    let text = format!(
        r#"
name = "single-die"
description = "single-die device with 4 KiB pages, for the write-amplification experiment"
[nand]
cell = "mlc"
channels = 1
dies_per_channel = 1
planes_per_die = 1
blocks_per_plane = {blocks}
pages_per_block = {pages_per_block}
page_kib = 4
t_read_us = 50
t_prog_us = 600
t_erase_us = 3000
channel_mb_s = 200
[ftl]
spare_factor = {spare_factor}
write_buffer_kib = 16
gc_policy = "{policy}"
gc_min_free_blocks = 2
bg_gc_target_free_blocks = 2
idle_delay_ms = 1000
separate_gc_frontier = false
[host]
interface = "nvme"
bus_mb_s = 1000
command_overhead_us = 5
host_submit_us = 0
host_complete_us = 0
"#,
        policy = policy.name(),
    );
    Profile::from_toml("single-die device", &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const TOY: &str = crate::builtin::TOY;

    #[test]
    fn toy_profile_parses() {
        let p = Profile::from_toml("toy.toml", TOY).unwrap();
        assert_eq!(p.name, "toy");
    }

    #[test]
    fn syntax_error_names_line() {
        let bad = TOY.replacen("channels = ", "channels = = ", 1);
        let e = Profile::from_toml("toy.toml", &bad).unwrap_err();
        assert!(e.line.is_some(), "{e}");
        assert!(e.to_string().starts_with("toy.toml:"), "{e}");
    }

    #[test]
    fn unknown_field_is_named() {
        let bad = TOY.replacen("[nand]", "[nand]\nbogus = 3", 1);
        let e = Profile::from_toml("toy.toml", &bad).unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
    }

    #[test]
    fn bad_value_names_field() {
        let bad = TOY.replacen("spare_factor = ", "spare_factor = 0.95 #", 1);
        let e = Profile::from_toml("toy.toml", &bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("ftl.spare_factor"), "{e}");
        let bad = TOY.replacen("page_kib = ", "page_kib = 6 #", 1);
        let e = Profile::from_toml("toy.toml", &bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("nand.page_kib"), "{e}");
    }
}
