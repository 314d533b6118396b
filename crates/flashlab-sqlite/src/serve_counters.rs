//! The simulator's own counters when a directory's filesystem sits on a `flashlab serve`
//! device: the directory's block device is a loop device whose backing file is `DIR/device` of
//! a flashlab serve FUSE mount (source `flashlab-sim:PROFILE` in /proc/self/mountinfo), and
//! `DIR/stats.json` holds the simulated device's counters.
//!
//! Freshness: flashlab serve regenerates `stats.json` at every open (after letting the
//! simulated device do its idle-time work up to the present) and serves it without the page
//! cache, so every [`ServeDevice::read`] is a snapshot taken at that moment. The counters move
//! when a request is submitted to the model, before the request is answered: once an fsync
//! has returned, everything it waited for is counted.

use crate::error::{CountersError, CountersProblem, Error};
use crate::kernel_counters::BlockDevice;
use crate::results::DeviceCounts;
use serde::Serialize;
use std::path::PathBuf;

/// A flashlab serve device found under a directory.
#[derive(Debug, Clone, Serialize)]
pub struct ServeDevice {
    /// The serve mount directory (`SERVEDIR`).
    pub mount_dir: PathBuf,
    pub stats_path: PathBuf,
    /// The simulated profile's name (from the mount's source `flashlab-sim:PROFILE`).
    pub profile: String,
    /// The loop device (`loop3`).
    pub loop_device: String,
}

/// The simulator counters flashlab sqlite uses, from one read of stats.json.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SimCounters {
    pub host_writes: u64,
    pub host_write_bytes: u64,
    pub host_flushes: u64,
    pub host_trims: u64,
    pub host_units_written: u64,
    pub nand_units_programmed: u64,
}

impl SimCounters {
    /// Parse stats.json's text; `what` names the file for errors.
    pub fn parse(text: &str, what: &str) -> Result<SimCounters, CountersError> {
        let bad = |problem| CountersError { file: what.to_string(), problem };
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|source| bad(CountersProblem::NotJson { line: source.line(), source }))?;
        let c = v.get("counters").ok_or_else(|| bad(CountersProblem::NoCounters))?;
        let field = |name: &str| {
            c.get(name).and_then(|x| x.as_u64()).ok_or_else(|| bad(CountersProblem::Counter(name.to_string())))
        };
        Ok(SimCounters {
            host_writes: field("host_writes")?,
            host_write_bytes: field("host_write_bytes")?,
            host_flushes: field("host_flushes")?,
            host_trims: field("host_trims")?,
            host_units_written: field("host_units_written")?,
            nand_units_programmed: field("nand_units_programmed")?,
        })
    }

    /// What the simulated device saw between `earlier` and `self`; WAF is NAND units
    /// programmed per host unit written in the interval (`None` when no host unit was written).
    pub fn since(&self, earlier: &SimCounters) -> DeviceCounts {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        let host_units = d(self.host_units_written, earlier.host_units_written);
        let nand_units = d(self.nand_units_programmed, earlier.nand_units_programmed);
        DeviceCounts {
            write_requests: d(self.host_writes, earlier.host_writes),
            write_bytes: d(self.host_write_bytes, earlier.host_write_bytes),
            flushes: Some(d(self.host_flushes, earlier.host_flushes)),
            discards: Some(d(self.host_trims, earlier.host_trims)),
            nand_write_bytes: Some(nand_units * flashsim::MAP_UNIT),
            waf: (host_units > 0).then(|| nand_units as f64 / host_units as f64),
        }
    }
}

impl ServeDevice {
    /// A fresh snapshot of the simulator's counters.
    pub fn read(&self) -> Result<SimCounters, Error> {
        let text = std::fs::read_to_string(&self.stats_path)
            .map_err(|source| Error::Io { path: self.stats_path.clone(), source })?;
        SimCounters::parse(&text, &self.stats_path.display().to_string())
            .map_err(|e| Error::Target { path: self.stats_path.clone(), msg: e.to_string() })
    }
}

/// The flashlab serve device under `dev`, if `dev` is a loop device bound to the `device`
/// file of a flashlab serve mount. An error only when it is one but its stats.json cannot be
/// read or parsed.
pub fn detect(dev: &BlockDevice) -> Result<Option<ServeDevice>, Error> {
    if !dev.disk.starts_with("loop") {
        return Ok(None);
    }
    let Some(m) = flashlab_serve::mounts::behind_loop(&dev.disk) else { return Ok(None) };
    let s = ServeDevice { stats_path: m.stats(), mount_dir: m.dir, profile: m.profile, loop_device: dev.disk.clone() };
    s.read()?;
    Ok(Some(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATS: &str = r#"{"profile":"toy","counters":{"host_writes":10,"host_write_bytes":40960,
        "host_flushes":3,"host_trims":1,"host_units_written":10,"nand_units_programmed":12,"erases":0}}"#;

    #[test]
    fn parses_and_subtracts() {
        let a = SimCounters::parse(STATS, "stats.json").unwrap();
        assert_eq!(a.host_flushes, 3);
        let b = SimCounters {
            host_writes: 14,
            host_write_bytes: 40960 + 8192,
            host_flushes: 5,
            host_trims: 1,
            host_units_written: 12,
            nand_units_programmed: 18,
        };
        let d = b.since(&a);
        assert_eq!((d.write_requests, d.write_bytes, d.flushes, d.discards), (4, 8192, Some(2), Some(0)));
        assert_eq!(d.nand_write_bytes, Some(6 * flashsim::MAP_UNIT));
        assert_eq!(d.waf, Some(3.0));
        assert_eq!(a.since(&a).waf, None, "no host unit written: no WAF");
    }

    #[test]
    fn bad_stats_name_the_field() {
        let e = SimCounters::parse("{\"counters\":{\"host_writes\":1}}", "S/stats.json").unwrap_err().to_string();
        assert!(e.contains("S/stats.json") && e.contains("counters.host_write_bytes"), "{e}");
        assert!(SimCounters::parse("{", "f").unwrap_err().to_string().contains("not JSON"));
        assert!(SimCounters::parse("{}", "f").unwrap_err().to_string().contains("'counters'"));
    }

    #[test]
    fn other_devices_are_not_serve_devices() {
        let dev = |disk: &str| BlockDevice {
            name: disk.into(),
            disk: disk.into(),
            stat_path: PathBuf::from(format!("/sys/block/{disk}/stat")),
            write_cache: None,
        };
        assert!(detect(&dev("vda")).unwrap().is_none());
        assert!(detect(&dev("loop-not-a-device")).unwrap().is_none(), "no backing_file: not a serve device");
    }
}
