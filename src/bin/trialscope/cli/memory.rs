//! `trialscope memory`: per-rank memory series and collective attribution of hidden-memory
//! spikes (collective-memory.md). Accepts trace files (Perfetto, Chrome JSON/Kineto; one rank
//! per file) and memory telemetry JSON Lines (any number of ranks per file).

use std::path::PathBuf;

use serde::Serialize;
use trialscope::analysis::collective_memory::{
    self as cm, Classification, Mapping, Params, Preset,
};
use trialscope::workspace::MemoryRequest;

/// Arguments of `trialscope memory`.
#[derive(clap::Args)]
pub struct Args {
    /// Sensitivity preset.
    #[arg(long, default_value = "medium", value_parser = ["low", "medium", "high"])]
    pub preset: String,
    /// Override one knob, e.g. `--set marker_window=200ms` (repeatable). Knobs:
    /// min_samples_per_rank, min_gap_bytes, min_gap_ratio, robust_zscore_threshold,
    /// marker_window, interval_padding, synchrony_window, min_synchrony_ratio, min_confidence.
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// Add a counter-name pattern to a series mapping, e.g. `--map device_used=fb_used`
    /// (kinds: device_used, allocator_reserved, allocator_allocated, device_total).
    #[arg(long = "map", value_name = "KIND=PATTERN")]
    pub map: Vec<String>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print the attributed intervals as CSV.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Trace or telemetry files (one trace file per rank), or folders of them.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// The `--json` document: the report exactly as the web app's memory view holds it (times
/// relative to `origin_ns`, the job's earliest record, in ns as decimal text), with the preset.
#[derive(Serialize)]
struct JsonOut<'a> {
    preset: &'a str,
    origin_ns: String,
    #[serde(flatten)]
    report: &'a cm::Report,
}

fn usage_error(msg: impl std::fmt::Display) -> std::process::ExitCode {
    errln!("error: {msg}");
    std::process::ExitCode::from(2)
}

/// Runs the subcommand. Exit codes: 0 success, 1 when any file failed to load (the others
/// are still analysed), 2 for a bad `--set`/`--map`.
pub fn run(args: Args) -> std::process::ExitCode {
    let preset: Preset = match args.preset.parse() {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    // Checked here so a bad knob is named with its flag before any file is read.
    let params = Params::preset(preset);
    let mut overrides = Vec::new();
    for kv in &args.set {
        let Some((k, v)) = kv.split_once('=') else {
            return usage_error(format!("--set {kv}: expected KNOB=VALUE"));
        };
        if let Err(e) = params.clone().with_override(k.trim(), v) {
            return usage_error(format!("--set {kv}: {e}"));
        }
        overrides.push((k.trim().to_string(), v.to_string()));
    }
    let mut mapping = Mapping::default();
    for kv in &args.map {
        let Some((k, v)) = kv.split_once('=') else {
            return usage_error(format!("--map {kv}: expected KIND=PATTERN"));
        };
        let list = match k.trim() {
            "device_used" => &mut mapping.device_used,
            "allocator_reserved" => &mut mapping.allocator_reserved,
            "allocator_allocated" => &mut mapping.allocator_allocated,
            "device_total" => &mut mapping.device_total,
            other => {
                return usage_error(format!(
                    "--map {kv}: unknown kind `{other}` (device_used, allocator_reserved, allocator_allocated, device_total)"
                ))
            }
        };
        list.insert(0, v.to_string());
    }

    let ws = super::load::workspace(&args.files);
    let req = MemoryRequest {
        preset: args.preset.clone(),
        overrides,
        mapping: (!args.map.is_empty()).then_some(mapping),
        rank_overrides: Vec::new(),
    };
    let outcome = match ws.memory(&req) {
        Ok(o) => o,
        Err(e) => return usage_error(e),
    };
    let report = &outcome.report;

    if args.csv {
        super::load::write_stdout(&trialscope::report::export::intervals_csv(report));
    } else if args.json {
        let out = JsonOut {
            preset: &args.preset,
            origin_ns: outcome.origin_ns.to_string(),
            report,
        };
        match serde_json::to_string_pretty(&out) {
            Ok(s) => super::load::write_stdout(&(s + "\n")),
            Err(e) => errln!("error: cannot write JSON: {e}"),
        }
    } else {
        print_text(report, &args.preset);
    }
    super::load::exit_code(&ws)
}

fn mib(b: f64) -> String {
    format!("{:.1} MiB", b / (1u64 << 20) as f64)
}

fn print_text(r: &cm::Report, preset: &str) {
    outln!(
        "world size {} · preset {preset} · clock: {} (skew {})",
        r.world_size,
        if r.clock.shared_clock {
            "shared"
        } else {
            "aligned on first samples"
        },
        trialscope::report::skew_text(r.clock.skew_ns)
    );
    outln!();
    outln!(
        "{:>5}  {:>8}  {:>7}  {:<34}  file",
        "rank",
        "samples",
        "markers",
        "series"
    );
    for k in &r.ranks {
        outln!(
            "{:>5}  {:>8}  {:>7}  {:<34}  {}",
            k.rank,
            k.samples,
            k.markers,
            if k.series.is_empty() {
                "-".to_string()
            } else {
                k.series
                    .iter()
                    .map(|s| {
                        s.trim_start_matches("device_")
                            .trim_start_matches("allocator_")
                            .trim_end_matches("_bytes")
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            k.label
        );
    }
    outln!();
    if r.intervals.is_empty() {
        outln!("no attributed intervals");
    } else {
        outln!(
            "{:>5}  {:>14}  {:>14}  {:<22}  {:>5}  {:>12}  {:>5}  {:<16}  reasons",
            "rank",
            "start ms",
            "end ms",
            "class",
            "conf",
            "peak gap",
            "sync",
            "phase"
        );
        // Interval times are relative to the job's earliest record already.
        let t0 = r.trace_start_ns.unwrap_or(0);
        for iv in &r.intervals {
            let class = match iv.classification {
                Classification::CollectiveConfident => "collective_confident",
                Classification::CollectiveLikely => "collective_likely",
                Classification::CollectiveSuspect => "collective_suspect",
            };
            outln!(
                "{:>5}  {:>14.3}  {:>14.3}  {:<22}  {:>5.2}  {:>12}  {:>2}/{:<2}  {:<16}  {}",
                iv.rank,
                iv.start_ns.saturating_sub(t0) as f64 / 1e6,
                iv.end_ns.saturating_sub(t0) as f64 / 1e6,
                class,
                iv.confidence,
                mib(iv.evidence.peak_gap_bytes),
                iv.evidence.synchronized_ranks,
                iv.evidence.expected_world_size,
                iv.phase.as_deref().unwrap_or("-"),
                iv.reason_codes
                    .iter()
                    .map(|c| c.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            );
        }
    }
    if !r.warnings.is_empty() {
        outln!();
        for w in &r.warnings {
            outln!("warning: {w}");
        }
    }
}
