//! `trialscope scaling`: imports every file as one trial (input from the file name), runs
//! [`trialscope::analysis::scaling::run`], and prints a table of hotspots or the report as JSON.
//!
//! With `--from DIR` the trials come from the Parquet aggregates of `trialscope summarize`.
//!
//! Exit codes: 0 success; 1 when any file failed to import (the analysis of the others is
//! still printed); 2 for a usage error (bad `--input-regex`, bad `--metric`).

use std::path::PathBuf;
use std::process::ExitCode;

use trialscope::analysis::scaling::{self, compile_input_regex, Metric, DEFAULT_INPUT_PATTERN};
use trialscope::workspace::ScalingRequest;

use super::load;

/// Metric names accepted by `--metric`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum MetricArg {
    /// Sum of slice durations (ns).
    Inclusive,
    /// Sum of self times (ns).
    #[value(name = "self")]
    SelfTime,
    /// Number of slices.
    Count,
}

impl From<MetricArg> for Metric {
    fn from(m: MetricArg) -> Metric {
        match m {
            MetricArg::Inclusive => Metric::Inclusive,
            MetricArg::SelfTime => Metric::SelfTime,
            MetricArg::Count => Metric::Count,
        }
    }
}

/// Arguments of `trialscope scaling`.
#[derive(clap::Args)]
pub struct Args {
    /// Regex with exactly one capture group that extracts each trial's numeric input from its
    /// file name (default: `n1000`, `n=1000`, `x32`, `size-8`, … tokens).
    #[arg(long, value_name = "REGEX")]
    pub input_regex: Option<String>,
    /// Which per-frame cost to correlate with the input.
    #[arg(long, value_enum, default_value = "inclusive")]
    pub metric: MetricArg,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Print the hotspots as CSV (the columns of `trialscope::report::export::HOTSPOT_COLUMNS`).
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Show only the first N hotspots (text: default 25; JSON: default all).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Read the trials from the Parquet aggregates `trialscope summarize --out DIR` wrote
    /// (instead of trace files): the same report as from the traces.
    #[arg(long, value_name = "DIR", conflicts_with = "files")]
    pub from: Option<PathBuf>,
    /// Trace files (one per trial) or folders of them.
    #[arg(required_unless_present = "from")]
    pub files: Vec<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let pattern = args.input_regex.as_deref().unwrap_or(DEFAULT_INPUT_PATTERN);
    if let Err(e) = compile_input_regex(pattern) {
        errln!("error: --input-regex: {e}");
        return ExitCode::from(2);
    }
    let ws = match &args.from {
        Some(dir) => match load::aggregates(dir) {
            Ok(ws) => ws,
            Err(e) => {
                errln!("error: {e}");
                return ExitCode::from(1);
            }
        },
        None => load::workspace(&args.files),
    };
    let req = ScalingRequest {
        settings: Vec::new(),
        metric: args.metric.into(),
        pattern: pattern.to_string(),
    };
    let mut report = match ws.scaling(&req) {
        Ok(o) => o.report,
        Err(e) => {
            errln!("error: --input-regex: {e}");
            return ExitCode::from(2);
        }
    };

    if args.csv {
        if let Some(n) = args.top {
            report.hotspots.truncate(n);
        }
        load::write_stdout(&trialscope::report::export::hotspots_csv(&report));
    } else if args.json {
        if let Some(n) = args.top {
            report.hotspots.truncate(n);
        }
        let mut value = match serde_json::to_value(&report) {
            Ok(v) => v,
            Err(e) => {
                errln!("error: cannot serialize the report: {e}");
                return ExitCode::from(1);
            }
        };
        let traces = ws
            .entries()
            .iter()
            .filter_map(|e| e.trace().map(|t| (e, t)));
        if let Some(ts) = value.get_mut("trials").and_then(|t| t.as_array_mut()) {
            for (t, (e, tf)) in ts.iter_mut().zip(traces) {
                if let Some(obj) = t.as_object_mut() {
                    obj.insert("format".into(), tf.format.as_str().into());
                    obj.insert(
                        "diagnostics".into(),
                        serde_json::to_value(e.diagnostics()).unwrap_or(serde_json::Value::Null),
                    );
                }
            }
        }
        load::write_stdout(&format!("{value}\n"));
    } else {
        print_text(&report, args.top.unwrap_or(25));
    }
    load::exit_code(&ws)
}

