//! The app ⇄ worker messages and the JS-safe views they carry. All are serde types that cross
//! the worker boundary through `serde-wasm-bindgen` (file bytes travel separately, as a
//! transferred `ArrayBuffer`).

use serde::{Deserialize, Serialize};

use crate::analysis::collective_memory as cm;
use crate::analysis::compile_triage;
use crate::analysis::scaling::Report;
use crate::model::compile_record::FullKey;
use crate::model::Diagnostic;
pub use crate::workspace::{FileId, MemorySource, RankOverride, TraceFill, TrialSettings};

/// One import diagnostic, as shown in the per-file diagnostics panel: the model's own
/// [`Diagnostic`] (kind, severity, count, first offset/index, message), which crosses the
/// worker boundary as it is.
pub type DiagnosticView = Diagnostic;

/// What the trial table shows about one imported file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportSummary {
    pub id: FileId,
    /// File name (or relative path inside a dropped folder) as given.
    pub name: String,
    /// Size as dropped, bytes.
    pub size_bytes: u64,
    /// Size after decompression, bytes.
    pub decompressed_bytes: u64,
    /// `perfetto_proto` or `chrome_json`.
    pub format: String,
    /// `none`, `gzip` or `zlib`.
    pub compression: String,
    /// `sha256:` + 64 hex digits.
    pub artifact_id: String,
    /// The first 12 hex digits of the artifact id.
    pub artifact_id_short: String,
    /// Slices imported.
    pub slices: u64,
    /// Counter series imported.
    pub counters: u64,
    /// Frames (callstack frames) imported, as `trialscope inspect` counts them
    /// ([`crate::report::files::FileReport::frames`]).
    pub frames: u64,
    pub diagnostics: Vec<DiagnosticView>,
    /// True when a diagnostic reports data loss (frames it lacks count as missing).
    pub data_loss: bool,
    /// The input parsed from the file name with [`crate::analysis::scaling::DEFAULT_INPUT_PATTERN`].
    pub default_input: Option<f64>,
    /// Events read: Perfetto packets (including nested ones) or JSON trace events.
    #[serde(default)]
    pub events: u64,
    /// Tracks (threads, async tracks, counter tracks) imported.
    #[serde(default)]
    pub tracks: u64,
    /// Distributed rank: the trace's (Kineto `distributedInfo.rank`), else the file name's
    /// (`rank_from_file_name` diagnostic), else one assigned among the files of the same drop
    /// (see [`ImportSummary::rank_assigned`]).
    #[serde(default)]
    pub rank: Option<u32>,
    /// True when `rank` was assigned by the workspace ([`crate::workspace::facts`])
    /// because this PyTorch trace names none (a `rank_assigned` warning is in `diagnostics`).
    #[serde(default)]
    pub rank_assigned: bool,
    /// World size (Kineto `distributedInfo.world_size`).
    #[serde(default)]
    pub world_size: Option<u32>,
    /// Collective backend (`nccl`, `gloo`, …) when the trace says.
    #[serde(default)]
    pub backend: Option<String>,
    /// Host name: the trace's, else (JAX `perfetto_trace.json.gz`, trace-formats.md §10.5) the
    /// one named by sibling files of the same drop ([`ImportSummary::hostname_from_siblings`]).
    #[serde(default)]
    pub hostname: Option<String>,
    /// True when `hostname` was taken from the names of the files dropped beside this one
    /// ([`crate::workspace::facts::hostname_from_siblings`]).
    #[serde(default)]
    pub hostname_from_siblings: bool,
}

/// A scaling request ([`crate::workspace::ScalingRequest`]: per-trial settings, metric, input
/// pattern) with the app's sequence number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalyseRequest {
    /// Increasing number chosen by the app; echoed so stale answers can be ignored.
    pub seq: u64,
    pub request: crate::workspace::ScalingRequest,
}

