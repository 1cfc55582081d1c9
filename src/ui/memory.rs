//! The rank memory view (collective-memory.md, "View"): one lane per rank on a shared time
//! axis — device-used, allocator-reserved and allocated memory as lines, the hidden-memory gap
//! as a filled band between reserved and used, collective marker ticks, and attributed
//! intervals shaded by class with the evidence as an SVG `<title>` tooltip. Series arrive
//! thinned by LTTB from the worker ([`crate::session::MemoryView`]); analysis is never done
//! on the thinned data. Lane geometry comes from [`crate::plot::memory`]; this file only maps
//! it to SVG elements.
//!
//! Text from traces (file names, phase names) is only rendered as text nodes.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;

use super::{chart, export, post_to_worker, AppState, Status};
use crate::analysis::collective_memory::{Classification, Interval, Mapping};
use crate::plot::{
    self,
    memory::{format_mib, BandIn, LaneInput, SeriesIn},
    TimeDomain,
};
use crate::session::{
    DrawSeries, FileId, MemoryLane, MemoryRequest, MemoryView, RankOverride, TelemetrySummary,
    ToWorker,
};

/// The series kinds of the editable mapping, as (kind, label) in the order shown.
const KINDS: [(&str, &str); 4] = [
    ("device_used", "device used"),
    ("allocator_reserved", "allocator reserved"),
    ("allocator_allocated", "allocated"),
    ("device_total", "device total"),
];

/// The memory tab's inputs besides preset and knobs: telemetry files, per-source rank
/// overrides and the counter-name mapping (all signals, so it is `Copy`).
#[derive(Clone, Copy)]
pub struct MemoryState {
    /// Telemetry JSON Lines files (not trials: they feed only this view).
    pub telemetry: RwSignal<Vec<TelemetrySummary>>,
    /// User-set rank per source `(file id, part)`.
    pub ranks: RwSignal<BTreeMap<(FileId, u32), u32>>,
    /// Comma-separated patterns per kind, in `KINDS` order.
    pub mapping: RwSignal<[String; 4]>,
}

impl MemoryState {
    /// Empty lists and the default mapping ([`Mapping::default`]).
    pub fn new() -> Self {
        let m = Mapping::default();
        MemoryState {
            telemetry: RwSignal::new(Vec::new()),
            ranks: RwSignal::new(BTreeMap::new()),
            mapping: RwSignal::new([
                m.device_used.join(", "),
                m.allocator_reserved.join(", "),
                m.allocator_allocated.join(", "),
                m.device_total.join(", "),
            ]),
        }
    }
}

impl Default for MemoryState {
    fn default() -> Self {
        Self::new()
    }
}

