//! fio JSON compatibility (issue 3, acceptance 4): the same small job file is run by real
//! fio on a file in a temporary directory and by `flashlab run --target sim:toy`, and every
//! key path flashlab promises ([`flashlab_measure::fio_json_keypaths`]) must exist in both
//! documents, job by job, with the same JSON type. A few of flashlab's numbers are also
//! checked for sanity, and the numbers that must agree with fio's (bytes and I/O counts
//! the job file fixes) are compared.
//!
//! Needs fio on `PATH` (Debian: `apt-get install fio`). Written and checked against
//! fio-3.33 (Debian 12 package 3.33-3). Without fio the test fails, unless
//! `FLASHLAB_TEST_SKIP=fio` (or the older `FLASHLAB_SKIP_FIO=1`) is set, in which case it says
//! it was skipped and passes (flashlab_testcaps, docs/testing.md).

use flashlab_measure::{fio_json_keypaths, json_key_paths, JsonKind, Presence};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

const BS: u64 = 4096;
const SIZE: u64 = 8 * 1024 * 1024;

/// The jobs of the job file, in order, with the one direction each does I/O in.
const JOBS: [(&str, &str); 2] = [("randwrite", "write"), ("read", "read")];
const DIRS: [&str; 3] = ["read", "write", "trim"];

/// A temporary directory removed on drop (also when an assertion fails).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("flashlab-fio-compat-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn job_file(dir: &Path) -> String {
    format!(
        "; flashlab fio_compat test: written by crates/flashlab/tests/fio_compat.rs\n\
         [global]\n\
         bs=4k\n\
         size=8m\n\
         ioengine=psync\n\
         direct=0\n\
         directory={}\n\
         \n\
         [randwrite]\n\
         rw=randwrite\n\
         \n\
         [read]\n\
         stonewall\n\
         rw=read\n",
        dir.display()
    )
}

/// Parse the first JSON document in `out`, skipping anything printed before its `{`
/// (some fio versions print notices first) and ignoring anything after it.
fn parse_json(who: &str, out: &[u8]) -> Value {
    let text = String::from_utf8_lossy(out);
    let start = text.find('{').unwrap_or_else(|| panic!("{who} printed no JSON object:\n{text}"));
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => panic!("{who}'s JSON does not parse: {e}\n{text}"),
        None => panic!("{who} printed no JSON:\n{text}"),
    }
}

fn run(who: &str, cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {who} ({cmd:?}): {e}"));
    assert!(
        out.status.success(),
        "{who} failed ({}): {cmd:?}\nstderr:\n{}\nstdout:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    parse_json(who, &out.stdout)
}

fn files_in(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

fn jobs<'a>(who: &str, doc: &'a Value) -> &'a [Value] {
    doc["jobs"].as_array().unwrap_or_else(|| panic!("{who}: no jobs array"))
}

fn u64_at(job: &Value, dir: &str, key: &str) -> u64 {
    job[dir][key].as_u64().unwrap_or_else(|| panic!("{}.{dir}.{key} is not an integer", job["jobname"]))
}

