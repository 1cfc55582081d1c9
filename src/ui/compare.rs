//! The Compare tab (issue 13): an A/B comparison of baseline and candidate trials per semantic
//! frame. Sides come from two file-name globs (empty = the variant column when it holds exactly
//! two labels, resolved by the worker: [`crate::session::compare::default_sides`]); the metric
//! and the practical gate (ratio %, shift ms, floor ms) are editable. The report
//! ([`crate::workspace::Workspace::compare`], computed in the worker) is shown as the trials on
//! each side with the "fewer than 3 trials" statement when it applies, a comparison table
//! (sortable, filterable by text and verdict, the family size stated), a forest plot of the
//! top frames' ratios ([`crate::plot::compare::forest`]), the strip plot of a clicked row
//! ([`crate::plot::compare::strip`]), and flame graphs ([`super::flame`]): differential, one
//! side, or one trial.
//!
//! Text from traces (frame names, file names) is only rendered as text nodes and attributes.

use std::cell::Cell;
use std::sync::Arc;

use leptos::prelude::*;

use super::flame::{self, FlameSlot};
use super::{chart, post_to_worker, AppState, Status, Tab};
use crate::analysis::compare::{Params, Report, Row, Side, Verdict};
use crate::analysis::scaling::Metric;
use crate::plot::compare::{forest, strip, ForestItem, StripValue};
use crate::plot::geom::Area;
use crate::session::{CompareMsg, FileId, FlameOf, ToWorker, TrialSettings};
use crate::workspace::{CompareOutcome, CompareRequest, SideRule};

/// Rows drawn in the table at most (the rest are counted; filter to narrow).
const MAX_ROWS: usize = 300;
/// Frames in the forest plot.
const FOREST_ROWS: usize = 15;

/// The Compare tab's settings and latest answers, plus the Scaling tab's flame graph (all
/// signals, so it is `Copy`; created with the app so it outlives tab switches).
#[derive(Clone, Copy)]
pub struct CompareState {
    /// Glob over file names for the baseline side (`*`, `?`); empty with `candidate` empty =
    /// the variant column.
    pub baseline: RwSignal<String>,
    pub candidate: RwSignal<String>,
    pub metric: RwSignal<Metric>,
    /// The practical gate: minimum |ratio − 1| in percent, minimum |shift| in ms; the family
    /// floor in ms (time metrics).
    pub ratio_pct: RwSignal<String>,
    pub shift_ms: RwSignal<String>,
    pub floor_ms: RwSignal<String>,
    pub outcome: RwSignal<Option<Arc<CompareOutcome>>>,
    pub error: RwSignal<Option<String>>,
    pub busy: RwSignal<bool>,
    /// Selected row: semantic frame id.
    pub selected: RwSignal<Option<String>>,
    /// `differential`, `baseline`, `candidate` or `trial`.
    pub flame_of: RwSignal<String>,
    pub flame_trial: RwSignal<Option<FileId>>,
    pub trial_tree: RwSignal<FlameSlot>,
    /// The Scaling tab's flame tree and its variant ([`flame::ScalingFlame`]).
    pub scaling_tree: RwSignal<FlameSlot>,
    pub scaling_variant: RwSignal<String>,
}

impl CompareState {
    /// Empty globs, inclusive time, the default gate (5 %, 0.5 ms, floor 0.5 ms).
    pub fn new() -> Self {
        let p = Params::default();
        CompareState {
            baseline: RwSignal::new(String::new()),
            candidate: RwSignal::new(String::new()),
            metric: RwSignal::new(Metric::Inclusive),
            ratio_pct: RwSignal::new(format!("{}", p.min_ratio_change * 100.0)),
            shift_ms: RwSignal::new(format!("{}", p.min_shift_ns / 1e6)),
            floor_ms: RwSignal::new(format!("{}", p.floor_ns / 1e6)),
            outcome: RwSignal::new(None),
            error: RwSignal::new(None),
            busy: RwSignal::new(false),
            selected: RwSignal::new(None),
            flame_of: RwSignal::new("differential".to_string()),
            flame_trial: RwSignal::new(None),
            trial_tree: RwSignal::new(None),
            scaling_tree: RwSignal::new(None),
            scaling_variant: RwSignal::new(String::new()),
        }
    }
}

impl Default for CompareState {
    fn default() -> Self {
        Self::new()
    }
}

thread_local! {
    static SEQ: Cell<u64> = const { Cell::new(0) };
}

