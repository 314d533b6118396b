//! fio's `verify` options, as a job file gives them: which checksum goes into the header of
//! every block written (`verify=`), whether the data is read back after the write phase
//! (`do_verify`) or every N blocks (`verify_backlog`, `verify_backlog_batch`), whether the
//! first mismatch ends the job (`verify_fatal`, and fio's `continue_on_error=verify`), the
//! header spacing (`verify_interval`) and a data pattern (`verify_pattern`).
//!
//! The targets do the work: `flashlab_real::verify` writes and checks headers on real and
//! served targets; `flashlab_lab::sim_verify` checks that a simulated device returns the last
//! data written to every block. This module only reads the options (fio's names, values and
//! defaults, from fio's HOWTO "Verification").

use crate::Error;
use serde::{Deserialize, Serialize};

/// The checksum stored in every block's header (`verify=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum VerifyMethod {
    /// No verification (`verify=0` or `verify=none`, fio's default).
    #[default]
    None,
    /// CRC-32C (Castagnoli) of the data area; `crc32c-intel` is the same (fio: a synonym).
    Crc32c,
    /// CRC-32 (IEEE 802.3, reflected) of the data area.
    Crc32,
    /// CRC-64 (ECMA-182 polynomial, reflected, as xz computes it) of the data area.
    Crc64,
    /// MD5 of the data area.
    Md5,
    /// SHA-256 of the data area.
    Sha256,
    /// Header only (fio's deprecated `meta`: the header checks still run).
    Meta,
    /// Only `verify_pattern`, no header (fio's `pattern`).
    Pattern,
}

impl VerifyMethod {
    /// fio's name of the method.
    pub fn name(self) -> &'static str {
        match self {
            VerifyMethod::None => "none",
            VerifyMethod::Crc32c => "crc32c",
            VerifyMethod::Crc32 => "crc32",
            VerifyMethod::Crc64 => "crc64",
            VerifyMethod::Md5 => "md5",
            VerifyMethod::Sha256 => "sha256",
            VerifyMethod::Meta => "meta",
            VerifyMethod::Pattern => "pattern",
        }
    }

    /// Reads fio's `verify=` value; `Err` says what flashlab accepts.
    pub fn parse(v: &str) -> Result<VerifyMethod, Error> {
        Ok(match v {
            "0" | "none" => VerifyMethod::None,
            "crc32c" | "crc32c-intel" => VerifyMethod::Crc32c,
            "crc32" => VerifyMethod::Crc32,
            "crc64" => VerifyMethod::Crc64,
            "md5" => VerifyMethod::Md5,
            "sha256" => VerifyMethod::Sha256,
            "meta" => VerifyMethod::Meta,
            "pattern" => VerifyMethod::Pattern,
            "crc16" | "crc7" | "xxhash" | "sha512" | "sha1" | "sha3-224" | "sha3-256" | "sha3-384" | "sha3-512"
            | "pattern_hdr" | "null" => return Err(Error::FioVerifyMethod { method: v.to_string() }),
            _ => {
                return Err(Error::Bad {
                    what: "value",
                    value: v.to_string(),
                    expected: "crc32c, crc32c-intel, crc32, crc64, md5, sha256, meta, pattern or 0".into(),
                })
            }
        })
    }
}

/// The verify options of one job, with fio's defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyOptions {
    /// `verify=`: the checksum in every block's header. Default none.
    pub method: VerifyMethod,
    /// `do_verify`: read everything back after the write phase. Default true (only with
    /// `verify` set).
    pub do_verify: bool,
    /// `verify_backlog=N`: verify after every N blocks written (0: only after the write phase).
    pub backlog: u64,
    /// `verify_backlog_batch=N`: how many of those blocks to verify (0: `backlog`).
    pub backlog_batch: u64,
    /// `verify_fatal`: the first mismatch ends the job.
    pub fatal: bool,
    /// `continue_on_error=verify` (or `all`): keep verifying after a mismatch, count them
    /// (fio's `total_err`, `first_error`).
    pub continue_on_error: bool,
    /// `verify_interval=N`: one header every N bytes of a block (0: the smallest write block
    /// size, as fio).
    pub interval: u64,
    /// `verify_pattern`: the data area holds this pattern (repeated), checked byte for byte.
    pub pattern: Vec<u8>,
    /// `verify_write_sequence` (fio's default 1): a block's header must carry the number of
    /// the job's last write to it. 0 checks the rest of the header and the checksum only, for
    /// regions several jobs write (fio turns it off itself with numjobs > 1 on one file).
    pub write_sequence: bool,
    /// `verify_dump`: on a mismatch, write the block received and the block expected to
    /// files (fio's `NAME.OFFSET.received` / `.expected`, in the current directory).
    #[serde(default)]
    pub dump: bool,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            method: VerifyMethod::None,
            do_verify: true,
            backlog: 0,
            backlog_batch: 0,
            fatal: false,
            continue_on_error: false,
            interval: 0,
            pattern: Vec::new(),
            write_sequence: true,
            dump: false,
        }
    }
}

