//! Numbers → chart geometry for every chart of the web app: scales and ticks (this file),
//! shared axes ([`axis`]), SVG primitives ([`geom`]), the scaling scatter plot ([`mod@scatter`]),
//! the memory lanes ([`memory`]), the compile-triage per-key chart ([`triage`]) and LTTB
//! thinning for drawing ([`downsample`]), flame graphs ([`flame`]) and the comparison's forest and
//! strip plots ([`compare`]). Knows no analysis: callers pass plain numbers or
//! small plot-owned input structs and get back pixel positions, SVG point strings and labels;
//! `ui` only maps them to SVG elements. Pure and native-testable.
//!
//! Conventions: pixel coordinates have the origin at the top left (SVG), so a larger `y` value
//! maps to a smaller pixel `y`. Non-finite values, and values ≤ 0 on a log scale, are not
//! placed (the scatter counts them in [`Scatter::hidden`] so the caller can say so).

pub mod axis;
pub mod compare;
pub mod downsample;
pub mod flame;
pub mod geom;
pub mod memory;
pub mod scatter;
pub mod triage;

pub use axis::{Axis, AxisTick, TimeDomain};
pub use geom::{Anchor, Area, Label, Line, Rect};
pub use scatter::{scatter, Curve, Scatter, ScatterInput, ScatterOptions, Whisker};

/// Linear or base-10 logarithmic axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScaleKind {
    #[default]
    Linear,
    /// Base-10 logarithm; only values > 0 can be placed.
    Log,
}

/// Maps a data domain `[d0, d1]` onto a pixel range `[r0, r1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    pub kind: ScaleKind,
    /// Domain in data units, `d0 < d1` (widened when the data has a single value).
    pub d0: f64,
    pub d1: f64,
    /// Pixel range (may be decreasing, e.g. for a y axis).
    pub r0: f64,
    pub r1: f64,
}

/// One axis tick: value in data units, its pixel position and label.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub value: f64,
    pub pos: f64,
    pub label: String,
}

impl Scale {
    /// A scale over the finite (and, for [`ScaleKind::Log`], positive) values of `values`.
    /// A linear domain is padded by 5% each side and a log domain by a factor 10^0.05; a single
    /// value gets a unit-wide (linear) or one-decade (log) domain. Returns `None` when no value
    /// can be placed.
    pub fn fit(
        kind: ScaleKind,
        values: impl IntoIterator<Item = f64>,
        r0: f64,
        r1: f64,
    ) -> Option<Scale> {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in values {
            if placeable(kind, v) {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        if !lo.is_finite() || !hi.is_finite() {
            return None;
        }
        let (d0, d1) = match kind {
            ScaleKind::Linear => {
                if hi > lo {
                    let pad = (hi - lo) * 0.05;
                    (lo - pad, hi + pad)
                } else {
                    let w = if lo == 0.0 { 1.0 } else { lo.abs() * 0.5 };
                    (lo - w, hi + w)
                }
            }
            ScaleKind::Log => {
                if hi > lo {
                    let f = 10f64.powf(0.05 * (hi / lo).log10().max(0.2));
                    (lo / f, hi * f)
                } else {
                    (lo / 10f64.sqrt(), hi * 10f64.sqrt())
                }
            }
        };
        Some(Scale {
            kind,
            d0,
            d1,
            r0,
            r1,
        })
    }

    /// Pixel position of `v`, or `None` when `v` cannot be placed on this scale.
    pub fn map(&self, v: f64) -> Option<f64> {
        if !placeable(self.kind, v) {
            return None;
        }
        let (a, b, x) = match self.kind {
            ScaleKind::Linear => (self.d0, self.d1, v),
            ScaleKind::Log => (self.d0.log10(), self.d1.log10(), v.log10()),
        };
        let t = if b > a { (x - a) / (b - a) } else { 0.5 };
        Some(self.r0 + t * (self.r1 - self.r0))
    }

    /// Ticks inside the domain: 1-2-5 steps (about `target` of them) on a linear scale; powers
    /// of ten on a log scale, with 2× and 5× added when the domain spans fewer than three
    /// decades.
    pub fn ticks(&self, target: usize, unit: &str) -> Vec<Tick> {
        let values = match self.kind {
            ScaleKind::Linear => linear_ticks(self.d0, self.d1, target.max(2)),
            ScaleKind::Log => log_ticks(self.d0, self.d1),
        };
        values
            .into_iter()
            .filter_map(|v| {
                Some(Tick {
                    value: v,
                    pos: self.map(v)?,
                    label: format_value(v, unit),
                })
            })
            .collect()
    }
}

fn placeable(kind: ScaleKind, v: f64) -> bool {
    v.is_finite() && (kind == ScaleKind::Linear || v > 0.0)
}

/// "Nice" tick values (1, 2 or 5 × 10^k steps) covering `[lo, hi]`, about `target` of them.
pub fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let k = raw.log10().floor() as i32;
    let mult = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|m| m * 10f64.powi(k) >= raw)
        .unwrap_or(10.0);
    let step = mult * 10f64.powi(k);
    // i·mult·10^k, computed as an integer scaled by an exact power of ten so 0.3 prints as 0.3.
    let at = |i: i64| {
        let n = i as f64 * mult;
        if k < 0 {
            n / 10f64.powi(-k)
        } else {
            n * 10f64.powi(k)
        }
    };
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last.min(first + 100)).map(at).collect()
}

