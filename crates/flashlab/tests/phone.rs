//! `flashlab phone` up to the device boundary. A fake `adb` (a shell script) records every call
//! and answers from a fixture: `devices` and `getprop` from files, `push`/`pull` as copies, and
//! `shell CMD` by running CMD here — so with the phone's directories placed in a scratch
//! directory, the whole workflow runs for real (the pushed binary is this build's flashlab),
//! including cleanup after errors and Ctrl-C. `phone doctor` gets a captured phone tree from the
//! doctor's fixtures instead of capturing this machine. What only a real phone can show (its
//! SELinux rules, seccomp, FUSE behaviour, `sm fstrim`) is listed in docs/phone.md.

mod common;

use common::phone::*;

use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The adb command lines of a bench on a described Pixel with the default phone paths.
#[test]
fn dry_run_lists_the_adb_calls_for_the_described_device() {
    let ph = Phone::new("dry", "List of devices attached\n0A1B2C3D\tdevice\n");
    let bin = env!("CARGO_BIN_EXE_flashlab");
    let o = ph.run(&["phone", "bench", "--dry-run", "--binary", bin, "--span", "8MiB"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("0A1B2C3D (Google Pixel 4a, Android 13 / API 33, arm64-v8a, no root)"), "{err}");
    let lines: Vec<&str> = out.lines().skip(1).map(str::trim).collect();
    let want = vec![
        "adb devices".to_string(),
        "adb -s 0A1B2C3D shell getprop".into(),
        "adb -s 0A1B2C3D shell 'id -u'".into(),
        "adb -s 0A1B2C3D shell 'mkdir /data/local/tmp/flashlab /data/local/tmp/flashlab/work'".into(),
        format!("adb -s 0A1B2C3D push {bin} /data/local/tmp/flashlab/flashlab"),
        "adb -s 0A1B2C3D shell 'chmod 755 /data/local/tmp/flashlab/flashlab'".into(),
        "adb -s 0A1B2C3D shell 'echo flashlab-pid $$; cd /data/local/tmp/flashlab && FLASHLAB_PROGRESS=lines exec /data/local/tmp/flashlab/flashlab bench --target /data/local/tmp/flashlab/work --ioengine psync --seed 1 --span 8MiB --json /data/local/tmp/flashlab/results.json > /data/local/tmp/flashlab/output.txt'".into(),
        "adb -s 0A1B2C3D pull /data/local/tmp/flashlab/results.json HOST_TMP/results.json".into(),
        "adb -s 0A1B2C3D shell 'rm -rf /data/local/tmp/flashlab'".into(),
    ];
    assert_eq!(lines, want);
    // Only the three describing calls were made.
    let calls = ph.calls();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[2], vec!["-s", "0A1B2C3D", "shell", "id -u"]);
}

