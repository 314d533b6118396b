//! A simulated system: a simulated device, the simulated filesystem on it (`flashlab-simfs`),
//! and the virtual clock. This is the one API every user of a simulated system drives —
//! the engine, the protocol steps, `life`, `sqlite`, `breakdown`, `validate`: create, open and
//! delete files by name, read, write and trim file ranges, fsync, fstrim, idle.
//!
//! Two kinds of call:
//!
//! * At a time the caller gives, the clock untouched: [`SimSystem::io`], [`SimSystem::io_with`],
//!   [`SimSystem::fsync`]. The engine keeps several requests in flight and moves the clock
//!   itself once they completed ([`SimSystem::advance_to`]).
//! * At the system's clock, moving it past their completion (one application at queue depth
//!   1): [`SimSystem::io_now`], [`SimSystem::write_together`], [`SimSystem::fsync_now`],
//!   [`SimSystem::fsync_dir`], [`SimSystem::sync`], [`SimSystem::create`],
//!   [`SimSystem::delete`], [`SimSystem::truncate_to_zero`], [`SimSystem::fstrim`],
//!   [`SimSystem::idle`], [`SimSystem::idle_until`], and [`SimSystem::block_io`] (a request
//!   straight to the device, arriving at its own time).
//!
//! The device, the filesystem and the clock are private: [`SimSystem::device`],
//! [`SimSystem::fs`] and [`SimSystem::now`] read them, and the few hooks that change them
//! other than through I/O say in their documentation who needs them and why.

use flashlab_simfs::disk::Traced;
use flashlab_simfs::{FileId, Fs, FsConfig, FsCounters, FsError};
use flashsim::{Completion, Device, Ns, Op, Profile, Request, RequestError};

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
    /// A filesystem that cannot be made on this device (a model other than F2FS on a zoned
    /// device, zones F2FS cannot use as sections).
    #[error("{0}")]
    Config(#[from] flashlab_simfs::ConfigError),
    /// A filesystem made for a larger device than the profile's ([`SimSystem::on_fs`]).
    #[error("a filesystem of {fs_bytes} bytes does not fit on a device of profile {profile} ({device_bytes} bytes)")]
    FsTooLarge {
        /// The profile's name.
        profile: String,
        /// The filesystem's capacity.
        fs_bytes: u64,
        /// The device's capacity.
        device_bytes: u64,
    },
}

impl From<SysError> for crate::Error {
    /// The simulated system's refusals, as the lab's one error type carries them.
    fn from(e: SysError) -> Self {
        crate::Error::Sys(Box::new(e))
    }
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

pub use flashlab_workload::device::DeviceReport;

/// What the caller tells the system about an I/O beyond the I/O itself ([`SimSystem::io_with`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoHints {
    /// A write's tag, which the device keeps with every 4 KiB unit the write covers and a
    /// later read can check (fio's `verify` on the simulated device, [`crate::sim_verify`]);
    /// 0: none. Reads and trims ignore it.
    pub write_tag: u64,
    /// A write's placement ID (FDP) or stream ID (streams), sent with the request
    /// ([`flashsim::Request::stream`]); 0: the default. Only on the device itself
    /// ([`FileId::RAW`]).
    pub placement: u32,
}

impl IoHints {
    /// No hints: what [`SimSystem::io`] passes.
    pub const NONE: IoHints = IoHints { write_tag: 0, placement: 0 };
}

/// A file of the system, by id or by name, for the calls at the system's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRef<'a> {
    /// The file (or [`FileId::RAW`], the device itself).
    Id(FileId),
    /// The file of that name.
    Name(&'a str),
}

impl From<FileId> for FileRef<'_> {
    fn from(id: FileId) -> Self {
        FileRef::Id(id)
    }
}

impl<'a> From<&'a str> for FileRef<'a> {
    fn from(name: &'a str) -> Self {
        FileRef::Name(name)
    }
}

impl<'a> From<&'a String> for FileRef<'a> {
    fn from(name: &'a String) -> Self {
        FileRef::Name(name)
    }
}

/// A simulated device with a simulated filesystem on it, at a virtual time.
#[derive(Debug, Clone)]
pub struct SimSystem {
    dev: Device,
    fs: Fs,
    /// The virtual clock: when the next operation may start.
    now: Ns,
}

/// The host CPU of filesystem calls on `profile`'s system (`[system] cpu_scale`; none without
/// it). A bad value was refused when the profile's stack was read ([`crate::stack::Stack`]), so
/// it counts as none here.
fn host_cpu(profile: &Profile) -> flashlab_simfs::FsCpu {
    flashlab_simfs::FsCpu::from_profile(profile, &profile.name).unwrap_or(flashlab_simfs::FsCpu::ZERO)
}

