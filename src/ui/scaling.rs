//! The scaling view (`../shared/reference/scaling.md`): input pattern and metric controls, the
//! trial table (editable input, variant, exclude), per-file errors, the hotspot table (sortable,
//! filterable) with the selected hotspot's scatter plot, per-file diagnostics, and import
//! timing.

use std::sync::Arc;

use leptos::prelude::*;

use super::scatter::ScatterPlot;
use super::{export, remove_file, request_analysis, AppState, FileRow, Status};
use crate::analysis::scaling::{EvidenceStatus, Hotspot, Report};
use crate::plot::format_value;
use crate::session::progress::BatchProgress;
use crate::session::{FileId, ImportSummary};

/// The whole scaling tab.
#[component]
pub fn ScalingView() -> impl IntoView {
    view! {
        <Controls />
        <FileErrors />
        <TrialTable />
        <Summary />
        <div class="results">
            <HotspotTable />
            <SelectedPlot />
        </div>
        <super::flame::ScalingFlame />
        <DiagnosticsPanel />
        <ImportStats />
    }
}

#[component]
fn Controls() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <section class="controls">
            <label>
                "Input pattern (regex, one capture group): "
                <input
                    id="pattern"
                    data-testid="pattern"
                    class="pattern"
                    type="text"
                    spellcheck="false"
                    prop:value=move || state.pattern.get()
                    on:change=move |ev| {
                        state.pattern.set(event_target_value(&ev));
                        request_analysis(state);
                    }
                />
            </label>
            <label>
                " Metric: "
                {super::metric_select("metric", state.metric, move || request_analysis(state))}
            </label>
            <span class="muted" data-testid="analysing">
                {move || state.analysing.get().then_some(" analysing…")}
            </span>
            <span class="error" data-testid="analysis-error">
                {move || state.analysis_error.get()}
            </span>
        </section>
    }
}

