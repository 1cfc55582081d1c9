//! Memory telemetry as JSON Lines (collective-memory.md, "Telemetry records"): the second input
//! form of the rank memory analysis.
//!
//! One JSON object per line:
//!
//! | field | type | meaning |
//! |---|---|---|
//! | `timestamp_ns` | integer (required) | time of the record, ns (wall clock since the epoch) |
//! | `event_type` | string (required) | `sample`, or a marker type (e.g. `nccl_all_reduce`) |
//! | `rank` | integer ≥ 0 or null | rank of the process |
//! | `world_size` | integer ≥ 1 or null | ranks in the job |
//! | `device_used_bytes` | number ≥ 0 or null | device memory used as the driver sees it |
//! | `allocator_reserved_bytes` | number ≥ 0 or null | caching allocator's reserved memory |
//! | `allocator_allocated_bytes` | number ≥ 0 or null | live tensors |
//! | `device_total_bytes` | number ≥ 0 or null | device capacity |
//! | `context` | string or null | free text (e.g. the operation) |
//! | `metadata` | object or null | anything else |
//! | `session_id` | string or null | the recording session |
//! | `schema_version` | integer or string, optional | must be one of [`SCHEMA_VERSIONS`] when present |
//! | `duration_ns` | integer ≥ 0, optional (extension) | makes a marker an interval |
//!
//! Each rank becomes one [`Model`]: the byte fields become counter series named as the fields
//! (unit `bytes`, `pid` = rank), marker records become slices on a track `telemetry events`
//! (name = `event_type`, category `telemetry`, args `context`, `metadata` as JSON text,
//! `session_id`), and `model.info` gets `rank`, `world_size` and
//! `metadata["session_id"]`. The analysis then reads the models like any other trace.
//!
//! A malformed line (not JSON, not an object, a field of the wrong type) is reported with its
//! file and line number and skipped; the rest imports. A record with an unknown
//! `schema_version` refuses the whole file ([`TelemetryError::UnsupportedSchema`]).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::model::diagnostics::Kind;
use crate::model::{
    ArgValue, CounterSeries, Diagnostics, FrameId, Model, SliceBuilder, SliceEvents, StrId, Track,
    TrackKind,
};

/// Schema versions this reader understands.
pub const SCHEMA_VERSIONS: &[&str] = &["1", "1.0"];

/// The byte-valued fields, in the order their counter series are created.
pub const BYTE_FIELDS: &[&str] = &[
    "device_used_bytes",
    "allocator_reserved_bytes",
    "allocator_allocated_bytes",
    "device_total_bytes",
];

/// Bad lines kept with their text in [`TelemetryImport::bad_lines`] (all are counted).
pub const MAX_BAD_LINES_KEPT: usize = 1000;

/// Why a telemetry file is refused as a whole.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TelemetryError {
    /// A record names a schema version this reader does not know.
    #[error(
        "{file}:{line}: unsupported telemetry schema version {version:?} (supported: {supported})"
    )]
    UnsupportedSchema {
        /// The file.
        file: String,
        /// 1-based line of the first such record.
        line: u64,
        /// The version as written.
        version: String,
        /// The versions this reader knows.
        supported: String,
    },
    /// Not one line is a telemetry record.
    #[error("{file}: no telemetry record found ({bad} malformed lines)")]
    NoRecords {
        /// The file.
        file: String,
        /// Malformed lines seen.
        bad: u64,
    },
}

/// One skipped line.
#[derive(Clone, Debug, PartialEq)]
pub struct BadLine {
    /// 1-based line number.
    pub line: u64,
    /// What is wrong with it.
    pub message: String,
}

/// What the telemetry reader took from one file ([`super::Loaded::Telemetry`]).
#[derive(Debug, Default)]
pub struct TelemetryImport {
    /// One model per rank, in rank order; records without a rank form a last model whose
    /// `info.rank` is `None`.
    pub models: Vec<Model>,
    /// Records read (samples and markers).
    pub records: u64,
    /// Malformed lines (the first [`MAX_BAD_LINES_KEPT`]).
    pub bad_lines: Vec<BadLine>,
    /// `telemetry_bad_line` (severity data loss) counting every malformed line, first line
    /// number as `first_index`.
    pub diagnostics: Diagnostics,
}

