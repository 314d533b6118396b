//! The git revision `flashlab --version` names, found by the build script (`build.rs`) and
//! checked by `tests/build_revision.rs`: `FLASHLAB_GIT_REVISION` when set (packagers building
//! from a tarball, and `scripts/check-install.sh`); else `git rev-parse` in the repository that
//! holds the crate's directory (a checkout, a worktree, or `cargo install --path` from one);
//! else none ("unknown": a copy without `.git`, or no git installed). Never fails.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the build script found.
pub struct Revision {
    /// 12 hex digits (or the override's text); None when there is no revision to name.
    pub rev: Option<String>,
    /// Files whose change moves HEAD (HEAD itself, the branch it points to, packed refs):
    /// the build script reruns when one changes. Empty without a repository.
    pub watch: Vec<PathBuf>,
}

/// Git's answer to `args` in `dir`, trimmed; None when git is missing, fails or says nothing.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// The revision of the crate in `dir`, with `from_env` (the override's value, blank meaning
/// unset) taking precedence.
pub fn find(dir: &Path, from_env: Option<String>) -> Revision {
    if let Some(rev) = from_env.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()) {
        return Revision { rev: Some(rev), watch: Vec::new() };
    }
    let Some(rev) = git(dir, &["rev-parse", "--short=12", "HEAD"]) else {
        return Revision { rev: None, watch: Vec::new() };
    };
    let abs = |p: String| if Path::new(&p).is_absolute() { PathBuf::from(p) } else { dir.join(p) };
    let mut watch = Vec::new();
    if let Some(g) = git(dir, &["rev-parse", "--git-dir"]) {
        watch.push(abs(g).join("HEAD"));
    }
    if let Some(c) = git(dir, &["rev-parse", "--git-common-dir"]) {
        let common = abs(c);
        watch.push(common.join("packed-refs"));
        if let Some(r) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
            watch.push(common.join(r));
        }
    }
    watch.retain(|w| w.exists());
    Revision { rev: Some(rev), watch }
}