impl VerifyOptions {
    /// The job verifies its data (a method, or a pattern).
    pub fn enabled(&self) -> bool {
        self.method != VerifyMethod::None
    }

    /// Blocks verified at each backlog point (`verify_backlog_batch`, default the backlog).
    pub fn batch(&self) -> u64 {
        if self.backlog_batch > 0 {
            self.backlog_batch
        } else {
            self.backlog
        }
    }
}

/// Reads fio's `verify_pattern`: a hex number (`0x` prefix, any length, most significant byte
/// first as fio writes it), a decimal number (1 to 4 bytes, little-endian as fio stores an
/// int), or a quoted string (`"abcd"`); several may be concatenated with nothing between.
/// fio's `%o` (the block's offset) and the `-N` repeat suffix are errors.
pub fn parse_pattern(v: &str) -> Result<Vec<u8>, Error> {
    let bad = |problem: String| Error::Value { value: v.to_string(), problem };
    let mut out = Vec::new();
    let mut rest = v.trim();
    if rest.is_empty() {
        return Err(Error::Empty);
    }
    while !rest.is_empty() {
        if rest.starts_with("%o") {
            return Err(Error::Value {
                value: "%o".into(),
                problem: "the block offset in verify_pattern is not supported by flashlab".into(),
            });
        }
        if let Some(body) = rest.strip_prefix('"').or_else(|| rest.strip_prefix('\'')) {
            let q = rest.as_bytes()[0] as char;
            let end = body.find(q).ok_or_else(|| bad("unterminated quoted string".into()))?;
            out.extend_from_slice(&body.as_bytes()[..end]);
            rest = &body[end + 1..];
        } else if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            let n = hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len());
            let digits = &hex[..n];
            if digits.is_empty() {
                return Err(bad("'0x' without hex digits".into()));
            }
            // Odd digit counts get a leading zero, as fio pads.
            let padded = if digits.len() % 2 == 1 { format!("0{digits}") } else { digits.to_string() };
            for i in (0..padded.len()).step_by(2) {
                out.push(u8::from_str_radix(&padded[i..i + 2], 16).map_err(|e| bad(e.to_string()))?);
            }
            rest = &hex[n..];
        } else if rest.starts_with(|c: char| c.is_ascii_digit()) {
            let n = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            let x: u32 = rest[..n].parse().map_err(|_| bad("a decimal pattern must fit 32 bits".into()))?;
            let bytes = x.to_le_bytes();
            let used = if x <= 0xff {
                1
            } else if x <= 0xffff {
                2
            } else if x <= 0xff_ffff {
                3
            } else {
                4
            };
            out.extend_from_slice(&bytes[..used]);
            rest = &rest[n..];
        } else {
            return Err(bad(format!(
                "expected a hex number (0x...), a decimal number or a quoted string (at '{rest}')"
            )));
        }
        rest = rest.trim_start();
    }
    if out.len() > 512 {
        return Err(bad("at most 512 bytes of pattern".into()));
    }
    Ok(out)
}

/// fio's `continue_on_error` value: does it continue after a verify error? (`none`/`0`: no;
/// `verify`, `all`, `1`: yes; `read`, `write`, `io`: only other errors.)
pub fn continue_on_verify(v: &str) -> Result<bool, Error> {
    let mut any = false;
    for part in v.split(',').map(str::trim) {
        match part {
            "none" | "0" => {}
            "verify" | "all" | "1" => any = true,
            "read" | "write" | "io" => {}
            _ => {
                return Err(Error::Bad {
                    what: "value",
                    value: part.to_string(),
                    expected: "none, read, write, io, verify, all, 0 or 1".into(),
                })
            }
        }
    }
    Ok(any)
}

/// The options this module reads (fio's names), for the parser.
pub const OPTION_NAMES: &[&str] = &[
    "verify",
    "do_verify",
    "verify_fatal",
    "verify_backlog",
    "verify_backlog_batch",
    "verify_interval",
    "verify_pattern",
    "continue_on_error",
    "verify_write_sequence",
    "verify_dump",
];

