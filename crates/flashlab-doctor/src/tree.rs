//! Reading the inspected tree: the live system (`/`) or a captured copy of one.
//!
//! Every read that fails for a reason worth telling (permission denied, a file the report needs
//! that is missing) is recorded as a [`Problem`], so the report can say what it could not read
//! and why. Reads never panic and never block on odd files (FIFOs, devices are refused), and
//! are capped in size so a garbage capture cannot make the doctor eat memory.

use crate::Problem;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Largest file the doctor reads (mount tables of big Android devices are ~100 KiB).
const MAX_READ: u64 = 8 << 20;

/// Why a read failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    NotFound,
    Denied,
    Other(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotFound => write!(f, "not found"),
            ReadError::Denied => write!(f, "permission denied"),
            ReadError::Other(s) => write!(f, "{s}"),
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::NotFound => ReadError::NotFound,
            io::ErrorKind::PermissionDenied => ReadError::Denied,
            _ => ReadError::Other(e.to_string()),
        }
    }
}

pub struct Tree {
    root: PathBuf,
    pub live: bool,
    problems: RefCell<Vec<Problem>>,
    /// `doctor/unreadable.txt` of a capture: paths the capture script could not read, and why.
    capture_unreadable: BTreeMap<String, String>,
}

impl Tree {
    pub fn new(root: &Path, live: bool) -> Tree {
        let mut t = Tree {
            root: root.to_path_buf(),
            live,
            problems: RefCell::new(Vec::new()),
            capture_unreadable: BTreeMap::new(),
        };
        if !live {
            if let Ok(text) = t.read("doctor/unreadable.txt") {
                for line in text.lines() {
                    let (path, reason) = match line.split_once('\t') {
                        Some((p, r)) => (p.trim(), r.trim()),
                        None => (line.trim(), "could not be read"),
                    };
                    if path.is_empty() {
                        continue;
                    }
                    let rel = path.trim_start_matches('/').to_string();
                    t.capture_unreadable.insert(rel, reason.to_string());
                }
            }
        }
        t
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path itself, symlink or not.
    fn raw(&self, rel: &str) -> PathBuf {
        self.root.join(rel.trim_start_matches('/'))
    }

    /// The path to read: in a captured tree, an absolute symlink is followed inside the tree.
    fn abs(&self, rel: &str) -> PathBuf {
        let p = self.raw(rel);
        if self.live {
            return p;
        }
        // In a captured tree an absolute symlink (`cp -a` of /proc or /sys) points at this
        // machine's file: read the tree's copy of its target instead.
        match fs::read_link(&p) {
            Ok(t) if t.is_absolute() => self.root.join(t.strip_prefix("/").unwrap_or(&t)),
            _ => p,
        }
    }

    /// Reads a whole file as text (invalid UTF-8 replaced), capped at 8 MiB.
    pub fn read(&self, rel: &str) -> Result<String, ReadError> {
        let p = self.abs(rel);
        let md = fs::metadata(&p)?;
        if md.is_dir() {
            return Err(ReadError::Other("is a directory".into()));
        }
        if !md.is_file() {
            return Err(ReadError::Other("not a regular file".into()));
        }
        let f = fs::File::open(&p)?;
        let mut buf = Vec::new();
        f.take(MAX_READ).read_to_end(&mut buf)?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    /// Reads a one-value file (sysfs style): the text, trimmed.
    pub fn value(&self, rel: &str) -> Result<String, ReadError> {
        self.read(rel).map(|s| s.trim().to_string())
    }

    /// Reads a value the report needs; a failure of any kind is recorded with what it affects.
    pub fn value_needed(&self, rel: &str, affects: &str) -> Option<String> {
        match self.value(rel) {
            Ok(v) => Some(v),
            Err(e) => {
                self.note(rel, &e, affects);
                None
            }
        }
    }

    /// Reads an optional value: a missing file is normal and not recorded, other failures are.
    pub fn value_optional(&self, rel: &str, affects: &str) -> Option<String> {
        match self.value(rel) {
            Ok(v) => Some(v),
            Err(ReadError::NotFound) => {
                // A capture that tried and failed says so; that is worth telling.
                if let Some(reason) = self.capture_unreadable.get(rel.trim_start_matches('/')) {
                    let reason = reason.clone();
                    self.note_reason(rel, &format!("could not be read on the captured system: {reason}"), affects);
                }
                None
            }
            Err(e) => {
                self.note(rel, &e, affects);
                None
            }
        }
    }

    /// Names in a directory, sorted.
    pub fn list(&self, rel: &str) -> Result<Vec<String>, ReadError> {
        let mut names = Vec::new();
        for e in fs::read_dir(self.abs(rel))? {
            let e = e?;
            names.push(e.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    /// Whether the path exists (a dangling symlink counts: a captured systemd "wants" link
    /// points at the capturing machine's path).
    pub fn exists(&self, rel: &str) -> bool {
        fs::symlink_metadata(self.raw(rel)).is_ok()
    }

    pub fn is_dir(&self, rel: &str) -> bool {
        fs::metadata(self.abs(rel)).map(|m| m.is_dir()).unwrap_or(false)
    }

    /// The target of a symlink, if the path is one.
    pub fn read_link(&self, rel: &str) -> Option<String> {
        fs::read_link(self.raw(rel)).ok().map(|p| p.to_string_lossy().into_owned())
    }

    /// Records a failed read.
    pub fn note(&self, rel: &str, err: &ReadError, affects: &str) {
        let reason = match err {
            ReadError::NotFound => match self.capture_unreadable.get(rel.trim_start_matches('/')) {
                Some(r) => format!("could not be read on the captured system: {r}"),
                None if self.live => "not found".to_string(),
                None => "not in the captured tree".to_string(),
            },
            ReadError::Denied if self.live => "permission denied (doctor runs without root; that is fine)".to_string(),
            e => e.to_string(),
        };
        self.note_reason(rel, &reason, affects);
    }

    pub fn note_reason(&self, rel: &str, reason: &str, affects: &str) {
        let path = format!("/{}", rel.trim_start_matches('/'));
        let mut p = self.problems.borrow_mut();
        if p.iter().any(|x| x.path == path) {
            return;
        }
        p.push(Problem { path, reason: reason.to_string(), affects: affects.to_string() });
    }

    /// Problems the capture script recorded that no read asked about (for completeness).
    pub fn capture_unreadable(&self) -> &BTreeMap<String, String> {
        &self.capture_unreadable
    }

    pub fn take_problems(&self) -> Vec<Problem> {
        std::mem::take(&mut *self.problems.borrow_mut())
    }
}
