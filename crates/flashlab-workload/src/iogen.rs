//! Where and how big a job's next I/O is, with fio's workload options, for the simulated
//! engine ([`crate::engine`]) and the real-device runner alike: block sizes from `bs`,
//! `bssplit` or `bsrange`; `blockalign`; random offsets from `random_distribution` (with fio's
//! random map for uniform ones unless `norandommap`), `percentage_random`, the `rw=...:N`
//! offset modifier with `rw_sequencer`; sequential offsets with holes (`rw=write:N`).
//!
//! A job with none of these options (one block size, uniform, no modifier) takes exactly the
//! offsets of [`Offsets`], drawn from the same generator in the same order as before they
//! existed, so earlier results are unchanged. The other paths draw from a second generator
//! seeded from the job's seed. No allocation per I/O.

use crate::offsets::Offsets;
use crate::rng::Rng;
use flashlab_jobs::blocksize::BlockSizeSampler;
use flashlab_jobs::distribution::Sampler;
use flashlab_jobs::{IoDir, Job};

/// Seed offset of the generator for the options beyond fio's basic ones.
const EXTRA_SEED: u64 = 0x5EED_0F10_0000_0001;

/// One direction's offsets and sizes.
#[derive(Debug, Clone)]
enum DirGen {
    /// The basic case: the offsets of [`Offsets`] and one block size.
    Basic {
        offsets: Offsets,
        bs: u64,
    },
    Full(Box<FullGen>),
    /// fio's `sprandom=1` writes: blocks of `bs` from [`crate::sprandom::Sprandom`].
    Sprandom(Box<crate::sprandom::Sprandom>, u64),
}

#[derive(Debug, Clone)]
struct FullGen {
    dir: IoDir,
    bs: BlockSizeSampler,
    align: u64,
    random: bool,
    /// Skewed random blocks (of `align` bytes).
    skew: Option<Sampler>,
    /// Uniform random blocks with fio's random map.
    map: Option<RandomMap>,
    /// Blocks of `align` bytes in the span.
    blocks: u64,
    /// Where the next sequential I/O starts.
    pos: u64,
    /// Start of the last I/O (for `rw_sequencer=identical`).
    last: u64,
    /// I/Os left before the next random offset (`rw=randX:N`).
    run_left: u64,
    /// `random_distribution=sequence`: the blocks, and whether each round moves on by the
    /// sequence's length (`random_sequence_stride`).
    sequence: Option<(Vec<u32>, bool)>,
    /// I/Os drawn in this direction (fio's `io_issues`, which picks the sequence's element).
    issued: u64,
}

/// The offset and size generator of one job over a span of `span` bytes.
#[derive(Debug, Clone)]
pub struct IoGen {
    span: u64,
    dirs: [DirGen; 3],
    extra: Rng,
    seq_nr: u64,
    seq_add: i64,
    identical: bool,
    pct: flashlab_jobs::distribution::PercentageRandom,
}

/// Whether `job` uses only fio's basic offset options in direction `dir`.
fn basic(job: &Job, dir: IoDir) -> bool {
    job.bs_mix.is_none()
        && job.random_distribution.is_uniform()
        && job.percentage_random.for_dir(dir) == 100
        && job.rw_seq_nr == 1
        && job.rw_seq_add == 0
        && (job.blockalign[dir as usize] == 0 || job.blockalign[dir as usize] == job.block_size(dir))
}

/// What fio's `fixup_options` and `setup_files` require of a `sprandom=1` job: random writes
/// only (any reads or trims of a mixed job would take offsets the pass does not plan), one
/// file, one block size. fio sets `norandommap` and its LFSR generator itself; the pass visits
/// each block once by construction.
fn check_sprandom(job: &Job) -> Result<(), crate::Error> {
    let bad = |m: &str| {
        Err(crate::Error::within("sprandom")(flashlab_jobs::distribution::DistributionError(format!(
            "{m} (fio: \"sprandom requires random write, random_generator=lfsr, norandommap=1\")"
        ))))
    };
    if !job.rw.is_random() || job.rw.has_reads() || job.rw.has_trims() || !job.rw.has_writes() {
        return bad("needs rw=randwrite");
    }
    if job.nr_files() > 1 {
        return bad("supports one file only (fio: \"SPRandom supports only one file\")");
    }
    if job.bs_mix.is_some() {
        return bad("needs one block size");
    }
    Ok(())
}

