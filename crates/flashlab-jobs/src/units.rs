//! Size and time strings as fio reads them (`4k`, `1g`, `50%`, `0x1000`, `30s`, `500ms`),
//! and a human formatter for byte counts.
//!
//! # How `k` and `KiB` are read (fio's `kb_base`)
//!
//! This follows fio's HOWTO ("Parameter types", `int`, and the `kb_base` option) and fio's
//! `parse.c`, including fio's surprising default:
//!
//! | suffix (case-insensitive)         | `kb_base=1024` (fio's default) | `kb_base=1000`      |
//! |-----------------------------------|--------------------------------|---------------------|
//! | none, `b`                         | bytes                          | bytes               |
//! | `k`, `kb`  (`m`, `g`, `t`, `p`)   | 1024, 1024², ...               | 1000, 1000², ...    |
//! | `ki`, `kib` (`mi`, `gi`, `ti`, `pi`) | **1000**, 1000², ...        | 1024, 1024², ...    |
//!
//! With the default `kb_base=1024` fio is in "compatibility mode": the SI-looking prefixes are
//! powers of two (`4k` = `4K` = `4kb` = `4KB` = 4096) and the IEC prefixes are powers of *ten*
//! (`4KiB` = 4000, `1mi` = 1 000 000). With `kb_base=1000` both follow the standards
//! (`4k` = 4000, `4KiB` = 4096). flashlab reads job files exactly as fio does, so that a job file
//! means the same thing to both tools; the job-file parser adds a warning wherever an IEC prefix
//! is used under `kb_base=1024` (see [`uses_iec_prefix`]), because that is rarely what was meant.
//!
//! Where flashlab is stricter than fio (fio silently misreads these; flashlab refuses them):
//! fractional numbers (`1.5g`: fio reads 1 byte), unknown suffixes (`4q`, `4kx`: fio ignores the
//! junk), hex with a suffix (`0x10k`), negative numbers, arithmetic expressions `(1+2)k`, fio's
//! zone suffix `z`, and values that overflow 64 bits.
//!
//! Times: a number with an optional suffix, case-insensitive: `ns`/`nsec` (a flashlab
//! extension), `us`/`usec`, `ms`/`msec`, `s`/`sec`, `m`/`min` (**minutes**, as in fio — never
//! milli), `h`, `d`. A bare number is in the option's default unit: seconds for `runtime` and
//! `ramp_time`, microseconds for `thinktime`.

use serde::{Deserialize, Serialize};

/// fio's default `kb_base`.
pub const KB_BASE_DEFAULT: u32 = 1024;

/// A size or time string that could not be read. Displays as
/// `bad size '12q': unknown suffix 'q'`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad {what} '{input}': {reason}")]
pub struct UnitError {
    /// What was being read: "size", "time", "number", "percentage".
    pub what: &'static str,
    /// The text as given (trimmed).
    pub input: String,
    /// Why it was rejected.
    pub reason: String,
}

/// Until every caller returns a typed error: the message, as it always was.
impl From<UnitError> for String {
    fn from(e: UnitError) -> String {
        e.to_string()
    }
}

impl UnitError {
    fn new(what: &'static str, input: &str, reason: impl Into<String>) -> Self {
        UnitError { what, input: input.to_string(), reason: reason.into() }
    }
}

/// A size that is either absolute or a percentage of something the target knows (the device
/// or file size), as in fio's `size=50%` or `offset=25%`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeSpec {
    /// An absolute number of bytes.
    Bytes(u64),
    /// A percentage (0..=100) of the total the target resolves it against.
    Percent(f64),
}

impl SizeSpec {
    /// The size in bytes given the total a percentage refers to (rounded down).
    pub fn resolve(&self, total: u64) -> u64 {
        match *self {
            SizeSpec::Bytes(b) => b,
            SizeSpec::Percent(p) => {
                let p = if p.is_finite() { p.clamp(0.0, 100.0) } else { 0.0 };
                // Exact for integer percentages (all the parser produces).
                if p.fract() == 0.0 {
                    ((total as u128 * p as u128) / 100) as u64
                } else {
                    (total as f64 * p / 100.0) as u64
                }
            }
        }
    }

    /// The absolute byte count, if this is not a percentage.
    pub fn bytes(&self) -> Option<u64> {
        match *self {
            SizeSpec::Bytes(b) => Some(b),
            SizeSpec::Percent(_) => None,
        }
    }
}

