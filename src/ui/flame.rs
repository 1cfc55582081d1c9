//! Flame graphs by semantic frame (issue 13): a reusable component that draws an
//! [`FlameTree`] from the worker with the geometry of [`crate::plot::flame::layout`] — one SVG
//! rectangle per node with its label cut to the node's width, the node's numbers as a hover
//! `<title>` — plus zoom by click (the node fills the width; "reset zoom"), search by name
//! (matching nodes highlighted, their count shown), and keyboard access (every node focusable;
//! arrow keys move through [`crate::plot::flame::navigate`], Enter zooms). Also the scaling flame
//! graph of the Scaling tab ([`ScalingFlame`]: colour = each node's Spearman ρ against the
//! input) and the page side of the worker's flame requests ([`request`], [`flamed`]).
//!
//! Text from traces (frame names) is only rendered as text nodes and attribute values.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use super::AppState;
use crate::analysis::flame::{FlameKind, FlameNode, FlameTree};
use crate::plot::flame::{self as pf, ColorScale, FlameItem, FlameOptions, Nav};
use crate::plot::format_value;
use crate::session::{FlameOf, FlameRequest, ToWorker};
use crate::workspace::{CompareRequest, ScalingRequest};

/// Drawing width of a flame graph, px.
const WIDTH: f64 = 960.0;

/// A flame tree as the page holds it: not asked yet (`None`), the tree, or the worker's error.
pub type FlameSlot = Option<Result<Arc<FlameTree>, String>>;

thread_local! {
    static SEQ: Cell<u64> = const { Cell::new(0) };
    static NEXT_GRAPH: Cell<u32> = const { Cell::new(0) };
    /// Per requester key: the latest request's seq and where its answer goes.
    static WANTED: RefCell<BTreeMap<&'static str, (u64, RwSignal<FlameSlot>)>> =
        const { RefCell::new(BTreeMap::new()) };
}

/// Asks the worker for the flame tree `kind` (with the comparison or scaling request it needs);
/// the answer is stored in `target`. A newer request under the same `key` supersedes an older
/// one, whose answer is then dropped.
pub fn request(
    key: &'static str,
    kind: FlameOf,
    compare: Option<CompareRequest>,
    scaling: Option<ScalingRequest>,
    target: RwSignal<FlameSlot>,
) {
    let seq = SEQ.with(|s| {
        s.set(s.get() + 1);
        s.get()
    });
    WANTED.with(|w| w.borrow_mut().insert(key, (seq, target)));
    super::post_to_worker(&ToWorker::Flame(FlameRequest {
        seq,
        kind,
        compare,
        scaling,
    }));
}

/// The worker's answer to flame request `seq` ([`crate::session::FromWorker::Flamed`] or
/// `FlameFailed`): stored where [`request`] said, unless a newer request superseded it.
pub fn flamed(seq: u64, result: Result<FlameTree, String>) {
    let target = WANTED.with(|w| {
        let mut w = w.borrow_mut();
        let key = w.iter().find(|(_, (s, _))| *s == seq).map(|(k, _)| *k)?;
        w.remove(key).map(|(_, t)| t)
    });
    if let Some(t) = target {
        t.set(Some(result.map(Arc::new)));
    }
}

fn ms(v: f64) -> String {
    format_value(v, "ns")
}

fn signed_ms(v: f64) -> String {
    if v > 0.0 {
        format!("+{}", ms(v))
    } else {
        ms(v)
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_string(), |v| format!("{v:.3}"))
}

/// A p- or q-value as shown: 4 decimals, scientific notation below 0.001, `–` when absent.
pub fn pq(v: Option<f64>) -> String {
    match v {
        None => "–".to_string(),
        Some(v) if v != 0.0 && v.abs() < 1e-3 => format!("{v:.2e}"),
        Some(v) => format!("{v:.4}"),
    }
}

/// The hover / accessible text of one node.
pub fn hover(kind: FlameKind, n: &FlameNode) -> String {
    let name = if n.name.trim().is_empty() {
        "[unnamed]"
    } else {
        &n.name
    };
    match kind {
        FlameKind::Differential => {
            let shift = match (n.shift, n.shift_ci_low, n.shift_ci_high) {
                (Some(s), Some(a), Some(b)) => {
                    format!(
                        "shift {} [{}, {}]",
                        signed_ms(s),
                        signed_ms(a),
                        signed_ms(b)
                    )
                }
                (Some(s), _, _) => format!("shift {}", signed_ms(s)),
                _ => "shift –".to_string(),
            };
            format!(
                "{name} — baseline {}, candidate {}, {shift}, ratio {}, p {}, q {}, {}",
                ms(n.value),
                n.candidate_value.map_or_else(|| "–".to_string(), ms),
                num(n.ratio),
                pq(n.p_value),
                pq(n.q_value),
                n.verdict.map_or("inconclusive", |v| v.as_str()),
            )
        }
        FlameKind::Scaling => format!(
            "{name} — median {} inclusive, ρ {}, p {}, q {}, {} trials",
            ms(n.value),
            num(n.rho),
            pq(n.p_value),
            pq(n.q_value),
            n.trials
        ),
        FlameKind::Single | FlameKind::Median => format!(
            "{name} — {} inclusive, {} self{}",
            ms(n.value),
            ms(n.self_value),
            if kind == FlameKind::Median {
                format!(" (medians over {} trials)", n.trials)
            } else {
                String::new()
            }
        ),
    }
}

