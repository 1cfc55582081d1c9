//! Least-squares scaling models: `y = a` (constant) and `y = a + b·f(x)` for f = log x, x,
//! x·log x, x², plus the power law `y = a·x^b` fitted in log–log space.
//!
//! Every fit is ordinary least squares with statsmodels `OLS` semantics: standard errors from
//! σ̂² = RSS/(n−k), R² = 1 − RSS/TSS (`rsquared`, 0 for the constant model), and the
//! Gaussian log-likelihood AIC `aic = n·ln(2π) + n·ln(RSS/n) + n + 2k` (statsmodels
//! `OLSResults.aic`, k = number of coefficients, σ² not counted), corrected for small samples:
//! `AICc = aic + 2k(k+1)/(n−k−1)` (Hurvich & Tsai 1989, Biometrika 76:297), defined only when
//! n > k+1. Only AICc *differences* matter; the constant n·(ln 2π + 1) cancels in them.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// One of the five least-squares scaling models compared by AICc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum FitModel {
    /// `y = a` (k = 1).
    #[serde(rename = "constant")]
    Constant,
    /// `y = a + b·ln x`.
    #[serde(rename = "log(x)")]
    Log,
    /// `y = a + b·x`.
    #[serde(rename = "x")]
    Linear,
    /// `y = a + b·x·ln x`.
    #[serde(rename = "x·log(x)")]
    XLogX,
    /// `y = a + b·x²`.
    #[serde(rename = "x²")]
    Quadratic,
}

impl FitModel {
    /// All five models, simplest first.
    pub const ALL: [FitModel; 5] = [
        FitModel::Constant,
        FitModel::Log,
        FitModel::Linear,
        FitModel::XLogX,
        FitModel::Quadratic,
    ];

    /// Display / JSON name: `constant`, `log(x)`, `x`, `x·log(x)`, `x²`.
    pub fn as_str(self) -> &'static str {
        match self {
            FitModel::Constant => "constant",
            FitModel::Log => "log(x)",
            FitModel::Linear => "x",
            FitModel::XLogX => "x·log(x)",
            FitModel::Quadratic => "x²",
        }
    }

    /// The regressor f(x) (x > 0); `None` for the constant model.
    pub fn regressor(self, x: f64) -> Option<f64> {
        match self {
            FitModel::Constant => None,
            FitModel::Log => Some(x.ln()),
            FitModel::Linear => Some(x),
            FitModel::XLogX => Some(x * x.ln()),
            FitModel::Quadratic => Some(x * x),
        }
    }

    /// Number of coefficients k (1 or 2).
    pub fn parameters(self) -> usize {
        if self == FitModel::Constant {
            1
        } else {
            2
        }
    }
}

/// The AICc verdict of [`fit_all`] (the scaling report's `best`). Serialized as one string:
/// the model's [`FitModel::as_str`] name (`constant`, `log(x)`, `x`, `x·log(x)`, `x²`) or
/// `inconclusive`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BestFit {
    /// This model has the lowest AICc, at least 2 below the runner-up's (scaling.md, "Name a
    /// best model only when it beats the runner-up by ΔAICc ≥ 2").
    Model(FitModel),
    /// No model beats the runner-up by ΔAICc ≥ 2, or fewer than two models have an AICc.
    Inconclusive,
}

impl BestFit {
    /// The JSON / display name: the model's [`FitModel::as_str`], or `inconclusive`.
    pub fn as_str(self) -> &'static str {
        match self {
            BestFit::Model(m) => m.as_str(),
            BestFit::Inconclusive => "inconclusive",
        }
    }

    /// The winning model, when the verdict names one.
    pub fn model(self) -> Option<FitModel> {
        match self {
            BestFit::Model(m) => Some(m),
            BestFit::Inconclusive => None,
        }
    }

    /// The verdict named `s` (the inverse of [`BestFit::as_str`]).
    pub fn from_name(s: &str) -> Option<BestFit> {
        if s == "inconclusive" {
            return Some(BestFit::Inconclusive);
        }
        FitModel::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .map(BestFit::Model)
    }
}

impl Serialize for BestFit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for BestFit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        BestFit::from_name(&s).ok_or_else(|| {
            serde::de::Error::unknown_variant(
                &s,
                &["constant", "log(x)", "x", "x·log(x)", "x²", "inconclusive"],
            )
        })
    }
}

