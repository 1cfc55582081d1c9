//! `trialscope bench`: import throughput and peak memory per trace file.
//!
//! Each file is measured in a fresh child process of this executable (`bench --child FILE`), so
//! the peak resident set (`VmHWM` from `/proc/self/status`, Linux) belongs to that file alone.
//! Throughput is decompressed (trace) megabytes (10^6 bytes) per second of the whole import
//! (`formats::load_from` streaming the file: decompression + parsing + slice building), best
//! of `--runs`.
//! This is a harness, not a timed test. `--rounds K` repeats the measurement K times, this
//! binary, the peer and an `--against` build once each per round in a rotating order, and
//! prints each round's ratios: the figures of one round share the machine's speed of the moment.
//!
//! `--peers` measures, in the same run and on the same decompressed bytes, what a user could
//! pick instead (issue #9): for a Perfetto file Python protobuf's upb backend decoding the real
//! schema (`Trace.FromString` with the `perfetto` PyPI package's `perfetto_trace_pb2`), for a
//! JSON file Python `json.loads` (`tools/bench/peers.py`, run with `--python`, by default
//! `target/peervenv/bin/python` when it exists) and, where it is installed there, the parser of
//! HolisticTraceAnalysis (files up to 256 MB). The best run's CPU time (user + system) is
//! printed next to its wall time, for the trialscope import and for the peers. `--generate-perfetto FILE --size-mb N` writes
//! a Chromium-like Perfetto trace of about N MB to benchmark with (under `target/`, never
//! committed); `--generate-kineto FILE --size-mb N` a Kineto-like Chrome JSON trace
//! (`formats::synthetic_kineto`, the one the JSON performance tests use).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use trialscope::analysis::stats;
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
    /// Also measure the peer decoder of each file in the same run (Python upb / json.loads).
    #[arg(long)]
    pub peers: bool,
    /// Measure each file in this many rounds, one after another: in each round this binary's
    /// import (a fresh child process, best of `--runs`), the peer's (with `--peers`) and the
    /// `--against` binary's, in an order that rotates from round to round. Prints each round's
    /// ratios, so that a shared machine's drifting speed hits both sides of a ratio alike.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Another `trialscope` executable (say, the build a change started from) measured in the
    /// same rounds on the same files (`EXE bench --child`); prints its import time beside this
    /// binary's, round by round. A path (a bare name is a file in the current directory, not
    /// a command looked up on `PATH`); a usage error (exit 2) when it is not an executable file.
    #[arg(long)]
    pub against: Option<PathBuf>,
    /// The Python interpreter for `--peers` (needs `protobuf` with the upb backend and the
    /// `perfetto` package for Perfetto files). Default: `target/peervenv/bin/python` when it
    /// exists (the README's `bench` entry says how to make it), else `python3`.
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// Write a generated Chromium-like Perfetto trace to this file instead of measuring.
    #[arg(long)]
    pub generate_perfetto: Option<PathBuf>,
    /// Size of the generated trace, MB (10^6 bytes).
    #[arg(long, default_value_t = 1000)]
    pub size_mb: u64,
    /// Write a generated Kineto-like (PyTorch profiler) Chrome JSON trace of about
    /// `--size-mb` MB to this file instead of measuring.
    #[arg(long)]
    pub generate_kineto: Option<PathBuf>,
    /// Time the import worker's pipeline stage by stage instead (SHA-256, inflate, the import,
    /// a Perfetto trace's field walk with no model built, `workspace::prepare`, the wire
    /// encoding; `tools/bench/stages.rs`), each file held in
    /// memory, best CPU time of `--runs` summed over the files: the native side of
    /// `tools/bench/wasm_stages.js`.
    #[arg(long)]
    pub stages: bool,
}

/// The stage timer shared with the wasm32 harness (`tools/bench/wasm_stages/lib.rs`, which
/// also uses its `to_json`).
#[allow(dead_code)]
#[path = "../../../../tools/bench/stages.rs"]
mod stages;

#[path = "../../../../tools/bench/cpu_clock.rs"]
mod cpu_clock;

