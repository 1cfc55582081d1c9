//! Scaling analysis across trials (`../shared/reference/scaling.md`): per-trial aggregation by
//! semantic frame, Spearman ρ / p (exact permutation p for n ≤ 10 trials, issue 13; the t
//! approximation above), Benjamini–Hochberg q, per-input medians with BCa bootstrap
//! CIs, model fits with AICc, coverage and evidence status.
//!
//! Pipeline: [`profile`] turns each imported [`Model`] into a small [`TrialProfile`] (per
//! semantic frame: inclusive ns, self ns, slice count); [`run`] joins the profiles of several
//! [`Trial`]s by semantic frame id and produces a serializable [`Report`] — the JSON printed by
//! `trialscope scaling --json` and drawn by the UI. Deterministic: the same trials and
//! [`Params`] give the same report bytes (BTreeMaps and explicit sorts only; bootstrap seeded).

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::analysis::stats::{self, Fits};
use crate::model::facts::Facts;
use crate::model::{Model, SemanticFrameId};

/// Which per-frame cost is correlated with the input.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Sum of slice durations (ns).
    #[default]
    Inclusive,
    /// Sum of self times (duration minus direct children, floored at 0), ns.
    #[serde(rename = "self")]
    SelfTime,
    /// Number of slices.
    Count,
}

impl Metric {
    /// Name as used on the CLI and in JSON: `inclusive`, `self`, `count`.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Inclusive => "inclusive",
            Metric::SelfTime => "self",
            Metric::Count => "count",
        }
    }
    /// The metric named `name` ([`Metric::as_str`]); `None` for any other text.
    pub fn parse(name: &str) -> Option<Metric> {
        [Metric::Inclusive, Metric::SelfTime, Metric::Count]
            .into_iter()
            .find(|m| m.as_str() == name)
    }
    /// Unit of the metric's values: `ns` or `count`.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Count => "count",
            _ => "ns",
        }
    }
}

/// Description of a semantic frame, for display.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameDescription {
    /// `sf1:…` text.
    pub semantic_frame_id: String,
    /// Provider of the projection (`perfetto.track_event`, `chrome_json`, `native`, `python`).
    pub provider: String,
    /// Slice / function name.
    pub name: String,
    /// Category list, sorted and joined with `,` (empty when none).
    pub category: String,
    /// Normalized source file, when the trace tells it.
    pub file: Option<String>,
    /// Source line.
    pub line: Option<u32>,
    /// Source function.
    pub function: Option<String>,
    /// Chrome task slices: where the task was posted from (`file:function`, file normalized),
    /// part of the identity (scaling.md), so tasks of one name posted from different sites are
    /// different frames.
    #[serde(default)]
    pub posted_from: Option<String>,
}

/// Per-frame totals of one trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameTotals {
    pub frame: FrameDescription,
    /// Summed durations of the frame's complete slices, ns (nested same-frame slices count
    /// each time they appear, as in the corpus reference "sum of END − BEGIN").
    pub inclusive_ns: i64,
    /// Summed self times (duration minus direct children, floored at 0), ns.
    pub self_ns: i64,
    /// Number of complete slices.
    pub count: u64,
}

/// An unmatched frame of one trial (scaling.md: never silently dropped).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnmatchedTotals {
    /// The frame's name as the trace gives it (may be empty).
    pub name: String,
    /// Why it is unmatched: `no_name`, `address_only`, `no_build_id`, `unknown_frame`.
    pub reason: String,
    /// Summed durations of its complete slices, ns.
    pub inclusive_ns: i64,
    /// Number of complete slices.
    pub count: u64,
}

/// Everything the scaling analysis needs from one imported artifact: small, serializable, and
/// independent of the model (the worker keeps these, not the models).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialProfile {
    /// `sha256:…` of the artifact's bytes as dropped.
    pub artifact_id: String,
    /// Per semantic frame, sorted by semantic frame id.
    /// Each trial gives one total per frame, so the per-trial "median of repeated
    /// measurements" (scaling.md) is that total; repetitions are separate trials.
    pub frames: Vec<FrameTotals>,
    /// Frames that are never joined across artifacts, per (name, reason).
    pub unmatched: Vec<UnmatchedTotals>,
    /// True when the import lost data: frames it lacks count as missing, not 0.
    pub data_loss: bool,
    /// Environment key parts the trace tells (host, versions); empty when unknown.
    pub environment: String,
    /// Slices skipped because they never ended (`dur_ns < 0`).
    #[serde(default)]
    pub incomplete_slices: u64,
}

/// One trial as given to [`run`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// File name shown to the user.
    pub path: String,
    /// The trial's numeric input (x); `None` excludes the trial from tests.
    pub input: Option<f64>,
    /// Variant label (`default` unless set).
    pub variant: String,
    /// Environment key override; empty = take the profile's.
    pub environment: String,
    /// Warm-up trials are excluded whole.
    pub excluded: bool,
    pub profile: TrialProfile,
}

/// Analysis parameters (defaults from scaling.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub metric: Metric,
    /// Minimum trials per tested group (3).
    pub min_trials: usize,
    /// Bootstrap resamples for per-input CIs (1,999).
    pub bootstrap_resamples: usize,
    /// Bootstrap seed (0).
    pub seed: u64,
    /// CI level (0.95), for the per-input bootstrap CIs and the power-law exponent CI.
    pub ci_level: f64,
    /// Bootstrap CIs are computed for every significant group (q < 0.05) and, beyond those,
    /// for the first `ci_top_groups` groups in report order (|ρ| descending); the others get
    /// no interval (`ci_computed: false`) so 2,000 frames × 18 trials stays fast (50).
    #[serde(default = "default_ci_top_groups")]
    pub ci_top_groups: usize,
}

fn default_p_method() -> stats::SpearmanMethod {
    stats::SpearmanMethod::TDistribution
}

fn default_ci_top_groups() -> usize {
    50
}

impl Default for Params {
    fn default() -> Self {
        Params {
            metric: Metric::Inclusive,
            min_trials: 3,
            bootstrap_resamples: 1999,
            seed: 0,
            ci_level: 0.95,
            ci_top_groups: default_ci_top_groups(),
        }
    }
}

/// A group is reported as significant when its BH-adjusted q is below this (0.05).
pub const SIGNIFICANCE_Q: f64 = 0.05;

