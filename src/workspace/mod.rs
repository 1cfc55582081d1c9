//! The library workspace: the loaded files of one session (a browser tab's worker, one CLI
//! command), in drop order, and the one place where facts across files are derived.
//!
//! Every file goes through [`crate::formats::load`] once; the workspace keeps only what each
//! analysis needs from it (a trace's [`scaling::Input`], compile records and memory series —
//! the model is dropped right after), and derives the cross-file [`Facts`] of every file from
//! its sibling group ([`facts`]): the host a JAX `perfetto_trace.json.gz` takes from its
//! siblings' file names, the one rank rule for traces and telemetry, world size. The worker's
//! session ([`crate::session`]) and every CLI subcommand are thin adapters over it, so both
//! front ends give byte-identical reports.
//!
//! Sibling groups: files whose names share the directory part ([`crate::model::facts::dir_name`]) — loose files
//! picked or dropped together (no directory), the files of one folder inside a dropped folder,
//! and on the command line the files of one directory (a folder argument is expanded,
//! `Workspace::add_paths`, native only).

mod documents;
pub mod facts;
mod requests;
pub mod wire;

use serde::{Deserialize, Serialize};

pub use requests::{
    glob_match, js_safe, CompareOutcome, CompareRequest, MemoryOutcome, MemoryRequest,
    MemorySource, RankOverride, ScalingOutcome, ScalingRequest, SideRule, TraceFill, TrialSettings,
    JS_SAFE,
};

use crate::analysis::collective_memory::{self as cm, RankSeries};
use crate::analysis::{compile_triage, flame, scaling};
use crate::formats::{self, records, Format, LoadOptions, Loaded, Source};
use crate::model::compile_record::{CompileRecord, Pin};
use crate::model::facts::Facts;
use crate::model::{Diagnostic, Diagnostics, TraceInfo};

/// Identifies one file for the lifetime of a workspace (assigned by the caller: the app's
/// drop counter, the CLI's argument order).
pub type FileId = u32;

/// Counter samples a trace keeps for re-mapping beyond the series the default mapping picks
/// (packed, [`cm::KeptCounter`]: ~4 bytes each for integral values close in time, at most 18,
/// so 1–4.5 MiB per file).
pub const MAX_KEPT_COUNTER_SAMPLES: usize = 1 << 18;

/// Counts of what a trace import read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceCounts {
    /// Perfetto packets (including nested ones) or JSON events read.
    pub events: u64,
    pub tracks: u64,
    pub slices: u64,
    /// Counter series.
    pub counters: u64,
    /// Frames in the model's frame table.
    pub frames: u64,
}

/// What the workspace keeps of one trace.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TraceFile {
    pub format: Format,
    pub counts: TraceCounts,
    /// What the trace says about itself (rank, world size, backend, host, metadata).
    pub info: TraceInfo,
    /// The importer's diagnostics plus the workspace's own for this file
    /// (`counters_not_kept_for_mapping`); derived ones are in [`Entry::derived`].
    pub diagnostics: Diagnostics,
    /// The scaling analysis's input ([`scaling::extract`]); also the comparison's per-trial
    /// totals ([`crate::analysis::compare`]).
    pub trial: scaling::Input,
    /// The call tree by semantic-frame path ([`flame::extract`]), for the flame graphs and
    /// `trialscope folded`.
    pub tree: flame::CallTree,
    /// Compile records of the trace's compile slices ([`compile_triage::extract`]).
    pub compile_records: Vec<CompileRecord>,
    /// Memory series, markers and phases with the default mapping
    /// ([`cm::extract`]).
    pub memory: RankSeries,
    /// Counters kept for re-mapping ([`cm::apply_mapping`]), packed.
    pub counters: Vec<cm::KeptCounter>,
    /// A PyTorch trace that names no rank (the importer's `rank_unknown` warning).
    pub rank_unknown: bool,
}

/// What the workspace keeps of one compile-record file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RecordsFile {
    pub file: records::RecordFile,
}

/// One rank part of a telemetry file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TelemetryPart {
    /// Series with the default mapping; `rank` as the records state it.
    pub memory: RankSeries,
    /// Every series, for re-mapping, packed.
    pub counters: Vec<cm::KeptCounter>,
    /// The part's facts (rank from the records, else the file name, else assigned).
    pub facts: Facts,
}

