//! Device history before a run (`--precondition`): the state a simulated device is in when
//! the filesystem is made on it and the workload starts.
//!
//! * `fresh`: factory state, nothing mapped (a new device, or one whose every block was
//!   discarded or erased, as a secure erase or a full-device TRIM leaves it).
//! * `used`: every logical block written once and never trimmed: a phone after months of use,
//!   a board whose filesystem is mounted without discard and never trimmed, an image written
//!   with `dd`. Set up in bulk ([`flashsim::Device::map_all_sequential`]): the
//!   mapping a sequential pass over the whole device leaves, in no virtual time.
//! * `steady`: SNIA PTS's order: purge (a new simulated device is the purged state), a
//!   sequential pass over the whole device (the workload-independent preconditioning, set up
//!   in bulk as for `used`), then 4 KiB random writes over the whole device at QD1, in rounds
//!   of 60 s of virtual time (PTS: one minute per round) or an eighth of the capacity if that
//!   comes first (a small or fast device), until the IOPS of the last 5 rounds are steady by the PTS rule
//!   (range at most 20 % and the least-squares line's excursion at most 10 % of their mean),
//!   at most 25 rounds or 4x the capacity written. These writes are simulated.
//! * `lived`: a phone after months of use, made by using it ([`crate::lived_in`]): the
//!   owner's files written through the filesystem until it is full, half of them deleted, the
//!   system's trim policy acting on what was deleted (online discard at delete, a periodic
//!   fstrim since; [`system_with_trim`]), a day of idle. Unlike `used`, the filesystem is not
//!   empty: the run finds the owner's files, and free space scattered between them.
//!
//! The device's counters start at zero after preconditioning (the run reports its own WAF);
//! wear (erase counts) and the virtual clock keep the history.

use crate::rng::Rng;
use crate::system::{SimSystem, SysError};
use crate::Error;
use flashlab_simfs::FsConfig;
use flashsim::{Counters, Device, Ns, Op, Profile, Request};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// What the device went through before the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precondition {
    /// Factory state: nothing mapped.
    #[default]
    Fresh,
    /// Every logical block written once, never trimmed.
    Used,
    /// Purge, sequential fill, random writes to the steady state.
    Steady,
    /// Used by an owner: files written until full, half deleted, the trim policy applied.
    Lived,
}

impl Precondition {
    /// Every precondition, in the order the help lists them.
    pub const ALL: [Precondition; 4] =
        [Precondition::Fresh, Precondition::Used, Precondition::Steady, Precondition::Lived];

    /// The name the command line and documents use (`fresh`).
    pub fn name(self) -> &'static str {
        match self {
            Precondition::Fresh => "fresh",
            Precondition::Used => "used",
            Precondition::Steady => "steady",
            Precondition::Lived => "lived",
        }
    }

    /// One line for output headers.
    pub fn describe(self) -> &'static str {
        match self {
            Precondition::Fresh => "fresh (factory state, nothing mapped)",
            Precondition::Used => "used (every logical block written once, never trimmed)",
            Precondition::Steady => "steady (purge, sequential fill, 4 KiB random writes to steady state)",
            Precondition::Lived => "lived (filled with files, half deleted, the trim policy applied)",
        }
    }
}

impl fmt::Display for Precondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Precondition {
    type Err = Error;
    fn from_str(s: &str) -> Result<Precondition, Error> {
        Precondition::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(s.trim())).ok_or_else(|| {
            Error::UnknownName {
                what: "precondition",
                name: s.to_string(),
                expected: "fresh, used, steady or lived".into(),
            }
        })
    }
}

/// What preconditioning did, for results documents.
#[derive(Debug, Clone, Serialize)]
pub struct PreconditionReport {
    /// Which precondition it was.
    pub precondition: Precondition,
    /// Bytes mapped in bulk (the sequential pass of `used` and `steady`).
    pub bulk_mapped_bytes: u64,
    /// Bytes of simulated 4 KiB random writes (`steady`).
    pub random_write_bytes: u64,
    /// Rounds of random writes (`steady`: 60 s or an eighth of the capacity each), and their IOPS.
    pub rounds_iops: Vec<f64>,
    /// The PTS steady-state rule held for the last 5 rounds (`steady`; true otherwise).
    pub steady: bool,
    /// Virtual time the preconditioning took, seconds (the run starts after it).
    pub(crate) virtual_s: f64,
    /// The device's counters over the preconditioning (they are reset before the run).
    pub counters: Counters,
    /// What the owner's use left (`lived`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lived: Option<crate::lived_in::LivedReport>,
}

