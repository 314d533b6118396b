//! What a flashlab test needs from the machine, checked in one place, with one explicit way
//! to skip.
//!
//! Some tests need more than a compiler: root, `/dev/fuse`, loop devices, a mounted tracefs,
//! `fio`, io_uring, a tool such as `mkfs.ext4`. Such a test calls [`require`] first. When
//! everything is there it returns `true` and the test runs. When something is missing the test
//! **fails**, with a message naming the capability and the variable that skips it — unless the
//! environment variable [`SKIP_VAR`] (`FLASHLAB_TEST_SKIP`) names that capability (or is `all`):
//! then [`require`] prints `SKIPPED <test>: <why>` and returns `false`, and the test returns.
//! A green run therefore means every test ran, or that someone asked in writing for it not to.
//!
//! This crate only answers "does the machine have it". A failure of flashlab's own code on a
//! machine that has everything (`flashlab serve` not starting, a `losetup` the test runs
//! failing) is the test's business and always a failure, never a skip.
//!
//! Not for: probing at run time which engine flashlab should use (that is
//! `flashlab_real::engine::choose_engine`); this crate is a dev-dependency only.
//!
//! ```no_run
//! use flashlab_testcaps::{require, Cap};
//!
//! #[test]
//! fn ext4_on_a_loop_device() {
//!     if !require(&[Cap::Root, Cap::Loop, Cap::Tool("mkfs.ext4")]) {
//!         return; // FLASHLAB_TEST_SKIP asked for it; `require` printed why.
//!     }
//!     // ... everything the test needs is there: any error from here on is a failure.
//! }
//! ```
//!
//! `FLASHLAB_TEST_SKIP` is a comma-separated list of capability names ([`Cap::name`]: `root`,
//! `fuse`, `loop`, `tracefs`, `fio`, `io_uring`, `rootdev`, `vm`, or a tool's program name such as
//! `mkfs.ext4`), or `all`. `FLASHLAB_SKIP_FIO=1` is kept as another way to say `fio`.
//! `.ci/run` never sets either.

use std::io::Write;
use std::path::Path;

/// The environment variable that lists the capabilities whose tests may be skipped.
pub const SKIP_VAR: &str = "FLASHLAB_TEST_SKIP";

/// The older variable of the fio compatibility test: `FLASHLAB_SKIP_FIO=1` skips `fio`.
pub const SKIP_FIO_VAR: &str = "FLASHLAB_SKIP_FIO";