/// The trial table's per-trial settings (input override, variant, excluded), as every request
/// carries them.
pub fn trial_settings(state: AppState) -> Vec<TrialSettings> {
    state.files.with_untracked(|f| {
        f.iter()
            .map(|r| TrialSettings {
                id: r.id,
                input_override: r
                    .input_edit
                    .get_untracked()
                    .and_then(|t| t.trim().parse::<f64>().ok())
                    .filter(|v| v.is_finite()),
                variant: r.variant.get_untracked(),
                excluded: r.excluded.get_untracked(),
            })
            .collect()
    })
}

fn rule(glob: String) -> SideRule {
    let g = glob.trim().to_string();
    SideRule {
        pattern: (!g.is_empty()).then_some(g),
        ..SideRule::default()
    }
}

/// The comparison request of the current settings; `Err` names a knob that is not a number.
fn compare_request(state: AppState) -> Result<CompareRequest, String> {
    let cs = state.compare;
    let knob = |s: RwSignal<String>, what: &str| -> Result<f64, String> {
        let t = s.get_untracked();
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("{what}: \u{201c}{t}\u{201d} is not a number ≥ 0"))
    };
    let params = Params {
        metrics: vec![cs.metric.get_untracked()],
        min_ratio_change: knob(cs.ratio_pct, "ratio change %")? / 100.0,
        min_shift_ns: knob(cs.shift_ms, "shift ms")? * 1e6,
        floor_ns: knob(cs.floor_ms, "floor ms")? * 1e6,
        ..Params::default()
    };
    Ok(CompareRequest {
        settings: trial_settings(state),
        baseline: rule(cs.baseline.get_untracked()),
        candidate: rule(cs.candidate.get_untracked()),
        params,
        trees: true,
    })
}

/// Asks the worker for a new comparison (no-op while files import; clears the view when no
/// trace is loaded). Only the latest answer is shown.
pub fn request_compare(state: AppState) {
    if state.busy() {
        return;
    }
    let cs = state.compare;
    let any = state.files.with_untracked(|f| {
        f.iter()
            .any(|r| matches!(r.status.get_untracked(), Status::Imported(_)))
    });
    if !any {
        cs.outcome.set(None);
        return;
    }
    let request = match compare_request(state) {
        Ok(r) => r,
        Err(e) => {
            cs.error.set(Some(e));
            return;
        }
    };
    let seq = SEQ.with(|s| {
        s.set(s.get() + 1);
        s.get()
    });
    cs.busy.set(true);
    post_to_worker(&ToWorker::Compare(CompareMsg { seq, request }));
    if cs.flame_of.get_untracked() == "trial" {
        request_trial_flame(state);
    }
}

/// The worker's comparison `seq` (ignored unless it answers the latest request).
pub fn compared(state: AppState, seq: u64, result: Result<CompareOutcome, String>) {
    if seq != SEQ.with(Cell::get) {
        return;
    }
    let cs = state.compare;
    cs.busy.set(false);
    match result {
        Ok(o) => {
            cs.error.set(None);
            let keep = cs.selected.with_untracked(|s| {
                s.as_ref().is_some_and(|id| {
                    o.report
                        .rows
                        .iter()
                        .any(|r| &r.frame.semantic_frame_id == id)
                })
            });
            if !keep {
                cs.selected.set(None);
            }
            cs.outcome.set(Some(Arc::new(o)));
        }
        Err(e) => {
            cs.outcome.set(None);
            cs.error.set(Some(e));
        }
    }
}

fn request_trial_flame(state: AppState) {
    let cs = state.compare;
    let id = cs.flame_trial.get_untracked().or_else(|| {
        state.files.with_untracked(|f| {
            f.iter()
                .find(|r| matches!(r.status.get_untracked(), Status::Imported(_)))
                .map(|r| r.id)
        })
    });
    if let Some(id) = id {
        cs.flame_trial.set(Some(id));
        flame::request(
            "compare-trial",
            FlameOf::Trial { id },
            None,
            None,
            cs.trial_tree,
        );
    }
}

/// A value in the metric's unit as the table shows it: ms with 3 decimals for ns metrics.
fn v_text(v: Option<f64>, unit: &str) -> String {
    match v {
        Some(v) if unit == "ns" => format!("{:.3}", v / 1e6),
        Some(v) => format!("{v:.1}"),
        None => "–".into(),
    }
}

