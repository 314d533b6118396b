//! fio's sizing rules on a simulated target (filesetup.c): a job without `size=` takes its
//! file's size, or a new file takes the simulated device's free space (shared evenly by the
//! run's new files without a size, after those with one); `offset_increment` moves each clone's region; `filesize=low-high`
//! draws each file's size in the range.

use flashlab_lab::jobfile_run::{run_jobfile, JobRun};
use flashlab_lab::profiles::builtin;
use flashlab_lab::system::SimSystem;
use flashlab_simfs::FsConfig;
use flashsim::Profile;

fn system() -> SimSystem {
    let p = Profile::from_toml("toy", builtin("toy").unwrap()).unwrap();
    SimSystem::with_fs(&p, 1, FsConfig::plain(false))
}

fn run(sys: &mut SimSystem, text: &str) -> Result<Vec<JobRun>, String> {
    let jf = flashlab_jobs::parse_jobfile("t.fio", text).map_err(|e| e.to_string())?;
    run_jobfile(sys, &jf, 1, "t.fio", None, &mut |_, _, _| {}).map_err(|e| e.to_string())
}

fn size_of(sys: &SimSystem, name: &str) -> u64 {
    sys.file_size(sys.file_id(name).unwrap_or_else(|| panic!("no file {name}"))).unwrap()
}

const MIB: u64 = 1 << 20;

#[test]
fn without_size_a_new_file_takes_the_free_space_and_an_existing_one_its_size() {
    let mut sys = system();
    let free = sys.fs().free_bytes();
    // Group 1 writes the whole "device" sequentially; group 2 randomly writes the same file
    // with no size either, so it takes the file's size.
    let text = "[global]\nfilename=/dev/sim0\nbs=1m\n[fill]\nrw=write\n[steady]\nstonewall\nrw=randwrite\nbs=4k\nnumber_ios=1000\n";
    let r = run(&mut sys, text).unwrap();
    let file = size_of(&sys, "/dev/sim0");
    assert_eq!(file, free / MIB * MIB, "the free space, in whole MiB");
    assert!(file > free - MIB);
    assert_eq!(r[0].0.write.io_bytes, file, "the fill writes all of it");
    assert_eq!(r[1].0.write.ios, 1000);
    // Two new files in one group share the free space.
    let mut sys = system();
    let free = sys.fs().free_bytes();
    run(&mut sys, "[a]\nrw=write\nbs=1m\n[b]\nrw=write\nbs=1m\n").unwrap();
    let (a, b) = (size_of(&sys, "a.0.0"), size_of(&sys, "b.0.0"));
    assert_eq!(a, b);
    assert_eq!(a, free / 2 / MIB * MIB);
    // With an offset, the region runs from it to the end.
    let mut sys = system();
    let r = run(&mut sys, "[a]\nfilename=f\nrw=write\nbs=1m\noffset=16m\n").unwrap();
    assert_eq!(r[0].0.write.io_bytes, size_of(&sys, "f") - 16 * MIB);
}

#[test]
fn new_files_of_later_groups_and_sized_files_get_their_part() {
    // Stonewalled jobs without a size, each on its own new file (a benchmark suite's job file
    // meant for a block device): every file is created before the space runs out, so each
    // job's file takes an even part of the free space, not the first job all of it.
    let mut sys = system();
    let free = sys.fs().free_bytes();
    let text = "[global]\nbs=64k\nnumber_ios=16\n[r]\nrw=randread\n[w]\nstonewall\nrw=randwrite\n\
                [s]\nstonewall\nrw=write\nsize=8m\n[q]\nstonewall\nrw=read\n";
    let r = run(&mut sys, text).unwrap();
    assert_eq!(r.len(), 4);
    let part = (free - 8 * MIB) / 3 / MIB * MIB;
    for name in ["r.0.0", "w.0.0", "q.0.0"] {
        assert_eq!(size_of(&sys, name), part, "{name}");
    }
    assert_eq!(size_of(&sys, "s.0.0"), 8 * MIB, "the sized file keeps its size=");
    assert!(r.iter().all(|x| x.0.read.ios + x.0.write.ios == 16), "every job ran its 16 I/Os");
}

#[test]
fn no_room_is_an_error_naming_the_job() {
    let mut sys = system();
    let free = sys.fs().free_bytes();
    run(&mut sys, &format!("[big]\nfilename=big\nrw=write\nbs=1m\nsize={}\nnumber_ios=1\n", free / MIB * MIB)).unwrap();
    let e = run(&mut sys, "[more]\nrw=write\nbs=1m\n").unwrap_err();
    assert!(e.contains("t.fio:1") && e.contains("more") && e.contains("no size="), "{e}");
}

#[test]
fn offset_increment_moves_each_clone() {
    let mut sys = system();
    let r =
        run(&mut sys, "[c]\nfilename=shared\nrw=write\nbs=64k\nsize=8m\noffset=1m\noffset_increment=10m\nnumjobs=3\n")
            .unwrap();
    // Each clone writes its region [1m + 10m n, 8m + 10m n): 7 MiB each, and the shared
    // file holds the last clone's region.
    assert_eq!(r.len(), 3);
    assert!(
        r.iter().all(|x| x.0.write.io_bytes == 7 * MIB),
        "{:?}",
        r.iter().map(|x| x.0.write.io_bytes).collect::<Vec<_>>()
    );
    assert_eq!(size_of(&sys, "shared"), 28 * MIB);
    // Without filename=, each clone has its own file, as long as its region needs.
    let mut sys = system();
    run(&mut sys, "[o]\nrw=write\nbs=64k\nsize=4m\noffset_increment=2m\nnumjobs=2\n").unwrap();
    assert_eq!((size_of(&sys, "o.0.0"), size_of(&sys, "o.1.0")), (4 * MIB, 6 * MIB));
}

#[test]
fn filesize_ranges_give_files_of_different_sizes() {
    let mut sys = system();
    let r = run(&mut sys, "[f]\nrw=write\nbs=4k\nnrfiles=8\nfilesize=64k-1m\n").unwrap();
    let sizes: Vec<u64> = (0..8).map(|k| size_of(&sys, &format!("f.0.{k}"))).collect();
    assert!(sizes.iter().all(|&s| (64 << 10..MIB).contains(&s) && s % 4096 == 0), "{sizes:?}");
    assert!(sizes.windows(2).any(|w| w[0] != w[1]), "{sizes:?}");
    assert_eq!(r[0].0.write.io_bytes, sizes.iter().sum::<u64>(), "one pass over every file");
}
