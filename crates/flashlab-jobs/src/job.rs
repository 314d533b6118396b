//! The job model: one fio-style job (what I/O to do, how much, how deep, how long), with
//! fio's defaults. Job files ([`crate::parse`]) and built-in suites produce these; the engine
//! runs them.

use serde::{Deserialize, Serialize};

use crate::blocksize::BlockSizesPerDir;
use crate::distribution::{Distribution, PercentageRandom};
use crate::units::{SizeSpec, KB_BASE_DEFAULT};

/// fio's default `percentile_list` (completion-latency percentiles reported).
pub const FIO_DEFAULT_PERCENTILES: [f64; 17] =
    [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];

/// fio's `rw` (alias `readwrite`): the I/O pattern of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Rw {
    /// `read`: sequential reads.
    #[default]
    #[serde(rename = "read")]
    Read,
    /// `write`: sequential writes.
    #[serde(rename = "write")]
    Write,
    /// `randread`: random reads.
    #[serde(rename = "randread")]
    RandRead,
    /// `randwrite`: random writes.
    #[serde(rename = "randwrite")]
    RandWrite,
    /// `rw` / `readwrite`: sequential mixed reads and writes (`rwmixread` % reads).
    #[serde(rename = "rw")]
    ReadWrite,
    /// `randrw`: random mixed reads and writes (`rwmixread` % reads).
    #[serde(rename = "randrw")]
    RandRw,
    /// `trim`: sequential trims (discards).
    #[serde(rename = "trim")]
    Trim,
    /// `randtrim`: random trims.
    #[serde(rename = "randtrim")]
    RandTrim,
    /// `trimwrite`: sequential trim+write sequences: each block is trimmed, then written.
    #[serde(rename = "trimwrite")]
    TrimWrite,
}

impl Rw {
    /// All patterns, in fio's order.
    pub const ALL: [Rw; 9] = [
        Rw::Read,
        Rw::Write,
        Rw::Trim,
        Rw::RandRead,
        Rw::RandWrite,
        Rw::RandTrim,
        Rw::ReadWrite,
        Rw::RandRw,
        Rw::TrimWrite,
    ];

    /// Reads fio's spelling (`read`, `randwrite`, `rw`, `readwrite`, `randrw`, ...).
    /// Case-sensitive, as fio is.
    pub fn from_fio(s: &str) -> Option<Rw> {
        Some(match s {
            "read" => Rw::Read,
            "write" => Rw::Write,
            "randread" => Rw::RandRead,
            "randwrite" => Rw::RandWrite,
            "rw" | "readwrite" => Rw::ReadWrite,
            "randrw" => Rw::RandRw,
            "trim" => Rw::Trim,
            "randtrim" => Rw::RandTrim,
            "trimwrite" => Rw::TrimWrite,
            _ => return None,
        })
    }

    /// fio's name for this pattern (`rw` for [`Rw::ReadWrite`]).
    pub fn fio_name(self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::RandRead => "randread",
            Rw::RandWrite => "randwrite",
            Rw::ReadWrite => "rw",
            Rw::RandRw => "randrw",
            Rw::Trim => "trim",
            Rw::RandTrim => "randtrim",
            Rw::TrimWrite => "trimwrite",
        }
    }

    /// Random offsets (as opposed to sequential).
    pub fn is_random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite | Rw::RandRw | Rw::RandTrim)
    }

    /// Issues reads.
    pub fn has_reads(self) -> bool {
        matches!(self, Rw::Read | Rw::RandRead | Rw::ReadWrite | Rw::RandRw)
    }

    /// Issues writes.
    pub fn has_writes(self) -> bool {
        matches!(self, Rw::Write | Rw::RandWrite | Rw::ReadWrite | Rw::RandRw | Rw::TrimWrite)
    }

    /// Issues trims (discards).
    pub fn has_trims(self) -> bool {
        matches!(self, Rw::Trim | Rw::RandTrim | Rw::TrimWrite)
    }

    /// Mixes reads and writes according to `rwmixread`.
    pub fn is_mixed(self) -> bool {
        matches!(self, Rw::ReadWrite | Rw::RandRw)
    }

    /// The directions this pattern issues.
    pub fn directions(self) -> Vec<IoDir> {
        let mut v = Vec::with_capacity(2);
        if self.has_reads() {
            v.push(IoDir::Read);
        }
        if self.has_writes() {
            v.push(IoDir::Write);
        }
        if self.has_trims() {
            v.push(IoDir::Trim);
        }
        v
    }
}

