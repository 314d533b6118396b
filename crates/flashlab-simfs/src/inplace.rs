//! The in-place filesystem models: `plain` (data extents only, as flashlab modelled before)
//! and `ext4` (the same data allocation plus ext4's metadata blocks and a jbd2 journal).
//!
//! ext4, as modelled:
//! * Data is written in place; blocks are allocated when a file is created (fallocate) or a
//!   write goes past what it holds: next-fit on `plain`, by ext4's multi-block allocator on
//!   `ext4` (goals, the small-file window, normalized requests in the buddy system:
//!   [`super::ext4_alloc`]), over the layout mke2fs or Android's make_ext4fs makes
//!   ([`super::ext4_layout`]) or one read from a real image.
//! * Metadata blocks dirtied: the block bitmap and group descriptor of every group an
//!   allocation or free touches; the inode-table block of the file on every size change and
//!   write that moves its mtime (no `lazytime`; the coarse clock ticks every
//!   `timestamp_granularity_ns`, a jiffy) or converts an unwritten extent (a file's blocks are
//!   unwritten from `create`, which is fallocate, until first written; the conversion also
//!   dirties the extent leaf that maps the block; ext4's zero-out of short unwritten pieces and
//!   the splits that grow the tree are not modelled); the inode bitmap on create and delete; a directory
//!   block and the directory's own inode (its mtime and ctime) on create/delete (all files in
//!   the root directory, 128 entries a block); extent-tree leaf blocks once a file has more
//!   than the 4 extents its inode holds (340 per leaf); the superblock when a delete or a
//!   truncate puts the inode on the orphan list (its head, `s_last_orphan`, is in the
//!   superblock) and once after mount, when the first file is opened (ext4 records the mount
//!   point in `s_last_mounted`).
//! * Dirty blocks go to the running transaction; it commits (ordered mode: data is already on
//!   the device, the model writing data synchronously) every `commit_interval` of virtual time
//!   — checked at each io, fsync and idle — and on fsync of a file whose metadata is in it.
//!   fsync of a file with nothing in the running transaction is a cache flush only. fsync and
//!   fdatasync are the same here: mtime updates put every written file in the transaction.
//! * Blocks freed by delete can be reused only after the commit that frees them (as jbd2
//!   does); online discard trims them at that commit. An allocation that does not fit while
//!   frees are pending forces a commit first.
//! * The journal checkpoints when 3/4 full, and `writeback_interval` after a commit
//!   (standing in for the flusher writing the metadata home).

use super::disk::{instant, later, Disk, Purpose};
use super::ext4_alloc::Mballoc;
use super::ext4_layout::{default_journal_blocks, make_ext4fs_journal_blocks, Layout};
use super::journal::Journal;
use super::FsConfig;
use crate::extents::{check_tiling, Allocator, Extent, File, FS_BLOCK};
use crate::model::{FileIo, FsModel};
use crate::{FsError, InvariantError};
use flashsim::{Completion, Ns, Op, SECTOR};

/// The kernel's coarse clock at simulated time `t`: `t` rounded down to the tick (a jiffy).
fn coarse_time(t: Ns, tick: Ns) -> Ns {
    let tick = tick.max(1);
    t / tick * tick
}

/// The block holding the primary superblock (at byte 1024 of block 0 with 4 KiB blocks).
const SUPERBLOCK: u64 = 0;
/// The root directory's inode number, the directory every file of the model lives in.
const ROOT_INO: u64 = 2;

/// Extents an ext4 inode holds itself; beyond that, leaf blocks of this many extents each.
const INODE_EXTENTS: usize = 4;
const EXTENTS_PER_LEAF: usize = 340;
/// Bytes of one directory entry: 8 bytes of header and the name, rounded up to 4.
fn dirent_bytes(name: &str) -> u64 {
    (8 + name.len() as u64).div_ceil(4) * 4
}

#[derive(Debug, Clone)]
struct IFile {
    f: File,
    /// Extent-tree leaf blocks (block numbers).
    leaves: Vec<u64>,
    ino: u64,
    /// The transaction that last took this file's metadata.
    txn: u64,
    /// Bytes of its directory entry.
    dirent: u64,
    /// The coarse timestamp its last mtime update took (`u64::MAX`: none yet).
    mtime: Ns,
    /// Its timestamps were read since that update.
    queried: bool,
    /// It was written since its atime was last updated (`relatime` updates it on the next read).
    atime_stale: bool,
    /// ext4: one bit per block allocated by `create` (fallocate) and not written since: an
    /// unwritten extent. Empty when there is none.
    unwritten: Vec<u64>,
}

