//! fio's error handling (`td_error.c`, HOWTO): `continue_on_error` says after which kinds of
//! error a job goes on (read, write, verify), `ignore_error=READ,WRITE,VERIFY` which errors of
//! each kind (`:`-separated names such as `ENOSPC` or numbers; a kind without a list keeps
//! fio's non-fatal pair, EIO and EILSEQ). An error a job goes on after is counted (fio's
//! `total_err`, and the first one as `first_error`); any other ends the job.

use serde::{Deserialize, Serialize};

use crate::Error;

/// Linux's EIO.
pub const EIO: i32 = 5;
/// Linux's EILSEQ (fio's verify error).
pub const EILSEQ: i32 = 84;

/// Linux's errno names, 1 to 40, then some that I/O returns beyond them.
const NAMES: &[(&str, i32)] = &[
    ("EPERM", 1),
    ("ENOENT", 2),
    ("ESRCH", 3),
    ("EINTR", 4),
    ("EIO", 5),
    ("ENXIO", 6),
    ("E2BIG", 7),
    ("ENOEXEC", 8),
    ("EBADF", 9),
    ("ECHILD", 10),
    ("EAGAIN", 11),
    ("EWOULDBLOCK", 11),
    ("ENOMEM", 12),
    ("EACCES", 13),
    ("EFAULT", 14),
    ("ENOTBLK", 15),
    ("EBUSY", 16),
    ("EEXIST", 17),
    ("EXDEV", 18),
    ("ENODEV", 19),
    ("ENOTDIR", 20),
    ("EISDIR", 21),
    ("EINVAL", 22),
    ("ENFILE", 23),
    ("EMFILE", 24),
    ("ENOTTY", 25),
    ("ETXTBSY", 26),
    ("EFBIG", 27),
    ("ENOSPC", 28),
    ("ESPIPE", 29),
    ("EROFS", 30),
    ("EMLINK", 31),
    ("EPIPE", 32),
    ("EDOM", 33),
    ("ERANGE", 34),
    ("EDEADLK", 35),
    ("EDEADLOCK", 35),
    ("ENAMETOOLONG", 36),
    ("ENOLCK", 37),
    ("ENOSYS", 38),
    ("ENOTEMPTY", 39),
    ("ELOOP", 40),
    ("ENODATA", 61),
    ("ETIME", 62),
    ("ENOLINK", 67),
    ("EPROTO", 71),
    ("EBADMSG", 74),
    ("EOVERFLOW", 75),
    ("EILSEQ", 84),
    ("EOPNOTSUPP", 95),
    ("ENOTSUP", 95),
    ("ETOOMANYREFS", 109),
    ("ETIMEDOUT", 110),
    ("ESTALE", 116),
    ("EUCLEAN", 117),
    ("EREMOTEIO", 121),
    ("EDQUOT", 122),
    ("ENOMEDIUM", 123),
    ("EMEDIUMTYPE", 124),
    ("ECANCELED", 125),
    ("EHWPOISON", 133),
];

/// A job's error policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorPolicy {
    /// `continue_on_error` as fio's bits: 1 read, 2 write, 4 verify.
    pub continue_on: u8,
    /// `ignore_error` per kind (read, write, verify); empty: EIO and EILSEQ.
    pub ignore: [Vec<i32>; 3],
}

/// fio's `continue_on_error` value (several may be given, `,`-separated): its bits.
pub fn parse_continue(v: &str) -> Result<u8, Error> {
    let mut bits = 0;
    for part in v.split(',').map(str::trim) {
        bits |= match part {
            "none" | "0" => 0,
            "read" => 1,
            "write" => 2,
            "io" => 3,
            "verify" => 4,
            "all" | "1" => 7,
            _ => {
                return Err(Error::Bad {
                    what: "value",
                    value: part.to_string(),
                    expected: "none, read, write, io, verify, all, 0 or 1".into(),
                })
            }
        };
    }
    Ok(bits)
}

