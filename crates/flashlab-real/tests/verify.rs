//! fio's `verify` on a real file in a temporary directory: a job's blocks read back clean with
//! every method and both engines; a block corrupted between the writes and the read-back
//! (through a second file descriptor, as a faulty device or a stray writer would) is reported
//! at its offset with the expected and received checksum, and the job's error is EILSEQ.

mod common;

use common::{uring_ok, TempDir};
use flashlab_real::engine::EngineKind;
use flashlab_real::runner::{open_file, run_job, RealJob};
use flashlab_real::verify::Hook;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

const MIB: u64 = 1 << 20;
const SPAN: u64 = 4 * MIB;

fn job(text: &str, engine: EngineKind) -> RealJob {
    let f = flashlab_jobs::parse_jobfile("t.fio", text).unwrap_or_else(|e| panic!("{e}"));
    let mut j = RealJob::from_fio(&f.jobs[0], 0, SPAN, 5);
    j.engine = engine;
    j.direct = true;
    j
}

fn run(dir: &TempDir, j: &RealJob) -> flashlab_measure::JobResult {
    let path = dir.path().join(&j.settings.name);
    let f = open_file(&path, true, true).unwrap();
    f.set_len(SPAN).unwrap();
    run_job(&path, &f, j, &mut |_| {}).unwrap()
}

/// Overwrite 16 bytes of data (not the header) of the 4 KiB block at `block_off`.
fn corrupt(path: &Path, block_off: u64) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(&[0x5a; 16], block_off + 1000).unwrap();
    f.sync_all().unwrap();
}

fn engines() -> Vec<EngineKind> {
    let mut v = vec![EngineKind::Psync];
    if uring_ok("verify") {
        v.push(EngineKind::IoUring);
    }
    v
}

#[test]
fn every_method_reads_back_clean() {
    let d = TempDir::new("verify-clean");
    for engine in engines() {
        for m in ["crc32c", "crc32c-intel", "md5", "sha256", "meta"] {
            let mut j = job(&format!("[clean-{m}]\nrw=randwrite\nbs=4k\niodepth=8\nverify={m}\n"), engine);
            j.settings.name = format!("clean-{m}-{}", engine.name());
            let r = run(&d, &j);
            let v = r.verify.as_ref().expect("verify summary");
            assert_eq!(r.error, 0, "{m} {engine:?}: {:?}", v.first);
            assert_eq!((v.mismatches, v.blocks_verified, v.bytes_verified), (0, 1024, SPAN), "{m} {engine:?}");
            // As fio: the read-back is counted as reads, after the writes.
            assert_eq!((r.write.io_bytes, r.read.io_bytes), (SPAN, SPAN), "{m} {engine:?}");
            assert!(r.read.runtime_ns > 0 && r.write.runtime_ns > 0);
            assert_eq!(r.read.runtime_ns + r.write.runtime_ns, r.job_runtime_ns);
        }
    }
}

#[test]
fn a_corrupted_block_is_reported_at_its_offset() {
    let d = TempDir::new("verify-bad");
    for engine in engines() {
        for m in ["crc32c", "md5", "sha256"] {
            let mut j = job(&format!("[bad]\nrw=randwrite\nbs=4k\niodepth=4\nverify={m}\n"), engine);
            j.settings.name = format!("bad-{m}-{}", engine.name());
            let path = d.path().join(&j.settings.name);
            let p2 = path.clone();
            j.before_verify = Some(Hook(Arc::new(move || corrupt(&p2, 3 * MIB + 8192))));
            let r = run(&d, &j);
            let v = r.verify.as_ref().unwrap();
            assert_eq!(r.error, libc::EILSEQ, "{m}");
            // Without continue_on_error the first mismatch ends the job (fio 3.33 does the same).
            assert_eq!(v.mismatches, 1, "{m}");
            let first = &v.first[0];
            assert_eq!((first.offset, first.len, first.check.as_str()), (3 * MIB + 8192, 4096, m), "{m}");
            assert_ne!(first.expected, first.received);
            assert!(v.blocks_verified < 1024, "stopped at the mismatch");
        }
    }
}

