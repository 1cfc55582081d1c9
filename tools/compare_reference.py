#!/usr/bin/env python3
"""Reference values for tests/it/compare_reference.rs (issue 13): SciPy mannwhitneyu (exact and
asymptotic, with ties), SciPy spearmanr with the exact permutation method, statsmodels BH.

Run: target/pyenv/bin/python tools/compare_reference.py   (SciPy 1.17.1, statsmodels 0.15.0)
The Hodges-Lehmann numbers come from tools/hl_reference.R (R 4.2.2). Prints Rust literals.
"""
import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.multitest import multipletests

print(f"// SciPy {scipy.__version__}, statsmodels {statsmodels.__version__}")

MWU = {
    "exact_4_5": ([1.1, 2.3, 0.7, 4.5], [3.3, 5.1, 6.2, 2.9, 7.7]),
    "exact_8_8": ([10.2, 11.5, 9.8, 12.1, 10.9, 13.3, 9.1, 11.0],
                  [12.4, 13.9, 11.7, 14.2, 12.8, 15.0, 13.1, 12.2]),
    "exact_3_12": ([5.5, 6.1, 7.3], [1.0, 2.2, 3.1, 4.4, 5.0, 5.9, 6.6, 7.0, 8.2, 9.9, 0.3, 1.7]),
    "exact_4_4_separated": ([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]),
    "asymptotic_9_10": ([3.1, 4.7, 2.2, 5.9, 6.3, 1.8, 7.4, 8.8, 0.9],
                        [5.2, 6.6, 7.1, 9.3, 10.4, 4.1, 8.0, 11.2, 12.5, 6.0]),
    "ties_6_5": ([1.0, 2.0, 2.0, 3.0, 3.0, 3.0], [2.0, 3.0, 4.0, 4.0, 5.0]),
    "ties_4_4": ([100.0, 100.0, 120.0, 130.0], [100.0, 140.0, 150.0, 150.0]),
    "all_tied": ([7.0, 7.0, 7.0], [7.0, 7.0, 7.0]),
}
print("// mannwhitneyu(x, y, alternative='two-sided', method='auto'): (name, x, y, U1, p)")
for name, (x, y) in MWU.items():
    r = stats.mannwhitneyu(x, y, alternative="two-sided", method="auto")
    print(f'("{name}", &{x}, &{y}, {float(r.statistic)!r}, {float(r.pvalue)!r}),')

SP = {
    "n3": ([1, 2, 3], [10.0, 30.0, 20.0]),
    "n3_perfect": ([1, 2, 3], [10.0, 20.0, 30.0]),
    "n4": ([1, 2, 3, 4], [1.5, 0.5, 3.5, 4.5]),
    "n5": ([1, 2, 3, 4, 5], [2.0, 1.0, 4.0, 3.0, 5.0]),
    "n6_ties_x": ([1, 1, 2, 2, 3, 3], [1.0, 2.0, 3.0, 4.0, 6.0, 5.0]),
    "n7": ([1, 2, 3, 4, 5, 6, 7], [3.0, 1.0, 2.0, 7.0, 5.0, 4.0, 6.0]),
    "n8_ties_both": ([1, 1, 2, 2, 4, 4, 8, 8], [5.0, 5.0, 6.0, 7.0, 7.0, 9.0, 8.0, 10.0]),
    "n9": ([1, 2, 3, 4, 5, 6, 7, 8, 9], [9.0, 2.0, 4.0, 3.0, 6.0, 5.0, 8.0, 7.0, 1.0]),
    "n10": ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [2.0, 1.0, 4.0, 3.0, 6.0, 5.0, 8.0, 7.0, 10.0, 9.0]),
    "n10_ties": ([1, 1, 1, 2, 2, 2, 3, 3, 3, 4], [1.0, 3.0, 2.0, 2.0, 5.0, 4.0, 6.0, 6.0, 9.0, 7.0]),
    "n10_negative": ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [9.0, 10.0, 7.0, 8.0, 6.0, 4.0, 5.0, 3.0, 1.0, 2.0]),
}
def rho(a, b, axis=-1):
    """spearmanr's statistic (Pearson correlation of average ranks), vectorized along axis."""
    ra = stats.rankdata(a, axis=axis)
    rb = stats.rankdata(np.broadcast_to(b, ra.shape), axis=axis)
    ra = ra - ra.mean(axis=axis, keepdims=True)
    rb = rb - rb.mean(axis=axis, keepdims=True)
    return (ra * rb).sum(axis=axis) / np.sqrt((ra * ra).sum(axis=axis) * (rb * rb).sum(axis=axis))


# SciPy 1.17's spearmanr has no `method` argument (pearsonr has); its permutation p-value is
# permutation_test over all n! pairings with the spearmanr statistic, which is what
# spearmanr(x, y, method=PermutationMethod(n_resamples=np.inf)) means.
print("// permutation_test((x,), spearmanr statistic with y fixed, permutation_type='pairings', n_resamples=inf)")
print("// : (name, x, y, rho, p)")
for name, (x, y) in SP.items():
    # One sample (x) with y held fixed: n! pairings (with (x, y) both samples are permuted,
    # (n!)^2 arrangements, the same distribution but infeasible at n = 10). This is the
    # pattern of SciPy's own permutation_test documentation for Spearman's rho.
    yy = np.asarray(y, dtype=float)
    r = stats.permutation_test(
        (np.asarray(x, dtype=float),), lambda a, axis=-1: rho(a, yy, axis=axis),
        vectorized=True, batch=100_000,
        permutation_type="pairings", n_resamples=np.inf, alternative="two-sided")
    assert abs(r.statistic - stats.spearmanr(x, y).statistic) < 1e-15
    xs = [float(v) for v in x]
    print(f'("{name}", &{xs}, &{y}, {float(r.statistic)!r}, {float(r.pvalue)!r}),')

P = [0.0022, 0.0022, 0.03, 0.041, 0.2, 0.5, 0.9, 0.0001, 0.049, 1.0]
q = multipletests(P, method="fdr_bh")[1]
print("// multipletests(p, method='fdr_bh')[1]")
print(f"p: {P}")
print(f"q: {[float(v) for v in q]}")
