//! Sizes and durations on flashlab's command line and in protocol files.
//!
//! Sizes: every suffix is binary — `4k`, `4K`, `4KB` and `4KiB` are all 4096 bytes, `16g` and
//! `16GiB` are 16 x 2^30 — which is what fio's default (`kb_base=1024`) does for `k`/`KB` and
//! what IEC says for `KiB`. (Inside fio job files flashlab follows fio exactly, including fio's
//! reading of `KiB` as 1000 under `kb_base=1024`; see the jobs crate.) Plain numbers are bytes.
//! Durations: fio's time suffixes (`us`, `ms`, `s`, `m`, `h`, `d`), seconds when bare.

use flashlab_jobs::units::{parse_size, parse_time_ns, uses_iec_prefix, TimeUnit};

/// A size from the command line or a protocol file, in bytes.
pub fn parse_cli_size(s: &str) -> Result<u64, String> {
    // With kb_base=1000 fio reads IEC prefixes as powers of 1024; with 1024, SI-looking ones.
    let base = if uses_iec_prefix(s) { 1000 } else { 1024 };
    parse_size(s, base).map_err(|e| e.to_string())
}

/// A duration, in nanoseconds.
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    parse_time_ns(s, TimeUnit::Seconds).map_err(|e| e.to_string())
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
        assert!(parse_cli_size("12q").unwrap_err().contains("12q"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("24h").unwrap(), 24 * 3600 * 1_000_000_000);
        assert_eq!(parse_duration_ns("2").unwrap(), 2_000_000_000);
        assert_eq!(parse_duration_ns("10ms").unwrap(), 10_000_000);
    }
}
