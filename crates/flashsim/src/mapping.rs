//! The device's FTL, one of the mapping schemes a profile can choose (`ftl.mapping`): the
//! page-mapped FTL with garbage collection ([`crate::ftl`]), the hybrid log-block FTL
//! ([`crate::hybrid`]) or the zoned FTL ([`crate::zoned`]). [`Mapping`] holds the one in use and implements [`Translation`] by
//! delegating each call to it (`enum_dispatch` writes the `match`); the branch is the same for
//! every request, so it costs nothing measurable, and no call goes through a trait object.

use crate::ftl::Ftl;
use crate::hybrid::HybridFtl;
use crate::profile::{MappingKind, Profile};
use crate::translation::Translation;
use crate::zoned::ZonedFtl;
// The types in the trait's signatures: `enum_dispatch` copies them into the impl it writes here.
use crate::counters::{Counters, DeviceState};
use crate::ftl::Location;
use crate::nand::Nand;
use crate::timeline::Ns;
use crate::Error;
use enum_dispatch::enum_dispatch;

/// The FTL of a device: whichever kind its profile names.
// A device holds exactly one, created once and never moved on the request path, so the
// variants' size difference costs nothing.
#[allow(clippy::large_enum_variant)]
#[enum_dispatch(Translation)]
#[derive(Debug, Clone)]
pub(crate) enum Mapping {
    /// Page-level mapping with garbage collection (`mapping = "page"`, the default).
    Page(Ftl),
    /// Block-mapped data blocks and page-mapped log blocks (`mapping = "hybrid"`).
    Hybrid(HybridFtl),
    /// Host-managed zones, no device-side GC (`mapping = "zoned"`).
    Zoned(ZonedFtl),
}

impl Mapping {
    /// The FTL `profile` names, with its victim-selection RNG seeded by `seed` (the hybrid FTL
    /// draws nothing at random).
    pub(crate) fn new(profile: &Profile, seed: u64) -> Mapping {
        match profile.ftl.mapping {
            MappingKind::Page => Mapping::Page(Ftl::new(profile, seed)),
            MappingKind::Hybrid => Mapping::Hybrid(HybridFtl::new(profile)),
            MappingKind::Zoned => Mapping::Zoned(ZonedFtl::new(profile)),
        }
    }

    /// Test-only (feature `fault-injection`): swap two logical units' mapping entries, as a
    /// buggy FTL would; false where the FTL kind has no such hook (hybrid).
    #[cfg(feature = "fault-injection")]
    pub(crate) fn fault_swap_mapping(&mut self, a: u32, b: u32) -> bool {
        match self {
            Mapping::Page(f) => {
                f.fault_swap_mapping(a, b);
                true
            }
            Mapping::Hybrid(_) | Mapping::Zoned(_) => false,
        }
    }

    /// Test-only (feature `fault-injection`): break the FTL's state as `fault` says; false
    /// (nothing changed) where it does not apply or the FTL kind has no such hook (hybrid).
    #[cfg(feature = "fault-injection")]
    pub(crate) fn inject(&mut self, fault: crate::fault::Fault) -> bool {
        match self {
            Mapping::Page(f) => f.inject(fault),
            Mapping::Hybrid(_) | Mapping::Zoned(_) => false,
        }
    }
}
