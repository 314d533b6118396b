//! fio's iolog, versions 2 and 3 (`read_iolog=`; fio's HOWTO, "Trace file format").
//!
//! ```text
//! fio version 2 iolog          fio version 3 iolog
//! /dev/sdb add                 0 /dev/sdb add
//! /dev/sdb open                0 /dev/sdb open
//! /dev/sdb write 0 4096        120 /dev/sdb write 0 4096
//! /dev/sdb wait 5000 0         ...
//! /dev/sdb sync 0 0            9000 /dev/sdb close
//! /dev/sdb close
//! ```
//!
//! v2 lines are `FILE ACTION [OFFSET LENGTH]`; time advances only by `wait` (its offset field
//! is the wait in microseconds). v3 lines start with a timestamp, microseconds from the start
//! (what fio's `write_iolog` writes). Actions: read, write, trim, sync and datasync (→ flush),
//! wait; file actions add, open, close. Requests on several files are replayed on the one
//! device at the offsets given.

use super::{err, num, TraceError, TraceOp};
use flashsim::Op;

pub fn parse(file: &str, text: &str) -> Result<Vec<TraceOp>, TraceError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let version = match lines.next() {
        Some((_, l)) if l.trim() == "fio version 2 iolog" => 2,
        Some((_, l)) if l.trim() == "fio version 3 iolog" => 3,
        Some((i, l)) => {
            return Err(err(
                file,
                i + 1,
                format!("expected 'fio version 2 iolog' or 'fio version 3 iolog', found '{}'", l.trim()),
            ))
        }
        None => return Err(err(file, 0, "empty iolog")),
    };
    let mut ops = Vec::new();
    let mut t_us: u64 = 0;
    for (i, raw) in lines {
        let line = i + 1;
        let f: Vec<&str> = raw.split_whitespace().collect();
        let f = if version == 3 {
            if f.len() < 3 {
                return Err(err(
                    file,
                    line,
                    format!("expected 'TIME FILE ACTION [OFFSET LENGTH]', found '{}'", raw.trim()),
                ));
            }
            t_us = num(file, line, "timestamp", f[0])?;
            &f[1..]
        } else {
            &f[..]
        };
        let (action, args) = match f.len() {
            2 => (f[1], None),
            4 => (f[1], Some((num(file, line, "offset", f[2])?, num(file, line, "length", f[3])?))),
            n => {
                return Err(err(
                    file,
                    line,
                    format!("{n} fields after the timestamp; expected 'FILE ACTION' or 'FILE ACTION OFFSET LENGTH'"),
                ))
            }
        };
        let op = match (action, args) {
            ("add" | "open" | "close", None) => continue,
            ("wait", Some((us, _))) if version == 2 => {
                t_us = t_us.saturating_add(us);
                continue;
            }
            ("read", Some(_)) => Op::Read,
            ("write", Some(_)) => Op::Write,
            ("trim", Some(_)) => Op::Trim,
            ("sync" | "datasync", _) => Op::Flush,
            (a, _) => {
                return Err(err(file, line, format!("action '{a}' with {} fields: expected add/open/close, or read/write/trim/sync/datasync{} with OFFSET LENGTH", f.len(), if version == 2 { "/wait" } else { "" })))
            }
        };
        let (offset, len) = if op == Op::Flush { (0, 0) } else { args.expect("matched with args") };
        if op != Op::Flush && len == 0 {
            return Err(err(file, line, "length 0"));
        }
        ops.push(TraceOp { t_ns: t_us.saturating_mul(1000), op, offset, len });
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_with_waits() {
        let t = "fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x write 0 4096\n/dev/x wait 1500 0\n\
                 /dev/x read 8192 8192\n/dev/x trim 0 4096\n/dev/x sync 0 0\n/dev/x close\n";
        let ops = parse("t.log", t).unwrap();
        assert_eq!(ops.len(), 4);
        assert_eq!(ops[1], TraceOp { t_ns: 1_500_000, op: Op::Read, offset: 8192, len: 8192 });
        assert_eq!((ops[2].op, ops[3].op), (Op::Trim, Op::Flush));
    }

    #[test]
    fn v3_timestamps() {
        let t = "fio version 3 iolog\n0 f add\n0 f open\n10 f write 4096 4096\n2000 f write 0 4096\n2500 f close\n";
        let ops = parse("t.log", t).unwrap();
        assert_eq!(ops.iter().map(|o| o.t_ns).collect::<Vec<_>>(), vec![10_000, 2_000_000]);
    }

    #[test]
    fn malformed_lines_are_named() {
        let e = parse("t.log", "fio version 2 iolog\n/dev/x write 0\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = parse("t.log", "fio version 3 iolog\n0 f add\nabc f write 0 4096\n").unwrap_err();
        assert!(e.to_string().starts_with("t.log:3: timestamp 'abc'"), "{e}");
        let e = parse("t.log", "fio version 2 iolog\n/dev/x scribble 0 4096\n").unwrap_err();
        assert!(e.to_string().contains("action 'scribble'"), "{e}");
        let e = parse("t.log", "fio version 1 iolog\n").unwrap_err();
        assert_eq!(e.line, 1);
    }
}
