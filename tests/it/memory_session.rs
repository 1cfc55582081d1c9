//! The web worker's memory request (`session::Session::analyse_memory`), natively: the real
//! PyTorch 4-rank traces and a synthetic Perfetto-free case, through the same messages the app
//! sends (serde round trip included).

use trialscope::session::{FromWorker, MemoryRequest, Session, ToWorker, MEMORY_DRAW_POINTS};

use crate::support;

fn corpus(r: u32) -> Vec<u8> {
    support::read_corpus(&format!("torch_multirank/rank{r}.trace.json.gz"))
}

fn request(seq: u64, preset: &str, overrides: &[(&str, &str)]) -> MemoryRequest {
    MemoryRequest {
        seq,
        request: trialscope::workspace::MemoryRequest {
            preset: preset.into(),
            overrides: overrides
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            mapping: None,
            rank_overrides: Vec::new(),
        },
    }
}

#[test]
fn torch_multirank_lanes_and_report_through_the_worker_session() {
    let mut s = Session::new();
    // Imported in reverse order, inside a folder: lanes still come out in rank order.
    for r in (0..4).rev() {
        let out = s.import(
            r,
            &format!("job/rank{r}.trace.json.gz"),
            &corpus(r),
            &mut |_| {},
        );
        assert!(matches!(out, FromWorker::Imported { .. }), "{out:?}");
    }
    assert!(matches!(
        s.import(9, "broken.json", b"{\"traceEvents\": [", &mut |_| {}),
        FromWorker::ImportFailed { .. } | FromWorker::Imported { .. }
    ));
    let req = request(7, "medium", &[]);
    // The request crosses the worker boundary as JSON-like data.
    let msg: ToWorker =
        serde_json::from_str(&serde_json::to_string(&ToWorker::Memory(req.clone())).unwrap())
            .unwrap();
    assert_eq!(msg, ToWorker::Memory(req.clone()));
    let out = s.analyse_memory(&req);
    let out: FromWorker = serde_json::from_str(&serde_json::to_string(&out).unwrap()).unwrap();
    let FromWorker::MemoryAnalysed { seq, view } = out else {
        panic!("{out:?}")
    };
    assert_eq!(seq, 7);
    let ranks: Vec<u32> = view.lanes.iter().map(|l| l.rank).collect();
    let torch: Vec<u32> = ranks.iter().copied().filter(|&r| r < 4).collect();
    assert_eq!(torch, [0, 1, 2, 3]);
    for lane in view.lanes.iter().filter(|l| l.label.starts_with("rank")) {
        let al = lane.allocator_allocated.as_ref().unwrap();
        // ~598 samples, thinned to at most MEMORY_DRAW_POINTS (all kept here).
        assert!(al.ts_ns.len() <= MEMORY_DRAW_POINTS && al.ts_ns.len() >= 590);
        assert_eq!(
            al.value.iter().cloned().fold(0.0, f64::max),
            268_435_468.0,
            "the peak survives thinning"
        );
        // Times are relative to the job's first record, so they survive JavaScript numbers.
        assert!(al.ts_ns.iter().all(|&t| (0..1i64 << 53).contains(&t)));
        assert!(al.ts_ns[0] < 1_000_000_000, "{}", al.ts_ns[0]);
        assert!(lane.device_used.is_none());
        assert!(lane.gap.is_none(), "no gap band without device-used memory");
        assert!(lane.markers.len() >= 24);
    }
    assert!(view.report.intervals.is_empty());
    assert_eq!(view.report.trace_start_ns, Some(0));
    assert!(
        view.origin_ns.parse::<i64>().unwrap() > 1 << 60,
        "epoch-based origin"
    );
    assert!(view
        .report
        .warnings
        .iter()
        .any(|w| w.contains("device-used memory is absent")));
}

