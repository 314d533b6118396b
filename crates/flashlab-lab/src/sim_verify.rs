//! fio's `verify` on a simulated device: does the device return the last data written to
//! every block? A simulated device stores no data, so data is modelled as a tag per 4 KiB
//! unit that the FTL carries with the unit through its write buffer, programs, GC copies and
//! trims (flashsim's content tracking, the mechanism of its "reads return the last write"
//! property tests). Every write a verifying job issues carries a new tag
//! ([`crate::system::IoHints`]); the verifier remembers, per unit of the job's region,
//! the tag of the last write that covered it (fio's in-memory log of written blocks). Reading
//! back, it issues real simulated reads (they cost device time and are reported as reads, as
//! fio's are) and compares what the FTL's mapping returns now ([`flashsim::Device::peek`],
//! through the filesystem's extents to the device unit) with what was written.
//!
//! A mismatch is a simulator bug (an FTL that lost or misplaced a unit), never a device
//! fault: the check is what makes `verify` on `sim:*` worth running after a change to the FTL.
//! Checksums, headers and patterns are not modelled: their cost is host CPU, not device time.
//!
//! Cost: content tracking keeps one `u64` per physical unit of the device (8 bytes per 4 KiB
//! of NAND: 36 MiB for a 16 GiB device), and the verifier one `u64` per 4 KiB of the region.
//! Supported on the raw device and the in-place filesystems (`plain`, `ext4`), whose file
//! blocks stay where they were allocated; the F2FS model moves blocks in its cleaning without
//! carrying their data, so verify there is an error.

use crate::system::{SimSystem, SysError};
use flashlab_jobs::verify::{VerifyMethod, VerifyOptions};
use flashlab_measure::{VerifyMismatch, VerifySummary};
use flashlab_simfs::FileId;
use flashsim::{Ns, Op, MAP_UNIT};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Tags of different verifiers never collide (a file shared by two jobs, a later group).
static NEXT_TAG_BASE: AtomicU64 = AtomicU64::new(1);
/// What each verifier's writes lay down, by tag base: what fio's header (method, length) and
/// data area (pattern) would say, for a later job that only reads to check.
static WRITERS: Mutex<Vec<(u64, Layout)>> = Mutex::new(Vec::new());

/// The verify layout a writer gives its blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    method: VerifyMethod,
    interval: u64,
    pattern: Vec<u8>,
}

impl Layout {
    fn of(o: &VerifyOptions) -> Layout {
        Layout { method: o.method, interval: o.interval, pattern: o.pattern.clone() }
    }
}

fn writer_layout(tag_base: u64) -> Option<Layout> {
    let w = WRITERS.lock().unwrap_or_else(|e| e.into_inner());
    w.iter().find(|(b, _)| *b == tag_base).map(|(_, l)| l.clone())
}

const TAG_BITS: u32 = 40;

