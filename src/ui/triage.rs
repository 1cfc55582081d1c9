//! The compile-drift triage view (`../shared/reference/compile-triage.md`, "Output"): record
//! files and trace-derived compile records, pins (load, pin the warm medians, pin selected rows,
//! download `pins.json`, "no pins" as its own state), a fill-in form for key fields traces lack,
//! editable thresholds, the triage table grouped by class (actionable first) with filters, a
//! coverage summary listing other-kind and malformed records, and a per-key chart of compile
//! seconds over time.
//!
//! All triage work runs in the worker ([`crate::session::Session::triage`]); this module only
//! sends [`ToWorker`] requests and renders the [`SessionTriageView`] it gets back. Text from
//! files is only rendered as text nodes or attribute values.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{add_file_row, chart, export, post_to_worker, send_file, AppState};
use crate::analysis::compile_triage::{fmt_s, Class, Params};
use crate::formats::records::KeyDefaults;
use crate::model::compile_record::{CacheState, FullKey};
use crate::plot::triage::KeyPoint;
use crate::plot::{self, format_value};
use crate::session::{
    series_of, FileId, RecordFileSummary, ToWorker, TraceFill, TriageRequest,
    TriageView as SessionTriageView,
};

thread_local! {
    static SEQ: Cell<u64> = const { Cell::new(0) };
}

/// Page-side state of the triage view (all signals, so it is `Copy`).
#[derive(Clone, Copy)]
pub struct TriageState {
    /// Compile-record files loaded so far (they are not trials of the scaling view).
    pub record_files: RwSignal<Vec<RecordFileSummary>>,
    /// Last pins-file message (loaded N pins from …).
    pub pins_note: RwSignal<Option<String>>,
    /// The latest answer of the worker.
    pub view: RwSignal<Option<Arc<SessionTriageView>>>,
    /// Thresholds (compile-triage.md defaults: 2.0 ×, 1.0 s, load 2.0).
    pub min_ratio: RwSignal<f64>,
    pub min_abs_s: RwSignal<f64>,
    pub load_threshold: RwSignal<f64>,
    /// Compare load_avg_1m / cpu_count with the load threshold (default off).
    pub load_per_core: RwSignal<bool>,
    /// The user's fill-ins per trace file.
    pub fills: RwSignal<BTreeMap<FileId, KeyDefaults>>,
    /// Trace files the fill-in form applies to.
    pub fill_selected: RwSignal<BTreeSet<FileId>>,
    /// Rows selected for "pin selected rows", by rendered key.
    pub row_selected: RwSignal<BTreeMap<String, FullKey>>,
    /// Chart series (key without cache state) of the selected row.
    pub chart_series: RwSignal<Option<String>>,
    pub class_filter: RwSignal<String>,
    pub hardware_filter: RwSignal<String>,
    pub cell_filter: RwSignal<String>,
    /// Object URL of the current `pins.json` blob.
    pub pins_url: RwSignal<Option<String>>,
    /// Sequence number of the newest request sent.
    pub latest: RwSignal<u64>,
}

impl TriageState {
    /// Empty state with the spec's default thresholds.
    pub fn new() -> Self {
        let d = Params::default();
        TriageState {
            record_files: RwSignal::new(Vec::new()),
            pins_note: RwSignal::new(None),
            view: RwSignal::new(None),
            min_ratio: RwSignal::new(d.min_ratio),
            min_abs_s: RwSignal::new(d.min_abs_s),
            load_threshold: RwSignal::new(d.load_threshold),
            load_per_core: RwSignal::new(d.load_per_core),
            fills: RwSignal::new(BTreeMap::new()),
            fill_selected: RwSignal::new(BTreeSet::new()),
            row_selected: RwSignal::new(BTreeMap::new()),
            chart_series: RwSignal::new(None),
            class_filter: RwSignal::new(String::new()),
            hardware_filter: RwSignal::new(String::new()),
            cell_filter: RwSignal::new(String::new()),
            pins_url: RwSignal::new(None),
            latest: RwSignal::new(0),
        }
    }
}

