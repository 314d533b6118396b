//! Writing result files: complete or not at all (written to a temporary file, then renamed),
//! and checked before a run starts, so a bad `--json`/`--csv`/`--report` path fails at once
//! rather than after an hour of work (as hyperfine's ExportManager creates its files first).

use crate::error::Error;
use flashlab_real::cleanup::{creating, Cleanup};
use flashlab_report::temp_path;
use std::path::Path;

/// A command's output file, through the workspace's one atomic writer
/// ([`flashlab_report::write_atomic`]), with its temporary file registered for removal so a
/// signal during the write leaves nothing.
pub fn write_file(path: &Path, contents: &[u8]) -> Result<(), Error> {
    let tmp = temp_path(path);
    if let Some(t) = &tmp {
        Cleanup::global().register(t);
    }
    let r = {
        let _gate = creating();
        flashlab_report::write_atomic(path, contents)
    };
    if let Some(t) = &tmp {
        Cleanup::global().unregister(t);
    }
    Ok(r?)
}

/// `value` as pretty JSON in the file `path` (complete or not at all).
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<(), Error> {
    let mut text = serde_json::to_string_pretty(value).map_err(|source| Error::Json { what: "the results", source })?;
    text.push('\n');
    write_file(path, text.as_bytes())
}

/// Check, before any work, that each output (`flag`, path) can be written: its directory
/// exists and takes a new file (the temporary file is created and removed again), and the
/// path is not a directory. Nothing at `path` itself is touched.
pub fn check_outputs(outputs: &[(&'static str, Option<&Path>)]) -> Result<(), Error> {
    for (flag, path) in outputs {
        let Some(path) = path else { continue };
        let bad = |problem: String| Error::Output { flag, path: path.to_path_buf(), problem };
        if path.is_dir() {
            return Err(bad("is a directory; give a file name".into()));
        }
        let tmp = temp_path(path).ok_or_else(|| bad("not a file name".into()))?;
        let dir = tmp.parent().unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(bad(format!("the directory {} does not exist", dir.display())));
        }
        Cleanup::global().register(&tmp);
        let r = {
            let _gate = creating();
            std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)
        };
        match r {
            Ok(_) => {
                let _ = Cleanup::global().remove(&tmp);
            }
            Err(e) => {
                Cleanup::global().unregister(&tmp);
                if e.kind() != std::io::ErrorKind::AlreadyExists {
                    return Err(bad(format!("cannot be written: {e}")));
                }
            }
        }
    }
    Ok(())
}