impl std::fmt::Display for SizeSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            SizeSpec::Bytes(b) => write!(f, "{}", format_size_iec(b)),
            SizeSpec::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// The unit a bare number (no suffix) is read in by [`parse_time_ns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TimeUnit {
    /// ns.
    Nanoseconds,
    /// µs (fio's `thinktime`).
    Microseconds,
    /// ms.
    Milliseconds,
    /// s (fio's `runtime`, `ramp_time`).
    Seconds,
}

impl TimeUnit {
    /// Nanoseconds in one of this unit.
    pub fn ns(self) -> u64 {
        match self {
            TimeUnit::Nanoseconds => 1,
            TimeUnit::Microseconds => 1_000,
            TimeUnit::Milliseconds => 1_000_000,
            TimeUnit::Seconds => 1_000_000_000,
        }
    }
}

/// Splits `s` (already trimmed, non-empty) into its integer value and the suffix after it.
/// Accepts decimal digits, or `0x`/`0X` followed by hex digits (no suffix allowed after hex).
fn split_number<'a>(what: &'static str, input: &str, s: &'a str) -> Result<(u64, &'a str), UnitError> {
    if s.starts_with('(') {
        return Err(UnitError::new(what, input, "arithmetic expressions are not supported"));
    }
    if s.starts_with('-') {
        return Err(UnitError::new(what, input, "negative values are not allowed"));
    }
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if hex.is_empty() {
            return Err(UnitError::new(what, input, "no digits after '0x'"));
        }
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(UnitError::new(what, input, "hexadecimal values take no suffix and only the digits 0-9, a-f"));
        }
        let v =
            u64::from_str_radix(hex, 16).map_err(|_| UnitError::new(what, input, "too large (more than 64 bits)"))?;
        return Ok((v, ""));
    }
    let digits = s.bytes().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return Err(UnitError::new(what, input, "expected a number"));
    }
    let (num, rest) = s.split_at(digits);
    if rest.starts_with('.') {
        return Err(UnitError::new(
            what,
            input,
            "fractional values are not supported (fio would truncate them); use a smaller unit, e.g. 1536k for 1.5m",
        ));
    }
    let v: u64 = num.parse().map_err(|_| UnitError::new(what, input, "too large (more than 64 bits)"))?;
    Ok((v, rest))
}

/// The multiplier for a size suffix, or why the suffix is refused. `suffix` is lower-cased.
fn size_multiplier(suffix: &str, kb_base: u32) -> Result<u64, SuffixError> {
    if suffix.is_empty() || suffix == "b" {
        return Ok(1);
    }
    let mut chars = suffix.chars();
    let prefix = chars.next().unwrap_or(' ');
    let rest = chars.as_str();
    let pow = match prefix {
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        'p' => 5,
        'z' => return Err(SuffixError::Zone),
        _ => return Err(SuffixError::Unknown(suffix.to_string())),
    };
    let base: u64 = match rest {
        "" | "b" => kb_base as u64,
        // IEC prefixes: the opposite base of kb_base (fio's compatibility mode).
        "i" | "ib" => {
            if kb_base == 1000 {
                1024
            } else {
                1000
            }
        }
        _ => return Err(SuffixError::Unknown(suffix.to_string())),
    };
    Ok(base.pow(pow))
}

/// Why a size suffix is refused (the unit error's reason).
#[derive(Debug, thiserror::Error)]
enum SuffixError {
    /// fio's `z` (zones).
    #[error("fio's zone suffix 'z' is not supported")]
    Zone,
    /// Anything else.
    #[error("unknown suffix '{0}' (expected k, m, g, t or p, optionally followed by b, i or ib)")]
    Unknown(String),
}

fn check_kb_base(what: &'static str, input: &str, kb_base: u32) -> Result<(), UnitError> {
    if kb_base == 1000 || kb_base == 1024 {
        Ok(())
    } else {
        Err(UnitError::new(what, input, format!("kb_base must be 1000 or 1024, not {kb_base}")))
    }
}

