//! The web worker's state machine, independent of the browser so it is tested natively.
//!
//! The worker holds one [`Session`]: every imported file keeps only its
//! [`TrialProfile`] (the [`Model`]
//! is dropped right after import to save memory) plus a summary for the trial table. The app
//! sends [`ToWorker`] messages and receives [`FromWorker`] messages; both are serde types that
//! cross the worker boundary through `serde-wasm-bindgen` (file bytes travel separately, as a
//! transferred `ArrayBuffer`).
//!
//! Protocol: the worker posts [`FromWorker::Ready`] once its handler is installed; for each
//! file the app sends an import (id, name, bytes) and gets [`FromWorker::Progress`] messages
//! followed by exactly one [`FromWorker::Imported`] or [`FromWorker::ImportFailed`]; an
//! [`AnalyseRequest`] is answered by one [`FromWorker::Analysed`] (or
//! [`FromWorker::AnalyseFailed`] for a bad input pattern). Analyses follow
//! `../shared/reference/scaling.md` through [`crate::analysis::scaling::run`].
//!
//! Compile triage (`../shared/reference/compile-triage.md`): a file that is not a trace but
//! reads as a compile-record file is answered by [`FromWorker::RecordsImported`] (it is no
//! trial and no failed import); a file named `*pins*.json` ([`is_pins_name`]) replaces the pins
//! ([`FromWorker::PinsLoaded`]); a trace keeps its compile records
//! ([`crate::formats::records::compile_records_from_model`]) beside its profile. Pins move only
//! on [`ToWorker::PinWarmMedians`], [`ToWorker::PinKeys`], [`ToWorker::ClearPins`] or a pins
//! file; a [`TriageRequest`] (thresholds, the user's key fill-ins per trace) is answered by one
//! [`FromWorker::Triaged`] carrying a [`TriageView`].

use serde::{Deserialize, Serialize};

use crate::analysis::collective_memory::{self as cm, RankSeries};
use crate::analysis::compile_triage;
use crate::analysis::scaling::{
    self, compile_input_regex, input_from_name, Metric, Params, Report, Trial, TrialProfile,
};
use crate::formats::records::{self, ExcludedRecord, KeyDefaults};
use crate::formats::{self, chrome_json, telemetry, ImportOptions};
use crate::model::compile_record::{CacheState, CompileRecord, FullKey, Pin};
use crate::model::Model;
use crate::plot::downsample::lttb_series;

/// Identifies one dropped file for the lifetime of a session (assigned by the app).
pub type FileId = u32;

/// One import diagnostic, as shown in the per-file diagnostics panel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiagnosticView {
    /// Stable machine name, e.g. `end_without_begin`.
    pub kind: String,
    /// `info`, `warning`, `data_loss` or `error`.
    pub severity: String,
    pub count: u64,
    /// Byte offset in the decompressed stream of the first occurrence.
    pub first_offset: Option<u64>,
    /// Packet/event index of the first occurrence.
    pub first_index: Option<u64>,
    pub message: String,
}

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
    /// Semantic frames (matched) in the trial profile.
    pub frames: u64,
    pub diagnostics: Vec<DiagnosticView>,
    /// True when a diagnostic reports data loss (frames it lacks count as missing).
    pub data_loss: bool,
    /// The input parsed from the file name with [`scaling::DEFAULT_INPUT_PATTERN`].
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
    /// True when `rank` was assigned by [`crate::formats::chrome_json::assign_missing_ranks`]
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
    /// ([`crate::formats::chrome_json::hostname_from_siblings`]).
    #[serde(default)]
    pub hostname_from_siblings: bool,
}

/// Per-trial settings edited in the trial table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialSettings {
    pub id: FileId,
    /// The user's input value; `None` = take it from the file name with the request's pattern.
    pub input_override: Option<f64>,
    /// Variant label; empty means `default`.
    pub variant: String,
    /// Excluded whole (e.g. a warm-up trial).
    pub excluded: bool,
}

/// An analysis request: the settings of every trial to include, the metric and the input
/// pattern (a regex with one capture group, see [`scaling::compile_input_regex`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalyseRequest {
    /// Increasing number chosen by the app; echoed so stale answers can be ignored.
    pub seq: u64,
    pub settings: Vec<TrialSettings>,
    pub metric: Metric,
    pub pattern: String,
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
    Analyse(AnalyseRequest),
    /// Run the rank memory analysis (collective-memory.md) over the imported files.
    Memory(MemoryRequest),
    /// Forget one file.
    Remove {
        id: FileId,
    },
    /// Forget every file.
    Clear,
    /// Run the compile triage ([`Session::triage`]).
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
    /// Forget every pin ("no pins" state). Answered by a [`FromWorker::Triaged`].
    ClearPins(TriageRequest),
}

/// Messages from the worker to the app.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker's handler is installed; work may be sent.
    Ready,
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
    /// The answer to [`AnalyseRequest`] `seq`: effective input per file id, and the report.
    Analysed {
        seq: u64,
        inputs: Vec<(FileId, Option<f64>)>,
        report: Box<Report>,
    },
    /// The request could not be run (e.g. an invalid input pattern).
    AnalyseFailed { seq: u64, message: String },
    /// The answer to [`MemoryRequest`] `seq`.
    MemoryAnalysed { seq: u64, view: Box<MemoryView> },
    /// The memory request could not be run (an unknown preset or knob, an invalid value).
    MemoryFailed { seq: u64, message: String },
    /// Summaries of already imported files whose drop-level facts changed because another file
    /// of the same drop arrived or left (a host name from sibling file names, an assigned rank);
    /// the app replaces its summaries of these ids. See [`Session::take_updates`].
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
    /// The file was memory telemetry JSON Lines (collective-memory.md, "Telemetry records"):
    /// it feeds only the memory view (one lane per rank it holds), never the scaling analysis.
    TelemetryImported { summary: TelemetrySummary },
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
    /// [`telemetry::MAX_BAD_LINES_KEPT`]; `diagnostics` counts them all).
    pub bad_lines: Vec<String>,
    /// The file's diagnostics (`telemetry_bad_line`, data loss, first line as `first_index`).
    pub diagnostics: Vec<DiagnosticView>,
}

/// A user-set rank for one memory source: part `part` (0 for a trace; the index in
/// [`TelemetrySummary::ranks`] for a telemetry file) of file `id`. It wins over the rank the
/// content or the file name states (collective-memory.md, "Rank identity").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankOverride {
    pub id: FileId,
    pub part: u32,
    pub rank: u32,
}

/// One input of the memory view as [`Session::analyse_memory`] resolved it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemorySource {
    pub id: FileId,
    /// 0 for a trace; the rank part of a telemetry file.
    pub part: u32,
    /// The lane label (file name, `name (rank r)` for a telemetry part).
    pub label: String,
    /// The rank stated by the content, else by the file name; `None` when neither says.
    pub stated_rank: Option<u32>,
    /// The rank used (the override, the stated rank, or an assigned one).
    pub rank: u32,
    /// True when a [`RankOverride`] set `rank`.
    pub overridden: bool,
    /// True for a telemetry file.
    pub telemetry: bool,
}

/// A rank memory analysis request: a preset (`low`, `medium`, `high`) and knob overrides
/// (`(knob, value)`, see [`cm::Params::with_override`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryRequest {
    /// Increasing number chosen by the app; echoed so stale answers can be ignored.
    pub seq: u64,
    pub preset: String,
    pub overrides: Vec<(String, String)>,
    /// The counter-name mapping (collective-memory.md, "Per-rank series"); `None` = the
    /// default [`cm::Mapping`].
    #[serde(default)]
    pub mapping: Option<cm::Mapping>,
    /// User-set ranks, applied before [`cm::resolve_ranks`].
    #[serde(default)]
    pub rank_overrides: Vec<RankOverride>,
}

/// Points kept per drawn memory series (largest-triangle-three-buckets; drawing only).
pub const MEMORY_DRAW_POINTS: usize = 1500;
/// Markers kept per drawn lane (the first ones in time; the rest are counted).
pub const MEMORY_DRAW_MARKERS: usize = 4000;

/// A memory series thinned for drawing: times in ns on the report's aligned timeline, bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DrawSeries {
    pub ts_ns: Vec<i64>,
    pub bytes: Vec<f64>,
}

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

/// Largest integer a JavaScript number holds exactly.
const JS_SAFE: i64 = (1 << 53) - 1;

