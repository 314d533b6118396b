//! fio's zoned block device mode (`zonemode=zbd`), target-neutral: the host's copy of the
//! zones (from the device's zone report, or emulated over a conventional device from
//! `zonesize` and `zonecapacity`), the write target zones shared by every job on one device,
//! and what each I/O becomes before it is sent — fio's `zbd_adjust_block`: writes go to a
//! zone's write pointer (a random write picks a zone and writes at its pointer; a full zone is
//! reset first), reads stay below the write pointer unless `read_beyond_wp`, trims are zone
//! resets, `max_open_zones` / `job_max_open_zones` bound the zones written at once, and
//! `zone_reset_threshold` / `zone_reset_frequency` reset zones as garbage collection would.
//!
//! Learnt from fio's `zbd.c` and HOWTO (semantics, messages); written for flashlab's runners,
//! which issue each request by itself at its virtual or real time: where fio waits for the
//! I/O in flight before a zone reset or finish (`io_u_quiesce`), the command here goes to the
//! device when the I/O that needs it is issued, and the device orders them.

use flashlab_jobs::Job;

/// A zone's condition, as a zone report gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cond {
    /// No data.
    Empty,
    /// Open, implicitly or explicitly, or closed: partly written.
    Open,
    /// Written to its capacity, or finished.
    Full,
    /// Readable, never written.
    ReadOnly,
    /// Neither read nor written.
    Offline,
}

/// The host's copy of one zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostZone {
    /// First byte.
    pub start: u64,
    /// Writable bytes from the start.
    pub capacity: u64,
    /// The write pointer, bytes.
    pub wp: u64,
    /// Its condition at the last report, as the host's writes and resets changed it.
    pub cond: Cond,
    /// In the write target zones.
    write: bool,
}

impl HostZone {
    fn cap_end(&self) -> u64 {
        self.start + self.capacity
    }

    /// Bytes still writable (fio's `zbd_zone_remainder`).
    fn remainder(&self) -> u64 {
        self.cap_end().saturating_sub(self.wp)
    }

    fn full(&self, min_bs: u64) -> bool {
        min_bs > self.remainder()
    }
}

/// A zone command a job's I/O needs before it goes: the runner sends it to the device (a
/// host-managed one; an emulated zone needs nothing sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneCmd {
    /// Reset zone N's write pointer.
    Reset(u32),
    /// Finish zone N (its remainder is smaller than a block).
    Finish(u32),
}

/// What a job's I/O becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adjusted {
    /// Send it at this device offset and length (after the commands `cmds` holds).
    Io {
        /// Device offset.
        off: u64,
        /// Bytes.
        len: u64,
    },
    /// A trim of a zone with a write pointer: a zone reset, and nothing else is sent.
    ResetOnly(u32),
    /// The job has nothing more to do (fio's `io_u_eof`).
    Eof,
}

/// The zones of one device (or file, emulated) and the write target zones every job on it
/// shares (fio's `zoned_block_device_info`).
#[derive(Debug, Clone)]
pub struct ZbdDevice {
    zones: Vec<HostZone>,
    /// Where the last zone ends (fio's sentinel).
    end: u64,
    zone_size: u64,
    /// Zones reported by a zoned device (host-managed); false: emulated.
    pub host_managed: bool,
    /// The device's open limit (0: none or emulated).
    dev_max_open: u32,
    dev_max_active: u32,
    /// fio's `max_write_zones`: 0 no limit; set by the first job.
    max_write_zones: Option<u32>,
    write_zones: Vec<u32>,
    write_cnt: u32,
    /// Bytes below the write pointers of the zones in the writers' range (fio's
    /// `wp_valid_data_bytes`), with that range.
    valid_bytes: u64,
    write_range: Option<(u32, u32)>,
}

/// One job's side of the zoned mode (fio's per-thread zone state).
#[derive(Debug, Clone)]
pub struct ZbdJob {
    min_zone: u32,
    max_zone: u32,
    /// The job's region: [file_offset, file_offset + io_size).
    pub file_offset: u64,
    /// Bytes of the region.
    pub io_size: u64,
    writes: bool,
    random: bool,
    verify: bool,
    min_bs: [u64; 3],
    read_beyond_wp: bool,
    job_max_open: u32,
    num_write_zones: u32,
    reset_threshold: f64,
    reset_frequency: f64,
    /// Sequential jobs: where the next I/O of each direction starts (fio's `last_pos`).
    last_pos: [u64; 3],
    /// Sequential jobs: passes over the region each direction has finished.
    passes: [u32; 3],
    /// Zone resets this job did (fio's `nr_zone_resets`).
    pub resets: u64,
    /// The job writes or trims: fio reports its zone resets.
    pub counts_resets: bool,
}

