//! The F2FS model on zones beside the kernel's: the workload `bench/f2fs-zoned-vm.sh` ran on
//! Linux 6.1's F2FS over a zoned `null_blk` in a VM (its figures: `tests/kernel/f2fs-zoned-z16.json`),
//! run here on the model over a twin of the same zones. The layout mkfs.f2fs made must come out
//! exactly (sections, reserve, overprovision, user space); the random phase's writes to the
//! devices per byte fio wrote within 15 %.
//!
//! The twin has 77 zones of 16 MiB where the kernel's volume had 64 on the zoned device and 13
//! sections' worth of main area on the conventional one (mkfs.f2fs puts the main area's start
//! there): the same 616 main segments either way, and which device holds a section does not
//! change what F2FS writes.

use flashlab_simfs::Fs;
use flashsim::{Device, Op, Profile};

mod common;
use common::{f2fs_on, profile, zoned_toml};

fn kernel() -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kernel/f2fs-zoned-z16.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The twin: zones of 16 MiB (four blocks on each of two dies), as many as the kernel's main
/// area has sections (the fewest blocks per plane that give them), eight open zones.
fn twin(zones: u32) -> Profile {
    (300..400)
        .map(|b| profile(&zoned_toml(b, 4, 8)))
        .find(|p| Device::new(p, 1).zones().unwrap().layout().zones == zones)
        .expect("a geometry with that many zones")
}

/// fio's random map with its own seed: every block of the file once per pass, in an order of
/// its own (a shuffle by xorshift; which order does not matter to the laws compared here).
fn shuffled(blocks: u64, x: &mut u64) -> Vec<u64> {
    let mut order: Vec<u64> = (0..blocks).collect();
    for i in (1..order.len()).rev() {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        order.swap(i, (*x % (i as u64 + 1)) as usize);
    }
    order
}

#[test]
fn the_model_on_zones_matches_the_kernels_f2fs() {
    let k = kernel();
    let k_main = k["segment_count_main"].as_u64().unwrap() as u32;
    let sps = k["segs_per_sec"].as_u64().unwrap() as u32;
    let p = twin(k_main / sps);
    let (mut dev, mut fs) = f2fs_on(&p);
    let f = fs.f2fs().unwrap();
    // mkfs.f2fs's layout for sections of 8 segments: exactly the kernel volume's.
    assert_eq!(f.main_segments(), k_main);
    assert_eq!(u64::from(f.reserved_segments()), k["rsvd_segment_count"].as_u64().unwrap());
    assert_eq!(u64::from(f.overprovision_segments()), k["overprov_segment_count"].as_u64().unwrap());
    assert_eq!(fs.capacity() >> 20, k["user_mib"].as_u64().unwrap());

    // Phase 1: the file written sequentially, 1 MiB at a time, then fsynced.
    let size = k["file_mib"].as_u64().unwrap() << 20;
    let id = fs.create(&mut dev, 0, "file", size).unwrap();
    let mut t = 0;
    for off in (0..size).step_by(1 << 20) {
        t = fs.io(&mut dev, t, id, Op::Write, off, 1 << 20).unwrap().done;
    }
    t = fs.fsync(&mut dev, t, id).unwrap();
    let before = fs.counters();
    let written =
        |fs: &Fs, dev: &Device| fs.meta_device().unwrap().counters().host_write_bytes + dev.counters().host_write_bytes;
    let w0 = written(&fs, &dev);
    // Phase 2: 4 KiB random overwrites, two passes of the random map, an fsync every 32.
    let mut x = 0x9e37_79b9_7f4a_7c15;
    let mut n = 0u64;
    for _ in 0..2 {
        for b in shuffled(size / 4096, &mut x) {
            t = fs.io(&mut dev, t, id, Op::Write, b * 4096, 4096).unwrap().done;
            n += 1;
            if n % 32 == 0 {
                t = fs.fsync(&mut dev, t, id).unwrap();
            }
        }
    }
    let c = fs.counters().since(&before);
    let model = (written(&fs, &dev) - w0) as f64 / c.user_write_bytes as f64;
    let r = &k["random_phase"];
    let mib = |f: &str| r[f].as_f64().unwrap();
    let kernel = (mib("nullb0_write_mib") + mib("nullb1_write_mib")) / mib("fio_write_mib");
    let moved = c.cleaning_write_bytes / 4096;
    eprintln!(
        "device writes per fio byte: model {model:.2}, kernel {kernel:.2}; blocks moved {moved} vs {}; \
         sections cleaned {} vs {}; zone resets {} vs {}; checkpoints {} vs {}",
        r["moved_blocks"],
        c.cleaned_segments_foreground / u64::from(sps),
        r["fg_gc_sections"],
        c.zone_resets,
        r["zone_resets"],
        c.checkpoints,
        r["checkpoints"]
    );
    // 15 %: the model measured 2.99 against the kernel's 2.65 (+13 %) when this was written.
    // The gap is in the cleaning: the model moved 318 530 blocks in 198 sections where the
    // kernel moved 219 684 in 119 (docs/zoned.md, "F2FS on zones against the kernel"); a
    // mechanism not found yet, so the bound states it rather than hides it.
    assert!((model / kernel - 1.0).abs() < 0.15, "model {model:.2} vs kernel {kernel:.2}");
    assert!(c.zone_resets > 0 && moved > 0);
}
