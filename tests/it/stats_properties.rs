//! Properties of `analysis::stats` that hold for any input (proptest): ranges, invariances,
//! orderings, and no panic on any finite data.

use proptest::prelude::*;
use trialscope::analysis::stats::{
    bca_median_ci, benjamini_hochberg, fit_all, median, rankdata, spearman,
};

fn finite_vec(min: usize, max: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1e6f64..1e6, min..max)
}

proptest! {
    #[test]
    fn ranks_are_a_permutation_of_1_to_n_in_sum(x in finite_vec(0, 40)) {
        let r = rankdata(&x);
        let n = x.len() as f64;
        prop_assert!((r.iter().sum::<f64>() - n * (n + 1.0) / 2.0).abs() < 1e-9);
        for i in 0..x.len() {
            for j in 0..x.len() {
                if x[i] < x[j] { prop_assert!(r[i] < r[j]); }
                if x[i] == x[j] { prop_assert_eq!(r[i], r[j]); }
            }
        }
    }

    #[test]
    fn spearman_is_bounded_symmetric_and_rank_invariant(
        pairs in prop::collection::vec((-1e3f64..1e3, -1e3f64..1e3), 3..30)
    ) {
        let x: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let y: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        if let Some((rho, p)) = spearman(&x, &y) {
            prop_assert!((-1.0..=1.0).contains(&rho));
            prop_assert!((0.0..=1.0).contains(&p));
            let (rho2, p2) = spearman(&y, &x).unwrap();
            prop_assert!((rho - rho2).abs() < 1e-12 && (p - p2).abs() < 1e-12);
            // A strictly increasing transform of x keeps ρ; negating y flips it.
            let ex: Vec<f64> = x.iter().map(|v| (v / 1e3).exp()).collect();
            let (rho3, _) = spearman(&ex, &y).unwrap();
            prop_assert!((rho - rho3).abs() < 1e-12);
            let ny: Vec<f64> = y.iter().map(|v| -v).collect();
            let (rho4, _) = spearman(&x, &ny).unwrap();
            prop_assert!((rho + rho4).abs() < 1e-12);
        }
    }

    #[test]
    fn bh_q_is_at_least_p_at_most_1_and_order_preserving(p in prop::collection::vec(0.0f64..=1.0, 0..50)) {
        let q = benjamini_hochberg(&p);
        prop_assert_eq!(q.len(), p.len());
        for i in 0..p.len() {
            prop_assert!(q[i] >= p[i] - 1e-15 && q[i] <= 1.0);
            for j in 0..p.len() {
                if p[i] <= p[j] { prop_assert!(q[i] <= q[j] + 1e-15); }
            }
        }
    }

    #[test]
    fn bca_interval_contains_the_median_and_is_deterministic(x in finite_vec(2, 25), seed in any::<u64>()) {
        let ci = bca_median_ci(&x, 499, 0.95, seed).unwrap();
        let m = median(&x).unwrap();
        let lo = x.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(ci.low <= ci.high);
        prop_assert!(lo <= ci.low && ci.high <= hi);
        prop_assert_eq!(Some(ci), bca_median_ci(&x, 499, 0.95, seed));
        prop_assert!(ci.low <= m && m <= ci.high, "{:?} median {}", ci, m);
    }

    #[test]
    fn fits_never_panic_and_r2_is_at_most_one(
        pts in prop::collection::vec((0.001f64..1e5, -1e6f64..1e6), 0..20)
    ) {
        let x: Vec<f64> = pts.iter().map(|p| p.0).collect();
        let y: Vec<f64> = pts.iter().map(|p| p.1).collect();
        if let Ok(f) = fit_all(&x, &y, 0.95) {
            for m in &f.models {
                if let Some(r2) = m.r_squared { prop_assert!(r2 <= 1.0 + 1e-9); }
                prop_assert!(m.residual_rms >= 0.0);
            }
            prop_assert!(f.best.as_str() == "inconclusive" || f.delta_aicc.unwrap() >= 2.0);
        }
    }
}
