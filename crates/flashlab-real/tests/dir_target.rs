//! A directory target in a temporary directory: four-corner, a small protocol, fstrim,
//! cleanup (on drop and after SIGINT in the middle of a fill), and the same protocol on a
//! real ext4 filesystem on a loop device when the test runs as root with mkfs.ext4 and
//! losetup (skipped with a printed reason otherwise).

mod common;

use common::{list, uring_ok, TempDir};
use flashlab_real::cleanup::Cleanup;
use flashlab_real::dir_target::{free_bytes, DirTarget, RealOptions};
use flashlab_real::engine::EngineKind;
use flashlab_workload::fourcorner::FourCornerConfig;
use flashlab_workload::protocol::{run_protocol, FileSizes, Protocol, ProtocolTarget};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const MIB: u64 = 1 << 20;

fn small_fc() -> FourCornerConfig {
    FourCornerConfig { span: 8 * MIB, rand_io: MIB, ..FourCornerConfig::default() }
}

fn opts() -> RealOptions {
    let engine = if uring_ok("dir_target") { EngineKind::IoUring } else { EngineKind::Psync };
    RealOptions { engine, ..RealOptions::default() }
}

/// AndroBench 3.x's sequence on a real directory: the read file written first, each test
/// twice here, both write tests synchronous on the truncated write file; both files removed.
#[test]
fn androbench_sequence_in_a_temp_dir_repeats_and_leaves_nothing() {
    let d = TempDir::new("fc-ab");
    let c = Cleanup::new();
    let mut t = DirTarget::with_cleanup(d.path(), opts(), c.clone()).unwrap();
    let cfg = FourCornerConfig {
        span: 4 * MIB,
        rand_io: MIB,
        rand_write_truncated: true,
        rand_write_sync: true,
        seq_write_sync: true,
        repeats: 2,
        read_file: Some(4 * MIB),
        ..FourCornerConfig::default()
    };
    let fc = t.four_corner(&cfg, "new", &mut |_, _| {}).unwrap();
    for v in [fc.seq_read_mbs, fc.seq_write_mbs, fc.rand_read_mbs, fc.rand_write_mbs, fc.rand_write_iops] {
        assert!(v > 0.0 && v.is_finite(), "{fc:?}");
    }
    // Two runs of each test, pooled: twice the bytes, and an fsync between every two
    // synchronous writes (fio's fsync=1; each run's last write is covered by its end_fsync).
    assert_eq!(fc.jobs[0].write.io_bytes, 2 * 4 * MIB);
    assert_eq!(fc.jobs[1].read.io_bytes, 2 * 4 * MIB);
    assert_eq!(fc.jobs[3].write.io_bytes, 2 * MIB);
    assert_eq!(fc.jobs[0].sync.total_ios, 2 * (4 * MIB / (256 << 10) - 1), "an fsync per sequential write");
    assert_eq!(fc.jobs[3].sync.total_ios, 2 * (MIB / 4096 - 1), "an fsync per random write");
    assert!(d.entries().is_empty(), "left {:?}", d.entries());
    assert!(c.is_empty());
}

#[test]
fn four_corner_in_a_temp_dir_leaves_nothing() {
    for engine in [EngineKind::Psync, opts().engine] {
        let d = TempDir::new("fc");
        let c = Cleanup::new();
        let mut t =
            DirTarget::with_cleanup(d.path(), RealOptions { engine, ..RealOptions::default() }, c.clone()).unwrap();
        let fc = t.four_corner(&small_fc(), "new", &mut |_, _| {}).unwrap();
        assert_eq!(fc.label, "new");
        assert!(fc.device.is_none());
        for v in [
            fc.seq_read_mbs,
            fc.seq_write_mbs,
            fc.rand_read_mbs,
            fc.rand_write_mbs,
            fc.rand_read_iops,
            fc.rand_write_iops,
            fc.rand_write_p50_us,
            fc.rand_write_p99_us,
            fc.rand_read_p50_us,
        ] {
            assert!(v > 0.0 && v.is_finite(), "{fc:?}");
        }
        assert!((fc.rand_write_mbs * 1e6 / 4096.0 - fc.rand_write_iops).abs() < 1.0);
        assert_eq!(fc.jobs.len(), 4);
        assert_eq!(fc.jobs[0].write.io_bytes, 8 * MIB);
        assert_eq!(fc.jobs[2].read.io_bytes, MIB);
        assert!(d.entries().is_empty(), "left {:?}", d.entries());
        assert!(c.is_empty());
        eprintln!("{}: {fc:?}", engine.name());
    }
}