/// Bytes of flashlab's verify header before the checksum (see `flashlab_real::verify`).
pub const HEADER_BYTES: u64 = 48;
/// The longest checksum (SHA-256).
pub const MAX_CHECKSUM_BYTES: u64 = 32;

fn zero_one(v: &str) -> Result<bool, Error> {
    match v {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(Error::Bad { what: "value", value: v.to_string(), expected: "0 or 1".into() }),
    }
}

fn count(v: &str, kb_base: u32) -> Result<u64, Error> {
    Ok(crate::units::parse_int_suffixed("number", v, kb_base)?)
}

/// Applies option `name` (one of [`OPTION_NAMES`]) with value `v`.
pub fn apply(o: &mut VerifyOptions, name: &str, v: &str, kb_base: u32) -> Result<(), Error> {
    match name {
        "verify" => o.method = VerifyMethod::parse(v)?,
        "do_verify" => o.do_verify = zero_one(v)?,
        "verify_fatal" => o.fatal = zero_one(v)?,
        "verify_backlog" => o.backlog = count(v, kb_base)?,
        "verify_backlog_batch" => o.backlog_batch = count(v, kb_base)?,
        "verify_interval" => {
            let b = crate::units::parse_size(v, kb_base)?;
            if b > u64::from(u32::MAX) {
                return Err(Error::Value { value: v.to_string(), problem: "at most 4 GiB".into() });
            }
            o.interval = b;
        }
        "verify_pattern" => o.pattern = parse_pattern(v)?,
        "continue_on_error" => o.continue_on_error = continue_on_verify(v)?,
        "verify_write_sequence" => o.write_sequence = zero_one(v)?,
        "verify_dump" => o.dump = zero_one(v)?,
        other => return Err(Error::Internal { option: other.to_string() }),
    }
    Ok(())
}

