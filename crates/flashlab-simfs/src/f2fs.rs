//! The F2FS model, brought to the behaviour of Linux 6.1's F2FS by `validate-fs --fs f2fs`
//! (the kernel's F2FS in a VM, request by request; docs/validate-fs.md says what each
//! mismatch taught).
//!
//! * Layout (mkfs.f2fs): superblock segment, two checkpoint segments, SIT and NAT areas (two
//!   copies each), SSA, then the main area of 2 MiB segments (512 blocks of 4 KiB). Computed
//!   as mkfs would ([`F2fs::new`]) or read from a real image ([`crate::Fs::f2fs_on`]).
//! * Six logs, as the kernel's current segments: hot, warm and cold data; hot, warm and cold
//!   nodes. A file's data is hot when its name has a hot extension (mkfs.f2fs's `db`...) or
//!   the write (the writeback batch) has at most `min_hot_blocks` (16) blocks, cold when its
//!   name has a cold extension or cleaning moved it, else warm. Files' inodes and direct
//!   nodes are warm nodes; the root directory's inode is a hot node and its dentry blocks
//!   hot data, written at checkpoints after creates and deletes.
//! * Overwrites of allocated blocks go in place when the kernel's `ipu_policy` says so
//!   (`FORCE` on a volume of at most 8192 main segments, `FSYNC` for the few-block writes an
//!   fsync writes back on a larger one; `SSR`, `UTIL`, `SSR_UTIL` as the kernel's); cold files
//!   always. Otherwise a write is appended to its log and the old block invalidated.
//! * Each file has an inode node block (923 block pointers) and direct node blocks (1018
//!   each); moving a data block dirties the node holding its pointer, and a write dirties the
//!   inode when the file's timestamp (the coarse clock) moved or its size grew. Indirect
//!   nodes are not modelled: the NAT stops the "wandering tree" at the node.
//! * fsync (roll-forward recovery): the file's dirty nodes to the node log, then a flush; no
//!   checkpoint, and nothing at all when nothing was written since the last one. A
//!   directory's fsync is a checkpoint. A checkpoint writes the directory's dirty dentry
//!   blocks, all dirty nodes, the NAT and SIT entries (into the checkpoint's journals while
//!   they fit: 38 and 6 entries; past that, the dirty NAT and SIT blocks, each to its other
//!   copy), the SSA blocks of the segments the logs left, and the pack (checkpoint block,
//!   1-3 blocks of compacted summaries, then after a flush its last block with FUA); prefree
//!   segments become free. Checkpoints happen at sync (and earlier, when prefree segments
//!   pass 5 % of the main area), at a directory fsync, when `cp_interval` passed, when
//!   `dirty_node_limit` nodes are dirty, for cleaning, at fstrim, and from the background
//!   thread in idle time.
//! * Discard: freed segments and the blocks freed inside partly valid ones, either sent by the
//!   checkpoint (the F2FS of the 2013-2016 phones) or, with `discard_async` (Linux 4.10+),
//!   queued for a discard thread that sends them eight at a time once the device has been
//!   idle 5 s, starting at its next 60 s wake-up.
//! * Space: the user may fill the main area but the overprovisioned segments. When free
//!   segments are at most twice the reserve (`f2fs_need_SSR`), the hot and warm data logs
//!   switch to slack-space recycling: they fill the holes (free now and at the last
//!   checkpoint) of their own log's used segment with the fewest valid blocks, unless mounted
//!   `mode=lfs`. Foreground cleaning (greedy) keeps the reserve free; the background cleaner
//!   wakes 30 s into an idle period and then every 30-60 s (300 s after finding nothing) and
//!   cleans one cost-benefit victim each time. Cleaning writes data to the cold log and
//!   nodes to their own log, always into free segments.
//!
//! * On a zoned device ([`F2fs::zoned`], [`crate::Fs::f2fs_zoned`]): a section is a zone of
//!   several segments, taken whole by a log and written from start to end; LFS only (no SSR,
//!   no in-place updates); cleaning takes a whole section; a section freed by a checkpoint has
//!   its zone reset before the checkpoint completes; the reserve and overprovision are
//!   mkfs.f2fs's for such sections; the metadata areas are on a conventional device beside
//!   the zones (docs/zoned.md, "F2FS on zones").
//!
//! Not modelled: multi-segment sections on a conventional device, inline data and dentries (a small file's data in
//! its inode; converting it writes its first block once more), indirect nodes, orphan blocks,
//! the extent cache, compression, atomic writes.

use super::disk::{instant, later, Disk, Purpose};
use super::FsConfig;
use crate::extents::FS_BLOCK;
use crate::f2fs_layout::F2fsLayout;
use crate::model::{FileIo, FsModel};
use crate::{FsError, InvariantError};
use flashsim::{Completion, Ns, Op};

pub(crate) const SEG_BLOCKS: u32 = 512;
const SEG_BYTES: u64 = SEG_BLOCKS as u64 * FS_BLOCK;
/// No owner (a free or invalid block); in a file map, a hole.
const NONE: u32 = u32::MAX;
/// A block allocated to a file (fallocate) but never written: it has no address yet.
const NEW_ADDR: u32 = u32::MAX - 1;
const NODE_BIT: u32 = 1 << 31;
const ADDRS_PER_INODE: u64 = 923;
const ADDRS_PER_BLOCK: u64 = 1018;
const NAT_ENTRIES_PER_BLOCK: u32 = 455;
const SIT_ENTRIES_PER_BLOCK: u32 = 55;
/// The logs, numbered as the kernel numbers its current segments (`CURSEG_HOT_DATA` ...).
const HOT_DATA: usize = 0;
const WARM_DATA: usize = 1;
const COLD_DATA: usize = 2;
const HOT_NODE: usize = 3;
const WARM_NODE: usize = 4;
const COLD_NODE: usize = 5;
const LOGS: usize = 6;
/// Entries the NAT and SIT journals (in the checkpoint's summary block) hold: up to this many
/// dirty entries a checkpoint writes no NAT or SIT block (`NAT_JOURNAL_ENTRIES`,
/// `SIT_JOURNAL_ENTRIES`).
const NAT_JOURNAL_ENTRIES: usize = 38;
const SIT_JOURNAL_ENTRIES: usize = 6;
/// Bytes of a compacted summary taken by the two journals, and per summary entry.
const JOURNALS_BYTES: u64 = 2 * 507;
const SUMMARY_ENTRY_BYTES: u64 = 7;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seg {
    Free,
    /// The current segment of a log.
    Open,
    Used,
    /// Emptied since the last checkpoint: free after the next one.
    Prefree,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    /// Main-area block, or NONE if never written.
    addr: u32,
    nid: u32,
    dirty: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Temp {
    /// By the size of each write ([`FsConfig::min_hot_blocks`]).
    ByWrite,
    /// A hot extension (mkfs.f2fs's list: `db`, `vmdk`, `vdi`, `qcow2`).
    Hot,
    /// A cold extension (media, archives, packages): cold data, always updated in place.
    Cold,
}

#[derive(Debug, Clone)]
struct LFile {
    size: u64,
    /// Per 4 KiB block: main-area block, NEW_ADDR, or NONE (hole).
    blocks: Vec<u32>,
    nodes: Vec<Node>,
    temp: Temp,
    /// The file timestamp last stored (the coarse clock's value at the last write that moved
    /// it): a write dirties the inode only when the clock moved since.
    mtime: Ns,
    /// Data written in place since the last fsync (the fsync then flushes the cache).
    ipu_since_sync: bool,
}

/// mkfs.f2fs 1.15's default extension lists (`f2fs_format.c`): a name with one of these
/// after any dot is cold or hot data from its creation (`set_file_temperature`).
const COLD_EXTENSIONS: [&str; 36] = [
    "mp", "wm", "og", "jp", "avi", "m4v", "m4p", "mkv", "mov", "webm", "wav", "m4a", "3gp", "opus", "flac", "gif",
    "png", "svg", "webp", "jar", "deb", "iso", "gz", "xz", "zst", "pdf", "pyc", "ttc", "ttf", "exe", "apk", "cnt",
    "exo", "odex", "vdex", "so",
];
const HOT_EXTENSIONS: [&str; 4] = ["db", "vmdk", "vdi", "qcow2"];

/// The temperature F2FS gives a new file from its name: an extension matches when some
/// ".suffix" of the name starts with it, case-insensitively (so `x.db-wal` is hot); cold is
/// checked first.
fn temp_of(name: &str) -> Temp {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let suffixes: Vec<&str> = base.split('.').skip(1).collect();
    let has = |list: &[&str]| suffixes.iter().any(|s| list.iter().any(|e| s.starts_with(e)));
    if has(&COLD_EXTENSIONS) {
        Temp::Cold
    } else if has(&HOT_EXTENSIONS) {
        Temp::Hot
    } else {
        Temp::ByWrite
    }
}

/// The owner id of the root directory's blocks (its dentry blocks and its inode).
const DIR_OWNER: u32 = u32::MAX - 2;
/// Dentries in one dentry block (`NR_DENTRY_IN_BLOCK`).
const DENTRIES_PER_BLOCK: u32 = 214;
/// ipu_policy bits.
const IPU_FORCE: u32 = 1;
const IPU_SSR: u32 = 2;
const IPU_UTIL: u32 = 4;
const IPU_SSR_UTIL: u32 = 8;
const IPU_FSYNC: u32 = 16;
const IPU_HONOR_OPU_WRITE: u32 = 128;
/// Main segments up to which Linux 6.1 tunes a volume as small (`SMALL_VOLUME_SEGMENTS`).
const SMALL_VOLUME_SEGMENTS: u32 = 16 * 512;

/// The runs of consecutive numbers in `list` as (first, count), in order; no allocation.
fn runs_of(list: &[u32]) -> impl Iterator<Item = (u32, u32)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let &first = list.get(i)?;
        let mut j = i + 1;
        while j < list.len() && list[j] == first + (j - i) as u32 {
            j += 1;
        }
        let n = (j - i) as u32;
        i = j;
        Some((first, n))
    })
}

fn node_of(block: u64) -> usize {
    if block < ADDRS_PER_INODE {
        0
    } else {
        1 + ((block - ADDRS_PER_INODE) / ADDRS_PER_BLOCK) as usize
    }
}

fn nodes_for(blocks: u64) -> usize {
    1 + blocks.saturating_sub(ADDRS_PER_INODE).div_ceil(ADDRS_PER_BLOCK) as usize
}

/// The most data blocks one new file can have when `free` blocks are free: n + nodes_for(n)
/// <= free.
fn data_blocks_fitting(free: u64) -> u64 {
    if free < 2 {
        return 0;
    }
    // Each direct node adds ADDRS_PER_BLOCK data blocks: start from the estimate, step down.
    let mut n = (free - 1).saturating_sub((free - 1).saturating_sub(ADDRS_PER_INODE).div_ceil(ADDRS_PER_BLOCK + 1));
    while n > 0 && n + nodes_for(n) as u64 > free {
        n -= 1;
    }
    n
}

