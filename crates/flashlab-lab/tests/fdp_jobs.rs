//! fio's data placement options on simulated devices (issue 47): job files of our own with
//! `fdp=1` run with `run_jobfile` on the FDP twin (`nvme-gen3-fdp`, its blocks shortened so
//! that the device is 11 GB), each write carrying the placement ID fio would choose, and the
//! device's per-handle host bytes checked against the selection; on a device without FDP the
//! job is refused, as fio refuses it.

use flashlab_jobs::parse_jobfile;
use flashlab_lab::jobfile_run::{run_jobfile, JobRun};
use flashlab_lab::system::SimSystem;
use flashsim::Profile;

const MIB: u64 = 1 << 20;

fn profile(name: &str) -> Profile {
    let text = flashlab_lab::profiles::builtin(name).unwrap().replace("pages_per_block = 768", "pages_per_block = 32");
    Profile::from_toml(name, &text).unwrap()
}

fn run(sys: &mut SimSystem, text: &str) -> Result<Vec<JobRun>, String> {
    let jf = parse_jobfile("p.fio", text).map_err(|e| e.to_string())?;
    run_jobfile(sys, &jf, 1, "p.fio", None, &mut |_, _, _| {}).map_err(|e| e.to_string())
}

/// Host bytes per handle.
fn host(sys: &SimSystem) -> Vec<u64> {
    sys.device().fdp_stats().unwrap().handles.iter().map(|h| h.host_bytes).collect()
}

#[test]
fn round_robin_over_three_handles_splits_the_writes_in_three() {
    let mut sys = SimSystem::new(&profile("nvme-gen3-fdp"), 1, false);
    let r = run(
        &mut sys,
        "[w]\nrw=randwrite\nbs=4k\ndirect=1\nsize=256m\nnumber_ios=3000\nfdp=1\nfdp_pli=0,1,2\nplid_select=roundrobin\n",
    )
    .unwrap();
    assert_eq!(r[0].0.write.io_bytes, 3000 * 4096);
    // Writes 0, 3, 6, ... to handle 0, 1, 4, ... to handle 1, ...: a thousand each, none to the others.
    let mut want = vec![0; 4];
    want[..3].fill(1000 * 4096);
    assert_eq!(host(&sys), want);
    // The job's results carry the device's FDP report.
    let fdp = &r[0].0.extra.as_ref().unwrap()["fdp"];
    assert_eq!(fdp["handles"][1]["host_bytes"], 1000 * 4096);
}

#[test]
fn random_selection_stays_within_the_listed_ids_and_scheme_follows_the_offsets() {
    let mut sys = SimSystem::new(&profile("nvme-gen3-fdp"), 1, false);
    run(
        &mut sys,
        "[w]\nrw=randwrite\nbs=4k\ndirect=1\nsize=64m\nnumber_ios=4000\nfdp=1\nplids=1,3\nplid_select=random\n",
    )
    .unwrap();
    let h = host(&sys);
    assert_eq!(h[1] + h[3], 4000 * 4096);
    assert!(h[1] > 1500 * 4096 && h[3] > 1500 * 4096, "{h:?}");
    // A scheme: the first 4 MiB to ID 3, the next 4 MiB to ID 2, the rest to 0 (no entry).
    let file = std::env::temp_dir().join(format!("flashlab-dp-scheme-{}", std::process::id()));
    std::fs::write(&file, format!("0,{},3\n{},{},2\n", 4 * MIB, 4 * MIB, 8 * MIB)).unwrap();
    let mut sys = SimSystem::new(&profile("nvme-gen3-fdp"), 1, false);
    let r = run(
        &mut sys,
        &format!(
            "[w]\nrw=write\nbs=64k\ndirect=1\nsize=12m\ndataplacement=fdp\nplid_select=scheme\ndp_scheme={}\n",
            file.display()
        ),
    );
    std::fs::remove_file(&file).unwrap();
    r.unwrap();
    let h = host(&sys);
    assert_eq!((h[3], h[2], h[0]), (4 * MIB, 4 * MIB, 4 * MIB), "{h:?}");
}

#[test]
fn fdp_on_a_device_without_it_is_refused() {
    let mut sys = SimSystem::new(&profile("nvme-gen3"), 1, false);
    let e = run(&mut sys, "[w]\nrw=randwrite\nbs=4k\nsize=16m\nfdp=1\n").unwrap_err();
    assert!(e.contains("no Flexible Data Placement") && e.contains("fdp fetch ruhs failed"), "{e}");
    let mut sys = SimSystem::new(&profile("nvme-gen3-fdp"), 1, false);
    let e = run(&mut sys, "[w]\nrw=randwrite\nbs=4k\nsize=16m\nfdp=1\nplids=0,4\n").unwrap_err();
    assert!(e.contains("plids") && e.contains("must be smaller than 4"), "{e}");
    let e = run(&mut sys, "[w]\nrw=randwrite\nbs=4k\nsize=16m\ndataplacement=streams\nplids=1\n").unwrap_err();
    assert!(e.contains("dataplacement") && e.contains("fdp=1"), "{e}");
}
