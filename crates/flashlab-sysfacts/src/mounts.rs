//! The mount table: `/proc/self/mountinfo` (preferred: it has the device numbers) or
//! `/proc/mounts`, parsed once for every flashlab crate (the doctor, the raw-device safety
//! checks, serve's teardown, the SQLite kernel counters).
//!
//! Parsing is lenient: a line that cannot be a mount is counted as malformed and skipped, and a
//! file cut off mid-line (a truncated capture) keeps what the last line has, with the fields the
//! cut went through marked unknown.

/// One line of the mount table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountEntry {
    /// 1-based line number in the file.
    pub line: usize,
    /// `major:minor` of the filesystem's device (mountinfo only).
    pub majmin: Option<(u32, u32)>,
    /// The directory of the filesystem that is mounted here (mountinfo only; `/` unless a bind mount).
    pub root: Option<String>,
    /// Where it is mounted (unescaped, absolute).
    pub mount_point: String,
    /// `unknown` when the line was cut inside the type.
    pub fs_type: String,
    /// Empty when unknown.
    pub source: String,
    /// Per-mount options (`rw,noatime,...`); `None` when unknown.
    pub mount_opts: Option<Vec<String>>,
    /// Superblock (filesystem) options (mountinfo only); `None` when unknown or not given.
    pub super_opts: Option<Vec<String>>,
    /// The line was cut off (last line of a file without a final newline).
    pub truncated: bool,
}

impl MountEntry {
    /// All options known for this mount, mount options first, without duplicates.
    /// `None` when neither set is known.
    pub fn options(&self) -> Option<Vec<String>> {
        if self.mount_opts.is_none() && self.super_opts.is_none() {
            return None;
        }
        let mut out: Vec<String> = Vec::new();
        for o in self.mount_opts.iter().flatten().chain(self.super_opts.iter().flatten()) {
            if !out.contains(o) {
                out.push(o.clone());
            }
        }
        Some(out)
    }

    /// Read-only at the filesystem level (or, without superblock options, at the mount level).
    pub fn read_only(&self) -> bool {
        match (&self.super_opts, &self.mount_opts) {
            (Some(s), _) if s.iter().any(|o| o == "ro" || o == "rw") => s.iter().any(|o| o == "ro"),
            (_, Some(m)) => m.iter().any(|o| o == "ro"),
            _ => false,
        }
    }
}

/// A parsed mount table.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// The mounts, in file order.
    pub entries: Vec<MountEntry>,
    /// Line numbers that could not be parsed.
    pub bad_lines: Vec<usize>,
    /// The file ended mid-line.
    pub truncated: bool,
}

impl Parsed {
    /// The mounts of the filesystem on device `major:minor` (a device can be mounted at several
    /// places), in file order.
    pub fn by_majmin(&self, major: u32, minor: u32) -> impl Iterator<Item = &MountEntry> {
        self.entries.iter().filter(move |e| e.majmin == Some((major, minor)))
    }
}

/// This process's mount table, `/proc/self/mountinfo`.
pub fn read_self() -> Result<Parsed, crate::SysError> {
    let path = "/proc/self/mountinfo";
    let text = std::fs::read_to_string(path).map_err(|e| crate::SysError::io(path, e))?;
    Ok(parse_mountinfo(&text))
}

/// Undoes the kernel's octal escapes (`\040` for a space, `\011`, `\012`, `\134`).
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 4 <= b.len() {
            let d = &b[i + 1..i + 4];
            if d.iter().all(|c| (b'0'..=b'7').contains(c)) {
                let v = (d[0] - b'0') as u32 * 64 + (d[1] - b'0') as u32 * 8 + (d[2] - b'0') as u32;
                if v <= 255 {
                    out.push(v as u8);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn split_opts(s: &str) -> Vec<String> {
    s.split(',').filter(|o| !o.is_empty()).map(unescape).collect()
}

fn parse_majmin(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Lines of a file, with whether each is the last one cut off mid-line.
fn lines_with_cut(text: &str) -> (Vec<(usize, &str, bool)>, bool) {
    let cut = !text.is_empty() && !text.ends_with('\n');
    let all: Vec<&str> = text.split('\n').collect();
    let n = all.len();
    let mut out = Vec::new();
    for (i, l) in all.into_iter().enumerate() {
        let last_cut = cut && i == n - 1;
        let l = l.strip_suffix('\r').unwrap_or(l);
        if l.trim().is_empty() {
            continue;
        }
        out.push((i + 1, l, last_cut));
    }
    (out, cut)
}

/// Parses `/proc/<pid>/mountinfo`:
/// `ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS`.
pub fn parse_mountinfo(text: &str) -> Parsed {
    let (lines, truncated) = lines_with_cut(text);
    let mut p = Parsed { truncated, ..Parsed::default() };
    for (no, line, cut) in lines {
        match mountinfo_line(no, line, cut) {
            Some(e) => p.entries.push(e),
            None => p.bad_lines.push(no),
        }
    }
    p
}

fn mountinfo_line(no: usize, line: &str, cut: bool) -> Option<MountEntry> {
    let f: Vec<&str> = line.split_whitespace().collect();
    let sep = f.iter().position(|x| *x == "-")?;
    if sep < 5 {
        return None;
    }
    let mount_point = unescape(f[4]);
    if !mount_point.starts_with('/') {
        return None;
    }
    let after = &f[sep + 1..];
    if after.is_empty() {
        return None;
    }
    // Which field was the cut in? Only the last field present can be partial.
    let last = after.len() - 1;
    let fs_type = if cut && last == 0 { "unknown".to_string() } else { unescape(after[0]) };
    let source = match after.get(1) {
        Some(s) if !(cut && last == 1) => unescape(s),
        _ => String::new(),
    };
    let super_opts = match after.get(2) {
        Some(s) if !(cut && last == 2) => Some(split_opts(s)),
        _ => None,
    };
    let mount_opts = if sep > 5 { Some(split_opts(f[5])) } else { None };
    Some(MountEntry {
        line: no,
        majmin: parse_majmin(f[2]),
        root: Some(unescape(f[3])),
        mount_point,
        fs_type,
        source,
        mount_opts,
        super_opts,
        truncated: cut,
    })
}

/// Parses `/proc/mounts` (`/etc/mtab` format): `SOURCE MOUNTPOINT FSTYPE OPTS DUMP PASS`.
pub fn parse_mounts(text: &str) -> Parsed {
    let (lines, truncated) = lines_with_cut(text);
    let mut p = Parsed { truncated, ..Parsed::default() };
    for (no, line, cut) in lines {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 || f[0].starts_with('#') {
            p.bad_lines.push(no);
            continue;
        }
        let mount_point = unescape(f[1]);
        if !mount_point.starts_with('/') {
            p.bad_lines.push(no);
            continue;
        }
        let last = f.len() - 1;
        let fs_type = if cut && last == 2 { "unknown".to_string() } else { unescape(f[2]) };
        let mount_opts = match f.get(3) {
            Some(s) if !(cut && last == 3) => Some(split_opts(s)),
            _ => None,
        };
        p.entries.push(MountEntry {
            line: no,
            majmin: None,
            root: None,
            mount_point,
            fs_type,
            source: unescape(f[0]),
            mount_opts,
            super_opts: None,
            truncated: cut,
        });
    }
    p
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_process_has_a_root_mount() {
        let p = super::read_self().unwrap();
        assert!(p.bad_lines.is_empty(), "the kernel's own mountinfo parses: {:?}", p.bad_lines);
        assert!(p.entries.iter().any(|m| m.mount_point == "/"));
    }
}
