//! Scatter plot geometry: one point per observation, per-x median markers with confidence
//! whiskers, an optional fitted curve sampled across the x domain, and both axes.

use super::axis::Axis;
use super::geom::{Area, Line};
use super::{Scale, ScaleKind};

/// A median marker with its interval, in data units.
#[derive(Clone, Debug, PartialEq)]
pub struct Whisker {
    pub x: f64,
    pub median: f64,
    /// Confidence interval ends, when there is an interval.
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

/// A fitted curve `y = f(x)`; evaluated at [`CURVE_SAMPLES`] x positions evenly spaced on the x
/// scale (in log space for a log axis). Non-finite results and points outside the plot area
/// break the line.
pub type Curve<'a> = &'a dyn Fn(f64) -> f64;

/// Number of x positions at which a curve is evaluated.
pub const CURVE_SAMPLES: usize = 96;

/// What to draw, in data units.
#[derive(Default)]
pub struct ScatterInput<'a> {
    /// `(x, y, title)` per observation; the title becomes the point's SVG `<title>`.
    pub points: Vec<(f64, f64, String)>,
    pub whiskers: Vec<Whisker>,
    pub curve: Option<Curve<'a>>,
    /// Units for tick labels (`ns`, `bytes`, `count`, or empty).
    pub x_unit: String,
    pub y_unit: String,
    /// Title under the x axis (empty: none).
    pub x_title: String,
}

/// Size and axis kinds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScatterOptions {
    /// Whole SVG size in pixels.
    pub width: f64,
    pub height: f64,
    pub x_log: bool,
    pub y_log: bool,
}

impl Default for ScatterOptions {
    fn default() -> Self {
        ScatterOptions {
            width: 560.0,
            height: 340.0,
            x_log: false,
            y_log: false,
        }
    }
}

/// A point placed in pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedPoint {
    pub cx: f64,
    pub cy: f64,
    pub title: String,
}

/// A median marker placed in pixels; `lo`/`hi` are the whisker ends (pixel y) when there is an
/// interval.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedWhisker {
    pub cx: f64,
    pub cy: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// The whisker as drawn: the vertical bar from `lo` to `hi` and its two 10 px caps (in that
    /// order); empty unless both ends are placed.
    pub bars: Vec<Line>,
    /// The 18 px horizontal median mark at `(cx, cy)`.
    pub median: Line,
}

/// Half width of a whisker cap, px.
const CAP_HALF: f64 = 5.0;
/// Half width of a median mark, px.
const MEDIAN_HALF: f64 = 9.0;

/// Everything needed to draw the plot as SVG elements (pixels, origin top left).
#[derive(Clone, Debug, PartialEq)]
pub struct Scatter {
    pub width: f64,
    pub height: f64,
    /// Plot area (inside the axes).
    pub area: Area,
    /// Bottom axis, titled with [`ScatterInput::x_title`] when it is not empty.
    pub x_axis: Axis,
    /// Left axis with gridlines.
    pub y_axis: Axis,
    pub points: Vec<PlacedPoint>,
    pub whiskers: Vec<PlacedWhisker>,
    /// SVG path `d` of the curve (`M`/`L` commands), empty when there is none.
    pub curve_path: String,
    /// Observations that could not be placed (non-finite, or ≤ 0 on a log axis).
    pub hidden: usize,
}

const LEFT: f64 = 70.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 40.0;

