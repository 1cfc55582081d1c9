//! `trialscope report --html OUT FILE...`: one self-contained HTML file with every analysis the
//! files support — the file table and import reports always, scaling when there are traces,
//! compile triage when there are compile records (with `--pins`), rank memory when there are
//! memory series — for CI artifacts and docs ([`trialscope::report`]).
//!
//! Exit codes: 0 written; 1 when a file failed to import (the report, which lists it, is still
//! written) or OUT cannot be written; 2 usage errors.

use std::path::PathBuf;
use std::process::ExitCode;

use trialscope::analysis::scaling::{compile_input_regex, Metric, DEFAULT_INPUT_PATTERN};
use trialscope::report::{workspace_html, ReportParams};

use super::load;
use super::scaling::MetricArg;

/// Arguments of `trialscope report`.
#[derive(clap::Args)]
pub struct Args {
    /// Write the report to this HTML file.
    #[arg(long, value_name = "OUT.html")]
    pub html: PathBuf,
    /// Regex whose first capture group is each trial's numeric input (scaling).
    #[arg(long, value_name = "REGEX")]
    pub input_regex: Option<String>,
    /// Metric of the scaling analysis.
    #[arg(long, value_enum, default_value = "inclusive")]
    pub metric: MetricArg,
    /// Pins file for the compile triage.
    #[arg(long, value_name = "PINS.json")]
    pub pins: Option<PathBuf>,
    /// Memory sensitivity preset.
    #[arg(long, default_value = "medium", value_parser = ["low", "medium", "high"])]
    pub preset: String,
    /// Hotspot rows listed.
    #[arg(long, default_value_t = 50)]
    pub top: usize,
    /// Hotspot scatter plots drawn.
    #[arg(long, default_value_t = 6)]
    pub plots: usize,
    /// Trace files, record files, telemetry files or folders.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let pattern = args.input_regex.as_deref().unwrap_or(DEFAULT_INPUT_PATTERN);
    if let Err(e) = compile_input_regex(pattern) {
        errln!("error: --input-regex: {e}");
        return ExitCode::from(2);
    }
    let mut ws = load::workspace(&args.files);
    if let Some(p) = &args.pins {
        let name = p.display().to_string();
        let res = std::fs::read(p)
            .map_err(|e| format!("{name}: cannot read the file: {e}"))
            .and_then(|b| ws.load_pins(&name, &b));
        if let Err(e) = res {
            errln!("error: {e}");
            return ExitCode::from(1);
        }
    }
    let command: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| if a.contains(' ') { format!("{a:?}") } else { a })
        .collect();
    let params = ReportParams {
        input_pattern: pattern.to_string(),
        metric: Metric::from(args.metric),
        preset: args.preset.clone(),
        top: args.top,
        plots: args.plots,
        command: format!("trialscope {}", command.join(" ")),
    };
    let text = match workspace_html(&ws, &params) {
        Ok(t) => t,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = std::fs::write(&args.html, text) {
        errln!(
            "error: {}: cannot write the report: {e}",
            args.html.display()
        );
        return ExitCode::from(1);
    }
    errln!("wrote {}", args.html.display());
    if ws.failed().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