/// Messages from the app to the worker (file bytes travel beside the message, see module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Import the file whose bytes accompany this message.
    Import {
        id: FileId,
        name: String,
    },
    /// To an *import worker* of the pool: load the file whose `Blob` handle accompanies this
    /// message (field `blob`) and reduce it to what a workspace keeps
    /// ([`crate::workspace::prepare`]); answered by [`FromWorker::Prepared`].
    Prepare {
        id: FileId,
        name: String,
    },
    /// To the session worker: add a file an import worker prepared; the prepared result
    /// (`Result<Prepared, String>` in its [`crate::workspace::wire`] form, as a `Blob`)
    /// accompanies this message in field `prepared`. Answered as [`ToWorker::Import`] is.
    AddPrepared {
        id: FileId,
        name: String,
    },
    Analyse(AnalyseRequest),
    /// Run the rank memory analysis (collective-memory.md) over the imported files.
    Memory(MemoryRequest),
    /// Run the A/B comparison (issue 13) over the imported traces; answered by
    /// [`FromWorker::Compared`] / [`FromWorker::CompareFailed`] ([`super::Session::compare`]).
    Compare(CompareMsg),
    /// Build one flame tree; answered by [`FromWorker::Flamed`] / [`FromWorker::FlameFailed`]
    /// ([`super::Session::flame`]).
    Flame(FlameRequest),
    /// Forget one file.
    Remove {
        id: FileId,
    },
    /// Forget every file.
    Clear,
    /// Run the compile triage ([`super::Session::triage`]).
    Triage(TriageRequest),
    /// Replace the pins by the warm medians of the records loaded now
    /// ([`compile_triage::pins_from_records`]); answered by a [`FromWorker::Triaged`].
    PinWarmMedians(TriageRequest),
    /// Pin (or explicitly re-pin) the given full keys to the warm medians of their current
    /// rows; other pins stay. Answered by a [`FromWorker::Triaged`].
    PinKeys {
        keys: Vec<FullKey>,
        request: TriageRequest,
    },
    /// Build a download from the loaded files ([`ExportKind`]); answered by a
    /// [`FromWorker::Exported`].
    Export {
        what: ExportKind,
        /// The page's current input pattern, metric and memory preset, so the report shows the
        /// view the user sees (`None`: the CLI's defaults, [`crate::report::ReportParams`]).
        #[serde(default)]
        settings: Option<ExportSettings>,
    },
    /// Forget every pin ("no pins" state). Answered by a [`FromWorker::Triaged`].
    ClearPins(TriageRequest),
    /// To an idle *import worker* that has just started: import a small generated trace and
    /// throw the result away ([`crate::formats::perfetto::synthetic`]), so V8 has tiered the
    /// import's code up to optimised machine code before the first dropped file — a wasm
    /// function that is still running does not switch tiers, and without it each worker's
    /// first file ran 2–4× slower per MB than its later ones. Answered by
    /// [`FromWorker::WarmedUp`].
    WarmUp,
    /// **Test hook** (the browser tests' only way to make the importer crash, since no real
    /// input should): the worker panics (`panic_on`) or aborts without a panic message
    /// (`abort_on`, like running out of memory) when it starts importing a file of one of these
    /// names. The page sends it only when opened with `?testhook=panic-on:<name>` or
    /// `?testhook=abort-on:<name>`; without that query it is never sent and nothing changes.
    TestHook {
        panic_on: Vec<String>,
        abort_on: Vec<String>,
        /// The session worker panics when it adds a prepared file of one of these names
        /// (`?testhook=session-panic-on:<name>`): the crash of the worker that holds the
        /// session, as opposed to an import worker's.
        #[serde(default)]
        session_panic_on: Vec<String>,
    },
}