/// A least-squares fit of one [`FitModel`] (y in the data's unit, x in the input's unit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelFit {
    /// Which model.
    pub model: FitModel,
    /// Intercept a.
    pub a: f64,
    /// Slope b on f(x) (`None` for the constant model).
    pub b: Option<f64>,
    /// Standard error of a (`None` when n = k: no residual degrees of freedom).
    pub se_a: Option<f64>,
    /// Standard error of b.
    pub se_b: Option<f64>,
    /// Coefficient of determination (`None` when all y are equal: TSS = 0).
    pub r_squared: Option<f64>,
    /// Residual root mean square √(RSS/n), in y's unit.
    pub residual_rms: f64,
    /// AICc (see the module doc); `None` unless n > k+1 and RSS > 0 (an exact fit has an
    /// unbounded likelihood).
    pub aicc: Option<f64>,
    /// Number of points.
    pub n: usize,
}

/// The power law `y = a·x^b` fitted as `ln y = ln a + b·ln x` by least squares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerLawFit {
    /// Prefactor a = exp(intercept of the log–log fit).
    pub a: f64,
    /// Exponent b.
    pub b: f64,
    /// Standard error of b (fits need n ≥ 3, so n − 2 ≥ 1 residual degree of freedom).
    pub se_b: Option<f64>,
    /// Two-sided CI of b at `level`: `b ± t_{n−2}(1 − (1−level)/2) · se_b` (statsmodels
    /// `conf_int`). `None` when the residual is exactly zero or se_b is undefined.
    pub b_ci_low: Option<f64>,
    /// Upper bound of the CI of b.
    pub b_ci_high: Option<f64>,
    /// Confidence level of the CI (e.g. 0.95).
    pub level: f64,
    /// R² in log–log space.
    pub r_squared_log: Option<f64>,
    /// Number of points.
    pub n: usize,
}

/// All fits of one data set, the AICc verdict, and the range they describe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fits {
    /// The model with the lowest AICc when it beats the runner-up by ΔAICc ≥ 2, else
    /// [`BestFit::Inconclusive`].
    pub best: BestFit,
    /// AICc of the runner-up minus that of the lowest (`None` with fewer than two AICc values).
    pub delta_aicc: Option<f64>,
    /// The fitted models (a model whose regressor is constant over the data is left out).
    pub models: Vec<ModelFit>,
    /// The power law, when every y > 0.
    pub power_law: Option<PowerLawFit>,
    /// Why the power law is absent, when it is.
    pub power_law_unavailable: Option<String>,
    /// Fits describe only inputs in [`x_min`, `x_max`].
    pub x_min: f64,
    /// See `x_min`.
    pub x_max: f64,
}

/// Simple regression `y = a + b·f` with statsmodels OLS quantities. `f = None` means constant.
fn ols(f: Option<&[f64]>, y: &[f64], model: FitModel) -> Option<ModelFit> {
    let n = y.len();
    let nf = n as f64;
    let my = y.iter().sum::<f64>() / nf;
    let tss: f64 = y.iter().map(|v| (v - my) * (v - my)).sum();
    let (a, b, rss, se_a, se_b, k) = match f {
        None => {
            let rss = tss;
            let se = (n > 1).then(|| (rss / (nf - 1.0) / nf).sqrt());
            (my, None, rss, se, None, 1usize)
        }
        Some(f) => {
            let mf = f.iter().sum::<f64>() / nf;
            let (mut sff, mut sfy) = (0.0, 0.0);
            for (fi, yi) in f.iter().zip(y) {
                sff += (fi - mf) * (fi - mf);
                sfy += (fi - mf) * (yi - my);
            }
            if sff <= 0.0 || !sff.is_finite() {
                return None;
            }
            let b = sfy / sff;
            let a = my - b * mf;
            let rss: f64 = f
                .iter()
                .zip(y)
                .map(|(fi, yi)| {
                    let r = yi - a - b * fi;
                    r * r
                })
                .sum();
            let (se_a, se_b) = if n > 2 {
                let s2 = rss / (nf - 2.0);
                (
                    Some((s2 * (1.0 / nf + mf * mf / sff)).sqrt()),
                    Some((s2 / sff).sqrt()),
                )
            } else {
                (None, None)
            };
            (a, Some(b), rss, se_a, se_b, 2usize)
        }
    };
    let r_squared = if tss > 0.0 {
        Some(if f.is_none() { 0.0 } else { 1.0 - rss / tss })
    } else {
        None
    };
    let kf = k as f64;
    let aicc = (n > k + 1 && rss > 0.0).then(|| {
        let aic = nf * (2.0 * std::f64::consts::PI).ln() + nf * (rss / nf).ln() + nf + 2.0 * kf;
        aic + 2.0 * kf * (kf + 1.0) / (nf - kf - 1.0)
    });
    Some(ModelFit {
        model,
        a,
        b,
        se_a,
        se_b,
        r_squared,
        residual_rms: (rss / nf).sqrt(),
        aicc,
        n,
    })
}

