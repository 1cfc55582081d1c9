//! Every case of `corpus/quirks/expected.json`: the quirk inputs give the expected slices,
//! counter series and warnings. Expected values are read from `expected.json` itself.

use std::path::PathBuf;

use serde_json::Value;
use trialscope::formats::{self, Artifact};
use trialscope::model::{Model, TrackKind};

use crate::support::corpus;

fn quirks() -> PathBuf {
    corpus("quirks")
}

fn expected(case: &str) -> Value {
    let text = std::fs::read_to_string(quirks().join("expected.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v[case].clone()
}

fn import(file: &str) -> Artifact {
    let bytes = std::fs::read(quirks().join(file)).unwrap();
    formats::import(file, &bytes).unwrap_or_else(|e| panic!("{e}"))
}

/// A slice as (name, ts, dur, depth, pid, tid).
type SliceRow = (String, i64, i64, u32, Option<i64>, Option<i64>);

fn slices(m: &Model) -> Vec<SliceRow> {
    (0..m.slices.len())
        .map(|i| {
            let t = m.track(m.slices.track[i]);
            (
                m.str(m.slices.name[i]).to_string(),
                m.slices.ts_ns[i],
                m.slices.dur_ns[i],
                m.slices.depth[i],
                t.pid,
                t.tid,
            )
        })
        .collect()
}

/// Checks that each expected slice object (name, ts, dur and, when given, depth/pid/tid) is
/// present.
fn assert_slices_present(m: &Model, exp: &Value) {
    let got = slices(m);
    for e in exp.as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let found = got.iter().any(|g| {
            g.0 == name
                && e.get("ts").is_none_or(|v| v.as_i64() == Some(g.1))
                && e.get("dur").is_none_or(|v| v.as_i64() == Some(g.2))
                && e.get("depth")
                    .is_none_or(|v| v.as_u64() == Some(g.3 as u64))
                && e.get("pid").is_none_or(|v| v.as_i64() == g.4)
                && e.get("tid").is_none_or(|v| v.as_i64() == g.5)
        });
        assert!(found, "expected slice {e} not in {got:?}");
    }
}

fn warnings(m: &Model) -> u64 {
    m.diagnostics
        .entries()
        .iter()
        .filter(|d| d.severity >= trialscope::model::Severity::Warning)
        .map(|d| d.count)
        .sum()
}

fn series<'m>(m: &'m Model, name: &str) -> Option<&'m trialscope::model::CounterSeries> {
    m.counters.iter().find(|c| m.str(c.name) == name)
}

fn assert_series(m: &Model, name: &str, points: &Value) {
    let s = series(m, name).unwrap_or_else(|| {
        panic!(
            "no series {name:?}; have {:?}",
            m.counters.iter().map(|c| m.str(c.name)).collect::<Vec<_>>()
        )
    });
    let exp: Vec<(i64, f64)> = points
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_i64().unwrap(), p[1].as_f64().unwrap()))
        .collect();
    let got: Vec<(i64, f64)> = s
        .ts_ns
        .iter()
        .copied()
        .zip(s.value.iter().copied())
        .collect();
    assert_eq!(got, exp, "series {name}");
}

#[test]
fn b01_trailing_comma() {
    let exp = expected("B01_trailing_comma.json");
    let a = import("B01_trailing_comma.json");
    let m = &a.model;
    assert_eq!(m.slices.len(), exp["slices"].as_array().unwrap().len());
    assert_slices_present(m, &exp["slices"]);
    let t = m.track(m.slices.track[0]);
    assert_eq!(m.track_label(m.slices.track[0]), exp["thread_names"]["7/1"]);
    assert_eq!((t.pid, t.tid), (Some(7), Some(1)));
    assert!(m.diagnostics.count("json_extra_comma") >= 1);
}

#[test]
fn b02a_unterminated_array() {
    let exp = expected("B02a_unterminated_array.json");
    let m = import("B02a_unterminated_array.json").model;
    assert_slices_present(&m, &exp["slices"]);
    assert_eq!(m.slices.len(), 2);
    assert_eq!(m.diagnostics.count("json_unterminated_array"), 1);
}

