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
    let free = sys.fs.free_bytes();
    let text = "name = \"t\"\n[[step]]\nkind = \"random-writes\"\nkeep_free = \"0\"\npasses = 2.0\n\
                delete_after = true\n";
    let p = Protocol::from_toml("t.toml", text).unwrap();
    let fc = FourCornerConfig::default();
    let r = run_protocol(&mut sys, &p, &fc, |_, _, _, _| {}).unwrap();
    assert!(r.log[0].detail.contains("file deleted (not trimmed)"), "{}", r.log[0].detail);
    assert_eq!(sys.fs.free_bytes(), free, "the torture file was not deleted");
    let st = sys.dev.state();
    // Two passes of uniform picks touch 1 - e^-2 = 86 % of the blocks.
    assert!(
        st.valid_units as f64 > 0.8 * st.logical_units as f64,
        "the device forgot the deleted torture data: {} of {} units mapped",
        st.valid_units,
        st.logical_units
    );
    sys.dev.check_invariants().unwrap();
}

/// AndroBench's layout: the random writes fill a new file while the sequential test's file
/// still holds its blocks, so on a fresh device they land on never-written blocks; both files
/// are gone afterwards.
#[test]
fn truncated_random_writes_land_beside_the_sequential_file() {
    let mut sys = toy();
    let fc = FourCornerConfig { span: 8 * MIB, rand_io: MIB, rand_write_truncated: true, ..Default::default() };
    let before = sys.fs.free_bytes();
    let row = run_four_corner(&mut sys, &fc, "new", |_, _| {}).unwrap();
    assert_eq!(sys.fs.free_bytes(), before, "a four-corner file was left behind");
    assert!(row.rand_write_mbs > 0.0);
    // The sequential test wrote 8 MiB, the random test 1 MiB elsewhere: the device maps both.
    let mapped = sys.dev.state().valid_units * 4096;
    assert!(mapped > 8 * MIB + MIB / 2, "only {mapped} bytes mapped: the random writes overwrote the sequential file");
    sys.dev.check_invariants().unwrap();
}
