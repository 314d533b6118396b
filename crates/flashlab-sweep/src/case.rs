//! One case of a sweep: its settings resolved (profile with its overrides, filesystem, what
//! runs) and run through the library, as the `age`/`bench` and `life` commands run theirs.
//! Resolving is cheap and done for every case before any runs, so bad input fails at once.

use crate::error::SweepError;
use crate::spec::{Case, Param, Spec};
use flashlab_lab::protocol::Protocol;
use flashlab_lab::protocol_run::ProtocolCommand;
use flashlab_lab::sim_run::{self, SimProtocolRun};
use flashlab_lab::units::parse_cli_size;
use flashlab_life::policy::Policy;
use flashlab_life::runner::{run_life, LifeConfig};
use flashlab_life::usage::Usage;
use flashlab_results::Document;
use flashlab_simfs::FsConfig;
use flashsim::Profile;
use serde_json::Value;

/// What a case runs.
#[derive(Debug, Clone)]
pub enum Work {
    /// A protocol (`age`, `four-corner`...) with the bytes of each random four-corner test.
    Protocol {
        /// The protocol.
        protocol: Protocol,
        /// Bytes of each random four-corner test, when the case sets it.
        rand_io: Option<u64>,
    },
    /// Months of use (`flashlab life`) under a trim policy.
    Life {
        /// The usage model.
        usage: Box<Usage>,
        /// The trim policy.
        policy: Policy,
        /// The duration as written in the sweep file.
        duration: String,
        /// The duration, virtual nanoseconds.
        duration_ns: u64,
        /// Days between samples of the series.
        sample_days: u32,
        /// Samples between latency probes.
        probe_every: u32,
    },
    /// An fio job file, as `flashlab run` runs it on a simulated device.
    Job {
        /// The job file's path.
        file: String,
        /// Its parsed jobs.
        jobs: Box<flashlab_jobs::JobFile>,
    },
}

/// A case ready to run.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The case's number in the sweep (0-based).
    pub index: usize,
    /// `sim:PROFILE`, as the document names the target.
    pub target: String,
    /// The device profile, with the case's field overrides applied.
    pub profile: Profile,
    /// The simulated filesystem and its mount options.
    pub fs: FsConfig,
    /// The run's seed.
    pub seed: u64,
    /// What the case runs: a protocol or a life run.
    pub work: Work,
}

