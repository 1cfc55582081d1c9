//! `trialscope summarize` and the Parquet aggregates (issue 12): the 18 Chromium scaling
//! trials and the JAX and PyTorch corpora summarized, then `scaling --from DIR` equals
//! `scaling FILES` byte for byte in `--json`; re-running is idempotent; a folder of broken files
//! gives one `trials` row per failure with its error; a table of another version is refused
//! naming the version; and the DuckDB and Spark recipes (`docs/recipes/`) give trialscope's ρ
//! (to 1e-12) and q (to 1e-9) for every tested group of every metric.
//!
//! The recipes run with the Python of the venv `.ci/setup` makes (`target/recipevenv`, or
//! `TRIALSCOPE_RECIPE_PYTHON`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;
use trialscope::aggregate::{self, dir, table, Status};

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

fn tmp(tag: &str) -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ts-summarize-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The inputs as typed on the command line, relative to `shared()` (so the stored names are
/// the names the trace run sees): every file of the three corpora, in path order.
const FULL: [&str; 3] = [
    "corpus/chromium_scaling",
    "corpus/jax_profile",
    "corpus/torch_multirank",
];

/// Nine Chromium trials (inputs 1000, 2000, 4000 × 3): groups of 9 trials, so every p is the
/// exact permutation p (n ≤ 10).
fn small_files() -> Vec<String> {
    let mut v = Vec::new();
    for n in [1000, 2000, 4000] {
        for r in 0..3 {
            v.push(format!("corpus/chromium_scaling/scaling_n{n}_r{r}.pb.gz"));
        }
    }
    v.sort();
    v
}

struct Fixture {
    full: PathBuf,
    small: PathBuf,
}

/// Summarizes the corpora once for every test of this module.
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let full = tmp("full");
        let small = tmp("small");
        let cwd = shared("");
        let out = full.display().to_string();
        let mut args = vec!["summarize", "--out", out.as_str()];
        args.extend(FULL);
        let (code, _, err) = trialscope(&args, &cwd);
        assert_eq!(code, Some(0), "{err}");
        assert!(err.contains("24 trace(s), 0 failed"), "{err}");
        let out = small.display().to_string();
        let files = small_files();
        let mut args = vec!["summarize", "--out", out.as_str()];
        args.extend(files.iter().map(String::as_str));
        let (code, _, err) = trialscope(&args, &cwd);
        assert_eq!(code, Some(0), "{err}");
        Fixture { full, small }
    })
}

