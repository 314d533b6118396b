//! Block devices from sysfs: which device and partition a filesystem is on, what is stacked
//! between them (device-mapper, md, loop), what class of device is at the bottom (eMMC, SD, UFS,
//! NVMe, virtio...), and its queue settings and health.
//!
//! Everything here reads `sys/block/...` through [`Tree`], so a captured copy works as the live
//! `/sys` does. A device missing from sysfs still gets a class from its name (`mmcblk0p2` is on
//! `mmcblk0`, an MMC device), with every fact that needs sysfs left unknown.

use crate::tree::Tree;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A block device node as sysfs lists it: a whole device or a partition of one.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub name: String,
    /// The whole device (itself when not a partition).
    pub disk: String,
    pub partition: Option<u32>,
    pub majmin: Option<(u32, u32)>,
}

/// The block devices found under `sys/block`.
#[derive(Debug, Default)]
pub(crate) struct Index {
    pub nodes: Vec<Node>,
}

fn parse_majmin(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

fn plain_name(n: &str) -> bool {
    !n.is_empty() && n != "." && n != ".." && !n.contains('/') && n.len() < 128
}

impl Index {
    pub fn load(tree: &Tree) -> Index {
        let disks = match tree.list("sys/block") {
            Ok(v) => v,
            Err(e) => {
                tree.note("sys/block", &e, "device class, queue settings, discard support and health are unknown");
                return Index::default();
            }
        };
        let mut nodes = Vec::new();
        for d in disks.into_iter().filter(|d| plain_name(d)) {
            let majmin = tree.value(&format!("sys/block/{d}/dev")).ok().and_then(|v| parse_majmin(&v));
            if let Ok(subs) = tree.list(&format!("sys/block/{d}")) {
                for s in subs {
                    if s == d || !s.starts_with(d.as_str()) || !plain_name(&s) {
                        continue;
                    }
                    let has_part = tree.exists(&format!("sys/block/{d}/{s}/partition"));
                    let has_dev = tree.exists(&format!("sys/block/{d}/{s}/dev"));
                    if !has_part && !has_dev {
                        continue;
                    }
                    let partition = tree
                        .value(&format!("sys/block/{d}/{s}/partition"))
                        .ok()
                        .and_then(|v| v.parse().ok())
                        .or_else(|| split_partition(&s).1);
                    let pm = tree.value(&format!("sys/block/{d}/{s}/dev")).ok().and_then(|v| parse_majmin(&v));
                    nodes.push(Node { name: s.clone(), disk: d.clone(), partition, majmin: pm });
                }
            }
            nodes.push(Node { name: d.clone(), disk: d, partition: None, majmin });
        }
        Index { nodes }
    }

    pub fn by_majmin(&self, mm: (u32, u32)) -> Option<&Node> {
        self.nodes.iter().find(|n| n.majmin == Some(mm))
    }

    pub fn by_name(&self, name: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.name == name)
    }

    pub fn has_disk(&self, disk: &str) -> bool {
        self.nodes.iter().any(|n| n.name == disk && n.partition.is_none())
    }

    /// The device-mapper device called `name` (`/dev/mapper/NAME`).
    pub fn by_dm_name(&self, tree: &Tree, name: &str) -> Option<&Node> {
        self.nodes
            .iter()
            .filter(|n| n.partition.is_none() && n.name.starts_with("dm-"))
            .find(|n| tree.value(&format!("sys/block/{}/dm/name", n.name)).map(|v| v == name).unwrap_or(false))
    }
}

/// Splits a partition name into its disk and number when the name says so:
/// `mmcblk0p2` → (`mmcblk0`, 2), `sda13` → (`sda`, 13), `nvme0n1p3` → (`nvme0n1`, 3).
pub fn split_partition(name: &str) -> (String, Option<u32>) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits == name.len() {
        return (name.to_string(), None);
    }
    let (stem, num) = name.split_at(name.len() - digits);
    let num: Option<u32> = num.parse().ok();
    // mmcblk0p2, nvme0n1p2, loop0p1, nbd0p1, md0p1: the stem ends in `<digit>p`.
    if let Some(s) = stem.strip_suffix('p') {
        if s.ends_with(|c: char| c.is_ascii_digit())
            && (s.starts_with("mmcblk")
                || s.starts_with("nvme")
                || s.starts_with("loop")
                || s.starts_with("nbd")
                || s.starts_with("md"))
        {
            return (s.to_string(), num);
        }
    }
    for p in ["sd", "vd", "xvd", "hd"] {
        if stem.starts_with(p) && stem.len() > p.len() && stem[p.len()..].chars().all(|c| c.is_ascii_lowercase()) {
            return (stem.to_string(), num);
        }
    }
    (name.to_string(), None)
}

