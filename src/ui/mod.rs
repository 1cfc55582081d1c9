//! The Leptos web app (wasm32 only): page state, the bridge to the Web Worker, and a view
//! switcher. Views live in their own files: [`scaling`] (trial table, hotspots, scatter plot);
//! later views (compile triage in `triage.rs`, memory in `memory.rs`, the A/B comparison in
//! `compare.rs` with its flame graphs in `flame.rs`) are added as another
//! [`Tab`] variant, a button in [`App`]'s nav and an arm in its `match`. Around them: links
//! that open traces (`?trace=`, [`files::load_link`]), embedding in another page's iframe
//! ([`embed`]), the download buttons ([`export`]), the view kept in the URL hash
//! ([`viewstate`]) and the opt-in kept session ([`persist`]).
//!
//! Architecture Invariants: all decoding and analysis happen in the worker
//! ([`worker::start_worker`]); the page only hands files (handles, or the Blobs of the traces
//! a link names, fetched as they stream) to the workers and formats the reports it gets back
//! for download. The page fetches nothing that the site or the user's link did not name. Text from traces is only ever rendered as text nodes or attribute values. The page
//! talks to the worker only through [`bridge`], which also replaces a crashed worker so one
//! file's crash fails that file only.

pub mod aggregates;
pub mod bridge;
pub mod chart;
pub mod compare;
pub mod embed;
pub mod export;
pub mod files;
pub mod flame;
pub mod memory;
pub mod persist;
pub mod pool;
pub mod scaling;
pub mod scatter;
pub mod triage;
pub mod viewstate;
pub mod worker;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;

use crate::analysis::scaling::{Metric, Report, DEFAULT_INPUT_PATTERN};
use crate::session::{AnalyseRequest, FileId, FromWorker, ImportSummary, ToWorker, TrialSettings};

/// Import state of one dropped file.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Being read into memory by the page.
    Reading,
    /// Being downloaded (`?trace=`); the fraction when the server sent a length.
    Fetching(Option<f64>),
    /// In the worker; fraction in [0, 1].
    Importing(f64),
    Imported(Arc<ImportSummary>),
    /// The file could not be read; the message names the file and the problem.
    Failed(String),
}

impl Status {
    /// True while the file is still being read, fetched or imported (not yet imported or
    /// failed).
    pub fn is_loading(&self) -> bool {
        matches!(
            self,
            Status::Reading | Status::Fetching(_) | Status::Importing(_)
        )
    }
}

/// One row of the trial table. The per-row settings are signals of their own so editing one
/// cell does not re-render the table.
#[derive(Clone)]
pub struct FileRow {
    pub id: FileId,
    pub name: String,
    /// Size as dropped, bytes; 0 while a downloaded file's (demo, `?trace=` link) bytes are
    /// not all in: [`send_file`] sets it from the bytes handed to the import pool.
    pub size: RwSignal<f64>,
    pub status: RwSignal<Status>,
    /// The user's input text; `None` = from the file name with the pattern.
    pub input_edit: RwSignal<Option<String>>,
    pub variant: RwSignal<String>,
    pub excluded: RwSignal<bool>,
}

/// Import throughput and end-to-end timing of the latest batch of files (for the benchmark).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timing {
    /// `performance.now()` when the batch was handed to the page (ms).
    pub batch_start: Option<f64>,
    /// Milliseconds from `batch_start` to the first report after every file of the batch
    /// finished.
    pub end_to_end_ms: Option<f64>,
    /// Sums over imported files: decompressed bytes and worker import time (ms).
    pub decompressed_bytes: f64,
    pub import_ms: f64,
    pub files: usize,
    /// The first file of the batch: rows from this id on make up the batch's overall progress.
    pub batch_first: FileId,
}

/// The views of the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Scaling,
    /// Compile-drift triage ([`triage::TriageView`]).
    Triage,
    /// Rank memory timelines ([`memory`]).
    Memory,
    /// Baseline vs candidate comparison and flame graphs ([`compare`]).
    Compare,
}

