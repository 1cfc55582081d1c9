//! Baseline vs candidate (issue 13): a statistical A/B comparison per semantic frame and
//! metric.
//!
//! Pipeline: each trial is the scaling analysis's [`Trial`] (its per-frame totals, made once by
//! [`scaling::extract`]) with a [`Side`]; [`run`] joins the trials by semantic frame id, and per
//! frame and metric computes the per-trial values (zero-filled and missing as scaling.md
//! defines), the two-sided Mann–Whitney p ([`stats::mann_whitney_u`]), the Hodges–Lehmann shift
//! with its CI ([`stats::hodges_lehmann`]), the ratio of medians with a seeded percentile
//! bootstrap CI ([`stats::ratio_of_medians_ci`]), Benjamini–Hochberg q over the family of frames
//! whose pooled median reaches the floor, and a [`Verdict`]. Pure and deterministic: no clock,
//! no I/O, seeded resampling, sorted outputs.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::analysis::scaling::{self, FrameDescription, Metric, Trial};
use crate::analysis::stats::{self, PMethod};
use crate::model::facts::Facts;
use crate::model::Model;

/// Which side of the comparison a trial is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The reference runs ("before").
    Baseline,
    /// The runs under test ("after").
    Candidate,
}

impl Side {
    /// `baseline` or `candidate`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Baseline => "baseline",
            Side::Candidate => "candidate",
        }
    }
}

/// One trial of the comparison: the scaling analysis's per-trial extraction and its side
/// (`None`: on neither side, listed but not compared). The trial's `input` is ignored;
/// `excluded` drops it whole (warm-up).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub trial: Trial,
    pub side: Option<Side>,
}

/// One trial from one trace: [`scaling::extract`] (the same per-frame totals the scaling
/// analysis uses), on no side yet — the caller assigns it.
pub fn extract(model: &Model, facts: &Facts) -> Input {
    Input {
        trial: scaling::extract(model, facts),
        side: None,
    }
}

/// The outcome of one frame and metric.
///
/// Definitions (α = [`Params::alpha`], the practical gate = [`Params::min_ratio_change`] and the
/// metric's minimum shift, [`Params::min_shift`]):
///
/// * **slower** — tested, `q < α`, and the change is practically relevant in the slower
///   direction: the Hodges–Lehmann shift (candidate − baseline) is ≥ the minimum shift and the
///   ratio of medians (candidate / baseline) is ≥ 1 + `min_ratio_change` (a baseline median of
///   0 with a positive candidate median counts as an unbounded ratio).
/// * **faster** — the mirror image: `q < α`, shift ≤ −minimum shift, ratio ≤ 1 − `min_ratio_change`.
/// * **no change** — tested, not slower or faster, and the data rule out a practically relevant
///   change: the shift CI lies strictly inside (−minimum shift, +minimum shift) or the ratio CI
///   strictly inside (1 − `min_ratio_change`, 1 + `min_ratio_change`). A statistically
///   significant but tiny change is "no change".
/// * **inconclusive** — everything else: not tested (fewer than [`Params::min_trials`] values on
///   a side, pooled median below the floor, undefined statistics), or tested and neither a
///   significant relevant change nor ruled out (e.g. a wide CI from noisy trials).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Verdict {
    #[serde(rename = "slower")]
    Slower,
    #[serde(rename = "faster")]
    Faster,
    #[serde(rename = "no change")]
    NoChange,
    #[serde(rename = "inconclusive")]
    Inconclusive,
}

impl Verdict {
    /// `slower`, `faster`, `no change` or `inconclusive` (the serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::NoChange => "no change",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// Comparison parameters; defaults from issue 13.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Metrics compared (each its own BH family). Default: inclusive only.
    pub metrics: Vec<Metric>,
    /// Minimum trials per side for a test (3; smaller values are raised to 3).
    pub min_trials: usize,
    /// q below which a change can be called slower / faster (0.05).
    pub alpha: f64,
    /// Family floor for ns metrics: a frame is tested when the median of its values over both
    /// sides together (blind to the side) is ≥ this, ns (500 000 = 0.5 ms).
    pub floor_ns: f64,
    /// Family floor for the `count` metric, slices (1).
    pub floor_count: f64,
    /// Practical gate: minimum |ratio − 1| (0.05 = 5 %).
    pub min_ratio_change: f64,
    /// Practical gate for ns metrics: minimum |shift|, ns (500 000 = 0.5 ms).
    pub min_shift_ns: f64,
    /// Practical gate for `count`: minimum |shift|, slices (1).
    pub min_shift_count: f64,
    /// Level of the shift and ratio CIs (0.95).
    pub ci_level: f64,
    /// Bootstrap resamples for the ratio CI (1,999).
    pub bootstrap_resamples: usize,
    /// Bootstrap seed (0); every row uses it.
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            metrics: vec![Metric::Inclusive],
            min_trials: 3,
            alpha: 0.05,
            floor_ns: 500_000.0,
            floor_count: 1.0,
            min_ratio_change: 0.05,
            min_shift_ns: 500_000.0,
            min_shift_count: 1.0,
            ci_level: 0.95,
            bootstrap_resamples: 1999,
            seed: 0,
        }
    }
}

