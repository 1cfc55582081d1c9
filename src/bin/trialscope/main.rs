//! `trialscope` — the native CLI over the library: batch analysis, CI pipelines, benchmarks.
//!
//! Exit codes: 0 success, 1 when any input file failed to import (results for the other files
//! are still printed), 2 usage errors (clap's default). Output stops quietly, exit code 0, when
//! stdout is closed (`| head`): every write goes through `cli::load::write_stdout`.

/// `println!` through [`cli::load::write_stdout`]: exits quietly when stdout is closed.
#[cfg(not(target_arch = "wasm32"))]
macro_rules! outln {
    () => {
        $crate::cli::load::write_stdout("\n")
    };
    ($($arg:tt)*) => {
        $crate::cli::load::write_stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` through [`cli::load::write_stderr`]: never panics.
#[cfg(not(target_arch = "wasm32"))]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::load::write_stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    pub mod bench;
    pub mod compare;
    pub mod folded;
    pub mod inspect;
    pub mod load;
    pub mod memory;
    pub mod report;
    pub mod scaling;
    pub mod slices;
    pub mod summarize;
    pub mod triage;
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use clap::Parser;
    use cli::*;

    /// Cross-trial trace analysis: scaling, compile-drift triage, rank memory timelines.
    #[derive(Parser)]
    #[command(name = "trialscope", version)]
    enum Cmd {
        /// Format, events, tracks, slices, counters and diagnostics of each file.
        Inspect(inspect::Args),
        /// Every slice of one file in (track, ts) order.
        Slices(slices::Args),
        /// Correlate per-frame cost with each trial's numeric input.
        Scaling(scaling::Args),
        /// Baseline vs candidate per semantic frame: Mann–Whitney, Hodges–Lehmann, BH, verdicts.
        Compare(compare::Args),
        /// Folded stacks (`a;b;c <self ns>`) of each trace, for inferno / flamegraph.pl.
        Folded(folded::Args),
        /// Classify compile-time drift against pinned baselines.
        Triage(triage::Args),
        /// Write pins from the warm medians of compile records.
        Pin(triage::PinArgs),
        /// Per-rank memory series and collective attribution of hidden-memory spikes.
        Memory(memory::Args),
        /// Import throughput (MB/s) and peak memory of trace files.
        Bench(bench::Args),
        /// Per-trial aggregates of trace files as Parquet tables (DuckDB, Spark, `scaling --from`).
        Summarize(summarize::Args),
        /// One self-contained HTML report (tables, inline SVG plots, import reports).
        Report(report::Args),
    }

    fixed_mmap_threshold();
    let cmd = Cmd::parse();
    // Before any thread is started: one malloc arena, except for summarize's workers.
    if !matches!(cmd, Cmd::Summarize(_)) {
        one_arena();
    }
    match cmd {
        Cmd::Inspect(a) => inspect::run(a),
        Cmd::Slices(a) => slices::run(a),
        Cmd::Scaling(a) => scaling::run(a),
        Cmd::Compare(a) => compare::run(a),
        Cmd::Folded(a) => folded::run(a),
        Cmd::Triage(a) => triage::run(a),
        Cmd::Pin(a) => triage::run_pin(a),
        Cmd::Memory(a) => memory::run(a),
        Cmd::Bench(a) => bench::run(a),
        Cmd::Summarize(a) => summarize::run(a),
        Cmd::Report(a) => report::run(a),
    }
}

/// Keeps glibc malloc's mmap threshold at its default, 128 KiB, instead of letting it rise
/// (up to 32 MiB) each time a large block is freed. Raised, it puts the import's column chunks
/// and growing columns on the brk heap, where freed ones stay resident behind live ones: the
/// 200 MB generated Perfetto trace peaked at 411 MB RSS with a live heap of 288 MB
/// (`tools/bench/heap_peak.rs`), 262 MB with the threshold fixed (docs/benchmarks.md "History
/// of these rows", the `memcut` branch). Setting the threshold turns the dynamic rule off
/// (glibc `mallopt(3)`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fixed_mmap_threshold() {
    // SAFETY: mallopt only sets an allocator parameter; glibc takes its own lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// Keeps every thread on glibc malloc's main arena. An import's threads (inflating, building
/// slices: `model::SliceSink`) would each get an arena of their own, whose freed blocks only
/// that thread reuses: the slice builder's thread raised `heavy_default`'s peak RSS from
/// 82.8 to 87.2–88.6 MB, with one arena 83.9–84.5 MB, as fast (docs/benchmarks.md "Targets,
/// session by session", session 24). Not for `summarize`, whose workers each import whole
/// files at once: there one arena cost 12 % of the time (0.50 → 0.57 s over 3 corpus
/// folders). The workspace's two loading threads (a batch of files, `workspace::native`) pay
/// less: `scaling` of the 18 Chromium trials took 0.51–0.55 s with one arena, 0.48 s without
/// (0.72–0.73 s loading one file at a time).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn one_arena() {
    // SAFETY: as above.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Other allocators keep their own rules.
#[cfg(all(
    not(target_arch = "wasm32"),
    not(all(target_os = "linux", target_env = "gnu"))
))]
fn fixed_mmap_threshold() {}

/// Other allocators keep their own rules.
#[cfg(all(
    not(target_arch = "wasm32"),
    not(all(target_os = "linux", target_env = "gnu"))
))]
fn one_arena() {}

#[cfg(target_arch = "wasm32")]
fn main() {}