/// Roots where tracefs is looked for (the same two the kernel documents).
pub const TRACEFS_ROOTS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// Why the machine lacks a capability (the message says what to install or mount).
#[derive(Debug, thiserror::Error)]
pub enum Missing {
    /// Not running as root.
    #[error("not running as root (effective uid {uid})")]
    NotRoot {
        /// The effective uid.
        uid: u32,
    },
    /// A device node that does not open for reading and writing.
    #[error("cannot open {path} for reading and writing: {source}")]
    CannotOpen {
        /// The device node.
        path: &'static str,
        /// The system's error.
        source: std::io::Error,
    },
    /// A program that is not on `PATH`.
    #[error("{program} is not on PATH{hint}")]
    NotOnPath {
        /// The program.
        program: &'static str,
        /// Where it comes from (` (util-linux)`), or empty.
        hint: &'static str,
    },
    /// No tracefs root has the block tracepoints readable.
    #[error(
        "no tracefs with block events ({}); as root: mount -t tracefs nodev /sys/kernel/tracing",
        tried.iter().map(|(p, e)| format!("{}: {e}", p.display())).collect::<Vec<_>>().join("; ")
    )]
    NoTracefs {
        /// Each format file tried, and why it did not read.
        tried: Vec<(std::path::PathBuf, std::io::Error)>,
    },
    /// `/proc/mounts` does not read.
    #[error("/proc/mounts: {0}")]
    Mounts(#[source] std::io::Error),
    /// `/proc/mounts` has no line for `/`.
    #[error("no / in /proc/mounts")]
    NoRootMount,
    /// `/` is mounted from something that is not a block device node.
    #[error("the root filesystem is mounted from {source_name}, not a block device node")]
    RootNotBlock {
        /// What `/` is mounted from (`overlay`).
        source_name: String,
    },
    /// The kernel refused `io_uring_setup`.
    #[error("io_uring_setup: {0}")]
    IoUring(#[source] std::io::Error),
    /// The VM of the distribution's kernel cannot be booted (what is missing is named).
    #[error("{0}")]
    Vm(String),
}

/// Something a test needs from the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// Running as root (effective uid 0): mounting, losetup, tracing.
    Root,
    /// `/dev/fuse` opens for reading and writing.
    Fuse,
    /// `/dev/loop-control` opens for reading and writing (loop devices can be made) and
    /// `losetup` is on `PATH`.
    Loop,
    /// A mounted tracefs with the block tracepoints (`events/block/block_rq_issue/format`
    /// readable) under one of [`TRACEFS_ROOTS`].
    Tracefs,
    /// `fio` on `PATH`.
    Fio,
    /// The kernel lets this process set up an io_uring (`io_uring_setup` succeeds).
    IoUring,
    /// The root filesystem is mounted from a block device node (not overlay, not tmpfs): the
    /// raw-device guards are checked against it.
    RootDev,
    /// A program on `PATH`; the capability is named after the program (`mkfs.ext4`).
    Tool(&'static str),
    /// A VM of the distribution's kernel with F2FS can be booted (flashlab-vm: virtme-ng's
    /// `vng`, `qemu-system-x86_64`, a `/boot/vmlinuz-*` whose modules include `f2fs` and
    /// `loop`), and `mkfs.f2fs` is on `PATH` for the guest.
    Vm,
}

impl Cap {
    /// The name `FLASHLAB_TEST_SKIP` uses for this capability.
    pub fn name(&self) -> &'static str {
        match self {
            Cap::Root => "root",
            Cap::Fuse => "fuse",
            Cap::Loop => "loop",
            Cap::Tracefs => "tracefs",
            Cap::Fio => "fio",
            Cap::IoUring => "io_uring",
            Cap::RootDev => "rootdev",
            Cap::Tool(t) => t,
            Cap::Vm => "vm",
        }
    }

    /// `Ok` when this machine has it, else why not.
    pub fn check(&self) -> Result<(), Missing> {
        match self {
            Cap::Root => {
                // SAFETY: geteuid has no preconditions and cannot fail.
                let uid = unsafe { libc::geteuid() };
                if uid == 0 {
                    Ok(())
                } else {
                    Err(Missing::NotRoot { uid })
                }
            }
            Cap::Fuse => opens_rw("/dev/fuse"),
            Cap::Loop => {
                opens_rw("/dev/loop-control")?;
                on_path("losetup").map(|_| ()).ok_or(Missing::NotOnPath { program: "losetup", hint: " (util-linux)" })
            }
            Cap::Tracefs => tracefs_root().map(|_| ()),
            Cap::Fio => on_path("fio")
                .map(|_| ())
                .ok_or(Missing::NotOnPath { program: "fio", hint: " (Debian: apt-get install fio)" }),
            Cap::IoUring => io_uring_setup(),
            Cap::RootDev => root_block_device().map(|_| ()),
            Cap::Tool(t) => on_path(t).map(|_| ()).ok_or(Missing::NotOnPath { program: t, hint: "" }),
            Cap::Vm => {
                flashlab_vm::Vm::find(&["f2fs", "loop"]).map_err(|e| Missing::Vm(e.to_string()))?;
                on_path("mkfs.f2fs")
                    .map(|_| ())
                    .ok_or(Missing::NotOnPath { program: "mkfs.f2fs", hint: " (Debian: apt-get install f2fs-tools)" })
            }
        }
    }
}

