//! What the kernel's F2FS says it did, from its own tracepoints (`events/f2fs`), recorded in
//! the same private tracing instance as the block events and read back as text: which log
//! each written block went to (`f2fs_submit_page_write`/`_bio`: hot, warm or cold data or
//! node, and in-place updates), which victims were picked and how (`f2fs_get_victim`: LFS or
//! SSR allocation, foreground or background cleaning), checkpoints and why, discards, and why
//! each fsync did or did not checkpoint (`f2fs_sync_file_exit`).

use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The F2FS events enabled (each filtered to the device).
const EVENTS: [&str; 8] = [
    "f2fs_submit_page_write",
    "f2fs_submit_page_bio",
    "f2fs_get_victim",
    "f2fs_write_checkpoint",
    "f2fs_issue_discard",
    "f2fs_sync_file_exit",
    "f2fs_gc_begin",
    "f2fs_issue_flush",
];

/// The log a block was written to, as F2FS's tracepoints name it (`temp_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Log {
    /// Hot data: small writeback batches, hot extensions (`db`), dentry blocks.
    HotData,
    /// Warm data: other file data.
    WarmData,
    /// Cold data: blocks moved by cleaning, cold extensions.
    ColdData,
    /// Hot nodes: directories' inodes and direct nodes.
    HotNode,
    /// Warm nodes: files' inodes and direct nodes.
    WarmNode,
    /// Cold nodes: indirect nodes.
    ColdNode,
    /// Checkpoint, SIT, NAT, SSA pages (META).
    Meta,
}

impl Log {
    /// All logs, in the order the report lists them.
    pub const ALL: [Log; 7] =
        [Log::HotData, Log::WarmData, Log::ColdData, Log::HotNode, Log::WarmNode, Log::ColdNode, Log::Meta];

    /// `HOT_DATA` and the like (the tracepoints' `type = ` value).
    fn parse(s: &str) -> Option<Log> {
        let (temp, ty) = s.split_once('_')?;
        Some(match (temp, ty) {
            ("HOT", "DATA") => Log::HotData,
            ("WARM", "DATA") => Log::WarmData,
            ("COLD", "DATA") => Log::ColdData,
            ("HOT", "NODE") => Log::HotNode,
            ("WARM", "NODE") => Log::WarmNode,
            ("COLD", "NODE") => Log::ColdNode,
            (_, t) if t.starts_with("META") => Log::Meta,
            // IN-PLACE / OUT-OF-PLACE writes of data pages (IPU path, the old naming).
            (_, "IN-PLACE" | "OUT-OF-PLACE") => Log::WarmData,
            _ => return None,
        })
    }

    /// The report's name.
    pub fn name(self) -> &'static str {
        match self {
            Log::HotData => "hot-data",
            Log::WarmData => "warm-data",
            Log::ColdData => "cold-data",
            Log::HotNode => "hot-node",
            Log::WarmNode => "warm-node",
            Log::ColdNode => "cold-node",
            Log::Meta => "meta",
        }
    }
}

/// A victim the cleaner picked: allocation mode (`LFS`/`SSR`/`AT_SSR`), `Foreground` or
/// `Background`, policy, segment.
pub type Victim = (String, String, String, u32);

/// The F2FS events of one run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct F2fsEvents {
    /// Each written block (filesystem block address) and its log, in order.
    pub pages: Vec<(u32, Log)>,
    /// Blocks written in place (old address = new address).
    pub in_place: u64,
    /// Victims picked.
    pub victims: Vec<Victim>,
    /// Checkpoints finished, with their reason.
    pub checkpoints: Vec<String>,
    /// Discards issued: (first block, blocks).
    pub discards: Vec<(u64, u64)>,
    /// Each fsync's checkpoint reason (`no needed` when it wrote nodes only).
    pub fsyncs: Vec<String>,
    /// Cleaning passes started (`Foreground`/`Background`).
    pub gc_runs: Vec<String>,
    /// Flushes F2FS issued (or skipped under nobarrier).
    pub flushes: u64,
}

/// Enable the F2FS events, filtered to `dev` (the kernel's dev_t), in the tracing instance
/// `dir` (the block session's own).
pub fn enable(dir: &Path, dev: u32) -> Result<(), Error> {
    for e in EVENTS {
        let d = dir.join("events/f2fs").join(e);
        let w = |f: &str, v: &str| std::fs::write(d.join(f), v).map_err(Error::io(d.join(f)));
        w("filter", &format!("dev == {dev}")).map_err(|e| Error::Missing {
            capability: "f2fs",
            msg: format!("{e}: the F2FS tracepoints are missing (modprobe f2fs)"),
        })?;
        w("enable", "1")?;
    }
    Ok(())
}

/// `name = value` from a tracepoint line's fields.
fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("{name} = ");
    let at = line.find(&key)? + key.len();
    let rest = &line[at..];
    let end = rest.find(", ").unwrap_or(rest.len());
    Some(rest[..end].trim())
}

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

