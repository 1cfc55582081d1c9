//! Per-trial aggregates as Parquet (issue 12, `docs/parquet-schema.md`): what one trace
//! reduces to for the cross-trial analyses, in tables any engine reads (DuckDB, Spark, Trino).
//!
//! The expensive step (importing a trace) is independent per file; the cross-trial step (the
//! join by semantic frame id, rank correlation) needs only small per-trial aggregates. So
//! [`Summary::of`] turns one file as the workspace prepared it ([`crate::workspace::Prepared`],
//! or its failure) into four tables — `trials`, `frames`, `frame_costs`, `unmatched_costs` —
//! and [`Record::from_tables`] turns them back into exactly what the workspace keeps for the
//! scaling analysis, so `trialscope scaling --from DIR` gives the report `trialscope scaling
//! FILES` gives, byte for byte in `--json` (the cross-file facts are derived again by the
//! workspace from the stored names, as for the traces); `trialscope compare --from DIR` picks
//! its sides from the same records. The optional tables (`compile_records`,
//! `memory_intervals`) are in [`optional`].
//!
//! Versioning: every file's Parquet key-value metadata holds `trialscope.schema` = `sf1` (the
//! semantic frame id version: an `sf2` id would not join with `sf1` ids), `trialscope.table`
//! and `trialscope.table_version` ([`TABLE_VERSION`]); [`table::decode`] refuses any other
//! version with a message naming it. Layout on disk (`dir`, native only): one file per artifact
//! per table, `DIR/<table>/<key>.parquet`, key = the artifact's SHA-256 hex — re-summarizing a
//! file replaces its rows instead of adding them, and shards written by separate tasks are
//! merged by copying the directories together.

pub mod pieces;
pub mod table;

#[cfg(not(target_arch = "wasm32"))]
pub mod dir;

use std::collections::BTreeMap;

use parquet::record::Field;

use crate::analysis::{flame, scaling};
use crate::formats::{Compression, Format, Source};
use crate::model::diagnostics::Severity;
use crate::model::facts::Facts;
use crate::model::{Diagnostics, TraceInfo};
use crate::workspace::{Content, Prepared, TraceCounts, TraceFile};
use table::{opt_i64, opt_str, req_bool, req_i64, req_str, Column, Rows, Table, Values};

/// Key-value metadata key of the schema version ([`SCHEMA_VERSION`]).
pub const META_SCHEMA: &str = "trialscope.schema";
/// Key-value metadata key of the table name.
pub const META_TABLE: &str = "trialscope.table";
/// Key-value metadata key of the table version ([`TABLE_VERSION`]).
pub const META_TABLE_VERSION: &str = "trialscope.table_version";
/// The schema version: the semantic frame id version the tables' ids are of.
pub const SCHEMA_VERSION: &str = "sf1";
/// The version of every table's columns (all four tables are at 1).
pub const TABLE_VERSION: u32 = 1;

/// The tables of one artifact, in the order `dir` writes them (`trials` last: a key with a
/// `trials` file is complete).
pub const TABLES: [&str; 4] = ["frames", "frame_costs", "unmatched_costs", "trials"];

/// Errors reading aggregates.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file of another schema or table version.
    #[error("{file}: written with schema {found}; this trialscope reads {expected} (summarize the traces again with this version)")]
    Version {
        file: String,
        found: String,
        expected: String,
    },
    /// A file that is not a readable Parquet table of the expected kind.
    #[error("{file}: {problem}")]
    File { file: String, problem: String },
    /// A column missing or of the wrong type.
    #[error("{file}: column {column}: {problem}")]
    Column {
        file: String,
        column: String,
        problem: String,
    },
    /// The Parquet writer's or reader's own error.
    #[error("parquet: {0}")]
    Parquet(String),
    /// Reading or writing the directory.
    #[error("{0}")]
    Io(String),
}

