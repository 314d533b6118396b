//! Issue 9, acceptance 1 and 3: reports rendered from recorded results files (tests/fixtures,
//! see its README for how they were made) have every chart, labelled axes, legends, and no
//! external reference; bad inputs give errors that name the file.

use flashlab_report::{render_report, write_outputs, Report};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> (String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (name.to_string(), text)
}

fn render(names: &[&str]) -> Report {
    let inputs: Vec<(String, String)> = names.iter().map(|n| fixture(n)).collect();
    render_report(&inputs).unwrap_or_else(|e| panic!("{names:?}: {e}"))
}

fn chart<'a>(r: &'a Report, stem: &str) -> &'a str {
    r.charts
        .iter()
        .find(|c| c.0 == stem)
        .map(|c| c.1.as_str())
        .unwrap_or_else(|| panic!("no chart '{stem}' in {:?}", stems(r)))
}

fn stems(r: &Report) -> Vec<&str> {
    r.charts.iter().map(|c| c.0.as_str()).collect()
}

/// The texts of an SVG's <text> elements (plotters writes one per line).
fn texts(svg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<text") {
        let after = &rest[i..];
        let start = after.find('>').unwrap() + 1;
        let end = after.find("</text>").unwrap();
        out.push(
            after[start..end]
                .trim()
                .replace("&amp;", "&")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&apos;", "'")
                .replace("&quot;", "\""),
        );
        rest = &after[end..];
    }
    out
}

fn has_text(svg: &str, want: &str) -> bool {
    texts(svg).iter().any(|t| t.contains(want))
}

/// Every chart: an SVG with a title, both axis descriptions, and a legend entry per series.
fn check_chart(svg: &str, title: &str, axes: &[&str], legend: &[&str]) {
    assert!(svg.trim_start().starts_with("<svg"), "not an SVG document");
    assert!(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count(), "unbalanced <text>");
    assert!(has_text(svg, title), "title '{title}' missing; texts: {:?}", texts(svg));
    for a in axes {
        assert!(has_text(svg, a), "axis label '{a}' missing in '{title}'; texts: {:?}", texts(svg));
    }
    for l in legend {
        assert!(texts(svg).iter().any(|t| t == l), "legend entry '{l}' missing in '{title}'; texts: {:?}", texts(svg));
    }
    // Text is drawn in a generic family: no font has to be installed where the chart is drawn or viewed.
    assert!(
        !svg.contains("font-family=\"")
            || svg.matches("font-family=\"sans-serif\"").count() == svg.matches("font-family=").count()
    );
}

/// No reference outside the document: the only URL is the SVG namespace.
fn check_self_contained(doc: &str) {
    let mut rest = doc;
    while let Some(i) = rest.find("http") {
        let tail = &rest[i..];
        if tail.starts_with("http://") || tail.starts_with("https://") {
            assert!(
                tail.starts_with("http://www.w3.org/2000/svg\""),
                "external reference: {}",
                &tail[..tail.len().min(80)]
            );
        }
        rest = &tail[4..];
    }
    let lower = doc.to_ascii_lowercase();
    for bad in ["<script", "<link", "<iframe", "<img", "@import", "url(", "@font-face", "xlink:href", "src="] {
        assert!(!lower.contains(bad), "report contains '{bad}'");
    }
}

/// The chart stems of a report of every kind of results file at once, in order.
const EVERY_CHART: [&str; 8] = [
    "four-corners",
    "age-latency",
    "age-device",
    "fill-latency",
    "fill-throughput",
    "wsat",
    "run-clat",
    "run-bandwidth",
];

