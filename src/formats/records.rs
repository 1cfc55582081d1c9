//! Compile records for the triage (compile-triage.md, "Input: compile records"): record files
//! → [`CompileRecord`]s, and `pins.json` (`parse_pins`, [`pins_to_json`]). Files reach these
//! readers only through [`super::load`]; the records of a trace's compile slices are the
//! triage's `extract` (`analysis::compile_triage::extract`).
//!
//! Containers: JSON Lines (one object a line), a JSON array of objects, or a JSON object with a
//! `records` array; any of them optionally gzip/zlib-compressed. Field aliases: `cell` (string,
//! or object flattened to sorted `k=v` pairs, or the triple `dataset_class` / `model_type` /
//! `instrument`), `jax_version` | `framework_version`, `precision` | `mixed_precision` (bool:
//! `true` → `mixed`, `false` → `full`), `compile_s` | `compile_seconds` (seconds),
//! `load_avg_1m` | `host_state.load_avg_1m`, `cpu_count` | `host_state.cpu_count`,
//! `persistent_cache_hits`/`_misses` | `jax_monitoring_events["/jax/compilation_cache/cache_hits"]`
//! /`[".../cache_misses"]`. `timestamp` is ISO 8601 text ([`parse_iso8601`]) or a number of
//! seconds since the Unix epoch. Unknown fields are kept in [`CompileRecord::extra`] (as JSON
//! text).
//!
//! Nothing is dropped silently: a record with none of the key fields is listed as
//! [`RecordFile::other_kind`]; one with some key fields missing or a field of the wrong type is
//! listed as [`RecordFile::malformed`] with its file and line/index. Only an unreadable
//! container (empty, not JSON, a trace, JSON without the records' shape: [`RECORD_SHAPE`]) is
//! an error, for that file alone.

use std::cell::Cell;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{limits, ImportError};
pub use crate::model::compile_record::{
    format_iso8601_utc, iso8601_problem, parse_iso8601, KeyDefaults,
};
use crate::model::compile_record::{
    CacheState, CompileRecord, FullKey, Pin, RecordLocation, Timestamp,
};

/// A record that was not used, with where it is and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExcludedRecord {
    pub location: RecordLocation,
    /// Human-readable reason, e.g. `missing hostname, precision`.
    pub reason: String,
}

/// Everything read from one record file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordFile {
    /// Records whose identity fields are all present and well typed.
    pub records: Vec<CompileRecord>,
    /// Records of another kind sharing the folder (none of the key fields present).
    pub other_kind: Vec<ExcludedRecord>,
    /// Records with some key fields missing, a field of the wrong type, or a line that is not JSON.
    pub malformed: Vec<ExcludedRecord>,
    /// Other-kind entries past the first [`limits::MAX_EXCLUDED_LISTED`], counted only.
    #[serde(default)]
    pub other_kind_unlisted: u64,
    /// Malformed entries past the first [`limits::MAX_EXCLUDED_LISTED`], counted only.
    #[serde(default)]
    pub malformed_unlisted: u64,
    /// Good records past [`limits::MAX_RECORDS`], counted and dropped.
    #[serde(default)]
    pub records_over_limit: u64,
}

impl RecordFile {
    /// Other-kind entries, listed or not.
    pub fn other_kind_count(&self) -> u64 {
        self.other_kind.len() as u64 + self.other_kind_unlisted
    }
    /// Malformed entries, listed or not.
    pub fn malformed_count(&self) -> u64 {
        self.malformed.len() as u64 + self.malformed_unlisted
    }
    /// True when nothing was classified at all (no record, no other-kind, no malformed entry).
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
            && self.other_kind_count() == 0
            && self.malformed_count() == 0
            && self.records_over_limit == 0
    }
    fn push_other(&mut self, e: ExcludedRecord) {
        if self.other_kind.len() < limits::MAX_EXCLUDED_LISTED {
            self.other_kind.push(e);
        } else {
            self.other_kind_unlisted += 1;
        }
    }
    fn push_malformed(&mut self, e: ExcludedRecord) {
        if self.malformed.len() < limits::MAX_EXCLUDED_LISTED {
            self.malformed.push(e);
        } else {
            self.malformed_unlisted += 1;
        }
    }
    fn push_record(&mut self, r: CompileRecord) {
        if self.records.len() < limits::MAX_RECORDS {
            self.records.push(r);
        } else {
            self.records_over_limit += 1;
        }
    }
}

