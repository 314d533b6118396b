//! ext4's unwritten extents: `create` is fallocate, so a file's blocks are unwritten until first
//! written, and the first write of each converts its extent, a journaled change. An fsync after
//! it commits a transaction whatever the coarse clock did; an fsync after rewriting a written
//! block commits only when the clock moved. The kernel does the same (docs/fill.md: on this
//! machine's ext4, fio's 2048 fsyncs over a new file made 2047 transactions, over the same file
//! again 73).

use flashlab_simfs::{Fs, FsConfig};
use flashsim::{Device, Op, Profile};

/// `n` random-order 4 KiB writes each followed by an fsync, every block of a 256-block file
/// once, 100 µs apart (well inside a 4 ms jiffy of the coarse clock); returns the commits.
fn fsync_per_write(fs: &mut Fs, dev: &mut Device, t: &mut u64, id: flashlab_simfs::FileId) -> u64 {
    let before = fs.counters().commits;
    for i in 0..256u64 {
        let block = (i * 97) % 256;
        let done = fs.io(dev, *t, id, Op::Write, block * 4096, 4096).unwrap().done;
        *t = fs.fsync(dev, done, id).unwrap() + 100_000;
    }
    fs.counters().commits - before
}

#[test]
fn an_fsync_after_the_first_write_of_a_fallocated_block_commits() {
    let profile = Profile::from_toml("toy.toml", flashsim::builtin::TOY).unwrap();
    let mut dev = Device::new(&profile, 1);
    let mut fs = Fs::new(dev.logical_bytes(), FsConfig::parse("ext4,nobarrier").unwrap());
    let id = fs.create(&mut dev, 0, "f", 256 * 4096).unwrap();
    let mut t = 1_000_000;
    let first = fsync_per_write(&mut fs, &mut dev, &mut t, id);
    let second = fsync_per_write(&mut fs, &mut dev, &mut t, id);
    eprintln!("commits: {first} of 256 fsyncs over the fallocated file, {second} over it again");
    assert_eq!(first, 256, "every first write converts an unwritten extent");
    // The second pass: an fsync commits only if the coarse clock (a 4 ms jiffy) moved since the
    // inode was last logged, at most once a jiffy (10 of 256 here). Without unwritten extents
    // the first pass was the same as the second.
    assert!(second < 256 / 2, "rewrites of written blocks commit only when the clock moved: {second}");
}
