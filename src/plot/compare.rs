//! Geometry of the comparison views (issue 13): the forest plot of ratios with their CIs for
//! the top frames, and the strip plot of both sides' per-trial values of one frame. Plot-owned
//! inputs; the UI maps `analysis::compare::Row`s into them.

use super::geom::{Anchor, Area, Label, Line};
use super::{Axis, Scale, ScaleKind};

/// One row of a forest plot: a ratio (candidate / baseline) and its CI.
#[derive(Clone, Debug, PartialEq)]
pub struct ForestItem {
    /// Row label (frame name).
    pub label: String,
    /// The ratio; non-finite or ≤ 0 is not placed.
    pub estimate: f64,
    /// CI bounds (`None` = no interval; +∞ is clipped at the right edge).
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Drawn emphasized (e.g. verdict slower / faster).
    pub highlight: bool,
}

/// One placed forest row.
#[derive(Clone, Debug, PartialEq)]
pub struct ForestRow {
    /// Index of the item.
    pub item: usize,
    /// Row centre, px.
    pub y: f64,
    /// The estimate's x, px (`None` when it cannot be placed).
    pub x: Option<f64>,
    /// The CI as a horizontal segment (clipped to the area), when both bounds exist.
    pub ci: Option<Line>,
    /// The label left of the area, right-aligned.
    pub label: Label,
    pub highlight: bool,
}

/// A forest plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Forest {
    pub rows: Vec<ForestRow>,
    /// The vertical "no change" line at ratio 1, when inside the domain.
    pub reference: Option<Line>,
    /// The log-scaled bottom axis (unit `×`).
    pub axis: Axis,
}

/// Forest plot of `items` in `area` (one row of `area.height / n` each, top to bottom), on a
/// log-scaled ratio axis covering every finite positive estimate and bound and 1.
pub fn forest(items: &[ForestItem], area: &Area) -> Forest {
    let vals = items
        .iter()
        .flat_map(|i| [Some(i.estimate), i.low, i.high])
        .flatten()
        .filter(|v| v.is_finite() && *v > 0.0)
        .chain([1.0]);
    let scale = Scale::fit(ScaleKind::Log, vals, area.left, area.right);
    let n = items.len().max(1) as f64;
    let h = (area.bottom - area.top) / n;
    let clip = |v: f64| v.clamp(area.left, area.right);
    let mut rows = Vec::with_capacity(items.len());
    for (k, it) in items.iter().enumerate() {
        let y = area.top + h * (k as f64 + 0.5);
        let place = |v: f64| {
            if v == f64::INFINITY {
                Some(area.right)
            } else {
                scale.and_then(|s| s.map(v))
            }
        };
        let x = place(it.estimate);
        let ci = match (it.low.and_then(place), it.high.and_then(place)) {
            (Some(a), Some(b)) => Some(Line::horizontal(y, clip(a), clip(b))),
            _ => None,
        };
        rows.push(ForestRow {
            item: k,
            y,
            x: x.map(clip),
            ci,
            label: Label {
                x: area.left - 8.0,
                y: y + 4.0,
                anchor: Anchor::End,
                text: it.label.clone(),
            },
            highlight: it.highlight,
        });
    }
    let reference = scale
        .and_then(|s| s.map(1.0))
        .map(|x| Line::vertical(x, area.top, area.bottom));
    let axis = scale.map_or_else(Axis::default, |s| Axis::bottom(&s, 5, "×", area));
    Forest {
        rows,
        reference,
        axis,
    }
}

/// One value of a strip plot.
#[derive(Clone, Debug, PartialEq)]
pub struct StripValue {
    /// Group (0 = baseline, 1 = candidate, …).
    pub group: usize,
    /// The value (e.g. ns).
    pub value: f64,
    /// Identifies the value for hover (e.g. the trial index).
    pub key: usize,
    /// Drawn hollow (a zero-filled value).
    pub hollow: bool,
}

/// One placed point.
#[derive(Clone, Debug, PartialEq)]
pub struct StripPoint {
    /// Index into the input values.
    pub value: usize,
    pub x: f64,
    pub y: f64,
    pub hollow: bool,
}