/// Powers of ten inside `[lo, hi]` (both > 0); adds 2× and 5× when fewer than three decades;
/// within a narrow domain that holds fewer than three of those (e.g. ratios 0.9–1.4), the
/// 1-2-5 linear ticks of [`linear_ticks`] instead, so the axis is never left with one label.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let decades = decade_ticks(lo, hi);
    if decades.len() < 3 {
        let linear = linear_ticks(lo, hi, 4);
        if linear.len() > decades.len() {
            return linear;
        }
    }
    decades
}

fn decade_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return Vec::new();
    }
    let e0 = lo.log10().floor() as i32;
    let e1 = hi.log10().ceil() as i32;
    let dense = e1 - e0 <= 3;
    let mut out = Vec::new();
    for e in e0..=e1.min(e0 + 40) {
        let base = 10f64.powi(e);
        let mults: &[f64] = if dense { &[1.0, 2.0, 5.0] } else { &[1.0] };
        for m in mults {
            let v = base * m;
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
    }
    out
}

/// Short human text for a value in `unit`: `ns` values become ns/µs/ms/s, `bytes` become
/// B/KiB/MiB/GiB, anything else gets SI prefixes (k, M, G) and at most 3 significant digits.
pub fn format_value(v: f64, unit: &str) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    match unit {
        "ns" => {
            let (d, u) = if a >= 1e9 {
                (1e9, "s")
            } else if a >= 1e6 {
                (1e6, "ms")
            } else if a >= 1e3 {
                (1e3, "µs")
            } else {
                (1.0, "ns")
            };
            format!("{} {u}", sig3(v / d))
        }
        "bytes" => {
            let (d, u) = if a >= (1u64 << 30) as f64 {
                ((1u64 << 30) as f64, "GiB")
            } else if a >= (1u64 << 20) as f64 {
                ((1u64 << 20) as f64, "MiB")
            } else if a >= 1024.0 {
                (1024.0, "KiB")
            } else {
                (1.0, "B")
            };
            format!("{} {u}", sig3(v / d))
        }
        _ => {
            let (d, u) = if a >= 1e9 {
                (1e9, "G")
            } else if a >= 1e6 {
                (1e6, "M")
            } else if a >= 1e4 {
                (1e3, "k")
            } else {
                (1.0, "")
            };
            format!("{}{u}", sig3(v / d))
        }
    }
}

