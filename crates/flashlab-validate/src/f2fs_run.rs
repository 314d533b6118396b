//! `validate-fs --fs f2fs`: the host's side. This host's kernel has no F2FS, so the kernel's
//! side runs in a VM of the distribution's kernel ([`flashlab_vm`]): the jobs go into the VM's
//! share as a [`GuestRequest`], the VM runs `flashlab validate-fs --guest` ([`crate::guest`]),
//! and its results come back. Each job's file operations (or SQLite's recorded log) then run
//! on the F2FS model over the image's own layout ([`flashlab_simfs::Fs::f2fs_on`]), and both
//! sides' requests are classed by area and log ([`crate::f2fs_classify`]) and compared.

use crate::compare::{rows_by, tally_by};
use crate::error::Error;
use crate::f2fs_classify::{classify_kernel, classify_model, F2fsClass};
use crate::f2fs_events::Log;
use crate::guest::{result_path, GuestJob, GuestRequest, GuestResult};
use crate::options::{Options, Workload};
use crate::report::{BehaviourRow, Report};
use crate::requests::{self, Req, ReqOp};
use flashlab_simfs::{Fs, FsConfig, FsCounters, FsKind, FS_BLOCK};
use std::path::PathBuf;

/// The variable naming the flashlab binary the VM runs (else this process's own executable).
pub const BIN_VAR: &str = "FLASHLAB_BIN";

/// The flashlab binary to run in the VM.
fn flashlab_bin() -> Result<PathBuf, Error> {
    let p = match std::env::var_os(BIN_VAR) {
        Some(p) => PathBuf::from(p),
        None => std::env::current_exe().map_err(Error::io("/proc/self/exe"))?,
    };
    let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    if !name.starts_with("flashlab") || name.starts_with("flashlab_") || name.contains('-') {
        return Err(Error::Option {
            option: BIN_VAR,
            msg: format!(
                "{}: the VM runs `flashlab validate-fs --guest`; set {BIN_VAR} to the flashlab binary",
                p.display()
            ),
        });
    }
    Ok(p)
}

/// The F2FS model's mount options from the `-o` string: the ones the model knows set it;
/// the others (noatime, nosuid, inline_xattr, ...) are returned to be named in a note.
pub fn model_config(options: &str) -> (FsConfig, Vec<String>) {
    let mut cfg = FsConfig::new(FsKind::F2fs);
    let mut ignored = Vec::new();
    for opt in options.split(',').map(str::trim).filter(|o| !o.is_empty() && *o != "defaults") {
        if cfg.set_option(opt).is_err() {
            ignored.push(opt.to_string());
        }
    }
    (cfg, ignored)
}

/// Run every validation of `os` (all `--fs f2fs`) in one VM boot; each comes back as its
/// report or its error.
pub fn run_batch(os: &[Options]) -> Result<Vec<Result<Report, Error>>, Error> {
    for o in os {
        o.check()?;
    }
    let vm = flashlab_vm::Vm::find(&["f2fs", "loop"])
        .map_err(|e| Error::Missing { capability: "vm", msg: e.to_string() })?;
    let bin = flashlab_bin()?;
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let share = std::env::temp_dir().join(format!("flashlab-validate-vm-{}-{n}", std::process::id()));
    let _cleanup = RemoveDir(share.clone());
    std::fs::create_dir_all(&share).map_err(Error::io(&share))?;
    let request = share.join("request.json");
    let req = GuestRequest { jobs: os.iter().map(GuestJob::of).collect() };
    std::fs::write(&request, serde_json::to_vec(&req).map_err(|e| Error::Parse(e.to_string()))?)
        .map_err(Error::io(&request))?;
    let argv = vec![
        bin.to_string_lossy().to_string(),
        "validate-fs".into(),
        "--guest".into(),
        request.to_string_lossy().to_string(),
    ];
    let out = vm.run(&argv, &share).map_err(|e| Error::Missing { capability: "vm", msg: e.to_string() })?;
    if let Some(dir) = std::env::var_os("FLASHLAB_VALIDATE_KEEP") {
        let _ = std::fs::copy(result_path(&request), PathBuf::from(dir).join("guest-result.json"));
    }
    if out.status != 0 {
        return Err(Error::Tool {
            tool: format!("flashlab validate-fs --guest (in the VM, kernel {})", vm.release()),
            msg: format!("exit {}; the VM's console ended:\n{}", out.status, flashlab_vm::tail(&out.console, 25)),
        });
    }
    compare_saved(os, &result_path(&request), out.wall.as_secs_f64())
}

