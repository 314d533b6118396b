//! fio's `verify` on a simulated device: every unit a job wrote reads back as its last write
//! through GC (several overwrite passes) on the raw device and on the in-place filesystems;
//! a wrong FTL mapping (a test-only fault hook), a trim or a write behind the job's back is
//! reported at its offset; the F2FS model, which cannot carry data through its cleaning, is
//! refused with a clear error.

use flashlab_jobs::verify::{VerifyMethod, VerifyOptions};
use flashlab_jobs::{parse_jobfile, Rw};
use flashlab_lab::engine::{run_jobs, JobSpec};
use flashlab_lab::jobfile_run::run_jobfile;
use flashlab_lab::sim_verify::{finish, SimVerifier, EILSEQ};
use flashlab_lab::system::SimSystem;
use flashlab_simfs::{FileId, FsConfig};
use flashsim::{Op, Profile, Request};
use std::sync::{Arc, Mutex};

const MIB: u64 = 1 << 20;

fn toy(fs: &str) -> SimSystem {
    let profile = Profile::from_toml("toy.toml", flashsim::builtin::TOY).unwrap();
    SimSystem::with_fs(&profile, 1, FsConfig::parse(fs).unwrap())
}

#[test]
fn reads_return_the_last_write_through_gc() {
    for fs in ["plain", "ext4"] {
        let mut sys = toy(fs);
        let size = sys.fs.capacity() * 3 / 4 / MIB * MIB;
        let text =
            format!("[w]\nrw=randwrite\nbs=4k\niodepth=4\nsize={size}\nloops=3\nverify=crc32c\nverify_backlog=64\n");
        let jf = parse_jobfile("t.fio", &text).unwrap();
        let res = run_jobfile(&mut sys, &jf, 1, "t.fio", None, &mut |_, _, _| {}).unwrap();
        let r = &res[0].0;
        let v = r.verify.as_ref().unwrap();
        let units = size / 4096;
        assert_eq!(r.error, 0, "{fs}: {:?}", v.first);
        // Every write read back after each 64 (as fio, a block verified there is not read
        // again after the writes).
        assert_eq!((v.mismatches, v.blocks_verified), (0, 3 * units), "{fs}");
        assert_eq!(r.read.io_bytes, 3 * size, "{fs}: read-backs are the job's reads");
        let c = sys.dev.counters();
        assert!(c.gc_units_copied > 0 && c.erases > 0, "{fs}: GC must have moved data: {c:?}");
    }
}

fn raw_job(sys: &mut SimSystem, opts: &VerifyOptions) -> JobSpec {
    let mut spec = JobSpec::on_file("raw", Rw::RandWrite, 4096, FileId::RAW, 2 * MIB);
    let v = SimVerifier::new(sys, opts, FileId::RAW, 0, 2 * MIB).unwrap().unwrap();
    spec.verify = Some(Arc::new(Mutex::new(v)));
    spec
}

fn opts(continue_on_error: bool) -> VerifyOptions {
    VerifyOptions { method: VerifyMethod::Crc32c, interval: 4096, continue_on_error, ..VerifyOptions::default() }
}

#[test]
fn a_wrong_ftl_mapping_is_caught_at_its_offset() {
    let mut sys = toy("plain");
    let spec = raw_job(&mut sys, &opts(true));
    let mut r = run_jobs(&mut sys, std::slice::from_ref(&spec), |_| {}).unwrap().remove(0);
    // A buggy FTL: units 3 and 100 swap their mapping entries. The invariant checks (on by
    // default in a debug build) would stop the run at the broken mapping; this test is about
    // what the read checker sees, so they are off.
    sys.set_check_every(None);
    assert!(sys.dev.fault_swap_mapping(3, 100));
    finish(&mut sys, &spec, &mut r).unwrap();
    let v = r.verify.unwrap();
    assert_eq!(r.error, EILSEQ);
    assert_eq!(v.mismatches, 2);
    let offs: Vec<u64> = v.first.iter().map(|m| m.offset).collect();
    assert_eq!(offs, vec![3 * 4096, 100 * 4096]);
    assert!(v.first[0].expected.starts_with("write #") && v.first[0].received.starts_with("write #"));
    assert_ne!(v.first[0].expected, v.first[0].received);
    assert_eq!(v.blocks_verified, 512, "every unit of the 2 MiB was checked");
}

#[test]
fn a_trim_or_a_stray_write_is_caught_and_the_first_mismatch_stops() {
    let mut sys = toy("plain");
    let spec = raw_job(&mut sys, &opts(false));
    let mut r = run_jobs(&mut sys, std::slice::from_ref(&spec), |_| {}).unwrap().remove(0);
    let t = sys.now;
    let c = sys.dev.submit(t, &Request::new(Op::Trim, 40 * 4096, 4096)).unwrap();
    sys.dev.submit(c.done, &Request::new(Op::Write, 300 * 4096, 4096)).unwrap();
    sys.now = sys.dev.busy_until();
    finish(&mut sys, &spec, &mut r).unwrap();
    let v = r.verify.unwrap();
    assert_eq!(r.error, EILSEQ);
    // Without continue_on_error verification ends at the first (lowest) bad unit.
    assert_eq!(v.mismatches, 1);
    assert_eq!(v.first[0].offset, 40 * 4096);
    assert!(v.first[0].received.starts_with("zeros"), "{:?}", v.first[0]);
    assert_eq!(v.blocks_verified, 41);

    let mut sys = toy("plain");
    let spec = raw_job(&mut sys, &opts(true));
    let mut r = run_jobs(&mut sys, std::slice::from_ref(&spec), |_| {}).unwrap().remove(0);
    sys.dev.submit(sys.now, &Request::new(Op::Write, 300 * 4096, 4096)).unwrap();
    sys.now = sys.dev.busy_until();
    finish(&mut sys, &spec, &mut r).unwrap();
    let v = r.verify.unwrap();
    assert_eq!((v.mismatches, v.first[0].offset), (1, 300 * 4096));
    assert!(v.first[0].received.contains("another write"), "{:?}", v.first[0]);
}

#[test]
fn f2fs_is_refused_with_a_clear_error() {
    let mut sys = toy("f2fs");
    let jf = parse_jobfile("t.fio", "[w]\nrw=write\nbs=4k\nsize=1m\nverify=md5\n").unwrap();
    let e = run_jobfile(&mut sys, &jf, 1, "t.fio", None, &mut |_, _, _| {}).unwrap_err().to_string();
    assert!(e.starts_with("t.fio:1: job 'w': verify on the simulated") && e.contains("not supported"), "{e}");
}
