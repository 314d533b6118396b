//! Issue 18: the reproductions of the hardening pass, each a test — huge counts, extreme
//! results values, trace gaps, job names as paths, input size limits, nonsense values,
//! negative numbers, outputs checked before the run, `filename=` on simulated targets,
//! `thinktime`, and the one signal policy. Every user error is one line naming the input,
//! never a panic or a backtrace.

mod common;

use common::{flashlab, scratch};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A failing run: exit status `code`, exactly one line on stderr starting `flashlab: error:`,
/// naming `what`, with no panic or backtrace; returns that line.
fn one_line_error(args: &[&str], code: i32, what: &str) -> String {
    let out = flashlab(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "flashlab {args:?}: {stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"), "flashlab {args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "flashlab {args:?}: one line expected, got: {stderr}");
    assert!(lines[0].starts_with("flashlab: error:"), "{stderr}");
    assert!(lines[0].contains(what), "flashlab {args:?}: expected '{what}' in: {stderr}");
    lines[0].to_string()
}

/// Runs flashlab with a wall-clock limit; fails the test (and kills it) beyond the limit.
fn within(limit: Duration, args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("flashlab {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---- 1: huge counts ----

#[test]
fn huge_counts_are_refused_with_a_bound() {
    one_line_error(&["breakdown", "--target", "sim:toy", "--ios", "18446744073709551615"], 1, "--ios");
    one_line_error(&["breakdown", "--target", "sim:toy", "--iodepth", "4294967295"], 1, "--iodepth");
    one_line_error(&["wsat", "--target", "sim:toy", "--times", "1e300"], 1, "--times");
    one_line_error(&["wsat", "--target", "sim:toy", "--intervals", "4000000000"], 1, "--intervals");
    one_line_error(&["sim", "waf", "--passes", "1e300"], 1, "--passes");
    one_line_error(&["life", "--target", "sim:toy", "--sample-days", "4000000000"], 1, "--sample-days");
    one_line_error(&["serve", "--threads", "100000000", "/nonexistent-flashlab-dir"], 1, "--threads");
    one_line_error(&["sqlite", "--target", "sim:toy", "--transactions", "18446744073709551615"], 1, "--transactions");
}

// ---- 2: extreme values in a results file ----

#[test]
fn report_on_extreme_values_finishes() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../flashlab-report/tests/fixtures/wsat-toy.json");
    let text = std::fs::read_to_string(src).unwrap();
    for x in ["5e-324", "1.7e308"] {
        // Every IOPS and WAF value becomes x.
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        for iv in doc["result"]["intervals"].as_array_mut().unwrap() {
            iv["iops"] = serde_json::json!(x.parse::<f64>().unwrap());
            iv["write_amplification"] = serde_json::json!(x.parse::<f64>().unwrap());
        }
        let input = scratch("hard", &format!("extreme-{x}.json"));
        std::fs::write(&input, serde_json::to_string(&doc).unwrap()).unwrap();
        let html = scratch("hard", &format!("extreme-{x}.html"));
        let out = within(Duration::from_secs(20), &["report", input.to_str().unwrap(), "-o", html.to_str().unwrap()]);
        assert!(out.status.success(), "{x}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(std::fs::metadata(&html).unwrap().len() > 1000);
    }
}

// ---- 3: a trace with a huge gap ----

#[test]
fn trace_with_a_gap_of_decades_replays_in_seconds() {
    // Two writes 90 years apart (fio iolog v3 timestamps are microseconds).
    let gap_us: u64 = 90 * 365 * 86_400 * 1_000_000;
    let trace = scratch("hard", "gap.iolog3");
    std::fs::write(
        &trace,
        format!("fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n10 /dev/sdb write 0 4096\n{gap_us} /dev/sdb write 8192 4096\n"),
    )
    .unwrap();
    let out = within(Duration::from_secs(60), &["life", "--target", "sim:toy", "--trace", trace.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A gap beyond 100 years is refused, naming the trace.
    let long = scratch("hard", "gap-long.iolog3");
    std::fs::write(
        &long,
        format!("fio version 3 iolog\n10 /dev/sdb write 0 4096\n{} /dev/sdb write 8192 4096\n", gap_us * 2),
    )
    .unwrap();
    one_line_error(&["life", "--target", "sim:toy", "--trace", long.to_str().unwrap()], 1, "gap-long.iolog3");
    // Sector numbers that would wrap at 512 bytes each are refused too.
    let wrap = scratch("hard", "wrap.blkparse");
    std::fs::write(&wrap, "  8,0    0        1     0.000000000   100  D  WS 36028797018963968 + 8 [app]\n").unwrap();
    one_line_error(&["life", "--target", "sim:toy", "--trace", wrap.to_str().unwrap()], 1, "wrap.blkparse");
}

// ---- 4: job section names never become paths outside the target ----

#[test]
fn job_names_stay_inside_the_target_directory() {
    let base = scratch("hard", "names");
    let target = base.join("target");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&target).unwrap();
    let outside_abs = base.join("abs-outside");
    // The user's files where a job named after a path would land: they must stay untouched
    // (flashlab used to refuse the run because of them, or write there when they were absent).
    let theirs = [format!("{}.0.0", outside_abs.display()), format!("{}/escape.0.0", base.display())];
    for f in &theirs {
        std::fs::write(f, b"the user's").unwrap();
    }
    let job = scratch("hard", "names.fio");
    std::fs::write(&job, format!("[global]\nrw=write\nbs=4k\nsize=64k\n[{}]\n[../escape]\n", outside_abs.display()))
        .unwrap();
    let out = flashlab(&["run", job.to_str().unwrap(), "--target", target.to_str().unwrap(), "--ioengine", "psync"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut outside: Vec<String> =
        std::fs::read_dir(&base).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    outside.sort();
    assert_eq!(outside, ["abs-outside.0.0", "escape.0.0", "target"], "files created beside the target directory");
    for f in &theirs {
        assert_eq!(std::fs::read(f).unwrap(), b"the user's", "{f}");
    }
    // flashlab removes its job files afterwards: nothing is left in the target either.
    assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
    std::fs::remove_dir_all(&base).unwrap();
}

// ---- 9: input limits, nonsense values, negative numbers, outputs checked first ----

#[test]
fn dev_zero_inputs_fail_at_once() {
    let t = Instant::now();
    one_line_error(&["run", "/dev/zero", "--target", "sim:toy"], 1, "/dev/zero");
    one_line_error(&["life", "--target", "sim:toy", "--trace", "/dev/zero"], 1, "/dev/zero");
    one_line_error(&["report", "/dev/zero", "-o", scratch("hard", "zero.html").to_str().unwrap()], 1, "/dev/zero");
    one_line_error(&["age", "--target", "sim:/dev/zero"], 1, "/dev/zero");
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}

#[test]
fn offsets_and_sizes_beyond_the_limit_are_refused() {
    let job = scratch("hard", "wrap.fio");
    // offset + bs used to wrap past 2^64 and pass the "room for a block" check.
    std::fs::write(&job, "[j]\nrw=randwrite\nsize=64k\noffset=18446744073709547520\n").unwrap();
    let e = one_line_error(&["run", job.to_str().unwrap(), "--target", "sim:toy"], 1, "offset");
    assert!(e.contains("wrap.fio:4"), "{e}");
    let dir = scratch("hard", "wrap-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let e = one_line_error(&["run", job.to_str().unwrap(), "--target", dir.to_str().unwrap()], 1, "offset");
    assert!(e.contains("wrap.fio:4"), "{e}");
}

#[test]
fn nonsense_values_are_refused() {
    one_line_error(&["serve", "--time-scale", "1e-300", "/nonexistent-flashlab-dir"], 1, "--time-scale");
    one_line_error(&["life", "--target", "sim:toy", "--pe-cycles", "0"], 1, "--pe-cycles");
    // A profile whose published numbers are NaN: calibrate fails, naming the field.
    let toy = flashsim::builtin::TOY.to_string();
    let profile = scratch("hard", "nan-profile.toml");
    let cal = "\n[calibrate]\nsource = \"test\"\nprocedure = \"vendor\"\n[calibrate.vendor]\nseq_read_mbs = nan\n";
    std::fs::write(&profile, format!("{toy}{cal}")).unwrap();
    let target = format!("sim:{}", profile.display());
    one_line_error(&["calibrate", &target], 1, "seq_read_mbs");
}

#[test]
fn negative_numbers_give_one_line_naming_the_flag() {
    one_line_error(&["breakdown", "--target", "sim:toy", "--ios", "-5"], 2, "--ios");
    one_line_error(&["fill", "--target", "sim:toy", "--iodepth", "-1"], 2, "--iodepth");
    one_line_error(&["life", "--pe-cycles", "-3"], 2, "--pe-cycles");
    one_line_error(&["bench", "--seed", "-1"], 2, "--seed");
}

#[test]
fn unwritable_outputs_fail_before_the_run() {
    for (flag, cmd) in [("--json", "bench"), ("--report", "bench"), ("--csv", "wsat")] {
        let out = flashlab(&[cmd, "--target", "sim:toy", flag, "/nonexistent-flashlab-dir/x.out"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(flag) && stderr.contains("/nonexistent-flashlab-dir"), "{stderr}");
        assert!(
            out.stdout.is_empty(),
            "{cmd} {flag}: the run started before the check: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let dir = scratch("hard", "a-directory");
    std::fs::create_dir_all(&dir).unwrap();
    one_line_error(&["bench", "--target", "sim:toy", "--json", dir.to_str().unwrap()], 1, "is a directory");
}

/// The arguments each command needs besides its outputs (issue 48, item 4).
fn minimal_args(cmd: &str) -> Option<Vec<&'static str>> {
    Some(match cmd {
        "age" | "bench" | "fill" | "wsat" => vec!["--target", "sim:toy"],
        "run" | "phone run" => vec!["job.fio"],
        "report" => vec!["results.json"],
        "calibrate" => vec!["toy"],
        "serve" => vec!["mnt"],
        "sweep" => vec!["sweep.toml", "--out", "sweep-out"],
        "validate-fs" => vec!["--workload", "fill"],
        "profiles" | "sim waf" | "sim placement" | "doctor" | "breakdown" | "sqlite" | "life" | "phone devices"
        | "phone doctor" | "phone bench" | "phone fill" | "phone age" => vec![],
        _ => return None,
    })
}

/// Every command flashlab runs (`sim waf`, `phone bench`, ...), from `--help`.
fn leaf_commands() -> Vec<String> {
    fn subs(args: &[&str]) -> Vec<String> {
        let o = flashlab(&[args, &["--help"]].concat());
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .filter(|c| c != "help")
            .collect()
    }
    let mut out = Vec::new();
    for c in subs(&[]) {
        match subs(&[&c]) {
            s if s.is_empty() => out.push(c),
            s => out.extend(s.into_iter().map(|s| format!("{c} {s}"))),
        }
    }
    out
}

#[test]
fn every_command_refuses_conflicting_or_unwritable_outputs_before_it_starts() {
    let commands = leaf_commands();
    assert!(commands.len() >= 20, "{commands:?}");
    let mut checked = 0;
    for cmd in &commands {
        if cmd == "completions" || cmd == "man" {
            continue; // no results, no output options
        }
        let args = minimal_args(cmd).unwrap_or_else(|| panic!("flashlab {cmd}: add its arguments to minimal_args"));
        let base: Vec<&str> = cmd.split(' ').chain(args).collect();
        for (outputs, what) in [
            (vec!["--json", "/nonexistent-flashlab-dir/x.json"], "/nonexistent-flashlab-dir"),
            (vec!["--json", "-", "--csv", "-"], "--csv"),
        ] {
            let all = [&base[..], &outputs[..]].concat();
            let out = within(Duration::from_secs(20), &all);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "flashlab {all:?}: {stderr}");
            let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            // One line, the error: no banner, no progress, no note of work begun.
            assert_eq!(lines.len(), 1, "flashlab {all:?} started before failing:\n{stderr}");
            assert!(lines[0].starts_with("flashlab: error:") && lines[0].contains(what), "flashlab {all:?}: {stderr}");
            assert!(out.stdout.is_empty(), "flashlab {all:?} wrote: {}", String::from_utf8_lossy(&out.stdout));
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked}");
    // The conflict named as such where both outputs apply (it used to surface after the run).
    one_line_error(
        &["wsat", "--target", "sim:toy", "--json", "-", "--csv", "-"],
        1,
        "only one of them can take standard output",
    );
    let job = scratch("hard", "conflict.fio");
    std::fs::write(&job, "[j]\nrw=randwrite\nbs=4k\nsize=1m\n").unwrap();
    one_line_error(
        &["run", job.to_str().unwrap(), "--target", "sim:toy", "--output-format", "json", "--csv", "-"],
        1,
        "--csv -",
    );
}

// ---- 10: filename= on simulated targets ----

#[test]
fn same_filename_is_the_same_file_on_a_simulated_device() {
    // Each job alone takes most of the toy device's filesystem: two separate files would not fit.
    let job = scratch("hard", "shared.fio");
    std::fs::write(
        &job,
        "[global]\nfilename=shared.dat\nsize=160m\nbs=1m\n[fill]\nrw=write\n[rand]\nstonewall\nrw=randwrite\nbs=4k\nio_size=8m\n",
    )
    .unwrap();
    let out = flashlab(&["run", job.to_str().unwrap(), "--target", "sim:toy", "--fs", "ext4"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("fill:") && stdout.contains("rand:"), "{stdout}");
    // Two different names on the same device do not fit: the option is not ignored.
    std::fs::write(
        &job,
        "[global]\nsize=160m\nbs=1m\n[fill]\nfilename=a.dat\nrw=write\n[rand]\nfilename=b.dat\nstonewall\nrw=randwrite\nbs=4k\nio_size=8m\n",
    )
    .unwrap();
    let out = flashlab(&["run", job.to_str().unwrap(), "--target", "sim:toy", "--fs", "ext4"]);
    assert!(!out.status.success(), "two 160 MiB files fit on the 256 MiB toy device?");
}

// ---- 8: thinktime on a simulated target ----

#[test]
fn thinktime_stalls_the_simulated_job() {
    let run = |extra: &str| -> serde_json::Value {
        let job = scratch("hard", "think.fio");
        std::fs::write(&job, format!("[t]\nrw=randread\nbs=4k\nsize=16m\nnumber_ios=200\niodepth=4\n{extra}")).unwrap();
        let out = flashlab(&["run", job.to_str().unwrap(), "--target", "sim:toy", "--output-format", "json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let runtime_ms = |v: &serde_json::Value| v["jobs"][0]["job_runtime"].as_f64().unwrap();
    let none = runtime_ms(&run(""));
    // fio: after every completed I/O (thinktime_blocks=1) drain the queue and stall 1 ms: 200 I/Os
    // take at least 199 ms.
    let every = runtime_ms(&run("thinktime=1000\n"));
    assert!(every >= 199.0, "thinktime=1000 with 200 I/Os: {every} ms");
    // Every 10 completed I/Os: about 20 stalls, 19..=20 ms of thinking.
    let blocks = runtime_ms(&run("thinktime=1ms\nthinktime_blocks=10\n"));
    assert!(blocks >= none + 18.0 && blocks < every, "thinktime_blocks=10: {blocks} ms (none {none}, every {every})");
    // Think times of days: the engine does not walk every 500 ms window across them.
    let job = scratch("hard", "think-days.fio");
    std::fs::write(&job, "[t]\nrw=randread\nbs=4k\nsize=16m\nnumber_ios=20\nthinktime=30d\n").unwrap();
    let out = within(
        Duration::from_secs(20),
        &["run", job.to_str().unwrap(), "--target", "sim:toy", "--output-format", "json"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["jobs"][0]["job_runtime"].as_f64().unwrap() >= 19.0 * 30.0 * 86_400e3, "{}", v["jobs"][0]["job_runtime"]);
    // A spin longer than the think time is refused, naming the option.
    let job = scratch("hard", "spin.fio");
    std::fs::write(&job, "[t]\nrw=randread\nsize=1m\nthinktime=10\nthinktime_spin=20\n").unwrap();
    one_line_error(&["run", job.to_str().unwrap(), "--target", "sim:toy"], 1, "thinktime_spin");
}

/// fio itself on the same job file and directory: think time stretches both runtimes by at
/// least the thinking (capability `fio` of FLASHLAB_TEST_SKIP).
#[test]
fn thinktime_on_a_real_file_matches_fio() {
    let test = "thinktime_on_a_real_file_matches_fio";
    if Command::new("fio").arg("--version").output().is_err() {
        let skip = std::env::var("FLASHLAB_TEST_SKIP").unwrap_or_default();
        if skip.split(',').any(|s| s.trim() == "fio" || s.trim() == "all") {
            println!("SKIPPED {test}: fio is not installed");
            return;
        }
        panic!("{test}: needs capability 'fio' (fio is not installed; FLASHLAB_TEST_SKIP=fio skips it)");
    }
    let dir = scratch("hard", "think-real");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let job = scratch("hard", "think-real.fio");
    // 60 reads, a 2 ms think after every 3: 20 thinks, at least 40 ms.
    std::fs::write(
        &job,
        "[t]\nrw=randread\nbs=4k\nsize=4m\nnumber_ios=60\nthinktime=2ms\nthinktime_blocks=3\nioengine=psync\n",
    )
    .unwrap();
    let fio = Command::new("fio")
        .args(["--output-format=json", &format!("--directory={}", dir.display()), job.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(fio.status.success(), "fio: {}", String::from_utf8_lossy(&fio.stderr));
    let fio_json: serde_json::Value = serde_json::from_slice(&fio.stdout).unwrap();
    for e in std::fs::read_dir(&dir).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    let out = flashlab(&["run", job.to_str().unwrap(), "--target", dir.to_str().unwrap(), "--output-format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ours: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (f, o) =
        (fio_json["jobs"][0]["job_runtime"].as_f64().unwrap(), ours["jobs"][0]["job_runtime"].as_f64().unwrap());
    assert_eq!(ours["jobs"][0]["read"]["total_ios"].as_u64(), Some(60));
    println!("runtime with thinktime: fio {f} ms, flashlab {o} ms");
    assert!(f >= 40.0 && o >= 40.0, "fio {f} ms, flashlab {o} ms: 20 thinks of 2 ms");
    // No upper bound or ratio: sleeps overshoot by a load-dependent amount on a shared machine
    // (fio 104 / flashlab 117 ms in one run, 170 / 87 ms in another under load 20); the lower
    // bound is physics, the same for both tools.
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- 6: memory bounded over simulated time ----

/// Peak resident memory (KiB) of `flashlab ARGS`, from wait4's rusage.
#[allow(clippy::zombie_processes)] // reaped by wait4, which also returns its rusage
fn peak_rss_kib(args: &[&str]) -> i64 {
    let child = Command::new(env!("CARGO_BIN_EXE_flashlab")).args(args).stdout(Stdio::null()).spawn().unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 on our own child's pid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
    assert_eq!(r, child.id() as i32);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "flashlab {args:?}: status {status}");
    ru.ru_maxrss
}

#[test]
fn a_simulated_year_of_life_runs_in_the_memory_of_a_month() {
    let life = |d: &'static str| {
        ["life", "--target", "sim:toy", "--usage", "light-phone", "--scale", "0.016", "--duration", d]
    };
    let month = peak_rss_kib(&life("30d"));
    let year = peak_rss_kib(&life("1y"));
    // Every file the usage model ever created used to keep a slot (and its name) in the
    // filesystem's tables: 14.5 MB after a month, 27.8 MB after a year, 37 MB after two.
    println!("peak RSS: 30 days {month} KiB, 1 year {year} KiB");
    assert!(year < month + 6 * 1024, "a year took {year} KiB, a month {month} KiB");
}
