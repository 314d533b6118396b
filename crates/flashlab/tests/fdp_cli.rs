//! NVMe Flexible Data Placement from the command line (docs/placement.md, docs/jobs.md): a job
//! file with `fdp=1` on the FDP profile reports each handle's bytes in the device report;
//! the same job on a device without FDP, or on a real directory, is refused naming the
//! option; `sim placement` on the NVMe pair adds the FDP rows with a WAF per handle.

mod common;
use common::{fails, ok, scratch};

#[test]
fn an_fdp_job_runs_on_the_fdp_profile_and_is_refused_elsewhere() {
    let job = scratch("fdp-cli", "fdp.fio");
    std::fs::write(&job, "[w]\nrw=randwrite\nbs=4k\nsize=64m\nnumber_ios=600\nfdp=1\nfdp_pli=1,2\n").unwrap();
    let j = job.to_str().unwrap();
    let json = ok(&["run", "-q", "--target", "sim:nvme-gen3-fdp", "--output-format", "json", j]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let handles = &v["jobs"][0]["flashlab_device"]["fdp"]["handles"];
    let host: Vec<u64> = (0..4).map(|h| handles[h]["host_bytes"].as_u64().unwrap()).collect();
    assert_eq!(host, [0, 300 * 4096, 300 * 4096, 0], "round robin over 1 and 2");
    fails(&["run", "-q", "--target", "sim:nvme-gen3", j], "no Flexible Data Placement");
    let dir = scratch("fdp-cli", "real");
    std::fs::create_dir_all(&dir).unwrap();
    fails(&["run", "-q", "--target", dir.to_str().unwrap(), j], "fdp.fio:1: job 'w': option 'fdp'");
}

#[test]
fn sim_placement_adds_the_fdp_rows_on_the_nvme_pair() {
    let out = scratch("fdp-cli", "placement.json");
    let args = [
        "sim",
        "placement",
        "--conventional",
        "sim:nvme-gen3",
        "--zoned",
        "sim:nvme-gen3-zns",
        "--family",
        "hotcold",
        "--blocks-per-plane",
        "0",
        "--pages-per-block",
        "8",
        "--passes",
        "1",
        "--live",
        "0.5",
        "--json",
        out.to_str().unwrap(),
    ];
    let text = ok(&args);
    assert!(text.contains("fdp-persistent per handle"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rows = v["results"]["rows"].as_array().unwrap_or_else(|| panic!("{v}"));
    let names: Vec<&str> = rows.iter().map(|r| r["placement"].as_str().unwrap()).collect();
    assert_eq!(names, ["conventional", "streams", "fdp-initial", "fdp-persistent", "zoned"]);
    assert_eq!(rows[3]["handle_waf"].as_array().unwrap().len(), 2);
    let pair = ["sim", "placement", "--conventional", "sim:nvme-gen3", "--zoned", "sim:nvme-gen3-zns"];
    fails(&[&pair[..], &["--fdp", "sim:nvme-gen3", "--pages-per-block", "8"]].concat(), "not an FDP profile");
    fails(&[&pair[..], &["--fdp", "sim:ufs-4.0"]].concat(), "not on the same NAND");
}
