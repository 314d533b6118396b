//! `flashlab age` (a protocol, `age` by default) and `flashlab bench` (one four-corner run).

use crate::cli::{AgeArgs, BenchArgs};
use crate::error::Error;
use crate::progress::Progress;
use crate::step_progress::StepProgress;
use crate::target::{real_options, resolve, Target};
use crate::{out, outln};
use flashlab_lab::precondition::Precondition;
use flashlab_lab::protocol::{block_multiple, Protocol};
use flashlab_lab::protocol_run::{ProtocolCommand, Resolved};
use flashlab_lab::sim_run::{self, SimProtocolRun};
use flashlab_lab::units::parse_cli_size;
use flashlab_real::dir_protocol::{self, DeviceClock, DirProtocolRun};
use flashlab_results::Body;
use std::time::Instant;

/// `flashlab age`: a protocol (`age` by default) on the target.
pub fn age(args: &AgeArgs) -> Result<(), Error> {
    run(&args.bench, &Protocol::load(&args.protocol)?, ProtocolCommand::Age)
}

/// `flashlab bench`: one four-corner run on the target.
pub fn bench(args: &BenchArgs) -> Result<(), Error> {
    run(args, &Protocol::builtin("four-corner").expect("built in"), ProtocolCommand::Bench)
}

fn run(a: &BenchArgs, proto: &Protocol, command: ProtocolCommand) -> Result<(), Error> {
    let args = &a.common;
    let size = |flag: &str, v: &Option<String>| -> Result<Option<u64>, Error> {
        v.as_ref()
            .map(|r| {
                parse_cli_size(r).map_err(flashlab_lab::Error::from).and_then(block_multiple).map_err(Error::at(flag))
            })
            .transpose()
    };
    let rand_io = size("--rand-io", &a.four.rand_io)?;
    let span = size("--span", &a.four.span)?;
    let wall = Instant::now();
    let bar = Progress::new(&proto.name);
    // The tests per four-corner step, for the bar (the settings resolve again in the run).
    let tests = Resolved::new(proto, args.seed, rand_io, span)?.tests_per_bench();
    let mut steps = StepProgress::new(proto, tests);
    let mut progress = |i: usize, n: usize, what: &str, f: f64| {
        let (pos, msg) = steps.update(i, n, what, f);
        bar.set(pos, &msg)
    };
    let (doc, fc, clock) = match resolve(&args.target)? {
        Target::Sim(profile) => {
            if let Some(flag) = a.real.given() {
                return Err(Error::not_applicable(
                    flag,
                    format!("applies to real targets (a directory or block device), not to {}", args.target),
                ));
            }
            let fs = super::fs_config(&args.sim_fs, &profile, &args.target)?;
            out!("{}", super::banner_fs(&format!("protocol '{}'", proto.name), args, &profile, &fs));
            let r = SimProtocolRun {
                target: &args.target,
                profile: &profile,
                fs,
                protocol: proto,
                seed: args.seed,
                rand_io,
                span,
                precondition: args.sim_fs.precondition,
                check: a.check,
                command,
            };
            let out = sim_run::run(&r, &mut progress)?;
            bar.finish();
            if out.precondition.precondition != Precondition::Fresh {
                outln!("{}", out.precondition.summary());
            }
            (out.document, out.four_corner, format!("virtual time {:.1} s", out.elapsed_ns as f64 / 1e9))
        }
        Target::Dir(dir) => {
            if a.check.is_some() {
                return Err(Error::not_applicable(
                    "--check",
                    "checks the simulator's invariants: it applies to simulated targets (sim:PROFILE)",
                ));
            }
            if let Some(flag) = args.sim_fs.given() {
                return Err(Error::not_applicable(
                    flag,
                    "applies to simulated targets (sim:PROFILE); on a real filesystem the filesystem and its mount options are the real ones",
                ));
            }
            let (opts, idle) = real_options(&a.real)?;
            outln!(
                "flashlab protocol '{}' on {} ({}, {}), seed {}",
                proto.name,
                dir.display(),
                opts.engine.name(),
                if opts.direct { "O_DIRECT" } else { "buffered" },
                args.seed
            );
            // On a served simulated device, the tests are timed on its clock too.
            let served = flashlab_serve::mounts::under_dir(&dir);
            if let Some(s) = &served {
                outln!("note: {} is on a flashlab serve device ({}); its tests are timed on the simulated device's clock too", dir.display(), s.profile);
            }
            let r = DirProtocolRun {
                target: &args.target,
                dir: &dir,
                opts,
                idle,
                fill_dir: a.real.fill_dir.as_deref(),
                device_clock: served.map(|s| -> DeviceClock { Box::new(move || s.sample()) }),
                protocol: proto,
                seed: args.seed,
                rand_io,
                span,
                command,
            };
            let out = dir_protocol::run(r, &mut progress)?;
            for note in &out.notes {
                eprintln!("note: {note}");
            }
            (out.document, out.four_corner, format!("real time {:.1} s", out.elapsed_s))
        }
        Target::Block(dev) => {
            return Err(Error::Refused {
                path: dev,
                problem: ": a protocol needs a filesystem; make one, mount it and give its directory as --target"
                    .into(),
            });
        }
    };
    bar.finish();
    for (i, t) in doc.tables().iter().enumerate() {
        // Tables after the main one (the served device's clock) are introduced by their title.
        if i > 0 {
            outln!("{}:", t.title);
        }
        crate::output_args::table(t);
    }
    if let Body::Age(b) | Body::Bench(b) = &doc.body {
        for l in &b.log {
            outln!("{}", l.line());
        }
    }
    let repeats = if fc.repeats > 1 {
        format!("; each test run {} times back to back, MB/s the mean of the runs' rates (AndroBench 3.x)", fc.repeats)
    } else {
        String::new()
    };
    crate::proseln!(
        "MB/s = 10^6 bytes/s; random tests: 4 KiB QD1, {} per test over the {} file{repeats}; rw = random-write latency; WAF = NAND writes / host writes since new (simulated devices).",
        flashlab_jobs::units::format_size_iec(fc.rand_io),
        flashlab_jobs::units::format_size_iec(fc.span)
    );
    outln!("{clock}; wall time {:.1} s", wall.elapsed().as_secs_f64());
    a.out.write(&doc, &format!("{} {}", proto.name, args.target))
}
