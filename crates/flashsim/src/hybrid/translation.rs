//! The hybrid log-block FTL as the device sees it: [`Translation`] for [`HybridFtl`]. Each
//! method forwards to the inherent method of the same name in `hybrid.rs` (and `bulk.rs`,
//! `busy.rs`), where the work is done; a call `HybridFtl::name(self, ..)` names the inherent one.

use super::HybridFtl;
use crate::counters::DeviceState;
use crate::ftl::Location;
use crate::timeline::Ns;
use crate::translation::Translation;
use crate::Error;

impl Translation for HybridFtl {
    crate::translation::nand_and_counters!();

    #[inline]
    fn logical_units(&self) -> u32 {
        HybridFtl::logical_units(self)
    }

    #[inline]
    fn locate(&self, lpn: u32) -> Location {
        HybridFtl::locate(self, lpn)
    }

    /// One write frontier: the stream is ignored (profile validation allows one host stream).
    #[inline]
    fn write_unit(&mut self, lpn: u32, _stream: u32, at: Ns, tag: u64) -> Ns {
        HybridFtl::write_unit(self, lpn, at, tag)
    }

    #[inline]
    fn trim_unit(&mut self, lpn: u32) {
        HybridFtl::trim_unit(self, lpn)
    }

    #[inline]
    fn read_units(&mut self, lpn: u32, n: u32, at: Ns, chunk: impl FnMut(Ns, u32)) {
        HybridFtl::read_units(self, lpn, n, at, chunk)
    }

    #[inline]
    fn command_gc(&mut self, start: Ns, at: Ns, units: u32) -> Ns {
        HybridFtl::command_gc(self, start, at, units)
    }

    #[inline]
    fn flush(&mut self, at: Ns) -> Ns {
        HybridFtl::flush(self, at)
    }

    #[inline]
    fn background(&mut self, from: Ns, until: Ns) {
        HybridFtl::background(self, from, until)
    }

    fn state(&self) -> DeviceState {
        HybridFtl::state(self)
    }

    fn memory_bytes(&self) -> u64 {
        HybridFtl::memory_bytes(self)
    }

    fn check_invariants(&self) -> Result<(), Error> {
        HybridFtl::check_invariants(self)
    }

    fn map_all_sequential(&mut self) -> Result<(), Error> {
        HybridFtl::map_all_sequential(self)
    }

    fn track_content(&mut self) {
        HybridFtl::track_content(self)
    }

    fn peek(&self, lpn: u32) -> Option<u64> {
        HybridFtl::peek(self, lpn)
    }

    #[inline]
    fn note_busy_since(&mut self, t: Ns) {
        HybridFtl::note_busy_since(self, t)
    }

    #[inline]
    fn prefetch_mapping(&self, lpn: u32) {
        HybridFtl::prefetch_mapping(self, lpn)
    }
}
