//! Issue 18, reproduction 7: the one signal policy. SIGINT, SIGTERM, SIGHUP and SIGQUIT remove
//! every file flashlab created and exit with 128 + the signal, also when the signal lands
//! between a file's registration and its creation (a fill file used to be left behind in
//! about 3 of 70 Ctrl-Cs); a second signal exits at once even when the cleanup hangs.
//!
//! The children are this test binary run again with FLASHLAB_SIGNALS_CHILD set.

mod common;

use common::TempDir;
use flashlab_real::cleanup::{install_signal_handlers, on_signal, Cleanup};
use flashlab_real::runner::open_file;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The child: creates registered files in a tight loop (as a fill does, without the data)
/// in the directory FLASHLAB_SIGNALS_CHILD names; with FLASHLAB_SIGNALS_HANG the cleanup
/// hangs, so only a second signal ends it.
#[test]
fn signals_child() {
    let Ok(dir) = std::env::var("FLASHLAB_SIGNALS_CHILD") else { return };
    if std::env::var("FLASHLAB_SIGNALS_HANG").is_ok() {
        on_signal(|| std::thread::sleep(Duration::from_secs(3600)));
    }
    install_signal_handlers().unwrap();
    let c = Cleanup::global();
    for i in 0u64.. {
        let p = Path::new(&dir).join(format!("flashlab-fill-{i:08}"));
        c.register(&p);
        drop(open_file(&p, false, true).unwrap());
        // Keep the directory small: older files go, as the protocol's delete step would.
        if i >= 8 {
            c.remove(&Path::new(&dir).join(format!("flashlab-fill-{:08}", i - 8))).unwrap();
        }
    }
}

fn child(dir: &Path, hang: bool) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "signals_child", "--nocapture", "--test-threads", "1"]).env("FLASHLAB_SIGNALS_CHILD", dir);
    if hang {
        cmd.env("FLASHLAB_SIGNALS_HANG", "1");
    }
    cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap()
}

fn wait_for_files(c: &mut Child, dir: &Path) {
    let t = Instant::now();
    while std::fs::read_dir(dir).unwrap().count() < 2 {
        assert!(t.elapsed() < Duration::from_secs(30), "the child never created files");
        assert!(c.try_wait().unwrap().is_none(), "the child ended before the signal");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn kill(c: &Child, sig: i32) {
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(c.id() as i32, sig) };
}

fn wait_bounded(c: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(st) = c.try_wait().unwrap() {
            return st;
        }
        if t.elapsed() > limit {
            let _ = c.kill();
            panic!("the child did not exit within {limit:?} of the signal");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn every_handled_signal_removes_the_files_even_mid_creation() {
    let d = TempDir::new("signals");
    std::fs::write(d.path().join("users-file"), b"keep me").unwrap();
    // Many SIGINTs at varying moments (the race), then each other handled signal.
    let mut sigs = vec![libc::SIGINT; 150];
    sigs.extend([libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT]);
    for (k, sig) in sigs.into_iter().enumerate() {
        let mut c = child(d.path(), false);
        wait_for_files(&mut c, d.path());
        std::thread::sleep(Duration::from_micros(137 * (k as u64 % 7)));
        kill(&c, sig);
        let st = wait_bounded(&mut c, Duration::from_secs(20));
        assert_eq!(st.code(), Some(128 + sig), "try {k}, signal {sig}: exit status {st}");
        assert_eq!(d.entries(), ["users-file"], "try {k}, signal {sig}: files left behind");
    }
}

#[test]
fn a_second_signal_exits_at_once() {
    let d = TempDir::new("signals2");
    let mut c = child(d.path(), true);
    wait_for_files(&mut c, d.path());
    kill(&c, libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(300));
    assert!(c.try_wait().unwrap().is_none(), "the cleanup hook hangs, so the first signal cannot end it");
    kill(&c, libc::SIGINT);
    let st = wait_bounded(&mut c, Duration::from_secs(5));
    assert_eq!(st.code(), Some(128 + libc::SIGINT), "exit status {st}");
}
