//! Memory-lane geometry: one lane per rank on a shared ns time axis — memory series as polyline
//! point strings, the hidden-memory gap as a band polygon, collective marker ticks and
//! attributed-interval rectangles, the byte axis labels — and the thinning of the gap band for
//! drawing.

use super::axis::{Axis, AxisTick, TimeDomain};
use super::downsample::lttb;
use super::geom::{push_point, Anchor, Area, Label, Line, Rect};

/// Width of a lane's SVG, px.
pub const LANE_WIDTH: f64 = 960.0;
/// Height of a lane's SVG, px.
pub const LANE_HEIGHT: f64 = 150.0;
/// Left edge of the plot area (room for the byte labels), px.
const LEFT: f64 = 70.0;
/// Right margin of the plot area, px.
const RIGHT: f64 = 10.0;
/// Top of the plot area (room for the marker ticks above it), px.
const TOP: f64 = 16.0;
/// Height of the plot area, px.
const PLOT_H: f64 = 110.0;
/// Marker ticks: offset above the plot area and height, px.
const MARKER_DY: f64 = 8.0;
const MARKER_H: f64 = 6.0;
/// Narrowest drawn marker and interval, px.
const MARKER_MIN_W: f64 = 1.0;
const INTERVAL_MIN_W: f64 = 1.5;

/// A memory series to draw: `ts_ns[i]` (ns on the shared timeline) and `bytes[i]`; the two are
/// cut to the shorter length.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SeriesIn<'a> {
    pub ts_ns: &'a [i64],
    pub bytes: &'a [f64],
}

/// A band to draw between `lo[i]` and `hi[i]` bytes at `ts_ns[i]` (ns); cut to the shortest.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BandIn<'a> {
    pub ts_ns: &'a [i64],
    pub lo: &'a [f64],
    pub hi: &'a [f64],
}

/// Everything one lane draws, in data units (ns, bytes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaneInput<'a> {
    pub device_used: Option<SeriesIn<'a>>,
    pub allocator_reserved: Option<SeriesIn<'a>>,
    pub allocator_allocated: Option<SeriesIn<'a>>,
    /// The hidden-memory gap (reserved → used).
    pub gap: Option<BandIn<'a>>,
    /// Collective markers `(start_ns, end_ns)`.
    pub markers: &'a [(i64, i64)],
    /// This lane's attributed intervals `(start_ns, end_ns)`.
    pub intervals: &'a [(i64, i64)],
}

impl LaneInput<'_> {
    fn series(&self) -> impl Iterator<Item = &SeriesIn<'_>> {
        [
            &self.device_used,
            &self.allocator_reserved,
            &self.allocator_allocated,
        ]
        .into_iter()
        .flatten()
    }
}

/// One lane placed in pixels (origin top left of the lane's own SVG), showing the time window
/// `view` of [`lane`].
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// SVG size, px ([`LANE_WIDTH`] × [`LANE_HEIGHT`]).
    pub width: f64,
    pub height: f64,
    /// The plot area (inside the axes), px; brushing happens inside it.
    pub area: Area,
    /// The byte range of the plot area, bottom to top (fitted to the samples in the window:
    /// see [`byte_range`]).
    pub y_lo_bytes: f64,
    pub y_hi_bytes: f64,
    /// The byte axis: gridlines with labels in one unit (B, KiB, MiB or GiB).
    pub y_axis: Axis,
    /// The time axis: tick marks under the plot area labelled with the time since the origin
    /// in one unit (ns, µs, ms or s, chosen from the window's span: [`time_unit`]).
    pub x_axis: Axis,
    /// The time axis line along the bottom of the plot area.
    pub baseline: Line,
    /// One entry per [`LaneInput::intervals`] entry, same order: its rectangle clipped to the
    /// plot area and spanning its height (at least 1.5 px wide), `None` when outside the window.
    pub intervals: Vec<Option<Rect>>,
    /// SVG `points` of the gap polygon (upper edge left to right, then lower edge back).
    pub gap: Option<String>,
    /// SVG `points` of each series' polyline (non-finite samples skipped; cut at the window's
    /// edges, where the value is interpolated).
    pub device_used: Option<String>,
    pub allocator_reserved: Option<String>,
    pub allocator_allocated: Option<String>,
    /// One 6 px tall tick above the plot area per marker, same order (at least 1 px wide),
    /// `None` when outside the window.
    pub markers: Vec<Option<Rect>>,
}

