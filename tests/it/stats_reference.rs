//! `analysis::stats` against independent reference values from SciPy 1.17.1 and statsmodels
//! 0.15.0. Every number below was printed by `tools/stats_reference.py`; the Python call that
//! produced it is given beside it. Tolerance 1e-9 (relative to max(1, |reference|)) unless a
//! comment says otherwise.

use trialscope::analysis::stats::{
    bca_median_ci, benjamini_hochberg, fit_all, fit_model, fit_power_law, mad, median, rankdata,
    spearman, FitModel,
};

fn close(got: f64, want: f64, what: &str) {
    let tol = 1e-9 * want.abs().max(1.0);
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got:e}, want {want:e}"
    );
}

#[test]
fn rankdata_averages_ties() {
    // scipy.stats.rankdata([3,1,4,1,5,9,2,6,5,3,5])
    let want = [4.5, 1.5, 6.0, 1.5, 8.0, 11.0, 3.0, 10.0, 8.0, 4.5, 8.0];
    let got = rankdata(&[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0]);
    assert_eq!(got, want);
}

#[test]
fn spearman_matches_scipy_with_ties_in_x() {
    // scipy.stats.spearmanr([1,2,2,3,4,5,5,6],[2,1,4,4,3,7,6,8])
    let (rho, p) = spearman(
        &[1., 2., 2., 3., 4., 5., 5., 6.],
        &[2., 1., 4., 4., 3., 7., 6., 8.],
    )
    .unwrap();
    close(rho, 0.8545611491092096, "rho");
    close(p, 0.006876451147459243, "p");
}

#[test]
fn spearman_matches_scipy_with_ties_in_both() {
    // scipy.stats.spearmanr([1,1,2,2,3,3],[5,6,5,7,9,9])
    let (rho, p) = spearman(&[1., 1., 2., 2., 3., 3.], &[5., 6., 5., 7., 9., 9.]).unwrap();
    close(rho, 0.8000946913656627, "rho");
    close(p, 0.055948877422712304, "p");
}

#[test]
fn spearman_matches_scipy_at_n3() {
    // scipy.stats.spearmanr([1,2,3],[3,1,2])
    let (rho, p) = spearman(&[1., 2., 3.], &[3., 1., 2.]).unwrap();
    close(rho, -0.5, "rho");
    close(p, 0.6666666666666666, "p");
}

#[test]
fn spearman_negative_correlation_matches_scipy() {
    // scipy.stats.spearmanr([1,2,3,4,5,6,7],[10,8,9,5,4,2,1])
    let (rho, p) = spearman(
        &[1., 2., 3., 4., 5., 6., 7.],
        &[10., 8., 9., 5., 4., 2., 1.],
    )
    .unwrap();
    close(rho, -0.9642857142857145, "rho");
    close(p, 0.00045414916919416935, "p");
}

#[test]
fn spearman_perfect_monotone_gives_rho_one_and_p_zero() {
    // scipy.stats.spearmanr([1,2,3,4,5],[1,4,9,16,25]) -> (0.9999999999999999, 1.40e-24):
    // SciPy's ρ is 1 up to rounding and its p is 0 up to rounding (p = 0 exactly when ρ = ±1).
    let (rho, p) = spearman(&[1., 2., 3., 4., 5.], &[1., 4., 9., 16., 25.]).unwrap();
    close(rho, 1.0, "rho");
    assert!(p.abs() < 1e-20, "p = {p:e}");
    let (rho, p) = spearman(&[1., 2., 3.], &[30., 20., 10.]).unwrap();
    assert_eq!((rho, p), (-1.0, 0.0));
}

#[test]
fn spearman_of_constant_input_is_none() {
    // scipy.stats.spearmanr([1,2,3,4],[5,5,5,5]) -> (nan, nan) with a ConstantInputWarning
    assert_eq!(spearman(&[1., 2., 3., 4.], &[5., 5., 5., 5.]), None);
    assert_eq!(spearman(&[2., 2., 2.], &[1., 2., 3.]), None);
    // Too short, mismatched, or non-finite input.
    assert_eq!(spearman(&[1., 2.], &[1., 2.]), None);
    assert_eq!(spearman(&[1., 2., 3.], &[1., 2.]), None);
    assert_eq!(spearman(&[1., 2., f64::NAN], &[1., 2., 3.]), None);
}

#[test]
fn benjamini_hochberg_matches_statsmodels() {
    // statsmodels.stats.multitest.multipletests(
    //     [0.01,0.04,0.03,0.005,0.2,0.04,0.5,0.9], method='fdr_bh')[1]
    let want = [
        0.04,
        0.064,
        0.064,
        0.04,
        0.26666666666666666,
        0.064,
        0.5714285714285714,
        0.9,
    ];
    let got = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.5, 0.9]);
    for (g, w) in got.iter().zip(want) {
        close(*g, w, "q");
    }
    assert!(benjamini_hochberg(&[]).is_empty());
    assert_eq!(benjamini_hochberg(&[0.9, 0.95]), vec![0.95, 0.95]);
}

