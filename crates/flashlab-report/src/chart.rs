//! A small chart description (panels of bars or lines, a shared legend) drawn with plotters'
//! SVG backend.
//!
//! Text is SVG `<text>` in the generic `sans-serif` family: nothing depends on a font being
//! installed when the chart is drawn, and the viewer's own sans-serif is used when it is shown.
//! Sizes below are CSS pixels of the rendered text.

use crate::ChartError;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Okabe & Ito's palette, distinguishable with the common colour-vision deficiencies; yellow
/// (hard to see on white) last.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xF0, 0xE4, 0x42), // yellow
];

/// The mark drawn at each point of a line series (tells series apart in grey).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Marker {
    /// A filled circle.
    Circle,
    /// A filled triangle.
    Triangle,
    /// A filled square.
    Square,
    /// An x.
    Cross,
}

const MARKERS: [Marker; 4] = [Marker::Circle, Marker::Triangle, Marker::Square, Marker::Cross];

/// How one series looks: colour, marker, dashed or solid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// Line and bar colour (from [`PALETTE`]).
    pub color: RGBColor,
    /// The mark at each point.
    pub marker: Marker,
    /// Dashed line (solid when false).
    pub dashed: bool,
}

impl Style {
    /// The `i`-th series' look: colours first, then markers, so that series stay apart in grey too.
    pub fn nth(i: usize) -> Style {
        Style {
            color: PALETTE[i % PALETTE.len()],
            marker: MARKERS[(i / PALETTE.len() + i) % MARKERS.len()],
            dashed: false,
        }
    }
    /// Colour from `color`, marker and dash from `variant` (e.g. one colour per file, one line
    /// style per percentile).
    pub fn pair(color: usize, variant: usize) -> Style {
        Style {
            color: PALETTE[color % PALETTE.len()],
            marker: MARKERS[variant % MARKERS.len()],
            dashed: variant % 2 == 1,
        }
    }
}

/// How a panel draws its series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// Grouped bars, one group per category.
    Bars,
    /// Lines with a marker at each point.
    Lines,
}

/// One named series of points.
#[derive(Debug, Clone)]
pub struct Series {
    /// Its name in the legend.
    pub name: String,
    /// How it is drawn.
    pub style: Style,
    /// (x, y); for a categorical x axis, x is the category's index.
    pub points: Vec<(f64, f64)>,
}

/// A panel's x axis.
#[derive(Debug, Clone)]
pub enum XAxis {
    /// Named categories, one per x index (bars, steps).
    Categories(Vec<String>),
    /// A numeric axis from `lo` to `hi`, in the unit of `x_desc`.
    Linear {
        /// The left end.
        lo: f64,
        /// The right end.
        hi: f64,
    },
}

/// One plot area: axes, title and series.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Title above the plot.
    pub title: String,
    /// The x axis label, with its unit.
    pub x_desc: String,
    /// The y axis label, with its unit.
    pub y_desc: String,
    /// The x axis.
    pub x: XAxis,
    /// Logarithmic y axis (latencies).
    pub log_y: bool,
    /// Bars or lines.
    pub kind: Kind,
    /// The series drawn in it.
    pub series: Vec<Series>,
}

/// A chart: a title over a grid of panels, drawn as one SVG document.
#[derive(Debug, Clone)]
pub struct Chart {
    /// File stem for `--svg DIR` (`four-corners` → `four-corners.svg`) and the HTML anchor.
    pub stem: String,
    /// Title above all panels.
    pub title: String,
    /// The panels, row by row.
    pub panels: Vec<Panel>,
    /// Panels per row.
    pub cols: usize,
    /// Height of one panel, in pixels.
    pub panel_height: u32,
}

/// Width of every chart, in pixels.
pub const WIDTH: u32 = 880;
const TITLE_H: u32 = 34;
const LEGEND_ROW_H: u32 = 24;
const FONT: &str = "sans-serif";
/// Category names under a categorical x axis.
const CAT_PX: f64 = 13.0;

