//! The raw block device safety checks, on the device the root filesystem is mounted from.

use flashlab_real::blockdev::{check_block_device, open_block_device};
use std::path::Path;

/// The source of `/` in /proc/mounts, if it is a block device node.
fn root_device() -> Option<String> {
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    let src = mounts
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() > 2 && f[1] == "/")
        .map(|f| f[0].to_string())?;
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(&src).ok()?.file_type().is_block_device().then_some(src)
}

#[test]
fn refuses_without_destroy_data_and_while_mounted() {
    let Some(dev) = root_device() else {
        eprintln!("SKIPPED refuses_without_destroy_data_and_while_mounted: the root filesystem is not on a block device node here");
        return;
    };
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