impl std::fmt::Display for Rw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.fio_name())
    }
}

/// A data direction, as fio separates them for block sizes and statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoDir {
    /// Reads.
    Read,
    /// Writes.
    Write,
    /// Trims (discards).
    Trim,
}

/// Which jobs fio's `exitall` stops when a job finishes (`exit_what=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ExitWhat {
    /// The jobs of the finishing job's group, started or not (fio's default).
    #[default]
    Group,
    /// The jobs that are running (a job of the group that has not started yet still runs);
    /// the next group then starts as usual.
    Stonewall,
    /// Every job: the rest of the group and every later group (which then do not run).
    All,
}

/// One job, with fio's meaning and defaults for every field. [`Job::default`] is what fio
/// would run for an empty `[job]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The `[section]` name.
    pub name: String,
    /// Line of the section header in its job file (0 when not from a file).
    pub line: usize,
    /// I/O pattern. Default `read`.
    pub rw: Rw,
    /// Percentage of reads in mixed patterns (`rw`, `randrw`). Default 50.
    /// `rwmixwrite=N` sets this to `100 - N`.
    pub rwmixread: u32,
    /// The block size for sizing and alignment: the largest of `bs_read`, `bs_write`,
    /// `bs_trim` over the directions `rw` issues (fio's "max bs"). Default 4096.
    /// Use [`Job::block_size`] for the size of a request in a given direction.
    pub bs: u64,
    /// Block size of reads. `bs=4k,8k` sets reads to 4k; default 4096.
    pub bs_read: u64,
    /// Block size of writes. `bs=4k,8k` sets writes (and trims) to 8k; default 4096.
    pub bs_write: u64,
    /// Block size of trims. Default 4096.
    pub bs_trim: u64,
    /// Total bytes of the region the job does I/O to (`size=`), or a percentage of the
    /// target's size. `None`: the target decides (fio: the whole file or device).
    pub size: Option<SizeSpec>,
    /// Where in the file or device I/O starts (`offset=`). Default `Bytes(0)`.
    pub offset: SizeSpec,
    /// Size of each file the job creates (`filesize=`; the smallest of a `filesize=min-max`
    /// range). `None`: `size`.
    pub filesize: Option<SizeSpec>,
    /// The largest size of a `filesize=min-max` range: each file's size is drawn between
    /// `filesize` and this ([`Job::file_sizes`]). `None`: every file is `filesize`.
    #[serde(default)]
    pub filesize_max: Option<u64>,
    /// `offset_increment=`: clone N of `numjobs` starts at `offset + N * offset_increment`
    /// (a percentage is of the file's size, as `offset`). Default 0.
    #[serde(default = "zero_size")]
    pub offset_increment: SizeSpec,
    /// Requests kept in flight. Default 1.
    pub iodepth: u32,
    /// I/Os handed to the engine per submit call (fio's `iodepth_batch_submit`): 1 (fio's
    /// default) submits each I/O as soon as it is queued, one system call each; 0 means
    /// `iodepth`. Real targets; the simulated engine has no system calls to batch.
    pub iodepth_batch: u32,
    /// fio's `iodepth_low`: once the queue is full, completions are reaped until no more than
    /// this many requests are in flight before it is filled again. 0 (the default): `iodepth`,
    /// so each reaped request is replaced at once.
    pub iodepth_low: u32,
    /// fio's `iodepth_batch_complete_min`: completions a full queue waits for per reap (1,
    /// fio's default; 0 makes every pass of the loop poll for completions without waiting).
    pub iodepth_batch_complete_min: u32,
    /// fio's `iodepth_batch_complete_max`: completions taken per reap at most. 0 (the default):
    /// `iodepth_batch_complete_min`, so by default one completion is taken and its slot
    /// refilled before the next is looked at, as fio does.
    pub iodepth_batch_complete_max: u32,
    /// io_uring's `fixedbufs`: register the I/O buffers with the ring (fio's default: not).
    pub fixedbufs: bool,
    /// Clones of this job run in parallel. Default 1.
    pub numjobs: u32,
    /// Bytes to transfer (`io_size=`, alias `io_limit`), if different from `size`.
    pub io_size: Option<u64>,
    /// Stop after this many I/Os (`number_ios=`).
    pub number_ios: Option<u64>,
    /// Run-time limit (`runtime=`, alias `timeout`). `runtime=0` means no limit (`None`).
    pub runtime_ns: Option<u64>,
    /// Keep going (looping over the region) until `runtime` has passed. Requires `runtime`.
    pub time_based: bool,
    /// Run this long before measuring (`ramp_time=`). Default 0.
    pub ramp_time_ns: u64,
    /// `fsync` after every N writes; 0 = never. Default 0.
    pub fsync: u32,
    /// `fdatasync` after every N writes; 0 = never. Default 0.
    pub fdatasync: u32,
    /// `fsync` the file when the job's writes are done. Default false.
    pub end_fsync: bool,
    /// O_DIRECT (bypass the page cache). Default false, as fio; `buffered=0` means `direct=1`.
    pub direct: bool,
    /// Completion-latency percentiles to report, ascending. Default fio's list
    /// ([`FIO_DEFAULT_PERCENTILES`]).
    pub percentile_list: Vec<f64>,
    /// Seed of the random offset generator (`randseed=`). `None`: derived as fio does
    /// from `randrepeat`.
    pub randseed: Option<u64>,
    /// Same random sequence on every run (`randrepeat=`). Default true, as fio.
    pub randrepeat: bool,
    /// Target file or device (`filename=`), with fio's `\:` escapes resolved; the first of
    /// them when `filename=` names several (see [`Job::filenames`]).
    pub filename: Option<String>,
    /// Every name of `filename=a:b:c` (fio's ':' list, escapes resolved); empty without
    /// `filename=`. When given, fio ignores `nrfiles`.
    pub filenames: Vec<String>,
    /// `nrfiles=`: files the job spreads its I/O over (default 1).
    pub nrfiles: u32,
    /// `openfiles=`: files open at once (0: all, fio's default).
    pub openfiles: u32,
    /// `file_service_type=`: how the next file is chosen ([`crate::files`]).
    pub file_service: crate::files::FileService,
    /// `filename_format=`: names of the job's files (`$jobname`, `$jobnum`, `$filenum`);
    /// `None`: fio's `$jobname.$jobnum.$filenum`.
    pub filename_format: Option<String>,
    /// Directory files are created in (`directory=`).
    pub directory: Option<String>,
    /// fio's I/O engine name (`ioengine=`), as given; the target decides what it means.
    pub ioengine: Option<String>,
    /// Wait for all previous jobs to finish before starting (`stonewall`, alias
    /// `wait_for_previous`); also starts a new reporting group.
    pub stonewall: bool,
    /// Report all jobs of a group (and the clones of `numjobs`) as one (`group_reporting`).
    pub group_reporting: bool,
    /// Start a new reporting group without waiting for the jobs before (`new_group`).
    pub new_group: bool,
    /// fio's `unified_rw_reporting`: 0 `none` (per direction), 1 `mixed` (the directions
    /// summed and reported as one, `"mixed"` in fio's JSON, instead of them), 2 `both` (per
    /// direction, then the sum).
    #[serde(default)]
    pub unified_rw_reporting: u8,
    /// `startdelay=`: the job starts this long after the run starts (fio counts from its
    /// own start, so in a later group the time the earlier groups took counts towards it).
    /// Default 0.
    #[serde(default)]
    pub start_delay_ns: u64,
    /// The upper end of a `startdelay=low-high` range: each clone draws its delay between
    /// the two with its seed. `None`: no range.
    #[serde(default)]
    pub start_delay_max_ns: Option<u64>,
    /// `wait_for=NAME`: the job starts once every clone of the job NAME (defined earlier in
    /// the file) has finished.
    #[serde(default)]
    pub wait_for: Option<String>,
    /// `exitall`: when a job finishes, the jobs `exit_what` names are stopped. As in fio it
    /// holds for the whole run once any job sets it ([`crate::JobFile::exitall`]).
    #[serde(default)]
    pub exitall: bool,
    /// fio's `atomic`: writes are issued as atomic writes (`RWF_ATOMIC`: all or nothing on a
    /// power loss). Default false.
    #[serde(default)]
    pub atomic: bool,
    /// fio's `flow`: this job's weight in token-based flow control with the other jobs of its
    /// `flow_id` (0: no flow control; at most 1000). Default 0.
    #[serde(default)]
    pub flow: u32,
    /// fio's `flow_id`: which flow the job's `flow` weight belongs to. Default 0.
    #[serde(default)]
    pub flow_id: u32,
    /// fio's `flow_sleep`: after flow control held the job back, wait for its I/Os in flight
    /// and sleep this long before trying again (0: try again at once). Default 0.
    #[serde(default)]
    pub flow_sleep_ns: u64,
    /// `exit_what=`: which jobs `exitall` stops when this job finishes.
    #[serde(default)]
    pub exit_what: ExitWhat,
    /// `fsync_on_close`: each file the job wrote is fsynced when it is closed (at the end
    /// of the job), counted in its runtime as `end_fsync` is. Default false.
    #[serde(default)]
    pub fsync_on_close: bool,
    /// Think time (`thinktime=`; a bare number is microseconds, as in fio). Default 0. As
    /// fio: the job issues `thinktime_blocks` I/Os (at most `iodepth` at a time), waits for
    /// them to complete, then stalls this long before it issues again.
    pub thinktime_ns: u64,
    /// The part of the think time spent busy (`thinktime_spin=`, fio: "pretend to spend CPU
    /// time"); the rest is slept. At most `thinktime_ns`.
    pub thinktime_spin_ns: u64,
    /// I/Os between two think times (`thinktime_blocks=`, default 1).
    pub thinktime_blocks: u32,
    /// How size suffixes were read for this job: 1024 (fio's default) or 1000.
    /// See [`crate::units`].
    pub kb_base: u32,
    /// Mixed block sizes (`bssplit=` or `bsrange=`); `None`: one size per direction
    /// (`bs_read`, `bs_write`, `bs_trim`). When set, those hold each direction's largest size.
    pub bs_mix: Option<BlockSizesPerDir>,
    /// `bs_unaligned`: sizes drawn from `bsrange` are not rounded to the smallest size.
    pub bs_unaligned: bool,
    /// `blockalign`/`ba` per direction (read, write, trim): random offsets are multiples of
    /// it. 0: the direction's smallest block size (fio's default).
    pub blockalign: [u64; 3],
    /// `random_distribution` (random jobs). Default uniform.
    pub random_distribution: Distribution,
    /// fio's `random_sequence_stride`: a `sequence` distribution moves on by its length after
    /// each round (blocks `g*n + seq[i]`) instead of repeating. Default false.
    #[serde(default)]
    pub random_sequence_stride: bool,
    /// `percentage_random`: share of a random job's I/Os that are random. Default 100.
    pub percentage_random: PercentageRandom,
    /// `norandommap`: uniform random offsets may repeat within a pass (fio keeps a map that
    /// visits every block once per pass unless this is set, or the distribution is skewed).
    pub norandommap: bool,
    /// The `:N` of `rw=randread:N`: a new random offset every N I/Os (1 = every I/O); the
    /// I/Os between follow [`Job::rw_sequencer_identical`].
    pub rw_seq_nr: u64,
    /// The `:N` of a sequential `rw=write:N`: bytes skipped after every I/O (holes); negative
    /// (`rw=read:-8k`) goes backwards, wrapping from the start of the region to its end.
    pub rw_seq_add: i64,
    /// `rw_sequencer=identical`: the I/Os between two random offsets repeat the same offset
    /// (default `sequential`: they follow on).
    pub rw_sequencer_identical: bool,
    /// `rate=` bytes/s cap per direction (read, write, trim); 0 = none.
    pub rate: [u64; 3],
    /// `rate_iops=` cap per direction; 0 = none.
    pub rate_iops: [u64; 3],
    /// `rate_min=` bytes/s: the job fails if it runs slower (per direction; 0 = none).
    pub rate_min: [u64; 3],
    /// `rate_iops_min=`: the job fails below this many IOPS (per direction; 0 = none).
    pub rate_iops_min: [u64; 3],
    /// `rate_process=poisson`: gaps between rated I/Os are exponential (default `linear`).
    pub rate_poisson: bool,
    /// `loops=`: run the job this many times over (default 1).
    pub loops: u32,
    /// fio's `verify` family: checksummed headers in every block written, read back after the
    /// write phase or every `verify_backlog` blocks ([`crate::verify`]). Default off.
    pub verify: crate::verify::VerifyOptions,
    /// fio's zoned options: `zonemode` (strided or zbd), zone sizes and limits, zone resets
    /// ([`crate::zoned`]). Default none.
    #[serde(default)]
    pub zoned: crate::zoned::ZoneOptions,
    /// fio's SPRandom preconditioning (`sprandom`, `spr_*`; [`crate::sprandom`]). Default off.
    #[serde(default)]
    pub sprandom: crate::sprandom::SprandomOptions,
    /// fio's data placement options: `fdp`, `dataplacement`, `plids`, `plid_select`,
    /// `dp_scheme` ([`crate::placement`]). Default none.
    #[serde(default)]
    pub placement: crate::placement::PlacementOptions,
    /// `buffer_compress_percentage=`: written data compresses by this much (real targets;
    /// a simulated device stores no data). Default 0.
    pub buffer_compress_percentage: u32,
    /// `dedupe_percentage=`: this share of the writes carry identical data (real targets).
    pub dedupe_percentage: u32,
    /// `steadystate`/`ss`, `ss_dur`, `ss_ramp`: stop when IOPS or bandwidth settle (off
    /// unless `ss_dur` is given, as in fio).
    pub steadystate: crate::steadystate::SteadyState,
    /// `latency_target`, `latency_window`, `latency_percentile`, `latency_run`: probe the
    /// queue depth that meets a latency target ([`crate::latency_target`]; off by default).
    #[serde(default)]
    pub latency_target: crate::latency_target::LatencyTarget,
    /// `prio`, `prioclass`, `priohint` and the `cmdprio*` options: the priority each I/O is
    /// sent with ([`crate::prio`]). Default: none.
    #[serde(default)]
    pub prio: crate::prio::PrioOptions,
    /// fio's `fill_device` (alias `fill_fs`): write until the device or filesystem is full;
    /// ENOSPC ends the job without an error. Without `size=` a new file's region is the free
    /// space (a raw device's: its capacity). Default false.
    #[serde(default)]
    pub fill_device: bool,
    /// `continue_on_error` and `ignore_error`: the errors a job goes on after
    /// ([`crate::ioerror`]). Default: none.
    #[serde(default)]
    pub errors: crate::ioerror::ErrorPolicy,
    /// `dedupe_mode=working_set` with `dedupe_working_set_percentage` (fio's default 5): the
    /// job's first unique writes form a working set of this percentage of its region, and a
    /// deduplicable write repeats one of them drawn at random. `None`: fio's default mode,
    /// `repeat`.
    #[serde(default)]
    pub dedupe_working_set: Option<u32>,
    /// `dedupe_working_set_percentage` as given (it takes effect with `dedupe_mode=working_set`).
    #[serde(default = "five")]
    pub dedupe_working_set_percentage: u32,
    /// `dedupe_global`: the working set is the same for every job of the run (real targets).
    #[serde(default)]
    pub dedupe_global: bool,
}

