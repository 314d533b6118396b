//! Issue 43, acceptance 1 and 2: the F2FS model against the kernel's F2FS. This host's kernel
//! has no F2FS, so the kernel side runs in a VM of the distribution's kernel (flashlab-vm; one
//! boot for every workload). Default Android mount, 256 MiB images:
//! 1. bytes per class within 15 % and requests within 25 %, model vs kernel, for fill,
//!    randwrite-fsync, nearly-full and the four SQLite journal modes;
//! 2. per SQLite commit, flushes (the fsyncs' cost) and bytes within 15 %, and the
//!    checkpoints (F2FS's expensive fsyncs) within 15 %.
//!
//! Needs the `vm` capability (and root, loop devices and tracefs inside the VM, which boots as
//! root); without it the test fails naming it, unless FLASHLAB_TEST_SKIP names it. With
//! FLASHLAB_VALIDATE_KEEP=DIR the kernel's results stay in DIR/guest-result.json, for
//! `flashlab validate-fs --fs f2fs --workload W --kernel-results DIR/guest-result.json`.

use flashlab_testcaps::{require, Cap};
use flashlab_validate::options::{f2fs_mount_options, FsChoice, Mount, Options, Workload};
use flashlab_validate::report::Report;

const WORKLOADS: [&str; 7] =
    ["fill", "randwrite-fsync", "nearly-full", "sqlite-delete", "sqlite-truncate", "sqlite-persist", "sqlite-wal"];

fn options(workload: &str) -> Options {
    let mut o = Options::new(Workload::parse(workload).unwrap(), Mount::Default);
    o.fs = FsChoice::F2fs;
    o.f2fs_mount = f2fs_mount_options("android").unwrap();
    o.image_bytes = 256 << 20;
    o.model_profile = "motox-2013".into();
    o.transactions = 60;
    o.writes = 300;
    o
}

fn per_commit_errors(r: &Report) -> Vec<String> {
    let p = r.per_commit.as_ref().expect("SQLite runs report per-commit numbers");
    let rel = |m: f64, k: f64| (m - k).abs() / k.max(1e-9);
    let mut out = Vec::new();
    if rel(p.model_flushes, p.kernel_flushes) > 0.15 {
        out.push(format!(
            "{}: flushes per commit model {:.2} kernel {:.2}",
            r.workload, p.model_flushes, p.kernel_flushes
        ));
    }
    if rel(p.model_write_bytes, p.kernel_write_bytes) > 0.15 {
        out.push(format!(
            "{}: bytes per commit model {:.0} kernel {:.0}",
            r.workload, p.model_write_bytes, p.kernel_write_bytes
        ));
    }
    let cp = r.behaviour.iter().find(|b| b.what == "checkpoints").expect("a checkpoints row");
    if rel(cp.model.unwrap_or(f64::NAN), cp.kernel).is_nan() || rel(cp.model.unwrap_or(0.0), cp.kernel) > 0.15 {
        out.push(format!("{}: checkpoints model {:?} kernel {}", r.workload, cp.model, cp.kernel));
    }
    out
}

#[test]
fn f2fs_model_matches_the_kernels_f2fs() {
    if !require(&[Cap::Vm]) {
        return;
    }
    std::env::set_var(flashlab_validate::f2fs_run::BIN_VAR, env!("CARGO_BIN_EXE_flashlab"));
    let os: Vec<Options> = WORKLOADS.iter().map(|w| options(w)).collect();
    let reports = flashlab_validate::f2fs_run::run_batch(&os).unwrap_or_else(|e| panic!("the VM run failed: {e}"));
    let mut errors = Vec::new();
    for (w, r) in WORKLOADS.iter().zip(reports) {
        let r = r.unwrap_or_else(|e| panic!("{w}: {e}"));
        print!("{}", r.render_text());
        errors.extend(r.class_errors(0.15, 0.25));
        if w.starts_with("sqlite-") {
            errors.extend(per_commit_errors(&r));
        }
    }
    assert!(errors.is_empty(), "model vs kernel F2FS:\n{}", errors.join("\n"));
}
