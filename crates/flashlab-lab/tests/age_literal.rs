//! The pieces of the literal `age` procedure (issue 16, acceptance 4): a torture run whose
//! file is deleted afterwards, as a benchmark app deletes its test file (no TRIM: the device
//! keeps the stale data), and AndroBench's random-write test, which fills an emptied file
//! instead of overwriting the sequential test's file.

use flashlab_lab::fourcorner::{run_four_corner, FourCornerConfig};
use flashlab_lab::protocol::{run_protocol, Protocol};
use flashlab_lab::system::SimSystem;
use flashlab_simfs::FsConfig;
use flashsim::Profile;

const TOY: &str = flashsim::builtin::TOY;
const MIB: u64 = 1 << 20;

fn toy() -> SimSystem {
    let profile = Profile::from_toml("toy.toml", TOY).unwrap();
    SimSystem::with_fs(&profile, 1, FsConfig::plain(false))
}

#[test]
fn a_bad_rand_write_layout_names_the_field() {
    let text = "name = \"x\"\nfour_corner_rand_write = \"sideways\"\n[[step]]\nkind = \"fstrim\"\n";
    let e = Protocol::from_toml("x.toml", text).unwrap_err().to_string();
    assert!(e.contains("x.toml") && e.contains("four_corner_rand_write") && e.contains("sideways"), "{e}");
    let ok = text.replace("sideways", "truncated");
    let p = Protocol::from_toml("x.toml", &ok).unwrap();
    assert!(p.four_corner(&FourCornerConfig::default()).rand_write_truncated);
}

/// The torture file takes all the free space and is deleted at the end: the filesystem has its
/// free space back, the device still maps what the torture wrote (nothing was trimmed).
#[test]
fn torture_file_deleted_without_trim_leaves_the_free_space_mapped() {
    let mut sys = toy();
    let free = sys.fs().free_bytes();
    let text = "name = \"t\"\n[[step]]\nkind = \"random-writes\"\nkeep_free = \"0\"\npasses = 2.0\n\
                delete_after = true\n";
    let p = Protocol::from_toml("t.toml", text).unwrap();
    let fc = FourCornerConfig::default();
    let r = run_protocol(&mut sys, &p, &fc, |_, _, _, _| {}).unwrap();
    assert!(r.log[0].detail.contains("file deleted (not trimmed)"), "{}", r.log[0].detail);
    assert_eq!(sys.fs().free_bytes(), free, "the torture file was not deleted");
    let st = sys.device().state();
    // Two passes of uniform picks touch 1 - e^-2 = 86 % of the blocks.
    assert!(
        st.valid_units as f64 > 0.8 * st.logical_units as f64,
        "the device forgot the deleted torture data: {} of {} units mapped",
        st.valid_units,
        st.logical_units
    );
    sys.device().check_invariants().unwrap();
}

/// AndroBench's layout: the random writes fill a new file while the sequential test's file
/// still holds its blocks, so on a fresh device they land on never-written blocks; both files
/// are gone afterwards.
#[test]
fn truncated_random_writes_land_beside_the_sequential_file() {
    let mut sys = toy();
    let fc = FourCornerConfig { span: 8 * MIB, rand_io: MIB, rand_write_truncated: true, ..Default::default() };
    let before = sys.fs().free_bytes();
    let row = run_four_corner(&mut sys, &fc, "new", |_, _| {}).unwrap();
    assert_eq!(sys.fs().free_bytes(), before, "a four-corner file was left behind");
    assert!(row.rand_write_mbs > 0.0);
    // The sequential test wrote 8 MiB, the random test 1 MiB elsewhere: the device maps both.
    let mapped = sys.device().state().valid_units * 4096;
    assert!(mapped > 8 * MIB + MIB / 2, "only {mapped} bytes mapped: the random writes overwrote the sequential file");
    sys.device().check_invariants().unwrap();
}

#[test]
fn bad_androbench_settings_name_the_field() {
    for (line, field) in [
        ("four_corner_seq_write = \"fast\"", "four_corner_seq_write"),
        ("four_corner_repeat = 0", "four_corner_repeat"),
        ("four_corner_repeat = 11", "four_corner_repeat"),
        ("four_corner_read_file = \"lots\"", "four_corner_read_file"),
    ] {
        let text = format!("name = \"x\"\n{line}\n[[step]]\nkind = \"fstrim\"\n");
        let e = Protocol::from_toml("x.toml", &text).unwrap_err().to_string();
        assert!(e.contains("x.toml") && e.contains(field), "{line}: {e}");
    }
    let text = "name = \"x\"\nfour_corner_seq_write = \"sync\"\nfour_corner_repeat = 3\n\
                four_corner_read_file = \"8MiB\"\n[[step]]\nkind = \"fstrim\"\n";
    let fc = Protocol::from_toml("x.toml", text).unwrap().four_corner(&FourCornerConfig::default());
    assert!(fc.seq_write_sync && fc.repeats == 3 && fc.read_file == Some(8 * MIB), "{fc:?}");
}

/// AndroBench 3.x's run: its read file written first, each test three times, the row's MB/s
/// the mean of the three runs' rates, its latencies pooled over the three (so mean latency x
/// IOPS is still 1 at QD1), and no file left behind.
#[test]
fn androbench_sequence_repeats_each_test_and_reports_the_mean_rate() {
    let mut sys = toy();
    let fc = FourCornerConfig {
        span: 8 * MIB,
        rand_io: 8 * MIB,
        rand_write_truncated: true,
        rand_write_sync: true,
        seq_write_sync: true,
        repeats: 3,
        read_file: Some(8 * MIB),
        ..Default::default()
    };
    let before = sys.fs().free_bytes();
    let row = run_four_corner(&mut sys, &fc, "new", |_, _| {}).unwrap();
    assert_eq!(sys.fs().free_bytes(), before, "a four-corner file was left behind");
    // Three runs of each test: every random write of every run is in the pooled histogram.
    let rw = &row.jobs[3].write;
    assert_eq!(rw.ios, 3 * 8 * MIB / 4096, "random-write runs pooled");
    assert_eq!(row.jobs[1].read.ios, 3 * 8 * MIB / (256 << 10), "sequential-read runs pooled");
    // The pooled runtime is the three runs' sum: Little's law at QD1 holds on the row.
    let little = row.rand_write_iops * rw.clat.mean() / 1e9;
    assert!((little - 1.0).abs() < 0.02, "mean latency x IOPS = {little}");
    // MB/s is the mean of the runs' rates, which is at least their pooled rate (the harmonic
    // mean), and within the three runs' range.
    let pooled = rw.bw_bytes_per_sec() / 1e6;
    assert!(row.rand_write_mbs >= pooled * (1.0 - 1e-9), "{} vs pooled {pooled}", row.rand_write_mbs);
    // The read file (8 MiB written in 1 MiB O_SYNC records) and three runs of each write test.
    let written = sys.device().counters().host_units_written * 4096;
    assert!(written >= (8 + 3 * 8 + 3 * 8) * MIB, "only {written} bytes written");
    sys.device().check_invariants().unwrap();
}
