//! Issue 47, acceptance 6: fio's zoned mode on the kernel's zoned `null_blk` and `flashlab run`
//! on a simulated zoned device of the same zones see the same zone states and the same errors
//! for the same job files.
//!
//! The kernel side runs in a VM of the distribution's kernel (flashlab-vm; this host's kernel
//! has no `null_blk`), one boot for every job file: for each, a fresh zoned `null_blk`
//! (64 zones of 16 MiB (1 GiB), 12 MiB capacity, 4 open / 6 active), fio 3.x on it with JSON output,
//! then `blkzone report`. The simulated side runs `flashlab run --target
//! sim:tests/zbd/nullb.toml --zone-report` on the host. For each job file (tests/zbd/*.fio,
//! each saying what it exercises):
//! - both succeed or both fail;
//! - after a success, each job's I/Os and bytes per direction are the same;
//! - after an I/O error, flashlab's message has the errno fio printed and the same request
//!   (`write offset=..., buflen=...`);
//! - the zone reports are the same line for line (condition, write pointer), at a failure too:
//!   except for the random job, where fio's and flashlab's random choices of zone differ and
//!   the comparison is of what does not depend on them (zones per condition, bytes written).
//!
//! Needs the `vm` capability (and `fio`, `blkzone` on the host for the guest); without them
//! the test fails naming them, unless FLASHLAB_TEST_SKIP names them. With
//! FLASHLAB_ZBD_KEEP=DIR the kernel's outputs stay in DIR.

use flashlab_testcaps::{require, Cap};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

/// The zoned null_blk the kernel side loads: the zones of tests/zbd/nullb.toml.
const NULL_BLK: &str =
    "nr_devices=1 zoned=1 zone_size=16 zone_capacity=12 gb=1 memory_backed=1 bs=4096 zone_max_open=4 zone_max_active=6";

/// The job file whose zone choices are random (fio's and flashlab's generators differ).
const RANDOM: &str = "random-open-limit";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zbd")
}

/// One side's outcome for one job file.
#[derive(Debug, Default)]
struct Outcome {
    ok: bool,
    /// Per job: (read, write, trim) as (total_ios, io_bytes).
    jobs: BTreeMap<String, [(u64, u64); 3]>,
    stderr: String,
    /// (condition abbreviation, write pointer in sectors) per zone, from `blkzone report` lines.
    zones: Vec<(String, u64)>,
}

fn parse_zones(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("start:"))
        .map(|l| {
            let wp = l.split("wptr 0x").nth(1).and_then(|s| s.split_whitespace().next()).expect("a write pointer");
            let cond = l.split("zcond:").nth(1).and_then(|s| s.split(['(', ')']).nth(1)).expect("a condition");
            (cond.to_string(), u64::from_str_radix(wp, 16).expect("a hexadecimal write pointer"))
        })
        .collect()
}

/// fio's JSON (after any text fio printed before it) into per-job counts.
fn parse_jobs(text: &str) -> BTreeMap<String, [(u64, u64); 3]> {
    let Some(i) = text.find('{') else { return BTreeMap::new() };
    let v: serde_json::Value = serde_json::from_str(&text[i..]).expect("fio's JSON");
    let mut out = BTreeMap::new();
    for j in v["jobs"].as_array().expect("jobs") {
        let d = |k: &str| (j[k]["total_ios"].as_u64().unwrap_or(0), j[k]["io_bytes"].as_u64().unwrap_or(0));
        out.insert(j["jobname"].as_str().expect("jobname").to_string(), [d("read"), d("write"), d("trim")]);
    }
    out
}

fn jobs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".fio").map(str::to_string))
        .collect();
    names.sort();
    names
}

/// Every job file on a fresh zoned null_blk in one VM boot.
fn kernel(names: &[String], share: &Path) -> BTreeMap<String, Outcome> {
    std::fs::create_dir_all(share).unwrap();
    for n in names {
        std::fs::copy(fixtures().join(format!("{n}.fio")), share.join(format!("{n}.fio"))).unwrap();
    }
    let s = share.display();
    let script = format!(
        "set -u\ncd {s}\nfor n in {list}; do\n  modprobe -r null_blk 2>/dev/null\n  modprobe null_blk {NULL_BLK} || exit 90\n  fio --filename=/dev/nullb0 --output-format=json --output=$n.json $n.fio 2> $n.err\n  echo $? > $n.rc\n  blkzone report /dev/nullb0 > $n.zones || exit 91\ndone\n",
        list = names.join(" ")
    );
    std::fs::write(share.join("guest.sh"), script).unwrap();
    let vm = flashlab_vm::Vm::find(&["null_blk"]).unwrap_or_else(|e| panic!("no VM with null_blk: {e}"));
    let out = vm
        .run(&["sh".into(), share.join("guest.sh").to_string_lossy().into_owned()], share)
        .unwrap_or_else(|e| panic!("the VM run failed: {e}"));
    assert_eq!(
        out.status,
        0,
        "the guest script failed (90: null_blk, 91: blkzone):\n{}",
        flashlab_vm::tail(&out.console, 30)
    );
    names
        .iter()
        .map(|n| {
            let read = |ext: &str| std::fs::read_to_string(share.join(format!("{n}.{ext}"))).unwrap_or_default();
            let o = Outcome {
                ok: read("rc").trim() == "0",
                jobs: parse_jobs(&read("json")),
                stderr: read("err"),
                zones: parse_zones(&read("zones")),
            };
            (n.clone(), o)
        })
        .collect()
}

