//! Compile records: one measured compile of one jitted function (compile-triage.md, "Input:
//! compile records"). Produced by `formats::records` (record files) and by
//! `analysis::compile_triage::compile_records_from_model` (compile slices of a trace); read by
//! `analysis::compile_triage::run`.
//!
//! Every identity field is an `Option`: a record derived from a trace may lack fields the user
//! has to fill in. The triage only compares rows whose full key is complete.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Where a record came from: the file and its position in it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RecordLocation {
    /// File name as given by the user.
    pub file: String,
    /// 0-based index of the record in the file (line order for JSON Lines, element order for
    /// arrays, compile-slice order for traces).
    pub index: usize,
    /// 1-based line number for JSON Lines files; `None` for other containers.
    pub line: Option<usize>,
}

impl std::fmt::Display for RecordLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}", self.file, l),
            None => write!(f, "{}[{}]", self.file, self.index),
        }
    }
}

/// Whether the persistent compilation cache was expected to be populated (`cache_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheState {
    /// Empty cache: the compile is expected to run in full.
    Cold,
    /// Cache populated by an earlier process: the compile is expected to hit.
    Warm,
}

impl CacheState {
    /// `cold` / `warm`.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheState::Cold => "cold",
            CacheState::Warm => "warm",
        }
    }

    /// Parses `cold` / `warm` (ASCII case-insensitive, surrounding white space ignored).
    pub fn parse(s: &str) -> Option<CacheState> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cold" => Some(CacheState::Cold),
            "warm" => Some(CacheState::Warm),
            _ => None,
        }
    }
}

/// An ISO 8601 instant: the text as written and the instant in ns since the Unix epoch (UTC).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timestamp {
    /// The timestamp as written in the input (or rendered in UTC for trace-derived records).
    pub text: String,
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    pub unix_ns: i64,
}

/// The full key of a record (compile-triage.md, "Keys"): comparability key (hardware, hostname,
/// jax_version, precision, cache_state) + cell key (cell, transform). Complete keys only.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FullKey {
    pub hardware: String,
    pub hostname: String,
    /// `jax_version` or, for other frameworks, `framework_version`.
    pub jax_version: String,
    pub precision: String,
    pub cache_state: CacheState,
    /// What was compiled; an object cell is flattened to `k=v` pairs in sorted key order.
    pub cell: String,
    pub transform: String,
}

impl std::fmt::Display for FullKey {
    /// Readable rendering, e.g. `mlp_d8 · jit · cpu (AMD EPYC) · host vm · jax 0.10.2 · fp32 · warm`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} · {} · {} · host {} · jax {} · {} · {}",
            self.cell,
            self.transform,
            self.hardware,
            self.hostname,
            self.jax_version,
            self.precision,
            self.cache_state.as_str()
        )
    }
}

/// One compile record. Identity fields are `None` when the input lacks them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompileRecord {
    pub location: RecordLocation,
    pub hardware: Option<String>,
    pub hostname: Option<String>,
    pub jax_version: Option<String>,
    pub precision: Option<String>,
    pub cache_state: Option<CacheState>,
    pub cell: Option<String>,
    pub transform: Option<String>,
    /// Compile wall time in seconds (`compile_s` / `compile_seconds`).
    pub compile_s: Option<f64>,
    pub timestamp: Option<Timestamp>,
    /// 1-minute load average of the host at measurement (`load_avg_1m` or
    /// `host_state.load_avg_1m`); `None` = unknown, never idle.
    pub load_avg_1m: Option<f64>,
    /// Logical CPUs of the host (`cpu_count` or `host_state.cpu_count`).
    pub cpu_count: Option<f64>,
    /// Persistent-cache hits during this compile (`persistent_cache_hits`, or the JAX monitoring
    /// event `/jax/compilation_cache/cache_hits`); `None` = no direct evidence.
    pub cache_hits: Option<u64>,
    /// Persistent-cache misses (`persistent_cache_misses` or `/jax/compilation_cache/cache_misses`).
    pub cache_misses: Option<u64>,
    /// Fields the triage does not interpret, as compact JSON text, sorted by name (for display).
    pub extra: BTreeMap<String, String>,
}

impl CompileRecord {
    /// An empty record at `location` (every field unknown).
    pub fn new(location: RecordLocation) -> Self {
        CompileRecord {
            location,
            hardware: None,
            hostname: None,
            jax_version: None,
            precision: None,
            cache_state: None,
            cell: None,
            transform: None,
            compile_s: None,
            timestamp: None,
            load_avg_1m: None,
            cpu_count: None,
            cache_hits: None,
            cache_misses: None,
            extra: BTreeMap::new(),
        }
    }

    /// The full key, when all seven fields are known.
    pub fn full_key(&self) -> Option<FullKey> {
        Some(FullKey {
            hardware: self.hardware.clone()?,
            hostname: self.hostname.clone()?,
            jax_version: self.jax_version.clone()?,
            precision: self.precision.clone()?,
            cache_state: self.cache_state?,
            cell: self.cell.clone()?,
            transform: self.transform.clone()?,
        })
    }

    /// Names of the identity fields (the seven key fields and `compile_s`) this record lacks,
    /// in the spec's order.
    pub fn missing_fields(&self) -> Vec<&'static str> {
        let mut m = Vec::new();
        let checks: [(&'static str, bool); 8] = [
            ("cell", self.cell.is_some()),
            ("transform", self.transform.is_some()),
            ("hardware", self.hardware.is_some()),
            ("hostname", self.hostname.is_some()),
            ("jax_version", self.jax_version.is_some()),
            ("precision", self.precision.is_some()),
            ("cache_state", self.cache_state.is_some()),
            ("compile_s", self.compile_s.is_some()),
        ];
        for (name, present) in checks {
            if !present {
                m.push(name);
            }
        }
        m
    }
}

/// The baseline of one full key (compile-triage.md, "Pins"). Sticky: it changes only when the
/// user re-pins. Serialized flat: the seven key fields, `compile_s`, `source`,
/// `source_timestamp` (ISO 8601 text or null).
#[derive(Clone, Debug, PartialEq)]
pub struct Pin {
    pub key: FullKey,
    /// Pinned compile time in seconds.
    pub compile_s: f64,
    /// Where the value came from (a record location, a tag, or "median of N warm rows …").
    pub source: String,
    /// Newest timestamp among the rows the pin was chosen from; rows at or before it are
    /// history, not drift. `None` when unknown.
    pub source_timestamp: Option<Timestamp>,
}
