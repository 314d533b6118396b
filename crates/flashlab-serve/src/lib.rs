//! flashlab serve: a simulated flash device (flashsim) exposed to Linux as a file in a FUSE
//! mount, optionally with a loop block device over it, so real filesystems, fio and
//! applications run on it. Every request is answered at the time the model says it completes.
//!
//! Layout: `clock` (real ↔ virtual time) · `store` (the data) · `powercut` (what
//! survives a power loss) · `device` (the one owner of simulator and data) · `stats`
//! (live statistics, final report) · `fs` (the FUSE filesystem) · [`loopdev`] (loop device
//! attach/detach) · [`teardown`] (signals and the ordered shutdown) · this file (start/stop).

pub(crate) mod clock;
pub(crate) mod device;
mod error;
pub(crate) mod fs;
pub mod loopdev;
pub mod mounts;
pub(crate) mod powercut;
pub(crate) mod stats;
pub(crate) mod store;
pub mod teardown;

use clock::SimClock;
use device::ServedDevice;
use flashlab_lab::precondition::Precondition;
use flashsim::Profile;
use fuser::{BackgroundSession, Config, MountOption, Session, SessionACL};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use error::{LoopError, StoreError};
pub use stats::Snapshot;

/// Why a device could not be served, attached or torn down.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// An option or the mount directory is not usable (the message names it).
    #[error("{0}")]
    Options(String),
    /// The backing file could not be created.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The FUSE mount failed.
    #[error("mounting FUSE at {}: {source}", dir.display())]
    Mount {
        /// The mount directory.
        dir: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The loop device could not be attached or detached.
    #[error(transparent)]
    Loop(#[from] LoopError),
    /// The simulated device could not be brought into its starting state.
    #[error("the simulated device: {0}")]
    Device(#[from] flashlab_lab::Error),
    /// The loop device is still held (mounted, a device-mapper holder, an exclusive opener).
    #[error("{dev} is still in use ({})", holders.join(", "))]
    Busy {
        /// The loop device, e.g. `/dev/loop3`.
        dev: String,
        /// What holds it.
        holders: Vec<String>,
    },
}

/// What to serve and how.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The simulated device's profile.
    pub profile: Profile,
    /// Bytes exposed; at most (and by default) the device's logical capacity.
    pub size: Option<u64>,
    /// Simulated seconds per real second.
    pub time_scale: f64,
    /// Keep the data in this file (created by flashlab) instead of memory.
    pub backing: Option<PathBuf>,
    /// Replace an existing `backing` file instead of refusing it.
    pub overwrite_backing: bool,
    /// Unflushed writes within the write buffer are lost on a power cut.
    pub volatile_cache: bool,
    /// Set up a loop block device over the file.
    pub attach: bool,
    /// Skip host gaps shorter than this from the device's clock (`--skip-host-gaps`; see
    /// `ServedDevice::skip_host_gaps`).
    pub skip_host_gaps: Option<std::time::Duration>,
    /// Seed of the simulator's random choices.
    pub seed: u64,
    /// FUSE worker threads (each can hold one request until its modeled completion).
    pub threads: usize,
    /// The (empty) directory to mount on.
    pub dir: PathBuf,
}

impl ServeOptions {
    /// Defaults for `profile` mounted on `dir`: whole capacity in memory, real time (scale 1),
    /// no volatile cache, no loop device, seed 1, `fs::MAX_BACKGROUND` (64) threads.
    pub fn new(profile: Profile, dir: PathBuf) -> ServeOptions {
        ServeOptions {
            profile,
            size: None,
            time_scale: 1.0,
            backing: None,
            overwrite_backing: false,
            volatile_cache: false,
            attach: false,
            skip_host_gaps: None,
            seed: 1,
            threads: fs::MAX_BACKGROUND as usize,
            dir,
        }
    }
}

/// Where server messages go (the CLI prints them on stderr; tests may collect them).
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// A running server: the FUSE mount and, with `attach`, the loop device.
pub struct Server {
    dev: Arc<ServedDevice>,
    session: Option<BackgroundSession>,
    loopdev: Option<String>,
    dir: PathBuf,
}

fn check_dir(dir: &Path) -> Result<(), ServeError> {
    let md =
        std::fs::metadata(dir).map_err(|e| ServeError::Options(format!("mount directory {}: {e}", dir.display())))?;
    if !md.is_dir() {
        return Err(ServeError::Options(format!("mount directory {}: not a directory", dir.display())));
    }
    let mut rd =
        std::fs::read_dir(dir).map_err(|e| ServeError::Options(format!("mount directory {}: {e}", dir.display())))?;
    if rd.next().is_some() {
        return Err(ServeError::Options(format!(
            "mount directory {}: not empty (flashlab mounts only on an empty directory)",
            dir.display()
        )));
    }
    Ok(())
}

/// Smallest `--time-scale` (simulated seconds per real second).
pub const MIN_TIME_SCALE: f64 = 1e-3;
/// Largest `--time-scale` (simulated seconds per real second).
pub const MAX_TIME_SCALE: f64 = 1e6;
/// Most FUSE worker threads (`--threads`).
pub const MAX_THREADS: usize = 1024;

impl Server {
    /// Mount the served device at `opts.dir` (and attach the loop device if asked).
    pub fn start(opts: &ServeOptions, log: Log) -> Result<Server, ServeError> {
        // 1e-300 would make every answer wait for ever (and overflow the clock's arithmetic).
        if !(opts.time_scale >= MIN_TIME_SCALE && opts.time_scale <= MAX_TIME_SCALE) {
            return Err(ServeError::Options(format!(
                "--time-scale {}: must be between {MIN_TIME_SCALE} and {MAX_TIME_SCALE}",
                opts.time_scale
            )));
        }
        if opts.threads == 0 || opts.threads > MAX_THREADS {
            return Err(ServeError::Options(format!("--threads {}: must be 1..={MAX_THREADS}", opts.threads)));
        }
        check_dir(&opts.dir)?;
        // The absolute path: mountinfo lists mount points absolute, and the teardown finds the
        // mount there (a relative DIR used to leave it mounted and the server hanging).
        let dir = std::fs::canonicalize(&opts.dir)
            .map_err(|e| ServeError::Options(format!("mount directory {}: {e}", opts.dir.display())))?;
        let (dev, _, _) = flashlab_lab::precondition::device(&opts.profile, opts.seed, Precondition::Fresh)?;
        let capacity = dev.logical_bytes();
        let size = opts.size.unwrap_or(capacity);
        if size == 0 || !size.is_multiple_of(4096) || size > capacity {
            return Err(ServeError::Options(format!(
                "--size {size}: must be a multiple of 4096 bytes between 4 KiB and the device's capacity ({capacity} bytes for profile {})",
                opts.profile.name
            )));
        }
        let store = match &opts.backing {
            Some(p) => store::Store::backing_file(p, size, opts.overwrite_backing)?,
            None => store::Store::memory(size),
        };
        let mut served = ServedDevice::new(dev, store, SimClock::new(opts.time_scale), opts.volatile_cache);
        if let Some(under) = opts.skip_host_gaps {
            served = served.skip_host_gaps(under);
        }
        let dev = Arc::new(served);
        let fs_log = log.clone();
        let fs = fs::ServeFs::new(dev.clone(), Box::new(move |m: &str| fs_log(m)));
        let mut config = Config::default();
        config.mount_options = vec![
            MountOption::FSName(format!("{}{}", mounts::SOURCE_PREFIX, opts.profile.name)),
            MountOption::Subtype("flashlab".into()),
            MountOption::NoAtime,
        ];
        config.acl = SessionACL::Owner;
        config.n_threads = Some(opts.threads);
        config.clone_fd = true;
        let session = Session::new(fs, &dir, &config)
            .and_then(|s| s.spawn())
            .map_err(|source| ServeError::Mount { dir: dir.clone(), source })?;
        let mut server = Server { dev, session: Some(session), loopdev: None, dir };
        if opts.attach {
            match loopdev::attach(&server.device_path()) {
                Ok(d) => server.loopdev = Some(d),
                Err(e) => {
                    let _ = server.unmount();
                    return Err(ServeError::Loop(e));
                }
            }
        }
        Ok(server)
    }

    /// The mount directory (absolute).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The served device file inside the mount (`DIR/device`).
    pub fn device_path(&self) -> PathBuf {
        self.dir.join(fs::DEVICE_NAME)
    }

    /// The attached loop device (e.g. `/dev/loop3`), if any.
    pub fn loop_device(&self) -> Option<&str> {
        self.loopdev.as_deref()
    }

    /// The live statistics at this moment.
    pub fn snapshot(&self) -> Snapshot {
        self.dev.snapshot()
    }

    /// What still holds the loop device (empty without one or when free).
    pub fn holders(&self) -> Vec<String> {
        self.loopdev.as_deref().map(loopdev::holders).unwrap_or_default()
    }

    /// Detach the loop device if it is free (else `Busy`, and nothing changes).
    pub fn detach(&mut self) -> Result<(), ServeError> {
        let Some(dev) = self.loopdev.clone() else { return Ok(()) };
        if loopdev::backing_file(&dev).is_none_or(|f| f != self.device_path()) {
            // Already detached: a deferred detach (autoclear) completed when the last opener
            // closed it. `losetup -d` again would fail for ever.
            self.loopdev = None;
            return Ok(());
        }
        let holders = loopdev::holders(&dev);
        if !holders.is_empty() {
            return Err(ServeError::Busy { dev, holders });
        }
        loopdev::detach(&dev).map_err(ServeError::Loop)?;
        if loopdev::backing_file(&dev).is_some_and(|f| f == self.device_path()) {
            // The kernel deferred the detach (autoclear): someone opened it meanwhile.
            return Err(ServeError::Busy { dev, holders: vec!["open by another process".into()] });
        }
        self.loopdev = None;
        Ok(())
    }

    /// Unmount FUSE and wait for the worker threads to finish. Refused (`Busy`, nothing
    /// changes) while a process still has a file of the mount open.
    pub fn unmount(&mut self) -> Result<(), ServeError> {
        let Some(session) = self.session.take() else { return Ok(()) };
        if mounts::mounted_at(&self.dir).is_some() {
            let c = std::ffi::CString::new(self.dir.as_os_str().as_encoded_bytes()).map_err(|_| {
                ServeError::Options(format!("mount directory {}: contains a NUL byte", self.dir.display()))
            })?;
            // SAFETY: umount2 on a NUL-terminated path.
            if unsafe { libc::umount2(c.as_ptr(), 0) } != 0 {
                let e = std::io::Error::last_os_error();
                self.session = Some(session);
                return Err(if e.raw_os_error() == Some(libc::EBUSY) {
                    ServeError::Busy {
                        dev: self.dir.display().to_string(),
                        holders: vec![format!("a process has {} open", self.device_path().display())],
                    }
                } else {
                    ServeError::Mount { dir: self.dir.clone(), source: e }
                });
            }
        }
        // Unmounted: the kernel ends the connection and the worker threads return.
        let _ = session.join();
        Ok(())
    }

    /// Detach the FUSE mount from the directory tree without waiting for its users (only our
    /// own mount: its source is `flashlab-sim:...`).
    fn lazy_unmount(&self) {
        if mounts::mounted_at(&self.dir).is_none() {
            return;
        }
        if let Ok(c) = std::ffi::CString::new(self.dir.as_os_str().as_encoded_bytes()) {
            // SAFETY: umount2 on a NUL-terminated path.
            unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        }
    }

    /// Ordered shutdown: detach the loop device (refused while it is busy), unmount FUSE.
    /// Returns the final statistics.
    pub fn stop(mut self) -> Result<Snapshot, Box<(Server, ServeError)>> {
        if let Err(e) = self.detach().and_then(|()| self.unmount()) {
            return Err(Box::new((self, e)));
        }
        Ok(self.dev.snapshot())
    }

    /// Shutdown that does not wait: detach (deferred by the kernel if busy) and lazily
    /// unmount; I/O still in progress fails once the process exits.
    pub fn force_stop(mut self) -> Snapshot {
        if let Some(d) = self.loopdev.take() {
            let _ = loopdev::detach(&d);
        }
        let snap = self.dev.snapshot();
        self.lazy_unmount();
        // Dropped without joining its threads: the process exit ends the connection.
        drop(self.session.take());
        snap
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(d) = self.loopdev.take() {
            let _ = loopdev::detach(&d);
        }
        if self.session.is_some() {
            self.lazy_unmount();
            drop(self.session.take());
        }
    }
}