/// AndroBench's layout (`four_corner_rand_write = "truncated"`): the write-test file is
/// truncated before the random writes, which then fill holes of the emptied file; the run
/// completes, writes what it should, and leaves nothing behind.
#[test]
fn four_corner_with_a_truncated_random_write_file() {
    let d = TempDir::new("fctrunc");
    let c = Cleanup::new();
    let mut t =
        DirTarget::with_cleanup(d.path(), RealOptions { engine: EngineKind::Psync, ..opts() }, c.clone()).unwrap();
    let cfg = FourCornerConfig { rand_write_truncated: true, ..small_fc() };
    let fc = t.four_corner(&cfg, "new", &mut |_, _| {}).unwrap();
    assert!(fc.rand_write_mbs > 0.0 && fc.rand_write_mbs.is_finite(), "{fc:?}");
    assert_eq!(fc.jobs[3].write.io_bytes, MIB);
    assert!(d.entries().is_empty(), "left {:?}", d.entries());
    assert!(c.is_empty());
}

fn protocol_text(leave_free: u64, keep_free: u64) -> String {
    format!(
        r#"
name = "tiny"
four_corner_span = "8MiB"
four_corner_rand_io = "1MiB"
[[step]]
kind = "four-corner"
label = "new"
[[step]]
kind = "fill"
leave_free = "{leave_free}"
file_size = "16MiB"
[[step]]
kind = "random-writes"
keep_free = "{keep_free}"
passes = 0.25
iodepth = 4
[[step]]
kind = "four-corner"
label = "after fill"
[[step]]
kind = "delete-fill"
[[step]]
kind = "fstrim"
[[step]]
kind = "idle"
duration = "24h"
[[step]]
kind = "four-corner"
label = "after fstrim + idle"
"#
    )
}

/// Run the tiny protocol in `dir`, filling `fill` bytes and random-writing over `rand` bytes.
fn run_tiny(dir: &Path, fill: u64, rand: u64) -> (flashlab_workload::protocol::ProtocolResult, Cleanup) {
    let c = Cleanup::new();
    let mut t = DirTarget::with_cleanup(dir, opts(), c.clone()).unwrap();
    t.idle_override = Some(Duration::from_millis(20));
    let free = free_bytes(dir).unwrap();
    // leave_free / keep_free as the protocol would state them: nearly everything stays free.
    let text = protocol_text(free.saturating_sub(fill), free.saturating_sub(fill + rand));
    let p = Protocol::from_toml("tiny.toml", &text).unwrap();
    let r = run_protocol(&mut t, &p, &FourCornerConfig::default(), |_, _, _, _| {}).unwrap();
    assert!(t.fill_files().is_empty());
    drop(t);
    (r, c)
}

/// What fstrim on `dir` must report, as flashlab documents it: where the filesystem or device
/// cannot trim, the reason naming the directory; where it can, a refusal naming root for a
/// plain user and the bytes trimmed for root.
fn check_fstrim_detail(dir: &Path, detail: &str) {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !trims(dir) {
        assert!(detail.starts_with("fstrim skipped: ") && detail.contains(&*dir.to_string_lossy()), "{detail}");
    } else if !root {
        assert!(detail.starts_with("fstrim skipped: FITRIM on ") && detail.contains("needs root"), "{detail}");
    } else {
        let n = detail.strip_prefix("Trimmed ").and_then(|t| t.strip_suffix(" bytes"));
        n.unwrap_or_else(|| panic!("{}: ext4/xfs/btrfs on a discarding device, as root: {detail}", dir.display()))
            .parse::<u64>()
            .unwrap();
    }
}

