//! Build script: the git revision for `flashlab --version` (`build/revision.rs` says where it
//! comes from; "unknown" when nowhere). Never fails the build.

#[path = "build/revision.rs"]
mod revision;

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/revision.rs");
    println!("cargo:rerun-if-env-changed=FLASHLAB_GIT_REVISION");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let found = revision::find(&dir, std::env::var("FLASHLAB_GIT_REVISION").ok());
    for w in &found.watch {
        println!("cargo:rerun-if-changed={}", w.display());
    }
    println!("cargo:rustc-env=FLASHLAB_GIT_REVISION={}", found.rev.as_deref().unwrap_or("unknown"));
}
