//! fio's `verify` on real (and served) targets: every block a job writes carries a header per
//! `verify_interval` bytes (the chunk's offset, length, the job's write number, a checksum of
//! the chunk's data), and the runner reads the blocks back — after the write phase
//! (`do_verify`) or every `verify_backlog` blocks — and checks them.
//!
//! The header is flashlab's own (fio's has the same fields in another order, with fio's magic
//! `0xacca`; a file written by fio does not verify here, nor the reverse). Little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `FLVF` |
//! | 4 | version (1) |
//! | 5 | method (1 crc32c, 2 md5, 3 sha256, 4 meta, 5 crc32, 6 crc64) |
//! | 6 | checksum bytes (4, 16, 32, 4, 8; 0 for meta) |
//! | 7 | 0 |
//! | 8..12 | chunk length (bytes, header included) |
//! | 12..16 | job number (fio's `thread`) |
//! | 16..24 | the chunk's byte offset in the file or device |
//! | 24..32 | the job's write number of the block (fio's `numberio`), from 0 |
//! | 32..40 | the run's seed (fio's `rand_seed`) |
//! | 40..44 | CRC-32C of bytes 0..40 (fio's header `crc32`) |
//! | 44..48 | 0 |
//! | 48.. | checksum of the data area: the rest of the chunk after the checksum |
//!
//! `verify=pattern` writes no header: the whole chunk is the pattern. With `verify_pattern`
//! and a checksum, the data area holds the pattern and both are checked.
//!
//! What the runner keeps: one `u64` per chunk of the job's region (the write number that last
//! covered it, 8 bytes per `verify_interval`: 2 MiB for 1 GiB of 4 KiB blocks) and, with a
//! backlog, the last `verify_backlog` blocks written; nothing is allocated per I/O. Blocks are
//! verified in offset order after the write phase (fio: in write order unless random
//! overwrites need its sorted tree), each chunk with its last write's number.

use flashlab_jobs::verify::{VerifyMethod, VerifyOptions};
use flashlab_measure::{VerifyMismatch, VerifySummary};
use md5::Digest;
use std::collections::VecDeque;

const MAGIC: &[u8; 4] = b"FLVF";
const VERSION: u8 = 1;
/// A grid entry's flag: the chunk was read back since its last write (as fio drops a block
/// from its log once verified, the pass after the writes skips it).
const VERIFIED: u64 = 1 << 63;
/// Bytes before the checksum.
pub const HEADER: usize = 48;

fn method_code(m: VerifyMethod) -> u8 {
    match m {
        VerifyMethod::Crc32c => 1,
        VerifyMethod::Md5 => 2,
        VerifyMethod::Sha256 => 3,
        VerifyMethod::Meta => 4,
        VerifyMethod::Crc32 => 5,
        VerifyMethod::Crc64 => 6,
        VerifyMethod::None | VerifyMethod::Pattern => 0,
    }
}

fn checksum_len(m: VerifyMethod) -> usize {
    match m {
        VerifyMethod::Crc32c => 4,
        VerifyMethod::Md5 => 16,
        VerifyMethod::Sha256 => 32,
        VerifyMethod::Crc32 => 4,
        VerifyMethod::Crc64 => 8,
        _ => 0,
    }
}

/// The lookup table of a reflected CRC of polynomial `poly` (reversed bit order), width up to 64.
const fn crc_table(poly: u64) -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u64;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ poly } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320).
const CRC32_TABLE: &[u64; 256] = &crc_table(0xEDB8_8320);
/// CRC-64 (ECMA-182, reflected polynomial 0xC96C5795D7870F42, as xz's CRC-64).
const CRC64_TABLE: &[u64; 256] = &crc_table(0xC96C_5795_D787_0F42);

