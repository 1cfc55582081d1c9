//! The scatter plot of one hotspot: one point per trial (hover shows the trial file via SVG
//! `<title>`), per-input medians with CI whiskers, and the best fitted curve when the AICc
//! verdict names one. Geometry comes from [`crate::plot::scatter`].

use leptos::prelude::*;

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
                <label>
                    <input
                        type="checkbox"
                        data-testid="x-log"
                        prop:checked=move || x_log.get()
                        on:change=move |ev| x_log.set(event_target_checked(&ev))
                    />
                    " log x"
                </label>
                <label>
                    <input
                        type="checkbox"
                        data-testid="y-log"
                        prop:checked=move || y_log.get()
                        on:change=move |ev| y_log.set(event_target_checked(&ev))
                    />
                    " log y"
                </label>
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
    let (l, t, r, b) = s.area;
    let hidden = s.hidden;
    let x_ticks = s
        .x_ticks
        .into_iter()
        .map(|tk| {
            view! {
                <g class="tick">
                    <line x1=tk.pos x2=tk.pos y1=b y2=b + 5.0></line>
                    <text x=tk.pos y=b + 18.0 text-anchor="middle">{tk.label}</text>
                </g>
            }
        })
        .collect_view();
    let y_ticks = s
        .y_ticks
        .into_iter()
        .map(|tk| {
            view! {
                <g class="tick">
                    <line x1=l - 5.0 x2=r y1=tk.pos y2=tk.pos class="grid"></line>
                    <text x=l - 8.0 y=tk.pos + 4.0 text-anchor="end">{tk.label}</text>
                </g>
            }
        })
        .collect_view();
    let whiskers = s
        .whiskers
        .into_iter()
        .map(|w| {
            let bar = match (w.lo, w.hi) {
                (Some(lo), Some(hi)) => Some(view! {
                    <line class="whisker" x1=w.cx x2=w.cx y1=lo y2=hi></line>
                    <line class="whisker" x1=w.cx - 5.0 x2=w.cx + 5.0 y1=lo y2=lo></line>
                    <line class="whisker" x1=w.cx - 5.0 x2=w.cx + 5.0 y1=hi y2=hi></line>
                }),
                _ => None,
            };
            view! {
                <g data-testid="median">
                    {bar}
                    <line class="median" x1=w.cx - 9.0 x2=w.cx + 9.0 y1=w.cy y2=w.cy></line>
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
            <rect class="area" x=l y=t width=r - l height=b - t></rect>
            {y_ticks}
            {x_ticks}
            {curve}
            {whiskers}
            {points}
            <text x=(l + r) / 2.0 y=s.height - 4.0 text-anchor="middle" class="axis-label">
                "trial input"
            </text>
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