/// A font of `px` CSS pixels (plotters' SVG backend writes font-size = size / 1.24).
fn font(px: f64) -> FontDesc<'static> {
    (FONT, px * 1.24).into_font()
}

/// A generous estimate of a text's width in pixels (no font metrics at render time).
pub fn text_width(s: &str, px: f64) -> f64 {
    s.chars()
        .map(|c| {
            if c.is_ascii_uppercase() || c == 'm' || c == 'w' {
                0.78
            } else if " .,:;il1()|'".contains(c) {
                0.33
            } else {
                0.58
            }
        })
        .sum::<f64>()
        * px
}

fn err<E: std::fmt::Debug>(e: E) -> ChartError {
    ChartError::of(e)
}

/// The legend's entries: every distinct series name of the chart, in order.
fn legend(chart: &Chart) -> Vec<(String, Style, Kind)> {
    let mut out: Vec<(String, Style, Kind)> = Vec::new();
    for p in &chart.panels {
        for s in &p.series {
            if !out.iter().any(|(n, ..)| *n == s.name) {
                out.push((s.name.clone(), s.style, p.kind));
            }
        }
    }
    out
}

const LEGEND_PX: f64 = 14.0;

/// Lay the legend out in rows: ((x, row), entry).
fn legend_layout(entries: &[(String, Style, Kind)]) -> (Vec<(f64, u32)>, u32) {
    let mut pos = Vec::new();
    let (left, right) = (24.0, WIDTH as f64 - 24.0);
    let (mut x, mut row) = (left, 0);
    for (name, ..) in entries {
        let w = 34.0 + text_width(name, LEGEND_PX) + 22.0;
        if x + w > right && x > left {
            x = left;
            row += 1;
        }
        pos.push((x, row));
        x += w;
    }
    let rows = if entries.is_empty() { 0 } else { row + 1 };
    (pos, rows)
}

/// The chart as a standalone SVG document.
pub fn render_svg(chart: &Chart) -> Result<String, ChartError> {
    let entries = legend(chart);
    let (lpos, lrows) = legend_layout(&entries);
    let legend_h = lrows * LEGEND_ROW_H + 6;
    let cols = chart.cols.max(1);
    let rows = chart.panels.len().div_ceil(cols).max(1) as u32;
    let height = TITLE_H + legend_h + rows * chart.panel_height + 6;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        root.draw(&Text::new(
            chart.title.clone(),
            (WIDTH as i32 / 2, 8),
            font(19.0).style(FontStyle::Bold).color(&BLACK).pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(err)?;
        let (_, rest) = root.split_vertically(TITLE_H);
        let (legend_area, grid) = rest.split_vertically(legend_h);
        for ((name, style, kind), (x, row)) in entries.iter().zip(&lpos) {
            let y = (row * LEGEND_ROW_H) as i32 + 11;
            let x = *x as i32;
            match kind {
                Kind::Bars => {
                    legend_area
                        .draw(&Rectangle::new([(x + 6, y - 6), (x + 24, y + 6)], style.color.filled()))
                        .map_err(err)?;
                }
                Kind::Lines => {
                    let st = style.color.stroke_width(2);
                    if style.dashed {
                        legend_area.draw(&PathElement::new(vec![(x, y), (x + 8, y)], st)).map_err(err)?;
                        legend_area.draw(&PathElement::new(vec![(x + 22, y), (x + 30, y)], st)).map_err(err)?;
                    } else {
                        legend_area.draw(&PathElement::new(vec![(x, y), (x + 30, y)], st)).map_err(err)?;
                    }
                    draw_marker_px(&legend_area, (x + 15, y), *style)?;
                }
            }
            legend_area
                .draw(&Text::new(
                    name.clone(),
                    (x + 36, y),
                    font(LEGEND_PX).color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center)),
                ))
                .map_err(err)?;
        }
        let areas = grid.split_evenly((rows as usize, cols));
        for (p, area) in chart.panels.iter().zip(areas.iter()) {
            draw_panel(&root, area, p)?;
        }
        root.present().map_err(err)?;
    }
    Ok(buf)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn draw_marker_px(area: &Area, (x, y): (i32, i32), s: Style) -> Result<(), ChartError> {
    let fill = s.color.filled();
    match s.marker {
        Marker::Circle => area.draw(&Circle::new((x, y), 4, fill)),
        Marker::Triangle => area.draw(&TriangleMarker::new((x, y), 5, fill)),
        Marker::Square => area.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], fill)),
        Marker::Cross => area.draw(&Cross::new((x, y), 4, s.color.stroke_width(2))),
    }
    .map_err(err)
}

