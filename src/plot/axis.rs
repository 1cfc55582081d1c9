//! Axis geometry every chart draws: tick marks, tick labels and gridlines placed from a
//! [`Scale`], the axis title's position, and the time axes (ns timelines of the memory lanes,
//! Unix seconds of the triage chart as minutes since the first row).

use super::geom::{Anchor, Area, Label, Line};
use super::Scale;

/// Length of a bottom axis' tick mark below the plot area, px.
const TICK_LEN: f64 = 5.0;
/// Baseline of a bottom tick label below the plot area, px.
const BOTTOM_LABEL_DY: f64 = 18.0;
/// Gap between a left tick label's end and the plot area, px.
const LEFT_LABEL_DX: f64 = 8.0;
/// Downward shift of a left tick label so it is centred on its tick, px.
const LEFT_LABEL_DY: f64 = 4.0;
/// Baseline of an x-axis title above the bottom edge of the chart, px.
const TITLE_DY: f64 = 4.0;

/// One tick of an axis, fully placed.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisTick {
    /// The tick's value in data units.
    pub value: f64,
    /// The tick's position along the axis, px (x for a bottom axis, y for a left one).
    pub pos: f64,
    /// The tick mark; for a left axis it runs across the plot area as a gridline.
    pub line: Line,
    /// True when [`AxisTick::line`] is a gridline (drawn with the `grid` class).
    pub grid: bool,
    /// The formatted value ([`super::format_value`]) at its place.
    pub label: Label,
}

/// A placed axis: its ticks and, when it has one, its title.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Axis {
    pub ticks: Vec<AxisTick>,
    pub title: Option<Label>,
}

impl Axis {
    /// About `target` ticks of `scale` labelled in `unit` (see [`Scale::ticks`]), each placed by
    /// `place(pos, label)`.
    fn placed(
        scale: &Scale,
        target: usize,
        unit: &str,
        place: impl Fn(f64, String) -> (Line, bool, Label),
    ) -> Axis {
        let ticks = scale
            .ticks(target, unit)
            .into_iter()
            .map(|tk| {
                let (line, grid, label) = place(tk.pos, tk.label);
                AxisTick {
                    value: tk.value,
                    pos: tk.pos,
                    line,
                    grid,
                    label,
                }
            })
            .collect();
        Axis { ticks, title: None }
    }

    /// A bottom (x) axis under `area`: about `target` ticks of `scale` (see [`Scale::ticks`])
    /// labelled in `unit`, each a 5 px mark below the area with its label centred 18 px below.
    pub fn bottom(scale: &Scale, target: usize, unit: &str, area: &Area) -> Axis {
        let b = area.bottom;
        Axis::placed(scale, target, unit, |x, text| {
            let label = Label {
                x,
                y: b + BOTTOM_LABEL_DY,
                anchor: Anchor::Middle,
                text,
            };
            (Line::vertical(x, b, b + TICK_LEN), false, label)
        })
    }

    /// A left (y) axis beside `area`: about `target` ticks of `scale` labelled in `unit`, each a
    /// gridline from 5 px left of the area across to its right edge, with its label right-aligned
    /// 8 px left of the area.
    pub fn left(scale: &Scale, target: usize, unit: &str, area: &Area) -> Axis {
        let (l, r) = (area.left, area.right);
        Axis::placed(scale, target, unit, |y, text| {
            let label = Label {
                x: l - LEFT_LABEL_DX,
                y: y + LEFT_LABEL_DY,
                anchor: Anchor::End,
                text,
            };
            (Line::horizontal(y, l - TICK_LEN, r), true, label)
        })
    }

    /// This axis with `text` as its title, centred under `area` 4 px above the bottom of a chart
    /// `chart_height` px tall (the x-axis title of every chart).
    pub fn with_bottom_title(mut self, text: &str, area: &Area, chart_height: f64) -> Axis {
        self.title = Some(Label {
            x: area.center_x(),
            y: chart_height - TITLE_DY,
            anchor: Anchor::Middle,
            text: text.to_string(),
        });
        self
    }
}

/// A time domain on one nanosecond timeline: `[t0_ns, t1_ns]` with `t1_ns > t0_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeDomain {
    pub t0_ns: i64,
    pub t1_ns: i64,
}

impl TimeDomain {
    /// The smallest domain covering every `(start_ns, end_ns)` span (each taken as given,
    /// `start ≤ end` expected); `[0, 1]` when there is none, and at least 1 ns wide.
    pub fn covering(spans: impl IntoIterator<Item = (i64, i64)>) -> TimeDomain {
        let mut lo = i64::MAX;
        let mut hi = i64::MIN;
        for (a, b) in spans {
            lo = lo.min(a);
            hi = hi.max(b);
        }
        if lo > hi {
            TimeDomain { t0_ns: 0, t1_ns: 1 }
        } else {
            TimeDomain {
                t0_ns: lo,
                t1_ns: hi.max(lo.saturating_add(1)),
            }
        }
    }

    /// Where `t_ns` falls in the domain: 0 at `t0_ns`, 1 at `t1_ns` (not clamped; saturating on
    /// overflow).
    pub fn fraction(&self, t_ns: i64) -> f64 {
        let span = self.t1_ns.saturating_sub(self.t0_ns).max(1) as f64;
        t_ns.saturating_sub(self.t0_ns) as f64 / span
    }