/// Compare the model with a guest's results saved earlier (`FLASHLAB_VALIDATE_KEEP=DIR` keeps
/// them as `DIR/guest-result.json`): the model side of [`run_batch`] without booting the VM.
pub fn compare_saved(
    os: &[Options],
    results: &std::path::Path,
    vm_wall_s: f64,
) -> Result<Vec<Result<Report, Error>>, Error> {
    let rp = results;
    let text = std::fs::read_to_string(rp).map_err(Error::io(rp))?;
    let results: Vec<GuestResult> =
        serde_json::from_str(&text).map_err(|e| Error::Parse(format!("{}: {e}", rp.display())))?;
    // One result per job, in order; or, from a batch, the result of each job's workload.
    let results: Vec<GuestResult> = if results.len() == os.len() {
        results
    } else {
        os.iter()
            .map(|o| {
                results.iter().find(|r| r.job.workload == o.workload.name()).cloned().ok_or_else(|| {
                    Error::Parse(format!("{}: no result for workload {}", rp.display(), o.workload.name()))
                })
            })
            .collect::<Result<_, _>>()?
    };
    Ok(os
        .iter()
        .zip(results)
        .map(|(o, r)| match &r.error {
            Some(e) => {
                Err(Error::Tool { tool: format!("validate-fs --guest {} (in the VM)", r.job.workload), msg: e.clone() })
            }
            None => compare(o, &r, vm_wall_s),
        })
        .collect())
}

/// Run one validation of `o` (`--fs f2fs`).
pub fn run(o: &Options) -> Result<Report, Error> {
    run_batch(std::slice::from_ref(o))?.pop().expect("one result per job")
}

/// Remove a directory on drop.
struct RemoveDir(PathBuf);
impl Drop for RemoveDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn log_of(l: u8) -> Option<Log> {
    [Log::HotData, Log::WarmData, Log::ColdData, Log::HotNode, Log::WarmNode, Log::ColdNode].get(l as usize).copied()
}

/// The model's run of the guest's job, and the comparison.
fn compare(o: &Options, g: &GuestResult, vm_wall_s: f64) -> Result<Report, Error> {
    let layout = g.layout.clone().ok_or_else(|| Error::Parse("the guest sent no layout".into()))?;
    let capacity = layout.block_count * FS_BLOCK;
    // The options in force on the kernel's side (its /proc/mounts line: what was asked for and
    // the kernel's own defaults, discard included where the device supports it), else those
    // asked for.
    let in_force = g.mount_line.split_whitespace().nth(3).map(str::to_string).unwrap_or_else(|| o.mount_options_f2fs());
    let (mut cfg, ignored) = model_config(&in_force);
    cfg.timestamp_granularity_ns = g.tick_ns.max(1);
    // Linux 6.1 sends discards from its discard thread, not from the checkpoint.
    cfg.discard_async = true;
    // The tunables the kernel chose for this volume, where the model has them.
    let mut taken = Vec::new();
    for (k, v) in &g.sysfs {
        if ["ipu_policy", "min_ipu_util", "min_fsync_blocks", "min_hot_blocks"].contains(&k.as_str())
            && cfg.set_option(&format!("{k}={v}")).is_ok()
        {
            taken.push(format!("{k}={v}"));
        }
    }
    let sys = crate::model_run::system_on(o, capacity, Fs::f2fs_on(cfg.clone(), &layout))?;
    let (trace, counters) = match o.workload {
        Workload::Sqlite(_) => {
            let (trace, _, _, c) = crate::sqlite_run::run_model_counted(sys, &g.sqlite_log, Some(&g.clock))?;
            (trace, c)
        }
        _ => {
            let m = crate::model_run::run_on(sys, &g.script, Some(&g.clock))?;
            (m.trace, m.counters)
        }
    };
    let (model_reqs, logs) = requests::from_model_logged(&trace, g.max_request);
    let logs: Vec<Option<Log>> = logs.into_iter().map(|l| l.and_then(log_of)).collect();
    let mc = classify_model(&layout, &model_reqs, &logs);
    let kc = classify_kernel(&layout, &g.requests, &g.f2fs.pages);
    // FLASHLAB_VALIDATE_DUMP=N prints 60 requests of each side from the N-th, with classes.
    if let Ok(n) = std::env::var("FLASHLAB_VALIDATE_DUMP").map(|v| v.parse::<usize>().unwrap_or(0)) {
        for (side, reqs, classes) in [("kernel", &g.requests, &kc), ("model", &model_reqs, &mc)] {
            for (r, c) in reqs.iter().zip(classes.iter()).skip(n).take(60) {
                eprintln!(
                    "{side} {:>12} {:?} {} {} +{}",
                    r.at_ns,
                    r.op,
                    c.name(),
                    r.offset / FS_BLOCK,
                    r.bytes / FS_BLOCK
                );
            }
        }
    }
    let mm = tally_by(&model_reqs, &mc, capacity);
    let km = tally_by(&g.requests, &kc, capacity);
    let classes = rows_by(&mm, &km, &F2fsClass::ALL, F2fsClass::name);
    let per_commit = match o.workload {
        Workload::Sqlite(_) => Some(crate::per_commit(o.transactions, &model_reqs, &g.requests)),
        _ => None,
    };
    let mut notes = vec![
        format!("kernel mount: {}", g.mount_line),
        format!(
            "requests: the kernel's as issued to the loop device (block_rq_issue); main-area writes classed by the log F2FS's f2fs_submit_page_write/_bio events gave their first block; the model's split at the loop queue's {} KiB limit",
            g.max_request >> 10
        ),
    ];
    // A comparison with kept results (`--kernel-results`) booted no VM this run.
    if vm_wall_s > 0.0 {
        notes.push(format!(
            "the VM (TCG) ran {:.0} s in all; the measured part took {:.1} s of guest time",
            vm_wall_s,
            g.wall_ns as f64 / 1e9
        ));
    }
    notes.push(format!(
        "the kernel's tunables for this volume: {}; the model took {}",
        g.sysfs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
        if taken.is_empty() { "none".to_string() } else { taken.join(" ") }
    ));
    if !ignored.is_empty() {
        notes.push(format!("mount options in force without effect on the model: {}", ignored.join(",")));
    }
    for (side, reqs) in [("kernel", &g.requests), ("model", &model_reqs)] {
        if let Some(n) = discard_timing(reqs) {
            notes.push(format!("{side}: {n}"));
        }
    }
    let reads = km.get(&F2fsClass::Read).map_or(0, |t| t.requests);
    if reads > 0 {
        notes.push(format!(
            "the kernel read {reads} requests (metadata not in its cache); the model reads only what cleaning moves"
        ));
    }
    Ok(Report {
        version: 1,
        fs: "f2fs".into(),
        workload: o.workload.name().to_string(),
        mount: o.mount_options_f2fs(),
        image_bytes: o.image_bytes,
        mkfs: if g.mkfs.is_empty() { "mkfs.f2fs".into() } else { g.mkfs.clone() },
        kernel: format!("Linux {} F2FS in a VM, loop device over a file in the guest's /dev/shm", g.kernel),
        model: format!("flashlab F2FS model ({}) over the image's layout, on sim:{}", cfg.label(), o.model_profile),
        classes,
        per_commit,
        free_space: None,
        placement: None,
        behaviour: behaviour(&counters, g, &model_reqs),
        notes,
    })
}

