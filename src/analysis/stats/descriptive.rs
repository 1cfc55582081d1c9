//! Median and median absolute deviation.

/// Median of `x` (`numpy.median`: the mean of the two middle values for even n). `None` for an
/// empty slice or when any value is NaN.
pub fn median(x: &[f64]) -> Option<f64> {
    if x.is_empty() || x.iter().any(|v| v.is_nan()) {
        return None;
    }
    let mut v = x.to_vec();
    Some(median_in_place(&mut v))
}

/// Median of a non-empty, NaN-free buffer, reordering it (no allocation).
pub(crate) fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    let mid = n / 2;
    let (_, &mut hi, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    if n % 2 == 1 {
        hi
    } else {
        // The largest of the lower half is the other middle value.
        let lo = v[..mid].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo + hi) / 2.0
    }
}

/// Raw median absolute deviation `median(|x − median(x)|)`, unscaled: equals
/// `scipy.stats.median_abs_deviation(x)` with its default `scale=1.0` (multiply by 1.4826 for a
/// normal-consistent σ estimate). Same unit as `x`. `None` for an empty slice or NaN input.
pub fn mad(x: &[f64]) -> Option<f64> {
    let m = median(x)?;
    let mut dev: Vec<f64> = x.iter().map(|v| (v - m).abs()).collect();
    Some(median_in_place(&mut dev))
}