/// Reads an integer with an optional fio size suffix, as fio reads every integer option.
pub(crate) fn parse_int_suffixed(what: &'static str, s: &str, kb_base: u32) -> Result<u64, UnitError> {
    let input = s.trim();
    check_kb_base(what, input, kb_base)?;
    if input.is_empty() {
        return Err(UnitError::new(what, input, "empty value"));
    }
    let (v, suffix) = split_number(what, input, input)?;
    if suffix.ends_with('%') {
        return Err(UnitError::new(what, input, "a percentage is not allowed here"));
    }
    let mult = size_multiplier(&suffix.to_ascii_lowercase(), kb_base)
        .map_err(|r| UnitError::new(what, input, r.to_string()))?;
    v.checked_mul(mult).ok_or_else(|| UnitError::new(what, input, "too large (more than 2^64-1 bytes)"))
}

/// Parses a byte count as fio does: `4096`, `4k`, `4KB`, `1g`, `0x1000`, ... (see the module
/// docs for how `kb_base` changes `k` vs `KiB`). Percentages are rejected; use
/// [`parse_size_spec`] where they are allowed.
///
/// ```
/// use flashlab_jobs::units::parse_size;
/// assert_eq!(parse_size("4k", 1024).unwrap(), 4096);
/// assert_eq!(parse_size("4KiB", 1000).unwrap(), 4096);
/// assert_eq!(parse_size("4KiB", 1024).unwrap(), 4000); // fio's compatibility mode
/// assert_eq!(parse_size("12q", 1024).unwrap_err().to_string(), "bad size '12q': unknown suffix 'q' (expected k, m, g, t or p, optionally followed by b, i or ib)");
/// ```
pub fn parse_size(s: &str, kb_base: u32) -> Result<u64, UnitError> {
    parse_int_suffixed("size", s, kb_base)
}

/// Like [`parse_size`], but also accepts a whole percentage from 0 to 100 (`50%`), as fio's
/// `size=` and `offset=` do.
pub fn parse_size_spec(s: &str, kb_base: u32) -> Result<SizeSpec, UnitError> {
    let input = s.trim();
    // `100%%` is 100 %: fio reads only the first character of the suffix, so a doubled
    // (escaped) percent sign means the same.
    if let Some(num) = input.strip_suffix("%%").or_else(|| input.strip_suffix('%')) {
        let num = num.trim_end();
        check_kb_base("percentage", input, kb_base)?;
        let (v, rest) = split_number("percentage", input, num)?;
        if !rest.is_empty() {
            return Err(UnitError::new("percentage", input, "expected a whole number before '%'"));
        }
        if v > 100 {
            return Err(UnitError::new("percentage", input, "must be between 0 and 100"));
        }
        return Ok(SizeSpec::Percent(v as f64));
    }
    parse_size(input, kb_base).map(SizeSpec::Bytes)
}

/// True if `s` uses an IEC prefix (`Ki`, `KiB`, `Mi`, ...). Under fio's default
/// `kb_base=1024` those mean powers of 1000, which the job-file parser warns about.
pub fn uses_iec_prefix(s: &str) -> bool {
    let t = s.trim().to_ascii_lowercase();
    let suffix = t.trim_start_matches(|c: char| c.is_ascii_digit());
    matches!(
        suffix.as_bytes(),
        [b'k' | b'm' | b'g' | b't' | b'p', b'i'] | [b'k' | b'm' | b'g' | b't' | b'p', b'i', b'b']
    )
}

/// Parses a duration as fio does and returns nanoseconds. A bare number is in `default_unit`
/// (fio: seconds for `runtime`/`ramp_time`, microseconds for `thinktime`).
///
/// ```
/// use flashlab_jobs::units::{parse_time_ns, TimeUnit};
/// assert_eq!(parse_time_ns("30", TimeUnit::Seconds).unwrap(), 30_000_000_000);
/// assert_eq!(parse_time_ns("2m", TimeUnit::Seconds).unwrap(), 120_000_000_000); // minutes
/// assert_eq!(parse_time_ns("500ms", TimeUnit::Seconds).unwrap(), 500_000_000);
/// ```
pub fn parse_time_ns(s: &str, default_unit: TimeUnit) -> Result<u64, UnitError> {
    let input = s.trim();
    if input.is_empty() {
        return Err(UnitError::new("time", input, "empty value"));
    }
    let (v, suffix) = split_number("time", input, input)?;
    let mult: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" => default_unit.ns(),
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60 * 1_000_000_000,
        "h" => 3_600 * 1_000_000_000,
        "d" => 86_400 * 1_000_000_000,
        other => {
            return Err(UnitError::new(
                "time",
                input,
                format!("unknown suffix '{other}' (expected us, ms, s, m, h or d)"),
            ))
        }
    };
    v.checked_mul(mult).ok_or_else(|| UnitError::new("time", input, "too long (more than 2^64-1 ns, about 584 years)"))
}

