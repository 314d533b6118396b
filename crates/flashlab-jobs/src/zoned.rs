//! fio's zoned options, as a job file gives them: `zonemode` (`none`, `strided`, `zbd`),
//! `zonesize`, `zonerange`, `zoneskip`, `zonecapacity`, `max_open_zones`,
//! `job_max_open_zones`, `ignore_zone_limits`, `zone_reset_threshold`,
//! `zone_reset_frequency`, `read_beyond_wp`, and the zone suffix `z` of `size`, `offset`,
//! `io_size`, `offset_increment` and `zoneskip` (a number of zones).
//!
//! The meaning follows fio's HOWTO and `zbd.c`; the runners do the work:
//! `flashlab_workload::fileset` the strided offsets, `flashlab_workload::zbd` the zoned
//! block device mode. This module only reads the options and resolves zone units.

use crate::units::SizeSpec;
use crate::Error;
use serde::{Deserialize, Serialize};

/// fio's largest `max_open_zones` / `job_max_open_zones` (`ZBD_MAX_WRITE_ZONES`).
pub const MAX_WRITE_ZONES: u32 = 4096;

/// The options this module reads.
pub const OPTION_NAMES: &[&str] = &[
    "zonemode",
    "zonesize",
    "zonerange",
    "zoneskip",
    "zonecapacity",
    "max_open_zones",
    "job_max_open_zones",
    "ignore_zone_limits",
    "zone_reset_threshold",
    "zone_reset_frequency",
    "read_beyond_wp",
];

/// fio's `zonemode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ZoneMode {
    /// No zones (fio's default; `zonesize` alone makes it `strided`, as fio does).
    #[default]
    None,
    /// `zonesize` bytes in one zone of `zonerange` bytes, then `zoneskip` bytes on.
    Strided,
    /// Zoned block device mode: writes at each zone's write pointer.
    Zbd,
}

/// The zoned options of one job, with fio's defaults. Sizes given in zones (`8z`) are kept
/// in the `*_zones` fields until the zone size is known ([`ZoneOptions::resolve`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ZoneOptions {
    /// `zonemode=`; `None` when not given (then `zonesize` makes it strided).
    pub mode: Option<ZoneMode>,
    /// `zonesize`: bytes per zone (zbd), bytes before a skip (strided). 0: not given.
    pub size: u64,
    /// `zonerange`: bytes of one strided zone. 0: `zonesize`.
    pub range: u64,
    /// `zoneskip`: bytes skipped after each strided zone.
    pub skip: u64,
    /// `zonecapacity`: writable bytes per emulated zone (zbd on a conventional device). 0: the
    /// zone size.
    pub capacity: u64,
    /// `max_open_zones`: zones written at once by all jobs (0: the device's limit, or none).
    pub max_open_zones: u32,
    /// `job_max_open_zones`: zones written at once by this job (0: no limit).
    pub job_max_open_zones: u32,
    /// `ignore_zone_limits`: `max_open_zones` may pass the device's limit.
    pub ignore_zone_limits: bool,
    /// `zone_reset_threshold`: share of the I/O range written above which zones are reset.
    pub reset_threshold: f64,
    /// `zone_reset_frequency`: one zone reset per `1 / frequency` writes past the threshold
    /// (0: never).
    pub reset_frequency: f64,
    /// `read_beyond_wp`: reads may go past a zone's write pointer.
    pub read_beyond_wp: bool,
    /// `size=Nz`.
    pub size_zones: Option<u64>,
    /// `offset=Nz`.
    pub offset_zones: Option<u64>,
    /// `io_size=Nz`.
    pub io_size_zones: Option<u64>,
    /// `offset_increment=Nz`.
    pub offset_increment_zones: Option<u64>,
    /// `zoneskip=Nz`.
    pub skip_zones: Option<u64>,
}

impl ZoneOptions {
    /// The mode in force: `zonemode`, or `strided` when only `zonesize` is given (fio's
    /// `fixup_options`).
    pub fn effective_mode(&self) -> ZoneMode {
        match self.mode {
            Some(m) => m,
            None if self.size > 0 => ZoneMode::Strided,
            None => ZoneMode::None,
        }
    }

    /// The job runs in zoned block device mode.
    pub fn zbd(&self) -> bool {
        self.effective_mode() == ZoneMode::Zbd
    }

    /// The strided zone range: `zonerange`, or `zonesize` without it (fio).
    pub fn strided_range(&self) -> u64 {
        if self.range > 0 {
            self.range
        } else {
            self.size
        }
    }

