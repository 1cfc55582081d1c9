//! Native tests of the worker's protocol adapter on real corpus files.

use super::*;
use crate::analysis::collective_memory as cm;
use crate::analysis::compile_triage;
use crate::analysis::scaling::{self, Metric};
use crate::formats::records::{self, KeyDefaults};
use crate::model::compile_record::CacheState;
use crate::model::facts::base_name;

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/corpus/chromium_scaling"
);

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{CORPUS}/{name}")).expect("corpus file (../shared beside the checkout)")
}

#[test]
fn imports_real_trials_and_a_corrupt_file_then_finds_the_scaling_frame() {
    let mut s = Session::new();
    let mut id = 0;
    let mut progress_seen = 0;
    for n in [1000, 4000, 16000] {
        for r in 0..2 {
            let name = format!("scaling_n{n}_r{r}.pb.gz");
            let msg = s.import(id, &format!("exp/{name}"), &read(&name), &mut |f| {
                assert!((0.0..=1.0).contains(&f));
                progress_seen += 1;
            });
            match msg {
                FromWorker::Imported { summary, .. } => {
                    assert_eq!(summary.format, "perfetto_proto");
                    assert_eq!(summary.compression, "gzip");
                    assert_eq!(summary.default_input, Some(n as f64));
                    assert_eq!(summary.artifact_id_short.len(), 12);
                    assert!(summary.artifact_id.starts_with("sha256:"));
                    assert!(summary.slices > 100, "{}", summary.slices);
                    assert!(summary.decompressed_bytes > summary.size_bytes);
                }
                other => panic!("{other:?}"),
            }
            id += 1;
        }
    }
    assert!(progress_seen >= 6 * 2);
    let bad = s.import(
        99,
        "corrupt.pftrace",
        &[0x13, 0x37, 0x00, 0xff, 0x42],
        &mut |_| {},
    );
    match bad {
        FromWorker::ImportFailed { id, name, message } => {
            assert_eq!((id, name.as_str()), (99, "corrupt.pftrace"));
            assert!(message.starts_with("corrupt.pftrace: "), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.len(), 6);

    let req = AnalyseRequest {
        seq: 7,
        request: crate::workspace::ScalingRequest {
            settings: vec![],
            metric: Metric::Inclusive,
            pattern: scaling::DEFAULT_INPUT_PATTERN.to_string(),
        },
    };
    let FromWorker::Analysed {
        seq,
        inputs,
        report,
    } = s.analyse(&req)
    else {
        panic!("analysis failed")
    };
    assert_eq!(seq, 7);
    assert_eq!(inputs.len(), 6);
    assert_eq!(inputs[2], (2, Some(4000.0)));
    assert_eq!(report.failed_imports, vec!["corrupt.pftrace".to_string()]);
    let h = report
        .hotspots
        .iter()
        .find(|h| h.name == "scalingBuildDom")
        .expect("scalingBuildDom is tested");
    assert!(h.spearman_rho >= 0.8, "{}", h.spearman_rho);
    assert_eq!(h.trials, 6);
    assert_eq!((h.supported_min, h.supported_max), (1000.0, 16000.0));
}

#[test]
fn settings_override_inputs_exclude_trials_and_bad_patterns_fail_cleanly() {
    let mut s = Session::new();
    for (id, n) in [(1, 1000), (2, 2000), (3, 4000), (4, 8000)] {
        let name = format!("scaling_n{n}_r0.pb.gz");
        assert!(matches!(
            s.import(id, &name, &read(&name), &mut |_| {}),
            FromWorker::Imported { .. }
        ));
    }
    let req = AnalyseRequest {
        seq: 1,
        request: crate::workspace::ScalingRequest {
            settings: vec![
                TrialSettings {
                    id: 1,
                    input_override: Some(5.0),
                    variant: String::new(),
                    excluded: false,
                },
                TrialSettings {
                    id: 4,
                    input_override: None,
                    variant: "b".into(),
                    excluded: true,
                },
            ],
            metric: Metric::Count,
            pattern: r"_n(\d+)_".into(),
        },
    };
    let FromWorker::Analysed { inputs, report, .. } = s.analyse(&req) else {
        panic!()
    };
    assert_eq!(
        inputs,
        vec![
            (1, Some(5.0)),
            (2, Some(2000.0)),
            (3, Some(4000.0)),
            (4, Some(8000.0))
        ]
    );
    assert_eq!(report.metric, Metric::Count);
    assert!(report.trials[3].excluded);
    assert_eq!(report.trials[3].variant, "b");
    assert_eq!(report.trials[0].input, Some(5.0));
    let bad = s.analyse(&AnalyseRequest {
        request: crate::workspace::ScalingRequest {
            pattern: "n(".into(),
            ..req.request.clone()
        },
        ..req.clone()
    });
    assert!(
        matches!(bad, FromWorker::AnalyseFailed { seq: 1, .. }),
        "{bad:?}"
    );
    s.remove(2);
    assert_eq!(s.len(), 3);
    s.clear();
    assert!(s.is_empty());
}

const PUBLIC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/public");

fn read_public(rel: &str) -> Vec<u8> {
    std::fs::read(format!("{PUBLIC}/{rel}")).expect("corpus file (../shared beside the checkout)")
}

fn imported(m: FromWorker) -> ImportSummary {
    match m {
        FromWorker::Imported { summary, .. } => *summary,
        other => panic!("{other:?}"),
    }
}

#[test]
fn pytorch_rank_files_report_rank_world_size_and_join_frames_across_trials() {
    let mut s = Session::new();
    for (id, t) in [
        (1, "trial1_coldcache"),
        (2, "trial2_warmcache"),
        (3, "trial3_cachesdisabled"),
    ] {
        let name = format!("{t}_rank0.pt.trace.json.gz");
        let sum = imported(s.import(
            id,
            &name,
            &read_public(&format!("local-pytorch/{name}")),
            &mut |_| {},
        ));
        assert_eq!(sum.format, "chrome_json");
        assert_eq!(sum.compression, "gzip");
        assert_eq!((sum.rank, sum.world_size), (Some(0), Some(2)));
        assert!(!sum.rank_assigned);
        assert_eq!(sum.hostname.as_deref(), Some("vm"));
        assert!(
            sum.events >= sum.slices && sum.slices > 500,
            "{} {}",
            sum.events,
            sum.slices
        );
        assert!(sum.tracks > 0);
        let flow = sum
            .diagnostics
            .iter()
            .find(|d| d.kind == "flow_event_not_modelled")
            .expect("flow events counted");
        assert_eq!(flow.severity.as_str(), "info");
        assert!(flow.first_offset.is_some() && flow.first_index.is_some());
    }
    assert!(s.take_updates().is_none(), "nothing derived from siblings");
    let FromWorker::Analysed { inputs, report, .. } = s.analyse(&AnalyseRequest {
        seq: 1,
        request: crate::workspace::ScalingRequest {
            settings: vec![],
            metric: Metric::Inclusive,
            pattern: r"trial(\d+)".into(),
        },
    }) else {
        panic!()
    };
    assert_eq!(inputs, vec![(1, Some(1.0)), (2, Some(2.0)), (3, Some(3.0))]);
    assert!(report.tested_hypotheses > 0);
    assert!(
        report.hotspots.iter().any(|h| h.trials == 3),
        "no frame joined across the 3 trials"
    );
}

#[test]
fn jax_trials_take_the_host_from_sibling_files_and_lose_it_when_the_sibling_goes() {
    let mut s = Session::new();
    let a = imported(s.import(
        1,
        "run/trial1_perfetto_trace.json.gz",
        &read_public("local-jax/trial1_perfetto_trace.json.gz"),
        &mut |_| {},
    ));
    assert_eq!(a.hostname, None, "JAX perfetto_trace.json.gz names no host");
    assert_eq!((a.rank, a.world_size), (None, None));
    // A file of another drop (another directory) is no sibling.
    let other = imported(s.import(
        2,
        "elsewhere/trial1_xprof.trace.json.gz",
        &read_public("local-jax/trial1_xprof.trace.json.gz"),
        &mut |_| {},
    ));
    assert_eq!(other.hostname.as_deref(), Some("trial1_xprof"));
    assert!(s.take_updates().is_none());
    let b = imported(s.import(
        3,
        "run/trial1_xprof.trace.json.gz",
        &read_public("local-jax/trial1_xprof.trace.json.gz"),
        &mut |_| {},
    ));
    assert_eq!(b.hostname.as_deref(), Some("trial1_xprof"));
    assert!(!b.hostname_from_siblings, "its own file name names it");
    let Some(FromWorker::Updated { summaries }) = s.take_updates() else {
        panic!("the JAX trace gains a host")
    };
    assert_eq!(summaries.len(), 1);
    assert_eq!(summaries[0].id, 1);
    assert_eq!(summaries[0].hostname.as_deref(), Some("trial1_xprof"));
    assert!(summaries[0].hostname_from_siblings);
    assert_eq!(
        s.workspace().entries()[0]
            .trace()
            .unwrap()
            .trial
            .environment
            .split(';')
            .next(),
        Some("host=trial1_xprof")
    );
    s.remove(3);
    let Some(FromWorker::Updated { summaries }) = s.take_updates() else {
        panic!("the host goes with the sibling")
    };
    assert_eq!(
        (summaries[0].id, summaries[0].hostname.as_deref()),
        (1, None)
    );
    assert!(!s.workspace().entries()[0]
        .trace()
        .unwrap()
        .trial
        .environment
        .contains("host="));
}

#[test]
fn pytorch_files_without_rank_get_distinct_ranks_with_a_warning() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/quirks/B10_missing_distributed_info"
    );
    let mut s = Session::new();
    let mut sums = Vec::new();
    for (id, f) in [
        (1, "worker_a.pt.trace.json"),
        (2, "worker_b.pt.trace.json"),
        (3, "rank-3.Jan_01_00_00_00.1234.pt.trace.json"),
    ] {
        let bytes = std::fs::read(format!("{dir}/{f}")).expect("quirk file");
        sums.push(imported(s.import(id, f, &bytes, &mut |_| {})));
    }
    assert_eq!(
        sums[0].rank,
        Some(0),
        "alone, the first rank-less file gets rank 0"
    );
    assert!(sums[0].rank_assigned);
    assert_eq!(sums[1].rank, Some(1));
    assert_eq!(sums[2].rank, Some(3));
    assert!(!sums[2].rank_assigned);
    for sum in &sums[..2] {
        let w = sum
            .diagnostics
            .iter()
            .find(|d| d.kind == "rank_assigned")
            .expect("warned");
        assert_eq!((w.severity.as_str(), w.count), ("warning", 1));
        assert!(sum.diagnostics.iter().any(|d| d.kind == "rank_unknown"));
    }
    assert!(
        s.take_updates().is_none(),
        "ranks 0 and 1 stay distinct from 3"
    );
    // Removing worker_a frees rank 0: worker_b moves to it.
    s.remove(1);
    let Some(FromWorker::Updated { summaries }) = s.take_updates() else {
        panic!()
    };
    assert_eq!((summaries[0].id, summaries[0].rank), (2, Some(0)));
    assert_eq!(s.summary(3).and_then(|x| x.rank), Some(3));
}

