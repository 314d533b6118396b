//! Block-layer trace events: the event format files (`events/block/NAME/format`,
//! `events/header_page`) and the per-CPU binary ring-buffer pages read from
//! `per_cpu/cpuN/trace_pipe_raw`, decoded into [`BlockEvent`]s with nanosecond timestamps.
//!
//! The binary buffers are used rather than the text of `trace_pipe` because the text prints
//! timestamps in microseconds, too coarse for phases of a few microseconds. Field offsets come
//! from this kernel's format files, never from constants.
//!
//! Page layout (`header_page`): a u64 timestamp, a `commit` word (bytes of data, flag bits on
//! top: bit 31 = events were lost before this page), then the data. Each record starts with a
//! 32-bit word: `type_len` (low 5 bits) and `time_delta` (high 27 bits). `type_len` 1..=28: a
//! record of `type_len * 4` bytes follows; 0: the record's length is the next u32 (which counts
//! itself); 29: padding; 30: a time extension (`delta + (next u32 << 27)`); 31: an absolute
//! timestamp.

use crate::error::FieldError;
use crate::BreakdownError;

/// Which block tracepoint an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `block_bio_queue`: a bio enters the block layer (btt's Q).
    Queue,
    /// `block_rq_insert`: a request goes into the scheduler / software queue (I).
    Insert,
    /// `block_rq_issue`: the request is handed to the driver (D).
    Issue,
    /// `block_rq_complete`: the driver completed it (C).
    Complete,
}

impl Kind {
    /// The four events, in the order a request meets them.
    pub const ALL: [Kind; 4] = [Kind::Queue, Kind::Insert, Kind::Issue, Kind::Complete];

    /// The tracepoint's name under `events/block/`.
    pub fn event_name(self) -> &'static str {
        match self {
            Kind::Queue => "block_bio_queue",
            Kind::Insert => "block_rq_insert",
            Kind::Issue => "block_rq_issue",
            Kind::Complete => "block_rq_complete",
        }
    }

    /// btt's letter.
    pub fn letter(self) -> char {
        match self {
            Kind::Queue => 'Q',
            Kind::Insert => 'I',
            Kind::Issue => 'D',
            Kind::Complete => 'C',
        }
    }
}

/// One block-layer event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEvent {
    /// Which event.
    pub kind: Kind,
    /// Trace clock, ns (CLOCK_MONOTONIC with `trace_clock` = `mono`).
    pub ts: u64,
    /// The kernel's dev_t: major << 20 | minor.
    pub dev: u32,
    /// First sector (512 bytes) of the request.
    pub sector: u64,
    /// Length in sectors (512 bytes).
    pub nr_sector: u32,
    /// `R`, `W`, `D` (discard), `F` (flush), `N` (none) and modifiers, as blktrace prints them.
    pub write: bool,
    /// The operation is a read (`R`).
    pub read: bool,
    /// The other `rwbs` letters as [`flags`] bits (preflush, FUA, discard, flush, sync, meta).
    pub flags: u8,
}

/// Bits of [`BlockEvent::flags`], decoded from the `rwbs` string as `blk_fill_rwbs` writes it:
/// an optional `F` (PREFLUSH), the operation (`W`, `R`, `D` discard, `F` flush, `N`), then
/// `F` (FUA), `A`, `S` (sync), `M` (metadata).
pub mod flags {
    /// `F` before the operation: a cache flush before the write.
    pub const PREFLUSH: u8 = 1;
    /// `F` after the operation: force unit access.
    pub const FUA: u8 = 2;
    /// The operation is a discard (`D`).
    pub const DISCARD: u8 = 4;
    /// The request is a cache flush (operation `F`).
    pub const FLUSH: u8 = 8;
    /// `S`: synchronous.
    pub const SYNC: u8 = 16;
    /// `M`: metadata.
    pub const META: u8 = 32;

