//! The FUSE filesystem: a root directory with three files.
//! - `device`: the simulated device (read, write, fsync = FLUSH, fallocate PUNCH_HOLE = TRIM,
//!   ZERO_RANGE = write of zeros), opened in direct-I/O mode so no page cache sits in front.
//! - `stats.json`: live statistics, regenerated at every open.
//! - `.ctl`: control file; `powercut` simulates a power loss, `poweroff`/`poweron` a loss that
//!   lasts until power comes back (requests fail with EIO meanwhile).

use crate::device::ServedDevice;
use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, InitFlags, KernelConfig,
    LockOwner, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs,
    ReplyWrite, Request, TimeOrNow, WriteFlags,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

pub const DEVICE_NAME: &str = "device";
pub const STATS_NAME: &str = "stats.json";
pub const CTL_NAME: &str = ".ctl";

const ROOT: u64 = 1;
const DEVICE: u64 = 2;
const STATS: u64 = 3;
const CTL: u64 = 4;
const TTL: Duration = Duration::from_secs(1);
/// FUSE requests the kernel may have outstanding to us (the loop device keeps up to 32 busy).
pub const MAX_BACKGROUND: u16 = 64;

const CTL_HELP: &str =
    "write one command to this file:\n  powercut   lose power: unflushed data within the write buffer is lost\n";

pub struct ServeFs {
    dev: Arc<ServedDevice>,
    started: SystemTime,
    uid: u32,
    gid: u32,
    /// stats.json content per open handle (fixed at open, so a reader sees one snapshot).
    stats_open: Mutex<HashMap<u64, Arc<Vec<u8>>>>,
    next_fh: AtomicU64,
    /// Messages (power cuts) for the server's log.
    log: Box<dyn Fn(&str) + Send + Sync>,
}

thread_local! {
    static READ_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl ServeFs {
    pub fn new(dev: Arc<ServedDevice>, log: Box<dyn Fn(&str) + Send + Sync>) -> ServeFs {
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        ServeFs {
            dev,
            started: SystemTime::now(),
            uid,
            gid,
            stats_open: Mutex::new(HashMap::new()),
            next_fh: AtomicU64::new(1),
            log,
        }
    }

    fn stats_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(&self.dev.snapshot().to_json()).unwrap_or_default();
        v.push(b'\n');
        v
    }

    fn attr(&self, ino: u64) -> Option<FileAttr> {
        let (kind, perm, size) = match ino {
            ROOT => (FileType::Directory, 0o755, 0),
            DEVICE => (FileType::RegularFile, 0o600, self.dev.size()),
            STATS => (FileType::RegularFile, 0o444, 0),
            CTL => (FileType::RegularFile, 0o200, 0),
            _ => return None,
        };
        Some(FileAttr {
            ino: INodeNo(ino),
            size,
            blocks: size / 512,
            atime: self.started,
            mtime: self.started,
            ctime: self.started,
            crtime: self.started,
            kind,
            perm,
            nlink: if kind == FileType::Directory { 2 } else { 1 },
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        })
    }

    fn control(&self, data: &[u8]) -> Result<(), Errno> {
        let cmd = std::str::from_utf8(data).map_err(|_| Errno::EINVAL)?.trim();
        match cmd {
            "powercut" => {
                let cut = self.dev.power_cut().map_err(Errno::from)?;
                (self.log)(&format!(
                    "power cut: lost {} bytes of unflushed writes ({} blocks restored to their persisted content)",
                    cut.lost_bytes, cut.blocks_restored
                ));
                Ok(())
            }
            "poweroff" => {
                let cut = self.dev.power_off().map_err(Errno::from)?;
                (self.log)(&format!(
                    "power off: lost {} bytes of unflushed writes; requests fail with EIO until poweron",
                    cut.lost_bytes
                ));
                Ok(())
            }
            "poweron" => {
                self.dev.power_on();
                (self.log)("power on");
                Ok(())
            }
            "" => Ok(()),
            _ => {
                (self.log)(&format!("{CTL_NAME}: unknown command '{cmd}' (known: powercut, poweroff, poweron)"));
                Err(Errno::EINVAL)
            }
        }
    }
}

