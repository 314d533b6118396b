//! Which storage part a device is and how it is attached, from what sysfs says without root:
//! for eMMC the card-identification fields the mmc driver exposes (`device/manfid`, `name`,
//! `prv`, `date`, or the raw `device/cid`) and the EXT_CSD revision (`device/rev` → eMMC
//! version); for UFS the host's descriptors (`string_descriptors/*`, `device_descriptor/
//! specification_version`, `health_descriptor/life_time_estimation_*`, `power_info/*`) under the
//! UFS host controller that `sys/block/sdX` links into. Missing files are normal (older kernels,
//! SELinux): the fields are then unknown. The product serial number in the CID is never read
//! out.

use crate::tree::Tree;
use serde::{Deserialize, Serialize};

/// The storage part behind a block device.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct StoragePart {
    /// e.g. `eMMC 5.1`, `UFS 2.1`; the class alone when the version is unknown.
    pub interface: String,
    /// The manufacturer, by name where its ID is known, e.g. `Samsung (0x15)`.
    pub manufacturer: Option<String>,
    /// The product name, e.g. `HAG4a2`.
    pub product: Option<String>,
    /// The product revision, e.g. `0.7`.
    pub revision: Option<String>,
    /// eMMC: the manufacturing month (`MM/YYYY`, as the kernel prints it).
    pub date: Option<String>,
    /// UFS: the link, e.g. `HS-G3 x2`, where the kernel exposes it.
    pub link: Option<String>,
    /// UFS health descriptor: life-time estimates A and B (1 = 0–10 % used ... 11 = exceeded)
    /// and pre-EOL information.
    pub ufs_life_time_a: Option<u8>,
    /// UFS health descriptor: life-time estimate B, same scale as A.
    pub ufs_life_time_b: Option<u8>,
    /// UFS health descriptor: pre-EOL information (1 normal, 2 warning, 3 urgent).
    pub ufs_pre_eol: Option<u8>,
    /// The sysfs files the facts came from (paths on the inspected system).
    pub from: Vec<String>,
}

/// JEDEC manufacturer IDs of eMMC parts common in phones and boards (as mmc-utils lists them).
fn emmc_vendor(id: u32) -> Option<&'static str> {
    Some(match id {
        0x11 => "Toshiba/Kioxia",
        0x13 | 0xFE => "Micron",
        0x15 => "Samsung",
        0x45 => "SanDisk",
        0x70 => "Kingston",
        0x90 => "SK hynix",
        _ => return None,
    })
}

/// EXT_CSD_REV → the eMMC specification it belongs to (JESD84).
fn emmc_version(rev: u32) -> Option<&'static str> {
    Some(match rev {
        0 => "4.0",
        1 => "4.1",
        2 => "4.2",
        3 => "4.3",
        5 => "4.41",
        6 => "4.5",
        7 => "5.0",
        8 => "5.1",
        _ => return None,
    })
}

fn parse_num(s: &str) -> Option<u32> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Manufacturer ID, OEM ID, product name and revision from a 128-bit CID in hex (the serial
/// number and date bits are skipped).
fn decode_cid(hex: &str) -> Option<(u32, String, String)> {
    let hex = hex.trim();
    if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok();
    let mid = byte(0)? as u32;
    let pnm: String = (3..9).filter_map(byte).map(|b| b as char).collect();
    let prv = byte(9)?;
    let pnm = pnm.trim().to_string();
    if pnm.is_empty() || !pnm.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
        return None;
    }
    Some((mid, pnm, format!("{}.{}", prv >> 4, prv & 0xF)))
}

fn val(tree: &Tree, rel: &str, from: &mut Vec<String>) -> Option<String> {
    let v = tree.value_optional(rel, "the storage part's identity is incomplete").filter(|v| !v.is_empty())?;
    from.push(format!("/{rel}"));
    Some(v)
}

/// An eMMC part (`mmcblkN` with `device/type` = `MMC`).
pub(crate) fn emmc(tree: &Tree, disk: &str) -> StoragePart {
    let base = format!("sys/block/{disk}/device");
    let mut from = Vec::new();
    let mut manfid = val(tree, &format!("{base}/manfid"), &mut from).and_then(|v| parse_num(&v));
    let mut product = val(tree, &format!("{base}/name"), &mut from);
    let mut revision = val(tree, &format!("{base}/prv"), &mut from)
        .and_then(|v| parse_num(&v))
        .map(|p| format!("{}.{}", p >> 4, p & 0xF));
    if manfid.is_none() || product.is_none() {
        if let Some((mid, pnm, prv)) = val(tree, &format!("{base}/cid"), &mut from).as_deref().and_then(decode_cid) {
            manfid.get_or_insert(mid);
            product.get_or_insert(pnm);
            revision.get_or_insert(prv);
        }
    }
    let version = val(tree, &format!("{base}/rev"), &mut from).and_then(|v| parse_num(&v)).and_then(emmc_version);
    StoragePart {
        interface: version.map(|v| format!("eMMC {v}")).unwrap_or_else(|| "eMMC".into()),
        manufacturer: manfid
            .map(|m| emmc_vendor(m).map(|n| format!("{n} (0x{m:02X})")).unwrap_or_else(|| format!("0x{m:02X}"))),
        product,
        revision,
        date: val(tree, &format!("{base}/date"), &mut from),
        from,
        ..StoragePart::default()
    }
}

