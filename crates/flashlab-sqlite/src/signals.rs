//! Ctrl-C and SIGTERM during `flashlab sqlite`: remove every database file flashlab created
//! (the paths registered in flashlab-real's cleanup registry), then exit with 130 or 143.
//!
//! flashlab-real's own handler (`cleanup::install_signal_handlers`) removes the files at once
//! and exits; here SQLite keeps creating files while it runs (DELETE mode makes a new
//! `-journal` in every transaction), so a file created between the removal and the exit would
//! stay behind. This handler first takes [`gate`], which the workload holds whenever SQLite may
//! create files (setup, each transaction, close, check), so the removal happens between two
//! transactions and nothing runs SQLite after it. If the gate is not free within 5 s (a hung
//! device), it removes the files anyway.

use flashlab_real::cleanup::Cleanup;
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant};

static GATE: Mutex<()> = Mutex::new(());

/// Hold this while SQLite may create files.
pub fn gate() -> MutexGuard<'static, ()> {
    GATE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Start (once per process) the thread that handles SIGINT and SIGTERM.
pub fn install() -> std::io::Result<()> {
    static DONE: OnceLock<()> = OnceLock::new();
    if DONE.get().is_some() {
        return Ok(());
    }
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM])?;
    let _ = DONE.set(());
    std::thread::Builder::new().name("flashlab-sqlite-signals".into()).spawn(move || {
        if let Some(sig) = signals.forever().next() {
            let deadline = Instant::now() + Duration::from_secs(5);
            // Held until the process exits: SQLite does not run again.
            let _held = loop {
                match GATE.try_lock() {
                    Ok(g) => break Some(g),
                    Err(TryLockError::Poisoned(p)) => break Some(p.into_inner()),
                    Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(1))
                    }
                    Err(TryLockError::WouldBlock) => break None,
                }
            };
            let c = Cleanup::global();
            let n = c.paths().len();
            let failed = c.remove_all();
            let name = if sig == signal_hook::consts::SIGINT { "SIGINT" } else { "SIGTERM" };
            eprintln!("flashlab: {name}: removed {} file(s) flashlab created", n - failed.len());
            for (p, e) in failed {
                eprintln!("flashlab: could not remove {}: {e}", p.display());
            }
            std::process::exit(128 + sig);
        }
    })?;
    Ok(())
}
