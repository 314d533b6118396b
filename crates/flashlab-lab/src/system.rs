//! A simulated system: a simulated device, the simulated filesystem on it (`flashlab-simfs`),
//! and the virtual clock. This is the API workloads drive: create files, read, write and trim
//! file ranges at a virtual time, fsync, delete, fstrim, idle.
//!
//! `io` and `fsync` take the time the request is issued and do not move [`SimSystem::now`]
//! (the engine keeps several requests in flight); the other operations run at `now` and move
//! it past their completion.

use flashlab_simfs::{FileId, Fs, FsConfig, FsCounters, FsError};
use flashsim::{Completion, Device, Ns, Op, Profile, Request, RequestError};
use serde::Serialize;

/// Why the simulated system refused a request: its filesystem, its device, or a job that
/// cannot run on it.
#[derive(Debug, thiserror::Error)]
pub enum SysError {
    /// The simulated filesystem (no space, no such file, ...).
    #[error("{0}")]
    Fs(FsError),
    /// The simulated device (a request out of range, ...).
    #[error("device: {0}")]
    Device(#[from] RequestError),
    /// A job that cannot run on this system (e.g. `zoned_abs` zones past its file's end).
    #[error("{0}")]
    Job(String),
}

impl From<FsError> for SysError {
    /// The device's refusals stay [`SysError::Device`] whether the filesystem or the caller
    /// sent the request.
    fn from(e: FsError) -> Self {
        match e {
            FsError::Device(e) => SysError::Device(e),
            e => SysError::Fs(e),
        }
    }
}

/// What the device reports about itself, for results files and tables.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceReport {
    /// The profile's name.
    pub(crate) profile: String,
    /// NAND writes per host write since the device was new.
    pub write_amplification: f64,
    /// The device's counters.
    pub counters: flashsim::Counters,
    /// The device's state (free blocks, wear).
    pub state: flashsim::DeviceState,
}

/// A simulated device with a simulated filesystem on it, at a virtual time.
#[derive(Debug, Clone)]
pub struct SimSystem {
    /// The device.
    pub dev: Device,
    /// The filesystem.
    pub fs: Fs,
    /// The virtual clock: when the next operation may start.
    pub now: Ns,
}

impl SimSystem {
    /// The `plain` filesystem model (data extents only), with or without online discard.
    pub fn new(profile: &Profile, seed: u64, discard: bool) -> SimSystem {
        SimSystem::with_fs(profile, seed, FsConfig::plain(discard))
    }

    /// A new device of `profile` with a fresh filesystem of `cfg` on it.
    pub fn with_fs(profile: &Profile, seed: u64, cfg: FsConfig) -> SimSystem {
        let dev = Device::new(profile, seed);
        let fs = Fs::new(dev.logical_bytes(), cfg);
        SimSystem { dev, fs, now: 0 }
    }

    /// Create (and allocate, like fallocate) a file of `size` bytes; nothing is written.
    pub fn create(&mut self, name: &str, size: u64) -> Result<FileId, SysError> {
        Ok(self.fs.create(&mut self.dev, self.now, name, size)?)
    }

    /// The file named `name`, if it exists.
    pub fn file_id(&self, name: &str) -> Option<FileId> {
        self.fs.file_id(name)
    }

    /// The size of file `id`, if it exists.
    pub fn file_size(&self, id: FileId) -> Option<u64> {
        self.fs.file_size(id)
    }

    /// Read, write or trim [off, off+len) of a file at virtual time `t` (writes past the end
    /// extend the file); returns when the last device request completes. [`FileId::RAW`]
    /// addresses the device directly.
    pub fn io(&mut self, t: Ns, id: FileId, op: Op, off: u64, len: u64) -> Result<Completion, SysError> {
        if id == FileId::RAW {
            return Ok(self.dev.submit(t, &Request::new(op, off, len))?);
        }
        Ok(self.fs.io(&mut self.dev, t, id, op, off, len)?)
    }

    /// fsync a file at `t`; returns when it is durable.
    pub fn fsync(&mut self, t: Ns, id: FileId) -> Result<Ns, SysError> {
        if id == FileId::RAW {
            return Ok(self.dev.submit(t, &Request::new(Op::Flush, 0, 0))?.done);
        }
        Ok(self.fs.fsync(&mut self.dev, t, id)?)
    }

    /// Commit everything the filesystem holds and flush the device cache; the clock advances.
    pub fn sync(&mut self) -> Result<(), SysError> {
        self.now = self.now.max(self.fs.sync(&mut self.dev, self.now)?);
        Ok(())
    }

    /// Delete a file (with online discard its blocks are trimmed: at once on `plain`, at the
    /// next commit on ext4, at the next checkpoint on F2FS).
    pub fn delete(&mut self, name: &str) -> Result<(), SysError> {
        self.fs.delete(&mut self.dev, self.now, name)?;
        self.now = self.now.max(self.dev.busy_until());
        Ok(())
    }

    /// Truncate a file to 0 bytes (false when the filesystem model cannot: delete it then).
    pub fn truncate_to_zero(&mut self, name: &str) -> Result<bool, SysError> {
        let done = self.fs.truncate_to_zero(&mut self.dev, self.now, name)?;
        self.now = self.now.max(self.dev.busy_until());
        Ok(done)
    }

    /// fstrim: trim the filesystem's free space; returns the bytes trimmed.
    pub fn fstrim(&mut self) -> Result<u64, SysError> {
        let (bytes, done) = self.fs.fstrim(&mut self.dev, self.now)?;
        self.now = self.now.max(done);
        Ok(bytes)
    }

    /// Let `dur` of virtual time pass with no application I/O: the filesystem commits,
    /// checkpoints and cleans what falls due, the device collects garbage.
    pub fn idle(&mut self, dur: Ns) {
        let start = self.now.max(self.dev.busy_until());
        let end = start + dur;
        // Background work that fails (a full device) is not the caller's error: it stops.
        let _ = self.fs.idle(&mut self.dev, start, end);
        self.now = end.max(self.dev.busy_until());
        self.dev.idle_until(self.now);
    }

    /// Check the device's and the filesystem model's invariants now; the error names what
    /// broke and when (device command count, virtual time).
    pub fn check_invariants(&self) -> Result<(), SysError> {
        self.dev.check_now().map_err(|v| SysError::Device(RequestError::Invariant(Box::new(v))))?;
        Ok(self.fs.check_now(&self.dev)?)
    }

    /// Check the device's and the filesystem model's invariants every `every` device commands
    /// from now on (the device after the command, the filesystem after the operation that
    /// sent it); `None` turns the periodic checks off. A failed check fails the request.
    pub fn set_check_every(&mut self, every: Option<u64>) {
        self.dev.set_check_every(every);
        self.fs.set_check_every(&self.dev, every);
    }

    /// The filesystem's counters (metadata and journal writes, ...).
    pub fn fs_counters(&self) -> FsCounters {
        self.fs.counters()
    }

    /// The device's write amplification, counters and state.
    pub fn device_report(&self) -> DeviceReport {
        let counters = self.dev.counters();
        DeviceReport {
            profile: self.dev.profile().name.clone(),
            write_amplification: counters.write_amplification(),
            counters,
            state: self.dev.state(),
        }
    }
}
