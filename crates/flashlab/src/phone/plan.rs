//! What a run on the phone does, as data: the directories it creates, the files it pushes, the
//! flashlab command line it runs there and the results file it pulls. Built from the options
//! and the device description only, so the exact adb calls can be checked without a phone
//! ([`Plan::adb_calls`]).

use super::adb::{join, Adb};
use super::cli::{AgeArgs, BenchArgs, FillArgs, RunArgs, RunOnPhone};
use crate::error::Error;
use std::path::PathBuf;

/// Name of the results document in the remote directory.
pub const RESULTS: &str = "results.json";
/// Name of the file the remote flashlab's standard output goes to.
pub const OUTPUT: &str = "output.txt";

/// One run on the phone.
#[derive(Debug, Clone)]
pub struct Plan {
    /// What is run, for messages (`bench`, `fill`, ...).
    pub what: String,
    /// The new directory on the phone (binary, work dir, results).
    pub remote_dir: String,
    /// Another new directory to create and remove (the shared-storage fill directory).
    pub extra_dir: Option<String>,
    /// (local file, remote path) pairs to push; the binary first.
    pub pushes: Vec<(PathBuf, String)>,
    /// Text files written on the host and pushed: (name in the remote dir, contents).
    pub generated: Vec<(String, String)>,
    /// The flashlab arguments on the phone.
    pub remote_args: Vec<String>,
}

impl Plan {
    pub fn remote(&self, name: &str) -> String {
        format!("{}/{name}", self.remote_dir.trim_end_matches('/'))
    }

    /// The command the phone's shell runs: prints its PID (so Ctrl-C can reach it), then
    /// becomes flashlab, streaming progress lines on standard error.
    pub fn run_command(&self) -> String {
        let bin = self.remote("flashlab");
        let mut words: Vec<&str> = vec![&bin];
        words.extend(self.remote_args.iter().map(String::as_str));
        format!(
            "echo flashlab-pid $$; cd {} && FLASHLAB_PROGRESS=lines exec {} > {}",
            join(&[&self.remote_dir]),
            join(&words),
            join(&[&self.remote(OUTPUT)])
        )
    }

    /// The shell command that creates the directories (failing if one exists: flashlab
    /// removes only what it created).
    pub fn mkdir_command(&self) -> String {
        let mut dirs = vec![self.remote_dir.clone(), self.remote("work")];
        dirs.extend(self.extra_dir.iter().cloned());
        format!("mkdir {}", join(&dirs.iter().map(String::as_str).collect::<Vec<_>>()))
    }

    /// The shell command that removes everything the run created on the phone.
    pub fn cleanup_command(&self) -> String {
        let mut dirs = vec![self.remote_dir.as_str()];
        dirs.extend(self.extra_dir.as_deref());
        format!("rm -rf {}", join(&dirs))
    }

    /// Every adb call of a run that goes well, in order, with `local_results` the host path
    /// the results are pulled to (generated files are pushed from `gen_dir`).
    pub fn adb_calls(&self, adb: &Adb, gen_dir: &str, local_results: &str) -> Vec<Vec<String>> {
        let any = Adb { serial: None, ..adb.clone() };
        let mut v = vec![any.args(&["devices"]), adb.shell_args("getprop"), adb.shell_args("id -u")];
        v.push(adb.shell_args(&self.mkdir_command()));
        for (local, remote) in &self.pushes {
            v.push(adb.args(&["push", &local.display().to_string(), remote]));
        }
        for (name, _) in &self.generated {
            v.push(adb.args(&["push", &format!("{gen_dir}/{name}"), &self.remote(name)]));
        }
        v.push(adb.shell_args(&format!("chmod 755 {}", join(&[&self.remote("flashlab")]))));
        v.push(adb.shell_args(&self.run_command()));
        v.push(adb.args(&["pull", &self.remote(RESULTS), local_results]));
        v.push(adb.shell_args(&self.cleanup_command()));
        v
    }
}

fn io_args(on: &RunOnPhone, v: &mut Vec<String>) {
    // psync with O_DIRECT unless told otherwise: io_uring is blocked for most Android processes.
    v.extend(["--ioengine".to_string(), on.io.ioengine.clone().unwrap_or_else(|| "psync".into())]);
    if on.io.buffered {
        v.push("--buffered".into());
    }
    if on.io.zero_buffers {
        v.push("--zero-buffers".into());
    }
    v.extend(["--seed".to_string(), on.seed.to_string()]);
}

fn sizes(b: &BenchArgs, v: &mut Vec<String>) {
    if let Some(s) = &b.four.span {
        v.extend(["--span".to_string(), s.clone()]);
    }
    if let Some(s) = &b.four.rand_io {
        v.extend(["--rand-io".to_string(), s.clone()]);
    }
}

