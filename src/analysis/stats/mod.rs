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
//! * [`mann_whitney`] — the two-sided Mann–Whitney U test (`scipy.stats.mannwhitneyu`,
//!   `method='auto'`) and the Hodges–Lehmann shift with its distribution-free CI (R's
//!   `wilcox.test(x, y, conf.int = TRUE)`).
//! * [`root`] — Brent's root finder exactly as R's `uniroot` (for the asymptotic HL interval).
//! * [`rank::spearman_test`] — Spearman's ρ with the exact permutation p-value for n ≤ 10
//!   (`spearmanr(..., method=PermutationMethod(n_resamples=np.inf))`), t above.

pub mod bootstrap;
pub mod descriptive;
pub mod fdr;
pub mod fits;
pub mod mann_whitney;
pub mod rank;
pub mod rng;
pub mod root;

pub use bootstrap::{bca_median_ci, ratio_of_medians_ci, ConfidenceInterval};
pub use descriptive::{mad, median, quantile};
pub use fdr::benjamini_hochberg;
pub use fits::{fit_all, fit_model, fit_power_law, BestFit, FitModel, Fits, ModelFit, PowerLawFit};
pub use mann_whitney::{
    hodges_lehmann, mann_whitney_u, u_counts, HodgesLehmann, MannWhitney, PMethod,
};
pub use rank::{
    rankdata, spearman, spearman_test, SpearmanExact, SpearmanMethod, EXACT_SPEARMAN_MAX_N,
};
pub use rng::SplitMix64;
pub use root::zeroin;
