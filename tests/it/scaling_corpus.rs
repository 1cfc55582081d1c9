//! The scaling analysis on the real Chromium corpus (`corpus/chromium_scaling`, 18 Perfetto
//! traces of one page at N = 1000 … 32000, three repetitions each; MANIFEST.md "Ground truth for
//! the scaling analysis"), through the library and through the built `trialscope` binary.
//!
//! Our identity is name + category (+ source location), so a MANIFEST slice name may map to
//! several semantic frames: assertions use the frame carrying the bulk of that name's time.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use trialscope::analysis::scaling::{
    self, compile_input_regex, input_from_name, EvidenceStatus, Hotspot, Params, Report, Trial,
    DEFAULT_INPUT_PATTERN,
};
use trialscope::formats;

use crate::support::corpus;

fn scaling_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus("chromium_scaling"))
        .expect("corpus/chromium_scaling")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".pb.gz"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 18);
    files
}

fn report() -> &'static Report {
    static R: OnceLock<Report> = OnceLock::new();
    R.get_or_init(|| {
        let re = compile_input_regex(DEFAULT_INPUT_PATTERN).unwrap();
        let trials: Vec<Trial> = scaling_files()
            .iter()
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                let a = formats::import(&name, &std::fs::read(p).unwrap()).unwrap();
                Trial {
                    input: input_from_name(&name, &re),
                    path: name,
                    variant: "default".into(),
                    environment: String::new(),
                    excluded: false,
                    profile: scaling::profile(&a.artifact_id, &a.model),
                }
            })
            .collect();
        let start = std::time::Instant::now();
        let r = scaling::run(&trials, &Params::default());
        eprintln!(
            "scaling::run on the corpus: {} groups, {} with CIs: {:.3} s",
            r.tested_hypotheses,
            r.hotspots.iter().filter(|h| h.ci_computed).count(),
            start.elapsed().as_secs_f64()
        );
        r
    })
}

/// The hotspot of `name` with the largest summed value over all trials.
fn bulk<'a>(hotspots: &'a [Hotspot], name: &str) -> Option<&'a Hotspot> {
    let total = |h: &Hotspot| -> f64 {
        h.points
            .iter()
            .flat_map(|p| &p.values)
            .map(|v| v.value)
            .sum()
    };
    hotspots
        .iter()
        .filter(|h| h.name == name)
        .max_by(|a, b| total(a).total_cmp(&total(b)))
}

const GROWING: [&str; 5] = [
    "scalingBuildDom",
    "Layout",
    "scalingSort",
    "scalingRelayout",
    "scalingJson",
];
const FLAT: [&str; 4] = [
    "constantWork",
    "constantDom",
    "ThreadPool_RunTask",
    "TaskGraphRunner::RunTask",
];

#[test]
fn growing_frames_are_found_and_flat_ones_are_not_flagged() {
    let r = report();
    assert_eq!(r.trials.len(), 18);
    let inputs: Vec<f64> = r.trials.iter().map(|t| t.input.unwrap()).collect();
    for x in [1000.0, 2000.0, 4000.0, 8000.0, 16000.0, 32000.0] {
        assert_eq!(inputs.iter().filter(|&&v| v == x).count(), 3, "input {x}");
    }
    assert_eq!(
        r.evidence_status,
        EvidenceStatus::Complete,
        "{:?}",
        r.evidence_reasons
    );
    assert!(r.tested_hypotheses > 100);
    for name in GROWING {
        let h = bulk(&r.hotspots, name).unwrap_or_else(|| panic!("{name} not tested"));
        assert!(
            h.q_value < 0.05 && h.spearman_rho >= 0.8,
            "{name}: ρ {} q {}",
            h.spearman_rho,
            h.q_value
        );
        assert_eq!((h.trials, h.distinct_inputs), (18, 6), "{name}");
        assert!(h.ci_computed, "{name}: significant groups get CIs");
        for p in &h.points {
            let (lo, hi) = (p.ci_low.unwrap(), p.ci_high.unwrap());
            assert!(lo <= p.median && p.median <= hi, "{name} at {}", p.input);
        }
    }
    // MANIFEST: scalingBuildDom / Layout / scalingSort at ρ ≥ 0.93.
    for name in ["scalingBuildDom", "Layout", "scalingSort"] {
        assert!(
            bulk(&r.hotspots, name).unwrap().spearman_rho >= 0.93,
            "{name}"
        );
    }
    for name in FLAT {
        if let Some(h) = bulk(&r.hotspots, name) {
            assert!(
                !h.significant || h.spearman_rho < 0.8,
                "{name} flagged: ρ {} q {}",
                h.spearman_rho,
                h.q_value
            );
        }
    }
    // Sorted by |ρ| descending.
    assert!(r
        .hotspots
        .windows(2)
        .all(|w| w[0].spearman_rho.abs() >= w[1].spearman_rho.abs()));
    assert!(r.range_statement.contains("[1000, 32000]"));
}