/// The UFS host directory (relative to the tree) that a `sys/block/sdX` link goes through:
/// `../devices/platform/soc/1d84000.ufshc/host0/...` → `sys/devices/platform/soc/1d84000.ufshc`.
pub fn ufs_host_dir(link: &str) -> Option<String> {
    let rel = link.trim_start_matches("../").trim_start_matches("/sys/").trim_start_matches('/');
    let mut out = vec!["sys"];
    for c in rel.split('/') {
        if c.is_empty() || c == ".." {
            return None;
        }
        out.push(c);
        if c.to_ascii_lowercase().contains("ufs") {
            return Some(out.join("/"));
        }
    }
    None
}

/// `0x0210` → `2.1`, `0x0310` → `3.1`, `0x0400` → `4.0` (BCD: major byte, minor nibble).
fn ufs_version(spec: &str) -> Option<String> {
    let v = parse_num(spec)?;
    let major = (v >> 8) & 0xFF;
    let minor = (v >> 4) & 0xF;
    (1..=9).contains(&major).then(|| format!("{major}.{minor}"))
}

/// A UFS part, from the descriptors under its host controller `host` (see [`ufs_host_dir`]).
pub(crate) fn ufs(tree: &Tree, host: &str) -> StoragePart {
    let mut from = Vec::new();
    let mut v = |f: &str| val(tree, &format!("{host}/{f}"), &mut from);
    let manufacturer = v("string_descriptors/manufacturer_name");
    let product = v("string_descriptors/product_name");
    let revision = v("string_descriptors/product_revision");
    let version = v("device_descriptor/specification_version").and_then(|s| ufs_version(&s));
    let hex8 = |s: Option<String>| s.and_then(|s| parse_num(&s)).and_then(|n| u8::try_from(n).ok());
    let life_a = hex8(v("health_descriptor/life_time_estimation_a"));
    let life_b = hex8(v("health_descriptor/life_time_estimation_b"));
    let eol = hex8(v("health_descriptor/eol_info"));
    let gear = v("power_info/gear");
    let lanes = v("power_info/lane");
    let link = match (gear, lanes) {
        (Some(g), Some(l)) => Some(format!("{g} x{l}")),
        (Some(g), None) => Some(g),
        _ => None,
    };
    StoragePart {
        interface: version.map(|v| format!("UFS {v}")).unwrap_or_else(|| "UFS".into()),
        manufacturer,
        product,
        revision,
        date: None,
        link,
        ufs_life_time_a: life_a,
        ufs_life_time_b: life_b,
        ufs_pre_eol: eol,
        from,
    }
}

impl StoragePart {
    /// One line for the text report: `eMMC 4.5 · Samsung (0x15) "HAG4a2" rev 0.7, made 03/2016`.
    pub fn line(&self) -> String {
        let mut s = self.interface.clone();
        if let Some(l) = &self.link {
            s.push_str(&format!(" ({l})"));
        }
        if let Some(m) = &self.manufacturer {
            s.push_str(&format!(" · {m}"));
        }
        if let Some(p) = &self.product {
            s.push_str(&format!(" \"{p}\""));
        }
        if let Some(r) = &self.revision {
            s.push_str(&format!(" rev {r}"));
        }
        if let Some(d) = &self.date {
            s.push_str(&format!(", made {d}"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cid_and_versions() {
        // MID 0x15, OID 0x01, PNM "BJTD4R", PRV 0x07 (serial and date bits arbitrary).
        let cid = "150100424a5444345207123456789a0f";
        assert_eq!(decode_cid(cid), Some((0x15, "BJTD4R".into(), "0.7".into())));
        assert_eq!(decode_cid("zz"), None);
        assert_eq!(emmc_version(8), Some("5.1"));
        assert_eq!(emmc_version(4), None);
        assert_eq!(ufs_version("0x0210").as_deref(), Some("2.1"));
        assert_eq!(ufs_version("0x0310").as_deref(), Some("3.1"));
        assert_eq!(ufs_version("garbage"), None);
    }

    #[test]
    fn host_dir() {
        assert_eq!(
            ufs_host_dir("../devices/platform/soc/1d84000.ufshc/host0/target0:0:0/0:0:0:0/block/sda").as_deref(),
            Some("sys/devices/platform/soc/1d84000.ufshc")
        );
        assert_eq!(ufs_host_dir("../devices/pci0000:00/0000:00:1f.2/ata1/host0/block/sda"), None);
        assert_eq!(ufs_host_dir("../devices/../../etc/ufs"), None);
    }
}
