//! The one place where `flashlab life` calls the simulated system (`flashlab_lab::system::
//! SimSystem`: device + simulated filesystem + virtual clock). Everything else in the crate goes
//! through [`Sim`]. The filesystem is the profile's (its `[system]` table: ext4 on the Nexus 7,
//! F2FS on the Moto X, the data-extents-only `plain` model otherwise), with online discard
//! added when the trim policy mounts with it.
//!
//! Application I/O here is queue depth 1 on the virtual clock: each call starts at `now` and
//! `now` moves to its completion. Block-level calls (trace replay) take their own arrival time.

use flashlab_lab::rng::Rng;
use flashlab_lab::system::SimSystem;
use flashlab_measure::LatencyHistogram;
use flashlab_simfs::{FileId, FsConfig};
use flashsim::{Completion, Counters, DeviceState, Ns, Op, Profile, Request};
use std::collections::HashMap;

/// The error of any simulated-system call, as text (the caller adds context).
pub use crate::error::SimError;

/// A simulated system for a life run.
#[derive(Debug, Clone)]
pub(crate) struct Sim {
    sys: SimSystem,
    ids: HashMap<String, FileId>,
}

/// What a random-write probe measured.
#[derive(Debug, Clone)]
pub(crate) struct ProbeRun {
    /// Bytes of 4 KiB random writes and the virtual time they took.
    pub bytes: u64,
    pub elapsed_ns: Ns,
    pub latency: LatencyHistogram,
    /// Host bytes the whole probe wrote (the sequential write of its file included) and the
    /// NAND bytes it caused (GC copies included).
    pub host_bytes: u64,
    pub nand_bytes: u64,
}

impl Sim {
    /// A new device with an empty filesystem of the profile's kind; `discard` mounts it with
    /// online discard. Errors name a bad `[system]` table of the profile.
    pub fn new(profile: &Profile, seed: u64, discard: bool) -> Result<Sim, SimError> {
        let mut fs = FsConfig::from_profile(profile, &profile.name).map_err(SimError::Config)?;
        fs.discard |= discard;
        Ok(Sim { sys: SimSystem::with_fs(profile, seed, fs), ids: HashMap::new() })
    }

    pub fn now(&self) -> Ns {
        self.sys.now
    }

    /// Let virtual time pass up to `t` with no I/O (the device does its idle-time work).
    pub fn idle_until(&mut self, t: Ns) {
        let busy = self.sys.now.max(self.sys.dev.busy_until());
        if t > busy {
            self.sys.idle(t - busy);
        }
    }

    /// Create a file of `size` bytes (its blocks allocated, nothing written yet).
    pub fn create(&mut self, name: &str, size: u64) -> Result<(), SimError> {
        let id = self.sys.create(name, size)?;
        self.ids.insert(name.to_string(), id);
        Ok(())
    }

    /// Write or read [off, off+len) of a file at `now`; `now` moves to the completion.
    pub fn file_io(&mut self, name: &str, write: bool, off: u64, len: u64) -> Result<Completion, SimError> {
        let id = *self.ids.get(name).ok_or_else(|| SimError::NoFile(name.to_string()))?;
        let op = if write { Op::Write } else { Op::Read };
        let c = self.sys.io(self.sys.now, id, op, off, len)?;
        self.sys.now = self.sys.now.max(c.done);
        Ok(c)
    }

    /// fsync: commit what the filesystem holds and flush the device's write cache; returns how
    /// long it took.
    pub fn fsync(&mut self) -> Result<Ns, SimError> {
        let t = self.sys.now;
        self.sys.sync()?;
        Ok(self.sys.now - t)
    }

    /// Delete a file (trimmed at once when mounted with discard).
    pub fn delete(&mut self, name: &str) -> Result<(), SimError> {
        self.ids.remove(name);
        Ok(self.sys.delete(name)?)
    }

    /// fstrim: trim all free space; returns the bytes trimmed.
    pub fn fstrim(&mut self) -> Result<u64, SimError> {
        Ok(self.sys.fstrim()?)
    }

    pub fn fs_used(&self) -> u64 {
        self.sys.fs.capacity() - self.sys.fs.free_bytes()
    }
    pub fn fs_capacity(&self) -> u64 {
        self.sys.fs.capacity()
    }
    pub fn fs_free(&self) -> u64 {
        self.sys.fs.free_bytes()
    }
    pub fn logical_bytes(&self) -> u64 {
        self.sys.dev.logical_bytes()
    }
    pub fn counters(&self) -> Counters {
        self.sys.dev.counters()
    }
    pub fn state(&self) -> DeviceState {
        self.sys.dev.state()
    }
    pub fn profile(&self) -> &Profile {
        self.sys.dev.profile()
    }

    /// A block-level request straight to the device (trace replay), arriving at `t` (not before
    /// the previous one); `now` moves to the latest completion.
    pub fn block_io(&mut self, t: Ns, op: Op, off: u64, len: u64) -> Result<Completion, SimError> {
        let c = self.sys.dev.submit(t, &Request::new(op, off, len))?;
        self.sys.now = self.sys.now.max(c.done);
        Ok(c)
    }

    /// The random-write probe, on a copy of this system so that it neither wears the device nor
    /// moves its counters: a `span`-byte file written sequentially (512 KiB requests), then
    /// `bytes` of 4 KiB random writes at queue depth 1 inside it. When the filesystem is too
    /// full for the file, it is made smaller (half the free space); below 1 MiB it is an error.
    pub fn probe(&self, span: u64, bytes: u64, seed: u64) -> Result<ProbeRun, SimError> {
        const NAME: &str = "flashlab-life-probe.tmp";
        const BS: u64 = 4096;
        let span = span.min(self.fs_free() / 2 / BS * BS);
        if span < 1 << 20 {
            return Err(SimError::NoRoomForProbe { free: self.fs_free() });
        }
        let mut s = self.clone();
        let before = s.counters();
        s.create(NAME, span)?;
        let mut off = 0;
        while off < span {
            let l = (512 << 10).min(span - off);
            s.file_io(NAME, true, off, l)?;
            off += l;
        }
        let mut rng = Rng::new(seed);
        let mut latency = LatencyHistogram::new();
        let blocks = span / BS;
        let start = s.now();
        let mut done = 0;
        while done < bytes {
            let c = s.file_io(NAME, true, rng.below(blocks) * BS, BS)?;
            latency.record(c.latency());
            done += BS;
        }
        let elapsed_ns = s.now() - start;
        let d = s.counters().since(&before);
        Ok(ProbeRun {
            bytes,
            elapsed_ns,
            latency,
            host_bytes: d.host_write_bytes,
            nand_bytes: d.nand_units_programmed * flashsim::MAP_UNIT,
        })
    }
}
