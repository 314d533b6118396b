//! The `flashlab` binary as a user runs it: the documented commands work, their JSON has the
//! promised fields, the same seed gives the same table, and bad input is one clear error with
//! a non-zero exit (never a panic).

mod common;

use common::{fails, flashlab, ok};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    common::scratch("cli", name)
}

#[test]
fn sim_waf_json_has_the_promised_fields() {
    let out = ok(&[
        "sim",
        "waf",
        "--blocks",
        "256",
        "--pages-per-block",
        "32",
        "--passes",
        "2",
        "--spare",
        "0.2",
        "--json",
        "-",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["command"], "sim waf");
    let v = &v["results"];
    for key in ["write_amplification", "host_pages_written", "nand_pages_programmed", "gc_pages_copied", "erases"] {
        assert!(v[key].is_number(), "{key} missing in {v}");
    }
    let waf = v["write_amplification"].as_f64().unwrap();
    assert!(waf > 1.5 && waf < 4.0, "WAF {waf} at spare 0.2");
    let nand = v["nand_pages_programmed"].as_f64().unwrap();
    let host = v["host_pages_written"].as_f64().unwrap();
    assert!((nand / host - waf).abs() < 1e-9);
}

#[test]
fn age_json_rows_and_determinism() {
    let a = scratch("age-a.json");
    let b = scratch("age-b.json");
    let text_a =
        ok(&["age", "--target", "sim:toy", "--protocol", "age-small", "--seed", "3", "--json", a.to_str().unwrap()]);
    let text_b =
        ok(&["age", "--target", "sim:toy", "--protocol", "age-small", "--seed", "3", "--json", b.to_str().unwrap()]);
    let strip = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("virtual time") && !l.starts_with("results written"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&text_a), strip(&text_b), "same seed, different tables");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let v = &v["results"];
    let labels: Vec<&str> = v["steps"].as_array().unwrap().iter().map(|s| s["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["new", "after fill 1", "after fill 2", "after fill 3", "after delete", "after fstrim + idle"]);
    for s in v["steps"].as_array().unwrap() {
        for key in ["seq_read_mbs", "seq_write_mbs", "rand_read_mbs", "rand_write_mbs"] {
            assert!(s[key].as_f64().unwrap() > 0.0, "{key} in {s}");
        }
        assert!(s["device"]["write_amplification"].as_f64().unwrap() >= 1.0);
    }
    for label in ["new", "after fill 1", "after fstrim + idle"] {
        assert!(text_a.contains(label), "table lacks row {label}");
    }
}

#[test]
fn run_a_job_file_normal_and_csv() {
    let job = scratch("rw.fio");
    std::fs::write(
        &job,
        "[global]\nbs=4k\nsize=8m\n\n[randwrite]\nrw=randwrite\niodepth=4\n\n[seqread]\nstonewall\nrw=read\nbs=128k\n",
    )
    .unwrap();
    let csv = scratch("rw.csv");
    let out = ok(&["run", job.to_str().unwrap(), "--target", "sim:toy", "--csv", csv.to_str().unwrap()]);
    assert!(out.contains("randwrite: (groupid=0)") && out.contains("write: IOPS="), "{out}");
    assert!(out.contains("seqread: (groupid=1)") && out.contains("read: IOPS="), "{out}");
    let csv = std::fs::read_to_string(&csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("job,direction,end (ms),duration (ms),bytes,ios,bandwidth (MB/s),IOPS,mean lat (us),max lat (us)"),
        "{csv}"
    );
    // Per job and direction: the intervals add up to what the job file asks (8 MiB each, in
    // 4 KiB and 128 KiB requests), each interval's rates are its bytes and I/Os over its
    // duration, and the stonewalled read ends after the write.
    let mut totals = std::collections::BTreeMap::<(String, String), (u64, u64, f64)>::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 10, "{l}");
        let num = |i: usize| f[i].parse::<f64>().unwrap_or_else(|e| panic!("field {i} of {l}: {e}"));
        let (end, dur, bytes, ios, mbs, iops) = (num(2), num(3), num(4), num(5), num(6), num(7));
        assert!(dur > 0.0 && end >= dur && bytes > 0.0 && ios > 0.0, "{l}");
        assert!((mbs - bytes / (dur * 1e3)).abs() <= 1e-3 * mbs, "MB/s is not bytes/duration: {l}");
        assert!((iops - ios / (dur * 1e-3)).abs() <= 1e-3 * iops, "IOPS is not I/Os/duration: {l}");
        assert!(num(8) > 0.0 && num(9) >= num(8), "latencies: {l}");
        let t = totals.entry((f[0].to_string(), f[1].to_string())).or_default();
        *t = (t.0 + bytes as u64, t.1 + ios as u64, t.2.max(end));
    }
    let keys: Vec<(&str, &str)> = totals.keys().map(|(j, d)| (j.as_str(), d.as_str())).collect();
    assert_eq!(keys, [("randwrite", "write"), ("seqread", "read")], "{csv}");
    let (w, r) = (totals[&("randwrite".into(), "write".into())], totals[&("seqread".into(), "read".into())]);
    assert_eq!((w.0, w.1), (8 << 20, 2048), "randwrite: 8 MiB in 4 KiB writes\n{csv}");
    assert_eq!((r.0, r.1), (8 << 20, 64), "seqread: 8 MiB in 128 KiB reads\n{csv}");
    assert!(r.2 > w.2, "the stonewalled read ended before the write\n{csv}");
}