/// A sequential zbd job whose pass over its region in direction `dir` just ended
/// ([`ZbdDevice::seq_offset`]) stops there unless it has a byte count to reach (`io_size`),
/// runs for its time, or has loops left: fio's `keep_running` ends a job whose files are done
/// when it has no `io_size`, even with fewer bytes than its size (a zone's unwritable tail
/// holds none), and goes on otherwise.
pub fn pass_ends_job(j: &ZbdJob, dir: u8, io_size_given: bool, time_based: bool, loops: u32) -> bool {
    !io_size_given && !time_based && j.passes[dir as usize] >= loops.max(1)
}

impl ZbdDevice {
    /// The zones of a zoned device's report (`flashsim::Device::report_zones`), with its open
    /// and active limits.
    pub fn from_report(report: &[flashsim::Zone], max_open: u32, max_active: u32) -> ZbdDevice {
        use flashsim::ZoneState as S;
        let zones: Vec<HostZone> = report
            .iter()
            .map(|z| {
                let cond = match z.state {
                    S::Empty => Cond::Empty,
                    S::Full => Cond::Full,
                    S::ReadOnly => Cond::ReadOnly,
                    S::Offline => Cond::Offline,
                    _ => Cond::Open,
                };
                let wp = if cond == Cond::Full { z.start + z.capacity } else { z.wp };
                HostZone { start: z.start, capacity: z.capacity, wp, cond, write: false }
            })
            .collect();
        let zone_size = report.first().map_or(0, |z| z.size);
        let end = report.last().map_or(0, |z| z.start + z.size);
        ZbdDevice {
            zones,
            end,
            zone_size,
            host_managed: true,
            dev_max_open: max_open,
            dev_max_active: max_active,
            max_write_zones: None,
            write_zones: Vec::new(),
            write_cnt: 0,
            valid_bytes: 0,
            write_range: None,
        }
    }

    /// Zones emulated over a conventional device or file of `size` bytes (fio's
    /// `init_zone_info`): `zone_size` each, the last one shorter, `capacity` writable (0: the
    /// zone size). Errors are fio's.
    pub fn emulated(name: &str, size: u64, zone_size: u64, capacity: u64) -> Result<ZbdDevice, String> {
        if zone_size == 0 {
            return Err(format!(
                "{name}: specifying the zone size is mandatory for a conventional device with zonemode=zbd (zonesize)"
            ));
        }
        if zone_size < 512 {
            return Err(format!("{name}: zone size must be at least 512 bytes for zonemode=zbd"));
        }
        let capacity = if capacity == 0 { zone_size } else { capacity };
        if capacity > zone_size {
            return Err(format!("{name}: zonecapacity {capacity} is larger than zone size {zone_size}"));
        }
        if size < zone_size {
            return Err(format!("{name}: file/device size {size} is smaller than zone size {zone_size}"));
        }
        let n = size.div_ceil(zone_size);
        let zones = (0..n)
            .map(|i| HostZone { start: i * zone_size, capacity, wp: i * zone_size, cond: Cond::Empty, write: false })
            .collect();
        Ok(ZbdDevice {
            zones,
            end: n * zone_size,
            zone_size,
            host_managed: false,
            dev_max_open: 0,
            dev_max_active: 0,
            max_write_zones: None,
            write_zones: Vec::new(),
            write_cnt: 0,
            valid_bytes: 0,
            write_range: None,
        })
    }

    /// Bytes per zone.
    pub fn zone_size(&self) -> u64 {
        self.zone_size
    }

    /// The host's copy of the zones.
    pub fn zones(&self) -> &[HostZone] {
        &self.zones
    }

    /// The write target zones now (fio's `write_zones`).
    pub fn write_zones(&self) -> &[u32] {
        &self.write_zones
    }

