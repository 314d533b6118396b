//! Block traces as the workload instead of the usage model: the formats ([`blkparse`] text,
//! fio's [`iolog`] v2/v3, the [`msr`] Cambridge CSV) parse into one list of [`TraceOp`]s, and
//! [`replay`] plays them on the simulated device, timestamps honoured or compressed;
//! [`stats`] says what they ask of it (read/write ratio, block-size mix, write skew).
//!
//! Every malformed line is an error naming the file and the line: `trace.csv:12: ...`.

mod blkparse;
mod iolog;
mod msr;
pub mod replay;
pub mod stats;

use flashsim::{Ns, Op};
use std::fmt;

/// One request of a trace: when it was issued (ns from the trace's first request), what, where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceOp {
    /// Issue time, ns from the trace's first request.
    pub t_ns: Ns,
    /// Read, write, trim or flush.
    pub op: Op,
    /// Bytes from the start of the traced device; 0 for a flush.
    pub offset: u64,
    /// Length in bytes; 0 for a flush.
    pub len: u64,
}

/// A trace file that does not parse: the file, the line (0: the whole file) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// The file as named.
    pub file: String,
    /// 1-based line; 0 when the problem is the whole file's.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

/// The trace formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `blkparse` default text output (blktrace).
    Blkparse,
    /// fio's iolog version 2 or 3.
    Iolog,
    /// The MSR Cambridge CSV traces (SNIA IOTTA).
    Msr,
}

impl Format {
    /// Parses `blkparse`, `iolog` or `msr`.
    pub fn parse(s: &str) -> Result<Format, crate::LifeError> {
        match s {
            "blkparse" => Ok(Format::Blkparse),
            "iolog" => Ok(Format::Iolog),
            "msr" => Ok(Format::Msr),
            _ => Err(crate::LifeError::TraceFormat(s.to_string())),
        }
    }

    /// Guess from the text: fio's version line, else a comma-separated first line (MSR), else
    /// blkparse.
    pub fn detect(text: &str) -> Format {
        let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        if first.starts_with("fio version") {
            Format::Iolog
        } else if first.split(',').count() >= 7 {
            Format::Msr
        } else {
            Format::Blkparse
        }
    }
}

/// Parse a trace's text; `file` names it in errors. The ops come back in time order, the first
/// at 0 ns.
pub fn parse(file: &str, text: &str, format: Format) -> Result<Vec<TraceOp>, TraceError> {
    let mut ops = match format {
        Format::Blkparse => blkparse::parse(file, text)?,
        Format::Iolog => iolog::parse(file, text)?,
        Format::Msr => msr::parse(file, text)?,
    };
    if ops.is_empty() {
        return Err(TraceError { file: file.into(), line: 0, message: "no requests to replay".into() });
    }
    // Stable: requests with the same time keep the trace's order.
    ops.sort_by_key(|o| o.t_ns);
    let t0 = ops[0].t_ns;
    for o in &mut ops {
        o.t_ns -= t0;
    }
    // Bounds (docs/reliability.md): a trace spans at most 100 years, and its offsets and
    // lengths stay far below where offset + length could wrap.
    let span = ops.last().map_or(0, |o| o.t_ns);
    if span > flashlab_jobs::limits::MAX_DURATION_NS {
        return Err(err(
            file,
            0,
            format!("the trace spans {} s: more than flashlab's limit of 100 years", span / 1_000_000_000),
        ));
    }
    if let Some(o) =
        ops.iter().find(|o| o.offset > flashlab_jobs::limits::MAX_BYTES || o.len > flashlab_jobs::limits::MAX_BYTES)
    {
        return Err(err(
            file,
            0,
            format!("a request at offset {} of {} bytes: beyond flashlab's limit of 1 PiB", o.offset, o.len),
        ));
    }
    Ok(ops)
}

/// An error at `line` of `file`.
pub(crate) fn err(file: &str, line: usize, message: impl Into<String>) -> TraceError {
    TraceError { file: file.to_string(), line, message: message.into() }
}

/// A non-negative integer field, or an error naming it.
pub(crate) fn num(file: &str, line: usize, what: &str, s: &str) -> Result<u64, TraceError> {
    s.trim().parse::<u64>().map_err(|_| err(file, line, format!("{what} '{}' is not a non-negative integer", s.trim())))
}

/// Seconds with up to 9 decimals (`12.000345678`) to ns, exactly.
pub(crate) fn seconds_ns(file: &str, line: usize, s: &str) -> Result<Ns, TraceError> {
    let bad = || err(file, line, format!("timestamp '{s}' is not seconds like 12.000345678"));
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let w: u64 = whole.parse().map_err(|_| bad())?;
    let f: u64 =
        if frac.is_empty() { 0 } else { frac.parse::<u64>().map_err(|_| bad())? * 10u64.pow(9 - frac.len() as u32) };
    w.checked_mul(1_000_000_000).and_then(|x| x.checked_add(f)).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_and_seconds() {
        assert_eq!(Format::detect("\nfio version 2 iolog\n"), Format::Iolog);
        assert_eq!(Format::detect("128166372003061629,wdev,0,Read,3277119488,4096,1475\n"), Format::Msr);
        assert_eq!(
            Format::detect("  8,0    3        1     0.000000000   697  D  WS 223490 + 8 [x]\n"),
            Format::Blkparse
        );
        assert_eq!(seconds_ns("f", 1, "1.5").unwrap(), 1_500_000_000);
        assert_eq!(seconds_ns("f", 1, "0.000000001").unwrap(), 1);
        assert!(seconds_ns("f", 3, "1.x").unwrap_err().to_string().starts_with("f:3:"));
    }
}