#[test]
fn age_report_has_its_charts_tables_and_header() {
    let r = render(&["age-toy.json"]);
    assert_eq!(stems(&r), vec!["four-corners", "age-latency", "age-device"]);
    let fc = chart(&r, "four-corners");
    check_chart(
        fc,
        "Four-corner throughput per protocol step",
        &["protocol step", "throughput (MB/s = 10^6 bytes/s)"],
        &["age-toy"],
    );
    for t in [
        "Sequential read (256 KiB, QD1)",
        "Sequential write (256 KiB, QD1)",
        "Random read (4 KiB, QD1)",
        "Random write (4 KiB, QD1)",
    ] {
        assert!(has_text(fc, t), "panel '{t}' missing");
    }
    // The protocol's steps label the categories (wrapped: look for their words).
    for w in ["new", "after", "delete", "fstrim"] {
        assert!(has_text(fc, w), "step label word '{w}' missing");
    }
    check_chart(
        chart(&r, "age-latency"),
        "Random-write latency per protocol step",
        &["protocol step", "latency (µs, log scale)"],
        &["p50", "p99"],
    );
    let dev = chart(&r, "age-device");
    check_chart(
        dev,
        "Simulated device after each protocol step",
        &["protocol step", "WAF (NAND writes / host writes)", "free erase blocks (count)", "block erases (count)"],
        &["age-toy"],
    );
    for t in ["Write amplification since new", "Free blocks", "GC copies since new", "Erases since new"] {
        assert!(has_text(dev, t), "panel '{t}' missing");
    }

    let h = &r.html;
    check_self_contained(h);
    assert!(h.starts_with("<!DOCTYPE html>"));
    assert_eq!(h.matches("<svg").count(), r.charts.len(), "every chart inline");
    // The header says what the input was.
    for s in ["age (protocol age-small)", "sim:toy", "toy: toy device for tests", "flashlab 0.1.0", "age-toy.json"] {
        assert!(h.contains(s), "header lacks '{s}'");
    }
    // Tables beside the charts: the numbers of the fixture, as the terminal table prints them.
    for s in [
        "<td>after fstrim + idle</td>",
        "<td>284</td>",
        "<td>51.9</td>",
        "<td>35.4</td>",
        "<td>54.2</td>",
        "<td>326</td>",
        "<td>8 of 512</td>",
    ] {
        assert!(h.contains(s), "table lacks {s}");
    }
    assert!(h.contains("deleted 13 fill files (not trimmed)"), "the protocol log is shown");
}

#[test]
fn fill_wsat_and_run_reports() {
    let r = render(&["fill-toy.json"]);
    assert_eq!(stems(&r), vec!["fill-latency", "fill-throughput"]);
    check_chart(
        chart(&r, "fill-latency"),
        "Random-write latency while filling the device",
        &["device filled (%)", "latency (µs, log scale)"],
        &["p50", "p90", "p99"],
    );
    check_chart(
        chart(&r, "fill-throughput"),
        "Throughput and write amplification while filling",
        &["device filled (%)", "throughput (MB/s", "WAF"],
        &["fill-toy"],
    );
    check_self_contained(&r.html);
    assert!(r.html.contains("<td>45.3</td>"));

    let r = render(&["wsat-toy.json"]);
    assert_eq!(stems(&r), vec!["wsat"]);
    check_chart(
        chart(&r, "wsat"),
        "Write saturation",
        &[
            "capacity written (× device capacity)",
            "IOPS (4 KiB writes per second)",
            "WAF (NAND writes / host writes)",
            "free erase blocks (count)",
        ],
        &["wsat-toy"],
    );
    assert!(r.html.contains("wsat (QD32)"));
    check_self_contained(&r.html);

    let r = render(&["run-toy.json"]);
    assert_eq!(stems(&r), vec!["run-clat", "run-bandwidth"]);
    check_chart(
        chart(&r, "run-clat"),
        "Completion-latency percentiles per job",
        &["percentile (%)", "completion latency (µs, log scale)"],
        &["seqwrite write", "randwrite write", "randread read"],
    );
    check_chart(
        chart(&r, "run-bandwidth"),
        "Bandwidth per job",
        &["job and direction", "bandwidth (MB/s = 10^6 bytes/s)"],
        &["run-toy"],
    );
    for s in ["<td>randwrite</td>", "<td>4096</td>", "run (fio job file, flashlab)", "sim:toy"] {
        assert!(r.html.contains(s), "run report lacks {s}");
    }
    check_self_contained(&r.html);

    // fio's own JSON (fio-3.33) reads the same way.
    let r = render(&["fio-real.json"]);
    assert_eq!(stems(&r), vec!["run-clat", "run-bandwidth"]);
    assert!(r.html.contains("fio-3.33"));
    check_chart(
        chart(&r, "run-clat"),
        "Completion-latency percentiles per job",
        &["percentile (%)"],
        &["randwrite write"],
    );
}

