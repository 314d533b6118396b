//! The files flashlab created on a real target, so that they are removed whatever happens:
//! on success (the step that made them deletes them), on error (the target's `Drop` removes
//! what is left) and on SIGINT, SIGTERM, SIGHUP or SIGQUIT ([`install_signal_handlers`]: a
//! thread that removes every registered file, then exits with 128 + the signal number as a
//! shell would report the signal; a second signal exits at once). Files are registered before
//! they are created and created under [`creating`], so a signal can never leave one behind.
//!
//! Only paths registered here are ever removed; flashlab never deletes a file it did not
//! create.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, RwLockReadGuard};

/// A set of paths to remove; clones share the set.
#[derive(Debug, Clone, Default)]
pub struct Cleanup {
    paths: Arc<Mutex<BTreeSet<PathBuf>>>,
}

impl Cleanup {
    /// An empty registry of files to remove.
    pub fn new() -> Cleanup {
        Cleanup::default()
    }

    /// The process-wide registry the signal handlers empty.
    pub fn global() -> &'static Cleanup {
        static G: OnceLock<Cleanup> = OnceLock::new();
        G.get_or_init(Cleanup::new)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<PathBuf>> {
        self.paths.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Remember `path` as created by flashlab (call before creating it, so a signal between
    /// creation and registration cannot leave it behind).
    pub fn register(&self, path: &Path) {
        self.lock().insert(path.to_path_buf());
    }

    /// Forget `path` without removing it.
    pub fn unregister(&self, path: &Path) {
        self.lock().remove(path);
    }

    /// Whether `path` is registered for removal.
    pub fn contains(&self, path: &Path) -> bool {
        self.lock().contains(path)
    }

    /// Every registered path.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.lock().iter().cloned().collect()
    }

    /// Whether nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Remove one registered file and forget it (a file already gone is fine). Refuses a path
    /// that is not registered.
    pub fn remove(&self, path: &Path) -> std::io::Result<()> {
        let mut g = self.lock();
        if !g.contains(path) {
            return Err(std::io::Error::other(format!("{}: not created by flashlab; not removing it", path.display())));
        }
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        g.remove(path);
        Ok(())
    }

    /// Remove every registered file; returns the ones that could not be removed (they stay
    /// registered).
    pub fn remove_all(&self) -> Vec<(PathBuf, std::io::Error)> {
        let mut g = self.lock();
        let mut failed = Vec::new();
        let paths: Vec<PathBuf> = g.iter().cloned().collect();
        for p in paths {
            match std::fs::remove_file(&p) {
                Ok(()) => {
                    g.remove(&p);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    g.remove(&p);
                }
                Err(e) => failed.push((p, e)),
            }
        }
        failed
    }
}

/// The signals every flashlab command handles the same way: clean up what flashlab created,
/// then exit with 128 + the signal number (130, 143, 129, 131), as a shell reports a signal.
/// A second signal while the cleanup runs exits at once with that status.
pub const HANDLED_SIGNALS: [i32; 4] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGQUIT,
];

/// The name of a handled signal (`SIGINT`), for messages.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        signal_hook::consts::SIGINT => "SIGINT",
        signal_hook::consts::SIGTERM => "SIGTERM",
        signal_hook::consts::SIGHUP => "SIGHUP",
        signal_hook::consts::SIGQUIT => "SIGQUIT",
        _ => "signal",
    }
}

/// Held (shared) by whoever creates a registered file, from just before the creating system
/// call until it returns; the signal thread takes it exclusively before it removes the files
/// and keeps it until the process exits. So a file is either created before the removal
/// (and removed) or never created: no fill file can appear after the cleanup.
static CREATE_GATE: RwLock<()> = RwLock::new(());

/// Hold this across the system call that creates a file registered in a [`Cleanup`] (register
/// first). After a signal it blocks until the process exits, so the file is never created.
pub fn creating() -> RwLockReadGuard<'static, ()> {
    CREATE_GATE.read().unwrap_or_else(|p| p.into_inner())
}