fn five() -> u32 {
    5
}

fn zero_size() -> SizeSpec {
    SizeSpec::Bytes(0)
}

impl Default for Job {
    fn default() -> Self {
        Job {
            name: String::new(),
            line: 0,
            rw: Rw::Read,
            rwmixread: 50,
            bs: 4096,
            bs_read: 4096,
            bs_write: 4096,
            bs_trim: 4096,
            size: None,
            offset: SizeSpec::Bytes(0),
            filesize: None,
            filesize_max: None,
            offset_increment: SizeSpec::Bytes(0),
            iodepth: 1,
            numjobs: 1,
            io_size: None,
            number_ios: None,
            runtime_ns: None,
            time_based: false,
            ramp_time_ns: 0,
            fsync: 0,
            fdatasync: 0,
            end_fsync: false,
            iodepth_batch: 1,
            iodepth_low: 0,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: 0,
            fixedbufs: false,
            direct: false,
            percentile_list: FIO_DEFAULT_PERCENTILES.to_vec(),
            randseed: None,
            randrepeat: true,
            filename: None,
            filenames: Vec::new(),
            nrfiles: 1,
            openfiles: 0,
            file_service: crate::files::FileService::default(),
            filename_format: None,
            directory: None,
            ioengine: None,
            stonewall: false,
            new_group: false,
            unified_rw_reporting: 0,
            group_reporting: false,
            start_delay_ns: 0,
            start_delay_max_ns: None,
            wait_for: None,
            exitall: false,
            atomic: false,
            flow: 0,
            flow_id: 0,
            flow_sleep_ns: 0,
            exit_what: ExitWhat::Group,
            fsync_on_close: false,
            thinktime_ns: 0,
            thinktime_spin_ns: 0,
            thinktime_blocks: 1,
            kb_base: KB_BASE_DEFAULT,
            bs_mix: None,
            bs_unaligned: false,
            blockalign: [0; 3],
            random_distribution: Distribution::Random,
            random_sequence_stride: false,
            percentage_random: PercentageRandom::default(),
            norandommap: false,
            rw_seq_nr: 1,
            rw_seq_add: 0,
            rw_sequencer_identical: false,
            rate: [0; 3],
            rate_iops: [0; 3],
            rate_min: [0; 3],
            rate_iops_min: [0; 3],
            rate_poisson: false,
            loops: 1,
            verify: crate::verify::VerifyOptions::default(),
            zoned: crate::zoned::ZoneOptions::default(),
            sprandom: crate::sprandom::SprandomOptions::default(),
            placement: crate::placement::PlacementOptions::default(),
            buffer_compress_percentage: 0,
            dedupe_percentage: 0,
            steadystate: crate::steadystate::SteadyState::default(),
            latency_target: crate::latency_target::LatencyTarget::default(),
            prio: crate::prio::PrioOptions::default(),
            fill_device: false,
            errors: crate::ioerror::ErrorPolicy::default(),
            dedupe_working_set: None,
            dedupe_working_set_percentage: 5,
            dedupe_global: false,
        }
    }
}