/// The F2FS-like model's state: areas, segments, logs, files and their nodes (see the
/// module's doc for what it models).
#[derive(Debug, Clone)]
pub struct F2fs {
    cfg: FsConfig,
    /// Where the areas are and the space the user may fill.
    a: Areas,
    owner: Vec<u32>,
    owner_idx: Vec<u32>,
    seg_valid: Vec<u16>,
    seg_state: Vec<Seg>,
    seg_mtime: Vec<Ns>,
    /// The log that last opened each segment (SSR reuses segments of its own log's type).
    seg_log: Vec<u8>,
    /// Valid blocks now and at the last checkpoint (bit per main-area block): slack-space
    /// recycling may only take a block free in both.
    cur_valid: Vec<u64>,
    ckpt_valid: Vec<u64>,
    free_segs: u32,
    prefree_segs: u32,
    seg_cursor: u32,
    /// (segment, next block) of each log; segment NONE before its first write.
    logs: [(u32, u32); LOGS],
    /// Whether each log is filling the holes of a used segment (SSR) rather than a free one.
    ssr: [bool; LOGS],
    files: Vec<Option<LFile>>,
    /// The root directory, where every file lives: its dentry blocks (data, `idx` = block)
    /// and inode (node 0), dirtied by creates and deletes and written at checkpoints.
    dir: LFile,
    /// Files in the directory.
    dir_entries: u32,
    /// Dentry blocks dirtied since the last checkpoint.
    dir_dirty: Vec<u32>,
    /// The directory's timestamps moved since the last sync (lazytime keeps them in memory
    /// until the sync writes inodes back).
    dir_times_dirty: bool,
    /// The coarse clock the caller gives for file timestamps ([`crate::Fs::set_file_clock`]).
    file_clock: Option<Ns>,
    /// The ipu_policy in force (the configured one, or the kernel's default for the volume).
    ipu_policy: u32,
    valid_blocks: u64,
    /// NEW_ADDR data blocks and never-written nodes: allocated space without an address.
    reserved_blocks: u64,
    next_nid: u32,
    /// Node ids freed since the last checkpoint (reusable after it) and reusable now, lowest
    /// first (the kernel's free nid list).
    freed_nids: Vec<u32>,
    free_nids: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
    /// NAT and SIT entries held in the checkpoint's journals: every entry changed goes in, and
    /// stays there across checkpoints until a checkpoint finds the journal overflowing and
    /// writes its entries to their blocks.
    nat_journal: std::collections::HashSet<u32>,
    sit_journal: std::collections::HashSet<u32>,
    dirty_list: Vec<(u32, u32)>,
    dirty_nodes: u32,
    nat_dirty: Vec<bool>,
    nat_list: Vec<u32>,
    /// Which copy of each NAT and SIT block is current (false: the first, as mkfs wrote).
    nat_copy: Vec<bool>,
    sit_copy: Vec<bool>,
    sit_dirty: Vec<bool>,
    sit_list: Vec<u32>,
    /// Segments whose SIT entry changed since the last checkpoint.
    sit_entry_dirty: Vec<bool>,
    /// Segments a log left since the last checkpoint: their summary blocks go to the SSA.
    ssa_list: Vec<u32>,
    /// Discards queued by checkpoints for the discard thread (`discard_async`): main-area
    /// (first block, blocks).
    pending_discards: Vec<(u32, u32)>,
    /// When the first of the pending discards was queued.
    discards_queued_at: Ns,
    last_cp: Ns,
    cp_seq: u64,
    /// Reused buffers (no allocation per request once warm).
    scratch: Vec<(u32, u32, u32)>,
    runs: Vec<u32>,
    /// On a zoned device ([`F2fs::zoned`]): sections of `a.segs_per_sec` segments, one per
    /// zone, taken whole by a log and freed whole by a zone reset; LFS only.
    zoned: bool,
    /// Zoned: sections with every segment free (reset, ready for a log).
    free_secs: u32,
    sec_cursor: u32,
    /// Zoned: sections that had segments freed by the checkpoint running now.
    freed_secs: Vec<u32>,
}

/// A zoned device's zones as F2FS's sections ([`crate::Fs::f2fs_zoned`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZonedGeometry {
    /// Zones, each one section of the main area.
    pub zones: u32,
    /// 2 MiB segments per zone.
    pub segs_per_sec: u32,
}

impl ZonedGeometry {
    /// The sections of a device with zones `l`; an error saying why F2FS cannot use them
    /// (mkfs.f2fs or the kernel's mount would refuse, or the model does not have it).
    pub fn of(l: flashsim::ZoneLayout) -> Result<ZonedGeometry, String> {
        let zone_bytes = u64::from(l.size_blocks) * flashsim::ZONE_BLOCK;
        if !zone_bytes.is_multiple_of(SEG_BYTES) {
            return Err(format!("zones of {zone_bytes} bytes are not a whole number of F2FS's 2 MiB segments"));
        }
        if l.capacity_blocks != l.size_blocks {
            return Err(format!(
                "zone capacity {} below zone size {} blocks: F2FS's unusable blocks per section are not modelled",
                l.capacity_blocks, l.size_blocks
            ));
        }
        // Kernels after 6.1 refuse to mount with fewer open zones than logs written at once
        // (`init_blkz_info`: "max open zones ... is too small"); 6.1 leaves it to the device,
        // whose active limit would fail the writes of the sixth log.
        if l.max_open != 0 && l.max_open < LOGS as u32 {
            return Err(format!(
                "{} open zones: F2FS writes {LOGS} logs at once (kernels after 6.1 refuse to mount with fewer)",
                l.max_open
            ));
        }
        // mkfs.f2fs gives each log a zone of its own, and keeps a reserve beyond them.
        if l.zones <= LOGS as u32 {
            return Err(format!("{} zones: mkfs.f2fs gives each of F2FS's {LOGS} logs a zone of its own", l.zones));
        }
        Ok(ZonedGeometry { zones: l.zones, segs_per_sec: (zone_bytes / SEG_BYTES) as u32 })
    }
}

/// Bytes of F2FS's metadata areas (superblock, checkpoint, SIT, NAT, SSA) for a main area of
/// the zones `g`: the conventional device's part of a zoned volume ([`crate::Fs::f2fs_zoned`]).
pub fn zoned_meta_bytes(g: &ZonedGeometry) -> u64 {
    zoned_areas(g).main_start * FS_BLOCK
}

/// mkfs.f2fs's overprovision ratio (percent) and reserved segments for `main_segs` main
/// segments in sections of `sps` (`get_best_overprovision`): the candidate ratio that leaves the
/// user the most space, the reserve being `2 * (100 / ratio + 1) + 6` sections.
fn best_overprovision(main_segs: u32, sps: u32) -> (f64, u32) {
    let usable = f64::from(main_segs);
    let (mut c, end, step) = if main_segs < 256 { (10.0, 95.0, 5.0) } else { (0.01, 10.0, 0.01) };
    let (mut best, mut best_space) = (0.0, 0.0);
    while c <= end {
        let reserved = (2.0 * (100.0 / c + 1.0) + 6.0) * f64::from(sps);
        let ovp = (usable - reserved) * c / 100.0;
        if ovp >= 0.0 {
            let space = usable - reserved.max(ovp) - 2.0 * f64::from(sps);
            if space > best_space {
                (best, best_space) = (c, space);
            }
        }
        c += step;
    }
    let reserved = ((2.0 * (100.0 / best + 1.0) + 6.0) * f64::from(sps)) as u32;
    (best, reserved)
}

/// The metadata areas mkfs.f2fs lays out for tables of `segs` segments: superblock segment,
/// two checkpoint segments, SIT and NAT (two copies each), SSA; the main area starts after
/// them. Returns the areas with no main area yet, and the segments the metadata takes.
fn meta_areas(segs: u64) -> (Areas, u32) {
    let sit_blocks = segs.div_ceil(u64::from(SIT_ENTRIES_PER_BLOCK));
    let nat_blocks = (segs * u64::from(SEG_BLOCKS)).div_ceil(u64::from(NAT_ENTRIES_PER_BLOCK));
    let seg_count = |b: u64| b.div_ceil(u64::from(SEG_BLOCKS)) as u32;
    let meta_segs = 1 + 2 + 2 * seg_count(sit_blocks) + 2 * seg_count(nat_blocks) + seg_count(segs);
    let sit_start = 3 * u64::from(SEG_BLOCKS);
    let nat_start = sit_start + 2 * u64::from(seg_count(sit_blocks)) * u64::from(SEG_BLOCKS);
    let areas = Areas {
        cp_start: u64::from(SEG_BLOCKS),
        sit_start,
        sit_blocks,
        nat_start,
        nat_blocks,
        ssa_start: nat_start + 2 * u64::from(seg_count(nat_blocks)) * u64::from(SEG_BLOCKS),
        main_start: u64::from(meta_segs) * u64::from(SEG_BLOCKS),
        main_segs: 0,
        segs_per_sec: 1,
        reserved_segs: 0,
        ovp_segs: 0,
        user_blocks: 0,
    };
    (areas, meta_segs)
}

/// The areas of a zoned volume: metadata sized for the main area, which is the zones.
fn zoned_areas(g: &ZonedGeometry) -> Areas {
    let main_segs = g.zones * g.segs_per_sec;
    let (ovp, reserved_segs) = best_overprovision(main_segs, g.segs_per_sec);
    let ovp_segs = (f64::from(main_segs.saturating_sub(reserved_segs)) * ovp / 100.0) as u32 + reserved_segs;
    Areas {
        main_segs,
        segs_per_sec: g.segs_per_sec,
        reserved_segs,
        ovp_segs,
        user_blocks: u64::from(main_segs.saturating_sub(ovp_segs)) * u64::from(SEG_BLOCKS),
        ..meta_areas(u64::from(main_segs)).0
    }
}

/// Where the areas are and how much of the main area the user may fill: computed as
/// mkfs.f2fs would ([`F2fs::new`]) or read from a real image ([`F2fs::with_layout`]).
#[derive(Debug, Clone)]
struct Areas {
    cp_start: u64,
    sit_start: u64,
    sit_blocks: u64,
    nat_start: u64,
    nat_blocks: u64,
    ssa_start: u64,
    main_start: u64,
    main_segs: u32,
    /// Segments per section (1 but on a zoned device, where a section is a zone).
    segs_per_sec: u32,
    reserved_segs: u32,
    ovp_segs: u32,
    user_blocks: u64,
}

impl F2fs {
    pub(crate) fn new(capacity: u64, cfg: &FsConfig) -> F2fs {
        let total_segs = (capacity / SEG_BYTES) as u32;
        let (meta, meta_segs) = meta_areas(u64::from(total_segs));
        let main_segs = total_segs.saturating_sub(meta_segs);
        let ovp = cfg.overprovision.clamp(0.001, 0.5);
        // mkfs.f2fs: reserved = 2 * (100 / ovp% + 1) + 6 segments; capped for tiny devices.
        let reserved_segs = ((2 * ((1.0 / ovp) as u32 + 1) + 6).min(main_segs / 8)).max(LOGS as u32 + 2);
        let ovp_segs = (f64::from(main_segs.saturating_sub(reserved_segs)) * ovp).ceil() as u32 + reserved_segs;
        let user_blocks = u64::from(main_segs.saturating_sub(ovp_segs)) * u64::from(SEG_BLOCKS);
        F2fs::from_areas(cfg, Areas { main_segs, reserved_segs, ovp_segs, user_blocks, ..meta })
    }