#[component]
fn FileErrors() -> impl IntoView {
    let state = expect_context::<AppState>();
    // A memo: progress messages leave the list as it was, and nothing below re-renders.
    let errors = Memo::new(move |_| {
        state.files.with(|f| {
            f.iter()
                .filter_map(|r| match r.status.get() {
                    Status::Failed(m) => Some(m),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
    });
    let skipped = state.skipped;
    view! {
        <Show when=move || skipped.with(|s| !s.is_empty())>
            // As `trialscope` notes the empty files of a folder it skipped: each by its name.
            <p class="muted" data-testid="skipped-files">
                {move || {
                    skipped
                        .with(|s| {
                            format!(
                                "Skipped {} empty file{} (0 bytes, not analysed): {}",
                                s.len(),
                                if s.len() == 1 { "" } else { "s" },
                                s.iter()
                                    .map(|n| format!("{n} (empty)"))
                                    .collect::<Vec<_>>()
                                    .join(", "),
                            )
                        })
                }}
            </p>
        </Show>
        <Show when=move || errors.with(|e| !e.is_empty())>
            <section class="file-errors" data-testid="file-errors">
                <strong>"Files that could not be read (the others are analysed):"</strong>
                <ul>
                    {move || {
                        errors
                            .get()
                            .into_iter()
                            .map(|m| view! { <li data-testid="file-error">{m}</li> })
                            .collect_view()
                    }}
                </ul>
            </section>
        </Show>
    }
}

fn fmt_input(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| {
        if v.fract() == 0.0 && v.abs() < 1e15 {
            format!("{}", v as i64)
        } else {
            format!("{v}")
        }
    })
}

/// `rank / world size` as the trial table shows it (`-` for an unknown part, empty when both
/// are unknown).
fn rank_text(s: &ImportSummary) -> String {
    let part = |v: Option<u32>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    match (s.rank, s.world_size) {
        (None, None) => String::new(),
        (r, w) => format!("{} / {}", part(r), part(w)),
    }
}

fn trial_row(state: AppState, row: FileRow) -> impl IntoView {
    let id = row.id;
    let status = row.status;
    let summary = move || match status.get() {
        Status::Imported(s) => Some(s),
        _ => None,
    };
    let size = row.size;
    // A memo: every analysis replaces the whole input map, and with 200 rows re-running each
    // row's input box (format, set the DOM property) for an input that did not change is work
    // in the task that renders the report.
    let effective = Memo::new(move |_| state.inputs.with(|m| m.get(&id).copied().flatten()));
    let input_edit = row.input_edit;
    let variant = row.variant;
    let excluded = row.excluded;
    view! {
        <tr data-testid="trial-row" data-file=row.name.clone() class:excluded=move || excluded.get()>
            <td class="name">{row.name.clone()}</td>
            <td class="num">
                {move || {
                    let bytes = summary().map_or_else(|| size.get(), |s| s.size_bytes as f64);
                    if bytes > 0.0 { format_value(bytes, "bytes") } else { String::new() }
                }}
            </td>
            <td>
                {move || match status.get() {
                    Status::Reading => view! { <span class="muted">"reading…"</span> }.into_any(),
                    Status::Fetching(f) => fetching(f),
                    Status::Importing(f) => {
                        view! { <progress data-testid="progress" max="1" value=f></progress> }
                            .into_any()
                    }
                    Status::Imported(s) => {
                        view! {
                            <span data-testid="format" data-format=s.format.clone()>
                                {s.format.clone()}
                            </span>
                        }
                            .into_any()
                    }
                    Status::Failed(_) => view! { <span class="error">"error"</span> }.into_any(),
                }}
            </td>
            <td class="num">
                {move || {
                    summary()
                        .map(|s| {
                            let text = rank_text(&s);
                            let title = if s.rank_assigned {
                                "rank assigned: the trace names none".to_string()
                            } else {
                                String::new()
                            };
                            view! {
                                <span
                                    data-testid="rank"
                                    data-rank=s.rank.map(|r| r.to_string())
                                    data-world-size=s.world_size.map(|w| w.to_string())
                                    class:warn=s.rank_assigned
                                    title=title
                                >
                                    {text}
                                </span>
                            }
                        })
                }}
            </td>
            <td class="mono" title=move || summary().map(|s| s.artifact_id.clone())>
                {move || summary().map(|s| s.artifact_id_short.clone())}
            </td>
            <td class="num">{move || summary().map(|s| s.slices.to_string())}</td>
            <td class="num">
                {move || {
                    summary()
                        .map(|s| {
                            let n: u64 = s.diagnostics.iter().map(|d| d.count).sum();
                            let cls = if s.data_loss { "warn" } else { "" };
                            view! { <span class=cls>{n.to_string()}</span> }
                        })
                }}
            </td>
            <td>
                <input
                    class="input-value"
                    data-testid="input-value"
                    type="text"
                    size="8"
                    class:edited=move || input_edit.get().is_some()
                    prop:value=move || input_edit.get().unwrap_or_else(|| fmt_input(effective.get()))
                    on:change=move |ev| {
                        let t = event_target_value(&ev);
                        input_edit.set(if t.trim().is_empty() { None } else { Some(t) });
                        request_analysis(state);
                    }
                />
            </td>
            <td>
                <input
                    class="variant"
                    type="text"
                    size="8"
                    placeholder="default"
                    prop:value=move || variant.get()
                    on:change=move |ev| {
                        variant.set(event_target_value(&ev));
                        request_analysis(state);
                    }
                />
            </td>
            <td>
                <input
                    type="checkbox"
                    data-testid="exclude"
                    prop:checked=move || excluded.get()
                    on:change=move |ev| {
                        excluded.set(event_target_checked(&ev));
                        request_analysis(state);
                    }
                />
            </td>
            <td>
                <button class="small" title="remove this file" on:click=move |_| remove_file(state, id)>
                    "×"
                </button>
            </td>
        </tr>
    }
}

/// The batch being loaded: the files added since the page was last idle
/// ([`super::Timing::batch_first`]).
fn batch_progress(state: AppState) -> BatchProgress {
    let first = state.timing.with(|t| t.batch_first);
    state.files.with(|files| {
        BatchProgress::of(files.iter().filter(|r| r.id >= first).map(|r| {
            let (fraction, done) = match r.status.get() {
                Status::Imported(_) | Status::Failed(_) => (1.0, true),
                Status::Importing(f) | Status::Fetching(Some(f)) => (f, false),
                Status::Reading | Status::Fetching(None) => (0.0, false),
            };
            (r.size.get(), fraction, done)
        }))
    })
}

/// Most files listed with their own progress bar while they load; the others are counted.
const MAX_LOADING_SHOWN: usize = 20;

#[component]
fn TrialTable() -> impl IntoView {
    let state = expect_context::<AppState>();
    // A row joins the trial table only once the worker said the file is a trace (or could not
    // be read): record, pins and telemetry files never appear in it. Files still being read or
    // imported are listed above it with their progress.
    // Both lists are memos of row ids: a progress message changes one row's status, the
    // memos run again (a pass over the rows' statuses) but compare equal, so the lists, the
    // headings and the keyed rows below are not touched; only a file that settles changes
    // them, and then `For` adds or moves that one row.
    let partition = Memo::new(move |_| {
        state.files.with(|f| {
            let (mut settled, mut pending) = (Vec::new(), Vec::new());
            for r in f {
                if !r.status.with(Status::is_loading) {
                    settled.push(r.id);
                } else {
                    pending.push(r.id);
                }
            }
            (settled, pending)
        })
    });
    // Rows are kept in id order (ids grow as rows are added).
    let rows_of = move |ids: &[FileId]| {
        state.files.with_untracked(|f| {
            ids.iter()
                .filter_map(|id| match f.binary_search_by_key(id, |r| r.id) {
                    Ok(i) => Some(f[i].clone()),
                    Err(_) => f.iter().find(|r| r.id == *id).cloned(),
                })
                .collect::<Vec<_>>()
        })
    };
    let trials = move || partition.with(|(s, _)| rows_of(s));
    let pending_count = move || partition.with(|(_, p)| p.len());
    // The first files still loading (the ones the import workers hold come first: the
    // files go to the workers in drop order); the rest are counted. 200 dropped files would
    // otherwise be 200 bars to lay out again on every change.
    let shown = move || partition.with(|(_, p)| rows_of(&p[..p.len().min(MAX_LOADING_SHOWN)]));
    let more = move || pending_count().saturating_sub(MAX_LOADING_SHOWN);
    let count = move || partition.with(|(s, _)| s.len());
    let batch = Memo::new(move |_| batch_progress(state));
    view! {
        <Show when=move || pending_count() != 0>
            <section>
                <h2>{move || format!("Loading ({})", pending_count())}</h2>
                <p class="batch-progress" data-testid="batch">
                    <progress
                        data-testid="batch-progress"
                        max="1"
                        value=move || batch.get().fraction
                    ></progress>
                    " "
                    <span data-testid="batch-text">
                        {move || batch.get().text()}
                    </span>
                </p>
                <ul class="loading" data-testid="loading-files">
                    <For
                        each=shown
                        key=|r| r.id
                        children=move |row| {
                            let status = row.status;
                            view! {
                                <li data-file=row.name.clone()>
                                    <span class="name">{row.name.clone()}</span>
                                    " "
                                    {move || match status.get() {
                                        Status::Importing(f) => {
                                            view! {
                                                <progress data-testid="progress" max="1" value=f></progress>
                                            }
                                                .into_any()
                                        }
                                        Status::Fetching(f) => fetching(f),
                                        _ => view! { <span class="muted">"reading…"</span> }.into_any(),
                                    }}
                                </li>
                            }
                        }
                    />
                    <Show when=move || more() != 0>
                        <li class="muted" data-testid="loading-more">
                            {move || format!("… and {} more", more())}
                        </li>
                    </Show>
                </ul>
            </section>
        </Show>
        <Show when=move || count() != 0>
            <section>
                <h2>{move || format!("Trials ({})", count())}</h2>
                <div class="scroll">
                    <table class="trials" data-testid="trial-table">
                        <thead>
                            <tr>
                                <th>"file"</th>
                                <th>"size"</th>
                                <th>"format"</th>
                                <th title="rank / world size">"rank"</th>
                                <th>"artifact"</th>
                                <th>"slices"</th>
                                <th>"diagnostics"</th>
                                <th>"input"</th>
                                <th>"variant"</th>
                                <th>"exclude"</th>
                                <th></th>
                            </tr>
                        </thead>
                        <tbody>
                            <For each=trials key=|r| (r.id, r.name.clone()) children=move |row| trial_row(state, row) />
                        </tbody>
                    </table>
                </div>
            </section>
        </Show>
    }
}

#[component]
fn Summary() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.report.get().map(|r| {
            let status = match r.evidence_status {
                EvidenceStatus::Complete => "complete",
                EvidenceStatus::Partial => "partial",
                EvidenceStatus::Unavailable => "unavailable",
            };
            let reasons = r.evidence_reasons.join("; ");
            let c = &r.coverage;
            let coverage = format!(
                "{} hypotheses tested, {} significant (q < 0.05); {} frames joined across trials, {} unmatched frame entries ({} unmatched); {} groups with too few trials, {} with too few distinct inputs, {} dropped as constant.",
                r.tested_hypotheses,
                r.significant,
                c.joined_frames,
                c.unmatched_frames,
                format_value(c.unmatched_ns as f64, "ns"),
                c.groups_too_few_trials,
                c.groups_too_few_inputs,
                r.dropped_non_finite
            );
            let warnings = r
                .warnings
                .iter()
                .map(|w| view! { <li class="warn">{w.clone()}</li> })
                .collect_view();
            view! {
                <section class="summary" data-testid="summary">
                    <p>
                        <span class=format!("status {status}") data-testid="evidence">
                            {format!("evidence: {status}")}
                        </span>
                        " "
                        {reasons}
                    </p>
                    <p class="muted">{coverage}</p>
                    <ul>{warnings}</ul>
                </section>
            }
        })
    }
}

/// The hotspot table's sort columns (the view state's names, [`crate::session::viewstate`]).
use crate::session::viewstate::SortKey as SortCol;

fn sort_value(h: &Hotspot, c: SortCol) -> f64 {
    match c {
        SortCol::Rho => h.spearman_rho.abs(),
        SortCol::Q => h.q_value,
        SortCol::Trials => h.trials as f64,
        SortCol::Range => h.supported_max - h.supported_min,
        SortCol::Median => h.points.last().map_or(0.0, |p| p.median),
        SortCol::Name => 0.0,
    }
}

const MAX_ROWS: usize = 300;

/// Hotspot rows rendered in the task that brings a report (or a new filter or sort).
const FIRST_ROWS: usize = 40;
/// Hotspot rows added per later task until all (at most [`MAX_ROWS`]) are in.
const ROWS_PER_STEP: usize = 40;

/// Grows the hotspot rows of generation `g` by [`ROWS_PER_STEP`] in a task of its own (a zero
/// timeout), again and again until `total` are shown; stops when a newer generation began.
fn grow_rows(rows_gen: Memo<u64>, grown: RwSignal<(u64, usize)>, g: u64, total: usize) {
    let now = match grown.get_untracked() {
        (at, n) if at == g => n,
        _ => FIRST_ROWS,
    };
    if now >= total {
        return;
    }
    set_timeout(
        move || {
            if rows_gen.get_untracked() != g {
                return;
            }
            let now = match grown.get_untracked() {
                (at, n) if at == g => n,
                _ => FIRST_ROWS,
            };
            grown.set((g, (now + ROWS_PER_STEP).min(total)));
            grow_rows(rows_gen, grown, g, total);
        },
        std::time::Duration::ZERO,
    );
}

#[component]
fn HotspotTable() -> impl IntoView {
    let state = expect_context::<AppState>();
    // In the page state, so a link's view carries them ([`super::viewstate`]).
    let filter = state.hotspot_filter;
    // None = report order (|ρ| descending, then q).
    let sort = state.hotspot_sort;
    let rows = Memo::new(move |_| {
        let Some(r) = state.report.get() else {
            return (Vec::new(), 0);
        };
        let f = filter.get().to_lowercase();
        let mut idx: Vec<usize> = r
            .hotspots
            .iter()
            .enumerate()
            .filter(|(_, h)| {
                f.is_empty()
                    || h.name.to_lowercase().contains(&f)
                    || h.category.to_lowercase().contains(&f)
                    || h.function
                        .as_deref()
                        .is_some_and(|s| s.to_lowercase().contains(&f))
                    || h.file
                        .as_deref()
                        .is_some_and(|s| s.to_lowercase().contains(&f))
                    || h.posted_from
                        .as_deref()
                        .is_some_and(|s| s.to_lowercase().contains(&f))
            })
            .map(|(i, _)| i)
            .collect();
        if let Some((col, desc)) = sort.get() {
            idx.sort_by(|&a, &b| {
                let (ha, hb) = (&r.hotspots[a], &r.hotspots[b]);
                let o = if col == SortCol::Name {
                    ha.name.cmp(&hb.name)
                } else {
                    sort_value(ha, col).total_cmp(&sort_value(hb, col))
                };
                if desc {
                    o.reverse()
                } else {
                    o
                }
            });
        }
        let total = idx.len();
        idx.truncate(MAX_ROWS);
        (idx, total)
    });
    let header = move |label: &'static str, col: SortCol, first_desc: bool| {
        view! {
            <th
                class="sortable"
                on:click=move |_| {
                    sort.update(|s| {
                        *s = match *s {
                            Some((c, d)) if c == col => Some((col, !d)),
                            _ => Some((col, first_desc)),
                        }
                    })
                }
            >
                {label}
                {move || match sort.get() {
                    Some((c, true)) if c == col => " ▼",
                    Some((c, false)) if c == col => " ▲",
                    _ => "",
                }}
            </th>
        }
    };
    // The rows go in over several tasks: [`FIRST_ROWS`] with the report, then
    // [`ROWS_PER_STEP`] more per task (a zero timeout each), so a report's 300 rows never
    // hold the page's thread in one long task. `rows_gen` counts the changes of `rows` (a new
    // report, filter or sort); `grown` is how far the rows of that generation have grown.
    let rows_gen = Memo::new(move |prev: Option<&u64>| {
        rows.track();
        prev.map_or(0, |p| p.wrapping_add(1))
    });
    let grown = RwSignal::new((u64::MAX, FIRST_ROWS));
    let shown_rows = move || {
        let g = rows_gen.get();
        match grown.get() {
            (at, n) if at == g => n,
            _ => FIRST_ROWS,
        }
    };
    Effect::new(move |_| {
        let g = rows_gen.get();
        grow_rows(
            rows_gen,
            grown,
            g,
            rows.with_untracked(|(idx, _)| idx.len()),
        );
    });
    // Keyed by (report, hotspot index): a sort or filter moves the rows it keeps, a new
    // report makes them anew.
    let keys = move || {
        let Some(r) = state.report.get() else {
            return Vec::new();
        };
        let at = Arc::as_ptr(&r) as usize;
        let n = shown_rows();
        rows.with(|(idx, _)| idx.iter().take(n).map(|&i| (at, i)).collect::<Vec<_>>())
    };
    let body = move || {
        view! {
            <For
                each=keys
                key=|k| *k
                children=move |(_, i)| {
                    state.report.get_untracked().map(|r| hotspot_row(state, &r, i))
                }
            />
        }
    };
    view! {
        <Show when=move || state.report.with(|r| r.is_some())>
            <section class="hotspots">
                <h2>"Hotspots: cost vs input"</h2>
                <div class="table-tools">
                    <input
                        type="search"
                        data-testid="hotspot-filter"
                        placeholder="filter by name, category, file"
                        prop:value=move || filter.get()
                        on:input=move |ev| filter.set(event_target_value(&ev))
                    />
                    <span class="exports">
                        " download "
                        {export::button("export-hotspots-csv", "CSV", "hotspots.csv", "text/csv", move || {
                            state.report.get_untracked().map(|r| crate::report::export::hotspots_csv(&r))
                        })}
                        " "
                        {export::button("export-hotspots-json", "JSON", "hotspots.json", "application/json", move || {
                            state.report.get_untracked().map(|r| export::scaling_json(state, &r))
                        })}
                    </span>
                    <span class="muted" data-testid="hotspot-count">
                        {move || {
                            let (idx, total) = rows.get();
                            if total > idx.len() {
                                format!(" showing {} of {total}", idx.len())
                            } else {
                                format!(" {total} groups")
                            }
                        }}
                    </span>
                </div>
                <div class="scroll tall">
                    <table class="hotspots" data-testid="hotspot-table">
                        <thead>
                            <tr>
                                {header("frame", SortCol::Name, false)}
                                <th>"source"</th>
                                {header("ρ", SortCol::Rho, true)}
                                {header("q", SortCol::Q, false)}
                                {header("trials", SortCol::Trials, true)}
                                {header("input range", SortCol::Range, true)}
                                {header("median at max input", SortCol::Median, true)}
                            </tr>
                        </thead>
                        <tbody>{body}</tbody>
                    </table>
                </div>
            </section>
        </Show>
    }
}

