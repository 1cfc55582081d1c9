"""Spearman p-values exactly as trialscope computes them (src/analysis/stats/rank.rs), in plain
Python (no SciPy), for the engine recipes' user-defined functions.

* n <= 10: the exact permutation p over all n! pairings of the average ranks (ties included):
  p = min(1, 2 * min(P(S* <= S), P(S* >= S))) with S = sum(2*rank_x * 2*rank_y), as
  scipy.stats.spearmanr(x, y, method=PermutationMethod(n_resamples=np.inf)).
* n > 10: Student's t with n - 2 degrees of freedom, as scipy.stats.spearmanr(x, y); the
  two-sided p = 1 - A(t | df) by the finite sums of Abramowitz & Stegun 26.7.3 / 26.7.4
  (exact for integer df; the SQL of scaling.duckdb.sql computes the same sums).
"""

import math

EXACT_MAX_N = 10

_cache = {}


def _distribution(a, b):
    """Counts of S = sum(a_i * b_pi(i)) over all permutations pi (a, b: doubled ranks, ints),
    by dynamic programming over the subsets of b already paired (as trialscope does)."""
    key = (tuple(sorted(a)), tuple(sorted(b)))
    if key in _cache:
        return _cache[key]
    sa, sb = key
    n = len(sa)
    layer = {0: {0: 1}}
    for ai in sa:
        nxt = {}
        for mask, counts in layer.items():
            for j, bj in enumerate(sb):
                if mask & (1 << j):
                    continue
                dst = nxt.setdefault(mask | (1 << j), {})
                add = ai * bj
                for s, c in counts.items():
                    dst[s + add] = dst.get(s + add, 0) + c
        layer = nxt
    dist = layer.get((1 << n) - 1, {})
    _cache[key] = dist
    return dist


def exact_p(rank_x, rank_y):
    """Exact permutation p of Spearman's rho from the average ranks of x and y (lists of the
    same length 3..10); None for other lengths."""
    if rank_x is None or rank_y is None or len(rank_x) != len(rank_y):
        return None
    n = len(rank_x)
    if n < 3 or n > EXACT_MAX_N:
        return None
    a = [int(round(2 * r)) for r in rank_x]
    b = [int(round(2 * r)) for r in rank_y]
    s_obs = sum(p * q for p, q in zip(a, b))
    dist = _distribution(a, b)
    total = sum(dist.values())
    le = sum(c for s, c in dist.items() if s <= s_obs)
    ge = sum(c for s, c in dist.items() if s >= s_obs)
    return min(1.0, 2.0 * min(le, ge) / total)


def _c(k):
    """log of prod_{j=1..k} (2j-1)/(2j) (A&S 26.7.4's coefficients)."""
    return math.lgamma(k + 0.5) - math.lgamma(0.5) - math.lgamma(k + 1.0)


def _d(k):
    """log of prod_{j=1..k} (2j)/(2j+1) (A&S 26.7.3's coefficients)."""
    return 2.0 * math.lgamma(k + 1.0) + 2.0 * k * math.log(2.0) - math.lgamma(2.0 * k + 2.0)


TAIL_TERMS = 64


def t_p(rho, n):
    """Two-sided p of Spearman's rho by the t approximation with n - 2 degrees of freedom
    (|rho| = 1 gives 0, as SciPy and trialscope). With x = cos^2(theta) = df / (df + t^2) below
    1/2, p is summed directly as the tail of the series (p = 1 - A would cancel); else 1 - A."""
    if rho is None or n is None or n < 3 or not math.isfinite(rho):
        return None
    if abs(rho) >= 1.0:
        return 0.0
    df = n - 2
    t = abs(rho) * math.sqrt(df / ((1.0 + rho) * (1.0 - rho)))
    x = df / (df + t * t)
    s = t / math.sqrt(df + t * t)
    tail = x < 0.5
    if df % 2 == 0:
        k0 = df // 2
        if tail:
            p = s * sum(math.exp(_c(k) + k * math.log(x)) for k in range(k0, k0 + TAIL_TERMS))
        else:
            p = 1.0 - s * sum(math.exp(_c(k)) * x**k for k in range(0, k0))
    elif df == 1:
        p = 2.0 / math.pi * math.atan(1.0 / t) if tail else 1.0 - 2.0 / math.pi * math.atan(t)
    else:
        k0 = (df - 1) // 2
        r = math.sqrt(x)
        if tail:
            p = 2.0 / math.pi * s * sum(
                math.exp(_d(k) + (2 * k + 1) * math.log(r)) for k in range(k0, k0 + TAIL_TERMS)
            )
        else:
            head = sum(math.exp(_d(k)) * r ** (2 * k + 1) for k in range(0, k0))
            p = 1.0 - 2.0 / math.pi * (math.atan(t / math.sqrt(df)) + s * head)
    return min(1.0, max(0.0, p))


def p_value(rho, n, rank_x, rank_y):
    """trialscope's p: exact for n <= 10, else the t approximation."""
    if n is not None and n <= EXACT_MAX_N:
        return exact_p(rank_x, rank_y)
    return t_p(rho, n)


def p_method(n):
    """`exact_permutation` or `t_distribution`, as trialscope's JSON names them."""
    return "exact_permutation" if n <= EXACT_MAX_N else "t_distribution"