/// Page state shared by the components (all signals, so it is `Copy`).
#[derive(Clone, Copy)]
pub struct AppState {
    pub files: RwSignal<Vec<FileRow>>,
    pub pattern: RwSignal<String>,
    pub metric: RwSignal<Metric>,
    pub report: RwSignal<Option<Arc<Report>>>,
    /// Effective input per file, from the latest report.
    pub inputs: RwSignal<BTreeMap<FileId, Option<f64>>>,
    pub analysis_error: RwSignal<Option<String>>,
    pub analysing: RwSignal<bool>,
    /// Selected hotspot: (variant, semantic frame id).
    pub selected: RwSignal<Option<(String, String)>>,
    pub timing: RwSignal<Timing>,
    pub demo_status: RwSignal<Option<String>>,
    pub tab: RwSignal<Tab>,
    /// State of the compile-triage view.
    pub triage: triage::TriageState,
    /// The latest memory view ([`memory`]).
    pub memory: RwSignal<Option<Arc<crate::session::MemoryView>>>,
    pub memory_error: RwSignal<Option<String>>,
    /// `low`, `medium` or `high`.
    pub memory_preset: RwSignal<String>,
    /// `knob=value` pairs separated by commas or spaces.
    pub memory_overrides: RwSignal<String>,
    /// Telemetry files, rank overrides and the counter mapping of the memory tab.
    pub memory_inputs: memory::MemoryState,
    /// The Compare tab and the flame graphs ([`compare`], [`flame`]).
    pub compare: compare::CompareState,
    /// The hotspot table's filter text and sort (column, descending; `None` = report order).
    pub hotspot_filter: RwSignal<String>,
    pub hotspot_sort: RwSignal<Option<(crate::session::viewstate::SortKey, bool)>>,
    /// The view a link's hash asks for, until it is applied ([`viewstate`]).
    pub link_view: viewstate::LinkView,
    /// Parquet aggregate pieces that are no trial row ([`aggregates`]).
    pub aggregates: aggregates::AggregatesState,
    /// Names of the files skipped because they are empty (0 bytes), in the order they came
    /// ([`send_file`]).
    pub skipped: RwSignal<Vec<String>>,
}

impl AppState {
    fn new() -> Self {
        AppState {
            files: RwSignal::new(Vec::new()),
            pattern: RwSignal::new(DEFAULT_INPUT_PATTERN.to_string()),
            metric: RwSignal::new(Metric::Inclusive),
            report: RwSignal::new(None),
            inputs: RwSignal::new(BTreeMap::new()),
            analysis_error: RwSignal::new(None),
            analysing: RwSignal::new(false),
            selected: RwSignal::new(None),
            timing: RwSignal::new(Timing::default()),
            demo_status: RwSignal::new(None),
            tab: RwSignal::new(Tab::Scaling),
            triage: triage::TriageState::new(),
            memory: RwSignal::new(None),
            memory_error: RwSignal::new(None),
            memory_preset: RwSignal::new("medium".to_string()),
            memory_overrides: RwSignal::new(String::new()),
            memory_inputs: memory::MemoryState::new(),
            compare: compare::CompareState::new(),
            hotspot_filter: RwSignal::new(String::new()),
            hotspot_sort: RwSignal::new(None),
            link_view: viewstate::LinkView::new(),
            aggregates: aggregates::AggregatesState::new(),
            skipped: RwSignal::new(Vec::new()),
        }
    }

    /// True while some file is still being read or imported.
    pub fn busy(&self) -> bool {
        self.files.with_untracked(|f| {
            f.iter()
                .any(|r| r.status.with_untracked(Status::is_loading))
        })
    }

