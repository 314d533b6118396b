//! Jobs over several files on a real directory (issue 23 acceptance 1, "multiple files"): fio
//! 3.33 and `flashlab run --target DIR` run the same job text, fio logging every I/O with
//! `write_iolog`, flashlab reporting what each file was given (`jobs[].flashlab_files`); the
//! I/Os per file must be
//!
//! * exactly equal where fio's choice of file is deterministic (round robin, sequential,
//!   `openfiles`, `:N` batches, files done after one pass of the random map), and
//! * within 3 % where it is drawn (`random`, `zipf`, `pareto`), or within 4 standard
//!   deviations of the two runs' binomial noise where that is larger (a file drawn 2 % of
//!   50 000 times has a relative s.d. of 3.1 % in each run: no 3 % bound on it is robust).
//!
//! Needs fio (flashlab_testcaps; FLASHLAB_TEST_SKIP=fio skips).

#[path = "common/scratch.rs"]
mod scratch;
use scratch::{json_of, TempDir};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// I/Os per file name from fio's iolog of `job` run in `dir`.
fn fio_counts(dir: &Path, job: &str) -> BTreeMap<String, u64> {
    let fio = flashlab_testcaps::on_path("fio").unwrap();
    let file = dir.join("fio.fio");
    std::fs::write(&file, format!("{job}write_iolog=fio.log\n")).unwrap();
    let out = Command::new(fio).arg("--output-format=json").arg(&file).current_dir(dir).output().unwrap();
    json_of("fio", out);
    let text = std::fs::read_to_string(dir.join("fio.log")).unwrap();
    let mut counts = BTreeMap::new();
    for l in text.lines().skip(1) {
        // iolog v3: "TIME FILE ACTION OFFSET LENGTH".
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() == 5 && (f[2] == "write" || f[2] == "read") {
            let name = Path::new(f[1]).file_name().unwrap().to_string_lossy().to_string();
            *counts.entry(name).or_insert(0) += 1;
        }
    }
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::remove_file(p).unwrap();
        }
    }
    counts
}

/// I/Os per file name that flashlab reports for `job` on the directory `dir/t`.
fn flashlab_counts(dir: &Path, job: &str) -> BTreeMap<String, u64> {
    let file = dir.join("fl.fio");
    std::fs::write(&file, job).unwrap();
    let doc = scratch::flashlab_run_json(&file, dir);
    std::fs::remove_file(&file).unwrap();
    let files = doc["jobs"][0]["flashlab_files"].as_array().unwrap_or_else(|| panic!("no flashlab_files: {doc}"));
    files
        .iter()
        .map(|f| {
            let ios = ["read", "write", "trim"].iter().map(|d| f[*d]["ios"].as_u64().unwrap()).sum();
            (f["name"].as_str().unwrap().to_string(), ios)
        })
        .collect()
}

const EXACT: [(&str, &str); 4] = [
    ("roundrobin, files done by the random map", "rw=randwrite\nbs=4k\nnrfiles=4\nsize=4m\n"),
    ("sequential, two open", "rw=write\nbs=16k\nnrfiles=4\nfilesize=256k\nopenfiles=2\nfile_service_type=sequential\n"),
    (
        "roundrobin:3, norandommap",
        "rw=randread\nbs=4k\nnrfiles=3\nsize=3m\nnorandommap\nfile_service_type=roundrobin:3\nnumber_ios=3000\n",
    ),
    ("size smaller than the files", "rw=write\nbs=4k\nnrfiles=3\nfilesize=64k\nsize=100k\n"),
];

const DRAWN: [(&str, &str); 3] = [
    ("random", "rw=randread\nbs=4k\nnrfiles=4\nsize=4m\nnorandommap\nfile_service_type=random\nio_size=200m\n"),
    ("zipf:1.2", "rw=randread\nbs=4k\nnrfiles=8\nfilesize=256k\nfile_service_type=zipf:1.2:0\nio_size=200m\n"),
    ("pareto:0.3", "rw=randread\nbs=4k\nnrfiles=8\nfilesize=256k\nfile_service_type=pareto:0.3:0\nio_size=200m\n"),
];

#[test]
fn flashlab_gives_each_file_the_ios_fio_gives_it() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let dir = TempDir::new("files-fio");
    let mut problems = Vec::new();
    for (what, body) in EXACT {
        let job = format!("[j]\nioengine=psync\n{body}");
        let (fio, ours) = (fio_counts(&dir.0, &job), flashlab_counts(&dir.0, &job));
        eprintln!("files_fio {what}: fio {fio:?}, flashlab {ours:?}");
        if fio != ours {
            problems.push(format!("{what}: fio {fio:?}, flashlab {ours:?}"));
        }
    }
    for (what, body) in DRAWN {
        let job = format!("[j]\nioengine=psync\n{body}");
        let (fio, ours) = (fio_counts(&dir.0, &job), flashlab_counts(&dir.0, &job));
        eprintln!("files_fio {what}: fio {fio:?}, flashlab {ours:?}");
        let (nf, no) = (fio.values().sum::<u64>() as f64, ours.values().sum::<u64>() as f64);
        if nf != no || fio.keys().ne(ours.keys()) {
            problems.push(format!("{what}: files or totals differ: fio {fio:?}, flashlab {ours:?}"));
            continue;
        }
        for (name, &a) in &fio {
            let b = ours[name];
            let p = (a + b) as f64 / (nf + no);
            let sd = (2.0 * nf * p * (1.0 - p)).sqrt();
            let bound = (0.03 * a.max(b) as f64).max(4.0 * sd);
            if (a as f64 - b as f64).abs() > bound {
                problems.push(format!("{what}: {name}: fio {a}, flashlab {b} (bound {bound:.0})"));
            }
        }
    }
    assert!(problems.is_empty(), "per-file I/Os differ from fio:\n  {}", problems.join("\n  "));
}
