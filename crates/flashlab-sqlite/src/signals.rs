//! Ctrl-C and SIGTERM during `flashlab sqlite`: remove every database file flashlab created
//! (the paths registered in flashlab-real's cleanup registry), then exit with 130 or 143.
//!
//! flashlab-real's handler (`cleanup::install_signal_handlers`) removes the files at once and
//! exits; here SQLite keeps creating files while it runs (DELETE mode makes a new `-journal` in
//! every transaction), so a file created between the removal and the exit would stay behind.
//! The handler's first step therefore takes [`gate`], which the workload holds whenever SQLite
//! may create files (setup, each transaction, close, check), so the removal happens between two
//! transactions and nothing runs SQLite after it. If the gate is not free within 5 s (a hung
//! device), it removes the files anyway.

use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

static GATE: Mutex<()> = Mutex::new(());

/// Hold this while SQLite may create files.
pub fn gate() -> MutexGuard<'static, ()> {
    GATE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Install flashlab-real's SIGINT/SIGTERM handler with a first step that waits (at most 5 s,
/// for a hung device) until SQLite is between two transactions, and keeps it there until the
/// process exits.
pub fn install() -> std::io::Result<()> {
    flashlab_real::cleanup::install_signal_handlers_with(|| {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match GATE.try_lock() {
                // Held until the process exits: SQLite does not run again.
                Ok(g) => break std::mem::forget(g),
                Err(TryLockError::Poisoned(p)) => break std::mem::forget(p.into_inner()),
                Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1))
                }
                Err(TryLockError::WouldBlock) => break,
            }
        }
    })
}
