//! tracefs control: finding it, checking the block events are there, and a private tracing
//! instance ([`TraceSession`]) that is always torn down.
//!
//! A breakdown never touches the global trace buffer: it creates its own instance
//! (`instances/flashlab-breakdown-PID-N`), with its own buffers, `trace_clock` (set to `mono`, so
//! event timestamps are CLOCK_MONOTONIC like flashlab's own clock readings), event filters
//! (`dev == DEV_T`) and enables. Teardown (on drop, on error, and on SIGINT/SIGTERM through
//! [`install_signal_handlers`]) stops tracing, disables the events, resets the filters and
//! the clock, then removes the instance, which frees its buffers.

use crate::events::{decode_page, parse_format, BlockEvent, EventLayout, Kind, PageLayout};
use crate::BreakdownError;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Where tracefs is usually mounted.
pub const DEFAULT_ROOTS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// The first of `roots` where tracefs is mounted (it has `events/`); the error names every
/// place tried and why it was not usable.
pub fn find_tracefs(roots: &[&Path]) -> Result<PathBuf, BreakdownError> {
    let mut tried = Vec::new();
    for r in roots {
        match std::fs::read_dir(r) {
            Ok(_) if r.join("events").is_dir() => return Ok(r.to_path_buf()),
            Ok(_) => tried.push(format!("{} (exists, but tracefs is not mounted there)", r.display())),
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                return Err(BreakdownError::Permission { path: r.to_path_buf() })
            }
            Err(e) => tried.push(format!("{} ({e})", r.display())),
        }
    }
    Err(BreakdownError::NoTracefs { tried: tried.join("; ") })
}

/// The layouts the decoder needs, read from this kernel's format files.
#[derive(Debug, Clone)]
pub struct Layouts {
    /// The ring buffer page header's layout.
    pub page: PageLayout,
    /// The layouts of the four block events.
    pub events: Vec<EventLayout>,
}

/// Read a tracefs text file. Large reads only: some tracefs files (`header_page`) return
/// nothing after a short first read, which `read_to_string`'s small probe read would hit.
fn read(path: &Path, what: &str) -> Result<String, BreakdownError> {
    let mut f = std::fs::File::open(path).map_err(|e| BreakdownError::tracefs(path, what, e))?;
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(BreakdownError::tracefs(path, what, e)),
        }
    }
    String::from_utf8(out).map_err(|_| BreakdownError::parse(format!("{}: not UTF-8 text", path.display())))
}

/// Check that the four block events exist under `root` and read their formats and the page
/// header's; a missing event is [`BreakdownError::MissingEvent`] naming it.
pub fn load_layouts(root: &Path) -> Result<Layouts, BreakdownError> {
    let mut events = Vec::new();
    for kind in Kind::ALL {
        let dir = root.join("events/block").join(kind.event_name());
        let fpath = dir.join("format");
        if !fpath.exists() {
            if let Err(e) = std::fs::metadata(root.join("events")) {
                return Err(BreakdownError::tracefs(root.join("events"), "read", e));
            }
            return Err(BreakdownError::MissingEvent { event: kind.event_name().to_string(), path: dir });
        }
        let text = read(&fpath, "read event format")?;
        let src = fpath.display().to_string();
        events.push(EventLayout::from_format(kind, &src, &parse_format(&src, &text)?)?);
    }
    let hp = root.join("events/header_page");
    let src = hp.display().to_string();
    let page = PageLayout::from_format(&src, &parse_format(&src, &read(&hp, "read page header format")?)?)?;
    Ok(Layouts { page, events })
}

/// Instances that are live, for the signal handler.
fn live() -> &'static Mutex<Vec<PathBuf>> {
    static L: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
    L.get_or_init(|| Mutex::new(Vec::new()))
}

fn write(path: &Path, value: &str) -> Result<(), BreakdownError> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .map_err(|e| BreakdownError::tracefs(path, &format!("open to write '{value}'"), e))?;
    use std::io::Write;
    f.write_all(value.as_bytes()).map_err(|e| BreakdownError::tracefs(path, &format!("write '{value}'"), e))
}