/// How the summarizer fared with one file (`trials.status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A trace, imported: its costs are in the other tables.
    Ok,
    /// Unreadable, or a container broken beyond repair (`trials.error` says why).
    Failed,
    /// Found inside a folder argument and no format trialscope reads (a README beside the
    /// traces): the workspace skips such files, so the analyses do too.
    Skipped,
    /// Loaded, but not a trace (compile records, pins, memory telemetry): not a trial.
    NotATrial,
}

impl Status {
    /// `ok`, `failed`, `skipped`, `not_a_trial`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
            Status::NotATrial => "not_a_trial",
        }
    }
    fn parse(s: &str) -> Option<Status> {
        [
            Status::Ok,
            Status::Failed,
            Status::Skipped,
            Status::NotATrial,
        ]
        .into_iter()
        .find(|x| x.as_str() == s)
    }
}

/// What the summarizer got for one file.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The workspace's preparation of the file ([`crate::workspace::prepare`]).
    Loaded(Box<Prepared>),
    /// The file failed (`message` names it and the problem); `artifact_id` when its bytes could
    /// be read.
    Failed {
        message: String,
        artifact_id: Option<String>,
    },
    /// The file was skipped (see [`Status::Skipped`]).
    Skipped {
        message: String,
        artifact_id: Option<String>,
    },
}

/// The four tables of one file, and the key its files are stored under.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// File stem in every table's directory: the artifact's SHA-256 hex, or for a file whose
    /// bytes could not be read `unread-` + the SHA-256 hex of its name.
    pub key: String,
    pub trials: Table,
    pub frames: Table,
    pub frame_costs: Table,
    pub unmatched_costs: Table,
}

fn s(v: impl Into<String>) -> Option<String> {
    Some(v.into())
}

fn u(v: u64) -> Option<i64> {
    Some(i64::try_from(v).unwrap_or(i64::MAX))
}

fn col(name: &'static str, nullable: bool, values: Values) -> Column {
    Column {
        name,
        nullable,
        values,
    }
}

/// The key of a file: its artifact id's hex, else `unread-` + SHA-256 hex of its name.
fn key_of(name: &str, artifact_id: Option<&str>) -> String {
    match artifact_id {
        Some(a) => a.strip_prefix("sha256:").unwrap_or(a).to_string(),
        None => {
            use sha2::Digest;
            let d = sha2::Sha256::digest(name.as_bytes());
            let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
            format!("unread-{hex}")
        }
    }
}

/// Metadata entries whose lower-cased key contains one of `words`, as `k=v` joined by `;`
/// (`None` when there are none).
fn metadata_part(info: &TraceInfo, words: &[&str]) -> Option<String> {
    let parts: Vec<String> = info
        .metadata
        .iter()
        .filter(|(k, _)| {
            let lk = k.to_ascii_lowercase();
            words.iter().any(|w| lk.contains(w))
        })
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    (!parts.is_empty()).then(|| parts.join(";"))
}

/// One `trials` row, as [`trials_table`] writes it.
#[derive(Default)]
struct TrialRow {
    artifact_id: Option<String>,
    path: String,
    status: &'static str,
    error: Option<String>,
    kind: Option<String>,
    format: Option<String>,
    compression: Option<String>,
    size_bytes: Option<i64>,
    decompressed_bytes: Option<i64>,
    input: Option<f64>,
    environment: Option<String>,
    host: Option<String>,
    hardware: Option<String>,
    versions: Option<String>,
    rank: Option<i64>,
    world_size: Option<i64>,
    backend: Option<String>,
    rank_unknown: Option<bool>,
    data_loss: Option<bool>,
    incomplete_slices: Option<i64>,
    events: Option<i64>,
    tracks: Option<i64>,
    slices: Option<i64>,
    counters: Option<i64>,
    model_frames: Option<i64>,
    matched_frames: Option<i64>,
    unmatched_frames: Option<i64>,
    by_severity: [Option<i64>; 4],
    diagnostics_json: Option<String>,
    metadata_json: Option<String>,
}

