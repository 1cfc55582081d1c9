//! Compile-time drift triage (`/work/shared/reference/compile-triage.md`).
//!
//! [`run`] compares warm compile records with sticky [`Pin`]s per full key, gates drift with the
//! ratio AND absolute-floor test, classifies each drifted row in the spec's order
//! (`cache-regression`, `expected-recompile`, `autotune-regression`, `host-load`,
//! `library-regression`) and classifies warm keys without a pin (`expected-recompile`,
//! `new-machine`, `new-precision`, `new-cell`, `new-key`). [`pins_from_records`] builds pins from
//! the warm medians per full key. Its input ([`Input`] = [`CompileRecord`]) comes from record
//! files (`formats::load`) and from the compile slices of traces ([`extract`]).
//!
//! Pure and deterministic: outputs are sorted by key, time and location; no clock, no I/O.
//!
//! The workspace keeps every file's records (a trace's are extracted while its model is alive)
//! and on each request calls [`run`] over their concatenation with the user's [`Params`] and
//! the pins in force. The report types are `Serialize + Deserialize`, so they cross the worker
//! boundary as they are.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

pub use super::compile_records::{cache_state_from_file_name, extract};
use crate::analysis::stats;
use crate::model::compile_record::{
    CacheState, CompileRecord, FullKey, Pin, RecordLocation, Timestamp,
};

/// One input row of the triage: a compile record (from a record file, or [`extract`]ed from a
/// trace's compile slices).
pub type Input = CompileRecord;

/// Thresholds of the triage. Defaults are the spec's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Drift gate 3: observed ≥ `min_ratio` × pinned (default 2.0).
    pub min_ratio: f64,
    /// Drift gate 4: observed − pinned ≥ `min_abs_s` seconds (default 1.0).
    pub min_abs_s: f64,
    /// Cold-scale rule: observed ≥ `cold_scale_fraction` × the slowest cold compile of the same
    /// key (default 0.5).
    pub cold_scale_fraction: f64,
    /// `autotune-regression` needs a GPU and ratio ≥ `autotune_ratio` (default 10.0).
    pub autotune_ratio: f64,
    /// `host-load` when `load_avg_1m` ≥ this (default 2.0), or `load_avg_1m / cpu_count` ≥ this
    /// when [`Params::load_per_core`] is set.
    pub load_threshold: f64,
    /// Normalise the load average by the record's `cpu_count` (default off).
    pub load_per_core: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            min_ratio: 2.0,
            min_abs_s: 1.0,
            cold_scale_fraction: 0.5,
            autotune_ratio: 10.0,
            load_threshold: 2.0,
            load_per_core: false,
        }
    }
}

/// Comparisons against thresholds allow this relative slack, so that a value that is exactly on
/// a boundary in decimal (e.g. 2.5 s − 1.5 s = 1.0 s) is not lost to binary rounding.
const REL_EPS: f64 = 1e-9;

fn at_least(x: f64, threshold: f64) -> bool {
    x >= threshold - REL_EPS * threshold.abs().max(1.0)
}

/// Class of a drifted row or of an unpinned key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    CacheRegression,
    ExpectedRecompile,
    AutotuneRegression,
    HostLoad,
    LibraryRegression,
    NewMachine,
    NewPrecision,
    NewCell,
    NewKey,
}

impl Class {
    /// The spec's name, e.g. `cache-regression`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::CacheRegression => "cache-regression",
            Class::ExpectedRecompile => "expected-recompile",
            Class::AutotuneRegression => "autotune-regression",
            Class::HostLoad => "host-load",
            Class::LibraryRegression => "library-regression",
            Class::NewMachine => "new-machine",
            Class::NewPrecision => "new-precision",
            Class::NewCell => "new-cell",
            Class::NewKey => "new-key",
        }
    }

    /// Whether a finding of this class asks someone to act (spec table, "actionable").
    pub fn actionable(self) -> bool {
        matches!(
            self,
            Class::CacheRegression | Class::AutotuneRegression | Class::LibraryRegression
        )
    }

    /// Owner / action of the class (spec table).
    pub fn action(self) -> &'static str {
        match self {
            Class::CacheRegression => {
                "config/stack: check the persistent cache directory and cache settings, and \
                 whether XLA_FLAGS was clobbered — not a library bug"
            }
            Class::ExpectedRecompile => {
                "none: the first compile after a version change misses by design; it should hit \
                 from the next run on"
            }
            Class::AutotuneRegression => {
                "check that the autotune flag (e.g. --xla_gpu_autotune_level=0) reaches XLA"
            }
            Class::HostLoad => "re-measure on an idle host first",
            Class::LibraryRegression => "file a library bug report quoting the evidence",
            Class::NewMachine | Class::NewPrecision | Class::NewCell | Class::NewKey => {
                "none: pin this key from a trusted run (not a regression)"
            }
        }
    }

    /// The drift classes in the spec's order.
    pub const DRIFT: [Class; 5] = [
        Class::CacheRegression,
        Class::ExpectedRecompile,
        Class::AutotuneRegression,
        Class::HostLoad,
        Class::LibraryRegression,
    ];

    /// The unpinned-key classes.
    pub const UNPINNED: [Class; 5] = [
        Class::ExpectedRecompile,
        Class::NewMachine,
        Class::NewPrecision,
        Class::NewCell,
        Class::NewKey,
    ];
}

