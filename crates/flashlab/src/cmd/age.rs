//! `flashlab age` (a protocol, `age` by default) and `flashlab bench` (one four-corner run).

use crate::cli::{AgeArgs, CommonArgs};
use crate::progress::Progress;
use crate::report::output::write_json;
use crate::report::table::{sig, Table};
use crate::target::{real_options, resolve, Target};
use flashlab_lab::precondition::Precondition;
use flashlab_lab::protocol::{block_multiple, run_protocol, Protocol, ProtocolResult, ProtocolTarget};
use flashlab_lab::sim_run::{self, four_corner_config, SimProtocolRun};
use flashlab_lab::units::parse_cli_size;
use flashlab_real::dir_target::DirTarget;
use std::time::Instant;

pub fn age(args: &AgeArgs) -> Result<(), String> {
    run(&args.common, &Protocol::load(&args.protocol)?)
}

pub fn bench(args: &CommonArgs) -> Result<(), String> {
    run(args, &Protocol::builtin("four-corner").expect("built in"))
}

fn run(args: &CommonArgs, proto: &Protocol) -> Result<(), String> {
    let size = |flag: &str, v: &Option<String>| -> Result<Option<u64>, String> {
        v.as_ref()
            .map(|r| {
                parse_cli_size(r).map_err(String::from).and_then(block_multiple).map_err(|e| format!("{flag}: {e}"))
            })
            .transpose()
    };
    let rand_io = size("--rand-io", &args.rand_io)?;
    let span = size("--span", &args.span)?;
    let fc = four_corner_config(proto, args.seed, rand_io, span)?;
    let wall = Instant::now();
    let bar = Progress::new(&proto.name);
    let mut progress = |i: usize, n: usize, what: &str, f: f64| {
        bar.set(((i - 1) as f64 + f) / n as f64, &format!("step {i}/{n}: {what}"))
    };
    let (result, doc, clock) = match resolve(&args.target)? {
        Target::Sim(profile) => {
            if args.real.fill_dir.is_some() {
                return Err(
                    "--fill-dir applies to a directory target; a simulated device fills its own filesystem".into()
                );
            }
            let fs = super::fs_config(&args.sim_fs, &profile, &args.target)?;
            print!("{}", super::banner_fs(&format!("protocol '{}'", proto.name), args, &profile, &fs));
            let r = SimProtocolRun {
                target: &args.target,
                profile: &profile,
                fs,
                protocol: proto,
                seed: args.seed,
                rand_io,
                span,
                precondition: args.sim_fs.precondition,
            };
            let out = sim_run::run(&r, &mut progress)?;
            if out.precondition.precondition != Precondition::Fresh {
                println!("{}", out.precondition.summary());
            }
            (out.result, out.document, format!("virtual time {:.1} s", out.elapsed_ns as f64 / 1e9))
        }
        Target::Dir(dir) => {
            if args.sim_fs.discard {
                return Err(
                    "--discard applies to simulated targets; on a real filesystem online discard is a mount option"
                        .into(),
                );
            }
            let (opts, idle) = real_options(&args.real)?;
            println!(
                "flashlab protocol '{}' on {} ({}, {}), seed {}",
                proto.name,
                dir.display(),
                opts.engine.name(),
                if opts.direct { "O_DIRECT" } else { "buffered" },
                args.seed
            );
            flashlab_real::cleanup::install_signal_handlers().map_err(|e| format!("signal handlers: {e}"))?;
            let mut target = DirTarget::new(&dir, opts).map_err(|e| e.to_string())?;
            target.idle_override = idle;
            if let Some(fd) = &args.real.fill_dir {
                if let Some(note) = target.set_fill_dir(fd).map_err(|e| e.to_string())? {
                    eprintln!("note: {note}");
                }
            }
            // The settings are resolved into `fc`; the protocol's own must not apply twice.
            let proto = &Protocol { four_corner_span: None, four_corner_rand_io: None, ..proto.clone() };
            let result = run_protocol(&mut target, proto, &fc, &mut progress)?;
            let doc = sim_run::document(&args.target, serde_json::Value::Null, args.seed, false, None, &result);
            (result, doc, format!("real time {:.1} s", target.clock_s()))
        }
        Target::Block(dev) => {
            return Err(format!(
                "{}: a protocol needs a filesystem; make one, mount it and give its directory as --target",
                dev.display()
            ));
        }
    };
    bar.finish();
    print!("{}", render(&result));
    println!(
        "MB/s = 10^6 bytes/s; random tests: 4 KiB QD1, {} per test over the {} file; rw = random-write latency; WAF = NAND writes / host writes since new (simulated devices).",
        flashlab_jobs::units::format_size_iec(fc.rand_io),
        flashlab_jobs::units::format_size_iec(fc.span)
    );
    println!("{clock}; wall time {:.1} s", wall.elapsed().as_secs_f64());
    if let Some(path) = &args.json {
        write_json(path, &doc)?;
        println!("results written to {}", path.display());
    }
    if let Some(path) = &args.report {
        super::report::write_for(path, &format!("{} {}", proto.name, args.target), doc)?;
    }
    Ok(())
}

/// The protocol's table: one row per four-corner run, then what the other steps did.
pub fn render(r: &ProtocolResult) -> String {
    let mut t = Table::new(&[
        ("step", ""),
        ("seq read", "MB/s"),
        ("seq write", "MB/s"),
        ("rand read", "MB/s"),
        ("rand write", "MB/s"),
        ("rw p50", "ms"),
        ("rw p99", "ms"),
        ("rw p99.9", "ms"),
        ("rw max", "ms"),
        ("WAF", ""),
        ("free blocks", ""),
    ]);
    for s in &r.steps {
        t.row(vec![
            s.label.clone(),
            sig(s.seq_read_mbs, 3),
            sig(s.seq_write_mbs, 3),
            sig(s.rand_read_mbs, 3),
            sig(s.rand_write_mbs, 3),
            sig(s.rand_write_p50_us / 1e3, 3),
            sig(s.rand_write_p99_us / 1e3, 3),
            sig(s.rand_write_p999_us / 1e3, 3),
            sig(s.rand_write_max_us / 1e3, 3),
            s.device.as_ref().map_or("-".into(), |d| format!("{:.2}", d.write_amplification)),
            s.device.as_ref().map_or("-".into(), |d| d.state.free_blocks.to_string()),
        ]);
    }
    let mut out = t.render();
    for l in &r.log {
        out.push_str(&format!("  step {:>2} {:<14} {}\n", l.step, l.kind, l.detail));
    }
    out
}
