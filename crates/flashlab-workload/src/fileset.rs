//! A job's I/O over its files (fio's `nrfiles`, `filename=a:b`, `openfiles`,
//! `file_service_type`), for the simulated engine ([`crate::engine`]) and the real-device
//! runner alike: which file the next I/O goes to ([`flashlab_jobs::files::FileSelector`]), and
//! where in that file ([`IoGen`], one per file, each over its own file's span, so offsets are
//! per file and aligned within it).
//!
//! As fio 3.33 (`io_u.c` `set_io_u_file`, `backend.c` `keep_running`):
//!
//! - a file is done once a pass over it is complete — its span of bytes issued, for
//!   sequential jobs and for uniform random jobs with the random map; a job that is
//!   time-based, skewed or `norandommap` has random files that never finish (fio resets them);
//! - the skewed file choices (`zipf`, `pareto`, `normal`) reset a done file instead;
//! - when every file is done the job ends, unless it is time-based, has `loops` left or an
//!   `io_size` to reach: then every file starts over.
//!
//! A job with one file takes exactly the offsets of its one [`IoGen`], drawn from the same
//! generator in the same order, so single-file results do not change. Counts per file are
//! kept for the report (`flashlab_files`). No allocation per I/O.

use crate::iogen::IoGen;
use crate::rng::Rng;
use flashlab_jobs::files::FileSelector;
use flashlab_jobs::Job;

/// Seed offset of the file selector's generator.
const FILE_SEED: u64 = 0xF11E_5E1E_C700_0001;

/// I/Os and bytes each file received, per direction (read, write, trim).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileCounts {
    /// I/Os issued per direction.
    pub(crate) ios: [u64; 3],
    /// Bytes issued per direction.
    pub(crate) bytes: [u64; 3],
}

impl FileCounts {
    /// The counts as a job's result reports them for the file `name`.
    pub fn file_io(&self, name: &str) -> flashlab_measure::FileIo {
        flashlab_measure::FileIo { name: name.to_string(), ios: self.ios, bytes: self.bytes }
    }
}

/// The offset and size generator of one job over its files.
#[derive(Debug, Clone)]
pub struct FileSet {
    gens: Vec<IoGen>,
    spans: Vec<u64>,
    /// Bytes issued to each file in this pass.
    pass: Vec<u64>,
    counts: Vec<FileCounts>,
    /// `None` for one file.
    sel: Option<FileSelector>,
    rng: Rng,
    /// Files are done after one pass (else they never are).
    finite: bool,
    /// Passes left after this one when every file is done (`u64::MAX`: unbounded).
    passes_left: u64,
    /// fio's `zonemode=strided` on a one-file job ([`crate::strided`]).
    strided: Option<Box<crate::strided::Strided>>,
}

impl FileSet {
    /// The generator of `job` over files of `spans` bytes each; draws its set-up from `rng`
    /// (the engine's generator, seeded with the job's seed), the first file's exactly as a
    /// single-file job does. Errors name the option.
    pub fn new(job: &Job, spans: &[u64], rng: &mut Rng) -> Result<FileSet, crate::Error> {
        assert!(!spans.is_empty(), "a job has at least one file");
        let file_seed = rng.clone().next_u64() ^ FILE_SEED;
        let mut gens = Vec::with_capacity(spans.len());
        let mut strided = None;
        for &span in spans {
            // fio: strided zones only with one file.
            match crate::strided::Strided::new(job, span, rng)?.filter(|_| spans.len() == 1) {
                Some((s, gen)) => {
                    strided = Some(Box::new(s));
                    gens.push(gen);
                }
                None => gens.push(IoGen::new(job, span, rng)?),
            }
        }
        let mut frng = Rng::new(file_seed);
        let sel = (spans.len() > 1)
            .then(|| FileSelector::new(spans.len() as u32, job.openfiles, &job.file_service, &mut frng));
        let finite =
            !job.rw.is_random() || (job.random_distribution.is_uniform() && !job.norandommap && !job.time_based);
        let passes_left =
            if job.time_based || job.io_size.is_some() { u64::MAX } else { u64::from(job.loops.max(1)) - 1 };
        Ok(FileSet {
            gens,
            spans: spans.to_vec(),
            pass: vec![0; spans.len()],
            counts: vec![FileCounts::default(); spans.len()],
            sel,
            rng: frng,
            finite,
            passes_left,
            strided,
        })
    }

    /// The number of files.
    pub fn files(&self) -> usize {
        self.gens.len()
    }

