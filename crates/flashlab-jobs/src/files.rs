//! Several files per job, as fio spreads a job over them (`nrfiles`, `filesize`, `openfiles`,
//! `file_service_type`), read from fio 3.33's `filesetup.c` (`setup_files`) and `io_u.c`
//! (`__get_next_file`, `get_next_file_rr`, `get_next_file_rand`):
//!
//! - Without `filesize`, `size` is split evenly: every file gets `size / nrfiles`, and when
//!   that leaves a remainder, the first `remainder / bs` files get one block more.
//! - At most `openfiles` files are open; files open in index order, and a file whose I/O is
//!   done is closed, which lets the next one open.
//! - `roundrobin` (fio's default) takes the open files in index order, `random` draws a file
//!   uniformly, `sequential` stays on a file until it is done; with `:N` a chosen file serves
//!   N I/Os before the next choice (default 1).
//!
//! This is the selection logic only: the engines do not drive several files yet, so job files
//! with `nrfiles` > 1 are still refused (see [`crate::options`]). Pure: no I/O, no allocation
//! after [`FileSelector::new`].

/// fio's `file_service_type` (the distributions `zipf`, `pareto`, `normal` are not supported).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileServiceType {
    /// Choose a file at random.
    Random,
    /// Round robin over the open files (fio's default).
    RoundRobin,
    /// Finish one file before moving on to the next.
    Sequential,
}

/// `file_service_type` with its `:N` (I/Os per choice).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileService {
    /// How the next file is chosen.
    pub kind: FileServiceType,
    /// I/Os a chosen file serves before the next choice (at least 1).
    pub batch: u32,
}

impl Default for FileService {
    fn default() -> Self {
        FileService { kind: FileServiceType::RoundRobin, batch: 1 }
    }
}

impl FileService {
    /// Reads fio's value: `random`, `roundrobin`, `sequential`, each optionally `:N`.
    pub fn parse(v: &str) -> Result<FileService, String> {
        let (name, n) = match v.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (v, None),
        };
        let kind = match name {
            "random" => FileServiceType::Random,
            "roundrobin" => FileServiceType::RoundRobin,
            "sequential" => FileServiceType::Sequential,
            "zipf" | "pareto" | "normal" | "gauss" => {
                return Err(format!(
                    "'{name}': skewed file choice is not supported (random, roundrobin, sequential are)"
                ))
            }
            _ => return Err(format!("bad file_service_type '{name}': expected random, roundrobin or sequential")),
        };
        let batch = match n {
            None => 1,
            Some(n) => match n.parse::<u32>() {
                Ok(b) if b >= 1 => b,
                _ => return Err(format!("bad ':{n}': expected a whole number of I/Os, at least 1")),
            },
        };
        Ok(FileService { kind, batch })
    }
}

/// Bytes of I/O each of `nrfiles` files gets when `size` is split over them (fio's
/// `setup_files` without `filesize`): `size / nrfiles` each, and one more block of `bs` for
/// each of the first files while the remainder lasts.
pub fn split_size(size: u64, nrfiles: u32, bs: u64) -> Vec<u64> {
    let n = u64::from(nrfiles.max(1));
    let each = size / n;
    let mut extra = (size - each * n).checked_div(bs).unwrap_or(0);
    (0..n)
        .map(|_| {
            if extra > 0 {
                extra -= 1;
                each + bs
            } else {
                each
            }
        })
        .collect()
}

/// Which file a job's next I/O goes to, with fio's rules.
#[derive(Debug, Clone)]
pub struct FileSelector {
    svc: FileService,
    open_max: usize,
    open: Vec<bool>,
    done: Vec<bool>,
    nr_open: usize,
    nr_done: usize,
    /// fio's `td->next_file` (round robin's pointer).
    next_file: usize,
    current: Option<usize>,
    left: u32,
}

impl FileSelector {
    /// `nrfiles` files, at most `openfiles` open at once (0 or more than `nrfiles`: all).
    /// A file opens when it is first chosen (fio's iolog shows `random` opening file 3 first
    /// under `openfiles=2`).
    pub fn new(nrfiles: u32, openfiles: u32, svc: FileService) -> FileSelector {
        let n = nrfiles.max(1) as usize;
        let open_max = if openfiles == 0 { n } else { (openfiles as usize).min(n) };
        FileSelector {
            svc,
            open_max,
            open: vec![false; n],
            done: vec![false; n],
            nr_open: 0,
            nr_done: 0,
            next_file: 0,
            current: None,
            left: 0,
        }
    }

