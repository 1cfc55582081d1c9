//! `trialscope inspect` / `trialscope slices` as a user runs them (the real binary).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use trialscope::formats;

use crate::support::corpus;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trialscope"))
}

fn public_json_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![corpus("public")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                stack.push(p);
            } else if (n.ends_with(".json") || n.ends_with(".json.gz") || n.ends_with("_gz.gz"))
                && n != "provenance.json"
                && n != "manifest.json"
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn inspect_json_prints_the_counts_of_every_public_json_file() {
    let files = public_json_files();
    assert!(files.len() >= 60);
    let out = bin()
        .arg("inspect")
        .arg("--json")
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), files.len());
    for (f, s) in files.iter().zip(arr) {
        // The CLI prints what the library imports.
        let a = formats::import(&f.display().to_string(), &std::fs::read(f).unwrap()).unwrap();
        assert_eq!(s["path"], f.display().to_string());
        assert_eq!(s["format"], "chrome_json");
        assert_eq!(s["events"], a.model.stats.events);
        assert_eq!(s["slices"], a.model.slices.len());
        assert_eq!(s["tracks"], a.model.tracks.len());
        assert_eq!(s["counters"], a.model.counters.len());
        assert_eq!(s["artifact_id"], a.artifact_id);
        // The importer's rows, then those the files given together add (a rank assigned
        // among siblings, a host from a sibling's name).
        let kinds: Vec<&str> = s["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["kind"].as_str().unwrap())
            .collect();
        let own: Vec<&str> = a
            .model
            .diagnostics
            .entries()
            .iter()
            .map(|d| d.kind.as_str())
            .collect();
        assert_eq!(kinds[..own.len()], own[..]);
        assert!(kinds[own.len()..]
            .iter()
            .all(|k| ["rank_assigned", "hostname_from_siblings"].contains(k)));
    }
    let r0 = arr
        .iter()
        .find(|s| {
            s["path"]
                .as_str()
                .unwrap()
                .ends_with("trial1_coldcache_rank1.pt.trace.json.gz")
        })
        .unwrap();
    assert_eq!(
        (r0["rank"].as_u64(), r0["world_size"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(r0["compression"], "gzip");
}

#[test]
fn inspect_text_and_per_file_errors() {
    let dir = std::env::temp_dir().join(format!("trialscope_cli_inspect_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &[u8], &str); 3] = [
        ("model.pkl", b"\x80\x04\x95\x10\x00\x00\x00", "pickle"),
        ("page.html", b"<!DOCTYPE html><html><body>", "HTML"),
        ("bundle.zip", b"PK\x03\x04\x14\x00\x00\x00", "zip"),
    ];
    let good = corpus("quirks/B02b_truncated_mid_event.json");
    let mut cmd = bin();
    cmd.arg("inspect").arg(&good);
    for (n, bytes, _) in &cases {
        std::fs::write(dir.join(n), bytes).unwrap();
        cmd.arg(dir.join(n));
    }
    let xplane = std::fs::read_dir(corpus("jax_profile/plugins/profile"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path()
        .join("vm.xplane.pb");
    cmd.arg(&xplane);
    cmd.arg(corpus("public/tokio/tokio_merge_conflict_corrupt.pftrace"));
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    for (n, _, what) in &cases {
        let line = stderr
            .lines()
            .find(|l| l.contains(n))
            .unwrap_or_else(|| panic!("{n} not reported: {stderr}"));
        assert!(
            line.contains("not a trace I can read") && line.contains(what),
            "{line}"
        );
    }
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("vm.xplane.pb") && l.contains("XSpace")),
        "{stderr}"
    );
    assert!(stderr.contains("tokio_merge_conflict_corrupt.pftrace"));
    // The good file is still printed, with its truncation warning.
    assert!(stdout.contains("B02b_truncated_mid_event.json"));
    assert!(stdout.contains("slices 2"));
    assert!(stdout.contains("json_truncated_event x1"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn slices_json_lines_in_track_then_time_order() {
    let f = corpus("quirks/B15_unbalanced_begin_end.json");
    let out = bin().arg("slices").arg("--json").arg(&f).output().unwrap();
    assert!(out.status.success());
    let rows: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 5);
    let keys: Vec<(u64, i64)> = rows
        .iter()
        .map(|r| (r["track"].as_u64().unwrap(), r["ts_ns"].as_i64().unwrap()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    let eval = rows.iter().find(|r| r["name"] == "eval").unwrap();
    assert_eq!(eval["dur_ns"], -1);
    assert_eq!(
        (eval["pid"].as_i64(), eval["tid"].as_i64()),
        (Some(2), Some(2))
    );
    for k in ["category", "depth", "process", "thread"] {
        assert!(eval.get(k).is_some(), "{k}");
    }
    // Text form: header plus one line per slice.
    let out = bin().arg("slices").arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 6);
    assert!(
        text.starts_with("name\tcategory\tts_ns\tdur_ns\tdepth\ttrack\tpid\ttid\tprocess\tthread")
    );
}

#[test]
fn inspect_takes_the_jax_host_from_sibling_files() {
    let dir = std::fs::read_dir(corpus("jax_profile/plugins/profile"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    // Files of one directory given together are siblings, as in a dropped folder.
    let out = bin()
        .arg("inspect")
        .arg("--json")
        .arg(dir.join("perfetto_trace.json.gz"))
        .arg(dir.join("vm.trace.json.gz"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["hostname"], "vm");
    // Alone, the file names no host.
    let out = bin()
        .arg("inspect")
        .arg("--json")
        .arg(dir.join("perfetto_trace.json.gz"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["hostname"], Value::Null);
    // A folder argument: its files are siblings; the XSpace protobuf beside the traces is a
    // file this tool does not read: skipped and named on stderr (exit 0), the traces print.
    let out = bin()
        .arg("inspect")
        .arg("--json")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("note: skipped 1 file") && stderr.contains("xplane.pb"),
        "{stderr}"
    );
    // Named on the command line, it is a failure (exit 1).
    let named = bin()
        .arg("inspect")
        .arg(dir.join("vm.xplane.pb"))
        .output()
        .unwrap();
    assert_eq!(named.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let jax = v
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["path"]
                .as_str()
                .unwrap()
                .ends_with("perfetto_trace.json.gz")
        })
        .unwrap();
    assert_eq!(jax["hostname"], "vm");
}

#[test]
fn slices_order_holds_with_overflow_lanes() {
    // The JAX trace has partly overlapping slices that go to overflow lanes.
    let f = corpus("public/local-jax/trial1_perfetto_trace.json.gz");
    let out = bin().arg("slices").arg("--json").arg(&f).output().unwrap();
    assert!(out.status.success());
    let keys: Vec<(u64, i64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["track"].as_u64().unwrap(), v["ts_ns"].as_i64().unwrap())
        })
        .collect();
    let a = formats::import("t.json.gz", &std::fs::read(&f).unwrap()).unwrap();
    assert_eq!(keys.len(), a.model.slices.len());
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
}