/// Whether `FLASHLAB_TEST_SKIP` (or `FLASHLAB_SKIP_FIO=1`, for `fio`) asks to skip tests that
/// need the capability called `name`.
pub fn skip_requested(name: &str) -> bool {
    let listed = std::env::var(SKIP_VAR).ok().is_some_and(|v| skip_list_names(&v, name));
    listed || (name == "fio" && std::env::var(SKIP_FIO_VAR).as_deref() == Ok("1"))
}

/// Whether the comma-separated `list` (the value of `FLASHLAB_TEST_SKIP`) names `name` or `all`.
pub fn skip_list_names(list: &str, name: &str) -> bool {
    list.split(',').map(str::trim).any(|n| n == "all" || n == name)
}

/// The running test's name: libtest names each test's thread after the test.
pub fn test_name() -> String {
    std::thread::current().name().filter(|n| *n != "main").unwrap_or("this test").to_string()
}

/// Check that the machine has every capability in `caps`.
///
/// - All there: returns `true`.
/// - Some missing, and every missing one named in `FLASHLAB_TEST_SKIP` (or `all`): prints
///   `SKIPPED <test>: <why>` on stderr (uncaptured: it shows in a normal `cargo test` run) and
///   returns `false`; the test should return.
/// - Otherwise panics, naming each missing capability, why it is missing, and the variable.
#[must_use = "a false return means the test must return without testing anything"]
#[track_caller]
pub fn require(caps: &[Cap]) -> bool {
    decide(&test_name(), caps, "")
}

/// Like [`require`], for one part of a test that can run without the rest (`what` names the
/// part, e.g. "the io_uring runs"): `false` means skip just that part, as asked.
#[must_use = "a false return means the part must not run"]
#[track_caller]
pub fn require_for(what: &str, caps: &[Cap]) -> bool {
    decide(&test_name(), caps, what)
}

#[track_caller]
fn decide(test: &str, caps: &[Cap], what: &str) -> bool {
    let missing: Vec<(Cap, String)> =
        caps.iter().filter_map(|c| c.check().err().map(|why| (*c, why.to_string()))).collect();
    match verdict(&missing, skip_requested) {
        Verdict::Run => true,
        Verdict::Skip(why) => {
            let part = if what.is_empty() { String::new() } else { format!(" ({what})") };
            // Straight to the stderr handle, not eprintln!: libtest captures the print macros of
            // a passing test, and a skip must be seen in a normal `cargo test` run.
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}{part}: {why}");
            false
        }
        Verdict::Fail(msg) => {
            let part = if what.is_empty() { String::new() } else { format!(" for {what}") };
            panic!("{test} needs{part} {msg}")
        }
    }
}

/// What [`require`] does about the missing capabilities.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Run,
    Skip(String),
    Fail(String),
}

fn verdict(missing: &[(Cap, String)], skip: impl Fn(&str) -> bool) -> Verdict {
    if missing.is_empty() {
        return Verdict::Run;
    }
    let why = missing.iter().map(|(c, w)| format!("{} ({w})", c.name())).collect::<Vec<_>>().join(", ");
    if missing.iter().all(|(c, _)| skip(c.name())) {
        return Verdict::Skip(format!("{why} missing; skipped because {SKIP_VAR} names it"));
    }
    let names = missing.iter().map(|(c, _)| c.name()).collect::<Vec<_>>().join(",");
    Verdict::Fail(format!(
        "capabilities this machine lacks: {why}. Run the test where it has them (.ci/run checks them \
         up front), or skip it explicitly with {SKIP_VAR}={names} (docs/testing.md)"
    ))
}

fn opens_rw(path: &'static str) -> Result<(), Missing> {
    match std::fs::OpenOptions::new().read(true).write(true).open(path) {
        Ok(_) => Ok(()),
        Err(source) => Err(Missing::CannotOpen { path, source }),
    }
}

