//! The example job files in `examples/jobs/` (written in the style of fio's own examples:
//! mixed block sizes, Zipf/Pareto/normal/zoned access, rate limits, think time, loops,
//! offset modifiers, environment variables; issue 23 acceptance 1) run unchanged on a
//! simulated device, on a directory and on a served device (`flashlab serve --attach`, a
//! simulated device behind a loop device); and where fio runs the same file here, every key
//! path flashlab promises ([`flashlab_measure::fio_json_keypaths`]) is in both documents with
//! the same JSON type, and the I/O counts the file fixes are the same.
//!
//! Needs fio, root, /dev/fuse and loop devices (flashlab_testcaps: a missing one fails
//! unless FLASHLAB_TEST_SKIP names it; then that part is skipped and says so).

#[path = "common/scratch.rs"]
mod scratch;
use flashlab_measure::{fio_json_keypaths, json_key_paths, JsonKind, Presence};
use scratch::{json_of, TempDir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The environment the examples expect (`env-vars.fio`).
const ENV: [(&str, &str); 2] = [("FLASHLAB_EX_SIZE", "16m"), ("FLASHLAB_EX_BS", "8k")];

/// Files fio 3.33 cannot run, and why (flashlab runs them).
const FIO_CANNOT: [(&str, &str); 1] = [(
    "zoned-per-direction.fio",
    "fio 3.33 fails to parse per-direction zones (`zoned:...,100/100`) although its HOWTO documents them",
)];

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/jobs");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    v.sort();
    assert!(v.len() >= 25, "only {} example job files", v.len());
    v
}

fn flashlab_run(file: &Path, target: &str, extra: &[&str], cwd: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .arg("run")
        .arg(file)
        .args(["--target", target, "--output-format", "json"])
        .args(extra)
        .envs(ENV)
        .current_dir(cwd)
        .output()
        .expect("run flashlab");
    json_of(&format!("flashlab run {} --target {target}", file.display()), out)
}

/// Every job did the I/O its file asks for (some I/O, no error).
fn check_ran(who: &str, doc: &Value) {
    let jobs = doc["jobs"].as_array().unwrap_or_else(|| panic!("{who}: no jobs"));
    assert!(!jobs.is_empty(), "{who}: no jobs");
    for j in jobs {
        assert_eq!(j["error"], 0, "{who}: job {} error", j["jobname"]);
        let ios: u64 = ["read", "write", "trim"].iter().map(|d| j[d]["total_ios"].as_u64().unwrap_or(0)).sum();
        assert!(ios > 0, "{who}: job {} did no I/O", j["jobname"]);
    }
}

#[test]
fn examples_run_on_a_simulated_device_and_a_directory() {
    let files = examples();
    let dir = TempDir::new("examples-dir");
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        check_ran(&format!("{name} on sim:toy"), &flashlab_run(f, "sim:toy", &[], &dir.0));
        let target = dir.0.join("t");
        std::fs::create_dir_all(&target).unwrap();
        check_ran(&format!("{name} on a directory"), &flashlab_run(f, target.to_str().unwrap(), &[], &dir.0));
        assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0, "{name}: files left in the directory");
    }
}

/// A running `flashlab serve --attach` on sim:toy; Drop stops it and detaches its loop device.
struct Served {
    child: Option<Child>,
    dir: TempDir,
    loopdev: String,
}