impl Params {
    /// The family floor in `metric`'s unit.
    pub fn floor(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Count => self.floor_count,
            _ => self.floor_ns,
        }
    }
    /// The practical minimum |shift| in `metric`'s unit.
    pub fn min_shift(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Count => self.min_shift_count,
            _ => self.min_shift_ns,
        }
    }
}

/// One trial as reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialSummary {
    /// Position in the inputs given to [`run`]; [`Value::trial`] refers to it.
    pub index: usize,
    pub path: String,
    pub artifact_id: String,
    /// The trial's side; `None` when it is on neither.
    pub side: Option<Side>,
    /// Effective environment key.
    pub environment: String,
    /// True when the trial is not compared (on no side, or excluded by the user).
    pub excluded: bool,
    pub exclusion_reason: Option<String>,
    /// The import lost data: frames it lacks are missing, not 0.
    pub data_loss: bool,
}

/// One trial's value of a row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Value {
    /// Index into [`Report::trials`].
    pub trial: usize,
    /// The metric's value (ns or count).
    pub value: f64,
    /// The trial lacked the frame and contributes 0 (complete import).
    pub zero_filled: bool,
}

/// One (semantic frame, metric) row of the comparison table. Ratios are candidate / baseline,
/// shifts candidate − baseline (positive = the candidate costs more), in the metric's unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The frame (`semantic_frame_id`, `name`, `category`, … flattened into the row).
    #[serde(flatten)]
    pub frame: FrameDescription,
    pub metric: Metric,
    /// `ns` or `count`.
    pub unit: String,
    /// Median of the baseline values (`None` without values).
    pub baseline_median: Option<f64>,
    pub candidate_median: Option<f64>,
    /// Median of both sides' values together (the family filter).
    pub pooled_median: Option<f64>,
    /// `candidate_median / baseline_median` (`None` when the baseline median is 0).
    pub ratio: Option<f64>,
    /// Percentile bootstrap CI of the ratio ([`stats::ratio_of_medians_ci`]).
    pub ratio_ci_low: Option<f64>,
    pub ratio_ci_high: Option<f64>,
    /// Hodges–Lehmann shift (R `wilcox.test(candidate, baseline, conf.int = TRUE)$estimate`).
    pub shift: Option<f64>,
    pub shift_ci_low: Option<f64>,
    pub shift_ci_high: Option<f64>,
    /// The level the shift CI has (can exceed [`Params::ci_level`] when the exact interval cannot
    /// reach it exactly, e.g. 0.971 for 4 vs 4).
    pub shift_ci_level: Option<f64>,
    /// `exact` or `asymptotic` (R's choice: exact for < 50 per side without ties).
    pub shift_method: Option<PMethod>,
    /// Mann–Whitney two-sided p (SciPy `mannwhitneyu`, `method='auto'`).
    pub p_value: Option<f64>,
    /// `exact` or `asymptotic` (SciPy's choice).
    pub p_method: Option<PMethod>,
    /// Benjamini–Hochberg q within the metric's family (`None` when not in the family).
    pub q_value: Option<f64>,
    /// In the BH family (enough trials and pooled median ≥ floor).
    pub tested: bool,
    pub verdict: Verdict,
    /// Why the verdict is what it is.
    pub reason: String,
    /// Per-trial values, baseline first then candidate, by trial index.
    pub baseline_values: Vec<Value>,
    pub candidate_values: Vec<Value>,
    /// Trials on a side with data loss that lacked the frame (missing, not 0).
    pub missing: usize,
    /// Comparability warnings (the environment differs between the sides).
    pub warnings: Vec<String>,
}