    /// The model on a zoned device's zones ([`crate::Fs::f2fs_zoned`]): one section per zone,
    /// the reserve and overprovision mkfs.f2fs gives such sections, LFS only.
    pub(crate) fn zoned(g: &ZonedGeometry, cfg: &FsConfig) -> F2fs {
        let mut f = F2fs::from_areas(cfg, zoned_areas(g));
        f.zoned = true;
        f.free_secs = g.zones;
        // mkfs.f2fs on zones gives each log a zone of its own, the first six in this order
        // (f2fs-tools 1.15 `f2fs_prepare_super_block`: hot, warm, cold node, then hot, warm,
        // cold data, each `next_zone` of the one before; the kernel's status after mount shows
        // them in sections 0-5). Each log keeps its section until it fills it: logs a workload
        // leaves idle (the root directory's hot node and hot data, the indirect nodes' cold
        // node) hold a section each for good. (mkfs's root inode and dentry block are not
        // written here, the twin zones being empty: the model writes them at its first
        // checkpoint, into the same logs.)
        let sps = g.segs_per_sec;
        for (sec, log) in [HOT_NODE, WARM_NODE, COLD_NODE, HOT_DATA, WARM_DATA, COLD_DATA].into_iter().enumerate() {
            let seg = sec as u32 * sps;
            f.seg_state[seg as usize] = Seg::Open;
            f.seg_log[seg as usize] = log as u8;
            f.free_segs -= 1;
            f.free_secs -= 1;
            f.logs[log] = (seg, 0);
        }
        f.sec_cursor = 6 % g.zones;
        f
    }

    /// The model over a real image's areas (its superblock and first checkpoint): the same
    /// main area, reserve and overprovision as the kernel's F2FS on it, and each log starting
    /// where mkfs.f2fs left it.
    pub(crate) fn with_layout(cfg: &FsConfig, l: &F2fsLayout) -> F2fs {
        let main_segs = l.segment_count_main;
        let mut f = F2fs::from_areas(
            cfg,
            Areas {
                cp_start: u64::from(l.cp_blkaddr),
                sit_start: u64::from(l.sit_blkaddr),
                sit_blocks: u64::from(main_segs).div_ceil(u64::from(SIT_ENTRIES_PER_BLOCK)),
                nat_start: u64::from(l.nat_blkaddr),
                nat_blocks: u64::from(l.segment_count_nat / 2) * u64::from(SEG_BLOCKS),
                ssa_start: u64::from(l.ssa_blkaddr),
                main_start: u64::from(l.main_blkaddr),
                main_segs,
                segs_per_sec: 1,
                reserved_segs: l.rsvd_segment_count,
                ovp_segs: l.overprov_segment_count,
                user_blocks: l.user_block_count.saturating_sub(l.valid_block_count),
            },
        );
        // The logs continue in the segments mkfs.f2fs opened for them; the root directory's
        // dentry block and inode are the first blocks of the hot data and hot node logs.
        for (log, &(seg, next)) in [HOT_DATA, WARM_DATA, COLD_DATA]
            .iter()
            .zip(&l.cur_data)
            .chain([HOT_NODE, WARM_NODE, COLD_NODE].iter().zip(&l.cur_node))
        {
            if f.seg_state[seg as usize] == Seg::Free {
                f.seg_state[seg as usize] = Seg::Open;
                f.seg_log[seg as usize] = *log as u8;
                f.free_segs -= 1;
                f.logs[*log] = (seg, u32::from(next));
            }
        }
        let (dseg, doff) = l.cur_data[0];
        let (nseg, noff) = l.cur_node[0];
        if doff >= 1 && noff >= 1 {
            let (dentry, inode) = (dseg * SEG_BLOCKS, nseg * SEG_BLOCKS);
            f.claim(dentry, DIR_OWNER, 0);
            f.claim(inode, DIR_OWNER, NODE_BIT);
            f.dir.blocks[0] = dentry;
            f.dir.nodes[0].addr = inode;
            // The user may fill what mkfs left, less what the root directory holds.
            f.a.user_blocks = l.user_block_count.saturating_sub(l.valid_block_count.saturating_sub(2));
        }
        f.ckpt_valid.copy_from_slice(&f.cur_valid);
        f
    }

    /// Mark `addr` valid, owned by (`owner`, `idx`): a block mkfs wrote.
    fn claim(&mut self, addr: u32, owner: u32, idx: u32) {
        let seg = addr / SEG_BLOCKS;
        self.owner[addr as usize] = owner;
        self.owner_idx[addr as usize] = idx;
        self.cur_valid[(addr / 64) as usize] |= 1 << (addr % 64);
        self.seg_valid[seg as usize] += 1;
        self.valid_blocks += 1;
    }

    fn from_areas(cfg: &FsConfig, a: Areas) -> F2fs {
        let (main_segs, nat_blocks, sit_blocks) = (a.main_segs, a.nat_blocks, a.sit_blocks);
        let blocks = main_segs as usize * SEG_BLOCKS as usize;
        F2fs {
            cfg: cfg.clone(),
            a,
            owner: vec![NONE; blocks],
            owner_idx: vec![NONE; blocks],
            seg_valid: vec![0; main_segs as usize],
            seg_state: vec![Seg::Free; main_segs as usize],
            seg_mtime: vec![0; main_segs as usize],
            seg_log: vec![0; main_segs as usize],
            cur_valid: vec![0; blocks.div_ceil(64)],
            ckpt_valid: vec![0; blocks.div_ceil(64)],
            free_segs: main_segs,
            prefree_segs: 0,
            seg_cursor: 0,
            logs: [(NONE, 0); LOGS],
            ssr: [false; LOGS],
            files: Vec::new(),
            dir: LFile {
                size: FS_BLOCK,
                blocks: vec![NONE],
                nodes: vec![Node { addr: NONE, nid: 3, dirty: false }],
                temp: Temp::Hot,
                mtime: 0,
                ipu_since_sync: false,
            },
            dir_entries: 0,
            dir_dirty: Vec::new(),
            dir_times_dirty: false,
            file_clock: None,
            ipu_policy: cfg.ipu_policy.unwrap_or(if main_segs <= SMALL_VOLUME_SEGMENTS {
                IPU_FORCE | IPU_HONOR_OPU_WRITE
            } else {
                IPU_FSYNC
            }),
            valid_blocks: 0,
            reserved_blocks: 0,
            next_nid: 4,
            freed_nids: Vec::new(),
            free_nids: std::collections::BinaryHeap::new(),
            nat_journal: std::collections::HashSet::new(),
            sit_journal: std::collections::HashSet::new(),
            dirty_list: Vec::new(),
            dirty_nodes: 0,
            nat_dirty: vec![false; nat_blocks as usize],
            nat_list: Vec::new(),
            nat_copy: vec![false; nat_blocks as usize],
            sit_copy: vec![false; sit_blocks as usize],
            sit_dirty: vec![false; sit_blocks as usize],
            sit_list: Vec::new(),
            sit_entry_dirty: vec![false; main_segs as usize],
            ssa_list: Vec::new(),
            pending_discards: Vec::new(),
            discards_queued_at: 0,
            last_cp: 0,
            // mkfs wrote the first checkpoint pack: the next goes to the second.
            cp_seq: 1,
            scratch: Vec::new(),
            runs: Vec::new(),
            zoned: false,
            free_secs: 0,
            sec_cursor: 0,
            freed_secs: Vec::new(),
        }
    }

    /// Main-area segments free now.
    pub fn free_segments(&self) -> u32 {
        self.free_segs
    }
    /// On a zoned device, sections (zones) free now: reset, no log in them (0 otherwise).
    pub fn free_sections(&self) -> u32 {
        self.free_secs
    }
    /// On a zoned device, sections whose zone is empty: the free ones and those a log holds
    /// but has not written yet (mkfs.f2fs gives each log a section of its own).
    pub fn empty_sections(&self) -> u32 {
        if !self.zoned {
            return 0;
        }
        let sps = self.a.segs_per_sec;
        self.free_secs
            + self.logs.iter().filter(|&&(seg, next)| seg != NONE && seg % sps == 0 && next == 0).count() as u32
    }
    /// Free segments kept for cleaning: foreground cleaning runs when fewer are free.
    pub fn reserved_segments(&self) -> u32 {
        self.a.reserved_segs
    }
    /// Segments out of the user's reach (mkfs.f2fs's overprovision, reserve included).
    pub fn overprovision_segments(&self) -> u32 {
        self.a.ovp_segs
    }
    /// Segments of the main area (where data and nodes go).
    pub fn main_segments(&self) -> u32 {
        self.a.main_segs
    }
    /// Device byte offset of the main area.
    pub fn main_offset(&self) -> u64 {
        self.a.main_start * FS_BLOCK
    }

    fn dev_off(&self, addr: u32) -> u64 {
        (self.a.main_start + u64::from(addr)) * FS_BLOCK
    }

    fn check_id(&self, id: u32) -> Result<(), FsError> {
        match self.files.get(id as usize) {
            Some(Some(_)) => Ok(()),
            _ => Err(FsError::BadFile(id)),
        }
    }

    /// A live file, or the root directory ([`DIR_OWNER`]).
    fn file(&self, id: u32) -> &LFile {
        if id == DIR_OWNER {
            &self.dir
        } else {
            self.files[id as usize].as_ref().expect("a live file")
        }
    }

    fn file_mut(&mut self, id: u32) -> &mut LFile {
        if id == DIR_OWNER {
            &mut self.dir
        } else {
            self.files[id as usize].as_mut().expect("a live file")
        }
    }

    /// The node log of an owner's nodes: the directory's are hot, files' warm.
    fn node_log(owner: u32) -> usize {
        if owner == DIR_OWNER {
            HOT_NODE
        } else {
            WARM_NODE
        }
    }

    /// The file timestamp a write at `t` takes: the caller's coarse clock, or the virtual time
    /// in ticks of `timestamp_granularity_ns`.
    fn stamp(&self, t: Ns) -> Ns {
        self.file_clock.unwrap_or_else(|| t - t % self.cfg.timestamp_granularity_ns.max(1))
    }

    /// Percent of the user blocks valid (`utilization`).
    fn utilization(&self) -> u64 {
        self.valid_blocks * 100 / self.a.user_blocks.max(1)
    }

    /// Linux 6.1's `f2fs_need_SSR`: free segments at most twice the reserve (its
    /// `min_ssr_sections` is the reserve), never in `mode=lfs`.
    fn need_ssr(&self) -> bool {
        !self.cfg.lfs_only && self.free_segs <= 2 * self.a.reserved_segs
    }

    /// Whether an overwrite of allocated blocks of a file of `temp`, `n` blocks in one write,
    /// goes in place (`f2fs_should_update_inplace`): never in `mode=lfs`; always for cold
    /// files; else as the ipu_policy bits say (`FSYNC`: a write of at most
    /// `min_fsync_blocks`, which the workloads here fsync).
    fn in_place(&self, temp: Temp, n: u64) -> bool {
        if self.cfg.lfs_only {
            return false;
        }
        let p = self.ipu_policy;
        let util = self.utilization() > u64::from(self.cfg.min_ipu_util);
        temp == Temp::Cold
            || p & IPU_FORCE != 0
            || (p & IPU_SSR != 0 && self.need_ssr())
            || (p & IPU_UTIL != 0 && util)
            || (p & IPU_SSR_UTIL != 0 && self.need_ssr() && util)
            || (p & IPU_FSYNC != 0 && n <= u64::from(self.cfg.min_fsync_blocks))
    }

