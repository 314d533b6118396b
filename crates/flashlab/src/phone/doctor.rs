//! `flashlab phone doctor`: runs the doctor's capture script (scripts/capture-core.sh, the same
//! one scripts/capture-adb.sh uses) on the phone as the shell user, pulls the captured tree and
//! judges it on the host with the same rules as any captured tree.

use super::adb::{join, Adb};
use super::cli::DoctorArgs;
use super::device::connect;
use crate::error::Error;

/// The capture script, built into the binary.
pub const CAPTURE_CORE: &str = include_str!("../../../../scripts/capture-core.sh");

/// `flashlab phone doctor`: capture on the phone, judge here.
pub fn doctor(a: &DoctorArgs) -> Result<(), Error> {
    let mut adb = Adb::new(a.conn.adb.as_deref());
    let dev = connect(&mut adb, a.conn.serial.as_deref())?;
    eprintln!("phone: {}", dev.label());
    if let Some(s) = &a.save {
        if s.exists() {
            return Err(Error::flag(format!("--save {}", s.display()), "exists; give a new directory"));
        }
    }
    let remote = a.remote_dir.trim_end_matches('/').to_string();
    let script = format!("{remote}/capture.sh");
    let tree_remote = format!("{remote}/tree");
    adb.shell(&format!("mkdir {}", join(&[&remote]))).map_err(|e| {
        e.noted(format!("(flashlab creates {remote} and removes only what it created; if a previous run left it: adb shell rm -rf {remote})"))
    })?;
    let local = tempfile::tempdir().map_err(|source| Error::Setup { what: "temporary directory", source })?;
    let tree_local = local.path().join("tree");
    let result = (|| {
        let sp = local.path().join("capture.sh");
        std::fs::write(&sp, CAPTURE_CORE).map_err(Error::io(&sp))?;
        adb.checked(&adb.args(&["push", &sp.display().to_string(), &script]))?;
        adb.shell(&join(&["sh", &script, &tree_remote]))?;
        adb.checked(&adb.args(&["pull", &tree_remote, &tree_local.display().to_string()]))?;
        Ok::<(), Error>(())
    })();
    let cleaned = adb.shell(&format!("rm -rf {}", join(&[&remote])));
    result?;
    cleaned
        .map_err(|e| Error::Phone(format!("the capture finished, but removing {remote} from the phone failed: {e}")))?;
    if !tree_local.join("doctor").is_dir() {
        return Err(Error::Phone(format!("adb pull {tree_remote}: the captured tree did not arrive")));
    }
    let report = flashlab_doctor::inspect(&tree_local);
    if let Some(s) = &a.save {
        copy_tree(&tree_local, s)?;
        eprintln!("captured tree saved to {} (flashlab doctor --root {} reads it again)", s.display(), s.display());
    }
    let inner = crate::cmd::doctor::document(&report)?;
    let phone = serde_json::json!({"serial": dev.serial, "model": dev.model, "android": dev.release, "sdk": dev.sdk, "abi": dev.abi, "root": dev.root});
    let doc = flashlab_results::Document::new(flashlab_results::Body::Phone(flashlab_results::body::PhoneBody {
        subcommand: "doctor".into(),
        phone: Some(phone),
        devices: Vec::new(),
        results: Some(Box::new(inner)),
    }));
    crate::cmd::doctor::print_report(&report, &doc, &a.out)
}

/// Copies a captured tree (files, directories and symlinks) to a new directory.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) -> Result<(), Error> {
    std::fs::create_dir_all(to).map_err(Error::io(to))?;
    for e in std::fs::read_dir(from).map_err(Error::io(from))? {
        let e = e.map_err(Error::io(from))?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let ft = e.file_type().map_err(Error::io(&src))?;
        if ft.is_symlink() {
            let t = std::fs::read_link(&src).map_err(Error::io(&src))?;
            std::os::unix::fs::symlink(t, &dst).map_err(Error::io(&dst))?;
        } else if ft.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(Error::io(&dst))?;
        }
    }
    Ok(())
}
