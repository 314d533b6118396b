//! `fill`: write latency per tenth of a fill, and the phone procedure's two test runs.
//!
//! Fields that every document has but the fill files written before the results document
//! lack (`procedure`, `filesystem`, `stack`; a decile's `p999_us`, `mean_us`,
//! `free_block_fraction`) are optional when read: absent means "this file does not say", and
//! tables show `-` for them. No value is made up for them. The fields those older files have
//! (p50/p90/p99, max, MB/s, WAF) stay required.

use crate::table::{Cell, Format, Table};
use crate::Extra;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A fill's results (`procedure` fill or phone).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FillBody {
    /// `fill` or `phone` (absent only in files written before the results document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub procedure: Option<String>,
    /// The simulated filesystem's label (absent only in files written before the results
    /// document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<String>,
    /// The system stack (trim policy, shared-storage layer); null only in files written before
    /// the results document.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub stack: serde_json::Value,
    /// The device's history before the fill (`--precondition`), on simulated targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precondition: Option<serde_json::Value>,
    /// Bytes of the fill file.
    pub bytes: u64,
    /// One row per tenth of the fill.
    pub deciles: Vec<FillDecile>,
    /// The phone procedure's /data test runs before and after the fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_before: Option<FillTestRun>,
    /// The phone procedure's /data test run after the fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_after: Option<FillTestRun>,
    /// The phone procedure's /data test file, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_bytes: Option<u64>,
    /// The rest of the fill's result (spec, fstrims, virtual time, device).
    pub result: Extra,
}

/// Write latency over a slice of writes, µs; MB/s over busy time; WAF within the slice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WriteLatency {
    /// Median write latency, µs.
    pub p50_us: f64,
    /// 90th-percentile write latency, µs.
    pub p90_us: f64,
    /// 99th-percentile write latency, µs.
    pub p99_us: f64,
    /// 99.9th-percentile write latency, µs (absent only in files written before the results
    /// document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p999_us: Option<f64>,
    /// Longest write, µs.
    pub max_us: f64,
    /// Mean write latency, µs (absent only in files written before the results document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_us: Option<f64>,
    /// Write bandwidth over the time the device was busy, MB/s (10^6 bytes/s).
    pub mbs: f64,
    /// NAND writes / host writes within the slice.
    pub write_amplification: f64,
}

impl WriteLatency {
    /// The cells under the columns p50 ... WAF.
    fn cells(&self) -> Vec<Cell> {
        [
            Some(self.p50_us),
            Some(self.p90_us),
            Some(self.p99_us),
            self.p999_us,
            Some(self.max_us),
            self.mean_us,
            Some(self.mbs),
            Some(self.write_amplification),
        ]
        .into_iter()
        .map(Cell::from)
        .collect()
    }
}

/// One tenth of the fill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FillDecile {
    /// How full the fill file is at the end of this tenth, percent (10, 20, ... 100).
    pub filled_pct: u32,
    /// The writes of this tenth.
    #[serde(flatten)]
    pub latency: WriteLatency,
    /// Free blocks / all blocks at the end of this tenth (absent only in files written before
    /// the results document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_block_fraction: Option<f64>,
    /// NAND bytes programmed on every device of the system per byte the application wrote in
    /// this tenth: the filesystem's writes and the devices' together (absent in files written
    /// before it was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_to_end_write_amplification: Option<f64>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One test run of the phone procedure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FillTestRun {
    /// `before` or `after` the fill.
    pub label: String,
    /// The test run's writes.
    #[serde(flatten)]
    pub latency: WriteLatency,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

const HEAD: [(&str, &str); 9] = [
    ("p50", "us"),
    ("p90", "us"),
    ("p99", "us"),
    ("p99.9", "us"),
    ("max", "us"),
    ("mean", "us"),
    ("write", "MB/s"),
    ("WAF", ""),
    ("free blocks", "%"),
];

impl FillBody {
    /// The deciles (main), then the phone procedure's test runs where it ran.
    pub fn tables(&self) -> Vec<Table> {
        let mut head = vec![("filled", "%")];
        head.extend(HEAD);
        head.push(("e2e WAF", ""));
        let mut t = Table::new("fill", &head)
            .format(0, Format::Fixed(0))
            .format(8, Format::Fixed(2))
            .format(9, Format::Fixed(1))
            .format(10, Format::Fixed(2));
        for d in &self.deciles {
            let mut row: Vec<Cell> = vec![d.filled_pct.into()];
            row.extend(d.latency.cells());
            row.push(d.free_block_fraction.map(|f| f * 100.0).into());
            row.push(d.end_to_end_write_amplification.into());
            t.row(row);
        }
        let mut out = vec![t];
        let runs: Vec<&FillTestRun> = self.data_before.iter().chain(self.data_after.iter()).collect();
        if !runs.is_empty() {
            // HEAD without its last column: a test run has no free-block figure of its own.
            let mut head = vec![("test", "")];
            head.extend(&HEAD[..HEAD.len() - 1]);
            let mut t = Table::new("/data test runs", &head).format(8, Format::Fixed(2));
            for r in runs {
                let mut row: Vec<Cell> = vec![r.label.as_str().into()];
                row.extend(r.latency.cells());
                t.row(row);
            }
            out.push(t);
        }
        out
    }
}
