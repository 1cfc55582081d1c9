//! Two-sample rank tests: the Mann–Whitney U test (`scipy.stats.mannwhitneyu`) and the
//! Hodges–Lehmann shift with its distribution-free confidence interval (R's
//! `wilcox.test(x, y, conf.int = TRUE)`).

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

use super::rank::rankdata;
use super::root::zeroin;

/// How a rank-test p-value (or interval) was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PMethod {
    /// The exact null distribution (all permutations, counted).
    Exact,
    /// The normal approximation with tie and continuity correction.
    Asymptotic,
}

impl PMethod {
    /// The serde name: `exact` or `asymptotic`.
    pub fn as_str(self) -> &'static str {
        match self {
            PMethod::Exact => "exact",
            PMethod::Asymptotic => "asymptotic",
        }
    }
}

/// The result of [`mann_whitney_u`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U of the first sample: `R₁ − n₁(n₁+1)/2`, R₁ its rank sum in the pooled sample (average
    /// ranks for ties) — SciPy's returned `statistic`.
    pub u1: f64,
    /// Two-sided p-value in [0, 1].
    pub p_value: f64,
    /// Which distribution gave `p_value`.
    pub method: PMethod,
}

/// Counts of the Mann–Whitney U statistic under H₀ for sample sizes `m`, `n` (no ties):
/// `c[k]` = number of the C(m+n, m) rank assignments with U = k, k = 0..=m·n — the
/// coefficients of the Gaussian binomial `[m+n choose m]_q = Π_{i=1..m} (1 − q^{n+i}) / (1 − q^i)`.
/// Exact in f64 while the counts stay below 2⁵³ (C(m+n, m) ≤ 2⁵³; beyond, relative error
/// ~1e-16 per operation).
pub fn u_counts(m: usize, n: usize) -> Vec<f64> {
    let len = m * n + 1;
    let mut c = vec![0.0; len];
    c[0] = 1.0;
    for i in 1..=m {
        // Multiply by (1 − q^{n+i}) (degree stays ≤ m·n after the division below).
        let s = n + i;
        for k in (s..len).rev() {
            c[k] -= c[k - s];
        }
        // Divide by (1 − q^i): running sum with stride i.
        for k in i..len {
            c[k] += c[k - i];
        }
    }
    c
}

/// P(U ≤ k) under H₀ (no ties) for sizes `m`, `n`: R's `pwilcox(k, m, n)`. 0 for k < 0.
fn u_cdf(counts: &[f64], k: i64) -> f64 {
    if k < 0 {
        return 0.0;
    }
    let total: f64 = counts.iter().sum();
    let k = (k as usize).min(counts.len() - 1);
    counts[..=k].iter().sum::<f64>() / total
}

/// Tie counts of the pooled sample (sizes of the groups of equal values), for the tie
/// correction `Σ (t³ − t)`.
fn tie_term(pooled: &[f64]) -> f64 {
    let mut v = pooled.to_vec();
    v.sort_by(f64::total_cmp);
    let mut s = 0.0;
    let mut i = 0;
    while i < v.len() {
        let mut j = i + 1;
        while j < v.len() && v[j] == v[i] {
            j += 1;
        }
        let t = (j - i) as f64;
        s += t * t * t - t;
        i = j;
    }
    s
}

