//! The breakdown chart: one stacked bar per job (block size × queue depth, per direction),
//! stacked from the phase means, as an SVG (and a minimal HTML page around it), drawn with
//! plotters. flashlab-report's charts have grouped bars and lines but no stacked bars, so this
//! small writer lives here rather than in that crate.

use crate::report::{size_name, Report};
use plotters::prelude::*;

const COLORS: [RGBColor; 4] =
    [RGBColor(31, 119, 180), RGBColor(255, 127, 14), RGBColor(44, 160, 44), RGBColor(214, 39, 40)];

/// The SVG of `r`: the y axis is µs; one bar per job.
pub fn render_svg(r: &Report) -> Result<String, String> {
    let n = r.jobs.len().max(1);
    let width = (160 + 90 * n as u32).max(560);
    let height = 440u32;
    let ymax = r
        .jobs
        .iter()
        .map(|j| j.breakdown.phases.iter().map(|p| p.dist.mean_ns.max(0.0)).sum::<f64>())
        .fold(0.0, f64::max)
        / 1000.0;
    let ymax = if ymax > 0.0 { ymax * 1.15 } else { 1.0 };
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let title = format!(
            "{} — {}",
            r.target,
            if r.is_model() { "model: where the time goes" } else { "measured: where the time goes" }
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .right_y_label_area_size(10)
            .build_cartesian_2d(0f64..n as f64, 0f64..ymax)
            .map_err(|e| e.to_string())?;
        let labels: Vec<String> =
            r.jobs.iter().map(|j| format!("{} {} QD{}", &j.rw[4..], size_name(j.bs), j.iodepth)).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n + 1)
            .x_label_formatter(&|x| {
                let i = (*x - 0.5).round();
                if (*x - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                    labels[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .y_desc("mean latency, µs")
            .draw()
            .map_err(|e| e.to_string())?;
        for (pi, name) in r.phase_names.iter().enumerate() {
            let color = COLORS[pi % COLORS.len()];
            let bars: Vec<Rectangle<(f64, f64)>> = r
                .jobs
                .iter()
                .enumerate()
                .map(|(i, j)| {
                    let below: f64 =
                        j.breakdown.phases[..pi].iter().map(|p| p.dist.mean_ns.max(0.0)).sum::<f64>() / 1000.0;
                    let h = j.breakdown.phases[pi].dist.mean_ns.max(0.0) / 1000.0;
                    Rectangle::new([(i as f64 + 0.2, below), (i as f64 + 0.8, below + h)], color.filled())
                })
                .collect();
            chart
                .draw_series(bars)
                .map_err(|e| e.to_string())?
                .label(name.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}

/// A self-contained HTML page: the chart and the summary table.
pub fn render_html(r: &Report) -> Result<String, String> {
    let svg = render_svg(r)?;
    let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    Ok(format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>flashlab breakdown</title></head>\n<body style=\"font-family:sans-serif\">\n<h1>flashlab breakdown: {}</h1>\n<p>{} — {}</p>\n{svg}\n<pre>{}</pre>\n</body></html>\n",
        esc(&r.target),
        esc(&r.description),
        if r.is_model() { "model" } else { "measured" },
        esc(&r.render_summary())
    ))
}