/// Ceiling on decompressed bytes of a record file (256 MiB).
pub const MAX_RECORD_FILE_BYTES: u64 = 256 << 20;

/// What a file needs to be a record file (compile-triage.md, "Input: compile records"): a
/// `{"records": […]}` object, or an array / JSON Lines with at least one entry that is an
/// object with a key field (the identity fields of compile-triage.md and their aliases): a
/// record, or a malformed one. Entries of another
/// kind beside such records are listed; a file of other-kind entries only (a `package.json`,
/// `{"a":1}`) is no record file.
pub const RECORD_SHAPE: &str = "a {\"records\": […]} object, or an array or JSON Lines with at \
     least one object having a key field (cell, transform, hardware, hostname, jax_version, \
     precision, cache_state)";

/// The fields whose presence makes an object a compile record (complete or malformed); an
/// object with none of them is a record of another kind.
const KEY_FIELDS: &[&str] = &[
    "cell",
    "dataset_class",
    "instrument",
    "model_type",
    "transform",
    "hardware",
    "hostname",
    "jax_version",
    "framework_version",
    "precision",
    "mixed_precision",
    "cache_state",
];

/// Parses one decompressed record file. `file` names it in locations and errors.
///
/// Errors: [`ImportError::Empty`], [`ImportError::TooLarge`] (over [`MAX_RECORD_FILE_BYTES`]),
/// [`ImportError::NotATrace`] (not JSON at all, with what it looks like, or JSON without the
/// record shape, [`RECORD_SHAPE`]) and
/// [`ImportError::Malformed`] when the bytes are a trace (`traceEvents`, or objects with `ph`) —
/// callers import those with [`super::import`] instead (see [`is_trace_json`]).
pub(crate) fn parse_records(file: &str, data: &[u8]) -> Result<RecordFile, ImportError> {
    if data.len() as u64 > MAX_RECORD_FILE_BYTES {
        return Err(ImportError::TooLarge {
            limit_bytes: MAX_RECORD_FILE_BYTES,
        });
    }
    let text_start = data
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != 0xef && *b != 0xbb && *b != 0xbf)
        .ok_or(ImportError::Empty)?;
    let body = &data[text_start..];
    let mut out = RecordFile::default();
    // Whole-document forms first: an array, or an object with `records`, read one element at
    // a time (never a value tree of the whole file).
    if body.starts_with(b"[") || body.starts_with(b"{") {
        let mut doc = DocVisitor {
            file,
            out: RecordFile::default(),
            trace: false,
            has_records: false,
            records_key: false,
            shaped: false,
            index: 0,
        };
        let mut de = serde_json::Deserializer::from_slice(body);
        let parsed = serde::Deserializer::deserialize_any(&mut de, &mut doc)
            .and_then(|()| de.end())
            .is_ok();
        if parsed {
            if doc.trace {
                return Err(ImportError::Malformed(
                    "this is a trace, not a compile-record file".into(),
                ));
            }
            if doc.has_records {
                if !(doc.records_key || doc.shaped) {
                    return Err(no_record_shape());
                }
                return Ok(doc.out);
            }
            // A single object without `records` is a one-line JSON Lines file: fall through.
        }
    }
    // JSON Lines.
    let mut index = 0usize;
    let mut any_json = false;
    let mut shaped = false;
    // Line numbers count from the first non-blank byte of the file; add the skipped lines
    // (counted once, not per line).
    let skipped = data[..text_start].iter().filter(|&&b| b == b'\n').count();
    LINE_SCAN_BYTES.with(|c| c.set(c.get() + text_start as u64));
    for (line_no, raw) in body.split(|&b| b == b'\n').enumerate() {
        let line = trim_ascii(raw);
        if line.is_empty() {
            continue;
        }
        let loc = RecordLocation {
            file: file.to_string(),
            index,
            line: Some(line_no + 1 + skipped),
        };
        index += 1;
        match serde_json::from_slice::<Value>(line) {
            Ok(v) => {
                any_json = true;
                if index == 1 && is_trace_value(&v) {
                    return Err(ImportError::Malformed(
                        "this is a trace, not a compile-record file".into(),
                    ));
                }
                shaped |= classify(&v, loc, &mut out);
            }
            Err(e) => out.push_malformed(ExcludedRecord {
                location: loc,
                reason: format!("not JSON: {e}"),
            }),
        }
    }
    if !any_json {
        let head: String = String::from_utf8_lossy(&body[..body.len().min(40)])
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        return Err(ImportError::NotATrace {
            seen: format!("no JSON record in it (text starting with {head:?})"),
        });
    }
    if !shaped {
        return Err(no_record_shape());
    }
    Ok(out)
}