/// The two-sided Mann–Whitney U test of `x` against `y`, as
/// `scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='auto',
/// use_continuity=True)` (SciPy 1.17; the definitions have been the same since 1.7):
///
/// * `U₁ = R₁ − n₁(n₁+1)/2`, `U = max(U₁, n₁n₂ − U₁)`.
/// * Method: exact when at least one sample has ≤ 8 values and there are no ties in the pooled
///   sample (SciPy's `_mwu_choose_method`: asymptotic when *both* sizes exceed 8, or with any
///   tie), else asymptotic.
/// * Exact: `p = 2·P(U' ≥ U)` from the exact null distribution ([`u_counts`]), clipped to 1.
/// * Asymptotic: `z = (U − n₁n₂/2 − 0.5) / σ`,
///   `σ = √(n₁n₂/12 · ((n+1) − Σ(t³−t)/(n(n−1))))` (tie-corrected, continuity 0.5),
///   `p = 2·(1 − Φ(z))` ([`normal_sf`]), clipped to [0, 1]; σ = 0 (every value equal) gives p = 1 as SciPy.
///
/// `None` when either sample is empty or any value is not finite.
pub fn mann_whitney_u(x: &[f64], y: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
    let ranks = rankdata(&pooled);
    let r1: f64 = ranks[..n1].iter().sum();
    let (f1, f2) = (n1 as f64, n2 as f64);
    let u1 = r1 - f1 * (f1 + 1.0) / 2.0;
    let u = u1.max(f1 * f2 - u1);
    let ties = tie_term(&pooled);
    let exact = !(n1 > 8 && n2 > 8) && ties == 0.0;
    let p = if exact {
        let counts = u_counts(n1.min(n2), n1.max(n2));
        // U is an integer without ties: P(U' ≥ U), summed over the upper tail directly (no
        // cancellation in 1 − cdf).
        let total: f64 = counts.iter().sum();
        let tail: f64 = counts[(u as usize).min(counts.len())..].iter().sum::<f64>() / total;
        (2.0 * tail).clamp(0.0, 1.0)
    } else {
        let n = f1 + f2;
        let s = (f1 * f2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)))).sqrt();
        let z = (u - f1 * f2 / 2.0 - 0.5) / s;
        let p = if z.is_nan() { 1.0 } else { 2.0 * normal_sf(z) };
        p.clamp(0.0, 1.0)
    };
    Some(MannWhitney {
        u1,
        p_value: p,
        method: if exact {
            PMethod::Exact
        } else {
            PMethod::Asymptotic
        },
    })
}

/// `erfc(x)` for x ≥ 0 to about 1e-15 relative: for x < 2.5 as `1 − erf(x)` with the
/// positive-term series `erf(x) = 2/√π · e^{−x²} · Σₙ 2ⁿ x^{2n+1} / (2n+1)!!` (Abramowitz &
/// Stegun 7.1.6; no cancellation inside the sum), above by the continued fraction
/// `erfc(x) = e^{−x²}/√π · 1/(x + ½/(x + 1/(x + (3/2)/(x + …))))` (A&S 7.1.14) evaluated with
/// the modified Lentz method.
fn erfc_pos(x: f64) -> f64 {
    const FRAC_1_SQRT_PI: f64 = 0.564_189_583_547_756_3;
    if x < 2.5 {
        let x2 = x * x;
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        while term > 1e-17 * sum {
            n += 1.0;
            term *= 2.0 * x2 / (2.0 * n + 1.0);
            sum += term;
        }
        1.0 - 2.0 * FRAC_1_SQRT_PI * (-x2).exp() * sum
    } else {
        let tiny = 1e-300;
        let mut f = x;
        let mut c = f;
        let mut d = 0.0;
        for k in 1..5000 {
            let a = k as f64 / 2.0;
            d = x + a * d;
            if d.abs() < tiny {
                d = tiny;
            }
            d = 1.0 / d;
            c = x + a / c;
            if c.abs() < tiny {
                c = tiny;
            }
            let delta = c * d;
            f *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (-x * x).exp() * FRAC_1_SQRT_PI / f
    }
}

/// The standard normal survival function `1 − Φ(z)` to about 1e-15 relative (SciPy's
/// `scipy.stats.norm.sf` / `scipy.special.ndtr(−z)`, R's `pnorm(z, lower.tail = FALSE)`):
/// `½·erfc(z/√2)` for z ≥ 0, `1 − ½·erfc(−z/√2)` below. NaN for NaN, 0 at +∞, 1 at −∞.
pub fn normal_sf(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    if z == f64::INFINITY {
        return 0.0;
    }
    if z == f64::NEG_INFINITY {
        return 1.0;
    }
    let x = z.abs() / std::f64::consts::SQRT_2;
    let e = 0.5 * erfc_pos(x);
    if z >= 0.0 {
        e
    } else {
        1.0 - e
    }
}

/// The Hodges–Lehmann location shift of `x` relative to `y` with its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HodgesLehmann {
    /// The shift estimate (unit of the data): R's `estimate` ("difference in location").
    pub estimate: f64,
    /// Lower confidence bound.
    pub ci_low: f64,
    /// Upper confidence bound.
    pub ci_high: f64,
    /// The confidence level the interval has: the requested one, or — for the exact interval
    /// when the requested level is not achievable with these sample sizes — the achieved
    /// `1 − 2·P(U ≤ qu − 1)` (R's "Requested conf.level not achievable" case).
    pub level: f64,
    /// Exact (order statistics of the pairwise differences) or asymptotic (root finding).
    pub method: PMethod,
}