impl PreconditionReport {
    /// One line saying what was done.
    pub fn summary(&self) -> String {
        match self.precondition {
            Precondition::Fresh => "precondition fresh: a new device, nothing mapped".into(),
            Precondition::Used => {
                format!("precondition used: all {} bytes mapped (written once, never trimmed)", self.bulk_mapped_bytes)
            }
            Precondition::Steady => format!(
                "precondition steady: {} bytes mapped, then {} bytes of 4 KiB random writes in {} rounds ({} IOPS in the last round, {}), WAF {:.2}, {:.0} s of virtual time",
                self.bulk_mapped_bytes,
                self.random_write_bytes,
                self.rounds_iops.len(),
                self.rounds_iops.last().map_or(0.0, |v| v.round()),
                if self.steady { "steady" } else { "not steady within the limits" },
                self.counters.write_amplification(),
                self.virtual_s
            ),
            Precondition::Lived => match &self.lived {
                Some(l) => format!(
                    "precondition lived: {} files ({} bytes) written until the filesystem was full, {} kept ({} bytes), the rest deleted; {}",
                    l.files_written,
                    l.bytes_written,
                    l.files_kept,
                    l.bytes_kept,
                    if l.fstrim_bytes > 0 {
                        format!("fstrim since trimmed {} bytes", l.fstrim_bytes)
                    } else {
                        "no fstrim since".to_string()
                    }
                ),
                None => "precondition lived".into(),
            },
        }
    }
}

/// Virtual time of one steady-state round (SNIA PTS: one minute per round).
const ROUND_NS: Ns = 60_000_000_000;
/// The PTS measurement window and round limit.
const WINDOW: usize = 5;
const MAX_ROUNDS: usize = 25;

/// SNIA PTS steady state over the last [`WINDOW`] values: their range is at most 20 % of their
/// mean, and the least-squares line's excursion across the window at most 10 % of it.
pub(crate) fn is_steady(ys: &[f64]) -> bool {
    if ys.len() < WINDOW {
        return false;
    }
    let w = &ys[ys.len() - WINDOW..];
    let n = w.len() as f64;
    let mean = w.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return false;
    }
    let (lo, hi) = w.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &y| (lo.min(y), hi.max(y)));
    let xm = (n - 1.0) / 2.0;
    let sxy: f64 = w.iter().enumerate().map(|(i, y)| (i as f64 - xm) * (y - mean)).sum();
    let sxx: f64 = (0..w.len()).map(|i| (i as f64 - xm).powi(2)).sum();
    let slope = sxy / sxx;
    hi - lo <= 0.2 * mean && (slope * (n - 1.0)).abs() <= 0.1 * mean
}

/// Bring a new device into the state `p` names; returns what was done and when the device is
/// ready (the virtual time the run starts at).
pub fn apply(dev: &mut Device, p: Precondition, seed: u64) -> Result<(PreconditionReport, Ns), Error> {
    let mut report = PreconditionReport {
        precondition: p,
        bulk_mapped_bytes: 0,
        random_write_bytes: 0,
        rounds_iops: Vec::new(),
        steady: true,
        virtual_s: 0.0,
        counters: Counters::default(),
        lived: None,
    };
    if matches!(p, Precondition::Fresh | Precondition::Lived) {
        return Ok((report, 0));
    }
    dev.map_all_sequential().map_err(|e| Error::Device(e.to_string()))?;
    report.bulk_mapped_bytes = dev.logical_bytes();
    let mut t: Ns = 0;
    if p == Precondition::Steady {
        let units = dev.logical_bytes() / 4096;
        let limit = 4 * units;
        let round_units = (units / 8).max(1);
        let mut rng = Rng::new(seed ^ 0x5354_4541_4459);
        let mut written = 0u64;
        report.steady = false;
        while report.rounds_iops.len() < MAX_ROUNDS && written < limit {
            let (start, end) = (t, t + ROUND_NS);
            let mut n = 0u64;
            while t < end && n < round_units && written < limit {
                let lpn = rng.below(units);
                let c = dev.submit(t, &Request::new(Op::Write, lpn * 4096, 4096)).map_err(SysError::from)?;
                t = c.done;
                n += 1;
                written += 1;
            }
            report.rounds_iops.push(n as f64 * 1e9 / (t - start).max(1) as f64);
            if is_steady(&report.rounds_iops) {
                report.steady = true;
                break;
            }
        }
        report.random_write_bytes = written * 4096;
        t = t.max(dev.busy_until());
    }
    report.counters = dev.counters();
    report.virtual_s = t as f64 / 1e9;
    dev.reset_counters();
    Ok((report, t))
}

/// A filesystem on a zoned profile's device: refused, naming the device. The filesystem
/// models (plain, ext4, F2FS) and the protocols' random writes write in place, which a zoned
/// device refuses at its first write off a zone's write pointer (docs/zoned.md); zoned
/// workloads (fio's `zonemode`, F2FS on zones) are not there yet.
pub fn refuse_zoned(profile: &Profile) -> Result<(), SysError> {
    if profile.ftl.mapping == flashsim::MappingKind::Zoned {
        return Err(SysError::Job(format!(
            "profile '{}' is a zoned device (host-managed zones, written only at each zone's write pointer): \
             the plain and ext4 models and this workload's in-place and random writes cannot run on it \
             (F2FS can: --fs f2fs); \
             use a conventional profile (its twin: ufs-4.0 for zoned-ufs-4.0, nvme-gen3 for nvme-gen3-zns; docs/zoned.md)",
            profile.name
        )));
    }
    Ok(())
}

