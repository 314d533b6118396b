//! fio's `zonemode=strided` (also a bare `zonesize`): a job's I/O stays in one zone of
//! `zonerange` bytes until `zonesize` bytes have been transferred, then moves `zonerange +
//! zoneskip` bytes on, wrapping to the region's start past its end (fio's
//! `setup_strided_zone_mode`). Within a zone the job's own offsets run (sequential from the
//! zone's start, or random over the zone), and they start afresh every `zonerange` bytes, as
//! fio resets its file position and random map there. Any target, any device.

use crate::iogen::IoGen;
use crate::rng::Rng;
use flashlab_jobs::Job;

/// The strided state of a one-file job.
#[derive(Debug, Clone)]
pub struct Strided {
    job: Box<Job>,
    size: u64,
    range: u64,
    skip: u64,
    span: u64,
    /// The current zone's start, relative to the span.
    base: u64,
    /// Bytes transferred in this zone (fio's `zone_bytes`).
    bytes: u64,
    rng: Rng,
}

impl Strided {
    /// The strided state of `job` over a span of `span` bytes, or `None` when the job is not
    /// strided; its offsets' generator covers one zone range (returned with it).
    pub fn new(job: &Job, span: u64, rng: &mut Rng) -> Result<Option<(Strided, IoGen)>, crate::Error> {
        let z = &job.zoned;
        if z.effective_mode() != flashlab_jobs::zoned::ZoneMode::Strided {
            return Ok(None);
        }
        let range = z.strided_range().min(span).max(1);
        let seed = rng.clone().next_u64() ^ 0x57D1_DE00_0000_0001;
        let gen = IoGen::new(job, range, rng)?;
        let s = Strided {
            job: Box::new(job.clone()),
            size: z.size,
            range,
            skip: z.skip,
            span,
            base: 0,
            bytes: 0,
            rng: Rng::new(seed),
        };
        Ok(Some((s, gen)))
    }

    /// The next I/O's offset (relative to the span) and length in direction `dir`; `None`
    /// when it would run past the span's end (the job ends there, as fio's does).
    pub fn next(&mut self, gen: &mut IoGen, dir: u8) -> Option<(u64, u64)> {
        if self.bytes >= self.size {
            self.bytes = 0;
            self.base += self.range + self.skip;
            if self.base >= self.span {
                self.base = 0;
            }
        }
        if self.bytes.is_multiple_of(self.range) {
            // fio's fio_file_reset: the position back to the zone's start, the map cleared.
            *gen = IoGen::new(&self.job, self.range.min(self.span - self.base), &mut self.rng).ok()?;
        }
        let (off, len) = gen.next(dir)?;
        let off = self.base + off;
        if off + len > self.span {
            return None;
        }
        self.bytes += len;
        Some((off, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &str) -> Job {
        flashlab_jobs::parse_jobfile("t.fio", &format!("[j]\n{text}")).unwrap().jobs.remove(0)
    }

    fn offsets(text: &str, span: u64, n: usize) -> Vec<u64> {
        let j = job(text);
        let mut rng = Rng::new(1);
        let (mut s, mut g) = Strided::new(&j, span, &mut rng).unwrap().unwrap();
        (0..n).map_while(|_| s.next(&mut g, 0).map(|(o, _)| o >> 10)).collect()
    }

    #[test]
    fn sequential_zones_skip_and_wrap() {
        // 8k in each zone, then 24k on (range 8k + skip 16k); the fourth zone would start
        // at 72k, past the 64k span: back to 0.
        let o = offsets("rw=read\nbs=4k\nzonesize=8k\nzoneskip=16k\n", 64 << 10, 8);
        assert_eq!(o, vec![0, 4, 24, 28, 48, 52, 0, 4]);
        // zonesize above zonerange: the zone is read twice before the skip.
        let o = offsets("rw=read\nbs=4k\nzonemode=strided\nzonesize=16k\nzonerange=8k\nzoneskip=8k\n", 64 << 10, 8);
        assert_eq!(o, vec![0, 4, 0, 4, 16, 20, 16, 20]);
        // zonesize below zonerange: part of each zone.
        let o = offsets("rw=read\nbs=4k\nzonemode=strided\nzonesize=4k\nzonerange=16k\n", 64 << 10, 5);
        assert_eq!(o, vec![0, 16, 32, 48, 0]);
    }

    #[test]
    fn offsets_equal_fios() {
        // fio 3.33 ran these jobs on a fresh file of `size` bytes with write_iolog; its logs
        // gave these read offsets (KiB), in order.
        let o = offsets("rw=read\nbs=4k\nzonemode=strided\nzonesize=16k\nzonerange=32k\nzoneskip=64k\n", 1 << 20, 32);
        let fio: Vec<u64> = (0..8).flat_map(|z| (0..4).map(move |k| z * 96 + k * 4)).collect();
        assert_eq!(o, fio);
        let o = offsets("rw=read\nbs=4k\nzonemode=strided\nzonesize=8k\nzoneskip=16k\n", 64 << 10, 8);
        assert_eq!(o, vec![0, 4, 24, 28, 48, 52, 0, 4]);
        let o = offsets("rw=read\nbs=4k\nzonemode=strided\nzonesize=16k\nzonerange=8k\nzoneskip=8k\n", 256 << 10, 16);
        assert_eq!(o, vec![0, 4, 0, 4, 16, 20, 16, 20, 32, 36, 32, 36, 48, 52, 48, 52]);
    }

    #[test]
    fn random_offsets_stay_in_the_zone() {
        let o = offsets("rw=randread\nbs=4k\nzonesize=16k\nzoneskip=16k\n", 1 << 20, 64);
        for (i, off) in o.iter().enumerate() {
            let zone = (i / 4) as u64 % 32;
            assert!((zone * 32..zone * 32 + 16).contains(off), "I/O {i} at {off}k");
        }
        // With the random map each zone's four blocks come once each.
        let mut first: Vec<u64> = o[..4].to_vec();
        first.sort();
        assert_eq!(first, vec![0, 4, 8, 12]);
    }
}