/// `prog` on `PATH` (an executable file), if any.
pub fn on_path(prog: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .chain(["/sbin", "/usr/sbin"].map(Into::into)) // root's tools, also for a plain user's PATH
        .map(|d| d.join(prog))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// The tracefs root that has the block tracepoints readable.
pub fn tracefs_root() -> Result<&'static Path, Missing> {
    let mut tried = Vec::new();
    for root in TRACEFS_ROOTS {
        let fmt = Path::new(root).join("events/block/block_rq_issue/format");
        match std::fs::read_to_string(&fmt) {
            Ok(_) => return Ok(Path::new(root)),
            Err(e) => tried.push((fmt, e)),
        }
    }
    Err(Missing::NoTracefs { tried })
}

/// The block device node `/` is mounted from.
pub fn root_block_device() -> Result<String, Missing> {
    use std::os::unix::fs::FileTypeExt;
    let mounts = std::fs::read_to_string("/proc/mounts").map_err(Missing::Mounts)?;
    let src = mounts
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() > 2 && f[1] == "/")
        .map(|f| f[0].to_string())
        .ok_or(Missing::NoRootMount)?;
    match std::fs::metadata(&src) {
        Ok(m) if m.file_type().is_block_device() => Ok(src),
        _ => Err(Missing::RootNotBlock { source_name: src }),
    }
}

/// Set up (and close) a one-entry io_uring, as any io_uring user must.
fn io_uring_setup() -> Result<(), Missing> {
    // struct io_uring_params is 120 bytes; zeroed means no flags.
    let mut params = [0u64; 15];
    // SAFETY: io_uring_setup(2) with a valid pointer to a zeroed io_uring_params.
    let fd = unsafe { libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr()) };
    if fd < 0 {
        return Err(Missing::IoUring(std::io::Error::last_os_error()));
    }
    // SAFETY: closing the descriptor io_uring_setup returned.
    unsafe { libc::close(fd as i32) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skip_list_is_comma_separated_names_or_all() {
        assert!(skip_list_names("root,fuse", "fuse"));
        assert!(skip_list_names(" root , loop ", "loop"));
        assert!(skip_list_names("all", "tracefs"));
        assert!(!skip_list_names("root,fuse", "loop"));
        assert!(!skip_list_names("", "root"));
        assert!(!skip_list_names("fuses", "fuse"));
    }

    #[test]
    fn missing_fails_unless_every_missing_capability_is_skipped() {
        assert_eq!(verdict(&[], |_| false), Verdict::Run);
        let missing = [(Cap::Root, "uid 1000".to_string()), (Cap::Fuse, "no /dev/fuse".to_string())];
        match verdict(&missing, |n| n == "root") {
            Verdict::Fail(m) => {
                assert!(m.contains("root (uid 1000)") && m.contains("fuse (no /dev/fuse)"), "{m}");
                assert!(m.contains("FLASHLAB_TEST_SKIP=root,fuse"), "{m}");
            }
            v => panic!("{v:?}"),
        }
        match verdict(&missing, |n| n == "root" || n == "fuse") {
            Verdict::Skip(m) => assert!(m.contains("FLASHLAB_TEST_SKIP"), "{m}"),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn names_are_the_documented_ones() {
        let caps = [Cap::Root, Cap::Fuse, Cap::Loop, Cap::Tracefs, Cap::Fio, Cap::IoUring, Cap::RootDev, Cap::Vm];
        let names: Vec<&str> = caps.iter().map(Cap::name).collect();
        assert_eq!(names, ["root", "fuse", "loop", "tracefs", "fio", "io_uring", "rootdev", "vm"]);
        assert_eq!(Cap::Tool("mkfs.ext4").name(), "mkfs.ext4");
    }

    #[test]
    fn a_test_thread_is_named_after_the_test() {
        assert!(test_name().ends_with("a_test_thread_is_named_after_the_test"), "{}", test_name());
    }

    #[test]
    fn a_program_that_does_not_exist_is_missing() {
        let e = Cap::Tool("flashlab-no-such-program").check().unwrap_err().to_string();
        assert!(e.contains("flashlab-no-such-program"), "{e}");
        assert!(Cap::Tool("sh").check().is_ok());
    }
}
