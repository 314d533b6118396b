//! The `psync` engine: `pread`/`pwrite`/`fsync`/`fdatasync`, one request at a time. Queued
//! requests run (synchronously, in order) at [`submit`](IoEngine::submit); their completions
//! wait for [`reap`](IoEngine::reap). It has one buffer slot, so its effective queue depth is
//! 1 whatever `iodepth` says — as fio's psync, where iodepth above 1 changes nothing.

use super::{check_slot, EngineConfig, IoCompletion, IoEngine, IoOp, IoRequest};
use crate::buffers::AlignedBuffers;
use crate::RealError;

/// The psync engine: each request is a pread/pwrite (or fsync) done when submitted.
pub struct PsyncEngine {
    bufs: AlignedBuffers,
    busy: Vec<bool>,
    queued: Vec<IoRequest>,
    done: Vec<IoCompletion>,
}

impl PsyncEngine {
    /// An engine with one buffer slot (psync has one request in flight whatever `depth` says).
    pub fn new(cfg: &EngineConfig) -> PsyncEngine {
        PsyncEngine {
            bufs: AlignedBuffers::new(1, cfg.buf_size, cfg.pattern, cfg.seed),
            busy: vec![false; 1],
            queued: Vec::with_capacity(1),
            done: Vec::with_capacity(1),
        }
    }

    fn run(&mut self, r: &IoRequest) -> i32 {
        let p = self.bufs.slot_ptr(r.slot as usize);
        loop {
            // SAFETY: the slot holds at least r.len bytes (checked at queue) and is ours.
            let rc: isize = unsafe {
                match r.op {
                    IoOp::Read => libc::pread(r.fd, p.cast(), r.len as usize, r.offset as libc::off_t),
                    IoOp::Write => libc::pwrite(r.fd, p.cast(), r.len as usize, r.offset as libc::off_t),
                    IoOp::Fsync => libc::fsync(r.fd) as isize,
                    IoOp::Fdatasync => libc::fdatasync(r.fd) as isize,
                }
            };
            if rc >= 0 {
                return rc as i32;
            }
            let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO);
            if errno != libc::EINTR {
                return -errno;
            }
        }
    }
}

impl IoEngine for PsyncEngine {
    fn name(&self) -> &'static str {
        "psync"
    }

    fn depth(&self) -> u32 {
        1
    }

    fn synchronous(&self) -> bool {
        true
    }

    fn in_flight(&self) -> u32 {
        self.busy.iter().filter(|&&b| b).count() as u32
    }

    fn buffer_mut(&mut self, slot: u32) -> Option<&mut [u8]> {
        match self.busy.get(slot as usize) {
            Some(false) => Some(self.bufs.slot_mut(slot as usize)),
            _ => None,
        }
    }

    fn queue(&mut self, req: IoRequest) -> Result<(), RealError> {
        check_slot(&self.busy, self.bufs.slot_size(), &req)?;
        self.busy[req.slot as usize] = true;
        self.queued.push(req);
        Ok(())
    }

    fn submit(&mut self) -> Result<usize, RealError> {
        let n = self.queued.len();
        for i in 0..n {
            let r = self.queued[i];
            let result = self.run(&r);
            self.done.push(IoCompletion { user_data: r.user_data, slot: r.slot, result });
        }
        self.queued.clear();
        Ok(n)
    }

    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<IoCompletion>) -> Result<usize, RealError> {
        if !self.queued.is_empty() {
            self.submit()?;
        }
        let n = self.done.len().min(max.max(min));
        for c in self.done.drain(..n) {
            self.busy[c.slot as usize] = false;
            out.push(c);
        }
        Ok(n)
    }
}