    /// The limit on zones written at once in force (0: none).
    pub fn max_write_zones(&self) -> u32 {
        self.max_write_zones.unwrap_or(0)
    }

    fn zone_of(&self, off: u64) -> u32 {
        (off / self.zone_size.max(1)).min(self.zones.len().saturating_sub(1) as u64) as u32
    }

    fn zone_end(&self, z: u32) -> u64 {
        self.zones.get(z as usize + 1).map_or(self.end, |n| n.start)
    }

    /// Sets up job `job` over [offset, offset + io_size) of the device (fio's
    /// `zbd_set_max_write_zones`, `zbd_zone_align_file_sizes`, `zbd_verify_bs` and
    /// `zbd_setup_files`): the region rounded to whole zones as fio rounds it, the limits
    /// checked. `name` is the device or file for messages. Errors are fio's, naming the option.
    pub fn setup_job(&mut self, job: &Job, name: &str, offset: u64, io_size: u64) -> Result<ZbdJob, String> {
        let z = &job.zoned;
        let writes = job.rw.has_writes();
        // fio's zbd_set_max_write_zones, once per device (its first job).
        let limit = if !self.host_managed || z.ignore_zone_limits || self.dev_max_open == 0 {
            z.max_open_zones
        } else if z.max_open_zones == 0 {
            self.dev_max_open
        } else if z.max_open_zones <= self.dev_max_open {
            z.max_open_zones
        } else {
            return Err(format!(
                "{name}: option 'max_open_zones': {} is larger than the device's limit {} (fio: \"Specified --max_open_zones is too large\"; ignore_zone_limits=1 lifts it)",
                z.max_open_zones, self.dev_max_open
            ));
        };
        match self.max_write_zones {
            None => self.max_write_zones = Some(limit),
            Some(m) if z.max_open_zones > 0 && m != z.max_open_zones => {
                return Err(format!(
                    "{name}: option 'max_open_zones': different values for jobs on one device ({} and {m}; fio: \"Different 'max_open_zones' values\")",
                    z.max_open_zones
                ))
            }
            Some(_) => {}
        }
        if self.host_managed && z.size > 0 && z.size != self.zone_size {
            return Err(format!(
                "{name}: option 'zonesize': {} does not match the device's zone size {} (fio refuses the job; leave zonesize out to take the device's)",
                z.size, self.zone_size
            ));
        }
        let mut offset = offset;
        let mut io_size = io_size.min(self.end.saturating_sub(offset));
        // fio's zbd_zone_align_file_sizes: reads keep their start and end at a zone start;
        // writes start at the next zone start and end at one.
        if offset < self.end && io_size > 0 {
            if job.rw.has_reads() && !writes && !job.rw.has_trims() {
                let end_zone = self.zone_of(offset + io_size);
                let new_end = if offset + io_size >= self.end { self.end } else { self.zones[end_zone as usize].start };
                if offset + io_size > new_end {
                    io_size = new_end - offset;
                }
            } else {
                let zb = self.zone_of(offset);
                if offset != self.zones[zb as usize].start {
                    let new_offset = self.zone_end(zb);
                    if new_offset >= offset + io_size {
                        return Err(format!("{name}: option 'size': io_size must be at least one zone (fio)"));
                    }
                    io_size -= new_offset - offset;
                    offset = new_offset;
                }
                let end = offset + io_size;
                let new_end = if end >= self.end { self.end } else { self.zones[self.zone_of(end) as usize].start };
                if end != new_end {
                    if new_end <= offset {
                        return Err(format!("{name}: option 'size': io_size must be at least one zone (fio)"));
                    }
                    io_size = new_end - offset;
                }
            }
        }
        if io_size == 0 {
            return Err(format!("{name}: option 'offset': the job's region [{offset}, +{io_size}) holds no zone"));
        }
        // fio's zbd_verify_bs: trims are whole zones.
        if job.rw.has_trims() {
            if job.bs_mix.is_some() {
                return Err(format!(
                    "{name}: option 'bssplit': bsrange and bssplit are not allowed for trim with zonemode=zbd"
                ));
            }
            if job.bs_trim != self.zone_size {
                return Err(format!(
                    "{name}: option 'bs': trim block size {} is not the zone size {} (fio's rule with zonemode=zbd)",
                    job.bs_trim, self.zone_size
                ));
            }
        }
        let min_zone = self.zone_of(offset);
        let max_zone =
            if offset + io_size >= self.end { self.zones.len() as u32 } else { self.zone_of(offset + io_size) };
        let max_write = self.max_write_zones();
        if writes && z.job_max_open_zones > 0 && max_write == 0 {
            return Err(format!(
                "{name}: option 'job_max_open_zones': cannot be used without a global open zones limit (max_open_zones; fio's rule)"
            ));
        }
        let mut job_z = ZbdJob {
            min_zone,
            max_zone,
            file_offset: offset,
            io_size,
            writes,
            random: job.rw.is_random(),
            verify: job.verify.enabled(),
            min_bs: [job.bs_read, job.bs_write, job.bs_trim].map(|b| b.max(1)),
            read_beyond_wp: z.read_beyond_wp,
            job_max_open: z.job_max_open_zones,
            num_write_zones: 0,
            reset_threshold: z.reset_threshold,
            reset_frequency: z.reset_frequency,
            last_pos: [offset; 3],
            passes: [0; 3],
            resets: 0,
            counts_resets: writes || job.rw.has_trims(),
        };
        // fio's zbd_verify_and_set_vdb: the writers' range and its valid bytes.
        if z.reset_threshold > 0.0 && writes {
            match self.write_range {
                None => {
                    self.write_range = Some((min_zone, max_zone));
                    self.valid_bytes = (min_zone..max_zone)
                        .map(|i| {
                            let z = &self.zones[i as usize];
                            z.wp.saturating_sub(z.start)
                        })
                        .sum();
                }
                Some(r) if r != (min_zone, max_zone) => {
                    return Err(format!(
                        "{name}: option 'zone_reset_threshold': jobs with different write ranges are not supported with zone_reset_threshold (fio's rule)"
                    ))
                }
                Some(_) => {}
            }
        }
        self.reset_write_cnt(job_z.reset_frequency);
        if writes {
            // Zones open at the start count against the limit (fio: open zones, and closed
            // ones when the device has an active limit).
            for zi in min_zone..max_zone {
                let zc = self.zones[zi as usize];
                if zc.cond != Cond::Open || zc.wp == zc.start && self.dev_max_active == 0 {
                    continue;
                }
                if !self.write_zone_get(&mut job_z, zi) {
                    return Err(format!(
                        "{name}: option 'max_open_zones': the number of open zones exceeds the max_open_zones limit (fio)"
                    ));
                }
            }
        }
        Ok(job_z)
    }

