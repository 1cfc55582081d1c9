//! Memory-lane geometry: one lane per rank on a shared ns time axis — memory series as polyline
//! point strings, the hidden-memory gap as a band polygon, collective marker ticks and
//! attributed-interval rectangles, the byte axis labels — and the thinning of the gap band for
//! drawing.

use super::axis::TimeDomain;
use super::downsample::lttb;
use super::geom::{push_point, Anchor, Label, Line, Rect};

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

/// One lane placed in pixels (origin top left of the lane's own SVG).
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// SVG size, px ([`LANE_WIDTH`] × [`LANE_HEIGHT`]).
    pub width: f64,
    pub height: f64,
    /// The byte value at the top of the plot area (the largest finite sample, at least 1).
    pub ymax_bytes: f64,
    /// The byte axis: the top label ([`format_mib`] of `ymax_bytes`) and the `0` at the bottom.
    pub y_labels: [Label; 2],
    /// The time axis line along the bottom of the plot area.
    pub baseline: Line,
    /// One rectangle per [`LaneInput::intervals`] entry, same order, spanning the plot height
    /// (at least 1.5 px wide).
    pub intervals: Vec<Rect>,
    /// SVG `points` of the gap polygon (upper edge left to right, then lower edge back).
    pub gap: Option<String>,
    /// SVG `points` of each series' polyline (non-finite samples skipped).
    pub device_used: Option<String>,
    pub allocator_reserved: Option<String>,
    pub allocator_allocated: Option<String>,
    /// One 6 px tall tick above the plot area per marker, same order (at least 1 px wide).
    pub markers: Vec<Rect>,
}

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

/// Time → x and bytes → y of one lane.
#[derive(Clone, Copy)]
struct Frame {
    time: TimeDomain,
    ymax: f64,
}

impl Frame {
    /// x of `t_ns`; times outside the domain are held just beyond the plot area's edges.
    fn x(&self, t_ns: i64) -> f64 {
        LEFT + self.time.fraction(t_ns).clamp(-0.01, 1.01) * (LANE_WIDTH - LEFT - RIGHT)
    }
    /// y of `bytes`; negative values sit on the baseline, values over the maximum at most 5%
    /// above the plot area.
    fn y(&self, bytes: f64) -> f64 {
        TOP + PLOT_H - (bytes / self.ymax).clamp(0.0, 1.05) * PLOT_H
    }

    fn polyline(&self, s: &SeriesIn<'_>) -> String {
        let mut out = String::with_capacity(s.ts_ns.len() * 14);
        for (t, b) in s.ts_ns.iter().zip(s.bytes) {
            if b.is_finite() {
                push_point(&mut out, self.x(*t), self.y(*b));
            }
        }
        out
    }

    fn band(&self, g: &BandIn<'_>) -> String {
        let kept: Vec<(i64, f64, f64)> = g
            .ts_ns
            .iter()
            .zip(g.lo)
            .zip(g.hi)
            .filter(|((_, lo), hi)| lo.is_finite() && hi.is_finite())
            .map(|((t, lo), hi)| (*t, *lo, *hi))
            .collect();
        let mut out = String::new();
        for (t, _, hi) in &kept {
            push_point(&mut out, self.x(*t), self.y(*hi));
        }
        for (t, lo, _) in kept.iter().rev() {
            push_point(&mut out, self.x(*t), self.y(*lo));
        }
        out
    }

    /// A rectangle from `a` to `b` (ns), at least `min_w` px wide, `y`..`y + h` px.
    fn span(&self, (a, b): (i64, i64), min_w: f64, y: f64, h: f64) -> Rect {
        let x = self.x(a);
        Rect {
            x,
            y,
            width: (self.x(b) - x).max(min_w),
            height: h,
        }
    }
}

