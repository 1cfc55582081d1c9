//! The layout's rules, checked by reading the sources (`use crate::` lines and calls), so a
//! change that breaks one fails here with the file and the rule:
//!
//! * only `formats::load` decides what a file is: the sniffers and importers are called only
//!   inside `src/formats/`;
//! * no function in `formats` takes more than one file (no slice of models or artifacts);
//! * facts across files live only in the workspace (`hostname_from_siblings`,
//!   `assign_missing_ranks` exist only under `src/workspace/`);
//! * `session`, `ui` and the CLI never call an importer directly — they go through the
//!   workspace (`inspect`, `slices` and `bench` may import a trace);
//! * no `median` function outside `analysis/stats`;
//! * `leptos`/`web_sys`/`js_sys`/`wasm_bindgen` only under `ui` and the wasm entry points;
//! * the dependency direction: `model` ← `formats`; `model` ← `analysis` → `plot`; everything ←
//!   `workspace` ← `session` ← `ui`.

use std::path::{Path, PathBuf};

/// One source file: its path relative to the package root and its text.
struct Source {
    path: String,
    text: String,
}

fn sources() -> Vec<Source> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    files.sort();
    files
        .into_iter()
        // A module of unit tests in a file of its own.
        .filter(|p| p.file_name().is_none_or(|n| n != "tests.rs"))
        .map(|p| Source {
            path: p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/"),
            text: std::fs::read_to_string(&p).unwrap(),
        })
        .collect()
}

/// Code lines of `text`: comments and doc comments dropped, and the unit tests (from a
/// `#[cfg(test)]` line on; the crate keeps them at the end of a file) left out, since a test
/// may build its fixture with another layer's helper.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| l.trim() != "#[cfg(test)]")
        .filter_map(|(i, l)| {
            let t = l.trim_start();
            (!t.starts_with("//")).then_some((i + 1, l))
        })
}

/// The layer of a source path: `model`, `formats`, `analysis`, `plot`, `workspace`, `report`,
/// `session`,
/// `ui`, `cli` or `entry` (lib.rs, main.rs, bin/worker.rs).
/// The crate's layers, as `crate::` names them.
const LAYERS: [&str; 9] = [
    "aggregate",
    "model",
    "formats",
    "analysis",
    "plot",
    "workspace",
    "report",
    "session",
    "ui",
];

fn layer(path: &str) -> &'static str {
    let rest = path.strip_prefix("src/").unwrap_or(path);
    for l in LAYERS {
        if rest.starts_with(&format!("{l}/")) || rest == format!("{l}.rs") {
            return l;
        }
    }
    if rest.starts_with("bin/trialscope/") {
        return "cli";
    }
    "entry"
}

/// The layers a layer may name with `crate::` (or `trialscope::` in the CLI).
fn allowed(from: &str) -> &'static [&'static str] {
    match from {
        "model" => &["model"],
        "formats" => &["formats", "model"],
        "analysis" => &["analysis", "model"],
        "plot" => &["plot"],
        "workspace" => &["workspace", "formats", "model", "analysis", "plot"],
        "aggregate" => &["aggregate", "workspace", "formats", "model", "analysis"],
        "report" => &[
            "report",
            "workspace",
            "formats",
            "model",
            "analysis",
            "plot",
        ],
        "session" => &[
            "session",
            "workspace",
            "formats",
            "model",
            "analysis",
            "plot",
        ],
        "ui" | "entry" => &[
            "ui",
            "report",
            "session",
            "workspace",
            "formats",
            "model",
            "analysis",
            "plot",
        ],
        "cli" => &[
            "aggregate",
            "report",
            "workspace",
            "formats",
            "model",
            "analysis",
            "plot",
        ],
        _ => &[],
    }
}

