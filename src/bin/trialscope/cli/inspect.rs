//! `trialscope inspect [--json] FILE...`: what each file is and what was imported from it.
//!
//! Per file: `path`, `format`, `compression`, `artifact_id`, `events`, `tracks`, `slices`,
//! `counters`, `rank`, `world_size`, `hostname`, and `diagnostics[]` (`kind`, `severity`,
//! `count`, `first_offset`, `first_index`, `message`). `--json` prints one JSON array with one
//! object per imported file; the text form prints the same fields readably. Files that fail to
//! import are reported on stderr (naming the file) and make the exit code 1; the others are still
//! printed. Files of one directory are siblings: a JAX `perfetto_trace.json.gz` takes its host
//! from `<host>.xplane.pb` beside it, as in the web app.

use std::path::PathBuf;

use serde::Serialize;
use trialscope::model::Diagnostic;
use trialscope::workspace::{Content, Entry};

use super::load;

/// Arguments of `trialscope inspect`.
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON (an array with one object per file) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Trace files or folders.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// The inspect summary of one trace.
#[derive(Serialize)]
pub struct Summary<'a> {
    pub path: &'a str,
    pub format: &'static str,
    pub compression: trialscope::formats::Compression,
    pub artifact_id: &'a str,
    pub size_bytes: u64,
    pub decompressed_bytes: u64,
    pub events: u64,
    pub tracks: u64,
    pub slices: u64,
    pub counters: u64,
    pub frames: u64,
    pub rank: Option<u32>,
    pub world_size: Option<u32>,
    pub hostname: Option<&'a str>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Builds the summary of one trace entry (`None` for other kinds of file).
pub fn summary(e: &Entry) -> Option<Summary<'_>> {
    let t = e.trace()?;
    Some(Summary {
        path: e.name(),
        format: t.format.as_str(),
        compression: e.source.compression,
        artifact_id: &e.source.artifact_id,
        size_bytes: e.source.size_bytes,
        decompressed_bytes: e.source.decompressed_bytes,
        events: t.counts.events,
        tracks: t.counts.tracks,
        slices: t.counts.slices,
        counters: t.counts.counters,
        frames: t.counts.frames,
        rank: e.facts.rank,
        world_size: e.facts.world_size,
        hostname: e.facts.hostname.as_deref(),
        diagnostics: e.diagnostics(),
    })
}

/// Runs the subcommand.
pub fn run(args: Args) -> std::process::ExitCode {
    let ws = load::workspace(&args.files);
    for e in ws.entries().iter().filter(|e| e.trace().is_none()) {
        let what = match &e.content {
            Content::Records(_) => "a compile-record file",
            Content::Pins { .. } => "a pins file",
            _ => "a memory telemetry file",
        };
        eprintln!(
            "note: {}: not a trace ({what}); inspect lists traces",
            e.name()
        );
    }
    let sums: Vec<Summary<'_>> = ws.entries().iter().filter_map(summary).collect();
    if args.json {
        match serde_json::to_string_pretty(&sums) {
            Ok(s) => load::write_stdout(&(s + "\n")),
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
    load::exit_code(&ws)
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
        for d in &s.diagnostics {
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