#[test]
fn fill_plan_uses_shared_storage_and_removes_it() {
    let ph = Phone::new("dryfill", "List of devices attached\nZY22\tdevice\n");
    let bin = env!("CARGO_BIN_EXE_flashlab");
    let o = ph.run(&["phone", "fill", "--dry-run", "--binary", bin, "--leave-free", "2GiB"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        out.contains("shell 'mkdir /data/local/tmp/flashlab /data/local/tmp/flashlab/work /sdcard/flashlab-fill'"),
        "{out}"
    );
    assert!(out.contains("push HOST_TMP/phone-fill.toml /data/local/tmp/flashlab/phone-fill.toml"), "{out}");
    assert!(out.contains("age --protocol /data/local/tmp/flashlab/phone-fill.toml --target /data/local/tmp/flashlab/work --fill-dir /sdcard/flashlab-fill --ioengine psync"), "{out}");
    assert!(out.contains("shell 'rm -rf /data/local/tmp/flashlab /sdcard/flashlab-fill'"), "{out}");
}

#[test]
fn device_selection_errors_are_clear() {
    let bin = env!("CARGO_BIN_EXE_flashlab");
    for (devices, want) in [
        ("List of devices attached\n\n", "no device attached"),
        (
            "List of devices attached\nAAA\tdevice\nBBB\tdevice\n",
            "several devices attached (AAA device, BBB device): choose one with -s SERIAL",
        ),
        ("List of devices attached\nAAA\tunauthorized\n", "no usable device: AAA unauthorized"),
    ] {
        let ph = Phone::new("sel", devices);
        let o = ph.run(&["phone", "bench", "--binary", bin]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(want), "expected '{want}' in: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!exists_anything_under(&ph.dir.join("data/local/tmp")));
    }
    let ph = Phone::new("noadb", "");
    let o = ph.run(&["phone", "bench", "--adb", "/nonexistent/adb", "--binary", bin]);
    assert!(text(&o).1.contains("/nonexistent/adb: not found (install Android's platform-tools"), "{:?}", text(&o));
}

/// The whole bench workflow through the fake adb: push, run with streamed progress, pull,
/// render on the host, write the document, and remove the phone's directory.
#[test]
fn bench_runs_pulls_renders_and_cleans_up() {
    let ph = Phone::new("bench", "List of devices attached\n0A1B2C3D\tdevice\n");
    let json = ph.dir.join("host-results.json");
    let remote = ph.remote_dir();
    let o = ph
        .command(&[
            "phone",
            "bench",
            "--binary",
            env!("CARGO_BIN_EXE_flashlab"),
            "--remote-dir",
            &remote,
            "--span",
            "8MiB",
            "--rand-io",
            "1MiB",
            "--json",
            json.to_str().unwrap(),
        ])
        .env("FLASHLAB_PROGRESS", "lines")
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("flashlab bench on Google Pixel 4a — results from the phone:"), "{out}");
    let row = out.lines().find(|l| l.starts_with("new ")).unwrap_or_else(|| panic!("no 'new' row: {out}"));
    // step, four MB/s, four latencies, then WAF and free blocks ("-": a real target has no
    // simulated device).
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells.len(), 11, "{row}");
    let nums: Vec<f64> = cells[1..9].iter().map(|w| w.parse().unwrap()).collect();
    assert!(nums.iter().all(|v| *v > 0.0), "every measured cell is positive: {row}");
    assert_eq!(cells[9..], ["-", "-"], "{row}");
    // Progress came from the phone's progress lines, re-emitted on the host.
    assert!(err.contains("flashlab-progress ") && err.contains("phone bench"), "{err}");
    // The document: the phone's, with the device description added.
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["command"], "phone");
    assert_eq!(doc["results"]["phone"]["model"], "Google Pixel 4a");
    assert_eq!(doc["results"]["results"]["results"]["steps"][0]["label"], "new");
    assert_eq!(doc["results"]["results"]["command"], "bench");
    // Nothing is left on the "phone".
    assert!(!Path::new(&remote).exists(), "{remote} was left behind");
    let calls = ph.calls();
    let verbs: Vec<String> = calls.iter().map(|c| c.join(" ").chars().take(30).collect()).collect();
    assert_eq!(calls.last().unwrap()[2..], ["shell".to_string(), format!("rm -rf {remote}")], "{verbs:?}");
    assert!(calls.iter().any(|c| c.get(2).map(String::as_str) == Some("pull")), "{verbs:?}");
}