    fn reset_write_cnt(&mut self, freq: f64) {
        self.write_cnt = if freq > 0.0 { (1.0 / freq).min(f64::from(u32::MAX)) as u32 } else { u32::MAX };
    }

    fn dec_and_reset_write_cnt(&mut self, freq: f64) -> bool {
        if self.write_cnt > 0 {
            self.write_cnt -= 1;
        }
        if self.write_cnt == 0 {
            self.reset_write_cnt(freq);
            return true;
        }
        false
    }

    /// fio's `__zbd_write_zone_get`: zone `zi` is (or becomes) a write target zone.
    fn write_zone_get(&mut self, j: &mut ZbdJob, zi: u32) -> bool {
        let z = self.zones[zi as usize];
        if z.cond == Cond::Offline || z.cond == Cond::ReadOnly {
            return false;
        }
        if j.verify && z.full(j.min_bs[1]) {
            return false;
        }
        let max = self.max_write_zones();
        if max == 0 {
            return true;
        }
        if z.write {
            return z.remainder() > 0;
        }
        if j.job_max_open > 0 && j.num_write_zones >= j.job_max_open {
            return false;
        }
        if self.write_zones.len() as u32 >= max {
            return false;
        }
        self.write_zones.push(zi);
        j.num_write_zones += 1;
        self.zones[zi as usize].write = true;
        true
    }

    /// fio's `zbd_write_zone_put`.
    fn write_zone_put(&mut self, j: &mut ZbdJob, zi: u32) {
        if !self.zones[zi as usize].write {
            return;
        }
        if let Some(p) = self.write_zones.iter().position(|&w| w == zi) {
            self.write_zones.remove(p);
            j.num_write_zones = j.num_write_zones.saturating_sub(1);
        }
        self.zones[zi as usize].write = false;
    }

