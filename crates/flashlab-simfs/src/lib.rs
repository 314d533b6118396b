//! flashlab-simfs: the simulated filesystems that sit on a simulated flash device.
//!
//! [`Fs`] is a namespace of files over one of three models — [`FsKind::Plain`] (data extents
//! only), [`FsKind::Ext4`] (in-place data, metadata, a jbd2 journal; [`inplace`]) and
//! [`FsKind::F2fs`] (log-structured with cleaning; [`f2fs`]) — that turns file operations
//! (create, read, write, trim, fsync, delete, fstrim, idle) into block requests to a
//! [`flashsim::Device`] at a virtual time, counted by purpose in [`FsCounters`] and, on
//! request, traced ([`disk::Traced`]). [`FsConfig`] says which model and mount options,
//! read from `--fs` strings or a profile's `[system]` table. The models sit behind one trait
//! (`model.rs`): `Fs` never asks which one it drives.
//!
//! What it is not: it holds no clock and no device of its own (the caller passes both, as
//! `flashlab-lab`'s `SimSystem` does), runs no workloads, and knows nothing of real
//! filesystems beyond what the models copy from them. `docs/filesystems.md` says what each
//! model does and does not model; `docs/validate-fs.md` how the ext4 model is checked
//! against the kernel's.
//!
//! ```
//! use flashlab_simfs::{Fs, FsConfig};
//! use flashsim::{Device, Op, Profile};
//!
//! let profile = Profile::from_toml("toy.toml", flashsim::builtin::TOY).unwrap();
//! let mut dev = Device::new(&profile, 1);
//! let mut fs = Fs::new(dev.logical_bytes(), FsConfig::parse("ext4").unwrap());
//! let id = fs.create(&mut dev, 0, "a.dat", 1 << 20).unwrap();
//! let done = fs.io(&mut dev, 0, id, Op::Write, 0, 4096).unwrap().done;
//! let durable = fs.fsync(&mut dev, done, id).unwrap();
//! assert!(durable >= done && fs.counters().journal_bytes > 0);
//! ```

mod config;
mod counters;
pub mod disk;
mod error;
mod ext4_alloc;
pub mod ext4_layout;
pub mod extents;
pub mod f2fs;
pub mod f2fs_layout;
pub mod inplace;
mod journal;
mod model;
mod system_table;

pub use config::{FsConfig, FsKind};
pub use counters::FsCounters;
pub use disk::FsCpu;
pub use error::{ConfigError, FsError, InvariantError, LayoutError};
pub use extents::FS_BLOCK;

use disk::Disk;
use flashsim::{Completion, Device, Ns, Op};
use model::{AnyModel, FileIo, FsModel};
use std::collections::BTreeMap;

/// A file of the simulated filesystem: a small index, cheap to copy and look up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub(crate) u32);

/// A filesystem call's view of the device: the filesystem's counters, barrier setting, trace
/// and host CPU costs, no F2FS log and no earliest issue time (a macro, not a method, so the
/// call can borrow these fields and the model apart).
macro_rules! disk {
    ($fs:ident, $dev:expr) => {
        Disk {
            dev: $dev,
            meta: $fs.meta.as_mut(),
            split: $fs.split,
            c: &mut $fs.counters,
            nobarrier: $fs.cfg.nobarrier,
            trace: $fs.trace.as_mut(),
            log: None,
            not_before: 0,
            cpu: $fs.cpu,
        }
    };
}

impl FileId {
    /// Not a file: the raw device, offsets being device offsets (what `wsat` writes to).
    pub const RAW: FileId = FileId(u32::MAX);

    /// The id as a number (an index into the models' per-file tables).
    pub fn index(self) -> u32 {
        self.0
    }
}