/// One drifted warm row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub key: FullKey,
    /// The key rendered readably (see [`FullKey`]'s `Display`).
    pub key_text: String,
    pub location: RecordLocation,
    /// The row's timestamp as written, when known.
    pub timestamp: Option<String>,
    /// Observed compile time, seconds.
    pub observed_s: f64,
    /// Pinned compile time, seconds.
    pub pinned_s: f64,
    /// observed_s / pinned_s (infinite when the pin is 0 s).
    pub ratio: f64,
    pub classification: Class,
    /// One sentence quoting the numbers that decided the class.
    pub evidence: String,
    pub action: String,
    pub actionable: bool,
}

/// A warm full key with no pin, listed once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unpinned {
    pub key: FullKey,
    pub key_text: String,
    pub classification: Class,
    /// Key fields in which the key differs from the closest pin (empty when there are no pins).
    pub differs_in: Vec<String>,
    /// Warm rows with this key.
    pub rows: usize,
}

/// A record the triage could not use, with the reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub location: RecordLocation,
    pub reason: String,
}

/// Result of [`run`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub params: Params,
    /// Number of pins given. 0 is its own state ("no pins"), never an all-clear.
    pub pins: usize,
    /// Warm rows with a complete key.
    pub warm_rows: usize,
    /// Warm rows whose key has a pin and whose timestamp is not newer than the pin's
    /// source_timestamp (history the pin was chosen from).
    pub history_rows: usize,
    /// Warm rows compared with a pin although one of the two timestamps was unknown.
    pub rows_without_timestamp: usize,
    /// Rows compared with their pin that passed the ratio gate but not the absolute floor
    /// (slower by ≥ `min_ratio`× yet by less than `min_abs_s` seconds): not drift, but said, so
    /// that "no drift" on short compiles is never silent.
    #[serde(default)]
    pub below_abs_floor: usize,
    /// Drifted rows, sorted by (key, timestamp, location).
    pub findings: Vec<Finding>,
    /// Unpinned warm keys, sorted by key.
    pub unpinned: Vec<Unpinned>,
    /// Findings per drift class (all five classes present).
    pub counts: BTreeMap<String, usize>,
    /// Unpinned keys per class (all five classes present).
    pub unpinned_counts: BTreeMap<String, usize>,
    /// Number of actionable findings.
    pub actionable: usize,
    /// One line saying what to do next.
    pub next_action: String,
    /// Records lacking key fields or compile_s (e.g. trace-derived records not yet filled in).
    pub incomplete: Vec<Skipped>,
}

/// GPU hardware per the spec: contains `gpu`, `cuda` or `rocm`, or names a GPU model.
pub fn is_gpu(hardware: &str) -> bool {
    let lower = hardware.to_ascii_lowercase();
    if ["gpu", "cuda", "rocm"].iter().any(|w| lower.contains(w)) {
        return true;
    }
    const MODELS: &[&str] = &[
        "nvidia", "geforce", "quadro", "tesla", "rtx", "radeon", "instinct", "a100", "a10", "a10g",
        "a30", "a40", "a6000", "h100", "h200", "h800", "b100", "b200", "gb200", "v100", "p100",
        "t4", "l4", "l40", "l40s", "mi100", "mi210", "mi250", "mi250x", "mi300", "mi300x",
        "mi325x",
    ];
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|tok| MODELS.contains(&tok))
}

/// Seconds with three significant digits (`0.0224`, `0.180`, `34.6`, `851`).
pub fn fmt_s(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (2 - mag).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

fn fmt_ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.1}×")
    } else {
        "∞×".into()
    }
}

/// (hardware, hostname, precision, cell, transform): the lineage in which a version change is
/// an expected recompile.
type Lineage = (String, String, String, String, String);

fn lineage(k: &FullKey) -> Lineage {
    (
        k.hardware.clone(),
        k.hostname.clone(),
        k.precision.clone(),
        k.cell.clone(),
        k.transform.clone(),
    )
}