type Hook = Box<dyn FnOnce() + Send>;
static HOOKS: Mutex<Vec<Hook>> = Mutex::new(Vec::new());
/// Set by the first signal: a second one exits at once (signal-hook's conditional shutdown).
static SIGNALLED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Start (once per process) the signal thread of [`HANDLED_SIGNALS`]: on the first signal it
/// runs the hooks added with [`on_signal`] (in order), removes every file of
/// [`Cleanup::global`] (waiting, at most 5 s, for a creation in progress), says on stderr what
/// it removed and exits with 128 + the signal number. Later calls do nothing.
pub fn install_signal_handlers() -> std::io::Result<()> {
    static DONE: Mutex<bool> = Mutex::new(false);
    let mut done = DONE.lock().unwrap_or_else(|p| p.into_inner());
    if *done {
        return Ok(());
    }
    let flag = SIGNALLED.get_or_init(|| Arc::new(AtomicBool::new(false))).clone();
    for sig in HANDLED_SIGNALS {
        // Registered before the iterator's handler: a signal that finds the flag set (the
        // second one) exits at once.
        signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, flag.clone())?;
    }
    let mut signals = signal_hook::iterator::Signals::new(HANDLED_SIGNALS)?;
    std::thread::Builder::new().name("flashlab-signals".into()).spawn(move || {
        if let Some(sig) = signals.forever().next() {
            flag.store(true, Ordering::SeqCst);
            let name = signal_name(sig);
            eprintln!("flashlab: {name}: stopping and removing what flashlab created (again to exit at once)");
            let hooks = std::mem::take(&mut *HOOKS.lock().unwrap_or_else(|p| p.into_inner()));
            for h in hooks {
                h();
            }
            // No file is created from here on (see `creating`); wait for one in progress.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            let gate = loop {
                match CREATE_GATE.try_write() {
                    Ok(g) => break Some(g),
                    Err(std::sync::TryLockError::Poisoned(p)) => break Some(p.into_inner()),
                    Err(std::sync::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                        std::thread::sleep(std::time::Duration::from_millis(1))
                    }
                    Err(std::sync::TryLockError::WouldBlock) => break None,
                }
            };
            let c = Cleanup::global();
            let n = c.paths().len();
            let failed = c.remove_all();
            eprintln!("flashlab: {name}: removed {} file(s) flashlab created", n - failed.len());
            for (p, e) in failed {
                eprintln!("flashlab: could not remove {}: {e}", p.display());
            }
            std::mem::forget(gate);
            std::process::exit(128 + sig);
        }
    })?;
    *done = true;
    Ok(())
}

/// Run `hook` on the signal thread, before the files are removed, when a handled signal
/// arrives: a command that holds other resources (tracing instances) releases them there, and
/// one whose work keeps creating files waits there until it is between two steps.
pub fn on_signal(hook: impl FnOnce() + Send + 'static) {
    HOOKS.lock().unwrap_or_else(|p| p.into_inner()).push(Box::new(hook));
}

/// [`install_signal_handlers`] and [`on_signal`]`(before)`: every caller's `before` runs,
/// whoever installed the handlers first.
pub fn install_signal_handlers_with(before: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    on_signal(before);
    install_signal_handlers()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("flashlab-cleanup-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn removes_registered_files_only() {
        let d = tmpdir("reg");
        let c = Cleanup::new();
        let a = d.join("a");
        let b = d.join("b");
        let other = d.join("not-ours");
        for p in [&a, &b, &other] {
            std::fs::write(p, b"x").unwrap();
        }
        c.register(&a);
        c.register(&b);
        assert!(c.remove(&other).is_err(), "refuses unregistered");
        assert!(other.exists());
        c.remove(&a).unwrap();
        assert!(!a.exists() && !c.contains(&a));
        c.register(&d.join("never-created"));
        assert!(c.remove_all().is_empty());
        assert!(!b.exists() && c.is_empty());
        assert!(other.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn clones_share() {
        let c = Cleanup::new();
        let c2 = c.clone();
        c.register(Path::new("/nonexistent/flashlab-x"));
        assert_eq!(c2.paths().len(), 1);
        c2.unregister(Path::new("/nonexistent/flashlab-x"));
        assert!(c.is_empty());
    }
}
