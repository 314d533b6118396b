//! Android specifics without a phone: the default engine when Android is detected (forced with
//! FLASHLAB_ANDROID), asking Android to trim through a fake `sm` on PATH, and fill files placed
//! in another directory (a phone's shared storage) and removed with the target.

mod common;

use common::TempDir;
use flashlab_real::android::{is_android, request_trim};
use flashlab_real::cleanup::Cleanup;
use flashlab_real::dir_target::{DirTarget, RealOptions};
use flashlab_real::engine::{choose_engine, EngineKind};
use flashlab_workload::protocol::{FileSizes, ProtocolTarget};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn fake_sm(dir: &Path, body: &str) {
    let p = dir.join("sm");
    std::fs::write(&p, format!("#!/bin/sh\necho \"$@\" >> {}/sm.log\n{body}\n", dir.display())).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// One test: it changes the process's environment (FLASHLAB_ANDROID, PATH).
#[test]
fn android_engine_default_and_trim_requests() {
    let old_path = std::env::var("PATH").unwrap_or_default();
    std::env::set_var("FLASHLAB_ANDROID", "1");
    assert!(is_android());
    let (engine, note) = choose_engine(None).unwrap();
    assert_eq!(engine, EngineKind::Psync, "psync is the default on Android");
    assert!(note.unwrap().contains("io_uring is blocked for most Android processes"));
    assert_eq!(choose_engine(Some("psync")).unwrap(), (EngineKind::Psync, None));

    let d = TempDir::new("sm");
    std::env::set_var("PATH", format!("{}:{old_path}", d.path().display()));
    // sm fstrim works.
    fake_sm(d.path(), "exit 0");
    let r = request_trim().unwrap();
    assert!(r.starts_with("ran `sm fstrim`"), "{r}");
    // sm fstrim refused (older Android, or no permission): idle maintenance instead.
    let _ = std::fs::remove_file(d.path().join("sm.log"));
    fake_sm(d.path(), "[ \"$1\" = fstrim ] && { echo 'Error: java.lang.SecurityException' >&2; exit 255; }\nexit 0");
    let r = request_trim().unwrap();
    assert!(
        r.contains("sm fstrim failed")
            && r.contains("SecurityException")
            && r.contains("ran `sm idle-maint run` instead"),
        "{r}"
    );
    assert_eq!(std::fs::read_to_string(d.path().join("sm.log")).unwrap(), "fstrim\nidle-maint run\n");
    // Neither works.
    fake_sm(d.path(), "exit 1");
    let e = request_trim().unwrap_err().to_string();
    assert!(e.contains("sm fstrim failed") && e.contains("sm idle-maint run failed"), "{e}");

    std::env::set_var("PATH", &old_path);
    std::env::set_var("FLASHLAB_ANDROID", "0");
    assert!(!is_android());
    std::env::remove_var("FLASHLAB_ANDROID");
    let _ = std::fs::remove_dir_all(d.path());
}

#[test]
fn fill_files_go_to_the_fill_directory_and_are_removed() {
    let work = TempDir::new("fillwork");
    let shared = TempDir::new("fillshared");
    let c = Cleanup::new();
    let opts = RealOptions { engine: EngineKind::Psync, ..RealOptions::default() };
    let mut t = DirTarget::with_cleanup(work.path(), opts, c.clone()).unwrap();
    assert_eq!(t.set_fill_dir(shared.path()).unwrap(), None, "this filesystem takes O_DIRECT");
    let free = flashlab_real::dir_target::free_bytes(shared.path()).unwrap();
    // Fill at most 8 MiB (leave all but that free), in 4 MiB files.
    let msg = t.fill(free - (8 << 20), FileSizes::fixed(4 << 20), &mut |_| {}).unwrap();
    assert!(msg.contains(&format!("in {}", shared.path().display())), "{msg}");
    assert!(!shared.entries().is_empty(), "fill files are in the fill directory");
    assert!(work.entries().is_empty(), "nothing in the work directory: {:?}", work.entries());
    drop(t);
    assert!(shared.entries().is_empty(), "removed with the target: {:?}", shared.entries());
    assert!(c.paths().is_empty());
    // Not a directory: a clear error.
    let mut t =
        DirTarget::with_cleanup(work.path(), RealOptions { engine: EngineKind::Psync, ..RealOptions::default() }, c)
            .unwrap();
    let e = t.set_fill_dir(&work.path().join("nope")).unwrap_err().to_string();
    assert!(e.contains("fill directory") && e.contains("nope"), "{e}");
    let _ = std::fs::remove_dir_all(work.path());
    let _ = std::fs::remove_dir_all(shared.path());
}