/// Stop and dismantle the instance at `dir`: tracing off, events off, filters and clock
/// reset, then remove the directory (retried briefly while a reader still holds a file of
/// it). Returns what went wrong, if anything.
fn teardown(dir: &Path) -> Vec<String> {
    let mut errs = Vec::new();
    let mut step = |p: PathBuf, v: &str| {
        if p.exists() {
            if let Err(e) = write(&p, v) {
                errs.push(e.to_string());
            }
        }
    };
    step(dir.join("tracing_on"), "0");
    for k in Kind::ALL {
        let e = dir.join("events/block").join(k.event_name());
        step(e.join("enable"), "0");
        step(e.join("filter"), "0");
    }
    step(dir.join("trace_clock"), "local");
    let mut last = None;
    for _ in 0..50 {
        match std::fs::remove_dir(dir) {
            Ok(()) => {
                last = None;
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                last = None;
                break;
            }
            Err(e) => {
                last = Some(e);
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
    }
    if let Some(e) = last {
        errs.push(format!("{}: remove tracing instance: {e} (remove it with rmdir)", dir.display()));
    }
    live().lock().unwrap_or_else(|p| p.into_inner()).retain(|p| p != dir);
    errs
}

/// What draining the buffers found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct DrainStats {
    /// Ring buffer pages read.
    pub pages: u64,
    /// Block event records read.
    pub events: u64,
    /// Records of other events (none expected: only block events are enabled).
    pub other: u64,
    /// Pages flagged by the kernel as following lost events, plus the per-CPU `overrun` and
    /// `dropped events` counters: non-zero means the buffer was too small.
    pub lost: u64,
}

/// A private tracing instance recording the block events of one device.
#[derive(Debug)]
pub struct TraceSession {
    dir: PathBuf,
    layouts: Layouts,
    page_size: usize,
    torn_down: bool,
}

impl TraceSession {
    /// Create the instance under `root`, with `buffer_kb` KiB of buffer per CPU, clock
    /// `mono`, the four block events filtered to `dev` (kernel dev_t) and enabled; tracing is
    /// off until [`TraceSession::on`].
    pub fn start(root: &Path, layouts: Layouts, dev: u32, buffer_kb: u64) -> Result<TraceSession, BreakdownError> {
        let inst = root.join("instances");
        if !inst.is_dir() {
            return Err(BreakdownError::Bad(format!(
                "{}: missing: this kernel's tracefs has no instances (needed for a private trace buffer)",
                inst.display()
            )));
        }
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = inst.join(format!("flashlab-breakdown-{}-{n}", std::process::id()));
        live().lock().unwrap_or_else(|p| p.into_inner()).push(dir.clone());
        if let Err(e) = std::fs::create_dir(&dir) {
            live().lock().unwrap_or_else(|p| p.into_inner()).retain(|p| p != &dir);
            return Err(BreakdownError::tracefs(&dir, "create tracing instance", e));
        }
        let mut s = TraceSession { dir, layouts, page_size: 4096, torn_down: false };
        // On any error below, dropping `s` tears the instance down.
        let d = s.dir.clone();
        write(&d.join("tracing_on"), "0")?;
        write(&d.join("trace_clock"), "mono")?;
        let clock = read(&d.join("trace_clock"), "read")?;
        if !clock.contains("[mono]") {
            return Err(BreakdownError::Bad(format!("{}: the clock 'mono' could not be selected", d.display())));
        }
        write(&d.join("buffer_size_kb"), &buffer_kb.to_string())?;
        if d.join("options/overwrite").exists() {
            write(&d.join("options/overwrite"), "0")?;
        }
        if let Ok(kb) = read(&d.join("buffer_subbuf_size_kb"), "read") {
            if let Ok(kb) = kb.trim().parse::<usize>() {
                s.page_size = kb.max(4) * 1024;
            }
        }
        for k in Kind::ALL {
            let e = d.join("events/block").join(k.event_name());
            write(&e.join("filter"), &format!("dev == {dev}"))?;
            write(&e.join("enable"), "1")?;
        }
        Ok(s)
    }

    /// The tracing instance's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Start recording.
    pub fn on(&self) -> Result<(), BreakdownError> {
        write(&self.dir.join("tracing_on"), "1")
    }

    /// Stop recording (the buffers keep what was recorded).
    pub fn off(&self) -> Result<(), BreakdownError> {
        write(&self.dir.join("tracing_on"), "0")
    }

    /// Read and decode everything in the per-CPU buffers (consuming it), appending the block
    /// events to `out`.
    pub fn drain(&self, out: &mut Vec<BlockEvent>) -> Result<DrainStats, BreakdownError> {
        let mut st = DrainStats::default();
        let per_cpu = self.dir.join("per_cpu");
        let rd = std::fs::read_dir(&per_cpu).map_err(|e| BreakdownError::tracefs(&per_cpu, "list CPUs", e))?;
        let mut cpus: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        cpus.sort();
        let mut page = vec![0u8; self.page_size];
        for cpu in cpus {
            let raw = cpu.join("trace_pipe_raw");
            let mut f = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&raw)
                .map_err(|e| BreakdownError::tracefs(&raw, "open", e))?;
            let mut n = 0u64;
            loop {
                let got = match f.read(&mut page) {
                    Ok(0) => break,
                    Ok(g) => g,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(BreakdownError::tracefs(&raw, "read", e)),
                };
                let what = format!("{} page {n}", raw.display());
                let ps = decode_page(&page[..got], &self.layouts.page, &self.layouts.events, &what, out)?;
                st.pages += 1;
                st.events += ps.events as u64;
                st.other += ps.other as u64;
                st.lost += u64::from(ps.missed);
                n += 1;
            }
            if let Ok(stats) = read(&cpu.join("stats"), "read") {
                st.lost += lost_from_stats(&stats);
            }
        }
        Ok(st)
    }

    /// Tear down now, reporting what failed (drop does the same, printing failures).
    pub fn close(mut self) -> Result<(), BreakdownError> {
        self.torn_down = true;
        let errs = teardown(&self.dir);
        if errs.is_empty() {
            Ok(())
        } else {
            Err(BreakdownError::Bad(format!("tracing cleanup: {}", errs.join("; "))))
        }
    }
}