/// The plot items of `tree`: width = the node's value, colour = its shift (differential) or ρ
/// (scaling).
pub fn items(tree: &FlameTree) -> Vec<FlameItem> {
    tree.nodes
        .iter()
        .map(|n| FlameItem {
            parent: n.parent,
            value: n.value,
            color: match tree.kind {
                FlameKind::Differential => n.shift,
                FlameKind::Scaling => n.rho,
                _ => None,
            },
            name: if n.name.trim().is_empty() {
                "[unnamed]".to_string()
            } else {
                n.name.clone()
            },
            hover: hover(tree.kind, n),
        })
        .collect()
}

/// Calls `focus()` on the node `item` of graph `graph` (an SVG `<g>`; `focus` is called
/// through JS so any element kind works).
fn focus_node(graph: u32, item: usize) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let css = format!("[data-flame-graph=\"{graph}\"] [data-item=\"{item}\"]");
    if let Ok(Some(el)) = doc.query_selector(&css) {
        if let Ok(f) = js_sys::Reflect::get(&el, &JsValue::from_str("focus")) {
            if let Some(f) = f.dyn_ref::<js_sys::Function>() {
                let _ = f.call0(&el);
            }
        }
    }
}

/// The colour legend of a diverging flame graph: five swatches from −`max_abs` to +`max_abs`.
fn legend(kind: FlameKind, max_abs: f64) -> impl IntoView {
    let (lo, hi, what) = match kind {
        FlameKind::Scaling => (
            "ρ −1 (shrinks with the input)".to_string(),
            "ρ +1 (grows with the input)".to_string(),
            "colour: Spearman ρ of the node's inclusive time against the trial input; grey: 0 or not tested",
        ),
        _ => (
            format!("{} faster", signed_ms(-max_abs)),
            format!("{} slower", signed_ms(max_abs)),
            "width: baseline median; colour: Hodges–Lehmann shift (candidate − baseline), red slower, blue faster; grey: no shift",
        ),
    };
    let swatches = [-1.0, -0.5, 0.0, 0.5, 1.0]
        .iter()
        .map(|t| {
            let fill = pf::diverging(Some(t * max_abs), max_abs);
            view! { <rect class="swatch" x=(t + 1.0) * 60.0 y="0" width="30" height="12" fill=fill></rect> }
        })
        .collect_view();
    view! {
        <div class="flame-legend" data-testid="flame-legend">
            <span>{lo}</span>
            <svg width="150" height="12" role="img" aria-label=what>{swatches}</svg>
            <span>{hi}</span>
            <span class="muted">" " {what}</span>
        </div>
    }
}

/// The export buttons' `data-testid`s and file names of the graph named `testid`: each graph's
/// files are named after what it shows (`flame-differential`, `flame-baseline`,
/// `flame-candidate`, `flame-trial`, `flame-scaling`), so the two sides' downloads differ.
fn export_names(testid: &str) -> ([&'static str; 2], [&'static str; 2], &'static str) {
    match testid {
        "differential-flame" => (
            [
                "export-flame-differential-svg",
                "export-flame-differential-png",
            ],
            ["flame-differential.svg", "flame-differential.png"],
            "Differential flame graph",
        ),
        "baseline-flame" => (
            ["export-flame-baseline-svg", "export-flame-baseline-png"],
            ["flame-baseline.svg", "flame-baseline.png"],
            "Flame graph of the baseline (medians)",
        ),
        "candidate-flame" => (
            ["export-flame-candidate-svg", "export-flame-candidate-png"],
            ["flame-candidate.svg", "flame-candidate.png"],
            "Flame graph of the candidate (medians)",
        ),
        "trial-flame" => (
            ["export-flame-trial-svg", "export-flame-trial-png"],
            ["flame-trial.svg", "flame-trial.png"],
            "Flame graph of one trial",
        ),
        "scaling-flame" => (
            ["export-flame-scaling-svg", "export-flame-scaling-png"],
            ["flame-scaling.svg", "flame-scaling.png"],
            "Scaling flame graph",
        ),
        _ => (
            ["export-flame-svg", "export-flame-png"],
            ["flame.svg", "flame.png"],
            "Flame graph",
        ),
    }
}