#[test]
fn fio_and_flashlab_json_have_the_promised_key_paths_with_the_same_types() {
    // Without fio this fails, unless FLASHLAB_TEST_SKIP=fio (or FLASHLAB_SKIP_FIO=1) asks to skip.
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let fio = flashlab_testcaps::on_path("fio").unwrap();

    let tmp = TempDir::new();
    let jobfile = tmp.0.join("compat.fio");
    std::fs::write(&jobfile, job_file(&tmp.0)).unwrap();

    let fio_doc = run("fio", Command::new(&fio).arg("--output-format=json").arg(&jobfile).current_dir(&tmp.0));
    let before = files_in(&tmp.0);
    let fl_doc = run(
        "flashlab",
        Command::new(env!("CARGO_BIN_EXE_flashlab"))
            .arg("run")
            .arg(&jobfile)
            .args(["--target", "sim:toy", "--output-format", "json"])
            .current_dir(&tmp.0),
    );
    // A simulated target must not touch the directory the job file names.
    assert_eq!(files_in(&tmp.0), before, "flashlab with --target sim:toy changed {}", tmp.0.display());
    eprintln!(
        "fio_compat: compared {:?} ({}) with flashlab ({:?})",
        fio_doc["fio version"],
        fio.display(),
        fl_doc["fio version"]
    );

    let fio_jobs = jobs("fio", &fio_doc);
    let fl_jobs = jobs("flashlab", &fl_doc);
    let names =
        |js: &[Value]| -> Vec<String> { js.iter().map(|j| j["jobname"].as_str().unwrap_or("?").to_string()).collect() };
    let want: Vec<String> = JOBS.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(names(fio_jobs), want, "fio's jobs");
    assert_eq!(names(fl_jobs), want, "flashlab's jobs");

    // 1. Promised key paths: present in both, same JSON type.
    let mut mismatches = Vec::new();
    let fio_top = json_key_paths(&fio_doc);
    let fl_top = json_key_paths(&fl_doc);
    let fio_per_job: Vec<BTreeMap<String, JsonKind>> = fio_jobs.iter().map(json_key_paths).collect();
    let fl_per_job: Vec<BTreeMap<String, JsonKind>> = fl_jobs.iter().map(json_key_paths).collect();
    let promised = fio_json_keypaths();
    assert!(!promised.is_empty());
    let mut checked = 0usize;
    for kp in &promised {
        let Some(rel) = kp.path.strip_prefix("jobs[].") else {
            // Document-level path ("fio version", "jobs", "jobs[]", ...).
            let (f, l) = (fio_top.get(&kp.path), fl_top.get(&kp.path));
            if f != Some(&kp.kind) || l != Some(&kp.kind) {
                mismatches.push(format!("{}: promised {:?}, fio has {f:?}, flashlab has {l:?}", kp.path, kp.kind));
            }
            checked += 1;
            continue;
        };
        for (i, (job, io_dir)) in JOBS.iter().enumerate() {
            let applies = match kp.presence {
                Presence::Always => true,
                Presence::WithIo => {
                    let dir = rel.split('.').next().unwrap_or("");
                    assert!(DIRS.contains(&dir), "WithIo path {} names no direction", kp.path);
                    dir == *io_dir
                }
            };
            let (f, l) = (fio_per_job[i].get(rel), fl_per_job[i].get(rel));
            if applies {
                if f != Some(&kp.kind) || l != Some(&kp.kind) {
                    mismatches
                        .push(format!("job {job}: {rel}: promised {:?}, fio has {f:?}, flashlab has {l:?}", kp.kind));
                }
            } else if f.is_some() != l.is_some() {
                // Not promised here (the direction did no I/O), but fio and flashlab
                // should still agree on whether it is printed.
                mismatches
                    .push(format!("job {job}: {rel} (no I/O in this direction): fio has {f:?}, flashlab has {l:?}"));
            }
            checked += 1;
        }
    }

    // 2. Beyond the promise: any path both print must have the same type in both.
    for (i, (job, _)) in JOBS.iter().enumerate() {
        for (path, fk) in &fio_per_job[i] {
            if let Some(lk) = fl_per_job[i].get(path) {
                if lk != fk {
                    mismatches.push(format!("job {job}: {path} (not promised): fio has {fk:?}, flashlab has {lk:?}"));
                }
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} fio JSON incompatibilities (fio {:?} vs flashlab {:?}):\n  {}",
        mismatches.len(),
        fio_doc["fio version"],
        fl_doc["fio version"],
        mismatches.join("\n  ")
    );
    assert!(checked >= promised.len(), "checked {checked} key paths");

    // 3. Numbers the job file fixes: the same in fio's and flashlab's output.
    for (i, (job, io_dir)) in JOBS.iter().enumerate() {
        let (fj, lj) = (&fio_jobs[i], &fl_jobs[i]);
        assert_eq!(fj["groupid"], lj["groupid"], "{job}: groupid");
        assert_eq!(lj["error"], 0, "{job}: flashlab error");
        for dir in DIRS {
            let (bytes, ios) = if dir == *io_dir { (SIZE, SIZE / BS) } else { (0, 0) };
            for (who, j) in [("fio", fj), ("flashlab", lj)] {
                assert_eq!(u64_at(j, dir, "io_bytes"), bytes, "{who} {job}.{dir}.io_bytes");
                assert_eq!(u64_at(j, dir, "io_kbytes"), bytes / 1024, "{who} {job}.{dir}.io_kbytes");
                assert_eq!(u64_at(j, dir, "total_ios"), ios, "{who} {job}.{dir}.total_ios");
            }
        }
    }

    // 4. flashlab's numbers are sane.
    for (job, io_dir) in JOBS {
        let j = fl_jobs.iter().find(|j| j["jobname"] == job).unwrap();
        let d = &j[io_dir];
        let ctx = format!("flashlab {job}.{io_dir}");
        let iops = d["iops"].as_f64().unwrap();
        assert!(iops > 0.0, "{ctx}.iops = {iops}");
        let io_bytes = u64_at(j, io_dir, "io_bytes");
        let bw_bytes = u64_at(j, io_dir, "bw_bytes");
        let runtime_ms = u64_at(j, io_dir, "runtime");
        assert!(bw_bytes > 0, "{ctx}.bw_bytes = 0");
        // bw_bytes = io_bytes·1000/runtime, up to the truncation of runtime to whole ms.
        // (A sub-millisecond run prints runtime 0: no upper bound then.)
        let hi = (io_bytes * 1000).checked_div(runtime_ms).map_or(u64::MAX, |b| b + 1);
        let lo = io_bytes * 1000 / (runtime_ms + 1);
        assert!(
            (lo..=hi).contains(&bw_bytes),
            "{ctx}.bw_bytes = {bw_bytes}, io_bytes {io_bytes} over {runtime_ms} ms gives {lo}..={hi}"
        );
        assert_eq!(u64_at(j, io_dir, "bw"), bw_bytes / 1024, "{ctx}.bw (KiB/s)");
        // iops·bs = bw_bytes (all I/Os are bs bytes).
        let from_iops = iops * BS as f64;
        assert!(
            (from_iops - bw_bytes as f64).abs() <= 1.0 + bw_bytes as f64 * 1e-9,
            "{ctx}: iops {iops} × {BS} = {from_iops}, bw_bytes {bw_bytes}"
        );
        let ios = u64_at(j, io_dir, "total_ios");
        for lat in ["clat_ns", "lat_ns"] {
            assert_eq!(d[lat]["N"].as_u64(), Some(ios), "{ctx}.{lat}.N");
            let (min, max) = (d[lat]["min"].as_u64().unwrap(), d[lat]["max"].as_u64().unwrap());
            let mean = d[lat]["mean"].as_f64().unwrap();
            assert!(
                0 < min && min as f64 <= mean && mean <= max as f64,
                "{ctx}.{lat}: min {min} mean {mean} max {max}"
            );
        }
        let pct = d["clat_ns"]["percentile"].as_object().unwrap_or_else(|| panic!("{ctx}.clat_ns.percentile missing"));
        let mut pv: Vec<(f64, u64)> = pct
            .iter()
            .map(|(k, v)| {
                (
                    k.parse::<f64>().unwrap_or_else(|_| panic!("{ctx}: percentile key {k:?}")),
                    v.as_u64().unwrap_or_else(|| panic!("{ctx}: percentile {k} = {v}")),
                )
            })
            .collect();
        pv.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!(pv.first().is_some_and(|p| p.1 > 0), "{ctx}: percentiles {pv:?}");
        assert!(pv.windows(2).all(|w| w[0].1 <= w[1].1), "{ctx}: percentiles decrease: {pv:?}");
        // Other directions did nothing.
        for dir in DIRS.iter().filter(|d| **d != io_dir) {
            assert_eq!(j[*dir]["iops"].as_f64(), Some(0.0), "flashlab {job}.{dir}.iops");
            assert_eq!(u64_at(j, dir, "bw_bytes"), 0, "flashlab {job}.{dir}.bw_bytes");
        }
    }
}
