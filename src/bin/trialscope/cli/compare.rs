//! `trialscope compare`: baseline vs candidate per semantic frame (issue 13). Each side is a
//! list of files, folders or globs (`'runs/base_*.pb.gz'`; a quoted glob is expanded here, an
//! unquoted one by the shell); runs [`trialscope::workspace::Workspace::compare`] and prints a
//! table or the report as JSON.
//!
//! With `--from DIR` the trials come from the Parquet aggregates of `trialscope summarize`
//! ([`trialscope::aggregate`]): the same `--baseline`/`--candidate` arguments are matched
//! against the stored `trials.path` (the name each file was summarized under) the way they
//! pick files on disk — a path names that file, a folder every file summarized under it, a
//! glob in the file name the files of its folder whose names match — so the report equals
//! the one from the traces, byte for byte in `--json`. (The CLI compare draws no flame
//! graphs, so the call trees the tables lack are not needed.)
//!
//! Exit codes, as for every subcommand: 0 success; 1 when any input failed — a file that
//! cannot be read or imported, a path that does not exist, a glob that matches no file (with
//! `--from`: an argument that picks no summarized file) — each named on stderr, the comparison
//! of the others still printed; 2 for a usage error (a wildcard in a folder name, a file on
//! both sides).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use trialscope::aggregate::{self, Record, Status};
use trialscope::analysis::compare::{self, Verdict};
use trialscope::workspace::native::{distinct_files, expand_paths, repeat_note};
use trialscope::workspace::{glob_match, CompareRequest, SideRule, Workspace};

use super::load;
use super::scaling::MetricArg;

/// Arguments of `trialscope compare`.
#[derive(clap::Args)]
pub struct Args {
    /// Baseline trials: files, folders or globs (at least 3 trials for a test).
    #[arg(long, required = true, num_args = 1.., value_name = "GLOB|DIR|FILE")]
    pub baseline: Vec<String>,
    /// Candidate trials: files, folders or globs.
    #[arg(long, required = true, num_args = 1.., value_name = "GLOB|DIR|FILE")]
    pub candidate: Vec<String>,
    /// Metric(s) to compare (repeatable; each its own Benjamini–Hochberg family).
    #[arg(long, value_enum, default_values = ["inclusive"])]
    pub metric: Vec<MetricArg>,
    /// Family floor: frames whose pooled median is below this many ms are not tested.
    #[arg(long, default_value_t = 0.5, value_name = "MS")]
    pub floor_ms: f64,
    /// Practical gate: minimum |ratio − 1| in percent.
    #[arg(long, default_value_t = 5.0, value_name = "PERCENT")]
    pub min_change_pct: f64,
    /// Practical gate: minimum |shift| in ms.
    #[arg(long, default_value_t = 0.5, value_name = "MS")]
    pub min_shift_ms: f64,
    /// Significance level for q.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Text: show only the first N rows (default 25); JSON: default all.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Show every row in the text table, not only tested ones.
    #[arg(long)]
    pub all: bool,
    /// Read the trials from the Parquet aggregates `trialscope summarize --out DIR` wrote: each
    /// side's arguments are matched against the stored paths (as typed when summarizing)
    /// instead of the file system; the same report as from the traces.
    #[arg(long, value_name = "DIR")]
    pub from: Option<PathBuf>,
}

/// `path` with a leading `./` dropped and an empty parent read as `.`: how a glob's folder and a
/// stored path's folder are compared.
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The records one side's arguments pick from the aggregates, as indices into `records` (which
/// [`trialscope::aggregate::dir::read`] sorted by path), in the order [`expand`] would give
/// the files on disk: per argument, a stored path equal to it; else the records under it as a
/// folder (path order); else, for a wildcard in the file name, the records of that folder
/// whose file names match the glob (path order).
///
/// An argument that picks no record is printed (`error: …`) and counted in `misses`, as a
/// missing file is.
///
/// Errors: a wildcard in the folder part (a usage error).
fn pick(
    records: &[Record],
    args: &[String],
    dir: &Path,
    misses: &mut usize,
) -> Result<Vec<usize>, String> {
    let wild = |s: &str| s.contains('*') || s.contains('?');
    let mut out = Vec::new();
    for a in args {
        let p = Path::new(a);
        let exact: Vec<usize> = (0..records.len())
            .filter(|&i| Path::new(&records[i].path) == p)
            .collect();
        let found: Vec<usize> = if !exact.is_empty() {
            exact
        } else {
            let under: Vec<usize> = (0..records.len())
                .filter(|&i| Path::new(&records[i].path).starts_with(p))
                .collect();
            if !under.is_empty() || !wild(a) {
                under
            } else {
                let folder = folder_of(p);
                if wild(&folder.display().to_string()) {
                    return Err(format!(
                        "{a}: wildcards are only supported in the file name"
                    ));
                }
                let pat = load::file_name(p);
                (0..records.len())
                    .filter(|&i| {
                        let rp = Path::new(&records[i].path);
                        folder_of(rp) == folder && glob_match(&pat, &load::file_name(rp))
                    })
                    .collect()
            }
        };
        if found.is_empty() {
            errln!(
                "error: {a}: matches no file summarized in {} (the paths are matched as they \
                 were typed to `trialscope summarize`)",
                dir.display()
            );
            *misses += 1;
        }
        out.extend(found);
    }
    Ok(out)
}

