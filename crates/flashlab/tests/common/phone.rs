//! A scratch "phone" for the tests of `flashlab phone`: a fake `adb` (a shell script) that
//! records every call and answers from fixture files, `shell CMD` by running CMD here.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const FAKE_ADB: &str = r#"#!/bin/sh
# Fake adb for flashlab's tests: records the call, answers from $FAKE_ADB_DIR.
{ for a in "$@"; do printf '%s\037' "$a"; done; printf '\n'; } >> "$FAKE_ADB_DIR/calls.log"
if [ "$1" = -s ]; then
    grep -q "^$2[[:space:]]*device" "$FAKE_ADB_DIR/devices.txt" || { echo "adb: device '$2' not found" >&2; exit 1; }
    shift 2
fi
case "$1" in
    devices) cat "$FAKE_ADB_DIR/devices.txt" ;;
    push) cp "$2" "$3" && echo "$2: 1 file pushed" ;;
    pull) cp -R "$2" "$3" && echo "$2: pulled" ;;
    shell)
        shift
        case "$1" in
            getprop) cat "$FAKE_ADB_DIR/getprop.txt" ;;
            "id -u") echo 2000 ;;
            "sh "*capture.sh*)
                # The doctor's capture: the phone's tree comes from a fixture.
                dest=${1##* }
                mkdir -p "$dest" && cp -R "$FAKE_ADB_CAPTURE"/. "$dest"/ ;;
            *) exec sh -c "$1" ;;
        esac ;;
    *) echo "fake adb: unsupported: $*" >&2; exit 1 ;;
esac
"#;

pub const PIXEL_PROPS: &str = "[ro.product.cpu.abi]: [arm64-v8a]\n[ro.product.manufacturer]: [Google]\n[ro.product.model]: [Pixel 4a]\n[ro.build.version.release]: [13]\n[ro.build.version.sdk]: [33]\n";

/// A scratch "phone": the fake adb, its fixture files, and directories standing for the
/// phone's /data/local/tmp and /sdcard.
pub struct Phone {
    pub dir: PathBuf,
}

impl Phone {
    pub fn new(tag: &str, devices: &str) -> Phone {
        let dir = super::scratch(&format!("phone-{tag}"), "fake");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("data/local/tmp")).unwrap();
        std::fs::create_dir_all(dir.join("sdcard")).unwrap();
        let adb = dir.join("bin/adb");
        std::fs::write(&adb, FAKE_ADB).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&adb, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.join("devices.txt"), devices).unwrap();
        std::fs::write(dir.join("getprop.txt"), PIXEL_PROPS).unwrap();
        Phone { dir }
    }

    pub fn remote_dir(&self) -> String {
        self.dir.join("data/local/tmp/flashlab").display().to_string()
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_flashlab"));
        let path = format!("{}:{}", self.dir.join("bin").display(), std::env::var("PATH").unwrap_or_default());
        c.args(args)
            .env("PATH", path)
            .env("FAKE_ADB_DIR", &self.dir)
            .env("FAKE_ADB_CAPTURE", doctor_fixture("pixel-ext4-fuse"))
            .env_remove("ADB")
            .env_remove("FLASHLAB_PROGRESS");
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run flashlab")
    }

    /// Every recorded adb call, as argument lists.
    pub fn calls(&self) -> Vec<Vec<String>> {
        let t = std::fs::read_to_string(self.dir.join("calls.log")).unwrap_or_default();
        t.lines().map(|l| l.split('\u{1f}').filter(|s| !s.is_empty()).map(str::to_string).collect()).collect()
    }
}

impl Drop for Phone {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.dir.parent().unwrap());
    }
}

pub fn doctor_fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../flashlab-doctor/tests/fixtures").join(name)
}

pub fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

pub fn exists_anything_under(p: &Path) -> bool {
    std::fs::read_dir(p).map(|mut d| d.next().is_some()).unwrap_or(false)
}