/// Resolve a case's settings; errors name the sweep file, the case and the setting.
pub fn prepare(spec: &Spec, case: &Case) -> Result<Prepared, SweepError> {
    let here = |key: &str| format!("{}: case {} ('{key}')", spec.source, case.index);
    let bad = |key: &str, message: String| SweepError::Setting {
        file: spec.source.clone(),
        case: case.index,
        setting: key.to_string(),
        message,
    };
    let string = |key: &str| -> Result<Option<String>, SweepError> {
        match case.get(key) {
            None => Ok(None),
            Some(Param::Str(s)) => Ok(Some(s.clone())),
            Some(other) => Err(bad(key, format!("expected a string, got {}", other.text()))),
        }
    };
    let uint = |key: &str, default: u64| -> Result<u64, SweepError> {
        match case.get(key) {
            None => Ok(default),
            Some(Param::Int(i)) if *i >= 0 => Ok(*i as u64),
            Some(other) => Err(bad(key, format!("expected a whole number >= 0, got {}", other.text()))),
        }
    };
    let seed = uint("seed", 1)?;
    // The profile: its TOML, the dotted overrides and the filesystem over it, then parsed and
    // validated as any profile file is.
    let profile_spec = string("profile")?.unwrap_or_else(|| flashlab_lab::profiles::DEFAULT.to_string());
    let resolved = if flashlab_lab::profiles::builtin(&profile_spec).is_some() {
        profile_spec.clone()
    } else {
        spec.path(&profile_spec).display().to_string()
    };
    let (_, text) = flashlab_lab::profiles::text(&resolved).map_err(|e| bad("profile", e.to_string()))?;
    let mut table: toml::Table = toml::from_str(&text).map_err(|e| bad("profile", e.to_string()))?;
    let mut changed = Vec::new();
    if let Some(fs) = string("fs")? {
        FsConfig::parse(&fs).map_err(|e| bad("fs", e.to_string()))?;
        let (kind, options) = fs.split_once(',').unwrap_or((&fs, ""));
        let mut system = toml::Table::new();
        system.insert("filesystem".into(), toml::Value::String(kind.trim().to_string()));
        system.insert("options".into(), toml::Value::String(options.to_string()));
        table.insert("system".into(), toml::Value::Table(system));
        changed.push(format!("fs={fs}"));
    }
    for (key, value) in &case.settings {
        if key.contains('.') {
            set_dotted(&mut table, key, value.to_toml(), &bad)?;
            changed.push(format!("{key}={}", value.text()));
        }
    }
    let source = if changed.is_empty() {
        format!("{} (profile {profile_spec})", here("profile"))
    } else {
        format!("{} (profile {profile_spec} with {})", here("profile"), changed.join(", "))
    };
    let text = toml::to_string(&table).map_err(|e| bad("profile", e.to_string()))?;
    // The profile's own errors name the field and `source` (the case and its overrides).
    let profile = Profile::from_toml(&source, &text)?;
    let fs = FsConfig::from_profile(&profile, &source).map_err(SweepError::Filesystem)?;
    let work = match (string("protocol")?, string("usage")?, string("job")?) {
        (_, Some(_), Some(_)) | (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(SweepError::Case {
                case: case.index,
                message: format!("{}: give one of protocol, usage and job", spec.source),
            })
        }
        (_, _, Some(j)) => {
            let path = spec.path(&j);
            let jobs = flashlab_jobs::parse_jobfile_path(&path).map_err(|e| bad("job", e.to_string()))?;
            if jobs.jobs.is_empty() {
                return Err(bad("job", format!("{}: no jobs", path.display())));
            }
            Work::Job { file: path.display().to_string(), jobs: Box::new(jobs) }
        }
        (_, Some(u), None) => {
            let what = if flashlab_life::presets::preset(&u).is_some() {
                u.clone()
            } else {
                spec.path(&u).display().to_string()
            };
            let mut usage = flashlab_life::presets::resolve(&what).map_err(|e| bad("usage", e.to_string()))?;
            let scale = match case.get("scale") {
                None => 1.0,
                Some(Param::Float(f)) => *f,
                Some(Param::Int(i)) => *i as f64,
                Some(other) => return Err(bad("scale", format!("expected a number, got {}", other.text()))),
            };
            if !(scale.is_finite() && scale > 0.0 && scale <= 1000.0) {
                return Err(bad("scale", format!("must be in (0, 1000], got {scale}")));
            }
            if scale != 1.0 {
                usage = usage.scaled(scale);
            }
            let policy = Policy::parse(&string("policy")?.unwrap_or_else(|| "none".into()))
                .map_err(|e| bad("policy", e.to_string()))?;
            let duration = string("duration")?.unwrap_or_else(|| "12months".into());
            let duration_ns =
                flashlab_life::duration::parse_duration(&duration).map_err(|e| bad("duration", e.to_string()))?;
            let sample_days = uint("sample_days", 1)?;
            if sample_days == 0 || sample_days > 3650 {
                return Err(bad("sample_days", "must be from 1 to 3650".to_string()));
            }
            let probe_every = uint("probe_every", 7)?.min(u64::from(u32::MAX)) as u32;
            Work::Life {
                usage: Box::new(usage),
                policy,
                duration,
                duration_ns,
                sample_days: sample_days as u32,
                probe_every,
            }
        }
        (p, None, None) => {
            let name = p.unwrap_or_else(|| "four-corner".into());
            let what =
                if Protocol::builtin(&name).is_some() { name.clone() } else { spec.path(&name).display().to_string() };
            let protocol = Protocol::load(&what).map_err(|e| bad("protocol", e.to_string()))?;
            let rand_io = match string("rand_io")? {
                Some(s) => Some(
                    parse_cli_size(&s)
                        .map_err(flashlab_lab::Error::from)
                        .and_then(flashlab_lab::protocol::block_multiple)
                        .map_err(|e| bad("rand_io", e.to_string()))?,
                ),
                None => None,
            };
            Work::Protocol { protocol, rand_io }
        }
    };
    for (key, _) in &case.settings {
        let life_only = ["policy", "duration", "scale", "sample_days", "probe_every"].contains(&key.as_str());
        if life_only && matches!(work, Work::Protocol { .. }) {
            return Err(bad(key, "applies to life runs (usage = ...), not to a protocol".to_string()));
        }
        if life_only && matches!(work, Work::Job { .. }) {
            return Err(bad(key, "applies to life runs (usage = ...), not to a job file".to_string()));
        }
        if key == "rand_io" && !matches!(work, Work::Protocol { .. }) {
            return Err(bad(key, "applies to protocols only".to_string()));
        }
    }
    Ok(Prepared { index: case.index, target: format!("sim:{profile_spec}"), profile, fs, seed, work })
}

