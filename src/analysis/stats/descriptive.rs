//! Median, median absolute deviation and quantiles: the one definition of each that every
//! analysis uses (scaling's per-input medians, compile triage's warm-median pins, the memory
//! analysis' robust z-scores, the bootstrap's interval bounds).

/// Median of `x`, in the unit of `x`: the middle value of the sorted data for odd n, the mean
/// `(a + b) / 2` of the two middle values for even n — NumPy's `np.median(x)`, R's
/// `median(x)`. Mathematically `quantile(x, 0.5)` (see [`quantile`]), evaluated as NumPy
/// evaluates it. `None` for an empty slice or when any value is NaN (where NumPy returns NaN);
/// ±∞ are ordinary values. O(n) time (selection, not a sort), one copy of `x`.
pub fn median(x: &[f64]) -> Option<f64> {
    if x.is_empty() || x.iter().any(|v| v.is_nan()) {
        return None;
    }
    let mut v = x.to_vec();
    Some(median_in_place(&mut v))
}

/// [`median`] of a non-empty, NaN-free buffer, reordering it (no allocation). Bit-identical to
/// sorting `v` by `f64::total_cmp` and taking `v[n/2]` (odd n) or `(v[n/2 − 1] + v[n/2]) / 2`.
pub(crate) fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    let mid = n / 2;
    let (lower, &mut hi, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    if n % 2 == 1 {
        hi
    } else {
        // The largest of the lower half (in the same total order) is the other middle value.
        let lo = lower.iter().copied().max_by(f64::total_cmp).unwrap_or(hi);
        (lo + hi) / 2.0
    }
}

/// Raw median absolute deviation `median(|x − median(x)|)` with [`median`]'s definition,
/// unscaled: equals `scipy.stats.median_abs_deviation(x)` with its default `scale=1.0`, and R's
/// `mad(x, constant = 1)` (multiply by 1.4826 for a normal-consistent σ estimate). Same unit as
/// `x`. `None` for an empty slice or when any value is NaN.
pub fn mad(x: &[f64]) -> Option<f64> {
    let m = median(x)?;
    let mut dev: Vec<f64> = x.iter().map(|v| (v - m).abs()).collect();
    Some(median_in_place(&mut dev))
}

/// The `q`-quantile of `x` (`q` a fraction in [0, 1], result in the unit of `x`) by linear
/// interpolation between order statistics — Hyndman & Fan (1996, Am. Stat. 50:361) definition
/// 7, the default of both R (`quantile(x, q, type = 7)`) and NumPy (`np.quantile(x, q)`,
/// `method='linear'`; `np.percentile(x, 100·q)`). With the sorted values x₍₀₎ ≤ … ≤ x₍ₙ₋₁₎ and
/// h = q·(n − 1), the result is x₍⌊h⌋₎ + (h − ⌊h⌋)·(x₍⌊h⌋+1₎ − x₍⌊h⌋₎); `q = 0` and `q = 1`
/// give the minimum and the maximum. NumPy and R evaluate the same formula in a different
/// order (NumPy as `b − (b − a)(1 − t)` when t ≥ 0.5), so results can differ from theirs in the
/// last bits. `None` for an empty slice, any NaN value, or `q` outside [0, 1] (or NaN). O(n)
/// time (selection, not a sort), one copy of `x`.
pub fn quantile(x: &[f64], q: f64) -> Option<f64> {
    if x.is_empty() || x.iter().any(|v| v.is_nan()) || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let mut v = x.to_vec();
    Some(quantile_in_place(&mut v, q))
}

