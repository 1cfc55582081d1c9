//! Ranks and Spearman's rank correlation.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Average ranks (1-based) with ties given the mean of the ranks they span:
/// `scipy.stats.rankdata(x, method='average')`. NaN sorts last (callers pass finite values).
pub fn rankdata(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut ranks = vec![0.0; n];
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && x[order[j]] == x[order[i]] {
            j += 1;
        }
        // Positions i..j (0-based) share the ranks i+1..=j: their mean is (i + 1 + j) / 2.
        let r = (i + 1 + j) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = r;
        }
        i = j;
    }
    ranks
}

/// Pearson correlation of two equally long slices (two-pass, centred sums).
fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let ma = a.iter().sum::<f64>() / n;
    let mb = b.iter().sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        let (dx, dy) = (x - ma, y - mb);
        sab += dx * dy;
        saa += dx * dx;
        sbb += dy * dy;
    }
    // √(saa·sbb) (not √saa·√sbb) keeps a perfectly monotone pair at exactly ±1.
    let r = sab / (saa * sbb).sqrt();
    r.clamp(-1.0, 1.0)
}

/// Spearman's rank correlation ρ of `x` and `y` and its two-sided p-value, as
/// `scipy.stats.spearmanr(x, y)`: ρ is the Pearson correlation of the average ranks (ties
/// handled by [`rankdata`]); `t = ρ·√((n−2) / ((1+ρ)(1−ρ)))` and `p = 2·sf(|t|)` of Student's t
/// with n−2 degrees of freedom. As in SciPy, |ρ| = 1 gives t = ±∞ and p = 0.
///
/// Returns `(rho, p)`, or `None` when the lengths differ, n < 3, any value is not finite, or ρ
/// or p is not finite (a constant input makes ρ undefined; SciPy returns NaN there) — callers
/// count those.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<(f64, f64)> {
    let n = x.len();
    if n != y.len() || n < 3 || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let rho = pearson(&rankdata(x), &rankdata(y));
    if !rho.is_finite() {
        return None;
    }
    let df = (n - 2) as f64;
    let p = if rho.abs() >= 1.0 {
        0.0
    } else {
        let t = rho * (df / ((1.0 + rho) * (1.0 - rho))).sqrt();
        let dist = StudentsT::new(0.0, 1.0, df).ok()?;
        (2.0 * dist.sf(t.abs())).min(1.0)
    };
    p.is_finite().then_some((rho, p))
}

/// Largest sample size for which [`spearman_test`] uses the exact permutation distribution.
pub const EXACT_SPEARMAN_MAX_N: usize = 10;

/// How the p-value of Spearman's ρ was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpearmanMethod {
    /// Exact: the permutation distribution over all n! pairings (n ≤ [`EXACT_SPEARMAN_MAX_N`]),
    /// `scipy.stats.spearmanr(x, y, method=PermutationMethod(n_resamples=np.inf))`.
    ExactPermutation,
    /// Student's t with n − 2 degrees of freedom, `scipy.stats.spearmanr(x, y)` (n > 10).
    TDistribution,
}

impl SpearmanMethod {
    /// The serde name: `exact_permutation` or `t_distribution`.
    pub fn as_str(self) -> &'static str {
        match self {
            SpearmanMethod::ExactPermutation => "exact_permutation",
            SpearmanMethod::TDistribution => "t_distribution",
        }
    }
}

/// (sorted doubled ranks of x, of y): the tie patterns a null distribution depends on.
type TiePatterns = (Vec<u32>, Vec<u32>);

/// Null distributions of the statistic `S = Σ aᵢ·b_π(i)` (a, b doubled average ranks, so
/// integers) over all permutations π, cached per (sorted a, sorted b) — the tie patterns of x
/// and y. The scaling analysis tests hundreds of groups over the same trials, whose inputs
/// (x) are the same and whose values (y) mostly have no ties, so a handful of distributions
/// serve every group. Owned by the caller: no global state.
#[derive(Clone, Debug, Default)]
pub struct SpearmanExact {
    /// (sorted a, sorted b) → counts of S (index = S, for S in 0..=max).
    cache: std::collections::BTreeMap<TiePatterns, std::sync::Arc<Vec<u64>>>,
}

