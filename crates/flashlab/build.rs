//! Build script: the git revision for `flashlab --version`. `FLASHLAB_GIT_REVISION` wins (for
//! packagers building from a tarball); else `git rev-parse` in the source tree; else "unknown"
//! (e.g. `cargo install` from a copy without `.git`). Never fails the build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=FLASHLAB_GIT_REVISION");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let from_env = std::env::var("FLASHLAB_GIT_REVISION").ok().filter(|s| !s.trim().is_empty());
    let rev = from_env.or_else(|| {
        let rev = git(&dir, &["rev-parse", "--short=12", "HEAD"])?;
        // Rebuild when HEAD moves: HEAD itself, the branch it points to, packed refs.
        let abs = |p: String| if Path::new(&p).is_absolute() { PathBuf::from(p) } else { dir.join(p) };
        let mut watch = Vec::new();
        if let Some(g) = git(&dir, &["rev-parse", "--git-dir"]) {
            watch.push(abs(g).join("HEAD"));
        }
        if let Some(c) = git(&dir, &["rev-parse", "--git-common-dir"]) {
            let common = abs(c);
            watch.push(common.join("packed-refs"));
            if let Some(r) = git(&dir, &["symbolic-ref", "-q", "HEAD"]) {
                watch.push(common.join(r));
            }
        }
        for w in watch.iter().filter(|w| w.exists()) {
            println!("cargo:rerun-if-changed={}", w.display());
        }
        Some(rev)
    });
    println!("cargo:rustc-env=FLASHLAB_GIT_REVISION={}", rev.unwrap_or_else(|| "unknown".to_string()));
}
