//! Whether Android's idle maintenance really trims: it exists from Android 4.3 (API 18) on, and
//! it runs only when the phone is idle and charging, so a phone that is rarely left on the
//! charger goes weeks without a trim. `dumpsys mount` says when it last ran
//! (`Last maintenance: 2026-02-01 03:11:54`); the capture says when it was taken
//! (`date-epoch: N` in `doctor/capture.txt`), the live system uses the clock.

use crate::tree::Tree;

/// Idle maintenance (with fstrim) appeared in Android 4.3, API level 18.
pub const FIRST_SDK_WITH_FSTRIM: u32 = 18;

/// A last run older than this many days means nothing is trimming in practice: the service
/// tries daily, and a week is the cadence of the common Linux schedule (util-linux's weekly
/// `fstrim.timer`).
pub const STALE_DAYS: f64 = 7.0;

/// Days from 1970-01-01 to the civil date `y-m-d` (proleptic Gregorian).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Seconds since the epoch of `YYYY-MM-DD HH:MM:SS` (as `dumpsys mount` prints, local time of
/// the phone; a few hours of time zone do not matter at the scale of [`STALE_DAYS`]). `None`
/// for anything else (Android prints `unknown` when maintenance never ran).
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = s.split_once(' ').unwrap_or((s, "00:00:00"));
    let mut d = date.split('-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: u32 = d.next()?.parse().ok()?;
    let day: u32 = d.next()?.parse().ok()?;
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) || !(1970..=9999).contains(&y) {
        return None;
    }
    let mut t = time.trim().split(':');
    let hh: i64 = t.next()?.parse().ok()?;
    let mm: i64 = t.next().unwrap_or("0").parse().ok()?;
    let ss: i64 = t.next().unwrap_or("0").split('.').next()?.parse().ok()?;
    if hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    Some(days_from_civil(y, m, day) * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// When the inspected system was looked at: now for the live system, `date-epoch:` of the
/// capture otherwise (`None` when the capture does not say).
pub fn observed_at(tree: &Tree) -> Option<i64> {
    if tree.live {
        return std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok().map(|d| d.as_secs() as i64);
    }
    let t = tree.read("doctor/capture.txt").ok()?;
    t.lines().find_map(|l| l.trim().strip_prefix("date-epoch:").and_then(|v| v.trim().parse().ok()))
}

/// Days between the last maintenance and the observation, when both are known.
pub fn age_days(last: Option<&str>, observed: Option<i64>) -> Option<f64> {
    let last = parse_timestamp(last?)?;
    let now = observed?;
    Some(((now - last) as f64 / 86_400.0).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp("1970-01-01 00:00:00"), Some(0));
        assert_eq!(parse_timestamp("2000-03-01 00:00:00"), Some(951_868_800));
        assert_eq!(parse_timestamp("2024-05-02 03:11:54"), Some(1_714_619_514));
        assert_eq!(parse_timestamp("unknown"), None);
        assert_eq!(parse_timestamp("2024-13-02 03:11:54"), None);
        assert_eq!(parse_timestamp(""), None);
    }

    #[test]
    fn ages() {
        let at = parse_timestamp("2026-03-01 12:00:00");
        assert_eq!(age_days(Some("2026-02-22 12:00:00"), at), Some(7.0));
        assert_eq!(age_days(Some("unknown"), at), None);
        assert_eq!(age_days(Some("2026-02-22 12:00:00"), None), None);
        assert_eq!(age_days(Some("2026-03-02 12:00:00"), at), Some(0.0), "a clock behind is not negative");
    }
}