fn js_safe(v: i64) -> i64 {
    v.clamp(-JS_SAFE, JS_SAFE)
}

fn draw_series(s: &Option<cm::Series>, offset: i64) -> Option<DrawSeries> {
    let s = s.as_ref()?;
    let ts: Vec<i64> = s
        .ts_ns
        .iter()
        .map(|t| js_safe(t.saturating_add(offset)))
        .collect();
    let (ts_ns, bytes) = lttb_series(&ts, &s.value, MEMORY_DRAW_POINTS);
    Some(DrawSeries { ts_ns, bytes })
}

fn draw_lane(label: &str, rank: u32, s: &RankSeries, offset: i64) -> MemoryLane {
    let gap = match (&s.device_used, &s.allocator_reserved) {
        (Some(u), Some(r)) => {
            let ts: Vec<i64> = u
                .ts_ns
                .iter()
                .map(|t| js_safe(t.saturating_add(offset)))
                .collect();
            let lo: Vec<f64> = u
                .ts_ns
                .iter()
                .map(|&t| r.value_at(t).unwrap_or(0.0))
                .collect();
            let gap: Vec<f64> = u
                .value
                .iter()
                .zip(&lo)
                .map(|(u, r)| (u - r).max(0.0))
                .collect();
            let idx = crate::plot::downsample::lttb(
                &ts.iter().map(|&t| t as f64).collect::<Vec<_>>(),
                &gap,
                MEMORY_DRAW_POINTS,
            );
            Some(DrawBand {
                ts_ns: idx.iter().map(|&i| ts[i]).collect(),
                lo: idx.iter().map(|&i| lo[i]).collect(),
                // Never below `lo`: where device-used is under reserved the gap is 0, no band.
                hi: idx.iter().map(|&i| u.value[i].max(lo[i])).collect(),
            })
        }
        _ => None,
    };
    MemoryLane {
        rank,
        label: label.to_string(),
        device_used: draw_series(&s.device_used, offset),
        allocator_reserved: draw_series(&s.allocator_reserved, offset),
        allocator_allocated: draw_series(&s.allocator_allocated, offset),
        gap,
        markers: s
            .markers
            .iter()
            .take(MEMORY_DRAW_MARKERS)
            .map(|m| {
                (
                    js_safe(m.start_ns.saturating_add(offset)),
                    js_safe(m.end_ns.saturating_add(offset)),
                )
            })
            .collect(),
        markers_hidden: s.markers.len().saturating_sub(MEMORY_DRAW_MARKERS),
    }
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

/// Key fields the user filled in for one trace's derived compile records ([`KeyDefaults`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceFill {
    pub id: FileId,
    pub defaults: KeyDefaults,
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
    /// `pins.json` text of [`TriageView::pins`] ([`records::pins_to_json`]).
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

/// Compile records of one dropped file, kept after import.
struct TriageFile {
    id: FileId,
    name: String,
    trace: bool,
    /// As read (trace-derived records are not filled in yet).
    records: Vec<CompileRecord>,
    other_kind: Vec<ExcludedRecord>,
    malformed: Vec<ExcludedRecord>,
}

/// True for a base name like `pins.json`, `baseline_pins.json`.
pub fn is_pins_name(name: &str) -> bool {
    let b = base_name(name).to_ascii_lowercase();
    b.contains("pins") && b.ends_with(".json")
}

struct Entry {
    summary: ImportSummary,
    profile: TrialProfile,
    /// Memory series, markers and phases for the rank memory view.
    memory: RankSeries,
    /// Every counter of the trace, for re-mapping ([`cm::apply_mapping`]).
    counters: Vec<cm::Series>,
    /// What the file itself says, before facts derived from the other files of its drop.
    own: OwnFacts,
}

/// The per-file facts [`Session`] derives drop-level facts from.
struct OwnFacts {
    hostname: Option<String>,
    rank: Option<u32>,
    /// A PyTorch trace without a rank (the importer's `rank_unknown` warning).
    rank_unknown: bool,
    diagnostics: Vec<DiagnosticView>,
    environment: String,
}

/// Counter samples a trace keeps for re-mapping beyond the series the default mapping picks
/// (16 bytes each: 4 MiB per file).
pub const MAX_KEPT_COUNTER_SAMPLES: usize = 1 << 18;

/// The counters a trace keeps for [`cm::apply_mapping`]: every counter the default mapping
/// classifies, then the others in model order while their samples fit in
/// [`MAX_KEPT_COUNTER_SAMPLES`]. Returns the kept ones and how many were dropped.
fn keep_counters(all: Vec<cm::Series>) -> (Vec<cm::Series>, usize) {
    let default = cm::Mapping::default();
    let mut budget = MAX_KEPT_COUNTER_SAMPLES;
    let mut dropped = 0;
    let kept = all
        .into_iter()
        .filter(|c| {
            if default.classify(&c.name).is_some() {
                return true;
            }
            if c.ts_ns.len() <= budget {
                budget -= c.ts_ns.len();
                true
            } else {
                dropped += 1;
                false
            }
        })
        .collect();
    (kept, dropped)
}

/// One imported telemetry file: per rank part, its series (default mapping) and its counters.
struct TelemetryFile {
    summary: TelemetrySummary,
    parts: Vec<(RankSeries, Vec<cm::Series>)>,
}

/// Up to the first 64 KiB of `bytes` after one gzip/zlib layer (errors end the peek): enough
/// for [`telemetry::looks_like_telemetry`] without decompressing a whole trace twice.
fn peek_head(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read;
    const HEAD: u64 = 1 << 16;
    let mut out = Vec::new();
    let r: Box<dyn Read + '_> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::MultiGzDecoder::new(bytes))
    } else if bytes.len() >= 2
        && bytes[0] == 0x78
        && (u16::from(bytes[0]) << 8 | u16::from(bytes[1])) % 31 == 0
    {
        Box::new(flate2::read::ZlibDecoder::new(bytes))
    } else {
        return bytes[..bytes.len().min(HEAD as usize)].to_vec();
    };
    let mut r = r.take(HEAD);
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    out
}

/// The imported trials of one browser session.
#[derive(Default)]
pub struct Session {
    entries: Vec<Entry>,
    /// Names of files that failed to import (listed in every report).
    failed: Vec<(FileId, String)>,
    /// Ids of earlier files whose summary changed since [`Session::take_updates`].
    updated: Vec<FileId>,
    /// Compile records of every record file and trace (compile-triage.md).
    triage: Vec<TriageFile>,
    /// The pins in force; they change only through explicit pin commands or a pins file.
    pins: Vec<Pin>,
    /// Memory telemetry files (memory view only).
    telemetry: Vec<TelemetryFile>,
}

