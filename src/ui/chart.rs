//! SVG rendering of the chart pieces every chart shares ([`crate::plot::axis`] axes, plot
//! areas, labels); the geometry is computed by [`crate::plot`], this only maps it to elements.

use leptos::prelude::*;

use crate::plot::{Axis, Label, Rect};

/// The ticks of `axis`: one `<g class="tick">` each, with its mark (class `grid` for a
/// gridline) and its label.
pub fn axis_ticks(axis: &Axis) -> impl IntoView {
    axis.ticks
        .iter()
        .map(|tk| {
            let l = tk.line;
            view! {
                <g class="tick">
                    <line x1=l.x1 x2=l.x2 y1=l.y1 y2=l.y2 class=tk.grid.then_some("grid")></line>
                    {text(&tk.label, None)}
                </g>
            }
        })
        .collect_view()
}

/// The title of `axis` (class `axis-label`), when it has one.
pub fn axis_title(axis: &Axis) -> impl IntoView {
    axis.title.as_ref().map(|t| text(t, Some("axis-label")))
}

/// A `<text>` element for `label`, with an optional class.
pub fn text(label: &Label, class: Option<&'static str>) -> impl IntoView {
    view! {
        <text x=label.x y=label.y text-anchor=label.anchor.as_str() class=class>
            {label.text.clone()}
        </text>
    }
}

/// The plot-area background `<rect class="area">`.
pub fn area_rect(r: Rect) -> impl IntoView {
    view! { <rect class="area" x=r.x y=r.y width=r.width height=r.height></rect> }
}