/// The largest and smallest magnitudes a y axis spans (beyond them a value is drawn at the edge).
const Y_MAX: f64 = 1e300;
const Y_MIN: f64 = 1e-300;

/// The y range: from 0 for linear axes (bars start at zero), whole decades for log axes.
fn y_range(p: &Panel) -> (f64, f64) {
    let ys = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.1)).filter(|y| y.is_finite());
    if p.log_y {
        let pos: Vec<f64> = ys.filter(|y| *y > 0.0).collect();
        if pos.is_empty() {
            return (1.0, 10.0);
        }
        // Values outside 1e-300..1e300 are drawn at the edge: the rounding below (and the
        // axis) must stay finite and non-zero.
        let lo = pos.iter().cloned().fold(f64::INFINITY, f64::min).clamp(Y_MIN, Y_MAX);
        let hi = pos.iter().cloned().fold(0.0, f64::max).clamp(Y_MIN, Y_MAX);
        // Round outwards to 1, 2 or 5 times a power of ten.
        let down = |v: f64| {
            let d = 10f64.powf(v.log10().floor());
            [5.0, 2.0, 1.0].iter().map(|m| m * d).find(|c| *c <= v * 1.000001).unwrap_or(d)
        };
        let up = |v: f64| {
            let d = 10f64.powf(v.log10().floor());
            [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * d).find(|c| *c >= v * 0.999999).unwrap_or(10.0 * d)
        };
        let lo = down(lo / 1.05);
        let mut hi = up(hi * 1.05);
        if hi <= lo * 2.0 {
            hi = up(lo * 2.5);
        }
        (lo, hi)
    } else {
        let hi = ys.fold(0.0, f64::max).min(Y_MAX);
        (0.0, if hi > 0.0 { hi * 1.15 } else { 1.0 })
    }
}

/// Values above bars: three significant digits, as the tables.
pub fn sig3(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    crate::num::sig(v, 3)
}

/// Numbers on axes: three significant digits, no exponent.
pub fn fmt_num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let a = v.abs();
    if a >= 1e6 && (a / 1e6).fract() == 0.0 {
        return format!("{}M", v / 1e6);
    }
    if a >= 100.0 {
        return format!("{}", v.round());
    }
    let mag = a.log10().floor() as i32;
    let decimals = (2 - mag).clamp(0, 6) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// `p` with every point inside what the axes can draw: a value far outside the axis range