/// When the discards went out: from the last other request to the first and the last discard.
fn discard_timing(reqs: &[Req]) -> Option<String> {
    let first = reqs.iter().position(|r| r.op == ReqOp::Discard)?;
    let before = reqs[..first].iter().rev().find(|r| r.op != ReqOp::Discard).map_or(reqs[first].at_ns, |r| r.at_ns);
    let last = reqs.iter().rev().find(|r| r.op == ReqOp::Discard)?.at_ns;
    let s = |ns: u64| ns.saturating_sub(before) as f64 / 1e9;
    Some(format!(
        "discards went out from {:.2} s to {:.2} s after the request before the first one",
        s(reqs[first].at_ns),
        s(last)
    ))
}

/// What each side did, beside each other.
fn behaviour(c: &FsCounters, g: &GuestResult, model_reqs: &[Req]) -> Vec<BehaviourRow> {
    let k = &g.f2fs;
    let count = |f: &dyn Fn(&crate::f2fs_events::Victim) -> bool| k.victims.iter().filter(|v| f(v)).count() as f64;
    let discard_bytes = |r: &[Req]| r.iter().filter(|q| q.op == ReqOp::Discard).map(|q| q.bytes).sum::<u64>() as f64;
    let row = |what: &str, model: f64, kernel: f64| BehaviourRow {
        what: what.into(),
        model: (!model.is_nan()).then_some(model),
        kernel,
    };
    let mut rows = vec![
        row("checkpoints", c.checkpoints as f64, k.checkpoints.len() as f64),
        row("fsyncs", f64::NAN, k.fsyncs.len() as f64),
        row("fsyncs that checkpointed", f64::NAN, k.fsyncs.iter().filter(|r| r.as_str() != "no needed").count() as f64),
        row(
            "segments cleaned, foreground",
            c.cleaned_segments_foreground as f64,
            count(&|v| v.0 == "LFS" && v.1.starts_with("Foreground")),
        ),
        row(
            "segments cleaned, background",
            c.cleaned_segments_background as f64,
            count(&|v| v.0 == "LFS" && v.1.starts_with("Background")),
        ),
        row("SSR segments picked", f64::NAN, count(&|v| v.0.contains("SSR"))),
        row("blocks written in place", f64::NAN, k.in_place as f64),
        row("discard requests", c.discards as f64, k.discards.len() as f64),
        row("discarded MiB", discard_bytes(model_reqs) / 1048576.0, discard_bytes(&g.requests) / 1048576.0),
    ];
    // The kernel's reasons, each as a row of its own.
    let mut reasons: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
    for r in &k.checkpoints {
        *reasons.entry(format!("  checkpoint for {r}")).or_default() += 1.0;
    }
    for r in k.fsyncs.iter().filter(|r| r.as_str() != "no needed") {
        *reasons.entry(format!("  fsync checkpoint: {r}")).or_default() += 1.0;
    }
    rows.extend(reasons.into_iter().map(|(what, n)| row(&what, f64::NAN, n)));
    rows
}