/// A filesystem of `cfg` on `profile`'s device after `p`: on a zoned device only F2FS (which
/// writes zones: [`flashlab_simfs::Fs::f2fs_zoned`]) on a fresh device (the other
/// preconditions write the device in place, which its zones refuse); everything on a
/// conventional one.
pub fn refuse_zoned_fs(profile: &Profile, cfg: &FsConfig, p: Precondition) -> Result<(), SysError> {
    if profile.ftl.mapping != flashsim::MappingKind::Zoned || cfg.kind != flashlab_simfs::FsKind::F2fs {
        return refuse_zoned(profile);
    }
    if p != Precondition::Fresh {
        return Err(SysError::Job(format!(
            "profile '{}' is a zoned device: precondition '{}' writes it in place, which its zones refuse; \
             F2FS on it starts fresh (--precondition fresh)",
            profile.name,
            p.name()
        )));
    }
    Ok(())
}

/// The system of a job file on a zoned profile's device itself (`flashlab run` with fio's
/// `zonemode=zbd`, as fio opens the zoned block device): a fresh device and no filesystem
/// written on it (the `plain` model, which writes nothing until asked). Any other
/// precondition is refused: it writes the device in place.
pub fn zoned_system(profile: &Profile, seed: u64, p: Precondition) -> Result<(SimSystem, PreconditionReport), Error> {
    if p != Precondition::Fresh {
        return Err(Error::UnknownName {
            what: "precondition for a zoned device",
            name: p.name().to_string(),
            expected: "fresh (the others write the device in place, which its zones refuse)".into(),
        });
    }
    let (dev, report, now) = new_device(profile, seed, p)?;
    Ok((SimSystem::on_device(dev, seed, FsConfig::plain(false), now)?, report))
}

/// A new simulated system of `profile` whose device went through `p` before the filesystem
/// `cfg` was made on it (`lived`: with no fstrim since the deletions; online discard is the
/// filesystem's mount option).
pub fn system(
    profile: &Profile,
    seed: u64,
    cfg: FsConfig,
    p: Precondition,
) -> Result<(SimSystem, PreconditionReport), Error> {
    system_with_trim(profile, seed, cfg, p, false)
}

/// [`system`], where `lived` applies the system's periodic fstrim (a timer's, Android's idle
/// maintenance) after the deletions when `fstrim` is true.
pub fn system_with_trim(
    profile: &Profile,
    seed: u64,
    cfg: FsConfig,
    p: Precondition,
    fstrim: bool,
) -> Result<(SimSystem, PreconditionReport), Error> {
    refuse_zoned_fs(profile, &cfg, p)?;
    let (dev, mut report, now) = new_device(profile, seed, p)?;
    let mut sys = SimSystem::on_device(dev, seed, cfg, now)?;
    if p == Precondition::Lived {
        let spec = crate::lived_in::LivedSpec::new(seed, fstrim);
        let t0 = sys.now();
        let lived = crate::lived_in::live_in(&mut sys, &spec).map_err(Error::within("lived"))?;
        report.counters = sys.device().counters();
        sys.reset_counters();
        report.virtual_s = (sys.now() - t0) as f64 / 1e9;
        report.lived = Some(lived);
    }
    Ok((sys, report))
}

/// A new bare device of `profile` (no filesystem: whoever uses it brings their own, as
/// `flashlab serve` does with the kernel's) in the state `p` names; returns it, what was done
/// and when it is ready. `lived` needs a filesystem to live in: an error here.
pub fn device(profile: &Profile, seed: u64, p: Precondition) -> Result<(Device, PreconditionReport, Ns), Error> {
    if p == Precondition::Lived {
        return Err(Error::UnknownName {
            what: "precondition for a bare device",
            name: p.name().to_string(),
            expected: "fresh, used or steady (lived needs a simulated filesystem)".into(),
        });
    }
    new_device(profile, seed, p)
}

/// A new device of `profile` brought into the state `p` names ([`apply`]).
fn new_device(profile: &Profile, seed: u64, p: Precondition) -> Result<(Device, PreconditionReport, Ns), Error> {
    let mut dev = crate::system::new_device(profile, seed);
    let (report, now) = apply(&mut dev, p, seed)?;
    Ok((dev, report, now))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        for p in Precondition::ALL {
            assert_eq!(p.to_string().parse::<Precondition>().unwrap(), p);
        }
        assert_eq!(" Used ".parse::<Precondition>().unwrap(), Precondition::Used);
        assert!("old".parse::<Precondition>().unwrap_err().to_string().contains("fresh, used, steady or lived"));
        assert_eq!(serde_json::to_string(&Precondition::Steady).unwrap(), "\"steady\"");
    }

    #[test]
    fn steady_rule() {
        assert!(!is_steady(&[100.0; 4]));
        assert!(is_steady(&[100.0, 101.0, 99.0, 100.0, 100.0]));
        // A steady decline: the range is within 20 % but the trend is not.
        assert!(!is_steady(&[110.0, 105.0, 100.0, 95.0, 90.0]));
        assert!(!is_steady(&[100.0, 70.0, 100.0, 70.0, 100.0]));
    }
}
