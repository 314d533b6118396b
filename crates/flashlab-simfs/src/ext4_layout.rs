//! Where ext4's static metadata lives: block groups, the block and inode bitmaps, inode tables,
//! group descriptors, the blocks mke2fs used (superblock and backups, reserved GDT blocks, the
//! root directory) and the journal.
//!
//! Two ways to get one:
//! * [`Layout::new`]: what mke2fs makes with its defaults (4 KiB blocks, 32768 blocks per group,
//!   one 256-byte inode per 16 KiB, `flex_bg` of 16 groups: the block bitmaps, inode bitmaps
//!   and inode tables of a flex group packed at its start), with the default journal size of
//!   mke2fs's table (`ext2fs_default_journal_size`), aimed at the middle of the filesystem.
//!   Not modelled there: backup superblocks (`sparse_super`), reserved GDT blocks, the smaller
//!   inode ratio of mke2fs's `small` type.
//! * [`Layout::make_ext4fs`]: what Android's `make_ext4fs` made (recovery's format of /data
//!   in Android 4.x, system/extras `ext4_utils`): the same 32768-block groups, no `flex_bg`.
//!   A group with a superblock (sparse_super: groups 0, 1 and the powers of 3, 5 and 7,
//!   `ext4_bg_has_super_block`) starts with it, the group descriptors (32 bytes each) and the
//!   reserved GDT blocks (`compute_bg_desc_reserve_blocks`), then its block bitmap, inode
//!   bitmap and inode table; any other group starts with its bitmaps (`init_bg` in
//!   `allocate.c`, `ext4_fill_in_sb` in `ext4_utils.c`), so the bitmaps the kernel rewrites as
//!   it allocates share an erase block with the inode table. Inodes: the device's blocks / 4
//!   spread over its groups, rounded up to fill inode-table blocks (`compute_inodes`,
//!   `compute_inodes_per_group`: 8128 a group, 508 table blocks, on a 16 GB device), 256
//!   bytes each. The journal is the first thing allocated (`make_ext4fs_internal` creates it
//!   before the resize inode, the root directory and lost+found) by `do_allocate`: in the
//!   first group with room for all of it, else every free block of group 0, 1, ... and the
//!   rest in the first group it fits in (`ext4_allocate_multiple_contiguous_blocks`).
//!   Recovery's `make_ext4fs()` passes `init_itabs = 0` and sets no `uninit_bg`, so unused
//!   inode tables are never written, at mkfs or by the kernel's lazyinit. A last group smaller
//!   than its header is left off the filesystem, and a device too small for the header or the
//!   journal is an error, as make_ext4fs fails on it. Not modelled there: the blocks of the
//!   resize inode's indirect block, the root directory and lost+found (make_ext4fs puts them
//!   right after the journal; the model allocates the root directory's blocks itself).
//! * [`Layout::from_dumpe2fs`]: read from `dumpe2fs` of a real image, so the model and the
//!   kernel start from the same blocks (what `flashlab validate-fs` does).

use crate::error::LayoutError;
use crate::extents::FS_BLOCK;

pub(crate) const BLOCKS_PER_GROUP: u64 = 32768;
pub(crate) const INODES_PER_GROUP: u64 = 8192;
pub(crate) const INODE_SIZE: u64 = 256;
pub(crate) const GROUPS_PER_FLEX: u64 = 16;
/// 64-byte group descriptors (mke2fs's `64bit`).
pub(crate) const DESCRIPTORS_PER_BLOCK: u64 = FS_BLOCK / 64;
/// make_ext4fs's 32-byte group descriptors (`struct ext2_group_desc`: no `64bit`).
const MAKE_EXT4FS_DESCRIPTOR: u64 = 32;

/// mke2fs's default journal size in blocks for a filesystem of `blocks` 4 KiB blocks (0 = no
/// journal: below 2048 blocks mke2fs makes none).
pub(crate) fn default_journal_blocks(blocks: u64) -> u64 {
    match blocks {
        b if b < 2048 => 0,
        b if b < 32768 => 1024,
        b if b < 256 * 1024 => 4096,
        b if b < 512 * 1024 => 8192,
        b if b < 4096 * 1024 => 16384,
        b if b < 8192 * 1024 => 32768,
        b if b < 16384 * 1024 => 65536,
        b if b < 32768 * 1024 => 131072,
        _ => 262144,
    }
}

/// `make_ext4fs`'s journal size (`compute_journal_blocks`): 1/64 of the blocks, at least
/// 1024 and at most 32768, whatever the filesystem's size: on one too small to hold it
/// make_ext4fs fails ([`Layout::make_ext4fs`] says so).
pub(crate) fn make_ext4fs_journal_blocks(blocks: u64) -> u64 {
    (blocks / 64).clamp(1024, 32768)
}

/// Whether group `g` holds a backup superblock under `sparse_super` (make_ext4fs always sets
/// it; `ext4_bg_has_super_block`): groups 0, 1 and the powers of 3, 5 and 7.
fn has_super(g: u64) -> bool {
    g <= 1
        || [3, 5, 7].iter().any(|&p| {
            let mut x = g;
            while x.is_multiple_of(p) {
                x /= p;
            }
            x == 1
        })
}