fn patterns(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

fn mapping_of(texts: &[String; 4]) -> Mapping {
    Mapping {
        device_used: patterns(&texts[0]),
        allocator_reserved: patterns(&texts[1]),
        allocator_allocated: patterns(&texts[2]),
        device_total: patterns(&texts[3]),
    }
}

/// A telemetry file was imported: list it and refresh the view.
pub fn telemetry_imported(state: AppState, summary: TelemetrySummary) {
    state.memory_inputs.telemetry.update(|v| {
        v.retain(|t| t.id != summary.id);
        v.push(summary);
    });
    request_memory(state);
}

/// File `id` was removed: forget its telemetry entry and rank overrides.
pub fn forget_file(state: AppState, id: FileId) {
    let m = state.memory_inputs;
    m.telemetry.update(|v| v.retain(|t| t.id != id));
    m.ranks.update(|r| r.retain(|k, _| k.0 != id));
    request_memory(state);
}

/// Every file was removed.
pub fn forget_all(state: AppState) {
    state.memory_inputs.telemetry.set(Vec::new());
    state.memory_inputs.ranks.set(BTreeMap::new());
}

thread_local! {
    static SEQ: Cell<u64> = const { Cell::new(0) };
}

/// The sequence number of the latest memory request (older answers are ignored).
pub fn latest_seq() -> u64 {
    SEQ.with(|s| s.get())
}

/// Asks the worker for a new memory view with the state's preset and overrides (no-op while
/// files are importing or when none is imported).
pub fn request_memory(state: AppState) {
    if state.busy() {
        return;
    }
    let any = state.files.with_untracked(|f| {
        f.iter()
            .any(|r| matches!(r.status.get_untracked(), Status::Imported(_)))
    }) || state
        .memory_inputs
        .telemetry
        .with_untracked(|t| !t.is_empty());
    if !any {
        state.memory.set(None);
        return;
    }
    let overrides: Vec<(String, String)> = state
        .memory_overrides
        .get_untracked()
        .split([',', ' ', '\n'])
        .filter(|t| !t.trim().is_empty())
        .map(|t| match t.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
            None => (t.trim().to_string(), String::new()),
        })
        .collect();
    let seq = SEQ.with(|s| {
        s.set(s.get() + 1);
        s.get()
    });
    let req = MemoryRequest {
        seq,
        request: crate::workspace::MemoryRequest {
            preset: state.memory_preset.get_untracked(),
            overrides,
            mapping: Some(mapping_of(&state.memory_inputs.mapping.get_untracked())),
            rank_overrides: state
                .memory_inputs
                .ranks
                .get_untracked()
                .into_iter()
                .map(|((id, part), rank)| RankOverride { id, part, rank })
                .collect(),
        },
    };
    post_to_worker(&ToWorker::Memory(req));
}

fn class_name(c: Classification) -> &'static str {
    match c {
        Classification::CollectiveConfident => "collective_confident",
        Classification::CollectiveLikely => "collective_likely",
        Classification::CollectiveSuspect => "collective_suspect",
    }
}

fn tooltip(iv: &Interval, time: TimeDomain) -> String {
    let e = &iv.evidence;
    format!(
        "rank {} · {} ({:.2})\n{:.3}–{:.3} ms{}\nmarker hits {} · synchronized ranks {}/{} (ratio {:.2})\npeak gap {}{} · robust z {:.2}\n{}",
        iv.rank,
        class_name(iv.classification),
        iv.confidence,
        time.ms_after_start(iv.start_ns),
        time.ms_after_start(iv.end_ns),
        iv.phase
            .as_deref()
            .map(|p| format!(" · phase {p}"))
            .unwrap_or_default(),
        e.marker_hits,
        e.synchronized_ranks,
        e.expected_world_size,
        e.synchrony_ratio,
        format_mib(e.peak_gap_bytes),
        e.peak_gap_ratio
            .map(|r| format!(" ({:.1}% of device)", r * 100.0))
            .unwrap_or_default(),
        e.robust_zscore,
        iv.reason_codes.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ")
    )
}

fn series_in(s: &Option<DrawSeries>) -> Option<SeriesIn<'_>> {
    s.as_ref().map(|s| SeriesIn {
        ts_ns: &s.ts_ns,
        bytes: &s.value,
    })
}

/// The plot input of lane `l` with `intervals` (`(start_ns, end_ns)` of its rank's intervals).
fn lane_input<'a>(l: &'a MemoryLane, intervals: &'a [(i64, i64)]) -> LaneInput<'a> {
    LaneInput {
        device_used: series_in(&l.device_used),
        allocator_reserved: series_in(&l.allocator_reserved),
        allocator_allocated: series_in(&l.allocator_allocated),
        gap: l.gap.as_ref().map(|g| BandIn {
            ts_ns: &g.ts_ns,
            lo: &g.lo,
            hi: &g.hi,
        }),
        markers: &l.markers,
        intervals,
    }
}

fn span(iv: &Interval) -> (i64, i64) {
    (iv.start_ns, iv.end_ns)
}

/// The shared time axis of every lane and interval of `v`.
fn time_domain_of(v: &MemoryView) -> TimeDomain {
    let lanes: Vec<LaneInput<'_>> = v.lanes.iter().map(|l| lane_input(l, &[])).collect();
    plot::memory::time_domain(&lanes, v.report.intervals.iter().map(span))
}