/// Read the instance's `trace` text (not consuming it) into events.
pub fn read(dir: &Path) -> Result<F2fsEvents, Error> {
    let p = dir.join("trace");
    let text = std::fs::read_to_string(&p).map_err(Error::io(&p))?;
    Ok(parse(&text))
}

/// Parse `trace` text; lines of other events are skipped.
pub fn parse(text: &str) -> F2fsEvents {
    let mut ev = F2fsEvents::default();
    for line in text.lines() {
        let Some((_, rest)) = line.split_once(": f2fs_") else { continue };
        let Some((name, body)) = rest.split_once(": ") else { continue };
        match name {
            "submit_page_write" | "submit_page_bio" => {
                if !field(body, "rw").is_some_and(|r| r.starts_with("WRITE")) {
                    continue;
                }
                let (Some(old), Some(new), Some(ty)) =
                    (field(body, "oldaddr").and_then(hex), field(body, "newaddr").and_then(hex), field(body, "type"))
                else {
                    continue;
                };
                if let Some(log) = Log::parse(ty) {
                    ev.pages.push((new as u32, log));
                    if old == new && matches!(log, Log::HotData | Log::WarmData | Log::ColdData) {
                        ev.in_place += 1;
                    }
                }
            }
            "get_victim" => {
                // policy = (SSR, Foreground GC, Greedy), victim = 12, ...
                let policy = body.split("policy = (").nth(1).and_then(|p| p.split(')').next()).unwrap_or("");
                let mut parts = policy.split(", ");
                let alloc = parts.next().unwrap_or("").to_string();
                let gc = parts.next().unwrap_or("").to_string();
                let mode = parts.next().unwrap_or("").to_string();
                let victim = field(body, "victim").and_then(|v| v.parse().ok()).unwrap_or(u32::MAX);
                ev.victims.push((alloc, gc, mode, victim));
            }
            "write_checkpoint" if body.contains("finish checkpoint") => {
                let why = body.split("checkpoint for ").nth(1).and_then(|s| s.split(',').next()).unwrap_or("");
                ev.checkpoints.push(why.trim().to_string());
            }
            "issue_discard" => {
                if let (Some(s), Some(l)) = (field(body, "blkstart").and_then(hex), field(body, "blklen").and_then(hex))
                {
                    ev.discards.push((s, l));
                }
            }
            "sync_file_exit" => {
                let why = body.split("cp_reason: ").nth(1).and_then(|s| s.split(',').next()).unwrap_or("");
                ev.fsyncs.push(why.trim().to_string());
            }
            "gc_begin" => ev.gc_runs.push(field(body, "gc_type").unwrap_or("").to_string()),
            "issue_flush" => ev.flushes += 1,
            _ => {}
        }
    }
    ev
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracepoint_lines_are_read() {
        let t = "\
 flashlab-1 [000] ..... 1.0: f2fs_submit_page_write: dev = (7,0), ino = 4, page_index = 0x0, oldaddr = 0xffffffff, newaddr = 0x1200, rw = WRITE(S), type = WARM_DATA
 flashlab-1 [000] ..... 1.1: f2fs_submit_page_write: dev = (7,0), ino = 4, page_index = 0x0, oldaddr = 0x1200, newaddr = 0x1200, rw = WRITE(S), type = HOT_DATA
 flashlab-1 [000] ..... 1.2: f2fs_submit_page_bio: dev = (7,0), ino = 2, page_index = 0x0, oldaddr = 0x0, newaddr = 0x200, rw = READ(), type = META
 flashlab-1 [000] ..... 1.3: f2fs_get_victim: dev = (7,0), type = No TYPE, policy = (SSR, Foreground GC, Greedy), victim = 12, cost = 3, ofs_unit = 1, pre_victim_secno = -1, prefree = 0, free = 5
 flashlab-1 [000] ..... 1.4: f2fs_write_checkpoint: dev = (7,0), checkpoint for Sync, state = finish checkpoint
 flashlab-1 [000] ..... 1.5: f2fs_issue_discard: dev = (7,0), blkstart = 0x1000, blklen = 0x200
 flashlab-1 [000] ..... 1.6: f2fs_sync_file_exit: dev = (7,0), ino = 4, cp_reason: no needed, datasync = 0, ret = 0
 flashlab-1 [000] ..... 1.7: block_rq_issue: 7,0 WS 4096 () 8 + 8 [x]
";
        let e = parse(t);
        assert_eq!(e.pages, vec![(0x1200, Log::WarmData), (0x1200, Log::HotData)]);
        assert_eq!(e.in_place, 1);
        assert_eq!(e.victims, vec![("SSR".into(), "Foreground GC".into(), "Greedy".into(), 12)]);
        assert_eq!(e.checkpoints, vec!["Sync".to_string()]);
        assert_eq!(e.discards, vec![(0x1000, 0x200)]);
        assert_eq!(e.fsyncs, vec!["no needed".to_string()]);
    }
}
