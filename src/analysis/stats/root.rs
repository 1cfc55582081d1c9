//! One-dimensional root finding, as R's `uniroot`.

/// A root of `f` in `[ax, bx]` by Brent's method, step for step as R's `R_zeroin2`
/// (`src/library/stats/src/zeroin.c`, R 4.2.2; the netlib `zeroin.c` of Brent 1973, "Algorithms
/// for Minimization without Derivatives", ch. 4), which `uniroot(f, c(ax, bx), f.lower = fa,
/// f.upper = fb, tol = tol, maxiter = maxit)` calls. `fa = f(ax)` and `fb = f(bx)` must have
/// opposite signs (not checked). Returns the last approximation `b` once
/// `|c − b|/2 ≤ 2·ε·|b| + tol/2` or `f(b) = 0`, or after `maxit` iterations.
pub fn zeroin(
    ax: f64,
    bx: f64,
    fa: f64,
    fb: f64,
    mut f: impl FnMut(f64) -> f64,
    tol: f64,
    maxit: usize,
) -> f64 {
    let (mut a, mut b) = (ax, bx);
    let (mut fa, mut fb) = (fa, fb);
    let mut c = a;
    let mut fc = fa;
    if fa == 0.0 {
        return a;
    }
    if fb == 0.0 {
        return b;
    }
    for _ in 0..=maxit {
        let prev_step = b - a;
        if fc.abs() < fb.abs() {
            // Swap so that b is the best approximation.
            a = b;
            b = c;
            c = a;
            fa = fb;
            fb = fc;
            fc = fa;
        }
        let tol_act = 2.0 * f64::EPSILON * b.abs() + tol / 2.0;
        let mut new_step = (c - b) / 2.0;
        if new_step.abs() <= tol_act || fb == 0.0 {
            return b;
        }
        if prev_step.abs() >= tol_act && fa.abs() > fb.abs() {
            // Interpolation may be tried.
            let cb = c - b;
            let (mut p, mut q);
            if a == c {
                // Linear interpolation.
                let t1 = fb / fa;
                p = cb * t1;
                q = 1.0 - t1;
            } else {
                // Inverse quadratic interpolation.
                let qq = fa / fc;
                let t1 = fb / fc;
                let t2 = fb / fa;
                p = t2 * (cb * qq * (qq - t1) - (b - a) * (t1 - 1.0));
                q = (qq - 1.0) * (t1 - 1.0) * (t2 - 1.0);
            }
            if p > 0.0 {
                q = -q;
            } else {
                p = -p;
            }
            if p < (0.75 * cb * q - (tol_act * q).abs() / 2.0) && p < (prev_step * q / 2.0).abs() {
                new_step = p / q;
            }
        }
        if new_step.abs() < tol_act {
            new_step = if new_step > 0.0 { tol_act } else { -tol_act };
        }
        a = b;
        fa = fb;
        b += new_step;
        fb = f(b);
        if (fb > 0.0 && fc > 0.0) || (fb < 0.0 && fc < 0.0) {
            c = a;
            fc = fa;
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_root_of_a_smooth_function() {
        let r = zeroin(0.0, 2.0, -2.0, 2.0, |x| x * x - 2.0, 1e-12, 1000);
        assert!((r - 2f64.sqrt()).abs() < 1e-11);
    }
}
