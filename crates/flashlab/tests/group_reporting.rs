//! fio's reporting groups in `flashlab run`'s output: `group_reporting` folds a group's jobs
//! and clones into one entry (text `jobs=N`, one element of fio's JSON `jobs`, one job of the
//! results document), and `new_group` starts a reporting group without a stonewall. The same
//! job file run by fio and by flashlab on a real directory gives the same entries (names,
//! group numbers, I/O counts and bytes); on a simulated target the same entries too.
//!
//! Needs fio on `PATH`; without it the test fails unless `FLASHLAB_TEST_SKIP=fio`.

mod common;
use common::{ok, scratch};
use serde_json::Value;

/// Three clones and a second job folded; a `new_group` job alone; two stonewalled clones
/// folded. Every job's I/O count is fixed by its size.
const JOBS: &str = "[global]\nbs=4k\nsize=256k\ndirect=1\ngroup_reporting\n\
                    [w]\nrw=randwrite\nnumjobs=3\n[r]\nrw=read\n[alone]\nnew_group\nrw=write\nsize=128k\n\
                    [s]\nstonewall\nrw=randread\nnumjobs=2\n";

/// (name, groupid, read ios, write ios, read bytes, write bytes) of each entry of fio's JSON.
fn entries(doc: &Value) -> Vec<(String, u64, u64, u64, u64, u64)> {
    doc["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap_or_else(|| panic!("{d}.{k} in {j}"));
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["groupid"].as_u64().unwrap(),
                n("read", "total_ios"),
                n("write", "total_ios"),
                n("read", "io_bytes"),
                n("write", "io_bytes"),
            )
        })
        .collect()
}

fn want() -> Vec<(String, u64, u64, u64, u64, u64)> {
    let k = 1024;
    vec![
        ("w".into(), 0, 64, 3 * 64, 256 * k, 3 * 256 * k),
        ("alone".into(), 1, 0, 32, 0, 128 * k),
        ("s".into(), 2, 2 * 64, 0, 2 * 256 * k, 0),
    ]
}

#[test]
fn group_reporting_folds_as_fio_does_on_both_targets() {
    let dir = scratch("group-reporting", "sim");
    std::fs::create_dir_all(&dir).unwrap();
    let jobfile = dir.join("groups.fio");
    std::fs::write(&jobfile, JOBS).unwrap();
    let jf = jobfile.to_str().unwrap();

    // The simulated target: text, fio's JSON and the results document agree.
    let text = ok(&["run", "--target", "sim:toy", jf]);
    assert!(text.contains("w: (groupid=0, jobs=4)"), "{text}");
    assert!(text.contains("alone: (groupid=1)"), "{text}");
    assert!(text.contains("s: (groupid=2, jobs=2)"), "{text}");
    let doc = dir.join("sim.json");
    let out = dir.join("sim-doc.json");
    ok(&[
        "run",
        "-q",
        "--target",
        "sim:toy",
        "--output-format",
        "json",
        "--output",
        doc.to_str().unwrap(),
        "--json",
        out.to_str().unwrap(),
        jf,
    ]);
    let sim: Value = serde_json::from_slice(&std::fs::read(&doc).unwrap()).unwrap();
    assert_eq!(entries(&sim), want(), "simulated target");
    let body: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let names: Vec<&str> =
        body["results"]["jobs"].as_array().unwrap().iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["w", "alone", "s"], "the results document reports the same entries");

    // A real directory: flashlab and fio fold the same jobs into the same entries.
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio]) {
        return;
    }
    for (who, doc) in ["flashlab", "fio"].iter().zip(common::fio_and_flashlab_json("group-reporting", &[jf], &[jf])) {
        assert_eq!(entries(&doc), want(), "{who} on a real directory");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
