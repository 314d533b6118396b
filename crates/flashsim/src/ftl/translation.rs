//! The page-mapped FTL as the device sees it: [`Translation`] for [`Ftl`]. Each method
//! forwards to the inherent method of the same name in `ftl.rs` (and `bulk.rs`), where the
//! work is done; a call `Ftl::name(self, ..)` names the inherent one.

use super::{Ftl, Location};
use crate::counters::DeviceState;
use crate::timeline::Ns;
use crate::translation::Translation;
use crate::Error;

impl Translation for Ftl {
    crate::translation::nand_and_counters!();

    #[inline]
    fn logical_units(&self) -> u32 {
        Ftl::logical_units(self)
    }

    #[inline]
    fn locate(&self, lpn: u32) -> Location {
        Ftl::locate(self, lpn)
    }

    #[inline]
    fn write_unit(&mut self, lpn: u32, stream: u32, at: Ns, tag: u64) -> Ns {
        Ftl::write_unit(self, lpn, stream, at, tag)
    }

    #[inline]
    fn trim_unit(&mut self, lpn: u32) {
        Ftl::trim_unit(self, lpn)
    }

    #[inline]
    fn read_units(&mut self, lpn: u32, n: u32, at: Ns, chunk: impl FnMut(Ns, u32)) {
        Ftl::read_units(self, lpn, n, at, chunk)
    }

    #[inline]
    fn command_gc(&mut self, start: Ns, at: Ns, units: u32) -> Ns {
        Ftl::command_gc(self, start, at, units)
    }

    #[inline]
    fn flush(&mut self, at: Ns) -> Ns {
        Ftl::flush(self, at)
    }

    #[inline]
    fn background(&mut self, from: Ns, until: Ns) {
        Ftl::background(self, from, until)
    }

    fn state(&self) -> DeviceState {
        Ftl::state(self)
    }

    fn memory_bytes(&self) -> u64 {
        Ftl::memory_bytes(self)
    }

    fn check_invariants(&self) -> Result<(), Error> {
        Ftl::check_invariants(self)
    }

    fn map_all_sequential(&mut self) -> Result<(), Error> {
        Ftl::map_all_sequential(self)
    }

    fn track_content(&mut self) {
        Ftl::track_content(self)
    }

    fn peek(&self, lpn: u32) -> Option<u64> {
        Ftl::peek(self, lpn)
    }

    #[inline]
    fn prefetch_mapping(&self, lpn: u32) {
        Ftl::prefetch_mapping(self, lpn)
    }

    #[inline]
    fn prefetch_location(&self, lpn: u32) {
        Ftl::prefetch_location(self, lpn)
    }

    fn temperature_split(&self) -> Option<(u64, u64)> {
        Ftl::temperature_split(self)
    }
}