/// A run that fails on the phone (a bad option there) still removes its directory, and says so.
#[test]
fn failure_on_the_phone_still_cleans_up() {
    let ph = Phone::new("fail", "List of devices attached\n0A1B2C3D\tdevice\n");
    let remote = ph.remote_dir();
    let o = ph.run(&[
        "phone",
        "bench",
        "--binary",
        env!("CARGO_BIN_EXE_flashlab"),
        "--remote-dir",
        &remote,
        "--ioengine",
        "nosuch",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("phone: flashlab: error: --ioengine nosuch: unknown engine"), "{err}");
    assert!(err.contains("flashlab bench on the phone failed"), "{err}");
    assert!(err.contains(&format!("removed {remote} from the phone")), "{err}");
    assert!(!Path::new(&remote).exists());
    // A directory that is not ours is refused and left alone.
    std::fs::create_dir_all(&remote).unwrap();
    std::fs::write(Path::new(&remote).join("keep"), "x").unwrap();
    let o = ph.run(&["phone", "bench", "--binary", env!("CARGO_BIN_EXE_flashlab"), "--remote-dir", &remote]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("removes only what it created"), "{err}");
    assert!(Path::new(&remote).join("keep").exists());
}

/// Ctrl-C on the host stops flashlab on the phone with SIGINT (it removes its files) and
/// removes the directories.
#[test]
fn ctrl_c_stops_the_phone_side_and_cleans_up() {
    let ph = Phone::new("int", "List of devices attached\n0A1B2C3D\tdevice\n");
    let remote = ph.remote_dir();
    let proto = ph.dir.join("idle.toml");
    std::fs::write(&proto, "name = \"idle\"\n[[step]]\nkind = \"four-corner\"\nlabel = \"new\"\n[[step]]\nkind = \"idle\"\nduration = \"1h\"\n[[step]]\nkind = \"four-corner\"\nlabel = \"after idle\"\n").unwrap();
    let child = ph
        .command(&[
            "phone",
            "age",
            "--binary",
            env!("CARGO_BIN_EXE_flashlab"),
            "--remote-dir",
            &remote,
            "--protocol",
            proto.to_str().unwrap(),
            "--idle",
            "10m",
            "--span",
            "4MiB",
            "--rand-io",
            "256KiB",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the phone side is idling (its work directory exists and the pid was printed).
    let t0 = std::time::Instant::now();
    while !ph.calls().iter().any(|c| c.iter().any(|w| w.contains("FLASHLAB_PROGRESS=lines exec"))) {
        assert!(t0.elapsed().as_secs() < 60, "the run never started: {:?}", ph.calls());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(3));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted: flashlab on the phone was stopped"), "{err}");
    assert!(err.contains("phone: flashlab: SIGINT: removed"), "the phone side cleaned its files: {err}");
    assert!(ph.calls().iter().any(|c| c.last().is_some_and(|w| w.starts_with("kill -INT "))), "{:?}", ph.calls());
    assert!(!Path::new(&remote).exists(), "{remote} was left behind");
}

/// `phone fill`: four-corner in /data, fill "shared storage" (a separate directory) by a few
/// MiB, four-corner again, delete; the fill directory is removed.
#[test]
fn fill_procedure_writes_to_shared_storage_and_removes_it() {
    let ph = Phone::new("fill", "List of devices attached\n0A1B2C3D\tdevice\n");
    let remote = ph.remote_dir();
    // "Shared storage" on /dev/shm: a tmpfs whose free space the machine's other writers do
    // not move between the test's statvfs and the fill (the work disk's does).
    let sdcard = PathBuf::from(format!("/dev/shm/flashlab-phone-test-{}", std::process::id()));
    std::fs::create_dir_all(&sdcard).unwrap();
    struct Rm(PathBuf);
    impl Drop for Rm {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _rm = Rm(sdcard.clone());
    let shared = sdcard.join("flashlab-fill").display().to_string();
    // Leave all but 24 MiB free, so the fill writes at most 24 MiB there.
    let free = {
        let c = std::ffi::CString::new(sdcard.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: statvfs fills the struct we pass.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut st) }, 0);
        st.f_bavail as u64 * st.f_frsize as u64
    };
    let leave = format!("{}KiB", (free - (24 << 20)) / 1024);
    let o = ph.run(&[
        "phone",
        "fill",
        "--binary",
        env!("CARGO_BIN_EXE_flashlab"),
        "--remote-dir",
        &remote,
        "--shared-dir",
        &shared,
        "--leave-free",
        &leave,
        "--file-size",
        "4MiB",
        "--span",
        "4MiB",
        "--rand-io",
        "256KiB",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    for label in ["before fill", "after fill", "after delete"] {
        assert!(out.lines().any(|l| l.starts_with(label)), "no '{label}' row: {out}");
    }
    // The log line (indented two spaces) is wrapped at 80 columns, its continuation indented
    // four: joined again here.
    let lines: Vec<&str> = out.lines().collect();
    let at = lines.iter().position(|l| l.contains(" fill ") && l.contains("wrote")).unwrap_or_else(|| panic!("{out}"));
    let mut fill = lines[at].to_string();
    for l in &lines[at + 1..] {
        if !l.starts_with("    ") {
            break;
        }
        fill.push(' ');
        fill.push_str(l.trim_start());
    }
    assert!(fill.contains(&format!("in {shared}")), "{fill}");
    let written: u64 = fill.split("wrote ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(written > 0 && written <= 24 << 20, "{fill}");
    assert!(!Path::new(&shared).exists() && !Path::new(&remote).exists());
}

/// `phone doctor`: the capture runs "on the phone" (here: the Pixel-like fixture answers) and
/// the host judges it with the captured-tree rules.
#[test]
fn doctor_over_adb_flags_the_pixel_like_phone() {
    let ph = Phone::new("doc", "List of devices attached\n0A1B2C3D\tdevice\n");
    let remote = ph.dir.join("data/local/tmp/flashlab-doctor").display().to_string();
    let save = ph.dir.join("saved");
    let o = ph.run(&["phone", "doctor", "--remote-dir", &remote, "--json", "-", "--save", save.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &r["results"]["results"]["results"];
    let ids: Vec<String> = r["filesystems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["mount_point"] == "/data")
        .flat_map(|f| f["findings"].as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap().to_string()))
        .collect();
    for id in ["fuse-over", "no-trim", "usage-warn"] {
        assert!(ids.contains(&id.to_string()), "{id} not in {ids:?}");
    }
    assert!(!Path::new(&remote).exists(), "the capture directory was left on the phone");
    assert!(save.join("doctor/getprop.txt").is_file());
    // The capture script pushed is the one in scripts/.
    let pushed = ph.calls().into_iter().find(|c| c.get(2).map(String::as_str) == Some("push")).unwrap();
    assert!(pushed[4].ends_with("flashlab-doctor/capture.sh"), "{pushed:?}");
}

/// `phone run`: the job file is pushed, runs in the work directory, and its fio JSON comes back
/// as a per-job table.
#[test]
fn run_pushes_the_job_file_and_renders_its_jobs() {
    let ph = Phone::new("run", "List of devices attached\n0A1B2C3D\tdevice\n");
    let remote = ph.remote_dir();
    let job = ph.dir.join("small.fio");
    std::fs::write(&job, "[global]\nsize=4m\nbs=4k\nio_size=1m\n[w]\nrw=randwrite\n[r]\nstonewall\nrw=randread\n")
        .unwrap();
    let o = ph.run(&[
        "phone",
        "run",
        "--binary",
        env!("CARGO_BIN_EXE_flashlab"),
        "--remote-dir",
        &remote,
        job.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let w = out.lines().find(|l| l.starts_with("w ")).unwrap_or_else(|| panic!("no job w: {out}"));
    let cells: Vec<&str> = w.split_whitespace().collect();
    assert_eq!(cells[1], "write", "w only writes: {out}");
    assert!(cells[2].parse::<f64>().unwrap() > 0.0, "w writes: {w}");
    assert!(!out.lines().any(|l| l.starts_with("w ") && l.contains(" read ")), "w does not read: {out}");
    let r = out.lines().find(|l| l.starts_with("r ")).unwrap_or_else(|| panic!("no job r: {out}"));
    let cells: Vec<&str> = r.split_whitespace().collect();
    assert_eq!(cells[1], "read", "{r}");
    assert!(cells[2].parse::<f64>().unwrap() > 0.0, "r reads: {r}");
    assert!(ph.calls().iter().any(|c| c.iter().any(|w| w.ends_with("/job.fio"))));
    assert!(!Path::new(&remote).exists());
}

#[test]
fn fill_dir_is_refused_on_a_simulated_target() {
    common::fails(&["bench", "--target", "sim:toy", "--fill-dir", "/tmp"], "--fill-dir applies to real targets");
}
