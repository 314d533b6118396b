//! fio's file switching (`nrfiles`, `openfiles`, `file_service_type`) against fio 3.33 itself:
//! fio writes every I/O of a multi-file job to an iolog (`write_iolog`), and the order of
//! files in it must be the order `FileSelector` gives for the same options, where fio's
//! choice is deterministic (round robin, sequential, and `random:N` whose batches cover
//! whole files); for `random` the shares and run lengths are compared. Needs fio
//! (flashlab_testcaps: a missing fio fails unless FLASHLAB_TEST_SKIP names it).

use flashlab_jobs::files::{split_size, visit_order, FileService};
use rand_core::SeedableRng;
use std::process::Command;

/// The file index of every write fio did, from its iolog.
fn fio_pattern(dir: &std::path::Path, nrfiles: u32, size: &str, svc: &str, openfiles: u32) -> Vec<usize> {
    let fio = flashlab_testcaps::on_path("fio").unwrap();
    let log = dir.join(format!("iolog-{}-{openfiles}", svc.replace(':', "_")));
    let mut cmd = Command::new(fio);
    cmd.current_dir(dir).args([
        "--name=j",
        &format!("--nrfiles={nrfiles}"),
        &format!("--size={size}"),
        "--bs=4k",
        "--rw=write",
        "--ioengine=psync",
        &format!("--file_service_type={svc}"),
        &format!("--write_iolog={}", log.display()),
    ]);
    if openfiles > 0 {
        cmd.arg(format!("--openfiles={openfiles}"));
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "fio: {}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&log).unwrap();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // iolog v3: "time file action offset length"
            (f.len() == 5 && f[2] == "write").then(|| f[1].rsplit('.').next().unwrap().parse().unwrap())
        })
        .collect()
}

/// The files flashlab's selector chooses when every file takes `ios` I/Os (the driver the
/// unit tests use too).
fn our_pattern(nrfiles: u32, ios: &[u64], svc: &str, openfiles: u32, seed: u64) -> Vec<usize> {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    visit_order(nrfiles, openfiles, &FileService::parse(svc).unwrap(), ios, &mut rng)
}

#[test]
fn file_switching_matches_fio() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flashlab-fileservice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 4 files, 128 KiB split as fio does: 32 KiB = 8 writes of 4 KiB each.
    let ios: Vec<u64> = split_size(128 << 10, 4, 4096).iter().map(|b| b / 4096).collect();
    assert_eq!(ios, vec![8; 4]);
    let mut checked = Vec::new();
    for svc in ["roundrobin", "roundrobin:3", "sequential", "sequential:2", "random:8"] {
        for openfiles in [0, 2, 3] {
            let fio = fio_pattern(&dir, 4, "128k", svc, openfiles);
            let ours = our_pattern(4, &ios, svc, openfiles, 1);
            if svc.starts_with("random") {
                // A batch of 8 is a whole file: runs of 8, each file once (the order is random).
                let runs: Vec<&[usize]> = fio.chunk_by(|a, b| a == b).collect();
                assert!(runs.iter().all(|r| r.len() == 8) && runs.len() == 4, "fio {svc}: {fio:?}");
                let runs: Vec<&[usize]> = ours.chunk_by(|a, b| a == b).collect();
                assert!(runs.iter().all(|r| r.len() == 8) && runs.len() == 4, "ours {svc}: {ours:?}");
            } else {
                assert_eq!(ours, fio, "{svc} openfiles={openfiles}");
            }
            checked.push(format!("{svc}/{openfiles}"));
        }
    }
    // random (batch 1): each file gets its 8 writes; a file is chosen again right away about
    // as often as chance says (fio draws uniformly, skipping done files).
    let fio = fio_pattern(&dir, 4, "1m", "random", 0);
    let ours = our_pattern(4, &[64; 4], "random", 0, 7);
    for p in [&fio, &ours] {
        assert_eq!(p.len(), 256);
        for f in 0..4 {
            assert_eq!(p.iter().filter(|&&x| x == f).count(), 64);
        }
    }
    let repeats = |p: &[usize]| p.windows(2).filter(|w| w[0] == w[1]).count() as f64 / 255.0;
    let (a, b) = (repeats(&fio), repeats(&ours));
    // Uniform over 4 files: 1/4 repeats (a little more near the end, when few files are
    // left); binomial s.d. over 255 pairs is 0.027, so 4 s.d. apart at most.
    assert!((a - b).abs() < 0.11, "repeat share fio {a}, flashlab {b}");
    std::fs::remove_dir_all(&dir).unwrap();
    eprintln!("file_service_fio: same file order as fio for {}", checked.join(", "));
}