/// Default regex for [`input_from_name`]: a `n`, `x`, `size`, `input`, `len` or `length` token,
/// optionally followed by `=`, `_` or `-`, then a number — case-insensitive and not inside a
/// word (`scaling_n1000_r0.pb.gz` → 1000, `run_x32.json` → 32, `size-8` → 8, `N=4000` → 4000;
/// `resnet50.json` → none). Capture group 1 is the number.
pub const DEFAULT_INPUT_PATTERN: &str =
    r"(?i)(?:^|[^a-z0-9])(?:n|x|size|input|len|length)[=_\-]?([0-9]+(?:\.[0-9]+)?)(?:[^a-z0-9]|$)";

/// Compiles an input regex, requiring exactly one capture group (the number).
/// [`DEFAULT_INPUT_PATTERN`] is compiled once per process (per worker in the browser) and
/// cloned after that (a `Regex` clone shares the compiled program): the trial table asks for
/// it once per file, and each compile is a full regex build (in the browser, 18 demo trials'
/// builds were enough to make V8 recompile that code in its optimising tier, ~0.4 s of a
/// compile thread's time on the 2-core VM).
///
/// Errors: the regex does not compile, or it has zero or several capture groups.
pub fn compile_input_regex(pattern: &str) -> Result<Regex, String> {
    static DEFAULT: std::sync::OnceLock<Result<Regex, String>> = std::sync::OnceLock::new();
    if pattern == DEFAULT_INPUT_PATTERN {
        return DEFAULT
            .get_or_init(|| build_input_regex(DEFAULT_INPUT_PATTERN))
            .clone();
    }
    build_input_regex(pattern)
}

/// [`compile_input_regex`] without the cache.
fn build_input_regex(pattern: &str) -> Result<Regex, String> {
    let re = Regex::new(pattern).map_err(|e| format!("invalid input regex: {e}"))?;
    let groups = re.captures_len() - 1;
    if groups != 1 {
        return Err(format!(
            "the input regex must have exactly one capture group (the number), it has {groups}"
        ));
    }
    Ok(re)
}

/// The trial input (x) found in a file name by `re`'s first capture group, parsed as f64.
/// Pass the file name, not a whole path (directory names such as `x86_64` would match the
/// default pattern). `None` when nothing matches or the capture is not a finite number.
pub fn input_from_name(name: &str, re: &Regex) -> Option<f64> {
    let caps = re.captures(name)?;
    let v: f64 = caps.get(1)?.as_str().trim().parse().ok()?;
    v.is_finite().then_some(v)
}

fn reason_str(r: crate::model::UnmatchedReason) -> String {
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{r:?}"))
}

/// Metadata keys (lower-cased, substring match) that describe the environment.
const ENVIRONMENT_KEYS: [&str; 7] = [
    "version",
    "hardware",
    "cpu_model",
    "cpu_brand",
    "gpu_model",
    "gpu_name",
    "machine",
];

/// The environment key of a model: `host=<hostname>` and every `model.info.metadata` entry whose
/// key names a version or the hardware (`ENVIRONMENT_KEYS`), joined with `;` in key order.
/// Empty when the trace tells none of these.
pub fn environment_of(model: &Model) -> String {
    let mut parts = Vec::new();
    if let Some(h) = model.info.hostname.as_deref().filter(|h| !h.is_empty()) {
        parts.push(format!("host={h}"));
    }
    for (k, v) in &model.info.metadata {
        let lk = k.to_ascii_lowercase();
        if ENVIRONMENT_KEYS.iter().any(|e| lk.contains(e)) {
            parts.push(format!("{k}={v}"));
        }
    }
    parts.join(";")
}

/// `file:function` of a frame's `posted_from` site (either part alone when the other is absent).
fn posted_from_text(model: &Model, k: &crate::model::FrameKey) -> Option<String> {
    match (k.posted_from_file, k.posted_from_function) {
        (None, None) => None,
        (Some(f), None) => Some(model.str(f).to_string()),
        (None, Some(func)) => Some(model.str(func).to_string()),
        (Some(f), Some(func)) => Some(format!("{}:{}", model.str(f), model.str(func))),
    }
}

/// Aggregates one model per semantic frame (scaling.md, "Per-trial aggregation"): for each
/// frame of `model.frames`, the summed duration of its complete slices (`inclusive_ns`; slices
/// with `dur_ns < 0` are skipped and counted in `incomplete_slices`), the summed self times
/// ([`Model::for_each_self_time`], `self_ns`) and the slice count. Frames whose identity is unknown or
/// partial ([`crate::model::Frame::unmatched`]) go to `unmatched`, per (name, reason), never
/// dropped; a slice whose frame id is not in the table counts as unmatched `unknown_frame`.
/// `frames` is sorted by semantic frame id, `unmatched` by (name, reason).
/// `data_loss` = [`crate::model::Diagnostics::has_data_loss`]; `environment` =
/// [`environment_of`].
pub fn profile(artifact_id: &str, model: &Model) -> TrialProfile {
    let s = &model.slices;
    let nframes = model.frames.len();
    // Per frame id: (inclusive, self, count).
    let mut acc: Vec<(i64, i64, u64)> = vec![(0, 0, 0); nframes];
    let mut unknown = (0i64, 0u64);
    let mut incomplete = 0u64;
    // One visit per slice; every addend is ≥ 0, so the saturating sums do not depend on
    // the order the slices come in.
    model.for_each_self_time(|i, self_ns| {
        let d = s.dur_ns[i];
        if d < 0 {
            incomplete += 1;
            return;
        }
        match acc.get_mut(s.frame[i].0 as usize) {
            Some(a) => {
                a.0 = a.0.saturating_add(d);
                a.1 = a.1.saturating_add(self_ns);
                a.2 += 1;
            }
            None => {
                unknown.0 = unknown.0.saturating_add(d);
                unknown.1 += 1;
            }
        }
    });
    let mut frames: BTreeMap<SemanticFrameId, FrameTotals> = BTreeMap::new();
    let mut unmatched: BTreeMap<(String, String), UnmatchedTotals> = BTreeMap::new();
    for (id, frame) in model.frames.iter() {
        let (incl, selft, count) = acc[id.0 as usize];
        if count == 0 {
            continue;
        }
        let k = &frame.key;
        let name = model.str(k.name).to_string();
        if let Some(reason) = frame.unmatched {
            let reason = reason_str(reason);
            let e = unmatched
                .entry((name.clone(), reason.clone()))
                .or_insert(UnmatchedTotals {
                    name,
                    reason,
                    inclusive_ns: 0,
                    count: 0,
                });
            e.inclusive_ns = e.inclusive_ns.saturating_add(incl);
            e.count += count;
            continue;
        }
        let e = frames
            .entry(frame.semantic_id)
            .or_insert_with(|| FrameTotals {
                frame: FrameDescription {
                    semantic_frame_id: frame.semantic_id.to_string(),
                    provider: k.provider.as_str().to_string(),
                    name,
                    category: model.str(k.category).to_string(),
                    file: k.file.map(|f| model.str(f).to_string()),
                    line: k.line,
                    function: k.function.map(|f| model.str(f).to_string()),
                    posted_from: posted_from_text(model, k),
                },
                inclusive_ns: 0,
                self_ns: 0,
                count: 0,
            });
        e.inclusive_ns = e.inclusive_ns.saturating_add(incl);
        e.self_ns = e.self_ns.saturating_add(selft);
        e.count += count;
    }
    if unknown.1 > 0 {
        unmatched.insert(
            (String::new(), "unknown_frame".into()),
            UnmatchedTotals {
                name: String::new(),
                reason: "unknown_frame".into(),
                inclusive_ns: unknown.0,
                count: unknown.1,
            },
        );
    }
    TrialProfile {
        artifact_id: artifact_id.to_string(),
        frames: frames.into_values().collect(),
        unmatched: unmatched.into_values().collect(),
        data_loss: model.diagnostics.has_data_loss(),
        environment: environment_of(model),
        incomplete_slices: incomplete,
    }
}