/// [`quantile`] of a non-empty, NaN-free buffer, reordering it (no allocation); `q` is clamped
/// to [0, 1].
pub(crate) fn quantile_in_place(v: &mut [f64], q: f64) -> f64 {
    let n = v.len();
    let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
    let lo = pos.floor() as usize;
    let frac = pos - lo as f64;
    let (_, &mut at_lo, above) = v.select_nth_unstable_by(lo, f64::total_cmp);
    if frac == 0.0 || above.is_empty() {
        return at_lo;
    }
    let next = above
        .iter()
        .copied()
        .min_by(f64::total_cmp)
        .unwrap_or(at_lo);
    at_lo + (next - at_lo) * frac
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal within 4 ulps-ish: NumPy interpolates in a different order (see [`quantile`]).
    fn close(got: f64, want: f64) -> bool {
        got == want || (got - want).abs() <= 1e-14 * want.abs().max(1.0)
    }

    const A: [f64; 8] = [3.2, -1.5, 7.25, 0.0, 12.5, 4.75, 4.75, -8.0];
    const E: [f64; 10] = [1e-3, 2.5e2, 7.0, 7.0, 3.25, 1e6, -2.0, 42.0, 0.5, 11.0];

    #[test]
    fn median_and_mad_match_numpy() {
        // NumPy 2.4.6: np.median(a), np.median(np.abs(a - np.median(a))).
        assert_eq!(median(&A), Some(3.975));
        assert_eq!(mad(&A), Some(3.625));
        assert_eq!(median(&E), Some(7.0));
        assert!(close(mad(&E).unwrap(), 6.749499999999999));
        let b = [10.0, 12.0, 11.0, 13.0, 50.0, 12.0, 11.0];
        assert_eq!(median(&b), Some(12.0));
        assert_eq!(mad(&b), Some(1.0));
        assert_eq!(median(&[0.1, 0.2, 0.3]), Some(0.2));
        assert_eq!(mad(&[0.1, 0.2, 0.3]), Some(0.09999999999999998));
        assert_eq!(median(&[5.5]), Some(5.5));
        assert_eq!(mad(&[5.5]), Some(0.0));
    }

    #[test]
    fn quantile_matches_numpy_linear_and_r_type_7() {
        // NumPy 2.4.6: np.quantile(x, q) (= np.percentile(x, 100 q, method='linear')).
        let qs = [0.0, 0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975, 1.0];
        let want_a = [
            -8.0,
            -6.8625,
            -3.4499999999999993,
            -0.375,
            3.975,
            5.375,
            8.825,
            11.58125,
            12.5,
        ];
        let want_e = [
            -2.0,
            -1.549775,
            -0.19909999999999994,
            1.1875,
            7.0,
            34.25,
            100224.99999999965,
            775056.2500000003,
            1000000.0,
        ];
        let want_b = [
            10.0,
            10.15,
            10.6,
            11.0,
            12.0,
            12.5,
            27.80000000000001,
            44.44999999999999,
            50.0,
        ];
        let b = [10.0, 12.0, 11.0, 13.0, 50.0, 12.0, 11.0];
        for (x, want) in [(&A[..], want_a), (&E[..], want_e), (&b[..], want_b)] {
            for (&q, w) in qs.iter().zip(want) {
                let got = quantile(x, q).unwrap();
                assert!(close(got, w), "quantile({x:?}, {q}) = {got}, NumPy {w}");
            }
        }
        assert_eq!(quantile(&[5.5], 0.3), Some(5.5));
    }

    #[test]
    fn edge_cases_are_none_and_in_place_equals_sorting() {
        assert_eq!(median(&[]), None);
        assert_eq!(mad(&[f64::NAN, 1.0]), None);
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[1.0, f64::NAN], 0.5), None);
        assert_eq!(quantile(&[1.0, 2.0], -0.1), None);
        assert_eq!(quantile(&[1.0, 2.0], 1.5), None);
        assert_eq!(quantile(&[1.0, 2.0], f64::NAN), None);
        assert_eq!(median(&[f64::INFINITY, 1.0, 2.0]), Some(2.0));
        // The selection-based median equals the sorted definition bit for bit.
        let mut s = E.to_vec();
        s.sort_by(f64::total_cmp);
        assert_eq!(
            median(&E).unwrap().to_bits(),
            ((s[4] + s[5]) / 2.0).to_bits()
        );
        // Odd n: the middle order statistic, also as quantile(0.5).
        assert_eq!(quantile(&[3.0, 1.0, 2.0], 0.5), median(&[3.0, 1.0, 2.0]));
    }
}
