//! Why a filesystem operation failed: the file it concerned and what was wrong, or the
//! device's own error.

use flashsim::RequestError;

/// A failed file operation on a simulated filesystem ([`crate::Fs`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FsError {
    /// The file does not fit in the free space.
    #[error("file '{name}' of {wanted} bytes does not fit: {free} bytes free on the simulated filesystem")]
    NoSpace {
        /// The file (or, on F2FS, the log) that needed the space.
        name: String,
        /// Bytes it needed.
        wanted: u64,
        /// Bytes that were free.
        free: u64,
    },
    /// A create of a name that is taken.
    #[error("file '{0}' already exists")]
    Exists(String),
    /// No file of that name.
    #[error("no file '{0}'")]
    NotFound(String),
    /// A `FileId` that names no live file.
    #[error("file id {0} names no file (deleted?)")]
    BadFile(u32),
    /// A read or trim past the end of a file.
    #[error("file '{name}': {len} bytes at {off} go past its end ({size} bytes)")]
    BeyondEof {
        /// The file.
        name: String,
        /// Offset of the request in the file.
        off: u64,
        /// Bytes asked for.
        len: u64,
        /// The file's size.
        size: u64,
    },
    /// A request of 0 bytes.
    #[error("request of 0 bytes")]
    Empty,
    /// The device refused a request the filesystem sent.
    #[error("device: {0}")]
    Device(#[from] RequestError),
    /// The periodic invariant check ([`crate::Fs::set_check_every`]) found the model's
    /// bookkeeping broken: a bug in the model. `what` names the file, block, extent or segment.
    #[error(
        "filesystem model {kind}: invariant broken after device command {command} (virtual time {}.{:09} s): {what}",
        at / 1_000_000_000,
        at % 1_000_000_000
    )]
    Invariant {
        /// The model.
        kind: crate::FsKind,
        /// Host commands the device had run when the check failed.
        command: u64,
        /// The virtual time of the device's latest command, ns.
        at: flashsim::Ns,
        /// What the check found.
        what: InvariantError,
    },
}

/// A filesystem choice or mount option that cannot be read ([`crate::FsConfig::parse`],
/// [`crate::FsConfig::set_option`], a profile's `[system]` table).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A filesystem name that is not one of [`crate::FsKind::NAMES`].
    #[error("unknown filesystem '{0}' (expected one of: plain, ext4, f2fs)")]
    UnknownFilesystem(String),
    /// A mount option the models do not know.
    #[error(
        "unknown option '{0}' (expected discard, nodiscard, nobarrier, barrier[=0|1]; ext4: commit=S; f2fs: cp_interval=S, mode=adaptive|lfs, background_gc=on, active_logs=N, ipu, noipu, ipu_policy=N, min_ipu_util=N, min_fsync_blocks=N, min_hot_blocks=N, inline_data, discard_async)"
    )]
    UnknownOption(String),
    /// A known option with a value out of its range.
    #[error("option {option}={value}: {why}")]
    Value {
        /// The option's name (`commit`).
        option: &'static str,
        /// The value given.
        value: String,
        /// What it should be.
        why: &'static str,
    },
    /// An option of another filesystem (`commit=` on f2fs).
    #[error("option '{option}' does not apply to {kind}")]
    NotApplicable {
        /// The option's name.
        option: String,
        /// The filesystem it was given for.
        kind: crate::FsKind,
    },
    /// A bad option inside a `NAME,OPTION...` string, with the string.
    #[error("filesystem '{spec}': {source}")]
    InSpec {
        /// The whole string as given (`ext4,commit=0`).
        spec: String,
        /// What is wrong in it.
        source: Box<ConfigError>,
    },
    /// A profile's `[system]` table that is not a table of the known fields.
    #[error("{profile}: [system]: {message}")]
    SystemTable {
        /// The profile (its file, or its name).
        profile: String,
        /// What the TOML reader found wrong (an unknown or mistyped field, named).
        message: String,
    },
    /// A filesystem its mkfs cannot make on the device (`mkfs = "make_ext4fs"` on a device too
    /// small for make_ext4fs's metadata and journal).
    #[error("{0}")]
    Mkfs(crate::LayoutError),
    /// A filesystem that cannot be put on a zoned device: only F2FS writes zones, and only
    /// zones it can use as sections (what `mkfs.f2fs -m` or the kernel's mount refuses).
    #[error("zoned device '{device}': {why}")]
    Zoned {
        /// The device's profile.
        device: String,
        /// What does not suit F2FS (or that the filesystem is not F2FS).
        why: String,
    },
    /// A field of a profile's `[system]` table whose value is wrong.
    #[error("{profile}: [system] field '{field}': {source}")]
    SystemField {
        /// The profile (its file, or its name).
        profile: String,
        /// The field (`filesystem`, `options`).
        field: &'static str,
        /// What is wrong with its value.
        source: Box<ConfigError>,
    },
}