fn print_text(r: &scaling::Report, top: usize) {
    outln!(
        "{} trial(s), metric {} ({}), {} hypotheses tested, {} significant (q < {}), evidence: {:?}",
        r.trials.len(),
        r.metric.as_str(),
        r.unit,
        r.tested_hypotheses,
        r.significant,
        scaling::SIGNIFICANCE_Q,
        r.evidence_status
    );
    for reason in &r.evidence_reasons {
        outln!("  evidence: {reason}");
    }
    if !r.p_methods.is_empty() {
        outln!("  p-values: {}", r.p_methods);
    }
    for t in r.trials.iter().filter(|t| t.excluded) {
        outln!(
            "  excluded: {} ({})",
            t.path,
            t.exclusion_reason.as_deref().unwrap_or("")
        );
    }
    for w in &r.warnings {
        outln!("  warning: {w}");
    }
    let c = &r.coverage;
    outln!(
        "  coverage: {} matched frames ({} joined across trials), {} unmatched frame entries ({} ns)",
        c.matched_frames, c.joined_frames, c.unmatched_frames, c.unmatched_ns
    );
    for u in &c.unmatched_reasons {
        outln!(
            "    unmatched {}: {} entries, {} ns",
            u.reason,
            u.frames,
            u.ns
        );
    }
    outln!("  {}", r.range_statement);
    outln!();
    outln!(
        "{:>7} {:>10} {:>6} {:>17}  {:<14} name [category] (file:line or posted-from site)",
        "rho",
        "q",
        "trials",
        "range",
        "best fit"
    );
    for h in r.hotspots.iter().take(top) {
        let loc = match (&h.file, h.line, &h.posted_from) {
            (Some(f), Some(l), _) => format!(" ({f}:{l})"),
            (Some(f), None, _) => format!(" ({f})"),
            (None, _, Some(p)) => format!(" (posted from {p})"),
            _ => String::new(),
        };
        let cat = if h.category.is_empty() {
            String::new()
        } else {
            format!(" [{}]", h.category)
        };
        let fit = h.fit.as_ref().map_or("-", |f| f.best.as_str());
        outln!(
            "{:>+7.3} {:>10} {:>6} {:>17}  {:<14} {}{}{}{}",
            h.spearman_rho,
            fmt_q(h.q_value),
            h.trials,
            format!("{}..{}", h.supported_min, h.supported_max),
            fit,
            sanitize(&h.name),
            sanitize(&cat),
            sanitize(&loc),
            if h.environment_confounded {
                "  [environment differs across inputs]"
            } else {
                ""
            }
        );
    }
    if r.hotspots.len() > top {
        outln!("... {} more (use --top or --json)", r.hotspots.len() - top);
    }
}

/// A q-value for the text table: three decimals from 0.001 up (`0.043`, `1.000`), else
/// scientific with two (`2.60e-8`); the JSON report keeps the exact value.
fn fmt_q(q: f64) -> String {
    if q >= 1e-3 || q == 0.0 || !q.is_finite() {
        format!("{q:.3}")
    } else {
        format!("{q:.2e}")
    }
}

/// Trace text printed to a terminal: control characters replaced so a name cannot move the
/// cursor or inject escape sequences.
fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::fmt_q;

    #[test]
    fn q_values_print_as_decimals_unless_tiny() {
        assert_eq!(fmt_q(1.0), "1.000");
        assert_eq!(fmt_q(0.043), "0.043");
        assert_eq!(fmt_q(2.6e-8), "2.60e-8");
        assert_eq!(fmt_q(0.0), "0.000");
    }
}
