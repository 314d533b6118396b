//! `flashlab run`'s verdict on fio's `verify`: every mismatch a job found goes to standard
//! error as fio prints it (offset, length, expected and received), and a job whose data did
//! not verify makes the command fail (exit status non-zero) once its results are written.

use flashlab_measure::JobResult;

/// `Err` naming each job whose verify found mismatches, after printing them.
pub fn verdict(results: &[(JobResult, String, u64, u32)]) -> Result<(), String> {
    let mut failed = Vec::new();
    for (r, ..) in results {
        let Some(v) = r.verify.as_ref().filter(|v| v.mismatches > 0) else { continue };
        for m in &v.first {
            eprintln!("{}: {m}", r.name);
        }
        if v.mismatches > v.first.len() as u64 {
            eprintln!("{}: ... {} more", r.name, v.mismatches - v.first.len() as u64);
        }
        let first = &v.first[0];
        failed.push(format!(
            "job '{}': {} of {} blocks did not verify ({}), first at offset {}",
            r.name, v.mismatches, v.blocks_verified, v.method, first.offset
        ));
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("verify failed: {}", failed.join("; ")))
    }
}
