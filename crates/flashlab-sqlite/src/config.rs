//! What to run: SQLite journal modes, `synchronous` settings, the transaction shape and the
//! option values, parsed from the command line's words with errors that name the option.

use crate::error::Error;
use serde::Serialize;
use std::fmt;

/// SQLite's `PRAGMA journal_mode` values that flashlab measures (MEMORY is left out: it is OFF
/// with rollback kept in RAM, and writes the same to storage).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JournalMode {
    /// Rollback journal deleted at each commit.
    Delete,
    /// Rollback journal truncated to zero bytes at each commit.
    Truncate,
    /// Rollback journal kept; its header zeroed at each commit.
    Persist,
    /// Write-ahead log (`-wal` file, `-shm` index).
    Wal,
    /// No journal: no rollback, no atomic commit.
    Off,
}

impl JournalMode {
    /// Every mode, in the order the runs and tables use.
    pub const ALL: [JournalMode; 5] =
        [JournalMode::Delete, JournalMode::Truncate, JournalMode::Persist, JournalMode::Wal, JournalMode::Off];

    /// The pragma's value, as SQLite spells it (and answers it).
    pub fn pragma(self) -> &'static str {
        match self {
            JournalMode::Delete => "delete",
            JournalMode::Truncate => "truncate",
            JournalMode::Persist => "persist",
            JournalMode::Wal => "wal",
            JournalMode::Off => "off",
        }
    }
}

impl fmt::Display for JournalMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.pragma())
    }
}

/// SQLite's `PRAGMA synchronous` values flashlab measures (EXTRA is FULL plus a directory sync
/// on journal delete; left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SyncMode {
    /// Sync at every critical moment (journal and database).
    Full,
    /// Sync less often (in WAL mode only at checkpoints).
    Normal,
    /// Never sync: hand writes to the OS and go on.
    Off,
}

impl SyncMode {
    /// Every setting, in the order the runs and tables use.
    pub const ALL: [SyncMode; 3] = [SyncMode::Full, SyncMode::Normal, SyncMode::Off];

    /// The pragma's value, as SQLite spells it.
    pub fn pragma(self) -> &'static str {
        match self {
            SyncMode::Full => "full",
            SyncMode::Normal => "normal",
            SyncMode::Off => "off",
        }
    }

    /// The number `PRAGMA synchronous` answers for this setting.
    pub fn level(self) -> i64 {
        match self {
            SyncMode::Off => 0,
            SyncMode::Normal => 1,
            SyncMode::Full => 2,
        }
    }
}

impl fmt::Display for SyncMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.pragma())
    }
}

/// What each row operation of a transaction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// Insert a new message row (a chat app receiving a message).
    Insert,
    /// Rewrite the body of an existing row.
    Update,
    /// Delete the oldest row.
    Delete,
    /// 50 % insert, 30 % update, 20 % delete, in a seeded random order.
    Mix,
}

impl Shape {
    /// The `--shape` word for this shape.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Insert => "insert",
            Shape::Update => "update",
            Shape::Delete => "delete",
            Shape::Mix => "mix",
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Largest `--row-bytes`: rows above a page spill to overflow pages, which is another study.
pub const MAX_ROW_BYTES: usize = 1 << 20;
/// Largest `--transactions`: the recorded operation log (about 1 KiB per transaction) stays
/// in memory, and at ~50 commits/s a real device needs over half an hour for this many.
pub const MAX_TRANSACTIONS: u64 = 100_000;
/// Largest transactions x batch: the row operations of one configuration.
pub const MAX_ROWS: u64 = 1_000_000;

/// One run's settings, already checked.
#[derive(Debug, Clone, Serialize)]
pub struct Workload {
    /// Journal modes to run, in order.
    pub modes: Vec<JournalMode>,
    /// `synchronous` settings to run, in order (each with every mode).
    pub syncs: Vec<SyncMode>,
    /// Transactions (commits) per configuration.
    pub transactions: u64,
    /// Row operations per transaction.
    pub batch: u64,
    /// What each row operation does.
    pub shape: Shape,
    /// Bytes of message text per row.
    pub row_bytes: usize,
    /// Seed of the row contents and the `mix` order.
    pub seed: u64,
}

impl Workload {
    /// Check the numbers (the lists come from [`parse_modes`] and [`parse_syncs`]).
    pub fn new(
        modes: Vec<JournalMode>,
        syncs: Vec<SyncMode>,
        transactions: u64,
        batch: u64,
        shape: Shape,
        row_bytes: usize,
        seed: u64,
    ) -> Result<Workload, Error> {
        if transactions == 0 || transactions > MAX_TRANSACTIONS {
            return Err(Error::Option {
                option: "--transactions",
                msg: format!("{transactions}: give 1 to {MAX_TRANSACTIONS} transactions"),
            });
        }
        if batch == 0 || batch > 1_000_000 {
            return Err(Error::Option {
                option: "--batch",
                msg: format!("{batch}: give 1 to 1000000 rows per commit"),
            });
        }
        if transactions * batch > MAX_ROWS {
            return Err(Error::Option {
                option: "--batch",
                msg: format!(
                    "{transactions} transactions x {batch} rows = {} rows; at most {MAX_ROWS} (the table is pre-filled with as many)",
                    transactions * batch
                ),
            });
        }
        if row_bytes == 0 || row_bytes > MAX_ROW_BYTES {
            return Err(Error::Option {
                option: "--row-bytes",
                msg: format!("{row_bytes}: give 1 to {MAX_ROW_BYTES} bytes"),
            });
        }
        Ok(Workload { modes, syncs, transactions, batch, shape, row_bytes, seed })
    }

