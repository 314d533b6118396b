//! `--duration` of a life run: a duration in flashlab's one grammar
//! ([`flashlab_lab::units::parse_duration_ns`]: `12months` = `1y` = 365 days, `30d`, `2w`,
//! `48h`), between an hour and 100 years.

use crate::policy::{DAY, HOUR};
use crate::LifeError;
use flashsim::Ns;

/// The virtual time a life run simulates, in nanoseconds.
pub fn parse_duration(s: &str) -> Result<Ns, LifeError> {
    let ns = flashlab_lab::units::parse_duration_ns(s)?;
    if !(HOUR..=100 * 365 * DAY).contains(&ns) {
        return Err(LifeError::DurationRange(s.to_string()));
    }
    Ok(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_duration("12months").unwrap(), 365 * DAY);
        assert_eq!(parse_duration("1y").unwrap(), 365 * DAY);
        assert_eq!(parse_duration("30d").unwrap(), 30 * DAY);
        assert_eq!(parse_duration("2w").unwrap(), 14 * DAY);
        assert!(parse_duration("12 fortnights").is_err());
        assert!(parse_duration("0d").is_err());
    }
}
