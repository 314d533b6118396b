//! Acceptance (issue 19, item 1): every subcommand writes the results document with `--json -`
//! (standard output holds the JSON alone) and with `--json FILE`, and both validate against the
//! published schema, docs/schema/results.schema.json. Small settings keep it fast: sim:toy,
//! few writes; real-target commands run on directories under a scratch directory. With `--json
//! FILE` standard output is the command's text, and every table of the document fits 80 columns.
//! Capability-dependent ones (serve: FUSE; validate-fs: root, loop devices, mkfs.ext4) use
//! flashlab-testcaps: a missing capability fails unless FLASHLAB_TEST_SKIP names it.

mod common;

use common::phone::{doctor_fixture, Phone};
use common::scratch;
use flashlab_testcaps::{require, Cap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn schema() -> jsonschema::JSONSchema {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/results.schema.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    jsonschema::JSONSchema::compile(&v).expect("the published schema compiles")
}

fn validate(what: &str, text: &str, command: &str) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: not JSON alone ({e}):\n{text}"));
    let s = schema();
    if let Err(errors) = s.validate(&v) {
        let list: Vec<String> = errors.map(|e| format!("{} at {}", e, e.instance_path)).collect();
        panic!("{what}: does not validate against the published schema:\n{}", list.join("\n"));
    }
    assert_eq!(v["command"], command, "{what}");
    assert_eq!(v["schema_version"], 1, "{what}");
    // The typed reader reads it back, and each of its tables fits a terminal of 80 columns
    // (the tables the command printed are drawn from this document by the same renderer).
    let doc: flashlab_results::Document =
        serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{what}: the typed reader: {e}"));
    for t in doc.tables() {
        let text = flashlab_results::export::terminal(&t);
        for l in text.lines() {
            assert!(
                l.chars().count() <= 80,
                "{what}: table '{}' has a line of {} columns:\n{text}",
                t.title,
                l.chars().count()
            );
        }
    }
    v
}

