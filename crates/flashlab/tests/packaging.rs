//! What an installed flashlab needs: `profiles` lists without building a device (fast and
//! small), `--version` names the git revision, and the completion scripts and the manual page
//! come out of the binary. (`cargo install` itself is checked by `scripts/check-install.sh`,
//! which `.ci/run` runs.)

use std::io::Read;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_flashlab");

/// Run flashlab, return (stdout, peak RSS in KiB, user + system CPU seconds) from wait4.
// The child is reaped by wait4 (which also gives its rusage), not by Child::wait.
#[allow(clippy::zombie_processes)]
fn run_measured(args: &[&str]) -> (String, i64, f64) {
    let mut child = Command::new(BIN).args(args).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value to be filled in; the pid is our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    assert_eq!(pid, child.id() as libc::pid_t);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "flashlab {args:?}: status {status}");
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (out, ru.ru_maxrss, secs(ru.ru_utime) + secs(ru.ru_stime))
}

/// `flashlab profiles` lists every built-in profile with its capacity without building the
/// devices: building them allocated the mapping tables (543 MB peak, 1.3 s, for nvme-256g's
/// 256 GB at 8 bytes per 4 KiB unit). The peak RSS bound (64 MiB) sits far below one such
/// table (a 256 GB device's is 500 MiB; even emmc-16g's 16 GB is 32 MiB) and far above what
/// the process needs (14 MiB measured, as for `--version`). CPU time, not wall time, is bounded, so a
/// loaded machine does not fail it: 50 ms is the bound (measured 9.5 ms per run, test profile,
/// load 17); wall time on an idle machine is `bench/profiles-speed.sh`'s.
#[test]
fn profiles_lists_without_building_devices() {
    // The least CPU of three runs: the first run after linking may pay page faults for the
    // binary's pages (measured 60 ms once against 9.5 ms warm, under load 17).
    let runs: Vec<_> = (0..3).map(|_| run_measured(&["profiles"])).collect();
    let out = runs[0].0.clone();
    let rss_kib = runs.iter().map(|r| r.1).max().unwrap();
    let cpu = runs.iter().map(|r| r.2).fold(f64::INFINITY, f64::min);
    for (name, _) in flashsim::builtin::BUILTIN {
        assert!(out.lines().any(|l| l.split_whitespace().next() == Some(name)), "{name} missing:\n{out}");
    }
    // The capacity column is the device's: nvme-256g exports 255.6 GB, toy 0.2 GB.
    let row = |n: &str| out.lines().find(|l| l.split_whitespace().next() == Some(n)).unwrap().to_string();
    for n in ["nvme-256g", "toy"] {
        let p = flashsim::Profile::from_toml(n, flashsim::builtin::text(n).unwrap()).unwrap();
        let gb = format!("{:.1}", p.logical_bytes() as f64 / 1e9);
        assert!(row(n).split_whitespace().any(|w| w == gb), "{n}: {gb} GB not in {}", row(n));
    }
    assert!(rss_kib < 64 * 1024, "flashlab profiles peaked at {rss_kib} KiB: is it building devices?");
    assert!(cpu < 0.050, "flashlab profiles took {cpu:.3} s of CPU (bound 50 ms)");
}

/// `--version` names the crate version and the git revision build.rs found (12 hex digits in a
/// checkout; "unknown" outside one, e.g. `cargo install` from a copy without .git).
#[test]
fn version_names_the_git_revision() {
    let (out, _, _) = run_measured(&["--version"]);
    let out = out.trim();
    let rev = out
        .strip_prefix(&format!("flashlab {} (git ", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("unexpected --version: {out}"));
    let in_checkout = Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    match (in_checkout, std::env::var("FLASHLAB_GIT_REVISION")) {
        (_, Ok(v)) if !v.trim().is_empty() => assert_eq!(rev, v.trim()),
        (Some(o), _) => {
            assert_eq!(rev.len(), 12, "{rev}");
            assert!(String::from_utf8_lossy(&o.stdout).starts_with(rev), "{rev} is not HEAD");
        }
        (None, _) => assert_eq!(rev, "unknown"),
    }
}

/// Completion scripts for bash, zsh and fish know every subcommand; bash's parses (`bash -n`).
#[test]
fn completions_cover_every_subcommand() {
    for shell in ["bash", "zsh", "fish"] {
        let (out, _, _) = run_measured(&["completions", shell]);
        for sub in ["age", "bench", "validate-fs", "completions", "man", "sim"] {
            assert!(out.contains(sub), "{shell} completion lacks {sub}");
        }
        // bash and zsh spell options out; fish declares them as `-l target`.
        assert!(out.contains("--target") || out.contains("-l target"), "{shell} completion lacks the options");
        if shell == "bash" {
            let dir = tempfile::tempdir().unwrap();
            let f = dir.path().join("flashlab.bash");
            std::fs::write(&f, &out).unwrap();
            let st = Command::new("bash").arg("-n").arg(&f).status().unwrap();
            assert!(st.success(), "bash -n rejects the completion script");
        }
    }
    let st = Command::new(BIN).args(["completions", "tcsh"]).stderr(Stdio::null()).status().unwrap();
    assert_eq!(st.code(), Some(2), "an unknown shell is a usage error");
}

/// The manual page is roff with every subcommand listed; a subcommand's page is its own.
#[test]
fn man_pages() {
    let (out, _, _) = run_measured(&["man"]);
    assert!(out.contains(".TH flashlab 1"), "{}", &out[..out.len().min(400)]);
    for sub in ["age", "validate\\-fs", "completions"] {
        assert!(out.contains(sub), "man page lacks {sub}");
    }
    let (waf, _, _) = run_measured(&["man", "sim", "waf"]);
    assert!(
        waf.contains(".TH flashlab\\-sim\\-waf 1") || waf.contains(".TH flashlab-sim-waf 1"),
        "{}",
        &waf[..waf.len().min(400)]
    );
    assert!(waf.contains("\\-\\-spare"), "sim waf page lacks --spare");
    let st = Command::new(BIN).args(["man", "nope"]).stderr(Stdio::null()).status().unwrap();
    assert_eq!(st.code(), Some(1));
}
