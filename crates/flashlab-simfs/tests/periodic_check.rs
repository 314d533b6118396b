//! The filesystem models' invariants hold after every operation of a mixed workload (issue 45,
//! part 5): with the periodic check at every device command, creates, random overwrites,
//! fsyncs, deletes, fstrim and idle time on each model (plain, ext4, F2FS, with and without
//! discard) all succeed, so no check found the bookkeeping broken; and the error of a failed
//! check says which model, after which command, at what time.

use flashlab_simfs::{Fs, FsConfig, FsError, FsKind, InvariantError};
use flashsim::{Device, Op, Profile};

#[test]
fn every_model_keeps_its_invariants_after_every_operation() {
    let profile = Profile::from_toml("toy.toml", flashsim::builtin::TOY).unwrap();
    for spec in ["plain", "plain,discard", "ext4", "ext4,discard", "f2fs", "f2fs,discard"] {
        let mut dev = Device::new(&profile, 1);
        let mut fs = Fs::new(dev.logical_bytes(), FsConfig::parse(spec).unwrap());
        fs.set_check_every(&dev, Some(1));
        let mut t = 0;
        let mut x: u64 = 12345;
        for round in 0..6u64 {
            let mut ids = Vec::new();
            for i in 0..8 {
                let id = fs.create(&mut dev, t, &format!("f{round}-{i}"), 4 << 20).unwrap();
                ids.push(id);
            }
            for _ in 0..400 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let id = ids[(x >> 33) as usize % ids.len()];
                let off = (x >> 40) % 1024 * 4096;
                t = fs.io(&mut dev, t, id, Op::Write, off, 4096).unwrap().done;
                if x.is_multiple_of(16) {
                    t = fs.fsync(&mut dev, t, id).unwrap();
                }
            }
            for i in (0..8).step_by(2) {
                fs.delete(&mut dev, t, &format!("f{round}-{i}")).unwrap();
            }
            t = fs.sync(&mut dev, t).unwrap();
            fs.idle(&mut dev, t, t + 10_000_000_000).unwrap();
            t = (t + 10_000_000_000).max(dev.busy_until());
        }
        let (_, done) = fs.fstrim(&mut dev, t).unwrap();
        assert!(done >= t, "{spec}");
        assert!(dev.commands() > 2400, "{spec}: {} device commands", dev.commands());
        fs.check_now(&dev).unwrap();
    }
}

#[test]
fn a_failed_check_names_the_model_the_command_and_the_time() {
    let e = FsError::Invariant {
        kind: FsKind::F2fs,
        command: 1234,
        at: 5_000_000_007,
        what: InvariantError("segment 3: valid count 5, map 4, files 4".into()),
    };
    assert_eq!(
        e.to_string(),
        "filesystem model f2fs: invariant broken after device command 1234 (virtual time 5.000000007 s): segment 3: valid count 5, map 4, files 4"
    );
}
