//! The view in the URL hash (README "Links that reproduce a view"): the page keeps its
//! fragment equal to the current view ([`crate::session::viewstate`] defines the format) with
//! `history.replaceState` — no reload, no request — and a page opened with a hash applies it.
//!
//! Applying a link's view: the parts that need no file (tab, metric, sort, filter, input
//! pattern, triage thresholds, memory preset, knobs and counter mapping) at once; each input
//! override, variant label and exclusion when a trial row of that file name appears; the selected hotspot once every file the link names
//! (by artifact id) is imported and a report covering them is in. Until then the link's view is
//! *pending*: the hash is left as the link wrote it, and [`LinkFiles`] lists the files the link
//! expects, by name and short artifact id, saying which are loaded and which missing (drop them
//! again, or open the link with its `?trace=` URLs).

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use super::{request_analysis, AppState, Status, Tab};
use crate::analysis::compile_triage::Params;
use crate::analysis::scaling::{Metric, DEFAULT_INPUT_PATTERN};
use crate::session::viewstate::{ExpectedFile, ViewState, MAPPING_KINDS};

/// The memory tab's default counter-mapping texts, in [`MAPPING_KINDS`] order (as
/// [`super::memory::MemoryState::new`] fills its fields).
fn default_mapping() -> [String; 4] {
    let m = crate::analysis::collective_memory::Mapping::default();
    [
        m.device_used.join(", "),
        m.allocator_reserved.join(", "),
        m.allocator_allocated.join(", "),
        m.device_total.join(", "),
    ]
}

/// A link's view and the files it names.
#[derive(Clone, Copy)]
pub struct LinkView {
    /// The part of the link's view not applied yet; `None` once applied (or without a hash).
    pub pending: RwSignal<Option<ViewState>>,
    /// The files the link's view was made from (empty without a hash).
    pub expected: RwSignal<Vec<ExpectedFile>>,
}

impl LinkView {
    /// No link view.
    pub fn new() -> Self {
        LinkView {
            pending: RwSignal::new(None),
            expected: RwSignal::new(Vec::new()),
        }
    }
}

impl Default for LinkView {
    fn default() -> Self {
        Self::new()
    }
}

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// (name, artifact id) of every imported trial row.
fn loaded_files(state: AppState) -> Vec<ExpectedFile> {
    state.files.with(|f| {
        f.iter()
            .filter_map(|r| match r.status.get() {
                Status::Imported(s) => Some(ExpectedFile {
                    name: r.name.clone(),
                    artifact_id: s.artifact_id.clone(),
                }),
                _ => None,
            })
            .collect()
    })
}

/// The current view (tracking every signal it reads).
fn current(state: AppState) -> ViewState {
    let d = Params::default();
    let t = state.triage;
    let differs = |v: f64, def: f64| (v != def).then_some(v);
    ViewState {
        tab: match state.tab.get() {
            Tab::Scaling => None,
            Tab::Triage => Some("triage".into()),
            Tab::Memory => Some("memory".into()),
            Tab::Compare => Some("compare".into()),
        },
        metric: Some(state.metric.get()).filter(|m| *m != Metric::Inclusive),
        selected: state.selected.get(),
        sort: state.hotspot_sort.get(),
        filter: Some(state.hotspot_filter.get()).filter(|f| !f.is_empty()),
        input: Some(state.pattern.get()).filter(|p| p != DEFAULT_INPUT_PATTERN),
        overrides: state.files.with(|f| {
            f.iter()
                .filter_map(|r| r.input_edit.get().map(|v| (r.name.clone(), v)))
                .collect()
        }),
        variants: state.files.with(|f| {
            f.iter()
                .map(|r| (r.name.clone(), r.variant.get()))
                .filter(|(_, v)| !v.is_empty())
                .collect()
        }),
        excluded: state.files.with(|f| {
            f.iter()
                .filter(|r| r.excluded.get())
                .map(|r| r.name.clone())
                .collect()
        }),
        min_ratio: differs(t.min_ratio.get(), d.min_ratio),
        min_abs_s: differs(t.min_abs_s.get(), d.min_abs_s),
        load_threshold: differs(t.load_threshold.get(), d.load_threshold),
        load_per_core: Some(t.load_per_core.get()).filter(|p| *p != d.load_per_core),
        preset: Some(state.memory_preset.get()).filter(|p| p != "medium"),
        knobs: Some(state.memory_overrides.get()).filter(|k| !k.trim().is_empty()),
        mapping: {
            let now = state.memory_inputs.mapping.get();
            MAPPING_KINDS
                .iter()
                .zip(now.iter().zip(default_mapping()))
                .filter(|(_, (text, def))| **text != *def)
                .map(|(kind, (text, _))| (kind.to_string(), text.clone()))
                .collect()
        },
        baseline: Some(state.compare.baseline.get()).filter(|g| !g.is_empty()),
        candidate: Some(state.compare.candidate.get()).filter(|g| !g.is_empty()),
        files: loaded_files(state),
    }
}