/// make_ext4fs's geometry for a device of `blocks` 4 KiB blocks, computed as
/// `make_ext4fs_internal` does before `ext4_create_fs_aux_info` drops a last group (from the
/// device's size, system/extras `ext4_utils/make_ext4fs.c`).
struct MakeExt4fsGeometry {
    /// Groups on the device (the last maybe partial).
    groups: u64,
    /// `compute_inodes` (blocks / 4) spread by `compute_inodes_per_group`: rounded up per
    /// group, then to a whole number of inode-table blocks.
    inodes_per_group: u64,
    itable_blocks: u64,
    /// Group-descriptor blocks (32-byte descriptors).
    desc_blocks: u64,
    /// `compute_bg_desc_reserve_blocks`: room for 1024 times the groups' descriptors, less the
    /// descriptors, at most a block of block numbers (1024).
    reserved_gdt: u64,
}

impl MakeExt4fsGeometry {
    fn new(blocks: u64) -> MakeExt4fsGeometry {
        let groups = blocks.div_ceil(BLOCKS_PER_GROUP);
        let inodes_per_group = (blocks / 4).div_ceil(groups).next_multiple_of(FS_BLOCK / INODE_SIZE);
        let desc_blocks = (groups * MAKE_EXT4FS_DESCRIPTOR).div_ceil(FS_BLOCK);
        let reserved_gdt =
            ((groups * 1024 * MAKE_EXT4FS_DESCRIPTOR).div_ceil(FS_BLOCK) - desc_blocks).min(FS_BLOCK / 4);
        MakeExt4fsGeometry {
            groups,
            inodes_per_group,
            itable_blocks: (inodes_per_group * INODE_SIZE).div_ceil(FS_BLOCK),
            desc_blocks,
            reserved_gdt,
        }
    }

    /// Blocks before group `g`'s block bitmap: the superblock, descriptors and reserved GDT
    /// blocks in a group with a superblock (`init_bg`), none in the others.
    fn before_bitmaps(&self, g: u64) -> u64 {
        if has_super(g) {
            1 + self.desc_blocks + self.reserved_gdt
        } else {
            0
        }
    }

    /// Group `g`'s header (`init_bg`'s `header_blocks`): what precedes the bitmaps, the two
    /// bitmaps and the inode table.
    fn header(&self, g: u64) -> u64 {
        self.before_bitmaps(g) + 2 + self.itable_blocks
    }
}

/// Where make_ext4fs put its journal ([`Layout::make_ext4fs_journal`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MakeExt4fsJournal {
    /// The journal's runs (start block, blocks), in the journal's order.
    pub(crate) runs: Vec<(u64, u64)>,
    /// The extent-tree leaf block, when the journal has more than 3 runs.
    pub(crate) extent_block: Option<u64>,
}

/// What a block of the static layout is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// Superblocks, group descriptors, reserved GDT blocks and whatever else mke2fs used that
    /// is not a bitmap or an inode table (the root directory and lost+found among it).
    Super,
    /// A block or inode bitmap.
    Bitmap,
    /// Part of an inode table.
    InodeTable,
    /// The journal.
    Journal,
    /// Anything the filesystem allocates: file data, directories, extent blocks.
    Data,
}

/// One block group's metadata blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Group {
    pub(crate) block_bitmap: u64,
    pub(crate) inode_bitmap: u64,
    pub(crate) inode_table: u64,
}

/// Where ext4's static metadata lives on one filesystem (see the module's doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Size of the filesystem in 4 KiB blocks.
    pub blocks: u64,
    pub(crate) groups: u64,
    pub(crate) blocks_per_group: u64,
    pub(crate) inodes_per_group: u64,
    pub(crate) inode_size: u64,
    /// Groups per flex group (1 without `flex_bg`).
    pub(crate) flex: u64,
    /// First inode number a new file gets (the image's first free inode).
    pub(crate) first_free_ino: u64,
    group: Vec<Group>,
    /// Groups mke2fs left `BLOCK_UNINIT` (nothing allocated in them yet).
    block_uninit: Vec<bool>,
    /// The blocks of the directory new files go in, when it exists already (an image's root).
    pub root_dir: Vec<u64>,
    /// First block of the primary group descriptors.
    gdt_start: u64,
    /// Group descriptors a block holds.
    descriptors_per_block: u64,
    /// Blocks in use when the filesystem was made (start, blocks), journal excluded.
    fixed: Vec<(u64, u64)>,
    /// The journal's blocks (start, blocks), when the image says where it is.
    journal: Option<(u64, u64)>,
    /// The journal's size in blocks when the mkfs gives it but not its place (make_ext4fs:
    /// sized from the device, which can be larger than the filesystem).
    journal_blocks: Option<u64>,
}

impl Layout {
    /// mke2fs's defaults for `blocks` 4 KiB blocks.
    pub fn new(blocks: u64) -> Layout {
        Layout::with_flex(blocks, GROUPS_PER_FLEX)
    }