/// The zoom, brush and selection of the memory tab, shared by every lane and the interval
/// table (all signals, so it is `Copy`).
#[derive(Clone, Copy)]
struct Zoom {
    /// The full time axis of the current view.
    full: RwSignal<TimeDomain>,
    /// The window every lane shows (`None`: the full axis).
    window: RwSignal<Option<TimeDomain>>,
    /// A drag in progress: the lane's rank, where it started (lane px), whether it pans
    /// (Shift held) and the window when it started.
    drag: RwSignal<Option<(u32, f64, bool, TimeDomain)>>,
    /// The brush being drawn: rank, and the two ends in lane px.
    brush: RwSignal<Option<(u32, f64, f64)>>,
    /// The selected and the hovered interval (index into the report's intervals).
    selected: RwSignal<Option<usize>>,
    hovered: RwSignal<Option<usize>>,
}

impl Zoom {
    fn new() -> Self {
        Zoom {
            full: RwSignal::new(TimeDomain { t0_ns: 0, t1_ns: 1 }),
            window: RwSignal::new(None),
            drag: RwSignal::new(None),
            brush: RwSignal::new(None),
            selected: RwSignal::new(None),
            hovered: RwSignal::new(None),
        }
    }

    /// The window shown, inside the full axis.
    fn shown(&self) -> TimeDomain {
        let full = self.full.get();
        self.window
            .get()
            .map_or(full, |w| plot::memory::clamp_window(full, w))
    }

    fn shown_untracked(&self) -> TimeDomain {
        let full = self.full.get_untracked();
        self.window
            .get_untracked()
            .map_or(full, |w| plot::memory::clamp_window(full, w))
    }

    fn set(&self, w: TimeDomain) {
        let full = self.full.get_untracked();
        self.window
            .set((w != full).then_some(plot::memory::clamp_window(full, w)));
    }

    fn pan(&self, fraction: f64) {
        let full = self.full.get_untracked();
        let w = self.window.get_untracked().unwrap_or(full);
        self.set(plot::memory::pan(full, w, fraction));
    }

    fn zoom(&self, factor: f64) {
        let full = self.full.get_untracked();
        let w = self.window.get_untracked().unwrap_or(full);
        self.set(plot::memory::zoom(full, w, factor));
    }
}

/// The pointer's x in the lane SVG's own coordinates (the SVG may be drawn scaled).
fn lane_x(ev: &leptos::ev::MouseEvent) -> Option<f64> {
    use wasm_bindgen::JsCast;
    let svg: web_sys::Element = ev.current_target()?.dyn_into().ok()?;
    let r = svg.get_bounding_client_rect();
    (r.width() > 0.0)
        .then(|| (f64::from(ev.client_x()) - r.left()) * plot::memory::LANE_WIDTH / r.width())
}