#[test]
fn profiles_list_and_show() {
    let out = ok(&["profiles"]);
    for name in ["emmc-16g", "ufs-64g", "nvme-256g", "toy"] {
        assert!(out.contains(name), "{out}");
    }
    assert!(ok(&["profiles", "toy"]).contains("[nand]"));
}

#[test]
fn fill_and_wsat_on_a_small_device() {
    /// The rows of a table: lines made only of numbers (the notes under a table start with a
    /// number too, "4 KiB random writes ...", but go on in words).
    fn rows(out: &str) -> Vec<Vec<f64>> {
        out.lines()
            .map(|l| l.split_whitespace().map(|f| f.parse::<f64>()).collect::<Result<Vec<f64>, _>>())
            .filter_map(|r| r.ok().filter(|r| !r.is_empty()))
            .collect()
    }
    // fill: one row per tenth of the device (filled %, p50, p90, p99, p99.9, max, mean us,
    // MB/s, WAF, free blocks %, end-to-end WAF).
    let out = ok(&["fill", "--target", "sim:toy"]);
    let fill = rows(&out);
    let filled: Vec<f64> = fill.iter().map(|r| r[0]).collect();
    assert_eq!(filled, [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0], "{out}");
    for r in &fill {
        assert_eq!(r.len(), 11, "{out}");
        assert!(
            r[1] > 0.0 && r[1] <= r[2] && r[2] <= r[3] && r[3] <= r[4] && r[4] <= r[5],
            "percentiles out of order (or max below one): {r:?}\n{out}"
        );
        assert!(r[6] <= r[5], "mean above max: {r:?}\n{out}");
        assert!(r[7] > 0.0 && r[8] >= 1.0, "MB/s and WAF: {r:?}\n{out}");
        // The same NAND bytes over the application's bytes, which the filesystem's writes
        // can only add to: never below the device's WAF (both printed to two decimals).
        assert!(r[10] >= r[8] - 0.01, "end-to-end WAF below the device's: {r:?}\n{out}");
    }
    // wsat: --times 2 in 20 intervals of 0.1 capacity (capacity x, at s, IOPS, WAF, free blocks).
    let out = ok(&["wsat", "--target", "sim:toy", "--times", "2", "--intervals", "20"]);
    let w = rows(&out);
    assert_eq!(w.len(), 20, "{out}");
    for (i, r) in w.iter().enumerate() {
        assert_eq!(r.len(), 5, "{out}");
        assert!((r[0] - 0.1 * (i + 1) as f64).abs() < 1e-6, "capacity column: {r:?}\n{out}");
        assert!(r[2] > 0.0 && r[3] >= 1.0, "IOPS and WAF: {r:?}\n{out}");
    }
    for p in w.windows(2) {
        assert!(p[1][1] > p[0][1], "time must advance: {p:?}");
        // Without TRIM a free block comes back only through GC: while an interval copies
        // nothing (WAF 1) the free blocks can only fall; once GC runs (paced per command) they
        // hover near its threshold, never back to where the first interval was.
        if p[1][3] <= 1.0 + 1e-9 {
            assert!(p[1][4] <= p[0][4], "free blocks rose without TRIM or GC: {p:?}\n{out}");
        }
        assert!(p[1][4] < w[0][4], "free blocks back to the new device's without TRIM: {p:?}\n{out}");
    }
    let (first, last) = (&w[0], &w[19]);
    // The write cliff (physics): once the device has been written over, every free block has
    // to be made by garbage collection, which copies valid data: WAF rises above 1, free
    // blocks fall to the GC reserve, and the host gets fewer IOPS than from the fresh device.
    assert!(last[4] < first[4], "free blocks did not fall\n{out}");
    assert!(last[3] > 1.0, "no write amplification after writing the device twice\n{out}");
    assert!(last[2] < first[2], "no write cliff: {} IOPS fresh, {} after twice the capacity\n{out}", first[2], last[2]);
}