impl IoGen {
    /// The generator of `job` over `span` bytes; draws its set-up from `rng` as [`Offsets`]
    /// did (the engine's generator, seeded with the job's seed). Errors name the option
    /// (a `zoned_abs` zone past the end of the span).
    pub fn new(job: &Job, span: u64, rng: &mut Rng) -> Result<IoGen, crate::Error> {
        let random = job.rw.is_random();
        let random_map = !job.norandommap;
        let extra_seed = rng.clone().next_u64() ^ EXTRA_SEED;
        let mut extra = Rng::new(extra_seed);
        let mut dirs = Vec::with_capacity(3);
        if job.sprandom.enabled {
            check_sprandom(job)?;
        }
        for dir in [IoDir::Read, IoDir::Write, IoDir::Trim] {
            if dir == IoDir::Write && job.sprandom.enabled {
                let bs = job.block_size(dir).max(1);
                let o = &job.sprandom;
                let g = crate::sprandom::Sprandom::new(span / bs, bs, o.op, o.regions, o.cache, rng)
                    .map_err(|m| crate::Error::within("spr_cs")(flashlab_jobs::distribution::DistributionError(m)))?;
                dirs.push(DirGen::Sprandom(Box::new(g), bs));
                continue;
            }
            if basic(job, dir) {
                let bs = job.block_size(dir).max(1);
                dirs.push(DirGen::Basic { offsets: Offsets::new(random, random_map, span, bs, rng), bs });
                continue;
            }
            let sizes = job.block_sizes(dir);
            let align = job.align(dir);
            let blocks = (span / align).max(1);
            let sequence = match &job.random_distribution {
                flashlab_jobs::distribution::Distribution::Sequence(seq) if random => {
                    // fio: an element of the base pattern past the end of the file is an
                    // error (EINVAL, "sequence access block ... out of bounds").
                    if let Some(&b) = seq.iter().find(|&&b| u64::from(b) >= blocks) {
                        return Err(crate::Error::within("random_distribution")(
                            flashlab_jobs::distribution::DistributionError(format!(
                                "sequence block {b} is past the end of the region ({blocks} blocks of {align} bytes)"
                            )),
                        ));
                    }
                    Some((seq.clone(), job.random_sequence_stride))
                }
                _ => None,
            };
            let (skew, map) = if !random || sequence.is_some() {
                (None, None)
            } else if job.random_distribution.is_uniform() {
                (None, random_map.then(|| RandomMap::new(blocks)))
            } else {
                let s = Sampler::new(&job.random_distribution, dir, blocks, align, &mut extra)
                    .map_err(crate::Error::within("random_distribution"))?;
                (Some(s), None)
            };
            dirs.push(DirGen::Full(Box::new(FullGen {
                dir,
                bs: BlockSizeSampler::new(&sizes, job.bs_unaligned),
                align,
                random,
                skew,
                map,
                blocks,
                pos: 0,
                last: 0,
                // fio counts down from N before its first random offset: the first N-1
                // I/Os follow on from the start of the span.
                run_left: if random { job.rw_seq_nr.max(1) - 1 } else { 0 },
                sequence,
                issued: 0,
            })));
        }
        let dirs: [DirGen; 3] = dirs.try_into().expect("three directions");
        Ok(IoGen {
            span,
            dirs,
            extra,
            seq_nr: job.rw_seq_nr.max(1),
            seq_add: job.rw_seq_add,
            identical: job.rw_sequencer_identical,
            pct: job.percentage_random,
        })
    }

