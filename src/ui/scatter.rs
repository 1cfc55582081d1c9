//! The scatter plot of one hotspot: one point per trial (hover shows the trial file via SVG
//! `<title>`), per-input medians with CI whiskers, and the best fitted curve when the AICc
//! verdict names one. Geometry (points, whiskers, curve, axes) and captions come from
//! [`crate::report::hotspot`]; this file only maps them to SVG elements.

use leptos::prelude::*;

use super::{chart, export};
use crate::analysis::scaling::{Hotspot, Report};
use crate::plot::{self, ScatterOptions};

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
    let fit_text = crate::report::hotspot::fit_caption(&h);
    let power = crate::report::hotspot::power_caption(&h);
    let title = crate::report::hotspot::hotspot_title(&h);
    let geometry = {
        let (report, h) = (report.clone(), h.clone());
        move || {
            crate::report::hotspot::hotspot_scatter(
                &report,
                &h,
                ScatterOptions {
                    x_log: x_log.get(),
                    y_log: y_log.get(),
                    ..ScatterOptions::default()
                },
            )
        }
    };
    // The plot as a standalone SVG file, on the current axes.
    let svg_text = {
        let (geometry, title) = (geometry.clone(), title.clone());
        move || geometry().map(|s| crate::report::svg::scatter(&s, &title))
    };
    let svg_for_png = svg_text.clone();
    view! {
        <div class="plot" data-testid="scatter">
            <div class="plot-head">
                <strong>{title}</strong>
                {log_toggle("x-log", " log x", x_log)}
                {log_toggle("y-log", " log y", y_log)}
                " "
                {export::button("export-scatter-svg", "SVG", "scatter.svg", "image/svg+xml", svg_text)}
                " "
                <button
                    class="small"
                    data-testid="export-scatter-png"
                    on:click=move |_| {
                        if let Some(svg) = svg_for_png() {
                            let (w, h) = export::svg_size(&svg);
                            export::save_png(svg, w, h, "scatter.png");
                        }
                    }
                >
                    "PNG"
                </button>
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
    // The point the keyboard is on: its tooltip is spelled out under the plot.
    let focused: RwSignal<Option<String>> = RwSignal::new(None);
    let points = s
        .points
        .into_iter()
        .map(|p| {
            let title = p.title.clone();
            let label = p.title.clone();
            view! {
                <circle
                    class="pt"
                    data-testid="trial-point"
                    cx=p.cx
                    cy=p.cy
                    r="4"
                    tabindex="0"
                    aria-label=label
                    on:focus=move |_| focused.set(Some(title.clone()))
                    on:blur=move |_| focused.set(None)
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                        if ev.key().starts_with("Arrow") {
                            super::focus_sibling_row(&ev);
                            ev.prevent_default();
                        }
                    }
                >
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
        <p class="muted point-readout" data-testid="point-readout" aria-live="polite">
            {move || focused.get().unwrap_or_else(|| "Tab to the points; ← → move between them.".into())}
        </p>
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