impl Default for TriageState {
    fn default() -> Self {
        Self::new()
    }
}

fn next_request(state: AppState) -> TriageRequest {
    let t = state.triage;
    let seq = SEQ.with(|s| {
        let n = s.get() + 1;
        s.set(n);
        n
    });
    t.latest.set(seq);
    TriageRequest {
        seq,
        params: Params {
            min_ratio: t.min_ratio.get_untracked(),
            min_abs_s: t.min_abs_s.get_untracked(),
            load_threshold: t.load_threshold.get_untracked(),
            load_per_core: t.load_per_core.get_untracked(),
            ..Params::default()
        },
        fills: t.fills.with_untracked(|f| {
            f.iter()
                .map(|(id, d)| TraceFill {
                    id: *id,
                    defaults: d.clone(),
                })
                .collect()
        }),
    }
}

/// Asks the worker for a new triage (after every import batch and every setting change).
pub fn request_triage(state: AppState) {
    if state.busy() {
        return;
    }
    post_to_worker(&ToWorker::Triage(next_request(state)));
}

/// A record file was imported: list it and re-run the triage.
pub fn records_imported(state: AppState, summary: RecordFileSummary) {
    state.triage.record_files.update(|v| {
        v.retain(|r| r.id != summary.id);
        v.push(summary);
    });
    request_triage(state);
}

/// A pins file replaced the pins.
pub fn pins_loaded(state: AppState, name: String, pins: usize) {
    state
        .triage
        .pins_note
        .set(Some(format!("{pins} pins loaded from {name}")));
    request_triage(state);
}

/// File `id` was removed from the page.
pub fn forget_file(state: AppState, id: FileId) {
    let t = state.triage;
    t.record_files.update(|v| v.retain(|r| r.id != id));
    t.fills.update(|f| {
        f.remove(&id);
    });
    t.fill_selected.update(|f| {
        f.remove(&id);
    });
    request_triage(state);
}

/// Every file was removed (pins stay: they only move on an explicit command).
pub fn forget_all(state: AppState) {
    let t = state.triage;
    t.record_files.set(Vec::new());
    t.fills.set(BTreeMap::new());
    t.fill_selected.set(BTreeSet::new());
    t.row_selected.set(BTreeMap::new());
    request_triage(state);
}

/// The worker's answer to request `seq` (older answers are ignored).
pub fn triaged(state: AppState, seq: u64, view: Box<SessionTriageView>) {
    let t = state.triage;
    if seq < t.latest.get_untracked() {
        return;
    }
    // A fresh blob for the download link; the previous URL is released.
    if let Some(old) = t.pins_url.get_untracked() {
        let _ = web_sys::Url::revoke_object_url(&old);
    }
    let url = (!view.pins.is_empty())
        .then(|| {
            let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(&view.pins_json));
            let blob = web_sys::Blob::new_with_str_sequence(&parts).ok()?;
            web_sys::Url::create_object_url_with_blob(&blob).ok()
        })
        .flatten();
    t.pins_url.set(url);
    let keep = t.chart_series.with_untracked(|s| {
        s.as_ref()
            .is_some_and(|s| view.points.iter().any(|p| &p.series == s))
    });
    if !keep {
        let first = rows_of(&view).first().map(|r| r.series.clone());
        t.chart_series.set(first);
    }
    t.view.set(Some(Arc::from(view)));
}

/// One row of the triage table: a drifted warm row or an unpinned key.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    drift: bool,
    class: String,
    /// Group order: actionable drift classes first, then other drift, then unpinned keys.
    order: usize,
    actionable: bool,
    key: FullKey,
    key_text: String,
    series: String,
    pinned: Option<f64>,
    observed: Option<f64>,
    ratio: Option<f64>,
    evidence: String,
    action: String,
    location: String,
}

fn class_order(c: Class, drift: bool) -> usize {
    let drift_order = [
        Class::CacheRegression,
        Class::AutotuneRegression,
        Class::LibraryRegression,
        Class::HostLoad,
        Class::ExpectedRecompile,
    ];
    match drift_order.iter().position(|x| *x == c) {
        Some(i) if drift => i,
        _ => 10 + Class::UNPINNED.iter().position(|x| *x == c).unwrap_or(0),
    }
}