/// Set `a.b.c` in a profile table; tables on the way are made when missing.
fn set_dotted(
    table: &mut toml::Table,
    key: &str,
    value: toml::Value,
    bad: &dyn Fn(&str, String) -> SweepError,
) -> Result<(), SweepError> {
    let parts: Vec<&str> = key.split('.').collect();
    let (last, path) = parts.split_last().expect("split gives one part at least");
    let mut t = table;
    for p in path {
        let entry = t.entry(p.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry
            .as_table_mut()
            .ok_or_else(|| bad(key, format!("'{p}' in '{key}' is a value, not a table of the profile")))?;
    }
    t.insert(last.to_string(), value);
    Ok(())
}

/// A results document as the JSON value a case stores.
fn value(doc: &Document) -> Result<Value, SweepError> {
    serde_json::to_value(doc).map_err(|e| SweepError::Encode { format: "json", message: e.to_string() })
}

/// Run a prepared case; the document is the one the `age` or `life` command writes (a
/// `flashlab_results::Document`), or for a job file fio's JSON as `flashlab run
/// --output-format json` writes it.
/// A failure of the libraries that run it (their messages) is [`SweepError::Run`].
pub fn run(p: &Prepared) -> Result<Value, SweepError> {
    let failed = |e: String| SweepError::Run(e);
    match &p.work {
        Work::Protocol { protocol, rand_io } => {
            let r = SimProtocolRun {
                target: &p.target,
                profile: &p.profile,
                fs: p.fs.clone(),
                protocol,
                seed: p.seed,
                rand_io: *rand_io,
                span: None,
                precondition: flashlab_lab::precondition::Precondition::Fresh,
                check: None,
                command: ProtocolCommand::Age,
            };
            value(&sim_run::run(&r, &mut |_, _, _, _| {}).map_err(|e| failed(e.to_string()))?.document)
        }
        Work::Life { usage, policy, duration, duration_ns, sample_days, probe_every } => {
            let mut cfg = LifeConfig::new(*policy, *duration_ns, p.seed);
            cfg.sample_days = *sample_days;
            cfg.probe_every = *probe_every;
            // The filesystem is the profile's [system] table, which the `fs` setting rewrote.
            let r = run_life(&p.profile, usage, &cfg, |_| {}).map_err(|e| failed(e.to_string()))?;
            let usage_json = serde_json::to_value(usage.as_ref())
                .map_err(|e| SweepError::Encode { format: "json", message: e.to_string() })?;
            let doc = flashlab_life::document::life_document(&p.target, &p.profile, p.seed, duration, usage_json, &[r])
                .map_err(|e| failed(e.to_string()))?
                .param("policy", policy.name())
                .param("sample_days", sample_days)
                .param("probe_every", probe_every);
            value(&doc)
        }
        Work::Job { file, jobs } => {
            let mut sys = flashlab_lab::system::SimSystem::with_fs(&p.profile, p.seed, p.fs.clone());
            let runs = flashlab_lab::jobfile_run::run_jobfile(&mut sys, jobs, p.seed, file, None, &mut |_, _, _| {})
                .map_err(|e| failed(e.to_string()))?;
            let secs = runs.iter().map(|r| r.0.job_runtime_ns).sum::<u64>() / 1_000_000_000;
            // Timestamp 0: the same case gives the same document.
            let runs: Vec<_> = flashlab_lab::jobfile_run::reported(jobs, &runs).into_iter().map(|(r, _)| r).collect();
            Ok(flashlab_lab::jobfile_run::fio_document(&runs, &jobs.jobs[0].percentile_list, 0, secs))
        }
    }
}