/// Where a slice name maps to exactly one semantic frame present in all 18 trials, our ρ must
/// equal the corpus' reference ρ (`spearman_summary.json`, computed with SciPy by the corpus'
/// own Python parser from per-file sums of END − BEGIN) to 1e-9. Every MANIFEST-named frame
/// must match; overall at least 90 % of the comparable names must. Known: ~10 of ~187 names
/// (`AsyncTask Run`, `HTMLDocumentParser::PumpTokenizer*`, animation-frame callbacks) differ
/// because the importer and the reference parser pair some BEGIN/END events differently — an
/// importer question, not a statistics one.
#[test]
fn rho_equals_the_corpus_reference_for_single_frame_names() {
    let r = report();
    let summary: serde_json::Value = serde_json::from_slice(
        &std::fs::read(corpus("chromium_scaling/spearman_summary.json")).unwrap(),
    )
    .unwrap();
    let mut by_name: BTreeMap<&str, Vec<&Hotspot>> = BTreeMap::new();
    for h in &r.hotspots {
        by_name.entry(h.name.as_str()).or_default().push(h);
    }
    let mut checked = 0;
    let mut mismatched = Vec::new();
    for row in summary["spearman"].as_array().unwrap() {
        let name = row["name"].as_str().unwrap();
        let rho = row["rho"].as_f64().unwrap();
        if row["present_in"].as_u64() != Some(18) {
            continue;
        }
        if let Some([h]) = by_name.get(name).map(|v| v.as_slice()) {
            if h.zero_filled == 0 {
                checked += 1;
                if (h.spearman_rho - rho).abs() > 1e-9 {
                    mismatched.push(format!("{name}: ours {} reference {rho}", h.spearman_rho));
                }
            }
        }
    }
    assert!(checked >= 150, "only {checked} names comparable");
    for name in GROWING.iter().chain(&FLAT) {
        assert!(
            !mismatched
                .iter()
                .any(|m| m.starts_with(&format!("{name}:"))),
            "{name}: {mismatched:#?}"
        );
    }
    assert!(
        mismatched.len() * 10 <= checked,
        "{} of {checked}: {mismatched:#?}",
        mismatched.len()
    );
}

#[test]
fn cli_json_reports_the_same_hotspots_with_format_and_diagnostics() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .arg("scaling")
        .arg("--json")
        .args(scaling_files())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let trials = v["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 18);
    for t in trials {
        assert_eq!(t["format"], "perfetto_proto");
        assert!(t["diagnostics"].is_array());
        assert!(t["artifact_id"].as_str().unwrap().starts_with("sha256:"));
    }
    assert_eq!(v["evidence_status"], "complete");
    let hotspots = v["hotspots"].as_array().unwrap();
    assert_eq!(
        hotspots.len() as u64,
        v["tested_hypotheses"].as_u64().unwrap()
    );
    let lib = report();
    for name in GROWING {
        let h = bulk(&lib.hotspots, name).unwrap();
        let j = hotspots
            .iter()
            .find(|j| j["semantic_frame_id"] == h.semantic_frame_id.as_str())
            .unwrap();
        // serde_json parses floats to within 1 ulp (no `float_roundtrip` feature).
        let rho = j["spearman_rho"].as_f64().unwrap();
        let q = j["q_value"].as_f64().unwrap();
        assert!((rho - h.spearman_rho).abs() < 1e-12, "{name}");
        assert!((q - h.q_value).abs() <= 1e-12 * h.q_value, "{name}");
        assert_eq!(j["significant"], true);
        assert_eq!(j["unit"], "ns");
        let values: usize = j["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["values"].as_array().unwrap().len())
            .sum();
        assert_eq!(values, 18, "{name}: every trial's value is in the report");
    }
}

#[test]
fn cli_reports_failed_files_and_bad_regex() {
    let files = scaling_files();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(["scaling", "--json", "--top", "3"])
        // n1000_r0, n16000_r0, n2000_r0: three distinct inputs.
        .args([&files[0], &files[3], &files[6]])
        .arg("/nonexistent/scaling_n5_r0.pb")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/scaling_n5_r0.pb"));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["trials"].as_array().unwrap().len(), 3);
    assert_eq!(v["failed_imports"].as_array().unwrap().len(), 1);
    assert_eq!(v["evidence_status"], "partial");
    assert!(v["hotspots"].as_array().unwrap().len() <= 3);

    for bad in ["n(\\d+)_r(\\d+)", "n\\d+", "n(\\d+"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_trialscope"))
            .args(["scaling", "--input-regex", bad])
            .arg(&files[0])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--input-regex"));
    }
}
