//! F2FS on a zoned device (`Fs::f2fs_zoned`): what the kernel's F2FS does there, as laws the
//! model must keep under a workload that makes it clean. Every write lands at its zone's write
//! pointer (the device refuses any other), a section is reset only once nothing in it is valid,
//! the metadata goes to the conventional device and nothing else does, nothing is updated in
//! place, and the zoned device itself never copies a page (its write amplification is 1).

use flashlab_simfs::disk::Purpose;
use flashlab_simfs::{ConfigError, Fs, FsConfig};
use flashsim::{Device, Op, ZoneState};

mod common;
use common::{f2fs_on, profile, zoned_toml};

/// 39 zones of 8 MiB (four 2 MiB segments per section), eight open zones.
fn zoned() -> String {
    zoned_toml(80, 2, 8)
}

/// The zoned device and F2FS on it.
fn system(text: &str) -> (Device, Fs) {
    f2fs_on(&profile(text))
}

/// A small xorshift for offsets: the test needs no more than that.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

#[test]
fn cleaning_by_zone_reset_keeps_every_law() {
    let (mut dev, mut fs) = system(&zoned());
    fs.set_check_every(&dev, Some(500));
    fs.set_trace(true);
    let f2 = fs.f2fs().unwrap();
    let sps = 4;
    assert_eq!(f2.main_segments() % sps, 0, "the main area is whole sections");
    assert_eq!(f2.main_segments() / sps, dev.zones().unwrap().layout().zones, "one section per zone");
    // A file of 85 % of the user space, written sequentially, then overwritten at random
    // 4 KiB blocks (an fsync every 32 writes) for twice its size: LFS must clean.
    let size = fs.free_bytes() / 100 * 85 / 4096 * 4096;
    let mut t = 0;
    let id = fs.create(&mut dev, t, "a.dat", size).unwrap();
    let mut off = 0;
    // Writes of 3 blocks: a log's runs meet section (zone) ends mid-write.
    while off < size {
        let len = (3 << 12).min(size - off);
        t = fs.io(&mut dev, t, id, Op::Write, off, len).unwrap().done;
        off += len;
    }
    t = fs.sync(&mut dev, t).unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let blocks = size / 4096;
    for i in 0..2 * blocks {
        let b = next(&mut x) % blocks;
        t = fs.io(&mut dev, t, id, Op::Write, b * 4096, 4096).unwrap().done;
        if i % 32 == 31 {
            t = fs.fsync(&mut dev, t, id).unwrap();
        }
    }
    t = fs.sync(&mut dev, t).unwrap();
    fs.check_now(&dev).unwrap();
    let c = fs.counters();
    assert!(c.cleaning_write_bytes > 0 && c.cleaned_segments_foreground > 0, "LFS cleaned: {c:?}");
    assert!(c.zone_resets > 0, "cleaned sections were reset: {c:?}");
    assert_eq!(c.cleaned_segments_foreground % sps as u64, 0, "cleaning takes whole sections");

    // Metadata on the conventional device, everything else on the zones; no trims there.
    let split = fs.f2fs().unwrap().main_offset();
    let trace = fs.take_trace();
    for r in &trace {
        match (r.op, r.purpose) {
            (Op::Write, Some(Purpose::Meta)) => assert!(r.offset + r.len <= split, "{r:?}"),
            (Op::Write, Some(_)) | (Op::Read, _) => assert!(r.offset >= split, "{r:?}"),
            (Op::Trim, _) => {
                // Only zone resets: a whole zone from its start.
                let zone = 8 << 20;
                assert!(r.offset >= split && (r.offset - split) % zone == 0 && r.len == zone, "{r:?}");
            }
            _ => {}
        }
    }
    // Every byte the filesystem wrote reached one of the two devices as a host write.
    let meta = fs.meta_device().unwrap().counters();
    let zoned = dev.counters();
    assert_eq!(meta.host_write_bytes, c.metadata_bytes, "the metadata device got the metadata");
    assert_eq!(
        zoned.host_write_bytes,
        c.data_bytes + c.node_bytes + c.cleaning_write_bytes,
        "the zoned device got data, nodes and cleaning"
    );
    // The zones do no garbage collection of their own: every page programmed is a host page.
    assert_eq!(zoned.gc_units_copied, 0, "no copies on zones");
    assert!(zoned.nand_units_programmed <= zoned.host_units_written, "device WAF at most 1 on zones: {zoned:?}");
    // A zone is empty exactly when its section holds nothing and no log wrote it (a log's
    // section from mkfs may still be unwritten).
    let zones = dev.zones().unwrap();
    let mut empty = 0;
    for z in 0..zones.layout().zones {
        if zones.state(z) == ZoneState::Empty {
            empty += 1;
        }
    }
    assert_eq!(empty, fs.f2fs().unwrap().empty_sections(), "the empty zones are the free sections and unwritten logs'");
    assert!(t > 0);
}

#[test]
fn overwrites_move_the_block_never_in_place() {
    let (mut dev, mut fs) = system(&zoned());
    let id = fs.create(&mut dev, 0, "b.dat", 1 << 20).unwrap();
    let mut t = fs.io(&mut dev, 0, id, Op::Write, 0, 1 << 20).unwrap().done;
    t = fs.fsync(&mut dev, t, id).unwrap();
    fs.set_trace(true);
    // One block, fsynced: the kernel's FSYNC in-place policy would overwrite it in place on a
    // conventional device; on zones it goes to the log's write pointer.
    t = fs.io(&mut dev, t, id, Op::Write, 4096, 4096).unwrap().done;
    fs.fsync(&mut dev, t, id).unwrap();
    let data: Vec<u64> =
        fs.take_trace().iter().filter(|r| r.purpose == Some(Purpose::Data)).map(|r| r.offset).collect();
    let main = fs.f2fs().unwrap().main_offset();
    assert_eq!(data.len(), 1);
    assert!(data[0] >= main + (1 << 20), "written after the first write's blocks, not at {}", main + 4096);
}

#[test]
fn what_f2fs_cannot_use_is_refused_with_the_reason() {
    let p = profile(&zoned());
    let dev = Device::new(&p, 1);
    let meta = || Device::new(&p.conventional_unit(64 << 20).unwrap(), 2);
    let e = Fs::f2fs_zoned(&dev, meta(), FsConfig::parse("ext4").unwrap()).unwrap_err();
    assert!(matches!(e, ConfigError::Zoned { .. }) && e.to_string().contains("only F2FS"), "{e}");
    let few_open = zoned_toml(80, 2, 4);
    let e = Fs::f2fs_zoned(&Device::new(&profile(&few_open), 1), meta(), FsConfig::parse("f2fs").unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("4 open zones") && e.contains("zoned-test"), "{e}");
    let small_cap = zoned().replace("max_open_zones = 8", "zone_capacity_mib = 6\nmax_open_zones = 8");
    let e = Fs::f2fs_zoned(&Device::new(&profile(&small_cap), 1), meta(), FsConfig::parse("f2fs").unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("capacity"), "{e}");
    let tiny = Device::new(&p.conventional_unit(1 << 20).unwrap(), 2);
    let e = Fs::f2fs_zoned(&dev, tiny, FsConfig::parse("f2fs").unwrap()).unwrap_err().to_string();
    assert!(e.contains("metadata"), "{e}");
}
