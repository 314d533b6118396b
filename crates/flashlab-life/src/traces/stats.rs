//! What a trace asks of a device, in the terms of `sim waf --distribution` and fio's job
//! options: the read/write ratio, the block-size mix and how skewed the writes are (the share
//! of block writes that land on the hottest 1 %, 10 % and 20 % of the 4 KiB blocks the trace
//! writes). Two traces with the same volume age a device differently when these differ:
//! skew and small writes decide write amplification.

use super::TraceOp;
use flashsim::Op;
use serde::Serialize;
use std::collections::HashMap;

/// Blocks the skew is measured in.
pub const BLOCK: u64 = 4096;
/// Sizes listed in the block-size mix; the rest are summed as "other".
const TOP_SIZES: usize = 8;

/// One size of the block-size mix.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SizeShare {
    /// Request size, in bytes.
    pub bytes: u64,
    /// Share of the direction's requests.
    pub share: f64,
}

/// The share of block writes that go to the hottest `top` fraction of the written blocks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Skew {
    /// The hottest fraction of the written blocks (0.01, 0.1, 0.2).
    pub top: f64,
    /// Share of block writes that go to them.
    pub write_share: f64,
}

/// What a trace holds: counts, bytes, size mix, read share and write skew.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceStats {
    /// Requests of every kind.
    pub requests: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Trim (discard) requests.
    pub trims: u64,
    /// Flush requests.
    pub flushes: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Reads over reads + writes, by requests and by bytes.
    pub read_fraction_requests: f64,
    /// Reads over reads + writes, by bytes.
    pub read_fraction_bytes: f64,
    /// The most common write and read sizes (share of the direction's requests), largest share
    /// first; `other` is the share of the sizes not listed.
    pub write_sizes: Vec<SizeShare>,
    /// Share of write requests of sizes not listed.
    pub write_sizes_other: f64,
    /// The most common read sizes, largest share first.
    pub read_sizes: Vec<SizeShare>,
    /// Share of read requests of sizes not listed.
    pub read_sizes_other: f64,
    /// Distinct 4 KiB blocks written, and block writes (a request covers every block it
    /// touches).
    pub written_blocks: u64,
    /// Block writes: every 4 KiB block each write request touches.
    pub block_writes: u64,
    /// Block writes per written block, on average (1: every block written once).
    pub writes_per_block: f64,
    /// Share of block writes to the hottest 1 %, 10 % and 20 % of the written blocks.
    pub write_skew: Vec<Skew>,
}

fn size_mix(counts: HashMap<u64, u64>, total: u64) -> (Vec<SizeShare>, f64) {
    let mut v: Vec<(u64, u64)> = counts.into_iter().collect();
    // Most requests first; equal counts by size, so the order is the same every run.
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let t = total.max(1) as f64;
    let listed: Vec<SizeShare> =
        v.iter().take(TOP_SIZES).map(|&(bytes, n)| SizeShare { bytes, share: n as f64 / t }).collect();
    let other = v.iter().skip(TOP_SIZES).map(|&(_, n)| n).sum::<u64>() as f64 / t;
    (listed, other)
}

/// The statistics of `ops`.
pub fn trace_stats(ops: &[TraceOp]) -> TraceStats {
    let (mut reads, mut writes, mut trims, mut flushes) = (0u64, 0u64, 0u64, 0u64);
    let (mut read_bytes, mut write_bytes) = (0u64, 0u64);
    let mut wsizes: HashMap<u64, u64> = HashMap::new();
    let mut rsizes: HashMap<u64, u64> = HashMap::new();
    let mut heat: HashMap<u64, u32> = HashMap::new();
    let mut block_writes = 0u64;
    for o in ops {
        match o.op {
            Op::Read => {
                reads += 1;
                read_bytes += o.len;
                *rsizes.entry(o.len).or_default() += 1;
            }
            Op::Write => {
                writes += 1;
                write_bytes += o.len;
                *wsizes.entry(o.len).or_default() += 1;
                if o.len > 0 {
                    for b in o.offset / BLOCK..=(o.offset + o.len - 1) / BLOCK {
                        *heat.entry(b).or_default() += 1;
                        block_writes += 1;
                    }
                }
            }
            Op::Trim => trims += 1,
            Op::Flush => flushes += 1,
        }
    }
    let mut counts: Vec<u32> = heat.into_values().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let written_blocks = counts.len() as u64;
    let write_skew = [0.01, 0.10, 0.20]
        .iter()
        .map(|&top| {
            let k = ((written_blocks as f64 * top).ceil() as usize).min(counts.len());
            let hot: u64 = counts[..k].iter().map(|&c| u64::from(c)).sum();
            Skew { top, write_share: hot as f64 / block_writes.max(1) as f64 }
        })
        .collect();
    let (write_sizes, write_sizes_other) = size_mix(wsizes, writes);
    let (read_sizes, read_sizes_other) = size_mix(rsizes, reads);
    let frac = |r: u64, w: u64| if r + w == 0 { 0.0 } else { r as f64 / (r + w) as f64 };
    TraceStats {
        requests: ops.len() as u64,
        reads,
        writes,
        trims,
        flushes,
        read_bytes,
        write_bytes,
        read_fraction_requests: frac(reads, writes),
        read_fraction_bytes: frac(read_bytes, write_bytes),
        write_sizes,
        write_sizes_other,
        read_sizes,
        read_sizes_other,
        written_blocks,
        block_writes,
        writes_per_block: block_writes as f64 / written_blocks.max(1) as f64,
        write_skew,
    }
}