/// The plot area of every lane, px.
pub const AREA: Area = Area {
    left: LEFT,
    top: TOP,
    right: LANE_WIDTH - RIGHT,
    bottom: TOP + PLOT_H,
};

/// Ticks of the time axis (about this many).
const X_TICKS: usize = 8;
/// Ticks of the byte axis (about this many).
const Y_TICKS: usize = 4;
/// A brush narrower than this is a click, not a zoom, px.
const MIN_BRUSH_PX: f64 = 3.0;
/// The narrowest window a zoom can reach, ns.
pub const MIN_WINDOW_NS: i64 = 1_000;

/// The shared time axis of every lane: the span of all their samples and markers and of
/// `all_intervals` (`(start_ns, end_ns)`, every rank's); `[0, 1]` when there is nothing.
pub fn time_domain(
    lanes: &[LaneInput<'_>],
    all_intervals: impl IntoIterator<Item = (i64, i64)>,
) -> TimeDomain {
    let series = lanes.iter().flat_map(|l| {
        l.series()
            .filter_map(|s| Some((*s.ts_ns.first()?, *s.ts_ns.last()?)))
            .collect::<Vec<_>>()
    });
    let markers = lanes.iter().flat_map(|l| l.markers.iter().copied());
    TimeDomain::covering(series.chain(markers).chain(all_intervals))
}

/// `bytes` in MiB with one decimal (`"1.5 MiB"`), as the lanes and their tooltips label memory.
pub fn format_mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / 1048576.0)
}

/// The unit of a time axis over `span_ns`: `(ns per unit, name)` — s from 1 s, ms from 1 ms,
/// µs from 1 µs, else ns.
pub fn time_unit(span_ns: f64) -> (f64, &'static str) {
    let a = span_ns.abs();
    if a >= 1e9 {
        (1e9, "s")
    } else if a >= 1e6 {
        (1e6, "ms")
    } else if a >= 1e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    }
}

/// The unit of a byte axis whose largest magnitude is `max_abs`: `(bytes per unit, name)` —
/// GiB from 1 GiB, MiB from 1 MiB, KiB from 1 KiB, else B (binary prefixes, IEC 80000-13).
pub fn byte_unit(max_abs: f64) -> (f64, &'static str) {
    const KIB: f64 = 1024.0;
    let a = max_abs.abs();
    if a >= KIB * KIB * KIB {
        (KIB * KIB * KIB, "GiB")
    } else if a >= KIB * KIB {
        (KIB * KIB, "MiB")
    } else if a >= KIB {
        (KIB, "KiB")
    } else {
        (1.0, "B")
    }
}

/// `v` with as many decimals as a tick `step` needs (`step` 0.25 → 2 decimals), then `unit`.
fn tick_text(v: f64, step: f64, unit: &str) -> String {
    let decimals = if step > 0.0 && step.is_finite() {
        (-step.log10().floor()).clamp(0.0, 9.0) as usize
    } else {
        0
    };
    let v = if v == 0.0 { 0.0 } else { v }; // no "-0"
    format!("{v:.decimals$} {unit}")
}

/// The step between consecutive `ticks` (0 when fewer than two).
fn step_of(ticks: &[f64]) -> f64 {
    match ticks {
        [a, b, ..] => b - a,
        _ => 0.0,
    }
}

/// The time axis of a lane showing `view`: ticks at round times since `origin_ns` in the unit
/// [`time_unit`] picks for the window's span, each a 5 px mark under the plot area with its
/// label 16 px below.
pub fn time_axis(view: TimeDomain, origin_ns: i64) -> Axis {
    let span = view.t1_ns.saturating_sub(view.t0_ns) as f64;
    let (div, unit) = time_unit(span);
    let lo = view.t0_ns.saturating_sub(origin_ns) as f64 / div;
    let hi = view.t1_ns.saturating_sub(origin_ns) as f64 / div;
    let values = super::linear_ticks(lo, hi, X_TICKS);
    let step = step_of(&values);
    let ticks = values
        .into_iter()
        .map(|v| {
            let pos = AREA.left + (v - lo) / (hi - lo).max(f64::MIN_POSITIVE) * width();
            AxisTick {
                value: v,
                pos,
                line: Line::vertical(pos, AREA.bottom, AREA.bottom + 5.0),
                grid: false,
                label: Label {
                    x: pos,
                    y: AREA.bottom + 16.0,
                    anchor: Anchor::Middle,
                    text: tick_text(v, step, unit),
                },
            }
        })
        .collect();
    Axis { ticks, title: None }
}