fn rows_of(v: &SessionTriageView) -> Vec<Row> {
    let mut rows: Vec<Row> = v
        .report
        .findings
        .iter()
        .map(|f| Row {
            drift: true,
            class: f.classification.as_str().to_string(),
            order: class_order(f.classification, true),
            actionable: f.actionable,
            series: series_of(&f.key),
            key: f.key.clone(),
            key_text: f.key_text.clone(),
            pinned: Some(f.pinned_s),
            observed: Some(f.observed_s),
            ratio: f.ratio.is_finite().then_some(f.ratio),
            evidence: f.evidence.clone(),
            action: f.action.clone(),
            location: format!(
                "{}{}",
                f.location,
                f.timestamp
                    .as_ref()
                    .map(|t| format!(" at {t}"))
                    .unwrap_or_default()
            ),
        })
        .collect();
    rows.extend(v.report.unpinned.iter().map(|u| {
        let evidence = if v.pins.is_empty() {
            format!("no pins loaded; {} warm row(s) with this key", u.rows)
        } else if u.differs_in.is_empty() {
            format!("no pin for this key; {} warm row(s)", u.rows)
        } else {
            format!(
                "no pin; differs from the closest pin in {}; {} warm row(s)",
                u.differs_in.join(", "),
                u.rows
            )
        };
        Row {
            drift: false,
            class: u.classification.as_str().to_string(),
            order: class_order(u.classification, false),
            actionable: false,
            series: series_of(&u.key),
            key: u.key.clone(),
            key_text: u.key_text.clone(),
            pinned: None,
            observed: None,
            ratio: None,
            evidence,
            action: u.classification.action().to_string(),
            location: String::new(),
        }
    }));
    rows.sort_by_key(|r| r.order);
    rows
}

fn parse_threshold(text: &str) -> Option<f64> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// Reads a picked pins file and sends it to the worker as a `pins.json`.
fn load_pins_file(state: AppState, file: web_sys::File) {
    let name = file.name();
    let name = if crate::model::facts::is_pins_name(&name) {
        name
    } else {
        format!("{name} as pins.json")
    };
    let row = add_file_row(state, name, file.size());
    send_file(state, &row, file.into());
}

