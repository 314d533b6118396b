//! Sizes and durations on flashlab's command line and in protocol files.
//!
//! Sizes: every suffix is binary — `4k`, `4K`, `4KB` and `4KiB` are all 4096 bytes, `16g` and
//! `16GiB` are 16 x 2^30 — which is what fio's default (`kb_base=1024`) does for `k`/`KB` and
//! what IEC says for `KiB`. (Inside fio job files flashlab follows fio exactly, including fio's
//! reading of `KiB` as 1000 under `kb_base=1024`; see the jobs crate.) Plain numbers are bytes.
//! Durations: flashlab's one duration grammar, used by every option and file outside fio job
//! files (`--idle`, `--gap`, `--duration`, protocol steps, trim and life policies): a number (a
//! fraction is allowed: `1.5h`) and a unit, case-insensitive — fio's `ns`, `us`, `ms`, `s`,
//! `m` (**minutes**, as in fio), `h`, `d`, their long names (`sec`, `min`, `hours`, `days`, …),
//! and `w`/`weeks`, `mo`/`months` (a twelfth of 365 days), `y`/`years` (365 days). A bare
//! number is seconds. (Job files keep fio's own integer-only grammar: see the jobs crate.)

use flashlab_jobs::units::{parse_size, uses_iec_prefix, UnitError};

/// A size from the command line or a protocol file, in bytes.
pub fn parse_cli_size(s: &str) -> Result<u64, UnitError> {
    // With kb_base=1000 fio reads IEC prefixes as powers of 1024; with 1024, SI-looking ones.
    let base = if uses_iec_prefix(s) { 1000 } else { 1024 };
    parse_size(s, base)
}

/// Nanoseconds in a day.
const DAY_NS: u64 = 86_400_000_000_000;

/// A duration in flashlab's grammar (see the module doc), in nanoseconds.
pub fn parse_duration_ns(s: &str) -> Result<u64, UnitError> {
    let input = s.trim();
    let bad = |reason: String| UnitError { what: "duration", input: input.to_string(), reason };
    let split = input.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(input.len());
    let (number, unit) = input.split_at(split);
    if number.is_empty() {
        return Err(bad("expected a number and a unit, like 30s, 24h, 30d, 12months".into()));
    }
    let unit_ns = match unit.trim().to_ascii_lowercase().as_str() {
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "" | "s" | "sec" | "secs" | "second" | "seconds" => 1_000_000_000,
        "m" | "min" | "mins" | "minute" | "minutes" => 60_000_000_000,
        "h" | "hour" | "hours" => 3_600_000_000_000,
        "d" | "day" | "days" => DAY_NS,
        "w" | "week" | "weeks" => 7 * DAY_NS,
        "mo" | "month" | "months" => 365 * DAY_NS / 12,
        "y" | "year" | "years" => 365 * DAY_NS,
        u => return Err(bad(format!("unknown unit '{u}' (expected ns, us, ms, s, m, h, d, w, months or y)"))),
    };
    let too_large = || bad("too large (more than 64 bits of nanoseconds)".into());
    if let Ok(n) = number.parse::<u64>() {
        return n.checked_mul(unit_ns).ok_or_else(too_large);
    }
    let n: f64 = number.parse().map_err(|_| bad(format!("'{number}' is not a number")))?;
    let ns = (n * unit_ns as f64).round();
    if ns >= u64::MAX as f64 {
        return Err(too_large());
    }
    Ok(ns as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_binary() {
        for s in ["4k", "4K", "4KB", "4KiB", "4kib", "4096"] {
            assert_eq!(parse_cli_size(s).unwrap(), 4096, "{s}");
        }
        assert_eq!(parse_cli_size("16GiB").unwrap(), 16 << 30);
        assert_eq!(parse_cli_size("300MB").unwrap(), 300 << 20);
        assert!(parse_cli_size("12q").unwrap_err().to_string().contains("12q"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("24h").unwrap(), 24 * 3600 * 1_000_000_000);
        assert_eq!(parse_duration_ns("2").unwrap(), 2_000_000_000);
        assert_eq!(parse_duration_ns("10ms").unwrap(), 10_000_000);
        assert_eq!(parse_duration_ns("2m").unwrap(), 120_000_000_000, "m is minutes, as in fio");
        assert_eq!(parse_duration_ns("1.5h").unwrap(), 5_400_000_000_000);
        assert_eq!(parse_duration_ns("12months").unwrap(), parse_duration_ns("1y").unwrap());
        assert_eq!(parse_duration_ns("1y").unwrap(), 365 * DAY_NS);
        assert_eq!(parse_duration_ns("2 weeks").unwrap(), 14 * DAY_NS);
        assert_eq!(parse_duration_ns("30D").unwrap(), 30 * DAY_NS);
        for bad in ["", "h", "-1s", "3 fortnights", "1..5h", "99999999999y"] {
            let e = parse_duration_ns(bad).unwrap_err().to_string();
            assert!(e.starts_with("bad duration"), "{bad}: {e}");
        }
    }
}