/// The class of a whole block device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceClass {
    /// eMMC (`mmcblk*` whose `device/type` is `MMC`).
    Emmc,
    /// SD card (`mmcblk*` whose `device/type` is `SD`).
    Sd,
    /// mmcblk whose card type could not be read.
    Mmc,
    /// UFS (an `sd*` device behind a UFS host controller).
    Ufs,
    /// sd*: SCSI-driven, could be UFS, SATA or USB.
    Scsi,
    /// SATA or SAS disk.
    Sata,
    /// USB mass storage.
    Usb,
    /// NVMe namespace (`nvme*n*`).
    Nvme,
    /// virtio disk (`vd*`) of a virtual machine.
    Virtio,
    /// Xen virtual disk (`xvd*`).
    Xen,
    /// IDE disk (`hd*`).
    Ide,
    /// Loop device (`loop*`), backed by a file.
    Loop,
    /// Device-mapper device (`dm-*`: crypt, verity, LVM).
    DeviceMapper,
    /// Software RAID (`md*`).
    Md,
    /// Compressed RAM disk (`zram*`).
    Zram,
    /// RAM disk (`ram*`).
    Ram,
    /// Network block device (`nbd*`).
    Nbd,
    /// Raw NAND through MTD (`mtdblock*`).
    RawNand,
    /// A name the doctor does not know.
    Unknown,
}

impl DeviceClass {
    /// The class in words, for the text report (`eMMC`, `virtio disk (virtual machine)`).
    pub fn label(self) -> &'static str {
        match self {
            DeviceClass::Emmc => "eMMC",
            DeviceClass::Sd => "SD card",
            DeviceClass::Mmc => "eMMC or SD card",
            DeviceClass::Ufs => "UFS",
            DeviceClass::Scsi => "SCSI disk (UFS, SATA or USB)",
            DeviceClass::Sata => "SATA/SAS disk",
            DeviceClass::Usb => "USB mass storage",
            DeviceClass::Nvme => "NVMe",
            DeviceClass::Virtio => "virtio disk (virtual machine)",
            DeviceClass::Xen => "Xen virtual disk",
            DeviceClass::Ide => "IDE/PATA disk",
            DeviceClass::Loop => "loop device (file-backed)",
            DeviceClass::DeviceMapper => "device-mapper (dm-crypt, LVM, verity...)",
            DeviceClass::Md => "md software RAID",
            DeviceClass::Zram => "zram (compressed RAM)",
            DeviceClass::Ram => "RAM disk",
            DeviceClass::Nbd => "network block device",
            DeviceClass::RawNand => "raw NAND (MTD/UBI, no FTL)",
            DeviceClass::Unknown => "unknown",
        }
    }

    /// eMMC and SD: small controllers, slow discards, no queue (or a shallow one).
    pub fn is_mmc(self) -> bool {
        matches!(self, DeviceClass::Emmc | DeviceClass::Sd | DeviceClass::Mmc)
    }

    /// A device that is (almost certainly) flash with an FTL.
    pub fn is_flash(self) -> bool {
        matches!(self, DeviceClass::Emmc | DeviceClass::Sd | DeviceClass::Mmc | DeviceClass::Ufs | DeviceClass::Nvme)
    }
}

/// The class a device name implies, before any sysfs detail.
pub fn class_from_name(name: &str) -> DeviceClass {
    let tail_digits = |p: &str| name.len() > p.len() && name[p.len()..].chars().all(|c| c.is_ascii_digit());
    let tail_lower = |p: &str| name.len() > p.len() && name[p.len()..].chars().all(|c| c.is_ascii_lowercase());
    if name.starts_with("mmcblk") {
        DeviceClass::Mmc
    } else if name.starts_with("nvme") {
        DeviceClass::Nvme
    } else if name.starts_with("xvd") {
        DeviceClass::Xen
    } else if name.starts_with("sd") && tail_lower("sd") {
        DeviceClass::Scsi
    } else if name.starts_with("vd") && tail_lower("vd") {
        DeviceClass::Virtio
    } else if name.starts_with("hd") && tail_lower("hd") {
        DeviceClass::Ide
    } else if name.starts_with("loop") {
        DeviceClass::Loop
    } else if name.starts_with("dm-") {
        DeviceClass::DeviceMapper
    } else if name.starts_with("md") && (tail_digits("md") || name.starts_with("md_")) {
        DeviceClass::Md
    } else if name.starts_with("zram") {
        DeviceClass::Zram
    } else if name.starts_with("ram") && tail_digits("ram") {
        DeviceClass::Ram
    } else if name.starts_with("nbd") {
        DeviceClass::Nbd
    } else if name.starts_with("mtdblock") || name.starts_with("ubiblock") {
        DeviceClass::RawNand
    } else {
        DeviceClass::Unknown
    }
}