/// Lays out one lane on the shared `time` axis (from [`time_domain`]); the byte axis runs from
/// 0 to the lane's largest finite sample. Empty inputs give an empty lane (no NaN anywhere).
pub fn lane(input: &LaneInput<'_>, time: TimeDomain) -> Lane {
    let ymax = input
        .series()
        .flat_map(|s| s.bytes.iter().copied())
        .filter(|b| b.is_finite())
        .fold(0.0, f64::max)
        .max(1.0);
    let f = Frame { time, ymax };
    let label = |y: f64, text: String| Label {
        x: LEFT - 6.0,
        y,
        anchor: Anchor::End,
        text,
    };
    Lane {
        width: LANE_WIDTH,
        height: LANE_HEIGHT,
        ymax_bytes: ymax,
        y_labels: [
            label(TOP + 8.0, format_mib(ymax)),
            label(TOP + PLOT_H, "0".to_string()),
        ],
        baseline: Line::horizontal(TOP + PLOT_H, LEFT, LANE_WIDTH - RIGHT),
        intervals: input
            .intervals
            .iter()
            .map(|&iv| f.span(iv, INTERVAL_MIN_W, TOP, PLOT_H))
            .collect(),
        gap: input.gap.as_ref().map(|g| f.band(g)),
        device_used: input.device_used.as_ref().map(|s| f.polyline(s)),
        allocator_reserved: input.allocator_reserved.as_ref().map(|s| f.polyline(s)),
        allocator_allocated: input.allocator_allocated.as_ref().map(|s| f.polyline(s)),
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
        let intervals = [(500, 750)];
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
        let time = TimeDomain {
            t0_ns: 0,
            t1_ns: 1000,
        };
        let l = lane(&input, time);
        assert_eq!(l.ymax_bytes, 2097152.0);
        assert_eq!(l.y_labels[0].text, "2.0 MiB");
        assert_eq!((l.y_labels[0].x, l.y_labels[0].y), (64.0, 24.0));
        assert_eq!((l.y_labels[1].text.as_str(), l.y_labels[1].y), ("0", 126.0));
        assert_eq!(l.baseline, Line::horizontal(126.0, 70.0, 950.0));
        // x: 70 + t/1000 · 880; y: 126 − bytes/2 MiB · 110.
        assert_eq!(
            l.device_used.as_deref(),
            Some("70.0,126.0 510.0,71.0 950.0,16.0 ")
        );
        // The NaN sample is skipped.
        assert_eq!(
            points(l.allocator_reserved.as_deref().unwrap()),
            vec![(70.0, 126.0), (510.0, 98.5)]
        );
        assert_eq!(l.allocator_allocated, None);
        assert_eq!(
            points(l.gap.as_deref().unwrap()),
            vec![
                (70.0, 126.0),
                (510.0, 71.0),
                (950.0, 16.0),
                (950.0, 71.0),
                (510.0, 98.5),
                (70.0, 126.0)
            ]
        );
        // A zero-length marker is 1 px wide; one past the end is held at 1.01 of the width.
        assert_eq!(
            l.markers[0],
            Rect {
                x: 290.0,
                y: 8.0,
                width: 1.0,
                height: 6.0
            }
        );
        assert_eq!(l.markers[1].x, 70.0 + 0.9 * 880.0);
        assert!((l.markers[1].x + l.markers[1].width - (70.0 + 1.01 * 880.0)).abs() < 1e-9);
        assert_eq!(
            l.intervals,
            vec![Rect {
                x: 510.0,
                y: 16.0,
                width: 220.0,
                height: 110.0
            }]
        );
    }

    #[test]
    fn empty_and_constant_lanes_have_no_nan() {
        let empty = LaneInput::default();
        let time = time_domain(&[], []);
        assert_eq!(time, TimeDomain { t0_ns: 0, t1_ns: 1 });
        let l = lane(&empty, time);
        assert_eq!(l.ymax_bytes, 1.0);
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
        let l = lane(&input, time);
        let s = l.device_used.unwrap();
        assert!(!s.contains("NaN") && !s.contains("inf"), "{s}");
        assert_eq!(points(&s), vec![(70.0, 126.0), (70.0, 126.0)]);
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