    /// What Android's `make_ext4fs` makes on a device of `blocks` 4 KiB blocks: no `flex_bg`,
    /// backup superblocks and reserved GDT blocks ahead of the bitmaps in the groups that have
    /// them, blocks / 4 inodes (see the module's doc). The filesystem can be smaller than the
    /// device: a last group smaller than its header is left off (`blocks` of the layout is the
    /// filesystem's size).
    ///
    /// An error, naming the size, where make_ext4fs fails: a device smaller than its one
    /// group's header, or one where the blocks the metadata leaves free cannot hold the
    /// journal ([`make_ext4fs_journal_blocks`] of the device's blocks, and one block more that
    /// make_ext4fs asks for as an extent block).
    pub fn make_ext4fs(blocks: u64) -> Result<Layout, LayoutError> {
        let too_small = |why: String| LayoutError::TooSmall { mkfs: "make_ext4fs", blocks, why };
        if blocks == 0 {
            return Err(too_small("no blocks".into()));
        }
        // `ext4_create_fs_aux_info` (system/extras `ext4_utils/ext4_utils.c`): a last group
        // (blocks % blocks per group) smaller than its header is dropped, the filesystem's
        // block count reduced by it; the group is not made with its metadata past the end.
        // On a filesystem of one group that leaves nothing (later versions stop there with
        // "filesystem size too small"). The groups, inodes and header are counted before the
        // drop, as there (`make_ext4fs_internal` computes them from the device's length).
        let geo = MakeExt4fsGeometry::new(blocks);
        let header = geo.header(geo.groups - 1);
        let last = blocks % BLOCKS_PER_GROUP;
        let fs_blocks = if last > 0 && last < header { blocks - last } else { blocks };
        if fs_blocks == 0 {
            return Err(too_small(format!(
                "its one group's header (superblock, descriptors, reserved GDT blocks, bitmaps, \
                 inode table) needs {header} blocks (make_ext4fs: \"filesystem size too small\")"
            )));
        }
        let groups = fs_blocks.div_ceil(BLOCKS_PER_GROUP);
        // `init_bg` (allocate.c) and `ext4_fill_in_sb` (ext4_utils.c): block bitmap, inode
        // bitmap, inode table after the superblock, descriptors and reserved GDT blocks where
        // the group has a superblock, at the group's start elsewhere; the whole header in use.
        let group = (0..groups)
            .map(|g| {
                let b = g * BLOCKS_PER_GROUP + geo.before_bitmaps(g);
                Group { block_bitmap: b, inode_bitmap: b + 1, inode_table: b + 2 }
            })
            .collect();
        let fixed = (0..groups).map(|g| (g * BLOCKS_PER_GROUP, geo.header(g))).collect();
        let layout = Layout {
            blocks: fs_blocks,
            groups,
            blocks_per_group: BLOCKS_PER_GROUP,
            inodes_per_group: geo.inodes_per_group,
            inode_size: INODE_SIZE,
            flex: 1,
            // Inodes 1-10 reserved (`reserve_inodes(0, 10)`), 11 lost+found.
            first_free_ino: 12,
            group,
            block_uninit: vec![false; groups as usize],
            root_dir: Vec::new(),
            gdt_start: 1,
            descriptors_per_block: FS_BLOCK / MAKE_EXT4FS_DESCRIPTOR,
            fixed,
            journal: None,
            journal_blocks: None,
        };
        // `compute_journal_blocks` (make_ext4fs.c) sizes the journal from the device's
        // length, before the drop; `ext4_create_journal_inode` (ext4_utils.c) allocates it
        // (see [`Layout::make_ext4fs_journal`]), and when the free blocks are too few
        // make_ext4fs fails ("failed to allocate extents for journal data": `error` ends the
        // run) rather than making a filesystem without a journal.
        let journal = make_ext4fs_journal_blocks(blocks);
        if layout.make_ext4fs_journal(journal).is_none() {
            let free = fs_blocks - layout.fixed.iter().map(|&(_, l)| l).sum::<u64>();
            return Err(too_small(format!(
                "its journal of {journal} blocks (1/64 of the blocks, at least 1024: \
                 compute_journal_blocks) and its extent block do not fit in the {free} blocks its \
                 metadata leaves free (make_ext4fs: \"failed to allocate extents for journal data\")"
            )));
        }
        Ok(Layout { journal_blocks: Some(journal), ..layout })
    }

    /// Where make_ext4fs puts a journal of `journal_blocks` on this layout, allocated first on
    /// the empty filesystem (its runs and, when it needs one, its extent-tree leaf block), or
    /// `None` where make_ext4fs fails.
    ///
    /// `ext4_create_journal_inode` (ext4_utils.c) → `inode_allocate_data_extents` →
    /// `do_inode_allocate_extents` (extent.c) asks `allocate_blocks` for one block more than
    /// the journal. `do_allocate` (allocate.c): `ext4_allocate_contiguous_blocks` takes it from
    /// the first group with that many free blocks (each group's free blocks follow its header,
    /// taken from the first free one on); when none has, `ext4_allocate_multiple_contiguous_blocks`
    /// repeats `ext4_allocate_partial`: the first group still without data
    /// (`data_blocks_used == 0`) gives all its free blocks, or, once what is left fits in it,
    /// what is left is taken contiguously from the first group with room. With at most 3 runs
    /// the extra block is given back from the end (`reduce_allocation`); with more, the first
    /// block of the allocation becomes the extent leaf (`reserve_oob_blocks`).
    pub(crate) fn make_ext4fs_journal(&self, journal_blocks: u64) -> Option<MakeExt4fsJournal> {
        let itable = self.inodes_per_group * self.inode_size / FS_BLOCK;
        // Per group: (first free block, free blocks, data allocated in it).
        let mut bg: Vec<(u64, u64, bool)> = (0..self.groups)
            .map(|g| {
                let first = self.group[g as usize].inode_table + itable;
                (first, self.group_end(g).saturating_sub(first), false)
            })
            .collect();
        fn take(bg: &mut [(u64, u64, bool)], g: usize, len: u64) -> (u64, u64) {
            let start = bg[g].0;
            bg[g] = (start + len, bg[g].1 - len, true);
            (start, len)
        }
        fn contiguous(bg: &mut [(u64, u64, bool)], len: u64) -> Option<(u64, u64)> {
            let g = bg.iter().position(|x| x.1 >= len)?;
            Some(take(bg, g, len))
        }
        let want = journal_blocks + 1;
        let mut runs = Vec::new();
        match contiguous(&mut bg, want) {
            Some(r) => runs.push(r),
            None => {
                let mut left = want;
                while left > 0 {
                    let g = bg.iter().position(|x| !x.2)?;
                    let free = bg[g].1;
                    let r = if left <= free { contiguous(&mut bg, left)? } else { take(&mut bg, g, free) };
                    left -= r.1;
                    if r.1 > 0 {
                        runs.push(r);
                    }
                }
            }
        }
        let mut extent_block = None;
        if runs.len() <= 3 {
            let last = runs.last_mut().expect("a run");
            last.1 -= 1;
            if last.1 == 0 {
                runs.pop();
            }
        } else {
            extent_block = Some(runs[0].0);
            runs[0] = (runs[0].0 + 1, runs[0].1 - 1);
            if runs[0].1 == 0 {
                runs.remove(0);
            }
        }
        Some(MakeExt4fsJournal { runs, extent_block })
    }