impl IFile {
    /// Mark blocks `first..=last` written; true if any of them was unwritten (ext4 then
    /// converts that part of the extent at the write's completion, a journaled change of the
    /// extent tree: `ext4_convert_unwritten_extents`).
    fn convert(&mut self, first: u64, last: u64) -> bool {
        let bits = self.unwritten.len() as u64 * 64;
        if first >= bits {
            return false;
        }
        let mut any = false;
        for b in first..=last.min(bits - 1) {
            let (w, m) = ((b / 64) as usize, 1u64 << (b % 64));
            if self.unwritten[w] & m != 0 {
                self.unwritten[w] &= !m;
                any = true;
            }
        }
        if any && self.unwritten.iter().all(|&w| w == 0) {
            self.unwritten = Vec::new();
        }
        any
    }
}

#[derive(Debug, Clone)]
struct Ext4 {
    layout: Layout,
    journal: Option<Journal>,
    /// Home block numbers dirtied in the running transaction (sorted at commit).
    dirty: Vec<u64>,
    /// Running transaction id.
    tid: u64,
    next_commit: Ns,
    /// Extents freed in the running transaction (bytes): reusable after its commit.
    pending_free: Vec<(u64, u64)>,
    dir_blocks: Vec<u64>,
    /// How many of `dir_blocks` the layout gave (static blocks, outside the tiling check).
    given_dir_blocks: usize,
    /// Bytes of directory entries in use (".", "..", and the files').
    dir_bytes: u64,
    /// Static metadata and journal (block ranges), for the tiling check.
    fixed: Vec<(u64, u64)>,
    mb: Mballoc,
    /// The mount point was recorded in the superblock (`s_last_mounted`): ext4 does it at the
    /// first open of a file after mount (`ext4_sample_last_mounted`), through the journal.
    mount_sampled: bool,
}

/// The `plain` or `ext4` model's state: free space, files' extents, and on ext4 the
/// metadata, running transaction and journal (see the module's doc).
#[derive(Debug, Clone)]
pub struct InPlace {
    cfg: FsConfig,
    alloc: Allocator,
    files: Vec<Option<IFile>>,
    ext4: Option<Ext4>,
    /// The coarse clock file timestamps read, when the caller gives it ([`InPlace::set_file_clock`]);
    /// `None`: the simulated time rounded down to `timestamp_granularity_ns`.
    file_clock: Option<Ns>,
}

impl InPlace {
    /// `plain` (when `ext4` is false) or `ext4` over `capacity` bytes.
    ///
    /// # Panics
    /// With `cfg.make_ext4fs`, on a device too small for make_ext4fs's metadata and journal
    /// (make_ext4fs fails there; [`FsConfig::from_profile`] refuses such a profile first).
    pub(crate) fn new(capacity: u64, cfg: &FsConfig, ext4: bool) -> InPlace {
        let blocks = capacity / FS_BLOCK;
        if ext4 && cfg.make_ext4fs {
            let layout = Layout::make_ext4fs(blocks).unwrap_or_else(|e| panic!("{e}"));
            // make_ext4fs leaves off a last group too small for its header: the device's
            // blocks past the filesystem are never used.
            return InPlace::with_layout(layout.blocks * FS_BLOCK, cfg, Some(layout));
        }
        let layout = ext4.then(|| Layout::new(blocks));
        InPlace::with_layout(capacity, cfg, layout)
    }

    /// `ext4` over the blocks of `layout` (when given; `plain` without), the journal where the
    /// layout says it is (or where mke2fs would put it, of the size its mkfs would give it).
    pub(crate) fn with_layout(capacity: u64, cfg: &FsConfig, layout: Option<Layout>) -> InPlace {
        let mut alloc = Allocator::new(capacity);
        let ext4 = layout.map(|layout| {
            let blocks = alloc.capacity() / FS_BLOCK;
            let mut fixed = Vec::new();
            for (s, l) in layout.static_ranges() {
                if alloc.reserve(s * FS_BLOCK, l * FS_BLOCK) {
                    fixed.push((s, l));
                }
            }
            let jblocks = match layout.journal() {
                Some((_, l)) => l,
                None => match (cfg.journal_bytes, layout.journal_blocks()) {
                    (Some(b), _) => b / FS_BLOCK,
                    (None, Some(j)) => j,
                    (None, None) if cfg.make_ext4fs => make_ext4fs_journal_blocks(blocks),
                    (None, None) => default_journal_blocks(blocks),
                },
            };
            // make_ext4fs's: where its `do_allocate` puts it, from group 0 on
            // ([`Layout::make_ext4fs_journal`]), with its extent block when it has one.
            // mke2fs's: one run where mke2fs aims it; when no free run is that long, runs from
            // the goal on, spanning groups.
            let jruns = match layout.journal() {
                Some((s, l)) if l >= 8 => alloc.reserve(s * FS_BLOCK, l * FS_BLOCK).then(|| vec![(s * FS_BLOCK, l)]),
                _ if jblocks >= 8 && layout.is_make_ext4fs() => layout.make_ext4fs_journal(jblocks).and_then(|j| {
                    if let Some(b) = j.extent_block {
                        if alloc.reserve(b * FS_BLOCK, FS_BLOCK) {
                            fixed.push((b, 1));
                        }
                    }
                    j.runs
                        .iter()
                        .all(|&(s, l)| alloc.reserve(s * FS_BLOCK, l * FS_BLOCK))
                        .then(|| j.runs.iter().map(|&(s, l)| (s * FS_BLOCK, l)).collect())
                }),
                _ if jblocks >= 8 => {
                    let (goal, bytes) = (layout.journal_goal() * FS_BLOCK, jblocks * FS_BLOCK);
                    match alloc.take_contiguous(goal, bytes) {
                        Some(s) => Some(vec![(s, jblocks)]),
                        None => alloc
                            .take_runs(goal, bytes)
                            .map(|runs| runs.into_iter().map(|(s, l)| (s, l / FS_BLOCK)).collect()),
                    }
                }
                _ => None,
            };
            let journal = jruns.map(|runs| {
                fixed.extend(runs.iter().map(|&(s, l)| (s / FS_BLOCK, l)));
                Journal::new(runs)
            });
            Ext4 {
                journal,
                dirty: Vec::new(),
                tid: 1,
                next_commit: cfg.commit_interval_ns,
                pending_free: Vec::new(),
                given_dir_blocks: layout.root_dir.len(),
                dir_blocks: layout.root_dir.clone(),
                dir_bytes: 24 + if layout.root_dir.is_empty() { 0 } else { dirent_bytes("lost+found") },
                fixed,
                mb: Mballoc::default(),
                mount_sampled: false,
                layout,
            }
        });
        InPlace { cfg: cfg.clone(), alloc, files: Vec::new(), ext4, file_clock: None }
    }

