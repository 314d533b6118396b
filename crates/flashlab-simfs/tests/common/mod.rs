//! Zoned test devices for the F2FS-on-zones tests: two dies, 2 MiB erase blocks, zones of
//! `blocks_per_die` blocks on each die (4 MiB per block a die holds), power-loss protected
//! like `null_blk` (a flush programs nothing); and F2FS made on one.

#![allow(dead_code)]

use flashlab_simfs::{Fs, FsConfig};
use flashsim::{Device, Profile};

/// A zoned profile of `blocks_per_plane` blocks per die, zones `blocks_per_die` blocks deep on
/// each of the two dies, `max_open` open and active zones.
pub fn zoned_toml(blocks_per_plane: u32, blocks_per_die: u32, max_open: u32) -> String {
    format!(
        r#"
name = "zoned-test"
description = "test: zones of {zone} MiB over two dies"
[nand]
cell = "tlc"
channels = 2
dies_per_channel = 1
planes_per_die = 1
blocks_per_plane = {blocks_per_plane}
pages_per_block = 128
page_kib = 16
t_read_us = 35
t_prog_us = 1400
t_erase_us = 15000
channel_mb_s = 2400
[ftl]
mapping = "zoned"
spare_factor = 0.02
write_buffer_kib = 512
write_buffer_volatile = false
idle_delay_ms = 20
[zoned]
zone_width = 2
blocks_per_die = {blocks_per_die}
max_open_zones = {max_open}
max_active_zones = {max_open}
[host]
interface = "ufs"
bus_mb_s = 4640
command_overhead_us = 5
host_submit_us = 2
host_complete_us = 2
trim_us_per_mib = 1
"#,
        zone = 4 * blocks_per_die
    )
}

/// The profile of a TOML text of [`zoned_toml`]'s shape.
pub fn profile(text: &str) -> Profile {
    Profile::from_toml("zoned-test.toml", text).unwrap()
}

/// The zoned device of `p` and F2FS on it, its metadata on the profile's conventional unit.
pub fn f2fs_on(p: &Profile) -> (Device, Fs) {
    f2fs_with(p, "f2fs")
}

/// [`f2fs_on`] with the mount options of `spec` (`f2fs,OPTION...`).
pub fn f2fs_with(p: &Profile, spec: &str) -> (Device, Fs) {
    let dev = Device::new(p, 1);
    let cfg = FsConfig::parse(spec).unwrap();
    let (_, bytes) = Fs::zoned_meta_bytes(&dev, &cfg).unwrap();
    let meta = Device::new(&p.conventional_unit(bytes).unwrap(), 2);
    let fs = Fs::f2fs_zoned(&dev, meta, cfg).unwrap();
    (dev, fs)
}