fn unit_label(unit: &str) -> &str {
    if unit == "ns" {
        "ms"
    } else {
        unit
    }
}

fn p_text(v: Option<f64>) -> String {
    flame::pq(v)
}

fn ratio_text(r: &Row) -> String {
    match (r.ratio, r.ratio_ci_low, r.ratio_ci_high) {
        (Some(v), Some(a), Some(b)) => format!("{v:.3} [{a:.3}, {b:.3}]"),
        (Some(v), _, _) => format!("{v:.3}"),
        _ => "–".into(),
    }
}

fn shift_text(r: &Row) -> String {
    let s = |v: Option<f64>| {
        let t = v_text(v, &r.unit);
        match v {
            Some(x) if x > 0.0 => format!("+{t}"),
            _ => t,
        }
    };
    match (r.shift, r.shift_ci_low, r.shift_ci_high) {
        (Some(_), Some(_), Some(_)) => format!(
            "{} [{}, {}]",
            s(r.shift),
            s(r.shift_ci_low),
            s(r.shift_ci_high)
        ),
        (Some(_), _, _) => s(r.shift),
        _ => "–".into(),
    }
}

/// Columns the comparison table sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Col {
    Name,
    Base,
    Cand,
    Ratio,
    Shift,
    P,
    Q,
    Verdict,
}

fn sort_key(r: &Row, c: Col) -> f64 {
    let n = |v: Option<f64>| v.unwrap_or(f64::NAN);
    match c {
        Col::Base => n(r.baseline_median),
        Col::Cand => n(r.candidate_median),
        Col::Ratio => n(r.ratio),
        Col::Shift => n(r.shift),
        Col::P => n(r.p_value),
        Col::Q => n(r.q_value),
        Col::Verdict => r.verdict as u8 as f64,
        Col::Name => 0.0,
    }
}

/// The whole Compare tab.
#[component]
pub fn CompareTab() -> impl IntoView {
    let state = expect_context::<AppState>();
    request_compare(state);
    view! {
        <Controls />
        <Sides />
        <Show when=move || state.compare.outcome.with(|o| o.is_some())>
            <div class="compare-results">
                <CompareTable />
                <div class="compare-plots">
                    <ForestPlot />
                    <StripPlot />
                </div>
            </div>
            <CompareFlame />
        </Show>
    }
}

fn text_knob(
    state: AppState,
    label: &'static str,
    testid: &'static str,
    sig: RwSignal<String>,
    size: u32,
) -> impl IntoView {
    view! {
        <label>
            {label}
            <input
                type="text"
                data-testid=testid
                size=size
                spellcheck="false"
                prop:value=move || sig.get()
                on:change=move |ev| {
                    sig.set(event_target_value(&ev));
                    request_compare(state);
                }
            />
        </label>
    }
}

#[component]
fn Controls() -> impl IntoView {
    let state = expect_context::<AppState>();
    let cs = state.compare;
    view! {
        <section class="controls compare-controls">
            <div>
                {text_knob(state, "Baseline files (glob): ", "compare-baseline", cs.baseline, 22)}
                {text_knob(state, " Candidate files (glob): ", "compare-candidate", cs.candidate, 22)}
                <span class="muted">
                    " (* any characters, ? one; matched against file names. Both empty: the variant column, when it has exactly two labels)"
                </span>
            </div>
            <div>
                <label>
                    "Metric: "
                    {super::metric_select("compare-metric", cs.metric, move || request_compare(state))}
                </label>
                " Practical gate: "
                {text_knob(state, "|ratio − 1| ≥ ", "compare-ratio", cs.ratio_pct, 4)}
                " % and "
                {text_knob(state, "|shift| ≥ ", "compare-shift", cs.shift_ms, 4)}
                " ms; "
                {text_knob(state, "floor (pooled median) ", "compare-floor", cs.floor_ms, 4)}
                " ms"
                <span class="muted">{move || cs.busy.get().then_some(" comparing…")}</span>
                <span class="error" data-testid="compare-error">{move || cs.error.get()}</span>
            </div>
        </section>
    }
}