    /// ext4's directory blocks (block numbers; empty on `plain`).
    pub fn dir_blocks(&self) -> &[u64] {
        self.ext4.as_ref().map_or(&[], |e| e.dir_blocks.as_slice())
    }

    /// Free space as statfs sees it (the small-file window counts as free, as the kernel's
    /// on-disk bitmaps show preallocated blocks), merged runs in bytes: (offset, length).
    pub fn free_space(&self) -> Vec<(u64, u64)> {
        let mut v = self.alloc.free_extents();
        if let Some(e4) = &self.ext4 {
            v.extend(e4.pending_free.iter().copied());
            v.extend(e4.mb.window().map(|(s, l)| (s * FS_BLOCK, l * FS_BLOCK)));
        }
        v.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
        for (s, l) in v {
            match out.last_mut() {
                Some(p) if p.0 + p.1 == s => p.1 += l,
                _ => out.push((s, l)),
            }
        }
        out
    }

    /// The journal's runs on the device, if this is ext4 with a journal: (device offset,
    /// bytes) each, in log order (one run unless no free run was long enough).
    pub fn journal_regions(&self) -> Option<Vec<(u64, u64)>> {
        self.ext4.as_ref().and_then(|e| e.journal.as_ref()).map(|j| j.regions())
    }

    /// Without a journal, freed extents are free at once: trimmed first when mounted with
    /// `discard`.
    fn release_now(&mut self, d: &mut Disk, t: Ns, freed: Vec<(u64, u64)>) -> Result<(), FsError> {
        for (s, l) in freed {
            if self.cfg.discard {
                d.trim(t, s, l)?;
            }
            self.alloc.release(s, l);
        }
        Ok(())
    }

    fn file(&self, id: u32) -> Result<&IFile, FsError> {
        self.files.get(id as usize).and_then(Option::as_ref).ok_or(FsError::BadFile(id))
    }

    /// The file's extents (for tests and invariant checks).
    pub fn extents(&self, id: u32) -> Option<&[Extent]> {
        self.files.get(id as usize).and_then(Option::as_ref).map(|f| f.f.extents.as_slice())
    }