/// A size in fio's spelling: 4k, 512, 1536, 1m.
fn size(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{}m", b >> 20)
    } else if b >= 1024 && b.is_multiple_of(1024) {
        format!("{}k", b >> 10)
    } else {
        b.to_string()
    }
}

impl TraceStats {
    /// The summary lines printed before a replay.
    pub fn summary(&self) -> String {
        let mix = |v: &[SizeShare], other: f64| {
            let mut s: Vec<String> = v.iter().map(|x| format!("{}/{:.1}", size(x.bytes), 100.0 * x.share)).collect();
            if other > 0.0 {
                s.push(format!("other/{:.1}", 100.0 * other));
            }
            if s.is_empty() {
                "-".into()
            } else {
                s.join(":")
            }
        };
        let skew: Vec<String> = self
            .write_skew
            .iter()
            .map(|k| format!("{:.0} % of writes to the hottest {:.0} %", 100.0 * k.write_share, 100.0 * k.top))
            .collect();
        format!(
            "  requests: {} reads, {} writes, {} trims, {} flushes; reads {:.1} % of requests, {:.1} % of bytes\n\
             \x20 write sizes (size/% of writes): {}\n\
             \x20 read sizes: {}\n\
             \x20 write skew over {} written 4 KiB blocks ({:.2} writes each): {}\n",
            self.reads,
            self.writes,
            self.trims,
            self.flushes,
            100.0 * self.read_fraction_requests,
            100.0 * self.read_fraction_bytes,
            mix(&self.write_sizes, self.write_sizes_other),
            mix(&self.read_sizes, self.read_sizes_other),
            self.written_blocks,
            self.writes_per_block,
            skew.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(op: Op, offset: u64, len: u64) -> TraceOp {
        TraceOp { t_ns: 0, op, offset, len }
    }

    #[test]
    fn counts_mix_and_skew() {
        // 100 blocks written once; block 0 written 100 more times; 50 reads of 8 KiB.
        let mut ops: Vec<TraceOp> = (0..100).map(|b| op(Op::Write, b * 4096, 4096)).collect();
        ops.extend((0..100).map(|_| op(Op::Write, 0, 4096)));
        ops.extend((0..50).map(|i| op(Op::Read, i * 8192, 8192)));
        ops.push(op(Op::Write, 4096 * 10, 16384)); // 4 blocks
        let s = trace_stats(&ops);
        assert_eq!((s.reads, s.writes), (50, 201));
        assert_eq!(s.written_blocks, 100);
        assert_eq!(s.block_writes, 204);
        assert_eq!(s.write_sizes[0], SizeShare { bytes: 4096, share: 200.0 / 201.0 });
        assert_eq!(s.read_sizes, vec![SizeShare { bytes: 8192, share: 1.0 }]);
        // The hottest 1 % (1 block) took 101 of 204 block writes.
        assert!((s.write_skew[0].write_share - 101.0 / 204.0).abs() < 1e-12);
        // A uniform trace's hottest 10 % take 10 %.
        let u: Vec<TraceOp> = (0..1000).map(|b| op(Op::Write, b * 4096, 4096)).collect();
        assert!((trace_stats(&u).write_skew[1].write_share - 0.1).abs() < 1e-12);
        assert!(s.summary().contains("4k/99.5"));
    }
}