/// Whether `dir` is on ext4, xfs or btrfs over a whole block device that advertises discard
/// (where the kernel's FITRIM works).
fn trims(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: struct statfs is plain data; all zeros is a valid value.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: statfs on a NUL-terminated path into a zeroed struct.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return false;
    }
    let ftype = st.f_type as i64;
    if ![0xEF53, 0x5846_5342, 0x9123_683E].contains(&ftype) {
        return false;
    }
    let dev = std::fs::metadata(dir).unwrap().dev();
    let (maj, min) = (libc::major(dev), libc::minor(dev));
    let q = |sub: &str| std::fs::read_to_string(format!("/sys/dev/block/{maj}:{min}/{sub}queue/discard_max_bytes"));
    let max = q("").or_else(|_| q("../")).unwrap_or_default();
    max.trim().parse::<u64>().is_ok_and(|m| m > 0)
}

/// The tiny protocol's log and rows: every step did its work (no step may report it skipped).
fn check_tiny(dir: &Path, r: &flashlab_workload::protocol::ProtocolResult) {
    let labels: Vec<&str> = r.steps.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["new", "after fill", "after fstrim + idle"]);
    let kinds: Vec<&str> = r.log.iter().map(|l| l.kind.as_str()).collect();
    assert_eq!(kinds, ["fill", "random-writes", "delete-fill", "fstrim", "idle"]);
    assert!(r.log[0].detail.starts_with("wrote "), "{}", r.log[0].detail);
    let rw = &r.log[1].detail;
    assert!(rw.contains("bytes of 4 KiB random writes"), "{rw}");
    assert!(
        r.log[2].detail.starts_with("deleted ") && r.log[2].detail.contains(" fill files; "),
        "{}",
        r.log[2].detail
    );
    check_fstrim_detail(dir, &r.log[3].detail);
    assert!(r.log[4].detail.contains("shortened by --idle"), "{}", r.log[4].detail);
    assert!(r.log.windows(2).all(|w| w[0].at_s <= w[1].at_s));
    for s in &r.steps {
        assert!(s.rand_write_iops > 0.0 && s.seq_read_mbs > 0.0, "{s:?}");
    }
}

#[test]
fn tiny_protocol_in_a_temp_dir() {
    let d = TempDir::new("proto");
    // 24 MiB of fill (two files), 32 MiB of random-write file: nothing like the real disk.
    // The temporary directory's filesystem is shared with other programs; the random-writes
    // step's region is what is free beyond keep_free when it starts, a few ms after the fill
    // stopped at leave_free, so only another program writing 32 MiB in those ms could empty
    // it (and then the test fails: a step that did nothing is not a pass).
    let (r, c) = run_tiny(d.path(), 24 * MIB, 32 * MIB);
    for l in &r.log {
        eprintln!("step {} {}: {}", l.step, l.kind, l.detail);
    }
    check_tiny(d.path(), &r);
    assert!(d.entries().is_empty(), "left {:?}", d.entries());
    assert!(c.is_empty());
}

/// fstrim on ext4 (mounted without discard) after deleting 32 MiB: FITRIM reports at least
/// those bytes, and the loop device passes the discards on (its image file loses the blocks).
#[test]
fn fstrim_trims_deleted_data_on_ext4_on_a_loop_device() {
    use std::os::unix::fs::MetadataExt;
    let Some(fs) = LoopFs::new(128 * MIB, false) else { return };
    let mut t = DirTarget::with_cleanup(&fs.mnt, opts(), Cleanup::new()).unwrap();
    let first = t.fstrim().unwrap(); // the fresh filesystem's free space, trimmed once
    assert!(first.starts_with("Trimmed "), "{first}");
    let data = fs.mnt.join("data");
    std::fs::write(&data, vec![0x5au8; 32 * MIB as usize]).unwrap();
    std::fs::File::open(&data).unwrap().sync_all().unwrap();
    let allocated = || std::fs::metadata(&fs.image).unwrap().blocks() * 512;
    let before = allocated();
    std::fs::remove_file(&data).unwrap();
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
    let msg = t.fstrim().unwrap();
    eprintln!("fstrim after deleting 32 MiB: {msg}; image file {before} -> {} bytes allocated", allocated());
    let n: u64 = msg.strip_prefix("Trimmed ").and_then(|t| t.strip_suffix(" bytes")).expect(&msg).parse().unwrap();
    assert!(n >= 32 * MIB, "trimmed {n} bytes after deleting 32 MiB");
    assert!(
        allocated() + 31 * MIB <= before,
        "the loop device's image kept the deleted blocks: {before} -> {}",
        allocated()
    );
    drop(t);
}

