//! Where mkfs.f2fs put the areas of a real F2FS image: read from its superblock (at byte 1024)
//! and its first checkpoint, so the F2FS model can run over the same layout as the kernel's
//! F2FS ([`crate::Fs::f2fs_on`]) and `validate-fs` can class each block request by area.
//!
//! The offsets are those of `struct f2fs_super_block` and `struct f2fs_checkpoint` in the
//! kernel's `include/linux/f2fs_fs.h` (little-endian); only the fields the model needs are
//! read. Not for: images with a block size other than 4 KiB, multi-device or zoned images.

use crate::LayoutError;
use serde::{Deserialize, Serialize};

/// F2FS's superblock magic.
pub const F2FS_MAGIC: u32 = 0xF2F5_2010;
/// Byte offset of the superblock in the image.
const SB_OFFSET: usize = 1024;

/// The areas of an F2FS image, in 4 KiB blocks, and the checkpoint's space accounting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct F2fsLayout {
    /// Blocks in the filesystem.
    pub block_count: u64,
    /// Blocks per segment (512).
    pub blocks_per_seg: u32,
    /// Segments per section (1 unless mkfs was told `-s`).
    pub segs_per_sec: u32,
    /// First block of segment 0 (the checkpoint area starts there).
    pub segment0_blkaddr: u32,
    /// Checkpoint area (two packs, one segment each by default).
    pub cp_blkaddr: u32,
    /// SIT area (two copies).
    pub sit_blkaddr: u32,
    /// SIT segments, both copies.
    pub segment_count_sit: u32,
    /// NAT area (two copies).
    pub nat_blkaddr: u32,
    /// NAT segments, both copies.
    pub segment_count_nat: u32,
    /// SSA area (one summary block per main segment).
    pub ssa_blkaddr: u32,
    /// First block of the main area (data and nodes).
    pub main_blkaddr: u32,
    /// Segments of the main area.
    pub segment_count_main: u32,
    /// Blocks the user may fill (the checkpoint's `user_block_count`).
    pub user_block_count: u64,
    /// Blocks valid after mkfs (root inode and dentry block, and quota files if any).
    pub valid_block_count: u64,
    /// Segments kept free for cleaning (`rsvd_segment_count`).
    pub rsvd_segment_count: u32,
    /// Segments out of the user's reach, the reserve included (`overprov_segment_count`).
    pub overprov_segment_count: u32,
    /// The current segment and next block of each node log (hot, warm, cold).
    pub cur_node: [(u32, u16); 3],
    /// The current segment and next block of each data log (hot, warm, cold).
    pub cur_data: [(u32, u16); 3],
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"))
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"))
}

impl F2fsLayout {
    /// Read the layout from the first bytes of an image (at least up to the end of its first
    /// checkpoint block); `input` names the image in errors.
    pub fn from_image(input: &str, img: &[u8]) -> Result<F2fsLayout, LayoutError> {
        let bad =
            |structure, field, msg: String| LayoutError::F2fsField { input: input.to_string(), structure, field, msg };
        if img.len() < SB_OFFSET + 100 {
            return Err(bad("superblock", "magic", format!("image of {} bytes has no superblock", img.len())));
        }
        let sb = &img[SB_OFFSET..];
        let magic = u32_at(sb, 0);
        if magic != F2FS_MAGIC {
            return Err(bad("superblock", "magic", format!("{magic:#x}, not {F2FS_MAGIC:#x}: not an F2FS image")));
        }
        let log_blocksize = u32_at(sb, 16);
        if log_blocksize != 12 {
            return Err(bad(
                "superblock",
                "log_blocksize",
                format!("{log_blocksize}: the model needs 4096-byte blocks"),
            ));
        }
        let log_blocks_per_seg = u32_at(sb, 20);
        if log_blocks_per_seg != 9 {
            return Err(bad(
                "superblock",
                "log_blocks_per_seg",
                format!("{log_blocks_per_seg}: the model needs 512-block segments"),
            ));
        }
        let cp_blkaddr = u32_at(sb, 76);
        let cp = cp_blkaddr as usize * 4096;
        if img.len() < cp + 4096 {
            return Err(bad(
                "checkpoint",
                "cp_blkaddr",
                format!("block {cp_blkaddr} is past the {} bytes read", img.len()),
            ));
        }
        let c = &img[cp..cp + 4096];
        let seg = |o| (u32_at(c, o), u16_at(c, o + 32));
        let l = F2fsLayout {
            block_count: u64_at(sb, 36),
            blocks_per_seg: 1 << log_blocks_per_seg,
            segs_per_sec: u32_at(sb, 24),
            segment0_blkaddr: u32_at(sb, 72),
            cp_blkaddr,
            sit_blkaddr: u32_at(sb, 80),
            segment_count_sit: u32_at(sb, 56),
            nat_blkaddr: u32_at(sb, 84),
            segment_count_nat: u32_at(sb, 60),
            ssa_blkaddr: u32_at(sb, 88),
            main_blkaddr: u32_at(sb, 92),
            segment_count_main: u32_at(sb, 68),
            user_block_count: u64_at(c, 8),
            valid_block_count: u64_at(c, 16),
            rsvd_segment_count: u32_at(c, 24),
            overprov_segment_count: u32_at(c, 28),
            cur_node: [seg(36), seg(40), seg(44)],
            cur_data: [seg(84), seg(88), seg(92)],
        };
        let main_end = u64::from(l.main_blkaddr) + u64::from(l.segment_count_main) * 512;
        if !(l.cp_blkaddr < l.sit_blkaddr && l.sit_blkaddr < l.nat_blkaddr && l.nat_blkaddr < l.ssa_blkaddr)
            || l.ssa_blkaddr >= l.main_blkaddr
            || main_end > l.block_count
        {
            return Err(bad("superblock", "main_blkaddr", format!("areas out of order or past the end: {l:?}")));
        }
        if l.overprov_segment_count >= l.segment_count_main || l.rsvd_segment_count > l.overprov_segment_count {
            return Err(bad(
                "checkpoint",
                "overprov_segment_count",
                format!(
                    "{} overprovisioned, {} reserved of {} main segments",
                    l.overprov_segment_count, l.rsvd_segment_count, l.segment_count_main
                ),
            ));
        }
        for (i, &(s, off)) in l.cur_node.iter().chain(&l.cur_data).enumerate() {
            if s >= l.segment_count_main || u32::from(off) > l.blocks_per_seg {
                return Err(bad("checkpoint", "cur_segno", format!("log {i} at segment {s} block {off}")));
            }
        }
        Ok(l)
    }

