//! CSV exports (`--csv` of `scaling`, `triage`, `memory`; the same functions the web app's
//! download buttons use): every cell equals the CLI's `--json` report for the same files.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::corpus;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `a.b` inside a JSON object.
fn at<'v>(v: &'v Value, path: &str) -> &'v Value {
    path.split('.').fold(v, |v, k| &v[k])
}

/// Asserts each CSV row equals the JSON row: numbers equal as f64, text as text, null empty.
fn assert_rows_equal(csv_text: &str, rows: &[Value], location: impl Fn(&Value) -> String) {
    let mut rd = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    let records: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), rows.len(), "one CSV row per JSON row");
    assert!(!rows.is_empty(), "a comparison of nothing proves nothing");
    for (rec, row) in records.iter().zip(rows) {
        for (col, cell) in header.iter().zip(rec.iter()) {
            let want = at(row, col);
            match want {
                Value::Null => assert_eq!(cell, "", "{col}"),
                Value::Number(n) => {
                    assert_eq!(cell.parse::<f64>().unwrap(), n.as_f64().unwrap(), "{col}")
                }
                Value::String(s) => assert_eq!(cell, s, "{col}"),
                Value::Bool(b) => assert_eq!(cell, b.to_string(), "{col}"),
                Value::Object(_) if col == "location" => assert_eq!(cell, location(want)),
                other => assert_eq!(cell, other.to_string(), "{col}"),
            }
        }
    }
}

#[test]
fn scaling_csv_equals_the_json_report() {
    let dir = corpus("chromium_scaling");
    let files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".pb.gz"))
        .map(|p| p.display().to_string())
        .collect();
    let mut args = vec!["scaling", "--top", "40"];
    args.extend(files.iter().map(String::as_str));
    let csv_text = run(&[&["scaling", "--csv"][..], &args[1..]].concat());
    let json: Value =
        serde_json::from_str(&run(&[&["scaling", "--json"][..], &args[1..]].concat())).unwrap();
    let rows = json["hotspots"].as_array().unwrap();
    assert_eq!(rows.len(), 40);
    assert_rows_equal(&csv_text, rows, |_| unreachable!());
}

#[test]
fn triage_csv_equals_the_json_report() {
    let tmp = std::env::temp_dir().join(format!("ts-exports-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let pins = tmp.join("pins.json");
    let base = corpus("jax_compile/baseline.jsonl");
    let _ = run(&[
        "pin",
        base.to_str().unwrap(),
        "--out",
        pins.to_str().unwrap(),
    ]);
    let records = corpus("jax_compile/cache_regression.jsonl");
    // A low absolute floor: these compiles are tens of ms, below the default 1 s floor.
    let common = [
        "--min-abs-s",
        "0.01",
        "--pins",
        pins.to_str().unwrap(),
        records.to_str().unwrap(),
    ];
    let csv_text = run(&[&["triage", "--csv"][..], &common[..]].concat());
    let json: Value =
        serde_json::from_str(&run(&[&["triage", "--json"][..], &common[..]].concat())).unwrap();
    let rows = json["findings"].as_array().unwrap();
    assert_rows_equal(&csv_text, rows, |loc| {
        loc["text"].as_str().unwrap().to_string()
    });
    std::fs::remove_dir_all(Path::new(&tmp)).ok();
}