/// Messages from the worker to the app.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker's handler is installed; work may be sent.
    Ready,
    /// The answer to [`ToWorker::WarmUp`]: its wall time, ms.
    WarmedUp { ms: f64 },
    /// Import progress of one file, fraction in [0, 1].
    Progress { id: FileId, fraction: f64 },
    /// The file imported; `import_ms` is the worker's wall time for decompress + parse +
    /// profile, in milliseconds (measured by the worker, 0 natively).
    Imported {
        summary: Box<ImportSummary>,
        import_ms: f64,
    },
    /// The file could not be read; `message` names the file and the problem.
    ImportFailed {
        id: FileId,
        name: String,
        message: String,
    },
    /// The worker panicked and is about to trap (posted by its panic hook): `id` is the file
    /// it was importing, if any, and `message` the panic's. The worker is unusable afterwards;
    /// the page replaces it (a trap without a panic, e.g. out of memory, shows only as the
    /// worker's `error` event).
    Crashed { id: Option<FileId>, message: String },
    /// An import worker's answer to [`ToWorker::Prepare`]: the prepared result accompanies it in
    /// field `prepared` (a `Blob` of [`crate::workspace::wire`] bytes), handed on to the session
    /// worker unread ([`ToWorker::AddPrepared`]).
    Prepared {
        id: FileId,
        name: String,
        /// The import worker's wasm memory when it posted this, bytes
        /// (`WebAssembly.Memory.buffer.byteLength`; a wasm memory never shrinks, so this is
        /// its peak): the pool replaces a worker whose memory grew past its threshold.
        #[serde(default)]
        wasm_memory_bytes: f64,
    },
    /// The answer to [`AnalyseRequest`] `seq`: effective input per file id, and the report
    /// (across the boundary as its `postcard` bytes, [`super::wire::bytes`]).
    Analysed {
        seq: u64,
        inputs: Vec<(FileId, Option<f64>)>,
        #[serde(with = "super::wire::bytes")]
        report: Box<Report>,
    },
    /// The first hotspots of the answer to [`AnalyseRequest`] `seq`, in report order, sent
    /// before its [`FromWorker::Analysed`] when the report is large
    /// ([`super::wire::split_report`]; the page puts them back with
    /// [`super::wire::Reassembly`]).
    AnalysedPart {
        seq: u64,
        #[serde(with = "super::wire::bytes")]
        hotspots: Vec<crate::analysis::scaling::Hotspot>,
    },
    /// The request could not be run (e.g. an invalid input pattern).
    AnalyseFailed { seq: u64, message: String },
    /// The answer to [`MemoryRequest`] `seq`.
    MemoryAnalysed { seq: u64, view: Box<MemoryView> },
    /// The memory request could not be run (an unknown preset or knob, an invalid value).
    MemoryFailed { seq: u64, message: String },
    /// Summaries of already imported files whose drop-level facts changed because another file
    /// of the same drop arrived or left (a host name from sibling file names, an assigned rank);
    /// the app replaces its summaries of these ids. See [`super::Session::take_updates`].
    Updated { summaries: Vec<ImportSummary> },
    /// The file was a compile-record file (not a trace): its counts for the record-files table.
    RecordsImported { summary: RecordFileSummary },
    /// The file was a `*pins*.json`; it replaced the session's pins.
    PinsLoaded {
        id: FileId,
        name: String,
        pins: usize,
    },
    /// The answer to a [`TriageRequest`] (or a pin command carrying one).
    Triaged { seq: u64, view: Box<TriageView> },
    /// The answer to [`CompareMsg`] `seq`: each trace's side, the comparison report and (when
    /// asked) the median trees of both sides and the differential tree.
    Compared {
        seq: u64,
        outcome: Box<crate::workspace::CompareOutcome>,
    },
    /// The comparison could not be run (e.g. no trace is loaded).
    CompareFailed { seq: u64, message: String },
    /// The answer to [`FlameRequest`] `seq` (the tree across the boundary as its `postcard`
    /// bytes, [`super::wire::bytes`]).
    Flamed {
        seq: u64,
        #[serde(with = "super::wire::bytes")]
        tree: Box<crate::analysis::flame::FlameTree>,
    },
    /// The flame tree could not be built (an unknown trial, an invalid input pattern).
    FlameFailed { seq: u64, message: String },
    /// The file was memory telemetry JSON Lines (collective-memory.md, "Telemetry records"):
    /// it feeds only the memory view (one lane per rank it holds), never the scaling analysis.
    TelemetryImported { summary: TelemetrySummary },
    /// The answer to [`ToWorker::Export`]: the file's text, or why it could not be made.
    Exported {
        what: ExportKind,
        text: Result<String, String>,
    },
    /// The file was a Parquet aggregate table that is no trial by itself (a `frames`,
    /// `frame_costs` … piece, or a `trials` piece that is no trial): it leaves the trial table.
    AggregateImported { summary: PieceSummary },
    /// What every aggregate file is now, after an aggregate file arrived or left
    /// ([`super::Session::take_aggregates`]): a key whose pieces are all present is a trial
    /// (under its `trials` piece's id), a failed or incomplete one a failure naming what is
    /// missing, every other piece a [`PieceSummary`].
    Aggregates { states: Vec<AggregateState> },
}

/// One Parquet aggregate file that is no trial row ([`FromWorker::AggregateImported`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PieceSummary {
    pub id: FileId,
    /// The file's name as dropped.
    pub name: String,
    /// The table its metadata names.
    pub table: String,
    /// The artifact key (the file name's stem).
    pub key: String,
    /// Rows in the file.
    pub rows: u64,
    /// What became of it (`frames of <path>`, `trials table missing for key …`, ignored).
    pub note: String,
}

/// What one aggregate file is now ([`FromWorker::Aggregates`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AggregateState {
    /// The `trials` piece of a complete key: the trial's row.
    Trial(Box<ImportSummary>),
    /// A `trials` piece whose trial failed or misses tables; `message` says which.
    Failed {
        id: FileId,
        name: String,
        message: String,
    },
    /// Any other piece.
    Piece(PieceSummary),
}