    /// Whether make_ext4fs made this layout ([`Layout::make_ext4fs`], the only layout that
    /// knows its journal's size but not its place): its journal goes where make_ext4fs's
    /// `do_allocate` puts it ([`Layout::make_ext4fs_journal`]), not where mke2fs aims it.
    pub(crate) fn is_make_ext4fs(&self) -> bool {
        self.journal_blocks.is_some()
    }

    /// Groups of 32768 blocks, 8192 inodes each, bitmaps and inode tables packed at the start
    /// of each flex group of `flex` groups.
    fn with_flex(blocks: u64, flex_size: u64) -> Layout {
        let groups = blocks.div_ceil(BLOCKS_PER_GROUP).max(1);
        let gdt_blocks = groups.div_ceil(DESCRIPTORS_PER_BLOCK);
        let itable_blocks = INODES_PER_GROUP * INODE_SIZE / FS_BLOCK;
        let flex_start = |flex: u64| if flex == 0 { 1 + gdt_blocks } else { flex * flex_size * BLOCKS_PER_GROUP };
        let in_flex = |flex: u64| flex_size.min(groups - flex * flex_size);
        let group = (0..groups)
            .map(|g| {
                let (flex, i) = (g / flex_size, g % flex_size);
                let s = flex_start(flex);
                Group {
                    block_bitmap: s + i,
                    inode_bitmap: s + in_flex(flex) + i,
                    inode_table: s + 2 * in_flex(flex) + i * itable_blocks,
                }
            })
            .collect();
        let mut fixed = vec![(0, 1 + gdt_blocks)];
        for flex in 0..groups.div_ceil(flex_size) {
            fixed.push((flex_start(flex), in_flex(flex) * (2 + itable_blocks)));
        }
        fixed.retain(|&(s, l)| s + l <= blocks);
        let block_uninit = (0..groups).map(|g| g % flex_size != 0).collect();
        Layout {
            blocks,
            groups,
            blocks_per_group: BLOCKS_PER_GROUP,
            inodes_per_group: INODES_PER_GROUP,
            inode_size: INODE_SIZE,
            flex: flex_size,
            first_free_ino: 12,
            group,
            block_uninit,
            root_dir: Vec::new(),
            gdt_start: 1,
            descriptors_per_block: DESCRIPTORS_PER_BLOCK,
            fixed,
            journal: None,
            journal_blocks: None,
        }
    }

    pub(crate) fn block_bitmap(&self, group: u64) -> u64 {
        self.group[group as usize].block_bitmap
    }

    pub(crate) fn inode_bitmap(&self, group: u64) -> u64 {
        self.group[group as usize].inode_bitmap
    }

    pub(crate) fn descriptor_block(&self, group: u64) -> u64 {
        self.gdt_start + group / self.descriptors_per_block
    }

    /// Group of inode `ino` (inode numbers past the table wrap around).
    pub(crate) fn inode_group(&self, ino: u64) -> u64 {
        ((ino - 1) / self.inodes_per_group) % self.groups
    }

    /// The inode-table block holding inode `ino`.
    pub fn inode_block(&self, ino: u64) -> u64 {
        let idx = (ino - 1) % self.inodes_per_group;
        self.group[self.inode_group(ino) as usize].inode_table + idx * self.inode_size / FS_BLOCK
    }

    /// Whether mke2fs left `group` `BLOCK_UNINIT`.
    pub(crate) fn block_uninit(&self, group: u64) -> bool {
        self.block_uninit.get(group as usize).copied().unwrap_or(false)
    }

    pub(crate) fn group_of(&self, block: u64) -> u64 {
        (block / self.blocks_per_group).min(self.groups - 1)
    }

    /// First block of `group`.
    pub(crate) fn group_start(&self, group: u64) -> u64 {
        group * self.blocks_per_group
    }

    /// One past the last block of `group`.
    pub(crate) fn group_end(&self, group: u64) -> u64 {
        ((group + 1) * self.blocks_per_group).min(self.blocks)
    }

    /// Blocks in use on the new filesystem, journal excluded (start block, blocks).
    pub(crate) fn static_ranges(&self) -> Vec<(u64, u64)> {
        self.fixed.clone()
    }

    /// Where the image's journal is, if this layout was read from one.
    pub fn journal(&self) -> Option<(u64, u64)> {
        self.journal
    }

