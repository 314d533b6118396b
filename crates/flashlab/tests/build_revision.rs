//! The build script's revision lookup (`build/revision.rs`, compiled here as it is in
//! `build.rs`): the override wins, and outside a repository there is no revision, so
//! `--version` falls back to "unknown" (what a build from a tarball without git metadata
//! shows). `packaging.rs` checks what the built binary prints in this checkout.

#[path = "../build/revision.rs"]
mod revision;

use std::path::Path;

#[test]
fn the_override_wins_and_a_blank_one_is_unset() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let r = revision::find(dir, Some(" 0123456789ab\n".to_string()));
    assert_eq!(r.rev.as_deref(), Some("0123456789ab"));
    assert!(r.watch.is_empty());
    let blank = revision::find(dir, Some("  ".to_string()));
    let unset = revision::find(dir, None);
    assert_eq!(blank.rev, unset.rev);
}

#[test]
fn a_directory_outside_any_repository_has_no_revision() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src").join("crates").join("flashlab");
    std::fs::create_dir_all(&dir).unwrap();
    let git = std::process::Command::new("git").arg("-C").arg(&dir).args(["rev-parse", "HEAD"]).output();
    assert!(
        !git.is_ok_and(|o| o.status.success()),
        "{} is inside a git repository: point TMPDIR outside one",
        dir.display()
    );
    let found = revision::find(&dir, None);
    assert_eq!(found.rev, None);
    assert!(found.watch.is_empty());
}
