//! A workload as a list of file operations, the same list run on the kernel's ext4
//! ([`crate::kernel_run`]) and on the model ([`crate::model_run`]). Sizes are whole 4 KiB
//! blocks. The list has a setup part (not traced) and a measured part.

use crate::options::{Options, Workload};
use flashlab_lab::protocol::{FileSizes, Protocol, Step};
use flashlab_lab::rng::Rng;
use flashlab_lab::units::parse_cli_size;

/// Files are written in writes of this size.
pub const WRITE_CHUNK: u64 = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FileOp {
    /// Create `name`, write `size` bytes sequentially, fsync, close (a benchmark app's file).
    WriteFile {
        name: String,
        size: u64,
    },
    /// Overwrite [off, off+len) of `name` (kept open).
    Overwrite {
        name: String,
        off: u64,
        len: u64,
    },
    Fsync {
        name: String,
    },
    Delete {
        name: String,
    },
    /// syncfs: everything to the device.
    Sync,
    /// Sleep (the kernel side) or stay idle (the model) this many nanoseconds.
    Pause {
        ns: u64,
    },
}

/// The operations of a workload: (setup, measured).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Script {
    pub setup: Vec<FileOp>,
    pub measured: Vec<FileOp>,
}

fn fill_name(i: u64) -> String {
    format!("f{i:05}")
}

/// The script of `o.workload` (not SQLite: that runs SQLite itself) for a filesystem with
/// `free` bytes free for data.
pub fn script(o: &Options, free: u64) -> Script {
    let mut s = Script::default();
    let mut rng = Rng::new(o.seed);
    match o.workload {
        Workload::Fill => {
            let target = free * o.fill_percent / 100;
            let size = 4 << 20;
            let n = target / size;
            for i in 0..n {
                s.measured.push(FileOp::WriteFile { name: fill_name(i), size });
            }
            for i in (0..n).step_by(3) {
                s.measured.push(FileOp::Delete { name: fill_name(i) });
            }
            s.measured.push(FileOp::Sync);
        }
        Workload::RandwriteFsync => {
            let size: u64 = 16 << 20;
            s.setup.push(FileOp::WriteFile { name: "rw.dat".into(), size });
            s.setup.push(FileOp::Sync);
            for _ in 0..o.writes {
                let off = rng.below(size / 4096) * 4096;
                s.measured.push(FileOp::Overwrite { name: "rw.dat".into(), off, len: 4096 });
                s.measured.push(FileOp::Fsync { name: "rw.dat".into() });
                if o.pause_ns > 0 {
                    s.measured.push(FileOp::Pause { ns: o.pause_ns });
                }
            }
            s.measured.push(FileOp::Sync);
        }
        Workload::AgeFill => s.measured = age_fill(o, free, &mut rng),
        Workload::NearlyFull => {
            let size: u64 = 4 << 20;
            let span = (o.image_bytes / 40).max(1 << 20) / size.min(1 << 20) * (1 << 20);
            let leave = (o.image_bytes / 80).max(span + (4 << 20));
            let n = free.saturating_sub(leave) / size;
            for i in 0..n {
                s.measured.push(FileOp::WriteFile { name: fill_name(i), size });
            }
            s.measured.push(FileOp::WriteFile { name: "span.dat".into(), size: span });
            for _ in 0..o.writes {
                let off = rng.below(span / 4096) * 4096;
                s.measured.push(FileOp::Overwrite { name: "span.dat".into(), off, len: 4096 });
                s.measured.push(FileOp::Fsync { name: "span.dat".into() });
            }
            s.measured.push(FileOp::Sync);
        }
        Workload::DeleteAll => {
            let size: u64 = 4 << 20;
            let n = free * o.fill_percent / 100 / size;
            for i in 0..n {
                s.setup.push(FileOp::WriteFile { name: fill_name(i), size });
            }
            s.setup.push(FileOp::Sync);
            for i in 0..n {
                s.measured.push(FileOp::Delete { name: fill_name(i) });
            }
            s.measured.push(FileOp::Sync);
            s.measured.push(FileOp::Pause { ns: 90_000_000_000 });
        }
        Workload::Sqlite(_) => {}
    }
    s
}