/// At most 3 significant digits, no trailing zeros (`1.50` → `1.5`, `1234` → `1234`).
fn sig3(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    let decimals = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_scale_maps_ends_and_middle() {
        let s = Scale {
            kind: ScaleKind::Linear,
            d0: 0.0,
            d1: 10.0,
            r0: 100.0,
            r1: 0.0,
        };
        assert_eq!(s.map(0.0), Some(100.0));
        assert_eq!(s.map(10.0), Some(0.0));
        assert_eq!(s.map(5.0), Some(50.0));
        assert_eq!(s.map(f64::NAN), None);
    }

    #[test]
    fn log_scale_places_decades_evenly_and_rejects_non_positive() {
        let s = Scale {
            kind: ScaleKind::Log,
            d0: 1.0,
            d1: 1000.0,
            r0: 0.0,
            r1: 300.0,
        };
        let p10 = s.map(10.0).unwrap();
        let p100 = s.map(100.0).unwrap();
        assert!((p10 - 100.0).abs() < 1e-9 && (p100 - 200.0).abs() < 1e-9);
        assert_eq!(s.map(0.0), None);
        assert_eq!(s.map(-3.0), None);
    }

    #[test]
    fn fit_pads_the_domain_and_handles_a_single_value() {
        let s = Scale::fit(ScaleKind::Linear, [0.0, 100.0], 0.0, 1.0).unwrap();
        assert_eq!((s.d0, s.d1), (-5.0, 105.0));
        let s = Scale::fit(ScaleKind::Linear, [7.0, 7.0], 0.0, 1.0).unwrap();
        assert!(s.d0 < 7.0 && s.d1 > 7.0);
        let s = Scale::fit(ScaleKind::Log, [0.0, -1.0, 50.0], 0.0, 1.0).unwrap();
        assert!(s.d0 < 50.0 && s.d1 > 50.0 && s.d0 > 0.0);
        assert!(Scale::fit(ScaleKind::Log, [0.0, -1.0, f64::NAN], 0.0, 1.0).is_none());
    }

    #[test]
    fn linear_ticks_use_1_2_5_steps() {
        assert_eq!(
            linear_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(linear_ticks(-0.05, 0.52, 5), vec![0.0, 0.2, 0.4]);
        assert_eq!(
            linear_ticks(0.0, 0.5, 5),
            vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
        );
        assert_eq!(
            linear_ticks(1000.0, 32000.0, 4),
            vec![10000.0, 20000.0, 30000.0]
        );
        assert!(linear_ticks(1.0, 1.0, 5).is_empty());
    }

    #[test]
    fn log_ticks_fall_back_to_linear_steps_in_a_narrow_domain() {
        assert_eq!(log_ticks(0.9, 1.45), vec![1.0, 1.2, 1.4]);
        assert_eq!(log_ticks(0.8, 1.25), vec![0.8, 1.0, 1.2]);
        // Wide enough for 1-2-5 decade ticks: unchanged.
        assert_eq!(log_ticks(0.5, 6.0), vec![0.5, 1.0, 2.0, 5.0]);
    }

    #[test]
    fn log_ticks_are_powers_of_ten_with_dense_fill_for_short_ranges() {
        assert_eq!(
            log_ticks(800.0, 40000.0),
            vec![1000.0, 2000.0, 5000.0, 10000.0, 20000.0]
        );
        assert_eq!(
            log_ticks(0.5, 2e6),
            vec![1.0, 10.0, 100.0, 1000.0, 1e4, 1e5, 1e6]
        );
    }

    #[test]
    fn values_are_formatted_with_units() {
        assert_eq!(format_value(1_500_000.0, "ns"), "1.5 ms");
        assert_eq!(format_value(250.0, "ns"), "250 ns");
        assert_eq!(format_value(2.0 * 1024.0 * 1024.0, "bytes"), "2 MiB");
        assert_eq!(format_value(32000.0, ""), "32k");
        assert_eq!(format_value(0.0, "count"), "0");
    }
}
