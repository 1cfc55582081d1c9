//! `trialscope bench`: import throughput and peak memory per trace file.
//!
//! Each file is measured in a fresh child process of this executable (`bench --child FILE`), so
//! the peak resident set (`VmHWM` from `/proc/self/status`, Linux) belongs to that file alone.
//! Throughput is decompressed (trace) megabytes (10^6 bytes) per second of the whole import
//! (`formats::import_with`: decompression + parsing + slice building), best of `--runs`.
//! This is a harness, not a timed test.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use trialscope::formats::{self, LoadOptions};

/// Arguments of `trialscope bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files.
    pub files: Vec<PathBuf>,
    /// Import runs per file; the best (fastest) is reported.
    #[arg(long, default_value_t = 3)]
    pub runs: u32,
    /// Print one JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Measure in this process (used for the per-file child processes).
    #[arg(long, hide = true)]
    pub child: bool,
}

/// One file's measurement.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchResult {
    pub file: String,
    /// Size of the file as stored, bytes.
    pub file_bytes: u64,
    /// Size after decompression, bytes.
    pub decompressed_bytes: u64,
    /// Best (shortest) whole-import wall time, seconds.
    pub best_import_s: f64,
    /// Median import wall time, seconds.
    pub median_import_s: f64,
    /// Decompressed MB (10^6 bytes) per second of the best run.
    pub mb_per_s: f64,
    /// Peak resident set of the measuring process, bytes (`VmHWM`); `None` off Linux.
    pub peak_rss_bytes: Option<u64>,
    /// Packets / events read, slices and counter samples built.
    pub events: u64,
    pub slices: u64,
    pub counter_samples: u64,
    pub runs: u32,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    if args.files.is_empty() {
        errln!("trialscope bench: no files given");
        return ExitCode::from(2);
    }
    let runs = args.runs.max(1);
    let mut results = Vec::new();
    let mut failed = false;
    for f in &args.files {
        let r = if args.child {
            measure(f, runs)
        } else {
            measure_in_child(f, runs).or_else(|_| measure(f, runs))
        };
        match r {
            Ok(r) => results.push(r),
            Err(e) => {
                errln!("error: {e}");
                failed = true;
            }
        }
    }
    if args.json || args.child {
        match serde_json::to_string_pretty(&results) {
            Ok(s) => outln!("{s}"),
            Err(e) => {
                errln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        outln!(
            "{:<40} {:>10} {:>10} {:>9} {:>9} {:>10} {:>10}",
            "file",
            "file MB",
            "trace MB",
            "best s",
            "MB/s",
            "peak MB",
            "slices"
        );
        for r in &results {
            outln!(
                "{:<40} {:>10.2} {:>10.2} {:>9.3} {:>9.1} {:>10} {:>10}",
                r.file,
                r.file_bytes as f64 / 1e6,
                r.decompressed_bytes as f64 / 1e6,
                r.best_import_s,
                r.mb_per_s,
                r.peak_rss_bytes
                    .map(|b| format!("{:.1}", b as f64 / 1e6))
                    .unwrap_or_else(|| "-".into()),
                r.slices
            );
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn measure_in_child(file: &Path, runs: u32) -> Result<BenchResult, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .arg("bench")
        .arg("--child")
        .arg("--runs")
        .arg(runs.to_string())
        .arg(file)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let mut v: Vec<BenchResult> = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    v.pop()
        .ok_or_else(|| format!("{}: no result", file.display()))
}

fn measure(file: &Path, runs: u32) -> Result<BenchResult, String> {
    let shown = file.display().to_string();
    let bytes = std::fs::read(file).map_err(|e| format!("{shown}: cannot read the file: {e}"))?;
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t0 = Instant::now();
        let a = formats::import_with(&shown, &bytes, &LoadOptions::default(), &mut |_| {})
            .map_err(|e| e.to_string())?;
        times.push(t0.elapsed().as_secs_f64());
        // Drop the previous model before the next run so peaks don't stack.
        last = Some((
            a.model.stats.decompressed_bytes,
            a.model.stats.events,
            a.model.slices.len() as u64,
            a.model.counters.iter().map(|c| c.ts_ns.len() as u64).sum(),
        ));
        drop(a);
    }
    let (decompressed, events, slices, samples) = last.unwrap_or_default();
    times.sort_by(f64::total_cmp);
    let best = times[0];
    let median = times[times.len() / 2];
    Ok(BenchResult {
        file: super::load::file_name(file),
        file_bytes: bytes.len() as u64,
        decompressed_bytes: decompressed,
        best_import_s: best,
        median_import_s: median,
        mb_per_s: if best > 0.0 {
            decompressed as f64 / 1e6 / best
        } else {
            0.0
        },
        peak_rss_bytes: peak_rss(),
        events,
        slices,
        counter_samples: samples,
        runs,
    })
}

/// `VmHWM` of this process in bytes (Linux), else `None`.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}
