//! The optional aggregate tables (issue 12, `docs/parquet-schema.md`): `compile_records` of the
//! JAX corpora (five compile-record files of `jax_compile`, the compile slices of the two
//! `jax_profile` traces) read back equal the records the workspace holds for the same files,
//! field for field, and the triage over them equals `trialscope triage --json` over the files
//! (with pins from `trialscope pin` and the 0.05 s floor, so drift findings are compared too); re-summarizing
//! leaves the same files; a table of another version is refused naming it. `memory_intervals`
//! of a 4-rank Perfetto job and a 4-rank telemetry file equal the intervals of `trialscope
//! memory --json FOLDER`. The DuckDB recipes over them (`docs/recipes/compile_times.duckdb.sql`,
//! `memory_peaks.duckdb.sql`) give `trialscope pin`'s warm medians and the report's peak gaps.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use trialscope::aggregate::{dir, optional, table};
use trialscope::analysis::compile_triage::{self, Params};
use trialscope::workspace::Workspace;

use crate::support::shared;

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
        .join(format!("ts-summarize-tables-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The recipe venv's Python (`.ci/setup`; or `TRIALSCOPE_RECIPE_PYTHON`), as `summarize.rs`
/// runs the scaling recipes with.
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

/// Runs the DuckDB SQL recipe `docs/recipes/<name>` in the aggregate directory `dir`: its
/// result rows as JSON objects.
fn duckdb_recipe(name: &str, dir: &Path) -> Vec<Value> {
    let sql = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/recipes/").to_string() + name;
    let script = "import duckdb, json, os, sys\n\
                  sql = open(sys.argv[1]).read()\n\
                  os.chdir(sys.argv[2])\n\
                  r = duckdb.connect().execute(sql)\n\
                  cols = [d[0] for d in r.description]\n\
                  for row in r.fetchall():\n    print(json.dumps(dict(zip(cols, row)), default=str))\n";
    let out = Command::new(recipe_python())
        .args(["-c", script, &sql])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// In path order (`jax_compile` before `jax_profile`), as the aggregates are read back.
const JAX: [&str; 2] = ["corpus/jax_compile", "corpus/jax_profile"];

fn files_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v: Vec<(PathBuf, Vec<u8>)> = dir::expand(&[dir.to_path_buf()])
        .0
        .into_iter()
        .map(|(p, _, _)| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn compile_records_read_back_as_the_workspace_holds_them_and_triage_the_same() {
    let d = tmp("compile");
    let cwd = shared("");
    let out = d.join("agg");
    let o = out.display().to_string();
    let mut args = vec!["summarize", "--out", o.as_str()];
    args.extend(JAX);
    let (code, _, err) = trialscope(&args, &cwd);
    assert_eq!(code, Some(0), "{err}");
    // Five record files and two traces with compile slices.
    assert_eq!(
        std::fs::read_dir(out.join("compile_records"))
            .unwrap()
            .count(),
        7
    );

    let stored = dir::read_compile_records(&out).unwrap();
    let paths: Vec<PathBuf> = JAX.iter().map(|p| cwd.join(p)).collect();
    let ws = Workspace::from_paths(&paths, &mut |m| panic!("{m}"));
    let mut held = ws.compile_records(&[]);
    // The workspace names the files by the absolute paths given here; the CLI run typed them
    // relative to `shared()`.
    let prefix = format!("{}/", cwd.display().to_string().trim_end_matches('/'));
    for r in &mut held {
        r.location.file = r.location.file.replacen(&prefix, "", 1);
    }
    assert!(held.len() > 250, "{} records", held.len());
    assert!(
        held.iter()
            .any(|r| r.location.file.ends_with(".trace.json.gz")),
        "trace-derived records too"
    );
    assert_eq!(stored.len(), held.len());
    for (s, h) in stored.iter().zip(&held) {
        assert_eq!(s, h);
    }

    // Triage over the stored records = `trialscope triage --json` over the files, pins
    // included (the document's exclusions of other-kind and malformed entries come from the
    // record files' parse, which the table does not keep: compared only when the files have
    // none).
    let pins = d.join("pins.json");
    let p = pins.display().to_string();
    let (code, _, err) = trialscope(
        &["pin", "--out", &p, "corpus/jax_compile/baseline.jsonl"],
        &cwd,
    );
    assert_eq!(code, Some(0), "{err}");
    // The absolute floor 0.05 s (not 1 s), so the version bump gives drift rows.
    let mut args = vec![
        "triage",
        "--json",
        "--min-abs-s",
        "0.05",
        "--pins",
        p.as_str(),
    ];
    args.extend(JAX);
    let (code, cli, err) = trialscope(&args, &cwd);
    assert_eq!(code, Some(0), "{err}");
    let cli: Value = serde_json::from_str(&cli).unwrap();
    let mut alone = Workspace::new();
    let n = alone
        .load_pins("pins.json", &std::fs::read(&pins).unwrap())
        .unwrap();
    assert!(n > 0, "pins");
    let params = Params {
        min_abs_s: 0.05,
        ..Params::default()
    };
    let rep = compile_triage::run(&stored, alone.pins(), &params);
    let ours = alone.triage_document(&rep);
    assert!(
        !cli["findings"].as_array().unwrap().is_empty(),
        "drift findings to compare: {cli:#}"
    );
    assert_eq!(
        cli["excluded"]["other_kind"],
        ours["excluded"]["other_kind"]
    );
    assert_eq!(cli["excluded"]["malformed"], ours["excluded"]["malformed"]);
    assert_eq!(cli, ours);

    // Idempotent: a second run leaves the same bytes.
    let before: Vec<_> = files_of(&out);
    let (code, _, err) = trialscope(&args_summarize(&o), &cwd);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(before, files_of(&out));
    let _ = std::fs::remove_dir_all(&d);
}

fn args_summarize(o: &str) -> Vec<&str> {
    let mut args = vec!["summarize", "--out", o];
    args.extend(JAX);
    args
}

#[test]
fn a_compile_records_table_of_another_version_is_refused_naming_it() {
    let d = tmp("version");
    let cwd = shared("");
    let o = d.display().to_string();
    let (code, _, err) = trialscope(
        &[
            "summarize",
            "--out",
            &o,
            "corpus/jax_compile/baseline.jsonl",
        ],
        &cwd,
    );
    assert_eq!(code, Some(0), "{err}");
    let f = std::fs::read_dir(d.join("compile_records"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let rows = table::decode(
        "f",
        std::fs::read(&f).unwrap(),
        "compile_records",
        optional::COMPILE_RECORDS_VERSION,
    )
    .unwrap();
    let recs = optional::compile_records_from_rows("f", &rows).unwrap();
    assert!(recs.len() > 10, "{} records", recs.len());
    let e = table::decode(
        "f",
        std::fs::read(&f).unwrap(),
        "compile_records",
        optional::COMPILE_RECORDS_VERSION + 1,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("written with schema sf1 table version 1") && e.contains("table version 2"),
        "{e}"
    );

    // The DuckDB recipe's warm medians per full key are the pins `trialscope pin` writes.
    let (code, pins, err) = trialscope(&["pin", "corpus/jax_compile/baseline.jsonl"], &cwd);
    assert_eq!(code, Some(0), "{err}");
    let pins: Value = serde_json::from_str(&pins).unwrap();
    let pins = pins["pins"].as_array().unwrap();
    let rows = duckdb_recipe("compile_times.duckdb.sql", &d);
    let fields = [
        "cell",
        "transform",
        "hardware",
        "hostname",
        "jax_version",
        "precision",
        "cache_state",
    ];
    let warm: Vec<&Value> = rows.iter().filter(|r| r["cache_state"] == "warm").collect();
    assert_eq!(warm.len(), pins.len(), "{rows:#?}");
    assert!(pins.len() >= 10);
    for p in pins {
        let r = warm
            .iter()
            .find(|r| fields.iter().all(|f| r[*f] == p[*f]))
            .unwrap_or_else(|| panic!("no recipe row for {p}"));
        let (a, b) = (
            r["median_s"].as_f64().unwrap(),
            p["compile_s"].as_f64().unwrap(),
        );
        assert!((a - b).abs() <= 1e-12, "{p}: {a} vs {b}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The `memory_intervals` rows of `dir`, each as the `memory --json` interval object it stands
/// for (times relative to the job's origin), with the file it was written under.
fn stored_intervals(dir: &Path) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (f, rows) in
        dir::read_optional(dir, "memory_intervals", optional::MEMORY_INTERVALS_VERSION).unwrap()
    {
        let c = |n: &str| rows.col(&f, n).unwrap();
        for r in &rows.rows {
            let s = |n: &str| table::opt_str(&f, n, &r[c(n)]).unwrap();
            let i = |n: &str| table::req_i64(&f, n, &r[c(n)]).unwrap();
            let x = |n: &str| table::opt_f64(&f, n, &r[c(n)]).unwrap();
            let codes: Vec<String> = s("reason_codes")
                .unwrap()
                .split(',')
                .map(str::to_string)
                .collect();
            let v = serde_json::json!({
                "rank": i("rank"),
                "start_ns": i("start_ns"),
                "end_ns": i("end_ns"),
                "classification": s("classification"),
                "confidence": x("confidence"),
                "reason_codes": codes,
                "evidence": {
                    "marker_hits": i("marker_hits"),
                    "synchronized_ranks": i("synchronized_ranks"),
                    "expected_world_size": i("expected_world_size"),
                    "synchrony_ratio": x("synchrony_ratio"),
                    "peak_gap_bytes": x("peak_gap_bytes"),
                    "peak_gap_ratio": x("peak_gap_ratio"),
                    "robust_zscore": x("robust_zscore"),
                },
                "phase": s("phase"),
            });
            assert_eq!(s("preset").as_deref(), Some(optional::MEMORY_PRESET));
            out.push((format!("{}#{}", s("file").unwrap(), i("origin_ns")), v));
        }
    }
    out
}

#[test]
fn memory_intervals_are_the_intervals_trialscope_memory_reports_per_job() {
    use crate::support::memory_fixture::{rank_trace, MS};
    let d = tmp("memory");
    // Job 1: four Perfetto ranks, each on its own boot clock (a synchronized spike during an
    // all_reduce on every rank, a lone one on rank 2 that is not attributed). Job 2: one
    // telemetry file of 4 ranks. A file of job 1 is given twice: one rank, not two.
    std::fs::create_dir_all(d.join("job4")).unwrap();
    for r in 0..4 {
        let bytes = rank_trace(r, 5_000 * MS + r as u64 * 3_000 * MS);
        std::fs::write(d.join(format!("job4/host{}.pftrace", 7 - r)), bytes).unwrap();
    }
    std::fs::create_dir_all(d.join("tele")).unwrap();
    std::fs::write(d.join("tele/job.jsonl"), crate::memory_telemetry::jsonl()).unwrap();
    let (code, _, err) = trialscope(
        &[
            "summarize",
            "--out",
            "agg",
            "job4",
            "tele",
            "job4/host7.pftrace",
        ],
        &d,
    );
    // The telemetry file has one malformed line (a warning, not a failure).
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("memory intervals of job4: 4 attributed interval(s) over 4 file(s)"),
        "{err}"
    );
    let stored = stored_intervals(&d.join("agg"));
    for (job, files) in [("job4", 4usize), ("tele", 1)] {
        let (code, out, err) = trialscope(&["memory", "--json", job], &d);
        assert_eq!(code, Some(0), "{err}");
        let rep: Value = serde_json::from_str(&out).unwrap();
        let want = rep["intervals"].as_array().unwrap();
        assert!(want.len() >= 4, "{job}: {} intervals", want.len());
        let origin = rep["origin_ns"].as_str().unwrap();
        let mut got: Vec<&Value> = stored
            .iter()
            .filter(|(k, _)| k.starts_with(&format!("{job}/")))
            .map(|(k, v)| {
                assert!(k.ends_with(&format!("#{origin}")), "{k} vs origin {origin}");
                v
            })
            .collect();
        got.sort_by_key(|v| (v["rank"].as_i64(), v["start_ns"].as_i64()));
        let mut want: Vec<&Value> = want.iter().collect();
        want.sort_by_key(|v| (v["rank"].as_i64(), v["start_ns"].as_i64()));
        assert_eq!(got, want, "{job}");
        let keyed: std::collections::BTreeSet<&str> = stored
            .iter()
            .filter(|(k, _)| k.starts_with(&format!("{job}/")))
            .map(|(k, _)| k.split('#').next().unwrap())
            .collect();
        assert_eq!(keyed.len(), files, "{job}: {keyed:?}");
        // The DuckDB recipe's peak hidden memory per rank = the largest peak gap of the rank's
        // intervals in the report.
        let peaks = duckdb_recipe("memory_peaks.duckdb.sql", &d.join("agg"));
        let mine: Vec<&Value> = peaks.iter().filter(|p| p["job"] == job).collect();
        let ranks: std::collections::BTreeSet<i64> =
            want.iter().map(|v| v["rank"].as_i64().unwrap()).collect();
        assert_eq!(mine.len(), ranks.len(), "{job}: {peaks:#?}");
        for p in mine {
            let r = p["rank"].as_i64().unwrap();
            let of_rank = want.iter().filter(|v| v["rank"].as_i64() == Some(r));
            let max = of_rank
                .clone()
                .map(|v| v["evidence"]["peak_gap_bytes"].as_f64().unwrap())
                .fold(f64::MIN, f64::max);
            assert_eq!(p["peak_gap_bytes"].as_f64(), Some(max), "{job} rank {r}");
            assert_eq!(p["intervals"].as_i64(), Some(of_rank.count() as i64));
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}