/// True when the first non-empty line of `data` is a JSON object with a `timestamp_ns` and an
/// `event_type` field (a cheap test used before the Chrome JSON detection, which would also
/// claim such text).
pub(crate) fn looks_like_telemetry(data: &[u8]) -> bool {
    // Leading blank lines (however many) are not part of the 64 KiB looked at.
    let data = data.trim_ascii_start();
    let head = &data[..data.len().min(1 << 16)];
    let Some(line) = head
        .split(|&b| b == b'\n')
        .map(|l| l.trim_ascii())
        .find(|l| !l.is_empty())
    else {
        return false;
    };
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(m)) => m.contains_key("timestamp_ns") && m.contains_key("event_type"),
        // A first line longer than the head (a large `metadata` value) is cut: its members
        // are read up to the cut.
        Err(e) if e.is_eof() => cut_object_has_keys(line),
        _ => false,
    }
}

/// True when the top-level members of the JSON object at the start of `text`, read up to
/// where `text` is cut (inside a member is fine), include `timestamp_ns` and `event_type`.
fn cut_object_has_keys(text: &[u8]) -> bool {
    use super::chrome_json::lexer::{JVal, Lexer};
    let mut lx = Lexer::new(text, 0);
    if lx.peek() != Some(b'{') {
        return false;
    }
    lx.pos += 1;
    let (mut ts, mut kind) = (false, false);
    while lx.peek() == Some(b'"') {
        let Ok(JVal::Str(k)) = lx.value(1, false) else {
            break;
        };
        ts |= &k[..] == b"timestamp_ns";
        kind |= &k[..] == b"event_type";
        if ts && kind {
            return true;
        }
        if lx.peek() != Some(b':') {
            break;
        }
        lx.pos += 1;
        if lx.skip_value(1, false).is_err() || lx.peek() != Some(b',') {
            break;
        }
        lx.pos += 1;
    }
    false
}

/// A marker record waiting to become a slice.
struct PendingMarker {
    ts: i64,
    dur: Option<i64>,
    event_type: String,
    context: Option<String>,
    metadata: Option<String>,
    session: Option<String>,
}

#[derive(Default)]
struct RankAcc {
    world_size: Option<u32>,
    session: Option<String>,
    series: [(Vec<i64>, Vec<f64>); 4],
    markers: Vec<PendingMarker>,
}

fn opt_str(m: &Map<String, Value>, k: &str) -> Result<Option<String>, String> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(format!("`{k}` must be a string, got {v}")),
    }
}

fn opt_uint(m: &Map<String, Value>, k: &str) -> Result<Option<u64>, String> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("`{k}` must be a non-negative integer, got {v}")),
    }
}

fn opt_bytes(m: &Map<String, Value>, k: &str) -> Result<Option<f64>, String> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(Some)
            .ok_or_else(|| format!("`{k}` must be a number ≥ 0 (bytes), got {v}")),
    }
}

fn schema_of(m: &Map<String, Value>) -> Option<String> {
    let v = m.get("schema_version")?;
    Some(match v {
        Value::String(s) => s.clone(),
        Value::Null => return None,
        other => other.to_string(),
    })
}

