//! The optional tables (`docs/parquet-schema.md`): written only for the artifacts that have
//! rows in them, beside the four core tables of [`super::TABLES`].
//!
//! * `compile_records` — one row per compile record of a file: the compile slices of a trace
//!   (`analysis::compile_triage::extract`) or the records of a compile-record file, with every
//!   field `trialscope triage` reads (compile-triage.md, "Input: compile records"), as the file
//!   states them (the `--hardware`/`--hostname`/… fills of `triage` are applied when analysing,
//!   not stored). [`compile_records_from_rows`] gives back exactly the records the workspace
//!   holds for the file.
//! * `memory_intervals` — the attributed hidden-memory intervals of the collective-memory
//!   analysis (collective-memory.md), one row per interval and rank. The analysis is across the
//!   ranks of a job, so it is not per file: [`memory_job`] runs it over the files of one folder
//!   (the sibling group, as `trialscope memory FOLDER` would) after they are summarized, with the
//!   `medium` preset and the default series mapping, and gives each file its rows.

use std::collections::BTreeMap;

use super::table::{opt_f64, opt_i64, opt_str, req_i64, req_str, Column, Rows, Table, Values};
use super::{Error, Outcome};
use crate::analysis::collective_memory as cm;
use crate::analysis::scaling;
use crate::model::compile_record::{CacheState, CompileRecord, RecordLocation, Timestamp};
use crate::workspace::{Content, FileId, MemoryRequest, Prepared, TraceFile, Workspace};

/// The optional tables: `compile_records` is written with each file (before `trials`),
/// `memory_intervals` after the files of its job (its folder).
pub const OPTIONAL_TABLES: [&str; 2] = ["compile_records", "memory_intervals"];

/// The version of the `compile_records` columns.
pub const COMPILE_RECORDS_VERSION: u32 = 1;

/// The version of the `memory_intervals` columns.
pub const MEMORY_INTERVALS_VERSION: u32 = 1;

/// The preset `summarize` runs the memory analysis with (`memory_intervals.preset`).
pub const MEMORY_PRESET: &str = "medium";

fn col(name: &'static str, nullable: bool, values: Values) -> Column {
    Column {
        name,
        nullable,
        values,
    }
}