/// The built-in `age` protocol's fill steps (fill, thin), scaled to the image: free space to
/// leave in proportion to the protocol's 16 GB device, file sizes as the protocol gives them
/// but at most a sixteenth of the image.
/// The fill steps of the `age-thin` protocol (small files, then deletes at random until the
/// free space is in holes between live files), scaled to the image. The literal `age`
/// protocol fills with large sequential files and leaves its free space in one piece, so it
/// has no placement to compare; `age-thin`'s holes are what its aging rests on.
fn age_fill(o: &Options, free: u64, rng: &mut Rng) -> Vec<FileOp> {
    let text = flashlab_lab::protocol::BUILTIN.iter().find(|(n, _)| *n == "age-thin").map(|(_, t)| *t).unwrap_or("");
    let Ok(p) = Protocol::from_toml("age-thin", text) else { return Vec::new() };
    let device: u64 = 16_000_000_000;
    let scale = |b: u64| (b as u128 * o.image_bytes as u128 / device as u128) as u64;
    let cap = (o.image_bytes / 16 / 4096 * 4096).max(4096);
    let mut ops = Vec::new();
    let mut live: Vec<(String, u64)> = Vec::new();
    let mut used = 0u64;
    let mut next = 0u64;
    for step in &p.steps {
        match step {
            Step::Fill { leave_free, file_size } => {
                let leave = scale(parse_cli_size(leave_free).unwrap_or(0));
                let sizes = file_size
                    .as_deref()
                    .and_then(|f| FileSizes::parse(f, o.seed).ok())
                    .unwrap_or(FileSizes::fixed(1 << 30));
                let mut srng = Rng::new(sizes.seed);
                // Leave slack for the blocks the filesystem itself takes (directory, extent
                // blocks, alignment holes the allocator leaves).
                let target = free.saturating_sub(leave).saturating_sub(free / 50);
                while used < target {
                    let size = sizes.pick(&mut srng).min(cap).min(target - used).max(4096) / 4096 * 4096;
                    let name = fill_name(next);
                    next += 1;
                    ops.push(FileOp::WriteFile { name: name.clone(), size });
                    live.push((name, size));
                    used += size;
                }
            }
            Step::Thin { free: want } => {
                let want = scale(parse_cli_size(want).unwrap_or(0));
                while free.saturating_sub(used) < want && !live.is_empty() {
                    let (name, size) = live.swap_remove(rng.below(live.len() as u64) as usize);
                    ops.push(FileOp::Delete { name });
                    used -= size;
                }
            }
            _ => {}
        }
    }
    ops.push(FileOp::Sync);
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Mount;

    #[test]
    fn fill_writes_to_the_percent_and_deletes_a_third() {
        let o = Options::new(Workload::Fill, Mount::Default);
        let s = script(&o, 100 << 20);
        let files = s.measured.iter().filter(|op| matches!(op, FileOp::WriteFile { .. })).count();
        let dels = s.measured.iter().filter(|op| matches!(op, FileOp::Delete { .. })).count();
        assert_eq!(files, 20);
        assert_eq!(dels, 7);
        assert_eq!(s.measured.last(), Some(&FileOp::Sync));
    }

    #[test]
    fn age_fill_follows_the_protocol_steps() {
        let o = Options::new(Workload::AgeFill, Mount::Default);
        let s = script(&o, 100 << 20);
        let written: u64 =
            s.measured.iter().map(|op| if let FileOp::WriteFile { size, .. } = op { *size } else { 0 }).sum();
        assert!(written > 80 << 20 && written <= 100 << 20, "{written}");
    }
}