fn trials_table(r: TrialRow) -> Table {
    let st = |v: Option<String>| Values::Str(vec![v]);
    let i = |v: Option<i64>| Values::I64(vec![v]);
    let b = |v: Option<bool>| Values::Bool(vec![v]);
    Table {
        name: "trials",
        columns: vec![
            col("artifact_id", true, st(r.artifact_id)),
            col("path", false, st(Some(r.path))),
            col("status", false, st(s(r.status))),
            col("error", true, st(r.error)),
            col("kind", true, st(r.kind)),
            col("format", true, st(r.format)),
            col("compression", true, st(r.compression)),
            col("size_bytes", true, i(r.size_bytes)),
            col("decompressed_bytes", true, i(r.decompressed_bytes)),
            col("input", true, Values::F64(vec![r.input])),
            col("variant", false, st(s("default"))),
            col("environment", true, st(r.environment)),
            col("host", true, st(r.host)),
            col("hardware", true, st(r.hardware)),
            col("versions", true, st(r.versions)),
            col("rank", true, i(r.rank)),
            col("world_size", true, i(r.world_size)),
            col("backend", true, st(r.backend)),
            col("rank_unknown", true, b(r.rank_unknown)),
            col("data_loss", true, b(r.data_loss)),
            col("incomplete_slices", true, i(r.incomplete_slices)),
            col("events", true, i(r.events)),
            col("tracks", true, i(r.tracks)),
            col("slices", true, i(r.slices)),
            col("counters", true, i(r.counters)),
            col("model_frames", true, i(r.model_frames)),
            col("matched_frames", true, i(r.matched_frames)),
            col("unmatched_frames", true, i(r.unmatched_frames)),
            col("diagnostics_info", true, i(r.by_severity[0])),
            col("diagnostics_warning", true, i(r.by_severity[1])),
            col("diagnostics_data_loss", true, i(r.by_severity[2])),
            col("diagnostics_error", true, i(r.by_severity[3])),
            col("diagnostics_json", true, st(r.diagnostics_json)),
            col("metadata_json", true, st(r.metadata_json)),
        ],
    }
}

impl Summary {
    /// The tables of one file named `name` (the name as the workspace would be given it: the
    /// path as typed, `dir/file` inside a folder argument). For a trace: one `trials` row,
    /// its matched frames' descriptions (`frames`), per-frame totals (`frame_costs`) and
    /// unmatched totals (`unmatched_costs`), all from the scaling profile
    /// ([`scaling::profile`]); `trials.input` is the input the default pattern reads from the
    /// file name ([`scaling::DEFAULT_INPUT_PATTERN`]). Any other outcome is one `trials` row
    /// with its status and error, and empty cost tables.
    pub fn of(name: &str, outcome: &Outcome) -> Summary {
        let mut row = TrialRow {
            path: name.to_string(),
            ..TrialRow::default()
        };
        let (mut frames, mut costs, mut unmatched) = (
            FrameCols::default(),
            CostCols::default(),
            UnmatchedCols::default(),
        );
        let key = match outcome {
            Outcome::Failed {
                message,
                artifact_id,
            }
            | Outcome::Skipped {
                message,
                artifact_id,
            } => {
                row.status = if matches!(outcome, Outcome::Failed { .. }) {
                    Status::Failed.as_str()
                } else {
                    Status::Skipped.as_str()
                };
                row.error = Some(message.clone());
                row.artifact_id = artifact_id.clone();
                key_of(name, artifact_id.as_deref())
            }
            Outcome::Loaded(p) => {
                let src = &p.source;
                row.artifact_id = s(src.artifact_id.clone());
                row.compression = s(src.compression.as_str());
                row.size_bytes = u(src.size_bytes);
                row.decompressed_bytes = u(src.decompressed_bytes);
                match &p.content {
                    Content::Trace(t) => {
                        row.status = Status::Ok.as_str();
                        row.kind = s("trace");
                        fill_trace(&mut row, name, t);
                        let aid = &t.trial.profile.artifact_id;
                        for f in &t.trial.profile.frames {
                            frames.push(&f.frame);
                            costs.push(aid, f);
                        }
                        for m in &t.trial.profile.unmatched {
                            unmatched.push(aid, m);
                        }
                    }
                    other => {
                        row.status = Status::NotATrial.as_str();
                        row.kind = s(match other {
                            Content::Records(_) => "compile_records",
                            Content::Pins { .. } => "pins",
                            Content::Telemetry(_) => "telemetry",
                            Content::Trace(_) => "trace",
                            Content::Aggregate(_) => "aggregate",
                        });
                    }
                }
                key_of(name, Some(&src.artifact_id))
            }
        };
        Summary {
            key,
            trials: trials_table(row),
            frames: frames.table(),
            frame_costs: costs.table(),
            unmatched_costs: unmatched.table(),
        }
    }

