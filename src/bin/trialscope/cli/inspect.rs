//! `trialscope inspect [--json] FILE...`: what each file is and what was imported from it.
//!
//! Per file: `path`, `format`, `compression`, `artifact_id`, `events`, `tracks`, `slices`,
//! `counters`, `rank`, `world_size`, `hostname`, and `diagnostics[]` (`kind`, `severity`,
//! `count`, `first_offset`, `first_index`, `message`). `--json` prints one JSON array with one
//! object per imported file; the text form prints the same fields readably. Files that fail to
//! import are reported on stderr (naming the file) and make the exit code 1; the others are still
//! printed. Works for every format (it only reads the [`Model`](trialscope::model::Model)).

use std::path::PathBuf;

use serde::Serialize;
use trialscope::formats::{chrome_json, Artifact};
use trialscope::model::Diagnostic;

use super::load;

/// Arguments of `trialscope inspect`.
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON (an array with one object per file) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Trace files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// The inspect summary of one artifact.
#[derive(Serialize)]
pub struct Summary<'a> {
    pub path: &'a str,
    pub format: &'static str,
    pub compression: trialscope::formats::Compression,
    pub artifact_id: &'a str,
    pub size_bytes: u64,
    pub decompressed_bytes: u64,
    pub events: u64,
    pub tracks: usize,
    pub slices: usize,
    pub counters: usize,
    pub frames: usize,
    pub rank: Option<u32>,
    pub world_size: Option<u32>,
    pub hostname: Option<&'a str>,
    pub diagnostics: &'a [Diagnostic],
}

/// Builds the summary of one artifact.
pub fn summary(a: &Artifact) -> Summary<'_> {
    let m = &a.model;
    Summary {
        path: &a.name,
        format: a.format.as_str(),
        compression: a.compression,
        artifact_id: &a.artifact_id,
        size_bytes: a.size_bytes,
        decompressed_bytes: m.stats.decompressed_bytes,
        events: m.stats.events,
        tracks: m.tracks.len(),
        slices: m.slices.len(),
        counters: m.counters.len(),
        frames: m.frames.len(),
        rank: m.info.rank,
        world_size: m.info.world_size,
        hostname: m.info.hostname.as_deref(),
        diagnostics: m.diagnostics.entries(),
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> std::process::ExitCode {
    let mut loaded = load::load_all(&args.files);
    // JAX's perfetto_trace.json.gz names no host; take it from `<host>.xplane.pb` /
    // `<host>.trace.json.gz` beside it (trace-formats.md §10.5).
    for a in &mut loaded.artifacts {
        if a.model.info.hostname.is_none() && a.name.ends_with("perfetto_trace.json.gz") {
            let dir = std::path::Path::new(&a.name)
                .parent()
                .map(|p| p.to_path_buf());
            if let Some(Ok(rd)) = dir.map(std::fs::read_dir) {
                let names: Vec<String> = rd
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                a.model.info.hostname =
                    chrome_json::hostname_from_siblings(names.iter().map(String::as_str));
            }
        }
    }
    let sums: Vec<Summary<'_>> = loaded.artifacts.iter().map(summary).collect();
    if args.json {
        match serde_json::to_string_pretty(&sums) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: cannot encode JSON: {e}");
                return std::process::ExitCode::from(1);
            }
        }
    } else {
        for s in &sums {
            print_text(s);
        }
    }
    load::exit_code(&loaded.failed)
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn print_text(s: &Summary<'_>) {
    println!("{}", s.path);
    println!(
        "  format {}  compression {:?}  {} bytes ({} decompressed)",
        s.format, s.compression, s.size_bytes, s.decompressed_bytes
    );
    println!("  artifact_id {}", s.artifact_id);
    println!(
        "  events {}  tracks {}  slices {}  counters {}  frames {}",
        s.events, s.tracks, s.slices, s.counters, s.frames
    );
    println!(
        "  rank {}  world_size {}  hostname {}",
        opt(s.rank),
        opt(s.world_size),
        s.hostname.unwrap_or("-")
    );
    if s.diagnostics.is_empty() {
        println!("  diagnostics: none");
    } else {
        println!("  diagnostics:");
        for d in s.diagnostics {
            let at = match (d.first_offset, d.first_index) {
                (Some(o), Some(i)) => format!("first at byte {o}, event {i}"),
                (Some(o), None) => format!("first at byte {o}"),
                (None, Some(i)) => format!("first at event {i}"),
                (None, None) => String::new(),
            };
            println!(
                "    {:?} {} x{} {}: {}",
                d.severity, d.kind, d.count, at, d.message
            );
        }
    }
}
