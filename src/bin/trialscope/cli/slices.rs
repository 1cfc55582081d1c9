//! `trialscope slices [--json] FILE`: every slice of one file in (track index, ts) order; equal
//! ts keep the model's order (longer first, then file order).
//!
//! Columns: `name`, `category`, `ts_ns`, `dur_ns` (-1 for a slice that never ended), `depth`,
//! `track` (track index), `pid`, `tid`, `process`, `thread` (the track's label). Text output is
//! tab-separated with a header line; `--json` prints JSON Lines: one object per slice per line
//! (so huge traces stream and `head`/`jq` work). Trace text is printed as data, never
//! interpreted. Exit code 1 when the file cannot be imported; a closed stdout (`| head`) stops
//! the output quietly with exit code 0.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;
use trialscope::formats;
use trialscope::model::Model;

/// Arguments of `trialscope slices`.
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON Lines (one object per slice) instead of tab-separated text.
    #[arg(long)]
    pub json: bool,
    /// The trace file.
    pub file: PathBuf,
}

#[derive(Serialize)]
struct Row<'a> {
    name: &'a str,
    category: &'a str,
    ts_ns: i64,
    dur_ns: i64,
    depth: u32,
    track: u32,
    pid: Option<i64>,
    tid: Option<i64>,
    process: &'a str,
    thread: String,
}

/// Slices sorted by (track index, ts), ties in model order (longer first, then file order).
/// The model keeps each overflow lane next to its parent track, so this sort is needed for a
/// strict (track, ts) order.
fn rows(m: &Model) -> impl Iterator<Item = Row<'_>> {
    let mut order: Vec<usize> = (0..m.slices.len()).collect();
    order.sort_by_key(|&i| (m.slices.track[i], m.slices.ts_ns[i], i));
    order.into_iter().map(move |i| {
        let tid = m.slices.track[i];
        let t = m.track(tid);
        let process = t
            .pid
            .and_then(|p| m.processes.get(&p))
            .map_or("", |p| m.str(p.name));
        Row {
            name: m.str(m.slices.name[i]),
            category: m.str(m.slices.category[i]),
            ts_ns: m.slices.ts_ns[i],
            dur_ns: m.slices.dur_ns[i],
            depth: m.slices.depth[i],
            track: tid.0,
            pid: t.pid,
            tid: t.tid,
            process,
            thread: m.track_label(tid),
        }
    })
}

/// Text cell: tabs and newlines inside trace strings are shown escaped so columns stay intact.
fn cell(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

/// Runs the subcommand.
pub fn run(args: Args) -> std::process::ExitCode {
    // `slices` needs the whole model, which the workspace does not keep: it is the one
    // subcommand (with `bench`) that imports a trace directly.
    let shown = args.file.display().to_string();
    let artifact = match formats::FileSource::new(&args.file) {
        Ok(src) => formats::import_from(&shown, &src, &Default::default(), &mut |_| {})
            .map_err(|e| e.to_string()),
        Err(e) => Err(format!("{shown}: cannot read the file: {e}")),
    };
    let failed = match &artifact {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            errln!("error: {e}");
            std::process::ExitCode::from(1)
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if let Ok(a) = &artifact {
        let m = &a.model;
        if !args.json {
            if let Err(e) = writeln!(
                out,
                "name\tcategory\tts_ns\tdur_ns\tdepth\ttrack\tpid\ttid\tprocess\tthread"
            ) {
                super::load::stdout_failed(&e);
            }
        }
        for r in rows(m) {
            let res = if args.json {
                match serde_json::to_string(&r) {
                    Ok(s) => writeln!(out, "{s}"),
                    Err(_) => Ok(()),
                }
            } else {
                let o = |v: Option<i64>| v.map_or_else(String::new, |v| v.to_string());
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    cell(r.name),
                    cell(r.category),
                    r.ts_ns,
                    r.dur_ns,
                    r.depth,
                    r.track,
                    o(r.pid),
                    o(r.tid),
                    cell(r.process),
                    cell(&r.thread)
                )
            };
            if let Err(e) = res {
                // Broken pipe (e.g. `| head`): stop quietly.
                super::load::stdout_failed(&e);
            }
        }
    }
    if let Err(e) = out.flush() {
        super::load::stdout_failed(&e);
    }
    failed
}
