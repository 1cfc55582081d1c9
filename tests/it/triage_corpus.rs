//! Compile-drift triage on the real JAX compile records of `corpus/jax_compile/` and the real
//! torch.compile traces of `corpus/public/local-pytorch/`, through the CLI binary and through
//! the library.
//!
//! Expected figures (task brief, from an independent reference implementation of
//! compile-triage.md): pins = the median of the baseline set's warm rows per full key; each set
//! triaged together with the baseline set. Default gates: 0 drift findings everywhere;
//! version_bump: 12 unpinned keys, all expected-recompile. With the absolute floor 0.05 s:
//! cache_regression → 31 cache-regression; host_load_heavy → 14 host-load; host_load → 0;
//! version_bump → 34 expected-recompile drift rows plus the 12 unpinned keys.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use trialscope::analysis::compile_triage::{self, Class, Params, Report};
use trialscope::model::compile_record::CompileRecord;
use trialscope::model::facts::Facts;

use crate::support::corpus;

const BIN: &str = env!("CARGO_BIN_EXE_trialscope");

fn set(name: &str) -> PathBuf {
    corpus(&format!("jax_compile/{name}.jsonl"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("trialscope_triage_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `trialscope pin --out FILE baseline.jsonl` → the pins file path.
fn baseline_pins() -> PathBuf {
    let out = tmp(&format!("pins_{:?}.json", std::thread::current().id()));
    let (code, _, err) = cli(&[
        "pin",
        "--out",
        out.to_str().unwrap(),
        set("baseline").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    out
}

fn triage_json(pins: &Path, name: &str, min_abs: &str) -> Value {
    let (code, out, err) = cli(&[
        "triage",
        "--pins",
        pins.to_str().unwrap(),
        "--min-abs-s",
        min_abs,
        "--json",
        set("baseline").to_str().unwrap(),
        set(name).to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn count(v: &Value, class: &str) -> u64 {
    v["counts"][class].as_u64().unwrap()
}

fn findings(v: &Value) -> &Vec<Value> {
    v["findings"].as_array().unwrap()
}

#[test]
fn pin_writes_warm_medians_of_the_baseline() {
    let pins_path = baseline_pins();
    let text = std::fs::read_to_string(&pins_path).unwrap();
    let pins = crate::support::pins_file("pins.json", text.as_bytes());
    // 6 cells × 2 precisions, all warm, jax 0.10.2.
    assert_eq!(pins.len(), 12);
    assert!(pins.iter().all(|p| p.key.jax_version == "0.10.2"));
    // Independent check against the records: median of the 3 warm baseline rows of
    // mlp_d96/fp32, and the newest of their timestamps.
    let f = crate::support::record_file("baseline.jsonl", &std::fs::read(set("baseline")).unwrap());
    let mut rows: Vec<&CompileRecord> = f
        .records
        .iter()
        .filter(|r| {
            r.cell.as_deref() == Some("mlp_d96")
                && r.precision.as_deref() == Some("fp32")
                && r.cache_state.map(|c| c.as_str()) == Some("warm")
        })
        .collect();
    assert_eq!(rows.len(), 3);
    rows.sort_by(|a, b| a.compile_s.unwrap().total_cmp(&b.compile_s.unwrap()));
    let newest = rows
        .iter()
        .map(|r| r.timestamp.as_ref().unwrap().unix_ns)
        .max()
        .unwrap();
    let p = pins
        .iter()
        .find(|p| p.key.cell == "mlp_d96" && p.key.precision == "fp32")
        .unwrap();
    assert_eq!(p.compile_s, rows[1].compile_s.unwrap());
    assert_eq!(p.source_timestamp.as_ref().unwrap().unix_ns, newest);
    assert!(p.source.contains("baseline.jsonl:"), "{}", p.source);
}

#[test]
fn default_gates_find_no_drift_in_any_set() {
    let pins = baseline_pins();
    for name in [
        "cache_regression",
        "host_load",
        "host_load_heavy",
        "version_bump",
    ] {
        let v = triage_json(&pins, name, "1.0");
        assert!(findings(&v).is_empty(), "{name}: {:?}", v["counts"]);
        assert_eq!(v["actionable"], 0, "{name}");
        assert_eq!(v["pins"], 12);
        // The baseline's own warm rows are the history the pins were chosen from.
        assert_eq!(v["history_rows"], 36, "{name}");
        let unpinned = v["unpinned"].as_array().unwrap();
        if name == "version_bump" {
            assert_eq!(unpinned.len(), 12);
            for u in unpinned {
                assert_eq!(u["classification"], "expected-recompile");
                assert_eq!(u["differs_in"], serde_json::json!(["jax_version"]));
                assert_eq!(u["key"]["jax_version"], "0.9.2");
            }
            assert_eq!(v["unpinned_counts"]["expected-recompile"], 12);
        } else {
            assert!(unpinned.is_empty(), "{name}");
        }
        let next = v["next_action"].as_str().unwrap();
        assert!(next.starts_with("No drift"), "{name}: {next}");
        // "No drift" is never silent about rows held back only by the absolute floor: the 31
        // cache-regression rows (all sub-second here) are named.
        if name == "cache_regression" {
            assert!(
                next.contains("31 row(s) were at least 2× their pin but less than 1 s slower"),
                "{next}"
            );
        }
    }
}

#[test]
fn floor_005_separates_cache_host_load_and_version_bump() {
    let pins = baseline_pins();

    let v = triage_json(&pins, "cache_regression", "0.05");
    assert_eq!(count(&v, "cache-regression"), 31);
    assert_eq!(findings(&v).len(), 31);
    assert_eq!(v["actionable"], 31);
    for f in findings(&v) {
        assert_eq!(f["classification"], "cache-regression");
        assert_eq!(f["actionable"], true);
        assert_eq!(f["key"]["cache_state"], "warm");
        // Direct evidence: the records carry persistent_cache_hits 0.
        let ev = f["evidence"].as_str().unwrap();
        assert!(ev.contains("0 persistent-cache hits"), "{ev}");
        let (obs, pin) = (
            f["observed_s"].as_f64().unwrap(),
            f["pinned_s"].as_f64().unwrap(),
        );
        assert!(obs >= 2.0 * pin && obs - pin >= 0.05);
        // Locations name the file as given on the command line (its path).
        assert!(f["location"]["text"]
            .as_str()
            .unwrap()
            .contains("/cache_regression.jsonl:"));
    }
    assert!(v["next_action"]
        .as_str()
        .unwrap()
        .starts_with("31 cache-regression"));

    let v = triage_json(&pins, "host_load_heavy", "0.05");
    assert_eq!(count(&v, "host-load"), 14);
    assert_eq!(findings(&v).len(), 14);
    assert_eq!(v["actionable"], 0);
    for f in findings(&v) {
        let ev = f["evidence"].as_str().unwrap();
        assert!(ev.contains("load_avg_1m") && ev.contains("1 persistent-cache hit"));
    }

    let v = triage_json(&pins, "host_load", "0.05");
    assert!(findings(&v).is_empty(), "{:?}", v["counts"]);

    let v = triage_json(&pins, "version_bump", "0.05");
    assert_eq!(count(&v, "expected-recompile"), 34);
    assert_eq!(findings(&v).len(), 34);
    assert_eq!(v["actionable"], 0);
    assert_eq!(v["unpinned"].as_array().unwrap().len(), 12);
    for f in findings(&v) {
        assert_eq!(f["key"]["jax_version"], "0.10.2");
        assert!(f["evidence"]
            .as_str()
            .unwrap()
            .contains("ran version 0.9.2"));
    }
}

fn load_set(name: &str) -> Vec<CompileRecord> {
    let f =
        crate::support::record_file(&format!("{name}.jsonl"), &std::fs::read(set(name)).unwrap());
    assert!(f.malformed.is_empty() && f.other_kind.is_empty(), "{name}");
    f.records
}

#[test]
fn library_gives_the_same_counts_as_the_cli() {
    let base = load_set("baseline");
    assert_eq!(base.len(), 72);
    let pins = compile_triage::pins_from_records(&base);
    assert_eq!(pins.len(), 12);
    let run = |name: &str, min_abs_s: f64| -> Report {
        let mut all = base.clone();
        all.extend(load_set(name));
        compile_triage::run(
            &all,
            &pins,
            &Params {
                min_abs_s,
                ..Params::default()
            },
        )
    };
    let n = |r: &Report, c: Class| r.findings.iter().filter(|f| f.classification == c).count();
    for name in [
        "cache_regression",
        "host_load",
        "host_load_heavy",
        "version_bump",
    ] {
        assert!(run(name, 1.0).findings.is_empty(), "{name}");
    }
    assert_eq!(
        n(&run("cache_regression", 0.05), Class::CacheRegression),
        31
    );
    assert_eq!(n(&run("host_load_heavy", 0.05), Class::HostLoad), 14);
    assert!(run("host_load", 0.05).findings.is_empty());
    let vb = run("version_bump", 0.05);
    assert_eq!(n(&vb, Class::ExpectedRecompile), 34);
    assert_eq!(vb.findings.len(), 34);
    assert_eq!(vb.unpinned.len(), 12);
    assert!(vb
        .unpinned
        .iter()
        .all(|u| u.classification == Class::ExpectedRecompile));
    // Deterministic: the same inputs in another order give the same report.
    let mut all = base.clone();
    all.extend(load_set("version_bump"));
    all.reverse();
    let again = compile_triage::run(
        &all,
        &pins,
        &Params {
            min_abs_s: 0.05,
            ..Params::default()
        },
    );
    assert_eq!(again.findings, vb.findings);
    assert_eq!(again.unpinned, vb.unpinned);
}

const TORCH_FILL: [&str; 6] = [
    "--hardware",
    "cpu",
    "--framework-version",
    "torch-2.15.0",
    "--precision",
    "fp32",
];

fn torch(name: &str) -> String {
    corpus(&format!("public/local-pytorch/{name}.pt.trace.json.gz"))
        .to_string_lossy()
        .into_owned()
}

/// Real torch.compile traces (made by this project with PyTorch 2.15.0 on CPU, see
/// corpus/public/PROVENANCE.md §5): cold cache, warm cache, caches disabled.
#[test]
fn pytorch_disabled_cache_is_a_cache_regression_against_the_warm_pin() {
    let pins = tmp("torch_pins.json");
    let mut args = vec!["pin", "--out", pins.to_str().unwrap()];
    args.extend(TORCH_FILL);
    let warm = torch("trial2_warmcache_rank0");
    args.push(&warm);
    let (code, _, err) = cli(&args);
    assert_eq!(code, 0, "{err}");
    let p = crate::support::pins_file("pins.json", &std::fs::read(&pins).unwrap());
    // One outermost compile region in the warm run: dynamo's compile_inner (≈ 1.98 s, the
    // Inductor cache hit).
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].key.transform, "torch.compile");
    assert_eq!(p[0].key.hostname, "vm");
    assert!(p[0].key.cell.contains("_compile.compile_inner"));
    assert!((1.9..2.1).contains(&p[0].compile_s), "{}", p[0].compile_s);

    let cold = torch("trial1_coldcache_rank0");
    let disabled = torch("trial3_cachesdisabled_rank0");
    let mut args = vec!["triage", "--json", "--pins", pins.to_str().unwrap()];
    args.extend(TORCH_FILL);
    args.extend([cold.as_str(), warm.as_str(), disabled.as_str()]);
    let (code, out, err) = cli(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let f = findings(&v);
    assert_eq!(f.len(), 1, "{out}");
    assert_eq!(f[0]["classification"], "cache-regression");
    assert!(f[0]["location"]["file"]
        .as_str()
        .unwrap()
        .contains("/trial3_cachesdisabled"));
    let obs = f[0]["observed_s"].as_f64().unwrap();
    assert!((23.0..26.0).contains(&obs), "{obs}");
    // No cache counters in a Kineto trace: the cold-scale rule decided, against the cold trial.
    let ev = f[0]["evidence"].as_str().unwrap();
    assert!(ev.contains("back at its own cold scale"), "{ev}");
    assert_eq!(v["actionable"], 1);
    // The backward compile only happened without a cache hit: a key the warm run never had.
    let u = v["unpinned"].as_array().unwrap();
    assert_eq!(u.len(), 1);
    assert_eq!(u[0]["classification"], "new-cell");
    assert!(u[0]["key"]["cell"]
        .as_str()
        .unwrap()
        .contains("backward._backward_impl"));

    // Without the user's key fields the trace records are listed as incomplete, never dropped.
    let (code, out, _) = cli(&["triage", "--json", &disabled]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let inc = v["excluded"]["incomplete"].as_array().unwrap();
    assert_eq!(inc.len(), 2);
    assert!(inc[0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("missing hardware, jax_version, precision"));
    assert!(v["next_action"]
        .as_str()
        .unwrap()
        .contains("not an all-clear"));
}

/// Real JAX profiler exports (jax 0.10.2, CPU; PROVENANCE §5 and MANIFEST `jax_profile/`): one
/// record per compiled function, named by XLA's module name, with the duration of
/// `backend_compile_and_load` (values read from the raw JSON: `dur` 77551.478 µs, 62552.289 µs,
/// 17956.401 µs; MANIFEST: the two compiles of `jax_profile` total 182 ms).
#[test]
fn jax_traces_give_one_record_per_compiled_function() {
    let load = |rel: &str| {
        let p = corpus(rel);
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let a = trialscope::formats::import(&name, &std::fs::read(&p).unwrap()).unwrap();
        compile_triage::extract(&a.model, &Facts::alone(&name))
    };
    let rs = load("public/local-jax/trial1_perfetto_trace.json.gz");
    let got: Vec<(String, f64)> = rs
        .iter()
        .map(|r| (r.cell.clone().unwrap(), r.compile_s.unwrap()))
        .collect();
    let want = [
        ("jit_add", 0.077_551_478),
        ("jit_broadcast_in_dim", 0.062_552_289),
        ("jit_step", 0.017_956_401),
    ];
    assert_eq!(got.len(), 3, "{got:?}");
    for ((cell, s), (wc, ws)) in got.iter().zip(want) {
        assert_eq!(cell, wc);
        assert!((s - ws).abs() < 1e-9, "{cell}: {s}");
    }
    assert!(rs.iter().all(|r| r.transform.as_deref() == Some("jit")));
    // No cache state in the name: left for the user, and the record says what is missing.
    assert_eq!(rs[0].cache_state, None);

    let dir = corpus("jax_profile/plugins/profile");
    let sub = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let name = "vm.trace.json.gz";
    let a = trialscope::formats::import(name, &std::fs::read(sub.join(name)).unwrap()).unwrap();
    let rs = compile_triage::extract(&a.model, &Facts::alone(name));
    assert_eq!(rs.len(), 2);
    assert_eq!(rs[0].cell.as_deref(), Some("jit_loss"));
    assert_eq!(rs[0].hostname.as_deref(), Some("vm"));
    let total: f64 = rs.iter().map(|r| r.compile_s.unwrap()).sum();
    assert!((total - 0.182).abs() < 0.001, "{total}");
}