/// Formats a byte count for humans with IEC units: `512 B`, `4 KiB`, `1.5 MiB`, `100 GiB`.
/// Exact multiples print without decimals; others with one decimal.
pub fn format_size_iec(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut k = 0;
    while k + 1 < UNITS.len() && bytes >= 1u64 << (10 * (k + 1)) {
        k += 1;
    }
    let div = 1u64 << (10 * k);
    if bytes.is_multiple_of(div) {
        return format!("{} {}", bytes / div, UNITS[k]);
    }
    let mut v = bytes as f64 / div as f64;
    // 1023.96 KiB would print as "1024.0 KiB": move up a unit instead.
    if (v * 10.0).round() >= 10240.0 && k + 1 < UNITS.len() {
        k += 1;
        v /= 1024.0;
    }
    format!("{v:.1} {}", UNITS[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_kb_base_is_compatibility_mode() {
        for s in ["4k", "4K", "4kb", "4KB", "4kB", "4096", "4096b", "4096B", "0x1000"] {
            assert_eq!(parse_size(s, 1024).unwrap(), 4096, "{s}");
        }
        // The HOWTO's examples for kb_base=1024.
        assert_eq!(parse_size("1m", 1024).unwrap(), 1 << 20);
        assert_eq!(parse_size("1024k", 1024).unwrap(), 1 << 20);
        assert_eq!(parse_size("1mi", 1024).unwrap(), 1_000_000);
        assert_eq!(parse_size("1000ki", 1024).unwrap(), 1_000_000);
        assert_eq!(parse_size("1t", 1024).unwrap(), 1 << 40);
        assert_eq!(parse_size("1048576m", 1024).unwrap(), 1 << 40);
        assert_eq!(parse_size("1ti", 1024).unwrap(), 1_000_000_000_000);
        assert_eq!(parse_size("4KiB", 1024).unwrap(), 4000);
    }

    #[test]
    fn kb_base_1000_follows_the_standards() {
        for s in ["4096", "4096b", "4ki", "4kib", "4kiB", "4Ki", "4KiB"] {
            assert_eq!(parse_size(s, 1000).unwrap(), 4096, "{s}");
        }
        assert_eq!(parse_size("1mi", 1000).unwrap(), 1 << 20);
        assert_eq!(parse_size("1m", 1000).unwrap(), 1_000_000);
        assert_eq!(parse_size("1000k", 1000).unwrap(), 1_000_000);
        assert_eq!(parse_size("1ti", 1000).unwrap(), 1 << 40);
        assert_eq!(parse_size("1024gi", 1000).unwrap(), 1 << 40);
        assert_eq!(parse_size("1t", 1000).unwrap(), 1_000_000_000_000);
        assert_eq!(parse_size("1p", 1000).unwrap(), 1_000_000_000_000_000);
        assert_eq!(parse_size("1pib", 1000).unwrap(), 1 << 50);
    }

    #[test]
    fn errors_say_what_was_wrong() {
        assert_eq!(
            parse_size("12q", 1024).unwrap_err().to_string(),
            "bad size '12q': unknown suffix 'q' (expected k, m, g, t or p, optionally followed by b, i or ib)"
        );
        assert!(parse_size("1.5g", 1024).unwrap_err().reason.contains("fractional"));
        assert!(parse_size("", 1024).unwrap_err().reason.contains("empty"));
        assert!(parse_size("k", 1024).unwrap_err().reason.contains("expected a number"));
        assert!(parse_size("-4k", 1024).unwrap_err().reason.contains("negative"));
        assert!(parse_size("0x10k", 1024).is_err());
        assert!(parse_size("4kx", 1024).is_err());
        assert!(parse_size("4 k", 1024).is_err());
        assert!(parse_size("16e", 1024).is_err());
        assert!(parse_size("(1+2)k", 1024).unwrap_err().reason.contains("arithmetic"));
        assert!(parse_size("50%", 1024).unwrap_err().reason.contains("percentage"));
        assert!(parse_size("20000p", 1024).unwrap_err().reason.contains("too large"));
        assert!(parse_size("99999999999999999999", 1024).unwrap_err().reason.contains("too large"));
        assert!(parse_size("4k", 1023).unwrap_err().reason.contains("kb_base"));
        assert!(parse_size("1z", 1024).unwrap_err().reason.contains("zone"));
    }

    #[test]
    fn percentages() {
        assert_eq!(parse_size_spec("50%", 1024).unwrap(), SizeSpec::Percent(50.0));
        assert_eq!(parse_size_spec(" 100% ", 1024).unwrap(), SizeSpec::Percent(100.0));
        assert_eq!(parse_size_spec("0%", 1024).unwrap(), SizeSpec::Percent(0.0));
        assert_eq!(parse_size_spec("1g", 1024).unwrap(), SizeSpec::Bytes(1 << 30));
        assert!(parse_size_spec("101%", 1024).is_err());
        assert!(parse_size_spec("12.5%", 1024).is_err());
        assert!(parse_size_spec("%", 1024).is_err());
        assert!(parse_size_spec("5k%", 1024).is_err());
        assert_eq!(parse_size_spec("100%%", 1024).unwrap(), SizeSpec::Percent(100.0), "fio's escaped percent");
        assert_eq!(parse_size_spec("30 %%", 1024).unwrap(), SizeSpec::Percent(30.0));
        assert!(parse_size_spec("30%%%", 1024).is_err());
        assert_eq!(SizeSpec::Percent(50.0).resolve(1000), 500);
        assert_eq!(SizeSpec::Percent(100.0).resolve(u64::MAX), u64::MAX);
        assert_eq!(SizeSpec::Bytes(7).resolve(1000), 7);
    }

    #[test]
    fn iec_detection() {
        assert!(uses_iec_prefix("4KiB"));
        assert!(uses_iec_prefix("4ki"));
        assert!(uses_iec_prefix("1Mi"));
        assert!(!uses_iec_prefix("4k"));
        assert!(!uses_iec_prefix("4kb"));
        assert!(!uses_iec_prefix("4096"));
    }

    #[test]
    fn times() {
        let s = TimeUnit::Seconds;
        assert_eq!(parse_time_ns("60", s).unwrap(), 60_000_000_000);
        assert_eq!(parse_time_ns("60s", s).unwrap(), 60_000_000_000);
        assert_eq!(parse_time_ns("60sec", s).unwrap(), 60_000_000_000);
        assert_eq!(parse_time_ns("1m", s).unwrap(), 60_000_000_000);
        assert_eq!(parse_time_ns("1min", s).unwrap(), 60_000_000_000);
        assert_eq!(parse_time_ns("1M", s).unwrap(), 60_000_000_000);
        assert_eq!(parse_time_ns("2h", s).unwrap(), 7_200_000_000_000);
        assert_eq!(parse_time_ns("1d", s).unwrap(), 86_400_000_000_000);
        assert_eq!(parse_time_ns("250ms", s).unwrap(), 250_000_000);
        assert_eq!(parse_time_ns("250msec", s).unwrap(), 250_000_000);
        assert_eq!(parse_time_ns("10us", s).unwrap(), 10_000);
        assert_eq!(parse_time_ns("10usec", s).unwrap(), 10_000);
        assert_eq!(parse_time_ns("10ns", s).unwrap(), 10);
        assert_eq!(parse_time_ns("100", TimeUnit::Microseconds).unwrap(), 100_000);
        assert!(parse_time_ns("10x", s).unwrap_err().to_string().starts_with("bad time '10x': unknown suffix 'x'"));
        assert!(parse_time_ns("1.5s", s).is_err());
        assert!(parse_time_ns("999999999999d", s).unwrap_err().reason.contains("too long"));
    }

    #[test]
    fn formatting() {
        assert_eq!(format_size_iec(0), "0 B");
        assert_eq!(format_size_iec(1000), "1000 B");
        assert_eq!(format_size_iec(4096), "4 KiB");
        assert_eq!(format_size_iec(1536), "1.5 KiB");
        assert_eq!(format_size_iec(100 << 20), "100 MiB");
        assert_eq!(format_size_iec(1_000_000), "976.6 KiB");
        assert_eq!(format_size_iec((1 << 20) - 1), "1.0 MiB");
        assert_eq!(format_size_iec(u64::MAX), "16.0 EiB");
        assert_eq!(format_size_iec(1 << 60), "1 EiB");
    }
}
