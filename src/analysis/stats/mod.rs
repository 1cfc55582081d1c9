//! Statistics used by the analyses. Pure functions over `&[f64]`; each documents the reference
//! implementation it reproduces (SciPy, statsmodels, or a paper) and how it treats edge cases.
//!
//! * [`rank`] — `rankdata` (average ranks) and Spearman's ρ with its t-based p-value
//!   (`scipy.stats.rankdata`, `scipy.stats.spearmanr`).
//! * [`fdr`] — Benjamini–Hochberg adjusted p-values
//!   (`statsmodels.stats.multitest.multipletests(method='fdr_bh')`).
//! * [`descriptive`] — the crate's only median, raw median absolute deviation and quantile
//!   (`numpy.median`, `scipy.stats.median_abs_deviation` with `scale=1`, R's
//!   `quantile(type = 7)` = `numpy.quantile`'s default linear method); every analysis uses these.
//! * [`bootstrap`] — BCa bootstrap confidence interval of the median
//!   (`scipy.stats.bootstrap(..., method='BCa')`), driven by [`rng::SplitMix64`].
//! * [`fits`] — least-squares scaling models with standard errors, R², AICc, and the log–log
//!   power law with a t-based CI of its exponent (statsmodels `OLS`).
//! * [`rng`] — the tiny deterministic generator used for resampling.

pub mod bootstrap;
pub mod descriptive;
pub mod fdr;
pub mod fits;
pub mod rank;
pub mod rng;

pub use bootstrap::{bca_median_ci, ConfidenceInterval};
pub use descriptive::{mad, median, quantile};
pub use fdr::benjamini_hochberg;
pub use fits::{fit_all, fit_model, fit_power_law, BestFit, FitModel, Fits, ModelFit, PowerLawFit};
pub use rank::{rankdata, spearman};
pub use rng::SplitMix64;
