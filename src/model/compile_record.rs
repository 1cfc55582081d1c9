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

impl Timestamp {
    /// Parses ISO 8601 text ([`parse_iso8601`]), keeping the text as written.
    pub fn parse(text: &str) -> Option<Timestamp> {
        Some(Timestamp {
            text: text.to_string(),
            unix_ns: parse_iso8601(text)?,
        })
    }

    /// The instant `unix_ns`, rendered as ISO 8601 UTC ([`format_iso8601_utc`]).
    pub fn from_unix_ns(unix_ns: i64) -> Timestamp {
        Timestamp {
            text: format_iso8601_utc(unix_ns),
            unix_ns,
        }
    }
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
            "{} · {} · {} · host {} · {} · {} · {}",
            self.cell,
            self.transform,
            self.hardware,
            self.hostname,
            version_label(&self.jax_version),
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
/// `source_timestamp` (ISO 8601 text or null) in `pins.json` (`formats::records::pins_to_json`);
/// its serde form (nested, for crossing a worker boundary) is not that file format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

/// Days from 1970-01-01 to the proleptic Gregorian date (H. Hinnant, "chrono-Compatible
/// Low-Level Date Algorithms", `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Hinnant, `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Renders ns since the Unix epoch as ISO 8601 UTC, with as many fraction digits as needed
/// (0, 3, 6 or 9) to round-trip exactly through [`parse_iso8601`]
/// (`2026-11-29T10:27:01.123Z`, `2026-11-29T10:25:08.343347566Z`).
pub fn format_iso8601_utc(unix_ns: i64) -> String {
    let secs = unix_ns.div_euclid(1_000_000_000);
    let sub = unix_ns.rem_euclid(1_000_000_000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let frac = if sub == 0 {
        String::new()
    } else if sub % 1_000_000 == 0 {
        format!(".{:03}", sub / 1_000_000)
    } else if sub % 1_000 == 0 {
        format!(".{:06}", sub / 1_000)
    } else {
        format!(".{sub:09}")
    };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{frac}Z",
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

/// Parses an ISO 8601 / RFC 3339 instant to ns since the Unix epoch.
///
/// Accepts `YYYY-MM-DD`, optionally followed by `T` (or a space) and `HH:MM[:SS[.fraction]]`,
/// optionally followed by `Z` or an offset `±HH[:MM]` / `±HHMM`. A time without an offset is
/// taken as UTC. Returns `None` for anything else or out-of-range fields.
/// Why [`parse_iso8601`] refused `s`, for messages: `"…" is out of range (…)` when it is a
/// date whose instant does not fit in i64 nanoseconds since 1970 (before 1677-09-21 or after
/// 2262-04-11 UTC), else `"…" is not ISO 8601`.
pub fn iso8601_problem(s: &str) -> String {
    let t = s.trim().as_bytes();
    let year = t
        .get(0..4)
        .filter(|y| y.iter().all(u8::is_ascii_digit))
        .and_then(|y| std::str::from_utf8(y).ok()?.parse::<i64>().ok());
    match year {
        Some(y) if t.get(4) == Some(&b'-') && !(1678..=2261).contains(&y) => format!(
            "{s:?} is out of range (times are ns since 1970 in 64 bits: 1677-09-21 to 2262-04-11 UTC)"
        ),
        _ => format!("{s:?} is not ISO 8601"),
    }
}

pub fn parse_iso8601(s: &str) -> Option<i64> {
    let b = s.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let year = num(0..4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let month = num(5..7)?;
    let day = num(8..10)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut secs = days_from_civil(year, month, day) * 86_400;
    let mut nanos: i64 = 0;
    let mut i = 10;
    if i < b.len() {
        if b[i] != b'T' && b[i] != b't' && b[i] != b' ' {
            return None;
        }
        let hh = num(i + 1..i + 3)?;
        if b.get(i + 3) != Some(&b':') {
            return None;
        }
        let mm = num(i + 4..i + 6)?;
        i += 6;
        let mut ss = 0;
        if b.get(i) == Some(&b':') {
            ss = num(i + 1..i + 3)?;
            i += 3;
            if b.get(i) == Some(&b'.') || b.get(i) == Some(&b',') {
                i += 1;
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i == start {
                    return None;
                }
                let mut scale = 100_000_000i64;
                for &c in &b[start..i.min(start + 9)] {
                    nanos += i64::from(c - b'0') * scale;
                    scale /= 10;
                }
            }
        }
        // 60 admits a leap second, counted as the next second.
        if hh > 23 || mm > 59 || ss > 60 {
            return None;
        }
        secs += hh * 3600 + mm * 60 + ss;
        match b.get(i) {
            None => {}
            Some(b'Z') | Some(b'z') if i + 1 == b.len() => {}
            Some(&sign @ (b'+' | b'-')) => {
                let oh = num(i + 1..i + 3)?;
                let om = match b.get(i + 3) {
                    None => 0,
                    Some(b':') if i + 6 == b.len() => num(i + 4..i + 6)?,
                    Some(_) if i + 5 == b.len() => num(i + 3..i + 5)?,
                    _ => return None,
                };
                if oh > 23 || om > 59 {
                    return None;
                }
                let off = oh * 3600 + om * 60;
                secs -= if sign == b'+' { off } else { -off };
            }
            _ => return None,
        }
    }
    secs.checked_mul(1_000_000_000)?.checked_add(nanos)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

/// The framework version as shown in a key: `jax 0.10.2` for a bare version number (the JAX
/// records' `jax_version`), the text itself when it names its framework (`torch-2.15.0`).
pub fn version_label(version: &str) -> String {
    if version.is_empty() || version.starts_with(|c: char| c.is_ascii_digit()) {
        format!("jax {version}")
    } else {
        version.to_string()
    }
}

#[cfg(test)]
mod version_label_tests {
    use super::version_label;

    #[test]
    fn bare_versions_are_jax_and_named_ones_stay() {
        assert_eq!(version_label("0.10.2"), "jax 0.10.2");
        assert_eq!(version_label("torch-2.15.0"), "torch-2.15.0");
    }
}

/// Key fields a trace does not carry, given by the user (CLI flags, UI form). Applied only where
/// a trace-derived record has no value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KeyDefaults {
    pub hardware: Option<String>,
    pub hostname: Option<String>,
    pub jax_version: Option<String>,
    pub precision: Option<String>,
    pub cache_state: Option<CacheState>,
    pub transform: Option<String>,
}

impl KeyDefaults {
    /// Fills the fields `r` lacks; records the fill in `r.extra["filled_by_user"]`.
    pub fn fill(&self, r: &mut CompileRecord) {
        let mut filled = Vec::new();
        macro_rules! fill {
            ($f:ident) => {
                if r.$f.is_none() {
                    if let Some(v) = &self.$f {
                        r.$f = Some(v.clone());
                        filled.push(stringify!($f));
                    }
                }
            };
        }
        fill!(hardware);
        fill!(hostname);
        fill!(jax_version);
        fill!(precision);
        fill!(cache_state);
        fill!(transform);
        if !filled.is_empty() {
            r.extra
                .insert("filled_by_user".into(), format!("{:?}", filled.join(", ")));
        }
    }
}
