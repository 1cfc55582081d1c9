//! Tables out of the app and the CLI as CSV (RFC 4180, via the `csv` crate): the scaling
//! hotspots, the compile-triage findings and the memory intervals. Each row is the report's own
//! serde form (the JSON the CLI's `--json` prints) flattened to the columns listed here, values
//! written as that JSON writes them (numbers exactly, `null` as an empty cell, nested values as
//! JSON text), so a CSV and the CLI's JSON agree cell for cell.

use serde::Serialize;
use serde_json::Value;

use crate::analysis::collective_memory as cm;
use crate::analysis::{compile_triage, scaling};

/// Columns of [`hotspots_csv`] (fields of [`scaling::Hotspot`]).
pub const HOTSPOT_COLUMNS: &[&str] = &[
    "variant",
    "semantic_frame_id",
    "provider",
    "name",
    "category",
    "file",
    "line",
    "function",
    "posted_from",
    "metric",
    "unit",
    "spearman_rho",
    "p_value",
    "q_value",
    "significant",
    "trials",
    "distinct_inputs",
    "supported_min",
    "supported_max",
    "zero_filled",
    "excluded",
    "missing",
    "environment_confounded",
    "evidence_status",
];

/// Columns of [`findings_csv`] (fields of [`compile_triage::Finding`]; `key.*` are the seven
/// key fields).
pub const FINDING_COLUMNS: &[&str] = &[
    "key.cell",
    "key.transform",
    "key.hardware",
    "key.hostname",
    "key.jax_version",
    "key.precision",
    "key.cache_state",
    "key_text",
    "location",
    "timestamp",
    "observed_s",
    "pinned_s",
    "ratio",
    "classification",
    "evidence",
    "action",
    "actionable",
];

/// Columns of [`intervals_csv`] (fields of [`cm::Interval`]; `evidence.*` flattened). Times
/// are ns on the report's timeline.
pub const INTERVAL_COLUMNS: &[&str] = &[
    "rank",
    "start_ns",
    "end_ns",
    "classification",
    "confidence",
    "reason_codes",
    "phase",
    "evidence.marker_hits",
    "evidence.synchronized_ranks",
    "evidence.expected_world_size",
    "evidence.synchrony_ratio",
    "evidence.peak_gap_bytes",
    "evidence.peak_gap_ratio",
    "evidence.robust_zscore",
];

/// The hotspots of a scaling report, one row each, in the report's order.
pub fn hotspots_csv(r: &scaling::Report) -> String {
    table(&r.hotspots, HOTSPOT_COLUMNS, |_, _| {})
}

/// The drift findings of a triage report, one row each, in the report's order.
/// The `location` column is the record's location as the CLI prints it (`file:line`, or
/// `file[index]` for containers without lines).
pub fn findings_csv(r: &compile_triage::Report) -> String {
    table(&r.findings, FINDING_COLUMNS, |f, v| {
        v["location"] = Value::String(f.location.to_string())
    })
}

/// The attributed memory intervals, one row each, in the report's order.
pub fn intervals_csv(r: &cm::Report) -> String {
    table(&r.intervals, INTERVAL_COLUMNS, |_, _| {})
}

/// The cell of `path` (`a.b` for nested fields) in a row's JSON form.
fn cell(row: &Value, path: &str) -> String {
    let v = path.split('.').fold(row, |v, k| &v[k]);
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `rows` as CSV with `columns`; `adjust` may rewrite a row's JSON form first.
fn table<T: Serialize>(rows: &[T], columns: &[&str], adjust: impl Fn(&T, &mut Value)) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(columns);
    for r in rows {
        let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
        adjust(r, &mut v);
        let _ = w.write_record(columns.iter().map(|c| cell(&v, c)));
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}