    /// The tables in [`TABLES`] order.
    pub fn tables(&self) -> [&Table; 4] {
        [
            &self.frames,
            &self.frame_costs,
            &self.unmatched_costs,
            &self.trials,
        ]
    }
}

fn fill_trace(row: &mut TrialRow, name: &str, t: &TraceFile) {
    let p = &t.trial.profile;
    row.format = s(t.format.as_str());
    row.input = scaling::compile_input_regex(scaling::DEFAULT_INPUT_PATTERN)
        .ok()
        .and_then(|re| scaling::input_from_name(crate::model::facts::base_name(name), &re));
    row.environment = s(p.environment.clone());
    row.host = t.info.hostname.clone();
    row.hardware = metadata_part(
        &t.info,
        &[
            "hardware",
            "cpu_model",
            "cpu_brand",
            "gpu_model",
            "gpu_name",
            "machine",
        ],
    );
    row.versions = metadata_part(&t.info, &["version"]);
    row.rank = t.info.rank.map(i64::from);
    row.world_size = t.info.world_size.map(i64::from);
    row.backend = t.info.backend.clone();
    row.rank_unknown = Some(t.rank_unknown);
    row.data_loss = Some(p.data_loss);
    row.incomplete_slices = u(p.incomplete_slices);
    row.events = u(t.counts.events);
    row.tracks = u(t.counts.tracks);
    row.slices = u(t.counts.slices);
    row.counters = u(t.counts.counters);
    row.model_frames = u(t.counts.frames);
    row.matched_frames = u(p.frames.len() as u64);
    row.unmatched_frames = u(p.unmatched.len() as u64);
    let mut sev = [0u64; 4];
    for d in t.diagnostics.entries() {
        let k = match d.severity {
            Severity::Info => 0,
            Severity::Warning => 1,
            Severity::DataLoss => 2,
            Severity::Error => 3,
        };
        sev[k] = sev[k].saturating_add(d.count);
    }
    row.by_severity = sev.map(u);
    row.diagnostics_json = serde_json::to_string(&t.diagnostics).ok();
    row.metadata_json = serde_json::to_string(&t.info.metadata).ok();
}

#[derive(Default)]
struct FrameCols {
    id: Vec<Option<String>>,
    provider: Vec<Option<String>>,
    name: Vec<Option<String>>,
    category: Vec<Option<String>>,
    file: Vec<Option<String>>,
    line: Vec<Option<i64>>,
    function: Vec<Option<String>>,
    posted_from: Vec<Option<String>>,
}