/// How a filesystem's source resolves to block devices.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BlockPath {
    /// The node the filesystem is mounted from, e.g. `mmcblk0p2`, `dm-6`.
    pub node: String,
    /// The partition number of `node` (`None` for a whole device).
    pub partition: Option<u32>,
    /// The whole device of `node` (e.g. `mmcblk0`, `dm-6`): its queue is what the filesystem sees.
    pub disk: String,
    /// Whole devices from `disk` down to the physical ones, e.g. `["dm-6", "sda"]`.
    pub chain: Vec<String>,
    /// Human names of the stacked layers, e.g. `dm-6: dm "userdata" over sda31`.
    pub layers: Vec<String>,
    /// The devices at the bottom of the stack (more than one for md RAID).
    pub physical: Vec<String>,
    /// For a loop device: the file behind it.
    pub loop_backing_file: Option<String>,
    /// `disk` was found in sysfs (otherwise everything is inferred from names).
    pub in_sysfs: bool,
}

/// Resolves a mount's source to its block devices; `None` when it names no block device at all.
pub(crate) fn resolve(tree: &Tree, idx: &Index, majmin: Option<(u32, u32)>, source: &str) -> Option<BlockPath> {
    let mut node: Option<Node> = None;
    if let Some(mm) = majmin {
        if mm.0 != 0 {
            node = idx.by_majmin(mm).cloned();
        }
    }
    // Android's vold names public volumes by device number: /dev/block/vold/public:179,129.
    if node.is_none() {
        if let Some((_, nums)) = source.rsplit_once(':') {
            if let Some((a, b)) = nums.split_once(',') {
                if let (Ok(a), Ok(b)) = (a.parse(), b.parse()) {
                    node = idx.by_majmin((a, b)).cloned();
                }
            }
        }
    }
    if node.is_none() {
        let name = source.strip_prefix("/dev/block/").or_else(|| source.strip_prefix("/dev/"));
        if let Some(name) = name {
            if let Some(dm) = name.strip_prefix("mapper/") {
                node = idx.by_dm_name(tree, dm).cloned();
            } else if !name.contains('/') {
                node = idx.by_name(name).cloned();
            }
            if node.is_none() && tree.live {
                // by-uuid, by-name, /dev/root...: follow the symlink on the live system.
                if let Ok(real) = std::fs::canonicalize(source) {
                    if let Some(n) = real.file_name().map(|n| n.to_string_lossy().into_owned()) {
                        node = idx.by_name(&n).cloned();
                    }
                }
            }
            if node.is_none() && !name.contains('/') && name != "root" && plain_name(name) {
                let (disk, partition) = split_partition(name);
                node = Some(Node { name: name.to_string(), disk, partition, majmin });
            }
        }
    }
    let node = node?;
    let in_sysfs = idx.has_disk(&node.disk);
    let mut chain = Vec::new();
    let mut layers = Vec::new();
    let mut physical = Vec::new();
    let mut seen = BTreeSet::new();
    walk(tree, idx, &node.disk, 0, &mut seen, &mut chain, &mut layers, &mut physical);
    let loop_backing_file = if node.disk.starts_with("loop") {
        tree.value(&format!("sys/block/{}/loop/backing_file", node.disk)).ok().filter(|s| !s.is_empty())
    } else {
        None
    };
    Some(BlockPath {
        node: node.name,
        partition: node.partition,
        disk: node.disk,
        chain,
        layers,
        physical,
        loop_backing_file,
        in_sysfs,
    })
}

