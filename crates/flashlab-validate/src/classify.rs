//! Which part of ext4 a request writes: file data, journal, inode tables, bitmaps (block and
//! inode), superblock and group descriptors, directories — from the image's own layout
//! (`dumpe2fs`) and the directory blocks each side reports. Flushes and discards are classes
//! of their own. A request is classed by its first block.

use crate::requests::{Req, ReqOp};
use flashlab_simfs::ext4_layout::{BlockKind, Layout};
use flashlab_simfs::FS_BLOCK;
use serde::Serialize;
use std::collections::HashSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Data,
    Journal,
    InodeTable,
    Bitmap,
    Descriptor,
    Directory,
    Flush,
    Discard,
    Read,
}

impl Class {
    pub const ALL: [Class; 9] = [
        Class::Data,
        Class::Journal,
        Class::InodeTable,
        Class::Bitmap,
        Class::Descriptor,
        Class::Directory,
        Class::Flush,
        Class::Discard,
        Class::Read,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Data => "data",
            Class::Journal => "journal",
            Class::InodeTable => "inode-table",
            Class::Bitmap => "bitmap",
            Class::Descriptor => "descriptor",
            Class::Directory => "directory",
            Class::Flush => "flush",
            Class::Discard => "discard",
            Class::Read => "read",
        }
    }
}

pub struct Classifier<'a> {
    layout: &'a Layout,
    dirs: HashSet<u64>,
}

impl<'a> Classifier<'a> {
    /// `dir_blocks`: the blocks holding directories on this side.
    pub fn new(layout: &'a Layout, dir_blocks: &[u64]) -> Classifier<'a> {
        Classifier { layout, dirs: dir_blocks.iter().copied().collect() }
    }

    pub fn class(&self, r: &Req) -> Class {
        match r.op {
            ReqOp::Flush => Class::Flush,
            ReqOp::Discard => Class::Discard,
            ReqOp::Read => Class::Read,
            ReqOp::Write => {
                let b = r.offset / FS_BLOCK;
                if self.dirs.contains(&b) {
                    return Class::Directory;
                }
                match self.layout.block_kind(b) {
                    BlockKind::Data => Class::Data,
                    BlockKind::Journal => Class::Journal,
                    BlockKind::InodeTable => Class::InodeTable,
                    BlockKind::Bitmap => Class::Bitmap,
                    BlockKind::Super => Class::Descriptor,
                }
            }
        }
    }
}