/// The error of JSON that is no record file: it lacks [`RECORD_SHAPE`].
fn no_record_shape() -> ImportError {
    ImportError::NotATrace {
        seen: format!("JSON without the shape of compile records ({RECORD_SHAPE})"),
    }
}

/// Reads a whole-document record file: an array of entries, or an object whose `records` is
/// one (a `traceEvents` key marks a trace). Each entry is built as a value on its own and
/// classified at once.
struct DocVisitor<'f> {
    file: &'f str,
    out: RecordFile,
    trace: bool,
    has_records: bool,
    /// The document is an object with a `records` array.
    records_key: bool,
    /// Some entry has a key field ([`classify`] returned true).
    shaped: bool,
    index: usize,
}

impl<'de> serde::de::Visitor<'de> for &mut DocVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of records or an object with `records`")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.has_records = true;
        while let Some(v) = seq.next_element::<Value>()? {
            if self.index == 0 && v.as_object().is_some_and(|o| o.contains_key("ph")) {
                self.trace = true;
            }
            let loc = RecordLocation {
                file: self.file.to_string(),
                index: self.index,
                line: None,
            };
            self.index += 1;
            self.shaped |= classify(&v, loc, &mut self.out);
        }
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "records" if !self.has_records => {
                    map.next_value_seed(RecordsSeed(&mut *self))?;
                    self.records_key = self.has_records;
                }
                "traceEvents" => {
                    self.trace = true;
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The `records` member: an array is read entry by entry; anything else is not a record list.
struct RecordsSeed<'v, 'f>(&'v mut DocVisitor<'f>);

impl<'de> serde::de::DeserializeSeed<'de> for RecordsSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        struct Only<'v, 'f>(&'v mut DocVisitor<'f>);
        impl<'de> serde::de::Visitor<'de> for Only<'_, '_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any value")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
                serde::de::Visitor::visit_seq(&mut *self.0, seq)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
                while m
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(())
            }
            fn visit_bool<E>(self, _: bool) -> Result<(), E> {
                Ok(())
            }
            fn visit_i64<E>(self, _: i64) -> Result<(), E> {
                Ok(())
            }
            fn visit_u64<E>(self, _: u64) -> Result<(), E> {
                Ok(())
            }
            fn visit_f64<E>(self, _: f64) -> Result<(), E> {
                Ok(())
            }
            fn visit_str<E>(self, _: &str) -> Result<(), E> {
                Ok(())
            }
            fn visit_unit<E>(self) -> Result<(), E> {
                Ok(())
            }
        }
        d.deserialize_any(Only(self.0))
    }
}

thread_local! {
    static LINE_SCAN_BYTES: Cell<u64> = const { Cell::new(0) };
}