impl Session {
    /// An empty session.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of imported trials.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no trial is imported.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Imports one file and keeps its profile. Returns [`FromWorker::Imported`] or
    /// [`FromWorker::ImportFailed`] (the message starts with the file name). `progress`
    /// receives fractions in [0, 1]. Importing an id again replaces the earlier file.
    pub fn import(
        &mut self,
        id: FileId,
        name: &str,
        bytes: &[u8],
        progress: &mut dyn FnMut(f64),
    ) -> FromWorker {
        self.remove(id);
        if is_pins_name(name) {
            return match records::parse_pins(bytes) {
                Ok(pins) => {
                    self.pins = pins;
                    self.pins.sort_by(|a, b| a.key.cmp(&b.key));
                    FromWorker::PinsLoaded {
                        id,
                        name: name.to_string(),
                        pins: self.pins.len(),
                    }
                }
                Err(e) => FromWorker::ImportFailed {
                    id,
                    name: name.to_string(),
                    message: format!("{name}: {e}"),
                },
            };
        }
        if telemetry::looks_like_telemetry(&peek_head(bytes)) {
            let out = self.import_telemetry(id, name, bytes);
            progress(1.0);
            return out;
        }
        let artifact = match formats::import_with(name, bytes, &ImportOptions::default(), progress)
        {
            Ok(a) => a,
            Err(e) => {
                // Not a trace: a compile-record file (compile-triage.md) is listed on its own.
                if let Some(msg) = self.import_records(id, name, bytes) {
                    progress(1.0);
                    return msg;
                }
                self.failed.push((id, name.to_string()));
                return FromWorker::ImportFailed {
                    id,
                    name: name.to_string(),
                    message: e.to_string(),
                };
            }
        };
        let compile_records = records::compile_records_from_model(&artifact.model, name);
        if !compile_records.is_empty() {
            self.triage.push(TriageFile {
                id,
                name: name.to_string(),
                trace: true,
                records: compile_records,
                other_kind: Vec::new(),
                malformed: Vec::new(),
            });
        }
        let profile = scaling::profile(&artifact.artifact_id, &artifact.model);
        let m = &artifact.model;
        let default_input = compile_input_regex(scaling::DEFAULT_INPUT_PATTERN)
            .ok()
            .and_then(|re| input_from_name(base_name(name), &re));
        let diagnostics = m
            .diagnostics
            .entries()
            .iter()
            .map(diagnostic_view)
            .collect::<Vec<_>>();
        let hex = artifact
            .artifact_id
            .strip_prefix("sha256:")
            .unwrap_or(&artifact.artifact_id);
        let (counters, not_kept) = keep_counters(cm::counters_from_model(&artifact.model));
        let mut summary = ImportSummary {
            id,
            name: name.to_string(),
            size_bytes: artifact.size_bytes,
            decompressed_bytes: m.stats.decompressed_bytes,
            format: artifact.format.as_str().to_string(),
            compression: format!("{:?}", artifact.compression).to_lowercase(),
            artifact_id_short: hex.chars().take(12).collect(),
            artifact_id: artifact.artifact_id.clone(),
            slices: m.slices.len() as u64,
            counters: m.counters.len() as u64,
            frames: profile.frames.len() as u64,
            diagnostics,
            data_loss: m.diagnostics.has_data_loss(),
            default_input,
            events: m.stats.events,
            tracks: m.tracks.len() as u64,
            rank: m.info.rank,
            rank_assigned: false,
            world_size: m.info.world_size,
            backend: m.info.backend.clone(),
            hostname: m.info.hostname.clone(),
            hostname_from_siblings: false,
        };
        if not_kept > 0 {
            summary.diagnostics.push(DiagnosticView {
                kind: "counters_not_kept_for_mapping".into(),
                severity: "info".into(),
                count: not_kept as u64,
                first_offset: None,
                first_index: None,
                message: format!(
                    "{not_kept} counter series beyond {MAX_KEPT_COUNTER_SAMPLES} samples were not kept for re-mapping in the memory view (the default mapping's series are kept)"
                ),
            });
        }
        let own = OwnFacts {
            hostname: m.info.hostname.clone(),
            rank: m.info.rank,
            rank_unknown: m.info.rank.is_none() && m.diagnostics.count("rank_unknown") > 0,
            diagnostics: summary.diagnostics.clone(),
            environment: profile.environment.clone(),
        };
        let memory = cm::series_from_model(&artifact.model, &cm::Mapping::default());
        // The model is dropped here: only the profile, the memory series and the summary stay.
        drop(artifact);
        self.entries.push(Entry {
            summary,
            profile,
            memory,
            counters,
            own,
        });
        self.derive_drop_facts();
        self.updated.retain(|u| *u != id);
        // The entry was pushed last and deriving never reorders entries.
        let Some(summary) = self.entries.last().map(|e| e.summary.clone()) else {
            return FromWorker::ImportFailed {
                id,
                name: name.to_string(),
                message: format!("{name}: the session lost the imported file"),
            };
        };
        FromWorker::Imported {
            summary: Box::new(summary),
            import_ms: 0.0,
        }
    }

    /// Forgets file `id` (imported or failed). Facts derived from the files of its drop are
    /// derived again (see [`Session::take_updates`]). Pins stay.
    pub fn remove(&mut self, id: FileId) {
        let before = self.entries.len();
        self.entries.retain(|e| e.summary.id != id);
        self.failed.retain(|(f, _)| *f != id);
        self.updated.retain(|u| *u != id);
        if self.entries.len() != before {
            self.derive_drop_facts();
        }
        self.triage.retain(|t| t.id != id);
        self.telemetry.retain(|t| t.summary.id != id);
    }