    /// Allocate file `id` up to `wanted` bytes (whole blocks); forces a commit to
    /// release pending frees when short of space.
    fn grow(&mut self, d: &mut Disk, t: Ns, id: u32, name: &str, wanted: u64) -> Result<(), FsError> {
        let f = self.files[id as usize].as_mut().expect("caller checked");
        let have = f.f.allocated();
        let need = (wanted.div_ceil(FS_BLOCK) * FS_BLOCK).saturating_sub(have);
        if need == 0 {
            return Ok(());
        }
        if need > self.alloc.free_bytes() && self.ext4.as_ref().is_some_and(|e| !e.pending_free.is_empty()) {
            self.commit(d, t)?;
        }
        let f = self.files[id as usize].as_mut().expect("caller checked");
        let first_new = f.f.extents.len().saturating_sub(1);
        let ok = match &mut self.ext4 {
            None => self.alloc.alloc(need, have, &mut f.f.extents),
            Some(e4) => {
                let goal =
                    f.f.extents.last().map_or_else(|| e4.layout.file_goal(f.ino), |e| (e.dev_off + e.len) / FS_BLOCK);
                let end = wanted.div_ceil(FS_BLOCK).max(f.f.size.div_ceil(FS_BLOCK));
                e4.mb.alloc(&mut self.alloc, &e4.layout, need / FS_BLOCK, end, goal, have, &mut f.f.extents)
            }
        };
        if !ok {
            return Err(FsError::NoSpace { name: name.to_string(), wanted, free: self.alloc.free_bytes() });
        }
        if let Some(e4) = &mut self.ext4 {
            let f = self.files[id as usize].as_mut().expect("caller checked");
            for e in &f.f.extents[first_new..] {
                dirty_groups(e4, e.dev_off, e.len);
            }
            // Extent-tree leaves: one per 340 extents past the 4 the inode holds.
            let leaves =
                if f.f.extents.len() > INODE_EXTENTS { f.f.extents.len().div_ceil(EXTENTS_PER_LEAF) } else { 0 };
            while f.leaves.len() < leaves {
                let goal = f.f.extents.last().map_or(0, |e| (e.dev_off + e.len) / FS_BLOCK);
                let Some(b) = e4.mb.alloc_meta(&mut self.alloc, &e4.layout, goal) else {
                    break; // the tree stays in fewer leaves: a model simplification on a full fs
                };
                dirty_groups(e4, b * FS_BLOCK, FS_BLOCK);
                f.leaves.push(b);
            }
            if let Some(&leaf) = f.leaves.last() {
                e4.dirty.push(leaf);
            }
            touch_inode(e4, f);
        }
        Ok(())
    }

    /// Commit when the commit interval has passed; write back journaled metadata when due.
    fn tick(&mut self, d: &mut Disk, t: Ns) -> Result<(), FsError> {
        let Some(e4) = &mut self.ext4 else { return Ok(()) };
        if t >= e4.next_commit {
            if e4.dirty.is_empty() && e4.pending_free.is_empty() {
                e4.next_commit = t + self.cfg.commit_interval_ns;
            } else {
                self.commit(d, t)?;
            }
        }
        let e4 = self.ext4.as_mut().expect("ext4");
        if let Some(j) = &mut e4.journal {
            if j.writeback_due(t, self.cfg.writeback_interval_ns).is_some() {
                j.checkpoint(d, t)?;
            }
        }
        Ok(())
    }

    /// Commit the running transaction (no-op on `plain` or with nothing in it).
    fn commit(&mut self, d: &mut Disk, t: Ns) -> Result<Completion, FsError> {
        let cfg = &self.cfg;
        let Some(e4) = &mut self.ext4 else { return Ok(instant(t)) };
        e4.next_commit = t + cfg.commit_interval_ns;
        if e4.dirty.is_empty() && e4.pending_free.is_empty() {
            return Ok(instant(t));
        }
        e4.dirty.sort_unstable();
        e4.dirty.dedup();
        let mut last = None;
        match &mut e4.journal {
            Some(j) => {
                let chunk = (j.max_transaction() - 2) as usize;
                if e4.dirty.is_empty() {
                    last = Some(j.commit(d, t, &[], cfg.journal_checkpoint_fraction)?);
                }
                for part in e4.dirty.chunks(chunk.max(1)) {
                    last = Some(later(last, j.commit(d, t, part, cfg.journal_checkpoint_fraction)?));
                }
            }
            None => {
                // No journal (a filesystem under 8 MiB): metadata goes home directly.
                for &b in &e4.dirty {
                    last = Some(later(last, d.write(t, b * FS_BLOCK, FS_BLOCK, Purpose::Meta)?));
                }
                last = Some(later(last, d.flush(t)?));
                d.c.commits += 1;
            }
        }
        e4.dirty.clear();
        e4.tid += 1;
        for (s, l) in e4.pending_free.drain(..) {
            if cfg.discard {
                last = Some(later(last, d.trim(t, s, l)?));
            }
            self.alloc.release(s, l);
        }
        Ok(last.unwrap_or_else(|| instant(t)))
    }

    /// Truncate file `id` to 0 bytes: its blocks are freed (reusable after the commit, as on
    /// delete), the inode and the freed groups' bitmaps and descriptors are dirtied; the file,
    /// its inode and its directory entry stay.
    pub(crate) fn truncate_to_zero(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<(), FsError> {
        self.file(id)?;
        let f = self.files[id as usize].as_mut().expect("checked");
        let shrinks = f.f.size > 0 || !f.f.extents.is_empty();
        let mut freed: Vec<(u64, u64)> = f.f.extents.drain(..).map(|e| (e.dev_off, e.len)).collect();
        freed.extend(f.leaves.drain(..).map(|b| (b * FS_BLOCK, FS_BLOCK)));
        f.f.size = 0;
        f.unwritten = Vec::new();
        match &mut self.ext4 {
            None => self.release_now(d, t, freed)?,
            Some(e4) => {
                for &(s, l) in &freed {
                    dirty_groups(e4, s, l);
                }
                if shrinks {
                    // A shrinking truncate puts the inode on the orphan list while it frees
                    // the blocks (`ext4_setattr`): the list head is in the superblock.
                    e4.dirty.push(SUPERBLOCK);
                }
                e4.pending_free.extend(freed);
                let f = self.files[id as usize].as_mut().expect("checked");
                f.txn = 0;
                touch_inode(e4, f);
            }
        }
        Ok(())
    }
}

impl FsModel for InPlace {
    fn capacity(&self) -> u64 {
        self.alloc.capacity()
    }

