//! From results read into flashlab's types (the document's bodies; fio's JSON for job files)
//! to the report's sections: one chart each, with the tables of the numbers it shows.

use crate::chart::{self, Chart, Kind, Panel, Series, Style, XAxis, PALETTE};
use crate::fio::FioOutput;
use crate::html::{Section, Table};
use crate::{ChartError, Input};
use flashlab_results::body::{AgeBody, AgeStep, DeviceSummary, FillBody, FillDecile, WsatBody, WsatInterval};

/// Three significant digits, as the terminal tables print.
pub fn sig(v: f64) -> String {
    crate::num::sig(v, 3)
}

fn opt(v: Option<f64>) -> String {
    v.map(sig).unwrap_or_else(|| "–".into())
}

/// A count, or a dash where the file has none.
fn count(v: Option<u64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "–".into())
}

fn cols(c: &[(&str, &str)]) -> Vec<(String, String)> {
    c.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Style of a percentile series: with one file, one colour per percentile; with several, one
/// colour per file and one line style per percentile.
fn pct_style(file: usize, nfiles: usize, pct: usize) -> Style {
    if nfiles == 1 {
        Style { color: PALETTE[pct % PALETTE.len()], ..Style::pair(0, pct) }
    } else {
        Style::pair(file, pct)
    }
}

fn pct_name(series: &str, nfiles: usize, pct: &str) -> String {
    if nfiles == 1 {
        pct.to_string()
    } else {
        format!("{series} {pct}")
    }
}

/// Categories in order of first appearance across files.
fn union(lists: impl Iterator<Item = Vec<String>>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in lists {
        for x in l {
            if !out.contains(&x) {
                out.push(x);
            }
        }
    }
    out
}

pub fn sections(inputs: &[Input]) -> Result<Vec<Section>, ChartError> {
    let mut out = Vec::new();
    let ages: Vec<(&Input, &AgeBody)> = inputs.iter().filter_map(|i| Some((i, i.source.age()?))).collect();
    let fills: Vec<(&Input, &FillBody)> = inputs.iter().filter_map(|i| Some((i, i.source.fill()?))).collect();
    let wsats: Vec<(&Input, &WsatBody)> = inputs.iter().filter_map(|i| Some((i, i.source.wsat()?))).collect();
    let owned_runs: Vec<(&Input, std::borrow::Cow<FioOutput>)> =
        inputs.iter().filter_map(|i| Some((i, i.source.run()?))).collect();
    let runs: Vec<(&Input, &FioOutput)> = owned_runs.iter().map(|(i, r)| (*i, r.as_ref())).collect();
    if !ages.is_empty() {
        age_sections(&ages, &mut out)?;
    }
    if !fills.is_empty() {
        fill_sections(&fills, &mut out)?;
    }
    if !wsats.is_empty() {
        wsat_section(&wsats, &mut out)?;
    }
    if !runs.is_empty() {
        run_sections(&runs, &mut out)?;
    }
    Ok(out)
}

fn age_sections(ages: &[(&Input, &AgeBody)], out: &mut Vec<Section>) -> Result<(), ChartError> {
    let n = ages.len();
    let cats = union(ages.iter().map(|(_, d)| d.steps.iter().map(|s| s.label.clone()).collect()));
    let idx = |l: &str| cats.iter().position(|c| c == l).unwrap_or(0) as f64;
    let step_x = "protocol step".to_string();

    // Four corners: one panel per test, one bar per file and step.
    type Corner = fn(&AgeStep) -> f64;
    let corners: [(&str, Corner); 4] = [
        ("Sequential read (256 KiB, QD1)", |s| s.seq_read_mbs),
        ("Sequential write (256 KiB, QD1)", |s| s.seq_write_mbs),
        ("Random read (4 KiB, QD1)", |s| s.rand_read_mbs),
        ("Random write (4 KiB, QD1)", |s| s.rand_write_mbs),
    ];
    let panels = corners
        .iter()
        .map(|(title, f)| Panel {
            title: title.to_string(),
            x_desc: step_x.clone(),
            y_desc: "throughput (MB/s = 10^6 bytes/s)".into(),
            x: XAxis::Categories(cats.clone()),
            log_y: false,
            kind: Kind::Bars,
            series: ages
                .iter()
                .enumerate()
                .map(|(k, (i, d))| Series {
                    name: i.series.clone(),
                    style: Style::nth(k),
                    points: d.steps.iter().map(|s| (idx(&s.label), f(s))).collect(),
                })
                .collect(),
        })
        .collect();
    let c = Chart {
        stem: "four-corners".into(),
        title: "Four-corner throughput per protocol step".into(),
        panels,
        cols: 2,
        panel_height: 330,
    };
    let tables = ages
        .iter()
        .map(|(i, d)| Table {
            caption: format!("{} — {}", i.series, i.source.command()),
            columns: cols(&[
                ("step", ""),
                ("seq read", "MB/s"),
                ("seq write", "MB/s"),
                ("rand read", "MB/s"),
                ("rand write", "MB/s"),
            ]),
            rows: d
                .steps
                .iter()
                .map(|s| {
                    vec![
                        s.label.clone(),
                        sig(s.seq_read_mbs),
                        sig(s.seq_write_mbs),
                        sig(s.rand_read_mbs),
                        sig(s.rand_write_mbs),
                    ]
                })
                .collect(),
        })
        .collect();
    let notes = ages
        .iter()
        .filter(|(_, d)| !d.log.is_empty())
        .map(|(i, d)| {
            (
                format!("{}: what the other steps did", i.series),
                d.log.iter().map(|l| format!("step {} {}: {}", l.step, l.kind, l.detail)).collect(),
            )
        })
        .collect();
    out.push(Section {
        stem: c.stem.clone(),
        title: "Four-corner throughput".into(),
        caption: "AndroBench-style four-corner test after each protocol step: 256 KiB sequential and 4 KiB random reads and writes at queue depth 1 over the test file. One colour per results file.".into(),
        svg: chart::render_svg(&c)?,
        tables,
        notes,
    });

    // Random-write latency per step (every step has it: the section is never empty).
    {
        let mut series = Vec::new();
        for (k, (i, d)) in ages.iter().enumerate() {
            type Pct = fn(&AgeStep) -> f64;
            let pcts: [(&str, Pct); 2] = [("p50", |s| s.rand_write_p50_us), ("p99", |s| s.rand_write_p99_us)];
            for (p, (name, f)) in pcts.iter().enumerate() {
                let points: Vec<(f64, f64)> = d.steps.iter().map(|s| (idx(&s.label), f(s))).collect();
                series.push(Series { name: pct_name(&i.series, n, name), style: pct_style(k, n, p), points });
            }
        }
        let c = Chart {
            stem: "age-latency".into(),
            title: "Random-write latency per protocol step (4 KiB, QD1)".into(),
            panels: vec![Panel {
                title: String::new(),
                x_desc: step_x.clone(),
                y_desc: "latency (µs, log scale)".into(),
                x: XAxis::Categories(cats.clone()),
                log_y: true,
                kind: Kind::Lines,
                series,
            }],
            cols: 1,
            panel_height: 380,
        };
        let tables = ages
            .iter()
            .map(|(i, d)| Table {
                caption: i.series.clone(),
                columns: cols(&[("step", ""), ("rand write p50", "µs"), ("rand write p99", "µs")]),
                rows: d
                    .steps
                    .iter()
                    .map(|s| vec![s.label.clone(), sig(s.rand_write_p50_us), sig(s.rand_write_p99_us)])
                    .collect(),
            })
            .collect();
        out.push(Section {
            stem: c.stem.clone(),
            title: "Random-write latency".into(),
            caption: "Median (p50) and 99th-percentile (p99) completion latency of the 4 KiB random writes of each four-corner run; the p99 is what a user feels as jank.".into(),
            svg: chart::render_svg(&c)?,
            tables,
            notes: Vec::new(),
        });
    }

    // The simulated device: WAF, free blocks, GC copies, erases.
    let with_dev: Vec<(usize, &(&Input, &AgeBody))> =
        ages.iter().enumerate().filter(|(_, (_, d))| d.steps.iter().any(|s| s.device.is_some())).collect();
    if !with_dev.is_empty() {
        type Get = fn(&DeviceSummary) -> Option<f64>;
        let metrics: [(&str, &str, Get); 4] = [
            ("Write amplification since new", "WAF (NAND writes / host writes)", |d| Some(d.write_amplification)),
            ("Free blocks", "free erase blocks (count)", |d| Some(d.state.free_blocks as f64)),
            ("GC copies since new", "valid units copied by GC (4 KiB, count)", |d| {
                d.counters.gc_units_copied.map(|c| c as f64)
            }),
            ("Erases since new", "block erases (count)", |d| Some(d.counters.erases as f64)),
        ];
        let panels = metrics
            .iter()
            .map(|(title, y, f)| Panel {
                title: title.to_string(),
                x_desc: step_x.clone(),
                y_desc: y.to_string(),
                x: XAxis::Categories(cats.clone()),
                log_y: false,
                kind: Kind::Lines,
                series: with_dev
                    .iter()
                    .map(|(k, (i, d))| Series {
                        name: i.series.clone(),
                        style: Style::nth(*k),
                        points: d
                            .steps
                            .iter()
                            .filter_map(|s| s.device.as_ref().and_then(f).map(|v| (idx(&s.label), v)))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        let c = Chart {
            stem: "age-device".into(),
            title: "Simulated device after each protocol step".into(),
            panels,
            cols: 2,
            panel_height: 320,
        };
        let tables = with_dev
            .iter()
            .map(|(_, (i, d))| Table {
                caption: i.series.clone(),
                columns: cols(&[
                    ("step", ""),
                    ("WAF", ""),
                    ("free blocks", ""),
                    ("GC copies", "4 KiB"),
                    ("erases", ""),
                ]),
                rows: d
                    .steps
                    .iter()
                    .map(|s| match &s.device {
                        Some(dev) => vec![
                            s.label.clone(),
                            format!("{:.2}", dev.write_amplification),
                            format!("{} of {}", dev.state.free_blocks, dev.state.total_blocks),
                            count(dev.counters.gc_units_copied),
                            dev.counters.erases.to_string(),
                        ],
                        None => vec![s.label.clone(), "–".into(), "–".into(), "–".into(), "–".into()],
                    })
                    .collect(),
            })
            .collect();
        out.push(Section {
            stem: c.stem.clone(),
            title: "Device: write amplification, free blocks, garbage collection".into(),
            caption: "The simulated device's counters at the end of each four-corner run (cumulative since the device was new): write amplification, free erase blocks, units copied by garbage collection, and erases.".into(),
            svg: chart::render_svg(&c)?,
            tables,
            notes: Vec::new(),
        });
    }
    Ok(())
}

fn fill_sections(fills: &[(&Input, &FillBody)], out: &mut Vec<Section>) -> Result<(), ChartError> {
    let n = fills.len();
    let mut series = Vec::new();
    for (k, (i, d)) in fills.iter().enumerate() {
        type Get = fn(&FillDecile) -> f64;
        let pcts: [(&str, Get); 3] =
            [("p50", |x| x.latency.p50_us), ("p90", |x| x.latency.p90_us), ("p99", |x| x.latency.p99_us)];
        for (p, (name, f)) in pcts.iter().enumerate() {
            series.push(Series {
                name: pct_name(&i.series, n, name),
                style: pct_style(k, n, p),
                points: d.deciles.iter().map(|x| (f64::from(x.filled_pct), f(x))).collect(),
            });
        }
    }
    let c = Chart {
        stem: "fill-latency".into(),
        title: "Random-write latency while filling the device (4 KiB)".into(),
        panels: vec![Panel {
            title: String::new(),
            x_desc: "device filled (%)".into(),
            y_desc: "latency (µs, log scale)".into(),
            x: XAxis::Linear { lo: 0.0, hi: 100.0 },
            log_y: true,
            kind: Kind::Lines,
            series,
        }],
        cols: 1,
        panel_height: 380,
    };
    let tables = fills
        .iter()
        .map(|(i, d)| Table {
            caption: format!("{} — {}", i.series, i.source.command()),
            columns: cols(&[("filled", "%"), ("p50", "µs"), ("p90", "µs"), ("p99", "µs"), ("max", "µs")]),
            rows: d
                .deciles
                .iter()
                .map(|x| {
                    let l = &x.latency;
                    vec![format!("{}", x.filled_pct), sig(l.p50_us), sig(l.p90_us), sig(l.p99_us), sig(l.max_us)]
                })
                .collect(),
        })
        .collect();
    out.push(Section {
        stem: c.stem.clone(),
        title: "Fill: latency percentiles against fill".into(),
        caption: "4 KiB random writes fill the new device's free space once; p50, p90 and p99 completion latency over each tenth of the fill, plotted at the fill reached at its end.".into(),
        svg: chart::render_svg(&c)?,
        tables,
        notes: Vec::new(),
    });

    // Throughput and WAF (every decile has them).
    {
        type Get = fn(&FillDecile) -> f64;
        let metrics: [(&str, &str, Get); 2] = [
            ("Write throughput", "throughput (MB/s = 10^6 bytes/s)", |x| x.latency.mbs),
            ("Write amplification", "WAF (NAND writes / host writes)", |x| x.latency.write_amplification),
        ];
        let panels = metrics
            .iter()
            .map(|(title, y, f)| Panel {
                title: title.to_string(),
                x_desc: "device filled (%)".into(),
                y_desc: y.to_string(),
                x: XAxis::Linear { lo: 0.0, hi: 100.0 },
                log_y: false,
                kind: Kind::Lines,
                series: fills
                    .iter()
                    .enumerate()
                    .map(|(k, (i, d))| Series {
                        name: i.series.clone(),
                        style: Style::nth(k),
                        points: d.deciles.iter().map(|x| (f64::from(x.filled_pct), f(x))).collect(),
                    })
                    .collect(),
            })
            .collect();
        let c = Chart {
            stem: "fill-throughput".into(),
            title: "Throughput and write amplification while filling".into(),
            panels,
            cols: 2,
            panel_height: 320,
        };
        let tables = fills
            .iter()
            .map(|(i, d)| Table {
                caption: i.series.clone(),
                columns: cols(&[("filled", "%"), ("write", "MB/s"), ("WAF", "")]),
                rows: d
                    .deciles
                    .iter()
                    .map(|x| {
                        vec![
                            format!("{}", x.filled_pct),
                            sig(x.latency.mbs),
                            format!("{:.2}", x.latency.write_amplification),
                        ]
                    })
                    .collect(),
            })
            .collect();
        out.push(Section {
            stem: c.stem.clone(),
            title: "Fill: throughput and write amplification".into(),
            caption: "Write throughput and write amplification over each tenth of the fill.".into(),
            svg: chart::render_svg(&c)?,
            tables,
            notes: Vec::new(),
        });
    }
    Ok(())
}

fn wsat_section(wsats: &[(&Input, &WsatBody)], out: &mut Vec<Section>) -> Result<(), ChartError> {
    let hi = wsats.iter().flat_map(|(_, d)| d.intervals.iter().map(|x| x.capacity_written)).fold(0.0, f64::max);
    let hi = if hi > 0.0 { hi } else { 1.0 };
    type Get = fn(&WsatInterval) -> f64;
    let metrics: [(&str, &str, Get); 3] = [
        ("IOPS", "IOPS (4 KiB writes per second)", |x| x.iops),
        ("Write amplification", "WAF (NAND writes / host writes)", |x| x.write_amplification),
        ("Free blocks", "free erase blocks (count)", |x| x.free_blocks as f64),
    ];
    let panels = metrics
        .iter()
        .map(|(title, y, f)| Panel {
            title: title.to_string(),
            x_desc: "capacity written (× device capacity)".into(),
            y_desc: y.to_string(),
            x: XAxis::Linear { lo: 0.0, hi },
            log_y: false,
            kind: Kind::Lines,
            series: wsats
                .iter()
                .enumerate()
                .map(|(k, (i, d))| Series {
                    name: i.series.clone(),
                    style: Style::nth(k),
                    points: d.intervals.iter().map(|x| (x.capacity_written, f(x))).collect(),
                })
                .collect(),
        })
        .collect();
    let c = Chart {
        stem: "wsat".into(),
        title: "Write saturation: 4 KiB random writes on a new device".into(),
        panels,
        cols: 1,
        panel_height: 280,
    };
    let tables = wsats
        .iter()
        .map(|(i, d)| {
            let step = (d.intervals.len() / 20).max(1);
            Table {
                caption: format!("{} — {} (every {}th interval)", i.series, i.source.command(), step),
                columns: cols(&[
                    ("written", "× capacity"),
                    ("at", "s"),
                    ("IOPS", ""),
                    ("WAF", ""),
                    ("free blocks", ""),
                ]),
                rows: d
                    .intervals
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| j % step == step - 1 || j + 1 == d.intervals.len())
                    .map(|(_, x)| {
                        vec![
                            format!("{:.2}", x.capacity_written),
                            sig(x.at_s),
                            sig(x.iops),
                            format!("{:.2}", x.write_amplification),
                            x.free_blocks.to_string(),
                        ]
                    })
                    .collect(),
            }
        })
        .collect();
    out.push(Section {
        stem: c.stem.clone(),
        title: "Write saturation (wsat)".into(),
        caption: "SNIA-style write saturation: uniform 4 KiB random writes over the whole device until several times its capacity is written. IOPS fall off the write cliff when garbage collection starts; write amplification rises as free blocks run out.".into(),
        svg: chart::render_svg(&c)?,
        tables,
        notes: Vec::new(),
    });
    Ok(())
}

fn pct_label(p: f64) -> String {
    let s = format!("{p:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn run_sections(runs: &[(&Input, &FioOutput)], out: &mut Vec<Section>) -> Result<(), ChartError> {
    let n = runs.len();
    // Completion-latency percentiles per job and direction.
    let mut pcts: Vec<f64> = runs
        .iter()
        .flat_map(|(_, d)| {
            d.jobs.iter().flat_map(|j| j.directions().flat_map(|(_, x)| x.percentiles().into_iter().map(|p| p.0)))
        })
        .collect();
    pcts.sort_by(|a, b| a.total_cmp(b));
    pcts.dedup();
    let cats: Vec<String> = pcts.iter().map(|p| pct_label(*p)).collect();
    let mut series = Vec::new();
    let mut k = 0;
    for (i, d) in runs {
        for j in &d.jobs {
            for (dname, dir) in j.directions() {
                let clat = dir.percentiles();
                if clat.is_empty() {
                    continue;
                }
                let name = if n == 1 {
                    format!("{} {}", j.jobname, dname)
                } else {
                    format!("{}: {} {}", i.series, j.jobname, dname)
                };
                let points = clat
                    .iter()
                    .filter_map(|(p, ns)| pcts.iter().position(|q| q == p).map(|x| (x as f64, ns / 1e3)))
                    .collect();
                series.push(Series { name, style: Style::nth(k), points });
                k += 1;
            }
        }
    }
    let clat_table = |i: &Input, d: &FioOutput| {
        let at = |v: &[(f64, f64)], p: f64| {
            v.iter().find(|q| (q.0 - p).abs() < 1e-9).map(|q| sig(q.1 / 1e3)).unwrap_or_else(|| "–".into())
        };
        Table {
            caption: format!("{} — {}", i.series, i.source.command()),
            columns: cols(&[
                ("job", ""),
                ("dir", ""),
                ("p50", "µs"),
                ("p90", "µs"),
                ("p99", "µs"),
                ("p99.9", "µs"),
                ("max", "µs"),
            ]),
            rows: d
                .jobs
                .iter()
                .flat_map(|j| {
                    j.directions().map(move |(name, x)| {
                        let clat = x.percentiles();
                        vec![
                            j.jobname.clone(),
                            name.to_string(),
                            at(&clat, 50.0),
                            at(&clat, 90.0),
                            at(&clat, 99.0),
                            at(&clat, 99.9),
                            opt(x.max_ns().map(|m| m / 1e3)),
                        ]
                    })
                })
                .collect(),
        }
    };
    if !series.is_empty() {
        let c = Chart {
            stem: "run-clat".into(),
            title: "Completion-latency percentiles per job".into(),
            panels: vec![Panel {
                title: String::new(),
                x_desc: "percentile (%)".into(),
                y_desc: "completion latency (µs, log scale)".into(),
                x: XAxis::Categories(cats),
                log_y: true,
                kind: Kind::Lines,
                series,
            }],
            cols: 1,
            panel_height: 400,
        };
        out.push(Section {
            stem: c.stem.clone(),
            title: "Job file: completion-latency percentiles".into(),
            caption: "fio's completion-latency percentiles (clat_ns) of each job and direction. The JSON holds no per-interval samples, so bandwidth over time is not drawn (`flashlab run --csv` writes it per 500 ms).".into(),
            svg: chart::render_svg(&c)?,
            tables: runs.iter().map(|(i, d)| clat_table(i, d)).collect(),
            notes: Vec::new(),
        });
    }
    // Bandwidth per job.
    let jcats = union(runs.iter().map(|(_, d)| {
        d.jobs.iter().flat_map(|j| j.directions().map(move |(x, _)| format!("{} {}", j.jobname, x))).collect()
    }));
    if !jcats.is_empty() {
        let idx = |l: &str| jcats.iter().position(|c| c == l).unwrap_or(0) as f64;
        let series = runs
            .iter()
            .enumerate()
            .map(|(k, (i, d))| Series {
                name: i.series.clone(),
                style: Style::nth(k),
                points: d
                    .jobs
                    .iter()
                    .flat_map(|j| {
                        j.directions().map(move |(x, d)| (idx(&format!("{} {}", j.jobname, x)), d.bw_bytes() / 1e6))
                    })
                    .collect(),
            })
            .collect();
        let c = Chart {
            stem: "run-bandwidth".into(),
            title: "Bandwidth per job".into(),
            panels: vec![Panel {
                title: String::new(),
                x_desc: "job and direction".into(),
                y_desc: "bandwidth (MB/s = 10^6 bytes/s)".into(),
                x: XAxis::Categories(jcats),
                log_y: false,
                kind: Kind::Bars,
                series,
            }],
            cols: 1,
            panel_height: 360,
        };
        let tables = runs
            .iter()
            .map(|(i, d)| Table {
                caption: i.series.clone(),
                columns: cols(&[
                    ("job", ""),
                    ("group", ""),
                    ("rw", ""),
                    ("bs", ""),
                    ("QD", ""),
                    ("dir", ""),
                    ("bandwidth", "MB/s"),
                    ("IOPS", ""),
                    ("WAF", "device"),
                ]),
                rows: d
                    .jobs
                    .iter()
                    .flat_map(|j| {
                        j.directions().map(move |(name, x)| {
                            vec![
                                j.jobname.clone(),
                                j.groupid.to_string(),
                                d.option(j, &["rw", "readwrite"]).unwrap_or_default(),
                                d.option(j, &["bs", "blocksize"]).unwrap_or_default(),
                                d.option(j, &["iodepth"]).unwrap_or_default(),
                                name.to_string(),
                                sig(x.bw_bytes() / 1e6),
                                sig(x.iops.unwrap_or(0.0)),
                                j.flashlab_device
                                    .as_ref()
                                    .map(|dv| format!("{:.2}", dv.write_amplification))
                                    .unwrap_or_else(|| "–".into()),
                            ]
                        })
                    })
                    .collect(),
            })
            .collect();
        out.push(Section {
            stem: c.stem.clone(),
            title: "Job file: bandwidth per job".into(),
            caption: "Each job's mean bandwidth (fio's bw_bytes) per direction. WAF is the simulated device's write amplification at the end of the job's group.".into(),
            svg: chart::render_svg(&c)?,
            tables,
            notes: Vec::new(),
        });
    }
    Ok(())
}