    /// A create or delete: the dentry block holding the name (by the file's `key`, standing in
    /// for the name's hash) and the directory's inode become
    /// dirty (written at the next checkpoint). The directory grows a block per 214 entries.
    fn dir_touch(&mut self, key: u32) {
        let want = self.dir_entries.div_ceil(DENTRIES_PER_BLOCK).max(1) as usize;
        if self.dir.blocks.len() < want {
            self.dir.blocks.resize(want, NONE);
            self.dir.size = want as u64 * FS_BLOCK;
        }
        let b = key.wrapping_mul(2654435761) % self.dir.blocks.len() as u32;
        if !self.dir_dirty.contains(&b) {
            self.dir_dirty.push(b);
        }
        self.dir_times_dirty = true;
        self.mark_node_dirty(DIR_OWNER, 0);
    }

    /// Write the directory's dirty dentry blocks (hot data, out of place), as a checkpoint
    /// does first; their new addresses dirty its inode.
    fn write_dir(&mut self, d: &mut Disk, t: Ns) -> Result<Option<Completion>, FsError> {
        let mut dirty = std::mem::take(&mut self.dir_dirty);
        dirty.sort_unstable();
        for &b in &dirty {
            let old = self.dir.blocks[b as usize];
            if old != NONE {
                self.invalidate(old);
            }
            let addr = self.alloc_block(HOT_DATA, t, DIR_OWNER, b)?;
            self.dir.blocks[b as usize] = addr;
            self.runs.push(addr);
        }
        if !dirty.is_empty() {
            self.mark_node_dirty(DIR_OWNER, 0);
        }
        dirty.clear();
        self.dir_dirty = dirty;
        self.write_runs(d, t, Purpose::Data)
    }

    /// Segment `seg`'s SIT entry changed: into the journal, its block dirty.
    fn mark_sit(&mut self, seg: u32) {
        self.sit_entry_dirty[seg as usize] = true;
        self.sit_journal.insert(seg);
        self.mark_sit_block(seg);
    }

    fn mark_sit_block(&mut self, seg: u32) {
        let b = (seg / SIT_ENTRIES_PER_BLOCK) as usize;
        if !self.sit_dirty[b] {
            self.sit_dirty[b] = true;
            self.sit_list.push(b as u32);
        }
    }

    /// Node `nid`'s NAT entry changed: into the journal, its block dirty.
    fn mark_nat(&mut self, nid: u32) {
        self.nat_journal.insert(nid);
        self.mark_nat_block(nid);
    }

    fn mark_nat_block(&mut self, nid: u32) {
        let b = (nid / NAT_ENTRIES_PER_BLOCK) as usize % self.nat_dirty.len().max(1);
        if let Some(d) = self.nat_dirty.get_mut(b) {
            if !*d {
                *d = true;
                self.nat_list.push(b as u32);
            }
        }
    }

    /// A node id: the lowest free one, or a new one.
    fn alloc_nid(&mut self) -> u32 {
        match self.free_nids.pop() {
            Some(std::cmp::Reverse(n)) => n,
            None => {
                self.next_nid += 1;
                self.next_nid - 1
            }
        }
    }

    fn mark_node_dirty(&mut self, id: u32, ni: usize) {
        let n = &mut self.file_mut(id).nodes[ni];
        if !n.dirty {
            n.dirty = true;
            self.dirty_nodes += 1;
            self.dirty_list.push((id, ni as u32));
        }
    }

    /// Take the next block of `log` for (owner, idx) at time `t`: the next block of its
    /// segment (or, in SSR, its next hole); a new segment when that is full — a free one, or
    /// with free segments below the overprovisioned count (F2FS's `need_SSR`), for the
    /// application's data logs, the used segment of the same log with the fewest valid blocks,
    /// whose holes it then fills. Cleaning (cold log) and nodes always take free segments:
    /// cleaning into the holes of the next victims would only move the garbage around.
    fn alloc_block(&mut self, log: usize, t: Ns, owner: u32, idx: u32) -> Result<u32, FsError> {
        let addr = loop {
            let (seg, next) = self.logs[log];
            if seg != NONE {
                let slot = if self.ssr[log] { self.next_hole(seg, next) } else { Some(next) };
                if let Some(off) = slot.filter(|&o| o < SEG_BLOCKS) {
                    self.logs[log].1 = off + 1;
                    break seg * SEG_BLOCKS + off;
                }
                self.close_segment(seg);
            }
            let ssr_seg =
                ((log == HOT_DATA || log == WARM_DATA) && self.need_ssr()).then(|| self.ssr_victim(log)).flatten();
            let (s, ssr) = match ssr_seg {
                Some(s) => (s, true),
                None => {
                    let s = self.take_segment_after(seg).ok_or_else(|| FsError::NoSpace {
                        name: "(f2fs log)".into(),
                        wanted: FS_BLOCK,
                        free: 0,
                    })?;
                    (s, false)
                }
            };
            self.seg_state[s as usize] = Seg::Open;
            self.seg_log[s as usize] = log as u8;
            self.ssr[log] = ssr;
            self.logs[log] = (s, 0);
        };
        let seg = addr / SEG_BLOCKS;
        self.owner[addr as usize] = owner;
        self.owner_idx[addr as usize] = idx;
        self.cur_valid[(addr / 64) as usize] |= 1 << (addr % 64);
        self.seg_valid[seg as usize] += 1;
        self.seg_mtime[seg as usize] = t;
        self.valid_blocks += 1;
        self.mark_sit(seg);
        Ok(addr)
    }

    /// First block at or after `from` in `seg` that is invalid now and was at the last
    /// checkpoint.
    fn next_hole(&self, seg: u32, from: u32) -> Option<u32> {
        (from..SEG_BLOCKS).find(|&o| {
            let a = seg * SEG_BLOCKS + o;
            let (w, b) = ((a / 64) as usize, a % 64);
            (self.cur_valid[w] | self.ckpt_valid[w]) & (1 << b) == 0
        })
    }

    /// Holes SSR could fill in `seg`.
    fn holes(&self, seg: u32) -> u32 {
        let w0 = (seg * SEG_BLOCKS / 64) as usize;
        let used: u32 =
            (w0..w0 + (SEG_BLOCKS / 64) as usize).map(|w| (self.cur_valid[w] | self.ckpt_valid[w]).count_ones()).sum();
        SEG_BLOCKS - used
    }

    /// SSR victim for `log`: the used segment of that log with the fewest valid blocks that has
    /// holes to fill.
    fn ssr_victim(&self, log: usize) -> Option<u32> {
        let mut best: Option<(u16, u32)> = None;
        for s in 0..self.a.main_segs {
            let i = s as usize;
            if self.seg_state[i] != Seg::Used || self.seg_log[i] as usize != log {
                continue;
            }
            if best.is_some_and(|(v, _)| self.seg_valid[i] >= v) {
                continue;
            }
            if self.holes(s) > 0 {
                best = Some((self.seg_valid[i], s));
            }
        }
        best.map(|(_, s)| s)
    }

    fn close_segment(&mut self, seg: u32) {
        self.ssa_list.push(seg);
        if self.seg_valid[seg as usize] == 0 {
            self.seg_state[seg as usize] = Seg::Prefree;
            self.prefree_segs += 1;
        } else {
            self.seg_state[seg as usize] = Seg::Used;
        }
    }

    /// The next segment of a log that leaves segment `prev` (NONE: its first): on a zoned
    /// device the next segment of its section, or the first of a free section once the
    /// section is written (a log writes its zone from start to end); else any free segment.
    fn take_segment_after(&mut self, prev: u32) -> Option<u32> {
        if !self.zoned {
            return self.take_free_segment();
        }
        let sps = self.a.segs_per_sec;
        if prev != NONE && !(prev + 1).is_multiple_of(sps) {
            let s = prev + 1;
            debug_assert_eq!(self.seg_state[s as usize], Seg::Free, "segment {s} of a log's section");
            self.free_segs -= 1;
            return Some(s);
        }
        let secs = self.a.main_segs / sps;
        if self.free_secs == 0 {
            return None;
        }
        for i in 0..secs {
            let sec = (self.sec_cursor + i) % secs;
            if self.sec_free(sec) {
                self.free_secs -= 1;
                self.free_segs -= 1;
                self.sec_cursor = (sec + 1) % secs;
                return Some(sec * sps);
            }
        }
        None
    }

    /// Zoned: every segment of section `sec` is free (its zone reset, no log in it).
    fn sec_free(&self, sec: u32) -> bool {
        let sps = self.a.segs_per_sec as usize;
        self.seg_state[sec as usize * sps..(sec as usize + 1) * sps].iter().all(|&st| st == Seg::Free)
    }

    /// Zoned: sections a checkpoint would free (every segment free or prefree, one prefree).
    fn prefree_secs(&self) -> u32 {
        let sps = self.a.segs_per_sec as usize;
        self.seg_state
            .chunks_exact(sps)
            .filter(|c| c.iter().all(|&st| st == Seg::Free || st == Seg::Prefree) && c.contains(&Seg::Prefree))
            .count() as u32
    }

    fn take_free_segment(&mut self) -> Option<u32> {
        let n = self.a.main_segs;
        if self.free_segs == 0 {
            return None;
        }
        for i in 0..n {
            let s = (self.seg_cursor + i) % n;
            if self.seg_state[s as usize] == Seg::Free {
                self.free_segs -= 1;
                self.seg_cursor = (s + 1) % n;
                return Some(s);
            }
        }
        None
    }

    fn invalidate(&mut self, addr: u32) {
        let seg = addr / SEG_BLOCKS;
        self.owner[addr as usize] = NONE;
        self.owner_idx[addr as usize] = NONE;
        self.cur_valid[(addr / 64) as usize] &= !(1 << (addr % 64));
        self.seg_valid[seg as usize] -= 1;
        self.valid_blocks -= 1;
        self.mark_sit(seg);
        if self.seg_valid[seg as usize] == 0 && self.seg_state[seg as usize] == Seg::Used {
            self.seg_state[seg as usize] = Seg::Prefree;
            self.prefree_segs += 1;
        }
    }

    /// Send `self.runs` (main-area blocks, in allocation order) as writes of contiguous runs.
    fn write_runs(&mut self, d: &mut Disk, t: Ns, why: Purpose) -> Result<Option<Completion>, FsError> {
        self.write_runs_as(d, t, why, None)
    }

    /// [`F2fs::write_runs`], the trace naming `log` for every run (a file write's blocks
    /// written in place keep their segment but carry the write's temperature, as the kernel's
    /// tracepoints say), or each run's segment's log.
    fn write_runs_as(
        &mut self,
        d: &mut Disk,
        t: Ns,
        why: Purpose,
        log: Option<usize>,
    ) -> Result<Option<Completion>, FsError> {
        let mut last = None;
        for (s, n) in runs_of(&self.runs) {
            d.log = Some(log.map_or(self.seg_log[(s / SEG_BLOCKS) as usize], |l| l as u8));
            let c = d.write(t, self.dev_off(s), u64::from(n) * FS_BLOCK, why);
            d.log = None;
            last = Some(later(last, c?));
        }
        self.runs.clear();
        Ok(last)
    }