#[test]
fn continue_on_error_counts_every_mismatch() {
    let d = TempDir::new("verify-continue");
    let mut j = job(
        "[cont]\nrw=write\nbs=16k\nverify=crc32c\nverify_interval=4k\ncontinue_on_error=verify\n",
        EngineKind::Psync,
    );
    let path = d.path().join(&j.settings.name);
    let p2 = path.clone();
    j.before_verify = Some(Hook(Arc::new(move || {
        corrupt(&p2, MIB + 4096);
        corrupt(&p2, 2 * MIB);
    })));
    let r = run(&d, &j);
    let v = r.verify.as_ref().unwrap();
    assert_eq!(r.error, libc::EILSEQ);
    // One header every 4 KiB of each 16 KiB block: the two bad chunks, each at its offset.
    assert_eq!((v.mismatches, v.blocks_verified), (2, 1024));
    let offs: Vec<u64> = v.first.iter().map(|m| m.offset).collect();
    assert_eq!(offs, vec![MIB + 4096, 2 * MIB]);
    let doc = flashlab_measure::fio_json(&[r], &[50.0], &flashlab_measure::RunMeta::new("t".to_string(), 0));
    assert_eq!(doc["jobs"][0]["total_err"], 2);
    assert_eq!(doc["jobs"][0]["first_error"], libc::EILSEQ);
    assert_eq!(doc["jobs"][0]["error"], libc::EILSEQ);
    assert_eq!(doc["jobs"][0]["flashlab_verify"]["mismatches"], 2);
}

#[test]
fn backlog_verifies_while_writing() {
    let d = TempDir::new("verify-backlog");
    let j = job("[backlog]\nrw=randwrite\nbs=4k\niodepth=4\nverify=crc32c\nverify_backlog=16\n", EngineKind::Psync);
    let r = run(&d, &j);
    let v = r.verify.as_ref().unwrap();
    assert_eq!(r.error, 0, "{:?}", v.first);
    // As fio (3.33: 256 reads for 256 writes with verify_backlog=16): every block once, in
    // the backlog; a block verified there is not read again after the writes.
    assert_eq!(v.blocks_verified, 1024);
    assert_eq!(r.read.io_bytes, SPAN);
    let j = job(
        "[batch]\nrw=randwrite\nbs=4k\nverify=md5\nverify_backlog=16\nverify_backlog_batch=4\ndo_verify=0\n",
        EngineKind::Psync,
    );
    let r = run(&d, &j);
    assert_eq!(r.verify.as_ref().unwrap().blocks_verified, 256, "4 of every 16 blocks, no pass after");
    let j = job(
        "[batch2]\nrw=randwrite\nbs=4k\nverify=md5\nverify_backlog=16\nverify_backlog_batch=4\n",
        EngineKind::Psync,
    );
    let r = run(&d, &j);
    assert_eq!(
        r.verify.as_ref().unwrap().blocks_verified,
        1024,
        "4 of 16 in the backlog, the other 12 after (fio: 256 reads)"
    );
}

#[test]
fn pattern_is_checked_byte_for_byte() {
    let d = TempDir::new("verify-pattern");
    let mut j = job("[pat]\nrw=write\nbs=8k\nverify_pattern=0xdeadbeef\n", EngineKind::Psync);
    let path = d.path().join(&j.settings.name);
    let p2 = path.clone();
    j.before_verify = Some(Hook(Arc::new(move || corrupt(&p2, 5 * 8192))));
    let r = run(&d, &j);
    let v = r.verify.as_ref().unwrap();
    assert_eq!((v.method.as_str(), v.mismatches), ("pattern", 1));
    assert_eq!(v.first[0].offset, 5 * 8192);
    assert!(v.first[0].expected.contains("at byte 1000"), "{:?}", v.first[0]);
}