/// Parses one record into the accumulator of its rank.
fn read_record(
    m: &Map<String, Value>,
    ranks: &mut BTreeMap<Option<u32>, RankAcc>,
) -> Result<(), String> {
    let ts = match m.get("timestamp_ns") {
        Some(v) => v
            .as_i64()
            .ok_or_else(|| format!("`timestamp_ns` must be an integer (ns), got {v}"))?,
        None => return Err("missing `timestamp_ns`".into()),
    };
    let event_type = match m.get("event_type") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => return Err(format!("`event_type` must be a string, got {v}")),
        None => return Err("missing `event_type`".into()),
    };
    let rank = opt_uint(m, "rank")?
        .map(|r| u32::try_from(r).map_err(|_| format!("`rank` {r} is out of range")))
        .transpose()?;
    let world = opt_uint(m, "world_size")?
        .map(|w| u32::try_from(w).map_err(|_| format!("`world_size` {w} is out of range")))
        .transpose()?;
    let mut bytes = [None; 4];
    for (i, f) in BYTE_FIELDS.iter().enumerate() {
        bytes[i] = opt_bytes(m, f)?;
    }
    let context = opt_str(m, "context")?;
    let session = opt_str(m, "session_id")?;
    let metadata = match m.get("metadata") {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(_)) => Some(v.to_string()),
        Some(v) => return Err(format!("`metadata` must be an object, got {v}")),
    };
    let dur = opt_uint(m, "duration_ns")?
        .map(|d| i64::try_from(d).map_err(|_| format!("`duration_ns` {d} is out of range")))
        .transpose()?;

    let acc = ranks.entry(rank).or_default();
    if let Some(w) = world {
        acc.world_size = Some(acc.world_size.map_or(w, |x| x.max(w)));
    }
    if acc.session.is_none() {
        acc.session = session.clone();
    }
    if event_type == "sample" {
        for (i, b) in bytes.iter().enumerate() {
            if let Some(b) = b {
                acc.series[i].0.push(ts);
                acc.series[i].1.push(*b);
            }
        }
    } else {
        acc.markers.push(PendingMarker {
            ts,
            dur,
            event_type,
            context,
            metadata,
            session,
        });
    }
    Ok(())
}

fn build_model(rank: Option<u32>, acc: RankAcc) -> Model {
    let mut model = Model::default();
    model.info.rank = rank;
    model.info.world_size = acc.world_size;
    if let Some(s) = &acc.session {
        model.info.metadata.insert("session_id".into(), s.clone());
    }
    let pid = rank.map(i64::from);
    let bytes = model.strings.intern("bytes");
    for (i, (ts, vals)) in acc.series.into_iter().enumerate() {
        if ts.is_empty() {
            continue;
        }
        let name = model.strings.intern(BYTE_FIELDS[i]);
        let track = model.add_track(Track {
            name,
            kind: TrackKind::Counter,
            pid,
            tid: None,
            parent: None,
            overflow_of: None,
        });
        let mut pairs: Vec<(i64, f64)> = ts.into_iter().zip(vals).collect();
        pairs.sort_by_key(|p| p.0);
        model.counters.push(CounterSeries {
            track,
            name,
            unit: bytes,
            pid,
            ts_ns: pairs.iter().map(|p| p.0).collect(),
            value: pairs.iter().map(|p| p.1).collect(),
        });
    }
    if !acc.markers.is_empty() {
        let tname = model.strings.intern("telemetry events");
        let track = model.add_track(Track {
            name: tname,
            kind: TrackKind::Process,
            pid,
            tid: None,
            parent: None,
            overflow_of: None,
        });
        let cat = model.strings.intern("telemetry");
        let k_context = model.strings.intern("context");
        let k_metadata = model.strings.intern("metadata");
        let k_session = model.strings.intern("session_id");
        let mut b = SliceBuilder::new();
        for PendingMarker {
            ts,
            dur,
            event_type,
            context,
            metadata,
            session,
        } in acc.markers
        {
            let name = model.strings.intern(&event_type);
            let mut args: Vec<(StrId, ArgValue)> = Vec::new();
            if let Some(c) = context {
                args.push((k_context, ArgValue::Str(model.strings.intern(&c))));
            }
            if let Some(m) = metadata {
                args.push((k_metadata, ArgValue::Text(m)));
            }
            if let Some(s) = session {
                args.push((k_session, ArgValue::Str(model.strings.intern(&s))));
            }
            let args = model.args.add(args);
            match dur {
                Some(d) => b.complete(track, ts, d, name, cat, FrameId(0), args, 0),
                None => b.instant(track, ts, name, cat, FrameId(0), args, 0),
            }
        }
        b.finish(&mut model);
    }
    model
}