impl Drop for TraceSession {
    fn drop(&mut self) {
        if !self.torn_down {
            for e in teardown(&self.dir) {
                eprintln!("flashlab: tracing cleanup: {e}");
            }
        }
    }
}

/// `overrun` + `dropped events` of a per-CPU `stats` file.
pub fn lost_from_stats(text: &str) -> u64 {
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .filter(|(k, _)| matches!(k.trim(), "overrun" | "dropped events"))
        .filter_map(|(_, v)| v.trim().parse::<u64>().ok())
        .sum()
}

/// Install flashlab-real's SIGINT/SIGTERM handler (it removes the files flashlab created and
/// exits with 128 + the signal number) with a first step that tears down every live tracing
/// instance.
pub fn install_signal_handlers() -> std::io::Result<()> {
    flashlab_real::cleanup::install_signal_handlers_with(|| {
        let dirs: Vec<PathBuf> = live().lock().unwrap_or_else(|p| p.into_inner()).clone();
        for d in &dirs {
            for e in teardown(d) {
                eprintln!("flashlab: tracing cleanup: {e}");
            }
        }
        eprintln!("flashlab: tracing stopped and removed ({} instance(s))", dirs.len());
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonexistent_tracefs_is_named() {
        let e = find_tracefs(&[Path::new("/nonexistent/flashlab/tracing")]).unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, BreakdownError::NoTracefs { .. }));
        assert!(m.contains("tracefs not found") && m.contains("/nonexistent/flashlab/tracing"), "{m}");
        assert!(m.contains("mount -t tracefs"), "{m}");
    }

    #[test]
    fn unmounted_tracefs_dir_is_named() {
        let d = std::env::temp_dir().join(format!("flashlab-bd-empty-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let m = find_tracefs(&[d.as_path()]).unwrap_err().to_string();
        std::fs::remove_dir_all(&d).unwrap();
        assert!(m.contains("not mounted"), "{m}");
    }

    #[test]
    fn missing_event_is_named() {
        let d = std::env::temp_dir().join(format!("flashlab-bd-noev-{}", std::process::id()));
        std::fs::create_dir_all(d.join("events/block/block_bio_queue")).unwrap();
        let e = load_layouts(&d).unwrap_err();
        std::fs::remove_dir_all(&d).unwrap();
        let m = e.to_string();
        assert!(matches!(e, BreakdownError::MissingEvent { .. }), "{m}");
        assert!(m.contains("block_bio_queue") && m.contains("missing"), "{m}");
    }

    #[test]
    fn permission_error_says_root() {
        let e = BreakdownError::tracefs(
            "/sys/kernel/tracing/instances",
            "create",
            std::io::Error::from_raw_os_error(libc::EACCES),
        );
        let m = e.to_string();
        assert!(m.contains("permission denied") && m.contains("root") && m.contains("/sys/kernel/tracing"), "{m}");
    }

    #[test]
    fn stats_counts_losses() {
        let t = "entries: 0\noverrun: 3\ncommit overrun: 0\nbytes: 0\ndropped events: 2\nread events: 10\n";
        assert_eq!(lost_from_stats(t), 5);
    }
}