    /// Grow file `id` to `blocks` blocks (holes), with the nodes they need; Err when full.
    fn extend(&mut self, id: u32, name: &str, end: u64) -> Result<(), FsError> {
        let blocks = end.div_ceil(FS_BLOCK);
        let f = self.file(id);
        let have = f.blocks.len() as u64;
        if blocks <= have {
            return Ok(());
        }
        let new_nodes = nodes_for(blocks) - f.nodes.len();
        let need = blocks - have + new_nodes as u64;
        if self.valid_blocks + self.reserved_blocks + need > self.a.user_blocks {
            return Err(FsError::NoSpace { name: name.to_string(), wanted: end, free: self.free_bytes() });
        }
        self.reserved_blocks += need;
        let nids: Vec<u32> = (0..new_nodes).map(|_| self.alloc_nid()).collect();
        let f = self.file_mut(id);
        f.blocks.resize(blocks as usize, NEW_ADDR);
        let first = f.nodes.len();
        for nid in nids {
            f.nodes.push(Node { addr: NONE, nid, dirty: false });
        }
        for ni in first..first + new_nodes {
            self.mark_node_dirty(id, ni);
        }
        Ok(())
    }

    /// Checkpoint when the interval passed (the kernel checks it when the flusher writes
    /// node pages back) or too many nodes are dirty. Prefree segments piling up start one only
    /// from the background thread ([`FsModel::idle`]), as `f2fs_balance_fs_bg` does.
    fn tick(&mut self, d: &mut Disk, t: Ns) -> Result<(), FsError> {
        let changed = self.dirty_nodes > 0 || !self.sit_list.is_empty() || !self.nat_list.is_empty();
        if (changed && t >= self.last_cp + self.cfg.cp_interval_ns) || self.dirty_nodes > self.cfg.dirty_node_limit {
            self.checkpoint(d, t)?;
        }
        Ok(())
    }

    /// Foreground cleaning until `need` segments beyond the reserve are free.
    fn ensure_free(&mut self, d: &mut Disk, t: Ns, need: u32) -> Result<(), FsError> {
        // Counted in segments, or on a zoned device in sections (`has_not_enough_free_secs`:
        // the reserve in sections; cleaning takes a whole section).
        let sps = if self.zoned { self.a.segs_per_sec } else { 1 };
        let want = self.a.reserved_segs / sps + need.div_ceil(sps);
        let mut rounds = 0;
        while self.free_units() < want && rounds < 2 * self.a.main_segs / sps {
            rounds += 1;
            if self.free_units() + self.prefree_units() >= want {
                self.checkpoint(d, t)?;
                continue;
            }
            if !self.clean_one(d, t, true)? {
                if self.prefree_segs > 0 {
                    self.checkpoint(d, t)?;
                    continue;
                }
                break;
            }
        }
        Ok(())
    }

    /// Free segments, or on a zoned device free sections.
    fn free_units(&self) -> u32 {
        if self.zoned {
            self.free_secs
        } else {
            self.free_segs
        }
    }

    /// Prefree segments, or on a zoned device sections a checkpoint would free.
    fn prefree_units(&self) -> u32 {
        if self.zoned {
            self.prefree_secs()
        } else {
            self.prefree_segs
        }
    }

