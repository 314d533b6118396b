//! The host CPU of filesystem calls (`FsCpu`, a profile's `[system] cpu_scale`): a write's
//! request is issued after the write call's CPU, an fsync's after the fsync call's, and an
//! ext4 commit's log blocks after jbd2's hand-off as well, and F2FS's node blocks after its
//! node path's. Zero by default.

use flashlab_simfs::{Fs, FsConfig, FsCpu};
use flashsim::{Device, Op, Profile};

fn first_issue(cpu: FsCpu, spec: &str) -> (u64, u64) {
    let profile = Profile::from_toml("toy.toml", flashsim::builtin::TOY).unwrap();
    let mut dev = Device::new(&profile, 1);
    let mut fs = Fs::new(dev.logical_bytes(), FsConfig::parse(spec).unwrap());
    fs.set_cpu(cpu);
    let id = fs.create(&mut dev, 0, "f", 64 * 4096).unwrap();
    let t = 1_000_000;
    fs.set_trace(true);
    let w = fs.io(&mut dev, t, id, Op::Write, 0, 4096).unwrap();
    let write_issue = fs.take_trace()[0].t - t;
    let f = w.done + 10_000;
    fs.fsync(&mut dev, f, id).unwrap();
    let fsync_issue = fs.take_trace()[0].t - f;
    (write_issue, fsync_issue)
}

#[test]
fn filesystem_calls_spend_their_cpu_before_their_requests() {
    assert_eq!(first_issue(FsCpu::ZERO, "ext4"), (0, 0));
    let cpu = FsCpu::scaled(4.0);
    assert_eq!(cpu.write_ns, 4 * 5_340);
    // ext4: the fsync of a fallocated block commits: fsync CPU, then jbd2's.
    assert_eq!(first_issue(cpu, "ext4"), (cpu.write_ns, cpu.fsync_ns + cpu.commit_ns));
    // F2FS: no commit; its node write follows the fsync call's CPU and the node path's.
    assert_eq!((cpu.f2fs_fsync_ns, cpu.node_ns), (4 * 3_110, 4 * 8_221));
    assert_eq!(first_issue(cpu, "f2fs,nobarrier"), (cpu.write_ns, cpu.fsync_ns + cpu.f2fs_fsync_ns + cpu.node_ns));
}
