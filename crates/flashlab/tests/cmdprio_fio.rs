//! fio's per-command priorities (`cmdprio_percentage`, `cmdprio_bssplit`, `cmdprio_class`,
//! `cmdprio`) and the job's own (`prioclass`, `prio`): flashlab picks a priority per I/O as fio
//! does and reports per-priority completion latencies as fio's JSON does (`jobs[].DIR.prios[]`:
//! `prioclass`, `prio`, `clat_ns`), on a real directory with io_uring (compared with fio 3.x
//! run the same way) and on a simulated device.
//!
//! The classes used are best effort (2) and idle (3): real time (1) needs CAP_SYS_ADMIN for
//! io_uring's per-request priority, and a test should not.
//!
//! Needs fio and io_uring (flashlab_testcaps; FLASHLAB_TEST_SKIP=fio,io_uring skips, anything
//! else missing fails).

#[path = "common/scratch.rs"]
mod scratch;
use scratch::{fio_json_in, flashlab_json_in, json_of, TempDir};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const COMMON: &str = "[global]\nioengine=io_uring\niodepth=4\ndirect=0\n";

/// Per direction of the first job: total I/Os and, per priority entry, (class, level, N).
type Prios = Vec<(String, u64, Vec<(u64, u64, u64)>)>;

fn prios(who: &str, doc: &Value) -> Prios {
    let j = &doc["jobs"][0];
    ["read", "write"]
        .iter()
        .map(|d| {
            let total = j[d]["total_ios"].as_u64().unwrap_or_else(|| panic!("{who}: no {d}.total_ios in {j}"));
            let list = j[d]["prios"].as_array().cloned().unwrap_or_default();
            let e = list
                .iter()
                .map(|p| {
                    let n = |k: &str| p[k].as_u64().unwrap_or_else(|| panic!("{who}: prios[].{k} missing in {p}"));
                    (n("prioclass"), n("prio"), p["clat_ns"]["N"].as_u64().unwrap())
                })
                .collect();
            (d.to_string(), total, e)
        })
        .collect()
}

fn flashlab(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flashlab")).args(args).current_dir(dir).output().unwrap()
}

#[test]
fn bssplit_priorities_equal_fios() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio, flashlab_testcaps::Cap::IoUring]) {
        return;
    }
    // p: every read at idle/3, so one priority has samples and, as fio, no prios[] at all.
    // q: 4 KiB reads at idle/3, 8 KiB ones at the job's best effort/5 (the split of sizes is
    // drawn, but each size's priority is fixed).
    let text = format!(
        "{COMMON}[p]\nrw=randread\nbs=4k\nsize=1m\nprioclass=2\nprio=5\ncmdprio_bssplit=4k/100/3/3\n\
         [q]\nstonewall\nrw=randread\nbssplit=4k/50:8k/50\nsize=1m\nprioclass=2\nprio=5\ncmdprio_bssplit=4k/100/3/3,8k/100/1/1\n"
    );
    let fio_dir = TempDir::new("cmdprio-fio-bs");
    let fl_dir = TempDir::new("cmdprio-fl-bs");
    let want = fio_json_in(&fio_dir.0, &text);
    let got = flashlab_json_in(&fl_dir.0, &text);
    let (w, g) = (prios("fio", &want), prios("flashlab", &got));
    assert_eq!(g, w, "job p: fio {w:?}, flashlab {g:?}");
    assert_eq!(w[0], ("read".to_string(), 256, vec![]), "fio's own shape: {w:?}");
    for (who, doc) in [("fio", &want), ("flashlab", &got)] {
        let r = &doc["jobs"][1]["read"];
        let p = r["prios"].as_array().unwrap_or_else(|| panic!("{who}: no prios in {r}"));
        let e: Vec<(u64, u64, u64)> = p
            .iter()
            .map(|e| {
                (e["prioclass"].as_u64().unwrap(), e["prio"].as_u64().unwrap(), e["clat_ns"]["N"].as_u64().unwrap())
            })
            .collect();
        assert_eq!(e.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>(), vec![(2, 5), (3, 3)], "{who}: {e:?}");
        assert_eq!(e[0].2 + e[1].2, r["total_ios"].as_u64().unwrap(), "{who}: every read in one priority");
        assert_eq!(e[0].2 * 8192 + e[1].2 * 4096, r["io_bytes"].as_u64().unwrap(), "{who}: 8 KiB at 2/5, 4 KiB at 3/3");
        assert!(doc["jobs"][1]["write"].get("prios").is_none(), "{who}: no writes, no prios");
    }
}