    /// [`Self::busy`], tracked: an effect that reads it runs again as files settle. It reads
    /// the statuses up to the first file still loading.
    pub fn loading(&self) -> bool {
        self.files
            .with(|f| f.iter().any(|r| r.status.with(Status::is_loading)))
    }
}

/// The analysis request in flight and whether a newer one is wanted.
#[derive(Default)]
struct Analysis {
    in_flight: Option<u64>,
    dirty: bool,
    seq: u64,
}

thread_local! {
    static ANALYSIS: RefCell<Analysis> = RefCell::new(Analysis::default());
    /// The parts of the latest analysis answer read so far ([`FromWorker::AnalysedPart`]).
    static PARTS: RefCell<crate::session::wire::Reassembly> = RefCell::default();
    static NEXT_ID: Cell<FileId> = const { Cell::new(1) };
    static SETTLING: RefCell<Settling> = RefCell::new(Settling::default());
}

/// Least time between two batches of imported files shown ([`settle`]): 100 ms. Each batch
/// adds its rows to the trial table and the file reports, and each change makes the browser
/// lay the page out and paint it again (24–33 ms a frame with ~200 trial rows on the 2-core
/// VM, 2026-12-05), so rows arriving one per message made a frame per file.
const SETTLE_MS: f64 = 100.0;

/// Imported files not yet shown ([`settle`]).
#[derive(Default)]
struct Settling {
    queue: Vec<Arc<ImportSummary>>,
    /// `performance.now()` of the last batch shown, ms.
    last_ms: f64,
    scheduled: bool,
}

/// Shows an imported file's row in a task of its own: the next one when no batch was shown in
/// the last [`SETTLE_MS`], else with the files that arrive until then, in one batch (one
/// analysis request).
///
/// Never in the task that read the worker's message: the first file's row builds the trial
/// table, and on the 2-core VM that task (decode, rows, requests) took 16–46 ms with the
/// finished import's workers and V8's tier-up compiles running beside it (Chromium traces of
/// a 200 MB Kineto trace, 2026-12-05); the browser test recorded it at 54 and 75 ms. Each part
/// now has its own task: the message, the rows ([`flush_settled`]), the requests
/// ([`request_after_settle`]).
fn settle(state: AppState, summary: Arc<ImportSummary>) {
    let now = now_ms();
    let wait = SETTLING.with(|s| {
        let mut s = s.borrow_mut();
        s.queue.push(summary);
        if s.scheduled {
            return None;
        }
        s.scheduled = true;
        Some((s.last_ms + SETTLE_MS - now).max(0.0))
    });
    if let Some(w) = wait {
        set_timeout(
            move || flush_settled(state),
            std::time::Duration::from_micros((w * 1000.0) as u64),
        );
    }
}

/// Shows every file [`settle`] holds, then asks for the analysis and the triage in the next
/// task.
fn flush_settled(state: AppState) {
    let queue = SETTLING.with(|s| {
        let mut s = s.borrow_mut();
        s.scheduled = false;
        s.last_ms = now_ms();
        std::mem::take(&mut s.queue)
    });
    if queue.is_empty() {
        return;
    }
    for summary in queue {
        if let Some(r) = state
            .files
            .with_untracked(|f| f.iter().find(|r| r.id == summary.id).cloned())
        {
            r.status.set(Status::Imported(summary));
        }
    }
    set_timeout(
        move || request_after_settle(state),
        std::time::Duration::ZERO,
    );
}

/// The analysis and triage requests of the files [`flush_settled`] showed.
fn request_after_settle(state: AppState) {
    request_analysis(state);
    triage::request_triage(state);
}

/// Whether [`settle`] holds a summary of `id`.
fn settling(id: FileId) -> bool {
    SETTLING.with(|s| s.borrow().queue.iter().any(|q| q.id == id))
}