    /// Bytes free for new data. As ext4's statfs, blocks freed in the running transaction
    /// count as free (an allocation that needs them forces the commit).
    fn free_bytes(&self) -> u64 {
        self.alloc.free_bytes()
            + self
                .ext4
                .as_ref()
                .map_or(0, |e| e.pending_free.iter().map(|&(_, l)| l).sum::<u64>() + e.mb.window_blocks() * FS_BLOCK)
    }

    fn size(&self, id: u32) -> Option<u64> {
        self.files.get(id as usize).and_then(Option::as_ref).map(|f| f.f.size)
    }

    fn create(&mut self, d: &mut Disk, t: Ns, id: u32, name: &str, size: u64) -> Result<(), FsError> {
        debug_assert!(id as usize >= self.files.len() || self.files[id as usize].is_none(), "id {id} in use");
        let first_ino = self.ext4.as_ref().map_or(12, |e| e.layout.first_free_ino);
        let ino = first_ino + u64::from(id);
        let file = Some(IFile {
            f: File { size, extents: Vec::new() },
            leaves: Vec::new(),
            ino,
            txn: 0,
            dirent: dirent_bytes(name),
            mtime: u64::MAX,
            queried: false,
            atime_stale: false,
            unwritten: Vec::new(),
        });
        // A deleted file's id is reused (as ext4 reuses inode numbers): the table stays as
        // large as the most files alive at once, not as all files ever created.
        if id as usize == self.files.len() {
            self.files.push(file);
        } else {
            self.files[id as usize] = file;
        }
        if let Err(e) = self.grow(d, t, id, name, size) {
            self.files[id as usize] = None;
            return Err(e);
        }
        if let Some(e4) = &mut self.ext4 {
            sample_last_mounted(e4);
            let g = e4.layout.inode_group(ino);
            e4.dirty.push(e4.layout.inode_bitmap(g));
            e4.dirty.push(e4.layout.descriptor_block(g));
            // The new entry changes the directory's mtime and ctime (`ext4_add_entry`).
            e4.dirty.push(e4.layout.inode_block(ROOT_INO));
            let entry = dirent_bytes(name);
            if e4.dir_bytes + entry > e4.dir_blocks.len() as u64 * FS_BLOCK {
                // Directory blocks start at the directory's group (the flex group's first).
                let goal = e4.dir_blocks.last().map_or_else(|| e4.layout.group_start(0), |&b| b + 1);
                if let Some(b) = e4.mb.alloc_meta(&mut self.alloc, &e4.layout, goal) {
                    dirty_groups(e4, b * FS_BLOCK, FS_BLOCK);
                    e4.dir_blocks.push(b);
                }
            }
            e4.dir_bytes += entry;
            if let Some(&b) = e4.dir_blocks.last() {
                e4.dirty.push(b);
            }
            let f = self.files[id as usize].as_mut().expect("just made");
            touch_inode(e4, f);
            // fallocate makes unwritten extents: reads of them return zeros, and the first
            // write of each block converts it (`io`).
            let blocks = size.div_ceil(FS_BLOCK);
            f.unwritten = vec![u64::MAX; blocks.div_ceil(64) as usize];
            if !blocks.is_multiple_of(64) {
                if let Some(w) = f.unwritten.last_mut() {
                    *w = (1u64 << (blocks % 64)) - 1;
                }
            }
        }
        Ok(())
    }