/// The colour legend of a flame graph in words (the note under its standalone SVG).
fn legend_note(kind: FlameKind, max_abs: Option<f64>) -> String {
    match (kind, max_abs) {
        (FlameKind::Scaling, _) => "width: median inclusive time; colour: Spearman ρ against the input, red +1 (grows), blue −1 (shrinks), grey 0 or not tested".to_string(),
        (_, Some(m)) => format!(
            "width: baseline median; colour: shift (candidate − baseline), red slower, blue faster, full at ±{}; grey: no shift",
            ms(m)
        ),
        _ => "width: inclusive time; colour: a hue per name".to_string(),
    }
}

/// Draws `tree` as a flame graph (icicle: roots on top) with zoom, search and keyboard access;
/// `testid` names the container (`data-testid`). Its "SVG" / "PNG" buttons save the graph as
/// the page shows it when clicked — the current zoom (ancestors faded) and search highlight
/// included ([`crate::report::svg_compare::flame`]), the keyboard focus and hover not.
#[component]
pub fn FlameGraph(tree: Arc<FlameTree>, testid: &'static str) -> impl IntoView {
    let graph = NEXT_GRAPH.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let items = Arc::new(items(&tree));
    let kind = tree.kind;
    let colors = match kind {
        FlameKind::Differential => ColorScale::Diverging {
            max_abs: pf::max_abs_color(&items),
        },
        FlameKind::Scaling => ColorScale::Diverging { max_abs: 1.0 },
        _ => ColorScale::Warm,
    };
    let zoom = RwSignal::new(None::<usize>);
    let search = RwSignal::new(String::new());
    let geometry = {
        let items = items.clone();
        Memo::new(move |_| {
            pf::layout(
                &items,
                &FlameOptions {
                    width: WIDTH,
                    zoom: zoom.get(),
                    search: search.get(),
                    colors,
                    ..FlameOptions::default()
                },
            )
        })
    };
    let nodes = {
        let items = items.clone();
        move || {
            let l = geometry.get();
            l.rects
                .into_iter()
                .map(|r| {
                    let i = r.item;
                    let items = items.clone();
                    let name = items[i].name.clone();
                    let on_key = move |ev: web_sys::KeyboardEvent| {
                        let nav = match ev.key().as_str() {
                            "ArrowUp" => Some(Nav::Parent),
                            "ArrowDown" => Some(Nav::FirstChild),
                            "ArrowLeft" => Some(Nav::PrevSibling),
                            "ArrowRight" => Some(Nav::NextSibling),
                            "Enter" | " " => {
                                ev.prevent_default();
                                zoom.set(Some(i));
                                request_animation_frame(move || focus_node(graph, i));
                                return;
                            }
                            _ => None,
                        };
                        if let Some(nav) = nav {
                            ev.prevent_default();
                            if let Some(j) = pf::navigate(&items, i, nav) {
                                focus_node(graph, j);
                            }
                        }
                    };
                    let text_y = r.y + r.height - 4.0;
                    view! {
                        <g
                            class="flame-node"
                            class:matched=r.matched
                            class:ancestor=r.ancestor
                            tabindex="0"
                            role="button"
                            data-testid="flame-node"
                            data-item=i
                            data-name=name
                            aria-label=r.hover.clone()
                            on:click=move |_| zoom.set(Some(i))
                            on:keydown=on_key
                        >
                            <title>{r.hover.clone()}</title>
                            <rect x=r.x y=r.y width=r.width height=r.height fill=r.fill.clone()></rect>
                            {r.label.map(|t| view! { <text x=r.x + 3.0 y=text_y>{t}</text> })}
                        </g>
                    }
                })
                .collect_view()
        }
    };
    let max_abs = match colors {
        ColorScale::Diverging { max_abs } => Some(max_abs),
        ColorScale::Warm => None,
    };
    let summary = format!(
        "{} nodes over {} trial(s){}",
        tree.nodes.len(),
        tree.trials,
        if tree.tested > 0 {
            format!(", {} tested (BH family)", tree.tested)
        } else {
            String::new()
        }
    );
    let (export_ids, export_files, export_title) = export_names(testid);
    let note = legend_note(kind, max_abs);
    let title = format!("{export_title}: {summary}");
    let svg_text = move || {
        Some(crate::report::svg_compare::flame(
            &geometry.get_untracked(),
            WIDTH,
            &title,
            &note,
        ))
    };
    view! {
        <div class="flame" data-testid=testid data-flame-graph=graph>
            <div class="flame-tools">
                <span class="exports">
                    "download "
                    {super::export::plot_buttons(export_ids, export_files, svg_text)}
                </span>
                <input
                    type="search"
                    data-testid="flame-search"
                    placeholder="search frames by name"
                    prop:value=move || search.get()
                    on:input=move |ev| search.set(event_target_value(&ev))
                />
                <span class="muted" data-testid="flame-matches">
                    {move || {
                        let l = geometry.get();
                        if search.with(|s| s.is_empty()) {
                            String::new()
                        } else {
                            format!(
                                " {} matching node(s), {:.1}% of the shown total",
                                l.matches,
                                100.0 * l.matched_fraction
                            )
                        }
                    }}
                </span>
                " "
                <button
                    class="small"
                    data-testid="flame-reset"
                    prop:disabled=move || zoom.get().is_none()
                    on:click=move |_| zoom.set(None)
                >
                    "reset zoom"
                </button>
                <span class="muted">
                    {move || {
                        let h = geometry.get().hidden;
                        if h > 0 {
                            format!("{summary}; {h} node(s) too narrow to draw")
                        } else {
                            summary.clone()
                        }
                    }}
                </span>
            </div>
            <svg
                class="flame-svg"
                width=WIDTH
                height=move || geometry.get().height.max(1.0)
                viewBox=move || format!("0 0 {WIDTH} {}", geometry.get().height.max(1.0))
                role="group"
                aria-label="flame graph: Tab to a node, arrow keys to move, Enter to zoom"
            >
                {nodes}
            </svg>
            {max_abs.map(|m| legend(kind, m))}
        </div>
    }
}

