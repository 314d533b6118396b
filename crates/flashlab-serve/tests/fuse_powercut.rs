//! Through a real FUSE mount: the device file reads back what was written, fallocate punch
//! hole trims, fsync flushes, and a power cut with a volatile cache loses exactly the unflushed
//! writes (acceptance 2). Needs root and /dev/fuse; fails naming what is missing otherwise, unless
//! FLASHLAB_TEST_SKIP names it (docs/testing.md).

use flashlab_serve::{ServeOptions, Server};
use flashsim::Profile;
use std::fs::OpenOptions;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;

/// Root and /dev/fuse (flashlab_testcaps; FLASHLAB_TEST_SKIP=root,fuse skips these tests).
fn machine_ready() -> bool {
    use flashlab_testcaps::Cap;
    flashlab_testcaps::require(&[Cap::Root, Cap::Fuse])
}

fn toy() -> Profile {
    let text = flashsim::builtin::TOY.to_string();
    Profile::from_toml("toy.toml", &text).unwrap()
}

/// Unmounts and removes the mount directory even when the test fails.
struct Mounted {
    server: Option<Server>,
    dir: PathBuf,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        drop(self.server.take());
        let _ = std::fs::remove_dir(&self.dir);
    }
}

fn mount(name: &str, volatile: bool) -> Mounted {
    let dir = std::env::temp_dir().join(format!("flashlab-serve-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut o = ServeOptions::new(toy(), dir.clone());
    o.volatile_cache = volatile;
    o.time_scale = 20.0;
    o.size = Some(64 << 20);
    let server = Server::start(&o, Arc::new(|m: &str| eprintln!("server: {m}"))).expect("serve");
    Mounted { server: Some(server), dir }
}

fn ctl(dir: &std::path::Path, cmd: &str) {
    std::fs::write(dir.join(".ctl"), cmd).unwrap();
}

fn read(f: &std::fs::File, off: u64, len: usize) -> Vec<u8> {
    let mut b = vec![0u8; len];
    f.read_exact_at(&mut b, off).unwrap();
    b
}

#[test]
fn power_cut_loses_unflushed_keeps_flushed() {
    if !machine_ready() {
        return;
    }
    let m = mount("powercut", true);
    let f = OpenOptions::new().read(true).write(true).open(m.dir.join("device")).unwrap();
    assert_eq!(f.metadata().unwrap().len(), 64 << 20);

    // write + no fsync + power cut: lost.
    f.write_all_at(&[0x11u8; 65536], 0).unwrap();
    assert_eq!(read(&f, 0, 65536), vec![0x11u8; 65536], "reads back before the cut");
    ctl(&m.dir, "powercut");
    assert_eq!(read(&f, 0, 65536), vec![0u8; 65536], "unflushed write survived the power cut");

    // write + fsync + power cut: kept.
    f.write_all_at(&[0x22u8; 65536], 1 << 20).unwrap();
    f.sync_all().unwrap();
    ctl(&m.dir, "powercut\n");
    assert_eq!(read(&f, 1 << 20, 65536), vec![0x22u8; 65536], "flushed write lost by the power cut");

    // More than the 256 KiB write buffer unflushed: the oldest part was programmed.
    for i in 0..8u64 {
        f.write_all_at(&vec![0x30 + i as u8; 128 << 10], (4 << 20) + i * (128 << 10)).unwrap();
    }
    ctl(&m.dir, "powercut");
    for i in 0..8u64 {
        let want = if i < 6 { 0x30 + i as u8 } else { 0 };
        let got = read(&f, (4 << 20) + i * (128 << 10), 128 << 10);
        assert!(got.iter().all(|&b| b == want), "chunk {i}: expected {want:#x}");
    }
    let s = m.server.as_ref().unwrap().snapshot();
    assert_eq!(s.power.power_cuts, 3);
    assert_eq!(s.power.lost_bytes, 65536 + (256 << 10));
    assert!(s.counters.host_flushes >= 1);
}

#[test]
fn device_file_semantics_and_stats() {
    if !machine_ready() {
        return;
    }
    let m = mount("semantics", false);
    let f = OpenOptions::new().read(true).write(true).open(m.dir.join("device")).unwrap();
    let data: Vec<u8> = (0..262144u32).map(|i| (i * 7 + 3) as u8).collect();
    f.write_all_at(&data, 8192).unwrap();
    assert_eq!(read(&f, 8192, data.len()), data);
    assert_eq!(read(&f, 0, 8192), vec![0u8; 8192], "never written reads zeros");
    // fallocate(PUNCH_HOLE) = TRIM.
    // SAFETY: fallocate on an open file descriptor.
    let r =
        unsafe { libc::fallocate(f.as_raw_fd(), libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE, 8192, 65536) };
    assert_eq!(r, 0, "punch hole: {}", std::io::Error::last_os_error());
    assert_eq!(read(&f, 8192, 65536), vec![0u8; 65536]);
    assert_eq!(read(&f, 8192 + 65536, 4096), data[65536..65536 + 4096].to_vec());
    // A power cut without a volatile cache loses nothing.
    ctl(&m.dir, "powercut");
    assert_eq!(read(&f, 8192 + 65536, 4096), data[65536..65536 + 4096].to_vec());
    // statfs block size is the mapping unit.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    let p = std::ffi::CString::new(m.dir.join("device").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::statfs(p.as_ptr(), &mut st) }, 0);
    assert_eq!(st.f_bsize, 4096);
    // stats.json is live and parses.
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(m.dir.join("stats.json")).unwrap()).unwrap();
    assert_eq!(v["host_trim_bytes"], 65536);
    assert!(v["host_write_bytes"].as_u64().unwrap() >= data.len() as u64);
    assert!(v["latency"]["write"]["model"]["count"].as_u64().unwrap() >= 1);
    assert!(v["free_blocks"].as_u64().is_some());
    // Unknown control commands are refused.
    assert!(std::fs::write(m.dir.join(".ctl"), "explode").is_err());
}