    fn io(&mut self, d: &mut Disk, t: Ns, io: FileIo) -> Result<Completion, FsError> {
        let FileIo { id, name, op, off, len } = io;
        self.file(id)?;
        self.tick(d, t)?;
        if let Some(e4) = &mut self.ext4 {
            sample_last_mounted(e4);
        }
        if op == Op::Write {
            let end = off + len;
            self.grow(d, t, id, name, end)?;
            let f = self.files[id as usize].as_mut().expect("checked");
            let grew = end > f.f.size;
            f.f.size = f.f.size.max(end);
            if let Some(e4) = &mut self.ext4 {
                // Size, or mtime when the coarse clock moved since the last update (the
                // kernel compares the new timestamp with the stored one).
                let now = self.file_clock.unwrap_or_else(|| coarse_time(t, self.cfg.timestamp_granularity_ns));
                f.atime_stale = true;
                if grew || now != f.mtime || f.queried {
                    f.mtime = now;
                    f.queried = false;
                    touch_inode(e4, f);
                }
                // Writing into an unwritten extent converts it: the inode (and the extent
                // leaf that maps the block, once the tree has leaves) joins the transaction,
                // so the next fsync commits, whatever the clock did.
                if len > 0 && f.convert(off / FS_BLOCK, (end - 1) / FS_BLOCK) {
                    touch_inode(e4, f);
                    if !f.leaves.is_empty() {
                        let blocks = f.f.size.div_ceil(FS_BLOCK).max(1);
                        let i = ((off / FS_BLOCK) * f.leaves.len() as u64 / blocks) as usize;
                        e4.dirty.push(f.leaves[i.min(f.leaves.len() - 1)]);
                    }
                }
            }
            d.c.user_write_bytes += len;
        }
        let f = self.file(id)?;
        if off + len > f.f.allocated() {
            return Err(FsError::BeyondEof { name: name.to_string(), off, len, size: f.f.size });
        }
        let mut result: Option<Completion> = None;
        let mut err = None;
        let f = &self.files[id as usize].as_ref().expect("checked").f;
        // The device sees whole 512-byte sectors (the page cache would write whole pages).
        let (a0, a1) = (off / SECTOR * SECTOR, (off + len).div_ceil(SECTOR) * SECTOR);
        f.map(a0, a1 - a0, |dev_off, l| {
            if err.is_some() {
                return;
            }
            let c = match op {
                Op::Write => d.write(t, dev_off, l, Purpose::Data),
                Op::Read => d.read(t, dev_off, l),
                Op::Trim => d.trim(t, dev_off, l),
                Op::Flush => d.flush(t),
            };
            match c {
                Ok(c) => result = Some(later(result, c)),
                Err(e) => err = Some(e),
            }
        });
        if let Some(e) = err {
            return Err(e.into());
        }
        Ok(result.unwrap_or_else(|| instant(t)))
    }