impl FrameCols {
    fn push(&mut self, f: &scaling::FrameDescription) {
        self.id.push(s(f.semantic_frame_id.clone()));
        self.provider.push(s(f.provider.clone()));
        self.name.push(s(f.name.clone()));
        self.category.push(s(f.category.clone()));
        self.file.push(f.file.clone());
        self.line.push(f.line.map(i64::from));
        self.function.push(f.function.clone());
        self.posted_from.push(f.posted_from.clone());
    }
    fn table(self) -> Table {
        Table {
            name: "frames",
            columns: vec![
                col("semantic_frame_id", false, Values::Str(self.id)),
                col("provider", false, Values::Str(self.provider)),
                col("name", false, Values::Str(self.name)),
                col("category", false, Values::Str(self.category)),
                col("file", true, Values::Str(self.file)),
                col("line", true, Values::I64(self.line)),
                col("function", true, Values::Str(self.function)),
                col("posted_from", true, Values::Str(self.posted_from)),
            ],
        }
    }
}

#[derive(Default)]
struct CostCols {
    artifact: Vec<Option<String>>,
    id: Vec<Option<String>>,
    inclusive: Vec<Option<i64>>,
    selft: Vec<Option<i64>>,
    count: Vec<Option<i64>>,
}

impl CostCols {
    fn push(&mut self, artifact_id: &str, f: &scaling::FrameTotals) {
        self.artifact.push(s(artifact_id));
        self.id.push(s(f.frame.semantic_frame_id.clone()));
        self.inclusive.push(Some(f.inclusive_ns));
        self.selft.push(Some(f.self_ns));
        self.count.push(u(f.count));
    }
    fn table(self) -> Table {
        Table {
            name: "frame_costs",
            columns: vec![
                col("artifact_id", false, Values::Str(self.artifact)),
                col("semantic_frame_id", false, Values::Str(self.id)),
                col("inclusive_ns", false, Values::I64(self.inclusive)),
                col("self_ns", false, Values::I64(self.selft)),
                col("count", false, Values::I64(self.count)),
            ],
        }
    }
}

#[derive(Default)]
struct UnmatchedCols {
    artifact: Vec<Option<String>>,
    name: Vec<Option<String>>,
    reason: Vec<Option<String>>,
    inclusive: Vec<Option<i64>>,
    count: Vec<Option<i64>>,
}

impl UnmatchedCols {
    fn push(&mut self, artifact_id: &str, m: &scaling::UnmatchedTotals) {
        self.artifact.push(s(artifact_id));
        self.name.push(s(m.name.clone()));
        self.reason.push(s(m.reason.clone()));
        self.inclusive.push(Some(m.inclusive_ns));
        self.count.push(u(m.count));
    }
    fn table(self) -> Table {
        Table {
            name: "unmatched_costs",
            columns: vec![
                col("artifact_id", false, Values::Str(self.artifact)),
                col("name", false, Values::Str(self.name)),
                col("reason", false, Values::Str(self.reason)),
                col("inclusive_ns", false, Values::I64(self.inclusive)),
                col("count", false, Values::I64(self.count)),
            ],
        }
    }
}

/// One file's aggregate as read back: its `trials` row and, for a trace, its costs.
#[derive(Clone, Debug)]
pub struct Record {
    /// `trials.path`: the name the file was summarized under.
    pub path: String,
    pub status: Status,
    /// `trials.error` (failed and skipped files).
    pub error: Option<String>,
    /// For [`Status::Ok`]: what the workspace keeps of the trace for the scaling and
    /// comparison analyses (no call tree, compile records or memory series).
    pub prepared: Option<Prepared>,
}

fn u64_of(v: Option<i64>) -> u64 {
    v.map_or(0, |x| u64::try_from(x).unwrap_or(0))
}

fn u32_of(file: &str, column: &str, v: Option<i64>) -> Result<Option<u32>, Error> {
    v.map(|x| {
        u32::try_from(x).map_err(|_| Error::Column {
            file: file.to_string(),
            column: column.to_string(),
            problem: format!("{x} is out of range"),
        })
    })
    .transpose()
}

/// Cells of one row by column name.
struct Cells<'a> {
    file: &'a str,
    rows: &'a Rows,
    row: &'a [Field],
}