    /// Some size was given in zones.
    pub fn has_zone_units(&self) -> bool {
        self.size_zones.is_some()
            || self.offset_zones.is_some()
            || self.io_size_zones.is_some()
            || self.offset_increment_zones.is_some()
            || self.skip_zones.is_some()
    }
}

/// Reads a size that may be given in zones: `Ok(Err(zones))` for `Nz`, else the text to read
/// as bytes.
pub fn zone_count(v: &str) -> Result<Option<u64>, Error> {
    let t = v.trim();
    let Some(n) = t.strip_suffix('z').or_else(|| t.strip_suffix('Z')) else { return Ok(None) };
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let z: u64 = n.parse().map_err(|_| Error::Value { value: v.to_string(), problem: "too many zones".into() })?;
    Ok(Some(z))
}

/// Sets the zoned option `name` of `z` from `v` (sizes already read by the caller with the
/// job's `kb_base` when not in zones; `bytes` is that size, 0 for non-size options).
pub fn apply(z: &mut ZoneOptions, name: &str, v: &str, bytes: u64) -> Result<(), Error> {
    let float = |v: &str| -> Result<f64, Error> {
        match v.trim().parse::<f64>() {
            Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
            _ => Err(Error::Bad { what: "value", value: v.to_string(), expected: "a number from 0 to 1".into() }),
        }
    };
    let count = |v: &str| -> Result<u32, Error> {
        match v.trim().parse::<u32>() {
            Ok(n) if n <= MAX_WRITE_ZONES => Ok(n),
            _ => Err(Error::Bad {
                what: "value",
                value: v.to_string(),
                expected: format!("a whole number from 0 to {MAX_WRITE_ZONES} (fio's limit)"),
            }),
        }
    };
    let flag = |v: &str| -> Result<bool, Error> {
        match v.trim() {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(Error::Bad { what: "value", value: v.to_string(), expected: "0 or 1".into() }),
        }
    };
    match name {
        "zonemode" => {
            z.mode = Some(match v.trim() {
                "none" => ZoneMode::None,
                "strided" => ZoneMode::Strided,
                "zbd" => ZoneMode::Zbd,
                _ => {
                    return Err(Error::Bad {
                        what: "value",
                        value: v.to_string(),
                        expected: "none, strided or zbd".into(),
                    })
                }
            })
        }
        "zonesize" => z.size = bytes,
        "zonerange" => z.range = bytes,
        "zoneskip" => z.skip = bytes,
        "zonecapacity" => z.capacity = bytes,
        "max_open_zones" => z.max_open_zones = count(v)?,
        "job_max_open_zones" => z.job_max_open_zones = count(v)?,
        "ignore_zone_limits" => z.ignore_zone_limits = flag(v)?,
        "zone_reset_threshold" => z.reset_threshold = float(v)?,
        "zone_reset_frequency" => z.reset_frequency = float(v)?,
        "read_beyond_wp" => z.read_beyond_wp = flag(v)?,
        other => return Err(Error::Internal { option: other.to_string() }),
    }
    Ok(())
}

/// The job's sizes given in zones, in bytes for zones of `zone_size` bytes (fio's
/// `zbd_recalc_options_with_zone_granularity`): `size`, `offset`, `io_size`,
/// `offset_increment` and `zoneskip`. The zone counts are cleared.
pub fn resolve(job: &mut crate::Job, zone_size: u64) {
    let z = &mut job.zoned;
    let bytes = |n: u64| n.saturating_mul(zone_size);
    if let Some(n) = z.size_zones.take() {
        job.size = Some(SizeSpec::Bytes(bytes(n)));
    }
    if let Some(n) = z.offset_zones.take() {
        job.offset = SizeSpec::Bytes(bytes(n));
    }
    if let Some(n) = z.io_size_zones.take() {
        job.io_size = Some(bytes(n));
    }
    if let Some(n) = z.offset_increment_zones.take() {
        job.offset_increment = SizeSpec::Bytes(bytes(n));
    }
    if let Some(n) = z.skip_zones.take() {
        z.skip = bytes(n);
    }
}