    /// fsync: commit if the file's metadata is in the running transaction, else a flush.
    fn fsync(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<Ns, FsError> {
        self.file(id)?;
        self.tick(d, t)?;
        let txn = self.file(id)?.txn;
        let in_txn = self.ext4.as_ref().is_some_and(|e4| txn == e4.tid);
        if in_txn {
            Ok(self.commit(d, t)?.done)
        } else {
            Ok(d.flush(t)?.done)
        }
    }

    fn delete(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<(), FsError> {
        self.file(id)?;
        let f = self.files[id as usize].take().expect("checked");
        let mut freed: Vec<(u64, u64)> = f.f.extents.iter().map(|e| (e.dev_off, e.len)).collect();
        freed.extend(f.leaves.iter().map(|&b| (b * FS_BLOCK, FS_BLOCK)));
        match &mut self.ext4 {
            None => self.release_now(d, t, freed)?,
            Some(e4) => {
                let g = e4.layout.inode_group(f.ino);
                e4.dirty.push(e4.layout.inode_block(f.ino));
                e4.dirty.push(e4.layout.inode_bitmap(g));
                e4.dirty.push(e4.layout.descriptor_block(g));
                // The last link goes: the inode joins the orphan list until its blocks are
                // freed (`ext4_orphan_add`/`_del` update the list head in the superblock), and
                // the directory's mtime and ctime change.
                e4.dirty.push(SUPERBLOCK);
                e4.dirty.push(e4.layout.inode_block(ROOT_INO));
                e4.dir_bytes = e4.dir_bytes.saturating_sub(f.dirent);
                if let Some(&b) = e4.dir_blocks.get((u64::from(id) % e4.dir_blocks.len().max(1) as u64) as usize) {
                    e4.dirty.push(b);
                }
                for &(s, l) in &freed {
                    dirty_groups(e4, s, l);
                }
                e4.pending_free.extend(freed);
            }
        }
        Ok(())
    }

    /// Let virtual time pass from `start` to `end`: commits and writeback that fall due.
    fn idle(&mut self, d: &mut Disk, start: Ns, end: Ns) -> Result<(), FsError> {
        let Some(e4) = &self.ext4 else { return Ok(()) };
        let at = e4.next_commit.max(start);
        if at < end && !(e4.dirty.is_empty() && e4.pending_free.is_empty()) {
            self.commit(d, at)?;
        }
        let e4 = self.ext4.as_mut().expect("ext4");
        if let Some(j) = &mut e4.journal {
            if let Some(due) = j.next_writeback(self.cfg.writeback_interval_ns) {
                let due = due.max(at.min(end)).max(start);
                if due < end {
                    j.checkpoint(d, due)?;
                }
            }
        }
        Ok(())
    }

    /// Commit whatever is pending and flush (`sync`).
    /// Commit what is pending; flush only when there was nothing to commit (a commit flushes
    /// already, as `ext4_sync_fs` skips its barrier then).
    fn sync(&mut self, d: &mut Disk, t: Ns) -> Result<Ns, FsError> {
        let pending = self.ext4.as_ref().is_some_and(|e| !(e.dirty.is_empty() && e.pending_free.is_empty()));
        let c = self.commit(d, t)?;
        if pending {
            return Ok(c.done);
        }
        Ok(c.done.max(d.flush(t)?.done))
    }

    /// fstrim: commit (releasing pending frees), then discard every free extent.
    fn fstrim(&mut self, d: &mut Disk, t: Ns) -> Result<(u64, Ns), FsError> {
        let mut done = self.commit(d, t)?.done;
        let mut bytes = 0;
        for (s, l) in self.alloc.free_extents() {
            done = done.max(d.trim(t, s, l)?.done);
            bytes += l;
        }
        Ok((bytes, done))
    }

    /// Files, metadata, journal, pending frees and free space tile the device exactly, and
    /// every file holds at least its size.
    fn check(&self) -> Result<(), InvariantError> {
        self.alloc.check()?;
        let mut ranges = self.alloc.free_extents();
        for (i, f) in self.files.iter().enumerate() {
            let Some(f) = f else { continue };
            if f.f.allocated() < f.f.size {
                return Err(format!("file {i} holds {} bytes but is {} long", f.f.allocated(), f.f.size).into());
            }
            let mut pos = 0;
            for e in &f.f.extents {
                if e.file_off != pos {
                    return Err(format!("file {i}: extent at file offset {} expected {pos}", e.file_off).into());
                }
                if e.len == 0 || e.dev_off % FS_BLOCK != 0 || e.len % FS_BLOCK != 0 {
                    return Err(format!(
                        "file {i}: extent at file offset {} (device byte {}, {} bytes) is not whole blocks",
                        e.file_off, e.dev_off, e.len
                    )
                    .into());
                }
                pos += e.len;
            }
            let blocks = f.f.allocated() / FS_BLOCK;
            if f.unwritten.len() as u64 > blocks.div_ceil(64) {
                return Err(format!(
                    "file {i}: unwritten-extent bits for {} blocks, but it holds {blocks}",
                    f.unwritten.len() * 64
                )
                .into());
            }
            ranges.extend(f.f.extents.iter().map(|e| (e.dev_off, e.len)));
            ranges.extend(f.leaves.iter().map(|&b| (b * FS_BLOCK, FS_BLOCK)));
        }
        if let Some(j) = self.ext4.as_ref().and_then(|e4| e4.journal.as_ref()) {
            j.check()?;
        }
        if let Some(e4) = &self.ext4 {
            ranges.extend(e4.fixed.iter().map(|&(s, l)| (s * FS_BLOCK, l * FS_BLOCK)));
            ranges.extend(e4.dir_blocks[e4.given_dir_blocks..].iter().map(|&b| (b * FS_BLOCK, FS_BLOCK)));
            ranges.extend(e4.pending_free.iter().copied());
            ranges.extend(e4.mb.window().map(|(s, l)| (s * FS_BLOCK, l * FS_BLOCK)));
        }
        check_tiling(ranges, self.alloc.capacity())
    }

    /// Take file timestamps from `clock` (nanoseconds of the kernel's coarse clock,
    /// `CLOCK_REALTIME_COARSE`, as measured while the same operations ran on a kernel) instead
    /// of the simulated time, until called with `None`. A write dirties its file's inode when
    /// this value differs from the one its last mtime update took. For comparing with a
    /// kernel's run, whose timestamps tick in its wall time, not in the model's device time.
    fn set_file_clock(&mut self, clock: Option<Ns>) {
        self.file_clock = clock;
    }

    /// File `id`'s timestamps were read (stat): since Linux 6.13 (multigrain timestamps) the
    /// next write then takes a fine-grained time, so it changes mtime and dirties the inode
    /// even within the same jiffy.
    fn stat(&mut self, id: u32) {
        if let Some(Some(f)) = self.files.get_mut(id as usize) {
            f.queried = true;
        }
    }

    /// File `id` was read: `relatime` updates its atime (dirtying the inode) when it was
    /// modified since the last update.
    fn read_atime(&mut self, id: u32) {
        let Some(e4) = &mut self.ext4 else { return };
        if let Some(Some(f)) = self.files.get_mut(id as usize) {
            if f.atime_stale {
                f.atime_stale = false;
                touch_inode(e4, f);
            }
        }
    }

    fn truncate_to_zero(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<bool, FsError> {
        InPlace::truncate_to_zero(self, d, t, id).map(|()| true)
    }

    /// The inode joins the running transaction (ext4 journals it at the next commit).
    fn inode_changed(&mut self, id: u32) {
        let Some(e4) = &mut self.ext4 else { return };
        if let Some(Some(f)) = self.files.get_mut(id as usize) {
            touch_inode(e4, f);
        }
    }
}

/// Dirty the block bitmaps and group descriptors of the groups [dev_off, dev_off+len) spans.
fn dirty_groups(e4: &mut Ext4, dev_off: u64, len: u64) {
    let first = e4.layout.group_of(dev_off / FS_BLOCK);
    let last = e4.layout.group_of((dev_off + len - 1) / FS_BLOCK);
    for g in first..=last {
        e4.dirty.push(e4.layout.block_bitmap(g));
        e4.dirty.push(e4.layout.descriptor_block(g));
    }
}

/// The first open of a file after mount records the mount point in the superblock
/// (`ext4_sample_last_mounted`, through the journal): the superblock joins the running
/// transaction once per mount.
fn sample_last_mounted(e4: &mut Ext4) {
    if !e4.mount_sampled {
        e4.mount_sampled = true;
        e4.dirty.push(SUPERBLOCK);
    }
}

/// Put the file's inode block in the running transaction (once per transaction).
fn touch_inode(e4: &mut Ext4, f: &mut IFile) {
    if f.txn != e4.tid {
        f.txn = e4.tid;
        e4.dirty.push(e4.layout.inode_block(f.ino));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FsKind;

    /// make_ext4fs's smallest journal is 1024 blocks (`compute_journal_blocks`); on a
    /// filesystem whose metadata leaves less free, make_ext4fs fails
    /// (`ext4_create_journal_inode`: "failed to allocate extents for journal data"). The model
    /// refuses it too, naming the size, instead of making a filesystem without a journal.
    #[test]
    fn make_ext4fs_too_small_for_its_journal_is_refused() {
        let cfg = FsConfig { make_ext4fs: true, ..FsConfig::new(FsKind::Ext4) };
        // One group of 1053 blocks: a header of 28 (superblock, descriptors, 7 reserved GDT
        // blocks, bitmaps, 17 inode-table blocks), 1025 free: the journal and its extent
        // block, given back.
        let fs = InPlace::new(1053 * FS_BLOCK, &cfg, true);
        let runs = fs.journal_regions().expect("1025 free blocks hold the journal");
        assert_eq!(runs, vec![(28 * FS_BLOCK, 1024 * FS_BLOCK)]);
        fs.check().unwrap();
        let made = std::panic::catch_unwind(|| InPlace::new(1052 * FS_BLOCK, &cfg, true));
        let msg = made.map(|fs| format!("made, journal {:?}", fs.journal_regions())).expect_err("1024 free blocks");
        let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("1052") && msg.contains("journal"), "{msg}");
    }

    /// A device whose last group make_ext4fs leaves off: the model never allocates its
    /// blocks, and the journal is sized from the device (1/64 of it).
    #[test]
    fn make_ext4fs_never_uses_the_group_it_left_off() {
        let cfg = FsConfig { make_ext4fs: true, ..FsConfig::new(FsKind::Ext4) };
        let fs_blocks = 40 * crate::ext4_layout::BLOCKS_PER_GROUP;
        let fs = InPlace::new((fs_blocks + 100) * FS_BLOCK, &cfg, true);
        assert!(fs.free_space().iter().all(|&(s, l)| s + l <= fs_blocks * FS_BLOCK));
        let journal: u64 = fs.journal_regions().unwrap().iter().map(|&(_, l)| l).sum();
        assert_eq!(journal, (fs_blocks + 100) / 64 * FS_BLOCK);
        fs.check().unwrap();
    }

    /// make_ext4fs's largest journal (32768 blocks, a whole group) fits in no free run of its
    /// layout (every group starts with its header): the journal spans groups, as make_ext4fs's
    /// does, instead of the filesystem silently having none; on 16 GB it takes all of group
    /// 0 after its header and the rest of it follows group 1's header.
    #[test]
    fn make_ext4fs_journal_of_a_whole_group_spans_groups() {
        let cfg = FsConfig { make_ext4fs: true, ..FsConfig::new(FsKind::Ext4) };
        let fs = InPlace::new(3_900_416 * FS_BLOCK, &cfg, true);
        assert_eq!(
            fs.journal_regions().unwrap(),
            vec![(1471 * FS_BLOCK, 31297 * FS_BLOCK), ((32768 + 1471) * FS_BLOCK, 1471 * FS_BLOCK)]
        );
        let cfg = FsConfig { make_ext4fs: true, ..FsConfig::new(FsKind::Ext4) };
        for blocks in [20_000u64, 3_800_000] {
            let fs = InPlace::new(blocks * FS_BLOCK, &cfg, true);
            let runs = fs.journal_regions().expect("make_ext4fs makes a journal");
            assert_eq!(
                runs.iter().map(|&(_, l)| l).sum::<u64>(),
                make_ext4fs_journal_blocks(blocks) * FS_BLOCK,
                "{blocks} blocks"
            );
            fs.check().expect("journal, metadata and free space tile the device");
        }
    }
}