/// The byte range a lane fits to its samples `values` (finite ones; bytes): from the smallest
/// to the largest, padded by 5% of the range each side (never below 0 when no value is); a
/// single value gets ±5% of itself (at least ±1 KiB); no value gives `[0, 1 KiB]`.
pub fn byte_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return (0.0, 1024.0);
    }
    let pad = if hi > lo {
        (hi - lo) * 0.05
    } else {
        (lo.abs() * 0.05).max(1024.0)
    };
    let floor = if lo >= 0.0 { 0.0 } else { f64::NEG_INFINITY };
    ((lo - pad).max(floor), hi + pad)
}

/// The byte axis over `[lo, hi]` bytes: about 4 gridlines across the plot area at round values
/// in one unit ([`byte_unit`] of the larger end), labels right-aligned left of the area.
pub fn byte_axis(lo: f64, hi: f64) -> Axis {
    let (div, unit) = byte_unit(lo.abs().max(hi.abs()));
    let values = super::linear_ticks(lo / div, hi / div, Y_TICKS);
    let step = step_of(&values);
    let f = Frame {
        time: TimeDomain { t0_ns: 0, t1_ns: 1 },
        lo,
        hi,
    };
    let ticks = values
        .into_iter()
        .map(|v| {
            let pos = f.y(v * div);
            AxisTick {
                value: v * div,
                pos,
                line: Line::horizontal(pos, AREA.left - 5.0, AREA.right),
                grid: true,
                label: Label {
                    x: AREA.left - 8.0,
                    y: pos + 4.0,
                    anchor: Anchor::End,
                    text: tick_text(v, step, unit),
                },
            }
        })
        .collect();
    Axis { ticks, title: None }
}

fn width() -> f64 {
    AREA.right - AREA.left
}

/// The time at pixel `x` of a lane showing `view` (x clamped to the plot area), ns.
pub fn time_at(view: TimeDomain, x: f64) -> i64 {
    let f = ((x - AREA.left) / width()).clamp(0.0, 1.0);
    let span = view.t1_ns.saturating_sub(view.t0_ns) as f64;
    view.t0_ns.saturating_add((f * span).round() as i64)
}

/// `view` moved and cut to lie inside `full`, at least [`MIN_WINDOW_NS`] wide (or `full`
/// when that is narrower).
pub fn clamp_window(full: TimeDomain, view: TimeDomain) -> TimeDomain {
    let full_w = full.t1_ns.saturating_sub(full.t0_ns);
    let w = view
        .t1_ns
        .saturating_sub(view.t0_ns)
        .max(MIN_WINDOW_NS)
        .min(full_w);
    let t0 = view.t0_ns.clamp(full.t0_ns, full.t1_ns.saturating_sub(w));
    TimeDomain {
        t0_ns: t0,
        t1_ns: t0.saturating_add(w).max(t0 + 1),
    }
}

/// The window a brush from pixel `x_a` to `x_b` (either order) on a lane showing `view`
/// selects, inside `full`; `None` when the brush is under 3 px wide (a click).
pub fn brush_window(full: TimeDomain, view: TimeDomain, x_a: f64, x_b: f64) -> Option<TimeDomain> {
    let (a, b) = (x_a.min(x_b), x_a.max(x_b));
    let (a, b) = (a.max(AREA.left), b.min(AREA.right));
    if (b - a).is_nan() || b - a < MIN_BRUSH_PX {
        return None;
    }
    let picked = TimeDomain {
        t0_ns: time_at(view, a),
        t1_ns: time_at(view, b),
    };
    // A window narrower than the minimum grows about its middle.
    let mid = picked.t0_ns / 2 + picked.t1_ns / 2;
    let half = MIN_WINDOW_NS / 2;
    let picked = if picked.t1_ns - picked.t0_ns < MIN_WINDOW_NS {
        TimeDomain {
            t0_ns: mid - half,
            t1_ns: mid + half,
        }
    } else {
        picked
    };
    Some(clamp_window(full, picked))
}