/// A strip plot: groups side by side, a point per value, a median bar per group.
#[derive(Clone, Debug, PartialEq)]
pub struct Strip {
    pub points: Vec<StripPoint>,
    /// Per group, a horizontal bar at the group's median (`None` for an empty group).
    pub medians: Vec<Option<Line>>,
    /// Group labels centred under each band.
    pub labels: Vec<Label>,
    /// Left axis in `unit`.
    pub axis: Axis,
}

/// Strip plot of `values` in `groups.len()` bands of `area` (labels `groups`), on a linear y
/// scale including 0. Points of a band are spread deterministically over the middle half of
/// the band (by rank within the group) so equal values stay visible; `medians` are computed by
/// the caller (the one median is in `analysis::stats`) and drawn as bars.
pub fn strip(
    values: &[StripValue],
    groups: &[&str],
    medians: &[Option<f64>],
    unit: &str,
    area: &Area,
) -> Strip {
    let scale = Scale::fit(
        ScaleKind::Linear,
        values.iter().map(|v| v.value).chain([0.0]),
        area.bottom,
        area.top,
    );
    let g = groups.len().max(1) as f64;
    let band = (area.right - area.left) / g;
    let centre = |k: usize| area.left + band * (k as f64 + 0.5);
    let mut points = Vec::with_capacity(values.len());
    for (k, _) in groups.iter().enumerate() {
        let members: Vec<usize> = (0..values.len())
            .filter(|&i| values[i].group == k)
            .collect();
        let m = members.len();
        for (j, &i) in members.iter().enumerate() {
            let off = if m > 1 {
                (j as f64 / (m - 1) as f64 - 0.5) * band * 0.5
            } else {
                0.0
            };
            if let Some(y) = scale.and_then(|s| s.map(values[i].value)) {
                points.push(StripPoint {
                    value: i,
                    x: centre(k) + off,
                    y,
                    hollow: values[i].hollow,
                });
            }
        }
    }
    let medians = (0..groups.len())
        .map(|k| {
            let m = medians.get(k).copied().flatten()?;
            let y = scale?.map(m)?;
            Some(Line::horizontal(
                y,
                centre(k) - band * 0.35,
                centre(k) + band * 0.35,
            ))
        })
        .collect();
    let labels = groups
        .iter()
        .enumerate()
        .map(|(k, t)| Label {
            x: centre(k),
            y: area.bottom + 18.0,
            anchor: Anchor::Middle,
            text: t.to_string(),
        })
        .collect();
    let axis = scale.map_or_else(Axis::default, |s| Axis::left(&s, 5, unit, area));
    Strip {
        points,
        medians,
        labels,
        axis,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area() -> Area {
        Area {
            left: 100.0,
            top: 0.0,
            right: 500.0,
            bottom: 200.0,
        }
    }

    #[test]
    fn forest_places_ratios_around_one() {
        let items = vec![
            ForestItem {
                label: "slow".into(),
                estimate: 1.3,
                low: Some(1.2),
                high: Some(1.4),
                highlight: true,
            },
            ForestItem {
                label: "same".into(),
                estimate: 1.0,
                low: Some(0.9),
                high: Some(f64::INFINITY),
                highlight: false,
            },
        ];
        let f = forest(&items, &area());
        let one = f.reference.unwrap().x1;
        assert!(f.rows[0].x.unwrap() > one);
        assert!((f.rows[1].x.unwrap() - one).abs() < 1e-9);
        assert_eq!(f.rows[1].ci.unwrap().x2, 500.0);
        assert_eq!((f.rows[0].y, f.rows[1].y), (50.0, 150.0));
    }

    #[test]
    fn strip_puts_groups_in_bands_with_medians() {
        let v = |group, value, key| StripValue {
            group,
            value,
            key,
            hollow: false,
        };
        let values = vec![v(0, 10.0, 0), v(0, 12.0, 1), v(1, 20.0, 2), v(1, 22.0, 3)];
        let s = strip(
            &values,
            &["baseline", "candidate"],
            &[Some(11.0), Some(21.0)],
            "ns",
            &area(),
        );
        assert_eq!(s.points.len(), 4);
        assert!(s.points.iter().filter(|p| p.x < 300.0).count() == 2);
        let (m0, m1) = (s.medians[0].unwrap(), s.medians[1].unwrap());
        assert!(m1.y1 < m0.y1, "the larger median is higher");
    }
}
