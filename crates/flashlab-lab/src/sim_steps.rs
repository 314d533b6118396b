//! The protocol steps on a simulated system: fill files, random writes, deletes, fstrim and
//! idle on the simulated filesystem, driven by the closed-loop engine in virtual time.

use crate::engine::{run_jobs, JobSpec};
use crate::fourcorner::{run_four_corner, FourCorner, FourCornerConfig};
use crate::protocol::{FileSizes, ProtocolTarget, RandomWrites};
use crate::rng::Rng;
use crate::system::SimSystem;
use crate::Error;
use flashlab_jobs::Rw;

pub use flashlab_workload::protocol::FILL_PREFIX;

impl SimSystem {
    /// The first fill-file name not in use, searching from number `from`; returns it and its
    /// number (a fill of thousands of files continues from the last one instead of rescanning).
    fn next_fill_name(&self, from: u64) -> (String, u64) {
        (from..)
            .map(|i| (format!("{FILL_PREFIX}{i:05}"), i))
            .find(|(n, _)| self.file_id(n).is_none())
            .expect("a free name")
    }
}

impl ProtocolTarget for SimSystem {
    fn four_corner(
        &mut self,
        fc: &FourCornerConfig,
        label: &str,
        progress: &mut dyn FnMut(&str, f64),
    ) -> Result<FourCorner, Error> {
        Ok(run_four_corner(self, fc, label, progress)?)
    }

    fn fill(&mut self, leave_free: u64, sizes: FileSizes, progress: &mut dyn FnMut(f64)) -> Result<String, Error> {
        let target = self.fs().free_bytes().saturating_sub(leave_free);
        let mut written = 0;
        let mut rng = Rng::new(sizes.seed);
        let mut number = 0;
        let mut max_ns = 0;
        loop {
            // The filesystem's own blocks (metadata, node blocks) also take space: stop on what
            // is free, not on what was written.
            let room = self.fs().free_bytes().saturating_sub(leave_free) / 4096 * 4096;
            if room == 0 || written >= target {
                break;
            }
            let size = sizes.pick(&mut rng).min(room).min(target - written);
            let (name, n) = self.next_fill_name(number);
            number = n + 1;
            let file = self.create(&name, size)?;
            let job = JobSpec::on_file(&name, Rw::Write, 1 << 20, file, size);
            let r = run_jobs(self, &[job], |f| progress((written as f64 + f * size as f64) / target as f64))?;
            max_ns = max_ns.max(r[0].write.lat.max());
            written += size;
        }
        // The slowest write request, so that the busy-time ceiling can be checked on this step.
        Ok(format!(
            "wrote {written} bytes of fill files; {} bytes free (max write {:.1} ms)",
            self.fs().free_bytes(),
            max_ns as f64 / 1e6
        ))
    }

    fn random_writes(&mut self, w: &RandomWrites, progress: &mut dyn FnMut(f64)) -> Result<String, Error> {
        let size = self.fs().free_bytes().saturating_sub(w.keep_free) / 4096 * 4096;
        if size == 0 {
            return Ok("no free space beyond keep_free: skipped".into());
        }
        let (name, _) = self.next_fill_name(0);
        let file = self.create(&name, size)?;
        let mut job = JobSpec::on_file(&name, Rw::RandWrite, 4096, file, size);
        job.settings.io_limit = Some((size as f64 * w.passes) as u64 / 4096 * 4096);
        job.settings.iodepth = w.iodepth;
        job.settings.random_map = w.random_map;
        job.settings.seed = w.seed;
        let r = run_jobs(self, &[job], progress)?;
        let deleted = if w.delete_after {
            self.delete(&name)?;
            if self.fs().discard() {
                "; file deleted (discarded)"
            } else {
                "; file deleted (not trimmed)"
            }
        } else {
            ""
        };
        // The write latency's tail, so that the busy-time ceiling can be checked on this step
        // too (it is not a row of the table).
        let lat = &r[0].write.lat;
        Ok(format!(
            "{} bytes of 4 KiB random writes over {size} bytes at {:.3} MB/s (p99 {:.1} ms, max {:.1} ms){deleted}",
            r[0].write.io_bytes,
            r[0].write.bw_bytes_per_sec() / 1e6,
            lat.percentile(99.0) as f64 / 1e6,
            lat.max() as f64 / 1e6
        ))
    }

    fn thin(&mut self, free: u64, seed: u64) -> Result<String, Error> {
        let mut names: Vec<String> =
            self.fs().names().filter(|n| n.starts_with(FILL_PREFIX)).map(str::to_string).collect();
        let mut rng = Rng::new(seed);
        let mut deleted = 0;
        while self.fs().free_bytes() < free && !names.is_empty() {
            let name = names.swap_remove(rng.below(names.len() as u64) as usize);
            self.delete(&name)?;
            deleted += 1;
        }
        Ok(format!("deleted {deleted} fill files at random; {} bytes free", self.fs().free_bytes()))
    }

    fn delete_fill(&mut self) -> Result<String, Error> {
        let names: Vec<String> = self.fs().names().filter(|n| n.starts_with(FILL_PREFIX)).map(str::to_string).collect();
        for name in &names {
            self.delete(name)?;
        }
        let how = if self.fs().discard() { "discarded" } else { "not trimmed" };
        Ok(format!("deleted {} fill files ({how}); {} bytes free", names.len(), self.fs().free_bytes()))
    }

    fn fstrim(&mut self) -> Result<String, Error> {
        let bytes = SimSystem::fstrim(self)?;
        Ok(format!("Trimmed {bytes} bytes"))
    }

    fn idle(&mut self, ns: u64, duration: &str) -> Result<String, Error> {
        SimSystem::idle(self, ns);
        let st = self.device().state();
        Ok(format!("idle {duration}; {} of {} blocks free after background GC", st.free_blocks, st.total_blocks))
    }

    fn clock_s(&self) -> f64 {
        self.now() as f64 / 1e9
    }

    fn take_slowest_command_us(&mut self) -> Option<f64> {
        Some(SimSystem::take_slowest_command(self) as f64 / 1e3)
    }
}