/// fstrim where the filesystem has no FITRIM (tmpfs): a clear reason naming the directory,
/// not an error and not a number.
#[test]
fn fstrim_without_fitrim_says_why() {
    let shm = Path::new("/dev/shm");
    // SAFETY: struct statfs is plain data; all zeros is a valid value.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: statfs on a NUL-terminated path into a zeroed struct.
    let rc = unsafe { libc::statfs(c"/dev/shm".as_ptr(), &mut st) };
    assert!(rc == 0 && st.f_type as i64 == 0x0102_1994, "this test needs /dev/shm to be a tmpfs (as on any Linux)");
    let d = TempDir::new_in(shm, "notrim");
    let o = RealOptions { direct: false, ..opts() };
    let mut t = DirTarget::with_cleanup(d.path(), o, Cleanup::new()).unwrap();
    let msg = t.fstrim().unwrap();
    // tmpfs has no FITRIM at all (ENOTTY, for root and plain users alike).
    assert!(msg.starts_with("fstrim skipped: ") && msg.contains("does not support FITRIM"), "{msg}");
    assert!(msg.contains(&*d.path().to_string_lossy()), "{msg}");
}

#[test]
fn dropping_the_target_removes_fill_files_and_keeps_others() {
    let d = TempDir::new("drop");
    std::fs::write(d.path().join("users-file"), b"keep me").unwrap();
    let c = Cleanup::new();
    let mut t = DirTarget::with_cleanup(d.path(), opts(), c.clone()).unwrap();
    let free = t.free_bytes().unwrap();
    // (Other processes may write to the same filesystem meanwhile: expect at least one file.)
    let msg = t.fill(free - 6 * MIB, FileSizes::fixed(MIB), &mut |_| {}).unwrap();
    assert!(msg.starts_with("wrote "), "{msg}");
    assert!(!t.fill_files().is_empty(), "{msg}");
    assert_eq!(d.entries().iter().filter(|n| n.starts_with("flashlab-fill-")).count(), t.fill_files().len());
    drop(t); // as on an error half-way through a protocol
    assert_eq!(d.entries(), ["users-file"]);
    assert!(c.is_empty());
}

#[test]
fn refuses_to_take_over_an_existing_file() {
    let d = TempDir::new("exists");
    std::fs::write(d.path().join(flashlab_workload::fourcorner::TEST_FILE), b"someone's").unwrap();
    let mut t = DirTarget::with_cleanup(d.path(), opts(), Cleanup::new()).unwrap();
    let e = t.four_corner(&small_fc(), "x", &mut |_, _| {}).unwrap_err();
    // The real target's own error, kept whole inside flashlab-lab's.
    assert!(
        matches!(&e, flashlab_workload::Error::Target(b) if b.downcast_ref::<flashlab_real::RealError>().is_some()),
        "{e:?}"
    );
    let e = e.to_string();
    assert!(e.contains("not created by this run"), "{e}");
    assert_eq!(std::fs::read(d.path().join(flashlab_workload::fourcorner::TEST_FILE)).unwrap(), b"someone's");
    let e = DirTarget::with_cleanup(&d.path().join("nope"), opts(), Cleanup::new()).err().unwrap().to_string();
    assert!(e.contains("nope"), "{e}");
}

/// The child half of `sigint_in_the_middle_of_a_fill_removes_the_fill_files`, which runs it
/// explicitly (`--ignored --exact sigint_child`): a long fill in the directory named by
/// FLASHLAB_SIGINT_CHILD. Ignored in a normal run, so it is not counted as a passing test.
#[test]
#[ignore = "child process of sigint_in_the_middle_of_a_fill_removes_the_fill_files; run by it"]
fn sigint_child() {
    let dir = std::env::var("FLASHLAB_SIGINT_CHILD")
        .expect("sigint_child is the child process of sigint_in_the_middle_of_a_fill_removes_the_fill_files");
    flashlab_real::cleanup::install_signal_handlers().unwrap();
    let mut t =
        DirTarget::new(Path::new(&dir), RealOptions { engine: EngineKind::Psync, ..RealOptions::default() }).unwrap();
    let free = t.free_bytes().unwrap();
    let _ = t.fill(free.saturating_sub(1 << 30), FileSizes::fixed(64 * MIB), &mut |_| {});
    // Not reached when the parent's SIGINT arrives in time.
    std::process::exit(3);
}