/// Runs the triage of `records` against `pins` (compile-triage.md). Pure and deterministic.
pub fn run(records: &[CompileRecord], pins: &[Pin], params: &Params) -> Report {
    // Complete rows only; the others are listed.
    let mut incomplete = Vec::new();
    let mut rows: Vec<(usize, FullKey, f64)> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        match (r.full_key(), r.compile_s) {
            (Some(k), Some(c)) if c.is_finite() => rows.push((i, k, c)),
            _ => {
                let missing = r.missing_fields();
                incomplete.push(Skipped {
                    location: r.location.clone(),
                    reason: if missing.is_empty() {
                        "compile_s is not a finite number".into()
                    } else {
                        let what = match (&r.cell, r.compile_s) {
                            (Some(c), Some(x)) => format!(" (cell {c}, {} s)", fmt_s(x)),
                            (Some(c), None) => format!(" (cell {c})"),
                            _ => String::new(),
                        };
                        format!("missing {}{what}", missing.join(", "))
                    },
                })
            }
        }
    }
    incomplete.sort_by(|a, b| a.location.cmp(&b.location));

    // Pins by key (a duplicate key keeps the first pin given).
    let mut pin_of: BTreeMap<&FullKey, &Pin> = BTreeMap::new();
    for p in pins {
        pin_of.entry(&p.key).or_insert(p);
    }

    // Slowest cold compile per key (the cold key itself).
    let mut cold_max: BTreeMap<&FullKey, f64> = BTreeMap::new();
    for (_, k, c) in &rows {
        if k.cache_state == CacheState::Cold {
            let e = cold_max.entry(k).or_insert(*c);
            if *c > *e {
                *e = *c;
            }
        }
    }

    // The record immediately preceding each row in its lineage (hardware, hostname, precision,
    // cell, transform), whatever its version or cache state: by timestamp when the row has one
    // (the latest earlier timestamped record; equal timestamps in input order), else the
    // nearest earlier record in input order.
    let mut by_lineage: BTreeMap<Lineage, Vec<usize>> = BTreeMap::new();
    for (pos, (_, k, _)) in rows.iter().enumerate() {
        by_lineage.entry(lineage(k)).or_default().push(pos);
    }
    let mut prev_of: Vec<Option<usize>> = vec![None; rows.len()];
    for group in by_lineage.values() {
        for w in 1..group.len() {
            if records[rows[group[w]].0].timestamp.is_none() {
                prev_of[group[w]] = Some(rows[group[w - 1]].0);
            }
        }
        let mut timed: Vec<(i64, usize, usize)> = group
            .iter()
            .filter_map(|&p| {
                let (i, _, _) = &rows[p];
                records[*i].timestamp.as_ref().map(|t| (t.unix_ns, *i, p))
            })
            .collect();
        timed.sort_unstable();
        for w in 1..timed.len() {
            prev_of[timed[w].2] = Some(timed[w - 1].1);
        }
    }

    let mut findings = Vec::new();
    let mut unpinned_rows: BTreeMap<FullKey, usize> = BTreeMap::new();
    let mut warm_rows = 0;
    let mut history_rows = 0;
    let mut rows_without_timestamp = 0;
    let mut below_abs_floor = 0usize;
    for (pos, (i, key, observed)) in rows.iter().enumerate() {
        if key.cache_state != CacheState::Warm {
            continue;
        }
        warm_rows += 1;
        let r = &records[*i];
        let Some(pin) = pin_of.get(key) else {
            *unpinned_rows.entry(key.clone()).or_insert(0) += 1;
            continue;
        };
        let ts_note = match (&r.timestamp, &pin.source_timestamp) {
            (Some(t), Some(p)) => {
                if t.unix_ns <= p.unix_ns {
                    history_rows += 1;
                    continue;
                }
                ""
            }
            _ => {
                rows_without_timestamp += 1;
                " (timestamp unknown, so it was compared)"
            }
        };
        let pinned = pin.compile_s;
        let ratio = if pinned > 0.0 {
            observed / pinned
        } else if *observed > 0.0 {
            f64::INFINITY
        } else {
            1.0
        };
        let ratio_gate = if pinned > 0.0 {
            at_least(ratio, params.min_ratio)
        } else {
            *observed > 0.0
        };
        if !(ratio_gate && at_least(observed - pinned, params.min_abs_s)) {
            if ratio_gate {
                below_abs_floor += 1;
            }
            continue;
        }
        let (class, why) = classify(
            r,
            key,
            *observed,
            ratio,
            prev_of[pos].map(|i| &records[i]),
            &cold_max,
            params,
        );
        let evidence = format!(
            "warm {} s vs pinned {} s ({}, +{} s){}: {}",
            fmt_s(*observed),
            fmt_s(pinned),
            fmt_ratio(ratio),
            fmt_s(observed - pinned),
            ts_note,
            why
        );
        findings.push((
            r.timestamp.as_ref().map(|t| t.unix_ns),
            Finding {
                key: key.clone(),
                key_text: key.to_string(),
                location: r.location.clone(),
                timestamp: r.timestamp.as_ref().map(|t| t.text.clone()),
                observed_s: *observed,
                pinned_s: pinned,
                ratio,
                classification: class,
                evidence,
                action: class.action().to_string(),
                actionable: class.actionable(),
            },
        ));
    }
    findings.sort_by(|(ta, a), (tb, b)| {
        a.key
            .cmp(&b.key)
            .then(ta.cmp(tb))
            .then(a.location.cmp(&b.location))
    });
    let findings: Vec<Finding> = findings.into_iter().map(|(_, f)| f).collect();

    let mut sorted_pins: Vec<&Pin> = pin_of.values().copied().collect();
    sorted_pins.sort_by(|a, b| a.key.cmp(&b.key));
    let unpinned: Vec<Unpinned> = unpinned_rows
        .into_iter()
        .map(|(key, n)| {
            let (classification, differs_in) = classify_unpinned(&key, &sorted_pins);
            Unpinned {
                key_text: key.to_string(),
                key,
                classification,
                differs_in,
                rows: n,
            }
        })
        .collect();

    let mut counts: BTreeMap<String, usize> = Class::DRIFT
        .iter()
        .map(|c| (c.as_str().to_string(), 0))
        .collect();
    for f in &findings {
        *counts
            .entry(f.classification.as_str().to_string())
            .or_insert(0) += 1;
    }
    let mut unpinned_counts: BTreeMap<String, usize> = Class::UNPINNED
        .iter()
        .map(|c| (c.as_str().to_string(), 0))
        .collect();
    for u in &unpinned {
        *unpinned_counts
            .entry(u.classification.as_str().to_string())
            .or_insert(0) += 1;
    }
    let actionable = findings.iter().filter(|f| f.actionable).count();
    let next_action = next_action(
        pins.len(),
        warm_rows,
        &findings,
        &unpinned,
        actionable,
        rows_without_timestamp,
        (below_abs_floor, params),
    );
    Report {
        params: params.clone(),
        pins: pins.len(),
        warm_rows,
        history_rows,
        rows_without_timestamp,
        below_abs_floor,
        findings,
        unpinned,
        counts,
        unpinned_counts,
        actionable,
        next_action,
        incomplete,
    }
}