    /// Zoned: pick a victim section that no log writes: greedy (fewest valid) or cost-benefit
    /// on the section's valid share and mean segment age (`get_cb_cost`).
    fn victim_section(&self, t: Ns, greedy: bool) -> Option<u32> {
        let sps = self.a.segs_per_sec as usize;
        let blocks = sps as u64 * u64::from(SEG_BLOCKS);
        let mut best: Option<(f64, u32)> = None;
        for (sec, states) in self.seg_state.chunks_exact(sps).enumerate() {
            if states.contains(&Seg::Open) || !states.contains(&Seg::Used) {
                continue;
            }
            let segs = sec * sps..(sec + 1) * sps;
            let valid: u64 = self.seg_valid[segs.clone()].iter().map(|&v| u64::from(v)).sum();
            if valid >= blocks {
                continue;
            }
            let score = if greedy {
                -(valid as f64)
            } else {
                let u = valid as f64 / blocks as f64;
                let mtime = self.seg_mtime[segs].iter().map(|&m| m as f64).sum::<f64>() / sps as f64;
                let age = (t as f64 - mtime).max(0.0) / 1e9 + 1.0;
                (1.0 - u) / (1.0 + u) * age
            };
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, sec as u32));
            }
        }
        best.map(|(_, sec)| sec)
    }

    /// Pick a victim among used segments: greedy (fewest valid) or cost-benefit
    /// ((1-u)/(1+u) * age, as F2FS's `get_cb_cost`).
    fn victim(&self, t: Ns, greedy: bool) -> Option<u32> {
        let mut best: Option<(f64, u32)> = None;
        for s in 0..self.a.main_segs {
            if self.seg_state[s as usize] != Seg::Used || u32::from(self.seg_valid[s as usize]) >= SEG_BLOCKS {
                continue;
            }
            let v = f64::from(self.seg_valid[s as usize]);
            let score = if greedy {
                -v
            } else {
                let u = v / f64::from(SEG_BLOCKS);
                let age = (t.saturating_sub(self.seg_mtime[s as usize]) as f64 / 1e9) + 1.0;
                (1.0 - u) / (1.0 + u) * age
            };
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, s));
            }
        }
        best.map(|(_, s)| s)
    }

    /// Clean one victim: read its valid blocks, write them to the cold or node log. The
    /// victim becomes prefree. False when there is no victim.
    fn clean_one(&mut self, d: &mut Disk, t: Ns, foreground: bool) -> Result<bool, FsError> {
        // A victim segment, or on a zoned device a victim section: (first segment, segments).
        let victim = if self.zoned {
            self.victim_section(t, foreground).map(|sec| (sec * self.a.segs_per_sec, self.a.segs_per_sec))
        } else {
            self.victim(t, foreground).map(|seg| (seg, 1))
        };
        let Some((seg, segs)) = victim else { return Ok(false) };
        let mut list = std::mem::take(&mut self.scratch);
        list.clear();
        for a in seg * SEG_BLOCKS..(seg + segs) * SEG_BLOCKS {
            if self.owner[a as usize] != NONE {
                list.push((a, self.owner[a as usize], self.owner_idx[a as usize]));
            }
        }
        // Reads of the valid blocks, adjacent ones together.
        let mut i = 0;
        while i < list.len() {
            let mut j = i + 1;
            while j < list.len() && list[j].0 == list[i].0 + (j - i) as u32 {
                j += 1;
            }
            d.read(t, self.dev_off(list[i].0), (j - i) as u64 * FS_BLOCK)?;
            d.c.cleaning_read_bytes += (j - i) as u64 * FS_BLOCK;
            i = j;
        }
        for &(old, owner, idx) in &list {
            if idx & NODE_BIT != 0 {
                let ni = (idx & !NODE_BIT) as usize;
                let new = self.alloc_block(F2fs::node_log(owner), t, owner, idx)?;
                let f = self.file_mut(owner);
                f.nodes[ni].addr = new;
                let nid = f.nodes[ni].nid;
                self.mark_nat(nid);
                self.runs.push(new);
            } else {
                let new = self.alloc_block(COLD_DATA, t, owner, idx)?;
                self.file_mut(owner).blocks[idx as usize] = new;
                self.mark_node_dirty(owner, node_of(u64::from(idx)));
                self.runs.push(new);
            }
            self.invalidate(old);
        }
        self.write_runs(d, t, Purpose::Cleaning)?;
        self.scratch = list;
        if foreground {
            d.c.cleaned_segments_foreground += u64::from(segs);
        } else {
            d.c.cleaned_segments_background += u64::from(segs);
        }
        Ok(true)
    }

    /// Write node `ni` of file `id` to the node log (its old copy invalidated).
    fn write_node(&mut self, t: Ns, id: u32, ni: u32) -> Result<(), FsError> {
        let node = self.file(id).nodes[ni as usize];
        if node.addr == NONE {
            // A file's first node write takes its reserved block; the directory has none.
            if id != DIR_OWNER {
                self.reserved_blocks -= 1;
            }
        } else {
            self.invalidate(node.addr);
        }
        let new = self.alloc_block(F2fs::node_log(id), t, id, NODE_BIT | ni)?;
        let n = &mut self.file_mut(id).nodes[ni as usize];
        n.addr = new;
        n.dirty = false;
        self.dirty_nodes -= 1;
        self.mark_nat(node.nid);
        self.runs.push(new);
        Ok(())
    }

    /// Write every dirty node to the node log.
    fn write_all_nodes(&mut self, d: &mut Disk, t: Ns) -> Result<Option<Completion>, FsError> {
        let mut list = std::mem::take(&mut self.dirty_list);
        for &(id, ni) in &list {
            let live_dirty = if id == DIR_OWNER {
                self.dir.nodes[ni as usize].dirty
            } else {
                matches!(self.files.get(id as usize), Some(Some(f)) if f.nodes[ni as usize].dirty)
            };
            if live_dirty {
                self.write_node(t, id, ni)?;
            }
        }
        list.clear();
        self.dirty_list = list;
        self.write_runs(d, t, Purpose::Node)
    }

    /// A checkpoint: dirty nodes, NAT and SIT blocks, flush, checkpoint pack (FUA); prefree
    /// segments become free (and are discarded with `discard`).
    pub(crate) fn checkpoint(&mut self, d: &mut Disk, t: Ns) -> Result<Completion, FsError> {
        let dir = self.write_dir(d, t)?;
        let mut last = self.write_all_nodes(d, t)?;
        if let Some(c) = dir {
            last = Some(later(last, c));
        }
        let copy = self.cp_seq % 2;
        // Dirty NAT and SIT entries stay in the summary block's journals while they fit; past
        // that, the dirty NAT and SIT blocks are written to their areas.
        let nat_spill = self.nat_journal.len() > NAT_JOURNAL_ENTRIES;
        let sit_spill = self.sit_journal.len() > SIT_JOURNAL_ENTRIES;
        // An overflowing journal's entries go to their blocks with the dirty ones.
        if nat_spill {
            let nids: Vec<u32> = self.nat_journal.drain().collect();
            for nid in nids {
                self.mark_nat_block(nid);
            }
        }
        if sit_spill {
            let segs: Vec<u32> = self.sit_journal.drain().collect();
            for seg in segs {
                self.mark_sit_block(seg);
            }
        }
        for (list, start, per_copy, is_nat, spill) in [
            (std::mem::take(&mut self.nat_list), self.a.nat_start, self.a.nat_blocks, true, nat_spill),
            (std::mem::take(&mut self.sit_list), self.a.sit_start, self.a.sit_blocks, false, sit_spill),
        ] {
            let mut list = list;
            list.sort_unstable();
            // Each block is written to the copy it is not in now, which becomes its current
            // copy (the NAT and SIT version bitmaps); adjacent blocks landing together merge.
            let area = per_copy.next_multiple_of(u64::from(SEG_BLOCKS));
            let mut run: Option<(u64, u64)> = None;
            for &b in list.iter().filter(|_| spill) {
                let bits = if is_nat { &mut self.nat_copy } else { &mut self.sit_copy };
                bits[b as usize] = !bits[b as usize];
                let blk = start + u64::from(bits[b as usize]) * area + u64::from(b);
                run = match run {
                    Some((s, n)) if s + n == blk => Some((s, n + 1)),
                    Some((s, n)) => {
                        last = Some(later(last, d.write(t, s * FS_BLOCK, n * FS_BLOCK, Purpose::Meta)?));
                        Some((blk, 1))
                    }
                    None => Some((blk, 1)),
                };
            }
            if let Some((s, n)) = run {
                last = Some(later(last, d.write(t, s * FS_BLOCK, n * FS_BLOCK, Purpose::Meta)?));
            }
            for &b in &list {
                if is_nat {
                    self.nat_dirty[b as usize] = false;
                } else {
                    self.sit_dirty[b as usize] = false;
                }
            }
            list.clear();
            if is_nat {
                self.nat_list = list;
            } else {
                self.sit_list = list;
            }
        }
        if self.cfg.discard && self.cfg.discard_async && !self.zoned {
            if self.pending_discards.is_empty() {
                self.discards_queued_at = t;
            }
            self.queue_small_discards();
        }
        self.sit_entry_dirty.fill(false);
        // Summary blocks of the segments the logs left, adjacent ones together.
        let mut ssa = std::mem::take(&mut self.ssa_list);
        ssa.sort_unstable();
        ssa.dedup();
        for (s, n) in runs_of(&ssa) {
            let blk = self.a.ssa_start + u64::from(s);
            last = Some(later(last, d.write(t, blk * FS_BLOCK, u64::from(n) * FS_BLOCK, Purpose::Meta)?));
        }
        ssa.clear();
        self.ssa_list = ssa;
        // The pack: the checkpoint block and the data logs' compacted summaries (the journals
        // and one entry per block written in each data log's open segment, at most 3 blocks),
        // then, after a flush, its last block.
        // A full log's next block is the first of its next segment; a log filling holes (SSR)
        // counts as a full segment.
        let entries: u64 = [HOT_DATA, WARM_DATA, COLD_DATA]
            .iter()
            .map(|&l| match self.logs[l] {
                (NONE, _) => 0,
                _ if self.ssr[l] => u64::from(SEG_BLOCKS),
                (_, next) => u64::from(next % SEG_BLOCKS),
            })
            .sum();
        let summaries = (JOURNALS_BYTES + SUMMARY_ENTRY_BYTES * entries).div_ceil(FS_BLOCK).clamp(1, 3);
        let pack = (self.a.cp_start + copy * u64::from(SEG_BLOCKS)) * FS_BLOCK;
        last = Some(later(last, d.write(t, pack, (1 + summaries) * FS_BLOCK, Purpose::Meta)?));
        // PREFLUSH once the pack is written, then the footer, then the post-flush that
        // emulates its FUA, each after the one before (`blk-flush.c`).
        let packed = last.map_or(t, |c| c.done);
        let pre = d.flush_after(t, packed)?; // PREFLUSH
        let footer = pack + (1 + summaries) * FS_BLOCK;
        let foot = d.write_after(t, pre.done, footer, FS_BLOCK, Purpose::Meta)?;
        let post = d.flush_after(t, foot.done)?; // FUA, emulated by a post-flush
        let mut done = later(Some(later(Some(later(last, pre)), foot)), post);
        // Prefree segments become free; with discard, adjacent ones trimmed together.
        if self.prefree_segs > 0 {
            let mut s = 0;
            while s < self.a.main_segs {
                if self.seg_state[s as usize] != Seg::Prefree {
                    s += 1;
                    continue;
                }
                let mut e = s;
                while e < self.a.main_segs && self.seg_state[e as usize] == Seg::Prefree {
                    self.seg_state[e as usize] = Seg::Free;
                    e += 1;
                }
                self.free_segs += e - s;
                self.prefree_segs -= e - s;
                if self.zoned {
                    let sps = self.a.segs_per_sec;
                    for sec in s / sps..=(e - 1) / sps {
                        if !self.freed_secs.contains(&sec) {
                            self.freed_secs.push(sec);
                        }
                    }
                } else if self.cfg.discard && self.cfg.discard_async {
                    self.pending_discards.push((s * SEG_BLOCKS, (e - s) * SEG_BLOCKS));
                } else if self.cfg.discard {
                    let off = self.dev_off(s * SEG_BLOCKS);
                    done = later(Some(done), d.trim(t, off, u64::from(e - s) * SEG_BYTES)?);
                }
                s = e;
            }
        }
        // Zoned: a section whose segments are all free now is reset, and the checkpoint waits
        // for it (Linux 6.1's `f2fs_clear_prefree_segments` resets a zone synchronously).
        let mut freed = std::mem::take(&mut self.freed_secs);
        for &sec in &freed {
            if self.sec_free(sec) {
                self.free_secs += 1;
                let off = self.dev_off(sec * self.a.segs_per_sec * SEG_BLOCKS);
                done = later(Some(done), d.zone_reset(t, off)?);
            }
        }
        freed.clear();
        self.freed_secs = freed;
        self.ckpt_valid.copy_from_slice(&self.cur_valid);
        for n in self.freed_nids.drain(..) {
            self.free_nids.push(std::cmp::Reverse(n));
        }
        self.cp_seq += 1;
        self.last_cp = t;
        d.c.checkpoints += 1;
        Ok(done)
    }

    /// Queue the blocks of partly valid segments that were valid at the last checkpoint and are
    /// not now (`add_discard_addrs`), in runs of at least the discard granularity (one block
    /// on a volume of at most 8192 main segments, else 16). Called before the checkpoint
    /// copies the valid map, for the segments whose entries changed.
    fn queue_small_discards(&mut self) {
        let gran = if self.a.main_segs <= SMALL_VOLUME_SEGMENTS { 1 } else { 16 };
        for seg in 0..self.a.main_segs {
            let v = u32::from(self.seg_valid[seg as usize]);
            if !self.sit_entry_dirty[seg as usize] || v == 0 || v >= SEG_BLOCKS {
                continue;
            }
            let (mut first, mut n) = (0u32, 0u32);
            for a in seg * SEG_BLOCKS..=(seg + 1) * SEG_BLOCKS {
                let gone = a < (seg + 1) * SEG_BLOCKS && {
                    let (w, b) = ((a / 64) as usize, a % 64);
                    (self.ckpt_valid[w] & !self.cur_valid[w]) >> b & 1 == 1
                };
                if gone {
                    if n == 0 {
                        first = a;
                    }
                    n += 1;
                } else {
                    if n >= gran {
                        self.pending_discards.push((first, n));
                    }
                    n = 0;
                }
            }
        }
    }

    /// The discard thread from `t` to `end`: the queued discards, merged where adjacent, less
    /// the blocks reused since (`f2fs_wait_discard_bio` punches them out), eight requests a
    /// round, each round 50 ms after the last one's completion. Returns when it stopped.
    fn issue_discards(&mut self, d: &mut Disk, mut t: Ns, end: Ns) -> Result<Ns, FsError> {
        let mut q = std::mem::take(&mut self.pending_discards);
        q.sort_unstable();
        let mut runs: Vec<(u32, u32)> = Vec::with_capacity(q.len());
        for (s, n) in q {
            for a in s..s + n {
                if self.cur_valid[(a / 64) as usize] >> (a % 64) & 1 == 1 {
                    continue;
                }
                match runs.last_mut() {
                    Some((rs, rn)) if *rs + *rn == a => *rn += 1,
                    Some((rs, rn)) if *rs + *rn > a => {}
                    _ => runs.push((a, 1)),
                }
            }
        }
        let mut i = 0;
        while i < runs.len() && t < end {
            let mut round = t;
            for &(s, n) in &runs[i..(i + 8).min(runs.len())] {
                round = round.max(d.trim(t, self.dev_off(s), u64::from(n) * FS_BLOCK)?.done);
            }
            i = (i + 8).min(runs.len());
            t = round + 50_000_000;
        }
        self.pending_discards = runs.split_off(i);
        Ok(t)
    }

    /// When the discard thread starts on the queue, the device idle since `idle_from`: with
    /// nothing to send it sleeps 60 s at a time (`DEF_MAX_DISCARD_ISSUE_TIME`; the model's
    /// mount is time 0), so it wakes at the first such tick after the discards were queued,
    /// and sends once the device has been idle `discard_idle_ns` (the kernel 6.1 in the VM
    /// sent a large delete's discards 55.6 s after the delete's sync).
    fn discard_start(&self, idle_from: Ns) -> Ns {
        const TICK: Ns = 60_000_000_000;
        let tick = (self.discards_queued_at / TICK + 1) * TICK;
        tick.max(idle_from + self.cfg.discard_idle_ns)
    }

    /// Anything for a checkpoint to write (the kernel's `SBI_IS_DIRTY`).
    fn dirty(&self) -> bool {
        self.dirty_nodes > 0
            || !self.sit_list.is_empty()
            || !self.nat_list.is_empty()
            || !self.dir_dirty.is_empty()
            || self.prefree_segs > 0
            || !self.ssa_list.is_empty()
    }

    /// F2FS's `has_enough_invalid_blocks`: less than 60 % of the user space written, and free
    /// segments hold less than 40 % of the space not written.
    fn bg_gc_wanted(&self) -> bool {
        let unwritten = self.a.user_blocks.saturating_sub(self.valid_blocks);
        let free = if self.zoned { self.free_secs * self.a.segs_per_sec } else { self.free_segs };
        let free_user = u64::from(free.saturating_sub(self.a.ovp_segs)) * u64::from(SEG_BLOCKS);
        unwritten > self.a.user_blocks * 40 / 100 && free_user < unwritten * 40 / 100
    }
}

impl FsModel for F2fs {
    /// Bytes the user can allocate on an empty filesystem.
    fn capacity(&self) -> u64 {
        self.a.user_blocks * FS_BLOCK
    }

    /// Bytes of file data the user can still allocate: the free user blocks less the node
    /// blocks (inode and direct nodes) a file holding them needs, so that a file of this size
    /// fits. (Counting the free blocks alone, a file of "all the free space" never fits: its
    /// node blocks take space too. That made `fill --fs f2fs` fail on every profile.)
    fn free_bytes(&self) -> u64 {
        let free = self.a.user_blocks.saturating_sub(self.valid_blocks + self.reserved_blocks);
        data_blocks_fitting(free) * FS_BLOCK
    }

    fn size(&self, id: u32) -> Option<u64> {
        self.files.get(id as usize).and_then(Option::as_ref).map(|f| f.size)
    }

    fn create(&mut self, d: &mut Disk, t: Ns, id: u32, name: &str, size: u64) -> Result<(), FsError> {
        debug_assert!(id as usize >= self.files.len() || self.files[id as usize].is_none(), "id {id} in use");
        self.tick(d, t)?;
        let n = size.div_ceil(FS_BLOCK);
        let nodes = nodes_for(n);
        let need = n + nodes as u64;
        if self.valid_blocks + self.reserved_blocks + need > self.a.user_blocks {
            if id as usize == self.files.len() {
                self.files.push(None);
            }
            return Err(FsError::NoSpace { name: name.to_string(), wanted: size, free: self.free_bytes() });
        }
        self.reserved_blocks += need;
        let mut f = LFile {
            size,
            blocks: vec![NEW_ADDR; n as usize],
            nodes: Vec::with_capacity(nodes),
            temp: temp_of(name),
            mtime: self.stamp(t),
            ipu_since_sync: false,
        };
        for _ in 0..nodes {
            let nid = self.alloc_nid();
            f.nodes.push(Node { addr: NONE, nid, dirty: false });
        }
        // A deleted file's id is reused: the table stays as large as the most files alive at once.
        if id as usize == self.files.len() {
            self.files.push(Some(f));
        } else {
            self.files[id as usize] = Some(f);
        }
        for ni in 0..nodes {
            self.mark_node_dirty(id, ni);
        }
        self.dir_entries += 1;
        self.dir_touch(id);
        Ok(())
    }

