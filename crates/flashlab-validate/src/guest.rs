//! The kernel's side of an F2FS validation, which runs inside the VM (this host's kernel has no
//! F2FS): the host writes a [`GuestRequest`] into the VM's share and boots the VM running
//! `flashlab validate-fs --guest REQUEST`; [`run_guest`] makes an F2FS image on the guest's
//! tmpfs (`mkfs.f2fs`), reads its layout, mounts it on a loop device with the run's options,
//! runs the workload with the block and F2FS tracepoints on, and writes a [`GuestResult`]
//! (requests, F2FS events, the script it ran, the clock readings, the SQLite log) beside the
//! request for the host to compare with the model.

use crate::error::Error;
use crate::f2fs_events::F2fsEvents;
use crate::image::run_tool;
use crate::mounted::Mounted;
use crate::ops::Script;
use crate::options::{FsChoice, Mount, Options, Workload};
use crate::requests::{self, Req};
use flashlab_simfs::f2fs_layout::F2fsLayout;
use flashlab_sqlite::vfs_recorder::Event;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Path, PathBuf};

/// One workload for the guest to run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GuestJob {
    /// The `--workload` name.
    pub workload: String,
    /// The `-o` options.
    pub mount_options: String,
    /// Image size, bytes.
    pub image_bytes: u64,
    /// `fill`: percent.
    pub fill_percent: u64,
    /// Overwrites.
    pub writes: u64,
    /// SQLite transactions.
    pub transactions: u64,
    /// Seed.
    pub seed: u64,
}

impl GuestJob {
    /// The job of `o`.
    pub fn of(o: &Options) -> GuestJob {
        GuestJob {
            workload: o.workload.name().to_string(),
            mount_options: o.f2fs_mount.clone(),
            image_bytes: o.image_bytes,
            fill_percent: o.fill_percent,
            writes: o.writes,
            transactions: o.transactions,
            seed: o.seed,
        }
    }

    fn options(&self, image_dir: PathBuf) -> Result<Options, Error> {
        let mut o = Options::new(Workload::parse(&self.workload)?, Mount::Default);
        o.fs = FsChoice::F2fs;
        o.f2fs_mount = self.mount_options.clone();
        o.image_bytes = self.image_bytes;
        o.fill_percent = self.fill_percent;
        o.writes = self.writes;
        o.transactions = self.transactions;
        o.seed = self.seed;
        o.image_dir = image_dir;
        Ok(o)
    }
}

/// What the host asks the guest to run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GuestRequest {
    /// The workloads, each on a fresh image.
    pub jobs: Vec<GuestJob>,
}

/// What the guest did for one job.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GuestResult {
    /// The job.
    pub job: GuestJob,
    /// Why it failed in the guest (then nothing else is set).
    pub error: Option<String>,
    /// The image's layout as mkfs.f2fs made it.
    pub layout: Option<F2fsLayout>,
    /// The block requests of the measured part, as the loop device received them.
    pub requests: Vec<Req>,
    /// F2FS's own events over the same interval.
    pub f2fs: F2fsEvents,
    /// The file operations run (not for SQLite).
    pub script: Script,
    /// The coarse clock at each measured operation (or SQLite event).
    pub clock: Vec<u64>,
    /// SQLite's recorded file operations.
    pub sqlite_log: Vec<Event>,
    /// Wall time of the measured part in the guest.
    pub wall_ns: u64,
    /// The loop queue's largest request.
    pub max_request: u64,
    /// The guest kernel's release.
    pub kernel: String,
    /// The mount's line in /proc/mounts (the options in effect).
    pub mount_line: String,
    /// mkfs.f2fs's version line.
    pub mkfs: String,
    /// The coarse clock's tick in the guest.
    pub tick_ns: u64,
    /// F2FS's tunables as the kernel set them for this volume (`/sys/fs/f2fs/DEV/NAME`).
    #[serde(default)]
    pub sysfs: Vec<(String, String)>,
}

/// The F2FS tunables read after mounting (the model takes those it has).
pub const SYSFS_KNOBS: [&str; 9] = [
    "ipu_policy",
    "min_ipu_util",
    "min_fsync_blocks",
    "min_hot_blocks",
    "min_ssr_sections",
    "reclaim_segments",
    "discard_granularity",
    "discard_idle_interval",
    "gc_min_sleep_time",
];

/// The results file beside a request file.
pub fn result_path(request: &Path) -> PathBuf {
    request.with_extension("result.json")
}

