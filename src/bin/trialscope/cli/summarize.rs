//! `trialscope summarize --out DIR FILE_OR_DIR...`: imports each file on its own (in parallel,
//! one trace per thread at a time, so memory is bounded by the threads' traces) and writes its
//! per-trial aggregate as Parquet tables under DIR ([`trialscope::aggregate`],
//! `docs/parquet-schema.md`), and for a file with compile records (a trace's compile slices, a
//! compile-record file) its `compile_records` table. When the last file of a folder is done, the
//! memory analysis runs once over the folder (the job's ranks) and writes each file's
//! `memory_intervals`. Progress on stderr, one line per file.
//!
//! Exit codes: 0 when every file was summarized as a trace (or skipped); 1 when any file failed
//! to import (it is a `trials` row with its error) or a table could not be written; 2 for a
//! usage error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use trialscope::aggregate::{dir, optional, Outcome, Summary};
use trialscope::formats::LoadOptions;
use trialscope::workspace::{Content, Prepared};

/// Arguments of `trialscope summarize`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory of the Parquet tables (created when missing; files of the same artifacts are
    /// replaced, others kept).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Worker threads (default: the machine's available parallelism).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Trace files or folders of them (folders are read recursively, sorted, as every
    /// subcommand reads them).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

#[derive(Default)]
struct Tally {
    ok: usize,
    failed: usize,
    skipped: usize,
    other: usize,
    write_errors: usize,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let (files, repeats) = dir::expand(&args.files);
    for note in &repeats {
        errln!("note: {note}");
    }
    let n = files.len();
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |p| p.get()))
        .clamp(1, n.max(1));
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        errln!(
            "error: {}: cannot create the directory: {e}",
            args.out.display()
        );
        return ExitCode::from(1);
    }
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let tally = Mutex::new(Tally::default());
    // Per folder (a memory job): files still to summarize, and the memory sources so far.
    let mut open: BTreeMap<PathBuf, (usize, Vec<Source>)> = BTreeMap::new();
    for (_, name, _) in &files {
        open.entry(folder_of(name)).or_default().0 += 1;
    }
    let open = Mutex::new(open);
    let opts = LoadOptions::default();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((path, name, in_folder)) = files.get(i) else {
                    break;
                };
                let outcome = dir::summarize_file(path, name, *in_folder, &opts);
                let summary = Summary::of(name, &outcome);
                let compile = optional::compile_records_table(&outcome);
                let memory = optional::memory_source(&outcome);
                let written = dir::write_optional(
                    &args.out,
                    &summary.key,
                    &[(
                        "compile_records",
                        compile
                            .as_ref()
                            .map(|t| (t, optional::COMPILE_RECORDS_VERSION)),
                    )],
                )
                .and_then(|()| {
                    // A memory source's intervals are written when its job (folder) is
                    // analysed; any other file's stale ones are removed now.
                    if memory.is_some() {
                        return Ok(());
                    }
                    dir::write_optional(&args.out, &summary.key, &[("memory_intervals", None)])
                })
                .and_then(|()| dir::write(&args.out, &summary));
                let folder = folder_of(name);
                let ready = {
                    let mut m = open.lock().unwrap_or_else(|p| p.into_inner());
                    let job = m.get_mut(&folder).map(|(left, sources)| {
                        if let Some(p) = memory {
                            sources.push((name.clone(), summary.key.clone(), p));
                        }
                        *left -= 1;
                        *left == 0
                    });
                    if job == Some(true) {
                        m.remove(&folder).map(|j| j.1)
                    } else {
                        None
                    }
                };
                let job_errors =
                    ready.map_or(0, |sources| memory_intervals(&args.out, &folder, sources));
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                let mut t = tally.lock().unwrap_or_else(|p| p.into_inner());
                t.write_errors += job_errors;
                let what = match &outcome {
                    Outcome::Loaded(p) if matches!(p.content, Content::Trace(_)) => {
                        t.ok += 1;
                        "trace".to_string()
                    }
                    Outcome::Loaded(_) => {
                        t.other += 1;
                        "not a trial".to_string()
                    }
                    Outcome::Failed { message, .. } => {
                        t.failed += 1;
                        format!("failed: {message}")
                    }
                    Outcome::Skipped { message, .. } => {
                        t.skipped += 1;
                        format!("skipped: {message}")
                    }
                };
                match written {
                    Ok(()) => errln!("[{k}/{n}] {name}: {what}"),
                    Err(e) => {
                        t.write_errors += 1;
                        errln!("[{k}/{n}] {name}: {what}; error: {e}");
                    }
                }
            });
        }
    });
    let t = tally.into_inner().unwrap_or_else(|p| p.into_inner());
    let secs = start.elapsed().as_secs_f64();
    errln!(
        "summarized {n} file(s) into {} in {secs:.2} s ({:.1} files/s, {jobs} thread(s)): {} trace(s), {} failed, {} skipped, {} not a trial{}",
        args.out.display(),
        n as f64 / secs.max(1e-9),
        t.ok,
        t.failed,
        t.skipped,
        t.other,
        if t.write_errors > 0 {
            format!(", {} not written", t.write_errors)
        } else {
            String::new()
        }
    );
    if t.failed > 0 || t.write_errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A memory source as held until its job is analysed: (name, key, slim copy).
type Source = (String, String, Prepared);

/// The folder of a name (its directory part, `""` for none): the memory job it belongs to.
fn folder_of(name: &str) -> PathBuf {
    Path::new(name)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The `memory_intervals` of one job, once every file of its folder is summarized: the memory
/// sources in path order (an artifact given twice counts once), analysed
/// ([`optional::memory_job`]), each file's intervals written (or its stale file removed).
/// Returns 1 when the job could not be analysed or a table not written (reported on stderr),
/// else 0. Only the folders being summarized hold their sources, so memory is bounded by the
/// largest folder's memory series, not by the run.
fn memory_intervals(out: &Path, folder: &Path, mut files: Vec<Source>) -> usize {
    files.sort_by(|a, b| Path::new(&a.0).cmp(Path::new(&b.0)));
    let mut seen = std::collections::BTreeSet::new();
    files.retain(|s| seen.insert(s.1.clone()));
    if files.is_empty() {
        return 0;
    }
    let keys: Vec<String> = files.iter().map(|f| f.1.clone()).collect();
    let job = folder.display().to_string();
    let shown = if job.is_empty() { "." } else { job.as_str() };
    let tables =
        match optional::memory_job(&job, files.into_iter().map(|(n, _, p)| (n, p)).collect()) {
            Ok(t) => t,
            Err(e) => {
                errln!("memory intervals of {shown}: error: {e}");
                return 1;
            }
        };
    let rows: usize = tables.iter().flatten().map(|t| t.rows()).sum();
    let mut failed = false;
    for (key, t) in keys.iter().zip(&tables) {
        let v = optional::MEMORY_INTERVALS_VERSION;
        let entry = [("memory_intervals", t.as_ref().map(|t| (t, v)))];
        if let Err(e) = dir::write_optional(out, key, &entry) {
            errln!("memory intervals of {shown}: error: {e}");
            failed = true;
        }
    }
    if rows > 0 {
        errln!(
            "memory intervals of {shown}: {rows} attributed interval(s) over {} file(s)",
            keys.len()
        );
    }
    usize::from(failed)
}