/// Hodges–Lehmann shift of `x − y` and its two-sided distribution-free confidence interval at
/// `level`, exactly as R's `wilcox.test(x, y, conf.int = TRUE, conf.level = level)` (R 4.2.2,
/// `stats:::wilcox.test.default`, defaults `exact = NULL`, `correct = TRUE`, `mu = 0`):
///
/// * **Exact** when both samples have < 50 values and the pooled sample has no ties: the m·n
///   differences `dᵢⱼ = xᵢ − yⱼ` sorted, `qu = qwilcox(α/2, m, n)` (the smallest k with
///   P(U ≤ k) ≥ α/2; 1 if it is 0), `ql = m·n − qu`, CI `[d₍qu₎, d₍ql+1₎]` (1-based); the
///   estimate is `median(d)`. If the achieved α `2·pwilcox(qu − 1, m, n)` exceeds the requested
///   one by more than α/2, `level` reports the achieved level (R warns and changes
///   `conf.level`).
/// * **Asymptotic** otherwise: with `W(d)` the U statistic of `(x − d, y)` (average ranks),
///   `f(d, z) = (W(d) − mn/2 − c) / σ(d) − z`, σ(d) tie-corrected as in [`mann_whitney_u`],
///   `c = sign(W(d) − mn/2)·0.5` for the interval; the bounds are the roots of `f(·, ±z₁₋α/2)`
///   on `[min x − max y, max x − min y]` found by R's `uniroot` (Brent's zeroin, `tol = 1e-4`,
///   [`zeroin`]), an endpoint when `f` does not change sign there; the estimate is the root of
///   `f(·, 0)` without the continuity correction. (R's `tol = 1e-4` is absolute, in the data's
///   unit: with nanosecond data the bounds are exact to well below 1 ns.)
///
/// `None` when either sample is empty, any value is not finite, `level` is outside (0, 1), or
/// (asymptotic case) every observation is tied (R stops with an error there).
pub fn hodges_lehmann(x: &[f64], y: &[f64], level: f64) -> Option<HodgesLehmann> {
    let (m, n) = (x.len(), y.len());
    if m == 0
        || n == 0
        || x.iter().chain(y).any(|v| !v.is_finite())
        || !(level > 0.0 && level < 1.0)
    {
        return None;
    }
    let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
    let ties = tie_term(&pooled) > 0.0;
    let alpha = 1.0 - level;
    let (fm, fn_) = (m as f64, n as f64);
    if m < 50 && n < 50 && !ties {
        let mut d: Vec<f64> = Vec::with_capacity(m * n);
        for &a in x {
            for &b in y {
                d.push(a - b);
            }
        }
        d.sort_by(f64::total_cmp);
        let counts = u_counts(m, n);
        let total: f64 = counts.iter().sum();
        // qwilcox(α/2, m, n) as R's nmath/wilcox.c computes it (α/2 ≤ 0.5): accumulate
        // cwilcox(q)/C(m+n, n) until it reaches α/2 − 10·DBL_EPSILON.
        let target = alpha / 2.0 - 10.0 * f64::EPSILON;
        let mut cum = 0.0;
        let mut qu = counts.len() - 1;
        for (k, c) in counts.iter().enumerate() {
            cum += c / total;
            if cum >= target {
                qu = k;
                break;
            }
        }
        if qu == 0 {
            qu = 1;
        }
        let ql = m * n - qu;
        let achieved = 2.0 * u_cdf(&counts, qu as i64 - 1);
        let level = if achieved - alpha > alpha / 2.0 {
            1.0 - achieved
        } else {
            level
        };
        let estimate = super::median(&d)?;
        return Some(HodgesLehmann {
            estimate,
            ci_low: d[qu - 1],
            ci_high: d[ql],
            level,
            method: PMethod::Exact,
        });
    }
    let normal = Normal::new(0.0, 1.0).ok()?;
    let mumin = x.iter().copied().fold(f64::INFINITY, f64::min)
        - y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mumax = x.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        - y.iter().copied().fold(f64::INFINITY, f64::min);
    let nn = fm + fn_;
    let mut buf = vec![0.0; m + n];
    let mut failed = false;
    let mut wdiff = |d: f64, zq: f64, correct: bool| -> f64 {
        for (i, &a) in x.iter().enumerate() {
            buf[i] = a - d;
        }
        buf[m..].copy_from_slice(y);
        let r = rankdata(&buf);
        let dz = r[..m].iter().sum::<f64>() - fm * (fm + 1.0) / 2.0 - fm * fn_ / 2.0;
        let c = if correct { 0.5 * sign(dz) } else { 0.0 };
        let sigma = (fm * fn_ / 12.0 * ((nn + 1.0) - tie_term(&buf) / (nn * (nn - 1.0)))).sqrt();
        if sigma == 0.0 {
            failed = true;
            return f64::NAN;
        }
        (dz - c) / sigma - zq
    };
    let mut root = |zq: f64, correct: bool| -> f64 {
        let fl = wdiff(mumin, zq, correct);
        let fu = wdiff(mumax, zq, correct);
        if fl <= 0.0 {
            return mumin;
        }
        if fu >= 0.0 {
            return mumax;
        }
        zeroin(mumin, mumax, fl, fu, |d| wdiff(d, zq, correct), 1e-4, 1000)
    };
    let zhi = normal.inverse_cdf(1.0 - alpha / 2.0);
    let lo = root(zhi, true);
    let hi = root(-zhi, true);
    // R: `uniroot(wdiff, lower = mumin, upper = mumax, tol = 1e-4, zq = 0)` with correct = FALSE
    // (no endpoint shortcut; uniroot evaluates both ends itself).
    let fl = wdiff(mumin, 0.0, false);
    let fu = wdiff(mumax, 0.0, false);
    let est = if fl == 0.0 {
        mumin
    } else if fu == 0.0 {
        mumax
    } else {
        zeroin(mumin, mumax, fl, fu, |d| wdiff(d, 0.0, false), 1e-4, 1000)
    };
    if failed || !lo.is_finite() || !hi.is_finite() || !est.is_finite() {
        return None;
    }
    Some(HodgesLehmann {
        estimate: est,
        ci_low: lo,
        ci_high: hi,
        level,
        method: PMethod::Asymptotic,
    })
}

