//! The interface between the filesystem front ([`crate::Fs`]: names, file ids, counters,
//! tracing) and a filesystem model: what every model does with a file operation. The front
//! never asks which model it drives.
//!
//! Two models implement it, each in its own file: [`InPlace`] (`plain` and `ext4`,
//! `inplace.rs`) and [`F2fs`] (`f2fs.rs`). [`AnyModel`] holds one of them and implements the
//! trait by delegating each call to it (`enum_dispatch` writes the `match`): calls are
//! dispatched statically (a branch on the kind, no virtual call) and the models stay out of
//! each other's way.

use crate::disk::Disk;
use crate::f2fs::F2fs;
use crate::inplace::InPlace;
use crate::{FsError, InvariantError};
use enum_dispatch::enum_dispatch;
use flashsim::{Completion, Ns, Op};

/// One read, write or trim of a file: which file, what, and where in it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileIo<'a> {
    /// The file's id.
    pub(crate) id: u32,
    /// The file's name, for error messages.
    pub(crate) name: &'a str,
    /// Read, write or trim.
    pub(crate) op: Op,
    /// Byte offset in the file.
    pub(crate) off: u64,
    /// Bytes (more than 0).
    pub(crate) len: u64,
}

/// What a filesystem model does with the file operations of [`crate::Fs`]. File ids are
/// indices the front hands out (reused after a delete); every device request goes through
/// the [`Disk`] given, at virtual time `t`.
#[enum_dispatch]
pub(crate) trait FsModel {
    /// Bytes a user could allocate on the empty filesystem.
    fn capacity(&self) -> u64;
    /// Bytes free for new data.
    fn free_bytes(&self) -> u64;
    /// The size of file `id`, if it exists.
    fn size(&self, id: u32) -> Option<u64>;
    /// Create file `id` called `name` and allocate `size` bytes to it (fallocate).
    fn create(&mut self, d: &mut Disk, t: Ns, id: u32, name: &str, size: u64) -> Result<(), FsError>;
    /// Read, write or trim what `io` says; returns the last completion.
    fn io(&mut self, d: &mut Disk, t: Ns, io: FileIo) -> Result<Completion, FsError>;
    /// Make file `id` durable; returns when it is.
    fn fsync(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<Ns, FsError>;
    /// Delete file `id`, freeing its blocks (trimmed when mounted with discard).
    fn delete(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<(), FsError>;
    /// Background work (commits, checkpoints, cleaning) between `start` and `end`.
    fn idle(&mut self, d: &mut Disk, start: Ns, end: Ns) -> Result<(), FsError>;
    /// Commit everything and flush the device cache; returns when done.
    fn sync(&mut self, d: &mut Disk, t: Ns) -> Result<Ns, FsError>;
    /// Trim the free space; returns the bytes trimmed and when it is done.
    fn fstrim(&mut self, d: &mut Disk, t: Ns) -> Result<(u64, Ns), FsError>;
    /// The model's invariants.
    fn check(&self) -> Result<(), InvariantError>;
    /// Truncate file `id` to 0 bytes; false (nothing done) on a model without truncation.
    fn truncate_to_zero(&mut self, _d: &mut Disk, _t: Ns, _id: u32) -> Result<bool, FsError> {
        Ok(false)
    }
    /// Take file timestamps from `clock` (see [`InPlace::set_file_clock`]); models without
    /// timestamps ignore it.
    fn set_file_clock(&mut self, _clock: Option<Ns>) {}
    /// fsync of the directory (see [`crate::Fs::fsync_dir`]); nothing by default.
    fn fsync_dir(&mut self, _d: &mut Disk, t: Ns) -> Result<Ns, FsError> {
        Ok(t)
    }
    /// Someone read file `id`'s timestamps (see [`InPlace::stat`]).
    fn stat(&mut self, _id: u32) {}
    /// File `id`'s inode changed without a write (see [`crate::Fs::inode_changed`]).
    fn inode_changed(&mut self, _id: u32) {}
    /// Someone read file `id` through the page cache (see [`InPlace::read_atime`]).
    fn read_atime(&mut self, _id: u32) {}
}

/// One of the models. One per simulated system, so the F2FS variant's size (its fixed arrays
/// inline) costs nothing worth a box on every call.
#[allow(clippy::large_enum_variant)]
#[enum_dispatch(FsModel)]
#[derive(Debug, Clone)]
pub(crate) enum AnyModel {
    /// `plain` or `ext4`.
    InPlace(InPlace),
    /// `f2fs`.
    Log(F2fs),
}