/// The scaling analysis's input: one trial.
pub type Input = Trial;

/// One trial from one trace (scaling.md, "Per-trial aggregation"): the [`profile`] of `model`,
/// named `facts.name`, with the environment key the cross-file facts give ([`Trial::apply_facts`])
/// and the defaults of the per-trial settings (no input, variant `default`, included) — the
/// caller sets those from the user's settings.
pub fn extract(model: &Model, facts: &Facts) -> Input {
    let mut t = Trial {
        path: facts.name.clone(),
        input: None,
        variant: "default".into(),
        environment: String::new(),
        excluded: false,
        profile: profile(&facts.artifact_id, model),
    };
    t.apply_facts(facts);
    t
}

impl Trial {
    /// Re-applies the cross-file facts after the file's siblings changed (the model is gone by
    /// then): the environment key is the profile's own, prefixed with `host=<h>` when the host
    /// came from the siblings' file names (trace-formats.md §10.5). `extract(m, f2)` equals
    /// `extract(m, f1)` followed by `apply_facts(f2)`.
    pub fn apply_facts(&mut self, facts: &Facts) {
        self.path = facts.name.clone();
        self.environment = match facts.environment_prefix() {
            Some(p) if self.profile.environment.is_empty() => p,
            Some(p) => format!("{p};{}", self.profile.environment),
            None => String::new(),
        };
    }
}

/// One trial as reported (index = position in the `trials` given to [`run`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialSummary {
    /// Position in the trials given to [`run`]; [`PointValue::trial`] refers to it.
    pub index: usize,
    /// File name shown to the user.
    pub path: String,
    /// `sha256:…` of the artifact.
    pub artifact_id: String,
    /// The trial's input (x), when known.
    pub input: Option<f64>,
    /// Variant label.
    pub variant: String,
    /// Effective environment key (the trial's override, else the profile's).
    pub environment: String,
    /// True when the trial takes part in no test (warm-up, no input, non-finite input).
    pub excluded: bool,
    /// Why the trial is excluded, when it is.
    pub exclusion_reason: Option<String>,
    /// The import lost data: frames it lacks are missing, not 0.
    pub data_loss: bool,
    /// Matched semantic frames in the trial.
    pub frames: usize,
    /// Unmatched (name, reason) entries in the trial.
    pub unmatched_frames: usize,
    /// Slices skipped because they never ended.
    pub incomplete_slices: u64,
}

/// One trial's value in a point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointValue {
    /// Index into [`Report::trials`].
    pub trial: usize,
    /// The metric's value (ns or count).
    pub value: f64,
    /// True when the trial lacked the frame and contributes 0 (complete import).
    pub zero_filled: bool,
}

/// The trials of one group at one input value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// The input value (x).
    pub input: f64,
    /// Median of the trial values (metric unit).
    pub median: f64,
    /// Raw median absolute deviation (scale 1) of the trial values.
    pub mad: f64,
    /// BCa bootstrap CI of the median (`None` with fewer than 2 values or when not computed;
    /// equal bounds when all values are equal).
    pub ci_low: Option<f64>,
    /// Upper CI bound (see `ci_low`).
    pub ci_high: Option<f64>,
    /// Every trial value at this input, by trial index.
    pub values: Vec<PointValue>,
}

/// One tested group (variant, semantic frame, metric).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hotspot {
    /// Variant label of the group.
    pub variant: String,
    /// `sf1:…` id of the group's semantic frame; the frame's description follows.
    pub semantic_frame_id: String,
    pub provider: String,
    pub name: String,
    pub category: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub function: Option<String>,
    /// Chrome task slices: the `posted_from` site (`file:function`) that tells tasks of one
    /// name apart.
    #[serde(default)]
    pub posted_from: Option<String>,
    /// The metric tested.
    pub metric: Metric,
    /// Unit of values, medians, MADs and CIs: `ns` or `count`.
    pub unit: String,
    /// Spearman's ρ of input vs value (`scipy.stats.spearmanr`).
    pub spearman_rho: f64,
    /// Two-sided p-value of ρ.
    pub p_value: f64,
    /// How `p_value` was computed: `exact_permutation` for n ≤ 10 trials (all n! pairings,
    /// [`stats::spearman_test`]), `t_distribution` above (SciPy's default `spearmanr`).
    #[serde(default = "default_p_method")]
    pub p_method: stats::SpearmanMethod,
    /// Benjamini–Hochberg q over all tested groups of the report.
    pub q_value: f64,
    /// q < [`SIGNIFICANCE_Q`].
    pub significant: bool,
    /// Number of trial values tested (n).
    pub trials: usize,
    /// Number of distinct inputs (= `points.len()`).
    pub distinct_inputs: usize,
    /// Supported input range: the smallest and largest tested input.
    pub supported_min: f64,
    /// See `supported_min`.
    pub supported_max: f64,
    /// Values that are 0 because a completely imported trial lacked the frame.
    pub zero_filled: usize,
    /// Trials of the variant that gave no value: excluded whole, or lacking the frame after
    /// data loss (`missing`).
    pub excluded: usize,
    /// Trials with data loss that lacked the frame (missing, not 0).
    pub missing: usize,
    /// The environment key differs across inputs: the scaling may be the machine's.
    pub environment_confounded: bool,
    /// Warnings on this group (environment confounding; fewer than 5 trials).
    pub warnings: Vec<String>,
    /// Per input value, ascending.
    pub points: Vec<Point>,
    /// Evidence status of this result: `complete` when every usable trial of the variant gave
    /// a measured value, `partial` when some lacked the frame (zero-filled or missing) or files
    /// failed to import.
    pub evidence_status: EvidenceStatus,
    /// Why (empty when complete).
    pub evidence_reasons: Vec<String>,
    /// Whether bootstrap CIs were computed for this group (see [`Params::ci_top_groups`]).
    pub ci_computed: bool,
    /// Scaling fits over all (input, value) pairs; `None` with the reason in
    /// `fit_unavailable`.
    pub fit: Option<Fits>,
    /// Why there is no fit, when there is none.
    pub fit_unavailable: Option<String>,
}

