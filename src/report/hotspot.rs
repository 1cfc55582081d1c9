//! The scatter plot of one scaling hotspot, as every front end draws it: one point per trial
//! (titled with the trial's file, its input and value), per-input medians with their CI
//! whiskers, and the curve of the best AICc fit when the verdict names one; plus the captions
//! under the plot. The web app's plot and the static HTML report both use this.

use crate::analysis::scaling::{Hotspot, Report};
use crate::analysis::stats::fits::{FitModel, Fits};
use crate::plot::format_value;
use crate::plot::scatter::{scatter, Scatter, ScatterInput, ScatterOptions, Whisker};

/// The best model of `fits` with its label and coefficients `(a, b)`, when the verdict names one.
fn best_curve(fits: &Fits) -> Option<(String, FitModel, f64, f64)> {
    let model = fits.best.model()?;
    let fit = fits.models.iter().find(|f| f.model == model)?;
    let (a, b) = (fit.a, fit.b.unwrap_or(0.0));
    let label = match model {
        FitModel::Constant => format!("best fit: constant (y = {a:.4})"),
        _ => format!("best fit: y = {a:.4} + {b:.4}·{}", model.as_str()),
    };
    Some((label, model, a, b))
}

/// Lays out the scatter plot of hotspot `h` of `report` (`None` when nothing can be placed).
pub fn hotspot_scatter(report: &Report, h: &Hotspot, opt: ScatterOptions) -> Option<Scatter> {
    let mut points = Vec::new();
    let mut whiskers = Vec::new();
    for p in &h.points {
        for v in &p.values {
            let path = report.trials.get(v.trial).map_or("?", |t| t.path.as_str());
            let zero = if v.zero_filled {
                " (frame absent: 0)"
            } else {
                ""
            };
            points.push((
                p.input,
                v.value,
                format!(
                    "{path}: input {}, {}{zero}",
                    format_value(p.input, ""),
                    format_value(v.value, &h.unit)
                ),
            ));
        }
        whiskers.push(Whisker {
            x: p.input,
            median: p.median,
            lo: p.ci_low,
            hi: p.ci_high,
        });
    }
    let curve = h.fit.as_ref().and_then(best_curve);
    let f = curve.as_ref().map(|&(_, model, a, b)| {
        move |x: f64| match model.regressor(x) {
            Some(r) => a + b * r,
            None => a,
        }
    });
    let input = ScatterInput {
        points,
        whiskers,
        curve: f.as_ref().map(|f| f as &dyn Fn(f64) -> f64),
        x_unit: String::new(),
        y_unit: h.unit.clone(),
        x_title: "trial input".into(),
    };
    scatter(&input, opt)
}

/// The plot's title: `name — metric (unit)`.
pub fn hotspot_title(h: &Hotspot) -> String {
    format!("{} — {} ({})", h.name, h.metric.as_str(), h.unit)
}

/// The fit caption: the best model and its ΔAICc, or why there is none.
pub fn fit_caption(h: &Hotspot) -> String {
    let curve = h.fit.as_ref().and_then(best_curve);
    match (&h.fit, &curve) {
        (Some(f), Some((label, ..))) => format!(
            "{label}; ΔAICc {} over the runner-up",
            f.delta_aicc.map_or("–".into(), |d| format!("{d:.1}"))
        ),
        (Some(f), None) if f.best.model().is_none() => {
            "fit: inconclusive (no model beats the runner-up by ΔAICc ≥ 2)".to_string()
        }
        (Some(f), None) => format!("fit: {}", f.best.as_str()),
        (None, _) => format!(
            "no fit: {}",
            h.fit_unavailable
                .clone()
                .unwrap_or_else(|| "unavailable".into())
        ),
    }
}

/// The power-law caption (exponent b with its CI), when a power law was fitted.
pub fn power_caption(h: &Hotspot) -> Option<String> {
    h.fit.as_ref().and_then(|f| f.power_law.as_ref()).map(|p| {
        let ci = match (p.b_ci_low, p.b_ci_high) {
            (Some(l), Some(u)) => format!(" ({:.0}% CI {l:.2}–{u:.2})", p.level * 100.0),
            _ => String::new(),
        };
        format!("power law: exponent b = {:.2}{ci}", p.b)
    })
}