fn hotspot_row(state: AppState, r: &Report, i: usize) -> impl IntoView {
    let h = &r.hotspots[i];
    let key = (h.variant.clone(), h.semantic_frame_id.clone());
    let key2 = key.clone();
    let is_selected = move || state.selected.with(|s| s.as_ref() == Some(&key2));
    let source = match (&h.file, h.line, &h.function, &h.posted_from) {
        (Some(f), Some(l), Some(func), _) => format!("{f}:{l} {func}"),
        (Some(f), Some(l), None, _) => format!("{f}:{l}"),
        (Some(f), None, Some(func), _) => format!("{f} {func}"),
        (Some(f), None, None, _) => f.clone(),
        (None, _, Some(func), _) => func.clone(),
        (None, _, None, Some(p)) => format!("posted from {p}"),
        _ => String::new(),
    };
    let warn = !h.warnings.is_empty() || h.environment_confounded;
    let name = if h.variant == "default" {
        h.name.clone()
    } else {
        format!("{} [{}]", h.name, h.variant)
    };
    let name_title = format!("{name} ({})", h.category);
    let source_title = source.clone();
    let median_max = h
        .points
        .last()
        .map_or(String::new(), |p| format_value(p.median, &h.unit));
    view! {
        <tr
            data-testid="hotspot-row"
            data-name=h.name.clone()
            data-rho=h.spearman_rho.to_string()
            data-q=h.q_value.to_string()
            data-trials=h.trials.to_string()
            data-provider=h.provider.clone()
            class:selected=is_selected.clone()
            class:significant=h.significant
            title=h.warnings.join("; ")
            tabindex="0"
            aria-selected={
                let f = is_selected.clone();
                move || f().to_string()
            }
            on:click={
                let key = key.clone();
                move |_| state.selected.set(Some(key.clone()))
            }
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                match ev.key().as_str() {
                    "Enter" | " " => state.selected.set(Some(key.clone())),
                    "ArrowDown" | "ArrowUp" => super::focus_sibling_row(&ev),
                    _ => return,
                }
                ev.prevent_default();
            }
        >
            <td class="name" title=name_title>
                {name}
                <span class="cat">{h.category.clone()}</span>
                {warn.then_some(" ⚠")}
            </td>
            <td class="source" title=source_title>{source}</td>
            <td class="num" data-testid="rho">{format!("{:.3}", h.spearman_rho)}</td>
            <td class="num" data-testid="q">{format!("{:.2e}", h.q_value)}</td>
            <td class="num" data-testid="trials">{h.trials.to_string()}</td>
            <td class="num">
                {format!("{}–{}", format_value(h.supported_min, ""), format_value(h.supported_max, ""))}
            </td>
            <td class="num">{median_max}</td>
        </tr>
    }
}

