//! Render a report without the CLI: `cargo run -p flashlab-report --example render -- -o report.html [--svg DIR] RESULTS.json...`

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut html, mut svg, mut files) = (None, None, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "-o" => html = args.next().map(PathBuf::from),
            "--svg" => svg = args.next().map(PathBuf::from),
            _ => files.push(a),
        }
    }
    let mut inputs = Vec::new();
    for f in &files {
        match std::fs::read_to_string(f) {
            Ok(t) => inputs.push((f.clone(), t)),
            Err(e) => {
                eprintln!("error: {f}: {e}");
                std::process::exit(1);
            }
        }
    }
    let result = flashlab_report::render_report(&inputs)
        .and_then(|r| flashlab_report::write_outputs(&r, html.as_deref(), svg.as_deref()));
    match result {
        Ok(written) => {
            for p in written {
                println!("wrote {}", p.display());
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