impl Job {
    /// A job with fio's defaults and the given name.
    pub fn new(name: impl Into<String>) -> Self {
        Job { name: name.into(), ..Job::default() }
    }

    /// Sets one block size for every direction (like `bs=N`).
    pub fn set_bs(&mut self, bs: u64) {
        self.bs = bs;
        self.bs_read = bs;
        self.bs_write = bs;
        self.bs_trim = bs;
    }

    /// The size of a request in direction `dir`.
    pub fn block_size(&self, dir: IoDir) -> u64 {
        match dir {
            IoDir::Read => self.bs_read,
            IoDir::Write => self.bs_write,
            IoDir::Trim => self.bs_trim,
        }
    }

    /// The largest block size over the directions `rw` issues (what `bs` holds after parsing).
    pub fn max_bs(&self) -> u64 {
        self.rw.directions().into_iter().map(|d| self.block_size(d)).max().unwrap_or(self.bs_read)
    }

    /// Random offsets.
    pub fn is_random(&self) -> bool {
        self.rw.is_random()
    }

    /// Issues reads.
    pub fn has_reads(&self) -> bool {
        self.rw.has_reads()
    }

    /// Issues writes.
    pub fn has_writes(&self) -> bool {
        self.rw.has_writes()
    }

    /// Issues trims.
    pub fn has_trims(&self) -> bool {
        self.rw.has_trims()
    }

