//! Multiple-testing correction.

/// Benjamini–Hochberg adjusted p-values (q-values), in the input order.
///
/// Reproduces `statsmodels.stats.multitest.multipletests(p, method='fdr_bh')[1]`: with the
/// p-values sorted ascending, `q₍ᵢ₎ = min_{j ≥ i} min(1, p₍ⱼ₎ · m / j)` where m is the number of
/// hypotheses (Benjamini & Hochberg 1995, J. R. Stat. Soc. B 57:289). Ties keep their order.
/// Inputs should be finite p-values in [0, 1]; callers drop non-finite ones before (NaN would
/// sort last and propagate only to itself).
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut q = vec![0.0; m];
    let mut running = f64::INFINITY;
    for (rank0, &i) in order.iter().enumerate().rev() {
        let adj = p[i] * m as f64 / (rank0 + 1) as f64;
        running = running.min(adj);
        q[i] = running.min(1.0);
    }
    q
}