/// What the workspace keeps of one memory telemetry file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TelemetryFile {
    /// Records read (samples and markers).
    pub records: u64,
    /// Malformed lines as `file:line: problem; line skipped` (the first ones kept by the
    /// reader, then one line counting the rest).
    pub bad_lines: Vec<String>,
    pub diagnostics: Diagnostics,
    pub parts: Vec<TelemetryPart>,
}

/// What a loaded file is, with what the workspace keeps of it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Content {
    Trace(Box<TraceFile>),
    Records(RecordsFile),
    /// A pins file: it replaced the workspace's pins when it was added.
    Pins {
        count: usize,
    },
    Telemetry(TelemetryFile),
    /// One Parquet aggregate file (`trialscope summarize`): one table of one artifact. Its
    /// key's pieces together become a trial ([`crate::aggregate::pieces::assemble`]): the
    /// `trials` piece's entry then holds the trial's [`Content::Trace`]; the other pieces stay
    /// entries of this kind (rows dropped), with what became of them.
    Aggregate(Box<AggregateFile>),
}

/// What the workspace keeps of one aggregate file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AggregateFile {
    /// The decoded table (its rows only until the workspace takes it in).
    pub piece: crate::aggregate::pieces::Piece,
    /// What became of the piece (`frames of <path>`, `trials table missing for key …`, a
    /// table this version ignores); `None` before the workspace grouped it.
    pub note: Option<String>,
}

/// One loaded file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    pub id: FileId,
    pub source: Source,
    /// The file's facts as derived now (they change when siblings arrive or leave).
    pub facts: Facts,
    /// Diagnostics the cross-file facts add (`rank_assigned`, `hostname_from_siblings`).
    pub derived: Diagnostics,
    pub content: Content,
}

impl Entry {
    /// The name as given.
    pub fn name(&self) -> &str {
        &self.source.name
    }

    /// Every diagnostic of the file: its own (importer and workspace) then the derived ones.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let own: &[Diagnostic] = match &self.content {
            Content::Trace(t) => t.diagnostics.entries(),
            Content::Telemetry(t) => t.diagnostics.entries(),
            _ => &[],
        };
        own.iter().chain(self.derived.entries()).cloned().collect()
    }

    /// The trace kept for this entry, if it is one.
    pub fn trace(&self) -> Option<&TraceFile> {
        match &self.content {
            Content::Trace(t) => Some(t),
            _ => None,
        }
    }
}

/// A file that could not be loaded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failed {
    pub id: FileId,
    pub name: String,
    /// Names the file and the problem.
    pub message: String,
}

/// The loaded files of one session and the pins in force.
#[derive(Default)]
pub struct Workspace {
    entries: Vec<Entry>,
    failed: Vec<Failed>,
    /// Files found in a folder argument that are no format this tool reads (a README beside
    /// the traces): listed, not failed.
    skipped: Vec<Failed>,
    /// Notes on paths that named a file already named (native: the same file given twice,
    /// matched twice, or reached again through a symlink), each read once.
    repeats: Vec<String>,
    pins: Vec<Pin>,
    changed: Vec<FileId>,
    options: LoadOptions,
    /// Every aggregate file added, with its rows, in add order (see [`Content::Aggregate`]).
    pieces: Vec<(FileId, Source, crate::aggregate::pieces::Piece)>,
    /// Ids of the entries and failures the last [`Workspace::regroup`] made.
    piece_ids: Vec<FileId>,
    /// The pieces changed since the last regroup.
    pieces_dirty: bool,
    /// The aggregate files' outcomes changed since the last [`Workspace::take_aggregates_changed`].
    aggregates_changed: bool,
    /// Aggregate trials left out by the last regroup because the same artifact is loaded as a
    /// trace: the `trials` piece's id and the note naming both paths.
    duplicates: Vec<(FileId, String)>,
}

impl Workspace {
    /// An empty workspace with default [`LoadOptions`].
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty workspace loading with `options`.
    pub fn with_options(options: LoadOptions) -> Self {
        Workspace {
            options,
            ..Self::default()
        }
    }

    /// Loads one file ([`formats::load`]) under `id` (replacing a file of the same id) and
    /// derives the facts of its sibling group again. Returns the entry, or the failure (which
    /// is kept too: every report lists failed files). A pins file replaces the pins.
    /// `progress` receives fractions in [0, 1].
    pub fn add(
        &mut self,
        id: FileId,
        name: &str,
        bytes: &[u8],
        progress: &mut dyn FnMut(f64),
    ) -> Result<&Entry, &Failed> {
        self.add_source(id, name, &bytes, progress)
    }

