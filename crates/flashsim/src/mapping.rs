//! The device's FTL, one of the mapping schemes a profile can choose (`ftl.mapping`): the
//! page-mapped FTL with garbage collection ([`crate::ftl`]) or the hybrid log-block FTL
//! ([`crate::hybrid`]). [`Mapping`] forwards the device's calls to the one in use; the branch
//! is the same for every request, so it costs nothing measurable.

use crate::counters::{Counters, DeviceState};
use crate::ftl::{Ftl, Location};
use crate::hybrid::HybridFtl;
use crate::nand::Nand;
use crate::profile::{MappingKind, Profile};
use crate::timeline::Ns;

// A device holds exactly one, created once and never moved on the request path, so the
// variants' size difference costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Mapping {
    Page(Ftl),
    Hybrid(HybridFtl),
}

macro_rules! each {
    ($self:expr, $f:ident => $e:expr) => {
        match $self {
            Mapping::Page($f) => $e,
            Mapping::Hybrid($f) => $e,
        }
    };
}

impl Mapping {
    pub fn new(profile: &Profile, seed: u64) -> Mapping {
        match profile.ftl.mapping {
            MappingKind::Page => Mapping::Page(Ftl::new(profile, seed)),
            MappingKind::Hybrid => Mapping::Hybrid(HybridFtl::new(profile)),
        }
    }

    #[inline]
    pub fn nand(&mut self) -> &mut Nand {
        each!(self, f => &mut f.nand)
    }

    #[inline]
    pub fn counters(&self) -> &Counters {
        each!(self, f => &f.counters)
    }

    #[inline]
    pub fn counters_mut(&mut self) -> &mut Counters {
        each!(self, f => &mut f.counters)
    }

    #[inline]
    pub fn logical_units(&self) -> u32 {
        each!(self, f => f.logical_units())
    }

    #[inline]
    pub fn prefetch_mapping(&self, lpn: u32) {
        match self {
            Mapping::Page(f) => f.prefetch_mapping(lpn),
            Mapping::Hybrid(h) => h.prefetch_mapping(lpn),
        }
    }

    #[inline]
    pub fn prefetch_location(&self, lpn: u32) {
        if let Mapping::Page(f) = self {
            f.prefetch_location(lpn);
        }
    }

    /// Test-only (feature `fault-injection`): swap two logical units' mapping entries, as a
    /// buggy FTL would; false where the FTL kind has no such hook (hybrid).
    #[cfg(feature = "fault-injection")]
    pub fn fault_swap_mapping(&mut self, a: u32, b: u32) -> bool {
        match self {
            Mapping::Page(f) => {
                f.fault_swap_mapping(a, b);
                true
            }
            Mapping::Hybrid(_) => false,
        }
    }

    #[inline]
    pub fn locate(&self, lpn: u32) -> Location {
        each!(self, f => f.locate(lpn))
    }

    #[inline]
    pub fn write_unit(&mut self, lpn: u32, stream: u32, at: Ns, tag: u64) -> Ns {
        match self {
            Mapping::Page(f) => f.write_unit(lpn, stream, at, tag),
            Mapping::Hybrid(h) => h.write_unit(lpn, at, tag),
        }
    }

    #[inline]
    pub fn trim_unit(&mut self, lpn: u32) {
        each!(self, f => f.trim_unit(lpn))
    }

    #[inline]
    pub fn read_units(&mut self, lpn: u32, n: u32, at: Ns, chunk: impl FnMut(Ns, u32)) {
        each!(self, f => f.read_units(lpn, n, at, chunk))
    }

    /// The garbage-collection or merge work a host write command of `units` units carries:
    /// the command started at `start` and its own data is in at `at`; returns when the
    /// device is done with the command.
    #[inline]
    pub fn command_gc(&mut self, start: Ns, at: Ns, units: u32) -> Ns {
        each!(self, f => f.command_gc(start, at, units))
    }

    /// The device has been busy without a break since `t` (commands queued back to back): the
    /// hybrid FTL bounds the merge work of the whole busy period, not only of one command.
    #[inline]
    pub fn note_busy_since(&mut self, t: Ns) {
        if let Mapping::Hybrid(h) = self {
            h.note_busy_since(t);
        }
    }

    pub fn flush(&mut self, at: Ns) -> Ns {
        each!(self, f => f.flush(at))
    }

    pub fn background(&mut self, from: Ns, until: Ns) {
        each!(self, f => f.background(from, until))
    }

    pub fn temperature_split(&self) -> Option<(u64, u64)> {
        match self {
            Mapping::Page(f) => f.temperature_split(),
            Mapping::Hybrid(_) => None,
        }
    }

    pub fn state(&self) -> DeviceState {
        each!(self, f => f.state())
    }

    pub fn memory_bytes(&self) -> u64 {
        each!(self, f => f.memory_bytes())
    }

    pub fn check_invariants(&self) -> Result<(), String> {
        each!(self, f => f.check_invariants())
    }

    /// Map every logical unit as one sequential pass over a new device would (device
    /// history set up in bulk: no NAND time, no counters).
    pub fn map_all_sequential(&mut self) -> Result<(), String> {
        each!(self, f => f.map_all_sequential())
    }

    pub fn track_content(&mut self) {
        each!(self, f => f.track_content())
    }

    pub fn peek(&self, lpn: u32) -> Option<u64> {
        each!(self, f => f.peek(lpn))
    }
}