/// Every rule broken by `files`, as `path:line: rule`.
fn violations(files: &[Source]) -> Vec<String> {
    let mut out = Vec::new();
    let sniffers = [
        "looks_like_telemetry(",
        "is_trace_json(",
        "detect_format(",
        "looks_like_trace(",
        "looks_like_xspace(",
        "parse_records(",
        "parse_pins(",
        "telemetry::import(",
        "chrome_json::import(",
        "perfetto::import(",
        "formats::testing",
    ];
    let importers = [
        "formats::import(",
        "formats::import_with(",
        "formats::testing",
    ];
    let cross_file = ["fn hostname_from_siblings", "fn assign_missing_ranks"];
    let web = ["leptos", "web_sys", "js_sys", "wasm_bindgen"];
    for f in files {
        let l = layer(&f.path);
        let may_import = ["inspect.rs", "slices.rs", "bench.rs"]
            .iter()
            .any(|n| f.path.ends_with(&format!("cli/{n}")));
        for (n, line) in code_lines(&f.text) {
            let at = |rule: &str| format!("{}:{n}: {rule}", f.path);
            if l != "formats" && sniffers.iter().any(|s| line.contains(s)) {
                out.push(at("only formats::load decides what a file is"));
            }
            if l == "formats" {
                let sig = line.contains("fn ") && line.contains('[');
                if sig
                    && ["Model]", "Model>]", "Artifact]", "Loaded]"]
                        .iter()
                        .any(|t| line.contains(t))
                {
                    out.push(at("no function in formats takes more than one file"));
                }
            }
            if l != "workspace" && cross_file.iter().any(|s| line.contains(s)) {
                out.push(at("facts across files live only in the workspace"));
            }
            let front = matches!(l, "session" | "ui") || (l == "cli" && !may_import);
            if front && importers.iter().any(|s| line.contains(s)) {
                out.push(at("session, ui and the CLI go through the workspace"));
            }
            if front && line.contains("formats::load(") {
                out.push(at("session, ui and the CLI go through the workspace"));
            }
            if !f.path.starts_with("src/analysis/stats/") && line.contains("fn median") {
                out.push(at("no median outside stats"));
            }
            let wasm_entry = f.path == "src/main.rs" || f.path == "src/bin/worker.rs";
            if l != "ui"
                && !wasm_entry
                && web
                    .iter()
                    .any(|w| line.contains(&format!("{w}::")) || line.contains(&format!("use {w}")))
            {
                out.push(at("leptos/web_sys/js_sys/wasm_bindgen only under ui"));
            }
            for prefix in ["crate::", "trialscope::"] {
                let mut rest = line;
                while let Some(p) = rest.find(prefix) {
                    rest = &rest[p + prefix.len()..];
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    // `aggregate::pieces` decodes one Parquet file from bytes (for
                    // `formats::load`) and groups a workspace's pieces into trials (for the
                    // workspace): the one part of `aggregate` those two layers may name.
                    let pieces = name == "aggregate"
                        && rest.starts_with("aggregate::pieces")
                        && matches!(l, "formats" | "workspace");
                    if LAYERS.contains(&name.as_str())
                        && !allowed(l).contains(&name.as_str())
                        && !pieces
                    {
                        out.push(at(&format!("{l} must not depend on {name}")));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn the_sources_keep_the_layout_rules() {
    let v = violations(&sources());
    assert!(v.is_empty(), "layout rules broken:\n{}", v.join("\n"));
}

#[test]
fn each_rule_fails_on_a_deliberate_violation() {
    let bad = |path: &str, text: &str| {
        violations(&[Source {
            path: path.into(),
            text: text.into(),
        }])
    };
    // `aggregate::pieces` is the one part of `aggregate` formats and the workspace may name.
    assert!(bad(
        "src/formats/mod.rs",
        "let p = crate::aggregate::pieces::decode(n, b);"
    )
    .is_empty());
    assert!(bad(
        "src/workspace/mod.rs",
        "let a = crate::aggregate::pieces::assemble(&i);"
    )
    .is_empty());
    let cases = [
        (
            "src/session/mod.rs",
            "let t = telemetry::looks_like_telemetry(&b);",
            "only formats::load",
        ),
        (
            "src/formats/kineto.rs",
            "pub fn assign(models: &mut [&mut Model]) {}",
            "more than one file",
        ),
        (
            "src/formats/x.rs",
            "fn hostname_from_siblings(names: &[&str]) {}",
            "only in the workspace",
        ),
        (
            "src/bin/trialscope/cli/scaling.rs",
            "let a = formats::import(n, &b);",
            "go through the workspace",
        ),
        (
            "src/session/mod.rs",
            "let l = formats::load(n, &b, &o, &mut |_| {});",
            "go through the workspace",
        ),
        (
            "src/analysis/compile_triage.rs",
            "fn median(v: &mut [f64]) -> f64 {",
            "no median outside stats",
        ),
        (
            "src/analysis/scaling.rs",
            "use leptos::prelude::*;",
            "only under ui",
        ),
        (
            "src/model/mod.rs",
            "use crate::formats::Format;",
            "model must not depend on formats",
        ),
        (
            "src/analysis/scaling.rs",
            "use crate::formats::records;",
            "analysis must not depend on formats",
        ),
        (
            "src/plot/mod.rs",
            "use crate::analysis::scaling;",
            "plot must not depend on analysis",
        ),
        (
            "src/formats/mod.rs",
            "use crate::aggregate::dir;",
            "formats must not depend on aggregate",
        ),
        (
            "src/workspace/mod.rs",
            "use crate::session::Session;",
            "workspace must not depend on session",
        ),
    ];
    for (path, text, rule) in cases {
        let v = bad(path, text);
        assert!(
            v.iter().any(|m| m.contains(rule)),
            "{path}: `{text}` should break `{rule}`, got {v:?}"
        );
    }
    // Unit tests at the end of a file are not held to the layering.
    assert!(bad(
        "src/analysis/scaling.rs",
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::formats::records;\n}"
    )
    .is_empty());
    // The exceptions hold: inspect may import a trace, stats may define a median, a comment
    // is not code.
    assert!(bad(
        "src/bin/trialscope/cli/inspect.rs",
        "let a = formats::import(n, &b);"
    )
    .is_empty());
    assert!(bad(
        "src/analysis/stats/descriptive.rs",
        "pub fn median(x: &[f64]) {}"
    )
    .is_empty());
    assert!(bad("src/model/mod.rs", "// use crate::formats::Format;").is_empty());
}
