//! Test-only fault injection (cargo feature `fault-injection`): breaks a device's FTL state on
//! purpose, at once ([`crate::Device::inject_fault`]) or after a given host command
//! ([`crate::Device::arm_fault`], [`arm_next_device`]), so that tests can show the checkers
//! catch it: flashlab's simulated `verify` (what reads return) and the invariant checks
//! (`flashlab age --check`, `crate::check`).

use std::cell::Cell;

/// A way to break the page-mapped FTL's state, as a bug would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Swap the mapping entries of two logical units: each then reads the other's data (the
    /// reverse map is left alone, so GC later moves the wrong unit).
    SwapMapping(u32, u32),
    /// Count one valid unit too many on a die (its blocks' valid counts are left alone); GC's
    /// choice of the die its copies go to reads the count, nothing fails on it.
    DieValidOffByOne(u32),
    /// Clear the reverse-map entry (the valid bit) of the page holding logical unit `lpn`, whose
    /// mapping entry keeps pointing there: a mapping entry pointing at a page that holds no
    /// valid data. Only when `lpn` is on NAND.
    ClearReverse(u32),
}

thread_local! {
    static ARMED: Cell<Option<(u64, Fault)>> = const { Cell::new(None) };
}

/// Arm `fault` for the next device created on this thread: it is injected right after that
/// device's host command number `command` (counted from 1). For a test of a library entry
/// point that creates its device itself (`flashlab_lab::sim_run::run`).
pub fn arm_next_device(command: u64, fault: Fault) {
    ARMED.with(|a| a.set(Some((command, fault))));
}

/// The fault armed for the next device, taken (so only one device gets it).
pub(crate) fn take_armed() -> Option<(u64, Fault)> {
    ARMED.with(Cell::take)
}