/// `scaling --json --metric m --from dir`, parsed.
fn from_json(dir: &Path, metric: &str) -> Value {
    let d = dir.display().to_string();
    let (code, out, err) = trialscope(
        &["scaling", "--json", "--metric", metric, "--from", &d],
        &shared(""),
    );
    assert_eq!(code, Some(0), "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn scaling_from_aggregates_equals_scaling_from_traces_byte_for_byte() {
    let f = fixture();
    let cwd = shared("");
    for (metric, hypotheses) in [("inclusive", 646), ("count", 551)] {
        let mut args = vec!["scaling", "--json", "--metric", metric];
        args.extend(FULL);
        let (c1, traces, e1) = trialscope(&args, &cwd);
        let d = f.full.display().to_string();
        let (c2, aggregates, e2) = trialscope(
            &["scaling", "--json", "--metric", metric, "--from", &d],
            &cwd,
        );
        assert_eq!((c1, c2), (Some(0), Some(0)), "{e1}\n{e2}");
        assert!(
            traces.len() > 100_000,
            "a real report: {} bytes",
            traces.len()
        );
        assert!(
            traces == aggregates,
            "--metric {metric}: the reports differ"
        );
        let v: Value = serde_json::from_str(&aggregates).unwrap();
        assert_eq!(v["trials"].as_array().unwrap().len(), 24);
        assert_eq!(v["tested_hypotheses"], hypotheses, "{metric}");
    }
    // The nine-trial subset (exact permutation p) too.
    let files = small_files();
    let mut args = vec!["scaling", "--json"];
    args.extend(files.iter().map(String::as_str));
    let (_, traces, _) = trialscope(&args, &cwd);
    let d = f.small.display().to_string();
    let (_, aggregates, _) = trialscope(&["scaling", "--json", "--from", &d], &cwd);
    assert!(traces == aggregates, "the nine-trial reports differ");
    assert!(aggregates.contains("exact_permutation"));
}

/// Every file under `dir`, relative, with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    dir::expand(&[dir.to_path_buf()])
        .0
        .into_iter()
        .map(|(p, _, _)| {
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            (rel, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
fn summarizing_the_same_files_again_replaces_their_rows() {
    let d = tmp("again");
    let cwd = shared("");
    let out = d.display().to_string();
    let args = ["summarize", "--out", out.as_str(), "corpus/torch_multirank"];
    let (code, _, err) = trialscope(&args, &cwd);
    assert_eq!(code, Some(0), "{err}");
    let first = tree(&d);
    // 4 traces + summary.json (not a trial): 5 keys × 4 tables.
    assert_eq!(first.len(), 20, "{:?}", first.keys());
    let (code, _, err) = trialscope(&args, &cwd);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("[5/5]"), "progress on stderr: {err}");
    let second = tree(&d);
    assert_eq!(
        first, second,
        "a re-run must leave the same files, byte for byte"
    );
    let records = dir::read(&d).unwrap();
    assert_eq!(records.len(), 5);
    let ok = records.iter().filter(|r| r.status == Status::Ok).count();
    assert_eq!(ok, 4);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_folder_of_broken_files_gives_one_trials_row_per_failure() {
    let base = tmp("bad");
    let bad = base.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let trial = crate::support::read_corpus("chromium_scaling/scaling_n1000_r0.pb.gz");
    std::fs::write(bad.join("good_n1.pb.gz"), &trial).unwrap();
    std::fs::write(bad.join("truncated_n2.pb.gz"), &trial[..100]).unwrap();
    std::fs::write(bad.join("empty_n3.json"), b"").unwrap();
    std::fs::write(bad.join("notes.txt"), b"hello notes\n").unwrap();
    // Unreadable: a name that is not a readable file (root reads any mode, so a dangling link).
    let dangling = base.join("unreadable_n5.json");
    std::os::unix::fs::symlink(base.join("does-not-exist"), &dangling).unwrap();
    let out = base.join("agg");
    let (code, _, err) = trialscope(
        &[
            "summarize",
            "--out",
            &out.display().to_string(),
            "bad",
            "unreadable_n5.json",
        ],
        &base,
    );
    assert_eq!(code, Some(1), "failures give exit code 1: {err}");
    assert!(err.contains("1 trace(s), 2 failed, 2 skipped"), "{err}");
    let records = dir::read(&out).unwrap();
    let by: BTreeMap<&str, (&Status, Option<&str>)> = records
        .iter()
        .map(|r| (r.path.as_str(), (&r.status, r.error.as_deref())))
        .collect();
    assert_eq!(by.len(), 5, "{by:?}");
    assert_eq!(by["bad/good_n1.pb.gz"], (&Status::Ok, None));
    let failed = |name: &str, want: &str| {
        let (s, e) = by[name];
        assert_eq!(*s, Status::Failed, "{name}");
        let e = e.unwrap();
        assert!(e.starts_with(name) && e.contains(want), "{name}: {e}");
    };
    failed("bad/truncated_n2.pb.gz", "incomplete deflate stream");
    failed("unreadable_n5.json", "cannot read the file");
    let (s, e) = by["bad/notes.txt"];
    assert_eq!(*s, Status::Skipped);
    assert!(e.unwrap().contains("not a trace"), "{e:?}");
    // An empty file in a folder is skipped as the workspace skips it, saying it is empty.
    let (s, e) = by["bad/empty_n3.json"];
    assert_eq!(*s, Status::Skipped);
    assert!(e.unwrap().ends_with("the file is empty"), "{e:?}");

    // The aggregates give the report the files give (failures listed, in path order).
    let (_, traces, _) = trialscope(&["scaling", "--json", "bad", "unreadable_n5.json"], &base);
    let (_, aggregates, e2) = trialscope(
        &["scaling", "--json", "--from", &out.display().to_string()],
        &base,
    );
    assert!(traces == aggregates, "{e2}");
    assert!(
        e2.contains("note: skipped 2 file(s)")
            && e2.contains("bad/notes.txt")
            && e2.contains("bad/empty_n3.json (empty)"),
        "{e2}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_table_of_another_version_is_refused_naming_the_version() {
    let d = tmp("version");
    let cwd = shared("");
    let out = d.display().to_string();
    let (code, _, err) = trialscope(
        &[
            "summarize",
            "--out",
            &out,
            "corpus/chromium_scaling/scaling_n1000_r0.pb.gz",
        ],
        &cwd,
    );
    assert_eq!(code, Some(0), "{err}");
    // Rewrite the frame_costs file as table version 2.
    let costs = std::fs::read_dir(d.join("frame_costs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let rows = table::decode(
        "x",
        std::fs::read(&costs).unwrap(),
        "frame_costs",
        aggregate::TABLE_VERSION,
    )
    .unwrap();
    assert!(rows.rows.len() > 100, "{} frame rows", rows.rows.len());
    let t = table::Table {
        name: "frame_costs",
        columns: vec![table::Column {
            name: "artifact_id",
            nullable: false,
            values: table::Values::Str(vec![Some("sha256:00".into())]),
        }],
    };
    std::fs::write(&costs, table::encode(&t, 2).unwrap()).unwrap();
    let (code, out_json, err) = trialscope(&["scaling", "--json", "--from", &out], &cwd);
    assert_eq!(code, Some(1));
    // Only that trial fails: the report of the others is still printed, listing it.
    let report: serde_json::Value = serde_json::from_str(&out_json).expect("a report");
    assert_eq!(
        report["failed_imports"].as_array().map(Vec::len),
        Some(1),
        "{}",
        report["failed_imports"]
    );
    assert!(
        err.contains("written with schema sf1 table version 2")
            && err.contains("this trialscope reads sf1 table version 1")
            && err.contains("frame_costs"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The recipe venv's Python ( `.ci/setup`).
fn recipe_python() -> PathBuf {
    let p = std::env::var_os("TRIALSCOPE_RECIPE_PYTHON").map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/target/recipevenv/bin/python"
            ))
        },
        PathBuf::from,
    );
    assert!(
        p.exists(),
        "{}: the recipe venv is missing; run .ci/setup",
        p.display()
    );
    p
}

fn recipe(name: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/docs/recipes/").to_string() + name
}

/// Runs a recipe script over `dirs`; its JSON lines.
fn run_recipe(script: &str, args: &[&str]) -> Vec<Value> {
    let out = Command::new(recipe_python())
        .arg(recipe(script))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Compares an engine's rows of one metric with trialscope's report: the same tested groups
/// and hypotheses, ρ to 1e-12, q to 1e-9, the same p method and trial count.
fn assert_same_groups(engine: &str, rows: &[&Value], report: &Value) {
    let hs = report["hotspots"].as_array().unwrap();
    assert_eq!(rows.len(), hs.len(), "{engine}: tested groups");
    let by: BTreeMap<(String, String), &Value> = rows
        .iter()
        .map(|r| {
            (
                (
                    r["variant"].as_str().unwrap().to_string(),
                    r["semantic_frame_id"].as_str().unwrap().to_string(),
                ),
                *r,
            )
        })
        .collect();
    let (mut max_rho, mut max_q) = (0f64, 0f64);
    for h in hs {
        let key = (
            h["variant"].as_str().unwrap().to_string(),
            h["semantic_frame_id"].as_str().unwrap().to_string(),
        );
        let r = by
            .get(&key)
            .unwrap_or_else(|| panic!("{engine}: no group {key:?}"));
        let d_rho = (r["rho"].as_f64().unwrap() - h["spearman_rho"].as_f64().unwrap()).abs();
        let d_q = (r["q_value"].as_f64().unwrap() - h["q_value"].as_f64().unwrap()).abs();
        assert!(d_rho <= 1e-12, "{engine} {key:?}: rho {r} vs {h}");
        assert!(
            d_q <= 1e-9,
            "{engine} {key:?}: q {} vs {}",
            r["q_value"],
            h["q_value"]
        );
        assert_eq!(r["p_method"], h["p_method"], "{engine} {key:?}");
        assert_eq!(r["trials"], h["trials"], "{engine} {key:?}");
        assert_eq!(r["tested_hypotheses"], report["tested_hypotheses"]);
        max_rho = max_rho.max(d_rho);
        max_q = max_q.max(d_q);
    }
    eprintln!(
        "{engine} {}: {} groups, max |Δρ| {max_rho:e}, max |Δq| {max_q:e}",
        report["metric"],
        hs.len()
    );
}

#[test]
fn duckdb_recipe_gives_trialscopes_rho_q_and_medians() {
    let f = fixture();
    for d in [&f.full, &f.small] {
        let ds = d.display().to_string();
        let rows = run_recipe("scaling_duckdb.py", &[&ds]);
        for metric in ["inclusive", "self", "count"] {
            let report = from_json(d, metric);
            let mine: Vec<&Value> = rows.iter().filter(|r| r["metric"] == metric).collect();
            assert_same_groups("duckdb", &mine, &report);
            // Per-input medians of every tested group.
            if metric == "inclusive" {
                let medians = run_recipe("scaling_duckdb.py", &[&ds, "--medians"]);
                let by: BTreeMap<(String, String, u64), f64> = medians
                    .iter()
                    .filter(|m| m["metric"] == metric)
                    .map(|m| {
                        (
                            (
                                m["variant"].as_str().unwrap().to_string(),
                                m["semantic_frame_id"].as_str().unwrap().to_string(),
                                m["input"].as_f64().unwrap().to_bits(),
                            ),
                            m["median"].as_f64().unwrap(),
                        )
                    })
                    .collect();
                let mut n = 0;
                for h in report["hotspots"].as_array().unwrap() {
                    for p in h["points"].as_array().unwrap() {
                        let k = (
                            h["variant"].as_str().unwrap().to_string(),
                            h["semantic_frame_id"].as_str().unwrap().to_string(),
                            p["input"].as_f64().unwrap().to_bits(),
                        );
                        assert_eq!(by[&k], p["median"].as_f64().unwrap(), "{k:?}");
                        n += 1;
                    }
                }
                assert!(n > 1000, "{n} points compared");
            }
        }
    }
}

#[test]
fn spark_recipe_gives_trialscopes_rho_and_q() {
    let f = fixture();
    let (full, small) = (f.full.display().to_string(), f.small.display().to_string());
    // One Spark session (one JVM start) for both directories.
    let rows = run_recipe("scaling_spark.py", &[&full, &small]);
    for (d, ds) in [(&f.full, &full), (&f.small, &small)] {
        for metric in ["inclusive", "self", "count"] {
            let report = from_json(d, metric);
            let mine: Vec<&Value> = rows
                .iter()
                .filter(|r| r["metric"] == metric && r["dir"] == ds.as_str())
                .collect();
            assert_same_groups("spark", &mine, &report);
        }
    }
}
