//! The comparison's statistics against independent references (issue 13): SciPy 1.17.1
//! `mannwhitneyu` (exact and asymptotic, with ties) and the exact Spearman permutation p
//! (`permutation_test` over all n! pairings), statsmodels 0.15.0 `multipletests(fdr_bh)` —
//! printed by `tools/compare_reference.py` — and R 4.2.2 `wilcox.test(x, y, conf.int = TRUE)`
//! (Hodges–Lehmann estimate and CI) printed by `tools/hl_reference.R`. Tolerance 1e-12
//! relative (to max(|reference|, 1e-300)) unless a comment says otherwise.

use trialscope::analysis::stats::{
    benjamini_hochberg, hodges_lehmann, mann_whitney_u, spearman_test, PMethod, SpearmanExact,
    SpearmanMethod,
};

fn close(got: f64, want: f64, tol: f64, what: &str) {
    let t = tol * want.abs().max(1e-300);
    assert!(
        (got - want).abs() <= t,
        "{what}: got {got:e}, want {want:e} (rel. error {:e})",
        (got - want).abs() / want.abs().max(1e-300)
    );
}

type Mwu = (&'static str, &'static [f64], &'static [f64], f64, f64);

// tools/compare_reference.py: mannwhitneyu(x, y, alternative='two-sided', method='auto').
const MWU: &[Mwu] = &[
    (
        "exact_4_5",
        &[1.1, 2.3, 0.7, 4.5],
        &[3.3, 5.1, 6.2, 2.9, 7.7],
        2.0,
        0.06349206349206349,
    ),
    (
        "exact_8_8",
        &[10.2, 11.5, 9.8, 12.1, 10.9, 13.3, 9.1, 11.0],
        &[12.4, 13.9, 11.7, 14.2, 12.8, 15.0, 13.1, 12.2],
        6.0,
        0.004662004662004662,
    ),
    (
        "exact_3_12",
        &[5.5, 6.1, 7.3],
        &[1.0, 2.2, 3.1, 4.4, 5.0, 5.9, 6.6, 7.0, 8.2, 9.9, 0.3, 1.7],
        25.0,
        0.36483516483516487,
    ),
    (
        "exact_4_4_separated",
        &[1.0, 2.0, 3.0, 4.0],
        &[5.0, 6.0, 7.0, 8.0],
        0.0,
        0.02857142857142857,
    ),
    (
        "asymptotic_9_10",
        &[3.1, 4.7, 2.2, 5.9, 6.3, 1.8, 7.4, 8.8, 0.9],
        &[5.2, 6.6, 7.1, 9.3, 10.4, 4.1, 8.0, 11.2, 12.5, 6.0],
        17.0,
        0.024744672046398936,
    ),
    (
        "ties_6_5",
        &[1.0, 2.0, 2.0, 3.0, 3.0, 3.0],
        &[2.0, 3.0, 4.0, 4.0, 5.0],
        5.5,
        0.08871369199677616,
    ),
    (
        "ties_4_4",
        &[100.0, 100.0, 120.0, 130.0],
        &[100.0, 140.0, 150.0, 150.0],
        3.0,
        0.1804026662897562,
    ),
    ("all_tied", &[7.0, 7.0, 7.0], &[7.0, 7.0, 7.0], 4.5, 1.0),
];

#[test]
fn mann_whitney_matches_scipy_exact_and_asymptotic_with_ties() {
    for &(name, x, y, u1, p) in MWU {
        let r = mann_whitney_u(x, y).unwrap();
        close(r.u1, u1, 1e-12, &format!("{name}: U1"));
        close(r.p_value, p, 1e-12, &format!("{name}: p"));
        let want = if name.starts_with("exact") {
            PMethod::Exact
        } else {
            PMethod::Asymptotic
        };
        assert_eq!(r.method, want, "{name}");
    }
}

type Hl = (
    &'static str,
    &'static [f64],
    &'static [f64],
    f64,
    f64,
    f64,
    f64,
);

// tools/hl_reference.R: wilcox.test(x, y, conf.int = TRUE) → (estimate, conf.int, conf.level).
const HL: &[Hl] = &[
    (
        "exact_4_5",
        &[1.1, 2.3, 0.7, 4.5],
        &[3.3, 5.1, 6.2, 2.9, 7.7],
        -2.6999999999999997,
        -6.6,
        1.2000000000000002,
        0.95,
    ),
    (
        "exact_8_8",
        &[10.2, 11.5, 9.8, 12.1, 10.9, 13.3, 9.1, 11.0],
        &[12.4, 13.9, 11.7, 14.2, 12.8, 15.0, 13.1, 12.2],
        -2.1499999999999995,
        -3.5,
        -0.7999999999999989,
        0.95,
    ),
    (
        "exact_3_3",
        &[5.5, 6.1, 7.3],
        &[1.0, 2.2, 3.1],
        4.199999999999999,
        2.4,
        6.3,
        0.9,
    ),
    (
        "exact_4_4_ns",
        &[13000000.0, 12600000.0, 13400000.0, 12900000.0],
        &[10100000.0, 9900000.0, 10300000.0, 10000000.0],
        2900000.0,
        2300000.0,
        3500000.0,
        0.95,
    ),
    (
        "ties_6_5",
        &[1.0, 2.0, 2.0, 3.0, 3.0, 3.0],
        &[2.0, 3.0, 4.0, 4.0, 5.0],
        -1.0000388326671745,
        -2.9999845614013823,
        3.992840036596598e-05,
        0.95,
    ),
    (
        "ties_4_4",
        &[100.0, 100.0, 120.0, 130.0],
        &[100.0, 140.0, 150.0, 150.0],
        -25.287641764480092,
        -50.0,
        29.9999214293303,
        0.95,
    ),
    (
        "ties_9_10",
        &[3.0, 4.0, 2.0, 5.0, 6.0, 1.0, 7.0, 8.0, 1.0],
        &[5.0, 6.0, 7.0, 9.0, 10.0, 4.0, 8.0, 11.0, 12.0, 6.0],
        -3.9999764332027055,
        -6.000042768692013,
        -0.9999555698651121,
        0.95,
    ),
    (
        "asymptotic_55_60",
        &[
            8.747092, 10.367287, 8.328743, 13.190562, 10.659016, 8.359063, 10.974858, 11.476649,
            11.151563, 9.389223, 13.023562, 10.779686, 8.757519, 5.5706, 12.249862, 9.910133,
            9.967619, 11.887672, 11.642442, 11.187803, 11.837955, 11.564273, 10.14913, 6.021297,
            11.239651, 9.887743, 9.688409, 7.058495, 9.0437, 10.835883, 12.717359, 9.794425,
            10.775343, 9.89239, 7.245881, 9.170011, 9.21142, 9.881373, 12.200051, 11.526351,
            9.670953, 9.493277, 11.393927, 11.113326, 8.622489, 8.58501, 10.729164, 11.537066,
            9.775308, 11.762215, 10.796212, 8.775947, 10.682239, 7.741274, 12.866047,
        ],
        &[
            14.9608, 10.265557, 8.911731, 12.139439, 10.729891, 15.803236, 10.92152, 12.379479,
            11.056004, 9.513454, 11.377585, 7.390083, 13.93111, 11.306507, 15.345223, 11.951019,
            9.580107, 12.221453, 9.131805, 8.492733, 11.582892, 10.113416, 11.002211, 11.148683,
            9.820958, 9.862663, 10.729643, 13.356174, 7.952866, 12.187892, 11.665901, 13.1262,
            10.391632, 11.740038, 11.534198, 9.91496, 13.415736, 13.320805, 12.400427, 14.173667,
            12.116973, 8.446816, 9.853469, 8.550775, 10.053199, 9.759267, 11.084232, 9.178157,
            11.316058, 9.690831, 14.534575, 12.433415, 12.820348, 11.768371, 14.364352, 9.728527,
            10.076711, 13.864564, 9.698607, 10.585239,
        ],
        -0.9252816128767553,
        -1.6041615300993883,
        -0.2256376363180041,
        0.95,
    ),
];

#[test]
fn hodges_lehmann_matches_r_wilcox_test() {
    for &(name, x, y, est, lo, hi, level) in HL {
        let r = hodges_lehmann(x, y, 0.95).unwrap();
        // The asymptotic bounds are uniroot's (tol 1e-4) iterates, which the port of R_zeroin2
        // reproduces step for step. Relative to max(|reference|, 1): a bound that is a root
        // near 0 (ties_6_5's upper bound, 4e-5) has no meaningful relative error.
        let near = |g: f64, w: f64, what: &str| {
            assert!(
                (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                "{name}: {what}: got {g:e}, want {w:e}"
            )
        };
        near(r.estimate, est, "estimate");
        near(r.ci_low, lo, "ci low");
        near(r.ci_high, hi, "ci high");
        close(r.level, level, 1e-12, &format!("{name}: level"));
        let exact = name.starts_with("exact");
        assert_eq!(r.method == PMethod::Exact, exact, "{name}");
    }
}

#[test]
fn benjamini_hochberg_matches_statsmodels() {
    // multipletests(p, method='fdr_bh')[1]; ties at the smallest p (a 6 vs 6 rank test's 0.0022).
    let p = [
        0.0022, 0.0022, 0.03, 0.041, 0.2, 0.5, 0.9, 0.0001, 0.049, 1.0,
    ];
    let want = [
        0.007333333333333334,
        0.007333333333333334,
        0.075,
        0.08166666666666668,
        0.28571428571428575,
        0.625,
        1.0,
        0.001,
        0.08166666666666668,
        1.0,
    ];
    for (k, (g, w)) in benjamini_hochberg(&p).iter().zip(want).enumerate() {
        close(*g, w, 1e-12, &format!("q[{k}]"));
    }
}

type Sp = (&'static str, &'static [f64], &'static [f64], f64, f64);

// tools/compare_reference.py: permutation_test((x,), spearmanr(·, y).statistic,
// permutation_type='pairings', n_resamples=np.inf) — SciPy's exact permutation p of ρ over all
// n! pairings (SciPy ≥ 1.11 two-sided definition: 2·min(P(ρ* ≤ ρ), P(ρ* ≥ ρ)), clipped to 1).
const SPEARMAN: &[Sp] = &[
    ("n3", &[1.0, 2.0, 3.0], &[10.0, 30.0, 20.0], 0.5, 1.0),
    (
        "n3_perfect",
        &[1.0, 2.0, 3.0],
        &[10.0, 20.0, 30.0],
        1.0,
        0.3333333333333333,
    ),
    (
        "n4",
        &[1.0, 2.0, 3.0, 4.0],
        &[1.5, 0.5, 3.5, 4.5],
        0.8,
        0.3333333333333333,
    ),
    (
        "n5",
        &[1.0, 2.0, 3.0, 4.0, 5.0],
        &[2.0, 1.0, 4.0, 3.0, 5.0],
        0.8,
        0.13333333333333333,
    ),
    (
        "n6_ties_x",
        &[1.0, 1.0, 2.0, 2.0, 3.0, 3.0],
        &[1.0, 2.0, 3.0, 4.0, 6.0, 5.0],
        0.9561828874675149,
        0.022222222222222223,
    ),
    (
        "n7",
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        &[3.0, 1.0, 2.0, 7.0, 5.0, 4.0, 6.0],
        0.6428571428571429,
        0.1388888888888889,
    ),
    (
        "n8_ties_both",
        &[1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 8.0, 8.0],
        &[5.0, 5.0, 6.0, 7.0, 7.0, 9.0, 8.0, 10.0],
        0.9136498769008704,
        0.0031746031746031746,
    ),
    (
        "n9",
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        &[9.0, 2.0, 4.0, 3.0, 6.0, 5.0, 8.0, 7.0, 1.0],
        -0.11666666666666667,
        0.7756283068783069,
    ),
    (
        "n10",
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        &[2.0, 1.0, 4.0, 3.0, 6.0, 5.0, 8.0, 7.0, 10.0, 9.0],
        0.9393939393939394,
        0.00020557760141093475,
    ),
    (
        "n10_ties",
        &[1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0],
        &[1.0, 3.0, 2.0, 2.0, 5.0, 4.0, 6.0, 6.0, 9.0, 7.0],
        0.8865199597523205,
        0.0014285714285714286,
    ),
    (
        "n10_negative",
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        &[9.0, 10.0, 7.0, 8.0, 6.0, 4.0, 5.0, 3.0, 1.0, 2.0],
        -0.9515151515151515,
        0.0001080246913580247,
    ),
];

#[test]
fn exact_spearman_matches_scipy_permutation_for_n_3_to_10_with_and_without_ties() {
    let mut cache = SpearmanExact::new();
    for &(name, x, y, rho, p) in SPEARMAN {
        let (r, pv, m) = spearman_test(x, y, &mut cache).unwrap();
        assert_eq!(m, SpearmanMethod::ExactPermutation, "{name}");
        close(r, rho, 1e-12, &format!("{name}: rho"));
        close(pv, p, 1e-12, &format!("{name}: p"));
    }
    // Above n = 10 the t approximation (SciPy's default spearmanr) is used.
    let x: Vec<f64> = (0..11).map(f64::from).collect();
    let (_, _, m) = spearman_test(&x, &x, &mut cache).unwrap();
    assert_eq!(m, SpearmanMethod::TDistribution);
}