    /// fio's `pick_random_zone_idx` and `zbd_pick_write_zone`: a write target zone in the job's
    /// range, starting from one the I/O's offset picks.
    fn pick_write_zone(&self, j: &ZbdJob, off: u64) -> Option<u32> {
        let n = self.write_zones.len();
        if n == 0 {
            return None;
        }
        let mut k = self.pick_index(j, off);
        for _ in 0..n {
            if k >= n {
                k = 0;
            }
            let zi = self.write_zones[k];
            if j.min_zone <= zi && zi < j.max_zone {
                return Some(zi);
            }
            k += 1;
        }
        None
    }

    fn pick_index(&self, j: &ZbdJob, off: u64) -> usize {
        let n = self.write_zones.len() as u128;
        (u128::from(off.saturating_sub(j.file_offset)) * n / u128::from(j.io_size.max(1))) as usize
    }

    /// The next sequential I/O's offset for a sequential zbd job (fio's `last_pos`, with the
    /// jump from a zone's capacity to its end of `setup_zbd_zone_mode`), and whether the pass
    /// over the region ended before it: the position wrapped to the region's start. The bytes
    /// jumped over are no I/O and do not count towards the job's size (fio keeps them in
    /// `io_skip_bytes`, which nothing reads); a pass ends at the region's end instead, and the
    /// caller decides whether the job goes on ([`pass_ends_job`]).
    pub fn seq_offset(&self, j: &mut ZbdJob, dir: u8, len: u64) -> (u64, bool) {
        let d = dir as usize;
        let pos = j.last_pos[d];
        if pos < self.end && dir == 1 {
            let z = &self.zones[self.zone_of(pos) as usize];
            if z.capacity < self.zone_size && pos >= z.cap_end() {
                j.last_pos[d] = self.zone_end(self.zone_of(pos));
            }
        }
        let wrapped = j.last_pos[d] + len.min(j.min_bs[d]) > j.file_offset + j.io_size;
        if wrapped {
            j.last_pos[d] = j.file_offset;
            j.passes[d] += 1;
        }
        (j.last_pos[d], wrapped)
    }

    /// fio's `zbd_find_zone`: a zone near `zb` with at least `min_bytes` written, in the
    /// job's range (forward for sequential jobs, both ways for random ones).
    fn find_zone(&self, j: &ZbdJob, zb: u32, min_bytes: u64) -> Option<u32> {
        let readable = |zi: u32| {
            let z = &self.zones[zi as usize];
            z.cond != Cond::Offline && z.start + min_bytes <= z.wp
        };
        let (mut z1, mut z2) = (i64::from(zb) + 1, i64::from(zb) - 1);
        let (lo, hi) = (i64::from(j.min_zone), i64::from(j.max_zone));
        while z1 < hi || z2 >= lo {
            if z1 < hi {
                if readable(z1 as u32) {
                    return Some(z1 as u32);
                }
            } else if !j.random {
                break;
            }
            if j.random && z2 >= lo && readable(z2 as u32) {
                return Some(z2 as u32);
            }
            z1 += 1;
            z2 -= 1;
        }
        None
    }

