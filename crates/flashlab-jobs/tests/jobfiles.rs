//! Integration tests: realistic fio job files under tests/jobs/ parse into the expected jobs,
//! and the files under tests/jobs/bad/ fail with the documented errors.

use std::path::PathBuf;

use flashlab_jobs::{parse_jobfile, parse_jobfile_path, parse_jobfile_with_env, IoDir, JobFile, Rw, SizeSpec};

const S: u64 = 1_000_000_000; // ns per second

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/jobs").join(name)
}

fn load(name: &str) -> JobFile {
    parse_jobfile_path(path(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// Parses `tests/jobs/<name>` under the short name `name`, so messages can be compared whole.
fn fail(name: &str) -> String {
    let text = std::fs::read_to_string(path(name)).unwrap();
    parse_jobfile(name, &text).expect_err("should fail").to_string()
}

#[test]
fn four_corner() {
    let f = load("four_corner.fio");
    let names: Vec<&str> = f.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["seq-read", "seq-write", "rand-read", "rand-write"]);
    for j in &f.jobs {
        assert!(j.direct && j.stonewall && j.group_reporting);
        assert_eq!(j.size, Some(SizeSpec::Bytes(100 << 20)));
        assert_eq!(j.runtime_ns, Some(30 * S));
        assert_eq!(j.ioengine.as_deref(), Some("libaio"));
        assert_eq!(j.filename.as_deref(), Some("flashlab-4c.dat"));
        assert_eq!(j.iodepth, 1);
        assert!(!j.time_based);
    }
    let rws: Vec<Rw> = f.jobs.iter().map(|j| j.rw).collect();
    assert_eq!(rws, [Rw::Read, Rw::Write, Rw::RandRead, Rw::RandWrite]);
    let bss: Vec<u64> = f.jobs.iter().map(|j| j.bs).collect();
    assert_eq!(bss, [256 << 10, 256 << 10, 4096, 4096]);
    assert_eq!(f.jobs[0].line, 14);
    assert_eq!(f.run_groups(), vec![vec![0], vec![1], vec![2], vec![3]]);
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
}

#[test]
fn randwrite_steady_state() {
    let f = load("randwrite_steady.fio");
    assert_eq!(f.jobs.len(), 1);
    let j = &f.jobs[0];
    assert_eq!(j.name, "steady-randwrite");
    assert_eq!(j.rw, Rw::RandWrite);
    assert!(j.is_random() && j.has_writes() && !j.has_reads());
    assert_eq!(j.size, Some(SizeSpec::Percent(50.0)));
    assert_eq!(j.size.unwrap().resolve(64 << 30), 32 << 30);
    assert!(j.time_based);
    assert_eq!(j.runtime_ns, Some(120 * S));
    assert_eq!(j.ramp_time_ns, 10 * S);
    assert_eq!((j.iodepth, j.numjobs), (32, 4));
    assert!(!j.randrepeat);
    assert_eq!(j.randseed, Some(1234));
    assert_eq!(j.percentile_list, vec![50.0, 90.0, 99.0, 99.9, 99.99]);
    assert!(j.group_reporting && j.direct);
    // thread is accepted with a warning naming file, line and option; norandommap is read.
    let w: Vec<(usize, Option<&str>)> = f.warnings.iter().map(|w| (w.line, w.option.as_deref())).collect();
    assert_eq!(w, [(8, Some("thread"))]);
    assert!(j.norandommap);
    assert!(f.warnings[0].to_string().contains("randwrite_steady.fio:8: option 'thread': ignored by flashlab ("));
}

#[test]
fn mixed_randrw() {
    let f = load("mixed_randrw.fio");
    let j = &f.jobs[0];
    assert_eq!(j.rw, Rw::RandRw);
    assert!(j.is_mixed());
    assert_eq!((j.rwmixread, j.rwmixwrite()), (70, 30));
    assert_eq!(j.block_size(IoDir::Read), 4096);
    assert_eq!(j.block_size(IoDir::Write), 16384);
    assert_eq!(j.bs, 16384, "bs is the largest block size the job uses");
    assert_eq!(j.iodepth, 16);
    assert_eq!(j.size, Some(SizeSpec::Bytes(1 << 30)));
    assert_eq!(j.io_size, Some(4 << 30));
    assert_eq!(j.thinktime_ns, 100_000, "a bare thinktime is in microseconds");
    assert_eq!(j.offset, SizeSpec::Percent(25.0));
    let ignored: Vec<&str> = f.warnings.iter().filter_map(|w| w.option.as_deref()).collect();
    assert_eq!(ignored, ["lat_percentiles", "log_avg_msec", "write_lat_log"]);
}

#[test]
fn sqlite_fsync() {
    let f = load("sqlite_fsync.fio");
    let wal = f.job("wal-append").unwrap();
    assert_eq!(wal.rw, Rw::Write);
    assert_eq!(wal.fsync, 1);
    assert!(!wal.direct, "buffered=1 means direct=0");
    assert_eq!(wal.filename.as_deref(), Some("test.db-wal"));
    assert_eq!(wal.directory.as_deref(), Some("/data/local/tmp"));
    assert_eq!(wal.size, Some(SizeSpec::Bytes(64 << 20)));
    assert_eq!(wal.ioengine.as_deref(), Some("sync"));
    assert!(wal.syncs());
    let db = f.job("db-update").unwrap();
    assert_eq!((db.fsync, db.fdatasync), (0, 1));
    assert!(db.end_fsync);
    assert_eq!(db.number_ios, Some(10_000));
    assert_eq!(db.bs, 4096);
    assert_eq!(f.run_groups(), vec![vec![0, 1]], "no stonewall: both run together");
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
}

#[test]
fn kb_base_1000_and_suffixes() {
    let f = load("kb_base_1000.fio");
    let si = f.job("si-units").unwrap();
    assert_eq!(si.kb_base, 1000);
    assert_eq!(si.bs, 4096, "4KiB under kb_base=1000");
    assert_eq!(si.size, Some(SizeSpec::Bytes(1_000_000_000)));
    assert_eq!(si.offset, SizeSpec::Bytes(100 << 20));
    assert_eq!(si.io_size, Some(2_000_000_000));
    let hex = f.job("hex-and-plain").unwrap();
    assert_eq!(hex.bs, 8192);
    assert_eq!(hex.size, Some(SizeSpec::Bytes(1_000_000)));
    let compat = f.job("compat").unwrap();
    assert_eq!(compat.kb_base, 1024);
    assert_eq!(compat.bs, 4096);
    assert_eq!(compat.size, Some(SizeSpec::Bytes(1 << 30)));
    assert_eq!(f.global.kb_base, 1000);
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
}

#[test]
fn trim_cycle() {
    let f = load("trim_cycle.fio");
    let rws: Vec<Rw> = f.jobs.iter().map(|j| j.rw).collect();
    assert_eq!(rws, [Rw::Trim, Rw::TrimWrite, Rw::Read]);
    assert_eq!(f.jobs[0].bs, 1 << 20);
    assert!(f.jobs[1].has_trims() && f.jobs[1].has_writes());
    assert_eq!(f.jobs[1].bs, 128 << 10);
    assert_eq!(f.jobs[2].runtime_ns, Some(20 * S), "timeout is runtime's alias");
    assert_eq!(f.run_groups(), vec![vec![0], vec![1], vec![2]]);
    assert!(f.jobs.iter().all(|j| j.iodepth == 8 && j.filename.as_deref() == Some("/dev/flashlab0")));
}

#[test]
fn include_keywords_and_arithmetic() {
    let f = load("include_main.fio");
    let w = f.job("writer").unwrap();
    assert_eq!((w.bs, w.iodepth, w.direct), (64 << 10, 8, true), "writer.inc comes after common.inc");
    assert_eq!(w.size, Some(SizeSpec::Bytes(64 << 20)));
    assert_eq!(w.ioengine.as_deref(), Some("psync"));
    let r = f.job("reader").unwrap();
    assert_eq!((r.bs, r.iodepth, r.numjobs, r.rw_seq_add), (4096, 8, 1, -8192));
    // A missing include and a loop name the file and line of the include.
    let e = parse_jobfile_path(path("bad/include.fio")).unwrap_err();
    assert_eq!((e.line, e.option.as_deref()), (2, Some("include")));
    assert!(e.message.starts_with("common.fio: cannot open "), "{e}");
    let e = parse_jobfile_path(path("bad/include_loop.fio")).unwrap_err();
    assert!(e.file.ends_with("include_loop.inc") && e.line == 2, "{e}");
    assert!(e.message.contains("includes itself"), "{e}");
}

#[test]
fn bad_files_fail_with_documented_errors() {
    assert_eq!(
        fail("bad/verify_xxhash.fio"),
        "bad/verify_xxhash.fio:8: option 'verify': verify=xxhash is fio's, but flashlab implements crc32c (crc32c-intel), crc32, crc64, md5, sha256, meta and pattern"
    );
    assert_eq!(
        fail("bad/bad_size.fio"),
        "bad/bad_size.fio:7: option 'bs': bad size '4q': unknown suffix 'q' (expected k, m, g, t or p, optionally followed by b, i or ib)"
    );
    assert_eq!(
        fail("bad/unknown_option.fio"),
        "bad/unknown_option.fio:6: option 'iodpeth': unknown option; did you mean 'iodepth'?"
    );
    assert_eq!(
        fail("bad/include.fio"),
        "bad/include.fio:2: option 'include': include needs a job file read from disk (flashlab run reads one); here the text alone was given"
    );
    assert_eq!(
        fail("bad/env_var.fio"),
        "bad/env_var.fio:3: option 'size': environment variable '${SIZE}': expansion is not supported here; write the value into the job file"
    );
    assert_eq!(
        fail("bad/outside_section.fio"),
        "bad/outside_section.fio:2: option 'bs': outside of any [section]; put it under [global] or a [job] header"
    );
    assert_eq!(
        fail("bad/time_based_no_runtime.fio"),
        "bad/time_based_no_runtime.fio:2: option 'time_based': job 'job': time_based needs a runtime (e.g. runtime=60)"
    );
}

#[test]
fn errors_carry_file_line_and_option_fields() {
    let e = parse_jobfile_path(path("bad/verify_xxhash.fio")).unwrap_err();
    assert!(e.file.ends_with("verify_xxhash.fio"));
    assert_eq!(e.line, 8);
    assert_eq!(e.option.as_deref(), Some("verify"));
    let e = parse_jobfile_path(path("does-not-exist.fio")).unwrap_err();
    assert_eq!(e.line, 0);
    assert!(e.to_string().contains("cannot read the job file"));
}

#[test]
fn env_file_with_env() {
    let text = std::fs::read_to_string(path("bad/env_var.fio")).unwrap();
    let f = parse_jobfile_with_env("env_var.fio", &text, &|k| (k == "SIZE").then(|| "2g".to_string())).unwrap();
    assert_eq!(f.jobs[0].size, Some(SizeSpec::Bytes(2 << 30)));
}

/// io_uring's `fixedbufs` (bare, as fio writes it, or 0/1) and `iodepth_batch_submit` (and its
/// alias `iodepth_batch`) are read into the job; fio's defaults are 1 and off.
#[test]
fn submit_batch_and_fixed_buffers() {
    let f = parse_jobfile(
        "b.fio",
        "[d]\nrw=randread\n[a]\nfixedbufs\niodepth_batch_submit=8\n[b]\nfixedbufs=0\niodepth_batch=0\n",
    )
    .unwrap();
    let (d, a, b) = (&f.jobs[0], &f.jobs[1], &f.jobs[2]);
    assert_eq!((d.iodepth_batch, d.fixedbufs), (1, false));
    assert_eq!((a.iodepth_batch, a.fixedbufs), (8, true));
    assert_eq!((b.iodepth_batch, b.fixedbufs), (0, false));
    assert!(parse_jobfile("c.fio", "[c]\nfixedbufs=2\n").is_err());
}