    /// The journal's size in blocks its mkfs gives it, when the layout knows the size but
    /// not the place ([`Layout::make_ext4fs`]'s).
    pub(crate) fn journal_blocks(&self) -> Option<u64> {
        self.journal_blocks
    }

    /// Where mke2fs aims the journal: the start of the flex group holding the middle block
    /// (make_ext4fs's journal goes elsewhere: [`Layout::make_ext4fs_journal`]).
    pub(crate) fn journal_goal(&self) -> u64 {
        let mid_group = self.group_of(self.blocks / 2);
        (mid_group / self.flex) * self.flex * self.blocks_per_group
    }

    /// Where ext4 starts looking for a regular file's blocks when the file has none yet
    /// (`ext4_inode_to_goal_block`): the first block of the inode's group; with flex groups
    /// of 4 or more, the second group of the inode's flex group (the first is kept for
    /// directories).
    pub(crate) fn file_goal(&self, ino: u64) -> u64 {
        let mut g = self.inode_group(ino);
        if self.flex >= 4 {
            g = g / self.flex * self.flex + 1;
        }
        self.group_start(g.min(self.groups - 1))
    }

    /// What block `b` holds, as far as the static layout says (file data, directories and
    /// extent blocks all being [`BlockKind::Data`]).
    pub fn block_kind(&self, b: u64) -> BlockKind {
        if let Some((s, l)) = self.journal {
            if b >= s && b < s + l {
                return BlockKind::Journal;
            }
        }
        let itable = self.inodes_per_group * self.inode_size / FS_BLOCK;
        for g in &self.group {
            if b == g.block_bitmap || b == g.inode_bitmap {
                return BlockKind::Bitmap;
            }
            if b >= g.inode_table && b < g.inode_table + itable {
                return BlockKind::InodeTable;
            }
        }
        if self.fixed.iter().any(|&(s, l)| b >= s && b < s + l) {
            return BlockKind::Super;
        }
        BlockKind::Data
    }

