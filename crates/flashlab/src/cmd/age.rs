//! `flashlab age` (a protocol, `age` by default) and `flashlab bench` (one four-corner run).

use crate::cli::{AgeArgs, CommonArgs};
use crate::progress::Progress;
use crate::report::output::write_json;
use crate::report::table::{sig, Table};
use flashlab_lab::fourcorner::FourCornerConfig;
use flashlab_lab::protocol::{run_protocol, Protocol, ProtocolResult};
use flashlab_lab::units::parse_cli_size;
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
            return Err(format!("protocol '{}': not a built-in protocol ({}) nor a file", args.protocol, names.join(", ")));
        }
    };
    run(&args.common, &proto)
}

pub fn bench(args: &CommonArgs) -> Result<(), String> {
    run(args, &Protocol::builtin("four-corner").expect("built in"))
}

fn run(args: &CommonArgs, proto: &Protocol) -> Result<(), String> {
    let (profile, mut sys) = super::system(args)?;
    let mut fc = proto.four_corner(&FourCornerConfig { seed: args.seed, ..Default::default() });
    if let Some(r) = &args.rand_io {
        fc.rand_io = parse_cli_size(r).map_err(|e| format!("--rand-io: {e}"))?;
    }
    let proto = &Protocol { four_corner_span: None, four_corner_rand_io: None, ..proto.clone() };
    print!("{}", super::banner(&format!("protocol '{}'", proto.name), args, &profile));
    let bar = Progress::new(&proto.name);
    let wall = Instant::now();
    let result = run_protocol(&mut sys, proto, &fc, |i, n, what, f| bar.set(((i - 1) as f64 + f) / n as f64, &format!("step {i}/{n}: {what}")))?;
    bar.finish();
    print!("{}", render(&result));
    println!(
        "MB/s = 10^6 bytes/s; random tests: 4 KiB QD1, {} per test over the {} file; WAF = NAND writes / host writes since new.",
        flashlab_jobs::units::format_size_iec(fc.rand_io),
        flashlab_jobs::units::format_size_iec(fc.span)
    );
    println!("virtual time {:.1} s; wall time {:.1} s", sys.now as f64 / 1e9, wall.elapsed().as_secs_f64());
    let doc = json!({
        "flashlab_version": env!("CARGO_PKG_VERSION"),
        "command": "age",
        "target": args.target,
        "profile": {"name": profile.name, "description": profile.description, "calibration": profile.calibration},
        "seed": args.seed,
        "discard": args.discard,
        "protocol": result.protocol,
        "steps": result.steps,
        "log": result.log,
        "virtual_seconds": sys.now as f64 / 1e9,
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
        ("rand write p50", "us"),
        ("rand write p99", "us"),
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
            sig(s.rand_write_p50_us, 3),
            sig(s.rand_write_p99_us, 3),
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