/// Unmatched frames of one reason, summed over trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnmatchedReasonTotals {
    /// `no_name`, `address_only`, `no_build_id`, `unknown_frame`.
    pub reason: String,
    /// (trial, name) entries.
    pub frames: usize,
    /// Their inclusive ns.
    pub ns: i64,
}

/// What could and could not be joined across trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Distinct semantic frames over the usable trials.
    pub matched_frames: usize,
    /// Semantic frames present in at least 2 usable trials (actually joined).
    pub joined_frames: usize,
    /// Unmatched (trial, name, reason) entries over the usable trials.
    pub unmatched_frames: usize,
    /// Inclusive ns of the unmatched entries.
    pub unmatched_ns: i64,
    pub unmatched_reasons: Vec<UnmatchedReasonTotals>,
    /// Groups with enough trials and inputs (before dropping non-finite ρ).
    pub testable_groups: usize,
    /// Groups with fewer than `min_trials` values.
    pub groups_too_few_trials: usize,
    /// Groups with fewer than 2 distinct inputs.
    pub groups_too_few_inputs: usize,
}

/// Evidence status of a report (scaling.md, "Evidence status").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceStatus {
    /// Every usable trial imported completely and every tested value is present.
    Complete,
    /// Something was tested, but trials failed to import, lost data, lacked an input, or
    /// groups lack values.
    Partial,
    /// Nothing could be tested.
    Unavailable,
}

impl EvidenceStatus {
    /// The spec's name (= the serde form): `complete`, `partial` or `unavailable`.
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceStatus::Complete => "complete",
            EvidenceStatus::Partial => "partial",
            EvidenceStatus::Unavailable => "unavailable",
        }
    }
}

/// The scaling report: serialized as the JSON of `trialscope scaling --json` (the CLI adds each
/// trial's `format` and `diagnostics`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The metric tested.
    pub metric: Metric,
    /// Its unit (`ns` or `count`).
    pub unit: String,
    /// The parameters used.
    pub params: Params,
    /// Every trial given, in input order (also excluded ones, with the reason).
    pub trials: Vec<TrialSummary>,
    /// Variant labels of the usable trials, sorted.
    pub variants: Vec<String>,
    /// Number of hypotheses given to Benjamini–Hochberg (finite ρ and p).
    pub tested_hypotheses: usize,
    /// Testable groups dropped because ρ or p was not finite (e.g. a constant value).
    pub dropped_non_finite: usize,
    /// Hotspots with q < [`SIGNIFICANCE_Q`].
    pub significant: usize,
    /// Which method gave the p-values: how many groups by the exact permutation distribution
    /// (n ≤ 10) and how many by the t approximation (each hotspot names its own, `p_method`).
    #[serde(default)]
    pub p_methods: String,
    /// Every tested group, sorted by |ρ| descending, then q ascending.
    pub hotspots: Vec<Hotspot>,
    pub coverage: Coverage,
    /// `complete`, `partial` or `unavailable`.
    pub evidence_status: EvidenceStatus,
    /// Why the status is what it is (never empty).
    pub evidence_reasons: Vec<String>,
    /// Report-level warnings (environment confounding per variant, dropped groups).
    pub warnings: Vec<String>,
    /// Smallest and largest input over the usable trials.
    pub input_min: Option<f64>,
    /// See `input_min`.
    pub input_max: Option<f64>,
    /// "Fits describe only the measured range [min x, max x]" (always present).
    pub range_statement: String,
    /// Files that could not be imported (see [`Report::record_failed_imports`]).
    pub failed_imports: Vec<String>,
}

impl Report {
    /// Records files that failed to import: they are listed, and a `complete` status becomes
    /// `partial` (scaling.md: "some trials … failed to import").
    pub fn record_failed_imports(&mut self, files: &[String]) {
        if files.is_empty() {
            return;
        }
        self.failed_imports.extend(files.iter().cloned());
        self.evidence_reasons.push(format!(
            "{} file(s) failed to import and are not part of the analysis",
            files.len()
        ));
        if self.evidence_status == EvidenceStatus::Complete {
            self.evidence_status = EvidenceStatus::Partial;
        }
        for h in &mut self.hotspots {
            h.evidence_status = EvidenceStatus::Partial;
            h.evidence_reasons
                .push(format!("{} file(s) failed to import", files.len()));
        }
    }
}

fn fmt_x(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A group's raw values before testing.
struct Group<'a> {
    variant: &'a str,
    frame: &'a FrameDescription,
    /// (trial index, input, value, zero_filled)
    values: Vec<(usize, f64, f64, bool)>,
    missing: usize,
}