/// The workspace of `--from DIR`: the records each side picks ([`pick`]), baseline first, and
/// the number of baseline records (their ids are `0..nb`, the candidate's follow). Failures are
/// printed as the traces' loading prints them, skipped files noted; `misses` counts the
/// arguments that picked nothing.
fn from_aggregates(
    dir: &Path,
    args: &Args,
    misses: &mut usize,
) -> Result<(Workspace, u32, u32), (u8, String)> {
    let records = aggregate::dir::read(dir).map_err(|e| (1, e.to_string()))?;
    let base = pick(&records, &args.baseline, dir, misses).map_err(|e| (2, e))?;
    let cand = pick(&records, &args.candidate, dir, misses).map_err(|e| (2, e))?;
    if let Some(&i) = base.iter().find(|i| cand.contains(i)) {
        return Err((2, format!("{} is on both sides", records[i].path)));
    }
    let (nb, n) = (base.len() as u32, (base.len() + cand.len()) as u32);
    let chosen: Vec<Record> = base
        .iter()
        .chain(&cand)
        .map(|&i| records[i].clone())
        .collect();
    let (ws, left) = aggregate::dir::workspace(chosen);
    for f in ws.failed() {
        errln!("error: {}", f.message);
    }
    let skipped: Vec<(&str, &str)> = left
        .iter()
        .filter(|r| r.status == Status::Skipped)
        .map(|r| (r.path.as_str(), r.error.as_deref().unwrap_or("")))
        .collect();
    super::load::note_skipped_files(&skipped);
    Ok((ws, nb, n))
}