/// The filesystem: names, the model, and its counters.
#[derive(Debug, Clone)]
pub struct Fs {
    cfg: FsConfig,
    names: BTreeMap<String, FileId>,
    /// Name of each file id (empty once deleted).
    id_names: Vec<String>,
    /// Ids of deleted files, reused by the next creates.
    free_ids: Vec<u32>,
    /// Boxed: the models are large, and a system holding the filesystem is moved around whole.
    model: Box<AnyModel>,
    counters: FsCounters,
    /// The host CPU of its calls ([`Fs::set_cpu`]).
    cpu: disk::FsCpu,
    trace: Option<Vec<disk::Traced>>,
    /// The second device of a filesystem over two (F2FS on a zoned device keeps its metadata
    /// on a conventional one, as zoned UFS puts it in another logical unit): it holds the
    /// filesystem's first `split` bytes. `None` and 0 on one device.
    meta: Option<Device>,
    split: u64,
    /// The periodic invariant check: its period in device commands (0: off) and the device
    /// command count at which the next one is due (`u64::MAX`: never).
    check_every: u64,
    next_check: u64,
}

impl Fs {
    /// Make a filesystem of `cfg.kind` over `capacity` bytes of device.
    ///
    /// # Panics
    /// With `cfg.make_ext4fs`, on a device too small for make_ext4fs's metadata and journal,
    /// where make_ext4fs fails ([`FsConfig::from_profile`] refuses such a profile).
    pub fn new(capacity: u64, cfg: FsConfig) -> Fs {
        let model = match cfg.kind {
            FsKind::Plain => AnyModel::InPlace(inplace::InPlace::new(capacity, &cfg, false)),
            FsKind::Ext4 => AnyModel::InPlace(inplace::InPlace::new(capacity, &cfg, true)),
            FsKind::F2fs => AnyModel::Log(f2fs::F2fs::new(capacity, &cfg)),
        };
        Fs::with_model(cfg, model)
    }

    /// The ext4 model over the blocks of a real image's `layout` (from
    /// [`ext4_layout::Layout::from_dumpe2fs`]), so it allocates where the kernel would on it.
    pub fn ext4_on(capacity: u64, mut cfg: FsConfig, layout: ext4_layout::Layout) -> Fs {
        cfg.kind = FsKind::Ext4;
        let model = AnyModel::InPlace(inplace::InPlace::with_layout(capacity, &cfg, Some(layout)));
        Fs::with_model(cfg, model)
    }

    /// The F2FS model over the areas of a real image (from
    /// [`f2fs_layout::F2fsLayout::from_image`]): the kernel's main area, reserve and
    /// overprovision, and the logs where mkfs.f2fs left them.
    pub fn f2fs_on(mut cfg: FsConfig, layout: &f2fs_layout::F2fsLayout) -> Fs {
        cfg.kind = FsKind::F2fs;
        let model = AnyModel::Log(f2fs::F2fs::with_layout(&cfg, layout));
        Fs::with_model(cfg, model)
    }

    /// F2FS on the zoned device `main`, its metadata on the conventional device `meta`, as
    /// `mkfs.f2fs -m -c` lays out a volume over a zoned device and a conventional one (zoned
    /// UFS puts conventional data in another logical unit): the metadata areas fill the first
    /// [`f2fs::zoned_meta_bytes`] bytes, on `meta`; the main area is `main`'s zones, one
    /// section per zone. F2FS on zones writes only in LFS mode (no in-place updates, no
    /// slack-space recycling) and frees a section by resetting its zone. An error when the
    /// zones cannot be F2FS's sections, or `meta` cannot hold the metadata.
    pub fn f2fs_zoned(main: &Device, meta: Device, mut cfg: FsConfig) -> Result<Fs, ConfigError> {
        let (geometry, need) = Fs::zoned_meta_bytes(main, &cfg)?;
        if meta.logical_bytes() < need {
            let bad = |why: String| ConfigError::Zoned { device: main.profile().name.clone(), why };
            return Err(bad(format!(
                "the metadata device holds {} bytes, the metadata needs {need}",
                meta.logical_bytes()
            )));
        }
        cfg.lfs_only = true;
        let model = AnyModel::Log(f2fs::F2fs::zoned(&geometry, &cfg));
        let mut fs = Fs::with_model(cfg, model);
        fs.meta = Some(meta);
        fs.split = need;
        Ok(fs)
    }

