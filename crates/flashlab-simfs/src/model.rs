//! The interface between the filesystem front ([`crate::Fs`]: names, file ids, counters,
//! tracing) and a filesystem model: what every model does with a file operation. The front
//! never asks which model it drives.
//!
//! Two models implement it, each in its own file: [`InPlace`] (`plain` and `ext4`,
//! `inplace.rs`) and [`F2fs`] (`f2fs.rs`). [`AnyModel`] holds
//! one of them and implements the trait by delegation, so calls are dispatched statically
//! (a match, no virtual call) and the models stay out of each other's way.

use crate::disk::Disk;
use crate::f2fs::F2fs;
use crate::inplace::InPlace;
use crate::{FsError, InvariantError};
use flashsim::{Completion, Ns, Op};

/// What a filesystem model does with the file operations of [`crate::Fs`]. File ids are
/// indices the front hands out (reused after a delete); every device request goes through
/// the [`Disk`] given, at virtual time `t`.
pub(crate) trait FsModel {
    /// Bytes a user could allocate on the empty filesystem.
    fn capacity(&self) -> u64;
    /// Bytes free for new data.
    fn free_bytes(&self) -> u64;
    /// The size of file `id`, if it exists.
    fn size(&self, id: u32) -> Option<u64>;
    /// Create file `id` called `name` and allocate `size` bytes to it (fallocate).
    fn create(&mut self, d: &mut Disk, t: Ns, id: u32, name: &str, size: u64) -> Result<(), FsError>;
    /// Read, write or trim `len` bytes at `off` of file `id`; returns the last completion.
    #[allow(clippy::too_many_arguments)]
    fn io(
        &mut self,
        d: &mut Disk,
        t: Ns,
        id: u32,
        name: &str,
        op: Op,
        off: u64,
        len: u64,
    ) -> Result<Completion, FsError>;
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
    /// Someone read file `id`'s timestamps (see [`InPlace::stat`]).
    fn stat(&mut self, _id: u32) {}
    /// Someone read file `id` through the page cache (see [`InPlace::read_atime`]).
    fn read_atime(&mut self, _id: u32) {}
}

/// One of the models, boxed (they are large and moved around with their system).
#[derive(Debug, Clone)]
pub(crate) enum AnyModel {
    /// `plain` or `ext4`.
    InPlace(Box<InPlace>),
    /// `f2fs`.
    Log(Box<F2fs>),
}

impl FsModel for AnyModel {
    fn capacity(&self) -> u64 {
        match self {
            AnyModel::InPlace(m) => FsModel::capacity(m.as_ref()),
            AnyModel::Log(m) => FsModel::capacity(m.as_ref()),
        }
    }
    fn free_bytes(&self) -> u64 {
        match self {
            AnyModel::InPlace(m) => FsModel::free_bytes(m.as_ref()),
            AnyModel::Log(m) => FsModel::free_bytes(m.as_ref()),
        }
    }
    fn size(&self, id: u32) -> Option<u64> {
        match self {
            AnyModel::InPlace(m) => FsModel::size(m.as_ref(), id),
            AnyModel::Log(m) => FsModel::size(m.as_ref(), id),
        }
    }
    fn create(&mut self, d: &mut Disk, t: Ns, id: u32, name: &str, size: u64) -> Result<(), FsError> {
        match self {
            AnyModel::InPlace(m) => FsModel::create(m.as_mut(), d, t, id, name, size),
            AnyModel::Log(m) => FsModel::create(m.as_mut(), d, t, id, name, size),
        }
    }
    fn io(
        &mut self,
        d: &mut Disk,
        t: Ns,
        id: u32,
        name: &str,
        op: Op,
        off: u64,
        len: u64,
    ) -> Result<Completion, FsError> {
        match self {
            AnyModel::InPlace(m) => FsModel::io(m.as_mut(), d, t, id, name, op, off, len),
            AnyModel::Log(m) => FsModel::io(m.as_mut(), d, t, id, name, op, off, len),
        }
    }
    fn fsync(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<Ns, FsError> {
        match self {
            AnyModel::InPlace(m) => FsModel::fsync(m.as_mut(), d, t, id),
            AnyModel::Log(m) => FsModel::fsync(m.as_mut(), d, t, id),
        }
    }
    fn delete(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<(), FsError> {
        match self {
            AnyModel::InPlace(m) => FsModel::delete(m.as_mut(), d, t, id),
            AnyModel::Log(m) => FsModel::delete(m.as_mut(), d, t, id),
        }
    }
    fn idle(&mut self, d: &mut Disk, start: Ns, end: Ns) -> Result<(), FsError> {
        match self {
            AnyModel::InPlace(m) => FsModel::idle(m.as_mut(), d, start, end),
            AnyModel::Log(m) => FsModel::idle(m.as_mut(), d, start, end),
        }
    }
    fn sync(&mut self, d: &mut Disk, t: Ns) -> Result<Ns, FsError> {
        match self {
            AnyModel::InPlace(m) => FsModel::sync(m.as_mut(), d, t),
            AnyModel::Log(m) => FsModel::sync(m.as_mut(), d, t),
        }
    }
    fn fstrim(&mut self, d: &mut Disk, t: Ns) -> Result<(u64, Ns), FsError> {
        match self {
            AnyModel::InPlace(m) => FsModel::fstrim(m.as_mut(), d, t),
            AnyModel::Log(m) => FsModel::fstrim(m.as_mut(), d, t),
        }
    }
    fn check(&self) -> Result<(), InvariantError> {
        match self {
            AnyModel::InPlace(m) => FsModel::check(m.as_ref()),
            AnyModel::Log(m) => FsModel::check(m.as_ref()),
        }
    }
    fn truncate_to_zero(&mut self, d: &mut Disk, t: Ns, id: u32) -> Result<bool, FsError> {
        match self {
            AnyModel::InPlace(m) => FsModel::truncate_to_zero(m.as_mut(), d, t, id),
            AnyModel::Log(m) => FsModel::truncate_to_zero(m.as_mut(), d, t, id),
        }
    }
    fn set_file_clock(&mut self, clock: Option<Ns>) {
        match self {
            AnyModel::InPlace(m) => FsModel::set_file_clock(m.as_mut(), clock),
            AnyModel::Log(m) => FsModel::set_file_clock(m.as_mut(), clock),
        }
    }
    fn stat(&mut self, id: u32) {
        match self {
            AnyModel::InPlace(m) => FsModel::stat(m.as_mut(), id),
            AnyModel::Log(m) => FsModel::stat(m.as_mut(), id),
        }
    }
    fn read_atime(&mut self, id: u32) {
        match self {
            AnyModel::InPlace(m) => FsModel::read_atime(m.as_mut(), id),
            AnyModel::Log(m) => FsModel::read_atime(m.as_mut(), id),
        }
    }
}