/// A new device of `profile` in its system: the device, with the host CPU's exit from idle
/// that the profile's `[system] idle_exit_us` gives (none without it). A bad value was refused
/// when the profile's stack was read ([`crate::stack::Stack`]), so it counts as none here.
pub fn new_device(profile: &Profile, seed: u64) -> Device {
    let mut dev = Device::new(profile, seed);
    let idle_exit = crate::stack::Stack::from_profile(profile, &profile.name).map_or(0, |s| s.idle_exit_ns);
    dev.set_idle_exit(idle_exit);
    dev
}

/// The filesystem `cfg` made on the new device `dev`. F2FS on a zoned device keeps its
/// metadata on the conventional unit beside the zones ([`Profile::conventional_unit`], a
/// device of its own, seeded from `seed`), as zoned UFS does in another logical unit
/// ([`Fs::f2fs_zoned`]). Any other model on a zoned device is made as on a conventional one:
/// the `plain` model writes nothing until asked (fio's zoned mode drives the device itself),
/// and a write in place gets the zone's error ([`crate::precondition::refuse_zoned`] refuses
/// such runs up front).
fn make_fs(dev: &Device, seed: u64, cfg: FsConfig) -> Result<Fs, SysError> {
    let mut fs = if dev.is_zoned() && cfg.kind == flashlab_simfs::FsKind::F2fs {
        let (_, bytes) = Fs::zoned_meta_bytes(dev, &cfg)?;
        let unit = dev.profile().conventional_unit(bytes).map_err(|e| SysError::Job(e.to_string()))?;
        Fs::f2fs_zoned(dev, new_device(&unit, seed.wrapping_add(1)), cfg)?
    } else {
        Fs::new(dev.logical_bytes(), cfg)
    };
    fs.set_cpu(host_cpu(dev.profile()));
    Ok(fs)
}

impl SimSystem {
    /// The `plain` filesystem model (data extents only), with or without online discard.
    pub fn new(profile: &Profile, seed: u64, discard: bool) -> SimSystem {
        SimSystem::with_fs(profile, seed, FsConfig::plain(discard))
    }