/// In the guest: run every job of the request at `request` and write the results beside it.
/// A job that fails is reported in its result; only an unreadable request is an error.
pub fn run_guest(request: &Path) -> Result<(), Error> {
    let text = std::fs::read_to_string(request).map_err(Error::io(request))?;
    let req: GuestRequest =
        serde_json::from_str(&text).map_err(|e| Error::Parse(format!("{}: {e}", request.display())))?;
    for m in ["f2fs", "loop"] {
        run_tool("modprobe", &[m], "kmod")?;
    }
    let dir = PathBuf::from("/dev/shm");
    let mut out = Vec::new();
    for job in &req.jobs {
        out.push(match one(job, &dir) {
            Ok(r) => r,
            Err(e) => GuestResult { error: Some(e.to_string()), ..empty(job) },
        });
    }
    let p = result_path(request);
    let json = serde_json::to_vec(&out).map_err(|e| Error::Parse(e.to_string()))?;
    std::fs::write(&p, json).map_err(Error::io(&p))
}

fn empty(job: &GuestJob) -> GuestResult {
    GuestResult {
        job: job.clone(),
        error: None,
        layout: None,
        requests: Vec::new(),
        f2fs: F2fsEvents::default(),
        script: Script::default(),
        clock: Vec::new(),
        sqlite_log: Vec::new(),
        wall_ns: 0,
        max_request: 0,
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim().to_string(),
        mount_line: String::new(),
        mkfs: String::new(),
        tick_ns: crate::clock::coarse_tick_ns(),
        sysfs: Vec::new(),
    }
}

/// One job on a fresh image.
fn one(job: &GuestJob, dir: &Path) -> Result<GuestResult, Error> {
    let o = job.options(dir.to_path_buf())?;
    let path = Mounted::image_path(dir);
    let mut m = Mounted::new(path.clone());
    let f = std::fs::File::create(&path).map_err(Error::io(&path))?;
    f.set_len(o.image_bytes).map_err(Error::io(&path))?;
    drop(f);
    let p = path.to_string_lossy().to_string();
    let version = run_tool("mkfs.f2fs", &["-f", &p], "f2fs-tools")?;
    let mut head = vec![0u8; F2fsLayout::HEAD_BYTES];
    std::fs::File::open(&path).and_then(|mut f| f.read_exact(&mut head)).map_err(Error::io(&path))?;
    let layout = F2fsLayout::from_image(&p, &head)?;
    m.attach_and_mount("f2fs", &o.mount_options_f2fs())?;
    let mount_line = std::fs::read_to_string("/proc/mounts")
        .unwrap_or_default()
        .lines()
        .find(|l| l.contains(&*m.mnt.to_string_lossy()))
        .unwrap_or("")
        .to_string();
    let mut r = empty(job);
    let dev = m.dev.as_ref().and_then(|d| d.file_name()).map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    for k in SYSFS_KNOBS {
        if let Ok(v) = std::fs::read_to_string(format!("/sys/fs/f2fs/{dev}/{k}")) {
            r.sysfs.push((k.to_string(), v.trim().to_string()));
        }
    }
    r.layout = Some(layout);
    r.max_request = m.max_request;
    r.mount_line = mount_line;
    r.mkfs =
        version.lines().find(|l| l.contains("mkfs.f2fs") || l.contains("F2FS-tools")).unwrap_or("").trim().to_string();
    match o.workload {
        Workload::Sqlite(mode) => {
            let k = crate::sqlite_run::run_kernel(&o, &m, mode, true)?;
            r.requests = requests::from_kernel(&k.events);
            r.f2fs = k.f2fs.unwrap_or_default();
            r.sqlite_log = k.log;
            r.clock = k.clocks;
            r.wall_ns = k.wall_ns;
        }
        _ => {
            let free = statvfs_free(&m.mnt)?;
            let script = crate::ops::script(&o, free);
            let k = crate::kernel_run::run(&m, &script, o.seed, true)?;
            r.requests = requests::from_kernel(&k.events);
            r.f2fs = k.f2fs.unwrap_or_default();
            r.clock = k.clock;
            r.wall_ns = k.wall_ns;
            r.script = script;
        }
    }
    m.unmount()?;
    Ok(r)
}

/// Bytes an unprivileged user may still write on the filesystem holding `dir`.
fn statvfs_free(dir: &Path) -> Result<u64, Error> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).map_err(|e| Error::Parse(e.to_string()))?;
    // SAFETY: statvfs writes one struct we own; the path is a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(Error::Io { path: dir.to_path_buf(), source: std::io::Error::last_os_error() });
    }
    Ok(st.f_bavail as u64 * st.f_frsize as u64)
}