    /// The bits of one `rwbs` string.
    pub fn from_rwbs(rwbs: &[u8]) -> u8 {
        let mut f = 0;
        let mut rest = rwbs;
        // A leading F is PREFLUSH when another operation letter follows it.
        if rest.len() >= 2 && rest[0] == b'F' && matches!(rest[1], b'W' | b'R' | b'D' | b'F' | b'N') {
            f |= PREFLUSH;
            rest = &rest[1..];
        }
        match rest.first() {
            Some(b'F') => f |= FLUSH,
            Some(b'D') => f |= DISCARD,
            _ => {}
        }
        for &c in rest.iter().skip(1) {
            match c {
                b'F' => f |= FUA,
                b'S' => f |= SYNC,
                b'M' => f |= META,
                _ => {}
            }
        }
        f
    }
}

/// The kernel's dev_t encoding in trace events.
pub fn kernel_dev(major: u32, minor: u32) -> u32 {
    (major << 20) | (minor & ((1 << 20) - 1))
}

/// One `field:` line of a format file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The field's name, e.g. `sector`.
    pub name: String,
    /// Byte offset in the event's record.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

/// A parsed format file: the event id and its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    /// The event's name, e.g. `block_rq_issue`.
    pub name: String,
    /// The event's id (`ID:` line), which records carry.
    pub id: Option<u16>,
    /// The fields, in file order.
    pub fields: Vec<Field>,
}

impl Format {
    /// The field called `name`, if the format has one.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Parse one `field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;` line (leading whitespace
/// allowed). `Ok(None)` for lines that are not field lines; `Err` names what is wrong with a
/// field line that does not parse.
pub fn parse_field_line(line: &str) -> Result<Option<Field>, FieldError> {
    let l = line.trim();
    let Some(rest) = l.strip_prefix("field:") else { return Ok(None) };
    let parts: Vec<&str> = rest.split(';').map(str::trim).collect();
    let decl = parts.first().copied().unwrap_or("").trim();
    // The name is the last word of the declaration, without an array suffix.
    let last = decl.split_whitespace().last().ok_or(FieldError::EmptyDeclaration)?;
    let name = last.split('[').next().unwrap_or("").trim_start_matches('*');
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(FieldError::NoName(decl.to_string()));
    }
    let mut offset = None;
    let mut size = None;
    for p in &parts[1..] {
        if let Some((k, v)) = p.split_once(':') {
            let parse = |v: &str| {
                v.trim().parse::<usize>().map_err(|_| FieldError::NotANumber {
                    field: name.to_string(),
                    key: k.to_string(),
                    value: v.to_string(),
                })
            };
            match k.trim() {
                "offset" => offset = Some(parse(v)?),
                "size" => size = Some(parse(v)?),
                _ => {}
            }
        }
    }
    match (offset, size) {
        (Some(offset), Some(size)) => Ok(Some(Field { name: name.to_string(), offset, size })),
        (None, _) => Err(FieldError::Incomplete { field: name.to_string(), missing: "offset" }),
        (_, None) => Err(FieldError::Incomplete { field: name.to_string(), missing: "size" }),
    }
}

/// Parse a format file's text; `source` names it in errors (with the line number).
pub fn parse_format(source: &str, text: &str) -> Result<Format, BreakdownError> {
    let mut f = Format { name: String::new(), id: None, fields: Vec::new() };
    for (i, line) in text.lines().enumerate() {
        let bad = |m: String| BreakdownError::parse(format!("{source}:{}: {m}", i + 1));
        let t = line.trim();
        if let Some(n) = t.strip_prefix("name:") {
            f.name = n.trim().to_string();
        } else if let Some(id) = t.strip_prefix("ID:") {
            f.id = Some(id.trim().parse().map_err(|_| bad(format!("ID '{}' is not a number", id.trim())))?);
        } else if let Some(field) = parse_field_line(t).map_err(|e| bad(e.to_string()))? {
            f.fields.push(field);
        }
    }
    Ok(f)
}

/// Where the fields the breakdown reads live in one event's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventLayout {
    /// Which event.
    pub kind: Kind,
    /// The event's id, which records carry.
    pub id: u16,
    dev: (usize, usize),
    sector: (usize, usize),
    nr_sector: (usize, usize),
    rwbs: (usize, usize),
}

