//! Trim policies applied during a life run, and when each one trims.
//!
//! * `none`: never (many boards and old phones).
//! * `discard`: online discard, every delete trimmed at once (the filesystem's mount option).
//! * `fstrim[:INTERVAL]`: fstrim every INTERVAL (default `1w`, systemd's `fstrim.timer`).
//! * `android`: Android's idle maintenance (4.3 and later): the device idle for over an hour,
//!   at most once a day, and on the charger with the battery at 30 % or more, or off it at
//!   80 % or more.
//! * `on-notice[:LATENCY]`: the user notices: fstrim after a probe (a burst of 4 KiB writes, what
//!   an app install or a camera burst does) whose mean write latency passed LATENCY (default:
//!   twice the mean the run's first probe measured on the new device). The applications' own
//!   writes are no guide: between sessions the device's idle-time GC hides its state from them
//!   (docs/life.md shows it).

use crate::error::LifeError;
use flashlab_lab::units::parse_duration_ns;
use flashsim::Ns;
use serde::Serialize;

/// One hour of virtual time, in nanoseconds.
pub const HOUR: Ns = 3_600_000_000_000;
/// One day of virtual time, in nanoseconds.
pub const DAY: Ns = 24 * HOUR;

/// When the simulated phone trims its filesystem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Policy {
    /// Never.
    None,
    /// Online discard: the filesystem trims each delete as it happens (mounted `discard`).
    Discard,
    /// fstrim every `interval_ns` of virtual time (weekly by default).
    Fstrim {
        /// Time between two fstrims, in nanoseconds.
        interval_ns: Ns,
    },
    /// Android's idle maintenance: fstrim at most daily, after an idle hour, with enough battery.
    Android,
    /// fstrim after a probe whose mean 4 KiB write latency passed a threshold.
    OnNotice {
        /// The threshold, in nanoseconds (`None`: twice the first probe's mean latency).
        mean_ns: Option<Ns>,
    },
}

/// What a policy looks at when it decides (checked every hour of virtual time).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Moment {
    pub now: Ns,
    /// End of the last application I/O.
    pub last_io: Ns,
    /// Last fstrim, if any.
    pub last_trim: Option<Ns>,
    pub battery_pct: f64,
    pub charging: bool,
    /// Right after a probe: its mean 4 KiB write latency; and the first probe's (the new device).
    pub probe_mean_ns: Option<Ns>,
    pub first_probe_mean_ns: Option<Ns>,
}

impl Policy {
    /// The policies `--compare-policies` runs, in order.
    pub fn all() -> Vec<Policy> {
        vec![
            Policy::None,
            Policy::Fstrim { interval_ns: 7 * DAY },
            Policy::Android,
            Policy::Discard,
            Policy::OnNotice { mean_ns: None },
        ]
    }

    /// Parses `none`, `discard`, `fstrim[:INTERVAL]` (`weekly`, `daily`), `android` or `on-notice[:LATENCY]`.
    pub fn parse(s: &str) -> Result<Policy, LifeError> {
        let (kind, arg) = match s.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (s, None),
        };
        let bad = |msg: String| LifeError::Policy { policy: s.to_string(), msg };
        let dur = |a: &str, what: &str| -> Result<Ns, LifeError> {
            let ns = parse_duration_ns(a).map_err(|e| bad(format!("{what}: {e}")))?;
            if ns == 0 {
                return Err(bad(format!("{what} must be above zero")));
            }
            Ok(ns)
        };
        let p = match (kind, arg) {
            ("none", None) => Policy::None,
            ("discard", None) => Policy::Discard,
            ("android", None) => Policy::Android,
            ("fstrim", None) | ("weekly", None) => Policy::Fstrim { interval_ns: 7 * DAY },
            ("daily", None) => Policy::Fstrim { interval_ns: DAY },
            ("fstrim", Some(a)) => Policy::Fstrim { interval_ns: dur(&weeks_to_days(a), "interval")? },
            ("on-notice", None) => Policy::OnNotice { mean_ns: None },
            ("on-notice", Some(a)) => Policy::OnNotice { mean_ns: Some(dur(a, "latency")?) },
            _ => {
                return Err(bad(
                    "expected none, discard, fstrim[:INTERVAL] (weekly, daily), android or on-notice[:LATENCY]".into(),
                ))
            }
        };
        Ok(p)
    }

    /// The policy as `parse` reads it back, e.g. `fstrim:7d`.
    pub fn name(&self) -> String {
        match self {
            Policy::None => "none".into(),
            Policy::Discard => "discard".into(),
            Policy::Android => "android".into(),
            Policy::Fstrim { interval_ns } => format!("fstrim:{}", fmt_dur(*interval_ns)),
            Policy::OnNotice { mean_ns: None } => "on-notice".into(),
            Policy::OnNotice { mean_ns: Some(ns) } => format!("on-notice:{}", fmt_dur(*ns)),
        }
    }

    /// The filesystem is mounted with online discard.
    pub fn mount_discard(&self) -> bool {
        matches!(self, Policy::Discard)
    }

    /// Does the policy run fstrim at this moment?
    pub(crate) fn wants_fstrim(&self, m: &Moment, start: Ns) -> bool {
        match *self {
            Policy::None | Policy::Discard => false,
            Policy::Fstrim { interval_ns } => m.now >= m.last_trim.unwrap_or(start) + interval_ns,
            Policy::Android => {
                let idle = m.now.saturating_sub(m.last_io) >= HOUR;
                let once_a_day = m.last_trim.is_none_or(|t| m.now >= t + DAY);
                let power = (m.charging && m.battery_pct >= 30.0) || (!m.charging && m.battery_pct >= 80.0);
                idle && once_a_day && power
            }
            Policy::OnNotice { mean_ns } => {
                let threshold = mean_ns.or(m.first_probe_mean_ns.map(|f| 2 * f));
                matches!((m.probe_mean_ns, threshold), (Some(p), Some(t)) if p > t)
            }
        }
    }
}