#[allow(clippy::too_many_arguments)]
fn walk(
    tree: &Tree,
    idx: &Index,
    disk: &str,
    depth: usize,
    seen: &mut BTreeSet<String>,
    chain: &mut Vec<String>,
    layers: &mut Vec<String>,
    physical: &mut Vec<String>,
) {
    if depth > 8 || !seen.insert(disk.to_string()) {
        return;
    }
    chain.push(disk.to_string());
    let slaves: Vec<String> = tree
        .list(&format!("sys/block/{disk}/slaves"))
        .unwrap_or_default()
        .into_iter()
        .filter(|s| plain_name(s))
        .collect();
    if slaves.is_empty() {
        if !physical.contains(&disk.to_string()) {
            physical.push(disk.to_string());
        }
        return;
    }
    let what = match tree.value(&format!("sys/block/{disk}/dm/name")) {
        Ok(n) if !n.is_empty() => format!("{disk}: dm \"{n}\""),
        _ => match tree.value(&format!("sys/block/{disk}/md/level")) {
            Ok(l) if !l.is_empty() => format!("{disk}: md {l}"),
            _ => format!("{disk}:"),
        },
    };
    layers.push(format!("{what} over {}", slaves.join(", ")));
    for s in slaves {
        let d = idx.by_name(&s).map(|n| n.disk.clone()).unwrap_or_else(|| split_partition(&s).0);
        walk(tree, idx, &d, depth + 1, seen, chain, layers, physical);
    }
}

/// Discard (TRIM) support of a queue.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Discard {
    /// `queue/discard_max_bytes`: 0 means the device takes no discards.
    pub max_bytes: Option<u64>,
    /// `queue/discard_granularity`.
    pub granularity: Option<u64>,
}

impl Discard {
    /// Whether the device accepts discards (`None` when `discard_max_bytes` is unknown).
    pub fn supported(&self) -> Option<bool> {
        self.max_bytes.map(|b| b > 0)
    }

    pub(crate) fn read(tree: &Tree, disk: &str, needed: bool) -> Discard {
        let affects = format!("whether {disk} accepts TRIM is unknown");
        let rd = |f: &str| {
            let rel = format!("sys/block/{disk}/queue/{f}");
            let v = if needed { tree.value_needed(&rel, &affects) } else { tree.value_optional(&rel, &affects) };
            v.and_then(|v| v.parse::<u64>().ok())
        };
        Discard { max_bytes: rd("discard_max_bytes"), granularity: rd("discard_granularity") }
    }
}

/// eMMC health (JEDEC EXT_CSD life-time estimates and pre-EOL information).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct EmmcHealth {
    /// `device/life_time` as read, e.g. `0x02 0x01`.
    pub life_time_raw: Option<String>,
    /// Type A (SLC-mode area) estimate: 1 = 0–10 % of life used ... 10 = 90–100 %, 11 = exceeded.
    pub life_time_a: Option<u8>,
    /// Type B (MLC/TLC area) estimate, same scale.
    pub life_time_b: Option<u8>,
    /// `device/pre_eol_info`: 1 normal, 2 warning (80 % of reserved blocks used), 3 urgent.
    pub pre_eol: Option<u8>,
    /// `device/pre_eol_info` as read, e.g. `0x01`.
    pub pre_eol_raw: Option<String>,
}

fn parse_hex_u8(s: &str) -> Option<u8> {
    let s = s.trim();
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    if h.is_empty() || h.len() > 2 {
        return None;
    }
    u8::from_str_radix(h, 16).ok()
}

/// Parses `device/life_time` (`0x01 0x02`).
pub fn parse_life_time(s: &str) -> (Option<u8>, Option<u8>) {
    let mut it = s.split_whitespace();
    (it.next().and_then(parse_hex_u8), it.next().and_then(parse_hex_u8))
}

/// Parses `device/pre_eol_info` (`0x01`): 1 normal, 2 warning, 3 urgent.
pub fn parse_pre_eol(s: &str) -> Option<u8> {
    s.split_whitespace().next().and_then(parse_hex_u8)
}

