//! Geometry of the compile-triage per-key chart: compile seconds over time (minutes since the
//! first timestamped row), cold and warm rows as polylines and dots, drifted rows marked, the
//! warm pin as a horizontal line, and both axes.

use super::axis::{minutes_since_first, Axis};
use super::geom::{push_point, Area, Line};
use super::{Scale, ScaleKind};

/// Chart size, px.
pub const CHART_WIDTH: f64 = 640.0;
pub const CHART_HEIGHT: f64 = 260.0;
/// Dot radius of a drifted row and of any other row, px.
const DRIFT_R: f64 = 5.0;
const DOT_R: f64 = 3.5;

/// One row of the chart's series, in data units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeyPoint {
    /// Seconds since the Unix epoch; `None` when the row has no timestamp.
    pub unix_s: Option<f64>,
    /// Compile time, seconds.
    pub compile_s: f64,
    pub cold: bool,
    /// True when the row is a drift finding.
    pub drift: bool,
}

/// A row placed in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeyDot {
    /// Index of the row in the input slice.
    pub index: usize,
    pub cx: f64,
    pub cy: f64,
    /// Radius, px: larger for a drifted row.
    pub r: f64,
    pub cold: bool,
    pub drift: bool,
}

/// The chart placed in pixels (origin top left).
#[derive(Clone, Debug, PartialEq)]
pub struct KeyChart {
    /// SVG size, px ([`CHART_WIDTH`] × [`CHART_HEIGHT`]).
    pub width: f64,
    pub height: f64,
    pub area: Area,
    /// Bottom axis: minutes since the first timestamped row, or the row number when no row has
    /// a timestamp; titled accordingly.
    pub x_axis: Axis,
    /// Left axis: compile seconds from 0, with gridlines.
    pub y_axis: Axis,
    /// True when the x axis is in minutes (some row has a timestamp).
    pub timed: bool,
    /// SVG `points` of the cold rows' and the warm rows' polylines, left to right.
    pub cold_line: String,
    pub warm_line: String,
    /// The pin across the plot area, when there is a pin that can be placed.
    pub pin_line: Option<Line>,
    /// Every placed row, left to right (rows at the same x keep their input order).
    pub dots: Vec<KeyDot>,
}

/// X-axis title of a chart in minutes and of one in row numbers.
pub const TITLE_TIMED: &str = "minutes since the first row";
pub const TITLE_UNTIMED: &str = "row (no timestamps)";