    fn io(&mut self, d: &mut Disk, t: Ns, io: FileIo) -> Result<Completion, FsError> {
        let FileIo { id, name, op, off, len } = io;
        self.check_id(id)?;
        self.tick(d, t)?;
        let (b0, b1) = (off / FS_BLOCK, (off + len).div_ceil(FS_BLOCK));
        match op {
            Op::Write => {
                self.extend(id, name, off + len)?;
                let n = b1 - b0;
                self.ensure_free(d, t, (n.div_ceil(u64::from(SEG_BLOCKS)) + 2) as u32)?;
                // The write moves the file's timestamp when the coarse clock moved since the
                // stored one; the inode is then dirty and the next fsync writes it.
                let now = self.stamp(t);
                let (moved, temp) = {
                    let f = self.file_mut(id);
                    let moved = f.mtime != now || off + len > f.size;
                    f.mtime = now;
                    f.size = f.size.max(off + len);
                    (moved, f.temp)
                };
                if moved {
                    self.mark_node_dirty(id, 0);
                }
                // The log: cold and hot files by their extension, others hot when the write
                // (the writeback batch) has at most `min_hot_blocks` blocks, else warm.
                let log = match temp {
                    Temp::Cold => COLD_DATA,
                    Temp::Hot => HOT_DATA,
                    Temp::ByWrite if n <= u64::from(self.cfg.min_hot_blocks) => HOT_DATA,
                    Temp::ByWrite => WARM_DATA,
                };
                let ipu = self.in_place(temp, n);
                for b in b0..b1 {
                    let old = self.file(id).blocks[b as usize];
                    if ipu && old < NEW_ADDR {
                        // In-place update: the block keeps its address, no node changes.
                        self.runs.push(old);
                        self.file_mut(id).ipu_since_sync = true;
                        continue;
                    }
                    if old < NEW_ADDR {
                        self.invalidate(old);
                    } else {
                        self.reserved_blocks -= 1;
                    }
                    let addr = self.alloc_block(log, t, id, b as u32)?;
                    self.file_mut(id).blocks[b as usize] = addr;
                    self.mark_node_dirty(id, node_of(b));
                    self.runs.push(addr);
                }
                d.c.user_write_bytes += len;
                Ok(self.write_runs_as(d, t, Purpose::Data, Some(log))?.unwrap_or_else(|| instant(t)))
            }
            Op::Read | Op::Trim => {
                let f = self.file(id);
                if b1 > f.blocks.len() as u64 {
                    return Err(FsError::BeyondEof { name: name.to_string(), off, len, size: f.size });
                }
                let mut last = None;
                let mut b = b0;
                while b < b1 {
                    let f = self.file(id);
                    let s = f.blocks[b as usize];
                    if s >= NEW_ADDR {
                        b += 1;
                        continue;
                    }
                    let mut e = b + 1;
                    while e < b1 && f.blocks[e as usize] == s + (e - b) as u32 {
                        e += 1;
                    }
                    let (dev, bytes) = (self.dev_off(s), (e - b) * FS_BLOCK);
                    if op == Op::Read {
                        last = Some(later(last, d.read(t, dev, bytes)?));
                    } else {
                        for k in b..e {
                            self.invalidate(s + (k - b) as u32);
                            self.reserved_blocks += 1;
                            self.file_mut(id).blocks[k as usize] = NEW_ADDR;
                            self.mark_node_dirty(id, node_of(k));
                        }
                        // On zones the blocks come back with their section's reset, not by a
                        // discard of their own.
                        if !self.zoned {
                            last = Some(later(last, d.trim(t, dev, bytes)?));
                        }
                    }
                    b = e;
                }
                Ok(last.unwrap_or_else(|| instant(t)))
            }
            Op::Flush => Ok(d.flush(t)?),
        }
    }

