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
use flashsim::{Op, Profile};
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
        let size = sys.fs().capacity() * 3 / 4 / MIB * MIB;
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
        let c = sys.device().counters();
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
fn a_trim_or_a_stray_write_is_caught_and_the_first_mismatch_stops() {
    let mut sys = toy("plain");
    let spec = raw_job(&mut sys, &opts(false));
    let mut r = run_jobs(&mut sys, std::slice::from_ref(&spec), |_| {}).unwrap().remove(0);
    let t = sys.now();
    let c = sys.io(t, FileId::RAW, Op::Trim, 40 * 4096, 4096).unwrap();
    sys.io(c.done, FileId::RAW, Op::Write, 300 * 4096, 4096).unwrap();
    sys.advance_to(sys.device().busy_until());
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
    sys.io(sys.now(), FileId::RAW, Op::Write, 300 * 4096, 4096).unwrap();
    sys.advance_to(sys.device().busy_until());
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

/// fio's read-only verify job (a write phase with `do_verify=0`, then a stonewalled scan that
/// only reads with `verify` set, as fio's surface-scan example runs): every read checks what
/// the writer left. The same scan over a region nothing wrote with verify fails at its first
/// block (fio: bad header magic, EILSEQ), and a reader whose layout differs from the writer's
/// (another checksum, another interval, another pattern) fails, while `verify=meta` (the
/// header only) reads any checksum's blocks.
#[test]
fn a_read_only_verify_job_checks_what_an_earlier_writer_left() {
    let run = |text: &str| {
        let mut sys = toy("plain");
        let jf = parse_jobfile("t.fio", text).unwrap();
        let res = run_jobfile(&mut sys, &jf, 1, "t.fio", None, &mut |_, _, _| {}).unwrap();
        res.into_iter().map(|r| r.0).collect::<Vec<_>>()
    };
    let write = |verify: &str| {
        format!("[w]\nfilename=data\nrw=write\nbs=64k\nsize=4m\n{verify}\ndo_verify=0\n[scan]\nstonewall\nfilename=data\nrw=read\nbs=64k\n")
    };
    let text = write("verify=meta\nverify_interval=512\nverify_pattern=0xaa555aa5")
        + "verify=meta\nverify_interval=512\nverify_pattern=0xaa555aa5\n";
    let r = run(&text);
    assert_eq!(r.len(), 2);
    let (w, scan) = (&r[0], &r[1]);
    assert_eq!((w.write.io_bytes, w.read.io_bytes), (4 * MIB, 0), "do_verify=0: no read-back");
    let v = scan.verify.as_ref().expect("the scan verifies");
    assert_eq!(scan.error, 0, "{:?}", v.first);
    assert_eq!((v.mismatches, v.blocks_verified), (0, 4 * MIB / 4096));
    assert_eq!((scan.read.io_bytes, scan.write.io_bytes), (4 * MIB, 0), "the scan only reads, once");

    // Nothing written with verify: the first block read fails and ends the job.
    let r = run("[scan]\nfilename=data\nsize=4m\nrw=read\nbs=64k\nverify=crc32c\n");
    let v = r[0].verify.as_ref().unwrap();
    assert_eq!(r[0].error, EILSEQ);
    assert_eq!((v.mismatches, v.first[0].offset, v.first[0].check.as_str()), (1, 0, "header magic"));
    assert!(v.first[0].received.contains("without verify"), "laid out, not verify-written: {:?}", v.first[0]);
    assert!(r[0].read.ios < 64, "the job ends at the mismatch: {} reads", r[0].read.ios);
    // continue_on_error=verify: every block is checked and counted.
    let r = run("[scan]\nfilename=data\nsize=4m\nrw=read\nbs=64k\nverify=crc32c\ncontinue_on_error=verify\n");
    let v = r[0].verify.as_ref().unwrap();
    assert_eq!((r[0].error, v.mismatches, r[0].read.ios), (EILSEQ, 4 * MIB / 4096, 64));

    // Layouts: (writer, reader, the check that fails or None).
    for (wv, rv, fails) in [
        ("verify=md5", "verify=crc32c", Some("checksum type")),
        ("verify=md5", "verify=meta", None),
        ("verify=md5", "verify=md5\nverify_interval=8k", Some("header length")),
        ("verify=crc32c\nverify_pattern=0x11", "verify=crc32c\nverify_pattern=0x22", Some("pattern")),
        ("verify=pattern\nverify_pattern=0x11", "verify=crc32c", Some("header magic")),
        ("verify=sha256", "verify=sha256", None),
    ] {
        let r = run(&(write(wv) + rv + "\n"));
        let v = r[1].verify.as_ref().unwrap();
        assert_eq!(v.first.first().map(|m| m.check.as_str()), fails, "{wv} then {rv}: {:?}", v.first);
        assert_eq!(r[1].error, if fails.is_some() { EILSEQ } else { 0 }, "{wv} then {rv}");
    }
}

/// fio's verify on a mix (`rw=randrw`): the writes carry tags and are read back (after the
/// mix, or every `verify_backlog` writes), the mix's own reads are plain reads. With the random
/// map every block is done once, read or written, so the reads are the mix's reads plus one
/// read-back per write: as many as the region has blocks (fio 3.33: 512 reads, 270 writes, for
/// 2 MiB of 4 KiB).
#[test]
fn a_mix_verifies_its_writes() {
    for backlog in ["", "verify_backlog=16\n"] {
        let mut sys = toy("plain");
        let text = format!("[m]\nfilename=data\nrw=randrw\nbs=4k\nsize=2m\nverify=crc32c\n{backlog}");
        let jf = parse_jobfile("t.fio", &text).unwrap();
        let r = run_jobfile(&mut sys, &jf, 1, "t.fio", None, &mut |_, _, _| {}).unwrap().remove(0).0;
        let v = r.verify.as_ref().unwrap();
        assert_eq!((r.error, v.mismatches), (0, 0), "{backlog}: {:?}", v.first);
        let w = r.write.ios;
        assert!(w > 128 && w < 384, "{backlog}: a 50/50 mix of 512 blocks wrote {w}");
        assert_eq!(v.blocks_verified, w, "{backlog}: each write read back once");
        assert_eq!(r.read.ios, 512, "{backlog}: the mix's reads and the read-backs");
        assert!(r.read.runtime_ns >= r.write.runtime_ns, "{backlog}: the mix read all along");
    }
}