#[test]
fn median_and_raw_mad_match_numpy_and_scipy() {
    // numpy.median([1,2,3,4,100]) = 3.0; scipy.stats.median_abs_deviation([1,2,3,4,100]) = 1.0
    assert_eq!(median(&[1., 2., 3., 4., 100.]), Some(3.0));
    assert_eq!(mad(&[1., 2., 3., 4., 100.]), Some(1.0));
    // numpy.median([4,1,3,2]) = 2.5; scipy.stats.median_abs_deviation([4,1,3,2]) = 1.0
    assert_eq!(median(&[4., 1., 3., 2.]), Some(2.5));
    assert_eq!(mad(&[4., 1., 3., 2.]), Some(1.0));
    assert_eq!(median(&[]), None);
    assert_eq!(mad(&[f64::NAN, 1.0]), None);
}

const FX: [f64; 12] = [1., 2., 4., 8., 16., 32., 1., 2., 4., 8., 16., 32.];
const FY: [f64; 12] = [
    5.1, 7.2, 10.9, 19.5, 35.0, 66.8, 4.8, 6.9, 11.3, 18.7, 34.1, 67.9,
];

/// Reference rows: (model, params, bse, rsquared, sqrt(ssr/n), aic + 2k(k+1)/(n-k-1)) from
/// `m = sm.OLS(y, X).fit()` with X = ones (constant) or sm.add_constant(f(x)).
#[allow(clippy::type_complexity)]
const FIT_REF: [(FitModel, &[f64], &[f64], f64, f64, f64); 5] = [
    (
        FitModel::Constant,
        &[24.016666666666673],
        &[6.550385523391011],
        0.0,
        21.725171013263754,
        110.33784182524565,
    ),
    (
        FitModel::Log,
        &[-4.733333333333336, 16.59099297022308],
        &[5.206569415590756, 2.4809641132276727],
        0.8172521494709968,
        9.287297178883039,
        92.87539985178752,
    ),
    (
        FitModel::Linear,
        &[2.953980099502476, 2.0059701492537334],
        &[0.18629914413296628, 0.012351512983743557],
        0.9996210108626307,
        0.4229378808737094,
        18.735138983532387,
    ),
    (
        FitModel::XLogX,
        &[7.590157262115072, 0.5511265966758722],
        &[0.7819300476058499, 0.01586391149311293],
        0.9917826023772142,
        1.9693837713146287,
        55.653154627281076,
    ),
    (
        FitModel::Quadratic,
        &[10.934051360027038, 0.05750600134786654],
        &[1.921822761322673, 0.004451174828651782],
        0.943473429386543,
        5.1652283123029825,
        78.79464145821136,
    ),
];

#[test]
fn least_squares_fits_match_statsmodels_ols() {
    for (model, params, bse, r2, rms, aicc) in FIT_REF {
        let f = fit_model(model, &FX, &FY).unwrap();
        let name = model.as_str();
        close(f.a, params[0], name);
        close(f.se_a.unwrap(), bse[0], name);
        if params.len() == 2 {
            close(f.b.unwrap(), params[1], name);
            close(f.se_b.unwrap(), bse[1], name);
        } else {
            assert_eq!(f.b, None);
        }
        close(f.r_squared.unwrap(), r2, name);
        close(f.residual_rms, rms, name);
        close(f.aicc.unwrap(), aicc, name);
    }
}

#[test]
fn best_model_needs_delta_aicc_of_two() {
    let fits = fit_all(&FX, &FY, 0.95).unwrap();
    // From FIT_REF: x (18.74) beats x·log(x) (55.65) by far more than 2.
    assert_eq!(fits.best.as_str(), "x");
    close(
        fits.delta_aicc.unwrap(),
        55.653154627281076 - 18.735138983532387,
        "ΔAICc",
    );
    assert_eq!((fits.x_min, fits.x_max), (1.0, 32.0));
    // Two near-equivalent models over a tiny range → inconclusive.
    let x = [10.0, 10.5, 11.0, 10.0, 10.5, 11.0];
    let y = [100.0, 111.0, 119.0, 101.0, 109.0, 122.0];
    assert_eq!(fit_all(&x, &y, 0.95).unwrap().best.as_str(), "inconclusive");
}

#[test]
fn power_law_matches_statsmodels_loglog_ols() {
    // m = sm.OLS(np.log(y), sm.add_constant(np.log(x))).fit():
    // exp(params[0]), params[1], bse[1], conf_int(0.05)[1], rsquared
    let p = fit_power_law(&FX, &FY, 0.95).unwrap();
    close(p.a, 4.326857294834631, "a");
    close(p.b, 0.7570421614926267, "b");
    close(p.se_b.unwrap(), 0.02591732993570419, "se_b");
    close(p.b_ci_low.unwrap(), 0.6992947517231373, "ci low");
    close(p.b_ci_high.unwrap(), 0.8147895712621162, "ci high");
    close(p.r_squared_log.unwrap(), 0.988415430550224, "r2");
}