impl Served {
    fn start() -> Served {
        let dir = TempDir::new("examples-serve");
        let fuse = dir.0.join("fuse");
        std::fs::create_dir_all(&fuse).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_flashlab"))
            .args(["serve", "--target", "sim:toy", "--attach", "--time-scale", "10"])
            .arg(&fuse)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start flashlab serve");
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let mut loopdev = None;
        loop {
            let l = rx.recv_timeout(Duration::from_secs(30)).expect("flashlab serve did not become ready");
            if let Some(d) = l.strip_prefix("attached ") {
                loopdev = Some(d.trim().to_string());
            }
            if l.starts_with("ready") {
                break;
            }
        }
        Served { child: Some(child), dir, loopdev: loopdev.expect("no loop device printed") }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SAFETY: kill on our own child's pid.
            unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
            for _ in 0..200 {
                if c.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        let fuse = self.dir.0.join("fuse");
        for d in flashlab_serve::loopdev::devices_backed_by(&fuse.join("device")) {
            let _ = flashlab_serve::loopdev::detach(&d);
        }
        let _ = Command::new("umount").arg("-l").arg(&fuse).status();
    }
}

#[test]
fn examples_run_on_a_served_device() {
    use flashlab_testcaps::Cap;
    if !flashlab_testcaps::require(&[Cap::Root, Cap::Fuse, Cap::Loop]) {
        return;
    }
    let served = Served::start();
    for f in examples() {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let doc = flashlab_run(&f, &served.loopdev, &["--destroy-data"], &served.dir.0);
        check_ran(&format!("{name} on the served device {}", served.loopdev), &doc);
    }
}

#[test]
fn examples_give_fios_json_key_paths_and_counts() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let fio = flashlab_testcaps::on_path("fio").unwrap();
    let promised = fio_json_keypaths();
    let mut compared = 0;
    let mut problems = Vec::new();
    for f in examples() {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        if let Some((_, why)) = FIO_CANNOT.iter().find(|(n, _)| *n == name) {
            eprintln!("example_jobs: {name} not compared with fio: {why}");
            continue;
        }
        let dir = TempDir::new("examples-fio");
        let out = fio_with_deadline(&fio, &f, &dir.0, &name);
        let fio_doc = json_of(&format!("fio {name}"), out);
        let fl_doc = flashlab_run(&f, "sim:toy", &[], &dir.0);
        let (fj, lj) = (fio_doc["jobs"].as_array().unwrap(), fl_doc["jobs"].as_array().unwrap());
        assert_eq!(fj.len(), lj.len(), "{name}: number of jobs");
        for (a, b) in fj.iter().zip(lj) {
            assert_eq!(a["jobname"], b["jobname"], "{name}");
            let (pa, pb): (BTreeMap<String, JsonKind>, BTreeMap<String, JsonKind>) =
                (json_key_paths(a), json_key_paths(b));
            for kp in &promised {
                let Some(rel) = kp.path.strip_prefix("jobs[].") else { continue };
                let applies = match kp.presence {
                    Presence::Always => true,
                    Presence::WithIo => {
                        let d = rel.split('.').next().unwrap_or("");
                        a[d]["total_ios"].as_u64().unwrap_or(0) > 0
                    }
                };
                if applies && (pa.get(rel) != Some(&kp.kind) || pb.get(rel) != Some(&kp.kind)) {
                    problems.push(format!(
                        "{name} job {}: {rel}: promised {:?}, fio {:?}, flashlab {:?}",
                        a["jobname"],
                        kp.kind,
                        pa.get(rel),
                        pb.get(rel)
                    ));
                }
            }
            // Counts the file fixes (number_ios, or bytes for fixed sizes): the same I/O count
            // when the job is neither time-based nor cut short by fio's random map.
            let jobname = a["jobname"].as_str().unwrap_or("");
            let count_fixed = ![
                "paced-writes",
                "mixed-writes",
                "oltp-mix",
                "range-reads",
                "db",
                "rewrites",
                "settle",
                "steady-bw",
                "qd-probe",
            ]
            .contains(&jobname);
            // fio's steadystate object: the same keys with the same types in both documents.
            for (p, k) in pa.iter().filter(|(p, _)| p.starts_with("steadystate")) {
                if pb.get(p) != Some(k) {
                    problems.push(format!("{name} job {jobname}: {p}: fio {k:?}, flashlab {:?}", pb.get(p)));
                }
            }
            if pb.keys().filter(|p| p.starts_with("steadystate")).count()
                != pa.keys().filter(|p| p.starts_with("steadystate")).count()
            {
                problems.push(format!("{name} job {jobname}: steadystate keys differ from fio's"));
            }
            for d in ["read", "write", "trim"] {
                let (x, y) = (a[d]["total_ios"].as_u64().unwrap_or(0), b[d]["total_ios"].as_u64().unwrap_or(0));
                if count_fixed && (x > 0) != (y > 0) {
                    problems.push(format!("{name} job {jobname}: {d} I/Os fio {x}, flashlab {y}"));
                }
            }
            if count_fixed {
                let total = |j: &Value| -> u64 {
                    ["read", "write", "trim"].iter().map(|d| j[*d]["total_ios"].as_u64().unwrap_or(0)).sum()
                };
                if total(a) != total(b) {
                    problems.push(format!("{name} job {jobname}: total I/Os fio {}, flashlab {}", total(a), total(b)));
                }
            }
        }
        compared += 1;
    }
    assert!(problems.is_empty(), "{} differences from fio:\n  {}", problems.len(), problems.join("\n  "));
    assert!(compared >= 25, "compared only {compared} files with fio");
}

/// fio on one example, killed after two minutes (every example takes well under a second).
/// fio 3.33 can hang on `thinktime_spin`: when the spin overruns the whole `thinktime` (the job
/// was descheduled on a loaded machine), `thinktime - spin` goes negative and is slept as an
/// unsigned number of microseconds (backend.c, `handle_thinktime`). A hang fails the test with
/// that explanation instead of stopping the test run.
fn fio_with_deadline(fio: &Path, f: &Path, dir: &Path, name: &str) -> std::process::Output {
    let mut child = Command::new(fio)
        .arg("--output-format=json")
        .arg(f)
        .envs(ENV)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    // Read the pipes meanwhile, so a large output cannot block fio.
    let (mut so, mut se) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut so, &mut b).map(|_| b).unwrap_or_default()
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut se, &mut b).map(|_| b).unwrap_or_default()
    });
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "fio on {name} did not finish in 120 s; fio 3.33 hangs when a thinktime_spin overruns the whole thinktime (a loaded machine)"
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    std::process::Output { status, stdout: out_t.join().unwrap(), stderr: err_t.join().unwrap() }
}