fn rects_filled(svg: &str, color: &str) -> usize {
    svg.lines().filter(|l| l.starts_with("<rect") && l.contains(&format!("fill=\"{color}\""))).count()
}

#[test]
fn two_files_side_by_side_give_two_series() {
    let r = render(&["age-toy.json", "age-toy-discard.json"]);
    assert_eq!(stems(&r), vec!["four-corners", "age-latency", "age-device"]);
    let fc = chart(&r, "four-corners");
    check_chart(fc, "Four-corner throughput", &["protocol step"], &["age-toy", "age-toy-discard"]);
    // One bar per file, step and test (6 steps x 4 tests), plus one legend swatch each,
    // in the first two Okabe-Ito colours.
    assert_eq!(rects_filled(fc, "#0072B2"), 6 * 4 + 1);
    assert_eq!(rects_filled(fc, "#D55E00"), 6 * 4 + 1);
    check_chart(
        chart(&r, "age-latency"),
        "Random-write latency",
        &["latency (µs, log scale)"],
        &["age-toy p50", "age-toy p99", "age-toy-discard p50", "age-toy-discard p99"],
    );
    check_chart(
        chart(&r, "age-device"),
        "Simulated device",
        &["WAF (NAND writes / host writes)"],
        &["age-toy", "age-toy-discard"],
    );
    // Both tables, and both inputs in the header (one without, one with online discard).
    assert!(
        r.html.contains("age-toy — age (protocol age-small)")
            && r.html.contains("age-toy-discard — age (protocol age-small)")
    );
    assert!(r.html.contains("<td>online discard</td>") && r.html.contains("<td>no</td>"));
    // After the delete, the discard run's random writes are back (50.2) and the other's not (36.6).
    assert!(r.html.contains("<td>36.6</td>") && r.html.contains("<td>50.2</td>"));

    // Every kind at once, and a bench beside an age run: one report, every chart.
    let all =
        render(&["age-toy.json", "bench-toy.json", "fill-toy.json", "wsat-toy.json", "run-toy.json", "fio-real.json"]);
    assert_eq!(stems(&all), EVERY_CHART);
    check_self_contained(&all.html);
    for (_, svg) in &all.charts {
        check_self_contained(svg);
    }
    assert_eq!(all.html.matches("<svg").count(), 8);
    check_chart(chart(&all, "four-corners"), "Four-corner throughput", &[], &["age-toy", "bench-toy"]);
    check_chart(
        chart(&all, "run-clat"),
        "Completion-latency",
        &[],
        &["run-toy: randwrite write", "fio-real: randwrite write"],
    );
    assert!(all.html.contains("bench (four-corner)"));
}

#[test]
fn same_input_same_report() {
    let a = render(&["age-toy.json", "fill-toy.json"]);
    let b = render(&["age-toy.json", "fill-toy.json"]);
    assert_eq!(a.html, b.html);
    assert_eq!(a.charts, b.charts);
}

fn error_of(name: &str, text: &str) -> String {
    let e = render_report(&[fixture("age-toy.json"), (name.to_string(), text.to_string())]).expect_err(name);
    assert!(matches!(&e, flashlab_report::ReportError::Input { file, .. } if file == name), "{e:?}");
    let shown = e.to_string();
    assert!(shown.starts_with(&format!("{name}: ")), "error does not start with the file name: {shown}");
    shown
}