    /// Offset (relative to the span) and length of the next I/O in direction `dir`
    /// (0 read, 1 write, 2 trim). The I/O always lies inside the span. `None`: the span has
    /// no more (a strided `sequence` distribution went past its end; fio's file is done).
    #[inline]
    pub fn next(&mut self, dir: u8) -> Option<(u64, u64)> {
        let span = self.span;
        match &mut self.dirs[dir as usize] {
            DirGen::Basic { offsets, bs } => {
                let off = offsets.next(span, *bs);
                Some((off, (*bs).min(span - off)))
            }
            DirGen::Sprandom(g, bs) => g.next_block().map(|b| (b * *bs, *bs)),
            DirGen::Full(g) => {
                let mut len = g.bs.next(&mut self.extra).min(span).max(1);
                let count = g.issued;
                g.issued += 1;
                let off = if !g.random {
                    let mut off = g.pos;
                    if off + len > span {
                        off = 0;
                    }
                    let next = i128::from(off + len) + i128::from(self.seq_add);
                    // fio's backwards I/O (`rw=read:-8k`): before the start of the span it
                    // wraps to the span's end less the skip.
                    g.pos = if next < 0 {
                        (i128::from(span) + i128::from(self.seq_add)).max(0) as u64
                    } else {
                        next as u64
                    };
                    off
                } else if g.run_left > 0 {
                    g.run_left -= 1;
                    let off = if self.identical { g.last } else { g.pos };
                    if off + len > span {
                        0
                    } else {
                        off
                    }
                } else if !self.pct.draw_random(g.dir, &mut self.extra) {
                    // fio: a non-random I/O of a random job follows on from the last one.
                    if g.pos + len > span {
                        0
                    } else {
                        g.pos
                    }
                } else {
                    g.run_left = self.seq_nr - 1;
                    let b = match (&g.sequence, &g.skew) {
                        (Some((seq, stride)), _) => {
                            // fio's __get_next_rand_offset_sequence: the element the I/O count
                            // picks, plus the round times the length with a stride.
                            let n = seq.len() as u64;
                            let b = u64::from(seq[(count % n) as usize]) + if *stride { count / n * n } else { 0 };
                            if b >= g.blocks {
                                return None;
                            }
                            b
                        }
                        (None, Some(s)) => s.next(&mut self.extra),
                        (None, None) => flashlab_jobs::distribution::below(&mut self.extra, g.blocks),
                    };
                    let mut off = b * g.align;
                    if let Some(m) = &mut g.map {
                        // fio: a used block moves on to the next free one, and the I/O is
                        // cut where the free run ends (fio's mark_random_map).
                        let b = m.next_free(b);
                        off = b * g.align;
                        let want = len.div_ceil(g.align).min(g.blocks - b);
                        let got = m.set_run(b, want);
                        len = len.min(got * g.align);
                    }
                    if off + len > span {
                        (span - len) / g.align * g.align
                    } else {
                        off
                    }
                };
                g.last = off;
                if g.random {
                    g.pos = off + len;
                }
                Some((off, len))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flashlab_jobs::Rw;

    fn job(text: &str) -> Job {
        flashlab_jobs::parse_jobfile("t.fio", &format!("[j]\n{text}")).unwrap().jobs.remove(0)
    }

    #[test]
    fn sequence_distribution() {
        // Six 4 KiB blocks; fio's sequence 2,0,1 repeats, or moves on by 3 with a stride.
        let j = job("rw=randread\nbs=4k\nrandom_distribution=sequence:2,0,1\n");
        let mut g = IoGen::new(&j, 6 * 4096, &mut Rng::new(1)).unwrap();
        let blocks: Vec<u64> = (0..7).map(|_| g.next(0).unwrap().0 / 4096).collect();
        assert_eq!(blocks, [2, 0, 1, 2, 0, 1, 2]);
        let j = job("rw=randread\nbs=4k\nrandom_distribution=sequence:2,0,1\nrandom_sequence_stride=1\n");
        let mut g = IoGen::new(&j, 6 * 4096, &mut Rng::new(1)).unwrap();
        let blocks: Vec<u64> = (0..6).map(|_| g.next(0).unwrap().0 / 4096).collect();
        assert_eq!(blocks, [2, 0, 1, 5, 3, 4]);
        // The third round starts past the end: the region is done.
        assert_eq!(g.next(0), None);
        // A base element past the end is an error, as fio's EINVAL.
        let j = job("rw=randread\nbs=4k\nrandom_distribution=sequence:9,0\n");
        let e = IoGen::new(&j, 6 * 4096, &mut Rng::new(1)).unwrap_err().to_string();
        assert!(e.contains("sequence block 9 is past the end"), "{e}");
    }

    #[test]
    fn basic_jobs_take_the_old_offsets() {
        let j = job("rw=randwrite\nbs=4k\n");
        let mut rng = Rng::new(7);
        let mut g = IoGen::new(&j, 1 << 20, &mut rng).unwrap();
        let mut rng2 = Rng::new(7);
        let mut o = [0u8; 3].map(|_| Offsets::new(true, true, 1 << 20, 4096, &mut rng2));
        for _ in 0..1000 {
            assert_eq!(g.next(1).unwrap(), (o[1].next(1 << 20, 4096), 4096));
        }
        // ... and leave the engine's generator where Offsets left it.
        assert_eq!(rng.next_u64(), rng2.next_u64());
    }

    #[test]
    fn rw_modifier_and_sequencer() {
        let mut j = job("rw=randread:4\nbs=4k\n");
        let mut g = IoGen::new(&j, 1 << 20, &mut Rng::new(1)).unwrap();
        let offs: Vec<u64> = (0..11).map(|_| g.next(0).unwrap().0).collect();
        // As fio: three I/Os from the start, then a random offset and three after it.
        assert_eq!(offs[..3], [0, 4096, 8192]);
        for k in [3usize, 7] {
            for i in 1..4 {
                assert_eq!(offs[k + i], offs[k] + 4096 * i as u64, "{offs:?}");
            }
        }
        j.rw_sequencer_identical = true;
        let mut g = IoGen::new(&j, 1 << 20, &mut Rng::new(1)).unwrap();
        let offs: Vec<u64> = (0..8).map(|_| g.next(0).unwrap().0).collect();
        assert!(offs[3..7].iter().all(|&o| o == offs[3]), "{offs:?}");
        let j = job("rw=write:4k\nbs=4k\n");
        let mut g = IoGen::new(&j, 1 << 20, &mut Rng::new(1)).unwrap();
        assert_eq!((0..3).map(|_| g.next(1).unwrap().0).collect::<Vec<_>>(), vec![0, 8192, 16384]);
        assert_eq!(j.rw, Rw::Write);
    }

    #[test]
    fn negative_skip_reads_backwards_as_fio() {
        // fio's get_next_seq_offset: the first I/O at the start, then each one 8k back
        // from the end of the last, wrapping from before the start to the end less 8k.
        let j = job("rw=read:-8k\nbs=4k\n");
        assert_eq!(j.rw_seq_add, -8192);
        let span = 64 << 10;
        let mut g = IoGen::new(&j, span, &mut Rng::new(1)).unwrap();
        let offs: Vec<u64> = (0..18).map(|_| g.next(0).unwrap().0).collect();
        let mut want = vec![0];
        want.extend((0..15).map(|i| span - 8192 - 4096 * i));
        assert_eq!(want.last(), Some(&0));
        want.extend([span - 8192, span - 12288]);
        assert_eq!(offs, want);
        assert!(offs.iter().all(|&o| o + 4096 <= span));
    }

    #[test]
    fn mixed_sizes_and_skew_stay_in_the_span() {
        let j = job("rw=randwrite\nbssplit=4k/50:64k/50\nrandom_distribution=zipf:1.1\n");
        let span = 10 << 20;
        let mut g = IoGen::new(&j, span, &mut Rng::new(3)).unwrap();
        let mut big = 0;
        for _ in 0..20_000 {
            let (off, len) = g.next(1).unwrap();
            assert!(off + len <= span && off % 4096 == 0);
            big += usize::from(len == 65536);
        }
        assert!((big as f64 / 20_000.0 - 0.5).abs() < 0.02);
        // percentage_random=0: sequential.
        let j = job("rw=randwrite\nbs=4k\npercentage_random=0\n");
        let mut g = IoGen::new(&j, 1 << 20, &mut Rng::new(3)).unwrap();
        assert_eq!((0..3).map(|_| g.next(1).unwrap().0).collect::<Vec<_>>(), vec![0, 4096, 8192]);
    }
}

/// fio's `rate_min`/`rate_iops_min`: the job failed if a direction ran slower (fio checks
/// every `rate_cycle` and ends the job; flashlab checks the run's average). `Err` names the
/// option, the direction and both rates.
pub fn check_rate_min(job: &Job, result: &flashlab_measure::JobResult) -> Result<(), crate::Error> {
    for (i, (name, d)) in
        [("read", &result.read), ("write", &result.write), ("trim", &result.trim)].into_iter().enumerate()
    {
        if d.runtime_ns == 0 || d.ios == 0 {
            continue;
        }
        let secs = d.runtime_ns as f64 / 1e9;
        let (bw, iops) = (d.io_bytes as f64 / secs, d.ios as f64 / secs);
        if job.rate_min[i] > 0 && bw < job.rate_min[i] as f64 {
            return Err(crate::Error::RateMin {
                job: job.name.clone(),
                option: "rate_min",
                direction: name,
                wanted: format!("{} B/s", job.rate_min[i]),
                got: format!("{bw:.0} B/s"),
            });
        }
        if job.rate_iops_min[i] > 0 && iops < job.rate_iops_min[i] as f64 {
            return Err(crate::Error::RateMin {
                job: job.name.clone(),
                option: "rate_iops_min",
                direction: name,
                wanted: job.rate_iops_min[i].to_string(),
                got: format!("{iops:.0} IOPS"),
            });
        }
    }
    Ok(())
}

/// fio's random map: one bit per block of the span, set once the block was done. A drawn
/// block that is done moves on to the next free one (wrapping), an I/O covers only the free
/// run it starts, and a full map starts a new pass (fio ends the pass there, then loops or
/// ends the job). Allocated once, at set-up.
#[derive(Debug, Clone)]
struct RandomMap {
    bits: Vec<u64>,
    n: u64,
    used: u64,
}

impl RandomMap {
    fn new(n: u64) -> RandomMap {
        RandomMap { bits: vec![0; n.div_ceil(64) as usize], n, used: 0 }
    }

    fn is_set(&self, b: u64) -> bool {
        self.bits[(b / 64) as usize] & (1 << (b % 64)) != 0
    }

    /// `b` if free, else the next free block after it (wrapping); a full map is cleared first.
    fn next_free(&mut self, b: u64) -> u64 {
        if self.used >= self.n {
            self.bits.iter_mut().for_each(|w| *w = 0);
            self.used = 0;
        }
        if !self.is_set(b) {
            return b;
        }
        let words = self.bits.len() as u64;
        let start = b / 64;
        for k in 0..=words {
            let w = (start + k) % words;
            let mut free = !self.bits[w as usize];
            if k == 0 {
                free &= !0u64 << (b % 64); // bits at or after b in its own word
            }
            while free != 0 {
                let bit = w * 64 + u64::from(free.trailing_zeros());
                if bit < self.n {
                    return bit;
                }
                free &= free - 1;
            }
        }
        b // unreachable: the map is not full
    }

    /// Marks up to `nr` blocks from `b` (stopping at the first used one); returns how many.
    fn set_run(&mut self, b: u64, nr: u64) -> u64 {
        let mut k = 0;
        while k < nr && b + k < self.n && !self.is_set(b + k) {
            self.bits[((b + k) / 64) as usize] |= 1 << ((b + k) % 64);
            k += 1;
        }
        self.used += k;
        k.max(1)
    }
}

#[cfg(test)]
mod map_tests {
    use super::*;

    #[test]
    fn random_map_covers_every_block_once_per_pass() {
        let j =
            flashlab_jobs::parse_jobfile("t.fio", "[j]\nrw=randwrite\nbssplit=4k/50:16k/50\n").unwrap().jobs.remove(0);
        let span = 4 << 20;
        let mut g = IoGen::new(&j, span, &mut Rng::new(5)).unwrap();
        let mut seen = vec![0u32; (span / 4096) as usize];
        let mut bytes = 0;
        while bytes < span {
            let (off, len) = g.next(1).unwrap();
            for b in off / 4096..(off + len) / 4096 {
                seen[b as usize] += 1;
            }
            bytes += len;
        }
        assert_eq!(bytes, span);
        assert!(seen.iter().all(|&c| c == 1), "a block done twice or never in one pass");
    }
}
