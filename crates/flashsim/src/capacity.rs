//! The logical capacity a profile's FTL exports, computed from the profile alone: the FTLs
//! size their mapping tables with it, and `flashlab profiles` lists it without building a
//! device (which would allocate the tables: half a gigabyte for a 256 GB profile).

use crate::nand::Geometry;
use crate::profile::{MappingKind, Profile, MAP_UNIT};

impl Profile {
    /// Mapping units (4 KiB) the host can address: the physical units less the spare. The
    /// page-mapped FTL keeps spare in units; the hybrid FTL maps whole blocks, so its spare is
    /// whole blocks.
    pub(crate) fn logical_units(&self) -> u32 {
        let geo = Geometry::from_profile(self);
        let spare = self.ftl.spare_factor;
        match self.ftl.mapping {
            MappingKind::Page => ((geo.physical_units() as f64) * (1.0 - spare)).floor() as u32,
            MappingKind::Hybrid => {
                let blocks = ((f64::from(geo.blocks())) * (1.0 - spare)).floor() as u32;
                blocks * geo.units_per_block
            }
            // The zones' address space: every zone's size, its capacity gap included.
            MappingKind::Zoned => {
                let width = self.zoned.as_ref().map_or(1, |z| z.zone_width);
                geo.dies / width * self.zone_slots() * self.zone_size_units()
            }
        }
    }

    /// Bytes the host can address: the physical 4 KiB units less the spare (page mapping), the
    /// whole blocks less the spare blocks (hybrid mapping), or the zones' address space (zoned
    /// mapping: zones x zone size, of which zones x zone capacity can be written), times 4 KiB.
    pub fn logical_bytes(&self) -> u64 {
        u64::from(self.logical_units()) * MAP_UNIT
    }
}

#[cfg(test)]
mod tests {
    use crate::{builtin, Device, Profile};

    /// The capacity from the profile is the capacity of the device built from it, for every
    /// built-in profile (both FTL kinds).
    #[test]
    fn matches_the_built_device() {
        for (name, text) in builtin::BUILTIN {
            let p = Profile::from_toml(name, text).unwrap();
            assert_eq!(p.logical_bytes(), Device::new(&p, 0).logical_bytes(), "{name}");
        }
    }
}