    /// [`Workspace::add`] for a file read in chunks from `src` ([`formats::load_from`]): the
    /// whole file is never held.
    pub fn add_source(
        &mut self,
        id: FileId,
        name: &str,
        src: &dyn formats::ByteSource,
        progress: &mut dyn FnMut(f64),
    ) -> Result<&Entry, &Failed> {
        self.load_one(id, name, src, progress);
        self.derive();
        self.changed.retain(|c| *c != id);
        self.result_of(id, name)
    }

    /// The entry or failure of `id` after an add (an aggregate piece is always one of them;
    /// should neither hold it, a failure saying so is recorded rather than a panic).
    fn result_of(&mut self, id: FileId, name: &str) -> Result<&Entry, &Failed> {
        let entry = self.entries.iter().rposition(|e| e.id == id);
        let failed = self.failed.iter().rposition(|f| f.id == id);
        match (entry, failed) {
            (Some(i), _) => Ok(&self.entries[i]),
            (None, Some(i)) => Err(&self.failed[i]),
            (None, None) => {
                self.failed.push(Failed {
                    id,
                    name: name.to_string(),
                    message: format!("{name}: the workspace lost the file"),
                });
                Err(&self.failed[self.failed.len() - 1])
            }
        }
    }

    /// Loads one file without deriving the facts (the caller derives once for a batch). True
    /// when it loaded (it is the last entry), false when it failed (the last failure).
    fn load_one(
        &mut self,
        id: FileId,
        name: &str,
        src: &dyn formats::ByteSource,
        progress: &mut dyn FnMut(f64),
    ) -> bool {
        self.forget(id);
        let prepared = prepare(name, src, &self.options, progress);
        self.insert(id, name, prepared)
    }

    /// Adds a file an import worker prepared ([`prepare`]) under `id`, replacing a file of the
    /// same id, and derives the facts of its sibling group again: [`Workspace::add`] without
    /// the import. `prepared` is the worker's result: the file, or the message naming it and
    /// the problem.
    pub fn add_prepared(
        &mut self,
        id: FileId,
        name: &str,
        prepared: Result<Prepared, String>,
    ) -> Result<&Entry, &Failed> {
        self.forget(id);
        self.insert(id, name, prepared);
        self.derive();
        self.changed.retain(|c| *c != id);
        self.result_of(id, name)
    }

    /// Drops file `id` (entry, failure, aggregate piece) without deriving.
    fn forget(&mut self, id: FileId) {
        // A trace leaving may bring back the aggregate trial of the same artifact.
        if !self.pieces.is_empty()
            && self
                .entries
                .iter()
                .any(|e| e.id == id && e.trace().is_some())
        {
            self.pieces_dirty = true;
        }
        self.entries.retain(|e| e.id != id);
        self.failed.retain(|f| f.id != id);
        let before = self.pieces.len();
        self.pieces.retain(|p| p.0 != id);
        if self.pieces.len() != before {
            self.pieces_dirty = true;
        }
    }

    /// [`Workspace::add_prepared`] for a batch: each file (or its failure) under its id, in
    /// order, replacing files of the same ids; the facts are derived once at the end (the
    /// aggregates of `trialscope scaling --from`, [`crate::aggregate`]).
    pub fn add_prepared_all(&mut self, items: Vec<(FileId, String, Result<Prepared, String>)>) {
        // The files of these ids go in one pass (a set of ids), not one pass per file: a
        // folder of thousands of aggregate pieces stays n log n. Of one id given twice, the
        // later file is kept, as adding them one by one would.
        let ids: std::collections::BTreeSet<FileId> = items.iter().map(|i| i.0).collect();
        self.forget_all(&ids);
        let mut last: std::collections::BTreeMap<FileId, usize> = Default::default();
        for (k, (id, _, _)) in items.iter().enumerate() {
            last.insert(*id, k);
        }
        for (k, (id, name, prepared)) in items.into_iter().enumerate() {
            if last.get(&id) == Some(&k) {
                self.insert(id, &name, prepared);
            }
        }
        self.derive();
    }

