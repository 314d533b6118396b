//! `fill --fs f2fs` used to fail on every profile ("file ... does not fit"): the F2FS model
//! reported its free user blocks as free bytes, and a file of that size also needs node
//! blocks. On every built-in profile a file of all the free bytes must now fit and take them
//! all, and its last block must be writable (a full fill at full size takes minutes on the
//! large profiles: `bench`-style timing is not a unit test's job).

use flashlab_lab::fs::FsConfig;
use flashlab_lab::profiles::BUILTIN;
use flashlab_lab::system::SimSystem;
use flashsim::{Op, Profile};

#[test]
fn a_file_of_all_free_space_fits_on_every_profile() {
    for (name, text) in BUILTIN {
        let p = Profile::from_toml(name, text).unwrap();
        let mut sys = SimSystem::with_fs(&p, 1, FsConfig::parse("f2fs").unwrap());
        let size = sys.fs.free_bytes() / 4096 * 4096;
        assert!(size > 0, "{name}: no free space on a new F2FS");
        let id = sys.create("fill", size).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sys.fs.free_bytes(), 0, "{name}: the fill file takes all the free space");
        let t = sys.now;
        sys.io(t, id, Op::Write, size - 4096, 4096).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
