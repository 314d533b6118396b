//! Carrying out a [`Plan`] over adb: create the directories, push, run with progress streamed
//! from the phone, pull the results document, and always remove what was created on the phone
//! — after success, after an error, and after Ctrl-C (which first stops flashlab on the phone
//! with SIGINT, so it removes its own files, then removes the directories).

use super::adb::{join, Adb};
use super::plan::{Plan, RESULTS};
use crate::error::Error;
use crate::progress::{Progress, LINE_PREFIX};
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// How long flashlab on the phone gets to stop and clean up after SIGINT.
const STOP_GRACE: Duration = Duration::from_secs(60);

/// SIGINT/SIGTERM set this flag instead of ending flashlab on the host.
fn interrupt_flag() -> Result<Arc<AtomicBool>, Error> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&flag))
            .map_err(|source| Error::Setup { what: "signal handler", source })?;
    }
    Ok(flag)
}

/// Runs the plan; the results document lands in `local_results`.
pub fn execute(adb: &Adb, plan: &Plan, local_results: &Path) -> Result<(), Error> {
    let stop = interrupt_flag()?;
    // Nothing exists on the phone yet: a failed mkdir leaves nothing to remove (and a
    // directory that already existed is not ours).
    adb.shell(&plan.mkdir_command()).map_err(|e| {
        e.noted(format!("(flashlab creates {} and removes only what it created; if a previous run left it, remove it: adb shell {})", plan.remote_dir, plan.cleanup_command()))
    })?;
    let result = (|| {
        let gen = tempfile::tempdir().map_err(|source| Error::Setup { what: "temporary directory", source })?;
        for (local, remote) in &plan.pushes {
            adb.checked(&adb.args(&["push", &local.display().to_string(), remote]))?;
        }
        for (name, text) in &plan.generated {
            let p = gen.path().join(name);
            std::fs::write(&p, text).map_err(Error::io(&p))?;
            adb.checked(&adb.args(&["push", &p.display().to_string(), &plan.remote(name)]))?;
        }
        adb.shell(&format!("chmod 755 {}", join(&[&plan.remote("flashlab")])))?;
        stream(adb, plan, &stop)?;
        if stop.load(Ordering::SeqCst) {
            return Err(Error::Interrupted { dir: plan.remote_dir.clone() });
        }
        adb.checked(&adb.args(&["pull", &plan.remote(RESULTS), &local_results.display().to_string()]))
            .map_err(|e| e.noted("(flashlab on the phone wrote no results document)"))?;
        Ok(())
    })();
    let cleaned = adb.shell(&plan.cleanup_command());
    match (result, cleaned) {
        (Ok(()), Ok(_)) => Ok(()),
        (Ok(()), Err(e)) => {
            Err(Error::Phone(format!("the run finished, but removing its files from the phone failed: {e}")))
        }
        (Err(e), Ok(_)) if e.is_interrupted() => Err(e),
        (Err(e), Ok(_)) => Err(e.noted(format!("(removed {} from the phone)", dirs(plan)))),
        (Err(e), Err(c)) => Err(e.noted(format!(
            "removing the run's files from the phone failed too: {c}; remove them by hand: adb shell {}",
            plan.cleanup_command()
        ))),
    }
}

fn dirs(plan: &Plan) -> String {
    match &plan.extra_dir {
        Some(d) => format!("{} and {d}", plan.remote_dir),
        None => plan.remote_dir.clone(),
    }
}

enum Line {
    Out(String),
    Err(String),
}

/// Runs flashlab on the phone, printing its messages and showing its progress, until it ends;
/// on Ctrl-C sends it SIGINT and waits for it.
fn stream(adb: &Adb, plan: &Plan, stop: &AtomicBool) -> Result<(), Error> {
    let args = adb.shell_args(&plan.run_command());
    let mut child = adb
        .command(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: Ctrl-C on the terminal reaches flashlab, which stops the phone
        // side first, not adb.
        .process_group(0)
        .spawn()
        .map_err(|source| Error::AdbStart { program: adb.program.clone(), source })?;
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    let t1 = tx.clone();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = t1.send(Line::Out(l));
        }
    });
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(Line::Err(l));
        }
    });
    let bar = Progress::new(&format!("phone {}", plan.what));
    let mut pid: Option<u32> = None;
    let mut stopping: Option<Instant> = None;
    let handle = |line: Line, pid: &mut Option<u32>| {
        let l = match line {
            Line::Out(l) | Line::Err(l) => l,
        };
        if let Some(p) = l.strip_prefix("flashlab-pid ").and_then(|p| p.trim().parse().ok()) {
            *pid = Some(p);
        } else if let Some(rest) = l.strip_prefix(LINE_PREFIX) {
            let (pct, msg) = rest.split_once("% ").unwrap_or((rest, ""));
            if let Ok(p) = pct.trim().parse::<f64>() {
                bar.set(p / 100.0, msg);
            }
        } else {
            eprintln!("phone: {l}");
        }
    };
    let status = loop {
        while let Ok(line) = rx.try_recv() {
            handle(line, &mut pid);
        }
        if let Some(st) = child.try_wait().map_err(Error::io(&adb.program))? {
            // The readers end with the pipes; take what is left.
            while let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
                handle(line, &mut pid);
            }
            break st;
        }
        if stop.load(Ordering::SeqCst) {
            match stopping {
                None => {
                    stopping = Some(Instant::now());
                    eprintln!("phone: interrupted: stopping flashlab on the phone (it removes its files)");
                    if let Some(p) = pid {
                        let _ = adb.shell(&format!("kill -INT {p}"));
                    } else {
                        let _ = child.kill();
                    }
                }
                Some(t) if t.elapsed() > STOP_GRACE => {
                    if let Some(p) = pid {
                        let _ = adb.shell(&format!("kill -KILL {p}"));
                    }
                    let _ = child.kill();
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    bar.finish();
    if stop.load(Ordering::SeqCst) {
        return Ok(());
    }
    if !status.success() {
        return Err(Error::Phone(format!(
            "flashlab {} on the phone failed ({status}); its messages are above",
            plan.what
        )));
    }
    Ok(())
}
