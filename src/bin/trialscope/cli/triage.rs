//! `trialscope triage` and `trialscope pin` (compile-triage.md).
//!
//! Inputs are compile-record files (JSON Lines, JSON array, `{"records": […]}`, optionally
//! gzipped) and/or traces (Chrome JSON / Perfetto) whose compile slices become records. A file
//! that cannot be read is reported on stderr and the others are still used (exit code 1).
//! Neither command ever writes its inputs.

use std::path::{Path, PathBuf};

use trialscope::analysis::compile_triage::{self, Params, Report};
use trialscope::formats::records::{self, KeyDefaults};
use trialscope::model::compile_record::{CacheState, CompileRecord};
use trialscope::workspace::{Content, TraceFill, Workspace};

/// Key fields a trace lacks, filled in by the user (applied to trace-derived records only, and
/// only where the trace says nothing).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct FillArgs {
    /// Hardware of trace-derived records (e.g. `cpu`, `local_gpu_NVIDIA_H200`).
    #[arg(long)]
    pub hardware: Option<String>,
    /// Hostname of trace-derived records, when the trace does not name one.
    #[arg(long)]
    pub hostname: Option<String>,
    /// Framework version (`jax_version`) of trace-derived records.
    #[arg(long = "framework-version")]
    pub framework_version: Option<String>,
    /// Precision of trace-derived records (`fp32`, `fp64`, `mixed`, …).
    #[arg(long)]
    pub precision: Option<String>,
    /// Cache state (`cold`/`warm`) of trace-derived records whose file name does not say.
    #[arg(long = "cache-state")]
    pub cache_state: Option<String>,
}

impl FillArgs {
    fn defaults(&self) -> Result<KeyDefaults, String> {
        let cache_state = match &self.cache_state {
            None => None,
            Some(s) => Some(
                CacheState::parse(s).ok_or_else(|| format!("--cache-state {s:?}: cold or warm"))?,
            ),
        };
        Ok(KeyDefaults {
            hardware: self.hardware.clone(),
            hostname: self.hostname.clone(),
            jax_version: self.framework_version.clone(),
            precision: self.precision.clone(),
            cache_state,
            transform: None,
        })
    }
}

/// Arguments of `trialscope triage`.
#[derive(clap::Args)]
pub struct Args {
    /// Record files and/or traces.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Pins file (`trialscope pin` output). Without it nothing is compared ("no pins").
    #[arg(long)]
    pub pins: Option<PathBuf>,
    /// Drift needs observed ≥ R × pinned.
    #[arg(long = "min-ratio", default_value_t = 2.0)]
    pub min_ratio: f64,
    /// Drift needs observed − pinned ≥ S seconds.
    #[arg(long = "min-abs-s", default_value_t = 1.0)]
    pub min_abs_s: f64,
    /// host-load when load_avg_1m ≥ L (or per core with --load-per-core).
    #[arg(long = "load-threshold", default_value_t = 2.0)]
    pub load_threshold: f64,
    /// Compare load_avg_1m / cpu_count with the load threshold.
    #[arg(long = "load-per-core")]
    pub load_per_core: bool,
    /// Cold-scale rule: warm ≥ F × the slowest cold compile of the key.
    #[arg(long = "cold-scale-fraction", default_value_t = 0.5)]
    pub cold_scale_fraction: f64,
    /// autotune-regression needs a GPU and ratio ≥ this.
    #[arg(long = "autotune-ratio", default_value_t = 10.0)]
    pub autotune_ratio: f64,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print the drift findings as CSV.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    #[command(flatten)]
    pub fill: FillArgs,
}

/// Arguments of `trialscope pin`.
#[derive(clap::Args)]
pub struct PinArgs {
    /// Record files and/or traces whose warm rows become pins (median per full key).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write the pins here instead of stdout (must not be one of the inputs).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub fill: FillArgs,
}

/// The workspace of the command's files, with the records and exclusions the triage sees.
struct Loaded {
    ws: Workspace,
    records: Vec<CompileRecord>,
    other_kind: Vec<records::ExcludedRecord>,
    malformed: Vec<records::ExcludedRecord>,
    /// Counted but not listed: (other kind, malformed, records over the per-file limit).
    unlisted: (u64, u64, u64),
}

/// Loads every file (record files, traces, folders); a file that fails is reported and kept as
/// failed. `fill` is applied to every trace's derived records (only where the trace is silent).
fn load(paths: &[PathBuf], fill: &KeyDefaults) -> Loaded {
    let ws = super::load::workspace(paths);
    let fills: Vec<TraceFill> = ws
        .entries()
        .iter()
        .filter(|e| e.trace().is_some())
        .map(|e| TraceFill {
            id: e.id,
            defaults: fill.clone(),
        })
        .collect();
    let mut other_kind = Vec::new();
    let mut malformed = Vec::new();
    for e in ws.entries() {
        match &e.content {
            Content::Trace(t) if t.compile_records.is_empty() => {
                errln!("note: {}: no compile slices in this trace", e.name());
            }
            Content::Records(f) => {
                other_kind.extend(f.file.other_kind.iter().cloned());
                malformed.extend(f.file.malformed.iter().cloned());
            }
            _ => {}
        }
    }
    Loaded {
        records: ws.compile_records(&fills),
        other_kind,
        malformed,
        unlisted: ws.excluded_unlisted(),
        ws,
    }
}