/// `dumpe2fs` output the ext4 layout cannot be read from
/// ([`crate::ext4_layout::Layout::from_dumpe2fs`]); each names the text (`input`) and, where
/// there is one, the line. Or a device too small for the filesystem its mkfs would make
/// ([`crate::ext4_layout::Layout::make_ext4fs`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A device too small for the filesystem: the mkfs would fail on it.
    #[error("{mkfs} on {blocks} blocks of 4 KiB ({kib} KiB): too small: {why}", kib = blocks * 4)]
    TooSmall {
        /// The mkfs (`make_ext4fs`).
        mkfs: &'static str,
        /// The device's size in 4 KiB blocks.
        blocks: u64,
        /// What does not fit, and the mkfs's own error.
        why: String,
    },
    /// A header field that is missing.
    #[error("{input}: no '{field}:' line")]
    MissingField {
        /// What the text is (`dumpe2fs /dev/loop0`).
        input: String,
        /// The field (`Block count`).
        field: &'static str,
    },
    /// A header field that is not a number.
    #[error("{input}: '{field}: {value}' is not a number")]
    NotANumber {
        /// What the text is.
        input: String,
        /// The field.
        field: &'static str,
        /// Its value.
        value: String,
    },
    /// A block size other than 4 KiB.
    #[error("{input}: block size {size}: the model needs 4096-byte blocks (mkfs.ext4 -b 4096)")]
    BlockSize {
        /// What the text is.
        input: String,
        /// The block size it gives.
        size: u64,
    },
    /// A block number that is not a number.
    #[error("{input}:{line}: '{text}' is not a block number")]
    BlockNumber {
        /// What the text is.
        input: String,
        /// The line (from 1).
        line: usize,
        /// The text that should be a block number.
        text: String,
    },
    /// A group listed without its block bitmap, inode bitmap or inode table.
    #[error("{input}:{line}: a group without its bitmaps and inode table")]
    IncompleteGroup {
        /// What the text is.
        input: String,
        /// The line where the next group (or the text) starts.
        line: usize,
    },
    /// A free range past the last block.
    #[error("{input}:{line}: free range {range} is outside the filesystem")]
    FreeRange {
        /// What the text is.
        input: String,
        /// The line (from 1).
        line: usize,
        /// The range as written (`100-99`).
        range: String,
    },
    /// Fewer or more groups than the block count makes.
    #[error("{input}: {listed} groups listed, {expected} expected from the block count")]
    GroupCount {
        /// What the text is.
        input: String,
        /// Groups in the text.
        listed: usize,
        /// Groups the block count makes.
        expected: u64,
    },
    /// An F2FS superblock or checkpoint field that is wrong
    /// ([`crate::f2fs_layout::F2fsLayout::from_image`]).
    #[error("{input}: F2FS {structure} field '{field}': {msg}")]
    F2fsField {
        /// The image read.
        input: String,
        /// `superblock` or `checkpoint`.
        structure: &'static str,
        /// The field (`magic`, `log_blocksize`).
        field: &'static str,
        /// What is wrong with it.
        msg: String,
    },
    /// Free ranges that overlap.
    #[error("{input}: free ranges overlap at block {block}")]
    Overlap {
        /// What the text is.
        input: String,
        /// Where.
        block: u64,
    },
}

/// A broken invariant of a model ([`crate::Fs::check`]): a bug in the model, described.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvariantError(pub String);

impl From<String> for InvariantError {
    fn from(what: String) -> InvariantError {
        InvariantError(what)
    }
}