#[test]
fn fits_refuse_bad_input() {
    assert!(fit_all(&[1., 2.], &[1., 2.], 0.95).is_err());
    assert!(fit_all(&[2., 2., 2.], &[1., 2., 3.], 0.95).is_err());
    assert!(fit_all(&[0., 1., 2.], &[1., 2., 3.], 0.95).is_err());
    assert!(fit_all(&[1., 2., f64::INFINITY], &[1., 2., 3.], 0.95).is_err());
    let f = fit_all(&[1., 2., 3.], &[0., 2., 3.], 0.95).unwrap();
    assert!(f.power_law.is_none() && f.power_law_unavailable.is_some());
    // n = 3: only the constant model (k = 1) has n > k + 1, so nothing can win.
    assert_eq!(f.best.as_str(), "inconclusive");
    assert!(f
        .models
        .iter()
        .all(|m| m.aicc.is_some() == (m.model == FitModel::Constant)));
}

/// Bootstrap reference: for each data set, `scipy.stats.bootstrap((d,), np.median,
/// n_resamples=1999, method='BCa', rng=np.random.default_rng(seed))` for seeds 0..200. Our
/// generator differs from NumPy's, so the tolerance is SciPy's own spread over those seeds:
/// our bound must lie inside [min, max] of SciPy's bounds. For the small sets every seed gave
/// the same bound (the bootstrap distribution of a median of ≤ 7 values is discrete).
#[test]
fn bca_median_ci_within_scipy_seed_spread() {
    // (data, low min, low max, high min, high max)
    let cases: [(&[f64], f64, f64, f64, f64); 4] = [
        (
            &[12.1, 15.3, 9.8, 20.4, 11.0, 14.2, 13.3],
            11.0,
            11.0,
            15.3,
            15.3,
        ),
        (&[10.0, 12.0, 30.0], 10.0, 10.0, 30.0, 30.0),
        (&[1.0, 3.0], 1.0, 1.0, 3.0, 3.0),
        (&[5.0, 5.0, 5.0, 6.0, 9.0, 40.0], 5.0, 5.0, 22.5, 24.5),
    ];
    for (d, lo_min, lo_max, hi_min, hi_max) in cases {
        for seed in [0u64, 1, 2] {
            let ci = bca_median_ci(d, 1999, 0.95, seed).unwrap();
            assert!(
                ci.low >= lo_min - 1e-9 && ci.low <= lo_max + 1e-9,
                "{d:?} seed {seed}: low {}",
                ci.low
            );
            assert!(
                ci.high >= hi_min - 1e-9 && ci.high <= hi_max + 1e-9,
                "{d:?} seed {seed}: high {}",
                ci.high
            );
        }
    }
}

#[test]
fn bca_median_ci_of_25_values_within_scipy_seed_spread() {
    // d = np.round(np.random.default_rng(42).lognormal(3, 0.5, 25), 2); median 19.92.
    // Over seeds 0..200 SciPy's low ranged over [16.21, 17.15] (mean 16.36) and its high over
    // [24.15, 25.37] (mean 25.27).
    let d = [
        23.39, 11.94, 29.23, 32.15, 7.57, 10.47, 21.41, 17.15, 19.92, 13.11, 31.18, 29.63, 20.76,
        35.29, 25.37, 13.07, 24.15, 12.44, 31.16, 19.59, 18.31, 14.29, 37.01, 18.59, 16.21,
    ];
    for seed in 0..5u64 {
        let ci = bca_median_ci(&d, 1999, 0.95, seed).unwrap();
        assert!((16.21..=17.15).contains(&ci.low), "seed {seed}: {ci:?}");
        assert!(
            (24.15..=25.37 + 1e-9).contains(&ci.high),
            "seed {seed}: {ci:?}"
        );
        assert!(ci.low <= 19.92 && 19.92 <= ci.high);
    }
}

#[test]
fn bca_is_deterministic_degenerate_and_needs_two_values() {
    let d = [3.0, 9.0, 4.0, 8.0, 1.0, 7.0];
    let a = bca_median_ci(&d, 1999, 0.95, 0).unwrap();
    let b = bca_median_ci(&d, 1999, 0.95, 0).unwrap();
    assert_eq!(a, b);
    let m = median(&d).unwrap();
    assert!(a.low <= m && m <= a.high, "{a:?} vs median {m}");
    let c = bca_median_ci(&[7.5, 7.5, 7.5], 1999, 0.95, 0).unwrap();
    assert_eq!((c.low, c.high), (7.5, 7.5));
    assert_eq!(bca_median_ci(&[1.0], 1999, 0.95, 0), None);
    assert_eq!(bca_median_ci(&[1.0, f64::NAN], 1999, 0.95, 0), None);
    assert_eq!(bca_median_ci(&[1.0, 2.0], 1999, 1.5, 0), None);
}