/// One error of an `ignore_error` list: a name (`ENOSPC`) or a number.
fn errno(e: &str) -> Result<i32, Error> {
    if let Some(&(_, n)) = NAMES.iter().find(|(name, _)| *name == e) {
        return Ok(n);
    }
    match e.parse::<i32>() {
        Ok(n) if n > 0 && n < 4096 => Ok(n),
        _ => Err(Error::Bad {
            what: "error",
            value: e.to_string(),
            expected: "an errno name such as ENOSPC or EIO, or its number".into(),
        }),
    }
}

/// The errno's name (`EIO`), the first Linux gives it; `None` for one not in the table.
pub fn name(errno: i32) -> Option<&'static str> {
    NAMES.iter().find(|&&(_, n)| n == errno).map(|&(name, _)| name)
}

/// fio's `ignore_error=READ,WRITE,VERIFY` lists.
pub fn parse_ignore(v: &str) -> Result<[Vec<i32>; 3], Error> {
    let kinds: Vec<&str> = v.split(',').map(str::trim).collect();
    if kinds.len() > 3 {
        return Err(Error::Value { value: v.to_string(), problem: "at most three lists (read,write,verify)".into() });
    }
    let mut out: [Vec<i32>; 3] = Default::default();
    for (k, list) in kinds.iter().enumerate() {
        for e in list.split(':').map(str::trim).filter(|e| !e.is_empty()) {
            out[k].push(errno(e)?);
        }
    }
    Ok(out)
}

impl ErrorPolicy {
    /// The job goes on after `errno` from an I/O in direction `dir` (0 read, else write; a
    /// flush counts as a write, EILSEQ as a verify error), as fio's `td_non_fatal_error`.
    pub fn non_fatal(&self, dir: u8, errno: i32) -> bool {
        let kind = if errno == EILSEQ {
            2
        } else if dir == 0 {
            0
        } else {
            1
        };
        if self.continue_on & (1 << kind) == 0 {
            return false;
        }
        match self.ignore[kind].as_slice() {
            [] => errno == EIO || errno == EILSEQ,
            list => list.contains(&errno),
        }
    }

    /// Any kind of error is continued after.
    pub fn continues(&self) -> bool {
        self.continue_on != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_semantics() {
        let p = ErrorPolicy { continue_on: parse_continue("write").unwrap(), ignore: parse_ignore(",ENOSPC").unwrap() };
        assert!(p.non_fatal(1, 28), "ENOSPC on a write is listed");
        assert!(!p.non_fatal(1, EIO), "a list replaces the default pair");
        assert!(!p.non_fatal(0, EIO), "reads do not continue");
        let p = ErrorPolicy { continue_on: parse_continue("io").unwrap(), ignore: Default::default() };
        assert!(p.non_fatal(0, EIO) && p.non_fatal(1, EIO) && !p.non_fatal(1, 28));
        let l = parse_ignore("EAGAIN,ENOSPC:122").unwrap();
        assert_eq!(l, [vec![11], vec![28, 122], vec![]]);
        assert!(parse_ignore("ENOPE").is_err());
        assert!(parse_continue("sometimes").is_err());
        assert_eq!(parse_continue("1").unwrap(), 7);
    }

    #[test]
    fn job_files_read_it_and_errors_name_the_line() {
        let f = crate::parse_jobfile("x.fio", "[a]\nrw=write\ncontinue_on_error=write\nignore_error=,ENOSPC:122\n")
            .unwrap();
        assert!(f.jobs[0].errors.non_fatal(1, 122) && f.jobs[0].errors.non_fatal(1, 28));
        let e = crate::parse_jobfile("x.fio", "[a]\nrw=write\nignore_error=,ENOPE\n").unwrap_err().to_string();
        assert!(e.contains("x.fio:3") && e.contains("ignore_error") && e.contains("ENOPE"), "{e}");
    }
}
