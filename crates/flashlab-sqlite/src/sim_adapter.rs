//! Every call flashlab-sqlite makes into the simulated system (`flashlab_lab::system::SimSystem`)
//! is in this file.
//!
//! The replay runs on the simulated filesystem the profile names (its `[system]` table) or the
//! one `--fs` asks for: on the ext4 model an fsync also commits the journal (journal blocks,
//! commit block, flushes: "journaling of journal"), on the F2FS model it writes node blocks;
//! on `plain` it costs the file's data blocks and one flush. [`model_label`] says which.

use crate::error::Error;
use flashlab_lab::system::SimSystem;
use flashlab_simfs::{FileId, FsConfig};
use flashsim::{Counters, Ns, Op, Profile};
use std::collections::HashMap;

/// How the output labels numbers from this adapter.
pub fn model_label(fs: &FsConfig) -> String {
    format!("model: simulated device under flashlab's simulated {} filesystem", fs.label())
}

/// A fresh simulated system and its virtual clock.
pub struct SimAdapter {
    sys: SimSystem,
    ids: HashMap<String, FileId>,
}

impl SimAdapter {
    /// A fresh simulated system: a new `profile` device (seeded) with the `fs` filesystem model on it.
    pub fn new(profile: &Profile, seed: u64, fs: FsConfig) -> SimAdapter {
        SimAdapter { sys: SimSystem::with_fs(profile, seed, fs), ids: HashMap::new() }
    }

    /// A simulated system whose device went through `precondition` before the filesystem was
    /// made on it.
    pub fn prepared(
        profile: &Profile,
        seed: u64,
        fs: FsConfig,
        precondition: flashlab_lab::precondition::Precondition,
    ) -> Result<SimAdapter, Error> {
        let (sys, _) = flashlab_lab::precondition::system(profile, seed, fs, precondition)
            .map_err(|e| Error::Sim(e.to_string()))?;
        Ok(SimAdapter { sys, ids: HashMap::new() })
    }

    /// An adapter over a system the caller made (a filesystem model over a real image's
    /// layout, say).
    pub fn with_system(sys: SimSystem) -> SimAdapter {
        SimAdapter { sys, ids: HashMap::new() }
    }

    /// The simulated system (to read or record what it did).
    pub fn system_mut(&mut self) -> &mut SimSystem {
        &mut self.sys
    }

    /// The simulated system, the adapter done with.
    pub fn into_system(self) -> SimSystem {
        self.sys
    }

    /// Virtual time now (ns).
    pub fn now(&self) -> Ns {
        self.sys.now
    }

    pub(crate) fn counters(&self) -> Counters {
        self.sys.dev.counters()
    }

    /// Allocate a file of `size` bytes (whole blocks) without writing it.
    pub fn create(&mut self, name: &str, size: u64) -> Result<(), Error> {
        let id = self.sys.create(name, size).map_err(|e| Error::Sim(e.to_string()))?;
        self.ids.insert(name.to_string(), id);
        Ok(())
    }

    fn id(&self, name: &str) -> Result<FileId, Error> {
        self.ids.get(name).copied().ok_or_else(|| Error::Sim(format!("no simulated file '{name}'")))
    }

    /// Write the file ranges `runs` (offset, length), all submitted now (the page cache's
    /// writeback queues them together); the clock moves to when the last completes.
    pub fn write_runs(&mut self, name: &str, runs: &[(u64, u64)]) -> Result<(), Error> {
        let id = self.id(name)?;
        let t = self.sys.now;
        let mut done = t;
        for &(off, len) in runs {
            let c = self
                .sys
                .io(t, id, Op::Write, off, len)
                .map_err(|e| Error::Sim(format!("write {name} [{off}, +{len}): {e}")))?;
            done = done.max(c.done);
        }
        self.sys.now = done;
        Ok(())
    }

    /// fsync `name` (its journal commit or node write and the cache flush), or with no file
    /// (a directory sync) commit what the filesystem holds and flush.
    pub fn fsync(&mut self, name: Option<&str>) -> Result<(), Error> {
        match name {
            Some(n) if self.ids.contains_key(n) => {
                let id = self.id(n)?;
                let done = self.sys.fsync(self.sys.now, id).map_err(|e| Error::Sim(format!("fsync {n}: {e}")))?;
                self.sys.now = self.sys.now.max(done);
                Ok(())
            }
            _ => self.sys.sync().map_err(|e| Error::Sim(format!("sync: {e}"))),
        }
    }

    /// fsync of the directory holding the files ([`flashlab_simfs::Fs::fsync_dir`]).
    pub fn fsync_dir(&mut self) -> Result<(), Error> {
        let done = self
            .sys
            .fs
            .fsync_dir(&mut self.sys.dev, self.sys.now)
            .map_err(|e| Error::Sim(format!("fsync of the directory: {e}")))?;
        self.sys.now = self.sys.now.max(done);
        Ok(())
    }

    /// The file's inode changed without a write (a chown: its ctime).
    pub fn inode_changed(&mut self, name: &str) {
        self.sys.fs.inode_changed(name);
    }

    /// Someone read the file (atime, as `relatime` updates it).
    pub fn read_atime(&mut self, name: &str) {
        self.sys.fs.read_atime(name);
    }

    /// Someone read the file's timestamps (fstat).
    pub fn stat(&mut self, name: &str) {
        self.sys.fs.stat(name);
    }

    /// Truncate a file to 0 bytes, keeping it; false when the model cannot (delete it then).
    pub fn truncate_to_zero(&mut self, name: &str) -> Result<bool, Error> {
        self.sys.truncate_to_zero(name).map_err(|e| Error::Sim(format!("truncate {name}: {e}")))
    }

    /// Delete a file (trimmed if the filesystem is mounted with discard).
    pub fn delete(&mut self, name: &str) -> Result<(), Error> {
        self.ids.remove(name);
        self.sys.delete(name).map_err(|e| Error::Sim(format!("delete {name}: {e}")))
    }
}
