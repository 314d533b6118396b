//! Acceptance: a traced breakdown on a loop device over a file in /tmp (root, tracefs and
//! loop devices needed: fails naming what is missing, unless FLASHLAB_TEST_SKIP names it).
//! Checks that most requests are joined with their block events, that their phases are in order (each ≥ −tolerance, so they add up to the
//! measured total with no phase negative beyond the tolerance), that every phase has its
//! percentiles, and that the tracing instance is gone afterwards.

use flashlab_breakdown::join::TOLERANCE_NS;
use flashlab_breakdown::run_real::{breakdown_real, RealOptions, PHASES};
use flashlab_breakdown::target::open_block;
use flashlab_breakdown::tracefs::{find_tracefs, load_layouts, TraceSession, DEFAULT_ROOTS};
use flashlab_breakdown::{job_matrix, Dir};
use flashlab_real::engine::EngineKind;
use flashlab_testcaps::Cap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A loop device over a file; detached and the file removed on drop.
struct LoopDev {
    dev: PathBuf,
    img: PathBuf,
}

impl LoopDev {
    fn new(tag: &str, size: u64) -> Result<LoopDev, String> {
        let img = std::env::temp_dir().join(format!("flashlab-bd-{tag}-{}.img", std::process::id()));
        let f = std::fs::File::create(&img).map_err(|e| e.to_string())?;
        f.set_len(size).map_err(|e| e.to_string())?;
        let out = Command::new("losetup").args(["-f", "--show", "--direct-io=on"]).arg(&img).output();
        match out {
            Ok(o) if o.status.success() => {
                let dev = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim().to_string());
                Ok(LoopDev { dev, img })
            }
            Ok(o) => {
                let _ = std::fs::remove_file(&img);
                Err(format!("losetup failed: {}", String::from_utf8_lossy(&o.stderr).trim()))
            }
            Err(e) => {
                let _ = std::fs::remove_file(&img);
                Err(format!("losetup: {e}"))
            }
        }
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
        let _ = std::fs::remove_file(&self.img);
    }
}

/// The tracefs root, once the machine is known to have root, tracefs and `more`
/// (flashlab_testcaps); `None` when FLASHLAB_TEST_SKIP asked to skip. From here on,
/// breakdown's own tracefs code failing to find or read it is a failure.
fn tracefs_or_skip(more: &[Cap]) -> Option<PathBuf> {
    if !flashlab_testcaps::require(&[&[Cap::Root, Cap::Tracefs], more].concat()) {
        return None;
    }
    let roots: Vec<&Path> = DEFAULT_ROOTS.iter().map(Path::new).collect();
    let root =
        find_tracefs(&roots).unwrap_or_else(|e| panic!("tracefs is mounted, but breakdown did not find it: {e}"));
    load_layouts(&root).unwrap_or_else(|e| panic!("breakdown could not read the block event layouts: {e}"));
    Some(root)
}

fn instances(root: &Path) -> Vec<String> {
    let prefix = format!("flashlab-breakdown-{}-", std::process::id());
    std::fs::read_dir(root.join("instances"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&prefix))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn loop_device_breakdown() {
    let Some(root) = tracefs_or_skip(&[Cap::Loop]) else { return };
    // The machine has loop devices (checked above): losetup failing here is a failure.
    let lo = LoopDev::new("run", 64 << 20).unwrap_or_else(|e| panic!("{e}"));
    let target = open_block(&lo.dev, true, 32 << 20).unwrap();
    let engine = if flashlab_testcaps::require_for("the io_uring runs at QD1 and QD32", &[Cap::IoUring]) {
        EngineKind::IoUring
    } else {
        EngineKind::Psync
    };
    let depths: &[u32] = if engine == EngineKind::IoUring { &[1, 32] } else { &[1] };
    let jobs = job_matrix(&[Dir::Read, Dir::Write], &[4096], depths);
    let ios = 600;
    let opts = RealOptions { ios, engine, seed: 1, tracefs_roots: vec![root.clone()] };
    let (res, _) = breakdown_real(&target, &jobs, &opts, &mut |_| {}).unwrap();
    assert_eq!(res.len(), jobs.len());
    for j in &res {
        let name = format!("{:?}", j.key);
        assert_eq!(j.submitted, ios, "{name}");
        assert!(
            j.joined * 10 >= j.submitted * 9,
            "{name}: only {} of {} requests joined ({:?})",
            j.joined,
            j.submitted,
            j.unmatched
        );
        assert!(
            j.consistent * 10 >= j.submitted * 9,
            "{name}: only {} of {} requests have every phase >= -{TOLERANCE_NS} ns",
            j.consistent,
            j.submitted
        );
        let b = &j.breakdown;
        assert_eq!(b.requests, j.joined);
        assert_eq!(b.phases.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), PHASES);
        for p in &b.phases {
            assert!(
                p.dist.p50_ns <= p.dist.p90_ns && p.dist.p90_ns <= p.dist.p99_ns,
                "{name} {}: {:?}",
                p.name,
                p.dist
            );
        }
        // Driver + device time is real time on a loop device; the total is at least it.
        assert!(b.phases[2].dist.p50_ns > 0, "{name}: D2C p50 {}", b.phases[2].dist.p50_ns);
        assert!(b.total.p50_ns >= b.phases[2].dist.p50_ns, "{name}");
        // The phase means add up to the mean total (each request's phases add up to its total).
        let sum: f64 = b.phases.iter().map(|p| p.dist.mean_ns).sum();
        assert!((sum - b.total.mean_ns).abs() <= 1.0, "{name}: phase means {sum} vs total {}", b.total.mean_ns);
        let share: f64 = b.phases.iter().map(|p| p.share).sum();
        assert!((share - 1.0).abs() < 1e-9, "{name}: shares {share}");
        assert_eq!(j.drain.lost, 0, "{name}: trace events lost");
    }
    assert!(instances(&root).is_empty(), "tracing instance left behind: {:?}", instances(&root));
}

#[test]
fn session_is_torn_down_on_drop() {
    let Some(root) = tracefs_or_skip(&[]) else { return };
    let layouts = load_layouts(&root).unwrap();
    let s = TraceSession::start(&root, layouts, 0, 1024).unwrap();
    let dir = s.dir().to_path_buf();
    assert!(dir.is_dir());
    assert_eq!(std::fs::read_to_string(dir.join("events/block/block_rq_issue/enable")).unwrap().trim(), "1");
    assert!(std::fs::read_to_string(dir.join("trace_clock")).unwrap().contains("[mono]"));
    s.on().unwrap();
    drop(s); // as on an error path
    assert!(!dir.exists(), "{} still exists", dir.display());
}