/// `2w` → `14d` (flashlab's durations have no weeks).
fn weeks_to_days(a: &str) -> String {
    match a.strip_suffix('w').and_then(|n| n.parse::<u64>().ok()) {
        Some(n) => format!("{}d", n * 7),
        None => a.to_string(),
    }
}

/// A duration in the largest whole unit: `7d`, `12h`, `5ms`.
pub fn fmt_dur(ns: Ns) -> String {
    for (unit, n) in
        [("d", DAY), ("h", HOUR), ("m", 60_000_000_000), ("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1000)]
    {
        if ns >= n && ns.is_multiple_of(n) {
            return format!("{}{unit}", ns / n);
        }
    }
    format!("{ns}ns")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(now: Ns, last_io: Ns, last_trim: Option<Ns>, battery: f64, charging: bool) -> Moment {
        Moment {
            now,
            last_io,
            last_trim,
            battery_pct: battery,
            charging,
            probe_mean_ns: None,
            first_probe_mean_ns: None,
        }
    }

    #[test]
    fn parse_and_name() {
        assert_eq!(Policy::parse("fstrim:2w").unwrap(), Policy::Fstrim { interval_ns: 14 * DAY });
        assert_eq!(Policy::parse("weekly").unwrap().name(), "fstrim:7d");
        assert_eq!(Policy::parse("on-notice:2ms").unwrap(), Policy::OnNotice { mean_ns: Some(2_000_000) });
        assert!(Policy::parse("sometimes").unwrap_err().to_string().contains("android"));
        assert!(Policy::parse("fstrim:0").is_err());
        for p in Policy::all() {
            assert_eq!(Policy::parse(&p.name()).unwrap(), p);
        }
    }

    #[test]
    fn android_rules() {
        let a = Policy::Android;
        let t = 10 * DAY;
        assert!(a.wants_fstrim(&m(t, t - 2 * HOUR, None, 50.0, true), 0));
        assert!(!a.wants_fstrim(&m(t, t - HOUR / 2, None, 50.0, true), 0), "not idle an hour");
        assert!(!a.wants_fstrim(&m(t, t - 2 * HOUR, None, 20.0, true), 0), "battery below 30 % on charger");
        assert!(!a.wants_fstrim(&m(t, t - 2 * HOUR, None, 70.0, false), 0), "off charger below 80 %");
        assert!(a.wants_fstrim(&m(t, t - 2 * HOUR, None, 85.0, false), 0));
        assert!(!a.wants_fstrim(&m(t, t - 2 * HOUR, Some(t - 23 * HOUR), 50.0, true), 0), "once a day");
        assert!(a.wants_fstrim(&m(t, t - 2 * HOUR, Some(t - DAY), 50.0, true), 0));
    }

    #[test]
    fn interval_and_notice() {
        let w = Policy::Fstrim { interval_ns: 7 * DAY };
        assert!(!w.wants_fstrim(&m(6 * DAY, 0, None, 0.0, false), 0));
        assert!(w.wants_fstrim(&m(7 * DAY, 0, None, 0.0, false), 0));
        assert!(!w.wants_fstrim(&m(10 * DAY, 0, Some(7 * DAY), 0.0, false), 0));
        let n = Policy::OnNotice { mean_ns: None };
        let mut mo = m(DAY, 0, None, 0.0, false);
        mo.first_probe_mean_ns = Some(100_000);
        assert!(!n.wants_fstrim(&mo, 0), "no probe just ran");
        mo.probe_mean_ns = Some(150_000);
        assert!(!n.wants_fstrim(&mo, 0));
        mo.probe_mean_ns = Some(250_000);
        assert!(n.wants_fstrim(&mo, 0), "twice as slow as new");
        assert!(!Policy::OnNotice { mean_ns: Some(300_000) }.wants_fstrim(&mo, 0));
    }
}
