//! `flashlab age` (a protocol, `age` by default) and `flashlab bench` (one four-corner run).

use crate::cli::{AgeArgs, CommonArgs};
use crate::progress::Progress;
use crate::report::output::write_json;
use crate::report::table::{sig, Table};
use crate::target::{real_options, resolve, Target};
use flashlab_lab::fourcorner::FourCornerConfig;
use flashlab_lab::precondition::Precondition;
use flashlab_lab::protocol::ProtocolTarget;
use flashlab_lab::protocol::{run_protocol, Protocol, ProtocolResult};
use flashlab_lab::units::parse_cli_size;
use flashlab_real::dir_target::DirTarget;
use serde_json::json;
use std::time::Instant;

pub fn age(args: &AgeArgs) -> Result<(), String> {
    let proto = match Protocol::builtin(&args.protocol) {
        Some(p) => p,
        None if std::path::Path::new(&args.protocol).exists() => {
            let text = std::fs::read_to_string(&args.protocol).map_err(|e| format!("{}: {e}", args.protocol))?;
            Protocol::from_toml(&args.protocol, &text)?
        }
        None => {
            let names: Vec<&str> = flashlab_lab::protocol::BUILTIN.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "protocol '{}': not a built-in protocol ({}) nor a file",
                args.protocol,
                names.join(", ")
            ));
        }
    };
    run(&args.common, &proto)
}

pub fn bench(args: &CommonArgs) -> Result<(), String> {
    run(args, &Protocol::builtin("four-corner").expect("built in"))
}

fn run(args: &CommonArgs, proto: &Protocol) -> Result<(), String> {
    let mut fc = proto.four_corner(&FourCornerConfig { seed: args.seed, ..Default::default() });
    if let Some(r) = &args.rand_io {
        fc.rand_io = parse_cli_size(r)
            .and_then(flashlab_lab::protocol::block_multiple)
            .map_err(|e| format!("--rand-io: {e}"))?;
    }
    let proto = &Protocol { four_corner_span: None, four_corner_rand_io: None, ..proto.clone() };
    let wall = Instant::now();
    let bar = Progress::new(&proto.name);
    let mut progress = |i: usize, n: usize, what: &str, f: f64| {
        bar.set(((i - 1) as f64 + f) / n as f64, &format!("step {i}/{n}: {what}"))
    };
    let (result, profile_json, clock) = match resolve(&args.target)? {
        Target::Sim(profile) => {
            let (mut sys, pre) = super::sim_system(&args.sim_fs, &profile, args.seed, &args.target)?;
            print!("{}", super::banner(&format!("protocol '{}'", proto.name), args, &profile, &sys));
            if pre.precondition != Precondition::Fresh {
                println!("{}", pre.summary());
            }
            let start = sys.now;
            let result = run_protocol(&mut sys, proto, &fc, &mut progress)?;
            let p = json!({"name": profile.name, "description": profile.description, "calibration": profile.calibration, "filesystem": sys.fs.config().label(), "precondition": pre});
            (result, p, format!("virtual time {:.1} s", (sys.now - start) as f64 / 1e9))
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
            let result = run_protocol(&mut target, proto, &fc, &mut progress)?;
            (result, serde_json::Value::Null, format!("real time {:.1} s", target.clock_s()))
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
    let doc = json!({
        "flashlab_version": env!("CARGO_PKG_VERSION"),
        "command": "age",
        "target": args.target,
        "profile": profile_json,
        "seed": args.seed,
        "discard": args.sim_fs.discard,
        "precondition": args.sim_fs.precondition,
        "protocol": result.protocol,
        "steps": result.steps,
        "log": result.log,
    });
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
