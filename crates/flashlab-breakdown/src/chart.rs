//! The breakdown chart: one stacked bar per job (block size × queue depth, per direction),
//! stacked from the phase means, as an SVG drawn with plotters (flashlab-report's charts have
//! grouped bars and lines but no stacked bars, so this small chart lives here), and the HTML
//! page around it, written by flashlab-report's one HTML writer.

use crate::report::{size_name, Report};
use crate::BreakdownError;
use flashlab_report::html::{esc, render, Page, Section};
use plotters::prelude::*;

const COLORS: [RGBColor; 4] =
    [RGBColor(31, 119, 180), RGBColor(255, 127, 14), RGBColor(44, 160, 44), RGBColor(214, 39, 40)];

/// The SVG of `r`: one bar per job, stacked from the phase means; the upper panel in µs, the
/// lower one as shares of the total (so the phases of short requests stay visible).
pub fn render_svg(r: &Report) -> Result<String, BreakdownError> {
    let n = r.jobs.len().max(1);
    let width = (160 + 120 * n as u32).max(560);
    let height = 760u32;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| BreakdownError::Chart(e.to_string()))?;
        let title = format!(
            "{} — {}",
            r.target,
            if r.is_model() { "model: where the time goes" } else { "measured: where the time goes" }
        );
        let root = root.titled(&title, ("sans-serif", 18)).map_err(|e| BreakdownError::Chart(e.to_string()))?;
        let (top, bottom) = root.split_vertically(height / 2 - 10);
        // Upper panel: mean µs per phase; lower: each phase's share of the total, in %.
        panel(&top, r, "mean latency, µs", true, |j, pi| j.breakdown.phases[pi].dist.mean_ns.max(0.0) / 1000.0)?;
        panel(&bottom, r, "share of latency, %", false, |j, pi| j.breakdown.phases[pi].share.max(0.0) * 100.0)?;
        root.present().map_err(|e| BreakdownError::Chart(e.to_string()))?;
    }
    Ok(buf)
}

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    r: &Report,
    y_desc: &str,
    legend: bool,
    value: impl Fn(&crate::report::JobReport, usize) -> f64,
) -> Result<(), BreakdownError> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| BreakdownError::Chart(e.to_string());
    let n = r.jobs.len().max(1);
    let phases = r.phase_names.len();
    let ymax = r.jobs.iter().map(|j| (0..phases).map(|pi| value(j, pi)).sum::<f64>()).fold(0.0, f64::max);
    // Headroom above the tallest bar for the legend.
    let ymax = if ymax > 0.0 { ymax * if legend { 1.45 } else { 1.02 } } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..ymax)
        .map_err(err)?;
    let labels: Vec<String> =
        r.jobs.iter().map(|j| format!("{} {} QD{}", &j.rw[4..], size_name(j.bs), j.iodepth)).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n + 1)
        .max_light_lines(0)
        .y_labels(8)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (*x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                labels[i as usize].clone()
            } else {
                String::new()
            }
        })
        .y_desc(y_desc)
        .draw()
        .map_err(err)?;
    for (pi, name) in r.phase_names.iter().enumerate() {
        let color = COLORS[pi % COLORS.len()];
        let bars: Vec<Rectangle<(f64, f64)>> = r
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let below: f64 = (0..pi).map(|q| value(j, q)).sum();
                let h = value(j, pi);
                Rectangle::new([(i as f64 - 0.3, below), (i as f64 + 0.3, below + h)], color.filled())
            })
            .collect();
        let series = chart.draw_series(bars).map_err(err)?;
        if legend {
            series
                .label(name.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
        }
    }
    if !legend {
        return Ok(());
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    Ok(())
}

/// A self-contained HTML page (the workspace's one HTML writer, `flashlab_report::html`):
/// the chart and the summary table.
pub fn render_html(r: &Report) -> Result<String, BreakdownError> {
    let source = if r.is_model() { "model" } else { "measured" };
    let section = Section {
        stem: "breakdown".into(),
        title: format!("Where the latency goes ({source})"),
        caption: format!("{} — {source}", r.description),
        svg: render_svg(r)?,
        ..Section::default()
    };
    Ok(render(&Page {
        title: format!("flashlab breakdown: {}", r.target),
        intro: format!("<pre>{}</pre>\n", esc(&r.render_summary())),
        sections: vec![section],
        footer: format!("Made by flashlab-breakdown {}.", env!("CARGO_PKG_VERSION")),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim_model::model_job;
    use crate::{job_matrix, Dir};

    #[test]
    fn chart_has_a_stacked_bar_per_phase_and_job() {
        let p = crate::command::sim_profile("sim:toy").unwrap();
        let jobs: Vec<_> = job_matrix(&[Dir::Read], &[4096], &[1, 8])
            .into_iter()
            .map(|k| model_job(&p, 1, k, 200, 8 << 20).unwrap())
            .collect();
        let r = Report::model("sim:toy".into(), "toy".into(), &jobs, vec![]);
        let svg = render_svg(&r).unwrap();
        for name in crate::sim_model::PHASES {
            assert!(svg.contains(name), "legend lacks {name}");
        }
        assert!(svg.contains("read 4KiB QD1") && svg.contains("read 4KiB QD8"));
        // Two panels × 4 phases × 2 jobs filled bars, plus the legend's 4 swatches.
        let filled = svg.matches("<rect").count();
        assert!(filled >= 2 * 4 * 2 + 4, "{filled} rects");
        let html = render_html(&r).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg") && html.contains("model"));
    }
}
