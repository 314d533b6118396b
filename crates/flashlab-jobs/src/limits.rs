//! Upper bounds of flashlab's inputs (docs/reliability.md has the table), and reading an input
//! file within its bound.
//!
//! Every input is bounded so that no file, flag or trace can make flashlab run for ever, eat
//! memory without bound or wrap an offset: a value beyond its bound is refused with an error
//! that names the input. The bounds are far above any real use (a fio job file is a few KiB,
//! a device a few TiB) and far below what would overflow 64-bit byte and nanosecond counts.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest fio job file, profile, protocol or usage TOML read (bytes).
pub const MAX_TEXT_INPUT: u64 = 4 << 20;
/// Largest block trace read (bytes): MSR Cambridge's largest volume traces are ~2 GB; cut
/// them with `head` first.
pub const MAX_TRACE_INPUT: u64 = 1 << 30;
/// Largest results document `flashlab report` reads (bytes).
pub const MAX_RESULTS_INPUT: u64 = 256 << 20;
/// Largest size or offset (bytes): 1 PiB, so that offset + size + block size never wraps.
pub const MAX_BYTES: u64 = 1 << 50;
/// Largest I/O count of one job (`--ios`, `number_ios`, `--transactions`).
pub const MAX_IOS: u64 = 100_000_000;
/// Largest queue depth.
pub const MAX_IODEPTH: u32 = 65_536;
/// Largest `numjobs`.
pub const MAX_NUMJOBS: u32 = 4096;
/// Largest number of files of one job (`nrfiles`, `filename=a:b:...`).
pub const MAX_NRFILES: u32 = 4096;
/// Longest duration (runtime, thinktime, simulated life): 100 years in nanoseconds.
pub const MAX_DURATION_NS: u64 = 100 * 365 * 86_400 * 1_000_000_000;

/// An input file that [`read_text`] refused; each names the file (and the line where there is
/// one).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read.
    #[error("{}: cannot read the {what}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the file is ("job file", "trace").
        what: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A NUL byte: not a text file.
    #[error("{}: not a text file (a NUL byte at offset {offset}); a {what} is text", path.display())]
    Binary {
        /// The file.
        path: PathBuf,
        /// What the file is.
        what: String,
        /// Byte offset of the first NUL.
        offset: usize,
    },
    /// More bytes than the input's bound.
    #[error("{}: larger than {max} bytes, the limit for a {what} (docs/reliability.md)", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What the file is.
        what: String,
        /// The bound, bytes.
        max: u64,
    },
    /// Bytes that are not UTF-8.
    #[error("{}:{line}: not UTF-8 text", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The line of the first bad byte.
        line: usize,
    },
}

/// Until every caller returns a typed error: the message, as it always was.
impl From<InputError> for String {
    fn from(e: InputError) -> String {
        e.to_string()
    }
}

/// Read the text file `path` (`what` names it in errors: "job file", "trace"), refusing more
/// than `max` bytes and binary data (a NUL byte) as soon as it is seen: `/dev/zero` or a
/// wrong file fails at once instead of being read for ever.
pub fn read_text(path: &Path, what: &str, max: u64) -> Result<String, InputError> {
    let io = |source| InputError::Io { path: path.to_path_buf(), what: what.to_string(), source };
    let f = std::fs::File::open(path).map_err(io)?;
    let mut r = f.take(max + 1);
    let mut bytes = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if let Some(i) = buf[..n].iter().position(|&b| b == 0) {
            return Err(InputError::Binary {
                path: path.to_path_buf(),
                what: what.to_string(),
                offset: bytes.len() + i,
            });
        }
        bytes.extend_from_slice(&buf[..n]);
        if bytes.len() as u64 > max {
            return Err(InputError::TooLarge { path: path.to_path_buf(), what: what.to_string(), max });
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        InputError::NotUtf8 { path: path.to_path_buf(), line }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_zero_fails_at_once() {
        let t = std::time::Instant::now();
        let e = read_text(Path::new("/dev/zero"), "job file", MAX_TEXT_INPUT).unwrap_err().to_string();
        assert!(e.contains("/dev/zero") && e.contains("NUL"), "{e}");
        assert!(t.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn too_large_and_not_utf8() {
        let d = std::env::temp_dir().join(format!("flashlab-limits-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("big");
        std::fs::write(&p, vec![b'a'; 100]).unwrap();
        assert!(read_text(&p, "trace", 99).unwrap_err().to_string().contains("larger than 99 bytes"));
        assert_eq!(read_text(&p, "trace", 100).unwrap().len(), 100);
        std::fs::write(&p, b"ok\n\xff\n").unwrap();
        assert!(read_text(&p, "trace", 100).unwrap_err().to_string().contains(":2: not UTF-8"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
