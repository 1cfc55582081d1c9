//! `trialscope inspect [--json] FILE...`: what each file is and what was imported from it.
//!
//! Per file: `path`, `format`, `compression`, `artifact_id`, `events`, `tracks`, `slices`,
//! `counters`, `rank`, `world_size`, `hostname`, and `diagnostics[]` (`kind`, `severity`,
//! `count`, `first_offset`, `first_index`, `message`). `--json` prints one JSON array with one
//! object per imported file, after the last file; the text form prints the same fields readably,
//! each file as soon as its result is final ([`Workspace::add_paths_each`]: when every file of
//! its directory has been read, since a later sibling can change its rank or host), in
//! argument order. So a slow or stuck file holds back its own directory's files and the files
//! after it; a file of another directory before it is already printed unless its directory
//! still has files after it. Files that fail to
//! import are reported on stderr (naming the file) and make the exit code 1; the others are still
//! printed. Files of one directory are siblings: a JAX `perfetto_trace.json.gz` takes its host
//! from `<host>.xplane.pb` beside it, as in the web app.

use std::path::PathBuf;

use trialscope::workspace::{Content, Entry, Workspace};

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

use trialscope::report::files::{file_report as summary, FileReport as Summary};

/// Notes on stderr that `e` is not a trace (inspect lists traces only).
fn note_not_a_trace(e: &Entry) {
    errln!(
        "note: {}: not a trace ({}); inspect lists traces",
        e.name(),
        match &e.content {
            Content::Records(_) => "a compile-record file",
            Content::Pins { .. } => "a pins file",
            Content::Aggregate(_) => "a Parquet aggregate table",
            _ => "a memory telemetry file",
        }
    );
}

/// Runs the subcommand.
pub fn run(args: Args) -> std::process::ExitCode {
    // Each file is handed over as soon as its sibling group is complete (its facts are
    // final), in argument order: the text form prints it then; `--json` prints one array at
    // the end.
    let mut ws = Workspace::new();
    let mut printed: Vec<String> = Vec::new();
    let mut shown: Vec<trialscope::workspace::FileId> = Vec::new();
    ws.add_paths_each(
        &args.files,
        &mut |message| {
            errln!("error: {message}");
            printed.push(message.to_string());
        },
        &mut |e| {
            shown.push(e.id);
            match summary(e) {
                None => note_not_a_trace(e),
                Some(s) if !args.json => print_text(&s),
                Some(_) => {}
            }
        },
    );
    for note in ws.repeats() {
        errln!("note: {note}");
    }
    // Parquet aggregate pieces become trials (or failures) only once a folder's pieces are
    // grouped, after the files were handed over one by one: show those now.
    for e in ws.entries().iter().filter(|e| !shown.contains(&e.id)) {
        match summary(e) {
            None => note_not_a_trace(e),
            Some(s) if !args.json => print_text(&s),
            Some(_) => {}
        }
    }
    for f in ws.failed() {
        if !printed.contains(&f.message) {
            errln!("error: {}", f.message);
        }
    }
    load::note_skipped(&ws);
    load::note_duplicates(&ws);
    if args.json {
        match trialscope::report::files::file_reports_json(&ws) {
            Ok(s) => load::write_stdout(&s),
            Err(e) => {
                errln!("error: cannot encode JSON: {e}");
                return std::process::ExitCode::from(1);
            }
        }
    }
    load::exit_code(&ws)
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn print_text(s: &Summary<'_>) {
    outln!("{}", s.path);
    outln!(
        "  format {}  compression {}  {} bytes ({} decompressed)",
        s.format,
        s.compression.as_str(),
        s.size_bytes,
        s.decompressed_bytes
    );
    outln!("  artifact_id {}", s.artifact_id);
    outln!(
        "  events {}  tracks {}  slices {}  counters {}  frames {}",
        s.events,
        s.tracks,
        s.slices,
        s.counters,
        s.frames
    );
    outln!(
        "  rank {}  world_size {}  hostname {}",
        opt(s.rank),
        opt(s.world_size),
        s.hostname.unwrap_or("-")
    );
    if s.diagnostics.is_empty() {
        outln!("  diagnostics: none");
    } else {
        outln!("  diagnostics:");
        for d in &s.diagnostics {
            let at = match (d.first_offset, d.first_index) {
                (Some(o), Some(i)) => format!(" first at byte {o}, event {i}"),
                (Some(o), None) => format!(" first at byte {o}"),
                (None, Some(i)) => format!(" first at event {i}"),
                (None, None) => String::new(),
            };
            outln!(
                "    {} {} x{}{}: {}",
                d.severity.as_str(),
                d.kind,
                d.count,
                at,
                d.message
            );
        }
    }
}