/// Applies the parts of `v` that need no file.
fn apply_now(state: AppState, v: &ViewState) {
    match v.tab.as_deref() {
        Some("triage") => state.tab.set(Tab::Triage),
        Some("memory") => state.tab.set(Tab::Memory),
        Some("compare") => state.tab.set(Tab::Compare),
        _ => {}
    }
    if let Some(b) = &v.baseline {
        state.compare.baseline.set(b.clone());
    }
    if let Some(c) = &v.candidate {
        state.compare.candidate.set(c.clone());
    }
    if let Some(m) = v.metric {
        state.metric.set(m);
    }
    state.hotspot_sort.set(v.sort);
    if let Some(f) = &v.filter {
        state.hotspot_filter.set(f.clone());
    }
    if let Some(p) = &v.input {
        state.pattern.set(p.clone());
    }
    let t = state.triage;
    for (value, sig) in [
        (v.min_ratio, t.min_ratio),
        (v.min_abs_s, t.min_abs_s),
        (v.load_threshold, t.load_threshold),
    ] {
        if let Some(x) = value {
            sig.set(x);
        }
    }
    if let Some(p) = v.load_per_core {
        t.load_per_core.set(p);
    }
    if let Some(p) = &v.preset {
        state.memory_preset.set(p.clone());
    }
    if let Some(k) = &v.knobs {
        state.memory_overrides.set(k.clone());
    }
    for (kind, text) in &v.mapping {
        if let Some(i) = MAPPING_KINDS.iter().position(|k| k == kind) {
            state.memory_inputs.mapping.update(|m| m[i] = text.clone());
        }
    }
}