/// Which trials are on which side, the statement and the warnings.
#[component]
fn Sides() -> impl IntoView {
    let state = expect_context::<AppState>();
    let cs = state.compare;
    let body = move || {
        let Some(o) = cs.outcome.get() else {
            return view! {
                <p class="muted" data-testid="compare-empty">
                    "Drop the trials of both sides (at least 3 per side), then name each side by a file-name pattern or a variant label."
                </p>
            }
            .into_any();
        };
        let r = &o.report;
        let side_list = |want: Side| {
            r.trials
                .iter()
                .filter(|t| t.side == Some(want))
                .map(|t| {
                    let note = t
                        .exclusion_reason
                        .clone()
                        .or_else(|| t.excluded.then(|| "excluded".to_string()));
                    view! {
                        <li data-testid="compare-trial" data-side=want.as_str()>
                            {t.path.clone()}
                            {note.map(|n| view! { <span class="muted">" (" {n} ")"</span> })}
                        </li>
                    }
                })
                .collect_view()
        };
        let neither = r.trials.iter().filter(|t| t.side.is_none()).count();
        let warnings: Vec<String> = o
            .warnings
            .iter()
            .chain(&r.warnings)
            .cloned()
            .chain(
                r.failed_imports
                    .iter()
                    .map(|f| format!("{f}: could not be imported")),
            )
            .collect();
        view! {
            <p
                data-testid="compare-statement"
                class:error=!r.enough_trials
            >
                {r.statement.clone()}
            </p>
            <div class="compare-sides">
                <div>
                    <strong>{format!("Baseline: {} trial(s)", r.baseline_trials)}</strong>
                    <ul data-testid="compare-baseline-trials">{side_list(Side::Baseline)}</ul>
                </div>
                <div>
                    <strong>{format!("Candidate: {} trial(s)", r.candidate_trials)}</strong>
                    <ul data-testid="compare-candidate-trials">{side_list(Side::Candidate)}</ul>
                </div>
            </div>
            {(neither > 0).then(|| view! {
                <p class="muted">{format!("{neither} trial(s) on neither side.")}</p>
            })}
            <ul class="warnings" data-testid="compare-warnings">
                {warnings.into_iter().map(|w| view! { <li>"⚠ " {w}</li> }).collect_view()}
            </ul>
        }
        .into_any()
    };
    view! { <section class="compare-side-list">{body}</section> }
}

