//! pixel-2016 and motoz-2016: one device, two stacks. Nothing may be calibrated on their
//! difference, so their device sections must be identical; their [system] tables say what
//! each phone's stack is (issue 17, part 5).

use flashlab_lab::experiments::fill::{run_phone_procedure, FillSpec};
use flashlab_lab::profiles::builtin;
use flashlab_lab::stack::{SharedLayer, Stack, TrimPolicy};
use flashlab_lab::system::SimSystem;
use flashlab_simfs::{FsConfig, FsKind};
use flashsim::Profile;

fn table(name: &str) -> toml::Table {
    builtin(name).unwrap().parse::<toml::Table>().unwrap()
}

#[test]
fn the_two_phones_share_one_device_model() {
    let (p, m) = (table("pixel-2016"), table("motoz-2016"));
    for section in ["nand", "ftl", "host"] {
        assert_eq!(p[section], m[section], "[{section}] differs between pixel-2016 and motoz-2016");
    }
}

#[test]
fn each_phone_has_its_stack() {
    let prof = |n: &str| Profile::from_toml(n, builtin(n).unwrap()).unwrap();
    let (p, m) = (prof("pixel-2016"), prof("motoz-2016"));
    let (pf, mf) = (FsConfig::from_profile(&p, "pixel").unwrap(), FsConfig::from_profile(&m, "motoz").unwrap());
    assert_eq!((pf.kind, pf.discard, pf.nobarrier), (FsKind::Ext4, false, false));
    assert_eq!((mf.kind, mf.discard, mf.nobarrier), (FsKind::F2fs, true, true));
    let (ps, ms) = (Stack::from_profile(&p, "pixel").unwrap(), Stack::from_profile(&m, "motoz").unwrap());
    assert_eq!(ps.shared_storage, SharedLayer::Fuse);
    assert_eq!(ms.shared_storage, SharedLayer::Esdfs);
    assert_eq!(ps.trim, TrimPolicy::Android);
    assert!(ps.shared_cost.total_ns() > 10 * ms.shared_cost.total_ns(), "a FUSE round trip costs far more");
}

/// The published procedure on both phones, shrunk to 2 GiB (half the blocks, an eighth of the pages per block) of the same device model so
/// it runs in a test: the Moto Z's durable 4 KiB writes are faster than the Pixel's at every
/// tenth of the fill and in both /data tests, and the difference is the stack's: with Moto Z's
/// stack swapped onto the Pixel's profile the gap closes.
#[test]
fn the_stack_makes_the_difference() {
    let small = |name: &str, fs: Option<&str>, idle_exit: Option<&str>| {
        let mut text = builtin(name)
            .unwrap()
            .replace("blocks_per_plane = 1024", "blocks_per_plane = 512")
            .replace("pages_per_block = 256", "pages_per_block = 32");
        if let Some(line) = idle_exit {
            text = text.replace("idle_exit_us = 40", line);
        }
        let p = Profile::from_toml(name, &text).unwrap();
        let cfg = match fs {
            Some(spec) => FsConfig::parse(spec).unwrap(),
            None => FsConfig::from_profile(&p, name).unwrap(),
        };
        (SimSystem::with_fs(&p, 1, cfg), Stack::from_profile(&p, name).unwrap())
    };
    let run = |(mut sys, stack): (SimSystem, Stack)| {
        let mut spec = FillSpec::new(1, 1);
        spec.fsync_every = 1;
        spec.layer = stack.shared_cost;
        spec.leave_free = 1 << 30;
        run_phone_procedure(&mut sys, &spec, 16 << 20, |_, _| {}).unwrap()
    };
    let pixel = run(small("pixel-2016", None, None));
    let motoz = run(small("motoz-2016", None, None));
    for (a, b) in pixel.fill.deciles.iter().zip(&motoz.fill.deciles) {
        assert!(b.p50_us < a.p50_us, "at {} %: motoz p50 {} vs pixel {}", a.filled_pct, b.p50_us, a.p50_us);
    }
    assert!(motoz.before.p50_us < pixel.before.p50_us);
    // The Pixel's device with the Moto Z's filesystem and mount options and its kernel's idle
    // exit (the UFS driver's PM QoS vote: 20 µs, not the Pixel's 40): /data (no layer) runs as
    // fast as on the Moto Z, since the devices are the same.
    let swapped = run(small("pixel-2016", Some("f2fs,discard,nobarrier"), Some("idle_exit_us = 20")));
    let rel = (swapped.before.p50_us - motoz.before.p50_us).abs() / motoz.before.p50_us;
    assert!(rel < 0.02, "same device, same filesystem: p50 {} vs {}", swapped.before.p50_us, motoz.before.p50_us);
    // With the Pixel's own vote each of the two requests the fsync waits for alone (the data
    // block, then the node block) wakes the CPU from fpc-def: 2 x (40 - 20) µs more.
    let pixel_kernel = run(small("pixel-2016", Some("f2fs,discard,nobarrier"), None));
    let extra = pixel_kernel.before.p50_us - motoz.before.p50_us;
    assert!((30.0..50.0).contains(&extra), "the Pixel's deeper idle level: +{extra} µs at p50, expected about 40");
}

/// The Pixel's stack (ext4, a journal commit and two cache flushes per fsync) filling the whole
/// device: each flush pads the open page; a full device must still find pages for GC
/// (regression: flushes once padded GC's pages too, and GC ran out of pages).
#[test]
fn a_full_fill_with_fsync_per_write_completes() {
    let text = builtin("pixel-2016")
        .unwrap()
        .replace("blocks_per_plane = 1024", "blocks_per_plane = 512")
        .replace("pages_per_block = 256", "pages_per_block = 32");
    let p = Profile::from_toml("pixel-2016", &text).unwrap();
    let mut sys = SimSystem::with_fs(&p, 1, FsConfig::from_profile(&p, "pixel").unwrap());
    let mut spec = FillSpec::new(1, 1);
    spec.fsync_every = 1;
    let r = run_phone_procedure(&mut sys, &spec, 16 << 20, |_, _| {}).unwrap();
    assert_eq!(r.fill.deciles.len(), 10);
    assert!(sys.fs().free_bytes() < 1 << 20);
}
