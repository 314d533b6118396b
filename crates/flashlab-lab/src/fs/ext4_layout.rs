//! Where ext4's static metadata lives, as mke2fs lays it out with its defaults (4 KiB blocks,
//! 32768 blocks per group, one 256-byte inode per 16 KiB, `flex_bg` of 16 groups: the block
//! bitmaps, inode bitmaps and inode tables of a flex group packed at its start), and the
//! default journal size from mke2fs's table (`ext2fs_default_journal_size`).
//!
//! Not modelled: backup superblocks and group descriptors (`sparse_super`), reserved GDT
//! blocks, the smaller inode ratio mke2fs's `small` type uses below 512 MiB.

use crate::simfs::FS_BLOCK;

pub const BLOCKS_PER_GROUP: u64 = 32768;
pub const INODES_PER_GROUP: u64 = 8192;
pub const INODE_SIZE: u64 = 256;
pub const GROUPS_PER_FLEX: u64 = 16;
/// 64-byte group descriptors.
pub const DESCRIPTORS_PER_BLOCK: u64 = FS_BLOCK / 64;
const ITABLE_BLOCKS: u64 = INODES_PER_GROUP * INODE_SIZE / FS_BLOCK;

/// mke2fs's default journal size in blocks for a filesystem of `blocks` 4 KiB blocks (0 = no
/// journal: below 2048 blocks mke2fs makes none).
pub fn default_journal_blocks(blocks: u64) -> u64 {
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

#[derive(Debug, Clone)]
pub struct Layout {
    pub blocks: u64,
    pub groups: u64,
    gdt_blocks: u64,
}

impl Layout {
    pub fn new(blocks: u64) -> Layout {
        let groups = blocks.div_ceil(BLOCKS_PER_GROUP).max(1);
        Layout { blocks, groups, gdt_blocks: groups.div_ceil(DESCRIPTORS_PER_BLOCK) }
    }

    fn flex_meta_start(&self, flex: u64) -> u64 {
        let base = flex * GROUPS_PER_FLEX * BLOCKS_PER_GROUP;
        if flex == 0 {
            1 + self.gdt_blocks // superblock, group descriptors
        } else {
            base
        }
    }

    fn groups_in_flex(&self, flex: u64) -> u64 {
        GROUPS_PER_FLEX.min(self.groups - flex * GROUPS_PER_FLEX)
    }

    pub fn block_bitmap(&self, group: u64) -> u64 {
        let flex = group / GROUPS_PER_FLEX;
        self.flex_meta_start(flex) + group % GROUPS_PER_FLEX
    }

    pub fn inode_bitmap(&self, group: u64) -> u64 {
        let flex = group / GROUPS_PER_FLEX;
        self.flex_meta_start(flex) + self.groups_in_flex(flex) + group % GROUPS_PER_FLEX
    }

    fn inode_table(&self, group: u64) -> u64 {
        let flex = group / GROUPS_PER_FLEX;
        self.flex_meta_start(flex) + 2 * self.groups_in_flex(flex) + (group % GROUPS_PER_FLEX) * ITABLE_BLOCKS
    }

    pub fn descriptor_block(&self, group: u64) -> u64 {
        1 + group / DESCRIPTORS_PER_BLOCK
    }

    /// Group of inode `ino` (inode numbers past the table wrap around).
    pub fn inode_group(&self, ino: u64) -> u64 {
        ((ino - 1) / INODES_PER_GROUP) % self.groups
    }

    /// The inode-table block holding inode `ino`.
    pub fn inode_block(&self, ino: u64) -> u64 {
        let idx = (ino - 1) % INODES_PER_GROUP;
        self.inode_table(self.inode_group(ino)) + idx * INODE_SIZE / FS_BLOCK
    }

    pub fn group_of(&self, block: u64) -> u64 {
        (block / BLOCKS_PER_GROUP).min(self.groups - 1)
    }

    /// Static metadata block ranges (start block, blocks) that fit in the filesystem.
    pub fn static_ranges(&self) -> Vec<(u64, u64)> {
        let mut out = vec![(0, 1 + self.gdt_blocks)];
        for flex in 0..self.groups.div_ceil(GROUPS_PER_FLEX) {
            let n = self.groups_in_flex(flex);
            out.push((self.flex_meta_start(flex), n * (2 + ITABLE_BLOCKS)));
        }
        out.retain(|&(s, l)| s + l <= self.blocks);
        out
    }

    /// Where mke2fs aims the journal: the start of the flex group holding the middle block.
    pub fn journal_goal(&self) -> u64 {
        let mid_group = self.group_of(self.blocks / 2);
        (mid_group / GROUPS_PER_FLEX) * GROUPS_PER_FLEX * BLOCKS_PER_GROUP
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
