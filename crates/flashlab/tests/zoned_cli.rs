//! Zoned profiles on the commands and filesystems that cannot drive zones (docs/zoned.md): each
//! refuses the profile up front with one error naming it and its conventional twin, instead of
//! failing in the middle of a run (or, for `serve`, handing the kernel a block device it may not
//! write at random). F2FS, which writes zones, runs there (tests of its own: flashlab-simfs's
//! `f2fs_zoned*`, flashlab-lab's `invariants`).

mod common;
use common::{fails, ok, scratch};

#[test]
fn commands_refuse_a_zoned_profile_naming_its_twin() {
    let dir = scratch("zoned-cli", "mnt");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    for args in [
        &["age", "--target", "sim:zoned-ufs-4.0", "--fs", "ext4"][..],
        &["bench", "--target", "sim:nvme-gen3-zns"],
        &["wsat", "--target", "sim:zoned-ufs-4.0"],
        &["fill", "--target", "sim:zoned-ufs-4.0", "--fs", "plain"],
        &["serve", "--target", "sim:zoned-ufs-4.0", d],
    ] {
        fails(args, "is a zoned device");
        fails(args, "twin");
    }
    // F2FS writes zones, on a fresh device only: a precondition writes it in place.
    fails(&["fill", "--target", "sim:zoned-ufs-4.0", "--precondition", "used"], "precondition 'used'");
    // ZNS's zone capacity below its zone size: F2FS's unusable blocks per section are not
    // modelled, and the refusal says so.
    fails(&["fill", "--target", "sim:nvme-gen3-zns", "--fs", "f2fs"], "capacity");
}

#[test]
fn run_drives_a_zoned_profile_with_fios_zoned_mode() {
    let job = scratch("zoned-cli", "zbd.fio");
    std::fs::write(&job, "[w]\nrw=randwrite\nbs=1m\ndirect=1\nzonemode=zbd\nsize=4z\nio_size=6z\nmax_open_zones=2\n")
        .unwrap();
    let j = job.to_str().unwrap();
    // fio's text: the zone resets after the write line; the device's counters after the jobs.
    let text = ok(&["run", "--target", "sim:zoned-ufs-4.0", j]);
    assert!(text.contains(" zone resets\n") && text.contains("device: write amplification 1.00"), "{text}");
    // fio's JSON: zone_resets in the job, the device's report beside it.
    let json = ok(&["run", "-q", "--target", "sim:zoned-ufs-4.0", "--output-format", "json", j]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let resets = v["jobs"][0]["zone_resets"].as_u64().unwrap();
    assert!(resets >= 2, "{resets}");
    assert_eq!(v["jobs"][0]["flashlab_device"]["write_amplification"], 1.0);
    // A job without zonemode=zbd: the device's error with fio's advice; --fs does not apply.
    let plain = scratch("zoned-cli", "plain.fio");
    std::fs::write(&plain, "[w]\nrw=randwrite\nbs=4k\nsize=1g\n").unwrap();
    fails(&["run", "-q", "--target", "sim:zoned-ufs-4.0", plain.to_str().unwrap()], "consider zonemode=zbd");
    fails(&["run", "-q", "--target", "sim:zoned-ufs-4.0", "--fs", "ext4", j], "is zoned");
    // zbd on a real target: refused naming file, line and option.
    let dir = scratch("zoned-cli", "real");
    std::fs::create_dir_all(&dir).unwrap();
    fails(&["run", "-q", "--target", dir.to_str().unwrap(), j], "zbd.fio:1: job 'w': option 'zonemode'");
}