/// Imports decompressed telemetry JSON Lines named `file` (used in messages).
///
/// Errors: [`TelemetryError::UnsupportedSchema`] when any record names an unknown
/// `schema_version`; [`TelemetryError::NoRecords`] when no line is a record. Malformed lines
/// are skipped and reported in [`TelemetryImport::bad_lines`] and `diagnostics`.
pub(crate) fn import(file: &str, data: &[u8]) -> Result<TelemetryImport, TelemetryError> {
    let mut out = TelemetryImport::default();
    let mut ranks: BTreeMap<Option<u32>, RankAcc> = BTreeMap::new();
    let mut offset: u64 = 0;
    for (i, raw) in data.split(|&b| b == b'\n').enumerate() {
        let line_no = i as u64 + 1;
        let line_offset = offset;
        offset += raw.len() as u64 + 1;
        let line = raw.trim_ascii();
        if line.is_empty() {
            continue;
        }
        let result = match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(m)) => {
                if let Some(v) = schema_of(&m) {
                    if !SCHEMA_VERSIONS.contains(&v.as_str()) {
                        return Err(TelemetryError::UnsupportedSchema {
                            file: file.to_string(),
                            line: line_no,
                            version: v,
                            supported: SCHEMA_VERSIONS.join(", "),
                        });
                    }
                }
                read_record(&m, &mut ranks)
            }
            Ok(_) => Err("the line is not a JSON object".to_string()),
            Err(e) => Err(format!("not JSON: {e}")),
        };
        match result {
            Ok(()) => out.records += 1,
            Err(message) => {
                out.diagnostics.add(
                    Kind::TelemetryBadLine,
                    Some(line_offset),
                    Some(line_no),
                    || Some(format!("{file}:{line_no}: {message}")),
                );
                if out.bad_lines.len() < MAX_BAD_LINES_KEPT {
                    out.bad_lines.push(BadLine {
                        line: line_no,
                        message,
                    });
                }
            }
        }
    }
    if out.records == 0 {
        return Err(TelemetryError::NoRecords {
            file: file.to_string(),
            bad: out.diagnostics.count(Kind::TelemetryBadLine),
        });
    }
    // BTreeMap order puts `None` first; the rankless model goes last.
    let mut rankless = None;
    for (rank, acc) in ranks {
        let m = build_model(rank, acc);
        if rank.is_none() {
            rankless = Some(m);
        } else {
            out.models.push(m);
        }
    }
    out.models.extend(rankless);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_telemetry_but_not_chrome_json() {
        assert!(looks_like_telemetry(
            b"\n{\"timestamp_ns\": 1, \"event_type\": \"sample\"}\n{}"
        ));
        assert!(!looks_like_telemetry(b"{\"traceEvents\": []}"));
        assert!(!looks_like_telemetry(b"[{\"ph\":\"X\"}]"));
        assert!(!looks_like_telemetry(b""));
    }

    #[test]
    fn unknown_schema_is_refused_naming_the_version_and_line() {
        let data = b"{\"timestamp_ns\":1,\"event_type\":\"sample\",\"schema_version\":1}\n\
{\"timestamp_ns\":2,\"event_type\":\"sample\",\"schema_version\":\"7\"}\n";
        let e = import("t.jsonl", data).unwrap_err();
        assert_eq!(
            e,
            TelemetryError::UnsupportedSchema {
                file: "t.jsonl".into(),
                line: 2,
                version: "7".into(),
                supported: "1, 1.0".into()
            }
        );
        assert!(e
            .to_string()
            .contains("unsupported telemetry schema version"));
    }

    #[test]
    fn fields_of_the_wrong_type_are_bad_lines() {
        let data =
            b"{\"timestamp_ns\":1,\"event_type\":\"sample\",\"rank\":0,\"device_used_bytes\":5}\n\
{\"timestamp_ns\":\"2\",\"event_type\":\"sample\"}\n\
{\"timestamp_ns\":3,\"event_type\":\"sample\",\"device_used_bytes\":-1}\n\
{\"timestamp_ns\":4,\"event_type\":\"sample\",\"rank\":-2}\n\
[1,2]\n\
{\"timestamp_ns\":5,\"event_type\":\"nccl\",\"rank\":0,\"metadata\":[]}\n";
        let t = import("t.jsonl", data).unwrap();
        assert_eq!(t.records, 1);
        let lines: Vec<u64> = t.bad_lines.iter().map(|b| b.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6]);
        assert_eq!(t.diagnostics.count("telemetry_bad_line"), 5);
        assert!(t.bad_lines[1].message.contains("device_used_bytes"));
        assert!(import("t.jsonl", b"nope\n").is_err());
    }
}