fn lane_view(
    l: &MemoryLane,
    v: &MemoryView,
    shown: TimeDomain,
    full: TimeDomain,
    z: Zoom,
) -> impl IntoView {
    let ivs: Vec<(usize, &Interval)> = v
        .report
        .intervals
        .iter()
        .enumerate()
        .filter(|(_, iv)| iv.rank == l.rank)
        .collect();
    let spans: Vec<(i64, i64)> = ivs.iter().map(|(_, iv)| span(iv)).collect();
    let g = plot::memory::lane(&lane_input(l, &spans), shown, full.t0_ns);
    let intervals: Vec<_> = ivs
        .iter()
        .zip(&g.intervals)
        .filter_map(|((i, iv), r)| Some((*i, *iv, (*r)?)))
        .map(|(i, iv, r)| {
            let base = format!("interval {}", class_name(iv.classification));
            let cls = move || {
                let on = z.selected.get() == Some(i) || z.hovered.get() == Some(i);
                if on {
                    format!("{base} highlight")
                } else {
                    base.clone()
                }
            };
            let tip = tooltip(iv, full);
            view! {
                <rect
                    class=cls
                    data-testid="memory-interval"
                    data-index=i
                    x=format!("{:.1}", r.x)
                    y=r.y
                    width=format!("{:.1}", r.width)
                    height=r.height
                    on:mousedown=|ev| ev.stop_propagation()
                    on:click=move |_| z.selected.set(Some(i))
                >
                    <title>{tip}</title>
                </rect>
            }
        })
        .collect();
    let markers: Vec<_> = g
        .markers
        .iter()
        .flatten()
        .map(|r| {
            view! { <rect class="marker" x=format!("{:.1}", r.x) y=r.y width=format!("{:.1}", r.width) height=r.height /> }
        })
        .collect();
    let gap = g
        .gap
        .map(|points| view! { <polygon class="gap" points=points /> });
    let line = |points: Option<String>, cls: &'static str| {
        points.map(|points| view! { <polyline class=cls points=points /> })
    };
    let used = line(g.device_used, "used");
    let reserved = line(g.allocator_reserved, "reserved");
    let allocated = line(g.allocator_allocated, "allocated");
    let title = format!("rank {} · {}", l.rank, l.label);
    let hidden =
        (l.markers_hidden > 0).then(|| format!(" (+{} markers not drawn)", l.markers_hidden));
    let base = g.baseline;
    let area = g.area;
    let rank = l.rank;
    let x_ticks: Vec<_> = g
        .x_axis
        .ticks
        .iter()
        .map(|tk| {
            let m = tk.line;
            view! {
                <g class="tick" data-testid="time-tick">
                    <line x1=m.x1 x2=m.x2 y1=m.y1 y2=m.y2 />
                    {chart::text(&tk.label, Some("axis"))}
                </g>
            }
        })
        .collect();
    let y_ticks: Vec<_> = g
        .y_axis
        .ticks
        .iter()
        .map(|tk| {
            let m = tk.line;
            view! {
                <g class="tick" data-testid="byte-tick">
                    <line class="grid" x1=m.x1 x2=m.x2 y1=m.y1 y2=m.y2 />
                    {chart::text(&tk.label, Some("axis"))}
                </g>
            }
        })
        .collect();
    let brush = move || {
        z.brush.get().filter(|b| b.0 == rank).map(|(_, a, b)| {
            let (a, b) = (a.min(b).max(area.left), a.max(b).min(area.right));
            view! {
                <rect class="brush" data-testid="memory-brush" x=a y=area.top width=(b - a).max(0.0) height=area.bottom - area.top />
            }
        })
    };
    let finish = move |ev: leptos::ev::MouseEvent| {
        let Some((r, x0, panning, start)) = z.drag.get_untracked() else {
            return;
        };
        z.drag.set(None);
        z.brush.set(None);
        if panning || r != rank {
            return;
        }
        if let Some(x1) = lane_x(&ev) {
            if let Some(w) = plot::memory::brush_window(z.full.get_untracked(), start, x0, x1) {
                z.set(w);
            }
        }
    };
    view! {
        <div class="memory-lane" data-testid="memory-lane" data-rank=rank>
            <div class="lane-title">{title}{hidden}</div>
            <svg
                width=g.width
                height=g.height
                viewBox=format!("0 0 {} {}", g.width, g.height)
                role="img"
                aria-label=format!("memory of rank {rank}; drag to zoom, Shift+drag to pan")
                class="memory-svg"
                data-t0-ns=shown.t0_ns
                data-t1-ns=shown.t1_ns
                on:mousedown=move |ev| {
                    if let Some(x) = lane_x(&ev) {
                        ev.prevent_default();
                        z.drag.set(Some((rank, x, ev.shift_key(), z.shown())));
                    }
                }
                on:mousemove=move |ev| {
                    let Some((r, x0, panning, start)) = z.drag.get_untracked() else {
                        return;
                    };
                    let Some(x) = lane_x(&ev) else { return };
                    if panning {
                        let dx = (x0 - x) / (area.right - area.left);
                        z.set(plot::memory::pan(z.full.get_untracked(), start, dx));
                    } else if r == rank {
                        z.brush.set(Some((rank, x0, x)));
                    }
                }
                on:mouseup=finish
                on:mouseleave=move |_| {
                    z.drag.set(None);
                    z.brush.set(None);
                }
            >
                {y_ticks}
                {x_ticks}
                <line class="axis" x1=base.x1 x2=base.x2 y1=base.y1 y2=base.y2 />
                {intervals}
                {gap}
                {reserved}
                {allocated}
                {used}
                {markers}
                {brush}
            </svg>
        </div>
    }
}