#[test]
fn sigint_in_the_middle_of_a_fill_removes_the_fill_files() {
    let d = TempDir::new("sigint");
    std::fs::write(d.path().join("users-file"), b"keep me").unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "sigint_child", "--nocapture", "--test-threads", "1"])
        .env("FLASHLAB_SIGINT_CHILD", d.path())
        .spawn()
        .unwrap();
    // Wait until the fill has written something.
    let t0 = std::time::Instant::now();
    loop {
        let writing = list(d.path()).iter().any(|n| {
            n.starts_with("flashlab-fill-") && std::fs::metadata(d.path().join(n)).map(|m| m.len() > 0).unwrap_or(false)
        });
        if writing {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "the child never started filling");
        if let Some(st) = child.try_wait().unwrap() {
            panic!("child ended before the signal: {st}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(130), "exit status {st}");
    assert_eq!(d.entries(), ["users-file"]);
}

// ---- a real ext4 filesystem on a loop device ----

struct LoopFs {
    image: PathBuf,
    dev: Option<String>,
    mnt: PathBuf,
    mounted: bool,
    _dir: TempDir,
}

impl LoopFs {
    /// A fresh ext4 of `size` bytes on a loop device, mounted (with `-o discard` when
    /// `discard`). `None` when the machine lacks root, loop devices or the tools and
    /// FLASHLAB_TEST_SKIP asked to skip (flashlab_testcaps; it fails otherwise). Once the
    /// machine has them, mkfs, losetup or mount failing is a failure of the test.
    fn new(size: u64, discard: bool) -> Option<LoopFs> {
        use flashlab_testcaps::Cap;
        let caps = [Cap::Root, Cap::Loop, Cap::Tool("mkfs.ext4"), Cap::Tool("mount"), Cap::Tool("umount")];
        if !flashlab_testcaps::require(&caps) {
            return None;
        }
        let dir = TempDir::new("loop");
        let image = dir.path().join("ext4.img");
        let mnt = dir.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        std::fs::File::create(&image).unwrap().set_len(size).unwrap();
        let mut fs = LoopFs { image, dev: None, mnt, mounted: false, _dir: dir };
        let run = |args: &[&str]| -> String {
            let o = Command::new(args[0]).args(&args[1..]).output().unwrap_or_else(|e| panic!("{}: {e}", args[0]));
            assert!(o.status.success(), "{}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr).trim());
            String::from_utf8_lossy(&o.stdout).trim().to_string()
        };
        run(&["mkfs.ext4", "-q", "-F", fs.image.to_str().unwrap()]);
        fs.dev = Some(run(&["losetup", "-f", "--show", fs.image.to_str().unwrap()]));
        let opts = if discard { "discard" } else { "nodiscard" };
        run(&["mount", "-o", opts, fs.dev.as_ref().unwrap(), fs.mnt.to_str().unwrap()]);
        fs.mounted = true;
        Some(fs)
    }

    fn unmount(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(&self.mnt).status();
            self.mounted = false;
        }
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        self.unmount();
        if let Some(d) = self.dev.take() {
            let _ = Command::new("losetup").args(["-d", &d]).status();
        }
    }
}

#[test]
fn tiny_protocol_and_fill_to_enospc_on_ext4_on_a_loop_device() {
    let Some(mut fs) = LoopFs::new(192 * MIB, true) else { return };
    let dev = fs.dev.clone().unwrap();
    eprintln!("ext4 on {dev} at {}", fs.mnt.display());
    let free0 = free_bytes(&fs.mnt).unwrap();
    let (r, c) = run_tiny(&fs.mnt, 48 * MIB, 16 * MIB);
    for l in &r.log {
        eprintln!("step {} {}: {}", l.step, l.kind, l.detail);
    }
    check_tiny(&fs.mnt, &r);
    assert!(r.log[3].detail.starts_with("Trimmed "), "ext4 on a loop device trims: {}", r.log[3].detail);
    assert!(c.is_empty());
    assert_eq!(list(&fs.mnt), ["lost+found"]);

    // Fill to the last byte: ENOSPC is expected, not an error.
    let c = Cleanup::new();
    let mut t = DirTarget::with_cleanup(&fs.mnt, opts(), c.clone()).unwrap();
    let msg = t.fill(0, FileSizes::fixed(64 * MIB), &mut |_| {}).unwrap();
    eprintln!("fill to full: {msg}");
    assert!(t.free_bytes().unwrap() < 2 * MIB, "{msg}");
    assert!(msg.starts_with("wrote "));
    // Past the last byte (root may also use ext4's reserved blocks): ENOSPC ends a job that
    // expects it normally, and fails one that does not with a clear error.
    let extra = fs.mnt.join("flashlab-enospc.tmp");
    let f = flashlab_real::runner::open_file(&extra, true, true).unwrap();
    let mut j = flashlab_real::runner::RealJob::new("past-full", flashlab_jobs::Rw::Write, MIB, 64 * MIB);
    j.engine = opts().engine;
    j.settings.iodepth = 4;
    j.stop_on_enospc = true;
    let r = flashlab_real::runner::run_job(&extra, &f, &j, &mut |_| {}).unwrap();
    assert_eq!(r.error, libc::ENOSPC);
    assert!(r.write.io_bytes < 64 * MIB);
    j.stop_on_enospc = false;
    let e = flashlab_real::runner::run_job(&extra, &f, &j, &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("no space left"), "{e}");
    drop(f);
    std::fs::remove_file(&extra).unwrap();
    let msg = t.delete_fill().unwrap();
    assert!(msg.starts_with("deleted "), "{msg}");
    drop(t);
    assert_eq!(list(&fs.mnt), ["lost+found"]);
    let free1 = free_bytes(&fs.mnt).unwrap();
    assert!(free1 + MIB >= free0, "space came back: {free0} -> {free1}");

    // While mounted, the loop device is refused even with destroy_data; unmounted, it passes.
    let e = flashlab_real::blockdev::check_block_device(Path::new(&dev), true).unwrap_err().to_string();
    assert!(e.contains("mounted"), "{e}");
    fs.unmount();
    let bd = flashlab_real::blockdev::check_block_device(Path::new(&dev), true).unwrap();
    assert_eq!(format!("/dev/{}", bd.name), dev);
    // ... and the runner runs on the raw device (our own image file behind it).
    let (f, _, size) = flashlab_real::blockdev::open_block_device(Path::new(&dev), true, true).unwrap();
    assert_eq!(size, 192 * MIB);
    let mut j = flashlab_real::runner::RealJob::new("raw", flashlab_jobs::Rw::RandWrite, 4096, size);
    j.engine = opts().engine;
    j.settings.iodepth = 4;
    j.settings.io_limit = Some(MIB);
    let r = flashlab_real::runner::run_job(Path::new(&dev), &f, &j, &mut |_| {}).unwrap();
    assert_eq!(r.write.io_bytes, MIB);
}

/// The built-in `age-small` protocol (the `age` protocol with a shortened span) on a real ext4
/// filesystem, with the 1 h idle shortened: every row, the trimmed bytes, nothing left behind.
#[test]
fn builtin_age_small_on_ext4_on_a_loop_device() {
    let Some(fs) = LoopFs::new(192 * MIB, true) else { return };
    let c = Cleanup::new();
    let mut t = DirTarget::with_cleanup(&fs.mnt, opts(), c.clone()).unwrap();
    t.idle_override = Some(Duration::from_millis(20));
    let p = Protocol::builtin("age-small").unwrap();
    let r = run_protocol(&mut t, &p, &FourCornerConfig::default(), |_, _, _, _| {}).unwrap();
    drop(t);
    for l in &r.log {
        eprintln!("step {} {}: {}", l.step, l.kind, l.detail);
    }
    let labels: Vec<&str> = r.steps.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["new", "after fill 1", "after fill 2", "after fill 3", "after delete", "after fstrim + idle"]);
    for s in &r.steps {
        assert!(s.seq_write_mbs > 0.0 && s.rand_write_iops > 0.0 && s.device.is_none(), "{s:?}");
    }
    let trim = r.log.iter().find(|l| l.kind == "fstrim").unwrap();
    assert!(trim.detail.starts_with("Trimmed "), "{}", trim.detail);
    assert!(c.is_empty());
    assert_eq!(list(&fs.mnt), ["lost+found"]);
}
