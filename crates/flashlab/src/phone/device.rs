//! The phone: chosen from `adb devices`, described by its properties (`getprop`) and whether
//! the shell is root (`id -u`), and the binary that matches its CPU.

use super::adb::{parse_devices, Adb};
use crate::error::Error;
use std::path::{Path, PathBuf};

/// What flashlab needs to know about a phone.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    /// The serial adb lists.
    pub serial: String,
    /// `ro.product.cpu.abi`, e.g. `arm64-v8a`.
    pub abi: String,
    /// Manufacturer and model (`Google Pixel 4a`).
    pub model: Option<String>,
    /// The Android release (`13`).
    pub release: Option<String>,
    /// The API level.
    pub sdk: Option<u32>,
    /// The adb shell runs as root (`adb root`, an eng/userdebug build).
    pub root: bool,
}

impl Device {
    /// From `getprop` output and `id -u`.
    pub fn describe(serial: &str, getprop: &str, uid: &str) -> Result<Device, Error> {
        let props = flashlab_doctor::trim::parse_props(getprop);
        let get =
            |k: &str| props.iter().rev().find(|(pk, _)| pk == k).map(|(_, v)| v.clone()).filter(|v| !v.is_empty());
        let abi = get("ro.product.cpu.abi").ok_or_else(|| {
            Error::Phone(format!("device {serial}: getprop has no ro.product.cpu.abi (is it an Android device?)"))
        })?;
        let model = match (get("ro.product.manufacturer"), get("ro.product.model")) {
            (Some(m), Some(p)) if !p.to_lowercase().starts_with(&m.to_lowercase()) => Some(format!("{m} {p}")),
            (_, p) => p,
        };
        Ok(Device {
            serial: serial.to_string(),
            abi,
            model,
            release: get("ro.build.version.release"),
            sdk: get("ro.build.version.sdk").and_then(|s| s.parse().ok()),
            root: uid.trim() == "0",
        })
    }

    /// The Rust target whose static binary runs on this CPU.
    pub fn rust_target(&self) -> Result<&'static str, Error> {
        match self.abi.as_str() {
            "arm64-v8a" => Ok("aarch64-unknown-linux-musl"),
            "armeabi-v7a" | "armeabi" => Ok("armv7-unknown-linux-musleabihf"),
            "x86_64" => Ok("x86_64-unknown-linux-musl"),
            other => Err(Error::Phone(format!("device {}: CPU ABI {other} has no flashlab build", self.serial))),
        }
    }

    /// One line naming the phone: serial, model, Android release, ABI, root.
    pub fn label(&self) -> String {
        format!(
            "{} ({}, Android {}{}, {}{})",
            self.serial,
            self.model.as_deref().unwrap_or("unknown model"),
            self.release.as_deref().unwrap_or("?"),
            self.sdk.map(|s| format!(" / API {s}")).unwrap_or_default(),
            self.abi,
            if self.root { ", root shell" } else { ", no root" }
        )
    }
}

/// The one device to use: `serial` if given, else the only attached one.
pub fn choose(adb: &Adb, serial: Option<&str>) -> Result<String, Error> {
    let text = adb.checked(&adb.args(&["devices"]))?;
    let all = parse_devices(&text);
    let ready: Vec<_> = all.iter().filter(|d| d.state == "device").collect();
    let no = |m: String| Err(Error::Phone(m));
    match serial {
        Some(s) => match all.iter().find(|d| d.serial == s) {
            Some(d) if d.state == "device" => Ok(s.to_string()),
            Some(d) => no(format!("device {s} is {} (unlock it and accept the USB debugging prompt)", d.state)),
            None => no(format!("device {s} is not attached (adb devices lists: {})", list(&all))),
        },
        None => match ready.as_slice() {
            [one] => Ok(one.serial.clone()),
            [] if all.is_empty() => {
                no("no device attached: connect the phone by USB with USB debugging on (adb devices lists none)".into())
            }
            [] => {
                no(format!("no usable device: {} (unlock the phone and accept the USB debugging prompt)", list(&all)))
            }
            _ => no(format!("several devices attached ({}): choose one with -s SERIAL", list(&all))),
        },
    }
}

fn list(all: &[super::adb::Listed]) -> String {
    if all.is_empty() {
        return "none".into();
    }
    all.iter().map(|d| format!("{} {}", d.serial, d.state)).collect::<Vec<_>>().join(", ")
}

/// Chooses the device and describes it; `adb` gets the serial.
pub fn connect(adb: &mut Adb, serial: Option<&str>) -> Result<Device, Error> {
    let s = choose(adb, serial)?;
    adb.serial = Some(s.clone());
    let props = adb.shell("getprop")?;
    let uid = adb.shell("id -u")?;
    Device::describe(&s, &props, &uid)
}

/// The binary to push for `target`: `explicit`, else `target/TARGET/release/flashlab` next to
/// this executable's target directory or under the current directory.
pub fn binary_for(target: &str, explicit: Option<&Path>) -> Result<PathBuf, Error> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(Error::flag(format!("--binary {}", p.display()), "no such file"))
        };
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        // target/release/flashlab → target/TARGET/release/flashlab
        if let Some(tdir) = exe.parent().and_then(Path::parent) {
            candidates.push(tdir.join(target).join("release/flashlab"));
        }
    }
    candidates.push(PathBuf::from("target").join(target).join("release/flashlab"));
    candidates.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        Error::Phone(format!(
            "no flashlab binary for {target}: build it with scripts/build-arm.sh {target}, or give --binary FILE"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_a_pixel() {
        let d = Device::describe(
            "0A1B2C",
            "[ro.product.cpu.abi]: [arm64-v8a]\n[ro.product.manufacturer]: [Google]\n[ro.product.model]: [Pixel 4a]\n[ro.build.version.release]: [13]\n[ro.build.version.sdk]: [33]\n",
            "2000\n",
        )
        .unwrap();
        assert_eq!(d.rust_target().unwrap(), "aarch64-unknown-linux-musl");
        assert_eq!(d.model.as_deref(), Some("Google Pixel 4a"));
        assert!(!d.root);
        assert!(d.label().contains("no root"));
        assert!(Device::describe("x", "[ro.product.model]: [X]\n", "0").is_err());
    }
}