    /// The file, offset (relative to the file's span) and length of the next I/O in direction
    /// `dir` (0 read, 1 write, 2 trim); `None` when every file is done and the job has no
    /// pass left (it ends there, as fio's does).
    // Always: the engine draws one offset per request, and as a call it cost a fifth of the
    // draw in saved registers (callgrind, DFTL wsat).
    #[inline(always)]
    pub fn next(&mut self, dir: u8) -> Option<(usize, u64, u64)> {
        let f = match &mut self.sel {
            None => 0,
            Some(sel) => match sel.next(&mut self.rng) {
                Some(f) => f,
                None => {
                    if self.passes_left == 0 {
                        return None;
                    }
                    self.passes_left = self.passes_left.saturating_sub(1);
                    sel.reset();
                    self.pass.iter_mut().for_each(|p| *p = 0);
                    sel.next(&mut self.rng)?
                }
            },
        };
        let (off, len) = match &mut self.strided {
            None => self.gens[f].next(dir)?,
            Some(s) => s.next(&mut self.gens[f], dir)?,
        };
        let c = &mut self.counts[f];
        c.ios[dir as usize] += 1;
        c.bytes[dir as usize] += len;
        if let Some(sel) = &mut self.sel {
            self.pass[f] += len;
            if self.pass[f] >= self.spans[f] {
                self.pass[f] = 0;
                if self.finite {
                    sel.done(f);
                }
            }
        }
        Some((f, off, len))
    }

    /// I/Os and bytes issued to each file so far.
    pub fn counts(&self) -> &[FileCounts] {
        &self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &str) -> Job {
        flashlab_jobs::parse_jobfile("t.fio", &format!("[j]\n{text}")).unwrap().jobs.remove(0)
    }

    fn run(j: &Job, spans: &[u64], dir: u8) -> (Vec<usize>, Vec<FileCounts>) {
        let mut fs = FileSet::new(j, spans, &mut Rng::new(9)).unwrap();
        let mut order = Vec::new();
        while let Some((f, off, len)) = fs.next(dir) {
            assert!(off + len <= spans[f]);
            order.push(f);
            assert!(order.len() < 100_000, "never ends");
        }
        (order, fs.counts().to_vec())
    }

    #[test]
    fn one_file_takes_the_single_file_offsets() {
        let j = job("rw=randwrite\nbs=4k\n");
        let mut a = FileSet::new(&j, &[1 << 20], &mut Rng::new(4)).unwrap();
        let mut b = IoGen::new(&j, 1 << 20, &mut Rng::new(4)).unwrap();
        for _ in 0..600 {
            let (f, off, len) = a.next(1).unwrap();
            assert_eq!((f, off, len), (0, b.next(1).unwrap().0, 4096));
        }
    }

    #[test]
    fn files_end_after_one_pass_each() {
        let j = job("rw=randwrite\nbs=4k\nnrfiles=4\n");
        let (order, counts) = run(&j, &[64 << 10; 4], 1);
        assert_eq!(order.len(), 64);
        assert!(counts.iter().all(|c| c.ios[1] == 16 && c.bytes[1] == 64 << 10));
        assert_eq!(&order[..8], &[0, 1, 2, 3, 0, 1, 2, 3]);
        // Sequential service with two open files: the first file to its end, then the next.
        let j = job("rw=write\nbs=4k\nnrfiles=3\nfile_service_type=sequential\nopenfiles=2\n");
        let (order, _) = run(&j, &[8192, 8192, 8192], 1);
        assert_eq!(order, vec![0, 0, 1, 1, 2, 2]);
        // loops=2: every file twice.
        let j = job("rw=read\nbs=4k\nnrfiles=2\nloops=2\n");
        let (order, _) = run(&j, &[8192, 8192], 0);
        assert_eq!(order, vec![0, 1, 0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn skewed_choice_never_runs_out_and_prefers_a_file() {
        let j = job("rw=randread\nbs=4k\nnrfiles=8\nfile_service_type=zipf:1.2:0\n");
        let mut fs = FileSet::new(&j, &[64 << 10; 8], &mut Rng::new(2)).unwrap();
        for _ in 0..8000 {
            fs.next(0).unwrap();
        }
        let c: Vec<u64> = fs.counts().iter().map(|c| c.ios[0]).collect();
        assert!(c.iter().all(|&x| x <= c[0]) && c[0] > 2000, "{c:?}");
    }
}