    /// Forgets every file. Pins stay (they move only on an explicit command).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.failed.clear();
        self.updated.clear();
        self.triage.clear();
        self.telemetry.clear();
    }

    /// Imports a memory telemetry JSON Lines file (already recognised by
    /// [`telemetry::looks_like_telemetry`]): [`FromWorker::TelemetryImported`], or
    /// [`FromWorker::ImportFailed`] for an unreadable container, an unknown schema version or
    /// a file without one record.
    fn import_telemetry(&mut self, id: FileId, name: &str, bytes: &[u8]) -> FromWorker {
        let fail = |this: &mut Self, message: String| {
            this.failed.push((id, name.to_string()));
            FromWorker::ImportFailed {
                id,
                name: name.to_string(),
                message,
            }
        };
        let data = match formats::decompress_cow(bytes, formats::DEFAULT_MAX_DECOMPRESSED) {
            Ok((_, d)) => d,
            Err(e) => return fail(self, format!("{name}: {e}")),
        };
        let t = match telemetry::import(name, &data) {
            Ok(t) => t,
            Err(e) => return fail(self, e.to_string()),
        };
        drop(data);
        let mut bad_lines: Vec<String> = t
            .bad_lines
            .iter()
            .map(|b| format!("{name}:{}: {}; line skipped", b.line, b.message))
            .collect();
        let n_bad = t.diagnostics.count("telemetry_bad_line");
        if n_bad > t.bad_lines.len() as u64 {
            bad_lines.push(format!(
                "{name}: {} more malformed lines skipped",
                n_bad - t.bad_lines.len() as u64
            ));
        }
        let parts: Vec<(RankSeries, Vec<cm::Series>)> = t
            .models
            .iter()
            .map(|m| {
                (
                    cm::series_from_model(m, &cm::Mapping::default()),
                    cm::counters_from_model(m),
                )
            })
            .collect();
        let summary = TelemetrySummary {
            id,
            name: name.to_string(),
            size_bytes: bytes.len() as u64,
            records: t.records,
            ranks: parts.iter().map(|(s, _)| s.rank).collect(),
            bad_lines,
            diagnostics: t
                .diagnostics
                .entries()
                .iter()
                .map(diagnostic_view)
                .collect(),
        };
        self.telemetry.push(TelemetryFile {
            summary: summary.clone(),
            parts,
        });
        FromWorker::TelemetryImported { summary }
    }

    /// The summary of imported file `id`, as it is now.
    pub fn summary(&self, id: FileId) -> Option<&ImportSummary> {
        self.entries
            .iter()
            .find(|e| e.summary.id == id)
            .map(|e| &e.summary)
    }

    /// [`FromWorker::Updated`] with the current summaries of the earlier files whose
    /// drop-level facts changed since the last call (by an import or a removal), in import
    /// order; `None` when none changed. The worker posts it after each import and removal.
    pub fn take_updates(&mut self) -> Option<FromWorker> {
        if self.updated.is_empty() {
            return None;
        }
        let ids = std::mem::take(&mut self.updated);
        let summaries: Vec<ImportSummary> = self
            .entries
            .iter()
            .filter(|e| ids.contains(&e.summary.id))
            .map(|e| e.summary.clone())
            .collect();
        (!summaries.is_empty()).then_some(FromWorker::Updated { summaries })
    }

    /// Derives the facts that need the other files of a drop, as the CLI does for the files
    /// of one command line. Files are of one drop when their names share the directory part
    /// (files picked together have none). Per drop: a JAX `perfetto_trace.json.gz` without a
    /// host takes it from the sibling file names
    /// ([`chrome_json::hostname_from_siblings`], trace-formats.md §10.5; the trial's
    /// environment key gains `host=…`), and PyTorch traces without a rank get distinct ranks
    /// ([`chrome_json::assign_missing_ranks`], quirk B10, with a `rank_assigned` warning).
    /// Changed earlier files are queued for [`Session::take_updates`].
    fn derive_drop_facts(&mut self) {
        let dirs: Vec<&str> = self
            .entries
            .iter()
            .map(|e| dir_name(&e.summary.name))
            .collect();
        let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
        for (i, d) in dirs.iter().enumerate() {
            match groups.iter_mut().find(|(g, _)| g == d) {
                Some((_, v)) => v.push(i),
                None => groups.push((d, vec![i])),
            }
        }
        let groups: Vec<Vec<usize>> = groups.into_iter().map(|(_, v)| v).collect();
        for members in groups {
            let siblings: Vec<String> = members
                .iter()
                .map(|&i| base_name(&self.entries[i].summary.name).to_string())
                .collect();
            let sibling_host =
                chrome_json::hostname_from_siblings(siblings.iter().map(String::as_str));
            // Rank assignment runs on stand-in models holding only the rank, so the rule
            // (smallest free numbers, in import order) stays the importer's.
            let mut stand_ins: Vec<Model> = members
                .iter()
                .map(|&i| {
                    let mut m = Model::default();
                    m.info.rank = self.entries[i].own.rank;
                    m
                })
                .collect();
            {
                let mut refs: Vec<&mut Model> = stand_ins
                    .iter_mut()
                    .zip(&members)
                    .filter(|(m, &i)| m.info.rank.is_some() || self.entries[i].own.rank_unknown)
                    .map(|(m, _)| m)
                    .collect();
                chrome_json::assign_missing_ranks(&mut refs);
            }
            for (k, &i) in members.iter().enumerate() {
                let e = &mut self.entries[i];
                let jax = base_name(&e.summary.name).ends_with("perfetto_trace.json.gz");
                let (hostname, from_siblings) = match (&e.own.hostname, &sibling_host) {
                    (Some(h), _) => (Some(h.clone()), false),
                    (None, Some(h)) if jax => (Some(h.clone()), true),
                    _ => (None, false),
                };
                let stand_in = &stand_ins[k];
                let rank = stand_in.info.rank;
                let rank_assigned = e.own.rank.is_none() && rank.is_some();
                let mut diagnostics = e.own.diagnostics.clone();
                diagnostics.extend(stand_in.diagnostics.entries().iter().map(diagnostic_view));
                let environment = match (&hostname, from_siblings) {
                    (Some(h), true) if e.own.environment.is_empty() => format!("host={h}"),
                    (Some(h), true) => format!("host={h};{}", e.own.environment),
                    _ => e.own.environment.clone(),
                };
                let s = &mut e.summary;
                let changed = s.hostname != hostname
                    || s.hostname_from_siblings != from_siblings
                    || s.rank != rank
                    || s.rank_assigned != rank_assigned
                    || s.diagnostics != diagnostics;
                if changed {
                    s.hostname = hostname;
                    s.hostname_from_siblings = from_siblings;
                    s.rank = rank;
                    s.rank_assigned = rank_assigned;
                    s.diagnostics = diagnostics;
                    e.profile.environment = environment;
                    if !self.updated.contains(&s.id) {
                        self.updated.push(s.id);
                    }
                }
            }
        }
    }

    /// Reads `bytes` as a compile-record file; `None` when they are not one (then the trace
    /// importer's error stands).
    fn import_records(&mut self, id: FileId, name: &str, bytes: &[u8]) -> Option<FromWorker> {
        let f = records::parse_records(name, bytes).ok()?;
        if f.records.is_empty() && f.other_kind.is_empty() && f.malformed.is_empty() {
            return None;
        }
        let summary = RecordFileSummary {
            id,
            name: name.to_string(),
            records: f.records.len() as u64,
            other_kind: f.other_kind.len() as u64,
            malformed: f.malformed.len() as u64,
        };
        self.triage.push(TriageFile {
            id,
            name: name.to_string(),
            trace: false,
            records: f.records,
            other_kind: f.other_kind,
            malformed: f.malformed,
        });
        Some(FromWorker::RecordsImported { summary })
    }

    /// Number of pins in force.
    pub fn pin_count(&self) -> usize {
        self.pins.len()
    }

    /// Every loaded compile record, trace-derived ones filled in with `fills`, in load order.
    fn triage_records(&self, fills: &[TraceFill]) -> Vec<CompileRecord> {
        let mut out = Vec::new();
        for t in &self.triage {
            let fill = fills.iter().find(|f| f.id == t.id && t.trace);
            for r in &t.records {
                let mut r = r.clone();
                if let Some(f) = fill {
                    f.defaults.fill(&mut r);
                }
                out.push(r);
            }
        }
        out
    }

    /// Replaces the pins with the warm medians of every loaded record
    /// ([`compile_triage::pins_from_records`]), then runs [`Session::triage`].
    pub fn pin_warm_medians(&mut self, req: &TriageRequest) -> FromWorker {
        self.pins = compile_triage::pins_from_records(&self.triage_records(&req.fills));
        self.triage(req)
    }

    /// Pins (or explicitly re-pins) `keys` to the warm medians of their loaded rows; other
    /// pins stay. A key without warm rows is left as it was. Then runs [`Session::triage`].
    pub fn pin_keys(&mut self, keys: &[FullKey], req: &TriageRequest) -> FromWorker {
        let recs: Vec<CompileRecord> = self
            .triage_records(&req.fills)
            .into_iter()
            .filter(|r| r.full_key().is_some_and(|k| keys.contains(&k)))
            .collect();
        let new = compile_triage::pins_from_records(&recs);
        self.pins.retain(|p| !new.iter().any(|n| n.key == p.key));
        self.pins.extend(new);
        self.pins.sort_by(|a, b| a.key.cmp(&b.key));
        self.triage(req)
    }

    /// Forgets every pin ("no pins"), then runs [`Session::triage`].
    pub fn clear_pins(&mut self, req: &TriageRequest) -> FromWorker {
        self.pins.clear();
        self.triage(req)
    }

    /// Runs the compile triage ([`compile_triage::run`]) over every loaded record with the
    /// pins in force, and gathers the view: coverage, excluded rows, chart points.
    pub fn triage(&self, req: &TriageRequest) -> FromWorker {
        let recs = self.triage_records(&req.fills);
        let report = compile_triage::run(&recs, &self.pins, &req.params);
        let drift: std::collections::BTreeSet<String> = report
            .findings
            .iter()
            .map(|f| f.location.to_string())
            .collect();
        let mut warm_keys = std::collections::BTreeSet::new();
        let mut points = Vec::new();
        for r in &recs {
            let (Some(k), Some(s)) = (r.full_key(), r.compile_s) else {
                continue;
            };
            if !s.is_finite() {
                continue;
            }
            let loc = r.location.to_string();
            if k.cache_state == CacheState::Warm {
                warm_keys.insert(k.clone());
            }
            points.push(ChartPoint {
                series: series_of(&k),
                cold: k.cache_state == CacheState::Cold,
                unix_s: r.timestamp.as_ref().map(|t| t.unix_ns as f64 / 1e9),
                compile_s: s,
                drift: drift.contains(&loc),
                location: loc,
            });
        }
        let keys_pinned = warm_keys
            .iter()
            .filter(|k| self.pins.iter().any(|p| &p.key == *k))
            .count() as u64;
        let excluded = |v: &Vec<ExcludedRecord>| -> Vec<ExcludedView> {
            v.iter()
                .map(|e| ExcludedView {
                    location: e.location.to_string(),
                    reason: e.reason.clone(),
                })
                .collect()
        };
        let mut other_kind = Vec::new();
        let mut malformed = Vec::new();
        let mut sources = Vec::new();
        let mut needs_fill = false;
        for t in &self.triage {
            other_kind.extend(excluded(&t.other_kind));
            malformed.extend(excluded(&t.malformed));
            let mine: Vec<CompileRecord> = recs
                .iter()
                .filter(|r| r.location.file == t.name)
                .cloned()
                .collect();
            let unknown: Vec<String> = compile_triage::unknown_fields(&mine)
                .into_iter()
                .map(str::to_string)
                .collect();
            needs_fill |= t.trace && !unknown.is_empty();
            sources.push(TriageSource {
                id: t.id,
                name: t.name.clone(),
                trace: t.trace,
                records: t.records.len() as u64,
                unknown_fields: unknown,
            });
        }
        let series_pins = self
            .pins
            .iter()
            .filter(|p| p.key.cache_state == CacheState::Warm)
            .map(|p| (series_of(&p.key), p.compile_s))
            .collect();
        FromWorker::Triaged {
            seq: req.seq,
            view: Box::new(TriageView {
                pins_json: records::pins_to_json(&self.pins),
                pins: self
                    .pins
                    .iter()
                    .map(|p| PinView {
                        key_text: p.key.to_string(),
                        key: p.key.clone(),
                        compile_s: p.compile_s,
                        source: p.source.clone(),
                        source_timestamp: p.source_timestamp.as_ref().map(|t| t.text.clone()),
                    })
                    .collect(),
                sources,
                other_kind,
                malformed,
                keys_pinned,
                keys_unpinned: warm_keys.len() as u64 - keys_pinned,
                points,
                series_pins,
                needs_fill,
                report,
            }),
        }
    }

    /// Runs the scaling analysis over the imported trials (in import order). A trial without
    /// settings in `req` keeps its defaults (input from the name, variant `default`, included).
    /// Returns [`FromWorker::Analysed`], or [`FromWorker::AnalyseFailed`] when the pattern is
    /// not a regex with exactly one capture group.
    pub fn analyse(&self, req: &AnalyseRequest) -> FromWorker {
        let re = match compile_input_regex(&req.pattern) {
            Ok(re) => re,
            Err(message) => {
                return FromWorker::AnalyseFailed {
                    seq: req.seq,
                    message,
                }
            }
        };
        let mut inputs = Vec::with_capacity(self.entries.len());
        let trials: Vec<Trial> = self
            .entries
            .iter()
            .map(|e| {
                let s = req.settings.iter().find(|s| s.id == e.summary.id);
                let input = s
                    .and_then(|s| s.input_override)
                    .or_else(|| input_from_name(base_name(&e.summary.name), &re));
                inputs.push((e.summary.id, input));
                let variant = s
                    .map(|s| s.variant.trim())
                    .filter(|v| !v.is_empty())
                    .unwrap_or("default");
                Trial {
                    path: e.summary.name.clone(),
                    input,
                    variant: variant.to_string(),
                    environment: String::new(),
                    excluded: s.is_some_and(|s| s.excluded),
                    profile: e.profile.clone(),
                }
            })
            .collect();
        let params = Params {
            metric: req.metric,
            ..Params::default()
        };
        let mut report = scaling::run(&trials, &params);
        let failed: Vec<String> = self.failed.iter().map(|(_, n)| n.clone()).collect();
        report.record_failed_imports(&failed);
        FromWorker::Analysed {
            seq: req.seq,
            inputs,
            report: Box::new(report),
        }
    }
}