#[test]
fn messages_round_trip_through_serde() {
    let m = ToWorker::Analyse(AnalyseRequest {
        seq: 3,
        request: crate::workspace::ScalingRequest {
            settings: vec![TrialSettings {
                id: 2,
                input_override: Some(1.5),
                variant: "v".into(),
                excluded: false,
            }],
            metric: Metric::SelfTime,
            pattern: "x(\\d+)".into(),
        },
    });
    let j = serde_json::to_string(&m).unwrap();
    assert!(j.contains("\"type\":\"analyse\""), "{j}");
    assert_eq!(serde_json::from_str::<ToWorker>(&j).unwrap(), m);
    let p = FromWorker::Progress {
        id: 1,
        fraction: 0.5,
    };
    let j = serde_json::to_string(&p).unwrap();
    assert_eq!(serde_json::from_str::<FromWorker>(&j).unwrap(), p);
    assert_eq!(base_name("a/b\\c.pb"), "c.pb");
}

fn jax(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../shared/corpus/jax_compile/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("corpus file (../shared beside the checkout)")
}

fn triage_req(min_abs_s: f64) -> TriageRequest {
    TriageRequest {
        seq: 1,
        params: compile_triage::Params {
            min_abs_s,
            ..compile_triage::Params::default()
        },
        fills: vec![],
    }
}