    /// Mixed reads and writes.
    pub fn is_mixed(&self) -> bool {
        self.rw.is_mixed()
    }

    /// Percentage of writes in a mixed pattern (`100 - rwmixread`).
    pub fn rwmixwrite(&self) -> u32 {
        100u32.saturating_sub(self.rwmixread)
    }

    /// The block sizes of direction `dir`: the `bssplit`/`bsrange` mix, or the one size.
    pub fn block_sizes(&self, dir: IoDir) -> crate::blocksize::BlockSizes {
        match &self.bs_mix {
            Some(m) => m.for_dir(dir).clone(),
            None => crate::blocksize::BlockSizes::Fixed(self.block_size(dir)),
        }
    }

    /// The smallest block size of direction `dir`.
    pub fn min_block_size(&self, dir: IoDir) -> u64 {
        self.block_sizes(dir).min()
    }

    /// Random offsets of direction `dir` are multiples of this (`blockalign`, default the
    /// smallest block size).
    pub fn align(&self, dir: IoDir) -> u64 {
        let i = dir as usize;
        if self.blockalign[i] > 0 {
            self.blockalign[i]
        } else {
            self.min_block_size(dir).max(1)
        }
    }

    /// A rate limit (`rate` or `rate_iops`) applies to some direction.
    pub fn rate_limited(&self) -> bool {
        self.rate.iter().chain(&self.rate_iops).any(|&r| r > 0)
    }