impl Session {
    /// Runs the rank memory analysis (`../shared/reference/collective-memory.md`) over the
    /// imported files, one rank per file (rank from the content, else the file name, else the
    /// smallest free number with a warning), and thins the series for drawing. Returns
    /// [`FromWorker::MemoryAnalysed`], or [`FromWorker::MemoryFailed`] naming a bad preset or
    /// knob.
    pub fn analyse_memory(&self, req: &MemoryRequest) -> FromWorker {
        let failed = |message: String| FromWorker::MemoryFailed {
            seq: req.seq,
            message,
        };
        let preset: cm::Preset = match req.preset.parse() {
            Ok(p) => p,
            Err(e) => return failed(e.to_string()),
        };
        let mut params = cm::Params::preset(preset);
        for (k, v) in &req.overrides {
            params = match params.with_override(k, v) {
                Ok(p) => p,
                Err(e) => return failed(e.to_string()),
            };
        }
        let mapping = req.mapping.as_ref();
        // (id, part, telemetry, label, series, counters)
        type Raw<'a> = (FileId, u32, bool, String, &'a RankSeries, &'a [cm::Series]);
        let mut raw: Vec<Raw> = Vec::new();
        for e in &self.entries {
            let label = base_name(&e.summary.name).to_string();
            raw.push((e.summary.id, 0, false, label, &e.memory, &e.counters));
        }
        for t in &self.telemetry {
            let base = base_name(&t.summary.name);
            for (part, (s, c)) in t.parts.iter().enumerate() {
                let label = match s.rank {
                    Some(r) => format!("{base} (rank {r})"),
                    None => base.to_string(),
                };
                raw.push((t.summary.id, part as u32, true, label, s, c));
            }
        }
        let mut sources = Vec::with_capacity(raw.len());
        let mut items: Vec<(String, RankSeries)> = Vec::with_capacity(raw.len());
        for (id, part, is_tel, label, s, counters) in raw {
            let mut s = s.clone();
            if let Some(m) = mapping {
                cm::apply_mapping(&mut s, counters, m);
            }
            let stated_rank = s.rank.or_else(|| cm::rank_from_file_name(&label));
            let o = req
                .rank_overrides
                .iter()
                .find(|o| o.id == id && o.part == part);
            if let Some(o) = o {
                s.rank = Some(o.rank);
            }
            sources.push(MemorySource {
                id,
                part,
                label: label.clone(),
                stated_rank,
                rank: 0,
                overridden: o.is_some(),
                telemetry: is_tel,
            });
            items.push((label, s));
        }
        let (inputs, mut warnings) = cm::resolve_ranks(items);
        for (src, inp) in sources.iter_mut().zip(&inputs) {
            src.rank = inp.rank;
        }
        let mut report = cm::run(&inputs, &params);
        warnings.append(&mut report.warnings);
        report.warnings = warnings;
        for (_, name) in &self.failed {
            report.warnings.push(format!(
                "{name}: could not be imported; not in the memory view"
            ));
        }
        // Lanes in the report's rank order: (rank, input index), as `cm::run` sorts.
        let mut order: Vec<usize> = (0..inputs.len()).collect();
        order.sort_by_key(|&i| (inputs[i].rank, i));
        let origin = report.trace_start_ns.unwrap_or(0);
        let lanes = order
            .iter()
            .zip(&report.ranks)
            .map(|(&i, r)| {
                draw_lane(
                    &inputs[i].label,
                    inputs[i].rank,
                    &inputs[i].series,
                    r.offset_ns.saturating_sub(origin),
                )
            })
            .collect();
        for iv in &mut report.intervals {
            iv.start_ns = js_safe(iv.start_ns.saturating_sub(origin));
            iv.end_ns = js_safe(iv.end_ns.saturating_sub(origin));
        }
        for r in &mut report.ranks {
            r.offset_ns = js_safe(r.offset_ns);
        }
        let p = &mut report.params;
        p.min_gap_bytes = p.min_gap_bytes.min(JS_SAFE as u64);
        p.marker_window_ns = js_safe(p.marker_window_ns);
        p.interval_padding_ns = js_safe(p.interval_padding_ns);
        p.synchrony_window_ns = js_safe(p.synchrony_window_ns);
        report.clock.skew_ns = js_safe(report.clock.skew_ns);
        report.trace_start_ns = report.trace_start_ns.map(|_| 0);
        FromWorker::MemoryAnalysed {
            seq: req.seq,
            view: Box::new(MemoryView {
                origin_ns: origin.to_string(),
                lanes,
                report,
                sources,
            }),
        }
    }
}

/// The directory part of `name` (`""` for a bare file name): files sharing it are one drop.
pub fn dir_name(name: &str) -> &str {
    name.rfind(['/', '\\']).map_or("", |i| &name[..i])
}

fn diagnostic_view(d: &crate::model::Diagnostic) -> DiagnosticView {
    DiagnosticView {
        kind: d.kind.to_string(),
        severity: serde_json::to_value(d.severity)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("{:?}", d.severity)),
        count: d.count,
        first_offset: d.first_offset,
        first_index: d.first_index,
        message: d.message.clone(),
    }
}