    /// Bytes of the image [`F2fsLayout::from_image`] needs: through the first checkpoint block
    /// of a default mkfs (the checkpoint area starts at block 512).
    pub const HEAD_BYTES: usize = 1024 * 4096;

    /// The area block `b` lies in.
    pub fn area(&self, b: u64) -> F2fsArea {
        let b = b as u32;
        if b < self.cp_blkaddr {
            F2fsArea::Superblock
        } else if b < self.sit_blkaddr {
            F2fsArea::Checkpoint
        } else if b < self.nat_blkaddr {
            F2fsArea::Sit
        } else if b < self.ssa_blkaddr {
            F2fsArea::Nat
        } else if b < self.main_blkaddr {
            F2fsArea::Ssa
        } else {
            F2fsArea::Main
        }
    }
}

/// The areas of an F2FS image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum F2fsArea {
    /// The two superblocks (segment 0).
    Superblock,
    /// The two checkpoint packs.
    Checkpoint,
    /// Segment information table (valid maps and counts, two copies).
    Sit,
    /// Node address table (node id to block, two copies).
    Nat,
    /// Segment summary area (owner of each block of each main segment).
    Ssa,
    /// Data and node segments.
    Main,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A superblock and checkpoint with the fields a 256 MiB `mkfs.f2fs` writes.
    pub(crate) fn image() -> Vec<u8> {
        let mut v = vec![0u8; F2fsLayout::HEAD_BYTES];
        let put32 = |v: &mut Vec<u8>, o: usize, x: u32| v[o..o + 4].copy_from_slice(&x.to_le_bytes());
        let sb = 1024;
        put32(&mut v, sb, F2FS_MAGIC);
        put32(&mut v, sb + 16, 12);
        put32(&mut v, sb + 20, 9);
        put32(&mut v, sb + 24, 1);
        v[sb + 36..sb + 44].copy_from_slice(&65536u64.to_le_bytes());
        for (o, x) in
            [(56, 2), (60, 2), (68, 118), (72, 512), (76, 512), (80, 1536), (84, 2560), (88, 3584), (92, 4096)]
        {
            put32(&mut v, sb + o, x);
        }
        let cp = 512 * 4096;
        v[cp + 8..cp + 16].copy_from_slice(&40960u64.to_le_bytes());
        v[cp + 16..cp + 24].copy_from_slice(&2u64.to_le_bytes());
        put32(&mut v, cp + 24, 17);
        put32(&mut v, cp + 28, 33);
        for (i, s) in [(0, 3), (1, 2), (2, 1)] {
            put32(&mut v, cp + 36 + 4 * i, s);
        }
        for (i, s) in [(0, 0), (1, 4), (2, 5)] {
            put32(&mut v, cp + 84 + 4 * i, s);
        }
        v
    }

    #[test]
    fn the_areas_are_read_and_classed() {
        let l = F2fsLayout::from_image("t.img", &image()).unwrap();
        assert_eq!((l.main_blkaddr, l.segment_count_main, l.overprov_segment_count), (4096, 118, 33));
        assert_eq!(l.cur_data[1], (4, 0));
        assert_eq!(l.area(0), F2fsArea::Superblock);
        assert_eq!(l.area(600), F2fsArea::Checkpoint);
        assert_eq!(l.area(2000), F2fsArea::Sit);
        assert_eq!(l.area(3000), F2fsArea::Nat);
        assert_eq!(l.area(4000), F2fsArea::Ssa);
        assert_eq!(l.area(5000), F2fsArea::Main);
    }

    #[test]
    fn a_wrong_image_is_named_with_the_field() {
        let mut v = image();
        v[1024] = 0;
        let e = F2fsLayout::from_image("x.img", &v).unwrap_err().to_string();
        assert!(e.contains("x.img") && e.contains("magic"), "{e}");
        let mut v = image();
        v[1024 + 16] = 13;
        assert!(F2fsLayout::from_image("x.img", &v).unwrap_err().to_string().contains("log_blocksize"));
        assert!(F2fsLayout::from_image("x.img", &[0u8; 10]).is_err());
    }
}