/// Whole-job checks (fio's `fixup_options` and option ranges), once every option is known:
/// `Err((option, message))`. Zone units are resolved here when the zone size is given.
pub fn finalize(job: &mut crate::Job) -> Result<(), (&'static str, String)> {
    let z = &job.zoned;
    let mode = z.effective_mode();
    if mode == ZoneMode::Strided && z.size == 0 {
        return Err(("zonemode", format!("job '{}': zonemode=strided needs zonesize (fio refuses it too)", job.name)));
    }
    if mode == ZoneMode::Zbd && z.skip > 0 {
        return Err(("zoneskip", format!("job '{}': zoneskip must be 0 with zonemode=zbd (fio's rule)", job.name)));
    }
    if z.capacity > 0 && z.size > 0 && z.capacity > z.size {
        return Err((
            "zonecapacity",
            format!("job '{}': zonecapacity ({}) is larger than zonesize ({})", job.name, z.capacity, z.size),
        ));
    }
    if z.has_zone_units() {
        if mode == ZoneMode::Zbd {
            // The device's zone size (fio's zbd_recalc_options_with_zone_granularity takes
            // the device's, or zonesize's on an emulated one): the runner resolves them.
        } else if z.size > 0 {
            let zs = z.size;
            resolve(job, zs);
        } else {
            let opt = if z.size_zones.is_some() {
                "size"
            } else if z.offset_zones.is_some() {
                "offset"
            } else if z.io_size_zones.is_some() {
                "io_size"
            } else if z.offset_increment_zones.is_some() {
                "offset_increment"
            } else {
                "zoneskip"
            };
            return Err((
                opt,
                format!(
                    "job '{}': a size in zones ('z') needs a zone size: zonesize, or zonemode=zbd on a zoned device",
                    job.name
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &str) -> Result<crate::Job, String> {
        crate::parse_jobfile("t.fio", &format!("[j]\n{text}")).map(|mut f| f.jobs.remove(0)).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_fio_spellings_and_defaults() {
        let j = job("rw=read\nzonesize=256m\nzoneskip=2g\n").unwrap();
        assert_eq!(j.zoned.effective_mode(), ZoneMode::Strided, "zonesize alone is strided, as fio");
        assert_eq!((j.zoned.size, j.zoned.skip, j.zoned.strided_range()), (256 << 20, 2 << 30, 256 << 20));
        let j = job("rw=randwrite\nzonemode=zbd\nmax_open_zones=4\njob_max_open_zones=2\nzone_reset_threshold=0.7\n\
             zone_reset_frequency=0.125\nread_beyond_wp=1\nsize=8z\noffset=2z\n")
        .unwrap();
        let z = &j.zoned;
        assert!(z.zbd());
        assert_eq!((z.max_open_zones, z.job_max_open_zones), (4, 2));
        assert_eq!((z.reset_threshold, z.reset_frequency, z.read_beyond_wp), (0.7, 0.125, true));
        // Zones stay zones until the device's zone size is known.
        assert_eq!((z.size_zones, z.offset_zones), (Some(8), Some(2)));
        // Strided: the zone units are bytes of zonesize at once.
        let j = job("rw=read\nzonesize=1m\nsize=8z\noffset=2z\n").unwrap();
        assert_eq!((j.size, j.offset), (Some(SizeSpec::Bytes(8 << 20)), SizeSpec::Bytes(2 << 20)));
    }

    #[test]
    fn bad_input_names_the_option_and_line() {
        let e = job("rw=read\nzonemode=smr\n").unwrap_err();
        assert!(e.contains("t.fio:3: option 'zonemode'") && e.contains("none, strided or zbd"), "{e}");
        let e = job("rw=read\nzonemode=strided\n").unwrap_err();
        assert!(e.contains("option 'zonemode'") && e.contains("needs zonesize"), "{e}");
        let e = job("rw=write\nzonemode=zbd\nzone_reset_threshold=1.5\n").unwrap_err();
        assert!(e.contains("t.fio:4: option 'zone_reset_threshold'") && e.contains("from 0 to 1"), "{e}");
        let e = job("rw=write\nsize=8z\n").unwrap_err();
        assert!(e.contains("t.fio:3: option 'size'") && e.contains("needs a zone size"), "{e}");
        let e = job("rw=write\nzonemode=zbd\nzonesize=1m\nzonecapacity=2m\n").unwrap_err();
        assert!(e.contains("option 'zonecapacity'") && e.contains("larger than zonesize"), "{e}");
        let e = job("rw=write\nmax_open_zones=5000\n").unwrap_err();
        assert!(e.contains("option 'max_open_zones'") && e.contains("4096"), "{e}");
        let e = job("rw=write\nzonemode=zbd\nzoneskip=1m\n").unwrap_err();
        assert!(e.contains("option 'zoneskip'") && e.contains("must be 0"), "{e}");
    }
}