fn run(mut c: Command, what: &str) -> Output {
    let o = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(o.status.success(), "{what} failed:\n{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// `args` with `--json -` and with `--json FILE`: both documents validate; with a file,
/// standard output is the command's text, not JSON.
fn both(command: &str, args: &[&str], make: &dyn Fn(&[&str]) -> Command) -> serde_json::Value {
    let mut a = args.to_vec();
    a.extend(["--json", "-"]);
    let o = run(make(&a), &format!("flashlab {a:?}"));
    let from_stdout = validate(&format!("flashlab {a:?}"), &String::from_utf8_lossy(&o.stdout), command);
    let file = scratch("every", &format!("{}.json", command.replace(' ', "-")));
    let mut a = args.to_vec();
    a.extend(["--json", file.to_str().unwrap()]);
    let o = run(make(&a), &format!("flashlab {a:?}"));
    let text = std::fs::read_to_string(&file).unwrap();
    validate(&format!("flashlab {a:?} (the file)"), &text, command);
    assert!(serde_json::from_slice::<serde_json::Value>(&o.stdout).is_err(), "with --json FILE stdout is text");
    from_stdout
}

fn plain(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flashlab"));
    c.args(args).env_remove("FLASHLAB_PROGRESS");
    c
}

struct Dir(PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn jobfile() -> PathBuf {
    let job = scratch("every", "small.fio");
    std::fs::write(&job, "[global]\nbs=4k\nsize=4m\n\n[randwrite]\nrw=randwrite\niodepth=4\n").unwrap();
    job
}

#[test]
fn simulated_commands() {
    let toy = ["--target", "sim:toy"];
    let v = both("age", &[&["age", "--protocol", "age-small"][..], &toy].concat(), &plain);
    assert_eq!(v["results"]["steps"].as_array().unwrap().len(), 6);
    let v = both("bench", &[&["bench"][..], &toy].concat(), &plain);
    assert_eq!(v["results"]["protocol"], "four-corner");
    both("fill", &[&["fill"][..], &toy].concat(), &plain);
    both("wsat", &[&["wsat", "--times", "0.2", "--intervals", "5"][..], &toy].concat(), &plain);
    let job = jobfile();
    let v = both("run", &[&["run", job.to_str().unwrap()][..], &toy].concat(), &plain);
    assert_eq!(v["results"]["jobs"][0]["name"], "randwrite");
    both("profiles", &["profiles"], &plain);
    both("sim waf", &["sim", "waf", "--blocks", "256", "--pages-per-block", "32", "--passes", "2"], &plain);
    let v = both(
        "sim placement",
        &["sim", "placement", "--family", "hotcold", "--pages-per-block", "8", "--passes", "1", "--live", "0.5"],
        &plain,
    );
    assert_eq!(v["results"]["rows"].as_array().unwrap().len(), 3);
    both("calibrate", &["calibrate", "sd-card", "--no-loo"], &plain);
    both(
        "breakdown",
        &[&["breakdown", "--ios", "200", "--iodepth", "1", "--rw", "randwrite"][..], &toy].concat(),
        &plain,
    );
    both("sqlite", &[&["sqlite", "--transactions", "5", "--modes", "wal"][..], &toy].concat(), &plain);
    both(
        "life",
        &[&["life", "--usage", "light-phone", "--scale", "0.016", "--duration", "5d"][..], &toy].concat(),
        &plain,
    );
}

#[test]
fn files_doctor_report_and_sweep() {
    let fixture = doctor_fixture("ubuntu-sbc-emmc");
    both("doctor", &["doctor", "--root", fixture.to_str().unwrap()], &plain);
    both("doctor", &["doctor"], &plain);
    // report: a results file in, an HTML page out.
    let bench = scratch("every", "for-report.json");
    run(plain(&["bench", "--target", "sim:toy", "-q", "--json", bench.to_str().unwrap()]), "bench");
    let html = scratch("every", "r.html");
    both("report", &["report", bench.to_str().unwrap(), "-o", html.to_str().unwrap()], &plain);
    let root = Dir(scratch("every-sweep", ""));
    let spec = root.0.join("s.toml");
    std::fs::write(&spec, "protocol = \"four-corner\"\nprofile = \"toy\"\n[axes]\nseed = [1, 2]\n").unwrap();
    let v = both(
        "sweep",
        &["sweep", spec.to_str().unwrap(), "--out", root.0.join("out").to_str().unwrap(), "-j", "1"],
        &plain,
    );
    assert_eq!(v["results"]["cases"], 2);
}

#[test]
fn real_targets() {
    let root = Dir(scratch("every-real", "dir"));
    std::fs::create_dir_all(&root.0).unwrap();
    let d = root.0.to_str().unwrap();
    let io = ["--ioengine", "psync", "--buffered"];
    both("bench", &[&["bench", "--target", d, "--span", "4MiB", "--rand-io", "256KiB"][..], &io].concat(), &plain);
    let job = jobfile();
    both("run", &[&["run", job.to_str().unwrap(), "--target", d][..], &io].concat(), &plain);
    both("sqlite", &["sqlite", "--target", d, "--transactions", "5", "--modes", "wal", "--baseline", "0"], &plain);
    assert_eq!(std::fs::read_dir(&root.0).unwrap().count(), 0, "flashlab left files in the target");
}

#[test]
fn phone_commands() {
    let ph = Phone::new("every", "List of devices attached\n0A1B2C3D\tdevice\n");
    let remote = ph.remote_dir();
    let make = |a: &[&str]| ph.command(a);
    let v = both("phone", &["phone", "devices"], &make);
    assert_eq!(v["results"]["devices"][0]["serial"], "0A1B2C3D");
    let bin = env!("CARGO_BIN_EXE_flashlab");
    let v = both(
        "phone",
        &["phone", "bench", "--binary", bin, "--remote-dir", &remote, "--span", "8MiB", "--rand-io", "1MiB"],
        &make,
    );
    assert_eq!(v["results"]["results"]["command"], "bench");
    let r = ph.dir.join("doctor-remote").display().to_string();
    let v = both("phone", &["phone", "doctor", "--remote-dir", &r], &make);
    assert_eq!(v["results"]["results"]["command"], "doctor");
}

#[test]
fn validate_fs_on_the_kernel() {
    if !require(&[Cap::Root, Cap::Loop, Cap::Tool("mkfs.ext4")]) {
        return;
    }
    both("validate-fs", &["validate-fs", "--workload", "randwrite-fsync", "--writes", "50", "--size", "64M"], &plain);
}

/// serve runs until a signal; its document is written when it stops.
#[test]
fn serve_writes_its_document_when_stopped() {
    if !require(&[Cap::Fuse]) {
        return;
    }
    let serve = |json: &str, dir: &Path| -> Output {
        std::fs::create_dir_all(dir).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_flashlab"))
            .args(["serve", "--target", "sim:toy", "--json", json])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let t0 = std::time::Instant::now();
        while !dir.join("device").exists() {
            assert!(t0.elapsed().as_secs() < 30, "serve did not come up");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        // SAFETY: kill with a pid this test spawned.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(128 + libc::SIGTERM), "{}", String::from_utf8_lossy(&o.stderr));
        o
    };
    let root = Dir(scratch("every-serve", ""));
    let o = serve("-", &root.0.join("m1"));
    validate("serve --json -", &String::from_utf8_lossy(&o.stdout), "serve");
    let file = root.0.join("serve.json");
    serve(file.to_str().unwrap(), &root.0.join("m2"));
    validate("serve --json FILE", &std::fs::read_to_string(&file).unwrap(), "serve");
}

/// Every subcommand that produces results (all but `completions` and `man`, whose output is a
/// script or a manual page) takes the same output options, and every `--target` defaults to
/// the same simulated device (`run`'s defaults to the job file's own files, else that device).
#[test]
fn every_command_has_the_output_options_and_one_default_target() {
    let commands: [&[&str]; 23] = [
        &["age"],
        &["bench"],
        &["fill"],
        &["wsat"],
        &["run"],
        &["profiles"],
        &["sim", "waf"],
        &["sim", "placement"],
        &["report"],
        &["doctor"],
        &["calibrate"],
        &["breakdown"],
        &["sqlite"],
        &["serve"],
        &["life"],
        &["sweep"],
        &["validate-fs"],
        &["phone", "devices"],
        &["phone", "doctor"],
        &["phone", "bench"],
        &["phone", "fill"],
        &["phone", "age"],
        &["phone", "run"],
    ];
    for c in commands {
        let o = run(plain(&[c, &["--help"][..]].concat()), &format!("flashlab {c:?} --help"));
        let help = String::from_utf8_lossy(&o.stdout);
        for flag in ["--json <FILE>", "--csv <FILE>", "--report <FILE.html>", "--quiet"] {
            assert!(help.contains(flag), "flashlab {c:?} --help lacks {flag}:\n{help}");
        }
        // The --target entry: its line and the lines up to the next option.
        let mut lines = help.lines().skip_while(|l| !l.trim_start().starts_with("--target <"));
        if let Some(first) = lines.next() {
            let rest: Vec<&str> = lines.take_while(|l| !l.trim_start().starts_with('-')).collect();
            let entry = format!("{first}\n{}", rest.join("\n"));
            assert!(
                entry.contains("[default: sim:nexus7-2012]") || c == ["run"],
                "flashlab {c:?}: --target has another default:\n{entry}"
            );
        }
    }
}

/// An option that does not apply to what the command was asked to do is an error naming it,
/// on one line, before any work: never silently ignored (issue 19, item 1).
#[test]
fn options_that_do_not_apply_are_errors() {
    let root = Dir(scratch("every-applies", ""));
    std::fs::create_dir_all(root.0.join("dir")).unwrap();
    let dir = root.0.join("dir");
    let d = dir.to_str().unwrap();
    let job = jobfile();
    let j = job.to_str().unwrap();
    let out = root.0.join("out.json");
    let o = out.to_str().unwrap();
    let toy = "sim:toy";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // Real-target options on a simulated device, simulated-system options on a real one.
        (vec!["bench", "--target", toy, "--idle", "1m"], "--idle"),
        (vec!["bench", "--target", toy, "--zero-buffers"], "--zero-buffers"),
        (vec!["age", "--target", d, "--fs", "ext4"], "--fs"),
        (vec!["run", j, "--target", toy, "--buffered"], "--buffered"),
        (vec!["run", j, "--target", d, "--precondition", "used"], "--precondition"),
        (vec!["sqlite", "--target", d, "--discard"], "--discard"),
        (vec!["sqlite", "--target", toy, "--baseline", "0"], "--baseline"),
        (vec!["breakdown", "--target", toy, "--destroy-data"], "--destroy-data"),
        (vec!["breakdown", "--target", toy, "--ioengine", "psync"], "--ioengine"),
        (vec!["breakdown", "--target", toy, "--cpu-scale", "2"], "--cpu-scale"),
        // Options of another mode of the same command.
        (vec!["run", j, "--target", toy, "--output", o], "--output"),
        (vec!["sweep", "s.toml", "--out", d, "--python", "python3"], "--python"),
        (vec!["calibrate", "sd-card", "--all"], "--all"),
        (vec!["serve", "--overwrite-backing", d], "--overwrite-backing"),
        (vec!["fill", "--target", toy, "--procedure", "fill", "--test-size", "1MiB"], "--test-size"),
        (vec!["fill", "--target", toy, "--gap", "1d"], "--gap"),
        (vec!["life", "--target", toy, "--trace-format", "msr"], "--trace-format"),
        (vec!["life", "--target", toy, "--compress-time"], "--compress-time"),
        (vec!["life", "--target", toy, "--trace", j, "--scale", "0.5"], "--scale"),
        (vec!["life", "--target", toy, "--trace", j, "--usage", "logger"], "--usage"),
        (vec!["life", "--target", toy, "--usage", "uniform-4k", "--duration", "5d"], "--duration"),
        (vec!["life", "--target", toy, "--usage", "uniform-4k", "--policy", "discard"], "--policy"),
        (vec!["life", "--target", toy, "--drive-writes", "2"], "--drive-writes"),
        (vec!["validate-fs", "--workload", "fill", "--writes", "50"], "--writes"),
        (vec!["validate-fs", "--workload", "randwrite-fsync", "--transactions", "5"], "--transactions"),
        // Outputs the results do not have.
        (vec!["doctor", "--csv", o], "--csv"),
        (vec!["sweep", "s.toml", "--out", d, "--report", "r.html"], "--report"),
    ];
    for (args, flag) in cases {
        let o = plain(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "flashlab {args:?} should fail naming {flag}:\n{err}");
        let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("note: ")).collect();
        assert!(
            lines.len() == 1 && lines[0].starts_with("flashlab: error: ") && lines[0].contains(flag),
            "flashlab {args:?}: one line naming {flag} expected:\n{err}"
        );
    }
    assert!(!out.exists(), "a refused command wrote its output");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "a refused command left files in the target");
}
