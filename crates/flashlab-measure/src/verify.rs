//! What a job's data verification found (fio's `verify`): how many blocks and bytes were read
//! back and checked, how many did not match, and the first few mismatches with their offset and
//! expected and received values. fio's JSON has no such object (only `error`, and `total_err`
//! / `first_error` with `continue_on_error`); flashlab reports it as `flashlab_verify`.

use serde::{Deserialize, Serialize};

/// Mismatches kept with their details (the count goes on).
pub const MAX_REPORTED: usize = 8;

/// One block (one verify header's chunk) that did not read back as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyMismatch {
    /// Byte offset of the chunk in the file or device.
    pub offset: u64,
    /// Bytes of the chunk.
    pub len: u64,
    /// Which check failed (`magic`, `offset`, `numberio`, `header crc32c`, `crc32c`, `md5`,
    /// `sha256`, `pattern`, `sequence`).
    pub check: String,
    /// What was expected there.
    pub expected: String,
    /// What was read.
    pub received: String,
}

impl std::fmt::Display for VerifyMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "verify: bad {} at offset {}, length {}: expected {}, received {}",
            self.check, self.offset, self.len, self.expected, self.received
        )
    }
}

/// A job's verification, for its report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifySummary {
    /// fio's name of the method (`crc32c`, `md5`, `sha256`, `meta`, `pattern`, or `sim-tag`
    /// on a simulated device).
    pub method: String,
    /// Chunks (one header each) read back and checked.
    pub blocks_verified: u64,
    /// Bytes read back and checked.
    pub bytes_verified: u64,
    /// Chunks that did not match.
    pub mismatches: u64,
    /// The first [`MAX_REPORTED`] mismatches.
    pub first: Vec<VerifyMismatch>,
}

impl VerifySummary {
    /// A summary for `method` with nothing checked yet.
    pub fn new(method: &str) -> VerifySummary {
        VerifySummary { method: method.to_string(), ..Default::default() }
    }

    /// Count a mismatch, keeping the first few.
    pub fn record_mismatch(&mut self, m: VerifyMismatch) {
        self.mismatches += 1;
        if self.first.len() < MAX_REPORTED {
            self.first.push(m);
        }
    }
}