/// The metric `<select>` of the Scaling and Compare tabs: shows `metric`, and when the user
/// picks another sets it and calls `changed`.
pub fn metric_select(
    testid: &'static str,
    metric: RwSignal<Metric>,
    changed: impl Fn() + 'static,
) -> impl IntoView {
    let option = move |m: Metric, label: &'static str| {
        view! { <option value=m.as_str() selected=move || metric.get() == m>{label}</option> }
    };
    view! {
        <select
            data-testid=testid
            on:change=move |ev| {
                metric.set(Metric::parse(&event_target_value(&ev)).unwrap_or_default());
                changed();
            }
        >
            {option(Metric::Inclusive, "inclusive time")}
            {option(Metric::SelfTime, "self time")}
            {option(Metric::Count, "slice count")}
        </select>
    }
}

/// `performance.now()` in ms (0 when unavailable).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Posts a message without bytes to the worker (queued until it is ready).
pub fn post_to_worker(msg: &ToWorker) {
    bridge::post(msg);
}

/// Adds a row for a file about to be read and returns it (status [`Status::Reading`]).
pub fn add_file_row(state: AppState, name: String, size: f64) -> FileRow {
    let id = NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    });
    if !state.busy() {
        state.timing.update(|t| {
            *t = Timing {
                batch_start: Some(now_ms()),
                batch_first: id,
                ..Timing::default()
            }
        });
    }
    let row = FileRow {
        id,
        name,
        size: RwSignal::new(size),
        status: RwSignal::new(Status::Reading),
        input_edit: RwSignal::new(None),
        variant: RwSignal::new(String::new()),
        excluded: RwSignal::new(false),
    };
    state.files.update(|f| f.push(row.clone()));
    row
}

/// Hands a file to the import pool (its handle: the worker reads it in chunks). A file of
/// 0 bytes is not imported: its row leaves the table and the file is listed as skipped,
/// "`<name> (empty)`" ([`AppState::skipped`]), as `trialscope` skips an empty file of a folder
/// and names it, instead of failing it as an unreadable trace.
pub fn send_file(state: AppState, row: &FileRow, source: web_sys::Blob) {
    let size = source.size();
    if row.size.get_untracked() != size {
        row.size.set(size);
    }
    if size == 0.0 {
        state.files.update(|f| f.retain(|r| r.id != row.id));
        state.skipped.update(|s| s.push(row.name.clone()));
        request_analysis(state);
        return;
    }
    if bridge::stopped() {
        row.status.set(Status::Failed(format!(
            "{}: the background worker has stopped; reload the page",
            row.name
        )));
        return;
    }
    row.status.set(Status::Importing(0.0));
    bridge::post_import(row, source);
}

/// Marks a row failed on the page side (e.g. the browser could not read the file).
pub fn fail_row(state: AppState, row: &FileRow, message: String) {
    row.status.set(Status::Failed(message));
    request_analysis(state);
}

/// Removes one file from the page and the worker.
pub fn remove_file(state: AppState, id: FileId) {
    if let Some(name) = state
        .files
        .with_untracked(|f| f.iter().find(|r| r.id == id).map(|r| r.name.clone()))
    {
        persist::removed(&name);
    }
    state.files.update(|f| f.retain(|r| r.id != id));
    bridge::post(&ToWorker::Remove { id });
    request_analysis(state);
    triage::forget_file(state, id);
    memory::forget_file(state, id);
}

/// Removes every file.
pub fn clear_files(state: AppState) {
    persist::cleared();
    state.files.set(Vec::new());
    state.skipped.set(Vec::new());
    state.report.set(None);
    state.inputs.set(BTreeMap::new());
    state.selected.set(None);
    state.analysis_error.set(None);
    state.memory.set(None);
    state.memory_error.set(None);
    state.compare.outcome.set(None);
    // The batch's figures and the demo's line were about the files just removed.
    state.timing.set(Timing::default());
    state.demo_status.set(None);
    bridge::post(&ToWorker::Clear);
    triage::forget_all(state);
    memory::forget_all(state);
    aggregates::forget_all(state);
}

