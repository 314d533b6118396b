//! fio's zoned options on simulated devices (issue 47): job files of our own run with
//! `run_jobfile` on the zoned profiles (zones from the device's report) and on a conventional
//! one (zones emulated from `zonesize`), and the device's zones checked after the run.

use flashlab_jobs::parse_jobfile;
use flashlab_lab::jobfile_run::{run_jobfile, JobRun};
use flashlab_lab::precondition::{zoned_system, Precondition};
use flashlab_lab::system::SimSystem;
use flashsim::{Zone, ZoneState};

const MIB: u64 = 1 << 20;

fn system(profile: &str) -> SimSystem {
    let p = flashlab_lab::profiles::load(profile).unwrap();
    if p.ftl.mapping == flashsim::MappingKind::Zoned {
        zoned_system(&p, 1, Precondition::Fresh).unwrap().0
    } else {
        SimSystem::new(&p, 1, false)
    }
}

fn run(sys: &mut SimSystem, text: &str) -> Result<Vec<JobRun>, String> {
    let jf = parse_jobfile("z.fio", text).map_err(|e| e.to_string())?;
    run_jobfile(sys, &jf, 1, "z.fio", None, &mut |_, _, _| {}).map_err(|e| e.to_string())
}

fn zones(sys: &SimSystem) -> Vec<Zone> {
    sys.device().report_zones()
}

/// Zones partly written (open or closed): the ones a writer holds.
fn partial(z: &[Zone]) -> usize {
    z.iter().filter(|z| z.wp > z.start && z.wp < z.start + z.capacity).count()
}

#[test]
fn sequential_writes_fill_zones_and_a_second_pass_resets_them() {
    let mut sys = system("zoned-ufs-4.0");
    let r = run(
        &mut sys,
        "[w]\nrw=write\nbs=1m\ndirect=1\nzonemode=zbd\nsize=3z\n\n[again]\nstonewall\nrw=write\nbs=1m\ndirect=1\nzonemode=zbd\nsize=3z\n",
    )
    .unwrap();
    let z = zones(&sys);
    let size = z[0].size;
    assert_eq!(size, 96 * MIB);
    assert!(z[..3].iter().all(|z| z.state == ZoneState::Full && z.wp == z.start + z.capacity), "{:?}", &z[..4]);
    assert!(z[3..].iter().all(|z| z.state == ZoneState::Empty && z.wp == z.start));
    assert_eq!(r[0].0.write.io_bytes, 3 * size);
    // fio counts zone resets for zbd write jobs: none the first time, the three full zones
    // the second.
    assert_eq!((r[0].0.zone_resets, r[1].0.zone_resets), (Some(0), Some(3)));
    let c = sys.device().counters();
    assert_eq!(c.host_write_bytes, 6 * size);
    // Zone-sequential writes: device WAF 1 (no GC), and the resets erased blocks.
    let waf = sys.device_report().write_amplification;
    assert!((waf - 1.0).abs() < 1e-9, "{waf}");
    assert!(c.erases > 0);
    // fio's JSON carries zone_resets, as fio's does for a zbd write job.
    let doc = flashlab_lab::jobfile_run::fio_document(&r, &[99.0], 0, 0);
    assert_eq!(doc["jobs"][1]["zone_resets"], 3);
}