/// `view` moved by `fraction` of its width (negative: earlier), kept inside `full`.
pub fn pan(full: TimeDomain, view: TimeDomain, fraction: f64) -> TimeDomain {
    let w = view.t1_ns.saturating_sub(view.t0_ns) as f64;
    let d = (w * fraction).round() as i64;
    clamp_window(
        full,
        TimeDomain {
            t0_ns: view.t0_ns.saturating_add(d),
            t1_ns: view.t1_ns.saturating_add(d),
        },
    )
}

/// `view` scaled by `factor` about its middle (0.5 zooms in to half the width, 2 out), kept
/// inside `full`.
pub fn zoom(full: TimeDomain, view: TimeDomain, factor: f64) -> TimeDomain {
    let w = view.t1_ns.saturating_sub(view.t0_ns) as f64 * factor;
    let mid = view.t0_ns / 2 + view.t1_ns / 2;
    let half = (w / 2.0).round() as i64;
    clamp_window(
        full,
        TimeDomain {
            t0_ns: mid.saturating_sub(half),
            t1_ns: mid.saturating_add(half),
        },
    )
}

/// The samples of one series (or band) to draw in the window `[t0, t1]` (ns as f64): those
/// inside it, plus one interpolated point at each edge a segment crosses.
fn clip<const N: usize>(
    pts: impl IntoIterator<Item = (i64, [f64; N])>,
    view: TimeDomain,
) -> Vec<(f64, [f64; N])> {
    let (t0, t1) = (view.t0_ns as f64, view.t1_ns as f64);
    let lerp = |a: (f64, [f64; N]), b: (f64, [f64; N]), t: f64| {
        let f = if b.0 > a.0 {
            (t - a.0) / (b.0 - a.0)
        } else {
            0.0
        };
        let mut v = [0.0; N];
        for (k, slot) in v.iter_mut().enumerate() {
            *slot = a.1[k] + f * (b.1[k] - a.1[k]);
        }
        (t, v)
    };
    let mut out = Vec::new();
    let mut prev: Option<(f64, [f64; N])> = None;
    for (t, v) in pts {
        let cur = (t as f64, v);
        if let Some(p) = prev {
            if p.0 < t0 && cur.0 > t0 {
                out.push(lerp(p, cur, t0));
            }
            if p.0 < t1 && cur.0 > t1 {
                out.push(lerp(p, cur, t1));
            }
        }
        if cur.0 >= t0 && cur.0 <= t1 {
            out.push(cur);
        }
        prev = Some(cur);
    }
    out
}

/// Time → x and bytes → y of one lane.
#[derive(Clone, Copy)]
struct Frame {
    time: TimeDomain,
    lo: f64,
    hi: f64,
}

impl Frame {
    /// x of `t_ns` (ns as f64); times outside the window are held just beyond the plot area.
    fn x(&self, t_ns: f64) -> f64 {
        let span = self.time.t1_ns.saturating_sub(self.time.t0_ns).max(1) as f64;
        let f = (t_ns - self.time.t0_ns as f64) / span;
        AREA.left + f.clamp(-0.01, 1.01) * width()
    }
    /// y of `bytes`; values outside the range are held at most 5% beyond the plot area.
    fn y(&self, bytes: f64) -> f64 {
        let f = (bytes - self.lo) / (self.hi - self.lo).max(f64::MIN_POSITIVE);
        AREA.bottom - f.clamp(-0.05, 1.05) * PLOT_H
    }

    fn polyline(&self, pts: &[(f64, [f64; 1])]) -> String {
        let mut out = String::with_capacity(pts.len() * 14);
        for (t, [b]) in pts {
            push_point(&mut out, self.x(*t), self.y(*b));
        }
        out
    }

    fn band(&self, kept: &[(f64, [f64; 2])]) -> String {
        let mut out = String::new();
        for (t, [_, hi]) in kept {
            push_point(&mut out, self.x(*t), self.y(*hi));
        }
        for (t, [lo, _]) in kept.iter().rev() {
            push_point(&mut out, self.x(*t), self.y(*lo));
        }
        out
    }