/// A failed check: (which check, expected, received); `None` when it passes.
type Mismatch = Option<(&'static str, String, String)>;
/// An `expected` entry's flag: read back since its last write (fio drops a verified block from
/// its log, so the pass after the writes skips it).
const VERIFIED: u64 = 1 << 63;

/// One job's verification on a simulated system.
#[derive(Debug)]
pub struct SimVerifier {
    opts: VerifyOptions,
    file: FileId,
    /// The job's region of its file: [base, base + span).
    base: u64,
    /// Per 4 KiB unit of the region (unit 0 is the one holding byte `base`): the tag of the
    /// last write that covered it (0: none).
    expected: Vec<u64>,
    tag_base: u64,
    writes: u64,
    recent: VecDeque<(u64, u64)>,
    queue: VecDeque<(u64, u64)>,
    aborted: bool,
    /// The job only reads: every read checks what an earlier verifying writer left
    /// ([`SimVerifier::read_only`]).
    read_only: bool,
    /// The last writer a read-only job's check met (tag base, what is wrong with its blocks
    /// for this reader, `None`: nothing): reads mostly meet one writer's blocks in a row, so the
    /// registry is consulted once per run of them.
    last_writer: Option<(u64, Mismatch)>,
    /// What was found.
    pub(crate) summary: VerifySummary,
}

/// How a read-back went: (virtual completion time, bytes read).
pub(crate) type ReadBack = (Ns, u64);

impl SimVerifier {
    /// A verifier for a job over [base, base + span) of `file` on `sys`, which it switches
    /// content tracking on for; `None` when the job does not verify.
    pub fn new(
        sys: &mut SimSystem,
        opts: &VerifyOptions,
        file: FileId,
        base: u64,
        span: u64,
    ) -> Result<Option<SimVerifier>, crate::Error> {
        if !opts.enabled() {
            return Ok(None);
        }
        if file != FileId::RAW && sys.fs().inplace().is_none() {
            return Err(crate::Error::VerifyUnsupported { filesystem: sys.fs().config().label() });
        }
        sys.track_content();
        let first = base / MAP_UNIT;
        let units = (base + span).div_ceil(MAP_UNIT) - first;
        let tag_base = NEXT_TAG_BASE.fetch_add(1, Ordering::Relaxed) << TAG_BITS;
        WRITERS.lock().unwrap_or_else(|e| e.into_inner()).push((tag_base, Layout::of(opts)));
        Ok(Some(SimVerifier {
            opts: opts.clone(),
            file,
            base: first * MAP_UNIT,
            expected: vec![0; units as usize],
            tag_base,
            writes: 0,
            recent: VecDeque::new(),
            queue: VecDeque::new(),
            aborted: false,
            read_only: false,
            last_writer: None,
            summary: VerifySummary::new("sim-tag"),
        }))
    }

    /// For a job that only reads (fio's read-only verify job, e.g. the second phase of a
    /// write-then-scan pair): every block it reads is checked as it completes, against what
    /// an earlier job wrote there with verify on (fio checks the headers it finds: magic,
    /// length, offset, checksum type, pattern; not which write it was, as a reader cannot
    /// know). A unit that holds zeros (never written, or trimmed), data written without verify,
    /// or another verify layout (interval, checksum, pattern) is a mismatch, as fio's bad magic,
    /// bad length or checksum are. Nothing is read back afterwards.
    pub fn read_only(mut self) -> SimVerifier {
        self.read_only = true;
        self.expected = Vec::new();
        self
    }

    /// The job only reads ([`SimVerifier::read_only`]).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// A read-only job's read of `len` bytes at file offset `off` was issued: check every
    /// 4 KiB unit it covers against what the device returns now.
    pub(crate) fn check_read(&mut self, sys: &SimSystem, off: u64, len: u64) {
        let first = off / MAP_UNIT;
        let end = (off + len).div_ceil(MAP_UNIT);
        let mine = Layout::of(&self.opts);
        for unit in first..end {
            if self.aborted {
                return;
            }
            let unit_off = unit * MAP_UNIT;
            self.summary.blocks_verified += 1;
            self.summary.bytes_verified += MAP_UNIT;
            let got = self.device_offset(sys, unit_off).map(|d| sys.device().peek((d / MAP_UNIT) as u32));
            let (check, expected, received) = match got {
                None | Some(None) | Some(Some(0)) => {
                    let received = match got {
                        None => "no device block (unmapped in the filesystem)",
                        Some(None) => "zeros (never written, or trimmed)",
                        _ => "data written without verify",
                    };
                    (
                        "header magic",
                        format!("a block written with verify={}", mine.method.name()),
                        received.to_string(),
                    )
                }
                Some(Some(t)) => match self.writer(t & !((1u64 << TAG_BITS) - 1), &mine) {
                    None => continue,
                    Some(m) => m,
                },
            };
            self.summary.record_mismatch(VerifyMismatch {
                offset: unit_off,
                len: MAP_UNIT,
                check: check.into(),
                expected,
                received,
            });
            if self.opts.fatal || !self.opts.continue_on_error {
                self.aborted = true;
            }
        }
    }

    /// What a reader of layout `mine` finds wrong in the blocks of the writer whose tags
    /// start at `tag_base` (`None`: they pass).
    fn writer(&mut self, tag_base: u64, mine: &Layout) -> Mismatch {
        if let Some((b, m)) = &self.last_writer {
            if *b == tag_base {
                return m.clone();
            }
        }
        let m = match writer_layout(tag_base) {
            None => Some(("header magic", "a block written with verify".into(), format!("tag base {tag_base:#x}"))),
            Some(w) => layout_mismatch(mine, &w),
        };
        self.last_writer = Some((tag_base, m.clone()));
        m
    }

    /// The tag the next write (`len` bytes at file offset `off`) carries; the units it covers
    /// now expect it.
    pub(crate) fn tag_write(&mut self, off: u64, len: u64) -> u64 {
        self.writes += 1;
        let tag = self.tag_base | self.writes;
        for u in self.units(off, len) {
            if let Some(e) = self.expected.get_mut(u) {
                *e = tag;
            }
        }
        tag
    }

    fn units(&self, off: u64, len: u64) -> std::ops::Range<usize> {
        let a = (off.saturating_sub(self.base) / MAP_UNIT) as usize;
        let b = ((off + len).saturating_sub(self.base)).div_ceil(MAP_UNIT) as usize;
        a..b
    }

    /// A write completed: with a backlog it may now be due for reading back.
    pub fn written(&mut self, off: u64, len: u64) {
        if self.opts.backlog == 0 || self.aborted {
            return;
        }
        self.recent.push_back((off, len));
        if self.recent.len() as u64 >= self.opts.backlog {
            for _ in 0..self.opts.batch().min(self.recent.len() as u64) {
                if let Some(b) = self.recent.pop_front() {
                    self.queue.push_back(b);
                }
            }
            self.recent.clear();
        }
    }

    /// A backlog read-back is due: (file offset, length).
    pub(crate) fn next_backlog(&mut self) -> Option<(u64, u64)> {
        if self.aborted {
            return None;
        }
        self.queue.pop_front()
    }

    /// Verification ended at a mismatch (no `continue_on_error=verify`, or `verify_fatal`).
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Read back `len` bytes at file offset `off` at time `t` and check every unit; returns
    /// the read's completion.
    pub(crate) fn read_back(&mut self, sys: &mut SimSystem, t: Ns, off: u64, len: u64) -> Result<ReadBack, SysError> {
        let c = sys.io(t, self.file, Op::Read, off, len)?;
        self.check(sys, off, len);
        Ok((c.done, len))
    }

    /// Where file offset `off` is on the device.
    fn device_offset(&self, sys: &SimSystem, off: u64) -> Option<u64> {
        if self.file == FileId::RAW {
            return Some(off);
        }
        let ext = sys.fs().inplace()?.extents(self.file.index())?;
        let i = ext.partition_point(|e| e.file_off + e.len <= off);
        let e = ext.get(i).filter(|e| e.file_off <= off)?;
        Some(e.dev_off + (off - e.file_off))
    }

    fn check(&mut self, sys: &SimSystem, off: u64, len: u64) {
        for u in self.units(off, len) {
            let Some(&want) = self.expected.get(u) else { continue };
            let want = want & !VERIFIED;
            if want == 0 || self.aborted {
                continue;
            }
            self.expected[u] |= VERIFIED;
            let unit_off = self.base + u as u64 * MAP_UNIT;
            self.summary.blocks_verified += 1;
            self.summary.bytes_verified += MAP_UNIT;
            let got = self.device_offset(sys, unit_off).map(|d| sys.device().peek((d / MAP_UNIT) as u32));
            if got == Some(Some(want)) {
                continue;
            }
            // verify_write_sequence=0: any verifying write's data passes (several jobs write the
            // region); zeros or a block no verifying write wrote still fail.
            if !self.opts.write_sequence && matches!(got, Some(Some(t)) if t >> TAG_BITS != 0) {
                continue;
            }
            let describe = |t: u64| {
                if t & !((1 << TAG_BITS) - 1) == self.tag_base {
                    format!("write #{} of this job", t & ((1 << TAG_BITS) - 1))
                } else {
                    format!("tag {t:#x} (another write)")
                }
            };
            let received = match got {
                None => "no device block (unmapped in the filesystem)".to_string(),
                Some(None) => "zeros (the FTL maps no data there)".to_string(),
                Some(Some(t)) => describe(t),
            };
            self.summary.record_mismatch(VerifyMismatch {
                offset: unit_off,
                len: MAP_UNIT,
                check: "last write".into(),
                expected: describe(want),
                received,
            });
            if self.opts.fatal || !self.opts.continue_on_error {
                self.aborted = true;
                self.queue.clear();
            }
        }
    }

    /// fio's pass after the write phase (`do_verify`): read every unit written back, in
    /// offset order, `max_read` bytes at most per read with `iodepth` reads in flight, from
    /// `t`; returns when the last read completes and every read's (latency, bytes).
    pub(crate) fn final_pass(
        &mut self,
        sys: &mut SimSystem,
        t: Ns,
        max_read: u64,
        iodepth: u32,
        mut record: impl FnMut(Ns, u64),
    ) -> Result<Ns, SysError> {
        // A backlog batch that fell due as the write phase ended.
        let mut now = t;
        while let Some((off, len)) = self.next_backlog() {
            let (done, bytes) = self.read_back(sys, now, off, len)?;
            record(done - now, bytes);
            now = done;
        }
        if !self.opts.do_verify {
            return Ok(now);
        }
        let most = (max_read / MAP_UNIT).max(1) as usize;
        let mut inflight: std::collections::BinaryHeap<std::cmp::Reverse<Ns>> = Default::default();
        let mut end = now;
        let mut u = 0usize;
        while u < self.expected.len() && !self.aborted {
            let todo = |e: u64| e != 0 && e & VERIFIED == 0;
            if !todo(self.expected[u]) {
                u += 1;
                continue;
            }
            let start = u;
            while u < self.expected.len() && todo(self.expected[u]) && u - start < most {
                u += 1;
            }
            if inflight.len() >= iodepth.max(1) as usize {
                if let Some(std::cmp::Reverse(d)) = inflight.pop() {
                    now = now.max(d);
                }
            }
            let off = self.base + start as u64 * MAP_UNIT;
            let len = (u - start) as u64 * MAP_UNIT;
            let (done, bytes) = self.read_back(sys, now, off, len)?;
            record(done - now, bytes);
            inflight.push(std::cmp::Reverse(done));
            end = end.max(done);
        }
        Ok(end)
    }
}

/// What a reader with layout `mine` finds wrong in a block a writer with layout `w` wrote, as
/// fio's `verify_header` and checks would: (check, expected, received); `None` when it passes.
/// `verify=meta` checks the header only, so any checksum passes it.
fn layout_mismatch(mine: &Layout, w: &Layout) -> Mismatch {
    let headers = |m: VerifyMethod| m != VerifyMethod::Pattern;
    if headers(mine.method) != headers(w.method) {
        let say = |m: VerifyMethod| if headers(m) { "a verify header" } else { "no header (verify=pattern)" };
        return Some(("header magic", say(mine.method).into(), say(w.method).into()));
    }
    if headers(mine.method) && mine.interval != w.interval {
        return Some(("header length", format!("{} bytes", mine.interval), format!("{} bytes", w.interval)));
    }
    if headers(mine.method) && mine.method != VerifyMethod::Meta && mine.method != w.method {
        return Some(("checksum type", mine.method.name().into(), w.method.name().into()));
    }
    if !mine.pattern.is_empty() && mine.pattern != w.pattern {
        let hex = |p: &[u8]| p.iter().map(|b| format!("{b:02x}")).collect::<String>();
        return Some(("pattern", format!("0x{}", hex(&mine.pattern)), format!("0x{}", hex(&w.pattern))));
    }
    None
}

/// After a verifying job's write phase (its group has run): fio's pass reading everything
/// back, counted as the job's reads; the job's result gets the summary, the reads' runtime
/// (the pass, or the whole job with a backlog) and fio's EILSEQ on a mismatch. The jobs of a
/// group verify one after another (fio verifies them side by side).
pub fn finish(
    sys: &mut SimSystem,
    spec: &crate::engine::JobSpec,
    r: &mut flashlab_measure::JobResult,
) -> Result<(), SysError> {
    let Some(v) = &spec.verify else { return Ok(()) };
    let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
    if v.read_only {
        // Every read was checked as it was issued; there is no pass afterwards.
        if v.summary.mismatches > 0 && r.error == 0 {
            r.error = EILSEQ;
        }
        r.continue_on_error = v.opts.continue_on_error;
        r.verify = Some(v.summary.clone());
        return Ok(());
    }
    let start = sys.now();
    let end = v.final_pass(sys, start, spec.settings.bs_write.max(MAP_UNIT), spec.settings.iodepth, |lat, bytes| {
        r.read.record_io(bytes, lat, lat)
    })?;
    sys.advance_to(end);
    let pass = end - start;
    // As fio's backend: the reads' runtime is the pass alone for a job that only writes
    // without a backlog, else the whole job and the pass (a mix's own reads ran all along).
    if v.opts.backlog == 0 && !spec.settings.rw.has_reads() {
        r.read.runtime_ns = pass;
    } else {
        r.read.runtime_ns = r.job_runtime_ns + pass;
    }
    r.job_runtime_ns += pass;
    if v.summary.mismatches > 0 && r.error == 0 {
        r.error = EILSEQ;
    }
    r.continue_on_error = v.opts.continue_on_error;
    r.verify = Some(v.summary.clone());
    Ok(())
}

/// fio's errno for a verify failure (Linux's EILSEQ).
pub const EILSEQ: i32 = 84;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run_jobs, JobSpec};
    use flashlab_jobs::verify::VerifyMethod;
    use flashlab_jobs::Rw;
    use std::sync::{Arc, Mutex};

    /// A buggy FTL (two units' mapping entries swapped, which only a test build of flashsim
    /// can do) is caught at both units' offsets.
    #[test]
    fn a_wrong_ftl_mapping_is_caught_at_its_offset() {
        let profile = flashsim::Profile::from_toml("toy.toml", flashsim::builtin::TOY).unwrap();
        let mut sys = SimSystem::new(&profile, 1, false);
        let opts = VerifyOptions {
            method: VerifyMethod::Crc32c,
            interval: 4096,
            continue_on_error: true,
            ..VerifyOptions::default()
        };
        let mut spec = JobSpec::on_file("raw", Rw::RandWrite, 4096, FileId::RAW, 2 << 20);
        let v = SimVerifier::new(&mut sys, &opts, FileId::RAW, 0, 2 << 20).unwrap().unwrap();
        spec.verify = Some(Arc::new(Mutex::new(v)));
        let mut r = run_jobs(&mut sys, std::slice::from_ref(&spec), |_| {}).unwrap().remove(0);
        // The invariant checks (on by default in a debug build) would stop the run at the
        // broken mapping; this test is about what the read checker sees, so they are off.
        sys.set_check_every(None);
        assert!(sys.fault_swap_mapping(3, 100));
        finish(&mut sys, &spec, &mut r).unwrap();
        let v = r.verify.unwrap();
        assert_eq!(r.error, EILSEQ);
        assert_eq!(v.mismatches, 2);
        let offs: Vec<u64> = v.first.iter().map(|m| m.offset).collect();
        assert_eq!(offs, vec![3 * 4096, 100 * 4096]);
        assert!(v.first[0].expected.starts_with("write #") && v.first[0].received.starts_with("write #"));
        assert_ne!(v.first[0].expected, v.first[0].received);
        assert_eq!(v.blocks_verified, 512, "every unit of the 2 MiB was checked");
    }
}
