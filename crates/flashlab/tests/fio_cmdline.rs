//! `flashlab run -- FIO OPTIONS`: fio's command-line form of a job file. The options give the
//! same run as the job file they stand for (simulated target, byte-identical jobs in fio's
//! JSON), and fio run with the same options on a real directory issues the same I/Os
//! (names, counts and bytes per direction). Bad options are errors naming their position.
//!
//! Needs fio on `PATH`; without it the test fails unless `FLASHLAB_TEST_SKIP=fio`.

mod common;
use common::{fails, flashlab, scratch};
use serde_json::Value;

const OPTIONS: [&str; 11] = [
    "--bs=4k",
    "--size=512k",
    "-direct=1",
    "--name=seq",
    "--rw=write",
    "--name=mix",
    "--rw=randwrite",
    "--number_ios=100",
    "--name=back",
    "--stonewall",
    "--rw=read",
];

const JOBFILE: &str = "[global]\nbs=4k\nsize=512k\ndirect=1\n[seq]\nrw=write\n[mix]\nrw=randwrite\n\
                       number_ios=100\n[back]\nstonewall\nrw=read\n";

fn json_of(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// (name, read ios, write ios, read bytes, write bytes) per job.
fn counts(doc: &Value) -> Vec<(String, u64, u64, u64, u64)> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
            (
                j["jobname"].as_str().unwrap().into(),
                n("read", "total_ios"),
                n("write", "total_ios"),
                n("read", "io_bytes"),
                n("write", "io_bytes"),
            )
        })
        .collect()
}

#[test]
fn fio_options_run_as_their_job_file_and_as_fio_runs_them() {
    let dir = scratch("fio-cmdline", "sim");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("same.fio");
    std::fs::write(&file, JOBFILE).unwrap();
    let (a, b) = (dir.join("options.json"), dir.join("file.json"));
    let run = |out: &std::path::Path, tail: &[&str]| {
        let mut args =
            vec!["run", "-q", "--target", "sim:toy", "--output-format", "json", "--output", out.to_str().unwrap()];
        args.extend_from_slice(tail);
        let o = flashlab(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&a, &[&["--"][..], &OPTIONS[..]].concat());
    run(&b, &[file.to_str().unwrap()]);
    let (a, b) = (json_of(&a), json_of(&b));
    assert_eq!(a["jobs"], b["jobs"], "options after -- run exactly as the job file");
    assert_eq!(counts(&a).len(), 3);

    // Errors name the option by its position.
    fails(&["run", "--target", "sim:toy", "--", "--name=a", "--bs=lots"], "fio options:2");
    fails(&["run", "--target", "sim:toy", "--", "--name=a", "--bs", "4k"], "--option=value");
    // Options before a job file are its defaults, as in `fio --bs=16k job.fio` (the file sets
    // no bs): its jobs run with 16 KiB blocks; a job named on the command line runs first.
    let plain = dir.join("plain.fio");
    std::fs::write(&plain, "[a]\nrw=write\nsize=512k\n[b]\nrw=read\nsize=256k\n").unwrap();
    let c = dir.join("cli-defaults.json");
    run(&c, &[plain.to_str().unwrap(), "--", "--bs=16k", "--name=first", "--rw=write", "--size=64k"]);
    let k = 1024;
    assert_eq!(
        counts(&json_of(&c)),
        vec![
            ("first".to_string(), 0, 4, 0, 64 * k),
            ("a".to_string(), 0, 32, 0, 512 * k),
            ("b".to_string(), 16, 0, 256 * k, 0)
        ]
    );
    // fio and flashlab, same options, on a real directory: the same I/Os.
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let [ours, theirs] = common::fio_and_flashlab_json("fio-cmdline", &[&["--"][..], &OPTIONS[..]].concat(), &OPTIONS);
    let seen = [counts(&ours), counts(&theirs)];
    assert_eq!(seen[0], seen[1], "flashlab (left) and fio (right) on the same options");
    let _ = std::fs::remove_dir_all(&dir);
}

/// fio's `--section`: only the named sections of the job file run, with every `[global]`; a
/// left-out section's lines are not read (here one that fio and flashlab would both refuse).
/// `flashlab run FILE --section NAME` and `-- --section=NAME` are the same; fio on the same
/// file and sections runs the same jobs with the same I/Os.
#[test]
fn section_runs_only_the_named_sections_as_fio_does() {
    let dir = scratch("fio-section", "files");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("sections.fio");
    std::fs::write(
        &job,
        "[global]\nbs=4k\nsize=256k\n[a]\nrw=write\n[broken]\nrw=${FLASHLAB_NO_SUCH_VARIABLE}\nno_such_option=1\n\
         [global]\ndirect=1\n[c]\nrw=read\n",
    )
    .unwrap();
    let job = job.to_str().unwrap();
    // A section that is not in the file: no jobs, said as such.
    fails(
        &["run", job, "--section", "nope", "--target", "sim:toy"],
        "--section named no job section of the file (nope)",
    );
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let names = |v: &Value| -> Vec<String> {
        v["jobs"].as_array().unwrap().iter().map(|j| j["jobname"].as_str().unwrap().to_string()).collect()
    };
    let both = common::fio_and_flashlab_json(
        "fio-section",
        &[job, "--section", "a", "--section", "c"],
        &["--section=a", "--section=c", job],
    );
    assert_eq!(names(&both[0]), ["a", "c"]);
    assert_eq!(counts(&both[0]), counts(&both[1]), "flashlab (left) and fio (right) with --section a, c");
    let fio_form = common::fio_and_flashlab_json("fio-section-2", &[job, "--", "--section=c"], &["--section=c", job]);
    assert_eq!(names(&fio_form[0]), ["c"]);
    assert_eq!(counts(&fio_form[0]), counts(&fio_form[1]));
    let _ = std::fs::remove_dir_all(&dir);
}