/// Lays out the chart of one series: `points` (any order) and the series' warm pin
/// (`pin_s`, seconds). The y axis always includes 0 and the pin. Rows with a non-finite time
/// or compile time are not placed. Returns `None` when no row is given.
pub fn key_chart(points: &[KeyPoint], pin_s: Option<f64>) -> Option<KeyChart> {
    let (w, h) = (CHART_WIDTH, CHART_HEIGHT);
    let area = Area {
        left: 60.0,
        top: 16.0,
        right: w - 16.0,
        bottom: h - 36.0,
    };
    let unix: Vec<Option<f64>> = points.iter().map(|p| p.unix_s).collect();
    let (xs, timed) = minutes_since_first(&unix);
    let xscale = Scale::fit(ScaleKind::Linear, xs.iter().copied(), area.left, area.right)?;
    let yscale = Scale::fit(
        ScaleKind::Linear,
        points.iter().map(|p| p.compile_s).chain(pin_s).chain([0.0]),
        area.bottom,
        area.top,
    )?;
    let mut dots: Vec<KeyDot> = points
        .iter()
        .zip(&xs)
        .enumerate()
        .filter_map(|(index, (p, x))| {
            Some(KeyDot {
                index,
                cx: xscale.map(*x)?,
                cy: yscale.map(p.compile_s)?,
                r: if p.drift { DRIFT_R } else { DOT_R },
                cold: p.cold,
                drift: p.drift,
            })
        })
        .collect();
    dots.sort_by(|a, b| a.cx.total_cmp(&b.cx));
    let line = |cold: bool| {
        let mut out = String::new();
        for d in dots.iter().filter(|d| d.cold == cold) {
            push_point(&mut out, d.cx, d.cy);
        }
        out.trim_end().to_string()
    };
    let (x_unit, title) = if timed {
        (" min", TITLE_TIMED)
    } else {
        ("", TITLE_UNTIMED)
    };
    Some(KeyChart {
        width: w,
        height: h,
        area,
        x_axis: Axis::bottom(&xscale, 6, x_unit, &area).with_bottom_title(title, &area, h),
        y_axis: Axis::left(&yscale, 5, " s", &area),
        timed,
        cold_line: line(true),
        warm_line: line(false),
        pin_line: pin_s
            .and_then(|p| yscale.map(p))
            .map(|y| Line::horizontal(y, area.left, area.right)),
        dots,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(unix_s: Option<f64>, compile_s: f64, cold: bool, drift: bool) -> KeyPoint {
        KeyPoint {
            unix_s,
            compile_s,
            cold,
            drift,
        }
    }

    #[test]
    fn rows_are_placed_by_minutes_and_seconds() {
        let t = 1_700_000_000.0;
        let rows = [
            pt(Some(t + 600.0), 2.0, false, true),
            pt(Some(t), 10.0, true, false),
            pt(Some(t + 300.0), 1.0, false, false),
        ];
        let c = key_chart(&rows, Some(1.0)).unwrap();
        assert!(c.timed);
        assert_eq!(c.x_axis.title.as_ref().unwrap().text, TITLE_TIMED);
        // x domain 0..10 min padded by 5%: 60 + (m + 0.5)/11 · 564.
        let x = |m: f64| 60.0 + (m + 0.5) / 11.0 * 564.0;
        let order: Vec<usize> = c.dots.iter().map(|d| d.index).collect();
        assert_eq!(order, vec![1, 2, 0]);
        for (d, m) in c.dots.iter().zip([0.0, 5.0, 10.0]) {
            assert!((d.cx - x(m)).abs() < 1e-9, "{d:?}");
        }
        // y domain 0..10 s padded by 5%: 224 − (s + 0.5)/11 · 208.
        let y = |s: f64| 224.0 - (s + 0.5) / 11.0 * 208.0;
        assert!((c.dots[0].cy - y(10.0)).abs() < 1e-9);
        assert_eq!((c.dots[2].r, c.dots[1].r), (5.0, 3.5));
        let pin = c.pin_line.unwrap();
        assert!((pin.y1 - y(1.0)).abs() < 1e-9 && pin.y1 == pin.y2);
        assert_eq!((pin.x1, pin.x2), (60.0, 624.0));
        assert_eq!(c.cold_line.split(' ').count(), 1);
        assert_eq!(c.warm_line.split(' ').count(), 2);
        assert!(!c.warm_line.ends_with(' '));
        // Seconds ticks from 0; labels are plain numbers.
        assert_eq!(c.y_axis.ticks[0].value, 0.0);
        assert_eq!(c.y_axis.ticks[0].label.text, "0");
        assert!(c.y_axis.ticks.iter().all(|t| t.grid));
    }

    #[test]
    fn rows_without_timestamps_go_in_row_order() {
        let rows = [pt(None, 3.0, false, false), pt(None, 4.0, false, false)];
        let c = key_chart(&rows, None).unwrap();
        assert!(!c.timed && c.pin_line.is_none());
        assert_eq!(c.x_axis.title.unwrap().text, TITLE_UNTIMED);
        assert!(c.dots[0].cx < c.dots[1].cx);
        assert_eq!(c.cold_line, "");
    }

    #[test]
    fn empty_constant_and_non_finite_inputs_do_not_panic_or_give_nan() {
        assert!(key_chart(&[], Some(1.0)).is_none());
        let one = [pt(Some(5.0), 0.0, true, false)];
        let c = key_chart(&one, None).unwrap();
        assert_eq!(c.dots.len(), 1);
        assert!(c.dots[0].cx.is_finite() && c.dots[0].cy.is_finite());
        assert!(!c.cold_line.contains("NaN"));
        let bad = [
            pt(Some(f64::NAN), 1.0, false, false),
            pt(Some(60.0), f64::INFINITY, false, false),
            pt(Some(120.0), 2.0, false, false),
        ];
        let c = key_chart(&bad, Some(f64::NAN)).unwrap();
        assert_eq!(c.dots.iter().map(|d| d.index).collect::<Vec<_>>(), vec![2]);
        assert!(c.pin_line.is_none());
        let ticks = c.x_axis.ticks.iter().chain(&c.y_axis.ticks);
        assert!(ticks.into_iter().all(|t| t.pos.is_finite()));
    }
}