impl Filesystem for ServeFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // Let the kernel send direct I/O asynchronously (the loop device's requests overlap).
        let _ = config.add_capabilities(InitFlags::FUSE_ASYNC_DIO);
        let _ = config.set_max_background(MAX_BACKGROUND);
        let _ = config.set_congestion_threshold(MAX_BACKGROUND * 3 / 4);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let ino = match (parent.0, name.to_str()) {
            (ROOT, Some(DEVICE_NAME)) => DEVICE,
            (ROOT, Some(STATS_NAME)) => STATS,
            (ROOT, Some(CTL_NAME)) => CTL,
            _ => return reply.error(Errno::ENOENT),
        };
        match self.attr(ino) {
            Some(a) => reply.entry(&TTL, &a, Generation(0)),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.attr(ino.0) {
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(Errno::ENOENT),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let Some(a) = self.attr(ino.0) else { return reply.error(Errno::ENOENT) };
        // The device has a fixed size; truncating the control file (shell `>`) is harmless.
        if ino.0 == DEVICE && size.is_some_and(|s| s != a.size) {
            return reply.error(Errno::EPERM);
        }
        reply.attr(&TTL, &a)
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        match ino.0 {
            DEVICE | CTL => reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO),
            STATS => {
                let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
                let bytes = Arc::new(self.stats_bytes());
                self.stats_open.lock().unwrap_or_else(|p| p.into_inner()).insert(fh, bytes);
                reply.opened(FileHandle(fh), FopenFlags::FOPEN_DIRECT_IO)
            }
            _ => reply.error(Errno::EISDIR),
        }
    }

    fn release(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        if ino.0 == STATS {
            self.stats_open.lock().unwrap_or_else(|p| p.into_inner()).remove(&fh.0);
        }
        reply.ok()
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let slice = |b: &[u8]| -> Vec<u8> {
            let start = (offset as usize).min(b.len());
            let end = (start + size as usize).min(b.len());
            b[start..end].to_vec()
        };
        match ino.0 {
            DEVICE => READ_BUF.with(|cell| {
                let mut buf = cell.borrow_mut();
                if buf.len() < size as usize {
                    buf.resize(size as usize, 0);
                }
                match self.dev.read(offset, &mut buf[..size as usize]) {
                    Ok(n) => reply.data(&buf[..n]),
                    Err(e) => reply.error(Errno::from(e)),
                }
            }),
            STATS => {
                let b = self.stats_open.lock().unwrap_or_else(|p| p.into_inner()).get(&fh.0).cloned();
                let b = b.unwrap_or_else(|| Arc::new(self.stats_bytes()));
                reply.data(&slice(&b))
            }
            CTL => reply.data(&slice(CTL_HELP.as_bytes())),
            _ => reply.error(Errno::EISDIR),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        match ino.0 {
            DEVICE => match self.dev.write(offset, data) {
                Ok(n) => reply.written(n as u32),
                Err(e) => reply.error(Errno::from(e)),
            },
            CTL => match self.control(data) {
                Ok(()) => reply.written(data.len() as u32),
                Err(e) => reply.error(e),
            },
            _ => reply.error(Errno::EACCES),
        }
    }

    fn flush(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _lock_owner: LockOwner, reply: ReplyEmpty) {
        // close(2): nothing to do; durability is fsync's job.
        reply.ok()
    }

    fn fsync(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, _datasync: bool, reply: ReplyEmpty) {
        if ino.0 != DEVICE {
            return reply.ok();
        }
        match self.dev.flush() {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(Errno::from(e)),
        }
    }

    fn fallocate(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        if ino.0 != DEVICE {
            return reply.error(Errno::EOPNOTSUPP);
        }
        let keep = mode & libc::FALLOC_FL_KEEP_SIZE != 0;
        let r = if mode & libc::FALLOC_FL_PUNCH_HOLE != 0 && keep {
            self.dev.trim(offset, length)
        } else if mode & libc::FALLOC_FL_ZERO_RANGE != 0 {
            self.dev.write_zeroes(offset, length)
        } else if mode & !libc::FALLOC_FL_KEEP_SIZE == 0 {
            // Plain allocation: every byte of the device already exists.
            if offset.saturating_add(length) <= self.dev.size() {
                Ok(())
            } else {
                Err(std::io::Error::from_raw_os_error(libc::EFBIG))
            }
        } else {
            return reply.error(Errno::EOPNOTSUPP);
        };
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(Errno::from(e)),
        }
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        // The block size is the mapping unit: the loop device takes it as its discard granularity.
        let blocks = self.dev.size() / 4096;
        reply.statfs(blocks, 0, 0, 4, 0, 4096, 255, 4096)
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        if ino.0 == ROOT {
            reply.opened(FileHandle(0), FopenFlags::empty())
        } else {
            reply.error(Errno::ENOTDIR)
        }
    }

    fn readdir(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, offset: u64, mut reply: ReplyDirectory) {
        if ino.0 != ROOT {
            return reply.error(Errno::ENOTDIR);
        }
        let entries = [
            (ROOT, FileType::Directory, "."),
            (ROOT, FileType::Directory, ".."),
            (DEVICE, FileType::RegularFile, DEVICE_NAME),
            (STATS, FileType::RegularFile, STATS_NAME),
            (CTL, FileType::RegularFile, CTL_NAME),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(*ino), (i + 1) as u64, *kind, name) {
                break;
            }
        }
        reply.ok()
    }
}