    /// The sections `cfg` would make of the zoned device `main` and the bytes its metadata
    /// needs on the conventional device beside it ([`Fs::f2fs_zoned`]); an error when `cfg`
    /// is not F2FS or the zones cannot be its sections.
    pub fn zoned_meta_bytes(main: &Device, cfg: &FsConfig) -> Result<(f2fs::ZonedGeometry, u64), ConfigError> {
        let bad = |why: String| ConfigError::Zoned { device: main.profile().name.clone(), why };
        if cfg.kind != FsKind::F2fs {
            return Err(bad(format!(
                "the {} model writes in place, which zones refuse; only F2FS writes zones (--fs f2fs)",
                cfg.kind
            )));
        }
        let zones = main.zones().ok_or_else(|| bad("not a zoned device".into()))?.layout();
        let geometry = f2fs::ZonedGeometry::of(zones).map_err(bad)?;
        Ok((geometry, f2fs::zoned_meta_bytes(&geometry)))
    }

    /// The conventional device holding the metadata of a filesystem over two devices
    /// ([`Fs::f2fs_zoned`]); `None` on one device.
    pub fn meta_device(&self) -> Option<&Device> {
        self.meta.as_ref()
    }

    /// A filesystem with no files yet, driving `model`.
    /// The periodic invariant check is on by default in a debug build (every test run), as the
    /// device's is ([`flashsim::check::debug_check_every`] of the filesystem's blocks), and off
    /// in a release build.
    fn with_model(cfg: FsConfig, model: AnyModel) -> Fs {
        let every =
            if cfg!(debug_assertions) { flashsim::check::debug_check_every(model.capacity() / FS_BLOCK) } else { 0 };
        Fs {
            cfg,
            names: BTreeMap::new(),
            id_names: Vec::new(),
            free_ids: Vec::new(),
            model: Box::new(model),
            counters: FsCounters::default(),
            cpu: disk::FsCpu::ZERO,
            trace: None,
            meta: None,
            split: 0,
            check_every: every,
            next_check: if every == 0 { u64::MAX } else { every },
        }
    }

    /// Check the model's invariants ([`Fs::check`]) whenever the device `dev` has run `every`
    /// more commands, after the file operation during which it did; `None` (or 0) turns the
    /// periodic check off. A failed check fails that operation with [`FsError::Invariant`].
    pub fn set_check_every(&mut self, dev: &Device, every: Option<u64>) {
        self.check_every = every.unwrap_or(0);
        self.next_check = if self.check_every == 0 { u64::MAX } else { dev.commands() + self.check_every };
    }

    /// [`Fs::check`] now, a failure said as [`FsError::Invariant`] with when it was found (the
    /// command count and virtual time of `dev`, the device under the filesystem).
    pub fn check_now(&self, dev: &Device) -> Result<(), FsError> {
        self.model.check().map_err(|what| FsError::Invariant {
            kind: self.cfg.kind,
            command: dev.commands(),
            at: dev.last_submit(),
            what,
        })
    }

    /// The result of a file operation, and the periodic check when it is due.
    #[inline]
    fn checked<T>(&mut self, dev: &Device, r: Result<T, FsError>) -> Result<T, FsError> {
        let v = r?;
        if dev.commands() >= self.next_check {
            self.next_check = dev.commands().saturating_add(self.check_every);
            self.check_now(dev)?;
        }
        Ok(v)
    }

    /// The model and mount options it was made with.
    pub fn config(&self) -> &FsConfig {
        &self.cfg
    }
    /// Mounted with online discard.
    pub fn discard(&self) -> bool {
        self.cfg.discard
    }
    /// Bytes a user could allocate on the empty filesystem.
    pub fn capacity(&self) -> u64 {
        self.model.capacity()
    }
    /// Bytes free for new data.
    pub fn free_bytes(&self) -> u64 {
        self.model.free_bytes()
    }
    /// Bytes in use: the capacity less what is free.
    pub fn used_bytes(&self) -> u64 {
        self.capacity().saturating_sub(self.free_bytes())
    }
    /// The id of the live file called `name`.
    pub fn file_id(&self, name: &str) -> Option<FileId> {
        self.names.get(name).copied()
    }
    /// The size of file `id`, if it is live.
    pub fn file_size(&self, id: FileId) -> Option<u64> {
        self.model.size(id.0)
    }
    /// Names of the live files, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }
    /// What the filesystem sent to the device so far, by purpose, with its write
    /// amplification.
    pub fn counters(&self) -> FsCounters {
        self.counters.with_waf()
    }
    /// The F2FS model, for tests and reports (None on the other models).
    pub fn f2fs(&self) -> Option<&f2fs::F2fs> {
        match self.model.as_ref() {
            AnyModel::Log(m) => Some(m),
            AnyModel::InPlace(_) => None,
        }
    }
    /// The in-place model (plain or ext4), for tests and reports.
    pub fn inplace(&self) -> Option<&inplace::InPlace> {
        match self.model.as_ref() {
            AnyModel::InPlace(m) => Some(m),
            AnyModel::Log(_) => None,
        }
    }

