//! blkparse's default text output (blktrace's events, one a line):
//!
//! ```text
//!   8,0    3        1     0.000000000   697  D  WS 223490 + 8 [kjournald]
//! ```
//!
//! Fields: device (major,minor), CPU, sequence number, time in seconds, PID, action, RWBS, then
//! for I/O events `SECTOR + COUNT [process]` (512-byte sectors). Replayed are the requests the
//! driver was given (action `D`, issued), or the queued ones (`Q`) when the trace has no `D`
//! events. RWBS: `D` discard → trim, `W` write, `R` read; a flush with no data (`FN`, `FWS
//! 0 + 0`) → flush; `N` alone is skipped. Other actions (G, I, M, C, P, U, ...) are skipped. The
//! per-CPU and total summary that blkparse prints at the end is skipped.

use super::{err, num, seconds_ns, TraceError, TraceOp};
use flashsim::Op;

pub fn parse(file: &str, text: &str) -> Result<Vec<TraceOp>, TraceError> {
    let mut d_ops = Vec::new();
    let mut q_ops = Vec::new();
    let mut in_summary = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        let is_event = f[0].split_once(',').is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok());
        if !is_event {
            // blkparse's closing summary: "CPU0 (8,0):", " Reads Queued: ...", "Total (8,0):",
            // "Throughput (R/W): ...", "Events (8,0): ...".
            if f[0].starts_with("CPU") || f[0] == "Total" || in_summary {
                in_summary = true;
                continue;
            }
            return Err(err(
                file,
                line,
                format!("not a blkparse event line (expected 'MAJOR,MINOR CPU SEQ TIME PID ACTION RWBS ...'): '{l}'"),
            ));
        }
        if f.len() < 7 {
            return Err(err(file, line, format!("blkparse event with {} fields, expected at least 7", f.len())));
        }
        let action = f[5];
        if action != "D" && action != "Q" {
            continue;
        }
        let t_ns = seconds_ns(file, line, f[3])?;
        let rwbs = f[6];
        if !rwbs.bytes().all(|b| b"RWDNFASMEP".contains(&b)) {
            return Err(err(file, line, format!("RWBS '{rwbs}' has letters other than R W D N F A S M E P")));
        }
        let (sector, count) = if f.len() >= 10 && f[8] == "+" {
            (num(file, line, "sector", f[7])?, num(file, line, "sector count", f[9])?)
        } else if f.len() == 7 || f[7].starts_with('[') || f[7] == "0" {
            (0, 0)
        } else {
            return Err(err(
                file,
                line,
                format!("expected 'SECTOR + COUNT' after RWBS '{rwbs}', found '{}'", f[7..].join(" ")),
            ));
        };
        let op = if rwbs.contains('D') {
            Op::Trim
        } else if rwbs.contains('W') && count > 0 {
            Op::Write
        } else if rwbs.contains('R') && count > 0 {
            Op::Read
        } else if rwbs.starts_with('F') {
            Op::Flush
        } else {
            continue;
        };
        if op != Op::Flush && count == 0 {
            continue;
        }
        let ops = if action == "D" { &mut d_ops } else { &mut q_ops };
        ops.push(TraceOp { t_ns, op, offset: sector.saturating_mul(512), len: count.saturating_mul(512) });
    }
    Ok(if d_ops.is_empty() { q_ops } else { d_ops })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_and_summary() {
        let t = "  8,0    0        1     0.000000000   100  Q  WS 2048 + 8 [app]\n\
                 \x20 8,0    0        2     0.000010000   100  D  WS 2048 + 8 [app]\n\
                 \x20 8,0    0        3     0.000500000     0  C  WS 2048 + 8 [0]\n\
                 \x20 8,0    0        4     1.250000000   100  D   R 4096 + 16 [app]\n\
                 \x20 8,0    0        5     2.000000000   100  D   D 0 + 2048 [fstrim]\n\
                 \x20 8,0    0        6     2.500000000   100  D  FN [jbd2]\n\
                 CPU0 (8,0):\n Reads Queued:           1,        8KiB\n";
        let ops = parse("t", t).unwrap();
        assert_eq!(ops.len(), 4);
        assert_eq!(ops[0], TraceOp { t_ns: 10_000, op: Op::Write, offset: 2048 * 512, len: 4096 });
        assert_eq!(ops[1].op, Op::Read);
        assert_eq!((ops[2].op, ops[2].len), (Op::Trim, 1 << 20));
        assert_eq!(ops[3].op, Op::Flush);
    }

    #[test]
    fn malformed_lines_are_named() {
        let e = parse("b.txt", "  8,0 0 1 0.0 1 D W 12x + 8 [a]\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.to_string().contains("sector '12x'"), "{e}");
        let e = parse("b.txt", "  8,0 0 1 0.0 1 D W 8 + 8 [a]\ngarbage here\n").unwrap_err();
        assert_eq!(e.to_string().split(':').take(2).collect::<Vec<_>>(), ["b.txt", "2"]);
        let e = parse("b.txt", "  8,0 0 1 zero 1 D W 8 + 8 [a]\n").unwrap_err();
        assert!(e.to_string().contains("timestamp 'zero'"), "{e}");
    }
}