fn family_text(r: &Report) -> String {
    r.families
        .iter()
        .map(|f| {
            let floor = if f.metric == Metric::Count {
                format!("{} slices", f.floor)
            } else {
                format!("{} ms", f.floor / 1e6)
            };
            format!(
                "{} frame(s) tested (family for BH: pooled median ≥ {floor}), {} below the floor; {} slower, {} faster, {} no change, {} inconclusive",
                f.tested, f.below_floor, f.slower, f.faster, f.no_change, f.inconclusive
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[component]
fn CompareTable() -> impl IntoView {
    let state = expect_context::<AppState>();
    let cs = state.compare;
    let filter = RwSignal::new(String::new());
    let verdict = RwSignal::new(String::new());
    // None = report order.
    let sort = RwSignal::new(None::<(Col, bool)>);
    let rows = Memo::new(move |_| {
        let Some(o) = cs.outcome.get() else {
            return (Vec::new(), 0);
        };
        let f = filter.get().to_lowercase();
        let v = verdict.get();
        let mut idx: Vec<usize> = o
            .report
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| v.is_empty() || r.verdict.as_str() == v)
            .filter(|(_, r)| {
                f.is_empty()
                    || r.frame.name.to_lowercase().contains(&f)
                    || r.frame.category.to_lowercase().contains(&f)
                    || r.frame
                        .file
                        .as_deref()
                        .is_some_and(|s| s.to_lowercase().contains(&f))
            })
            .map(|(i, _)| i)
            .collect();
        if let Some((col, desc)) = sort.get() {
            let rs = &o.report.rows;
            idx.sort_by(|&a, &b| {
                let o = if col == Col::Name {
                    rs[a].frame.name.cmp(&rs[b].frame.name)
                } else {
                    // Missing values last in either direction.
                    let (x, y) = (sort_key(&rs[a], col), sort_key(&rs[b], col));
                    match (x.is_nan(), y.is_nan()) {
                        (true, true) => std::cmp::Ordering::Equal,
                        (true, false) => return std::cmp::Ordering::Greater,
                        (false, true) => return std::cmp::Ordering::Less,
                        _ => x.total_cmp(&y),
                    }
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
    let header = move |label: String, col: Col, first_desc: bool| {
        view! {
            <th
                class="sortable"
                data-testid="compare-sort"
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
    let unit = move || {
        cs.outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.report.rows.first().map(|r| r.unit.clone()))
                .unwrap_or_else(|| "ns".into())
        })
    };
    let body = move || {
        let Some(o) = cs.outcome.get() else {
            return ().into_any();
        };
        let (idx, _) = rows.get();
        idx.into_iter()
            .map(|i| table_row(state, &o.report.rows[i]))
            .collect_view()
            .into_any()
    };
    let heads = move || {
        let u = unit_label(&unit()).to_string();
        view! {
            <tr>
                {header("frame".into(), Col::Name, false)}
                {header(format!("baseline median ({u})"), Col::Base, true)}
                {header(format!("candidate median ({u})"), Col::Cand, true)}
                {header("ratio [CI]".into(), Col::Ratio, true)}
                {header(format!("shift ({u}) [CI]"), Col::Shift, true)}
                {header("p".into(), Col::P, false)}
                {header("q".into(), Col::Q, false)}
                {header("verdict".into(), Col::Verdict, false)}
            </tr>
        }
    };
    view! {
        <section class="compare-table">
            <h2>"Comparison: candidate vs baseline per frame"</h2>
            <p class="muted" data-testid="compare-family">
                {move || cs.outcome.with(|o| o.as_ref().map(|o| family_text(&o.report)))}
            </p>
            <div class="table-tools">
                <input
                    type="search"
                    data-testid="compare-filter"
                    placeholder="filter by name, category, file"
                    prop:value=move || filter.get()
                    on:input=move |ev| filter.set(event_target_value(&ev))
                />
                " "
                <select
                    data-testid="compare-verdict"
                    on:change=move |ev| verdict.set(event_target_value(&ev))
                >
                    <option value="">"every verdict"</option>
                    <option value="slower">"slower"</option>
                    <option value="faster">"faster"</option>
                    <option value="no change">"no change"</option>
                    <option value="inconclusive">"inconclusive"</option>
                </select>
                <span class="muted" data-testid="compare-count">
                    {move || {
                        let (idx, total) = rows.get();
                        if total > idx.len() {
                            format!(" showing {} of {total} rows", idx.len())
                        } else {
                            format!(" {total} rows")
                        }
                    }}
                </span>
            </div>
            <div class="scroll tall">
                <table class="compare" data-testid="compare-table">
                    <thead>{heads}</thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </section>
    }
}

fn table_row(state: AppState, r: &Row) -> impl IntoView {
    let cs = state.compare;
    let id = r.frame.semantic_frame_id.clone();
    let id2 = id.clone();
    let is_selected = move || cs.selected.with(|s| s.as_deref() == Some(id2.as_str()));
    let source = match (&r.frame.file, r.frame.line) {
        (Some(f), Some(l)) => format!("{f}:{l}"),
        (Some(f), None) => f.clone(),
        _ => String::new(),
    };
    let warn = (!r.warnings.is_empty()).then(|| r.warnings.join("; "));
    let verdict = r.verdict.as_str();
    let p_title = r
        .p_method
        .map(|m| format!("{m:?}"))
        .unwrap_or_else(|| r.reason.clone());
    view! {
        <tr
            data-testid="compare-row"
            data-name=r.frame.name.clone()
            data-verdict=verdict
            data-q=r.q_value.map(|q| q.to_string())
            class:selected=is_selected
            on:click=move |_| cs.selected.set(Some(id.clone()))
        >
            <td class="name">
                {r.frame.name.clone()}
                {(!source.is_empty()).then(|| view! { <span class="muted">" " {source}</span> })}
                {warn.map(|w| view! { <span class="warn" title=w>" ⚠"</span> })}
            </td>
            <td class="num">{v_text(r.baseline_median, &r.unit)}</td>
            <td class="num">{v_text(r.candidate_median, &r.unit)}</td>
            <td class="num">{ratio_text(r)}</td>
            <td class="num">{shift_text(r)}</td>
            <td class="num" title=p_title>{p_text(r.p_value)}</td>
            <td class="num" class:significant=r.q_value.is_some_and(|q| q < 0.05)>{p_text(r.q_value)}</td>
            <td class=format!("verdict verdict-{}", verdict.replace(' ', "-")) title=r.reason.clone()>
                {verdict}
            </td>
        </tr>
    }
}

/// The top frames for the forest plot: tested rows by q, then by |log ratio| descending.
fn forest_rows(r: &Report) -> Vec<&Row> {
    let mut v: Vec<&Row> = r
        .rows
        .iter()
        .filter(|x| x.tested && x.ratio.is_some_and(|v| v.is_finite() && v > 0.0))
        .collect();
    v.sort_by(|a, b| {
        let q = |x: &Row| x.q_value.unwrap_or(f64::INFINITY);
        let lr = |x: &Row| x.ratio.map_or(0.0, |v| v.ln().abs());
        q(a).total_cmp(&q(b)).then(lr(b).total_cmp(&lr(a)))
    });
    v.truncate(FOREST_ROWS);
    v
}

/// The forest plot's rows, geometry and height (px) for `r`; `None` when no frame was tested.
fn forest_parts(r: &Report) -> Option<(Vec<&Row>, Area, f64, crate::plot::compare::Forest)> {
    let rows = forest_rows(r);
    if rows.is_empty() {
        return None;
    }
    let items: Vec<ForestItem> = rows
        .iter()
        .map(|r| ForestItem {
            label: r.frame.name.chars().take(32).collect(),
            estimate: r.ratio.unwrap_or(f64::NAN),
            low: r.ratio_ci_low,
            high: r.ratio_ci_high,
            highlight: matches!(r.verdict, Verdict::Slower | Verdict::Faster),
        })
        .collect();
    let area = Area {
        left: 230.0,
        top: 8.0,
        right: 600.0,
        bottom: 8.0 + 22.0 * items.len() as f64,
    };
    let height = area.bottom + 40.0;
    let f = forest(&items, &area);
    Some((rows, area, height, f))
}

/// The hover text of a forest row.
fn forest_title(r: &Row) -> String {
    format!(
        "{} — ratio {}, {}, q {}",
        r.frame.name,
        ratio_text(r),
        r.verdict.as_str(),
        p_text(r.q_value)
    )
}

const FOREST_AXIS: &str = "ratio of medians, candidate / baseline (log scale; 1 = no change)";

/// The forest plot of `r` as a standalone SVG document (what the page draws).
fn forest_svg(r: &Report) -> Option<String> {
    let (rows, _, height, f) = forest_parts(r)?;
    let titles: Vec<String> = rows.iter().map(|r| forest_title(r)).collect();
    Some(crate::report::svg_compare::forest(
        &f,
        &titles,
        620.0,
        height,
        FOREST_AXIS,
        &format!("Forest plot: top {FOREST_ROWS} tested frames by q"),
    ))
}

#[component]
fn ForestPlot() -> impl IntoView {
    let state = expect_context::<AppState>();
    let cs = state.compare;
    let plot = move || {
        let o = cs.outcome.get()?;
        let Some((rows, area, height, f)) = forest_parts(&o.report) else {
            return Some(
                view! { <p class="muted">"No frame was tested: nothing for the forest plot."</p> }
                    .into_any(),
            );
        };
        let marks = f
            .rows
            .iter()
            .map(|fr| {
                let r = rows[fr.item];
                let id = r.frame.semantic_frame_id.clone();
                let title = forest_title(r);
                let cls = format!("forest-row verdict-{}", r.verdict.as_str().replace(' ', "-"));
                view! {
                    <g class=cls data-testid="forest-row" on:click=move |_| cs.selected.set(Some(id.clone()))>
                        <title>{title}</title>
                        {chart::text(&fr.label, None)}
                        {fr.ci.map(|l| view! { <line class="ci" x1=l.x1 x2=l.x2 y1=l.y1 y2=l.y2></line> })}
                        {fr.x.map(|x| view! { <circle class:highlight=fr.highlight cx=x cy=fr.y r="4"></circle> })}
                    </g>
                }
            })
            .collect_view();
        let reference = f
            .reference
            .map(|l| view! { <line class="reference" x1=l.x1 x2=l.x2 y1=l.y1 y2=l.y2></line> });
        Some(
            view! {
                <svg class="forest" data-testid="forest-plot" width="620" height=height
                     viewBox=format!("0 0 620 {height}") role="img"
                     aria-label="forest plot: ratio of medians (candidate / baseline) with its CI">
                    {chart::axis_ticks(&f.axis)}
                    {reference}
                    {marks}
                    <text x=area.center_x() y=height - 4.0 text-anchor="middle" class="axis-label">
                        {FOREST_AXIS}
                    </text>
                </svg>
            }
            .into_any(),
        )
    };
    let svg_text = move || {
        cs.outcome
            .with_untracked(|o| o.as_ref().and_then(|o| forest_svg(&o.report)))
    };
    view! {
        <div class="plot">
            <strong>{format!("Top {FOREST_ROWS} tested frames by q")}</strong>
            <Show when=move || cs.outcome.with(|o| o.as_ref().is_some_and(|o| !forest_rows(&o.report).is_empty()))>
                <span class="exports">
                    " download "
                    {super::export::plot_buttons(
                        ["export-forest-svg", "export-forest-png"],
                        ["forest.svg", "forest.png"],
                        svg_text,
                    )}
                </span>
            </Show>
            {plot}
        </div>
    }
}

/// What [`strip_parts`] gives.
type StripParts<'a> = (
    &'a Row,
    Vec<StripValue>,
    Area,
    crate::plot::compare::Strip,
    Vec<String>,
);

/// The strip plot of the row of frame `id` in `report`: the row, its values (baseline then
/// candidate), the plot area, the geometry and each value's hover text.
fn strip_parts<'a>(report: &'a Report, id: &str) -> Option<StripParts<'a>> {
    let r = report
        .rows
        .iter()
        .find(|r| r.frame.semantic_frame_id == id)?;
    let trial = |k: usize| {
        report
            .trials
            .get(k)
            .map_or_else(String::new, |t| t.path.clone())
    };
    let values: Vec<StripValue> = r
        .baseline_values
        .iter()
        .map(|v| (0, v))
        .chain(r.candidate_values.iter().map(|v| (1, v)))
        .map(|(g, v)| StripValue {
            group: g,
            value: v.value,
            key: v.trial,
            hollow: v.zero_filled,
        })
        .collect();
    let area = Area {
        left: 80.0,
        top: 10.0,
        right: 420.0,
        bottom: 220.0,
    };
    let s = strip(
        &values,
        &["baseline", "candidate"],
        &[r.baseline_median, r.candidate_median],
        &r.unit,
        &area,
    );
    let titles = values
        .iter()
        .map(|v| {
            format!(
                "{}: {} {}{}",
                trial(v.key),
                v_text(Some(v.value), &r.unit),
                unit_label(&r.unit),
                if v.hollow { " (frame absent: 0)" } else { "" }
            )
        })
        .collect();
    Some((r, values, area, s, titles))
}

/// The caption of the strip plot of `r`.
fn strip_caption(r: &Row) -> String {
    format!(
        "{} — {}: baseline {} vs candidate {} {} (medians, bars); ratio {}, {}",
        r.frame.name,
        r.metric.as_str(),
        v_text(r.baseline_median, &r.unit),
        v_text(r.candidate_median, &r.unit),
        unit_label(&r.unit),
        ratio_text(r),
        r.verdict.as_str()
    )
}

/// The strip plot of frame `id` as a standalone SVG document (what the page draws; the
/// caption is its title).
fn strip_svg(report: &Report, id: &str) -> Option<String> {
    let (r, _, area, s, titles) = strip_parts(report, id)?;
    Some(crate::report::svg_compare::strip(
        &s,
        &titles,
        area.rect(),
        440.0,
        250.0,
        &strip_caption(r),
    ))
}

#[component]
fn StripPlot() -> impl IntoView {
    let state = expect_context::<AppState>();
    let cs = state.compare;
    let plot = move || {
        let o = cs.outcome.get()?;
        let id = cs.selected.get()?;
        let (r, _values, area, s, titles) = strip_parts(&o.report, &id)?;
        let points = s
            .points
            .iter()
            .map(|p| {
                let title = titles.get(p.value).cloned().unwrap_or_default();
                view! {
                    <circle class="pt" class:hollow=p.hollow data-testid="strip-point" cx=p.x cy=p.y r="4">
                        <title>{title}</title>
                    </circle>
                }
            })
            .collect_view();
        let medians = s
            .medians
            .iter()
            .flatten()
            .map(|l| view! { <line class="median" x1=l.x1 x2=l.x2 y1=l.y1 y2=l.y2></line> })
            .collect_view();
        let labels = s.labels.iter().map(|l| chart::text(l, None)).collect_view();
        let caption = strip_caption(r);
        let svg_text = move || {
            let id = cs.selected.get_untracked()?;
            cs.outcome
                .with_untracked(|o| o.as_ref().and_then(|o| strip_svg(&o.report, &id)))
        };
        Some(view! {
            <div data-testid="strip-plot">
                <p>
                    <strong>{caption}</strong>
                    <span class="exports">
                        " download "
                        {super::export::plot_buttons(
                            ["export-strip-svg", "export-strip-png"],
                            ["strip.svg", "strip.png"],
                            svg_text,
                        )}
                    </span>
                </p>
                <svg class="strip" width="440" height="250" viewBox="0 0 440 250" role="img">
                    {chart::area_rect(area.rect())}
                    {chart::axis_ticks(&s.axis)}
                    {medians}
                    {points}
                    {labels}
                </svg>
                <p class="muted">"One point per trial; hollow: the trial lacks the frame (counted as 0)."</p>
            </div>
        })
    };
    view! {
        <div class="plot">
            {move || plot().map_or_else(
                || view! { <p class="muted">"Click a row for both sides' per-trial values."</p> }.into_any(),
                |v| v.into_any(),
            )}
        </div>
    }
}

#[component]
fn CompareFlame() -> impl IntoView {
    let state = expect_context::<AppState>();
    let cs = state.compare;
    let trials = move || {
        state.files.with(|f| {
            f.iter()
                .filter(|r| matches!(r.status.get(), Status::Imported(_)))
                .map(|r| (r.id, r.name.clone()))
                .collect::<Vec<_>>()
        })
    };
    let graph = move || {
        let of = cs.flame_of.get();
        if of == "trial" {
            return flame::slot_view(cs.trial_tree.get(), "trial-flame");
        }
        let Some(o) = cs.outcome.get() else {
            return ().into_any();
        };
        // One side's median tree, named after its side (its downloads are `flame-baseline.*`
        // and `flame-candidate.*`) inside a `side-flame` container.
        let (tree, testid) = match of.as_str() {
            "baseline" => (o.baseline_tree.clone(), "baseline-flame"),
            "candidate" => (o.candidate_tree.clone(), "candidate-flame"),
            _ => (o.differential_tree.clone(), "differential-flame"),
        };
        let graph = flame::slot_view(tree.map(|t| Ok(Arc::new(t))), testid);
        if testid == "differential-flame" {
            graph
        } else {
            view! { <div data-testid="side-flame">{graph}</div> }.into_any()
        }
    };
    view! {
        <section class="compare-flame">
            <h2>"Flame graph by semantic frame"</h2>
            <label>
                "Show: "
                <select
                    data-testid="flame-of"
                    on:change=move |ev| {
                        cs.flame_of.set(event_target_value(&ev));
                        if cs.flame_of.get_untracked() == "trial" {
                            request_trial_flame(state);
                        }
                    }
                >
                    <option value="differential" selected=move || cs.flame_of.get() == "differential">
                        "differential (width = baseline, colour = shift)"
                    </option>
                    <option value="baseline" selected=move || cs.flame_of.get() == "baseline">
                        "baseline (medians)"
                    </option>
                    <option value="candidate" selected=move || cs.flame_of.get() == "candidate">
                        "candidate (medians)"
                    </option>
                    <option value="trial" selected=move || cs.flame_of.get() == "trial">
                        "one trial"
                    </option>
                </select>
            </label>
            <Show when=move || cs.flame_of.get() == "trial">
                " "
                <select
                    data-testid="flame-trial"
                    on:change=move |ev| {
                        cs.flame_trial.set(event_target_value(&ev).parse().ok());
                        request_trial_flame(state);
                    }
                >
                    {move || {
                        trials()
                            .into_iter()
                            .map(|(id, name)| {
                                let sel = cs.flame_trial.get() == Some(id);
                                view! { <option value=id.to_string() selected=sel>{name}</option> }
                            })
                            .collect_view()
                    }}
                </select>
            </Show>
            {graph}
        </section>
    }
}

/// Takes the side patterns of a link (`?baseline=GLOB&candidate=GLOB`); either opens the
/// Compare tab.
pub fn from_link(state: AppState, link: &crate::session::link::Link) {
    let cs = state.compare;
    if let Some(b) = &link.baseline {
        cs.baseline.set(b.clone());
    }
    if let Some(c) = &link.candidate {
        cs.candidate.set(c.clone());
    }
    if link.baseline.is_some() || link.candidate.is_some() {
        state.tab.set(Tab::Compare);
    }
}

/// True when the Compare tab is showing (its request follows every new analysis).
pub fn active(state: AppState) -> bool {
    state.tab.get_untracked() == Tab::Compare
}
