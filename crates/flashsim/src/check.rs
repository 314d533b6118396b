//! Invariant checks while a device runs, not only in tests (issue 45, part 5).
//!
//! Two kinds:
//! - **periodic**: every N host commands the device runs its full consistency check (mapping
//!   against reverse map, valid counts, free lists: `check_invariants` of its FTL, O(device
//!   size)); a failure stops the run with a [`Violation`] naming what broke and after which
//!   command, at what virtual time. Off by default in release builds (`flashlab age --check`
//!   turns it on); on by default in debug builds (every test run), every
//!   [`debug_check_every`] commands, a period that grows with the device so that the check
//!   costs each command about the same on any size.
//! - **hot-path assertions** (`hot_assert!`, `lib.rs`): cheap checks where a broken state would
//!   otherwise go unnoticed (a valid count about to underflow, a write pointer past its
//!   block, a taken free block that is not free, a mapping entry out of range). Compiled into
//!   debug builds and, with cargo feature `checked`, into release builds; release builds
//!   without it have none of them (the simulator's speed is unchanged).

use crate::timeline::Ns;

/// The period of the checks `flashlab age --check` runs without a number: every 10 000 host
/// commands (the check's cost grows with the device; `--check=N` trades it against how soon a
/// broken state is found).
pub const DEFAULT_CHECK_EVERY: u64 = 10_000;

/// The period of the default checks of a debug build (tests) on a device of `physical_units`
/// 4 KiB units: at least 10 000 commands, and one command per 8 units beyond that, so that
/// the O(size) check adds about the same small share to each command on every device size.
pub fn debug_check_every(physical_units: u64) -> u64 {
    DEFAULT_CHECK_EVERY.max(physical_units / 8)
}

/// A broken invariant found by a check while the device ran: what broke (the message names the
/// logical unit, physical unit, block or die and the values that disagree) and when.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("device invariant broken after host command {command} (virtual time {}): {what}", seconds(*at))]
pub struct Violation {
    /// Host commands the device had run when the check failed (the check runs after one).
    pub command: u64,
    /// The virtual time of that command's submission, ns.
    pub at: Ns,
    /// What the check found.
    pub what: String,
}

/// `t` ns as seconds with nanosecond digits (`12.000345678 s`).
pub(crate) fn seconds(t: Ns) -> String {
    format!("{}.{:09} s", t / 1_000_000_000, t % 1_000_000_000)
}

/// When the next periodic check is due: every `every` commands (0: never).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schedule {
    every: u64,
    /// Commands until the next check (0 when off), so that a command costs one compare.
    left: u64,
}

impl Schedule {
    /// A check every `every` commands; `None` or 0: no periodic check.
    pub(crate) fn new(every: Option<u64>) -> Schedule {
        let every = every.unwrap_or(0);
        Schedule { every, left: every }
    }

    /// The default of a device of `physical_units` units: every [`debug_check_every`]
    /// commands in a debug build, none in a release build.
    pub(crate) fn default_for(physical_units: u64) -> Schedule {
        Schedule::new(cfg!(debug_assertions).then(|| debug_check_every(physical_units)))
    }

    /// The period, `None` when off.
    pub(crate) fn every(&self) -> Option<u64> {
        (self.every != 0).then_some(self.every)
    }

    /// Count one command; true when a check is due after it.
    #[inline(always)]
    pub(crate) fn tick(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        if self.left == 0 {
            self.left = self.every;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schedule_fires_every_n_commands_and_never_when_off() {
        let mut s = Schedule::new(Some(3));
        let fired: Vec<bool> = (0..7).map(|_| s.tick()).collect();
        assert_eq!(fired, [false, false, true, false, false, true, false]);
        let mut off = Schedule::new(None);
        assert!((0..100).all(|_| !off.tick()) && off.every().is_none());
        assert!(Schedule::new(Some(0)).every().is_none());
    }

    #[test]
    fn the_debug_period_grows_with_the_device() {
        assert_eq!(debug_check_every(65_536), DEFAULT_CHECK_EVERY);
        assert_eq!(debug_check_every(8 << 20), 1 << 20);
    }

    #[test]
    fn a_violation_says_what_and_when() {
        let v =
            Violation { command: 42, at: 1_500_000_123, what: "block 7: valid count 3, but 2 units map to it".into() };
        assert_eq!(
            v.to_string(),
            "device invariant broken after host command 42 (virtual time 1.500000123 s): block 7: valid count 3, but 2 units map to it"
        );
    }
}