impl Cells<'_> {
    fn get(&self, c: &str) -> Result<&Field, Error> {
        let i = self.rows.col(self.file, c)?;
        self.row.get(i).ok_or_else(|| Error::Column {
            file: self.file.to_string(),
            column: c.to_string(),
            problem: "short row".into(),
        })
    }
    fn ostr(&self, c: &str) -> Result<Option<String>, Error> {
        opt_str(self.file, c, self.get(c)?)
    }
    fn rstr(&self, c: &str) -> Result<String, Error> {
        req_str(self.file, c, self.get(c)?)
    }
    fn oi64(&self, c: &str) -> Result<Option<i64>, Error> {
        opt_i64(self.file, c, self.get(c)?)
    }
    fn ri64(&self, c: &str) -> Result<i64, Error> {
        req_i64(self.file, c, self.get(c)?)
    }
    fn obool(&self, c: &str) -> Result<Option<bool>, Error> {
        match self.get(c)? {
            Field::Null => Ok(None),
            f => req_bool(self.file, c, f).map(Some),
        }
    }
}

fn each<'a>(file: &'a str, rows: &'a Rows) -> impl Iterator<Item = Cells<'a>> {
    rows.rows.iter().map(move |row| Cells { file, rows, row })
}

fn bad_value(file: &str, column: &str, problem: String) -> Error {
    Error::Column {
        file: file.to_string(),
        column: column.to_string(),
        problem,
    }
}