/// Checks the fit preconditions: ≥ 3 points, equal lengths, every x finite and > 0, every y
/// finite, ≥ 2 distinct x. Returns the reason when they fail.
pub fn check_fit_input(x: &[f64], y: &[f64]) -> Result<(), String> {
    if x.len() != y.len() {
        return Err("inputs and values differ in length".into());
    }
    if x.len() < 3 {
        return Err(format!("a fit needs at least 3 points, got {}", x.len()));
    }
    if x.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return Err("every input must be finite and > 0".into());
    }
    if y.iter().any(|v| !v.is_finite()) {
        return Err("every value must be finite".into());
    }
    if x.iter().all(|&v| v == x[0]) {
        return Err("a fit needs at least 2 distinct inputs".into());
    }
    Ok(())
}

/// Least-squares fit of one model to points (x, y). `None` when [`check_fit_input`] fails or the
/// model's regressor is constant over x (e.g. x·ln x at x = 1/4 and 1/2).
pub fn fit_model(model: FitModel, x: &[f64], y: &[f64]) -> Option<ModelFit> {
    check_fit_input(x, y).ok()?;
    if model == FitModel::Constant {
        return ols(None, y, model);
    }
    let f: Vec<f64> = x.iter().filter_map(|&v| model.regressor(v)).collect();
    ols(Some(&f), y, model)
}

/// The power law `y = a·x^b` by least squares on (ln x, ln y), with a `level` CI of b from
/// Student's t with n−2 degrees of freedom. `Err(reason)` when the input fails
/// [`check_fit_input`] or some y ≤ 0.
pub fn fit_power_law(x: &[f64], y: &[f64], level: f64) -> Result<PowerLawFit, String> {
    check_fit_input(x, y)?;
    if y.iter().any(|&v| v <= 0.0) {
        return Err("the power law needs every value > 0".into());
    }
    let lx: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let ly: Vec<f64> = y.iter().map(|v| v.ln()).collect();
    let fit = ols(Some(&lx), &ly, FitModel::Linear).ok_or("inputs do not vary")?;
    let b = fit.b.unwrap_or(0.0);
    let df = (fit.n - 2) as f64;
    let (lo, hi) = match fit.se_b {
        Some(se) if se > 0.0 && se.is_finite() && level > 0.0 && level < 1.0 => {
            match StudentsT::new(0.0, 1.0, df) {
                Ok(t) => {
                    let q = t.inverse_cdf(1.0 - (1.0 - level) / 2.0);
                    (Some(b - q * se), Some(b + q * se))
                }
                Err(_) => (None, None),
            }
        }
        _ => (None, None),
    };
    Ok(PowerLawFit {
        a: fit.a.exp(),
        b,
        se_b: fit.se_b,
        b_ci_low: lo,
        b_ci_high: hi,
        level,
        r_squared_log: fit.r_squared,
        n: fit.n,
    })
}

/// Fits all five models and the power law, and names the best by AICc (ΔAICc ≥ 2 over the
/// runner-up, else [`BestFit::Inconclusive`]). `Err(reason)` when [`check_fit_input`] fails.
pub fn fit_all(x: &[f64], y: &[f64], level: f64) -> Result<Fits, String> {
    check_fit_input(x, y)?;
    let models: Vec<ModelFit> = FitModel::ALL
        .iter()
        .filter_map(|&m| fit_model(m, x, y))
        .collect();
    let mut scored: Vec<(f64, FitModel)> = models
        .iter()
        .filter_map(|m| m.aicc.map(|a| (a, m.model)))
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let delta_aicc = (scored.len() >= 2).then(|| scored[1].0 - scored[0].0);
    let best = match delta_aicc {
        Some(d) if d >= 2.0 => BestFit::Model(scored[0].1),
        _ => BestFit::Inconclusive,
    };
    let (power_law, power_law_unavailable) = match fit_power_law(x, y, level) {
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(e)),
    };
    let x_min = x.iter().copied().fold(f64::INFINITY, f64::min);
    let x_max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Ok(Fits {
        best,
        delta_aicc,
        models,
        power_law,
        power_law_unavailable,
        x_min,
        x_max,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_fit_serializes_as_the_model_name_or_inconclusive() {
        for m in FitModel::ALL {
            let b = BestFit::Model(m);
            let j = serde_json::to_string(&b).unwrap();
            assert_eq!(j, serde_json::to_string(&m).unwrap());
            assert_eq!(j, format!("\"{}\"", b.as_str()));
            assert_eq!(serde_json::from_str::<BestFit>(&j).unwrap(), b);
            assert_eq!(b.model(), Some(m));
        }
        let i = BestFit::Inconclusive;
        assert_eq!(serde_json::to_string(&i).unwrap(), "\"inconclusive\"");
        assert_eq!(
            serde_json::from_str::<BestFit>("\"inconclusive\"").unwrap(),
            i
        );
        assert_eq!(i.model(), None);
        assert!(serde_json::from_str::<BestFit>("\"cubic\"").is_err());
    }
}
