//! A sweep resumes: cases already in the directory are not run again (their files are left
//! as they are), a case whose settings changed is, and the table is the same as one run in
//! one go (acceptance 4 of issue 20; the interrupted-process test is in
//! crates/flashlab/tests/sweep_cli.rs).

use flashlab_sweep::{run_sweep, Spec};
use std::path::Path;
use std::time::SystemTime;

fn spec() -> Spec {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text =
        "protocol = \"small-age.toml\"\nprofile = \"toy\"\n[axes]\nfs = [\"plain\", \"ext4\"]\nseed = [1, 2, 3]\n";
    Spec::parse("resume.toml", text, &dir).unwrap()
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn finished_cases_are_not_run_again() {
    let spec = spec();
    let tmp = tempfile::tempdir().unwrap();
    let (whole, part) = (tmp.path().join("whole"), tmp.path().join("part"));
    run_sweep(&spec, &whole, 2, &|_, _| {}).unwrap();

    // Half the cases finished, as if the run had been stopped; a stale temporary file of a
    // case that was being written.
    let mut first = spec.clone();
    first.cases.truncate(3);
    run_sweep(&first, &part, 2, &|_, _| {}).unwrap();
    let cases = part.join("cases");
    std::fs::write(cases.join(".0004.json.flashlab-tmp"), b"{\"half\": ").unwrap();
    std::fs::write(cases.join("0004.json.tmp"), b"{\"half\": ").unwrap();
    let before: Vec<SystemTime> = (0..3).map(|i| mtime(&cases.join(format!("{i:04}.json")))).collect();
    std::thread::sleep(std::time::Duration::from_millis(20));

    let s = run_sweep(&spec, &part, 2, &|_, _| {}).unwrap();
    assert_eq!((s.skipped, s.ran), (3, 3));
    for (i, t) in before.iter().enumerate() {
        assert_eq!(mtime(&cases.join(format!("{i:04}.json"))), *t, "case {i} was run again");
    }
    assert!(!cases.join(".0004.json.flashlab-tmp").exists(), "the stale temporary file is removed");
    assert!(!cases.join("0004.json.tmp").exists(), "an older version's temporary file is removed");
    for f in ["results.csv", "results.parquet", "cases/0000.json", "cases/0005.json"] {
        assert!(std::fs::read(whole.join(f)).unwrap() == std::fs::read(part.join(f)).unwrap(), "{f} differs");
    }

    // Nothing left to do: nothing runs. A changed setting runs that case again.
    let s = run_sweep(&spec, &part, 2, &|_, _| {}).unwrap();
    assert_eq!((s.skipped, s.ran), (6, 0));
    let mut changed = spec.clone();
    changed.cases[1].settings.push(("ftl.spare_factor".into(), flashlab_sweep::Param::Float(0.2)));
    let s = run_sweep(&changed, &part, 2, &|_, _| {}).unwrap();
    assert_eq!((s.skipped, s.ran), (5, 1));
}
