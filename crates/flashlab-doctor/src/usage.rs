//! How full a filesystem is: `statvfs` on the live system, a captured `df` output otherwise.
//!
//! "Used %" is computed as `df` does: used / (used + available to unprivileged users), so the
//! blocks ext4 reserves for root count as not available.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Size and usage of one filesystem, as `df` reports them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Size in bytes.
    pub size_bytes: u64,
    /// Used bytes.
    pub used_bytes: u64,
    /// Available to unprivileged users.
    pub avail_bytes: u64,
    /// used / (used + avail) × 100, as df computes it, to two decimals.
    pub used_pct: f64,
    /// `statvfs` or `df`.
    pub from: String,
}

impl Usage {
    /// Usage from byte counts (`from`: `statvfs` or `df`); computes `used_pct` as df does.
    pub fn new(size: u64, used: u64, avail: u64, from: &str) -> Usage {
        let denom = used as f64 + avail as f64;
        // Two decimals: enough for any report, and exact through JSON.
        let used_pct = if denom > 0.0 { (used as f64 * 10000.0 / denom).round() / 100.0 } else { 0.0 };
        Usage { size_bytes: size, used_bytes: used, avail_bytes: avail, used_pct, from: from.to_string() }
    }
}

/// Usage of the filesystem mounted at `path` on the live system.
pub fn statvfs(path: &Path) -> Result<Usage, crate::DoctorError> {
    let s = flashlab_sysfacts::statvfs::statvfs(path).map_err(crate::DoctorError::Statvfs)?;
    Ok(Usage::new(s.size, s.used, s.avail, "statvfs"))
}

/// Parses a size column: a plain count of `unit`-byte blocks, or a human size (`12G`, `1.5T`).
fn parse_size(s: &str, unit: u64) -> Option<u64> {
    if let Ok(n) = s.parse::<u64>() {
        return n.checked_mul(unit);
    }
    let (num, suf) = s.split_at(s.find(|c: char| c.is_ascii_alphabetic())?);
    let v: f64 = num.parse().ok()?;
    let m: f64 = match suf.trim_end_matches(['i', 'B']) {
        "K" | "k" => 1024.0,
        "M" => 1048576.0,
        "G" => 1073741824.0,
        "T" => 1099511627776.0,
        "P" => 1125899906842624.0,
        _ => return None,
    };
    if !v.is_finite() || v < 0.0 || v * m > u64::MAX as f64 {
        return None;
    }
    Some((v * m) as u64)
}

/// Parses `df -P -k` / `df -k` / `df` output (GNU coreutils, busybox, toybox): usage by mount
/// point. Returns the table and the numbers of lines that could not be read.
///
/// The block size comes from the header (`1K-blocks`, `1024-blocks`, `512-blocks`,
/// `1B-blocks`, `1M-blocks`; `Size` means human sizes). A long device name on its own line
/// (non-POSIX df wraps them) is joined with the next line. Mount points may contain spaces.
pub fn parse_df(text: &str) -> (BTreeMap<String, Usage>, Vec<usize>) {
    let mut out = BTreeMap::new();
    let mut bad = Vec::new();
    let mut unit: u64 = 1024;
    let mut carry: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        if f[0] == "Filesystem" {
            if let Some(col) = f.get(1) {
                let c = col.to_ascii_lowercase();
                unit = if c == "size" {
                    1
                } else if let Some(n) = c.strip_suffix("-blocks") {
                    match n {
                        "1k" | "1024" => 1024,
                        "512" => 512,
                        "1b" | "1" => 1,
                        "1m" => 1 << 20,
                        _ => n.parse().unwrap_or(1024),
                    }
                } else {
                    1024
                };
            }
            continue;
        }
        let mut fields: Vec<String> = Vec::new();
        if let Some(c) = carry.take() {
            fields.push(c);
        }
        fields.extend(f.iter().map(|s| s.to_string()));
        if fields.len() == 1 {
            carry = fields.pop();
            continue;
        }
        if fields.len() < 6 {
            bad.push(i + 1);
            continue;
        }
        let size = parse_size(&fields[1], unit);
        let used = parse_size(&fields[2], unit);
        let avail = parse_size(&fields[3], unit);
        let mp = fields[5..].join(" ");
        if !mp.starts_with('/') {
            bad.push(i + 1);
            continue;
        }
        match (size, used, avail) {
            (Some(s), Some(u), Some(a)) => {
                out.insert(mp, Usage::new(s, u, a, "df"));
            }
            _ => bad.push(i + 1),
        }
    }
    (out, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn df_posix() {
        let (m, bad) = parse_df(
            "Filesystem     1024-blocks     Used Available Capacity Mounted on\n/dev/mmcblk0p2    30000000 27000000   2300000      93% /\n/dev/x 10 5 5 50% /media/my disk\n",
        );
        assert!(bad.is_empty());
        let u = &m["/"];
        assert_eq!(u.size_bytes, 30_000_000 * 1024);
        assert!((u.used_pct - 92.15).abs() < 0.01);
        assert!(m.contains_key("/media/my disk"));
    }

    #[test]
    fn df_wrapped_and_human() {
        let (m, bad) = parse_df("Filesystem Size Used Avail Use% Mounted on\n/dev/mapper/very-long-name\n  20G 10G 10G 50% /home\ngarbage line\n");
        assert_eq!(bad, vec![4]);
        assert_eq!(m["/home"].size_bytes, 20 << 30);
    }
}