    /// Read a layout from `dumpe2fs` output of a freshly made image (4 KiB blocks). `source`
    /// names the text in errors. Every block the image does not list as free is taken as
    /// static metadata (superblocks, descriptors, bitmaps, inode tables, root directory,
    /// lost+found); the journal is found by `journal` = (start, blocks) when the caller
    /// knows it (from `debugfs -R 'stat <8>'`), else the largest used run outside the
    /// groups' metadata is taken for it.
    pub fn from_dumpe2fs(source: &str, text: &str, journal: Option<(u64, u64)>) -> Result<Layout, LayoutError> {
        let input = || source.to_string();
        let field = |name: &'static str| -> Result<u64, LayoutError> {
            let line = text
                .lines()
                .find(|l| l.starts_with(name) && l[name.len()..].starts_with(':'))
                .ok_or_else(|| LayoutError::MissingField { input: input(), field: name })?;
            let v = line[name.len() + 1..].trim();
            v.parse::<u64>().map_err(|_| LayoutError::NotANumber { input: input(), field: name, value: v.to_string() })
        };
        let bs = field("Block size")?;
        if bs != FS_BLOCK {
            return Err(LayoutError::BlockSize { input: input(), size: bs });
        }
        let blocks = field("Block count")?;
        let blocks_per_group = field("Blocks per group")?;
        let inodes_per_group = field("Inodes per group")?;
        let inode_size = field("Inode size").unwrap_or(INODE_SIZE);
        let flex = field("Flex block group size").unwrap_or(1);
        let groups = blocks.div_ceil(blocks_per_group);
        let mut group = Vec::with_capacity(groups as usize);
        let mut free: Vec<(u64, u64)> = Vec::new();
        let mut gdt_start = None;
        let mut first_free_ino = None;
        let num = |s: &str, line: usize| -> Result<u64, LayoutError> {
            s.trim().parse::<u64>().map_err(|_| LayoutError::BlockNumber {
                input: input(),
                line,
                text: s.trim().to_string(),
            })
        };
        let mut cur: Option<[Option<u64>; 3]> = None;
        let mut block_uninit = Vec::with_capacity(groups as usize);
        let push =
            |group: &mut Vec<Group>, cur: &mut Option<[Option<u64>; 3]>, line: usize| -> Result<(), LayoutError> {
                if let Some(c) = cur.take() {
                    match c {
                        [Some(b), Some(i), Some(t)] => {
                            group.push(Group { block_bitmap: b, inode_bitmap: i, inode_table: t })
                        }
                        _ => return Err(LayoutError::IncompleteGroup { input: input(), line }),
                    }
                }
                Ok(())
            };
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let l = line.trim();
            if l.starts_with("Group ") && l.contains("(Blocks") {
                push(&mut group, &mut cur, n)?;
                cur = Some([None; 3]);
                block_uninit.push(l.contains("BLOCK_UNINIT"));
            }
            let first = |rest: &str| rest.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("").to_string();
            if let Some(c) = cur.as_mut() {
                if let Some(r) = l.strip_prefix("Block bitmap at ") {
                    c[0] = Some(num(&first(r), n)?);
                } else if let Some(r) = l.strip_prefix("Inode bitmap at ") {
                    c[1] = Some(num(&first(r), n)?);
                } else if let Some(r) = l.strip_prefix("Inode table at ") {
                    c[2] = Some(num(&first(r), n)?);
                }
            }
            if gdt_start.is_none() {
                if let Some(p) = l.find("Group descriptors at ") {
                    gdt_start = Some(num(&first(&l[p + "Group descriptors at ".len()..]), n)?);
                }
            }
            let in_group = cur.is_some() || !group.is_empty();
            if let Some(r) = l.strip_prefix("Free blocks: ").filter(|_| in_group) {
                for part in r.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let (a, b) = part.split_once('-').unwrap_or((part, part));
                    let (a, b) = (num(a, n)?, num(b, n)?);
                    if b < a || b >= blocks {
                        return Err(LayoutError::FreeRange { input: input(), line: n, range: part.to_string() });
                    }
                    free.push((a, b - a + 1));
                }
            }
            if first_free_ino.is_none() && in_group {
                if let Some(r) = l.strip_prefix("Free inodes: ") {
                    if let Some(f) = r.split(',').next().filter(|s| !s.trim().is_empty()) {
                        first_free_ino = Some(num(f.split('-').next().unwrap_or(""), n)?);
                    }
                }
            }
        }
        push(&mut group, &mut cur, text.lines().count())?;
        if group.len() as u64 != groups {
            return Err(LayoutError::GroupCount { input: input(), listed: group.len(), expected: groups });
        }
        // Used = the complement of the free list.
        free.sort_unstable();
        let mut used = Vec::new();
        let mut pos = 0;
        for &(s, l) in &free {
            if s < pos {
                return Err(LayoutError::Overlap { input: input(), block: s });
            }
            if s > pos {
                used.push((pos, s - pos));
            }
            pos = s + l;
        }
        if pos < blocks {
            used.push((pos, blocks - pos));
        }
        let journal = journal.or_else(|| {
            // The largest used run not holding any group's metadata.
            let meta = |s: u64, l: u64| {
                group
                    .iter()
                    .any(|g| [g.block_bitmap, g.inode_bitmap, g.inode_table].iter().any(|&b| b >= s && b < s + l))
            };
            used.iter()
                .copied()
                .filter(|&(s, l)| s > 0 && !meta(s, l))
                .max_by_key(|&(_, l)| l)
                .filter(|&(_, l)| l >= 1024)
        });
        let mut fixed = Vec::new();
        for (s, l) in used {
            match journal {
                Some((js, jl)) if js >= s && js + jl <= s + l => {
                    if js > s {
                        fixed.push((s, js - s));
                    }
                    if js + jl < s + l {
                        fixed.push((js + jl, s + l - js - jl));
                    }
                }
                _ => fixed.push((s, l)),
            }
        }
        Ok(Layout {
            blocks,
            groups,
            blocks_per_group,
            inodes_per_group,
            inode_size,
            flex: flex.max(1),
            first_free_ino: first_free_ino.unwrap_or(12).max(12),
            group,
            block_uninit,
            root_dir: Vec::new(),
            gdt_start: gdt_start.unwrap_or(1),
            descriptors_per_block: DESCRIPTORS_PER_BLOCK,
            fixed,
            journal,
            journal_blocks: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nexus7-2012 profile's 16 GB: 3,900,416 blocks, 120 groups (the last of 1024
    /// blocks, kept: its header is 510). make_ext4fs (`compute_inodes_per_group`): 975,104
    /// inodes over 120 groups, 8126 rounded up to 16 a block: 8128, 508 inode-table blocks.
    /// One descriptor block (32-byte descriptors) and 959 reserved GDT blocks
    /// (`compute_bg_desc_reserve_blocks`: 960 - 1) after the superblock in groups 0, 1, 3, ...
    /// (`init_bg`); group 2 starts with its bitmaps.
    #[test]
    fn make_ext4fs_16gb_puts_bitmaps_after_the_reserved_gdt_blocks_where_a_group_has_a_superblock() {
        let l = Layout::make_ext4fs(3_900_416).unwrap();
        assert_eq!((l.blocks, l.groups, l.inodes_per_group), (3_900_416, 120, 8128));
        assert_eq!(l.inodes_per_group * l.inode_size / FS_BLOCK, 508, "inode-table blocks per group");
        let at = |g: u64| (l.block_bitmap(g), l.inode_bitmap(g), l.group[g as usize].inode_table);
        assert_eq!(at(0), (961, 962, 963));
        assert_eq!(at(1), (32768 + 961, 32768 + 962, 32768 + 963));
        assert_eq!(at(3), (3 * 32768 + 961, 3 * 32768 + 962, 3 * 32768 + 963));
        assert_eq!(at(2), (2 * 32768, 2 * 32768 + 1, 2 * 32768 + 2), "no superblock: bitmaps first");
        assert_eq!(at(119), (119 * 32768, 119 * 32768 + 1, 119 * 32768 + 2));
        for g in [0, 1, 3, 5, 7, 9, 25, 27, 49, 81] {
            assert_eq!(at(g).0, g * 32768 + 961, "group {g} has a backup superblock");
        }
        for g in [2, 4, 6, 8, 10, 11, 26, 50, 100] {
            assert_eq!(at(g).0, g * 32768, "group {g} has none");
        }
        assert_eq!(l.block_kind(0), BlockKind::Super);
        assert_eq!(l.block_kind(960), BlockKind::Super, "the last reserved GDT block");
        assert_eq!(l.block_kind(961), BlockKind::Bitmap);
        assert_eq!(l.block_kind(963 + 507), BlockKind::InodeTable);
        assert_eq!(l.block_kind(963 + 508), BlockKind::Data);
        assert_eq!(l.descriptor_block(119), 1, "120 32-byte descriptors in one block");
        // mke2fs's layout stays as it was: 64-byte descriptors in blocks 1-2, flex_bg.
        let m = Layout::new(3_900_416);
        assert_eq!((m.inodes_per_group, m.block_bitmap(0), m.block_bitmap(17)), (8192, 3, m.block_bitmap(16) + 1));
        assert_eq!(make_ext4fs_journal_blocks(3_900_416), 32768);
        assert_eq!(make_ext4fs_journal_blocks(20_000), 1024);
    }

    /// make_ext4fs's journal comes first (`make_ext4fs_internal`: before the resize inode,
    /// root directory and lost+found): 32769 blocks asked for (the journal and an extent
    /// block, `do_inode_allocate_extents`) fit in no group (31297 free in a group with a
    /// superblock, 32258 in the others), so `ext4_allocate_multiple_contiguous_blocks` takes
    /// all of group 0's free blocks and the remaining 1472 from group 1, the first group with
    /// room; two runs, so the extra block is given back (`reduce_allocation`).
    #[test]
    fn make_ext4fs_16gb_journal_starts_in_group_0() {
        let l = Layout::make_ext4fs(3_900_416).unwrap();
        assert_eq!(l.journal_blocks(), Some(32768));
        let j = l.make_ext4fs_journal(32768).unwrap();
        assert_eq!(j.runs, vec![(1471, 32768 - 1471), (32768 + 1471, 1471)]);
        assert_eq!(j.extent_block, None);
        // A journal that fits in a group: right after group 0's header.
        assert_eq!(
            l.make_ext4fs_journal(4096).unwrap(),
            MakeExt4fsJournal { runs: vec![(1471, 4096)], extent_block: None }
        );
        // Four runs or more: the allocation's first block is the extent leaf.
        let MakeExt4fsJournal { runs, extent_block } = l.make_ext4fs_journal(3 * 32768).unwrap();
        assert_eq!(extent_block, Some(1471));
        assert_eq!(runs[0], (1472, 31296));
        assert_eq!(
            runs[1..],
            [(32768 + 1471, 31297), (65536 + 510, 32258), (98304 + 1471, 3 * 32768 + 1 - 31297 * 2 - 32258)]
        );
        assert_eq!(runs.iter().map(|r| r.1).sum::<u64>(), 3 * 32768);
    }

    /// make_ext4fs leaves off a last group smaller than its header (`ext4_create_fs_aux_info`):
    /// 2 bitmaps and the inode table, and in a group with a backup superblock (sparse_super:
    /// groups 0, 1 and powers of 3, 5, 7) the superblock, descriptors and reserved GDT blocks
    /// too. Every group the layout keeps has its bitmaps and inode table inside the
    /// filesystem and among the blocks in use.
    #[test]
    fn make_ext4fs_leaves_off_a_last_group_too_small_for_its_header() {
        let g = BLOCKS_PER_GROUP;
        // 41 groups: 8000 inodes a group, 500 table blocks; group 40 has no backup superblock
        // (header 502). 26 groups: 7888 inodes, 493 table blocks; group 25 = 5^2 has one:
        // 495 + 1 superblock + 1 descriptor block + 207 reserved GDT blocks = 704.
        for (blocks, kept) in [
            (40 * g + 1, false),
            (40 * g + 100, false),
            (40 * g + 501, false),
            (40 * g + 502, true),
            (40 * g + 600, true),
            (25 * g + 600, false),
            (25 * g + 703, false),
            (25 * g + 704, true),
        ] {
            let l = Layout::make_ext4fs(blocks).unwrap();
            let fs_blocks = if kept { blocks } else { blocks / g * g };
            assert_eq!((l.blocks, l.groups), (fs_blocks, fs_blocks.div_ceil(g)), "{blocks} blocks");
            let itable = l.inodes_per_group * l.inode_size / FS_BLOCK;
            let used = |b: u64| l.static_ranges().iter().any(|&(s, n)| b >= s && b < s + n);
            for grp in 0..l.groups {
                let it = l.group[grp as usize].inode_table;
                for b in [l.block_bitmap(grp), l.inode_bitmap(grp), it, it + itable - 1] {
                    assert!(b < l.blocks && used(b), "{blocks} blocks: group {grp}'s block {b}");
                }
            }
        }
    }

    /// Where make_ext4fs fails, the layout is an error naming the size: one group smaller
    /// than its header (superblock, 1 descriptor block, 7 reserved GDT blocks, 2 bitmaps and
    /// one inode-table block: 12), or fewer free blocks than the journal and its extent block
    /// (1052 blocks: 263 inodes, 272 rounded up, 17 table blocks, a header of 28, 1024 free;
    /// 1053 hold them). The journal is sized from the device, before a last group is left off.
    #[test]
    fn make_ext4fs_refuses_a_device_too_small_for_its_header_or_journal() {
        assert_eq!(Layout::make_ext4fs(1053).unwrap().journal_blocks(), Some(1024));
        let e = Layout::make_ext4fs(1052).unwrap_err().to_string();
        assert!(e.contains("1052 blocks") && e.contains("journal of 1024") && e.contains("in the 1024 blocks"), "{e}");
        let e = Layout::make_ext4fs(523).unwrap_err().to_string();
        assert!(e.contains("523 blocks") && e.contains("in the 503 blocks"), "{e}");
        for blocks in [0, 1, 11] {
            let e = Layout::make_ext4fs(blocks).unwrap_err().to_string();
            assert!(e.contains(&format!("on {blocks} blocks")) && e.contains("too small"), "{e}");
        }
        let l = Layout::make_ext4fs(40 * BLOCKS_PER_GROUP + 100).unwrap();
        assert_eq!((l.blocks, l.journal_blocks()), (40 * BLOCKS_PER_GROUP, Some((40 * BLOCKS_PER_GROUP + 100) / 64)));
    }

    #[test]
    fn journal_table_matches_mke2fs() {
        assert_eq!(default_journal_blocks(1000), 0);
        assert_eq!(default_journal_blocks(65536), 4096); // 256 MiB -> 16 MiB
        assert_eq!(default_journal_blocks(4 << 20), 32768); // 16 GiB -> 128 MiB
        assert_eq!(default_journal_blocks(1 << 30), 262144);
    }

    #[test]
    fn metadata_does_not_overlap() {
        let l = Layout::new(40 * BLOCKS_PER_GROUP + 100);
        let mut r = l.static_ranges();
        r.sort();
        for w in r.windows(2) {
            assert!(w[0].0 + w[0].1 <= w[1].0, "{w:?}");
        }
        assert!(l.inode_block(1) >= l.inode_bitmap(l.groups.min(16) - 1));
        assert_eq!(l.block_bitmap(16), 16 * BLOCKS_PER_GROUP);
        assert_eq!(l.file_goal(12), BLOCKS_PER_GROUP, "regular files start in the flex group's second group");
    }

    /// dumpe2fs of `mkfs.ext4 -b 4096 -g 8192` on 128 MiB (e2fsprogs 1.47), trimmed.
    const DUMP: &str = "Block count:              32768
Free blocks:              28000
Free inodes:              32757
Block size:               4096
Blocks per group:         8192
Inodes per group:         8192
Inode size:\t          256
Flex block group size:    16

Group 0: (Blocks 0-8191) csum 0x8ebb [ITABLE_ZEROED]
  Primary superblock at 0, Group descriptors at 1-1
  Reserved GDT blocks at 2-64
  Block bitmap at 65 (+65), csum 0x1f24abf9
  Inode bitmap at 69 (+69), csum 0x902ef06f
  Inode table at 73-584 (+73)
  Free blocks: 2127-8191
  Free inodes: 12-8192
Group 1: (Blocks 8192-16383) csum 0x9725 [INODE_UNINIT, BLOCK_UNINIT, ITABLE_ZEROED]
  Backup superblock at 8192, Group descriptors at 8193-8193
  Reserved GDT blocks at 8194-8256
  Block bitmap at 66 (bg #0 + 66), csum 0x00000000
  Inode bitmap at 70 (bg #0 + 70), csum 0x00000000
  Inode table at 585-1096 (bg #0 + 585)
  Free blocks: 8257-16383
  Free inodes: 8193-16384
Group 2: (Blocks 16384-24575) csum 0x24e3 [INODE_UNINIT, ITABLE_ZEROED]
  Block bitmap at 67 (bg #0 + 67), csum 0xf16f6fee
  Inode bitmap at 71 (bg #0 + 71), csum 0x00000000
  Inode table at 1097-1608 (bg #0 + 1097)
  Free blocks: 20480-24575
  Free inodes: 16385-24576
Group 3: (Blocks 24576-32767) csum 0xf29f [INODE_UNINIT, ITABLE_ZEROED]
  Backup superblock at 24576, Group descriptors at 24577-24577
  Reserved GDT blocks at 24578-24640
  Block bitmap at 68 (bg #0 + 68), csum 0x7cee6645
  Inode bitmap at 72 (bg #0 + 72), csum 0x00000000
  Inode table at 1609-2120 (bg #0 + 1609)
  Free blocks: 24641-32767
  Free inodes: 24577-32768
";

    #[test]
    fn reads_dumpe2fs() {
        let l = Layout::from_dumpe2fs("dump", DUMP, None).unwrap();
        assert_eq!((l.blocks, l.groups, l.blocks_per_group, l.flex), (32768, 4, 8192, 16));
        assert_eq!(l.block_bitmap(2), 67);
        assert_eq!(l.inode_block(12), 73);
        assert_eq!(l.journal(), Some((16384, 4096)));
        assert_eq!(l.first_free_ino, 12);
        assert!(l.block_uninit(1) && !l.block_uninit(2));
        assert_eq!(l.file_goal(12), 8192);
        let used: u64 = l.static_ranges().iter().map(|r| r.1).sum();
        assert_eq!(used, 2127 + 65 + 65);
        assert_eq!(l.block_kind(1), BlockKind::Super);
        assert_eq!(l.block_kind(66), BlockKind::Bitmap);
        assert_eq!(l.block_kind(600), BlockKind::InodeTable);
        assert_eq!(l.block_kind(17000), BlockKind::Journal);
        assert_eq!(l.block_kind(9000), BlockKind::Data);
    }

    #[test]
    fn bad_dumps_name_the_problem() {
        let e = Layout::from_dumpe2fs("d", &DUMP.replace("Block size:               4096", "Block size: 1024"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("4096"), "{e}");
        let e = Layout::from_dumpe2fs("d", &DUMP.replace("Free blocks: 20480-24575", "Free blocks: 20480-x"), None)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("d:") && e.contains("'x'"), "{e}");
        assert!(Layout::from_dumpe2fs("d", "", None).unwrap_err().to_string().contains("Block size"));
    }
}