/// The cost of verify on a tmpfs file (no device in the way: what is left is flashlab's CPU),
/// 64 MiB of 128 KiB sequential writes, buffered, psync. Run by hand (`--ignored
/// --nocapture`); prints, per method, the CPU time per GiB written and read back and the
/// write phase's bandwidth. Numbers in docs/jobs.md.
#[test]
#[ignore]
fn verify_cost_on_tmpfs() {
    let shm = Path::new("/dev/shm");
    let d = TempDir::new_in(shm, "verify-cost");
    const SIZE: u64 = 64 * MIB;
    println!("method   write MB/s  read MB/s  CPU ms/GiB (write+verify)");
    for m in ["0", "crc32c", "md5", "sha256"] {
        for rep in 0..3 {
            let f = flashlab_jobs::parse_jobfile("t.fio", &format!("[c]\nrw=write\nbs=128k\nverify={m}\n")).unwrap();
            let mut j = RealJob::from_fio(&f.jobs[0], 0, SIZE, 5);
            j.engine = EngineKind::Psync;
            j.direct = false;
            j.settings.name = format!("cost-{m}-{rep}");
            let path = d.path().join(&j.settings.name);
            let file = open_file(&path, false, true).unwrap();
            file.set_len(SIZE).unwrap();
            let r = run_job(&path, &file, &j, &mut |_| {}).unwrap();
            let cpu_ns = r.cpu.usr_ns + r.cpu.sys_ns;
            let gib = SIZE as f64 / (1u64 << 30) as f64;
            println!(
                "{m:8} {:10.0} {:10.0} {:10.0}",
                r.write.bw_bytes_per_sec() / 1e6,
                r.read.bw_bytes_per_sec() / 1e6,
                cpu_ns as f64 / 1e6 / gib
            );
            std::fs::remove_file(&path).unwrap();
        }
    }
}

/// fio's read-only verify job on a real file: a job that only reads, with `verify` set,
/// checks every block it reads against the headers an earlier writer left (any write number:
/// a reader cannot know which was last), and nothing is read back afterwards. A corrupted
/// block fails at its offset; a file written without verify fails at its first block.
#[test]
fn a_read_only_job_verifies_what_it_reads() {
    let d = TempDir::new("verify-readonly");
    for engine in engines() {
        let mut w = job("[w]\nrw=randwrite\nbs=4k\niodepth=4\nverify=crc32c\ndo_verify=0\n", engine);
        let name = format!("ro-{}", engine.name());
        w.settings.name = name.clone();
        let r = run(&d, &w);
        assert_eq!((r.write.io_bytes, r.read.io_bytes), (SPAN, 0), "do_verify=0: no read-back");
        let mut scan = job("[scan]\nrw=read\nbs=16k\niodepth=4\nverify=crc32c\nverify_interval=4k\n", engine);
        scan.settings.name = name.clone();
        // The file the writer left, opened again.
        let rerun = |j: &RealJob| {
            let path = d.path().join(&name);
            run_job(&path, &open_file(&path, true, false).unwrap(), j, &mut |_| {}).unwrap()
        };
        let r = rerun(&scan);
        let v = r.verify.as_ref().expect("the scan verifies");
        assert_eq!(r.error, 0, "{engine:?}: {:?}", v.first);
        assert_eq!((v.mismatches, v.blocks_verified), (0, SPAN / 4096), "{engine:?}");
        assert_eq!((r.read.io_bytes, r.write.io_bytes), (SPAN, 0), "each block read once, as the job's reads");
        assert!(r.read.runtime_ns > 0 && r.read.runtime_ns == r.job_runtime_ns);

        corrupt(&d.path().join(&name), 2 * MIB + 4096);
        let r = rerun(&scan);
        let v = r.verify.as_ref().unwrap();
        assert_eq!(r.error, libc::EILSEQ, "{engine:?}");
        assert_eq!((v.mismatches, v.first[0].offset, v.first[0].check.as_str()), (1, 2 * MIB + 4096, "crc32c"));
        assert!(r.read.io_bytes < SPAN, "the job ends at the mismatch");

        // A file of zeros (never written with verify): bad magic at the first block.
        std::fs::write(d.path().join(&name), vec![0u8; SPAN as usize]).unwrap();
        let r = rerun(&scan);
        let v = r.verify.as_ref().unwrap();
        assert_eq!((r.error, v.first[0].offset, v.first[0].check.as_str()), (libc::EILSEQ, 0, "magic"));
    }
}
