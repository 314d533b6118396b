//! `flashlab sqlite` as a user runs it: the table and JSON on a simulated target, one clear
//! error per bad option, and no database file left behind after Ctrl-C.

mod common;

use common::flashlab;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn fresh_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashlab-sqlite-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn entries(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

#[test]
fn table_and_json_on_a_simulated_target() {
    let dir = fresh_dir("json");
    let json = dir.join("sqlite.json");
    let out = flashlab(&[
        "sqlite",
        "--target",
        "sim:toy",
        "--modes",
        "delete,wal",
        "--sync",
        "full,off",
        "--transactions",
        "20",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("SQLite 3.") && text.contains("model:"), "{text}");
    for row in [["delete", "full"], ["delete", "off"], ["wal", "full"], ["wal", "off"]] {
        assert!(text.lines().any(|l| l.split_whitespace().take(2).eq(row)), "{row:?}: {text}");
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["command"], "sqlite");
    let v = &v["results"];
    assert_eq!(v["configs"].as_array().unwrap().len(), 4);
    for c in v["configs"].as_array().unwrap() {
        assert_eq!(c["integrity_check"], "ok");
        for key in ["tx_per_s", "latency", "vfs", "device", "per_tx"] {
            assert!(c.get(key).is_some(), "{key} missing in {c}");
        }
        assert!(c["device"]["flushes"].as_u64().unwrap() >= 1);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_options_are_one_clear_error() {
    let dir = fresh_dir("bad");
    let d = dir.to_str().unwrap();
    for (args, what) in [
        (vec!["--target", d, "--modes", "delete,journal"], "--modes: unknown journal mode 'journal'"),
        (vec!["--target", d, "--sync", "extra"], "--sync: unknown synchronous setting 'extra'"),
        (vec!["--target", d, "--transactions", "0"], "--transactions"),
        (vec!["--target", d, "--shape", "upsert"], "--shape"),
        (vec!["--target", d, "--row-bytes", "0"], "--row-bytes"),
        (vec!["--target", "/nonexistent/flashlab"], "--target /nonexistent/flashlab"),
        (vec!["--target", "/proc"], "cannot create files"),
        (vec!["--target", "sim:nosuch"], "unknown profile 'nosuch'"),
        (vec!["--target", "serve"], "serve devices are not supported"),
    ] {
        let mut all = vec!["sqlite"];
        all.extend(args.iter());
        let out = flashlab(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{all:?}: {stderr}");
        assert!(stderr.contains("flashlab: error:") && stderr.contains(what), "{all:?}: expected '{what}' in {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert!(entries(&dir).is_empty());
    std::fs::remove_dir(&dir).unwrap();
}

#[test]
fn ctrl_c_removes_the_database_files() {
    let dir = fresh_dir("sigint");
    let mut child = Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .args(["sqlite", "--target", dir.to_str().unwrap(), "--modes", "delete", "--transactions", "100000"])
        .args(["--baseline", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !entries(&dir).iter().any(|n| n.ends_with(".db")) {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("no database file appeared in {}", dir.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("SIGINT"), "{stderr}");
    assert!(entries(&dir).is_empty(), "left behind: {:?}", entries(&dir));
    std::fs::remove_dir(&dir).unwrap();
}