/// Leading bytes [`parse_records`] has scanned on this thread to number JSON Lines. A test
/// hook for the complexity tests: the skipped leading lines are counted once per file.
#[doc(hidden)]
pub fn line_scan_bytes_on_this_thread() -> u64 {
    LINE_SCAN_BYTES.with(Cell::get)
}

/// True when some line among the first 64 KiB of `data` after its leading white space starts
/// (after blanks) with `{`: text
/// that the record reader should look at before it is called unreadable.
pub(crate) fn looks_like_json_lines(data: &[u8]) -> bool {
    // Leading blank lines (however many) are not part of the 64 KiB looked at.
    let data = data.trim_ascii_start();
    data[..data.len().min(64 << 10)]
        .split(|&b| b == b'\n')
        .any(|l| l.trim_ascii_start().starts_with(b"{"))
}

/// True when decompressed `data` looks like a Chrome JSON trace (`traceEvents`, or an array whose
/// first object has `ph`) rather than a record file. Looks at the first 64 KiB only.
pub(crate) fn is_trace_json(data: &[u8]) -> bool {
    let head = &data[..data.len().min(64 << 10)];
    let s = String::from_utf8_lossy(head);
    s.contains("\"traceEvents\"") || (s.trim_start().starts_with('[') && s.contains("\"ph\""))
}

fn is_trace_value(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.contains_key("traceEvents"),
        Value::Array(a) => a
            .first()
            .and_then(Value::as_object)
            .is_some_and(|o| o.contains_key("ph")),
        _ => false,
    }
}

fn trim_ascii(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|c| !c.is_ascii_whitespace());
    match start {
        None => &[],
        Some(s) => {
            let end = b
                .iter()
                .rposition(|c| !c.is_ascii_whitespace())
                .unwrap_or(s);
            &b[s..=end]
        }
    }
}

/// Fields consumed into typed record fields (not copied to `extra`).
const CONSUMED: &[&str] = &[
    "cell",
    "transform",
    "hardware",
    "hostname",
    "jax_version",
    "framework_version",
    "precision",
    "mixed_precision",
    "cache_state",
    "compile_s",
    "compile_seconds",
    "timestamp",
    "load_avg_1m",
    "cpu_count",
    "persistent_cache_hits",
    "persistent_cache_misses",
];

const TRIPLE: [&str; 3] = ["dataset_class", "instrument", "model_type"];
const HITS_EVENT: &str = "/jax/compilation_cache/cache_hits";
const MISSES_EVENT: &str = "/jax/compilation_cache/cache_misses";