    /// fio's `zbd_adjust_block`: what job `j`'s I/O in direction `dir` (0 read, 1 write,
    /// 2 trim) at device offset `off` of `len` bytes becomes. Zone commands it needs first are
    /// handed to `cmd` in order (a reset is counted in the job's `resets`); `Err` is a job error
    /// in fio's words.
    pub fn adjust(
        &mut self,
        j: &mut ZbdJob,
        dir: u8,
        off: u64,
        len: u64,
        cmd: &mut dyn FnMut(ZoneCmd) -> Result<(), String>,
    ) -> Result<Adjusted, String> {
        if off >= self.end {
            return Ok(Adjusted::Eof);
        }
        let min_bs = j.min_bs[dir as usize];
        let orig = self.zone_of(off);
        let mut zb = orig;
        let zc = self.zones[zb as usize];
        match dir {
            0 => {
                if zc.cond != Cond::Offline && j.read_beyond_wp {
                    return Ok(Adjusted::Io { off, len });
                }
                let mut off = off;
                let mut len = len;
                let mut range = if zc.cond != Cond::Offline { zc.wp - zc.start } else { 0 };
                if range < min_bs || (!j.random && off + min_bs > zc.wp) {
                    let Some(z) = self.find_zone(j, zb, min_bs) else { return Ok(Adjusted::Eof) };
                    zb = z;
                    let z = self.zones[zb as usize];
                    range = z.wp - z.start;
                    if !j.random {
                        off = z.start;
                    }
                }
                let z = self.zones[zb as usize];
                if range <= len {
                    off = z.start;
                } else if j.random {
                    off = z.start + ((off - self.zones[orig as usize].start) % (range - len)) / min_bs * min_bs;
                }
                let new_len = len.min(z.wp.saturating_sub(off)) / min_bs * min_bs;
                if new_len < len {
                    len = new_len;
                }
                if len == 0 {
                    return Ok(Adjusted::Eof);
                }
                Ok(Adjusted::Io { off, len })
            }
            1 => {
                if len > self.zone_size {
                    return Err(format!("I/O buflen {len} exceeds zone size {} (fio: EINVAL)", self.zone_size));
                }
                let mut zb = zb;
                loop {
                    let Some(z) = self.convert_to_write_zone(j, off, zb, cmd)? else { return Ok(Adjusted::Eof) };
                    zb = z;
                    let r = self.zones[zb as usize].remainder();
                    if r > 0 && r < min_bs {
                        continue;
                    }
                    break;
                }
                let mut reset = false;
                if j.reset_frequency > 0.0 {
                    let threshold = j.io_size as f64 * j.reset_threshold;
                    if self.valid_bytes as f64 >= threshold && self.dec_and_reset_write_cnt(j.reset_frequency) {
                        reset = true;
                    }
                }
                if reset || self.zones[zb as usize].full(min_bs) {
                    self.reset_zone(j, zb, false, cmd)?;
                    let z = self.zones[zb as usize];
                    if z.capacity < min_bs {
                        return Err(format!(
                            "zone capacity {} smaller than minimum block size {min_bs} (fio: ZCAP is less min_bs)",
                            z.capacity
                        ));
                    }
                }
                let z = self.zones[zb as usize];
                let off = z.wp;
                let new_len = len.min(z.cap_end() - off) / min_bs * min_bs;
                if new_len == len || new_len >= min_bs {
                    return Ok(Adjusted::Io { off, len: new_len });
                }
                Err(format!("zone remainder {} smaller than min block size {min_bs} (fio: EIO)", z.cap_end() - off))
            }
            _ => {
                if !j.random || zc.wp > zc.start {
                    return self.trim(j, zb, off, cmd);
                }
                match self.find_zone(j, zb, 1) {
                    Some(z) => {
                        let start = self.zones[z as usize].start;
                        self.trim(j, z, start, cmd)
                    }
                    None => Ok(Adjusted::Eof),
                }
            }
        }
    }

    /// fio's `zbd_do_io_u_trim`: a trim of a zone with a write pointer resets it.
    fn trim(
        &mut self,
        j: &mut ZbdJob,
        zi: u32,
        off: u64,
        cmd: &mut dyn FnMut(ZoneCmd) -> Result<(), String>,
    ) -> Result<Adjusted, String> {
        if off != self.zones[zi as usize].start {
            return Err(format!("Trim offset not at zone start ({off})"));
        }
        self.reset_zone(j, zi, true, cmd)?;
        Ok(Adjusted::ResetOnly(zi))
    }

    /// fio's `__zbd_reset_zone` (and with `put`, `zbd_reset_zone`): an empty zone needs
    /// nothing; otherwise the device resets it (a host-managed one), the valid bytes drop and
    /// the job counts a reset.
    fn reset_zone(
        &mut self,
        j: &mut ZbdJob,
        zi: u32,
        put: bool,
        cmd: &mut dyn FnMut(ZoneCmd) -> Result<(), String>,
    ) -> Result<(), String> {
        let z = self.zones[zi as usize];
        let data = z.wp - z.start;
        if data > 0 || z.cond == Cond::Full {
            if self.host_managed {
                cmd(ZoneCmd::Reset(zi))?;
            }
            if j.reset_threshold > 0.0 && j.writes {
                self.valid_bytes = self.valid_bytes.saturating_sub(data);
            }
            let z = &mut self.zones[zi as usize];
            z.wp = z.start;
            z.cond = Cond::Empty;
            j.resets += 1;
        }
        if put {
            self.write_zone_put(j, zi);
        }
        Ok(())
    }