/// A reflected CRC with all-ones initial value and final inversion (CRC-32 and CRC-64/XZ);
/// `width_mask` is the CRC's width (`u32::MAX` for a CRC-32).
fn crc_reflected(table: &[u64; 256], width_mask: u64, data: &[u8]) -> u64 {
    let mut c = width_mask;
    for &b in data {
        c = table[((c ^ u64::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    c ^ width_mask
}

/// Writes the checksum of `data` into `out` (its length is [`checksum_len`]).
fn checksum(m: VerifyMethod, data: &[u8], out: &mut [u8]) {
    match m {
        VerifyMethod::Crc32c => out.copy_from_slice(&crc32c::crc32c(data).to_le_bytes()),
        VerifyMethod::Md5 => out.copy_from_slice(&md5::Md5::digest(data)),
        VerifyMethod::Crc32 => {
            out.copy_from_slice(&(crc_reflected(CRC32_TABLE, u64::from(u32::MAX), data) as u32).to_le_bytes())
        }
        VerifyMethod::Crc64 => out.copy_from_slice(&crc_reflected(CRC64_TABLE, u64::MAX, data).to_le_bytes()),
        VerifyMethod::Sha256 => out.copy_from_slice(&sha2::Sha256::digest(data)),
        _ => {}
    }
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("0x");
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    s
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Fill `area` with `pattern` repeated (from its start).
fn fill_pattern(area: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() {
        return;
    }
    for (i, b) in area.iter_mut().enumerate() {
        *b = pattern[i % pattern.len()];
    }
}

/// Something to run between a job's writes and its read-back (see
/// [`crate::runner::RealJob::before_verify`]).
#[derive(Clone)]
pub struct Hook(pub std::sync::Arc<dyn Fn() + Send + Sync>);

impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hook")
    }
}

/// One job's verification state.
pub struct Verifier {
    opts: VerifyOptions,
    /// Bytes per header (verify_interval).
    interval: u64,
    /// The job's region: [base, base + span).
    base: u64,
    seed: u64,
    job: u32,
    /// Per chunk of the region: 1 + the write number that last covered it (0: not written),
    /// with [`VERIFIED`] once read back.
    grid: Vec<u64>,
    /// Blocks written since the last backlog check (offset, len).
    recent: VecDeque<(u64, u64)>,
    /// Blocks waiting to be read back (offset, len).
    queue: VecDeque<(u64, u64)>,
    /// The pass after the write phase: the next chunk to read back.
    cursor: Option<u64>,
    /// Longest read of the final pass.
    max_read: u64,
    /// Verification ended early (a mismatch with verify_fatal or without continue_on_error).
    aborted: bool,
    /// What was found.
    pub summary: VerifySummary,
    /// `verify_dump`: the directory and file name mismatches are dumped under.
    dump: Option<(std::path::PathBuf, String)>,
    /// The job only reads ([`Verifier::read_only`]).
    read_only: bool,
}

impl Verifier {
    /// A verifier for a job over [base, base + span) of its file, reading back at most
    /// `max_read` bytes at a time; `None` when the job does not verify.
    pub fn new(opts: &VerifyOptions, base: u64, span: u64, max_read: u64, seed: u64, job: u32) -> Option<Verifier> {
        if !opts.enabled() {
            return None;
        }
        let interval = opts.interval.max(1);
        let chunks = span.div_ceil(interval) as usize;
        let backlog = opts.backlog as usize;
        Some(Verifier {
            opts: opts.clone(),
            interval,
            base,
            seed,
            job,
            grid: vec![0; chunks],
            recent: VecDeque::with_capacity(backlog.min(1 << 20)),
            queue: VecDeque::with_capacity((opts.batch() as usize).min(1 << 20)),
            cursor: None,
            max_read: max_read.max(interval) / interval * interval,
            aborted: false,
            summary: VerifySummary::new(opts.method.name()),
            dump: None,
            read_only: false,
        })
    }

    /// For a job that only reads (fio's read-only verify job: a scan of what an earlier job
    /// or run wrote with verify on): every block it reads is checked as it completes
    /// ([`Verifier::check_read`]) and nothing is read back afterwards.
    pub fn read_only(mut self) -> Verifier {
        self.read_only = true;
        self.grid = Vec::new();
        self
    }

    /// The job only reads ([`Verifier::read_only`]).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// A read-only job's read of `len` bytes at `offset` (absolute) completed into `buf`:
    /// check every chunk's header (magic, header CRC, length and method, offset), checksum and
    /// pattern, as fio checks a block it did not write: not the write number (a reader cannot
    /// know which write was last, fio's `verify_header` skips it too). Returns false on a
    /// mismatch.
    pub fn check_read(&mut self, buf: &[u8], offset: u64, len: u64) -> bool {
        let mut ok = true;
        let mut at = 0u64;
        while at < len && !self.aborted {
            let clen = self.interval.min(len - at);
            let chunk = &buf[at as usize..(at + clen) as usize];
            self.summary.blocks_verified += 1;
            self.summary.bytes_verified += clen;
            if let Some(m) = self.check_chunk(chunk, offset + at, None) {
                ok = false;
                // What the write whose number the header carries would have laid down.
                let numberio = if chunk.len() >= 32 { u64_at(chunk, 24) } else { 0 };
                self.dump_chunk(chunk, offset + at, numberio);
                self.summary.record_mismatch(m);
                if self.opts.fatal || !self.opts.continue_on_error {
                    self.aborted = true;
                }
            }
            at += clen;
        }
        ok
    }

    /// Bytes of the header before the data area.
    fn header_len(&self) -> usize {
        if self.opts.method == VerifyMethod::Pattern {
            0
        } else {
            HEADER + checksum_len(self.opts.method)
        }
    }

    /// Prepare the buffer of a write of `len` bytes at `offset` (absolute), the job's write
    /// number `numberio`: headers and checksums go in, the chunks are recorded as written.
    pub fn fill(&mut self, buf: &mut [u8], offset: u64, len: u64, numberio: u64) {
        let mut at = 0u64;
        while at < len {
            let clen = self.interval.min(len - at) as usize;
            self.fill_chunk(&mut buf[at as usize..at as usize + clen], offset + at, numberio);
            if let Some(g) = self.grid.get_mut(((offset + at - self.base) / self.interval) as usize) {
                *g = numberio + 1;
            }
            at += clen as u64;
        }
    }

    /// One chunk's header, checksum and data as write `numberio` at `offset` lays it down.
    fn fill_chunk(&self, chunk: &mut [u8], offset: u64, numberio: u64) {
        let hl = self.header_len();
        let m = self.opts.method;
        let clen = chunk.len();
        let (head, data) = chunk.split_at_mut(hl.min(clen));
        fill_pattern(data, &self.opts.pattern);
        if hl > 0 {
            head.fill(0);
            head[0..4].copy_from_slice(MAGIC);
            head[4] = VERSION;
            head[5] = method_code(m);
            head[6] = checksum_len(m) as u8;
            head[8..12].copy_from_slice(&(clen as u32).to_le_bytes());
            head[12..16].copy_from_slice(&self.job.to_le_bytes());
            head[16..24].copy_from_slice(&offset.to_le_bytes());
            head[24..32].copy_from_slice(&numberio.to_le_bytes());
            head[32..40].copy_from_slice(&self.seed.to_le_bytes());
            let hcrc = crc32c::crc32c(&head[..40]);
            head[40..44].copy_from_slice(&hcrc.to_le_bytes());
            checksum(m, data, &mut head[HEADER..hl]);
        }
    }

    /// `verify_dump`: the files a mismatch is dumped to are named after `file` (its last
    /// component, as fio's `dump_buf`) and put in `dir`.
    pub fn dump_to(&mut self, dir: &std::path::Path, file: &std::path::Path) {
        if self.opts.dump {
            let name = file.file_name().map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
            self.dump = Some((dir.to_path_buf(), name));
        }
    }

    /// fio's `dump_verify_buffers`: the chunk read and the chunk the write laid down, as
    /// `NAME.OFFSET.received` and `NAME.OFFSET.expected` (OFFSET in bytes, decimal).
    fn dump_chunk(&mut self, received: &[u8], offset: u64, numberio: u64) {
        let Some((dir, name)) = &self.dump else { return };
        let mut expected = vec![0u8; received.len()];
        self.fill_chunk(&mut expected, offset, numberio);
        for (what, data) in [("received", received), ("expected", &expected[..])] {
            let path = dir.join(format!("{name}.{offset}.{what}"));
            match std::fs::write(&path, data) {
                Ok(()) => eprintln!("       {what} data dumped as {}", path.display()),
                Err(e) => eprintln!("warning: verify_dump: {}: {e}", path.display()),
            }
        }
    }

    /// A write completed: with a backlog, it may now be due for reading back.
    pub fn written(&mut self, offset: u64, len: u64) {
        if self.opts.backlog == 0 || self.aborted {
            return;
        }
        self.recent.push_back((offset, len));
        if self.recent.len() as u64 >= self.opts.backlog {
            let n = self.opts.batch().min(self.recent.len() as u64);
            for _ in 0..n {
                if let Some(b) = self.recent.pop_front() {
                    self.queue.push_back(b);
                }
            }
            self.recent.clear();
        }
    }

    /// The write phase is over: read everything back (unless `do_verify=0`).
    pub fn start_final_pass(&mut self) {
        if self.opts.do_verify && self.cursor.is_none() && !self.aborted {
            self.cursor = Some(0);
        }
    }

    /// The final pass was started (it may be done).
    pub fn final_pass_started(&self) -> bool {
        self.cursor.is_some() || self.aborted || !self.opts.do_verify || self.read_only
    }

    /// Something waits to be read back now.
    pub fn has_work(&self) -> bool {
        !self.aborted && (!self.queue.is_empty() || self.cursor.is_some_and(|c| (c as usize) < self.grid.len()))
    }

    /// The next read-back (absolute offset, length), if any.
    pub fn next_read(&mut self) -> Option<(u64, u64)> {
        if self.aborted {
            return None;
        }
        if let Some(b) = self.queue.pop_front() {
            return Some(b);
        }
        let mut c = self.cursor? as usize;
        let todo = |g: u64| g != 0 && g & VERIFIED == 0;
        while c < self.grid.len() && !todo(self.grid[c]) {
            c += 1;
        }
        if c >= self.grid.len() {
            self.cursor = Some(c as u64);
            return None;
        }
        let start = c;
        let most = (self.max_read / self.interval).max(1) as usize;
        while c < self.grid.len() && todo(self.grid[c]) && c - start < most {
            c += 1;
        }
        self.cursor = Some(c as u64);
        Some((self.base + start as u64 * self.interval, (c - start) as u64 * self.interval))
    }

    /// Whether the job must stop after a mismatch (`verify_fatal`, or no
    /// `continue_on_error=verify`): verification is over.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Check `buf`, read from `offset` (absolute); records what it finds. Returns false on a
    /// mismatch.
    pub fn check(&mut self, buf: &[u8], offset: u64, len: u64) -> bool {
        let mut ok = true;
        let mut at = 0u64;
        while at < len {
            let clen = self.interval.min(len - at);
            let idx = ((offset + at - self.base) / self.interval) as usize;
            let want = self.grid.get(idx).copied().unwrap_or(0) & !VERIFIED;
            if want > 0 {
                self.grid[idx] |= VERIFIED;
                let chunk = &buf[at as usize..(at + clen) as usize];
                self.summary.blocks_verified += 1;
                self.summary.bytes_verified += clen;
                if let Some(m) = self.check_chunk(chunk, offset + at, Some(want - 1)) {
                    ok = false;
                    self.dump_chunk(chunk, offset + at, want - 1);
                    self.summary.record_mismatch(m);
                    if self.opts.fatal || !self.opts.continue_on_error {
                        self.aborted = true;
                        self.queue.clear();
                        return false;
                    }
                }
            }
            at += clen;
        }
        ok
    }

    /// One chunk against the write `numberio` that last covered it (`None`: any write).
    fn check_chunk(&self, chunk: &[u8], offset: u64, numberio: Option<u64>) -> Option<VerifyMismatch> {
        let len = chunk.len() as u64;
        let bad = |check: &str, expected: String, received: String| {
            Some(VerifyMismatch { offset, len, check: check.to_string(), expected, received })
        };
        let m = self.opts.method;
        let hl = self.header_len();
        if hl > 0 {
            if chunk.len() < hl {
                return bad("length", format!("at least {hl} bytes"), format!("{len} bytes"));
            }
            if &chunk[0..4] != MAGIC {
                return bad("magic", hex(MAGIC), hex(&chunk[0..4]));
            }
            let hcrc = crc32c::crc32c(&chunk[..40]);
            if u32_at(chunk, 40) != hcrc {
                return bad("header crc32c", format!("{hcrc:#010x}"), format!("{:#010x}", u32_at(chunk, 40)));
            }
            let clen = u64::from(u32_at(chunk, 8));
            if clen != len || chunk[5] != method_code(m) {
                return bad(
                    "header length/method",
                    format!("{len} bytes, method {}", method_code(m)),
                    format!("{clen} bytes, method {}", chunk[5]),
                );
            }
            if u64_at(chunk, 16) != offset {
                return bad("header offset", offset.to_string(), u64_at(chunk, 16).to_string());
            }
            if let Some(n) = numberio.filter(|_| self.opts.write_sequence) {
                if u64_at(chunk, 24) != n {
                    return bad("numberio", n.to_string(), u64_at(chunk, 24).to_string());
                }
            }
            let data = &chunk[hl..];
            let mut sum = [0u8; 32];
            let n = checksum_len(m);
            checksum(m, data, &mut sum[..n]);
            if sum[..n] != chunk[HEADER..hl] {
                return bad(m.name(), hex(&sum[..n]), hex(&chunk[HEADER..hl]));
            }
        }
        let p = &self.opts.pattern;
        if !p.is_empty() {
            if let Some(i) = chunk[hl..].iter().enumerate().position(|(i, &b)| b != p[i % p.len()]) {
                let at = hl + i;
                return bad(
                    "pattern",
                    format!("{:#04x} at byte {at}", p[i % p.len()]),
                    format!("{:#04x} at byte {at}", chunk[at]),
                );
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn crc_check_values() {
        // The standard check values of "123456789".
        assert_eq!(crc_reflected(CRC32_TABLE, u64::from(u32::MAX), b"123456789"), 0xCBF4_3926);
        assert_eq!(crc_reflected(CRC64_TABLE, u64::MAX, b"123456789"), 0x995D_C9BB_DF19_39FA);
    }

    fn opts(m: VerifyMethod) -> VerifyOptions {
        VerifyOptions { method: m, interval: 4096, ..VerifyOptions::default() }
    }

    #[test]
    fn round_trip_and_corruption_per_method() {
        for m in [
            VerifyMethod::Crc32c,
            VerifyMethod::Crc32,
            VerifyMethod::Crc64,
            VerifyMethod::Md5,
            VerifyMethod::Sha256,
            VerifyMethod::Meta,
        ] {
            let mut v = Verifier::new(&opts(m), 1 << 20, 64 << 10, 8192, 7, 0).unwrap();
            let mut buf: Vec<u8> = (0..8192u32).map(|i| (i * 31) as u8).collect();
            v.fill(&mut buf, (1 << 20) + 8192, 8192, 3);
            assert!(v.check(&buf, (1 << 20) + 8192, 8192), "{m:?}");
            assert_eq!(v.summary.blocks_verified, 2);
            // One data byte of the second chunk flipped: the checksum catches it (meta does not).
            buf[4096 + 1000] ^= 1;
            let ok = v.check(&buf, (1 << 20) + 8192, 8192);
            assert_eq!(ok, m == VerifyMethod::Meta, "{m:?}");
            if m != VerifyMethod::Meta {
                let f = &v.summary.first[0];
                assert_eq!((f.offset, f.len, f.check.as_str()), ((1 << 20) + 12288, 4096, m.name()));
                assert_ne!(f.expected, f.received);
            }
        }
    }

    #[test]
    fn stale_data_is_caught_by_the_write_number() {
        let mut v = Verifier::new(&opts(VerifyMethod::Crc32c), 0, 16384, 4096, 1, 0).unwrap();
        let mut old = vec![0u8; 4096];
        v.fill(&mut old, 4096, 4096, 0);
        let mut new = vec![1u8; 4096];
        v.fill(&mut new, 4096, 4096, 5);
        assert!(!v.check(&old, 4096, 4096));
        assert_eq!(v.summary.first[0].check, "numberio");
        assert!(v.aborted(), "without continue_on_error the first mismatch ends verification");
    }

    #[test]
    fn final_pass_walks_written_chunks_in_offset_order() {
        let mut v = Verifier::new(&opts(VerifyMethod::Crc32c), 0, 10 * 4096, 8192, 1, 0).unwrap();
        let mut b = vec![0u8; 4096];
        for blk in [7u64, 1, 2, 3, 9] {
            v.fill(&mut b, blk * 4096, 4096, blk);
        }
        v.start_final_pass();
        let mut got = Vec::new();
        while let Some(r) = v.next_read() {
            got.push(r);
        }
        assert_eq!(got, vec![(4096, 8192), (12288, 4096), (28672, 4096), (36864, 4096)]);
    }

    #[test]
    fn pattern_without_header() {
        let o = VerifyOptions {
            method: VerifyMethod::Pattern,
            pattern: vec![0xde, 0xad],
            interval: 512,
            ..VerifyOptions::default()
        };
        let mut v = Verifier::new(&o, 0, 4096, 4096, 1, 0).unwrap();
        let mut b = vec![0u8; 1024];
        v.fill(&mut b, 0, 1024, 0);
        assert_eq!(&b[..4], &[0xde, 0xad, 0xde, 0xad]);
        assert!(v.check(&b, 0, 1024));
        b[600] = 0;
        assert!(!v.check(&b, 0, 1024));
        assert_eq!(v.summary.first[0].offset, 512);
    }

    #[test]
    fn backlog_queues_batches() {
        let o = VerifyOptions { backlog: 4, backlog_batch: 2, ..opts(VerifyMethod::Crc32c) };
        let mut v = Verifier::new(&o, 0, 1 << 20, 4096, 1, 0).unwrap();
        for i in 0..4 {
            v.written(i * 4096, 4096);
        }
        assert_eq!(v.next_read(), Some((0, 4096)));
        assert_eq!(v.next_read(), Some((4096, 4096)));
        assert_eq!(v.next_read(), None);
    }

    #[test]
    fn verify_dump_writes_what_was_read_and_what_was_written_under_fios_names() {
        let dir = std::env::temp_dir().join(format!("flashlab-verify-dump-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let o = VerifyOptions { dump: true, continue_on_error: true, ..opts(VerifyMethod::Crc32c) };
        let mut v = Verifier::new(&o, 0, 16384, 8192, 1, 0).unwrap();
        v.dump_to(&dir, Path::new("/somewhere/data.bin"));
        let mut b = vec![0u8; 8192];
        v.fill(&mut b, 4096, 8192, 2);
        let written = b.clone();
        b[4096 + 100] ^= 0xff;
        assert!(!v.check(&b, 4096, 8192));
        // Only the bad chunk (the second, at 8192) is dumped: NAME.OFFSET.received/expected.
        let got = std::fs::read(dir.join("data.bin.8192.received")).unwrap();
        let want = std::fs::read(dir.join("data.bin.8192.expected")).unwrap();
        assert_eq!(got, &b[4096..]);
        assert_eq!(want, &written[4096..]);
        assert!(!dir.join("data.bin.4096.received").exists());
        // Without verify_dump nothing is written.
        let mut v = Verifier::new(&opts(VerifyMethod::Crc32c), 0, 16384, 8192, 1, 0).unwrap();
        v.dump_to(&dir, Path::new("other.bin"));
        v.fill(&mut b, 0, 4096, 0);
        b[100] ^= 1;
        assert!(!v.check(&b, 0, 4096));
        assert!(!dir.join("other.bin.0.received").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