/// Turns one JSON value into a record, an other-kind entry or a malformed entry. True when
/// the value has the shape of a compile record (an object with a key field: a record or a
/// malformed one).
fn classify(v: &Value, location: RecordLocation, out: &mut RecordFile) -> bool {
    let Some(obj) = v.as_object() else {
        out.push_malformed(ExcludedRecord {
            location,
            reason: format!("not a JSON object but {}", type_name(v)),
        });
        return false;
    };
    let mut problems: Vec<String> = Vec::new();
    let mut r = CompileRecord::new(location);

    // Identity presence decides other-kind vs malformed.
    let identity_present = KEY_FIELDS.iter().any(|k| obj.contains_key(*k));
    if !identity_present {
        out.push_other(ExcludedRecord {
            location: r.location,
            reason: "none of the key fields (cell, transform, hardware, hostname, jax_version, \
                     precision, cache_state)"
                .into(),
        });
        return false;
    }

    r.cell = cell_of(obj, &mut problems);
    let cell_from_triple = r.cell.is_some() && obj.get("cell").is_none_or(|c| c.is_null());
    r.transform = string_field(obj, "transform", &mut problems);
    r.hardware = string_field(obj, "hardware", &mut problems);
    r.hostname = string_field(obj, "hostname", &mut problems);
    r.jax_version = string_field(obj, "jax_version", &mut problems)
        .or_else(|| string_field(obj, "framework_version", &mut problems));
    r.precision = string_field(obj, "precision", &mut problems);
    if r.precision.is_none() {
        match obj.get("mixed_precision") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => r.precision = Some(if *b { "mixed" } else { "full" }.into()),
            Some(other) => problems.push(format!(
                "mixed_precision is {} (expected a boolean)",
                type_name(other)
            )),
        }
    }
    if let Some(s) = string_field(obj, "cache_state", &mut problems) {
        match CacheState::parse(&s) {
            Some(c) => r.cache_state = Some(c),
            None => problems.push(format!("cache_state {s:?} is neither cold nor warm")),
        }
    }
    r.compile_s = seconds_field(obj, "compile_s", &mut problems)
        .or_else(|| seconds_field(obj, "compile_seconds", &mut problems));
    match obj.get("timestamp") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => match parse_iso8601(s) {
            Some(ns) => {
                r.timestamp = Some(Timestamp {
                    text: s.clone(),
                    unix_ns: ns,
                })
            }
            None => problems.push(format!("timestamp {}", iso8601_problem(s))),
        },
        Some(Value::Number(n)) => match n.as_f64().filter(|x| x.is_finite()) {
            // Numbers are seconds since the Unix epoch.
            // Kept as ISO 8601 text, so a pin made from it is written (and read back) as such.
            Some(x) if x.abs() < 9.0e9 => {
                r.timestamp = Some(Timestamp::from_unix_ns((x * 1e9).round() as i64))
            }
            _ => problems.push(format!("timestamp {n} is out of range")),
        },
        Some(other) => problems.push(format!(
            "timestamp is {} (expected ISO 8601 text)",
            type_name(other)
        )),
    }
    let host_state = obj.get("host_state").and_then(Value::as_object);
    r.load_avg_1m = number_field(obj, "load_avg_1m", &mut problems)
        .or_else(|| host_state.and_then(|h| number_field(h, "load_avg_1m", &mut problems)));
    r.cpu_count = number_field(obj, "cpu_count", &mut problems)
        .or_else(|| host_state.and_then(|h| number_field(h, "cpu_count", &mut problems)));
    r.cache_hits = count_field(obj, "persistent_cache_hits", &mut problems);
    r.cache_misses = count_field(obj, "persistent_cache_misses", &mut problems);
    if r.cache_hits.is_none() && r.cache_misses.is_none() {
        if let Some(ev) = obj.get("jax_monitoring_events").and_then(Value::as_object) {
            if ev.contains_key(HITS_EVENT) || ev.contains_key(MISSES_EVENT) {
                // One of the two events was seen: the absent one counted zero.
                r.cache_hits = Some(count_field(ev, HITS_EVENT, &mut problems).unwrap_or(0));
                r.cache_misses = Some(count_field(ev, MISSES_EVENT, &mut problems).unwrap_or(0));
            }
        }
    }
    let mut extra = BTreeMap::new();
    for (k, v) in obj {
        let consumed_triple = cell_from_triple && TRIPLE.contains(&k.as_str());
        if !(CONSUMED.contains(&k.as_str()) || consumed_triple) {
            extra.insert(k.clone(), v.to_string());
        }
    }
    r.extra = extra;

    let missing = r.missing_fields();
    if !missing.is_empty() {
        problems.insert(0, format!("missing {}", missing.join(", ")));
    }
    if problems.is_empty() {
        out.push_record(r);
    } else {
        out.push_malformed(ExcludedRecord {
            location: r.location,
            reason: problems.join("; "),
        });
    }
    true
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Text of a scalar for a `k=v` pair (strings unquoted).
fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn cell_of(obj: &Map<String, Value>, problems: &mut Vec<String>) -> Option<String> {
    match obj.get("cell") {
        Some(Value::String(s)) if !s.is_empty() => return Some(s.clone()),
        Some(Value::Object(o)) if !o.is_empty() => {
            // serde_json's Map is sorted by key (no `preserve_order` feature); sort anyway.
            let mut pairs: Vec<(&String, &Value)> = o.iter().collect();
            pairs.sort_by(|a, b| a.0.cmp(b.0));
            let parts: Vec<String> = pairs
                .into_iter()
                .map(|(k, v)| format!("{k}={}", scalar_text(v)))
                .collect();
            return Some(parts.join(", "));
        }
        None | Some(Value::Null) => {}
        Some(other) => {
            problems.push(format!(
                "cell is {} (expected text or an object)",
                type_name(other)
            ));
            return None;
        }
    }
    let present: Vec<String> = TRIPLE
        .iter()
        .filter_map(|k| obj.get(*k).map(|v| (k, v)))
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| format!("{k}={}", scalar_text(v)))
        .collect();
    if present.is_empty() {
        None
    } else {
        // TRIPLE is in sorted key order already.
        Some(present.join(", "))
    }
}