    fn finish_zone(
        &mut self,
        j: &mut ZbdJob,
        zi: u32,
        cmd: &mut dyn FnMut(ZoneCmd) -> Result<(), String>,
    ) -> Result<(), String> {
        if self.host_managed {
            cmd(ZoneCmd::Finish(zi))?;
        }
        let z = &mut self.zones[zi as usize];
        z.wp = z.cap_end();
        z.cond = Cond::Full;
        self.write_zone_put(j, zi);
        Ok(())
    }

    /// fio's `zbd_convert_to_write_zone`: the zone job `j`'s write goes to, made a write target
    /// zone; `None`: none can be (the job ends).
    fn convert_to_write_zone(
        &mut self,
        j: &mut ZbdJob,
        off: u64,
        zb: u32,
        cmd: &mut dyn FnMut(ZoneCmd) -> Result<(), String>,
    ) -> Result<Option<u32>, String> {
        let min_bs = j.min_bs[1];
        let mut zb = zb;
        let r = self.zones[zb as usize].remainder();
        if r > 0 && r < min_bs {
            // A remainder no block fits: finish the zone and go on to the next.
            self.finish_zone(j, zb, cmd)?;
            if zb + 1 >= j.max_zone && !j.random {
                return Ok(None);
            }
            zb += 1;
            if zb >= j.max_zone {
                zb = j.min_zone;
            }
        }
        if self.write_zone_get(j, zb) {
            return Ok(Some(zb));
        }
        let limited = self.max_write_zones() > 0 || j.job_max_open > 0;
        let mut zi = if limited {
            self.write_zones.get(self.pick_index(j, off)).copied().unwrap_or(0)
        } else {
            self.zone_of(off)
        };
        zi = zi.clamp(j.min_zone, j.max_zone.saturating_sub(1).max(j.min_zone));
        let mut examine = !limited;
        if limited && !self.write_zones.is_empty() {
            loop {
                let Some(n) = self.pick_write_zone(j, off) else { return Ok(None) };
                if n == zi {
                    examine = true;
                    break;
                }
                zi = n;
            }
        }
        if examine && self.zones[zi as usize].cond != Cond::Offline && self.zones[zi as usize].remainder() >= min_bs {
            return Ok(Some(zi));
        }
        // Choose another zone: a random job first retries the zone its offset picked.
        let mut z = zi;
        if j.random {
            if self.write_zone_get(j, zb) {
                return Ok(Some(zb));
            }
            z = zb;
        }
        let tries = j.io_size / self.zone_size.max(1);
        for _ in 0..tries {
            z += 1;
            if z >= j.max_zone || self.zones.get(z as usize).is_none_or(|c| c.start >= j.file_offset + j.io_size) {
                z = j.min_zone;
            }
            if self.zones[z as usize].write {
                continue;
            }
            if self.write_zone_get(j, z) {
                return Ok(Some(z));
            }
        }
        // A write target zone the write still fits.
        for k in 0..self.write_zones.len() {
            let w = self.write_zones[k];
            if w < j.min_zone || w >= j.max_zone {
                continue;
            }
            if self.zones[w as usize].remainder() >= min_bs && self.write_zone_get(j, w) {
                return Ok(Some(w));
            }
        }
        if j.random && !j.verify {
            // Every write target zone has a remainder smaller than a block: finish one.
            if let Some(w) = self.pick_write_zone(j, off) {
                self.finish_zone(j, w, cmd)?;
                return Ok(Some(w));
            }
        }
        Ok(None)
    }