impl EventLayout {
    /// The layout of `kind` from its parsed format; `source` names the file in errors.
    pub fn from_format(kind: Kind, source: &str, f: &Format) -> Result<EventLayout, BreakdownError> {
        let id = f.id.ok_or_else(|| BreakdownError::parse(format!("{source}: no 'ID:' line")))?;
        let get = |name: &str, sizes: &[usize]| -> Result<(usize, usize), BreakdownError> {
            let fl = f.field(name).ok_or_else(|| BreakdownError::parse(format!("{source}: no field '{name}'")))?;
            if !sizes.is_empty() && !sizes.contains(&fl.size) {
                return Err(BreakdownError::parse(format!("{source}: field '{name}' has size {}", fl.size)));
            }
            Ok((fl.offset, fl.size))
        };
        Ok(EventLayout {
            kind,
            id,
            dev: get("dev", &[4, 8])?,
            sector: get("sector", &[4, 8])?,
            nr_sector: get("nr_sector", &[4])?,
            rwbs: get("rwbs", &[])?,
        })
    }
}

/// The page header's layout, from `events/header_page`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLayout {
    /// Offset of the page header's `commit` field (bytes of data in the page), bytes.
    pub commit_offset: usize,
    /// Size of the `commit` field, bytes.
    pub commit_size: usize,
    /// Offset of the first record in a page, bytes.
    pub data_offset: usize,
}

impl PageLayout {
    /// The layout from the parsed `header_page`; `source` names the file in errors.
    pub fn from_format(source: &str, f: &Format) -> Result<PageLayout, BreakdownError> {
        let get = |n: &str| f.field(n).ok_or_else(|| BreakdownError::parse(format!("{source}: no field '{n}'")));
        let ts = get("timestamp")?;
        let commit = get("commit")?;
        let data = get("data")?;
        if ts.offset != 0 || ts.size != 8 || !(commit.size == 4 || commit.size == 8) {
            return Err(BreakdownError::parse(format!("{source}: unexpected page header layout")));
        }
        Ok(PageLayout { commit_offset: commit.offset, commit_size: commit.size, data_offset: data.offset })
    }
}

fn rd(b: &[u8], off: usize, size: usize) -> Option<u64> {
    let s = b.get(off..off + size)?;
    Some(match size {
        1 => u64::from(s[0]),
        2 => u64::from(u16::from_le_bytes([s[0], s[1]])),
        4 => u64::from(u32::from_le_bytes(s.try_into().ok()?)),
        8 => u64::from_le_bytes(s.try_into().ok()?),
        _ => return None,
    })
}

/// What a page held.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PageStats {
    /// Block events decoded.
    pub events: usize,
    /// Records of other event types (ignored).
    pub other: usize,
    /// The kernel lost events before this page (buffer full).
    pub missed: bool,
}

/// Decode one ring-buffer page, appending the block events of `layouts` to `out`. `what`
/// names the page (CPU, page number) in errors; a truncated or inconsistent page is an error
/// naming the byte offset.
pub fn decode_page(
    page: &[u8],
    pl: &PageLayout,
    layouts: &[EventLayout],
    what: &str,
    out: &mut Vec<BlockEvent>,
) -> Result<PageStats, BreakdownError> {
    let bad = |off: usize, m: &str| BreakdownError::parse(format!("{what}: byte {off}: {m}"));
    let mut st = PageStats::default();
    let mut ts = rd(page, 0, 8).ok_or_else(|| bad(0, "page shorter than its header"))?;
    let commit = rd(page, pl.commit_offset, pl.commit_size).ok_or_else(|| bad(pl.commit_offset, "no commit word"))?;
    st.missed = commit & (1 << 31) != 0;
    let len = (commit & ((1 << 27) - 1)) as usize;
    let end = pl.data_offset + len;
    if end > page.len() {
        return Err(bad(pl.commit_offset, &format!("commit says {len} bytes of data, the page has {}", page.len())));
    }
    let mut pos = pl.data_offset;
    while pos + 4 <= end {
        let hdr = rd(page, pos, 4).unwrap_or(0) as u32;
        let type_len = hdr & 0x1f;
        let delta = u64::from(hdr >> 5);
        let array0 = || {
            if pos + 8 > end {
                return Err(bad(pos, "record header runs past the end of the data"));
            }
            rd(page, pos + 4, 4).ok_or_else(|| bad(pos, "record header runs past the end of the data"))
        };
        match type_len {
            29 => {
                // Padding: zero delta means the rest of the page is empty.
                if delta == 0 {
                    break;
                }
                pos += 4 + array0()? as usize;
            }
            30 => {
                ts += delta + (array0()? << 27);
                pos += 8;
            }
            31 => {
                let abs = delta | (array0()? << 27);
                ts = (ts & !((1u64 << 59) - 1)) | abs;
                pos += 8;
            }
            _ => {
                let (data, dlen) = if type_len == 0 {
                    let l = array0()? as usize;
                    if l < 4 {
                        return Err(bad(pos, &format!("record length {l}")));
                    }
                    (pos + 8, (l - 4 + 3) & !3)
                } else {
                    (pos + 4, type_len as usize * 4)
                };
                if data + dlen > end {
                    return Err(bad(pos, &format!("record of {dlen} bytes runs past the end of the data ({end})")));
                }
                ts += delta;
                let rec = &page[data..data + dlen];
                let id = rd(rec, 0, 2).ok_or_else(|| bad(pos, "record too short for its type"))? as u16;
                if let Some(l) = layouts.iter().find(|l| l.id == id) {
                    out.push(decode_record(rec, l, ts).ok_or_else(|| bad(pos, "record too short for its fields"))?);
                    st.events += 1;
                } else {
                    st.other += 1;
                }
                pos = data + dlen;
            }
        }
    }
    Ok(st)
}