/// Asks the worker for a new report from the current settings. Waits while files are still
/// importing; keeps at most one request in flight (a newer one is sent when it answers).
pub fn request_analysis(state: AppState) {
    if state.busy() {
        return;
    }
    if state.tab.get_untracked() == Tab::Memory {
        memory::request_memory(state);
    }
    if compare::active(state) {
        compare::request_compare(state);
    }
    let imported = state.files.with_untracked(|f| {
        f.iter()
            .filter(|r| matches!(r.status.get_untracked(), Status::Imported(_)))
            .count()
    });
    if imported == 0 {
        state.report.set(None);
        return;
    }
    let seq = ANALYSIS.with(|b| {
        let mut b = b.borrow_mut();
        if b.in_flight.is_some() {
            b.dirty = true;
            return None;
        }
        b.seq += 1;
        b.in_flight = Some(b.seq);
        b.dirty = false;
        Some(b.seq)
    });
    let Some(seq) = seq else { return };
    let settings = state.files.with_untracked(|f| {
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
    });
    let req = AnalyseRequest {
        seq,
        request: crate::workspace::ScalingRequest {
            settings,
            metric: state.metric.get_untracked(),
            pattern: state.pattern.get_untracked(),
        },
    };
    state.analysing.set(true);
    bridge::post(&ToWorker::Analyse(req));
}