    /// A new device of `profile` with a fresh filesystem of `cfg` on it.
    ///
    /// # Panics
    /// On a zoned profile whose zones F2FS cannot use ([`SimSystem::try_with_fs`] says why).
    pub fn with_fs(profile: &Profile, seed: u64, cfg: FsConfig) -> SimSystem {
        SimSystem::try_with_fs(profile, seed, cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`SimSystem::with_fs`], an error when the filesystem cannot be made on the device (F2FS
    /// on zones it cannot use as sections).
    pub fn try_with_fs(profile: &Profile, seed: u64, cfg: FsConfig) -> Result<SimSystem, SysError> {
        let dev = new_device(profile, seed);
        let fs = make_fs(&dev, seed, cfg)?;
        Ok(SimSystem { dev, fs, now: 0 })
    }

    /// A new device of `profile` with a filesystem made elsewhere on it (a model over a real
    /// image's layout: [`Fs::ext4_on`], [`Fs::f2fs_on`]). An error when the filesystem is
    /// larger than the device; a layout that addresses blocks past the device's end gets the
    /// device's error at the first such request.
    pub fn on_fs(profile: &Profile, seed: u64, mut fs: Fs) -> Result<SimSystem, SysError> {
        let dev = new_device(profile, seed);
        fs.set_cpu(host_cpu(profile));
        if fs.capacity() > dev.logical_bytes() {
            return Err(SysError::FsTooLarge {
                profile: profile.name.clone(),
                fs_bytes: fs.capacity(),
                device_bytes: dev.logical_bytes(),
            });
        }
        Ok(SimSystem { dev, fs, now: 0 })
    }

    /// A device with a history (preconditioned, [`crate::precondition`]) and a new filesystem
    /// of `cfg` on it, at `now`.
    pub(crate) fn on_device(dev: Device, seed: u64, cfg: FsConfig, now: Ns) -> Result<SimSystem, SysError> {
        let fs = make_fs(&dev, seed, cfg)?;
        Ok(SimSystem { dev, fs, now })
    }

    /// The device (counters, state, profile, host interface, content tags).
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// NAND units (4 KiB) programmed so far on every device of the system: the device, and the
    /// conventional unit holding the metadata of F2FS on a zoned device ([`Fs::meta_device`]).
    pub fn nand_units_programmed(&self) -> u64 {
        let meta = self.fs.meta_device().map_or(0, |m| m.counters().nand_units_programmed);
        self.dev.counters().nand_units_programmed + meta
    }

    /// The filesystem (free space, names, configuration, the model's own state).
    pub fn fs(&self) -> &Fs {
        &self.fs
    }

    /// The virtual clock: when the next operation at the system's clock starts.
    pub fn now(&self) -> Ns {
        self.now
    }

    /// When the system is next quiet: the later of the clock and the end of the device's
    /// booked work.
    pub fn free_at(&self) -> Ns {
        self.now.max(self.dev.busy_until())
    }

    /// Move the clock to `t` if that is later (never back). For callers that issue requests at
    /// times of their own ([`SimSystem::io`]: the engine's requests in flight) and then let the
    /// system's clock catch up with the last completion.
    pub fn advance_to(&mut self, t: Ns) {
        self.now = self.now.max(t);
    }

    /// Create (and allocate, like fallocate) a file of `size` bytes at the clock; nothing is
    /// written.
    pub fn create(&mut self, name: &str, size: u64) -> Result<FileId, SysError> {
        Ok(self.fs.create(&mut self.dev, self.now, name, size)?)
    }

    /// The file named `name`, if it exists.
    pub fn file_id(&self, name: &str) -> Option<FileId> {
        self.fs.file_id(name)
    }

    /// The file named `name`, or an error naming it.
    pub fn open(&self, name: &str) -> Result<FileId, SysError> {
        self.fs.file_id(name).ok_or_else(|| SysError::Fs(FsError::NotFound(name.to_string())))
    }

    /// The size of file `id`, if it exists.
    pub fn file_size(&self, id: FileId) -> Option<u64> {
        self.fs.file_size(id)
    }

    fn resolve(&self, file: FileRef<'_>) -> Result<FileId, SysError> {
        match file {
            FileRef::Id(id) => Ok(id),
            FileRef::Name(name) => self.open(name),
        }
    }

    /// Read, write or trim [off, off+len) of a file at virtual time `t` (writes past the end
    /// extend the file); returns when the last device request completes. [`FileId::RAW`]
    /// addresses the device directly. The clock does not move.
    #[inline]
    pub fn io(&mut self, t: Ns, id: FileId, op: Op, off: u64, len: u64) -> Result<Completion, SysError> {
        if id == FileId::RAW {
            return Ok(self.dev.submit(t, &Request::new(op, off, len))?);
        }
        Ok(self.fs.io(&mut self.dev, t, id, op, off, len)?)
    }

    /// [`SimSystem::io`] with `hints`: a write carries `hints.write_tag` to the device.
    pub fn io_with(
        &mut self,
        t: Ns,
        id: FileId,
        op: Op,
        off: u64,
        len: u64,
        hints: IoHints,
    ) -> Result<Completion, SysError> {
        if hints.placement != 0 {
            if id != FileId::RAW {
                return Err(SysError::Job("a placement ID goes with a request to the device itself".into()));
            }
            let r = Request { stream: hints.placement, tag: hints.write_tag, ..Request::new(op, off, len) };
            return Ok(self.dev.submit(t, &r)?);
        }
        if hints.write_tag == 0 {
            return self.io(t, id, op, off, len);
        }
        self.dev.set_write_tag(hints.write_tag);
        let c = self.io(t, id, op, off, len);
        self.dev.set_write_tag(0);
        c
    }

    /// A zone command of fio's zoned mode to the device at virtual time `t` (a zone reset or
    /// finish); returns when it completes. The clock does not move. A conventional device
    /// refuses it (`ZoneError::NotZoned`).
    pub fn zone_command(&mut self, t: Ns, cmd: flashlab_workload::zbd::ZoneCmd) -> Result<Completion, SysError> {
        use flashlab_workload::zbd::ZoneCmd;
        Ok(match cmd {
            ZoneCmd::Reset(z) => self.dev.zone_reset(t, z)?,
            ZoneCmd::Finish(z) => self.dev.zone_finish(t, z)?,
        })
    }

    /// Tell the device that a request at device offset `offset` of the raw device
    /// ([`FileId::RAW`]) comes soon, so that it fetches the offset's mapping meanwhile (the
    /// engine's random jobs on the raw device draw their offsets ahead).
    #[inline]
    pub fn prefetch(&mut self, offset: u64) {
        self.dev.prefetch(offset);
    }

    /// fsync a file at `t`; returns when it is durable. The clock does not move.
    pub fn fsync(&mut self, t: Ns, id: FileId) -> Result<Ns, SysError> {
        if id == FileId::RAW {
            return Ok(self.dev.submit(t, &Request::new(Op::Flush, 0, 0))?.done);
        }
        Ok(self.fs.fsync(&mut self.dev, t, id)?)
    }

    /// Read, write or trim [off, off+len) of `file` at the clock; the clock moves to the
    /// completion.
    pub fn io_now<'a>(
        &mut self,
        file: impl Into<FileRef<'a>>,
        op: Op,
        off: u64,
        len: u64,
    ) -> Result<Completion, SysError> {
        let id = self.resolve(file.into())?;
        let c = self.io(self.now, id, op, off, len)?;
        self.advance_to(c.done);
        Ok(c)
    }

    /// Write the ranges `runs` (offset, length) of `file`, all submitted together at the clock
    /// (as the page cache's writeback queues them); the clock moves to the last completion,
    /// which is returned.
    pub fn write_together<'a>(&mut self, file: impl Into<FileRef<'a>>, runs: &[(u64, u64)]) -> Result<Ns, SysError> {
        let id = self.resolve(file.into())?;
        let t = self.now;
        let mut done = t;
        for &(off, len) in runs {
            done = done.max(self.io(t, id, Op::Write, off, len)?.done);
        }
        self.advance_to(done);
        Ok(done)
    }

