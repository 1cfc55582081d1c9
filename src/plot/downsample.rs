//! Downsampling of long series for drawing only (never for analysis): largest-triangle-three-
//! buckets (Steinarsson, "Downsampling Time Series for Visual Representation", MSc thesis,
//! University of Iceland, 2013, §4.2).

/// Indices of the points of `(xs, ys)` to draw so that at most `threshold` points keep the
/// series' visual shape, by LTTB: the first and last points are always kept; the points
/// between are split into `threshold − 2` buckets of equal count, and from each bucket the
/// point forming the largest triangle with the previously kept point and the average of the
/// next bucket is kept.
///
/// `xs` must be sorted ascending (ns, or any unit); the result is ascending. When `threshold`
/// ≥ the number of points, or `threshold` < 3, every index is returned (nothing to drop, or no
/// room for the algorithm). `xs` and `ys` of different lengths are cut to the shorter one.
/// Non-finite `ys` are never chosen over a finite point of their bucket. O(n) time, O(threshold)
/// extra memory.
pub fn lttb(xs: &[f64], ys: &[f64], threshold: usize) -> Vec<usize> {
    let n = xs.len().min(ys.len());
    if threshold >= n || threshold < 3 {
        return (0..n).collect();
    }
    let mut out = Vec::with_capacity(threshold);
    out.push(0);
    let buckets = threshold - 2;
    // Points 1..n-1 are split into `buckets` buckets; bucket b covers [start(b), start(b+1)).
    let inner = n - 2;
    let start = |b: usize| 1 + b * inner / buckets;
    let mut a = 0usize;
    for b in 0..buckets {
        let (lo, hi) = (start(b), start(b + 1));
        // Average of the next bucket (or the last point for the final bucket).
        let (nlo, nhi) = if b + 1 < buckets {
            (start(b + 1), start(b + 2))
        } else {
            (n - 1, n)
        };
        let mut cx = 0.0;
        let mut cy = 0.0;
        let mut cnt = 0.0;
        for j in nlo..nhi {
            if ys[j].is_finite() {
                cx += xs[j];
                cy += ys[j];
                cnt += 1.0;
            }
        }
        if cnt > 0.0 {
            cx /= cnt;
            cy /= cnt;
        } else {
            cx = xs[nhi - 1];
            cy = ys[a];
        }
        let (ax, ay) = (xs[a], ys[a]);
        let mut best = lo;
        let mut best_area = -1.0;
        for j in lo..hi {
            let area = ((ax - cx) * (ys[j] - ay) - (ax - xs[j]) * (cy - ay)).abs();
            if area.is_finite() && area > best_area {
                best_area = area;
                best = j;
            }
        }
        out.push(best);
        a = best;
    }
    out.push(n - 1);
    out
}

/// [`lttb`] over a time series (`ts_ns` in ns, ascending; `values` in any unit), returning the
/// kept samples themselves: at most `threshold` of them (all when `threshold` < 3 or there are
/// no more than `threshold`).
pub fn lttb_series(ts_ns: &[i64], values: &[f64], threshold: usize) -> (Vec<i64>, Vec<f64>) {
    let xs: Vec<f64> = ts_ns.iter().map(|&t| t as f64).collect();
    let idx = lttb(&xs, values, threshold);
    (
        idx.iter().map(|&i| ts_ns[i]).collect(),
        idx.iter().map(|&i| values[i]).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_first_last_and_a_lone_spike() {
        let n = 10_000;
        let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let mut ys = vec![1.0; n];
        ys[4321] = 1000.0;
        let idx = lttb(&xs, &ys, 100);
        assert_eq!(idx.len(), 100);
        assert_eq!(idx[0], 0);
        assert_eq!(*idx.last().unwrap(), n - 1);
        assert!(idx.contains(&4321), "spike lost");
        assert!(idx.windows(2).all(|w| w[0] < w[1]));
        // A negative spike too.
        ys[4321] = 1.0;
        ys[777] = -500.0;
        assert!(lttb(&xs, &ys, 50).contains(&777));
    }

    #[test]
    fn series_form_keeps_times_and_values() {
        let ts: Vec<i64> = (0..1000)
            .map(|i| 1_700_000_000_000_000_000 + i * 1_000_000)
            .collect();
        let mut v = vec![0.0; 1000];
        v[500] = 7.0;
        let (t, y) = lttb_series(&ts, &v, 20);
        assert_eq!(t.len(), 20);
        assert_eq!((t[0], t[19]), (ts[0], ts[999]));
        let k = t.iter().position(|&x| x == ts[500]).expect("spike kept");
        assert_eq!(y[k], 7.0);
    }

    #[test]
    fn small_inputs_and_thresholds_return_everything() {
        let xs = [0.0, 1.0, 2.0];
        let ys = [3.0, 4.0, 5.0];
        assert_eq!(lttb(&xs, &ys, 10), vec![0, 1, 2]);
        assert_eq!(lttb(&xs, &ys, 2), vec![0, 1, 2]);
        assert_eq!(lttb(&[], &[], 5), Vec::<usize>::new());
        assert_eq!(lttb(&xs, &ys[..2], 5), vec![0, 1]);
        // Exactly 3 of 5: first, one inner, last.
        let idx = lttb(&[0., 1., 2., 3., 4.], &[0., 0., 9., 0., 0.], 3);
        assert_eq!(idx, vec![0, 2, 4]);
    }

    #[test]
    fn nan_is_not_chosen_over_finite_points() {
        let xs: Vec<f64> = (0..100).map(|i| i as f64).collect();
        let mut ys: Vec<f64> = (0..100).map(|i| (i % 7) as f64).collect();
        ys[50] = f64::NAN;
        let idx = lttb(&xs, &ys, 10);
        assert!(!idx.contains(&50));
    }

    #[test]
    fn one_million_points_is_linear_time() {
        let n = 1_000_000;
        let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let ys: Vec<f64> = (0..n).map(|i| ((i as f64) * 0.001).sin()).collect();
        let t = std::time::Instant::now();
        let idx = lttb(&xs, &ys, 2000);
        let el = t.elapsed();
        assert_eq!(idx.len(), 2000);
        // One pass over 1M points; a debug build takes ~0.1 s (bound left loose for loaded CI).
        assert!(el.as_secs_f64() < 5.0, "{el:?}");
    }
}
