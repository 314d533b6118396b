//! `flashlab age --check[=N]` and `bench --check[=N]` (issue 45, part 5): the checked run passes
//! and prints the same tables as the unchecked one (checks read the state, change nothing);
//! `--check=0`, a value without `=` and `--check` on a real target are refused with the flag
//! named.

mod common;
use common::{fails, flashlab, ok, scratch};

/// The output without the lines that hold times (virtual time and wall time).
fn tables(out: &str) -> String {
    out.lines().filter(|l| !l.contains("wall time")).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_checked_age_run_passes_with_the_same_tables() {
    let base = ["age", "--target", "sim:toy", "--protocol", "age-small", "--rand-io", "1MiB", "--span", "4MiB"];
    let plain = ok(&base);
    let checked = ok(&[&base[..], &["--check=2000"]].concat());
    assert_eq!(tables(&plain), tables(&checked));
    assert!(checked.contains("after fstrim + idle"), "{checked}");
    // `--check` alone: every 10 000 commands.
    let default = ok(&[&base[..], &["--check", "--fs", "f2fs"]].concat());
    assert!(default.contains("after fstrim + idle"), "{default}");
    let bench = ok(&["bench", "--target", "sim:toy", "--check=500", "--rand-io", "1MiB", "--span", "4MiB"]);
    assert!(bench.contains("MB/s"), "{bench}");
}

#[test]
fn bad_check_values_and_real_targets_are_refused() {
    for (args, want) in [
        (&["age", "--target", "sim:toy", "--check=0"][..], "--check"),
        (&["age", "--target", "sim:toy", "--check=x"][..], "--check"),
    ] {
        let out = flashlab(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(want) && !stderr.contains("panicked"), "{stderr}");
    }
    // A number must be attached with `=`: `--check 5` leaves `5` as a stray argument.
    let out = flashlab(&["age", "--target", "sim:toy", "--check", "5"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = scratch("check", "dir");
    std::fs::create_dir_all(&dir).unwrap();
    fails(&["age", "--target", dir.to_str().unwrap(), "--check"], "--check");
    let help = ok(&["age", "--help"]);
    assert!(help.contains("--check[=<N>]"), "{help}");
}
