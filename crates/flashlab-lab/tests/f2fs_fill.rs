//! `fill --fs f2fs` used to fail on every profile ("file ... does not fit"): the F2FS model
//! reported its free user blocks as free bytes, and a file of that size also needs node
//! blocks. On every built-in profile a file of all the free bytes must now fit and take them
//! all, and its last block must be writable (a full fill at full size takes minutes on the
//! large profiles: `bench`-style timing is not a unit test's job).

use flashlab_lab::profiles::BUILTIN;
use flashlab_lab::system::SimSystem;
use flashlab_simfs::FsConfig;
use flashsim::{Op, Profile};

#[test]
fn a_file_of_all_free_space_fits_on_every_profile() {
    for (name, text) in BUILTIN {
        let p = Profile::from_toml(name, text).unwrap();
        // A zoned device takes no filesystem model yet (docs/zoned.md).
        if p.ftl.mapping == flashsim::MappingKind::Zoned {
            continue;
        }
        let mut sys = SimSystem::with_fs(&p, 1, FsConfig::parse("f2fs").unwrap());
        let size = sys.fs().free_bytes() / 4096 * 4096;
        assert!(size > 0, "{name}: no free space on a new F2FS");
        let id = sys.create("fill", size).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sys.fs().free_bytes(), 0, "{name}: the fill file takes all the free space");
        let t = sys.now();
        sys.io(t, id, Op::Write, size - 4096, 4096).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// `fill` and `age` on F2FS succeed on every built-in profile. The large profiles would take
/// minutes at full size, so each runs on a 256 MiB F2FS partition at the start of its device
/// (the whole device when smaller), with the small-device protocol `age-small`.
#[test]
fn fill_and_age_on_f2fs_succeed_on_every_profile() {
    use flashlab_lab::experiments::fill::{run_fill, FillSpec};
    use flashlab_lab::fourcorner::FourCornerConfig;
    use flashlab_lab::protocol::{run_protocol, Protocol};
    use flashlab_simfs::Fs;
    let part = |p: &Profile| {
        let fs = Fs::new(p.logical_bytes().min(256 << 20), FsConfig::parse("f2fs").unwrap());
        SimSystem::on_fs(p, 1, fs).unwrap()
    };
    let proto = Protocol::builtin("age-small").unwrap();
    for (name, text) in BUILTIN {
        let p = Profile::from_toml(name, text).unwrap();
        // A zoned device takes no filesystem model yet (docs/zoned.md).
        if p.ftl.mapping == flashsim::MappingKind::Zoned {
            continue;
        }
        let mut sys = part(&p);
        let r = run_fill(&mut sys, &FillSpec::new(1, 1), |_| {}).unwrap_or_else(|e| panic!("{name}: fill: {e}"));
        assert_eq!(r.deciles.len(), 10, "{name}");
        let mut sys = part(&p);
        let fc = FourCornerConfig { seed: 1, ..Default::default() };
        let r = run_protocol(&mut sys, &proto, &fc, |_, _, _, _| {}).unwrap_or_else(|e| panic!("{name}: age: {e}"));
        assert_eq!(r.steps.len(), 6, "{name}");
        assert!(r.steps.iter().all(|s| s.rand_write_mbs > 0.0 && s.seq_write_mbs > 0.0), "{name}");
    }
}
