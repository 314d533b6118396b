//! A simulated system: a simulated device, the simulated filesystem on it, and the virtual
//! clock. File operations become device requests here (writes, reads, discard on delete when
//! the filesystem is mounted with `discard`, FITRIM-style fstrim, flush on fsync).

use crate::simfs::{File, FsError, SimFs};
use flashsim::{Completion, Device, Ns, Op, Profile, Request, RequestError};
use serde::Serialize;
use std::fmt;

/// Largest single discard request fstrim sends (Linux splits discards at the device's
/// `discard_max_bytes`; 4 GiB is typical).
const MAX_DISCARD: u64 = 4 << 30;

#[derive(Debug)]
pub enum SysError {
    Fs(FsError),
    Device(RequestError),
}

impl fmt::Display for SysError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SysError::Fs(e) => write!(f, "{e}"),
            SysError::Device(e) => write!(f, "device: {e}"),
        }
    }
}

impl std::error::Error for SysError {}

impl From<FsError> for SysError {
    fn from(e: FsError) -> Self {
        SysError::Fs(e)
    }
}
impl From<RequestError> for SysError {
    fn from(e: RequestError) -> Self {
        SysError::Device(e)
    }
}

/// What the device reports about itself, for results files and tables.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceReport {
    pub profile: String,
    pub write_amplification: f64,
    pub counters: flashsim::Counters,
    pub state: flashsim::DeviceState,
}

#[derive(Debug, Clone)]
pub struct SimSystem {
    pub dev: Device,
    pub fs: SimFs,
    /// The virtual clock: when the next operation may start.
    pub now: Ns,
}

impl SimSystem {
    pub fn new(profile: &Profile, seed: u64, discard: bool) -> SimSystem {
        let dev = Device::new(profile, seed);
        let fs = SimFs::new(dev.logical_bytes(), discard);
        SimSystem { dev, fs, now: 0 }
    }

    /// Send the device requests for `op` on file range [off, off+len) at time `t`; returns when
    /// the last piece completes.
    pub fn file_io(
        dev: &mut Device,
        file: &File,
        t: Ns,
        op: Op,
        off: u64,
        len: u64,
    ) -> Result<Completion, RequestError> {
        let mut result: Option<Result<Completion, RequestError>> = None;
        file.map(off, len, |dev_off, l| {
            if matches!(result, Some(Err(_))) {
                return;
            }
            let c = dev.submit(t, &Request::new(op, dev_off, l));
            result = Some(match (result.take(), c) {
                (_, Err(e)) => Err(e),
                (Some(Ok(prev)), Ok(c)) if prev.done >= c.done => Ok(prev),
                (_, Ok(c)) => Ok(c),
            });
        });
        result.unwrap_or(Err(RequestError::Empty))
    }

    /// Flush the device's write cache (what fsync ends with); the clock advances.
    pub fn sync(&mut self) -> Result<(), SysError> {
        self.now = self.dev.submit(self.now, &Request::new(Op::Flush, 0, 0))?.done;
        Ok(())
    }

    /// Delete a file. With online discard the freed ranges are trimmed at once.
    pub fn delete(&mut self, name: &str) -> Result<(), SysError> {
        let extents = self.fs.delete(name)?;
        if self.fs.discard {
            for e in extents {
                self.trim_range(e.dev_off, e.len)?;
            }
        }
        Ok(())
    }

    fn trim_range(&mut self, mut off: u64, mut len: u64) -> Result<(), SysError> {
        while len > 0 {
            let l = len.min(MAX_DISCARD);
            self.now = self.dev.submit(self.now, &Request::new(Op::Trim, off, l))?.done;
            off += l;
            len -= l;
        }
        Ok(())
    }

    /// fstrim: trim every free extent; returns the bytes trimmed.
    pub fn fstrim(&mut self) -> Result<u64, SysError> {
        let mut trimmed = 0;
        for (off, len) in self.fs.free_extents() {
            self.trim_range(off, len)?;
            trimmed += len;
        }
        Ok(trimmed)
    }

    /// Let `dur` of virtual time pass with no I/O (the device may collect garbage).
    pub fn idle(&mut self, dur: Ns) {
        self.now = self.now.max(self.dev.busy_until()) + dur;
        self.dev.idle_until(self.now);
    }

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