/// `bench --stages`: each stage's best of `--runs`, summed over the files, as a table.
fn run_stages(args: &Args) -> ExitCode {
    // CPU time of this thread, ms (`cpu_clock`): the machine is shared, and wall time under
    // load says little about one stage; wall time where that clock is missing.
    let t0 = Instant::now();
    let now =
        || cpu_clock::thread_cpu_s().map_or_else(|| t0.elapsed().as_secs_f64() * 1e3, |s| s * 1e3);
    let mut total: Vec<(&'static str, f64, u64)> = Vec::new();
    for f in &args.files {
        let shown = f.display().to_string();
        let bytes = match std::fs::read(f) {
            Ok(b) => b,
            Err(e) => {
                errln!("trialscope bench: {shown}: {e}");
                return ExitCode::from(1);
            }
        };
        match stages::run(&shown, &bytes, args.runs, &now) {
            Ok(rows) => {
                for s in rows {
                    match total.iter_mut().find(|t| t.0 == s.name) {
                        Some(t) => {
                            t.1 += s.best_ms;
                            t.2 += s.bytes;
                        }
                        None => total.push((s.name, s.best_ms, s.bytes)),
                    }
                }
            }
            Err(e) => {
                errln!("trialscope bench: {shown}: {e}");
                return ExitCode::from(1);
            }
        }
    }
    outln!(
        "files {}, runs {} (best CPU time of this thread per stage; MB/s of the bytes as \
         dropped for `sha256 (as dropped)`, of the decompressed bytes for every other stage)",
        args.files.len(),
        args.runs
    );
    for (name, ms, bytes) in total {
        let rate = if ms > 0.0 {
            bytes as f64 / 1e3 / ms
        } else {
            0.0
        };
        outln!("{name:<28} {ms:>9.1} ms {rate:>8.1} MB/s");
    }
    ExitCode::SUCCESS
}

/// A peer's measurement of the same file (`tools/bench/peers.py`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PeerResult {
    /// Best decode time, seconds.
    pub seconds: f64,
    pub median_seconds: f64,
    /// Bytes decoded (after decompression).
    pub decompressed_bytes: u64,
    /// Packets or top-level events decoded.
    pub items: u64,
    /// Peak resident set of the peer process, bytes (`ru_maxrss`).
    pub peak_rss_bytes: u64,
    /// `protobuf-upb` or `json.loads`.
    pub backend: String,
    /// CPU time (user + system) of the best run, seconds.
    #[serde(default)]
    pub cpu_seconds: Option<f64>,
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
    /// `perfetto_proto` or `chrome_json`.
    #[serde(default)]
    pub format: String,
    /// Model heap bytes per slice (`Model::heap_bytes` / slices).
    #[serde(default)]
    pub model_bytes_per_slice: f64,
    /// The peer's figures, with `--peers`.
    #[serde(default)]
    pub peer: Option<PeerResult>,
    /// CPU time (user + system) of the best run, seconds (Linux `/proc/self/stat`).
    #[serde(default)]
    pub best_cpu_s: Option<f64>,
    /// HolisticTraceAnalysis' parser on a JSON file, with `--peers` where it is installed.
    #[serde(default)]
    pub peer_hta: Option<PeerResult>,
    /// Each round's figures (`--rounds`, `--against`); empty for a single round with no
    /// `--against`. The fields above are then the best round's (the peak: the highest).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<Round>,
}

