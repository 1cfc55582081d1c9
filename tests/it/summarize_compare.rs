//! `trialscope compare --from DIR` (issue 12): the Chromium scaling trials summarized once, then
//! `compare --from DIR --json` equals `compare FILES --json` byte for byte with the same
//! `--baseline`/`--candidate` arguments — globs (a baseline that sorts after the candidate, so
//! the side order is the arguments' and not the directory's), listed files, a file that failed
//! to import — an argument that picks nothing is a failed input (exit 1, named, as a missing
//! file is), and a file on both sides is a usage error.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::support::shared;

/// Runs the CLI in `cwd`: (exit code, stdout, stderr).
fn trialscope(args: &[&str], cwd: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A file that does not exist: summarized as a failed `trials` row (a glob over the stored
/// paths matches it as it would match a broken file on disk; the globs below do not).
const MISSING: &str = "corpus/chromium_scaling/missing_n1000.pb.gz";

fn trace(n: u32, r: u32) -> String {
    format!("corpus/chromium_scaling/scaling_n{n}_r{r}.pb.gz")
}

/// N = 1000, 2000 and 16000 × 3 and [`MISSING`], summarized once (paths relative to
/// `shared()`, as the compare runs type them).
fn aggregates() -> &'static PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("ts-summarize-compare-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let out = d.display().to_string();
        let mut files: Vec<String> = [1000, 2000, 16000]
            .iter()
            .flat_map(|&n| (0..3).map(move |r| trace(n, r)))
            .collect();
        files.push(MISSING.to_string());
        let mut args = vec!["summarize", "--out", out.as_str()];
        args.extend(files.iter().map(String::as_str));
        let (code, _, err) = trialscope(&args, &shared(""));
        assert_eq!(code, Some(1), "the missing file fails: {err}");
        assert!(err.contains("9 trace(s), 1 failed"), "{err}");
        d
    })
}

/// `compare --json` over the traces and over the aggregates with the same side arguments: both
/// outputs and exit codes, checked equal byte for byte; returns the report and the exit code.
fn both(base: &[&str], cand: &[&str]) -> (Value, Option<i32>) {
    let d = aggregates().display().to_string();
    let mut sides = vec!["--baseline"];
    sides.extend(base);
    sides.push("--candidate");
    sides.extend(cand);
    let mut traces = vec!["compare", "--json"];
    traces.extend(&sides);
    let mut from = vec!["compare", "--json", "--from", d.as_str()];
    from.extend(&sides);
    let (c1, o1, e1) = trialscope(&traces, &shared(""));
    let (c2, o2, e2) = trialscope(&from, &shared(""));
    assert_eq!(c1, c2, "exit codes\n{e1}\n{e2}");
    assert!(o1.len() > 10_000, "a real report: {o1}\n{e1}");
    assert!(o1 == o2, "{base:?} vs {cand:?}: the reports differ");
    (serde_json::from_str(&o2).unwrap(), c2)
}

#[test]
fn compare_from_aggregates_equals_compare_from_traces_byte_for_byte() {
    // Globs; the baseline (N = 16000) sorts after the candidate (N = 1000) in the directory.
    let (r, code) = both(
        &["corpus/chromium_scaling/scaling_n16000_*"],
        &["corpus/chromium_scaling/scaling_n1000_r?.pb.gz"],
    );
    assert_eq!(code, Some(0));
    let trials = r["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 6);
    assert!(trials[0]["path"].as_str().unwrap().contains("n16000"));
    let tested = r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["tested"] == true)
        .count();
    assert!(tested > 10, "{tested} rows tested");

    // Listed files, one of them failed to import (a failure row in both reports, exit 1).
    let (r, code) = both(
        &[&trace(1000, 0), &trace(1000, 1), &trace(1000, 2), MISSING],
        &[&trace(2000, 0), &trace(2000, 1), &trace(2000, 2)],
    );
    assert_eq!(code, Some(1));
    assert!(r.to_string().contains("missing_n1000.pb.gz"), "the failure");
}

#[test]
fn compare_from_aggregates_names_an_argument_that_picks_nothing() {
    let d = aggregates().display().to_string();
    let cwd = shared("");
    let (code, _, err) = trialscope(
        &[
            "compare",
            "--from",
            &d,
            "--baseline",
            "corpus/chromium_scaling/scaling_n4000_*",
            "--candidate",
            "corpus/chromium_scaling/scaling_n1000_*",
        ],
        &cwd,
    );
    assert_eq!(code, Some(1), "a failed input, as a missing file is");
    assert!(
        err.contains(
            "error: corpus/chromium_scaling/scaling_n4000_*: matches no file summarized in"
        ),
        "{err}"
    );
    // A folder argument picks every file summarized under it, so it overlaps the glob.
    let (code, _, err) = trialscope(
        &[
            "compare",
            "--from",
            &d,
            "--baseline",
            "corpus/chromium_scaling",
            "--candidate",
            "corpus/chromium_scaling/scaling_n1000_*",
        ],
        &cwd,
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("is on both sides"), "{err}");
}
