//! The workload on the kernel's ext4: the script's operations on real files in the mounted
//! image, the measured part traced through a private tracefs instance (flashlab-breakdown's
//! [`TraceSession`]) filtered to the loop device.

use crate::error::Error;
use crate::mounted::Mounted;
use crate::ops::{FileOp, Script, WRITE_CHUNK};
use flashlab_breakdown::events::BlockEvent;
use flashlab_breakdown::tracefs::{find_tracefs, load_layouts, TraceSession, DEFAULT_ROOTS};
use std::collections::HashMap;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Trace buffer per CPU (KiB): room for ~100k events.
const BUFFER_KB: u64 = 16 << 10;

/// A tracing session on the image's loop device, off until [`TraceSession::on`].
pub fn session(img: &Mounted) -> Result<TraceSession, Error> {
    let roots: Vec<&Path> = DEFAULT_ROOTS.iter().map(Path::new).collect();
    let root = find_tracefs(&roots)?;
    let layouts = load_layouts(&root)?;
    Ok(TraceSession::start(&root, layouts, img.kernel_dev, BUFFER_KB)?)
}

/// syncfs on the filesystem holding `dir`.
pub fn syncfs(dir: &Path) -> Result<(), Error> {
    let d = File::open(dir).map_err(Error::io(dir))?;
    // SAFETY: syncfs on a descriptor we own.
    if unsafe { libc::syncfs(d.as_raw_fd()) } != 0 {
        return Err(Error::Io { path: dir.to_path_buf(), source: std::io::Error::last_os_error() });
    }
    Ok(())
}

/// Stop tracing, read the buffers; an error if the kernel dropped events.
pub fn stop_and_drain(s: &TraceSession) -> Result<Vec<BlockEvent>, Error> {
    s.off()?;
    let mut ev = Vec::new();
    let st = s.drain(&mut ev)?;
    if st.lost > 0 {
        return Err(Error::Model(format!(
            "the trace buffer lost {} events: run a smaller workload (fewer --writes or --transactions)",
            st.lost
        )));
    }
    Ok(ev)
}

/// Files the script opened, by name.
struct Files {
    dir: PathBuf,
    open: HashMap<String, File>,
    data: Vec<u8>,
    /// The coarse clock as each applied operation reached its system call.
    clock: Vec<u64>,
}

impl Files {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn get(&mut self, name: &str) -> Result<&File, Error> {
        if !self.open.contains_key(name) {
            let p = self.path(name);
            let f = std::fs::OpenOptions::new().write(true).open(&p).map_err(Error::io(&p))?;
            self.open.insert(name.to_string(), f);
        }
        Ok(&self.open[name])
    }

    fn apply(&mut self, op: &FileOp) -> Result<(), Error> {
        if !matches!(op, FileOp::Overwrite { .. }) {
            self.clock.push(crate::clock::coarse_now());
        }
        match op {
            FileOp::WriteFile { name, size } => {
                let p = self.path(name);
                let f = File::create(&p).map_err(Error::io(&p))?;
                let mut off = 0;
                while off < *size {
                    let n = WRITE_CHUNK.min(size - off);
                    f.write_all_at(&self.data[..n as usize], off).map_err(Error::io(&p))?;
                    off += n;
                }
                f.sync_all().map_err(Error::io(&p))?;
            }
            FileOp::Overwrite { name, off, len } => {
                let p = self.path(name);
                let n = (*len as usize).min(self.data.len());
                let buf = self.data[..n].to_vec();
                self.get(name)?;
                let f = &self.open[name];
                // Read last, next to the write: the value its mtime update compares.
                self.clock.push(crate::clock::coarse_now());
                f.write_all_at(&buf, *off).map_err(Error::io(&p))?;
                return Ok(());
            }
            FileOp::Fsync { name } => {
                let p = self.path(name);
                self.get(name)?.sync_all().map_err(Error::io(&p))?;
            }
            FileOp::Delete { name } => {
                self.open.remove(name);
                let p = self.path(name);
                std::fs::remove_file(&p).map_err(Error::io(&p))?;
            }
            FileOp::Sync => syncfs(&self.dir)?,
            FileOp::Pause { ns } => std::thread::sleep(std::time::Duration::from_nanos(*ns)),
        }
        Ok(())
    }
}

