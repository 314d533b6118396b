//! A zoned device's zones as util-linux's `blkzone report` prints a kernel zoned block
//! device's, line for line (`flashlab run --zone-report`), so the simulated device's zones
//! after a job file diff against a real one's (docs/zoned.md, "Against the kernel").

use flashsim::{Zone, ZoneState};
use std::fmt::Write;

/// One line per zone: start, length, capacity and write pointer (relative to the start) in
/// 512-byte sectors and hexadecimal, then the condition as its ZBC code and abbreviation and
/// the zone type (every zone of a flashsim zoned device is sequential-write-required). Reset
/// and non-sequential hints are 0: the model keeps none.
pub fn blkzone_report(zones: &[Zone]) -> String {
    let mut out = String::with_capacity(zones.len() * 120);
    for z in zones {
        let (code, abbr) = condition(z.state);
        let _ = writeln!(
            out,
            "  start: 0x{:09x}, len 0x{:06x}, cap 0x{:06x}, wptr 0x{:06x} reset:0 non-seq:0, zcond:{code:2}({abbr}) [type: 2(SEQ_WRITE_REQUIRED)]",
            z.start / 512,
            z.size / 512,
            z.capacity / 512,
            (z.wp - z.start) / 512,
        );
    }
    out
}

/// The zone condition's code in ZBC/ZNS reports (Linux's `BLK_ZONE_COND_*`) and the
/// abbreviation `blkzone` prints for it.
fn condition(s: ZoneState) -> (u8, &'static str) {
    match s {
        ZoneState::Empty => (1, "em"),
        ZoneState::ImplicitlyOpen => (2, "oi"),
        ZoneState::ExplicitlyOpen => (3, "oe"),
        ZoneState::Closed => (4, "cl"),
        ZoneState::ReadOnly => (13, "ro"),
        ZoneState::Full => (14, "fu"),
        ZoneState::Offline => (15, "of"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_as_blkzone_prints_them() {
        let mib = 1 << 20;
        let zones = [
            Zone { start: 0, size: 16 * mib, capacity: 12 * mib, wp: 12 * mib, state: ZoneState::Full },
            Zone { start: 16 * mib, size: 16 * mib, capacity: 12 * mib, wp: 16 * mib + 4096, state: ZoneState::Closed },
        ];
        let r = blkzone_report(&zones);
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(
            lines[0],
            "  start: 0x000000000, len 0x008000, cap 0x006000, wptr 0x006000 reset:0 non-seq:0, zcond:14(fu) [type: 2(SEQ_WRITE_REQUIRED)]"
        );
        assert_eq!(
            lines[1],
            "  start: 0x000008000, len 0x008000, cap 0x006000, wptr 0x000008 reset:0 non-seq:0, zcond: 4(cl) [type: 2(SEQ_WRITE_REQUIRED)]"
        );
    }
}
