//! `flashlab run`'s verdict on fio's `verify`: every mismatch a job found goes to standard
//! error as fio prints it (offset, length, expected and received), and a job whose data did
//! not verify makes the command fail (exit status non-zero) once its results are written.

use flashlab_measure::JobResult;

/// `Err` naming each job whose verify found mismatches, after printing them.
pub fn verdict(results: &[(JobResult, String, u64, u32)]) -> Result<(), crate::error::Error> {
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
        Err(crate::error::Error::Verify { failed })
    }
}

/// The job's verify summary for the results document (`jobs[].extra.verify`).
pub fn extra(r: &JobResult) -> flashlab_results::Extra {
    let mut e = flashlab_results::Extra::new();
    if let Some(v) = &r.verify {
        e.insert("verify".into(), serde_json::to_value(v).unwrap_or_default());
    }
    e
}

/// One line for the text report: what verify checked and found.
pub fn text_line(r: &JobResult) -> Option<String> {
    let v = r.verify.as_ref()?;
    Some(format!(
        "  verify ({}): {} blocks, {} bytes read back, {} mismatch{}",
        v.method,
        v.blocks_verified,
        v.bytes_verified,
        v.mismatches,
        if v.mismatches == 1 { "" } else { "es" }
    ))
}