    /// Job `j`'s I/O went to the device: a write moves its zone's write pointer (fio's
    /// `zbd_queue_io`), and a zone written to its capacity leaves the write target zones.
    pub fn queued(&mut self, j: &mut ZbdJob, dir: u8, off: u64, len: u64) {
        if !j.random {
            j.last_pos[dir as usize] = off + len;
        }
        if dir != 1 || off >= self.end {
            return;
        }
        let zi = self.zone_of(off);
        let accounting = j.reset_threshold > 0.0 && j.writes;
        let z = &mut self.zones[zi as usize];
        let end = (off + len).min(z.cap_end());
        if accounting && z.wp <= end {
            self.valid_bytes += end - z.wp;
        }
        let z = &mut self.zones[zi as usize];
        z.wp = end;
        z.cond = if end >= z.cap_end() { Cond::Full } else { Cond::Open };
        if off + len >= z.cap_end() {
            self.write_zone_put(j, zi);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &str) -> Job {
        flashlab_jobs::parse_jobfile("t.fio", &format!("[j]\n{text}")).unwrap().jobs.remove(0)
    }

    fn no_cmd(_: ZoneCmd) -> Result<(), String> {
        Ok(())
    }

    #[test]
    fn sequential_writes_follow_the_write_pointer_and_reset_full_zones() {
        let mut d = ZbdDevice::emulated("f", 4 << 20, 1 << 20, 0).unwrap();
        let j0 = job("rw=write\nbs=256k\nzonemode=zbd\nzonesize=1m\n");
        let mut j = d.setup_job(&j0, "f", 0, 4 << 20).unwrap();
        let mut offs = Vec::new();
        for _ in 0..20 {
            let (off, _) = d.seq_offset(&mut j, 1, 256 << 10);
            let Adjusted::Io { off, len } = d.adjust(&mut j, 1, off, 256 << 10, &mut no_cmd).unwrap() else { panic!() };
            d.queued(&mut j, 1, off, len);
            offs.push(off >> 10);
        }
        // 16 writes fill the four zones; the 17th wraps to zone 0, full: reset, written again.
        assert_eq!(&offs[..5], &[0, 256, 512, 768, 1024]);
        assert_eq!(&offs[16..], &[0, 256, 512, 768]);
        assert_eq!(j.resets, 1);
    }

    #[test]
    fn open_limit_bounds_the_zones_written() {
        let mut d = ZbdDevice::emulated("f", 64 << 20, 1 << 20, 0).unwrap();
        let j0 = job("rw=randwrite\nbs=64k\nzonemode=zbd\nzonesize=1m\nmax_open_zones=3\n");
        let mut j = d.setup_job(&j0, "f", 0, 64 << 20).unwrap();
        let mut rng = crate::rng::Rng::new(5);
        let mut zones = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let off = rng.below(1024) * (64 << 10);
            let Adjusted::Io { off, len } = d.adjust(&mut j, 1, off, 64 << 10, &mut no_cmd).unwrap() else { panic!() };
            assert!(d.write_zones().len() <= 3);
            let z = &d.zones()[(off >> 20) as usize];
            assert_eq!(off, z.wp, "writes go to the write pointer");
            d.queued(&mut j, 1, off, len);
            zones.insert(off >> 20);
        }
        assert!(zones.len() > 3, "full zones leave the write targets and new ones join");
    }

    #[test]
    fn reads_stay_below_the_write_pointer() {
        let mut d = ZbdDevice::emulated("f", 4 << 20, 1 << 20, 0).unwrap();
        let w = job("rw=write\nbs=128k\nzonemode=zbd\nzonesize=1m\n");
        let mut jw = d.setup_job(&w, "f", 0, 4 << 20).unwrap();
        for _ in 0..3 {
            let (off, _) = d.seq_offset(&mut jw, 1, 128 << 10);
            let Adjusted::Io { off, len } = d.adjust(&mut jw, 1, off, 128 << 10, &mut no_cmd).unwrap() else {
                panic!()
            };
            d.queued(&mut jw, 1, off, len);
        }
        let r = job("rw=randread\nbs=64k\nzonemode=zbd\nzonesize=1m\n");
        let mut jr = d.setup_job(&r, "f", 0, 4 << 20).unwrap();
        for k in 0..64 {
            match d.adjust(&mut jr, 0, k * (64 << 10), 64 << 10, &mut no_cmd).unwrap() {
                Adjusted::Io { off, len } => assert!(off + len <= 384 << 10, "{off} {len}"),
                other => panic!("{other:?}"),
            }
        }
        let r = job("rw=randread\nbs=64k\nzonemode=zbd\nzonesize=1m\nread_beyond_wp=1\n");
        let mut jr = d.setup_job(&r, "f", 0, 4 << 20).unwrap();
        assert_eq!(
            d.adjust(&mut jr, 0, 3 << 20, 64 << 10, &mut no_cmd).unwrap(),
            Adjusted::Io { off: 3 << 20, len: 64 << 10 }
        );
    }
}