/// (1.7e308 on a chart of MB/s) is drawn at the edge, not turned into a pixel coordinate that
/// overflows; non-finite x values are dropped. The x range itself is kept finite and non-empty.
fn drawable(p: &Panel, ylo: f64, yhi: f64) -> Panel {
    let mut p = p.clone();
    let span = (yhi - ylo).max(f64::MIN_POSITIVE);
    let (ymin, ymax) = if p.log_y { (ylo / 10.0, yhi * 10.0) } else { (ylo - span, yhi + span) };
    if let XAxis::Linear { lo, hi } = &mut p.x {
        *lo = if lo.is_finite() { lo.clamp(-Y_MAX, Y_MAX) } else { 0.0 };
        *hi = if hi.is_finite() { hi.clamp(-Y_MAX, Y_MAX) } else { *lo + 1.0 };
        if *hi <= *lo {
            *hi = *lo + lo.abs().max(1.0);
        }
    }
    let (xmin, xmax) = match &p.x {
        XAxis::Linear { lo, hi } => (lo - (hi - lo), hi + (hi - lo)),
        XAxis::Categories(c) => (-1.0, c.len() as f64),
    };
    for s in &mut p.series {
        s.points.retain(|q| q.0.is_finite());
        for q in &mut s.points {
            q.0 = q.0.clamp(xmin, xmax);
            if q.1.is_finite() && (!p.log_y || q.1 > 0.0) {
                q.1 = q.1.clamp(ymin, ymax);
            }
        }
    }
    p
}

fn draw_panel(root: &Area, area: &Area, p: &Panel) -> Result<(), ChartError> {
    let (ylo, yhi) = y_range(p);
    let p = &drawable(p, ylo, yhi);
    let mut b = ChartBuilder::on(area);
    b.caption(&p.title, font(16.0).color(&BLACK)).margin_left(8).margin_right(18).margin_top(4).margin_bottom(4);
    let x_area = match &p.x {
        XAxis::Categories(c) => {
            // The plot's width is the area's less the y labels and margins; each category gets a slot.
            let slot = (area.dim_in_pixel().0 as f64 - 72.0 - 26.0) / c.len().max(1) as f64 - 6.0;
            let lines = c.iter().map(|l| wrap(l, slot.max(20.0), CAT_PX).len()).max().unwrap_or(1) as u32;
            14 + 15 * lines + 26
        }
        XAxis::Linear { .. } => 48,
    };
    b.x_label_area_size(x_area).y_label_area_size(76);
    match (&p.x, p.log_y) {
        (XAxis::Categories(c), log) => {
            let n = c.len().max(1) as f64;
            let x: RangedCoordf64 = (-0.5..n - 0.5).into();
            if log {
                finish(root, b.build_cartesian_2d(x, (ylo..yhi).log_scale()).map_err(err)?, p, ylo)
            } else {
                finish(root, b.build_cartesian_2d(x, ylo..yhi).map_err(err)?, p, ylo)
            }
        }
        (XAxis::Linear { lo, hi }, log) => {
            let x: RangedCoordf64 = (*lo..*hi).into();
            if log {
                finish(root, b.build_cartesian_2d(x, (ylo..yhi).log_scale()).map_err(err)?, p, ylo)
            } else {
                finish(root, b.build_cartesian_2d(x, ylo..yhi).map_err(err)?, p, ylo)
            }
        }
    }
}

