//! The mount table as the doctor sees it: parsed by [`flashlab_sysfacts::mounts`]
//! (`/proc/self/mountinfo` preferred: it has the device numbers; or `/proc/mounts`), and sorted
//! here into block filesystems, stacked ones (FUSE, sdcardfs, overlay) and the rest.
//!
//! Parsing is lenient: a line that cannot be a mount is counted as malformed and skipped, and a
//! file cut off mid-line (a truncated capture) keeps what the last line has, with the fields the
//! cut went through marked unknown.

pub use flashlab_sysfacts::mounts::{parse_mountinfo, parse_mounts, unescape, MountEntry, Parsed};

/// What kind of mount an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A filesystem on a block device (including unknown types on a `/dev/...` source).
    Block,
    /// A filesystem stacked on another filesystem: FUSE, sdcardfs, esdfs, overlay, ecryptfs...
    Stacked,
    /// Network filesystems: not the local flash.
    Network,
    /// proc, sysfs, tmpfs and the like.
    Virtual,
}

const VIRTUAL: &[&str] = &[
    "proc",
    "sysfs",
    "tmpfs",
    "devtmpfs",
    "devpts",
    "cgroup",
    "cgroup2",
    "securityfs",
    "debugfs",
    "tracefs",
    "pstore",
    "bpf",
    "configfs",
    "fusectl",
    "mqueue",
    "hugetlbfs",
    "autofs",
    "binfmt_misc",
    "selinuxfs",
    "functionfs",
    "rpc_pipefs",
    "nsfs",
    "ramfs",
    "efivarfs",
    "nfsd",
    "rootfs",
    "devfs",
    "usbfs",
    "sockfs",
    "pipefs",
    "anon_inodefs",
    "incremental-fs",
    "binder",
    "zonefs-virtual",
    "none",
    "resctrl",
    "ipathfs",
    "openpromfs",
    "xenfs",
    "vboxsf-virtual",
];
const NETWORK: &[&str] =
    &["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "virtiofs", "ceph", "glusterfs", "afs", "vboxsf", "lustre"];
const STACKED: &[&str] =
    &["fuse", "sdcardfs", "esdfs", "overlay", "overlayfs", "ecryptfs", "aufs", "unionfs", "shiftfs", "mergerfs"];

/// Filesystem types whose options the doctor knows how to read.
pub const KNOWN_BLOCK: &[&str] = &[
    "ext2", "ext3", "ext4", "f2fs", "xfs", "btrfs", "vfat", "msdos", "exfat", "texfat", "sdfat", "ntfs", "ntfs3",
    "fuseblk", "erofs", "squashfs", "iso9660", "udf", "jfs", "reiserfs", "nilfs2", "bcachefs", "hfsplus", "zfs",
    "jffs2", "ubifs", "cramfs", "romfs",
];

/// Sorts an entry into block / stacked / network / virtual.
pub fn kind(e: &MountEntry) -> Kind {
    let t = e.fs_type.as_str();
    if t == "fuseblk" {
        return Kind::Block;
    }
    if STACKED.contains(&t) || t.starts_with("fuse.") {
        return Kind::Stacked;
    }
    if NETWORK.contains(&t) || t.starts_with("nfs") {
        return Kind::Network;
    }
    if VIRTUAL.contains(&t) || t.starts_with("cgroup") {
        return Kind::Virtual;
    }
    let dev_source = e.source.starts_with("/dev/") && e.source != "/dev/fuse";
    let block_major = matches!(e.majmin, Some((maj, _)) if maj != 0);
    if dev_source || (block_major && KNOWN_BLOCK.contains(&t)) {
        return Kind::Block;
    }
    // A ZFS dataset names its pool, not a device: local, but not resolvable to one.
    if t == "zfs" && !e.source.is_empty() {
        return Kind::Block;
    }
    if block_major && t != "unknown" {
        // An unknown type on a real block device.
        return Kind::Block;
    }
    Kind::Virtual
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_basic() {
        let p = parse_mountinfo("27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n");
        assert!(p.bad_lines.is_empty());
        let e = &p.entries[0];
        assert_eq!(e.majmin, Some((254, 0)));
        assert_eq!(e.mount_point, "/");
        assert_eq!(e.fs_type, "ext4");
        assert_eq!(e.source, "/dev/vda");
        assert_eq!(e.options().unwrap(), vec!["rw", "relatime", "discard"]);
        assert_eq!(kind(e), Kind::Block);
        assert!(!e.read_only());
    }

    #[test]
    fn mountinfo_escapes_and_truncation() {
        let p = parse_mountinfo("30 27 179:2 / /media/my\\040disk rw - ext4 /dev/mmcblk0p2 rw\n31 27 179:3 / /x rw - ext4 /dev/mmcblk0p3 rw,disc");
        assert_eq!(p.entries[0].mount_point, "/media/my disk");
        assert!(p.truncated);
        let e = &p.entries[1];
        assert!(e.truncated);
        assert_eq!(e.super_opts, None);
        assert_eq!(e.fs_type, "ext4");
        let p = parse_mountinfo("31 27 179:3 / /x rw - ex");
        assert_eq!(p.entries[0].fs_type, "unknown");
        let p = parse_mountinfo("31 27 179:3 / /x rw,noatime");
        assert_eq!(p.bad_lines, vec![1]);
    }

    #[test]
    fn mounts_basic_and_cut() {
        let p = parse_mounts("/dev/sda1 / ext4 rw,noatime 0 0\nproc /proc proc rw 0 0\n/dev/sdb1 /mnt vf");
        assert_eq!(p.entries.len(), 3);
        assert_eq!(p.entries[2].fs_type, "unknown");
        assert_eq!(p.entries[2].mount_opts, None);
        assert_eq!(kind(&p.entries[1]), Kind::Virtual);
        assert_eq!(kind(&p.entries[2]), Kind::Block);
    }

    #[test]
    fn unescape_edges() {
        assert_eq!(unescape("a\\040b"), "a b");
        assert_eq!(unescape("a\\04"), "a\\04");
        assert_eq!(unescape("\\"), "\\");
        assert_eq!(unescape("x\\999"), "x\\999");
    }
}