/// What the kernel side did.
#[derive(Debug, Default)]
pub struct KernelRun {
    pub events: Vec<BlockEvent>,
    /// Wall time the measured part took.
    pub wall_ns: u64,
    /// The coarse clock (`CLOCK_REALTIME_COARSE`, ns) as each measured operation started, one
    /// value per operation: the file timestamps its writes took ([`crate::clock`]).
    pub clock: Vec<u64>,
    /// Extents of the files left, by name (FIEMAP: logical, physical, length in bytes).
    pub extents: Vec<(String, crate::fiemap::FileExtents)>,
    /// F2FS's own events over the same interval (with `f2fs`).
    pub f2fs: Option<crate::f2fs_events::F2fsEvents>,
}

/// Keep the calling thread on one CPU while it lives: ext4 keeps one small-file window per
/// CPU, so a thread that migrates spreads small files over several (the model has one).
pub struct Pinned(Option<libc::cpu_set_t>);

impl Pinned {
    pub fn to_current_cpu() -> Pinned {
        // SAFETY: sched_getaffinity/sched_setaffinity on this thread with sets we own;
        // sched_getcpu has no preconditions.
        unsafe {
            let mut old: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut old) != 0 {
                return Pinned(None);
            }
            let cpu = libc::sched_getcpu().max(0) as usize;
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut one);
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) != 0 {
                return Pinned(None);
            }
            Pinned(Some(old))
        }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let Some(old) = &self.0 {
            // SAFETY: restoring the affinity read in `to_current_cpu`.
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), old);
            }
        }
    }
}

/// A tracing session on the image's loop device; with `f2fs`, F2FS's own events too.
pub fn session_for(img: &Mounted, f2fs: bool) -> Result<TraceSession, Error> {
    let s = session(img)?;
    if f2fs {
        crate::f2fs_events::enable(s.dir(), img.kernel_dev)?;
    }
    Ok(s)
}

/// Stop tracing; F2FS's events (read as text, with `f2fs`) and the block events.
pub fn stop_and_drain_all(
    s: &TraceSession,
    f2fs: bool,
) -> Result<(Vec<BlockEvent>, Option<crate::f2fs_events::F2fsEvents>), Error> {
    s.off()?;
    let f = if f2fs { Some(crate::f2fs_events::read(s.dir())?) } else { None };
    Ok((stop_and_drain(s)?, f))
}

/// Run `script` in the image's mount point (setup untraced, then the measured part traced;
/// with `f2fs`, F2FS's events too).
pub fn run(img: &Mounted, script: &Script, seed: u64, f2fs: bool) -> Result<KernelRun, Error> {
    let _pin = Pinned::to_current_cpu();
    let mut data = vec![0u8; WRITE_CHUNK as usize];
    let mut x = seed | 1;
    for b in data.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let mut files = Files { dir: img.mnt.clone(), open: HashMap::new(), data, clock: Vec::new() };
    for op in &script.setup {
        files.apply(op)?;
    }
    syncfs(&img.mnt)?;
    let s = session_for(img, f2fs)?;
    s.on()?;
    let t0 = std::time::Instant::now();
    files.clock = Vec::with_capacity(script.measured.len());
    let r = script.measured.iter().try_for_each(|op| files.apply(op));
    let wall_ns = t0.elapsed().as_nanos() as u64;
    let drained = stop_and_drain_all(&s, f2fs);
    s.close()?;
    r?;
    let (events, f2fs_events) = drained?;
    files.open.clear();
    let clock = std::mem::take(&mut files.clock);
    let mut names: Vec<String> = Vec::new();
    for op in script.setup.iter().chain(&script.measured) {
        match op {
            FileOp::WriteFile { name, .. } => names.push(name.clone()),
            FileOp::Delete { name } => names.retain(|n| n != name),
            _ => {}
        }
    }
    let mut extents = Vec::new();
    for n in names {
        extents.push((n.clone(), crate::fiemap::extents(&files.path(&n))?));
    }
    Ok(KernelRun { events, wall_ns, clock, extents, f2fs: f2fs_events })
}