/// The BH family of one metric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Family {
    pub metric: Metric,
    /// The floor used, in the metric's unit.
    pub floor: f64,
    /// Hypotheses given to Benjamini–Hochberg (the family size).
    pub tested: usize,
    /// Rows below the floor (not tested).
    pub below_floor: usize,
    pub slower: usize,
    pub faster: usize,
    pub no_change: usize,
    pub inconclusive: usize,
}

/// The comparison report (`trialscope compare --json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub params: Params,
    /// Every input, in order, with its side.
    pub trials: Vec<TrialSummary>,
    /// Compared trials per side.
    pub baseline_trials: usize,
    pub candidate_trials: usize,
    /// Both sides have ≥ `min_trials` trials; otherwise no test was made and `statement` says so.
    pub enough_trials: bool,
    /// One sentence on what was compared (or why nothing was tested).
    pub statement: String,
    /// The environment keys differ between the sides (every row carries the warning).
    pub environment_differs: bool,
    /// Per metric.
    pub families: Vec<Family>,
    /// Sorted: slower, faster, then the rest; within a verdict by q ascending, then |shift|
    /// descending, then semantic frame id and metric.
    pub rows: Vec<Row>,
    pub warnings: Vec<String>,
    /// Files that failed to import (see [`Report::record_failed_imports`]).
    pub failed_imports: Vec<String>,
}

impl Report {
    /// Lists files that failed to import, with a warning.
    pub fn record_failed_imports(&mut self, files: &[String]) {
        if files.is_empty() {
            return;
        }
        self.failed_imports.extend(files.iter().cloned());
        self.warnings.push(format!(
            "{} file(s) failed to import and are on neither side",
            files.len()
        ));
    }
}

fn metric_value(ft: &scaling::FrameTotals, m: Metric) -> f64 {
    match m {
        Metric::Inclusive => ft.inclusive_ns as f64,
        Metric::SelfTime => ft.self_ns as f64,
        Metric::Count => ft.count as f64,
    }
}

/// The statistics of one row from its two samples (baseline `b`, candidate `c`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Stats {
    pub baseline_median: Option<f64>,
    pub candidate_median: Option<f64>,
    pub ratio: Option<f64>,
    pub ratio_ci: Option<(f64, f64)>,
    pub shift: Option<stats::HodgesLehmann>,
    pub mw: Option<stats::MannWhitney>,
}

pub(crate) fn row_stats(b: &[f64], c: &[f64], params: &Params) -> Stats {
    let mb = stats::median(b);
    let mc = stats::median(c);
    let ratio = match (mb, mc) {
        (Some(mb), Some(mc)) if mb != 0.0 => Some(mc / mb),
        _ => None,
    };
    let ratio_ci = stats::ratio_of_medians_ci(
        b,
        c,
        params.bootstrap_resamples,
        params.ci_level,
        params.seed,
    )
    .map(|ci| (ci.low, ci.high));
    // Every value equal on both sides (e.g. a constant count): R's wilcox.test stops ("all
    // observations are tied"); the shift is then 0 with the degenerate interval [0, 0].
    let all_equal = b.iter().chain(c).all(|&v| Some(v) == b.first().copied());
    let shift = if all_equal && !b.is_empty() {
        Some(stats::HodgesLehmann {
            estimate: 0.0,
            ci_low: 0.0,
            ci_high: 0.0,
            level: params.ci_level,
            method: PMethod::Exact,
        })
    } else {
        stats::hodges_lehmann(c, b, params.ci_level)
    };
    Stats {
        baseline_median: mb,
        candidate_median: mc,
        ratio,
        ratio_ci,
        shift,
        mw: stats::mann_whitney_u(c, b),
    }
}