fn base(what: &str, on: &RunOnPhone, binary: PathBuf) -> Plan {
    let remote_dir = on.remote_dir.trim_end_matches('/').to_string();
    Plan {
        what: what.to_string(),
        pushes: vec![(binary, format!("{remote_dir}/flashlab"))],
        remote_dir,
        extra_dir: None,
        generated: Vec::new(),
        remote_args: Vec::new(),
    }
}

pub fn bench(a: &BenchArgs, binary: PathBuf) -> Plan {
    let mut p = base("bench", &a.on, binary);
    let mut v = vec!["bench".to_string(), "--target".into(), p.remote("work")];
    io_args(&a.on, &mut v);
    sizes(a, &mut v);
    v.extend(["--json".to_string(), p.remote(RESULTS)]);
    p.remote_args = v;
    p
}

/// The protocol of `flashlab phone fill`.
pub fn fill_protocol(leave_free: &str, file_size: &str) -> String {
    format!(
        r#"# flashlab phone fill: test /data, fill shared storage, test /data again.
name = "phone-fill"
description = "four-corner in /data, fill shared storage until {leave_free} is free, four-corner again, delete the fill, four-corner again"

[[step]]
kind = "four-corner"
label = "before fill"

[[step]]
kind = "fill"
leave_free = "{leave_free}"
file_size = "{file_size}"

[[step]]
kind = "four-corner"
label = "after fill"

[[step]]
kind = "delete-fill"

[[step]]
kind = "four-corner"
label = "after delete"
"#
    )
}

pub fn fill(a: &FillArgs, binary: PathBuf) -> Result<Plan, Error> {
    let quote_free = |s: &str, flag: &str| {
        if s.contains('"') || s.contains('\n') {
            Err(Error::flag(format!("{flag} {s}"), "not a size"))
        } else {
            Ok(())
        }
    };
    quote_free(&a.leave_free, "--leave-free")?;
    quote_free(&a.file_size, "--file-size")?;
    let text = fill_protocol(&a.leave_free, &a.file_size);
    // Fail on the host, before anything reaches the phone.
    flashlab_lab::protocol::Protocol::from_toml("phone-fill protocol", &text)?;
    flashlab_lab::units::parse_cli_size(&a.leave_free).map_err(Error::at("--leave-free"))?;
    let mut p = base("fill", &a.bench.on, binary);
    p.extra_dir = Some(a.shared_dir.trim_end_matches('/').to_string());
    p.generated.push(("phone-fill.toml".into(), text));
    let mut v =
        vec!["age".to_string(), "--protocol".into(), p.remote("phone-fill.toml"), "--target".into(), p.remote("work")];
    v.extend(["--fill-dir".to_string(), a.shared_dir.trim_end_matches('/').to_string()]);
    io_args(&a.bench.on, &mut v);
    sizes(&a.bench, &mut v);
    v.extend(["--json".to_string(), p.remote(RESULTS)]);
    p.remote_args = v;
    Ok(p)
}

pub fn age(a: &AgeArgs, binary: PathBuf) -> Result<Plan, Error> {
    let mut p = base("age", &a.bench.on, binary);
    let builtin = flashlab_lab::protocol::BUILTIN.iter().any(|(n, _)| *n == a.protocol);
    let proto = if builtin {
        a.protocol.clone()
    } else {
        let text = std::fs::read_to_string(&a.protocol).map_err(|e| {
            Error::Usage(format!("protocol '{}': not a built-in protocol nor a readable file ({e})", a.protocol))
        })?;
        flashlab_lab::protocol::Protocol::from_toml(&a.protocol, &text)?;
        p.generated.push(("protocol.toml".into(), text));
        p.remote("protocol.toml")
    };
    flashlab_lab::units::parse_duration_ns(&a.idle).map_err(Error::at("--idle"))?;
    let mut v = vec!["age".to_string(), "--protocol".into(), proto, "--target".into(), p.remote("work")];
    v.extend(["--idle".to_string(), a.idle.clone()]);
    io_args(&a.bench.on, &mut v);
    sizes(&a.bench, &mut v);
    v.extend(["--json".to_string(), p.remote(RESULTS)]);
    p.remote_args = v;
    Ok(p)
}

pub fn run(a: &RunArgs, binary: PathBuf) -> Result<Plan, Error> {
    let text = std::fs::read_to_string(&a.jobfile).map_err(Error::io(&a.jobfile))?;
    flashlab_jobs::parse_jobfile(&a.jobfile.display().to_string(), &text)?;
    let mut p = base("run", &a.on, binary);
    p.generated.push(("job.fio".into(), text));
    let mut v = vec!["run".to_string(), p.remote("job.fio"), "--target".into(), p.remote("work")];
    io_args(&a.on, &mut v);
    v.extend(["--json".to_string(), p.remote(RESULTS)]);
    p.remote_args = v;
    Ok(p)
}