    /// Start (or stop, returning what was recorded) recording every request the filesystem
    /// sends. For tests and studies; off by default.
    pub fn set_trace(&mut self, on: bool) -> Vec<disk::Traced> {
        std::mem::replace(&mut self.trace, on.then(Vec::new)).unwrap_or_default()
    }

    /// Take what was recorded so far (tracing stays on).
    pub fn take_trace(&mut self) -> Vec<disk::Traced> {
        self.trace.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Create file `name` at `t` and allocate `size` bytes to it (fallocate: nothing is
    /// written); ids of deleted files are reused.
    pub fn create(&mut self, dev: &mut Device, t: Ns, name: &str, size: u64) -> Result<FileId, FsError> {
        if self.names.contains_key(name) {
            return Err(FsError::Exists(name.to_string()));
        }
        // Ids of deleted files are reused, so the per-file tables of the models stay as large as
        // the most files alive at once (life creates and deletes files for simulated years).
        let id = self.free_ids.pop().unwrap_or(self.id_names.len() as u32);
        let mut d = disk!(self, dev);
        let r = self.model.create(&mut d, t, id, name, size);
        match r {
            Ok(()) => {
                if id as usize == self.id_names.len() {
                    self.id_names.push(name.to_string());
                } else {
                    self.id_names[id as usize] = name.to_string();
                }
                self.names.insert(name.to_string(), FileId(id));
                self.checked(dev, Ok(FileId(id)))
            }
            Err(e) => {
                if id as usize == self.id_names.len() {
                    self.id_names.push(String::new());
                }
                self.free_ids.push(id);
                Err(e)
            }
        }
    }

    /// Read, write or trim `len` bytes at `off` of file `id` at `t` (writes past the end
    /// extend the file); returns when the last device request completes.
    pub fn io(
        &mut self,
        dev: &mut Device,
        t: Ns,
        id: FileId,
        op: Op,
        off: u64,
        len: u64,
    ) -> Result<Completion, FsError> {
        if len == 0 {
            return Err(FsError::Empty);
        }
        let name = self.id_names.get(id.0 as usize).map_or("", String::as_str);
        let mut d = disk!(self, dev);
        if op == Op::Write {
            d.not_before = t + self.cpu.write_ns;
        }
        let r = self.model.io(&mut d, t, FileIo { id: id.0, name, op, off, len });
        self.checked(dev, r)
    }

    /// The host CPU its calls spend outside their device requests from now on (zero until
    /// set): a write's and an fsync's requests are issued that much later, and an ext4 commit's
    /// log blocks `commit_ns` after the commit starts.
    pub fn set_cpu(&mut self, cpu: disk::FsCpu) {
        self.cpu = cpu;
    }

    /// The host CPU of its calls ([`Fs::set_cpu`]).
    pub fn cpu(&self) -> disk::FsCpu {
        self.cpu
    }

    /// fsync file `id` at `t`; returns when it is durable.
    pub fn fsync(&mut self, dev: &mut Device, t: Ns, id: FileId) -> Result<Ns, FsError> {
        let mut d = disk!(self, dev);
        d.not_before = t + self.cpu.fsync_ns;
        let r = self.model.fsync(&mut d, t, id.0);
        self.checked(dev, r)
    }

    /// Delete file `name` at `t` (with discard its blocks are trimmed: at once on `plain`, at
    /// the next commit on ext4, at the next checkpoint on F2FS).
    pub fn delete(&mut self, dev: &mut Device, t: Ns, name: &str) -> Result<(), FsError> {
        let id = self.names.get(name).copied().ok_or_else(|| FsError::NotFound(name.to_string()))?;
        let mut d = disk!(self, dev);
        self.model.delete(&mut d, t, id.0)?;
        self.names.remove(name);
        // Free the name (not just clear it): life creates and deletes files for simulated
        // years, and a kept allocation per deleted file made memory grow with simulated time.
        self.id_names[id.0 as usize] = String::new();
        self.free_ids.push(id.0);
        self.checked(dev, Ok(()))
    }

    /// Take ext4's file timestamps from `clock` (the coarse clock a kernel measured while it
    /// ran the same operations, in ns) until `None`: see [`inplace::InPlace::set_file_clock`].
    /// No effect on the other models.
    pub fn set_file_clock(&mut self, clock: Option<Ns>) {
        self.model.set_file_clock(clock);
    }

    /// Someone read `name`'s timestamps (stat): on ext4 its next write takes a fine-grained
    /// time and dirties its inode (multigrain timestamps). Unknown names are ignored.
    pub fn stat(&mut self, name: &str) {
        if let Some(&id) = self.names.get(name) {
            self.model.stat(id.0);
        }
    }

    /// Someone read from `name` through the page cache: with `relatime` (the default) ext4
    /// updates its atime when the file changed since the last access, dirtying the inode.
    /// Unknown names are ignored.
    pub fn read_atime(&mut self, name: &str) {
        if let Some(&id) = self.names.get(name) {
            self.model.read_atime(id.0);
        }
    }

    /// The inode of `name` changed without a write (a chown or chmod: its ctime): the next
    /// fsync writes (ext4: commits) it.
    pub fn inode_changed(&mut self, name: &str) {
        if let Some(&id) = self.names.get(name) {
            self.model.inode_changed(id.0);
        }
    }

    /// Truncate `name` to 0 bytes, keeping the file. False (nothing done) on a model without
    /// truncation (F2FS): the caller deletes the file instead.
    pub fn truncate_to_zero(&mut self, dev: &mut Device, t: Ns, name: &str) -> Result<bool, FsError> {
        let id = self.names.get(name).copied().ok_or_else(|| FsError::NotFound(name.to_string()))?;
        let mut d = disk!(self, dev);
        let r = self.model.truncate_to_zero(&mut d, t, id.0);
        self.checked(dev, r)
    }

    /// No application I/O from `start` to `end`: the model commits, checkpoints and cleans
    /// what falls due.
    pub fn idle(&mut self, dev: &mut Device, start: Ns, end: Ns) -> Result<(), FsError> {
        let mut d = disk!(self, dev);
        let r = self.model.idle(&mut d, start, end);
        self.checked(dev, r)
    }

    /// Commit everything and flush the device cache at `t`; returns when done.
    pub fn sync(&mut self, dev: &mut Device, t: Ns) -> Result<Ns, FsError> {
        let mut d = disk!(self, dev);
        let r = self.model.sync(&mut d, t);
        self.checked(dev, r)
    }

    /// fsync of the directory holding the files at `t`; returns when it is durable. F2FS
    /// writes a checkpoint when anything changed since the last one (`CP_NON_REGULAR`); the
    /// ext4 model has nothing to add to what its file fsyncs committed.
    pub fn fsync_dir(&mut self, dev: &mut Device, t: Ns) -> Result<Ns, FsError> {
        let mut d = disk!(self, dev);
        let r = self.model.fsync_dir(&mut d, t);
        self.checked(dev, r)
    }

    /// fstrim at `t`: trim the free space; returns the bytes trimmed and when it is done.
    pub fn fstrim(&mut self, dev: &mut Device, t: Ns) -> Result<(u64, Ns), FsError> {
        let mut d = disk!(self, dev);
        let r = self.model.fstrim(&mut d, t);
        self.checked(dev, r)
    }

    /// The model's invariants (allocations tile the device; maps agree; accounting adds up).
    pub fn check(&self) -> Result<(), InvariantError> {
        self.model.check()
    }
}
