//! The usage model at work: the files a user has, and what one session of use does to them —
//! delete the previous session's temporary files, write new files (sizes from the model's mix,
//! large requests, fsync as configured), delete the oldest files to stay at the kept fill level,
//! rewrite parts of existing files in place, read. Deterministic for a seed.

use crate::error::SimError;
use crate::usage::Usage;
use flashlab_lab::rng::Rng;
use flashlab_lab::system::SimSystem;
use flashlab_measure::LatencyHistogram;
use flashsim::Op;
use serde::Serialize;
use std::collections::VecDeque;

/// Largest request a sequential file write or read is split into (Linux's usual
/// `max_sectors_kb`).
pub const MAX_REQUEST: u64 = 512 << 10;

/// Totals of what the application side did.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct AppStats {
    /// Bytes of new files written.
    pub write_bytes: u64,
    /// Bytes rewritten in place.
    pub overwrite_bytes: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Files created.
    pub files_created: u64,
    /// Files deleted (by the user or as temporary files).
    pub files_deleted: u64,
    /// fsync calls.
    pub fsyncs: u64,
    /// New-file bytes not written because the filesystem had no room even after deleting.
    pub skipped_bytes: u64,
}

#[derive(Debug, Clone)]
struct FileRec {
    name: String,
    size: u64,
}

pub(crate) struct Workload {
    usage: Usage,
    rng: Rng,
    next_id: u64,
    /// Data present from day 0, never deleted.
    base: Vec<FileRec>,
    /// The user's files, oldest first.
    user: VecDeque<FileRec>,
    /// Temporary files of the last session, deleted at the next.
    temp: Vec<FileRec>,
    carry: [f64; 3],
    pub stats: AppStats,
    /// Latencies of the applications' small in-place writes (of all writes when the model has
    /// none) since the last [`Workload::take_latency`].
    small_lat: LatencyHistogram,
    /// Latencies of fsync calls, same period.
    fsync_lat: LatencyHistogram,
}

impl Workload {
    pub fn new(usage: &Usage, seed: u64) -> Workload {
        Workload {
            usage: usage.clone(),
            rng: Rng::new(seed ^ 0x11fe_5eed),
            next_id: 0,
            base: Vec::new(),
            user: VecDeque::new(),
            temp: Vec::new(),
            carry: [0.0; 3],
            stats: AppStats::default(),
            small_lat: LatencyHistogram::new(),
            fsync_lat: LatencyHistogram::new(),
        }
    }

    fn name(&mut self) -> String {
        self.next_id += 1;
        format!("f{}", self.next_id)
    }

    /// Day 0: write the base data (`base_fill` of the filesystem) as large files.
    pub fn setup(&mut self, sim: &mut SimSystem) -> Result<(), SimError> {
        let target = (self.usage.base_fill * sim.fs().capacity() as f64) as u64;
        let chunk = (sim.fs().capacity() / 64).clamp(1 << 20, 256 << 20) / 4096 * 4096;
        let mut written = 0;
        while written + 4096 <= target {
            let size = chunk.min(target - written) / 4096 * 4096;
            let name = self.name();
            sim.create(&name, size)?;
            self.write_seq(sim, &name, size, false)?;
            self.base.push(FileRec { name, size });
            written += size;
        }
        self.small_lat.clear();
        self.fsync_lat.clear();
        Ok(())
    }

    fn fsync(&mut self, sim: &mut SimSystem) -> Result<(), SimError> {
        let t = sim.now();
        sim.sync()?;
        let d = sim.now() - t;
        self.fsync_lat.record(d);
        self.stats.fsyncs += 1;
        Ok(())
    }

    /// Write a whole file sequentially in large requests, with fsync as the model says.
    fn write_seq(&mut self, sim: &mut SimSystem, name: &str, size: u64, record: bool) -> Result<(), SimError> {
        let mut off = 0;
        let mut since_sync = 0;
        let every = self.usage.fsync_every;
        let small = record && self.usage.daily_overwrite == 0;
        while off < size {
            let l = MAX_REQUEST.min(size - off);
            let c = sim.io_now(name, Op::Write, off, l)?;
            if small {
                self.small_lat.record(c.latency());
            }
            off += l;
            since_sync += l;
            if record && every > 0 && since_sync >= every {
                since_sync = 0;
                self.fsync(sim)?;
            }
        }
        if record && every > 0 && since_sync > 0 {
            self.fsync(sim)?;
        }
        Ok(())
    }

