//! Zoned profiles on the commands that cannot drive zones yet (docs/zoned.md): each refuses the
//! profile up front with one error naming it and its conventional twin, instead of failing in
//! the middle of a run (or, for `serve`, handing the kernel a block device it may not write
//! at random).

mod common;
use common::{fails, scratch};

#[test]
fn commands_refuse_a_zoned_profile_naming_its_twin() {
    let dir = scratch("zoned-cli", "mnt");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    for args in [
        &["age", "--target", "sim:zoned-ufs-4.0"][..],
        &["bench", "--target", "sim:nvme-gen3-zns"],
        &["fill", "--target", "sim:zoned-ufs-4.0"],
        &["serve", "--target", "sim:zoned-ufs-4.0", d],
    ] {
        fails(args, "is a zoned device");
        fails(args, "twin");
    }
}