    /// Milliseconds from the domain's start to `t_ns` (the time label of a memory-lane event).
    pub fn ms_after_start(&self, t_ns: i64) -> f64 {
        t_ns.saturating_sub(self.t0_ns) as f64 / 1e6
    }

    /// Length in milliseconds from `start_ns` (or the domain's start, if earlier) to the
    /// domain's end: the span the memory axis covers from the trace start.
    pub fn span_ms_from(&self, start_ns: i64) -> f64 {
        self.t1_ns.saturating_sub(self.t0_ns.min(start_ns)) as f64 / 1e6
    }
}

/// The x values of a time axis over rows with optional Unix timestamps (seconds): minutes since
/// the earliest timestamp, with rows that have none placed at their row index; when no row has
/// a timestamp every row is at its index. Returns the values (one per row) and whether any
/// timestamp was found (the axis is then in minutes).
pub fn minutes_since_first(unix_s: &[Option<f64>]) -> (Vec<f64>, bool) {
    let t0 = unix_s
        .iter()
        .flatten()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let timed = t0.is_finite();
    let xs = unix_s
        .iter()
        .enumerate()
        .map(|(i, u)| match u {
            Some(u) if timed => (u - t0) / 60.0,
            _ => i as f64,
        })
        .collect();
    (xs, timed)
}

#[cfg(test)]
mod tests {
    use super::super::ScaleKind;
    use super::*;

    const AREA: Area = Area {
        left: 70.0,
        top: 12.0,
        right: 544.0,
        bottom: 300.0,
    };

    #[test]
    fn a_log_axis_has_ticks_at_decades_placed_evenly() {
        let s = Scale {
            kind: ScaleKind::Log,
            d0: 1.0,
            d1: 1e6,
            r0: AREA.left,
            r1: AREA.left + 600.0,
        };
        let a = Axis::bottom(&s, 6, "", &AREA);
        let values: Vec<f64> = a.ticks.iter().map(|t| t.value).collect();
        assert_eq!(values, vec![1.0, 10.0, 100.0, 1000.0, 1e4, 1e5, 1e6]);
        for (i, t) in a.ticks.iter().enumerate() {
            assert!((t.pos - (70.0 + 100.0 * i as f64)).abs() < 1e-9, "{t:?}");
            assert_eq!(t.line, Line::vertical(t.pos, 300.0, 305.0));
            assert_eq!((t.label.x, t.label.y), (t.pos, 318.0));
            assert_eq!(t.label.anchor, Anchor::Middle);
            assert!(!t.grid);
        }
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.label.text.as_str()).collect();
        assert_eq!(labels, ["1", "10", "100", "1000", "10k", "100k", "1M"]);
        assert_eq!(a.title, None);
    }

    #[test]
    fn a_left_axis_draws_gridlines_with_right_aligned_unit_labels() {
        let s = Scale {
            kind: ScaleKind::Linear,
            d0: 0.0,
            d1: 2e6,
            r0: 300.0,
            r1: 100.0,
        };
        let a = Axis::left(&s, 2, "ns", &AREA);
        assert_eq!(a.ticks.len(), 3);
        let mid = &a.ticks[1];
        assert_eq!((mid.value, mid.pos), (1e6, 200.0));
        assert_eq!(mid.line, Line::horizontal(200.0, 65.0, 544.0));
        assert!(mid.grid);
        assert_eq!(
            mid.label,
            Label {
                x: 62.0,
                y: 204.0,
                anchor: Anchor::End,
                text: "1 ms".into()
            }
        );
        let t = a
            .with_bottom_title("trial input", &AREA, 340.0)
            .title
            .unwrap();
        assert_eq!((t.x, t.y, t.anchor), (307.0, 336.0, Anchor::Middle));
        assert_eq!(t.text, "trial input");
    }

    #[test]
    fn time_domain_covers_spans_and_labels_in_ms() {
        let d = TimeDomain::covering([(5_000_000, 9_000_000), (1_000_000, 2_000_000)]);
        assert_eq!(
            d,
            TimeDomain {
                t0_ns: 1_000_000,
                t1_ns: 9_000_000
            }
        );
        assert_eq!(d.fraction(5_000_000), 0.5);
        assert_eq!(d.ms_after_start(3_500_000), 2.5);
        assert_eq!(d.span_ms_from(0), 9.0);
        assert_eq!(d.span_ms_from(4_000_000), 8.0);
        // Empty and zero-width inputs still give a 1 ns wide domain; nothing is NaN.
        let e = TimeDomain::covering([]);
        assert_eq!(e, TimeDomain { t0_ns: 0, t1_ns: 1 });
        let z = TimeDomain::covering([(7, 7)]);
        assert_eq!(z, TimeDomain { t0_ns: 7, t1_ns: 8 });
        assert_eq!(z.fraction(7), 0.0);
        let far = TimeDomain::covering([(i64::MIN, i64::MAX)]);
        assert!(far.fraction(0).is_finite() && far.span_ms_from(0).is_finite());
    }

    #[test]
    fn minutes_since_first_uses_row_index_without_timestamps() {
        let (xs, timed) =
            minutes_since_first(&[Some(1_700_000_120.0), None, Some(1_700_000_000.0)]);
        assert!(timed);
        assert_eq!(xs, vec![2.0, 1.0, 0.0]);
        let (xs, timed) = minutes_since_first(&[None, None]);
        assert!(!timed);
        assert_eq!(xs, vec![0.0, 1.0]);
        assert_eq!(minutes_since_first(&[]), (Vec::new(), false));
    }
}