impl Record {
    /// Rebuilds one file's record from its decoded tables (`files` names each table's file, in
    /// [`TABLES`] order, for messages; `tables` the rows in the same order).
    ///
    /// Errors: a missing or mistyped column, a `trials` file without exactly one row, a JSON
    /// column that does not parse, an unknown status, format or compression.
    pub fn from_tables(files: [&str; 4], tables: [&Rows; 4]) -> Result<Record, Error> {
        let [frames_f, costs_f, unmatched_f, trials_f] = files;
        let [frames_t, costs_t, unmatched_t, trials_t] = tables;
        if trials_t.rows.len() != 1 {
            return Err(Error::File {
                file: trials_f.to_string(),
                problem: format!("{} rows, expected 1", trials_t.rows.len()),
            });
        }
        let r = each(trials_f, trials_t)
            .next()
            .ok_or_else(|| Error::Io(format!("{trials_f}: no row")))?;
        let path = r.rstr("path")?;
        let status_text = r.rstr("status")?;
        let status = Status::parse(&status_text).ok_or_else(|| {
            bad_value(
                trials_f,
                "status",
                format!("unknown status {status_text:?}"),
            )
        })?;
        let error = r.ostr("error")?;
        if status != Status::Ok {
            return Ok(Record {
                path,
                status,
                error,
                prepared: None,
            });
        }
        let artifact_id = r.ostr("artifact_id")?.unwrap_or_default();
        let json_err = |c: &str, e: serde_json::Error| bad_value(trials_f, c, e.to_string());
        let format: Format = serde_json::from_value(serde_json::Value::String(r.rstr("format")?))
            .map_err(|e| json_err("format", e))?;
        let compression: Compression =
            serde_json::from_value(serde_json::Value::String(r.rstr("compression")?))
                .map_err(|e| json_err("compression", e))?;
        let diagnostics: Diagnostics =
            serde_json::from_str(&r.ostr("diagnostics_json")?.unwrap_or_else(|| "[]".into()))
                .map_err(|e| json_err("diagnostics_json", e))?;
        let metadata: BTreeMap<String, String> =
            serde_json::from_str(&r.ostr("metadata_json")?.unwrap_or_else(|| "{}".into()))
                .map_err(|e| json_err("metadata_json", e))?;
        let info = TraceInfo {
            rank: u32_of(trials_f, "rank", r.oi64("rank")?)?,
            world_size: u32_of(trials_f, "world_size", r.oi64("world_size")?)?,
            backend: r.ostr("backend")?,
            hostname: r.ostr("host")?,
            metadata,
        };

        // Frame descriptions of this artifact, by id.
        let mut desc: BTreeMap<String, scaling::FrameDescription> = BTreeMap::new();
        for c in each(frames_f, frames_t) {
            let d = scaling::FrameDescription {
                semantic_frame_id: c.rstr("semantic_frame_id")?,
                provider: c.rstr("provider")?,
                name: c.rstr("name")?,
                category: c.rstr("category")?,
                file: c.ostr("file")?,
                line: u32_of(frames_f, "line", c.oi64("line")?)?,
                function: c.ostr("function")?,
                posted_from: c.ostr("posted_from")?,
            };
            desc.insert(d.semantic_frame_id.clone(), d);
        }
        let mut totals: BTreeMap<String, scaling::FrameTotals> = BTreeMap::new();
        for c in each(costs_f, costs_t) {
            let id = c.rstr("semantic_frame_id")?;
            let frame = desc.get(&id).cloned().ok_or_else(|| {
                bad_value(
                    costs_f,
                    "semantic_frame_id",
                    format!("{id} is not in the artifact's frames table"),
                )
            })?;
            totals.insert(
                id,
                scaling::FrameTotals {
                    frame,
                    inclusive_ns: c.ri64("inclusive_ns")?,
                    self_ns: c.ri64("self_ns")?,
                    count: u64_of(Some(c.ri64("count")?)),
                },
            );
        }
        let mut unmatched: BTreeMap<(String, String), scaling::UnmatchedTotals> = BTreeMap::new();
        for c in each(unmatched_f, unmatched_t) {
            let m = scaling::UnmatchedTotals {
                name: c.rstr("name")?,
                reason: c.rstr("reason")?,
                inclusive_ns: c.ri64("inclusive_ns")?,
                count: u64_of(Some(c.ri64("count")?)),
            };
            unmatched.insert((m.name.clone(), m.reason.clone()), m);
        }
        let profile = scaling::TrialProfile {
            artifact_id: artifact_id.clone(),
            frames: totals.into_values().collect(),
            unmatched: unmatched.into_values().collect(),
            data_loss: r.obool("data_loss")?.unwrap_or(false),
            environment: r.ostr("environment")?.unwrap_or_default(),
            incomplete_slices: u64_of(r.oi64("incomplete_slices")?),
        };
        let mut own = Facts::alone(&path);
        own.artifact_id = artifact_id.clone();
        own.hostname = info.hostname.clone();
        let mut trial = scaling::Trial {
            path: path.clone(),
            input: None,
            variant: "default".into(),
            environment: String::new(),
            excluded: false,
            profile,
        };
        trial.apply_facts(&own);
        let trace = TraceFile {
            format,
            counts: TraceCounts {
                events: u64_of(r.oi64("events")?),
                tracks: u64_of(r.oi64("tracks")?),
                slices: u64_of(r.oi64("slices")?),
                counters: u64_of(r.oi64("counters")?),
                frames: u64_of(r.oi64("model_frames")?),
            },
            info,
            diagnostics,
            trial,
            tree: flame::CallTree::default(),
            compile_records: Vec::new(),
            memory: Default::default(),
            counters: Vec::new(),
            rank_unknown: r.obool("rank_unknown")?.unwrap_or(false),
        };
        let source = Source {
            name: path.clone(),
            size_bytes: u64_of(r.oi64("size_bytes")?),
            decompressed_bytes: u64_of(r.oi64("decompressed_bytes")?),
            artifact_id,
            compression,
        };
        Ok(Record {
            path,
            status,
            error,
            prepared: Some(Prepared {
                source,
                facts: own,
                content: Content::Trace(Box::new(trace)),
                pins: None,
            }),
        })
    }
}

pub mod optional;
pub use optional::OPTIONAL_TABLES;
