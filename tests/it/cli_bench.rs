//! `trialscope bench` as a harness (issue #9, point 6): `--rounds` measures each side once per
//! round in a rotating order and keeps every round's figures; `--against` measures another
//! build of `trialscope` in the same rounds; a peer that cannot run leaves its figures out, an
//! `--against` that is no executable file is a usage error.

use std::process::Command;

use serde_json::Value;

use crate::support::corpus;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trialscope"))
}

/// Runs `cmd` (a `bench --json`), which must succeed, and gives its JSON and stderr.
fn json_of(cmd: &mut Command) -> (Value, String) {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

/// Three rounds against this same binary: each round holds both import times, the result's
/// best is the best round's, and the text form prints the ratios round by round.
#[test]
fn bench_rounds_against_another_build_keep_every_round() {
    let trace = corpus("chromium_scaling/scaling_n1000_r0.pb.gz");
    let me = env!("CARGO_BIN_EXE_trialscope");
    let (v, _) = json_of(
        bin()
            .args(["bench", "--runs", "1", "--rounds", "3", "--json"])
            .args(["--against", me])
            .arg(&trace),
    );
    let r = &v[0];
    let rounds = r["rounds"].as_array().expect("rounds kept");
    assert_eq!(rounds.len(), 3, "{r}");
    let mut fastest = f64::MAX;
    for x in rounds {
        let ours = x["import_s"].as_f64().unwrap();
        let theirs = x["against_s"].as_f64().expect("the other build measured");
        assert!(ours > 0.0 && theirs > 0.0, "{x}");
        assert!(x["peer_s"].is_null(), "no peer was asked for: {x}");
        fastest = fastest.min(ours);
    }
    assert_eq!(r["best_import_s"].as_f64().unwrap(), fastest, "{r}");
    assert!(r["slices"].as_u64().unwrap() > 0, "{r}");

    let text = bin()
        .args(["bench", "--runs", "1", "--rounds", "2", "--against", me])
        .arg(&trace)
        .output()
        .unwrap();
    assert!(text.status.success());
    let s = String::from_utf8_lossy(&text.stdout);
    let line = s
        .lines()
        .find(|l| l.contains("this binary's import time over the other's"))
        .unwrap_or_else(|| panic!("no ratio line: {s}"));
    // Two ratios, a median and the worst (for a time ratio, the highest).
    assert_eq!(line.matches(" / ").count(), 1, "{line}");
    assert!(
        line.contains("median") && line.contains("highest"),
        "{line}"
    );
}

/// A peer that cannot run leaves its figures out, says why on stderr, and this binary's
/// figures are still printed (exit 0); one round without `--against` keeps no per-round list
/// (the output of a plain `bench` is unchanged). An `--against` that is no executable file is
/// a usage error before anything is measured; a bare name is a file in the current directory.
#[test]
fn bench_sides_that_cannot_run_are_left_out() {
    let trace = corpus("chromium_scaling/scaling_n1000_r0.pb.gz");
    let missing = std::env::temp_dir().join("trialscope-no-such-build");
    let (v, err) = json_of(
        bin()
            .args(["bench", "--runs", "1", "--rounds", "2", "--json", "--peers"])
            .arg("--python")
            .arg(&missing)
            .arg(&trace),
    );
    assert!(err.contains("peer:"), "{err}");
    let rounds = v[0]["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    assert!(rounds
        .iter()
        .all(|x| x["import_s"].as_f64().unwrap() > 0.0 && x["peer_ratio"].is_null()));
    assert!(v[0]["peer"].is_null());

    let (v, _) = json_of(bin().args(["bench", "--runs", "1", "--json"]).arg(&trace));
    assert!(v[0].get("rounds").is_none(), "{}", v[0]);

    for bad in [missing.clone(), corpus("chromium_scaling/runs.jsonl")] {
        let out = bin()
            .args(["bench", "--runs", "1", "--against"])
            .arg(&bad)
            .arg(&trace)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {err}");
        assert!(
            err.contains("--against") && err.contains(&*bad.to_string_lossy()),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "nothing measured");
    }

    // `--against trialscope` run from the binary's own folder: that file, not a command
    // looked up on PATH.
    let me = std::path::Path::new(env!("CARGO_BIN_EXE_trialscope"));
    let name = me.file_name().unwrap();
    let (v, err) = json_of(
        bin()
            .current_dir(me.parent().unwrap())
            .env("PATH", "")
            .args(["bench", "--runs", "1", "--json", "--against"])
            .arg(name)
            .arg(&trace),
    );
    let x = &v[0]["rounds"][0];
    assert!(x["against_s"].as_f64().unwrap() > 0.0, "{x} {err}");
    let ratio = x["against_ratio"].as_f64().unwrap();
    let want = x["import_s"].as_f64().unwrap() / x["against_s"].as_f64().unwrap();
    assert!((ratio - want).abs() < 1e-12, "{x}");
}