#[test]
fn percentage_per_direction_matches_fios_shares() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio, flashlab_testcaps::Cap::IoUring]) {
        return;
    }
    let text = format!(
        "{COMMON}[mix]\nrw=randrw\nbs=4k\nsize=4m\nprioclass=3\ncmdprio_percentage=20,40\ncmdprio_class=2\ncmdprio=0,6\n"
    );
    let fio_dir = TempDir::new("cmdprio-fio-pct");
    let fl_dir = TempDir::new("cmdprio-fl-pct");
    let want = prios("fio", &fio_json_in(&fio_dir.0, &text));
    let got = prios("flashlab", &flashlab_json_in(&fl_dir.0, &text));
    let shape = |p: &Prios| {
        p.iter().map(|(d, _, e)| (d.clone(), e.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>())).collect::<Vec<_>>()
    };
    assert_eq!(shape(&got), shape(&want), "fio {want:?}, flashlab {got:?}");
    assert_eq!(shape(&want)[0].1, vec![(3, 0), (2, 0)]);
    assert_eq!(shape(&want)[1].1, vec![(3, 0), (2, 6)]);
    // 1024 I/Os split about half and half; of each direction's, 20 % and 40 % at 2/x (the
    // share's s.d. is under 2.5 points).
    for p in [&want, &got] {
        assert_eq!(p[0].1 + p[1].1, 1024, "{p:?}");
        for ((_, total, e), share) in p.iter().zip([0.2, 0.4]) {
            assert_eq!(e[0].2 + e[1].2, *total, "every I/O in one priority: {p:?}");
            let s = e[1].2 as f64 / *total as f64;
            assert!((s - share).abs() < 0.1, "share {s} instead of {share}: {p:?}");
        }
    }
}

#[test]
fn psync_refuses_cmdprio_as_fio_does() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let text = "[global]\nioengine=psync\n[p]\nrw=randread\nbs=4k\nsize=1m\ncmdprio_percentage=10\n";
    let dir = TempDir::new("cmdprio-psync");
    let file = dir.0.join("job.fio");
    std::fs::write(&file, text).unwrap();
    let fio = flashlab_testcaps::on_path("fio").expect("fio on PATH");
    let f = Command::new(fio).arg(&file).current_dir(&dir.0).output().unwrap();
    assert!(
        String::from_utf8_lossy(&f.stderr).contains("cmdprio_percentage")
            || String::from_utf8_lossy(&f.stdout).contains("cmdprio_percentage"),
        "fio refuses cmdprio with psync"
    );
    let t = dir.0.join("t");
    std::fs::create_dir_all(&t).unwrap();
    let out = flashlab(&["run", file.to_str().unwrap(), "--target", t.to_str().unwrap()], &dir.0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "flashlab ran cmdprio on psync");
    assert!(err.contains("asynchronous engine") && err.contains("psync"), "{err}");
}

#[test]
fn simulated_device_reports_per_priority_latencies_with_a_note() {
    let dir = TempDir::new("cmdprio-sim");
    let file = dir.0.join("job.fio");
    std::fs::write(
        &file,
        "[p]\nrw=randread\nbs=4k\nsize=64m\nio_size=8m\niodepth=8\nprioclass=3\ncmdprio_percentage=25\ncmdprio_class=1\n",
    )
    .unwrap();
    let out =
        flashlab(&["run", file.to_str().unwrap(), "--target", "sim:nvme-256g", "--output-format", "json"], &dir.0);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("job.fio:8: option 'cmdprio_percentage'") && err.contains("arrival order"), "{err}");
    let doc = json_of("flashlab run", out);
    let p = prios("flashlab", &doc);
    assert_eq!(p[0].1, 2048);
    let e = &p[0].2;
    assert_eq!(e.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>(), vec![(3, 0), (1, 0)]);
    assert_eq!(e[0].2 + e[1].2, 2048);
    let share = e[1].2 as f64 / 2048.0;
    assert!((share - 0.25).abs() < 0.05, "share {share}");
    assert!(p[1].2.is_empty(), "no writes, no write priorities");
    // The text output has fio's per-priority lines.
    let out = flashlab(&["run", file.to_str().unwrap(), "--target", "sim:nvme-256g"], &dir.0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("clat prio 3/0 (") && text.contains("clat prio 1/0 ("), "{text}");
    assert!(text.contains("% of IOs) percentiles"), "{text}");
}

#[test]
fn conflicting_priority_options_name_file_line_and_option() {
    let dir = TempDir::new("cmdprio-bad");
    let file = dir.0.join("bad.fio");
    std::fs::write(&file, "[p]\nrw=randread\ncmdprio_percentage=10\ncmdprio_bssplit=4k/50\n").unwrap();
    let out = flashlab(&["run", file.to_str().unwrap(), "--target", "sim:nvme-256g"], &dir.0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("bad.fio:4") && err.contains("cmdprio_bssplit") && err.contains("mutually exclusive"),
        "{err}"
    );
    std::fs::write(&file, "[p]\nrw=randread\ncmdprio_bssplit=4k/50/1\n").unwrap();
    let out = flashlab(&["run", file.to_str().unwrap(), "--target", "sim:nvme-256g"], &dir.0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("bad.fio:3") && err.contains("cmdprio_bssplit"), "{err}");
}
