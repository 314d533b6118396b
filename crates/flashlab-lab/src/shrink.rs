//! Smaller copies of a device profile for tests of laws that hold on any geometry (Little's
//! law, the P/E ceiling of `life`): fewer blocks per plane and shorter blocks, so that filling
//! or aging the device takes little time and memory. Timings, interface, FTL kind and
//! policies stay the profile's own.

use flashsim::Profile;

/// Bytes of NAND the profile's geometry holds (all dies, planes, blocks and pages).
pub fn nand_bytes(p: &Profile) -> u64 {
    u64::from(p.nand.channels * p.nand.dies_per_channel)
        * u64::from(p.nand.blocks_per_plane)
        * u64::from(p.nand.pages_per_block)
        * u64::from(p.units_per_page())
        * 4096
}

/// `p` itself when its NAND is at most `max_bytes`, else the largest-first geometry (pages
/// per block, then blocks per plane, from a fixed ladder) that fits and still validates; the
/// SLC cache is capped at a quarter of the smaller NAND and the GC pages per command left to
/// the block size. `None` when no geometry on the ladder validates.
pub fn shrunk(p: &Profile, max_bytes: u64) -> Option<Profile> {
    if nand_bytes(p) <= max_bytes {
        return Some(p.clone());
    }
    for ppb in [p.nand.pages_per_block, 128, 64, 32, 16, 8, 4] {
        for bpp in [16u32, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024] {
            let mut q = p.clone();
            q.nand.pages_per_block = ppb.min(p.nand.pages_per_block);
            q.nand.blocks_per_plane = bpp.min(p.nand.blocks_per_plane);
            q.ftl.gc_pages_per_command = None;
            q.ftl.slc_cache_mib = q.ftl.slc_cache_mib.min(((nand_bytes(&q) / 4) >> 20) as u32);
            if nand_bytes(&q) <= max_bytes && q.validate(&p.name).is_ok() {
                return Some(q);
            }
        }
    }
    None
}