#[test]
fn random_writes_go_to_write_pointers_within_the_open_limits() {
    let mut sys = system("zoned-ufs-4.0");
    let r = run(&mut sys, "[w]\nrw=randwrite\nbs=1m\ndirect=1\nzonemode=zbd\nsize=8z\nio_size=5z\nmax_open_zones=3\n")
        .unwrap();
    let z = zones(&sys);
    // At most max_open_zones zones are written at once: at most three are left partly written.
    assert!(partial(&z) <= 3, "{}", partial(&z));
    assert!(sys.device().zones().unwrap().open_count() <= 3);
    // Every write landed at a write pointer: each zone holds whole 1 MiB writes from its start.
    // A random write that picks a full zone resets it first (fio), dropping a zone's capacity:
    // the bytes below the pointers are the bytes written less the resets' data.
    assert!(z.iter().all(|z| (z.wp - z.start) % MIB == 0));
    let below: u64 = z.iter().map(|z| z.wp - z.start).sum();
    let resets = r[0].0.zone_resets.unwrap();
    assert!(resets > 0);
    assert_eq!(below + resets * z[0].capacity, r[0].0.write.io_bytes);
    assert!(z[8..].iter().all(|z| z.state == ZoneState::Empty), "the job stays in its 8 zones");

    // job_max_open_zones: two jobs, one zone each at a time, under a global limit of 2.
    let mut sys = system("zoned-ufs-4.0");
    run(
        &mut sys,
        "[global]\nrw=randwrite\nbs=1m\ndirect=1\nzonemode=zbd\nsize=8z\nio_size=150m\nmax_open_zones=2\njob_max_open_zones=1\n[w]\nnumjobs=2\n",
    )
    .unwrap();
    assert!(partial(&zones(&sys)) <= 2);
}

#[test]
fn zone_reset_threshold_and_frequency_reset_zones_as_gc_would() {
    let job = |extra: &str| format!("[w]\nrw=randwrite\nbs=1m\ndirect=1\nzonemode=zbd\nsize=4z\nio_size=3z\n{extra}");
    let mut sys = system("zoned-ufs-4.0");
    let plain = run(&mut sys, &job("")).unwrap();
    assert_eq!(plain[0].0.zone_resets, Some(0));
    let mut sys = system("zoned-ufs-4.0");
    let gc = run(&mut sys, &job("zone_reset_threshold=0.1\nzone_reset_frequency=0.25\n")).unwrap();
    let n = gc[0].0.zone_resets.unwrap();
    // Once a tenth of the range is written, one write in four resets its zone first.
    assert!(n > 20, "{n} resets");
    let below: u64 = zones(&sys).iter().map(|z| z.wp - z.start).sum();
    assert!(below < gc[0].0.write.io_bytes, "resets dropped data");
}

#[test]
fn trims_are_zone_resets_and_reads_stay_below_the_write_pointer() {
    let mut sys = system("zoned-ufs-4.0");
    let r = run(
        &mut sys,
        "[global]\ndirect=1\nzonemode=zbd\n[w]\nrw=write\nbs=1m\nsize=4z\n\
         [part]\nstonewall\nrw=write\nbs=1m\noffset=4z\nsize=1z\nio_size=10m\n\
         [r]\nstonewall\nrw=read\nbs=1m\noffset=4z\nsize=1z\n\
         [rb]\nstonewall\nrw=read\nbs=1m\noffset=4z\nsize=1z\nread_beyond_wp=1\n\
         [t]\nstonewall\nrw=randtrim\nbs=96m\nsize=4z\nnumber_ios=2\n",
    )
    .unwrap();
    // The read stops at the write pointer (10 MiB written); with read_beyond_wp it reads
    // the zone.
    assert_eq!(r[2].0.read.io_bytes, 10 * MIB);
    assert_eq!(r[3].0.read.io_bytes, 96 * MIB);
    // Two trims: two of the four full zones reset, nothing discarded.
    assert_eq!(r[4].0.zone_resets, Some(2));
    let z = zones(&sys);
    assert_eq!(z[..4].iter().filter(|z| z.state == ZoneState::Empty).count(), 2);
    assert_eq!(sys.device().counters().host_trim_bytes, 0);
    // fio's rule: trims of whole zones only.
    let mut sys = system("zoned-ufs-4.0");
    let e = run(&mut sys, "[t]\nrw=randtrim\nbs=1m\ndirect=1\nzonemode=zbd\nsize=4z\n").unwrap_err();
    assert!(e.contains("trim block size 1048576 is not the zone size"), "{e}");
}