/// Classifies one drifted row in the spec's order; returns the class and the reason sentence.
#[allow(clippy::too_many_arguments)]
fn classify(
    r: &CompileRecord,
    key: &FullKey,
    observed: f64,
    ratio: f64,
    prev: Option<&CompileRecord>,
    cold_max: &BTreeMap<&FullKey, f64>,
    params: &Params,
) -> (Class, String) {
    let mut cold_key = key.clone();
    cold_key.cache_state = CacheState::Cold;
    let cold = cold_max.get(&cold_key).copied();
    let cold_scale = cold.is_some_and(|c| at_least(observed, params.cold_scale_fraction * c));

    // 1. cache-regression: direct cache counters first, cold scale otherwise.
    let direct = r.cache_hits.is_some() || r.cache_misses.is_some();
    let (cache_regression, cache_why) = if direct {
        let hits = r.cache_hits.unwrap_or(0);
        let misses = r
            .cache_misses
            .map(|m| m.to_string())
            .unwrap_or_else(|| "unknown".into());
        if hits == 0 {
            (
                true,
                format!(
                    "the record shows 0 persistent-cache hits ({misses} misses): the warm \
                     compile did not use the cache"
                ),
            )
        } else {
            (
                false,
                format!("the record shows {hits} persistent-cache hit(s), so the cache worked"),
            )
        }
    } else if let Some(c) = cold {
        if cold_scale {
            (
                true,
                format!(
                    "warm {} s is back at its own cold scale (slowest cold compile {} s, \
                     threshold {} × cold)",
                    fmt_s(observed),
                    fmt_s(c),
                    params.cold_scale_fraction
                ),
            )
        } else {
            (
                false,
                format!(
                    "below its cold scale ({} s < {} × the slowest cold compile {} s)",
                    fmt_s(observed),
                    params.cold_scale_fraction,
                    fmt_s(c)
                ),
            )
        }
    } else {
        (
            false,
            "no cache counters and no cold record of this key to compare with".to_string(),
        )
    };
    if cache_regression {
        // 2. expected-recompile: the first compile after a version change.
        if let Some(prev) = prev {
            if let Some(v) = prev.jax_version.as_deref() {
                if v != key.jax_version {
                    return (
                        Class::ExpectedRecompile,
                        format!(
                            "{cache_why}, but the preceding record of this cell ({}) ran version \
                             {v} and this one {}: the first compile after a version change \
                             misses by design",
                            prev.location, key.jax_version
                        ),
                    );
                }
            }
        }
        return (Class::CacheRegression, cache_why);
    }
    // 3. autotune-regression.
    if is_gpu(&key.hardware) && at_least(ratio, params.autotune_ratio) && !cold_scale {
        return (
            Class::AutotuneRegression,
            format!(
                "GPU hardware ({}) and {} ≥ {}× the pin without being at cold scale; {cache_why}",
                key.hardware,
                fmt_ratio(ratio),
                params.autotune_ratio
            ),
        );
    }
    // 4. host-load.
    let load = match (r.load_avg_1m, params.load_per_core) {
        (Some(l), false) => Some((l, format!("load_avg_1m {l:.2}"))),
        (Some(l), true) => r.cpu_count.filter(|c| *c > 0.0).map(|c| {
            (
                l / c,
                format!("load_avg_1m {l:.2} over {c} cores = {:.2} per core", l / c),
            )
        }),
        (None, _) => None,
    };
    match load {
        Some((l, text)) if at_least(l, params.load_threshold) => (
            Class::HostLoad,
            format!(
                "{text} ≥ {} at measurement: the host was busy; {cache_why}",
                params.load_threshold
            ),
        ),
        Some((_, text)) => (
            Class::LibraryRegression,
            format!(
                "{text} < {} (host not busy); {cache_why}",
                params.load_threshold
            ),
        ),
        None => (
            Class::LibraryRegression,
            format!(
                "host load unknown (no load_avg_1m{}), so a busy host is not ruled out; \
                 {cache_why}",
                if params.load_per_core {
                    " or cpu_count"
                } else {
                    ""
                }
            ),
        ),
    }
}

const KEY_FIELDS: [&str; 7] = [
    "hardware",
    "hostname",
    "jax_version",
    "precision",
    "cache_state",
    "cell",
    "transform",
];

fn differing_fields(a: &FullKey, b: &FullKey) -> Vec<&'static str> {
    let same = [
        a.hardware == b.hardware,
        a.hostname == b.hostname,
        a.jax_version == b.jax_version,
        a.precision == b.precision,
        a.cache_state == b.cache_state,
        a.cell == b.cell,
        a.transform == b.transform,
    ];
    KEY_FIELDS
        .iter()
        .zip(same)
        .filter(|(_, s)| !s)
        .map(|(f, _)| *f)
        .collect()
}

