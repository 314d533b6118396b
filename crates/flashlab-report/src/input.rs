//! Reading results files: which command wrote them, and the numbers the charts need.
//!
//! Every problem is a message naming the field (`steps[2].seq_read_mbs`); the caller adds the
//! file name.

use crate::error::InputError;
use serde_json::Value;

/// What one results file says about the run that wrote it (the report's header).
#[derive(Debug, Clone, Default)]
pub struct Meta {
    /// What wrote it, for people: `age (protocol age-small)`, `bench`, `fill`, `wsat`, `run (fio job file)`.
    pub command: String,
    pub target: Option<String>,
    /// The device profile: name and description, where the file says.
    pub profile: Option<String>,
    pub seed: Option<u64>,
    pub discard: Option<bool>,
    /// The program and version that wrote it (`flashlab 0.1.0`, `fio-3.33`).
    pub writer: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Results {
    /// `flashlab age` and `flashlab bench` (a protocol whose four-corner runs are the steps).
    Age(AgeDoc),
    Fill(FillDoc),
    Wsat(WsatDoc),
    /// fio-style JSON: `flashlab run --output-format json`, or fio itself.
    Run(RunDoc),
}

#[derive(Debug, Clone)]
pub struct AgeStep {
    pub label: String,
    pub seq_read_mbs: f64,
    pub seq_write_mbs: f64,
    pub rand_read_mbs: f64,
    pub rand_write_mbs: f64,
    pub rand_write_p50_us: Option<f64>,
    pub rand_write_p99_us: Option<f64>,
    /// Simulated devices only.
    pub device: Option<DeviceState>,
}

#[derive(Debug, Clone, Copy)]
pub struct DeviceState {
    pub write_amplification: f64,
    pub free_blocks: f64,
    pub total_blocks: Option<f64>,
    pub gc_units_copied: Option<f64>,
    pub erases: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct AgeDoc {
    pub protocol: String,
    pub steps: Vec<AgeStep>,
    /// (step number, kind, what it did)
    pub log: Vec<(u64, String, String)>,
}

#[derive(Debug, Clone)]
pub struct FillDecile {
    pub filled_pct: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub max_us: Option<f64>,
    pub mbs: Option<f64>,
    pub write_amplification: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct FillDoc {
    pub deciles: Vec<FillDecile>,
}

#[derive(Debug, Clone)]
pub struct WsatInterval {
    pub capacity_written: f64,
    pub at_s: Option<f64>,
    pub iops: f64,
    pub write_amplification: f64,
    pub free_blocks: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct WsatDoc {
    pub iodepth: Option<u64>,
    pub intervals: Vec<WsatInterval>,
}

#[derive(Debug, Clone)]
pub struct RunDirection {
    /// `read`, `write` or `trim`.
    pub name: &'static str,
    pub bw_bytes: f64,
    pub iops: f64,
    /// Completion-latency percentiles: (percentile, nanoseconds), ascending.
    pub clat_ns: Vec<(f64, f64)>,
    pub clat_max_ns: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct RunJob {
    pub name: String,
    pub groupid: u64,
    pub rw: Option<String>,
    pub bs: Option<String>,
    pub iodepth: Option<String>,
    /// Only the directions that did I/O.
    pub directions: Vec<RunDirection>,
    /// `flashlab_device` (simulated devices).
    pub device: Option<DeviceState>,
}

#[derive(Debug, Clone)]
pub struct RunDoc {
    pub jobs: Vec<RunJob>,
}

/// The commands whose results a report draws, for error messages.
pub const KNOWN: &str = "age, bench, fill, wsat, and fio-style JSON from `flashlab run --output-format json` or fio";

/// Parse one results file's text.
pub fn parse(text: &str) -> Result<(Meta, Results), InputError> {
    let v = parse_json(text)?;
    if v.get("schema_version").is_some() {
        return parse_document(&v);
    }
    parse_legacy(&v)
}

/// The files written before the results document (and fio's JSON).
fn parse_legacy(v: &Value) -> Result<(Meta, Results), InputError> {
    let v = v.clone();
    let Some(obj) = v.as_object() else {
        return Err(InputError::NotDrawn(format!(
            "not a flashlab results file: the JSON is {}, not an object (the report reads results of {KNOWN})",
            kind_of(&v)
        )));
    };
    if obj.contains_key("fio version") || (obj.contains_key("jobs") && !obj.contains_key("command")) {
        return parse_run(&v);
    }
    let command = match obj.get("command") {
        Some(Value::String(c)) => c.as_str(),
        Some(other) => {
            return Err(InputError::NotDrawn(format!(
                "field 'command' is {}, expected a string such as \"age\"",
                kind_of(other)
            )))
        }
        None => {
            if obj.contains_key("policy") && obj.contains_key("write_amplification") {
                return Err(InputError::NotDrawn(format!("results of `flashlab sim waf --json`, which the report does not draw (it draws results of {KNOWN})")));
            }
            return Err(InputError::NotDrawn(format!("not a flashlab results file: no 'command' field and no 'fio version' (the report reads results of {KNOWN})")));
        }
    };
    let mut meta = Meta {
        target: opt_str(&v, "target"),
        seed: v.get("seed").and_then(Value::as_u64),
        discard: v.get("discard").and_then(Value::as_bool),
        writer: opt_str(&v, "flashlab_version").map(|s| format!("flashlab {s}")),
        ..Meta::default()
    };
    if let Some(p) = v.get("profile") {
        let name = opt_str(p, "name");
        let desc = opt_str(p, "description");
        meta.profile = match (name, desc) {
            (Some(n), Some(d)) => Some(format!("{n}: {d}")),
            (n, d) => n.or(d),
        };
    }
    let results = match command {
        "age" | "bench" => {
            let doc = parse_age(&v)?;
            meta.command = if doc.protocol == "four-corner" {
                "bench (four-corner)".to_string()
            } else {
                format!("age (protocol {})", doc.protocol)
            };
            Results::Age(doc)
        }
        "fill" => {
            meta.command = "fill".into();
            let r = field(&v, "result", "")?;
            if meta.profile.is_none() {
                meta.profile = r.get("device").and_then(|d| opt_str(d, "profile"));
            }
            Results::Fill(parse_fill(r)?)
        }
        "wsat" => {
            let r = field(&v, "result", "")?;
            let doc = parse_wsat(r)?;
            meta.command = match doc.iodepth {
                Some(q) => format!("wsat (QD{q})"),
                None => "wsat".into(),
            };
            if meta.profile.is_none() {
                meta.profile = r.get("device").and_then(|d| opt_str(d, "profile"));
            }
            Results::Wsat(doc)
        }
        other => {
            return Err(InputError::NotDrawn(format!(
                "results of `flashlab {other}`, which the report does not draw (it draws results of {KNOWN})"
            )));
        }
    };
    Ok((meta, results))
}

/// A results document (flashlab-results: `schema_version`, `command`, `results`): the body is
/// read as the older files' fields were, the header gives the metadata.
fn parse_document(v: &Value) -> Result<(Meta, Results), InputError> {
    let command = opt_str(v, "command").ok_or_else(|| missing("command"))?;
    let body = field(v, "results", "")?;
    if command == "phone" {
        let inner = body.get("results").filter(|r| !r.is_null()).ok_or_else(|| {
            InputError::NotDrawn(format!(
                "results of `flashlab phone {}`, which the report does not draw (it draws results of {KNOWN})",
                opt_str(body, "subcommand").unwrap_or_default()
            ))
        })?;
        return parse_document(inner);
    }
    let mut flat = body.clone();
    if let (Some(o), Some(head)) = (flat.as_object_mut(), v.as_object()) {
        o.insert("command".into(), Value::String(command.clone()));
        for k in ["target", "seed", "profile", "flashlab_version"] {
            if let Some(x) = head.get(k) {
                o.insert(k.into(), x.clone());
            }
        }
    }
    match command.as_str() {
        "fill" | "wsat" => {
            // The older files kept these under `result`.
            let mut r = body.clone();
            if let (Some(o), Some(rest)) = (r.as_object_mut(), body.get("result").and_then(Value::as_object)) {
                for (k, x) in rest {
                    o.entry(k.clone()).or_insert_with(|| x.clone());
                }
            }
            if let Some(o) = flat.as_object_mut() {
                o.insert("result".into(), r);
            }
            parse_legacy(&flat)
        }
        "run" => {
            // A fio-shaped view of the typed job summaries.
            let jobs: Vec<Value> = array(body, "jobs", "results")?
                .iter()
                .map(|j| {
                    let mut o = serde_json::Map::new();
                    o.insert("jobname".into(), j.get("name").cloned().unwrap_or(Value::Null));
                    o.insert("groupid".into(), j.get("groupid").cloned().unwrap_or(Value::Null));
                    o.insert(
                        "job options".into(),
                        serde_json::json!({"rw": j.get("rw"), "bs": j.get("bs"), "iodepth": j.get("iodepth")}),
                    );
                    for dir in ["read", "write", "trim"] {
                        if let Some(d) = j.get(dir) {
                            o.insert(
                                dir.into(),
                                serde_json::json!({
                                    "io_bytes": d.get("io_bytes"), "bw_bytes": d.get("bw_bytes"),
                                    "iops": d.get("iops"), "total_ios": d.get("total_ios"),
                                    "clat_ns": {"percentile": d.get("clat_percentiles_ns"),
                                                "mean": d.get("clat_mean_ns"), "max": d.get("clat_max_ns")}}),
                            );
                        }
                    }
                    if let Some(d) = body.get("device").filter(|d| !d.is_null()) {
                        o.insert("flashlab_device".into(), d.clone());
                    }
                    Value::Object(o)
                })
                .collect();
            let mut fio = serde_json::json!({"jobs": jobs});
            if let Some(ver) = opt_str(v, "flashlab_version") {
                fio["fio version"] = Value::String(format!("flashlab-{ver}"));
            }
            parse_run(&fio)
        }
        _ => parse_legacy(&flat),
    }
}

fn parse_json(text: &str) -> Result<Value, InputError> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok(v),
        Err(e) => {
            // fio may print notices before its JSON; accept them as fio tooling does.
            if let Some(start) = text.find("\n{") {
                if let Ok(v) = serde_json::from_str::<Value>(&text[start + 1..]) {
                    if v.get("fio version").is_some() {
                        return Ok(v);
                    }
                }
            }
            Err(InputError::Json(e))
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

/// The error for a missing field at `field` (its whole path).
fn missing(field: &str) -> InputError {
    InputError::Missing { field: field.to_string() }
}

/// The error for a field at `field` that holds `x` where `expected` was needed.
fn wrong(field: &str, expected: &'static str, x: &Value) -> InputError {
    InputError::WrongType { field: field.to_string(), expected, found: kind_of(x) }
}

fn field<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a Value, InputError> {
    v.get(key).ok_or_else(|| missing(&join(at, key)))
}

fn num(v: &Value, key: &str, at: &str) -> Result<f64, InputError> {
    match v.get(key) {
        Some(x) => x.as_f64().ok_or_else(|| wrong(&join(at, key), "a number", x)),
        None => Err(missing(&join(at, key))),
    }
}

/// A number that may be absent (older or other writers); present but not a number is an error.
fn opt_num(v: &Value, key: &str, at: &str) -> Result<Option<f64>, InputError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x.as_f64().map(Some).ok_or_else(|| wrong(&join(at, key), "a number", x)),
    }
}

fn opt_str(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn array<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a Vec<Value>, InputError> {
    match v.get(key) {
        Some(Value::Array(a)) => Ok(a),
        Some(x) => Err(wrong(&join(at, key), "an array", x)),
        None => Err(missing(&join(at, key))),
    }
}

fn device(v: &Value, at: &str) -> Result<DeviceState, InputError> {
    let state = field(v, "state", at)?;
    let sat = join(at, "state");
    let counters = v.get("counters");
    let cat = join(at, "counters");
    Ok(DeviceState {
        write_amplification: num(v, "write_amplification", at)?,
        free_blocks: num(state, "free_blocks", &sat)?,
        total_blocks: opt_num(state, "total_blocks", &sat)?,
        gc_units_copied: counters.map(|c| opt_num(c, "gc_units_copied", &cat)).transpose()?.flatten(),
        erases: counters.map(|c| opt_num(c, "erases", &cat)).transpose()?.flatten(),
    })
}

fn parse_age(v: &Value) -> Result<AgeDoc, InputError> {
    let protocol = opt_str(v, "protocol").unwrap_or_else(|| "?".into());
    let steps_v = array(v, "steps", "")?;
    if steps_v.is_empty() {
        return Err(InputError::Empty { field: "steps".into(), why: " (no four-corner run to draw)" });
    }
    let mut steps = Vec::new();
    for (i, s) in steps_v.iter().enumerate() {
        let at = format!("steps[{i}]");
        let label = match s.get("label") {
            Some(Value::String(l)) => l.clone(),
            Some(x) => return Err(wrong(&format!("{at}.label"), "a string", x)),
            None => return Err(missing(&format!("{at}.label"))),
        };
        steps.push(AgeStep {
            label,
            seq_read_mbs: num(s, "seq_read_mbs", &at)?,
            seq_write_mbs: num(s, "seq_write_mbs", &at)?,
            rand_read_mbs: num(s, "rand_read_mbs", &at)?,
            rand_write_mbs: num(s, "rand_write_mbs", &at)?,
            rand_write_p50_us: opt_num(s, "rand_write_p50_us", &at)?,
            rand_write_p99_us: opt_num(s, "rand_write_p99_us", &at)?,
            device: match s.get("device") {
                None | Some(Value::Null) => None,
                Some(d) => Some(device(d, &join(&at, "device"))?),
            },
        });
    }
    // Labels name the categories of the charts: make repeated ones unique.
    let original: Vec<String> = steps.iter().map(|s| s.label.clone()).collect();
    for i in 0..steps.len() {
        let n = original[..i].iter().filter(|l| **l == original[i]).count();
        if n > 0 {
            steps[i].label = format!("{} ({})", original[i], n + 1);
        }
    }
    let mut log = Vec::new();
    if let Some(Value::Array(l)) = v.get("log") {
        for e in l {
            log.push((
                e.get("step").and_then(Value::as_u64).unwrap_or(0),
                opt_str(e, "kind").unwrap_or_default(),
                opt_str(e, "detail").unwrap_or_default(),
            ));
        }
    }
    Ok(AgeDoc { protocol, steps, log })
}

fn parse_fill(r: &Value) -> Result<FillDoc, InputError> {
    let at = "result";
    let dv = array(r, "deciles", at)?;
    if dv.is_empty() {
        return Err(InputError::Empty { field: "result.deciles".into(), why: "" });
    }
    let mut deciles = Vec::new();
    for (i, d) in dv.iter().enumerate() {
        let at = format!("result.deciles[{i}]");
        deciles.push(FillDecile {
            filled_pct: num(d, "filled_pct", &at)?,
            p50_us: num(d, "p50_us", &at)?,
            p90_us: num(d, "p90_us", &at)?,
            p99_us: num(d, "p99_us", &at)?,
            max_us: opt_num(d, "max_us", &at)?,
            mbs: opt_num(d, "mbs", &at)?,
            write_amplification: opt_num(d, "write_amplification", &at)?,
        });
    }
    // `bytes` is not drawn, but a present non-number is still an error in the file.
    opt_num(r, "bytes", at)?;
    Ok(FillDoc { deciles })
}

fn parse_wsat(r: &Value) -> Result<WsatDoc, InputError> {
    let at = "result";
    let iv = array(r, "intervals", at)?;
    if iv.is_empty() {
        return Err(InputError::Empty { field: "result.intervals".into(), why: "" });
    }
    let mut intervals = Vec::new();
    for (i, d) in iv.iter().enumerate() {
        let at = format!("result.intervals[{i}]");
        intervals.push(WsatInterval {
            capacity_written: num(d, "capacity_written", &at)?,
            at_s: opt_num(d, "at_s", &at)?,
            iops: num(d, "iops", &at)?,
            write_amplification: num(d, "write_amplification", &at)?,
            free_blocks: opt_num(d, "free_blocks", &at)?,
        });
    }
    // `capacity_bytes` is not drawn, but a present non-number is still an error in the file.
    opt_num(r, "capacity_bytes", at)?;
    Ok(WsatDoc { iodepth: r.get("iodepth").and_then(Value::as_u64), intervals })
}

fn parse_run(v: &Value) -> Result<(Meta, Results), InputError> {
    let writer = opt_str(v, "fio version");
    let jobs_v = array(v, "jobs", "")?;
    if jobs_v.is_empty() {
        return Err(InputError::Empty { field: "jobs".into(), why: " (no job to draw)" });
    }
    let mut jobs = Vec::new();
    let mut profile = None;
    for (i, j) in jobs_v.iter().enumerate() {
        let at = format!("jobs[{i}]");
        let name = opt_str(j, "jobname").ok_or_else(|| missing(&format!("{at}.jobname")))?;
        let opts = j.get("job options");
        let opt = |k: &str| opts.and_then(|o| opt_str(o, k));
        let mut directions = Vec::new();
        for dir in ["read", "write", "trim"] {
            let Some(d) = j.get(dir) else { continue };
            let dat = join(&at, dir);
            let total_ios = opt_num(d, "total_ios", &dat)?.unwrap_or(0.0);
            let io_bytes = num(d, "io_bytes", &dat)?;
            if total_ios <= 0.0 && io_bytes <= 0.0 {
                continue;
            }
            let mut clat_ns = Vec::new();
            let mut clat_max_ns = None;
            // fio reports completion latency percentiles (clat_ns), or total latency ones (lat_ns) with lat_percentiles=1.
            for key in ["clat_ns", "lat_ns"] {
                let Some(c) = d.get(key) else { continue };
                let cat = join(&dat, key);
                if let Some(Value::Object(p)) = c.get("percentile") {
                    for (k, x) in p {
                        let pct: f64 = k.parse().map_err(|_| InputError::NotPercentile {
                            field: format!("{cat}.percentile"),
                            key: k.clone(),
                        })?;
                        let ns =
                            x.as_f64().ok_or_else(|| wrong(&format!("{cat}.percentile.\"{k}\""), "a number", x))?;
                        clat_ns.push((pct, ns));
                    }
                    // The mean is not drawn; a present non-number is still an error.
                    opt_num(c, "mean", &cat)?;
                    clat_max_ns = opt_num(c, "max", &cat)?;
                    break;
                }
            }
            clat_ns.sort_by(|a, b| a.0.total_cmp(&b.0));
            directions.push(RunDirection {
                name: dir,
                bw_bytes: opt_num(d, "bw_bytes", &dat)?
                    .unwrap_or_else(|| num(d, "bw", &dat).map(|kib| kib * 1024.0).unwrap_or(0.0)),
                iops: opt_num(d, "iops", &dat)?.unwrap_or(0.0),
                clat_ns,
                clat_max_ns,
            });
        }
        let device = match j.get("flashlab_device") {
            None | Some(Value::Null) => None,
            Some(d) => {
                if profile.is_none() {
                    profile = opt_str(d, "profile");
                }
                Some(device(d, &join(&at, "flashlab_device"))?)
            }
        };
        jobs.push(RunJob {
            name,
            groupid: j.get("groupid").and_then(Value::as_u64).unwrap_or(0),
            rw: opt("rw")
                .or_else(|| opt("readwrite"))
                .or_else(|| v.get("global options").and_then(|g| opt_str(g, "rw"))),
            bs: opt("bs")
                .or_else(|| opt("blocksize"))
                .or_else(|| v.get("global options").and_then(|g| opt_str(g, "bs"))),
            iodepth: opt("iodepth").or_else(|| v.get("global options").and_then(|g| opt_str(g, "iodepth"))),
            directions,
            device,
        });
    }
    let simulated = profile.is_some();
    let meta = Meta {
        command: if simulated { "run (fio job file, flashlab)".into() } else { "fio job (fio JSON)".into() },
        target: profile.as_ref().map(|p| format!("sim:{p}")),
        profile,
        seed: None,
        discard: None,
        writer,
    };
    Ok((meta, Results::Run(RunDoc { jobs })))
}