    /// fsync: the file's dirty nodes, then a flush; no checkpoint.
    fn fsync(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<Ns, FsError> {
        self.check_id(id)?;
        self.tick(d, t)?;
        let f = self.file(id);
        let dirty = f.nodes.iter().filter(|n| n.dirty).count() as u64;
        if dirty == 0 && !f.ipu_since_sync {
            // Nothing written since the last fsync: no node, no flush (`f2fs_do_sync_file`).
            return Ok(t);
        }
        self.file_mut(id).ipu_since_sync = false;
        // F2FS's own sync path, beyond the fsync call's CPU (`FsCpu::f2fs_fsync_ns`).
        d.not_before = d.not_before.max(t) + d.cpu.f2fs_fsync_ns;
        let mut last = None;
        if dirty > 0 {
            // The CPU of an fsync that writes nodes, beyond that.
            d.not_before += d.cpu.node_ns;
            self.ensure_free(d, t, (dirty.div_ceil(u64::from(SEG_BLOCKS)) + 1) as u32)?;
            let nodes = self.file(id).nodes.len();
            for ni in 0..nodes {
                if self.file(id).nodes[ni].dirty {
                    self.write_node(t, id, ni as u32)?;
                }
            }
            last = self.write_runs(d, t, Purpose::Node)?;
        }
        // `f2fs_do_sync_file` waits for the node pages' writeback, then issues the flush.
        let written = last.map_or(t, |c| c.done);
        Ok(later(last, d.flush_after(t, written)?).done)
    }

    fn delete(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<(), FsError> {
        self.check_id(id)?;
        self.tick(d, t)?;
        let f = self.files[id as usize].take().expect("checked");
        for &a in &f.blocks {
            match a {
                NONE => {}
                NEW_ADDR => self.reserved_blocks -= 1,
                a => self.invalidate(a),
            }
        }
        for n in &f.nodes {
            if n.addr == NONE {
                self.reserved_blocks -= 1;
            } else {
                self.invalidate(n.addr);
            }
            if n.dirty {
                self.dirty_nodes -= 1;
            }
            self.mark_nat(n.nid);
            self.freed_nids.push(n.nid);
        }
        // The id is reused by a later create: no dirty-node entry may outlive the file.
        self.dirty_list.retain(|&(i, _)| i != id);
        self.dir_touch(id);
        self.dir_entries -= 1;
        Ok(())
    }

    /// Idle from `start` (the last request) to `end`: a checkpoint that falls due; with
    /// `discard_async`, the discard thread once the device has been idle `discard_idle_ns`;
    /// and the background cleaner (`gc_thread_func`), which wakes after 30 s and cleans one
    /// cost-benefit victim at every wake-up while the system idles, sleeping 30 s more or
    /// less after each (down to 30 s while `has_enough_invalid_blocks`, else up to 60 s), or
    /// 300 s when it found no victim; after each wake-up a checkpoint when prefree segments
    /// pass 5 % of the main area or the interval passed (`f2fs_balance_fs_bg`).
    fn idle(&mut self, d: &mut Disk, start: Ns, end: Ns) -> Result<(), FsError> {
        let mut t = start;
        let cp_at = (self.last_cp + self.cfg.cp_interval_ns).max(start);
        if self.dirty() && cp_at < end && cp_at < start + self.cfg.gc_sleep_ns {
            t = cp_at;
            self.checkpoint(d, t)?;
        }
        if !self.pending_discards.is_empty() {
            let at = t.max(self.discard_start(start));
            if at < end {
                t = self.issue_discards(d, at, end)?;
            }
        }
        let mut sleep = self.cfg.gc_sleep_ns;
        let mut wake = start + sleep;
        let mut rounds = 0;
        while wake < end && rounds < 4 * self.a.main_segs {
            t = t.max(wake);
            rounds += 1;
            sleep = if self.bg_gc_wanted() {
                self.cfg.gc_sleep_ns
            } else {
                (sleep + self.cfg.gc_sleep_ns).min(2 * self.cfg.gc_sleep_ns)
            };
            let cleaned = self.clean_one(d, t, false)?;
            if self.prefree_segs > self.a.main_segs / 20
                || (self.dirty() && t >= self.last_cp + self.cfg.cp_interval_ns)
            {
                self.checkpoint(d, t)?;
                if !self.pending_discards.is_empty() {
                    let at = t.max(self.discard_start(t));
                    if at < end {
                        t = self.issue_discards(d, at, end)?;
                    }
                }
            }
            wake = t.max(wake) + if cleaned { sleep } else { 10 * self.cfg.gc_sleep_ns };
        }
        Ok(())
    }

    /// A checkpoint, when anything changed since the last one (`f2fs_write_checkpoint` skips
    /// a `CP_SYNC` of a clean filesystem).
    ///
    /// syncfs first writes the dirty pages back; the node writeback runs the background
    /// balance (`f2fs_balance_fs_bg`), which checkpoints when prefree segments pass 5 % of the
    /// main area. Then the inodes' lazytime timestamps are written back (the directory's,
    /// moved by creates and deletes, dirty its inode again), and the sync's own checkpoint
    /// follows.
    fn sync(&mut self, d: &mut Disk, t: Ns) -> Result<Ns, FsError> {
        let dir_times = std::mem::take(&mut self.dir_times_dirty);
        if self.prefree_segs > self.a.main_segs / 20 {
            self.checkpoint(d, t)?;
            if dir_times {
                self.mark_node_dirty(DIR_OWNER, 0);
            }
        }
        if !self.dirty() {
            return Ok(t);
        }
        Ok(self.checkpoint(d, t)?.done)
    }

    /// A directory's fsync is a checkpoint (`CP_NON_REGULAR`).
    fn fsync_dir(&mut self, d: &mut Disk, t: Ns) -> Result<Ns, FsError> {
        if !self.dirty() {
            return Ok(t);
        }
        Ok(self.checkpoint(d, t)?.done)
    }

    fn set_file_clock(&mut self, clock: Option<Ns>) {
        self.file_clock = clock;
    }

    /// A chown's ctime dirties the inode (`f2fs_setattr`); the next fsync writes it.
    fn inode_changed(&mut self, id: u32) {
        if self.check_id(id).is_ok() {
            self.mark_node_dirty(id, 0);
        }
    }

    /// Truncate to 0 bytes (`f2fs_truncate`): the data blocks are invalidated (discarded
    /// later, as any invalid block), the direct nodes freed, the inode dirtied; the file
    /// keeps its name, so the directory does not change.
    fn truncate_to_zero(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<bool, FsError> {
        self.check_id(id)?;
        self.tick(d, t)?;
        let blocks = std::mem::take(&mut self.file_mut(id).blocks);
        for a in blocks {
            match a {
                NONE => {}
                NEW_ADDR => self.reserved_blocks -= 1,
                a => self.invalidate(a),
            }
        }
        let nodes = self.file_mut(id).nodes.split_off(1);
        for n in nodes {
            if n.addr == NONE {
                self.reserved_blocks -= 1;
            } else {
                self.invalidate(n.addr);
            }
            if n.dirty {
                self.dirty_nodes -= 1;
            }
            self.mark_nat(n.nid);
            self.freed_nids.push(n.nid);
        }
        self.dirty_list.retain(|&(i, ni)| i != id || ni == 0);
        let now = self.stamp(t);
        let f = self.file_mut(id);
        f.size = 0;
        f.mtime = now;
        self.mark_node_dirty(id, 0);
        Ok(true)
    }

    /// fstrim: a checkpoint (freeing prefree segments), then discard every free segment;
    /// with `discard_async` they are queued for the discard thread and fstrim returns at once
    /// having trimmed nothing itself (`f2fs_trim_fs` under realtime discard).
    fn fstrim(&mut self, d: &mut Disk, t: Ns) -> Result<(u64, Ns), FsError> {
        let mut done = self.checkpoint(d, t)?.done;
        if self.zoned {
            // Free sections were reset when they were freed: nothing is left to trim.
            return Ok((0, done));
        }
        let queue = self.cfg.discard && self.cfg.discard_async;
        let mut bytes = 0;
        let mut s = 0;
        while s < self.a.main_segs {
            if self.seg_state[s as usize] != Seg::Free {
                s += 1;
                continue;
            }
            let mut e = s;
            while e < self.a.main_segs && self.seg_state[e as usize] == Seg::Free {
                e += 1;
            }
            let len = u64::from(e - s) * SEG_BYTES;
            if queue {
                self.pending_discards.push((s * SEG_BLOCKS, (e - s) * SEG_BLOCKS));
            } else {
                done = done.max(d.trim(t, self.dev_off(s * SEG_BLOCKS), len)?.done);
                bytes += len;
            }
            s = e;
        }
        Ok((bytes, done))
    }

    /// The valid map matches the files' block and node maps; segment counts and states and
    /// the space accounting agree.
    fn check(&self) -> Result<(), InvariantError> {
        let mut owned = vec![0u32; self.a.main_segs as usize];
        let mut reserved = 0u64;
        let mut dirty = 0u32;
        let dir_blocks =
            self.dir.blocks.iter().chain(self.dir.nodes.iter().map(|n| &n.addr)).filter(|&&a| a != NONE).count();
        let files = self.files.iter().enumerate().map(|(id, f)| (id as u32, f.as_ref()));
        for (id, f) in files.chain(std::iter::once((DIR_OWNER, Some(&self.dir)))) {
            let Some(f) = f else { continue };
            let dir = id == DIR_OWNER;
            if (f.blocks.len() as u64) < f.size.div_ceil(FS_BLOCK) {
                return Err(format!("file {id}: {} blocks for {} bytes", f.blocks.len(), f.size).into());
            }
            for (b, &a) in f.blocks.iter().enumerate() {
                match a {
                    NONE => {}
                    NEW_ADDR => reserved += 1,
                    a => {
                        if self.owner[a as usize] != id || self.owner_idx[a as usize] != b as u32 {
                            return Err(format!("file {id} block {b} at {a}, but the valid map says otherwise").into());
                        }
                        owned[(a / SEG_BLOCKS) as usize] += 1;
                    }
                }
            }
            if f.nodes.len() != nodes_for(f.blocks.len() as u64) {
                return Err(format!("file {id}: {} nodes for {} blocks", f.nodes.len(), f.blocks.len()).into());
            }
            for (ni, n) in f.nodes.iter().enumerate() {
                dirty += u32::from(n.dirty);
                if n.addr == NONE {
                    // A file's unwritten node is reserved space; the directory's is not.
                    reserved += u64::from(!dir);
                } else {
                    if self.owner[n.addr as usize] != id || self.owner_idx[n.addr as usize] != NODE_BIT | ni as u32 {
                        return Err(
                            format!("file {id} node {ni} at {}, but the valid map says otherwise", n.addr).into()
                        );
                    }
                    owned[(n.addr / SEG_BLOCKS) as usize] += 1;
                }
            }
        }
        for (log, &(seg, next)) in self.logs.iter().enumerate() {
            if seg == NONE {
                continue;
            }
            if seg >= self.a.main_segs || next > SEG_BLOCKS {
                return Err(format!(
                    "log {log}: write pointer at segment {seg} block {next}, outside the {} segments of {SEG_BLOCKS} blocks",
                    self.a.main_segs
                )
                .into());
            }
            if self.seg_state[seg as usize] != Seg::Open {
                return Err(format!(
                    "log {log} writes segment {seg}, which is {:?}, not open",
                    self.seg_state[seg as usize]
                )
                .into());
            }
        }
        let mut valid = 0u64;
        let (mut free, mut prefree) = (0, 0);
        for (s, &own) in owned.iter().enumerate() {
            let range = s * SEG_BLOCKS as usize..(s + 1) * SEG_BLOCKS as usize;
            if let Some(a) =
                range.clone().find(|&a| (self.owner[a] != NONE) != (self.cur_valid[a / 64] >> (a % 64) & 1 == 1))
            {
                return Err(format!("block {a}: valid bit disagrees with the owner map").into());
            }
            let live = range.filter(|&a| self.owner[a] != NONE).count() as u32;
            if live != own || u32::from(self.seg_valid[s]) != live {
                return Err(format!("segment {s}: valid count {}, map {live}, files {own}", self.seg_valid[s]).into());
            }
            valid += u64::from(live);
            let open = self.logs.iter().any(|&(seg, _)| seg == s as u32);
            match self.seg_state[s] {
                Seg::Free | Seg::Prefree if live > 0 => {
                    return Err(format!("segment {s} is free but holds {live}").into())
                }
                Seg::Free => free += 1,
                Seg::Prefree => prefree += 1,
                Seg::Open if !open => return Err(format!("segment {s} open but no log's").into()),
                Seg::Used if live == 0 => return Err(format!("segment {s} used but empty").into()),
                _ => {}
            }
        }
        if valid != self.valid_blocks || reserved != self.reserved_blocks || dirty != self.dirty_nodes {
            return Err(format!(
                "accounting: valid {valid} vs {}, reserved {reserved} vs {}, dirty nodes {dirty} vs {}",
                self.valid_blocks, self.reserved_blocks, self.dirty_nodes
            )
            .into());
        }
        if free != self.free_segs || prefree != self.prefree_segs {
            return Err(format!("free {free} vs {}, prefree {prefree} vs {}", self.free_segs, self.prefree_segs).into());
        }
        if self.zoned {
            let sps = self.a.segs_per_sec;
            let free_secs = (0..self.a.main_segs / sps).filter(|&sec| self.sec_free(sec)).count() as u32;
            if free_secs != self.free_secs {
                return Err(format!("free sections {free_secs} vs {}", self.free_secs).into());
            }
            // Each log writes its own section, from its start: the segments before its
            // current one are written, those after it free.
            for (log, &(seg, _)) in self.logs.iter().enumerate().filter(|(_, &(seg, _))| seg != NONE) {
                let first = seg - seg % sps;
                if let Some(s) = (first..seg).find(|&s| self.seg_state[s as usize] == Seg::Open) {
                    return Err(format!("log {log} at segment {seg}, but segment {s} of its section is open").into());
                }
                if let Some(s) = (seg + 1..first + sps).find(|&s| self.seg_state[s as usize] != Seg::Free) {
                    return Err(format!(
                        "log {log} at segment {seg}, but segment {s} ahead of it in its section is {:?}",
                        self.seg_state[s as usize]
                    )
                    .into());
                }
            }
        }
        // The directory's blocks are the filesystem's, not the user's.
        let in_use = self.valid_blocks - dir_blocks as u64 + self.reserved_blocks;
        if in_use > self.a.user_blocks {
            return Err(format!("{} blocks in use, user space {}", in_use, self.a.user_blocks).into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FsKind;

    #[test]
    fn a_file_of_all_free_bytes_fits_with_its_nodes() {
        for free in [0, 1, 2, 900, 923, 924, 925, 2000, 1_000_000, 3_900_123] {
            let n = data_blocks_fitting(free);
            assert!(n == 0 || n + nodes_for(n) as u64 <= free, "{free}: {n}");
            let m = n + 1;
            assert!(m + nodes_for(m) as u64 > free, "{free}: {n} is not the most");
        }
    }

    /// mkfs.f2fs 1.15's reserve and overprovision for the two zoned volumes measured in the VM
    /// (bench/f2fs-zoned-vm.sh): 16 MiB zones (616 main segments in sections of 8) and 64 MiB
    /// zones (1088 in sections of 32); its dump gave these counts.
    #[test]
    fn zoned_reserve_and_overprovision_follow_mkfs() {
        for (zones, sps, rsvd, ovp) in [(77, 8, 224, 263), (34, 32, 896, 915)] {
            let a = zoned_areas(&ZonedGeometry { zones, segs_per_sec: sps });
            assert_eq!((a.main_segs, a.reserved_segs, a.ovp_segs), (zones * sps, rsvd, ovp), "{zones} x {sps}");
        }
    }

    #[test]
    fn runs_of_consecutive_numbers() {
        let r: Vec<(u32, u32)> = runs_of(&[3, 4, 5, 9, 11, 12]).collect();
        assert_eq!(r, [(3, 3), (9, 1), (11, 2)]);
        assert_eq!(runs_of(&[]).count(), 0);
    }

    #[test]
    fn node_geometry() {
        assert_eq!((node_of(0), node_of(922), node_of(923), node_of(923 + 1018)), (0, 0, 1, 2));
        assert_eq!((nodes_for(0), nodes_for(923), nodes_for(924), nodes_for(262_144)), (1, 1, 2, 258));
    }

    #[test]
    fn the_check_names_a_log_writing_outside_its_open_segment() {
        let mut f = F2fs::new(256 << 20, &FsConfig::new(FsKind::F2fs));
        f.check().unwrap();
        let mut g = f.clone();
        g.logs[0] = (3, 0);
        let msg = g.check().unwrap_err().0;
        assert_eq!(msg, "log 0 writes segment 3, which is Free, not open");
        f.logs[1] = (f.a.main_segs, 0);
        assert!(f.check().unwrap_err().0.starts_with("log 1: write pointer at segment"));
    }

    #[test]
    fn layout_follows_mkfs() {
        let f = F2fs::new(16_000_000_000, &FsConfig::new(FsKind::F2fs));
        // mkfs.f2fs with 5 % overprovision: 2 * (100 / 5 + 1) + 6 = 48 reserved segments.
        assert_eq!(f.reserved_segments(), 48);
        let ovp = f64::from(f.overprovision_segments()) / f64::from(f.main_segments());
        assert!((0.05..0.06).contains(&ovp), "{ovp}");
        assert!(f.main_offset() > 0 && f.main_offset() < 16_000_000_000 / 100);
        assert_eq!(f.free_segments(), f.main_segments());
        f.check().unwrap();
        // A 256 MiB device: the reserve is capped at an eighth of the main area.
        let f = F2fs::new(256 << 20, &FsConfig::new(FsKind::F2fs));
        assert_eq!(f.reserved_segments(), f.main_segments() / 8);
        assert!(f.capacity() > (180 << 20), "{}", f.capacity());
    }
}