/// Classifies an unpinned key against every pin (spec, "Classification of unpinned keys").
/// When several pins differ in exactly one field, the first class in the order
/// jax_version, hardware/hostname, precision, cell/transform wins.
fn classify_unpinned(key: &FullKey, pins: &[&Pin]) -> (Class, Vec<String>) {
    let rank = |f: &str| match f {
        "jax_version" => Some((0, Class::ExpectedRecompile)),
        "hardware" | "hostname" => Some((1, Class::NewMachine)),
        "precision" => Some((2, Class::NewPrecision)),
        "cell" | "transform" => Some((3, Class::NewCell)),
        _ => None,
    };
    let mut best_single: Option<(u8, Class, &'static str)> = None;
    let mut closest: Option<Vec<&'static str>> = None;
    for p in pins {
        let d = differing_fields(key, &p.key);
        if d.len() == 1 {
            if let Some((r, c)) = rank(d[0]) {
                if best_single.is_none_or(|(br, _, _)| r < br) {
                    best_single = Some((r, c, d[0]));
                }
            }
        }
        if closest.as_ref().is_none_or(|c| d.len() < c.len()) {
            closest = Some(d);
        }
    }
    match best_single {
        Some((_, c, f)) => (c, vec![f.to_string()]),
        None => (
            Class::NewKey,
            closest
                .unwrap_or_default()
                .into_iter()
                .map(String::from)
                .collect(),
        ),
    }
}

fn next_action(
    pins: usize,
    warm_rows: usize,
    findings: &[Finding],
    unpinned: &[Unpinned],
    actionable: usize,
    rows_without_timestamp: usize,
    (below_abs_floor, params): (usize, &Params),
) -> String {
    if pins == 0 {
        return format!(
            "No pins loaded, so nothing was compared ({warm_rows} warm rows, {} keys): pin a \
             trusted baseline first (trialscope pin). This is not an all-clear.",
            unpinned.len()
        );
    }
    let count = |c: Class| findings.iter().filter(|f| f.classification == c).count();
    if actionable > 0 {
        let (n, c) = [
            Class::CacheRegression,
            Class::AutotuneRegression,
            Class::LibraryRegression,
        ]
        .iter()
        .map(|&c| (count(c), c))
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .unwrap_or((0, Class::LibraryRegression));
        let others = actionable - n;
        return format!(
            "{n} {} finding(s): {}{}.",
            c.as_str(),
            c.action(),
            if others > 0 {
                format!(" (and {others} other actionable finding(s))")
            } else {
                String::new()
            }
        );
    }
    if !findings.is_empty() {
        let hl = count(Class::HostLoad);
        let er = count(Class::ExpectedRecompile);
        return match (hl, er) {
            (0, e) => format!(
                "Nothing to fix: {e} expected-recompile finding(s) after a version change; \
                 they should hit from the next run on."
            ),
            (h, 0) => format!("Re-measure on an idle host first: {h} host-load finding(s)."),
            (h, e) => format!(
                "Re-measure on an idle host first ({h} host-load finding(s)); {e} \
                 expected-recompile finding(s) need nothing."
            ),
        };
    }
    let mut s = format!("No drift: {warm_rows} warm rows checked against {pins} pins");
    if !unpinned.is_empty() {
        s.push_str(&format!(
            "; {} unpinned key(s) have no baseline yet (none is a regression)",
            unpinned.len()
        ));
    }
    if rows_without_timestamp > 0 {
        s.push_str(&format!(
            "; {rows_without_timestamp} row(s) had no timestamp"
        ));
    }
    if below_abs_floor > 0 {
        s.push_str(&format!(
            "; {below_abs_floor} row(s) were at least {}× their pin but less than {} s slower \
             (under the absolute floor; lower it to list them)",
            params.min_ratio, params.min_abs_s
        ));
    }
    s.push('.');
    s
}

/// Pins from the warm rows of `records`: per full key, `compile_s` = the median
/// ([`stats::median`], as `numpy.median`) of its warm rows' seconds, `source_timestamp` = the
/// newest of those rows' timestamps (None when none has one), `source` = "median of N warm rows
/// (locations…)". Sorted by key. Rows with an incomplete key or a non-finite `compile_s` are
/// ignored.
pub fn pins_from_records(records: &[CompileRecord]) -> Vec<Pin> {
    let mut groups: BTreeMap<FullKey, Vec<&CompileRecord>> = BTreeMap::new();
    for r in records {
        if let (Some(k), Some(c)) = (r.full_key(), r.compile_s) {
            if k.cache_state == CacheState::Warm && c.is_finite() {
                groups.entry(k).or_default().push(r);
            }
        }
    }
    groups
        .into_iter()
        .filter_map(|(key, rs)| {
            let v: Vec<f64> = rs.iter().filter_map(|r| r.compile_s).collect();
            let m = stats::median(&v)?;
            let newest: Option<Timestamp> = rs
                .iter()
                .filter_map(|r| r.timestamp.as_ref())
                .max_by_key(|t| t.unix_ns)
                .cloned();
            let mut locs: Vec<String> = rs.iter().map(|r| r.location.to_string()).collect();
            locs.sort();
            let shown = if locs.len() > 5 {
                format!("{}, …", locs[..5].join(", "))
            } else {
                locs.join(", ")
            };
            Some(Pin {
                key,
                compile_s: m,
                source: format!("median of {} warm rows ({shown})", rs.len()),
                source_timestamp: newest,
            })
        })
        .collect()
}

/// The identity fields that at least one of `records` lacks, in spec order (what the UI's
/// fill-in form has to ask for).
pub fn unknown_fields(records: &[CompileRecord]) -> Vec<&'static str> {
    let mut set: BTreeSet<&'static str> = BTreeSet::new();
    for r in records {
        for f in r.missing_fields() {
            set.insert(f);
        }
    }
    let order = [
        "cell",
        "transform",
        "hardware",
        "hostname",
        "jax_version",
        "precision",
        "cache_state",
        "compile_s",
    ];
    order.into_iter().filter(|f| set.contains(f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A complete record: hardware `cpu`, host `h`, version `1.0`, `fp32`, `jit`.
    fn rec(
        index: usize,
        cell: &str,
        state: CacheState,
        compile_s: f64,
        ts_s: Option<i64>,
    ) -> CompileRecord {
        let mut r = CompileRecord::new(RecordLocation {
            file: "t.jsonl".into(),
            index,
            line: Some(index + 1),
        });
        r.cell = Some(cell.into());
        r.transform = Some("jit".into());
        r.hardware = Some("cpu".into());
        r.hostname = Some("h".into());
        r.jax_version = Some("1.0".into());
        r.precision = Some("fp32".into());
        r.cache_state = Some(state);
        r.compile_s = Some(compile_s);
        r.timestamp = ts_s.map(|s| Timestamp {
            text: crate::model::compile_record::format_iso8601_utc(s * 1_000_000_000),
            unix_ns: s * 1_000_000_000,
        });
        r
    }

    fn pin(r: &CompileRecord, compile_s: f64, ts_s: Option<i64>) -> Pin {
        Pin {
            key: r.full_key().unwrap(),
            compile_s,
            source: "test".into(),
            source_timestamp: ts_s.map(|s| Timestamp {
                text: crate::model::compile_record::format_iso8601_utc(s * 1_000_000_000),
                unix_ns: s * 1_000_000_000,
            }),
        }
    }

    fn one(r: CompileRecord, pinned: f64) -> Report {
        let p = pin(&r, pinned, Some(0));
        run(&[r], &[p], &Params::default())
    }

    #[test]
    fn ratio_gate_boundary_exactly_2x() {
        // pinned 1.0 s: 2.0 s is exactly 2.0× and exactly +1.0 s — both gates hold.
        let rep = one(rec(0, "c", CacheState::Warm, 2.0, Some(10)), 1.0);
        assert_eq!(rep.findings.len(), 1);
        assert_eq!(rep.findings[0].ratio, 2.0);
        // Only the ratio fails: pinned 1.5 s, observed 2.999 s (+1.499 s, 1.999×).
        let rep = one(rec(0, "c", CacheState::Warm, 2.999, Some(10)), 1.5);
        assert!(rep.findings.is_empty());
    }

    #[test]
    fn absolute_floor_boundary_exactly_1s() {
        // 3× and exactly +1.0 s.
        let rep = one(rec(0, "c", CacheState::Warm, 1.5, Some(10)), 0.5);
        assert_eq!(rep.findings.len(), 1);
        // A decimal boundary that is not exact in binary: 1.1 − 0.1 = 1.0000000000000002… or
        // 0.9999999999999999 depending on rounding; it is +1.0 s and must fire.
        let rep = one(rec(0, "c", CacheState::Warm, 1.1, Some(10)), 0.1);
        assert_eq!(rep.findings.len(), 1);
        // 3× but +0.99 s: the ratio alone does not fire.
        let rep = one(rec(0, "c", CacheState::Warm, 1.485, Some(10)), 0.495);
        assert!(rep.findings.is_empty());
        // Sub-second jitter of a cheap cell: 50× but +0.49 s.
        let rep = one(rec(0, "c", CacheState::Warm, 0.5, Some(10)), 0.01);
        assert!(rep.findings.is_empty());
        // The floor alone does not fire either: +5 s but 1.5×.
        let rep = one(rec(0, "c", CacheState::Warm, 15.0, Some(10)), 10.0);
        assert!(rep.findings.is_empty());
    }

    #[test]
    fn rows_not_newer_than_the_pin_are_history() {
        let older = rec(0, "c", CacheState::Warm, 50.0, Some(5));
        let same = rec(1, "c", CacheState::Warm, 50.0, Some(10));
        let newer = rec(2, "c", CacheState::Warm, 50.0, Some(11));
        let p = pin(&older, 1.0, Some(10));
        let rep = run(&[older, same, newer], &[p], &Params::default());
        assert_eq!(rep.history_rows, 2);
        assert_eq!(rep.findings.len(), 1);
        assert_eq!(rep.findings[0].location.index, 2);
        // Unknown timestamps cannot prove a row is history: it is compared and said so.
        let unknown = rec(3, "c", CacheState::Warm, 50.0, None);
        let p = pin(&unknown, 1.0, Some(10));
        let rep = run(&[unknown], &[p], &Params::default());
        assert_eq!(rep.findings.len(), 1);
        assert_eq!(rep.rows_without_timestamp, 1);
        assert!(rep.findings[0].evidence.contains("timestamp unknown"));
    }

    #[test]
    fn cold_rows_are_never_compared_with_warm_pins() {
        let warm = rec(0, "c", CacheState::Warm, 1.0, Some(1));
        let cold = rec(1, "c", CacheState::Cold, 100.0, Some(10));
        let p = pin(&warm, 1.0, Some(2));
        let rep = run(&[warm, cold], &[p], &Params::default());
        assert!(rep.findings.is_empty());
        assert_eq!(rep.warm_rows, 1);
        assert!(rep.unpinned.is_empty());
    }

    #[test]
    fn host_load_boundary_and_missing_load_is_unknown() {
        let mut r = rec(0, "c", CacheState::Warm, 5.0, Some(10));
        r.load_avg_1m = Some(2.0);
        r.cache_hits = Some(1);
        let rep = one(r.clone(), 1.0);
        assert_eq!(rep.findings[0].classification, Class::HostLoad);
        assert!(!rep.findings[0].actionable);
        assert!(rep.findings[0].evidence.contains("load_avg_1m 2.00 ≥ 2"));
        r.load_avg_1m = Some(1.99);
        let rep = one(r.clone(), 1.0);
        assert_eq!(rep.findings[0].classification, Class::LibraryRegression);
        r.load_avg_1m = None;
        let rep = one(r.clone(), 1.0);
        assert_eq!(rep.findings[0].classification, Class::LibraryRegression);
        assert!(
            rep.findings[0].evidence.contains("host load unknown"),
            "{}",
            rep.findings[0].evidence
        );
        // Per-core mode: 8.0 on 8 cores is 1.0 per core.
        r.load_avg_1m = Some(8.0);
        r.cpu_count = Some(8.0);
        let per_core = Params {
            load_per_core: true,
            ..Params::default()
        };
        let p = pin(&r, 1.0, Some(0));
        let rep = run(
            std::slice::from_ref(&r),
            std::slice::from_ref(&p),
            &per_core,
        );
        assert_eq!(rep.findings[0].classification, Class::LibraryRegression);
        let rep = run(
            std::slice::from_ref(&r),
            std::slice::from_ref(&p),
            &Params {
                load_threshold: 1.0,
                ..per_core.clone()
            },
        );
        assert_eq!(rep.findings[0].classification, Class::HostLoad);
        // Per-core without cpu_count is unknown, not idle.
        r.cpu_count = None;
        let rep = run(&[r], &[p], &per_core);
        assert!(rep.findings[0].evidence.contains("unknown"));
    }

    #[test]
    fn direct_cache_counters_beat_cold_scale() {
        let cold = rec(0, "c", CacheState::Cold, 10.0, Some(1));
        // At cold scale but with a hit: not a cache regression (busy host here).
        let mut hit = rec(1, "c", CacheState::Warm, 9.0, Some(20));
        hit.cache_hits = Some(1);
        hit.cache_misses = Some(0);
        hit.load_avg_1m = Some(4.0);
        // Far below cold scale but no hit: a cache regression.
        let mut miss = rec(2, "c", CacheState::Warm, 3.0, Some(21));
        miss.cache_hits = Some(0);
        miss.cache_misses = Some(0);
        let p = pin(&hit, 1.0, Some(10));
        let rep = run(&[cold, hit, miss], &[p], &Params::default());
        let classes: Vec<Class> = rep.findings.iter().map(|f| f.classification).collect();
        assert_eq!(classes, vec![Class::HostLoad, Class::CacheRegression]);
        assert!(rep.findings[1].evidence.contains("0 persistent-cache hits"));
        assert_eq!(rep.actionable, 1);
        assert_eq!(rep.counts["cache-regression"], 1);
        assert_eq!(rep.counts["host-load"], 1);
    }

    #[test]
    fn cold_scale_boundary_without_counters() {
        let cold_a = rec(0, "c", CacheState::Cold, 8.0, Some(1));
        let cold_b = rec(1, "c", CacheState::Cold, 10.0, Some(2));
        let at = rec(2, "c", CacheState::Warm, 5.0, Some(20)); // exactly 0.5 × slowest cold
        let below = rec(3, "c", CacheState::Warm, 4.9, Some(21));
        let p = pin(&at, 1.0, Some(10));
        let rep = run(&[cold_a, cold_b, at, below], &[p], &Params::default());
        assert_eq!(rep.findings.len(), 2);
        assert_eq!(rep.findings[0].classification, Class::CacheRegression);
        assert!(
            rep.findings[0]
                .evidence
                .contains("back at its own cold scale (slowest cold compile 10.0 s"),
            "{}",
            rep.findings[0].evidence
        );
        assert_eq!(rep.findings[1].classification, Class::LibraryRegression);
    }

    #[test]
    fn first_compile_after_a_version_change_is_expected() {
        let mut old = rec(0, "c", CacheState::Warm, 1.0, Some(1));
        old.jax_version = Some("0.9".into());
        let mut first = rec(1, "c", CacheState::Warm, 20.0, Some(2));
        first.cache_hits = Some(0);
        let mut second = rec(2, "c", CacheState::Warm, 20.0, Some(3));
        second.cache_hits = Some(0);
        let p = pin(&first, 1.0, Some(0));
        let rep = run(&[second, first, old], &[p], &Params::default());
        let classes: Vec<Class> = rep.findings.iter().map(|f| f.classification).collect();
        // Sorted by time: the first new-version row is expected, the next one is not.
        assert_eq!(
            classes,
            vec![Class::ExpectedRecompile, Class::CacheRegression]
        );
        assert!(rep.findings[0].evidence.contains("ran version 0.9"));
        assert!(!rep.findings[0].actionable);
        // The old-version key has no pin and differs only in the version.
        assert_eq!(rep.unpinned.len(), 1);
        assert_eq!(rep.unpinned[0].classification, Class::ExpectedRecompile);
        assert_eq!(rep.unpinned[0].differs_in, vec!["jax_version"]);
    }

    #[test]
    fn autotune_needs_a_gpu_and_10x() {
        let mut r = rec(0, "c", CacheState::Warm, 10.0, Some(5));
        r.hardware = Some("local_gpu_NVIDIA_H200".into());
        r.load_avg_1m = Some(0.5);
        let rep = one(r.clone(), 1.0);
        assert_eq!(rep.findings[0].classification, Class::AutotuneRegression);
        assert!(rep.findings[0].actionable);
        let rep = one(r.clone(), 1.01); // 9.9×
        assert_eq!(rep.findings[0].classification, Class::LibraryRegression);
        r.hardware = Some("cpu (AMD EPYC)".into());
        let rep = one(r, 1.0);
        assert_eq!(rep.findings[0].classification, Class::LibraryRegression);
        assert!(is_gpu("NVIDIA H100 80GB"));
        assert!(is_gpu("rocm MI300X"));
        assert!(!is_gpu("cpu (AMD EPYC, 2 logical cores)"));
        assert!(!is_gpu("cpu (Intel Xeon Platinum 8480C)"));
    }

    #[test]
    fn unpinned_key_classes() {
        let base = rec(0, "c", CacheState::Warm, 1.0, Some(1));
        let p = pin(&base, 1.0, Some(1));
        let mut cases: Vec<(CompileRecord, Class, Vec<&str>)> = Vec::new();
        let mut r = base.clone();
        r.hostname = Some("other".into());
        cases.push((r, Class::NewMachine, vec!["hostname"]));
        let mut r = base.clone();
        r.precision = Some("fp64".into());
        cases.push((r, Class::NewPrecision, vec!["precision"]));
        let mut r = base.clone();
        r.cell = Some("d".into());
        cases.push((r, Class::NewCell, vec!["cell"]));
        let mut r = base.clone();
        r.jax_version = Some("2.0".into());
        cases.push((r, Class::ExpectedRecompile, vec!["jax_version"]));
        // Two fields differ: new-key, naming both.
        let mut r = base.clone();
        r.precision = Some("fp64".into());
        r.hostname = Some("other".into());
        cases.push((r, Class::NewKey, vec!["hostname", "precision"]));
        for (r, class, fields) in cases {
            let rep = run(&[r], std::slice::from_ref(&p), &Params::default());
            assert_eq!(rep.unpinned.len(), 1);
            assert_eq!(rep.unpinned[0].classification, class);
            assert_eq!(rep.unpinned[0].differs_in, fields);
            assert!(rep.findings.is_empty());
            assert_eq!(rep.actionable, 0);
        }
    }

    #[test]
    fn no_pins_is_not_an_all_clear() {
        let rep = run(
            &[rec(0, "c", CacheState::Warm, 100.0, Some(1))],
            &[],
            &Params::default(),
        );
        assert_eq!(rep.pins, 0);
        assert!(rep.findings.is_empty());
        assert_eq!(rep.unpinned.len(), 1);
        assert_eq!(rep.unpinned[0].classification, Class::NewKey);
        assert!(rep.next_action.contains("not an all-clear"));
    }

    #[test]
    fn incomplete_records_are_listed_and_output_is_order_independent() {
        let mut bad = rec(9, "c", CacheState::Warm, 5.0, Some(1));
        bad.precision = None;
        let rows: Vec<CompileRecord> = (0..6)
            .map(|i| {
                rec(
                    i,
                    if i % 2 == 0 { "a" } else { "b" },
                    CacheState::Warm,
                    5.0 + i as f64,
                    Some(10 + i as i64),
                )
            })
            .chain(std::iter::once(bad))
            .collect();
        let pins: Vec<Pin> = vec![pin(&rows[0], 1.0, Some(0)), pin(&rows[1], 1.0, Some(0))];
        let a = run(&rows, &pins, &Params::default());
        let mut rev = rows.clone();
        rev.reverse();
        let mut rpins = pins.clone();
        rpins.reverse();
        let b = run(&rev, &rpins, &Params::default());
        assert_eq!(a, b);
        assert_eq!(a.findings.len(), 6);
        assert_eq!(a.incomplete.len(), 1);
        assert_eq!(a.incomplete[0].reason, "missing precision (cell c, 5.00 s)");
    }

    #[test]
    fn pins_are_warm_medians_with_the_newest_timestamp() {
        let rs = vec![
            rec(0, "c", CacheState::Warm, 3.0, Some(5)),
            rec(1, "c", CacheState::Warm, 1.0, Some(9)),
            rec(2, "c", CacheState::Warm, 2.0, Some(7)),
            rec(3, "c", CacheState::Cold, 50.0, Some(20)),
            rec(4, "d", CacheState::Warm, 1.0, None),
            rec(5, "d", CacheState::Warm, 2.0, None),
        ];
        let pins = pins_from_records(&rs);
        assert_eq!(pins.len(), 2);
        assert_eq!(pins[0].key.cell, "c");
        assert_eq!(pins[0].compile_s, 2.0);
        assert_eq!(
            pins[0].source_timestamp.as_ref().unwrap().unix_ns,
            9_000_000_000
        );
        assert!(pins[0].source.starts_with("median of 3 warm rows"));
        assert_eq!(pins[1].compile_s, 1.5);
        assert_eq!(pins[1].source_timestamp, None);
        // Round trip through pins.json.
        let text = crate::formats::records::pins_to_json(&pins);
        let back = crate::formats::records::parse_pins(text.as_bytes()).unwrap();
        assert_eq!(back[0].key, pins[0].key);
        assert_eq!(back[0].compile_s, 2.0);
        assert_eq!(back[1].source_timestamp, None);
    }

    #[test]
    fn report_round_trips_through_serde() {
        let cold = rec(0, "c", CacheState::Cold, 10.0, Some(1));
        let warm = rec(1, "c", CacheState::Warm, 9.0, Some(20));
        let p = pin(&warm, 1.0, Some(10));
        let rep = run(&[cold, warm], &[p], &Params::default());
        assert_eq!(rep.findings[0].classification, Class::CacheRegression);
        let text = serde_json::to_string(&rep).unwrap();
        assert!(text.contains("\"classification\":\"cache-regression\""));
        let back: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(back, rep);
    }
}