    /// The file of the next I/O; `None` when every file is done. `uniform` gives numbers in
    /// [0, 1) for `random`.
    pub fn next(&mut self, mut uniform: impl FnMut() -> f64) -> Option<usize> {
        let n = self.open.len();
        if self.nr_done >= n {
            return None;
        }
        if let Some(c) = self.current.filter(|&c| self.open[c]) {
            if self.svc.kind == FileServiceType::Sequential {
                return Some(c);
            }
            if self.left > 0 {
                self.left -= 1;
                return Some(c);
            }
        }
        let f = match self.svc.kind {
            FileServiceType::RoundRobin | FileServiceType::Sequential => self.next_rr(),
            FileServiceType::Random => loop {
                let i = ((n as f64 * uniform()) as usize).min(n - 1);
                if !self.done[i] && self.try_open(i) {
                    break i;
                }
            },
        };
        self.current = Some(f);
        self.left = self.svc.batch - 1;
        Some(f)
    }

    /// Round robin from fio's pointer: the next file that is open, or that can be opened.
    fn next_rr(&mut self) -> usize {
        let n = self.open.len();
        loop {
            let i = self.next_file;
            self.next_file = (self.next_file + 1) % n;
            if !self.done[i] && self.try_open(i) {
                return i;
            }
        }
    }

    fn try_open(&mut self, i: usize) -> bool {
        if self.open[i] {
            return true;
        }
        if self.nr_open >= self.open_max {
            // fio: EBUSY, then tries again with its pointer moved on.
            return false;
        }
        self.open[i] = true;
        self.nr_open += 1;
        true
    }

    /// File `i`'s I/O is done: it is closed (which frees an open slot) and never chosen again.
    pub fn done(&mut self, i: usize) {
        if !self.done[i] {
            self.done[i] = true;
            self.nr_done += 1;
            if self.open[i] {
                self.open[i] = false;
                self.nr_open -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file of every I/O when file `i` takes `ios[i]` I/Os in all.
    pub fn pattern(nr: u32, open: u32, svc: &str, ios: &[u32]) -> Vec<usize> {
        let mut s = FileSelector::new(nr, open, FileService::parse(svc).unwrap());
        let mut left = ios.to_vec();
        let mut x = 0.123_f64;
        let mut out = Vec::new();
        while let Some(f) = s.next(|| {
            x = (x * 9301.0 + 0.49297).fract();
            x
        }) {
            out.push(f);
            left[f] -= 1;
            if left[f] == 0 {
                s.done(f);
            }
        }
        out
    }

    #[test]
    fn parses_fios_values() {
        assert_eq!(FileService::parse("roundrobin").unwrap(), FileService::default());
        assert_eq!(FileService::parse("random:8").unwrap(), FileService { kind: FileServiceType::Random, batch: 8 });
        assert!(FileService::parse("sequential:0").is_err());
        assert!(FileService::parse("zipf:1.2").unwrap_err().contains("not supported"));
        assert!(FileService::parse("rr").is_err());
    }

    #[test]
    fn size_splits_as_fio_does() {
        assert_eq!(split_size(64 << 10, 4, 4096), vec![16 << 10; 4]);
        // 40 KiB over 3 files: 13653 each, remainder 1 byte under a block: no extra.
        assert_eq!(split_size(40960, 3, 4096), vec![13653; 3]);
        // 13 over 5 in blocks of 2: 2 each, a remainder of 3 holds one block: file 0 gets it.
        assert_eq!(split_size(13, 5, 2), vec![4, 2, 2, 2, 2]);
    }

    #[test]
    fn roundrobin_batches_and_sequential() {
        assert_eq!(pattern(3, 0, "roundrobin", &[2, 2, 2]), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(pattern(2, 0, "roundrobin:2", &[4, 4]), vec![0, 0, 1, 1, 0, 0, 1, 1]);
        assert_eq!(pattern(3, 0, "sequential", &[2, 2, 2]), vec![0, 0, 1, 1, 2, 2]);
        // A done file is skipped.
        assert_eq!(pattern(2, 0, "roundrobin", &[1, 3]), vec![0, 1, 1, 1]);
    }

    #[test]
    fn openfiles_limits_the_rotation() {
        // Two open of four: 0 and 1 alternate until they are done, then 2 and 3 open.
        assert_eq!(pattern(4, 2, "roundrobin", &[2, 2, 2, 2]), vec![0, 1, 0, 1, 2, 3, 2, 3]);
    }

    #[test]
    fn random_covers_every_file_and_batches() {
        let p = pattern(4, 0, "random:4", &[400; 4]);
        assert_eq!(p.len(), 1600);
        for f in 0..4 {
            assert_eq!(p.iter().filter(|&&x| x == f).count(), 400);
        }
        // Choices come in runs of 4 (a run can end early when its file is done).
        let runs = p.chunk_by(|a, b| a == b).filter(|r| r.len() % 4 != 0).count();
        assert!(runs <= 4, "{runs} runs not a multiple of 4");
    }
}