/// The verdict of a tested row with q (see [`Verdict`]); `(verdict, reason)`.
pub(crate) fn verdict(s: &Stats, q: f64, metric: Metric, params: &Params) -> (Verdict, String) {
    let r = params.min_ratio_change;
    let ms = params.min_shift(metric);
    // A frame the baseline never ran (median 0) that costs something in the candidate has an
    // unbounded ratio: it passes the ratio gate (and the reverse is a ratio of 0).
    let ratio = s.ratio.or(match (s.baseline_median, s.candidate_median) {
        (Some(b), Some(c)) if b == 0.0 && c > 0.0 => Some(f64::INFINITY),
        _ => None,
    });
    let (Some(hl), Some(ratio)) = (s.shift, ratio) else {
        return (
            Verdict::Inconclusive,
            "undefined statistics (a zero baseline median or all values tied)".into(),
        );
    };
    let shift = hl.estimate;
    if q < params.alpha {
        if shift >= ms && ratio >= 1.0 + r {
            return (
                Verdict::Slower,
                format!(
                    "q = {q:.3} < {} and the change passes the practical gate",
                    params.alpha
                ),
            );
        }
        if shift <= -ms && ratio <= 1.0 - r {
            return (
                Verdict::Faster,
                format!(
                    "q = {q:.3} < {} and the change passes the practical gate",
                    params.alpha
                ),
            );
        }
    }
    let shift_inside = hl.ci_low > -ms && hl.ci_high < ms;
    let ratio_inside = s
        .ratio_ci
        .is_some_and(|(lo, hi)| lo > 1.0 - r && hi < 1.0 + r);
    if shift_inside || ratio_inside {
        return (
            Verdict::NoChange,
            if q < params.alpha {
                "significant, but the confidence interval rules out a practically relevant change"
                    .into()
            } else {
                "the confidence interval rules out a practically relevant change".into()
            },
        );
    }
    (
        Verdict::Inconclusive,
        if q < params.alpha {
            "significant, but the direction of the shift and the ratio disagree or the change is below the practical gate while its interval reaches beyond it".into()
        } else {
            format!(
                "q = {q:.3} ≥ {}, and the interval still allows a practically relevant change",
                params.alpha
            )
        },
    )
}

