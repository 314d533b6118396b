//! The MSR Cambridge block traces (SNIA IOTTA; Narayanan et al., FAST '08): CSV lines
//!
//! ```text
//! Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//! 128166372003061629,wdev,0,Read,3277119488,4096,1475
//! ```
//!
//! Timestamp is a Windows filetime (100 ns units), Type `Read` or `Write`, Offset and Size in
//! bytes, ResponseTime in 100 ns units (not used: the simulated device decides). The files have
//! no header; a header line naming the fields is accepted.

use super::{err, num, TraceError, TraceOp};
use flashsim::Op;

pub fn parse(file: &str, text: &str) -> Result<Vec<TraceOp>, TraceError> {
    let mut ops = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || (ops.is_empty() && l.starts_with("Timestamp,")) {
            continue;
        }
        let f: Vec<&str> = l.split(',').collect();
        if f.len() != 7 {
            return Err(err(
                file,
                line,
                format!("{} fields, expected 7: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime", f.len()),
            ));
        }
        let t = num(file, line, "Timestamp", f[0])?;
        let op = match f[3].trim() {
            "Read" => Op::Read,
            "Write" => Op::Write,
            other => return Err(err(file, line, format!("Type '{other}' is not Read or Write"))),
        };
        let offset = num(file, line, "Offset", f[4])?;
        let len = num(file, line, "Size", f[5])?;
        if len == 0 {
            return Err(err(file, line, "Size 0"));
        }
        num(file, line, "ResponseTime", f[6])?;
        ops.push(TraceOp { t_ns: t.saturating_mul(100), op, offset, len });
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let t = "128166372003061629,wdev,0,Read,3277119488,4096,1475\n128166372013061629,wdev,0,Write,0,65536,300\n";
        let ops = parse("w.csv", t).unwrap();
        assert_eq!(ops[1], TraceOp { t_ns: 128166372013061629 * 100, op: Op::Write, offset: 0, len: 65536 });
    }

    #[test]
    fn malformed_lines_are_named() {
        let e = parse("w.csv", "1,h,0,Read,0,4096,1\n2,h,0,Erase,0,4096,1\n").unwrap_err();
        assert_eq!(e.to_string(), "w.csv:2: Type 'Erase' is not Read or Write");
        let e = parse("w.csv", "1,h,0,Read,0,4096\n").unwrap_err();
        assert!(e.to_string().starts_with("w.csv:1: 6 fields"), "{e}");
        let e = parse("w.csv", "1,h,0,Read,-5,4096,1\n").unwrap_err();
        assert!(e.to_string().contains("Offset '-5'"), "{e}");
    }
}