/// R's `sign`: −1, 0 or 1.
fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u_counts_are_the_gaussian_binomial() {
        // [4 choose 2]_q = 1 + q + 2q² + q³ + q⁴.
        assert_eq!(u_counts(2, 2), vec![1.0, 1.0, 2.0, 1.0, 1.0]);
        let c = u_counts(8, 8);
        assert_eq!(c.iter().sum::<f64>(), 12870.0);
        assert_eq!(c.len(), 65);
        assert!(c.iter().zip(c.iter().rev()).all(|(a, b)| a == b));
    }

    #[test]
    fn perfect_separation_of_four_and_four() {
        let r = mann_whitney_u(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]).unwrap();
        // Values of scipy.stats.norm.sf (SciPy 1.17.1).
        for (z, want) in [
            (0.0, 0.5),
            (1.0, 0.15865525393145707),
            (2.2454, 0.012371232710436164),
            (3.0, 0.0013498980316300933),
            (6.0, 9.865876450376946e-10),
            (-1.5, 0.9331927987311419),
        ] {
            let got = normal_sf(z);
            assert!(
                (got - want).abs() <= 1e-13 * want,
                "sf({z}) = {got:e}, want {want:e}"
            );
        }
        assert_eq!(r.method, PMethod::Exact);
        assert_eq!(r.u1, 0.0);
        assert!((r.p_value - 2.0 / 70.0).abs() < 1e-15);
    }
}
