//! Parquet aggregates dropped into the web worker's session (issue 12, part 4): the files of a
//! directory `trialscope summarize` wrote from the 18 Chromium scaling trials, added one by one
//! in a shuffled order (some through the import pool's `prepare`), give the scaling report
//! `trialscope scaling --from DIR --json` gives, byte for byte (and so does `trialscope scaling
//! DIR`, the folder given as files: the same workspace grouping); a missing piece is stated and a
//! removed piece takes its trial with it; the Compare tab's report over them equals the one over
//! the traces; a failed trial is listed with its error; a table this
//! version does not use is accepted and ignored; another table version is refused naming it;
//! the scaling flame graph says the aggregates hold no call tree.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use trialscope::aggregate::{self, table, Outcome, Summary};
use trialscope::analysis::scaling::{Metric, DEFAULT_INPUT_PATTERN};
use trialscope::formats::LoadOptions;
use trialscope::session::{
    AggregateState, AnalyseRequest, FlameOf, FlameRequest, FromWorker, Session,
};
use trialscope::workspace::ScalingRequest;

use crate::support::shared;

/// A temporary directory for this process and `tag`.
pub fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ts-pqweb-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the CLI in `cwd`: (exit code, stdout, stderr).
pub fn trialscope(args: &[&str], cwd: &Path) -> (Option<i32>, String, String) {
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

/// Summarizes the 18 Chromium scaling trials into `out/agg` (run in the shared folder, so
/// `trials.path` is `corpus/chromium_scaling/…`); returns every aggregate file as
/// (`agg/<table>/<key>.parquet`, path), sorted.
pub fn summarize_chromium(out: &Path) -> Vec<(String, PathBuf)> {
    let agg = out.join("agg");
    let a = agg.display().to_string();
    let (code, _, err) = trialscope(
        &["summarize", "--out", &a, "corpus/chromium_scaling"],
        &shared(""),
    );
    assert_eq!(code, Some(0), "{err}");
    let mut files = Vec::new();
    for t in aggregate::TABLES {
        for e in std::fs::read_dir(agg.join(t)).unwrap() {
            let p = e.unwrap().path();
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            if n.ends_with(".parquet") && !n.starts_with('.') {
                files.push((format!("agg/{t}/{n}"), p));
            }
        }
    }
    files.sort();
    files
}

/// `trialscope scaling --from DIR --json` without the two fields the CLI adds per trial.
pub fn cli_report(agg: &Path) -> Value {
    let a = agg.display().to_string();
    let (code, out, err) = trialscope(&["scaling", "--from", &a, "--json"], &shared(""));
    assert_eq!(code, Some(0), "{err}");
    let mut v: Value = serde_json::from_str(&out).unwrap();
    for t in v["trials"].as_array_mut().unwrap() {
        let o = t.as_object_mut().unwrap();
        assert!(o.remove("format").is_some() && o.remove("diagnostics").is_some());
    }
    v
}

fn analyse(s: &Session) -> Value {
    match s.analyse(&AnalyseRequest {
        seq: 1,
        request: ScalingRequest {
            settings: Vec::new(),
            metric: Metric::Inclusive,
            pattern: DEFAULT_INPUT_PATTERN.into(),
        },
    }) {
        FromWorker::Analysed { report, .. } => serde_json::to_value(&*report).unwrap(),
        other => panic!("{other:?}"),
    }
}

/// A fixed permutation of `0..n` (a linear congruential shuffle).
fn shuffled(n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for i in (1..n).rev() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        v.swap(i, (x >> 33) as usize % (i + 1));
    }
    v
}