#[component]
fn SelectedPlot() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let r: Arc<Report> = state.report.get()?;
        let (v, id) = state.selected.get()?;
        let h = r
            .hotspots
            .iter()
            .find(|h| h.variant == v && h.semantic_frame_id == id)?
            .clone();
        let stats = format!(
            "ρ = {:.3}, p = {:.2e}, q = {:.2e}, n = {} trials at {} inputs; {} zero-filled, {} missing",
            h.spearman_rho, h.p_value, h.q_value, h.trials, h.distinct_inputs, h.zero_filled, h.missing
        );
        let warnings = h
            .warnings
            .iter()
            .map(|w| view! { <li class="warn">{w.clone()}</li> })
            .collect_view();
        Some(view! {
            <section class="selected" data-testid="selected-hotspot">
                <p class="mono small">{h.semantic_frame_id.clone()}</p>
                <p>{stats}</p>
                <ul>{warnings}</ul>
                <ScatterPlot report=r.clone() hotspot=h />
            </section>
        })
    }
}

/// One file's report, as `trialscope inspect` prints it, under its labels: what the file is,
/// what was read, the trace's `rank` / `world_size` / backend / `hostname`, and every diagnostic (kind, severity, count,
/// first offset and index). All text from the trace goes in as text nodes, never as HTML.
fn file_report(s: Arc<ImportSummary>) -> impl IntoView {
    let lost = s.data_loss;
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    let host = match (&s.hostname, s.hostname_from_siblings) {
        (Some(h), true) => format!("{h} (from sibling file names)"),
        (Some(h), false) => h.clone(),
        (None, _) => "-".to_string(),
    };
    let rank = match (s.rank, s.rank_assigned) {
        (Some(r), true) => format!("{r} (assigned: the trace names none)"),
        (r, _) => opt(r.map(|r| r.to_string())),
    };
    // The facts by the names `trialscope inspect` gives them (its text labels are the JSON's
    // field names; sizes as `N bytes (M decompressed)`), so both front ends say the same.
    let facts = [
        ("format", s.format.clone()),
        ("compression", s.compression.clone()),
        (
            "size",
            format!(
                "{} bytes ({} decompressed)",
                s.size_bytes, s.decompressed_bytes
            ),
        ),
        ("artifact_id", s.artifact_id.clone()),
        ("events", s.events.to_string()),
        ("tracks", s.tracks.to_string()),
        ("slices", s.slices.to_string()),
        ("counters", s.counters.to_string()),
        ("frames", s.frames.to_string()),
        ("rank", rank),
        ("world_size", opt(s.world_size.map(|w| w.to_string()))),
        ("backend", opt(s.backend.clone())),
        ("hostname", host),
    ];
    let facts = facts
        .into_iter()
        .map(|(k, v)| {
            view! {
                <dt>{k}</dt>
                <dd data-fact=k>{v}</dd>
            }
        })
        .collect_view();
    let rows = s
        .diagnostics
        .iter()
        .map(|d| {
            view! {
                <tr class=format!("sev-{}", d.severity.as_str()) data-kind=d.kind.as_str()>
                    <td>{d.severity.as_str()}</td>
                    <td class="mono">{d.kind.as_str()}</td>
                    <td class="num">{d.count.to_string()}</td>
                    <td class="num">{d.first_offset.map(|o| o.to_string())}</td>
                    <td class="num">{d.first_index.map(|o| o.to_string())}</td>
                    <td>{d.message.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    let diagnostics = if s.diagnostics.is_empty() {
        view! { <p class="muted">"No repairs or drops."</p> }.into_any()
    } else {
        view! {
            <table>
                <thead>
                    <tr>
                        <th>"severity"</th>
                        <th>"kind"</th>
                        <th>"count"</th>
                        <th>"first offset"</th>
                        <th>"first index"</th>
                        <th>"first occurrence"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    };
    let tally = crate::model::diagnostics::tally(&s.diagnostics);
    let headline = if lost {
        format!("{} — {tally}, data lost", s.name)
    } else {
        format!("{} — {tally}", s.name)
    };
    view! {
        <details data-testid="file-report" data-file=s.name.clone()>
            <summary class:warn=lost>{headline}</summary>
            <dl class="facts">{facts}</dl>
            {diagnostics}
        </details>
    }
}

/// One report per imported file (see [`file_report`]).
#[component]
fn DiagnosticsPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    // A memo (by the summaries' identity): a progress message elsewhere leaves it equal, so
    // the keyed list below is not even diffed.
    let imported = Memo::new_with_compare(
        move |_| {
            state.files.with(|f| {
                f.iter()
                    .filter_map(|r| match r.status.get() {
                        Status::Imported(s) => Some(s),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            })
        },
        |a: Option<&Vec<Arc<ImportSummary>>>, b: Option<&Vec<Arc<ImportSummary>>>| {
            // Changed unless both are the same summaries (`Arc` pointers) in the same order.
            match (a, b) {
                (Some(a), Some(b)) => {
                    a.len() != b.len() || a.iter().zip(b).any(|(x, y)| !Arc::ptr_eq(x, y))
                }
                _ => true,
            }
        },
    );
    view! {
        <Show when=move || imported.with(|i| !i.is_empty())>
            <section class="diagnostics" data-testid="diagnostics">
                <h2>"File reports"</h2>
                // Keyed by the summary itself: a file's report is built once, not again for
                // every other file that arrives (200 dropped trials would otherwise rebuild
                // 200 reports per file, a long main-thread task each).
                <For
                    each=move || imported.get()
                    key=|s| (s.id, Arc::as_ptr(s) as usize)
                    children=file_report
                />
            </section>
        </Show>
    }
}

#[component]
fn ImportStats() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let t = state.timing.get();
        (t.files > 0).then(|| {
            let mbps = if t.import_ms > 0.0 {
                t.decompressed_bytes / 1e6 / (t.import_ms / 1e3)
            } else {
                0.0
            };
            let e2e = t
                .end_to_end_ms
                .map_or(String::new(), |ms| format!("; files to hotspot table in {:.2} s", ms / 1e3));
            view! {
                <p
                    class="muted"
                    id="import-stats"
                    data-testid="import-stats"
                    data-files=t.files.to_string()
                    data-bytes=t.decompressed_bytes.to_string()
                    data-import-ms=t.import_ms.to_string()
                    data-e2e-ms=t.end_to_end_ms.map(|v| v.to_string())
                >
                    {format!(
                        "{} files, {} uncompressed, imported in {:.2} s of worker time ({mbps:.1} MB/s){e2e}",
                        t.files,
                        format_value(t.decompressed_bytes, "bytes"),
                        t.import_ms / 1e3
                    )}
                </p>
            }
        })
    }
}

/// A download's state: "downloading" with a bar when the server sent the length.
fn fetching(fraction: Option<f64>) -> AnyView {
    match fraction {
        Some(f) => view! {
            <span class="muted">"downloading "</span>
            <progress data-testid="download-progress" max="1" value=f></progress>
        }
        .into_any(),
        None => view! { <span class="muted" data-testid="download-progress">"downloading…"</span> }
            .into_any(),
    }
}
