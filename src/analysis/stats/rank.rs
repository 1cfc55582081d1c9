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