fn string_field(obj: &Map<String, Value>, k: &str, problems: &mut Vec<String>) -> Option<String> {
    match obj.get(k) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(other) => {
            problems.push(format!("{k} is {} (expected text)", type_name(other)));
            None
        }
    }
}

fn number_field(obj: &Map<String, Value>, k: &str, problems: &mut Vec<String>) -> Option<f64> {
    match obj.get(k) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64().filter(|x| x.is_finite()) {
            Some(x) => Some(x),
            None => {
                problems.push(format!("{k} is not a finite number"));
                None
            }
        },
        Some(other) => {
            problems.push(format!("{k} is {} (expected a number)", type_name(other)));
            None
        }
    }
}

fn seconds_field(obj: &Map<String, Value>, k: &str, problems: &mut Vec<String>) -> Option<f64> {
    let x = number_field(obj, k, problems)?;
    if x < 0.0 {
        problems.push(format!("{k} is negative ({x})"));
        return None;
    }
    Some(x)
}

fn count_field(obj: &Map<String, Value>, k: &str, problems: &mut Vec<String>) -> Option<u64> {
    match obj.get(k) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                Some(u)
            } else {
                match n.as_f64() {
                    Some(x) if x >= 0.0 && x.fract() == 0.0 && x < 1e15 => Some(x as u64),
                    _ => {
                        problems.push(format!("{k} is not a count ({n})"));
                        None
                    }
                }
            }
        }
        Some(other) => {
            problems.push(format!("{k} is {} (expected a count)", type_name(other)));
            None
        }
    }
}

/// Parses a `pins.json`: `{"version": 1, "pins": [PIN, …]}` or a bare array of PINs, where a
/// PIN is an object with the seven key fields (`hardware`, `hostname`, `jax_version`,
/// `precision`, `cache_state`, `cell`, `transform`, all text), `compile_s` (seconds, ≥ 0),
/// `source` (text) and `source_timestamp` (ISO 8601 text or null).
///
/// Errors: [`ImportError::Malformed`] naming the first bad pin and field (a pins file is a
/// user's baseline: a half-read baseline would hide drift, so it is all or nothing).
pub(crate) fn parse_pins(bytes: &[u8]) -> Result<Vec<Pin>, ImportError> {
    let v: Value = serde_json::from_slice(bytes)
        .map_err(|e| ImportError::Malformed(format!("pins file is not JSON: {e}")))?;
    let items = match &v {
        Value::Array(a) => a,
        Value::Object(o) => match o.get("pins") {
            Some(Value::Array(a)) => a,
            _ => {
                return Err(ImportError::Malformed(
                    "pins file has no \"pins\" array".into(),
                ))
            }
        },
        _ => {
            return Err(ImportError::Malformed(
                "pins file must be an object or an array".into(),
            ))
        }
    };
    let mut pins = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let bad = |what: String| ImportError::Malformed(format!("pin {i}: {what}"));
        let obj = item
            .as_object()
            .ok_or_else(|| bad("not an object".into()))?;
        let text = |k: &str| -> Result<String, ImportError> {
            match obj.get(k) {
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
                _ => Err(bad(format!("{k} must be non-empty text"))),
            }
        };
        let cache_text = text("cache_state")?;
        let cache_state = CacheState::parse(&cache_text).ok_or_else(|| {
            bad(format!(
                "cache_state {cache_text:?} is neither cold nor warm"
            ))
        })?;
        let key = FullKey {
            hardware: text("hardware")?,
            hostname: text("hostname")?,
            jax_version: text("jax_version")?,
            precision: text("precision")?,
            cache_state,
            cell: text("cell")?,
            transform: text("transform")?,
        };
        let compile_s = obj
            .get("compile_s")
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| bad("compile_s must be a number of seconds ≥ 0".into()))?;
        let source = match obj.get("source") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(_) => return Err(bad("source must be text".into())),
        };
        let source_timestamp = match obj.get("source_timestamp") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(Timestamp {
                text: s.clone(),
                unix_ns: parse_iso8601(s)
                    .ok_or_else(|| bad(format!("source_timestamp {}", iso8601_problem(s))))?,
            }),
            Some(_) => return Err(bad("source_timestamp must be ISO 8601 text or null".into())),
        };
        pins.push(Pin {
            key,
            compile_s,
            source,
            source_timestamp,
        });
    }
    Ok(pins)
}

