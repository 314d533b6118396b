//! What a mapping scheme (an FTL kind) does for the device: [`Translation`], the one interface
//! between [`crate::Device`] (host interface, request splitting, idle detection) and the
//! translation layer behind it. The page-mapped FTL ([`crate::ftl::Ftl`]) and the hybrid
//! log-block FTL ([`crate::hybrid::HybridFtl`]) implement it (`ftl/translation.rs`,
//! `hybrid/translation.rs`), and so does the zoned FTL ([`crate::zoned`]); the device holds the profile's kind in a [`crate::mapping::Mapping`],
//! an enum that implements the trait by delegating to its variant (static dispatch: a branch
//! on the kind per call, no trait object on the request path).
//!
//! Units: a logical unit (`lpn`) is a 4 KiB mapping unit ([`crate::MAP_UNIT`]) of the host's
//! address space; times are nanoseconds on the virtual clock ([`Ns`]).

use crate::counters::{Counters, DeviceState};
use crate::ftl::Location;
use crate::nand::Nand;
use crate::timeline::Ns;
use crate::Error;
use enum_dispatch::enum_dispatch;

/// The five [`Translation`] methods every FTL writes the same way, from its `nand: Nand` and
/// `counters: Counters` fields: expand it inside the `impl Translation` block.
macro_rules! nand_and_counters {
    () => {
        #[inline]
        fn nand(&mut self) -> &mut crate::nand::Nand {
            &mut self.nand
        }

        fn suspensions(&self) -> u64 {
            self.nand.suspensions()
        }

        fn promoted_reads(&self) -> u64 {
            self.nand.promoted_reads()
        }

        #[inline]
        fn counters(&self) -> &crate::counters::Counters {
            &self.counters
        }

        #[inline]
        fn counters_mut(&mut self) -> &mut crate::counters::Counters {
            &mut self.counters
        }
    };
}
pub(crate) use nand_and_counters;

/// A flash translation layer: maps the host's logical units to NAND, with its write buffer,
/// garbage collection or merges, TRIM and counters. Every method is called by the device on
/// the request path or between requests; none allocates per call.
#[enum_dispatch]
pub(crate) trait Translation {
    /// The NAND dies and channels the FTL books its operations on.
    fn nand(&mut self) -> &mut Nand;

    /// Program and erase operations that reads have suspended so far (0 on a NAND part
    /// without suspension).
    fn suspensions(&self) -> u64;

    /// Reads that went ahead of programs or erases queued on their die so far (0 unless the
    /// profile has `read_priority`).
    fn promoted_reads(&self) -> u64;

    /// Running totals since the FTL was created (host requests, NAND operations, GC).
    fn counters(&self) -> &Counters;

    /// The running totals, to reset them (a run that starts after set-up).
    fn counters_mut(&mut self) -> &mut Counters;

    /// Logical units (4 KiB) the host can address.
    fn logical_units(&self) -> u32;

    /// Where `lpn`'s data is now.
    fn locate(&self, lpn: u32) -> Location;

    /// A host write of unit `lpn` on host write stream `stream`, whose data is in the
    /// controller at `at`, tagged `tag` (content tracking); returns when the write buffer
    /// has accepted it. A kind with one write frontier ignores the stream.
    fn write_unit(&mut self, lpn: u32, stream: u32, at: Ns, tag: u64) -> Ns;

    /// Unmap `lpn` (TRIM): it reads as zeros and is never copied again.
    fn trim_unit(&mut self, lpn: u32);

    /// Read `n` units from `lpn` starting at `at`; calls `chunk(ready, units)` for each piece
    /// as it reaches the controller (one NAND page read per run of units in the same page;
    /// unmapped and buffered units are ready at `at`).
    fn read_units(&mut self, lpn: u32, n: u32, at: Ns, chunk: impl FnMut(Ns, u32));

    /// The garbage-collection or merge work a host write command of `units` units carries:
    /// the command started at `start` and its own data is in at `at`; returns when the
    /// device is done with the command (never past the profile's busy-time ceiling).
    fn command_gc(&mut self, start: Ns, at: Ns, units: u32) -> Ns;

    /// Write the host data held in a volatile write buffer to NAND (FLUSH); returns when it
    /// and every program already in flight have completed.
    fn flush(&mut self, at: Ns) -> Ns;

    /// Idle-time work (background GC, merges, SLC-cache folding) from `from` until `until`;
    /// an operation started inside the window completes even past it.
    fn background(&mut self, from: Ns, until: Ns);

    /// A snapshot of free blocks, valid units and wear.
    fn state(&self) -> DeviceState;

    /// Heap bytes the FTL's tables hold (mapping, per-block arrays, free lists, indexes).
    fn memory_bytes(&self) -> u64;

    /// Check that the mapping, valid counts and free lists agree (tests; O(device size)).
    fn check_invariants(&self) -> Result<(), Error>;

    /// Map every logical unit as one sequential pass over a new device would, with no NAND
    /// time and no counters (device history set up in bulk). Fails, changing nothing, unless
    /// the FTL is new.
    fn map_all_sequential(&mut self) -> Result<(), Error>;

    /// Keep a tag per physical unit so that [`Translation::peek`] can say what a read returns.
    fn track_content(&mut self);

    /// The tag of the data a read of `lpn` returns now; `None`: zeros. Needs content tracking.
    fn peek(&self, lpn: u32) -> Option<u64>;

    /// Hint: fetch `lpn`'s mapping entry into the CPU cache (a request for it is coming).
    /// Changes no result; kinds whose lookup is not a cache miss do nothing.
    #[inline]
    fn prefetch_mapping(&self, _lpn: u32) {}

    /// Hint, second step: fetch the reverse-map entry of `lpn`'s place on NAND (its mapping
    /// entry was fetched a while ago). Changes no result.
    #[inline]
    fn prefetch_location(&self, _lpn: u32) {}

    /// The device has been busy without a break since `t` (commands queued back to back): a
    /// kind that bounds the GC or merge work of a whole busy period, not only of one
    /// command, uses it (the hybrid FTL); the others ignore it.
    #[inline]
    fn note_busy_since(&mut self, _t: Ns) {}

    /// Host unit writes the temperature detector classified (hot, cold); `None` for a kind
    /// or profile without one.
    #[inline]
    fn temperature_split(&self) -> Option<(u64, u64)> {
        None
    }
}
