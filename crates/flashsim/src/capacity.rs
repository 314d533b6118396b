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

impl Profile {
    /// The conventional logical unit beside a zoned device that holds `bytes` of the host's
    /// conventional data (F2FS's metadata: zoned UFS puts it in another logical unit, ZNS in a
    /// conventional namespace): the same NAND, buffer and host interface, one die, page
    /// mapping, as few blocks as hold `bytes` with eight blocks (at least 7 %) of spare for its
    /// garbage collection. Its own device: it shares neither dies nor bus time
    /// with the zones (an assumption; docs/zoned.md).
    pub fn conventional_unit(&self, bytes: u64) -> Result<Profile, crate::ProfileError> {
        let mut p = self.clone();
        p.name = format!("{}-conventional", self.name);
        p.description =
            format!("the conventional logical unit of {}, {bytes} bytes for the host's metadata", self.name);
        p.zoned = None;
        p.fdp = None;
        p.ftl.mapping = MappingKind::Page;
        p.ftl.map_cache_kib = 0;
        p.ftl.slc_cache_mib = 0;
        p.nand.channels = 1;
        p.nand.dies_per_channel = 1;
        let block =
            u64::from(p.nand.planes_per_die) * u64::from(p.nand.pages_per_block) * u64::from(p.nand.page_kib) * 1024;
        // The data's blocks and eight spare (open frontiers and GC's free blocks), or 7 %.
        let data = bytes.div_ceil(block) as u32;
        p.nand.blocks_per_plane = data + 8;
        loop {
            let bpp = f64::from(p.nand.blocks_per_plane);
            p.ftl.spare_factor = (8.0 / bpp).max(0.07);
            if p.logical_bytes() >= bytes {
                break;
            }
            p.nand.blocks_per_plane += 1;
        }
        p.validate(&p.name.clone())?;
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::{builtin, Device, Profile};

    /// A zoned profile's conventional unit holds what it was asked to, on the same NAND.
    #[test]
    fn the_conventional_unit_holds_what_it_was_sized_for() {
        for (name, text) in builtin::BUILTIN {
            let p = Profile::from_toml(name, text).unwrap();
            if p.zoned.is_none() {
                continue;
            }
            for bytes in [1 << 20, 300 << 20, 3 << 30] {
                let u = p.conventional_unit(bytes).unwrap();
                assert!(u.logical_bytes() >= bytes && u.zoned.is_none(), "{name} {bytes}");
                assert_eq!((u.nand.page_kib, u.nand.t_prog_us), (p.nand.page_kib, p.nand.t_prog_us));
                assert_eq!(Device::new(&u, 0).logical_bytes(), u.logical_bytes());
            }
        }
    }

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