/// Runs the scaling analysis over `trials` (scaling.md, "Correlated hotspots" to "Evidence
/// status"):
///
/// 1. A trial is usable when not `excluded` and its input is finite.
/// 2. Per variant, every semantic frame seen in a usable trial forms a group with
///    `params.metric`. A usable trial lacking the frame contributes 0 (`zero_filled`) unless it
///    has data loss (then the value is missing).
/// 3. Groups with ≥ max(3, `min_trials`) values and ≥ 2 distinct inputs are tested with
///    Spearman's ρ; non-finite ρ/p are dropped and counted; BH q over all tested groups.
/// 4. Per input: median, raw MAD and the BCa bootstrap CI of the median (1,999 resamples,
///    seed `params.seed` for every point) — for significant groups and the top
///    `params.ci_top_groups`; fits (five models by AICc + power law) over every tested group's
///    (input, value) pairs.
/// 5. Environment confounding, coverage, evidence status with reasons; hotspots sorted by |ρ|
///    descending, then q ascending, then variant and semantic frame id.
pub fn run(trials: &[Trial], params: &Params) -> Report {
    let metric = params.metric;
    let min_trials = params.min_trials.max(3);

    // 1. Trials.
    let mut summaries = Vec::with_capacity(trials.len());
    let mut usable: Vec<usize> = Vec::new();
    let mut no_input = 0usize;
    for (i, t) in trials.iter().enumerate() {
        let environment = if t.environment.is_empty() {
            t.profile.environment.clone()
        } else {
            t.environment.clone()
        };
        let reason = if t.excluded {
            Some("excluded by the user (warm-up)".to_string())
        } else {
            match t.input {
                None => Some("no numeric input (the input pattern did not match)".to_string()),
                Some(x) if !x.is_finite() => Some("the input is not a finite number".to_string()),
                Some(_) => None,
            }
        };
        if reason.is_none() {
            usable.push(i);
        } else if !t.excluded {
            no_input += 1;
        }
        summaries.push(TrialSummary {
            index: i,
            path: t.path.clone(),
            artifact_id: t.profile.artifact_id.clone(),
            input: t.input,
            variant: t.variant.clone(),
            environment,
            excluded: reason.is_some(),
            exclusion_reason: reason,
            data_loss: t.profile.data_loss,
            frames: t.profile.frames.len(),
            unmatched_frames: t.profile.unmatched.len(),
            incomplete_slices: t.profile.incomplete_slices,
        });
    }
    let input_of = |i: usize| trials[i].input.unwrap_or(f64::NAN);

    // 2. Variants and groups.
    let mut variants: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &i in &usable {
        variants
            .entry(trials[i].variant.as_str())
            .or_default()
            .push(i);
    }
    let mut excluded_per_variant: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &summaries {
        if s.excluded {
            *excluded_per_variant
                .entry(trials[s.index].variant.as_str())
                .or_default() += 1;
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    for (&variant, members) in &variants {
        // semantic id → (description, per-member value)
        let mut frames: BTreeMap<&str, (&FrameDescription, Vec<Option<f64>>)> = BTreeMap::new();
        for (m, &ti) in members.iter().enumerate() {
            for ft in &trials[ti].profile.frames {
                let v = match metric {
                    Metric::Inclusive => ft.inclusive_ns as f64,
                    Metric::SelfTime => ft.self_ns as f64,
                    Metric::Count => ft.count as f64,
                };
                let e = frames
                    .entry(ft.frame.semantic_frame_id.as_str())
                    .or_insert_with(|| (&ft.frame, vec![None; members.len()]));
                // Two entries with one id in a profile (not produced by `profile`) are summed.
                e.1[m] = Some(e.1[m].unwrap_or(0.0) + v);
            }
        }
        for (_, (desc, vals)) in frames {
            let mut values = Vec::with_capacity(vals.len());
            let mut missing = 0;
            for (m, v) in vals.into_iter().enumerate() {
                let ti = members[m];
                match v {
                    Some(v) => values.push((ti, input_of(ti), v, false)),
                    None if trials[ti].profile.data_loss => missing += 1,
                    None => values.push((ti, input_of(ti), 0.0, true)),
                }
            }
            groups.push(Group {
                variant,
                frame: desc,
                values,
                missing,
            });
        }
    }
    // Frames present in ≥ 2 usable trials (any variant).
    let mut presence: BTreeMap<&str, usize> = BTreeMap::new();
    for &i in &usable {
        for ft in &trials[i].profile.frames {
            *presence
                .entry(ft.frame.semantic_frame_id.as_str())
                .or_default() += 1;
        }
    }

    // 3. Tests.
    let mut too_few_trials = 0;
    let mut too_few_inputs = 0;
    let mut testable = 0;
    let mut dropped_non_finite = 0;
    let mut tested: Vec<(usize, f64, f64, stats::SpearmanMethod)> = Vec::new(); // (group, rho, p, method)
    let mut exact_cache = stats::SpearmanExact::new();
    for (gi, g) in groups.iter().enumerate() {
        if g.values.len() < min_trials {
            too_few_trials += 1;
            continue;
        }
        let xs: Vec<f64> = g.values.iter().map(|v| v.1).collect();
        if xs.iter().all(|&x| x == xs[0]) {
            too_few_inputs += 1;
            continue;
        }
        testable += 1;
        let ys: Vec<f64> = g.values.iter().map(|v| v.2).collect();
        match stats::spearman_test(&xs, &ys, &mut exact_cache) {
            Some((rho, p, m)) => tested.push((gi, rho, p, m)),
            None => dropped_non_finite += 1,
        }
    }
    let ps: Vec<f64> = tested.iter().map(|t| t.2).collect();
    let qs = stats::benjamini_hochberg(&ps);

    // Environment per usable trial.
    let env = |i: usize| summaries[i].environment.as_str();

    let mut hotspots: Vec<Hotspot> = Vec::with_capacity(tested.len());
    for (k, &(gi, rho, p, p_method)) in tested.iter().enumerate() {
        let g = &groups[gi];
        let q = qs[k];
        // Points by input (inputs are finite here, so total_cmp sorts them numerically).
        let mut by_x: Vec<(f64, PointValue)> = g
            .values
            .iter()
            .map(|&(ti, x, v, z)| {
                (
                    x,
                    PointValue {
                        trial: ti,
                        value: v,
                        zero_filled: z,
                    },
                )
            })
            .collect();
        by_x.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.trial.cmp(&b.1.trial)));
        let mut points: Vec<Point> = Vec::new();
        let mut env_by_x: Vec<BTreeSet<&str>> = Vec::new();
        for (x, pv) in by_x {
            if points.last().is_none_or(|pt| pt.input != x) {
                points.push(Point {
                    input: x,
                    median: 0.0,
                    mad: 0.0,
                    ci_low: None,
                    ci_high: None,
                    values: Vec::new(),
                });
                env_by_x.push(BTreeSet::new());
            }
            if let (Some(pt), Some(es)) = (points.last_mut(), env_by_x.last_mut()) {
                es.insert(env(pv.trial));
                pt.values.push(pv);
            }
        }
        for pt in &mut points {
            let vs: Vec<f64> = pt.values.iter().map(|v| v.value).collect();
            pt.median = stats::median(&vs).unwrap_or(f64::NAN);
            pt.mad = stats::mad(&vs).unwrap_or(f64::NAN);
        }
        let confounded = env_by_x.windows(2).any(|w| w[0] != w[1]);
        let mut warnings = Vec::new();
        if confounded {
            warnings.push(
                "the environment (host, hardware or versions) differs across inputs: the scaling may \
                 come from the machine, not the input"
                    .to_string(),
            );
        }
        if g.values.len() < 5 {
            // The exact permutation p of Spearman's ρ cannot go below 2/n! ≥ 1/12 for n ≤ 4.
            warnings.push(format!(
                "only {} trials: the exact permutation p-value cannot go below {:.3}, so no \
                 group can be significant — add trials (5 or more) for a meaningful test",
                g.values.len(),
                2.0 / (1..=g.values.len()).product::<usize>() as f64
            ));
        }
        let xs: Vec<f64> = g.values.iter().map(|v| v.1).collect();
        let ys: Vec<f64> = g.values.iter().map(|v| v.2).collect();
        let (fit, fit_unavailable) = match stats::fit_all(&xs, &ys, params.ci_level) {
            Ok(f) => (Some(f), None),
            Err(e) => (None, Some(e)),
        };
        let zero_filled = g.values.iter().filter(|v| v.3).count();
        let excluded_whole = excluded_per_variant.get(g.variant).copied().unwrap_or(0);
        let mut evidence_reasons = Vec::new();
        if zero_filled > 0 {
            evidence_reasons.push(format!(
                "{zero_filled} trial(s) lacked the frame and contribute 0"
            ));
        }
        if g.missing > 0 {
            evidence_reasons.push(format!(
                "{} trial(s) with data loss lacked the frame (missing, not 0)",
                g.missing
            ));
        }
        hotspots.push(Hotspot {
            variant: g.variant.to_string(),
            semantic_frame_id: g.frame.semantic_frame_id.clone(),
            provider: g.frame.provider.clone(),
            name: g.frame.name.clone(),
            category: g.frame.category.clone(),
            file: g.frame.file.clone(),
            line: g.frame.line,
            function: g.frame.function.clone(),
            posted_from: g.frame.posted_from.clone(),
            metric,
            unit: metric.unit().to_string(),
            spearman_rho: rho,
            p_value: p,
            p_method,
            q_value: q,
            significant: q < SIGNIFICANCE_Q,
            trials: g.values.len(),
            distinct_inputs: points.len(),
            supported_min: points.first().map_or(f64::NAN, |p| p.input),
            supported_max: points.last().map_or(f64::NAN, |p| p.input),
            zero_filled,
            excluded: excluded_whole + g.missing,
            missing: g.missing,
            environment_confounded: confounded,
            warnings,
            points,
            evidence_status: if evidence_reasons.is_empty() {
                EvidenceStatus::Complete
            } else {
                EvidenceStatus::Partial
            },
            evidence_reasons,
            ci_computed: false,
            fit,
            fit_unavailable,
        });
    }
    hotspots.sort_by(|a, b| {
        b.spearman_rho
            .abs()
            .total_cmp(&a.spearman_rho.abs())
            .then(a.q_value.total_cmp(&b.q_value))
            .then_with(|| a.variant.cmp(&b.variant))
            .then_with(|| a.semantic_frame_id.cmp(&b.semantic_frame_id))
    });

    // 4. Bootstrap CIs, lazily.
    for (rank, h) in hotspots.iter_mut().enumerate() {
        if !(h.significant || rank < params.ci_top_groups) {
            continue;
        }
        h.ci_computed = true;
        for pt in &mut h.points {
            let vs: Vec<f64> = pt.values.iter().map(|v| v.value).collect();
            if let Some(ci) = stats::bca_median_ci(
                &vs,
                params.bootstrap_resamples,
                params.ci_level,
                params.seed,
            ) {
                pt.ci_low = Some(ci.low);
                pt.ci_high = Some(ci.high);
            }
        }
    }

    // 5. Coverage.
    let mut reasons: BTreeMap<&str, (usize, i64)> = BTreeMap::new();
    let mut unmatched_frames = 0;
    let mut unmatched_ns = 0i64;
    for &i in &usable {
        for u in &trials[i].profile.unmatched {
            unmatched_frames += 1;
            unmatched_ns = unmatched_ns.saturating_add(u.inclusive_ns);
            let e = reasons.entry(u.reason.as_str()).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(u.inclusive_ns);
        }
    }
    let coverage = Coverage {
        matched_frames: presence.len(),
        joined_frames: presence.values().filter(|&&c| c >= 2).count(),
        unmatched_frames,
        unmatched_ns,
        unmatched_reasons: reasons
            .into_iter()
            .map(|(r, (f, ns))| UnmatchedReasonTotals {
                reason: r.to_string(),
                frames: f,
                ns,
            })
            .collect(),
        testable_groups: testable,
        groups_too_few_trials: too_few_trials,
        groups_too_few_inputs: too_few_inputs,
    };

    // Inputs and the range statement.
    let xs: Vec<f64> = usable.iter().map(|&i| input_of(i)).collect();
    let input_min = xs.iter().copied().reduce(f64::min);
    let input_max = xs.iter().copied().reduce(f64::max);
    let range_statement = match (input_min, input_max) {
        (Some(a), Some(b)) => format!(
            "Fits describe only the measured input range [{}, {}]; they say nothing about inputs outside it.",
            fmt_x(a),
            fmt_x(b)
        ),
        _ => "Fits describe only the measured input range; no trial has a usable input.".to_string(),
    };

    // Warnings.
    let mut warnings = Vec::new();
    for (&variant, members) in &variants {
        let mut by_x: BTreeMap<u64, BTreeSet<&str>> = BTreeMap::new();
        for &i in members {
            by_x.entry(input_of(i).to_bits())
                .or_default()
                .insert(env(i));
        }
        let sets: Vec<&BTreeSet<&str>> = by_x.values().collect();
        if sets.windows(2).any(|w| w[0] != w[1]) {
            warnings.push(format!(
                "variant '{variant}': the environment key differs across inputs; groups of this \
                 variant are confounded with the environment, not clean scaling"
            ));
        }
    }
    if dropped_non_finite > 0 {
        warnings.push(format!(
            "{dropped_non_finite} testable group(s) had an undefined ρ (constant values) and were dropped"
        ));
    }
    if usable.len() < 5 && usable.len() >= min_trials {
        // Report-level too (each hotspot also says it): with n ≤ 4 even a perfect rank order
        // has an exact permutation p ≥ 2/n! (1/3 for n = 3, 1/12 for n = 4).
        warnings.push(format!(
            "only {} usable trials: exact permutation p-values cannot go below {:.3}, so nothing \
             can be significant — add trials (5 or more) for a meaningful test",
            usable.len(),
            2.0 / (1..=usable.len()).product::<usize>() as f64
        ));
    }
    let exact = tested
        .iter()
        .filter(|t| t.3 == stats::SpearmanMethod::ExactPermutation)
        .count();
    let p_methods = format!(
            "{exact} p-value(s) from the exact permutation distribution of ρ (n ≤ {}), {} from the t approximation (n > {})",
            stats::EXACT_SPEARMAN_MAX_N,
            tested.len() - exact,
            stats::EXACT_SPEARMAN_MAX_N
        );

    // Evidence status.
    let mut reasons = Vec::new();
    let distinct_inputs: BTreeSet<u64> = xs.iter().map(|x| x.to_bits()).collect();
    let status = if tested.is_empty() {
        if usable.len() < min_trials {
            reasons.push(format!(
                "only {} usable trial(s) (not excluded, with a numeric input); a test needs at least {min_trials}",
                usable.len()
            ));
        } else if distinct_inputs.len() < 2 {
            reasons.push(
                "all usable trials have the same input; a test needs at least 2 distinct inputs"
                    .into(),
            );
        } else if coverage.joined_frames == 0 {
            reasons.push("no semantic frame could be matched across trials".into());
        } else if testable == 0 {
            reasons.push(format!(
                "no frame has values in at least {min_trials} trials with 2 distinct inputs"
            ));
        } else {
            reasons
                .push("every testable group had an undefined correlation (constant values)".into());
        }
        EvidenceStatus::Unavailable
    } else {
        if no_input > 0 {
            reasons.push(format!(
                "{no_input} trial(s) have no usable numeric input and were left out"
            ));
        }
        let lost = usable
            .iter()
            .filter(|&&i| trials[i].profile.data_loss)
            .count();
        if lost > 0 {
            reasons.push(format!(
                "{lost} trial(s) lost data on import: frames they lack are missing, not 0"
            ));
        }
        let with_missing = hotspots.iter().filter(|h| h.missing > 0).count();
        if with_missing > 0 {
            reasons.push(format!(
                "{with_missing} tested group(s) lack values from trials with data loss"
            ));
        }
        if reasons.is_empty() {
            reasons.push(format!(
                "{} usable trial(s) imported completely; {} group(s) tested",
                usable.len(),
                tested.len()
            ));
            EvidenceStatus::Complete
        } else {
            EvidenceStatus::Partial
        }
    };

    let significant = hotspots.iter().filter(|h| h.significant).count();
    Report {
        metric,
        unit: metric.unit().to_string(),
        params: params.clone(),
        trials: summaries,
        variants: variants.keys().map(|v| v.to_string()).collect(),
        tested_hypotheses: tested.len(),
        p_methods,
        dropped_non_finite,
        significant,
        hotspots,
        coverage,
        evidence_status: status,
        evidence_reasons: reasons,
        warnings,
        input_min,
        input_max,
        range_statement,
        failed_imports: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_status_names_are_the_serde_forms() {
        for e in [
            EvidenceStatus::Complete,
            EvidenceStatus::Partial,
            EvidenceStatus::Unavailable,
        ] {
            let j = serde_json::to_string(&e).unwrap();
            assert_eq!(j, format!("\"{}\"", e.as_str()));
        }
    }

    #[test]
    fn posted_from_tells_tasks_of_one_name_apart() {
        use crate::model::{
            ArgsId, FrameKey, Provider, SliceBuilder, SliceEvents, StrId, Track, TrackKind,
        };
        let mut m = Model::default();
        let t = m.add_track(Track {
            name: StrId(0),
            kind: TrackKind::Thread,
            pid: Some(1),
            tid: Some(1),
            parent: None,
            overflow_of: None,
        });
        let name = m.strings.intern("ThreadPool_RunTask");
        let cat = m.strings.intern("toplevel");
        let mut b = SliceBuilder::new();
        for (i, site) in ["a.cc", "b.cc"].into_iter().enumerate() {
            let file = m.strings.intern(site);
            let func = m.strings.intern("PostTask");
            let key = FrameKey {
                posted_from_file: Some(file),
                posted_from_function: Some(func),
                ..FrameKey::named(Provider::PerfettoTrackEvent, name, cat)
            };
            let f = m.frames.intern(key, &m.strings);
            b.complete(t, 100 * i as i64, 10, name, cat, f, ArgsId(0), 0);
        }
        b.finish(&mut m);
        let p = profile("sha256:x", &m);
        let mut sites: Vec<_> = p
            .frames
            .iter()
            .map(|f| f.frame.posted_from.clone())
            .collect();
        sites.sort();
        assert_eq!(
            sites,
            vec![
                Some("a.cc:PostTask".to_string()),
                Some("b.cc:PostTask".to_string())
            ]
        );
    }

    fn desc(id: &str) -> FrameDescription {
        FrameDescription {
            semantic_frame_id: id.to_string(),
            provider: "chrome_json".into(),
            name: id.to_string(),
            category: String::new(),
            file: None,
            line: None,
            function: None,
            posted_from: None,
        }
    }

    fn trial(path: &str, x: Option<f64>, frames: &[(&str, i64)], data_loss: bool) -> Trial {
        Trial {
            path: path.into(),
            input: x,
            variant: "default".into(),
            environment: String::new(),
            excluded: false,
            profile: TrialProfile {
                artifact_id: format!("sha256:{path}"),
                frames: frames
                    .iter()
                    .map(|&(id, ns)| FrameTotals {
                        frame: desc(id),
                        inclusive_ns: ns,
                        self_ns: ns / 2,
                        count: 1,
                    })
                    .collect(),
                unmatched: vec![],
                data_loss,
                environment: String::new(),
                incomplete_slices: 0,
            },
        }
    }

    #[test]
    fn input_pattern_finds_tokens_not_inside_words() {
        let re = compile_input_regex(DEFAULT_INPUT_PATTERN).unwrap();
        assert_eq!(input_from_name("scaling_n1000_r0.pb.gz", &re), Some(1000.0));
        assert_eq!(input_from_name("run_x32.json", &re), Some(32.0));
        assert_eq!(input_from_name("size-8", &re), Some(8.0));
        assert_eq!(input_from_name("bench_N=4000.json", &re), Some(4000.0));
        assert_eq!(input_from_name("n2.5.json", &re), Some(2.5));
        assert_eq!(input_from_name("resnet50.json", &re), None);
        assert_eq!(input_from_name("trace.json", &re), None);
        assert_eq!(input_from_name("n4000k.json", &re), None);
        assert!(compile_input_regex(r"n(\d+)_(\d+)").is_err());
        assert!(compile_input_regex(r"n\d+").is_err());
        assert!(compile_input_regex(r"n(\d+").is_err());
        let custom = compile_input_regex(r"threads(\d+)").unwrap();
        assert_eq!(input_from_name("run_threads16.pb", &custom), Some(16.0));
    }

    #[test]
    fn zero_fill_for_complete_trials_missing_for_data_loss() {
        // "late" only runs at large inputs: complete trials lacking it contribute 0.
        let trials = vec![
            trial("a", Some(1.0), &[("f", 10)], false),
            trial("b", Some(2.0), &[("f", 20)], false),
            trial("c", Some(3.0), &[("f", 30), ("late", 5)], false),
            trial("d", Some(4.0), &[("f", 40), ("late", 9)], false),
            trial("e", Some(5.0), &[("f", 50)], true),
        ];
        let r = run(&trials, &Params::default());
        let late = r.hotspots.iter().find(|h| h.name == "late").unwrap();
        assert_eq!((late.trials, late.zero_filled, late.missing), (4, 2, 1));
        assert_eq!(late.evidence_status, EvidenceStatus::Partial);
        assert_eq!(late.evidence_reasons.len(), 2);
        assert_eq!(late.excluded, 1);
        // scipy.stats.spearmanr([1,2,3,4],[0,0,5,9]).statistic
        assert!((late.spearman_rho - 0.9486832980505139).abs() < 1e-12);
        let f = r.hotspots.iter().find(|h| h.name == "f").unwrap();
        assert_eq!((f.trials, f.zero_filled, f.missing), (5, 0, 0));
        assert_eq!(f.spearman_rho, 1.0);
        assert_eq!(r.tested_hypotheses, 2);
        assert_eq!(r.evidence_status, EvidenceStatus::Partial);
        // Sorted by |ρ|: f (1.0) before late.
        assert_eq!(r.hotspots[0].name, "f");
        assert!(r.range_statement.contains("[1, 5]"));
    }

    #[test]
    fn environment_change_across_inputs_is_a_warning() {
        let mut trials: Vec<Trial> = (1..=5)
            .map(|i| trial(&format!("t{i}"), Some(i as f64), &[("f", 10 * i)], false))
            .collect();
        let r = run(&trials, &Params::default());
        assert!(!r.hotspots[0].environment_confounded && r.warnings.is_empty());
        assert!(r.hotspots[0].warnings.is_empty());
        assert_eq!(r.evidence_status, EvidenceStatus::Complete);
        trials[3].profile.environment = "host=other".into();
        let r = run(&trials, &Params::default());
        assert!(r.hotspots[0].environment_confounded);
        assert_eq!(r.hotspots[0].warnings.len(), 1);
        assert!(r.warnings[0].contains("environment"));
    }

    #[test]
    fn nothing_testable_is_unavailable_and_constant_is_counted() {
        let trials = vec![
            trial("a", Some(1.0), &[("f", 10)], false),
            trial("b", None, &[("f", 20)], false),
        ];
        let r = run(&trials, &Params::default());
        assert_eq!(r.evidence_status, EvidenceStatus::Unavailable);
        assert!(r.evidence_reasons[0].contains("usable trial"));
        assert_eq!(
            r.trials[1]
                .exclusion_reason
                .as_deref()
                .map(|s| s.contains("no numeric input")),
            Some(true)
        );
        let trials: Vec<Trial> = (1..=3)
            .map(|i| trial(&format!("t{i}"), Some(i as f64), &[("flat", 7)], false))
            .collect();
        let r = run(&trials, &Params::default());
        assert_eq!((r.tested_hypotheses, r.dropped_non_finite), (0, 1));
        assert_eq!(r.evidence_status, EvidenceStatus::Unavailable);
        assert!(r.evidence_reasons[0].contains("constant"));
        let r = run(&[], &Params::default());
        assert_eq!(r.evidence_status, EvidenceStatus::Unavailable);
        assert!(r.hotspots.is_empty() && r.input_min.is_none());
        assert!(r.range_statement.starts_with("Fits describe only"));
        let same_x: Vec<Trial> = (1..=3)
            .map(|i| trial(&format!("t{i}"), Some(8.0), &[("f", i)], false))
            .collect();
        let r = run(&same_x, &Params::default());
        assert!(r.evidence_reasons[0].contains("distinct"));
    }

    #[test]
    fn cis_are_lazy_and_report_is_deterministic() {
        let trials: Vec<Trial> = (0..9)
            .map(|i| {
                let x = (1 + i / 3) as f64;
                trial(
                    &format!("t{i}"),
                    Some(x),
                    &[("f", 10 * (1 + i / 3) + i % 3), ("g", 5 + (i * 7) % 4)],
                    false,
                )
            })
            .collect();
        let p = Params {
            ci_top_groups: 0,
            ..Params::default()
        };
        let r = run(&trials, &p);
        let f = r.hotspots.iter().find(|h| h.name == "f").unwrap();
        assert!(f.significant && f.ci_computed);
        for pt in &f.points {
            let (lo, hi) = (pt.ci_low.unwrap(), pt.ci_high.unwrap());
            assert!(lo <= pt.median && pt.median <= hi);
            assert_eq!(pt.values.len(), 3);
        }
        let g = r.hotspots.iter().find(|h| h.name == "g").unwrap();
        assert!(!g.significant && !g.ci_computed && g.points[0].ci_low.is_none());
        let a = serde_json::to_string(&run(&trials, &Params::default())).unwrap();
        let b = serde_json::to_string(&run(&trials, &Params::default())).unwrap();
        assert_eq!(a, b);
    }
}