    /// [`Workspace::forget`] for every id of `ids` at once.
    fn forget_all(&mut self, ids: &std::collections::BTreeSet<FileId>) {
        if ids.is_empty() {
            return;
        }
        if !self.pieces.is_empty()
            && self
                .entries
                .iter()
                .any(|e| ids.contains(&e.id) && e.trace().is_some())
        {
            self.pieces_dirty = true;
        }
        self.entries.retain(|e| !ids.contains(&e.id));
        self.failed.retain(|f| !ids.contains(&f.id));
        let before = self.pieces.len();
        self.pieces.retain(|p| !ids.contains(&p.0));
        if self.pieces.len() != before {
            self.pieces_dirty = true;
        }
    }

    /// Appends a prepared file (or its failure); true when it loaded.
    fn insert(&mut self, id: FileId, name: &str, prepared: Result<Prepared, String>) -> bool {
        match prepared {
            Ok(Prepared {
                source,
                content: Content::Aggregate(a),
                ..
            }) => {
                self.pieces.push((id, source, a.piece));
                self.pieces_dirty = true;
                true
            }
            Ok(p) => {
                if let Some(pins) = p.pins {
                    self.pins = pins;
                }
                // A trace may be the artifact of an aggregate trial: group the pieces again.
                if !self.pieces.is_empty() && matches!(p.content, Content::Trace(_)) {
                    self.pieces_dirty = true;
                }
                self.entries.push(Entry {
                    id,
                    source: p.source,
                    facts: p.facts,
                    derived: Diagnostics::default(),
                    content: p.content,
                });
                true
            }
            Err(message) => {
                self.failed.push(Failed {
                    id,
                    name: name.to_string(),
                    message,
                });
                false
            }
        }
    }
}

/// One file imported and reduced to what a workspace keeps of it — no id, no cross-file facts
/// yet: what an import worker hands to the session's workspace ([`Workspace::add_prepared`]),
/// serializable so it can cross a worker boundary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Prepared {
    pub source: Source,
    /// The file's own facts (before its siblings are seen).
    pub facts: Facts,
    pub content: Content,
    /// The pins of a pins file (they replace the workspace's when it is added).
    pub pins: Option<Vec<Pin>>,
}

/// Loads one file ([`formats::load_from`]) and keeps what the analyses need of it; the model
/// is dropped on return. Errors: the load's message, naming the file and the problem.
pub fn prepare(
    name: &str,
    src: &dyn formats::ByteSource,
    opts: &LoadOptions,
    progress: &mut dyn FnMut(f64),
) -> Result<Prepared, String> {
    prepare_file(name, src, opts, progress).map_err(|e| e.to_string())
}

/// [`prepare`] keeping the error's kind (so a caller can tell a file that is no format this
/// tool reads, [`formats::ImportError::NotATrace`], from a broken one).
pub fn prepare_file(
    name: &str,
    src: &dyn formats::ByteSource,
    opts: &LoadOptions,
    progress: &mut dyn FnMut(f64),
) -> Result<Prepared, formats::FileError> {
    formats::load_from(name, src, opts, progress).map(keep)
}

/// Frees what [`flame::extract`] does not read of `model`: arg sets, counters, and every
/// slice column but `ts_ns` (the count), `dur_ns`, `parent` and `frame`.
fn for_call_tree(model: &mut crate::model::Model) {
    model.args = Default::default();
    model.counters = Vec::new();
    let s = &mut model.slices;
    s.track = Default::default();
    s.name = Default::default();
    s.category = Default::default();
    s.depth = Default::default();
    s.args = Default::default();
    s.flags = Default::default();
}

