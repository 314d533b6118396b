//! The raw block device safety checks, on the device the root filesystem is mounted from.

use flashlab_real::blockdev::{check_block_device, open_block_device};
use std::path::Path;

#[test]
fn refuses_without_destroy_data_and_while_mounted() {
    // Needs `/` on a block device node (FLASHLAB_TEST_SKIP=rootdev skips it where it is not).
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::RootDev]) {
        return;
    }
    let dev = flashlab_testcaps::root_block_device().unwrap();
    eprintln!("root filesystem is on {dev}");
    let e = check_block_device(Path::new(&dev), false).unwrap_err().to_string();
    assert!(e.contains("--destroy-data") && e.contains(&dev), "{e}");
    let e = check_block_device(Path::new(&dev), true).unwrap_err().to_string();
    assert!(e.contains("mounted on /") && e.contains("unmount"), "{e}");
    let e = open_block_device(Path::new(&dev), true, true).unwrap_err().to_string();
    assert!(e.contains("mounted"), "{e}");
}

#[test]
fn a_directory_is_not_a_block_device() {
    let e = check_block_device(&std::env::temp_dir(), true).unwrap_err().to_string();
    assert!(e.contains("not a block device"), "{e}");
}