/// Runs the comparison (issue 13):
///
/// 1. Trials on a side and not excluded are compared; fewer than max(3, `min_trials`) on either
///    side → no test (`enough_trials: false`, every row inconclusive, the statement says why).
/// 2. Per metric and semantic frame seen on a side: per-trial values; a compared trial lacking
///    the frame contributes 0 unless it lost data on import (then missing).
/// 3. The frame is in the metric's family when each side has ≥ `min_trials` values and the
///    pooled median reaches the floor; BH q over the family's Mann–Whitney p-values.
/// 4. Ratio with bootstrap CI, Hodges–Lehmann shift with CI, verdict ([`Verdict`]).
/// 5. Environment keys differing between the sides → a warning on every row and the report.
pub fn run(inputs: &[Input], params: &Params) -> Report {
    let min_trials = params.min_trials.max(3);
    let mut trials = Vec::with_capacity(inputs.len());
    let mut members: BTreeMap<Side, Vec<usize>> = BTreeMap::new();
    for (i, inp) in inputs.iter().enumerate() {
        let t = &inp.trial;
        let environment = if t.environment.is_empty() {
            t.profile.environment.clone()
        } else {
            t.environment.clone()
        };
        let reason = match inp.side {
            None => Some("on neither side".to_string()),
            Some(_) if t.excluded => Some("excluded by the user (warm-up)".to_string()),
            Some(s) => {
                members.entry(s).or_default().push(i);
                None
            }
        };
        trials.push(TrialSummary {
            index: i,
            path: t.path.clone(),
            artifact_id: t.profile.artifact_id.clone(),
            side: inp.side,
            environment,
            excluded: reason.is_some(),
            exclusion_reason: reason,
            data_loss: t.profile.data_loss,
        });
    }
    let base = members.remove(&Side::Baseline).unwrap_or_default();
    let cand = members.remove(&Side::Candidate).unwrap_or_default();
    let enough = base.len() >= min_trials && cand.len() >= min_trials;
    let mut warnings = Vec::new();
    let statement = if enough {
        format!(
            "{} baseline vs {} candidate trial(s); per metric, Benjamini–Hochberg over the frames whose pooled median reaches the floor",
            base.len(),
            cand.len()
        )
    } else {
        format!(
            "not compared: {} baseline and {} candidate trial(s); a test needs at least {min_trials} per side",
            base.len(),
            cand.len()
        )
    };
    if !enough {
        warnings.push(statement.clone());
    }
    let envs = |m: &[usize]| -> BTreeSet<String> {
        m.iter().map(|&i| trials[i].environment.clone()).collect()
    };
    let (eb, ec) = (envs(&base), envs(&cand));
    let environment_differs = !base.is_empty() && !cand.is_empty() && eb != ec;
    let env_warning = environment_differs.then(|| {
        format!(
            "the environment (host, hardware or versions) differs between the sides (baseline: {}; candidate: {}): the difference may come from the machine, not the change",
            eb.iter().map(|e| if e.is_empty() { "unknown" } else { e.as_str() }).collect::<Vec<_>>().join(" | "),
            ec.iter().map(|e| if e.is_empty() { "unknown" } else { e.as_str() }).collect::<Vec<_>>().join(" | "),
        )
    });
    if let Some(w) = &env_warning {
        warnings.push(w.clone());
    }

    // Frames seen on a side.
    let mut frames: BTreeMap<&str, &FrameDescription> = BTreeMap::new();
    for &i in base.iter().chain(&cand) {
        for ft in &inputs[i].trial.profile.frames {
            frames
                .entry(ft.frame.semantic_frame_id.as_str())
                .or_insert(&ft.frame);
        }
    }
    // Per trial: semantic id → totals.
    let lookup: BTreeMap<usize, BTreeMap<&str, &scaling::FrameTotals>> = base
        .iter()
        .chain(&cand)
        .map(|&i| {
            (
                i,
                inputs[i]
                    .trial
                    .profile
                    .frames
                    .iter()
                    .map(|f| (f.frame.semantic_frame_id.as_str(), f))
                    .collect(),
            )
        })
        .collect();

    let mut rows = Vec::new();
    let mut families = Vec::new();
    for &metric in &params.metrics {
        let floor = params.floor(metric);
        let mut metric_rows: Vec<(Row, Stats)> = Vec::new();
        for (&sf, &desc) in &frames {
            let mut missing = 0;
            let mut side_values = |m: &[usize]| -> Vec<Value> {
                let mut out = Vec::new();
                for &i in m {
                    match lookup[&i].get(sf) {
                        Some(ft) => out.push(Value {
                            trial: i,
                            value: metric_value(ft, metric),
                            zero_filled: false,
                        }),
                        None if inputs[i].trial.profile.data_loss => missing += 1,
                        None => out.push(Value {
                            trial: i,
                            value: 0.0,
                            zero_filled: true,
                        }),
                    }
                }
                out
            };
            let bv = side_values(&base);
            let cv = side_values(&cand);
            let b: Vec<f64> = bv.iter().map(|v| v.value).collect();
            let c: Vec<f64> = cv.iter().map(|v| v.value).collect();
            let pooled: Vec<f64> = b.iter().chain(&c).copied().collect();
            let pooled_median = stats::median(&pooled);
            let enough_here = enough && b.len() >= min_trials && c.len() >= min_trials;
            let tested = enough_here && pooled_median.is_some_and(|m| m >= floor);
            let s = if b.len() >= 2 && c.len() >= 2 {
                row_stats(&b, &c, params)
            } else {
                Stats::default()
            };
            let reason = if !enough {
                statement.clone()
            } else if !enough_here {
                format!("fewer than {min_trials} values on a side (trials with data loss lack the frame)")
            } else if !tested {
                format!(
                    "not tested: the pooled median is below the floor ({floor} {})",
                    metric.unit()
                )
            } else {
                String::new()
            };
            metric_rows.push((
                Row {
                    frame: desc.clone(),
                    metric,
                    unit: metric.unit().to_string(),
                    baseline_median: stats::median(&b),
                    candidate_median: stats::median(&c),
                    pooled_median,
                    ratio: s.ratio,
                    ratio_ci_low: s.ratio_ci.map(|c| c.0),
                    ratio_ci_high: s.ratio_ci.map(|c| c.1),
                    shift: s.shift.map(|h| h.estimate),
                    shift_ci_low: s.shift.map(|h| h.ci_low),
                    shift_ci_high: s.shift.map(|h| h.ci_high),
                    shift_ci_level: s.shift.map(|h| h.level),
                    shift_method: s.shift.map(|h| h.method),
                    p_value: s.mw.map(|m| m.p_value),
                    p_method: s.mw.map(|m| m.method),
                    q_value: None,
                    tested,
                    verdict: Verdict::Inconclusive,
                    reason,
                    baseline_values: bv,
                    candidate_values: cv,
                    missing,
                    warnings: env_warning.iter().cloned().collect(),
                },
                s,
            ));
        }
        // BH over the family.
        let fam: Vec<usize> = (0..metric_rows.len())
            .filter(|&k| metric_rows[k].0.tested && metric_rows[k].0.p_value.is_some())
            .collect();
        let ps: Vec<f64> = fam
            .iter()
            .filter_map(|&k| metric_rows[k].0.p_value)
            .collect();
        let qs = stats::benjamini_hochberg(&ps);
        for (&k, &q) in fam.iter().zip(&qs) {
            let (row, s) = &mut metric_rows[k];
            row.q_value = Some(q);
            let (v, why) = verdict(s, q, metric, params);
            row.verdict = v;
            row.reason = why;
        }
        let count = |v: Verdict| metric_rows.iter().filter(|r| r.0.verdict == v).count();
        families.push(Family {
            metric,
            floor,
            tested: fam.len(),
            below_floor: metric_rows
                .iter()
                .filter(|r| !r.0.tested && r.0.reason.starts_with("not tested"))
                .count(),
            slower: count(Verdict::Slower),
            faster: count(Verdict::Faster),
            no_change: count(Verdict::NoChange),
            inconclusive: count(Verdict::Inconclusive),
        });
        rows.extend(metric_rows.into_iter().map(|r| r.0));
    }
    rows.sort_by(|a, b| {
        let rank = |r: &Row| match r.verdict {
            Verdict::Slower | Verdict::Faster => 0,
            _ => 1,
        };
        rank(a)
            .cmp(&rank(b))
            .then(
                a.q_value
                    .unwrap_or(f64::INFINITY)
                    .total_cmp(&b.q_value.unwrap_or(f64::INFINITY)),
            )
            .then(
                b.shift
                    .unwrap_or(0.0)
                    .abs()
                    .total_cmp(&a.shift.unwrap_or(0.0).abs()),
            )
            .then_with(|| a.frame.semantic_frame_id.cmp(&b.frame.semantic_frame_id))
            .then(a.metric.cmp(&b.metric))
    });
    Report {
        params: params.clone(),
        trials,
        baseline_trials: base.len(),
        candidate_trials: cand.len(),
        enough_trials: enough,
        statement,
        environment_differs,
        families,
        rows,
        warnings,
        failed_imports: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::scaling::{FrameTotals, TrialProfile};

    fn input(k: usize, side: Side, env: &str, ns: i64) -> Input {
        let frame = FrameDescription {
            semantic_frame_id: "sf1:aa".into(),
            provider: "perfetto.track_event".into(),
            name: "Op".into(),
            category: "op".into(),
            file: None,
            line: None,
            function: None,
            posted_from: None,
        };
        Input {
            trial: Trial {
                path: format!("t{k}"),
                input: None,
                variant: "default".into(),
                environment: String::new(),
                excluded: false,
                profile: TrialProfile {
                    artifact_id: format!("sha256:{k}"),
                    frames: vec![FrameTotals {
                        frame,
                        inclusive_ns: ns,
                        self_ns: ns,
                        count: 1,
                    }],
                    unmatched: Vec::new(),
                    data_loss: false,
                    environment: env.into(),
                    incomplete_slices: 0,
                },
            },
            side: Some(side),
        }
    }

    #[test]
    fn a_different_environment_between_the_sides_warns_on_every_row() {
        let mut v: Vec<Input> = (0..3)
            .map(|k| input(k, Side::Baseline, "host=a", 10_000_000 + k as i64))
            .collect();
        v.extend((3..6).map(|k| input(k, Side::Candidate, "host=b", 10_000_000 + k as i64)));
        let r = run(&v, &Params::default());
        assert!(r.environment_differs);
        assert!(r
            .rows
            .iter()
            .all(|x| x.warnings.iter().any(|w| w.contains("host=a"))));
        let same: Vec<Input> = (0..6)
            .map(|k| {
                let side = if k < 3 {
                    Side::Baseline
                } else {
                    Side::Candidate
                };
                input(k, side, "host=a", 10_000_000)
            })
            .collect();
        let r = run(&same, &Params::default());
        assert!(!r.environment_differs && r.rows[0].warnings.is_empty());
        // All values equal: p = 1, shift 0 with a [0, 0] interval → no change.
        assert_eq!(r.rows[0].verdict, Verdict::NoChange);
        assert_eq!(r.rows[0].p_value, Some(1.0));
    }

    #[test]
    fn verdicts_serialize_with_their_spaces() {
        assert_eq!(
            serde_json::to_string(&Verdict::NoChange).unwrap(),
            "\"no change\""
        );
        assert_eq!(Verdict::Inconclusive.as_str(), "inconclusive");
    }
}
