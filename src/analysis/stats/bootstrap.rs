//! BCa bootstrap confidence interval of the median.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

use super::descriptive::{median_in_place, quantile_in_place};
use super::rng::SplitMix64;

/// Largest accepted number of resamples (bounds memory: 8 bytes each).
pub const MAX_RESAMPLES: usize = 1_000_000;

/// A confidence interval `[low, high]` in the unit of the data.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceInterval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// Bias-corrected and accelerated (BCa) bootstrap confidence interval of the median of `x`
/// (Efron 1987, JASA 82:171; Efron & Tibshirani 1993, §14.3), following
/// `scipy.stats.bootstrap((x,), np.median, method='BCa', n_resamples=resamples,
/// confidence_level=level)`:
///
/// 1. `resamples` medians θ*ᵦ of samples drawn with replacement (indices from
///    [`SplitMix64`] seeded with `seed`);
/// 2. bias correction `z₀ = Φ⁻¹(( #{θ*ᵦ < θ̂} + #{θ*ᵦ ≤ θ̂} ) / (2B))` (SciPy's
///    `_percentile_of_score`);
/// 3. acceleration `â = Σ U³ / (6 (Σ U²)^{3/2})`, `U = (n−1)(θ̄₍.₎ − θ̂₍ᵢ₎)` over the jackknife
///    (leave-one-out) medians;
/// 4. `αₖ = Φ(z₀ + (z₀ + z)/(1 − â(z₀ + z)))` for `z = Φ⁻¹(α/2), Φ⁻¹(1−α/2)`, and the interval is
///    the αₖ-quantiles of θ*ᵦ by [`super::quantile`]'s definition (linear interpolation,
///    `numpy.percentile`'s default).
///
/// Edge cases (SciPy would return NaN or warn): `None` for fewer than 2 values, any non-finite
/// value, `resamples` of 0 or above [`MAX_RESAMPLES`], or `level` outside (0, 1); a degenerate
/// interval `[v, v]` when all values equal v; â = 0 when every jackknife median is equal (the interval is then the
/// bias-corrected percentile interval); z₀ is computed with the score fraction clamped to
/// [1/(2B), 1 − 1/(2B)] so it stays finite.
///
/// Because the random stream differs from NumPy's, bounds agree with SciPy's only within
/// Monte-Carlo error (see `tests/it/stats_reference.rs`). Cost: O(resamples · n + n²) time (the
/// jackknife is n medians of n − 1 values), O(n + resamples) memory.
pub fn bca_median_ci(
    x: &[f64],
    resamples: usize,
    level: f64,
    seed: u64,
) -> Option<ConfidenceInterval> {
    let n = x.len();
    if n < 2
        || resamples == 0
        || resamples > MAX_RESAMPLES
        || !(level > 0.0 && level < 1.0)
        || x.iter().any(|v| !v.is_finite())
    {
        return None;
    }
    if x.iter().all(|&v| v == x[0]) {
        return Some(ConfidenceInterval {
            low: x[0],
            high: x[0],
        });
    }
    let mut buf = x.to_vec();
    let theta_hat = median_in_place(&mut buf);

    // Bootstrap distribution.
    let mut rng = SplitMix64::new(seed);
    let mut theta_b = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for slot in buf.iter_mut() {
            *slot = x[rng.below(n)];
        }
        theta_b.push(median_in_place(&mut buf));
    }

    // Bias correction.
    let below = theta_b.iter().filter(|&&t| t < theta_hat).count() as f64;
    let at_or_below = theta_b.iter().filter(|&&t| t <= theta_hat).count() as f64;
    let b = resamples as f64;
    let frac = ((below + at_or_below) / (2.0 * b)).clamp(0.5 / b, 1.0 - 0.5 / b);
    let normal = Normal::new(0.0, 1.0).ok()?;
    let z0 = normal.inverse_cdf(frac);

    // Acceleration from the jackknife.
    let mut jack = Vec::with_capacity(n);
    let mut loo = Vec::with_capacity(n - 1);
    for i in 0..n {
        loo.clear();
        loo.extend(
            x.iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &v)| v),
        );
        jack.push(median_in_place(&mut loo));
    }
    let mean_jack = jack.iter().sum::<f64>() / n as f64;
    let (mut num, mut den) = (0.0, 0.0);
    for &t in &jack {
        let u = (n as f64 - 1.0) * (mean_jack - t);
        num += u * u * u;
        den += u * u;
    }
    // SciPy divides both sums by n³ and n² first; the ratio is the same.
    let nn = n as f64;
    let a_hat = if den > 0.0 {
        (num / nn.powi(3)) / (6.0 * (den / nn.powi(2)).powf(1.5))
    } else {
        0.0
    };

    let alpha = (1.0 - level) / 2.0;
    let z_lo = normal.inverse_cdf(alpha);
    let adjust = |z: f64| {
        let s = z0 + z;
        normal.cdf(z0 + s / (1.0 - a_hat * s))
    };
    let (a1, a2) = (adjust(z_lo), adjust(-z_lo));
    if !a1.is_finite() || !a2.is_finite() {
        return None;
    }
    Some(ConfidenceInterval {
        low: quantile_in_place(&mut theta_b, a1),
        high: quantile_in_place(&mut theta_b, a2),
    })
}

/// Percentile bootstrap confidence interval of the ratio of medians `median(y) / median(x)`
/// (two independent samples, e.g. baseline `x` and candidate `y`), at `level`: `resamples`
/// times, each sample is resampled with replacement on its own (indices from one
/// [`SplitMix64`] seeded with `seed`: first x's, then y's), and the interval is the
/// (α/2, 1 − α/2) quantiles of the resampled ratios by [`super::quantile`]'s definition (R's
/// `quantile(type = 7)`; the percentile method of Efron & Tibshirani 1993, §13.3, as
/// `scipy.stats.bootstrap(..., method='percentile')` up to the random stream).
///
/// A resample whose x-median is 0 gives a ratio of +∞ (or NaN for 0/0, counted as +∞), so an
/// interval can reach +∞. `None` for fewer than 2 values in a sample, any non-finite value,
/// `resamples` of 0 or above [`MAX_RESAMPLES`], `level` outside (0, 1), or `median(x) = 0`
/// (no ratio).
pub fn ratio_of_medians_ci(
    x: &[f64],
    y: &[f64],
    resamples: usize,
    level: f64,
    seed: u64,
) -> Option<ConfidenceInterval> {
    if x.len() < 2
        || y.len() < 2
        || resamples == 0
        || resamples > MAX_RESAMPLES
        || !(level > 0.0 && level < 1.0)
        || x.iter().chain(y).any(|v| !v.is_finite())
    {
        return None;
    }
    let mut bx = x.to_vec();
    if median_in_place(&mut bx) == 0.0 {
        return None;
    }
    let mut by = y.to_vec();
    let mut rng = SplitMix64::new(seed);
    let mut ratios = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for slot in bx.iter_mut() {
            *slot = x[rng.below(x.len())];
        }
        for slot in by.iter_mut() {
            *slot = y[rng.below(y.len())];
        }
        let r = median_in_place(&mut by) / median_in_place(&mut bx);
        ratios.push(if r.is_nan() { f64::INFINITY } else { r });
    }
    let alpha = (1.0 - level) / 2.0;
    let low = quantile_in_place(&mut ratios, alpha);
    let high = quantile_in_place(&mut ratios, 1.0 - alpha);
    (!low.is_nan() && !high.is_nan()).then_some(ConfidenceInterval { low, high })
}