fn finish<'a, X, Y>(
    root: &Area,
    mut chart: ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    p: &Panel,
    ybase: f64,
) -> Result<(), ChartError>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let categories = match &p.x {
        XAxis::Categories(c) => Some(c.clone()),
        XAxis::Linear { .. } => None,
    };
    let grid = RGBColor(0xDD, 0xDD, 0xDD);
    let fine = RGBColor(0xF0, 0xF0, 0xF0);
    {
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(p.x_desc.clone())
            .y_desc(p.y_desc.clone())
            .axis_desc_style(font(14.0).color(&BLACK))
            .label_style(font(13.0).color(&RGBColor(0x33, 0x33, 0x33)))
            .bold_line_style(grid)
            .light_line_style(fine)
            .y_label_formatter(&|v| fmt_num(*v))
            .y_labels(8);
        if p.log_y {
            // plotters labels only whole decades on a log axis: draw 1-2-5 ticks below instead.
            mesh.disable_y_mesh().y_label_formatter(&|_| String::new()).set_tick_mark_size(LabelAreaPosition::Left, 0);
        }
        if categories.is_some() {
            mesh.disable_x_mesh()
                .x_labels(2)
                .x_label_formatter(&|_| String::new())
                .set_tick_mark_size(LabelAreaPosition::Bottom, 0);
        } else {
            mesh.x_labels(10).x_label_formatter(&|v| fmt_num(*v));
        }
        mesh.draw().map_err(err)?;
    }
    if p.log_y {
        let xr = chart.x_range();
        let (lo, hi) = (ybase, chart.y_range().end);
        let (major, minor) = log_ticks(lo, hi);
        chart
            .draw_series(minor.iter().map(|v| PathElement::new(vec![(xr.start, *v), (xr.end, *v)], fine)))
            .map_err(err)?;
        chart
            .draw_series(major.iter().map(|v| PathElement::new(vec![(xr.start, *v), (xr.end, *v)], grid)))
            .map_err(err)?;
        for v in &major {
            let (x, y) = chart.backend_coord(&(xr.start, *v));
            root.draw(&PathElement::new(vec![(x - 5, y), (x, y)], BLACK)).map_err(err)?;
            root.draw(&Text::new(
                fmt_num(*v),
                (x - 8, y),
                font(13.0).color(&RGBColor(0x33, 0x33, 0x33)).pos(Pos::new(HPos::Right, VPos::Center)),
            ))
            .map_err(err)?;
        }
    }
    let nseries = p.series.len().max(1);
    match p.kind {
        Kind::Bars => {
            let group = 0.8;
            let w = group / nseries as f64;
            let value_px = 11.0;
            // Bar width in pixels, to decide whether the values fit above the bars.
            let (x0, _) = chart.backend_coord(&(0.0, ybase));
            let (x1, _) = chart.backend_coord(&(w, ybase));
            let bar_px = (x1 - x0).abs() as f64;
            for (k, s) in p.series.iter().enumerate() {
                let color = s.style.color;
                chart
                    .draw_series(s.points.iter().map(|&(i, v)| {
                        let a = i - group / 2.0 + k as f64 * w;
                        Rectangle::new([(a + w * 0.06, ybase), (a + w * 0.94, v)], color.filled())
                    }))
                    .map_err(err)?;
                let fits = s.points.iter().all(|&(_, v)| text_width(&sig3(v), value_px) + 2.0 <= bar_px * 0.94);
                if fits {
                    chart
                        .draw_series(s.points.iter().map(|&(i, v)| {
                            let c = i - group / 2.0 + (k as f64 + 0.5) * w;
                            Text::new(
                                sig3(v),
                                (c, v),
                                font(value_px)
                                    .color(&RGBColor(0x22, 0x22, 0x22))
                                    .pos(Pos::new(HPos::Center, VPos::Bottom)),
                            )
                        }))
                        .map_err(err)?;
                }
            }
        }
        Kind::Lines => {
            for s in &p.series {
                let pts: Vec<(f64, f64)> =
                    s.points.iter().cloned().filter(|q| q.1.is_finite() && (!p.log_y || q.1 > 0.0)).collect();
                let st = s.style.color.stroke_width(2);
                if s.style.dashed {
                    chart.draw_series(DashedLineSeries::new(pts.clone(), 7, 5, st)).map_err(err)?;
                } else {
                    chart.draw_series(LineSeries::new(pts.clone(), st)).map_err(err)?;
                }
                let every = if pts.len() <= 20 { 1 } else { pts.len().div_ceil(12) };
                let marks: Vec<(f64, f64)> = pts.iter().cloned().step_by(every).collect();
                let fill = s.style.color.filled();
                match s.style.marker {
                    Marker::Circle => chart.draw_series(marks.iter().map(|q| Circle::new(*q, 4, fill))).map(|_| ()),
                    Marker::Triangle => {
                        chart.draw_series(marks.iter().map(|q| TriangleMarker::new(*q, 5, fill))).map(|_| ())
                    }
                    Marker::Square => chart
                        .draw_series(
                            marks.iter().map(|q| EmptyElement::at(*q) + Rectangle::new([(-4, -4), (4, 4)], fill)),
                        )
                        .map(|_| ()),
                    Marker::Cross => chart
                        .draw_series(marks.iter().map(|q| Cross::new(*q, 4, s.style.color.stroke_width(2))))
                        .map(|_| ()),
                }
                .map_err(err)?;
            }
        }
    }
    // Category names under the axis, wrapped to the width of their slot.
    if let Some(cats) = categories {
        let n = cats.len().max(1);
        let (l, _) = chart.backend_coord(&(-0.5, ybase));
        let (r, _) = chart.backend_coord(&(n as f64 - 0.5, ybase));
        let slot = ((r - l) as f64 / n as f64 - 6.0).max(20.0);
        let px = CAT_PX;
        for (i, c) in cats.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64, ybase));
            for (k, line) in wrap(c, slot, px).iter().enumerate() {
                root.draw(&Text::new(
                    line.clone(),
                    (x, y + 8 + k as i32 * 15),
                    font(px).color(&RGBColor(0x33, 0x33, 0x33)).pos(Pos::new(HPos::Center, VPos::Top)),
                ))
                .map_err(err)?;
            }
        }
    }
    Ok(())
}

