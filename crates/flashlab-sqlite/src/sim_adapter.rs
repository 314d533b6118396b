//! Every call flashlab-sqlite makes into the simulated system (`flashlab_lab::system::SimSystem`)
//! is in this file, so that moving to the coming filesystem API (ext4-journal and F2FS models,
//! `sys.io`/`sys.fsync`) touches nothing else.
//!
//! Today's simulated filesystem has data extents only: no journal and no metadata writes, so an
//! fsync costs the file's data blocks and one cache flush; what ext4's journal adds on a real
//! device ("journaling of journal") is not in the model. [`MODEL_LABEL`] says so in the output.

use crate::error::Error;
use flashlab_lab::system::SimSystem;
use flashsim::{Counters, Ns, Op, Profile};

/// How the output labels numbers from this adapter.
pub const MODEL_LABEL: &str = "model: simulated device under flashlab's simulated filesystem \
    (data extents only, no filesystem journal or metadata writes)";

/// A fresh simulated system and its virtual clock.
pub struct SimAdapter {
    sys: SimSystem,
}

impl SimAdapter {
    pub fn new(profile: &Profile, seed: u64, discard: bool) -> SimAdapter {
        SimAdapter { sys: SimSystem::new(profile, seed, discard) }
    }

    pub fn profile_name(&self) -> &str {
        &self.sys.dev.profile().name
    }

    /// Virtual time now (ns).
    pub fn now(&self) -> Ns {
        self.sys.now
    }

    pub fn counters(&self) -> Counters {
        self.sys.dev.counters()
    }

    /// Allocate a file of `size` bytes (whole blocks) without writing it.
    pub fn create(&mut self, name: &str, size: u64) -> Result<(), Error> {
        self.sys.fs.create(name, size).map(|_| ()).map_err(|e| Error::Sim(e.to_string()))
    }

    /// Write the file ranges `runs` (offset, length), all submitted now (the page cache's
    /// writeback queues them together); the clock moves to when the last completes.
    pub fn write_runs(&mut self, name: &str, runs: &[(u64, u64)]) -> Result<(), Error> {
        let file = self.sys.fs.file(name).ok_or_else(|| Error::Sim(format!("no simulated file '{name}'")))?;
        let t = self.sys.now;
        let mut done = t;
        for &(off, len) in runs {
            let c = SimSystem::file_io(&mut self.sys.dev, file, t, Op::Write, off, len)
                .map_err(|e| Error::Sim(format!("write {name} [{off}, +{len}): {e}")))?;
            done = done.max(c.done);
        }
        self.sys.now = done;
        Ok(())
    }

    /// A device cache flush (what fsync ends with).
    pub fn flush(&mut self) -> Result<(), Error> {
        self.sys.sync().map_err(|e| Error::Sim(format!("flush: {e}")))
    }

    /// Delete a file (trimmed at once if the filesystem is mounted with discard).
    pub fn delete(&mut self, name: &str) -> Result<(), Error> {
        self.sys.delete(name).map_err(|e| Error::Sim(format!("delete {name}: {e}")))
    }
}