/// Writes `hash` into the page's URL without a reload or a request (nothing when unchanged).
fn write_hash(hash: &str) {
    let Some(w) = window() else { return };
    let loc = w.location();
    let now = loc.hash().unwrap_or_default();
    if now.strip_prefix('#').unwrap_or(&now) == hash {
        return;
    }
    let (Ok(path), Ok(search)) = (loc.pathname(), loc.search()) else {
        return;
    };
    let url = if hash.is_empty() {
        format!("{path}{search}")
    } else {
        format!("{path}{search}#{hash}")
    };
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Takes `hash` as the link's view: applies what it can at once, keeps the rest pending.
fn adopt(state: AppState, hash: &str) {
    let link = ViewState::parse(hash);
    if link != ViewState::default() {
        apply_now(state, &link);
        state.link_view.expected.set(link.files.clone());
        state.link_view.pending.set(Some(link));
    }
}

/// A kept session's view ([`super::persist`]): taken as the link's view when the page was
/// opened without one (an empty hash).
pub fn adopt_if_none(state: AppState, hash: &str) {
    let now = window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    if now.trim_start_matches('#').is_empty() {
        adopt(state, hash);
    }
}

/// The hash of the current view (not tracking).
pub fn current_hash(state: AppState) -> String {
    untrack(|| current(state)).to_hash()
}

/// Reads the page's hash, applies what it can at once and keeps the rest pending; then keeps
/// the hash equal to the view (see the module doc). Call once, after the link's `?input=`.
pub fn start(state: AppState) {
    let hash = window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    adopt(state, &hash);
    // Apply the file-bound parts as the files arrive.
    Effect::new(move |_| {
        let Some(mut v) = state.link_view.pending.get() else {
            return;
        };
        let mut changed = false;
        state.files.with(|f| {
            for r in f {
                if let Some(i) = v.overrides.iter().position(|(n, _)| *n == r.name) {
                    let (_, value) = v.overrides.remove(i);
                    if r.input_edit.get_untracked().is_none() {
                        r.input_edit.set(Some(value));
                        changed = true;
                    }
                }
                // A label the row has not been given otherwise (a `?trace=…&variant=` wins).
                if let Some(i) = v.variants.iter().position(|(n, _)| *n == r.name) {
                    let (_, label) = v.variants.remove(i);
                    if r.variant.get_untracked().is_empty() {
                        r.variant.set(label);
                        changed = true;
                    }
                }
                if let Some(i) = v.excluded.iter().position(|n| *n == r.name) {
                    v.excluded.remove(i);
                    if !r.excluded.get_untracked() {
                        r.excluded.set(true);
                        changed = true;
                    }
                }
            }
        });
        if changed {
            request_analysis(state);
        }
        let loaded = loaded_files(state);
        let ids: Vec<&str> = loaded.iter().map(|f| f.artifact_id.as_str()).collect();
        let all_there = v.missing(&ids).is_empty();
        let settled = all_there && !state.analysing.get() && !state.loading();
        let report = state.report.get();
        if settled && (report.is_some() || loaded.is_empty()) {
            if let (Some(sel), Some(r)) = (&v.selected, &report) {
                let found = r
                    .hotspots
                    .iter()
                    .any(|h| h.variant == sel.0 && h.semantic_frame_id == sel.1);
                if found {
                    state.selected.set(Some(sel.clone()));
                }
            }
            state.link_view.pending.set(None);
        } else if changed {
            state.link_view.pending.set(Some(v));
        }
    });
    // Keep the hash equal to the view once the link's view is applied.
    Effect::new(move |_| {
        // Not while files are loading: the view names every imported file, so each file
        // that arrives would write a longer hash (and the kept session's view) again — 200
        // picked trials made 200 `replaceState` calls of up to ~20 KB each, 1.4 s of the
        // page's thread and more of the browser's (2026-12-05). This reads the statuses up
        // to the first file still loading, so the hash is written when that one settles.
        if state.loading() {
            return;
        }
        let view = current(state);
        if state.link_view.pending.with(Option::is_some) {
            return;
        }
        // Written in a task of its own: the view changes with the change that shows the first
        // imported file's row, and that task is long enough already (`super::settle`).
        // Timeouts run in order, so the last view written is the last one read here.
        set_timeout(
            move || {
                let hash = view.to_hash();
                write_hash(&hash);
                super::persist::view_changed(&hash);
            },
            std::time::Duration::ZERO,
        );
    });
}

/// Which files the link's view expects and which are missing (shown while any is).
#[component]
pub fn LinkFiles() -> impl IntoView {
    let state = expect_context::<AppState>();
    let rows = move || {
        let expected = state.link_view.expected.get();
        let loaded = loaded_files(state);
        let missing: Vec<bool> = expected
            .iter()
            .map(|e| !loaded.iter().any(|l| l.artifact_id == e.artifact_id))
            .collect();
        (expected, missing)
    };
    view! {
        <Show when=move || rows().1.iter().any(|m| *m)>
            <section class="link-files" data-testid="link-files">
                <p>
                    {move || {
                        let (e, m) = rows();
                        let n = m.iter().filter(|m| **m).count();
                        format!(
                            "This link's view was made from {} file(s); {n} not loaded yet — drop them (or open the link with their ?trace= URLs) and the view is restored:",
                            e.len(),
                        )
                    }}
                </p>
                <ul>
                    {move || {
                        let (e, m) = rows();
                        e.into_iter()
                            .zip(m)
                            .map(|(f, missing)| {
                                let short: String = f.artifact_id.chars().take(12).collect();
                                view! {
                                    <li
                                        data-testid="link-file"
                                        data-state=if missing { "missing" } else { "loaded" }
                                        class:muted=!missing
                                    >
                                        {f.name.clone()}
                                        " "
                                        <span class="mono" title=f.artifact_id.clone()>{short}</span>
                                        {if missing { " — missing" } else { " — loaded" }}
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
            </section>
        </Show>
    }
}