/// One round of `bench --rounds`: what each side measured in it, best of `--runs` each.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Round {
    /// This binary's best import wall time, seconds.
    pub import_s: f64,
    /// The peer's best decode wall time, seconds (`--peers`).
    pub peer_s: Option<f64>,
    /// The `--against` binary's best import wall time, seconds.
    pub against_s: Option<f64>,
    /// This binary's rate over the peer's in this round (`peer_s / import_s`: both decode the
    /// same bytes).
    #[serde(default)]
    pub peer_ratio: Option<f64>,
    /// This binary's import time over the `--against` binary's in this round (below 1: faster).
    #[serde(default)]
    pub against_ratio: Option<f64>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    if args.stages {
        return run_stages(&args);
    }
    if let Some(out) = &args.generate_kineto {
        return match generate_kineto(out, args.size_mb * 1_000_000) {
            Ok((bytes, events)) => {
                outln!("{}: {bytes} bytes, {events} events", out.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                errln!("trialscope bench: {}: {e}", out.display());
                ExitCode::from(1)
            }
        };
    }
    if let Some(out) = &args.generate_perfetto {
        return match generate::perfetto(out, args.size_mb * 1_000_000) {
            Ok(n) => {
                outln!("{}: {n} bytes", out.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                errln!("trialscope bench: {}: {e}", out.display());
                ExitCode::from(1)
            }
        };
    }
    if args.files.is_empty() {
        errln!("trialscope bench: no files given");
        return ExitCode::from(2);
    }
    let runs = args.runs.max(1);
    if let Some(exe) = &args.against {
        if let Err(e) = check_against(exe) {
            errln!("trialscope bench: --against {}: {e}", exe.display());
            return ExitCode::from(2);
        }
    }
    let mut results = Vec::new();
    let mut failed = false;
    for f in &args.files {
        let r = if args.child {
            measure(f, runs)
        } else {
            measure_rounds(&args, f, runs)
        };
        let r = match r {
            Ok(mut r) if args.peers && !args.child && r.format == "chrome_json" => {
                r.peer_hta = measure_hta(&args, f, r.decompressed_bytes);
                Ok(r)
            }
            r => r,
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
            "{:<32} {:>9} {:>8} {:>9} {:>8} {:>8} {:>9} | {:<13} {:>8} {:>8} | {:>6}",
            "file",
            "trace MB",
            "best s",
            "MB/s",
            "peak MB",
            "B/slice",
            "slices",
            "peer",
            "MB/s",
            "peak MB",
            "ratio"
        );
        for r in &results {
            let mb = r.decompressed_bytes as f64 / 1e6;
            let (peer, peer_rate, peer_peak, ratio) = match &r.peer {
                Some(p) if p.seconds > 0.0 => {
                    let rate = p.decompressed_bytes as f64 / 1e6 / p.seconds;
                    (
                        p.backend.clone(),
                        format!("{rate:.1}"),
                        format!("{:.1}", p.peak_rss_bytes as f64 / 1e6),
                        format!("{:.2}×", r.mb_per_s / rate),
                    )
                }
                _ => ("-".into(), "-".into(), "-".into(), "-".into()),
            };
            outln!(
                "{:<32} {:>9.2} {:>8.3} {:>9.1} {:>8} {:>8.1} {:>9} | {:<13} {:>8} {:>8} | {:>6}",
                r.file,
                mb,
                r.best_import_s,
                r.mb_per_s,
                r.peak_rss_bytes
                    .map(|b| format!("{:.1}", b as f64 / 1e6))
                    .unwrap_or_else(|| "-".into()),
                r.model_bytes_per_slice,
                r.slices,
                peer,
                peer_rate,
                peer_peak,
                ratio
            );
        }
        for r in &results {
            print_cpu_and_hta(r);
            print_rounds(r, args.against.as_deref());
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The CPU time of the best run and the peers' (wall and CPU) of one file, below the table.
fn print_cpu_and_hta(r: &BenchResult) {
    let mb = r.decompressed_bytes as f64 / 1e6;
    if let Some(c) = r.best_cpu_s.filter(|&c| c > 0.0) {
        outln!(
            "{}: best run {:.3} s wall, {c:.2} s CPU (user + sys) = {:.1} MB/s of CPU",
            r.file,
            r.best_import_s,
            mb / c
        );
    }
    for p in [&r.peer, &r.peer_hta].into_iter().flatten() {
        if p.seconds <= 0.0 {
            continue;
        }
        let rate = p.decompressed_bytes as f64 / 1e6 / p.seconds;
        let cpu = p
            .cpu_seconds
            .filter(|&c| c > 0.0)
            .map(|c| format!(", {c:.2} s CPU = {:.1} MB/s of CPU", mb / c))
            .unwrap_or_default();
        outln!(
            "{}: {} {:.2} s = {rate:.1} MB/s{cpu}, peak {:.1} MB; trialscope {:.2}× its rate",
            r.file,
            p.backend,
            p.seconds,
            p.peak_rss_bytes as f64 / 1e6,
            r.mb_per_s / rate
        );
    }
}

/// What one side of a round measures.
#[derive(Clone, Copy)]
enum Side {
    This,
    Peer,
    Against,
}

/// Measures `file` in `args.rounds` rounds (at least one): this binary's import, the peer's
/// (`--peers`) and the `--against` binary's in each, their order rotating by one each round
/// (the first round: this binary, the peer, the other binary, as a single round always ran).
/// Gives the best round's figures with every round's in [`BenchResult::rounds`] (when there
/// is more than one round or an `--against`). Errors: this binary's import fails (the peer's
/// and the other binary's failures are printed and leave their figures out).
fn measure_rounds(args: &Args, file: &Path, runs: u32) -> Result<BenchResult, String> {
    let rounds = args.rounds.max(1);
    let mut sides = vec![Side::This];
    if args.peers {
        sides.push(Side::Peer);
    }
    if args.against.is_some() {
        sides.push(Side::Against);
    }
    let mut best: Option<BenchResult> = None;
    let mut best_peer: Option<PeerResult> = None;
    let mut peak = None::<u64>;
    let mut peer_peak = 0u64;
    let mut per_round = Vec::new();
    let mut peer_failed = false;
    for k in 0..rounds as usize {
        let mut round = Round::default();
        // Round 0 starts with this binary (the peer needs the format it reads); a later round
        // without its result has already returned the error.
        let mut order: Vec<Side> = sides.clone();
        order.rotate_left(k % sides.len());
        for side in order {
            match side {
                Side::This => {
                    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
                    let r = measure_in_child(&exe, file, runs).or_else(|_| measure(file, runs))?;
                    round.import_s = r.best_import_s;
                    peak = peak.max(r.peak_rss_bytes);
                    if best
                        .as_ref()
                        .is_none_or(|b| r.best_import_s < b.best_import_s)
                    {
                        best = Some(r);
                    }
                }
                Side::Peer if !peer_failed => {
                    let format = best.as_ref().map(|b| b.format.clone()).unwrap_or_default();
                    let size = best.as_ref().map_or(0, |b| b.decompressed_bytes);
                    match measure_peer(args, file, &format, size, runs) {
                        Ok(p) => {
                            round.peer_s = Some(p.seconds);
                            peer_peak = peer_peak.max(p.peak_rss_bytes);
                            if best_peer.as_ref().is_none_or(|b| p.seconds < b.seconds) {
                                best_peer = Some(p);
                            }
                        }
                        Err(e) => {
                            errln!("{}: peer: {e}", file.display());
                            peer_failed = true;
                        }
                    }
                }
                Side::Peer => {}
                Side::Against => {
                    let Some(exe) = &args.against else { continue };
                    match measure_in_child(exe, file, runs) {
                        Ok(o) => round.against_s = Some(o.best_import_s),
                        Err(e) => errln!("{}: --against {}: {e}", file.display(), exe.display()),
                    }
                }
            }
        }
        round.peer_ratio = round
            .peer_s
            .filter(|_| round.import_s > 0.0)
            .map(|p| p / round.import_s);
        round.against_ratio = round
            .against_s
            .filter(|&a| a > 0.0)
            .map(|a| round.import_s / a);
        per_round.push(round);
    }
    let mut r = best.ok_or_else(|| format!("{}: no result", file.display()))?;
    r.peak_rss_bytes = peak;
    r.peer = best_peer.map(|mut p| {
        p.peak_rss_bytes = peer_peak;
        p
    });
    if rounds > 1 || args.against.is_some() {
        r.rounds = per_round;
    }
    Ok(r)
}

/// The figures of each round (`--rounds`, `--against`) of one file, below the table: the
/// ratio to the peer and to the other binary round by round, their median and the worst.
fn print_rounds(r: &BenchResult, against: Option<&Path>) {
    if r.rounds.is_empty() {
        return;
    }
    // `low_is_worse`: the figure's worst is its lowest (a rate ratio) or its highest (a time
    // ratio).
    let line = |what: &str, xs: Vec<f64>, low_is_worse: bool| {
        if xs.is_empty() {
            return;
        }
        let shown: Vec<String> = xs.iter().map(|x| format!("{x:.2}")).collect();
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        let (worst, which) = if low_is_worse {
            (sorted[0], "lowest")
        } else {
            (sorted[sorted.len() - 1], "highest")
        };
        outln!(
            "{}: {what}, round by round: {} (median {:.2}, {which} {worst:.2})",
            r.file,
            shown.join(" / "),
            stats::median(&sorted).unwrap_or(f64::NAN)
        );
    };
    let peer = r.peer.as_ref().map_or("the peer", |p| p.backend.as_str());
    line(
        &format!("trialscope's rate over {peer}'s in the same round (above 1: trialscope faster)"),
        r.rounds.iter().filter_map(|x| x.peer_ratio).collect(),
        true,
    );
    if let Some(exe) = against {
        let secs = |f: fn(&Round) -> Option<f64>| -> Vec<String> {
            r.rounds
                .iter()
                .map(|x| f(x).map_or("-".into(), |s| format!("{s:.3}")))
                .collect()
        };
        outln!(
            "{}: best import s, round by round: this binary {}; {} {}",
            r.file,
            secs(|x| Some(x.import_s)).join(" / "),
            exe.display(),
            secs(|x| x.against_s).join(" / ")
        );
        line(
            &format!("{}'s rate over {peer}'s in the same round", exe.display()),
            r.rounds
                .iter()
                .filter_map(|x| x.peer_s.zip(x.against_s.filter(|&a| a > 0.0)))
                .map(|(p, a)| p / a)
                .collect(),
            true,
        );
        line(
            "this binary's import time over the other's in the same round (below 1: this binary faster)",
            r.rounds.iter().filter_map(|x| x.against_ratio).collect(),
            false,
        );
    }
    if r.peer.is_some() {
        outln!(
            "{}: (the table's ratio is the best run against the peer's best, which may come from different rounds; quote the median of the same-round ratios)",
            r.file
        );
    }
}

/// Checks that `exe` (`--against`) is an executable file. Errors: it is missing, not a
/// file, or (Unix) has no execute permission.
fn check_against(exe: &Path) -> Result<(), String> {
    let m = std::fs::metadata(exe).map_err(|e| e.to_string())?;
    if !m.is_file() {
        return Err("not a file".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if m.permissions().mode() & 0o111 == 0 {
            return Err("not executable".into());
        }
    }
    Ok(())
}

/// Runs `exe bench --child --runs RUNS FILE` (this binary or `--against`'s) and reads its
/// result. Errors: the child fails or prints no result.
fn measure_in_child(exe: &Path, file: &Path, runs: u32) -> Result<BenchResult, String> {
    // A bare name is a file here, not a command on `PATH` (`Command` would search `PATH`).
    let exe = if exe.components().count() == 1 && exe.is_relative() {
        Path::new(".").join(exe)
    } else {
        exe.to_path_buf()
    };
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
    // Streamed from disk, as `inspect` reads it: the file is never held whole.
    let src = formats::FileSource::new(file)
        .map_err(|e| format!("{shown}: cannot read the file: {e}"))?;
    let file_bytes = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    let mut times = Vec::new();
    let mut cpu = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let c0 = cpu_seconds();
        let t0 = Instant::now();
        let loaded = formats::load_from(&shown, &src, &LoadOptions::default(), &mut |_| {})
            .map_err(|e| e.to_string())?;
        times.push(t0.elapsed().as_secs_f64());
        cpu.push(c0.zip(cpu_seconds()).map(|(a, b)| b - a));
        let formats::Loaded::Trace(a) = loaded else {
            return Err(format!("{shown}: not a trace"));
        };
        // Drop the previous model before the next run so peaks don't stack.
        let slices = a.model.slices.len() as u64;
        last = Some((
            a.model.stats.decompressed_bytes,
            a.model.stats.events,
            slices,
            a.model.counters.iter().map(|c| c.ts_ns.len() as u64).sum(),
            a.format.as_str().to_string(),
            a.model.heap_bytes() as f64 / slices.max(1) as f64,
        ));
        drop(a);
    }
    let (decompressed, events, slices, samples, format, per_slice) = last.unwrap_or_default();
    let best_cpu_s = times
        .iter()
        .zip(&cpu)
        .min_by(|a, b| a.0.total_cmp(b.0))
        .and_then(|(_, c)| *c);
    times.sort_by(f64::total_cmp);
    let best = times[0];
    let median = times[times.len() / 2];
    Ok(BenchResult {
        file: super::load::file_name(file),
        file_bytes,
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
        format,
        model_bytes_per_slice: per_slice,
        peer: None,
        best_cpu_s,
        peer_hta: None,
        rounds: Vec::new(),
    })
}

/// Writes the synthetic Kineto trace (`formats::synthetic_kineto`) of at least `target` bytes
/// to `path`; returns the bytes and events written.
fn generate_kineto(path: &Path, target: u64) -> std::io::Result<(u64, u64)> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let r = formats::synthetic_kineto::write_kineto_like(&mut out, target)?;
    out.flush()?;
    Ok(r)
}

/// The `--peers` interpreter: `--python`, else `target/peervenv/bin/python` when it exists,
/// else `python3`.
fn peer_python(args: &Args) -> PathBuf {
    args.python.clone().unwrap_or_else(|| {
        let venv = PathBuf::from("target/peervenv/bin/python");
        if venv.exists() {
            venv
        } else {
            PathBuf::from("python3")
        }
    })
}

/// Traces of at least this many decompressed bytes are decoded by the peer in pieces of
/// [`PEER_CHUNK_MB`] (`peers.py`'s `CHUNK_MB`: the same bytes, whole packets or whole
/// `traceEvents` elements per piece), so that its memory stays bounded: upb holds ~16× a
/// generated trace whole (16.4 GB for 1 GB). The pieces make the peer faster, not slower (upb
/// on a generated 300 MB trace: 3.3–3.4 s in pieces, 4.5–4.6 s whole; README "Running the
/// benchmarks").
const PEER_CHUNKED_FROM: u64 = 400_000_000;

/// The size of a piece the peer decodes at once (MB) on traces of [`PEER_CHUNKED_FROM`] bytes.
const PEER_CHUNK_MB: u32 = 64;

/// Runs the peer decoder of `format` on `file` (`tools/bench/peers.py`, embedded), whose
/// decompressed size is `decompressed` bytes (in pieces from [`PEER_CHUNKED_FROM`]).
fn measure_peer(
    args: &Args,
    file: &Path,
    format: &str,
    decompressed: u64,
    runs: u32,
) -> Result<PeerResult, String> {
    let kind = match format {
        "perfetto_proto" => "perfetto",
        "chrome_json" => "json",
        other => return Err(format!("no peer for {other}")),
    };
    let python = peer_python(args);
    let out = Command::new(&python)
        .arg("-c")
        .arg(include_str!("../../../../tools/bench/peers.py"))
        .arg(kind)
        .arg(file)
        .arg(runs.to_string())
        .args((decompressed >= PEER_CHUNKED_FROM).then(|| PEER_CHUNK_MB.to_string()))
        .output()
        .map_err(|e| format!("{}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())
}

/// HolisticTraceAnalysis' parser is measured on JSON files up to this size (its pandas frame
/// takes minutes and several GB beyond: 133 s and 726 MB for 100 MB in issue #9).
const HTA_MAX_BYTES: u64 = 256_000_000;

/// HolisticTraceAnalysis' parser on `file` (`tools/bench/peers.py hta`, one run), where it is
/// installed in the `--peers` interpreter and the file is at most [`HTA_MAX_BYTES`].
fn measure_hta(args: &Args, file: &Path, decompressed: u64) -> Option<PeerResult> {
    if decompressed > HTA_MAX_BYTES {
        errln!(
            "{}: HTA peer skipped ({decompressed} bytes > {HTA_MAX_BYTES})",
            file.display()
        );
        return None;
    }
    let python = peer_python(args);
    let out = Command::new(&python)
        .arg("-c")
        .arg(include_str!("../../../../tools/bench/peers.py"))
        .args(["hta".as_ref(), file.as_os_str(), "1".as_ref()])
        .output()
        .ok()?;
    if !out.status.success() {
        // Status 3: not installed, said on stderr; anything else is a failure of the peer.
        errln!(
            "{}: HTA peer: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    serde_json::from_slice(&out.stdout).ok()
}

/// User + system CPU seconds of this process so far (Linux `/proc/self/stat`), else `None`.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0) // USER_HZ, 100 on Linux
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

/// Writes the synthetic Chromium-like Perfetto trace (`formats::perfetto::synthetic`) of at
/// least `target` bytes to `path`; returns the bytes written.
mod generate {
    use std::io::{self, Write};
    use std::path::Path;

    pub fn perfetto(path: &Path, target: u64) -> io::Result<u64> {
        let mut out = io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
        let n = trialscope::formats::perfetto::synthetic::write_chromium_like(&mut out, target)?;
        out.flush()?;
        Ok(n)
    }
}