/// Every lane of `v` over the window `shown` as one standalone SVG document
/// ([`crate::report::svg::memory_lanes`]).
fn lanes_svg(v: &MemoryView, shown: TimeDomain, full: TimeDomain) -> String {
    let parts: Vec<(String, plot::memory::Lane, Vec<&'static str>)> = v
        .lanes
        .iter()
        .map(|l| {
            let ivs: Vec<&Interval> = v
                .report
                .intervals
                .iter()
                .filter(|iv| iv.rank == l.rank)
                .collect();
            let spans: Vec<(i64, i64)> = ivs.iter().map(|iv| span(iv)).collect();
            let classes = ivs.iter().map(|iv| class_name(iv.classification)).collect();
            let g = plot::memory::lane(&lane_input(l, &spans), shown, full.t0_ns);
            (format!("rank {} · {}", l.rank, l.label), g, classes)
        })
        .collect();
    let lanes: Vec<crate::report::svg::LaneSvg<'_>> = parts
        .iter()
        .map(|(title, lane, classes)| crate::report::svg::LaneSvg {
            title,
            lane,
            classes,
        })
        .collect();
    crate::report::svg::memory_lanes(&lanes, "rank memory lanes")
}

/// Milliseconds of `t_ns` after `origin_ns`, as the interval table prints times.
fn ms(t_ns: i64, origin_ns: i64) -> String {
    format!("{:.3}", t_ns.saturating_sub(origin_ns) as f64 / 1e6)
}

/// The zoom controls: the shown window as text, and buttons to pan, zoom and reset.
fn zoom_controls(z: Zoom) -> impl IntoView {
    let range = move || {
        let full = z.full.get();
        let s = z.shown();
        format!(
            "showing {}–{} ms of {} ms",
            ms(s.t0_ns, full.t0_ns),
            ms(s.t1_ns, full.t0_ns),
            ms(full.t1_ns, full.t0_ns)
        )
    };
    view! {
        <div
            class="controls zoom"
            data-testid="memory-zoom"
            tabindex="0"
            aria-label="memory time axis: arrow keys pan, + and - zoom, 0 resets"
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                match ev.key().as_str() {
                    "ArrowLeft" => z.pan(-0.25),
                    "ArrowRight" => z.pan(0.25),
                    "+" | "=" => z.zoom(0.5),
                    "-" => z.zoom(2.0),
                    "0" => z.window.set(None),
                    _ => return,
                }
                ev.prevent_default();
            }
        >
            <span data-testid="memory-range">{range}</span>
            <button class="small" data-testid="memory-pan-left" title="earlier (←)" on:click=move |_| z.pan(-0.25)>"◀"</button>
            <button class="small" data-testid="memory-pan-right" title="later (→)" on:click=move |_| z.pan(0.25)>"▶"</button>
            <button class="small" data-testid="memory-zoom-in" title="zoom in (+)" on:click=move |_| z.zoom(0.5)>"+"</button>
            <button class="small" data-testid="memory-zoom-out" title="zoom out (−)" on:click=move |_| z.zoom(2.0)>"−"</button>
            <button
                class="small"
                data-testid="memory-zoom-reset"
                disabled=move || z.window.get().is_none()
                on:click=move |_| z.window.set(None)
            >
                "reset zoom"
            </button>
            <span class="hint">" Drag on a lane to zoom; Shift+drag pans."</span>
        </div>
    }
}