/// Handles a worker message (after [`bridge`] took readiness and crashes).
fn on_message(state: AppState, msg: FromWorker) {
    // A large report arrives in parts; only the completed answer goes on.
    let msg = match msg {
        FromWorker::AnalysedPart { .. } | FromWorker::Analysed { .. } => {
            match PARTS.with(|p| p.borrow_mut().take(msg)) {
                Some(m) => m,
                None => return,
            }
        }
        other => other,
    };
    let row_of = |id: FileId| {
        state
            .files
            .with_untracked(|f| f.iter().find(|r| r.id == id).cloned())
    };
    match msg {
        // The bridge and the import pool handle these themselves.
        FromWorker::Ready
        | FromWorker::WarmedUp { .. }
        | FromWorker::Crashed { .. }
        | FromWorker::Prepared { .. }
        | FromWorker::AnalysedPart { .. } => {}
        FromWorker::Progress { id, fraction } => {
            if let Some(r) = row_of(id) {
                r.status.set(Status::Importing(fraction));
            }
        }
        FromWorker::Imported { summary, import_ms } => {
            // A file sent again to a restarted worker counts once.
            let again = settling(summary.id)
                || row_of(summary.id)
                    .is_some_and(|r| matches!(r.status.get_untracked(), Status::Imported(_)));
            if !again {
                state.timing.update(|t| {
                    t.decompressed_bytes += summary.decompressed_bytes as f64;
                    t.import_ms += import_ms;
                    t.files += 1;
                });
            }
            settle(state, Arc::from(summary));
        }
        FromWorker::Updated { summaries } => {
            for summary in summaries {
                // A file still held by `settle` is shown with its newest summary.
                let Some(summary) = SETTLING.with(|s| {
                    match s.borrow_mut().queue.iter_mut().find(|q| q.id == summary.id) {
                        Some(q) => {
                            *q = Arc::new(summary);
                            None
                        }
                        None => Some(summary),
                    }
                }) else {
                    continue;
                };
                if let Some(r) = row_of(summary.id) {
                    // Only a summary that changed touches its row (and its file report).
                    let changed = r
                        .status
                        .with_untracked(|s| matches!(s, Status::Imported(old) if **old != summary));
                    if changed {
                        r.status.set(Status::Imported(Arc::new(summary)));
                    }
                }
            }
        }
        FromWorker::ImportFailed { id, message, .. } => {
            if let Some(r) = row_of(id) {
                // A file opened by link is named by its URL.
                let message = match files::source_url(id) {
                    Some(url) => format!("{url}: {message}"),
                    None => message,
                };
                r.status.set(Status::Failed(message));
            }
            request_analysis(state);
            triage::request_triage(state);
            embed::check(state, None);
        }
        FromWorker::Analysed {
            seq,
            inputs,
            report,
        } => {
            finish_analysis(state, seq);
            state.analysis_error.set(None);
            let ids: Vec<FileId> = inputs.iter().map(|(id, _)| *id).collect();
            state.inputs.set(inputs.into_iter().collect());
            let keep = state.selected.with_untracked(|s| {
                s.as_ref().is_some_and(|(v, id)| {
                    report
                        .hotspots
                        .iter()
                        .any(|h| &h.variant == v && &h.semantic_frame_id == id)
                })
            });
            if !keep {
                state.selected.set(
                    report
                        .hotspots
                        .first()
                        .map(|h| (h.variant.clone(), h.semantic_frame_id.clone())),
                );
            }
            let hotspots = report.hotspots.len();
            state.report.set(Some(Arc::from(report)));
            embed::check(state, Some((&ids, hotspots)));
            if !state.busy() {
                state.timing.update(|t| {
                    if let (Some(s), None) = (t.batch_start, t.end_to_end_ms) {
                        t.end_to_end_ms = Some(now_ms() - s);
                    }
                });
            }
        }
        FromWorker::AnalyseFailed { seq, message } => {
            finish_analysis(state, seq);
            state.analysis_error.set(Some(message));
        }
        // Record and pins files leave the trial table: the triage view lists them.
        FromWorker::RecordsImported { summary } => {
            state.files.update(|f| f.retain(|r| r.id != summary.id));
            triage::records_imported(state, summary);
            request_analysis(state);
            embed::check(state, None);
        }
        FromWorker::PinsLoaded { id, name, pins } => {
            state.files.update(|f| f.retain(|r| r.id != id));
            triage::pins_loaded(state, name, pins);
            request_analysis(state);
            embed::check(state, None);
        }
        FromWorker::Triaged { seq, view } => triage::triaged(state, seq, view),
        // Telemetry files leave the trial table (no scaling trial): the memory tab lists them.
        FromWorker::TelemetryImported { summary } => {
            state.files.update(|f| f.retain(|r| r.id != summary.id));
            memory::telemetry_imported(state, summary);
            request_analysis(state);
            embed::check(state, None);
        }
        FromWorker::Compared { seq, outcome } => compare::compared(state, seq, Ok(*outcome)),
        FromWorker::CompareFailed { seq, message } => compare::compared(state, seq, Err(message)),
        FromWorker::Flamed { seq, tree } => flame::flamed(seq, Ok(*tree)),
        FromWorker::FlameFailed { seq, message } => flame::flamed(seq, Err(message)),
        FromWorker::Exported { what, text } => export::exported(state, what, text),
        FromWorker::AggregateImported { summary } => {
            aggregates::piece_imported(state, summary);
            request_analysis(state);
            embed::check(state, None);
        }
        FromWorker::Aggregates { states } => aggregates::states(state, states),
        FromWorker::MemoryAnalysed { seq, view } => {
            if seq == memory::latest_seq() {
                state.memory_error.set(None);
                state.memory.set(Some(Arc::from(view)));
            }
        }
        FromWorker::MemoryFailed { seq, message } => {
            if seq == memory::latest_seq() {
                state.memory_error.set(Some(message));
            }
        }
    }
}

fn finish_analysis(state: AppState, seq: u64) {
    let again = ANALYSIS.with(|b| {
        let mut b = b.borrow_mut();
        if b.in_flight == Some(seq) {
            b.in_flight = None;
        }
        b.dirty
    });
    state.analysing.set(false);
    if again {
        request_analysis(state);
    }
}

/// No worker is left ([`bridge`]): nothing is being analysed any more.
fn analysis_stopped(state: AppState) {
    ANALYSIS.with(|a| a.borrow_mut().in_flight = None);
    state.analysing.set(false);
}