#[test]
fn b02b_truncated_mid_event() {
    let exp = expected("B02b_truncated_mid_event.json");
    let m = import("B02b_truncated_mid_event.json").model;
    assert_slices_present(&m, &exp["slices"]);
    assert_eq!(m.slices.len(), 2);
    assert!(warnings(&m) >= exp["warnings_min"].as_u64().unwrap());
    let d = m
        .diagnostics
        .entries()
        .iter()
        .find(|d| d.kind == "json_truncated_event")
        .expect("truncation is reported");
    // A truncated file lost data (the issue's "Bad input"; scaling.md: such a trial
    // contributes nothing for the frames it lacks, not 0).
    assert_eq!(d.severity, trialscope::model::Severity::DataLoss);
    assert!(m.diagnostics.has_data_loss());
    // The cut-off event starts on line 5, at this byte offset.
    let text = std::fs::read(quirks().join("B02b_truncated_mid_event.json")).unwrap();
    let line5 = text
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(3)
        .unwrap()
        .0
        + 1;
    assert_eq!(d.first_offset, Some(line5 as u64));
    // Three complete events precede it: it is event 3 (0-based).
    assert_eq!(d.first_index, Some(3));
}

#[test]
fn b04_x_same_ts_order() {
    let exp = expected("B04_x_same_ts_order.json");
    let m = import("B04_x_same_ts_order.json").model;
    assert_slices_present(&m, &exp["slices"]);
    let pair = &exp["identical_pair"];
    let names: Vec<&str> = pair["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let got = slices(&m);
    let depths: Vec<u32> = names
        .iter()
        .map(|n| got.iter().find(|g| g.0 == *n).expect("both kept").3)
        .collect();
    let exp_depths: Vec<u32> = pair["depths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    assert_eq!(depths, exp_depths);
    assert_eq!(
        m.diagnostics.count("slice_overlap_overflow_lane"),
        pair["overlap_errors"].as_u64().unwrap()
    );
}

#[test]
fn b06_id_field_representations() {
    let exp = expected("B06_id_field_representations.json");
    let m = import("B06_id_field_representations.json").model;
    for t in exp["threads"].as_array().unwrap() {
        let tid = t["tid"].as_i64().unwrap();
        let track = m
            .tracks
            .iter()
            .position(|tr| tr.tid == Some(tid) && tr.pid == t["pid"].as_i64())
            .expect("thread track");
        assert_eq!(
            m.track_label(trialscope::model::TrackId(track as u32)),
            t["name"].as_str().unwrap()
        );
    }
    let pid1_threads = m
        .tracks
        .iter()
        .filter(|t| t.kind == TrackKind::Thread && t.pid == Some(1))
        .count();
    assert_eq!(
        pid1_threads as u64,
        exp["distinct_threads_in_pid_1"].as_u64().unwrap()
    );
    // The two string pids are distinct processes named by their strings, each with its "add".
    let mut add_pids: Vec<i64> = slices(&m)
        .into_iter()
        .filter(|s| s.0 == "add")
        .map(|s| s.4.unwrap())
        .collect();
    add_pids.sort();
    add_pids.dedup();
    assert_eq!(add_pids.len(), 2);
    let mut pnames: Vec<String> = add_pids
        .iter()
        .map(|p| m.str(m.processes[p].name).to_string())
        .collect();
    pnames.sort();
    let mut exp_names: Vec<String> = exp["string_pids_kept_distinct"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    exp_names.sort();
    assert_eq!(pnames, exp_names);
    assert!(slices(&m)
        .iter()
        .any(|s| s.0 == "idle" && s.4 == Some(0) && s.5 == Some(0)));
    assert_slices_present(&m, &exp["async_slices"]);
    for s in exp["async_slices"].as_array().unwrap() {
        let i = (0..m.slices.len())
            .find(|&i| m.str(m.slices.name[i]) == s["name"].as_str().unwrap())
            .unwrap();
        assert_eq!(m.track(m.slices.track[i]).kind, TrackKind::Async);
    }
}

#[test]
fn b08a_unescaped_backslash() {
    let exp = expected("B08a_unescaped_backslash.json");
    let m = import("B08a_unescaped_backslash.json").model;
    let lenient = &exp["lenient_expected"];
    assert_eq!(m.slices.len() as u64, lenient["slices"].as_u64().unwrap());
    let first = (0..m.slices.len())
        .min_by_key(|&i| m.slices.ts_ns[i])
        .unwrap();
    assert_eq!(
        m.str(m.slices.name[first]),
        lenient["first_name"].as_str().unwrap()
    );
    let d = m
        .diagnostics
        .entries()
        .iter()
        .find(|d| d.kind == "json_invalid_escape")
        .unwrap();
    assert!(d.message.contains("line 2"), "{}", d.message);
    // The python_function frame keeps file/line/function.
    let f = m.frames.get(m.slices.frame[first]);
    assert_eq!(f.key.line, Some(219));
}

#[test]
fn b08b_unescaped_quote_never_hangs_and_is_located() {
    let exp = expected("B08b_unescaped_quote.json");
    assert_eq!(exp["must_not_hang"], true);
    let m = import("B08b_unescaped_quote.json").model;
    // Lenient recovery keeps both events; the repair is reported on line 2.
    let names: Vec<String> = slices(&m).into_iter().map(|s| s.0).collect();
    assert!(names.contains(&"aten::mul".to_string()), "{names:?}");
    assert!(
        names.contains(&r#"{"device": "cpu", "dtype": "float32"}(12): run"#.to_string()),
        "{names:?}"
    );
    let d = m
        .diagnostics
        .entries()
        .iter()
        .find(|d| d.kind == "json_unescaped_quote_repaired")
        .unwrap();
    let line = exp["strict_expected"]["error_mentions_line"]
        .as_u64()
        .unwrap();
    assert!(d.message.contains(&format!("line {line}")), "{}", d.message);
}

#[test]
fn b10_missing_distributed_info() {
    let exp = expected("B10_missing_distributed_info");
    for (file, rank) in exp["rank_from_filename"].as_object().unwrap() {
        let a = import(&format!("B10_missing_distributed_info/{file}"));
        assert_eq!(a.model.info.rank, Some(rank.as_u64().unwrap() as u32));
    }
    // Loaded together with the rank-3 file (one sibling group, as one dropped folder or one
    // directory on the command line), they get distinct ranks other than 3, each warned.
    let mut ws = trialscope::workspace::Workspace::new();
    let mut files: Vec<String> = Vec::new();
    for file in exp["files_without_rank_get_distinct_ranks_and_a_warning"]
        .as_array()
        .unwrap()
    {
        let a = import(&format!(
            "B10_missing_distributed_info/{}",
            file.as_str().unwrap()
        ));
        assert_eq!(a.model.info.rank, None);
        assert_eq!(a.model.diagnostics.count("rank_unknown"), 1);
        files.push(file.as_str().unwrap().to_string());
    }
    files.push("rank-3.Jan_01_00_00_00.1234.pt.trace.json".into());
    for (id, file) in files.iter().enumerate() {
        let name = format!("B10_missing_distributed_info/{file}");
        let bytes = std::fs::read(quirks().join(&name)).unwrap();
        ws.add(id as u32, &name, &bytes, &mut |_| {}).unwrap();
    }
    let ranks: Vec<Option<u32>> = ws.entries().iter().map(|e| e.facts.rank).collect();
    assert_eq!(ranks, vec![Some(0), Some(1), Some(3)]);
    let assigned = |e: &trialscope::workspace::Entry| {
        e.diagnostics()
            .iter()
            .filter(|d| d.kind == "rank_assigned")
            .count()
    };
    assert!(ws.entries()[..2].iter().all(|e| assigned(e) == 1));
    assert_eq!(assigned(&ws.entries()[2]), 0);
}

#[test]
fn b14_counters_tid_multiseries() {
    let exp = expected("B14_counters_tid_multiseries.json");
    let m = import("B14_counters_tid_multiseries.json").model;
    for (name, pts) in exp["series"].as_object().unwrap() {
        assert_series(&m, name, pts);
        assert_eq!(series(&m, name).unwrap().pid, Some(5));
    }
    assert_eq!(m.counters.len(), exp["series"].as_object().unwrap().len());
}

#[test]
fn b15_unbalanced_begin_end() {
    let exp = expected("B15_unbalanced_begin_end.json");
    let m = import("B15_unbalanced_begin_end.json").model;
    assert_slices_present(&m, &exp["slices"]);
    let unmatched =
        m.diagnostics.count("end_without_begin") + m.diagnostics.count("end_name_mismatch");
    assert_eq!(unmatched, exp["unmatched_end_warnings"].as_u64().unwrap());
    for u in exp["unterminated"].as_array().unwrap() {
        assert!(slices(&m).iter().any(|s| s.0 == u["name"].as_str().unwrap()
            && s.1 == u["ts"].as_i64().unwrap()
            && s.2 == -1));
    }
    // The E's args are merged into the step slice.
    let i = (0..m.slices.len())
        .find(|&i| m.str(m.slices.name[i]) == "step")
        .unwrap();
    let args = m.args.get(m.slices.args[i]).to_vec();
    assert!(args
        .iter()
        .any(|(k, v)| m.str(*k) == "loss" && *v == trialscope::model::ArgValue::Double(0.5)));
}

#[test]
fn b15b_end_name_mismatch() {
    let m = import("B15b_end_name_mismatch.json").model;
    let got = slices(&m);
    assert!(got
        .iter()
        .any(|s| s.0 == "alpha" && s.2 == 10_000 && s.3 == 0));
    assert!(got
        .iter()
        .any(|s| s.0 == "beta" && s.2 == 8_000 && s.3 == 1));
    assert_eq!(m.diagnostics.count("end_name_mismatch"), 1);
}

#[test]
fn b18_display_time_unit_after_events() {
    let exp = expected("B18_display_time_unit_after_events.json");
    let m = import("B18_display_time_unit_after_events.json").model;
    assert_slices_present(&m, &exp["slices"]);
    assert_eq!(
        m.info.metadata.get("displayTimeUnit").map(String::as_str),
        Some("ns")
    );
}

#[test]
fn b19_memory_events_schemas() {
    let exp = expected("B19_memory_events_schemas.json");
    let m = import("B19_memory_events_schemas.json").model;
    for (name, pts) in exp["memory_series"].as_object().unwrap() {
        let name = name.trim_end_matches(" (reconstructed from Bytes)");
        assert_series(&m, name, pts);
        assert_eq!(m.str(series(&m, name).unwrap().unit), "bytes");
    }
    assert_eq!(m.diagnostics.count("memory_total_reconstructed"), 1);
    // During the all-reduce kernel on device 0: the last sample at or before its start.
    let k = (0..m.slices.len())
        .find(|&i| m.str(m.slices.name[i]).starts_with("ncclDevKernel"))
        .unwrap();
    assert_ne!(
        m.slices.flags[k] & trialscope::model::slice_flags::COLLECTIVE,
        0
    );
    let at = |name: &str| {
        let s = series(&m, name).unwrap();
        let j = s
            .ts_ns
            .iter()
            .rposition(|&t| t <= m.slices.ts_ns[k])
            .unwrap();
        s.value[j]
    };
    let during = &exp["during_allreduce_kernel_on_device_0"];
    assert_eq!(
        at("cuda:0 allocated"),
        during["allocated"].as_f64().unwrap()
    );
    assert_eq!(at("cuda:0 reserved"), during["reserved"].as_f64().unwrap());
    assert_eq!(m.info.rank, Some(0));
    assert_eq!(m.info.world_size, Some(2));
    assert_eq!(m.info.backend.as_deref(), Some("nccl"));
}

#[test]
fn b19b_profile_memory_but_no_events() {
    let m = import("B19b_profile_memory_but_no_events.json").model;
    assert!(m.counters.is_empty());
    assert_eq!(
        m.info.metadata.get("profile_memory").map(String::as_str),
        Some("1")
    );
    assert_eq!(m.slices.len(), 2);
}