/// Everything the doctor knows about one physical device.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DeviceFacts {
    /// The kernel's name for the whole device, e.g. `mmcblk0`, `sda`.
    pub name: String,
    /// What kind of device it is.
    pub class: DeviceClass,
    /// `class` in words, as the text report shows it.
    pub class_label: String,
    /// Model or card name, where sysfs has one.
    pub model: Option<String>,
    /// Size in bytes (`size` × 512), where sysfs has it.
    pub size_bytes: Option<u64>,
    /// `queue/rotational`: the kernel treats it as a spinning disk.
    pub rotational: Option<bool>,
    /// The active I/O scheduler (`[mq-deadline]` in `queue/scheduler`).
    pub scheduler: Option<String>,
    /// Every scheduler `queue/scheduler` offers, the active one included.
    pub schedulers_available: Vec<String>,
    /// `queue/write_cache`: `write back` (volatile cache, flushes matter) or `write through`.
    pub write_cache: Option<String>,
    /// Whether and how the device accepts discards.
    pub discard: Discard,
    /// eMMC wear estimates (eMMC only).
    pub emmc: Option<EmmcHealth>,
    /// The storage part and its interface version (eMMC CID fields and EXT_CSD revision, UFS
    /// descriptors), where sysfs has them.
    #[serde(default)]
    pub part: Option<crate::part::StoragePart>,
    /// `sys/block/NAME` was present.
    pub in_sysfs: bool,
}

/// Parses `queue/scheduler` (`none [mq-deadline] kyber`): (active, available).
pub fn parse_scheduler(s: &str) -> (Option<String>, Vec<String>) {
    let mut active = None;
    let mut all = Vec::new();
    let name_ok = |w: &str| {
        !w.is_empty() && w.len() <= 32 && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let words: Vec<&str> = s.split_whitespace().collect();
    if words.iter().any(|w| !name_ok(w.strip_prefix('[').and_then(|w| w.strip_suffix(']')).unwrap_or(w))) {
        return (None, Vec::new());
    }
    for w in words {
        if let Some(a) = w.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
            active = Some(a.to_string());
            all.push(a.to_string());
        } else {
            all.push(w.to_string());
        }
    }
    if active.is_none() && all.len() == 1 {
        active = all.first().cloned();
    }
    (active, all)
}

/// The sysfs path a `sys/block/NAME` link points to: from the live link, or from the capture's
/// `doctor/sysblock-links.txt` (`NAME TARGET` lines).
fn sysfs_link(tree: &Tree, name: &str) -> Option<String> {
    if let Some(t) = tree.read_link(&format!("sys/block/{name}")) {
        return Some(t);
    }
    let text = tree.read("doctor/sysblock-links.txt").ok()?;
    text.lines().find_map(|l| {
        let mut it = l.split_whitespace();
        (it.next()? == name).then(|| it.collect::<Vec<_>>().join(" ")).filter(|t| !t.is_empty())
    })
}