fn sat(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The `compile_records` table of one file: its compile records (a trace's compile slices, or a
/// record file's records) in file order; `None` when it has none (or did not load).
pub fn compile_records_table(outcome: &Outcome) -> Option<Table> {
    let Outcome::Loaded(p) = outcome else {
        return None;
    };
    let (source, records): (&str, &[CompileRecord]) = match &p.content {
        Content::Trace(t) => ("trace", &t.compile_records),
        Content::Records(f) => ("records", &f.file.records),
        _ => return None,
    };
    if records.is_empty() {
        return None;
    }
    let aid = &p.source.artifact_id;
    let strs =
        |f: &dyn Fn(&CompileRecord) -> Option<String>| Values::Str(records.iter().map(f).collect());
    let ints =
        |f: &dyn Fn(&CompileRecord) -> Option<i64>| Values::I64(records.iter().map(f).collect());
    let dbls =
        |f: &dyn Fn(&CompileRecord) -> Option<f64>| Values::F64(records.iter().map(f).collect());
    Some(Table {
        name: "compile_records",
        columns: vec![
            col("artifact_id", false, strs(&|_| Some(aid.clone()))),
            col("source", false, strs(&|_| Some(source.to_string()))),
            col("file", false, strs(&|r| Some(r.location.file.clone()))),
            col(
                "record_index",
                false,
                ints(&|r| Some(sat(r.location.index as u64))),
            ),
            col(
                "line",
                true,
                ints(&|r| r.location.line.map(|l| sat(l as u64))),
            ),
            col("cell", true, strs(&|r| r.cell.clone())),
            col("transform", true, strs(&|r| r.transform.clone())),
            col("hardware", true, strs(&|r| r.hardware.clone())),
            col("hostname", true, strs(&|r| r.hostname.clone())),
            col("jax_version", true, strs(&|r| r.jax_version.clone())),
            col("precision", true, strs(&|r| r.precision.clone())),
            col(
                "cache_state",
                true,
                strs(&|r| r.cache_state.map(|c| c.as_str().to_string())),
            ),
            col("compile_s", true, dbls(&|r| r.compile_s)),
            col(
                "timestamp",
                true,
                strs(&|r| r.timestamp.as_ref().map(|t| t.text.clone())),
            ),
            col(
                "timestamp_unix_ns",
                true,
                ints(&|r| r.timestamp.as_ref().map(|t| t.unix_ns)),
            ),
            col("load_avg_1m", true, dbls(&|r| r.load_avg_1m)),
            col("cpu_count", true, dbls(&|r| r.cpu_count)),
            col("cache_hits", true, ints(&|r| r.cache_hits.map(sat))),
            col("cache_misses", true, ints(&|r| r.cache_misses.map(sat))),
            col(
                "extra_json",
                false,
                strs(&|r| serde_json::to_string(&r.extra).ok()),
            ),
        ],
    })
}

fn bad(file: &str, column: &str, problem: String) -> Error {
    Error::Column {
        file: file.to_string(),
        column: column.to_string(),
        problem,
    }
}

fn unsigned(file: &str, column: &str, v: Option<i64>) -> Result<Option<u64>, Error> {
    v.map(|x| u64::try_from(x).map_err(|_| bad(file, column, format!("{x} is negative"))))
        .transpose()
}

/// The compile records of one decoded `compile_records` file (`file` names it in messages), in
/// the stored order: each exactly as the workspace held it when the file was summarized.
///
/// Errors: a missing or mistyped column, a negative index or count, an unknown cache state, a
/// timestamp with only one of its text and instant, or `extra_json` that is not a JSON object
/// of text.
pub fn compile_records_from_rows(file: &str, rows: &Rows) -> Result<Vec<CompileRecord>, Error> {
    let idx = |c: &str| rows.col(file, c);
    let names = [
        "file",
        "record_index",
        "line",
        "cell",
        "transform",
        "hardware",
        "hostname",
        "jax_version",
        "precision",
        "cache_state",
        "compile_s",
        "timestamp",
        "timestamp_unix_ns",
        "load_avg_1m",
        "cpu_count",
        "cache_hits",
        "cache_misses",
        "extra_json",
    ];
    let mut at = BTreeMap::new();
    for n in names {
        at.insert(n, idx(n)?);
    }
    let mut out = Vec::with_capacity(rows.rows.len());
    for row in &rows.rows {
        let get = |c: &str| {
            row.get(at[c])
                .ok_or_else(|| bad(file, c, "short row".into()))
        };
        let ostr = |c: &str| opt_str(file, c, get(c)?);
        let oi64 = |c: &str| opt_i64(file, c, get(c)?);
        let of64 = |c: &str| opt_f64(file, c, get(c)?);
        let index = unsigned(
            file,
            "record_index",
            Some(req_i64(file, "record_index", get("record_index")?)?),
        )?
        .unwrap_or(0);
        let line = unsigned(file, "line", oi64("line")?)?;
        let mut r = CompileRecord::new(RecordLocation {
            file: req_str(file, "file", get("file")?)?,
            index: usize::try_from(index).unwrap_or(usize::MAX),
            line: line.map(|l| usize::try_from(l).unwrap_or(usize::MAX)),
        });
        r.cell = ostr("cell")?;
        r.transform = ostr("transform")?;
        r.hardware = ostr("hardware")?;
        r.hostname = ostr("hostname")?;
        r.jax_version = ostr("jax_version")?;
        r.precision = ostr("precision")?;
        r.cache_state =
            match ostr("cache_state")? {
                None => None,
                Some(s) => Some(CacheState::parse(&s).ok_or_else(|| {
                    bad(file, "cache_state", format!("unknown cache state {s:?}"))
                })?),
            };
        r.compile_s = of64("compile_s")?;
        r.timestamp = match (ostr("timestamp")?, oi64("timestamp_unix_ns")?) {
            (Some(text), Some(unix_ns)) => Some(Timestamp { text, unix_ns }),
            (None, None) => None,
            _ => {
                return Err(bad(
                    file,
                    "timestamp",
                    "text and timestamp_unix_ns must both be set or both null".into(),
                ))
            }
        };
        r.load_avg_1m = of64("load_avg_1m")?;
        r.cpu_count = of64("cpu_count")?;
        r.cache_hits = unsigned(file, "cache_hits", oi64("cache_hits")?)?;
        r.cache_misses = unsigned(file, "cache_misses", oi64("cache_misses")?)?;
        r.extra = serde_json::from_str(&req_str(file, "extra_json", get("extra_json")?)?)
            .map_err(|e| bad(file, "extra_json", e.to_string()))?;
        out.push(r);
    }
    Ok(out)
}

/// What the memory analysis needs of a loaded file, when it is a memory source (a trace — every
/// trace is a rank of its job, with or without memory series — or a memory telemetry file): a
/// copy without the call tree, the frame costs, the compile records and the counters kept for
/// re-mapping (`summarize` maps with the defaults), so a job's files can be held until it is
/// analysed.
pub fn memory_source(outcome: &Outcome) -> Option<Prepared> {
    let Outcome::Loaded(p) = outcome else {
        return None;
    };
    let content = match &p.content {
        Content::Trace(t) => {
            let tr = &t.trial;
            Content::Trace(Box::new(TraceFile {
                format: t.format,
                counts: t.counts.clone(),
                info: t.info.clone(),
                diagnostics: t.diagnostics.clone(),
                trial: scaling::Trial {
                    path: tr.path.clone(),
                    input: tr.input,
                    variant: tr.variant.clone(),
                    environment: tr.environment.clone(),
                    excluded: tr.excluded,
                    profile: scaling::TrialProfile {
                        artifact_id: tr.profile.artifact_id.clone(),
                        frames: Vec::new(),
                        unmatched: Vec::new(),
                        data_loss: tr.profile.data_loss,
                        environment: tr.profile.environment.clone(),
                        incomplete_slices: tr.profile.incomplete_slices,
                    },
                },
                tree: Default::default(),
                compile_records: Vec::new(),
                memory: t.memory.clone(),
                counters: Vec::new(),
                rank_unknown: t.rank_unknown,
            }))
        }
        Content::Telemetry(f) => Content::Telemetry(f.clone()),
        _ => return None,
    };
    Some(Prepared {
        source: p.source.clone(),
        facts: p.facts.clone(),
        content,
        pins: None,
    })
}

/// The `memory_intervals` tables of one job: `files` are its memory sources ([`memory_source`])
/// with their names, in the order `trialscope memory` would load them (path order for a
/// folder). Runs the workspace's memory analysis ([`Workspace::memory`], preset
/// [`MEMORY_PRESET`], default mapping) over them and returns, per file in `files` order, its
/// table (`None` when the file has no interval). `job` is stored in the `job` column (the
/// folder).
///
/// Errors: the analysis's own (a preset it does not know; not expected).
pub fn memory_job(job: &str, files: Vec<(String, Prepared)>) -> Result<Vec<Option<Table>>, Error> {
    let n = files.len();
    let keys: Vec<(String, String)> = files
        .iter()
        .map(|(name, p)| (name.clone(), p.source.artifact_id.clone()))
        .collect();
    let mut ws = Workspace::new();
    ws.add_prepared_all(
        (0 as FileId..)
            .zip(files)
            .map(|(id, (name, p))| (id, name, Ok(p)))
            .collect(),
    );
    let out = ws
        .memory(&MemoryRequest {
            preset: MEMORY_PRESET.into(),
            overrides: Vec::new(),
            mapping: None,
            rank_overrides: Vec::new(),
        })
        .map_err(Error::Io)?;
    let mut per: Vec<Vec<(u32, &cm::Interval)>> = vec![Vec::new(); n];
    for iv in &out.report.intervals {
        if let Some(s) = out.sources.iter().find(|s| s.rank == iv.rank) {
            if let Some(v) = per.get_mut(s.id as usize) {
                v.push((s.part, iv));
            }
        }
    }
    Ok(per
        .into_iter()
        .zip(keys)
        .map(|(ivs, (name, aid))| {
            (!ivs.is_empty()).then(|| intervals_table(job, &name, &aid, out.origin_ns, &ivs))
        })
        .collect())
}

fn intervals_table(
    job: &str,
    name: &str,
    aid: &str,
    origin_ns: i64,
    ivs: &[(u32, &cm::Interval)],
) -> Table {
    let each_s = |v: &str| Values::Str(vec![Some(v.to_string()); ivs.len()]);
    let strs = |f: &dyn Fn(&cm::Interval) -> Option<String>| {
        Values::Str(ivs.iter().map(|(_, iv)| f(iv)).collect())
    };
    let ints = |f: &dyn Fn(u32, &cm::Interval) -> Option<i64>| {
        Values::I64(ivs.iter().map(|(p, iv)| f(*p, iv)).collect())
    };
    let dbls = |f: &dyn Fn(&cm::Interval) -> Option<f64>| {
        Values::F64(ivs.iter().map(|(_, iv)| f(iv)).collect())
    };
    Table {
        name: "memory_intervals",
        columns: vec![
            col("artifact_id", false, each_s(aid)),
            col("file", false, each_s(name)),
            col("job", false, each_s(job)),
            col("preset", false, each_s(MEMORY_PRESET)),
            col("part", false, ints(&|p, _| Some(i64::from(p)))),
            col("rank", false, ints(&|_, iv| Some(i64::from(iv.rank)))),
            col("origin_ns", false, ints(&|_, _| Some(origin_ns))),
            col("start_ns", false, ints(&|_, iv| Some(iv.start_ns))),
            col("end_ns", false, ints(&|_, iv| Some(iv.end_ns))),
            col(
                "classification",
                false,
                strs(&|iv| Some(iv.classification.as_str().to_string())),
            ),
            col("confidence", false, dbls(&|iv| Some(iv.confidence))),
            col(
                "reason_codes",
                false,
                strs(&|iv| {
                    Some(
                        iv.reason_codes
                            .iter()
                            .map(|c| c.as_str())
                            .collect::<Vec<_>>()
                            .join(","),
                    )
                }),
            ),
            col("phase", true, strs(&|iv| iv.phase.clone())),
            col(
                "marker_hits",
                false,
                ints(&|_, iv| Some(sat(iv.evidence.marker_hits as u64))),
            ),
            col(
                "synchronized_ranks",
                false,
                ints(&|_, iv| Some(sat(iv.evidence.synchronized_ranks as u64))),
            ),
            col(
                "expected_world_size",
                false,
                ints(&|_, iv| Some(i64::from(iv.evidence.expected_world_size))),
            ),
            col(
                "synchrony_ratio",
                false,
                dbls(&|iv| Some(iv.evidence.synchrony_ratio)),
            ),
            col(
                "peak_gap_bytes",
                false,
                dbls(&|iv| Some(iv.evidence.peak_gap_bytes)),
            ),
            col(
                "peak_gap_ratio",
                true,
                dbls(&|iv| iv.evidence.peak_gap_ratio),
            ),
            col(
                "robust_zscore",
                false,
                dbls(&|iv| Some(iv.evidence.robust_zscore)),
            ),
        ],
    }
}