/// The page settings a [`ToWorker::Export`] report is made with (the CLI's `report` flags of
/// the same names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportSettings {
    /// Regex whose first capture group is each trial's numeric input.
    pub input_pattern: String,
    pub metric: crate::analysis::scaling::Metric,
    /// Memory sensitivity preset (`low`, `medium`, `high`).
    pub preset: String,
}

/// A download the worker builds from its workspace, with the CLI's own functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportKind {
    /// The self-contained HTML report of `trialscope report --html`
    /// ([`crate::report::workspace_html`], default parameters).
    Report,
    /// The per-file import reports as `trialscope inspect --json` prints them
    /// ([`crate::report::files::file_reports_json`]).
    FileReports,
}

/// A comparison request ([`crate::workspace::CompareRequest`]: per-trial settings, the rule of
/// each side, the parameters, whether to build the flame trees) with the app's sequence number.
/// When both side rules are empty, the sides come from the variant column if it holds exactly
/// two labels ([`super::compare::default_sides`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareMsg {
    /// Increasing number chosen by the app; echoed so stale answers can be ignored.
    pub seq: u64,
    pub request: crate::workspace::CompareRequest,
}

/// Which flame tree a [`FlameRequest`] asks for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "of", rename_all = "snake_case")]
pub enum FlameOf {
    /// One trace's own tree ([`crate::workspace::Workspace::flame_single`]); value = its
    /// inclusive ns.
    Trial { id: FileId },
    /// The median tree of one side of `compare` (per node, the median inclusive ns over the
    /// side's trials).
    Side {
        side: crate::analysis::compare::Side,
    },
    /// The differential tree of `compare` (width = baseline median, colour = Hodges–Lehmann
    /// shift in ns, q per node).
    Differential,
    /// The scaling tree of one variant of `scaling` (colour = Spearman ρ against the input);
    /// empty = `default`.
    Scaling { variant: String },
}

/// A flame tree request: the tree wanted, and the comparison or scaling request it is taken
/// from (`compare` for [`FlameOf::Side`] / [`FlameOf::Differential`], `scaling` for
/// [`FlameOf::Scaling`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlameRequest {
    /// Increasing number chosen by the app; echoed in the answer.
    pub seq: u64,
    pub kind: FlameOf,
    #[serde(default)]
    pub compare: Option<crate::workspace::CompareRequest>,
    #[serde(default)]
    pub scaling: Option<crate::workspace::ScalingRequest>,
}

/// What the memory tab lists about one telemetry JSON Lines file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TelemetrySummary {
    pub id: FileId,
    pub name: String,
    /// Size as dropped, bytes.
    pub size_bytes: u64,
    /// Records read (samples and markers).
    pub records: u64,
    /// The rank each part states, in part order (`None`: records without a rank).
    pub ranks: Vec<Option<u32>>,
    /// Malformed lines as `file:line: problem` (the first
    /// [`crate::formats::telemetry::MAX_BAD_LINES_KEPT`]; `diagnostics` counts them all).
    pub bad_lines: Vec<String>,
    /// The file's diagnostics (`telemetry_bad_line`, data loss, first line as `first_index`).
    pub diagnostics: Vec<DiagnosticView>,
}

/// A rank memory analysis request ([`crate::workspace::MemoryRequest`]: preset, knob
/// overrides, mapping, rank overrides) with the app's sequence number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryRequest {
    /// Increasing number chosen by the app; echoed so stale answers can be ignored.
    pub seq: u64,
    pub request: crate::workspace::MemoryRequest,
}

/// Points kept per drawn memory series (largest-triangle-three-buckets; drawing only).
pub const MEMORY_DRAW_POINTS: usize = 1500;
/// Markers kept per drawn lane (the first ones in time; the rest are counted).
pub const MEMORY_DRAW_MARKERS: usize = 4000;

/// A memory series thinned for drawing: the analysis's own [`cm::Series`] (counter name,
/// times in ns on the report's relative timeline, values in bytes) with fewer samples.
pub type DrawSeries = cm::Series;

/// The hidden-memory gap band for drawing: at each kept time, allocator-reserved (`lo`) and
/// device-used (`hi`) bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DrawBand {
    pub ts_ns: Vec<i64>,
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

/// One rank's lane of the memory view (same order as the report's `ranks`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryLane {
    pub rank: u32,
    /// File name.
    pub label: String,
    pub device_used: Option<DrawSeries>,
    pub allocator_reserved: Option<DrawSeries>,
    pub allocator_allocated: Option<DrawSeries>,
    /// Present only with both device-used and allocator-reserved series.
    pub gap: Option<DrawBand>,
    /// Collective markers `[start_ns, end_ns]` on the aligned timeline.
    pub markers: Vec<(i64, i64)>,
    /// Markers not drawn (beyond [`MEMORY_DRAW_MARKERS`]).
    pub markers_hidden: usize,
}