impl DeviceFacts {
    pub(crate) fn read(tree: &Tree, name: &str, android: bool) -> DeviceFacts {
        let base = format!("sys/block/{name}");
        let in_sysfs = tree.is_dir(&base);
        let mut class = class_from_name(name);
        let needed = in_sysfs
            && !matches!(
                class,
                DeviceClass::DeviceMapper | DeviceClass::Md | DeviceClass::Loop | DeviceClass::Zram | DeviceClass::Ram
            );
        let q = |f: &str, affects: &str| {
            let rel = format!("{base}/queue/{f}");
            if in_sysfs && needed {
                tree.value_needed(&rel, affects)
            } else if in_sysfs {
                tree.value_optional(&rel, affects)
            } else {
                None
            }
        };
        let rotational = q("rotational", "rotational flag unknown").and_then(|v| match v.as_str() {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        });
        let (scheduler, schedulers_available) =
            q("scheduler", "I/O scheduler unknown").map(|s| parse_scheduler(&s)).unwrap_or((None, Vec::new()));
        let write_cache =
            q("write_cache", "whether the device has a volatile write cache is unknown").filter(|s| !s.is_empty());
        let discard = if in_sysfs { Discard::read(tree, name, needed) } else { Discard::default() };
        let size_bytes =
            tree.value(&format!("{base}/size")).ok().and_then(|v| v.parse::<u64>().ok()).map(|s| s.saturating_mul(512));
        let opt = |f: &str| {
            tree.value(&format!("{base}/device/{f}")).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
        };
        let mut model = opt("model").or_else(|| opt("name"));
        if let (Some(v), Some(m)) = (opt("vendor"), model.as_ref()) {
            if !m.starts_with(&v) && v.chars().any(|c| c.is_alphanumeric()) {
                model = Some(format!("{v} {m}"));
            }
        }
        let mut emmc = None;
        let mut ufs_host = None;
        match class {
            DeviceClass::Mmc => {
                class = match opt("type").as_deref() {
                    Some("MMC") => DeviceClass::Emmc,
                    Some("SD") => DeviceClass::Sd,
                    _ => DeviceClass::Mmc,
                };
                if class != DeviceClass::Sd && in_sysfs {
                    let affects = format!("{name}'s wear (life-time estimate) is unknown");
                    let lt = tree.value_optional(&format!("{base}/device/life_time"), &affects);
                    let pe = tree.value_optional(&format!("{base}/device/pre_eol_info"), &affects);
                    let (a, b) = lt.as_deref().map(parse_life_time).unwrap_or((None, None));
                    let pre_eol = pe.as_deref().and_then(parse_pre_eol);
                    emmc = Some(EmmcHealth {
                        life_time_raw: lt,
                        life_time_a: a,
                        life_time_b: b,
                        pre_eol,
                        pre_eol_raw: pe,
                    });
                }
            }
            DeviceClass::Scsi => {
                let raw_link = sysfs_link(tree, name).unwrap_or_default();
                ufs_host = crate::part::ufs_host_dir(&raw_link);
                let link = raw_link.to_ascii_lowercase();
                class = if link.contains("ufs") {
                    DeviceClass::Ufs
                } else if link.contains("usb") {
                    DeviceClass::Usb
                } else if link.contains("/ata") || link.contains("ahci") {
                    DeviceClass::Sata
                } else if android && rotational != Some(true) {
                    // Phones with sd* devices use UFS.
                    DeviceClass::Ufs
                } else {
                    DeviceClass::Scsi
                };
            }
            _ => {}
        }
        let part = match class {
            DeviceClass::Emmc if in_sysfs => Some(crate::part::emmc(tree, name)),
            DeviceClass::Ufs => ufs_host.map(|h| crate::part::ufs(tree, &h)),
            _ => None,
        };
        let class_label = match (class, rotational) {
            (DeviceClass::Scsi | DeviceClass::Sata, Some(true)) => {
                format!("{} (rotational: a hard disk)", class.label())
            }
            _ => class.label().to_string(),
        };
        DeviceFacts {
            name: name.to_string(),
            class,
            class_label,
            model,
            size_bytes,
            rotational,
            scheduler,
            schedulers_available,
            write_cache,
            discard,
            emmc,
            part,
            in_sysfs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions() {
        assert_eq!(split_partition("mmcblk0p2"), ("mmcblk0".into(), Some(2)));
        assert_eq!(split_partition("sda13"), ("sda".into(), Some(13)));
        assert_eq!(split_partition("nvme0n1p3"), ("nvme0n1".into(), Some(3)));
        assert_eq!(split_partition("nvme0n1"), ("nvme0n1".into(), None));
        assert_eq!(split_partition("mmcblk0"), ("mmcblk0".into(), None));
        assert_eq!(split_partition("dm-5"), ("dm-5".into(), None));
        assert_eq!(split_partition("vda1"), ("vda".into(), Some(1)));
        assert_eq!(split_partition("1"), ("1".into(), None));
        assert_eq!(split_partition(""), ("".into(), None));
    }

    #[test]
    fn classes() {
        assert_eq!(class_from_name("mmcblk1"), DeviceClass::Mmc);
        assert_eq!(class_from_name("sda"), DeviceClass::Scsi);
        assert_eq!(class_from_name("vda"), DeviceClass::Virtio);
        assert_eq!(class_from_name("nvme0n1"), DeviceClass::Nvme);
        assert_eq!(class_from_name("dm-3"), DeviceClass::DeviceMapper);
        assert_eq!(class_from_name("md127"), DeviceClass::Md);
        assert_eq!(class_from_name("weird"), DeviceClass::Unknown);
    }

    #[test]
    fn health_and_scheduler() {
        assert_eq!(parse_life_time("0x02 0x0B"), (Some(2), Some(11)));
        assert_eq!(parse_life_time("garbage"), (None, None));
        assert_eq!(parse_pre_eol("0x03"), Some(3));
        assert_eq!(parse_pre_eol("01"), Some(1));
        assert_eq!(
            parse_scheduler("none [mq-deadline] kyber bfq"),
            (Some("mq-deadline".into()), vec!["none".into(), "mq-deadline".into(), "kyber".into(), "bfq".into()])
        );
        assert_eq!(parse_scheduler("none").0, Some("none".into()));
        assert_eq!(parse_scheduler("").0, None);
        assert_eq!(parse_scheduler("garbage[[[").0, None);
    }
}
