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
//! - `zipf`, `pareto`, `normal`/`gauss` draw the file from that distribution over
//!   `nrfiles << 10` ranks, unhashed (fio's `__get_next_fileno_rand`); a file whose I/O is
//!   done is reset rather than done, so the job ends by its byte count.
//!
//! This is the selection logic only; the engines (flashlab-lab's `fileset`) drive it. Pure:
//! no I/O, no allocation after [`FileSelector::new`].

use crate::distribution::{unit, Distribution, Sampler};
use crate::IoDir;
use rand_core::RngCore;
use serde::{Deserialize, Serialize};

/// fio's `FIO_FSERVICE_SHIFT`: a skewed file choice draws over `nrfiles << 10` ranks.
const FSERVICE_SHIFT: u32 = 10;

/// fio's `file_service_type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileServiceType {
    /// Choose a file at random.
    Random,
    /// Round robin over the open files (fio's default).
    RoundRobin,
    /// Finish one file before moving on to the next.
    Sequential,
    /// `zipf`, `pareto` or `normal`/`gauss` with their parameter: fio draws the file from
    /// this distribution over `nrfiles << 10` ranks without its hash (file 0 is the most
    /// likely after fio's random rotation, or where `:center` puts it), and a file whose I/O
    /// is done starts over instead of being done.
    Skewed(Distribution),
}

/// `file_service_type` with its `:N` (I/Os per choice).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileService {
    /// How the next file is chosen.
    pub kind: FileServiceType,
    /// I/Os a chosen file serves before the next choice (at least 1; always 1 for the
    /// skewed kinds, as fio).
    pub batch: u32,
}

impl Default for FileService {
    fn default() -> Self {
        FileService { kind: FileServiceType::RoundRobin, batch: 1 }
    }
}

