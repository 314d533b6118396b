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
    let out =
        ok(&["sim", "waf", "--blocks", "256", "--pages-per-block", "32", "--passes", "2", "--spare", "0.2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
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
    assert!(csv.starts_with("job,direction,end_ms"));
    assert!(csv.lines().count() > 1);
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
    let out = ok(&["fill", "--target", "sim:toy"]);
    assert!(out.lines().any(|l| l.trim_start().starts_with("100 ")), "{out}");
    let out = ok(&["wsat", "--target", "sim:toy", "--times", "2", "--intervals", "20"]);
    assert!(out.contains("IOPS"), "{out}");
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
        assert_eq!(doc["precondition"]["precondition"], pre);
        first_waf.push(doc["result"]["intervals"][0]["write_amplification"].as_f64().unwrap());
    }
    assert!(first_waf[0] < 1.01 && first_waf[1] > 1.2, "WAF of the first tenth of a capacity: {first_waf:?}");
    let out = flashlab(&["bench", "--target", "sim:toy", "--precondition", "old"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fresh, used or steady"));
}

#[test]
fn bad_input_is_one_clear_error() {
    fails(&["age", "--target", "sim:nosuch"], "unknown profile 'nosuch'");
    fails(&["age", "--target", "/nonexistent/dev/sdz"], "/nonexistent/dev/sdz");
    fails(&["fill", "--target", "/tmp"], "simulated devices");
    fails(&["bench", "--target", "sim:toy", "--rand-io", "12q"], "12q");
    fails(&["age", "--protocol", "nosuch"], "protocol 'nosuch'");
    fails(&["sim", "waf", "--policy", "lifo"], "--policy 'lifo'");
    fails(&["sim", "waf", "--spare", "0.95"], "--spare");
    fails(&["sim", "waf", "--trimmed", "1.5"], "--trimmed");

    let bad_profile = scratch("bad.toml");
    let text = include_str!("../../../profiles/toy.toml").replace("t_read_us = 50", "t_read_us = -5");
    std::fs::write(&bad_profile, text).unwrap();
    fails(&["bench", "--target", &format!("sim:{}", bad_profile.display())], "nand.t_read_us");

    let job = scratch("bad.fio");
    std::fs::write(&job, "[global]\nbs=4k\n\n[j]\nrw=randwrite\nsize=4m\nverify=md5\n").unwrap();
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
    std::fs::write(
        &huge,
        include_str!("../../../profiles/toy.toml").replace("planes_per_die = 1", "planes_per_die = 2147483648"),
    )
    .unwrap();
    fails(&["bench", "--target", &format!("sim:{}", huge.display())], "nand.planes_per_die");
    let slow = scratch("slow.toml");
    std::fs::write(&slow, include_str!("../../../profiles/toy.toml").replace("t_prog_us = 600", "t_prog_us = 1e300"))
        .unwrap();
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
    let text = ok(&["report", json.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(text.contains("wrote"), "{text}");
    let bad = scratch("not-results.json");
    std::fs::write(&bad, "{\"hello\": 1}").unwrap();
    fails(&["report", bad.to_str().unwrap(), "-o", out.to_str().unwrap()], "not-results.json");
}

#[test]
fn doctor_reads_a_captured_tree_and_the_live_system() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../flashlab-doctor/tests/fixtures/ubuntu-sbc-emmc");
    let out = ok(&["doctor", "--root", fixture, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.is_object());
    assert!(out.contains("no-trim"), "{out}");
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
    assert!(v["steps"][0]["rand_write_mbs"].as_f64().unwrap() > 0.0);
    assert!(v["steps"][0].get("device").is_none(), "a real target has no simulated device counters");
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
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let Some(root_dev) = mounts
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .find(|d| d.starts_with("/dev/") && std::path::Path::new(d).exists())
    else {
        eprintln!("no mounted /dev block device visible here: guard test not applicable");
        return;
    };
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
    assert_eq!((r, w), (0, t), "{j}");
    assert!(w > 0);
}