fn view(m: FromWorker) -> Box<TriageView> {
    match m {
        FromWorker::Triaged { view, .. } => view,
        other => panic!("{other:?}"),
    }
}

#[test]
fn record_files_are_routed_to_the_triage_and_pins_come_from_the_baseline_only() {
    let mut s = Session::new();
    match s.import(1, "jax/baseline.jsonl", &jax("baseline.jsonl"), &mut |_| {}) {
        FromWorker::RecordsImported { summary } => {
            assert_eq!(summary.records, 72);
            assert_eq!((summary.other_kind, summary.malformed), (0, 0));
        }
        other => panic!("{other:?}"),
    }
    // A record file is no trial of the scaling analysis and no failed import.
    assert_eq!(s.len(), 0);
    assert!(s.workspace().failed().is_empty());
    let v = view(s.triage(&triage_req(0.05)));
    assert!(v.pins.is_empty(), "no pins until the user pins");
    assert_eq!(v.report.pins, 0);
    assert_eq!(v.keys_unpinned, 12);
    let v = view(s.pin_warm_medians(&triage_req(0.05)));
    assert_eq!(v.pins.len(), 12);
    assert_eq!(
        records::parse_pins(v.pins_json.as_bytes()).unwrap().len(),
        12
    );
    assert!(matches!(
        s.import(
            2,
            "cache_regression.jsonl",
            &jax("cache_regression.jsonl"),
            &mut |_| {}
        ),
        FromWorker::RecordsImported { .. }
    ));
    // Adding rows never moves a pin.
    let v = view(s.triage(&triage_req(0.05)));
    assert_eq!(v.pins.len(), 12);
    assert_eq!(v.report.counts["cache-regression"], 31);
    assert_eq!(v.report.findings.len(), 31);
    assert_eq!(v.points.iter().filter(|p| p.drift).count(), 31);
    assert_eq!((v.keys_pinned, v.keys_unpinned), (12, 0));
    let v = view(s.triage(&triage_req(1.0)));
    assert!(v.report.findings.is_empty());
    // A malformed line is listed with its file and line; the file still loads.
    let bad = b"{\"cell\": \"f\", \"transform\": \"jit\", \"hardware\": \"cpu\", \"compile_s\": 1.0}\n{\"kind\": \"note\"}\nnot json\n";
    match s.import(3, "odd.jsonl", bad, &mut |_| {}) {
        FromWorker::RecordsImported { summary } => {
            assert_eq!(
                (summary.other_kind, summary.malformed),
                (1, 2),
                "{summary:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    let v = view(s.triage(&triage_req(0.05)));
    assert!(
        v.malformed.iter().any(|m| m.location == "odd.jsonl:1"),
        "{:?}",
        v.malformed
    );
    assert!(v.malformed.iter().any(|m| m.location == "odd.jsonl:3"));
    assert_eq!(v.other_kind[0].location, "odd.jsonl:2");
    // A pins file replaces the pins; clearing them is the "no pins" state again.
    let pins_json = v.pins_json.clone();
    let v = view(s.clear_pins(&triage_req(0.05)));
    assert!(v.pins.is_empty());
    assert!(v.report.findings.is_empty());
    assert!(matches!(
        s.import(4, "my_pins.json", pins_json.as_bytes(), &mut |_| {}),
        FromWorker::PinsLoaded { pins: 12, .. }
    ));
    assert!(matches!(
        s.import(5, "bad_pins.json", b"{\"pins\": 3}", &mut |_| {}),
        FromWorker::ImportFailed { .. }
    ));
    assert_eq!(s.pin_count(), 12);
}

#[test]
fn version_bump_shows_expected_recompiles_and_unpinned_keys() {
    let mut s = Session::new();
    s.import(1, "baseline.jsonl", &jax("baseline.jsonl"), &mut |_| {});
    s.pin_warm_medians(&triage_req(0.05));
    s.remove(1);
    assert_eq!(s.pin_count(), 12, "removing the file keeps the pins");
    s.import(
        2,
        "version_bump.jsonl",
        &jax("version_bump.jsonl"),
        &mut |_| {},
    );
    let v = view(s.triage(&triage_req(0.05)));
    assert_eq!(v.report.counts["expected-recompile"], 34);
    assert_eq!(v.report.findings.len(), 34);
    assert_eq!(v.report.unpinned.len(), 12);
    // Pinning the unpinned keys explicitly moves only those.
    let keys: Vec<FullKey> = v.report.unpinned.iter().map(|u| u.key.clone()).collect();
    let v = view(s.pin_keys(&keys, &triage_req(0.05)));
    assert_eq!(v.pins.len(), 24);
    assert!(v.report.unpinned.is_empty());
}

/// A real JAX profiler export (corpus `public/local-jax`, 3 compiles: jit_add,
/// jit_broadcast_in_dim, jit_step) is a trial *and* feeds the triage; its records lack
/// hardware, jax_version, precision and cache_state until the user fills them in.
#[test]
fn trace_compile_records_are_kept_and_filled_in_by_the_user() {
    let path = format!(
        "{}/../shared/corpus/public/local-jax/trial1_perfetto_trace.json.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(path).expect("corpus file");
    let mut s = Session::new();
    assert!(matches!(
        s.import(7, "trial1_perfetto_trace.json.gz", &bytes, &mut |_| {}),
        FromWorker::Imported { .. }
    ));
    assert_eq!(s.len(), 1, "the trace is still a trial");
    let v = view(s.triage(&triage_req(1.0)));
    assert_eq!(v.sources.len(), 1);
    let src = &v.sources[0];
    assert!(src.trace);
    assert_eq!(src.records, 3);
    for f in ["hardware", "precision", "cache_state"] {
        assert!(
            src.unknown_fields.iter().any(|u| u == f),
            "{:?}",
            src.unknown_fields
        );
    }
    assert!(v.needs_fill);
    assert_eq!(v.report.warm_rows, 0);
    assert_eq!(v.report.incomplete.len(), 3);
    let mut req = triage_req(1.0);
    req.fills = vec![TraceFill {
        id: 7,
        defaults: KeyDefaults {
            hardware: Some("cpu".into()),
            hostname: Some("vm".into()),
            jax_version: Some("0.10.2".into()),
            precision: Some("fp32".into()),
            cache_state: Some(CacheState::Warm),
            transform: None,
        },
    }];
    let v = view(s.triage(&req));
    assert!(
        v.sources[0].unknown_fields.is_empty(),
        "{:?}",
        v.sources[0].unknown_fields
    );
    assert!(!v.needs_fill);
    assert_eq!(v.report.warm_rows, 3);
    assert_eq!(v.keys_unpinned, 3);
    assert_eq!(v.points.len(), 3);
    // A fill-in for another file id changes nothing here.
    req.fills[0].id = 8;
    assert_eq!(view(s.triage(&req)).report.warm_rows, 0);
    s.remove(7);
    assert!(view(s.triage(&req)).sources.is_empty());
}

/// The worker side of the memory view: telemetry files, rank overrides, the mapping.
mod memory_tests {
    use super::*;

    /// Telemetry JSON Lines for ranks 0–3 on an epoch clock: 200 samples 10 ms apart per rank
    /// (allocator reserved 1.5 GiB, allocated 1 GiB, device used 2 GiB unless `with_used` is
    /// false), one `nccl_all_reduce` marker per rank, and a malformed fifth line.
    fn telemetry4(with_used: bool) -> Vec<u8> {
        const GIB: u64 = 1 << 30;
        let base: u64 = 1_700_000_000_000_000_000;
        let mut out = String::new();
        for i in 0..200u64 {
            for r in 0..4u64 {
                let used = if with_used {
                    format!(",\"device_used_bytes\":{}", 2 * GIB)
                } else {
                    String::new()
                };
                out.push_str(&format!(
                "{{\"timestamp_ns\":{},\"event_type\":\"sample\",\"rank\":{r},\"world_size\":4,\"allocator_reserved_bytes\":{},\"allocator_allocated_bytes\":{}{used}}}\n",
                base + i * 10_000_000 + r,
                3 * GIB / 2,
                GIB
            ));
            }
            if i == 0 {
                out.push_str("this line is not JSON\n");
            }
        }
        for r in 0..4u64 {
            out.push_str(&format!(
            "{{\"timestamp_ns\":{},\"event_type\":\"nccl_all_reduce\",\"rank\":{r},\"duration_ns\":5000000}}\n",
            base + 1_000_000_000
        ));
        }
        out.into_bytes()
    }

    fn req(mapping: Option<cm::Mapping>, rank_overrides: Vec<RankOverride>) -> MemoryRequest {
        MemoryRequest {
            seq: 1,
            request: crate::workspace::MemoryRequest {
                preset: "medium".into(),
                overrides: Vec::new(),
                mapping,
                rank_overrides,
            },
        }
    }

    fn memory_view(out: FromWorker) -> MemoryView {
        match out {
            FromWorker::MemoryAnalysed { view, .. } => *view,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn gzipped_telemetry_feeds_the_memory_view_with_its_bad_line_and_no_trial() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, &telemetry4(true)).unwrap();
        let gz = enc.finish().unwrap();
        let mut s = Session::new();
        let out = s.import(3, "job/mem.jsonl.gz", &gz, &mut |_| {});
        let FromWorker::TelemetryImported { summary } = out else {
            panic!("{out:?}")
        };
        assert_eq!(summary.ranks, [Some(0), Some(1), Some(2), Some(3)]);
        assert_eq!(summary.records, 804);
        assert_eq!(summary.bad_lines.len(), 1);
        assert!(
            summary.bad_lines[0].starts_with("job/mem.jsonl.gz:5: not JSON"),
            "{:?}",
            summary.bad_lines
        );
        assert_eq!(summary.diagnostics.len(), 1);
        assert_eq!(summary.diagnostics[0].kind, "telemetry_bad_line");
        assert_eq!(summary.diagnostics[0].count, 1);
        assert_eq!(summary.diagnostics[0].first_index, Some(5));
        // Not a scaling trial.
        assert_eq!(s.len(), 0);
        let FromWorker::Analysed { report, inputs, .. } = s.analyse(&AnalyseRequest {
            seq: 1,
            request: crate::workspace::ScalingRequest {
                settings: Vec::new(),
                metric: Metric::Inclusive,
                pattern: scaling::DEFAULT_INPUT_PATTERN.into(),
            },
        }) else {
            panic!("analysis failed")
        };
        assert!(inputs.is_empty());
        assert!(report.hotspots.is_empty());
        // One lane per rank, with device-used memory and a marker each.
        let v = memory_view(s.analyse_memory(&req(None, Vec::new())));
        let ranks: Vec<u32> = v.lanes.iter().map(|l| l.rank).collect();
        assert_eq!(ranks, [0, 1, 2, 3]);
        assert_eq!(v.lanes[2].label, "mem.jsonl.gz (rank 2)");
        assert!(v.lanes.iter().all(|l| l.device_used.is_some()));
        assert!(v.lanes.iter().all(|l| l.markers.len() == 1));
        assert_eq!(v.sources.len(), 4);
        assert!(v.sources.iter().all(|s| s.telemetry && s.id == 3));
        s.remove(3);
        assert!(memory_view(s.analyse_memory(&req(None, Vec::new())))
            .lanes
            .is_empty());
    }

    /// The budget is asked before packing, with the sample count the packed counter holds
    /// (finite values only): a counter with non-finite values must not spend them.
    #[test]
    fn counters_kept_for_remapping_are_bounded() {
        use crate::model::{CounterSeries, Model, TrackId};
        let big = crate::workspace::MAX_KEPT_COUNTER_SAMPLES;
        let mut m = Model::default();
        let mut add = |name: &str, ts_ns: Vec<i64>, value: Vec<f64>| {
            let name = m.strings.intern(name);
            m.counters.push(CounterSeries {
                track: TrackId(0),
                name,
                unit: name,
                pid: None,
                ts_ns,
                value,
            });
        };
        let ramp = |n: usize| (0..n as i64).collect::<Vec<i64>>();
        add("GPU memory used", ramp(big + 1), vec![1.0; big + 1]);
        // big - 5 samples, 5 of them NaN: it spends big - 10 of the budget, leaving 10.
        let mut freq = vec![2.0; big - 5];
        freq[..5].fill(f64::NAN);
        add("cpu_freq", ramp(big - 5), freq);
        add("fb_bytes", ramp(20), vec![3.0; 20]);
        // Out of time order: packed from a sorted copy.
        add(
            "fan_rpm",
            (0..10).rev().collect(),
            (0..10).map(f64::from).collect(),
        );
        let mut budget = crate::workspace::CounterBudget::new();
        let mut asked = Vec::new();
        let kept = cm::counters_from_model_where(&m, |name, samples| {
            asked.push((name.to_string(), samples));
            budget.admit(name, samples)
        });
        let names: Vec<&str> = kept.iter().map(|c| c.name()).collect();
        // The default-mapped series always; then the others while the budget lasts.
        assert_eq!(names, ["GPU memory used", "cpu_freq", "fan_rpm"]);
        assert_eq!(budget.dropped(), 1);
        // Every counter was asked once, with what its packed form holds; the kept ones are
        // exactly what packing every counter gives.
        let all = cm::counters_from_model(&m);
        let lens: Vec<(String, usize)> = all
            .iter()
            .map(|c| (c.name().to_string(), c.len()))
            .collect();
        assert_eq!(asked, lens);
        assert_eq!(lens[1].1, big - 10);
        let want: Vec<&cm::KeptCounter> = all.iter().filter(|c| c.name() != "fb_bytes").collect();
        assert_eq!(kept.iter().collect::<Vec<_>>(), want);
        assert_eq!(kept[2].series().ts_ns, (0..10).collect::<Vec<i64>>());
    }

    #[test]
    fn a_rank_override_moves_one_lane() {
        let mut s = Session::new();
        s.import(1, "mem.jsonl", &telemetry4(true), &mut |_| {});
        let v = memory_view(s.analyse_memory(&req(
            None,
            vec![RankOverride {
                id: 1,
                part: 1,
                rank: 7,
            }],
        )));
        let ranks: Vec<u32> = v.lanes.iter().map(|l| l.rank).collect();
        assert_eq!(ranks, [0, 2, 3, 7]);
        assert_eq!(v.lanes[3].label, "mem.jsonl (rank 1)");
        let src = &v.sources[1];
        assert_eq!(
            (src.stated_rank, src.rank, src.overridden),
            (Some(1), 7, true)
        );
        assert!(!v.sources[0].overridden);
        // An override of an unknown source changes nothing.
        let v = memory_view(s.analyse_memory(&req(
            None,
            vec![RankOverride {
                id: 9,
                part: 0,
                rank: 7,
            }],
        )));
        let ranks: Vec<u32> = v.lanes.iter().map(|l| l.rank).collect();
        assert_eq!(ranks, [0, 1, 2, 3]);
    }

    #[test]
    fn a_mapping_edit_changes_which_counter_is_device_used() {
        let mut s = Session::new();
        s.import(1, "mem.jsonl", &telemetry4(false), &mut |_| {});
        let v = memory_view(s.analyse_memory(&req(None, Vec::new())));
        assert!(v.lanes.iter().all(|l| l.device_used.is_none()));
        assert!(v
            .report
            .warnings
            .iter()
            .any(|w| w.contains("device-used memory is absent")));
        let mapping = cm::Mapping {
            device_used: vec!["allocator_allocated".into()],
            allocator_allocated: Vec::new(),
            ..cm::Mapping::default()
        };
        let v = memory_view(s.analyse_memory(&req(Some(mapping), Vec::new())));
        assert_eq!(v.lanes.len(), 4);
        for l in &v.lanes {
            let used = l.device_used.as_ref().expect("device-used mapped");
            assert!(used.value.iter().all(|&b| b == (1u64 << 30) as f64));
            assert!(l.allocator_allocated.is_none());
            assert!(l.allocator_reserved.is_some());
            // Both series now exist, so the gap band is computed; used (1 GiB) is under
            // reserved (1.5 GiB), so it is empty (hi clamped to lo), never inverted.
            let g = l.gap.as_ref().expect("gap band");
            assert!(g.lo.iter().zip(&g.hi).all(|(lo, hi)| hi == lo));
        }
    }
}

/// The crash-isolation messages keep their wire shape: the page builds the test hook from its
/// URL and reads `crashed` from the worker's panic hook (src/ui/bridge.rs, src/ui/worker.rs).
#[test]
fn test_hook_and_crashed_messages_round_trip() {
    let hook = ToWorker::TestHook {
        panic_on: vec!["crash_n2.json".into()],
        abort_on: vec!["oom_n3.json".into()],
        session_panic_on: vec!["s.json".into()],
    };
    let j = serde_json::to_value(&hook).unwrap();
    assert_eq!(
        j,
        serde_json::json!({"type": "test_hook", "panic_on": ["crash_n2.json"],
            "abort_on": ["oom_n3.json"], "session_panic_on": ["s.json"]})
    );
    assert_eq!(serde_json::from_value::<ToWorker>(j).unwrap(), hook);
    // The pool's messages: the file's handle and the prepared result travel beside them.
    let prepare = ToWorker::Prepare {
        id: 3,
        name: "a.json".into(),
    };
    let j = serde_json::to_value(&prepare).unwrap();
    assert_eq!(
        j,
        serde_json::json!({"type": "prepare", "id": 3, "name": "a.json"})
    );
    let prepared = FromWorker::Prepared {
        id: 3,
        name: "a.json".into(),
        wasm_memory_bytes: 3e8,
    };
    let mut j = serde_json::to_value(&prepared).unwrap();
    j["prepared"] = serde_json::json!({"Err": "x"});
    assert_eq!(
        serde_json::from_value::<FromWorker>(j).unwrap(),
        prepared,
        "a field beside the message is ignored by its decoder"
    );
    let crashed = FromWorker::Crashed {
        id: Some(7),
        message: "boom at src/x.rs:1".into(),
    };
    let j = serde_json::to_value(&crashed).unwrap();
    assert_eq!(
        j,
        serde_json::json!({"type": "crashed", "id": 7, "message": "boom at src/x.rs:1"})
    );
    assert_eq!(serde_json::from_value::<FromWorker>(j).unwrap(), crashed);
}
