//! Scaling analysis across trials (`../shared/reference/scaling.md`): per-trial aggregation by
//! semantic frame, Spearman ρ / p, Benjamini–Hochberg q, per-input medians with BCa bootstrap
//! CIs, model fits with AICc, coverage and evidence status. STUB: types fixed, being written.

use serde::{Deserialize, Serialize};

use crate::model::Model;

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
    pub provider: String,
    pub name: String,
    pub category: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub function: Option<String>,
}

/// Per-frame totals of one trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameTotals {
    pub frame: FrameDescription,
    pub inclusive_ns: i64,
    pub self_ns: i64,
    pub count: u64,
}

/// An unmatched frame of one trial (scaling.md: never silently dropped).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnmatchedTotals {
    pub name: String,
    pub reason: String,
    pub inclusive_ns: i64,
    pub count: u64,
}

/// Everything the scaling analysis needs from one imported artifact: small, serializable, and
/// independent of the model (the worker keeps these, not the models).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialProfile {
    pub artifact_id: String,
    /// Per semantic frame, sorted by semantic frame id.
    pub frames: Vec<FrameTotals>,
    pub unmatched: Vec<UnmatchedTotals>,
    /// True when the import lost data: frames it lacks count as missing, not 0.
    pub data_loss: bool,
    /// Environment key parts the trace tells (host, versions); empty when unknown.
    pub environment: String,
}

/// Aggregates one model per semantic frame (inclusive, self, count).
pub fn profile(_artifact_id: &str, _model: &Model) -> TrialProfile {
    unimplemented!("being written")
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
    /// CI level (0.95).
    pub ci_level: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            metric: Metric::Inclusive,
            min_trials: 3,
            bootstrap_resamples: 1999,
            seed: 0,
            ci_level: 0.95,
        }
    }
}