fn render_text(rep: &Report, loaded: &Loaded) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} records, {} warm rows with a complete key, {} pins ({} rows older than their pin)",
        loaded.records.len(),
        rep.warm_rows,
        rep.pins,
        rep.history_rows
    );
    if !rep.findings.is_empty() {
        let _ = writeln!(o, "\nDrift ({} rows):", rep.findings.len());
        for f in &rep.findings {
            let _ = writeln!(
                o,
                "  [{}] {}  at {}\n      {}\n      action: {}",
                f.classification.as_str(),
                f.key_text,
                f.location,
                f.evidence,
                f.action
            );
        }
    }
    if !rep.unpinned.is_empty() {
        let _ = writeln!(o, "\nUnpinned keys ({}):", rep.unpinned.len());
        for u in &rep.unpinned {
            let d = if u.differs_in.is_empty() {
                String::new()
            } else {
                format!(" (differs in {})", u.differs_in.join(", "))
            };
            let _ = writeln!(
                o,
                "  [{}] {}{d}, {} row(s)",
                u.classification.as_str(),
                u.key_text,
                u.rows
            );
        }
    }
    let _ = writeln!(o, "\nCounts:");
    for (c, n) in &rep.counts {
        let _ = writeln!(o, "  {c:<20} {n}");
    }
    for (c, n) in rep.unpinned_counts.iter().filter(|(_, n)| **n > 0) {
        let _ = writeln!(o, "  unpinned {c:<11} {n}");
    }
    let _ = writeln!(o, "Actionable: {}", rep.actionable);
    let excluded = [
        ("other-kind", &loaded.other_kind, loaded.unlisted.0),
        ("malformed", &loaded.malformed, loaded.unlisted.1),
    ];
    for (what, list, more) in excluded {
        if !list.is_empty() {
            let _ = writeln!(o, "\nExcluded as {what} ({}):", list.len() as u64 + more);
            for e in list.iter() {
                let _ = writeln!(o, "  {}: {}", e.location, e.reason);
            }
            if more > 0 {
                let _ = writeln!(o, "  … and {more} more (counted, not listed)");
            }
        }
    }
    if loaded.unlisted.2 > 0 {
        let _ = writeln!(
            o,
            "\nRecords over the per-file limit of {} (dropped): {}",
            trialscope::formats::limits::MAX_RECORDS,
            loaded.unlisted.2
        );
    }
    if !rep.incomplete.is_empty() {
        let _ = writeln!(
            o,
            "\nIncomplete key, not compared ({}; fill with --hardware/--hostname/\
             --framework-version/--precision/--cache-state):",
            rep.incomplete.len()
        );
        for e in &rep.incomplete {
            let _ = writeln!(o, "  {}: {}", e.location, e.reason);
        }
    }
    let _ = writeln!(o, "\nNext: {}", rep.next_action);
    o
}

/// Runs `triage`.
pub fn run(args: Args) -> std::process::ExitCode {
    let fill = match args.fill.defaults() {
        Ok(f) => f,
        Err(e) => {
            errln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut loaded = load(&args.files, &fill);
    if let Some(p) = &args.pins {
        let name = p.display().to_string();
        let res = std::fs::read(p)
            .map_err(|e| format!("{name}: cannot read the file: {e}"))
            .and_then(|b| loaded.ws.load_pins(&name, &b));
        if let Err(e) = res {
            errln!("error: {e}");
            return std::process::ExitCode::from(1);
        }
    }
    let params = Params {
        min_ratio: args.min_ratio,
        min_abs_s: args.min_abs_s,
        cold_scale_fraction: args.cold_scale_fraction,
        autotune_ratio: args.autotune_ratio,
        load_threshold: args.load_threshold,
        load_per_core: args.load_per_core,
    };
    let rep = compile_triage::run(&loaded.records, loaded.ws.pins(), &params);
    if args.csv {
        write_stdout(&trialscope::report::export::findings_csv(&rep));
    } else if args.json {
        match serde_json::to_string_pretty(&loaded.ws.triage_document(&rep)) {
            Ok(s) => write_stdout(&(s + "\n")),
            Err(e) => {
                errln!("error: cannot serialize the report: {e}");
                return std::process::ExitCode::from(1);
            }
        }
    } else {
        write_stdout(&render_text(&rep, &loaded));
    }
    super::load::exit_code(&loaded.ws)
}

use super::load::write_stdout;

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Runs `pin`.
pub fn run_pin(args: PinArgs) -> std::process::ExitCode {
    let fill = match args.fill.defaults() {
        Ok(f) => f,
        Err(e) => {
            errln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    if let Some(out) = &args.out {
        if args.files.iter().any(|f| same_file(f, out)) {
            errln!(
                "error: --out {} is one of the inputs; pin never writes its inputs",
                out.display()
            );
            return std::process::ExitCode::from(2);
        }
    }
    let loaded = load(&args.files, &fill);
    for e in &loaded.malformed {
        errln!("note: malformed record {}: {}", e.location, e.reason);
    }
    if loaded.unlisted.1 > 0 {
        errln!(
            "note: … and {} more malformed records (counted, not listed)",
            loaded.unlisted.1
        );
    }
    if loaded.unlisted.2 > 0 {
        errln!(
            "warning: {} records over the per-file limit of {} were dropped",
            loaded.unlisted.2,
            trialscope::formats::limits::MAX_RECORDS
        );
    }
    let pins = compile_triage::pins_from_records(&loaded.records);
    if pins.is_empty() {
        errln!("warning: no warm record with a complete key: the pins file is empty");
    }
    let text = records::pins_to_json(&pins) + "\n";
    match &args.out {
        Some(out) => {
            if let Err(e) = std::fs::write(out, text) {
                errln!("error: {}: cannot write: {e}", out.display());
                return std::process::ExitCode::from(1);
            }
            errln!("wrote {} pins to {}", pins.len(), out.display());
        }
        None => write_stdout(&text),
    }
    super::load::exit_code(&loaded.ws)
}