/// Expands one side's arguments: a folder to its files, a path with `*` or `?` in its file
/// name to the matching files of its folder (sorted), anything else as given (a path that does
/// not exist then fails to load, naming itself). A glob that matches no file (or whose folder
/// cannot be read) is printed (`error: <glob>: matches no file`) and counted in `misses`, as a
/// missing file is.
///
/// Errors: a wildcard in the folder part (a usage error).
fn expand(args: &[String], misses: &mut usize) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for a in args {
        let p = Path::new(a);
        let wild = |s: &str| s.contains('*') || s.contains('?');
        if !p.exists() && wild(a) {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
            if dir.is_some_and(|d| wild(&d.display().to_string())) {
                return Err(format!(
                    "{a}: wildcards are only supported in the file name"
                ));
            }
            let dir = dir.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            let pat = load::file_name(p);
            let mut found: Vec<PathBuf> = match std::fs::read_dir(&dir) {
                Ok(rd) => rd
                    .flatten()
                    .map(|e| e.path())
                    .filter(|f| f.is_file() && glob_match(&pat, &load::file_name(f)))
                    .collect(),
                Err(e) => {
                    errln!("error: {a}: matches no file ({}: {e})", dir.display());
                    *misses += 1;
                    continue;
                }
            };
            if found.is_empty() {
                errln!("error: {a}: matches no file");
                *misses += 1;
                continue;
            }
            found.sort();
            out.extend(found);
        } else {
            out.extend(expand_paths(&[p.to_path_buf()]));
        }
    }
    Ok(out)
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let mut misses = 0;
    let loaded = match &args.from {
        Some(dir) => from_aggregates(dir, &args, &mut misses),
        None => from_traces(&args, &mut misses),
    };
    let (ws, nb, n) = match loaded {
        Ok(x) => x,
        Err((code, e)) => {
            errln!("error: {e}");
            return ExitCode::from(code);
        }
    };
    let params = compare::Params {
        metrics: args.metric.iter().map(|&m| m.into()).collect(),
        floor_ns: args.floor_ms * 1e6,
        min_ratio_change: args.min_change_pct / 100.0,
        min_shift_ns: args.min_shift_ms * 1e6,
        alpha: args.alpha,
        ..compare::Params::default()
    };
    let req = CompareRequest {
        settings: Vec::new(),
        baseline: SideRule {
            ids: (0..nb).collect(),
            ..SideRule::default()
        },
        candidate: SideRule {
            ids: (nb..n).collect(),
            ..SideRule::default()
        },
        params,
        trees: false,
    };
    let out = ws.compare(&req);
    let mut report = out.report;
    report.warnings.extend(out.warnings);
    if args.json {
        if let Some(n) = args.top {
            report.rows.truncate(n);
        }
        match serde_json::to_string(&report) {
            Ok(s) => load::write_stdout(&format!("{s}\n")),
            Err(e) => {
                errln!("error: cannot serialize the report: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        print_text(&report, args.top.unwrap_or(25), args.all);
    }
    if misses > 0 {
        return ExitCode::from(1);
    }
    load::exit_code(&ws)
}

/// The workspace of the files the sides name, baseline first, and the id bounds as
/// [`from_aggregates`] returns them; `misses` counts the globs that matched nothing.
fn from_traces(args: &Args, misses: &mut usize) -> Result<(Workspace, u32, u32), (u8, String)> {
    // One file is one trial: a file a side names twice (or by two globs, or through a
    // symlink) is read once, noted; one file on both sides is a usage error.
    let side = |files: Vec<PathBuf>| {
        let (kept, repeats) = distinct_files(files);
        for (repeat, first) in repeats {
            errln!("note: {}", repeat_note(&repeat, &first));
        }
        kept
    };
    let base = side(expand(&args.baseline, misses).map_err(|e| (2, e))?);
    let cand = side(expand(&args.candidate, misses).map_err(|e| (2, e))?);
    let both = distinct_files(base.iter().chain(&cand).cloned().collect()).1;
    if let Some((p, _)) = both.first() {
        return Err((2, format!("{} is on both sides", p.display())));
    }
    let nb = base.len() as u32;
    let all: Vec<PathBuf> = base.iter().chain(&cand).cloned().collect();
    Ok((load::workspace(&all), nb, all.len() as u32))
}

fn ms(v: Option<f64>, unit: &str) -> String {
    match v {
        Some(v) if unit == "ns" => format!("{:.3}", v / 1e6),
        Some(v) => format!("{v:.1}"),
        None => "-".into(),
    }
}

fn print_text(r: &compare::Report, top: usize, all: bool) {
    outln!("{}", r.statement);
    for f in &r.families {
        outln!(
            "  {}: {} frame(s) tested (pooled median ≥ {} {}), {} below the floor; {} slower, {} faster, {} no change, {} inconclusive",
            f.metric.as_str(),
            f.tested,
            f.floor,
            f.metric.unit(),
            f.below_floor,
            f.slower,
            f.faster,
            f.no_change,
            f.inconclusive
        );
    }
    for w in &r.warnings {
        outln!("  warning: {w}");
    }
    outln!();
    outln!(
        "{:<12} {:<9} {:>11} {:>11} {:>22} {:>26} {:>9} {:>9}  name",
        "verdict",
        "metric",
        "base (ms)",
        "cand (ms)",
        "ratio [CI]",
        "shift ms [CI]",
        "p",
        "q"
    );
    let rows: Vec<&compare::Row> = r.rows.iter().filter(|x| all || x.tested).collect();
    for x in rows.iter().take(top) {
        let ratio = match (x.ratio, x.ratio_ci_low, x.ratio_ci_high) {
            (Some(v), Some(a), Some(b)) => format!("{v:.3} [{a:.3}, {b:.3}]"),
            (Some(v), _, _) => format!("{v:.3}"),
            _ => "-".into(),
        };
        let shift = match (x.shift, x.shift_ci_low, x.shift_ci_high) {
            (Some(_), Some(_), Some(_)) => format!(
                "{} [{}, {}]",
                ms(x.shift, &x.unit),
                ms(x.shift_ci_low, &x.unit),
                ms(x.shift_ci_high, &x.unit)
            ),
            _ => "-".into(),
        };
        let e = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2e}"));
        outln!(
            "{:<12} {:<9} {:>11} {:>11} {:>22} {:>26} {:>9} {:>9}  {}{}",
            x.verdict.as_str(),
            x.metric.as_str(),
            ms(x.baseline_median, &x.unit),
            ms(x.candidate_median, &x.unit),
            ratio,
            shift,
            e(x.p_value),
            e(x.q_value),
            sanitize(&x.frame.name),
            match (&x.frame.file, x.frame.line) {
                (Some(f), Some(l)) => sanitize(&format!(" ({f}:{l})")),
                _ => String::new(),
            }
        );
    }
    if rows.len() > top {
        outln!("... {} more (use --top or --json)", rows.len() - top);
    }
    let changed = r
        .rows
        .iter()
        .filter(|x| matches!(x.verdict, Verdict::Slower | Verdict::Faster))
        .count();
    outln!();
    outln!("{changed} frame(s) changed (slower or faster).");
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}