#[component]
fn RecordFiles() -> impl IntoView {
    let state = expect_context::<AppState>();
    let t = state.triage;
    let rows = move || {
        t.record_files
            .get()
            .into_iter()
            .map(|r| {
                let id = r.id;
                view! {
                    <tr data-testid="record-file-row" data-file=r.name.clone()>
                        <td class="name">{r.name.clone()}</td>
                        <td class="num" data-testid="records">{r.records.to_string()}</td>
                        <td class="num" data-testid="other-kind">{r.other_kind.to_string()}</td>
                        <td class="num" data-testid="malformed">{r.malformed.to_string()}</td>
                        <td>
                            <button
                                class="small"
                                title="remove this file"
                                on:click=move |_| {
                                    post_to_worker(&ToWorker::Remove { id });
                                    forget_file(state, id);
                                }
                            >
                                "×"
                            </button>
                        </td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <Show when=move || t.record_files.with(|v| !v.is_empty())>
            <section>
                <h2>"Record files"</h2>
                <table class="trials" data-testid="record-files">
                    <thead>
                        <tr>
                            <th>"file"</th>
                            <th>"records"</th>
                            <th>"other-kind"</th>
                            <th>"malformed"</th>
                            <th></th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </section>
        </Show>
    }
}

#[component]
fn Pins() -> impl IntoView {
    let state = expect_context::<AppState>();
    let t = state.triage;
    let pins = move || t.view.with(|v| v.as_ref().map_or(0, |v| v.pins.len()));
    let has_records = move || {
        t.view
            .with(|v| v.as_ref().is_some_and(|v| v.report.warm_rows > 0))
    };
    let selected = move || t.row_selected.with(|s| s.len());
    view! {
        <section class="pins" data-testid="pins">
            <h2>"Pins"</h2>
            {move || {
                if pins() == 0 {
                    view! {
                        <div class="no-pins" data-testid="no-pins">
                            <strong>"No pins: nothing is compared yet. This is not an all-clear."</strong>
                            <Show when=has_records>
                                <button
                                    data-testid="pin-warm-medians"
                                    on:click=move |_| {
                                        post_to_worker(&ToWorker::PinWarmMedians(next_request(state)))
                                    }
                                >
                                    "pin the current warm medians"
                                </button>
                            </Show>
                        </div>
                    }
                        .into_any()
                } else {
                    view! {
                        <div class="pin-state">
                            <span data-testid="pin-count" data-pins=pins().to_string()>
                                {format!("{} pins in force (they move only when you re-pin)", pins())}
                            </span>
                            " "
                            <a
                                data-testid="download-pins"
                                download="pins.json"
                                href=move || t.pins_url.get().unwrap_or_default()
                            >
                                "download pins.json"
                            </a>
                            " "
                            <button
                                class="small"
                                data-testid="clear-pins"
                                on:click=move |_| {
                                    post_to_worker(&ToWorker::ClearPins(next_request(state)))
                                }
                            >
                                "clear pins"
                            </button>
                        </div>
                    }
                        .into_any()
                }
            }}
            <div class="pin-actions">
                <label>
                    "load pins.json: "
                    <input
                        type="file"
                        accept=".json,application/json"
                        data-testid="pins-input"
                        on:change=move |ev| {
                            let input: Option<web_sys::HtmlInputElement> = ev
                                .target()
                                .and_then(|t| t.dyn_into().ok());
                            if let Some(f) = input.as_ref().and_then(|i| i.files()).and_then(|l| l.get(0)) {
                                load_pins_file(state, f);
                            }
                        }
                    />
                </label>
                " "
                <button
                    data-testid="pin-selected"
                    disabled=move || selected() == 0
                    on:click=move |_| {
                        let keys: Vec<FullKey> = t.row_selected.with_untracked(|s| s.values().cloned().collect());
                        t.row_selected.set(BTreeMap::new());
                        post_to_worker(&ToWorker::PinKeys { keys, request: next_request(state) });
                    }
                >
                    {move || format!("pin selected rows ({})", selected())}
                </button>
                {move || t.pins_note.get().map(|n| view! { <span class="muted">" " {n}</span> })}
            </div>
        </section>
    }
}

#[component]
fn FillForm() -> impl IntoView {
    let state = expect_context::<AppState>();
    let t = state.triage;
    let hardware = RwSignal::new(String::new());
    let hostname = RwSignal::new(String::new());
    let version = RwSignal::new(String::new());
    let precision = RwSignal::new(String::new());
    let cache = RwSignal::new(String::new());
    let traces = move || {
        t.view.with(|v| {
            v.as_ref()
                .map(|v| {
                    v.sources
                        .iter()
                        .filter(|s| s.trace)
                        .cloned()
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let text = |label: &'static str, testid: &'static str, sig: RwSignal<String>| {
        view! {
            <label>
                {label}
                <input
                    type="text"
                    size="14"
                    data-testid=testid
                    prop:value=move || sig.get()
                    on:change=move |ev| sig.set(event_target_value(&ev))
                />
            </label>
        }
    };
    let apply = move |_| {
        let opt = |s: RwSignal<String>| {
            let v = s.get_untracked().trim().to_string();
            (!v.is_empty()).then_some(v)
        };
        let d = KeyDefaults {
            hardware: opt(hardware),
            hostname: opt(hostname),
            jax_version: opt(version),
            precision: opt(precision),
            cache_state: CacheState::parse(&cache.get_untracked()),
            transform: None,
        };
        let ids = t.fill_selected.get_untracked();
        t.fills.update(|f| {
            for id in ids {
                f.insert(id, d.clone());
            }
        });
        request_triage(state);
    };
    view! {
        <Show when=move || !traces().is_empty()>
            <section class="fill" data-testid="fill-form">
                <h2>"Key fields the traces lack"</h2>
                <table class="trials">
                    <thead>
                        <tr>
                            <th>"apply"</th>
                            <th>"trace"</th>
                            <th>"compile records"</th>
                            <th>"unknown fields"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            traces()
                                .into_iter()
                                .map(|s| {
                                    let id = s.id;
                                    view! {
                                        <tr data-testid="trace-source" data-file=s.name.clone()>
                                            <td>
                                                <input
                                                    type="checkbox"
                                                    data-testid="fill-select"
                                                    prop:checked=move || t.fill_selected.with(|f| f.contains(&id))
                                                    on:change=move |ev| {
                                                        let on = event_target_checked(&ev);
                                                        t.fill_selected.update(|f| {
                                                            if on {
                                                                f.insert(id);
                                                            } else {
                                                                f.remove(&id);
                                                            }
                                                        });
                                                    }
                                                />
                                            </td>
                                            <td class="name">{s.name.clone()}</td>
                                            <td class="num">{s.records.to_string()}</td>
                                            <td>{if s.unknown_fields.is_empty() { "none".to_string() } else { s.unknown_fields.join(", ") }}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()
                        }}
                    </tbody>
                </table>
                <div class="fill-fields">
                    {text("hardware ", "fill-hardware", hardware)}
                    {text(" hostname ", "fill-hostname", hostname)}
                    {text(" framework version ", "fill-version", version)}
                    {text(" precision ", "fill-precision", precision)}
                    <label>
                        " cache state "
                        <select data-testid="fill-cache" on:change=move |ev| cache.set(event_target_value(&ev))>
                            <option value="">"(from file name)"</option>
                            <option value="cold">"cold"</option>
                            <option value="warm">"warm"</option>
                        </select>
                    </label>
                    " "
                    <button data-testid="fill-apply" on:click=apply>
                        "apply to selected traces"
                    </button>
                </div>
            </section>
        </Show>
    }
}

#[component]
fn Thresholds() -> impl IntoView {
    let state = expect_context::<AppState>();
    let t = state.triage;
    let field = |label: &'static str, testid: &'static str, sig: RwSignal<f64>| {
        view! {
            <label>
                {label}
                <input
                    type="number"
                    step="any"
                    min="0"
                    size="6"
                    data-testid=testid
                    prop:value=move || sig.get().to_string()
                    on:change=move |ev| {
                        if let Some(v) = parse_threshold(&event_target_value(&ev)) {
                            sig.set(v);
                            request_triage(state);
                        }
                    }
                />
            </label>
        }
    };
    view! {
        <section class="controls" data-testid="thresholds">
            {field("drift ratio ≥ ", "min-ratio", t.min_ratio)}
            {field(" × pin; and absolute floor ≥ ", "min-abs", t.min_abs_s)}
            {field(" s; host load ≥ ", "load-threshold", t.load_threshold)}
            <label>
                " per core "
                <input
                    type="checkbox"
                    data-testid="load-per-core"
                    prop:checked=move || t.load_per_core.get()
                    on:change=move |ev| {
                        t.load_per_core.set(event_target_checked(&ev));
                        request_triage(state);
                    }
                />
            </label>
            " "
            <button
                class="small"
                on:click=move |_| {
                    let d = Params::default();
                    t.min_ratio.set(d.min_ratio);
                    t.min_abs_s.set(d.min_abs_s);
                    t.load_threshold.set(d.load_threshold);
                    t.load_per_core.set(d.load_per_core);
                    request_triage(state);
                }
            >
                "defaults"
            </button>
        </section>
    }
}

#[component]
fn Summary(view: Arc<SessionTriageView>) -> impl IntoView {
    let r = &view.report;
    let counts = r
        .counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(c, n)| {
            view! {
                <li data-testid="class-count" data-class=c.clone() data-count=n.to_string()>
                    {format!("{c}: {n}")}
                </li>
            }
        })
        .collect_view();
    let unpinned = r
        .unpinned_counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(c, n)| view! { <li>{format!("unpinned {c}: {n}")}</li> })
        .collect_view();
    view! {
        <section class="summary" data-testid="triage-summary">
            <p>
                <strong data-testid="actionable" data-count=r.actionable.to_string()>
                    {format!("{} actionable", r.actionable)}
                </strong>
                " · "
                <span data-testid="drift-count" data-count=r.findings.len().to_string()>
                    {format!("{} drift rows", r.findings.len())}
                </span>
                " · "
                <span data-testid="next-action">{r.next_action.clone()}</span>
            </p>
            <p class="exports">
                "Download the findings: "
                {
                    let csv = crate::report::export::findings_csv(r);
                    export::button("export-findings-csv", "CSV", "findings.csv", "text/csv", move || Some(csv.clone()))
                }
                " "
                {
                    let json = view.document_json.clone();
                    export::button("export-findings-json", "JSON", "findings.json", "application/json", move || Some(json.clone()))
                }
            </p>
            <ul class="counts">{counts} {unpinned}</ul>
        </section>
    }
}

#[component]
fn Coverage(view: Arc<SessionTriageView>) -> impl IntoView {
    let list = |title: &'static str, testid: &'static str, v: &[crate::session::ExcludedView]| {
        (!v.is_empty()).then(|| {
            let items = v
                .iter()
                .map(|e| {
                    view! {
                        <li data-testid=testid data-location=e.location.clone()>
                            <span class="mono">{e.location.clone()}</span>
                            ": "
                            {e.reason.clone()}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <details open>
                    <summary>{format!("{title} ({})", v.len())}</summary>
                    <ul>{items}</ul>
                </details>
            }
        })
    };
    let r = &view.report;
    view! {
        <section class="coverage" data-testid="coverage">
            <h2>"Coverage"</h2>
            <p
                data-testid="coverage-counts"
                data-pinned=view.keys_pinned.to_string()
                data-unpinned=view.keys_unpinned.to_string()
                data-other-kind=view.other_kind.len().to_string()
                data-malformed=view.malformed.len().to_string()
                data-warm-rows=r.warm_rows.to_string()
            >
                {format!(
                    "warm keys pinned: {} · unpinned: {} · other-kind records: {} · malformed records: {} · warm rows: {} ({} older than their pin) · incomplete key: {}",
                    view.keys_pinned,
                    view.keys_unpinned,
                    view.other_kind.len(),
                    view.malformed.len(),
                    r.warm_rows,
                    r.history_rows,
                    r.incomplete.len(),
                )}
            </p>
            {list("malformed records", "malformed-row", &view.malformed)}
            {list("other-kind records", "other-kind-row", &view.other_kind)}
        </section>
    }
}

#[component]
fn Table(view: Arc<SessionTriageView>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let t = state.triage;
    let rows = rows_of(&view);
    let classes: BTreeSet<String> = rows.iter().map(|r| r.class.clone()).collect();
    let hardware: BTreeSet<String> = rows.iter().map(|r| r.key.hardware.clone()).collect();
    let all_rows = rows.clone();
    let shown = move || {
        let class = t.class_filter.get();
        let hw = t.hardware_filter.get();
        let cell = t.cell_filter.get().to_lowercase();
        all_rows
            .iter()
            .filter(|r| class.is_empty() || r.class == class)
            .filter(|r| hw.is_empty() || r.key.hardware == hw)
            .filter(|r| cell.is_empty() || r.key.cell.to_lowercase().contains(&cell))
            .cloned()
            .collect::<Vec<_>>()
    };
    let body = move || {
        let rows = shown();
        let mut groups: Vec<(String, bool, Vec<Row>)> = Vec::new();
        for r in rows {
            let label = format!(
                "{}{}",
                r.class,
                if r.drift { "" } else { " (unpinned keys)" }
            );
            match groups.last_mut() {
                Some((l, _, v)) if *l == label => v.push(r),
                _ => groups.push((label, r.actionable, vec![r])),
            }
        }
        groups
            .into_iter()
            .map(|(label, actionable, rows)| {
                let n = rows.len();
                let body = rows.into_iter().map(|r| row_view(state, r)).collect_view();
                view! {
                    <tbody>
                        <tr class="group">
                            <th colspan="8">
                                {format!(
                                    "{label} — {n}{}",
                                    if actionable { " (actionable)" } else { "" },
                                )}
                            </th>
                        </tr>
                        {body}
                    </tbody>
                }
            })
            .collect_view()
    };
    view! {
        <section>
            <h2>"Triage"</h2>
            <div class="controls">
                <label>
                    "class "
                    <select data-testid="class-filter" on:change=move |ev| t.class_filter.set(event_target_value(&ev))>
                        <option value="">"all"</option>
                        {classes
                            .into_iter()
                            .map(|c| {
                                let sel = t.class_filter.get_untracked() == c;
                                view! { <option value=c.clone() selected=sel>{c.clone()}</option> }
                            })
                            .collect_view()}
                    </select>
                </label>
                <label>
                    " hardware "
                    <select data-testid="hardware-filter" on:change=move |ev| t.hardware_filter.set(event_target_value(&ev))>
                        <option value="">"all"</option>
                        {hardware
                            .into_iter()
                            .map(|h| {
                                let sel = t.hardware_filter.get_untracked() == h;
                                view! { <option value=h.clone() selected=sel>{h.clone()}</option> }
                            })
                            .collect_view()}
                    </select>
                </label>
                <label>
                    " cell contains "
                    <input
                        type="text"
                        size="12"
                        data-testid="cell-filter"
                        prop:value=move || t.cell_filter.get()
                        on:input=move |ev| t.cell_filter.set(event_target_value(&ev))
                    />
                </label>
            </div>
            <div class="scroll tall">
                <table class="triage" data-testid="triage-table">
                    <thead>
                        <tr>
                            <th>"pin"</th>
                            <th>"class"</th>
                            <th>"key"</th>
                            <th>"pinned s"</th>
                            <th>"observed s"</th>
                            <th>"ratio"</th>
                            <th>"evidence"</th>
                            <th>"action"</th>
                        </tr>
                    </thead>
                    {body}
                </table>
            </div>
        </section>
    }
}

fn row_view(state: AppState, r: Row) -> impl IntoView {
    let t = state.triage;
    let key_text = r.key_text.clone();
    let key_text2 = r.key_text.clone();
    let key = r.key.clone();
    let series = r.series.clone();
    let series2 = r.series.clone();
    let num = |v: Option<f64>| v.map(fmt_s).unwrap_or_else(|| "—".into());
    let ratio = r
        .ratio
        .map(|x| format!("{x:.2}×"))
        .unwrap_or_else(|| "—".into());
    view! {
        <tr
            data-testid="triage-row"
            data-class=r.class.clone()
            data-kind=if r.drift { "drift" } else { "unpinned" }
            data-key=r.key_text.clone()
            class:actionable=r.actionable
            class:selected=move || t.chart_series.with(|s| s.as_deref() == Some(series.as_str()))
            on:click=move |_| t.chart_series.set(Some(series2.clone()))
        >
            <td>
                <input
                    type="checkbox"
                    data-testid="row-select"
                    title="select this key for “pin selected rows”"
                    prop:checked=move || t.row_selected.with(|s| s.contains_key(&key_text))
                    on:click=|ev| ev.stop_propagation()
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        t.row_selected.update(|s| {
                            if on {
                                s.insert(key_text2.clone(), key.clone());
                            } else {
                                s.remove(&key_text2);
                            }
                        });
                    }
                />
            </td>
            <td class="class">{r.class.clone()}</td>
            <td class="key">
                {r.key_text.clone()}
                {(!r.location.is_empty()).then(|| view! { <div class="muted mono">{r.location.clone()}</div> })}
            </td>
            <td class="num">{num(r.pinned)}</td>
            <td class="num">{num(r.observed)}</td>
            <td class="num">{ratio}</td>
            <td>{r.evidence.clone()}</td>
            <td>{r.action.clone()}</td>
        </tr>
    }
}

/// The chart of one series: compile seconds over time, cold and warm rows, the warm pin as a
/// horizontal line, drifted rows marked. Geometry from [`plot::triage::key_chart`].
#[component]
fn KeyChart(view: Arc<SessionTriageView>, series: String) -> impl IntoView {
    let pts: Vec<_> = view.points.iter().filter(|p| p.series == series).collect();
    let pin = view
        .series_pins
        .iter()
        .find(|(s, _)| *s == series)
        .map(|(_, v)| *v);
    let input: Vec<KeyPoint> = pts
        .iter()
        .map(|p| KeyPoint {
            unix_s: p.unix_s,
            compile_s: p.compile_s,
            cold: p.cold,
            drift: p.drift,
        })
        .collect();
    let Some(c) = plot::triage::key_chart(&input, pin) else {
        return view! { <p class="muted">"no timed rows for this key"</p> }.into_any();
    };
    let pin_line = c.pin_line.map(|l| {
        view! {
            <line class="pin-line" data-testid="pin-line" x1=l.x1 x2=l.x2 y1=l.y1 y2=l.y2>
                <title>{format!("pin {}", format_value(pin.unwrap_or(0.0), " s"))}</title>
            </line>
        }
    });
    let dot_title = |d: &plot::triage::KeyDot| {
        let p = pts[d.index];
        format!(
            "{}: {} {}{}",
            p.location,
            if p.cold { "cold" } else { "warm" },
            format_value(p.compile_s, " s"),
            if p.drift { " (drift)" } else { "" }
        )
    };
    let titles: Vec<String> = c.dots.iter().map(dot_title).collect();
    let svg_text = {
        let (c, series) = (c.clone(), series.clone());
        move || {
            Some(crate::report::svg::key_chart(
                &c,
                &format!("compile seconds of {series}"),
                &titles,
            ))
        }
    };
    let dots = c
        .dots
        .iter()
        .map(|d| {
            let title = dot_title(d);
            let class = match (d.cold, d.drift) {
                (true, _) => "pt cold",
                (false, true) => "pt warm drift",
                (false, false) => "pt warm",
            };
            let testid = if d.drift {
                "drift-point"
            } else {
                "chart-point"
            };
            view! {
                <circle class=class data-testid=testid cx=d.cx cy=d.cy r=d.r>
                    <title>{title}</title>
                </circle>
            }
        })
        .collect_view();
    view! {
        <div class="key-chart" data-testid="key-chart" data-series=series.clone()>
            <strong>{series.clone()}</strong>
            <span class="exports">
                " download "
                {export::plot_buttons(
                    ["export-chart-svg", "export-chart-png"],
                    ["triage-chart.svg", "triage-chart.png"],
                    svg_text,
                )}
            </span>
            <svg width=c.width height=c.height viewBox=format!("0 0 {} {}", c.width, c.height) role="img">
                {chart::area_rect(c.area.rect())}
                {chart::axis_ticks(&c.y_axis)}
                {chart::axis_ticks(&c.x_axis)}
                <polyline class="series cold" points=c.cold_line></polyline>
                <polyline class="series warm" points=c.warm_line></polyline>
                {pin_line}
                {dots}
                {chart::axis_title(&c.x_axis)}
            </svg>
            <p class="muted">"cold: grey · warm: blue · drift: red ring · pin: dashed line"</p>
        </div>
    }
    .into_any()
}

/// The compile-triage tab.
#[component]
pub fn TriageView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let t = state.triage;
    // Opening the tab asks for a fresh triage of whatever is loaded.
    request_triage(state);
    let results = move || {
        t.view.get().map(|v| {
            let chart = t
                .chart_series
                .get()
                .map(|s| view! { <KeyChart view=v.clone() series=s /> });
            view! {
                <Summary view=v.clone() />
                <Table view=v.clone() />
                {chart}
                <Coverage view=v.clone() />
            }
        })
    };
    view! {
        <div class="triage-view" data-testid="triage-view">
            <p class="muted">
                "Drop compile-record files (JSON Lines, JSON array, {\"records\": …}) and/or traces with compile slices; a file named *pins*.json loads pins."
            </p>
            <RecordFiles />
            <Pins />
            <FillForm />
            <Thresholds />
            {results}
        </div>
    }
}