#[test]
fn bad_preset_or_knob_fails_naming_it() {
    let s = Session::new();
    match s.analyse_memory(&request(1, "extreme", &[])) {
        FromWorker::MemoryFailed { seq: 1, message } => assert!(message.contains("preset")),
        other => panic!("{other:?}"),
    }
    match s.analyse_memory(&request(2, "low", &[("min_confidence", "2")])) {
        FromWorker::MemoryFailed { seq: 2, message } => {
            assert!(message.contains("min_confidence"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    match s.analyse_memory(&request(3, "high", &[("marker_window", "1s")])) {
        FromWorker::MemoryAnalysed { seq: 3, view } => {
            assert!(view.lanes.is_empty());
            assert_eq!(view.report.params.marker_window_ns, 1_000_000_000);
        }
        other => panic!("{other:?}"),
    }
}

/// Re-mapping kept counters with the default mapping gives exactly the series
/// `series_from_model` picks from the model (what the worker relies on for mapping edits).
#[test]
fn apply_mapping_over_kept_counters_matches_series_from_model() {
    use trialscope::analysis::collective_memory as cm;
    let a = trialscope::formats::import("rank0.trace.json.gz", &corpus(0)).unwrap();
    let direct = cm::series_from_model(&a.model, &cm::Mapping::default());
    assert!(direct.kinds.allocator_allocated.is_some());
    let counters = cm::counters_from_model(&a.model);
    let mut remapped = direct.clone();
    remapped.kinds.allocator_allocated = None;
    remapped.kinds.allocator_reserved = None;
    cm::apply_mapping(&mut remapped, &counters, &cm::Mapping::default());
    assert_eq!(remapped, direct);
    // An empty mapping maps nothing.
    let none = cm::Mapping {
        device_used: Vec::new(),
        allocator_reserved: Vec::new(),
        allocator_allocated: Vec::new(),
        device_total: Vec::new(),
    };
    cm::apply_mapping(&mut remapped, &counters, &none);
    assert!(remapped.series_present().is_empty());
    assert_eq!(remapped.markers, direct.markers);
}

/// Found by a new user on the demo: the scaling trials `scaling_n1000_r0` / `_r1` (runs of one
/// input size, no memory series, no collective) were two empty lanes, "rank 0" and "rank 1"
/// taken from the `_rN` suffix. They now have no lane and are named in one warning, and the
/// torch ranks beside them keep their lanes and world size.
#[test]
fn traces_without_memory_data_have_no_lane_and_no_rank_from_a_run_suffix() {
    let mut s = Session::new();
    for (id, name) in [(1, "scaling_n1000_r0.pb.gz"), (2, "scaling_n1000_r1.pb.gz")] {
        let bytes = support::read_corpus(&format!("chromium_scaling/{name}"));
        let out = s.import(id, name, &bytes, &mut |_| {});
        assert!(matches!(out, FromWorker::Imported { .. }), "{out:?}");
    }
    let view = |s: &mut Session, seq| match s.analyse_memory(&request(seq, "medium", &[])) {
        FromWorker::MemoryAnalysed { view, .. } => view,
        other => panic!("{other:?}"),
    };
    let alone = view(&mut s, 1);
    assert!(alone.lanes.is_empty(), "{:?}", alone.lanes.len());
    assert_eq!(alone.report.world_size, 0);
    assert!(
        alone.report.warnings.iter().any(|w| w.contains(
            "not in the memory view: 2 trace(s) with no memory series and no collective marker \
             (scaling_n1000_r0.pb.gz, scaling_n1000_r1.pb.gz)"
        )),
        "{:?}",
        alone.report.warnings
    );
    assert!(!alone
        .report
        .warnings
        .iter()
        .any(|w| w.contains("appears more than once")));
    for r in 0..2 {
        let out = s.import(
            10 + r,
            &format!("rank{r}.trace.json.gz"),
            &corpus(r),
            &mut |_| {},
        );
        assert!(matches!(out, FromWorker::Imported { .. }), "{out:?}");
    }
    let both = view(&mut s, 2);
    let ranks: Vec<(u32, &str)> = both
        .lanes
        .iter()
        .map(|l| (l.rank, l.label.as_str()))
        .collect();
    assert_eq!(
        ranks,
        [(0, "rank0.trace.json.gz"), (1, "rank1.trace.json.gz")]
    );
    assert!(!both
        .report
        .warnings
        .iter()
        .any(|w| w.contains("appears more than once")));
}