    /// The part of `a..b` (ns) inside the window as a rectangle at least `min_w` px wide,
    /// `y`..`y + h` px; `None` when it lies outside.
    fn span(&self, (a, b): (i64, i64), min_w: f64, y: f64, h: f64) -> Option<Rect> {
        if b < self.time.t0_ns || a > self.time.t1_ns {
            return None;
        }
        let x0 = self.x(a.max(self.time.t0_ns) as f64);
        let x1 = self.x(b.min(self.time.t1_ns) as f64);
        let w = (x1 - x0).max(min_w);
        Some(Rect {
            x: x0.min(AREA.right - w).max(AREA.left),
            y,
            width: w,
            height: h,
        })
    }
}

fn finite_series<'a>(s: &SeriesIn<'a>) -> impl Iterator<Item = (i64, [f64; 1])> + 'a {
    s.ts_ns
        .iter()
        .zip(s.bytes)
        .filter(|(_, b)| b.is_finite())
        .map(|(t, b)| (*t, [*b]))
}

/// Lays out one lane showing the window `view` of the shared time axis (from [`time_domain`],
/// or a zoomed part of it), time labels counted from `origin_ns`. The byte axis is fitted to
/// the lane's samples inside the window ([`byte_range`]), so a 100 MiB spike over a 30 GiB
/// floor fills the plot area's height. Empty inputs give an empty lane (no NaN anywhere).
pub fn lane(input: &LaneInput<'_>, view: TimeDomain, origin_ns: i64) -> Lane {
    let clipped = |s: &Option<SeriesIn<'_>>| s.as_ref().map(|s| clip(finite_series(s), view));
    let used = clipped(&input.device_used);
    let reserved = clipped(&input.allocator_reserved);
    let allocated = clipped(&input.allocator_allocated);
    let gap = input.gap.as_ref().map(|g| {
        clip(
            g.ts_ns
                .iter()
                .zip(g.lo)
                .zip(g.hi)
                .filter(|((_, lo), hi)| lo.is_finite() && hi.is_finite())
                .map(|((t, lo), hi)| (*t, [*lo, *hi])),
            view,
        )
    });
    let (lo, hi) = byte_range(
        [&used, &reserved, &allocated]
            .into_iter()
            .flatten()
            .flat_map(|s| s.iter().map(|(_, [b])| *b)),
    );
    let f = Frame { time: view, lo, hi };
    Lane {
        width: LANE_WIDTH,
        height: LANE_HEIGHT,
        area: AREA,
        y_lo_bytes: lo,
        y_hi_bytes: hi,
        y_axis: byte_axis(lo, hi),
        x_axis: time_axis(view, origin_ns),
        baseline: Line::horizontal(AREA.bottom, AREA.left, AREA.right),
        intervals: input
            .intervals
            .iter()
            .map(|&iv| f.span(iv, INTERVAL_MIN_W, TOP, PLOT_H))
            .collect(),
        gap: gap.map(|g| f.band(&g)),
        device_used: used.map(|s| f.polyline(&s)),
        allocator_reserved: reserved.map(|s| f.polyline(&s)),
        allocator_allocated: allocated.map(|s| f.polyline(&s)),
        markers: input
            .markers
            .iter()
            .map(|&m| f.span(m, MARKER_MIN_W, TOP - MARKER_DY, MARKER_H))
            .collect(),
    }
}

/// The hidden-memory gap band thinned for drawing: kept times (ns) with allocator-reserved
/// (`lo`) and device-used (`hi`, never below `lo`) bytes at each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThinBand {
    pub ts_ns: Vec<i64>,
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