/// The view of a [`FlameSlot`]: the graph, the worker's error, or "building…".
pub fn slot_view(slot: FlameSlot, testid: &'static str) -> AnyView {
    match slot {
        None => view! { <p class="muted">"building the flame graph…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="error" data-testid="flame-error">{e}</p> }.into_any(),
        Some(Ok(t)) if t.nodes.is_empty() => {
            view! { <p class="muted" data-testid=testid>"No slices to draw."</p> }.into_any()
        }
        Some(Ok(t)) => view! { <FlameGraph tree=t testid=testid /> }.into_any(),
    }
}

/// Asks for the scaling flame tree of the Scaling tab's current settings and variant.
fn request_scaling(state: AppState) {
    if state.report.with_untracked(|r| r.is_none()) {
        return;
    }
    let scaling = ScalingRequest {
        settings: super::compare::trial_settings(state),
        metric: state.metric.get_untracked(),
        pattern: state.pattern.get_untracked(),
    };
    // The chosen variant while the report has it, else the report's first.
    let chosen = state.compare.scaling_variant.get_untracked();
    let variant = state.report.with_untracked(|r| {
        let vs = r.as_ref().map(|r| r.variants.clone()).unwrap_or_default();
        if vs.contains(&chosen) {
            chosen.clone()
        } else {
            vs.first().cloned().unwrap_or_default()
        }
    });
    request(
        "scaling",
        FlameOf::Scaling { variant },
        None,
        Some(scaling),
        state.compare.scaling_tree,
    );
}

/// The Scaling tab's flame graph: the trials' aggregated call tree (width = median inclusive
/// time over the trials of one variant) coloured by each node's Spearman ρ against the input,
/// so the subtree whose cost grows stands out from its parents. Asked again with every new
/// scaling report.
#[component]
pub fn ScalingFlame() -> impl IntoView {
    let state = expect_context::<AppState>();
    let cs = state.compare;
    Effect::new(move |_| {
        state.report.track();
        cs.scaling_variant.track();
        request_scaling(state);
    });
    let variants = move || {
        state
            .report
            .with(|r| r.as_ref().map(|r| r.variants.clone()).unwrap_or_default())
    };
    view! {
        <Show when=move || state.report.with(|r| r.is_some())>
            <section class="scaling-flame" data-testid="scaling-flame-section">
                <h2>"Scaling flame graph"</h2>
                <p class="muted">
                    "The call tree by semantic frame over the trials, width = median inclusive time, \
                     colour = Spearman ρ of the node's time against the input (exact permutation p \
                     for ≤ 10 trials). Click a node to zoom."
                </p>
                <Show when=move || { variants().len() > 1 }>
                    <label>
                        "Variant: "
                        <select
                            data-testid="scaling-flame-variant"
                            on:change=move |ev| cs.scaling_variant.set(event_target_value(&ev))
                        >
                            {move || {
                                variants()
                                    .into_iter()
                                    .map(|v| {
                                        let sel = cs.scaling_variant.get() == v;
                                        view! { <option value=v.clone() selected=sel>{v.clone()}</option> }
                                    })
                                    .collect_view()
                            }}
                        </select>
                    </label>
                </Show>
                {move || slot_view(cs.scaling_tree.get(), "scaling-flame")}
            </section>
        </Show>
    }
}
