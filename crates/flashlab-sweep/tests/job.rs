//! A sweep of an fio job file: each case runs it as `flashlab run` does, and its row has the
//! job's IOPS, bandwidth and p99 completion latency; the documents carry no wall-clock time, so
//! the same sweep writes the same bytes again.

use flashlab_sweep::{run_sweep, Spec};
use std::path::Path;

#[test]
fn job_file_cases_have_their_numbers_and_repeat_exactly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text = "job = \"randwrite.fio\"\nprofile = \"toy\"\n[axes]\n\"host.host_submit_us\" = [5, 50]\nseed = [1, 2]\n";
    let spec = Spec::parse("job.toml", text, &dir).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let s = run_sweep(&spec, &a, 2, &|_, _| {}).unwrap();
    assert_eq!((s.ran, s.failed), (4, 0));
    run_sweep(&spec, &b, 1, &|_, _| {}).unwrap();
    for f in ["results.csv", "results.parquet", "cases/0000.json"] {
        assert!(std::fs::read(a.join(f)).unwrap() == std::fs::read(b.join(f)).unwrap(), "{f} differs");
    }
    let t = flashlab_sweep::table::build(&a, &spec).unwrap();
    let col = |n: &str| t.metrics.iter().position(|m| m == n).unwrap_or_else(|| panic!("no {n} in {:?}", t.metrics));
    let (iops, p99) = (col("randwrite.write_iops"), col("randwrite.write_clat_p99_us"));
    for r in &t.rows {
        assert!(r.metrics[iops].unwrap() > 0.0 && r.metrics[p99].unwrap() > 0.0);
    }
    // 45 us more host software cost per request at QD4 shows in the IOPS.
    assert!(t.rows[0].metrics[iops].unwrap() > t.rows[2].metrics[iops].unwrap(), "host cost made no difference");
}
