//! `trialscope scaling --json` on real JSON trials (Chrome JSON / Kineto / JAX), run through the
//! built CLI: the trials get their inputs from the file names, frames are joined across files by
//! semantic frame id exactly as for Perfetto trials (provider `chrome_json`), and Python frames
//! keep file / line / function.
//!
//! * `jax_trials_join_compile_and_pjit_frames`: `local-jax/trial{1,2,3}_perfetto_trace.json.gz`
//!   (JAX 0.4 `jax.profiler.trace`, PROVENANCE.md §5).
//! * `pytorch_rank0_trials_join_cpu_ops`: `local-pytorch/trial{1,2,3}_*_rank0.pt.trace.json.gz`
//!   (torch profiler, gloo; these three files hold no `python_function` events).
//! * `pytorch_python_function_frames_keep_file_line_function`: `torch_multirank/rank{0..3}`
//!   (`with_stack=True`, MANIFEST.md "torch_multirank"), input = rank.
//!
//! No test asserts a significant correlation: three trials cannot give one (scaling.md).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::support;

fn corpus(rel: &str) -> PathBuf {
    let p = support::corpus(rel);
    assert!(
        p.is_file(),
        "{} missing (../shared beside the checkout)",
        p.display()
    );
    p
}

/// Runs `trialscope scaling --json --input-regex REGEX FILES…` and parses its stdout.
fn scaling(regex: &str, files: &[PathBuf]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(["scaling", "--json", "--input-regex", regex])
        .args(files)
        .output()
        .expect("run trialscope");
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

/// (file name, input) of every trial in report order.
fn trial_inputs(r: &Value) -> Vec<(String, Option<f64>)> {
    r["trials"]
        .as_array()
        .expect("trials[]")
        .iter()
        .map(|t| {
            let path = t["path"].as_str().unwrap_or_default();
            let name = path.rsplit('/').next().unwrap_or(path).to_string();
            (name, t["input"].as_f64())
        })
        .collect()
}

fn hotspot<'r>(r: &'r Value, name: &str) -> &'r Value {
    r["hotspots"]
        .as_array()
        .expect("hotspots[]")
        .iter()
        .find(|h| h["name"] == name)
        .unwrap_or_else(|| panic!("no hotspot named {name:?}"))
}

#[test]
fn jax_trials_join_compile_and_pjit_frames() {
    let files: Vec<PathBuf> = (1..=3)
        .map(|i| corpus(&format!("public/local-jax/trial{i}_perfetto_trace.json.gz")))
        .collect();
    let r = scaling(r"trial(\d+)", &files);
    assert_eq!(
        trial_inputs(&r),
        vec![
            ("trial1_perfetto_trace.json.gz".to_string(), Some(1.0)),
            ("trial2_perfetto_trace.json.gz".to_string(), Some(2.0)),
            ("trial3_perfetto_trace.json.gz".to_string(), Some(3.0)),
        ]
    );
    assert!(
        r["tested_hypotheses"].as_u64().unwrap_or(0) > 100,
        "{}",
        r["tested_hypotheses"]
    );
    assert_eq!(r["failed_imports"].as_array().map(Vec::len), Some(0));
    // Three trials: the report warns that "significant" is only a ranking here.
    assert!(
        r["warnings"].as_array().is_some_and(|w| w.iter().any(|w| w
            .as_str()
            .is_some_and(|w| w.starts_with("only 3 usable trials")))),
        "{}",
        r["warnings"]
    );
    // Issue 13: three trials get exact permutation p-values (≥ 1/3), so nothing is significant
    // (the t approximation called 373 of 1,215 frames significant here).
    assert_eq!(r["significant"], 0);
    assert!(r["hotspots"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["p_method"] == "exact_permutation"
            && h["p_value"].as_f64().unwrap() >= 1.0 / 3.0 - 1e-12));
    for name in ["backend_compile_and_load", "PjitFunction(step)"] {
        let h = hotspot(&r, name);
        assert_eq!(h["trials"], 3, "{name} joined across the three files");
        assert_eq!(h["provider"], "chrome_json", "{name}");
        assert_eq!(h["missing"], 0, "{name}");
        assert!(
            h["semantic_frame_id"]
                .as_str()
                .is_some_and(|s| s.starts_with("sf1:")),
            "{name}: {}",
            h["semantic_frame_id"]
        );
    }
    // JAX's Python frames (`$compiler.py:292 backend_compile_and_load`) keep their source.
    let py = hotspot(&r, "$compiler.py:292 backend_compile_and_load");
    assert_eq!(py["trials"], 3);
    assert_eq!(
        (&py["file"], &py["line"], &py["function"]),
        (
            &Value::from("compiler.py"),
            &Value::from(292),
            &Value::from("backend_compile_and_load")
        )
    );
}

#[test]
fn pytorch_rank0_trials_join_cpu_ops() {
    let files: Vec<PathBuf> = [
        "trial1_coldcache",
        "trial2_warmcache",
        "trial3_cachesdisabled",
    ]
    .iter()
    .map(|t| corpus(&format!("public/local-pytorch/{t}_rank0.pt.trace.json.gz")))
    .collect();
    let r = scaling(r"trial(\d+)", &files);
    let inputs: Vec<Option<f64>> = trial_inputs(&r).into_iter().map(|(_, i)| i).collect();
    assert_eq!(inputs, vec![Some(1.0), Some(2.0), Some(3.0)]);
    assert!(
        r["tested_hypotheses"].as_u64().unwrap_or(0) > 100,
        "{}",
        r["tested_hypotheses"]
    );
    for name in ["aten::mm", "gloo:all_reduce"] {
        let h = hotspot(&r, name);
        assert_eq!(h["trials"], 3, "{name} joined across the three files");
        assert_eq!(h["provider"], "chrome_json", "{name}");
    }
    assert_eq!(hotspot(&r, "aten::mm")["category"], "cpu_op");
}

#[test]
fn pytorch_python_function_frames_keep_file_line_function() {
    let files: Vec<PathBuf> = (0..4)
        .map(|r| corpus(&format!("torch_multirank/rank{r}.trace.json.gz")))
        .collect();
    let r = scaling(r"rank(\d+)", &files);
    let inputs: Vec<Option<f64>> = trial_inputs(&r).into_iter().map(|(_, i)| i).collect();
    assert_eq!(inputs, vec![Some(0.0), Some(1.0), Some(2.0), Some(3.0)]);
    let h = hotspot(&r, "torch/nn/modules/linear.py(130): forward");
    assert_eq!(h["category"], "python_function");
    assert_eq!(h["provider"], "chrome_json");
    assert_eq!(h["trials"], 4);
    assert_eq!(h["file"], "torch/nn/modules/linear.py");
    assert_eq!(h["line"], 130);
    assert_eq!(h["function"], "forward");
}