/// What the workspace keeps of a loaded file ([`prepare_file`]'s second half); the model is
/// dropped on return.
pub fn keep(loaded: Loaded) -> Prepared {
    match loaded {
        Loaded::Trace(a) => {
            let source = Source {
                name: a.name.clone(),
                size_bytes: a.size_bytes,
                decompressed_bytes: a.model.stats.decompressed_bytes,
                artifact_id: a.artifact_id.clone(),
                compression: a.compression,
            };
            let mut own = Facts::alone(&a.name);
            own.artifact_id = a.artifact_id.clone();
            own.hostname = a.model.info.hostname.clone();
            let mut model = a.model;
            let m = &model;
            let mut budget = CounterBudget::new();
            let counters =
                cm::counters_from_model_where(m, |name, samples| budget.admit(name, samples));
            let not_kept = budget.dropped();
            let mut diagnostics = m.diagnostics.clone();
            if not_kept > 0 {
                diagnostics.add_n(
                    crate::model::diagnostics::Kind::CountersNotKeptForMapping,
                    not_kept as u64,
                    None,
                    None,
                    || {
                        Some(format!(
                            "{not_kept} series beyond {MAX_KEPT_COUNTER_SAMPLES} samples"
                        ))
                    },
                );
            }
            let counts = TraceCounts {
                events: m.stats.events,
                tracks: m.tracks.len() as u64,
                slices: m.slices.len() as u64,
                counters: m.counters.len() as u64,
                frames: m.frames.len() as u64,
            };
            let info = m.info.clone();
            let trial = scaling::extract(m, &own);
            let compile_records = compile_triage::extract(m, &own);
            let memory = cm::extract(m, &own);
            let rank_unknown = m.info.rank.is_none() && m.diagnostics.count("rank_unknown") > 0;
            // The call tree comes last, from what it reads of the model (slice durations,
            // parents and frames; frames, strings, diagnostics): the rest is freed first, so
            // its temporaries take the room of the arg sets and slice columns no one reads
            // any more.
            for_call_tree(&mut model);
            let tree = flame::extract(&model, &a.artifact_id);
            drop(model);
            let trace = TraceFile {
                format: a.format,
                counts,
                info,
                trial,
                tree,
                compile_records,
                memory,
                counters,
                rank_unknown,
                diagnostics,
            };
            Prepared {
                source,
                facts: own,
                content: Content::Trace(Box::new(trace)),
                pins: None,
            }
        }
        Loaded::Records { source, records } => Prepared {
            facts: Facts::alone(&source.name),
            source,
            content: Content::Records(RecordsFile { file: records }),
            pins: None,
        },
        Loaded::Pins { source, mut pins } => {
            pins.sort_by(|a, b| a.key.cmp(&b.key));
            Prepared {
                facts: Facts::alone(&source.name),
                source,
                content: Content::Pins { count: pins.len() },
                pins: Some(pins),
            }
        }
        Loaded::Aggregate { source, piece } => Prepared {
            facts: Facts::alone(&source.name),
            source,
            content: Content::Aggregate(Box::new(AggregateFile {
                piece: *piece,
                note: None,
            })),
            pins: None,
        },
        Loaded::Telemetry { source, telemetry } => {
            let name = source.name.clone();
            let mut bad_lines: Vec<String> = telemetry
                .bad_lines
                .iter()
                .map(|b| format!("{name}:{}: {}; line skipped", b.line, b.message))
                .collect();
            let n_bad = telemetry.diagnostics.count("telemetry_bad_line");
            if n_bad > telemetry.bad_lines.len() as u64 {
                bad_lines.push(format!(
                    "{name}: {} more malformed lines skipped",
                    n_bad - telemetry.bad_lines.len() as u64
                ));
            }
            let own = Facts::alone(&name);
            let parts = telemetry
                .models
                .iter()
                .map(|m| TelemetryPart {
                    memory: cm::extract(m, &own),
                    counters: cm::counters_from_model(m),
                    facts: own.clone(),
                })
                .collect();
            Prepared {
                facts: own,
                source,
                pins: None,
                content: Content::Telemetry(TelemetryFile {
                    records: telemetry.records,
                    bad_lines,
                    diagnostics: telemetry.diagnostics,
                    parts,
                }),
            }
        }
    }
}

impl Workspace {
    /// Forgets file `id` (loaded or failed); the facts of its sibling group are derived again.
    /// Pins stay (they move only on an explicit command or a pins file).
    pub fn remove(&mut self, id: FileId) {
        let before = self.entries.len() + self.failed.len();
        self.forget(id);
        self.changed.retain(|c| *c != id);
        if self.entries.len() + self.failed.len() != before || self.pieces_dirty {
            self.derive();
        }
    }

