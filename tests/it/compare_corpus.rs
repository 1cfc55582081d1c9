//! `trialscope compare --json` on the real Chromium corpus (issue 13 acceptance): the scaling
//! page at small N (N = 1000 and 2000, 6 trials) against large N (16000 and 32000, 6 trials).
//! MANIFEST.md says which phases grow with N (`scalingBuildDom`, `Layout`, `scalingSort`,
//! `scalingJson`, `scalingRelayout`) and which are controls (`constantWork`, `constantDom`):
//! the comparison calls the first "slower" and never the controls. With 3 vs 3 trials (N = 1000
//! vs 4000) the smallest exact Mann–Whitney p is 0.1, so that comparison tests nothing
//! significant — the report says so through q, and the growing phases still lead by shift.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::support::corpus;

fn files(ns: &[u32]) -> Vec<String> {
    let mut v = Vec::new();
    for n in ns {
        for r in 0..3 {
            let p: PathBuf = corpus(&format!("chromium_scaling/scaling_n{n}_r{r}.pb.gz"));
            v.push(p.display().to_string());
        }
    }
    v
}

fn compare(base: &[String], cand: &[String]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .arg("compare")
        .arg("--json")
        .arg("--baseline")
        .args(base)
        .arg("--candidate")
        .args(cand)
        .output()
        .expect("run trialscope");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON report")
}

/// The rows of `name` (a name can have several frames, e.g. task slices posted from different
/// places): the one with the largest baseline median.
fn row<'r>(r: &'r Value, name: &str) -> &'r Value {
    r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["name"] == name)
        .max_by(|a, b| {
            a["baseline_median"]
                .as_f64()
                .unwrap_or(0.0)
                .total_cmp(&b["baseline_median"].as_f64().unwrap_or(0.0))
        })
        .unwrap_or_else(|| panic!("no row named {name}"))
}

#[test]
fn small_n_against_large_n_names_the_phases_that_grow() {
    let r = compare(&files(&[1000, 2000]), &files(&[16000, 32000]));
    let trials = r["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 12);
    assert!(trials[..6].iter().all(|t| t["side"] == "baseline"));
    assert!(trials[6..].iter().all(|t| t["side"] == "candidate"));
    assert_eq!(r["enough_trials"], true);
    // Every JSON field the issue lists.
    let first = &r["rows"][0];
    for key in [
        "semantic_frame_id",
        "name",
        "category",
        "metric",
        "baseline_median",
        "candidate_median",
        "ratio",
        "ratio_ci_low",
        "ratio_ci_high",
        "shift",
        "shift_ci_low",
        "shift_ci_high",
        "p_value",
        "q_value",
        "verdict",
    ] {
        assert!(first.get(key).is_some(), "rows[] lack {key}: {first}");
    }
    let tested = r["families"][0]["tested"].as_u64().unwrap();
    assert!(tested > 50, "family size {tested}");
    for name in [
        "scalingBuildDom",
        "Layout",
        "scalingSort",
        "scalingJson",
        "scalingRelayout",
    ] {
        let x = row(&r, name);
        assert_eq!(x["verdict"], "slower", "{name}: {x}");
        assert!(x["q_value"].as_f64().unwrap() < 0.05, "{name}");
        assert!(x["ratio"].as_f64().unwrap() > 2.0, "{name}");
    }
    for name in ["constantWork", "constantDom"] {
        let x = row(&r, name);
        assert!(
            x["verdict"] != "slower" && x["verdict"] != "faster",
            "{name}: {x}"
        );
    }
}

#[test]
fn three_against_three_cannot_be_significant_but_ranks_the_growing_phases() {
    let r = compare(&files(&[1000]), &files(&[4000]));
    let rows = r["rows"].as_array().unwrap();
    assert!(rows
        .iter()
        .all(|x| x["verdict"] != "slower" && x["verdict"] != "faster"));
    // Exact p (no ties) cannot go below 2/C(6,3) = 0.1; tied rows (zero-filled) use the normal
    // approximation, as SciPy does.
    assert!(rows
        .iter()
        .filter(|x| x["p_method"] == "exact")
        .filter_map(|x| x["p_value"].as_f64())
        .all(|p| p >= 0.1 - 1e-12));
    let build = row(&r, "scalingBuildDom");
    assert!(build["ratio_ci_low"].as_f64().unwrap() > 1.0, "{build}");
    let cw = row(&r, "constantWork");
    assert!(cw["shift"].as_f64().unwrap().abs() < build["shift"].as_f64().unwrap() / 10.0);
}