/// Serializes pins as the `pins.json` that [`super::load`] reads back (`{"version": 1, "pins": […]}`,
/// pretty-printed, in the given order).
pub fn pins_to_json(pins: &[Pin]) -> String {
    let arr: Vec<Value> = pins
        .iter()
        .map(|p| {
            serde_json::json!({
                "cell": p.key.cell,
                "transform": p.key.transform,
                "hardware": p.key.hardware,
                "hostname": p.key.hostname,
                "jax_version": p.key.jax_version,
                "precision": p.key.precision,
                "cache_state": p.key.cache_state.as_str(),
                "compile_s": p.compile_s,
                "source": p.source,
                "source_timestamp": p.source_timestamp.as_ref().map(|t| t.text.clone()),
            })
        })
        .collect();
    let doc = serde_json::json!({ "version": 1, "pins": arr });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso8601_offsets_and_fractions() {
        // 2026-11-29T10:27:01.123Z = 1_795_948_021.123 s (python:
        // datetime(2026,11,29,10,27,1,123000,tzinfo=timezone.utc).timestamp()).
        let z = parse_iso8601("2026-11-29T10:27:01.123Z").unwrap();
        assert_eq!(z, 1_795_948_021_123_000_000);
        assert_eq!(parse_iso8601("2026-11-29T12:27:01.123+02:00"), Some(z));
        assert_eq!(parse_iso8601("2026-11-29T05:27:01.123-0500"), Some(z));
        assert_eq!(parse_iso8601("2026-11-29 10:27:01.123"), Some(z));
        assert_eq!(parse_iso8601("1970-01-01"), Some(0));
        assert_eq!(parse_iso8601("1969-12-31T23:59:59Z"), Some(-1_000_000_000));
        assert_eq!(format_iso8601_utc(z), "2026-11-29T10:27:01.123Z");
        for ns in [0, 1, 999, 1_000, -1, z + 7, z + 7_000, -86_400_000_000_000] {
            assert_eq!(parse_iso8601(&format_iso8601_utc(ns)), Some(ns), "{ns}");
        }
        for bad in [
            "",
            "2026-13-01",
            "2026-02-30",
            "2026-11-29T25:00",
            "2026-11-29T10:27:01Zjunk",
            "29/11/2026",
            "2026-11-29T10:27:01+2",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }

    #[test]
    fn containers_and_aliases() {
        let line = r#"{"cell":{"b":2,"a":"x"},"transform":"jit","hardware":"cpu","hostname":"h","framework_version":"2.1","mixed_precision":true,"cache_state":"warm","compile_seconds":1.5,"timestamp":"2026-01-01T00:00:00Z","host_state":{"load_avg_1m":3.5,"cpu_count":8},"jax_monitoring_events":{"/jax/compilation_cache/cache_hits":1},"set":"s"}"#;
        let jsonl = format!("{line}\n\n{line}\n");
        let arr = format!("[{line},{line}]");
        let obj = format!("{{\"records\":[{line},{line}]}}");
        for (i, text) in [jsonl, arr, obj].iter().enumerate() {
            let f = parse_records("f", text.as_bytes()).unwrap();
            assert_eq!(f.records.len(), 2, "container {i}");
            let r = &f.records[0];
            assert_eq!(r.cell.as_deref(), Some("a=x, b=2"));
            assert_eq!(r.jax_version.as_deref(), Some("2.1"));
            assert_eq!(r.precision.as_deref(), Some("mixed"));
            assert_eq!(r.compile_s, Some(1.5));
            assert_eq!(r.load_avg_1m, Some(3.5));
            assert_eq!(r.cpu_count, Some(8.0));
            assert_eq!((r.cache_hits, r.cache_misses), (Some(1), Some(0)));
            assert_eq!(r.extra.get("set").map(String::as_str), Some("\"s\""));
        }
        let f = parse_records("f", format!("{line}\n\n{line}\n").as_bytes()).unwrap();
        assert_eq!(f.records[1].location.line, Some(3));
        assert_eq!(f.records[1].location.index, 1);
    }

    #[test]
    fn triple_cell_alias() {
        let t = r#"{"dataset_class":"D","model_type":"M","instrument":"I","transform":"vag","hardware":"gpu","hostname":"h","jax_version":"1","precision":"fp32","cache_state":"cold","compile_s":2}"#;
        let f = parse_records("f", t.as_bytes()).unwrap();
        assert_eq!(
            f.records[0].cell.as_deref(),
            Some("dataset_class=D, instrument=I, model_type=M")
        );
        assert!(!f.records[0].extra.contains_key("model_type"));
    }

    #[test]
    fn other_kind_and_malformed_are_listed() {
        let text = concat!(
            r#"{"cell":"a","transform":"jit","hardware":"cpu","hostname":"h","jax_version":"1","precision":"fp32","cache_state":"warm","compile_s":1}"#,
            "\n",
            r#"{"event":"gc","bytes":10}"#,
            "\n",
            r#"{"cell":"a","transform":"jit","hardware":"cpu","cache_state":"warm","compile_s":1}"#,
            "\n",
            "not json at all\n",
            r#"{"cell":"a","transform":"jit","hardware":"cpu","hostname":"h","jax_version":"1","precision":"fp32","cache_state":"lukewarm","compile_s":"1"}"#,
            "\n",
            "[1,2]\n"
        );
        let f = parse_records("recs.jsonl", text.as_bytes()).unwrap();
        assert_eq!(f.records.len(), 1);
        assert_eq!(f.other_kind.len(), 1);
        assert_eq!(f.other_kind[0].location.line, Some(2));
        let m: Vec<(Option<usize>, &str)> = f
            .malformed
            .iter()
            .map(|e| (e.location.line, e.reason.as_str()))
            .collect();
        assert_eq!(m.len(), 4, "{m:?}");
        assert_eq!(m[0].0, Some(3));
        assert!(m[0]
            .1
            .starts_with("missing hostname, jax_version, precision"));
        assert_eq!(m[1].0, Some(4));
        assert!(m[1].1.starts_with("not JSON"));
        assert!(m[2].1.contains("lukewarm") && m[2].1.contains("compile_s is text"));
        assert!(m[3].1.contains("not a JSON object"));
    }

    #[test]
    fn unreadable_containers_are_errors() {
        assert!(matches!(parse_records("f", b""), Err(ImportError::Empty)));
        assert!(matches!(
            parse_records("f", b"hello\nworld\n"),
            Err(ImportError::NotATrace { .. })
        ));
        assert!(parse_records("f", br#"{"traceEvents":[]}"#).is_err());
        assert!(is_trace_json(br#"{"traceEvents":[]}"#));
        assert!(!is_trace_json(br#"{"cell":"a"}"#));
    }
}