impl FileService {
    /// Reads fio's value: `random`, `roundrobin`, `sequential`, each optionally `:N`; or
    /// `zipf[:θ]`, `pareto[:h]`, `normal[:σ]` / `gauss[:σ]`, each optionally `:center`.
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
                let d = Distribution::parse(v, 1024).map_err(|e| e.to_string())?;
                return Ok(FileService { kind: FileServiceType::Skewed(d), batch: 1 });
            }
            _ => {
                return Err(format!(
                    "bad file_service_type '{name}': expected random, roundrobin, sequential, zipf, pareto, normal or gauss"
                ))
            }
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

    /// fio's spelling of this value.
    pub fn fio_spelling(&self) -> String {
        let b = if self.batch > 1 { format!(":{}", self.batch) } else { String::new() };
        match &self.kind {
            FileServiceType::Random => format!("random{b}"),
            FileServiceType::RoundRobin => format!("roundrobin{b}"),
            FileServiceType::Sequential => format!("sequential{b}"),
            FileServiceType::Skewed(d) => d.fio_spelling(),
        }
    }

    /// A skewed kind: a done file starts over (fio's `__FIO_FSERVICE_NONUNIFORM`).
    pub fn is_skewed(&self) -> bool {
        matches!(self.kind, FileServiceType::Skewed(_))
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
    batch: u32,
    kind: Kind,
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

#[derive(Debug, Clone)]
enum Kind {
    RoundRobin,
    Sequential,
    Random,
    Skewed(Sampler),
}

impl FileSelector {
    /// `nrfiles` files, at most `openfiles` open at once (0 or more than `nrfiles`: all).
    /// A file opens when it is first chosen (fio's iolog shows `random` opening file 3 first
    /// under `openfiles=2`). `seed` gives a skewed kind its set-up draw (fio's rotation of
    /// the hottest file when no `:center` is given).
    pub fn new<R: RngCore + ?Sized>(nrfiles: u32, openfiles: u32, svc: &FileService, seed: &mut R) -> FileSelector {
        let n = nrfiles.max(1) as usize;
        let open_max = if openfiles == 0 { n } else { (openfiles as usize).min(n) };
        let kind = match &svc.kind {
            FileServiceType::RoundRobin => Kind::RoundRobin,
            FileServiceType::Sequential => Kind::Sequential,
            FileServiceType::Random => Kind::Random,
            FileServiceType::Skewed(d) => {
                let ranks = (n as u64) << FSERVICE_SHIFT;
                match Sampler::new(d, IoDir::Read, ranks, 1, seed) {
                    Ok(s) => Kind::Skewed(s.without_hash()),
                    // Only zoned_abs can fail, and it is not a file service kind.
                    Err(_) => Kind::Random,
                }
            }
        };
        FileSelector {
            batch: svc.batch.max(1),
            kind,
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

    /// The number of files.
    pub fn files(&self) -> usize {
        self.open.len()
    }

    /// A done file starts over instead (the skewed kinds, as fio).
    pub fn resets_done_files(&self) -> bool {
        matches!(self.kind, Kind::Skewed(_))
    }

    /// The file of the next I/O; `None` when every file is done. `rng` gives the draws of
    /// `random` and the skewed kinds.
    pub fn next<R: RngCore + ?Sized>(&mut self, rng: &mut R) -> Option<usize> {
        let n = self.open.len();
        if self.nr_done >= n {
            return None;
        }
        if let Some(c) = self.current.filter(|&c| self.open[c]) {
            if matches!(self.kind, Kind::Sequential) {
                return Some(c);
            }
            if self.left > 0 {
                self.left -= 1;
                return Some(c);
            }
        }
        let f = match &self.kind {
            Kind::RoundRobin | Kind::Sequential => self.next_rr(),
            Kind::Random | Kind::Skewed(_) => loop {
                let i = match &self.kind {
                    Kind::Skewed(s) => (s.next(rng) >> FSERVICE_SHIFT) as usize,
                    _ => (n as f64 * unit(rng)) as usize,
                }
                .min(n - 1);
                if !self.done[i] && self.try_open(i) {
                    break i;
                }
            },
        };
        self.current = Some(f);
        self.left = self.batch - 1;
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

    /// File `i`'s I/O is done: it is closed (which frees an open slot) and never chosen again
    /// until [`FileSelector::reset`]. The skewed kinds ignore this (the file starts over).
    pub fn done(&mut self, i: usize) {
        if self.resets_done_files() {
            return;
        }
        if !self.done[i] {
            self.done[i] = true;
            self.nr_done += 1;
            if self.open[i] {
                self.open[i] = false;
                self.nr_open -= 1;
            }
        }
    }

    /// Every file is done.
    pub fn all_done(&self) -> bool {
        self.nr_done >= self.open.len()
    }

    /// A new pass (fio's `clear_io_state` between loops, or a time-based job's next round):
    /// every file may be chosen again; round robin starts over from file 0.
    pub fn reset(&mut self) {
        self.done.iter_mut().for_each(|d| *d = false);
        self.open.iter_mut().for_each(|o| *o = false);
        self.nr_done = 0;
        self.nr_open = 0;
        self.next_file = 0;
        self.current = None;
        self.left = 0;
    }
}

/// The file of every I/O when file `i` takes `ios[i]` I/Os in all and the selector draws from
/// `rng`: the order in which fio would visit the files (tests compare it with fio's iolog).
pub fn visit_order<R: RngCore + ?Sized>(
    nrfiles: u32,
    openfiles: u32,
    svc: &FileService,
    ios: &[u64],
    rng: &mut R,
) -> Vec<usize> {
    let mut s = FileSelector::new(nrfiles, openfiles, svc, rng);
    let mut left = ios.to_vec();
    let mut out = Vec::new();
    while let Some(f) = s.next(rng) {
        out.push(f);
        left[f] = left[f].saturating_sub(1);
        if left[f] == 0 {
            s.done(f);
            if s.resets_done_files() && left.iter().all(|&l| l == 0) {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use rand_core::SeedableRng;

    fn rng(seed: u64) -> rand_xoshiro::Xoshiro256PlusPlus {
        rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed)
    }

    fn pattern(nr: u32, open: u32, svc: &str, ios: &[u64]) -> Vec<usize> {
        visit_order(nr, open, &FileService::parse(svc).unwrap(), ios, &mut rng(1))
    }

    #[test]
    fn parses_fios_values() {
        assert_eq!(FileService::parse("roundrobin").unwrap(), FileService::default());
        assert_eq!(FileService::parse("random:8").unwrap(), FileService { kind: FileServiceType::Random, batch: 8 });
        assert!(FileService::parse("sequential:0").is_err());
        assert!(FileService::parse("zipf:1.2").unwrap().is_skewed());
        assert!(FileService::parse("zipf:1").is_err());
        assert!(FileService::parse("pareto:2").is_err());
        assert!(FileService::parse("gauss:5").unwrap().is_skewed());
        assert!(FileService::parse("rr").is_err());
        assert_eq!(FileService::parse("random:4").unwrap().fio_spelling(), "random:4");
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

    #[test]
    fn zipf_prefers_one_file_and_reset_reopens() {
        let svc = FileService::parse("zipf:1.2:0").unwrap();
        let mut s = FileSelector::new(8, 0, &svc, &mut rng(3));
        let (mut count, mut r) = ([0u32; 8], rng(5));
        for _ in 0..20_000 {
            count[s.next(&mut r).unwrap()] += 1;
        }
        // Centre 0: file 0 holds the hottest ranks and gets the largest share.
        assert!(count.iter().all(|&c| c <= count[0]), "{count:?}");
        assert!(count[0] > 20_000 / 8 * 2, "{count:?}");
        let mut s = FileSelector::new(2, 0, &FileService::default(), &mut rng(1));
        s.done(0);
        s.done(1);
        assert!(s.all_done() && s.next(&mut rng(1)).is_none());
        s.reset();
        assert_eq!(s.next(&mut rng(1)), Some(0));
    }
}