/// The job file on the simulated twin.
fn simulated(name: &str, dir: &Path) -> Outcome {
    let json = dir.join(format!("{name}.json"));
    let zones = dir.join(format!("{name}.zones"));
    let profile = fixtures().join("nullb.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .args(["run", "-q", "--output-format", "json", "--target"])
        .arg(format!("sim:{}", profile.display()))
        .arg("--output")
        .arg(&json)
        .arg("--zone-report")
        .arg(&zones)
        .arg(fixtures().join(format!("{name}.fio")))
        .output()
        .unwrap();
    Outcome {
        ok: out.status.success(),
        jobs: parse_jobs(&std::fs::read_to_string(&json).unwrap_or_default()),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        zones: parse_zones(&std::fs::read_to_string(&zones).unwrap_or_default()),
    }
}

/// What differs between the kernel's and the model's outcome of job file `name`.
fn differences(name: &str, k: &Outcome, m: &Outcome) -> Vec<String> {
    let mut d = Vec::new();
    if k.ok != m.ok {
        d.push(format!("{name}: kernel {} but flashlab {} ({})", verdict(k.ok), verdict(m.ok), m.stderr.trim()));
        return d;
    }
    if k.ok && k.jobs != m.jobs {
        d.push(format!("{name}: I/Os and bytes (read, write, trim) kernel {:?} flashlab {:?}", k.jobs, m.jobs));
    }
    // An I/O error: fio's "io_u error on file F: STRERROR: write offset=N, buflen=M".
    if let Some(line) = k.stderr.lines().find(|l| l.contains("io_u error")) {
        let what = line.split(": ").skip(2).collect::<Vec<_>>().join(": ");
        let (strerror, request) = what.split_once(": ").unwrap_or((&what, ""));
        if !m.stderr.contains(strerror) || !m.stderr.contains(request) {
            d.push(format!("{name}: fio printed '{line}', flashlab '{}'", m.stderr.trim()));
        }
    }
    if k.zones.is_empty() || k.zones.len() != m.zones.len() {
        d.push(format!("{name}: {} zones reported by the kernel, {} by flashlab", k.zones.len(), m.zones.len()));
    } else if name == RANDOM {
        fn census(z: &[(String, u64)]) -> (BTreeMap<String, usize>, u64) {
            let mut c: BTreeMap<String, usize> = BTreeMap::new();
            for (cond, _) in z {
                *c.entry(cond.clone()).or_default() += 1;
            }
            (c, z.iter().map(|(_, wp)| wp).sum())
        }
        if census(&k.zones) != census(&m.zones) {
            d.push(format!(
                "{name}: zones per condition and sectors written, kernel {:?} flashlab {:?}",
                census(&k.zones),
                census(&m.zones)
            ));
        }
    } else {
        for (i, (kz, mz)) in k.zones.iter().zip(&m.zones).enumerate() {
            if kz != mz {
                d.push(format!("{name}: zone {i}: kernel {kz:?} flashlab {mz:?}"));
            }
        }
    }
    d
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "succeeded"
    } else {
        "failed"
    }
}

#[test]
fn zoned_mode_sees_the_kernels_zone_states_and_errors() {
    if !require(&[Cap::Vm, Cap::Fio, Cap::Tool("blkzone")]) {
        return;
    }
    let names = jobs();
    assert!(names.len() >= 10, "{names:?}");
    let keep = std::env::var_os("FLASHLAB_ZBD_KEEP").map(PathBuf::from);
    let base = common::scratch("zbd-kernel", "run");
    let share = keep.clone().unwrap_or_else(|| base.join("guest"));
    let kernel = kernel(&names, &share);
    let sim_dir = base.join("sim");
    std::fs::create_dir_all(&sim_dir).unwrap();
    let mut errors = Vec::new();
    for n in &names {
        let m = simulated(n, &sim_dir);
        let k = &kernel[n];
        println!("{n}: kernel {} ({} zones), flashlab {}", verdict(k.ok), k.zones.len(), verdict(m.ok));
        errors.extend(differences(n, k, &m));
    }
    // The comparison compares something: jobs that succeed, jobs that fail, zones written.
    let ok = kernel.values().filter(|o| o.ok).count();
    assert!(ok >= 4 && ok < names.len(), "{ok} of {} job files succeeded on the kernel", names.len());
    assert!(
        kernel.values().any(|o| o.zones.iter().any(|(c, _)| c == "cl")),
        "no job file left a closed zone on the kernel"
    );
    assert!(errors.is_empty(), "zoned null_blk vs flashlab:\n{}", errors.join("\n"));
}
