//! The usage model's TOML format (documented in docs/life.md; the presets are examples).
//! Errors name the file, the line and the field: `my.toml:12: field 'writes.daily': ...`.
//!
//! Sizes are strings with flashlab's binary suffixes (`4k` = `4KiB` = 4096); a size class is
//! `"MIN-MAX"` or one size.

use crate::usage::{Charging, DayCycle, SizeClass, Usage};
use flashlab_lab::units::parse_cli_size;
use serde::Deserialize;
use std::fmt;

/// A usage file (or preset) that does not parse: where, which field, and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageError {
    /// The file's name, or `preset NAME`.
    pub source: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The field, e.g. `writes.daily`.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.source)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "field '{field}': ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for UsageError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    name: String,
    #[serde(default)]
    description: String,
    writes: Writes,
    #[serde(default)]
    reads: Reads,
    space: Space,
    day: Day,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Writes {
    daily: String,
    #[serde(default)]
    overwrite_daily: Option<String>,
    #[serde(default)]
    overwrite_bs: Option<String>,
    #[serde(default)]
    fsync_every: Option<String>,
    #[serde(default)]
    temp_fraction: f64,
    files: Vec<Files>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Files {
    size: String,
    weight: f64,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Reads {
    #[serde(default)]
    daily: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Space {
    #[serde(default)]
    base_fill: f64,
    keep_fill: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Day {
    active_hours: String,
    sessions: u32,
    charging_hours: String,
    #[serde(default = "default_drain")]
    drain_pct_per_hour: f64,
    #[serde(default = "default_charge")]
    charge_pct_per_hour: f64,
}

fn default_drain() -> f64 {
    5.0
}
fn default_charge() -> f64 {
    30.0
}

/// The line of `key` (the `nth` occurrence, 0-based) inside table `table` ("" = top level;
/// `writes` also covers `[[writes.files]]`).
fn line_of(text: &str, table: &str, key: &str, nth: usize) -> Option<usize> {
    let mut section = String::new();
    let mut seen = 0;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.starts_with('[') {
            section = l.trim_matches(|c| c == '[' || c == ']').trim().to_string();
            continue;
        }
        let in_table = section == table
            || section.starts_with(&format!("{table}."))
            || (!section.is_empty() && table.starts_with(&format!("{section}.")));
        if !in_table {
            continue;
        }
        // Keys at the start of a line, or inside inline tables `{ size = .., weight = .. }`.
        for part in l.split(['{', ',']) {
            if let Some((k, _)) = part.split_once('=') {
                if k.trim() == key {
                    if seen == nth {
                        return Some(i + 1);
                    }
                    seen += 1;
                }
            }
        }
    }
    None
}

fn to_error(source: &str, text: &str, e: toml::de::Error) -> UsageError {
    let start = e.span().map(|s| s.start.min(text.len()));
    let line = start.map(|s| text[..s].matches('\n').count() + 1);
    let field = start.and_then(|s| {
        let line_text =
            text[..s].rsplit('\n').next().unwrap_or("").to_string() + text[s..].split('\n').next().unwrap_or("");
        let key = line_text.split_once('=')?.0.trim().trim_start_matches('{').trim();
        if key.is_empty() || key.starts_with('[') || key.starts_with('#') {
            return None;
        }
        // The table the line is in: the last `[header]` above it.
        let table = text[..s]
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| l.starts_with('['))
            .map(|h| h.trim_matches(['[', ']']).trim());
        Some(match table {
            Some(t) => format!("{t}.{key}"),
            None => key.to_string(),
        })
    });
    UsageError { source: source.to_string(), line, field, message: e.message().trim().to_string() }
}

/// What is wrong with an hours range (the message goes into a [`UsageError`] for its field).
#[derive(Debug, thiserror::Error)]
enum HoursError {
    /// No `-` between two hours.
    #[error("'{0}' is not hours like \"7-23\"")]
    NotRange(String),
    /// One side is not a whole number.
    #[error("'{range}': '{hour}' is not an hour 0..24")]
    NotHour { range: String, hour: String },
    /// One side is above 24.
    #[error("'{range}': hour {hour} is past 24")]
    Past24 { range: String, hour: u32 },
}

/// Hours "A-B" (0..=24 each; 24 is midnight).
fn hours(s: &str) -> Result<(u32, u32), HoursError> {
    let (a, b) = s.split_once('-').ok_or_else(|| HoursError::NotRange(s.to_string()))?;
    let p = |x: &str| -> Result<u32, HoursError> {
        let h: u32 =
            x.trim().parse().map_err(|_| HoursError::NotHour { range: s.to_string(), hour: x.trim().to_string() })?;
        if h > 24 {
            return Err(HoursError::Past24 { range: s.to_string(), hour: h });
        }
        Ok(h % 24)
    };
    Ok((p(a)?, p(b)?))
}

/// Parse and validate a usage model; `source` names it in errors (a file name or `preset NAME`).
pub fn parse_usage(source: &str, text: &str) -> Result<Usage, UsageError> {
    let doc: Doc = toml::from_str(text).map_err(|e| to_error(source, text, e))?;
    let err = |table: &str, key: &str, nth: usize, message: String| UsageError {
        source: source.to_string(),
        line: line_of(text, table, key, nth),
        field: Some(if table.is_empty() {
            key.to_string()
        } else if table == "writes.files" {
            format!("writes.files[{nth}].{key}")
        } else {
            format!("{table}.{key}")
        }),
        message,
    };
    let size = |table: &str, key: &str, v: &str| -> Result<u64, UsageError> {
        parse_cli_size(v).map_err(|m| err(table, key, 0, m.to_string()))
    };
    let w = &doc.writes;
    let daily_write = size("writes", "daily", &w.daily)?;
    let daily_overwrite = match &w.overwrite_daily {
        Some(v) => size("writes", "overwrite_daily", v)?,
        None => 0,
    };
    let overwrite_bs = match &w.overwrite_bs {
        Some(v) => size("writes", "overwrite_bs", v)?,
        None => 4096,
    };
    if overwrite_bs == 0 || overwrite_bs % 4096 != 0 || overwrite_bs > 64 << 20 {
        return Err(err(
            "writes",
            "overwrite_bs",
            0,
            format!("must be a multiple of 4 KiB up to 64 MiB, got {overwrite_bs}"),
        ));
    }
    let fsync_every = match &w.fsync_every {
        Some(v) => size("writes", "fsync_every", v)?,
        None => 0,
    };
    if !(0.0..=1.0).contains(&w.temp_fraction) {
        return Err(err("writes", "temp_fraction", 0, format!("must be in [0, 1], got {}", w.temp_fraction)));
    }
    if w.files.is_empty() {
        return Err(err("writes", "files", 0, "needs at least one size class".into()));
    }
    let mut file_sizes = Vec::new();
    for (i, f) in w.files.iter().enumerate() {
        let (lo, hi) = match f.size.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (f.size.trim(), f.size.trim()),
        };
        let e = |m: String| err("writes.files", "size", i, format!("'{}': {m}", f.size));
        let (min, max) = (parse_cli_size(lo).map_err(|m| e(m.into()))?, parse_cli_size(hi).map_err(|m| e(m.into()))?);
        if min < 4096 || max < min || max > 64 << 30 {
            return Err(e("sizes must be 4 KiB..64 GiB with MIN <= MAX".into()));
        }
        if !(f.weight.is_finite() && f.weight > 0.0) {
            return Err(err("writes.files", "weight", i, format!("must be positive, got {}", f.weight)));
        }
        file_sizes.push(SizeClass { min: min / 4096 * 4096, max: max / 4096 * 4096, weight: f.weight });
    }
    let daily_read = match &doc.reads.daily {
        Some(v) => size("reads", "daily", v)?,
        None => 0,
    };
    let s = &doc.space;
    if !(0.0..0.98).contains(&s.keep_fill) || s.keep_fill <= 0.0 {
        return Err(err("space", "keep_fill", 0, format!("must be in (0, 0.98), got {}", s.keep_fill)));
    }
    if !(0.0..=s.keep_fill).contains(&s.base_fill) {
        return Err(err(
            "space",
            "base_fill",
            0,
            format!("must be in [0, keep_fill = {}], got {}", s.keep_fill, s.base_fill),
        ));
    }
    let d = &doc.day;
    let (active_start_h, active_end_h) =
        hours(&d.active_hours).map_err(|m| err("day", "active_hours", 0, m.to_string()))?;
    if d.sessions == 0 || d.sessions > 1440 {
        return Err(err("day", "sessions", 0, format!("must be 1..=1440, got {}", d.sessions)));
    }
    let charging = match d.charging_hours.trim() {
        "always" => Charging::Always,
        "never" => Charging::Never,
        h => {
            let (start, end) =
                hours(h).map_err(|m| err("day", "charging_hours", 0, format!("{m} (or \"always\", \"never\")")))?;
            Charging::Hours { start, end }
        }
    };
    for (key, v) in [("drain_pct_per_hour", d.drain_pct_per_hour), ("charge_pct_per_hour", d.charge_pct_per_hour)] {
        if !(v.is_finite() && (0.0..=100.0).contains(&v)) {
            return Err(err("day", key, 0, format!("must be in [0, 100], got {v}")));
        }
    }
    if doc.name.trim().is_empty() {
        return Err(err("", "name", 0, "must not be empty".into()));
    }
    Ok(Usage {
        name: doc.name,
        description: doc.description,
        daily_write,
        daily_overwrite,
        overwrite_bs,
        fsync_every,
        file_sizes,
        temp_fraction: w.temp_fraction,
        daily_read,
        base_fill: s.base_fill,
        keep_fill: s.keep_fill,
        day: DayCycle {
            active_start_h,
            active_end_h,
            sessions: d.sessions,
            charging,
            drain_pct_per_h: d.drain_pct_per_hour,
            charge_pct_per_h: d.charge_pct_per_hour,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "t"
[writes]
daily = "10MiB"
files = [ { size = "4k-1m", weight = 1 }, { size = "8m", weight = 2 } ]
[space]
keep_fill = 0.5
[day]
active_hours = "8-22"
sessions = 4
charging_hours = "22-8"
"#;

    #[test]
    fn parses() {
        let u = parse_usage("t.toml", GOOD).unwrap();
        assert_eq!(u.daily_write, 10 << 20);
        assert_eq!(u.file_sizes[1], SizeClass { min: 8 << 20, max: 8 << 20, weight: 2.0 });
        assert_eq!(u.day.charging, Charging::Hours { start: 22, end: 8 });
        assert_eq!(u.day.active_hours(), 14);
    }

    #[test]
    fn errors_name_file_line_field() {
        let bad = GOOD.replace("daily = \"10MiB\"", "daily = \"10QiB\"");
        let e = parse_usage("t.toml", &bad).unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(4), Some("writes.daily")), "{e}");
        assert!(e.to_string().starts_with("t.toml:4: field 'writes.daily'"), "{e}");

        let bad = GOOD.replace("weight = 2", "weight = -2");
        let e = parse_usage("t.toml", &bad).unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(5), Some("writes.files[1].weight")), "{e}");

        let bad = GOOD.replace("sessions = 4", "sessions = \"four\"");
        let e = parse_usage("t.toml", &bad).unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(10), Some("day.sessions")), "{e}");

        let bad = GOOD.replace("charging_hours = \"22-8\"", "charging_hours = \"night\"");
        let e = parse_usage("t.toml", &bad).unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(11), Some("day.charging_hours")), "{e}");

        let bad = GOOD.replace("keep_fill", "keep_full");
        let e = parse_usage("t.toml", &bad).unwrap_err();
        assert!(e.to_string().contains("keep_full"), "{e}");
    }
}