/// Thins the gap between `used[i]` (device-used bytes) and `reserved[i]` (allocator-reserved
/// bytes, sampled at the same `ts_ns[i]`, ascending ns) to at most `max_points` points by
/// [`lttb`] over the gap `max(used − reserved, 0)`, so the band keeps its peaks; where used is
/// under reserved the band has zero height. The three slices are cut to the shortest.
pub fn gap_band(ts_ns: &[i64], used: &[f64], reserved: &[f64], max_points: usize) -> ThinBand {
    let n = ts_ns.len().min(used.len()).min(reserved.len());
    let (ts_ns, used, reserved) = (&ts_ns[..n], &used[..n], &reserved[..n]);
    let xs: Vec<f64> = ts_ns.iter().map(|&t| t as f64).collect();
    let gap: Vec<f64> = used
        .iter()
        .zip(reserved)
        .map(|(u, r)| (u - r).max(0.0))
        .collect();
    let idx = lttb(&xs, &gap, max_points);
    ThinBand {
        ts_ns: idx.iter().map(|&i| ts_ns[i]).collect(),
        lo: idx.iter().map(|&i| reserved[i]).collect(),
        hi: idx.iter().map(|&i| used[i].max(reserved[i])).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(s: &str) -> Vec<(f64, f64)> {
        s.split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn a_lane_with_known_samples_gives_known_pixels() {
        let ts = [0, 500, 1000];
        let used = [0.0, 1048576.0, 2097152.0];
        let reserved = [0.0, 524288.0, f64::NAN];
        let lo = [0.0, 524288.0, 1048576.0];
        let markers = [(250, 250), (900, 1100)];
        let intervals = [(500, 750), (1200, 1300)];
        let input = LaneInput {
            device_used: Some(SeriesIn {
                ts_ns: &ts,
                bytes: &used,
            }),
            allocator_reserved: Some(SeriesIn {
                ts_ns: &ts,
                bytes: &reserved,
            }),
            gap: Some(BandIn {
                ts_ns: &ts,
                lo: &lo,
                hi: &used,
            }),
            markers: &markers,
            intervals: &intervals,
            ..Default::default()
        };
        let time = time_domain(std::slice::from_ref(&input), [(0, 1000)]);
        assert_eq!(
            time,
            TimeDomain {
                t0_ns: 0,
                t1_ns: 1100
            }
        );
        let view = TimeDomain {
            t0_ns: 0,
            t1_ns: 1000,
        };
        let l = lane(&input, view, 0);
        // 0 … 2 MiB padded by 5% (0.1 MiB) on top; the bottom stays at 0 (no negative bytes).
        assert_eq!((l.y_lo_bytes, l.y_hi_bytes), (0.0, 2.1 * 1048576.0));
        let y_text: Vec<&str> = l
            .y_axis
            .ticks
            .iter()
            .map(|t| t.label.text.as_str())
            .collect();
        assert_eq!(y_text, ["0 MiB", "1 MiB", "2 MiB"]);
        let top = &l.y_axis.ticks[2];
        assert!((top.pos - (126.0 - 2.0 / 2.1 * 110.0)).abs() < 1e-9);
        assert_eq!(top.line, Line::horizontal(top.pos, 65.0, 950.0));
        assert_eq!((top.label.x, top.label.anchor), (62.0, Anchor::End));
        // A 1 µs window: ticks every 0.2 µs, 176 px apart.
        let x_text: Vec<&str> = l
            .x_axis
            .ticks
            .iter()
            .map(|t| t.label.text.as_str())
            .collect();
        assert_eq!(
            x_text,
            ["0.0 µs", "0.2 µs", "0.4 µs", "0.6 µs", "0.8 µs", "1.0 µs"]
        );
        assert_eq!(l.x_axis.ticks[2].pos, 70.0 + 0.4 * 880.0);
        assert_eq!(l.x_axis.ticks[2].line, Line::vertical(422.0, 126.0, 131.0));
        assert_eq!(l.x_axis.ticks[2].label.y, 142.0);
        assert_eq!(l.baseline, Line::horizontal(126.0, 70.0, 950.0));
        // x: 70 + t/1000 · 880; y: 126 − bytes/2.1 MiB · 110.
        let y = |mib: f64| 126.0 - mib / 2.1 * 110.0;
        let pts = points(l.device_used.as_deref().unwrap());
        let want = [(70.0, y(0.0)), (510.0, y(1.0)), (950.0, y(2.0))];
        assert_eq!(pts.len(), 3);
        for (p, w) in pts.iter().zip(want) {
            assert!(
                (p.0 - w.0).abs() < 0.06 && (p.1 - w.1).abs() < 0.06,
                "{p:?} {w:?}"
            );
        }
        // The NaN sample is skipped.
        assert_eq!(points(l.allocator_reserved.as_deref().unwrap()).len(), 2);
        assert_eq!(l.allocator_allocated, None);
        assert_eq!(points(l.gap.as_deref().unwrap()).len(), 6);
        // A zero-length marker is 1 px wide; one past the window's end is cut at its edge.
        assert_eq!(
            l.markers[0],
            Some(Rect {
                x: 290.0,
                y: 8.0,
                width: 1.0,
                height: 6.0
            })
        );
        let m1 = l.markers[1].unwrap();
        assert_eq!(m1.x, 70.0 + 0.9 * 880.0);
        assert!((m1.x + m1.width - 950.0).abs() < 1e-9);
        assert_eq!(
            l.intervals,
            vec![
                Some(Rect {
                    x: 510.0,
                    y: 16.0,
                    width: 220.0,
                    height: 110.0
                }),
                None
            ]
        );
    }

    #[test]
    fn a_100_mib_spike_on_a_36_gib_device_fills_the_lane() {
        const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
        const MIB: f64 = 1024.0 * 1024.0;
        // 30 GiB in use on a 36 GiB device, a 100 MiB spike for 20 ms in a 10 s trace.
        let ts: Vec<i64> = (0..=1000).map(|i| i * 10_000_000).collect();
        let used: Vec<f64> = (0..=1000)
            .map(|i| {
                if (500..502).contains(&i) {
                    30.0 * GIB + 100.0 * MIB
                } else {
                    30.0 * GIB
                }
            })
            .collect();
        let input = LaneInput {
            device_used: Some(SeriesIn {
                ts_ns: &ts,
                bytes: &used,
            }),
            ..Default::default()
        };
        let full = time_domain(std::slice::from_ref(&input), []);
        let l = lane(&input, full, full.t0_ns);
        let ys: Vec<f64> = points(l.device_used.as_deref().unwrap())
            .iter()
            .map(|p| p.1)
            .collect();
        let floor = ys.iter().copied().fold(f64::MIN, f64::max);
        let peak = ys.iter().copied().fold(f64::MAX, f64::min);
        // 100 of the 110 px of the plot area (the rest is the 5% padding each side); drawn
        // from 0 to the device's 36 GiB it would be 0.3 px.
        assert!(
            (floor - peak - 100.0).abs() < 0.2,
            "spike {} px",
            floor - peak
        );
        // The byte ticks are in GiB with enough decimals to tell them apart.
        let y_text: Vec<&str> = l
            .y_axis
            .ticks
            .iter()
            .map(|t| t.label.text.as_str())
            .collect();
        assert!(
            y_text.len() >= 2 && y_text.iter().all(|t| t.ends_with(" GiB")),
            "{y_text:?}"
        );
        let mut dedup = y_text.clone();
        dedup.dedup();
        assert_eq!(dedup.len(), y_text.len(), "{y_text:?}");
        // The time axis of the 10 s trace is in seconds: 0, 1, …, 10 s.
        let x_text: Vec<&str> = l
            .x_axis
            .ticks
            .iter()
            .map(|t| t.label.text.as_str())
            .collect();
        assert_eq!((x_text[0], *x_text.last().unwrap()), ("0 s", "10 s"));
    }

    #[test]
    fn zoom_pan_and_brush_windows_stay_inside_the_full_axis() {
        let full = TimeDomain {
            t0_ns: 1_000_000_000,
            t1_ns: 11_000_000_000,
        };
        // A brush over the plot area's middle fifth selects the middle fifth of the time.
        let x = |f: f64| 70.0 + f * 880.0;
        let w = brush_window(full, full, x(0.6), x(0.4)).unwrap();
        assert_eq!(
            w,
            TimeDomain {
                t0_ns: 5_000_000_000,
                t1_ns: 7_000_000_000
            }
        );
        // 2 s wide: the axis is in seconds relative to the origin, with one decimal.
        let ax = time_axis(w, full.t0_ns);
        assert_eq!(ax.ticks[0].label.text, "4.0 s");
        assert_eq!(ax.ticks.last().unwrap().label.text, "6.0 s");
        assert_eq!(ax.ticks[0].pos, 70.0);
        // A click is no brush; a brush beyond the area is cut to it.
        assert_eq!(brush_window(full, full, x(0.5), x(0.5) + 2.0), None);
        let edge = brush_window(full, full, 0.0, x(0.1)).unwrap();
        assert_eq!(edge.t0_ns, full.t0_ns);
        // Panning past the end stops at the end with the same width; zooming out stops at full.
        let p = pan(full, w, 10.0);
        assert_eq!(
            p,
            TimeDomain {
                t0_ns: 9_000_000_000,
                t1_ns: 11_000_000_000
            }
        );
        assert_eq!(pan(full, w, -0.5).t0_ns, 4_000_000_000);
        assert_eq!(zoom(full, w, 100.0), full);
        assert_eq!(
            zoom(full, w, 0.5).t1_ns - zoom(full, w, 0.5).t0_ns,
            1_000_000_000
        );
        // Zooming in stops at 1 µs.
        let tiny = zoom(full, w, 1e-12);
        assert_eq!(tiny.t1_ns - tiny.t0_ns, MIN_WINDOW_NS);
        let ax = time_axis(tiny, tiny.t0_ns);
        assert!(
            ax.ticks.iter().all(|t| t.label.text.ends_with(" µs")),
            "{ax:?}"
        );
        let ax = time_axis(
            TimeDomain {
                t0_ns: 0,
                t1_ns: 999,
            },
            0,
        );
        assert!(
            ax.ticks.iter().all(|t| t.label.text.ends_with(" ns")),
            "{ax:?}"
        );
        // A zoomed lane draws only what is in the window, cut at its edges by interpolation.
        let ts = [0, 1000, 2000];
        let v = [0.0, 1000.0, 0.0];
        let input = LaneInput {
            device_used: Some(SeriesIn {
                ts_ns: &ts,
                bytes: &v,
            }),
            intervals: &[(0, 200), (400, 600)],
            ..Default::default()
        };
        let l = lane(
            &input,
            TimeDomain {
                t0_ns: 500,
                t1_ns: 1500,
            },
            0,
        );
        let pts = points(l.device_used.as_deref().unwrap());
        assert_eq!(pts.len(), 3);
        assert_eq!((pts[0].0, pts[2].0), (70.0, 950.0));
        // Cut at 500 ns and 1500 ns: both 500 bytes, the bottom of the fitted 500…1000 range.
        assert_eq!((l.y_lo_bytes, l.y_hi_bytes), (475.0, 1025.0));
        assert!((pts[0].1 - pts[2].1).abs() < 1e-9);
        assert_eq!(l.intervals[0], None);
        assert_eq!(l.intervals[1].unwrap().x, 70.0);
        assert_eq!(l.intervals[1].unwrap().width, 88.0);
    }

    #[test]
    fn empty_and_constant_lanes_have_no_nan() {
        let empty = LaneInput::default();
        let time = time_domain(&[], []);
        assert_eq!(time, TimeDomain { t0_ns: 0, t1_ns: 1 });
        let l = lane(&empty, time, 0);
        assert_eq!((l.y_lo_bytes, l.y_hi_bytes), (0.0, 1024.0));
        assert!(l.intervals.is_empty() && l.markers.is_empty() && l.gap.is_none());
        let ts = [42, 42];
        let zeros = [0.0, 0.0];
        let input = LaneInput {
            device_used: Some(SeriesIn {
                ts_ns: &ts,
                bytes: &zeros,
            }),
            ..Default::default()
        };
        let time = time_domain(std::slice::from_ref(&input), []);
        let l = lane(&input, time, 42);
        let s = l.device_used.unwrap();
        assert!(!s.contains("NaN") && !s.contains("inf"), "{s}");
        assert_eq!(points(&s), vec![(70.0, 126.0), (70.0, 126.0)]);
        for t in l.x_axis.ticks.iter().chain(&l.y_axis.ticks) {
            assert!(t.pos.is_finite() && !t.label.text.contains("NaN"), "{t:?}");
        }
    }

    #[test]
    fn gap_band_keeps_the_peak_and_never_inverts() {
        let n = 1000;
        let ts: Vec<i64> = (0..n).map(|i| i * 1_000_000).collect();
        let reserved = vec![100.0; n as usize];
        let mut used = vec![90.0; n as usize];
        used[617] = 5000.0;
        let b = gap_band(&ts, &used, &reserved, 50);
        assert_eq!(b.ts_ns.len(), 50);
        assert_eq!((b.ts_ns[0], b.ts_ns[49]), (0, 999_000_000));
        let k = b
            .ts_ns
            .iter()
            .position(|&t| t == 617_000_000)
            .expect("peak");
        assert_eq!((b.lo[k], b.hi[k]), (100.0, 5000.0));
        assert!(b.lo.iter().zip(&b.hi).all(|(lo, hi)| hi >= lo));
        // Mismatched lengths are cut; empty input gives an empty band.
        assert_eq!(gap_band(&ts[..3], &used, &reserved[..2], 50).ts_ns.len(), 2);
        assert_eq!(gap_band(&[], &[], &[], 50), ThinBand::default());
    }
}