/// `--precondition` reaches the device and the results document: on a used device the write
/// cliff is there from the first interval (GC copies live data at once), on a fresh one not.
#[test]
fn precondition_flag_sets_the_device_history() {
    let mut first_waf = vec![];
    for pre in ["fresh", "used"] {
        let json = scratch(&format!("wsat-{pre}.json"));
        let out = ok(&[
            "wsat",
            "--target",
            "sim:toy",
            "--times",
            "0.5",
            "--intervals",
            "5",
            "--precondition",
            pre,
            "--json",
            json.to_str().unwrap(),
        ]);
        assert!(out.contains(&format!("device {pre}")), "{out}");
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(doc["results"]["precondition"]["precondition"], pre);
        first_waf.push(doc["results"]["intervals"][0]["write_amplification"].as_f64().unwrap());
    }
    assert!(first_waf[0] < 1.01 && first_waf[1] > 1.2, "WAF of the first tenth of a capacity: {first_waf:?}");
    let out = flashlab(&["bench", "--target", "sim:toy", "--precondition", "old"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fresh, used, steady or lived"));
}

/// `calibrate` prints the leave-one-out prediction and error beside the in-sample error.
#[test]
fn calibrate_prints_leave_one_out_errors() {
    let out = ok(&["calibrate", "sd-card"]);
    assert!(out.contains("LOO error") && out.contains("leave-one-out: each cell predicted"), "{out}");
    let row = out.lines().find(|l| l.contains("rand write IOPS")).unwrap();
    assert_eq!(
        row.split_whitespace().filter(|w| w.ends_with('%') || w.starts_with('+') || w.starts_with('-')).count(),
        2,
        "{row}"
    );
    let out = ok(&["calibrate", "sd-card", "--no-loo"]);
    assert!(!out.contains("leave-one-out"), "{out}");
}

#[test]
fn bad_input_is_one_clear_error() {
    fails(&["age", "--target", "sim:nosuch"], "unknown profile 'nosuch'");
    fails(&["age", "--target", "/nonexistent/dev/sdz"], "/nonexistent/dev/sdz");
    fails(&["fill", "--target", "/tmp"], "simulated devices");
    fails(&["bench", "--target", "sim:toy", "--rand-io", "12q"], "12q");
    // A protocol name is checked with the command line (exit 2), naming the built-in ones.
    let out = flashlab(&["age", "--protocol", "nosuch"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("'nosuch'") && stderr.contains("--protocol") && stderr.contains("motox-review"),
        "{stderr}"
    );
    fails(&["sim", "waf", "--policy", "lifo"], "--policy 'lifo'");
    fails(&["sim", "waf", "--spare", "0.95"], "--spare");
    fails(&["sim", "waf", "--trimmed", "1.5"], "--trimmed");

    let bad_profile = scratch("bad.toml");
    let text = flashsim::builtin::TOY.replace("t_read_us = 50", "t_read_us = -5");
    std::fs::write(&bad_profile, text).unwrap();
    fails(&["bench", "--target", &format!("sim:{}", bad_profile.display())], "nand.t_read_us");

    let job = scratch("bad.fio");
    std::fs::write(&job, "[global]\nbs=4k\n\n[j]\nrw=randwrite\nsize=4m\nverify=xxhash\n").unwrap();
    fails(&["run", job.to_str().unwrap(), "--target", "sim:toy"], "bad.fio:7");

    let big = scratch("big.fio");
    std::fs::write(&big, "[j]\nrw=write\nsize=10g\n").unwrap();
    fails(&["run", big.to_str().unwrap(), "--target", "sim:toy"], "does not fit");

    fails(&["bench", "--target", "sim:toy", "--rand-io", "0"], "--rand-io");
    // Command-line syntax errors are clap's: exit code 2, the option named.
    let out = flashlab(&["fill", "--target", "sim:toy", "--iodepth", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--iodepth"));
    let odd_bs = scratch("odd-bs.fio");
    std::fs::write(&odd_bs, "[j]\nrw=randwrite\nbs=513\nsize=1m\n").unwrap();
    fails(&["run", odd_bs.to_str().unwrap(), "--target", "sim:toy"], "odd-bs.fio:1");
    let huge = scratch("huge.toml");
    std::fs::write(&huge, flashsim::builtin::TOY.replace("planes_per_die = 1", "planes_per_die = 2147483648")).unwrap();
    fails(&["bench", "--target", &format!("sim:{}", huge.display())], "nand.planes_per_die");
    let slow = scratch("slow.toml");
    std::fs::write(&slow, flashsim::builtin::TOY.replace("t_prog_us = 600", "t_prog_us = 1e300")).unwrap();
    fails(&["bench", "--target", &format!("sim:{}", slow.display())], "nand.t_prog_us");
    let zero = scratch("zero-fill.toml");
    std::fs::write(&zero, "name = \"z\"\n[[step]]\nkind = \"fill\"\nleave_free = \"1m\"\nfile_size = \"0\"\n").unwrap();
    fails(&["age", "--target", "sim:toy", "--protocol", zero.to_str().unwrap()], "file_size");

    let proto = scratch("bad-proto.toml");
    std::fs::write(&proto, "name = \"x\"\n[[step]]\nkind = \"fill\"\nleave_free = \"3zb\"\n").unwrap();
    fails(&["age", "--target", "sim:toy", "--protocol", proto.to_str().unwrap()], "leave_free");
}

#[test]
fn html_reports_from_commands_and_files() {
    let json = scratch("rep-age.json");
    let html = scratch("rep-age.html");
    ok(&["bench", "--target", "sim:toy", "--json", json.to_str().unwrap(), "--report", html.to_str().unwrap()]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && page.contains("Four-corner"), "no chart in the report");
    let out = scratch("rep-files.html");
    let _ = std::fs::remove_file(&out);
    let text = ok(&["report", json.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(text.contains("wrote") && text.contains(out.to_str().unwrap()), "{text}");
    let page = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    assert!(page.contains("<svg") && page.contains("Four-corner"), "no chart in the report from the file");
    let bad = scratch("not-results.json");
    std::fs::write(&bad, "{\"hello\": 1}").unwrap();
    fails(&["report", bad.to_str().unwrap(), "-o", out.to_str().unwrap()], "not-results.json");
}

#[test]
fn doctor_reads_a_captured_tree_and_the_live_system() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../flashlab-doctor/tests/fixtures/ubuntu-sbc-emmc");
    let out = ok(&["doctor", "--root", fixture, "--json", "-"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["command"], "doctor");
    let v = &v["results"];
    // What the captured board has (tests/fixtures/ubuntu-sbc-emmc): / is ext4 on an eMMC
    // partition, 92 % full, trimmed by nothing, and its eMMC reports its wear.
    let root = v["filesystems"].as_array().unwrap().iter().find(|f| f["mount_point"] == "/").expect("/ in the report");
    assert_eq!((root["fs_type"].as_str(), root["source"].as_str()), (Some("ext4"), Some("/dev/mmcblk0p2")), "{root}");
    let finding = |id: &str| root["findings"].as_array().unwrap().iter().find(|f| f["id"] == id).cloned();
    assert_eq!(finding("no-trim").expect("no-trim for /")["severity"], "alarm", "{root}");
    assert_eq!(finding("usage-alarm").expect("usage-alarm for /")["severity"], "alarm", "{root}");
    assert!(finding("trim-ok").is_none(), "{root}");
    let emmc = v["devices"].as_array().unwrap().iter().find(|d| d["name"] == "mmcblk0").expect("mmcblk0");
    assert_eq!((emmc["class"].as_str(), emmc["emmc"]["life_time_b"].as_u64()), (Some("emmc"), Some(3)), "{emmc}");
    let text = ok(&["doctor", "--root", fixture]);
    // The filesystems table has / at 92 % used; the findings table names both alarms.
    assert!(text.lines().any(|l| l.starts_with("/ ") && l.split_whitespace().any(|w| w == "92")), "{text}");
    for finding in ["usage-alarm", "no-trim"] {
        assert!(text.lines().any(|l| l.starts_with("ALARM") && l.contains(finding)), "{finding}:\n{text}");
    }
    assert!(text.lines().all(|l| !l.starts_with("ALARM") || l.chars().count() <= 80), "{text}");
    ok(&["doctor"]);
    fails(&["doctor", "--root", "/nonexistent/flashlab"], "nonexistent");
}

/// A protocol and a job file on a real directory: flashlab leaves nothing behind.
#[test]
fn real_directory_target() {
    let dir = scratch("real-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let proto = scratch("tiny-proto.toml");
    std::fs::write(
        &proto,
        "name = \"tiny\"\nfour_corner_span = \"4MiB\"\nfour_corner_rand_io = \"512KiB\"\n[[step]]\nkind = \"four-corner\"\nlabel = \"new\"\n[[step]]\nkind = \"idle\"\nduration = \"24h\"\n",
    )
    .unwrap();
    let json = scratch("real-age.json");
    // Buffered I/O so that the test also passes on filesystems without O_DIRECT (tmpfs).
    let out = ok(&[
        "age",
        "--target",
        dir.to_str().unwrap(),
        "--protocol",
        proto.to_str().unwrap(),
        "--idle",
        "10ms",
        "--buffered",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.contains("shortened by --idle"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let v = &v["results"];
    assert!(v["steps"][0]["rand_write_mbs"].as_f64().unwrap() > 0.0);
    assert!(v["steps"][0]["device"].is_null(), "a real target has no simulated device counters");
    let job = scratch("real.fio");
    std::fs::write(&job, "[global]\nbs=4k\nsize=4m\nio_size=1m\n\n[w]\nrw=randwrite\n\n[r]\nstonewall\nrw=randread\n")
        .unwrap();
    let out =
        ok(&["run", job.to_str().unwrap(), "--target", dir.to_str().unwrap(), "--ioengine", "psync", "--buffered"]);
    assert!(out.contains("write: IOPS=") && out.contains("read: IOPS="), "{out}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "flashlab left files in the target directory");
}

/// A raw block device needs --destroy-data, and a mounted one is refused even with it.
#[test]
fn block_devices_are_guarded() {
    // Needs `/` on a block device node (FLASHLAB_TEST_SKIP=rootdev skips it where it is not).
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::RootDev]) {
        return;
    }
    let root_dev = flashlab_testcaps::root_block_device().unwrap();
    let job = scratch("blk.fio");
    std::fs::write(&job, format!("[j]\nrw=randwrite\nbs=4k\nsize=4m\nfilename={root_dev}\n")).unwrap();
    fails(&["run", job.to_str().unwrap()], "--destroy-data");
    fails(&["run", job.to_str().unwrap(), "--destroy-data"], "mounted");
}

/// A public-style fio job file runs unchanged on a simulated device and on a real directory,
/// and both JSON outputs have the same fio key paths (the simulated one adds the device).
#[test]
fn same_job_file_on_simulated_and_real_targets() {
    let job = concat!(env!("CARGO_MANIFEST_DIR"), "/../flashlab-jobs/tests/jobs/four_corner.fio");
    let sim = ok(&["run", job, "--target", "sim:emmc-16g", "--output-format", "json"]);
    let dir = scratch("real-fourcorner");
    std::fs::create_dir_all(&dir).unwrap();
    let real = ok(&["run", job, "--target", dir.to_str().unwrap(), "--output-format", "json", "--buffered"]);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "job files left behind");
    let parse = |t: &str| -> serde_json::Value { serde_json::from_str(t).unwrap() };
    let (sim, real) = (parse(&sim), parse(&real));
    let keys = |v: &serde_json::Value| {
        flashlab_measure::json_key_paths(v)
            .into_iter()
            .filter(|(k, _)| !k.contains("flashlab_device"))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let (ks, kr) = (keys(&sim), keys(&real));
    let only_sim: Vec<_> = ks.keys().filter(|k| !kr.contains_key(*k)).collect();
    let only_real: Vec<_> = kr.keys().filter(|k| !ks.contains_key(*k)).collect();
    assert!(
        only_sim.is_empty() && only_real.is_empty(),
        "key paths differ: sim only {only_sim:?}, real only {only_real:?}"
    );
    assert!(sim["jobs"][0]["flashlab_device"].is_object() && real["jobs"][0].get("flashlab_device").is_none());
    for j in real["jobs"].as_array().unwrap() {
        let io = j["read"]["io_bytes"].as_u64().unwrap() + j["write"]["io_bytes"].as_u64().unwrap();
        assert!(io > 0, "job {} did no I/O", j["jobname"]);
    }
}

/// A symlink where flashlab would create a job file is refused; nothing is written through it.
#[test]
fn symlinks_are_not_followed_when_creating_files() {
    let dir = scratch("symlink-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let victim = scratch("symlink-victim");
    let _ = std::fs::remove_file(&victim);
    let link = dir.join("j.0.0");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let job = scratch("symlink.fio");
    std::fs::write(&job, "[j]\nrw=write\nbs=64k\nsize=64k\n").unwrap();
    fails(&["run", job.to_str().unwrap(), "--target", dir.to_str().unwrap(), "--buffered"], "did not create");
    assert!(!victim.exists(), "flashlab wrote through a symlink");
    std::fs::remove_file(&link).unwrap();
}

/// fio's trimwrite on a simulated device: every block is trimmed, then written.
#[test]
fn trimwrite_trims_then_writes() {
    let job = scratch("tw.fio");
    std::fs::write(&job, "[j]\nrw=trimwrite\nbs=4k\nsize=1m\n").unwrap();
    let out = ok(&["run", job.to_str().unwrap(), "--target", "sim:toy", "--output-format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let j = &v["jobs"][0];
    let (r, w, t) = (
        j["read"]["io_bytes"].as_u64().unwrap(),
        j["write"]["io_bytes"].as_u64().unwrap(),
        j["trim"]["io_bytes"].as_u64().unwrap(),
    );
    // fio's HOWTO: with io_size (here = size) 1 MiB, trimwrite trims 1 MiB and writes the
    // same 1 MiB: every 4 KiB block of the file, once each.
    assert_eq!((r, w, t), (0, 1 << 20, 1 << 20), "{j}");
    assert_eq!((j["trim"]["total_ios"].as_u64(), j["write"]["total_ios"].as_u64()), (Some(256), Some(256)), "{j}");
    let dev = &j["flashlab_device"]["counters"];
    assert_eq!(
        (dev["host_trim_bytes"].as_u64(), dev["host_write_bytes"].as_u64()),
        (Some(1 << 20), Some(1 << 20)),
        "{dev}"
    );
}

/// An option that does not apply to a command or target is an error naming the flag, not
/// ignored (issue 19): fill and wsat run on simulated devices only and do not take the
/// real-target or four-corner options; age/bench/run refuse the other kind of target's.
#[test]
fn options_that_do_not_apply_are_refused_by_name() {
    for (cmd, flag, value) in [
        ("fill", "--rand-io", Some("1MiB")),
        ("fill", "--idle", Some("1s")),
        ("fill", "--zero-buffers", None),
        ("wsat", "--rand-io", Some("1MiB")),
        ("wsat", "--idle", Some("1s")),
        ("wsat", "--zero-buffers", None),
    ] {
        let mut args = vec![cmd, "--target", "sim:toy", flag];
        args.extend(value);
        let out = flashlab(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
    fails(&["bench", "--target", "sim:toy", "--idle", "1s"], "--idle applies to real targets");
    fails(&["bench", "--target", "sim:toy", "--zero-buffers"], "--zero-buffers");
    let dir = scratch("inapplicable");
    std::fs::create_dir_all(&dir).unwrap();
    fails(&["bench", "--target", dir.to_str().unwrap(), "--discard"], "--discard applies to simulated targets");
    fails(&["doctor", "--csv", "x.csv"], "--csv");
    fails(&["profiles", "--report", "x.html"], "--report");
}

/// `--quiet` prints nothing; `bench` writes `"command": "bench"`.
#[test]
fn quiet_prints_nothing_and_bench_is_bench() {
    let json = scratch("quiet.json");
    let out = flashlab(&["bench", "--target", "sim:toy", "--quiet", "--json", json.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["command"], "bench");
}

/// Issue 48, item 5: a mistyped flag, subcommand, protocol or profile gets the closest valid
/// name in its one-line error (flags and subcommands by clap, exit 2; profiles and protocols by
/// flashlab, with the same similarity measure).
#[test]
fn mistyped_names_get_the_closest_valid_one() {
    for (args, code, want) in [
        (&["age", "--traget", "sim:toy"][..], 2, "did you mean '--target'?"),
        (&["fill", "--iodpeth", "4"][..], 2, "did you mean '--iodepth'?"),
        (&["agee"][..], 2, "did you mean 'age'?"),
        (&["sim", "wa"][..], 2, "did you mean 'waf'?"),
        (&["age", "--protocol", "age-smal"][..], 2, "did you mean 'age-small'?"),
        (&["age", "--target", "sim:ufs3.1"][..], 1, "did you mean 'sim:ufs-3.1'?"),
        (&["age", "--target", "sim:ufs-9"][..], 1, "did you mean 'sim:ufs-"),
        (&["life", "--target", "sim:toyy"][..], 1, "did you mean 'sim:toy'?"),
        (&["profiles", "nexus7"][..], 1, "did you mean 'nexus7-2012'?"),
    ] {
        let out = flashlab(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "flashlab {args:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "flashlab {args:?}: {stderr}");
        assert!(lines[0].starts_with("flashlab: error:") && lines[0].contains(want), "flashlab {args:?}: {stderr}");
    }
    // Nothing close: no guess.
    let out = flashlab(&["age", "--target", "sim:zzzzzzzz"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("did you mean"));
}

/// `age --help` names every built-in protocol (from the registry, motox-review included).
#[test]
fn age_help_names_every_builtin_protocol() {
    let help = ok(&["age", "--help"]);
    for p in ["age", "age-thin", "age-small", "four-corner", "motox-review"] {
        assert!(help.contains(p), "age --help does not name {p}:\n{help}");
    }
}

/// On a real target a job runs the engine its job file names, as fio does (`--ioengine`
/// overrides it): psync reports no submission latency, io_uring does (its submit call's time).
#[test]
fn real_jobs_run_the_engine_their_job_file_names() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::IoUring]) {
        return;
    }
    let dir = scratch("engine-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let slat_n = |engine: &str, extra: &[&str]| {
        let job = scratch(&format!("engine-{engine}.fio"));
        std::fs::write(&job, format!("[j]\nrw=randwrite\nbs=4k\nsize=1m\nioengine={engine}\n")).unwrap();
        let mut args = vec!["run", job.to_str().unwrap(), "--target", dir.to_str().unwrap(), "--buffered"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--output-format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&ok(&args)).unwrap();
        assert_eq!(v["jobs"][0]["write"]["total_ios"], 256, "{v}");
        v["jobs"][0]["write"]["slat_ns"]["N"].as_u64().unwrap()
    };
    assert_eq!(slat_n("psync", &[]), 0, "ioengine=psync ran an asynchronous engine");
    assert_eq!(slat_n("io_uring", &[]), 256);
    assert_eq!(slat_n("psync", &["--ioengine", "io_uring"]), 256, "--ioengine overrides the job file");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "flashlab left files in the target directory");
}