#[test]
fn bad_inputs_name_the_file() {
    let (_, truncated) = fixture("truncated.json");
    let e = error_of("runs/truncated.json", &truncated);
    assert!(e.contains("malformed JSON: EOF while parsing") && e.contains("at line 2"), "{e}");

    let e = error_of("notes.txt", "flashlab was here\n");
    assert!(e.contains("malformed JSON"), "{e}");

    let (_, waf) = fixture("sim-waf.json");
    let e = error_of("waf.json", &waf);
    assert!(e.contains("`flashlab sim waf --json`") && e.contains("does not draw"), "{e}");

    let e = error_of("doctor.json", r#"{"command": "doctor", "checks": []}"#);
    assert!(e.contains("results of `flashlab doctor`, which the report does not draw"), "{e}");
    assert!(e.contains("age, bench, fill, wsat"), "the message says what it can draw: {e}");

    let e = error_of("list.json", "[1, 2, 3]");
    assert!(e.contains("not a flashlab results file") && e.contains("an array"), "{e}");

    let e = error_of("other.json", r#"{"name": "something else"}"#);
    assert!(e.contains("not a flashlab results file"), "{e}");

    let e = error_of(
        "age-bad.json",
        r#"{"command": "age", "protocol": "age", "steps": [{"label": "new", "seq_write_mbs": 1, "rand_read_mbs": 1, "rand_write_mbs": 1}]}"#,
    );
    assert!(e.contains("steps[0].seq_read_mbs: missing"), "{e}");

    let e = error_of(
        "age-type.json",
        r#"{"command": "age", "steps": [{"label": "new", "seq_read_mbs": "fast", "seq_write_mbs": 1, "rand_read_mbs": 1, "rand_write_mbs": 1}]}"#,
    );
    // serde's message, which quotes the value (the report's own said "expected a number,
    // found a string").
    assert!(e.contains("steps[0].seq_read_mbs: invalid type: string \"fast\", expected f64"), "{e}");

    let e = error_of(
        "fill-bad.json",
        r#"{"command": "fill", "result": {"deciles": [{"filled_pct": 10, "p50_us": 1, "p90_us": 2}]}}"#,
    );
    assert!(e.contains("result.deciles[0].p99_us: missing"), "{e}");

    let e = error_of("wsat-bad.json", r#"{"command": "wsat", "seed": 1}"#);
    assert!(e.contains("result: missing"), "{e}");

    let e = error_of("fio-bad.json", r#"{"fio version": "fio-3.33", "jobs": []}"#);
    assert!(e.contains("jobs: empty"), "{e}");

    assert!(render_report(&[]).is_err());
}

#[test]
fn write_outputs_writes_html_and_svgs() {
    let dir = std::env::temp_dir().join(format!("flashlab-report-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let r = render(&["age-toy.json", "wsat-toy.json"]);
    let html = dir.join("report.html");
    let svg = dir.join("svg");
    let written = write_outputs(&r, Some(&html), Some(&svg)).unwrap();
    let mut expect: Vec<PathBuf> = vec![html.clone()];
    expect.extend(["four-corners", "age-latency", "age-device", "wsat"].iter().map(|s| svg.join(format!("{s}.svg"))));
    assert_eq!(written, expect);
    assert_eq!(std::fs::read_to_string(&html).unwrap(), r.html);
    assert_eq!(std::fs::read_to_string(svg.join("wsat.svg")).unwrap(), chart(&r, "wsat"));
    // No temporary file is left behind.
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .contains("flashlab-tmp")));
    // A path that cannot be written: the error names it.
    let e = write_outputs(&r, Some(&dir.join("missing-dir/report.html")), None).unwrap_err();
    assert!(
        matches!(&e, flashlab_report::ReportError::Io { path, .. } if path.ends_with("missing-dir/report.html")),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `v` with the value at `path` (`results.steps[2].seq_read_mbs`, object keys and indices)
/// replaced by `x`, or removed for `None`.
fn edit(mut v: Value, path: &[&str], x: Option<Value>) -> String {
    let (last, parents) = path.split_last().unwrap();
    let mut at = &mut v;
    for p in parents {
        at = match p.parse::<usize>() {
            Ok(i) => &mut at[i],
            Err(_) => &mut at[*p],
        };
    }
    let o = at.as_object_mut().unwrap();
    match x {
        Some(x) => o.insert(last.to_string(), x),
        None => o.remove(*last),
    };
    v.to_string()
}

fn doc(name: &str) -> Value {
    serde_json::from_str(&fixture(name).1).unwrap()
}

#[test]
fn results_documents_draw_like_the_older_files() {
    // Every chart of every document, beside the older files and fio's JSON.
    let all = render(&[
        "age-toy-doc.json",
        "bench-toy-doc.json",
        "fill-toy-doc.json",
        "wsat-toy-doc.json",
        "run-toy-doc.json",
        "fio-real.json",
    ]);
    assert_eq!(stems(&all), EVERY_CHART);
    check_self_contained(&all.html);
    // The header comes from the document's header.
    for s in ["age (protocol age-small)", "bench (four-corner)", "wsat (QD32)", "run (fio job file, flashlab)"] {
        assert!(all.html.contains(s), "header lacks {s}");
    }
    assert!(all.html.contains("<td>flashlab 0.1.0</td>") && all.html.contains("toy: toy device for tests"));

    // Tables show the document's numbers, as the terminal prints them.
    let age = doc("age-toy-doc.json");
    let step = &age["results"]["steps"][0];
    let r = render(&["age-toy-doc.json"]);
    for x in ["seq_read_mbs", "rand_write_p99_us"] {
        let want = format!("<td>{}</td>", flashlab_report::num::sig(step[x].as_f64().unwrap(), 3));
        assert!(r.html.contains(&want), "{x}: {want} missing");
    }
    let st = &age["results"]["steps"][5]["device"]["state"];
    assert!(r.html.contains(&format!("<td>{} of {}</td>", st["free_blocks"], st["total_blocks"])));

    // The same numbers in the older layout (the body at the top, no schema_version) draw the
    // same charts: the two ways in meet in the same types.
    let mut older = age["results"].as_object().unwrap().clone();
    older.insert("command".into(), json!("age"));
    for k in ["target", "seed", "profile", "flashlab_version"] {
        older.insert(k.into(), age[k].clone());
    }
    let o = render_report(&[("age-toy-doc.json".to_string(), Value::Object(older).to_string())]).unwrap();
    assert_eq!(o.charts, r.charts);
    assert_eq!(o.html, r.html);

    // A phone document draws the run on the phone.
    let phone = json!({"schema_version": 1, "flashlab_version": "0.1.0", "command": "phone",
        "results": {"subcommand": "fill", "phone": {"model": "x"}, "results": doc("fill-toy-doc.json")}});
    let p = render_report(&[("fill-toy-doc.json".to_string(), phone.to_string())]).unwrap();
    assert_eq!(p.charts, render(&["fill-toy-doc.json"]).charts);
}

#[test]
fn a_malformed_document_names_the_field_in_the_file() {
    let age = doc("age-toy-doc.json");
    let at = |f: &'static str| vec!["results", "steps", "2", f];
    let e = error_of("a.json", &edit(age.clone(), &at("seq_read_mbs"), None));
    assert!(e.contains("a.json: results.steps[2].seq_read_mbs: missing"), "{e}");
    assert!(!e.contains("older flashlab"), "a document is not an older file: {e}");
    let e = error_of("a.json", &edit(age.clone(), &at("seq_read_mbs"), Some(json!("fast"))));
    assert!(e.contains("results.steps[2].seq_read_mbs: invalid type: string \"fast\", expected f64"), "{e}");
    let e = error_of(
        "a.json",
        &edit(age.clone(), &["results", "steps", "1", "device", "state", "free_blocks"], Some(json!(-3))),
    );
    assert!(e.contains("results.steps[1].device.state.free_blocks: invalid value: integer `-3`"), "{e}");
    let e = error_of("a.json", &edit(age.clone(), &["seed"], Some(json!("one"))));
    assert!(e.contains("a.json: seed: invalid type: string \"one\""), "{e}");
    let e = error_of("a.json", &edit(age.clone(), &["results", "steps"], Some(json!([]))));
    assert!(e.contains("results.steps: empty (no four-corner run to draw)"), "{e}");

    // Inside a flattened field (a decile's latencies) serde loses the path; the report names
    // the field whose value serde's message quotes.
    let fill = doc("fill-toy-doc.json");
    let e = error_of("f.json", &edit(fill.clone(), &["results", "deciles", "3", "p99_us"], Some(json!("slow"))));
    assert!(e.contains("results.deciles[3].p99_us: invalid type: string \"slow\", expected f64"), "{e}");
    let e = error_of("f.json", &edit(fill.clone(), &["results", "deciles", "3", "p90_us"], None));
    assert!(e.contains("results.deciles[3].p90_us: missing"), "{e}");

    // A phone document: the path of the run's document inside it.
    let phone = json!({"schema_version": 1, "flashlab_version": "0.1.0", "command": "phone",
        "results": {"subcommand": "fill", "results": edit(fill, &["results", "bytes"], None).parse::<Value>().unwrap()}});
    let e = error_of("p.json", &phone.to_string());
    assert!(e.contains("p.json: results.results.results.bytes: missing"), "{e}");
    let e = error_of("p.json", r#"{"schema_version": 1, "command": "phone", "results": {"subcommand": "devices"}}"#);
    assert!(e.contains("results of `flashlab phone devices`, which the report does not draw"), "{e}");

    // A newer document, and a command the report does not draw.
    let e = error_of("n.json", &edit(doc("wsat-toy-doc.json"), &["schema_version"], Some(json!(2))));
    assert!(e.contains("schema_version 2: written by a newer flashlab"), "{e}");
    let e = error_of("w.json", r#"{"schema_version": 1, "command": "sim waf", "results": {}}"#);
    assert!(e.contains("results of `flashlab sim waf`, which the report does not draw"), "{e}");
}

#[test]
fn an_older_file_draws_what_it_has_and_says_what_it_lacks() {
    // An older fill file has no p99.9, mean or free-block fraction (absent in the types, see
    // flashlab_results::legacy's tests); what it has draws (fill_wsat_and_run_reports checks
    // its numbers).
    assert_eq!(stems(&render(&["fill-toy.json"])), vec!["fill-latency", "fill-throughput"]);
    // A field the report needs and an older file lacks: the error says to re-run.
    let mut age = doc("age-toy.json");
    age["steps"][1].as_object_mut().unwrap().remove("rand_write_p50_us");
    let e = error_of("old.json", &age.to_string());
    assert!(e.contains("old.json: steps[1].rand_write_p50_us: missing"), "{e}");
    assert!(e.contains("written by an older flashlab") && e.contains("re-run"), "{e}");
    // A wrong value in an older file is its path in that file.
    let e = error_of("old.json", &edit(doc("wsat-toy.json"), &["result", "intervals", "4", "iops"], Some(json!(null))));
    assert!(e.contains("old.json: result.intervals[4].iops: invalid type: null"), "{e}");
    assert!(!e.contains("older flashlab"), "a wrong value is not a matter of age: {e}");
}

#[test]
fn fio_json_errors_name_the_field() {
    let fio = doc("fio-real.json");
    let e = error_of("fio.json", &edit(fio.clone(), &["jobs", "0", "write", "io_bytes"], Some(json!("lots"))));
    assert!(e.contains("fio.json: jobs[0].write.io_bytes: invalid type: string \"lots\""), "{e}");
    let e = error_of("fio.json", &edit(fio.clone(), &["jobs", "0", "jobname"], None));
    assert!(e.contains("jobs[0].jobname: missing"), "{e}");
    let e = error_of("fio.json", &edit(fio, &["jobs", "0", "write", "clat_ns", "percentile", "p99"], Some(json!(5))));
    assert!(e.contains("jobs[0].write.clat_ns.percentile: key \"p99\" is not a percentile"), "{e}");
}