    /// Forgets every file. Pins stay.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.failed.clear();
        self.skipped.clear();
        self.repeats.clear();
        self.changed.clear();
        self.pieces.clear();
        self.piece_ids.clear();
        self.duplicates.clear();
        self.pieces_dirty = false;
        self.aggregates_changed = true;
    }

    /// The loaded files in drop order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The loaded file `id`.
    pub fn entry(&self, id: FileId) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// The files that failed to load, in drop order.
    pub fn failed(&self) -> &[Failed] {
        &self.failed
    }

    /// Files inside folder arguments that were skipped because they are no format this tool
    /// reads (not failures: a folder of traces often holds a README or a log too), each with
    /// the message saying what it looks like.
    pub fn skipped(&self) -> &[Failed] {
        &self.skipped
    }

    /// Notes, one per path that named a file already named (the same file given twice,
    /// matched by two globs, or reached again through a symlink): each file is read once, so
    /// a repeat never counts as another trial. Native loading only; empty in the web app.
    pub fn repeats(&self) -> &[String] {
        &self.repeats
    }

    /// Names of the failed files (listed in every report).
    pub fn failed_names(&self) -> Vec<String> {
        self.failed.iter().map(|f| f.name.clone()).collect()
    }

    /// Ids of earlier files whose derived facts changed since the last call (by an add or a
    /// removal of a sibling), in drop order.
    pub fn take_changed(&mut self) -> Vec<FileId> {
        let ids = std::mem::take(&mut self.changed);
        self.entries
            .iter()
            .filter(|e| ids.contains(&e.id))
            .map(|e| e.id)
            .collect()
    }

    /// The pins in force, sorted by key.
    pub fn pins(&self) -> &[Pin] {
        &self.pins
    }

    /// Replaces the pins (sorted by key).
    pub fn set_pins(&mut self, mut pins: Vec<Pin>) {
        pins.sort_by(|a, b| a.key.cmp(&b.key));
        self.pins = pins;
    }

    /// Derives the facts of every file from its sibling group ([`facts::derive`]) and queues
    /// the files whose facts changed for [`Workspace::take_changed`].
    fn derive(&mut self) {
        if self.pieces_dirty {
            self.regroup();
        }
        let failed: Vec<&str> = self.failed.iter().map(|f| f.name.as_str()).collect();
        let changed = facts::derive(&mut self.entries, &failed);
        for id in changed {
            if !self.changed.contains(&id) {
                self.changed.push(id);
            }
        }
    }
}

/// Chooses the counters a trace keeps for [`cm::apply_mapping`], asked once per counter in
/// model order ([`cm::counters_from_model_where`], so a refused counter is never packed):
/// every counter the default mapping classifies, then the others while their samples fit in
/// [`MAX_KEPT_COUNTER_SAMPLES`].
pub(crate) struct CounterBudget {
    default: cm::Mapping,
    left: usize,
    dropped: usize,
}

impl CounterBudget {
    /// A budget of [`MAX_KEPT_COUNTER_SAMPLES`] with nothing admitted yet.
    pub(crate) fn new() -> Self {
        CounterBudget {
            default: cm::Mapping::default(),
            left: MAX_KEPT_COUNTER_SAMPLES,
            dropped: 0,
        }
    }

    /// Whether the counter `name` of `samples` samples is kept; a kept counter the default
    /// mapping does not classify spends its samples from the budget.
    pub(crate) fn admit(&mut self, name: &str, samples: usize) -> bool {
        if self.default.classify(name).is_some() {
            return true;
        }
        if samples <= self.left {
            self.left -= samples;
            true
        } else {
            self.dropped += 1;
            false
        }
    }