    /// The number of files the job uses: the names of `filename=`, else `nrfiles`.
    pub fn nr_files(&self) -> u32 {
        if self.filenames.is_empty() {
            self.nrfiles.max(1)
        } else {
            self.filenames.len() as u32
        }
    }

    /// The names of clone `jobnum`'s files, as fio makes them: `filename=`'s names, else
    /// `filename_format` (default `$jobname.$jobnum.$filenum`) for each file number. Relative
    /// to `directory=` when that is given; a '/' of the job name becomes '_'.
    pub fn file_names(&self, jobnum: u32) -> Vec<String> {
        if !self.filenames.is_empty() {
            return self.filenames.clone();
        }
        let stem: String = self.name.chars().map(|c| if c == '/' || c == '\0' { '_' } else { c }).collect();
        let fmt = self.filename_format.as_deref().unwrap_or("$jobname.$jobnum.$filenum");
        (0..self.nrfiles.max(1))
            .map(|k| {
                fmt.replace("$jobname", &stem)
                    .replace("$jobnum", &jobnum.to_string())
                    .replace("$filenum", &k.to_string())
                    .replace("$clientuid", "0")
            })
            .collect()
    }

    /// The size of each file, fio's `setup_files`: `filesize` each, else `size` (resolved
    /// against `capacity`) split over the files, the first ones one block larger while the
    /// remainder lasts. `None` when neither is given.
    pub fn file_sizes(&self, capacity: u64) -> Option<Vec<u64>> {
        let n = self.nr_files();
        if let Some(fs) = self.filesize {
            let low = fs.resolve(capacity);
            return Some(match self.filesize_max.filter(|&high| high > low) {
                None => vec![low; n as usize],
                Some(high) => {
                    // fio's get_rand_file_size: uniform in [low, high), rounded down to the
                    // smallest block size (flashlab's own seeded draw, not fio's sequence).
                    let min_bs = self.min_bs_overall().max(1);
                    let mut x = self.randseed.unwrap_or(0x5eed) ^ fnv(&self.name);
                    (0..n)
                        .map(|_| {
                            x = splitmix(x);
                            let size = low + ((u128::from(x) * u128::from(high - low)) >> 64) as u64;
                            (size - size % min_bs).max(min_bs)
                        })
                        .collect()
                }
            });
        }
        let size = self.size?.resolve(capacity);
        let min_bs = self.rw.directions().into_iter().map(|d| self.min_block_size(d)).min().unwrap_or(self.bs);
        Some(crate::files::split_size(size, n, min_bs))
    }