/// What the memory view draws: one lane per rank and the attribution report.
///
/// Every time in the view (lanes, report intervals, `trace_start_ns` = 0) is relative to
/// `origin_ns`, the job's earliest record, and clamped to ±(2^53 − 1) ns: the view crosses the
/// worker boundary as JavaScript numbers, which hold integers exactly only up to 2^53
/// (epoch-based nanoseconds do not fit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryView {
    /// The job's earliest record on the aligned timeline, ns, as decimal text.
    pub origin_ns: String,
    pub lanes: Vec<MemoryLane>,
    pub report: cm::Report,
    /// Every input (trace file or telemetry rank part), in import order, with its rank.
    #[serde(default)]
    pub sources: Vec<MemorySource>,
}

/// What the record-files table shows about one compile-record file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordFileSummary {
    pub id: FileId,
    pub name: String,
    /// Records with every identity field present and well typed.
    pub records: u64,
    /// Records of another kind sharing the folder (compile-triage.md, "Input").
    pub other_kind: u64,
    /// Records with some key fields missing or mistyped, or lines that are not JSON.
    pub malformed: u64,
}

/// A compile-triage request (compile-triage.md): thresholds and the user's key fill-ins.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TriageRequest {
    /// Echoed in [`FromWorker::Triaged`] so stale answers can be ignored.
    pub seq: u64,
    pub params: compile_triage::Params,
    /// Fill-ins per trace file (applied only where the trace says nothing).
    pub fills: Vec<TraceFill>,
}

/// One pin as shown (compile-triage.md, "Pins").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PinView {
    pub key: FullKey,
    pub key_text: String,
    /// Pinned compile time, seconds.
    pub compile_s: f64,
    pub source: String,
    /// ISO 8601, when known.
    pub source_timestamp: Option<String>,
}

/// One loaded file as the triage sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TriageSource {
    pub id: FileId,
    pub name: String,
    /// True for a trace whose compile slices became records; false for a record file.
    pub trace: bool,
    /// Usable records (trace-derived ones may still lack key fields).
    pub records: u64,
    /// Identity fields that some of this file's records lack after the fill-ins
    /// ([`compile_triage::unknown_fields`]).
    pub unknown_fields: Vec<String>,
}

/// An excluded record with the file it came from, as listed in the coverage summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExcludedView {
    /// `file:line` or `file[index]`.
    pub location: String,
    pub reason: String,
}

/// One point of the per-key chart: a record with a complete key and a compile time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChartPoint {
    /// The full key without its cache state, rendered readably (the chart's series id).
    pub series: String,
    pub cold: bool,
    /// Seconds since the Unix epoch; `None` when the record has no timestamp.
    pub unix_s: Option<f64>,
    /// Compile time, seconds.
    pub compile_s: f64,
    /// True when this row is a drift finding.
    pub drift: bool,
    /// `file:line` of the record.
    pub location: String,
}

/// Everything the triage view shows, computed in the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TriageView {
    pub report: compile_triage::Report,
    /// The pins in force (sorted by key); empty = "no pins".
    pub pins: Vec<PinView>,
    /// `pins.json` text of [`TriageView::pins`] ([`crate::formats::records::pins_to_json`]).
    pub pins_json: String,
    pub sources: Vec<TriageSource>,
    pub other_kind: Vec<ExcludedView>,
    pub malformed: Vec<ExcludedView>,
    /// Warm full keys with a pin / without one.
    pub keys_pinned: u64,
    pub keys_unpinned: u64,
    pub points: Vec<ChartPoint>,
    /// Pinned seconds per chart series (warm pins only).
    pub series_pins: Vec<(String, f64)>,
    /// True when some file was a trace without a complete key after the fill-ins.
    pub needs_fill: bool,
    /// The report as `trialscope triage --json` prints it
    /// ([`crate::workspace::Workspace::triage_document`], pretty-printed).
    #[serde(default)]
    pub document_json: String,
}

/// The chart series of a key: its text without the cache state.
pub fn series_of(k: &FullKey) -> String {
    format!(
        "{} · {} · {} · host {} · {} · {}",
        k.cell,
        k.transform,
        k.hardware,
        k.hostname,
        crate::model::compile_record::version_label(&k.jax_version),
        k.precision
    )
}