    /// Row operations per configuration.
    pub fn rows(&self) -> u64 {
        self.transactions * self.batch
    }
}

fn split(list: &str) -> impl Iterator<Item = String> + '_ {
    list.split(',').map(|w| w.trim().to_ascii_lowercase())
}

/// `--modes delete,wal`: journal modes in the order given (`all` for every one).
pub fn parse_modes(list: &str) -> Result<Vec<JournalMode>, Error> {
    let mut out = Vec::new();
    for w in split(list) {
        if w == "all" {
            out.extend(JournalMode::ALL);
            continue;
        }
        let m = JournalMode::ALL.into_iter().find(|m| m.pragma() == w).ok_or_else(|| Error::Option {
            option: "--modes",
            msg: format!("unknown journal mode '{w}' (known: delete, truncate, persist, wal, off, all)"),
        })?;
        out.push(m);
    }
    dedup(out, "--modes")
}

/// `--sync full,normal`: synchronous settings in the order given (`all` for every one).
pub fn parse_syncs(list: &str) -> Result<Vec<SyncMode>, Error> {
    let mut out = Vec::new();
    for w in split(list) {
        if w == "all" {
            out.extend(SyncMode::ALL);
            continue;
        }
        let m = SyncMode::ALL.into_iter().find(|m| m.pragma() == w).ok_or_else(|| Error::Option {
            option: "--sync",
            msg: format!("unknown synchronous setting '{w}' (known: full, normal, off, all)"),
        })?;
        out.push(m);
    }
    dedup(out, "--sync")
}

/// Parse a `--shape` word (insert, update, delete, mix); the error names `--shape`.
pub fn parse_shape(word: &str) -> Result<Shape, Error> {
    match word.trim().to_ascii_lowercase().as_str() {
        "insert" => Ok(Shape::Insert),
        "update" => Ok(Shape::Update),
        "delete" => Ok(Shape::Delete),
        "mix" => Ok(Shape::Mix),
        other => Err(Error::Option {
            option: "--shape",
            msg: format!("unknown shape '{other}' (known: insert, update, delete, mix)"),
        }),
    }
}

fn dedup<T: PartialEq + Copy>(list: Vec<T>, option: &'static str) -> Result<Vec<T>, Error> {
    let mut out: Vec<T> = Vec::new();
    for x in list {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    if out.is_empty() {
        return Err(Error::Option { option, msg: "empty list".into() });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists() {
        assert_eq!(parse_modes("WAL, delete,wal").unwrap(), vec![JournalMode::Wal, JournalMode::Delete]);
        assert_eq!(parse_modes("all").unwrap().len(), 5);
        assert_eq!(parse_syncs("full,off").unwrap(), vec![SyncMode::Full, SyncMode::Off]);
        assert_eq!(parse_shape("Mix").unwrap(), Shape::Mix);
    }

    #[test]
    fn errors_name_the_option() {
        let e = parse_modes("delete,memory").unwrap_err().to_string();
        assert!(e.contains("--modes") && e.contains("memory"), "{e}");
        let e = parse_syncs("extra").unwrap_err().to_string();
        assert!(e.contains("--sync") && e.contains("extra"), "{e}");
        let e = parse_shape("upsert").unwrap_err().to_string();
        assert!(e.contains("--shape"), "{e}");
        let e = parse_modes(",").unwrap_err().to_string();
        assert!(e.contains("--modes"), "{e}");
        let w = |n, b, r| Workload::new(vec![JournalMode::Wal], vec![SyncMode::Full], n, b, Shape::Insert, r, 1);
        assert!(w(0, 1, 100).unwrap_err().to_string().contains("--transactions"));
        assert!(w(1, 0, 100).unwrap_err().to_string().contains("--batch"));
        assert!(w(1, 1, 0).unwrap_err().to_string().contains("--row-bytes"));
        assert_eq!(w(3, 2, 100).unwrap().rows(), 6);
        assert!(w(1000, 1001, 100).unwrap_err().to_string().contains("--batch"));
        assert!(w(MAX_TRANSACTIONS + 1, 1, 100).unwrap_err().to_string().contains("--transactions"));
    }
}