/// Lays out a scatter plot. Returns `None` when no point can be placed at all.
pub fn scatter(input: &ScatterInput<'_>, opt: ScatterOptions) -> Option<Scatter> {
    let kind = |log: bool| {
        if log {
            ScaleKind::Log
        } else {
            ScaleKind::Linear
        }
    };
    let (l, t) = (LEFT, TOP);
    let r = (opt.width - RIGHT).max(l + 10.0);
    let b = (opt.height - BOTTOM).max(t + 10.0);
    let xs = input
        .points
        .iter()
        .map(|p| p.0)
        .chain(input.whiskers.iter().map(|w| w.x));
    let xscale = Scale::fit(kind(opt.x_log), xs, l, r)?;
    let ys = input
        .points
        .iter()
        .map(|p| p.1)
        .chain(input.whiskers.iter().flat_map(|w| {
            [Some(w.median), w.lo, w.hi]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
        }));
    let yscale = Scale::fit(kind(opt.y_log), ys, b, t)?;
    let mut hidden = 0;
    let mut points = Vec::with_capacity(input.points.len());
    for (x, y, title) in &input.points {
        match (xscale.map(*x), yscale.map(*y)) {
            (Some(cx), Some(cy)) => points.push(PlacedPoint {
                cx,
                cy,
                title: title.clone(),
            }),
            _ => hidden += 1,
        }
    }
    if points.is_empty() {
        return None;
    }
    let whiskers = input
        .whiskers
        .iter()
        .filter_map(|w| {
            let cx = xscale.map(w.x)?;
            let cy = yscale.map(w.median)?;
            let lo = w.lo.and_then(|v| yscale.map(v));
            let hi = w.hi.and_then(|v| yscale.map(v));
            let bars = match (lo, hi) {
                (Some(lo), Some(hi)) => vec![
                    Line::vertical(cx, lo, hi),
                    Line::horizontal(lo, cx - CAP_HALF, cx + CAP_HALF),
                    Line::horizontal(hi, cx - CAP_HALF, cx + CAP_HALF),
                ],
                _ => Vec::new(),
            };
            Some(PlacedWhisker {
                cx,
                cy,
                lo,
                hi,
                bars,
                median: Line::horizontal(cy, cx - MEDIAN_HALF, cx + MEDIAN_HALF),
            })
        })
        .collect();
    let mut curve_path = String::new();
    if let Some(f) = input.curve {
        let mut pen_down = false;
        for i in 0..CURVE_SAMPLES {
            let frac = i as f64 / (CURVE_SAMPLES - 1) as f64;
            let x = match xscale.kind {
                ScaleKind::Linear => xscale.d0 + frac * (xscale.d1 - xscale.d0),
                ScaleKind::Log => {
                    10f64.powf(xscale.d0.log10() + frac * (xscale.d1.log10() - xscale.d0.log10()))
                }
            };
            let px = xscale.map(x);
            let py = yscale
                .map(f(x))
                .filter(|py| *py >= t - 0.5 && *py <= b + 0.5);
            match (px, py) {
                (Some(px), Some(py)) => {
                    let cmd = if pen_down { 'L' } else { 'M' };
                    curve_path.push_str(&format!("{cmd}{px:.1},{py:.1} "));
                    pen_down = true;
                }
                _ => pen_down = false,
            }
        }
        curve_path = curve_path.trim_end().to_string();
    }
    let area = Area {
        left: l,
        top: t,
        right: r,
        bottom: b,
    };
    let mut x_axis = Axis::bottom(&xscale, 6, &input.x_unit, &area);
    if !input.x_title.is_empty() {
        x_axis = x_axis.with_bottom_title(&input.x_title, &area, opt.height);
    }
    Some(Scatter {
        width: opt.width,
        height: opt.height,
        area,
        x_axis,
        y_axis: Axis::left(&yscale, 7, &input.y_unit, &area),
        points,
        whiskers,
        curve_path,
        hidden,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(points: &[(f64, f64)]) -> ScatterInput<'static> {
        ScatterInput {
            points: points
                .iter()
                .enumerate()
                .map(|(i, &(x, y))| (x, y, format!("trial{i}")))
                .collect(),
            x_unit: String::new(),
            y_unit: "ns".into(),
            ..Default::default()
        }
    }

    #[test]
    fn points_are_inside_the_area_and_ordered() {
        let s = scatter(
            &input(&[(1.0, 10.0), (2.0, 20.0), (4.0, 40.0)]),
            ScatterOptions::default(),
        )
        .unwrap();
        let a = s.area;
        assert_eq!(s.points.len(), 3);
        for p in &s.points {
            assert!(
                p.cx > a.left && p.cx < a.right && p.cy > a.top && p.cy < a.bottom,
                "{p:?}"
            );
        }
        // Larger x → further right; larger y → higher up (smaller pixel y).
        assert!(s.points[0].cx < s.points[1].cx && s.points[1].cx < s.points[2].cx);
        assert!(s.points[0].cy > s.points[1].cy && s.points[1].cy > s.points[2].cy);
        assert_eq!(s.points[2].title, "trial2");
        assert_eq!(s.hidden, 0);
        assert!(!s.x_axis.ticks.is_empty() && !s.y_axis.ticks.is_empty());
        assert!(s
            .y_axis
            .ticks
            .iter()
            .all(|t| t.grid && t.line.x2 == a.right));
        assert_eq!(s.x_axis.title, None);
    }

    #[test]
    fn empty_and_constant_inputs_give_no_plot_or_finite_geometry() {
        assert!(scatter(&input(&[]), ScatterOptions::default()).is_none());
        let mut inp = input(&[(5.0, 3.0), (5.0, 3.0)]);
        inp.x_title = "trial input".into();
        let s = scatter(&inp, ScatterOptions::default()).unwrap();
        assert!(s
            .points
            .iter()
            .all(|p| p.cx.is_finite() && p.cy.is_finite()));
        let ticks = s.x_axis.ticks.iter().chain(&s.y_axis.ticks);
        assert!(ticks.clone().count() > 0);
        assert!(ticks
            .into_iter()
            .all(|t| t.pos.is_finite() && t.label.y.is_finite()));
        let title = s.x_axis.title.unwrap();
        assert_eq!((title.x, title.y), ((70.0 + 544.0) / 2.0, 336.0));
    }

    #[test]
    fn log_axes_hide_non_positive_values_and_count_them() {
        let opt = ScatterOptions {
            y_log: true,
            x_log: true,
            ..Default::default()
        };
        let s = scatter(&input(&[(1000.0, 0.0), (2000.0, 5.0), (4000.0, 9.0)]), opt).unwrap();
        assert_eq!((s.points.len(), s.hidden), (2, 1));
        // Equal ratios on a log x axis are equal distances.
        let d1 = s.points[1].cx - s.points[0].cx;
        let s2 = scatter(&input(&[(1000.0, 1.0), (2000.0, 5.0), (4000.0, 9.0)]), opt).unwrap();
        let a = s2.points[1].cx - s2.points[0].cx;
        let c = s2.points[2].cx - s2.points[1].cx;
        assert!((a - c).abs() < 1e-6 && d1 > 0.0);
        assert!(scatter(&input(&[(0.0, 1.0)]), opt).is_none());
    }

    #[test]
    fn whiskers_span_their_interval_and_the_curve_follows_the_function() {
        let f = |x: f64| 10.0 * x;
        let mut inp = input(&[(1.0, 10.0), (2.0, 20.0), (3.0, 30.0)]);
        inp.whiskers = vec![Whisker {
            x: 2.0,
            median: 20.0,
            lo: Some(15.0),
            hi: Some(25.0),
        }];
        inp.curve = Some(&f);
        let s = scatter(&inp, ScatterOptions::default()).unwrap();
        let w = &s.whiskers[0];
        assert!(w.lo.unwrap() > w.cy && w.hi.unwrap() < w.cy);
        assert_eq!(w.bars.len(), 3);
        assert_eq!(
            w.bars[0],
            Line::vertical(w.cx, w.lo.unwrap(), w.hi.unwrap())
        );
        assert!((w.bars[1].x2 - w.bars[1].x1 - 10.0).abs() < 1e-9);
        assert!((w.median.x2 - w.median.x1 - 18.0).abs() < 1e-9 && w.median.y1 == w.cy);
        assert!((w.cx - s.points[1].cx).abs() < 1e-9 && (w.cy - s.points[1].cy).abs() < 1e-9);
        assert!(s.curve_path.starts_with('M'));
        // The straight line passes through the middle point (sampled positions bracket it).
        let segs: Vec<(f64, f64)> = s
            .curve_path
            .split(' ')
            .map(|c| {
                let (a, b) = c[1..].split_once(',').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        let near = segs
            .iter()
            .min_by(|a, b| {
                (a.0 - s.points[1].cx)
                    .abs()
                    .total_cmp(&(b.0 - s.points[1].cx).abs())
            })
            .unwrap();
        assert!(
            (near.1 - s.points[1].cy).abs() < 3.0,
            "{near:?} vs {:?}",
            s.points[1]
        );
    }
}
