//! The files flashlab created on a real target, so that they are removed whatever happens:
//! on success (the step that made them deletes them), on error (the target's `Drop` removes
//! what is left) and on SIGINT/SIGTERM ([`install_signal_handlers`]: a thread that removes
//! every registered file, then exits with 130 or 143 as a shell would report the signal).
//!
//! Only paths registered here are ever removed; flashlab never deletes a file it did not
//! create.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// A set of paths to remove; clones share the set.
#[derive(Debug, Clone, Default)]
pub struct Cleanup {
    paths: Arc<Mutex<BTreeSet<PathBuf>>>,
}

impl Cleanup {
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

    pub fn contains(&self, path: &Path) -> bool {
        self.lock().contains(path)
    }

    pub fn paths(&self) -> Vec<PathBuf> {
        self.lock().iter().cloned().collect()
    }

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

/// Start (once per process) a thread that, on SIGINT or SIGTERM, removes every file of
/// [`Cleanup::global`] and exits with 128 + the signal number (130 / 143), saying on stderr
/// what it removed. Later calls do nothing.
pub fn install_signal_handlers() -> std::io::Result<()> {
    install_signal_handlers_with(|| {})
}

/// [`install_signal_handlers`], running `before` on the signal thread before the files are
/// removed: a command that holds other resources (tracing instances) releases them there, and
/// one whose work keeps creating files waits there until it is between two steps. The first
/// install of a process decides; later calls (and their `before`) do nothing.
pub fn install_signal_handlers_with(before: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    static DONE: OnceLock<()> = OnceLock::new();
    if DONE.get().is_some() {
        return Ok(());
    }
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM])?;
    let _ = DONE.set(());
    std::thread::Builder::new().name("flashlab-cleanup".into()).spawn(move || {
        if let Some(sig) = signals.forever().next() {
            before();
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