/// Whole-job checks once every option is known; `Err((option, message))`.
pub fn finalize(job: &mut crate::Job) -> Result<(), (&'static str, String)> {
    if !job.verify.pattern.is_empty() && job.verify.method == VerifyMethod::None {
        // fio: a verify_pattern without verify= verifies the pattern.
        job.verify.method = VerifyMethod::Pattern;
    }
    let o = job.verify.clone();
    if !o.enabled() {
        return Ok(());
    }
    let name = &job.name;
    let rw = job.rw;
    if rw.has_trims() {
        return Err((
            "verify",
            format!(
                "job '{name}': verify with rw={} is not supported by flashlab: it verifies the blocks a job writes (rw=write, randwrite, rw, randrw) or reads (rw=read or randread: data an earlier job wrote with verify), not trims",
                rw.fio_name(),
            ),
        ));
    }
    if o.method == VerifyMethod::Pattern && o.pattern.is_empty() {
        return Err(("verify", format!("job '{name}': verify=pattern needs a verify_pattern")));
    }
    // A read-only job checks every block it reads against the headers an earlier writer left
    // (fio's backend.c gives each read of a job that does not write the verify end_io): its
    // headers are a verify_interval of its read blocks apart (fio's fixup_options caps the
    // interval by the read block size when the job reads).
    let dir = if rw.has_writes() { crate::IoDir::Write } else { crate::IoDir::Read };
    let sizes = job.block_sizes(dir);
    let min = sizes.min();
    let interval = if o.interval > 0 { o.interval } else { min };
    let header = if o.method == VerifyMethod::Pattern { 0 } else { HEADER_BYTES + MAX_CHECKSUM_BYTES };
    if interval < header.max(1) {
        return Err((
            "verify_interval",
            format!("job '{name}': verify interval {interval} is smaller than flashlab's {header}-byte verify header"),
        ));
    }
    if let Some((b, _)) = sizes.probabilities().into_iter().find(|(b, _)| b % interval != 0) {
        return Err((
            "verify_interval",
            format!("job '{name}': block size {b} is not a multiple of the verify interval {interval} (one header every verify_interval bytes)"),
        ));
    }
    let align = job.align(dir);
    if !align.is_multiple_of(interval) {
        return Err((
            "blockalign",
            format!("job '{name}': blockalign {align} is not a multiple of the verify interval {interval}"),
        ));
    }
    if job.bs_unaligned {
        return Err(("verify", format!("job '{name}': verify with bs_unaligned is not supported")));
    }
    job.verify.interval = interval;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods() {
        assert_eq!(VerifyMethod::parse("crc32c-intel").unwrap(), VerifyMethod::Crc32c);
        assert_eq!(VerifyMethod::parse("crc64").unwrap(), VerifyMethod::Crc64);
        assert_eq!(VerifyMethod::parse("crc32").unwrap(), VerifyMethod::Crc32);
        assert!(VerifyMethod::parse("crc16").is_err());
        assert_eq!(VerifyMethod::parse("md5").unwrap(), VerifyMethod::Md5);
        assert_eq!(VerifyMethod::parse("0").unwrap(), VerifyMethod::None);
        assert!(VerifyMethod::parse("xxhash").unwrap_err().to_string().contains("flashlab implements"));
        assert!(VerifyMethod::parse("frob").unwrap_err().to_string().contains("expected crc32c"));
    }

    #[test]
    fn patterns() {
        assert_eq!(parse_pattern("0xdeadbeef").unwrap(), vec![0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(parse_pattern("0xabc").unwrap(), vec![0x0a, 0xbc]);
        assert_eq!(parse_pattern("255").unwrap(), vec![0xff]);
        assert_eq!(parse_pattern("258").unwrap(), vec![0x02, 0x01]);
        assert_eq!(parse_pattern("0xff\"ab\"").unwrap(), vec![0xff, b'a', b'b']);
        assert!(parse_pattern("%o").unwrap_err().to_string().contains("not supported"));
        assert!(parse_pattern("\"ab").unwrap_err().to_string().contains("unterminated"));
        assert!(parse_pattern("zz").is_err());
    }

    fn parse(text: &str) -> Result<crate::Job, String> {
        crate::parse_jobfile("t.fio", text).map(|f| f.jobs[0].clone()).map_err(|e| e.to_string())
    }

    #[test]
    fn job_file_options() {
        let j = parse("[a]\nrw=randwrite\nbs=4k\nverify=md5\nverify_backlog=64\nverify_fatal=1\n").unwrap();
        assert_eq!(j.verify.method, VerifyMethod::Md5);
        assert_eq!((j.verify.backlog, j.verify.batch(), j.verify.interval), (64, 64, 4096));
        assert!(j.verify.fatal && j.verify.do_verify);
        let j = parse("[a]\nrw=write\nbssplit=4k/50:16k/50\nverify_pattern=0xaa\n").unwrap();
        assert_eq!(j.verify.method, VerifyMethod::Pattern, "a pattern alone turns verify on, as fio");
        let j = parse("[a]\nrw=write\nverify=crc32c\ncontinue_on_error=verify\ndo_verify=0\n").unwrap();
        assert!(j.verify.continue_on_error && !j.verify.do_verify);
        // A read-only job verifies what it reads (an earlier writer's headers).
        let j = parse("[a]\nrw=randread\nbs=64k\nverify=meta\nverify_interval=512\n").unwrap();
        assert_eq!((j.verify.method, j.verify.interval), (VerifyMethod::Meta, 512));
        // A mix verifies its writes (its own reads are plain reads, as fio's).
        let j = parse("[a]\nrw=randrw\nverify=crc32c\n").unwrap();
        assert_eq!((j.verify.method, j.verify.interval), (VerifyMethod::Crc32c, 4096));
        let e = parse("[a]\nrw=randtrim\nverify=crc32c\n").unwrap_err();
        assert!(e.starts_with("t.fio:3: option 'verify': job 'a': verify with rw=randtrim"), "{e}");
        let e = parse("[a]\nrw=read\nbssplit=4k/50:6k/50,16k/100\nverify=crc32c\nverify_interval=4k\n").unwrap_err();
        assert!(e.contains("6144 is not a multiple of the verify interval 4096"), "reads' sizes count: {e}");
        let e = parse("[a]\nrw=write\nbssplit=4k/50:6k/50\nverify=crc32c\n").unwrap_err();
        assert!(e.contains("6144 is not a multiple of the verify interval 4096"), "{e}");
        let e = parse("[a]\nrw=write\nbs=4k\nverify=sha256\nverify_interval=64\n").unwrap_err();
        assert!(e.contains("smaller than flashlab's 80-byte verify header"), "{e}");
        assert!(parse("[a]\nrw=write\nverify=xxhash\n").unwrap_err().to_string().contains("flashlab implements"));
        assert!(parse("[a]\nrw=write\nverify_only=1\n").unwrap_err().to_string().contains("not supported"));
    }

    #[test]
    fn continue_values() {
        assert!(continue_on_verify("verify").unwrap());
        assert!(!continue_on_verify("read,write").unwrap());
        assert!(continue_on_verify("all").unwrap());
        assert!(continue_on_verify("sometimes").is_err());
    }
}