fn decode_record(rec: &[u8], l: &EventLayout, ts: u64) -> Option<BlockEvent> {
    let rwbs = rec.get(l.rwbs.0..l.rwbs.0 + l.rwbs.1)?;
    let rwbs = &rwbs[..rwbs.iter().position(|&c| c == 0).unwrap_or(rwbs.len())];
    Some(BlockEvent {
        kind: l.kind,
        ts,
        dev: rd(rec, l.dev.0, l.dev.1)? as u32,
        sector: rd(rec, l.sector.0, l.sector.1)?,
        nr_sector: rd(rec, l.nr_sector.0, l.nr_sector.1)? as u32,
        write: rwbs.contains(&b'W'),
        read: rwbs.contains(&b'R'),
        flags: flags::from_rwbs(rwbs),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rwbs_flags() {
        use super::flags::*;
        assert_eq!(from_rwbs(b"FF"), PREFLUSH | FLUSH);
        assert_eq!(from_rwbs(b"FWFSM"), PREFLUSH | FUA | SYNC | META);
        assert_eq!(from_rwbs(b"WS"), SYNC);
        assert_eq!(from_rwbs(b"D"), DISCARD);
        assert_eq!(from_rwbs(b"F"), FLUSH);
        assert_eq!(from_rwbs(b"RAM"), META);
    }

    /// `events/block/block_rq_issue/format` as this kernel (6.18) prints it.
    const ISSUE_FORMAT: &str = "name: block_rq_issue
ID: 2104
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;
\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;
\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;
\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;
\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;
\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;
\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;
\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;

print fmt: \"%d,%d %s %u (%s) %llu + %u %s,%u,%u [%s]\", ((unsigned int) ((REC->dev) >> 20))
";

    /// `events/block/block_bio_queue/format` (the fields the decoder reads).
    const QUEUE_FORMAT: &str = "name: block_bio_queue
ID: 2097
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;
\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;
\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;
\tfield:char rwbs[10];\toffset:28;\tsize:10;\tsigned:0;
\tfield:char comm[16];\toffset:38;\tsize:16;\tsigned:0;
";

    const HEADER_PAGE: &str = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;
";

    fn layouts() -> (PageLayout, Vec<EventLayout>) {
        let pl = PageLayout::from_format("header_page", &parse_format("header_page", HEADER_PAGE).unwrap()).unwrap();
        let q = EventLayout::from_format(Kind::Queue, "q", &parse_format("q", QUEUE_FORMAT).unwrap()).unwrap();
        let d = EventLayout::from_format(Kind::Issue, "d", &parse_format("d", ISSUE_FORMAT).unwrap()).unwrap();
        (pl, vec![q, d])
    }

    /// A record of event `id` with the given fields at the issue/queue layouts' offsets.
    fn record(id: u16, l: &EventLayout, dev: u32, sector: u64, nr: u32, rwbs: &[u8], size: usize) -> Vec<u8> {
        let mut r = vec![0u8; size];
        r[0..2].copy_from_slice(&id.to_le_bytes());
        r[l.dev.0..l.dev.0 + 4].copy_from_slice(&dev.to_le_bytes());
        r[l.sector.0..l.sector.0 + 8].copy_from_slice(&sector.to_le_bytes());
        r[l.nr_sector.0..l.nr_sector.0 + 4].copy_from_slice(&nr.to_le_bytes());
        r[l.rwbs.0..l.rwbs.0 + rwbs.len()].copy_from_slice(rwbs);
        r
    }

    struct PageBuilder {
        data: Vec<u8>,
    }

    impl PageBuilder {
        fn new() -> Self {
            PageBuilder { data: Vec::new() }
        }
        fn header(&mut self, type_len: u32, delta: u32) {
            self.data.extend_from_slice(&((delta << 5) | type_len).to_le_bytes());
        }
        fn event(&mut self, delta: u32, rec: &[u8]) {
            assert_eq!(rec.len() % 4, 0);
            if rec.len() <= 28 * 4 {
                self.header((rec.len() / 4) as u32, delta);
            } else {
                self.header(0, delta);
                self.data.extend_from_slice(&(rec.len() as u32 + 4).to_le_bytes());
            }
            self.data.extend_from_slice(rec);
        }
        fn extend(&mut self, delta: u64) {
            self.header(30, (delta & ((1 << 27) - 1)) as u32);
            self.data.extend_from_slice(&((delta >> 27) as u32).to_le_bytes());
        }
        fn page(&self, ts: u64, missed: bool) -> Vec<u8> {
            let mut p = vec![0u8; 4096];
            p[0..8].copy_from_slice(&ts.to_le_bytes());
            let commit = self.data.len() as u64 | if missed { 1 << 31 } else { 0 };
            p[8..16].copy_from_slice(&commit.to_le_bytes());
            p[16..16 + self.data.len()].copy_from_slice(&self.data);
            p
        }
    }

    #[test]
    fn parses_this_kernels_format() {
        let f = parse_format("block_rq_issue/format", ISSUE_FORMAT).unwrap();
        assert_eq!(f.name, "block_rq_issue");
        assert_eq!(f.id, Some(2104));
        assert_eq!(f.field("rwbs"), Some(&Field { name: "rwbs".into(), offset: 34, size: 10 }));
        assert_eq!(f.field("cmd"), Some(&Field { name: "cmd".into(), offset: 60, size: 4 }));
        assert_eq!(f.field("sector").unwrap().offset, 16);
        let pl = PageLayout::from_format("hp", &parse_format("hp", HEADER_PAGE).unwrap()).unwrap();
        assert_eq!(pl, PageLayout { commit_offset: 8, commit_size: 8, data_offset: 16 });
    }

    #[test]
    fn malformed_format_lines_are_named() {
        assert_eq!(parse_field_line("print fmt: \"%d\"").unwrap(), None);
        assert_eq!(parse_field_line("").unwrap(), None);
        let e = parse_field_line("\tfield:dev_t dev;\toffset:x8;\tsize:4;").unwrap_err().to_string();
        assert!(e.contains("dev") && e.contains("offset") && e.contains("x8"), "{e}");
        let e = parse_field_line("\tfield:dev_t dev;\tsize:4;").unwrap_err().to_string();
        assert!(e.contains("no offset"), "{e}");
        let e = parse_field_line("\tfield:;\toffset:0;\tsize:4;").unwrap_err().to_string();
        assert!(e.contains("declaration"), "{e}");
        // In a file: the error names the file and line.
        let bad = ISSUE_FORMAT.replace("offset:16;\tsize:8", "offset:16;\tsize:eight");
        let e = parse_format("issue/format", &bad).unwrap_err().to_string();
        assert!(e.starts_with("issue/format:10:") && e.contains("size 'eight'"), "{e}");
        let e = parse_format("issue/format", &ISSUE_FORMAT.replace("ID: 2104", "ID: abc")).unwrap_err().to_string();
        assert!(e.contains("issue/format:2") && e.contains("ID 'abc'"), "{e}");
        // A format without a field the decoder needs.
        let f = parse_format(
            "q",
            &QUEUE_FORMAT.replace("\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n", ""),
        )
        .unwrap();
        let e = EventLayout::from_format(Kind::Queue, "q/format", &f).unwrap_err().to_string();
        assert!(e.contains("q/format") && e.contains("nr_sector"), "{e}");
    }

    #[test]
    fn decodes_a_page() {
        let (pl, ls) = layouts();
        let dev = kernel_dev(7, 0);
        let mut b = PageBuilder::new();
        b.event(0, &record(2097, &ls[0], dev, 800, 8, b"RS", 56));
        b.event(1_500, &record(2104, &ls[1], dev, 800, 8, b"RS", 64));
        // A record of some other event (ignored), then a time extension past 2^27 ns.
        b.event(100, &[0x11, 0x00, 0, 0, 0, 0, 0, 0]);
        b.extend(1 << 28);
        // A large record (type_len 0) and a write.
        b.event(7, &record(2104, &ls[1], dev, 4096, 2048, b"WS", 124));
        b.header(29, 0); // padding: the rest of the page is empty
        let page = b.page(1_000_000, false);
        let mut out = Vec::new();
        let st = decode_page(&page, &pl, &ls, "cpu0 page 0", &mut out).unwrap();
        assert_eq!(st, PageStats { events: 3, other: 1, missed: false });
        assert_eq!(
            out[0],
            BlockEvent {
                kind: Kind::Queue,
                ts: 1_000_000,
                dev,
                sector: 800,
                nr_sector: 8,
                write: false,
                read: true,
                flags: flags::SYNC
            }
        );
        assert_eq!((out[1].kind, out[1].ts), (Kind::Issue, 1_001_500));
        assert_eq!(out[2].ts, 1_001_600 + (1 << 28) + 7);
        assert_eq!((out[2].sector, out[2].nr_sector, out[2].write, out[2].read), (4096, 2048, true, false));
    }

    #[test]
    fn lost_events_are_flagged() {
        let (pl, ls) = layouts();
        let mut b = PageBuilder::new();
        b.event(0, &record(2097, &ls[0], 1, 0, 8, b"W", 56));
        let mut out = Vec::new();
        assert!(decode_page(&b.page(5, true), &pl, &ls, "p", &mut out).unwrap().missed);
    }

    #[test]
    fn malformed_pages_are_errors_not_panics() {
        let (pl, ls) = layouts();
        let mut out = Vec::new();
        // Shorter than the header.
        let e = decode_page(&[0u8; 10], &pl, &ls, "cpu1 page 3", &mut out).unwrap_err().to_string();
        assert!(e.contains("cpu1 page 3") && e.contains("byte"), "{e}");
        // Commit larger than the page.
        let mut p = vec![0u8; 64];
        p[8..16].copy_from_slice(&1000u64.to_le_bytes());
        let e = decode_page(&p, &pl, &ls, "p", &mut out).unwrap_err().to_string();
        assert!(e.contains("commit says 1000 bytes"), "{e}");
        // A record running past the data.
        let mut b = PageBuilder::new();
        b.header(20, 0); // says 80 bytes follow
        b.data.extend_from_slice(&[0u8; 8]);
        let e = decode_page(&b.page(0, false), &pl, &ls, "p", &mut out).unwrap_err().to_string();
        assert!(e.contains("runs past the end"), "{e}");
        // A long record whose length word is missing.
        let mut b = PageBuilder::new();
        b.header(0, 0);
        let e = decode_page(&b.page(0, false), &pl, &ls, "p", &mut out).unwrap_err().to_string();
        assert!(e.contains("past the end"), "{e}");
        // A block event too short for its fields.
        let mut b = PageBuilder::new();
        b.event(0, &[0x31, 0x08, 0, 0, 0, 0, 0, 0]); // id 2097, 8 bytes
        let e = decode_page(&b.page(0, false), &pl, &ls, "p", &mut out).unwrap_err().to_string();
        assert!(e.contains("too short for its fields"), "{e}");
        assert!(out.is_empty());
    }
}
