//! `--duration` of a life run: a number and a unit — `h`, `d`/`days`, `w`/`weeks`,
//! `months` (a twelfth of a year), `y`/`years` (365 days). `12months` = `1y` = 365 days.

use crate::policy::{DAY, HOUR};
use flashsim::Ns;

pub fn parse_duration(s: &str) -> Result<Ns, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let n: f64 =
        n.parse().map_err(|_| format!("duration '{s}': expected a number and a unit, like 12months, 30d, 1y"))?;
    let unit_ns = match unit.trim() {
        "h" | "hours" | "hour" => HOUR as f64,
        "d" | "day" | "days" => DAY as f64,
        "w" | "week" | "weeks" => 7.0 * DAY as f64,
        "mo" | "month" | "months" => 365.0 / 12.0 * DAY as f64,
        "y" | "year" | "years" => 365.0 * DAY as f64,
        u => return Err(format!("duration '{s}': unit '{u}' is not h, d, w, months or y")),
    };
    let ns = n * unit_ns;
    if !(ns >= HOUR as f64 && ns <= 100.0 * 365.0 * DAY as f64) {
        return Err(format!("duration '{s}': must be between an hour and 100 years"));
    }
    Ok(ns.round() as Ns)
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
