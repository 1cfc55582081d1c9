//! The scatter plot of one hotspot: one point per trial (hover shows the trial file via SVG
//! `<title>`), per-input medians with CI whiskers, and the best fitted curve when the AICc
//! verdict names one. Geometry (points, whiskers, curve, axes) comes from
//! [`crate::plot::scatter`]; this file only maps it to SVG elements.

use leptos::prelude::*;

use super::chart;
use crate::analysis::scaling::{Hotspot, Report};
use crate::analysis::stats::fits::{FitModel, Fits};
use crate::plot::{self, format_value, ScatterInput, ScatterOptions, Whisker};

/// `y(x)` of the best model of `fits`, when the verdict names one.
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

/// A labelled checkbox bound to `on` (a log-axis switch).
fn log_toggle(testid: &'static str, label: &'static str, on: RwSignal<bool>) -> impl IntoView {
    view! {
        <label>
            <input
                type="checkbox"
                data-testid=testid
                prop:checked=move || on.get()
                on:change=move |ev| on.set(event_target_checked(&ev))
            />
            {label}
        </label>
    }
}

/// Renders the plot for `h` (a hotspot of `report`).
#[component]
pub fn ScatterPlot(report: std::sync::Arc<Report>, hotspot: Hotspot) -> impl IntoView {
    let x_log = RwSignal::new(false);
    let y_log = RwSignal::new(false);
    let h = hotspot;
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
    let fit_text = match (&h.fit, &curve) {
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
    };
    let power = h.fit.as_ref().and_then(|f| f.power_law.as_ref()).map(|p| {
        let ci = match (p.b_ci_low, p.b_ci_high) {
            (Some(l), Some(u)) => format!(" ({:.0}% CI {l:.2}–{u:.2})", p.level * 100.0),
            _ => String::new(),
        };
        format!("power law: exponent b = {:.2}{ci}", p.b)
    });
    let unit = h.unit.clone();
    let geometry = move || {
        let f = curve.as_ref().map(|&(_, model, a, b)| {
            move |x: f64| match model.regressor(x) {
                Some(r) => a + b * r,
                None => a,
            }
        });
        let input = ScatterInput {
            points: points.clone(),
            whiskers: whiskers.clone(),
            curve: f.as_ref().map(|f| f as &dyn Fn(f64) -> f64),
            x_unit: String::new(),
            y_unit: unit.clone(),
            x_title: "trial input".into(),
        };
        plot::scatter(
            &input,
            ScatterOptions {
                x_log: x_log.get(),
                y_log: y_log.get(),
                ..ScatterOptions::default()
            },
        )
    };
    let title = format!("{} — {} ({})", h.name, h.metric.as_str(), h.unit);
    view! {
        <div class="plot" data-testid="scatter">
            <div class="plot-head">
                <strong>{title}</strong>
                {log_toggle("x-log", " log x", x_log)}
                {log_toggle("y-log", " log y", y_log)}
            </div>
            {move || match geometry() {
                None => view! { <p class="muted">"Nothing to plot on these axes."</p> }.into_any(),
                Some(s) => render(s).into_any(),
            }}
            <p class="fit" data-testid="fit">{fit_text}</p>
            {power.map(|p| view! { <p class="fit">{p}</p> })}
            <p class="muted">{report.range_statement.clone()}</p>
        </div>
    }
}

fn render(s: plot::Scatter) -> impl IntoView {
    let hidden = s.hidden;
    let whiskers = s
        .whiskers
        .into_iter()
        .map(|w| {
            let bars = w
                .bars
                .iter()
                .map(|l| view! { <line class="whisker" x1=l.x1 x2=l.x2 y1=l.y1 y2=l.y2></line> })
                .collect_view();
            let m = w.median;
            view! {
                <g data-testid="median">
                    {bars}
                    <line class="median" x1=m.x1 x2=m.x2 y1=m.y1 y2=m.y2></line>
                </g>
            }
        })
        .collect_view();
    let points = s
        .points
        .into_iter()
        .map(|p| {
            view! {
                <circle class="pt" data-testid="trial-point" cx=p.cx cy=p.cy r="4">
                    <title>{p.title}</title>
                </circle>
            }
        })
        .collect_view();
    let curve = (!s.curve_path.is_empty())
        .then(|| view! { <path class="curve" data-testid="fit-curve" d=s.curve_path></path> });
    view! {
        <svg
            class="scatter"
            width=s.width
            height=s.height
            viewBox=format!("0 0 {} {}", s.width, s.height)
            role="img"
        >
            {chart::area_rect(s.area.rect())}
            {chart::axis_ticks(&s.y_axis)}
            {chart::axis_ticks(&s.x_axis)}
            {curve}
            {whiskers}
            {points}
            {chart::axis_title(&s.x_axis)}
        </svg>
        {(hidden > 0)
            .then(|| {
                view! {
                    <p class="muted">
                        {format!("{hidden} value(s) ≤ 0 are not shown on the log axis")}
                    </p>
                }
            })}
    }
}