#[test]
fn errors_name_the_option_as_fio_would() {
    let mut sys = system("zoned-ufs-4.0");
    // Without zonemode=zbd a random write misses the write pointer: the device's error and
    // fio's advice.
    let e = run(&mut sys, "[w]\nrw=randwrite\nbs=4k\ndirect=1\nsize=1g\n").unwrap_err();
    assert!(e.contains("not at the write pointer") && e.contains("consider zonemode=zbd"), "{e}");
    let mut sys = system("zoned-ufs-4.0");
    let e = run(&mut sys, "[w]\nrw=write\nbs=1m\ndirect=1\nzonemode=zbd\nzonesize=256m\n").unwrap_err();
    assert!(e.contains("z.fio:1: job 'w'") && e.contains("option 'zonesize'") && e.contains("100663296"), "{e}");
    let e = run(&mut sys, "[w]\nrw=randwrite\nbs=1m\ndirect=1\nzonemode=zbd\nmax_open_zones=7\n").unwrap_err();
    assert!(e.contains("option 'max_open_zones'") && e.contains("device's limit 6"), "{e}");
    let e = run(&mut sys, "[w]\nrw=write\nbs=1m\nzonemode=zbd\n").unwrap_err();
    assert!(e.contains("option 'direct'"), "{e}");
    let e = run(&mut sys, "[w]\nrw=randwrite\nbs=1m\ndirect=1\nzonemode=zbd\njob_max_open_zones=2\nmax_open_zones=0\nignore_zone_limits=1\n")
        .unwrap_err();
    assert!(e.contains("option 'job_max_open_zones'"), "{e}");
    // A read job without zonemode runs: it reads zeros past the write pointers, as fio does.
    let r = run(&mut sys, "[r]\nrw=read\nbs=1m\nsize=10m\n").unwrap();
    assert_eq!(r[0].0.read.io_bytes, 10 * MIB);
}

#[test]
fn emulated_zones_on_a_conventional_device() {
    let mut sys = system("toy");
    let r = run(
        &mut sys,
        "[w]\nrw=write\nbs=64k\ndirect=1\nzonemode=zbd\nzonesize=1m\nzonecapacity=768k\nsize=4z\nio_size=8m\n",
    )
    .unwrap();
    // 4 zones of 768 KiB writable: 3 MiB written a pass. The jumps from each zone's capacity
    // to its end are no I/O and do not count towards io_size (the kernel check,
    // tests/zbd_kernel.rs, has fio write io_size=18m in full over 12 MiB zones): io_size=8m
    // is two passes and two thirds, each zone reset first when a pass comes back to it (4 + 3
    // resets; nothing is sent to the device for an emulated zone's reset).
    assert_eq!(r[0].0.write.io_bytes, 8 * MIB);
    assert_eq!(r[0].0.zone_resets, Some(7));
    assert_eq!(sys.device().counters().host_write_bytes, 8 * MIB);
    let e = run(&mut sys, "[w]\nrw=write\nbs=64k\ndirect=1\nzonemode=zbd\n").unwrap_err();
    assert!(e.contains("zone size is mandatory") || e.contains("zonesize"), "{e}");
}

#[test]
fn zone_capacity_below_zone_size_on_zns() {
    // nvme-gen3-zns: 1077 MiB writable in 1152 MiB zones. A sequential job jumps from one
    // zone's capacity to the next zone's start (fio's setup_zbd_zone_mode).
    let mut sys = system("nvme-gen3-zns");
    let r = run(&mut sys, "[w]\nrw=write\nbs=1m\ndirect=1\nzonemode=zbd\nsize=2z\n").unwrap();
    let z = zones(&sys);
    assert_eq!((z[0].size, z[0].capacity), (1152 * MIB, 1077 * MIB));
    assert!(
        z[..2].iter().all(|z| z.state == ZoneState::Full && z.wp == z.start + z.capacity),
        "{:?} {}",
        &z[..3],
        r[0].0.write.io_bytes
    );
    assert_eq!(z[2].state, ZoneState::Empty);
    assert_eq!(r[0].0.write.io_bytes, 2 * 1077 * MIB);
    assert_eq!(r[0].0.zone_resets, Some(0));
}