    /// The smallest block size over the directions the job issues.
    fn min_bs_overall(&self) -> u64 {
        self.rw.directions().into_iter().map(|d| self.min_block_size(d)).min().unwrap_or(self.bs)
    }

    /// Bytes one pass of the job transfers over files of `file_spans` bytes of I/O each
    /// (fio's `total_io_size` for one loop): `io_size`, else `size` when it is smaller than
    /// the files hold, else all of the files.
    pub fn pass_bytes(&self, capacity: u64, file_spans: &[u64]) -> u64 {
        let total: u64 = file_spans.iter().sum();
        match (self.io_size, self.size) {
            (Some(b), _) => b,
            (None, Some(s)) if self.filesize.is_some() => s.resolve(capacity).min(total),
            _ => total,
        }
    }

    /// Issues any sync calls (`fsync`, `fdatasync` or `end_fsync`).
    pub fn syncs(&self) -> bool {
        self.fsync > 0 || self.fdatasync > 0 || self.end_fsync
    }
}

/// A 64-bit FNV-1a hash of `s` (a job's file-size draws differ by job name).
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// One step of splitmix64.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_fios() {
        let j = Job::default();
        assert_eq!(j.rw, Rw::Read);
        assert_eq!(j.bs, 4096);
        assert_eq!(j.iodepth, 1);
        assert_eq!(j.numjobs, 1);
        assert_eq!(j.rwmixread, 50);
        assert!(!j.direct);
        assert!(j.randrepeat);
        assert_eq!(j.kb_base, 1024);
        assert_eq!(j.offset, SizeSpec::Bytes(0));
        assert_eq!(j.percentile_list.len(), 17);
    }

    #[test]
    fn rw_names_round_trip() {
        for rw in Rw::ALL {
            assert_eq!(Rw::from_fio(rw.fio_name()), Some(rw));
        }
        assert_eq!(Rw::from_fio("readwrite"), Some(Rw::ReadWrite));
        assert_eq!(Rw::from_fio("READ"), None);
        assert!(Rw::TrimWrite.has_trims() && Rw::TrimWrite.has_writes() && !Rw::TrimWrite.is_random());
        assert!(Rw::RandRw.is_mixed() && Rw::RandRw.is_random());
        assert_eq!(Rw::RandRw.directions(), vec![IoDir::Read, IoDir::Write]);
    }

    #[test]
    fn filesize_ranges_draw_each_file_between_the_bounds() {
        let mut j = Job::new("x");
        j.nrfiles = 64;
        j.filesize = Some(SizeSpec::Bytes(64 << 10));
        j.filesize_max = Some(1 << 20);
        let sizes = j.file_sizes(u64::MAX).unwrap();
        assert_eq!(sizes.len(), 64);
        assert!(sizes.iter().all(|&s| (64 << 10..1 << 20).contains(&s) && s % 4096 == 0), "{sizes:?}");
        let distinct: std::collections::BTreeSet<_> = sizes.iter().collect();
        assert!(distinct.len() > 32, "sizes are drawn, not one value: {sizes:?}");
        assert_eq!(j.file_sizes(u64::MAX), Some(sizes), "the same job draws the same sizes");
        j.filesize_max = None;
        assert_eq!(j.file_sizes(0).unwrap(), vec![64 << 10; 64]);
    }

    #[test]
    fn max_bs_uses_active_directions() {
        let mut j = Job::new("x");
        j.bs_read = 4096;
        j.bs_write = 65536;
        j.bs_trim = 65536;
        j.rw = Rw::RandRead;
        assert_eq!(j.max_bs(), 4096);
        j.rw = Rw::RandRw;
        assert_eq!(j.max_bs(), 65536);
    }
}