/// The last path component of `name` (files dropped inside folders carry `dir/…/file`).
pub fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CORPUS: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/chromium_scaling"
    );

    fn read(name: &str) -> Vec<u8> {
        std::fs::read(format!("{CORPUS}/{name}"))
            .expect("corpus file (../shared beside the checkout)")
    }

    #[test]
    fn imports_real_trials_and_a_corrupt_file_then_finds_the_scaling_frame() {
        let mut s = Session::new();
        let mut id = 0;
        let mut progress_seen = 0;
        for n in [1000, 4000, 16000] {
            for r in 0..2 {
                let name = format!("scaling_n{n}_r{r}.pb.gz");
                let msg = s.import(id, &format!("exp/{name}"), &read(&name), &mut |f| {
                    assert!((0.0..=1.0).contains(&f));
                    progress_seen += 1;
                });
                match msg {
                    FromWorker::Imported { summary, .. } => {
                        assert_eq!(summary.format, "perfetto_proto");
                        assert_eq!(summary.compression, "gzip");
                        assert_eq!(summary.default_input, Some(n as f64));
                        assert_eq!(summary.artifact_id_short.len(), 12);
                        assert!(summary.artifact_id.starts_with("sha256:"));
                        assert!(summary.slices > 100, "{}", summary.slices);
                        assert!(summary.decompressed_bytes > summary.size_bytes);
                    }
                    other => panic!("{other:?}"),
                }
                id += 1;
            }
        }
        assert!(progress_seen >= 6 * 2);
        let bad = s.import(
            99,
            "corrupt.pftrace",
            &[0x13, 0x37, 0x00, 0xff, 0x42],
            &mut |_| {},
        );
        match bad {
            FromWorker::ImportFailed { id, name, message } => {
                assert_eq!((id, name.as_str()), (99, "corrupt.pftrace"));
                assert!(message.starts_with("corrupt.pftrace: "), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.len(), 6);

        let req = AnalyseRequest {
            seq: 7,
            settings: vec![],
            metric: Metric::Inclusive,
            pattern: scaling::DEFAULT_INPUT_PATTERN.to_string(),
        };
        let FromWorker::Analysed {
            seq,
            inputs,
            report,
        } = s.analyse(&req)
        else {
            panic!("analysis failed")
        };
        assert_eq!(seq, 7);
        assert_eq!(inputs.len(), 6);
        assert_eq!(inputs[2], (2, Some(4000.0)));
        assert_eq!(report.failed_imports, vec!["corrupt.pftrace".to_string()]);
        let h = report
            .hotspots
            .iter()
            .find(|h| h.name == "scalingBuildDom")
            .expect("scalingBuildDom is tested");
        assert!(h.spearman_rho >= 0.8, "{}", h.spearman_rho);
        assert_eq!(h.trials, 6);
        assert_eq!((h.supported_min, h.supported_max), (1000.0, 16000.0));
    }

    #[test]
    fn settings_override_inputs_exclude_trials_and_bad_patterns_fail_cleanly() {
        let mut s = Session::new();
        for (id, n) in [(1, 1000), (2, 2000), (3, 4000), (4, 8000)] {
            let name = format!("scaling_n{n}_r0.pb.gz");
            assert!(matches!(
                s.import(id, &name, &read(&name), &mut |_| {}),
                FromWorker::Imported { .. }
            ));
        }
        let req = AnalyseRequest {
            seq: 1,
            settings: vec![
                TrialSettings {
                    id: 1,
                    input_override: Some(5.0),
                    variant: String::new(),
                    excluded: false,
                },
                TrialSettings {
                    id: 4,
                    input_override: None,
                    variant: "b".into(),
                    excluded: true,
                },
            ],
            metric: Metric::Count,
            pattern: r"_n(\d+)_".into(),
        };
        let FromWorker::Analysed { inputs, report, .. } = s.analyse(&req) else {
            panic!()
        };
        assert_eq!(
            inputs,
            vec![
                (1, Some(5.0)),
                (2, Some(2000.0)),
                (3, Some(4000.0)),
                (4, Some(8000.0))
            ]
        );
        assert_eq!(report.metric, Metric::Count);
        assert!(report.trials[3].excluded);
        assert_eq!(report.trials[3].variant, "b");
        assert_eq!(report.trials[0].input, Some(5.0));
        let bad = s.analyse(&AnalyseRequest {
            pattern: "n(".into(),
            ..req.clone()
        });
        assert!(
            matches!(bad, FromWorker::AnalyseFailed { seq: 1, .. }),
            "{bad:?}"
        );
        s.remove(2);
        assert_eq!(s.len(), 3);
        s.clear();
        assert!(s.is_empty());
    }

    const PUBLIC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/public");

    fn read_public(rel: &str) -> Vec<u8> {
        std::fs::read(format!("{PUBLIC}/{rel}"))
            .expect("corpus file (../shared beside the checkout)")
    }

    fn imported(m: FromWorker) -> ImportSummary {
        match m {
            FromWorker::Imported { summary, .. } => *summary,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn pytorch_rank_files_report_rank_world_size_and_join_frames_across_trials() {
        let mut s = Session::new();
        for (id, t) in [
            (1, "trial1_coldcache"),
            (2, "trial2_warmcache"),
            (3, "trial3_cachesdisabled"),
        ] {
            let name = format!("{t}_rank0.pt.trace.json.gz");
            let sum = imported(s.import(
                id,
                &name,
                &read_public(&format!("local-pytorch/{name}")),
                &mut |_| {},
            ));
            assert_eq!(sum.format, "chrome_json");
            assert_eq!(sum.compression, "gzip");
            assert_eq!((sum.rank, sum.world_size), (Some(0), Some(2)));
            assert!(!sum.rank_assigned);
            assert_eq!(sum.hostname.as_deref(), Some("vm"));
            assert!(
                sum.events >= sum.slices && sum.slices > 500,
                "{} {}",
                sum.events,
                sum.slices
            );
            assert!(sum.tracks > 0);
            let flow = sum
                .diagnostics
                .iter()
                .find(|d| d.kind == "flow_event_not_modelled")
                .expect("flow events counted");
            assert_eq!(flow.severity, "info");
            assert!(flow.first_offset.is_some() && flow.first_index.is_some());
        }
        assert!(s.take_updates().is_none(), "nothing derived from siblings");
        let FromWorker::Analysed { inputs, report, .. } = s.analyse(&AnalyseRequest {
            seq: 1,
            settings: vec![],
            metric: Metric::Inclusive,
            pattern: r"trial(\d+)".into(),
        }) else {
            panic!()
        };
        assert_eq!(inputs, vec![(1, Some(1.0)), (2, Some(2.0)), (3, Some(3.0))]);
        assert!(report.tested_hypotheses > 0);
        assert!(
            report.hotspots.iter().any(|h| h.trials == 3),
            "no frame joined across the 3 trials"
        );
    }

    #[test]
    fn jax_trials_take_the_host_from_sibling_files_and_lose_it_when_the_sibling_goes() {
        let mut s = Session::new();
        let a = imported(s.import(
            1,
            "run/trial1_perfetto_trace.json.gz",
            &read_public("local-jax/trial1_perfetto_trace.json.gz"),
            &mut |_| {},
        ));
        assert_eq!(a.hostname, None, "JAX perfetto_trace.json.gz names no host");
        assert_eq!((a.rank, a.world_size), (None, None));
        // A file of another drop (another directory) is no sibling.
        let other = imported(s.import(
            2,
            "elsewhere/trial1_xprof.trace.json.gz",
            &read_public("local-jax/trial1_xprof.trace.json.gz"),
            &mut |_| {},
        ));
        assert_eq!(other.hostname.as_deref(), Some("trial1_xprof"));
        assert!(s.take_updates().is_none());
        let b = imported(s.import(
            3,
            "run/trial1_xprof.trace.json.gz",
            &read_public("local-jax/trial1_xprof.trace.json.gz"),
            &mut |_| {},
        ));
        assert_eq!(b.hostname.as_deref(), Some("trial1_xprof"));
        assert!(!b.hostname_from_siblings, "its own file name names it");
        let Some(FromWorker::Updated { summaries }) = s.take_updates() else {
            panic!("the JAX trace gains a host")
        };
        assert_eq!(summaries.len(), 1);
        assert_eq!(summaries[0].id, 1);
        assert_eq!(summaries[0].hostname.as_deref(), Some("trial1_xprof"));
        assert!(summaries[0].hostname_from_siblings);
        assert_eq!(
            s.entries[0].profile.environment.split(';').next(),
            Some("host=trial1_xprof")
        );
        s.remove(3);
        let Some(FromWorker::Updated { summaries }) = s.take_updates() else {
            panic!("the host goes with the sibling")
        };
        assert_eq!(
            (summaries[0].id, summaries[0].hostname.as_deref()),
            (1, None)
        );
        assert!(!s.entries[0].profile.environment.contains("host="));
    }

    #[test]
    fn pytorch_files_without_rank_get_distinct_ranks_with_a_warning() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/corpus/quirks/B10_missing_distributed_info"
        );
        let mut s = Session::new();
        let mut sums = Vec::new();
        for (id, f) in [
            (1, "worker_a.pt.trace.json"),
            (2, "worker_b.pt.trace.json"),
            (3, "rank-3.Jan_01_00_00_00.1234.pt.trace.json"),
        ] {
            let bytes = std::fs::read(format!("{dir}/{f}")).expect("quirk file");
            sums.push(imported(s.import(id, f, &bytes, &mut |_| {})));
        }
        assert_eq!(
            sums[0].rank,
            Some(0),
            "alone, the first rank-less file gets rank 0"
        );
        assert!(sums[0].rank_assigned);
        assert_eq!(sums[1].rank, Some(1));
        assert_eq!(sums[2].rank, Some(3));
        assert!(!sums[2].rank_assigned);
        for sum in &sums[..2] {
            let w = sum
                .diagnostics
                .iter()
                .find(|d| d.kind == "rank_assigned")
                .expect("warned");
            assert_eq!((w.severity.as_str(), w.count), ("warning", 1));
            assert!(sum.diagnostics.iter().any(|d| d.kind == "rank_unknown"));
        }
        assert!(
            s.take_updates().is_none(),
            "ranks 0 and 1 stay distinct from 3"
        );
        // Removing worker_a frees rank 0: worker_b moves to it.
        s.remove(1);
        let Some(FromWorker::Updated { summaries }) = s.take_updates() else {
            panic!()
        };
        assert_eq!((summaries[0].id, summaries[0].rank), (2, Some(0)));
        assert_eq!(s.summary(3).and_then(|x| x.rank), Some(3));
    }

    #[test]
    fn messages_round_trip_through_serde() {
        let m = ToWorker::Analyse(AnalyseRequest {
            seq: 3,
            settings: vec![TrialSettings {
                id: 2,
                input_override: Some(1.5),
                variant: "v".into(),
                excluded: false,
            }],
            metric: Metric::SelfTime,
            pattern: "x(\\d+)".into(),
        });
        let j = serde_json::to_string(&m).unwrap();
        assert!(j.contains("\"type\":\"analyse\""), "{j}");
        assert_eq!(serde_json::from_str::<ToWorker>(&j).unwrap(), m);
        let p = FromWorker::Progress {
            id: 1,
            fraction: 0.5,
        };
        let j = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<FromWorker>(&j).unwrap(), p);
        assert_eq!(base_name("a/b\\c.pb"), "c.pb");
    }

    fn jax(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/../shared/corpus/jax_compile/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("corpus file (../shared beside the checkout)")
    }

    fn triage_req(min_abs_s: f64) -> TriageRequest {
        TriageRequest {
            seq: 1,
            params: compile_triage::Params {
                min_abs_s,
                ..compile_triage::Params::default()
            },
            fills: vec![],
        }
    }

    fn view(m: FromWorker) -> Box<TriageView> {
        match m {
            FromWorker::Triaged { view, .. } => view,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn record_files_are_routed_to_the_triage_and_pins_come_from_the_baseline_only() {
        let mut s = Session::new();
        match s.import(1, "jax/baseline.jsonl", &jax("baseline.jsonl"), &mut |_| {}) {
            FromWorker::RecordsImported { summary } => {
                assert_eq!(summary.records, 72);
                assert_eq!((summary.other_kind, summary.malformed), (0, 0));
            }
            other => panic!("{other:?}"),
        }
        // A record file is no trial of the scaling analysis and no failed import.
        assert_eq!(s.len(), 0);
        assert!(s.failed.is_empty());
        let v = view(s.triage(&triage_req(0.05)));
        assert!(v.pins.is_empty(), "no pins until the user pins");
        assert_eq!(v.report.pins, 0);
        assert_eq!(v.keys_unpinned, 12);
        let v = view(s.pin_warm_medians(&triage_req(0.05)));
        assert_eq!(v.pins.len(), 12);
        assert_eq!(
            records::parse_pins(v.pins_json.as_bytes()).unwrap().len(),
            12
        );
        assert!(matches!(
            s.import(
                2,
                "cache_regression.jsonl",
                &jax("cache_regression.jsonl"),
                &mut |_| {}
            ),
            FromWorker::RecordsImported { .. }
        ));
        // Adding rows never moves a pin.
        let v = view(s.triage(&triage_req(0.05)));
        assert_eq!(v.pins.len(), 12);
        assert_eq!(v.report.counts["cache-regression"], 31);
        assert_eq!(v.report.findings.len(), 31);
        assert_eq!(v.points.iter().filter(|p| p.drift).count(), 31);
        assert_eq!((v.keys_pinned, v.keys_unpinned), (12, 0));
        let v = view(s.triage(&triage_req(1.0)));
        assert!(v.report.findings.is_empty());
        // A malformed line is listed with its file and line; the file still loads.
        let bad = b"{\"cell\": \"f\", \"transform\": \"jit\", \"hardware\": \"cpu\", \"compile_s\": 1.0}\n{\"kind\": \"note\"}\nnot json\n";
        match s.import(3, "odd.jsonl", bad, &mut |_| {}) {
            FromWorker::RecordsImported { summary } => {
                assert_eq!(
                    (summary.other_kind, summary.malformed),
                    (1, 2),
                    "{summary:?}"
                );
            }
            other => panic!("{other:?}"),
        }
        let v = view(s.triage(&triage_req(0.05)));
        assert!(
            v.malformed.iter().any(|m| m.location == "odd.jsonl:1"),
            "{:?}",
            v.malformed
        );
        assert!(v.malformed.iter().any(|m| m.location == "odd.jsonl:3"));
        assert_eq!(v.other_kind[0].location, "odd.jsonl:2");
        // A pins file replaces the pins; clearing them is the "no pins" state again.
        let pins_json = v.pins_json.clone();
        let v = view(s.clear_pins(&triage_req(0.05)));
        assert!(v.pins.is_empty());
        assert!(v.report.findings.is_empty());
        assert!(matches!(
            s.import(4, "my_pins.json", pins_json.as_bytes(), &mut |_| {}),
            FromWorker::PinsLoaded { pins: 12, .. }
        ));
        assert!(matches!(
            s.import(5, "bad_pins.json", b"{\"pins\": 3}", &mut |_| {}),
            FromWorker::ImportFailed { .. }
        ));
        assert_eq!(s.pin_count(), 12);
    }

    #[test]
    fn version_bump_shows_expected_recompiles_and_unpinned_keys() {
        let mut s = Session::new();
        s.import(1, "baseline.jsonl", &jax("baseline.jsonl"), &mut |_| {});
        s.pin_warm_medians(&triage_req(0.05));
        s.remove(1);
        assert_eq!(s.pin_count(), 12, "removing the file keeps the pins");
        s.import(
            2,
            "version_bump.jsonl",
            &jax("version_bump.jsonl"),
            &mut |_| {},
        );
        let v = view(s.triage(&triage_req(0.05)));
        assert_eq!(v.report.counts["expected-recompile"], 34);
        assert_eq!(v.report.findings.len(), 34);
        assert_eq!(v.report.unpinned.len(), 12);
        // Pinning the unpinned keys explicitly moves only those.
        let keys: Vec<FullKey> = v.report.unpinned.iter().map(|u| u.key.clone()).collect();
        let v = view(s.pin_keys(&keys, &triage_req(0.05)));
        assert_eq!(v.pins.len(), 24);
        assert!(v.report.unpinned.is_empty());
    }

    /// A real JAX profiler export (corpus `public/local-jax`, 3 compiles: jit_add,
    /// jit_broadcast_in_dim, jit_step) is a trial *and* feeds the triage; its records lack
    /// hardware, jax_version, precision and cache_state until the user fills them in.
    #[test]
    fn trace_compile_records_are_kept_and_filled_in_by_the_user() {
        let path = format!(
            "{}/../shared/corpus/public/local-jax/trial1_perfetto_trace.json.gz",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(path).expect("corpus file");
        let mut s = Session::new();
        assert!(matches!(
            s.import(7, "trial1_perfetto_trace.json.gz", &bytes, &mut |_| {}),
            FromWorker::Imported { .. }
        ));
        assert_eq!(s.len(), 1, "the trace is still a trial");
        let v = view(s.triage(&triage_req(1.0)));
        assert_eq!(v.sources.len(), 1);
        let src = &v.sources[0];
        assert!(src.trace);
        assert_eq!(src.records, 3);
        for f in ["hardware", "precision", "cache_state"] {
            assert!(
                src.unknown_fields.iter().any(|u| u == f),
                "{:?}",
                src.unknown_fields
            );
        }
        assert!(v.needs_fill);
        assert_eq!(v.report.warm_rows, 0);
        assert_eq!(v.report.incomplete.len(), 3);
        let mut req = triage_req(1.0);
        req.fills = vec![TraceFill {
            id: 7,
            defaults: KeyDefaults {
                hardware: Some("cpu".into()),
                hostname: Some("vm".into()),
                jax_version: Some("0.10.2".into()),
                precision: Some("fp32".into()),
                cache_state: Some(CacheState::Warm),
                transform: None,
            },
        }];
        let v = view(s.triage(&req));
        assert!(
            v.sources[0].unknown_fields.is_empty(),
            "{:?}",
            v.sources[0].unknown_fields
        );
        assert!(!v.needs_fill);
        assert_eq!(v.report.warm_rows, 3);
        assert_eq!(v.keys_unpinned, 3);
        assert_eq!(v.points.len(), 3);
        // A fill-in for another file id changes nothing here.
        req.fills[0].id = 8;
        assert_eq!(view(s.triage(&req)).report.warm_rows, 0);
        s.remove(7);
        assert!(view(s.triage(&req)).sources.is_empty());
    }
}

#[cfg(test)]
mod memory_tests {
    //! The worker side of the memory view: telemetry files, rank overrides, the mapping.
    use super::*;

    /// Telemetry JSON Lines for ranks 0–3 on an epoch clock: 200 samples 10 ms apart per rank
    /// (allocator reserved 1.5 GiB, allocated 1 GiB, device used 2 GiB unless `with_used` is
    /// false), one `nccl_all_reduce` marker per rank, and a malformed fifth line.
    fn telemetry4(with_used: bool) -> Vec<u8> {
        const GIB: u64 = 1 << 30;
        let base: u64 = 1_700_000_000_000_000_000;
        let mut out = String::new();
        for i in 0..200u64 {
            for r in 0..4u64 {
                let used = if with_used {
                    format!(",\"device_used_bytes\":{}", 2 * GIB)
                } else {
                    String::new()
                };
                out.push_str(&format!(
                    "{{\"timestamp_ns\":{},\"event_type\":\"sample\",\"rank\":{r},\"world_size\":4,\"allocator_reserved_bytes\":{},\"allocator_allocated_bytes\":{}{used}}}\n",
                    base + i * 10_000_000 + r,
                    3 * GIB / 2,
                    GIB
                ));
            }
            if i == 0 {
                out.push_str("this line is not JSON\n");
            }
        }
        for r in 0..4u64 {
            out.push_str(&format!(
                "{{\"timestamp_ns\":{},\"event_type\":\"nccl_all_reduce\",\"rank\":{r},\"duration_ns\":5000000}}\n",
                base + 1_000_000_000
            ));
        }
        out.into_bytes()
    }

    fn req(mapping: Option<cm::Mapping>, rank_overrides: Vec<RankOverride>) -> MemoryRequest {
        MemoryRequest {
            seq: 1,
            preset: "medium".into(),
            overrides: Vec::new(),
            mapping,
            rank_overrides,
        }
    }

    fn memory_view(out: FromWorker) -> MemoryView {
        match out {
            FromWorker::MemoryAnalysed { view, .. } => *view,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn gzipped_telemetry_feeds_the_memory_view_with_its_bad_line_and_no_trial() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, &telemetry4(true)).unwrap();
        let gz = enc.finish().unwrap();
        let mut s = Session::new();
        let out = s.import(3, "job/mem.jsonl.gz", &gz, &mut |_| {});
        let FromWorker::TelemetryImported { summary } = out else {
            panic!("{out:?}")
        };
        assert_eq!(summary.ranks, [Some(0), Some(1), Some(2), Some(3)]);
        assert_eq!(summary.records, 804);
        assert_eq!(summary.bad_lines.len(), 1);
        assert!(
            summary.bad_lines[0].starts_with("job/mem.jsonl.gz:5: not JSON"),
            "{:?}",
            summary.bad_lines
        );
        assert_eq!(summary.diagnostics.len(), 1);
        assert_eq!(summary.diagnostics[0].kind, "telemetry_bad_line");
        assert_eq!(summary.diagnostics[0].count, 1);
        assert_eq!(summary.diagnostics[0].first_index, Some(5));
        // Not a scaling trial.
        assert_eq!(s.len(), 0);
        let FromWorker::Analysed { report, inputs, .. } = s.analyse(&AnalyseRequest {
            seq: 1,
            settings: Vec::new(),
            metric: Metric::Inclusive,
            pattern: scaling::DEFAULT_INPUT_PATTERN.into(),
        }) else {
            panic!("analysis failed")
        };
        assert!(inputs.is_empty());
        assert!(report.hotspots.is_empty());
        // One lane per rank, with device-used memory and a marker each.
        let v = memory_view(s.analyse_memory(&req(None, Vec::new())));
        let ranks: Vec<u32> = v.lanes.iter().map(|l| l.rank).collect();
        assert_eq!(ranks, [0, 1, 2, 3]);
        assert_eq!(v.lanes[2].label, "mem.jsonl.gz (rank 2)");
        assert!(v.lanes.iter().all(|l| l.device_used.is_some()));
        assert!(v.lanes.iter().all(|l| l.markers.len() == 1));
        assert_eq!(v.sources.len(), 4);
        assert!(v.sources.iter().all(|s| s.telemetry && s.id == 3));
        s.remove(3);
        assert!(memory_view(s.analyse_memory(&req(None, Vec::new())))
            .lanes
            .is_empty());
    }

    #[test]
    fn counters_kept_for_remapping_are_bounded() {
        let series = |name: &str, n: usize| cm::Series {
            name: name.into(),
            ts_ns: (0..n as i64).collect(),
            value: vec![1.0; n],
        };
        let big = MAX_KEPT_COUNTER_SAMPLES;
        let (kept, dropped) = keep_counters(vec![
            series("GPU memory used", big + 1),
            series("cpu_freq", big - 10),
            series("fb_bytes", 20),
            series("fan_rpm", 10),
        ]);
        let names: Vec<&str> = kept.iter().map(|c| c.name.as_str()).collect();
        // The default-mapped series always; then the others while the budget lasts.
        assert_eq!(names, ["GPU memory used", "cpu_freq", "fan_rpm"]);
        assert_eq!(dropped, 1);
    }

    #[test]
    fn a_rank_override_moves_one_lane() {
        let mut s = Session::new();
        s.import(1, "mem.jsonl", &telemetry4(true), &mut |_| {});
        let v = memory_view(s.analyse_memory(&req(
            None,
            vec![RankOverride {
                id: 1,
                part: 1,
                rank: 7,
            }],
        )));
        let ranks: Vec<u32> = v.lanes.iter().map(|l| l.rank).collect();
        assert_eq!(ranks, [0, 2, 3, 7]);
        assert_eq!(v.lanes[3].label, "mem.jsonl (rank 1)");
        let src = &v.sources[1];
        assert_eq!(
            (src.stated_rank, src.rank, src.overridden),
            (Some(1), 7, true)
        );
        assert!(!v.sources[0].overridden);
        // An override of an unknown source changes nothing.
        let v = memory_view(s.analyse_memory(&req(
            None,
            vec![RankOverride {
                id: 9,
                part: 0,
                rank: 7,
            }],
        )));
        let ranks: Vec<u32> = v.lanes.iter().map(|l| l.rank).collect();
        assert_eq!(ranks, [0, 1, 2, 3]);
    }

    #[test]
    fn a_mapping_edit_changes_which_counter_is_device_used() {
        let mut s = Session::new();
        s.import(1, "mem.jsonl", &telemetry4(false), &mut |_| {});
        let v = memory_view(s.analyse_memory(&req(None, Vec::new())));
        assert!(v.lanes.iter().all(|l| l.device_used.is_none()));
        assert!(v
            .report
            .warnings
            .iter()
            .any(|w| w.contains("device-used memory is absent")));
        let mapping = cm::Mapping {
            device_used: vec!["allocator_allocated".into()],
            allocator_allocated: Vec::new(),
            ..cm::Mapping::default()
        };
        let v = memory_view(s.analyse_memory(&req(Some(mapping), Vec::new())));
        assert_eq!(v.lanes.len(), 4);
        for l in &v.lanes {
            let used = l.device_used.as_ref().expect("device-used mapped");
            assert!(used.bytes.iter().all(|&b| b == (1u64 << 30) as f64));
            assert!(l.allocator_allocated.is_none());
            assert!(l.allocator_reserved.is_some());
            // Both series now exist, so the gap band is computed; used (1 GiB) is under
            // reserved (1.5 GiB), so it is empty (hi clamped to lo), never inverted.
            let g = l.gap.as_ref().expect("gap band");
            assert!(g.lo.iter().zip(&g.hi).all(|(lo, hi)| hi == lo));
        }
    }
}