impl SpearmanExact {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts of S over the n! permutations, by dynamic programming over the subsets of b
    /// already paired with a₀…aᵢ₋₁ (2ⁿ states × the range of S, about 8 M additions for
    /// n = 10 instead of 3.6 M permutations × n).
    fn distribution(&mut self, a: &[u32], b: &[u32]) -> std::sync::Arc<Vec<u64>> {
        let mut sa = a.to_vec();
        sa.sort_unstable();
        let mut sb = b.to_vec();
        sb.sort_unstable();
        let key = (sa, sb);
        if let Some(d) = self.cache.get(&key) {
            return d.clone();
        }
        let (sa, sb) = (&key.0, &key.1);
        let n = sa.len();
        let max: usize = sa.iter().zip(sb).map(|(&x, &y)| (x * y) as usize).sum();
        let full = (1usize << n) - 1;
        // Layer i: masks with i bits set → counts.
        let mut layer: std::collections::BTreeMap<usize, Vec<u64>> =
            std::collections::BTreeMap::new();
        let mut first = vec![0u64; max + 1];
        first[0] = 1;
        layer.insert(0, first);
        for &ai in sa.iter() {
            let mut next: std::collections::BTreeMap<usize, Vec<u64>> =
                std::collections::BTreeMap::new();
            for (&mask, counts) in &layer {
                let hi = counts.iter().rposition(|&c| c > 0).unwrap_or(0);
                for (j, &bj) in sb.iter().enumerate() {
                    if mask & (1 << j) != 0 {
                        continue;
                    }
                    let add = (ai * bj) as usize;
                    let dst = next
                        .entry(mask | (1 << j))
                        .or_insert_with(|| vec![0u64; max + 1]);
                    for v in 0..=hi {
                        let c = counts[v];
                        if c > 0 && v + add <= max {
                            dst[v + add] += c;
                        }
                    }
                }
            }
            layer = next;
        }
        let d = std::sync::Arc::new(layer.remove(&full).unwrap_or_default());
        self.cache.insert(key.clone(), d.clone());
        d
    }
}

/// Spearman's ρ with its two-sided p-value: for 3 ≤ n ≤ [`EXACT_SPEARMAN_MAX_N`] the exact
/// permutation p-value, else the t approximation of [`spearman`].
///
/// Exact p, as `scipy.stats.spearmanr(x, y, method=PermutationMethod(n_resamples=np.inf))`
/// (SciPy 1.17; `permutation_test` with `permutation_type='pairings'` over all n! pairings,
/// SciPy ≥ 1.11's two-sided definition): `p = min(1, 2·min(P(ρ* ≤ ρ), P(ρ* ≥ ρ)))` where ρ*
/// runs over the n! pairings of x with the permuted y, ties included (average ranks are
/// permuted, so the distribution depends on the tie pattern). SciPy compares ρ* with ρ up to a
/// relative 100·ε; here the comparison is exact on the integer statistic
/// `S = Σ (2·rank xᵢ)(2·rank yᵢ)`, which ρ is an increasing function of for fixed tie patterns
/// (distinct S give ρ differences far above 100·ε). The smallest exact p is 2/n! (1/3 for
/// n = 3, 1/12 for n = 4, 1/60 for n = 5).
///
/// Returns `(rho, p, method)`, `None` as [`spearman`] (constant input, n < 3, non-finite).
pub fn spearman_test(
    x: &[f64],
    y: &[f64],
    cache: &mut SpearmanExact,
) -> Option<(f64, f64, SpearmanMethod)> {
    let n = x.len();
    if n > EXACT_SPEARMAN_MAX_N {
        return spearman(x, y).map(|(r, p)| (r, p, SpearmanMethod::TDistribution));
    }
    if n != y.len() || n < 3 || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let (rx, ry) = (rankdata(x), rankdata(y));
    let rho = pearson(&rx, &ry);
    if !rho.is_finite() {
        return None;
    }
    let a: Vec<u32> = rx.iter().map(|r| (2.0 * r) as u32).collect();
    let b: Vec<u32> = ry.iter().map(|r| (2.0 * r) as u32).collect();
    let s_obs: usize = a.iter().zip(&b).map(|(&p, &q)| (p * q) as usize).sum();
    let dist = cache.distribution(&a, &b);
    let total: u64 = dist.iter().sum();
    let le: u64 = dist.iter().take(s_obs + 1).sum();
    let ge: u64 = dist.iter().skip(s_obs).sum();
    let p = (2.0 * le.min(ge) as f64 / total as f64).min(1.0);
    Some((rho, p, SpearmanMethod::ExactPermutation))
}