    /// How many counters were refused.
    pub(crate) fn dropped(&self) -> usize {
        self.dropped
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub mod native;

impl Workspace {
    /// Loads `bytes` as the pins file the user named (`--pins`): it must read as pins
    /// ([`formats::load`]); the pins replace the workspace's. Returns how many pins.
    ///
    /// Errors: the message names the file and what it read as instead.
    pub fn load_pins(&mut self, name: &str, bytes: &[u8]) -> Result<usize, String> {
        match formats::load(name, bytes, &self.options, &mut |_| {}) {
            Ok(Loaded::Pins { pins, .. }) => {
                let n = pins.len();
                self.set_pins(pins);
                Ok(n)
            }
            Ok(other) => Err(format!(
                "{name}: not a pins file (it reads as {})",
                other.description()
            )),
            Err(e) => Err(e.to_string()),
        }
    }
}

impl Workspace {
    /// Groups the aggregate pieces into trials again ([`crate::aggregate::pieces::assemble`]):
    /// the entries and failures of every piece are made anew — a complete key's trial (under
    /// its `trials` piece's id, named by `trials.path`, after the other entries in path order,
    /// as `trialscope scaling --from` orders them), a failed or incomplete key's failure, every
    /// other piece an entry of [`Content::Aggregate`] saying what became of it.
    ///
    /// One artifact is one trial: a complete key whose artifact id is also loaded as a trace
    /// (a folder holding the traces and the `agg/` folder `trialscope summarize` made of them)
    /// is not made a trial again; its `trials` piece stays a piece whose note names both paths
    /// ([`Workspace::duplicates`]). The trace is kept, since it holds more (the call tree).
    fn regroup(&mut self) {
        use crate::aggregate::pieces::{self, Outcome};
        self.pieces_dirty = false;
        self.aggregates_changed = true;
        // Sets and maps by id, so regrouping n pieces is n log n, not n² (thousands of pieces
        // in one dropped aggregate folder).
        let old: std::collections::BTreeSet<FileId> =
            std::mem::take(&mut self.piece_ids).into_iter().collect();
        self.entries.retain(|e| !old.contains(&e.id));
        self.failed.retain(|f| !old.contains(&f.id));
        let at: std::collections::BTreeMap<FileId, usize> = self
            .pieces
            .iter()
            .enumerate()
            .map(|(i, p)| (p.0, i))
            .collect();
        let inputs: Vec<pieces::Input<'_>> = self
            .pieces
            .iter()
            .map(|(id, src, p)| (*id, src.name.as_str(), p))
            .collect();
        let assembly = pieces::assemble(&inputs);
        self.duplicates.clear();
        // artifact id → the first trace of it.
        let mut traces: std::collections::BTreeMap<&str, &str> = Default::default();
        for e in self.entries.iter().filter(|e| e.trace().is_some()) {
            traces
                .entry(e.source.artifact_id.as_str())
                .or_insert(e.name());
        }
        let mut duplicates = Vec::new();
        let mut new_entries = Vec::new();
        let mut new_failed = Vec::new();
        for (id, outcome) in assembly.trials.into_iter().chain(assembly.others) {
            let Some((_, source, piece)) = at.get(&id).map(|&i| &self.pieces[i]) else {
                continue;
            };
            let piece_entry = |note: String| Entry {
                id,
                source: source.clone(),
                facts: Facts::alone(&source.name),
                derived: Diagnostics::default(),
                content: Content::Aggregate(Box::new(AggregateFile {
                    piece: piece.without_rows(),
                    note: Some(note),
                })),
            };
            // The trace already loaded for this trial's artifact, if any.
            let twin = match &outcome {
                Outcome::Trial(p) if !p.source.artifact_id.is_empty() => {
                    traces.get(p.source.artifact_id.as_str()).copied()
                }
                _ => None,
            };
            match outcome {
                Outcome::Trial(p) => match twin {
                    Some(trace) => {
                        let note = format!(
                            "{}: the aggregate trial ({}) is the same artifact as the trace \
                             {trace}: counted once, as the trace",
                            p.source.name, source.name
                        );
                        duplicates.push((id, note.clone()));
                        new_entries.push(piece_entry(note));
                    }
                    None => new_entries.push(Entry {
                        id,
                        source: p.source,
                        facts: p.facts,
                        derived: Diagnostics::default(),
                        content: p.content,
                    }),
                },
                Outcome::Failed { name, message } => new_failed.push(Failed { id, name, message }),
                Outcome::Skipped { message } => new_entries.push(piece_entry(message)),
                Outcome::Piece { note } => new_entries.push(piece_entry(note)),
            }
            self.piece_ids.push(id);
        }
        self.entries.extend(new_entries);
        self.failed.extend(new_failed);
        self.duplicates = duplicates;
    }

    /// Aggregate trials not counted because the same artifact (artifact id) is loaded as a
    /// trace — one artifact is one trial; the trace is kept, since it holds more (the call
    /// tree): the `trials` piece's id and a note naming the aggregate trial's path, its
    /// `trials` file and the trace's name.
    pub fn duplicates(&self) -> &[(FileId, String)] {
        &self.duplicates
    }

    /// True once after the aggregate pieces' outcomes may have changed (an aggregate file
    /// added or removed, or every file cleared): the worker then posts them again.
    pub fn take_aggregates_changed(&mut self) -> bool {
        std::mem::take(&mut self.aggregates_changed)
    }

    /// Ids of the aggregate files (each is an entry — a trial or a piece — or a failure).
    pub fn aggregate_ids(&self) -> &[FileId] {
        &self.piece_ids
    }
}