/// A new worker holds the session again ([`bridge`]): the analyses are asked again (the
/// requests in flight died with the old worker).
fn worker_restarted(state: AppState) {
    analysis_stopped(state);
    request_analysis(state);
    triage::request_triage(state);
}

/// Mounts the app into the page body (panic hook, worker, demo on first visit).
pub fn start_app() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// The page: header with the view switcher, then the selected view (with `?embed=1` only the
/// view: [`embed`]).
#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);
    bridge::start(state);
    let link = files::page_link();
    if let Some(p) = &link.input {
        state.pattern.set(p.clone());
    }
    compare::from_link(state, &link);
    if !link.embed {
        viewstate::start(state);
    }
    if link.wants_demo() {
        files::load_demo(state);
    }
    files::load_link(state, &link);
    let embedded = link.embed;
    if embedded {
        // The parent frame drives the app; no chrome (see [`embed`]).
        embed::start(state);
        if let Some(body) = web_sys::window().and_then(|w| w.document()?.body()) {
            body.set_class_name("embedded");
        }
    }
    let tab_button = move |tab: Tab, label: &'static str, testid: &'static str| {
        view! {
            <button
                class="tab"
                data-testid=testid
                class:active=move || state.tab.get() == tab
                on:click=move |_| state.tab.set(tab)
            >
                {label}
            </button>
        }
    };
    view! {
        <Show when=move || !embedded>
        <header>
            <h1>"trialscope"</h1>
            <span class="tagline">
                "Cross-trial trace analysis in your browser: nothing is uploaded."
            </span>
            <nav>
                {tab_button(Tab::Scaling, "Scaling", "tab-scaling")}
                {tab_button(Tab::Triage, "Compile triage", "tab-triage")}
                {tab_button(Tab::Memory, "Memory", "tab-memory")}
                {tab_button(Tab::Compare, "Compare", "tab-compare")}
            </nav>
        </header>
        </Show>
        <main>
            <Show when=move || !embedded>
                <files::DropZone />
                <aggregates::AggregatePieces />
                <export::WorkspaceDownloads />
                <persist::KeepSession />
                <viewstate::LinkFiles />
            </Show>
            {move || match state.tab.get() {
                Tab::Scaling => view! { <scaling::ScalingView /> }.into_any(),
                Tab::Triage => view! { <triage::TriageView /> }.into_any(),
                Tab::Memory => view! { <memory::MemoryTab /> }.into_any(),
                Tab::Compare => view! { <compare::CompareTab /> }.into_any(),
            }}
        </main>
    }
}

/// Moves the keyboard focus from the element that received `ev` (a `keydown` on a table row
/// or a plot's point) to the next sibling of the same tag (`ArrowDown` / `ArrowRight`) or the
/// previous one (`ArrowUp` / `ArrowLeft`), when there is one: the arrow-key navigation of every
/// table whose rows are focusable and of the scatter plot's points (SVG elements too).
pub(crate) fn focus_sibling_row(ev: &leptos::ev::KeyboardEvent) {
    use wasm_bindgen::JsCast;
    let Some(from) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let back = matches!(ev.key().as_str(), "ArrowUp" | "ArrowLeft");
    let step = |e: &web_sys::Element| {
        if back {
            e.previous_element_sibling()
        } else {
            e.next_element_sibling()
        }
    };
    let mut next = step(&from);
    while let Some(e) = &next {
        if e.tag_name() == from.tag_name() && e.has_attribute("tabindex") {
            break;
        }
        next = step(e);
    }
    if let Some(el) = next {
        // `focus` is on HTMLElement and SVGElement alike.
        if let Ok(f) = js_sys::Reflect::get(&el, &wasm_bindgen::JsValue::from_str("focus")) {
            if let Some(f) = f.dyn_ref::<js_sys::Function>() {
                let _ = f.call0(&el);
            }
        }
    }
}