/// Ticks of a log axis from `lo` to `hi`: (labelled, grid only). Labelled are 1, 2 and 5 times
/// powers of ten, only the powers when that is too many, all of 1..9 when too few.
pub fn log_ticks(lo: f64, hi: f64) -> (Vec<f64>, Vec<f64>) {
    if !(lo > 0.0 && lo.is_finite() && hi.is_finite() && hi >= lo) {
        return (Vec::new(), Vec::new());
    }
    // Whole decades by exponent (never by repeated multiplication, which stalls at 0 or inf
    // for subnormal or huge ends); over many decades only every `stride`-th one, so the tick
    // count stays small whatever the range (5e-324 .. 1.7e308 included).
    let e0 = lo.log10().floor().max(-330.0) as i32;
    let e1 = hi.log10().floor().min(310.0) as i32;
    let stride = ((e1 - e0) / 9 + 1).max(1) as usize;
    let within = |mults: &[f64]| {
        let mut out = Vec::new();
        for e in (e0..=e1).step_by(stride) {
            let d = 10f64.powi(e);
            for m in mults {
                let v = m * d;
                if v.is_finite() && v > 0.0 && v >= lo * 0.999999 && v <= hi * 1.000001 {
                    out.push(v);
                }
            }
        }
        out
    };
    if stride > 1 {
        return (within(&[1.0]), Vec::new());
    }
    let all = within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    let mut major = within(&[1.0, 2.0, 5.0]);
    if major.len() > 9 {
        major = within(&[1.0]);
    } else if major.len() < 3 {
        major = all.clone();
    }
    let minor = all.into_iter().filter(|v| !major.contains(v)).collect();
    (major, minor)
}

/// Break a label into at most three lines of `width` pixels, at spaces where it can.
pub fn wrap(s: &str, width: f64, px: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in s.split_whitespace() {
        let cand = if cur.is_empty() { word.to_string() } else { format!("{cur} {word}") };
        if text_width(&cand, px) <= width || cur.is_empty() {
            cur = cand;
        } else {
            lines.push(std::mem::take(&mut cur));
            cur = word.to_string();
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    if lines.len() > 3 {
        let rest = lines[2..].join(" ");
        lines.truncate(2);
        lines.push(rest);
    }
    // A single word wider than the slot: cut it.
    for l in &mut lines {
        if text_width(l, px) > width * 1.15 {
            let mut cut = String::new();
            for ch in l.chars() {
                if text_width(&format!("{cut}{ch}…"), px) > width {
                    break;
                }
                cut.push(ch);
            }
            *l = format!("{cut}…");
        }
    }
    lines
}