    /// fsync `file` at the clock; the clock moves to when it is durable, which is returned.
    pub fn fsync_now<'a>(&mut self, file: impl Into<FileRef<'a>>) -> Result<Ns, SysError> {
        let id = self.resolve(file.into())?;
        let done = self.fsync(self.now, id)?;
        self.advance_to(done);
        Ok(done)
    }

    /// fsync of the directory holding the files ([`Fs::fsync_dir`]) at the clock; the clock
    /// moves to when it is durable, which is returned.
    pub fn fsync_dir(&mut self) -> Result<Ns, SysError> {
        let done = self.fs.fsync_dir(&mut self.dev, self.now)?;
        self.advance_to(done);
        Ok(done)
    }

    /// Commit everything the filesystem holds and flush the device cache; the clock advances.
    pub fn sync(&mut self) -> Result<(), SysError> {
        let done = self.fs.sync(&mut self.dev, self.now)?;
        self.advance_to(done);
        Ok(())
    }

    /// A request straight to the device (a block trace's), arriving at `t` (which may be
    /// before the clock: the device queues it behind its earlier work); the clock moves to
    /// its completion if that is later.
    pub fn block_io(&mut self, t: Ns, op: Op, off: u64, len: u64) -> Result<Completion, SysError> {
        let c = self.dev.submit(t, &Request::new(op, off, len))?;
        self.advance_to(c.done);
        Ok(c)
    }

    /// Delete a file (with online discard its blocks are trimmed: at once on `plain`, at the
    /// next commit on ext4, at the next checkpoint on F2FS).
    pub fn delete(&mut self, name: &str) -> Result<(), SysError> {
        self.fs.delete(&mut self.dev, self.now, name)?;
        self.now = self.free_at();
        Ok(())
    }

    /// Truncate a file to 0 bytes (false when the filesystem model cannot: delete it then).
    pub fn truncate_to_zero(&mut self, name: &str) -> Result<bool, SysError> {
        let done = self.fs.truncate_to_zero(&mut self.dev, self.now, name)?;
        self.now = self.free_at();
        Ok(done)
    }

    /// fstrim: trim the filesystem's free space; returns the bytes trimmed.
    pub fn fstrim(&mut self) -> Result<u64, SysError> {
        let (bytes, done) = self.fs.fstrim(&mut self.dev, self.now)?;
        self.advance_to(done);
        Ok(bytes)
    }

    /// Let `dur` of virtual time pass with no application I/O, from when the system is next
    /// quiet ([`SimSystem::free_at`]): the filesystem commits, checkpoints and cleans what
    /// falls due, the device collects garbage.
    pub fn idle(&mut self, dur: Ns) {
        let start = self.free_at();
        let end = start.saturating_add(dur);
        // Background work that fails (a full device) is not the caller's error: it stops.
        let _ = self.fs.idle(&mut self.dev, start, end);
        self.now = end.max(self.dev.busy_until());
        self.dev.idle_until(self.now);
    }

    /// Idle until virtual time `t` if the system is quiet before it ([`SimSystem::idle`]);
    /// nothing otherwise.
    pub fn idle_until(&mut self, t: Ns) {
        let quiet = self.free_at();
        if t > quiet {
            self.idle(t - quiet);
        }
    }

    /// Someone read the file's timestamps (fstat): a hook with no I/O, for SQLite's replay,
    /// where the ext4 model's timestamps depend on it.
    pub fn stat(&mut self, name: &str) {
        self.fs.stat(name);
    }

    /// Someone read the file (its atime, as `relatime` updates it): a hook with no I/O, for
    /// SQLite's replay.
    pub fn read_atime(&mut self, name: &str) {
        self.fs.read_atime(name);
    }

    /// The file's inode changed without a write (a chown: its ctime): a hook with no I/O, for
    /// SQLite's replay.
    pub fn inode_changed(&mut self, name: &str) {
        self.fs.inode_changed(name);
    }

    /// Start (`true`) or stop recording the filesystem's device requests; stopping returns
    /// what was recorded. For the validation against the kernel, which compares the requests
    /// request by request, and for tests of the filesystem models.
    pub fn set_trace(&mut self, on: bool) -> Vec<Traced> {
        self.fs.set_trace(on)
    }

    /// Take what was recorded so far; recording stays on ([`SimSystem::set_trace`]).
    pub fn take_trace(&mut self) -> Vec<Traced> {
        self.fs.take_trace()
    }

    /// The time file timestamps are taken from (`None`: the device's time). For the
    /// validation against the kernel, whose coarse clock decides when a write dirties an inode.
    pub fn set_file_clock(&mut self, clock: Option<Ns>) {
        self.fs.set_file_clock(clock);
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
            fdp: self.dev.fdp_stats(),
        }
    }

    /// Fault injection, for the tests of `verify` ([`crate::sim_verify`]): a buggy FTL whose
    /// mapping entries of logical units `a` and `b` are swapped (flashsim's
    /// `fault_swap_mapping`, a test-only feature).
    #[cfg(test)]
    pub(crate) fn fault_swap_mapping(&mut self, a: u32, b: u32) -> bool {
        self.dev.fault_swap_mapping(a, b)
    }

    /// Zero the device's counters: the preconditioning's history is not the run's
    /// ([`crate::precondition`]).
    pub(crate) fn reset_counters(&mut self) {
        self.dev.reset_counters();
    }

    /// Make the device keep write tags with its data ([`crate::sim_verify`]).
    pub(crate) fn track_content(&mut self) {
        self.dev.track_content();
    }

    /// The slowest command since the last call, ns (the protocol's busy-time ceiling check).
    pub(crate) fn take_slowest_command(&mut self) -> Ns {
        self.dev.take_slowest_command()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy() -> Profile {
        Profile::from_toml("toy", crate::profiles::builtin("toy").unwrap()).unwrap()
    }

    #[test]
    fn by_name_calls_move_the_clock() {
        let mut s = SimSystem::new(&toy(), 1, false);
        s.create("a", 1 << 20).unwrap();
        let c = s.io_now("a", Op::Write, 0, 4096).unwrap();
        assert_eq!(s.now(), c.done);
        let done = s.write_together("a", &[(8192, 4096), (65536, 8192)]).unwrap();
        assert_eq!(s.now(), done);
        assert!(s.fsync_now("a").unwrap() >= done);
        assert!(matches!(s.io_now("b", Op::Read, 0, 4096), Err(SysError::Fs(FsError::NotFound(n))) if n == "b"));
        assert!(matches!(s.open("b"), Err(SysError::Fs(FsError::NotFound(_)))));
        let before = s.now();
        s.advance_to(0);
        assert_eq!(s.now(), before, "the clock never goes back");
    }

    #[test]
    fn a_filesystem_too_large_for_the_device_is_an_error() {
        let p = toy();
        let fs = Fs::new(p.logical_bytes() * 2, FsConfig::plain(false));
        let e = SimSystem::on_fs(&p, 1, fs).unwrap_err().to_string();
        assert!(e.contains("profile toy"), "{e}");
    }

    #[test]
    fn a_write_tag_is_kept_with_the_data_and_cleared_after() {
        let mut s = SimSystem::new(&toy(), 1, false);
        s.track_content();
        s.io_with(0, FileId::RAW, Op::Write, 0, 4096, IoHints { write_tag: 7, placement: 0 }).unwrap();
        s.io(0, FileId::RAW, Op::Write, 4096, 4096).unwrap();
        assert_eq!(s.device().peek(0), Some(7));
        assert_ne!(s.device().peek(1), Some(7));
    }
}
