//! `trialscope report --html`: one self-contained file — no script, no external resource —
//! that shows the same numbers as the CLI's JSON reports, draws the hotspot plots as inline
//! SVG, lists every file with its artifact id (skipped and failed ones too), and shows names
//! from traces as text, never markup.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::corpus;

fn trialscope(args: &[&str], dir: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ts-report-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn report_is_self_contained_and_shows_the_cli_numbers() {
    let dir = tmp("scaling");
    let scaling = corpus("chromium_scaling");
    let compile = corpus("jax_compile");
    let out = dir.join("r.html");
    let (code, _, err) = trialscope(
        &[
            "report",
            "--html",
            out.to_str().unwrap(),
            "--top",
            "20",
            "--plots",
            "3",
            scaling.to_str().unwrap(),
            compile.to_str().unwrap(),
        ],
        &dir,
    );
    // The folders hold a README-like text or two: skipped and listed, not failures.
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("note: skipped"), "{err}");
    let html = std::fs::read_to_string(&out).unwrap();
    let lower = html.to_lowercase();
    for banned in ["<script", "src=\"http", "href=\"http", "@import", "url("] {
        assert!(
            !lower.contains(banned),
            "the report must not contain {banned}"
        );
    }
    assert_eq!(html.matches("<svg").count(), 3, "three plots");
    assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
    assert!(html.contains("<h2>Compile triage</h2>"));
    assert!(html.contains("Skipped in the folders given"));

    // The same hotspots, in the same order, with the same ρ as `scaling --json`.
    let (code, json, err) = trialscope(
        &[
            "scaling",
            "--json",
            "--top",
            "20",
            scaling.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    let hotspots = v["hotspots"].as_array().unwrap();
    assert_eq!(hotspots.len(), 20);
    let mut at = 0;
    for h in hotspots {
        let name = h["name"].as_str().unwrap();
        let rho = format!("{:.3}", h["spearman_rho"].as_f64().unwrap());
        let id = h["semantic_frame_id"].as_str().unwrap();
        let row = html[at..]
            .find(&format!("<span class=\"id muted\">{id}</span>"))
            .unwrap_or_else(|| panic!("{name} ({id}) is not listed in order"));
        at += row;
        let row_end = at + html[at..].find("</tr>").unwrap();
        assert!(
            html[at..row_end].contains(&format!(">{rho}<")),
            "{name}: ρ {rho} in {}",
            &html[at..row_end]
        );
    }
    for t in v["trials"].as_array().unwrap() {
        assert!(html.contains(t["artifact_id"].as_str().unwrap()));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn names_from_traces_are_text_in_the_report() {
    let dir = tmp("xss");
    let evil = r#"<img src=x onerror=alert(1)>"#;
    for n in [1000, 2000, 4000] {
        let json = format!(
            "{{\"traceEvents\":[{{\"ph\":\"X\",\"name\":{},\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":{}}}]}}",
            serde_json::to_string(evil).unwrap(),
            n / 10
        );
        std::fs::write(dir.join(format!("t_n{n}.json")), json).unwrap();
    }
    let out = dir.join("r.html");
    let (code, _, err) = trialscope(
        &[
            "report",
            "--html",
            out.to_str().unwrap(),
            "t_n1000.json",
            "t_n2000.json",
            "t_n4000.json",
        ],
        &dir,
    );
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(!html.contains("<img"), "the name must not become markup");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    std::fs::remove_dir_all(&dir).ok();
}