/// The attributed intervals as a table linked to the lanes: hovering or focusing a row
/// highlights its interval, clicking (or Enter) selects it; ↑/↓ move between rows.
fn interval_table(v: &MemoryView, origin_ns: i64, z: Zoom) -> impl IntoView {
    let rows: Vec<_> = v
        .report
        .intervals
        .iter()
        .enumerate()
        .map(|(i, iv)| {
            let cls = move || {
                if z.selected.get() == Some(i) {
                    "selected"
                } else {
                    ""
                }
            };
            let phase = iv.phase.clone().unwrap_or_default();
            let (start, end) = (iv.start_ns, iv.end_ns);
            view! {
                <tr
                    data-testid="interval-row"
                    data-index=i
                    tabindex="0"
                    class=cls
                    aria-selected=move || (z.selected.get() == Some(i)).to_string()
                    on:mouseenter=move |_| z.hovered.set(Some(i))
                    on:mouseleave=move |_| z.hovered.set(None)
                    on:focus=move |_| z.hovered.set(Some(i))
                    on:blur=move |_| z.hovered.set(None)
                    on:click=move |_| z.selected.set(Some(i))
                    on:dblclick=move |_| {
                        let pad = (end - start).max(1_000);
                        z.set(TimeDomain { t0_ns: start - pad, t1_ns: end + pad });
                    }
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                        match ev.key().as_str() {
                            "Enter" | " " => z.selected.set(Some(i)),
                            "ArrowDown" | "ArrowUp" => super::focus_sibling_row(&ev),
                            _ => return,
                        }
                        ev.prevent_default();
                    }
                >
                    <td>{iv.rank}</td>
                    <td class="num">{ms(start, origin_ns)}</td>
                    <td class="num">{ms(end, origin_ns)}</td>
                    <td class="num">{format!("{:.3}", (end - start) as f64 / 1e6)}</td>
                    <td>{class_name(iv.classification)}</td>
                    <td class="num">{format!("{:.2}", iv.confidence)}</td>
                    <td class="num">{format_mib(iv.evidence.peak_gap_bytes)}</td>
                    <td>{phase}</td>
                </tr>
            }
        })
        .collect();
    view! {
        <table class="intervals" data-testid="memory-intervals">
            <caption>"Attributed intervals (click a row to highlight it in its lane; double-click to zoom to it)"</caption>
            <thead>
                <tr>
                    <th>"Rank"</th>
                    <th>"Start (ms)"</th>
                    <th>"End (ms)"</th>
                    <th>"Duration (ms)"</th>
                    <th>"Class"</th>
                    <th>"Confidence"</th>
                    <th>"Peak gap"</th>
                    <th>"Phase"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The memory tab: preset and overrides, warnings, then one lane per rank.
#[component]
pub fn MemoryTab() -> impl IntoView {
    let state = expect_context::<AppState>();
    request_memory(state);
    let z = Zoom::new();
    // A new view keeps the zoom where it still fits, and drops a selection it no longer has.
    Effect::new(move |_| {
        if let Some(v) = state.memory.get() {
            z.full.set(time_domain_of(&v));
            if z.selected
                .get_untracked()
                .is_some_and(|i| i >= v.report.intervals.len())
            {
                z.selected.set(None);
            }
        }
    });
    let body = move || {
        let v: Option<Arc<MemoryView>> = state.memory.get();
        let Some(v) = v else {
            return view! {
                <p class="hint">"Drop one trace per rank (Kineto JSON with profile_memory, Perfetto with memory counters) or memory telemetry JSON Lines (any number of ranks per file) to see their memory timelines."</p>
            }
            .into_any();
        };
        let time = time_domain_of(&v);
        let start = v.report.trace_start_ns.unwrap_or(time.t0_ns);
        let shown = z
            .window
            .get()
            .map_or(time, |w| plot::memory::clamp_window(time, w));
        let warnings: Vec<_> = v
            .report
            .warnings
            .iter()
            .map(|w| view! { <li>{w.clone()}</li> })
            .collect();
        let lanes: Vec<_> = v
            .lanes
            .iter()
            .map(|l| lane_view(l, &v, shown, time, z))
            .collect();
        let table = interval_table(&v, time.t0_ns, z);
        let sources = sources_view(state, &v);
        let counts = if v.lanes.is_empty() {
            "No lanes: no dropped file carries a memory series or a collective marker (see the \
             warnings)."
                .to_string()
        } else {
            format!(
            "{} ranks · world size {} · {} attributed intervals · clock {} (skew {}) · axis {:.1} ms",
            v.lanes.len(),
            v.report.world_size,
            v.report.intervals.len(),
            if v.report.clock.shared_clock { "shared" } else { "aligned on first samples" },
            crate::report::skew_text(v.report.clock.skew_ns),
            time.span_ms_from(start)
        )
        };
        view! {
            <div>
                <p data-testid="memory-summary">{counts}</p>
                <p class="exports">
                    "Download the intervals: "
                    {
                        let v = v.clone();
                        export::button("export-intervals-csv", "CSV", "intervals.csv", "text/csv", move || {
                            Some(crate::report::export::intervals_csv(&v.report))
                        })
                    }
                    " "
                    {
                        let v = v.clone();
                        export::button("export-intervals-json", "JSON", "intervals.json", "application/json", move || {
                            Some(export::memory_json(&state.memory_preset.get_untracked(), &v))
                        })
                    }
                </p>
                <p class="exports">
                    "Download the lanes (as shown): "
                    {
                        let v = v.clone();
                        export::plot_buttons(
                            ["export-lanes-svg", "export-lanes-png"],
                            ["memory-lanes.svg", "memory-lanes.png"],
                            move || Some(lanes_svg(&v, z.shown_untracked(), z.full.get_untracked())),
                        )
                    }
                </p>
                <ul class="warnings" data-testid="memory-warnings">{warnings}</ul>
                <div class="legend">
                    <span class="used">"device used"</span>
                    <span class="reserved">"allocator reserved"</span>
                    <span class="allocated">"allocated"</span>
                    <span class="gap">"hidden gap"</span>
                    <span class="marker">"collective"</span>
                </div>
                {sources}
                {zoom_controls(z)}
                {lanes}
                {table}
            </div>
        }
        .into_any()
    };
    let mapping_inputs: Vec<_> = KINDS
        .iter()
        .enumerate()
        .map(|(i, (kind, label))| {
            view! {
                <label class="mapping">
                    {format!(" {label} ")}
                    <input
                        type="text"
                        data-testid=format!("memory-map-{kind}")
                        prop:value=move || state.memory_inputs.mapping.with(|m| m[i].clone())
                        on:change=move |ev| {
                            let text = event_target_value(&ev);
                            state.memory_inputs.mapping.update(|m| m[i] = text);
                            request_memory(state);
                        }
                    />
                </label>
            }
        })
        .collect();
    view! {
        <section class="memory" data-testid="memory-view">
            <div class="controls">
                <label>
                    "Preset "
                    <select
                        data-testid="memory-preset"
                        on:change=move |ev| {
                            state.memory_preset.set(event_target_value(&ev));
                            request_memory(state);
                        }
                    >
                        <option value="low" selected=move || state.memory_preset.get() == "low">"low"</option>
                        <option value="medium" selected=move || state.memory_preset.get() == "medium">"medium"</option>
                        <option value="high" selected=move || state.memory_preset.get() == "high">"high"</option>
                    </select>
                </label>
                <label>
                    " Overrides "
                    <input
                        type="text"
                        data-testid="memory-overrides"
                        placeholder="marker_window=200ms, min_confidence=0.4"
                        prop:value=move || state.memory_overrides.get()
                        on:change=move |ev| {
                            state.memory_overrides.set(event_target_value(&ev));
                            request_memory(state);
                        }
                    />
                </label>
            </div>
            <div class="controls" data-testid="memory-mapping">
                "Counter names (comma-separated patterns, matched case-insensitively ignoring - and _): "
                {mapping_inputs}
            </div>
            {move || telemetry_view(state)}
            {move || state.memory_error.get().map(|e| view! { <p class="error" data-testid="memory-error">{e}</p> })}
            {body}
        </section>
    }
}

/// The telemetry files: name, records, ranks, diagnostics and malformed lines (`file:line`).
fn telemetry_view(state: AppState) -> impl IntoView {
    let files = state.memory_inputs.telemetry.get();
    if files.is_empty() {
        return None;
    }
    let rows: Vec<_> = files
        .into_iter()
        .map(|t| {
            let id = t.id;
            let ranks = t
                .ranks
                .iter()
                .map(|r| r.map_or("?".to_string(), |r| r.to_string()))
                .collect::<Vec<_>>()
                .join(", ");
            let diags = t
                .diagnostics
                .iter()
                .map(|d| format!("{} ({}) ×{}", d.kind, d.severity, d.count))
                .collect::<Vec<_>>()
                .join("; ");
            let bad: Vec<_> = t
                .bad_lines
                .iter()
                .map(|b| view! { <li>{b.clone()}</li> })
                .collect();
            view! {
                <tr data-testid="telemetry-file">
                    <td>{t.name.clone()}</td>
                    <td>{t.records}</td>
                    <td>{ranks}</td>
                    <td data-testid="telemetry-diagnostics">
                        {diags}
                        <ul class="warnings" data-testid="telemetry-bad-lines">{bad}</ul>
                    </td>
                    <td>
                        <button on:click=move |_| super::remove_file(state, id)>"Remove"</button>
                    </td>
                </tr>
            }
        })
        .collect();
    Some(view! {
        <table class="telemetry" data-testid="telemetry-files">
            <caption>"Memory telemetry files (memory view only; not scaling trials)"</caption>
            <thead>
                <tr>
                    <th>"File"</th>
                    <th>"Records"</th>
                    <th>"Ranks"</th>
                    <th>"Diagnostics"</th>
                    <th></th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    })
}

/// One row per memory source (trace file or telemetry rank) with its stated rank and an
/// editable rank (empty = the stated or assigned one).
fn sources_view(state: AppState, v: &MemoryView) -> impl IntoView {
    let rows: Vec<_> = v
        .sources
        .iter()
        .map(|s| {
            let key = (s.id, s.part);
            let stated = s.stated_rank.map_or("—".to_string(), |r| r.to_string());
            let value = if s.overridden {
                s.rank.to_string()
            } else {
                String::new()
            };
            let placeholder = s.rank.to_string();
            view! {
                <tr data-testid="memory-source">
                    <td>{s.label.clone()}</td>
                    <td>{if s.telemetry { "telemetry" } else { "trace" }}</td>
                    <td>{stated}</td>
                    <td>
                        <input
                            type="number"
                            min="0"
                            step="1"
                            class="rank-override"
                            data-testid="rank-override"
                            placeholder=placeholder
                            prop:value=value
                            on:change=move |ev| {
                                let text = event_target_value(&ev);
                                let parsed = text.trim().parse::<u32>().ok();
                                state.memory_inputs.ranks.update(|r| match parsed {
                                    Some(n) => {
                                        r.insert(key, n);
                                    }
                                    None => {
                                        r.remove(&key);
                                    }
                                });
                                request_memory(state);
                            }
                        />
                    </td>
                </tr>
            }
        })
        .collect();
    view! {
        <table class="memory-sources" data-testid="memory-sources">
            <thead>
                <tr>
                    <th>"Source"</th>
                    <th>"Kind"</th>
                    <th>"Stated rank"</th>
                    <th>"Rank (edit to override)"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