#[test]
fn dropped_aggregates_give_the_report_of_scaling_from_dir() {
    let dir = tmp("session");
    let files = summarize_chromium(&dir);
    // 18 traces and 3 other files of the folder (runs.jsonl, the reference report and
    // summary: skipped or no trial), 4 tables each.
    assert_eq!(files.len(), 84, "21 files × 4 tables");
    let want = cli_report(&dir.join("agg"));
    assert_eq!(want["trials"].as_array().unwrap().len(), 18);

    // One engine on the command line too: the aggregate folder given as a plain folder
    // argument goes through the workspace's grouping (as a drop does) and prints what
    // `--from` prints, byte for byte.
    let agg = dir.join("agg").display().to_string();
    let (c1, from, e1) = trialscope(&["scaling", "--from", &agg, "--json"], &shared(""));
    let (c2, plain, e2) = trialscope(&["scaling", &agg, "--json"], &shared(""));
    assert_eq!((c1, c2), (Some(0), Some(0)), "{e1}\n{e2}");
    assert!(from == plain, "scaling DIR differs from scaling --from DIR");

    // Dropped in a shuffled order; every other file prepared as an import worker does.
    let mut s = Session::new();
    let mut answers = Vec::new();
    for (k, i) in shuffled(files.len()).into_iter().enumerate() {
        let (name, path) = &files[i];
        let bytes = std::fs::read(path).unwrap();
        let id = i as u32;
        let a = if k % 2 == 0 {
            s.import(id, name, &bytes, &mut |_| {})
        } else {
            let p = trialscope::workspace::prepare(
                name,
                &bytes.as_slice(),
                &LoadOptions::default(),
                &mut |_| {},
            );
            // Across the worker boundary as serialized data.
            let p = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
            s.add_prepared(id, name, p)
        };
        answers.push(a);
    }
    assert_eq!(s.len(), 18, "18 trials");
    let got = analyse(&s);
    assert_eq!(
        serde_json::to_string(&got).unwrap(),
        serde_json::to_string(&want).unwrap(),
        "the session's report equals scaling --from"
    );
    // The worker says what every file is now: 18 trials, named by trials.path, 66 pieces
    // (the 3 skipped files' trials pieces say so).
    let Some(FromWorker::Aggregates { states }) = s.take_aggregates() else {
        panic!("no aggregate states")
    };
    let trials: Vec<&str> = states
        .iter()
        .filter_map(|st| match st {
            AggregateState::Trial(t) => Some(t.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(trials.len(), 18);
    assert!(trials.contains(&"corpus/chromium_scaling/scaling_n1000_r0.pb.gz"));
    let notes: Vec<&str> = states
        .iter()
        .filter_map(|st| match st {
            AggregateState::Piece(p) => Some(p.note.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(notes.len(), 66);
    let skipped: Vec<&&str> = notes
        .iter()
        .filter(|n| n.contains("skipped") || n.contains("not a trace"))
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(
        notes.contains(&"frame_costs of corpus/chromium_scaling/scaling_n8000_r2.pb.gz"),
        "{notes:?}"
    );
    assert!(s.take_aggregates().is_none(), "posted once per change");
    // Pieces that are no trial were answered as pieces.
    assert_eq!(
        answers
            .iter()
            .filter(|a| matches!(a, FromWorker::AggregateImported { .. }))
            .count()
            + answers
                .iter()
                .filter(|a| matches!(
                    a,
                    FromWorker::ImportFailed { .. } | FromWorker::Imported { .. }
                ))
                .count(),
        84
    );

    // The scaling flame graph says why it has nothing to draw.
    let f = s.flame(&FlameRequest {
        seq: 9,
        kind: FlameOf::Scaling {
            variant: "default".into(),
        },
        compare: None,
        scaling: Some(ScalingRequest {
            settings: Vec::new(),
            metric: Metric::Inclusive,
            pattern: DEFAULT_INPUT_PATTERN.into(),
        }),
    });
    match f {
        FromWorker::FlameFailed { message, .. } => {
            assert!(message.contains("no call tree"), "{message}")
        }
        other => panic!("{other:?}"),
    }

    // The Compare tab works on the same trials: its report equals the one over the traces.
    let compare_of = |s: &Session| {
        let rule = |p: &str| trialscope::workspace::SideRule {
            pattern: Some(p.to_string()),
            ..Default::default()
        };
        match s.compare(&trialscope::session::CompareMsg {
            seq: 3,
            request: trialscope::workspace::CompareRequest {
                settings: Vec::new(),
                baseline: rule("*_n1000_*"),
                candidate: rule("*_n32000_*"),
                params: Default::default(),
                trees: false,
            },
        }) {
            FromWorker::Compared { outcome, .. } => outcome,
            other => panic!("{other:?}"),
        }
    };
    let from_aggregates = compare_of(&s);
    // The 18 traces, in path order (as the aggregates' trials are ordered).
    let mut traces = Session::new();
    let mut names: Vec<String> = want["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["path"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    for (id, name) in names.iter().enumerate() {
        let bytes = std::fs::read(shared(name)).unwrap();
        traces.import(id as u32, name, &bytes, &mut |_| {});
    }
    let from_traces = compare_of(&traces);
    assert_eq!(
        from_aggregates
            .sides
            .iter()
            .filter(|(_, side)| side.is_some())
            .count(),
        6
    );
    assert!(!from_traces.report.rows.is_empty());
    let (a, t) = (
        serde_json::to_string(&from_aggregates.report).unwrap(),
        serde_json::to_string(&from_traces.report).unwrap(),
    );
    if a != t {
        let at = a.bytes().zip(t.bytes()).take_while(|(x, y)| x == y).count();
        let from = at.saturating_sub(80);
        panic!(
            "the comparison over the aggregates differs from the one over the traces at byte \
             {at}: …{} vs …{}",
            &a[from..(at + 80).min(a.len())],
            &t[from..(at + 80).min(t.len())]
        );
    }

    // Removing one trial's frame_costs piece: the trial is stated as incomplete, not dropped.
    let victim = "corpus/chromium_scaling/scaling_n4000_r1.pb.gz";
    let trials_id = states
        .iter()
        .find_map(|st| match st {
            AggregateState::Trial(t) if t.name == victim => Some(t.id),
            _ => None,
        })
        .unwrap();
    let key = files[trials_id as usize]
        .0
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let costs_id = files
        .iter()
        .position(|(n, _)| *n == format!("agg/frame_costs/{key}"))
        .unwrap() as u32;
    s.remove(costs_id);
    assert_eq!(s.len(), 17);
    let got = analyse(&s);
    assert_eq!(
        got["failed_imports"],
        serde_json::json!([victim]),
        "{}",
        got["failed_imports"]
    );
    let Some(FromWorker::Aggregates { states }) = s.take_aggregates() else {
        panic!("no aggregate states after a removal")
    };
    let msg = states
        .iter()
        .find_map(|st| match st {
            AggregateState::Failed { id, message, .. } if *id == trials_id => Some(message.clone()),
            _ => None,
        })
        .expect("the incomplete trial is failed");
    assert!(
        msg.starts_with(&format!("frame_costs table missing for {victim}")),
        "{msg}"
    );
    // Back again: the same report as before.
    let bytes = std::fs::read(&files[costs_id as usize].1).unwrap();
    s.import(costs_id, &files[costs_id as usize].0, &bytes, &mut |_| {});
    assert_eq!(
        serde_json::to_string(&analyse(&s)).unwrap(),
        serde_json::to_string(&want).unwrap()
    );
    // Removing the trials piece removes the trial; its pieces wait for it, named.
    s.remove(trials_id);
    assert_eq!(s.len(), 17);
    let got = analyse(&s);
    assert_eq!(got["trials"].as_array().unwrap().len(), 17);
    assert_eq!(got["failed_imports"], serde_json::json!([]));
    let Some(FromWorker::Aggregates { states }) = s.take_aggregates() else {
        panic!()
    };
    let waiting = states
        .iter()
        .filter(|st| {
            matches!(st, AggregateState::Piece(p)
                if p.note.starts_with(&format!("trials table missing for key {}", key.trim_end_matches(".parquet"))))
        })
        .count();
    assert_eq!(waiting, 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failed_unknown_and_other_version_pieces() {
    let mut s = Session::new();
    // A file that failed to summarize: its trials row is listed with its error.
    let failed = Summary::of(
        "bad/broken.pb",
        &Outcome::Failed {
            message: "bad/broken.pb: not a trace I can read: text starting with \"hello\"".into(),
            artifact_id: None,
        },
    );
    for (i, t) in failed.tables().into_iter().enumerate() {
        let bytes = table::encode(t, aggregate::TABLE_VERSION).unwrap();
        let name = format!("agg/{}/{}.parquet", t.name, failed.key);
        s.import(i as u32, &name, &bytes, &mut |_| {});
    }
    let Some(FromWorker::Aggregates { states }) = s.take_aggregates() else {
        panic!()
    };
    assert!(
        states.iter().any(
            |st| matches!(st, AggregateState::Failed { name, message, .. }
            if name == "bad/broken.pb" && message.contains("text starting with \"hello\""))
        ),
        "{states:?}"
    );
    assert_eq!(s.len(), 0);

    // A table this version does not use is accepted and ignored.
    let other = table::Table {
        name: "memory_intervals",
        columns: vec![table::Column {
            name: "artifact_id",
            nullable: false,
            values: table::Values::Str(vec![Some("sha256:00".into())]),
        }],
    };
    let bytes = table::encode(&other, 1).unwrap();
    match s.import(10, "agg/memory_intervals/00.parquet", &bytes, &mut |_| {}) {
        FromWorker::AggregateImported { summary } => {
            assert_eq!(summary.table, "memory_intervals");
            assert!(summary.note.contains("ignored"), "{}", summary.note);
        }
        other => panic!("{other:?}"),
    }

    // Another table version is refused, naming the version.
    let bytes = table::encode(&failed.frames, 2).unwrap();
    match s.import(11, "agg/frames/v2.parquet", &bytes, &mut |_| {}) {
        FromWorker::ImportFailed { message, .. } => assert!(
            message.starts_with("agg/frames/v2.parquet: written with schema sf1 table version 2"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
    // A truncated file names its problem.
    let bytes = table::encode(&failed.trials, 1).unwrap();
    match s.import(
        12,
        "agg/trials/cut.parquet",
        &bytes[..bytes.len() - 9],
        &mut |_| {},
    ) {
        FromWorker::ImportFailed { message, .. } => assert!(
            message.starts_with("agg/trials/cut.parquet: a Parquet file without its footer"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
}