    fn draw_size(&mut self) -> u64 {
        let classes = &self.usage.file_sizes;
        let total: f64 = classes.iter().map(|c| c.weight).sum();
        let mut x = self.rng.unit() * total;
        let mut pick = &classes[classes.len() - 1];
        for c in classes {
            if x < c.weight {
                pick = c;
                break;
            }
            x -= c.weight;
        }
        let (lo, hi) = (pick.min as f64, pick.max as f64);
        let size = if hi > lo { (lo.ln() + self.rng.unit() * (hi.ln() - lo.ln())).exp() } else { lo };
        ((size as u64).div_ceil(4096) * 4096).max(4096)
    }

    /// This session's share of a daily volume (fractions carried to the next session).
    fn share(&mut self, i: usize, daily: u64) -> u64 {
        self.carry[i] += daily as f64 / f64::from(self.usage.day.sessions);
        let whole = (self.carry[i] / 4096.0).floor() * 4096.0;
        self.carry[i] -= whole;
        whole as u64
    }

    fn delete(&mut self, sim: &mut SimSystem, f: &FileRec) -> Result<(), SimError> {
        sim.delete(&f.name)?;
        self.stats.files_deleted += 1;
        Ok(())
    }

    /// One session of use at the simulator's current time.
    pub fn session(&mut self, sim: &mut SimSystem) -> Result<(), SimError> {
        for f in std::mem::take(&mut self.temp) {
            self.delete(sim, &f)?;
        }
        let keep = (self.usage.keep_fill * sim.fs().capacity() as f64) as u64;
        // Room the filesystem keeps free whatever the user does (ext4's reserved blocks are
        // not modelled; 1 % stands for them).
        let reserve = sim.fs().capacity() / 100;
        // New files: while this session's share of the daily volume is not used up. A file
        // may be larger than what is left (a video, an app update): the excess is borrowed from
        // the next sessions, so bursts happen and the daily volume still holds on average.
        self.carry[0] += self.usage.daily_write as f64 / f64::from(self.usage.day.sessions);
        while self.carry[0] >= 4096.0 {
            let size = self.draw_size();
            self.carry[0] -= size as f64;
            while sim.fs().used_bytes() + size > keep {
                match self.user.pop_front() {
                    Some(f) => self.delete(sim, &f)?,
                    None => break,
                }
            }
            if sim.fs().free_bytes() < size + reserve {
                self.stats.skipped_bytes += size;
                continue;
            }
            let name = self.name();
            sim.create(&name, size)?;
            self.write_seq(sim, &name, size, true)?;
            self.stats.write_bytes += size;
            self.stats.files_created += 1;
            let rec = FileRec { name, size };
            if self.rng.unit() < self.usage.temp_fraction {
                self.temp.push(rec);
            } else {
                self.user.push_back(rec);
            }
        }
        let mut over = self.share(1, self.usage.daily_overwrite);
        let bs = self.usage.overwrite_bs;
        let mut since_sync = 0;
        let files = self.base.len() + self.user.len();
        while over > 0 && files > 0 {
            let i = self.rng.below(files as u64) as usize;
            let f = if i < self.base.len() { &self.base[i] } else { &self.user[i - self.base.len()] };
            let blocks = (f.size / bs).max(1);
            let off = self.rng.below(blocks) * bs;
            let len = bs.min(f.size - off);
            let c = sim.io_now(&f.name, Op::Write, off, len)?;
            self.small_lat.record(c.latency());
            self.stats.overwrite_bytes += len;
            over = over.saturating_sub(len);
            since_sync += len;
            if self.usage.fsync_every > 0 && since_sync >= self.usage.fsync_every {
                since_sync = 0;
                self.fsync(sim)?;
            }
        }
        if since_sync > 0 && self.usage.fsync_every > 0 {
            self.fsync(sim)?;
        }
        let mut read = self.share(2, self.usage.daily_read);
        while read > 0 && files > 0 {
            let i = self.rng.below(files as u64) as usize;
            let f = if i < self.base.len() { &self.base[i] } else { &self.user[i - self.base.len()] };
            let start = self.rng.below((f.size / MAX_REQUEST).max(1)) * MAX_REQUEST;
            let mut off = start.min(f.size.saturating_sub(4096));
            let end = (off + read).min(f.size);
            while off < end {
                let l = MAX_REQUEST.min(end - off);
                sim.io_now(&f.name, Op::Read, off, l)?;
                off += l;
                self.stats.read_bytes += l;
                read = read.saturating_sub(l);
            }
        }
        Ok(())
    }

    /// The small-write and fsync latency histograms since the last call, cleared.
    pub fn take_latency(&mut self) -> (LatencyHistogram, LatencyHistogram) {
        let a = self.small_lat.clone();
        let b = self.fsync_lat.clone();
        self.small_lat.clear();
        self.fsync_lat.clear();
        (a, b)
    }
}
